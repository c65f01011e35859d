/* SPDX-License-Identifier: MIT */
/*
 * test_diff_pairs.c - the random pairs of test_diff (see test_diff.c):
 * a seeded table, changed once (or a few times alike), compared, and
 * the comparison held against probes and the evaluator.
 */
#include <vbox.h>

#include <stdio.h>
#include <strings.h>

#include "diff.h"
#include "eval.h"
#include "fspath.h"
#include "ir.h"
#include "netaddr.h"
#include "strbuf.h"
#include "strv.h"
#include "tap.h"
#include "target.h"
#include "testlib.h"
#include "test_diff_int.h"

#define DEFAULT_PAIRS 4000u
#define MAX_PAIRS 200000u

/* ---- random pairs ---- */

/**
 * struct vocab - what a target's tables are made of
 * @target: the target
 * @roots: file patterns start with one of these
 * @whole: whole file patterns
 * @probe_root: probe paths start with it ("" or a drive)
 */
struct vocab {
	const char *target;
	const char *const *roots;
	const char *const *whole;
	const char *probe_root;
};

#define NROOTS 4
#define NWHOLE 8
static const char *const posix_roots[NROOTS] = {
	"/srv", "/srv/a", "/tmp", "/Srv",
};
static const char *const posix_whole[NWHOLE] = {
	"**/.env", "**/*.c", "/srv/**/x.c", "/srv/*/b", "**/a/**",
	"/tmp/**", "/srv/a/**", "/srv",
};
static const char *const win_roots[NROOTS] = {
	"C:/srv", "C:\\srv\\a", "D:/tmp", "c:/Srv",
};
static const char *const win_whole[NWHOLE] = {
	"**/.env", "**/*.c", "C:/srv/**/x.c", "C:/srv/*/b", "**/a/**",
	"D:/tmp/**", "C:/srv/a/**", "C:/srv",
};
static const struct vocab vocabs[] = {
	{ "linux", posix_roots, posix_whole, "" },
	{ "darwin", posix_roots, posix_whole, "" },
	{ "windows", win_roots, win_whole, "/c" },
};
static const char *const segments[] = {
	"a", "b", "ab", "x.c", ".env", "*", "?", "a*", "*.c", "**", "b?",
};
static const char *const hosts[] = {
	"api.example.com", "*.example.com", "x.api.example.com",
	"*.api.example.com", "localhost", "127.0.0.1", "10.0.0.1",
	"[2001:db8::1]", "example.com", "*.x.api.example.com",
};
static const char *const ports[] = { ":443", ":80", "", ":*" };
static const char *const probe_segs[] = {
	"srv", "tmp", "a", "b", "ab", "x.c", ".env", "c", "zz", "aa.c",
	"b1", "SRV", "x",
};
static const char *const probe_hosts[] = {
	"api.example.com", "example.com", "x.api.example.com",
	"y.x.api.example.com", "localhost", "127.0.0.2", "10.0.0.1",
	"10.0.0.2", "[2001:db8::1]", "other.org", "[::1]", "z.example.com",
};
static const unsigned probe_ports[] = { 443, 80, 22, 1 };

/* One random row (file or network) as a line. */
static char *gen_row(const struct vocab *vo)
{
	struct strbuf b = { 0 };
	unsigned n = rng_below(3), i;

	for (i = rng_below(3); i; i--)
		strbuf_putc(&b, '!');
	if (rng_below(5) == 0) {
		strbuf_puts(&b, rng_below(2) ? "allow:" : "deny:");
		strbuf_puts(&b, PICK(hosts));
		strbuf_puts(&b, PICK(ports));
		return b.s;
	}
	strbuf_puts(&b, PICK(((const char *const[]){ "deny:", "ro:",
						     "rw:" })));
	if (rng_below(3) == 0) {
		strbuf_puts(&b, vo->whole[rng_below(NWHOLE)]);
		return b.s;
	}
	strbuf_puts(&b, vo->roots[rng_below(NROOTS)]);
	for (i = 0; i < n; i++) {
		strbuf_putc(&b, '/');
		strbuf_puts(&b, PICK(segments));
	}
	return b.s;
}

