/* SPDX-License-Identifier: MIT */
/*
 * winagree_host.c - the hosts of the windows agreement test, the tokens,
 * and the launcher's application of a plan to a host (winagree_int.h).
 *
 * The hosts carry Windows' default ACLs as a standard user finds them
 * (doc/launcher.md, "The access-check agreement test"): the drive root
 * (Administrators and SYSTEM full control, Users read and execute,
 * Authenticated Users modify for what is made below it and "create
 * folders" on the root itself, a high label for the files made there),
 * then either a profile (C:\Users, then C:\Users\me, protected, full
 * control for SYSTEM, Administrators and the user) or a folder the user
 * made in C:\ (C:\Data: what it inherits, and on one host an explicit
 * full control for the user).  Below the base the same small tree each
 * time, made by the user, with two objects whose DACLs have gaps: a
 * protected one (a\d) and one with an explicit allow (b\h).
 */
#include <vbox.h>

#include <stdio.h>

#include "aclplan.h"
#include "winagree_int.h"

static const char *const host_names[WA_NHOSTS] = { "profile", "full",
						   "modify" };

const char *wa_host_name(enum wa_host h)
{
	return host_names[h];
}

const char *wa_host_base(enum wa_host h)
{
	return h == WA_PROFILE ? "C:\\Users\\me" : "C:\\Data";
}

/* ------------------------------------------------------------------ */
/* Tokens. */

static const char *const groups[] = {
	WA_EVERYONE,	 WA_USERS, WA_AUTH, "S-1-5-4" /* INTERACTIVE */,
	"S-1-2-0" /* LOCAL */, "S-1-5-15" /* this organization */,
	"S-1-5-5-0-271324" /* the logon SID */,
};

void wa_user_token(struct wm_token *t)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	t->user = wm_sid(WA_USER);
	t->sids[t->nsids++] = t->user;
	for (i = 0; i < array_size(groups); i++)
		t->sids[t->nsids++] = wm_sid(groups[i]);
	t->il = WM_IL_MEDIUM;
}

void wa_child_token(struct wm_token *t, const char *cap, bool low)
{
	size_t i;

	/* doc/targets.md, "The token": restricting SIDs are the
	 * capability, the user and every enabled group. */
	wa_user_token(t);
	t->restricted = true;
	t->rsids[t->nrsids++] = wm_sid(cap);
	for (i = 0; i < t->nsids; i++)
		t->rsids[t->nrsids++] = t->sids[i];
	t->il = low ? WM_IL_LOW : WM_IL_MEDIUM;
}

/* ------------------------------------------------------------------ */
/* Hosts. */

static struct wace ace(uint8_t type, uint8_t flags, uint32_t mask,
		       const char *sid)
{
	struct wace a = { type, flags, mask, (char *)wm_sid(sid) };

	return a;
}

#define OICI (WACE_OI | WACE_CI)

/* @idx gets @aces explicitly before what it inherits (or alone). */
static void set_explicit(struct wm_state *st, int idx, const struct wace *aces,
			 size_t n, bool protected)
{
	struct wacl acl = { 0 };
	size_t i;

	for (i = 0; i < n; i++)
		wacl_add(&acl, &aces[i]);
	wm_acl_intern(&acl);
	wm_set_dacl(st, idx, &acl, protected);
	wm_acl_release(&acl);
}

static int make(struct wm_state *st, const struct wm_token *user,
		const char *path, bool dir)
{
	char parent[WM_PATH_MAX];
	int p, idx;

	wm_parent_path(path, parent);
	p = wm_find(st, parent);
	idx = p < 0 ? -1 : wm_make(st, p, strrchr(path, '\\') + 1, dir, user);
	if (idx < 0)
		BUG("the host cannot hold %s", path);
	return idx;
}

/* The tree below every base; "/" marks a directory. */
static const char *const tree[] = { "a/", "a\\c/", "a\\c\\f", "a\\d/",
				    "a\\g", "b/",  "b\\h",   "e" };

