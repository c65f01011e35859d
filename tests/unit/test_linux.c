/* SPDX-License-Identifier: MIT */
/*
 * test_linux.c - the linux target: classification of every row, the exact
 * bubblewrap argument list for small tables (lowest priority first),
 * determinism, and the launch-time instantiation against a real temporary
 * tree (glob expansion and its bounds, holes, placeholders).
 *
 * With "--launch-args RULES ARGS PLACEHOLDERS" it is instead the driver of
 * tests/cli/bwrap_diff.sh: it compiles RULES for linux with launch rows,
 * instantiates them against the host as vbox-exec will, and writes the
 * NUL-separated list to ARGS and the placeholder directories, one a line,
 * to PLACEHOLDERS.
 *
 * Lists are shown with NULs as blanks, and an LX_LAUNCH mount (which
 * bubblewrap never sees) as "--vbox-launch ROW".
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "emit.h"
#include "ir.h"
#include "glob.h"
#include "linux.h"
#include "linux_artifact.h"
#include "mounts.h"
#include "tap.h"
#include "wire.h"
#include "testlib.h"

extern char **environ;

/* Build, analyze and classify @text for linux (landings, no records). */
static int compile(struct tl_compiled *c, const char *text)
{
	return tl_compile(c, text, "linux", TL_LANDINGS);
}

/* "K A L" - the landing of every file row, then "|" and the net rows. */
static char *kinds(const struct tl_compiled *c)
{
	char *s = xstrdup(""), *t;
	size_t i;

	for (i = 0; i < c->landing.nfs; i++) {
		t = xasprintf("%s%s%c", s, i ? " " : "",
			      landing_kind_name(c->landing.fs[i].kind)[0] -
			      'a' + 'A');
		free(s);
		s = t;
	}
	if (c->landing.nnet) {
		t = xasprintf("%s%s|", s, c->landing.nfs ? " " : "");
		free(s);
		s = t;
	}
	for (i = 0; i < c->landing.nnet; i++) {
		t = xasprintf("%s %c", s,
			      landing_kind_name(c->landing.net[i].kind)[0] -
			      'a' + 'A');
		free(s);
		s = t;
	}
	return s;
}

/* @a rendered, NULs as blanks, LX_LAUNCH as "--vbox-launch ROW". */
static char *render_text(const struct lx_artifact *a)
{
	struct lx_artifact one = *a;
	struct wbuf b = { 0 };
	char num[16];
	size_t i;

	one.n = 0;
	one.chdir = NULL;
	lx_render(&one, &b);
	one.flags = 0;
	for (i = 0; i < a->n; i++) {
		if (a->m[i].kind == LX_LAUNCH) {
			snprintf(num, sizeof(num), "%u", a->m[i].row);
			wbuf_put(&b, "--vbox-launch", 14);
			wbuf_put(&b, num, strlen(num) + 1);
			continue;
		}
		one.m = &a->m[i];
		one.n = 1;
		lx_render(&one, &b);
	}
	if (a->chdir) {
		one.n = 0;
		one.chdir = a->chdir;
		lx_render(&one, &b);
	}
	wbuf_put(&b, "", 1);
	for (i = 0; i + 1 < b.len; i++)
		if (b.p[i] == '\0')
			b.p[i] = i + 2 == b.len ? '\0' : ' ';
	return (char *)b.p;
}

/* The argument list with NULs shown as blanks, or "ERROR: first error". */
static char *emit_text(struct tl_compiled *c, bool launch_rows)
{
	struct lx_artifact a;
	char *out;

	if (linux_build(c->table, &c->landing, launch_rows, &a,
			&c->diags) < 0)
		return xasprintf("ERROR: %s", c->diags.n ?
				 c->diags.items[c->diags.n - 1].msg : "?");
	out = render_text(&a);
	lx_artifact_release(&a);
	return out;
}

#define BASE "--new-session --die-with-parent --unshare-user " \
	"--disable-userns --unshare-pid --unshare-ipc --unshare-uts " \
	"--unshare-cgroup-try"
#define ROOT_RO "--cap-drop ALL --ro-bind / / --dev /dev --proc /proc"
#define ROOT_RW "--cap-drop ALL --bind / / --dev /dev --proc /proc"
#define DEV_RO "--remount-ro /dev"