static char *join(const struct strv *lines, const char *head)
{
	struct strbuf b = { 0 };
	size_t i;

	strbuf_puts(&b, head);
	for (i = 0; i < lines->n; i++) {
		strbuf_puts(&b, lines->v[i]);
		strbuf_putc(&b, '\n');
	}
	return b.s;
}

static void insert_at(struct strv *v, size_t at, char *s)
{
	strv_push(v, s);
	memmove(v->v + at + 1, v->v + at, (v->n - 1 - at) * sizeof(*v->v));
	v->v[at] = s;
}

static char *remove_at(struct strv *v, size_t at)
{
	char *s = v->v[at];

	memmove(v->v + at, v->v + at + 1, (v->n - at - 1) * sizeof(*v->v));
	v->n--;
	return s;
}

/* The row without its level and effect: what follows the ':'. */
static const char *row_target(const char *line)
{
	return strchr(line, ':') + 1;
}

static bool is_net(const char *line)
{
	const char *t = row_target(line);

	if (strstr(line, "allow:"))
		return true;
	/* doc/rules.md §2: path-like targets; drive letters on windows. */
	return !(t[0] == '/' || (t[0] == '*' && t[1] == '*') ||
		 (t[0] && t[1] == ':'));
}

/*
 * Two file rows that cannot overlap: both start with a literal first
 * segment, and the two differ (folded: darwin folds "/Srv").
 */
static bool disjoint(const char *a, const char *b)
{
	const char *x = row_target(a), *y = row_target(b);
	size_t lx = strcspn(x + 1, "/"), ly = strcspn(y + 1, "/");

	if (x[0] != '/' || y[0] != '/' || memchr(x + 1, '*', lx) ||
	    memchr(y + 1, '*', ly) || memchr(x + 1, '?', lx) ||
	    memchr(y + 1, '?', ly))
		return false;
	return lx != ly || strncasecmp(x + 1, y + 1, lx) != 0;
}

/**
 * enum change - one edit of a table
 * @CH_ADD ... @CH_DEFAULT: may change decisions
 * @CH_DUP: a copy of a row inserted right below it (dead)
 * @CH_INSIDE: a row in a subtree row's subtree, appended at level 0 (dead)
 * @CH_SWAP: two neighbours that cannot overlap swapped
 */
enum change {
	CH_ADD,
	CH_REMOVE,
	CH_MOVE,
	CH_RELEVEL,
	CH_EFFECT,
	CH_DEFAULT,
	CH_DUP,
	CH_INSIDE,
	CH_SWAP,
	CH_COUNT,
};

/* Apply @ch to @v (and the defaults @head); false when it cannot apply. */
static bool mutate(const struct vocab *vo, struct strv *v, char **head,
		   enum change ch)
{
	size_t i = v->n ? rng_below((unsigned)v->n) : 0, j;
	const char *t = NULL;
	char *s;

