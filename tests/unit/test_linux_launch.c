/* SPDX-License-Identifier: MIT */
/*
 * test_linux_launch.c - test_linux's launch cases: the launch-time
 * instantiation against a real temporary tree (holes, placeholders, the
 * writable default, refused artifacts), the artifact's decoding, and
 * glob expansion and its bounds.  test_linux.c's main() makes the tree
 * and runs them; the driver of tests/cli/bwrap_diff.sh uses instantiate().
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ir.h"
#include "glob.h"
#include "linux.h"
#include "linux_artifact.h"
#include "mounts.h"
#include "sandbox.h"
#include "tap.h"
#include "test_linux_int.h"
#include "wire.h"
#include "testlib.h"

/* ------------------------------------------------------------------ */
/* launch-time instantiation against a temporary tree */

char tree[256];

static void mk(const char *rel, bool dir)
{
	char *p = xasprintf("%s/%s", tree, rel);
	int fd;

	if (dir) {
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			diag("mkdir %s: %s", p, strerror(errno));
	} else {
		fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			diag("create %s: %s", p, strerror(errno));
		else
			close(fd);
	}
	free(p);
}

/* Replace every "@" before a '/' in @s by the tree's path. */
static char *at(const char *s)
{
	size_t n = 0, tl = strlen(tree), i, j;
	char *out;

	for (i = 0; s[i]; i++)
		n += s[i] == '@' && s[i + 1] == '/' ? tl : 1;
	out = xmalloc(n + 1);
	for (i = j = 0; s[i]; i++) {
		if (s[i] == '@' && s[i + 1] == '/') {
			memcpy(out + j, tree, tl);
			j += tl;
		} else {
			out[j++] = s[i];
		}
	}
	out[j] = '\0';
	return out;
}

static char *join(char **v, size_t n, char sep)
{
	char *s = xstrdup(""), *t;
	size_t i;

	for (i = 0; i < n; i++) {
		t = xasprintf("%s%s%s", s, i ? (sep == ' ' ? " " : "\n") : "",
			      v[i]);
		free(s);
		s = t;
	}
	return s;
}

/*
 * instantiate - expand the launch rows of @c into @l against the host, as
 * vbox-exec does, from the sandbox linux_build() made with launch rows.
 * Returns 0, or -1 with the reason in *@err (caller frees).
 */
int instantiate(const struct tl_compiled *c, const struct lx_artifact *a,
		struct linux_launch *l, char **err)
{
	struct linux_launch_row *rows;
	size_t i, n = 0;
	int ret;

	rows = xcalloc(c->table->fs.n + 1, sizeof(*rows));
	for (i = 0; i < c->table->fs.n; i++) {
		const struct row *r = c->table->fs.order[i];

		if (c->landing.fs[i].kind != LANDING_LAUNCH)
			continue;
		rows[n].index = r->index;
		rows[n].effect = (uint8_t)r->effect;
		rows[n].pattern = r->fs.text;
		n++;
	}
	ret = linux_launch_instantiate(a, rows, n, NULL, l, err);
	free(rows);
	return ret;
}

/*
 * launch - compile @rules (with '@' for the tree), build with launch rows
 * and instantiate; returns the tail of the list after the base arguments
 * ("ERROR: ..." on failure), and the placeholders in *@ph.
 */
static char *launch(const char *rules, char **ph)
{
	struct linux_launch l;
	struct lx_artifact a;
	char *text = at(rules), *err = NULL, *out, *tail;
	struct tl_compiled c;

	*ph = xstrdup("");
	if (compile(&c, text) < 0) {
		free(text);
		tl_compiled_free(&c);
		return xstrdup("ERROR: compile");
	}
	free(text);
	if (linux_build(c.table, &c.landing, true, &a, &c.diags) < 0) {
		tl_compiled_free(&c);
		return xstrdup("ERROR: emit");
	}
	if (instantiate(&c, &a, &l, &err) < 0) {
		out = xasprintf("ERROR: %s", err);
		free(err);
	} else {
		out = render_text(&l.sandbox);
		free(*ph);
		*ph = join(l.placeholders, l.nplaceholders, ' ');
		linux_launch_release(&l);
	}
	lx_artifact_release(&a);
	tl_compiled_free(&c);
	/* Drop the base (the same for every table) up to "--proc /proc". */
	tail = strstr(out, "--proc /proc");
	if (tail) {
		tail = xstrdup(tail + strlen("--proc /proc") +
			       (tail[strlen("--proc /proc")] == ' '));
		free(out);
		out = tail;
	}
	return out;
}

