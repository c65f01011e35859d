/* SPDX-License-Identifier: MIT */
/*
 * test_diff.c - table_diff() (compiler/diff.h): exact classes of what two
 * tables decide differently.
 *
 * - Hand-written pairs with the classes they must give, and pairs that
 *   must give none.
 * - The segment alphabet (diff_seg.c): on random glob sets, every answer
 *   vector that some short string outside the literals has (brute force
 *   over a small alphabet) has a representative, and every
 *   representative is a valid segment outside the literals with the
 *   vector it stands for.
 * - Random pairs: a seeded generator writes a table over a vocabulary
 *   chosen so that rows collide (globs, "**", nested suffixes, the
 *   loopback class, both defaults) and changes it once: a row added,
 *   removed, moved, re-levelled or given another effect, or a default
 *   flipped.  Every probe path and destination (random ones and
 *   instances of every pattern) that the two tables decide differently
 *   must fall in a reported class (the same operation and deciding rows),
 *   and every class's witness must be decided as reported by eval_fs /
 *   eval_net, the engine of "vboxc explain".  Changes known to change
 *   nothing (a copy of a row inserted right below it, a row inside a
 *   subtree row's subtree appended below it, two neighbours that cannot
 *   overlap swapped) must give no class.
 *
 * The random pairs are test_diff_pairs.c.  The seed is printed;
 * VBOX_DIFF_SEED=N and VBOX_DIFF_PAIRS=N reproduce or widen a run.
 * tests/cli/diff.sh confirms witnesses with the vboxc program itself.
 */
#include <vbox.h>

#include <stdio.h>

#include "diff.h"
#include "diff_int.h"
#include "fspath.h"
#include "ir.h"
#include "strbuf.h"
#include "strv.h"
#include "tap.h"
#include "testlib.h"
#include "test_diff_int.h"

#define DEFAULT_SEED 20260321u

/* ---- a deterministic generator (splitmix64), shared ---- */

uint64_t rng_state;

static uint64_t rng_next(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

unsigned rng_below(unsigned n)
{
	return (unsigned)(rng_next() % n);
}

/* ---- comparing two rule texts ---- */

int pair_open(struct pair *p, const char *a, const char *b,
		     const char *target)
{
	memset(p, 0, sizeof(*p));
	if (tl_compile(&p->c[0], a, target, TL_SHADOW | TL_QUIET) ||
	    tl_compile(&p->c[1], b, target, TL_SHADOW | TL_QUIET))
		return -1;
	return table_diff(p->c[0].table, p->c[1].table, &p->r, &p->err);
}

void pair_close(struct pair *p)
{
	diff_result_free(&p->r);
	free(p->err);
	tl_compiled_free(&p->c[0]);
	tl_compiled_free(&p->c[1]);
}

/* "widens write /x 1>0" per class, old and new rows by index or "-". */
char *classes_str(const struct diff_result *r)
{
	struct strbuf b = { 0 };
	size_t i;

	strbuf_puts(&b, "");
	for (i = 0; i < r->n; i++) {
		const struct diff_class *c = &r->classes[i];
		char *s = xasprintf("%s%s %s %s ", i ? "; " : "",
				    diff_class_widens(c) ? "widens" : "narrows",
				    diff_op_name(c->op), c->witness);

		strbuf_puts(&b, s);
		free(s);
		s = c->old_row ? xasprintf("%u", c->old_row->index) :
				 xstrdup("-");
		strbuf_puts(&b, s);
		free(s);
		strbuf_putc(&b, '>');
		s = c->new_row ? xasprintf("%u", c->new_row->index) :
				 xstrdup("-");
		strbuf_puts(&b, s);
		free(s);
	}
	return b.s;
}

static void expect(const char *a, const char *b, const char *target,
		   const char *want, const char *what)
{
	struct pair p;
	char *got;

	if (pair_open(&p, a, b, target)) {
		ok(0, "%s: %s", what, p.err ? p.err : "does not compile");
		pair_close(&p);
		return;
	}
	got = classes_str(&p.r);
	is_str(got, want, "%s", what);
	free(got);
	pair_close(&p);
}

static void test_cases(void)
{
	expect("rw:/srv/**\n", "rw:/srv/**\n", "linux", "",
	       "a table against itself: no class");
	expect("rw:/srv/**\n", "rw:/srv/**\nro:/srv/a\n", "linux", "",
	       "an ineffective row added: no class");
	expect("rw:/srv/a\nrw:/tmp/b\n", "rw:/tmp/b\nrw:/srv/a\n", "linux",
	       "", "two rows that cannot overlap swapped: no class");
	expect("!deny:/srv/keys\nrw:/srv/**\n", "rw:/srv/**\n", "linux",
	       "widens read /srv/keys 0>0; widens write /srv/keys 0>0",
	       "a deny row removed widens reads and writes");
	expect("rw:/srv/**\ndeny:/srv/keys\n",
	       "rw:/srv/**\n!deny:/srv/keys\n", "linux",
	       "narrows read /srv/keys 0>1; narrows write /srv/keys 0>1",
	       "re-levelled above the rw row: the deny now decides");
	expect("rw:/srv/*.c\n", "rw:/srv/a*.c\n", "linux",
	       "narrows write /srv/.c 0>-", "a narrower glob");
	expect("rw:/srv/*.c\n", "rw:/srv/*.c\n", "darwin", "",
	       "darwin: the same glob");
	expect("rw:/Srv/**\n", "rw:/srv/**\n", "darwin", "",
	       "darwin folds case: no class");
	expect("rw:/Srv/**\n", "rw:/srv/**\n", "linux",
	       "narrows write /Srv 0>-; widens write /srv ->0",
	       "linux does not fold case");
	expect("@default write deny\n", "@default write rw\n", "linux",
	       "widens write / ->-", "the write default flipped");
	expect("allow:api.example.com:443\n", "allow:*.example.com:443\n",
	       "linux",
	       "widens net x.example.com:443 ->0",
	       "a name widened to every name under its parent");
	expect("allow:localhost:80\n", "allow:127.0.0.5:80\n", "linux", "",
	       "the loopback class is one host");
	expect("@default net open\n", "@default net open\ndeny:10.0.0.1\n",
	       "linux", "narrows net 10.0.0.1:443 ->0",
	       "a denied address in the open posture");
	expect("@default net open\nrw:C:\\w\\**\n",
	       "@default net open\nrw:C:\\w\\**\n!ro:C:\\w\\k\n", "windows",
	       "narrows write /c/w/k 0>1", "windows: drive paths");
}

/* ---- the segment alphabet against brute force ---- */

static const char *const glob_pool[] = {
	"*", "a*", "*b", "a?b", "?", "??", "*.c", "a*b*", "*a*", "b?*",
	".*", "*ab", "a*a", "?.c", "*\xc3\xa9*", "\xc3\xa9?",
};
static const char *const lit_pool[] = {
	"a", "b", "ab", "ba", "a.c", ".c", "x", "aab", "\xc3\xa9",
};

/* The answer vector of @s over @g as a bit mask. */
static unsigned answers(const struct seg *g, size_t n, const char *s)
{
	unsigned v = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (fs_seg_glob_match(g[i].s, g[i].len, s, strlen(s)))
			v |= 1u << i;
	return v;
}

static bool is_lit(const char *const *lits, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(lits[i], s))
			return true;
	return !strcmp(s, ".") || !strcmp(s, "..");
}

