/* SPDX-License-Identifier: MIT */
/*
 * upstream.c - the upstream proxy: URL, one resolution, and the client
 * side of HTTP CONNECT and SOCKS5 (RFC 1928, RFC 1929) (upstream.h).
 */
#include <vbox.h>

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <strings.h>

#include "auth.h"
#include "bbuf.h"
#include "httpmsg.h"
#include "upstream.h"

enum { HS_HTTP, HS_GREET, HS_AUTH, HS_REQ, HS_DONE, HS_FAILED };

static int hexv(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* pct_decode - a new string of @s[0..n) with %XX decoded, or NULL. */
static char *pct_decode(const char *s, size_t n)
{
	char *o = xmalloc(n + 1);
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (s[i] == '%') {
			if (i + 2 >= n + 0 || hexv(s[i + 1]) < 0 ||
			    hexv(s[i + 2]) < 0 ||
			    (hexv(s[i + 1]) == 0 && hexv(s[i + 2]) == 0)) {
				free(o);
				return NULL;
			}
			o[k++] = (char)(hexv(s[i + 1]) * 16 + hexv(s[i + 2]));
			i += 2;
		} else {
			o[k++] = s[i];
		}
	}
	o[k] = '\0';
	return o;
}

void upstream_free(struct upstream *up)
{
	if (!up)
		return;
	free(up->host);
	free(up->user);
	free(up->pass);
	free(up->basic);
	free(up);
}

static int resolve(struct upstream *up, char **err)
{
	struct addrinfo hints, *res, *p;
	char port[8];
	int rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	rc = snprintf(port, sizeof(port), "%u", up->port);
	if (rc < 0 || (size_t)rc >= sizeof(port))
		BUG("a port of %d characters", rc);
	rc = getaddrinfo(up->host, port, &hints, &res);
	if (rc != 0) {
		*err = xasprintf("upstream proxy '%s': %s", up->host,
				 gai_strerror(rc));
		return -1;
	}
	for (p = res; p && up->naddr < UPSTREAM_MAX_ADDRS; p = p->ai_next) {
		if ((p->ai_family != AF_INET && p->ai_family != AF_INET6) ||
		    p->ai_addrlen > sizeof(up->addr[0]))
			continue;
		memcpy(&up->addr[up->naddr++], p->ai_addr, p->ai_addrlen);
	}
	freeaddrinfo(res);
	if (!up->naddr) {
		*err = xasprintf("upstream proxy '%s': no address", up->host);
		return -1;
	}
	return 0;
}

int upstream_parse_url(const char *url, struct upstream **out, char **err)
{
	struct upstream *up = xcalloc(1, sizeof(*up));
	const char *p, *at, *hs, *he, *colon;
	unsigned long port;
	char *end;

	if (!strncmp(url, "http://", 7)) {
		up->kind = UP_HTTP;
		p = url + 7;
	} else if (!strncmp(url, "socks5://", 9)) {
		up->kind = UP_SOCKS5;
		p = url + 9;
	} else if (!strncmp(url, "socks5h://", 10)) {
		up->kind = UP_SOCKS5H;
		p = url + 10;
	} else {
		*err = xasprintf("upstream proxy '%s': scheme must be http, "
				 "socks5 or socks5h", url);
		goto fail;
	}
	at = strrchr(p, '@');
	if (at) {
		colon = memchr(p, ':', (size_t)(at - p));
		if (!colon) {
			*err = xasprintf("upstream proxy '%s': credentials "
					 "must be user:password", url);
			goto fail;
		}
		up->user = pct_decode(p, (size_t)(colon - p));
		up->pass = pct_decode(colon + 1, (size_t)(at - colon - 1));
		if (!up->user || !up->pass || strlen(up->user) > 255 ||
		    strlen(up->pass) > 255) {
			*err = xasprintf("upstream proxy '%s': bad "
					 "credentials", url);
			goto fail;
		}
		p = at + 1;
	}
	if (*p == '[') {
		hs = p + 1;
		he = strchr(hs, ']');
		if (!he || he[1] != ':')
			goto bad_host;
		colon = he + 1;
	} else {
		hs = p;
		he = strchr(p, ':');
		if (!he)
			goto bad_host;
		colon = he;
	}
	if (he == hs)
		goto bad_host;
	up->host = xmalloc((size_t)(he - hs) + 1);
	memcpy(up->host, hs, (size_t)(he - hs));
	up->host[he - hs] = '\0';
	port = strtoul(colon + 1, &end, 10);
	if (end == colon + 1 || *end || port == 0 || port > 65535)
		goto bad_host;
	up->port = (uint16_t)port;
	if (up->user) {
		char *pair = xasprintf("%s:%s", up->user, up->pass);
		char *b = b64_encode((unsigned char *)pair, strlen(pair));

		up->basic = xasprintf("Basic %s", b);
		free(b);
		free(pair);
	}
	*out = up;
	return 0;
bad_host:
	*err = xasprintf("upstream proxy '%s': expected HOST:PORT", url);
fail:
	upstream_free(up);
	return -1;
}

