/* SPDX-License-Identifier: MIT */
/*
 * test_darwin.c - the darwin target without macOS.
 *
 * (a) every profile (each testdata/ok_*.rules case for darwin, and the
 *     policies here) passes the SBPL checker in sbpl_check.c;
 * (b) the path filters written for a pattern match exactly the probe
 *     paths fs_match() matches (case folding and UTF-8 '?' included);
 * (c) interpreting the emitted profile the way Seatbelt does -- the last
 *     matching rule wins -- gives eval_fs()'s answer for read and write
 *     on every probe path, and eval_net()'s for loopback ports: the
 *     profile enforces the table;
 * (d) the output is deterministic, and the classification refuses what
 *     Seatbelt cannot hold.
 *
 * The classification, the policies with levels and every testdata/ case
 * are in test_darwin_policies.c (test_darwin_int.h).
 */
#include <vbox.h>

#include <stdio.h>

#include "diag.h"
#include "emit.h"
#include "eval.h"
#include "fspath.h"
#include "ir.h"
#include "netaddr.h"
#include "sbpl.h"
#include "sbpl_check.h"
#include "target.h"
#include "tap.h"
#include "test_darwin_int.h"
#include "testlib.h"

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

/* ---- compiling a policy ---- */

int compile_text(struct tl_compiled *c, const char *text)
{
	return tl_compile(c, text, "darwin", TL_CLASSIFY);
}

/* The profile as a string (caller frees), or NULL when emitting failed. */
char *emit(const struct tl_compiled *c, size_t *len,
	   struct diag_list *diags)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	int rc;

	if (!f)
		BUG("open_memstream failed");
	rc = emitter_darwin.emit_profile(c->table, &c->landing, f, diags);
	if (fclose(f) || rc) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* ---- probe paths ---- */

static const char *const star_fills[] = {
	"", "z", "\xc3\xa9", "Zq.x", "[a]", "k*",
};
static const char *const qmark_fills[] = {
	"q", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "", "qq", "Q",
	".",
};
static const char *const starstar_fills[] = { NULL, "k", "k/L" };

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

static char *swap_case(const char *s, bool first_only)
{
	char *out = xstrdup(s), *p;

	for (p = out; *p; p++) {
		if (*p >= 'a' && *p <= 'z')
			*p = (char)(*p - 'a' + 'A');
		else if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
		else
			continue;
		if (first_only)
			break;
	}
	return out;
}

/* A path and its neighbours: children, ancestors, siblings, case. */
static void add_neighbours(struct strset *set, const char *path)
{
	char *t, *slash;

	add_clean(set, path);
	t = xasprintf("%s/c", path);
	add_clean(set, t);
	free(t);
	t = xasprintf("%s/C/d", path);
	add_clean(set, t);
	free(t);
	t = xasprintf("%sx", path);
	add_clean(set, t);
	free(t);
	t = swap_case(path, false);
	add_clean(set, t);
	free(t);
	t = swap_case(path, true);
	add_clean(set, t);
	free(t);
	t = xasprintf("/private%s", path);
	add_clean(set, t);
	free(t);
	if (!strncmp(path, "/private/", 9))
		add_clean(set, path + 8);
	/* Every ancestor: the guards of deny rows live there. */
	t = xstrdup(path);
	while ((slash = strrchr(t, '/')) && slash != t) {
		*slash = '\0';
		add_clean(set, t);
	}
	free(t);
}

/* One pattern segment with its wildcards filled in, variant @v. */
static char *fill_segment(const char *part, unsigned v)
{
	char *seg = xstrdup(""), *next;
	const char *p, *fill;
	char one[2] = { 0, 0 };
	unsigned w;

	for (p = part, w = 0; *p; p++, w++) {
		if (*p == '*') {
			while (p[1] == '*')
				p++;
			fill = star_fills[(v + w) % array_size(star_fills)];
		} else if (*p == '?') {
			fill = qmark_fills[(v + w) % array_size(qmark_fills)];
		} else {
			one[0] = *p;
			fill = one;
		}
		next = xasprintf("%s%s", seg, fill);
		free(seg);
		seg = next;
	}
	return seg;
}

/*
 * Concrete paths a pattern (as written in its text) matches, or nearly
 * matches: each wildcard filled in several ways, some of which miss.
 */
