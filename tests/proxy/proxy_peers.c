/* SPDX-License-Identifier: MIT */
/*
 * proxy_peers.c - real peers for the proxy tests: origin servers (HTTP,
 * echo, speak-first), each connection on its own thread, and a tiny DNS
 * responder with fixed answers for the private network namespace.
 * Everything listens on the addresses the test gives (loopback, or the
 * test's own namespace).
 */
#include <vbox.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proxy_peers.h"

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static char *origin_log;
static size_t origin_log_len;

/*
 * The test pattern repeats every PATTERN_PERIOD bytes (a prime, so it
 * never lines up with buffer sizes); both ends work on slices of a
 * table twice that long, so making and checking it cost a memcpy and a
 * memcmp.
 */
static uint8_t pattern_tbl[2 * PATTERN_PERIOD];
static pthread_once_t pattern_once = PTHREAD_ONCE_INIT;

static void pattern_init(void)
{
	uint32_t x = 2463534242u;
	size_t i;

	for (i = 0; i < PATTERN_PERIOD; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		pattern_tbl[i] = pattern_tbl[i + PATTERN_PERIOD] = (uint8_t)x;
	}
}

const uint8_t *pattern_at(uint64_t off)
{
	pthread_once(&pattern_once, pattern_init);
	return pattern_tbl + off % PATTERN_PERIOD;
}

uint8_t pattern_byte(uint64_t i)
{
	return *pattern_at(i);
}

static void log_add(const char *line)
{
	size_t n = strlen(line);

	pthread_mutex_lock(&log_lock);
	origin_log = xrealloc(origin_log, origin_log_len + n + 1);
	memcpy(origin_log + origin_log_len, line, n + 1);
	origin_log_len += n;
	pthread_mutex_unlock(&log_lock);
}

char *origin_log_take(void)
{
	char *s;

	pthread_mutex_lock(&log_lock);
	s = xstrdup(origin_log ? origin_log : "");
	free(origin_log);
	origin_log = NULL;
	origin_log_len = 0;
	pthread_mutex_unlock(&log_lock);
	return s;
}

int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t k = send(fd, c, n, MSG_NOSIGNAL);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

ssize_t read_head(int fd, char *buf, size_t cap)
{
	size_t n = 0;

	while (n + 1 < cap) {
		ssize_t k = recv(fd, buf + n, 1, 0);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return n ? -1 : 0;
		n++;
		if (n >= 4 && !memcmp(buf + n - 4, "\r\n\r\n", 4)) {
			buf[n] = '\0';
			return (ssize_t)n;
		}
	}
	return -1;
}

static const char *field(const char *head, const char *name, char *out,
			 size_t size)
{
	const char *p = head;
	size_t nl = strlen(name);

	while ((p = strstr(p, "\r\n")) != NULL) {
		p += 2;
		if (!strncasecmp(p, name, nl) && p[nl] == ':') {
			const char *v = p + nl + 1, *e;

			while (*v == ' ')
				v++;
			e = strstr(v, "\r\n");
			snprintf(out, size, "%.*s", (int)(e - v), v);
			return out;
		}
	}
	return NULL;
}

static int send_pattern(int fd, uint64_t n)
{
	uint64_t off = 0;

	while (off < n) {
		size_t k = n - off < PATTERN_PERIOD ? (size_t)(n - off) :
						      PATTERN_PERIOD;

		if (write_all(fd, pattern_at(off), k) != 0)
			return -1;
		off += k;
	}
	return 0;
}

