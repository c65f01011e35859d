/* SPDX-License-Identifier: MIT */
/*
 * judge.c - judging proxy targets and the addresses they resolve to
 * (judge.h).  The matcher is the compiler's: a query is parsed with
 * net_query_parse (so numeric spellings normalize exactly as explain's)
 * and matched with net_match, first row in priority order.
 */
#include <vbox.h>

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "bbuf.h"
#include "judge.h"

void judge_init(struct judge *j, bool default_allow)
{
	memset(j, 0, sizeof(*j));
	j->default_allow = default_allow;
}

int judge_add_row(struct judge *j, bool allow, const char *target,
		  uint32_t index, uint8_t level, const char *source,
		  char **err)
{
	struct judge_row *r;

	j->rows = xreallocarray(j->rows, j->nrows + 1, sizeof(*j->rows));
	r = &j->rows[j->nrows];
	memset(r, 0, sizeof(*r));
	if (net_rule_parse(target, &r->target, err) != 0)
		return -1;
	r->allow = allow;
	r->index = index;
	r->level = level;
	r->source = xstrdup(source ? source : "?");
	j->nrows++;
	return 0;
}

void judge_release(struct judge *j)
{
	size_t i;

	for (i = 0; i < j->nrows; i++) {
		net_target_free(&j->rows[i].target);
		free(j->rows[i].source);
	}
	free(j->rows);
	free(j->host4);
	free(j->host6);
	memset(j, 0, sizeof(*j));
}

int judge_read_host_addrs(struct judge *j)
{
	struct ifaddrs *ifa, *p;
	uint8_t *h4 = NULL, *h6 = NULL;
	size_t n4 = 0, n6 = 0;

	if (getifaddrs(&ifa) != 0)
		return -errno;
	for (p = ifa; p; p = p->ifa_next) {
		if (!p->ifa_addr)
			continue;
		if (p->ifa_addr->sa_family == AF_INET) {
			const struct sockaddr_in *s = (void *)p->ifa_addr;

			h4 = xreallocarray(h4, n4 + 1, 4);
			memcpy(h4 + 4 * n4++, &s->sin_addr, 4);
		} else if (p->ifa_addr->sa_family == AF_INET6) {
			const struct sockaddr_in6 *s = (void *)p->ifa_addr;

			h6 = xreallocarray(h6, n6 + 1, 16);
			memcpy(h6 + 16 * n6++, &s->sin6_addr, 16);
		}
	}
	freeifaddrs(ifa);
	free(j->host4);
	free(j->host6);
	j->host4 = h4;
	j->nhost4 = n4;
	j->host6 = h6;
	j->nhost6 = n6;
	return 0;
}

void judge_query(const struct judge *j, const struct net_target *q,
		 struct verdict *v)
{
	size_t i;

	v->forbid = FORBID_NONE;
	for (i = 0; i < j->nrows; i++) {
		if (net_match(&j->rows[i].target, q)) {
			v->allow = j->rows[i].allow;
			v->row = (int)i;
			return;
		}
	}
	v->allow = j->default_allow;
	v->row = -1;
}

