/* SPDX-License-Identifier: MIT */
/*
 * shadow.c - rows that can never decide (doc/rules.md §7).
 *
 * A row is reported only when a higher-priority row provably matches
 * everything it matches (fs_covers / net_covers are sound).  Candidates
 * come from the evaluation indexes: a file row can only be covered by rows
 * whose literal prefix is a prefix of its own, and a network row only by
 * rows keyed by its host, one of its parent domains or the loopback class.
 * At most SHADOW_CANDIDATES_PER_KEY non-trivial candidates are tried per
 * key, so crowded keys cost a bounded amount; that can only miss findings,
 * never invent one.
 */
#include <vbox.h>

#include "diag.h"
#include "grow.h"
#include "index.h"
#include "ir.h"
#include "partial.h"
#include "shadow.h"

#define SHADOW_CANDIDATES_PER_KEY 64

/* The smallest priority position of a row in @l covering @row, or *best. */
static void fs_scan_covers(const struct rowvec *rows, const struct idx_list *l,
			   const struct row *row, uint32_t *best)
{
	uint32_t i, tried = 0;

	for (i = 0; i < l->n && idx_list_prio(l)[i] < *best; i++) {
		const struct row *c = rows->prio[idx_list_prio(l)[i]];

		/* Subtree patterns are handled through min_subtree. */
		if (is_subtree_pattern(c))
			continue;
		if (++tried > SHADOW_CANDIDATES_PER_KEY)
			return;
		if (fs_covers(&c->fs, &row->fs)) {
			*best = idx_list_prio(l)[i];
			return;
		}
	}
}

static const struct row *fs_cover_of(const struct table *table,
				     const struct row *row)
{
	const struct path_index *idx = table->fs_index;
	uint32_t best = row->prio, node = idx->row_node[row->prio];

	/*
	 * The nodes of the row's own literal prefix, its own first: the
	 * order does not change the result, a minimum over the nodes (each
	 * list is scanned up to its first cover, which a smaller *best
	 * only cuts short where that cover could not win).
	 */
	for (;;) {
		const struct pnode *pn = &idx->nodes[node];

		/*
		 * Every path @row matches starts with this node's literal
		 * prefix, so a pattern covering the node's subtree covers it.
		 */
		if (pn->min_subtree < best)
			best = pn->min_subtree;
		fs_scan_covers(&table->fs, &pn->rows, row, &best);
		if (!node)
			break;
		node = idx->parent[node];
	}
	return best == row->prio ? NULL : table->fs.prio[best];
}

static void net_scan_covers(const struct rowvec *rows,
			    const struct idx_list *l, const struct row *row,
			    uint32_t *best)
{
	uint32_t i, tried = 0;

	if (!l)
		return;
	for (i = 0; i < l->n && idx_list_prio(l)[i] < *best; i++) {
		if (++tried > SHADOW_CANDIDATES_PER_KEY)
			return;
		if (net_covers(&rows->prio[idx_list_prio(l)[i]]->net,
			       &row->net)) {
			*best = idx_list_prio(l)[i];
			return;
		}
	}
}

static const struct row *net_cover_of(const struct table *table,
				      const struct row *row)
{
	const struct net_index *idx = table->net_index;
	const struct net_target *t = &row->net;
	uint32_t best = row->prio;
	const char *dot;

	switch (t->kind) {
	case HOST_LOOPBACK:
		net_scan_covers(&table->net,
				net_index_list(idx, NET_KEY_LOOPBACK, "", 0),
				row, &best);
		return best == row->prio ? NULL : table->net.prio[best];
	case HOST_SUFFIX:
		net_scan_covers(&table->net,
				net_index_list(idx, NET_KEY_SUFFIX, t->host,
					       strlen(t->host)),
				row, &best);
		break;
	case HOST_NAME:
	case HOST_IPV4:
	case HOST_IPV6:
		net_scan_covers(&table->net,
				net_index_list(idx, NET_KEY_EXACT, t->host,
					       strlen(t->host)),
				row, &best);
		break;
	default:
		BUG("bad host kind %d", t->kind);
	}
	/* Names and suffixes are also covered by suffixes of their parents. */
	if (t->kind == HOST_NAME || t->kind == HOST_SUFFIX)
		for (dot = strchr(t->host, '.'); dot; dot = strchr(dot + 1, '.'))
			net_scan_covers(&table->net,
					net_index_list(idx, NET_KEY_SUFFIX,
						       dot + 1,
						       strlen(dot + 1)),
					row, &best);
	return best == row->prio ? NULL : table->net.prio[best];
}

char *finding_message(const struct finding *f)
{
	char *row = row_text(f->row), *by = row_text(f->by), *msg;

	msg = xasprintf("row %u '%s' is %s: covered by higher-priority %s "
			"row %u '%s'", f->row->index, row,
			finding_kind_name(f->kind), effect_name(f->by->effect),
			f->by->index, by);
	free(row);
	free(by);
	return msg;
}

static enum finding_kind classify(const struct row *row, const struct row *by)
{
	/*
	 * The dangerous case gets its own name: the user believes the path
	 * is protected, and a writable row above decides instead.
	 */
	if (by->effect == EFFECT_RW &&
	    (row->effect == EFFECT_DENY || row->effect == EFFECT_RO))
		return FINDING_INEFFECTIVE;
	return FINDING_DEAD;
}

static void analyze_domain(struct table *table, const struct rowvec *rows,
			   size_t *cap)
{
	size_t i;

	/* In table order, so findings come out sorted by row index. */
	for (i = 0; i < rows->n; i++) {
		struct row *row = rows->order[i];
		const struct row *by;
		struct finding *f;

		by = row->domain == DOMAIN_FS ? fs_cover_of(table, row) :
						net_cover_of(table, row);
		row->shadowed_by = by;
		if (!by)
			continue;
		GROW(table->findings, *cap, table->nfindings + 1);
		f = &table->findings[table->nfindings++];
		f->kind = classify(row, by);
		f->row = row;
		f->by = by;
	}
}

void shadow_analyze(struct table *table, struct diag_list *diags)
{
	size_t cap = 0, i;

	free(table->findings);
	table->findings = NULL;
	table->nfindings = 0;
	analyze_domain(table, &table->fs, &cap);
	analyze_domain(table, &table->net, &cap);

	for (i = 0; i < table->nfindings; i++) {
		const struct finding *f = &table->findings[i];
		char *msg = finding_message(f);

		diag_warning(diags, &f->row->loc, "%s", msg);
		diag_note(diags, &f->by->loc, "row %u is here", f->by->index);
		free(msg);
	}
	partial_analyze(table, diags);
	if (!table->fs.n && !table->net.n)
		diag_note(diags, NULL, "the table has no rows: reads are "
			  "allowed, writes follow '@default write' (%s) and "
			  "connections '@default net' (%s)",
			  table->default_write == EFFECT_RW ? "rw" : "deny",
			  table->default_net == EFFECT_ALLOW ? "open" :
							       "deny");
}
