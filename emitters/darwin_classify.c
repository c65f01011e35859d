/* SPDX-License-Identifier: MIT */
/*
 * darwin_classify.c - where each row lands on darwin, and why.
 *
 * Path rules follow names, and a directory rename carries everything
 * below it: directories above a ro or deny row's first "**" are guarded
 * (kept in place), and a row whose match depends on directories below
 * that (a "**" followed by more segments) is refused wherever a writable
 * region reaches them (doc/darwin.md, hole 5), and so is a ro or deny
 * row in which a higher rw row opens a directory without opening what
 * lies below it (hole 6).  Network rows: seatbelt names only localhost
 * or every host, so other hosts go to the launcher's proxy, whose ports
 * this file reserves (doc/proxy.md).
 */
#include <vbox.h>

#include <stdio.h>

#include "darwin.h"
#include "diag.h"
#include "emit.h"
#include "fspath.h"
#include "grow.h"
#include "ir.h"
#include "netaddr.h"
#include "sbpl.h"
#include "strpool.h"
#include "target.h"

/* The launcher's proxy ports: SBPL parameters passed with sandbox-exec -D. */
static const struct reserved_port {
	const char *entry;
	const char *param;
	const char *what;
} reserved_ports[] = {
	{ "allow:localhost:${VBOX_PROXY_HTTP_PORT}", "VBOX_PROXY_HTTP_PORT",
	  "HTTP" },
	{ "allow:localhost:${VBOX_PROXY_SOCKS_PORT}", "VBOX_PROXY_SOCKS_PORT",
	  "SOCKS5" },
};

/*
 * The "**" gap.  Guards name the directories above a pattern's first
 * "**"; the directories a "**" stands for, and those of the segments
 * after it, cannot be named.  When the row's match depends on them, a
 * child that may write one can rename it out of the match, write the
 * protected path at its new place and move it back, or create it as a
 * symbolic link to a directory elsewhere (Seatbelt matches the resolved
 * path).  The match does not depend on them when the pattern ends at
 * its first "**" (every path below the prefix is matched: nothing to
 * carry out), when a "**" after the prefix is followed by one segment
 * of stars only (every directory below the prefix is matched itself),
 * or when a leading "**" is followed by one segment and at most a
 * trailing "**" (a leading "**" then ".env": wherever the tree goes,
 * the name still matches).
 *
 * Returns whether the row has the gap.
 */
static bool starstar_gap(const struct fs_pattern *p)
{
	bool gap = false;
	struct seg *segs = xcalloc((size_t)p->nsegs + 1, sizeof(*segs));
	uint32_t n = darwin_segs_copy(segs, p->segs, p->nsegs), f, last;

	for (f = 0; f < n && segs[f].kind != SEG_STARSTAR; f++)
		;
	last = n;
	while (last > f && segs[last - 1].kind == SEG_STARSTAR)
		last--;
	/* segs[f + 1 .. last - 1]: what follows the first "**". */
	if (f < n && last > f + 1) {
		if (f == 0)
			gap = last > f + 2;
		else
			gap = !(last == f + 2 &&
				 segs[f + 1].kind == SEG_GLOB &&
				 strspn(segs[f + 1].s, "*") ==
					 segs[f + 1].len);
	}
	free(segs);
	return gap;
}

/* May segments @a and @b (neither "**") match one name? */
static bool seg_may_meet(const struct seg *a, const struct seg *b)
{
	if (a->kind == SEG_LIT && b->kind == SEG_LIT)
		return a->len == b->len && !memcmp(a->s, b->s, a->len);
	if (a->kind == SEG_LIT)
		return fs_seg_glob_match(b->s, b->len, a->s, a->len);
	if (b->kind == SEG_LIT)
		return fs_seg_glob_match(a->s, a->len, b->s, b->len);
	return true;
}

/*
 * A row "** /NAME" (or "** /NAME/ **") matches NAME wherever the tree
 * goes, unless a higher-priority rw row makes some path below a NAME
 * writable: a directory moved there, written and moved back carries the
 * protected paths out of the row.  That needs a directory the row
 * decides to be movable, so a writable region below the row too (a
 * lower rw row, or @default write rw).  Returns the higher rw row, or
 * NULL.
 */
