/* SPDX-License-Identifier: MIT */
/*
 * pathmap.c - clean absolute paths to numbers (pathmap.h).
 */
#include <vbox.h>

#include "fnv1a.h"
#include "pathmap.h"

struct pathmap_slot {
	const char *key;	/* borrowed; NULL: free */
	size_t len;
	uint32_t hash;
	size_t value;
};

static struct pathmap_slot *probe(const struct pathmap *m, const char *key,
				  size_t len, uint32_t hash)
{
	size_t i = hash & m->mask;

	for (;;) {
		struct pathmap_slot *s = &m->slots[i];

		if (!s->key || (s->hash == hash && s->len == len &&
				memcmp(s->key, key, len) == 0))
			return s;
		i = (i + 1) & m->mask;
	}
}

static void grow(struct pathmap *m)
{
	struct pathmap_slot *old = m->slots;
	size_t oldn = old ? m->mask + 1 : 0, i;

	m->mask = oldn ? oldn * 2 - 1 : 15;
	m->slots = xcalloc(m->mask + 1, sizeof(*m->slots));
	for (i = 0; i < oldn; i++)
		if (old[i].key)
			*probe(m, old[i].key, old[i].len, old[i].hash) = old[i];
	free(old);
}

void pathmap_put_max(struct pathmap *m, const char *path, size_t value)
{
	pathmap_put_max_len(m, path, strlen(path), value);
}

void pathmap_put_max_len(struct pathmap *m, const char *path, size_t len,
			 size_t value)
{
	uint32_t hash = fnv1a32(path, len);
	struct pathmap_slot *s;

	if (!m->slots || (m->n + 1) * 2 > m->mask + 1)
		grow(m);
	s = probe(m, path, len, hash);
	if (s->key) {
		if (value > s->value)
			s->value = value;
		return;
	}
	*s = (struct pathmap_slot){ path, len, hash, value };
	m->n++;
}

/* The value of the first @len bytes of a path, if mapped. */
static bool get(const struct pathmap *m, const char *path, size_t len,
		size_t *value)
{
	const struct pathmap_slot *s;

	if (!m->n)
		return false;
	s = probe(m, path, len, fnv1a32(path, len));
	if (!s->key)
		return false;
	*value = s->value;
	return true;
}

/*
 * The largest value among the ancestors of @path ("/", "/a", "/a/b" ...),
 * @path itself too when @self.
 */
static bool best_above(const struct pathmap *m, const char *path, bool self,
		       size_t *value)
{
	size_t len = strlen(path), i, v;
	bool found = false;

	if (get(m, "/", 1, &v) && (self || len > 1)) {
		*value = v;
		found = true;
	}
	for (i = 1; i <= len; i++) {
		if (i < len && path[i] != '/')
			continue;
		if (i == len && !self)
			break;
		if (get(m, path, i, &v) && (!found || v > *value)) {
			*value = v;
			found = true;
		}
	}
	return found;
}

bool pathmap_get(const struct pathmap *m, const char *path, size_t *value)
{
	return get(m, path, strlen(path), value);
}

bool pathmap_last_above(const struct pathmap *m, const char *path,
			size_t *value)
{
	return best_above(m, path, true, value);
}

bool pathmap_any_strictly_above(const struct pathmap *m, const char *path,
				size_t *value)
{
	return best_above(m, path, false, value);
}

void pathmap_release(struct pathmap *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}
