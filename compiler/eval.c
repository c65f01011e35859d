/* SPDX-License-Identifier: MIT */
/*
 * eval.c - the decision engine (doc/rules.md §3).
 *
 * The first row in priority order that matches decides.  The indexes only
 * narrow which rows can match; tests compare them with the linear scans
 * below on generated tables.
 */
#include <vbox.h>

#include "eval.h"
#include "index.h"
#include "ir.h"

const struct row *eval_fs_first_match_linear(const struct rowvec *rows,
					     const struct fs_path *path)
{
	size_t i;

	for (i = 0; i < rows->n; i++)
		if (fs_match(&rows->prio[i]->fs, path))
			return rows->prio[i];
	return NULL;
}

const struct row *eval_net_first_match_linear(const struct rowvec *rows,
					      const struct net_target *q)
{
	size_t i;

	for (i = 0; i < rows->n; i++)
		if (net_match(&rows->prio[i]->net, q))
			return rows->prio[i];
	return NULL;
}

/*
 * Lower *@best to the first row of @list (ascending priority) that
 * matches @path; rows at or after *@best cannot change the answer.
 */
static void fs_scan_list(const struct rowvec *rows, const struct idx_list *l,
			 const struct fs_path *path, uint32_t *best)
{
	uint32_t i;

	for (i = 0; i < l->n && idx_list_prio(l)[i] < *best; i++) {
		if (fs_match(&rows->prio[idx_list_prio(l)[i]]->fs, path)) {
			*best = idx_list_prio(l)[i];
			return;
		}
	}
}

static const struct row *fs_first_match(const struct table *table,
					const struct fs_path *path)
{
	const struct path_index *idx = table->fs_index;
	uint32_t best = INDEX_NONE, node = 0, d;

	if (!idx || !idx->nodes)
		BUG("file rows evaluated without their index");
	fs_scan_list(&table->fs, &idx->nodes[0].rows, path, &best);
	for (d = 0; d < path->nsegs; d++) {
		node = path_index_child(idx, node, &path->segs[d]);
		if (!node)
			break;
		fs_scan_list(&table->fs, &idx->nodes[node].rows, path, &best);
	}
	return best == INDEX_NONE ? NULL : table->fs.prio[best];
}

static void net_scan_list(const struct rowvec *rows, const struct idx_list *l,
			  const struct net_target *q, uint32_t *best)
{
	uint32_t i;

	if (!l)
		return;
	for (i = 0; i < l->n && idx_list_prio(l)[i] < *best; i++) {
		if (net_match(&rows->prio[idx_list_prio(l)[i]]->net, q)) {
			*best = idx_list_prio(l)[i];
			return;
		}
	}
}

static const struct row *net_first_match(const struct table *table,
					 const struct net_target *q)
{
	const struct net_index *idx = table->net_index;
	const struct rowvec *rows = &table->net;
	uint32_t best = INDEX_NONE;
	const char *dot;

	if (!idx)
		BUG("network rows evaluated without their index");
	switch (q->kind) {
	case HOST_LOOPBACK:
		net_scan_list(rows, net_index_list(idx, NET_KEY_LOOPBACK, "", 0),
			      q, &best);
		break;
	case HOST_NAME:
	case HOST_IPV4:
	case HOST_IPV6:
		net_scan_list(rows,
			      net_index_list(idx, NET_KEY_EXACT, q->host,
					     strlen(q->host)),
			      q, &best);
		break;
	case HOST_SUFFIX:
		/* Queries never carry wildcards (net_query_parse). */
		BUG("wildcard host in a query");
	default:
		BUG("bad host kind %d", q->kind);
	}
	/* A suffix row "*.s" can match a name when s is a proper suffix. */
	if (q->kind == HOST_NAME)
		for (dot = strchr(q->host, '.'); dot; dot = strchr(dot + 1, '.'))
			net_scan_list(rows,
				      net_index_list(idx, NET_KEY_SUFFIX,
						     dot + 1, strlen(dot + 1)),
				      q, &best);
	return best == INDEX_NONE ? NULL : rows->prio[best];
}

void eval_fs(const struct table *table, const struct fs_path *path,
	     enum fs_op op, struct decision *out)
{
	const struct row *row = fs_first_match(table, path);

	out->row = row;
	if (!row) {
		/* Reads that match no row are always allowed (doc/rules.md §3). */
		out->allow = op == FS_READ ||
			     table->default_write == EFFECT_RW;
		return;
	}
	switch (row->effect) {
	case EFFECT_DENY:
		out->allow = false;
		break;
	case EFFECT_RO:
		out->allow = op == FS_READ;
		break;
	case EFFECT_RW:
		out->allow = true;
		break;
	case EFFECT_ALLOW:
	default:
		BUG("file row with effect %d", row->effect);
	}
}

void eval_net(const struct table *table, const struct net_target *q,
	      struct decision *out)
{
	const struct row *row = net_first_match(table, q);

	out->row = row;
	if (!row) {
		out->allow = table->default_net == EFFECT_ALLOW;
		return;
	}
	switch (row->effect) {
	case EFFECT_ALLOW:
		out->allow = true;
		break;
	case EFFECT_DENY:
		out->allow = false;
		break;
	case EFFECT_RO:
	case EFFECT_RW:
	default:
		BUG("network row with effect %d", row->effect);
	}
}
