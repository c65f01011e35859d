/* SPDX-License-Identifier: MIT */
/*
 * linux_container.c - how a table lands in linux container mode (see
 * linux_container.h; doc/targets.md, "linux, container mode").
 *
 * Container mode has no mount table: reads are open, writes are granted
 * by Landlock beneath the writable roots, and Landlock can only allow,
 * a whole subtree at a time.  What it cannot hold exactly, vbox-exec's
 * path supervisor holds: a deny row, a hole (an ro or deny row inside a
 * writable region), a row namespace mode leaves to its supervisor (a
 * deny or ro glob where the child can write, a pattern starting with a
 * wildcard) and the private /tmp (a directory of the launch's own in
 * the host's /tmp, the sandbox's $TMPDIR) land "supervised": every path
 * call of the sandbox is judged by the table, as vboxc explain answers,
 * and Landlock keeps only the coarse shape.  Such rows are held exactly;
 * the cost is a round trip per path call (bench/README.md).
 *
 * --accept-narrower asks for the Landlock-only wall instead, which
 * vbox-exec builds for a table with no row namespace mode supervises and
 * no private /tmp: a hole is carved by granting every sibling along its
 * path instead of the region's root, and a denied path by granting read
 * on every sibling along its path instead of on "/".  Both hold the row,
 * but the directories on the way lose rights the table gives them: such
 * rows are "narrower" (notes, not errors).
 *
 * The rows are visited from the lowest priority to the highest, as the
 * namespace classifier does, and the regions of lower-priority rows come
 * from the same path-index walk (linux_regions.h).  Rows namespace mode
 * cannot hold stay unsupported here, and so do a few it holds with
 * mounts (a deny below /proc or /sys, which are the host's here).
 */
#include <vbox.h>

#include <stdio.h>

#include "diag.h"
#include "emit.h"
#include "ir.h"
#include "linux_artifact.h"
#include "linux_container.h"
#include "linux_regions.h"
#include "netaddr.h"
#include "strbuf.h"

static const char *const kind_names[] = {
	[CTR_KERNEL] = "kernel",
	[CTR_PROXY] = "proxy",
	[CTR_SUPERVISED] = "supervised",
	[CTR_ABSORBED] = "absorbed",
	[CTR_NARROWER] = "narrower",
	[CTR_UNSUPPORTED] = "unsupported",
};

/* The nearest landing kind of the target table, for counting and JSON. */
static const enum landing_kind base_kinds[] = {
	[CTR_KERNEL] = LANDING_KERNEL,
	[CTR_PROXY] = LANDING_PROXY,
	[CTR_SUPERVISED] = LANDING_KERNEL,
	[CTR_ABSORBED] = LANDING_ABSORBED,
	[CTR_NARROWER] = LANDING_KERNEL,
	[CTR_UNSUPPORTED] = LANDING_UNSUPPORTED,
};

const char *ctr_kind_name(enum ctr_kind kind)
{
	if ((size_t)kind >= array_size(kind_names))
		BUG("bad container landing %d", kind);
	return kind_names[kind];
}

/*
 * The two narrowings of the Landlock-only wall (--accept-narrower; the
 * only two: linux_container.h).  Each reason names the path, so a reader
 * sees which directories lose rights.
 */
#define DENY_NARROWING \
	"read is granted on every sibling along its path instead of on " \
	"'/' (Landlock only allows): entries created later beside it get " \
	"no rights, and a directory above a denied directory cannot be " \
	"listed"
#define HOLE_NARROWING \
	"write is granted on every sibling along its path instead of on " \
	"the region's root (Landlock grants whole subtrees): the " \
	"directories above it cannot create, remove or rename entries"

/*
 * @row's literal prefix is in the same shape test as the namespace
 * classifier's (emitters/linux.c): no wildcard, or only trailing "**"
 * segments, is a subtree.
 */
static bool is_subtree(const struct fs_pattern *p)
{
	uint32_t i;

	if (!p->wild)
		return true;
	if (p->nlit == 0)
		return false;
	for (i = p->nlit; i < p->nsegs; i++)
		if (p->segs[i].kind != SEG_STARSTAR)
			return false;
	return true;
}

/* The first @p->nlit segments of @p's text ("/" when none). */
static char *prefix_of(const struct fs_pattern *p)
{
	const char *text = p->text;
	size_t pos = 0;
	uint32_t i;

	if (text[0] != '/' || p->nlit == 0)
		return xstrdup("/");
	for (i = 0; i < p->nlit && text[pos] == '/'; i++) {
		pos++;
		while (text[pos] && text[pos] != '/')
			pos++;
	}
	return xstrndup(text, pos);
}

