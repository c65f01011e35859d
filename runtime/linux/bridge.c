/* SPDX-License-Identifier: MIT */
/*
 * bridge.c - the egress proxy of a Linux launch (bridge.h).
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bridge.h"
#include "bwrap.h"
#include "landing.h"
#include "env.h"
#include "ir.h"
#include "launch.h"
#include "pconfig.h"
#include "plan.h"
#include "planjudge.h"
#include "process.h"
#include "supervise.h"
#include "wire.h"

/* First choices for the proxy's ports inside the namespace. */
#define BRIDGE_HTTP_PORT 3128
#define BRIDGE_SOCKS_PORT 1080

static bool port_taken(const struct bridge *b, uint16_t port)
{
	size_t i;

	for (i = 0; i < b->nports; i++)
		if (b->ports[i] == port)
			return true;
	return false;
}

static uint16_t free_port(const struct bridge *b, const uint16_t *avoid,
			  size_t navoid, uint16_t want)
{
	size_t i;

	for (;; want++) {
		bool clash = port_taken(b, want);

		for (i = 0; i < navoid && !clash; i++)
			clash = avoid[i] == want;
		if (!clash)
			return want;
	}
}

int bridge_prepare(struct bridge *b, const struct plan *p, char **err)
{
	uint16_t fwd[64];
	size_t nfwd = 0, i;
	bool allow = false;

	memset(b, 0, sizeof(*b));
	b->ctl = b->helper_pidfd = -1;
	if (p->default_net != EFFECT_DENY)
		return 0;
	for (i = 0; i < p->nnet; i++)
		allow = allow || (p->net[i].effect == EFFECT_ALLOW &&
				  p->net[i].landing == LANDING_PROXY);
	if (!allow)
		return 0;
	if (judge_from_plan(&b->judge, p, err) != 0)
		return -1;
	b->active = true;
	/* loopback rows naming a port the table allows: forwarded */
	for (i = 0; i < b->judge.nrows && nfwd < array_size(fwd); i++) {
		const struct net_target *t = &b->judge.rows[i].target;
		struct net_target q;
		struct verdict v;
		char hp[32], *qerr = NULL;
		size_t k;

		if (t->kind != HOST_LOOPBACK || t->any_port)
			continue;
		for (k = 0; k < nfwd && fwd[k] != t->port; k++)
			;
		if (k < nfwd)
			continue;
		snprintf(hp, sizeof(hp), "localhost:%u", t->port);
		if (net_query_parse(hp, &q, &qerr) != 0) {
			free(qerr);
			continue;
		}
		judge_query(&b->judge, &q, &v);
		net_target_free(&q);
		if (v.allow)
			fwd[nfwd++] = t->port;
	}
	b->ports[b->nports] = free_port(b, fwd, nfwd, BRIDGE_HTTP_PORT);
	b->nports++;
	b->ports[b->nports] = free_port(b, fwd, nfwd, BRIDGE_SOCKS_PORT);
	b->nports++;
	for (i = 0; i < nfwd; i++) {
		if (fwd[i] < 1024)
			vx_log("note: loopback port %u is below 1024, where "
			       "the sandbox (no capabilities) may not listen: "
			       "it is forwarded only if the kernel allows it, "
			       "and always served through the proxy", fwd[i]);
		if (b->nports == BRIDGE_MAX_PORTS) {
			vx_log("note: loopback port %u is served through the "
			       "proxy only (at most %d forwards)",
			       fwd[i], BRIDGE_MAX_PORTS - 2);
			continue;
		}
		b->ports[b->nports++] = fwd[i];
	}
	return 0;
}

/* A listening socket on 127.0.0.1 at a port the kernel picks. */
static int listen_host_loopback(uint16_t *port, char **err)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	int fd;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(fd, SOMAXCONN) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
		*err = xasprintf("cannot listen on 127.0.0.1 for the egress "
				 "proxy: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*port = ntohs(a.sin_port);
	return fd;
}