const char *upstream_warning(const struct upstream *up)
{
	if (up->kind == UP_SOCKS5)
		return NULL;
	return up->kind == UP_HTTP ?
		       "the http:// @upstream-proxy resolves names itself: "
		       "a name row reaches whatever address it resolves, "
		       "private, loopback and metadata addresses included "
		       "(socks5:// gets only addresses judged here)" :
		       "the socks5h:// @upstream-proxy resolves names itself: "
		       "a name row reaches whatever address it resolves, "
		       "private, loopback and metadata addresses included "
		       "(socks5:// gets only addresses judged here)";
}

int upstream_parse(const char *url, struct upstream **out, char **err)
{
	const char *warn;

	if (upstream_parse_url(url, out, err) != 0)
		return -1;
	if (resolve(*out, err) != 0) {
		upstream_free(*out);
		*out = NULL;
		return -1;
	}
	warn = upstream_warning(*out);
	if (warn)
		fprintf(stderr, "vbox-proxy: warning: %s\n", warn);
	return 0;
}

/*
 * out_done - the bytes built in @b are hs->out; when they did not fit,
 * nothing is sent and the handshake has failed.
 */
static int out_done(struct up_hs *hs, const struct bbuf *b, int state)
{
	if (!bbuf_ok(b)) {
		hs->nout = 0;
		hs->why = "upstream handshake too long";
		hs->state = HS_FAILED;
		return -1;
	}
	hs->nout = b->len;
	hs->state = state;
	return 0;
}

static void out_init(struct up_hs *hs, struct bbuf *b)
{
	bbuf_init_fixed(b, (char *)hs->out, sizeof(hs->out));
}

static int socks_request(struct up_hs *hs)
{
	struct bbuf b;
	size_t hl;

	out_init(hs, &b);
	bbuf_add(&b, "\x05\x01\x00", 3);	/* CONNECT */
	if (hs->up->kind == UP_SOCKS5 && hs->addr.ss_family == AF_INET) {
		bbuf_putc(&b, 1);
		bbuf_add(&b, &((struct sockaddr_in *)&hs->addr)->sin_addr, 4);
	} else if (hs->up->kind == UP_SOCKS5 &&
		   hs->addr.ss_family == AF_INET6) {
		bbuf_putc(&b, 4);
		bbuf_add(&b, &((struct sockaddr_in6 *)&hs->addr)->sin6_addr,
			 16);
	} else {
		hl = strlen(hs->host);
		if (hl > UP_HOST_MAX)
			BUG("an upstream target name of %zu bytes", hl);
		bbuf_putc(&b, 3);
		bbuf_putc(&b, (char)hl);
		bbuf_add(&b, hs->host, hl);
	}
	bbuf_putc(&b, (char)(hs->port >> 8));
	bbuf_putc(&b, (char)(hs->port & 0xff));
	return out_done(hs, &b, HS_REQ);
}

/* socks_auth - the RFC 1929 request; user and password are <= 255 */
static int socks_auth(struct up_hs *hs)
{
	size_t ul = strlen(hs->up->user), pl = strlen(hs->up->pass);
	struct bbuf b;

	if (ul > 255 || pl > 255)
		BUG("upstream credentials of %zu and %zu bytes", ul, pl);
	out_init(hs, &b);
	bbuf_putc(&b, 1);
	bbuf_putc(&b, (char)ul);
	bbuf_add(&b, hs->up->user, ul);
	bbuf_putc(&b, (char)pl);
	bbuf_add(&b, hs->up->pass, pl);
	return out_done(hs, &b, HS_AUTH);
}