static const struct row *name_row_writer(const struct table *table,
					 const struct row *row)
{
	const struct seg *name = NULL;
	uint32_t i, j;

	for (i = 0; i < row->fs.nsegs; i++)
		if (row->fs.segs[i].kind != SEG_STARSTAR)
			name = &row->fs.segs[i];
	if (!name || row->fs.segs[0].kind != SEG_STARSTAR)
		return NULL;
	if (table->default_write != EFFECT_RW) {
		for (i = row->prio + 1; i < table->fs.n; i++)
			if (table->fs.prio[i]->effect == EFFECT_RW &&
			    !table->fs.prio[i]->shadowed_by)
				break;
		if (i >= table->fs.n)
			return NULL;
	}
	for (i = 0; i < row->prio; i++) {
		const struct row *w = table->fs.prio[i];

		if (w->effect != EFFECT_RW || w->shadowed_by)
			continue;
		if (!w->fs.wild ||
		    w->fs.segs[w->fs.nsegs - 1].kind == SEG_STARSTAR)
			return w;
		for (j = 0; j < w->fs.nsegs; j++)
			if (w->fs.segs[j].kind != SEG_STARSTAR &&
			    seg_may_meet(&w->fs.segs[j], name))
				return w;
	}
	return NULL;
}

/* The number of segments of @f before its first "**". */
static uint32_t form_fixed(const struct form *f)
{
	uint32_t k;

	for (k = 0; k < f->nsegs && f->segs[k].kind != SEG_STARSTAR; k++)
		;
	return k;
}

/*
 * May the rw form @w match a path strictly below a path that the first
 * @k segments of form @g match (or that path itself, with @at)?
 * Conservative: two wildcard segments may always meet.
 */
static bool form_reaches_below(const struct form *w, const struct form *g,
			       uint32_t k, bool at)
{
	uint32_t i;

	for (i = 0; i < k; i++) {
		const struct seg *a = &g->segs[i], *b;

		if (i == w->nsegs)
			return w->subtree;
		b = &w->segs[i];
		if (a->kind == SEG_STARSTAR || b->kind == SEG_STARSTAR)
			return true;
		if (!seg_may_meet(a, b))
			return false;
	}
	return i < w->nsegs || w->subtree || at;
}

/*
 * Every spelling of every live rw row, sorted by the literal path before
 * its first wildcard (@key): two forms can meet only where one key is a
 * path prefix of the other, so a look-up visits the ancestors of a key
 * and one sorted range below it instead of every rw row.
 */
struct rw_form {
	char *key;
	const struct row *row;
	struct form f;
};

struct rw_index {
	struct rw_form *v;
	size_t n;
	size_t cap;
};

/* The literal path before the first wildcard of @f (caller frees). */
static char *form_key(const struct form *f)
{
	size_t len = 0, i;
	char *key, *p;

	for (i = 0; i < f->nsegs && f->segs[i].kind == SEG_LIT; i++)
		len += 1 + f->segs[i].len;
	p = key = xmalloc(len + 1);
	for (i = 0; i < f->nsegs && f->segs[i].kind == SEG_LIT; i++) {
		*p++ = '/';
		memcpy(p, f->segs[i].s, f->segs[i].len);
		p += f->segs[i].len;
	}
	*p = '\0';
	return key;
}

static int rw_form_cmp(const void *a, const void *b)
{
	const struct rw_form *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c)
		return c;
	return x->row->index < y->row->index ? -1 :
	       x->row->index > y->row->index;
}

static void rw_index_build(const struct table *table, struct rw_index *ix)
{
	struct form *forms;
	size_t nforms, i, j;

	memset(ix, 0, sizeof(*ix));
	for (i = 0; i < table->fs.n; i++) {
		const struct row *w = table->fs.order[i];

		if (w->effect != EFFECT_RW || w->shadowed_by)
			continue;
		darwin_forms_build(&w->fs, &forms, &nforms);
		GROW(ix->v, ix->cap, ix->n + nforms);
		for (j = 0; j < nforms; j++) {
			ix->v[ix->n].f = forms[j];
			ix->v[ix->n].row = w;
			ix->v[ix->n].key = form_key(&forms[j]);
			ix->n++;
		}
		free(forms);
	}
	if (ix->n)
		qsort(ix->v, ix->n, sizeof(*ix->v), rw_form_cmp);
}

static void rw_index_free(struct rw_index *ix)
{
	size_t i;

	for (i = 0; i < ix->n; i++) {
		free(ix->v[i].key);
		free(ix->v[i].f.segs);
	}
	free(ix->v);
	memset(ix, 0, sizeof(*ix));
}

