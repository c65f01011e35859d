/* SPDX-License-Identifier: MIT */
/*
 * winagree_int.h - what the files of tests/windows/test_winagree share:
 * the hosts and the launcher's application of a plan to them
 * (winagree_host.c), the probes and their judgement (winagree_judge.c),
 * and the driver (winagree.c: tables, vboxc, counts).  Internal to the
 * test.
 */
#ifndef VBOX_WINAGREE_INT_H
#define VBOX_WINAGREE_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "winmodel.h"

struct aclplan;

/* The test user and the groups of a standard user's token. */
#define WA_USER "S-1-5-21-1004336348-1177238915-682003330-1001"
#define WA_SYSTEM "S-1-5-18"
#define WA_ADMINS "S-1-5-32-544"
#define WA_USERS "S-1-5-32-545"
#define WA_AUTH "S-1-5-11"
#define WA_EVERYONE "S-1-1-0"
#define WA_INSTALLER \
	"S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464"

/* The hosts (winagree_host.c). */
enum wa_host {
	WA_PROFILE, /* C:\Users\me: a profile, the user's full control */
	WA_FULL, /* C:\Data made by the user, who granted itself full control */
	WA_MODIFY, /* C:\Data made by the user: Authenticated Users' modify */
	WA_NHOSTS,
};

const char *wa_host_name(enum wa_host h);
/* wa_host_base - the folder the rows live in ("C:\Users\me", "C:\Data"). */
const char *wa_host_base(enum wa_host h);
/* wa_host_build - the host's objects, as doc/launcher.md describes them. */
void wa_host_build(enum wa_host h, struct wm_state *st);

/* The launching user's own token: medium, not restricted. */
void wa_user_token(struct wm_token *t);
/* The child's: restricted by @cap, the user and the groups; low if @low. */
void wa_child_token(struct wm_token *t, const char *cap, bool low);

/* Plants for the mutation checks (and VBOX_WINAGREE_FAULT). */
enum wa_fault {
	WA_FAULT_DENY_ACE = 1u << 0, /* the entries' deny ACEs dropped */
	WA_FAULT_INHERIT = 1u << 1, /* the entries' inheritance cleared */
	WA_FAULT_LABEL = 1u << 2, /* the writable roots' low labels dropped */
	WA_FAULT_TOKEN = 1u << 3, /* the token's low integrity dropped */
	WA_FAULT_PIN = 1u << 4, /* the pins dropped */
	WA_FAULT_PIN_FDC = 1u << 5, /* FILE_DELETE_CHILD out of the pins */
	WA_FAULT_PLACEHOLDER = 1u << 6, /* no placeholders */
	WA_FAULT_OWNER_RIGHTS = 1u << 7, /* the OWNER RIGHTS ACEs dropped */
	WA_FAULT_GAPS = 1u << 8, /* the inheritance gaps left open */
	/* no placeholder right below a drive root (the plan before issue 35) */
	WA_FAULT_DRIVE_PH = 1u << 9,
	/* the gap walk stops at pins too (the launcher before issue 35) */
	WA_FAULT_WALK_PINS = 1u << 10,
};

/* wa_fault_name - the name of one fault bit; wa_fault_parse the reverse. */
const char *wa_fault_name(unsigned bit);
int wa_fault_parse(const char *list, unsigned *out);
#define WA_FAULT_ALL 0x7ffu

#define WA_MAX_ROOTS 16

/**
 * struct wa_applied - what applying a plan did
 * @refused: the launcher refuses the launch (125): @why says why
 * @roots: the writable roots that stay read-only: missing (skipped) or
 *	downgraded (their DACL or label could not be written), @nroots
 * @placeholders: placeholders made
 * @gaps: objects below a deny or ro entry given its ACEs explicitly
 */
struct wa_applied {
	bool refused;
	char why[WM_PATH_MAX + 96];
	char roots[WA_MAX_ROOTS][WM_PATH_MAX];
	size_t nroots;
	size_t placeholders;
	size_t gaps;
};

/*
 * wa_mutate - plant @faults (WA_FAULT_* bits that change the plan) in
 * @ap, as a damaged plan would carry them.
 */
void wa_mutate(struct aclplan *ap, unsigned faults);
/*
 * wa_apply - carry @ap out on @st as vbox-exec.exe does (win_main.c's
 * apply(): each object in order, its placeholder, its merge through
 * wacl_merge(), its label, the gap walk of wobj_walks() objects with
 * wacl_gap()), the launching user's rights checked at each step.
 */
void wa_apply(struct wm_state *st, const struct aclplan *ap, unsigned faults,
	      struct wa_applied *out);

/* The paths the probes name, with explain's answers (winagree_judge.c). */

#define WA_MAX_PATHS 128

/**
 * struct wa_path - one path probed
 * @path: the native path
 * @dir: what a create makes there
 * @rd: explain allows reading it
 * @wr: explain allows writing it
 * @wrow: the row that decides the write (-1: the default)
 */
struct wa_path {
	char path[WM_PATH_MAX];
	bool dir;
	bool rd;
	bool wr;
	int wrow;
};

struct wa_universe {
	struct wa_path p[WA_MAX_PATHS];
	size_t n;
};

/* wa_universe_build - every path probed on @h (explain's answers unset). */
void wa_universe_build(enum wa_host h, struct wa_universe *u);
int wa_upath(const struct wa_universe *u, const char *path);

/* The narrower classes (doc/launcher.md lists each). */
enum wa_class {
	WA_NARROW_HOST, /* the user's own rights refuse it too */
	WA_NARROW_PIN, /* a pin refuses it */
	WA_NARROW_DAC, /* a DACL change of a writable object */
	WA_NARROW_ROOT, /* below a writable root that stays read-only */
	WA_NARROW_GLOB, /* a path an absorbed rw glob decides */
	WA_NCLASSES,
};

const char *wa_class_name(enum wa_class c);

/**
 * struct wa_counts - what the probes found
 * @probes: operations compared (@deep of them after one change)
 * @holes: the model allows what explain denies
 * @narrow: narrower answers by class; @unclassified: in none of them
 */
struct wa_counts {
	size_t probes;
	size_t deep;
	size_t holes;
	size_t narrow[WA_NCLASSES];
	size_t unclassified;
};

/**
 * struct wa_judge - one table on one host, ready to probe
 * @u: the paths and explain's answers
 * @rules: the table's rows by index (for the glob class), @nrules
 * @applied: what applying the plan did
 * @child: the child's token; @user: the user's own
 * @name: "table 7 on modify", for messages
 * @text: the rules, printed with a first hole
 * @quiet: print nothing (the mutation checks)
 * @shown: holes printed so far
 * @show: how many to print (VBOX_WINAGREE_SHOW, default 24)
 */
struct wa_judge {
	const struct wa_universe *u;
	const char *const *rules;
	size_t nrules;
	const struct wa_applied *applied;
	const struct wm_token *child;
	const struct wm_token *user;
	const char *name;
	const char *text;
	bool quiet;
	size_t *shown;
	size_t show;
};

/*
 * wa_probe_all - every operation on every path of @j->u in @st, then,
 * after each change the table allows and the model lets the child make,
 * every operation again (holes only).  Adds to @c.
 */
void wa_probe_all(const struct wa_judge *j, const struct wm_state *st,
		  struct wa_counts *c);

#endif /* VBOX_WINAGREE_INT_H */
