/* SPDX-License-Identifier: MIT */
/*
 * process.h - starting the sandbox runner (bwrap) and the launch's
 * helpers (vbox-proxy), signalling and reaping them through pidfds where
 * the kernel has them, and mapping how the runner ended to vbox-exec's
 * exit status.  Portable POSIX with Linux additions.  Waiting for the
 * runner is the supervisor's (supervise.h).
 */
#ifndef VBOX_PROCESS_H
#define VBOX_PROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <signal.h>

#include "exit_codes.h"

/* How long the launcher waits for an ended tree to be gone. */
#define PROC_SETTLE_MS 5000
/* The runner gets fds 0-2 and these many more, as fds 3, 4, ... */
#define PROC_MAX_PASS_FDS 8

/**
 * struct proc_spawn - how to start the runner
 * @path: the program, absolute
 * @argv: its arguments, NULL-terminated
 * @envp: its environment, NULL-terminated
 * @pass: fds to hand over: @pass[i] becomes fd 3 + i in the runner, and
 *        every other fd above 2 is closed there
 * @npass: number of @pass entries, at most PROC_MAX_PASS_FDS
 */
struct proc_spawn {
	const char *path;
	char *const *argv;
	char *const *envp;
	const int *pass;
	size_t npass;
};

/**
 * struct proc_result - how the runner ended
 * @status: its wait status (waitpid())
 * @timed_out: the timeout expired and the tree was ended
 * @elapsed_ms: from the runner's start to its end
 */
struct proc_result {
	int status;
	bool timed_out;
	double elapsed_ms;
};

/*
 * proc_start - fork and exec the runner as @sp says, in a new session
 * (so terminal signals reach only vbox-exec, which forwards them), with
 * the parent-death signal SIGKILL (so a killed vbox-exec takes the runner
 * with it) and the signal mask @mask.  Returns the runner's pid, or -1
 * with a message in *@err (caller frees).  The runner's exec failure is
 * reported by its exit status EXIT_LAUNCHER after a message on stderr.
 */
pid_t proc_start(const struct proc_spawn *sp, const sigset_t *mask,
		 char **err);

/*
 * proc_exit_status - the exit status of vbox-exec for a runner that
 * ended with @res, once the command is known to have started: the
 * command's status as the runner passed it on, 128 + N for death by
 * signal N, EXIT_TIMEOUT after a timeout.
 */
int proc_exit_status(const struct proc_result *res);

/* proc_now_ms - a monotonic clock in milliseconds. */
double proc_now_ms(void);

/*
 * proc_pidfd_open - a pidfd for @pid (Linux 5.3), or -1 with errno
 * (ENOSYS where the kernel or the build has none).
 */
int proc_pidfd_open(pid_t pid);

/*
 * proc_signal - @sig to the process: through @pidfd when it is one
 * (never a recycled pid), else with kill(@pid).  0, or -1 with errno.
 */
int proc_signal(int pidfd, pid_t pid, int sig);

/*
 * proc_signal_group - @sig to every process of the group that @pid
 * leads: through @pidfd (PIDFD_SIGNAL_PROCESS_GROUP, Linux 6.9; the
 * group is named by the leader's pid itself, never a recycled number),
 * else, while @pidfd shows the leader alive, with kill(-@pid).  0, or -1
 * with errno (ESRCH: no process is left in the group).
 */
int proc_signal_group(int pidfd, pid_t pid, int sig);

/*
 * proc_reap - wait for our child @pid to end (through @pidfd when it is
 * one) and put its wait status in *@status.  Returns 0, or -1 with errno
 * (ECHILD: someone reaped it already).
 */
int proc_reap(int pidfd, pid_t pid, int *status);

#endif /* VBOX_PROCESS_H */