static void check_launch(const char *name, const char *rules,
			 const char *want, const char *want_ph)
{
	char *ph, *got = launch(rules, &ph), *w = at(want), *wp = at(want_ph);

	is_str(got, w, "launch %s: arguments", name);
	is_str(ph, wp, "launch %s: placeholders", name);
	free(got);
	free(ph);
	free(w);
	free(wp);
}

void build_tree(void)
{
	static const char *const dirs[] = {
		"w", "w/d", "w/d/e", "w/d/e/f", "w/sub", "w/sub/deep",
		"r", "r/conf", "g", "g/a", "g/b", "g/b/c", "g/.hidden",
	};
	static const char *const files[] = {
		"w/a.txt", "w/d/x", "w/d/e/f/y", "w/sub/deep/s.key",
		"r/conf/k.key", "r/plain", "g/1.key", "g/2.key", "g/3.txt",
		"g/a/4.key", "g/b/c/5.key", "g/.hidden/6.key",
	};
	size_t i;

	for (i = 0; i < array_size(dirs); i++)
		mk(dirs[i], true);
	for (i = 0; i < array_size(files); i++)
		mk(files[i], false);
}

void test_launch(void)
{
	check_launch("deny directory",
		"rw:@/w\n!deny:@/w/d\n",
		"--bind-try @/w @/w --perms 0111 --tmpfs @/w/d --remount-ro "
		"/dev --remount-ro @/w/d", "");
	check_launch("deny file",
		"rw:@/w\n!deny:@/w/a.txt\n",
		"--bind-try @/w @/w --ro-bind /dev/null @/w/a.txt "
		"--remount-ro /dev", "");
	check_launch("deep hole anchors its ancestors",
		"rw:@/w\n!deny:@/w/sub/deep/s.key\n",
		"--bind-try @/w @/w --bind @/w/sub @/w/sub --bind @/w/sub/deep "
		"@/w/sub/deep --ro-bind /dev/null @/w/sub/deep/s.key "
		"--remount-ro /dev", "");
	check_launch("rw hole in a denied directory",
		"rw:@/w\n!deny:@/w/d\n!!rw:@/w/d/e/f\n",
		"--bind-try @/w @/w --perms 0111 --tmpfs @/w/d --perms 0111 "
		"--dir @/w/d/e --bind-try @/w/d/e/f @/w/d/e/f --remount-ro "
		"/dev --remount-ro @/w/d", "");
	check_launch("missing denied path in a writable root",
		"rw:@/w\n!deny:@/w/nothere\n",
		"--bind-try @/w @/w --perms 0111 --tmpfs @/w/nothere "
		"--remount-ro /dev --remount-ro @/w/nothere", "@/w/nothere");
	check_launch("first missing component",
		"rw:@/w\n!deny:@/w/sub/gone/deeper/x\n",
		"--bind-try @/w @/w --bind @/w/sub @/w/sub --perms 0555 "
		"--tmpfs @/w/sub/gone --remount-ro /dev --remount-ro "
		"@/w/sub/gone", "@/w/sub/gone");
	check_launch("missing ro path in a writable root",
		"rw:@/w\n!ro:@/w/new\n",
		"--bind-try @/w @/w --perms 0555 --tmpfs @/w/new --remount-ro "
		"/dev --remount-ro @/w/new", "@/w/new");
	check_launch("missing path in the read-only root",
		"deny:@/r/nothere\n", "--remount-ro /dev", "");
	/*
	 * A missing rw root whose parent exists: the row lets it be
	 * created, so the launcher creates it and the hole below it is
	 * held like any hole in a writable region.
	 */
	check_launch("missing rw root", "rw:@/nothere\n!ro:@/nothere/x\n",
		     "--bind-try @/nothere @/nothere --perms 0555 --tmpfs "
		     "@/nothere/x --remount-ro /dev --remount-ro @/nothere/x",
		     "@/nothere/x");
	/* The deny covers the rw row (dead): nothing to create or mount. */
	check_launch("missing rw root, denied itself",
		     "rw:@/nothere/**\n!deny:@/nothere\n",
		     "--remount-ro /dev", "");
	check_launch("missing rw root under a missing parent",
		     "rw:@/gone/nothere\n!ro:@/gone/nothere/x\n",
		     "--remount-ro /dev", "");
	check_launch("under a file", "rw:@/w\n!deny:@/w/a.txt/x\n",
		"--bind-try @/w @/w --ro-bind /dev/null @/w/a.txt "
		"--remount-ro /dev", "");
	check_launch("deny inside deny is redundant",
		"deny:@/w\n!deny:@/w/d\n",
		"--perms 0111 --tmpfs @/w --remount-ro /dev --remount-ro @/w",
		"");
	check_launch("ro hole in a denied region",
		"deny:@/w\n!ro:@/w/d/e\n",
		"--perms 0111 --tmpfs @/w --perms 0111 --dir @/w/d "
		"--ro-bind-try @/w/d/e @/w/d/e --remount-ro /dev "
		"--remount-ro @/w", "");
	check_launch("deny glob, sorted matches",
		"deny:@/g/*.key\n",
		"--ro-bind /dev/null @/g/1.key --ro-bind /dev/null @/g/2.key "
		"--remount-ro /dev", "");
	check_launch("deny glob with **",
		"deny:@/g/**/*.key\n",
		"--ro-bind /dev/null @/g/.hidden/6.key --ro-bind /dev/null "
		"@/g/1.key --ro-bind /dev/null @/g/2.key --ro-bind /dev/null "
		"@/g/a/4.key --ro-bind /dev/null @/g/b/c/5.key --remount-ro "
		"/dev", "");
	check_launch("deny glob matching directories",
		"deny:@/g/?\n",
		"--perms 0111 --tmpfs @/g/a --perms 0111 --tmpfs @/g/b "
		"--remount-ro /dev --remount-ro @/g/a --remount-ro @/g/b", "");
	check_launch("ro glob over directories needs /**",
		"deny:@/g\n!ro:@/g/?\n",
		"ERROR: row 1 matches the directory '@/g/a' but not what lies "
		"below it, and a mount covers both; end the pattern with '/**'",
		"");
	check_launch("ro glob over subtrees",
		"deny:@/g\n!ro:@/g/?/**\n",
		"--perms 0111 --tmpfs @/g --ro-bind @/g/a @/g/a "
		"--ro-bind @/g/b @/g/b --remount-ro /dev --remount-ro @/g", "");
	check_launch("rw glob binds files only",
		"rw:@/g/*\n",
		"--bind @/g/1.key @/g/1.key --bind @/g/2.key @/g/2.key --bind "
		"@/g/3.txt @/g/3.txt --remount-ro /dev", "");
	check_launch("later mount covers an earlier tmpfs",
		"!rw:@/g/a/**\ndeny:@/g/?\n",
		"--perms 0111 --tmpfs @/g/a --perms 0111 --tmpfs @/g/b "
		"--bind-try @/g/a @/g/a --remount-ro /dev --remount-ro @/g/b",
		"");
}