/* Is @path /proc, /sys or below them? */
static bool kernel_path(const char *path)
{
	return (strncmp(path, "/proc", 5) == 0 &&
		(path[5] == '/' || !path[5])) ||
	       (strncmp(path, "/sys", 4) == 0 && (path[4] == '/' || !path[4]));
}

static void set_kind(struct ctr_landings *c, struct landing *l,
		     enum ctr_kind *slot, enum ctr_kind kind)
{
	*slot = kind;
	l->kind = base_kinds[kind];
	l->label = kind_names[kind];
	if (kind == CTR_NARROWER)
		c->nnarrower++;
	else if (kind == CTR_UNSUPPORTED)
		c->nunsupported++;
}

/*
 * A file row the path supervisor holds.  The reasons leave the row's
 * path out (the row's own text names it), so the rows of one kind share
 * their reason and preflight prints it once for all of them.
 */
static void set_path_supervised(struct ctr_landings *c, struct landing *l,
				enum ctr_kind *slot)
{
	set_kind(c, l, slot, CTR_SUPERVISED);
	c->npaths++;
}

/* Is the region @r writable, and by which row (NULL: @default write rw)? */
static bool writable(const struct region *r, const struct row **by)
{
	if (r->definite == EFFECT_RW) {
		*by = r->by;
		return true;
	}
	if (r->maybe_rw) {
		*by = r->maybe_by;
		return true;
	}
	return false;
}

/* "a region row N makes writable" or "... @default write rw makes ..." */
static char *region_words(const struct row *by)
{
	if (by)
		return xasprintf("a region row %u makes writable", by->index);
	return xstrdup("a region @default write rw makes writable");
}

static void classify_rw(const struct lx_regions *rg, const struct row *row,
			const char *pre, struct landing *l, enum ctr_kind *k,
			struct ctr_landings *c)
{
	struct region r;

	if (!is_subtree(&row->fs)) {
		set_kind(c, l, k, CTR_KERNEL);
		landing_set_reason(l, l->kind,
			"landlock: write access on each match of the glob, "
			"expanded against the host file system at launch "
			"below '%s' (at most %d entries, %d levels)", pre,
			LINUX_WALK_MAX_ENTRIES, LINUX_WALK_MAX_DEPTH);
		return;
	}
	lx_regions_at(rg, row, &r);
	if (r.definite == EFFECT_RW && !r.maybe_ro && !r.maybe_deny) {
		set_kind(c, l, k, CTR_ABSORBED);
		if (r.by)
			landing_set_reason(l, l->kind, "redundant: already "
					   "writable through row %u",
					   r.by->index);
		else
			landing_set_reason(l, l->kind, "redundant: @default "
					   "write rw makes it writable");
		return;
	}
	set_kind(c, l, k, CTR_KERNEL);
	landing_set_reason(l, l->kind, "landlock: read and write access "
			   "beneath '%s' (a missing path is skipped: "
			   "omitting an allow only narrows)", pre);
}

static void classify_ro(const struct lx_regions *rg, const struct row *row,
			const char *pre, bool narrower, struct landing *l,
			enum ctr_kind *k, struct ctr_landings *c)
{
	const struct row *by;
	struct region r;
	char *where;

	lx_regions_at(rg, row, &r);
	if (writable(&r, &by)) {
		/* (An ro glob here is supervised in namespace mode.) */
		where = region_words(by);
		if (narrower) {
			set_kind(c, l, k, CTR_NARROWER);
			landing_set_reason(l, l->kind, "read-only hole '%s' in "
					   "%s: " HOLE_NARROWING, pre, where);
		} else {
			set_path_supervised(c, l, k);
			landing_set_reason(l, l->kind, "read-only hole in %s: "
					   "the path supervisor refuses writes "
					   "there", where);
		}
		free(where);
		return;
	}
	if (r.definite == EFFECT_DENY || r.maybe_deny) {
		set_kind(c, l, k, CTR_KERNEL);
		if (is_subtree(&row->fs))
			landing_set_reason(l, l->kind, "landlock: read access "
					   "beneath '%s' inside a denied region",
					   pre);
		else
			landing_set_reason(l, l->kind, "landlock: read access "
				"on each match of the glob, expanded against "
				"the host file system at launch below '%s', "
				"inside a denied region", pre);
		return;
	}
	set_kind(c, l, k, CTR_ABSORBED);
	landing_set_reason(l, l->kind, "reads are open and writes outside "
			   "the writable regions are denied: nothing to grant");
}

