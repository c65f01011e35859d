/* SPDX-License-Identifier: MIT */
/*
 * test_nolink.c - util/nolink.h, the walk with no symbolic link that the
 * host's pins and the sandbox's check of them share, on a real tree:
 *   - a path splits into its parent and last component only where the
 *     last component can be looked at from the parent ("/", a trailing
 *     slash, "." and "..", relative and too long paths cannot);
 *   - the parent is opened with no link anywhere (a link on the way, the
 *     magic links of /proc too, is ELOOP), a missing one is ENOENT and a
 *     file ENOTDIR, and nothing is kept from a failure;
 *   - the parent is kept for the next path in it and replaced for a path
 *     in another one: a directory swapped for another after it was kept
 *     is still the kept one (the check is of a moment; the sandbox checks
 *     what is mounted again), a new walk sees the new one.
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nolink.h"
#include "tap.h"
#include "testdir.h"

static char dir[64];

/* @rel below the test's directory (testdir.h). */
static const char *at(const char *rel)
{
	return testdir_path(dir, rel);
}

static void split_is(const char *path, const char *parent, const char *base)
{
	char got[PATH_MAX];
	const char *b = nolink_split(path, got);

	if (!base) {
		ok(b == NULL, "split '%.40s': nothing to look at from a parent",
		   path);
		return;
	}
	ok(b && strcmp(b, base) == 0 && strcmp(got, parent) == 0,
	   "split '%s': '%s' in '%s'", path, base, parent);
}

static ino_t ino_of_fd(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 ? st.st_ino : 0;
}

static ino_t ino_of(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 ? st.st_ino : 0;
}

static void test_split(void)
{
	char *longp = malloc(PATH_MAX + 16);

	if (!longp)
		return;

	split_is("/", NULL, NULL);
	split_is("/x", "/", "x");
	split_is("/a/b", "/a", "b");
	split_is("/a/b/c.env", "/a/b", "c.env");
	split_is("/a/.x", "/a", ".x");
	split_is("/a/b/", NULL, NULL);
	split_is("/a/.", NULL, NULL);
	split_is("/a/..", NULL, NULL);
	split_is("a/b", NULL, NULL);
	split_is("", NULL, NULL);
	memset(longp, 'a', PATH_MAX + 8);
	longp[0] = '/';
	longp[PATH_MAX + 4] = '/';
	longp[PATH_MAX + 8] = '\0';
	split_is(longp, NULL, NULL);
	free(longp);
}

static void test_parent(void)
{
	struct nolink_parent pp = NOLINK_PARENT_INIT;
	int fd, again;

	fd = nolink_parent_fd(&pp, at("/d"));
	ok(fd >= 0 && ino_of_fd(fd) == ino_of(at("/d")),
	   "a directory is opened");
	again = nolink_parent_fd(&pp, at("/d"));
	ok(again == fd, "... and kept for the next path in it");
	ok(nolink_parent_fd(&pp, at("/e")) >= 0 &&
	   ino_of_fd(pp.fd) == ino_of(at("/e")) &&
	   strcmp(pp.path, at("/e")) == 0,
	   "another directory replaces it");

	errno = 0;
	ok(nolink_parent_fd(&pp, at("/link/sub")) < 0 && errno == ELOOP &&
	   pp.fd == -1, "a link on the way: ELOOP, nothing kept");
	errno = 0;
	ok(nolink_parent_fd(&pp, at("/tolink")) < 0 && errno == ELOOP,
	   "a link as the directory itself: ELOOP");
	errno = 0;
	ok(nolink_parent_fd(&pp, "/proc/self/cwd") < 0 && errno == ELOOP,
	   "/proc's links: ELOOP");
	errno = 0;
	ok(nolink_parent_fd(&pp, at("/missing")) < 0 && errno == ENOENT,
	   "a missing directory: ENOENT");
	errno = 0;
	ok(nolink_parent_fd(&pp, at("/file")) < 0 && errno == ENOTDIR,
	   "a file: ENOTDIR");

	/* Kept, then swapped on disk: the kept one is still the old one. */
	fd = nolink_parent_fd(&pp, at("/d"));
	ok(fd >= 0, "kept again");
	if (rename(at("/d"), at("/old")) < 0 || mkdir(at("/d"), 0755) < 0)
		diag("cannot swap the directory: %s", strerror(errno));
	ok(nolink_parent_fd(&pp, at("/d")) == fd &&
	   ino_of_fd(fd) == ino_of(at("/old")),
	   "a swap after the walk: the kept directory is the one walked");
	nolink_parent_close(&pp);
	ok(pp.fd == -1, "closed");
	fd = nolink_parent_fd(&pp, at("/d"));
	ok(fd >= 0 && ino_of_fd(fd) == ino_of(at("/d")) &&
	   ino_of(at("/d")) != ino_of(at("/old")),
	   "a new walk sees the new directory");
	nolink_parent_close(&pp);
	nolink_parent_close(&pp);
	ok(pp.fd == -1, "closing twice is harmless");
}

static void test_open(void)
{
	int fd;

	fd = nolink_open(AT_FDCWD, at("/d"), O_DIRECTORY, 0);
	ok(fd >= 0, "nolink_open: a plain path opens");
	if (fd >= 0)
		close(fd);
	errno = 0;
	ok(nolink_open(AT_FDCWD, at("/tolink/x"), 0, 0) < 0 &&
	   errno == ELOOP, "nolink_open: a link on the way is ELOOP");
	errno = 0;
	ok(nolink_open(AT_FDCWD, at("/tolink"), 0, 0) < 0 && errno == ELOOP,
	   "nolink_open: a link as the last component is ELOOP");
}

int main(void)
{
	char cmd[96];
	int fd;

	snprintf(dir, sizeof(dir), "/tmp/vbox-nolink-XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	fd = open(at("/file"), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	if (fd < 0 || mkdir(at("/d"), 0755) < 0 || mkdir(at("/e"), 0755) < 0 ||
	    mkdir(at("/e/sub"), 0755) < 0 ||
	    symlink(at("/e"), at("/link")) < 0 ||
	    symlink(at("/d"), at("/tolink")) < 0) {
		perror("setting up");
		return 1;
	}
	close(fd);
	test_split();
	test_parent();
	test_open();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		diag("could not remove %s", dir);
	return done_testing();
}
