/* SPDX-License-Identifier: MIT */
/*
 * pathcall_open.c - the supervised opens (open, openat, openat2, creat):
 * the file reached is judged and reopened through /proc/self/fd, a new
 * name judged before it is made (pathcall_run.h; the shared resolution
 * is pathcall_int.h's).
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <linux/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "supervisor/childpath.h"
#include "pathcall.h"
#include "pathcall_int.h"
#include "pathcall_run.h"
#include "strbuf.h"

/* Symbolic links followed by hand (O_CREAT's last one), as the kernel. */
#define LINKS_MAX 40

/* The controlling terminal (tty_nr, field 7) of /proc/WHO/stat; 0: none. */
static long ctty_of(const char *who)
{
	char path[64], buf[1024], *p;
	ssize_t n;
	long tty = 0;
	int fd, field;

	if (snprintf(path, sizeof(path), "/proc/%s/stat", who) >=
	    (int)sizeof(path))
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* after the command's name, which may hold anything: its last ')' */
	p = strrchr(buf, ')');
	for (field = 2; p && field < 7; field++)
		p = strchr(p + 1, ' ');
	if (p)
		tty = strtol(p + 1, NULL, 10);
	return tty;
}

/*
 * /dev/tty opened by the supervisor would be the supervisor's own
 * terminal: the child gets it only when that is its controlling
 * terminal too (it has one unless its session is new).  0 or ENXIO.
 */
static int own_tty(const struct pathcall_env *e)
{
	char who[32];
	long child, ours;

	snprintf(who, sizeof(who), "%d", (int)e->tid);
	child = ctty_of(who);
	ours = ctty_of("self");
	return child && child == ours ? 0 : ENXIO;
}

/*
 * Open the judged file @fd0 (an O_PATH fd, or the child's own fd) again
 * as the child asked, through the magic link: exactly this file.
 * O_NOFOLLOW there would refuse the link itself, O_CREAT and O_EXCL are
 * spent; O_NOCTTY always (a terminal must never become the
 * supervisor's).  A FIFO that blocks is left to a thread (@res->blocking,
 * @fd0 kept); anything else is opened without blocking (a device or a
 * leased file would block the supervisor's loop), then as asked.
 * Consumes @fd0 otherwise.
 */
static void reopen(const struct pathcall_env *e, int fd0,
		   const struct stat *st, uint64_t flags, bool keep_nofollow,
		   struct pathcall_result *res)
{
	char proc[64];
	int reflags, fd;
	uint64_t drop = O_CREAT | O_EXCL | (keep_nofollow ? 0 : O_NOFOLLOW);

	reflags = (int)(flags & ~drop) | O_CLOEXEC | O_NOCTTY;
	if (S_ISCHR(st->st_mode) && st->st_rdev == makedev(5, 0)) {
		res->err = own_tty(e);
		if (res->err)
			goto out;
	}
	if (S_ISFIFO(st->st_mode) && !(flags & O_NONBLOCK)) {
		res->blocking = true;
		res->fd = fd0;
		res->open_flags = reflags;
		return;
	}
	pc_self_fd(proc, sizeof(proc), fd0);
	fd = open(proc, reflags | O_NONBLOCK);
	if (fd < 0) {
		res->err = errno;
		goto out;
	}
	/* F_SETFL takes the status flags only: the others are ignored */
	if (!(flags & O_NONBLOCK) && fcntl(fd, F_SETFL, reflags) < 0) {
		res->err = errno;
		close(fd);
		goto out;
	}
	res->fd = fd;
out:
	close(fd0);
}

/*
 * Is the file of our fd @fd the one its path names in the sandbox, on
 * the same mount?  An fd the child was handed from outside (its stdin
 * redirected from a host file) is on the host's mount, where the
 * sandbox's read-only binds and the table's "the mounts hold it" say
 * nothing.
 */
static bool in_sandbox(const struct pathcall_env *e, int fd)
{
	struct statx a, b;
	char *path;
	bool same = false;
	int in, rc;

	if (self_fd_file(fd, &path) != 1)
		return false;
	in = child_open_in_root(e->root_fd, path, O_NOFOLLOW, &rc);
	free(path);
	if (in < 0)
		return false;
	/* (raw: not every C library has statx() yet) */
	if (syscall(SYS_statx, fd, "", AT_EMPTY_PATH, STATX_MNT_ID | STATX_INO,
		    &a) == 0 &&
	    syscall(SYS_statx, in, "", AT_EMPTY_PATH, STATX_MNT_ID | STATX_INO,
		    &b) == 0 &&
	    (a.stx_mask & b.stx_mask & STATX_MNT_ID))
		same = a.stx_mnt_id == b.stx_mnt_id && a.stx_ino == b.stx_ino &&
		       a.stx_dev_major == b.stx_dev_major &&
		       a.stx_dev_minor == b.stx_dev_minor;
	close(in);
	return same;
}

