/* SPDX-License-Identifier: MIT */
/*
 * rowpool.c - a table's rows, carved from chunks (see rowpool.h).
 */
#include <vbox.h>

#include "ir.h"
#include "rowpool.h"

/*
 * Rows per chunk: the first chunk holds 1,024 rows (112 KiB, below the
 * size at which malloc maps a block of its own), so a small table wastes
 * at most that.  Each further chunk holds twice the rows of the one
 * before, up to 65,536 (7 MiB): a million-row table takes 21 chunks, not
 * 977, and chunks that large are hinted for huge pages (hugemem.h).
 * Rows not yet handed out are never written.
 */
#define ROW_CHUNK_FIRST 1024
#define ROW_CHUNK_MAX 65536

/**
 * struct row_chunk - one block of rows
 * @prev: the chunk made before this one, or NULL
 * @n: rows handed out from @rows
 * @cap: rows @rows has room for
 * @rows: the rows
 */
struct row_chunk {
	struct row_chunk *prev;
	size_t n;
	size_t cap;
	struct row rows[];
};

struct row *row_pool_alloc(struct row_pool *pool)
{
	struct row_chunk *c = pool->last;
	struct row *row;

	if (!c || c->n == c->cap) {
		size_t cap = !c ? ROW_CHUNK_FIRST :
			     c->cap < ROW_CHUNK_MAX ? c->cap * 2 : ROW_CHUNK_MAX;

		c = xmalloc(sizeof(*c) + cap * sizeof(c->rows[0]));
		c->prev = pool->last;
		c->n = 0;
		c->cap = cap;
		pool->last = c;
	}
	row = &c->rows[c->n++];
	memset(row, 0, sizeof(*row));
	return row;
}

void row_pool_unalloc(struct row_pool *pool, struct row *row)
{
	struct row_chunk *c = pool->last;

	if (!c || !c->n || row != &c->rows[c->n - 1])
		BUG("row given back is not the last one handed out");
	c->n--;
}

void row_pool_free(struct row_pool *pool)
{
	struct row_chunk *c = pool->last, *prev;

	while (c) {
		prev = c->prev;
		free(c);
		c = prev;
	}
	pool->last = NULL;
}
