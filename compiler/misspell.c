/* SPDX-License-Identifier: MIT */
/*
 * misspell.c - edit distance for "did you mean" hints.
 *
 * The distance is Levenshtein's plus the swap of two neighbouring
 * characters (the "optimal string alignment" form), because a swap is the
 * commonest slip on a keyboard and plain Levenshtein counts it as two.
 */
#include <vbox.h>

#include <strings.h>

#include "misspell.h"

/* Names compared here are short; longer words are never close. */
#define MISSPELL_MAX 32

static unsigned min3(unsigned a, unsigned b, unsigned c)
{
	unsigned m = a < b ? a : b;

	return m < c ? m : c;
}

unsigned misspell_distance(const char *a, size_t alen, const char *b,
			   unsigned cap)
{
	unsigned buf[3][MISSPELL_MAX + 1];
	unsigned *pp = buf[0], *p = buf[1], *c = buf[2], *t;
	size_t blen = strlen(b), i, j;

	if (blen > MISSPELL_MAX || alen > blen + cap || blen > alen + cap)
		return cap + 1;
	for (j = 0; j <= blen; j++)
		p[j] = j;
	for (i = 1; i <= alen; i++) {
		c[0] = i;
		for (j = 1; j <= blen; j++) {
			unsigned sub = p[j - 1] + (a[i - 1] != b[j - 1]);

			c[j] = min3(sub, c[j - 1] + 1, p[j] + 1);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && pp[j - 2] + 1 < c[j])
				c[j] = pp[j - 2] + 1;
		}
		t = pp;
		pp = p;
		p = c;
		c = t;
	}
	return p[blen] > cap ? cap + 1 : p[blen];
}

const char *misspell_suggest(const char *word, size_t len,
			     const char *const *names, size_t n)
{
	unsigned cap = len <= 4 ? 1 : 2, best = cap + 1, d;
	const char *pick = NULL;
	size_t i;

	for (i = 0; i < n; i++)
		if (strlen(names[i]) == len &&
		    strncasecmp(word, names[i], len) == 0)
			return names[i];
	for (i = 0; i < n; i++) {
		d = misspell_distance(word, len, names[i], cap);
		if (d < best) {
			best = d;
			pick = names[i];
		}
	}
	return pick;
}