	switch (ch) {
	case CH_ADD:
		insert_at(v, v->n ? rng_below((unsigned)v->n + 1) : 0,
			  gen_row(vo));
		return true;
	case CH_REMOVE:
		if (!v->n)
			return false;
		free(remove_at(v, i));
		return true;
	case CH_MOVE:
		if (v->n < 2)
			return false;
		s = remove_at(v, i);
		insert_at(v, rng_below((unsigned)v->n + 1), s);
		return true;
	case CH_RELEVEL:
		if (!v->n)
			return false;
		t = v->v[i] + strspn(v->v[i], "!");
		s = xasprintf("%.*s%s", (int)rng_below(3), "!!", t);
		free(v->v[i]);
		v->v[i] = s;
		return true;
	case CH_EFFECT:
		if (!v->n)
			return false;
		t = strchr(v->v[i], ':');
		s = xasprintf("%.*s%s%s", (int)strspn(v->v[i], "!"), "!!",
			      is_net(v->v[i]) ?
			      (strstr(v->v[i], "allow:") ? "deny" : "allow") :
			      PICK(((const char *const[]){ "deny", "ro",
							   "rw" })), t);
		free(v->v[i]);
		v->v[i] = s;
		return true;
	case CH_DEFAULT:
		s = xasprintf("@default write %s\n@default net %s\n",
			      rng_below(2) ? "rw" : "deny",
			      rng_below(2) ? "open" : "deny");
		free(*head);
		*head = s;
		return true;
	case CH_DUP:
		if (!v->n)
			return false;
		insert_at(v, i + 1, xstrdup(v->v[i]));
		return true;
	case CH_INSIDE:
		for (j = 0; j < v->n; j++) {
			t = row_target(v->v[(i + j) % v->n]);
			if (t[0] == '/' && !strpbrk(t, "*?") &&
			    !is_net(v->v[(i + j) % v->n]))
				break;
		}
		if (j == v->n)
			return false;
		strv_push(v, xasprintf("%s:%s/%s/%s",
				       PICK(((const char *const[]){ "deny",
								    "ro",
								    "rw" })),
				       t, PICK(segments), PICK(segments)));
		return true;
	case CH_SWAP:
		for (j = 0; j + 1 < v->n; j++) {
			size_t k = (i + j) % (v->n - 1);

			if (is_net(v->v[k]) != is_net(v->v[k + 1]) ||
			    (!is_net(v->v[k]) &&
			     disjoint(v->v[k], v->v[k + 1]))) {
				s = v->v[k];
				v->v[k] = v->v[k + 1];
				v->v[k + 1] = s;
				return true;
			}
		}
		return false;
	case CH_COUNT:
	default:
		BUG("bad change %d", (int)ch);
	}
}

/* A random probe path of up to four segments. */
static char *probe_path(const struct vocab *vo)
{
	struct strbuf b = { 0 };
	unsigned n = rng_below(5), i;

	strbuf_puts(&b, vo->probe_root);
	for (i = 0; i < n; i++) {
		strbuf_putc(&b, '/');
		strbuf_puts(&b, PICK(probe_segs));
	}
	if (!b.len)
		strbuf_putc(&b, '/');
	return b.s;
}

/* A path the pattern @p matches, wildcards filled in at random. */
static char *instance(const struct vocab *vo, const struct fs_pattern *p)
{
	struct strbuf b = { 0 };
	uint32_t i, k;

	if (p->nsegs && p->segs[0].kind == SEG_STARSTAR)
		strbuf_puts(&b, vo->probe_root);
	for (i = 0; i < p->nsegs; i++) {
		const struct seg *s = &p->segs[i];

		if (s->kind == SEG_STARSTAR) {
			for (k = rng_below(3); k; k--) {
				strbuf_putc(&b, '/');
				strbuf_puts(&b, PICK(probe_segs));
			}
			continue;
		}
		strbuf_putc(&b, '/');
		for (k = 0; k < s->len; k++) {
			if (s->s[k] == '*')
				strbuf_puts(&b, rng_below(2) ? "" : "q");
			else if (s->s[k] == '?')
				strbuf_putc(&b, 'r');
			else
				strbuf_putc(&b, s->s[k]);
		}
	}
	if (!b.len)
		strbuf_putc(&b, '/');
	return b.s;
}

/* Is the query's class (op and both deciders) among @r's classes? */
static bool reported(const struct diff_result *r, enum diff_op op,
		     const struct decision d[2])
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->classes[i].op == op &&
		    r->classes[i].old_row == d[0].row &&
		    r->classes[i].new_row == d[1].row)
			return true;
	return false;
}