/* check - compile @rules; expect landings @want_kinds and list @want. */
static void check(const char *name, const char *rules, const char *want_kinds,
		  const char *want, bool placeholders)
{
	struct tl_compiled c;
	char *k, *t;

	if (compile(&c, rules) < 0) {
		ok(0, "%s: compiles", name);
		tl_compiled_free(&c);
		return;
	}
	k = kinds(&c);
	is_str(k, want_kinds, "%s: landings", name);
	t = emit_text(&c, placeholders);
	is_str(t, want, "%s: arguments", name);
	free(k);
	free(t);
	tl_compiled_free(&c);
}

static const char *reason_of(const struct tl_compiled *c, bool net, size_t i)
{
	const struct landing *l = net ? &c->landing.net[i] : &c->landing.fs[i];

	return l->reason ? l->reason : "(none)";
}

static void check_reason(const char *name, const char *rules, bool net,
			 size_t i, const char *needle)
{
	struct tl_compiled c;
	const char *r;

	if (compile(&c, rules) < 0) {
		ok(0, "%s: compiles", name);
		tl_compiled_free(&c);
		return;
	}
	r = reason_of(&c, net, i);
	if (!ok(strstr(r, needle) != NULL, "%s: reason says '%s'", name,
		needle))
		diag("  reason: %s", r);
	tl_compiled_free(&c);
}

static void test_base(void)
{
	check("empty policy", "", "",
	      BASE " --unshare-net " ROOT_RO " " DEV_RO, false);
	check("open network", "@default net open\n", "",
	      BASE " " ROOT_RO " " DEV_RO, false);
	check("writable default", "@default write rw\n", "",
	      BASE " --unshare-net " ROOT_RW, false);
	check("rw row", "rw:/srv/work/**\n", "K",
	      BASE " --unshare-net " ROOT_RO
	      " --bind-try /srv/work /srv/work " DEV_RO, false);
	check("literal rw row", "rw:\"/srv/with space\"\n", "K",
	      BASE " --unshare-net " ROOT_RO
	      " --bind-try /srv/with space /srv/with space " DEV_RO, false);
	check("a row over /dev governs it", "rw:/dev\n", "K",
	      BASE " --unshare-net " ROOT_RO " --bind-try /dev /dev", false);
}

static void test_order(void)
{
	/* Priority: c (level 2), a (level 1), b: written b, a, c. */
	check("levels: lowest first", "!rw:/a\nrw:/b\n!!rw:/c\n", "K K K",
	      BASE " --unshare-net " ROOT_RO
	      " --bind-try /b /b --bind-try /a /a --bind-try /c /c " DEV_RO,
	      false);
	/* One level: the first row wins, so it is mounted last. */
	check("table order within a level", "rw:/a\nrw:/b\n", "K K",
	      BASE " --unshare-net " ROOT_RO
	      " --bind-try /b /b --bind-try /a /a " DEV_RO, false);
	check("holes between levels",
	      "rw:/w\n!deny:/w/d\n!!rw:/w/d/e\n!!!ro:/w/d/e/r\n", "K L K L",
	      BASE " --unshare-net " ROOT_RO
	      " --bind-try /w /w --vbox-launch 1 --bind-try /w/d/e /w/d/e"
	      " --vbox-launch 3 " DEV_RO, true);
	check("ro hole in a denied region",
	      "deny:/d\n!ro:/d/r\n", "L K",
	      BASE " --unshare-net " ROOT_RO
	      " --vbox-launch 0 --ro-bind-try /d/r /d/r " DEV_RO, true);
	/*
	 * First match wins (doc/rules.md §3, "Evaluation"): deny keys,
	 * rw app, ro keys/pub (dead).
	 */
	check("first match wins",
	      "deny:/opt/app/keys\nrw:/opt/app\nro:/opt/app/keys/pub\n",
	      "L K A",
	      BASE " --unshare-net " ROOT_RO
	      " --bind-try /opt/app /opt/app --vbox-launch 0 " DEV_RO, true);
}

