/* SPDX-License-Identifier: MIT */
/*
 * testdir.h - a path below a unit test's own directory, for tests that
 * build a small tree of real files (test_srcview.c, test_nolink.c).
 */
#ifndef VBOX_TESTDIR_H
#define VBOX_TESTDIR_H

#include <stdio.h>

/*
 * @dir followed by @rel ("/a/b"), in one of four rotating static
 * buffers: a call's result stays valid for the next three calls, enough
 * for the arguments of one call made with several paths.
 */
static inline const char *testdir_path(const char *dir, const char *rel)
{
	static char buf[4][256];
	static int k;
	char *b = buf[k++ % 4];

	snprintf(b, sizeof(buf[0]), "%s%s", dir, rel);
	return b;
}

#endif /* VBOX_TESTDIR_H */
