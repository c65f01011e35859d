/* SPDX-License-Identifier: MIT */
/*
 * pathcall_run.c - make the supervised path calls (pathcall_run.h).
 *
 * Every path is made absolute as the sandbox names it (the child's
 * working directory or directory fd read through /proc), then resolved
 * with openat2(RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS) from the
 * sandbox's root: symlinks and ".." as the kernel follows them for the
 * child, through the child's own mounts (read-only ones stay read-only).
 * What is judged is what was reached: the path of the fd opened, or of
 * the parent directory opened plus the name made.  The call is then made
 * on that fd or in that directory, never by the path again, so nothing
 * the child changes after the judgement redirects it.
 *
 * The resolution and judging every call starts with are
 * pathcall_resolve.c's (pathcall_int.h); the opens are pathcall_open.c's.
 * Here: the names (mkdir, mknod, symlink, unlink, link, rename), exec and
 * the metadata calls, and the dispatch.
 */
#include <vbox.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <linux/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "supervisor/childpath.h"
#include "execinterp.h"
#include "supervisor/metacall.h"
#include "pathcall.h"
#include "pathcall_int.h"
#include "pathcall_run.h"
#include "strbuf.h"

#ifndef AT_EMPTY_PATH
#define AT_EMPTY_PATH 0x1000
#endif
#ifndef SYS_statx
#define SYS_statx 332	/* x86_64 */
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif
#ifndef RENAME_WHITEOUT
#define RENAME_WHITEOUT (1 << 2)
#endif

/* A renamed directory's look below: entries and levels, then EXDEV. */
#define RENAME_WALK_ENTRIES 10000
#define RENAME_WALK_DEPTH 32

/* ------------------------------------------------------------------ */
/* names: mkdir, mknod, symlink, unlink, link, rename */

/* A name a call makes or removes: its opened parent, the name, and
 * the path judged. */
struct name {
	int pfd;
	char *name;
	struct strbuf judged;
};

static void name_release(struct name *n)
{
	if (n->pfd >= 0)
		close(n->pfd);
	free(n->name);
	free(n->judged.s);
	n->pfd = -1;
	n->name = NULL;
	n->judged = (struct strbuf){ 0 };
}

/*
 * Path @k of @pc as a struct name (*@n), with the write judged, and with
 * @entries the write of its directory (pc_judge_entries()).
 */
static int name_of(const struct pathcall *pc, const struct pathcall_env *e,
		   int k, const char *what, bool entries, struct name *n)
{
	struct strbuf full = { 0 };
	int rc;

	rc = pc_full_path(e, pc->dirfd[k], pc->path[k], &full);
	if (!rc && pc_own_fd_name(full.s) >= 0)
		rc = EACCES;
	if (!rc)
		rc = pc_rewrite_self(e, &full);
	if (!rc)
		rc = pc_open_parent(e, full.s, &n->pfd, &n->name, &n->judged);
	free(full.s);
	if (!rc)
		rc = e->judge(e->judge_ctx, n->judged.s, PJ_WRITE, what);
	if (!rc && entries)
		rc = pc_judge_entries(e, &n->judged);
	return rc;
}

struct walk {
	const struct pathcall_env *e;
	size_t entries;
	int err;
};

/*
 * Does moving @from to @to change what the table says of the entry?
 * 1: it would get more at @to (a key moved out of its denied directory);
 * -1: less (a file the child wrote moved into a read-only or denied
 * place: made there with the child's content, which the table refuses
 * to any create); 0: the same.
 */
static int move_changes(const struct pathcall_env *e, const char *from,
			const char *to)
{
	bool r_from = e->judge(e->judge_ctx, from, PJ_READ, NULL) == 0;
	bool w_from = e->judge(e->judge_ctx, from, PJ_WRITE, NULL) == 0;
	bool r_to = e->judge(e->judge_ctx, to, PJ_READ, NULL) == 0;
	bool w_to = e->judge(e->judge_ctx, to, PJ_WRITE, NULL) == 0;

	if ((r_to && !r_from) || (w_to && !w_from))
		return 1;
	return r_to != r_from || w_to != w_from ? -1 : 0;
}

