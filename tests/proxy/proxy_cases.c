/* SPDX-License-Identifier: MIT */
/*
 * proxy_cases.c - the egress proxy's cases on loopback (tests/
 * test_proxy.c runs them): tokens, authentication, SOCKS5 reply codes,
 * CONNECT, refusals, numeric spellings, plain HTTP and keep-alive
 * smuggling, SNI at the tunnel's door, transfers both ways and 1 GiB
 * under a slow reader, 500 tunnels, vanishing clients, limits, the
 * upstream chain and the forbidden classes.  SNI, the transfers, the 500
 * tunnels and the vanishing clients are in proxy_cases_tunnel.c.
 */
#include <vbox.h>

#include <vbox.h>

#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bbuf.h"
#include "compat.h"
#include "loop.h"
#include "plan.h"
#include "planjudge.h"
#include "proxy.h"
#include "proxy_peers.h"
#include "tap.h"
#include "proxy_cases.h"
#include "proxy_client.h"

/* ---- the loopback cases --------------------------------------------- */

static void test_tokens(const struct host *h)
{
	size_t i;
	bool safe = true;

	is_int(strlen(h->th), PROXY_TOKEN_LEN, "the HTTP token has %d characters",
	       PROXY_TOKEN_LEN);
	for (i = 0; h->th[i]; i++)
		safe = safe && (isalnum((unsigned char)h->th[i]) ||
				h->th[i] == '-' || h->th[i] == '_');
	ok(safe, "the token is URL-safe");
	ok(strcmp(h->th, h->ts) != 0, "each endpoint has its own token");
}

static void test_http_auth(const struct host *h, uint16_t echo)
{
	char head[4096], target[64];
	int fd;

	snprintf(target, sizeof(target), "127.0.0.1:%u", echo);
	fd = pc_http_connect(h, target, NULL, head, sizeof(head));
	is_int(fd, -407, "CONNECT without credentials: 407");
	ok(strstr(head, "\r\nProxy-Authenticate: Basic realm=\"vbox\"\r\n") !=
		   NULL,
	   "407 carries Proxy-Authenticate: Basic realm=\"vbox\"");
	is_int(pc_http_connect(h, target, "wrong-token", head, sizeof(head)),
	       -407, "CONNECT with a wrong token: 407");
	is_int(pc_http_connect(h, target, h->ts, head, sizeof(head)), -407,
	       "CONNECT with the SOCKS endpoint's token: 407");
	ok(pc_log_has(h, "wrong proxy credentials"), "the refusal is logged");
}

static void test_socks_codes(const struct host *h, uint16_t echo,
			     uint16_t denied)
{
	static const unsigned char none[] = { 0 }, both[] = { 0, 2 };
	unsigned char lo[4] = { 127, 0, 0, 1 };
	int code, fd;

	fd = pc_socks_open(h, "vbox", h->ts, none, 1, 1, 1, lo, 4, echo, &code);
	is_int(code, 0x1ff, "SOCKS5 without username/password method: 0xFF");
	fd = pc_socks_open(h, "vbox", "nope", both, 2, 1, 1, lo, 4, echo,
			   &code);
	is_int(code, 0x201, "SOCKS5 wrong password: auth status 1");
	fd = pc_socks_open(h, "vbox", h->th, both, 2, 1, 1, lo, 4, echo, &code);
	is_int(code, 0x201, "SOCKS5 with the HTTP endpoint's token: refused");
	fd = pc_socks_open(h, "vbox", h->ts, both, 2, 2, 1, lo, 4, echo, &code);
	is_int(code, 7, "SOCKS5 BIND: reply 0x07");
	fd = pc_socks_open(h, "vbox", h->ts, both, 2, 3, 1, lo, 4, echo, &code);
	is_int(code, 7, "SOCKS5 UDP ASSOCIATE: reply 0x07");
	fd = pc_socks_open(h, "vbox", h->ts, both, 2, 1, 9, lo, 4, echo, &code);
	is_int(code, 8, "SOCKS5 unknown address type: reply 0x08");
	fd = pc_socks_open(h, "vbox", h->ts, both, 2, 1, 1, lo, 4, denied,
			   &code);
	is_int(code, 2, "SOCKS5 denied target: reply 0x02");
	fd = pc_socks_open(h, "vbox", h->ts, both, 2, 1, 1, lo, 4, echo, &code);
	ok(fd >= 0 && code == 0, "SOCKS5 CONNECT to an allowed target");
	if (fd >= 0) {
		ok(pc_echoes(fd, (const unsigned char *)"socks", 5),
		   "bytes flow through the SOCKS5 tunnel");
		close(fd);
	}
	fd = pc_socks_name(h, "localhost", echo, &code);
	ok(fd >= 0, "SOCKS5 CONNECT by name (localhost) to an allowed port");
	if (fd >= 0)
		close(fd);
}

