/* SPDX-License-Identifier: MIT */
/*
 * sbpl_check_int.h - what sbpl_check.c (parse and check) and sbpl_eval.c
 * (interpret) share: two questions about a parsed node.  Internal to the
 * SBPL checker.
 */
#ifndef VBOX_SBPL_CHECK_INT_H
#define VBOX_SBPL_CHECK_INT_H

#include <stdbool.h>
#include <string.h>

#include "sbpl_check.h"

/* Is @n the symbol @text? */
static inline bool is_sym(const struct sbpl_node *n, const char *text)
{
	return n->kind == SBPL_NODE_SYMBOL && strcmp(n->text, text) == 0;
}

static inline bool is_list_head(const struct sbpl_node *n, const char *head)
{
	return n->kind == SBPL_NODE_LIST && n->nkids &&
	       is_sym(n->kids[0], head);
}

#endif /* VBOX_SBPL_CHECK_INT_H */
