/* SPDX-License-Identifier: MIT */
/*
 * partial.c - partial shadowing: a restrictive row (deny, ro) that a more
 * permissive higher-priority row overrides on part of what it matches.
 *
 * "rw:/proj/" "**" above "deny:" "**" "/.env" is the case: the deny row
 * still decides outside /proj, so it is not dead, yet inside /proj the rw
 * row decides and .env files there are writable.  Same direction as
 * "ineffective", so an intended hole (a deny row above an rw tree) is
 * never reported.
 *
 * Soundness: a finding is made only from a concrete example, a path (or
 * host:port) built from the two patterns, that the restrictive row
 * matches and that the evaluator, run on the whole table, decides with a
 * more permissive higher-priority row.  So a reported override is always
 * real.  Completeness is bounded: candidates come from the evaluation
 * indexes and each row tries at most PARTIAL_BUDGET of them, and two
 * glob segments are intersected only through each one's simplest
 * instance, so some partial overrides are missed (see doc/rules.md).
 */
#include <vbox.h>

#include <strings.h>

#include "diag.h"
#include "eval.h"
#include "grow.h"
#include "index.h"
#include "ir.h"
#include "partial.h"
#include "strbuf.h"

/* Candidate rows tried, and trie nodes visited, per restrictive row. */
#define PARTIAL_BUDGET 64
#define PARTIAL_NODE_BUDGET 256
/* Largest product of segment counts the intersection search explores. */
#define PARTIAL_MAX_STATES 65536

static int effect_rank(enum effect e)
{
	switch (e) {
	case EFFECT_DENY:
		return 0;
	case EFFECT_RO:
		return 1;
	case EFFECT_RW:
	case EFFECT_ALLOW:
		return 2;
	default:
		BUG("bad effect %d", e);
	}
}

/*
 * The simplest segment a glob matches: '*' as nothing and '?' as 'x', or
 * with every '*' as 'x' when that would give "", "." or "..", which are
 * not segments of a cleaned path.
 */
static char *glob_instance(const struct seg *g)
{
	char *out = xmalloc((size_t)g->len + 1), *o;
	const char *p;
	bool star_x = false;

again:
	o = out;
	for (p = g->s; *p; p++) {
		if (*p == '?')
			*o++ = 'x';
		else if (*p != '*')
			*o++ = *p;
		else if (star_x)
			*o++ = 'x';
	}
	*o = '\0';
	if (!star_x && (!out[0] || strcmp(out, ".") == 0 ||
			strcmp(out, "..") == 0)) {
		star_x = true;
		goto again;
	}
	return out;
}

static bool seg_accepts(const struct seg *p, const char *s)
{
	if (p->kind == SEG_LIT)
		return strcmp(p->s, s) == 0;
	return fs_seg_glob_match(p->s, p->len, s, strlen(s));
}

/*
 * Two globs that fix different ends ("a*" and "*b"): one instance after
 * the other ("ab", then "ba") often matches both.  NULL otherwise.
 */
static char *glob_concat(const struct seg *a, const struct seg *b)
{
	char *wa = glob_instance(a), *wb = glob_instance(b), *w;

	w = xasprintf("%s%s", wa, wb);
	if (!(seg_accepts(a, w) && seg_accepts(b, w))) {
		free(w);
		w = xasprintf("%s%s", wb, wa);
		if (!(seg_accepts(a, w) && seg_accepts(b, w))) {
			free(w);
			w = NULL;
		}
	}
	free(wa);
	free(wb);
	return w;
}

/*
 * A segment both @a and @b match (neither is "**"), or NULL; a literal
 * comes back as @alit / @blit (the user's spelling).
 */