static void test_connect_basic(const struct host *h, uint16_t echo,
			       uint16_t denied)
{
	char head[4096], target[64], buf[64];
	size_t n;
	char *rest;
	int fd;

	snprintf(target, sizeof(target), "127.0.0.1:%u", echo);
	fd = pc_http_connect(h, target, h->th, head, sizeof(head));
	ok(fd >= 0, "CONNECT to an allowed target: 200");
	if (fd < 0)
		return;
	ok(pc_echoes(fd, (const unsigned char *)"hello", 5),
	   "bytes flow through the tunnel");
	/* half-close: our FIN reaches the echo server, whose FIN comes back
	 * after the last echoed byte */
	ok(write_all(fd, "tail", 4) == 0 && shutdown(fd, SHUT_WR) == 0,
	   "half-close the tunnel after more bytes");
	rest = pc_read_rest(fd, &n);
	ok(rest && n == 4 && !memcmp(rest, "tail", 4),
	   "the echo of the last bytes, then EOF: half-close passed on");
	free(rest);
	close(fd);

	snprintf(target, sizeof(target), "127.0.0.1:%u", denied);
	fd = pc_http_connect(h, target, h->th, head, sizeof(head));
	is_int(fd, -403, "CONNECT to a denied target: 403");
	snprintf(buf, sizeof(buf), "deny by row 1 (deny, level 0) at ");
	ok(strstr(head, "\r\n\r\n") != NULL, "403 head");
	ok(pc_log_has(h, buf), "the decision log names the deciding row");
	fd = pc_http_connect(h, "example.invalid:443", h->th, head,
			     sizeof(head));
	is_int(fd, -403, "CONNECT to a name no row allows: 403");
	ok(pc_log_has(h, "net example.invalid:443: deny by default "
		      "(@default net deny)"),
	   "the log names the default");
}

static void test_refusal_body(const struct host *h, uint16_t denied)
{
	char target[64], *req, *cred = pc_basic("vbox", h->th), *rest;
	size_t n;
	int fd = pc_tcp(h->http);

	snprintf(target, sizeof(target), "127.0.0.1:%u", denied);
	req = xasprintf("CONNECT %s HTTP/1.1\r\nProxy-Authorization: Basic "
			"%s\r\nConnection: close\r\n\r\n",
			target, cred);
	ok(fd >= 0 && write_all(fd, req, strlen(req)) == 0,
	   "send a denied CONNECT");
	rest = pc_read_rest(fd, &n);
	ok(rest && !strncmp(rest, "HTTP/1.1 403 vbox: denied by row 1 (", 36),
	   "the 403's reason phrase names the deciding row");
	ok(rest && strstr(rest, "\r\nX-Vbox-Decision: deny; row=1; level=0; "
				"source=\""),
	   "X-Vbox-Decision names row, level and source (CONNECT)");
	ok(rest && strstr(rest, "\r\n\r\nvbox: net 127.0.0.1:") &&
		   strstr(rest, ": deny by row 1 (deny, level 0) at ") &&
		   rest[n - 1] == '\n' && !strchr(strstr(rest, "\r\n\r\n") + 4,
						  '\r'),
	   "the 403 body is one line naming the deciding row");
	free(rest);
	free(req);
	free(cred);
	close(fd);
}

