/* SPDX-License-Identifier: MIT */
/*
 * launch.c (darwin) - run the command under Seatbelt (launch.h).
 *
 * NOT TESTED: this file has never been compiled or run.  macOS is not
 * available where vbox is developed and tested; the file is kept small,
 * is compiled only on darwin, and must be checked on a Mac before it is
 * relied upon (doc/darwin.md "What only a Mac can confirm").  What it
 * calls is tested on Linux: the proxy core built as on darwin
 * (tests/proxy/test_proxy_poll: the poll loop, the buffer relay, compat.h) and
 * the loop's poll backend (tests/unit/test_loop_poll).
 *
 *   /usr/bin/sandbox-exec -p PROFILE [-D VBOX_PROXY_HTTP_PORT=N \
 *       -D VBOX_PROXY_SOCKS_PORT=N] \
 *       VBOX-EXEC --internal-shim --status-fd=3 [--pwd=...] -- COMMAND...
 *
 * sandbox-exec applies the SBPL profile (the plan's artifact) and execs
 * the shim, which execs the command: all three are one process, so the
 * runner's pid is the command's pid and its session (proc_start() makes
 * a new one) is the whole tree.  Signals go to the command, the timeout
 * to its session.
 *
 * The egress proxy (doc/proxy.md "macOS"): when the plan has proxy rows
 * (the profile then has reserved entries), the proxy core listens on the
 * host's 127.0.0.1 at ports the kernel picks; they reach the profile as
 * its two parameters, and the child's environment as the same variables
 * Linux sets.  The sandbox shares the host's network, so there is no
 * bridge: the profile lets the command connect to those two ports only,
 * and the tokens keep every other local process out.  The proxy runs on
 * the supervisor's loop.
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <mach-o/dyld.h>
#include <signal.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <netinet/in.h>

#include "landing.h"
#include "env.h"
#include "launch.h"
#include "loop.h"
#include "plan.h"
#include "planjudge.h"
#include "poll_supervise.h"
#include "proxy.h"

#define SANDBOX_EXEC "/usr/bin/sandbox-exec"

/**
 * struct dproxy - the egress proxy of a darwin launch
 * @active: the plan needs it (it has reserved entries)
 * @started: @px runs on the loop
 * @judge: the plan's network rows
 * @px: the proxy
 * @port: the HTTP and SOCKS5 ports on the host's 127.0.0.1
 * @envp: the child's environment with the proxy variables, set last
 */
struct dproxy {
	bool active;
	bool started;
	struct judge judge;
	struct proxy px;
	uint16_t port[2];
	char **envp;
};

int launch_platform(void)
{
	return TARGET_DARWIN;
}

/**
 * struct dtree - the running command
 * @runner: sandbox-exec's pid, later the command's
 * @status_fd: the launcher's end of the status socket, -1 once closed
 * @started: the shim reported
 */
struct dtree {
	pid_t runner;
	int status_fd;
	bool started;
};

static bool d_readable(void *ctx, int fd)
{
	struct dtree *t = ctx;
	char byte = 0;
	ssize_t n = recv(fd, &byte, 1, MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return true;
	if (n == 1 && byte == 'S')
		t->started = true;
	close(fd);
	t->status_fd = -1;
	return false;
}

static bool d_forward(void *ctx, int sig)
{
	struct dtree *t = ctx;

	if (!t->started)
		return false;
	/*
	 * The runner leads a session and its group: a terminal's SIGINT and
	 * SIGQUIT go to the whole group, as a terminal would send them
	 * (a script and its current child, a pipeline); others to the
	 * command alone.
	 */
	if (sig == SIGINT || sig == SIGQUIT)
		killpg(t->runner, sig);
	else
		kill(t->runner, sig);
	return true;
}

static void d_terminate(void *ctx)
{
	killpg(((struct dtree *)ctx)->runner, SIGTERM);
}

static void d_kill(void *ctx)
{
	killpg(((struct dtree *)ctx)->runner, SIGKILL);
}

/* What is left of the session after the command ended goes too. */
static void d_settle(void *ctx)
{
	struct dtree *t = ctx;

	killpg(t->runner, SIGKILL);
	if (t->status_fd >= 0)
		close(t->status_fd);
	t->status_fd = -1;
}

static char *self_path(void)
{
	char buf[4096];
	uint32_t size = sizeof(buf);

	if (_NSGetExecutablePath(buf, &size) != 0)
		return NULL;
	return realpath(buf, NULL);
}

static int check_plan(const struct plan *plan)
{
	size_t i;

	for (i = 0; i < plan->nfs + plan->nnet; i++) {
		const struct plan_row *r = i < plan->nfs ? &plan->fs[i] :
					   &plan->net[i - plan->nfs];

		if (r->landing == LANDING_KERNEL ||
		    r->landing == LANDING_ABSORBED)
			continue;
		/* network rows the egress proxy judges (dproxy_start()) */
		if (i >= plan->nfs && r->landing == LANDING_PROXY)
			continue;
		vx_error("%s: row %u lands in '%s', which this vbox-exec "
			 "cannot provide on darwin yet", r->source, r->index,
			 landing_kind_name(r->landing));
		return -1;
	}
	return 0;
}

static void log_line(void *ctx, const char *line)
{
	(void)ctx;
	vx_log("%s", line);
}

/* listen_lo - a listening socket on 127.0.0.1 at a port the kernel
 * picks; the fd (*@port set) or -1 with errno */
static int listen_lo(uint16_t *port)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int fd = socket(AF_INET, SOCK_STREAM, 0), saved;

	if (fd < 0)
		return -1;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0 ||
	    listen(fd, SOMAXCONN) != 0 ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) != 0) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	*port = ntohs(sin.sin_port);
	return fd;
}

