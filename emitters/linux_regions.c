/* SPDX-License-Identifier: MIT */
/*
 * linux_regions.c - regions of the linux mount table by path-index node
 * (see linux_regions.h).
 *
 * A row's region used to be found by scanning every lower-priority row
 * for one whose prefix is an ancestor of the path: quadratic in the
 * table (100,000 rows took most of a minute).  Here each node of the path
 * index remembers, among the rows added so far, the nearest subtree row
 * at the node, the nearest glob row of each effect at the node and the
 * nearest rw row at or below it.  "Nearest" is the smallest priority
 * position; rows arrive in decreasing position, so the newest one wins,
 * and a question walks only the path's ancestors.
 */
#include <vbox.h>

#include "index.h"
#include "ir.h"
#include "linux_regions.h"

/* The effects a glob row can have, as indexes of lx_node.glob. */
enum { GLOB_RW, GLOB_RO, GLOB_DENY, GLOB_KINDS };

/**
 * struct lx_node - what the rows added so far hang on one index node
 * @parent: the parent node (the root is its own parent)
 * @subtree: the nearest subtree-shaped row whose prefix ends here
 * @glob: the nearest glob row of each effect whose prefix ends here
 * @rw_below: the nearest rw row whose prefix ends here or below
 * @deny_below: the nearest deny row whose prefix ends here or below
 *
 * Rows are priority positions; INDEX_NONE for none.
 */
struct lx_node {
	uint32_t parent;
	uint32_t subtree;
	uint32_t glob[GLOB_KINDS];
	uint32_t rw_below;
	uint32_t deny_below;
};

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

void lx_regions_init(struct lx_regions *rg, const struct table *table)
{
	const struct path_index *idx = table->fs_index;
	uint32_t i, k;
	size_t r;

	if (!idx)
		BUG("linux classification without a path index");
	rg->table = table;
	rg->nodes = xcalloc(idx->nnodes ? idx->nnodes : 1,
			    sizeof(*rg->nodes));
	rg->row_node = xcalloc(table->fs.n ? table->fs.n : 1,
			       sizeof(*rg->row_node));
	for (i = 0; i < idx->nnodes; i++) {
		rg->nodes[i].parent = idx->parent[i];
		rg->nodes[i].subtree = INDEX_NONE;
		for (k = 0; k < GLOB_KINDS; k++)
			rg->nodes[i].glob[k] = INDEX_NONE;
		rg->nodes[i].rw_below = INDEX_NONE;
		rg->nodes[i].deny_below = INDEX_NONE;
	}
	/* The index holds every row's literal prefix, node by node. */
	for (r = 0; r < table->fs.n; r++) {
		const struct row *row = table->fs.order[r];

		rg->row_node[row->index] = idx->row_node[row->prio];
	}
}

void lx_regions_release(struct lx_regions *rg)
{
	free(rg->nodes);
	free(rg->row_node);
	memset(rg, 0, sizeof(*rg));
}

/* The "nearest row at or below" field of @n for @effect (rw or deny). */
static uint32_t *below_slot(struct lx_node *n, enum effect effect)
{
	return effect == EFFECT_RW ? &n->rw_below : &n->deny_below;
}

/*
 * Record @row in its effect's "nearest row at or below" field of @node
 * and its ancestors.  Stop early: an ancestor that already has a nearer
 * row keeps it.
 */
static void mark_below(struct lx_regions *rg, uint32_t node,
		       const struct row *row)
{
	for (;;) {
		uint32_t *slot = below_slot(&rg->nodes[node], row->effect);

		if (*slot <= row->prio)
			break;
		*slot = row->prio;
		if (!node)
			break;
		node = rg->nodes[node].parent;
	}
}

void lx_regions_add(struct lx_regions *rg, const struct row *row,
		    bool subtree)
{
	uint32_t node = rg->row_node[row->index];
	struct lx_node *n = &rg->nodes[node];

	if (subtree)
		n->subtree = min_u32(n->subtree, row->prio);
	else if (row->effect == EFFECT_RW)
		n->glob[GLOB_RW] = min_u32(n->glob[GLOB_RW], row->prio);
	else if (row->effect == EFFECT_RO)
		n->glob[GLOB_RO] = min_u32(n->glob[GLOB_RO], row->prio);
	else
		n->glob[GLOB_DENY] = min_u32(n->glob[GLOB_DENY], row->prio);
	if (row->effect == EFFECT_RW || row->effect == EFFECT_DENY)
		mark_below(rg, node, row);
}

void lx_regions_at(const struct lx_regions *rg, const struct row *row,
		   struct region *r)
{
	const struct table *table = rg->table;
	uint32_t node = rg->row_node[row->index];
	uint32_t sub = INDEX_NONE, glob[GLOB_KINDS], nearest, k;

	for (k = 0; k < GLOB_KINDS; k++)
		glob[k] = INDEX_NONE;
	for (;;) {
		const struct lx_node *n = &rg->nodes[node];

		sub = min_u32(sub, n->subtree);
		for (k = 0; k < GLOB_KINDS; k++)
			glob[k] = min_u32(glob[k], n->glob[k]);
		if (!node)
			break;
		node = n->parent;
	}
	memset(r, 0, sizeof(*r));
	/* Only globs nearer than the nearest subtree row can show through. */
	r->maybe_rw = glob[GLOB_RW] < sub;
	r->maybe_ro = glob[GLOB_RO] < sub;
	r->maybe_deny = glob[GLOB_DENY] < sub;
	nearest = min_u32(glob[GLOB_RW], min_u32(glob[GLOB_RO],
						 glob[GLOB_DENY]));
	if (nearest < sub)
		r->maybe_by = table->fs.prio[nearest];
	if (sub != INDEX_NONE) {
		r->by = table->fs.prio[sub];
		r->definite = r->by->effect;
	} else {
		r->definite = table->default_write == EFFECT_RW ? EFFECT_RW :
				  EFFECT_RO;
	}
}

const struct row *lx_regions_writable_below(const struct lx_regions *rg,
					    const struct row *row)
{
	uint32_t q = rg->nodes[rg->row_node[row->index]].rw_below;

	return q == INDEX_NONE ? NULL : rg->table->fs.prio[q];
}

const struct row *lx_regions_deny_near(const struct lx_regions *rg,
				       const struct row *row)
{
	const struct table *table = rg->table;
	uint32_t node = rg->row_node[row->index];
	uint32_t sub = INDEX_NONE, glob = INDEX_NONE, best;

	best = rg->nodes[node].deny_below;
	for (;;) {
		const struct lx_node *n = &rg->nodes[node];

		sub = min_u32(sub, n->subtree);
		glob = min_u32(glob, n->glob[GLOB_DENY]);
		if (!node)
			break;
		node = n->parent;
	}
	if (sub != INDEX_NONE && table->fs.prio[sub]->effect == EFFECT_DENY)
		best = min_u32(best, sub);
	/* Only a glob nearer than the nearest subtree row shows through. */
	if (glob < sub)
		best = min_u32(best, glob);
	return best == INDEX_NONE ? NULL : table->fs.prio[best];
}