/*
 * explain_line - what vboxc explain says of --net=@q against @rules, run
 * in the rules file's directory and given its name: a plan names its
 * rules file relative to that directory (its source root), explain as
 * it was typed, so the two spell the location alike.
 */
static char *explain_line(const char *rules, const char *q)
{
	char cmd[1024], line[1024];
	const char *vboxc = getenv("VBOXC"), *base = strrchr(rules, '/');
	const char *dir = base && base > rules ? rules : base ? "/" : ".";
	int dirlen = base && base > rules ? (int)(base - rules) : 1;
	FILE *p;

	if (snprintf(cmd, sizeof(cmd), "cd '%.*s' && '%s' explain '%s' "
		     "'--net=%s'", dirlen, dir, vboxc ? vboxc : "vboxc",
		     base ? base + 1 : rules, q) >= (int)sizeof(cmd))
		return xstrdup("(explain command too long)");
	p = popen(cmd, "r");
	if (!p || !fgets(line, sizeof(line), p)) {
		if (p)
			pclose(p);
		return xstrdup("(explain failed)");
	}
	pclose(p);
	line[strcspn(line, "\n")] = '\0';
	return xstrdup(line);
}

static void test_numeric(const struct host *h, uint16_t echo,
			 uint16_t denied)
{
	static const char *const spell[] = {
		"2130706433", "0x7f.1", "127.1", "[::ffff:127.0.0.1]",
		"0177.0.0.1", "127.0.1", "[::1]", "LOCALHOST",
	};
	char head[4096], target[96], *ex, *needle;
	size_t i;
	int fd;

	for (i = 0; i < array_size(spell); i++) {
		snprintf(target, sizeof(target), "%s:%u", spell[i], echo);
		fd = pc_http_connect(h, target, h->th, head, sizeof(head));
		ok(fd >= 0, "CONNECT %s: allowed (the loopback-class row)",
		   target);
		if (fd >= 0) {
			ok(pc_echoes(fd, (const unsigned char *)"n", 1),
			   "and connected");
			close(fd);
		}
		ex = explain_line(h->rules, target);
		needle = xasprintf("CONNECT %s: %s", target, ex);
		ok(pc_log_has(h, needle), "the log line is explain's: %s", ex);
		free(needle);
		free(ex);
		snprintf(target, sizeof(target), "%s:%u", spell[i], denied);
		is_int(pc_http_connect(h, target, h->th, head, sizeof(head)),
		       -403,
		       "CONNECT %s: denied by the deny row", target);
	}
}

