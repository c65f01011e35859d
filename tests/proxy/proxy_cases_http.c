/* SPDX-License-Identifier: MIT */
/*
 * proxy_cases_http.c - the HTTP side's cases of issue 20 (tests/
 * test_proxy.c runs them after the loopback cases): an allowed origin
 * answering with many short or long header fields, up to the limits of
 * the response head and of its rewrite; over-long CONNECT and
 * absolute-form targets; an upstream chain given a 253-character name and
 * long credentials.  Each time the proxy must answer (the response, or a
 * clean refusal) and go on serving: it is judged from this side, by its
 * process still running and answering the next request.
 */
#include <vbox.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proxy.h"
#include "strbuf.h"
#include "proxy_cases.h"
#include "proxy_client.h"
#include "proxy_peers.h"
#include "tap.h"

/* The most bytes of a response head read here (the proxy reads 64 KiB). */
#define HEAD_CAP 80000

/*
 * fields_head - the head the origin answers @path with: "/fields/N" N
 * "a:b" fields, "/close/N" the same ended by the close, "/long/N/L" N
 * fields of L bytes, "/edge" a head just under the proxy's 64 KiB whose
 * rewrite passes it.  NULL for anything else.
 */
static void put_n(struct strbuf *sb, char c, size_t n)
{
	while (n--)
		strbuf_putc(sb, c);
}

static char *fields_head(const char *path, bool *close_body)
{
	unsigned n = 0, l = 0, i;
	struct strbuf sb = { 0 };

	*close_body = false;
	if (sscanf(path, "/fields/%u", &n) == 1 && n <= 200) {
		strbuf_puts(&sb, "HTTP/1.1 200 OK\r\n");
		for (i = 0; i < n; i++)
			strbuf_puts(&sb, "a:b\r\n");
	} else if (sscanf(path, "/close/%u", &n) == 1 && n <= 200) {
		*close_body = true;
		strbuf_puts(&sb, "HTTP/1.1 200 OK\r\n");
		for (i = 0; i < n; i++)
			strbuf_puts(&sb, "a:b\r\n");
		strbuf_puts(&sb, "\r\n");
		return sb.s;
	} else if (sscanf(path, "/long/%u/%u", &n, &l) == 2 && n <= 200 &&
		   l <= 4096) {
		strbuf_puts(&sb, "HTTP/1.1 200 OK\r\n");
		for (i = 0; i < n; i++) {
			char name[16];

			if (snprintf(name, sizeof(name), "x%03u:", i) >=
			    (int)sizeof(name))
				BUG("field name too long");
			strbuf_puts(&sb, name);
			put_n(&sb, 'v', l);
			strbuf_puts(&sb, "\r\n");
		}
	} else if (!strcmp(path, "/edge")) {
		/* 17 + 99 x 661 + 19 + 2 = 65,477 bytes; rewritten 65,576 */
		strbuf_puts(&sb, "HTTP/1.1 200 OK\r\n");
		for (i = 0; i < 99; i++) {
			strbuf_puts(&sb, "a:");
			put_n(&sb, 'v', 657);
			strbuf_puts(&sb, "\r\n");
		}
	} else {
		return NULL;
	}
	strbuf_puts(&sb, "Content-Length: 2\r\n\r\n");
	return sb.s;
}

static void *fields_origin(void *p)
{
	int lfd = (int)(intptr_t)p;

	for (;;) {
		char req[4096], path[256];
		bool close_body;
		char *resp;
		int fd = accept(lfd, NULL, NULL);

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			break;
		}
		if (read_head(fd, req, sizeof(req)) > 0 &&
		    sscanf(req, "%*s %255s", path) == 1) {
			resp = fields_head(path, &close_body);
			if (!resp)
				resp = xstrdup("HTTP/1.1 404 Not Found\r\n"
					       "Content-Length: 0\r\n\r\n");
			if (write_all(fd, resp, strlen(resp)) == 0)
				(void)write_all(fd, "ok", 2);
			free(resp);
		}
		close(fd);
	}
	return NULL;
}

/* alive - the proxy host is still running (not dead, not a zombie) */
static bool alive(const struct host *h)
{
	int status;

	return waitpid(h->pid, &status, WNOHANG) == 0;
}

/*
 * get - GET http://127.0.0.1:@port@path through @h on a new connection;
 * the status, the head in @head (HEAD_CAP bytes) and, for a 200, whether
 * the body "ok" followed in *@body_ok.
 */