/* Probe @path on both tables; false when a difference is not reported. */
static bool probe_fs(const struct pair *p, const char *path,
		     const struct target_traits *t, unsigned *differ)
{
	struct decision d[2];
	struct fs_path fp;
	char *err = NULL;
	bool good = true;
	int op, side;

	if (fs_path_parse(path, t, &fp, &err) < 0) {
		free(err);
		return true;
	}
	for (op = DIFF_READ; op <= DIFF_WRITE; op++) {
		for (side = 0; side < 2; side++)
			eval_fs(p->c[side].table, &fp, op == DIFF_WRITE ?
				FS_WRITE : FS_READ, &d[side]);
		if (d[0].allow == d[1].allow)
			continue;
		++*differ;
		if (!reported(&p->r, op, d)) {
			diag("missed: %s %s", diff_op_name(op), fp.text);
			good = false;
		}
	}
	fs_path_free(&fp);
	return good;
}

static bool probe_net(const struct pair *p, const char *host, unsigned port,
		      unsigned *differ)
{
	struct decision d[2];
	struct net_target q;
	char *text = xasprintf("%s:%u", host, port), *err = NULL;
	bool good = true;
	int side;

	if (net_query_parse(text, &q, &err) < 0)
		BUG("probe '%s': %s", text, err);
	for (side = 0; side < 2; side++)
		eval_net(p->c[side].table, &q, &d[side]);
	if (d[0].allow != d[1].allow) {
		++*differ;
		if (!reported(&p->r, DIFF_NET, d)) {
			diag("missed: net %s", q.text);
			good = false;
		}
	}
	net_target_free(&q);
	free(text);
	return good;
}

/* Each class's witness, evaluated again, gives what the class says. */
static bool witnesses_hold(const struct pair *p, const struct vocab *vo)
{
	const struct target_traits *t = target_lookup(vo->target);
	struct decision d[2];
	struct fs_path fp;
	struct net_target q;
	char *err = NULL;
	size_t i;
	int side;

	for (i = 0; i < p->r.n; i++) {
		const struct diff_class *c = &p->r.classes[i];

		if (c->op == DIFF_NET ? net_query_parse(c->witness, &q, &err) :
		    fs_path_parse(c->witness, t, &fp, &err)) {
			diag("witness '%s': %s", c->witness, err);
			free(err);
			return false;
		}
		for (side = 0; side < 2; side++) {
			if (c->op == DIFF_NET)
				eval_net(p->c[side].table, &q, &d[side]);
			else
				eval_fs(p->c[side].table, &fp,
					c->op == DIFF_WRITE ? FS_WRITE :
					FS_READ, &d[side]);
		}
		if (c->op == DIFF_NET)
			net_target_free(&q);
		else
			fs_path_free(&fp);
		if (d[0].allow != c->old_allow || d[0].row != c->old_row ||
		    d[1].allow != c->new_allow || d[1].row != c->new_row ||
		    d[0].allow == d[1].allow) {
			diag("witness %s '%s' does not hold",
			     diff_op_name(c->op), c->witness);
			return false;
		}
	}
	return true;
}

/**
 * struct tally - what the random pairs showed
 * @pairs: pairs compared
 * @changed: pairs some probe decides differently
 * @reported: pairs with a class
 * @classes: classes reported, all witnesses confirmed
 * @equal: pairs whose change changes nothing, and that gave no class
 * @equal_tried: such pairs tried
 * @missed: pairs where a probe's difference had no class
 * @bad: pairs with a failed comparison or a witness that did not hold
 */
struct tally {
	unsigned pairs, changed, reported, classes, equal, equal_tried;
	unsigned missed, bad;
};

