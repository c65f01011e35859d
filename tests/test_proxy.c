/* SPDX-License-Identifier: MIT */
/*
 * test_proxy.c - the egress proxy core against real sockets.
 *
 * The proxy runs in a child process (this program with --host), on
 * runtime/loop.c, judging with a plan that vboxc compiles from a rules
 * file; origins are threads of this process on loopback; clients are
 * plain blocking sockets here.  With --dns the program expects to run in
 * the private network namespace tests/proxy_dns.sh makes (its own
 * resolv.conf, DNS responder and a "public" origin in a second
 * namespace) and tests names, rebinding and the forbidden classes.
 * Built twice: tests/test_proxy (epoll, splice) and tests/test_proxy_poll
 * (darwin's choices: the poll loop, the buffer relay, compat.h).
 */
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

#include "compat.h"
#include "loop.h"
#include "plan.h"
#include "planjudge.h"
#include "proxy.h"
#include "proxy_peers.h"
#include "tap.h"

static char tmpdir[256];
static int nfile;

/* ---- host mode: the proxy in its own process ------------------------ */

static FILE *host_log;

static void log_line(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(host_log, "%s\n", line);
	fflush(host_log);
}

static int listen_lo(uint16_t *port)
{
	int fd = listen_on("127.0.0.1", 0, SOCK_STREAM);

	if (fd >= 0)
		*port = local_port(fd);
	return fd;
}

static void on_term(struct loop *lp, struct loop_watch *w, uint32_t events)
{
	(void)w;
	(void)events;
	loop_stop(lp);
}

static int host_main(const char *plan_path, const char *log_path,
		     bool short_limits)
{
	struct loop_watch term;
	sigset_t set;
	int sfd;
	struct plan plan;
	struct judge j;
	struct loop lp;
	struct proxy px;
	struct rlimit rl;
	uint16_t ph = 0, ps = 0;
	char *err = NULL;
	int fh, fs;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	host_log = fopen(log_path, "a");
	if (!host_log || plan_load(plan_path, &plan, &err) != 0 ||
	    judge_from_plan(&j, &plan, &err) != 0 || loop_init(&lp) != 0 ||
	    proxy_init(&px, &lp, &j, plan.upstream_proxy, &err) != 0) {
		fprintf(stderr, "host: %s\n", err ? err : strerror(errno));
		return 2;
	}
	px.log = log_line;
	if (short_limits) {
		px.limits.handshake_ms = 500;
		px.limits.idle_ms = 1500;
	}
	fh = listen_lo(&ph);
	fs = listen_lo(&ps);
	if (fh < 0 || fs < 0 || proxy_listen(&px, fh, PROXY_HTTP) != 0 ||
	    proxy_listen(&px, fs, PROXY_SOCKS5) != 0) {
		fprintf(stderr, "host: listen: %s\n", strerror(errno));
		return 2;
	}
	/* SIGTERM ends the loop, so everything is released (and checked
	 * for leaks under the sanitizers) */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	loop_watch_init(&term, sfd, on_term, NULL);
	if (sfd < 0 || loop_watch_add(&lp, &term, EPOLLIN) != 0)
		return 2;
	printf("%u %u %s %s\n", ph, ps, px.token[PROXY_HTTP],
	       px.token[PROXY_SOCKS5]);
	fflush(stdout);
	loop_run(&lp);
	loop_watch_remove(&lp, &term);
	close(sfd);
	proxy_release(&px);
	judge_release(&j);
	plan_release(&plan);
	loop_release(&lp);
	return 0;
}

/* ---- test-side helpers ---------------------------------------------- */

/**
 * struct host - a running proxy
 * @pid: its process
 * @http, @socks: its ports on 127.0.0.1
 * @th, @ts: their tokens
 * @log: its decision log file
 * @rules: the rules file
 */
struct host {
	pid_t pid;
	uint16_t http, socks;
	char th[64], ts[64];
	char log[300];
	char rules[300];
};

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *s = NULL;
	size_t n = 0, cap = 0;
	int c;

	if (!f)
		return xstrdup("");
	while ((c = fgetc(f)) != EOF) {
		if (n + 2 > cap) {
			cap = cap ? cap * 2 : 4096;
			s = xrealloc(s, cap);
		}
		s[n++] = (char)c;
	}
	fclose(f);
	if (!s)
		return xstrdup("");
	s[n] = '\0';
	return s;
}

static bool log_has(const struct host *h, const char *needle)
{
	char *s;
	bool r;
	int i;

	/* the log is written by another process: give it a moment */
	for (i = 0; i < 50; i++) {
		s = slurp(h->log);
		r = strstr(s, needle) != NULL;
		free(s);
		if (r)
			return true;
		usleep(20000);
	}
	return false;
}

