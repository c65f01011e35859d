/* SPDX-License-Identifier: MIT */
/*
 * test_darwin_holes.c - one regression test per hole of the darwin
 * profile found by review (doc/darwin.md): each runs the attack directly
 * against the profile, interpreted the way Seatbelt decides
 * (sbpl_check.h).  The random property test is test_darwin_props.c.
 */
#include <vbox.h>

#include <stdio.h>

#include "darwin_testlib.h"
#include "diag.h"
#include "emit.h"
#include "ir.h"
#include "sbpl_check.h"
#include "tap.h"
#include "testlib.h"

/* Hole 1: the /dev base allowances must not beat rows. */
static void test_hole_devices(void)
{
	struct tl_compiled c;
	struct sbpl_profile *prof;

	prof = dt_profile_of(&c, "deny:/dev/tty\n");
	ok(prof != NULL, "deny:/dev/tty compiles");
	ok(prof && !dt_may(prof, "file-write-data", "/dev/tty"),
	   "deny:/dev/tty: writing /dev/tty is refused");
	ok(prof && !dt_may(prof, "file-ioctl", "/dev/tty"),
	   "deny:/dev/tty: ioctl on /dev/tty (TIOCSTI) is refused");
	ok(prof && !dt_may(prof, "file-read-data", "/dev/tty"),
	   "deny:/dev/tty: reading /dev/tty is refused");
	ok(prof && dt_may(prof, "file-write-data", "/dev/null") &&
	   dt_may(prof, "file-ioctl", "/dev/ttys003"),
	   "deny:/dev/tty: the other base devices stay usable");
	dt_profile_free(prof);
	tl_compiled_free(&c);

	prof = dt_profile_of(&c, "@default write rw\nro:/dev/**\n");
	ok(prof && !dt_may(prof, "file-write-data", "/dev/null"),
	   "ro:/dev/**: writing /dev/null is refused");
	ok(prof && !dt_may(prof, "file-write-data", "/dev/fd/1"),
	   "ro:/dev/**: writing /dev/fd/1 is refused");
	ok(prof && !dt_may(prof, "file-ioctl", "/dev/ptmx"),
	   "ro:/dev/**: ioctl on /dev/ptmx is refused");
	ok(prof && dt_may(prof, "file-read-data", "/dev/null"),
	   "ro:/dev/**: reading /dev/null is allowed");
	dt_profile_free(prof);
	tl_compiled_free(&c);

	prof = dt_profile_of(&c, "deny:/dev/**\n!rw:/dev/null\n");
	ok(prof && dt_may(prof, "file-write-data", "/dev/null") &&
	   !dt_may(prof, "file-write-data", "/dev/zero"),
	   "deny:/dev/** below !rw:/dev/null: the higher row decides");
	dt_profile_free(prof);
	tl_compiled_free(&c);
}

static const struct landing *net_landing(const struct tl_compiled *c,
					 size_t i)
{
	return i < c->landing.nnet ? &c->landing.net[i] : NULL;
}

/* Hole 2: "localhost" in SBPL is 127.0.0.1 and ::1, not 127.0.0.0/8. */
static void test_hole_loopback(void)
{
	struct tl_compiled c;
	struct sbpl_profile *prof;
	const struct landing *l;
	bool allow;

	if (ok(!tl_compile(&c, "@default net open\ndeny:localhost:22\n",
			   "darwin", TL_CLASSIFY | TL_QUIET),
	       "open posture with deny:localhost:22 loads")) {
		l = net_landing(&c, 0);
		ok(l && l->kind == LANDING_UNSUPPORTED,
		   "open posture: a loopback deny row is unsupported");
		ok(c.classified == -1 &&
		   tl_has_error(&c.diags, "row 0 'deny:localhost:22' is "
			     "unsupported on darwin") &&
		   tl_has_error(&c.diags, "127.0.0.0/8"),
		   "the error names the row, the target and the reason");
		if (l && l->reason)
			diag("  reason: %s", l->reason);
	}
	tl_compiled_free(&c);

	prof = dt_profile_of(&c, "allow:localhost:80\n");
	ok(prof != NULL, "deny posture with allow:localhost:80 compiles");
	l = net_landing(&c, 0);
	ok(l && l->kind == LANDING_KERNEL && l->reason &&
	   strstr(l->reason, "127.0.0.1 and ::1") &&
	   strstr(l->reason, "narrower"),
	   "preflight says the row reaches only 127.0.0.1 and ::1: %s",
	   l && l->reason ? l->reason : "(none)");
	if (prof) {
		sbpl_eval_remote(prof, "network-outbound", "127.0.0.1", 80,
				 NULL, 0, &allow);
		ok(allow, "deny posture: 127.0.0.1:80 is allowed");
		sbpl_eval_remote(prof, "network-outbound", "127.0.0.2", 80,
				 NULL, 0, &allow);
		ok(!allow, "deny posture: 127.0.0.2:80 is refused (narrower)");
	}
	dt_profile_free(prof);
	tl_compiled_free(&c);
}

