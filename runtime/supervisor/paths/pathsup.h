/* SPDX-License-Identifier: MIT */
/*
 * pathsup.h - the supervisor's thread for supervised paths
 * (doc/launcher.md, "Supervised paths").
 *
 * With supervised paths every open of the sandbox is a round trip to
 * the supervisor, so the wait for it is what the sandbox pays most for.
 * A thread of its own waits in SECCOMP_IOCTL_NOTIF_RECV itself, where
 * the kernel's SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP runs it at once on the
 * caller's CPU (behind epoll most of that is lost: bench/README.md).  It
 * answers the path and metadata calls (pathcall_run.h) one at a time,
 * in the order they come, and hands every other notification (the
 * socket calls) to vbox-exec's loop through @forward.  The thread has no
 * effective capability and a file-system context of its own (its umask
 * is the child's around a creation, never the loop's).
 */
#ifndef VBOX_SUPERVISOR_PATHSUP_H
#define VBOX_SUPERVISOR_PATHSUP_H

#include <stddef.h>

#include "pathcall_run.h"

struct pathsup;
struct seccomp_notif;

/**
 * struct pathsup_config - what the thread serves
 * @listener: the seccomp listener (borrowed; the caller closes it after
 *            pathsup_stop())
 * @root_fd: the sandbox's root (borrowed)
 * @judge, @below, @judge_ctx: the table (pathjudge.h; its notices must be
 *            safe to call from this thread and the loop's)
 * @forward: called on this thread with every other notification (a copy
 *           of @req_size bytes the callee takes over: caller frees); 0,
 *           or an errno to answer the call with (the copy is then this
 *           thread's to free)
 * @forward_ctx: for @forward
 * @req_size, @resp_size: the kernel's sizes (SECCOMP_GET_NOTIF_SIZES)
 */
struct pathsup_config {
	int listener;
	int root_fd;
	pathcall_judge_fn judge;
	pathcall_below_fn below;
	void *judge_ctx;
	int (*forward)(void *ctx, struct seccomp_notif *req);
	void *forward_ctx;
	size_t req_size;
	size_t resp_size;
};

/* pathsup_start - start the thread.  NULL with *@err on failure. */
struct pathsup *pathsup_start(const struct pathsup_config *cfg, char **err);

/*
 * pathsup_names_lock, pathsup_names_unlock - held by the paths thread
 * around every call it judges and makes, and by whoever else makes a
 * name for the sandbox (a pathname bind() on the loop): a name is never
 * changed between another call's judgement and its making.
 */
void pathsup_names_lock(struct pathsup *ps);
void pathsup_names_unlock(struct pathsup *ps);

/* pathsup_counts - calls answered, refused, and whose caller went away. */
void pathsup_counts(const struct pathsup *ps, unsigned long *handled,
		    unsigned long *refused, unsigned long *gone);

/*
 * pathsup_stop - when no process uses the filter any more: the thread,
 * left waiting for a notification that cannot come, is interrupted and
 * joined, and @ps freed.
 */
void pathsup_stop(struct pathsup *ps);

#endif /* VBOX_SUPERVISOR_PATHSUP_H */
