/* SPDX-License-Identifier: MIT */
/*
 * linux.c - the linux target: bubblewrap argument lists.
 *
 * The list starts from a read-only view of the whole machine (or a
 * writable one under "@default write rw") and mounts the rows on top from
 * the lowest priority to the highest: a later mount covers an earlier one,
 * exactly as a higher-priority row decides before a lower one.  A literal
 * pattern covers its whole subtree, and so does a mount, so a literal row
 * is one mount.  Everything that depends on the host file system (the type
 * of a denied path, whether it exists, what a glob matches) is decided by
 * the launcher: those rows are launch-class and plan.bin carries an
 * LX_LAUNCH mount where their mounts belong.  A deny or ro row that no
 * mount made at launch can hold (a glob where the child can create what
 * it matches, a pattern that starts with a wildcard) is supervised: it
 * makes no mount, and vbox-exec's supervisor judges each path call with
 * the table's matcher.  doc/targets.md has the details.
 *
 * Owned here: classification and the typed sandbox (plan/linux_artifact.h)
 * for a table; a pure function of the table, like every emitter (emit.h).
 * What the launcher does with the host file system is runtime/linux/.
 */
#include <vbox.h>

#include <errno.h>
#include <stdio.h>

#include "diag.h"
#include "emit.h"
#include "fspath.h"
#include "ir.h"
#include "linux.h"
#include "linux_regions.h"
#include "linux_artifact.h"
#include "netaddr.h"
#include "wire.h"

/* ------------------------------------------------------------------ */
/* pattern shapes */

/*
 * What a pattern is to a mount table:
 * SHAPE_SUBTREE: no wildcard, or only trailing "**" segments: it matches
 *                its literal prefix and everything below, like one mount
 * SHAPE_GLOB: a literal prefix, then wildcards: expandable at launch
 * SHAPE_ROOTLESS: wildcards from the first segment on: nothing to expand
 *                 from and nothing to mount
 */
enum shape {
	SHAPE_SUBTREE,
	SHAPE_GLOB,
	SHAPE_ROOTLESS,
};

static enum shape pattern_shape(const struct fs_pattern *p)
{
	uint32_t i;

	if (!p->wild)
		return SHAPE_SUBTREE;
	if (p->nlit == 0)
		return SHAPE_ROOTLESS;
	for (i = p->nlit; i < p->nsegs; i++)
		if (p->segs[i].kind != SEG_STARSTAR)
			return SHAPE_GLOB;
	return SHAPE_SUBTREE;
}

/*
 * The first @nlit segments of the normalized, absolute @text ("/" when
 * none) as a new string.  The text is cleaned: one '/' between segments.
 */
static char *text_prefix(const char *text, uint32_t nlit)
{
	size_t pos = 0;
	uint32_t i;

	if (text[0] != '/' || nlit == 0)
		return xstrdup("/");
	for (i = 0; i < nlit && text[pos] == '/'; i++) {
		pos++;
		while (text[pos] && text[pos] != '/')
			pos++;
	}
	return xstrndup(text, pos);
}

static char *pattern_prefix(const struct fs_pattern *p)
{
	return text_prefix(p->text, p->nlit);
}

/* ------------------------------------------------------------------ */
/* classification */

static bool landing_mounts(const struct landing *l)
{
	return l->kind == LANDING_KERNEL || l->kind == LANDING_LAUNCH;
}

static const char deny_reason[] =
	"denied path: the launcher mounts an empty read-only tmpfs over a "
	"directory, /dev/null over a file, and a placeholder over the first "
	"missing component when a writable region could create it";

static const char supervised_reason[] =
	"judged per path call by the launcher's supervisor: files created "
	"later are covered; every open, create, rename, link, unlink and "
	"metadata change in the sandbox costs a round trip (bench/README.md)";