static void test_plain_http(const struct host *h, uint16_t origin,
			    uint16_t denied)
{
	char *cred = pc_basic("vbox", h->th), *req, *body, *olog;
	char head[8192];
	long cl;
	int fd = pc_tcp(h->http);

	/* two requests, one connection: each judged by itself */
	req = xasprintf("GET http://127.0.0.1:%u/size/1000 HTTP/1.1\r\n"
			"Host: evil.example\r\nProxy-Authorization: Basic %s"
			"\r\n\r\n",
			origin, cred);
	ok(write_all(fd, req, strlen(req)) == 0 &&
		   read_head(fd, head, sizeof(head)) > 0 &&
		   pc_status_of(head) == 200,
	   "absolute-form GET to an allowed origin: 200");
	free(req);
	cl = pc_content_length(head);
	body = cl == 1000 ? pc_read_n(fd, 1000) : NULL;
	ok(body && (uint8_t)body[999] == pattern_byte(999),
	   "the body arrives whole");
	free(body);
	olog = origin_log_take();
	ok(strstr(olog, "REQ GET /size/1000 host=127.0.0.1:") != NULL,
	   "the origin got origin-form and the URL's host, not the "
	   "client's Host field");
	free(olog);
	req = xasprintf("GET http://127.0.0.1:%u/x HTTP/1.1\r\n"
			"Proxy-Authorization: Basic %s\r\n\r\n",
			denied, cred);
	ok(write_all(fd, req, strlen(req)) == 0 &&
		   read_head(fd, head, sizeof(head)) > 0 &&
		   pc_status_of(head) == 403,
	   "a second request on the kept-alive connection, for a denied "
	   "target: 403");
	free(req);
	cl = pc_content_length(head);
	body = cl > 0 ? pc_read_n(fd, (size_t)cl) : NULL;
	free(body);
	req = xasprintf("GET http://127.0.0.1:%u/chunked HTTP/1.1\r\n"
			"Proxy-Authorization: Basic %s\r\n\r\n",
			origin, cred);
	ok(write_all(fd, req, strlen(req)) == 0 &&
		   read_head(fd, head, sizeof(head)) > 0 &&
		   pc_status_of(head) == 200,
	   "a third request on the same connection, allowed again: 200");
	free(req);
	body = pc_read_n(fd, 49);
	ok(body && !memcmp(body, "5\r\nhello\r\n1;x=y\r\n \r\n5\r\nworld\r\n0"
				 "\r\nX-Trailer: 1\r\n\r\n", 49),
	   "a chunked response with extensions and trailers passes whole");
	free(body);
	/* a request with a body, echoed */
	req = xasprintf("POST http://127.0.0.1:%u/echo HTTP/1.1\r\n"
			"Proxy-Authorization: Basic %s\r\n"
			"Content-Length: 11\r\n\r\nhello world",
			origin, cred);
	ok(write_all(fd, req, strlen(req)) == 0 &&
		   read_head(fd, head, sizeof(head)) > 0 &&
		   pc_status_of(head) == 200 && pc_content_length(head) == 11,
	   "POST with a body on the same connection: 200");
	body = pc_read_n(fd, 11);
	ok(body && !strcmp(body, "hello world"), "the body went and came back");
	free(body);
	free(req);
	/* without credentials, on the same connection */
	req = xasprintf("GET http://127.0.0.1:%u/size/1 HTTP/1.1\r\n\r\n",
			origin);
	ok(write_all(fd, req, strlen(req)) == 0 &&
		   read_head(fd, head, sizeof(head)) > 0 &&
		   pc_status_of(head) == 407,
	   "a request without credentials on a kept-alive connection: 407");
	free(req);
	close(fd);
	free(cred);
}

/* refused_400 - send @req on a new connection: the proxy answers 400 */
static void refused_400(const struct host *h, const char *req,
			const char *what)
{
	char head[4096];
	int fd = pc_tcp(h->http);

	ok(fd >= 0 && write_all(fd, req, strlen(req)) == 0 &&
		   read_head(fd, head, sizeof(head)) > 0 &&
		   pc_status_of(head) == 400,
	   "%s", what);
	if (fd >= 0)
		close(fd);
}