/*
 * What an O_PATH open gets instead (doc/launcher.md, "What continues"):
 * the kernel installs no O_PATH file for the supervisor
 * (SECCOMP_IOCTL_NOTIF_ADDFD refuses one), and letting the child's own
 * call go on would let the kernel read its path (and openat2()'s flags)
 * again after the judgement.  So the handle is made from the judged
 * file, as every other open: a directory opened for reading (all that
 * O_PATH gives, and the listing, which is not judged), a regular file
 * opened for reading (judged for reading, as O_PATH is).  Nothing else
 * can be opened without effects an O_PATH handle does not have (a
 * device, a FIFO, a socket: EACCES), and a symbolic link not at all
 * (ELOOP, as without O_PATH).  The flags to reopen with, or an errno.
 */
static int opath_flags(const struct stat *st, uint64_t flags, uint64_t *out)
{
	if (S_ISLNK(st->st_mode))
		return ELOOP;
	if (!S_ISDIR(st->st_mode) && !S_ISREG(st->st_mode))
		return EACCES;
	*out = O_RDONLY | (flags & O_CLOEXEC) |
	       (S_ISDIR(st->st_mode) ? O_DIRECTORY : 0);
	return 0;
}

/*
 * The child's own fd @n (/proc/self/fd/N), reopened once judged.  A
 * reopen gains no write access the fd lacks unless the file is the
 * sandbox's own, judged as any other there (a file handed in for
 * reading, on the host's mount, is never reopened for writing).  An
 * O_PATH reopen gets a copy of the fd itself: nothing the child does not
 * hold already.
 */
static void open_own_fd(const struct pathcall_env *e, int n, uint64_t flags,
			struct pathcall_result *res)
{
	struct stat st;
	int fd, rc, acc;

	rc = e->take ? e->take(e->take_ctx, e->tid, n, &fd, &acc) : EACCES;
	if (rc) {
		res->err = rc == ESRCH ? ESRCH : rc == EBADF ? ENOENT : rc;
		return;
	}
	if ((pc_open_wants(flags) & PJ_WRITE) &&
	    (acc < 0 || (acc & O_PATH) || (acc & O_ACCMODE) == O_RDONLY) &&
	    !in_sandbox(e, fd)) {
		res->err = EACCES;
		close(fd);
		return;
	}
	rc = pc_judge_fd(e, fd, pc_open_wants(flags), "open", true);
	if (!rc && fstat(fd, &st) < 0)
		rc = errno;
	if (rc) {
		res->err = rc;
		close(fd);
		return;
	}
	if (flags & O_PATH) {
		res->fd = fd;
		return;
	}
	/* O_NOFOLLOW refuses the magic link, as the kernel would */
	reopen(e, fd, &st, flags, true, res);
}

/*
 * Open the existing, judged-to-be @fd0 (O_PATH) as the child asked;
 * @name: its path as resolved, or NULL (read back).
 */
static void open_reached(const struct pathcall_env *e, int fd0,
			 const char *name, uint64_t flags,
			 struct pathcall_result *res)
{
	struct stat st;
	int rc;

	if (fstat(fd0, &st) < 0) {
		res->err = errno;
		goto out;
	}
	if (S_ISLNK(st.st_mode)) {
		res->err = ELOOP;	/* O_NOFOLLOW on a link */
		goto out;
	}
	rc = pc_judge_named(e, fd0, name, pc_open_wants(flags), "open");
	if (rc) {
		res->err = rc;
		goto out;
	}
	if ((flags & O_DIRECTORY) && !S_ISDIR(st.st_mode)) {
		res->err = ENOTDIR;
		goto out;
	}
	if (flags & O_PATH) {
		rc = opath_flags(&st, flags, &flags);
		if (rc) {
			res->err = rc;
			goto out;
		}
	}
	reopen(e, fd0, &st, flags, false, res);
	return;
out:
	close(fd0);
}

/* The flags of a directory opened for its listing (opendir()'s open). */
#define LISTING_FLAGS                                                      \
	(O_DIRECTORY | O_NONBLOCK | O_CLOEXEC | O_LARGEFILE | O_NOCTTY)

