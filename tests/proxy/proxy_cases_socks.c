/* SPDX-License-Identifier: MIT */
/*
 * proxy_cases_socks.c - the proxy's own limits and the checks at a
 * tunnel's door (tests/proxy/test_proxy.c runs them after the loopback cases):
 * the forbidden address classes, the first TLS record of a tunnel, the
 * listeners at the fd limit, and the tunnel stores' budget.
 *
 * The limits are tested on a proxy of this file's own: the core forked
 * off this process (no exec), its fd limit and store budget set before it
 * serves, and a control socket through which it reports its counters
 * (struct proxy_stats), so a test reads what the proxy did instead of
 * timing it.
 */
#include <vbox.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "judge.h"
#include "loop.h"
#include "proxy.h"
#include "proxy_cases.h"
#include "proxy_client.h"
#include "proxy_peers.h"
#include "tap.h"

/* ---- the forbidden classes ------------------------------------------- */

static void test_more_classes(void)
{
	static const struct {
		const char *ip;
		enum forbid_class c;
	} t[] = {
		{ "192.0.0.8", FORBID_IETF },
		{ "192.0.0.170", FORBID_IETF },
		{ "192.0.1.1", FORBID_NONE },
		{ "198.18.0.1", FORBID_BENCHMARK },
		{ "198.19.255.254", FORBID_BENCHMARK },
		{ "198.17.255.255", FORBID_NONE },
		{ "198.20.0.0", FORBID_NONE },
		{ "240.0.0.1", FORBID_RESERVED },
		{ "255.255.255.254", FORBID_RESERVED },
		{ "255.255.255.255", FORBID_BROADCAST },
		{ "239.255.255.255", FORBID_MULTICAST },
		{ "0.1.2.3", FORBID_UNSPECIFIED },
		{ "100.127.255.255", FORBID_CGNAT },
		/* documentation ranges stay public (doc/proxy.md) */
		{ "192.0.2.1", FORBID_NONE },
		{ "198.51.100.10", FORBID_NONE },
		{ "203.0.113.1", FORBID_NONE },
		{ "2001:db8::1", FORBID_NONE },
		{ "fec0::1", FORBID_SITE_LOCAL },
		{ "feff:ffff::1", FORBID_SITE_LOCAL },
		{ "febf::1", FORBID_LINK_LOCAL },
		{ "2001::1", FORBID_V4_IN_V6 },
		{ "2001:0:4136:e378:8000:63bf:3fff:fdd2", FORBID_V4_IN_V6 },
		{ "2001:2::1", FORBID_BENCHMARK },
		{ "2001:10::1", FORBID_RESERVED },
		{ "2001:2f::1", FORBID_RESERVED },
		{ "2001:30::1", FORBID_NONE },
		{ "2001:4860::8888", FORBID_NONE },
		{ "100::1", FORBID_RESERVED },
		{ "100:0:0:1::1", FORBID_NONE },
		{ "64:ff9b::c0a8:101", FORBID_V4_IN_V6 },
		{ "64:ff9b:1::1", FORBID_V4_IN_V6 },
		{ "2606:4700::1111", FORBID_NONE },
	};
	struct judge j;
	uint8_t a[16];
	size_t i;

	judge_init(&j, true);
	for (i = 0; i < array_size(t); i++) {
		bool v6 = strchr(t[i].ip, ':') != NULL;

		if (inet_pton(v6 ? AF_INET6 : AF_INET, t[i].ip, a) != 1)
			BUG("bad test address %s", t[i].ip);
		is_int(judge_classify(&j, a, v6 ? 16 : 4), t[i].c,
		       "%s is %s", t[i].ip, forbid_name(t[i].c));
	}
	judge_release(&j);
}

