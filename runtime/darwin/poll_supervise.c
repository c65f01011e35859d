/* SPDX-License-Identifier: MIT */
/*
 * poll_supervise.c - start the runner, then supervise it on the shared
 * event loop (runtime/loop.h, the poll backend on darwin) until it is
 * reaped, beside the egress proxy (poll_supervise.h).
 */
#include <vbox.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif

#include "loop.h"
#include "poll_supervise.h"

/* The self-pipe: handlers write one byte per signal, the loop reads. */
static int sig_pipe[2] = { -1, -1 };

/* The signals vbox-exec passes on to the command (doc/launcher.md). */
static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
/* Which of them got a handler (one ignored at start stays ignored). */
static bool handled[array_size(forwarded)];

double proc_now_ms(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		BUG("clock_gettime(CLOCK_MONOTONIC) failed");
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void on_signal(int sig)
{
	int saved = errno;
	unsigned char b = (unsigned char)sig;

	/* A full pipe already holds a wake-up; losing this byte is fine
	 * for SIGCHLD and at worst merges a repeated forwarded signal. */
	if (write(sig_pipe[1], &b, 1) < 0) {
		/* nothing to do: see above */
	}
	errno = saved;
}

static int set_flags(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -1;
	return fcntl(fd, F_SETFD, FD_CLOEXEC);
}

int proc_signals_install(void)
{
	struct sigaction sa;
	size_t i;

	if (pipe(sig_pipe) < 0)
		return -1;
	if (set_flags(sig_pipe[0]) < 0 || set_flags(sig_pipe[1]) < 0)
		return -1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < array_size(forwarded); i++) {
		struct sigaction old;

		/*
		 * A signal ignored at start (nohup, a background job) stays
		 * ignored, for vbox-exec and, inherited, for the command.
		 */
		if (sigaction(forwarded[i], NULL, &old) < 0)
			return -1;
		if (old.sa_handler == SIG_IGN)
			continue;
		if (sigaction(forwarded[i], &sa, NULL) < 0)
			return -1;
		handled[i] = true;
	}
	sa.sa_flags = SA_NOCLDSTOP;
	return sigaction(SIGCHLD, &sa, NULL);
}

/* Close every fd from @from up, in the child after fork(). */
static void close_from(int from)
{
	long max, fd;
#if defined(__linux__) && defined(SYS_close_range)
	if (syscall(SYS_close_range, (unsigned)from, ~0U, 0) == 0)
		return;
#endif
	max = sysconf(_SC_OPEN_MAX);
	/* Bounded by the fd limit; a huge limit only costs time here. */
	if (max < 0 || max > (1L << 20))
		max = 1L << 20;
	for (fd = from; fd < max; fd++)
		close((int)fd);
}

static __noreturn void child_fail(const char *what, const char *path)
{
	char buf[512];
	int n;

	n = snprintf(buf, sizeof(buf), "vbox-exec: %s %s: %s\n", what, path,
		     strerror(errno));
	if (n > 0 && write(2, buf, (size_t)n < sizeof(buf) ? (size_t)n :
			   sizeof(buf) - 1) < 0) {
		/* stderr is gone: the status says enough */
	}
	_exit(EXIT_LAUNCHER);
}

/* In the child: move @sp->pass to 3, 4, ... and close the rest. */
static void child_fds(const struct proc_spawn *sp)
{
	int tmp[PROC_MAX_PASS_FDS];
	int top = 3 + (int)sp->npass;
	size_t i;

	/* First above every target, so no dup2() clobbers a source. */
	for (i = 0; i < sp->npass; i++) {
		tmp[i] = fcntl(sp->pass[i], F_DUPFD_CLOEXEC, top);
		if (tmp[i] < 0)
			child_fail("cannot pass an fd to", sp->path);
	}
	for (i = 0; i < sp->npass; i++)
		if (dup2(tmp[i], 3 + (int)i) < 0)
			child_fail("cannot pass an fd to", sp->path);
	close_from(top);
}

