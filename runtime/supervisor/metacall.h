/* SPDX-License-Identifier: MIT */
/*
 * metacall.h - container mode's supervised metadata calls (doc/launcher.md,
 * "Container mode"): chmod, chown, the utimes family and the xattr
 * family change a file without writing it, and Landlock has no right for
 * them, so without the read-only mounts of namespace mode a child could
 * change the mode (a setuid bit, as root), owner, times or extended
 * attributes of any file it can reach.  The container filter hands them
 * to the supervisor, which resolves the target as the kernel would for
 * the child (its working directory or directory fd, links followed or
 * not), judges the file it opened by its path, and makes the change
 * itself on that file (never a continued call: the child could swap the
 * path or fd after the check), with the child's credentials; a file
 * outside the writable regions is EROFS, as under namespace mode's
 * read-only mounts.
 *
 * The decoding (metacall_decode) is pure: it reads the child's memory
 * through a callback, bounds every string (PATH_MAX, XATTR_NAME_MAX) and
 * value (XATTR_SIZE_MAX), and is fuzzed (fuzz/fuzz_unixsock.c).
 */
#ifndef VBOX_SUPERVISOR_METACALL_H
#define VBOX_SUPERVISOR_METACALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "supervisor/childmem.h"

struct seccomp_data;

#define METACALL_XATTR_NAME_MAX 255
#define METACALL_XATTR_SIZE_MAX 65536

enum metacall_op {
	METACALL_CHMOD,
	METACALL_CHOWN,
	METACALL_UTIMES,
	METACALL_SETXATTR,
	METACALL_REMOVEXATTR,
	METACALL_TRUNCATE,	/* Landlock judges it from ABI 3 only */
};

/**
 * struct metacall - one decoded metadata call
 * @op: what it changes
 * @fd: the file's fd (@path NULL), or the directory fd @path is relative
 *      to (AT_FDCWD: the working directory)
 * @path: the path (owned; NULL: the call is on @fd itself)
 * @nofollow: a final symbolic link is the target, not followed
 * @mode: METACALL_CHMOD
 * @uid, @gid: METACALL_CHOWN ((uint32_t)-1: unchanged)
 * @now: METACALL_UTIMES with no times (now)
 * @times: METACALL_UTIMES: access and modification times (UTIME_NOW and
 *         UTIME_OMIT as utimensat() takes them)
 * @name: the xattr's name (owned, NUL-terminated)
 * @value, @size: METACALL_SETXATTR's value (owned; exact size)
 * @xflags: XATTR_CREATE, XATTR_REPLACE
 * @length: METACALL_TRUNCATE
 */
struct metacall {
	enum metacall_op op;
	int fd;
	char *path;
	bool nofollow;
	uint32_t mode;
	uint32_t uid;
	uint32_t gid;
	bool now;
	struct timespec times[2];
	char *name;
	void *value;
	size_t size;
	int xflags;
	int64_t length;
};

/* Is @d one of the calls metacall_decode() takes? */
bool metacall_is(const struct seccomp_data *d);

/*
 * metacall_decode - @d (and what it points to in the child) into *@out.
 * 0, or the errno the kernel would give the child (EFAULT, EINVAL,
 * ENAMETOOLONG, ERANGE, E2BIG; ENOSYS for a call it does not take, or
 * from an x32 or i386 entry, which it does not decode).
 */
int metacall_decode(const struct seccomp_data *d, child_read_fn rd,
		    void *ctx, struct metacall *out);

void metacall_release(struct metacall *mc);

/*
 * metacall_run - resolve @mc's target for thread @tid (its cwd and fds,
 * through /proc), ask @writable whether the file's path may be changed,
 * and make the change.  The result for the child: 0 or an errno.
 */
int metacall_run(const struct metacall *mc, pid_t tid,
		 bool (*writable)(void *ctx, const char *path), void *ctx);

/*
 * metacall_apply - make the change of @mc on @fd (an O_PATH fd of the
 * target the caller resolved and judged).  0 or an errno for the child.
 */
int metacall_apply(const struct metacall *mc, int fd);

#endif /* VBOX_SUPERVISOR_METACALL_H */
