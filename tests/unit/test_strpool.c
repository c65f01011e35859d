/* SPDX-License-Identifier: MIT */
/*
 * test_strpool.c - interned strings (util/strpool.h): equal strings get
 * one pointer, different ones (colliding hashes included) stay apart,
 * and a string handed over is freed when the pool already holds it.
 */
#include <vbox.h>

#include <stdio.h>

#include "strpool.h"
#include "tap.h"

static void test_equal(void)
{
	struct strpool pool = { 0 };
	const char *a, *b, *c;
	char *own;

	a = strpool_intern(&pool, "kernel: writable bind mount");
	b = strpool_intern(&pool, "kernel: writable bind mount");
	ok(a == b, "an equal string gets the same pointer");
	is_str(a, "kernel: writable bind mount", "with the same text");
	c = strpool_intern(&pool, "kernel: read-only bind mount");
	ok(c != a, "a different string gets its own");
	own = xstrdup("kernel: read-only bind mount");
	ok(strpool_take(&pool, own) == c,
	   "a string handed over is replaced by the pool's (and freed)");
	own = xstrdup("");
	ok(strpool_take(&pool, own) == own, "a new one handed over is kept");
	ok(strpool_intern(&pool, "") == own, "the empty string is interned");
	is_int((long long)pool.n, 3, "three distinct strings");
	strpool_free(&pool);
	is_int((long long)pool.n, 0, "freed pool is empty");
}

/* Many strings: the map grows, and every one still finds itself. */
static void test_many(void)
{
	struct strpool pool = { 0 };
	const char **got = xcalloc(5000, sizeof(*got));
	char buf[32];
	size_t i, bad = 0;

	for (i = 0; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "reason %zu", i);
		got[i] = strpool_intern(&pool, buf);
	}
	for (i = 0; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "reason %zu", i);
		if (strpool_intern(&pool, buf) != got[i] ||
		    strcmp(got[i], buf) != 0)
			bad++;
	}
	is_int((long long)bad, 0, "5000 strings each intern to themselves");
	is_int((long long)pool.n, 5000, "and are kept once each");
	strpool_free(&pool);
	free(got);
}

int main(void)
{
	test_equal();
	test_many();
	return done_testing();
}