static void test_classes(void)
{
	check("redundant rw", "rw:/a\n!rw:/a/b\n", "K A",
	      BASE " --unshare-net " ROOT_RO " --bind-try /a /a " DEV_RO,
	      false);
	check_reason("redundant rw", "rw:/a\n!rw:/a/b\n", false, 1,
		     "already writable through row 0");
	check("rw under @default write rw", "@default write rw\nrw:/x\n",
	      "A", BASE " --unshare-net " ROOT_RW, false);
	check_reason("rw under @default write rw",
		     "@default write rw\nrw:/x\n", false, 0,
		     "@default write rw");
	check("ro in the read-only root", "ro:/usr\n", "A",
	      BASE " --unshare-net " ROOT_RO " " DEV_RO, false);
	check_reason("ro in the read-only root", "ro:/usr\n", false, 0,
		     "root is mounted read-only");
	check("ro hole in rw root", "rw:/w\n!ro:/w/r\n", "K L",
	      BASE " --unshare-net " ROOT_RO
	      " --bind-try /w /w --vbox-launch 1 " DEV_RO, true);
	check_reason("ro hole in rw root", "rw:/w\n!ro:/w/r\n", false, 1,
		     "region row 0 makes writable");
	check("ro under @default write rw", "@default write rw\nro:/etc\n",
	      "L", BASE " --unshare-net " ROOT_RW " --vbox-launch 0", true);
	check("rw inside ro", "ro:/d\n!rw:/d/w\n", "A K",
	      BASE " --unshare-net " ROOT_RO " --bind-try /d/w /d/w " DEV_RO,
	      false);
	check("rw inside ro, writable default",
	      "@default write rw\nro:/d\n!rw:/d/w\n", "L K",
	      BASE " --unshare-net " ROOT_RW
	      " --vbox-launch 0 --bind-try /d/w /d/w", true);
	check("deny is launch", "deny:~/.ssh\n", "L",
	      BASE " --unshare-net " ROOT_RO " --vbox-launch 0 " DEV_RO, true);
	check("deny in a static profile", "deny:~/.ssh\n", "L",
	      "ERROR: row 0 'deny:/home/tester/.ssh' needs the host file "
	      "system at launch: a static bubblewrap list cannot hold it; "
	      "use --emit=plan with vbox-exec", false);
	check("shadowed rows are absorbed",
	      "rw:/srv/work/**\ndeny:/srv/work/secret\nro:/srv/work\n",
	      "K A A",
	      BASE " --unshare-net " ROOT_RO
	      " --bind-try /srv/work /srv/work " DEV_RO, false);
	check_reason("shadowed", "rw:/a\ndeny:/a/b\n", false, 1,
		     "dead: covered by row 0");
	check("identical paths", "ro:/e/y\nrw:/e/y\n", "A A",
	      BASE " --unshare-net " ROOT_RO " " DEV_RO, false);
}