static void test_smuggling(const struct host *h, uint16_t origin,
			   uint16_t denied)
{
	char *cred = pc_basic("vbox", h->th), *req, *body, *olog, *rest;
	char head[8192];
	size_t n;
	int fd;

	/* pipelined: the second request, for a denied target, arrives in
	 * the same segment as the first */
	fd = pc_tcp(h->http);
	req = xasprintf("GET http://127.0.0.1:%u/size/5 HTTP/1.1\r\n"
			"Proxy-Authorization: Basic %s\r\n\r\n"
			"GET http://127.0.0.1:%u/size/6 HTTP/1.1\r\n"
			"Proxy-Authorization: Basic %s\r\n\r\n",
			origin, cred, denied, cred);
	ok(write_all(fd, req, strlen(req)) == 0 &&
		   read_head(fd, head, sizeof(head)) > 0 &&
		   pc_status_of(head) == 200,
	   "pipelined: the first request is answered");
	body = pc_read_n(fd, 5);
	free(body);
	ok(read_head(fd, head, sizeof(head)) > 0 && pc_status_of(head) == 403,
	   "pipelined: the second, for a denied target, is judged: 403");
	olog = origin_log_take();
	ok(strstr(olog, "/size/6") == NULL,
	   "the smuggled request never reached the origin");
	free(olog);
	free(req);
	close(fd);

	/* a request hidden in a body: it stays body */
	fd = pc_tcp(h->http);
	req = xasprintf("POST http://127.0.0.1:%u/echo HTTP/1.1\r\n"
			"Proxy-Authorization: Basic %s\r\nContent-Length: 33"
			"\r\n\r\nGET /size/7 HTTP/1.1\r\nHost: x\r\n\r\n",
			origin, cred);
	ok(write_all(fd, req, strlen(req)) == 0 &&
		   read_head(fd, head, sizeof(head)) > 0 &&
		   pc_status_of(head) == 200 && pc_content_length(head) == 33,
	   "a request inside a Content-Length body is echoed as body");
	body = pc_read_n(fd, 33);
	free(body);
	olog = origin_log_take();
	ok(strstr(olog, "/size/7") == NULL, "and never seen as a request");
	free(olog);
	free(req);
	close(fd);

	/* ambiguous framing is refused outright */
	req = xasprintf("POST http://127.0.0.1:%u/echo HTTP/1.1\r\n"
			"Proxy-Authorization: Basic %s\r\nContent-Length: 4\r\n"
			"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
			origin, cred);
	refused_400(h, req, "Content-Length with Transfer-Encoding: 400");
	free(req);
	req = xasprintf("POST http://127.0.0.1:%u/echo HTTP/1.1\r\n"
			"Proxy-Authorization: Basic %s\r\n"
			"Transfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n",
			origin, cred);
	refused_400(h, req, "a coding other than chunked: 400");
	free(req);
	req = xasprintf("GET http://127.0.0.1:%u/x HTTP/1.1\r\n"
			"Proxy-Authorization: Basic %s\r\n"
			"X-A: 1\r\n folded\r\n\r\n",
			origin, cred);
	refused_400(h, req, "an obsolete line fold: 400");
	free(req);
	req = xasprintf("GET http://127.0.0.1:%u/x HTTP/1.1\n"
			"Proxy-Authorization: Basic %s\n\n",
			origin, cred);
	refused_400(h, req, "bare LF line ends: 400");
	free(req);
	/* chunked request body with a request smuggled after the last
	 * chunk: the body ends at the zero chunk, and what follows is a
	 * request judged by itself */
	fd = pc_tcp(h->http);
	req = xasprintf("POST http://127.0.0.1:%u/echo HTTP/1.1\r\n"
			"Proxy-Authorization: Basic %s\r\n"
			"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
			"GET http://127.0.0.1:%u/size/8 HTTP/1.1\r\n\r\n",
			origin, cred, origin);
	ok(write_all(fd, req, strlen(req)) == 0 &&
		   read_head(fd, head, sizeof(head)) > 0,
	   "a chunked request is answered");
	if (pc_content_length(head) > 0)
		free(pc_read_n(fd, (size_t)pc_content_length(head)));
	ok(read_head(fd, head, sizeof(head)) > 0 && pc_status_of(head) == 407,
	   "the request after the last chunk is judged by itself (407: no "
	   "credentials)");
	free(req);
	close(fd);
	/* a response that carries a second response: cut at its length */
	fd = pc_tcp(h->http);
	req = xasprintf("GET http://127.0.0.1:%u/smuggle HTTP/1.1\r\n"
			"Proxy-Authorization: Basic %s\r\n\r\n"
			"GET http://127.0.0.1:%u/z HTTP/1.1\r\n"
			"Proxy-Authorization: Basic %s\r\n\r\n",
			origin, cred, denied, cred);
	ok(write_all(fd, req, strlen(req)) == 0 &&
		   read_head(fd, head, sizeof(head)) > 0 &&
		   pc_status_of(head) == 200,
	   "an origin sends two responses to one request");
	rest = pc_read_rest(fd, &n);
	ok(rest && !strncmp(rest, "ok", 2) && !strstr(rest, "injected"),
	   "the extra response never reaches the client");
	free(rest);
	free(req);
	close(fd);
	free(origin_log_take());
	free(cred);
}

