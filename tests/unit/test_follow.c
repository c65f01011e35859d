/* SPDX-License-Identifier: MIT */
/*
 * test_follow.c - the table's view of a resolved host path
 * (runtime/linux/follow.h): does the table give a path and everything
 * below it one effect?  Hand-made plans, each row in priority order as
 * plan_decode() would hand them over; the launcher's side (the mount
 * moved or refused) is tests/launch/exec_pinned.sh.
 */
#include <vbox.h>

#include "follow.h"
#include "ir.h"
#include "plan.h"
#include "tap.h"

#define NONE UINT32_MAX

/* A plan of @n rows "EFFECT:TARGET", given in priority order. */
static void make_plan(struct plan *p, uint8_t default_write,
		      const uint8_t *effects, const char *const *targets,
		      size_t n)
{
	size_t i;

	memset(p, 0, sizeof(*p));
	p->target = TARGET_LINUX;
	p->default_write = default_write;
	p->fs = xcalloc(n ? n : 1, sizeof(*p->fs));
	p->nfs = n;
	for (i = 0; i < n; i++) {
		p->fs[i].index = (uint32_t)i;
		p->fs[i].prio = (uint32_t)i;
		p->fs[i].effect = effects[i];
		p->fs[i].target = (char *)targets[i];
		p->fs[i].source = (char *)"test.rules";
	}
}

/* One question; @want_same, and (when not) the deciding row and effect. */
static void ask(const struct plan *p, const char *path, uint8_t effect,
		bool want_same, uint32_t want_row, uint8_t want_effect,
		bool want_below, const char *what)
{
	struct follow_view *v;
	char *err = NULL;
	uint32_t row;
	uint8_t got;
	bool below, same;

	v = follow_view_new(p, &err);
	if (!ok(v != NULL, "%s: the view builds", what)) {
		diag("  %s", err);
		free(err);
		return;
	}
	same = follow_same_effect(v, path, effect, &row, &got, &below);
	ok(same == want_same, "%s: %s", what, want_same ? "same" : "not same");
	if (!want_same) {
		ok(row == want_row && got == want_effect &&
		   below == want_below,
		   "%s: decided by row %d (%s)%s", what,
		   want_row == NONE ? -1 : (int)want_row,
		   effect_name(want_effect), want_below ? ", below" : "");
		if (row != want_row || got != want_effect || below != want_below)
			diag("  got row %d (%s)%s", row == NONE ? -1 : (int)row,
			     effect_name(got), below ? ", below" : "");
	}
	follow_view_free(v);
}

int main(void)
{
	struct plan p;

	{
		static const uint8_t e[] = { EFFECT_RW };
		static const char *const t[] = { "/a/**" };

		make_plan(&p, EFFECT_DENY, e, t, 1);
		ask(&p, "/a/b", EFFECT_RW, true, 0, 0, false,
		    "'/a/**' gives /a/b rw");
		ask(&p, "/a", EFFECT_RW, true, 0, 0, false,
		    "'/a/**' gives /a itself rw");
		ask(&p, "/c", EFFECT_RW, false, NONE, EFFECT_RO, false,
		    "no row: reads allowed, writes denied by default");
		ask(&p, "/c", EFFECT_RO, true, 0, 0, false,
		    "... which is read-only");
		free(p.fs);
	}
	{
		static const uint8_t e[] = { EFFECT_RO, EFFECT_RW };
		static const char *const t[] = { "/t/x", "/t" };

		make_plan(&p, EFFECT_DENY, e, t, 2);
		ask(&p, "/t", EFFECT_RW, false, 0, EFFECT_RO, true,
		    "a read-only hole below a writable root");
		ask(&p, "/t/y", EFFECT_RW, true, 0, 0, false,
		    "a sibling of the hole");
		ask(&p, "/t/x/z", EFFECT_RO, true, 0, 0, false,
		    "inside the hole, read-only");
		free(p.fs);
	}
	{
		static const uint8_t e[] = { EFFECT_DENY, EFFECT_RO };
		static const char *const t[] = { "/d/*.pem", "/d" };

		make_plan(&p, EFFECT_DENY, e, t, 2);
		ask(&p, "/d", EFFECT_RO, false, 0, EFFECT_DENY, true,
		    "a denied glob of files below");
		ask(&p, "/d/k.txt", EFFECT_RO, true, 0, 0, false,
		    "a name the glob does not match");
		ask(&p, "/d/k.pem", EFFECT_RO, false, 0, EFFECT_DENY, false,
		    "a name the glob matches");
		free(p.fs);
	}
	{
		static const uint8_t e[] = { EFFECT_RW };
		static const char *const t[] = { "/w/**/out" };

		make_plan(&p, EFFECT_DENY, e, t, 1);
		ask(&p, "/w/a", EFFECT_RW, false, NONE, EFFECT_RO, false,
		    "'**' in the middle covers only what ends in 'out'");
		ask(&p, "/w/a/out", EFFECT_RW, false, NONE, EFFECT_RO, true,
		    "... and never a whole subtree: below, the default");
		free(p.fs);
	}
	{
		make_plan(&p, EFFECT_RW, NULL, NULL, 0);
		ask(&p, "/x", EFFECT_RW, true, 0, 0, false,
		    "@default write rw, no row: writable");
		ask(&p, "/x", EFFECT_RO, false, NONE, EFFECT_RW, false,
		    "... so a read-only mount is not the table's view");
		free(p.fs);
	}
	{
		static const uint8_t e[] = { EFFECT_DENY };
		static const char *const t[] = { "/s" };

		make_plan(&p, EFFECT_DENY, e, t, 1);
		ask(&p, "/s", EFFECT_DENY, true, 0, 0, false,
		    "a denied directory");
		ask(&p, "/s/k", EFFECT_DENY, true, 0, 0, false,
		    "... and below it");
		ask(&p, "/", EFFECT_DENY, false, NONE, EFFECT_RO, false,
		    "the root is not denied");
		free(p.fs);
	}
	{
		static const uint8_t e[] = { EFFECT_DENY, EFFECT_RW };
		static const char *const t[] = { "**/.ssh", "/h" };

		make_plan(&p, EFFECT_DENY, e, t, 2);
		ask(&p, "/h", EFFECT_RW, false, 0, EFFECT_DENY, true,
		    "a relative '**/' deny first reaches below everything");
		free(p.fs);
	}
	{
		static const uint8_t e[] = { EFFECT_RW, EFFECT_DENY };
		static const char *const t[] = { "/h", "**/.ssh" };

		make_plan(&p, EFFECT_DENY, e, t, 2);
		ask(&p, "/h", EFFECT_RW, true, 0, 0, false,
		    "... but not past a higher row covering the subtree");
		free(p.fs);
	}
	return done_testing();
}
