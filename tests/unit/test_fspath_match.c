/* SPDX-License-Identifier: MIT */
/*
 * test_fspath_match.c - test_fspath's matching side: patterns against
 * queried paths (fs_match, fs_match_subtree) and their cost, query
 * parsing, coverage (fs_covers, proven and swept for soundness) and link
 * resolution (doc/rules.md §5 "Matching", §7 "Shadow analysis", §8
 * "Queries").  The targets' traits are test_fspath.c's (test_fspath_int.h).
 */
#include <vbox.h>

#include <errno.h>
#include <limits.h>
#include <unistd.h>
#include <sys/stat.h>

#include "diag.h"
#include "fspath.h"
#include "target.h"
#include "tap.h"
#include "test_fspath_int.h"

/* @fn(@pat, @path), both compiled for @t (a diagnostic when one fails). */
static bool match_by(const struct target_traits *t, const char *pat,
		     const char *path,
		     bool (*fn)(const struct fs_pattern *,
				const struct fs_path *))
{
	struct diag_list diags;
	struct fs_pattern p;
	struct fs_path q;
	char *err = NULL;
	bool m = false;

	diag_list_init(&diags);
	if (fs_pattern_compile(pat, true, NULL, t, &vs_unix, &p, &diags)) {
		diag("cannot compile '%s': %s", pat, diags.items[0].msg);
		diag_list_free(&diags);
		return false;
	}
	if (fs_path_parse(path, t, &q, &err)) {
		diag("cannot parse '%s': %s", path, err);
		free(err);
	} else {
		m = fn(&p, &q);
		fs_path_free(&q);
	}
	fs_pattern_free(&p);
	diag_list_free(&diags);
	return m;
}

static bool match(const struct target_traits *t, const char *pat,
		  const char *path)
{
	return match_by(t, pat, path, fs_match);
}

/* fs_match_subtree(), which never says yes where fs_match() says no. */
static bool subtree_checked(const struct fs_pattern *p, const struct fs_path *q)
{
	return fs_match_subtree(p, q) && fs_match(p, q);
}

/* Does @pat match @path and all below it (fs_match_subtree)? */
static bool match_subtree(const char *pat, const char *path)
{
	return match_by(&t_linux, pat, path, subtree_checked);
}

/*
 * The launcher skips a lower row's mount on a directory only where a
 * higher row decides the whole subtree (runtime/linux/mounts.c): a
 * pattern that matches the directory alone must say no.
 */
