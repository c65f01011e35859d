/* SPDX-License-Identifier: MIT */
/*
 * windows.c - the windows target: an ACL plan (JSON) for a launcher that
 * runs the child under a restricted token carrying a capability SID
 * derived from the policy, and puts ACEs naming that SID on the policy's
 * concrete paths.  doc/targets.md documents the schema, the derivation of
 * the SID and why each nesting of rows is enforced faithfully.
 *
 * Windows evaluates a DACL nearest-first: the object's own (explicit) ACEs,
 * then the ones inherited from its parent, then from the grandparent, deny
 * before allow at each distance.  The table decides first-match by
 * priority.  The two agree when no emitted row lies inside a
 * higher-priority emitted row: such a row is dead and is never emitted, so
 * along any path the deepest emitted row is the highest-priority match.
 * Globs have no concrete object to carry an ACE: a deny or ro glob is
 * refused, an rw glob is left out (omitting an allow only narrows).
 */
#include <vbox.h>

#include <stdarg.h>
#include <stdio.h>

#include <jansson.h>

#include "capsid.h"
#include "diag.h"
#include "emit.h"
#include "eval.h"
#include "fspath.h"
#include "grow.h"
#include "index.h"
#include "ir.h"
#include "target.h"

/* ------------------------------------------------------------------ */
/* The capability SID. */

#define SID_MAX CAPSID_MAX

/*
 * The capability SID of @table into @out: SHA-256 over a canonical
 * serialization of the whole table (doc/targets.md), formatted as
 * S-1-15-3 followed by the digest as eight 32-bit sub-authorities, each
 * read little-endian as Windows lays sub-authorities out in memory.  The
 * hash and the spelling are plan/capsid.c's, which the windows launcher
 * uses to check the SID against the plan's rows.
 */
static void capability_sid(const struct table *table, char out[SID_MAX])
{
	struct sha256 s;
	size_t i;
	char *text;

	capsid_begin(&s, table->target->name);
	capsid_line(&s, "write", effect_name(table->default_write));
	capsid_line(&s, "net", table->default_net == EFFECT_DENY ? "deny" :
								 "open");
	for (i = 0; i < table->fs.n; i++) {
		text = row_text(table->fs.prio[i]);
		capsid_line(&s, "fs", text);
		free(text);
	}
	for (i = 0; i < table->net.n; i++) {
		text = row_text(table->net.prio[i]);
		capsid_line(&s, "net", text);
		free(text);
	}
	capsid_end(&s, out, NULL);
}

/* ------------------------------------------------------------------ */
/* Classification. */

/*
 * The highest-priority subtree row ("/a/b" or "/a/b/" "**") whose path is
 * @row's base path or one of its ancestors, when it outranks @row: @row
 * is then dead.  shadow_analyze() finds these too; this is the check the
 * nearest-first argument above depends on, so the emitter makes it itself
 * rather than trust that no finding was ever skipped.
 */
static const struct row *subtree_cover(const struct table *table,
				       const struct row *row)
{
	const struct path_index *idx = table->fs_index;
	uint32_t best = row->prio, node = idx->row_node[row->prio];

	/* The row's own prefix, bottom up: the best is a minimum. */
	for (;;) {
		if (idx->nodes[node].min_subtree < best)
			best = idx->nodes[node].min_subtree;
		if (!node)
			break;
		node = idx->parent[node];
	}
	return best == row->prio ? NULL : table->fs.prio[best];
}

static void classify_fs(const struct table *table, struct landing *l)
{
	const struct row *row = l->row, *cover = row->shadowed_by;

	if (!cover && is_subtree_pattern(row))
		cover = subtree_cover(table, row);
	if (cover) {
		landing_set_reason(l, LANDING_ABSORBED,
				   "dead: covered by row %u", cover->index);
		return;
	}
	if (!is_subtree_pattern(row)) {
		if (row->effect == EFFECT_RW)
			landing_set_reason(l, LANDING_ABSORBED,
					   "glob: windows ACLs apply to "
					   "concrete paths; omitting an allow "
					   "only narrows the sandbox");
		else
			landing_set_reason(l, LANDING_UNSUPPORTED,
					   "glob: windows ACLs apply to "
					   "concrete paths, so it needs "
					   "launch-time expansion, which has "
					   "no windows launcher");
		return;
	}
	switch (row->effect) {
	case EFFECT_RW:
		landing_set_reason(l, LANDING_KERNEL,
				   "writable root: allow ACE for the "
				   "capability SID%s",
				   table->default_write == EFFECT_DENY ?
					   " and a low integrity label" : "");
		break;
	case EFFECT_RO:
		landing_set_reason(l, LANDING_KERNEL,
				   "read-only: explicit deny-write ACE for the "
				   "capability SID");
		break;
	case EFFECT_DENY:
		landing_set_reason(l, LANDING_KERNEL,
				   "explicit deny ACE (read and write) for the "
				   "capability SID");
		break;
	case EFFECT_ALLOW:
	default:
		BUG("file row with effect %d", row->effect);
	}
}