pid_t proc_start(const struct proc_spawn *sp, char **err)
{
	pid_t parent = getpid(), pid;
	sigset_t none;
	size_t i;

	if (sp->npass > PROC_MAX_PASS_FDS)
		BUG("too many fds to pass: %zu", sp->npass);
	pid = fork();
	if (pid < 0) {
		*err = xasprintf("fork: %s", strerror(errno));
		return -1;
	}
	if (pid > 0)
		return pid;

#ifdef __linux__
	/* The runner must not outlive vbox-exec, even killed with -9. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(EXIT_LAUNCHER);
#else
	(void)parent;
#endif
	if (setsid() < 0)
		child_fail("setsid for", sp->path);
	for (i = 0; i < array_size(forwarded); i++)
		if (handled[i])
			signal(forwarded[i], SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	child_fds(sp);
	execve(sp->path, sp->argv, sp->envp);
	child_fail("cannot run", sp->path);
}

/* The pending forwarded signals, in arrival order, merged per signal. */
struct pending {
	int sig[array_size(forwarded)];
	size_t n;
};

static void pending_add(struct pending *p, int sig)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (p->sig[i] == sig)
			return;
	p->sig[p->n++] = sig;
}

static void pending_flush(struct pending *p, struct proc_ops *ops)
{
	size_t i = 0, j;

	while (i < p->n) {
		if (!ops->forward(ops->ctx, p->sig[i]))
			return;
		for (j = i + 1; j < p->n; j++)
			p->sig[j - 1] = p->sig[j];
		p->n--;
	}
}

static bool is_forwarded(int sig)
{
	size_t i;

	for (i = 0; i < array_size(forwarded); i++)
		if (forwarded[i] == sig)
			return true;
	return false;
}

/* Read what the handlers wrote; forwarded signals go to @p. */
static void drain_signals(struct pending *p)
{
	unsigned char buf[64];
	ssize_t n, i;

	for (;;) {
		n = read(sig_pipe[0], buf, sizeof(buf));
		if (n <= 0)
			return;
		for (i = 0; i < n; i++)
			if (is_forwarded(buf[i]))
				pending_add(p, buf[i]);
	}
}

/* Let the hooks see whatever is left on the watched fds, once. */
static void drain_watched(struct proc_ops *ops)
{
	size_t i;

	for (i = 0; i < PROC_MAX_WATCH_FDS; i++) {
		if (ops->watch[i] < 0)
			continue;
		if (!ops->readable(ops->ctx, ops->watch[i]))
			ops->watch[i] = -1;
	}
}

/**
 * struct sup - one supervision on the loop
 * @lp: the loop (shared with the egress proxy)
 * @runner: the runner's pid
 * @ops: the platform's hooks
 * @res: what is reported
 * @pending: forwarded signals not yet delivered
 * @sigw: the self-pipe's watch
 * @w: the watches of @ops->watch, by index
 * @deadline: the timeout
 * @kill_at: the grace after SIGTERM
 * @status: the runner's wait status once reaped
 * @reaped: the runner is reaped
 * @failed: waitpid() failed
 */
struct sup {
	struct loop *lp;
	pid_t runner;
	struct proc_ops *ops;
	struct proc_result *res;
	struct pending pending;
	struct loop_watch sigw;
	struct loop_watch w[PROC_MAX_WATCH_FDS];
	struct loop_timer deadline, kill_at;
	int status;
	bool reaped, failed;
};

/* reap - has the runner ended?  Stops the loop when it has. */
static void reap(struct sup *s)
{
	pid_t got;

	do
		got = waitpid(s->runner, &s->status, WNOHANG);
	while (got < 0 && errno == EINTR);
	if (got == s->runner)
		s->reaped = true;
	else if (got < 0)
		s->failed = true;
	if (s->reaped || s->failed)
		loop_stop(s->lp);
}