/* Hole 3: a read-only hole inside a writable root cannot be moved. */
static void test_hole_ro_rename(void)
{
	struct tl_compiled c;
	struct sbpl_profile *prof;

	prof = dt_profile_of(&c, "rw:/srv/**\n!ro:/srv/work/config\n");
	ok(prof != NULL, "rw:/srv/** with !ro:/srv/work/config compiles");
	ok(prof && !sbpl_may_rename(prof, "/srv/work", "/srv/w2",
				    SBPL_VNODE_DIRECTORY),
	   "mv /srv/work /srv/w2 is refused");
	ok(prof && !sbpl_may_rename(prof, "/srv", "/srv2",
				    SBPL_VNODE_DIRECTORY),
	   "mv /srv /srv2 is refused");
	ok(prof && !dt_may(prof, "file-write-data", "/srv/work/config"),
	   "/srv/work/config stays read-only");
	ok(prof && dt_may(prof, "file-write-data", "/srv/work/other") &&
	   sbpl_may_rename(prof, "/srv/work/a", "/srv/work/b",
			   SBPL_VNODE_REGULAR),
	   "the rest of the writable root stays writable");
	dt_profile_free(prof);
	tl_compiled_free(&c);
}

/* Hole 4: an absent denied path cannot be planted through an ancestor. */
static void test_hole_plant(void)
{
	static const struct {
		const char *rules;
		const char *root;
		const char *ancestors[3];
	} cases[] = {
		{ "rw:/srv/**\n!deny:/srv/app/.env\n", "/srv",
		  { "/srv/app", "/srv", NULL } },
		{ "rw:/srv/**\n!deny:/srv/a/b/c\n", "/srv",
		  { "/srv/a/b", "/srv/a", "/srv" } },
		{ "rw:/tmp/**\n!deny:/tmp/app/.env\n", "/tmp",
		  { "/tmp/app", "/private/tmp/app", NULL } },
	};
	size_t i, j;

	for (i = 0; i < array_size(cases); i++) {
		struct tl_compiled c;
		struct sbpl_profile *prof = dt_profile_of(&c, cases[i].rules);
		const char *last = strrchr(cases[i].rules, ':') + 1;
		int n = (int)strcspn(last, "\n");
		char *x = xasprintf("%s/x", cases[i].root);
		char *xenv = xasprintf("%s/x/.env", cases[i].root);

		ok(prof != NULL, "table %zu compiles", i);
		for (j = 0; j < 3 && cases[i].ancestors[j]; j++) {
			const char *a = cases[i].ancestors[j];

			ok(prof && !sbpl_may_create(prof, a,
						    SBPL_VNODE_SYMLINK),
			   "deny:%.*s: ln -s %s %s is refused", n, last, x, a);
			ok(prof && !sbpl_may_rename(prof, x, a,
						    SBPL_VNODE_DIRECTORY),
			   "deny:%.*s: mv %s %s (prepared elsewhere) is "
			   "refused", n, last, x, a);
		}
		ok(prof && dt_may(prof, "file-write-data", xenv) &&
		   sbpl_may_create(prof, x, SBPL_VNODE_DIRECTORY) &&
		   sbpl_may_create(prof, xenv, SBPL_VNODE_SYMLINK),
		   "table %zu: elsewhere the writable root stays writable", i);
		free(xenv);
		free(x);
		dt_profile_free(prof);
		tl_compiled_free(&c);
	}
}