static bool in4(const uint8_t *a, uint32_t net, unsigned bits)
{
	uint32_t x = (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 |
		     (uint32_t)a[2] << 8 | a[3];
	uint32_t mask = bits ? ~0u << (32 - bits) : 0;

	return (x & mask) == (net & mask);
}

static enum forbid_class classify4(const uint8_t *a)
{
	if (in4(a, 0xa9fea9fe, 32) || in4(a, 0x646464c8, 32) ||
	    in4(a, 0xa83f8110, 32))
		return FORBID_METADATA;	/* 169.254.169.254, 100.100.100.200,
					 * 168.63.129.16 */
	if (in4(a, 0x00000000, 8))
		return FORBID_UNSPECIFIED;
	if (in4(a, 0x7f000000, 8))
		return FORBID_LOOPBACK;
	if (in4(a, 0x0a000000, 8) || in4(a, 0xac100000, 12) ||
	    in4(a, 0xc0a80000, 16))
		return FORBID_PRIVATE;
	if (in4(a, 0x64400000, 10))
		return FORBID_CGNAT;
	if (in4(a, 0xa9fe0000, 16))
		return FORBID_LINK_LOCAL;
	if (in4(a, 0xc0000000, 24))
		return FORBID_IETF;	/* 192.0.0.0/24 */
	if (in4(a, 0xc6120000, 15))
		return FORBID_BENCHMARK;	/* 198.18.0.0/15 */
	if (in4(a, 0xe0000000, 4))
		return FORBID_MULTICAST;
	if (in4(a, 0xffffffff, 32))
		return FORBID_BROADCAST;
	if (in4(a, 0xf0000000, 4))
		return FORBID_RESERVED;	/* 240.0.0.0/4 */
	return FORBID_NONE;
}

static enum forbid_class classify6(const uint8_t *a)
{
	static const uint8_t md[16] = { 0xfd, 0x00, 0x0e, 0xc2, [15] = 0x54,
					[14] = 0x02 };
	static const uint8_t nat64[12] = { 0x00, 0x64, 0xff, 0x9b };
	static const uint8_t zero[12];
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };
	size_t i;
	bool all0 = true;

	for (i = 0; i < 15; i++)
		all0 = all0 && !a[i];
	if (all0 && a[15] == 0)
		return FORBID_UNSPECIFIED;
	if (all0 && a[15] == 1)
		return FORBID_LOOPBACK;
	if (!memcmp(a, md, 16))
		return FORBID_METADATA;
	if (!memcmp(a, zero, 12) || !memcmp(a, mapped, 12) ||
	    !memcmp(a, nat64, 12) ||
	    (a[0] == 0x00 && a[1] == 0x64 && a[2] == 0xff && a[3] == 0x9b &&
	     a[4] == 0x00 && a[5] == 0x01) ||
	    (a[0] == 0x20 && a[1] == 0x02))
		return FORBID_V4_IN_V6;
	/* 2001::/32, Teredo: an IPv4 server and client, the client's
	 * address inverted */
	if (a[0] == 0x20 && a[1] == 0x01 && a[2] == 0x00 && a[3] == 0x00)
		return FORBID_V4_IN_V6;
	/* 2001:2::/48 */
	if (a[0] == 0x20 && a[1] == 0x01 && a[2] == 0x00 && a[3] == 0x02 &&
	    a[4] == 0x00 && a[5] == 0x00)
		return FORBID_BENCHMARK;
	/* 2001:10::/28 and 2001:20::/28 (ORCHID, ORCHIDv2), 100::/64
	 * (discard-only): never routed */
	if (a[0] == 0x20 && a[1] == 0x01 && a[2] == 0x00 &&
	    ((a[3] & 0xf0) == 0x10 || (a[3] & 0xf0) == 0x20))
		return FORBID_RESERVED;
	if (a[0] == 0x01 && !a[1] && !a[2] && !a[3] && !a[4] && !a[5] &&
	    !a[6] && !a[7])
		return FORBID_RESERVED;
	if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
		return FORBID_LINK_LOCAL;
	if (a[0] == 0xfe && (a[1] & 0xc0) == 0xc0)
		return FORBID_SITE_LOCAL;
	if ((a[0] & 0xfe) == 0xfc)
		return FORBID_UNIQUE_LOCAL;
	if (a[0] == 0xff)
		return FORBID_MULTICAST;
	return FORBID_NONE;
}

enum forbid_class judge_classify(const struct judge *j, const uint8_t *a,
				 size_t len)
{
	enum forbid_class c;
	size_t i;

	c = len == 4 ? classify4(a) : classify6(a);
	if (c != FORBID_NONE)
		return c;
	if (len == 4) {
		for (i = 0; i < j->nhost4; i++)
			if (!memcmp(j->host4 + 4 * i, a, 4))
				return FORBID_HOST;
	} else {
		for (i = 0; i < j->nhost6; i++)
			if (!memcmp(j->host6 + 16 * i, a, 16))
				return FORBID_HOST;
	}
	return FORBID_NONE;
}

