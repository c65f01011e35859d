/* SPDX-License-Identifier: MIT */
/*
 * mounts.c - the mounts the sandbox's init makes (steps.h).
 *
 * vbox-exec hands over the tail of the sandbox's mount list that the init
 * can make exactly as bubblewrap would (runtime/linux/sandbox.c decides
 * which): a bind is one open_tree_attr() clone, its flags set while it
 * is detached (open_tree() and mount_setattr() before Linux 6.15), and
 * one move_mount(), where bubblewrap re-reads the whole mount table for
 * every bind.  The flags are bubblewrap's: every bind nosuid and nodev,
 * read-only binds read-only down their whole tree, a writable bind
 * writable at its top;
 * a tmpfs nosuid and nodev with its mode; a read-only remount of one
 * mount only (a device node keeps its nodev state).  --dev and --proc
 * are made as bubblewrap 0.8 makes them (devproc.c), but for the device
 * nodes, which stay read-only mounts.  A long list's same-path binds are
 * cloned from a copy of the tree bubblewrap left (srcview.h).  The
 * encoding is parsed here with every length checked, though it comes
 * from vbox-exec.
 *
 * A cover (a tmpfs, or a bind of /dev/null over a denied file) and a
 * read-only remount go onto an O_PATH fd of their mount point opened
 * with no symbolic link anywhere in the path (openat2() with
 * RESOLVE_NO_SYMLINKS), and the path is checked to show the cover after
 * the mount: a host process that swaps a component for a link while the
 * sandbox is built cannot carry a cover elsewhere (doc/launcher.md,
 * "Pinned paths").
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mounts_int.h"
#include "nolink.h"
#include "srcview.h"
#include "steps.h"

/* At most this many bytes of mounts. */
#define MOUNTS_MAX_BYTES (64u << 20)

struct cursor {
	const uint8_t *p;
	size_t len;
	size_t off;
};

static int get(struct cursor *c, void *out, size_t n)
{
	if (c->len - c->off < n)
		return -1;
	memcpy(out, c->p + c->off, n);
	c->off += n;
	return 0;
}

/* A string into @buf (PATH_MAX), or "" when empty; -1 when bad. */
static int get_path(struct cursor *c, char *buf)
{
	uint32_t n;

	if (get(c, &n, 4) < 0 || n >= PATH_MAX || c->len - c->off < n ||
	    memchr(c->p + c->off, '\0', n))
		return -1;
	memcpy(buf, c->p + c->off, n);
	buf[n] = '\0';
	c->off += n;
	return n && buf[0] != '/' ? -1 : 0;
}

/* mkdir -p of @path's parents (and of @path itself when @dir). */
int make_path(char *path, bool dir, mode_t mode)
{
	char *p;
	int fd;

	for (p = path + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST) {
			*p = '/';
			return -1;
		}
		*p = '/';
	}
	if (dir)
		return mkdir(path, mode) < 0 && errno != EEXIST ? -1 : 0;
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY, mode);
	if (fd < 0)
		return errno == EISDIR ? 0 : -1;
	close(fd);
	return 0;
}

/* @dest into @buf (PATH_MAX), which make_path() may write into. */
char *path_copy(char *buf, const char *dest)
{
	snprintf(buf, PATH_MAX, "%s", dest);
	return buf;
}

int setattr(int dfd, const char *path, unsigned flags, uint64_t set,
	    uint64_t clr)
{
	struct attr a = { .attr_set = set, .attr_clr = clr };

	return (int)syscall(SYS_mount_setattr, dfd, path, flags, &a,
			    sizeof(a));
}

/*
 * Attach the detached mount @fd at @dest.  A missing destination is made
 * (as a directory or a file, like the mount's root), but only if nothing
 * is there: not even a dangling link, which creating the file would
 * follow.  Trying first saves an lstat() a mount.  0, or -1 with errno.
 */
