/* SPDX-License-Identifier: MIT */
/*
 * devproc.c - the init's --dev and --proc, made as bubblewrap 0.8 makes
 * them but for the device nodes, which stay read-only mounts (mounts.c
 * hands them over; doc/launcher.md, "Mounts in the init").  libc only.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mounts_int.h"

/*
 * A clone of the device node @node as the sandbox shows it (a bind of
 * the host's), made device-capable again and read-only: the sandbox's
 * read-only bind of the host set nodev on it, bubblewrap's own bind of
 * the host node keeps the host mount's flags plus nosuid.  Read-only,
 * unlike bubblewrap's: a device on a read-only mount still opens for
 * writing, but its inode (the host's /dev/null) refuses chmod, chown,
 * utimes and xattrs from a child that owns it (EROFS).  A nodev the
 * host mount has is locked in this user namespace (clearing it fails
 * with EPERM) and stays, as with bubblewrap.
 */
static int clone_node(const char *node, char *err, size_t errlen)
{
	int fd;

	fd = (int)syscall(SYS_open_tree, AT_FDCWD, node,
			  OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (fd < 0)
		return fail(err, errlen, "cannot take '%s': %s", node,
			    strerror(errno));
	if (setattr(fd, "", AT_EMPTY_PATH,
		    MOUNT_ATTR_NOSUID | MOUNT_ATTR_RDONLY, 0) < 0 ||
	    (setattr(fd, "", AT_EMPTY_PATH, 0, MOUNT_ATTR_NODEV) < 0 &&
	     errno != EPERM))
		goto fail_errno;
	return fd;
fail_errno:
	fail(err, errlen, "cannot take '%s': %s", node, strerror(errno));
	close(fd);
	return -1;
}

/* Attach the clone @fd onto a new empty file @dir/@name (mode 0444). */
static int attach_node(int fd, const char *dir, const char *name, char *err,
		       size_t errlen)
{
	char path[PATH_MAX];
	int f;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    (int)sizeof(path))
		return fail(err, errlen, "'%s/%s' is too long", dir, name);
	f = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY,
		 0444);
	if (f < 0 || close(f) < 0 ||
	    syscall(SYS_move_mount, fd, "", AT_FDCWD, path,
		    MOVE_MOUNT_F_EMPTY_PATH) < 0)
		return fail(err, errlen, "cannot bind a device onto '%s': %s",
			    path, strerror(errno));
	return 0;
}

/* The symbolic link @dir/@name -> @target. */
static int make_link(const char *target, const char *dir, const char *name,
		     char *err, size_t errlen)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    (int)sizeof(path) || symlink(target, path) < 0)
		return fail(err, errlen, "cannot make the link '%s/%s': %s",
			    dir, name, strerror(errno));
	return 0;
}

/*
 * --dev @dest as bubblewrap 0.8 makes it: a tmpfs (mode 0755, nosuid,
 * nodev) with binds of the host's null, zero, full, random, urandom and
 * tty, the stdio and fd and core links, shm, a new devpts instance with
 * ptmx, and, when the launcher's fd 1 is a terminal (@tty, its host
 * path), a bind of it as console.  The nodes are cloned from the
 * sandbox's view of the host (vbox-exec made sure the same host paths
 * show there) before the tmpfs hides it.
 */
int make_dev(const char *tty, const char *dest, char *err,
		    size_t errlen)
{
	static const char *const nodes[] = {
		"null", "zero", "full", "random", "urandom", "tty",
	};
	static const char *const links[][2] = {
		{ "stdin", "/proc/self/fd/0" }, { "stdout", "/proc/self/fd/1" },
		{ "stderr", "/proc/self/fd/2" }, { "fd", "/proc/self/fd" },
		{ "core", "/proc/kcore" },
	};
	enum { NNODES = sizeof(nodes) / sizeof(nodes[0]) };
	char path[PATH_MAX], src[32];
	int fds[NNODES + 1], console = -1, ret = -1;
	size_t i, n = 0;

	for (i = 0; i < NNODES; i++) {
		snprintf(src, sizeof(src), "/dev/%s", nodes[i]);
		fds[n] = clone_node(src, err, errlen);
		if (fds[n] < 0)
			goto out;
		n++;
	}
	if (tty[0]) {
		console = clone_node(tty, err, errlen);
		if (console < 0)
			goto out;
		fds[n++] = console;
	}
	if (make_path(path_copy(path, dest), true, 0755) < 0 ||
	    mount("tmpfs", dest, "tmpfs", MS_NOSUID | MS_NODEV,
		  "mode=0755") < 0) {
		fail(err, errlen, "cannot mount a tmpfs on '%s': %s", dest,
		     strerror(errno));
		goto out;
	}
	for (i = 0; i < NNODES; i++)
		if (attach_node(fds[i], dest, nodes[i], err, errlen) < 0)
			goto out;
	for (i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		if (make_link(links[i][1], dest, links[i][0], err, errlen) < 0)
			goto out;
	if (snprintf(path, sizeof(path), "%s/shm", dest) >= (int)sizeof(path) ||
	    mkdir(path, 0755) < 0 ||
	    snprintf(path, sizeof(path), "%s/pts", dest) >= (int)sizeof(path) ||
	    mkdir(path, 0755) < 0 ||
	    mount("devpts", path, "devpts", MS_NOSUID | MS_NOEXEC,
		  "newinstance,ptmxmode=0666,mode=620") < 0) {
		fail(err, errlen, "cannot make '%s': %s", path,
		     strerror(errno));
		goto out;
	}
	if (make_link("pts/ptmx", dest, "ptmx", err, errlen) < 0)
		goto out;
	if (console >= 0 &&
	    attach_node(console, dest, "console", err, errlen) < 0)
		goto out;
	ret = 0;
out:
	for (i = 0; i < n; i++)
		close(fds[i]);
	return ret;
}

/*
 * --proc @dest as bubblewrap makes it: a new procfs of the sandbox's PID
 * namespace (nosuid, noexec, nodev), then, before bubblewrap's covers,
 * @limit (the nested user-namespace limit, which needs this /proc/sys
 * writable), then read-only binds of sys, sysrq-trigger, irq and bus
 * wherever this process may write them.
 */
int make_proc(const char *dest, int (*limit)(char *, size_t),
		     char *err, size_t errlen)
{
	static const char *const cover[] = {
		"sys", "sysrq-trigger", "irq", "bus",
	};
	char path[PATH_MAX];
	size_t i;

	if (make_path(path_copy(path, dest), true, 0755) < 0 ||
	    mount("proc", dest, "proc", MS_NOSUID | MS_NOEXEC | MS_NODEV,
		  NULL) < 0)
		return fail(err, errlen, "cannot mount proc on '%s': %s", dest,
			    strerror(errno));
	if (limit && limit(err, errlen) < 0)
		return -1;
	for (i = 0; i < sizeof(cover) / sizeof(cover[0]); i++) {
		if (snprintf(path, sizeof(path), "%s/%s", dest, cover[i]) >=
		    (int)sizeof(path))
			return fail(err, errlen, "'%s' is too long", dest);
		if (access(path, W_OK) < 0) {
			if (errno == EACCES || errno == ENOENT ||
			    errno == EROFS)
				continue;
			return fail(err, errlen, "cannot access '%s': %s",
				    path, strerror(errno));
		}
		if (bind_mount(K_BIND_RO, path, path, ROW_NONE, false, err,
			       errlen) < 0)
			return -1;
	}
	return 0;
}
