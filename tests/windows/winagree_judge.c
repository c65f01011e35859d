/* SPDX-License-Identifier: MIT */
/*
 * winagree_judge.c - the probes of the windows agreement test and their
 * judgement (winagree_int.h): every operation on every path of the
 * host's universe (the rows' paths, what lies below, beside and above
 * them, names that do not exist yet), the model's answer against what
 * explain's answers imply, and each narrower answer put in its class.
 *
 * What explain must allow for each operation (the table speaks of reads
 * and writes of paths):
 *
 *   read P        read P
 *   write P       write P (the data, EAs and attributes)
 *   setacl P      write P (WRITE_DAC: a DACL is written)
 *   delete P      write P and everything below P (it all goes)
 *   rename P      write P, P.ren, P's parent and everything below P
 *   create P      write P, every missing directory made on the way, and
 *                 the existing directory it is made in ("mkdir -p")
 *
 * A hole is an operation the model lets the child do where explain
 * denies one of those.  After each change the table allows (a delete, a
 * rename, a create) that the model lets the child make, every probe runs
 * again on the changed host, and only holes count there: a protected
 * entry renamed away through its writable parent and made afresh shows
 * up as a write the table denies.
 */
#include <vbox.h>

#include <stdio.h>

#include "tap.h"
#include "winagree_int.h"

enum op {
	OP_READ,
	OP_WRITE,
	OP_SETACL,
	OP_DELETE,
	OP_RENAME,
	OP_CREATE,
	OP_N,
};

static const char *const op_names[OP_N] = { "read",   "write",  "setacl",
					    "delete", "rename", "create" };

static const char *const class_names[WA_NCLASSES] = { "host", "pin", "dac",
						      "root", "glob" };

const char *wa_class_name(enum wa_class c)
{
	return class_names[c];
}

/* ------------------------------------------------------------------ */
/* The universe. */

static void add_path(struct wa_universe *u, const char *path, bool dir)
{
	if (u->n >= WA_MAX_PATHS)
		BUG("more than %d probe paths", WA_MAX_PATHS);
	snprintf(u->p[u->n].path, WM_PATH_MAX, "%s", path);
	u->p[u->n].dir = dir;
	u->n++;
}

int wa_upath(const struct wa_universe *u, const char *path)
{
	size_t i, k;

	for (i = 0; i < u->n; i++) {
		const char *a = u->p[i].path;

		for (k = 0; a[k] && path[k]; k++) {
			char x = a[k] >= 'A' && a[k] <= 'Z' ?
					 (char)(a[k] + 32) :
					 a[k];
			char y = path[k] >= 'A' && path[k] <= 'Z' ?
					 (char)(path[k] + 32) :
					 path[k];

			if (x != y)
				break;
		}
		if (!a[k] && !path[k])
			return (int)i;
	}
	return -1;
}

void wa_universe_build(enum wa_host h, struct wa_universe *u)
{
	/* Below the base: what exists, then names that do not ("/": a
	 * directory when made). */
	static const char *const rel[] = {
		"/",	"a/",	"a\\c/", "a\\c\\f", "a\\d/", "a\\g",
		"b/",	"b\\h", "e",	 "m/",	    "m\\y",  "a\\n/",
		"a\\c\\x",
	};
	const char *base = wa_host_base(h);
	char path[WM_PATH_MAX];
	size_t i, len, first;

	memset(u, 0, sizeof(*u));
	add_path(u, "C:\\", true);
	if (h == WA_PROFILE)
		add_path(u, "C:\\Users", true);
	for (i = 0; i < array_size(rel); i++) {
		len = strlen(rel[i]);
		if (!strcmp(rel[i], "/")) {
			add_path(u, base, true);
			continue;
		}
		snprintf(path, sizeof(path), "%s\\%.*s", base,
			 (int)(rel[i][len - 1] == '/' ? len - 1 : len), rel[i]);
		add_path(u, path, rel[i][len - 1] == '/');
	}
	/* A missing hole right below the drive root, and below it. */
	add_path(u, "C:\\Z", true);
	add_path(u, "C:\\Z\\q", false);
	/* New names in every directory; every other path's rename target. */
	first = u->n;
	for (i = 0; i < first; i++) {
		if (u->p[i].dir) {
			snprintf(path, sizeof(path), "%s%snew.vbox",
				 u->p[i].path, i ? "\\" : "");
			add_path(u, path, false);
		}
		if (i) {
			snprintf(path, sizeof(path), "%s.ren", u->p[i].path);
			add_path(u, path, u->p[i].dir);
		}
	}
}

/* ------------------------------------------------------------------ */
/* One operation. */

