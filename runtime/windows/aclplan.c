/* SPDX-License-Identifier: MIT */
/*
 * aclplan.c - reading and checking the windows ACL plan, the ACL model,
 * and the dry run (aclplan.h).
 */
#include <vbox.h>

#include <stdarg.h>
#include <stdio.h>

#include "aclplan.h"
#include "bbuf.h"
#include "landing.h"
#include "grow.h"
#include "ir.h"
#include "plan.h"
#include "wjson.h"

/* The rights doc/targets.md names, with their masks. */
struct right {
	const char *name;
	uint32_t mask;
};

static const struct right rights[] = {
	{ "modify", 0x001301bf },
	{ "read_execute", 0x001200a9 },
	{ "write", 0x000d0156 },
	{ "read_write", 0x000f01ff },
	{ "pin", 0x000d0040 },
	{ "read_control", 0x00020000 },
};

static const char *right_name(uint32_t mask)
{
	size_t i;

	for (i = 0; i < array_size(rights); i++)
		if (rights[i].mask == mask)
			return rights[i].name;
	return NULL;
}

/* One expected ACE: the capability SID unless @owner. */
struct want {
	uint8_t type;
	bool owner;
	uint32_t mask;
	bool inherit;
};

static const struct want want_rw[] = {
	{ WACE_ALLOW, false, 0x001301bf, true },
};
static const struct want want_ro[] = {
	{ WACE_DENY, false, 0x000d0156, true },
	{ WACE_ALLOW, false, 0x001200a9, true },
	{ WACE_ALLOW, true, 0x00020000, true },
};
static const struct want want_deny[] = {
	{ WACE_DENY, false, 0x000f01ff, true },
	{ WACE_ALLOW, true, 0x00020000, true },
};
/* A pin denies FILE_DELETE_CHILD too (doc/targets.md, "Pins"). */
static const struct want want_pin[] = {
	{ WACE_DENY, false, 0x000d0040, false },
	{ WACE_ALLOW, true, 0x00020000, false },
};

/* ------------------------------------------------------------------ */
/* The ACL model. */

void wace_copy(struct wace *dst, const struct wace *a)
{
	*dst = *a;
	dst->sid = xstrdup(a->sid);
}

bool wace_equal(const struct wace *a, const struct wace *b)
{
	return a->type == b->type && a->flags == b->flags &&
	       a->mask == b->mask && !strcmp(a->sid, b->sid);
}

void wacl_add(struct wacl *acl, const struct wace *a)
{
	GROW(acl->aces, acl->cap, acl->n + 1);
	wace_copy(&acl->aces[acl->n++], a);
}

void wacl_free(struct wacl *acl)
{
	size_t i;

	for (i = 0; i < acl->n; i++)
		free(acl->aces[i].sid);
	free(acl->aces);
	memset(acl, 0, sizeof(*acl));
}

/* 0 explicit deny, 1 explicit allow, 2 inherited. */
static int ace_class(const struct wace *a)
{
	if (a->flags & WACE_INHERITED)
		return 2;
	return a->type == WACE_DENY ? 0 : 1;
}

bool wacl_canonical(const struct wacl *acl)
{
	size_t i;

	for (i = 1; i < acl->n; i++)
		if (ace_class(&acl->aces[i]) < ace_class(&acl->aces[i - 1]))
			return false;
	return true;
}

bool wacl_gap(const struct wacl *acl, bool protected)
{
	size_t i;

	if (protected)
		return true;
	for (i = 0; i < acl->n; i++)
		if (!(acl->aces[i].flags & WACE_INHERITED) &&
		    acl->aces[i].type == WACE_ALLOW)
			return true;
	return false;
}

bool wobj_walks(const struct wobj *o)
{
	size_t i;

	for (i = 0; i < o->naces; i++)
		if (o->aces[i].type == WACE_DENY &&
		    (o->aces[i].flags & (WACE_OI | WACE_CI)))
			return true;
	return false;
}