/* The first entry whose key sorts at or after the first @len bytes of @key. */
static size_t rw_index_lower(const struct rw_index *ix, const char *key,
			     size_t len)
{
	size_t lo = 0, hi = ix->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strncmp(ix->v[mid].key, key, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * An rw row that matches a directory but not everything below it: wild,
 * and not ending in "**".
 */
static bool rw_open_below(const struct row *w)
{
	return w->fs.wild && w->fs.segs[w->fs.nsegs - 1].kind != SEG_STARSTAR;
}

/**
 * struct reach - one look-up in the rw index
 * @g: the form of the ro or deny row
 * @k: its fixed segments
 * @above: NULL to consider every rw row, else only those of higher
 *         priority than @above that leave what is below a match open
 * @by: the answer so far: the first such rw row in table order
 */
struct reach {
	const struct form *g;
	uint32_t k;
	const struct row *above;
	const struct row *by;
};

/*
 * Test the entries whose key is the first @len bytes of @key (@exact),
 * or starts with them, for a form reaching below @q's fixed prefix.
 */
static void rw_index_scan(const struct rw_index *ix, const char *key,
			  size_t len, bool exact, struct reach *q)
{
	size_t i;

	for (i = rw_index_lower(ix, key, len); i < ix->n; i++) {
		const struct row *w = ix->v[i].row;
		const char *e = ix->v[i].key;

		if (strncmp(e, key, len) != 0)
			break;
		if (exact && e[len])
			break;
		if (q->by && w->index >= q->by->index)
			continue;
		if (q->above && (w->prio >= q->above->prio ||
				 !rw_open_below(w)))
			continue;
		/* A subtree row's own path holds what it protects. */
		if (form_reaches_below(&ix->v[i].f, q->g, q->k,
				       q->above && q->g->subtree))
			q->by = w;
	}
}

/*
 * The first rw row in table order (of those @above selects, see struct
 * reach) that may match a path below the fixed prefix of @row, in any
 * spelling; NULL if none.
 */
static const struct row *rw_reaching(const struct rw_index *ix,
				     const struct row *row,
				     const struct row *above)
{
	struct reach q = { .above = above };
	struct form *gf;
	size_t ngf, a, len;
	char *key, *below;

	darwin_forms_build(&row->fs, &gf, &ngf);
	for (a = 0; a < ngf; a++) {
		q.g = &gf[a];
		q.k = form_fixed(&gf[a]);
		key = form_key(&gf[a]);
		below = xasprintf("%s/", key);
		len = strlen(key);
		/* Keys below this one, this one, then each ancestor's. */
		rw_index_scan(ix, below, len + 1, false, &q);
		free(below);
		rw_index_scan(ix, key, len, true, &q);
		while (len > 0) {
			while (len > 0 && key[len - 1] != '/')
				len--;
			if (len > 0)
				len--;
			rw_index_scan(ix, key, len, true, &q);
		}
		free(key);
	}
	darwin_forms_free(gf, ngf);
	return q.by;
}

/*
 * The rw row (or NULL for @default write rw) that makes a directory
 * below the fixed prefix of @row writable, in any spelling; *@found
 * says whether there is one.  Rows of every priority count: a higher rw
 * row may open the directory, a lower one the place it is moved to.
 * Of several, the first in table order is named.
 */
static const struct row *gap_writer(const struct table *table,
				    const struct rw_index *ix,
				    const struct row *row, bool *found)
{
	const struct row *by;

	*found = table->default_write == EFFECT_RW;
	if (*found)
		return NULL;
	by = rw_reaching(ix, row, NULL);
	*found = by != NULL;
	return by;
}

/*
 * The carve: a higher-priority rw row that matches a directory inside
 * @row's region but not what lies below it (!rw:/srv/ ** /.env above
 * deny:/srv) makes that directory renamable while @row decides its
 * contents: moved to another writable place, filled and moved back, it
 * carries content into the region.  Returns that rw row when a place to
 * move to exists (another rw row, or @default write rw), else NULL.
 */
static const struct row *carve_writer(const struct table *table,
				      const struct rw_index *ix,
				      const struct row *row)
{
	const struct row *by = rw_reaching(ix, row, row);
	size_t i;

	if (!by || table->default_write == EFFECT_RW)
		return by;
	for (i = 0; i < ix->n; i++)
		if (ix->v[i].row != by)
			return by;
	return NULL;
}

static const char *effect_phrase(enum effect effect)
{
	switch (effect) {
	case EFFECT_DENY:
		return "seatbelt denies read and write";
	case EFFECT_RO:
		return "seatbelt allows read and denies write explicitly";
	case EFFECT_RW:
		return "seatbelt allows read and write";
	case EFFECT_ALLOW:
	default:
		BUG("file row with effect %d", effect);
	}
}

/*
 * A kernel landing's reason depends on four things only: the effect
 * (deny, ro, rw), the first filter's kind, more than one spelling, and
 * guards.  The first entry with each combination keeps it; the rest
 * take it from there (landing_set_like()).
 */
struct kernel_reasons {
	const struct landing *like[3][3][2][2];
};

static void set_kernel(struct kernel_reasons *memo, struct landing *l,
		       const struct fs_plan *plan)
{
	const struct row *row = l->row;
	const struct landing **like;

	if ((unsigned)row->effect > EFFECT_RW ||
	    (unsigned)plan->kind > SBPL_REGEX)
		BUG("kernel landing of row %u: effect %d, filter %d",
		    row->index, row->effect, plan->kind);
	like = &memo->like[row->effect][plan->kind]
			  [plan->nspellings > 1][plan->guarded];
	if (*like) {
		landing_set_like(l, *like);
		return;
	}
	landing_set_reason(l, LANDING_KERNEL, "%s (%s filter%s)%s",
			   effect_phrase(row->effect),
			   sbpl_filter_kind_name(plan->kind),
			   plan->nspellings > 1 ?
			   ", plus the other spellings of /tmp, /var "
			   "and /etc" : "",
			   plan->guarded ?
			   "; its ancestors cannot be renamed, removed, "
			   "created or changed, so an absent ancestor "
			   "stays absent (narrower than the table)" : "");
	*like = l;
}

static void classify_fs(const struct table *table, const struct rw_index *ix,
			struct kernel_reasons *memo, struct landing *l)
{
	const struct row *row = l->row;
	struct fs_plan plan;

	if (row->shadowed_by) {
		landing_set_reason(l, LANDING_ABSORBED,
				   "dead: covered by row %u",
				   row->shadowed_by->index);
		return;
	}
	if (darwin_row_guarded(row)) {
		const struct row *by = NULL;
		bool gap = starstar_gap(&row->fs), found = false;

		if (gap)
			by = gap_writer(table, ix, row, &found);
		if (gap && found) {
			char *where = by ? xasprintf("row %u", by->index) :
					   xstrdup("@default write rw");

			landing_set_reason(l, LANDING_UNSUPPORTED,
				"'%s' has a '**' with more segments after it, "
				"and %s makes a directory %s writable: "
				"seatbelt cannot keep such a "
				"directory from being renamed out of the match "
				"and back, or replaced by a symbolic link to "
				"elsewhere (it matches resolved paths); list "
				"the paths literally, or use a pattern that "
				"starts with '**' and names one segment, or "
				"one that ends in '/**'", row->fs.text, where,
				row->fs.segs[0].kind == SEG_STARSTAR ?
				"above the names it matches" :
				"between its fixed prefix and the names it "
				"matches");
			free(where);
			return;
		}
		by = carve_writer(table, ix, row);
		if (by) {
			landing_set_reason(l, LANDING_UNSUPPORTED,
				"row %u, of higher priority, makes a directory "
				"inside the region of '%s' writable but not "
				"what lies below it: seatbelt cannot keep that "
				"directory from being renamed to another "
				"writable place, filled and renamed back; end "
				"row %u in '/**' or give this row a higher "
				"level", by->index, row->fs.text, by->index);
			return;
		}
		by = gap ? NULL : name_row_writer(table, row);
		if (by) {
			landing_set_reason(l, LANDING_UNSUPPORTED,
				"'%s' matches its name wherever a directory "
				"goes, but row %u, of higher priority, makes "
				"such a name writable in its region: a "
				"directory renamed there, written and renamed "
				"back carries the paths out of this row, and "
				"seatbelt checks only the directory's own name "
				"on rename; give this row a higher level than "
				"row %u", row->fs.text, by->index, by->index);
			return;
		}
	}
	darwin_fs_plan_build(table, row, FS_PLAN_FIT, &plan);
	if (plan.longest > SBPL_MAX_STRING)
		landing_set_reason(l, LANDING_UNSUPPORTED,
				   "needs an SBPL string of %zu bytes; "
				   "seatbelt rejects a profile with a string "
				   "over %d bytes", plan.longest,
				   SBPL_MAX_STRING);
	else
		set_kernel(memo, l, &plan);
	darwin_fs_plan_free(&plan);
}

static bool loopback(const struct row *row)
{
	return row->net.kind == HOST_LOOPBACK;
}

bool darwin_net_open(const struct table *table)
{
	return table->default_net == EFFECT_ALLOW;
}

/* The port of a loopback row as SBPL writes it: "*" or the number. */
static const char *port_spec(const struct row *row, char buf[8])
{
	if (row->net.any_port)
		return "*";
	snprintf(buf, 8, "%u", row->net.port);
	return buf;
}

static void classify_net(const struct table *table, struct landing *l)
{
	const struct row *row = l->row;
	char port_text[8];

	if (row->shadowed_by)
		landing_set_reason(l, LANDING_ABSORBED,
				   "dead: covered by row %u",
				   row->shadowed_by->index);
	else if (loopback(row) && darwin_net_open(table) &&
		 row->effect == EFFECT_DENY)
		landing_set_reason(l, LANDING_UNSUPPORTED,
				   "a loopback deny row cannot be enforced "
				   "with @default net open: seatbelt's "
				   "\"localhost\" is only 127.0.0.1 and ::1, "
				   "no SBPL address names the rest of "
				   "127.0.0.0/8, and no proxy runs in open "
				   "posture");
	else if (loopback(row) && darwin_net_open(table))
		landing_set_reason(l, LANDING_ABSORBED,
				   "allow with @default net open: every "
				   "connection is allowed already");
	else if (loopback(row) && row->effect == EFFECT_DENY)
		landing_set_reason(l, LANDING_KERNEL, "loopback rule: seatbelt "
				   "(remote ip \"localhost:%s\"); the rest of "
				   "127.0.0.0/8 is denied by the posture",
				   port_spec(row, port_text));
	else if (loopback(row))
		landing_set_reason(l, LANDING_KERNEL, "loopback rule: seatbelt "
				   "(remote ip \"localhost:%s\") reaches only "
				   "127.0.0.1 and ::1; the rest of 127.0.0.0/8 "
				   "stays denied (narrower than the table)",
				   port_spec(row, port_text));
	else if (!darwin_net_open(table))
		landing_set_reason(l, LANDING_PROXY,
				   "non-loopback host: enforced by the "
				   "launcher's egress proxy (seatbelt can name "
				   "only localhost or every host)");
	else if (row->effect == EFFECT_DENY)
		landing_set_reason(l, LANDING_UNSUPPORTED,
				   "a deny for a non-loopback host cannot be "
				   "enforced with @default net open: seatbelt "
				   "can name only localhost or every host, and "
				   "no proxy runs in open posture");
	else
		landing_set_reason(l, LANDING_ABSORBED,
				   "allow with @default net open: every "
				   "connection is allowed already");
}

void darwin_classify(const struct table *table, struct landing_set *out)
{
	struct kernel_reasons memo = { 0 };
	struct rw_index ix;
	bool proxy = false;
	size_t i;

	rw_index_build(table, &ix);
	for (i = 0; i < out->nfs; i++)
		classify_fs(table, &ix, &memo, &out->fs[i]);
	rw_index_free(&ix);
	for (i = 0; i < out->nnet; i++) {
		classify_net(table, &out->net[i]);
		if (out->net[i].kind == LANDING_PROXY)
			proxy = true;
	}
	/* doc/proxy.md: the proxy runs in deny posture when a row needs it. */
	if (!proxy)
		return;
	for (i = 0; i < array_size(reserved_ports); i++)
		landing_set_add_reserved(out, reserved_ports[i].entry,
					 "the launcher's %s proxy port, above "
					 "every row: SBPL parameter %s, passed "
					 "with sandbox-exec -D at launch",
					 reserved_ports[i].what,
					 reserved_ports[i].param);
}

int darwin_check_table(const struct table *table, struct diag_list *diags)
{
	struct strpool pool = { 0 };
	struct landing l;
	size_t i, n = 0;

	for (i = 0; i < table->net.n; i++) {
		memset(&l, 0, sizeof(l));
		l.row = table->net.order[i];
		l.pool = &pool;
		classify_net(table, &l);
		if (l.kind == LANDING_PROXY)
			n++;
	}
	strpool_free(&pool);
	if (!n)
		return 0;
	diag_note(diags, NULL, "the darwin profile is not complete on its "
		     "own: %zu row%s land%s in the egress proxy, so it takes "
		     "the proxy's ports as the parameters %s and %s; "
		     "vbox-exec passes them, 'sandbox-exec -f' needs -D %s=N "
		     "-D %s=M and a proxy listening there",
		     n, n == 1 ? "" : "s", n == 1 ? "s" : "",
		     reserved_ports[0].param, reserved_ports[1].param,
		     reserved_ports[0].param, reserved_ports[1].param);
	return 0;
}

const char *darwin_reserved_param(const char *entry)
{
	size_t i;

	for (i = 0; i < array_size(reserved_ports); i++)
		if (strcmp(entry, reserved_ports[i].entry) == 0)
			return reserved_ports[i].param;
	BUG("darwin: unknown reserved entry '%s'", entry);
}
