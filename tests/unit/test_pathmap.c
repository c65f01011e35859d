/* SPDX-License-Identifier: MIT */
/*
 * test_pathmap.c - the path map of the launcher's mount lists
 * (compiler/pathmap.h): the last entry at or above a path, strict
 * ancestors, the root, growth, and the scan it replaces on random lists.
 */
#include <vbox.h>

#include <stdio.h>

#include "pathmap.h"
#include "tap.h"

/* The scan the map replaces: is @a @b or an ancestor of @b? */
static bool at_or_above(const char *a, const char *b)
{
	size_t la = strlen(a);

	if (strcmp(a, "/") == 0)
		return true;
	return strncmp(a, b, la) == 0 && (b[la] == '\0' || b[la] == '/');
}

static void test_basics(void)
{
	struct pathmap m = { 0 };
	size_t v = 99;

	ok(!pathmap_last_above(&m, "/a", &v), "an empty map knows nothing");
	pathmap_put_max(&m, "/a", 3);
	pathmap_put_max(&m, "/a/b", 1);
	ok(pathmap_last_above(&m, "/a/b/c", &v) && v == 3,
	   "the largest value above wins, not the nearest entry");
	ok(pathmap_last_above(&m, "/a/b", &v) && v == 3,
	   "the path itself counts");
	ok(!pathmap_last_above(&m, "/ab", &v), "'/a' is not above '/ab'");
	ok(!pathmap_last_above(&m, "/", &v), "nor above '/'");
	ok(pathmap_any_strictly_above(&m, "/a/b", &v) && v == 3,
	   "a strict ancestor");
	ok(!pathmap_any_strictly_above(&m, "/a", &v),
	   "a path is not strictly above itself");
	pathmap_put_max(&m, "/a", 2);
	ok(pathmap_last_above(&m, "/a", &v) && v == 3,
	   "putting a smaller value keeps the larger");
	pathmap_put_max(&m, "/", 7);
	ok(pathmap_last_above(&m, "/x/y", &v) && v == 7, "'/' is above all");
	ok(pathmap_any_strictly_above(&m, "/x", &v) && v == 7,
	   "... strictly above every other path");
	ok(!pathmap_any_strictly_above(&m, "/", &v),
	   "... but not strictly above itself");
	pathmap_release(&m);
	ok(m.n == 0 && !pathmap_last_above(&m, "/", &v),
	   "released, the map is empty and usable");
	pathmap_release(&m);
}

static uint32_t rng = 12345;

static unsigned next(unsigned n)
{
	rng = rng * 1103515245u + 12345u;
	return (rng >> 16) % n;
}

/* Random mount lists: the map answers as the scan does, for each prefix. */
static void test_against_scan(void)
{
	static const char *const seg[] = { "a", "b", "ab", "c", "d" };
	char paths[400][32];
	struct pathmap m = { 0 };
	size_t n = 0, i, j, want, got;
	bool any, found;
	unsigned bad = 0, k, d;

	for (i = 0; i < 400; i++) {
		paths[i][0] = '\0';
		d = next(4);
		for (k = 0; k < d; k++) {
			strcat(paths[i], "/");
			strcat(paths[i], seg[next(5)]);
		}
		if (!d)
			strcpy(paths[i], "/");
	}
	for (i = 0; i < 400; i++) {
		/* the query before the put: "the last mount before i" */
		any = false;
		want = 0;
		for (j = 0; j < n; j++)
			if (at_or_above(paths[j], paths[i])) {
				any = true;
				want = j;
			}
		found = pathmap_last_above(&m, paths[i], &got);
		if (found != any || (any && got != want))
			bad++;
		pathmap_put_max(&m, paths[i], n++);
	}
	ok(bad == 0, "400 random mounts: the map answers as the scan (%u "
	   "differ), through %zu keys and its growth", bad, m.n);
	pathmap_release(&m);
}

/* An ancestor's key borrowed as a prefix of a longer path. */
static void test_prefix_keys(void)
{
	struct pathmap m = { 0 };
	const char *dest = "/srv/work/sub/file";
	char *copy = strdup(dest);
	const char *p;
	size_t v = 99;

	for (p = copy + 1; (p = strchr(p, '/')); p++)
		pathmap_put_max_len(&m, copy, (size_t)(p - copy), 7);
	ok(pathmap_get(&m, "/srv", &v) && v == 7 &&
	   pathmap_get(&m, "/srv/work", &v) && v == 7 &&
	   pathmap_get(&m, "/srv/work/sub", &v) && v == 7,
	   "each strict ancestor is a key of its own");
	ok(!pathmap_get(&m, dest, &v), "the path itself is not");
	ok(!pathmap_get(&m, "/srv/wor", &v) && !pathmap_get(&m, "/sr", &v),
	   "nor a shorter prefix that is not a component");
	pathmap_put_max(&m, "/srv/work", 3);
	ok(pathmap_get(&m, "/srv/work", &v) && v == 7,
	   "a smaller value for the same key, given whole, is kept out");
	pathmap_put_max_len(&m, "/srv/work/x", 9, 11);
	ok(pathmap_get(&m, "/srv/work", &v) && v == 11 && m.n == 3,
	   "a larger one, given as another path's prefix, replaces it");
	ok(pathmap_last_above(&m, "/srv/work/sub/other", &v) && v == 11,
	   "ancestors by prefix answer pathmap_last_above()");
	pathmap_release(&m);
	free(copy);
}

int main(void)
{
	test_basics();
	test_against_scan();
	test_prefix_keys();
	return done_testing();
}