static void test_limits(uint16_t echo)
{
	struct host h;
	char rules[256], head[4096], big[20000];
	int fd;

	snprintf(rules, sizeof(rules),
		 "@default net deny\n[net]\nallow: localhost:%u\n", echo);
	if (pc_host_start(&h, rules, true, NULL) != 0) {
		ok(0, "start a proxy with short limits");
		return;
	}
	fd = pc_tcp(h.http);
	ok(fd >= 0 && pc_closed(fd), "a client that sends nothing is closed "
				   "(handshake deadline)");
	close(fd);
	fd = pc_tcp(h.http);
	memset(big, 'a', sizeof(big));
	memcpy(big, "GET http://127.0.0.1/ HTTP/1.1\r\nX: ", 35);
	ok(fd >= 0 && write_all(fd, big, sizeof(big)) == 0 &&
		   read_head(fd, head, sizeof(head)) > 0 &&
		   pc_status_of(head) == 431,
	   "a head over 16 KiB: 431");
	close(fd);
	snprintf(head, sizeof(head), "127.0.0.1:%u", echo);
	fd = pc_http_connect(&h, head, h.th, head, sizeof(head));
	ok(fd >= 0 && pc_closed(fd), "an idle tunnel ends at the idle limit");
	if (fd >= 0)
		close(fd);
	pc_host_stop(&h);
}

static void test_upstream(uint16_t echo, uint16_t origin)
{
	static const char *const kinds[] = { "http", "socks5h", "socks5" };
	struct host b, a;
	char rules[1024], head[4096], target[64], *req, *cred;
	size_t k;
	int fd;

	snprintf(rules, sizeof(rules),
		 "@default net deny\n[net]\nallow: localhost:%u\n"
		 "allow: localhost:%u\n",
		 echo, origin);
	if (pc_host_start(&b, rules, false, NULL) != 0) {
		ok(0, "start the upstream proxy");
		return;
	}
	for (k = 0; k < array_size(kinds); k++) {
		snprintf(rules, sizeof(rules),
			 "@default net deny\n@upstream-proxy %s://vbox:%s@"
			 "127.0.0.1:%u\n[net]\nallow: localhost:%u\n"
			 "allow: 127.0.0.1:%u\n",
			 kinds[k], k ? b.ts : b.th, k ? b.socks : b.http, echo,
			 origin);
		if (pc_host_start(&a, rules, false,
				  "http://127.0.0.1:9") != 0) {
			ok(0, "start a proxy chained by %s", kinds[k]);
			continue;
		}
		snprintf(target, sizeof(target), "localhost:%u", echo);
		fd = pc_http_connect(&a, target, a.th, head, sizeof(head));
		ok(fd >= 0 && pc_echoes(fd, (const unsigned char *)"chain", 5),
		   "CONNECT through an %s upstream", kinds[k]);
		if (fd >= 0)
			close(fd);
		ok(pc_log_has(&b, k == 2 ? "CONNECT 127.0.0.1:" :
					"CONNECT localhost:"),
		   "the upstream saw the %s", k == 2 ? "judged address" :
						       "name");
		cred = pc_basic("vbox", a.th);
		fd = pc_tcp(a.http);
		req = xasprintf("GET http://127.0.0.1:%u/size/10 HTTP/1.1\r\n"
				"Proxy-Authorization: Basic %s\r\n\r\n",
				origin, cred);
		ok(fd >= 0 && write_all(fd, req, strlen(req)) == 0 &&
			   read_head(fd, head, sizeof(head)) > 0 &&
			   pc_status_of(head) == 200,
		   "plain HTTP through an %s upstream", kinds[k]);
		close(fd);
		free(req);
		free(cred);
		snprintf(target, sizeof(target), "127.0.0.1:%u",
			 (unsigned)(echo == 65535 ? 1 : echo + 1));
		is_int(pc_http_connect(&a, target, a.th, head, sizeof(head)),
		       -403, "the chained proxy still judges first");
		pc_host_stop(&a);
	}
	free(origin_log_take());
	pc_host_stop(&b);
}