void test_launch_writable_default(void)
{
	char *ph, *got = launch("@default write rw\nro:@/w/d/e\n", &ph);
	char *want = at("--bind @/w @/w --bind @/w/d @/w/d --ro-bind @/w/d/e "
			"@/w/d/e");

	/* Under "--bind / /" every ancestor is anchored, from /. */
	ok(strstr(got, want) != NULL && strstr(got, "--bind /tmp") != NULL,
	   "launch writable default: ancestors anchored from the root");
	if (!strstr(got, want))
		diag("  got %s", got);
	free(want);
	free(got);
	free(ph);
}

/* A mount as a test writes it down. */
struct mspec {
	unsigned kind;
	unsigned mode;
	uint32_t row;
	const char *src;
	const char *dest;
};

static void add_specs(struct lx_artifact *a, const struct mspec *m, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		lx_add(a, (enum lx_kind)m[i].kind, m[i].src, m[i].dest,
		       m[i].mode, m[i].row);
}

void test_launch_errors(void)
{
	static const struct {
		const char *name;
		struct mspec m[3];
		size_t n;
		const char *want;
	} cases[] = {
		{ "unknown row",
		  { { LX_BIND_RO, 0, LX_ROW_NONE, "/", "/" },
		    { LX_LAUNCH, 0, 7, NULL, NULL } }, 2,
		  "the artifact names file row 7, which is no launch row of "
		  "the plan" },
		{ "tmpfs in a plan",
		  { { LX_BIND_RO, 0, LX_ROW_NONE, "/", "/" },
		    { LX_TMPFS, 0755, 1, NULL, "/x" } }, 2,
		  "unexpected tmpfs mount of '/x' in the artifact" },
		{ "try-bind elsewhere",
		  { { LX_BIND_RO, 0, LX_ROW_NONE, "/", "/" },
		    { LX_BIND_RO_TRY, 0, 1, "/", "/b" } }, 2,
		  "unexpected bind of '/' onto '/b' in the artifact" },
		{ "no root", { { 0 } }, 0, "the artifact mounts no root" },
	};
	struct linux_launch l;
	struct lx_artifact a;
	char *err;
	size_t i;

	for (i = 0; i < array_size(cases); i++) {
		memset(&a, 0, sizeof(a));
		a.flags = LX_NEW_SESSION;
		add_specs(&a, cases[i].m, cases[i].n);
		err = NULL;
		is_int(linux_launch_instantiate(&a, NULL, 0, NULL, &l, &err), -1,
		       "launch error %s: refused", cases[i].name);
		is_str(err, cases[i].want, "launch error %s: message",
		       cases[i].name);
		free(err);
		lx_artifact_release(&a);
	}
}

