/* SPDX-License-Identifier: MIT */
/*
 * pathcall.h - supervised path calls (doc/launcher.md, "Supervised
 * paths"): the calls that open, create, remove, rename, link or run a
 * file by name, which the supervisor judges when the plan has rows that
 * land `supervised` (a `deny: **` "/.env" glob mounts cannot hold).
 *
 * The supervisor never lets such a call continue after looking at its
 * path (another thread could change the string, or a rename the file it
 * names, in between): it resolves the path itself in the sandbox's root,
 * judges the file it actually reached, makes the call on it and hands
 * the result back (an fd with SECCOMP_IOCTL_NOTIF_ADDFD, or the call's
 * status).  execve() alone is continued, after its file was judged: no
 * other process can run a program for the child (doc/launcher.md says
 * what that leaves).
 *
 * This header is the pure part: pathcall_decode() reads the call's
 * arguments and the strings they point to through a callback, bounds
 * every one (PATH_MAX, struct open_how's size) and is fuzzed
 * (fuzz/fuzz_pathcall.c).  pathcall_run.h makes the calls.
 */
#ifndef VBOX_SUPERVISOR_PATHCALL_H
#define VBOX_SUPERVISOR_PATHCALL_H

#include <stdbool.h>
#include <stdint.h>

#include "supervisor/childmem.h"

struct seccomp_data;

enum pathcall_op {
	PATHCALL_OPEN,		/* open, openat, openat2, creat */
	PATHCALL_MKDIR,		/* mkdir, mkdirat */
	PATHCALL_MKNOD,		/* mknod, mknodat */
	PATHCALL_SYMLINK,	/* symlink, symlinkat: @target, then @path */
	PATHCALL_LINK,		/* link, linkat: @path[0] to @path[1] */
	PATHCALL_UNLINK,	/* unlink, unlinkat, rmdir */
	PATHCALL_RENAME,	/* rename, renameat, renameat2 */
	PATHCALL_EXEC,		/* execve, execveat */
};

/**
 * struct pathcall - one decoded path call
 * @op: what it does
 * @nr: the system call's number (x86_64)
 * @dirfd: per path, the directory fd it is relative to (AT_FDCWD: the
 *         working directory)
 * @path: the paths (owned, NUL-terminated; @path[1] only for LINK and
 *        RENAME, and for SYMLINK the new name is @path[0])
 * @target: SYMLINK: the link's contents (owned)
 * @flags: OPEN: the open flags; LINK, EXEC: AT_SYMLINK_FOLLOW,
 *         AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH; UNLINK: AT_REMOVEDIR;
 *         RENAME: renameat2's flags
 * @resolve: OPEN from openat2: its RESOLVE_* flags
 * @mode: OPEN with O_CREAT or O_TMPFILE, MKDIR, MKNOD: the mode
 * @dev: MKNOD: the device number
 */
struct pathcall {
	enum pathcall_op op;
	unsigned nr;
	int dirfd[2];
	char *path[2];
	char *target;
	uint64_t flags;
	uint64_t resolve;
	uint32_t mode;
	uint64_t dev;
};

/* Is @d one of the calls pathcall_decode() takes (any entry point)? */
bool pathcall_is(const struct seccomp_data *d);

/*
 * pathcall_decode - @d (and the strings it points to in the child) into
 * *@out.  0, or the errno the kernel would give the child (EFAULT,
 * EINVAL, E2BIG, ENAMETOOLONG, ENOENT for an empty path without
 * AT_EMPTY_PATH); ENOSYS from an x32 or i386 entry, which it does not
 * decode (refused: doc/launcher.md).
 */
int pathcall_decode(const struct seccomp_data *d, child_read_fn rd,
		    void *ctx, struct pathcall *out);

void pathcall_release(struct pathcall *pc);

#endif /* VBOX_SUPERVISOR_PATHCALL_H */