void judge_addr(const struct judge *j, const struct sockaddr *sa,
		struct verdict *v)
{
	char text[INET6_ADDRSTRLEN + 16], ip[INET6_ADDRSTRLEN];
	struct bbuf tb;
	const uint8_t *a;
	size_t len;
	uint16_t port;
	struct net_target aq;
	char *err = NULL;
	enum forbid_class c;

	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *s = (const void *)sa;

		a = (const uint8_t *)&s->sin_addr;
		len = 4;
		port = ntohs(s->sin_port);
		if (!inet_ntop(AF_INET, a, ip, sizeof(ip)))
			goto refuse;
		bbuf_init_fixed(&tb, text, sizeof(text));
		bbuf_printf(&tb, "%s:%u", ip, port);
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const void *)sa;

		a = (const uint8_t *)&s->sin6_addr;
		len = 16;
		port = ntohs(s->sin6_port);
		if (!inet_ntop(AF_INET6, a, ip, sizeof(ip)))
			goto refuse;
		bbuf_init_fixed(&tb, text, sizeof(text));
		bbuf_printf(&tb, "[%s]:%u", ip, port);
	} else {
		goto refuse;
	}
	if (!bbuf_ok(&tb))
		goto refuse;
	if (net_query_parse(text, &aq, &err) != 0) {
		/* cannot happen for inet_ntop output; fail closed */
		free(err);
		v->allow = false;
		v->row = -1;
		v->forbid = FORBID_UNSPECIFIED;
		return;
	}
	/* IPv4-mapped addresses were normalized to IPv4 by the parser */
	c = aq.kind == HOST_IPV4 ? judge_classify(j, aq.addr, 4) :
				   judge_classify(j, a, len);
	if (aq.kind == HOST_LOOPBACK)
		c = FORBID_LOOPBACK;
	judge_query(j, &aq, v);
	net_target_free(&aq);
	if (v->row >= 0)
		return;	/* a row naming this address (or its class) decides */
	if (c != FORBID_NONE) {
		v->allow = false;
		v->forbid = c;
		return;
	}
	v->allow = true;	/* the target's own verdict stands */
	return;
refuse:
	/* not an inet address, or not one we can spell: fail closed */
	v->allow = false;
	v->row = -1;
	v->forbid = FORBID_UNSPECIFIED;
}

const char *forbid_name(enum forbid_class c)
{
	switch (c) {
	case FORBID_NONE:
		return "public";
	case FORBID_LOOPBACK:
		return "loopback";
	case FORBID_PRIVATE:
		return "private (RFC 1918)";
	case FORBID_CGNAT:
		return "shared address space (100.64.0.0/10)";
	case FORBID_LINK_LOCAL:
		return "link-local";
	case FORBID_UNIQUE_LOCAL:
		return "unique-local";
	case FORBID_MULTICAST:
		return "multicast";
	case FORBID_BROADCAST:
		return "broadcast";
	case FORBID_UNSPECIFIED:
		return "unspecified";
	case FORBID_METADATA:
		return "cloud metadata";
	case FORBID_HOST:
		return "this machine's own address";
	case FORBID_V4_IN_V6:
		return "IPv4 embedded in IPv6";
	case FORBID_IETF:
		return "IETF protocol assignments (192.0.0.0/24)";
	case FORBID_BENCHMARK:
		return "benchmarking (198.18.0.0/15, 2001:2::/48)";
	case FORBID_SITE_LOCAL:
		return "site-local (fec0::/10)";
	case FORBID_RESERVED:
		return "reserved";
	default:
		BUG("bad forbid class %d", (int)c);
	}
}

