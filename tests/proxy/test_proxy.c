/* SPDX-License-Identifier: MIT */
/*
 * test_proxy.c - the egress proxy core against real sockets.
 *
 * The proxy runs in a child process (this program with --host), on
 * runtime/loop.c, judging with a plan that vboxc compiles from a rules
 * file; origins are threads of this process on loopback; clients are
 * plain blocking sockets here.  With --dns the program expects to run in
 * the private network namespace tests/proxy/proxy_dns.sh makes (its own
 * resolv.conf, DNS responder and a "public" origin in a second
 * namespace) and tests names, rebinding and the forbidden classes.
 * Built twice: tests/proxy/test_proxy (epoll, splice) and tests/proxy/test_proxy_poll
 * (darwin's choices: the poll loop, the buffer relay, compat.h).  The
 * loopback cases are proxy_cases.c, the client side proxy_client.c; here
 * are the proxy host mode, the namespace's DNS cases and the bench
 * client modes.
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
#include "proxy_cases.h"
#include "proxy_client.h"

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
	{ "ietf.x.test", "192.0.0.8" },
	{ "bench.x.test", "198.18.0.1" },
	{ "resv.x.test", "240.0.0.1" },
	{ "site.x.test", "fec0::1" },
	{ "teredo.x.test", "2001::1" },
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
		{ "ietf.x.test", "IETF protocol assignments (192.0.0.0/24)" },
		{ "bench.x.test", "benchmarking (198.18.0.0/15, 2001:2::/48)" },
		{ "resv.x.test", "reserved" },
		{ "site.x.test", "site-local (fec0::/10)" },
		{ "teredo.x.test", "IPv4 embedded in IPv6" },
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
	if (pc_host_start(&h, rules, false, NULL) != 0) {
		ok(0, "start the proxy");
		return;
	}
	fd = pc_http_connect(&h, "pub.x.test:8080", h.th, head, sizeof(head));
	ok(fd >= 0, "a name row reaches a public address");
	if (fd >= 0) {
		static const char get[] = "GET /size/100 HTTP/1.1\r\n"
					  "Host: pub.x.test\r\n\r\n";

		ok(write_all(fd, get, sizeof(get) - 1) == 0 &&
			   read_head(fd, head, sizeof(head)) > 0 &&
			   pc_status_of(head) == 200,
		   "and the origin answers through the tunnel");
		close(fd);
	}
	for (i = 0; i < array_size(refused); i++) {
		fd = pc_socks_name(&h, refused[i].name, 8080, &code);
		is_int(code, 2, "%s through a name row: SOCKS reply 0x02",
		       refused[i].name);
		if (fd >= 0)
			close(fd);
		snprintf(line, sizeof(line), "is %s, forbidden class",
			 refused[i].cls);
		ok(pc_log_has(&h, line), "logged as %s", refused[i].cls);
		snprintf(target, sizeof(target), "%s:8080", refused[i].name);
		is_int(pc_http_connect(&h, target, h.th, head, sizeof(head)),
		       -403,
		       "%s over HTTP: 403", refused[i].name);
	}
	fd = pc_http_connect(&h, "mixed.x.test:8080", h.th, head, sizeof(head));
	ok(fd >= 0, "a name with a private and a public address: the "
		    "public one is dialled");
	if (fd >= 0)
		close(fd);
	fd = pc_http_connect(&h, "rebind.x.test:8080", h.th, head,
			     sizeof(head));
	ok(fd >= 0, "rebinding: the first answer (public) is used");
	if (fd >= 0)
		close(fd);
	is_int(pc_http_connect(&h, "rebind.x.test:8080", h.th, head,
			       sizeof(head)),
	       -403, "rebinding: the next answer (loopback) is refused");
	ok(pc_log_has(&h, "is loopback, forbidden class"), "and logged");
	fd = pc_http_connect(&h, "nosuch.x.test:8080", h.th, head,
			     sizeof(head));
	is_int(fd, -502, "a name that does not resolve: 502");
	/* an IP row reaches a private address: refused by nothing, the dial
	 * fails for want of a route */
	fd = pc_socks_open(&h, "vbox", h.ts, (const unsigned char *)"\x02", 1,
			   1, 1, "\x0a\x09\x09\x09", 4, 80, &code);
	ok(code != 2 && code != 0,
	   "a row naming a private IP allows it (reply %d: no route)", code);
	/* SNI against a name target */
	fd = pc_http_connect(&h, "pub.x.test:8081", h.th, head, sizeof(head));
	n = pc_hello(ch, "pub.x.test", 1);
	ok(fd >= 0 && pc_echoes(fd, ch, n),
	   "SNI naming the judged host: passes");
	if (fd >= 0)
		close(fd);
	fd = pc_http_connect(&h, "pub.x.test:8081", h.th, head, sizeof(head));
	n = pc_hello(ch, "other.x.test", 1);
	ok(fd >= 0 && write_all(fd, ch, n) == 0 && pc_closed(fd),
	   "SNI naming another (even allowed) host: closed");
	if (fd >= 0)
		close(fd);
	/* an IP target whose SNI the table allows */
	fd = pc_http_connect(&h, PUB ":8081", h.th, head, sizeof(head));
	is_int(fd, -403, "an IP no row names: 403");
	pc_host_stop(&h);
	snprintf(rules, sizeof(rules),
		 "@default net deny\n[net]\nallow: " PUB ":8081\n"
		 "allow: pub.x.test:8081\n");
	if (pc_host_start(&h, rules, false, NULL) != 0) {
		ok(0, "start the proxy");
		return;
	}
	fd = pc_http_connect(&h, PUB ":8081", h.th, head, sizeof(head));
	n = pc_hello(ch, "pub.x.test", 1);
	ok(fd >= 0 && pc_echoes(fd, ch, n),
	   "IP target with an SNI the table allows: passes");
	if (fd >= 0)
		close(fd);
	fd = pc_http_connect(&h, PUB ":8081", h.th, head, sizeof(head));
	n = pc_hello(ch, "other.x.test", 1);
	ok(fd >= 0 && write_all(fd, ch, n) == 0 && pc_closed(fd),
	   "IP target with an SNI the table refuses: closed");
	if (fd >= 0)
		close(fd);
	pc_host_stop(&h);
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
		return pc_tcp_to(host, port);
	memset(&h, 0, sizeof(h));
	if (proxy_from_env(&h.http, h.th, sizeof(h.th)) != 0)
		return -1;
	snprintf(target, sizeof(target), strchr(host, ':') ? "[%s]:%u" :
							      "%s:%u",
		 host, port);
	return pc_http_connect(&h, target, h.th, head, sizeof(head));
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
		cred = pc_basic("vbox", h.th);
		fd = pc_tcp(h.http);
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
	    pc_content_length(head) != (long)size ||
	    !pc_big_read(fd, size, false) ||
	    !pc_closed(fd)) {
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
		/* both listen now: a script waits for this line, not for
		 * a start that may still fail to bind */
		if (printf("ready\n") < 0 || fflush(stdout) != 0)
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
	snprintf(pc_tmpdir, sizeof(pc_tmpdir), "%s", tmpl);
	if (argc >= 2 && !strcmp(argv[1], "--dns")) {
		run_dns_tests();
	} else {
		proxy_run_loopback_tests();
		proxy_run_socks_tests();
	}
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", pc_tmpdir);
		if (system(cmd) != 0)
			diag("cannot remove %s", pc_tmpdir);
	}
	return done_testing();
}