static void classify_net(const struct table *table, struct landing *l)
{
	const struct row *row = l->row;

	if (row->shadowed_by) {
		landing_set_reason(l, LANDING_ABSORBED,
				   "dead: covered by row %u",
				   row->shadowed_by->index);
		return;
	}
	switch (row->effect) {
	case EFFECT_ALLOW:
		if (table->default_net == EFFECT_DENY)
			landing_set_reason(l, LANDING_ABSORBED,
					   "windows enforces no network rows; "
					   "omitting an allow only narrows "
					   "(the deny posture itself is "
					   "refused)");
		else
			landing_set_reason(l, LANDING_ABSORBED,
					   "the network posture is open: the "
					   "connection is allowed without it");
		break;
	case EFFECT_DENY:
		landing_set_reason(l, LANDING_UNSUPPORTED,
				   "windows enforces only the open network "
				   "posture: a network deny needs an egress "
				   "proxy or firewall rules, which the windows "
				   "plan does not have");
		break;
	case EFFECT_RO:
	case EFFECT_RW:
	default:
		BUG("network row with effect %d", row->effect);
	}
}

static void windows_classify(const struct table *table,
			     struct landing_set *out)
{
	size_t i;

	/* emit_classify() initializes @out; a zeroed one is ours to set up. */
	if (!out->fs)
		landing_set_init(out, table);
	for (i = 0; i < out->nfs; i++)
		classify_fs(table, &out->fs[i]);
	for (i = 0; i < out->nnet; i++)
		classify_net(table, &out->net[i]);
}

/* ------------------------------------------------------------------ */
/* Access rights, ACEs and paths. */

/*
 * Named access masks (winnt.h bit values).  No grant includes
 * FILE_DELETE_CHILD (0x40): with it a child could delete or replace a
 * protected entry of a writable directory whatever that entry's own DACL
 * says.  Every deny includes DELETE, WRITE_DAC and WRITE_OWNER, so the
 * child can neither remove a protected entry nor rewrite its DACL.
 *
 * Windows lets FILE_DELETE_CHILD on a directory delete any child, even
 * one whose own DACL denies DELETE, and the child holds that right
 * through the user's own ACEs (the user is a restricting SID) wherever
 * the user has full control.  So a pin, on every writable ancestor of a
 * protected entry, denies FILE_DELETE_CHILD too: neither the entry nor a
 * pinned ancestor below it can be deleted or renamed away through its
 * parent.  A deny ACE of that right on a directory stops deleting any
 * child through the parent; each child can still be deleted through its
 * own DELETE, which every writable object grants, so only what the plan
 * protects stays put (doc/targets.md, "Pins and missing holes").
 */
struct rights {
	const char *name;
	uint32_t mask;
};

static const struct rights rights_modify = { "modify", 0x001301bf };
static const struct rights rights_read = { "read_execute", 0x001200a9 };
static const struct rights rights_write = { "write", 0x000d0156 };
static const struct rights rights_all = { "read_write", 0x000f01ff };
static const struct rights rights_pin = { "pin", 0x000d0040 };
static const struct rights rights_rc = { "read_control", 0x00020000 };

/* OWNER RIGHTS: present, it replaces the owner's implied WRITE_DAC. */
#define SID_OWNER_RIGHTS "S-1-3-4"

/* What every JSON builder needs; @failed stops a second error report. */
struct plan_ctx {
	const struct table *table;
	struct diag_list *diags;
	bool failed;
	char sid[SID_MAX];
};

/*
 * Every JSON value is built through these two macros, so a failure (out
 * of memory, a string jansson rejects) is reported once, with the place
 * in this file that hit it, and propagates: a NULL child makes its
 * parent's "o" fail in turn.
 */
#define plan_pack(ctx, ...) pack_at((ctx), __FILE__, __LINE__, __VA_ARGS__)
#define plan_append(ctx, arr, v) \
	append_at((ctx), __FILE__, __LINE__, (arr), (v))

static void pack_failed(struct plan_ctx *ctx, const char *file, int line,
			const char *what)
{
	if (ctx->failed)
		return;
	ctx->failed = true;
	diag_error(ctx->diags, NULL,
		   "cannot build the windows ACL plan: %s (%s:%d)", what,
		   file, line);
}

