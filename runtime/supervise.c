/* SPDX-License-Identifier: MIT */
/*
 * supervise.c - signals, the runner's end and the timeout on the one
 * event loop (supervise.h).
 */
#include <vbox.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launch.h"
#include "supervise.h"

/* The signals vbox-exec passes on to the command (doc/launcher.md). */
static const int forwarded[SV_NFORWARD] = { SIGINT, SIGTERM, SIGHUP,
					    SIGQUIT, SIGTSTP, SIGCONT };

static void pending_add(struct supervisor *sv, int sig)
{
	size_t i;

	for (i = 0; i < sv->npending; i++)
		if (sv->pending[i] == sig)
			return;
	if (sv->npending < SV_NFORWARD)
		sv->pending[sv->npending++] = sig;
}

void supervisor_flush_signals(struct supervisor *sv)
{
	while (sv->npending) {
		int sig = sv->pending[0];

		if (!sv->ops->forward(sv->ctx, sig))
			return;
		memmove(sv->pending, sv->pending + 1,
			--sv->npending * sizeof(*sv->pending));
		/*
		 * Job control: the command's group is stopped; vbox-exec
		 * stops too, so that the shell sees its job stopped.  Its
		 * SIGCONT (fg, bg) comes here and goes on to the group.
		 */
		if (sig == SIGTSTP)
			raise(SIGSTOP);
	}
}

/* Reap the runner if it has ended. */
static void try_reap(struct supervisor *sv)
{
	pid_t got;
	int status;

	if (sv->reaped)
		return;
	do
		got = waitpid(sv->runner, &status, WNOHANG);
	while (got < 0 && errno == EINTR);
	if (got == 0)
		return;
	if (got < 0) {
		sv->error = -errno;
		loop_stop(&sv->loop);
		return;
	}
	sv->reaped = true;
	sv->status = status;
	loop_stop(&sv->loop);
}

static void on_signal(struct loop *lp, struct loop_watch *w, uint32_t events)
{
	struct supervisor *sv = w->ctx;
	struct signalfd_siginfo si;
	ssize_t n;

	(void)lp;
	(void)events;
	for (;;) {
		n = read(sv->sigfd, &si, sizeof(si));
		if (n != (ssize_t)sizeof(si))
			break;
		if (si.ssi_signo == SIGCHLD)
			try_reap(sv);
		else
			pending_add(sv, (int)si.ssi_signo);
	}
	supervisor_flush_signals(sv);
}

static void on_runner(struct loop *lp, struct loop_watch *w, uint32_t events)
{
	(void)lp;
	(void)events;
	try_reap(w->ctx);
}

static void on_grace(struct loop *lp, struct loop_timer *t)
{
	struct supervisor *sv = t->ctx;

	(void)lp;
	sv->ops->kill(sv->ctx);
	kill(sv->runner, SIGKILL);
}

static void on_deadline(struct loop *lp, struct loop_timer *t)
{
	struct supervisor *sv = t->ctx;

	sv->timed_out = true;
	sv->ops->terminate(sv->ctx);
	loop_timer_arm(lp, &sv->grace, loop_now_ms() + SV_KILL_GRACE_MS);
}

int supervisor_init(struct supervisor *sv, const struct supervisor_ops *ops,
		    void *ctx, char **err)
{
	struct sigaction old;
	size_t i;
	int ret;

	memset(sv, 0, sizeof(*sv));
	sv->ops = ops;
	sv->ctx = ctx;
	sv->t_launch = loop_now_ms();
	sv->sigfd = -1;
	sv->runner_pidfd = -1;
	loop_timer_init(&sv->deadline, on_deadline, sv);
	loop_timer_init(&sv->grace, on_grace, sv);
	ret = loop_init(&sv->loop);
	if (ret < 0) {
		*err = xasprintf("cannot make the event loop: %s",
				 strerror(-ret));
		return -1;
	}
	sigemptyset(&sv->mask);
	for (i = 0; i < array_size(forwarded); i++) {
		/*
		 * A signal ignored at start (nohup, a background job) stays
		 * ignored, for vbox-exec and, inherited, for the command.
		 */
		if (sigaction(forwarded[i], NULL, &old) == 0 &&
		    old.sa_handler == SIG_IGN)
			continue;
		sigaddset(&sv->mask, forwarded[i]);
	}
	sigaddset(&sv->mask, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &sv->mask, &sv->old_mask) < 0)
		goto fail;
	sv->sigfd = signalfd(-1, &sv->mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sv->sigfd < 0) {
		sigprocmask(SIG_SETMASK, &sv->old_mask, NULL);
		goto fail;
	}
	loop_watch_init(&sv->sig_watch, sv->sigfd, on_signal, sv);
	ret = loop_watch_add(&sv->loop, &sv->sig_watch, EPOLLIN);
	if (ret < 0) {
		errno = -ret;
		goto fail_fd;
	}
	return 0;
