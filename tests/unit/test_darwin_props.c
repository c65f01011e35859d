/* SPDX-License-Identifier: MIT */
/*
 * test_darwin_props.c - the darwin profile never allows more than the
 * table: random tables, interpreted the way Seatbelt decides.
 *
 * A seeded generator writes small tables over a vocabulary chosen so that
 * rows collide (devices under /dev, a read-only or denied hole inside a
 * writable root, absent denied paths, both spellings of /tmp, loopback
 * rows in either posture).  Each table is compiled for darwin; a table
 * the emitter refuses holds trivially (fail closed).  Otherwise its
 * profile is interpreted by sbpl_check.c and compared with the compiler's
 * own evaluation (eval_fs/eval_net, the engine of "vboxc explain") on:
 *
 *   - reads, writes (file-write-data and creating a regular file) and
 *     ioctl on probe paths, /dev nodes included;
 *   - rename and removal of every ancestor of every path a ro or deny row
 *     decides (the directories of the pattern's fixed part, above its
 *     first "**"), and the creation there of a symbolic link or of a
 *     directory prepared elsewhere and renamed in;
 *   - for every ancestor below that fixed part (a directory a "**" or a
 *     later segment stands for): renaming it out of the match, writing
 *     the decided path at its new place and moving it back, or creating
 *     it as a symbolic link to a directory elsewhere and writing through
 *     it (Seatbelt matches the resolved path);
 *   - connections to 127.0.0.1, 127.0.0.2 and ::1 on probe ports.
 *
 * Wider than explain fails the table's test point.  Narrower (the
 * profile refusing what the table allows: ancestors kept immutable,
 * loopback rows reaching only 127.0.0.1 and ::1) is counted and reported.
 * The documented base allowances of the profile -- device nodes a table
 * leaves to its default write posture -- are not "wider".
 *
 * The seed is printed; VBOX_PROP_SEED=N and VBOX_PROP_TABLES=N reproduce
 * or widen a run.  The regression tests of each hole found by review
 * are test_darwin_holes.c.
 */
#include <vbox.h>

#include <errno.h>
#include <stdio.h>

#include "diag.h"
#include "emit.h"
#include "eval.h"
#include "fspath.h"
#include "ir.h"
#include "netaddr.h"
#include "darwin_testlib.h"
#include "sbpl_check.h"
#include "strbuf.h"
#include "target.h"
#include "tap.h"
#include "testlib.h"

#define DEFAULT_SEED 20261203u
#define DEFAULT_TABLES 1000u
#define MAX_TABLES 100000u

/* ---- a deterministic generator (splitmix64) ---- */

static uint64_t rng_state;

