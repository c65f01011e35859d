/* SPDX-License-Identifier: MIT */
/*
 * test_srcview.c - runtime/init/srcview.h: which of the list's binds the
 * sandbox's init clones from its view (a detached copy of the tree
 * bubblewrap left) and which from the sandbox itself, against a real
 * view in a mount namespace of the test's own (and a user namespace
 * when not root):
 *   - no view for a short list;
 *   - a source is served from the view only as written: a link on the
 *     way, an unclean spelling, "/" or a missing path is not;
 *   - a mount the init made below the source, or one that is not a
 *     same-path bind at the source or above it, sends the bind to the
 *     sandbox; same-path binds above it do not;
 *   - a note the rules cannot compare ends the view;
 *   - the view is the tree when it was taken: a mount made in the
 *     sandbox afterwards is not in it.
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "init/srcview.h"
#include "tap.h"
#include "testdir.h"

static char dir[64];

/* @rel below the test's directory (testdir.h). */
static const char *at(const char *rel)
{
	return testdir_path(dir, rel);
}

/* Does the view serve @src (and show the file the sandbox has there)? */
static bool served(struct srcview *v, const char *src)
{
	struct stat a, b;
	int fd = srcview_take(v, src);
	bool same;

	if (fd < 0)
		return false;
	same = fstat(fd, &a) == 0 && stat(src, &b) == 0 &&
	       a.st_ino == b.st_ino;
	close(fd);
	return same;
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* A mount namespace of our own; a user namespace first when not root. */
static const char *enter_namespaces(void)
{
	char map[64];
	uid_t uid = geteuid();
	gid_t gid = getegid();

	if (uid != 0) {
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
			return "cannot make a user and mount namespace";
		snprintf(map, sizeof(map), "0 %u 1", (unsigned)uid);
		if (write_file("/proc/self/setgroups", "deny") < 0 ||
		    write_file("/proc/self/uid_map", map) < 0)
			return "cannot map the user";
		snprintf(map, sizeof(map), "0 %u 1", (unsigned)gid);
		if (write_file("/proc/self/gid_map", map) < 0)
			return "cannot map the group";
	} else if (unshare(CLONE_NEWNS) < 0) {
		return "cannot make a mount namespace";
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return "cannot make the mounts private";
	return NULL;
}

int main(void)
{
	struct srcview v;
	const char *why;
	struct stat tmpfs_st;
	int fd;

	why = enter_namespaces();
	if (why) {
		printf("1..0 # SKIP %s: %s\n", why, strerror(errno));
		return 0;
	}
	snprintf(dir, sizeof(dir), "/tmp/srcview.XXXXXX");
	if (!mkdtemp(dir) || mkdir(at("/a"), 0755) < 0 ||
	    mkdir(at("/a/b"), 0755) < 0 || mkdir(at("/a/b/c"), 0755) < 0 ||
	    mkdir(at("/e"), 0755) < 0 || mkdir(at("/e/f"), 0755) < 0 ||
	    mkdir(at("/m"), 0755) < 0 || symlink("a", at("/l")) < 0) {
		printf("1..0 # SKIP cannot make the test's tree: %s\n",
		       strerror(errno));
		return 0;
	}

	srcview_open(&v, SRCVIEW_MIN_BINDS - 1);
	ok(srcview_take(&v, at("/a")) < 0,
	   "fewer binds than SRCVIEW_MIN_BINDS: no view");
	srcview_close(&v);

	srcview_open(&v, SRCVIEW_MIN_BINDS);
	if (v.root < 0) {
		printf("1..0 # SKIP no detached clone of / here: %s\n",
		       strerror(errno));
		return 0;
	}
	ok(served(&v, at("/a")), "the view serves a directory as written");
	ok(served(&v, at("/a/b/c")), "... and one below it");
	ok(srcview_take(&v, at("/l/b")) < 0, "not through a symbolic link");
	ok(srcview_take(&v, at("/nothing")) < 0, "not a missing path");
	ok(srcview_take(&v, "/") < 0, "not the root");
	ok(srcview_take(&v, "tmp") < 0, "not a relative path");
	ok(srcview_take(&v, at("//a")) < 0, "not with an empty component");
	ok(srcview_take(&v, at("/a/")) < 0, "not with a trailing slash");
	ok(srcview_take(&v, at("/./a")) < 0, "not with a '.' component");
	ok(srcview_take(&v, at("/e/../a")) < 0, "not with a '..' component");

	/* A same-path bind of the init at a/b. */
	srcview_note(&v, at("/a/b"), true);
	ok(srcview_take(&v, at("/a")) < 0,
	   "a mount of the init below the source: cloned from the sandbox");
	ok(srcview_take(&v, dir) < 0, "... two levels below too");
	ok(served(&v, at("/a/b")), "a same-path bind at the source: served");
	ok(served(&v, at("/a/b/c")), "a same-path bind above it: served");
	ok(served(&v, at("/e")), "a source elsewhere: served");

	/* Something else at e (a tmpfs, a cover, a remount). */
	srcview_note(&v, at("/e"), false);
	ok(srcview_take(&v, at("/e")) < 0,
	   "not a same-path bind at the source: cloned from the sandbox");
	ok(srcview_take(&v, at("/e/f")) < 0, "... nor above it");
	ok(served(&v, at("/a/b/c")), "... the rest still served");

	/* A spelling the rules cannot compare ends the view. */
	srcview_note(&v, at("/a//x"), true);
	ok(srcview_take(&v, at("/a/b/c")) < 0,
	   "a note with an empty component ends the view");
	srcview_close(&v);

	/* The view is the tree when taken. */
	srcview_open(&v, SRCVIEW_MIN_BINDS);
	if (mount("tmpfs", at("/m"), "tmpfs", 0, NULL) < 0 ||
	    stat(at("/m"), &tmpfs_st) < 0) {
		ok(0, "a tmpfs mounted after the view was taken: %s",
		   strerror(errno));
	} else {
		struct stat st;

		fd = srcview_take(&v, at("/m"));
		ok(fd >= 0 && fstat(fd, &st) == 0 &&
		   st.st_dev != tmpfs_st.st_dev,
		   "a mount made after the view was taken is not in it");
		if (fd >= 0) {
			/* Informational: where cloning from a detached
			 * tree is refused, the init clones the sandbox. */
			int c = (int)syscall(428, fd, "", 1 | O_CLOEXEC |
					     0x8000 | AT_EMPTY_PATH);

			diag("cloning from the view: %s", c >= 0 ? "works" :
			     strerror(errno));
			if (c >= 0)
				close(c);
			close(fd);
		}
		umount(at("/m"));
	}
	srcview_close(&v);

	rmdir(at("/a/b/c"));
	rmdir(at("/a/b"));
	rmdir(at("/a"));
	rmdir(at("/e/f"));
	rmdir(at("/e"));
	rmdir(at("/m"));
	unlink(at("/l"));
	rmdir(dir);
	return done_testing();
}