/* lx_decode() refuses every malformed artifact, naming the field. */
void test_artifact_decode(void)
{
	static const struct {
		const char *name;
		uint32_t flags;
		struct mspec m;
		const char *want;
	} cases[] = {
		{ "good", LX_NEW_SESSION,
		  { LX_BIND_RO, 0, 3, "/a", "/a" }, NULL },
		{ "unknown flag", 1u << 20,
		  { LX_BIND_RO, 0, 3, "/a", "/a" }, "unknown flags" },
		{ "bad kind", 0, { 99, 0, 3, "/a", "/a" },
		  "mount kind 99 is out of range" },
		{ "relative", 0, { LX_BIND_RO, 0, 3, "/a", "a" },
		  "destination 'a' is not absolute" },
		{ "mode on a bind", 0, { LX_BIND_RO, 0755, 3, "/a", "/a" },
		  "mode 755 does not fit the mount" },
		{ "source on a tmpfs", 0, { LX_TMPFS, 0755, 3, "/a", "/a" },
		  "source '/a' does not fit the mount" },
		{ "launch with a path", 0, { LX_LAUNCH, 0, 3, NULL, "/a" },
		  "a launch mount names a row and nothing else" },
		{ "launch without a row", 0,
		  { LX_LAUNCH, 0, LX_ROW_NONE, NULL, NULL },
		  "a launch mount names a row and nothing else" },
	};
	struct lx_artifact a, got;
	struct wbuf b;
	struct wire_reader r;
	char *err;
	size_t i;
	int ret;

	for (i = 0; i < array_size(cases) + 1; i++) {
		bool trailing = i == array_size(cases);
		size_t k = trailing ? 0 : i;

		memset(&a, 0, sizeof(a));
		memset(&b, 0, sizeof(b));
		a.flags = cases[k].flags;
		add_specs(&a, &cases[k].m, 1);
		lx_encode(&a, &b);
		lx_artifact_release(&a);
		if (trailing)
			wbuf_u8(&b, 0);
		memset(&r, 0, sizeof(r));
		r.p = b.p;
		r.len = b.len;
		err = NULL;
		r.err = &err;
		snprintf(r.ctx, sizeof(r.ctx), "artifact");
		ret = lx_decode(&r, &got);
		if (!trailing && !cases[k].want) {
			ok(ret == 0 && got.n == 1 && got.m[0].row == 3 &&
			   strcmp(got.m[0].dest, "/a") == 0 &&
			   got.flags == LX_NEW_SESSION,
			   "decode: a good artifact round-trips");
			lx_artifact_release(&got);
		} else {
			const char *want = trailing ? "1 unused bytes" :
				cases[k].want;

			ok(ret < 0 && err && strstr(err, want),
			   "decode %s: refused (%s)", trailing ? "trailing" :
			   cases[k].name, err ? err : "accepted");
			ok(got.n == 0 && !got.m, "... leaving nothing");
		}
		free(err);
		wbuf_release(&b);
	}
}