static char *seg_common(const struct seg *a, const struct seg *b,
			const char *alit, const char *blit)
{
	char *w;

	if (a->kind == SEG_LIT)
		return seg_accepts(b, a->s) ? xstrdup(alit ? alit : a->s) :
					      NULL;
	if (b->kind == SEG_LIT)
		return seg_accepts(a, b->s) ? xstrdup(blit ? blit : b->s) :
					      NULL;
	w = glob_instance(a);
	if (seg_accepts(b, w))
		return w;
	free(w);
	w = glob_instance(b);
	if (seg_accepts(a, w))
		return w;
	free(w);
	return glob_concat(a, b);
}

/*
 * A pattern as a plain segment sequence: one without wildcards covers
 * its subtree, which is the same as a trailing "**".
 */
struct pseq {
	const struct seg *segs;
	uint32_t n;
	bool tail_any;
	char **orig;
};

static bool pseq_any(const struct pseq *p, uint32_t i)
{
	return i < p->n ? p->segs[i].kind == SEG_STARSTAR : p->tail_any;
}

static uint32_t pseq_len(const struct pseq *p)
{
	return p->n + (p->tail_any ? 1 : 0);
}

/*
 * Segments are folded on folding targets; examples read better in the
 * case the user wrote.  @orig[i] is segment i of the pattern's text when
 * the text splits into as many segments, else NULL (folded text is used).
 */
static struct pseq pseq_of(const struct fs_pattern *fp)
{
	struct pseq p = { fp->segs, fp->nsegs, !fp->wild, NULL };
	const char *t = fp->text[0] == '/' ? fp->text + 1 : fp->text, *e;
	uint32_t i;

	p.orig = xcalloc(fp->nsegs ? fp->nsegs : 1, sizeof(*p.orig));
	for (i = 0; i < fp->nsegs && *t; i++) {
		e = strchr(t, '/');
		if (!e)
			e = t + strlen(t);
		if ((size_t)(e - t) != fp->segs[i].len ||
		    strncasecmp(t, fp->segs[i].s, fp->segs[i].len) != 0)
			break;
		p.orig[i] = xstrndup(t, (size_t)(e - t));
		t = *e ? e + 1 : e;
	}
	return p;
}

static void pseq_free(struct pseq *p)
{
	uint32_t i;

	for (i = 0; i < p->n; i++)
		free(p->orig[i]);
	free(p->orig);
}

/* Segment @i as an example: a literal in the user's case. */
static char *pseq_instance(const struct pseq *p, uint32_t i)
{
	if (p->segs[i].kind != SEG_LIT)
		return glob_instance(&p->segs[i]);
	return xstrdup(p->orig[i] ? p->orig[i] : p->segs[i].s);
}

/*
 * A path both patterns match, found by a breadth-first search over pairs
 * of positions (the product of the two segment automata), or NULL.  Each
 * step emits one path segment accepted at both positions ("**" accepts
 * anything and stays), or moves past a "**" without emitting.
 */
