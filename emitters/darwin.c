/* SPDX-License-Identifier: MIT */
/*
 * darwin.c - the darwin target: one Seatbelt (SBPL) profile for
 * sandbox-exec.  The exact profile shape, and why each base allowance is
 * there, is documented in doc/targets.md ("darwin").
 *
 * Seatbelt keeps rules per operation: a check of a specific operation
 * (file-write-data) tries the rules written for it, the last written
 * first, and only then falls through to its wildcard ancestors
 * (file-write*, file*, default); a rule without a filter is its
 * operation's default.  So within every operation the base allowances
 * and the defaults come first and the rows follow from the lowest
 * priority to the highest: the row that decides in the table (doc/rules.md §3)
 * is the last rule that matches.  The base section names two specific
 * operations (file-write-data and file-ioctl, for devices), so every
 * write rule below it names them too, next to file-write*: otherwise the
 * base allowance would decide on its own list before the row's rule is
 * consulted.  doc/darwin.md explains the model.
 *
 * Path rules follow names, and a directory rename carries everything
 * below it: directories above a ro or deny row's first "**" are guarded
 * (kept in place), and a row whose match depends on directories below
 * that (a "**" followed by more segments) is refused wherever a writable
 * region reaches them (doc/darwin.md, hole 5), and so is a ro or deny
 * row in which a higher rw row opens a directory without opening what
 * lies below it (hole 6).
 */
#include <vbox.h>

#include <stdio.h>

#include "diag.h"
#include "emit.h"
#include "fspath.h"
#include "ir.h"
#include "netaddr.h"
#include "sbpl.h"
#include "target.h"

/* /tmp, /var and /etc are symbolic links to /private/tmp ... on macOS. */
static const char *const private_links[] = { "tmp", "var", "etc" };
static const char private_dir[] = "private";

/*
 * /dev/stdin, /dev/stdout and /dev/stderr are fdesc links to fd/0, fd/1
 * and fd/2; Seatbelt sees the resolved name, so a row matching a link
 * is also written for its target.
 */
static const struct fd_link {
	const char *name;
	const char *fd;
} fd_links[] = {
	{ "stdin", "0" },
	{ "stdout", "1" },
	{ "stderr", "2" },
};

/* The launcher's proxy ports: SBPL parameters passed with sandbox-exec -D. */
static const struct reserved_port {
	const char *entry;
	const char *param;
	const char *what;
} reserved_ports[] = {
	{ "allow:localhost:${VBOX_PROXY_HTTP_PORT}", "VBOX_PROXY_HTTP_PORT",
	  "HTTP" },
	{ "allow:localhost:${VBOX_PROXY_SOCKS_PORT}", "VBOX_PROXY_SOCKS_PORT",
	  "SOCKS5" },
};

/* Operations a file row grants or takes away, as SBPL writes them. */
#define OPS_READ "file-read* file-map-executable process-exec"
/*
 * Writes: the wildcard and the specific operations the base section
 * allows on devices, so that every operation's list holds the rows in
 * the same order above the base allowances.
 */
#define OPS_WRITE "file-write* file-write-data file-ioctl"
/* Ancestors of ro and deny rows: no rename, removal, creation, change. */
#define OPS_GUARD OPS_WRITE

/*
 * One spelling of a pattern: a segment list (the array is owned, the
 * segment text borrowed from the row or from static strings) and whether
 * it covers the subtree of the path it names.
 */
struct form {
	struct seg *segs;
	uint32_t nsegs;
	bool subtree;
};

/*
 * What one file row writes: its pattern in every spelling, and for ro
 * and deny rows the ancestor guards.  @longest is the longest string any
 * of them needs; past SBPL_MAX_STRING the row is unsupported and @guards
 * is not computed.
 */
struct fs_plan {
	struct sbpl_filter *filters;
	size_t nfilters;
	struct sbpl_filter *guards;
	size_t nguards;
	size_t longest;
};

static bool fold_case(const struct table *table)
{
	return table->target && table->target->fold_case;
}

/*
 * Copy @n segments, with consecutive "**" merged into one: the language
 * does not change, and it bounds the number of alias forms below.
 */
static uint32_t segs_copy(struct seg *dst, const struct seg *src, uint32_t n)
{
	uint32_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (src[i].kind == SEG_STARSTAR && k &&
		    dst[k - 1].kind == SEG_STARSTAR)
			continue;
		dst[k++] = src[i];
	}
	return k;
}

static void form_add(struct form **forms, size_t *n, const char *const *pre,
		     uint32_t npre, const struct seg *segs, uint32_t nsegs,
		     bool subtree)
{
	struct form *f;
	uint32_t i;

	*forms = xreallocarray(*forms, *n + 1, sizeof(**forms));
	f = &(*forms)[(*n)++];
	f->segs = xcalloc((size_t)npre + nsegs + 1, sizeof(*f->segs));
	for (i = 0; i < npre; i++) {
		f->segs[i].s = pre[i];
		f->segs[i].len = (uint32_t)strlen(pre[i]);
		f->segs[i].kind = SEG_LIT;
	}
	f->nsegs = npre + segs_copy(f->segs + npre, segs, nsegs);
	f->subtree = subtree;
}

static void forms_free(struct form *forms, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(forms[i].segs);
	free(forms);
}

/*
 * The derivative of a pattern by one path segment @name: mark in @out
 * (@n + 1 entries) every i such that "/@name" followed by a path P is
 * matched exactly when the suffix segs[i..] matches P.  A "**" may
 * swallow @name and stay, or match nothing; a subtree pattern that is
 * used up covers everything below.  Segment text is folded like @name
 * (lower case) on folding targets.
 */
