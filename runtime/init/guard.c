/* SPDX-License-Identifier: MIT */
/*
 * guard.c - container mode's init as the guard of the tree (guard.h).
 *
 * The guard waits with SIGCHLD and its death signal blocked, taking them
 * with sigwaitinfo(): a signal that comes between a look and the wait
 * stays pending, so vbox-exec's death is never missed.  The tree is
 * ended by rounds of SIGKILL to the guard's direct children: as a
 * subreaper it receives every orphan, so each round's dead leave their
 * children to the next round, until none is left.  A child's pid cannot
 * be reused before the guard reaps it, so signalling it by pid is safe.
 *
 * The rounds are bounded by time, not by their count: a killed process
 * keeps its children until its exit has freed its memory and files,
 * which takes a while for a large one (about 0.1 s a GiB, more on a
 * busy machine), and counted rounds that found it still listed ran out
 * in about 50 ms and left its children running after vbox-exec.
 */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exit_codes.h"
#include "guard.h"
#include "walls/landlock.h"

/* What vbox-exec's death sends the guard (PR_SET_PDEATHSIG). */
#define GUARD_SIGNAL SIGUSR1
/*
 * How long the guard goes on ending the tree: the bound for a process
 * that cannot die (stuck in the kernel) or a tree that forks faster than
 * the rounds kill.  Each round that reaped nothing waits for the next
 * death (SIGCHLD) for at most END_WAIT_MS, so a slow exit costs no CPU.
 */
#define END_SECONDS 60
#define END_WAIT_MS 10

static pid_t self;
static sigset_t waited;		/* SIGCHLD and GUARD_SIGNAL */
static sigset_t before;		/* the mask the command gets back */
static bool launcher_gone;

/* One buffer for /proc: the init allocates nothing. */
static char dents[16384] __attribute__((aligned(8)));

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

int guard_prepare(bool scoped, char *err, size_t errlen)
{
	const char *what = "";
	pid_t parent = getppid();
	sigset_t all;

	self = getpid();
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) {
		snprintf(err, errlen, "cannot become the tree's subreaper: %s",
			 strerror(errno));
		return -1;
	}
	/* (Landlock needs no_new_privs; the command's walls set it too) */
	if (scoped && (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		       landlock_scope_signals(&what) < 0)) {
		snprintf(err, errlen, "cannot scope signals to the guard: %s: "
			 "%s", what, strerror(errno));
		return -1;
	}
	/*
	 * Every signal blocked: the guard takes only those it waits for
	 * (a terminal's SIGINT to the process group is the command's to
	 * answer, and vbox-exec forwards signals to the command itself).
	 */
	sigemptyset(&waited);
	sigaddset(&waited, SIGCHLD);
	sigaddset(&waited, GUARD_SIGNAL);
	sigfillset(&all);
	if (sigprocmask(SIG_BLOCK, &all, &before) < 0 ||
	    prctl(PR_SET_PDEATHSIG, GUARD_SIGNAL) < 0) {
		snprintf(err, errlen, "cannot watch vbox-exec: %s",
			 strerror(errno));
		return -1;
	}
	/* gone before the watch was set: there is nothing to start */
	if (getppid() != parent)
		launcher_gone = true;
	return 0;
}

void guard_child(void)
{
	sigprocmask(SIG_SETMASK, &before, NULL);
}

/* The parent of @pid, from /proc/PID/stat; -1 when it cannot be read. */
static pid_t parent_of(const char *pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	long ppid = -1;
	int fd;

	if (snprintf(path, sizeof(path), "/proc/%s/stat", pid) >=
	    (int)sizeof(path))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* "PID (COMM) STATE PPID": COMM may hold anything, up to its last
	 * ')' */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %ld", &ppid) != 1)
		return -1;
	return (pid_t)ppid;
}

/*
 * SIGKILL to every direct child named in @list (space-separated pids,
 * as /proc/PID/task/PID/children has them); how many.
 */
