/* SPDX-License-Identifier: MIT */
/*
 * diff_fs.c - the paths two tables decide differently.
 *
 * Both tables' patterns are automata over path segments; a path's
 * decision in a table is the effect of the first row, in priority order,
 * whose automaton accepts it.  The walk below runs the product of every
 * row's automaton, of both tables, breadth first from "/": a state holds
 * each live row's set of positions in its pattern (a row dies when its
 * set empties) and, while the path so far is a chain of literal
 * prefixes, the node of each table's path index (index.h), whose rows
 * join the state when the walk enters the node.  From a state the walk
 * tries
 *
 *   - each segment some live row names literally at its next position,
 *     and each child of the two index nodes (rows waiting below), and
 *   - one segment per class of the other segments: those the same glob
 *     segments of the live rows accept (diff_seg.c; a "**" accepts all).
 *
 * Two paths that reach the same state are decided alike in both tables,
 * and so is every continuation of them, so the states reached stand for
 * every path: states are compared by content once they are off the
 * index (equal states are explored once), which bounds the walk.
 *
 * Pruning (exact): rows outside the common subsequence of the two
 * priority orders are "changed" (diff.c).  A path that no changed row
 * matches is decided by the same common row, or by the defaults, in both
 * tables; so when the defaults agree, a state whose live rows are all
 * common and below whose index nodes no changed row waits is dropped
 * with every path through it.  The walk then stays near the edited rows.
 */
#include <vbox.h>

#include "diff_int.h"
#include "fspath.h"
#include "grow.h"
#include "index.h"
#include "ir.h"
#include "strbuf.h"
#include "target.h"
#include "u64map.h"

/* A state off a table's path index. */
#define OFF_INDEX UINT32_MAX
/* Drive letters: the first segment of every windows path. */
#define DRIVES "abcdefghijklmnopqrstuvwxyz"

/**
 * struct fs_entry - one live row in a state
 * @prio: the row's priority position in its table
 * @side: DIFF_OLD or DIFF_NEW
 * @npos: number of positions
 * @pos: the first position in the walk's position pool; positions are
 *       ascending indexes into the row's segments, nsegs meaning "all
 *       matched"
 */
struct fs_entry {
	uint32_t prio;
	uint16_t side;
	uint16_t npos;
	uint32_t pos;
};

/**
 * struct fs_state - a class of paths
 * @parent: the state before the last segment (the root: itself)
 * @name: offset of the last segment in the name pool
 * @node: per table, the path index node, or OFF_INDEX
 * @ent: the first entry in the entry pool
 * @nent: number of entries, sorted by side then priority
 * @depth: segments from "/"
 * @next: the next state with the same content hash
 */
struct fs_state {
	uint32_t parent;
	uint32_t name;
	uint32_t node[2];
	uint32_t ent;
	uint32_t nent;
	uint32_t depth;
	uint32_t next;
};

/**
 * struct fs_walk - one exploration
 * @ctx: the comparison
 * @st: the states, in the order they were reached (owned)
 * @ent: the entry pool (owned)
 * @pos: the position pool (owned)
 * @names: the segments, NUL-separated
 * @memo: content hash -> last state with it (chained through @next)
 * @below: per table, per index node: a changed row waits at or below it
 * @all_relevant: the defaults differ: no path can be dropped
 * @windows: first segments are drive letters
 * @mark: per pattern position, the generation that marked it (scratch)
 * @gen: the current generation of @mark
 * @cand: literal segments to try from the current state (scratch)
 * @globs: glob segments alive in the current state (scratch)
 */
struct fs_walk {
	struct diff_ctx *ctx;
	struct fs_state *st;
	size_t nst, stcap;
	struct fs_entry *ent;
	size_t nent, entcap;
	uint16_t *pos;
	size_t npos, poscap;
	struct strbuf names;
	struct u64map memo;
	uint8_t *below[2];
	bool all_relevant;
	bool windows;
	uint32_t *mark;
	size_t markcap;
	uint32_t gen;
	struct cand {
		const char *s;
		uint32_t len;
		bool indexed;
	} *cand;
	size_t ncand, candcap;
	const struct seg **globs;
	size_t nglobs, globcap;
};

