/* SPDX-License-Identifier: MIT */
/*
 * winmodel.c - the model of Windows' file access checks (winmodel.h):
 * objects, inheritance, the access check and the operations built on it.
 *
 * The access check follows MS-DTYP 2.5.3.2 and 2.5.3.3: the mandatory
 * check first (a token below the object's label, which is always
 * NO_WRITE_UP here, keeps only FILE_GENERIC_READ and FILE_GENERIC_EXECUTE
 * rights: so no write, no DELETE, no WRITE_DAC, no FILE_DELETE_CHILD),
 * then the DACL in order for the token's SIDs: the owner's implied
 * READ_CONTROL and WRITE_DAC unless an OWNER RIGHTS ACE is there (it then
 * stands for the owner), an allow grants its bits, a deny of a bit not yet
 * granted refuses the whole request; a restricted token passes the same
 * walk a second time over its restricting SIDs, and both must grant.
 */
#include <vbox.h>

#include <stdio.h>

#include "grow.h"
#include "winmodel.h"

/* ------------------------------------------------------------------ */
/* SIDs. */

static char **pool;
static size_t npool, cap_pool;

const char *wm_sid(const char *text)
{
	size_t i;

	for (i = 0; i < npool; i++)
		if (!strcmp(pool[i], text))
			return pool[i];
	GROW(pool, cap_pool, npool + 1);
	pool[npool] = xstrdup(text);
	return pool[npool++];
}

void wm_acl_intern(struct wacl *acl)
{
	const char *p;
	size_t i;

	for (i = 0; i < acl->n; i++) {
		p = wm_sid(acl->aces[i].sid);
		if (p != acl->aces[i].sid) {
			free(acl->aces[i].sid);
			acl->aces[i].sid = (char *)p;
		}
	}
}

void wm_acl_release(struct wacl *acl)
{
	free(acl->aces);
	memset(acl, 0, sizeof(*acl));
}

/* Append @a (its SID already interned) to @acl. */
static void acl_push(struct wacl *acl, const struct wace *a)
{
	GROW(acl->aces, acl->cap, acl->n + 1);
	acl->aces[acl->n++] = *a;
}

/* ------------------------------------------------------------------ */
/* States. */

void wm_state_init(struct wm_state *st)
{
	memset(st, 0, sizeof(*st));
}

void wm_state_free(struct wm_state *st)
{
	size_t i;

	for (i = 0; i < st->n; i++)
		wm_acl_release(&st->obj[i].dacl);
	st->n = 0;
}

void wm_state_copy(struct wm_state *dst, const struct wm_state *src)
{
	size_t i;

	memcpy(dst, src, sizeof(*dst));
	for (i = 0; i < src->n; i++) {
		const struct wacl *a = &src->obj[i].dacl;

		dst->obj[i].dacl.aces = NULL;
		dst->obj[i].dacl.cap = 0;
		if (a->n) {
			dst->obj[i].dacl.aces = xcalloc(a->n, sizeof(*a->aces));
			memcpy(dst->obj[i].dacl.aces, a->aces,
			       a->n * sizeof(*a->aces));
			dst->obj[i].dacl.cap = a->n;
		}
	}
}

static bool path_eq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		char x = *a >= 'A' && *a <= 'Z' ? (char)(*a + 32) : *a;
		char y = *b >= 'A' && *b <= 'Z' ? (char)(*b + 32) : *b;

		if (x != y)
			return false;
	}
	return *a == *b;
}

int wm_find(const struct wm_state *st, const char *path)
{
	size_t i;

	for (i = 0; i < st->n; i++)
		if (st->obj[i].exists && path_eq(st->obj[i].path, path))
			return (int)i;
	return -1;
}

void wm_parent_path(const char *path, char out[WM_PATH_MAX])
{
	const char *cut = strrchr(path, '\\');
	size_t n;

	if (!cut) {
		out[0] = '\0';
		return;
	}
	n = (size_t)(cut - path);
	/* "C:\x" -> "C:\": the drive root keeps its separator. */
	if (n == 2)
		n = 3;
	if (n >= WM_PATH_MAX)
		n = WM_PATH_MAX - 1;
	memcpy(out, path, n);
	out[n] = '\0';
}

