/* SPDX-License-Identifier: MIT */
/*
 * launch_darwin.c - run the command under Seatbelt (launch.h).
 *
 * NOT TESTED: macOS is not available where vbox is developed and tested;
 * this file is kept small, is compiled only on darwin, and must be
 * checked on a Mac before it is relied upon (doc/launcher.md).
 *
 *   /usr/bin/sandbox-exec -p PROFILE [-D NAME=VALUE...] \
 *       VBOX-EXEC --internal-shim --status-fd=3 [--pwd=...] -- COMMAND...
 *
 * sandbox-exec applies the SBPL profile (the plan's artifact) and execs
 * the shim, which execs the command: all three are one process, so the
 * runner's pid is the command's pid and its session (proc_start() makes
 * a new one) is the whole tree.  The profile's parameters are the
 * egress proxy's ports; there is no proxy yet, so a plan that needs one
 * is refused.  Signals go to the command, the timeout to its session.
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

#include "emit.h"
#include "env.h"
#include "launch.h"
#include "plan.h"
#include "poll_supervise.h"

#define SANDBOX_EXEC "/usr/bin/sandbox-exec"

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
		vx_error("%s: row %u lands in '%s', which this vbox-exec "
			 "cannot provide on darwin yet", r->source, r->index,
			 landing_kind_name(r->landing));
		return -1;
	}
	if (plan->nreserved) {
		vx_error("the plan needs %zu reserved entries (the egress "
			 "proxy), which this vbox-exec does not run yet",
			 plan->nreserved);
		return -1;
	}
	return 0;
}

int launch_run(const struct launch_request *req)
{
	struct proc_result res;
	struct proc_spawn sp;
	struct proc_ops ops;
	struct dtree t = { .status_fd = -1 };
	char **argv, *self, *profile, *err = NULL;
	int sock[2] = { -1, -1 }, status = EXIT_LAUNCHER;
	size_t n = 0, k = 0, i;

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
	profile = xstrndup((const char *)req->plan->artifact,
			   req->plan->artifact_len);
	while (req->command[n])
		n++;
	argv = xcalloc(n + 12, sizeof(*argv));
	argv[k++] = xstrdup(SANDBOX_EXEC);
	argv[k++] = xstrdup("-p");
	argv[k++] = profile;
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
	sp.envp = req->env->v;
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
	proc_supervise(t.runner, req->timeout_ms, &ops, &res);
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
	return status;
}