/* Every string of up to @depth characters of @alpha, into @out. */
static void strings(const char *const *alpha, size_t na, const char *pre,
		    unsigned depth, struct strv *out)
{
	size_t i;
	char *s;

	if (!depth)
		return;
	for (i = 0; i < na; i++) {
		s = xasprintf("%s%s", pre, alpha[i]);
		strings(alpha, na, s, depth - 1, out);
		strv_push(out, s);
	}
}

static void test_segments(void)
{
	static const char *const alpha[] = { "a", "b", ".", "c", "z",
					     "\xc3\xa9" };
	struct strv all = { 0 };
	unsigned round, bad = 0, missing = 0;
	size_t i, k;

	strings(alpha, array_size(alpha), "", 4, &all);
	for (round = 0; round < 300; round++) {
		struct diff_ctx ctx;
		struct seg g[4];
		const struct seg *gp[4];
		const char *lits[4];
		uint32_t lens[4];
		size_t ng = 1 + rng_below(4), nl = rng_below(5);
		struct seg_reps reps;
		bool seen[16] = { false }, want[16] = { false };

		for (i = 0; i < ng; i++) {
			g[i].s = PICK(glob_pool);
			g[i].len = (uint32_t)strlen(g[i].s);
			g[i].kind = SEG_GLOB;
			gp[i] = &g[i];
		}
		for (i = 0; i < nl && i < 4; i++) {
			lits[i] = PICK(lit_pool);
			lens[i] = (uint32_t)strlen(lits[i]);
		}
		nl = nl < 4 ? nl : 4;
		memset(&ctx, 0, sizeof(ctx));
		ctx.segs = seg_cache_new();
		if (seg_partition(&ctx, gp, ng, lits, lens, nl, &reps) < 0) {
			ok(0, "segment partition %u: %s", round, ctx.err);
			free(ctx.err);
			seg_cache_free(ctx.segs);
			continue;
		}
		for (i = 0; i < reps.n; i++) {
			if (!reps.v[i][0] || strchr(reps.v[i], '/') ||
			    is_lit(lits, nl, reps.v[i]) ||
			    seen[answers(g, ng, reps.v[i])])
				bad++;
			seen[answers(g, ng, reps.v[i])] = true;
		}
		for (k = 0; k < all.n; k++)
			if (!is_lit(lits, nl, all.v[k]))
				want[answers(g, ng, all.v[k])] = true;
		for (k = 0; k < 16; k++)
			if (want[k] && !seen[k])
				missing++;
		seg_cache_free(ctx.segs);
	}
	strv_release(&all);
	is_int(bad, 0, "every representative is a valid segment outside the "
	       "literals, one per answer vector");
	is_int(missing, 0, "every answer vector of a short string outside "
	       "the literals has a representative");
}

int main(void)
{
	const char *env = getenv("VBOX_DIFF_SEED");
	uint64_t seed = env ? strtoull(env, NULL, 10) : DEFAULT_SEED;

	printf("# seed %llu (VBOX_DIFF_SEED=%llu repeats this run)\n",
	       (unsigned long long)seed, (unsigned long long)seed);
	rng_state = seed;
	test_cases();
	test_segments();
	test_random_pairs();
	return done_testing();
}