void test_glob_bounds(void)
{
	char *dir = xasprintf("%s/many", tree), *pat, *err = NULL, *p;
	char **paths;
	size_t n, i;
	int ret;

	if (mkdir(dir, 0755) < 0) {
		ok(0, "bounds: mkdir %s", dir);
		free(dir);
		return;
	}
	/* The literal lookups on the way count too. */
	for (i = 0; i < GLOB_WALK_MAX_ENTRIES - 10; i++) {
		p = xasprintf("%s/f%05zu", dir, i);
		close(open(p, O_WRONLY | O_CREAT, 0644));
		free(p);
	}
	pat = xasprintf("%s/*", dir);
	ret = glob_expand(pat, &paths, &n, &err);
	is_int(ret, 0, "bounds: %d entries are within the walk bound",
	       GLOB_WALK_MAX_ENTRIES - 10);
	if (!ret) {
		is_int((long long)n, GLOB_WALK_MAX_ENTRIES - 10,
		       "bounds: every entry matched");
		for (i = 0; i < n; i++)
			free(paths[i]);
		free(paths);
	}
	free(err);
	err = NULL;
	for (i = 0; i < 20; i++) {
		p = xasprintf("%s/g%02zu", dir, i);
		close(open(p, O_WRONLY | O_CREAT, 0644));
		free(p);
	}
	ret = glob_expand(pat, &paths, &n, &err);
	is_int(ret, -1, "bounds: one more entry is refused");
	if (ret)
		ok(err && strstr(err, "more than 10000 entries") != NULL,
		   "bounds: the message names the bound");
	free(err);
	free(pat);

	/* 33 nested directories under the prefix. */
	p = xasprintf("%s/deep", tree);
	mkdir(p, 0755);
	for (i = 0; i < GLOB_WALK_MAX_DEPTH + 1; i++) {
		char *q = xasprintf("%s/d", p);

		free(p);
		p = q;
		mkdir(p, 0755);
	}
	free(p);
	pat = xasprintf("%s/deep/**/leaf", tree);
	err = NULL;
	ret = glob_expand(pat, &paths, &n, &err);
	is_int(ret, -1, "bounds: depth past %d is refused",
	       GLOB_WALK_MAX_DEPTH);
	if (ret)
		ok(err && strstr(err, "more than 32 levels") != NULL,
		   "bounds: the message names the depth");
	free(err);
	free(pat);
	free(dir);
	err = NULL;
	is_int(glob_expand("**/x", &paths, &n, &err), -1,
	       "bounds: a relative pattern is refused");
	free(err);
	err = NULL;
	is_int(glob_expand("/*/x", &paths, &n, &err), -1,
	       "bounds: a pattern without literal prefix is refused");
	free(err);
}