void test_match_subtree(void)
{
	static const struct {
		const char *pat, *path;
		bool want;
	} cases[] = {
		{ "/a/b", "/a/b", true },
		{ "/a", "/a/b", true },
		{ "/a/b/c", "/a/b", false },
		{ "/a/*", "/a/b", false },
		{ "/a/?", "/a/b", false },
		{ "/a/*/**", "/a/b", true },
		{ "/a/**", "/a/b/c", true },
		{ "/a/b/**", "/a/b", true },
		{ "/a/**/c", "/a/b", false },
		{ "/a/**/c", "/a/c", false },
		{ "/a/*/c/**", "/a/b/c/d", true },
		{ "/a/*/c/**", "/a/b/x", false },
		{ "/x/**", "/a/b", false },
		{ "**/b", "/a/b", false },
		{ "/a/b*", "/a/bc", false },
		{ "/a/b*/**", "/a/bc", true },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ok(match_subtree(cases[i].pat, cases[i].path) == cases[i].want,
		   "subtree: '%s' %s '%s' and all below it", cases[i].pat,
		   cases[i].want ? "matches" : "does not match",
		   cases[i].path);
}

#define MATCH(t, pat, path) \
	ok(match(t, pat, path), "%s: '%s' matches '%s'", (t)->name, pat, path)
#define NOMATCH(t, pat, path) \
	ok(!match(t, pat, path), "%s: '%s' does not match '%s'", (t)->name, \
	   pat, path)

void test_matching(void)
{
	/* The examples of doc/rules.md §5, "Matching". */
	MATCH(&t_linux, "/etc/ssh/**", "/etc/ssh");
	MATCH(&t_linux, "/etc/ssh/**", "/etc/ssh/sshd_config");
	MATCH(&t_linux, "/etc/ssh/**", "/etc/ssh/a/b/c");
	NOMATCH(&t_linux, "/etc/ssh/**", "/etc/sshd");
	NOMATCH(&t_linux, "/etc/ssh/**", "/etc");
	MATCH(&t_linux, "/home/*/.ssh", "/home/u/.ssh");
	NOMATCH(&t_linux, "/home/*/.ssh", "/home/u/.ssh/id_rsa");
	NOMATCH(&t_linux, "/home/*/.ssh", "/home/.ssh");
	MATCH(&t_linux, "/srv/work", "/srv/work");
	MATCH(&t_linux, "/srv/work", "/srv/work/a/b");
	NOMATCH(&t_linux, "/srv/work", "/srv/workshop");
	NOMATCH(&t_linux, "/srv/work", "/srv");
	MATCH(&t_linux, "**/.ssh/**", "/home/u/.ssh/id_rsa");
	MATCH(&t_linux, "**/.ssh/**", "/.ssh");
	NOMATCH(&t_linux, "**/.ssh/**", "/home/u/.sshx/id_rsa");
	MATCH(&t_linux, "/**/.ssh", "/a/b/.ssh");
	NOMATCH(&t_linux, "/**/.ssh", "/a/b/.ssh/x");

	/* '*' and '?' inside one segment; '**' inside a segment is '*'. */
	MATCH(&t_linux, "/srv/*.txt", "/srv/a.txt");
	MATCH(&t_linux, "/srv/*.txt", "/srv/.txt");
	NOMATCH(&t_linux, "/srv/*.txt", "/srv/a/b.txt");
	MATCH(&t_linux, "/srv/a*b*c", "/srv/aXbYbZc");
	NOMATCH(&t_linux, "/srv/a*b*c", "/srv/aXbYbZ");
	MATCH(&t_linux, "/srv/?", "/srv/x");
	NOMATCH(&t_linux, "/srv/?", "/srv/xy");
	MATCH(&t_linux, "/srv/f?o", "/srv/f\xc3\xa9o");
	MATCH(&t_linux, "/srv/?", "/srv/\xc3\xa9");
	NOMATCH(&t_linux, "/srv/??", "/srv/\xc3\xa9");
	MATCH(&t_linux, "/srv/??", "/srv/e\xcc\x81");
	MATCH(&t_linux, "/srv/?", "/srv/\xf0\x9f\x98\x80");
	MATCH(&t_linux, "/srv/*?", "/srv/\xe2\x82\xac");
	MATCH(&t_linux, "/srv/*x?", "/srv/ax\xc3\xa9");
	MATCH(&t_linux, "/srv/a**b/c", "/srv/aXYb/c");
	NOMATCH(&t_linux, "/srv/a**b/c", "/srv/aX/Yb/c");
	MATCH(&t_linux, "/srv/[ab]", "/srv/[ab]");
	NOMATCH(&t_linux, "/srv/[ab]", "/srv/a");
	MATCH(&t_linux, "/srv/**/*.o", "/srv/x.o");
	MATCH(&t_linux, "/srv/**/*.o", "/srv/a/b/x.o");
	NOMATCH(&t_linux, "/srv/**/*.o", "/srv/a/b/x.c");
	MATCH(&t_linux, "/a/**/b/**/c", "/a/b/c");
	MATCH(&t_linux, "/a/**/b/**/c", "/a/x/b/y/b/z/c");
	NOMATCH(&t_linux, "/a/**/b/**/c", "/a/x/c/b");

	/* Case: folded on darwin and windows, ASCII only. */
	NOMATCH(&t_linux, "/Srv/Work", "/srv/work/x");
	MATCH(&t_darwin, "/Srv/Work", "/srv/WORK/x");
	MATCH(&t_windows, "C:\\Users\\*\\Desktop", "c:/users/bob/DESKTOP");
	MATCH(&t_darwin, "/srv/*.TXT", "/SRV/a.txt");
	NOMATCH(&t_darwin, "/srv/\xc3\x89", "/srv/\xc3\xa9");
	NOMATCH(&t_linux, "/srv/*.TXT", "/srv/a.txt");

	/* Queries: wildcards are characters, no expansion. */
	MATCH(&t_linux, "/srv/*", "/srv/*");
	MATCH(&t_linux, "/srv/a*", "/srv/a*b");
	MATCH(&t_linux, "/srv/x", "/srv/y/../x/z");
}

void test_match_performance(void)
{
	struct diag_list diags;
	struct fs_pattern p;
	struct fs_path q;
	char path[2 * 600 + 8], seg[1200], pat[80], *err = NULL;
	bool m1, m2;
	int i;

	strcpy(path, "");
	for (i = 0; i < 600; i++)
		strcat(path, "/a");
	diag_list_init(&diags);
	if (fs_pattern_compile("/**/a/**/a/**/a/**/a/**/a/**/b", true, NULL,
			       &t_linux, &vs_unix, &p, &diags) ||
	    fs_path_parse(path, &t_linux, &q, &err)) {
		ok(0, "pathological pattern compiles");
		free(err);
		diag_list_free(&diags);
		return;
	}
	/* An exponential matcher would hang here; speed is for make bench. */
	m1 = fs_match(&p, &q);
	for (i = 0; i < 50; i++)
		m1 |= fs_match(&p, &q);
	fs_pattern_free(&p);
	fs_path_free(&q);
	memset(seg, 'a', sizeof(seg) - 1);
	seg[sizeof(seg) - 1] = '\0';
	strcpy(pat, "*a*a*a*a*a*a*a*a*a*a*b");
	m2 = fs_seg_glob_match(pat, strlen(pat), seg, strlen(seg));
	for (i = 0; i < 50; i++)
		m2 |= fs_seg_glob_match(pat, strlen(pat), seg, strlen(seg));
	ok(!m1 && !m2, "pathological patterns do not match");
	diag_list_free(&diags);
}

void test_queries(void)
{
	struct fs_path q;
	char *err = NULL;
	char big[5000];

	if (ok(!fs_path_parse("/Srv//./Work/../Out/", &t_darwin, &q, &err),
	       "darwin query parses")) {
		is_str(q.text, "/Srv/Out", "query cleaned, case kept");
		is_int(q.nsegs, 2, "two segments");
		is_str(q.segs[1].s, "out", "query segments folded");
		is_int(q.segs[0].kind, SEG_LIT, "query segments are literal");
		fs_path_free(&q);
	}
	if (ok(!fs_path_parse("/a/*/../b", &t_linux, &q, &err),
	       "'..' after '*' is fine in a query")) {
		is_str(q.text, "/a/b", "query wildcard is a character");
		fs_path_free(&q);
	}
	if (ok(!fs_path_parse("/", &t_linux, &q, &err), "'/' parses")) {
		is_str(q.text, "/", "root text");
		is_int(q.nsegs, 0, "root has no segments");
		fs_path_free(&q);
	}
	if (ok(!fs_path_parse("/../..", &t_linux, &q, &err),
	       "'..' above the root")) {
		is_str(q.text, "/", "stays at the root");
		fs_path_free(&q);
	}
	if (ok(!fs_path_parse("C:\\Users\\Bob", &t_windows, &q, &err),
	       "windows query parses")) {
		is_str(q.text, "/c/Users/Bob", "windows query canonical");
		is_str(q.segs[2].s, "bob", "windows query folded");
		fs_path_free(&q);
	}
	ok(fs_path_parse("~/x", &t_linux, &q, &err) && strstr(err, "expanded"),
	   "'~' is not expanded in queries");
	free(err);
	err = NULL;
	ok(fs_path_parse("$HOME/x", &t_linux, &q, &err) &&
	   strstr(err, "not absolute"), "variables are not expanded");
	free(err);
	err = NULL;
	ok(fs_path_parse("x/y", &t_linux, &q, &err), "relative query fails");
	free(err);
	err = NULL;
	ok(fs_path_parse("/data/x", &t_windows, &q, &err) &&
	   strstr(err, "not on a drive"), "windows query without drive");
	free(err);
	err = NULL;
	ok(fs_path_parse("\\\\srv\\share", &t_windows, &q, &err) &&
	   strstr(err, "UNC"), "windows UNC query");
	free(err);
	err = NULL;
	memset(big, 'a', sizeof(big) - 1);
	big[0] = '/';
	big[sizeof(big) - 1] = '\0';
	ok(fs_path_parse(big, &t_linux, &q, &err) && strstr(err, "too long"),
	   "overlong query is an error, not truncated");
	free(err);
	err = NULL;
	big[4096] = '\0';
	ok(fs_path_parse(big, &t_linux, &q, &err) && strstr(err, "too long"),
	   "4096-byte query is an error");
	free(err);
	err = NULL;
	big[4095] = '\0';
	if (ok(!fs_path_parse(big, &t_linux, &q, &err),
	       "4095-byte query parses"))
		fs_path_free(&q);
}

/* Patterns and probe paths for the fs_covers soundness sweep. */
static const char *const sweep_patterns[] = {
	"/srv", "/srv/work", "/srv/work/**", "/srv/work/*", "/srv/*/x",
	"/srv/*/**", "/srv/**/x", "/srv/**/x/**", "/srv/w*", "/srv/w*/**",
	"/srv/work/a", "/srv/work/a/**", "/srv/work/a/b", "/srv/?ork",
	"/srv/?ork/**", "/srv/**", "/srv/work/**/b", "/srv/*/a/**",
	"/srv/*/*", "/srv/*/*/**", "**/x", "**/x/**", "**/work/**",
	"**/a/b", "/etc", "/etc/ssh/**", "/etc/ssh", "/etc/*/**",
	"/etc/s*/**", "/etc/ss?", "/Srv/Work", "/srv/WORK/**", "/**/x",
	"/srv/x*y", "/srv/*y", "/srv/**/**", "/srv/work/**/**",
	"/srv/*/x/**", "/srv/work/*.c", "/srv/**/*.c",
};

static const char *const sweep_paths[] = {
	"/", "/srv", "/srv/work", "/srv/work/a", "/srv/work/a/b",
	"/srv/work/a/b/c", "/srv/work/b", "/srv/work/x", "/srv/work/x/y",
	"/srv/works", "/srv/wx", "/srv/w", "/srv/x", "/srv/x/x",
	"/srv/x/y", "/srv/xy", "/srv/xzy", "/srv/y", "/srv/fork",
	"/srv/fork/a", "/srv/a/x", "/srv/a/b/x", "/srv/a/x/y", "/srv/a/a",
	"/srv/a/a/b", "/srv/work/m.c", "/srv/work/d/m.c", "/srv/m.c",
	"/etc", "/etc/ssh", "/etc/ssh/k", "/etc/ssl", "/etc/sss",
	"/etc/sshd", "/etc/x", "/etc/x/y", "/x", "/x/y", "/a/x",
	"/a/b", "/q/a/b", "/q/work/z", "/work/z", "/SRV/WORK",
	"/Srv/Work/a", "/srv/WORK/a", "/srv/Work", "/srv/work/b/b",
	"/srv/work/a/x", "/srv/work/**", "/srv/*", "/srv/*/x",
	"/srv/\xc3\xa9ork", "/srv/w\xc3\xa9", "/etc/ssh/a/b/c",
	"/srv/x/a", "/srv/x/a/b", "/srv/work/x/b", "/srv/b/a", "/opt",
};

static void sweep(const struct target_traits *t)
{
	struct fs_pattern pats[array_size(sweep_patterns)];
	struct fs_path paths[array_size(sweep_paths)];
	bool m[array_size(sweep_patterns)][array_size(sweep_paths)];
	struct diag_list diags;
	size_t i, j, k, proven = 0, bad = 0;
	char *err = NULL;

	diag_list_init(&diags);
	for (i = 0; i < array_size(sweep_patterns); i++)
		if (fs_pattern_compile(sweep_patterns[i], true, NULL, t,
				       &vs_unix, &pats[i], &diags))
			BUG("sweep pattern '%s'", sweep_patterns[i]);
	for (j = 0; j < array_size(sweep_paths); j++)
		if (fs_path_parse(sweep_paths[j], t, &paths[j], &err))
			BUG("sweep path '%s': %s", sweep_paths[j], err);
	for (i = 0; i < array_size(sweep_patterns); i++)
		for (j = 0; j < array_size(sweep_paths); j++)
			m[i][j] = fs_match(&pats[i], &paths[j]);
	for (i = 0; i < array_size(sweep_patterns); i++) {
		for (k = 0; k < array_size(sweep_patterns); k++) {
			if (!fs_covers(&pats[i], &pats[k]))
				continue;
			proven++;
			for (j = 0; j < array_size(sweep_paths); j++) {
				if (m[k][j] && !m[i][j]) {
					bad++;
					diag("'%s' claimed to cover '%s' but "
					     "misses '%s'", sweep_patterns[i],
					     sweep_patterns[k],
					     sweep_paths[j]);
				}
			}
		}
	}
	is_int(bad, 0, "%s: fs_covers is sound over %zu x %zu patterns and "
	       "%zu paths (%zu proofs)", t->name, array_size(sweep_patterns),
	       array_size(sweep_patterns), array_size(sweep_paths), proven);
	ok(proven > 2 * array_size(sweep_patterns),
	   "%s: the sweep proves more than identity", t->name);
	for (i = 0; i < array_size(sweep_patterns); i++)
		fs_pattern_free(&pats[i]);
	for (j = 0; j < array_size(sweep_paths); j++)
		fs_path_free(&paths[j]);
	diag_list_free(&diags);
}

static bool covers(const struct target_traits *t, const char *outer,
		   const char *inner)
{
	struct diag_list diags;
	struct fs_pattern a, b;
	bool c;

	diag_list_init(&diags);
	if (fs_pattern_compile(outer, true, NULL, t, &vs_unix, &a, &diags))
		BUG("covers: '%s'", outer);
	if (fs_pattern_compile(inner, true, NULL, t, &vs_unix, &b, &diags))
		BUG("covers: '%s'", inner);
	c = fs_covers(&a, &b);
	fs_pattern_free(&a);
	fs_pattern_free(&b);
	diag_list_free(&diags);
	return c;
}

#define COVERS(t, a, b) \
	ok(covers(t, a, b), "%s: '%s' covers '%s'", (t)->name, a, b)
#define NOT_COVERS(t, a, b) \
	ok(!covers(t, a, b), "%s: '%s' is not proven to cover '%s'", \
	   (t)->name, a, b)

void test_covers(void)
{
	/* doc/rules.md §7 "Shadow analysis": the cases that must be proven. */
	COVERS(&t_linux, "/srv/work/secret", "/srv/work/secret");
	COVERS(&t_linux, "/srv/*/x", "/srv/*/x");
	COVERS(&t_linux, "/srv/work/**", "/srv/work");
	COVERS(&t_linux, "/srv/work/**", "/srv/work/secret");
	COVERS(&t_linux, "/srv/work/**", "/srv/work/a/*.c");
	COVERS(&t_linux, "/srv/work", "/srv/work/secret");
	COVERS(&t_linux, "/srv/work", "/srv/work/**");
	COVERS(&t_linux, "/srv/work", "/srv/work/*/x");
	/* More that soundness allows. */
	COVERS(&t_linux, "/srv/*/**", "/srv/work/x");
	COVERS(&t_linux, "/srv/w*/**", "/srv/work");
	COVERS(&t_linux, "/srv/*", "/srv/w*");
	COVERS(&t_linux, "**/.ssh/**", "**/.ssh/id_rsa");
	COVERS(&t_linux, "/**/x", "**/x");
	COVERS(&t_darwin, "/Srv/Work", "/srv/work/a");
	NOT_COVERS(&t_linux, "/Srv/Work", "/srv/work/a");
	NOT_COVERS(&t_linux, "/srv/work/**", "/srv");
	NOT_COVERS(&t_linux, "/srv/work", "/srv");
	NOT_COVERS(&t_linux, "/srv/*/x", "/srv/work/x/y");
	NOT_COVERS(&t_linux, "/srv/*", "/srv/work");
	NOT_COVERS(&t_linux, "/srv/w*", "/srv/*");
	NOT_COVERS(&t_linux, "/srv/*", "/srv/**");
	NOT_COVERS(&t_linux, "/srv/work/*", "/srv/work");
	sweep(&t_linux);
	sweep(&t_darwin);
}

void test_resolve(void)
{
	char tmpl[] = "/tmp/test_fspath.XXXXXX", base[PATH_MAX];
	char *dir, *p, *got, *want;
	FILE *f;

	dir = mkdtemp(tmpl);
	if (!ok(dir && realpath(dir, base), "temporary directory"))
		return;
	p = xasprintf("%s/real", base);
	ok(mkdir(p, 0700) == 0, "mkdir real");
	free(p);
	p = xasprintf("%s/real/f", base);
	f = fopen(p, "w");
	ok(f && fclose(f) == 0, "create real/f");
	free(p);
	p = xasprintf("%s/link", base);
	ok(symlink("real", p) == 0, "symlink link -> real");
	free(p);
	p = xasprintf("%s/link/f", base);
	got = fs_path_resolve(p, true);
	want = xasprintf("%s/real/f", base);
	is_str(got, want, "follow resolves a link in the middle");
	free(got);
	got = fs_path_resolve(p, false);
	is_str(got, want, "no-follow resolves the parent chain");
	free(got);
	free(want);
	free(p);
	p = xasprintf("%s/link", base);
	got = fs_path_resolve(p, false);
	is_str(got, p, "no-follow keeps the last component");
	free(got);
	got = fs_path_resolve(p, true);
	want = xasprintf("%s/real", base);
	is_str(got, want, "follow resolves the last component");
	free(got);
	free(want);
	free(p);
	p = xasprintf("%s/link/nope/x", base);
	got = fs_path_resolve(p, true);
	want = xasprintf("%s/real/nope/x", base);
	is_str(got, want, "missing rest is appended");
	free(got);
	free(want);
	free(p);
	p = xasprintf("%s/real/f/x", base);
	got = fs_path_resolve(p, true);
	is_str(got, p, "a file used as a directory stays lexical");
	free(got);
	free(p);
	got = fs_path_resolve("/", true);
	is_str(got, "/", "root resolves to itself");
	free(got);
	got = fs_path_resolve("/nonexistent-vbox-test/a", false);
	is_str(got, "/nonexistent-vbox-test/a", "missing top level");
	free(got);
	got = fs_path_resolve("relative", true);
	ok(!got && errno == EINVAL, "relative path is refused");
	p = xasprintf("%s/real/f", base);
	unlink(p);
	free(p);
	p = xasprintf("%s/link", base);
	unlink(p);
	free(p);
	p = xasprintf("%s/real", base);
	rmdir(p);
	free(p);
	rmdir(base);
}