static void derive(const struct seg *s, uint32_t n, bool subtree,
		   uint32_t from, const char *name, bool *out)
{
	size_t nlen = strlen(name);
	uint32_t i;

	for (i = from; i < n && s[i].kind == SEG_STARSTAR; i++)
		out[i] = true;
	if (i == n) {
		if (subtree)
			out[n] = true;
		return;
	}
	if (s[i].kind == SEG_LIT ?
		    s[i].len == nlen && memcmp(s[i].s, name, nlen) == 0 :
		    fs_seg_glob_match(s[i].s, s[i].len, name, nlen))
		out[i + 1] = true;
}

/*
 * Every spelling of a pattern: itself, then for each symlinked prefix
 * /X (tmp, var, etc) the paths it matches under /X written under
 * /private/X, and those it matches under /private/X written under /X;
 * last, the paths it matches under each fdesc link /dev/stdout ...
 * written under /dev/fd/N, the name Seatbelt sees.  With merged "**"
 * runs each derivative has at most two results, so a pattern has at
 * most 31 forms.  A pattern starting with "**" matches the /private
 * spelling of each of its paths already; the forward forms are skipped
 * for it, and so is a backward or fdesc form that keeps that "**".
 */
static void forms_build(const struct fs_pattern *p, struct form **forms,
			size_t *nforms)
{
	struct seg *segs = xcalloc((size_t)p->nsegs + 1, sizeof(*segs));
	bool *d1 = xcalloc((size_t)p->nsegs + 2, sizeof(*d1));
	bool *d2 = xcalloc((size_t)p->nsegs + 2, sizeof(*d2));
	bool subtree = !p->wild, lead_starstar;
	uint32_t n, i, j;
	size_t a;

	*forms = NULL;
	*nforms = 0;
	n = segs_copy(segs, p->segs, p->nsegs);
	form_add(forms, nforms, NULL, 0, segs, n, subtree);
	lead_starstar = n && segs[0].kind == SEG_STARSTAR;
	for (a = 0; a < array_size(private_links) && n && !lead_starstar;
	     a++) {
		const char *pre[2] = { private_dir, private_links[a] };

		memset(d1, 0, (n + 1) * sizeof(*d1));
		derive(segs, n, subtree, 0, private_links[a], d1);
		for (i = 0; i <= n; i++)
			if (d1[i])
				form_add(forms, nforms, pre, 2, segs + i,
					 n - i, subtree);
	}
	for (a = 0; a < array_size(private_links) && n; a++) {
		const char *pre[1] = { private_links[a] };

		memset(d1, 0, (n + 1) * sizeof(*d1));
		memset(d2, 0, (n + 1) * sizeof(*d2));
		derive(segs, n, subtree, 0, private_dir, d1);
		for (i = 0; i <= n; i++)
			if (d1[i])
				derive(segs, n, subtree, i, private_links[a],
				       d2);
		for (j = 0; j <= n; j++)
			if (d2[j] && !(j == 0 && lead_starstar))
				form_add(forms, nforms, pre, 1, segs + j,
					 n - j, subtree);
	}
	/* The paths it matches under /dev/stdout, under /dev/fd/1 ... */
	for (a = 0; a < array_size(fd_links) && n; a++) {
		const char *pre[3] = { "dev", "fd", fd_links[a].fd };

		memset(d1, 0, (n + 1) * sizeof(*d1));
		memset(d2, 0, (n + 1) * sizeof(*d2));
		derive(segs, n, subtree, 0, "dev", d1);
		for (i = 0; i <= n; i++)
			if (d1[i])
				derive(segs, n, subtree, i, fd_links[a].name,
				       d2);
		for (j = 0; j <= n; j++)
			if (d2[j] && !(j == 0 && lead_starstar))
				form_add(forms, nforms, pre, 3, segs + j,
					 n - j, subtree);
	}
	free(d2);
	free(d1);
	free(segs);
}

/* Append *@f to the list unless an equal filter is there (consumes @f). */
static void filter_add(struct sbpl_filter **list, size_t *n,
		       struct sbpl_filter *f, size_t *longest)
{
	size_t i;

	for (i = 0; i < *n; i++) {
		if (sbpl_filter_equal(&(*list)[i], f)) {
			sbpl_filter_free(f);
			return;
		}
	}
	if (f->written > *longest)
		*longest = f->written;
	*list = xreallocarray(*list, *n + 1, sizeof(**list));
	(*list)[(*n)++] = *f;
}

/*
 * Ancestor guards of one spelling: every proper prefix of the pattern
 * that holds no "**" names directories above the protected paths.
 * Renaming or removing one would carry them out of the row; creating one
 * (as a symbolic link to elsewhere, or by renaming a directory prepared
 * elsewhere onto it) would plant content at a path that must stay absent
 * or empty (doc/targets.md "Ancestor guards").  Prefixes grow, so the
 * first one past the string limit ends the list (the row is unsupported
 * then anyway).
 */
static void guards_add(struct fs_plan *plan, const struct form *f, bool fold)
{
	struct sbpl_filter g;
	uint32_t k;

	for (k = 1; k < f->nsegs; k++) {
		if (f->segs[k - 1].kind == SEG_STARSTAR)
			break;
		sbpl_filter_make(&g, f->segs, k, false, fold);
		if (g.written > SBPL_MAX_STRING) {
			if (g.written > plan->longest)
				plan->longest = g.written;
			sbpl_filter_free(&g);
			break;
		}
		filter_add(&plan->guards, &plan->nguards, &g, &plan->longest);
	}
}

