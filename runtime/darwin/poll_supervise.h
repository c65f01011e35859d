/* SPDX-License-Identifier: MIT */
/*
 * poll_supervise.h - darwin: starting sandbox-exec and supervising the
 * tree under it on the shared event loop (runtime/loop.h; its poll(2)
 * backend on darwin), the loop the egress proxy runs on too.  Linux has
 * its own supervisor (runtime/supervise.h: signalfd, pidfd).  Signal
 * forwarding, the timeout, waiting, exit-status mapping are portable
 * POSIX; what only the platform knows (which process is the command, how
 * to end the whole tree) comes in through struct proc_ops.
 *
 * Signals use a self-pipe: the handlers only write the signal number,
 * and the loop reads it, so no state is touched from a handler; SIGCHLD
 * wakes the loop the same way to reap the runner.
 */
#ifndef VBOX_POLL_SUPERVISE_H
#define VBOX_POLL_SUPERVISE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct loop;

/* Exit statuses of vbox-exec itself (doc/launcher.md). */
#define EXIT_TIMEOUT 124
#define EXIT_LAUNCHER 125
#define EXIT_NOT_EXECUTABLE 126
#define EXIT_NOT_FOUND 127

/* Grace between SIGTERM and SIGKILL when the timeout ends the tree. */
#define PROC_KILL_GRACE_MS 2000
/* How long the launcher waits for an ended tree to be gone. */
#define PROC_SETTLE_MS 5000
/* The runner gets fds 0-2 and these many more, as fds 3, 4, ... */
#define PROC_MAX_PASS_FDS 8
/* At most this many extra fds are watched in the loop. */
#define PROC_MAX_WATCH_FDS 4

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
 * struct proc_ops - what the platform does for the supervisor
 * @ctx: passed to every hook
 * @watch: fds to poll for input (-1 = unused slot)
 * @readable: @fd of @watch has input or hung up; return false to stop
 *            watching it (the hook closes it)
 * @forward: deliver signal @sig, received by vbox-exec, to the command;
 *           return false when the command is not known yet (the
 *           supervisor keeps the signal and asks again later)
 * @terminate: the timeout expired: ask the whole tree to end (SIGTERM)
 * @kill: end the whole tree now (SIGKILL)
 * @settle: the runner has been reaped: make sure nothing of the tree is
 *          left, waiting at most PROC_SETTLE_MS
 */
struct proc_ops {
	void *ctx;
	int watch[PROC_MAX_WATCH_FDS];
	bool (*readable)(void *ctx, int fd);
	bool (*forward)(void *ctx, int sig);
	void (*terminate)(void *ctx);
	void (*kill)(void *ctx);
	void (*settle)(void *ctx);
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
 * proc_signals_install - route SIGINT, SIGTERM, SIGHUP, SIGQUIT and
 * SIGCHLD to the self-pipe.  Call once, before proc_start().  Returns 0,
 * or -1 with errno set.
 */
int proc_signals_install(void);

/*
 * proc_start - fork and exec the runner as @sp says, in a new session
 * (so terminal signals reach only vbox-exec, which forwards them) and with
 * the parent-death signal SIGKILL (so a killed vbox-exec takes the runner
 * with it).  Returns the runner's pid, or -1 with a message in *@err
 * (caller frees).  The runner's exec failure is reported by its exit
 * status EXIT_LAUNCHER after a message on stderr.
 */
pid_t proc_start(const struct proc_spawn *sp, char **err);

/*
 * proc_supervise - on @lp (which may carry other watches: they are served
 * meanwhile), wait for @runner to end, forwarding signals through
 * @ops, ending the tree @timeout_ms after the start (0: never), and
 * calling @ops->settle once the runner is reaped.  Fills *@res and
 * returns 0; -1 only if waiting itself failed (the tree is killed and
 * reaped first, and *@res reports a SIGKILL).
 */
int proc_supervise(struct loop *lp, pid_t runner, double timeout_ms,
		   struct proc_ops *ops, struct proc_result *res);

/*
 * proc_exit_status - the exit status of vbox-exec for a runner that
 * ended with @res, once the command is known to have started: the
 * command's status as the runner passed it on, 128 + N for death by
 * signal N, EXIT_TIMEOUT after a timeout.
 */
int proc_exit_status(const struct proc_result *res);

/* proc_now_ms - a monotonic clock in milliseconds. */
double proc_now_ms(void);

#endif /* VBOX_POLL_SUPERVISE_H */