static void classify_subtree(const struct lx_regions *rg,
			     const struct row *row, struct landing *l)
{
	struct region r;

	if (row->effect == EFFECT_DENY) {
		landing_set_reason(l, LANDING_LAUNCH, "%s", deny_reason);
		return;
	}
	lx_regions_at(rg, row, &r);
	if (row->effect == EFFECT_RW) {
		if (r.definite == EFFECT_RW && !r.maybe_ro && !r.maybe_deny) {
			if (r.by)
				landing_set_reason(l, LANDING_ABSORBED,
					"redundant: already writable through "
					"row %u", r.by->index);
			else
				landing_set_reason(l, LANDING_ABSORBED,
					"redundant: @default write rw makes "
					"it writable");
			return;
		}
		landing_set_reason(l, LANDING_KERNEL,
				   "writable bind mount (--bind-try)");
		return;
	}
	/* EFFECT_RO */
	if (r.definite == EFFECT_RW || r.maybe_rw) {
		const struct row *by = r.definite == EFFECT_RW ? r.by :
				       r.maybe_by;

		if (by)
			landing_set_reason(l, LANDING_LAUNCH,
				"read-only hole in a region row %u makes "
				"writable: the launcher mounts it, or a "
				"placeholder over its first missing component, "
				"so the child cannot create it", by->index);
		else
			landing_set_reason(l, LANDING_LAUNCH,
				"read-only hole in a region @default write rw "
				"makes writable: the launcher mounts it, or a "
				"placeholder over its first missing component, "
				"so the child cannot create it");
		return;
	}
	if (r.definite == EFFECT_RO && !r.maybe_deny) {
		if (r.by)
			landing_set_reason(l, LANDING_ABSORBED,
					   "redundant: already read-only "
					   "through row %u", r.by->index);
		else
			landing_set_reason(l, LANDING_ABSORBED,
					   "redundant: the root is mounted "
					   "read-only (@default write deny)");
		return;
	}
	landing_set_reason(l, LANDING_KERNEL,
			   "read-only bind mount (--ro-bind-try) inside a "
			   "denied region");
}

/*
 * A deny or ro row that mounts cannot hold: the launcher's supervisor
 * judges every path call of the sandbox with the table's matcher
 * (doc/targets.md, "supervised").  It makes no mount, so it shapes no
 * region.  A read-only row cannot show what a lower row's mount hides:
 * the supervisor sees the sandbox's mount namespace, where the hidden
 * path is gone, and explain would say it is readable; refused.
 */
static void classify_supervised(const struct lx_regions *rg,
				const struct row *row, struct landing *l)
{
	const struct row *hide;

	if (row->effect == EFFECT_RO) {
		hide = lx_regions_deny_near(rg, row);
		if (hide) {
			landing_set_reason(l, LANDING_UNSUPPORTED,
				"a supervised read-only row cannot show what "
				"the mounts of row %u hide", hide->index);
			return;
		}
	}
	landing_set_reason(l, LANDING_SUPERVISED, "%s", supervised_reason);
}

/*
 * A pattern that starts with a wildcard names no directory to mount or
 * to expand at launch.  Leaving out an rw row only narrows; an ro row
 * where no lower row (nor @default write) makes anything writable, and
 * no lower deny hides anything, is redundant; the rest is supervised.
 */
static void classify_rootless(const struct lx_regions *rg,
			      const struct row *row, struct landing *l)
{
	struct region r;

	if (row->effect == EFFECT_RW) {
		landing_set_reason(l, LANDING_ABSORBED,
			"omitting this allow only narrows: a pattern that "
			"starts with a wildcard names no directory to mount "
			"or to expand at launch");
		return;
	}
	if (row->effect == EFFECT_RO) {
		lx_regions_at(rg, row, &r);
		if (r.definite == EFFECT_RO && !r.maybe_rw &&
		    !lx_regions_writable_below(rg, row) &&
		    !lx_regions_deny_near(rg, row)) {
			landing_set_reason(l, LANDING_ABSORBED,
				"redundant: the root is mounted read-only "
				"(@default write deny) and no lower row makes "
				"anything writable");
			return;
		}
	}
	classify_supervised(rg, row, l);
}

static void classify_glob(const struct lx_regions *rg,
			  const struct fs_path *path, const struct row *row,
			  struct landing *l)
{
	struct region r;

	if (row->effect != EFFECT_RW) {
		/*
		 * Mounts are made once, at launch: a path the child creates
		 * later escapes them.  A deny or ro glob is only faithful as
		 * mounts where the child cannot create anything it could
		 * match: not in or around a region a lower row (or @default
		 * write rw) makes writable.  There the supervisor holds it.
		 */
		lx_regions_at(rg, row, &r);
		if (r.definite == EFFECT_RW || r.maybe_rw ||
		    lx_regions_writable_below(rg, row)) {
			classify_supervised(rg, row, l);
			return;
		}
	}
	landing_set_reason(l, LANDING_LAUNCH,
			   "glob expanded against the host file system at "
			   "launch below '%s' (at most %d entries, %d levels)",
			   path->text, LINUX_WALK_MAX_ENTRIES,
			   LINUX_WALK_MAX_DEPTH);
}

/*
 * The row's literal prefix as a path (zero segments when rootless) is
 * parsed here, one row at a time, and not for the whole table up front:
 * kept for every row it cost some 85 bytes a row at the compile's peak.
 */
