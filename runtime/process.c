/* SPDX-License-Identifier: MIT */
/*
 * process.c - start the runner; map how it ended (process.h).
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

#include "process.h"

double proc_now_ms(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		BUG("clock_gettime(CLOCK_MONOTONIC) failed");
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
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

pid_t proc_start(const struct proc_spawn *sp, const sigset_t *mask,
		 char **err)
{
	pid_t parent = getpid(), pid;

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
	sigprocmask(SIG_SETMASK, mask, NULL);
	child_fds(sp);
	execve(sp->path, sp->argv, sp->envp);
	child_fail("cannot run", sp->path);
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