/* Whether @d lies strictly below @anc. */
static bool is_below(const struct wm_state *st, int d, int anc)
{
	int p, steps;

	for (p = st->obj[d].parent, steps = 0; p >= 0 && steps < WM_MAX_OBJS;
	     p = st->obj[p].parent, steps++)
		if (p == anc)
			return true;
	return false;
}

/* ------------------------------------------------------------------ */
/* Inheritance. */

/*
 * The ACE a child (a directory when @dir) inherits from its parent's
 * @a, into *@out; false when it inherits nothing from it.  A container
 * inherits what CI names, an OI-only ACE as inherit-only (for its files)
 * unless NP; a file inherits what OI names; NP stops it there.
 */
static bool inherit_flags(uint8_t f, bool dir, uint8_t *out)
{
	if (!(f & (WACE_OI | WACE_CI)))
		return false;
	if (dir) {
		if (f & WACE_CI)
			*out = f & WM_NP ? 0 : f & (WACE_OI | WACE_CI);
		else if (f & WM_NP)
			return false;
		else
			*out = WACE_OI | WM_IO;
	} else {
		if (!(f & WACE_OI))
			return false;
		*out = 0;
	}
	*out |= WACE_INHERITED;
	return true;
}

static struct wm_label inherit_label(const struct wm_obj *parent, bool dir)
{
	struct wm_label l = parent->label.level ? parent->label :
						  parent->ilabel;
	struct wm_label out = { WM_IL_NONE, 0 };

	if (l.level && inherit_flags(l.flags, dir, &out.flags))
		out.level = l.level;
	return out;
}

/* @o's DACL: its explicit ACEs, then what it inherits from @parent. */
static void reinherit(struct wm_obj *o, const struct wm_obj *parent)
{
	struct wacl next = { 0 };
	struct wace a;
	size_t i;

	for (i = 0; i < o->dacl.n; i++)
		if (!(o->dacl.aces[i].flags & WACE_INHERITED))
			acl_push(&next, &o->dacl.aces[i]);
	for (i = 0; !o->protected && i < parent->dacl.n; i++) {
		a = parent->dacl.aces[i];
		if (inherit_flags(a.flags, o->dir, &a.flags))
			acl_push(&next, &a);
	}
	wm_acl_release(&o->dacl);
	o->dacl = next;
	o->ilabel = inherit_label(parent, o->dir);
}

/* Depth first from @idx: a moved object's parent may come later. */
static void propagate_from(struct wm_state *st, int idx, int depth)
{
	size_t i;

	for (i = 0; i < st->n && depth < WM_MAX_OBJS; i++) {
		if (!st->obj[i].exists || st->obj[i].parent != idx)
			continue;
		reinherit(&st->obj[i], &st->obj[idx]);
		propagate_from(st, (int)i, depth + 1);
	}
}

void wm_propagate(struct wm_state *st, int idx)
{
	propagate_from(st, idx, 0);
}

int wm_root(struct wm_state *st, const char *owner, const struct wace *dacl,
	    size_t n, struct wm_label label)
{
	struct wm_obj *o = &st->obj[st->n];
	size_t i;

	memset(o, 0, sizeof(*o));
	snprintf(o->path, sizeof(o->path), "C:\\");
	o->parent = -1;
	o->dir = true;
	o->exists = true;
	o->owner = wm_sid(owner);
	for (i = 0; i < n; i++) {
		struct wace a = dacl[i];

		a.sid = (char *)wm_sid(dacl[i].sid);
		acl_push(&o->dacl, &a);
	}
	o->label = label;
	return (int)st->n++;
}