static void classify_fs(const struct table *table, struct landing_set *set,
			struct lx_regions *rg, size_t prio)
{
	const struct row *row = table->fs.prio[prio];
	struct landing *l = &set->fs[row->index];
	struct fs_path prefix;
	char *pre, *err = NULL;
	bool ok;

	if (row->shadowed_by) {
		landing_set_reason(l, LANDING_ABSORBED,
				   "dead: covered by row %u",
				   row->shadowed_by->index);
		return;
	}
	pre = pattern_prefix(&row->fs);
	/* A normalized pattern's prefix always parses. */
	ok = fs_path_parse(pre, table->target, &prefix, &err) == 0;
	free(err);
	free(pre);
	if (!ok) {
		landing_set_reason(l, LANDING_UNSUPPORTED,
				   "'%s' is not an absolute path",
				   row->fs.text);
		return;
	}
	switch (pattern_shape(&row->fs)) {
	case SHAPE_SUBTREE:
		classify_subtree(rg, row, l);
		break;
	case SHAPE_GLOB:
		classify_glob(rg, &prefix, row, l);
		break;
	case SHAPE_ROOTLESS:
		classify_rootless(rg, row, l);
		break;
	default:
		BUG("bad shape");
	}
	fs_path_free(&prefix);
	/* What mounts shapes the region of every higher-priority row. */
	if (landing_mounts(l))
		lx_regions_add(rg, row,
			       pattern_shape(&row->fs) == SHAPE_SUBTREE);
}

/* proxy_runs - vbox-exec runs the proxy: some live allow row exists */
static bool proxy_runs(const struct table *table)
{
	size_t i;

	for (i = 0; i < table->net.n; i++)
		if (table->net.order[i]->effect == EFFECT_ALLOW &&
		    !table->net.order[i]->shadowed_by)
			return true;
	return false;
}

static void classify_net(const struct table *table, const struct row *row,
			 struct landing *l)
{
	if (row->shadowed_by) {
		landing_set_reason(l, LANDING_ABSORBED,
				   "dead: covered by row %u",
				   row->shadowed_by->index);
		return;
	}
	if (table->default_net == EFFECT_DENY && proxy_runs(table)) {
		/* vbox-exec runs its egress proxy, bridged into the
		 * sandbox's network namespace, and it judges every row */
		if (row->net.kind == HOST_LOOPBACK && row->effect == EFFECT_ALLOW)
			landing_set_reason(l, LANDING_PROXY, "%s",
				row->net.any_port ?
				"the egress proxy only: clients that honour "
				"NO_PROXY never send loopback through a proxy; "
				"name the ports" :
				"the egress proxy, and a plain TCP forward at "
				"the same port on the sandbox's loopback");
		else
			landing_set_reason(l, LANDING_PROXY,
				"the egress proxy, bridged into the sandbox's "
				"network namespace");
		return;
	}
	if (table->default_net == EFFECT_DENY) {
		if (row->effect == EFFECT_DENY)
			landing_set_reason(l, LANDING_ABSORBED,
				"redundant: the sandbox's own network "
				"namespace has no route out (@default net "
				"deny)");
		else if (row->net.kind == HOST_LOOPBACK)
			landing_set_reason(l, LANDING_ABSORBED,
				"the sandbox's network namespace has only its "
				"own loopback: host loopback services stay "
				"unreachable, which only narrows");
		else
			landing_set_reason(l, LANDING_ABSORBED,
				"no egress proxy yet: connections stay blocked "
				"in the sandbox's network namespace, which "
				"only narrows");
		return;
	}
	if (row->effect == EFFECT_DENY)
		landing_set_reason(l, LANDING_UNSUPPORTED,
			"with @default net open the sandbox shares the host "
			"network, where bubblewrap cannot block single "
			"destinations");
	else
		landing_set_reason(l, LANDING_ABSORBED,
			"redundant: @default net open allows every "
			"connection");
}

static void linux_classify(const struct table *table, struct landing_set *out)
{
	struct lx_regions rg;
	size_t i;

	/* emit_classify() initializes @out; a zeroed one is ours to set up. */
	if (!out->fs)
		landing_set_init(out, table);
	/* Lowest priority first: a row's region depends on rows below. */
	lx_regions_init(&rg, table);
	for (i = table->fs.n; i-- > 0;)
		classify_fs(table, out, &rg, i);
	lx_regions_release(&rg);
	for (i = 0; i < table->net.n; i++)
		classify_net(table, table->net.order[i],
			     &out->net[table->net.order[i]->index]);
}