static void test_globs(void)
{
	check("deny glob in the read-only root", "deny:/etc/*.key\n", "L",
	      BASE " --unshare-net " ROOT_RO " --vbox-launch 0 " DEV_RO, true);
	check_reason("deny glob", "deny:/etc/*.key\n", false, 0,
		     "below '/etc' (at most 10000 entries, 32 levels)");
	/* Mounts cannot deny what the child creates later: supervised. */
	check("deny glob in a writable root",
	      "rw:/w\n!deny:/w/*.key\n", "K S",
	      BASE " --unshare-net " ROOT_RO " --bind-try /w /w " DEV_RO,
	      true);
	check("ro glob over a writable subtree",
	      "rw:/w/out\n!ro:/w/**/*.c\n", "K S",
	      BASE " --unshare-net " ROOT_RO " --bind-try /w/out /w/out "
	      DEV_RO, true);
	check("deny glob under @default write rw",
	      "@default write rw\ndeny:/w/*.key\n", "S",
	      BASE " --unshare-net " ROOT_RW, true);
	check("deny glob with higher rw below",
	      "!rw:/w/out\ndeny:/w/*/x\n", "K L",
	      BASE " --unshare-net " ROOT_RO
	      " --vbox-launch 1 --bind-try /w/out /w/out " DEV_RO, true);
	check("rw glob", "rw:/srv/*.log\n", "L",
	      BASE " --unshare-net " ROOT_RO " --vbox-launch 0 " DEV_RO, true);
	check("leading ** deny", "deny:**/.git/config\n", "S",
	      BASE " --unshare-net " ROOT_RO " " DEV_RO, true);
	check("leading ** rw", "rw:**/build\n", "A",
	      BASE " --unshare-net " ROOT_RO " " DEV_RO, false);
	check("leading wildcard segment", "deny:/*/secret\n", "S",
	      BASE " --unshare-net " ROOT_RO " " DEV_RO, true);
	/* A glob below may deny part of it: the rw row must mount. */
	check("rw over a deny glob", "deny:/a/b/*.x\n!rw:/a/b/c\n", "L K",
	      BASE " --unshare-net " ROOT_RO
	      " --vbox-launch 0 --bind-try /a/b/c /a/b/c " DEV_RO, true);
	check("rw over a dead deny glob",
	      "rw:/a\n!deny:/a/b/*.x\n!!rw:/a/b/c\n", "K S A",
	      BASE " --unshare-net " ROOT_RO " --bind-try /a /a " DEV_RO,
	      true);
	check("ro under a maybe-rw glob", "rw:/a/*\n!ro:/a/b\n", "L L",
	      BASE " --unshare-net " ROOT_RO
	      " --vbox-launch 0 --vbox-launch 1 " DEV_RO, true);
}

static void test_net(void)
{
	/* with an allow row the egress proxy runs and judges every row */
	check("deny posture", "allow:example.com:443\nallow:localhost:8080\n"
	      "deny:evil.example.com\n", "| P P P",
	      BASE " --unshare-net " ROOT_RO " " DEV_RO, false);
	check_reason("allow in deny posture", "allow:example.com:443\n", true,
		     0, "the egress proxy, bridged into");
	check_reason("loopback in deny posture", "allow:127.0.0.1:80\n", true,
		     0, "a plain TCP forward at the same port");
	check_reason("loopback port wildcard", "allow:localhost\n", true,
		     0, "name the ports");
	check_reason("deny in deny posture", "deny:evil.example.com\n", true,
		     0, "redundant");
	check("open posture deny", "@default net open\ndeny:evil.example.com\n",
	      "| U",
	      "ERROR: row 0 'deny:evil.example.com:*' is unsupported on "
	      "linux: with @default net open the sandbox shares the host "
	      "network, where bubblewrap cannot block single destinations",
	      false);
	check("open posture allow",
	      "@default net open\nallow:example.com:443\n", "| A",
	      BASE " " ROOT_RO " " DEV_RO, false);
	check_reason("shadowed net row",
		     "allow:*.example.com\ndeny:a.example.com\n", true, 1,
		     "dead: covered by row 0");
}

#define SUPERVISED_REASON \
	"judged per path call by the launcher's supervisor: files created " \
	"later are covered; every open, create, rename, link, unlink and " \
	"metadata change in the sandbox costs a round trip (bench/README.md)"

/* The landing reason of file row @i of @rules, exactly. */
static void check_reason_is(const char *name, const char *rules, size_t i,
			    const char *want)
{
	struct tl_compiled c;

	if (compile(&c, rules) < 0) {
		ok(0, "%s: compiles", name);
		tl_compiled_free(&c);
		return;
	}
	is_str(reason_of(&c, false, i), want, "%s: reason", name);
	tl_compiled_free(&c);
}

/*
 * Deny and ro rows that mounts made at launch cannot hold land
 * supervised (issue 23): no mount, no LX_LAUNCH, the rows around them
 * unchanged; a supervised ro row over what a lower row's mount hides
 * stays refused.
 */