static char *fs_intersect(const struct fs_pattern *pa,
			  const struct fs_pattern *pb)
{
	struct pseq a = pseq_of(pa), b = pseq_of(pb);
	uint32_t na = pseq_len(&a) + 1, nb = pseq_len(&b) + 1;
	uint32_t *prev, *queue, head = 0, tail = 0, goal, nstates, st;
	char **emit, *result = NULL;

	if ((uint64_t)na * nb > PARTIAL_MAX_STATES)
		goto out_free_seqs;
	nstates = na * nb;
	prev = xmalloc(nstates * sizeof(*prev));
	queue = xmalloc(nstates * sizeof(*queue));
	emit = xcalloc(nstates, sizeof(*emit));
	for (st = 0; st < nstates; st++)
		prev[st] = UINT32_MAX;
	goal = nstates - 1;
	prev[0] = 0;
	queue[tail++] = 0;
	while (head < tail && prev[goal] == UINT32_MAX) {
		uint32_t cur = queue[head++], i = cur / nb, j = cur % nb;
		bool ai = i < na - 1, bj = j < nb - 1;
		bool anya = ai && pseq_any(&a, i), anyb = bj && pseq_any(&b, j);
		uint32_t next[3];
		char *seg[3] = { NULL, NULL, NULL };
		int k, n = 0;

		if (anya)
			next[n++] = (i + 1) * nb + j;
		if (anyb)
			next[n++] = i * nb + j + 1;
		if (ai && bj && !anya && !anyb) {
			seg[n] = seg_common(&a.segs[i], &b.segs[j], a.orig[i],
					    b.orig[j]);
			if (seg[n])
				next[n++] = (i + 1) * nb + j + 1;
		} else if (ai && !anya && anyb) {
			seg[n] = pseq_instance(&a, i);
			next[n++] = (i + 1) * nb + j;
		} else if (bj && !anyb && anya) {
			seg[n] = pseq_instance(&b, j);
			next[n++] = i * nb + j + 1;
		}
		for (k = 0; k < n; k++) {
			if (prev[next[k]] != UINT32_MAX) {
				free(seg[k]);
				continue;
			}
			prev[next[k]] = cur;
			emit[next[k]] = seg[k];
			queue[tail++] = next[k];
		}
	}
	if (prev[goal] != UINT32_MAX) {
		struct strbuf sb = { NULL, 0, 0 };
		const char *parts[PARTIAL_MAX_STATES / 64];
		size_t np = 0;

		for (st = goal; st != 0 && np < array_size(parts);
		     st = prev[st])
			if (emit[st])
				parts[np++] = emit[st];
		if (st == 0) {
			if (!np)
				strbuf_putc(&sb, '/');
			while (np--) {
				strbuf_putc(&sb, '/');
				strbuf_puts(&sb, parts[np]);
			}
			result = sb.s;
		}
	}
	for (st = 0; st < nstates; st++)
		free(emit[st]);
	free(emit);
	free(queue);
	free(prev);
out_free_seqs:
	pseq_free(&a);
	pseq_free(&b);
	return result;
}

/*
 * Does the table say that the path a wildcard-free row @by names is a
 * directory: does some row's literal prefix lie strictly below it?
 */
static bool shown_directory(const struct table *table, const struct row *by)
{
	const struct path_index *idx = table->fs_index;
	uint32_t node = 0, d;

	for (d = 0; d < by->fs.nsegs; d++) {
		node = path_index_child(idx, node, &by->fs.segs[d]);
		if (!node)
			return false;
	}
	return idx->nodes[node].first_child != 0;
}

/*
 * Does @by, a higher-priority row more permissive than @row, override
 * @row on some path?  On success the finding's example is set, and its
 * if_dir when the example lies below the path a wildcard-free @by names
 * and the table does not show that path to be a directory: a row such
 * as "!ro: ~/.bashrc" usually names a file, below which nothing exists.
 */
static bool fs_try(const struct table *table, const struct row *row,
		   const struct row *by, struct finding *f)
{
	struct decision d;
	struct fs_path path;
	char *text, *err = NULL;
	bool ok = false;

	text = fs_intersect(&by->fs, &row->fs);
	if (!text)
		return false;
	if (fs_path_parse(text, table->target, &path, &err)) {
		free(err);
		free(text);
		return false;
	}
	eval_fs(table, &path, FS_READ, &d);
	if (d.row && d.row->prio < row->prio &&
	    effect_rank(d.row->effect) > effect_rank(row->effect) &&
	    fs_match(&row->fs, &path)) {
		f->by = d.row;
		f->example = xstrdup(path.text);
		f->if_dir = NULL;
		if (!d.row->fs.wild && path.nsegs > d.row->fs.nsegs &&
		    !shown_directory(table, d.row))
			f->if_dir = xstrdup(d.row->fs.text);
		ok = true;
	}
	fs_path_free(&path);
	free(text);
	return ok;
}

/*
 * @f: the finding, set from the first example that surely can exist;
 * @maybe: the first example that exists only if a path is a directory
 * (if_dir set), kept while the search goes on for a sure one.
 */
