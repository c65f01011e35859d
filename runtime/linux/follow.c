/* SPDX-License-Identifier: MIT */
/*
 * follow.c - the table's view of a resolved host path (follow.h).
 *
 * Only needed when a granted path runs through a symbolic link, which is
 * rare, so the rows are compiled once per launch and scanned linearly.
 * Every judgement errs towards "no": a "**" segment is assumed to reach
 * below any path, and a row is taken to decide the whole subtree only
 * when its pattern provably matches every path in it.
 */
#include <vbox.h>

#include "follow.h"
#include "fspath.h"
#include "ir.h"
#include "plan.h"
#include "target.h"

/* vbox-exec runs linux plans only: case kept, no drive letters. */
static const struct target_traits linux_paths = {
	.id = TARGET_LINUX,
	.name = "linux",
};

struct follow_view {
	uint8_t default_effect;
	size_t n;
	struct fs_pattern *pats;	/* in priority order */
	const struct plan_row **rows;	/* borrowed, in priority order */
};

struct follow_view *follow_view_new(const struct plan *plan, char **err)
{
	struct follow_view *v = xzalloc(sizeof(*v));
	char *why = NULL;
	size_t k;

	v->default_effect = plan->default_write == EFFECT_RW ? EFFECT_RW :
							      EFFECT_RO;
	v->pats = xcalloc(plan->nfs ? plan->nfs : 1, sizeof(*v->pats));
	v->rows = xcalloc(plan->nfs ? plan->nfs : 1, sizeof(*v->rows));
	/* plan_decode() checked that the priorities are a permutation. */
	for (k = 0; k < plan->nfs; k++)
		v->rows[plan->fs[k].prio] = &plan->fs[k];
	for (k = 0; k < plan->nfs; k++) {
		if (fs_pattern_from_text(v->rows[k]->target, &linux_paths,
					 &v->pats[k], &why) < 0) {
			*err = xasprintf("%s: row %u: %s", v->rows[k]->source,
					 v->rows[k]->index, why);
			free(why);
			follow_view_free(v);
			return NULL;
		}
		v->n++;
	}
	return v;
}

void follow_view_free(struct follow_view *v)
{
	size_t k;

	if (!v)
		return;
	for (k = 0; k < v->n; k++)
		fs_pattern_free(&v->pats[k]);
	free(v->pats);
	free(v->rows);
	free(v);
}

static bool seg_matches(const struct seg *p, const struct seg *s)
{
	if (p->kind == SEG_GLOB)
		return fs_seg_glob_match(p->s, p->len, s->s, s->len);
	return p->len == s->len && memcmp(p->s, s->s, p->len) == 0;
}

/* Might @p match @path or a path below it? */
static bool may_meet(const struct fs_pattern *p, const struct fs_path *path)
{
	uint32_t i;

	for (i = 0; i < p->nsegs; i++) {
		if (i == path->nsegs || p->segs[i].kind == SEG_STARSTAR)
			return true;
		if (!seg_matches(&p->segs[i], &path->segs[i]))
			return false;
	}
	/* @p names @path or an ancestor: only a literal covers below. */
	return !p->wild || i == path->nsegs;
}

bool follow_same_effect(const struct follow_view *v, const char *path,
			uint8_t effect, uint32_t *decider, uint8_t *effect_out,
			bool *below)
{
	struct fs_path q;
	char *err = NULL;
	bool at_path = false, same = false;
	size_t k;

	*decider = UINT32_MAX;
	*effect_out = v->default_effect;
	*below = false;
	if (fs_path_parse(path, &linux_paths, &q, &err) < 0) {
		free(err);
		return false;
	}
	for (k = 0; k < v->n; k++) {
		const struct fs_pattern *p = &v->pats[k];

		if (!may_meet(p, &q))
			continue;
		if (!at_path && fs_match(p, &q)) {
			at_path = true;
			*decider = v->rows[k]->index;
			*effect_out = v->rows[k]->effect;
		}
		if (v->rows[k]->effect != effect) {
			*below = !fs_match(p, &q);
			*decider = v->rows[k]->index;
			*effect_out = v->rows[k]->effect;
			goto out;
		}
		if (fs_match_subtree(p, &q)) {
			same = true;
			goto out;
		}
	}
	same = v->default_effect == effect;
	if (!same) {
		/* The default decides what differs: below the path when a
		 * row of the same effect decides the path itself. */
		*below = at_path;
		*decider = UINT32_MAX;
		*effect_out = v->default_effect;
	}
out:
	fs_path_free(&q);
	return same;
}

int follow_decide(const struct follow_view *v, const char *path,
		  const struct plan_row **row)
{
	struct fs_path q;
	char *err = NULL;
	size_t k;

	*row = NULL;
	if (fs_path_parse(path, &linux_paths, &q, &err) < 0) {
		free(err);
		return -1;
	}
	for (k = 0; k < v->n && !*row; k++)
		if (fs_match(&v->pats[k], &q))
			*row = v->rows[k];
	fs_path_free(&q);
	return 0;
}

/*
 * "**" then one segment: it matches a path by its last segment alone,
 * the same below any directory (a rename moves nothing out of it).
 */
static bool by_last_segment(const struct fs_pattern *p)
{
	return p->nsegs == 2 && p->segs[0].kind == SEG_STARSTAR &&
	       p->segs[1].kind != SEG_STARSTAR;
}

bool follow_below_may_differ(const struct follow_view *v, const char *a,
			     const char *b, uint8_t landing)
{
	struct fs_path qa, qb;
	char *err = NULL;
	bool differ = false;
	size_t k;

	if (fs_path_parse(a, &linux_paths, &qa, &err) < 0) {
		free(err);
		return true;
	}
	if (fs_path_parse(b, &linux_paths, &qb, &err) < 0) {
		free(err);
		fs_path_free(&qa);
		return true;
	}
	for (k = 0; k < v->n && !differ; k++) {
		const struct fs_pattern *p = &v->pats[k];
		size_t j;

		if (landing != FOLLOW_ANY_LANDING &&
		    v->rows[k]->landing != landing)
			continue;
		/* Every row: one that decides all below both ends it. */
		if (landing == FOLLOW_ANY_LANDING &&
		    fs_match_subtree(p, &qa) && fs_match_subtree(p, &qb))
			break;
		if (!by_last_segment(p)) {
			differ = may_meet(p, &qa) || may_meet(p, &qb);
			continue;
		}
		/* The same below both, unless a row tried before it is not. */
		for (j = 0; j < k && !differ; j++)
			differ = !by_last_segment(&v->pats[j]) &&
				 (may_meet(&v->pats[j], &qa) ||
				  may_meet(&v->pats[j], &qb));
	}
	fs_path_free(&qa);
	fs_path_free(&qb);
	return differ;
}