void wa_host_build(enum wa_host h, struct wm_state *st)
{
	const struct wace root[] = {
		ace(WACE_ALLOW, OICI, WM_FULL, WA_ADMINS),
		ace(WACE_ALLOW, OICI, WM_FULL, WA_SYSTEM),
		ace(WACE_ALLOW, OICI, 0x001200a9, WA_USERS),
		ace(WACE_ALLOW, OICI | WM_IO, 0x001301bf, WA_AUTH),
		ace(WACE_ALLOW, 0, WM_ADD_SUBDIR, WA_AUTH),
	};
	const struct wace users[] = {
		ace(WACE_ALLOW, OICI, WM_FULL, WA_SYSTEM),
		ace(WACE_ALLOW, OICI, WM_FULL, WA_ADMINS),
		ace(WACE_ALLOW, 0, 0x001200a9, WA_USERS),
		ace(WACE_ALLOW, OICI | WM_IO, 0x001200a9, WA_USERS),
		ace(WACE_ALLOW, 0, 0x001200a9, WA_EVERYONE),
		ace(WACE_ALLOW, OICI | WM_IO, 0x001200a9, WA_EVERYONE),
	};
	const struct wace profile[] = {
		ace(WACE_ALLOW, OICI, WM_FULL, WA_SYSTEM),
		ace(WACE_ALLOW, OICI, WM_FULL, WA_ADMINS),
		ace(WACE_ALLOW, OICI, WM_FULL, WA_USER),
	};
	const struct wace copied[] = {
		ace(WACE_ALLOW, OICI, WM_FULL, WA_SYSTEM),
		ace(WACE_ALLOW, OICI, WM_FULL, WA_USER),
	};
	const struct wace mine = ace(WACE_ALLOW, 0, WM_FULL, WA_USER);
	const struct wace full = ace(WACE_ALLOW, OICI, WM_FULL, WA_USER);
	struct wm_token user, sys;
	const char *base = wa_host_base(h);
	char path[WM_PATH_MAX];
	size_t i, len;
	int idx;

	wm_state_init(st);
	wa_user_token(&user);
	/* What the system made is not the user's. */
	sys = user;
	sys.user = wm_sid(WA_SYSTEM);
	wm_root(st, WA_INSTALLER, root, array_size(root),
		(struct wm_label){ WM_IL_HIGH, WACE_OI | WM_NP | WM_IO });
	if (h == WA_PROFILE) {
		idx = make(st, &sys, "C:\\Users", true);
		set_explicit(st, idx, users, array_size(users), true);
		/* The user owns the profile: the owner's implied
		 * WRITE_DAC is then the user's too (the wider case). */
		idx = make(st, &user, base, true);
		set_explicit(st, idx, profile, array_size(profile), true);
	} else {
		idx = make(st, &user, base, true);
		if (h == WA_FULL)
			set_explicit(st, idx, &full, 1, false);
	}
	for (i = 0; i < array_size(tree); i++) {
		len = strlen(tree[i]);
		snprintf(path, sizeof(path), "%s\\%.*s", base,
			 (int)(tree[i][len - 1] == '/' ? len - 1 : len),
			 tree[i]);
		idx = make(st, &user, path, tree[i][len - 1] == '/');
		/* The gaps: a folder copied with its protected DACL, a file
		 * a tool gave an explicit allow. */
		if (!strcmp(tree[i], "a\\d/"))
			set_explicit(st, idx, copied, array_size(copied), true);
		else if (!strcmp(tree[i], "b\\h"))
			set_explicit(st, idx, &mine, 1, false);
	}
}

/* ------------------------------------------------------------------ */
/* Faults. */

static const char *const fault_names[] = {
	"deny-ace",    "inherit",     "label",	      "token", "pin",
	"pin-fdc",     "placeholder", "owner-rights", "gaps",
	"drive-placeholder", "walk-pins",
};

const char *wa_fault_name(unsigned bit)
{
	unsigned i;

	for (i = 0; i < array_size(fault_names); i++)
		if (bit == 1u << i)
			return fault_names[i];
	return "?";
}

