/* SPDX-License-Identifier: MIT */
/*
 * test_diff_int.h - what the two halves of test_diff share: the seeded
 * generator and two compiled tables with their diff (test_diff.c), and
 * the random pairs (test_diff_pairs.c).
 */
#ifndef VBOX_TEST_DIFF_INT_H
#define VBOX_TEST_DIFF_INT_H

#include <stdint.h>

#include "diff.h"
#include "testlib.h"

/* The generator's state (splitmix64), seeded by main(). */
extern uint64_t rng_state;

/* rng_below - a number in [0, @n). */
unsigned rng_below(unsigned n);

#define PICK(arr) ((arr)[rng_below(array_size(arr))])

/**
 * struct pair - two compiled tables and their diff
 * @c: old and new
 * @r: the classes
 * @err: table_diff()'s message, or NULL
 */
struct pair {
	struct tl_compiled c[2];
	struct diff_result r;
	char *err;
};

/*
 * pair_open - compile the rules @a and @b for @target and compare them.
 * Returns 0, or -1 (a table that does not compile, or p->err set).
 * pair_close() either way.
 */
int pair_open(struct pair *p, const char *a, const char *b,
	      const char *target);
void pair_close(struct pair *p);

/* classes_str - "widens write /x 1>0; ..." (rows by index, "-": default). */
char *classes_str(const struct diff_result *r);

/* test_random_pairs - the random pairs (test_diff_pairs.c). */
void test_random_pairs(void);

#endif /* VBOX_TEST_DIFF_INT_H */