static void add_pattern_probes(struct strset *set, const char *text)
{
	unsigned v, j;

	for (v = 0; v < 8; v++) {
		char *copy = xstrdup(text), *save = NULL, *part, *path, *next;

		path = xstrdup("");
		for (part = strtok_r(copy, "/", &save), j = 0; part;
		     part = strtok_r(NULL, "/", &save), j++) {
			char *seg;

			if (!strcmp(part, "**")) {
				const char *fill = starstar_fills[(v + j) %
					array_size(starstar_fills)];

				if (!fill)
					continue;
				seg = xstrdup(fill);
			} else {
				seg = fill_segment(part, v + j);
			}
			next = xasprintf("%s/%s", path, seg);
			free(seg);
			free(path);
			path = next;
		}
		add_neighbours(set, *path ? path : "/");
		free(path);
		free(copy);
	}
}

static const char *const fixed_probes[] = {
	"/", "/srv", "/tmp", "/private", "/private/tmp", "/private/var",
	"/etc", "/var", "/home", "/home/tester", "/Users", "/private/etc/x",
	"/tmp/x", "/var/x/y",
};

static void table_probes(struct strset *set, const struct table *t)
{
	size_t i;

	for (i = 0; i < array_size(fixed_probes); i++)
		add_neighbours(set, fixed_probes[i]);
	for (i = 0; i < t->fs.n; i++)
		add_pattern_probes(set, t->fs.order[i]->fs.text);
}

/* ---- what the table says, both spellings of /tmp, /var, /etc ---- */

static bool seg_is(const char *s, size_t len, const char *name)
{
	size_t i;

	if (len != strlen(name))
		return false;
	for (i = 0; i < len; i++) {
		char c = s[i];

		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (c != name[i])
			return false;
	}
	return true;
}

static bool link_name(const char *s, size_t len)
{
	return seg_is(s, len, "tmp") || seg_is(s, len, "var") ||
	       seg_is(s, len, "etc");
}

/* The end of the segment starting at @s. */
static const char *seg_end(const char *s)
{
	return s + strcspn(s, "/");
}