static void test_classes(void)
{
	static const struct {
		const char *ip;
		enum forbid_class c;
	} t[] = {
		{ "127.0.0.1", FORBID_LOOPBACK },
		{ "10.1.2.3", FORBID_PRIVATE },
		{ "172.16.0.1", FORBID_PRIVATE },
		{ "172.32.0.1", FORBID_NONE },
		{ "192.168.1.1", FORBID_PRIVATE },
		{ "100.64.0.1", FORBID_CGNAT },
		{ "100.128.0.1", FORBID_NONE },
		{ "169.254.1.1", FORBID_LINK_LOCAL },
		{ "169.254.169.254", FORBID_METADATA },
		{ "100.100.100.200", FORBID_METADATA },
		{ "168.63.129.16", FORBID_METADATA },
		{ "224.0.0.1", FORBID_MULTICAST },
		{ "255.255.255.255", FORBID_BROADCAST },
		{ "0.0.0.0", FORBID_UNSPECIFIED },
		{ "8.8.8.8", FORBID_NONE },
		{ "::", FORBID_UNSPECIFIED },
		{ "::1", FORBID_LOOPBACK },
		{ "fe80::1", FORBID_LINK_LOCAL },
		{ "fc00::1", FORBID_UNIQUE_LOCAL },
		{ "fd00:ec2::254", FORBID_METADATA },
		{ "ff02::1", FORBID_MULTICAST },
		{ "::ffff:8.8.8.8", FORBID_V4_IN_V6 },
		{ "::8.8.8.8", FORBID_V4_IN_V6 },
		{ "64:ff9b::808:808", FORBID_V4_IN_V6 },
		{ "2002:808:808::1", FORBID_V4_IN_V6 },
		{ "2001:db8::1", FORBID_NONE },
	};
	struct judge j;
	uint8_t a[16];
	size_t i;
	bool host_found = false;

	judge_init(&j, false);
	for (i = 0; i < array_size(t); i++) {
		bool v6 = strchr(t[i].ip, ':') != NULL;

		inet_pton(v6 ? AF_INET6 : AF_INET, t[i].ip, a);
		is_int(judge_classify(&j, a, v6 ? 16 : 4), t[i].c,
		       "%s is %s", t[i].ip, forbid_name(t[i].c));
	}
	ok(judge_read_host_addrs(&j) == 0 && j.nhost4 > 0,
	   "read this machine's addresses");
	for (i = 0; i < j.nhost4; i++)
		if (judge_classify(&j, j.host4 + 4 * i, 4) == FORBID_NONE)
			host_found = true;
	for (i = 0; i < j.nhost6; i++)
		if (judge_classify(&j, j.host6 + 16 * i, 16) == FORBID_NONE)
			host_found = true;
	ok(!host_found, "none of this machine's own addresses is public to "
			"a name row");
	judge_release(&j);
}

/* printable - @s holds printable ASCII only */
static bool printable(const char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e)
			return false;
	return true;
}

/*
 * test_decision_text - the reason phrase, X-Vbox-Decision and notice
 * words of each kind of decision, from sources a user chose: printable,
 * quoted values without '"' or '\\', a long source cut and marked.
 */
