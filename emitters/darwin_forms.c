/* SPDX-License-Identifier: MIT */
/*
 * darwin_forms.c - a darwin file row's pattern as SBPL filters: every
 * spelling Seatbelt may see a matched path under (the /private aliases
 * of /tmp, /var and /etc, and /dev/fd/N for /dev/stdin ...), and for ro
 * and deny rows the guards that keep their ancestors in place
 * (doc/targets.md "Ancestor guards").  darwin_classify.c decides from
 * these whether a row fits; darwin.c writes them.
 */
#include <vbox.h>

#include "darwin.h"
#include "fspath.h"
#include "grow.h"
#include "ir.h"
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

static bool fold_case(const struct table *table)
{
	return table->target && table->target->fold_case;
}

/*
 * Copy @n segments, with consecutive "**" merged into one: the language
 * does not change, and it bounds the number of alias forms below.
 */
uint32_t darwin_segs_copy(struct seg *dst, const struct seg *src, uint32_t n)
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

static void form_add(struct form **forms, size_t *n, size_t *cap,
		     const char *const *pre, uint32_t npre,
		     const struct seg *segs, uint32_t nsegs, bool subtree)
{
	struct form *f;
	uint32_t i;

	GROW(*forms, *cap, *n + 1);
	f = &(*forms)[(*n)++];
	f->segs = xcalloc((size_t)npre + nsegs + 1, sizeof(*f->segs));
	for (i = 0; i < npre; i++) {
		f->segs[i].s = pre[i];
		f->segs[i].len = (uint32_t)strlen(pre[i]);
		f->segs[i].kind = SEG_LIT;
	}
	f->nsegs = npre + darwin_segs_copy(f->segs + npre, segs, nsegs);
	f->subtree = subtree;
}

void darwin_forms_free(struct form *forms, size_t n)
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
 * Can a path the pattern matches start with an aliased name (tmp, var,
 * etc, private, dev)?  Only a pattern with a first segment of wildcards
 * or of one of those names: every derivative below starts there.
 */
static bool may_be_aliased(const struct fs_pattern *p)
{
	static const char *const names[] = { "tmp", "var", "etc", "private",
					     "dev" };
	size_t i;

	if (!p->nsegs || p->segs[0].kind != SEG_LIT)
		return p->nsegs > 0;
	for (i = 0; i < array_size(names); i++)
		if (p->segs[0].len == strlen(names[i]) &&
		    memcmp(p->segs[0].s, names[i], p->segs[0].len) == 0)
			return true;
	return false;
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
void darwin_forms_build(const struct fs_pattern *p, struct form **forms,
			size_t *nforms)
{
	struct seg *segs;
	bool *d1, *d2;
	bool subtree = !p->wild, lead_starstar;
	uint32_t n, i, j;
	size_t a, cap = 0;

	*forms = NULL;
	*nforms = 0;
	if (!may_be_aliased(p)) {
		/* Most rows: the pattern is its only spelling. */
		form_add(forms, nforms, &cap, NULL, 0, p->segs, p->nsegs,
			 subtree);
		return;
	}
	segs = xcalloc((size_t)p->nsegs + 1, sizeof(*segs));
	d1 = xcalloc((size_t)p->nsegs + 2, sizeof(*d1));
	d2 = xcalloc((size_t)p->nsegs + 2, sizeof(*d2));
	n = darwin_segs_copy(segs, p->segs, p->nsegs);
	form_add(forms, nforms, &cap, NULL, 0, segs, n, subtree);
	lead_starstar = n && segs[0].kind == SEG_STARSTAR;
	for (a = 0; a < array_size(private_links) && n && !lead_starstar;
	     a++) {
		const char *pre[2] = { private_dir, private_links[a] };

		memset(d1, 0, (n + 1) * sizeof(*d1));
		derive(segs, n, subtree, 0, private_links[a], d1);
		for (i = 0; i <= n; i++)
			if (d1[i])
				form_add(forms, nforms, &cap, pre, 2, segs + i,
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
				form_add(forms, nforms, &cap, pre, 1, segs + j,
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
				form_add(forms, nforms, &cap, pre, 3, segs + j,
					 n - j, subtree);
	}
	free(d2);
	free(d1);
	free(segs);
}

/* Append *@f to the list unless an equal filter is there (consumes @f). */
static void filter_add(struct sbpl_filter **list, size_t *n, size_t *cap,
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
	GROW(*list, *cap, *n + 1);
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
		filter_add(&plan->guards, &plan->nguards, &plan->guards_cap,
			   &g, &plan->longest);
	}
}

bool darwin_row_guarded(const struct row *row)
{
	return row->effect == EFFECT_DENY || row->effect == EFFECT_RO;
}

/*
 * Does a spelling have guards?  Its first guard is its first segment,
 * when that is not "**" and more follow (guards_add()).
 */
static bool form_guarded(const struct form *f)
{
	return f->nsegs > 1 && f->segs[0].kind != SEG_STARSTAR;
}

void darwin_fs_plan_build(const struct table *table, const struct row *row,
			  unsigned parts, struct fs_plan *plan)
{
	bool fold = fold_case(table);
	struct sbpl_filter f;
	struct form *forms;
	size_t nforms, i, bound = SIZE_MAX;

	memset(plan, 0, sizeof(*plan));
	darwin_forms_build(&row->fs, &forms, &nforms);
	for (i = 0; i < nforms; i++)
		if (darwin_row_guarded(row) && form_guarded(&forms[i]))
			plan->guarded = true;
	if ((parts & FS_PLAN_FIT) && nforms == 1)
		bound = sbpl_filter_bound(forms[0].segs, forms[0].nsegs);
	if ((parts & FS_PLAN_FIT) && bound <= SBPL_MAX_STRING) {
		/* Fits, whatever its exact size: nothing to build. */
		plan->kind = sbpl_filter_kind_of(forms[0].segs,
						 forms[0].nsegs,
						 forms[0].subtree, fold);
		plan->nspellings = 1;
		plan->longest = bound;
	} else if (parts & FS_PLAN_FIT) {
		parts |= FS_PLAN_FILTERS;
	}
	for (i = 0; (parts & FS_PLAN_FILTERS) && i < nforms; i++) {
		sbpl_filter_make(&f, forms[i].segs, forms[i].nsegs,
				 forms[i].subtree, fold);
		filter_add(&plan->filters, &plan->nfilters,
			   &plan->filters_cap, &f, &plan->longest);
	}
	if (plan->nfilters) {
		plan->kind = plan->filters[0].kind;
		plan->nspellings = plan->nfilters;
	}
	if ((parts & FS_PLAN_GUARDS) && plan->guarded &&
	    plan->longest <= SBPL_MAX_STRING) {
		for (i = 0; i < nforms; i++)
			guards_add(plan, &forms[i], fold);
		/* Shorter than the filters, which fit (enum fs_plan_part). */
		if (plan->longest > SBPL_MAX_STRING || !plan->nguards)
			BUG("row %u: guards do not follow its filters",
			    row->index);
	}
	darwin_forms_free(forms, nforms);
}

void darwin_fs_plan_free(struct fs_plan *plan)
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