static json_t *pack_at(struct plan_ctx *ctx, const char *file, int line,
		       const char *fmt, ...)
{
	json_error_t err;
	json_t *v;
	va_list ap;

	va_start(ap, fmt);
	v = json_vpack_ex(&err, 0, fmt, ap);
	va_end(ap);
	if (!v)
		pack_failed(ctx, file, line, err.text);
	return v;
}

static void append_at(struct plan_ctx *ctx, const char *file, int line,
		      json_t *arr, json_t *v)
{
	/* json_array_append_new() releases @v when it fails. */
	if (!arr || !v || json_array_append_new(arr, v))
		pack_failed(ctx, file, line, "cannot append to an array");
}

static json_t *ace_json(struct plan_ctx *ctx, const char *type,
			const char *sid, const struct rights *r,
			bool inherit)
{
	char mask[16];

	snprintf(mask, sizeof(mask), "0x%08x", (unsigned)r->mask);
	return plan_pack(ctx, "{s:s, s:s, s:s, s:s, s:s}", "type", type,
			 "sid", sid, "rights", r->name, "mask", mask,
			 "inheritance", inherit ? "OICI" : "none");
}

/* Length of @text without trailing "/" "**" segments: the base path. */
static size_t base_len(const char *text)
{
	size_t len = strlen(text);

	while (len >= 3 && !memcmp(text + len - 3, "/**", 3))
		len -= 3;
	return len;
}

static bool ascii_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/*
 * The native spelling of the canonical drive path @text[0..@len):
 * "/c/Work/x" -> "C:\\Work\\x", "/c" -> "C:\\".  NULL when @text is not a
 * drive path (never for a windows table, whose patterns all are).
 */
static char *native_path(const char *text, size_t len)
{
	char *out;
	size_t i;

	if (len < 2 || text[0] != '/' || !ascii_alpha(text[1]) ||
	    (len > 2 && text[2] != '/'))
		return NULL;
	if (len == 2)
		return xasprintf("%c:\\", text[1] & ~0x20);
	out = xmalloc(len + 1);
	out[0] = (char)(text[1] & ~0x20);
	out[1] = ':';
	for (i = 2; i < len; i++)
		out[i] = text[i] == '/' ? '\\' : text[i];
	out[len] = '\0';
	return out;
}

/* ------------------------------------------------------------------ */
/* Pins: writable ancestors of protected entries. */

/**
 * struct pin_ref - one writable ancestor of one protected entry
 * @key: the ancestor path, case-folded when the target folds (owned)
 * @text: the ancestor path as the entry spells it (owned)
 * @row: the protected entry's row index
 */
struct pin_ref {
	char *key;
	char *text;
	uint32_t row;
};

struct pin_list {
	struct pin_ref *items;
	size_t n;
	size_t cap;
};

static int pin_cmp(const void *a, const void *b)
{
	const struct pin_ref *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c)
		return c;
	return x->row < y->row ? -1 : x->row > y->row;
}

static void pin_list_free(struct pin_list *pins)
{
	size_t i;

	for (i = 0; i < pins->n; i++) {
		free(pins->items[i].key);
		free(pins->items[i].text);
	}
	free(pins->items);
}

/*
 * Record every ancestor of @row's path below the drive root that the
 * policy lets the child write.  The child could rename or delete such a
 * directory, or @row's path through it, and then create @row's path
 * afresh, without its ACEs; a pin (explicit deny DELETE,
 * FILE_DELETE_CHILD, WRITE_DAC, WRITE_OWNER) stops that.  Asking the
 * decision engine over-approximates what the plan grants, so the worst
 * case is a pin that was not needed, which only narrows.  Returns the
 * number of pins recorded.
 */
static size_t collect_pins(const struct table *table, const struct row *row,
			   struct pin_list *pins)
{
	const char *text = row->fs.text;
	size_t len = base_len(text), cut, i, n = 0;
	struct decision d;
	struct fs_path p;
	struct pin_ref *ref;
	char *anc, *err;

	/* cut 2 would be the drive root, which cannot be moved. */
	for (cut = 3; cut < len; cut++) {
		if (text[cut] != '/')
			continue;
		anc = xstrndup(text, cut);
		err = NULL;
		if (fs_path_parse(anc, table->target, &p, &err)) {
			/* Unparseable: pin it; the launcher decides. */
			free(err);
			d.allow = true;
		} else {
			eval_fs(table, &p, FS_WRITE, &d);
			fs_path_free(&p);
		}
		if (!d.allow) {
			free(anc);
			continue;
		}
		GROW(pins->items, pins->cap, pins->n + 1);
		ref = &pins->items[pins->n++];
		ref->text = anc;
		ref->key = xstrdup(anc);
		if (table->target->fold_case)
			for (i = 0; ref->key[i]; i++)
				if (ref->key[i] >= 'A' && ref->key[i] <= 'Z')
					ref->key[i] += 'a' - 'A';
		ref->row = row->index;
		n++;
	}
	return n;
}

