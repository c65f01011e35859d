/* SPDX-License-Identifier: MIT */
/*
 * u64map.h - an open-addressing map from 64-bit keys to 32-bit values,
 * and the 64-bit hash its callers key it with.
 *
 * Callers that key by a hash of something larger keep a chain of their
 * own through the value (the map holds the chain's head) and compare the
 * real contents, so a hash collision costs a comparison, never a wrong
 * answer.
 */
#ifndef VBOX_U64MAP_H
#define VBOX_U64MAP_H

#include <stddef.h>
#include <stdint.h>

#define U64MAP_NONE UINT32_MAX

/**
 * struct u64map - the map (start from a zeroed struct)
 * @keys: the keys, a power of two of slots (owned)
 * @vals: the values (owned)
 * @used: 1 for a slot in use (owned)
 * @mask: number of slots - 1
 * @n: slots in use
 */
struct u64map {
	uint64_t *keys;
	uint32_t *vals;
	uint8_t *used;
	size_t mask;
	size_t n;
};

/* u64map_get - the value stored for @key, or U64MAP_NONE. */
uint32_t u64map_get(const struct u64map *m, uint64_t key);

/* u64map_put - store @val for @key, replacing an earlier value. */
void u64map_put(struct u64map *m, uint64_t key, uint32_t val);

/* u64map_free - release the map's memory; it is empty again. */
void u64map_free(struct u64map *m);

/*
 * u64_hash_bytes - FNV-1a over @n bytes at @p, continuing from @h (start
 * with U64_HASH_SEED).
 */
#define U64_HASH_SEED 14695981039346656037ull
uint64_t u64_hash_bytes(uint64_t h, const void *p, size_t n);

#endif /* VBOX_U64MAP_H */
