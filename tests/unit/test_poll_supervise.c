/* SPDX-License-Identifier: MIT */
/*
 * test_poll_supervise.c - darwin's supervisor (runtime/darwin/
 * poll_supervise.c) built and run on Linux, on the poll backend of the
 * loop as on darwin, with real processes: the exit status, a timeout
 * ending the tree, a signal received forwarded to the command, a watched
 * fd handed to its hook, and another user of the same loop (as the
 * egress proxy is) served while the command runs.
 */
#include <vbox.h>

#include <errno.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include "loop.h"
#include "poll_supervise.h"
#include "tap.h"

struct fake {
	pid_t runner;
	int fd;
	bool started;
	int forwarded, terminated, killed, settled;
};

static bool f_readable(void *ctx, int fd)
{
	struct fake *f = ctx;
	char b = 0;

	if (recv(fd, &b, 1, MSG_DONTWAIT) == 1 && b == 'S')
		f->started = true;
	close(fd);
	f->fd = -1;
	return false;
}

static bool f_forward(void *ctx, int sig)
{
	struct fake *f = ctx;

	f->forwarded++;
	kill(f->runner, sig);
	return true;
}

static void f_terminate(void *ctx)
{
	struct fake *f = ctx;

	f->terminated++;
	killpg(f->runner, SIGTERM);
}

static void f_kill(void *ctx)
{
	struct fake *f = ctx;

	f->killed++;
	killpg(f->runner, SIGKILL);
}

static void f_settle(void *ctx)
{
	((struct fake *)ctx)->settled++;
}

/* run - supervise "sh -c SCRIPT" on @lp; its fd 3 is a socket watched */
static int run(struct loop *lp, const char *script, double timeout_ms,
	       struct fake *f, struct proc_result *res)
{
	char sh[] = "sh", dash_c[] = "-c", path[] = "PATH=/usr/bin:/bin";
	char *argv[] = { sh, dash_c, (char *)script, NULL };
	char *envp[] = { path, NULL };
	struct proc_spawn sp = { .path = "/bin/sh", .argv = argv,
				 .envp = envp };
	struct proc_ops ops;
	char *err = NULL;
	int sv[2], rc;
	size_t i;

	memset(f, 0, sizeof(*f));
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		BUG("socketpair: %s", strerror(errno));
	sp.pass = &sv[1];
	sp.npass = 1;
	f->runner = proc_start(&sp, &err);
	if (f->runner < 0)
		BUG("proc_start: %s", err);
	close(sv[1]);
	f->fd = sv[0];
	memset(&ops, 0, sizeof(ops));
	ops.ctx = f;
	for (i = 0; i < PROC_MAX_WATCH_FDS; i++)
		ops.watch[i] = -1;
	ops.watch[0] = sv[0];
	ops.readable = f_readable;
	ops.forward = f_forward;
	ops.terminate = f_terminate;
	ops.kill = f_kill;
	ops.settle = f_settle;
	rc = proc_supervise(lp, f->runner, timeout_ms, &ops, res);
	if (f->fd >= 0)
		close(f->fd);
	return rc;
}

static int ticks;

static void on_tick(struct loop *lp, struct loop_timer *t)
{
	ticks++;
	loop_timer_arm(lp, t, loop_now_ms() + 20);
}

static void on_raise(struct loop *lp, struct loop_timer *t)
{
	(void)lp;
	(void)t;
	raise(SIGTERM);
}

int main(void)
{
	struct loop lp;
	struct loop_timer tick, sig;
	struct proc_result res;
	struct fake f;

	is_str(loop_backend(), "poll", "the loop backend is poll");
	is_int(proc_signals_install(), 0, "signal handlers installed");
	is_int(loop_init(&lp), 0, "loop_init");
	loop_timer_init(&tick, on_tick, NULL);
	loop_timer_init(&sig, on_raise, NULL);

	/* the status, the watched fd, another user of the loop */
	loop_timer_arm(&lp, &tick, loop_now_ms() + 20);
	is_int(run(&lp, "printf S >&3; sleep 0.3; exit 3", 0, &f, &res), 0,
	       "proc_supervise");
	ok(f.started, "the watched fd's byte reached its hook");
	is_int(proc_exit_status(&res), 3, "the command's exit status");
	ok(!res.timed_out && f.terminated == 0 && f.settled == 1,
	   "no timeout; settled once");
	ok(ticks >= 5, "a timer of another user ran meanwhile (%d ticks)",
	   ticks);
	loop_timer_cancel(&lp, &tick);

	/* the timeout ends the tree */
	is_int(run(&lp, "sleep 30", 200, &f, &res), 0, "proc_supervise");
	ok(res.timed_out && f.terminated == 1, "the timeout asked the tree "
					       "to end");
	is_int(proc_exit_status(&res), EXIT_TIMEOUT, "exit status 124");
	ok(res.elapsed_ms < 5000, "within the grace (%.0f ms)",
	   res.elapsed_ms);

	/* a signal vbox-exec receives goes to the command */
	loop_timer_arm(&lp, &sig, loop_now_ms() + 200);
	is_int(run(&lp, "trap 'exit 7' TERM; printf S >&3; "
			"while :; do sleep 0.05; done",
		   10000, &f, &res),
	       0, "proc_supervise");
	ok(f.forwarded >= 1, "SIGTERM was forwarded");
	is_int(proc_exit_status(&res), 7, "the command's trap ran");
	is_int((int)lp.nwatches, 0, "the supervisor left no watch behind");
	loop_release(&lp);
	return done_testing();
}