/* connect_request - the HTTP CONNECT request for hs->host */
static int connect_request(struct up_hs *hs)
{
	bool v6 = strchr(hs->host, ':') != NULL;
	struct bbuf b;

	out_init(hs, &b);
	bbuf_printf(&b, "CONNECT %s%s%s:%u HTTP/1.1\r\nHost: %s%s%s:%u\r\n",
		    v6 ? "[" : "", hs->host, v6 ? "]" : "", hs->port,
		    v6 ? "[" : "", hs->host, v6 ? "]" : "", hs->port);
	if (hs->up->basic)
		bbuf_printf(&b, "Proxy-Authorization: %s\r\n",
			    hs->up->basic);
	bbuf_puts(&b, "\r\n");
	return out_done(hs, &b, HS_HTTP);
}

int upstream_start(struct up_hs *hs, const struct upstream *up,
		   const char *host, uint16_t port,
		   const struct sockaddr *addr)
{
	size_t hl = strlen(host);
	struct bbuf b;

	memset(hs, 0, sizeof(*hs));
	hs->up = up;
	hs->port = port;
	if (hl > UP_HOST_MAX || strpbrk(host, "\r\n")) {
		hs->why = hl > UP_HOST_MAX ? "target name too long for the "
					     "upstream proxy" :
					     "line end in a target name";
		hs->state = HS_FAILED;
		return -1;
	}
	memcpy(hs->host, host, hl + 1);
	if (addr && addr->sa_family == AF_INET)
		memcpy(&hs->addr, addr, sizeof(struct sockaddr_in));
	else if (addr && addr->sa_family == AF_INET6)
		memcpy(&hs->addr, addr, sizeof(struct sockaddr_in6));
	if (up->kind == UP_HTTP)
		return connect_request(hs);
	out_init(hs, &b);
	bbuf_add(&b, "\x05\x01", 2);
	bbuf_putc(&b, up->user ? 2 : 0);
	return out_done(hs, &b, HS_GREET);
}

int upstream_feed(struct up_hs *hs, const unsigned char *in, size_t n,
		  size_t *used, const char **why)
{
	size_t need;

	hs->nout = 0;
	*used = 0;
	switch (hs->state) {
	case HS_HTTP: {
		struct http_head h;
		int rc = http_head_parse((const char *)in, n, true, &h, why);

		if (rc < 0)
			return -1;
		if (rc == 0) {
			if (n >= 16384) {
				*why = "upstream reply head too large";
				return -1;
			}
			return 0;
		}
		if (h.status / 100 != 2) {
			*why = "upstream proxy refused the tunnel";
			hs->reply = h.status == 403 ? 2 : 5;
			return -1;
		}
		*used = h.len;
		hs->state = HS_DONE;
		return 1;
	}
	case HS_GREET:
		if (n < 2)
			return 0;
		if (in[0] != 5 || (in[1] != 0 && in[1] != 2) ||
		    (in[1] == 2 && !hs->up->user)) {
			*why = "upstream SOCKS proxy accepts none of our methods";
			return -1;
		}
		*used = 2;
		if ((in[1] == 2 ? socks_auth(hs) : socks_request(hs)) != 0) {
			*why = hs->why;
			return -1;
		}
		return 0;
	case HS_AUTH:
		if (n < 2)
			return 0;
		if (in[0] != 1 || in[1] != 0) {
			*why = "upstream SOCKS proxy refused our credentials";
			return -1;
		}
		*used = 2;
		if (socks_request(hs) != 0) {
			*why = hs->why;
			return -1;
		}
		return 0;
	case HS_REQ:
		if (n < 5)
			return 0;
		if (in[0] != 5 || in[2] != 0) {
			*why = "malformed upstream SOCKS reply";
			return -1;
		}
		if (in[1] != 0) {
			*why = "upstream SOCKS proxy refused the connection";
			hs->reply = in[1] <= 8 ? in[1] : 1;
			return -1;
		}
		switch (in[3]) {
		case 1:
			need = 10;
			break;
		case 4:
			need = 22;
			break;
		case 3:
			need = 7 + (size_t)in[4];
			break;
		default:
			*why = "malformed upstream SOCKS reply";
			return -1;
		}
		if (n < need)
			return 0;
		*used = need;
		hs->state = HS_DONE;
		return 1;
	case HS_FAILED:
		*why = hs->why;
		return -1;
	default:
		*why = "upstream handshake already done";
		return -1;
	}
}