bool aclplan_entry_at(const struct aclplan *p, const char *path)
{
	size_t i, j;

	for (i = 0; i < p->nobjs; i++) {
		const char *k = p->objs[i].key;

		if (!p->objs[i].entry)
			continue;
		for (j = 0; k[j] && path[j]; j++) {
			char c = path[j] >= 'A' && path[j] <= 'Z' ?
					 (char)(path[j] + 32) :
					 path[j];

			if (c != k[j])
				break;
		}
		if (!k[j] && !path[j])
			return true;
	}
	return false;
}

static bool wacl_has(const struct wacl *acl, const struct wace *a)
{
	size_t i;

	for (i = 0; i < acl->n; i++)
		if (wace_equal(&acl->aces[i], a))
			return true;
	return false;
}

int wacl_merge(const struct wacl *cur, const struct wace *add, size_t nadd,
	       struct wacl *out)
{
	size_t i, j;
	int cls;

	memset(out, 0, sizeof(*out));
	if (!wacl_canonical(cur))
		return -1;
	for (cls = 0; cls < 3; cls++) {
		for (i = 0; i < cur->n; i++)
			if (ace_class(&cur->aces[i]) == cls)
				wacl_add(out, &cur->aces[i]);
		if (cls == 2)
			break;
		for (j = 0; j < nadd; j++) {
			if (add[j].flags & WACE_INHERITED)
				BUG("an inherited ACE to add");
			if (ace_class(&add[j]) == cls && !wacl_has(out, &add[j]))
				wacl_add(out, &add[j]);
		}
	}
	return 0;
}

size_t wacl_remove(const struct wacl *cur, const struct wace *a,
		   struct wacl *out)
{
	size_t i, n = 0;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < cur->n; i++) {
		if (!(cur->aces[i].flags & WACE_INHERITED) &&
		    wace_equal(&cur->aces[i], a)) {
			n++;
			continue;
		}
		wacl_add(out, &cur->aces[i]);
	}
	return n;
}

void wace_print(const struct wace *a, const char *cap_sid, struct bbuf *out)
{
	const char *name = right_name(a->mask);

	bbuf_printf(out, "%-5s %s %s 0x%08lx %s",
		    a->type == WACE_DENY ? "deny" : "allow",
		    cap_sid && !strcmp(a->sid, cap_sid) ? "capability" :
		    !strcmp(a->sid, SID_OWNER_RIGHTS)   ? "owner-rights" :
							  a->sid,
		    name ? name : "custom", (unsigned long)a->mask,
		    (a->flags & (WACE_OI | WACE_CI)) == (WACE_OI | WACE_CI) ?
			    "OICI" :
		    (a->flags & (WACE_OI | WACE_CI)) ? "partial" :
						       "none");
	if (a->flags & WACE_INHERITED)
		bbuf_puts(out, " inherited");
}

/* ------------------------------------------------------------------ */
/* Native paths. */

bool wpath_check(const char *path)
{
	size_t len = strlen(path), i, seg;
	char c = path[0] & ~0x20;

	if (len < 3 || len > WPATH_MAX || c < 'A' || c > 'Z' ||
	    path[1] != ':' || path[2] != '\\')
		return false;
	if (len == 3)
		return true;
	/* Components: not empty, not "." or "..", no trailing separator. */
	for (seg = 3, i = 3; i <= len; i++) {
		unsigned char ch = (unsigned char)path[i];

		if (i == len || ch == '\\') {
			if (i == seg || (i - seg == 1 && path[seg] == '.') ||
			    (i - seg == 2 && path[seg] == '.' &&
			     path[seg + 1] == '.'))
				return false;
			seg = i + 1;
			continue;
		}
		if (ch < 0x20 || strchr("<>:\"/|?*", ch))
			return false;
	}
	return true;
}