/*
 * Every entry below directory @dfd (consumed) at @from, would the table
 * say the same of it at @to?  Bounded: past the bounds, EXDEV (`mv` then copies, each
 * file judged).
 */
static void walk_below(struct walk *w, int dfd, struct strbuf *from,
		       struct strbuf *to, int depth)
{
	size_t flen = from->len, tlen = to->len;
	struct dirent *de;
	int change;
	DIR *d;

	if (depth > RENAME_WALK_DEPTH) {
		w->err = EXDEV;
		close(dfd);
		return;
	}
	d = fdopendir(dfd);
	if (!d) {
		w->err = EXDEV;
		close(dfd);
		return;
	}
	while (!w->err && (errno = 0, de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (++w->entries > RENAME_WALK_ENTRIES) {
			w->err = EXDEV;
			break;
		}
		strbuf_putc(from, '/');
		strbuf_puts(from, de->d_name);
		strbuf_putc(to, '/');
		strbuf_puts(to, de->d_name);
		change = move_changes(w->e, from->s, to->s);
		if (change) {
			/* said once, by the row the entry would escape, or
			 * by the one it would land under */
			(void)w->e->judge(w->e->judge_ctx,
					  change > 0 ? from->s : to->s,
					  PJ_READ | PJ_WRITE, change > 0 ?
					  "moving rename" :
					  "rename into");
			w->err = EACCES;
		} else if (de->d_type == DT_DIR || de->d_type == DT_UNKNOWN) {
			int sub = openat(dirfd(d), de->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					 O_CLOEXEC);

			if (sub >= 0)
				walk_below(w, sub, from, to, depth + 1);
			else if (errno != ENOTDIR && errno != ELOOP)
				w->err = EXDEV;
		}
		from->len = flen;
		from->s[flen] = '\0';
		to->len = tlen;
		to->s[tlen] = '\0';
	}
	if (!w->err && errno)
		w->err = EXDEV;
	closedir(d);
}

/* A directory @name in @pfd moving from @from to @to: 0 or an errno. */
static int judge_move(const struct pathcall_env *e, int pfd, const char *name,
		      const char *from, const char *to)
{
	struct strbuf f = { 0 }, t = { 0 };
	struct walk w = { e, 0, 0 };
	struct stat st;
	int dfd;

	if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISDIR(st.st_mode))
		return 0;	/* not a directory: nothing moves below */
	if (e->below && !e->below(e->judge_ctx, from, to))
		return 0;
	dfd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			       O_CLOEXEC);
	if (dfd < 0)
		return EXDEV;
	strbuf_puts(&f, from);
	strbuf_puts(&t, to);
	walk_below(&w, dfd, &f, &t, 0);
	free(f.s);
	free(t.s);
	return w.err;
}

/*
 * Is @name in @pfd a mount point of the sandbox (a row's bind, a
 * placeholder)?  The kernel refuses to unlink or rename one (EBUSY) only
 * when it is a mount point in the caller's own mount namespace, and the
 * supervisor is not in the sandbox's: asked here, by mount id.  0 (not
 * one, or no such name), EBUSY, or an errno.
 */
static int not_mount_point(int pfd, const char *name)
{
	struct statx dir, ent;

	/* (raw: not every C library has statx() yet) */
	if (syscall(SYS_statx, pfd, "", AT_EMPTY_PATH, STATX_MNT_ID, &dir) < 0)
		return errno;
	if (syscall(SYS_statx, pfd, name, AT_SYMLINK_NOFOLLOW, STATX_MNT_ID,
		    &ent) < 0)
		return errno == ENOENT ? 0 : errno;
	if (!(dir.stx_mask & ent.stx_mask & STATX_MNT_ID))
		return EBUSY;	/* cannot tell: refused */
	return dir.stx_mnt_id == ent.stx_mnt_id ? 0 : EBUSY;
}