/* ------------------------------------------------------------------ */
/* the argument list */

/* The namespace and process flags of every linux sandbox. */
static const uint32_t base_flags = LX_NEW_SESSION | LX_DIE_WITH_PARENT |
	LX_UNSHARE_USER | LX_DISABLE_USERNS | LX_UNSHARE_PID | LX_UNSHARE_IPC |
	LX_UNSHARE_UTS | LX_UNSHARE_CGROUP_TRY | LX_CAP_DROP_ALL;

/* Does an emitted row mount exactly over /dev (then it governs /dev)? */
static bool row_owns_dev(const struct table *table,
			 const struct landing_set *landing)
{
	size_t i;

	for (i = 0; i < table->fs.n; i++) {
		const struct row *row = table->fs.order[i];
		char *pre;
		bool dev;

		if (!landing_mounts(&landing->fs[i]) ||
		    pattern_shape(&row->fs) != SHAPE_SUBTREE)
			continue;
		pre = pattern_prefix(&row->fs);
		dev = strcmp(pre, "/dev") == 0;
		free(pre);
		if (dev)
			return true;
	}
	return false;
}

/* Check every row can be written before writing anything. */
static int check_rows(const struct table *table,
		      const struct landing_set *landing,
		      bool launch_rows, struct diag_list *diags)
{
	int ret = 0;
	size_t i;

	for (i = 0; i < table->fs.n; i++) {
		const struct row *row = table->fs.order[i];
		const struct landing *l = &landing->fs[i];
		char *text;

		switch (l->kind) {
		case LANDING_KERNEL:
			if (row->effect == EFFECT_DENY ||
			    pattern_shape(&row->fs) != SHAPE_SUBTREE)
				BUG("kernel landing for a row linux cannot "
				    "mount statically");
			break;
		case LANDING_LAUNCH:
			if (launch_rows)
				break;
			text = row_text(row);
			ret = diag_error(diags, &row->loc,
				"row %u '%s' needs the host file system at "
				"launch: a static bubblewrap list cannot hold "
				"it; use --emit=plan with vbox-exec",
				row->index, text);
			free(text);
			break;
		case LANDING_UNSUPPORTED:
			text = row_text(row);
			ret = diag_error(diags, &row->loc,
				"row %u '%s' is unsupported on linux: %s",
				row->index, text,
				l->reason ? l->reason : "unsupported");
			free(text);
			break;
		case LANDING_SUPERVISED:
			if (launch_rows)
				break;
			text = row_text(row);
			ret = diag_error(diags, &row->loc,
				"row %u '%s' is judged by vbox-exec's "
				"supervisor: a static bubblewrap list cannot "
				"hold it; use --emit=plan with vbox-exec",
				row->index, text);
			free(text);
			break;
		case LANDING_ABSORBED:
			break;
		case LANDING_PROXY:
		case LANDING_RESERVED:
		default:
			BUG("impossible landing for a file row");
		}
	}
	for (i = 0; i < table->net.n; i++) {
		const struct row *row = table->net.order[i];
		const struct landing *l = &landing->net[i];
		char *text;

		if (l->kind != LANDING_UNSUPPORTED)
			continue;
		text = row_text(row);
		ret = diag_error(diags, &row->loc,
				 "row %u '%s' is unsupported on linux: %s",
				 row->index, text,
				 l->reason ? l->reason : "unsupported");
		free(text);
	}
	return ret;
}

static void build_artifact(const struct table *table, const struct landing_set *landing,
		  struct lx_artifact *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	out->flags = base_flags;
	if (table->default_net == EFFECT_DENY)
		out->flags |= LX_UNSHARE_NET;
	lx_add(out, table->default_write == EFFECT_RW ? LX_BIND_RW :
	       LX_BIND_RO, "/", "/", 0, LX_ROW_NONE);
	lx_add(out, LX_DEV, NULL, "/dev", 0, LX_ROW_NONE);
	lx_add(out, LX_PROC, NULL, "/proc", 0, LX_ROW_NONE);
	/* Lowest priority first: later mounts cover earlier ones. */
	for (i = table->fs.n; i-- > 0;) {
		const struct row *row = table->fs.prio[i];
		const struct landing *l = &landing->fs[row->index];
		char *pre;

		if (l->kind == LANDING_LAUNCH) {
			lx_add(out, LX_LAUNCH, NULL, NULL, 0, row->index);
			continue;
		}
		if (l->kind != LANDING_KERNEL)
			continue;
		/*
		 * "@default tmp private": a tmpfs, not a bind of the host's
		 * /tmp; the launcher's own mount (no row), as /dev and /proc
		 * are, so rows resolving into it are refused at launch.  No
		 * row names a path in /tmp then (table.c).
		 */
		if (row == table->tmp_row) {
			lx_add(out, LX_TMPFS, NULL, "/tmp", LX_PRIVATE_TMP_MODE,
			       LX_ROW_NONE);
			continue;
		}
		pre = pattern_prefix(&row->fs);
		lx_add(out, row->effect == EFFECT_RW ? LX_BIND_RW_TRY :
		       LX_BIND_RO_TRY, pre, pre, 0, row->index);
		free(pre);
	}
	/*
	 * bubblewrap's /dev is a writable tmpfs; writes the policy does not
	 * grant must not land there.  Remounted last so that mount points
	 * below /dev can still be made.
	 */
	if (table->default_write != EFFECT_RW &&
	    !row_owns_dev(table, landing))
		lx_add(out, LX_REMOUNT_RO, NULL, "/dev", 0, LX_ROW_NONE);
}

