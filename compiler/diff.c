/* SPDX-License-Identifier: MIT */
/*
 * diff.c - table_diff(): the comparison's context, the alignment of the
 * two priority orders (which rows changed), the classes found by
 * diff_fs.c and diff_net.c, and their confirmation.
 *
 * Alignment: file rows are compared by effect and pattern (the key of
 * struct fs_pattern; equal keys match the same paths).  The longest
 * common subsequence of the two priority orders, found with Myers'
 * O(ND) algorithm after the common head and tail are cut, leaves the
 * "changed" rows.  A path that no changed row matches meets the common
 * rows in the same order in both tables, so the same one decides it (or
 * the default): diff_fs.c explores only near changed rows.  When the
 * orders are too far apart for the search (DIFF_MAX_ALIGN_EDITS), every
 * row between the common head and tail counts as changed, which only
 * costs time.
 *
 * Confirmation: every class's witness is parsed and evaluated again on
 * both tables with the engine of "vboxc explain" (eval.c); a witness
 * that does not give the recorded rows and verdicts stops the comparison
 * with an error instead of reporting something explain would contradict.
 */
#include <vbox.h>

#include <stdarg.h>
#include <stdio.h>

#include "diff.h"
#include "diff_int.h"
#include "eval.h"
#include "fspath.h"
#include "grow.h"
#include "ir.h"
#include "netaddr.h"
#include "target.h"
#include "u64map.h"

int diff_fail(struct diff_ctx *ctx, const char *fmt, ...)
{
	va_list ap;
	char *msg;
	int n;

	if (ctx->err)
		return -1;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		BUG("cannot format a diff error");
	msg = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(msg, (size_t)n + 1, fmt, ap);
	va_end(ap);
	ctx->err = msg;
	return -1;
}

const char *diff_op_name(enum diff_op op)
{
	switch (op) {
	case DIFF_READ:
		return "read";
	case DIFF_WRITE:
		return "write";
	case DIFF_NET:
		return "net";
	default:
		BUG("bad diff op %d", (int)op);
	}
}

bool diff_class_widens(const struct diff_class *c)
{
	return !c->old_allow && c->new_allow;
}

/* A row's priority position plus one; 0 for the default. */
static uint64_t key_part(const struct row *r)
{
	return r ? (uint64_t)r->prio + 1 : 0;
}

void diff_record(struct diff_ctx *ctx, enum diff_op op, const char *witness,
		 const struct row *old_row, bool old_allow,
		 const struct row *new_row, bool new_allow)
{
	uint64_t key = (uint64_t)op << 62 | key_part(old_row) << 31 |
		       key_part(new_row);
	struct diff_class *c;

	if (u64map_get(&ctx->keys, key) != U64MAP_NONE)
		return;
	u64map_put(&ctx->keys, key, (uint32_t)ctx->n);
	GROW(ctx->classes, ctx->cap, ctx->n + 1);
	c = &ctx->classes[ctx->n++];
	c->op = op;
	c->witness = xstrdup(witness);
	c->old_row = old_row;
	c->old_allow = old_allow;
	c->new_row = new_row;
	c->new_allow = new_allow;
}

/* ---- alignment ------------------------------------------------------ */

/**
 * struct align - the two priority orders, as comparable items
 * @a: the old table's rows
 * @b: the new table's rows
 * @ha: per old row, a hash of its effect and pattern
 * @hb: the same for the new rows
 */
struct align {
	struct row *const *a;
	struct row *const *b;
	uint64_t *ha;
	uint64_t *hb;
};

static uint64_t row_hash(const struct row *r)
{
	uint64_t h = u64_hash_bytes(U64_HASH_SEED, &r->effect,
				    sizeof(r->effect));

	return u64_hash_bytes(h, r->fs.key, strlen(r->fs.key));
}

static bool same_row(const struct align *al, size_t i, size_t j)
{
	return al->ha[i] == al->hb[j] && al->a[i]->effect == al->b[j]->effect &&
	       !strcmp(al->a[i]->fs.key, al->b[j]->fs.key);
}

