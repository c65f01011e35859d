/* SPDX-License-Identifier: MIT */
/*
 * supervise.h - the supervisor: vbox-exec's one event loop while the
 * sandbox runs (doc/launcher.md, "Supervision").
 *
 * Owned here: the loop (runtime/loop.h) and what every launch watches on
 * it: the forwarded signals (a signalfd), the runner's end (its pidfd;
 * SIGCHLD where pidfds are missing), the timeout and the grace before
 * SIGKILL.  What only the platform knows (who the command is, how to end
 * the whole tree) comes in through struct supervisor_ops.
 *
 * Everything else that runs while the sandbox runs registers on the same
 * loop, from supervisor_loop(): the init channel (runtime/linux/
 * init_link.c), and later the seccomp user-notification fd and the
 * egress proxy's listeners and connections.  One thread, one loop: a
 * callback must never block.
 */
#ifndef VBOX_SUPERVISE_H
#define VBOX_SUPERVISE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "loop.h"
#include "process.h"

/* Grace between SIGTERM and SIGKILL when the timeout ends the tree. */
#define SV_KILL_GRACE_MS 2000
/* Forwarded signals vbox-exec handles (SIGINT SIGTERM SIGHUP SIGQUIT
 * SIGTSTP SIGCONT). */
#define SV_NFORWARD 6

/**
 * struct supervisor_ops - what the platform does for the supervisor
 * @forward: deliver signal @sig, received by vbox-exec, to the command;
 *           return false when the command is not known yet (the signal
 *           is kept, merged per signal, until supervisor_flush_signals())
 * @terminate: the timeout expired: ask the whole tree to end (SIGTERM)
 * @kill: end the whole tree now (SIGKILL)
 * @settle: the runner has been reaped: take what is left on the
 *          platform's watches, make sure nothing of the tree is left
 */
struct supervisor_ops {
	bool (*forward)(void *ctx, int sig);
	void (*terminate)(void *ctx);
	void (*kill)(void *ctx);
	void (*settle)(void *ctx);
};

/**
 * struct supervisor - one supervised launch
 * @loop: the event loop
 * @ops, @ctx: the platform's hooks
 * @sigfd, @sig_watch: the signalfd and its watch
 * @mask: the signals routed to @sigfd (blocked while it exists)
 * @old_mask: the signal mask before supervisor_init()
 * @runner: the runner's pid (0 before supervisor_spawn())
 * @runner_pidfd, @runner_watch: a pidfd of the runner (-1 without)
 * @deadline: the timeout
 * @grace: SIGKILL after the timeout's SIGTERM
 * @pending, @npending: forwarded signals not delivered yet, in order
 * @reaped: the runner is reaped; @status holds its wait status
 * @status: see @reaped
 * @timed_out: the timeout expired
 * @t_launch: loop_now_ms() at supervisor_init(): --timeout counts from
 *            here (a wait for the placeholder registry included)
 * @t_start: loop_now_ms() at the (first) spawn
 * @stop_sig: a signal that ended the launch before the command ran
 *            (supervisor_stop_signal())
 * @error: a negative errno when waiting failed
 */
struct supervisor {
	struct loop loop;
	const struct supervisor_ops *ops;
	void *ctx;
	int sigfd;
	struct loop_watch sig_watch;
	sigset_t mask;
	sigset_t old_mask;
	pid_t runner;
	int runner_pidfd;
	struct loop_watch runner_watch;
	struct loop_timer deadline;
	struct loop_timer grace;
	int pending[SV_NFORWARD];
	size_t npending;
	bool reaped;
	int status;
	bool timed_out;
	double t_launch;
	double t_start;
	int stop_sig;
	int error;
};

/*
 * supervisor_init - make the loop and route SIGINT, SIGTERM, SIGHUP,
 * SIGQUIT, SIGTSTP, SIGCONT (those not ignored at start: an ignored one
 * stays ignored, for
 * vbox-exec and the command) and SIGCHLD to a signalfd.  Call before
 * anything exists that must be cleaned up.  Returns 0, or -1 with *@err.
 */
int supervisor_init(struct supervisor *sv, const struct supervisor_ops *ops,
		    void *ctx, char **err);

/*
 * supervisor_stop_signal - while the launch is being prepared (the loop
 * does not run yet): has SIGINT, SIGTERM, SIGHUP or SIGQUIT come?  That
 * signal (the launch then ends, cleaning up what it made, and vbox-exec
 * exits 128 + it), or 0.  Other signals are kept for the command.
 */
int supervisor_stop_signal(struct supervisor *sv);

/* supervisor_deadline - loop_now_ms() at which @timeout_ms (0: none)
 * counted from the launch's start passes, or 0. */
double supervisor_deadline(const struct supervisor *sv, double timeout_ms);

/* supervisor_loop - the loop, to register more watches and timers on. */
struct loop *supervisor_loop(struct supervisor *sv);

/*
 * supervisor_spawn - start the runner (proc_start(): new session,
 * parent-death SIGKILL, @sp's fds, the signal mask of before
 * supervisor_init()) and watch for its end.  Returns its pid, or -1
 * with *@err.
 */
pid_t supervisor_spawn(struct supervisor *sv, const struct proc_spawn *sp,
		       char **err);

/*
 * supervisor_forget_runner - the runner, killed and reaped by its owner
 * before the supervisor ran, is no longer watched; supervisor_spawn()
 * may start another (the launch's start time stays the first's).
 */
void supervisor_forget_runner(struct supervisor *sv);

/*
 * supervisor_spawn_helper - start a helper of the launch as
 * supervisor_spawn() starts the runner, but not watched: its owner reaps
 * it.  Returns its pid, or -1 with *@err.
 */
pid_t supervisor_spawn_helper(struct supervisor *sv,
			      const struct proc_spawn *sp, char **err);

/*
 * supervisor_run - run the loop until the runner is reaped, ending the
 * tree @timeout_ms after the spawn (0: never), then call @ops->settle.
 * Fills *@res.  Returns 0, or -1 when waiting itself failed (the tree is
 * killed and reaped first; *@res reports a SIGKILL).
 */
int supervisor_run(struct supervisor *sv, double timeout_ms,
		   struct proc_result *res);

/* supervisor_flush_signals - offer the pending signals to @ops->forward. */
void supervisor_flush_signals(struct supervisor *sv);

/*
 * supervisor_release - close what @sv holds and restore the signal mask.
 * Watches others registered must be removed before.
 */
void supervisor_release(struct supervisor *sv);

#endif /* VBOX_SUPERVISE_H */