static int attach(int fd, char *dest)
{
	struct stat st;

	if (syscall(SYS_move_mount, fd, "", AT_FDCWD, dest,
		    MOVE_MOUNT_F_EMPTY_PATH) == 0)
		return 0;
	if (errno != ENOENT)
		return -1;
	if (lstat(dest, &st) == 0) {
		errno = ENOENT;
		return -1;
	}
	if (errno != ENOENT || fstat(fd, &st) < 0 ||
	    make_path(dest, S_ISDIR(st.st_mode),
		      S_ISDIR(st.st_mode) ? 0755 : 0444) < 0)
		return -1;
	return syscall(SYS_move_mount, fd, "", AT_FDCWD, dest,
		       MOVE_MOUNT_F_EMPTY_PATH) < 0 ? -1 : 0;
}

/*
 * The mount point @dest of a cover, opened with nolink_open(); a missing
 * one is made first (a directory when @dir, else an empty file), but
 * only if nothing is there, not even a dangling link.  -1 with errno.
 */
static int open_target(char *dest, bool dir)
{
	struct stat st;
	int fd;

	fd = nolink_open(AT_FDCWD, dest, 0, 0);
	if (fd >= 0 || errno != ENOENT)
		return fd;
	if (lstat(dest, &st) == 0) {
		errno = ELOOP;
		return -1;
	}
	if (errno != ENOENT || make_path(dest, dir, dir ? 0755 : 0444) < 0)
		return -1;
	return nolink_open(AT_FDCWD, dest, 0, 0);
}

