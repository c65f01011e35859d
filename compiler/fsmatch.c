/* SPDX-License-Identifier: MIT */
/*
 * fsmatch.c - glob matching and coverage of file patterns (doc/rules.md
 * §5 "Matching", §7).
 *
 * Matching runs for every query against many rows, so it never allocates
 * and never recurses: both levels (characters inside a segment, segments
 * inside a path) use the greedy "restart after the last star" scan, which
 * is O(pattern x subject) in the worst case instead of exponential.
 * Segments are folded when they are built, so comparing is memcmp().
 */
#include <vbox.h>

#include "fspath.h"

/*
 * The length of the UTF-8 character at @s (at most @n bytes): a lead byte
 * and the continuation bytes that follow it.  A stray or invalid byte is a
 * character of its own, so every byte string splits one definite way.
 */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t need, k;

	if (s[0] < 0xc0 || s[0] >= 0xf8)
		need = 1;
	else if (s[0] >= 0xf0)
		need = 4;
	else if (s[0] >= 0xe0)
		need = 3;
	else
		need = 2;
	for (k = 1; k < need && k < n && (s[k] & 0xc0) == 0x80; k++)
		;
	return k;
}

bool fs_seg_glob_match(const char *pat, size_t plen, const char *s,
		       size_t slen)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t pi = 0, si = 0, star_pi = SIZE_MAX, star_si = 0;

	while (si < slen) {
		if (pi < plen && pat[pi] == '*') {
			star_pi = pi++;
			star_si = si;
		} else if (pi < plen && pat[pi] == '?') {
			si += utf8_len(u + si, slen - si);
			pi++;
		} else if (pi < plen && pat[pi] == s[si]) {
			pi++;
			si++;
		} else if (star_pi != SIZE_MAX) {
			/* The last '*' absorbs one more character. */
			star_si += utf8_len(u + star_si, slen - star_si);
			si = star_si;
			pi = star_pi + 1;
		} else {
			return false;
		}
	}
	while (pi < plen && pat[pi] == '*')
		pi++;
	return pi == plen;
}

static bool seg_eq(const struct seg *a, const struct seg *b)
{
	return a->len == b->len && memcmp(a->s, b->s, a->len) == 0;
}

/* Does the single pattern segment @p (not SEG_STARSTAR) match @s? */
static bool seg_match(const struct seg *p, const struct seg *s)
{
	switch (p->kind) {
	case SEG_LIT:
		return seg_eq(p, s);
	case SEG_GLOB:
		return fs_seg_glob_match(p->s, p->len, s->s, s->len);
	case SEG_STARSTAR:
	default:
		BUG("seg_match on a '**' segment");
	}
}

/*
 * Exact match of the segment sequence @p against @s, "**" matching any
 * run of whole segments.  Every other pattern segment matches exactly one
 * path segment, so the leftmost placement after the last "**" is always
 * the best one and the scan never needs to revisit an earlier "**".
 */
static bool seq_match(const struct seg *p, uint32_t np, const struct seg *s,
		      uint32_t ns)
{
	uint32_t pi = 0, si = 0, star_pi = UINT32_MAX, star_si = 0;

	while (si < ns) {
		if (pi < np && p[pi].kind == SEG_STARSTAR) {
			star_pi = pi++;
			star_si = si;
		} else if (pi < np && seg_match(&p[pi], &s[si])) {
			pi++;
			si++;
		} else if (star_pi != UINT32_MAX) {
			pi = star_pi + 1;
			si = ++star_si;
		} else {
			return false;
		}
	}
	while (pi < np && p[pi].kind == SEG_STARSTAR)
		pi++;
	return pi == np;
}

bool fs_match(const struct fs_pattern *pattern, const struct fs_path *path)
{
	uint32_t i;

	if (pattern->nlit > path->nsegs)
		return false;
	/* The literal prefix is anchored in both forms: check it first. */
	for (i = 0; i < pattern->nlit; i++)
		if (!seg_eq(&pattern->segs[i], &path->segs[i]))
			return false;
	/* Without wildcards the pattern covers its whole subtree. */
	if (!pattern->wild)
		return true;
	/* The root's path has no segment array (no offset on NULL). */
	if (!path->segs)
		return seq_match(pattern->segs + pattern->nlit,
				 pattern->nsegs - pattern->nlit, NULL, 0);
	return seq_match(pattern->segs + pattern->nlit,
			 pattern->nsegs - pattern->nlit,
			 path->segs + pattern->nlit,
			 path->nsegs - pattern->nlit);
}

bool fs_match_subtree(const struct fs_pattern *pattern,
		      const struct fs_path *path)
{
	uint32_t i;

	for (i = 0; i < pattern->nsegs; i++) {
		if (i == path->nsegs ||
		    pattern->segs[i].kind == SEG_STARSTAR)
			break;
		if (!seg_match(&pattern->segs[i], &path->segs[i]))
			return false;
	}
	if (i == pattern->nsegs)
		/* Without wildcards the pattern covers its whole subtree. */
		return !pattern->wild;
	/* What is left must match any run of segments, none included. */
	for (; i < pattern->nsegs; i++)
		if (pattern->segs[i].kind != SEG_STARSTAR)
			return false;
	return true;
}

/* A glob segment made only of '*': it matches every single segment. */
static bool seg_all_stars(const struct seg *s)
{
	uint32_t i;

	for (i = 0; i < s->len; i++)
		if (s->s[i] != '*')
			return false;
	return true;
}

/*
 * Is every segment sequence @in matches also matched by @out?  Literal
 * and glob segments stand for exactly one path segment, "**" for any run.
 */
static bool seg_covers(const struct seg *out, const struct seg *in)
{
	switch (out->kind) {
	case SEG_STARSTAR:
		return true;
	case SEG_GLOB:
		if (in->kind == SEG_LIT)
			return fs_seg_glob_match(out->s, out->len, in->s,
						 in->len);
		if (in->kind == SEG_GLOB)
			return seg_eq(out, in) || seg_all_stars(out);
		return false;
	case SEG_LIT:
		return in->kind == SEG_LIT && seg_eq(out, in);
	default:
		BUG("unknown segment kind %d", (int)out->kind);
	}
}

static bool prefix_covers(const struct seg *out, const struct seg *in,
			  uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (!seg_covers(&out[i], &in[i]))
			return false;
	return true;
}

/*
 * Soundness, case by case (a path matched by @inner is split into the
 * parts its segments match; each part is in the language of the @outer
 * segment at the same position):
 * - @outer without wildcards matches its subtree: a path matched by
 *   @inner starts with @outer's segments when @inner's first segments are
 *   those literals;
 * - @outer = P + "**": the parts matched by @inner's first |P| segments
 *   are matched by P, and "**" takes whatever follows, whether @inner is
 *   a subtree pattern or not;
 * - both exact (wildcards) with as many segments: part by part.
 */
bool fs_covers(const struct fs_pattern *outer, const struct fs_pattern *inner)
{
	uint32_t k = outer->nsegs;

	if (strcmp(outer->key, inner->key) == 0)
		return true;
	if (!outer->wild)
		return inner->nsegs >= k &&
		       prefix_covers(outer->segs, inner->segs, k);
	if (outer->segs[k - 1].kind == SEG_STARSTAR && inner->nsegs >= k - 1 &&
	    prefix_covers(outer->segs, inner->segs, k - 1))
		return true;
	return inner->wild && inner->nsegs == k &&
	       prefix_covers(outer->segs, inner->segs, k);
}