/*
 * dproxy_start - when @p has proxy rows, start the proxy on @lp and make
 * the child's environment from @env.  Returns 0, or -1 with *@err.
 */
static int dproxy_start(struct dproxy *d, struct loop *lp,
			const struct plan *p, const struct env_list *env,
			char **err)
{
	static const enum proxy_proto protos[2] = { PROXY_HTTP, PROXY_SOCKS5 };
	char *http, *socks;
	size_t i;
	int fd, rc;

	memset(d, 0, sizeof(*d));
	if (!p->nreserved)
		return 0;
	if (judge_from_plan(&d->judge, p, err) != 0)
		return -1;
	d->active = true;
	if (proxy_init(&d->px, lp, &d->judge, p->upstream_proxy, err) != 0)
		return -1;
	d->started = true;
	d->px.log = vx_log_enabled ? log_line : NULL;
	for (i = 0; i < 2; i++) {
		fd = listen_lo(&d->port[i]);
		if (fd < 0) {
			*err = xasprintf("egress proxy: cannot listen on "
					 "127.0.0.1: %s", strerror(errno));
			return -1;
		}
		rc = proxy_listen(&d->px, fd, protos[i]);
		if (rc < 0) {
			*err = xasprintf("egress proxy: %s", strerror(-rc));
			return -1;
		}
	}
	http = xasprintf("http://vbox:%s@127.0.0.1:%u",
			 d->px.token[PROXY_HTTP], d->port[0]);
	socks = xasprintf("socks5h://vbox:%s@127.0.0.1:%u",
			  d->px.token[PROXY_SOCKS5], d->port[1]);
	/* set last: nothing the caller gave can override them */
	d->envp = env_with_proxy(env, http, socks);
	vx_log("egress proxy: HTTP on 127.0.0.1:%u, SOCKS5 on 127.0.0.1:%u",
	       d->port[0], d->port[1]);
	free(http);
	free(socks);
	return 0;
}

static void dproxy_release(struct dproxy *d)
{
	if (d->started)
		proxy_release(&d->px);
	if (d->active)
		judge_release(&d->judge);
	env_vector_free(d->envp);
	memset(d, 0, sizeof(*d));
}