static const struct row *entry_row(const struct fs_walk *w,
				   const struct fs_entry *e)
{
	return w->ctx->t[e->side]->fs.prio[e->prio];
}

static bool entry_changed(const struct fs_walk *w, const struct fs_entry *e)
{
	return w->ctx->changed[e->side][e->prio];
}

/* Does the pattern segment @p (not "**") accept the segment @x? */
static bool seg_accepts(const struct seg *p, const char *x, uint32_t len)
{
	if (p->kind == SEG_LIT)
		return p->len == len && !memcmp(p->s, x, len);
	return fs_seg_glob_match(p->s, p->len, x, len);
}

static void mark_reset(struct fs_walk *w, uint32_t m)
{
	size_t need = (size_t)m + 2, old = w->markcap;

	if (need > old) {
		GROW(w->mark, w->markcap, need);
		memset(w->mark + old, 0, (w->markcap - old) * sizeof(*w->mark));
	}
	if (++w->gen == 0) {
		memset(w->mark, 0, w->markcap * sizeof(*w->mark));
		w->gen = 1;
	}
}

/*
 * Append to the position pool the closure of the marked positions of
 * @p (a "**" at i also reaches i + 1); returns how many were appended.
 */
static uint16_t emit_closure(struct fs_walk *w, const struct fs_pattern *p,
			     uint32_t from)
{
	uint32_t m = p->nsegs, i;
	uint16_t n = 0;

	for (i = from; i <= m; i++) {
		if (w->mark[i] != w->gen)
			continue;
		if (i < m && p->segs[i].kind == SEG_STARSTAR)
			w->mark[i + 1] = w->gen;
		GROW(w->pos, w->poscap, w->npos + 1);
		w->pos[w->npos++] = (uint16_t)i;
		n++;
	}
	return n;
}

/* Positions of a row that just joined at its literal prefix's node. */
static uint16_t row_enter(struct fs_walk *w, const struct fs_pattern *p)
{
	mark_reset(w, p->nsegs);
	w->mark[p->nlit] = w->gen;
	return emit_closure(w, p, p->nlit);
}

/* Positions of a row after the segment @x, from @in (@nin of them). */
static uint16_t row_step(struct fs_walk *w, const struct fs_pattern *p,
			 uint32_t in, uint16_t nin, const char *x,
			 uint32_t len)
{
	uint32_t m = p->nsegs, lo = UINT32_MAX, i;
	uint16_t k;

	mark_reset(w, m);
	for (k = 0; k < nin; k++) {
		i = w->pos[in + k];
		if (i == m) {
			/* Without wildcards a pattern covers its subtree. */
			if (p->wild)
				continue;
		} else if (p->segs[i].kind != SEG_STARSTAR) {
			if (!seg_accepts(&p->segs[i], x, len))
				continue;
			i++;
		}
		w->mark[i] = w->gen;
		if (i < lo)
			lo = i;
	}
	return lo == UINT32_MAX ? 0 : emit_closure(w, p, lo);
}

static int entry_cmp(const void *a, const void *b)
{
	const struct fs_entry *x = a, *y = b;

	if (x->side != y->side)
		return x->side - y->side;
	return (x->prio > y->prio) - (x->prio < y->prio);
}

/* Append an entry; -1 after diff_fail() past the bound. */
static int push_entry(struct fs_walk *w, uint16_t side, uint32_t prio,
		      uint32_t pos, uint16_t npos)
{
	if (w->nent >= DIFF_MAX_FS_ENTRIES || w->npos >= 4 * (size_t)
	    DIFF_MAX_FS_ENTRIES)
		return diff_fail(w->ctx, "more than %u row positions in the "
				 "path classes explored: the paths cannot be "
				 "compared within the bounds",
				 DIFF_MAX_FS_ENTRIES);
	GROW(w->ent, w->entcap, w->nent + 1);
	w->ent[w->nent].prio = prio;
	w->ent[w->nent].side = side;
	w->ent[w->nent].npos = npos;
	w->ent[w->nent].pos = (uint32_t)pos;
	w->nent++;
	return 0;
}