static int get(const struct host *h, uint16_t port, const char *path,
	       char *head, bool *body_ok)
{
	char *cred = pc_basic("vbox", h->th), *req, body[3] = "";
	int fd = pc_tcp(h->http), status = -1;

	*body_ok = false;
	head[0] = '\0';
	req = xasprintf("GET http://127.0.0.1:%u%s HTTP/1.1\r\n"
			"Proxy-Authorization: Basic %s\r\n\r\n",
			port, path, cred);
	if (fd >= 0 && write_all(fd, req, strlen(req)) == 0 &&
	    read_head(fd, head, HEAD_CAP) > 0) {
		status = pc_status_of(head);
		if (status == 200 && recv(fd, body, 2, MSG_WAITALL) == 2)
			*body_ok = !memcmp(body, "ok", 2);
	}
	if (fd >= 0)
		close(fd);
	free(req);
	free(cred);
	return status;
}

/* count - how many times @needle is in @s */
static unsigned count(const char *s, const char *needle)
{
	unsigned n = 0;

	while ((s = strstr(s, needle)) != NULL) {
		n++;
		s += strlen(needle);
	}
	return n;
}

static void test_many_fields(void)
{
	struct host h;
	pthread_t th;
	char rules[256], *head = xmalloc(HEAD_CAP);
	bool body_ok;
	uint16_t port;
	int lfd, st;

	lfd = listen_on("127.0.0.1", 0, SOCK_STREAM);
	port = lfd >= 0 ? local_port(lfd) : 0;
	if (!port || pthread_create(&th, NULL, fields_origin,
				    (void *)(intptr_t)lfd) != 0) {
		ok(0, "start an origin answering with many fields");
		free(head);
		return;
	}
	pthread_detach(th);
	snprintf(rules, sizeof(rules),
		 "@default net deny\n[net]\nallow: localhost:%u\n", port);
	if (pc_host_start(&h, rules, false, NULL) != 0) {
		ok(0, "start a proxy for the many-fields origin");
		free(head);
		return;
	}
	st = get(&h, port, "/fields/99", head, &body_ok);
	ok(st == 200 && count(head, "\na: b\r") == 99 &&
		   strstr(head, "\r\nContent-Length: 2\r\n") && body_ok,
	   "99 'a:b' fields from the origin: all 99 rewritten, the body "
	   "follows");
	ok(alive(&h), "the proxy survives the 99 fields");
	st = get(&h, port, "/close/99", head, &body_ok);
	ok(st == 200 && count(head, "\na: b\r") == 99 &&
		   strstr(head, "\r\nConnection: close\r\n"),
	   "99 fields and a body ended by the close: rewritten with "
	   "'Connection: close'");
	st = get(&h, port, "/fields/100", head, &body_ok);
	is_int(st, 502, "100 fields and a Content-Length: a clean 502");
	st = get(&h, port, "/long/99/600", head, &body_ok);
	ok(st == 200 && count(head, "\r\nx") == 99 &&
		   strstr(head, "\r\nx098: vvvv") && body_ok,
	   "99 fields of 600 bytes (a 60 KB head): passed whole");
	st = get(&h, port, "/edge", head, &body_ok);
	is_int(st, 502, "a 65,477-byte head whose rewrite would pass 64 KiB: "
			"a clean 502");
	st = get(&h, port, "/long/100/700", head, &body_ok);
	is_int(st, 502, "a head over 64 KiB: a clean 502");
	ok(pc_log_has(&h, "the head for the client would pass 65536 bytes"),
	   "the refused rewrite is in the log");
	ok(alive(&h), "the proxy survives them all");
	st = get(&h, port, "/fields/1", head, &body_ok);
	ok(st == 200 && body_ok, "and serves the next request");
	pc_host_stop(&h);
	free(head);
}

/* send_head - @req on a new connection to @h: the status, or -1 */
static int send_head(const struct host *h, const char *req)
{
	char head[4096];
	int fd = pc_tcp(h->http), st = -1;

	if (fd >= 0 && write_all(fd, req, strlen(req)) == 0 &&
	    read_head(fd, head, sizeof(head)) > 0)
		st = pc_status_of(head);
	if (fd >= 0)
		close(fd);
	return st;
}

