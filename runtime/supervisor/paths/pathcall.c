/* SPDX-License-Identifier: MIT */
/*
 * pathcall.c - decode the supervised path calls (pathcall.h).  Pure: the
 * child's memory is read through a callback, so the fuzzer drives it.
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <sys/syscall.h>

#include "pathcall.h"

#define X32_BIT 0x40000000u
#define PAGE 4096u

#ifndef AT_EMPTY_PATH
#define AT_EMPTY_PATH 0x1000
#endif
#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#define RENAME_EXCHANGE (1 << 1)
#define RENAME_WHITEOUT (1 << 2)
#endif

/*
 * How a call lays out its arguments:
 * @dir0, @path0: argument indexes of the first directory fd (-1:
 *                AT_FDCWD) and path
 * @dir1, @path1: the second (LINK, RENAME; SYMLINK: the new name, with
 *                the link's contents at @path0)
 * @flags: the flags' argument (-1: none)
 * @mode: the mode's argument (-1: none)
 */
struct shape {
	unsigned nr;
	enum pathcall_op op;
	int dir0, path0, dir1, path1;
	int flags, mode;
};

static const struct shape calls[] = {
	{ __NR_open, PATHCALL_OPEN, -1, 0, -1, -1, 1, 2 },
	{ __NR_openat, PATHCALL_OPEN, 0, 1, -1, -1, 2, 3 },
	{ __NR_openat2, PATHCALL_OPEN, 0, 1, -1, -1, -1, -1 },
	{ __NR_creat, PATHCALL_OPEN, -1, 0, -1, -1, -1, 1 },
	{ __NR_mkdir, PATHCALL_MKDIR, -1, 0, -1, -1, -1, 1 },
	{ __NR_mkdirat, PATHCALL_MKDIR, 0, 1, -1, -1, -1, 2 },
	{ __NR_mknod, PATHCALL_MKNOD, -1, 0, -1, -1, -1, 1 },
	{ __NR_mknodat, PATHCALL_MKNOD, 0, 1, -1, -1, -1, 2 },
	{ __NR_symlink, PATHCALL_SYMLINK, -1, 0, -1, 1, -1, -1 },
	{ __NR_symlinkat, PATHCALL_SYMLINK, -1, 0, 1, 2, -1, -1 },
	{ __NR_link, PATHCALL_LINK, -1, 0, -1, 1, -1, -1 },
	{ __NR_linkat, PATHCALL_LINK, 0, 1, 2, 3, 4, -1 },
	{ __NR_unlink, PATHCALL_UNLINK, -1, 0, -1, -1, -1, -1 },
	{ __NR_unlinkat, PATHCALL_UNLINK, 0, 1, -1, -1, 2, -1 },
	{ __NR_rmdir, PATHCALL_UNLINK, -1, 0, -1, -1, -1, -1 },
	{ __NR_rename, PATHCALL_RENAME, -1, 0, -1, 1, -1, -1 },
	{ __NR_renameat, PATHCALL_RENAME, 0, 1, 2, 3, -1, -1 },
	{ __NR_renameat2, PATHCALL_RENAME, 0, 1, 2, 3, 4, -1 },
	{ __NR_execve, PATHCALL_EXEC, -1, 0, -1, -1, -1, -1 },
	{ __NR_execveat, PATHCALL_EXEC, 0, 1, -1, -1, 4, -1 },
};

static const struct shape *find(const struct seccomp_data *d)
{
	size_t i;

	if (d->arch != AUDIT_ARCH_X86_64 || (d->nr & X32_BIT))
		return NULL;
	for (i = 0; i < array_size(calls); i++)
		if (calls[i].nr == (unsigned)d->nr)
			return &calls[i];
	return NULL;
}

bool pathcall_is(const struct seccomp_data *d)
{
	/* Other entries (x32, i386) go the socket calls' way: ENOSYS. */
	return find(d) != NULL;
}

/* openat2()'s struct open_how, as the kernel copies it: 0 or an errno. */
static int read_how(child_read_fn rd, void *ctx, uint64_t addr,
		    uint64_t size, struct pathcall *out)
{
	unsigned char buf[PAGE];
	struct open_how how;
	size_t i;

	if (size < sizeof(how))
		return EINVAL;
	if (size > PAGE)
		return E2BIG;
	if (rd(ctx, addr, buf, (size_t)size))
		return EFAULT;
	/* Fields a newer kernel knows and this one does not: zero, or E2BIG. */
	for (i = sizeof(how); i < size; i++)
		if (buf[i])
			return E2BIG;
	memcpy(&how, buf, sizeof(how));
	if (how.flags >> 32)
		return EINVAL;
	if (how.mode >> 32 || (how.mode & ~(uint64_t)07777))
		return EINVAL;
	if (how.mode && !(how.flags & (O_CREAT | (O_TMPFILE & ~O_DIRECTORY))))
		return EINVAL;
	out->flags = how.flags;
	out->mode = (uint32_t)how.mode;
	out->resolve = how.resolve;
	return 0;
}