/* Do @a and @b show the same file? */
static bool same_file(int a, int b)
{
	struct stat sa, sb;

	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* "row N" or "no row", for messages (@buf: 24 bytes). */
static const char *row_text(uint32_t row, char *buf, size_t len)
{
	int n;

	if (row == ROW_NONE)
		return "the launcher's own";
	n = snprintf(buf, len, "row %u", row);
	return n > 0 && (size_t)n < len ? buf : "row ?";
}

/*
 * Attach the detached cover @mfd (a new tmpfs, or a clone of /dev/null)
 * over @dest: onto an O_PATH fd of @dest reached with no symbolic link,
 * so the mount lands on that very file whatever the path shows
 * meanwhile; then check that the path, resolved again with no link,
 * shows the cover.  A link in the path, or a path that no longer leads
 * to the cover, fails the launch (fail closed: never a cover elsewhere).
 */
static int attach_cover(int mfd, char *dest, bool dir, uint32_t row,
			char *err, size_t errlen)
{
	char rowbuf[24];
	int fd, check;

	fd = open_target(dest, dir);
	if (fd < 0) {
		if (errno == ELOOP)
			return fail(err, errlen, "%s: the cover of '%s' is not "
				    "mounted: the path changed while the "
				    "sandbox was built (a symbolic link took "
				    "the place of a component); not starting",
				    row_text(row, rowbuf, sizeof(rowbuf)),
				    dest);
		return fail(err, errlen, "%s: cannot open '%s' to cover it: "
			    "%s", row_text(row, rowbuf, sizeof(rowbuf)), dest,
			    strerror(errno));
	}
	if (syscall(SYS_move_mount, mfd, "", fd, "",
		    MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0) {
		fail(err, errlen, "%s: cannot cover '%s': %s",
		     row_text(row, rowbuf, sizeof(rowbuf)), dest,
		     strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	check = nolink_open(AT_FDCWD, dest, 0, 0);
	if (check < 0 || !same_file(check, mfd)) {
		if (check >= 0)
			close(check);
		return fail(err, errlen, "%s: the cover of '%s' is not where "
			    "the path leads: the path changed while the "
			    "sandbox was built; not starting",
			    row_text(row, rowbuf, sizeof(rowbuf)), dest);
	}
	close(check);
	return 0;
}

/* A new tmpfs (nosuid, nodev, root mode @mode), detached: its fd. */
static int new_tmpfs(unsigned mode, const char *dest, char *err,
		     size_t errlen)
{
	char opts[16];
	int fs, mfd = -1, n;

	n = snprintf(opts, sizeof(opts), "0%o", mode);
	if (n < 0 || (size_t)n >= sizeof(opts))
		return fail(err, errlen, "bad mode %o", mode);
	fs = (int)syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC);
	if (fs >= 0 &&
	    syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "source", "tmpfs",
		    0) == 0 &&
	    syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "mode", opts,
		    0) == 0 &&
	    syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == 0)
		mfd = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC,
				   MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	if (mfd < 0)
		fail(err, errlen, "cannot mount a tmpfs on '%s': %s", dest,
		     strerror(errno));
	if (fs >= 0)
		close(fs);
	return mfd;
}

static int cover_tmpfs(unsigned mode, char *dest, uint32_t row, char *err,
		       size_t errlen)
{
	int mfd, ret;

	mfd = new_tmpfs(mode, dest, err, errlen);
	if (mfd < 0)
		return -1;
	ret = attach_cover(mfd, dest, true, row, err, errlen);
	close(mfd);
	return ret;
}

/*
 * A read-only remount of the mount at @dest: on an fd of @dest reached
 * with no symbolic link, which must be a mount's root (mount_setattr()
 * says EINVAL otherwise).  This checks again every cover bubblewrap made
 * by path: one carried elsewhere by a link leaves @dest no mount root.
 */
static int remount_ro(const char *dest, char *err, size_t errlen)
{
	uint64_t set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
	struct stat st;
	int fd, ret;

	fd = nolink_open(AT_FDCWD, dest, 0, 0);
	if (fd < 0 && errno != ELOOP)
		return fail(err, errlen, "cannot remount '%s' read-only: %s",
			    dest, strerror(errno));
	/*
	 * A device node keeps what it has (bubblewrap's --dev nodes stay
	 * usable, a /dev/null cover stays nodev): a read-only mount is
	 * there to refuse changes of the node's inode (sandbox.c).
	 */
	if (fd >= 0 && fstat(fd, &st) == 0 &&
	    (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)))
		set &= ~(uint64_t)MOUNT_ATTR_NODEV;
	ret = fd < 0 ? -1 : setattr(fd, "", AT_EMPTY_PATH, set, 0);
	if (ret < 0 && (fd < 0 || errno == EINVAL))
		fail(err, errlen, "'%s' is not the mount it should be: the "
		     "path changed while the sandbox was built (a symbolic "
		     "link or another file took its place); not starting",
		     dest);
	else if (ret < 0)
		fail(err, errlen, "cannot remount '%s' read-only: %s", dest,
		     strerror(errno));
	if (fd >= 0)
		close(fd);
	return ret;
}

/* Set once open_tree_attr() turned out missing (before Linux 6.15). */
static bool no_open_tree_attr;

/* Where same-path binds clone their source from (srcview.h). */
static struct srcview view;

/*
 * A detached recursive clone of @src (relative to @dfd; "" with
 * AT_EMPTY_PATH in @flags: @dfd itself) with @set on its whole tree: one
 * open_tree_attr() where the kernel has it, else open_tree() and
 * mount_setattr() (one system call a bind fewer).  The fd, or -1 with
 * errno; *@taken says whether the clone was made (a failure after it is
 * one of the flags).
 */