/* The other spelling of @path ("/tmp/x" <-> "/private/tmp/x"), or NULL. */
static char *alias_of(const char *path)
{
	const char *s1 = path + 1, *e1 = seg_end(s1), *s2, *e2;

	if (link_name(s1, (size_t)(e1 - s1)))
		return xasprintf("/private%s", path);
	if (!seg_is(s1, (size_t)(e1 - s1), "private") || !*e1)
		return NULL;
	s2 = e1 + 1;
	e2 = seg_end(s2);
	if (link_name(s2, (size_t)(e2 - s2)))
		return xstrdup(e1);
	return NULL;
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
 * The table's answer for the file both spellings name: the deciding row
 * of higher priority wins (the profile writes each row in both).
 */
static bool expect_fs(const struct table *t, const char *path, enum fs_op op)
{
	struct decision d, d2;
	char *alias = alias_of(path);

	decide(t, path, op, &d);
	if (alias) {
		decide(t, alias, op, &d2);
		if (d2.row && (!d.row || d2.row->prio < d.row->prio))
			d = d2;
		free(alias);
	}
	return d.allow;
}

static bool seg_matches(const struct seg *ps, const char *s, size_t len)
{
	if (ps->kind == SEG_LIT)
		return ps->len == len && memcmp(ps->s, s, len) == 0;
	return fs_seg_glob_match(ps->s, ps->len, s, len);
}

/*
 * Is @path a proper ancestor, by its first k segments before any "**",
 * of what @row matches?  (@path's segments are folded like the row's.)
 */
static bool ancestor_instance(const struct row *row, const char *path)
{
	struct fs_path p;
	char *err = NULL;
	bool hit = false;
	uint32_t k;

	if (fs_path_parse(path, target_lookup("darwin"), &p, &err)) {
		free(err);
		return false;
	}
	if (p.nsegs >= 1 && p.nsegs < row->fs.nsegs) {
		hit = true;
		for (k = 0; k < p.nsegs && hit; k++)
			hit = row->fs.segs[k].kind != SEG_STARSTAR &&
			      seg_matches(&row->fs.segs[k], p.segs[k].s,
					  p.segs[k].len);
	}
	fs_path_free(&p);
	return hit;
}

/* Does a live ro or deny row guard @path against every write? */
static bool guarded(const struct tl_compiled *c, const char *path)
{
	char *alias = alias_of(path);
	bool hit = false;
	size_t i;

	for (i = 0; i < c->table->fs.n && !hit; i++) {
		const struct row *r = c->table->fs.order[i];

		if (r->effect == EFFECT_RW ||
		    c->landing.fs[i].kind != LANDING_KERNEL)
			continue;
		hit = ancestor_instance(r, path) ||
		      (alias && ancestor_instance(r, alias));
		/* "/private" is above the /private spelling of /tmp/... */
		if (!hit && seg_is(path + 1, strlen(path + 1), "private") &&
		    r->fs.nsegs >= 1 && r->fs.segs[0].kind != SEG_STARSTAR)
			hit = seg_matches(&r->fs.segs[0], "tmp", 3) ||
			      seg_matches(&r->fs.segs[0], "var", 3) ||
			      seg_matches(&r->fs.segs[0], "etc", 3);
	}
	free(alias);
	return hit;
}

/* ---- (a), (c), (d) on one policy ---- */

static const struct sbpl_param params[] = {
	{ "VBOX_PROXY_HTTP_PORT", "40001" },
	{ "VBOX_PROXY_SOCKS_PORT", "40002" },
};
static const unsigned probe_ports[] = {
	1, 22, 80, 443, 5432, 8080, 9000, 40001, 40002, 65535,
};

static void check_net(const struct tl_compiled *c, struct sbpl_profile *prof,
		      const char *name)
{
	unsigned bad = 0;
	size_t i;
	bool got;

	for (i = 0; i < array_size(probe_ports); i++) {
		struct net_target q;
		struct decision d;
		char *err = NULL, *text = xasprintf("localhost:%u",
						    probe_ports[i]);
		bool want;

		if (net_query_parse(text, &q, &err))
			BUG("query '%s': %s", text, err);
		eval_net(c->table, &q, &d);
		want = d.allow;
		/* The reserved proxy ports sit above every row. */
		if (c->landing.nreserved &&
		    (probe_ports[i] == 40001 || probe_ports[i] == 40002))
			want = true;
		sbpl_eval_remote(prof, "network-outbound", "127.0.0.1",
				 probe_ports[i], params, array_size(params),
				 &got);
		if (got != want && bad++ < 3)
			diag("  %s: connect %s: profile %d, table %d", name,
			     text, got, want);
		net_target_free(&q);
		free(text);
	}
	/* Other hosts: the kernel allows them only in open posture. */
	sbpl_eval_remote(prof, "network-outbound", "api.example.com", 443,
			 params, array_size(params), &got);
	if (got != (c->table->default_net == EFFECT_ALLOW) && bad++ < 3)
		diag("  %s: connect example.com:443: profile %d", name, got);
	ok(!bad, "%s: loopback connections decided as the table decides",
	   name);
}

static void check_order(const struct tl_compiled *c, struct sbpl_profile *prof,
			const char *name)
{
	unsigned bad[3] = { 0, 0, 0 };
	struct strset probes = { 0 };
	size_t i;

	table_probes(&probes, c->table);
	for (i = 0; i < probes.n; i++) {
		const char *p = probes.v[i];
		bool got, want, w;

		/* The base allowances of /dev are documented exceptions. */
		if (!strncmp(p, "/dev/", 5))
			continue;
		want = expect_fs(c->table, p, FS_READ);
		sbpl_eval_path(prof, "file-read-data", p, &got);
		if (got != want && bad[0]++ < 3)
			diag("  %s: read %s: profile %d, table %d", name, p,
			     got, want);
		/* Ancestors of ro and deny rows are never written. */
		w = expect_fs(c->table, p, FS_WRITE) && !guarded(c, p);
		sbpl_eval_path(prof, "file-write-data", p, &got);
		if (got != w && bad[1]++ < 3)
			diag("  %s: write %s: profile %d, table %d", name, p,
			     got, w);
		want = w;
		sbpl_eval_path(prof, "file-write-unlink", p, &got);
		if (got != want && bad[2]++ < 3)
			diag("  %s: unlink %s: profile %d, want %d", name, p,
			     got, want);
	}
	ok(!bad[0], "%s: reads decided as the table decides (%zu probes)",
	   name, probes.n);
	ok(!bad[1], "%s: writes decided as the table decides, ancestors of "
	   "ro and deny rows guarded", name);
	ok(!bad[2], "%s: unlink decided as the table decides, ancestors of "
	   "ro and deny rows guarded", name);
	strset_free(&probes);
}

/* Emit, check, interpret; returns the profile (caller frees) or NULL. */
char *check_policy(const struct tl_compiled *c, const char *name)
{
	struct sbpl_profile prof;
	struct diag_list diags;
	char *a, *b, *err = NULL;
	size_t alen = 0, blen = 0;

	diag_list_init(&diags);
	a = emit(c, &alen, &diags);
	b = emit(c, &blen, &diags);
	if (!ok(a && b, "%s: profile written", name)) {
		diag_print(stdout, &diags, "# test");
		diag_list_free(&diags);
		free(a);
		free(b);
		return NULL;
	}
	diag_list_free(&diags);
	ok(alen == blen && !memcmp(a, b, alen), "%s: deterministic output",
	   name);
	free(b);
	if (!ok(!sbpl_parse(a, alen, &prof, &err) && !sbpl_check(&prof, &err),
		"%s: the SBPL checker accepts the profile", name)) {
		diag("  %s", err);
		free(err);
		sbpl_profile_free(&prof);
		return a;
	}
	check_order(c, &prof, name);
	check_net(c, &prof, name);
	sbpl_profile_free(&prof);
	return a;
}

/* ---- (b) path filters against fs_match ---- */

static const char *const filter_patterns[] = {
	"/srv/work",
	"/srv/work/**",
	"/srv/*.pem",
	"/srv/?",
	"/srv/??",
	"/srv/a?c",
	"/home/*/.ssh",
	"**/.ssh/**",
	"**/.env",
	"**/a/**/b",
	"/a/**/b",
	"/a/**/**/b",
	"/a/**/b/**",
	"/a/*/**",
	"/x/a*b*c",
	"/x/***",
	"/x/a**b",
	"/srv/[abc]",
	"/srv/a.b+c(d)|e^f{h}$",
	"/srv/a.b+c(d)|e^f{h}$/*[x]",
	"/srv/back\\slash",
	"/srv/\"quoted\"",
	"/Users/Alice/Secret",
	"/srv/\xc3\x84",
	"/srv/\xc3\xa9?",
	"/srv/?\xe2\x82\xac*",
	"/tmp/x",
	"/etc/ssh/**",
	"/var/log/*.gz",
	"/srv/x y",
	"/1/2/3",
	"/1/*/3",
};

/* The filter's text parsed back by the checker (through the escapes). */
static struct sbpl_node *filter_node(const struct sbpl_filter *f,
				     struct sbpl_profile *prof)
{
	char *buf = NULL, *err = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		BUG("open_memstream failed");
	sbpl_filter_write(m, f);
	if (fclose(m))
		BUG("fclose failed");
	if (sbpl_parse(buf, len, prof, &err) || prof->nforms != 1 ||
	    sbpl_filter_compile(prof->forms[0], &err)) {
		diag("  filter %s: %s", buf, err ? err : "not one form");
		free(err);
		free(buf);
		return NULL;
	}
	free(buf);
	return prof->forms[0];
}

static void check_filters(const char *target)
{
	const struct target_traits *t = target_lookup(target);
	struct var_source vars = { .environ = tl_environ };
	struct strset probes = { 0 };
	size_t i, j;

	for (i = 0; i < array_size(fixed_probes); i++)
		add_neighbours(&probes, fixed_probes[i]);
	for (i = 0; i < array_size(filter_patterns); i++)
		add_pattern_probes(&probes, filter_patterns[i]);
	for (i = 0; i < array_size(filter_patterns); i++) {
		struct diag_list diags;
		struct sbpl_profile prof = { 0 };
		struct sbpl_filter f;
		struct sbpl_node *node;
		struct fs_pattern pat;
		unsigned bad = 0, hits = 0;

		diag_list_init(&diags);
		if (fs_pattern_compile(filter_patterns[i], true, NULL, t, &vars,
				       &pat, &diags)) {
			ok(0, "%s: pattern '%s' compiles", target,
			   filter_patterns[i]);
			diag_list_free(&diags);
			continue;
		}
		diag_list_free(&diags);
		sbpl_filter_make(&f, pat.segs, pat.nsegs, !pat.wild,
				 t->fold_case);
		node = filter_node(&f, &prof);
		for (j = 0; node && j < probes.n; j++) {
			struct fs_path p;
			char *err = NULL;
			bool want, got;

			if (fs_path_parse(probes.v[j], t, &p, &err)) {
				free(err);
				continue;
			}
			want = fs_match(&pat, &p);
			got = sbpl_filter_matches_path(node, p.text);
			hits += want;
			if (want != got && bad++ < 3)
				diag("  %s %s: fs_match %d, filter %d",
				     f.value, p.text, want, got);
			fs_path_free(&p);
		}
		ok(node && !bad && hits,
		   "%s: %s filter for '%s' matches exactly what fs_match "
		   "matches (%u of %zu probes)", target,
		   sbpl_filter_kind_name(f.kind), filter_patterns[i], hits,
		   probes.n);
		ok(sbpl_filter_kind_of(pat.segs, pat.nsegs, !pat.wild,
				       t->fold_case) == f.kind &&
		   sbpl_filter_bound(pat.segs, pat.nsegs) >= f.written,
		   "%s: '%s': the counted kind and bound (%zu) hold the "
		   "filter (%zu bytes)", target, filter_patterns[i],
		   sbpl_filter_bound(pat.segs, pat.nsegs), f.written);
		sbpl_profile_free(&prof);
		sbpl_filter_free(&f);
		fs_pattern_free(&pat);
	}
	strset_free(&probes);
}

/* ---- the helpers' exact output ---- */

static char *filter_text(const char *pattern, const char *target)
{
	const struct target_traits *t = target_lookup(target);
	struct var_source vars = { .environ = tl_environ };
	struct diag_list diags;
	struct sbpl_filter f;
	struct fs_pattern pat;
	char *buf = NULL;
	size_t len = 0;
	FILE *m;

	diag_list_init(&diags);
	if (fs_pattern_compile(pattern, true, NULL, t, &vars, &pat, &diags)) {
		diag_list_free(&diags);
		return xstrdup("(error)");
	}
	diag_list_free(&diags);
	sbpl_filter_make(&f, pat.segs, pat.nsegs, !pat.wild, t->fold_case);
	m = open_memstream(&buf, &len);
	if (!m)
		BUG("open_memstream failed");
	sbpl_filter_write(m, &f);
	if (fclose(m))
		BUG("fclose failed");
	sbpl_filter_free(&f);
	fs_pattern_free(&pat);
	return buf;
}

#define IS_FILTER(pattern, target, want) \
	do { char *f_ = filter_text(pattern, target); \
	     is_str(f_, want, "%s filter for '%s'", target, pattern); \
	     free(f_); } while (0)

static void test_helpers(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m;

	m = open_memstream(&buf, &len);
	if (!m)
		BUG("open_memstream failed");
	sbpl_write_string(m, "a\"b\\c\n\xc3\xa9", 8);
	sbpl_write_comment(m, "x\n(allow default)");
	if (fclose(m))
		BUG("fclose failed");
	is_str(buf, "\"a\\\"b\\\\c\\x0a\\xc3\\xa9\";; x\\x0a(allow default)\n",
	       "strings escape quotes, backslashes and non-ASCII; comments "
	       "cannot be ended by a newline");
	is_int(sbpl_string_size("a\"b\\c\n\xc3\xa9", 8), 19,
	       "sbpl_string_size counts the escapes");
	free(buf);

	IS_FILTER("/srv/work", "linux", "(subpath \"/srv/work\")");
	IS_FILTER("/srv/work/**", "linux", "(regex \"^/srv/work(/.*)?$\")");
	IS_FILTER("/srv/*.pem", "linux", "(regex \"^/srv/[^/]*\\\\.pem$\")");
	IS_FILTER("/a/**/**/b", "linux", "(regex \"^/a(/.*)?/b$\")");
	IS_FILTER("**/.ssh/**", "linux",
		  "(regex \"^(/.*)?/\\\\.ssh(/.*)?$\")");
	IS_FILTER("/x/*", "linux", "(regex \"^/x/[^/]+$\")");
	IS_FILTER("/v/?", "linux",
		  "(regex \"^/v/[^/\\x80-\\xbf][\\x80-\\xbf]*$\")");
	IS_FILTER("/m/a+(b)|$", "linux", "(subpath \"/m/a+(b)|$\")");
	IS_FILTER("/m/a+(b)|{.}^$*", "linux",
		  "(regex \"^/m/a\\\\+\\\\(b\\\\)\\\\|\\\\{\\\\.\\\\}"
		  "\\\\^\\\\$[^/]*$\")");
	IS_FILTER("/Srv/X", "darwin",
		  "(regex \"^/[sS][rR][vV]/[xX](/.*)?$\")");
	IS_FILTER("/1/2", "darwin", "(subpath \"/1/2\")");
	IS_FILTER("/1/*", "darwin", "(regex \"^/1/[^/]+$\")");
}

/* ---- the checker itself refuses what the emitter must never write ---- */

static const struct {
	const char *text;
	const char *error;
} bad_profiles[] = {
	{ "(deny default)\n", "(version 1)" },
	{ "(version 1)\n(allow default)\n", "(deny default)" },
	{ "(version 1)\n(deny default)\n(allow file-read*\n", "never closed" },
	{ "(version 1)\n(deny default))\n", "closes nothing" },
	{ "(version 1)\n(deny default)\n(allow file-reed*)\n",
	  "unknown operation" },
	{ "(version 1)\n(deny default)\n(allow default)\n",
	  "unknown operation 'default'" },
	{ "(version 1)\n(deny default)\n(allow file-read* (glob \"/x\"))\n",
	  "unknown filter" },
	{ "(version 1)\n(deny default)\n(allow file-read* (literal \"x\"))\n",
	  "clean absolute path" },
	{ "(version 1)\n(deny default)\n(allow file-read* (regex \"/x\"))\n",
	  "not anchored" },
	{ "(version 1)\n(deny default)\n"
	  "(allow file-read* (regex \"^/x\\\\$\"))\n", "not anchored" },
	{ "(version 1)\n(deny default)\n(allow file-read* (regex \"^/(x$\"))\n",
	  "does not compile" },
	{ "(version 1)\n(deny default)\n"
	  "(allow file-read* (literal \"/\\q\"))\n", "unknown escape" },
	{ "(version 1)\n(deny default)\n"
	  "(allow file-read* (literal \"/\\x0\"))\n", "two hex digits" },
	{ "(version 1)\n(deny default)\n(allow file-read* (literal \"/x))\n",
	  "unterminated" },
	{ "(version 1)\n(deny default)\n(allow network-outbound "
	  "(literal \"/x\"))\n", "does not take filter" },
	{ "(version 1)\n(deny default)\n(allow network-outbound "
	  "(remote ip \"example.com:443\"))\n", "HOST:PORT" },
	{ "(version 1)\n(deny default)\n(allow network-outbound "
	  "(remote ip (param \"lower\")))\n", "bad parameter name" },
	{ "(version 1)\n(deny default)\n(allow file-read* (literal \"/x\") "
	  "file-write*)\n", "after a filter" },
	{ "(version 1)\n\t(deny default)\n", "printable ASCII" },
	{ "(version 1)\n(deny default)\n#\"x\"\n", "unexpected '#'" },
};

static void test_checker(void)
{
	struct sbpl_profile prof;
	char *text, *long_path, *err = NULL;
	size_t i;

	for (i = 0; i < array_size(bad_profiles); i++) {
		const char *t = bad_profiles[i].text;
		int rc = sbpl_parse(t, strlen(t), &prof, &err);

		if (!rc)
			rc = sbpl_check(&prof, &err);
		ok(rc && err && strstr(err, bad_profiles[i].error),
		   "checker refuses bad profile %zu: %s", i,
		   err ? err : "(accepted)");
		free(err);
		err = NULL;
		sbpl_profile_free(&prof);
	}
	long_path = xmalloc(1002);
	long_path[0] = '/';
	memset(long_path + 1, 'a', 1000);
	long_path[1001] = '\0';
	text = xasprintf("(version 1)\n(deny default)\n"
			 "(allow file-read* (literal \"%s\"))\n", long_path);
	ok(!sbpl_parse(text, strlen(text), &prof, &err) &&
	   sbpl_check(&prof, &err) && strstr(err, "limit 1000"),
	   "checker refuses a string over 1000 bytes");
	free(err);
	sbpl_profile_free(&prof);
	free(text);
	free(long_path);
}

int main(void)
{
	test_helpers();
	test_checker();
	check_filters("darwin");
	check_filters("linux");
	test_long_strings();
	test_landings();
	test_policies();
	test_injection();
	test_cases();
	return done_testing();
}
