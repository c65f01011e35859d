/* SPDX-License-Identifier: MIT */
/*
 * misspell.h - "did you mean" for every word a user types: effects,
 * directives, sections, directive values and option values.
 */
#ifndef VBOX_MISSPELL_H
#define VBOX_MISSPELL_H

#include <stddef.h>

/*
 * misspell_distance - edit distance between @a (@alen bytes) and the
 * string @b, counting an insertion, a deletion, a substitution or a swap
 * of two neighbours ("dney" for "deny") as one edit.  Returns @cap + 1
 * when the distance is above @cap or @b is too long to compare.
 */
unsigned misspell_distance(const char *a, size_t alen, const char *b,
			   unsigned cap);

/*
 * misspell_suggest - the closest of the @n names to @word (@len bytes):
 * the name itself folded to lower case, then the first name at the
 * smallest edit distance, at most 1 for words of up to 4 bytes and 2
 * beyond.  NULL when none is close.  The returned string is one of
 * @names.
 */
const char *misspell_suggest(const char *word, size_t len,
			     const char *const *names, size_t n);

#endif /* VBOX_MISSPELL_H */