struct search {
	const struct table *table;
	const struct row *row;
	struct finding *f;
	struct finding maybe;
	unsigned tried;
	unsigned nodes;
};

/* Try the rows of one trie node that rank above and allow more. */
static bool try_list(struct search *s, const struct idx_list *l)
{
	struct finding t;
	uint32_t i;

	for (i = 0; i < l->n && idx_list_prio(l)[i] < s->row->prio; i++) {
		const struct row *c = s->table->fs.prio[idx_list_prio(l)[i]];

		if (effect_rank(c->effect) <= effect_rank(s->row->effect))
			continue;
		if (++s->tried > PARTIAL_BUDGET)
			return false;
		t = *s->f;
		if (!fs_try(s->table, s->row, c, &t))
			continue;
		if (!t.if_dir) {
			*s->f = t;
			return true;
		}
		if (!s->maybe.example) {
			s->maybe = t;
		} else {
			free(t.example);
			free(t.if_dir);
		}
	}
	return false;
}

/* The search ends: a sure example, else the conditional one, if any. */
static bool search_end(struct search *s, bool found)
{
	if (found) {
		free(s->maybe.example);
		free(s->maybe.if_dir);
		return true;
	}
	if (!s->maybe.example)
		return false;
	*s->f = s->maybe;
	return true;
}

/*
 * @chain, @chain_cap: scratch for the row's prefix nodes (the caller's,
 * kept across rows).
 */
static bool fs_partial(const struct table *table, const struct row *row,
		       struct finding *f, uint32_t **chain, size_t *chain_cap)
{
	const struct path_index *idx = table->fs_index;
	struct search s = { table, row, f, { FINDING_PARTIAL, row, NULL, NULL,
					     NULL }, 0, 0 };
	uint32_t node = 0, d, stack[PARTIAL_NODE_BUDGET], sp = 0;

	/* Rows whose literal prefix is a prefix of this row's, root first. */
	path_index_prefix(idx, row->prio, row->fs.nlit, chain, chain_cap);
	for (d = 0;; d++) {
		node = (*chain)[d];
		if (try_list(&s, &idx->nodes[node].rows))
			return search_end(&s, true);
		if (s.tried > PARTIAL_BUDGET || d == row->fs.nlit)
			break;
	}
	if (d != row->fs.nlit)
		return search_end(&s, false);
	/* Rows below it: "**" "/.env" overlaps every subtree. */
	for (node = idx->nodes[node].first_child;
	     node && sp < array_size(stack);
	     node = idx->nodes[node].next_sibling)
		stack[sp++] = node;
	while (sp && s.tried <= PARTIAL_BUDGET &&
	       ++s.nodes <= PARTIAL_NODE_BUDGET) {
		node = stack[--sp];
		if (try_list(&s, &idx->nodes[node].rows))
			return search_end(&s, true);
		for (node = idx->nodes[node].first_child;
		     node && sp < array_size(stack);
		     node = idx->nodes[node].next_sibling)
			stack[sp++] = node;
	}
	return search_end(&s, false);
}

/* A host:port that both @a and @b match (ports "*" pick 443), or NULL. */
static char *net_example(const struct net_target *deny,
			 const struct net_target *allow)
{
	unsigned port = !allow->any_port ? allow->port :
			!deny->any_port ? deny->port : 443;
	const char *host = deny->host;

	/* A single allowed host under a denied suffix is the example. */
	if (deny->kind == HOST_SUFFIX && allow->kind == HOST_NAME)
		return xasprintf("%s:%u", allow->host, port);
	switch (deny->kind) {
	case HOST_SUFFIX:
		return xasprintf("example.%s:%u", host, port);
	case HOST_LOOPBACK:
		return xasprintf("localhost:%u", port);
	case HOST_IPV6:
		return xasprintf("[%s]:%u", host, port);
	case HOST_NAME:
	case HOST_IPV4:
		return xasprintf("%s:%u", host, port);
	default:
		BUG("bad host kind %d", deny->kind);
	}
}