static void test_decision_text(void)
{
	char *err = NULL, *longsrc;
	struct judge j;
	struct verdict v;
	struct bbuf b;

	longsrc = xmalloc(3 * VERDICT_SOURCE_MAX);
	memset(longsrc, 'a', 3 * VERDICT_SOURCE_MAX - 1);
	longsrc[3 * VERDICT_SOURCE_MAX - 1] = '\0';
	judge_init(&j, false);
	ok(judge_add_row(&j, false, "x.test:443", 3, 1,
			 "we\"ird\\dir/r\n\x1b[1m\xc3\xa9:7:1", &err) == 0 &&
	   judge_add_row(&j, false, "y.test:443", 4, 0, longsrc, &err) == 0,
	   "a judge with odd sources");
	v.allow = false;
	v.row = 0;
	v.forbid = FORBID_NONE;
	bbuf_init_heap(&b, 4096);
	verdict_phrase(&j, &v, NULL, &b);
	is_str(b.s, "vbox: denied by row 3 (we\"ird\\x5cdir/r\\x0a\\x1b[1m"
		    "\\xc3\\xa9:7:1)", "phrase: the source printable");
	bbuf_free(&b);
	bbuf_init_heap(&b, 4096);
	verdict_header(&j, &v, NULL, &b);
	is_str(b.s, "deny; row=3; level=1; source=\"we\\x22ird\\x5cdir/r"
		    "\\x0a\\x1b[1m\\xc3\\xa9:7:1\"",
	       "header: no quote or backslash inside the quoted source");
	bbuf_free(&b);
	bbuf_init_heap(&b, 4096);
	verdict_brief(&j, &v, NULL, &b);
	ok(printable(b.s) && !strncmp(b.s, "row 3 at we\"ird", 15),
	   "notice words: printable, naming the row");
	bbuf_free(&b);
	v.row = 1;
	bbuf_init_heap(&b, 4096);
	verdict_phrase(&j, &v, NULL, &b);
	ok(b.len == strlen("vbox: denied by row 4 (...)") +
			    VERDICT_SOURCE_MAX && strstr(b.s, "a...)"),
	   "a long source is cut and marked: %zu bytes", b.len);
	bbuf_free(&b);
	v.row = -1;
	bbuf_init_heap(&b, 4096);
	verdict_phrase(&j, &v, NULL, &b);
	is_str(b.s, "vbox: denied by default (@default net deny)",
	       "phrase: the default");
	bbuf_free(&b);
	bbuf_init_heap(&b, 4096);
	verdict_header(&j, &v, NULL, &b);
	is_str(b.s, "deny; row=default; posture=\"@default net deny\"",
	       "header: the default");
	bbuf_free(&b);
	v.forbid = FORBID_PRIVATE;
	bbuf_init_heap(&b, 4096);
	verdict_phrase(&j, &v, "10.1.2.3", &b);
	is_str(b.s, "vbox: denied: address 10.1.2.3 is private (RFC 1918), "
		    "no row names it", "phrase: a forbidden class");
	bbuf_free(&b);
	bbuf_init_heap(&b, 4096);
	verdict_header(&j, &v, "10.1.2.3", &b);
	is_str(b.s, "deny; row=none; class=\"private (RFC 1918)\"; "
		    "address=\"10.1.2.3\"", "header: a forbidden class");
	bbuf_free(&b);
	judge_release(&j);
	free(longsrc);
}

void proxy_run_loopback_tests(void)
{
	struct host h;
	char rules[512];
	uint16_t echo, origin, banner, denied;
	int fd, base;

	test_classes();
	test_decision_text();
	echo = peer_start("127.0.0.1", 0, PEER_ECHO);
	origin = peer_start("127.0.0.1", 0, PEER_HTTP);
	banner = peer_start("127.0.0.1", 0, PEER_BANNER);
	peer_start("::1", echo, PEER_ECHO);
	/* a port nothing is allowed to reach */
	fd = listen_on("127.0.0.1", 0, SOCK_STREAM);
	denied = local_port(fd);
	ok(echo && origin && banner && denied, "origins on loopback");
	snprintf(rules, sizeof(rules),
		 "@default net deny\n[net]\nallow: localhost:%u\n"
		 "deny: 127.0.0.1:%u\nallow: localhost:%u\n"
		 "allow: localhost:%u\n",
		 echo, denied, origin, banner);
	if (pc_host_start(&h, rules, false, NULL) != 0) {
		ok(0, "start the proxy");
		return;
	}
	base = pc_count_fds(h.pid);
	test_tokens(&h);
	test_http_auth(&h, echo);
	test_socks_codes(&h, echo, denied);
	test_connect_basic(&h, echo, denied);
	test_refusal_body(&h, denied);
	test_numeric(&h, echo, denied);
	test_plain_http(&h, origin, denied);
	test_smuggling(&h, origin, denied);
	test_sni(&h, echo, banner);
	test_both_ways(&h, echo,
		       getenv("VBOX_PROXY_SMALL") ? 16ull << 20 :
						   256ull << 20);
	test_many(&h, echo);
	test_vanish(&h, origin, base);
	if (getenv("VBOX_PROXY_SMALL"))
		diag("VBOX_PROXY_SMALL set: the 1 GiB transfers are skipped");
	else
		test_big(&h, origin);
	pc_host_stop(&h);
	test_limits(echo);
	test_upstream(echo, origin);
	proxy_run_http_cases(echo);
	close(fd);
}