int wm_make(struct wm_state *st, int parent, const char *name, bool dir,
	    const struct wm_token *maker)
{
	const struct wm_obj *p = &st->obj[parent];
	char path[WM_PATH_MAX];
	struct wm_obj *o;
	int len;

	if (st->n >= WM_MAX_OBJS)
		return -1;
	len = snprintf(path, sizeof(path), "%s%s%s", p->path,
		       p->parent < 0 ? "" : "\\", name);
	if (len < 0 || (size_t)len >= sizeof(path))
		return -1;
	o = &st->obj[st->n];
	memset(o, 0, sizeof(*o));
	memcpy(o->path, path, (size_t)len + 1);
	o->parent = parent;
	o->dir = dir;
	o->exists = true;
	o->owner = maker->user;
	reinherit(o, p);
	/* An object made below medium, with no label to inherit, gets the
	 * maker's level. */
	if (!o->ilabel.level && maker->il < WM_IL_MEDIUM)
		o->label = (struct wm_label){ maker->il, 0 };
	return (int)st->n++;
}

void wm_set_dacl(struct wm_state *st, int idx, const struct wacl *dacl,
		 bool protected)
{
	struct wm_obj *o = &st->obj[idx];
	size_t i;

	wm_acl_release(&o->dacl);
	for (i = 0; i < dacl->n; i++)
		acl_push(&o->dacl, &dacl->aces[i]);
	o->protected = protected;
	wm_propagate(st, idx);
}

void wm_set_label(struct wm_state *st, int idx, struct wm_label label)
{
	st->obj[idx].label = label;
	wm_propagate(st, idx);
}

/* ------------------------------------------------------------------ */
/* The access check. */

static bool has_sid(const char *const *sids, size_t n, const char *sid)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (sids[i] == sid)
			return true;
	return false;
}

/* One pass of the DACL walk over @sids (MS-DTYP 2.5.3.2). */
static bool dacl_pass(const struct wm_obj *o, const char *const *sids,
		      size_t n, uint32_t desired)
{
	const char *owner_rights = wm_sid(SID_OWNER_RIGHTS);
	bool owner = has_sid(sids, n, o->owner), rights_ace = false;
	uint32_t granted = 0, remaining;
	const struct wace *a;
	size_t i;

	for (i = 0; i < o->dacl.n; i++)
		if (!(o->dacl.aces[i].flags & WM_IO) &&
		    o->dacl.aces[i].sid == owner_rights)
			rights_ace = true;
	/* The owner's implied rights, unless OWNER RIGHTS says otherwise:
	 * granted first, so no deny ACE takes them back. */
	if (owner && !rights_ace)
		granted |= (WM_READ_CONTROL | WM_WRITE_DAC) & desired;
	for (i = 0; i < o->dacl.n; i++) {
		a = &o->dacl.aces[i];
		if (a->flags & WM_IO)
			continue;
		if (!has_sid(sids, n, a->sid) &&
		    !(owner && a->sid == owner_rights))
			continue;
		remaining = desired & ~granted;
		if (!remaining)
			break;
		if (a->type == WACE_DENY) {
			if (a->mask & remaining)
				return false;
		} else {
			granted |= a->mask & desired;
		}
	}
	return (granted & desired) == desired;
}

static uint8_t effective_il(const struct wm_obj *o)
{
	struct wm_label l = o->label.level ? o->label : o->ilabel;

	if (!l.level || (l.flags & WM_IO))
		return WM_IL_MEDIUM;
	return l.level;
}

bool wm_access(const struct wm_state *st, int idx, const struct wm_token *tok,
	       uint32_t desired)
{
	const struct wm_obj *o = &st->obj[idx];

	/* No-write-up: a lower token keeps read and execute rights only. */
	if (tok->il < effective_il(o) && (desired & ~WM_NO_WRITE_UP_KEEPS))
		return false;
	if (!dacl_pass(o, tok->sids, tok->nsids, desired))
		return false;
	return !tok->restricted ||
	       dacl_pass(o, tok->rsids, tok->nrsids, desired);
}

/* ------------------------------------------------------------------ */
/* The operations. */

bool wm_can_read(const struct wm_state *st, int idx,
		 const struct wm_token *tok)
{
	return wm_access(st, idx, tok, WM_READ);
}

bool wm_can_write(const struct wm_state *st, int idx,
		  const struct wm_token *tok)
{
	return wm_access(st, idx, tok, WM_WRITE);
}