fail_fd:
	close(sv->sigfd);
	sv->sigfd = -1;
	sigprocmask(SIG_SETMASK, &sv->old_mask, NULL);
fail:
	*err = xasprintf("cannot route signals: %s", strerror(errno));
	loop_release(&sv->loop);
	return -1;
}

int supervisor_stop_signal(struct supervisor *sv)
{
	struct signalfd_siginfo si;
	int sig;

	if (sv->stop_sig)
		return sv->stop_sig;
	while (read(sv->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		sig = (int)si.ssi_signo;
		if (sig == SIGCHLD) {
			try_reap(sv);
		} else if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP ||
			   sig == SIGQUIT) {
			sv->stop_sig = sig;
			return sig;
		} else {
			pending_add(sv, sig);
		}
	}
	return 0;
}

double supervisor_deadline(const struct supervisor *sv, double timeout_ms)
{
	return timeout_ms > 0 ? sv->t_launch + timeout_ms : 0;
}

struct loop *supervisor_loop(struct supervisor *sv)
{
	return &sv->loop;
}

pid_t supervisor_spawn(struct supervisor *sv, const struct proc_spawn *sp,
		       char **err)
{
	pid_t pid;

	/* A runner started again keeps the launch's first start time. */
	if (!sv->t_start)
		sv->t_start = loop_now_ms();
	pid = proc_start(sp, &sv->old_mask, err);
	if (pid < 0)
		return -1;
	sv->runner = pid;
	/* SIGCHLD covers a kernel without pidfds. */
	sv->runner_pidfd = proc_pidfd_open(pid);
	if (sv->runner_pidfd >= 0) {
		loop_watch_init(&sv->runner_watch, sv->runner_pidfd, on_runner,
				sv);
		if (loop_watch_add(&sv->loop, &sv->runner_watch, EPOLLIN) < 0) {
			close(sv->runner_pidfd);
			sv->runner_pidfd = -1;
		}
	}
	return pid;
}

void supervisor_forget_runner(struct supervisor *sv)
{
	if (sv->runner_pidfd >= 0) {
		loop_watch_remove(&sv->loop, &sv->runner_watch);
		close(sv->runner_pidfd);
		sv->runner_pidfd = -1;
	}
	sv->runner = 0;
}

pid_t supervisor_spawn_helper(struct supervisor *sv,
			      const struct proc_spawn *sp, char **err)
{
	return proc_start(sp, &sv->old_mask, err);
}

int supervisor_run(struct supervisor *sv, double timeout_ms,
		   struct proc_result *res)
{
	int ret = 0, status = 0;

	memset(res, 0, sizeof(*res));
	if (timeout_ms > 0)
		loop_timer_arm(&sv->loop, &sv->deadline,
			       supervisor_deadline(sv, timeout_ms));
	/* It may have ended before its watch was added. */
	try_reap(sv);
	while (!sv->reaped && !sv->error) {
		ret = loop_run(&sv->loop);
		if (ret < 0) {
			sv->error = ret;
			break;
		}
		try_reap(sv);
	}
	if (!sv->reaped) {
		/* Waiting failed: end everything, then reap blocking. */
		ret = -1;
		errno = -sv->error;
		sv->ops->kill(sv->ctx);
		kill(sv->runner, SIGKILL);
		while (waitpid(sv->runner, &status, 0) < 0 && errno == EINTR)
			;
		sv->status = status;
		sv->reaped = true;
	}
	loop_timer_cancel(&sv->loop, &sv->deadline);
	loop_timer_cancel(&sv->loop, &sv->grace);
	sv->ops->settle(sv->ctx);
	res->status = sv->status;
	res->timed_out = sv->timed_out;
	res->elapsed_ms = loop_now_ms() - sv->t_start;
	return ret;
}

void supervisor_release(struct supervisor *sv)
{
	if (sv->runner_pidfd >= 0) {
		loop_watch_remove(&sv->loop, &sv->runner_watch);
		close(sv->runner_pidfd);
		sv->runner_pidfd = -1;
	}
	if (sv->sigfd >= 0) {
		loop_watch_remove(&sv->loop, &sv->sig_watch);
		close(sv->sigfd);
		sv->sigfd = -1;
		sigprocmask(SIG_SETMASK, &sv->old_mask, NULL);
	}
	loop_release(&sv->loop);
}
