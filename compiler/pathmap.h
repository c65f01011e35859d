/* SPDX-License-Identifier: MIT */
/*
 * pathmap.h - clean absolute paths to numbers, and the question the
 * launcher asks of a mount list again and again: which entry is the
 * last one at or above this path?
 *
 * A mount list of N entries asked that for each of its N mounts costs
 * N^2 prefix comparisons by scanning; with the map it costs one lookup
 * per ancestor of the path.  Keys are borrowed: the strings must outlive
 * the map.  A key put again keeps the larger value, so with the mounts'
 * indexes as values the map answers "the last one".
 */
#ifndef VBOX_PATHMAP_H
#define VBOX_PATHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pathmap_slot;

/**
 * struct pathmap - open addressing, FNV-1a, grown at half full
 * @slots: the table (owned), @mask + 1 of them
 * @mask: table size - 1 (a power of two), 0 when empty
 * @n: number of keys
 */
struct pathmap {
	struct pathmap_slot *slots;
	size_t mask;
	size_t n;
};

/* pathmap_put_max - map @path to @value, or keep a larger value it has. */
void pathmap_put_max(struct pathmap *m, const char *path, size_t value);

/*
 * pathmap_put_max_len - the same for the first @len bytes of @path (an
 * ancestor of it, a prefix ending before one of its '/'): the key is
 * borrowed as those bytes, so that a path's ancestors are mapped without
 * a copy of each.
 */
void pathmap_put_max_len(struct pathmap *m, const char *path, size_t len,
			 size_t value);

/* pathmap_get - the value of @path itself, if it is in the map. */
bool pathmap_get(const struct pathmap *m, const char *path, size_t *value);

/*
 * pathmap_last_above - the largest value of @path or any of its
 * ancestors ("/" included); false when none is in the map.
 */
bool pathmap_last_above(const struct pathmap *m, const char *path,
			size_t *value);

/*
 * pathmap_any_strictly_above - is a strict ancestor of @path in the map?
 * The largest such value in *@value.
 */
bool pathmap_any_strictly_above(const struct pathmap *m, const char *path,
				size_t *value);

/* pathmap_release - free the table; @m is empty and reusable. */
void pathmap_release(struct pathmap *m);

#endif /* VBOX_PATHMAP_H */