static void serve_http(int fd)
{
	char head[16384], val[256], line[1024], method[16], path[256];
	char *body = NULL;

	for (;;) {
		ssize_t n = read_head(fd, head, sizeof(head));
		size_t cl = 0, got = 0;
		bool close_after = false;
		char *resp;

		if (n <= 0)
			break;
		if (sscanf(head, "%15s %255s", method, path) != 2)
			break;
		snprintf(line, sizeof(line), "REQ %s %s host=%s\n", method,
			 path,
			 field(head, "host", val, sizeof(val)) ? val : "-");
		log_add(line);
		if (field(head, "connection", val, sizeof(val)) &&
		    !strcasecmp(val, "close"))
			close_after = true;
		if (field(head, "content-length", val, sizeof(val)))
			cl = strtoul(val, NULL, 10);
		if (cl > 1 << 20)
			break;
		body = xrealloc(body, cl + 1);
		while (got < cl) {
			ssize_t k = recv(fd, body + got, cl - got, 0);

			if (k <= 0)
				goto out;
			got += (size_t)k;
		}
		if (!strncmp(path, "/size/", 6)) {
			uint64_t sz = strtoull(path + 6, NULL, 10);

			resp = xasprintf("HTTP/1.1 200 OK\r\nContent-Length: "
					 "%llu\r\n\r\n",
					 (unsigned long long)sz);
			if (write_all(fd, resp, strlen(resp)) != 0 ||
			    send_pattern(fd, sz) != 0) {
				free(resp);
				break;
			}
			free(resp);
		} else if (!strcmp(path, "/echo")) {
			resp = xasprintf("HTTP/1.1 200 OK\r\nContent-Length: "
					 "%zu\r\n\r\n",
					 cl);
			if (write_all(fd, resp, strlen(resp)) != 0 ||
			    write_all(fd, body, cl) != 0) {
				free(resp);
				break;
			}
			free(resp);
		} else if (!strcmp(path, "/chunked")) {
			static const char r[] =
				"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked"
				"\r\n\r\n5\r\nhello\r\n1;x=y\r\n \r\n5\r\nworld"
				"\r\n0\r\nX-Trailer: 1\r\n\r\n";

			if (write_all(fd, r, sizeof(r) - 1) != 0)
				break;
		} else if (!strcmp(path, "/close")) {
			static const char r[] =
				"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n"
				"until close\n";

			(void)write_all(fd, r, sizeof(r) - 1);
			break;
		} else if (!strcmp(path, "/smuggle")) {
			static const char r[] =
				"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n"
				"okHTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\n"
				"injected";

			if (write_all(fd, r, sizeof(r) - 1) != 0)
				break;
		} else {
			static const char r[] = "HTTP/1.1 404 Not Found\r\n"
						"Content-Length: 0\r\n\r\n";

			if (write_all(fd, r, sizeof(r) - 1) != 0)
				break;
		}
		if (close_after)
			break;
	}
out:
	free(body);
}

static void serve_echo(int fd, bool banner)
{
	char buf[65536];
	ssize_t n;

	if (banner && write_all(fd, "220 banner\r\n", 12) != 0)
		return;
	while ((n = recv(fd, buf, sizeof(buf), 0)) > 0)
		if (write_all(fd, buf, (size_t)n) != 0)
			return;
	if (n == 0)
		shutdown(fd, SHUT_WR);
}

struct conn_arg {
	int fd;
	enum peer_kind kind;
};

static void *conn_thread(void *p)
{
	struct conn_arg *a = p;
	char junk[512];

	switch (a->kind) {
	case PEER_HTTP:
		serve_http(a->fd);
		break;
	case PEER_ECHO:
		serve_echo(a->fd, false);
		break;
	case PEER_BANNER:
		serve_echo(a->fd, true);
		break;
	default:
		break;
	}
	/* let the peer see a clean end: drain briefly before closing */
	shutdown(a->fd, SHUT_WR);
	while (recv(a->fd, junk, sizeof(junk), 0) > 0)
		;
	close(a->fd);
	free(a);
	return NULL;
}

struct listen_arg {
	int fd;
	enum peer_kind kind;
};

static void *accept_thread(void *p)
{
	struct listen_arg *l = p;

	for (;;) {
		int fd = accept(l->fd, NULL, NULL);
		struct conn_arg *a;
		pthread_t t;
		pthread_attr_t at;

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED ||
			    errno == EMFILE)
				continue;
			break;
		}
		a = xmalloc(sizeof(*a));
		a->fd = fd;
		a->kind = l->kind;
		pthread_attr_init(&at);
		pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
		pthread_attr_setstacksize(&at, 256 * 1024);
		if (pthread_create(&t, &at, conn_thread, a) != 0) {
			close(fd);
			free(a);
		}
		pthread_attr_destroy(&at);
	}
	return NULL;
}

int listen_on(const char *ip, uint16_t port, int type)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, one = 1;

	memset(&ss, 0, sizeof(ss));
	if (strchr(ip, ':')) {
		struct sockaddr_in6 *s6 = (void *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		if (inet_pton(AF_INET6, ip, &s6->sin6_addr) != 1)
			return -1;
		len = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (void *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		if (inet_pton(AF_INET, ip, &s4->sin_addr) != 1)
			return -1;
		len = sizeof(*s4);
	}
	fd = socket(ss.ss_family, type | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) != 0 ||
	    (type == SOCK_STREAM && listen(fd, 1024) != 0)) {
		close(fd);
		return -1;
	}
	return fd;
}