/*
 * The "**" gap: a directory a "**" (or a later segment) stands for has
 * no guard, so it could be renamed out of the match and back, or be
 * created as a symbolic link to elsewhere.  Such a row is refused on
 * darwin wherever a writable region reaches below its fixed prefix; a
 * row no writable region reaches, and shapes that re-match wherever
 * the tree goes, still compile and hold.
 */
static void test_hole_starstar(void)
{
	static const struct {
		const char *rules;
		const char *row;	/* the refused row's text */
		const char *a;		/* an ancestor below the prefix */
		const char *dst;	/* where it goes */
		const char *rest;	/* the decided path below it */
	} refused[] = {
		{ "rw:/srv/**\nrw:/tmp/**\n!deny:/srv/**/.env\n",
		  "row 2 '!deny:/srv/**/.env'", "/srv/app", "/tmp/zz",
		  "/.env" },
		{ "rw:/srv/**\n!ro:/srv/**/work/config\n",
		  "row 1 '!ro:/srv/**/work/config'", "/srv/a/work",
		  "/srv/a/zz", "/config" },
		{ "@default write rw\n!deny:**/work/config\n",
		  "row 0 '!deny:**/work/config'", "/u/work", "/u/zz",
		  "/config" },
		{ "!rw:/tmp/**\ndeny:/srv/**/.env\n!rw:/srv/*\n",
		  "row 1 'deny:/srv/**/.env'", "/srv/app", "/tmp/zz",
		  "/.env" },
	};
	size_t i;

	for (i = 0; i < array_size(refused); i++) {
		struct tl_compiled c;
		struct sbpl_profile *prof;
		char *path = xasprintf("%s%s", refused[i].a, refused[i].rest);
		char *moved = xasprintf("%s%s", refused[i].dst,
					refused[i].rest);

		if (ok(!tl_compile(&c, refused[i].rules, "darwin",
				   TL_CLASSIFY | TL_QUIET), "table %zu loads",
		       i) && c.classified) {
			char *want = xasprintf("%s is unsupported on darwin",
					       refused[i].row);

			ok(tl_has_error(&c.diags, want) &&
			   tl_has_error(&c.diags, "renamed") &&
			   tl_has_error(&c.diags, "symbolic link"),
			   "%s: refused, naming the row, darwin and the "
			   "reason", refused[i].row);
			free(want);
			tl_compiled_free(&c);
			free(moved);
			free(path);
			continue;
		}
		tl_compiled_free(&c);
		prof = dt_profile_of(&c, refused[i].rules);
		ok(!(prof && sbpl_may_rename(prof, refused[i].a,
					     refused[i].dst,
					     SBPL_VNODE_DIRECTORY) &&
		     sbpl_may_rename(prof, refused[i].dst, refused[i].a,
				     SBPL_VNODE_DIRECTORY) &&
		     dt_may_write(prof, moved)),
		   "%s: mv %s %s, write, move back is refused",
		   refused[i].row, refused[i].a, refused[i].dst);
		ok(!(prof && sbpl_may_create(prof, refused[i].a,
					     SBPL_VNODE_SYMLINK) &&
		     dt_may_write(prof, moved)),
		   "%s: ln -s %s %s, write %s is refused", refused[i].row,
		   refused[i].dst, refused[i].a, path);
		dt_profile_free(prof);
		tl_compiled_free(&c);
		free(moved);
		free(path);
	}
}

/*
 * The carve: a higher-priority rw row that matches a directory inside a
 * ro or deny region, but not what is below it, would let the directory
 * be moved out, filled and moved back.  The ro or deny row is refused;
 * ending the rw row in "**", or raising the protecting row, compiles.
 */