/* The key of index node @node of @side at @depth. */
static void node_key(const struct fs_walk *w, int side, uint32_t node,
		     uint32_t depth, const char **s, uint32_t *len)
{
	const struct table *t = w->ctx->t[side];
	const struct row *r =
		t->fs.prio[t->fs_index->nodes[node].key_row];

	*s = r->fs.segs[depth - 1].s;
	*len = r->fs.segs[depth - 1].len;
}

/*
 * The state after @parent and the segment @x, built at the end of the
 * pools (the caller keeps it or rolls the pools back).  Returns 0, or -1
 * after diff_fail().
 */
static int build_child(struct fs_walk *w, uint32_t parent, const char *x,
		       uint32_t len, struct fs_state *out)
{
	const struct fs_state *ps = &w->st[parent];
	struct seg key = { .s = x, .len = len, .kind = SEG_LIT };
	uint32_t i, k, start = (uint32_t)w->nent, pos;
	uint16_t n;
	int side;

	memset(out, 0, sizeof(*out));
	out->parent = parent;
	out->depth = ps->depth + 1;
	out->ent = start;
	for (i = 0; i < ps->nent; i++) {
		const struct fs_entry e = w->ent[ps->ent + i];

		pos = (uint32_t)w->npos;
		n = row_step(w, &entry_row(w, &e)->fs, e.pos, e.npos, x, len);
		if (n && push_entry(w, e.side, e.prio, pos, n) < 0)
			return -1;
	}
	for (side = 0; side < 2; side++) {
		const struct table *t = w->ctx->t[side];
		const struct pnode *pn;

		out->node[side] = OFF_INDEX;
		if (ps->node[side] == OFF_INDEX)
			continue;
		k = path_index_child(t->fs_index, ps->node[side], &key);
		if (!k)
			continue;
		out->node[side] = k;
		pn = &t->fs_index->nodes[k];
		for (i = 0; i < pn->rows.n; i++) {
			uint32_t prio = idx_list_prio(&pn->rows)[i];

			pos = (uint32_t)w->npos;
			n = row_enter(w, &t->fs.prio[prio]->fs);
			if (push_entry(w, (uint16_t)side, prio, pos, n) < 0)
				return -1;
		}
	}
	out->nent = (uint32_t)w->nent - start;
	if (out->nent)
		qsort(w->ent + start, out->nent, sizeof(*w->ent), entry_cmp);
	return 0;
}

static bool relevant(const struct fs_walk *w, const struct fs_state *s)
{
	uint32_t i;
	int side;

	if (w->all_relevant)
		return true;
	for (side = 0; side < 2; side++)
		if (s->node[side] != OFF_INDEX &&
		    w->below[side][s->node[side]])
			return true;
	for (i = 0; i < s->nent; i++)
		if (entry_changed(w, &w->ent[s->ent + i]))
			return true;
	return false;
}

static uint64_t state_hash(const struct fs_walk *w, const struct fs_state *s)
{
	uint64_t h = U64_HASH_SEED;
	uint32_t i;

	for (i = 0; i < s->nent; i++) {
		const struct fs_entry *e = &w->ent[s->ent + i];

		h = u64_hash_bytes(h, &e->prio, sizeof(e->prio));
		h = u64_hash_bytes(h, &e->side, sizeof(e->side));
		h = u64_hash_bytes(h, &e->npos, sizeof(e->npos));
		h = u64_hash_bytes(h, w->pos + e->pos,
				   e->npos * sizeof(*w->pos));
	}
	return h;
}