static void test_supervised(void)
{
	/* The issue's three rows, each below a writable workspace. */
	check("supervised: deny glob in the workspace",
	      "rw:/srv/work/**\n!deny:/srv/work/**/.env\n", "K S",
	      BASE " --unshare-net " ROOT_RO
	      " --bind-try /srv/work /srv/work " DEV_RO, true);
	check("supervised: rootless deny",
	      "rw:/srv/work/**\n!deny:**/.env\n", "K S",
	      BASE " --unshare-net " ROOT_RO
	      " --bind-try /srv/work /srv/work " DEV_RO, true);
	check("supervised: ro glob in the workspace",
	      "rw:/srv/work/**\n!ro:/srv/work/**/.git/hooks/**\n", "K S",
	      BASE " --unshare-net " ROOT_RO
	      " --bind-try /srv/work /srv/work " DEV_RO, true);
	check("supervised: all three and a literal deny",
	      "rw:/srv/work/**\n!deny:/srv/work/**/.env\n!deny:**/.env\n"
	      "!ro:/srv/work/**/.git/hooks/**\n!!deny:/srv/work/keys\n",
	      "K S S S L",
	      BASE " --unshare-net " ROOT_RO
	      " --bind-try /srv/work /srv/work --vbox-launch 4 " DEV_RO, true);
	check_reason_is("supervised: deny reason",
			"rw:/srv/work/**\n!deny:**/.env\n", 1,
			SUPERVISED_REASON);
	check_reason_is("supervised: ro reason",
			"rw:/srv/work/**\n!ro:/srv/work/**/.git/hooks/**\n", 1,
			SUPERVISED_REASON);
	/* A static list cannot hold it: only a plan can. */
	check("supervised: no static profile",
	      "rw:/srv/work/**\n!deny:**/.env\n", "K S",
	      "ERROR: row 1 '!deny:**/.env' is judged by vbox-exec's "
	      "supervisor: a static bubblewrap list cannot hold it; use "
	      "--emit=plan with vbox-exec", false);
	/* It makes no mount, so the rows above it land as without it. */
	check("supervised: no region for the rows above",
	      "rw:/srv/work/**\n!deny:/srv/work/**/.env\n"
	      "!!ro:/srv/work/docs\n", "K S L",
	      BASE " --unshare-net " ROOT_RO
	      " --bind-try /srv/work /srv/work --vbox-launch 2 " DEV_RO, true);
	check("supervised: the same rows without it",
	      "rw:/srv/work/**\n!!ro:/srv/work/docs\n", "K L",
	      BASE " --unshare-net " ROOT_RO
	      " --bind-try /srv/work /srv/work --vbox-launch 1 " DEV_RO, true);
	/* with nothing writable, ro starting with '**' holds already */
	check("supervised: ro with nothing writable", "ro:**/.git/hooks/**\n",
	      "A", BASE " --unshare-net " ROOT_RO " " DEV_RO, false);
	check_reason_is("supervised: ro with nothing writable, reason",
			"ro:**/.git/hooks/**\n", 0,
			"redundant: the root is mounted read-only (@default "
			"write deny) and no lower row makes anything writable");
	check("supervised: a higher rw row decides its own paths",
	      "!rw:/srv/work/**\nro:**/.git/hooks/**\n", "K A",
	      BASE " --unshare-net " ROOT_RO
	      " --bind-try /srv/work /srv/work " DEV_RO, false);
	check("supervised: ro with a writable default",
	      "@default write rw\nro:**/.git/hooks/**\n", "S",
	      BASE " --unshare-net " ROOT_RW, true);
	check("supervised: deny with nothing writable", "deny:**/.env\n",
	      "S", BASE " --unshare-net " ROOT_RO " " DEV_RO, true);
	/* deny is deny, whatever lower rows mount */
	check("supervised: deny over a lower deny",
	      "deny:/srv\n!rw:/srv/work/**\n!!deny:/srv/**/.env\n", "L K S",
	      BASE " --unshare-net " ROOT_RO
	      " --vbox-launch 0 --bind-try /srv/work /srv/work " DEV_RO, true);
	/* ro cannot show what a lower deny hides: around, above, below */
	check("supervised: ro in a lower denied subtree",
	      "deny:/srv\n!rw:/srv/work/**\n!!ro:/srv/**/.git/hooks/**\n",
	      "L K U",
	      "ERROR: row 2 '!!ro:/srv/**/.git/hooks/**' is unsupported on "
	      "linux: a supervised read-only row cannot show what the mounts "
	      "of row 0 hide", true);
	check("supervised: rootless ro over a lower deny below",
	      "deny:/home/secret\nrw:/srv/work/**\n!ro:**/.git/hooks/**\n",
	      "L K U",
	      "ERROR: row 2 '!ro:**/.git/hooks/**' is unsupported on linux: a "
	      "supervised read-only row cannot show what the mounts of row 0 "
	      "hide", true);
	check("supervised: ro below a lower deny glob",
	      "deny:/opt/*\n!rw:/opt/a/w\n!!ro:/opt/a/**/.git/hooks/**\n",
	      "L K U",
	      "ERROR: row 2 '!!ro:/opt/a/**/.git/hooks/**' is unsupported on "
	      "linux: a supervised read-only row cannot show what the mounts "
	      "of row 0 hide", true);
	/* a lower ro or rw mount hides nothing */
	check("supervised: ro over lower ro and rw",
	      "rw:/srv/work/**\n!ro:/srv/work/vendor\n"
	      "!!ro:**/.git/hooks/**\n", "K L S",
	      BASE " --unshare-net " ROOT_RO
	      " --bind-try /srv/work /srv/work --vbox-launch 1 " DEV_RO, true);
	/* the same level: a later deny row is below the ro row, and hides */
	check("supervised: ro over a same-level later deny",
	      "rw:/srv/work/**\n!ro:/srv/work/**/.git/hooks/**\n"
	      "!deny:/srv/work/keys\n", "K U L",
	      "ERROR: row 1 '!ro:/srv/work/**/.git/hooks/**' is unsupported "
	      "on linux: a supervised read-only row cannot show what the "
	      "mounts of row 2 hide", true);
}