static void test_carve(void)
{
	static const struct {
		const char *rules;
		const char *row;
	} refused[] = {
		{ "rw:/tmp/**\n!rw:/srv/**/.env\ndeny:/srv\n",
		  "row 2 'deny:/srv'" },
		{ "rw:/tmp/**\n!rw:/srv/*\nro:/srv/**\n",
		  "row 2 'ro:/srv/**'" },
		{ "@default write rw\n!!rw:/srv/*/config\n"
		  "!deny:/srv/work/config\n",
		  "row 1 '!deny:/srv/work/config'" },
	};
	struct tl_compiled c;
	struct sbpl_profile *prof;
	size_t i;

	for (i = 0; i < array_size(refused); i++) {
		char *want = xasprintf("%s is unsupported on darwin",
				       refused[i].row);

		ok(!tl_compile(&c, refused[i].rules, "darwin",
			       TL_CLASSIFY | TL_QUIET) && c.classified &&
		   tl_has_error(&c.diags, want) &&
		   tl_has_error(&c.diags, "renamed to another writable place"),
		   "%s below a higher rw row opening a directory in it: "
		   "refused, naming the row, darwin and the reason",
		   refused[i].row);
		free(want);
		tl_compiled_free(&c);
	}

	prof = dt_profile_of(&c, "rw:/tmp/**\n!rw:/srv/**/.env/**\n"
			  "deny:/srv\n");
	ok(prof != NULL, "an rw row ending in '/**' above deny:/srv compiles");
	dt_profile_free(prof);
	tl_compiled_free(&c);
	prof = dt_profile_of(&c, "rw:/tmp/**\n!rw:/srv/**/.env\n!!deny:/srv\n");
	ok(prof && !dt_may_write(prof, "/srv/app/.env") &&
	   !sbpl_may_unlink(prof, "/srv/app/.env", SBPL_VNODE_DIRECTORY),
	   "a deny row above the rw row compiles and keeps the directory");
	dt_profile_free(prof);
	tl_compiled_free(&c);
}

/* Neighbours of the "**" gap that compile and hold. */
static void test_starstar_neighbours(void)
{
	struct tl_compiled c;
	struct sbpl_profile *prof;

	prof = dt_profile_of(&c, "rw:/tmp/**\ndeny:/etc/**/shadow\n");
	ok(prof != NULL, "deny:/etc/**/shadow outside every writable region "
	   "compiles");
	ok(prof && !sbpl_may_rename(prof, "/etc/a", "/tmp/zz",
				    SBPL_VNODE_DIRECTORY) &&
	   !sbpl_may_create(prof, "/etc/a", SBPL_VNODE_SYMLINK) &&
	   !dt_may(prof, "file-read-data", "/etc/a/shadow"),
	   "... and /etc/a can be neither moved nor made a link");
	dt_profile_free(prof);
	tl_compiled_free(&c);

	prof = dt_profile_of(&c, "rw:/srv/**\nrw:/tmp/**\n!deny:**/.env\n");
	ok(prof != NULL, "!deny:**/.env inside a writable root compiles");
	ok(prof && sbpl_may_rename(prof, "/srv/app", "/tmp/zz",
				   SBPL_VNODE_DIRECTORY) &&
	   !dt_may_write(prof, "/tmp/zz/.env") &&
	   !dt_may_write(prof, "/srv/app/.env"),
	   "... /srv/app moves, and .env is denied wherever it goes");
	dt_profile_free(prof);
	tl_compiled_free(&c);

	prof = dt_profile_of(&c, "rw:/srv/**\nrw:/tmp/**\n!ro:/srv/*/config\n");
	ok(prof != NULL, "!ro:/srv/*/config inside a writable root compiles");
	ok(prof && !sbpl_may_unlink(prof, "/srv/a", SBPL_VNODE_DIRECTORY) &&
	   !sbpl_may_create(prof, "/srv/a", SBPL_VNODE_SYMLINK) &&
	   !dt_may_write(prof, "/srv/a/config"),
	   "... its '*' directories are guarded: not moved, not a link");
	dt_profile_free(prof);
	tl_compiled_free(&c);

	prof = dt_profile_of(&c, "rw:/srv/**\n!deny:/srv/work/**\n");
	ok(prof != NULL, "!deny:/srv/work/** (a trailing '**') compiles");
	dt_profile_free(prof);
	tl_compiled_free(&c);
}

int main(void)
{
	test_hole_devices();
	test_hole_loopback();
	test_hole_ro_rename();
	test_hole_plant();
	test_hole_starstar();
	test_starstar_neighbours();
	test_carve();
	return done_testing();
}