static void test_long_targets(uint16_t echo)
{
	struct host h;
	char rules[256], *cred, *req, *t;
	int st;

	snprintf(rules, sizeof(rules),
		 "@default net deny\n[net]\nallow: localhost:%u\n", echo);
	if (pc_host_start(&h, rules, false, NULL) != 0) {
		ok(0, "start a proxy for long targets");
		return;
	}
	cred = pc_basic("vbox", h.th);
	t = xmalloc(5001);
	memset(t, 'a', 5000);
	t[5000] = '\0';
	req = xasprintf("CONNECT %s:443 HTTP/1.1\r\n"
			"Proxy-Authorization: Basic %s\r\n\r\n", t, cred);
	st = send_head(&h, req);
	is_int(st, 400, "a CONNECT target of 5,004 bytes: 400");
	free(req);
	req = xasprintf("GET http://%s/x HTTP/1.1\r\n"
			"Proxy-Authorization: Basic %s\r\n\r\n", t, cred);
	st = send_head(&h, req);
	is_int(st, 400, "an absolute-form authority of 5,000 bytes: 400");
	free(req);
	req = xasprintf("GET http://[%.290s]/x HTTP/1.1\r\n"
			"Proxy-Authorization: Basic %s\r\n\r\n", t, cred);
	st = send_head(&h, req);
	ok(st == 400 || st == 403,
	   "a bracketed authority of 292 bytes: refused (%d)", st);
	free(req);
	ok(pc_log_has(&h, "target too long") &&
		   pc_log_has(&h, "authority too long"),
	   "the refusals are in the log");
	ok(alive(&h), "the proxy survives the long targets");
	snprintf(rules, sizeof(rules), "127.0.0.1:%u", echo);
	st = pc_http_connect(&h, rules, h.th, t, 4096);
	ok(st >= 0 && pc_echoes(st, (const unsigned char *)"next", 4),
	   "and tunnels the next CONNECT");
	if (st >= 0)
		close(st);
	free(t);
	free(cred);
	pc_host_stop(&h);
}

static void test_upstream_long(uint16_t echo)
{
	static const char *const kinds[] = { "http", "socks5h" };
	struct host b, a;
	char name[254], user[256], pass[256], *rules, head[4096];
	char target[300];
	size_t k, c;
	int st;

	/* 63 + 1 + 63 + 1 + 63 + 1 + 61 = 253 characters */
	memset(name, 'a', 253);
	name[63] = name[127] = name[191] = '.';
	name[253] = '\0';
	memset(user, 'u', 255);
	user[255] = '\0';
	memset(pass, 'p', 255);
	pass[255] = '\0';
	rules = xasprintf("@default net deny\n[net]\nallow: localhost:%u\n",
			  echo);
	st = pc_host_start(&b, rules, false, NULL);
	free(rules);
	if (st != 0) {
		ok(0, "start the upstream proxy");
		return;
	}
	for (k = 0; k < array_size(kinds); k++) {
		for (c = 0; c < 2; c++) {
			const char *what = c ? "255-byte credentials" :
					       "its credentials";

			rules = xasprintf("@default net deny\n@upstream-proxy "
					  "%s://%s:%s@127.0.0.1:%u\n[net]\n"
					  "allow: %s:443\n",
					  kinds[k], c ? user : "vbox",
					  c ? pass : k ? b.ts : b.th,
					  k ? b.socks : b.http, name);
			st = pc_host_start(&a, rules, false, NULL);
			free(rules);
			if (st != 0) {
				ok(0, "start a proxy chained by %s",
				   kinds[k]);
				continue;
			}
			snprintf(target, sizeof(target), "%s:443", name);
			st = pc_http_connect(&a, target, a.th, head,
					     sizeof(head));
			is_int(st, -502,
			       "%s upstream, %s, a 253-character name: the "
			       "upstream's refusal as a clean 502",
			       kinds[k], what);
			if (st >= 0)
				close(st);
			if (!c)
				ok(pc_log_has(&b, name),
				   "the upstream got the whole name");
			ok(alive(&a), "the chained proxy survives");
			snprintf(target, sizeof(target), "127.0.0.1:%u", echo);
			is_int(pc_http_connect(&a, target, a.th, head,
					       sizeof(head)),
			       -403, "and judges the next request");
			pc_host_stop(&a);
		}
	}
	pc_host_stop(&b);
}

void proxy_run_http_cases(uint16_t echo)
{
	test_many_fields();
	test_long_targets(echo);
	test_upstream_long(echo);
}