int wa_fault_parse(const char *list, unsigned *out)
{
	const char *p = list, *end;
	size_t i, n;

	*out = 0;
	while (*p) {
		end = strchr(p, ',');
		n = end ? (size_t)(end - p) : strlen(p);
		for (i = 0; i < array_size(fault_names); i++)
			if (strlen(fault_names[i]) == n &&
			    !strncmp(fault_names[i], p, n))
				break;
		if (i == array_size(fault_names))
			return -1;
		*out |= 1u << i;
		p += n + (end ? 1 : 0);
	}
	return 0;
}

/* Drop the ACEs of @o that @drop picks. */
static void drop_aces(struct wobj *o, bool (*drop)(const struct wace *))
{
	size_t i, j;

	for (i = j = 0; i < o->naces; i++) {
		if (drop(&o->aces[i])) {
			free(o->aces[i].sid);
			continue;
		}
		o->aces[j++] = o->aces[i];
	}
	o->naces = j;
}

static bool is_inherited_deny(const struct wace *a)
{
	return a->type == WACE_DENY && (a->flags & (WACE_OI | WACE_CI));
}

/* A pin's ACEs are the only ones that are not inherited. */
static bool is_pin(const struct wace *a)
{
	return !(a->flags & (WACE_OI | WACE_CI));
}

static bool is_owner_rights(const struct wace *a)
{
	return !strcmp(a->sid, SID_OWNER_RIGHTS);
}

void wa_mutate(struct aclplan *ap, unsigned faults)
{
	struct wobj *o;
	size_t i, j;

	for (i = 0; i < ap->nobjs; i++) {
		o = &ap->objs[i];
		if (faults & WA_FAULT_DENY_ACE)
			drop_aces(o, is_inherited_deny);
		if (faults & WA_FAULT_PIN)
			drop_aces(o, is_pin);
		if (faults & WA_FAULT_OWNER_RIGHTS)
			drop_aces(o, is_owner_rights);
		for (j = 0; j < o->naces; j++) {
			if (faults & WA_FAULT_INHERIT)
				o->aces[j].flags &= ~(WACE_OI | WACE_CI);
			if ((faults & WA_FAULT_PIN_FDC) && is_pin(&o->aces[j]))
				o->aces[j].mask &= ~WM_DELETE_CHILD;
		}
		if (faults & WA_FAULT_LABEL)
			o->label_low = false;
		if (faults & WA_FAULT_PLACEHOLDER)
			o->placeholder = false;
		/* One separator, the drive root's (C:\Z). */
		if ((faults & WA_FAULT_DRIVE_PH) && !strchr(o->path + 3, '\\'))
			o->placeholder = false;
	}
}

/* ------------------------------------------------------------------ */
/* Applying a plan: win_main.c's apply(), on the model. */

static void refuse(struct wa_applied *out, const char *path, const char *why)
{
	if (out->refused)
		return;
	out->refused = true;
	snprintf(out->why, sizeof(out->why), "%s: %s", path, why);
}

static void root_stays(struct wa_applied *out, const char *path)
{
	if (out->nroots < WA_MAX_ROOTS)
		snprintf(out->roots[out->nroots++], WM_PATH_MAX, "%s", path);
}

/* host_merge_handle(): @add merged into @idx's DACL, which propagates. */
static int merge(struct wm_state *st, int idx, const struct wace *add,
		 size_t nadd)
{
	struct wacl next;

	if (wacl_merge(&st->obj[idx].dacl, add, nadd, &next) < 0)
		return -1;
	wm_acl_intern(&next);
	wm_set_dacl(st, idx, &next, st->obj[idx].protected);
	wm_acl_release(&next);
	return 0;
}

/* Whether @path (any case) is one of @ap's objects, entry or pin. */
static bool any_object_at(const struct aclplan *ap, const char *path)
{
	size_t i, k;

	for (i = 0; i < ap->nobjs; i++) {
		const char *key = ap->objs[i].key;

		for (k = 0; key[k] && path[k]; k++)
			if (key[k] != (path[k] >= 'A' && path[k] <= 'Z' ?
					       (char)(path[k] + 32) :
					       path[k]))
				break;
		if (!key[k] && !path[k])
			return true;
	}
	return false;
}