static char *fold(const char *s)
{
	char *k = xstrdup(s), *p;

	for (p = k; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p += 'a' - 'A';
	return k;
}

/* ------------------------------------------------------------------ */
/* Reading the plan. */

struct rd {
	const struct plan *plan;
	char *err;
	struct aclplan *out;
};

static int bad(struct rd *r, const char *fmt, ...) __printf(2, 3);

static int bad(struct rd *r, const char *fmt, ...)
{
	struct bbuf b;
	va_list ap;

	if (r->err)
		return -1;
	bbuf_init_heap(&b, 512);
	bbuf_puts(&b, "the windows ACL plan in the plan: ");
	va_start(ap, fmt);
	bbuf_vprintf(&b, fmt, ap);
	va_end(ap);
	r->err = bbuf_take(&b, NULL);
	bbuf_free(&b);
	return -1;
}

/* @v is an object with exactly the keys @keys, in that order. */
static int keys_are(struct rd *r, const struct wjson *v, const char *what,
		    const char *const *keys, size_t n)
{
	size_t i;

	if (v->type != WJSON_OBJECT)
		return bad(r, "%s is %s, not an object", what,
			   wjson_type_name(v->type));
	for (i = 0; i < n && i < v->n; i++)
		if (strcmp(v->keys[i], keys[i]))
			break;
	if (i < n || v->n != n)
		return bad(r, "%s: expected key '%s'", what,
			   i < n ? keys[i] : "(none)");
	return 0;
}

static const char *str_of(struct rd *r, const struct wjson *v,
			  const char *key, const char *what)
{
	const struct wjson *s = wjson_get(v, key);

	if (!s || s->type != WJSON_STRING) {
		bad(r, "%s: '%s' is not a string", what, key);
		return NULL;
	}
	return s->s;
}

static int str_is(struct rd *r, const struct wjson *v, const char *key,
		  const char *want, const char *what)
{
	const char *s = str_of(r, v, key, what);

	if (!s)
		return -1;
	if (strcmp(s, want))
		return bad(r, "%s: '%s' must be \"%s\"", what, key, want);
	return 0;
}

/* Check the JSON ACE list @v against @want, into @aces. */
static int read_aces(struct rd *r, const struct wjson *v,
		     const struct want *want, size_t nwant, const char *what,
		     struct wace *aces)
{
	static const char *const keys[] = { "type", "sid", "rights", "mask",
					     "inheritance" };
	const struct wjson *a;
	const char *s, *name;
	char mask[16];
	size_t i;

	if (!v || v->type != WJSON_ARRAY)
		return bad(r, "%s: 'aces' is not an array", what);
	if (v->n != nwant)
		return bad(r, "%s: %zu ACEs where its kind has %zu", what,
			   v->n, nwant);
	for (i = 0; i < nwant; i++) {
		a = &v->items[i];
		if (keys_are(r, a, what, keys, array_size(keys)) < 0)
			return -1;
		name = right_name(want[i].mask);
		snprintf(mask, sizeof(mask), "0x%08lx",
			 (unsigned long)want[i].mask);
		if (str_is(r, a, "type",
			   want[i].type == WACE_DENY ? "deny" : "allow",
			   what) < 0 ||
		    str_is(r, a, "sid",
			   want[i].owner ? SID_OWNER_RIGHTS : r->out->sid,
			   what) < 0 ||
		    str_is(r, a, "rights", name, what) < 0 ||
		    str_is(r, a, "mask", mask, what) < 0 ||
		    str_is(r, a, "inheritance",
			   want[i].inherit ? "OICI" : "none", what) < 0)
			return -1;
		s = want[i].owner ? SID_OWNER_RIGHTS : r->out->sid;
		aces[i].type = want[i].type;
		aces[i].flags = want[i].inherit ? WACE_OI | WACE_CI : 0;
		aces[i].mask = want[i].mask;
		aces[i].sid = xstrdup(s);
	}
	return 0;
}

/* The object for @path, made when new. */
static struct wobj *obj_for(struct aclplan *p, size_t *cap, const char *path)
{
	char *key = fold(path);
	size_t i;

	for (i = 0; i < p->nobjs; i++)
		if (!strcmp(p->objs[i].key, key)) {
			free(key);
			return &p->objs[i];
		}
	GROW(p->objs, *cap, p->nobjs + 1);
	memset(&p->objs[p->nobjs], 0, sizeof(p->objs[0]));
	p->objs[p->nobjs].path = xstrdup(path);
	p->objs[p->nobjs].key = key;
	p->objs[p->nobjs].role = WOBJ_WRITE_ROOT;
	return &p->objs[p->nobjs++];
}

static void obj_add(struct wobj *o, const struct wace *aces, size_t n,
		    const char *tag)
{
	size_t i, j;
	char *rows;

	for (i = 0; i < n; i++) {
		for (j = 0; j < o->naces; j++)
			if (wace_equal(&o->aces[j], &aces[i]))
				break;
		if (j < o->naces)
			continue;
		o->aces = xreallocarray(o->aces, o->naces + 1,
					sizeof(*o->aces));
		wace_copy(&o->aces[o->naces++], &aces[i]);
	}
	rows = o->rows ? xasprintf("%s, %s", o->rows, tag) : xstrdup(tag);
	free(o->rows);
	o->rows = rows;
}

static void aces_free(struct wace *aces, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(aces[i].sid);
}

static int read_entry(struct rd *r, const struct wjson *e, size_t idx,
		      size_t *cap)
{
	static const char *const keys[] = { "row",   "rule",  "effect",
					    "path",  "aces",  "label",
					    "if_missing" };
	const struct plan *plan = r->plan;
	const struct want *want;
	const struct wjson *row, *label;
	const struct plan_row *pr;
	struct wace aces[3];
	const char *path, *ifm, *eff;
	char what[64], bangs[LEVEL_MAX + 1], *rule, tag[48];
	size_t nwant;
	struct wobj *o;
	int ret;

	snprintf(what, sizeof(what), "entry %zu", idx);
	if (keys_are(r, e, what, keys, array_size(keys)) < 0)
		return -1;
	row = wjson_get(e, "row");
	if (row->type != WJSON_INT || row->i < 0 ||
	    (uint64_t)row->i >= plan->nfs)
		return bad(r, "%s: 'row' names no file row", what);
	pr = &plan->fs[row->i];
	if (pr->landing != LANDING_KERNEL)
		return bad(r, "%s: row %u does not land in the kernel", what,
			   pr->index);
	switch (pr->effect) {
	case EFFECT_RW:
		want = want_rw, nwant = array_size(want_rw), eff = "rw";
		break;
	case EFFECT_RO:
		want = want_ro, nwant = array_size(want_ro), eff = "ro";
		break;
	case EFFECT_DENY:
		want = want_deny, nwant = array_size(want_deny), eff = "deny";
		break;
	default:
		return bad(r, "%s: row %u has no file effect", what,
			   pr->index);
	}
	memset(bangs, '!', pr->level);
	bangs[pr->level] = '\0';
	rule = xasprintf("%s%s:%s", bangs, eff, pr->target);
	ret = str_is(r, e, "rule", rule, what);
	free(rule);
	if (ret < 0 || str_is(r, e, "effect", eff, what) < 0)
		return -1;
	path = str_of(r, e, "path", what);
	if (!path)
		return -1;
	if (!wpath_check(path))
		return bad(r, "%s: '%s' is not a native drive path", what,
			   path);
	label = wjson_get(e, "label");
	if (pr->effect == EFFECT_RW && r->out->low) {
		static const char *const lkeys[] = { "level", "policy",
						     "inheritance" };

		if (keys_are(r, label, what, lkeys, array_size(lkeys)) < 0 ||
		    str_is(r, label, "level", "low", what) < 0 ||
		    str_is(r, label, "policy", "NO_WRITE_UP", what) < 0 ||
		    str_is(r, label, "inheritance", "OICI", what) < 0)
			return -1;
	} else if (label->type != WJSON_NULL) {
		return bad(r, "%s: 'label' must be null", what);
	}
	ifm = str_of(r, e, "if_missing", what);
	if (!ifm)
		return -1;
	if (strcmp(ifm, "skip") &&
	    (strcmp(ifm, "placeholder") || pr->effect == EFFECT_RW))
		return bad(r, "%s: bad 'if_missing' \"%s\"", what, ifm);
	memset(aces, 0, sizeof(aces));
	if (read_aces(r, wjson_get(e, "aces"), want, nwant, what, aces) < 0) {
		aces_free(aces, nwant);
		return -1;
	}
	o = obj_for(r->out, cap, path);
	snprintf(tag, sizeof(tag), "row %u %s", pr->index, eff);
	obj_add(o, aces, nwant, tag);
	aces_free(aces, nwant);
	o->entry = true;
	if (pr->effect != EFFECT_RW)
		o->role = WOBJ_DENY_SIDE;
	else
		o->label_low = r->out->low;
	if (!strcmp(ifm, "placeholder"))
		o->placeholder = true;
	return 0;
}

static int read_pin(struct rd *r, const struct wjson *e, size_t idx,
		    size_t *cap)
{
	static const char *const keys[] = { "path", "holes", "aces" };
	const struct wjson *holes;
	struct wace aces[2];
	const char *path;
	char what[64], tag[32];
	struct wobj *o;
	size_t i;

	snprintf(what, sizeof(what), "pin %zu", idx);
	if (keys_are(r, e, what, keys, array_size(keys)) < 0)
		return -1;
	path = str_of(r, e, "path", what);
	if (!path)
		return -1;
	if (!wpath_check(path))
		return bad(r, "%s: '%s' is not a native drive path", what,
			   path);
	holes = wjson_get(e, "holes");
	if (holes->type != WJSON_ARRAY || !holes->n)
		return bad(r, "%s: 'holes' is not a list of rows", what);
	for (i = 0; i < holes->n; i++)
		if (holes->items[i].type != WJSON_INT ||
		    holes->items[i].i < 0 ||
		    (uint64_t)holes->items[i].i >= r->plan->nfs ||
		    (i && holes->items[i].i <= holes->items[i - 1].i) ||
		    r->plan->fs[holes->items[i].i].effect == EFFECT_RW)
			return bad(r, "%s: hole %zu names no deny or ro row",
				   what, i);
	memset(aces, 0, sizeof(aces));
	if (read_aces(r, wjson_get(e, "aces"), want_pin,
		      array_size(want_pin), what, aces) < 0) {
		aces_free(aces, array_size(want_pin));
		return -1;
	}
	o = obj_for(r->out, cap, path);
	snprintf(tag, sizeof(tag), "pin %zu", idx);
	obj_add(o, aces, array_size(want_pin), tag);
	aces_free(aces, array_size(want_pin));
	o->role = WOBJ_DENY_SIDE;
	return 0;
}

static int obj_cmp(const void *a, const void *b)
{
	const struct wobj *x = a, *y = b;

	return strcmp(x->key, y->key);
}

/* Explicit denies first: the order the object's DACL will have. */
static void obj_sort_aces(struct wobj *o)
{
	struct wace t;
	size_t i, j;

	/* Insertion sort: stable, and at most five ACEs. */
	for (i = 1; i < o->naces; i++) {
		t = o->aces[i];
		for (j = i; j > 0 && o->aces[j - 1].type != WACE_DENY &&
			    t.type == WACE_DENY;
		     j--)
			o->aces[j] = o->aces[j - 1];
		o->aces[j] = t;
	}
}

static int read_plan(struct rd *r, const struct wjson *v)
{
	static const char *const keys[] = { "format",	"version",
					    "target",	"capability_sid",
					    "token",	"postures",
					    "entries",	"pins" };
	static const char *const tkeys[] = { "type", "disable_max_privilege",
					     "restricting_sids",
					     "integrity_level" };
	static const char *const pkeys[] = { "write", "net" };
	static const char *const rsids[] = { "capability", "user", "groups" };
	const struct plan *plan = r->plan;
	const struct wjson *t, *x, *entries, *pins;
	size_t i, cap = 0;

	if (keys_are(r, v, "the plan", keys, array_size(keys)) < 0 ||
	    str_is(r, v, "format", "vbox-acl-plan", "the plan") < 0 ||
	    str_is(r, v, "target", "windows", "the plan") < 0)
		return -1;
	x = wjson_get(v, "version");
	if (x->type != WJSON_INT || x->i != 1)
		return bad(r, "unsupported version (this launcher reads 1)");
	if (str_is(r, v, "capability_sid", r->out->sid, "the plan") < 0)
		return bad(r, "the capability SID is not the one its rows "
			      "derive");
	t = wjson_get(v, "token");
	if (keys_are(r, t, "token", tkeys, array_size(tkeys)) < 0 ||
	    str_is(r, t, "type", "restricted", "token") < 0)
		return -1;
	x = wjson_get(t, "disable_max_privilege");
	if (x->type != WJSON_BOOL || !x->b)
		return bad(r, "token: 'disable_max_privilege' must be true");
	x = wjson_get(t, "restricting_sids");
	if (x->type != WJSON_ARRAY || x->n != array_size(rsids))
		return bad(r, "token: bad 'restricting_sids'");
	for (i = 0; i < x->n; i++)
		if (x->items[i].type != WJSON_STRING ||
		    strcmp(x->items[i].s, rsids[i]))
			return bad(r, "token: bad 'restricting_sids'");
	r->out->low = plan->default_write == EFFECT_DENY;
	if (str_is(r, t, "integrity_level", r->out->low ? "low" : "medium",
		   "token") < 0)
		return -1;
	x = wjson_get(v, "postures");
	if (keys_are(r, x, "postures", pkeys, array_size(pkeys)) < 0 ||
	    str_is(r, x, "write", r->out->low ? "deny" : "rw", "postures") <
		    0 ||
	    str_is(r, x, "net", "open", "postures") < 0)
		return -1;
	if (plan->default_net != EFFECT_ALLOW)
		return bad(r, "the network posture must be open");
	entries = wjson_get(v, "entries");
	pins = wjson_get(v, "pins");
	if (entries->type != WJSON_ARRAY || pins->type != WJSON_ARRAY)
		return bad(r, "'entries' and 'pins' must be arrays");
	for (i = 0; i < entries->n; i++)
		if (read_entry(r, &entries->items[i], i, &cap) < 0)
			return -1;
	for (i = 0; i < pins->n; i++)
		if (read_pin(r, &pins->items[i], i, &cap) < 0)
			return -1;
	for (i = 0; i < r->out->nobjs; i++)
		obj_sort_aces(&r->out->objs[i]);
	if (r->out->nobjs)
		qsort(r->out->objs, r->out->nobjs, sizeof(*r->out->objs),
		      obj_cmp);
	return 0;
}

int aclplan_load(const struct plan *plan, struct aclplan *out, char **err)
{
	struct rd r = { .plan = plan, .out = out };
	struct wjson v;
	char *jerr = NULL;

	memset(out, 0, sizeof(*out));
	if (plan->target != TARGET_WINDOWS) {
		*err = xasprintf("the plan is for %s, not windows",
				 target_id_name(plan->target));
		return -1;
	}
	if (capsid_of_plan(plan, out->sid, out->sub) < 0) {
		*err = xstrdup("the plan's rows cannot be spelled");
		return -1;
	}
	if (wjson_parse((const char *)plan->artifact, plan->artifact_len, &v,
			&jerr) < 0) {
		*err = xasprintf("the windows ACL plan in the plan is not "
				 "valid JSON: %s",
				 jerr);
		free(jerr);
		return -1;
	}
	read_plan(&r, &v);
	wjson_free(&v);
	if (r.err) {
		aclplan_release(out);
		*err = r.err;
		return -1;
	}
	return 0;
}

void aclplan_release(struct aclplan *p)
{
	size_t i;

	for (i = 0; i < p->nobjs; i++) {
		aces_free(p->objs[i].aces, p->objs[i].naces);
		free(p->objs[i].aces);
		free(p->objs[i].path);
		free(p->objs[i].key);
		free(p->objs[i].rows);
	}
	free(p->objs);
	memset(p, 0, sizeof(*p));
}

void aclplan_print(const struct aclplan *p, struct bbuf *out)
{
	const struct wobj *o;
	size_t i, j;

	bbuf_printf(out, "capability %s\n", p->sid);
	bbuf_printf(out,
		    "token restricted DISABLE_MAX_PRIVILEGE restricting "
		    "capability,user,groups integrity %s\n",
		    p->low ? "low" : "medium");
	for (i = 0; i < p->nobjs; i++) {
		o = &p->objs[i];
		bbuf_printf(out, "object %s (%s; %s%s%s)\n", o->path, o->rows,
			    o->role == WOBJ_DENY_SIDE ? "deny side" :
							"write root",
			    o->placeholder ? "; placeholder if missing" :
					     "; skipped if missing",
			    o->label_low ? "; label low NO_WRITE_UP OICI" :
					   "");
		for (j = 0; j < o->naces; j++) {
			bbuf_printf(out, "  %lu ", (unsigned long)(j + 1));
			wace_print(&o->aces[j], p->sid, out);
			bbuf_putc(out, '\n');
		}
	}
}
