/* SPDX-License-Identifier: MIT */
/*
 * emit.c - the table of targets and the classification every emitter
 * shares.
 */
#include <vbox.h>

#include <stdarg.h>
#include <stdio.h>

#include "diag.h"
#include "emit.h"
#include "grow.h"
#include "ir.h"
#include "strpool.h"
#include "target.h"

/* Indexed by enum target_id (target_id.h). */
static const struct emitter *const emitters[] = {
	[TARGET_DARWIN] = &emitter_darwin,
	[TARGET_LINUX] = &emitter_linux,
	[TARGET_WINDOWS] = &emitter_windows,
};

const struct emitter *emitter_for(const struct target_traits *target)
{
	const struct emitter *em = NULL;

	if (target->id < array_size(emitters))
		em = emitters[target->id];
	if (!em || em->id != target->id)
		BUG("no emitter for target '%s'", target->name);
	return em;
}

static void init_domain(struct landing **out, size_t *n,
			const struct rowvec *rows, struct strpool *pool)
{
	size_t i;

	*n = rows->n;
	*out = xcalloc(rows->n ? rows->n : 1, sizeof(**out));
	for (i = 0; i < rows->n; i++) {
		(*out)[i].kind = LANDING_KERNEL;
		(*out)[i].row = rows->order[i];
		(*out)[i].pool = pool;
	}
}

void landing_set_init(struct landing_set *set, const struct table *table)
{
	memset(set, 0, sizeof(*set));
	/* On the heap: entries point at it, and sets are moved by value. */
	set->reasons = xzalloc(sizeof(*set->reasons));
	init_domain(&set->fs, &set->nfs, &table->fs, set->reasons);
	init_domain(&set->net, &set->nnet, &table->net, set->reasons);
}

/*
 * intern_reason - the reason @fmt formats, interned in @pool.  Every row
 * gets one and a million rows share a few dozen: a short one is
 * formatted on the stack and copied only the first time it is seen.
 */
static const char *intern_reason(struct strpool *pool, const char *fmt,
				 va_list ap)
{
	char buf[256], *reason;
	va_list again;
	int n;

	va_copy(again, ap);
	n = vsnprintf(buf, sizeof(buf), fmt, again);
	va_end(again);
	if (n < 0)
		BUG("cannot format a landing reason");
	if ((size_t)n < sizeof(buf))
		return strpool_intern(pool, buf);
	if (vasprintf(&reason, fmt, ap) < 0)
		BUG("out of memory");
	return strpool_take(pool, reason);
}

void landing_set_reason(struct landing *l, enum landing_kind kind,
			const char *fmt, ...)
{
	va_list ap;

	if (!l->pool)
		BUG("landing without a pool for its reason");
	va_start(ap, fmt);
	l->reason = intern_reason(l->pool, fmt, ap);
	va_end(ap);
	l->kind = kind;
}

void landing_set_like(struct landing *l, const struct landing *like)
{
	if (!l->pool || l->pool != like->pool || !like->reason)
		BUG("landing copied from another set or an unclassified one");
	l->kind = like->kind;
	l->reason = like->reason;
}

void landing_set_add_reserved(struct landing_set *set, const char *entry,
			      const char *fmt, ...)
{
	struct landing *l;
	va_list ap;

	if (!set->reasons)
		BUG("reserved entry added to a set not initialised");
	GROW(set->reserved, set->reserved_cap, set->nreserved + 1);
	l = &set->reserved[set->nreserved++];
	memset(l, 0, sizeof(*l));
	l->kind = LANDING_RESERVED;
	l->entry = xstrdup(entry);
	l->pool = set->reasons;
	va_start(ap, fmt);
	l->reason = intern_reason(set->reasons, fmt, ap);
	va_end(ap);
}

static void free_entries(struct landing *l, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(l[i].entry);
	free(l);
}

void landing_set_free(struct landing_set *set)
{
	/* A row's entry holds a static label, if anything. */
	free(set->fs);
	free(set->net);
	free_entries(set->reserved, set->nreserved);
	if (set->reasons)
		strpool_free(set->reasons);
	free(set->reasons);
	memset(set, 0, sizeof(*set));
}