/*
 * Whether @row's path lies right below a drive root that the policy lets
 * the child write.  Drive roots are never pinned (they cannot be
 * renamed, and a standard user cannot change their DACL), but the child
 * could make a missing path there (Authenticated Users may create
 * folders in C:\ by default): such an entry needs a placeholder too.
 */
static bool below_writable_drive(const struct table *table,
				 const struct row *row)
{
	const char *text = row->fs.text;
	size_t len = base_len(text);
	struct decision d;
	struct fs_path p;
	char *drive, *err = NULL;
	bool writable;

	if (len <= 3 || memchr(text + 3, '/', len - 3))
		return false;
	drive = xstrndup(text, 2);
	if (fs_path_parse(drive, table->target, &p, &err)) {
		/* Unparseable: assume the child could make it. */
		free(err);
		free(drive);
		return true;
	}
	eval_fs(table, &p, FS_WRITE, &d);
	writable = d.allow;
	fs_path_free(&p);
	free(drive);
	return writable;
}

static json_t *pins_json(struct plan_ctx *ctx, struct pin_list *pins)
{
	json_t *arr = json_array(), *holes, *aces;
	size_t i, j;
	char *path;

	if (!arr)
		pack_failed(ctx, __FILE__, __LINE__, "out of memory");
	if (pins->n)
		qsort(pins->items, pins->n, sizeof(*pins->items), pin_cmp);
	for (i = 0; i < pins->n; i = j) {
		holes = json_array();
		for (j = i; j < pins->n &&
			    !strcmp(pins->items[j].key, pins->items[i].key);
		     j++)
			plan_append(ctx, holes,
				    json_integer(pins->items[j].row));
		aces = json_array();
		plan_append(ctx, aces,
			    ace_json(ctx, "deny", ctx->sid, &rights_pin,
				     false));
		plan_append(ctx, aces,
			    ace_json(ctx, "allow", SID_OWNER_RIGHTS,
				     &rights_rc, false));
		path = native_path(pins->items[i].text,
				   strlen(pins->items[i].text));
		plan_append(ctx, arr,
			    plan_pack(ctx, "{s:s?, s:o, s:o}", "path", path,
				      "holes", holes, "aces", aces));
		free(path);
	}
	return arr;
}

/* ------------------------------------------------------------------ */
/* The plan. */

static json_t *entry_aces(struct plan_ctx *ctx, enum effect effect)
{
	json_t *aces = json_array();

	switch (effect) {
	case EFFECT_RW:
		plan_append(ctx, aces, ace_json(ctx, "allow", ctx->sid,
						&rights_modify, true));
		break;
	case EFFECT_RO:
		/*
		 * The read allow matters when the hole lies inside a
		 * lower-priority deny: without it the inherited deny would
		 * still refuse the reads the ro row allows.
		 */
		plan_append(ctx, aces, ace_json(ctx, "deny", ctx->sid,
						&rights_write, true));
		plan_append(ctx, aces, ace_json(ctx, "allow", ctx->sid,
						&rights_read, true));
		plan_append(ctx, aces, ace_json(ctx, "allow",
						SID_OWNER_RIGHTS, &rights_rc,
						true));
		break;
	case EFFECT_DENY:
		plan_append(ctx, aces, ace_json(ctx, "deny", ctx->sid,
						&rights_all, true));
		plan_append(ctx, aces, ace_json(ctx, "allow",
						SID_OWNER_RIGHTS, &rights_rc,
						true));
		break;
	case EFFECT_ALLOW:
	default:
		BUG("file row with effect %d", effect);
	}
	return aces;
}

static json_t *entry_json(struct plan_ctx *ctx, const struct row *row,
			  bool placeholder)
{
	const char *text = row->fs.text;
	json_t *label, *entry;
	char *rule, *path;

	path = native_path(text, base_len(text));
	if (!path) {
		diag_error(ctx->diags, &row->loc,
			   "row %u: '%s' is not a drive path", row->index,
			   text);
		ctx->failed = true;
		return NULL;
	}
	if (row->effect == EFFECT_RW &&
	    ctx->table->default_write == EFFECT_DENY)
		label = plan_pack(ctx, "{s:s, s:s, s:s}", "level", "low",
				  "policy", "NO_WRITE_UP", "inheritance",
				  "OICI");
	else
		label = json_null();
	rule = row_text(row);
	entry = plan_pack(ctx, "{s:I, s:s, s:s, s:s, s:o, s:o, s:s}", "row",
			  (json_int_t)row->index, "rule", rule, "effect",
			  effect_name(row->effect), "path", path, "aces",
			  entry_aces(ctx, row->effect), "label", label,
			  "if_missing", placeholder ? "placeholder" : "skip");
	free(rule);
	free(path);
	return entry;
}

