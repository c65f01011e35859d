/* SPDX-License-Identifier: MIT */
/*
 * diff_seg.c - the classes of one path segment that no literal names:
 * which glob segments ("*.c", "db?.sqlite") accept it.
 *
 * The table diff walks paths one segment at a time.  Segments a pattern
 * names literally are tried one by one; every other segment falls into a
 * class by the set of alive glob segments that accept it, and one
 * representative per nonempty class stands for all of it.  This file
 * finds those representatives exactly, with a breadth-first search over
 * the product of the globs' automata (and of the literals' to avoid, the
 * representative must not be one of them), character by character:
 *
 * - The alphabet is the characters written in the globs plus one fresh
 *   character F that no glob and no literal contains.  Any segment can
 *   be mapped to this alphabet by replacing each other character with F:
 *   the globs accept the image exactly when they accept the segment
 *   ('?' and '*' see one character either way, a literal character of a
 *   glob never matches either), and the image is not a literal (no
 *   literal holds F) unless it is the segment itself.  So every class
 *   that has a segment outside the literals has one over this alphabet,
 *   and the search, which visits every reachable product state, finds
 *   the shortest.
 * - Characters are UTF-8 sequences, as '?' counts them (fsmatch.c).  A
 *   glob that is not valid UTF-8 could split differently in a segment, so
 *   it is refused rather than compared inexactly.
 *
 * Alphabets recur along a path (a "**" row keeps its globs alive below
 * it), so the results are cached by globs, F and literals kept.
 */
#include <vbox.h>

#include "diff_int.h"
#include "fspath.h"
#include "grow.h"
#include "strbuf.h"
#include "u64map.h"

/* Globs' program items besides a character (token) number. */
#define ITEM_STAR (-1)
#define ITEM_QMARK (-2)
/* A literal that can no longer be matched. */
#define LIT_DEAD UINT16_MAX

/**
 * struct seg_entry - one cached partition
 * @key: the partition's inputs, serialized (owned)
 * @keylen: bytes of @key
 * @next: the next entry with the same hash, or U64MAP_NONE
 * @reps: the representatives (owned strings, owned array)
 * @nreps: number of @reps
 */
struct seg_entry {
	char *key;
	size_t keylen;
	uint32_t next;
	char **reps;
	size_t nreps;
};

struct seg_cache {
	struct u64map map;
	struct seg_entry *v;
	size_t n;
	size_t cap;
};

/** struct tok - one character of the alphabet (a UTF-8 sequence) */
struct tok {
	char b[4];
	uint8_t len;
};

/*
 * Characters tried, in order, as the fresh character F: readable ones
 * first, never '/', '.', '\\', ':', '*', '?' or an upper-case letter
 * (folding targets compare lower case).
 */
static const char *const fresh_chars[] = {
	"x", "y", "z", "q", "w", "v", "k", "j", "u", "h", "g", "f", "e",
	"d", "c", "b", "a", "m", "n", "o", "p", "r", "s", "t", "i", "l",
	"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "_", "-", "~",
	"+", "=", "@", "!", "%", ",", ";", "#", "&", "\xc3\xa9",
	"\xc3\xb8", "\xc3\x9f", "\xce\xbb", "\xd0\xb6", "\xe2\x88\x86",
};

/**
 * struct seg_work - the inputs of one partition, prepared
 * @globs: the distinct globs, sorted (borrowed)
 * @n: number of @globs
 * @toks: the alphabet: F first, then the globs' characters sorted
 * @ntoks: number of @toks
 * @prog: per glob, its items (token numbers, ITEM_STAR, ITEM_QMARK)
 * @plen: per glob, number of items
 * @lits: the literals that could be spelled in the alphabet, as tokens
 * @llen: per literal, number of tokens
 * @nlits: number of @lits
 */
struct seg_work {
	const struct seg **globs;
	size_t n;
	struct tok *toks;
	size_t ntoks;
	int **prog;
	uint32_t *plen;
	int **lits;
	uint32_t *llen;
	size_t nlits;
};