int launch_run(const struct launch_request *req)
{
	struct proc_result res;
	struct proc_spawn sp;
	struct proc_ops ops;
	struct dtree t = { .status_fd = -1 };
	struct dproxy dp;
	struct loop lp;
	char **argv, *self, *profile, *err = NULL;
	int sock[2] = { -1, -1 }, status = EXIT_LAUNCHER, rc;
	size_t n = 0, k = 0, i;

	memset(&dp, 0, sizeof(dp));
	if (check_plan(req->plan) < 0)
		return EXIT_LAUNCHER;
	if (access(SANDBOX_EXEC, X_OK) < 0) {
		vx_error("%s: %s", SANDBOX_EXEC, strerror(errno));
		return EXIT_LAUNCHER;
	}
	self = self_path();
	if (!self) {
		vx_error("cannot find vbox-exec's own binary");
		return EXIT_LAUNCHER;
	}
	rc = loop_init(&lp);
	if (rc < 0) {
		vx_error("cannot make the event loop: %s", strerror(-rc));
		free(self);
		return EXIT_LAUNCHER;
	}
	/* the proxy first: its ports are the profile's parameters (a dry
	 * run starts nothing and shows PORT) */
	if (!req->dry_run &&
	    dproxy_start(&dp, &lp, req->plan, req->env, &err) < 0) {
		vx_error("%s", err);
		free(err);
		dproxy_release(&dp);
		loop_release(&lp);
		free(self);
		return EXIT_LAUNCHER;
	}
	profile = xstrndup((const char *)req->plan->artifact,
			   req->plan->artifact_len);
	while (req->command[n])
		n++;
	argv = xcalloc(n + 16, sizeof(*argv));
	argv[k++] = xstrdup(SANDBOX_EXEC);
	argv[k++] = xstrdup("-p");
	argv[k++] = profile;
	if (req->plan->nreserved) {
		/* the names emitters/darwin.c gives the parameters */
		argv[k++] = xstrdup("-D");
		argv[k++] = dp.active ? xasprintf("VBOX_PROXY_HTTP_PORT=%u",
						  dp.port[0]) :
					xstrdup("VBOX_PROXY_HTTP_PORT=PORT");
		argv[k++] = xstrdup("-D");
		argv[k++] = dp.active ? xasprintf("VBOX_PROXY_SOCKS_PORT=%u",
						  dp.port[1]) :
					xstrdup("VBOX_PROXY_SOCKS_PORT=PORT");
	}
	argv[k++] = self;
	argv[k++] = xstrdup("--internal-shim");
	if (!req->dry_run)
		argv[k++] = xstrdup("--status-fd=3");
	if (req->pwd)
		argv[k++] = xasprintf("--pwd=%s", req->pwd);
	else if (req->unset_pwd)
		argv[k++] = xstrdup("--unset-pwd");
	argv[k++] = xstrdup("--");
	for (i = 0; i < n; i++)
		argv[k++] = xstrdup(req->command[i]);

	if (req->dry_run) {
		printf("env -i --");
		for (i = 0; i < req->env->n; i++) {
			char *q = shell_quote(req->env->v[i]);

			printf(" %s", q);
			free(q);
		}
		for (i = 0; i < k; i++) {
			char *q = shell_quote(argv[i]);

			printf(" %s", q);
			free(q);
		}
		printf("\n");
		status = fflush(stdout) == 0 ? 0 : EXIT_LAUNCHER;
		goto out;
	}
	if (proc_signals_install() < 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, sock) < 0 ||
	    fcntl(sock[0], F_SETFD, FD_CLOEXEC) < 0 ||
	    fcntl(sock[1], F_SETFD, FD_CLOEXEC) < 0) {
		vx_error("cannot set up the launch: %s", strerror(errno));
		goto out;
	}
	if (chdir(req->workdir) < 0) {
		vx_error("-C %s: %s", req->workdir, strerror(errno));
		goto out;
	}
	sp.path = SANDBOX_EXEC;
	sp.argv = argv;
	sp.envp = dp.envp ? dp.envp : req->env->v;
	sp.pass = &sock[1];
	sp.npass = 1;
	t.runner = proc_start(&sp, &err);
	if (t.runner < 0) {
		vx_error("%s", err);
		free(err);
		goto out;
	}
	close(sock[1]);
	sock[1] = -1;
	t.status_fd = sock[0];
	sock[0] = -1;
	memset(&ops, 0, sizeof(ops));
	ops.ctx = &t;
	for (i = 0; i < PROC_MAX_WATCH_FDS; i++)
		ops.watch[i] = -1;
	ops.watch[0] = t.status_fd;
	ops.readable = d_readable;
	ops.forward = d_forward;
	ops.terminate = d_terminate;
	ops.kill = d_kill;
	ops.settle = d_settle;
	proc_supervise(&lp, t.runner, req->timeout_ms, &ops, &res);
	if (res.timed_out) {
		vx_timed_out(req->timeout_ms);
		status = EXIT_TIMEOUT;
	} else if (!t.started) {
		vx_error("sandbox-exec failed before the command started; "
			 "the command did not run");
		status = EXIT_LAUNCHER;
	} else {
		status = proc_exit_status(&res);
	}
out:
	for (i = 0; i < 2; i++)
		if (sock[i] >= 0)
			close(sock[i]);
	for (i = 0; i < k; i++)
		free(argv[i]);
	free(argv);
	dproxy_release(&dp);
	loop_release(&lp);
	return status;
}
