/* SPDX-License-Identifier: MIT */
/*
 * index.c - the file-row trie and the network host map (see index.h).
 */
#include <vbox.h>

#include "eval.h"
#include "grow.h"
#include "index.h"
#include "ir.h"

/*
 * A map slot.  @key is borrowed: it points into a row's pattern or target,
 * and rows outlive the indexes (table_free() frees the indexes first).
 * A stored key is NUL-terminated (a pattern's segment, a host), so its
 * length is not kept, nor its tag: the map's owner keeps each value's
 * tag (a trie node's parent, a host list's kind) in an array the probes
 * are given.  The hash stays, so that most slots passed over are told
 * apart without reading their key.  16 bytes a slot, not 24, in a map of
 * two slots a trie node.
 */
struct hslot {
	const char *key;
	uint32_t hash;
	uint32_t value;
};

static uint32_t hash_bytes(uint32_t tag, const char *s, size_t len)
{
	/* FNV-1a, seeded with the tag; keys are short path segments. */
	uint32_t h = 2166136261u ^ (tag * 16777619u);
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

static void hmap_init(struct hmap *m, size_t expect)
{
	size_t size = 16;

	while (size < expect * 2)
		size *= 2;
	m->slots = xcalloc(size, sizeof(*m->slots));
	m->mask = size - 1;
	m->n = 0;
}

static void hmap_free(struct hmap *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

/*
 * Is the stored key @stored (NUL-terminated) the @len bytes at @key?
 * Never reads past @stored's terminator.
 */
static bool key_equal(const char *stored, const char *key, size_t len)
{
	size_t k;

	for (k = 0; k < len && stored[k] && stored[k] == key[k]; k++)
		;
	return k == len && stored[len] == '\0';
}

/* @tags: the tag of each stored value (see struct hslot). */
static struct hslot *hmap_probe(const struct hmap *m, const uint32_t *tags,
				uint32_t tag, const char *key, size_t len,
				uint32_t hash)
{
	size_t i = hash & m->mask;

	for (;;) {
		struct hslot *s = &m->slots[i];

		if (!s->key)
			return s;
		if (s->hash == hash && tags[s->value] == tag &&
		    key_equal(s->key, key, len))
			return s;
		i = (i + 1) & m->mask;
	}
}

/* Slots move by their hash alone: every key in the map is distinct. */
static void hmap_grow(struct hmap *m)
{
	struct hslot *old = m->slots;
	size_t oldsize = m->mask + 1, i, k;

	m->slots = xcalloc(oldsize * 2, sizeof(*m->slots));
	m->mask = oldsize * 2 - 1;
	for (i = 0; i < oldsize; i++) {
		if (!old[i].key)
			continue;
		for (k = old[i].hash & m->mask; m->slots[k].key;
		     k = (k + 1) & m->mask)
			;
		m->slots[k] = old[i];
	}
	free(old);
}

/* hmap_get - the value for the key, or INDEX_NONE. */
static uint32_t hmap_get(const struct hmap *m, const uint32_t *tags,
			 uint32_t tag, const char *key, size_t len)
{
	const struct hslot *s;

	if (!m->slots)
		return INDEX_NONE;
	s = hmap_probe(m, tags, tag, key, len, hash_bytes(tag, key, len));
	return s->key ? s->value : INDEX_NONE;
}

/*
 * hmap_get_or_add - the value for the key; if absent, store @value (whose
 * tag the caller records as @tag in @tags) and return it.  Empty keys are
 * stored with a non-NULL pointer so a used slot is always recognisable.
 */
static uint32_t hmap_get_or_add(struct hmap *m, const uint32_t *tags,
				uint32_t tag, const char *key, size_t len,
				uint32_t value)
{
	uint32_t hash = hash_bytes(tag, key, len);
	struct hslot *s;

	if ((m->n + 1) * 4 > (m->mask + 1) * 3)
		hmap_grow(m);
	s = hmap_probe(m, tags, tag, key, len, hash);
	if (s->key)
		return s->value;
	if (key[len] != '\0')
		BUG("index key not NUL-terminated at its length");
	s->key = len ? key : "";
	s->hash = hash;
	s->value = value;
	m->n++;
	return value;
}

/*
 * Most lists hold one row (a million-row table has about as many trie
 * nodes as rows), so the first entry is kept in the list itself and a
 * list grows from two, not GROW()'s sixteen: that start cost some 60
 * bytes a row.
 */
static void idx_list_push(struct idx_list *l, uint32_t prio)
{
	uint32_t first;

	if (l->cap == 0) {
		l->one = prio;
		l->n = l->cap = 1;
		return;
	}
	if (l->n == l->cap) {
		if (l->cap == 1) {
			first = l->one;
			l->many = xreallocarray(NULL, 2, sizeof(*l->many));
			l->many[0] = first;
			l->cap = 2;
		} else {
			l->cap *= 2;
			l->many = xreallocarray(l->many, l->cap,
						sizeof(*l->many));
		}
	}
	l->many[l->n++] = prio;
}

static void idx_list_free(struct idx_list *l)
{
	if (l->cap > 1)
		free(l->many);
}

bool is_subtree_pattern(const struct row *row)
{
	const struct fs_pattern *p = &row->fs;

	return !p->wild ||
	       (p->nsegs == p->nlit + 1 &&
		p->segs[p->nlit].kind == SEG_STARSTAR);
}

uint32_t path_index_child(const struct path_index *idx, uint32_t node,
			  const struct seg *s)
{
	uint32_t child;

	/* An empty map would answer "no child": a wrong decision. */
	if (!idx->nodes)
		BUG("path index queried after index_keep_shape()");
	child = hmap_get(&idx->children, idx->parent, node, s->s, s->len);

	return child == INDEX_NONE ? 0 : child;
}

void path_index_prefix(const struct path_index *idx, uint32_t prio,
		       uint32_t nlit, uint32_t **chain, size_t *cap)
{
	uint32_t node = idx->row_node[prio], d;

	GROW(*chain, *cap, (size_t)nlit + 1);
	for (d = nlit; d > 0; d--) {
		(*chain)[d] = node;
		node = idx->parent[node];
	}
	(*chain)[0] = 0;
}

static uint32_t path_index_new_node(struct path_index *idx, uint32_t parent)
{
	size_t cap = idx->cap;

	GROW(idx->nodes, idx->cap, (size_t)idx->nnodes + 1);
	if (idx->cap != cap)
		idx->parent = mem_grow_block(idx->parent,
					     cap * sizeof(*idx->parent),
					     idx->cap * sizeof(*idx->parent));
	memset(&idx->nodes[idx->nnodes], 0, sizeof(idx->nodes[0]));
	idx->nodes[idx->nnodes].min_subtree = INDEX_NONE;
	idx->parent[idx->nnodes] = parent;
	return idx->nnodes++;
}

static struct path_index *path_index_build(const struct rowvec *rows)
{
	struct path_index *idx = xzalloc(sizeof(*idx));
	size_t i;

	hmap_init(&idx->children, rows->n);
	idx->row_node = xreallocarray(NULL, rows->n ? rows->n : 1,
				      sizeof(*idx->row_node));
	path_index_new_node(idx, 0);
	for (i = 0; i < rows->n; i++) {
		const struct row *row = rows->prio[i];
		uint32_t node = 0, d;
		struct pnode *pn;

		for (d = 0; d < row->fs.nlit; d++) {
			const struct seg *s = &row->fs.segs[d];
			uint32_t next = idx->nnodes, child;

			child = hmap_get_or_add(&idx->children, idx->parent,
						node, s->s, s->len, next);
			if (child == next) {
				path_index_new_node(idx, node);
				idx->nodes[next].key_row = (uint32_t)i;
				idx->nodes[next].next_sibling =
					idx->nodes[node].first_child;
				idx->nodes[node].first_child = next;
			}
			node = child;
		}
		idx->row_node[i] = node;
		pn = &idx->nodes[node];
		idx_list_push(&pn->rows, i);
		if (pn->min_subtree == INDEX_NONE && is_subtree_pattern(row))
			pn->min_subtree = i;
	}
	return idx;
}

static void path_index_free(struct path_index *idx)
{
	uint32_t i;

	if (!idx)
		return;
	for (i = 0; idx->nodes && i < idx->nnodes; i++)
		idx_list_free(&idx->nodes[i].rows);
	free(idx->nodes);
	free(idx->parent);
	free(idx->row_node);
	hmap_free(&idx->children);
	free(idx);
}

static enum net_key_tag net_tag(const struct net_target *t)
{
	switch (t->kind) {
	case HOST_NAME:
	case HOST_IPV4:
	case HOST_IPV6:
		return NET_KEY_EXACT;
	case HOST_SUFFIX:
		return NET_KEY_SUFFIX;
	case HOST_LOOPBACK:
		return NET_KEY_LOOPBACK;
	default:
		BUG("bad host kind %d", t->kind);
	}
}

const struct idx_list *net_index_list(const struct net_index *idx,
				      enum net_key_tag tag, const char *host,
				      size_t len)
{
	uint32_t n = hmap_get(&idx->keys, idx->tags, tag, host, len);

	return n == INDEX_NONE ? NULL : &idx->lists[n];
}

static struct net_index *net_index_build(const struct rowvec *rows)
{
	struct net_index *idx = xzalloc(sizeof(*idx));
	size_t i;

	hmap_init(&idx->keys, rows->n);
	for (i = 0; i < rows->n; i++) {
		const struct net_target *t = &rows->prio[i]->net;
		enum net_key_tag tag = net_tag(t);
		const char *host = tag == NET_KEY_LOOPBACK ? "" : t->host;
		uint32_t next = idx->nlists, n;

		n = hmap_get_or_add(&idx->keys, idx->tags, tag, host,
				    strlen(host), next);
		if (n == next) {
			size_t cap = idx->cap;

			GROW(idx->lists, idx->cap, (size_t)idx->nlists + 1);
			if (idx->cap != cap)
				idx->tags = xreallocarray(idx->tags, idx->cap,
							  sizeof(*idx->tags));
			idx->tags[idx->nlists] = tag;
			memset(&idx->lists[idx->nlists++], 0,
			       sizeof(idx->lists[0]));
		}
		idx_list_push(&idx->lists[n], i);
	}
	return idx;
}

static void net_index_free(struct net_index *idx)
{
	uint32_t i;

	if (!idx)
		return;
	for (i = 0; i < idx->nlists; i++)
		idx_list_free(&idx->lists[i]);
	free(idx->lists);
	free(idx->tags);
	hmap_free(&idx->keys);
	free(idx);
}

void index_keep_shape(struct table *table)
{
	struct path_index *idx = table->fs_index;
	uint32_t i;

	net_index_free(table->net_index);
	table->net_index = NULL;
	if (!idx || !idx->nodes)
		return;
	for (i = 0; i < idx->nnodes; i++)
		idx_list_free(&idx->nodes[i].rows);
	free(idx->nodes);
	idx->nodes = NULL;
	idx->cap = 0;
	hmap_free(&idx->children);
}

void index_build(struct table *table)
{
	index_free(table);
	table->fs_index = path_index_build(&table->fs);
	table->net_index = net_index_build(&table->net);
}

void index_free(struct table *table)
{
	path_index_free(table->fs_index);
	net_index_free(table->net_index);
	table->fs_index = NULL;
	table->net_index = NULL;
}