void verdict_format(const struct judge *j, const struct verdict *v,
		    const char *addr, struct bbuf *b)
{
	const struct judge_row *r;

	if (v->forbid != FORBID_NONE) {
		bbuf_printf(b, "deny: %s is %s, forbidden class: no row names it",
			    addr ? addr : "the address",
			    forbid_name(v->forbid));
		return;
	}
	if (v->row < 0) {
		bbuf_printf(b, "%s by default (@default net %s)",
			    v->allow ? "allow" : "deny",
			    j->default_allow ? "open" : "deny");
		return;
	}
	r = &j->rows[v->row];
	bbuf_printf(b, "%s by row %u (%s, level %u) at ",
		    v->allow ? "allow" : "deny", r->index,
		    r->allow ? "allow" : "deny", r->level);
	bbuf_put_printable(b, r->source, strlen(r->source));
}

/*
 * put_text - @s for a phrase, header or notice: printable ASCII as it
 * is, every other byte as \xNN (and '"' and '\\' too when @quoted), at
 * most VERDICT_SOURCE_MAX bytes of it, then "..." when it was cut.
 */
static void put_text(struct bbuf *b, const char *s, bool quoted)
{
	static const char hex[] = "0123456789abcdef";
	char buf[VERDICT_SOURCE_MAX + 1];
	struct bbuf t;
	size_t i;

	bbuf_init_fixed(&t, buf, sizeof(buf));
	for (i = 0; s[i] && bbuf_ok(&t); i++) {
		unsigned char c = (unsigned char)s[i];
		char esc[4] = { '\\', 'x', hex[c >> 4], hex[c & 15] };

		if (c >= 0x20 && c < 0x7f && c != '\\' &&
		    !(quoted && c == '"'))
			bbuf_putc(&t, (char)c);
		else
			bbuf_add(&t, esc, sizeof(esc));
	}
	bbuf_puts(b, buf);
	if (!bbuf_ok(&t) || s[i])
		bbuf_puts(b, "...");
}

void verdict_brief(const struct judge *j, const struct verdict *v,
		   const char *addr, struct bbuf *b)
{
	if (v->forbid != FORBID_NONE) {
		bbuf_puts(b, "address ");
		put_text(b, addr ? addr : "?", false);
		bbuf_printf(b, " is %s, no row names it",
			    forbid_name(v->forbid));
		return;
	}
	if (v->row < 0) {
		bbuf_printf(b, "@default net %s",
			    j->default_allow ? "open" : "deny");
		return;
	}
	bbuf_printf(b, "row %u at ", j->rows[v->row].index);
	put_text(b, j->rows[v->row].source, false);
}

void verdict_phrase(const struct judge *j, const struct verdict *v,
		    const char *addr, struct bbuf *b)
{
	const char *what = v->allow ? "allowed" : "denied";

	if (v->forbid != FORBID_NONE) {
		bbuf_printf(b, "vbox: %s: ", what);
		verdict_brief(j, v, addr, b);
		return;
	}
	if (v->row < 0) {
		bbuf_printf(b, "vbox: %s by default (@default net %s)", what,
			    j->default_allow ? "open" : "deny");
		return;
	}
	bbuf_printf(b, "vbox: %s by row %u (", what, j->rows[v->row].index);
	put_text(b, j->rows[v->row].source, false);
	bbuf_putc(b, ')');
}

void verdict_header(const struct judge *j, const struct verdict *v,
		    const char *addr, struct bbuf *b)
{
	const struct judge_row *r;

	bbuf_puts(b, v->allow ? "allow" : "deny");
	if (v->forbid != FORBID_NONE) {
		bbuf_printf(b, "; row=none; class=\"%s\"; address=\"",
			    forbid_name(v->forbid));
		put_text(b, addr ? addr : "?", true);
		bbuf_putc(b, '"');
		return;
	}
	if (v->row < 0) {
		bbuf_printf(b, "; row=default; posture=\"@default net %s\"",
			    j->default_allow ? "open" : "deny");
		return;
	}
	r = &j->rows[v->row];
	bbuf_printf(b, "; row=%u; level=%u; source=\"", r->index, r->level);
	put_text(b, r->source, true);
	bbuf_putc(b, '"');
}