static bool guarded_effect(enum effect effect)
{
	return effect == EFFECT_DENY || effect == EFFECT_RO;
}

static void fs_plan_build(const struct table *table, const struct row *row,
			  struct fs_plan *plan)
{
	bool fold = fold_case(table);
	struct sbpl_filter f;
	struct form *forms;
	size_t nforms, i;

	memset(plan, 0, sizeof(*plan));
	forms_build(&row->fs, &forms, &nforms);
	for (i = 0; i < nforms; i++) {
		sbpl_filter_make(&f, forms[i].segs, forms[i].nsegs,
				 forms[i].subtree, fold);
		filter_add(&plan->filters, &plan->nfilters, &f,
			   &plan->longest);
	}
	if (guarded_effect(row->effect) && plan->longest <= SBPL_MAX_STRING)
		for (i = 0; i < nforms; i++)
			guards_add(plan, &forms[i], fold);
	forms_free(forms, nforms);
}

static void fs_plan_free(struct fs_plan *plan)
{
	size_t i;

	for (i = 0; i < plan->nfilters; i++)
		sbpl_filter_free(&plan->filters[i]);
	for (i = 0; i < plan->nguards; i++)
		sbpl_filter_free(&plan->guards[i]);
	free(plan->filters);
	free(plan->guards);
	memset(plan, 0, sizeof(*plan));
}

/*
 * The "**" gap.  Guards name the directories above a pattern's first
 * "**"; the directories a "**" stands for, and those of the segments
 * after it, cannot be named.  When the row's match depends on them, a
 * child that may write one can rename it out of the match, write the
 * protected path at its new place and move it back, or create it as a
 * symbolic link to a directory elsewhere (Seatbelt matches the resolved
 * path).  The match does not depend on them when the pattern ends at
 * its first "**" (every path below the prefix is matched: nothing to
 * carry out), when a "**" after the prefix is followed by one segment
 * of stars only (every directory below the prefix is matched itself),
 * or when a leading "**" is followed by one segment and at most a
 * trailing "**" (a leading "**" then ".env": wherever the tree goes,
 * the name still matches).
 *
 * Returns whether the row has the gap.
 */
static bool starstar_gap(const struct fs_pattern *p)
{
	bool gap = false;
	struct seg *segs = xcalloc((size_t)p->nsegs + 1, sizeof(*segs));
	uint32_t n = segs_copy(segs, p->segs, p->nsegs), f, last;

	for (f = 0; f < n && segs[f].kind != SEG_STARSTAR; f++)
		;
	last = n;
	while (last > f && segs[last - 1].kind == SEG_STARSTAR)
		last--;
	/* segs[f + 1 .. last - 1]: what follows the first "**". */
	if (f < n && last > f + 1) {
		if (f == 0)
			gap = last > f + 2;
		else
			gap = !(last == f + 2 &&
				 segs[f + 1].kind == SEG_GLOB &&
				 strspn(segs[f + 1].s, "*") ==
					 segs[f + 1].len);
	}
	free(segs);
	return gap;
}

/* May segments @a and @b (neither "**") match one name? */
static bool seg_may_meet(const struct seg *a, const struct seg *b)
{
	if (a->kind == SEG_LIT && b->kind == SEG_LIT)
		return a->len == b->len && !memcmp(a->s, b->s, a->len);
	if (a->kind == SEG_LIT)
		return fs_seg_glob_match(b->s, b->len, a->s, a->len);
	if (b->kind == SEG_LIT)
		return fs_seg_glob_match(a->s, a->len, b->s, b->len);
	return true;
}

/*
 * A row "** /NAME" (or "** /NAME/ **") matches NAME wherever the tree
 * goes, unless a higher-priority rw row makes some path below a NAME
 * writable: a directory moved there, written and moved back carries the
 * protected paths out of the row.  That needs a directory the row
 * decides to be movable, so a writable region below the row too (a
 * lower rw row, or @default write rw).  Returns the higher rw row, or
 * NULL.
 */
static const struct row *name_row_writer(const struct table *table,
					 const struct row *row)
{
	const struct seg *name = NULL;
	uint32_t i, j;

	for (i = 0; i < row->fs.nsegs; i++)
		if (row->fs.segs[i].kind != SEG_STARSTAR)
			name = &row->fs.segs[i];
	if (!name || row->fs.segs[0].kind != SEG_STARSTAR)
		return NULL;
	if (table->default_write != EFFECT_RW) {
		for (i = row->prio + 1; i < table->fs.n; i++)
			if (table->fs.prio[i]->effect == EFFECT_RW &&
			    !table->fs.prio[i]->shadowed_by)
				break;
		if (i >= table->fs.n)
			return NULL;
	}
	for (i = 0; i < row->prio; i++) {
		const struct row *w = table->fs.prio[i];

		if (w->effect != EFFECT_RW || w->shadowed_by)
			continue;
		if (!w->fs.wild ||
		    w->fs.segs[w->fs.nsegs - 1].kind == SEG_STARSTAR)
			return w;
		for (j = 0; j < w->fs.nsegs; j++)
			if (w->fs.segs[j].kind != SEG_STARSTAR &&
			    seg_may_meet(&w->fs.segs[j], name))
				return w;
	}
	return NULL;
}

/* The number of segments of @f before its first "**". */
static uint32_t form_fixed(const struct form *f)
{
	uint32_t k;

	for (k = 0; k < f->nsegs && f->segs[k].kind != SEG_STARSTAR; k++)
		;
	return k;
}

/*
 * May the rw form @w match a path strictly below a path that the first
 * @k segments of form @g match (or that path itself, with @at)?
 * Conservative: two wildcard segments may always meet.
 */
