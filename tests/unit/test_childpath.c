/* SPDX-License-Identifier: MIT */
/*
 * test_childpath.c - pieces of runtime/supervisor/childpath.h the
 * supervisor runs on every supervised call:
 *   proc_name() and child_proc_path(), the /proc names made without the
 *   C library's formatted printing: each the same bytes snprintf()
 *   makes, for numbers of every length up to LONG_MAX, with and without
 *   a tail, filling a buffer exactly;
 *   path_lexical(), the name a resolution that met no symbolic link gives
 *   the judge: by hand, and against the kernel (the path of what
 *   openat2() with RESOLVE_NO_SYMLINKS opened, read back through /proc)
 *   over a tree of directories, with "." and "..", repeated and trailing
 *   slashes, ".." past the root, names made of dots.
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "supervisor/childpath.h"
#include "tap.h"

/* proc_name() against snprintf() of the same pieces */
static void same(const char *pre, long n, const char *post)
{
	char got[96], want[96];

	memset(got, 'x', sizeof(got));
	proc_name(got, sizeof(got), pre, n, post);
	snprintf(want, sizeof(want), "%s%ld%s", pre, n, post);
	is_str(got, want, "%s%ld%s", pre, n, post);
}

/* path_lexical(@in) is @want */
static void lexical(const char *in, const char *want)
{
	char *got = path_lexical(in);

	is_str(got, want, "lexical '%s'", in);
	free(got);
}

/*
 * The kernel's word: @rel under the tree @root (a directory of ours with
 * no link in it or above it), opened with RESOLVE_NO_SYMLINKS from "/"
 * as root, read back through /proc/self/fd, is path_lexical()'s.
 */
static void kernel_agrees(const char *root, const char *rel)
{
	char full[PATH_MAX], link[64], back[PATH_MAX], *lex;
	struct open_how how;
	ssize_t n;
	int fd, rootfd, rc;

	snprintf(full, sizeof(full), "%s/%s", root, rel);
	rootfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	memset(&how, 0, sizeof(how));
	how.flags = O_PATH | O_CLOEXEC;
	how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS;
	fd = child_openat2(rootfd, full, &how);
	rc = fd < 0 ? errno : 0;
	close(rootfd);
	if (fd < 0) {
		ok(0, "'%s' opens: %s", rel, strerror(rc));
		return;
	}
	proc_name(link, sizeof(link), "/proc/self/fd/", fd, "");
	n = readlink(link, back, sizeof(back) - 1);
	close(fd);
	back[n < 0 ? 0 : n] = '\0';
	lex = path_lexical(full);
	is_str(lex, back, "the kernel's name of '%s'", rel);
	free(lex);
}

/* kernel_agrees() over a tree of directories made for it */
static void kernel_tree(void)
{
	static const char *const dirs[] = {
		"a", "a/b", "a/b/c", "a/...", "a/..x", ".x",
	};
	static const char *const rels[] = {
		"", ".", "a", "a/", "a//b", "a/./b/.", "a/b/..", "a/b/../..",
		"a/b/c/../../b/c", "a/../a/b/c/", "a/...", "a/..x/..",
		".x/../a",
	};
	char tmpl[] = "/tmp/vbox-childpath-XXXXXX", d[PATH_MAX + 64];
	/* (its real path: no link above it either) */
	char *made = mkdtemp(tmpl), *root = made ? realpath(made, NULL) : NULL;
	size_t k;

	if (!root)
		BUG("a directory for the tree: %s", strerror(errno));
	for (k = 0; k < array_size(dirs); k++) {
		snprintf(d, sizeof(d), "%s/%s", root, dirs[k]);
		if (mkdir(d, 0755) < 0)
			BUG("mkdir %s: %s", d, strerror(errno));
	}
	for (k = 0; k < array_size(rels); k++)
		kernel_agrees(root, rels[k]);
	snprintf(d, sizeof(d), "rm -rf '%s'", root);
	if (system(d) != 0)
		diag("could not remove %s", root);
	free(root);
}

int main(void)
{
	static const long numbers[] = { 0, 1, 9, 10, 99, 100, 4194304,
					INT_MAX, LONG_MAX };
	char buf[32], want[32];
	size_t i;
	long n;

	for (i = 0; i < array_size(numbers); i++) {
		same("/proc/self/fd/", numbers[i], "");
		same("/proc/", numbers[i], "/cwd");
	}
	same("", 12345, "");
	/* every length of a number: 1 to 19 digits */
	for (n = 1, i = 0; i < 18; i++, n *= 10)
		same("/proc/", n * 10 - 1, "/status");

	/* exactly filling the buffer: the NUL in its last byte */
	memset(buf, 'x', sizeof(buf));
	proc_name(buf, 18, "/proc/self/fd/", 123, "");
	is_str(buf, "/proc/self/fd/123", "a name that fills its buffer");
	ok(buf[18] == 'x', "... and nothing written past it");

	child_proc_path(buf, sizeof(buf), 4242, "fdinfo/7");
	snprintf(want, sizeof(want), "/proc/%d/%s", 4242, "fdinfo/7");
	is_str(buf, want, "child_proc_path(): /proc/TID/WHAT");
	child_proc_path(buf, sizeof(buf), 1, "cwd");
	is_str(buf, "/proc/1/cwd", "child_proc_path(): a pid of one digit");

	lexical("/", "/");
	lexical("//", "/");
	lexical("/a/b", "/a/b");
	lexical("/a//b/", "/a/b");
	lexical("/a/./b/.", "/a/b");
	lexical("/a/b/..", "/a");
	lexical("/a/..", "/");
	lexical("/..", "/");
	lexical("/../../a", "/a");
	lexical("/a/b/../../c", "/c");
	lexical("/a/b/../../../c/", "/c");
	lexical("/a/..b/c..", "/a/..b/c..");
	lexical("/a/.../b", "/a/.../b");
	lexical("/a/b/../.env", "/a/.env");
	lexical("/.env/.", "/.env");

	kernel_tree();
	return done_testing();
}