static int report_unsupported(const struct landing *l, size_t n,
			      const char *target, struct diag_list *diags)
{
	int ret = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		char *text;

		if (l[i].kind != LANDING_UNSUPPORTED)
			continue;
		text = row_text(l[i].row);
		ret = diag_error(diags, &l[i].row->loc,
				 "row %u '%s' is unsupported on %s: %s",
				 l[i].row->index, text, target,
				 l[i].reason ? l[i].reason : "no reason given");
		free(text);
	}
	return ret;
}

/*
 * "@default tmp private" (table.c, add_tmp_row()): how the private /tmp
 * lands.  linux: the row is a kernel row whatever the classifier made
 * of an "rw:/tmp" (linux.c mounts it as a tmpfs, not a bind).  darwin
 * and windows refuse it: neither mounts anything per process, so
 * neither can give the sandbox a /tmp of its own, and pretending (the
 * host's /tmp made writable) would widen the sandbox.  Returns 0, or
 * -1 with an error queued (windows has no row to mark).
 */
static int tmp_landing(const struct emitter *em, const struct table *table,
		       struct landing_set *out, struct diag_list *diags)
{
	static const char darwin_why[] =
		"seatbelt filters paths and mounts nothing, so it cannot "
		"give the sandbox a /tmp of its own; drop the setting and "
		"point TMPDIR at a writable directory of the project";
	const struct row *row = table->tmp_row;

	if (!table->tmp_private)
		return 0;
	switch (em->id) {
	case TARGET_LINUX:
		if (row && !row->shadowed_by)
			landing_set_reason(&out->fs[row->index],
					   LANDING_KERNEL, "private /tmp: a "
					   "tmpfs of the sandbox's own, empty "
					   "and writable (@default tmp "
					   "private)");
		return 0;
	case TARGET_DARWIN:
		if (row)
			landing_set_reason(&out->fs[row->index],
					   LANDING_UNSUPPORTED, "%s",
					   darwin_why);
		return 0;
	case TARGET_WINDOWS:
	default:
		return diag_error(diags, &table->default_tmp_loc,
				  "'@default tmp private' is unsupported on "
				  "%s: a windows process has no /tmp of its "
				  "own to give (TEMP and TMP name the user's "
				  "directory); drop the setting and point TEMP "
				  "at a writable directory of the project",
				  em->name);
	}
}

int emit_classify(const struct emitter *em, const struct table *table,
		  struct landing_set *out, struct diag_list *diags)
{
	size_t i;
	int ret;

	landing_set_init(out, table);
	em->classify(table, out);
	ret = tmp_landing(em, table, out, diags);
	/* A classifier that forgets a reason would leave users guessing. */
	for (i = 0; i < out->nfs; i++)
		if (!out->fs[i].reason)
			BUG("%s: file row %zu has no landing reason", em->name, i);
	for (i = 0; i < out->nnet; i++)
		if (!out->net[i].reason)
			BUG("%s: network row %zu has no landing reason",
			    em->name, i);
	if (report_unsupported(out->fs, out->nfs, em->name, diags))
		ret = -1;
	if (report_unsupported(out->net, out->nnet, em->name, diags))
		ret = -1;
	if (em->check_table && em->check_table(table, diags))
		ret = -1;
	return ret;
}

void emit_supervised_notes(const struct emitter *em,
			   const struct landing_set *set,
			   struct diag_list *diags)
{
	size_t i;

	for (i = 0; i < set->nfs; i++) {
		const struct landing *l = &set->fs[i];
		char *text;

		if (l->kind != LANDING_SUPERVISED)
			continue;
		text = row_text(l->row);
		diag_note(diags, &l->row->loc, "row %u '%s' lands supervised "
			  "on %s: %s", l->row->index, text, em->name,
			  l->reason);
		free(text);
	}
}

const char *landing_name(const struct landing *l)
{
	return l->row && l->label ? l->label : landing_kind_name(l->kind);
}