static uint64_t rng_next(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static unsigned rng_below(unsigned n)
{
	return (unsigned)(rng_next() % n);
}

#define PICK(arr) ((arr)[rng_below(array_size(arr))])

static const char *const whole_patterns[] = {
	"/dev/tty", "/dev/null", "/dev/zero", "/dev/fd/1", "/dev/ptmx",
	"/dev/**", "/dev/ttys*", "/dev/fd/**", "/srv/work/config",
	"/srv/app/.env", "/srv/a/b/c", "/srv/**", "/srv/work/**",
	"**/.env", "/srv/*/config", "/tmp/app/.env", "/private/tmp/**",
	"/Users/Dev/proj/.git/**", "/Users/Dev/proj/**", "/dev/stdout",
	"/dev/std*", "/srv/**/.env", "/srv/**/work/config", "**/work/config",
	"/srv/*/**/config", "/etc/**/shadow",
};
static const char *const roots[] = {
	"/srv", "/dev", "/tmp", "/private/tmp", "/Users/Dev", "/var/db",
};
static const char *const segments[] = {
	"a", "b", "work", "app", ".env", "config", "tty", "null", "fd",
	"ttys003", "*", "?", "c*", "**",
};
static const char *const net_hosts[] = {
	"localhost", "127.0.0.1", "127.0.0.2", "[::1]", "app.localhost",
	"api.example.com",
};
static const char *const net_ports[] = { ":22", ":80", ":*", "" };
static const char *const effects[] = { "deny", "ro", "rw" };

static void gen_pattern(struct strbuf *b)
{
	unsigned n, i;

	if (rng_below(2)) {
		strbuf_puts(b, PICK(whole_patterns));
		return;
	}
	strbuf_puts(b, PICK(roots));
	n = rng_below(4);
	for (i = 0; i < n; i++) {
		strbuf_putc(b, '/');
		strbuf_puts(b, PICK(segments));
	}
	if (!rng_below(4))
		strbuf_puts(b, "/**");
}

static void gen_level(struct strbuf *b)
{
	unsigned n = rng_below(3);

	while (n--)
		strbuf_putc(b, '!');
}

/* One random table as rules text (caller frees). */
static char *gen_table(void)
{
	struct strbuf b = { 0 };
	unsigned n, i;

	if (rng_below(2))
		strbuf_puts(&b, "@default write rw\n");
	if (rng_below(2))
		strbuf_puts(&b, "@default net open\n");
	n = 1 + rng_below(5);
	for (i = 0; i < n; i++) {
		gen_level(&b);
		strbuf_puts(&b, PICK(effects));
		strbuf_putc(&b, ':');
		gen_pattern(&b);
		strbuf_putc(&b, '\n');
	}
	n = rng_below(4);
	for (i = 0; i < n; i++) {
		gen_level(&b);
		strbuf_puts(&b, rng_below(2) ? "allow:" : "deny:");
		strbuf_puts(&b, PICK(net_hosts));
		strbuf_puts(&b, PICK(net_ports));
		strbuf_putc(&b, '\n');
	}
	return b.s;
}

/* ---- a set of strings, insertion order kept ---- */

struct strset {
	char **v;
	size_t n;
};

static void strset_add(struct strset *s, const char *str)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], str))
			return;
	s->v = xreallocarray(s->v, s->n + 1, sizeof(*s->v));
	s->v[s->n++] = xstrdup(str);
}