static bool is_listing(uint64_t flags)
{
	return (flags & O_DIRECTORY) && (flags & O_ACCMODE) == O_RDONLY &&
	       !(flags & ~(uint64_t)LISTING_FLAGS);
}

/*
 * A directory opened for its listing is opened as asked and judged
 * before the child gets it, instead of an O_PATH handle judged and
 * reopened (four system calls fewer, the reopen through /proc the
 * dearest).  Nothing happens before the judgement that the handle's
 * lookup does not do too: the kernel refuses O_DIRECTORY on anything but
 * a directory before it opens it (no device's driver runs, no FIFO
 * waits), and opening a directory changes nothing (a FUSE daemon is told
 * of the open: doc/launcher.md, *Supervised paths*).  true when answered
 * here; false when the open failed, to be made again the common way, so
 * that the child gets the error it gets without this (a denied file that
 * is not a directory is refused, not ENOTDIR).
 */
static bool open_listing(const struct pathcall_env *e, const char *full,
			 uint64_t flags, struct pathcall_result *res)
{
	char *name;
	int fd, rc;

	fd = child_open_in_root_named(e->root_fd, full, flags | O_NOCTTY,
				      &rc, &name);
	if (fd < 0)
		return false;
	rc = pc_judge_named(e, fd, name, PJ_READ, "open");
	free(name);
	if (rc) {
		close(fd);
		res->err = rc;
		return true;
	}
	res->fd = fd;
	return true;
}

/*
 * O_CREAT: the name is judged before anything is made.  The last
 * component is looked up without following; a link is followed by hand
 * (at most LINKS_MAX); a missing name is made with O_EXCL, so a name
 * that appeared meanwhile is looked at again, never opened unjudged.
 */
static void open_create(const struct pathcall_env *e, const char *start,
			uint64_t flags, mode_t mode,
			struct pathcall_result *res)
{
	struct strbuf full = { 0 }, judged = { 0 };
	char *name = NULL, linkbuf[PATH_MAX];
	int pfd = -1, fd, rc, hops;
	mode_t mask, old;
	struct stat st;
	ssize_t n;

	strbuf_puts(&full, start);
	for (hops = 0; hops <= LINKS_MAX; hops++) {
		free(name);
		name = NULL;
		if (pfd >= 0)
			close(pfd);
		judged.len = 0;
		if (judged.s)
			judged.s[0] = '\0';
		rc = pc_open_parent(e, full.s, &pfd, &name, &judged);
		if (rc)
			goto fail;
		if (name[strlen(name) - 1] == '/' || pc_dot_name(name)) {
			rc = EISDIR;
			goto fail;
		}
		fd = openat(pfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0) {
			if (fstat(fd, &st) < 0) {
				rc = errno;
				close(fd);
				goto fail;
			}
			if (!S_ISLNK(st.st_mode) || (flags & O_NOFOLLOW) ||
			    (flags & O_EXCL)) {
				if (flags & O_EXCL) {
					close(fd);
					rc = EEXIST;
					goto fail;
				}
				open_reached(e, fd, NULL, flags, res);
				goto out;
			}
			/* Follow the link by hand. */
			close(fd);
			n = readlinkat(pfd, name, linkbuf, sizeof(linkbuf));
			if (n < 0 || (size_t)n >= sizeof(linkbuf)) {
				rc = n < 0 ? errno : ENAMETOOLONG;
				goto fail;
			}
			linkbuf[n] = '\0';
			if (linkbuf[0] != '/') {
				/* relative to the link's directory */
				size_t cut = judged.len;

				while (cut > 0 && judged.s[cut - 1] != '/')
					cut--;
				judged.s[cut] = '\0';
				judged.len = cut;
				strbuf_puts(&judged, linkbuf);
				free(full.s);
				full = judged;
				judged = (struct strbuf){ 0 };
			} else {
				full.len = 0;
				full.s[0] = '\0';
				strbuf_puts(&full, linkbuf);
			}
			if (full.len >= PATH_MAX) {
				rc = ENAMETOOLONG;
				goto fail;
			}
			continue;
		}
		if (errno != ENOENT) {
			rc = errno;
			goto fail;
		}
		rc = e->judge(e->judge_ctx, judged.s, PJ_WRITE, "create");
		if (!rc)
			rc = pc_judge_entries(e, &judged);
		if (!rc)
			rc = pc_creator(e, &mask);
		if (rc)
			goto fail;
		old = umask(mask);
		fd = openat(pfd, name,
			    (int)(flags | O_EXCL | O_NOFOLLOW) | O_CLOEXEC,
			    mode);
		umask(old);
		if (fd >= 0) {
			res->fd = fd;
			goto out;
		}
		if (errno != EEXIST || (flags & O_EXCL)) {
			rc = errno;
			goto fail;
		}
		/* made by someone else meanwhile: look again */
	}
	rc = ELOOP;
fail:
	res->err = rc;
out:
	if (pfd >= 0)
		close(pfd);
	free(name);
	free(full.s);
	free(judged.s);
}