static int run_rename(const struct pathcall *pc, const struct pathcall_env *e)
{
	struct name a = { .pfd = -1 }, b = { .pfd = -1 };
	int rc;

	if (pc->flags & RENAME_WHITEOUT)
		return EPERM;	/* needs CAP_MKNOD: the child has none */
	rc = name_of(pc, e, 0, "rename", true, &a);
	if (!rc)
		rc = name_of(pc, e, 1, "rename", true, &b);
	if (!rc && (pc_dot_name(a.name) || pc_dot_name(b.name)))
		rc = EBUSY;
	if (!rc)
		rc = not_mount_point(a.pfd, a.name);
	if (!rc)
		rc = not_mount_point(b.pfd, b.name);
	if (!rc)
		rc = judge_move(e, a.pfd, a.name, a.judged.s, b.judged.s);
	if (!rc && (pc->flags & RENAME_EXCHANGE))
		rc = judge_move(e, b.pfd, b.name, b.judged.s, a.judged.s);
	if (!rc && syscall(SYS_renameat2, a.pfd, a.name, b.pfd, b.name,
			   (unsigned)pc->flags) < 0)
		rc = errno;
	name_release(&a);
	name_release(&b);
	return rc;
}

/* The source of link(): judged for writing, as the new name. */
static int run_link(const struct pathcall *pc, const struct pathcall_env *e)
{
	struct name a = { .pfd = -1 }, b = { .pfd = -1 };
	struct strbuf full = { 0 };
	char proc[64];
	int src = -1, rc, own;

	if (pc->flags & AT_EMPTY_PATH && !pc->path[0][0])
		return ENOENT;	/* needs CAP_DAC_READ_SEARCH */
	rc = name_of(pc, e, 1, "link", true, &b);
	if (rc || !(pc->flags & AT_SYMLINK_FOLLOW)) {
		if (!rc)
			rc = name_of(pc, e, 0, "link", false, &a);
		if (!rc && linkat(a.pfd, a.name, b.pfd, b.name, 0) < 0)
			rc = errno;
		goto out;
	}
	/* The file the link leads to, or the child's own fd. */
	rc = pc_full_path(e, pc->dirfd[0], pc->path[0], &full);
	if (rc)
		goto out;
	own = pc_own_fd_name(full.s);
	if (own >= 0)
		rc = e->take ? e->take(e->take_ctx, e->tid, own, &src, NULL) :
			       EACCES;
	else if (!(rc = pc_rewrite_self(e, &full)))
		src = child_open_in_root(e->root_fd, full.s, 0, &rc);
	if (src < 0) {
		rc = rc == EBADF ? ENOENT : rc;
		goto out;
	}
	rc = pc_judge_fd(e, src, PJ_WRITE, "link", false);
	if (rc)
		goto out;
	pc_self_fd(proc, sizeof(proc), src);
	if (linkat(AT_FDCWD, proc, b.pfd, b.name, AT_SYMLINK_FOLLOW) < 0)
		rc = errno;
out:
	if (src >= 0)
		close(src);
	name_release(&a);
	name_release(&b);
	free(full.s);
	return rc;
}

/* mkdir, mknod, symlink, unlink: one name and its directory, judged
 * for writing. */
