/* SPDX-License-Identifier: MIT */
/*
 * guard.h - container mode's init as the guard of the tree
 * (doc/launcher.md, "Nothing outlives vbox-exec").
 *
 * Namespace mode's tree ends with its PID namespace, whose init is PID 1.
 * Container mode has no namespace, so vbox-init stays there as the
 * command's parent instead of becoming it:
 *
 *   - a child subreaper: every orphan of the tree (a daemon, a setsid
 *     job) comes to it, so the tree is exactly its descendants;
 *   - in a Landlock domain of its own that scopes signals (ABI 6, when
 *     the command's walls have it too): the command, whose walls nest
 *     below that domain, can neither signal nor trace it;
 *   - PR_SET_PDEATHSIG: when vbox-exec dies (SIGKILL, an abort), it
 *     kills every descendant, round after round until none is left, and
 *     ends; when the command ends, it does the same and exits with the
 *     command's status (128 + N for death by signal N), as PID 1's end
 *     ends a namespace.
 *
 * libc only and without allocation, as the rest of the init.
 */
#ifndef VBOX_INIT_GUARD_H
#define VBOX_INIT_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * guard_prepare - become the guard: a subreaper, in a signal-scoped
 * domain when @scoped, told of vbox-exec's death.  Call before forking
 * the command.  0, or -1 with a one-line reason in @err.
 */
int guard_prepare(bool scoped, char *err, size_t errlen);

/*
 * guard_child - in the forked command's process, before its walls: what
 * guard_prepare() set for the guard alone is undone there.
 */
void guard_child(void);

/*
 * guard_wait - reap until the command @cmd ends (then end the tree and
 * exit with its status) or vbox-exec dies (then end the tree and exit
 * 125).  Never returns.
 */
__attribute__((noreturn)) void guard_wait(pid_t cmd);

#endif /* VBOX_INIT_GUARD_H */
