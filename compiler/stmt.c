/* SPDX-License-Identifier: MIT */
/*
 * stmt.c - the statement list the parser fills.
 */
#include <vbox.h>

#include "grow.h"
#include "stmt.h"

void stmt_list_push(struct stmt_list *list, const struct stmt *s)
{
	GROW(list->items, list->cap, list->n + 1);
	list->items[list->n++] = *s;
}

void stmt_consume(struct stmt *s)
{
	free(s->arg);
	free(s->value);
	s->arg = NULL;
	s->value = NULL;
}

void stmt_list_free(struct stmt_list *list)
{
	size_t i;

	for (i = 0; i < list->n; i++)
		stmt_consume(&list->items[i]);
	free(list->items);
	list->items = NULL;
	list->n = list->cap = 0;
}
