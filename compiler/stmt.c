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

void stmt_list_free(struct stmt_list *list)
{
	size_t i;

	for (i = 0; i < list->n; i++) {
		free(list->items[i].arg);
		free(list->items[i].value);
	}
	free(list->items);
	list->items = NULL;
	list->n = list->cap = 0;
}