static int run_name(const struct pathcall *pc, const struct pathcall_env *e)
{
	static const char *const what[] = {
		[PATHCALL_MKDIR] = "mkdir", [PATHCALL_MKNOD] = "mknod",
		[PATHCALL_SYMLINK] = "symlink", [PATHCALL_UNLINK] = "unlink",
	};
	struct name n = { .pfd = -1 };
	const char *name;
	int pfd, rc;
	mode_t mask = 0, old;
	bool rmdir_ = pc->nr == SYS_rmdir || (pc->flags & AT_REMOVEDIR);

	rc = name_of(pc, e, 0, what[pc->op], true, &n);
	if (rc)
		goto out;
	pfd = n.pfd;
	name = n.name;
	if (pc_dot_name(name)) {
		rc = pc->op != PATHCALL_UNLINK ? EEXIST :
		     !rmdir_ ? EISDIR : name[1] == '.' ? ENOTEMPTY : EINVAL;
		goto out;
	}
	if (pc->op != PATHCALL_UNLINK) {
		rc = pc_creator(e, &mask);
		if (rc)
			goto out;
	}
	old = umask(mask);
	switch (pc->op) {
	case PATHCALL_MKDIR:
		rc = mkdirat(pfd, name, (mode_t)pc->mode) < 0 ? errno : 0;
		break;
	case PATHCALL_MKNOD:
		switch (pc->mode & S_IFMT) {
		case 0:
		case S_IFREG:
		case S_IFIFO:
		case S_IFSOCK:
			/* no set-id file (seccomp.c, build_setid()) */
			if (pc->mode & (S_ISUID | S_ISGID))
				rc = EPERM;
			else
				rc = mknodat(pfd, name, (mode_t)pc->mode,
					     (dev_t)pc->dev) < 0 ? errno : 0;
			break;
		case S_IFCHR:
		case S_IFBLK:
			rc = EPERM;	/* no CAP_MKNOD in the sandbox */
			break;
		default:
			rc = EINVAL;
		}
		break;
	case PATHCALL_SYMLINK:
		rc = symlinkat(pc->target, pfd, name) < 0 ? errno : 0;
		break;
	case PATHCALL_UNLINK:
		rc = not_mount_point(pfd, name);
		if (!rc && unlinkat(pfd, name, rmdir_ ? AT_REMOVEDIR : 0) < 0)
			rc = errno;
		break;
	case PATHCALL_OPEN:
	case PATHCALL_LINK:
	case PATHCALL_RENAME:
	case PATHCALL_EXEC:
	default:
		BUG("pathcall op %d", (int)pc->op);
	}
	umask(old);
out:
	name_release(&n);
	return rc;
}

/* ------------------------------------------------------------------ */
/* exec */

/* execinterp_read_fn over a file descriptor. */
static long read_prog(void *ctx, uint64_t off, void *buf, size_t len)
{
	const int *fd = ctx;

	if (off > (uint64_t)INT64_MAX)
		return -1;
	return (long)pread(*fd, buf, len, (off_t)off);
}

/*
 * The interpreters program @prog (an O_PATH fd) names, each judged for
 * reading: the kernel opens a "#!" interpreter and an ELF program's
 * PT_INTERP without a call the filter sees.  A script's interpreter may
 * be a script again (the kernel goes 4 deep).  A program the supervisor
 * cannot read (execute-only) is not looked into: doc/launcher.md.
 */