/*
 * Myers' greedy search for the shortest edit script between a[lo_a..
 * hi_a) and b[lo_b..hi_b); the rows on its diagonals are common and get
 * their changed flag cleared.  trace[d] keeps the furthest x of every
 * diagonal k in -(d+1)..d+1 as it was before step d, which the walk back
 * from the end reads.  Returns false when more than
 * DIFF_MAX_ALIGN_EDITS edits would be needed.
 */
static bool myers(const struct align *al, size_t lo_a, size_t hi_a,
		  size_t lo_b, size_t hi_b, bool *ca, bool *cb)
{
	int32_t n = (int32_t)(hi_a - lo_a), m = (int32_t)(hi_b - lo_b);
	int32_t dmax = DIFF_MAX_ALIGN_EDITS, off = dmax + 1, d, k, x, y;
	int32_t *v = xcalloc((size_t)(2 * off + 1), sizeof(*v)), pk, px;
	int32_t **trace = xcalloc((size_t)dmax + 1, sizeof(*trace));
	int32_t last = -1;

	for (d = 0; d <= dmax && last < 0; d++) {
		trace[d] = xmalloc((size_t)(2 * d + 3) * sizeof(**trace));
		memcpy(trace[d], v + off - d - 1,
		       (size_t)(2 * d + 3) * sizeof(**trace));
		for (k = -d; k <= d; k += 2) {
			if (k == -d || (k != d && v[off + k - 1] <
					v[off + k + 1]))
				x = v[off + k + 1];
			else
				x = v[off + k - 1] + 1;
			y = x - k;
			while (x < n && y < m &&
			       same_row(al, lo_a + (size_t)x,
					lo_b + (size_t)y)) {
				x++;
				y++;
			}
			v[off + k] = x;
			if (x >= n && y >= m) {
				last = d;
				break;
			}
		}
	}
	/* Walk back from the end, clearing the rows of each diagonal. */
	x = n;
	y = m;
	for (d = last; d >= 0; d--) {
		const int32_t *pv = trace[d] + d + 1;	/* pv[k], |k| <= d+1 */

		k = x - y;
		pk = (k == -d || (k != d && pv[k - 1] < pv[k + 1])) ?
		     k + 1 : k - 1;
		px = pv[pk];
		while (x > px && y > px - pk) {
			x--;
			y--;
			ca[lo_a + (size_t)x] = false;
			cb[lo_b + (size_t)y] = false;
		}
		x = px;
		y = px - pk;
	}
	for (d = 0; d <= dmax; d++)
		free(trace[d]);
	free(trace);
	free(v);
	return last >= 0;
}

/*
 * The pruning in diff_fs.c is exact only if the rows left unchanged are
 * a common subsequence of both orders: pair them up again, in order.
 */
static void check_common(const struct diff_ctx *ctx, const struct align *al)
{
	size_t i = 0, j = 0, na = ctx->t[0]->fs.n, nb = ctx->t[1]->fs.n;

	for (;;) {
		while (i < na && ctx->changed[0][i])
			i++;
		while (j < nb && ctx->changed[1][j])
			j++;
		if (i == na || j == nb)
			break;
		if (!same_row(al, i, j))
			BUG("the aligned rows %zu and %zu differ", i, j);
		i++;
		j++;
	}
	if (i != na || j != nb)
		BUG("the aligned orders have different lengths");
}

/* Set ctx->changed: the file rows outside the common subsequence. */
static void align_rows(struct diff_ctx *ctx)
{
	const struct rowvec *ra = &ctx->t[0]->fs, *rb = &ctx->t[1]->fs;
	struct align al = { ra->prio, rb->prio, NULL, NULL };
	size_t head = 0, tail = 0, i;

	ctx->changed[0] = xcalloc(ra->n ? ra->n : 1, sizeof(bool));
	ctx->changed[1] = xcalloc(rb->n ? rb->n : 1, sizeof(bool));
	al.ha = xcalloc(ra->n ? ra->n : 1, sizeof(*al.ha));
	al.hb = xcalloc(rb->n ? rb->n : 1, sizeof(*al.hb));
	for (i = 0; i < ra->n; i++)
		al.ha[i] = row_hash(ra->prio[i]);
	for (i = 0; i < rb->n; i++)
		al.hb[i] = row_hash(rb->prio[i]);
	while (head < ra->n && head < rb->n && same_row(&al, head, head))
		head++;
	while (tail < ra->n - head && tail < rb->n - head &&
	       same_row(&al, ra->n - 1 - tail, rb->n - 1 - tail))
		tail++;
	for (i = head; i < ra->n - tail; i++)
		ctx->changed[0][i] = true;
	for (i = head; i < rb->n - tail; i++)
		ctx->changed[1][i] = true;
	/* Too far apart: the whole middle stays changed (only slower). */
	myers(&al, head, ra->n - tail, head, rb->n - tail, ctx->changed[0],
	      ctx->changed[1]);
	check_common(ctx, &al);
	for (i = 0; i < ra->n; i++)
		ctx->stats.changed_rows[0] += ctx->changed[0][i];
	for (i = 0; i < rb->n; i++)
		ctx->stats.changed_rows[1] += ctx->changed[1][i];
	free(al.ha);
	free(al.hb);
}