/* The length of the valid UTF-8 character at @s (@n bytes), or 0. */
static size_t utf8_char(const unsigned char *s, size_t n)
{
	size_t len, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	len = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	if (len > n)
		return 0;
	cp = s[0] & (0x7f >> len);
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

static int tok_cmp(const void *a, const void *b)
{
	const struct tok *x = a, *y = b;
	int c = memcmp(x->b, y->b, x->len < y->len ? x->len : y->len);

	return c ? c : (int)x->len - (int)y->len;
}

static int glob_cmp(const void *a, const void *b)
{
	const struct seg *x = *(const struct seg *const *)a;
	const struct seg *y = *(const struct seg *const *)b;
	int c = memcmp(x->s, y->s, x->len < y->len ? x->len : y->len);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* The token number of the character @b (@len bytes), or -1. */
static int tok_find(const struct seg_work *w, const char *b, size_t len)
{
	struct tok key = { .len = (uint8_t)len };
	const struct tok *t;

	memcpy(key.b, b, len);
	t = w->ntoks > 1 ? bsearch(&key, w->toks + 1, w->ntoks - 1,
				   sizeof(key), tok_cmp) : NULL;
	return t ? (int)(t - w->toks) : -1;
}

/* Does @s (@n bytes) contain the fresh candidate @c? */
static bool contains(const char *s, size_t n, const char *c)
{
	size_t cl = strlen(c), i;

	for (i = 0; i + cl <= n; i++)
		if (memcmp(s + i, c, cl) == 0)
			return true;
	return false;
}

static void work_free(struct seg_work *w)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		free(w->prog[i]);
	for (i = 0; i < w->nlits; i++)
		free(w->lits[i]);
	free(w->globs);
	free(w->toks);
	free(w->prog);
	free(w->plen);
	free(w->lits);
	free(w->llen);
	memset(w, 0, sizeof(*w));
}

/* The globs' alphabet, F excluded, sorted and unique; -1 on bad UTF-8. */
static int collect_tokens(struct diff_ctx *ctx, struct seg_work *w)
{
	size_t i, k, len, cap = 0;

	GROW(w->toks, cap, 1);
	w->ntoks = 1;
	for (i = 0; i < w->n; i++) {
		const struct seg *g = w->globs[i];

		for (k = 0; k < g->len; k += len) {
			len = utf8_char((const unsigned char *)g->s + k,
					g->len - k);
			if (!len)
				return diff_fail(ctx, "the glob segment '%s' "
						 "is not valid UTF-8: it "
						 "cannot be compared exactly",
						 g->s);
			if (g->s[k] == '*' || g->s[k] == '?')
				continue;
			GROW(w->toks, cap, w->ntoks + 1);
			memset(&w->toks[w->ntoks], 0, sizeof(w->toks[0]));
			memcpy(w->toks[w->ntoks].b, g->s + k, len);
			w->toks[w->ntoks++].len = (uint8_t)len;
		}
	}
	if (w->ntoks > 1)
		qsort(w->toks + 1, w->ntoks - 1, sizeof(*w->toks), tok_cmp);
	for (i = k = 1; i < w->ntoks; i++)
		if (k == 1 || tok_cmp(&w->toks[k - 1], &w->toks[i]))
			w->toks[k++] = w->toks[i];
	w->ntoks = k;
	return 0;
}

/* F: the first candidate in no glob and no literal; -1 when none is. */
static int choose_fresh(struct diff_ctx *ctx, struct seg_work *w,
			const char *const *lits, const uint32_t *litlens,
			size_t nlits)
{
	bool byte_used[256] = { false };
	size_t c, i, k;

	for (i = 0; i < nlits; i++)
		for (k = 0; k < litlens[i]; k++)
			byte_used[(unsigned char)lits[i][k]] = true;
	for (c = 0; c < array_size(fresh_chars); c++) {
		const char *f = fresh_chars[c];
		size_t fl = strlen(f);

		if (tok_find(w, f, fl) >= 0)
			continue;
		if (fl == 1 && byte_used[(unsigned char)f[0]])
			continue;
		for (i = 0; fl > 1 && i < nlits; i++)
			if (contains(lits[i], litlens[i], f))
				break;
		if (fl > 1 && i < nlits)
			continue;
		memcpy(w->toks[0].b, f, fl);
		w->toks[0].len = (uint8_t)fl;
		return 0;
	}
	return diff_fail(ctx, "every character tried for a segment outside "
			 "the table's names is used by them: the paths "
			 "cannot be compared exactly");
}

/* Each glob as items; each literal spelled in the alphabet as tokens. */
static void compile_work(struct seg_work *w, const char *const *lits,
			 const uint32_t *litlens, size_t nlits)
{
	static const char *const dots[] = { ".", ".." };
	size_t i, k, len, cap = 0, all = nlits + 2;

	w->prog = xcalloc(w->n ? w->n : 1, sizeof(*w->prog));
	w->plen = xcalloc(w->n ? w->n : 1, sizeof(*w->plen));
	for (i = 0; i < w->n; i++) {
		const struct seg *g = w->globs[i];

		w->prog[i] = xcalloc(g->len, sizeof(int));
		for (k = 0; k < g->len; k += len) {
			len = utf8_char((const unsigned char *)g->s + k,
					g->len - k);
			w->prog[i][w->plen[i]++] =
				g->s[k] == '*' ? ITEM_STAR :
				g->s[k] == '?' ? ITEM_QMARK :
				tok_find(w, g->s + k, len);
		}
	}
	/* "." and ".." are no segments of a cleaned path: avoid them too. */
	for (i = 0; i < all; i++) {
		const char *s = i < nlits ? lits[i] : dots[i - nlits];
		size_t n = i < nlits ? litlens[i] : strlen(s), nt = 0;
		int *t = xcalloc(n ? n : 1, sizeof(int)), id = 0;

		for (k = 0; k < n && id >= 0; k += len) {
			len = utf8_char((const unsigned char *)s + k, n - k);
			id = len ? tok_find(w, s + k, len) : -1;
			t[nt++] = id;
		}
		if (!n || id < 0 || nt >= LIT_DEAD) {
			/* Not spelled in the alphabet: never generated. */
			free(t);
			continue;
		}
		GROW(w->lits, cap, w->nlits + 1);
		w->llen = xreallocarray(w->llen, w->nlits + 1,
					sizeof(*w->llen));
		w->lits[w->nlits] = t;
		w->llen[w->nlits++] = (uint32_t)nt;
	}
}

/* The cache key: the globs, F and the literals kept, length-prefixed. */
static void work_key(const struct seg_work *w, struct strbuf *k)
{
	uint32_t len;
	size_t i;

	for (i = 0; i < w->n; i++) {
		len = w->globs[i]->len;
		strbuf_add(k, (const char *)&len, sizeof(len));
		strbuf_add(k, w->globs[i]->s, len);
	}
	strbuf_add(k, "\xff\xff\xff\xff", 4);
	strbuf_add(k, w->toks[0].b, w->toks[0].len);
	for (i = 0; i < w->nlits; i++) {
		len = w->llen[i];
		strbuf_add(k, (const char *)&len, sizeof(len));
		strbuf_add(k, (const char *)w->lits[i], len * sizeof(int));
	}
}

/**
 * struct product - the breadth-first search of one partition
 * @sw: 64-bit words per state: the flags word, each glob's position set,
 *      then the literals' offsets, four to a word
 * @goff: per glob, the first word of its position set
 * @loff: the first word of the literals' offsets
 * @words: every state's words, in discovery order
 * @parent: per state, the state it was reached from
 * @tok: per state, the token that reached it
 * @next: per state, the next state with the same hash
 * @n: number of states
 * @cap: allocated states
 * @memo: state hash -> first state with it
 * @vmap: hash of an answer vector -> last representative with it
 * @vecs: each representative's answer vector, @veclen bytes each
 * @vnext: per representative, the previous one with the same hash
 * @veclen: bytes of an answer vector: a bit per glob
 * @vcap: allocated @vecs vectors
 * @vncap: allocated @vnext entries
 */
struct product {
	size_t sw;
	size_t *goff;
	size_t loff;
	uint64_t *words;
	uint32_t *parent;
	uint32_t *tok;
	uint32_t *next;
	size_t n;
	size_t cap;
	struct u64map memo;
	struct u64map vmap;
	uint8_t *vecs;
	uint32_t *vnext;
	size_t veclen;
	size_t vcap;
	size_t vncap;
};

static bool bit_get(const uint64_t *w, size_t i)
{
	return w[i / 64] >> (i % 64) & 1;
}

static void bit_set(uint64_t *w, size_t i)
{
	w[i / 64] |= 1ull << (i % 64);
}

static uint16_t lit_off(const struct product *p, const uint64_t *s, size_t i)
{
	return (uint16_t)(s[p->loff + i / 4] >> (16 * (i % 4)));
}

static void lit_set(const struct product *p, uint64_t *s, size_t i,
		    uint16_t v)
{
	uint64_t *w = &s[p->loff + i / 4];
	unsigned shift = 16 * (unsigned)(i % 4);

	*w = (*w & ~(0xffffull << shift)) | (uint64_t)v << shift;
}

/* Add to glob @g's set every item after a '*' of the set. */
static void glob_closure(const struct seg_work *w, size_t g, uint64_t *set)
{
	uint32_t i;

	for (i = 0; i < w->plen[g]; i++)
		if (bit_get(set, i) && w->prog[g][i] == ITEM_STAR)
			bit_set(set, i + 1);
}

/* The state @from after the token @t, into @to (zeroed here). */
static void product_step(const struct seg_work *w, const struct product *p,
			 const uint64_t *from, int t, uint64_t *to)
{
	size_t g, i;
	uint32_t k;

	memset(to, 0, p->sw * sizeof(*to));
	to[0] = 1;		/* nonempty */
	for (g = 0; g < w->n; g++) {
		const uint64_t *a = from + p->goff[g];
		uint64_t *b = to + p->goff[g];

		for (k = 0; k < w->plen[g]; k++) {
			int item = w->prog[g][k];

			if (!bit_get(a, k))
				continue;
			if (item == ITEM_STAR)
				bit_set(b, k);
			else if (item == ITEM_QMARK || item == t)
				bit_set(b, k + 1);
		}
		glob_closure(w, g, b);
	}
	for (i = 0; i < w->nlits; i++) {
		uint16_t off = lit_off(p, from, i);

		if (off != LIT_DEAD && off < w->llen[i] && w->lits[i][off] == t)
			lit_set(p, to, i, off + 1);
		else
			lit_set(p, to, i, LIT_DEAD);
	}
}

/* The state's number when it is known, else U64MAP_NONE. */
static uint32_t product_find(const struct product *p, const uint64_t *s,
			     uint64_t h)
{
	uint32_t id;

	for (id = u64map_get(&p->memo, h); id != U64MAP_NONE;
	     id = p->next[id])
		if (!memcmp(p->words + id * p->sw, s, p->sw * sizeof(*s)))
			return id;
	return U64MAP_NONE;
}

static void product_add(struct product *p, const uint64_t *s, uint64_t h,
			uint32_t parent, uint32_t tok)
{
	size_t cap = p->cap;

	GROW(p->words, cap, (p->n + 1) * p->sw);
	cap = p->cap;
	GROW(p->parent, cap, p->n + 1);
	cap = p->cap;
	GROW(p->tok, cap, p->n + 1);
	GROW(p->next, p->cap, p->n + 1);
	memcpy(p->words + p->n * p->sw, s, p->sw * sizeof(*s));
	p->parent[p->n] = parent;
	p->tok[p->n] = tok;
	p->next[p->n] = u64map_get(&p->memo, h);
	u64map_put(&p->memo, h, (uint32_t)p->n);
	p->n++;
}

/* The segment that reaches state @id (the root is the empty one). */
static char *product_string(const struct seg_work *w,
			    const struct product *p, uint32_t id)
{
	struct strbuf b = { 0 };
	uint32_t *path = NULL;
	size_t n = 0, cap = 0;

	for (; id; id = p->parent[id]) {
		GROW(path, cap, n + 1);
		path[n++] = p->tok[id];
	}
	while (n--)
		strbuf_add(&b, w->toks[path[n]].b, w->toks[path[n]].len);
	free(path);
	return b.s;
}

/*
 * If state @s (number @id) holds a segment - nonempty, no literal - whose
 * answer vector is new, add the segment to @e's representatives.
 */
static void product_note(const struct seg_work *w, struct product *p,
			 const uint64_t *s, uint32_t id, struct seg_entry *e,
			 uint8_t *vec)
{
	uint32_t r;
	uint64_t h;
	size_t g, i;

	if (!s[0])
		return;
	for (i = 0; i < w->nlits; i++)
		if (lit_off(p, s, i) == w->llen[i])
			return;
	memset(vec, 0, p->veclen);
	for (g = 0; g < w->n; g++)
		if (bit_get(s + p->goff[g], w->plen[g]))
			vec[g / 8] |= (uint8_t)(1u << (g % 8));
	h = u64_hash_bytes(U64_HASH_SEED, vec, p->veclen);
	for (r = u64map_get(&p->vmap, h); r != U64MAP_NONE; r = p->vnext[r])
		if (!memcmp(p->vecs + (size_t)r * p->veclen, vec, p->veclen))
			return;
	GROW(p->vecs, p->vcap, (e->nreps + 1) * p->veclen);
	GROW(p->vnext, p->vncap, e->nreps + 1);
	memcpy(p->vecs + e->nreps * p->veclen, vec, p->veclen);
	p->vnext[e->nreps] = u64map_get(&p->vmap, h);
	u64map_put(&p->vmap, h, (uint32_t)e->nreps);
	e->reps = xreallocarray(e->reps, e->nreps + 1, sizeof(*e->reps));
	e->reps[e->nreps++] = product_string(w, p, id);
}

static void product_free(struct product *p)
{
	free(p->goff);
	free(p->words);
	free(p->parent);
	free(p->tok);
	free(p->next);
	free(p->vecs);
	free(p->vnext);
	u64map_free(&p->memo);
	u64map_free(&p->vmap);
}

/*
 * Every product state reachable from the empty segment, breadth first
 * (so each representative is a shortest segment of its class, and the
 * order of the alphabet makes the choice deterministic).
 */
static int product_search(struct diff_ctx *ctx, const struct seg_work *w,
			  struct seg_entry *e)
{
	struct product p;
	uint64_t *cur, *nxt, h;
	uint8_t *vec;
	size_t g, i, id;
	uint32_t t;
	int ret = 0;

	memset(&p, 0, sizeof(p));
	p.goff = xcalloc(w->n ? w->n : 1, sizeof(*p.goff));
	p.sw = 1;
	for (g = 0; g < w->n; g++) {
		p.goff[g] = p.sw;
		p.sw += (w->plen[g] + 1 + 63) / 64;
	}
	p.loff = p.sw;
	p.sw += (w->nlits + 3) / 4;
	p.veclen = (w->n + 7) / 8 ? (w->n + 7) / 8 : 1;
	cur = xcalloc(p.sw, sizeof(*cur));
	nxt = xcalloc(p.sw, sizeof(*nxt));
	vec = xcalloc(p.veclen, 1);

	for (g = 0; g < w->n; g++) {
		bit_set(cur + p.goff[g], 0);
		glob_closure(w, g, cur + p.goff[g]);
	}
	product_add(&p, cur, u64_hash_bytes(U64_HASH_SEED, cur,
					    p.sw * sizeof(*cur)), 0, 0);
	for (id = 0; id < p.n; id++) {
		for (t = 0; t < w->ntoks; t++) {
			/* p.words moves as states are added: copy first. */
			memcpy(cur, p.words + id * p.sw, p.sw * sizeof(*cur));
			product_step(w, &p, cur, (int)t, nxt);
			h = u64_hash_bytes(U64_HASH_SEED, nxt,
					   p.sw * sizeof(*nxt));
			if (product_find(&p, nxt, h) != U64MAP_NONE)
				continue;
			if (p.n >= DIFF_MAX_SEG_STATES) {
				ret = diff_fail(ctx, "more than %u states in "
						"the automaton of one path "
						"segment (%zu glob segments "
						"alive at once): the paths "
						"cannot be compared within "
						"the bounds",
						DIFF_MAX_SEG_STATES, w->n);
				goto out;
			}
			product_add(&p, nxt, h, (uint32_t)id, t);
			product_note(w, &p, nxt, (uint32_t)(p.n - 1), e, vec);
		}
	}
	for (i = 0; i < e->nreps; i++)
		if (!e->reps[i][0])
			BUG("an empty segment among the representatives");
out:
	free(cur);
	free(nxt);
	free(vec);
	product_free(&p);
	return ret;
}

struct seg_cache *seg_cache_new(void)
{
	return xzalloc(sizeof(struct seg_cache));
}

void seg_cache_free(struct seg_cache *c)
{
	size_t i, k;

	if (!c)
		return;
	for (i = 0; i < c->n; i++) {
		for (k = 0; k < c->v[i].nreps; k++)
			free(c->v[i].reps[k]);
		free(c->v[i].reps);
		free(c->v[i].key);
	}
	free(c->v);
	u64map_free(&c->map);
	free(c);
}

/* The cached entry for @key, or NULL. */
static struct seg_entry *cache_find(struct seg_cache *c, const char *key,
				    size_t keylen, uint64_t h)
{
	uint32_t i;

	for (i = u64map_get(&c->map, h); i != U64MAP_NONE; i = c->v[i].next)
		if (c->v[i].keylen == keylen &&
		    !memcmp(c->v[i].key, key, keylen))
			return &c->v[i];
	return NULL;
}

int seg_partition(struct diff_ctx *ctx, const struct seg *const *globs,
		  size_t nglobs, const char *const *lits,
		  const uint32_t *litlens, size_t nlits,
		  struct seg_reps *out)
{
	struct seg_cache *c = ctx->segs;
	struct seg_work w;
	struct seg_entry *e;
	struct strbuf key = { 0 };
	uint64_t h;
	size_t i;
	int ret = -1;

	memset(&w, 0, sizeof(w));
	memset(out, 0, sizeof(*out));
	w.globs = xcalloc(nglobs ? nglobs : 1, sizeof(*w.globs));
	if (nglobs) {
		memcpy(w.globs, globs, nglobs * sizeof(*globs));
		qsort(w.globs, nglobs, sizeof(*w.globs), glob_cmp);
	}
	for (i = 0; i < nglobs; i++)
		if (!w.n || glob_cmp(&w.globs[w.n - 1], &w.globs[i]))
			w.globs[w.n++] = w.globs[i];
	if (w.n > DIFF_MAX_SEG_GLOBS) {
		diff_fail(ctx, "%zu distinct glob segments alive at one path "
			  "(at most %u): the paths cannot be compared within "
			  "the bounds", w.n, DIFF_MAX_SEG_GLOBS);
		goto out;
	}
	if (collect_tokens(ctx, &w) < 0 ||
	    choose_fresh(ctx, &w, lits, litlens, nlits) < 0)
		goto out;
	compile_work(&w, lits, litlens, nlits);
	work_key(&w, &key);
	h = u64_hash_bytes(U64_HASH_SEED, key.s, key.len);
	e = cache_find(c, key.s, key.len, h);
	if (!e) {
		GROW(c->v, c->cap, c->n + 1);
		e = &c->v[c->n];
		memset(e, 0, sizeof(*e));
		e->key = key.s;
		e->keylen = key.len;
		key.s = NULL;
		e->next = u64map_get(&c->map, h);
		if (product_search(ctx, &w, e) < 0) {
			for (i = 0; i < e->nreps; i++)
				free(e->reps[i]);
			free(e->reps);
			free(e->key);
			goto out;
		}
		u64map_put(&c->map, h, (uint32_t)c->n++);
		ctx->stats.seg_partitions++;
	}
	out->v = (const char *const *)e->reps;
	out->n = e->nreps;
	ret = 0;
out:
	free(key.s);
	work_free(&w);
	return ret;
}