static int judge_interps(const struct pathcall_env *e, int prog, int depth)
{
	struct strbuf full = { 0 };
	char proc[64], *interp = NULL;
	int rfd, fd, rc, script;

	pc_self_fd(proc, sizeof(proc), prog);
	rfd = open(proc, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (rfd < 0)
		return 0;
	rc = execinterp_name(read_prog, &rfd, &interp, &script);
	close(rfd);
	if (rc <= 0)
		return rc < 0 ? EACCES : 0;
	rc = pc_full_path(e, AT_FDCWD, interp, &full);
	if (!rc)
		rc = pc_rewrite_self(e, &full);
	fd = rc ? -1 : child_open_in_root(e->root_fd, full.s, 0, &rc);
	if (fd >= 0) {
		rc = pc_judge_fd(e, fd, PJ_READ, "exec interpreter", false);
		if (!rc && script && depth < 4)
			rc = judge_interps(e, fd, depth + 1);
		close(fd);
	} else if (rc != ENOENT) {
		rc = EACCES;	/* not resolved here: not run unjudged */
	}
	free(interp);
	free(full.s);
	return rc;
}

/*
 * The program's file, and the interpreters it names, judged for
 * reading.  The call then goes on (no other process can run a program
 * for the child), watched: what the kernel loads is judged again before
 * it runs (execwatch.h).
 */
static int run_exec(const struct pathcall *pc, const struct pathcall_env *e)
{
	struct strbuf full = { 0 };
	char what[64];
	int fd = -1, rc;

	if ((pc->flags & AT_EMPTY_PATH) && !pc->path[0][0]) {
		snprintf(what, sizeof(what), "/proc/%d/fd/%d", (int)e->tid,
			 pc->dirfd[0]);
		fd = open(what, O_PATH | O_CLOEXEC);
		rc = fd < 0 ? EBADF : 0;
	} else {
		rc = pc_full_path(e, pc->dirfd[0], pc->path[0], &full);
		if (!rc && (strcmp(full.s, "/proc/self/exe") == 0 ||
			    strcmp(full.s, "/proc/thread-self/exe") == 0)) {
			snprintf(what, sizeof(what), "/proc/%d/exe",
				 (int)e->tid);
			fd = open(what, O_PATH | O_CLOEXEC);
			rc = fd < 0 ? EACCES : 0;
		} else if (!rc && !(rc = pc_rewrite_self(e, &full))) {
			fd = child_open_in_root(e->root_fd, full.s,
				(pc->flags & AT_SYMLINK_NOFOLLOW) ?
				O_NOFOLLOW : 0, &rc);
		}
	}
	if (fd >= 0) {
		rc = pc_judge_fd(e, fd, PJ_READ, "exec", false);
		if (!rc)
			rc = judge_interps(e, fd, 0);
		close(fd);
	}
	free(full.s);
	return rc;
}

void pathcall_run(const struct pathcall *pc, const struct pathcall_env *env,
		  struct pathcall_result *res)
{
	memset(res, 0, sizeof(*res));
	res->fd = -1;
	switch (pc->op) {
	case PATHCALL_OPEN:
		pathcall_open(pc, env, res);
		break;
	case PATHCALL_MKDIR:
	case PATHCALL_MKNOD:
	case PATHCALL_SYMLINK:
	case PATHCALL_UNLINK:
		res->err = run_name(pc, env);
		break;
	case PATHCALL_LINK:
		res->err = run_link(pc, env);
		break;
	case PATHCALL_RENAME:
		res->err = run_rename(pc, env);
		break;
	case PATHCALL_EXEC:
		res->err = run_exec(pc, env);
		res->exec_go = res->err == 0;
		break;
	default:
		BUG("pathcall op %d", (int)pc->op);
	}
	if (res->err && res->fd >= 0) {
		close(res->fd);
		res->fd = -1;
	}
}

int pathcall_meta(const struct metacall *mc, const struct pathcall_env *e)
{
	struct strbuf full = { 0 };
	char what[64];
	int fd, rc;

	if (!mc->path) {
		snprintf(what, sizeof(what), "/proc/%d/fd/%d", (int)e->tid,
			 mc->fd);
		fd = open(what, O_PATH | O_CLOEXEC);
		if (fd < 0)
			return EBADF;
		/* a pipe or a socket is the child's own */
		rc = pc_judge_fd(e, fd, PJ_WRITE, "change", true);
	} else {
		rc = pc_full_path(e, mc->fd, mc->path, &full);
		if (!rc && pc_own_fd_name(full.s) >= 0)
			rc = EACCES;
		if (!rc)
			rc = pc_rewrite_self(e, &full);
		fd = rc ? -1 : child_open_in_root(e->root_fd, full.s,
				mc->nofollow ? O_NOFOLLOW : 0, &rc);
		free(full.s);
		if (fd < 0)
			return rc;
		rc = pc_judge_fd(e, fd, PJ_WRITE, "change", false);
	}
	if (!rc)
		rc = metacall_apply(mc, fd);
	close(fd);
	return rc;
}
