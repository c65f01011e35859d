/* SPDX-License-Identifier: MIT */
/*
 * rowpool.h - the storage a table's rows live in.
 *
 * A million-row table made a million row allocations, each rounded up by
 * malloc (112 bytes asked, 128 taken) and each a call.  The rows are
 * carved from chunks instead; the chunks belong to the table and go with
 * it (table_free()), the rows themselves are never freed one by one.
 */
#ifndef VBOX_ROWPOOL_H
#define VBOX_ROWPOOL_H

struct row;
struct row_chunk;

/**
 * struct row_pool - chunks of rows
 * @last: the newest chunk, which new rows come from; each chunk links to
 *        the one before it (owned)
 */
struct row_pool {
	struct row_chunk *last;
};

/* row_pool_alloc - a zeroed row from @pool (owned by the pool). */
struct row *row_pool_alloc(struct row_pool *pool);

/*
 * row_pool_unalloc - give back @row, the last one row_pool_alloc() gave
 * (a row that could not be made); its slot is reused.
 */
void row_pool_unalloc(struct row_pool *pool, struct row *row);

/* row_pool_free - release every chunk; the pool is empty again. */
void row_pool_free(struct row_pool *pool);

#endif /* VBOX_ROWPOOL_H */