static bool form_reaches_below(const struct form *w, const struct form *g,
			       uint32_t k, bool at)
{
	uint32_t i;

	for (i = 0; i < k; i++) {
		const struct seg *a = &g->segs[i], *b;

		if (i == w->nsegs)
			return w->subtree;
		b = &w->segs[i];
		if (a->kind == SEG_STARSTAR || b->kind == SEG_STARSTAR)
			return true;
		if (!seg_may_meet(a, b))
			return false;
	}
	return i < w->nsegs || w->subtree || at;
}

/*
 * Every spelling of every live rw row, sorted by the literal path before
 * its first wildcard (@key): two forms can meet only where one key is a
 * path prefix of the other, so a look-up visits the ancestors of a key
 * and one sorted range below it instead of every rw row.
 */
struct rw_form {
	char *key;
	const struct row *row;
	struct form f;
};

struct rw_index {
	struct rw_form *v;
	size_t n;
};

/* The literal path before the first wildcard of @f (caller frees). */
static char *form_key(const struct form *f)
{
	size_t len = 0, i;
	char *key, *p;

	for (i = 0; i < f->nsegs && f->segs[i].kind == SEG_LIT; i++)
		len += 1 + f->segs[i].len;
	p = key = xmalloc(len + 1);
	for (i = 0; i < f->nsegs && f->segs[i].kind == SEG_LIT; i++) {
		*p++ = '/';
		memcpy(p, f->segs[i].s, f->segs[i].len);
		p += f->segs[i].len;
	}
	*p = '\0';
	return key;
}

static int rw_form_cmp(const void *a, const void *b)
{
	const struct rw_form *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c)
		return c;
	return x->row->index < y->row->index ? -1 :
	       x->row->index > y->row->index;
}

static void rw_index_build(const struct table *table, struct rw_index *ix)
{
	struct form *forms;
	size_t nforms, i, j;

	memset(ix, 0, sizeof(*ix));
	for (i = 0; i < table->fs.n; i++) {
		const struct row *w = table->fs.order[i];

		if (w->effect != EFFECT_RW || w->shadowed_by)
			continue;
		forms_build(&w->fs, &forms, &nforms);
		ix->v = xreallocarray(ix->v, ix->n + nforms, sizeof(*ix->v));
		for (j = 0; j < nforms; j++) {
			ix->v[ix->n].f = forms[j];
			ix->v[ix->n].row = w;
			ix->v[ix->n].key = form_key(&forms[j]);
			ix->n++;
		}
		free(forms);
	}
	if (ix->n)
		qsort(ix->v, ix->n, sizeof(*ix->v), rw_form_cmp);
}

static void rw_index_free(struct rw_index *ix)
{
	size_t i;

	for (i = 0; i < ix->n; i++) {
		free(ix->v[i].key);
		free(ix->v[i].f.segs);
	}
	free(ix->v);
	memset(ix, 0, sizeof(*ix));
}