bool wm_can_setacl(const struct wm_state *st, int idx,
		   const struct wm_token *tok)
{
	return wm_access(st, idx, tok, WM_WRITE_DAC);
}

/* DELETE on @idx, or FILE_DELETE_CHILD on its parent (either suffices). */
static bool unlinkable(const struct wm_state *st, int idx,
		       const struct wm_token *tok)
{
	int p = st->obj[idx].parent;

	if (p < 0)
		return false;
	return wm_access(st, idx, tok, WM_DELETE) ||
	       wm_access(st, p, tok, WM_DELETE_CHILD);
}

bool wm_can_delete(const struct wm_state *st, int idx,
		   const struct wm_token *tok)
{
	size_t i;

	if (!unlinkable(st, idx, tok))
		return false;
	for (i = 0; i < st->n; i++)
		if (st->obj[i].exists && is_below(st, (int)i, idx) &&
		    !unlinkable(st, (int)i, tok))
			return false;
	return true;
}

bool wm_can_rename(const struct wm_state *st, int idx, const char *to,
		   const struct wm_token *tok)
{
	char parent[WM_PATH_MAX];
	int p;

	wm_parent_path(to, parent);
	p = wm_find(st, parent);
	if (p < 0 || wm_find(st, to) >= 0 || !unlinkable(st, idx, tok))
		return false;
	return wm_access(st, p, tok,
			 st->obj[idx].dir ? WM_ADD_SUBDIR : WM_ADD_FILE);
}

bool wm_can_create(const struct wm_state *st, const char *path, bool dir,
		   const struct wm_token *tok, struct wm_state *st_out)
{
	/* The components to make, deepest first. */
	char todo[8][WM_PATH_MAX], cur[WM_PATH_MAX];
	struct wm_state tmp;
	size_t n = 0;
	int at, made;
	bool leaf, good = true;

	if (wm_find(st, path) >= 0)
		return false;
	snprintf(cur, sizeof(cur), "%s", path);
	while ((at = wm_find(st, cur)) < 0) {
		if (n == array_size(todo) || strlen(cur) <= 3)
			return false;
		snprintf(todo[n++], WM_PATH_MAX, "%s", cur);
		wm_parent_path(todo[n - 1], cur);
	}
	/* One step and no state wanted: no copy needed. */
	if (n == 1 && !st_out)
		return wm_access(st, at, tok,
				 dir ? WM_ADD_SUBDIR : WM_ADD_FILE);
	wm_state_copy(&tmp, st);
	while (n--) {
		leaf = n == 0;
		if (!wm_access(&tmp, at, tok,
			       leaf && !dir ? WM_ADD_FILE : WM_ADD_SUBDIR)) {
			good = false;
			break;
		}
		made = wm_make(&tmp, at, strrchr(todo[n], '\\') + 1,
			       leaf ? dir : true, tok);
		if (made < 0) {
			good = false;
			break;
		}
		at = made;
	}
	if (good && st_out)
		*st_out = tmp;
	else
		wm_state_free(&tmp);
	return good;
}

void wm_do_delete(struct wm_state *st, int idx)
{
	size_t i;

	for (i = 0; i < st->n; i++)
		if (is_below(st, (int)i, idx))
			st->obj[i].exists = false;
	st->obj[idx].exists = false;
}

/* A move keeps every DACL as it was: nothing is inherited again. */
void wm_do_rename(struct wm_state *st, int idx, const char *to)
{
	char old[WM_PATH_MAX], parent[WM_PATH_MAX], path[WM_PATH_MAX];
	size_t i, olen;

	snprintf(old, sizeof(old), "%s", st->obj[idx].path);
	olen = strlen(old);
	wm_parent_path(to, parent);
	st->obj[idx].parent = wm_find(st, parent);
	for (i = 0; i < st->n; i++) {
		if ((int)i != idx && !is_below(st, (int)i, idx))
			continue;
		snprintf(path, sizeof(path), "%s%s", to,
			 st->obj[i].path + olen);
		snprintf(st->obj[i].path, sizeof(st->obj[i].path), "%s", path);
	}
}
