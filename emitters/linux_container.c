/* SPDX-License-Identifier: MIT */
/*
 * linux_container.c - how a table lands in linux container mode (see
 * linux_container.h; doc/targets.md, "linux, container mode").
 *
 * Container mode has no mount table: reads are open, writes are granted
 * by Landlock beneath the writable roots, and Landlock can only allow.
 * So a hole (an ro or deny row inside a writable region) is carved by
 * granting every sibling along its path instead of the region's root,
 * and a denied path by granting read on every sibling along its path
 * instead of on "/".  Both hold the row, but the directories on the way
 * lose rights the table gives them: such rows are "narrower", and
 * vbox-exec runs them only with --accept-narrower.
 *
 * The rows are visited from the lowest priority to the highest, as the
 * namespace classifier does, and the regions of lower-priority rows come
 * from the same path-index walk (linux_regions.h).  Rows the namespace
 * mode cannot hold stay unsupported here, and so do the rows it leaves to
 * its supervisor (a deny or ro glob where the child can write, a pattern
 * starting with a wildcard): that supervisor performs path calls through
 * the sandbox's mount namespace, which container mode does not have.
 */
#include <vbox.h>

#include "diag.h"
#include "emit.h"
#include "ir.h"
#include "linux_artifact.h"
#include "linux_container.h"
#include "linux_regions.h"
#include "netaddr.h"

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
 * The two narrowings (the only two: linux_container.h).  Each reason
 * names the path, so a reader sees which directories lose rights.
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
			const char *pre, struct landing *l, enum ctr_kind *k,
			struct ctr_landings *c)
{
	const struct row *by;
	struct region r;
	char *where;

	lx_regions_at(rg, row, &r);
	if (writable(&r, &by)) {
		/* A glob here is supervised in namespace mode: refused. */
		where = region_words(by);
		set_kind(c, l, k, CTR_NARROWER);
		landing_set_reason(l, l->kind, "read-only hole '%s' in %s: "
				   HOLE_NARROWING, pre, where);
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
			  const char *pre, struct landing *l,
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

static void classify_fs(const struct table *table,
			const struct landing_set *ns, struct lx_regions *rg,
			struct ctr_landings *c, size_t prio)
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
	 * "@default tmp private": a tmpfs of the sandbox's own needs a
	 * mount namespace; the host's /tmp made writable instead would
	 * widen the sandbox.
	 */
	if (row == table->tmp_row) {
		set_kind(c, l, k, CTR_UNSUPPORTED);
		landing_set_reason(l, l->kind, "private /tmp (@default tmp "
				   "private): a /tmp of the sandbox's own "
				   "needs a mount namespace, which container "
				   "mode does not have; drop the setting and "
				   "point TMPDIR at a writable directory");
		return;
	}
	/* What namespace mode cannot hold, container mode cannot either. */
	if (nl->kind == LANDING_UNSUPPORTED) {
		set_kind(c, l, k, CTR_UNSUPPORTED);
		landing_set_reason(l, l->kind, "%s", nl->reason);
		return;
	}
	if (nl->kind == LANDING_SUPERVISED) {
		set_kind(c, l, k, CTR_UNSUPPORTED);
		landing_set_reason(l, l->kind, "supervised rows need "
				   "namespace mode (the supervisor performs "
				   "path calls through the sandbox's mount "
				   "namespace); not yet in container mode");
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
					   "path", pre);
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
		classify_ro(rg, row, pre, l, k, c);
		break;
	case EFFECT_DENY:
		classify_deny(rg, row, pre, l, k, c);
		break;
	case EFFECT_ALLOW:
	default:
		BUG("bad file row effect %d", row->effect);
	}
	free(pre);
	/* Grants and holes shape the region of every higher-priority row. */
	if (*k == CTR_KERNEL || *k == CTR_NARROWER)
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
				   "destinations");
		return;
	}
	set_kind(c, l, k, CTR_ABSORBED);
	landing_set_reason(l, l->kind, "redundant: @default net open allows "
			   "every connection");
}

void linux_container_classify(const struct table *table,
			      struct ctr_landings *out)
{
	struct diag_list scratch;
	struct landing_set ns;
	struct lx_regions rg;
	bool proxy;
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
	lx_regions_init(&rg, table);
	for (i = table->fs.n; i-- > 0;)
		classify_fs(table, &ns, &rg, out, i);
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
			 size_t n, bool accept_narrower,
			 struct diag_list *narrower,
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
		else if (accept_narrower)
			diag_note(narrower, &row->loc, "row %u '%s' is "
				  "narrower in container mode: %s; accepted by "
				  "--accept-narrower", row->index, text,
				  l[i].reason);
		else
			ret = diag_error(narrower, &row->loc, "row %u '%s' is "
					 "narrower in container mode: %s; "
					 "accepted by vbox-exec "
					 "--accept-narrower", row->index,
					 text, l[i].reason);
		free(text);
	}
	return ret;
}

int linux_container_report(const struct ctr_landings *c,
			   bool accept_narrower, struct diag_list *narrower,
			   struct diag_list *unsupported)
{
	int ret = 0;

	if (report_domain(c->set.fs, c->fs, c->set.nfs, accept_narrower,
			  narrower, unsupported) < 0)
		ret = -1;
	if (report_domain(c->set.net, c->net, c->set.nnet, accept_narrower,
			  narrower, unsupported) < 0)
		ret = -1;
	return ret;
}