static bool state_equal(const struct fs_walk *w, const struct fs_state *a,
			const struct fs_state *b)
{
	uint32_t i;

	if (a->nent != b->nent)
		return false;
	for (i = 0; i < a->nent; i++) {
		const struct fs_entry *x = &w->ent[a->ent + i];
		const struct fs_entry *y = &w->ent[b->ent + i];

		if (x->prio != y->prio || x->side != y->side ||
		    x->npos != y->npos ||
		    memcmp(w->pos + x->pos, w->pos + y->pos,
			   x->npos * sizeof(*w->pos)))
			return false;
	}
	return true;
}

/*
 * Keep the child built at the end of the pools when some path through
 * it may differ and, off both indexes, no equal state is known; else
 * roll the pools back.  Returns 0, or -1 past a bound.
 */
static int add_child(struct fs_walk *w, struct fs_state *c, size_t nent0,
		     size_t npos0, const char *x, uint32_t len)
{
	uint64_t h = 0;
	uint32_t id;
	bool off = c->node[0] == OFF_INDEX && c->node[1] == OFF_INDEX;

	if (!relevant(w, c))
		goto drop;
	if (off) {
		h = state_hash(w, c);
		for (id = u64map_get(&w->memo, h); id != U64MAP_NONE;
		     id = w->st[id].next)
			if (state_equal(w, &w->st[id], c))
				goto drop;
	}
	if (w->nst >= DIFF_MAX_FS_STATES)
		return diff_fail(w->ctx, "more than %u path classes to "
				 "explore: the paths cannot be compared "
				 "within the bounds", DIFF_MAX_FS_STATES);
	c->name = (uint32_t)w->names.len;
	strbuf_add(&w->names, x, len);
	strbuf_putc(&w->names, '\0');
	c->next = U64MAP_NONE;
	if (off) {
		c->next = u64map_get(&w->memo, h);
		u64map_put(&w->memo, h, (uint32_t)w->nst);
	}
	GROW(w->st, w->stcap, w->nst + 1);
	w->st[w->nst++] = *c;
	return 0;
drop:
	w->nent = nent0;
	w->npos = npos0;
	return 0;
}

/* Try the segment @x from state @id. */
static int try_segment(struct fs_walk *w, uint32_t id, const char *x,
		       uint32_t len)
{
	size_t nent0 = w->nent, npos0 = w->npos;
	struct fs_state c;

	if (build_child(w, id, x, len, &c) < 0)
		return -1;
	return add_child(w, &c, nent0, npos0, x, len);
}

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	int c = memcmp(x->s, y->s, x->len < y->len ? x->len : y->len);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

static void add_cand(struct fs_walk *w, const char *s, uint32_t len,
		     bool indexed)
{
	GROW(w->cand, w->candcap, w->ncand + 1);
	w->cand[w->ncand].s = s;
	w->cand[w->ncand].len = len;
	w->cand[w->ncand++].indexed = indexed;
}

/*
 * The literal segments to try from state @s into w->cand (sorted,
 * unique), and its alive glob segments into w->globs.  With @only_below
 * just the index children under which a changed row waits.
 */
