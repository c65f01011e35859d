/* SPDX-License-Identifier: MIT */
/*
 * fsclean.h - the lexical cleaning that file patterns and queried paths
 * share (fsclean.c); private to fspath.c and fsclean.c.
 */
#ifndef VBOX_FSCLEAN_H
#define VBOX_FSCLEAN_H

#include <stdbool.h>
#include <stdint.h>

#include "fspath.h"
#include "vars.h"

/*
 * Patterns and queried paths are shorter than FS_MAX_LEN bytes on every
 * host, so a table compiles or fails the same way everywhere.
 */
#define FS_MAX_LEN VARS_MAX_LEN
/* A string shorter than FS_MAX_LEN has at most this many segments. */
#define FS_MAX_SEGS (FS_MAX_LEN / 2 + 1)

#define WINDOWS_FORMS "a windows path starts with 'X:\\', 'X:/' or '/x/'"

/* One segment of a cleaned string: @len bytes at offset @off. */
struct span {
	uint32_t off;
	uint32_t len;
};

/* The parts a pattern or a path is made of. */
struct built {
	char *text;
	char *key;
	char *segbuf;
	struct seg *segs;
	uint32_t nsegs;
};

bool fs_is_letter(char c);
char fs_fold(char c);

/*
 * fs_windows_convert - windows forms, in place (the length does not
 * change); 0, or -1 with *@why.  See fsclean.c.
 */
int fs_windows_convert(char *buf, bool *on_drive, const char **why);

/*
 * fs_split_clean - split @buf on '/' into at most FS_MAX_SEGS spans of
 * @sp, cleaned; the number of segments, or -1 with *@bad.  See fsclean.c.
 */
int fs_split_clean(const char *buf, bool pattern, uint32_t floor,
		   struct span *sp, struct span *bad);

/*
 * fs_build - allocate the parts of a pattern or path in one block that
 * @b->text points at (caller owns it; the other parts point into it).
 */
void fs_build(const char *buf, bool absolute, const struct span *sp,
	      uint32_t n, const struct target_traits *t, bool pattern,
	      bool key, struct built *b);

/* fs_pattern_fill - move @b's parts into @out and set its counts. */
void fs_pattern_fill(struct fs_pattern *out, struct built *b);

#endif /* VBOX_FSCLEAN_H */