static void strset_free(struct strset *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* ---- probe paths ---- */

static const char *const fixed_probes[] = {
	"/dev/null", "/dev/zero", "/dev/tty", "/dev/ptmx", "/dev/ttys003",
	"/dev/fd/1", "/dev/random", "/dev/disk0", "/dev/stdout",
	"/dev/stderr", "/dev/fd/2", "/srv/work/config",
	"/srv/app/.env", "/srv/a/b/c", "/srv/x", "/tmp/app/.env",
	"/private/tmp/x", "/Users/Dev/proj/.git/config", "/var/db/x",
};

static void add_clean(struct strset *set, const char *raw)
{
	struct fs_path p;
	char *err = NULL;

	if (fs_path_parse(raw, target_lookup("darwin"), &p, &err)) {
		free(err);
		return;
	}
	strset_add(set, p.text);
	fs_path_free(&p);
}

/* The path, a child, and every ancestor. */
static void add_neighbours(struct strset *set, const char *path)
{
	char *t = xasprintf("%s/c", path), *slash;

	add_clean(set, path);
	add_clean(set, t);
	free(t);
	t = xstrdup(path);
	while ((slash = strrchr(t, '/')) && slash != t) {
		*slash = '\0';
		add_clean(set, t);
	}
	free(t);
}

/* Concrete paths a pattern matches: wildcards filled in, variant @v. */
static void add_pattern_probes(struct strset *set, const char *text)
{
	static const char *const starstar[] = { "", "k", "k/L" };
	static const char *const star[] = { "k", "c1", "" };
	unsigned v;

	for (v = 0; v < 3; v++) {
		struct strbuf b = { 0 };
		const char *p;

		for (p = text; *p; p++) {
			if (p[0] == '*' && p[1] == '*') {
				strbuf_puts(&b, starstar[v]);
				p++;
			} else if (*p == '*') {
				strbuf_puts(&b, star[v]);
			} else if (*p == '?') {
				strbuf_putc(&b, 'q');
			} else {
				strbuf_putc(&b, *p);
			}
		}
		add_neighbours(set, b.s ? b.s : "/");
		free(b.s);
	}
}

static void table_probes(struct strset *set, const struct table *t)
{
	size_t i;

	for (i = 0; i < array_size(fixed_probes); i++)
		add_neighbours(set, fixed_probes[i]);
	for (i = 0; i < t->fs.n; i++)
		add_pattern_probes(set, t->fs.order[i]->fs.text);
}

/* ---- what the table says ---- */

static bool seg_is(const char *s, size_t len, const char *name)
{
	return len == strlen(name) && strncasecmp(s, name, len) == 0;
}

static bool link_name(const char *s, size_t len)
{
	return seg_is(s, len, "tmp") || seg_is(s, len, "var") ||
	       seg_is(s, len, "etc");
}

/* fdesc links: /dev/stdin is /dev/fd/0, and so on. */
static const char *const std_links[] = {
	"/dev/stdin", "/dev/stdout", "/dev/stderr",
};

/* The other spelling of @path ("/tmp/x" <-> "/private/tmp/x"), or NULL. */
static char *private_alias_of(const char *path)
{
	const char *s1 = path + 1, *e1 = s1 + strcspn(s1, "/"), *s2, *e2;

	if (link_name(s1, (size_t)(e1 - s1)))
		return xasprintf("/private%s", path);
	if (!seg_is(s1, (size_t)(e1 - s1), "private") || !*e1)
		return NULL;
	s2 = e1 + 1;
	e2 = s2 + strcspn(s2, "/");
	if (link_name(s2, (size_t)(e2 - s2)))
		return xstrdup(e1);
	return NULL;
}

/*
 * The other name of the file @path names: private_alias_of(), or
 * "/dev/stdout/..." <-> "/dev/fd/1/..."; NULL if none.
 */
static char *alias_of(const char *path)
{
	size_t i, n;

	for (i = 0; i < array_size(std_links); i++) {
		char fd[16];

		snprintf(fd, sizeof(fd), "/dev/fd/%zu", i);
		n = strlen(std_links[i]);
		if (!strncasecmp(path, std_links[i], n) &&
		    (path[n] == '/' || !path[n]))
			return xasprintf("%s%s", fd, path + n);
		n = strlen(fd);
		if (!strncasecmp(path, fd, n) && (path[n] == '/' || !path[n]))
			return xasprintf("%s%s", std_links[i], path + n);
	}
	return private_alias_of(path);
}

static void decide(const struct table *t, const char *path, enum fs_op op,
		   struct decision *d)
{
	struct fs_path p;
	char *err = NULL;

	if (fs_path_parse(path, t->target, &p, &err))
		BUG("probe '%s' does not parse: %s", path, err);
	eval_fs(t, &p, op, d);
	fs_path_free(&p);
}

/*
 * explain's answer for the file @path names.  Both spellings of /tmp,
 * /var and /etc name one file, so the deciding row of higher priority
 * wins; *@spelling (caller frees) is the spelling it decided.
 */
static struct decision expect_fs(const struct table *t, const char *path,
				 enum fs_op op, char **spelling)
{
	struct decision d, d2;
	char *alias = alias_of(path);

	decide(t, path, op, &d);
	*spelling = xstrdup(path);
	if (alias) {
		decide(t, alias, op, &d2);
		if (d2.row && (!d.row || d2.row->prio < d.row->prio)) {
			d = d2;
			free(*spelling);
			*spelling = alias;
			alias = NULL;
		}
		free(alias);
	}
	return d;
}

/*
 * The profile's documented base allowances: device nodes that a table
 * leaving them to its default may still write (@op "file-write-data") or
 * ioctl ("file-ioctl").  Every program needs them (doc/targets.md).
 */
static bool base_device(const char *path, const char *op)
{
	static const char *const ioctl_nodes[] = {
		"/dev/null", "/dev/zero", "/dev/tty", "/dev/ptmx",
	};
	size_t i;

	for (i = 0; i < array_size(ioctl_nodes); i++)
		if (!strcmp(path, ioctl_nodes[i]))
			return true;
	if (!strncmp(path, "/dev/ttys", 9) && path[9] &&
	    strspn(path + 9, "0123456789") == strlen(path + 9))
		return true;
	if (strcmp(op, "file-write-data") != 0)
		return false;
	for (i = 0; i < array_size(std_links); i++)
		if (!strcmp(path, std_links[i]))
			return true;
	return !strncmp(path, "/dev/fd/", 8) && path[8] &&
	       strspn(path + 8, "0123456789") == strlen(path + 8);
}

/* ---- comparing one profile with explain ---- */

/**
 * struct verdicts - what one comparison found
 * @name: the table's label in messages
 * @wider: answers where the profile allows what explain refuses
 * @narrower: answers where the profile refuses what explain allows
 * @shown: wider answers printed so far (the first few are)
 */
struct verdicts {
	const char *name;
	unsigned wider;
	unsigned narrower;
	unsigned shown;
};

static __printf(3, 4) void judge(struct verdicts *v, int cmp,
				 const char *fmt, ...)
{
	va_list ap;

	if (cmp < 0) {
		v->narrower++;
		return;
	}
	if (cmp == 0)
		return;
	v->wider++;
	if (v->shown++ >= 4)
		return;
	printf("#   %s: wider than explain: ", v->name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* +1 when the profile allows what the table refuses, -1 the reverse. */
static int cmp(bool profile, bool table)
{
	return (int)profile - (int)table;
}

static void check_reads_writes(const struct tl_compiled *c,
			       const struct sbpl_profile *prof,
			       const char *path, struct verdicts *v)
{
	static const char *const write_ops[] = { "file-write-data",
						 "file-ioctl" };
	struct decision d;
	char *sp;
	bool got;
	size_t i;

	d = expect_fs(c->table, path, FS_READ, &sp);
	free(sp);
	sbpl_eval_path(prof, "file-read-data", path, &got);
	judge(v, cmp(got, d.allow), "read %s", path);

	d = expect_fs(c->table, path, FS_WRITE, &sp);
	free(sp);
	for (i = 0; i < array_size(write_ops); i++) {
		bool want = d.allow;

		sbpl_eval_path(prof, write_ops[i], path, &got);
		/* The base allowances apply where no row decides. */
		if (!d.row && base_device(path, write_ops[i]))
			want = want || got;
		/* ioctl is never granted beyond the base and rw rows. */
		if (!strcmp(write_ops[i], "file-ioctl") && !got)
			continue;
		judge(v, cmp(got, want), "%s %s", write_ops[i], path);
	}
	if (strncmp(path, "/dev/", 5) != 0) {
		got = sbpl_may_create(prof, path, SBPL_VNODE_REGULAR);
		judge(v, cmp(got, d.allow), "create %s", path);
	}
}

/* Leading segments of @row's pattern before its first "**". */
static uint32_t fixed_part(const struct row *row)
{
	uint32_t k;

	for (k = 0; k < row->fs.nsegs; k++)
		if (row->fs.segs[k].kind == SEG_STARSTAR)
			break;
	return k;
}

/*
 * The attacks on one ancestor @a of a path a ro or deny row decides:
 * renaming it away, renaming a prepared directory onto it, creating it
 * as a symbolic link.  Each carries the decided path out of the row or
 * plants content there: the table allows none of them.
 */
static void check_ancestor(const struct sbpl_profile *prof, const char *a,
			   const char *path, struct verdicts *v)
{
	judge(v, sbpl_may_unlink(prof, a, SBPL_VNODE_DIRECTORY),
	      "rename or remove %s, an ancestor of %s", a, path);
	judge(v, sbpl_may_create(prof, a, SBPL_VNODE_SYMLINK),
	      "create a symlink at %s, an ancestor of %s", a, path);
	judge(v, sbpl_may_create(prof, a, SBPL_VNODE_DIRECTORY),
	      "rename a directory onto %s, an ancestor of %s", a, path);
}

/* Where a child may move a directory to, or point a link at. */
static const char *const elsewhere[] = {
	"/srv/zz", "/tmp/zz", "/Users/Dev/zz", "/var/db/zz", "/zz",
};

/*
 * The attacks on an ancestor @a of @path (a path a ro or deny row
 * decides; @rest is @path below @a) through a place @dst elsewhere:
 * "mv @a @dst; write @dst/@rest; mv @dst @a", and "ln -s @dst @a; write
 * @a/@rest" (Seatbelt judges the resolved @dst/@rest).  Either gives
 * @path content the table refuses.  @dst inside @a is skipped.
 */
static void check_escape(const struct sbpl_profile *prof, const char *a,
			 const char *dst, const char *rest, const char *path,
			 struct verdicts *v)
{
	size_t alen = strlen(a);
	char *moved;

	if (!strncmp(dst, a, alen) && (dst[alen] == '/' || !dst[alen]))
		return;
	moved = xasprintf("%s%s", dst, rest);
	judge(v, sbpl_may_rename(prof, a, dst, SBPL_VNODE_DIRECTORY) &&
	      sbpl_may_rename(prof, dst, a, SBPL_VNODE_DIRECTORY) &&
	      dt_may_write(prof, moved),
	      "mv %s %s, write %s, move it back: %s changed", a, dst, moved,
	      path);
	judge(v, sbpl_may_create(prof, a, SBPL_VNODE_SYMLINK) &&
	      dt_may_write(prof, moved),
	      "ln -s %s %s, write %s%s: %s has content", dst, a, a, rest,
	      path);
	free(moved);
}

/* check_escape() for ancestor @a towards every place in reach. */
static void check_escapes(const struct sbpl_profile *prof, const char *a,
			  const char *rest, const char *path,
			  struct verdicts *v)
{
	const char *slash = strrchr(a, '/');
	char *sib = xasprintf("%.*s/zz", (int)(slash - a), a);
	char *deeper = xasprintf("%.*s/zz/q", (int)(slash - a), a);
	size_t i;

	check_escape(prof, a, sib, rest, path, v);
	check_escape(prof, a, deeper, rest, path, v);
	for (i = 0; i < array_size(elsewhere); i++)
		check_escape(prof, a, elsewhere[i], rest, path, v);
	free(deeper);
	free(sib);
}

static void check_ancestors(const struct tl_compiled *c,
			    const struct sbpl_profile *prof,
			    const char *path, struct verdicts *v)
{
	struct decision d;
	struct fs_path p;
	char *err = NULL, *sp = NULL;
	uint32_t k, fixed;

	d = expect_fs(c->table, path, FS_WRITE, &sp);
	if (d.allow || !d.row || d.row->effect == EFFECT_RW) {
		free(sp);
		return;
	}
	if (fs_path_parse(sp, c->table->target, &p, &err))
		BUG("probe '%s' does not parse: %s", sp, err);
	fixed = fixed_part(d.row);
	if (fixed >= d.row->fs.nsegs)
		fixed = d.row->fs.nsegs - 1;
	for (k = 1; k <= fixed && k < p.nsegs; k++) {
		struct strbuf b = { 0 };
		char *alias;
		uint32_t i;

		for (i = 0; i < k; i++) {
			strbuf_putc(&b, '/');
			strbuf_add(&b, p.segs[i].s, p.segs[i].len);
		}
		check_ancestor(prof, b.s, path, v);
		/*
		 * /tmp is a link anyone with rights on / could replace; the
		 * fdesc names under /dev are made by the kernel, and only
		 * their targets can hold a protected path.
		 */
		alias = private_alias_of(b.s);
		if (alias)
			check_ancestor(prof, alias, path, v);
		free(alias);
		free(b.s);
	}
	/* Every ancestor: moved out of the match and back, or a link. */
	for (k = 1; k < p.nsegs; k++) {
		struct strbuf b = { 0 }, r = { 0 };
		uint32_t i;

		for (i = 0; i < p.nsegs; i++) {
			strbuf_putc(i < k ? &b : &r, '/');
			strbuf_add(i < k ? &b : &r, p.segs[i].s,
				   p.segs[i].len);
		}
		check_escapes(prof, b.s, r.s, path, v);
		free(r.s);
		free(b.s);
	}
	fs_path_free(&p);
	free(sp);
}

static const struct sbpl_param params[] = {
	{ "VBOX_PROXY_HTTP_PORT", "40001" },
	{ "VBOX_PROXY_SOCKS_PORT", "40002" },
};
static const unsigned probe_ports[] = { 22, 80, 443, 40001, 40002 };
static const struct {
	const char *addr;
	const char *query;
} probe_addrs[] = {
	{ "127.0.0.1", "127.0.0.1" },
	{ "127.0.0.2", "127.0.0.2" },
	{ "::1", "[::1]" },
};

static void check_net(const struct tl_compiled *c,
		      const struct sbpl_profile *prof, struct verdicts *v)
{
	size_t i, j;
	bool got;

	for (i = 0; i < array_size(probe_addrs); i++) {
		for (j = 0; j < array_size(probe_ports); j++) {
			unsigned port = probe_ports[j];
			char *err = NULL, *text = xasprintf("%s:%u",
				probe_addrs[i].query, port);
			struct net_target q;
			struct decision d;
			bool want;

			if (net_query_parse(text, &q, &err))
				BUG("query '%s': %s", text, err);
			eval_net(c->table, &q, &d);
			net_target_free(&q);
			want = d.allow;
			sbpl_eval_remote(prof, "network-outbound",
					 probe_addrs[i].addr, port, params,
					 array_size(params), &got);
			/* The launcher's proxy ports sit above every row. */
			if (c->landing.nreserved && port >= 40001 &&
			    strcmp(probe_addrs[i].addr, "127.0.0.2") != 0)
				want = want || got;
			judge(v, cmp(got, want), "connect %s", text);
			free(text);
		}
	}
	/* Other hosts reach only the proxy in deny posture. */
	sbpl_eval_remote(prof, "network-outbound", "api.example.com", 443,
			 params, array_size(params), &got);
	judge(v, cmp(got, c->table->default_net == EFFECT_ALLOW),
	      "connect api.example.com:443 directly");
}

/*
 * Emit, check and compare one compiled table.  Returns 0 when nothing is
 * wider (*@v says what was found), -1 when the profile could not be
 * written or checked.
 */
static int compare(const struct tl_compiled *c, struct verdicts *v)
{
	struct sbpl_profile prof;
	struct strset probes = { 0 };
	char *text, *err = NULL;
	size_t len = 0, i;

	text = dt_emit(c, &len);
	if (!text) {
		diag("  %s: no profile written", v->name);
		return -1;
	}
	if (sbpl_parse(text, len, &prof, &err) || sbpl_check(&prof, &err)) {
		diag("  %s: checker: %s", v->name, err);
		free(err);
		free(text);
		return -1;
	}
	free(text);
	table_probes(&probes, c->table);
	for (i = 0; i < probes.n; i++) {
		check_reads_writes(c, &prof, probes.v[i], v);
		check_ancestors(c, &prof, probes.v[i], v);
	}
	check_net(c, &prof, v);
	strset_free(&probes);
	sbpl_profile_free(&prof);
	return 0;
}

static void print_table(const char *text)
{
	char *copy = xstrdup(text), *save = NULL, *line;

	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		diag("    %s", line);
	free(copy);
}

static unsigned long env_number(const char *name, unsigned long dflt,
				unsigned long max)
{
	const char *s = getenv(name);
	unsigned long n;
	char *end;

	if (!s || !*s)
		return dflt;
	errno = 0;
	n = strtoul(s, &end, 0);
	if (errno || *end || n > max)
		BUG("%s='%s': expected a number up to %lu", name, s, max);
	return n;
}

static void test_random_tables(void)
{
	unsigned long seed = env_number("VBOX_PROP_SEED", DEFAULT_SEED,
					UINT32_MAX);
	unsigned long ntables = env_number("VBOX_PROP_TABLES", DEFAULT_TABLES,
					   MAX_TABLES);
	unsigned long i, refused = 0, invalid = 0, narrow_tables = 0;
	unsigned long narrower = 0;

	diag("seed %lu, %lu tables (VBOX_PROP_SEED=%lu VBOX_PROP_TABLES=%lu "
	     "reproduce this run)", seed, ntables, seed, ntables);
	rng_state = seed;
	for (i = 0; i < ntables; i++) {
		char *text = gen_table(), *name;
		struct verdicts v = { 0 };
		struct tl_compiled c;
		int rc;

		name = xasprintf("seed %lu table %lu", seed, i);
		v.name = name;
		if (tl_compile(&c, text, "darwin", TL_CLASSIFY | TL_QUIET)) {
			/* A guardrail refused a generated pattern. */
			invalid++;
		} else if (c.classified) {
			refused++;
			if (!ok(tl_has_error(&c.diags, "is unsupported on darwin"),
				"%s: refused with a message naming the row",
				name))
				print_table(text);
		} else {
			rc = compare(&c, &v);
			if (!ok(!rc && !v.wider, "%s: no answer wider than "
				"explain (%u narrower)", name, v.narrower))
				print_table(text);
			narrower += v.narrower;
			narrow_tables += v.narrower > 0;
		}
		tl_compiled_free(&c);
		free(name);
		free(text);
	}
	diag("%lu tables refused on darwin (fail closed), %lu refused by the "
	     "guardrails; %lu narrower answers in %lu tables (allowed)",
	     refused, invalid, narrower, narrow_tables);
	ok(ntables - invalid - refused > ntables / 2,
	   "most random tables reach the comparison (%lu of %lu)",
	   ntables - invalid - refused, ntables);
}

int main(void)
{
	test_random_tables();
	return done_testing();
}