static void classify_deny(const struct lx_regions *rg, const struct row *row,
			  const char *pre, bool narrower, struct landing *l,
			  enum ctr_kind *k, struct ctr_landings *c)
{
	const struct row *by;
	struct region r;
	char *what, *where;

	lx_regions_at(rg, row, &r);
	if (is_subtree(&row->fs) && r.definite == EFFECT_DENY &&
	    !r.maybe_rw && !r.maybe_ro) {
		set_kind(c, l, k, CTR_ABSORBED);
		landing_set_reason(l, l->kind, "redundant: already denied "
				   "through row %u", r.by->index);
		return;
	}
	if (!narrower) {
		set_path_supervised(c, l, k);
		landing_set_reason(l, l->kind, "%s: the path supervisor "
				   "refuses every path call there",
				   is_subtree(&row->fs) ? "denied path" :
				   "each match of the glob is denied");
		return;
	}
	if (is_subtree(&row->fs))
		what = xasprintf("denied path '%s'", pre);
	else
		what = xasprintf("each match of the glob, expanded against "
				 "the host file system at launch below '%s', "
				 "is denied", pre);
	set_kind(c, l, k, CTR_NARROWER);
	if (writable(&r, &by)) {
		where = region_words(by);
		landing_set_reason(l, l->kind, "%s: " DENY_NARROWING "; and as "
				   "a hole in %s, the directories above it "
				   "cannot create, remove or rename entries",
				   what, where);
		free(where);
	} else {
		landing_set_reason(l, l->kind, "%s: " DENY_NARROWING, what);
	}
	free(what);
}

/*
 * Classify the file row of priority @prio; @narrower: hold deny rows and
 * holes by Landlock alone (--accept-narrower, and nothing needs the path
 * supervisor), not by the path supervisor.
 */
static void classify_fs(const struct table *table,
			const struct landing_set *ns, struct lx_regions *rg,
			bool narrower, struct ctr_landings *c, size_t prio)
{
	const struct row *row = table->fs.prio[prio];
	const struct landing *nl = &ns->fs[row->index];
	struct landing *l = &c->set.fs[row->index];
	enum ctr_kind *k = &c->fs[row->index];
	char *pre;

	if (row->shadowed_by) {
		set_kind(c, l, k, CTR_ABSORBED);
		landing_set_reason(l, l->kind, "dead: covered by row %u",
				   row->shadowed_by->index);
		return;
	}
	/*
	 * "@default tmp private": no tmpfs without a mount namespace.  The
	 * launch makes a directory of its own in the host's /tmp, the
	 * sandbox's $TMPDIR, and the path supervisor keeps the rest of
	 * the host's /tmp out of reach.
	 */
	if (row == table->tmp_row) {
		set_path_supervised(c, l, k);
		landing_set_reason(l, l->kind, "private /tmp: the launch's own "
				   "directory in the host's /tmp is the "
				   "sandbox's $TMPDIR; the host's /tmp is "
				   "neither read nor written");
		return;
	}
	/* What namespace mode cannot hold, container mode cannot either. */
	if (nl->kind == LANDING_UNSUPPORTED) {
		set_kind(c, l, k, CTR_UNSUPPORTED);
		landing_set_reason(l, l->kind, "%s; vboxc compile refuses it "
				   "for linux in either mode: change the row",
				   nl->reason);
		return;
	}
	if (nl->kind == LANDING_SUPERVISED) {
		set_path_supervised(c, l, k);
		landing_set_reason(l, l->kind, "the path supervisor judges "
				   "every path call, as in namespace mode");
		return;
	}
	if (row->fs.nlit == 0) {
		/*
		 * Only an rw row starting with a wildcard gets here, or an
		 * ro one namespace mode found redundant (nothing writable,
		 * nothing denied below it).
		 */
		set_kind(c, l, k, CTR_ABSORBED);
		if (row->effect == EFFECT_RO)
			landing_set_reason(l, l->kind, "reads are open and "
					   "writes outside the writable regions "
					   "are denied: nothing to grant");
		else
			landing_set_reason(l, l->kind, "omitting this allow "
					   "only narrows: a pattern that starts "
					   "with a wildcard names no directory "
					   "to grant at launch");
		return;
	}
	pre = prefix_of(&row->fs);
	/*
	 * /proc and /sys are the host's in container mode, and never
	 * writable (the kernel-state wall, as in namespace mode): a row
	 * there cannot hide a path, and grants or keeps nothing.
	 */
	if (kernel_path(pre)) {
		if (row->effect == EFFECT_DENY) {
			set_kind(c, l, k, CTR_UNSUPPORTED);
			landing_set_reason(l, l->kind, "'%s' is below /proc or "
					   "/sys, which are the host's in "
					   "container mode and cannot hide a "
					   "path; drop the row, or hide the "
					   "path in the container itself (a "
					   "mask over it when it starts)", pre);
		} else {
			set_kind(c, l, k, CTR_ABSORBED);
			landing_set_reason(l, l->kind, "'%s' is below /proc or "
					   "/sys, which stay read-only in "
					   "container mode (as the kernel-state "
					   "wall keeps them in namespace mode)",
					   pre);
		}
		free(pre);
		return;
	}
	switch (row->effect) {
	case EFFECT_RW:
		classify_rw(rg, row, pre, l, k, c);
		break;
	case EFFECT_RO:
		classify_ro(rg, row, pre, narrower, l, k, c);
		break;
	case EFFECT_DENY:
		classify_deny(rg, row, pre, narrower, l, k, c);
		break;
	case EFFECT_ALLOW:
	default:
		BUG("bad file row effect %d", row->effect);
	}
	free(pre);
	/*
	 * Grants, holes and denied paths shape the region of every
	 * higher-priority row, whether Landlock or the path supervisor
	 * holds them.
	 */
	if (*k == CTR_KERNEL || *k == CTR_NARROWER || *k == CTR_SUPERVISED)
		lx_regions_add(rg, row, is_subtree(&row->fs));
}

