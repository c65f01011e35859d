/* SPDX-License-Identifier: MIT */
/*
 * u64map.c - the 64-bit-keyed map and hash of u64map.h.
 */
#include <vbox.h>

#include "u64map.h"

uint64_t u64_hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= s[i];
		h *= 1099511628211ull;
	}
	return h;
}

/* Spread the key's bits: callers may key by small integers. */
static size_t slot_of(const struct u64map *m, uint64_t key)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return (size_t)key & m->mask;
}

static size_t probe(const struct u64map *m, uint64_t key)
{
	size_t i = slot_of(m, key);

	while (m->used[i] && m->keys[i] != key)
		i = (i + 1) & m->mask;
	return i;
}

static void grow(struct u64map *m)
{
	struct u64map old = *m;
	size_t size = old.keys ? (old.mask + 1) * 2 : 64, i, j;

	m->keys = xcalloc(size, sizeof(*m->keys));
	m->vals = xcalloc(size, sizeof(*m->vals));
	m->used = xcalloc(size, 1);
	m->mask = size - 1;
	for (i = 0; old.keys && i <= old.mask; i++) {
		if (!old.used[i])
			continue;
		j = probe(m, old.keys[i]);
		m->used[j] = 1;
		m->keys[j] = old.keys[i];
		m->vals[j] = old.vals[i];
	}
	free(old.keys);
	free(old.vals);
	free(old.used);
}

uint32_t u64map_get(const struct u64map *m, uint64_t key)
{
	size_t i;

	if (!m->keys)
		return U64MAP_NONE;
	i = probe(m, key);
	return m->used[i] ? m->vals[i] : U64MAP_NONE;
}

void u64map_put(struct u64map *m, uint64_t key, uint32_t val)
{
	size_t i;

	/* At most three quarters full, so a probe always ends. */
	if (!m->keys || (m->n + 1) * 4 > (m->mask + 1) * 3)
		grow(m);
	i = probe(m, key);
	if (!m->used[i]) {
		m->used[i] = 1;
		m->keys[i] = key;
		m->n++;
	}
	m->vals[i] = val;
}

void u64map_free(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	free(m->used);
	memset(m, 0, sizeof(*m));
}