/* judged - what judge_addr() says of @ip:443 under @default net open */
static bool judged(const char *ip, enum forbid_class *c)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *s4 = (void *)&ss;
	struct sockaddr_in6 *s6 = (void *)&ss;
	struct judge j;
	struct verdict v;

	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, ip, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(443);
	} else if (inet_pton(AF_INET6, ip, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(443);
	} else {
		BUG("bad test address %s", ip);
	}
	judge_init(&j, true);
	judge_addr(&j, (struct sockaddr *)&ss, &v);
	judge_release(&j);
	*c = v.forbid;
	return v.allow;
}

static void test_classes_judged(void)
{
	static const char *const refused[] = {
		"192.0.0.8", "198.18.7.7", "240.1.2.3", "fec0::1", "2001::1",
		"2001:2::1", "100::1", "::ffff:198.18.0.1",
	};
	enum forbid_class c;
	size_t i;

	for (i = 0; i < array_size(refused); i++)
		ok(!judged(refused[i], &c) && c != FORBID_NONE,
		   "under @default net open, %s is still refused (%s)",
		   refused[i], forbid_name(c));
	ok(judged("198.51.100.10", &c) && c == FORBID_NONE,
	   "a documentation address is judged by the rows alone");
}

/* ---- the first TLS record of a tunnel -------------------------------- */

/* an alert record (warning, user_canceled), which some servers skip */
static const unsigned char alert[] = { 0x15, 0x03, 0x03, 0x00, 0x02, 0x01,
				       0x5a };

