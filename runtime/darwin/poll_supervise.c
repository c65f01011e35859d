/* SPDX-License-Identifier: MIT */
/*
 * process.c - start the runner, then one poll() loop until it is reaped
 * (poll_supervise.h).
 */
#include <vbox.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
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

#include "poll_supervise.h"

/* A time that never comes, for deadlines that are not set. */
#define NEVER 1e300

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

static int poll_timeout(double now, double deadline, double kill_at)
{
	double t = deadline < kill_at ? deadline : kill_at;

	if (t == NEVER)
		return -1;
	if (t <= now)
		return 0;
	/* A far deadline is approached a minute at a time (int range). */
	if (t - now > 60000)
		return 60000;
	/* Round up: waking early would only spin. */
	return (int)(t - now) + 1;
}

int proc_supervise(pid_t runner, double timeout_ms, struct proc_ops *ops,
		   struct proc_result *res)
{
	struct pollfd pfd[1 + PROC_MAX_WATCH_FDS];
	struct pending pending = { .n = 0 };
	double start = proc_now_ms(), now, deadline = NEVER;
	double kill_at = NEVER;
	size_t i, n;
	pid_t got;
	int status = 0, rc = 0;

	memset(res, 0, sizeof(*res));
	if (timeout_ms > 0)
		deadline = start + timeout_ms;
	for (;;) {
		got = waitpid(runner, &status, WNOHANG);
		if (got == runner)
			break;
		if (got < 0 && errno != EINTR) {
			rc = -1;
			goto out_kill;
		}
		pfd[0].fd = sig_pipe[0];
		pfd[0].events = POLLIN;
		for (i = 0, n = 1; i < PROC_MAX_WATCH_FDS; i++) {
			if (ops->watch[i] < 0)
				continue;
			pfd[n].fd = ops->watch[i];
			pfd[n].events = POLLIN;
			n++;
		}
		now = proc_now_ms();
		if (poll(pfd, n, poll_timeout(now, deadline, kill_at)) < 0 &&
		    errno != EINTR) {
			rc = -1;
			goto out_kill;
		}
		drain_signals(&pending);
		for (i = 1; i < n; i++) {
			if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (ops->readable(ops->ctx, pfd[i].fd))
				continue;
			for (size_t w = 0; w < PROC_MAX_WATCH_FDS; w++)
				if (ops->watch[w] == pfd[i].fd)
					ops->watch[w] = -1;
		}
		pending_flush(&pending, ops);
		now = proc_now_ms();
		if (now >= deadline && !res->timed_out) {
			res->timed_out = true;
			ops->terminate(ops->ctx);
			kill_at = now + PROC_KILL_GRACE_MS;
			deadline = NEVER;
		}
		if (now >= kill_at) {
			ops->kill(ops->ctx);
			kill(runner, SIGKILL);
			kill_at = NEVER;
		}
	}
	drain_watched(ops);
	goto out_settle;

out_kill:
	/* Waiting failed: end everything, then reap with a blocking wait. */
	ops->kill(ops->ctx);
	kill(runner, SIGKILL);
	while (waitpid(runner, &status, 0) < 0 && errno == EINTR)
		;
out_settle:
	ops->settle(ops->ctx);
	res->status = status;
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