/* Every row gets a reason; emit_classify names unsupported rows. */
static void test_contract(void)
{
	static const char rules[] =
		"@default net open\nrw:/w\n!deny:/w/*.pem\nro:/usr\n"
		"deny:**/x\nrw:**/y\ndeny:/etc/shadow\nallow:a.example.com\n"
		"deny:b.example.com\n!!ro:**/hooks/**\n";
	struct landing_set set;
	struct tl_compiled c;
	bool all = true;
	size_t i;

	if (compile(&c, rules) < 0) {
		ok(0, "contract: compiles");
		tl_compiled_free(&c);
		return;
	}
	for (i = 0; i < c.landing.nfs; i++)
		all &= c.landing.fs[i].reason && *c.landing.fs[i].reason &&
		       c.landing.fs[i].row == c.table->fs.order[i];
	for (i = 0; i < c.landing.nnet; i++)
		all &= c.landing.net[i].reason && *c.landing.net[i].reason &&
		       c.landing.net[i].row == c.table->net.order[i];
	ok(all, "contract: every row has its landing and a reason");
	memset(&set, 0, sizeof(set));
	is_int(emit_classify(&emitter_linux, c.table, &set, &c.diags), -1,
	       "contract: emit_classify fails on unsupported rows");
	/* deny:b.example.com; the supervised ro row over deny:/etc/shadow */
	is_int(c.diags.nerrors, 2, "contract: one error per unsupported row");
	landing_set_free(&set);
	is_str(emitter_linux.name, "linux", "contract: name");
	is_str(emitter_linux.profile_ext, "bwrap", "contract: extension");
	tl_compiled_free(&c);
}

static void test_determinism(void)
{
	static const char rules[] =
		"rw:/srv/work/**\n!deny:/srv/work/keys\n"
		"!!ro:/srv/work/keys/pub\n"
		"rw:/tmp/build\n!rw:/srv/work/keys/pub/x\ndeny:/etc/*.key\n";
	struct tl_compiled a, b;
	char *ta, *tb, *tc;

	if (compile(&a, rules) < 0 || compile(&b, rules) < 0) {
		ok(0, "determinism: compiles");
		return;
	}
	ta = emit_text(&a, true);
	tb = emit_text(&a, true);
	tc = emit_text(&b, true);
	is_str(ta, tb, "determinism: emitting twice");
	is_str(ta, tc, "determinism: compiling twice");
	free(ta);
	free(tb);
	free(tc);
	tl_compiled_free(&a);
	tl_compiled_free(&b);
}