/* tunnel_gets - send @n bytes of @p up a fresh CONNECT to @target */
static int tunnel_gets(const struct host *h, const char *target,
		       const unsigned char *p, size_t n)
{
	char head[4096];
	int fd = pc_http_connect(h, target, h->th, head, sizeof(head));

	if (fd >= 0 && write_all(fd, p, n) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void test_sni_first(const struct host *h, uint16_t echo)
{
	unsigned char ch[2048], buf[4096];
	char target[64];
	size_t n;
	int fd;

	snprintf(target, sizeof(target), "localhost:%u", echo);
	/* an alert, then a hello for another name: the hello would pass
	 * unchecked if the alert made the bytes "not TLS" */
	memcpy(buf, alert, sizeof(alert));
	n = pc_hello(buf + sizeof(alert), "evil.example.com", 1);
	fd = tunnel_gets(h, target, buf, sizeof(alert) + n);
	ok(fd >= 0 && pc_closed(fd),
	   "an alert record, then a ClientHello for another name: closed");
	if (fd >= 0)
		close(fd);
	ok(pc_log_has(h, "connection reset: a TLS record before the "
			 "ClientHello"),
	   "and logged");
	/* the same with the judged name: records before the hello are
	 * refused whatever it names */
	n = pc_hello(buf + sizeof(alert), "localhost", 1);
	fd = tunnel_gets(h, target, buf, sizeof(alert) + n);
	ok(fd >= 0 && pc_closed(fd),
	   "an alert record, then a ClientHello for the judged name: closed");
	if (fd >= 0)
		close(fd);
	/* a change_cipher_spec and an application_data record first */
	buf[0] = 0x14;
	fd = tunnel_gets(h, target, buf, sizeof(alert) + n);
	ok(fd >= 0 && pc_closed(fd), "a change_cipher_spec record first: "
				     "closed");
	if (fd >= 0)
		close(fd);
	buf[0] = 0x17;
	fd = tunnel_gets(h, target, buf, 5);
	ok(fd >= 0 && pc_closed(fd), "an application_data record header "
				     "first: closed");
	if (fd >= 0)
		close(fd);
	/* a hello whose record version is not 3.x (some servers take any
	 * below 16.0) is still TLS, and malformed */
	n = pc_hello(ch, "evil.example.com", 1);
	ch[1] = 0x00;
	fd = tunnel_gets(h, target, ch, n);
	ok(fd >= 0 && pc_closed(fd),
	   "a ClientHello in a record of version 0.x: closed");
	if (fd >= 0)
		close(fd);
	/* what is not TLS passes, even with bytes of record types later */
	fd = tunnel_gets(h, target, NULL, 0);
	ok(fd >= 0 && pc_echoes(fd, (const unsigned char *)"\x13\x15\x16\x03",
				4),
	   "a first byte below the record types: relayed as it is");
	if (fd >= 0)
		close(fd);
	fd = tunnel_gets(h, target, NULL, 0);
	ok(fd >= 0 && pc_echoes(fd, (const unsigned char *)"\x19\x15\x16\x03",
				4),
	   "a first byte above the record types: relayed as it is");
	if (fd >= 0)
		close(fd);
	/* and the hello for the judged name, alone, still passes */
	n = pc_hello(ch, "localhost", 2);
	fd = tunnel_gets(h, target, NULL, 0);
	ok(fd >= 0 && pc_echoes(fd, ch, n),
	   "a ClientHello for the judged name, first: passes");
	if (fd >= 0)
		close(fd);
}

/* ---- a proxy of our own ---------------------------------------------- */

/**
 * struct mini_stats - what the forked proxy reports
 * @st: its counters
 * @relay_mem: bytes its tunnel stores hold now
 * @nconns: its client connections
 * @paused: its listeners are set aside
 */
struct mini_stats {
	struct proxy_stats st;
	size_t relay_mem;
	size_t nconns;
	bool paused;
};

/**
 * struct mini - a proxy core forked off this process
 * @h: its ports and tokens, for proxy_client.c's helpers (@h.log too)
 * @ctl: our end of its control socket
 */
struct mini {
	struct host h;
	int ctl;
};

/**
 * struct mini_child - the forked side
 * @px: the proxy
 * @w: the control socket's watch
 * @logfd: where its log lines go
 */
struct mini_child {
	struct proxy px;
	struct loop_watch w;
	int logfd;
};

static void mini_log(void *ctx, const char *line)
{
	struct mini_child *c = ctx;

	if (dprintf(c->logfd, "%s\n", line) < 0)
		_exit(3);
}

static void mini_on_ctl(struct loop *lp, struct loop_watch *w,
			uint32_t events)
{
	struct mini_child *c = w->ctx;
	struct mini_stats ms;
	char b;

	(void)events;
	if (recv(w->fd, &b, 1, 0) != 1) {
		loop_stop(lp);
		return;
	}
	memset(&ms, 0, sizeof(ms));
	ms.st = c->px.stats;
	ms.relay_mem = c->px.relay_mem;
	ms.nconns = c->px.nconns;
	ms.paused = c->px.accept_paused;
	if (send(w->fd, &ms, sizeof(ms), MSG_NOSIGNAL) != sizeof(ms))
		loop_stop(lp);
}

static void mini_child_main(int ctl, int fh, int fs, int logfd,
			    const struct mini *m, uint16_t echo,
			    rlim_t nofile, size_t relay_mem_max)
{
	struct mini_child c;
	struct loop lp;
	struct judge j;
	char row[64], *err = NULL;
	int fd;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() == 1)
		_exit(2);
	/* only what it needs: its fd limit is then the test's to set */
	for (fd = 3; fd < 65536; fd++)
		if (fd != ctl && fd != fh && fd != fs && fd != logfd)
			(void)close(fd);
	memset(&c, 0, sizeof(c));
	c.logfd = logfd;
	snprintf(row, sizeof(row), "localhost:%u", echo);
	judge_init(&j, false);
	if (judge_add_row(&j, true, row, 0, 0, "mini:1:1", &err) != 0 ||
	    loop_init(&lp) != 0 ||
	    proxy_init(&c.px, &lp, &j, NULL, &err) != 0) {
		dprintf(logfd, "mini: %s\n", err ? err : "loop_init");
		_exit(2);
	}
	proxy_set_tokens(&c.px, m->h.th, m->h.ts);
	c.px.log = mini_log;
	c.px.log_ctx = &c;
	c.px.limits.handshake_ms = 120e3;
	if (relay_mem_max)
		c.px.relay_mem_max = relay_mem_max;
	loop_watch_init(&c.w, ctl, mini_on_ctl, &c);
	if (proxy_listen(&c.px, fh, PROXY_HTTP) != 0 ||
	    proxy_listen(&c.px, fs, PROXY_SOCKS5) != 0 ||
	    loop_watch_add(&lp, &c.w, LOOP_IN) != 0)
		_exit(2);
	if (nofile) {
		struct rlimit rl = { .rlim_cur = nofile, .rlim_max = nofile };

		if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
			_exit(2);
	}
	/* say that it serves */
	if (send(ctl, "R", 1, MSG_NOSIGNAL) != 1)
		_exit(2);
	loop_run(&lp);
	loop_watch_remove(&lp, &c.w);
	proxy_release(&c.px);
	judge_release(&j);
	loop_release(&lp);
	_exit(0);
}

/*
 * mini_start - fork a proxy allowing localhost:@echo, its fd limit
 * @nofile (0: as it is) and its store budget @relay_mem_max (0: the
 * default).  0, or -1.
 */
static int mini_start(struct mini *m, uint16_t echo, rlim_t nofile,
		      size_t relay_mem_max)
{
	static int nmini;
	int sv[2], fh, fs, logfd;
	pid_t pid;
	char r;

	memset(&m->h, 0, sizeof(m->h));
	m->ctl = -1;
	snprintf(m->h.log, sizeof(m->h.log), "%s/mini-log%d", pc_tmpdir,
		 ++nmini);
	if (proxy_token_make(m->h.th) != 0 || proxy_token_make(m->h.ts) != 0)
		return -1;
	fh = listen_on("127.0.0.1", 0, SOCK_STREAM);
	fs = listen_on("127.0.0.1", 0, SOCK_STREAM);
	logfd = open(m->h.log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
		     0600);
	if (fh < 0 || fs < 0 || logfd < 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		return -1;
	m->h.http = local_port(fh);
	m->h.socks = local_port(fs);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(sv[0]);
		mini_child_main(sv[1], fh, fs, logfd, m, echo, nofile,
				relay_mem_max);
	}
	m->h.pid = pid;
	m->ctl = sv[0];
	close(sv[1]);
	close(fh);
	close(fs);
	close(logfd);
	{
		struct timeval tv = { .tv_sec = 20 };

		setsockopt(m->ctl, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}
	if (recv(m->ctl, &r, 1, 0) != 1 || r != 'R')
		return -1;
	return 0;
}

static bool mini_stats(struct mini *m, struct mini_stats *ms)
{
	memset(ms, 0, sizeof(*ms));
	return send(m->ctl, "s", 1, MSG_NOSIGNAL) == 1 &&
	       recv(m->ctl, ms, sizeof(*ms), 0) == sizeof(*ms);
}

/* mini_wait - poll the stats until @pred holds, at most 20 s */
static bool mini_wait(struct mini *m, struct mini_stats *ms,
		      bool (*pred)(const struct mini_stats *, size_t),
		      size_t arg)
{
	int i;

	for (i = 0; i < 1000; i++) {
		if (!mini_stats(m, ms))
			return false;
		if (pred(ms, arg))
			return true;
		usleep(20000);
	}
	return false;
}

/* mini_stop - end it (EOF on its control socket); it must exit 0 */
static void mini_stop(struct mini *m)
{
	int status = -1, i;
	pid_t r = 0;

	close(m->ctl);
	for (i = 0; i < 1000 && r == 0; i++) {
		r = waitpid(m->h.pid, &status, WNOHANG);
		if (r == 0)
			usleep(20000);
	}
	if (r == 0) {
		kill(m->h.pid, SIGKILL);
		waitpid(m->h.pid, &status, 0);
	}
	ok(r == m->h.pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "the forked proxy ends cleanly");
}

static size_t log_count(const struct host *h, const char *needle)
{
	char *log = pc_slurp(h->log), *p;
	size_t n = 0;

	for (p = log; p && (p = strstr(p, needle)); p++)
		n++;
	free(log);
	return n;
}

/* ---- the fd limit ----------------------------------------------------- */

static bool is_paused(const struct mini_stats *ms, size_t arg)
{
	return ms->paused == (arg != 0);
}

static bool retried(const struct mini_stats *ms, size_t arg)
{
	return ms->st.accept_retries >= arg;
}

static void test_fd_limit(uint16_t echo)
{
	enum { N = 64 };
	struct mini_stats a, b;
	struct mini m;
	int fds[N], i, fd, code;
	rlim_t nofile = 40;

	if (mini_start(&m, echo, nofile, 0) != 0) {
		ok(0, "fork a proxy with an fd limit of %u", (unsigned)nofile);
		return;
	}
	/* more clients than fds: the rest wait in the listen backlog */
	for (i = 0; i < N; i++)
		fds[i] = pc_tcp(m.h.socks);
	ok(mini_wait(&m, &a, is_paused, 1),
	   "clients up to the fd limit (%u): the proxy sets its listeners "
	   "aside", (unsigned)nofile);
	ok(mini_wait(&m, &b, retried, a.st.accept_retries + 2),
	   "its timer tries them again, twice");
	diag("accept() calls %llu -> %llu, failed %llu -> %llu, timer "
	     "retries %llu -> %llu",
	     (unsigned long long)a.st.accepts, (unsigned long long)b.st.accepts,
	     (unsigned long long)a.st.accept_fails,
	     (unsigned long long)b.st.accept_fails,
	     (unsigned long long)a.st.accept_retries,
	     (unsigned long long)b.st.accept_retries);
	ok(b.paused, "the listeners stay set aside while every fd is held");
	ok(b.st.accepts - a.st.accepts ==
		   b.st.accept_retries - a.st.accept_retries &&
	   b.st.accept_fails - a.st.accept_fails ==
		   b.st.accept_retries - a.st.accept_retries,
	   "no accept() loop: while set aside, one failing accept() per "
	   "retry of the timer and none else");
	is_int((int)(b.st.accept_pauses - a.st.accept_pauses), 0,
	       "and no new pause: the listeners were never watched again");
	is_int((int)log_count(&m.h, "cannot accept a connection: Too many "
				    "open files"),
	       1, "logged once");
	for (i = 0; i < N; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	ok(mini_wait(&m, &a, is_paused, 0),
	   "the clients closed: the listeners are watched again");
	fd = pc_socks_name(&m.h, "localhost", echo, &code);
	ok(fd >= 0 && pc_echoes(fd, (const unsigned char *)"again", 5),
	   "and a new client is served");
	if (fd >= 0)
		close(fd);
	mini_stop(&m);
}

/* ---- the tunnel stores' budget ---------------------------------------- */

static bool conns_below(const struct mini_stats *ms, size_t arg)
{
	return ms->nconns < arg;
}

static void test_store_budget(uint16_t echo)
{
	enum { N = 200, BUDGET = 512 << 10 };
	static unsigned char big[100000];
	struct mini_stats ms;
	struct mini m;
	char head[4096], target[64];
	int fds[N], i, code = -1, opened = 0, fd;
	bool good;
	size_t k;

	if (mini_start(&m, echo, 0, BUDGET) != 0) {
		ok(0, "fork a proxy with 512 KiB for tunnel stores");
		return;
	}
	for (i = 0; i < N; i++) {
		fds[i] = pc_socks_name(&m.h, "localhost", echo, &code);
		if (fds[i] < 0)
			break;
		opened++;
	}
	ok(opened > 2 && opened < N,
	   "tunnels open until their stores would pass 512 KiB (%d did)",
	   opened);
	is_int(code, 1, "then the next is refused: SOCKS5 reply 0x01");
	ok(pc_log_has(&m.h, "no room for another tunnel (the proxy's tunnel "
			    "memory is spent)"),
	   "and the refusal is logged");
	snprintf(target, sizeof(target), "localhost:%u", echo);
	is_int(pc_http_connect(&m.h, target, m.h.th, head, sizeof(head)),
	       -503, "over HTTP: 503");
	good = mini_stats(&m, &ms);
	ok(good && ms.st.relay_peak <= BUDGET && ms.relay_mem <= BUDGET &&
		   ms.st.relay_refused == 2,
	   "the stores never held more than the budget (peak %zu bytes)",
	   ms.st.relay_peak);
	for (k = 0; k < sizeof(big); k++)
		big[k] = pattern_byte(k);
	ok(opened > 0 && pc_echoes(fds[opened - 1], big, sizeof(big)),
	   "100000 bytes through the last tunnel, whose stores are a page "
	   "each: byte-exact");
	if (opened > 0) {
		close(fds[--opened]);
		ok(mini_wait(&m, &ms, conns_below, (size_t)opened + 1),
		   "a tunnel closed");
		fds[opened] = pc_socks_name(&m.h, "localhost", echo, &code);
		ok(fds[opened] >= 0, "its room serves a new tunnel");
		if (fds[opened] >= 0)
			opened++;
	}
	for (i = 0; i < opened; i++)
		close(fds[i]);
	ok(mini_wait(&m, &ms, conns_below, 1) && ms.relay_mem == 0,
	   "every tunnel closed: no store is left");
	mini_stop(&m);
	/* the default budget: a store that fills grows */
	if (mini_start(&m, echo, 0, 0) != 0) {
		ok(0, "fork a proxy");
		return;
	}
	fd = pc_socks_name(&m.h, "localhost", echo, &code);
	ok(fd >= 0, "a tunnel to the echo server");
	if (fd >= 0) {
		uint64_t total = 16 << 20, sent = 0, got = 0;
		bool reading = false;
		static char buf[1 << 16];

		good = true;
		if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0)
			good = false;
		/* send without reading until nothing more goes in: every
		 * buffer on the way fills, the proxy's stores too */
		while (good && got < total) {
			struct pollfd pfd = { .fd = fd, .events = POLLIN };
			ssize_t n;

			if (sent < total)
				pfd.events |= POLLOUT;
			if (sent < total) {
				size_t want = total - sent < PATTERN_PERIOD ?
					(size_t)(total - sent) : PATTERN_PERIOD;

				n = send(fd, pattern_at(sent), want,
					 MSG_NOSIGNAL);
				if (n > 0)
					sent += (uint64_t)n;
				else if (n < 0 && errno == EAGAIN)
					reading = true;
				else if (n < 0 && errno != EINTR)
					good = false;
			}
			if (sent == total)
				reading = true;
			if (!reading)
				continue;
			if (poll(&pfd, 1, 20000) <= 0) {
				good = false;
				break;
			}
			n = recv(fd, buf, sizeof(buf), 0);
			if (n == 0 || (n < 0 && errno != EAGAIN &&
				       errno != EINTR))
				good = false;
			else if (n > 0 && !pc_pattern_ok(buf, (size_t)n, got))
				good = false;
			if (n > 0)
				got += (uint64_t)n;
		}
		ok(good && got == total,
		   "16 MiB up a tunnel and back, the reader late: byte-exact");
		good = mini_stats(&m, &ms);
		ok(good && ms.st.relay_grown > 0 &&
			   ms.st.relay_peak > 2 * PROXY_RELAY_FIRST,
		   "full stores grew past %u bytes (%llu times, peak %zu "
		   "bytes)",
		   PROXY_RELAY_FIRST, (unsigned long long)ms.st.relay_grown,
		   ms.st.relay_peak);
		close(fd);
	}
	mini_stop(&m);
}

void proxy_run_socks_tests(void)
{
	struct host h;
	char rules[256];
	uint16_t echo;

	test_more_classes();
	test_classes_judged();
	echo = peer_start("127.0.0.1", 0, PEER_ECHO);
	ok(echo != 0, "an echo server on loopback");
	snprintf(rules, sizeof(rules),
		 "@default net deny\n[net]\nallow: localhost:%u\n", echo);
	if (pc_host_start(&h, rules, false, NULL) != 0) {
		ok(0, "start the proxy");
		return;
	}
	test_sni_first(&h, echo);
	pc_host_stop(&h);
	test_fd_limit(echo);
	test_store_budget(echo);
}