static int host_start(struct host *h, const char *rules, bool short_limits,
		      const char *env_proxy)
{
	char plan[300], cmd[1200], line[512];
	const char *vboxc = getenv("VBOXC");
	int p[2];
	FILE *f;
	ssize_t n;

	memset(h, 0, sizeof(*h));
	nfile++;
	snprintf(h->rules, sizeof(h->rules), "%s/rules%d", tmpdir, nfile);
	snprintf(plan, sizeof(plan), "%s/plan%d", tmpdir, nfile);
	snprintf(h->log, sizeof(h->log), "%s/log%d", tmpdir, nfile);
	f = fopen(h->rules, "w");
	if (!f)
		return -1;
	fputs(rules, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "'%s' compile --target=linux --emit=plan -o '%s' '%s'",
		 vboxc ? vboxc : "vboxc", plan, h->rules);
	if (system(cmd) != 0) {
		diag("cannot compile %s", h->rules);
		return -1;
	}
	if (pipe(p) != 0)
		return -1;
	h->pid = fork();
	if (h->pid < 0)
		return -1;
	if (h->pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		/* ambient proxy variables must never be followed */
		if (env_proxy) {
			setenv("HTTP_PROXY", env_proxy, 1);
			setenv("http_proxy", env_proxy, 1);
			setenv("ALL_PROXY", env_proxy, 1);
			setenv("all_proxy", env_proxy, 1);
		}
		execl("/proc/self/exe", "test_proxy", "--host", plan, h->log,
		      short_limits ? "short" : "long", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	n = read(p[0], line, sizeof(line) - 1);
	close(p[0]);
	if (n <= 0)
		return -1;
	line[n] = '\0';
	if (sscanf(line, "%hu %hu %63s %63s", &h->http, &h->socks, h->th,
		   h->ts) != 4)
		return -1;
	return 0;
}

static void host_stop(struct host *h)
{
	int status = 0;

	if (h->pid > 0) {
		kill(h->pid, SIGTERM);
		waitpid(h->pid, &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			ok(0, "the proxy host ended cleanly (status %#x)",
			   status);
	}
	h->pid = 0;
}

static int count_fds(pid_t pid)
{
	char path[64];
	DIR *d;
	struct dirent *e;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static int tcp_to(const char *ip, uint16_t port)
{
	struct sockaddr_storage ss;
	socklen_t len;
	struct timeval tv = { .tv_sec = 20 };
	int fd;

	memset(&ss, 0, sizeof(ss));
	if (strchr(ip, ':')) {
		struct sockaddr_in6 *s6 = (void *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		inet_pton(AF_INET6, ip, &s6->sin6_addr);
		len = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (void *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		inet_pton(AF_INET, ip, &s4->sin_addr);
		len = sizeof(*s4);
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&ss, len) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int tcp(uint16_t port)
{
	return tcp_to("127.0.0.1", port);
}

static char *basic(const char *user, const char *pass)
{
	static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopq"
				"rstuvwxyz0123456789+/";
	char *pair = xasprintf("%s:%s", user, pass);
	size_t n = strlen(pair), i, o = 0;
	char *out = xmalloc(n * 2 + 8);

	for (i = 0; i < n; i += 3) {
		unsigned v = (unsigned char)pair[i] << 16;

		if (i + 1 < n)
			v |= (unsigned char)pair[i + 1] << 8;
		if (i + 2 < n)
			v |= (unsigned char)pair[i + 2];
		out[o++] = t[v >> 18 & 63];
		out[o++] = t[v >> 12 & 63];
		out[o++] = i + 1 < n ? t[v >> 6 & 63] : '=';
		out[o++] = i + 2 < n ? t[v & 63] : '=';
	}
	out[o] = '\0';
	free(pair);
	return out;
}

/* status - the status code of the response head in @head, or -1 */
static int status_of(const char *head)
{
	int st;

	if (sscanf(head, "HTTP/1.%*d %d", &st) != 1)
		return -1;
	return st;
}

/*
 * http_connect - CONNECT @target through @h with @token (NULL: none).
 * Returns the connected fd (200), or -status with the response in @head.
 */
static int http_connect(const struct host *h, const char *target,
			const char *token, char *head, size_t hsize)
{
	char *cred, *req;
	int fd = tcp(h->http), st;

	if (fd < 0)
		return -1000;
	cred = token ? basic("vbox", token) : NULL;
	req = xasprintf("CONNECT %s HTTP/1.1\r\nHost: %s\r\n%s%s%s\r\n",
			target, target, cred ? "Proxy-Authorization: Basic " : "",
			cred ? cred : "", cred ? "\r\n" : "");
	free(cred);
	if (write_all(fd, req, strlen(req)) != 0 ||
	    read_head(fd, head, hsize) <= 0) {
		free(req);
		close(fd);
		return -999;
	}
	free(req);
	st = status_of(head);
	if (st == 200)
		return fd;
	close(fd);
	return -st;
}

/* read_body - read @n bytes (Content-Length) into a new buffer */
static char *read_n(int fd, size_t n)
{
	char *b = xmalloc(n + 1);
	size_t got = 0;

	while (got < n) {
		ssize_t k = recv(fd, b + got, n - got, 0);

		if (k <= 0) {
			free(b);
			return NULL;
		}
		got += (size_t)k;
	}
	b[n] = '\0';
	return b;
}

static long content_length(const char *head)
{
	const char *p = strcasestr(head, "\r\ncontent-length:");

	return p ? strtol(p + 17, NULL, 10) : -1;
}

/* read_rest - everything until EOF (bounded), or NULL on a reset */
static char *read_rest(int fd, size_t *len)
{
	char *b = xmalloc(65536);
	size_t n = 0;

	for (;;) {
		ssize_t k = recv(fd, b + n, 65535 - n, 0);

		if (k == 0)
			break;
		if (k < 0) {
			free(b);
			return NULL;
		}
		n += (size_t)k;
		if (n == 65535)
			break;
	}
	b[n] = '\0';
	*len = n;
	return b;
}

/*
 * socks_open - SOCKS5 handshake; the fd on success, else -1 with *@code
 * the server's answer (method 0xFF as 0x100+0xFF, auth failure 0x200+x,
 * reply code otherwise).
 */
static int socks_open(const struct host *h, const char *user,
		      const char *pass, const unsigned char *methods,
		      size_t nmethods, int cmd, int atyp, const void *addr,
		      size_t alen, uint16_t port, int *code)
{
	unsigned char b[600], r[300];
	size_t n = 0;
	int fd = tcp(h->socks);

	*code = -1;
	if (fd < 0)
		return -1;
	b[n++] = 5;
	b[n++] = (unsigned char)nmethods;
	memcpy(b + n, methods, nmethods);
	n += nmethods;
	if (write_all(fd, b, n) != 0 || recv(fd, r, 2, MSG_WAITALL) != 2)
		goto fail;
	if (r[1] != 2) {
		*code = 0x100 + r[1];
		goto fail;
	}
	n = 0;
	b[n++] = 1;
	b[n++] = (unsigned char)strlen(user);
	memcpy(b + n, user, strlen(user));
	n += strlen(user);
	b[n++] = (unsigned char)strlen(pass);
	memcpy(b + n, pass, strlen(pass));
	n += strlen(pass);
	if (write_all(fd, b, n) != 0 || recv(fd, r, 2, MSG_WAITALL) != 2)
		goto fail;
	if (r[1] != 0) {
		*code = 0x200 + r[1];
		goto fail;
	}
	n = 0;
	b[n++] = 5;
	b[n++] = (unsigned char)cmd;
	b[n++] = 0;
	b[n++] = (unsigned char)atyp;
	if (atyp == 3)
		b[n++] = (unsigned char)alen;
	memcpy(b + n, addr, alen);
	n += alen;
	b[n++] = (unsigned char)(port >> 8);
	b[n++] = (unsigned char)port;
	if (write_all(fd, b, n) != 0 || recv(fd, r, 10, MSG_WAITALL) != 10)
		goto fail;
	*code = r[1];
	if (r[1] == 0)
		return fd;
fail:
	close(fd);
	return -1;
}

static int socks_name(const struct host *h, const char *name, uint16_t port,
		      int *code)
{
	static const unsigned char m[] = { 0, 2 };

	return socks_open(h, "vbox", h->ts, m, 2, 1, 3, name, strlen(name),
			  port, code);
}

/* ---- ClientHello ---------------------------------------------------- */

/* hello - a ClientHello naming @sni (NULL: none), in @nrec records */
static size_t hello(unsigned char *out, const char *sni, int nrec)
{
	unsigned char body[1024], hs[1100];
	size_t n = 0, e0, h = 0, i, off, per;

	body[n++] = 3;
	body[n++] = 3;
	memset(body + n, 0x42, 32);
	n += 32;
	body[n++] = 0;		/* session id */
	body[n++] = 0;
	body[n++] = 4;		/* two suites */
	body[n++] = 0x13;
	body[n++] = 0x01;
	body[n++] = 0x13;
	body[n++] = 0x02;
	body[n++] = 1;
	body[n++] = 0;		/* null compression */
	e0 = n;
	n += 2;
	/* a padding extension first, then server_name */
	body[n++] = 0;
	body[n++] = 21;
	body[n++] = 0;
	body[n++] = 3;
	body[n++] = 0;
	body[n++] = 0;
	body[n++] = 0;
	if (sni) {
		size_t l = strlen(sni);

		body[n++] = 0;
		body[n++] = 0;
		body[n++] = (unsigned char)((l + 5) >> 8);
		body[n++] = (unsigned char)(l + 5);
		body[n++] = (unsigned char)((l + 3) >> 8);
		body[n++] = (unsigned char)(l + 3);
		body[n++] = 0;
		body[n++] = (unsigned char)(l >> 8);
		body[n++] = (unsigned char)l;
		memcpy(body + n, sni, l);
		n += l;
	}
	body[e0] = (unsigned char)((n - e0 - 2) >> 8);
	body[e0 + 1] = (unsigned char)(n - e0 - 2);
	hs[h++] = 1;
	hs[h++] = 0;
	hs[h++] = (unsigned char)(n >> 8);
	hs[h++] = (unsigned char)n;
	memcpy(hs + h, body, n);
	h += n;
	/* split the handshake message over @nrec records */
	per = (h + (size_t)nrec - 1) / (size_t)nrec;
	for (i = 0, off = 0; off < h; i++) {
		size_t k = h - off < per ? h - off : per;

		memcpy(out + off + 5 * (i + 1), hs + off, k);
		out[off + 5 * i] = 0x16;
		out[off + 5 * i + 1] = 3;
		out[off + 5 * i + 2] = 1;
		out[off + 5 * i + 3] = (unsigned char)(k >> 8);
		out[off + 5 * i + 4] = (unsigned char)k;
		off += k;
	}
	return h + 5 * i;
}

/* tunnel_alive - does the echo behind @fd echo @n bytes of @p? */
static bool echoes(int fd, const unsigned char *p, size_t n)
{
	unsigned char *b = xmalloc(n);
	bool ok = write_all(fd, p, n) == 0 &&
		  recv(fd, b, n, MSG_WAITALL) == (ssize_t)n &&
		  !memcmp(b, p, n);

	free(b);
	return ok;
}

/* closed - the proxy ended the connection (EOF or reset) */
static bool closed(int fd)
{
	char c;
	ssize_t k = recv(fd, &c, 1, 0);

	return k == 0 || (k < 0 && errno != EAGAIN);
}

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
	fd = http_connect(h, target, NULL, head, sizeof(head));
	is_int(fd, -407, "CONNECT without credentials: 407");
	ok(strstr(head, "\r\nProxy-Authenticate: Basic realm=\"vbox\"\r\n") !=
		   NULL,
	   "407 carries Proxy-Authenticate: Basic realm=\"vbox\"");
	is_int(http_connect(h, target, "wrong-token", head, sizeof(head)),
	       -407, "CONNECT with a wrong token: 407");
	is_int(http_connect(h, target, h->ts, head, sizeof(head)), -407,
	       "CONNECT with the SOCKS endpoint's token: 407");
	ok(log_has(h, "wrong proxy credentials"), "the refusal is logged");
}

static void test_socks_codes(const struct host *h, uint16_t echo,
			     uint16_t denied)
{
	static const unsigned char none[] = { 0 }, both[] = { 0, 2 };
	unsigned char lo[4] = { 127, 0, 0, 1 };
	int code, fd;

	fd = socks_open(h, "vbox", h->ts, none, 1, 1, 1, lo, 4, echo, &code);
	is_int(code, 0x1ff, "SOCKS5 without username/password method: 0xFF");
	fd = socks_open(h, "vbox", "nope", both, 2, 1, 1, lo, 4, echo, &code);
	is_int(code, 0x201, "SOCKS5 wrong password: auth status 1");
	fd = socks_open(h, "vbox", h->th, both, 2, 1, 1, lo, 4, echo, &code);
	is_int(code, 0x201, "SOCKS5 with the HTTP endpoint's token: refused");
	fd = socks_open(h, "vbox", h->ts, both, 2, 2, 1, lo, 4, echo, &code);
	is_int(code, 7, "SOCKS5 BIND: reply 0x07");
	fd = socks_open(h, "vbox", h->ts, both, 2, 3, 1, lo, 4, echo, &code);
	is_int(code, 7, "SOCKS5 UDP ASSOCIATE: reply 0x07");
	fd = socks_open(h, "vbox", h->ts, both, 2, 1, 9, lo, 4, echo, &code);
	is_int(code, 8, "SOCKS5 unknown address type: reply 0x08");
	fd = socks_open(h, "vbox", h->ts, both, 2, 1, 1, lo, 4, denied, &code);
	is_int(code, 2, "SOCKS5 denied target: reply 0x02");
	fd = socks_open(h, "vbox", h->ts, both, 2, 1, 1, lo, 4, echo, &code);
	ok(fd >= 0 && code == 0, "SOCKS5 CONNECT to an allowed target");
	if (fd >= 0) {
		ok(echoes(fd, (const unsigned char *)"socks", 5),
		   "bytes flow through the SOCKS5 tunnel");
		close(fd);
	}
	fd = socks_name(h, "localhost", echo, &code);
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
	fd = http_connect(h, target, h->th, head, sizeof(head));
	ok(fd >= 0, "CONNECT to an allowed target: 200");
	if (fd < 0)
		return;
	ok(echoes(fd, (const unsigned char *)"hello", 5),
	   "bytes flow through the tunnel");
	/* half-close: our FIN reaches the echo server, whose FIN comes back
	 * after the last echoed byte */
	ok(write_all(fd, "tail", 4) == 0 && shutdown(fd, SHUT_WR) == 0,
	   "half-close the tunnel after more bytes");
	rest = read_rest(fd, &n);
	ok(rest && n == 4 && !memcmp(rest, "tail", 4),
	   "the echo of the last bytes, then EOF: half-close passed on");
	free(rest);
	close(fd);

	snprintf(target, sizeof(target), "127.0.0.1:%u", denied);
	fd = http_connect(h, target, h->th, head, sizeof(head));
	is_int(fd, -403, "CONNECT to a denied target: 403");
	snprintf(buf, sizeof(buf), "deny by row 1 (deny, level 0) at ");
	ok(strstr(head, "\r\n\r\n") != NULL, "403 head");
	ok(log_has(h, buf), "the decision log names the deciding row");
	fd = http_connect(h, "example.invalid:443", h->th, head, sizeof(head));
	is_int(fd, -403, "CONNECT to a name no row allows: 403");
	ok(log_has(h, "net example.invalid:443: deny by default "
		      "(@default net deny)"),
	   "the log names the default");
}

static void test_refusal_body(const struct host *h, uint16_t denied)
{
	char target[64], *req, *cred = basic("vbox", h->th), *rest;
	size_t n;
	int fd = tcp(h->http);

	snprintf(target, sizeof(target), "127.0.0.1:%u", denied);
	req = xasprintf("CONNECT %s HTTP/1.1\r\nProxy-Authorization: Basic "
			"%s\r\nConnection: close\r\n\r\n",
			target, cred);
	ok(fd >= 0 && write_all(fd, req, strlen(req)) == 0,
	   "send a denied CONNECT");
	rest = read_rest(fd, &n);
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

/* explain_line - what vboxc explain says of --net=@q against @rules */
static char *explain_line(const char *rules, const char *q)
{
	char cmd[1024], line[1024];
	const char *vboxc = getenv("VBOXC");
	FILE *p;

	snprintf(cmd, sizeof(cmd), "'%s' explain '%s' '--net=%s'",
		 vboxc ? vboxc : "vboxc", rules, q);
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
		fd = http_connect(h, target, h->th, head, sizeof(head));
		ok(fd >= 0, "CONNECT %s: allowed (the loopback-class row)",
		   target);
		if (fd >= 0) {
			ok(echoes(fd, (const unsigned char *)"n", 1),
			   "and connected");
			close(fd);
		}
		ex = explain_line(h->rules, target);
		needle = xasprintf("CONNECT %s: %s", target, ex);
		ok(log_has(h, needle), "the log line is explain's: %s", ex);
		free(needle);
		free(ex);
		snprintf(target, sizeof(target), "%s:%u", spell[i], denied);
		is_int(http_connect(h, target, h->th, head, sizeof(head)), -403,
		       "CONNECT %s: denied by the deny row", target);
	}
}

static void test_plain_http(const struct host *h, uint16_t origin,
			    uint16_t denied)
{
	char *cred = basic("vbox", h->th), *req, *body, *olog;
	char head[8192];
	long cl;
	int fd = tcp(h->http);

	/* two requests, one connection: each judged by itself */
	req = xasprintf("GET http://127.0.0.1:%u/size/1000 HTTP/1.1\r\n"
			"Host: evil.example\r\nProxy-Authorization: Basic %s"
			"\r\n\r\n",
			origin, cred);
	ok(write_all(fd, req, strlen(req)) == 0 &&
		   read_head(fd, head, sizeof(head)) > 0 &&
		   status_of(head) == 200,
	   "absolute-form GET to an allowed origin: 200");
	free(req);
	cl = content_length(head);
	body = cl == 1000 ? read_n(fd, 1000) : NULL;
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
		   status_of(head) == 403,
	   "a second request on the kept-alive connection, for a denied "
	   "target: 403");
	free(req);
	cl = content_length(head);
	body = cl > 0 ? read_n(fd, (size_t)cl) : NULL;
	free(body);
	req = xasprintf("GET http://127.0.0.1:%u/chunked HTTP/1.1\r\n"
			"Proxy-Authorization: Basic %s\r\n\r\n",
			origin, cred);
	ok(write_all(fd, req, strlen(req)) == 0 &&
		   read_head(fd, head, sizeof(head)) > 0 &&
		   status_of(head) == 200,
	   "a third request on the same connection, allowed again: 200");
	free(req);
	body = read_n(fd, 49);
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
		   status_of(head) == 200 && content_length(head) == 11,
	   "POST with a body on the same connection: 200");
	body = read_n(fd, 11);
	ok(body && !strcmp(body, "hello world"), "the body went and came back");
	free(body);
	free(req);
	/* without credentials, on the same connection */
	req = xasprintf("GET http://127.0.0.1:%u/size/1 HTTP/1.1\r\n\r\n",
			origin);
	ok(write_all(fd, req, strlen(req)) == 0 &&
		   read_head(fd, head, sizeof(head)) > 0 &&
		   status_of(head) == 407,
	   "a request without credentials on a kept-alive connection: 407");
	free(req);
	close(fd);
	free(cred);
}

static void test_smuggling(const struct host *h, uint16_t origin,
			   uint16_t denied)
{
	char *cred = basic("vbox", h->th), *req, *body, *olog, *rest;
	char head[8192];
	size_t n;
	int fd;

	/* pipelined: the second request, for a denied target, arrives in
	 * the same segment as the first */
	fd = tcp(h->http);
	req = xasprintf("GET http://127.0.0.1:%u/size/5 HTTP/1.1\r\n"
			"Proxy-Authorization: Basic %s\r\n\r\n"
			"GET http://127.0.0.1:%u/size/6 HTTP/1.1\r\n"
			"Proxy-Authorization: Basic %s\r\n\r\n",
			origin, cred, denied, cred);
	ok(write_all(fd, req, strlen(req)) == 0 &&
		   read_head(fd, head, sizeof(head)) > 0 &&
		   status_of(head) == 200,
	   "pipelined: the first request is answered");
	body = read_n(fd, 5);
	free(body);
	ok(read_head(fd, head, sizeof(head)) > 0 && status_of(head) == 403,
	   "pipelined: the second, for a denied target, is judged: 403");
	olog = origin_log_take();
	ok(strstr(olog, "/size/6") == NULL,
	   "the smuggled request never reached the origin");
	free(olog);
	free(req);
	close(fd);

	/* a request hidden in a body: it stays body */
	fd = tcp(h->http);
	req = xasprintf("POST http://127.0.0.1:%u/echo HTTP/1.1\r\n"
			"Proxy-Authorization: Basic %s\r\nContent-Length: 33"
			"\r\n\r\nGET /size/7 HTTP/1.1\r\nHost: x\r\n\r\n",
			origin, cred);
	ok(write_all(fd, req, strlen(req)) == 0 &&
		   read_head(fd, head, sizeof(head)) > 0 &&
		   status_of(head) == 200 && content_length(head) == 33,
	   "a request inside a Content-Length body is echoed as body");
	body = read_n(fd, 33);
	free(body);
	olog = origin_log_take();
	ok(strstr(olog, "/size/7") == NULL, "and never seen as a request");
	free(olog);
	free(req);
	close(fd);

	/* ambiguous framing is refused outright */
	fd = tcp(h->http);
	req = xasprintf("POST http://127.0.0.1:%u/echo HTTP/1.1\r\n"
			"Proxy-Authorization: Basic %s\r\nContent-Length: 4\r\n"
			"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
			origin, cred);
	ok(write_all(fd, req, strlen(req)) == 0 &&
		   read_head(fd, head, sizeof(head)) > 0 &&
		   status_of(head) == 400,
	   "Content-Length with Transfer-Encoding: 400");
	free(req);
	close(fd);
	fd = tcp(h->http);
	req = xasprintf("POST http://127.0.0.1:%u/echo HTTP/1.1\r\n"
			"Proxy-Authorization: Basic %s\r\n"
			"Transfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n",
			origin, cred);
	ok(write_all(fd, req, strlen(req)) == 0 &&
		   read_head(fd, head, sizeof(head)) > 0 &&
		   status_of(head) == 400,
	   "a coding other than chunked: 400");
	free(req);
	close(fd);
	fd = tcp(h->http);
	req = xasprintf("GET http://127.0.0.1:%u/x HTTP/1.1\r\n"
			"Proxy-Authorization: Basic %s\r\n"
			"X-A: 1\r\n folded\r\n\r\n",
			origin, cred);
	ok(write_all(fd, req, strlen(req)) == 0 &&
		   read_head(fd, head, sizeof(head)) > 0 &&
		   status_of(head) == 400,
	   "an obsolete line fold: 400");
	free(req);
	close(fd);
	fd = tcp(h->http);
	req = xasprintf("GET http://127.0.0.1:%u/x HTTP/1.1\n"
			"Proxy-Authorization: Basic %s\n\n",
			origin, cred);
	ok(write_all(fd, req, strlen(req)) == 0 &&
		   read_head(fd, head, sizeof(head)) > 0 &&
		   status_of(head) == 400,
	   "bare LF line ends: 400");
	free(req);
	close(fd);
	/* chunked request body with a request smuggled after the last
	 * chunk: the body ends at the zero chunk, and what follows is a
	 * request judged by itself */
	fd = tcp(h->http);
	req = xasprintf("POST http://127.0.0.1:%u/echo HTTP/1.1\r\n"
			"Proxy-Authorization: Basic %s\r\n"
			"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
			"GET http://127.0.0.1:%u/size/8 HTTP/1.1\r\n\r\n",
			origin, cred, origin);
	ok(write_all(fd, req, strlen(req)) == 0 &&
		   read_head(fd, head, sizeof(head)) > 0,
	   "a chunked request is answered");
	if (content_length(head) > 0)
		free(read_n(fd, (size_t)content_length(head)));
	ok(read_head(fd, head, sizeof(head)) > 0 && status_of(head) == 407,
	   "the request after the last chunk is judged by itself (407: no "
	   "credentials)");
	free(req);
	close(fd);
	/* a response that carries a second response: cut at its length */
	fd = tcp(h->http);
	req = xasprintf("GET http://127.0.0.1:%u/smuggle HTTP/1.1\r\n"
			"Proxy-Authorization: Basic %s\r\n\r\n"
			"GET http://127.0.0.1:%u/z HTTP/1.1\r\n"
			"Proxy-Authorization: Basic %s\r\n\r\n",
			origin, cred, denied, cred);
	ok(write_all(fd, req, strlen(req)) == 0 &&
		   read_head(fd, head, sizeof(head)) > 0 &&
		   status_of(head) == 200,
	   "an origin sends two responses to one request");
	rest = read_rest(fd, &n);
	ok(rest && !strncmp(rest, "ok", 2) && !strstr(rest, "injected"),
	   "the extra response never reaches the client");
	free(rest);
	free(req);
	close(fd);
	free(origin_log_take());
	free(cred);
}

static void test_sni(const struct host *h, uint16_t echo, uint16_t banner)
{
	unsigned char ch[2048];
	char head[4096], target[64];
	size_t n;
	int fd;

	snprintf(target, sizeof(target), "localhost:%u", echo);
	fd = http_connect(h, target, h->th, head, sizeof(head));
	n = hello(ch, "localhost", 1);
	ok(fd >= 0 && echoes(fd, ch, n),
	   "a ClientHello naming the judged host passes");
	if (fd >= 0)
		close(fd);
	fd = http_connect(h, target, h->th, head, sizeof(head));
	n = hello(ch, "LocalHost.", 3);
	ok(fd >= 0 && echoes(fd, ch, n),
	   "the same, case-folded, trailing dot, over three records");
	if (fd >= 0)
		close(fd);
	fd = http_connect(h, target, h->th, head, sizeof(head));
	n = hello(ch, "evil.example.com", 1);
	ok(fd >= 0 && write_all(fd, ch, n) == 0 && closed(fd),
	   "a ClientHello naming another host closes the tunnel");
	if (fd >= 0)
		close(fd);
	ok(log_has(h, "TLS server name 'evil.example.com' is not the judged "
		      "host 'localhost'"),
	   "the mismatch is logged");
	/* fragmented: the hello in two records sent in five segments */
	fd = http_connect(h, target, h->th, head, sizeof(head));
	n = hello(ch, "evil.example.com", 2);
	if (fd >= 0) {
		size_t i, step = n / 5 + 1;
		int nodelay = 1;

		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &nodelay,
			   sizeof(nodelay));
		for (i = 0; i < n; i += step) {
			(void)write_all(fd, ch + i, i + step > n ? n - i : step);
			usleep(20000);
		}
	}
	ok(fd >= 0 && closed(fd), "a fragmented ClientHello is seen whole");
	if (fd >= 0)
		close(fd);
	/* an IP target: the server name must be allowed by the table */
	snprintf(target, sizeof(target), "127.0.0.1:%u", echo);
	fd = http_connect(h, target, h->th, head, sizeof(head));
	n = hello(ch, "evil.example.com", 1);
	ok(fd >= 0 && write_all(fd, ch, n) == 0 && closed(fd),
	   "IP target, SNI for a name the table refuses: closed");
	if (fd >= 0)
		close(fd);
	fd = http_connect(h, target, h->th, head, sizeof(head));
	n = hello(ch, NULL, 1);
	ok(fd >= 0 && echoes(fd, ch, n), "a ClientHello without SNI passes");
	if (fd >= 0)
		close(fd);
	fd = http_connect(h, target, h->th, head, sizeof(head));
	ok(fd >= 0 && echoes(fd, (const unsigned char *)"\x16\x03", 2) ==
			      false,
	   "a truncated ClientHello is held, not passed");
	if (fd >= 0)
		close(fd);
	/* server speaks first; a silent client just works */
	snprintf(target, sizeof(target), "127.0.0.1:%u", banner);
	fd = http_connect(h, target, h->th, head, sizeof(head));
	memset(head, 0, sizeof(head));
	ok(fd >= 0 && recv(fd, head, 12, MSG_WAITALL) == 12 &&
		   !memcmp(head, "220 banner\r\n", 12),
	   "a server that speaks first is heard at once");
	ok(fd >= 0 && echoes(fd, (const unsigned char *)"EHLO x\r\n", 8),
	   "then a non-TLS client is relayed");
	if (fd >= 0)
		close(fd);
}

/* pattern_ok - are the @n bytes at @p the pattern from offset @off? */
static bool pattern_ok(const char *p, size_t n, uint64_t off)
{
	while (n) {
		size_t k = n < PATTERN_PERIOD ? n : PATTERN_PERIOD;

		if (memcmp(p, pattern_at(off), k))
			return false;
		p += k;
		off += k;
		n -= k;
	}
	return true;
}

/* big_read - read @total pattern bytes, slowly at times; byte-exact? */
static bool big_read(int fd, uint64_t total, bool slow)
{
	static char buf[1 << 16];
	uint64_t off = 0, next_pause = 64 << 20;

	while (off < total) {
		size_t want = total - off < sizeof(buf) ? (size_t)(total - off) :
							  sizeof(buf);
		ssize_t k = recv(fd, buf, want, 0);

		if (k <= 0)
			return false;
		if (!pattern_ok(buf, (size_t)k, off))
			return false;
		off += (uint64_t)k;
		if (slow && off >= next_pause) {
			/* a slow reader: the window fills, the proxy must
			 * hold back without losing a byte */
			usleep(150000);
			next_pause += 128 << 20;
		}
	}
	return true;
}

static void test_big(const struct host *h, uint16_t origin)
{
	const uint64_t size = 1ull << 30;
	char head[4096], target[64], *req, *cred = basic("vbox", h->th);
	int fd;

	snprintf(target, sizeof(target), "127.0.0.1:%u", origin);
	fd = http_connect(h, target, h->th, head, sizeof(head));
	req = xasprintf("GET /size/%llu HTTP/1.1\r\nHost: x\r\n"
			"Connection: close\r\n\r\n",
			(unsigned long long)size);
	ok(fd >= 0 && write_all(fd, req, strlen(req)) == 0 &&
		   read_head(fd, head, sizeof(head)) > 0 &&
		   big_read(fd, size, true),
	   "1 GiB through a CONNECT tunnel, slow reader: byte-exact");
	ok(fd >= 0 && closed(fd), "then the end of the stream");
	if (fd >= 0)
		close(fd);
	free(req);
	fd = tcp(h->http);
	req = xasprintf("GET http://127.0.0.1:%u/size/%llu HTTP/1.1\r\n"
			"Proxy-Authorization: Basic %s\r\n\r\n",
			origin, (unsigned long long)size, cred);
	ok(fd >= 0 && write_all(fd, req, strlen(req)) == 0 &&
		   read_head(fd, head, sizeof(head)) > 0 &&
		   content_length(head) == (long)size &&
		   big_read(fd, size, true),
	   "1 GiB as absolute-form HTTP, slow reader: byte-exact");
	if (fd >= 0)
		close(fd);
	free(req);
	free(cred);
}

/*
 * test_both_ways - @total pattern bytes up a CONNECT tunnel to the echo
 * peer and back at the same time, the reader pausing now and then so
 * that both directions fill and hold back, then a half-close: every byte
 * comes back in order, then the end of the stream.
 */
static void test_both_ways(const struct host *h, uint16_t echo,
			   uint64_t total)
{
	static char buf[1 << 16];
	uint64_t sent = 0, got = 0, next_pause = 16 << 20;
	char head[4096], target[64];
	bool good = true, eof = false;
	int fd;

	snprintf(target, sizeof(target), "127.0.0.1:%u", echo);
	fd = http_connect(h, target, h->th, head, sizeof(head));
	if (fd < 0 || fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0)
		good = false;
	while (good && !eof) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (sent < total)
			pfd.events |= POLLOUT;
		if (poll(&pfd, 1, 20000) <= 0) {
			diag("both ways: stalled at %llu sent, %llu back",
			     (unsigned long long)sent, (unsigned long long)got);
			good = false;
			break;
		}
		if ((pfd.revents & POLLOUT) && sent < total) {
			size_t k = total - sent < PATTERN_PERIOD ?
					   (size_t)(total - sent) :
					   PATTERN_PERIOD;

			n = send(fd, pattern_at(sent), k, MSG_NOSIGNAL);
			if (n < 0 && errno != EAGAIN && errno != EINTR)
				good = false;
			if (n > 0)
				sent += (uint64_t)n;
			if (sent == total && shutdown(fd, SHUT_WR) != 0)
				good = false;
		}
		if (pfd.revents & (POLLIN | POLLHUP | POLLERR)) {
			n = recv(fd, buf, sizeof(buf), 0);
			if (n == 0)
				eof = true;
			else if (n < 0 && errno != EAGAIN && errno != EINTR)
				good = false;
			else if (n > 0 && !pattern_ok(buf, (size_t)n, got))
				good = false;
			if (n > 0)
				got += (uint64_t)n;
			if (got >= next_pause) {
				usleep(100000);
				next_pause += 64 << 20;
			}
		}
	}
	ok(good && sent == total && got == total && eof,
	   "%llu MiB up a tunnel and back at once, slow reader, then a "
	   "half-close: byte-exact, then EOF",
	   (unsigned long long)(total >> 20));
	if (fd >= 0)
		close(fd);
}

static void test_many(const struct host *h, uint16_t echo)
{
	enum { N = 500 };
	static int fds[N];
	char head[4096], target[64], msg[32], got[32];
	int i, opened = 0, good = 0;

	snprintf(target, sizeof(target), "127.0.0.1:%u", echo);
	for (i = 0; i < N; i++) {
		fds[i] = http_connect(h, target, h->th, head, sizeof(head));
		opened += fds[i] >= 0;
	}
	is_int(opened, N, "500 tunnels open at once");
	for (i = 0; i < N; i++) {
		snprintf(msg, sizeof(msg), "tunnel %05d", i);
		if (fds[i] >= 0)
			(void)write_all(fds[i], msg, strlen(msg));
	}
	for (i = 0; i < N; i++) {
		snprintf(msg, sizeof(msg), "tunnel %05d", i);
		memset(got, 0, sizeof(got));
		if (fds[i] >= 0 &&
		    recv(fds[i], got, strlen(msg), MSG_WAITALL) ==
			    (ssize_t)strlen(msg) &&
		    !strcmp(got, msg))
			good++;
	}
	is_int(good, N, "each of the 500 got its own bytes back");
	for (i = 0; i < N; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

static int settle_fds(pid_t pid, int want)
{
	int i, n = -1;

	for (i = 0; i < 100; i++) {
		n = count_fds(pid);
		if (n == want)
			break;
		usleep(50000);
	}
	return n;
}

static void test_vanish(const struct host *h, uint16_t origin, int base)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	char head[4096], target[64], buf[65536], *req, *cred;
	int fd, i;
	size_t got = 0;

	is_int(settle_fds(h->pid, base), base,
	       "after the earlier tunnels closed, the proxy holds only its "
	       "own fds");
	snprintf(target, sizeof(target), "127.0.0.1:%u", origin);
	fd = http_connect(h, target, h->th, head, sizeof(head));
	req = xasprintf("GET /size/%llu HTTP/1.1\r\nHost: x\r\n\r\n",
			1ull << 30);
	if (fd >= 0 && write_all(fd, req, strlen(req)) == 0)
		while (got < (8u << 20)) {
			ssize_t k = recv(fd, buf, sizeof(buf), 0);

			if (k <= 0)
				break;
			got += (size_t)k;
		}
	ok(got >= (8u << 20), "a tunnel is mid-transfer");
	ok(count_fds(h->pid) > base, "the proxy holds its sockets and pipes");
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(fd);
	free(req);
	is_int(settle_fds(h->pid, base), base,
	       "the client vanished: every fd of the tunnel is closed");
	/* the same for plain HTTP and for a client gone while resolving or
	 * mid-request */
	cred = basic("vbox", h->th);
	fd = tcp(h->http);
	req = xasprintf("GET http://127.0.0.1:%u/size/%llu HTTP/1.1\r\n"
			"Proxy-Authorization: Basic %s\r\n\r\n",
			origin, 1ull << 30, cred);
	got = 0;
	if (fd >= 0 && write_all(fd, req, strlen(req)) == 0)
		while (got < (8u << 20)) {
			ssize_t k = recv(fd, buf, sizeof(buf), 0);

			if (k <= 0)
				break;
			got += (size_t)k;
		}
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(fd);
	free(req);
	is_int(settle_fds(h->pid, base), base,
	       "plain HTTP, client vanished mid-body: no fd left");
	for (i = 0; i < 20; i++) {
		fd = tcp(h->http);
		(void)write_all(fd, "GET http://127.0.0.1/ HTT", 25);
		close(fd);
	}
	is_int(settle_fds(h->pid, base), base,
	       "20 clients gone mid-head: no fd left");
	free(cred);
}

static void test_limits(uint16_t echo)
{
	struct host h;
	char rules[256], head[4096], big[20000];
	int fd;

	snprintf(rules, sizeof(rules),
		 "@default net deny\n[net]\nallow: localhost:%u\n", echo);
	if (host_start(&h, rules, true, NULL) != 0) {
		ok(0, "start a proxy with short limits");
		return;
	}
	fd = tcp(h.http);
	ok(fd >= 0 && closed(fd), "a client that sends nothing is closed "
				   "(handshake deadline)");
	close(fd);
	fd = tcp(h.http);
	memset(big, 'a', sizeof(big));
	memcpy(big, "GET http://127.0.0.1/ HTTP/1.1\r\nX: ", 35);
	ok(fd >= 0 && write_all(fd, big, sizeof(big)) == 0 &&
		   read_head(fd, head, sizeof(head)) > 0 &&
		   status_of(head) == 431,
	   "a head over 16 KiB: 431");
	close(fd);
	snprintf(head, sizeof(head), "127.0.0.1:%u", echo);
	fd = http_connect(&h, head, h.th, head, sizeof(head));
	ok(fd >= 0 && closed(fd), "an idle tunnel ends at the idle limit");
	if (fd >= 0)
		close(fd);
	host_stop(&h);
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
	if (host_start(&b, rules, false, NULL) != 0) {
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
		if (host_start(&a, rules, false, "http://127.0.0.1:9") != 0) {
			ok(0, "start a proxy chained by %s", kinds[k]);
			continue;
		}
		snprintf(target, sizeof(target), "localhost:%u", echo);
		fd = http_connect(&a, target, a.th, head, sizeof(head));
		ok(fd >= 0 && echoes(fd, (const unsigned char *)"chain", 5),
		   "CONNECT through an %s upstream", kinds[k]);
		if (fd >= 0)
			close(fd);
		ok(log_has(&b, k == 2 ? "CONNECT 127.0.0.1:" :
					"CONNECT localhost:"),
		   "the upstream saw the %s", k == 2 ? "judged address" :
						       "name");
		cred = basic("vbox", a.th);
		fd = tcp(a.http);
		req = xasprintf("GET http://127.0.0.1:%u/size/10 HTTP/1.1\r\n"
				"Proxy-Authorization: Basic %s\r\n\r\n",
				origin, cred);
		ok(fd >= 0 && write_all(fd, req, strlen(req)) == 0 &&
			   read_head(fd, head, sizeof(head)) > 0 &&
			   status_of(head) == 200,
		   "plain HTTP through an %s upstream", kinds[k]);
		close(fd);
		free(req);
		free(cred);
		snprintf(target, sizeof(target), "127.0.0.1:%u",
			 (unsigned)(echo == 65535 ? 1 : echo + 1));
		is_int(http_connect(&a, target, a.th, head, sizeof(head)),
		       -403, "the chained proxy still judges first");
		host_stop(&a);
	}
	free(origin_log_take());
	host_stop(&b);
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

static void run_tests(void)
{
	struct host h;
	char rules[512];
	uint16_t echo, origin, banner, denied;
	int fd, base;

	test_classes();
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
	if (host_start(&h, rules, false, NULL) != 0) {
		ok(0, "start the proxy");
		return;
	}
	base = count_fds(h.pid);
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
	host_stop(&h);
	test_limits(echo);
	test_upstream(echo, origin);
	close(fd);
}

/* ---- inside the private namespace ----------------------------------- */

/* the "public" origin lives in a second namespace behind a veth pair */
#define PUB "198.51.100.10"
#define SELF "198.51.100.1"

static const struct dns_fixed dns_answers[] = {
	{ "pub.x.test", PUB },
	{ "other.x.test", PUB },
	{ "priv.x.test", "10.1.2.3" },
	{ "lo.x.test", "127.0.0.1" },
	{ "lo6.x.test", "::1" },
	{ "meta.x.test", "169.254.169.254" },
	{ "cgnat.x.test", "100.64.1.1" },
	{ "self.x.test", SELF },
	{ "ula.x.test", "fd00::1" },
	{ "ll.x.test", "fe80::1" },
	{ "mcast.x.test", "224.0.0.1" },
	{ "bcast.x.test", "255.255.255.255" },
	{ "zero.x.test", "0.0.0.0" },
	{ "mapped.x.test", "::ffff:10.1.2.3" },
	{ "compat.x.test", "::10.1.2.3" },
	{ "nat64.x.test", "64:ff9b::a01:203" },
	{ "sixtofour.x.test", "2002:a01:203::1" },
	{ "mixed.x.test", "10.1.2.3" },
	{ "mixed.x.test", PUB },
	{ "rebind.x.test", PUB },
	{ NULL, NULL },
};

static void run_dns_tests(void)
{
	static const struct {
		const char *name;
		const char *cls;
	} refused[] = {
		{ "priv.x.test", "private (RFC 1918)" },
		{ "lo.x.test", "loopback" },
		{ "lo6.x.test", "loopback" },
		{ "meta.x.test", "cloud metadata" },
		{ "cgnat.x.test", "shared address space (100.64.0.0/10)" },
		{ "self.x.test", "this machine's own address" },
		{ "ula.x.test", "unique-local" },
		{ "ll.x.test", "link-local" },
		{ "mcast.x.test", "multicast" },
		{ "bcast.x.test", "broadcast" },
		{ "zero.x.test", "unspecified" },
		{ "mapped.x.test", "private (RFC 1918)" },
		{ "compat.x.test", "IPv4 embedded in IPv6" },
		{ "nat64.x.test", "IPv4 embedded in IPv6" },
		{ "sixtofour.x.test", "IPv4 embedded in IPv6" },
	};
	struct host h;
	char rules[512], head[4096], target[96], line[256];
	unsigned char ch[2048];
	size_t i, n;
	int fd, code;

	if (dns_start("127.0.0.1", dns_answers) != 0) {
		ok(0, "start the DNS responder");
		return;
	}
	snprintf(rules, sizeof(rules),
		 "@default net deny\n[net]\nallow: *.x.test\n"
		 "allow: 10.9.9.9:80\n");
	if (host_start(&h, rules, false, NULL) != 0) {
		ok(0, "start the proxy");
		return;
	}
	fd = http_connect(&h, "pub.x.test:8080", h.th, head, sizeof(head));
	ok(fd >= 0, "a name row reaches a public address");
	if (fd >= 0) {
		static const char get[] = "GET /size/100 HTTP/1.1\r\n"
					  "Host: pub.x.test\r\n\r\n";

		ok(write_all(fd, get, sizeof(get) - 1) == 0 &&
			   read_head(fd, head, sizeof(head)) > 0 &&
			   status_of(head) == 200,
		   "and the origin answers through the tunnel");
		close(fd);
	}
	for (i = 0; i < array_size(refused); i++) {
		fd = socks_name(&h, refused[i].name, 8080, &code);
		is_int(code, 2, "%s through a name row: SOCKS reply 0x02",
		       refused[i].name);
		if (fd >= 0)
			close(fd);
		snprintf(line, sizeof(line), "is %s, forbidden class",
			 refused[i].cls);
		ok(log_has(&h, line), "logged as %s", refused[i].cls);
		snprintf(target, sizeof(target), "%s:8080", refused[i].name);
		is_int(http_connect(&h, target, h.th, head, sizeof(head)), -403,
		       "%s over HTTP: 403", refused[i].name);
	}
	fd = http_connect(&h, "mixed.x.test:8080", h.th, head, sizeof(head));
	ok(fd >= 0, "a name with a private and a public address: the "
		    "public one is dialled");
	if (fd >= 0)
		close(fd);
	fd = http_connect(&h, "rebind.x.test:8080", h.th, head, sizeof(head));
	ok(fd >= 0, "rebinding: the first answer (public) is used");
	if (fd >= 0)
		close(fd);
	is_int(http_connect(&h, "rebind.x.test:8080", h.th, head, sizeof(head)),
	       -403, "rebinding: the next answer (loopback) is refused");
	ok(log_has(&h, "is loopback, forbidden class"), "and logged");
	fd = http_connect(&h, "nosuch.x.test:8080", h.th, head, sizeof(head));
	is_int(fd, -502, "a name that does not resolve: 502");
	/* an IP row reaches a private address: refused by nothing, the dial
	 * fails for want of a route */
	fd = socks_open(&h, "vbox", h.ts, (const unsigned char *)"\x02", 1, 1,
			1, "\x0a\x09\x09\x09", 4, 80, &code);
	ok(code != 2 && code != 0,
	   "a row naming a private IP allows it (reply %d: no route)", code);
	/* SNI against a name target */
	fd = http_connect(&h, "pub.x.test:8081", h.th, head, sizeof(head));
	n = hello(ch, "pub.x.test", 1);
	ok(fd >= 0 && echoes(fd, ch, n), "SNI naming the judged host: passes");
	if (fd >= 0)
		close(fd);
	fd = http_connect(&h, "pub.x.test:8081", h.th, head, sizeof(head));
	n = hello(ch, "other.x.test", 1);
	ok(fd >= 0 && write_all(fd, ch, n) == 0 && closed(fd),
	   "SNI naming another (even allowed) host: closed");
	if (fd >= 0)
		close(fd);
	/* an IP target whose SNI the table allows */
	fd = http_connect(&h, PUB ":8081", h.th, head, sizeof(head));
	is_int(fd, -403, "an IP no row names: 403");
	host_stop(&h);
	snprintf(rules, sizeof(rules),
		 "@default net deny\n[net]\nallow: " PUB ":8081\n"
		 "allow: pub.x.test:8081\n");
	if (host_start(&h, rules, false, NULL) != 0) {
		ok(0, "start the proxy");
		return;
	}
	fd = http_connect(&h, PUB ":8081", h.th, head, sizeof(head));
	n = hello(ch, "pub.x.test", 1);
	ok(fd >= 0 && echoes(fd, ch, n),
	   "IP target with an SNI the table allows: passes");
	if (fd >= 0)
		close(fd);
	fd = http_connect(&h, PUB ":8081", h.th, head, sizeof(head));
	n = hello(ch, "other.x.test", 1);
	ok(fd >= 0 && write_all(fd, ch, n) == 0 && closed(fd),
	   "IP target with an SNI the table refuses: closed");
	if (fd >= 0)
		close(fd);
	host_stop(&h);
}


/* ---- bench client modes (bench/proxy.sh) ------------------------------ */

/* proxy_from_env - port and token of $HTTP_PROXY (http://vbox:T@H:P) */
static int proxy_from_env(uint16_t *port, char *token, size_t size)
{
	const char *v = getenv("HTTP_PROXY"), *at, *colon;

	if (!v || strncmp(v, "http://vbox:", 12))
		return -1;
	at = strchr(v, '@');
	colon = at ? strrchr(at, ':') : NULL;
	if (!colon || (size_t)(at - v - 12) >= size)
		return -1;
	snprintf(token, size, "%.*s", (int)(at - v - 12), v + 12);
	*port = (uint16_t)atoi(colon + 1);
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* bench_open - a connection to HOST:PORT, directly or by CONNECT */
static int bench_open(const char *mode, const char *host, uint16_t port)
{
	struct host h;
	char head[4096], target[300];

	if (!strcmp(mode, "direct"))
		return tcp_to(host, port);
	memset(&h, 0, sizeof(h));
	if (proxy_from_env(&h.http, h.th, sizeof(h.th)) != 0)
		return -1;
	snprintf(target, sizeof(target), strchr(host, ':') ? "[%s]:%u" :
							      "%s:%u",
		 host, port);
	return http_connect(&h, target, h.th, head, sizeof(head));
}

static int bench_fetch(const char *mode, const char *host, uint16_t port,
		       uint64_t size)
{
	char head[4096], *req, *cred = NULL;
	double t0 = now_s();
	struct host h;
	int fd;

	memset(&h, 0, sizeof(h));
	if (!strcmp(mode, "http")) {
		if (proxy_from_env(&h.http, h.th, sizeof(h.th)) != 0)
			return 2;
		cred = basic("vbox", h.th);
		fd = tcp(h.http);
		req = xasprintf("GET http://%s:%u/size/%llu HTTP/1.1\r\n"
				"Proxy-Authorization: Basic %s\r\n"
				"Connection: close\r\n\r\n",
				host, port, (unsigned long long)size, cred);
	} else {
		fd = bench_open(mode, host, port);
		req = xasprintf("GET /size/%llu HTTP/1.1\r\nHost: %s\r\n"
				"Connection: close\r\n\r\n",
				(unsigned long long)size, host);
	}
	if (fd < 0 || write_all(fd, req, strlen(req)) != 0 ||
	    read_head(fd, head, sizeof(head)) <= 0 ||
	    content_length(head) != (long)size || !big_read(fd, size, false) ||
	    !closed(fd)) {
		fprintf(stderr, "fetch %s: failed or not byte-exact\n", mode);
		return 1;
	}
	printf("%llu %.6f\n", (unsigned long long)size, now_s() - t0);
	free(req);
	free(cred);
	close(fd);
	return 0;
}

static int bench_rate(const char *mode, const char *host, uint16_t port,
		      unsigned n)
{
	double t0 = now_s();
	unsigned i;
	char c;

	for (i = 0; i < n; i++) {
		int fd = bench_open(mode, host, port);

		if (fd < 0 || write_all(fd, "x", 1) != 0 ||
		    recv(fd, &c, 1, MSG_WAITALL) != 1) {
			fprintf(stderr, "rate %s: connection %u failed\n", mode,
				i);
			return 1;
		}
		close(fd);
	}
	printf("%u %.6f\n", n, now_s() - t0);
	return 0;
}

int main(int argc, char **argv)
{
	char tmpl[] = "/tmp/vbox-proxy-XXXXXX";

	signal(SIGPIPE, SIG_IGN);

	if (argc >= 5 && !strcmp(argv[1], "--host"))
		return host_main(argv[2], argv[3], !strcmp(argv[4], "short"));
	if (argc >= 6 && !strcmp(argv[1], "--fetch"))
		return bench_fetch(argv[2], argv[3], (uint16_t)atoi(argv[4]),
				   strtoull(argv[5], NULL, 10));
	if (argc >= 6 && !strcmp(argv[1], "--rate"))
		return bench_rate(argv[2], argv[3], (uint16_t)atoi(argv[4]),
				  (unsigned)atoi(argv[5]));
	if (argc >= 4 && !strcmp(argv[1], "--origin")) {
		/* an origin for the shell tests, the bench and the dns
		 * test's second namespace: it ends with its parent, so no
		 * test can leave one behind */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 ||
		    getppid() == 1)
			return 2;
		if (!peer_start(argv[2], (uint16_t)atoi(argv[3]), PEER_HTTP) ||
		    !peer_start(argv[2], (uint16_t)(atoi(argv[3]) + 1),
				PEER_ECHO))
			return 2;
		pause();
		return 0;
	}
	if (!mkdtemp(tmpl))
		return 2;
#ifdef TEST_WANT_LOOP
	/* this binary's proxy runs on the loop and relay it was built for */
	is_str(loop_backend(), TEST_WANT_LOOP, "the loop backend is %s",
	       TEST_WANT_LOOP);
	is_str(compat_relay_name(), TEST_WANT_RELAY, "tunnels relay with %s",
	       TEST_WANT_RELAY);
#endif
	snprintf(tmpdir, sizeof(tmpdir), "%s", tmpl);
	if (argc >= 2 && !strcmp(argv[1], "--dns"))
		run_dns_tests();
	else
		run_tests();
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd) != 0)
			diag("cannot remove %s", tmpdir);
	}
	return done_testing();
}