static void one_pair(const struct vocab *vo, struct tally *tl)
{
	struct strv lines = { 0 };
	char *head = xstrdup(""), *a, *b, *path;
	enum change ch;
	unsigned n = 1 + rng_below(8), i, differ = 0, k;
	bool good = true;
	struct pair p;
	size_t r;
	int side;

	if (rng_below(2))
		mutate(vo, &lines, &head, CH_DEFAULT);
	for (i = 0; i < n; i++)
		strv_push(&lines, gen_row(vo));
	a = join(&lines, head);
	do
		ch = (enum change)rng_below(CH_COUNT);
	while (!mutate(vo, &lines, &head, ch));
	/* Sometimes more edits of the same kind (changing or not). */
	for (k = rng_below(4) == 0 ? 1 + rng_below(3) : 0; k; k--) {
		enum change more = (enum change)(ch >= CH_DUP ?
			CH_DUP + rng_below(CH_COUNT - CH_DUP) :
			rng_below(CH_DUP));

		mutate(vo, &lines, &head, more);
	}
	b = join(&lines, head);
	if (pair_open(&p, a, b, vo->target)) {
		/* A generated row the target refuses: not a comparison. */
		if (p.err) {
			diag("pair failed: %s", p.err);
			tl->bad++;
		}
		goto out;
	}
	tl->pairs++;
	for (i = 0; i < 150; i++) {
		path = probe_path(vo);
		good &= probe_fs(&p, path, target_lookup(vo->target), &differ);
		free(path);
	}
	for (side = 0; side < 2; side++)
		for (r = 0; r < p.c[side].table->fs.n; r++)
			for (k = 0; k < 3; k++) {
				path = instance(vo,
					&p.c[side].table->fs.order[r]->fs);
				good &= probe_fs(&p, path,
						 target_lookup(vo->target),
						 &differ);
				free(path);
			}
	for (i = 0; i < array_size(probe_hosts); i++)
		for (k = 0; k < array_size(probe_ports); k++)
			good &= probe_net(&p, probe_hosts[i], probe_ports[k],
					  &differ);
	if (!good)
		tl->missed++;
	if (!witnesses_hold(&p, vo))
		tl->bad++;
	tl->changed += differ > 0;
	tl->reported += p.r.n > 0;
	tl->classes += (unsigned)p.r.n;
	if (ch >= CH_DUP) {
		tl->equal_tried++;
		tl->equal += p.r.n == 0;
	}
	if (!good || (ch >= CH_DUP && p.r.n)) {
		char *got = classes_str(&p.r);

		diag("change %d on %s:\n# old:\n%s# new:\n%s# classes: %s",
		     (int)ch, vo->target, a, b, got);
		free(got);
	}
out:
	pair_close(&p);
	free(a);
	free(b);
	free(head);
	strv_release(&lines);
}

void test_random_pairs(void)
{
	const char *env = getenv("VBOX_DIFF_PAIRS");
	unsigned long npairs = env ? strtoul(env, NULL, 10) : DEFAULT_PAIRS;
	struct tally tl = { 0 };
	unsigned long i;

	if (npairs == 0 || npairs > MAX_PAIRS)
		npairs = DEFAULT_PAIRS;
	for (i = 0; i < npairs; i++)
		one_pair(&vocabs[rng_below(array_size(vocabs))], &tl);
	diag("%u pairs: %u decided differently on some probe, %u with "
	     "classes (%u classes, every witness confirmed), %u of %u "
	     "unchanging edits gave no class", tl.pairs, tl.changed,
	     tl.reported, tl.classes, tl.equal, tl.equal_tried);
	is_int(tl.missed, 0, "every probe decided differently falls in a "
	       "reported class");
	is_int(tl.bad, 0, "every comparison succeeds and every witness is "
	       "confirmed by the evaluator");
	is_int(tl.equal, tl.equal_tried, "edits that change nothing give no "
	       "class");
	ok(tl.pairs > npairs * 9 / 10 && tl.changed > tl.pairs / 4 &&
	   tl.equal_tried > tl.pairs / 10,
	   "the random pairs reach the comparison (%u of %lu), many differ "
	   "(%u), many are equal by construction (%u)", tl.pairs, npairs,
	   tl.changed, tl.equal_tried);
}

