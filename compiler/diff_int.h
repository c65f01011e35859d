/* SPDX-License-Identifier: MIT */
/*
 * diff_int.h - what the parts of the table diff share: the comparison's
 * context and its bounds (diff.c), the segment alphabet's classes
 * (diff_seg.c), the file exploration (diff_fs.c) and the network classes
 * (diff_net.c).  Private to those files.
 */
#ifndef VBOX_DIFF_INT_H
#define VBOX_DIFF_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diff.h"
#include "u64map.h"

struct row;
struct seg;
struct table;

/*
 * Bounds (doc/reviewing.md, "Bounds"): past one of them table_diff()
 * stops with an error instead of answering.
 */
/* Path classes (product states) explored. */
#define DIFF_MAX_FS_STATES 2000000u
/* Row positions held by those states, all together. */
#define DIFF_MAX_FS_ENTRIES 16000000u
/* States of one segment alphabet's character automaton. */
#define DIFF_MAX_SEG_STATES 200000u
/* Distinct glob segments alive at one path class. */
#define DIFF_MAX_SEG_GLOBS 512u
/* Alignment of the priority orders: edits tried before giving up on it. */
#define DIFF_MAX_ALIGN_EDITS 4096u

/* The two sides of a comparison. */
#define DIFF_OLD 0
#define DIFF_NEW 1

struct seg_cache;

/**
 * struct diff_ctx - one table_diff() call
 * @t: the tables, old and new (borrowed)
 * @changed: per side, per priority position: the row is outside the
 *           common subsequence of the two priority orders (owned)
 * @classes: the classes found so far (owned)
 * @n: number of @classes
 * @cap: allocated @classes
 * @keys: (op, old row, new row) -> index in @classes
 * @segs: the segment alphabet cache (diff_seg.c, owned)
 * @stats: see struct diff_stats
 * @err: the first error (owned), or NULL
 */
struct diff_ctx {
	const struct table *t[2];
	bool *changed[2];
	struct diff_class *classes;
	size_t n;
	size_t cap;
	struct u64map keys;
	struct seg_cache *segs;
	struct diff_stats stats;
	char *err;
};

/*
 * diff_fail - record the first error (printf format) and return -1, so
 * call sites read "return diff_fail(ctx, ...)".
 */
__printf(2, 3) int diff_fail(struct diff_ctx *ctx, const char *fmt, ...);

/*
 * diff_record - note that @op queries decided by @old_row (NULL: the
 * default) with @old_allow and by @new_row with @new_allow differ; the
 * first witness of each class is kept (@witness is copied).
 */
void diff_record(struct diff_ctx *ctx, enum diff_op op, const char *witness,
		 const struct row *old_row, bool old_allow,
		 const struct row *new_row, bool new_allow);

/*
 * diff_fs - explore the paths both tables can tell apart and record the
 * classes that differ.  Returns 0, or -1 after diff_fail().
 */
int diff_fs(struct diff_ctx *ctx);

/* diff_net - the same for destinations.  Returns 0, or -1. */
int diff_net(struct diff_ctx *ctx);

/**
 * struct seg_reps - representatives of the segments no literal names
 * @v: one segment per class of the glob segments' answers (borrowed from
 *     the cache: valid until seg_cache_free())
 * @n: number of @v
 */
struct seg_reps {
	const char *const *v;
	size_t n;
};

/* seg_cache_new / seg_cache_free - the cache of partitions. */
struct seg_cache *seg_cache_new(void);
void seg_cache_free(struct seg_cache *c);

/*
 * seg_partition - every class of path segments that are none of the
 * @nlits literals @lits (with lengths @litlens): segments in one class
 * are accepted by the same glob segments of @globs (SEG_GLOB segments,
 * folded).  *@out gets one shortest representative per nonempty class:
 * a valid segment (not empty, not "." or "..", no '/').  Returns 0, or
 * -1 after diff_fail() (a bound, a glob that is not valid UTF-8).
 */
int seg_partition(struct diff_ctx *ctx, const struct seg *const *globs,
		  size_t nglobs, const char *const *lits,
		  const uint32_t *litlens, size_t nlits,
		  struct seg_reps *out);

#endif /* VBOX_DIFF_INT_H */