/* The flags each call takes, beyond which the kernel says EINVAL. */
static int check_flags(const struct pathcall *pc)
{
	uint64_t ok;

	switch (pc->op) {
	case PATHCALL_LINK:
		ok = AT_SYMLINK_FOLLOW | AT_EMPTY_PATH;
		break;
	case PATHCALL_UNLINK:
		ok = AT_REMOVEDIR;
		break;
	case PATHCALL_RENAME:
		ok = RENAME_NOREPLACE | RENAME_EXCHANGE | RENAME_WHITEOUT;
		if ((pc->flags & RENAME_NOREPLACE) &&
		    (pc->flags & RENAME_EXCHANGE))
			return EINVAL;
		break;
	case PATHCALL_EXEC:
		ok = AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW;
		break;
	case PATHCALL_OPEN:
	case PATHCALL_MKDIR:
	case PATHCALL_MKNOD:
	case PATHCALL_SYMLINK:
	default:
		return 0;
	}
	return pc->flags & ~ok ? EINVAL : 0;
}

int pathcall_decode(const struct seccomp_data *d, child_read_fn rd,
		    void *ctx, struct pathcall *out)
{
	const struct shape *s = find(d);
	const __u64 *a = d->args;
	int rc = 0, k;

	memset(out, 0, sizeof(*out));
	out->dirfd[0] = out->dirfd[1] = AT_FDCWD;
	if (!s)
		return ENOSYS;
	out->op = s->op;
	out->nr = s->nr;
	if (s->flags >= 0)
		out->flags = s->op == PATHCALL_OPEN ? (uint32_t)a[s->flags] :
						       a[s->flags];
	if (s->nr == __NR_creat)
		out->flags = O_CREAT | O_WRONLY | O_TRUNC;
	if (s->mode >= 0)
		out->mode = (uint32_t)a[s->mode];
	if (s->op == PATHCALL_MKNOD)
		out->dev = (uint32_t)a[s->mode + 1];
	if (s->nr == __NR_openat2)
		rc = read_how(rd, ctx, a[2], a[3], out);
	if (!rc)
		rc = check_flags(out);
	if (rc)
		return rc;
	if (s->dir0 >= 0)
		out->dirfd[0] = (int)(uint32_t)a[s->dir0];
	if (s->dir1 >= 0)
		out->dirfd[1] = (int)(uint32_t)a[s->dir1];
	if (s->op == PATHCALL_SYMLINK) {
		/* symlink(target, linkpath): the name made is the path. */
		rc = child_read_str(rd, ctx, a[s->path0], PATH_MAX - 1,
				       ENAMETOOLONG, &out->target);
		if (!rc)
			rc = child_read_str(rd, ctx, a[s->path1],
					       PATH_MAX - 1, ENAMETOOLONG,
					       &out->path[0]);
		out->dirfd[0] = out->dirfd[1];
		out->dirfd[1] = AT_FDCWD;
		if (!rc && (!out->target[0] || !out->path[0]))
			rc = ENOENT;
		goto done;
	}
	for (k = 0; k < 2 && !rc; k++) {
		int arg = k ? s->path1 : s->path0;

		if (arg < 0)
			break;
		rc = child_read_str(rd, ctx, a[arg], PATH_MAX - 1,
				       ENAMETOOLONG, &out->path[k]);
		/* "" names the directory fd only with AT_EMPTY_PATH. */
		if (!rc && !out->path[k][0] &&
		    !(k == 0 && (out->flags & AT_EMPTY_PATH) &&
		      (s->op == PATHCALL_LINK || s->op == PATHCALL_EXEC)))
			rc = ENOENT;
	}
done:
	if (rc)
		pathcall_release(out);
	return rc;
}

void pathcall_release(struct pathcall *pc)
{
	free(pc->path[0]);
	free(pc->path[1]);
	free(pc->target);
	pc->path[0] = pc->path[1] = pc->target = NULL;
}
