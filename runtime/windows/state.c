/* SPDX-License-Identifier: MIT */
/*
 * state.c - the reconciliation state file and its protocol (state.h).
 *
 * The file:
 *   {"format": "vbox-acl-state", "version": 1, "records": [
 *     {"holder": "PID:START", "path": "C:\\Work", "kind": "ace",
 *      "type": "deny", "sid": "S-1-15-3-…", "mask": "0x000d0156",
 *      "flags": "0x03"}, …]}
 * with "kind" "label" or "placeholder" (then without the ACE's keys).
 */
#include <vbox.h>

#include <stdio.h>

#include "bbuf.h"
#include "grow.h"
#include "state.h"
#include "wjson.h"

static const char *const kind_names[] = { "ace", "label", "placeholder" };

void sstate_add(struct sstate *s, const char *holder, const char *path,
		unsigned kind, const struct wace *ace)
{
	struct srec *r;

	GROW(s->recs, s->cap, s->n + 1);
	r = &s->recs[s->n++];
	memset(r, 0, sizeof(*r));
	r->holder = xstrdup(holder);
	r->path = xstrdup(path);
	r->kind = kind;
	if (kind == SREC_ACE)
		wace_copy(&r->ace, ace);
}

static void srec_free(struct srec *r)
{
	free(r->holder);
	free(r->path);
	free(r->ace.sid);
}

void sstate_drop(struct sstate *s, const char *holder, const char *path)
{
	size_t i, j;

	for (i = 0, j = 0; i < s->n; i++) {
		if (s->recs[i].kind != SREC_PLACEHOLDER &&
		    !strcmp(s->recs[i].holder, holder) &&
		    !strcmp(s->recs[i].path, path)) {
			srec_free(&s->recs[i]);
			continue;
		}
		s->recs[j++] = s->recs[i];
	}
	s->n = j;
}

void sstate_free(struct sstate *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		srec_free(&s->recs[i]);
	free(s->recs);
	memset(s, 0, sizeof(*s));
}