/* ---- results -------------------------------------------------------- */

static int class_cmp(const void *a, const void *b)
{
	const struct diff_class *x = a, *y = b;

	if (x->op != y->op)
		return (int)x->op - (int)y->op;
	return strcmp(x->witness, y->witness);
}

/* Evaluate @c's witness on both tables again; -1 when it disagrees. */
static int confirm(struct diff_ctx *ctx, const struct diff_class *c)
{
	struct decision d[2];
	struct fs_path path;
	struct net_target q;
	char *err = NULL;
	int side;

	if (c->op == DIFF_NET) {
		if (net_query_parse(c->witness, &q, &err) < 0)
			goto bad_parse;
		for (side = 0; side < 2; side++)
			eval_net(ctx->t[side], &q, &d[side]);
		net_target_free(&q);
	} else {
		if (fs_path_parse(c->witness, ctx->t[0]->target, &path,
				  &err) < 0)
			goto bad_parse;
		if (strcmp(path.text, c->witness))
			err = xasprintf("it cleans to '%s'", path.text);
		for (side = 0; side < 2; side++)
			eval_fs(ctx->t[side], &path, c->op == DIFF_WRITE ?
				FS_WRITE : FS_READ, &d[side]);
		fs_path_free(&path);
		if (err)
			goto bad_parse;
	}
	if (d[0].allow != c->old_allow || d[0].row != c->old_row ||
	    d[1].allow != c->new_allow || d[1].row != c->new_row)
		return diff_fail(ctx, "internal error: the evaluator does not "
				 "confirm the witness %s '%s' of a class",
				 diff_op_name(c->op), c->witness);
	return 0;
bad_parse:
	diff_fail(ctx, "the witness %s '%s' of a class is no valid query: %s",
		  diff_op_name(c->op), c->witness, err);
	free(err);
	return -1;
}

void diff_result_free(struct diff_result *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		free(r->classes[i].witness);
	free(r->classes);
	memset(r, 0, sizeof(*r));
}

int table_diff(const struct table *old_t, const struct table *new_t,
	       struct diff_result *out, char **err)
{
	struct diff_ctx ctx;
	size_t i;
	int ret;

	memset(out, 0, sizeof(*out));
	memset(&ctx, 0, sizeof(ctx));
	if (old_t->target != new_t->target)
		BUG("tables of two targets compared");
	ctx.t[DIFF_OLD] = old_t;
	ctx.t[DIFF_NEW] = new_t;
	ctx.segs = seg_cache_new();
	align_rows(&ctx);
	ret = diff_fs(&ctx);
	if (!ret)
		ret = diff_net(&ctx);
	if (ctx.n)
		qsort(ctx.classes, ctx.n, sizeof(*ctx.classes), class_cmp);
	for (i = 0; !ret && i < ctx.n; i++)
		ret = confirm(&ctx, &ctx.classes[i]);
	out->classes = ctx.classes;
	out->n = ctx.n;
	out->stats = ctx.stats;
	if (ret) {
		diff_result_free(out);
		out->stats = ctx.stats;
		*err = ctx.err ? ctx.err : xstrdup("the comparison failed");
		ctx.err = NULL;
	}
	free(ctx.err);
	free(ctx.changed[0]);
	free(ctx.changed[1]);
	u64map_free(&ctx.keys);
	seg_cache_free(ctx.segs);
	return ret;
}