static bool proxy_runs(const struct table *table)
{
	size_t i;

	for (i = 0; i < table->net.n; i++)
		if (table->net.order[i]->effect == EFFECT_ALLOW &&
		    !table->net.order[i]->shadowed_by)
			return true;
	return false;
}

static void classify_net(const struct table *table, bool proxy,
			 const struct row *row, struct ctr_landings *c)
{
	struct landing *l = &c->set.net[row->index];
	enum ctr_kind *k = &c->net[row->index];

	if (row->shadowed_by) {
		set_kind(c, l, k, CTR_ABSORBED);
		landing_set_reason(l, l->kind, "dead: covered by row %u",
				   row->shadowed_by->index);
		return;
	}
	if (table->default_net == EFFECT_DENY && proxy) {
		if (row->net.kind == HOST_LOOPBACK &&
		    row->effect == EFFECT_ALLOW) {
			set_kind(c, l, k, CTR_SUPERVISED);
			if (row->net.any_port)
				landing_set_reason(l, l->kind, "the socket "
					"supervisor admits direct connects to "
					"127.0.0.1 and ::1 at every port, and "
					"the egress proxy judges it too");
			else
				landing_set_reason(l, l->kind, "the socket "
					"supervisor admits direct connects to "
					"127.0.0.1 and ::1 at port %u, and the "
					"egress proxy judges it too",
					row->net.port);
			return;
		}
		set_kind(c, l, k, CTR_PROXY);
		landing_set_reason(l, l->kind, "the egress proxy on the host's "
				   "loopback: the socket supervisor admits "
				   "inet connects to the proxy's ports alone");
		return;
	}
	if (table->default_net == EFFECT_DENY) {
		/* No live allow row: only deny rows get here. */
		set_kind(c, l, k, CTR_ABSORBED);
		landing_set_reason(l, l->kind, "redundant: the socket "
				   "supervisor refuses every inet connect "
				   "(@default net deny)");
		return;
	}
	if (row->effect == EFFECT_DENY) {
		set_kind(c, l, k, CTR_UNSUPPORTED);
		landing_set_reason(l, l->kind, "with @default net open the "
				   "sandbox shares the host network, where "
				   "container mode cannot block single "
				   "destinations; use @default net deny with "
				   "allow rows for what the command needs, or "
				   "block the destination in the container's "
				   "own network");
		return;
	}
	set_kind(c, l, k, CTR_ABSORBED);
	landing_set_reason(l, l->kind, "redundant: @default net open allows "
			   "every connection");
}

/*
 * Does vbox-exec run the path supervisor whatever --accept-narrower
 * says: a row namespace mode supervises, or the private /tmp?
 */
static bool needs_path_supervisor(const struct table *table,
				  const struct landing_set *ns)
{
	size_t i;

	if (table->tmp_row && !table->tmp_row->shadowed_by)
		return true;
	for (i = 0; i < ns->nfs; i++)
		if (ns->fs[i].kind == LANDING_SUPERVISED)
			return true;
	return false;
}