uint16_t local_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0)
		return 0;
	if (ss.ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *)&ss)->sin_port);
	return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
}

uint16_t peer_start(const char *ip, uint16_t port, enum peer_kind kind)
{
	struct listen_arg *l;
	pthread_t t;
	int fd = listen_on(ip, port, SOCK_STREAM);

	if (fd < 0)
		return 0;
	l = xmalloc(sizeof(*l));
	l->fd = fd;
	l->kind = kind;
	if (pthread_create(&t, NULL, accept_thread, l) != 0)
		return 0;
	pthread_detach(t);
	return local_port(fd);
}

/* ---- DNS --------------------------------------------------------- */

static const struct dns_fixed *dns_table;
static unsigned rebind_count;

static size_t put_rr(unsigned char *o, size_t n, int type, const void *addr,
		     size_t alen)
{
	static const unsigned char hdr[] = { 0xc0, 0x0c };

	memcpy(o + n, hdr, 2);
	n += 2;
	o[n++] = 0;
	o[n++] = (unsigned char)type;
	o[n++] = 0;
	o[n++] = 1;	/* IN */
	o[n++] = 0;
	o[n++] = 0;
	o[n++] = 0;
	o[n++] = 0;	/* TTL 0: nothing may be cached */
	o[n++] = 0;
	o[n++] = (unsigned char)alen;
	memcpy(o + n, addr, alen);
	return n + alen;
}

static void *dns_thread(void *p)
{
	int fd = (int)(intptr_t)p;
	unsigned char q[512], o[1024];

	for (;;) {
		struct sockaddr_storage from;
		socklen_t flen = sizeof(from);
		ssize_t n = recvfrom(fd, q, sizeof(q), 0,
				     (struct sockaddr *)&from, &flen);
		char name[256];
		size_t i = 12, k = 0, qend, out;
		unsigned qtype, an = 0;
		const struct dns_fixed *d;

		if (n < 17)
			continue;
		while (i < (size_t)n && q[i] && k < 250) {
			size_t l = q[i++];

			if (i + l > (size_t)n)
				break;
			if (k)
				name[k++] = '.';
			memcpy(name + k, q + i, l);
			k += l;
			i += l;
		}
		name[k] = '\0';
		if (i + 5 > (size_t)n)
			continue;
		qtype = (unsigned)q[i + 1] << 8 | q[i + 2];
		qend = i + 5;
		memcpy(o, q, qend);
		o[2] = 0x81;	/* response, recursion desired */
		o[3] = 0x80;	/* recursion available, NOERROR */
		o[6] = o[7] = o[8] = o[9] = o[10] = o[11] = 0;
		out = qend;
		for (d = dns_table; d && d->name; d++) {
			const char *a = d->addr;
			unsigned char bin[16];

			if (strcasecmp(d->name, name))
				continue;
			if (!strcmp(name, "rebind.x.test") && qtype == 1) {
				/* public first, private on every later ask */
				a = rebind_count++ ? "127.0.0.1" : d->addr;
			}
			if (qtype == 1 && inet_pton(AF_INET, a, bin) == 1) {
				out = put_rr(o, out, 1, bin, 4);
				an++;
			} else if (qtype == 28 &&
				   inet_pton(AF_INET6, a, bin) == 1) {
				out = put_rr(o, out, 28, bin, 16);
				an++;
			}
		}
		if (!an) {
			bool known = false;

			for (d = dns_table; d && d->name; d++)
				known = known || !strcasecmp(d->name, name);
			if (!known)
				o[3] = 0x83;	/* NXDOMAIN */
		}
		o[7] = (unsigned char)an;
		sendto(fd, o, out, 0, (struct sockaddr *)&from, flen);
	}
	return NULL;
}

int dns_start(const char *ip, const struct dns_fixed *table)
{
	pthread_t t;
	int fd = listen_on(ip, 53, SOCK_DGRAM);

	if (fd < 0)
		return -1;
	dns_table = table;
	if (pthread_create(&t, NULL, dns_thread, (void *)(intptr_t)fd) != 0)
		return -1;
	pthread_detach(t);
	return 0;
}