/* ------------------------------------------------------------------ */
/* launch-time instantiation against a temporary tree */

static char tree[256];

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
static int instantiate(const struct tl_compiled *c, const struct lx_artifact *a,
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
	ret = linux_launch_instantiate(a, rows, n, l, err);
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

static void build_tree(void)
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

static void test_launch(void)
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

static void test_launch_writable_default(void)
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

static void test_launch_errors(void)
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
		is_int(linux_launch_instantiate(&a, NULL, 0, &l, &err), -1,
		       "launch error %s: refused", cases[i].name);
		is_str(err, cases[i].want, "launch error %s: message",
		       cases[i].name);
		free(err);
		lx_artifact_release(&a);
	}
}

/* lx_decode() refuses every malformed artifact, naming the field. */
static void test_artifact_decode(void)
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

static void test_glob_bounds(void)
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

static void test_glob_expand(void)
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

static int rm_tree(const char *path)
{
	char *cmd = xasprintf("rm -rf '%s'", path);
	int ret = system(cmd);

	free(cmd);
	return ret;
}

/* ------------------------------------------------------------------ */
/* the driver of tests/cli/bwrap_diff.sh */

static int write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		return -1;
	if (fwrite(buf, 1, len, f) != len) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

static int driver(const char *rules, const char *args_path,
		  const char *ph_path)
{
	const struct tl_source src = {
		.path = rules,
		.target = "linux",
		.environ = environ,
		.flags = TL_SHADOW | TL_QUIET,
	};
	struct linux_launch l;
	struct lx_artifact a;
	struct tl_compiled c;
	struct wbuf args = { 0 };
	char *err = NULL, *phs = NULL;
	size_t i, phlen = 0;
	FILE *f;
	int ret = 1;

	memset(&l, 0, sizeof(l));
	memset(&a, 0, sizeof(a));
	if (tl_compile_source(&c, &src) < 0) {
		diag_print(stderr, &c.diags, "test_linux");
		tl_compiled_free(&c);
		return 1;
	}
	c.diags.max_errors = 0;
	if (emit_classify(&emitter_linux, c.table, &c.landing, &c.diags) < 0 ||
	    linux_build(c.table, &c.landing, true, &a, &c.diags) < 0) {
		diag_print(stderr, &c.diags, "test_linux");
		goto out;
	}
	if (instantiate(&c, &a, &l, &err) < 0) {
		fprintf(stderr, "test_linux: %s\n", err);
		free(err);
		goto out;
	}
	lx_render(&l.sandbox, &args);
	f = open_memstream(&phs, &phlen);
	if (!f)
		goto out;
	for (i = 0; i < l.nplaceholders; i++)
		fprintf(f, "%s\n", l.placeholders[i]);
	fclose(f);
	if (write_file(args_path, args.p, args.len) < 0 ||
	    write_file(ph_path, phs, phlen) < 0) {
		fprintf(stderr, "test_linux: cannot write: %s\n",
			strerror(errno));
		goto out;
	}
	ret = 0;
out:
	linux_launch_release(&l);
	lx_artifact_release(&a);
	wbuf_release(&args);
	free(phs);
	tl_compiled_free(&c);
	return ret;
}

int main(int argc, char **argv)
{
	char tmpl[] = "/tmp/vbox-test-linux.XXXXXX";

	if (argc == 5 && strcmp(argv[1], "--launch-args") == 0)
		return driver(argv[2], argv[3], argv[4]);
	if (argc != 1) {
		fprintf(stderr, "usage: test_linux [--launch-args RULES ARGS "
			"PLACEHOLDERS]\n");
		return 2;
	}
	test_base();
	test_order();
	test_classes();
	test_globs();
	test_net();
	test_supervised();
	test_contract();
	test_determinism();
	if (!mkdtemp(tmpl)) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return done_testing();
	}
	snprintf(tree, sizeof(tree), "%s", tmpl);
	build_tree();
	test_launch();
	test_launch_writable_default();
	test_launch_errors();
	test_artifact_decode();
	test_glob_expand();
	test_glob_bounds();
	if (rm_tree(tmpl) != 0)
		diag("cannot remove %s", tmpl);
	return done_testing();
}