static int hex_u32(const char *s, unsigned digits, uint32_t *out)
{
	uint32_t v = 0;
	unsigned i;

	if (strncmp(s, "0x", 2) || strlen(s) != 2 + digits)
		return -1;
	for (i = 0; i < digits; i++) {
		char c = s[2 + i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (uint32_t)(c - 'a' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

static const char *get_str(const struct wjson *o, const char *key)
{
	const struct wjson *v = wjson_get(o, key);

	return v && v->type == WJSON_STRING ? v->s : NULL;
}

/* A SID's text: "S-1-" and digits and dashes, nothing else. */
static bool sid_text_ok(const char *s)
{
	size_t i;

	if (strncmp(s, "S-1-", 4) || strlen(s) >= CAPSID_MAX)
		return false;
	for (i = 4; s[i]; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return false;
	return s[i - 1] != '-';
}

static int parse_rec(const struct wjson *o, struct sstate *s)
{
	const char *holder = get_str(o, "holder"), *path = get_str(o, "path");
	const char *kind = get_str(o, "kind"), *type, *sid, *mask, *flags;
	struct wace a = { 0 };
	uint32_t m, f;
	unsigned k;

	if (!holder || !path || !kind || !wpath_check(path))
		return -1;
	for (k = 0; k < array_size(kind_names); k++)
		if (!strcmp(kind, kind_names[k]))
			break;
	if (k == array_size(kind_names))
		return -1;
	if (k != SREC_ACE) {
		if (o->n != 3)
			return -1;
		sstate_add(s, holder, path, k, NULL);
		return 0;
	}
	type = get_str(o, "type");
	sid = get_str(o, "sid");
	mask = get_str(o, "mask");
	flags = get_str(o, "flags");
	if (o->n != 7 || !type || !sid || !mask || !flags ||
	    (strcmp(type, "deny") && strcmp(type, "allow")) ||
	    !sid_text_ok(sid) || hex_u32(mask, 8, &m) < 0 ||
	    hex_u32(flags, 2, &f) < 0 || (f & ~(uint32_t)(WACE_OI | WACE_CI)))
		return -1;
	a.type = strcmp(type, "deny") ? WACE_ALLOW : WACE_DENY;
	a.mask = m;
	a.flags = (uint8_t)f;
	a.sid = (char *)sid;
	sstate_add(s, holder, path, SREC_ACE, &a);
	return 0;
}

int sstate_parse(const char *buf, size_t len, struct sstate *out,
		 char **err)
{
	const struct wjson *f, *v, *recs;
	struct wjson doc;
	char *jerr = NULL;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (len > STATE_MAX_BYTES) {
		*err = xstrdup("larger than 16 MiB");
		return -1;
	}
	if (wjson_parse(buf, len, &doc, &jerr) < 0) {
		*err = xasprintf("not valid JSON: %s", jerr);
		free(jerr);
		return -1;
	}
	f = wjson_get(&doc, "format");
	v = wjson_get(&doc, "version");
	recs = wjson_get(&doc, "records");
	if (doc.type != WJSON_OBJECT || doc.n != 3 || !f ||
	    f->type != WJSON_STRING || strcmp(f->s, "vbox-acl-state") || !v ||
	    v->type != WJSON_INT || v->i != 1 || !recs ||
	    recs->type != WJSON_ARRAY) {
		wjson_free(&doc);
		*err = xstrdup("not a version 1 vbox-acl-state");
		return -1;
	}
	for (i = 0; i < recs->n; i++)
		if (recs->items[i].type != WJSON_OBJECT ||
		    parse_rec(&recs->items[i], out) < 0) {
			wjson_free(&doc);
			sstate_free(out);
			*err = xasprintf("record %zu is malformed", i);
			return -1;
		}
	wjson_free(&doc);
	return 0;
}

char *sstate_format(const struct sstate *s, size_t *len)
{
	const struct srec *r;
	struct bbuf b;
	char *out;
	size_t i;

	bbuf_init_heap(&b, STATE_MAX_BYTES);
	bbuf_puts(&b, "{\n  \"format\": \"vbox-acl-state\",\n"
		      "  \"version\": 1,\n  \"records\": [");
	for (i = 0; i < s->n; i++) {
		r = &s->recs[i];
		bbuf_puts(&b, i ? ",\n    {" : "\n    {");
		bbuf_puts(&b, "\"holder\": ");
		wjson_put_string(&b, r->holder);
		bbuf_puts(&b, ", \"path\": ");
		wjson_put_string(&b, r->path);
		bbuf_printf(&b, ", \"kind\": \"%s\"", kind_names[r->kind]);
		if (r->kind == SREC_ACE) {
			bbuf_printf(&b, ", \"type\": \"%s\", \"sid\": ",
				    r->ace.type == WACE_DENY ? "deny" :
							       "allow");
			wjson_put_string(&b, r->ace.sid);
			bbuf_printf(&b,
				    ", \"mask\": \"0x%08lx\", \"flags\": "
				    "\"0x%02x\"",
				    (unsigned long)r->ace.mask,
				    (unsigned)r->ace.flags);
		}
		bbuf_putc(&b, '}');
	}
	bbuf_puts(&b, s->n ? "\n  ]\n}\n" : "]\n}\n");
	if (!bbuf_ok(&b)) {
		bbuf_free(&b);
		return NULL;
	}
	out = bbuf_take(&b, len);
	bbuf_free(&b);
	return out;
}

int state_open(const struct state_ops *ops, struct sstate *s, char **err)
{
	char *buf = NULL, *perr = NULL;
	size_t len = 0;

	memset(s, 0, sizeof(*s));
	if (ops->lock(ops->ctx, err) < 0)
		return -1;
	if (ops->read(ops->ctx, &buf, &len, err) < 0) {
		ops->unlock(ops->ctx);
		return -1;
	}
	if (buf && sstate_parse(buf, len, s, &perr) < 0) {
		*err = xasprintf("the state file is corrupt (%s): it names "
				 "ACEs an earlier launch left; see "
				 "vbox-exec(1), \"Windows\", to recover",
				 perr);
		free(perr);
		free(buf);
		ops->unlock(ops->ctx);
		return -1;
	}
	free(buf);
	return 0;
}

int state_write(const struct state_ops *ops, const struct sstate *s,
		char **err)
{
	size_t len;
	char *buf = sstate_format(s, &len);
	int ret;

	if (!buf) {
		*err = xstrdup("the state would pass 16 MiB");
		return -1;
	}
	ret = ops->write(ops->ctx, buf, len, err);
	free(buf);
	return ret;
}

void state_close(const struct state_ops *ops, struct sstate *s)
{
	ops->unlock(ops->ctx);
	sstate_free(s);
}

static bool ascii_caseeq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		char x = *a >= 'A' && *a <= 'Z' ? *a + 32 : *a;
		char y = *b >= 'A' && *b <= 'Z' ? *b + 32 : *b;

		if (x != y)
			return false;
	}
	return *a == *b;
}

static bool same_effect(const struct srec *a, const struct srec *b)
{
	return a->kind == b->kind && ascii_caseeq(a->path, b->path) &&
	       (a->kind != SREC_ACE || wace_equal(&a->ace, &b->ace));
}

/*
 * Drop every record flagged in @gone (1; 2 once revoked, 0 kept) whose
 * effect no kept record has,
 * revoking it on the host first (ACEs and labels before placeholders);
 * a record whose revocation fails stays.  Returns the failures.
 */
static size_t settle(const struct state_ops *ops, struct sstate *s,
		     unsigned char *gone)
{
	size_t i, j, k, failed = 0;
	unsigned pass;
	bool needed;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < s->n; i++) {
			if (!gone[i] ||
			    (s->recs[i].kind == SREC_PLACEHOLDER) != pass)
				continue;
			needed = false;
			for (j = 0; j < s->n && !needed; j++)
				needed = !gone[j] &&
					 same_effect(&s->recs[i], &s->recs[j]);
			/* Revoke an effect once, however many had it. */
			for (k = 0; k < i && !needed; k++)
				needed = gone[k] == 2 &&
					 same_effect(&s->recs[i], &s->recs[k]);
			if (needed)
				continue;
			if (ops->revoke(ops->ctx, &s->recs[i]) < 0) {
				gone[i] = 0;
				failed++;
			} else {
				gone[i] = 2;
			}
		}
	}
	for (i = 0, j = 0; i < s->n; i++) {
		if (gone[i]) {
			srec_free(&s->recs[i]);
			continue;
		}
		s->recs[j++] = s->recs[i];
	}
	s->n = j;
	return failed;
}

static size_t sweep_where(const struct state_ops *ops, struct sstate *s,
			  const char *self, bool drop_self)
{
	unsigned char *gone = xcalloc(s->n ? s->n : 1, sizeof(*gone));
	char **seen = NULL;
	bool *alive = NULL;
	size_t i, j, nseen = 0, failed;

	/* Ask about each holder once. */
	seen = xcalloc(s->n ? s->n : 1, sizeof(*seen));
	alive = xcalloc(s->n ? s->n : 1, sizeof(*alive));
	for (i = 0; i < s->n; i++) {
		const char *h = s->recs[i].holder;

		if (!strcmp(h, self)) {
			gone[i] = drop_self;
			continue;
		}
		for (j = 0; j < nseen && strcmp(seen[j], h); j++)
			;
		if (j == nseen) {
			seen[nseen] = s->recs[i].holder;
			alive[nseen++] = ops->alive(ops->ctx, h);
		}
		gone[i] = !alive[j];
	}
	free(seen);
	free(alive);
	failed = settle(ops, s, gone);
	free(gone);
	return failed;
}

size_t state_sweep(const struct state_ops *ops, struct sstate *s,
		   const char *self)
{
	return sweep_where(ops, s, self, false);
}

size_t state_finish(const struct state_ops *ops, struct sstate *s,
		    const char *self)
{
	return sweep_where(ops, s, self, true);
}

void state_records_for(const struct aclplan *plan, const char *holder,
		       struct sstate *s)
{
	const struct wobj *o;
	size_t i, j;

	for (i = 0; i < plan->nobjs; i++) {
		o = &plan->objs[i];
		for (j = 0; j < o->naces; j++)
			sstate_add(s, holder, o->path, SREC_ACE, &o->aces[j]);
		if (o->label_low)
			sstate_add(s, holder, o->path, SREC_LABEL, NULL);
	}
}