/* The first entry whose key sorts at or after the first @len bytes of @key. */
static size_t rw_index_lower(const struct rw_index *ix, const char *key,
			     size_t len)
{
	size_t lo = 0, hi = ix->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strncmp(ix->v[mid].key, key, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * An rw row that matches a directory but not everything below it: wild,
 * and not ending in "**".
 */
static bool rw_open_below(const struct row *w)
{
	return w->fs.wild && w->fs.segs[w->fs.nsegs - 1].kind != SEG_STARSTAR;
}

/**
 * struct reach - one look-up in the rw index
 * @g: the form of the ro or deny row
 * @k: its fixed segments
 * @above: NULL to consider every rw row, else only those of higher
 *         priority than @above that leave what is below a match open
 * @by: the answer so far: the first such rw row in table order
 */
struct reach {
	const struct form *g;
	uint32_t k;
	const struct row *above;
	const struct row *by;
};

/*
 * Test the entries whose key is the first @len bytes of @key (@exact),
 * or starts with them, for a form reaching below @q's fixed prefix.
 */
static void rw_index_scan(const struct rw_index *ix, const char *key,
			  size_t len, bool exact, struct reach *q)
{
	size_t i;

	for (i = rw_index_lower(ix, key, len); i < ix->n; i++) {
		const struct row *w = ix->v[i].row;
		const char *e = ix->v[i].key;

		if (strncmp(e, key, len) != 0)
			break;
		if (exact && e[len])
			break;
		if (q->by && w->index >= q->by->index)
			continue;
		if (q->above && (w->prio >= q->above->prio ||
				 !rw_open_below(w)))
			continue;
		/* A subtree row's own path holds what it protects. */
		if (form_reaches_below(&ix->v[i].f, q->g, q->k,
				       q->above && q->g->subtree))
			q->by = w;
	}
}

/*
 * The first rw row in table order (of those @above selects, see struct
 * reach) that may match a path below the fixed prefix of @row, in any
 * spelling; NULL if none.
 */
static const struct row *rw_reaching(const struct rw_index *ix,
				     const struct row *row,
				     const struct row *above)
{
	struct reach q = { .above = above };
	struct form *gf;
	size_t ngf, a, len;
	char *key, *below;

	forms_build(&row->fs, &gf, &ngf);
	for (a = 0; a < ngf; a++) {
		q.g = &gf[a];
		q.k = form_fixed(&gf[a]);
		key = form_key(&gf[a]);
		below = xasprintf("%s/", key);
		len = strlen(key);
		/* Keys below this one, this one, then each ancestor's. */
		rw_index_scan(ix, below, len + 1, false, &q);
		free(below);
		rw_index_scan(ix, key, len, true, &q);
		while (len > 0) {
			while (len > 0 && key[len - 1] != '/')
				len--;
			if (len > 0)
				len--;
			rw_index_scan(ix, key, len, true, &q);
		}
		free(key);
	}
	forms_free(gf, ngf);
	return q.by;
}

/*
 * The rw row (or NULL for @default write rw) that makes a directory
 * below the fixed prefix of @row writable, in any spelling; *@found
 * says whether there is one.  Rows of every priority count: a higher rw
 * row may open the directory, a lower one the place it is moved to.
 * Of several, the first in table order is named.
 */
static const struct row *gap_writer(const struct table *table,
				    const struct rw_index *ix,
				    const struct row *row, bool *found)
{
	const struct row *by;

	*found = table->default_write == EFFECT_RW;
	if (*found)
		return NULL;
	by = rw_reaching(ix, row, NULL);
	*found = by != NULL;
	return by;
}

/*
 * The carve: a higher-priority rw row that matches a directory inside
 * @row's region but not what lies below it (!rw:/srv/ ** /.env above
 * deny:/srv) makes that directory renamable while @row decides its
 * contents: moved to another writable place, filled and moved back, it
 * carries content into the region.  Returns that rw row when a place to
 * move to exists (another rw row, or @default write rw), else NULL.
 */
static const struct row *carve_writer(const struct table *table,
				      const struct rw_index *ix,
				      const struct row *row)
{
	const struct row *by = rw_reaching(ix, row, row);
	size_t i;

	if (!by || table->default_write == EFFECT_RW)
		return by;
	for (i = 0; i < ix->n; i++)
		if (ix->v[i].row != by)
			return by;
	return NULL;
}

static const char *effect_phrase(enum effect effect)
{
	switch (effect) {
	case EFFECT_DENY:
		return "seatbelt denies read and write";
	case EFFECT_RO:
		return "seatbelt allows read and denies write explicitly";
	case EFFECT_RW:
		return "seatbelt allows read and write";
	case EFFECT_ALLOW:
	default:
		BUG("file row with effect %d", effect);
	}
}

static void classify_fs(const struct table *table, const struct rw_index *ix,
			struct landing *l)
{
	const struct row *row = l->row;
	struct fs_plan plan;

	if (row->shadowed_by) {
		landing_set_reason(l, LANDING_ABSORBED,
				   "dead: covered by row %u",
				   row->shadowed_by->index);
		return;
	}
	if (guarded_effect(row->effect)) {
		const struct row *by = NULL;
		bool gap = starstar_gap(&row->fs), found = false;

		if (gap)
			by = gap_writer(table, ix, row, &found);
		if (gap && found) {
			char *where = by ? xasprintf("row %u", by->index) :
					   xstrdup("@default write rw");

			landing_set_reason(l, LANDING_UNSUPPORTED,
				"'%s' has a '**' with more segments after it, "
				"and %s makes a directory %s writable: "
				"seatbelt cannot keep such a "
				"directory from being renamed out of the match "
				"and back, or replaced by a symbolic link to "
				"elsewhere (it matches resolved paths); list "
				"the paths literally, or use a pattern that "
				"starts with '**' and names one segment, or "
				"one that ends in '/**'", row->fs.text, where,
				row->fs.segs[0].kind == SEG_STARSTAR ?
				"above the names it matches" :
				"between its fixed prefix and the names it "
				"matches");
			free(where);
			return;
		}
		by = carve_writer(table, ix, row);
		if (by) {
			landing_set_reason(l, LANDING_UNSUPPORTED,
				"row %u, of higher priority, makes a directory "
				"inside the region of '%s' writable but not "
				"what lies below it: seatbelt cannot keep that "
				"directory from being renamed to another "
				"writable place, filled and renamed back; end "
				"row %u in '/**' or give this row a higher "
				"level", by->index, row->fs.text, by->index);
			return;
		}
		by = gap ? NULL : name_row_writer(table, row);
		if (by) {
			landing_set_reason(l, LANDING_UNSUPPORTED,
				"'%s' matches its name wherever a directory "
				"goes, but row %u, of higher priority, makes "
				"such a name writable in its region: a "
				"directory renamed there, written and renamed "
				"back carries the paths out of this row, and "
				"seatbelt checks only the directory's own name "
				"on rename; give this row a higher level than "
				"row %u", row->fs.text, by->index, by->index);
			return;
		}
	}
	fs_plan_build(table, row, &plan);
	if (plan.longest > SBPL_MAX_STRING)
		landing_set_reason(l, LANDING_UNSUPPORTED,
				   "needs an SBPL string of %zu bytes; "
				   "seatbelt rejects a profile with a string "
				   "over %d bytes", plan.longest,
				   SBPL_MAX_STRING);
	else
		landing_set_reason(l, LANDING_KERNEL, "%s (%s filter%s)%s",
				   effect_phrase(row->effect),
				   sbpl_filter_kind_name(plan.filters[0].kind),
				   plan.nfilters > 1 ?
				   ", plus the other spellings of /tmp, /var "
				   "and /etc" : "",
				   plan.nguards ?
				   "; its ancestors cannot be renamed, removed, "
				   "created or changed, so an absent ancestor "
				   "stays absent (narrower than the table)" :
				   "");
	fs_plan_free(&plan);
}

static bool loopback(const struct row *row)
{
	return row->net.kind == HOST_LOOPBACK;
}

static bool net_open(const struct table *table)
{
	return table->default_net == EFFECT_ALLOW;
}

/* The port of a loopback row as SBPL writes it: "*" or the number. */
static const char *port_spec(const struct row *row, char buf[8])
{
	if (row->net.any_port)
		return "*";
	snprintf(buf, 8, "%u", row->net.port);
	return buf;
}

static void classify_net(const struct table *table, struct landing *l)
{
	const struct row *row = l->row;
	char port_text[8];

	if (row->shadowed_by)
		landing_set_reason(l, LANDING_ABSORBED,
				   "dead: covered by row %u",
				   row->shadowed_by->index);
	else if (loopback(row) && net_open(table) &&
		 row->effect == EFFECT_DENY)
		landing_set_reason(l, LANDING_UNSUPPORTED,
				   "a loopback deny row cannot be enforced "
				   "with @default net open: seatbelt's "
				   "\"localhost\" is only 127.0.0.1 and ::1, "
				   "no SBPL address names the rest of "
				   "127.0.0.0/8, and no proxy runs in open "
				   "posture");
	else if (loopback(row) && net_open(table))
		landing_set_reason(l, LANDING_ABSORBED,
				   "allow with @default net open: every "
				   "connection is allowed already");
	else if (loopback(row) && row->effect == EFFECT_DENY)
		landing_set_reason(l, LANDING_KERNEL, "loopback rule: seatbelt "
				   "(remote ip \"localhost:%s\"); the rest of "
				   "127.0.0.0/8 is denied by the posture",
				   port_spec(row, port_text));
	else if (loopback(row))
		landing_set_reason(l, LANDING_KERNEL, "loopback rule: seatbelt "
				   "(remote ip \"localhost:%s\") reaches only "
				   "127.0.0.1 and ::1; the rest of 127.0.0.0/8 "
				   "stays denied (narrower than the table)",
				   port_spec(row, port_text));
	else if (!net_open(table))
		landing_set_reason(l, LANDING_PROXY,
				   "non-loopback host: enforced by the "
				   "launcher's egress proxy (seatbelt can name "
				   "only localhost or every host)");
	else if (row->effect == EFFECT_DENY)
		landing_set_reason(l, LANDING_UNSUPPORTED,
				   "a deny for a non-loopback host cannot be "
				   "enforced with @default net open: seatbelt "
				   "can name only localhost or every host, and "
				   "no proxy runs in open posture");
	else
		landing_set_reason(l, LANDING_ABSORBED,
				   "allow with @default net open: every "
				   "connection is allowed already");
}

static void darwin_classify(const struct table *table, struct landing_set *out)
{
	struct rw_index ix;
	bool proxy = false;
	size_t i;

	rw_index_build(table, &ix);
	for (i = 0; i < out->nfs; i++)
		classify_fs(table, &ix, &out->fs[i]);
	rw_index_free(&ix);
	for (i = 0; i < out->nnet; i++) {
		classify_net(table, &out->net[i]);
		if (out->net[i].kind == LANDING_PROXY)
			proxy = true;
	}
	/* doc/proxy.md: the proxy runs in deny posture when a row needs it. */
	if (!proxy)
		return;
	for (i = 0; i < array_size(reserved_ports); i++)
		landing_set_add_reserved(out, reserved_ports[i].entry,
					 "the launcher's %s proxy port, above "
					 "every row: SBPL parameter %s, passed "
					 "with sandbox-exec -D at launch",
					 reserved_ports[i].what,
					 reserved_ports[i].param);
}

/* ---- writing ---- */

/*
 * A base allowance: why (comment lines, separated by newlines) and the
 * rule.  Base allowances come before every row, so a row naming the same
 * thing overrides them.
 */
struct base_rule {
	const char *why;
	const char *rule;
};

static const struct base_rule base_process[] = {
	{ "run programs and create processes; children inherit this profile",
	  "(allow process-exec process-fork)" },
	{ "signals only to itself and its children (the same sandbox)",
	  "(allow signal (target same-sandbox))" },
	{ "process information only about itself and its children",
	  "(allow process-info* (target same-sandbox))" },
	{ "sysctls libc and language runtimes read: the hardware and CPU\n"
	  "features (CPU count, page size), OS version, limits, boot time,\n"
	  "load average, and whether Rosetta translates the process",
	  "(allow sysctl-read\n"
	  "    (sysctl-name-prefix \"hw.\")\n"
	  "    (sysctl-name-prefix \"machdep.cpu.\")\n"
	  "    (sysctl-name \"kern.argmax\")\n"
	  "    (sysctl-name \"kern.boottime\")\n"
	  "    (sysctl-name \"kern.hostname\")\n"
	  "    (sysctl-name \"kern.maxfiles\")\n"
	  "    (sysctl-name \"kern.maxfilesperproc\")\n"
	  "    (sysctl-name \"kern.maxproc\")\n"
	  "    (sysctl-name \"kern.ngroups\")\n"
	  "    (sysctl-name \"kern.osproductversion\")\n"
	  "    (sysctl-name \"kern.osrelease\")\n"
	  "    (sysctl-name \"kern.ostype\")\n"
	  "    (sysctl-name \"kern.osvariant_status\")\n"
	  "    (sysctl-name \"kern.osversion\")\n"
	  "    (sysctl-name \"kern.secure_kernel\")\n"
	  "    (sysctl-name \"kern.usrstack64\")\n"
	  "    (sysctl-name \"kern.version\")\n"
	  "    (sysctl-name \"sysctl.proc_translated\")\n"
	  "    (sysctl-name \"vm.loadavg\"))" },
	{ "mach services libc uses",
	  "(allow mach-lookup\n"
	  "    ;; user and group lookups: getpwuid(3), getgrnam(3)\n"
	  "    (global-name \"com.apple.system.opendirectoryd.libinfo\")\n"
	  "    ;; group membership: getgrouplist(3), initgroups(3)\n"
	  "    (global-name \"com.apple.system.opendirectoryd.membership\")\n"
	  "    ;; syslog(3) and os_log\n"
	  "    (global-name \"com.apple.system.logger\")\n"
	  "    (global-name \"com.apple.logd\")\n"
	  "    ;; notify(3): libc learns of time zone changes through it\n"
	  "    (global-name \"com.apple.system.notification_center\")\n"
	  "    ;; the per-user temporary directory: confstr(3)\n"
	  "    (global-name \"com.apple.bsd.dirhelper\")\n"
	  "    ;; certificate checks of TLS clients (the proxy never "
	  "terminates TLS)\n"
	  "    (global-name \"com.apple.trustd.agent\"))" },
	{ "notify(3) reads its state from one shared memory page",
	  "(allow ipc-posix-shm-read-data ipc-posix-shm-read-metadata\n"
	  "    (ipc-posix-name \"apple.shm.notification_center\"))" },
	{ "creating a socket grants nothing: connections are checked below",
	  "(allow system-socket)" },
	{ "pseudo-terminals, for programs that drive a terminal (script, "
	  "expect)",
	  "(allow pseudo-tty)" },
};

static const struct base_rule base_devices[] = {
	{ "output discarded to /dev/null or /dev/zero",
	  "(allow file-write-data file-ioctl\n"
	  "    (literal \"/dev/null\")\n"
	  "    (literal \"/dev/zero\"))" },
	{ "entropy: every TLS library and hash table seed reads it",
	  "(allow file-read*\n"
	  "    (literal \"/dev/random\")\n"
	  "    (literal \"/dev/urandom\"))" },
	{ "the controlling terminal and pseudo-terminals",
	  "(allow file-write-data file-ioctl\n"
	  "    (literal \"/dev/tty\")\n"
	  "    (literal \"/dev/ptmx\")\n"
	  "    (regex \"^/dev/ttys[0-9]+$\"))" },
	{ "descriptors the process already holds, reopened by name",
	  "(allow file-write-data\n"
	  "    (literal \"/dev/stdout\")\n"
	  "    (literal \"/dev/stderr\")\n"
	  "    (regex \"^/dev/fd/[0-9]+$\"))" },
};

static void write_base(FILE *out, const struct base_rule *rules, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const char *why = rules[i].why, *nl;

		while ((nl = strchr(why, '\n'))) {
			char *line = xstrndup(why, (size_t)(nl - why));

			sbpl_write_comment(out, line);
			free(line);
			why = nl + 1;
		}
		sbpl_write_comment(out, why);
		fprintf(out, "%s\n", rules[i].rule);
	}
}

static void write_section(FILE *out, const char *title)
{
	fprintf(out, "\n;; ---- %s ----\n", title);
}

/* "(ACTION OPS" and one filter a line, then ")". */
static void write_rule(FILE *out, const char *action, const char *ops,
		       const struct sbpl_filter *filters, size_t n)
{
	size_t i;

	fprintf(out, "(%s %s", action, ops);
	for (i = 0; i < n; i++) {
		fputs("\n    ", out);
		sbpl_filter_write(out, &filters[i]);
	}
	fputs(")\n", out);
}

static void write_row_comment(FILE *out, const struct row *row)
{
	char *text = row_text(row), *line;

	line = xasprintf("row %u, level %u: %s", row->index, row->level, text);
	sbpl_write_comment(out, line);
	free(line);
	free(text);
}

static void write_fs_row(FILE *out, const struct row *row,
			 const struct fs_plan *plan)
{
	write_row_comment(out, row);
	switch (row->effect) {
	case EFFECT_DENY:
		write_rule(out, "deny", OPS_READ " " OPS_WRITE, plan->filters,
			   plan->nfilters);
		break;
	case EFFECT_RO:
		write_rule(out, "allow", OPS_READ, plan->filters,
			   plan->nfilters);
		write_rule(out, "deny", OPS_WRITE, plan->filters,
			   plan->nfilters);
		break;
	case EFFECT_RW:
		write_rule(out, "allow", OPS_READ " " OPS_WRITE, plan->filters,
			   plan->nfilters);
		break;
	case EFFECT_ALLOW:
	default:
		BUG("file row with effect %d", row->effect);
	}
}

/*
 * Rows that land in the kernel, from the lowest priority to the highest;
 * every other landing writes nothing.  An unsupported entry means the
 * caller skipped emit_classify()'s verdict: refuse rather than write a
 * profile wider than the table.
 */
static int check_landing(const struct landing *l, struct diag_list *diags)
{
	char *text;
	int ret;

	if (l->kind != LANDING_UNSUPPORTED)
		return 0;
	text = row_text(l->row);
	ret = diag_error(diags, &l->row->loc,
			 "row %u '%s' is unsupported on darwin: %s",
			 l->row->index, text, l->reason ? l->reason : "");
	free(text);
	return ret;
}

static void write_fs(FILE *out, const struct table *table,
		     const struct landing_set *landing)
{
	bool guards = false;
	struct fs_plan plan;
	size_t i;

	write_section(out, "files: defaults");
	sbpl_write_comment(out, "reads that match no row are allowed (running "
			   "programs is a base allowance)");
	fputs("(allow file-read* file-map-executable)\n", out);
	if (table->default_write == EFFECT_RW) {
		sbpl_write_comment(out, "@default write rw: writes that match "
				   "no row are allowed");
		fputs("(allow " OPS_WRITE ")\n", out);
	} else {
		sbpl_write_comment(out, "@default write deny: (deny default) "
				   "denies writes that match no row");
	}
	sbpl_write_comment(out, "devices every program uses, below every row: "
			   "each write rule below");
	sbpl_write_comment(out, "names file-write-data and file-ioctl too, so "
			   "a row naming a device overrides these");
	write_base(out, base_devices, array_size(base_devices));

	write_section(out, "file rows, lowest priority first (per operation, "
		      "the last matching rule wins)");
	for (i = table->fs.n; i-- > 0;) {
		const struct row *row = table->fs.prio[i];

		if (landing->fs[row->index].kind != LANDING_KERNEL)
			continue;
		fs_plan_build(table, row, &plan);
		write_fs_row(out, row, &plan);
		if (plan.nguards)
			guards = true;
		fs_plan_free(&plan);
	}
	if (!guards)
		return;

	/*
	 * Above every row: a rename must not carry a protected path away,
	 * and an absent ancestor must not be created as a link to elsewhere
	 * or by renaming a prepared directory onto it.
	 */
	write_section(out, "ancestors of read-only and denied paths: not "
		      "renamed, removed, created or changed");
	for (i = table->fs.n; i-- > 0;) {
		const struct row *row = table->fs.prio[i];

		if (landing->fs[row->index].kind != LANDING_KERNEL ||
		    !guarded_effect(row->effect))
			continue;
		fs_plan_build(table, row, &plan);
		if (plan.nguards) {
			write_row_comment(out, row);
			write_rule(out, "deny", OPS_GUARD, plan.guards,
				   plan.nguards);
		}
		fs_plan_free(&plan);
	}
}

static void write_net_row(FILE *out, const struct row *row)
{
	write_row_comment(out, row);
	fprintf(out, "(%s network-outbound (remote ip \"localhost:",
		row->effect == EFFECT_ALLOW ? "allow" : "deny");
	if (row->net.any_port)
		fputc('*', out);
	else
		fprintf(out, "%u", row->net.port);
	fputs("\"))\n", out);
}

static const struct reserved_port *reserved_port_of(const struct landing *l)
{
	size_t i;

	for (i = 0; i < array_size(reserved_ports); i++)
		if (strcmp(l->entry, reserved_ports[i].entry) == 0)
			return &reserved_ports[i];
	BUG("darwin: unknown reserved entry '%s'", l->entry);
}

static void write_net(FILE *out, const struct table *table,
		      const struct landing_set *landing)
{
	size_t i;

	if (net_open(table)) {
		write_section(out, "network: @default net open");
		sbpl_write_comment(out, "connections that match no row are "
				   "allowed");
		fputs("(allow network*)\n", out);
		sbpl_write_comment(out, "name resolution: DNS configuration "
				   "and mDNSResponder");
		fputs("(allow mach-lookup\n"
		      "    (global-name "
		      "\"com.apple.SystemConfiguration.DNSConfiguration\")\n"
		      "    (global-name \"com.apple.dnssd.service\"))\n", out);
	} else {
		write_section(out, "network: @default net deny");
		sbpl_write_comment(out, "no connection, not even to a unix "
				   "socket, unless a rule below allows it");
		fputs("(deny network-outbound)\n", out);
		sbpl_write_comment(out, "listening on loopback grants no "
				   "outbound connection");
		fputs("(allow network-bind network-inbound "
		      "(local ip \"localhost:*\"))\n", out);
	}
	sbpl_write_comment(out, "loopback rows, lowest priority first");
	for (i = table->net.n; i-- > 0;) {
		const struct row *row = table->net.prio[i];

		if (landing->net[row->index].kind == LANDING_KERNEL)
			write_net_row(out, row);
	}
	if (!landing->nreserved)
		return;
	write_section(out, "reserved: the launcher's proxy, above every row");
	sbpl_write_comment(out, "ports filled in at launch: sandbox-exec "
			   "-D NAME=PORT for each parameter");
	for (i = 0; i < landing->nreserved; i++) {
		const struct reserved_port *rp =
			reserved_port_of(&landing->reserved[i]);

		sbpl_write_comment(out, landing->reserved[i].entry);
		fprintf(out, "(allow network-outbound (remote ip "
			"(string-append \"localhost:\" (param \"%s\"))))\n",
			rp->param);
	}
}

static int darwin_emit_profile(const struct table *table,
			       const struct landing_set *landing, FILE *out,
			       struct diag_list *diags)
{
	int ret = 0;
	size_t i;

	for (i = 0; i < landing->nfs; i++)
		if (check_landing(&landing->fs[i], diags))
			ret = -1;
	for (i = 0; i < landing->nnet; i++)
		if (check_landing(&landing->net[i], diags))
			ret = -1;
	if (ret)
		return ret;

	sbpl_write_comment(out, "Seatbelt profile written by vboxc for "
			   "target darwin; do not edit.");
	sbpl_write_comment(out, "Layout and reasons: doc/targets.md. Run "
			   "with sandbox-exec -f FILE.");
	fputs("(version 1)\n", out);
	sbpl_write_comment(out, "everything not allowed below is denied");
	fputs("(deny default)\n", out);
	write_section(out, "base allowances (below every row)");
	write_base(out, base_process, array_size(base_process));
	write_fs(out, table, landing);
	write_net(out, table, landing);
	if (ferror(out))
		return diag_error(diags, NULL, "cannot write the SBPL profile");
	return 0;
}

const struct emitter emitter_darwin = {
	.id = TARGET_DARWIN,
	.name = TARGET_DARWIN_NAME,
	.profile_ext = "sb",
	.classify = darwin_classify,
	.emit_profile = darwin_emit_profile,
};