int linux_build(const struct table *table, const struct landing_set *landing,
		bool launch_rows, struct lx_artifact *out,
		struct diag_list *diags)
{
	memset(out, 0, sizeof(*out));
	if (check_rows(table, landing, launch_rows, diags) < 0)
		return -1;
	build_artifact(table, landing, out);
	return 0;
}

/* What linux_emit_plan_artifact() gives the stream at once. */
#define ARTIFACT_CHUNK ((size_t)1 << 20)

static int write_out(const struct wbuf *b, FILE *out, struct diag_list *diags)
{
	if ((b->len && fwrite(b->p, 1, b->len, out) != b->len) || ferror(out))
		return diag_error(diags, NULL,
				  "cannot write the bubblewrap argument list: "
				  "%s", strerror(errno));
	return 0;
}

static int linux_emit_profile(const struct table *table,
			      const struct landing_set *landing, FILE *out,
			      struct diag_list *diags)
{
	struct lx_artifact a;
	struct wbuf b = { 0 };
	int ret;

	if (linux_build(table, landing, false, &a, diags) < 0)
		return -1;
	lx_render(&a, &b);
	ret = write_out(&b, out, diags);
	wbuf_release(&b);
	lx_artifact_release(&a);
	return ret;
}

static int linux_emit_plan_artifact(const struct table *table,
				    const struct landing_set *landing,
				    FILE *out, struct diag_list *diags)
{
	struct lx_artifact a;
	struct wbuf b = { 0 };
	size_t i;
	int ret = 0;

	if (linux_build(table, landing, true, &a, diags) < 0)
		return -1;
	/* Streamed: a million rows' artifact is some 14 MB. */
	lx_encode_head(&a, &b);
	for (i = 0; i < a.n && ret == 0; i++) {
		lx_encode_mount(&a.m[i], &b);
		if (b.len >= ARTIFACT_CHUNK || i + 1 == a.n) {
			ret = write_out(&b, out, diags);
			b.len = 0;
		}
	}
	if (ret == 0 && b.len)
		ret = write_out(&b, out, diags);
	wbuf_release(&b);
	lx_artifact_release(&a);
	return ret;
}

/*
 * linux_check_table - warn on a loopback row with a port wildcard: it
 * can only be served through the egress proxy, which clients honouring
 * NO_PROXY never use for loopback (doc/targets.md, linux "Network", row
 * "allow loopback, any port").  Never fails.
 */
static int linux_check_table(const struct table *table,
			     struct diag_list *diags)
{
	size_t i;

	if (table->default_net != EFFECT_DENY || !proxy_runs(table))
		return 0;
	for (i = 0; i < table->net.n; i++) {
		const struct row *row = table->net.order[i];

		if (row->effect != EFFECT_ALLOW || row->shadowed_by ||
		    row->net.kind != HOST_LOOPBACK || !row->net.any_port)
			continue;
		diag_warning(diags, &row->loc,
			     "on linux, loopback row '%s' without a port is "
			     "served through the egress proxy only, and "
			     "clients that honour NO_PROXY (curl, wget, "
			     "Python, pip, npm, git, Go) never send loopback "
			     "through a proxy; name the ports",
			     row->net.text);
	}
	return 0;
}

const struct emitter emitter_linux = {
	.id = TARGET_LINUX,
	.name = TARGET_LINUX_NAME,
	.profile_ext = "bwrap",
	.check_table = linux_check_table,
	.classify = linux_classify,
	.index_use = EMIT_INDEX_SHAPE,
	.emit_profile = linux_emit_profile,
	.emit_plan_artifact = linux_emit_plan_artifact,
};
