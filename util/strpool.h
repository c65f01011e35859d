/* SPDX-License-Identifier: MIT */
/*
 * strpool.h - a pool of interned strings: each distinct string is kept
 * once, and every caller that hands in an equal one gets the same
 * pointer back.
 *
 * Made for per-row texts that repeat: a million rows of a table share a
 * few dozen landing reasons, and a copy each cost more than the row.
 */
#ifndef VBOX_STRPOOL_H
#define VBOX_STRPOOL_H

#include <stddef.h>
#include <stdint.h>

#include "u64map.h"

/**
 * struct strpool - the pool (start from a zeroed struct)
 * @heads: hash of a string -> index of the first string with that hash
 * @strs: the distinct strings (owned, each and the array)
 * @next: per string, the next one with the same hash, or U64MAP_NONE
 * @n: number of distinct strings
 * @cap: allocated entries of @strs and @next
 */
struct strpool {
	struct u64map heads;
	char **strs;
	uint32_t *next;
	size_t n;
	size_t cap;
};

/*
 * strpool_take - intern @s, which the pool takes over: returns the
 * pool's string equal to @s (@s itself when it is new; else @s is
 * freed).  The pointer stays valid until strpool_free().
 */
const char *strpool_take(struct strpool *pool, char *s);

/* strpool_intern - like strpool_take() for a string the caller keeps. */
const char *strpool_intern(struct strpool *pool, const char *s);

/* strpool_free - free every string and the pool's arrays (not @pool). */
void strpool_free(struct strpool *pool);

#endif /* VBOX_STRPOOL_H */
