/* SPDX-License-Identifier: MIT */
/*
 * process.c - start the runner and the launch's helpers; signal and reap
 * them through pidfds; map how the runner ended (process.h).
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
#include <sched.h>
#include <sys/mman.h>
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

int proc_pidfd_open(pid_t pid)
{
#if defined(__linux__) && defined(SYS_pidfd_open)
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

int proc_signal(int pidfd, pid_t pid, int sig)
{
#if defined(__linux__) && defined(SYS_pidfd_send_signal)
	if (pidfd >= 0)
		return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
#else
	(void)pidfd;
#endif
	return kill(pid, sig);
}

#ifndef PIDFD_SIGNAL_PROCESS_GROUP
#define PIDFD_SIGNAL_PROCESS_GROUP (1U << 2)
#endif

int proc_signal_group(int pidfd, pid_t pid, int sig)
{
#if defined(__linux__) && defined(SYS_pidfd_send_signal)
	if (pidfd >= 0) {
		if (syscall(SYS_pidfd_send_signal, pidfd, sig, NULL,
			    PIDFD_SIGNAL_PROCESS_GROUP) == 0)
			return 0;
		if (errno != EINVAL)
			return -1;
		/* An older kernel: the number, while the leader lives. */
		if (syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) < 0)
			return -1;
	}
#else
	(void)pidfd;
#endif
	if (pid <= 1) {
		errno = ESRCH;
		return -1;
	}
	return kill(-pid, sig);
}

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

int proc_reap(int pidfd, pid_t pid, int *status)
{
	int rc;

#ifdef __linux__
	if (pidfd >= 0) {
		siginfo_t si;

		memset(&si, 0, sizeof(si));
		do
			rc = waitid((idtype_t)P_PIDFD, (id_t)pidfd, &si,
				    WEXITED);
		while (rc < 0 && errno == EINTR);
		/* Linux 5.3 has pidfds but not P_PIDFD (5.4): by pid then. */
		if (rc < 0 && errno != EINVAL)
			return -1;
		if (rc == 0) {
			*status = si.si_code == CLD_EXITED ?
					  (si.si_status & 0xff) << 8 :
					  si.si_status & 0x7f;
			return 0;
		}
	}
#else
	(void)pidfd;
#endif
	do
		rc = (int)waitpid(pid, status, 0);
	while (rc < 0 && errno == EINTR);
	return rc < 0 ? -1 : 0;
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

/* What the runner's process does between its start and the exec. */
struct child_args {
	const struct proc_spawn *sp;
	const sigset_t *mask;
	pid_t parent;
};

#ifdef __linux__
/*
 * Move off the processor vbox-exec runs on, keeping the affinity the
 * child had.  The kernel mostly starts a child on its parent's processor
 * (86 of 100 launches on the benchmark machine), where vbox-exec, which
 * goes on building the sandbox, keeps it waiting: the runner's exec and
 * start-up, which starting it first was to overlap with that work, ran
 * after it (bench/README.md).  Allowing every processor but this one
 * moves the task at once; allowing them all again moves nothing.  A
 * hint: any failure leaves the child where it is, and the runner, the
 * sandbox and the command keep the affinity vbox-exec was given.
 */
static void leave_parent_cpu(void)
{
	cpu_set_t all, others;
	int here = sched_getcpu();

	if (here < 0 || here >= CPU_SETSIZE ||
	    sched_getaffinity(0, sizeof(all), &all) != 0 ||
	    CPU_COUNT(&all) < 2 || !CPU_ISSET(here, &all))
		return;
	others = all;
	CPU_CLR(here, &others);
	if (sched_setaffinity(0, sizeof(others), &others) == 0)
		sched_setaffinity(0, sizeof(all), &all);
}
#endif

static __noreturn void child_main(const struct child_args *ca)
{
#ifdef __linux__
	/* The runner must not outlive vbox-exec, even killed with -9. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != ca->parent)
		_exit(EXIT_LAUNCHER);
#endif
	if (setsid() < 0)
		child_fail("setsid for", ca->sp->path);
	sigprocmask(SIG_SETMASK, ca->mask, NULL);
	child_fds(ca->sp);
#ifdef __linux__
	leave_parent_cpu();
#endif
	execve(ca->sp->path, ca->sp->argv, ca->sp->envp);
	child_fail("cannot run", ca->sp->path);
}

/*
 * On Linux the runner starts as vfork() would start it, but on a stack
 * of its own: clone(CLONE_VM | CLONE_VFORK) copies no page tables, and
 * vbox-exec, stopped until the exec, takes no copy-on-write faults
 * afterwards (about 0.1-0.2 ms of every launch, bench/README.md).  The
 * child only makes system calls and writes its own stack; no signal
 * handler can run in it (vbox-exec installs none: signals go through a
 * signalfd).  Under the sanitizers, whose run-time keeps per-thread state
 * a child sharing the memory would corrupt, plain fork() is used.
 */
#if defined(__linux__) && !defined(__SANITIZE_ADDRESS__) && \
	!defined(__SANITIZE_UNDEFINED__)
#define SPAWN_STACK_SIZE (64 * 1024)

static int child_entry(void *arg)
{
	child_main(arg);
}

static pid_t spawn_child(const struct child_args *ca)
{
	void *stack;
	pid_t pid;
	int saved;

	stack = mmap(NULL, SPAWN_STACK_SIZE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return -1;
	/* The stack grows down on every architecture Linux runs us on. */
	pid = clone(child_entry, (char *)stack + SPAWN_STACK_SIZE,
		    CLONE_VM | CLONE_VFORK | SIGCHLD, (void *)ca);
	saved = errno;
	/* The child has exec'd or exited: its stack is free again. */
	munmap(stack, SPAWN_STACK_SIZE);
	errno = saved;
	return pid;
}
#else
static pid_t spawn_child(const struct child_args *ca)
{
	pid_t pid = fork();

	if (pid == 0)
		child_main(ca);
	return pid;
}
#endif

pid_t proc_start(const struct proc_spawn *sp, const sigset_t *mask,
		 char **err)
{
	struct child_args ca = { .sp = sp, .mask = mask, .parent = getpid() };
	pid_t pid;

	if (sp->npass > PROC_MAX_PASS_FDS)
		BUG("too many fds to pass: %zu", sp->npass);
	pid = spawn_child(&ca);
	if (pid < 0) {
		*err = xasprintf("cannot start %s: %s", sp->path,
				 strerror(errno));
		return -1;
	}
	return pid;
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
