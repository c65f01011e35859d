/* SPDX-License-Identifier: MIT */
/*
 * test_container_rules.c - container mode's Landlock rules from mount
 * lists (runtime/walls/container_rules.h), against a real tree made in
 * a temporary directory.  What the kernel then does with the rules is
 * tests/launch/exec_container.sh's and tests/launch/exec_container_agree.sh's.
 */
#include <vbox.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linux_artifact.h"
#include "tap.h"
#include "walls/container_rules.h"

static char top[256];

static char *at(const char *rel)
{
	static char buf[4][512];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", top, rel);
	return buf[k];
}

static void mkfile(const char *rel)
{
	int fd = open(at(rel), O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || close(fd) < 0)
		BUG("cannot make %s", at(rel));
}

static void base(struct lx_artifact *a)
{
	memset(a, 0, sizeof(*a));
	lx_add(a, LX_BIND_RO, "/", "/", 0, LX_ROW_NONE);
	lx_add(a, LX_DEV, NULL, "/dev", 0, LX_ROW_NONE);
	lx_add(a, LX_PROC, NULL, "/proc", 0, LX_ROW_NONE);
}

/* The rights of the rule at @path, or 0 when there is none. */
static uint64_t rule_at(const struct container_rules *cr, const char *path)
{
	size_t i;

	for (i = 0; i < cr->nrules; i++)
		if (strcmp(cr->rules[i].path, path) == 0)
			return cr->rules[i].rights;
	return 0;
}

static bool narrowed(const struct container_rules *cr, uint32_t row)
{
	size_t i;

	for (i = 0; i < cr->nnarrowed; i++)
		if (cr->narrowed[i].row == row)
			return true;
	return false;
}

static int build(struct lx_artifact *a, struct container_rules *cr, char **err)
{
	int rc = container_rules_build(a, false, cr, err);

	lx_artifact_release(a);
	return rc;
}