static bool net_try(const struct table *table, const struct row *row,
		    const struct row *by, struct finding *f)
{
	struct net_target q;
	struct decision d;
	char *text = net_example(&row->net, &by->net), *err = NULL;
	bool ok = false;

	if (net_query_parse(text, &q, &err)) {
		free(err);
		free(text);
		return false;
	}
	eval_net(table, &q, &d);
	if (d.row && d.row->prio < row->prio &&
	    d.row->effect == EFFECT_ALLOW && net_match(&row->net, &q)) {
		f->by = d.row;
		f->example = xstrdup(q.text);
		ok = true;
	}
	net_target_free(&q);
	free(text);
	return ok;
}

static bool net_try_list(const struct table *table, const struct row *row,
			 const struct idx_list *l, unsigned *tried,
			 struct finding *f)
{
	uint32_t i;

	if (!l)
		return false;
	for (i = 0; i < l->n && idx_list_prio(l)[i] < row->prio; i++) {
		const struct row *c = table->net.prio[idx_list_prio(l)[i]];

		if (c->effect != EFFECT_ALLOW)
			continue;
		if (++*tried > PARTIAL_BUDGET)
			return false;
		if (net_try(table, row, c, f))
			return true;
	}
	return false;
}

/*
 * Allow rows keyed by this row's host, a parent suffix of it, or the
 * loopback class, and for a denied suffix the allow rows for names under
 * it: the rows that can share hosts with it, found without a scan.
 */
/*
 * Allow rows for single names, keyed by the name written backwards
 * ("moc.elpmaxe.ipa"), sorted: the names under a suffix are one range.
 * The net index keys rows by their own host only, so "allow:api.x.com"
 * above "deny:*.x.com" is found here.  Built only when some deny row
 * has a suffix.
 */
struct rev_name {
	char *key;
	uint32_t prio;
};

struct rev_names {
	struct rev_name *v;
	size_t n;
};

static char *reversed(const char *s, const char *tail)
{
	size_t n = strlen(s), i;
	char *r = xmalloc(n + strlen(tail) + 1);

	for (i = 0; i < n; i++)
		r[i] = s[n - 1 - i];
	strcpy(r + n, tail);
	return r;
}

static int rev_cmp(const void *a, const void *b)
{
	const struct rev_name *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : (x->prio > y->prio) - (x->prio < y->prio);
}

static void rev_names_build(const struct table *table, struct rev_names *rn)
{
	size_t i;
	bool need = false;

	memset(rn, 0, sizeof(*rn));
	for (i = 0; i < table->net.n && !need; i++)
		need = table->net.order[i]->effect == EFFECT_DENY &&
		       table->net.order[i]->net.kind == HOST_SUFFIX;
	if (!need)
		return;
	rn->v = xcalloc(table->net.n, sizeof(*rn->v));
	for (i = 0; i < table->net.n; i++) {
		const struct row *r = table->net.prio[i];

		if (r->effect != EFFECT_ALLOW || r->net.kind != HOST_NAME)
			continue;
		rn->v[rn->n].key = reversed(r->net.host, "");
		rn->v[rn->n++].prio = (uint32_t)i;
	}
	qsort(rn->v, rn->n, sizeof(*rn->v), rev_cmp);
}

static void rev_names_free(struct rev_names *rn)
{
	size_t i;

	for (i = 0; i < rn->n; i++)
		free(rn->v[i].key);
	free(rn->v);
}