static int clone_tree(int dfd, const char *src, unsigned flags, uint64_t set,
		      bool *taken)
{
	struct attr a = { .attr_set = set };
	int fd, saved;

	*taken = false;
	flags |= OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE;
	if (!no_open_tree_attr) {
		fd = (int)syscall(SYS_open_tree_attr, dfd, src, flags, &a,
				  sizeof(a));
		*taken = fd >= 0;
		/* (EPERM: a container runtime's filter that knows it not.) */
		if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
			return fd;
		no_open_tree_attr = true;
	}
	fd = (int)syscall(SYS_open_tree, dfd, src, flags);
	if (fd < 0)
		return -1;
	*taken = true;
	if (setattr(fd, "", AT_EMPTY_PATH | AT_RECURSIVE, set, 0) < 0) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

/*
 * A bind of @src onto @dest; @listed: one of the list's own (the view may
 * serve it), not one --dev or --proc makes of what they just mounted.
 */
int bind_mount(unsigned kind, const char *src, char *dest, uint32_t row,
	       bool listed, char *err, size_t errlen)
{
	bool ro = kind == K_BIND_RO || kind == K_BIND_RO_TRY, taken;
	int fd, ret;

	uint64_t set = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
		       (ro ? MOUNT_ATTR_RDONLY : 0);
	int vfd;

	/*
	 * A detached clone gets its flags before it is attached, so no path
	 * lookup between the two can leave a mount with its source's flags
	 * (mount(2)'s bind, then mount_setattr() by path, saved another
	 * 1.2 µs a mount but looked the destination up twice).  A same-path
	 * bind is cloned from the view where that shows what the sandbox
	 * shows (srcview.h); a kernel that cannot clone from a detached
	 * tree ends the view, and the sandbox is cloned as before.
	 */
	fd = -1;
	taken = false;
	if (listed && strcmp(src, dest) == 0 &&
	    strcmp(src, "/dev/null") != 0 &&
	    (vfd = srcview_take(&view, src)) >= 0) {
		fd = clone_tree(vfd, "", AT_EMPTY_PATH, set, &taken);
		close(vfd);
		if (fd < 0 && !taken)
			srcview_close(&view);
	}
	if (fd < 0 && !taken)
		fd = clone_tree(AT_FDCWD, src, 0, set, &taken);
	if (fd < 0 && taken)
		return fail(err, errlen, "cannot bind '%s' onto '%s': %s",
			    src, dest, strerror(errno));
	if (fd < 0) {
		/* A try-bind whose source went away is skipped, as bwrap. */
		if (errno == ENOENT && (kind == K_BIND_RO_TRY ||
					kind == K_BIND_RW_TRY))
			return 0;
		return fail(err, errlen, "cannot take '%s': %s", src,
			    strerror(errno));
	}
	/*
	 * A writable bind is writable at its top.  Its source may be shown
	 * through the sandbox's read-only bind of the host (sandbox.c makes
	 * sure no host mount lies below it); a host mount that is itself
	 * read-only is locked so in this user namespace (EPERM) and stays
	 * read-only, as bubblewrap's bind of it would.
	 */
	if (!ro && setattr(fd, "", AT_EMPTY_PATH, 0, MOUNT_ATTR_RDONLY) < 0 &&
	    errno != EPERM)
		goto fail_errno;
	/* /dev/null over a denied file is a cover: pinned to its file. */
	if (strcmp(src, "/dev/null") == 0 && strcmp(dest, "/dev/null") != 0) {
		ret = attach_cover(fd, dest, false, row, err, errlen);
		close(fd);
		return ret;
	}
	if (attach(fd, dest) < 0)
		goto fail_errno;
	close(fd);
	return 0;
fail_errno:
	fail(err, errlen, "cannot bind '%s' onto '%s': %s", src, dest,
	     strerror(errno));
	close(fd);
	return -1;
}

static bool is_bind(unsigned kind)
{
	return kind == K_BIND_RO || kind == K_BIND_RW ||
	       kind == K_BIND_RO_TRY || kind == K_BIND_RW_TRY;
}

static int make_one(unsigned kind, unsigned mode, uint32_t row,
		    const char *src, char *dest,
		    int (*limit)(char *, size_t), char *err, size_t errlen)
{
	switch (kind) {
	case K_DEV:
		return make_dev(src, dest, err, errlen);
	case K_PROC:
		return make_proc(dest, limit, err, errlen);
	case K_BIND_RO:
	case K_BIND_RW:
	case K_BIND_RO_TRY:
	case K_BIND_RW_TRY:
		return bind_mount(kind, src, dest, row, true, err, errlen);
	case K_TMPFS:
		return cover_tmpfs(mode, dest, row, err, errlen);
	case K_DIR:
		if (make_path(dest, true, mode) < 0 || chmod(dest, mode) < 0)
			return fail(err, errlen, "cannot make '%s': %s", dest,
				    strerror(errno));
		return 0;
	case K_REMOUNT_RO:
		return remount_ro(dest, err, errlen);
	default:
		return fail(err, errlen, "mount kind %u is not for the init",
			    kind);
	}
}

/* Make one mount of the list, and note it for the view (srcview.h). */
static int one_mount(unsigned kind, unsigned mode, uint32_t row,
		     const char *src, char *dest,
		     int (*limit)(char *, size_t), char *err, size_t errlen)
{
	int ret = make_one(kind, mode, row, src, dest, limit, err, errlen);

	if (ret == 0 && kind != K_DIR)
		srcview_note(&view, dest, is_bind(kind) &&
			     strcmp(src, dest) == 0 &&
			     strcmp(src, "/dev/null") != 0);
	return ret;
}

/*
 * Walk the list; with @run, make each mount.  @limit runs right after a
 * --proc's procfs is mounted, or before the first mount when the list
 * has none (*@has_proc says which, from a first walk without @run).
 */
static int walk(struct cursor *c, bool run, bool *has_proc, size_t *nbinds,
		int (*limit)(char *, size_t), char *err, size_t errlen)
{
	static char src[PATH_MAX], dest[PATH_MAX];
	uint32_t flags, n, i, row;
	uint16_t mode;
	uint8_t kind, zero;

	c->off = 0;
	if (get(c, &flags, 4) < 0 || flags || get(c, &n, 4) < 0)
		return fail(err, errlen, "bad mount list header");
	if (run && limit && !*has_proc && limit(err, errlen) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (get(c, &kind, 1) < 0 || get(c, &zero, 1) < 0 || zero ||
		    get(c, &mode, 2) < 0 || mode > 07777 ||
		    get(c, &row, 4) < 0 || get_path(c, src) < 0 ||
		    get_path(c, dest) < 0 || !dest[0] ||
		    (kind == K_PROC && !run && *has_proc))
			return fail(err, errlen, "bad mount %u", i);
		if (!run) {
			*has_proc = *has_proc || kind == K_PROC;
			*nbinds += is_bind(kind);
			continue;
		}
		if (one_mount(kind, mode, row, src, dest, limit, err,
			      errlen) < 0)
			return -1;
	}
	if (c->off != c->len)
		return fail(err, errlen, "bytes after the mount list");
	return 0;
}

int init_mounts_apply(int fd, int (*limit)(char *, size_t), char *err,
		      size_t errlen)
{
	static char cwd[PATH_MAX];
	bool has_proc = false;
	size_t nbinds = 0;
	struct cursor c;
	struct stat st;
	void *map;
	mode_t old;
	int ret;

	if (fstat(fd, &st) < 0 || st.st_size <= 0 ||
	    (uint64_t)st.st_size > MOUNTS_MAX_BYTES)
		return fail(err, errlen, "bad mount list");
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return fail(err, errlen, "cannot map the mount list: %s",
			    strerror(errno));
	c.p = map;
	c.len = (size_t)st.st_size;
	c.off = 0;
	/* Modes are the list's, as bubblewrap's --perms. */
	old = umask(0);
	ret = walk(&c, false, &has_proc, &nbinds, limit, err, errlen);
	if (ret == 0) {
		/* Before the first mount: the tree bubblewrap left. */
		srcview_open(&view, nbinds);
		ret = walk(&c, true, &has_proc, &nbinds, limit, err, errlen);
		srcview_close(&view);
	}
	umask(old);
	munmap(map, (size_t)st.st_size);
	if (ret < 0)
		return -1;
	/*
	 * bubblewrap entered the working directory before these mounts: a
	 * mount on it or above it is seen only by entering it again.
	 */
	if (!getcwd(cwd, sizeof(cwd)) || chdir(cwd) < 0)
		return fail(err, errlen, "cannot enter the working directory "
			    "again: %s", strerror(errno));
	return 0;
}