void pathcall_open(const struct pathcall *pc, const struct pathcall_env *e,
		     struct pathcall_result *res)
{
	struct strbuf full = { 0 };
	struct open_how how;
	mode_t mask, old;
	char *name = NULL;
	int own, fd, base, rc;
	uint64_t flags = pc->flags;

	res->cloexec = (flags & O_CLOEXEC) != 0;
	/* No set-id file is made (seccomp.c refuses it for the other opens). */
	if (((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) &&
	    (pc->mode & (S_ISUID | S_ISGID))) {
		res->err = EPERM;
		return;
	}
	/* O_PATH keeps these flags only (open(2)). */
	if (flags & O_PATH)
		flags &= O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	rc = pc_full_path(e, pc->dirfd[0], pc->path[0], &full);
	if (rc)
		goto fail;
	own = pc_own_fd_name(full.s);
	if (own >= 0 && !pc->resolve) {
		open_own_fd(e, own, flags, res);
		goto out;
	}
	rc = pc_rewrite_self(e, &full);
	if (rc)
		goto fail;
	if (pc->resolve & RESOLVE_CACHED) {
		rc = EAGAIN;	/* the kernel may say so too */
		goto fail;
	}
	if ((flags & O_TMPFILE) == O_TMPFILE) {
		/* An unnamed file in a directory: a write there. */
		char proc[64];

		fd = child_open_in_root(e->root_fd, full.s, O_DIRECTORY, &rc);
		if (fd < 0)
			goto fail;
		rc = pc_judge_fd(e, fd, PJ_WRITE, "create", false);
		if (!rc)
			rc = pc_creator(e, &mask);
		if (rc) {
			close(fd);
			goto fail;
		}
		pc_self_fd(proc, sizeof(proc), fd);
		old = umask(mask);
		res->fd = open(proc, (int)flags | O_CLOEXEC, pc->mode);
		umask(old);
		if (res->fd < 0)
			res->err = errno;
		close(fd);
		goto out;
	}
	if ((flags & O_CREAT) && !pc->resolve) {
		open_create(e, full.s, flags, pc->mode, res);
		goto out;
	}
	if (pc->resolve & (RESOLVE_BENEATH | RESOLVE_IN_ROOT)) {
		/* openat2() bounded by its directory fd: that fd's path is
		 * the bound, resolved from there with the child's flags. */
		struct strbuf dir = { 0 };

		if (flags & O_CREAT) {
			rc = EACCES;	/* judged by name only: not here */
			goto fail;
		}
		rc = pc_full_path(e, pc->dirfd[0], "", &dir);
		if (rc) {
			free(dir.s);
			goto fail;
		}
		base = child_open_in_root(e->root_fd, dir.s, O_DIRECTORY, &rc);
		free(dir.s);
		if (base < 0)
			goto fail;
		memset(&how, 0, sizeof(how));
		how.flags = O_PATH | O_CLOEXEC | (flags & O_NOFOLLOW);
		how.resolve = pc->resolve | RESOLVE_NO_MAGICLINKS;
		fd = child_openat2(base, pc->path[0], &how);
		rc = fd < 0 ? errno : 0;
		close(base);
		if (fd < 0)
			goto fail;
	} else {
		if (flags & O_CREAT) {
			rc = EACCES;
			goto fail;
		}
		if (pc->resolve & ~(uint64_t)(RESOLVE_NO_MAGICLINKS)) {
			/* NO_SYMLINKS, NO_XDEV: not taken; refused */
			rc = EACCES;
			goto fail;
		}
		if (is_listing(flags) && open_listing(e, full.s, flags, res))
			goto out;
		fd = child_open_in_root_named(e->root_fd, full.s,
					      O_PATH | (flags & O_NOFOLLOW),
					      &rc, &name);
		if (fd < 0)
			goto fail;
	}
	open_reached(e, fd, name, flags, res);
	goto out;
fail:
	res->err = rc;
out:
	free(name);
	free(full.s);
}

