/* SPDX-License-Identifier: MIT */
/*
 * stmt.c - the statement list the parser fills.
 */
#include <vbox.h>

#include "stmt.h"

void stmt_list_push(struct stmt_list *list, const struct stmt *s)
{
	if (list->n == list->cap) {
		list->cap = list->cap ? list->cap * 2 : 64;
		list->items = xreallocarray(list->items, list->cap,
					    sizeof(*list->items));
	}
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