int main(void)
{
	struct lx_artifact a;
	struct container_rules cr;
	char *err = NULL;
	const char *tmp = getenv("TMPDIR");

	snprintf(top, sizeof(top), "%s/vbox-crules.XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(top))
		BUG("mkdtemp");
	mkdir(at("w"), 0755);
	mkdir(at("w/hooks"), 0755);
	mkdir(at("w/src"), 0755);
	mkdir(at("secret"), 0755);
	mkfile("w/a.txt");
	mkfile("w/hooks/pre");
	mkfile("secret/key");
	mkfile("plain.txt");
	mkfile("key.pem");

	/* A writable root alone: read at /, everything at the root. */
	base(&a);
	lx_add(&a, LX_BIND_RW, at("w"), at("w"), 0, 0);
	ok(build(&a, &cr, &err) == 0, "a writable root builds");
	ok(rule_at(&cr, "/") & CR_READ_DIR, "/ is listable");
	ok(container_granted_at(&cr, "/etc/passwd") & CR_READ_FILE,
	   "files elsewhere are readable");
	is_int(container_granted_at(&cr, at("w/a.txt")) & CR_ALL, CR_ALL,
	       "every right in the root");
	ok(!narrowed(&cr, 0), "the root's row is not narrower");
	ok(container_granted_at(&cr, at("w/new")) & CR_MAKE_SOCK,
	   "a socket may be made in the root");
	ok(!(container_granted_at(&cr, at("plain.txt")) & CR_WRITE_FILE),
	   "no write outside it");
	ok(rule_at(&cr, "/dev/null") & CR_WRITE_FILE, "/dev/null writable");
	ok(!(container_granted_at(&cr, "/dev/sda") & (CR_WRITE_FILE |
							CR_READ_FILE)),
	   "no other device opened (a disk, read by a root-started child)");
	ok(container_granted_at(&cr, "/dev/null") & CR_READ_FILE,
	   "/dev/null is readable");
	container_rules_release(&cr);

	/* A read-only hole: read stays at /, the root loses entries only. */
	base(&a);
	lx_add(&a, LX_BIND_RW, at("w"), at("w"), 0, 0);
	lx_add(&a, LX_BIND_RO, at("w/hooks"), at("w/hooks"), 0, 1);
	ok(build(&a, &cr, &err) == 0, "a read-only hole builds");
	ok(container_granted_at(&cr, at("w/hooks/pre")) & CR_READ_FILE,
	   "the hole stays readable");
	ok(!(rule_at(&cr, at("w")) & CR_MAKE_REG), "the root cannot make "
	   "entries itself");
	ok(container_granted_at(&cr, at("w/a.txt")) & CR_WRITE_FILE,
	   "but its files stay writable (granted entry by entry)");
	ok(!(rule_at(&cr, at("w/hooks")) & CR_WRITE), "the hole gets none");
	ok(rule_at(&cr, at("w/src")) & CR_MAKE_REG,
	   "a sibling of the hole keeps making entries");
	ok(!(container_granted_at(&cr, at("w/hooks/pre")) & CR_WRITE_FILE),
	   "the hole's files are read-only");
	ok(!(container_granted_at(&cr, at("w")) & CR_REMOVE_DIR),
	   "the hole's directory cannot be removed or renamed away");
	ok(narrowed(&cr, 1) && !narrowed(&cr, 0), "the hole's row is "
	   "reported narrower, the root's not");
	container_rules_release(&cr);

	/* A denied file: listing stays whole, reads are split. */
	base(&a);
	lx_add(&a, LX_BIND_RO, "/dev/null", at("key.pem"), 0, 2);
	ok(build(&a, &cr, &err) == 0, "a denied file builds");
	ok(rule_at(&cr, "/") & CR_READ_DIR, "/ stays listable");
	ok(!(rule_at(&cr, "/") & CR_READ_FILE), "but reads are split at /");
	ok(!(container_granted_at(&cr, at("key.pem")) & CR_READ_FILE),
	   "the file cannot be read");
	ok(container_granted_at(&cr, at("plain.txt")) & CR_READ_FILE,
	   "its sibling can");
	ok(container_granted_at(&cr, "/etc/passwd") & CR_READ_FILE,
	   "far away files can");
	ok(narrowed(&cr, 2), "the row is reported narrower");
	container_rules_release(&cr);

	/* A denied directory: its parents cannot be listed. */
	base(&a);
	lx_add(&a, LX_TMPFS, NULL, at("secret"), 0111, 3);
	lx_add(&a, LX_REMOUNT_RO, NULL, at("secret"), 0, 3);
	ok(build(&a, &cr, &err) == 0, "a denied directory builds");
	ok(!(container_granted_at(&cr, at("secret/key")) & CR_READ),
	   "nothing in it is readable");
	ok(!(container_granted_at(&cr, top) & CR_READ_DIR),
	   "its parent is not listable");
	ok(container_granted_at(&cr, at("w/a.txt")) & CR_READ_FILE,
	   "a sibling's files are readable");
	container_rules_release(&cr);

	/* An absent denied path in a writable root: no creating there. */
	base(&a);
	lx_add(&a, LX_BIND_RW, at("w"), at("w"), 0, 0);
	lx_add(&a, LX_TMPFS, NULL, at("w/.env"), 0111, 4);
	ok(build(&a, &cr, &err) == 0, "an absent denied path builds");
	ok(!(container_granted_at(&cr, at("w")) & CR_MAKE_REG),
	   "its parent cannot make entries (it would make the path)");
	ok(narrowed(&cr, 4), "the row is reported narrower");
	container_rules_release(&cr);

	/* What container mode cannot hold. */
	base(&a);
	lx_add(&a, LX_TMPFS, NULL, at("w"), 01777, 5);
	ok(build(&a, &cr, &err) < 0 && err && strstr(err, "row 5") &&
	   strstr(err, "writable tmpfs"), "a writable tmpfs is refused, "
	   "naming the row");
	diag("%s", err ? err : "");
	free(err);
	err = NULL;
	base(&a);
	lx_add(&a, LX_BIND_RO, at("w"), at("secret"), 0, 6);
	ok(build(&a, &cr, &err) < 0 && err && strstr(err, "row 6"),
	   "a bind from elsewhere is refused, naming the row");
	free(err);
	err = NULL;
	if (symlink(at("w"), at("link")) == 0) {
		base(&a);
		lx_add(&a, LX_BIND_RW, at("link"), at("link"), 0, 7);
		ok(build(&a, &cr, &err) < 0 && err &&
		   strstr(err, "symbolic link"),
		   "a granted path through a link is refused");
		free(err);
		err = NULL;
	}
	base(&a);
	lx_add(&a, LX_TMPFS, NULL, "/proc/sys", 0111, 8);
	ok(build(&a, &cr, &err) < 0 && err && strstr(err, "/proc"),
	   "a row hiding part of /proc is refused");
	free(err);
	err = NULL;

	/* @default write rw: /proc, /sys and /dev stay read-only. */
	base(&a);
	a.m[0].kind = LX_BIND_RW;
	ok(build(&a, &cr, &err) == 0, "a writable / builds");
	ok(!(container_granted_at(&cr, "/proc/sys/kernel/core_pattern") &
	     CR_WRITE_FILE), "/proc stays read-only");
	ok(!(container_granted_at(&cr, "/sys/kernel") & CR_WRITE_FILE),
	   "/sys stays read-only");
	ok(container_granted_at(&cr, at("plain.txt")) & CR_WRITE_FILE,
	   "files elsewhere are writable");
	container_rules_release(&cr);

	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", top);
		if (system(cmd) != 0)
			diag("could not remove %s", top);
	}
	return done_testing();
}