int bridge_listen_host(struct bridge *b, int fds[2], char **err)
{
	size_t i;

	fds[0] = fds[1] = -1;
	if (!b->active)
		return 0;
	for (i = 0; i < 2; i++) {
		fds[i] = listen_host_loopback(&b->ports[i], err);
		if (fds[i] < 0) {
			if (i)
				close(fds[0]);
			fds[0] = -1;
			return -1;
		}
	}
	/* No forwards: the child reaches loopback ports itself. */
	b->nports = 2;
	return 0;
}

_Static_assert(BRIDGE_MAX_PORTS <= PCONFIG_MAX_PORTS,
	       "vbox-proxy serves every port the bridge may choose");

/* The configuration in a sealed memory file: fd, or -1 with *@err. */
static int config_file(const struct bridge *b, const struct plan *p,
		       char **err)
{
	struct pconfig c;
	struct wbuf w = { 0 };
	size_t off = 0;
	ssize_t n;
	int fd;

	memset(&c, 0, sizeof(c));
	c.log = vx_log_enabled;
	c.t0_ms = vx_log_origin();
	memcpy(c.token, b->token, sizeof(c.token));
	memcpy(c.ports, b->ports, b->nports * sizeof(*b->ports));
	c.nports = b->nports;
	c.upstream = p->upstream_proxy;
	pconfig_encode(&w, &c, p);
	fd = memfd_create("vbox-proxy-config", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0) {
		*err = xasprintf("cannot make the proxy's configuration "
				 "file: %s", strerror(errno));
		wbuf_release(&w);
		return -1;
	}
	while (off < w.len) {
		n = write(fd, w.p + off, w.len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	wbuf_release(&w);
	if (off < w.len || fcntl(fd, F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK |
				 F_SEAL_GROW | F_SEAL_WRITE) != 0) {
		*err = xasprintf("cannot write the proxy's configuration: %s",
				 strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int bridge_env(struct bridge *b, const struct env_list *env, char **err)
{
	char *http, *socks;
	int rc;

	if (!b->active)
		return 0;
	rc = proxy_token_make(b->token[PROXY_HTTP]);
	if (!rc)
		rc = proxy_token_make(b->token[PROXY_SOCKS5]);
	if (rc) {
		*err = xasprintf("random bytes for the proxy's tokens: %s",
				 strerror(-rc));
		return -1;
	}
	http = xasprintf("http://vbox:%s@127.0.0.1:%u", b->token[PROXY_HTTP],
			 b->ports[0]);
	socks = xasprintf("socks5h://vbox:%s@127.0.0.1:%u",
			  b->token[PROXY_SOCKS5], b->ports[1]);
	/* set last: nothing the caller gave can override them */
	b->envp = env_with_proxy(env, http, socks);
	free(http);
	free(socks);
	return 0;
}

/*
 * The variables vbox-proxy is given, from vbox-exec's environment: its
 * resolvers' own (glibc's getaddrinfo() for the upstream proxy and
 * c-ares read them, as every program of the user does, resolv.conf(5)),
 * and in a sanitizer build the sanitizers' options.  Nothing else: the
 * proxy parses what the sandbox sends, and vbox-exec's environment may
 * hold the user's keys and tokens.
 */
static const char *const proxy_env_names[] = {
	"RES_OPTIONS", "LOCALDOMAIN",
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_UNDEFINED__)
	"ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS",
#endif
};

/* vbox-proxy's environment: a NULL-terminated copy of those that are set. */
static char **proxy_env(void)
{
	char **envp = xcalloc(array_size(proxy_env_names) + 1, sizeof(*envp));
	const char *v;
	size_t i, n = 0;

	for (i = 0; i < array_size(proxy_env_names); i++) {
		v = getenv(proxy_env_names[i]);
		if (v)
			envp[n++] = xasprintf("%s=%s", proxy_env_names[i], v);
	}
	return envp;
}

int bridge_start(struct bridge *b, struct supervisor *sv,
		 const struct plan *p, char **err)
{
	static char name[] = "vbox-proxy";
	char *argv[] = { name, NULL };
	int pass[2] = { -1, -1 }, pair[2];
	struct proc_spawn sp;
	char **envp;
	pid_t pid;

	if (!b->active)
		return 0;
	if (!b->envp)
		BUG("bridge_start before bridge_env");
	pass[1] = config_file(b, p, err);
	if (pass[1] < 0)
		return -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) < 0) {
		*err = xasprintf("cannot make the proxy's control socket: %s",
				 strerror(errno));
		close(pass[1]);
		return -1;
	}
	b->ctl = pair[0];
	pass[0] = pair[1];
	sp.path = proxy_path();
	sp.argv = argv;
	/* its own, not vbox-exec's: see proxy_env_names */
	envp = proxy_env();
	sp.envp = envp;
	sp.pass = pass;
	sp.npass = 2;
	pid = supervisor_spawn_helper(sv, &sp, err);
	env_vector_free(envp);
	close(pass[0]);
	close(pass[1]);
	if (pid < 0)
		return -1;
	b->helper = pid;
	b->helper_pidfd = proc_pidfd_open(pid);
	vx_log("egress proxy: HTTP on 127.0.0.1:%u, SOCKS5 on 127.0.0.1:%u in "
	       "the sandbox, %zu loopback forward%s; served by %s (host pid "
	       "%ld)", b->ports[0], b->ports[1], b->nports - 2,
	       b->nports == 3 ? "" : "s", sp.path, (long)pid);
	return 0;
}

/*
 * End vbox-proxy (SIGKILL: it has nothing left to do, or it has ended)
 * and reap it; how it ended goes to @buf: "exit status 1", "signal 9".
 * Through its pidfd: the subreaper's final sweep may have reaped it, and
 * its pid may then be another process's.
 */
static void helper_end(struct bridge *b, char *buf, size_t size)
{
	int status;

	snprintf(buf, size, "not started");
	if (b->helper <= 0)
		return;
	proc_signal(b->helper_pidfd, b->helper, SIGKILL);
	if (proc_reap(b->helper_pidfd, b->helper, &status) < 0)
		snprintf(buf, size, "already reaped");
	else if (WIFSIGNALED(status))
		snprintf(buf, size, "signal %d", WTERMSIG(status));
	else
		snprintf(buf, size, "exit status %d", WEXITSTATUS(status));
	if (b->helper_pidfd >= 0)
		close(b->helper_pidfd);
	b->helper_pidfd = -1;
	b->helper = 0;
}

/*
 * A "D" message of @n bytes from vbox-proxy (pconfig.h): one line on
 * stderr per distinct request and decision, at most BRIDGE_NOTICES_MAX
 * of them (then counted), none with --quiet.  The texts were checked
 * printable and bounded by the decoder.
 */
static void notice(struct bridge *b, const uint8_t *msg, size_t n)
{
	char what[PROXY_DENY_TEXT_MAX + 1], why[PROXY_DENY_TEXT_MAX + 1];
	uint32_t lost;
	char *line;
	size_t i;

	if (pconfig_denial_decode(msg, n, &lost, what, why) < 0) {
		vx_log("egress proxy: a control message of %zu bytes it "
		       "does not send: ignored", n);
		return;
	}
	if (vx_quiet)
		return;
	b->notice_more += lost;
	line = xasprintf("vbox: denied %s (%s)", what, why);
	for (i = 0; i < b->nnotice; i++) {
		if (!strcmp(b->notice[i], line)) {
			free(line);
			return;
		}
	}
	if (b->nnotice == BRIDGE_NOTICES_MAX) {
		b->notice_more++;
		free(line);
		return;
	}
	b->notice[b->nnotice++] = line;
	fprintf(stderr, "%s\n", line);
	fflush(stderr);
}

/*
 * recv_notice - one message from vbox-proxy, without waiting: 1 when
 * one was taken, 0 at the end, -1 (errno) when none is there or the
 * socket failed.
 */
static int recv_notice(struct bridge *b)
{
	uint8_t msg[PCONFIG_MAX_MSG + 1];
	ssize_t n;

	n = recv(b->ctl, msg, sizeof(msg), MSG_DONTWAIT);
	if (n <= 0)
		return n == 0 ? 0 : -1;
	notice(b, msg, (size_t)n);
	return 1;
}

/* vbox-proxy's socket: once ready, denial notices, and its end. */
static void on_helper(struct loop *lp, struct loop_watch *w, uint32_t ev)
{
	struct bridge *b = w->ctx;
	char how[64];
	int n;

	(void)ev;
	n = recv_notice(b);
	if (n > 0 || (n < 0 && (errno == EINTR || errno == EAGAIN)))
		return;
	loop_watch_remove(lp, w);
	b->lp = NULL;
	close(b->ctl);
	b->ctl = -1;
	helper_end(b, how, sizeof(how));
	vx_error("the egress proxy (vbox-proxy) ended (%s) while the "
		 "command ran: the command's connections through it fail "
		 "from now on", how);
}

int bridge_ready(struct bridge *b, struct supervisor *sv, char **err)
{
	struct pollfd pfd = { .fd = b->ctl, .events = POLLIN };
	double deadline = proc_now_ms() + BRIDGE_READY_MS, left;
	char msg[PCONFIG_MAX_MSG + 1], how[64];
	ssize_t n = -1;
	int rc;

	if (!b->active)
		return 0;
	for (;;) {
		left = deadline - proc_now_ms();
		rc = poll(&pfd, 1, left > 0 ? (int)left + 1 : 0);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc <= 0)
			break;
		n = recv(b->ctl, msg, sizeof(msg) - 1, 0);
		if (n < 0 && errno == EINTR)
			continue;
		break;
	}
	if (n == 1 && msg[0] == 'R') {
		b->ready = true;
		b->lp = supervisor_loop(sv);
		loop_watch_init(&b->watch, b->ctl, on_helper, b);
		if (loop_watch_add(b->lp, &b->watch, LOOP_IN) < 0)
			b->lp = NULL;
		vx_log("egress proxy: vbox-proxy serves");
		return 0;
	}
	if (n > 1 && msg[0] == 'E') {
		msg[n] = '\0';
		*err = xasprintf("the egress proxy cannot start: %s", msg + 1);
		return -1;
	}
	if (n < 0 && rc <= 0) {
		*err = xasprintf("the egress proxy (%s) did not start within "
				 "%d s", proxy_path(), BRIDGE_READY_MS / 1000);
		return -1;
	}
	helper_end(b, how, sizeof(how));
	*err = xasprintf("the egress proxy (%s) ended before it served (%s)",
			 proxy_path(), how);
	return -1;
}

void bridge_take_listener(struct bridge *b, int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	uint16_t port;

	if (!b->ready || b->ctl < 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &len) < 0 ||
	    (ss.ss_family != AF_INET && ss.ss_family != AF_INET6)) {
		close(fd);
		return;
	}
	port = ntohs(ss.ss_family == AF_INET ?
			     ((struct sockaddr_in *)&ss)->sin_port :
			     ((struct sockaddr_in6 *)&ss)->sin6_port);
	if (port_taken(b, port) &&
	    pconfig_send_listener(b->ctl, port, fd) < 0)
		vx_error("cannot hand the proxy port %u to vbox-proxy: %s",
			 port, strerror(errno));
	/* vbox-proxy has its own copy: the sandbox's port lives there */
	close(fd);
}

