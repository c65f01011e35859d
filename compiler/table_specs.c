/* SPDX-License-Identifier: MIT */
/*
 * table_specs.c - a table rebuilt from rows compiled once (vboxc explain
 * PLAN), apart from table.c, which builds one from statements.
 */
#include <vbox.h>

#include "eval.h"
#include "ir.h"
#include "table_int.h"

/*
 * One rebuilt row of table_from_specs(), from @t's row pool, or NULL with
 * *@err set.
 */
static struct row *row_from_spec(struct table *t, enum domain domain,
				 const struct row_spec *rs, size_t i,
				 char **err)
{
	const struct target_traits *target = t->target;
	struct row *row = row_pool_alloc(&t->rows);
	char *why = NULL;
	int ret;

	row->domain = domain;
	row->effect = rs->effect;
	row->level = rs->level;
	row->loc = rs->loc;
	row->raw = xstrdup(rs->text);
	if (domain == DOMAIN_FS ? rs->effect == EFFECT_ALLOW :
	    rs->effect != EFFECT_ALLOW && rs->effect != EFFECT_DENY)
		ret = -1;
	else if (domain == DOMAIN_FS)
		ret = fs_pattern_from_text(rs->text, target, &row->fs, &why);
	else
		ret = net_rule_parse(rs->text, &row->net, &why);
	if (ret) {
		*err = xasprintf("%s row %zu '%s': %s", domain_name(domain), i,
				 rs->text, why ? why : "invalid target");
		free(why);
		free(row->raw);
		row_pool_unalloc(&t->rows, row);
		return NULL;
	}
	return row;
}

struct table *table_from_specs(const struct target_traits *target,
			       enum effect default_write,
			       enum effect default_net,
			       const struct row_spec *fs, size_t nfs,
			       const struct row_spec *net, size_t nnet,
			       char **err)
{
	struct table *t = xzalloc(sizeof(*t));
	size_t fs_cap = 0, net_cap = 0, i;
	struct row *row;

	t->target = target;
	t->default_write = default_write;
	t->default_net = default_net;
	for (i = 0; i < nfs; i++) {
		row = row_from_spec(t, DOMAIN_FS, &fs[i], i, err);
		if (!row)
			goto out_free;
		rowvec_push(&t->fs, &fs_cap, row);
	}
	for (i = 0; i < nnet; i++) {
		row = row_from_spec(t, DOMAIN_NET, &net[i], i, err);
		if (!row)
			goto out_free;
		rowvec_push(&t->net, &net_cap, row);
	}
	rowvec_sort_priority(&t->fs);
	rowvec_sort_priority(&t->net);
	index_build(t);
	return t;
out_free:
	table_free(t);
	return NULL;
}
