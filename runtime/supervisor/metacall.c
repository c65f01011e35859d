/* SPDX-License-Identifier: MIT */
/*
 * metacall.c - decode and make container mode's supervised metadata
 * calls (metacall.h).
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "childmem.h"
#include "childpath.h"
#include "metacall.h"

#define X32_BIT 0x40000000u
#define PAGE 4096u

#ifndef AT_EMPTY_PATH
#define AT_EMPTY_PATH 0x1000
#endif

enum shape {
	BY_PATH,	/* (path, ...): links followed */
	BY_LPATH,	/* (path, ...): the link itself */
	BY_FD,		/* (fd, ...) */
	BY_AT,		/* (dirfd, path, ..., flags at @flags_arg) */
};

static const struct {
	unsigned nr;
	enum metacall_op op;
	enum shape shape;
	int flags_arg;		/* BY_AT: which argument holds the flags (-1) */
} calls[] = {
	{ __NR_chmod, METACALL_CHMOD, BY_PATH, -1 },
	{ __NR_fchmod, METACALL_CHMOD, BY_FD, -1 },
	{ __NR_fchmodat, METACALL_CHMOD, BY_AT, -1 },
	{ __NR_chown, METACALL_CHOWN, BY_PATH, -1 },
	{ __NR_fchown, METACALL_CHOWN, BY_FD, -1 },
	{ __NR_lchown, METACALL_CHOWN, BY_LPATH, -1 },
	{ __NR_fchownat, METACALL_CHOWN, BY_AT, 4 },
	{ __NR_utime, METACALL_UTIMES, BY_PATH, -1 },
	{ __NR_utimes, METACALL_UTIMES, BY_PATH, -1 },
	{ __NR_futimesat, METACALL_UTIMES, BY_AT, -1 },
	{ __NR_utimensat, METACALL_UTIMES, BY_AT, 3 },
	{ __NR_setxattr, METACALL_SETXATTR, BY_PATH, -1 },
	{ __NR_lsetxattr, METACALL_SETXATTR, BY_LPATH, -1 },
	{ __NR_fsetxattr, METACALL_SETXATTR, BY_FD, -1 },
	{ __NR_removexattr, METACALL_REMOVEXATTR, BY_PATH, -1 },
	{ __NR_lremovexattr, METACALL_REMOVEXATTR, BY_LPATH, -1 },
	{ __NR_fremovexattr, METACALL_REMOVEXATTR, BY_FD, -1 },
	{ __NR_truncate, METACALL_TRUNCATE, BY_PATH, -1 },
};

static int find(const struct seccomp_data *d)
{
	unsigned nr = (unsigned)d->nr & ~X32_BIT;
	size_t i;

	if (d->arch != AUDIT_ARCH_X86_64)
		return -1;
	for (i = 0; i < array_size(calls); i++)
		if (calls[i].nr == nr)
			return (int)i;
	return -1;
}

bool metacall_is(const struct seccomp_data *d)
{
	/* Other entries (i386) are the socket path's ENOSYS: refused. */
	return find(d) >= 0;
}

/* Times from utime() (two longs), utimes()/futimesat() (two timevals). */
static int read_times(child_read_fn rd, void *ctx, unsigned nr,
		      uint64_t addr, struct metacall *mc)
{
	int64_t v[4];
	int rc, i;

	if (!addr) {
		mc->now = true;
		return 0;
	}
	if (nr == __NR_utime) {
		rc = rd(ctx, addr, v, 2 * sizeof(int64_t));
		if (rc)
			return EFAULT;
		for (i = 0; i < 2; i++) {
			mc->times[i].tv_sec = (time_t)v[i];
			mc->times[i].tv_nsec = 0;
		}
		return 0;
	}
	if (nr == __NR_utimensat) {
		rc = rd(ctx, addr, v, 4 * sizeof(int64_t));
		if (rc)
			return EFAULT;
		for (i = 0; i < 2; i++) {
			mc->times[i].tv_sec = (time_t)v[2 * i];
			mc->times[i].tv_nsec = (long)v[2 * i + 1];
			if (v[2 * i + 1] != UTIME_NOW &&
			    v[2 * i + 1] != UTIME_OMIT &&
			    (v[2 * i + 1] < 0 || v[2 * i + 1] >= 1000000000))
				return EINVAL;
		}
		return 0;
	}
	/* struct timeval[2] */
	rc = rd(ctx, addr, v, 4 * sizeof(int64_t));
	if (rc)
		return EFAULT;
	for (i = 0; i < 2; i++) {
		if (v[2 * i + 1] < 0 || v[2 * i + 1] >= 1000000)
			return EINVAL;
		mc->times[i].tv_sec = (time_t)v[2 * i];
		mc->times[i].tv_nsec = (long)(v[2 * i + 1] * 1000);
	}
	return 0;
}

