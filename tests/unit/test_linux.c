/* SPDX-License-Identifier: MIT */
/*
 * test_linux.c - the linux target: classification of every row, the exact
 * bubblewrap argument list for small tables (lowest priority first),
 * determinism, and the launch-time instantiation against a real temporary
 * tree (glob expansion and its bounds, holes, placeholders); the launch
 * cases are in test_linux_launch.c (test_linux_int.h).
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
#include <stdio.h>

#include "diag.h"
#include "emit.h"
#include "ir.h"
#include "linux.h"
#include "linux_artifact.h"
#include "mounts.h"
#include "tap.h"
#include "test_linux_int.h"
#include "wire.h"
#include "testlib.h"

extern char **environ;

/* Build, analyze and classify @text for linux (landings, no records). */
int compile(struct tl_compiled *c, const char *text)
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
char *render_text(const struct lx_artifact *a)
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
	/* The three rows, each below a writable workspace. */
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
	test_init_split();
	if (rm_tree(tmpl) != 0)
		diag("cannot remove %s", tmpl);
	return done_testing();
}