void test_glob_expand(void)
{
	char *pat = xasprintf("%s/g/**", tree), *err = NULL, *got, *want;
	char **paths;
	size_t n, i;

	if (glob_expand(pat, &paths, &n, &err) < 0) {
		ok(0, "expand: %s", err);
		free(err);
		free(pat);
		return;
	}
	got = join(paths, n, ' ');
	want = at("@/g @/g/.hidden @/g/.hidden/6.key @/g/1.key @/g/2.key "
		  "@/g/3.txt @/g/a @/g/a/4.key @/g/b @/g/b/c @/g/b/c/5.key");
	is_str(got, want, "expand: '**' lists the whole subtree, sorted, once");
	for (i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	free(got);
	free(want);
	free(pat);
}

int rm_tree(const char *path)
{
	char *cmd = xasprintf("rm -rf '%s'", path);
	int ret = system(cmd);

	free(cmd);
	return ret;
}

/* ------------------------------------------------------------------ */
/* which mounts the init makes (initsplit.c) */

/* How many read-only remounts of @dest the init's list has. */
static size_t remounts_of(const struct lx_artifact *a, const char *dest)
{
	size_t i, n = 0;

	for (i = 0; i < a->n; i++)
		n += a->m[i].kind == LX_REMOUNT_RO &&
		     strcmp(a->m[i].dest, dest) == 0;
	return n;
}

/*
 * A /dev/null cover the init attaches itself is cloned read-only and
 * checked when it is attached: the remount pin_check() appends for it is
 * dropped.  One bubblewrap makes (a mount the init cannot make follows
 * it) keeps its remount, the only check it gets in the sandbox.
 */
void test_init_split(void)
{
	static const struct mspec base[] = {
		{ .kind = LX_BIND_RO, .src = "/", .dest = "/",
		  .row = LX_ROW_NONE },
		{ .kind = LX_DEV, .dest = "/dev", .row = LX_ROW_NONE },
		{ .kind = LX_PROC, .dest = "/proc", .row = LX_ROW_NONE },
		{ .kind = LX_BIND_RW, .src = "/w", .dest = "/w", .row = 0 },
		{ .kind = LX_BIND_RO, .src = "/dev/null", .dest = "/w/f1",
		  .row = 1 },
		{ .kind = LX_BIND_RO, .src = "/w/d2", .dest = "/w/d2",
		  .row = 2 },
	};
	static const struct mspec tail_init[] = {
		{ .kind = LX_REMOUNT_RO, .dest = "/w/f1", .row = 1 },
	};
	static const struct mspec tail_bwrap[] = {
		/* A bind of another tree: bubblewrap's, and all before it. */
		{ .kind = LX_BIND_RO, .src = "/srv/x", .dest = "/w/x",
		  .row = 3 },
		{ .kind = LX_DIR, .dest = "/w/y", .mode = 0755,
		  .row = LX_ROW_NONE },
		{ .kind = LX_REMOUNT_RO, .dest = "/w/f1", .row = 1 },
	};
	struct sandbox sa;

	memset(&sa, 0, sizeof(sa));
	add_specs(&sa.lx, base, array_size(base));
	add_specs(&sa.lx, tail_init, array_size(tail_init));
	sandbox_split_init_mounts(&sa, NULL, NULL);
	is_int((int)sa.lx.n, 1, "init split: bubblewrap keeps the root bind");
	ok(sa.init_mounts.n > 0 && remounts_of(&sa.init_mounts, "/w/f1") == 0,
	   "init split: the init's own /dev/null cover gets no remount");
	lx_artifact_release(&sa.lx);
	lx_artifact_release(&sa.init_mounts);

	memset(&sa, 0, sizeof(sa));
	add_specs(&sa.lx, base, array_size(base));
	add_specs(&sa.lx, tail_bwrap, array_size(tail_bwrap));
	sandbox_split_init_mounts(&sa, NULL, NULL);
	ok(remounts_of(&sa.lx, "/w/f1") + remounts_of(&sa.init_mounts,
						       "/w/f1") == 1,
	   "init split: a cover bubblewrap makes keeps its remount");
	lx_artifact_release(&sa.lx);
	lx_artifact_release(&sa.init_mounts);
}
