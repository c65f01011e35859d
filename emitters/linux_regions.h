/* SPDX-License-Identifier: MIT */
/*
 * linux_regions.h - what the mounts of lower-priority rows make of a
 * path, for the linux classifier (emitters/linux.c), in time linear in
 * the path's depth.
 *
 * The classifier visits the file rows from the lowest priority to the
 * highest and, after classifying a row that mounts something, adds it
 * here.  Rows hang on the nodes of the table's path index
 * (compiler/index.h) by their literal prefix; each node keeps the nearest
 * (highest-priority) row added so far of each kind, so a question about
 * a path looks only at that path's ancestors, never at the whole table.
 * doc/targets.md describes the classification this serves.
 */
#ifndef VBOX_LINUX_REGIONS_H
#define VBOX_LINUX_REGIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "ir.h"

struct table;
struct row;
struct lx_node;

/**
 * struct region - what the rows added so far make of one location
 * @definite: the effect of the nearest subtree-shaped row covering it, or
 *            of the root (EFFECT_RW or EFFECT_RO from @default write)
 * @by: that row, NULL for the root
 * @maybe_rw, @maybe_ro, @maybe_deny: a glob row nearer than @by may mount
 *            something of that effect over the location at launch
 * @maybe_by: the nearest such glob row
 */
struct region {
	enum effect definite;
	const struct row *by;
	bool maybe_rw;
	bool maybe_ro;
	bool maybe_deny;
	const struct row *maybe_by;
};

/**
 * struct lx_regions - the rows added so far, by path-index node
 * @table: the table (borrowed; its fs_index must be built)
 * @nodes: per-node state, one per node of table->fs_index (owned)
 * @row_node: the node of each file row's literal prefix, by row index
 *            (owned)
 */
struct lx_regions {
	const struct table *table;
	struct lx_node *nodes;
	uint32_t *row_node;
};

/*
 * lx_regions_init - set @rg up for @table, with no row added.  Free with
 * lx_regions_release().
 */
void lx_regions_init(struct lx_regions *rg, const struct table *table);
void lx_regions_release(struct lx_regions *rg);

/*
 * lx_regions_add - @row mounts something: a subtree-shaped mount of its
 * literal prefix (@subtree) or a glob expanded below it.  Rows must be
 * added in decreasing priority position (lowest priority first).
 */
void lx_regions_add(struct lx_regions *rg, const struct row *row,
		    bool subtree);

/*
 * lx_regions_at - the region around @row's literal prefix made by the
 * rows added so far (all of lower priority than @row).
 */
void lx_regions_at(const struct lx_regions *rg, const struct row *row,
		   struct region *r);

/*
 * lx_regions_writable_below - the nearest added rw row whose literal
 * prefix is @row's literal prefix or lies below it, or NULL.
 */
const struct row *lx_regions_writable_below(const struct lx_regions *rg,
					    const struct row *row);

/*
 * lx_regions_deny_near - the nearest added deny row whose mounts can hide
 * something at or below @row's literal prefix: a denied subtree around
 * it, a deny glob above it nearer than that, or any deny row whose
 * literal prefix is the prefix or lies below it; NULL when none.  A
 * supervised read-only row (emitters/linux.c) cannot show what such a
 * mount hides.
 */
const struct row *lx_regions_deny_near(const struct lx_regions *rg,
				       const struct row *row);

#endif /* VBOX_LINUX_REGIONS_H */