int metacall_decode(const struct seccomp_data *d, child_read_fn rd,
		    void *ctx, struct metacall *out)
{
	unsigned nr = (unsigned)d->nr & ~X32_BIT;
	const __u64 *a = d->args;
	int k = find(d), rc = 0, argi;
	uint64_t flags = 0;

	memset(out, 0, sizeof(*out));
	out->fd = AT_FDCWD;
	if (k < 0)
		return ENOSYS;
	out->op = calls[k].op;
	switch (calls[k].shape) {
	case BY_PATH:
	case BY_LPATH:
		out->nofollow = calls[k].shape == BY_LPATH;
		rc = child_read_str(rd, ctx, a[0], PATH_MAX - 1, ENAMETOOLONG,
			      &out->path);
		argi = 1;
		break;
	case BY_FD:
		out->fd = (int)(uint32_t)a[0];
		if (out->fd < 0)
			return EBADF;
		argi = 1;
		break;
	case BY_AT:
		out->fd = (int)(uint32_t)a[0];
		if (calls[k].flags_arg >= 0)
			flags = (uint32_t)a[calls[k].flags_arg];
		if (flags & ~(uint64_t)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
			return EINVAL;
		out->nofollow = (flags & AT_SYMLINK_NOFOLLOW) != 0;
		/* utimensat(fd, NULL, ...) is futimens(fd, ...) */
		if (nr == __NR_utimensat && !a[1]) {
			if (out->fd == AT_FDCWD)
				return EFAULT;
		} else {
			rc = child_read_str(rd, ctx, a[1], PATH_MAX - 1,
				      ENAMETOOLONG, &out->path);
		}
		if (!rc && out->path && !out->path[0]) {
			if (!(flags & AT_EMPTY_PATH))
				rc = ENOENT;
			free(out->path);
			out->path = NULL;
		}
		argi = 2;
		break;
	default:
		return ENOSYS;
	}
	if (rc)
		goto fail;
	if (out->path && !out->path[0]) {
		rc = ENOENT;
		goto fail;
	}
	switch (out->op) {
	case METACALL_CHMOD:
		out->mode = (uint32_t)a[argi] & 07777;
		break;
	case METACALL_CHOWN:
		out->uid = (uint32_t)a[argi];
		out->gid = (uint32_t)a[argi + 1];
		break;
	case METACALL_UTIMES:
		rc = read_times(rd, ctx, nr, a[argi], out);
		break;
	case METACALL_TRUNCATE:
		out->length = (int64_t)a[argi];
		if (out->length < 0)
			rc = EINVAL;
		break;
	case METACALL_SETXATTR:
	case METACALL_REMOVEXATTR:
		rc = child_read_str(rd, ctx, a[argi], METACALL_XATTR_NAME_MAX, ERANGE,
			      &out->name);
		if (!rc && !out->name[0])
			rc = ERANGE;
		if (rc || out->op == METACALL_REMOVEXATTR)
			break;
		out->size = (size_t)a[argi + 2];
		out->xflags = (int)(uint32_t)a[argi + 3];
		if (out->xflags & ~(XATTR_CREATE | XATTR_REPLACE)) {
			rc = EINVAL;
			break;
		}
		if (out->size > METACALL_XATTR_SIZE_MAX) {
			rc = E2BIG;
			break;
		}
		out->value = xmalloc(out->size ? out->size : 1);
		if (out->size && rd(ctx, a[argi + 1], out->value, out->size))
			rc = EFAULT;
		break;
	default:
		BUG("metacall op %d", (int)out->op);
	}
	if (!rc)
		return 0;
fail:
	metacall_release(out);
	return rc;
}

void metacall_release(struct metacall *mc)
{
	free(mc->path);
	free(mc->name);
	free(mc->value);
	mc->path = mc->name = NULL;
	mc->value = NULL;
}

/* Open /proc/TID/WHAT (O_PATH plus @flags): an fd, or -1 with errno. */
static int open_proc(pid_t tid, const char *what, int flags)
{
	char path[64];

	child_proc_path(path, sizeof(path), tid, what);
	return open(path, O_PATH | O_CLOEXEC | flags);
}

/* The target of @mc, opened O_PATH as the kernel would find it. */
static int open_target(const struct metacall *mc, pid_t tid, int *rc)
{
	struct open_how how;
	char what[32];
	int base, fd;

	if (!mc->path) {
		snprintf(what, sizeof(what), "fd/%d", mc->fd);
		fd = open_proc(tid, what, 0);
		*rc = fd < 0 ? EBADF : 0;
		return fd;
	}
	if (mc->path[0] == '/')
		base = open_proc(tid, "root", O_DIRECTORY);
	else if (mc->fd == AT_FDCWD)
		base = open_proc(tid, "cwd", O_DIRECTORY);
	else {
		snprintf(what, sizeof(what), "fd/%d", mc->fd);
		base = open_proc(tid, what, 0);
		if (base >= 0) {
			struct stat st;

			if (fstat(base, &st) < 0 || !S_ISDIR(st.st_mode)) {
				close(base);
				*rc = ENOTDIR;
				return -1;
			}
		}
	}
	if (base < 0) {
		*rc = errno == ENOENT ? EBADF : EACCES;
		return -1;
	}
	memset(&how, 0, sizeof(how));
	how.flags = O_PATH | O_CLOEXEC | (mc->nofollow ? O_NOFOLLOW : 0);
	/* /proc's magic links would name vbox-exec's own, not the child's */
	how.resolve = RESOLVE_NO_MAGICLINKS |
		      (mc->path[0] == '/' ? RESOLVE_IN_ROOT : 0);
	fd = child_openat2(base, mc->path, &how);
	*rc = fd < 0 ? errno : 0;
	if (fd < 0 && (*rc == EXDEV || *rc == EAGAIN))
		*rc = EACCES;
	close(base);
	return fd;
}

int metacall_run(const struct metacall *mc, pid_t tid,
		 bool (*writable)(void *ctx, const char *path), void *ctx)
{
	char *path;
	int fd, rc;

	fd = open_target(mc, tid, &rc);
	if (fd < 0)
		return rc;
	/*
	 * A file with a path is judged; a pipe or socket is the child's; a
	 * file whose path the kernel cannot print (past PATH_MAX) is not
	 * taken for a pipe.
	 */
	switch (self_fd_file(fd, &path)) {
	case 1:
		rc = writable(ctx, path) ? metacall_apply(mc, fd) : EROFS;
		break;
	case 0:
		rc = metacall_apply(mc, fd);
		break;
	default:
		rc = EACCES;
	}
	free(path);
	close(fd);
	return rc;
}

int metacall_apply(const struct metacall *mc, int fd)
{
	char proc[64];
	struct stat st;
	int rc = 0;

	if (fstat(fd, &st) < 0)
		return errno;
	/*
	 * A device's inode is the host's (/dev/null, the user's terminal,
	 * which a child that owns it could make world-writable): its
	 * metadata is never changed from the sandbox.
	 */
	if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
		return EPERM;
	proc_name(proc, sizeof(proc), "/proc/self/fd/", fd, "");
	switch (mc->op) {
	case METACALL_CHMOD:
		if (mc->mode & (S_ISUID | S_ISGID))
			rc = EPERM;	/* as seccomp.c for the unsupervised */
		else if (S_ISLNK(st.st_mode))
			rc = EOPNOTSUPP;
		else if (fchmodat(AT_FDCWD, proc, (mode_t)mc->mode, 0) < 0)
			rc = errno;
		break;
	case METACALL_CHOWN:
		if (fchownat(fd, "", (uid_t)mc->uid, (gid_t)mc->gid,
			     AT_EMPTY_PATH) < 0)
			rc = errno;
		break;
	case METACALL_UTIMES:
		if (S_ISLNK(st.st_mode))
			rc = EPERM;
		else if (utimensat(AT_FDCWD, proc, mc->now ? NULL : mc->times,
				   0) < 0)
			rc = errno;
		break;
	case METACALL_SETXATTR:
		if (S_ISLNK(st.st_mode))
			rc = EPERM;
		else if (setxattr(proc, mc->name, mc->value, mc->size,
				  mc->xflags) < 0)
			rc = errno;
		break;
	case METACALL_REMOVEXATTR:
		if (S_ISLNK(st.st_mode))
			rc = EPERM;
		else if (removexattr(proc, mc->name) < 0)
			rc = errno;
		break;
	case METACALL_TRUNCATE:
		if (S_ISDIR(st.st_mode))
			rc = EISDIR;
		else if (truncate(proc, (off_t)mc->length) < 0)
			rc = errno;
		break;
	default:
		BUG("metacall op %d", (int)mc->op);
	}
	return rc;
}
