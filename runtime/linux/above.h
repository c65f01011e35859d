/* SPDX-License-Identifier: MIT */
/*
 * above.h - "does a row tried before this one decide that path?", the
 * question the instantiation asks for every path a launch row would
 * mount (mounts.c, decided_above()), answered without comparing every
 * pair of rows.
 *
 * A plan's rows, in priority order, are compiled once, as the launch
 * rows first need them, and hung by their literal prefix (the leading
 * segments without a wildcard): a pattern can only match a path that
 * starts with its literal prefix, so a path asks one lookup per
 * ancestor, and tries only the patterns hung there.  Patterns that
 * start with a wildcard (no literal prefix) are tried for every path:
 * a table has few of them.  Asked for N paths against N rows this costs
 * about N times the path's depth, not N * N.
 */
#ifndef VBOX_ABOVE_H
#define VBOX_ABOVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pathmap.h"

struct fs_pattern;

/**
 * struct above_index - the patterns of a plan's rows by priority
 * @texts: the rows' pattern texts in priority order (borrowed)
 * @pats, @n, @pats_cap: the first @n of them compiled (owned); room for
 *        @pats_cap (grown by doubling: a launch extends it row by row)
 * @groups: literal prefix -> group number (borrowed keys: @keys)
 * @keys, @members, @nmembers, @cap, @ngroups: each group's prefix and
 *        its patterns' priorities, ascending (owned); room for
 *        @groups_cap groups
 * @wild, @nwild, @wildcap: the priorities of the patterns without a
 *        literal prefix, ascending (owned)
 */
struct above_index {
	const char *const *texts;
	struct fs_pattern *pats;
	size_t n;
	size_t pats_cap;
	struct pathmap groups;
	char **keys;
	uint32_t **members;
	size_t *nmembers;
	size_t *cap;
	size_t ngroups;
	size_t groups_cap;
	uint32_t *wild;
	size_t nwild;
	size_t wildcap;
};

/*
 * above_extend - make the first @n of @texts compiled and indexed (@texts
 * must be the array the index was made for, or the index is made anew
 * for it).  0, or -1 with *@err (caller frees) naming the pattern that
 * does not parse.
 */
int above_extend(struct above_index *a, const char *const *texts, size_t n,
		 char **err);

/*
 * above_decides - does one of the first @nabove patterns match @path (an
 * absolute, clean path), and with @subtree everything below it too?
 * False when @path does not parse.
 */
bool above_decides(const struct above_index *a, size_t nabove,
		   const char *path, bool subtree);

void above_release(struct above_index *a);

#endif /* VBOX_ABOVE_H */
