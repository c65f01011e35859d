/* SPDX-License-Identifier: MIT */
/*
 * glob.h - what a file pattern matches on the host, at launch
 * (doc/targets.md, "Linux: at launch").
 */
#ifndef VBOX_GLOB_H
#define VBOX_GLOB_H

#include <limits.h>
#include <stddef.h>

#include "fspath.h"

#include "linux_artifact.h"

/* The walk's bounds (linux_artifact.h). */
#define GLOB_WALK_MAX_ENTRIES LINUX_WALK_MAX_ENTRIES
#define GLOB_WALK_MAX_DEPTH LINUX_WALK_MAX_DEPTH

/* A pattern has at most PATH_MAX / 2 segments ("/a/b/..."). */
#define GLOB_MAX_SEGS (PATH_MAX / 2)

/**
 * struct pseg - one segment of a pattern being expanded
 * @s: the text (points into the caller's copy of the pattern)
 * @len: its length
 * @kind: SEG_LIT, SEG_GLOB or SEG_STARSTAR
 */
struct pseg {
	const char *s;
	size_t len;
	enum seg_kind kind;
};

/*
 * glob_seg_bound - how many segments glob_split() can find in @text, at
 * most GLOB_MAX_SEGS: the size of the array to give it (an array of
 * GLOB_MAX_SEGS for every row cost an mmap and munmap each with musl's
 * allocator).
 */
size_t glob_seg_bound(const char *text);

/*
 * glob_split - split the normalized absolute @text (modified: '/' become
 * NULs) into at most @max segments.  Returns the count, or -1 when there
 * are more.
 */
int glob_split(char *text, struct pseg *segs, size_t max);

/*
 * glob_prefix - the first @nlit segments of the normalized, absolute
 * @text ("/" when none) as a new string.
 */
char *glob_prefix(const char *text, size_t nlit);

/*
 * glob_expand - the existing host paths @pattern (normalized, absolute,
 * at least one literal segment before the first wildcard) matches, by
 * doc/rules.md "File patterns" with exact case, sorted bytewise, without
 * duplicates; symbolic links are matched but never descended.  Returns 0
 * with *@paths (*@npaths entries; caller frees each and the array), or -1
 * with *@err when the walk exceeds GLOB_WALK_MAX_ENTRIES entries or
 * GLOB_WALK_MAX_DEPTH levels, or a directory cannot be read.
 */
int glob_expand(const char *pattern, char ***paths, size_t *npaths,
		char **err);

#endif /* VBOX_GLOB_H */
