/* SPDX-License-Identifier: MIT */
/*
 * strpool.c - interned strings (strpool.h).
 */
#include <vbox.h>

#include "grow.h"
#include "strpool.h"

/* The string equal to @s with hash @h, or U64MAP_NONE. */
static uint32_t find(const struct strpool *pool, uint64_t h, const char *s)
{
	uint32_t i;

	for (i = u64map_get(&pool->heads, h); i != U64MAP_NONE;
	     i = pool->next[i])
		if (strcmp(pool->strs[i], s) == 0)
			return i;
	return U64MAP_NONE;
}

const char *strpool_take(struct strpool *pool, char *s)
{
	uint64_t h = u64_hash_bytes(U64_HASH_SEED, s, strlen(s));
	uint32_t i = find(pool, h, s);
	size_t cap;

	if (i != U64MAP_NONE) {
		free(s);
		return pool->strs[i];
	}
	/* The chain is threaded through 32-bit indexes. */
	if (pool->n >= U64MAP_NONE)
		BUG("string pool full");
	cap = pool->cap;
	GROW(pool->strs, pool->cap, pool->n + 1);
	GROW(pool->next, cap, pool->n + 1);
	i = (uint32_t)pool->n++;
	pool->strs[i] = s;
	pool->next[i] = u64map_get(&pool->heads, h);
	u64map_put(&pool->heads, h, i);
	return s;
}

const char *strpool_intern(struct strpool *pool, const char *s)
{
	uint64_t h = u64_hash_bytes(U64_HASH_SEED, s, strlen(s));
	uint32_t i = find(pool, h, s);

	if (i != U64MAP_NONE)
		return pool->strs[i];
	return strpool_take(pool, xstrdup(s));
}

void strpool_free(struct strpool *pool)
{
	size_t i;

	for (i = 0; i < pool->n; i++)
		free(pool->strs[i]);
	free(pool->strs);
	free(pool->next);
	u64map_free(&pool->heads);
	memset(pool, 0, sizeof(*pool));
}