/*
 * host_close_gaps(): below @idx, every object whose DACL has a gap gets
 * @add explicitly; the walk stops at the plan's other entries (with
 * WA_FAULT_WALK_PINS, at its pins too).
 */
static void close_gaps(struct wm_state *st, const struct aclplan *ap,
		       int idx, const struct wace *add, size_t nadd,
		       const struct wm_token *user, unsigned faults,
		       struct wa_applied *out, int depth)
{
	struct wm_obj *o;
	size_t i;

	for (i = 0; i < st->n && !out->refused && depth < WM_MAX_OBJS; i++) {
		o = &st->obj[i];
		if (!o->exists || o->parent != idx ||
		    aclplan_entry_at(ap, o->path) ||
		    ((faults & WA_FAULT_WALK_PINS) &&
		     any_object_at(ap, o->path)))
			continue;
		if (wacl_gap(&o->dacl, o->protected)) {
			if (!wm_access(st, (int)i, user,
				       WM_READ_CONTROL | WM_WRITE_DAC) ||
			    merge(st, (int)i, add, nadd) < 0) {
				refuse(out, o->path, "a gap cannot be closed");
				return;
			}
			out->gaps++;
		}
		if (o->dir)
			close_gaps(st, ap, (int)i, add, nadd, user, faults,
				   out, depth + 1);
	}
}

static void apply_one(struct wm_state *st, const struct aclplan *ap,
		      const struct wobj *o, unsigned faults,
		      const struct wm_token *user, struct wa_applied *out)
{
	uint32_t need = WM_READ_CONTROL | WM_WRITE_DAC |
			(o->label_low ? WM_WRITE_OWNER : 0);
	char parent[WM_PATH_MAX];
	struct wace add[8];
	size_t i, nadd = 0;
	int idx = wm_find(st, o->path), p;

	if (idx < 0 && o->placeholder) {
		/* CreateDirectoryW as the user; a missing parent refuses. */
		wm_parent_path(o->path, parent);
		p = wm_find(st, parent);
		if (p < 0 || !wm_access(st, p, user, WM_ADD_SUBDIR) ||
		    (idx = wm_make(st, p, strrchr(o->path, '\\') + 1, true,
				   user)) < 0) {
			refuse(out, o->path, "its placeholder cannot be made");
			return;
		}
		out->placeholders++;
	}
	if (idx < 0) {
		/* Skipped: a missing root is not writable. */
		if (o->role == WOBJ_WRITE_ROOT)
			root_stays(out, o->path);
		return;
	}
	if (!wm_access(st, idx, user, need) ||
	    merge(st, idx, o->aces, o->naces) < 0) {
		if (o->role == WOBJ_WRITE_ROOT)
			root_stays(out, o->path); /* downgraded */
		else
			refuse(out, o->path, "its ACEs cannot be applied");
		return;
	}
	if (o->label_low)
		wm_set_label(st, idx,
			     (struct wm_label){ WM_IL_LOW, WACE_OI | WACE_CI });
	if (!wobj_walks(o) || (faults & WA_FAULT_GAPS))
		return;
	for (i = 0; i < o->naces && nadd < array_size(add); i++)
		if (o->aces[i].flags & (WACE_OI | WACE_CI))
			add[nadd++] = o->aces[i];
	close_gaps(st, ap, idx, add, nadd, user, faults, out, 0);
}

void wa_apply(struct wm_state *st, const struct aclplan *ap, unsigned faults,
	      struct wa_applied *out)
{
	struct wm_token user;
	size_t i;

	memset(out, 0, sizeof(*out));
	wa_user_token(&user);
	/* Parents before children: the plan's own order. */
	for (i = 0; i < ap->nobjs && !out->refused; i++)
		apply_one(st, ap, &ap->objs[i], faults, &user, out);
}