static long kill_listed(const char *list)
{
	const char *p = list;
	char *end;
	long pid, hit = 0;

	for (;;) {
		while (*p == ' ' || *p == '\n')
			p++;
		if (!*p)
			return hit;
		pid = strtol(p, &end, 10);
		if (end == p)
			return hit;
		if (pid > 1) {
			kill((pid_t)pid, SIGKILL);
			hit++;
		}
		p = end;
	}
}

/*
 * SIGKILL to every direct child; how many were found.  The kernel lists
 * a task's children (CONFIG_PROC_CHILDREN; the guard has one thread);
 * without that list, every process's parent is read from /proc.
 */
static long kill_children(void)
{
	struct linux_dirent64 *d;
	char path[64];
	long n, off, hit = 0;
	int proc, fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)self,
		 (int)self);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, dents, sizeof(dents) - 1);
		close(fd);
		/* a full buffer may have cut the list: scan instead */
		if (n >= 0 && (size_t)n < sizeof(dents) - 1) {
			dents[n] = '\0';
			return kill_listed(dents);
		}
	}
	proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (proc < 0)
		return 0;
	while ((n = syscall(SYS_getdents64, proc, dents, sizeof(dents))) > 0) {
		for (off = 0; off < n; off += d->d_reclen) {
			d = (struct linux_dirent64 *)(void *)(dents + off);
			if (d->d_name[0] < '1' || d->d_name[0] > '9')
				continue;
			if (parent_of(d->d_name) == self) {
				kill((pid_t)atol(d->d_name), SIGKILL);
				hit++;
			}
		}
	}
	close(proc);
	return hit;
}

/* Seconds since @start on the monotonic clock. */
static time_t seconds_since(const struct timespec *start)
{
	struct timespec now;

	if (clock_gettime(CLOCK_MONOTONIC, &now) < 0)
		return END_SECONDS;	/* cannot tell: stop, and say so */
	return now.tv_sec - start->tv_sec;
}

/*
 * Every descendant ended and reaped, round after round, until the guard
 * has no child left.  Past END_SECONDS it says how many it leaves.
 */
static void end_tree(void)
{
	struct timespec start, wait = { 0, END_WAIT_MS * 1000000L };
	sigset_t chld;
	bool reaped;
	long hit;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	if (clock_gettime(CLOCK_MONOTONIC, &start) < 0)
		start.tv_sec = 0;
	for (;;) {
		reaped = false;
		while (waitpid(-1, NULL, WNOHANG) > 0)
			reaped = true;
		/* no child left (the usual end): nothing to look for */
		if (waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD)
			return;
		hit = kill_children();
		if (seconds_since(&start) >= END_SECONDS) {
			fprintf(stderr, "vbox-init: %ld processes of the sandbox "
				"did not end in %d s after SIGKILL; they are "
				"left running\n", hit, END_SECONDS);
			return;
		}
		/* the killed are still exiting: wait for one to be done
		 * (SIGCHLD is blocked, so one that came already is pending) */
		if (!reaped)
			sigtimedwait(&chld, NULL, &wait);
	}
}

void guard_wait(pid_t cmd)
{
	siginfo_t si;
	int status, code = EXIT_LAUNCHER;
	pid_t w;

	while (!launcher_gone) {
		if (sigwaitinfo(&waited, &si) < 0)
			continue;	/* EINTR */
		if (si.si_signo == GUARD_SIGNAL) {
			launcher_gone = true;
			break;
		}
		/* SIGCHLD: every child that changed, reaped */
		while ((w = waitpid(-1, &status, WNOHANG)) > 0) {
			if (w != cmd)
				continue;
			code = WIFEXITED(status) ? WEXITSTATUS(status) :
			       WIFSIGNALED(status) ? 128 + WTERMSIG(status) :
			       EXIT_LAUNCHER;
			end_tree();
			_exit(code);
		}
	}
	/* vbox-exec is gone: nothing of the tree outlives it */
	end_tree();
	_exit(EXIT_LAUNCHER);
}
