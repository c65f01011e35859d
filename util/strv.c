/* SPDX-License-Identifier: MIT */
/*
 * strv.c - a growable vector of owned strings (strv.h).
 */
#include <vbox.h>

#include "grow.h"
#include "strv.h"

void strv_push(struct strv *sv, char *s)
{
	GROW(sv->v, sv->cap, sv->n + 1);
	sv->v[sv->n++] = s;
}

void strv_add(struct strv *sv, const char *s)
{
	strv_push(sv, xstrdup(s));
}

bool strv_has(const struct strv *sv, const char *s)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		if (strcmp(sv->v[i], s) == 0)
			return true;
	return false;
}

void strv_release(struct strv *sv)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	memset(sv, 0, sizeof(*sv));
}