/* What explain was asked about for one operation. */
struct asked {
	size_t idx[WA_MAX_PATHS + 8];
	size_t n;
};

static void ask(struct asked *a, const struct wa_universe *u, const char *p)
{
	int i = wa_upath(u, p);

	/* Moved objects' new paths are not in the universe: not asked. */
	if (i >= 0 && a->n < array_size(a->idx))
		a->idx[a->n++] = (size_t)i;
}

static void ask_below(struct asked *a, const struct wa_universe *u,
		      const struct wm_state *st, int idx)
{
	size_t i, len = strlen(st->obj[idx].path);

	for (i = 0; i < st->n; i++)
		if (st->obj[i].exists && (int)i != idx &&
		    !strncmp(st->obj[i].path, st->obj[idx].path, len) &&
		    st->obj[i].path[len] == '\\')
			ask(a, u, st->obj[i].path);
}

/*
 * Whether @op applies to the path @i in @st (the object exists, or not
 * for a create), and if so the paths explain is asked about in @a.
 */
static bool op_applies(const struct wa_universe *u, const struct wm_state *st,
		       enum op op, size_t i, struct asked *a)
{
	const char *path = u->p[i].path;
	char cur[WM_PATH_MAX], up[WM_PATH_MAX];
	int idx = wm_find(st, path), steps;

	a->n = 0;
	if (op == OP_CREATE) {
		if (idx >= 0)
			return false;
		snprintf(cur, sizeof(cur), "%s", path);
		for (steps = 0; wm_find(st, cur) < 0 && steps < 16; steps++) {
			ask(a, u, cur);
			wm_parent_path(cur, up);
			snprintf(cur, sizeof(cur), "%s", up);
		}
		ask(a, u, cur);
		return true;
	}
	if (idx < 0)
		return false;
	ask(a, u, path);
	if (op == OP_DELETE || op == OP_RENAME) {
		if (st->obj[idx].parent < 0)
			return false;
		ask_below(a, u, st, idx);
	}
	if (op == OP_RENAME) {
		snprintf(cur, sizeof(cur), "%s.ren", path);
		if (wa_upath(u, cur) < 0)
			return false;
		ask(a, u, cur);
		wm_parent_path(path, up);
		ask(a, u, up);
	}
	return true;
}

static bool want_of(const struct wa_universe *u, enum op op,
		    const struct asked *a)
{
	size_t k;

	for (k = 0; k < a->n; k++)
		if (op == OP_READ ? !u->p[a->idx[k]].rd : !u->p[a->idx[k]].wr)
			return false;
	return true;
}

/* The model's answer; with @after, the state once it is done. */
static bool got_of(const struct wa_universe *u, const struct wm_state *st,
		   const struct wm_token *tok, enum op op, size_t i,
		   struct wm_state *after)
{
	const char *path = u->p[i].path;
	char to[WM_PATH_MAX];
	int idx = wm_find(st, path);
	bool got = false;

	switch (op) {
	case OP_READ:
		return wm_can_read(st, idx, tok);
	case OP_WRITE:
		return wm_can_write(st, idx, tok);
	case OP_SETACL:
		return wm_can_setacl(st, idx, tok);
	case OP_DELETE:
		got = wm_can_delete(st, idx, tok);
		if (got && after) {
			wm_state_copy(after, st);
			wm_do_delete(after, idx);
		}
		return got;
	case OP_RENAME:
		snprintf(to, sizeof(to), "%s.ren", path);
		got = wm_can_rename(st, idx, to, tok);
		if (got && after) {
			wm_state_copy(after, st);
			wm_do_rename(after, idx, to);
		}
		return got;
	case OP_CREATE:
		return wm_can_create(st, path, u->p[i].dir, tok, after);
	case OP_N:
	default:
		BUG("operation %d", op);
	}
}

/* ------------------------------------------------------------------ */
/* Narrower answers. */

/* @st without the plan's pins: its explicit, non-inherited denies. */
static void strip_pins(struct wm_state *st, const char *cap)
{
	struct wacl *acl;
	size_t i, k, n;

	for (i = 0; i < st->n; i++) {
		acl = &st->obj[i].dacl;
		for (k = n = 0; k < acl->n; k++) {
			const struct wace *a = &acl->aces[k];

			if (a->type == WACE_DENY && a->sid == cap &&
			    !(a->flags & (WACE_OI | WACE_CI | WACE_INHERITED)))
				continue;
			acl->aces[n++] = *a;
		}
		acl->n = n;
	}
}