void linux_container_classify(const struct table *table,
			      bool accept_narrower, struct ctr_landings *out)
{
	struct diag_list scratch;
	struct landing_set ns;
	struct lx_regions rg;
	bool proxy, narrower;
	size_t i;

	memset(out, 0, sizeof(*out));
	landing_set_init(&out->set, table);
	out->fs = xcalloc(table->fs.n ? table->fs.n : 1, sizeof(*out->fs));
	out->net = xcalloc(table->net.n ? table->net.n : 1,
			   sizeof(*out->net));
	/* The namespace landing says what linux cannot hold at all. */
	diag_list_init(&scratch);
	emit_classify(&emitter_linux, table, &ns, &scratch);
	diag_list_free(&scratch);
	narrower = accept_narrower && !needs_path_supervisor(table, &ns);
	lx_regions_init(&rg, table);
	for (i = table->fs.n; i-- > 0;)
		classify_fs(table, &ns, &rg, narrower, out, i);
	lx_regions_release(&rg);
	landing_set_free(&ns);
	proxy = proxy_runs(table);
	for (i = 0; i < table->net.n; i++)
		classify_net(table, proxy, table->net.order[i], out);
	if (table->default_net != EFFECT_DENY || !proxy)
		return;
	landing_set_add_reserved(&out->set,
		"allow:localhost:${VBOX_PROXY_HTTP_PORT}",
		"the launcher's HTTP proxy port, above every row: the socket "
		"supervisor admits inet connects to it on 127.0.0.1");
	landing_set_add_reserved(&out->set,
		"allow:localhost:${VBOX_PROXY_SOCKS_PORT}",
		"the launcher's SOCKS5 proxy port, above every row: the socket "
		"supervisor admits inet connects to it on 127.0.0.1");
}

void linux_container_free(struct ctr_landings *c)
{
	landing_set_free(&c->set);
	free(c->fs);
	free(c->net);
	memset(c, 0, sizeof(*c));
}

static int report_domain(const struct landing *l, const enum ctr_kind *k,
			 size_t n, struct diag_list *notes,
			 struct diag_list *unsupported)
{
	int ret = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct row *row = l[i].row;
		char *text;

		if (k[i] != CTR_UNSUPPORTED && k[i] != CTR_NARROWER)
			continue;
		text = row_text(row);
		if (k[i] == CTR_UNSUPPORTED)
			ret = diag_error(unsupported, &row->loc, "row %u '%s' "
					 "is unsupported on linux in container "
					 "mode: %s", row->index, text,
					 l[i].reason);
		else
			diag_note(notes, &row->loc, "row %u '%s' is narrower "
				  "in container mode: %s; accepted by "
				  "--accept-narrower", row->index, text,
				  l[i].reason);
		free(text);
	}
	return ret;
}

/*
 * "rows 0-24, 59-61, 63" (or "row 5"): the file rows the path supervisor
 * holds, in table order, runs of consecutive rows as ranges.
 */
static char *path_rows(const struct ctr_landings *c)
{
	struct strbuf b = { 0 };
	const char *sep = c->npaths == 1 ? "row " : "rows ";
	char num[48];
	size_t i, j;

	for (i = 0; i < c->set.nfs; i = j) {
		if (c->fs[i] != CTR_SUPERVISED) {
			j = i + 1;
			continue;
		}
		for (j = i + 1; j < c->set.nfs && c->fs[j] == CTR_SUPERVISED;
		     j++)
			;
		if (j - i == 1)
			snprintf(num, sizeof(num), "%zu", i);
		else
			snprintf(num, sizeof(num), "%zu-%zu", i, j - 1);
		strbuf_puts(&b, sep);
		strbuf_puts(&b, num);
		sep = ", ";
	}
	return b.s;
}

int linux_container_report(const struct ctr_landings *c,
			   struct diag_list *notes,
			   struct diag_list *unsupported)
{
	int ret = 0;
	char *rows;

	if (report_domain(c->set.fs, c->fs, c->set.nfs, notes,
			  unsupported) < 0)
		ret = -1;
	if (report_domain(c->set.net, c->net, c->set.nnet, notes,
			  unsupported) < 0)
		ret = -1;
	if (c->npaths) {
		rows = path_rows(c);
		diag_note(notes, NULL, "container mode holds %zu row%s with "
			  "the path supervisor (every path call judged; a "
			  "round trip per call, bench/README.md): %s",
			  c->npaths, c->npaths == 1 ? "" : "s", rows);
		free(rows);
	}
	return ret;
}
