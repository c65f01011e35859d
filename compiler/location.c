/* SPDX-License-Identifier: MIT */
/*
 * location.c - inputs and locations.
 */
#include <vbox.h>

#include "grow.h"
#include "location.h"

struct input *input_set_add(struct input_set *set, struct input *in)
{
	GROW(set->items, set->cap, set->n + 1);
	set->items[set->n++] = in;
	return in;
}

void input_set_free(struct input_set *set)
{
	size_t i;

	for (i = 0; i < set->n; i++) {
		struct input *in = set->items[i];

		free(in->name);
		free(in->real);
		free(in->source);
		free(in->lib_dir);
		free(in->buf);
		free(in);
	}
	free(set->items);
	set->items = NULL;
	set->n = set->cap = 0;
}

char *location_format(const struct location *loc)
{
	if (!loc || !loc->in)
		return NULL;
	return xasprintf("%s:%u:%u", loc->in->name, loc->line, loc->col);
}

char *location_source(const struct location *loc)
{
	if (!loc || !loc->in)
		return NULL;
	return xasprintf("%s:%u:%u",
			 loc->in->source ? loc->in->source : loc->in->name,
			 loc->line, loc->col);
}

const char *location_line(const struct location *loc, size_t *len)
{
	const char *start, *end, *limit;

	if (!loc || !loc->in || loc->line_offset > loc->in->len)
		return NULL;
	start = loc->in->buf + loc->line_offset;
	limit = loc->in->buf + loc->in->len;
	end = memchr(start, '\n', limit - start);
	if (!end)
		end = limit;
	if (end > start && end[-1] == '\r')
		end--;
	*len = end - start;
	return start;
}
