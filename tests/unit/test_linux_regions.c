/* SPDX-License-Identifier: MIT */
/*
 * test_linux_regions.c - the linux classifier's region index
 * (emitters/linux_regions.c) against a brute-force reference kept here.
 *
 * The reference is the classifier as it was before the index: a row's
 * region is found by scanning every lower-priority row that mounts
 * something for one whose literal prefix (parsed as a path) is an
 * ancestor of the row's prefix.  On random tables over a small name space
 * (so prefixes nest, repeat and shadow each other), with both write
 * postures and every pattern shape, the test checks
 *  - that every landing kind emitter_linux gives equals the reference's,
 *  - and, replaying the classification order with the landings the
 *    emitter gave, that every region (definite effect, deciding row,
 *    maybe flags, nearest glob) and every "writable below" and "deny
 *    near" answer of the index equals the brute-force scan.
 */
#include <vbox.h>

#include <stdio.h>

#include "emit.h"
#include "fspath.h"
#include "ir.h"
#include "linux_regions.h"
#include "tap.h"
#include "testlib.h"

/* ------------------------------------------------------------------ */
/* random tables */

static uint64_t rng_state;

static uint32_t rnd(uint32_t n)
{
	/* xorshift64*: deterministic, good enough to pick shapes. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 2685821657736338717ull) >> 33) % n;
}

static const char *const names[] = { "a", "b", "c" };
static const char *const tails[] = {
	"", "", "", "/**", "/**", "/**/**", "/*", "/*.k", "/**/x", "/x*/**",
	"/?",
};
static const char *const effects[] = { "rw", "ro", "deny" };
static const char *const levels[] = { "", "", "", "!", "!!" };

/* One random file row: "LEVEL EFFECT:PATTERN". */
static char *random_row(void)
{
	char prefix[64] = "";
	size_t len = 0;
	uint32_t depth, i;

	if (rnd(12) == 0)
		return xasprintf("%s%s:**/%s", levels[rnd(5)], effects[rnd(3)],
				 names[rnd(3)]);
	depth = 1 + rnd(4);
	for (i = 0; i < depth; i++)
		len += (size_t)snprintf(prefix + len, sizeof(prefix) - len,
					"/%s", names[rnd(3)]);
	return xasprintf("%s%s:%s%s", levels[rnd(5)], effects[rnd(3)], prefix,
			 tails[rnd(array_size(tails))]);
}

static char *random_table(size_t nrows)
{
	char *text = xasprintf("@default write %s\n", rnd(3) ? "deny" : "rw");
	size_t i;

	for (i = 0; i < nrows; i++) {
		char *row = random_row(), *t;

		t = xasprintf("%s%s\n", text, row);
		free(row);
		free(text);
		text = t;
	}
	return text;
}

/* ------------------------------------------------------------------ */
/* the brute-force reference */

enum shape { SHAPE_SUBTREE, SHAPE_GLOB, SHAPE_ROOTLESS };

static enum shape shape_of(const struct fs_pattern *p)
{
	uint32_t i;

	if (!p->wild)
		return SHAPE_SUBTREE;
	if (p->nlit == 0)
		return SHAPE_ROOTLESS;
	for (i = p->nlit; i < p->nsegs; i++)
		if (p->segs[i].kind != SEG_STARSTAR)
			return SHAPE_GLOB;
	return SHAPE_SUBTREE;
}

/* The literal prefix as a parsed path, as the classifier once made it. */
static int ref_prefix(const struct table *table, const struct row *row,
		      struct fs_path *out)
{
	const char *text = row->fs.text;
	char *pre, *err = NULL;
	size_t pos = 0;
	uint32_t i;
	int ret;

	if (text[0] == '/') {
		for (i = 0; i < row->fs.nlit && text[pos] == '/'; i++) {
			pos++;
			while (text[pos] && text[pos] != '/')
				pos++;
		}
	}
	pre = pos ? xstrndup(text, pos) : xstrdup("/");
	ret = fs_path_parse(pre, table->target, out, &err);
	free(err);
	free(pre);
	return ret;
}

static bool segs_under(const struct fs_path *a, const struct fs_path *b)
{
	uint32_t i;

	if (a->nsegs > b->nsegs)
		return false;
	for (i = 0; i < a->nsegs; i++)
		if (a->segs[i].len != b->segs[i].len ||
		    memcmp(a->segs[i].s, b->segs[i].s, a->segs[i].len) != 0)
			return false;
	return true;
}

static bool mounts(enum landing_kind k)
{
	return k == LANDING_KERNEL || k == LANDING_LAUNCH;
}

/*
 * struct ref - the reference's state for one table
 * @pre: each file row's prefix, by row index
 * @kind: the landings decided so far (reference or emitter), by row index
 */
struct ref {
	const struct table *table;
	struct fs_path *pre;
	enum landing_kind *kind;
};

static void ref_region(const struct ref *rf, size_t prio, struct region *r)
{
	const struct table *table = rf->table;
	const struct fs_path *path = &rf->pre[table->fs.prio[prio]->index];
	size_t q;

	memset(r, 0, sizeof(*r));
	for (q = prio + 1; q < table->fs.n; q++) {
		const struct row *l = table->fs.prio[q];

		if (!mounts(rf->kind[l->index]) ||
		    !segs_under(&rf->pre[l->index], path))
			continue;
		if (shape_of(&l->fs) == SHAPE_SUBTREE) {
			r->definite = l->effect;
			r->by = l;
			return;
		}
		if (!r->maybe_by)
			r->maybe_by = l;
		if (l->effect == EFFECT_RW)
			r->maybe_rw = true;
		else if (l->effect == EFFECT_RO)
			r->maybe_ro = true;
		else
			r->maybe_deny = true;
	}
	r->definite = table->default_write == EFFECT_RW ? EFFECT_RW : EFFECT_RO;
}

static const struct row *ref_writable_below(const struct ref *rf, size_t prio)
{
	const struct table *table = rf->table;
	const struct fs_path *path = &rf->pre[table->fs.prio[prio]->index];
	size_t q;

	for (q = prio + 1; q < table->fs.n; q++) {
		const struct row *l = table->fs.prio[q];

		if (l->effect == EFFECT_RW && mounts(rf->kind[l->index]) &&
		    segs_under(path, &rf->pre[l->index]))
			return l;
	}
	return NULL;
}

/*
 * The nearest mounted deny row below @prio that can hide something at
 * or below its prefix: one at or below the prefix, or one around it
 * nearer than the nearest subtree row around it.
 */
static const struct row *ref_deny_near(const struct ref *rf, size_t prio)
{
	const struct table *table = rf->table;
	const struct fs_path *path = &rf->pre[table->fs.prio[prio]->index];
	bool covered = false;
	size_t q;

	for (q = prio + 1; q < table->fs.n; q++) {
		const struct row *l = table->fs.prio[q];

		if (!mounts(rf->kind[l->index]))
			continue;
		if (l->effect == EFFECT_DENY &&
		    segs_under(path, &rf->pre[l->index]))
			return l;
		if (!segs_under(&rf->pre[l->index], path))
			continue;
		if (!covered && l->effect == EFFECT_DENY)
			return l;
		if (shape_of(&l->fs) == SHAPE_SUBTREE)
			covered = true;
	}
	return NULL;
}

/* How often the tables exercise the supervised landing, both ways. */
static size_t nsupervised, nhidden;

/* A deny or ro row mounts cannot hold: supervised, unless ro hides. */
static enum landing_kind ref_supervised(const struct ref *rf, size_t prio)
{
	const struct row *row = rf->table->fs.prio[prio];

	if (row->effect == EFFECT_RO && ref_deny_near(rf, prio)) {
		nhidden++;
		return LANDING_UNSUPPORTED;
	}
	nsupervised++;
	return LANDING_SUPERVISED;
}

/* The landing kind of the row at @prio, from the rows below it. */
static enum landing_kind ref_classify(const struct ref *rf, size_t prio)
{
	const struct row *row = rf->table->fs.prio[prio];
	struct region r;

	if (row->shadowed_by)
		return LANDING_ABSORBED;
	switch (shape_of(&row->fs)) {
	case SHAPE_SUBTREE:
		if (row->effect == EFFECT_DENY)
			return LANDING_LAUNCH;
		ref_region(rf, prio, &r);
		if (row->effect == EFFECT_RW)
			return r.definite == EFFECT_RW && !r.maybe_ro &&
			       !r.maybe_deny ? LANDING_ABSORBED :
			       LANDING_KERNEL;
		if (r.definite == EFFECT_RW || r.maybe_rw)
			return LANDING_LAUNCH;
		return r.definite == EFFECT_RO && !r.maybe_deny ?
		       LANDING_ABSORBED : LANDING_KERNEL;
	case SHAPE_GLOB:
		if (row->effect == EFFECT_RW)
			return LANDING_LAUNCH;
		ref_region(rf, prio, &r);
		if (r.definite == EFFECT_RW || r.maybe_rw ||
		    ref_writable_below(rf, prio))
			return ref_supervised(rf, prio);
		return LANDING_LAUNCH;
	case SHAPE_ROOTLESS:
		if (row->effect == EFFECT_RW)
			return LANDING_ABSORBED;
		ref_region(rf, prio, &r);
		if (row->effect == EFFECT_RO && r.definite == EFFECT_RO &&
		    !r.maybe_rw && !ref_writable_below(rf, prio) &&
		    !ref_deny_near(rf, prio))
			return LANDING_ABSORBED;
		return ref_supervised(rf, prio);
	default:
		BUG("bad shape");
	}
}

static bool same_region(const struct region *a, const struct region *b)
{
	return a->definite == b->definite && a->by == b->by &&
	       a->maybe_rw == b->maybe_rw && a->maybe_ro == b->maybe_ro &&
	       a->maybe_deny == b->maybe_deny && a->maybe_by == b->maybe_by;
}

static int row_num(const struct row *r)
{
	return r ? (int)r->index : -1;
}

/*
 * check_table - compare emitter_linux and the index with the reference on
 * @text; @what names the table in the TAP lines.
 */
static void check_table(const char *text, const char *what)
{
	struct tl_compiled c;
	const struct table *table;
	struct lx_regions rg;
	struct ref rf;
	size_t i, prio, bad_kind = 0, bad_region = 0;

	if (tl_compile(&c, text, "linux", TL_LANDINGS) < 0) {
		ok(0, "%s: compiles", what);
		diag("%s", text);
		tl_compiled_free(&c);
		return;
	}
	table = c.table;
	rf.table = table;
	rf.pre = xcalloc(table->fs.n + 1, sizeof(*rf.pre));
	rf.kind = xcalloc(table->fs.n + 1, sizeof(*rf.kind));
	for (i = 0; i < table->fs.n; i++)
		if (ref_prefix(table, table->fs.order[i], &rf.pre[i]) < 0)
			BUG("unparsable prefix in a random table");

	/* Landing kinds: the whole reference classification. */
	for (prio = table->fs.n; prio-- > 0;) {
		const struct row *row = table->fs.prio[prio];
		enum landing_kind want = ref_classify(&rf, prio);

		rf.kind[row->index] = want;
		if (c.landing.fs[row->index].kind != want && !bad_kind++)
			diag("row %u '%s': emitter %s, reference %s",
			     row->index, row->raw,
			     landing_kind_name(c.landing.fs[row->index].kind),
			     landing_kind_name(want));
	}
	ok(!bad_kind, "%s: %zu file rows land as the reference says", what,
	   table->fs.n);

	/* Regions: replay the emitter's order with its landings. */
	lx_regions_init(&rg, table);
	for (prio = table->fs.n; prio-- > 0;) {
		const struct row *row = table->fs.prio[prio];
		struct region got, want;
		const struct row *wgot, *wwant, *dgot, *dwant;

		rf.kind[row->index] = c.landing.fs[row->index].kind;
		lx_regions_at(&rg, row, &got);
		ref_region(&rf, prio, &want);
		wgot = lx_regions_writable_below(&rg, row);
		wwant = ref_writable_below(&rf, prio);
		dgot = lx_regions_deny_near(&rg, row);
		dwant = ref_deny_near(&rf, prio);
		if ((!same_region(&got, &want) || wgot != wwant ||
		     dgot != dwant) && !bad_region++)
			diag("row %u '%s': region %d/%d %d%d%d/%d below %d "
			     "deny %d, reference %d/%d %d%d%d/%d below %d "
			     "deny %d", row->index, row->raw, got.definite,
			     row_num(got.by), got.maybe_rw, got.maybe_ro,
			     got.maybe_deny, row_num(got.maybe_by),
			     row_num(wgot), row_num(dgot), want.definite,
			     row_num(want.by), want.maybe_rw, want.maybe_ro,
			     want.maybe_deny, row_num(want.maybe_by),
			     row_num(wwant), row_num(dwant));
		if (mounts(rf.kind[row->index]))
			lx_regions_add(&rg, row,
				       shape_of(&row->fs) == SHAPE_SUBTREE);
	}
	lx_regions_release(&rg);
	ok(!bad_region, "%s: every region, writable-below and deny-near "
	   "answer matches the brute-force scan", what);
	if (bad_kind || bad_region)
		diag("table:\n%s", text);

	for (i = 0; i < table->fs.n; i++)
		fs_path_free(&rf.pre[i]);
	free(rf.pre);
	free(rf.kind);
	tl_compiled_free(&c);
}

int main(void)
{
	static const char fixed[] =
		"@default write deny\n"
		"!ro:/a/b/**\n"
		"deny:/a/b/c/*.k\n"
		"rw:/a/*\n"
		"ro:/a/b\n"
		"rw:/a/**/**\n"
		"deny:/a/c\n"
		"rw:/b/c/**\n"
		"deny:/b/*.k\n"
		"ro:**/a\n"
		"rw:/a\n";
	char what[64];
	unsigned seed;

	check_table(fixed, "nested holes, globs and roots");
	for (seed = 1; seed <= 150; seed++) {
		char *text;

		rng_state = 0x9e3779b97f4a7c15ull * seed;
		text = random_table(1 + rnd(60));
		snprintf(what, sizeof(what), "random table %u", seed);
		check_table(text, what);
		free(text);
	}
	for (seed = 1; seed <= 3; seed++) {
		char *text;

		rng_state = 0x51afd6ed4ull * seed + 7;
		text = random_table(1500);
		snprintf(what, sizeof(what), "large random table %u", seed);
		check_table(text, what);
		free(text);
	}
	ok(nsupervised && nhidden, "the tables have supervised rows (%zu) and "
	   "supervised ro rows refused over a lower deny (%zu)", nsupervised,
	   nhidden);
	return done_testing();
}