static void collect(struct fs_walk *w, const struct fs_state *s,
		    bool only_below)
{
	const struct fs_pattern *p;
	uint32_t i, k, c, len;
	const char *key;
	size_t n;
	int side;

	w->ncand = w->nglobs = 0;
	for (side = 0; side < 2; side++) {
		const struct path_index *idx = w->ctx->t[side]->fs_index;

		if (s->node[side] == OFF_INDEX)
			continue;
		for (c = idx->nodes[s->node[side]].first_child; c;
		     c = idx->nodes[c].next_sibling) {
			if (only_below && !w->below[side][c])
				continue;
			node_key(w, side, c, s->depth + 1, &key, &len);
			add_cand(w, key, len, true);
		}
	}
	for (i = 0; !only_below && i < s->nent; i++) {
		const struct fs_entry *e = &w->ent[s->ent + i];

		p = &entry_row(w, e)->fs;
		for (k = 0; k < e->npos; k++) {
			const struct seg *sg;

			if (w->pos[e->pos + k] >= p->nsegs)
				continue;
			sg = &p->segs[w->pos[e->pos + k]];
			if (sg->kind == SEG_LIT) {
				add_cand(w, sg->s, sg->len, false);
			} else if (sg->kind == SEG_GLOB) {
				GROW(w->globs, w->globcap, w->nglobs + 1);
				w->globs[w->nglobs++] = sg;
			}
		}
	}
	if (w->ncand)
		qsort(w->cand, w->ncand, sizeof(*w->cand), cand_cmp);
	for (i = 0, n = 0; i < w->ncand; i++)
		if (!n || cand_cmp(&w->cand[n - 1], &w->cand[i]))
			w->cand[n++] = w->cand[i];
	w->ncand = n;
}

/* Every segment that may lead somewhere else from state @id. */
static int expand(struct fs_walk *w, uint32_t id)
{
	struct fs_state s = w->st[id];
	const char **lits = NULL;
	uint32_t *lens = NULL, i;
	struct seg_reps reps;
	bool changed = false;
	int ret = 0;

	for (i = 0; i < s.nent; i++)
		if (entry_changed(w, &w->ent[s.ent + i]))
			changed = true;
	if (w->windows && s.depth == 0) {
		/* Every windows path starts with a drive letter. */
		for (i = 0; i < sizeof(DRIVES) - 1 && !ret; i++)
			ret = try_segment(w, id, &DRIVES[i], 1);
		return ret;
	}
	/*
	 * Nothing changed is alive here: only the index children a
	 * changed row waits below can lead to a path that differs.
	 */
	collect(w, &s, !changed && !w->all_relevant);
	for (i = 0; i < w->ncand && !ret; i++)
		ret = try_segment(w, id, w->cand[i].s, w->cand[i].len);
	if (ret || (!changed && !w->all_relevant))
		return ret;
	/* The other segments: one per class of the alive globs' answers. */
	if (w->nglobs == 0 && s.nent == 0 && !w->all_relevant)
		return 0;
	lits = xcalloc(w->ncand ? w->ncand : 1, sizeof(*lits));
	lens = xcalloc(w->ncand ? w->ncand : 1, sizeof(*lens));
	for (i = 0; i < w->ncand; i++) {
		lits[i] = w->cand[i].s;
		lens[i] = w->cand[i].len;
	}
	if (seg_partition(w->ctx, w->globs, w->nglobs, lits, lens, w->ncand,
			  &reps) < 0)
		ret = -1;
	for (i = 0; !ret && i < reps.n; i++)
		ret = try_segment(w, id, reps.v[i],
				  (uint32_t)strlen(reps.v[i]));
	free(lits);
	free(lens);
	return ret;
}

/* The path of state @id ("/" for the root). */
static char *state_path(const struct fs_walk *w, uint32_t id)
{
	struct strbuf b = { 0 };
	uint32_t *chain = NULL, n = 0;
	size_t cap = 0;

	for (; w->st[id].depth; id = w->st[id].parent) {
		GROW(chain, cap, (size_t)n + 1);
		chain[n++] = w->st[id].name;
	}
	if (!n)
		strbuf_putc(&b, '/');
	while (n--) {
		strbuf_putc(&b, '/');
		strbuf_puts(&b, w->names.s + chain[n]);
	}
	free(chain);
	return b.s;
}

/* The first row of @side accepting in state @s, or NULL. */
static const struct row *decider(const struct fs_walk *w,
				 const struct fs_state *s, int side)
{
	uint32_t i;

	for (i = 0; i < s->nent; i++) {
		const struct fs_entry *e = &w->ent[s->ent + i];
		const struct row *r;

		if (e->side != side)
			continue;
		r = entry_row(w, e);
		if (w->pos[e->pos + e->npos - 1] == r->fs.nsegs)
			return r;
	}
	return NULL;
}