static json_t *plan_json(struct plan_ctx *ctx,
			 const struct landing_set *landing)
{
	const struct table *table = ctx->table;
	struct pin_list pins = { 0 };
	json_t *entries, *token, *postures, *plan;
	bool placeholder;
	size_t i;

	entries = json_array();
	for (i = 0; i < table->fs.n; i++) {
		const struct row *row = table->fs.prio[i];

		if (landing->fs[row->index].kind != LANDING_KERNEL)
			continue;
		/*
		 * A missing deny or ro path the child could make (a
		 * writable directory above it) gets a placeholder.  Both
		 * calls run: the pins are recorded either way.
		 */
		placeholder = false;
		if (row->effect != EFFECT_RW) {
			placeholder = collect_pins(table, row, &pins) > 0;
			placeholder |= below_writable_drive(table, row);
		}
		plan_append(ctx, entries, entry_json(ctx, row, placeholder));
	}
	token = plan_pack(ctx, "{s:s, s:b, s:[sss], s:s}", "type",
			  "restricted", "disable_max_privilege", 1,
			  "restricting_sids", "capability", "user", "groups",
			  "integrity_level",
			  table->default_write == EFFECT_DENY ? "low" :
								"medium");
	postures = plan_pack(ctx, "{s:s, s:s}", "write",
			     effect_name(table->default_write), "net",
			     "open");
	plan = plan_pack(ctx, "{s:s, s:i, s:s, s:s, s:o, s:o, s:o, s:o}",
			 "format", "vbox-acl-plan", "version", 1, "target",
			 table->target->name, "capability_sid", ctx->sid,
			 "token", token, "postures", postures, "entries",
			 entries, "pins", pins_json(ctx, &pins));
	pin_list_free(&pins);
	if (ctx->failed) {
		json_decref(plan);
		return NULL;
	}
	return plan;
}

/* The network posture: the plan has no way to confine connections. */
static int check_net_posture(const struct table *table,
			     struct diag_list *diags)
{
	if (table->default_net != EFFECT_DENY)
		return 0;
	if (!table->default_net_loc.in)
		return diag_error(diags, NULL,
				  "the default network posture 'deny' is "
				  "unsupported on windows: add '@default net "
				  "open'");
	return diag_error(diags, &table->default_net_loc,
			  "network posture 'deny' is unsupported on "
			  "windows: the ACL plan cannot confine "
			  "connections; use '@default net open'");
}

static int windows_emit_profile(const struct table *table,
				const struct landing_set *landing, FILE *out,
				struct diag_list *diags)
{
	struct plan_ctx ctx = { .table = table, .diags = diags };
	json_t *plan;
	size_t i;
	int rc;

	/* Fail closed if called against the contract. */
	if (check_net_posture(table, diags))
		return -1;
	for (i = 0; i < landing->nfs; i++)
		if (landing->fs[i].kind == LANDING_UNSUPPORTED)
			return diag_error(diags, &landing->fs[i].row->loc,
					  "row %zu is unsupported on windows",
					  i);
	for (i = 0; i < landing->nnet; i++)
		if (landing->net[i].kind == LANDING_UNSUPPORTED)
			return diag_error(diags, &landing->net[i].row->loc,
					  "row %zu is unsupported on windows",
					  i);
	capability_sid(table, ctx.sid);
	plan = plan_json(&ctx, landing);
	if (!plan)
		return -1;
	rc = json_dumpf(plan, out, JSON_INDENT(2));
	json_decref(plan);
	if (rc || fputc('\n', out) == EOF || fflush(out) || ferror(out))
		return diag_error(diags, NULL,
				  "cannot write the windows ACL plan");
	return 0;
}

/* The windows target: see doc/targets.md, section "windows". */
const struct emitter emitter_windows = {
	.id = TARGET_WINDOWS,
	.name = TARGET_WINDOWS_NAME,
	.profile_ext = "acl.json",
	.check_table = check_net_posture,
	.classify = windows_classify,
	.index_use = EMIT_INDEX_QUERIES,
	.emit_profile = windows_emit_profile,
};
