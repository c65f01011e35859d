// SPDX-License-Identifier: MIT
/*
 * preflight_text.c - preflight's text table, grouped by reason or one
 * line per row (preflight_text.h).
 *
 * Grouping: many rows of a real table share their reason (every
 * library row that lands at launch, every registry row in the proxy),
 * and a reason is often a long sentence; printed once per group it is
 * read once.  The groups keep the table's order: a group stands where
 * its first row stands, and its rows keep table order.
 */
#include <vbox.h>

#include <stdio.h>

#include "grow.h"
#include "preflight_text.h"

void pf_text_init(struct pf_text *t)
{
	memset(t, 0, sizeof(*t));
}

void pf_text_add(struct pf_text *t, const char *domain, unsigned int index,
		 char *where, char *rule, const char *landing, char *reason)
{
	struct pf_line *l;

	GROW(t->lines, t->cap, t->n + 1);
	l = &t->lines[t->n++];
	l->domain = domain;
	l->index = index;
	l->where = where;
	l->rule = rule;
	l->landing = landing;
	l->reason = reason;
}

void pf_text_free(struct pf_text *t)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		free(t->lines[i].where);
		free(t->lines[i].rule);
		free(t->lines[i].reason);
	}
	free(t->lines);
	memset(t, 0, sizeof(*t));
}

/* The row part of a line: "fs 3 f:4:1 'ROW'" or "reserved 'ENTRY'". */
static void print_row(const struct pf_line *l, FILE *out)
{
	if (l->domain)
		fprintf(out, "%s %u %s '%s'", l->domain, l->index,
			l->where ? l->where : "-", l->rule);
	else
		fprintf(out, "reserved '%s'", l->rule);
}

/*
 * One sort entry: a line's position and the position of the first line
 * of its group (known after the first sort).
 */
struct pf_key {
	const struct pf_line *line;
	size_t pos;
	size_t group;
};

static int cmp_reason(const void *a, const void *b)
{
	const struct pf_key *x = a, *y = b;
	int c = strcmp(x->line->landing, y->line->landing);

	if (!c)
		c = strcmp(x->line->reason, y->line->reason);
	if (!c)
		c = (x->pos > y->pos) - (x->pos < y->pos);
	return c;
}

static int cmp_group(const void *a, const void *b)
{
	const struct pf_key *x = a, *y = b;

	if (x->group != y->group)
		return (x->group > y->group) - (x->group < y->group);
	return (x->pos > y->pos) - (x->pos < y->pos);
}

static bool same_reason(const struct pf_line *a, const struct pf_line *b)
{
	return strcmp(a->landing, b->landing) == 0 &&
	       strcmp(a->reason, b->reason) == 0;
}

void pf_text_print(const struct pf_text *t, bool per_row, FILE *out)
{
	struct pf_key *k;
	size_t i, first = 0;

	if (per_row) {
		for (i = 0; i < t->n; i++) {
			print_row(&t->lines[i], out);
			fprintf(out, ": %s: %s\n", t->lines[i].landing,
				t->lines[i].reason);
		}
		return;
	}
	if (!t->n)
		return;
	k = xreallocarray(NULL, t->n, sizeof(*k));
	for (i = 0; i < t->n; i++) {
		k[i].line = &t->lines[i];
		k[i].pos = i;
	}
	/* By reason, then position: each group's first line leads it. */
	qsort(k, t->n, sizeof(*k), cmp_reason);
	for (i = 0; i < t->n; i++) {
		if (i && !same_reason(k[i - 1].line, k[i].line))
			first = k[i].pos;
		else if (!i)
			first = k[i].pos;
		k[i].group = first;
	}
	/* Groups in the order of their first line, rows in table order. */
	qsort(k, t->n, sizeof(*k), cmp_group);
	for (i = 0; i < t->n; i++) {
		if (!i || k[i].group != k[i - 1].group)
			fprintf(out, "%s: %s\n", k[i].line->landing,
				k[i].line->reason);
		fputs("    ", out);
		print_row(k[i].line, out);
		fputc('\n', out);
	}
	free(k);
}