static bool allows(const struct table *t, const struct row *r,
		   enum diff_op op)
{
	if (!r)
		return op == DIFF_READ || t->default_write == EFFECT_RW;
	if (r->effect == EFFECT_RW)
		return true;
	return r->effect == EFFECT_RO && op == DIFF_READ;
}

/* Record the classes of state @id whose decisions differ. */
static void judge(struct fs_walk *w, uint32_t id)
{
	const struct fs_state *s = &w->st[id];
	const struct row *r[2];
	bool a[2];
	char *path = NULL;
	int op, side;

	for (side = 0; side < 2; side++)
		r[side] = decider(w, s, side);
	for (op = DIFF_READ; op <= DIFF_WRITE; op++) {
		for (side = 0; side < 2; side++)
			a[side] = allows(w->ctx->t[side], r[side], op);
		if (a[0] == a[1])
			continue;
		if (!path)
			path = state_path(w, id);
		diff_record(w->ctx, op, path, r[0], a[0], r[1], a[1]);
	}
	free(path);
}

/* Mark the index nodes at and above which each changed row waits. */
static void mark_below(struct fs_walk *w, int side)
{
	const struct table *t = w->ctx->t[side];
	const struct path_index *idx = t->fs_index;
	uint32_t node, d;
	size_t i;

	w->below[side] = xcalloc(idx->nnodes, 1);
	for (i = 0; i < t->fs.n; i++) {
		const struct row *r = t->fs.prio[i];

		if (!w->ctx->changed[side][i])
			continue;
		node = 0;
		w->below[side][0] = 1;
		for (d = 0; d < r->fs.nlit; d++) {
			node = path_index_child(idx, node, &r->fs.segs[d]);
			if (!node)
				BUG("row %u is missing from the path index",
				    r->index);
			w->below[side][node] = 1;
		}
	}
}

static void walk_free(struct fs_walk *w)
{
	free(w->st);
	free(w->ent);
	free(w->pos);
	free(w->names.s);
	u64map_free(&w->memo);
	free(w->below[0]);
	free(w->below[1]);
	free(w->mark);
	free(w->cand);
	free(w->globs);
}

int diff_fs(struct diff_ctx *ctx)
{
	struct fs_walk w;
	struct fs_state root;
	const struct pnode *pn;
	uint32_t i, pos;
	uint16_t n;
	int side, ret = 0;
	size_t id;

	memset(&w, 0, sizeof(w));
	w.ctx = ctx;
	w.windows = ctx->t[0]->target->windows_paths;
	w.all_relevant = ctx->t[0]->default_write != ctx->t[1]->default_write;
	for (side = 0; side < 2; side++)
		mark_below(&w, side);

	memset(&root, 0, sizeof(root));
	for (side = 0; side < 2 && !ret; side++) {
		const struct table *t = ctx->t[side];

		pn = &t->fs_index->nodes[0];
		for (i = 0; i < pn->rows.n && !ret; i++) {
			uint32_t prio = idx_list_prio(&pn->rows)[i];

			pos = (uint32_t)w.npos;
			n = row_enter(&w, &t->fs.prio[prio]->fs);
			ret = push_entry(&w, (uint16_t)side, prio, pos, n);
		}
	}
	root.nent = (uint32_t)w.nent;
	root.next = U64MAP_NONE;
	strbuf_putc(&w.names, '\0');
	if (!ret && relevant(&w, &root)) {
		GROW(w.st, w.stcap, 1);
		w.st[w.nst++] = root;
	}
	for (id = 0; !ret && id < w.nst; id++) {
		if (!(w.windows && w.st[id].depth == 0))
			judge(&w, (uint32_t)id);
		ret = expand(&w, (uint32_t)id);
	}
	ctx->stats.fs_states = w.nst;
	walk_free(&w);
	return ret;
}