void bridge_release(struct bridge *b)
{
	char how[64];
	size_t i;

	if (b->lp)
		loop_watch_remove(b->lp, &b->watch);
	/* the notices of the last denials, sent before their 403s */
	for (i = 0; b->ready && b->ctl >= 0 && i < 100000; i++) {
		int rc = recv_notice(b);

		if (rc == 0 || (rc < 0 && errno != EINTR))
			break;
	}
	if (b->notice_more)
		fprintf(stderr, "vbox: %llu more denials not shown (--log "
			"shows each)\n", (unsigned long long)b->notice_more);
	for (i = 0; i < b->nnotice; i++)
		free(b->notice[i]);
	/*
	 * The sandbox is gone: nobody is left to serve.  Killed before its
	 * socket closes, vbox-proxy never runs its exit path confined (a
	 * sanitizer's leak check there needs ptrace, which it has given up;
	 * its leaks are checked unconfined by tests/proxy/test_proxy).
	 */
	if (b->helper > 0)
		proc_signal(b->helper_pidfd, b->helper, SIGKILL);
	if (b->ctl >= 0)
		close(b->ctl);
	helper_end(b, how, sizeof(how));
	if (b->active)
		judge_release(&b->judge);
	env_vector_free(b->envp);
	memset(b, 0, sizeof(*b));
	b->ctl = b->helper_pidfd = -1;
}