static void on_sigpipe(struct loop *lp, struct loop_watch *w, uint32_t ev)
{
	struct sup *s = w->ctx;

	(void)lp;
	(void)ev;
	drain_signals(&s->pending);
	pending_flush(&s->pending, s->ops);
	reap(s);	/* SIGCHLD, or a wake-up merged into another byte */
}

static void on_watched(struct loop *lp, struct loop_watch *w, uint32_t ev)
{
	struct sup *s = w->ctx;
	size_t i = (size_t)(w - s->w);
	int fd = w->fd;

	(void)ev;
	/* a hook that returns false has closed the fd: with the poll
	 * backend (darwin's) removing the watch after that is harmless */
	if (!s->ops->readable(s->ops->ctx, fd)) {
		loop_watch_remove(lp, w);
		s->ops->watch[i] = -1;
	}
	pending_flush(&s->pending, s->ops);
}

static void on_deadline(struct loop *lp, struct loop_timer *t)
{
	struct sup *s = t->ctx;

	s->res->timed_out = true;
	s->ops->terminate(s->ops->ctx);
	loop_timer_arm(lp, &s->kill_at, loop_now_ms() + PROC_KILL_GRACE_MS);
}

static void on_kill(struct loop *lp, struct loop_timer *t)
{
	struct sup *s = t->ctx;

	(void)lp;
	s->ops->kill(s->ops->ctx);
	kill(s->runner, SIGKILL);
}

int proc_supervise(struct loop *lp, pid_t runner, double timeout_ms,
		   struct proc_ops *ops, struct proc_result *res)
{
	struct sup s;
	double start = proc_now_ms();
	size_t i;
	int rc = 0;

	memset(res, 0, sizeof(*res));
	memset(&s, 0, sizeof(s));
	s.lp = lp;
	s.runner = runner;
	s.ops = ops;
	s.res = res;
	loop_watch_init(&s.sigw, sig_pipe[0], on_sigpipe, &s);
	loop_timer_init(&s.deadline, on_deadline, &s);
	loop_timer_init(&s.kill_at, on_kill, &s);
	if (loop_watch_add(lp, &s.sigw, LOOP_IN) != 0) {
		rc = -1;
		goto out_kill;
	}
	for (i = 0; i < PROC_MAX_WATCH_FDS; i++) {
		loop_watch_init(&s.w[i], ops->watch[i], on_watched, &s);
		if (ops->watch[i] >= 0 &&
		    loop_watch_add(lp, &s.w[i], LOOP_IN) != 0) {
			rc = -1;
			goto out_kill;
		}
	}
	if (timeout_ms > 0)
		loop_timer_arm(lp, &s.deadline,
			       loop_now_ms() + timeout_ms);
	/* it may have ended before the loop watched the self-pipe */
	reap(&s);
	while (!s.reaped && !s.failed) {
		if (loop_run(lp) != 0) {
			s.failed = true;
			break;
		}
		/* loop_run() only returns otherwise once stopped by reap() */
	}
	if (s.failed)
		rc = -1;
out_kill:
	loop_watch_remove(lp, &s.sigw);
	for (i = 0; i < PROC_MAX_WATCH_FDS; i++)
		loop_watch_remove(lp, &s.w[i]);
	loop_timer_cancel(lp, &s.deadline);
	loop_timer_cancel(lp, &s.kill_at);
	if (rc < 0) {
		/* waiting failed: end everything, then reap blocking */
		ops->kill(ops->ctx);
		kill(runner, SIGKILL);
		while (waitpid(runner, &s.status, 0) < 0 && errno == EINTR)
			;
	} else {
		drain_watched(ops);
	}
	ops->settle(ops->ctx);
	res->status = s.status;
	res->elapsed_ms = proc_now_ms() - start;
	return rc;
}

int proc_exit_status(const struct proc_result *res)
{
	if (res->timed_out)
		return EXIT_TIMEOUT;
	if (WIFEXITED(res->status))
		return WEXITSTATUS(res->status);
	if (WIFSIGNALED(res->status))
		return 128 + WTERMSIG(res->status);
	return EXIT_LAUNCHER;
}