/* Allow rows for names under the suffix of deny row @row. */
static bool net_try_under(const struct table *table, const struct row *row,
			  const struct rev_names *rn, unsigned *tried,
			  struct finding *f)
{
	char *key = reversed(row->net.host, ".");
	size_t lo = 0, hi = rn->n, len = strlen(key);
	bool found = false;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(rn->v[mid].key, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < rn->n && strncmp(rn->v[lo].key, key, len) == 0; lo++) {
		const struct row *c = table->net.prio[rn->v[lo].prio];

		if (c->prio >= row->prio)
			continue;
		if (++*tried > PARTIAL_BUDGET)
			break;
		if (net_try(table, row, c, f)) {
			found = true;
			break;
		}
	}
	free(key);
	return found;
}

static bool net_partial(const struct table *table, const struct row *row,
			const struct rev_names *rn, struct finding *f)
{
	const struct net_index *idx = table->net_index;
	const struct net_target *t = &row->net;
	unsigned tried = 0;
	const char *dot;

	if (t->kind == HOST_LOOPBACK)
		return net_try_list(table, row,
				    net_index_list(idx, NET_KEY_LOOPBACK, "",
						   0), &tried, f);
	if (net_try_list(table, row,
			 net_index_list(idx, t->kind == HOST_SUFFIX ?
					NET_KEY_SUFFIX : NET_KEY_EXACT,
					t->host, strlen(t->host)),
			 &tried, f))
		return true;
	if (t->kind != HOST_NAME && t->kind != HOST_SUFFIX)
		return false;
	if (t->kind == HOST_SUFFIX && net_try_under(table, row, rn, &tried, f))
		return true;
	for (dot = strchr(t->host, '.'); dot; dot = strchr(dot + 1, '.'))
		if (net_try_list(table, row,
				 net_index_list(idx, NET_KEY_SUFFIX, dot + 1,
						strlen(dot + 1)),
				 &tried, f))
			return true;
	return false;
}

static void analyze(struct table *table, const struct rowvec *rows,
		    const struct rev_names *rn, size_t *cap)
{
	uint32_t *chain = NULL;
	size_t chain_cap = 0, i;

	for (i = 0; i < rows->n; i++) {
		const struct row *row = rows->order[i];
		struct finding f = { FINDING_PARTIAL, row, NULL, NULL, NULL };
		bool found;

		/* A covered row is reported as ineffective or dead. */
		if (row->shadowed_by || effect_rank(row->effect) == 2)
			continue;
		found = row->domain == DOMAIN_FS ?
				fs_partial(table, row, &f, &chain,
					   &chain_cap) :
				net_partial(table, row, rn, &f);
		if (!found)
			continue;
		GROW(table->partials, *cap, table->npartials + 1);
		table->partials[table->npartials++] = f;
	}
	free(chain);
}

char *partial_message(const struct finding *f)
{
	char *row = row_text(f->row), *by = row_text(f->by), *msg;
	/* The example holds the whole path: its last name is enough. */
	const char *dir = f->if_dir ? strrchr(f->if_dir, '/') : NULL;

	msg = xasprintf("row %u '%s' is partly overridden: higher-priority "
			"%s row %u '%s' decides part of what it matches, "
			"e.g. %s%s%s%s", f->row->index, row,
			effect_name(f->by->effect), f->by->index, by,
			f->example, dir ? " if '" : "", dir ? dir + 1 : "",
			dir ? "' is a directory" : "");
	free(row);
	free(by);
	return msg;
}

void partial_analyze(struct table *table, struct diag_list *diags)
{
	struct rev_names rn;
	size_t cap = 0, i;

	table_free_partials(table);
	analyze(table, &table->fs, NULL, &cap);
	rev_names_build(table, &rn);
	analyze(table, &table->net, &rn, &cap);
	rev_names_free(&rn);
	for (i = 0; i < table->npartials; i++) {
		const struct finding *f = &table->partials[i];
		char *msg = partial_message(f);

		diag_note(diags, &f->row->loc, "%s", msg);
		diag_note(diags, &f->by->loc, "row %u is here", f->by->index);
		free(msg);
	}
}