static bool at_or_below(const char *path, const char *root)
{
	size_t k;

	for (k = 0; root[k] && path[k]; k++) {
		char x = root[k] >= 'A' && root[k] <= 'Z' ?
				 (char)(root[k] + 32) :
				 root[k];
		char y = path[k] >= 'A' && path[k] <= 'Z' ?
				 (char)(path[k] + 32) :
				 path[k];

		if (x != y)
			return false;
	}
	return !root[k] && (!path[k] || path[k] == '\\');
}

static int classify(const struct wa_judge *j, const struct wm_state *st,
		    enum op op, size_t i, const struct asked *a)
{
	const struct wa_universe *u = j->u;
	struct wm_state bare;
	size_t k, r;
	bool got;
	int idx;

	if (!got_of(u, st, j->user, op, i, NULL))
		return WA_NARROW_HOST;
	wm_state_copy(&bare, st);
	strip_pins(&bare, j->child->rsids[0]);
	got = got_of(u, &bare, j->child, op, i, NULL);
	wm_state_free(&bare);
	if (got)
		return WA_NARROW_PIN;
	idx = wm_find(st, u->p[i].path);
	if (op == OP_SETACL && wm_can_write(st, idx, j->child))
		return WA_NARROW_DAC;
	for (k = 0; k < a->n; k++) {
		const struct wa_path *p = &u->p[a->idx[k]];

		if (p->wrow >= 0 && (size_t)p->wrow < j->nrules &&
		    strpbrk(j->rules[p->wrow], "*?"))
			return WA_NARROW_GLOB;
		for (r = 0; r < j->applied->nroots; r++)
			if (at_or_below(p->path, j->applied->roots[r]))
				return WA_NARROW_ROOT;
	}
	return -1;
}

/* ------------------------------------------------------------------ */
/* Probing. */

struct probing {
	const struct wa_judge *j;
	struct wa_counts *c;
	bool rules_shown;
};

static void show(struct probing *pr, const char *what, const char *after)
{
	const struct wa_judge *j = pr->j;

	if (j->quiet || (*j->shown)++ >= j->show)
		return;
	diag("  %s: %s%s%s", j->name, after ? after : "",
	     after ? ", then " : "", what);
	if (!pr->rules_shown) {
		pr->rules_shown = true;
		diag("    rules: %s", j->text);
	}
}

static void probe_state(struct probing *pr, const struct wm_state *st,
			const char *after)
{
	const struct wa_judge *j = pr->j;
	const struct wa_universe *u = j->u;
	struct asked a;
	char msg[WM_PATH_MAX * 2];
	size_t i;
	bool got, want;
	int op, cls;

	for (i = 0; i < u->n; i++) {
		for (op = 0; op < OP_N; op++) {
			if (!op_applies(u, st, op, i, &a))
				continue;
			want = want_of(u, op, &a);
			got = got_of(u, st, j->child, op, i, NULL);
			pr->c->probes++;
			if (after)
				pr->c->deep++;
			if (got == want)
				continue;
			if (got) {
				pr->c->holes++;
				snprintf(msg, sizeof(msg),
					 "HOLE: %s %s: explain denies it, the "
					 "model lets the child do it",
					 op_names[op], u->p[i].path);
				show(pr, msg, after);
				continue;
			}
			/* Narrower: counted once, on the host as launched. */
			if (after)
				continue;
			cls = classify(j, st, op, i, &a);
			if (cls >= 0) {
				pr->c->narrow[cls]++;
				continue;
			}
			pr->c->unclassified++;
			snprintf(msg, sizeof(msg),
				 "NARROWER, in no class: %s %s: explain allows "
				 "it, the model refuses it",
				 op_names[op], u->p[i].path);
			show(pr, msg, after);
		}
	}
}

void wa_probe_all(const struct wa_judge *j, const struct wm_state *st,
		  struct wa_counts *c)
{
	struct probing pr = { .j = j, .c = c };
	const struct wa_universe *u = j->u;
	struct wm_state next;
	struct asked a;
	char after[WM_PATH_MAX + 16];
	size_t i;
	int op;

	probe_state(&pr, st, NULL);
	/* Every change the table allows and the child can make, then all
	 * probes again. */
	for (i = 0; i < u->n; i++) {
		for (op = OP_DELETE; op <= OP_CREATE; op++) {
			if (!op_applies(u, st, op, i, &a) ||
			    !want_of(u, op, &a) ||
			    !got_of(u, st, j->child, op, i, &next))
				continue;
			snprintf(after, sizeof(after), "%s %s", op_names[op],
				 u->p[i].path);
			probe_state(&pr, &next, after);
			wm_state_free(&next);
		}
	}
}
