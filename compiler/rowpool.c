/* SPDX-License-Identifier: MIT */
/*
 * rowpool.c - a table's rows, carved from chunks (see rowpool.h).
 */
#include <vbox.h>

#include "ir.h"
#include "rowpool.h"

/*
 * Rows per chunk: 1,024 rows are 112 KiB, below the size at which malloc
 * maps a block of its own, and a small table wastes at most one chunk.
 */
#define ROW_CHUNK_ROWS 1024

/**
 * struct row_chunk - one block of rows
 * @prev: the chunk made before this one, or NULL
 * @n: rows handed out from @rows
 * @rows: the rows
 */
struct row_chunk {
	struct row_chunk *prev;
	size_t n;
	struct row rows[ROW_CHUNK_ROWS];
};

struct row *row_pool_alloc(struct row_pool *pool)
{
	struct row_chunk *c = pool->last;
	struct row *row;

	if (!c || c->n == ROW_CHUNK_ROWS) {
		c = xmalloc(sizeof(*c));
		c->prev = pool->last;
		c->n = 0;
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
