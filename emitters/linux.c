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
 * the launcher: those rows are launch-class and plan.bin carries a
 * placeholder where their mounts belong.  doc/targets.md has the details.
 */
#include <vbox.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>

#include "diag.h"
#include "emit.h"
#include "fspath.h"
#include "ir.h"
#include "linux.h"
#include "linux_regions.h"
#include "netaddr.h"

/* ------------------------------------------------------------------ */
/* string vectors */

struct strv {
	char **v;
	size_t n;
	size_t cap;
};

/* strv_push - append @s, which the vector then owns. */
static void strv_push(struct strv *sv, char *s)
{
	if (sv->n == sv->cap) {
		sv->cap = sv->cap ? 2 * sv->cap : 16;
		sv->v = xreallocarray(sv->v, sv->cap, sizeof(*sv->v));
	}
	sv->v[sv->n++] = s;
}

static void strv_add(struct strv *sv, const char *s)
{
	strv_push(sv, xstrdup(s));
}

static bool strv_has(const struct strv *sv, const char *s)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		if (strcmp(sv->v[i], s) == 0)
			return true;
	return false;
}

static void strv_free(struct strv *sv)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	memset(sv, 0, sizeof(*sv));
}

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

/*
 * Per-row facts the classifier needs, indexed by file row index.
 * @prefix: the literal prefix as a path (zero segments when rootless)
 * @ok: @prefix parsed (a normalized pattern always does)
 */
struct lx_row {
	struct fs_path prefix;
	bool ok;
};

static bool landing_mounts(const struct landing *l)
{
	return l->kind == LANDING_KERNEL || l->kind == LANDING_LAUNCH;
}

static const char deny_reason[] =
	"denied path: the launcher mounts an empty read-only tmpfs over a "
	"directory, /dev/null over a file, and a placeholder over the first "
	"missing component when a writable region could create it";

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

static void classify_glob(const struct lx_regions *rg,
			  const struct lx_row *rows, const struct row *row,
			  struct landing *l)
{
	const struct fs_path *path = &rows[row->index].prefix;
	const struct row *by = NULL;
	bool risk = false;
	struct region r;

	if (row->effect != EFFECT_RW) {
		/*
		 * Mounts are made once, at launch: a path the child creates
		 * later escapes them.  A deny or ro glob is only faithful
		 * where the child cannot create anything it could match.
		 */
		lx_regions_at(rg, row, &r);
		if (r.definite == EFFECT_RW) {
			risk = true;
			by = r.by;
		} else if (r.maybe_rw) {
			risk = true;
			by = r.maybe_by;
		} else {
			by = lx_regions_writable_below(rg, row);
			risk = by != NULL;
		}
	}
	if (risk) {
		if (by)
			landing_set_reason(l, LANDING_UNSUPPORTED,
				"'%s' is in or contains a region row %u makes "
				"writable: mounts made at launch cannot deny "
				"what the child creates later",
				path->text, by->index);
		else
			landing_set_reason(l, LANDING_UNSUPPORTED,
				"'%s' is in a region @default write rw makes "
				"writable: mounts made at launch cannot deny "
				"what the child creates later", path->text);
		return;
	}
	landing_set_reason(l, LANDING_LAUNCH,
			   "glob expanded against the host file system at "
			   "launch below '%s' (at most %d entries, %d levels)",
			   path->text, LINUX_WALK_MAX_ENTRIES,
			   LINUX_WALK_MAX_DEPTH);
}

static void classify_fs(const struct table *table, struct landing_set *set,
			const struct lx_row *rows, struct lx_regions *rg,
			size_t prio)
{
	const struct row *row = table->fs.prio[prio];
	struct landing *l = &set->fs[row->index];

	if (row->shadowed_by) {
		landing_set_reason(l, LANDING_ABSORBED,
				   "dead: covered by row %u",
				   row->shadowed_by->index);
		return;
	}
	if (!rows[row->index].ok) {
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
		classify_glob(rg, rows, row, l);
		break;
	case SHAPE_ROOTLESS:
		if (row->effect == EFFECT_RW)
			landing_set_reason(l, LANDING_ABSORBED,
				"omitting this allow only narrows: a pattern "
				"that starts with a wildcard names no "
				"directory to mount or to expand at launch");
		else
			landing_set_reason(l, LANDING_UNSUPPORTED,
				"a pattern that starts with a wildcard names "
				"no directory to mount or to expand at launch");
		break;
	default:
		BUG("bad shape");
	}
	/* What mounts shapes the region of every higher-priority row. */
	if (landing_mounts(l))
		lx_regions_add(rg, row,
			       pattern_shape(&row->fs) == SHAPE_SUBTREE);
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
	struct lx_row *rows;
	size_t i;

	/* emit_classify() initializes @out; a zeroed one is ours to set up. */
	if (!out->fs)
		landing_set_init(out, table);
	rows = xcalloc(table->fs.n ? table->fs.n : 1, sizeof(*rows));
	for (i = 0; i < table->fs.n; i++) {
		const struct row *row = table->fs.order[i];
		char *pre = pattern_prefix(&row->fs);
		char *err = NULL;

		rows[i].ok = fs_path_parse(pre, table->target,
					   &rows[i].prefix, &err) == 0;
		free(err);
		free(pre);
	}
	/* Lowest priority first: a row's region depends on rows below. */
	lx_regions_init(&rg, table);
	for (i = table->fs.n; i-- > 0;)
		classify_fs(table, out, rows, &rg, i);
	lx_regions_release(&rg);
	for (i = 0; i < table->net.n; i++)
		classify_net(table, table->net.order[i],
			     &out->net[table->net.order[i]->index]);
	for (i = 0; i < table->fs.n; i++)
		if (rows[i].ok)
			fs_path_free(&rows[i].prefix);
	free(rows);
}

/* ------------------------------------------------------------------ */
/* the argument list */

static const char *const base_args[] = {
	"--new-session",
	"--die-with-parent",
	"--unshare-user",
	"--disable-userns",
	"--unshare-pid",
	"--unshare-ipc",
	"--unshare-uts",
	"--unshare-cgroup-try",
};

static int put_arg(FILE *out, const char *arg)
{
	size_t len = strlen(arg) + 1;

	return fwrite(arg, 1, len, out) == len ? 0 : -1;
}

static int put_args(FILE *out, const char *a, const char *b, const char *c)
{
	if (put_arg(out, a) < 0)
		return -1;
	if (b && put_arg(out, b) < 0)
		return -1;
	if (c && put_arg(out, c) < 0)
		return -1;
	return 0;
}

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
		      bool launch_placeholders, struct diag_list *diags)
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
			if (launch_placeholders)
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

static int write_args(const struct table *table,
		      const struct landing_set *landing, FILE *out)
{
	size_t i;

	for (i = 0; i < array_size(base_args); i++)
		if (put_arg(out, base_args[i]) < 0)
			return -1;
	if (table->default_net == EFFECT_DENY && put_arg(out, "--unshare-net"))
		return -1;
	if (put_args(out, "--cap-drop", "ALL", NULL) < 0)
		return -1;
	if (put_args(out, table->default_write == EFFECT_RW ? "--bind" :
		     "--ro-bind", "/", "/") < 0 ||
	    put_args(out, "--dev", "/dev", NULL) < 0 ||
	    put_args(out, "--proc", "/proc", NULL) < 0)
		return -1;
	/* Lowest priority first: later mounts cover earlier ones. */
	for (i = table->fs.n; i-- > 0;) {
		const struct row *row = table->fs.prio[i];
		const struct landing *l = &landing->fs[row->index];
		char *pre, num[16];
		int ret = 0;

		if (l->kind == LANDING_LAUNCH) {
			snprintf(num, sizeof(num), "%u", row->index);
			if (put_args(out, LINUX_LAUNCH_ARG, num, NULL) < 0)
				return -1;
			continue;
		}
		if (l->kind != LANDING_KERNEL)
			continue;
		pre = pattern_prefix(&row->fs);
		ret = put_args(out, row->effect == EFFECT_RW ? "--bind-try" :
			       "--ro-bind-try", pre, pre);
		free(pre);
		if (ret < 0)
			return -1;
	}
	/*
	 * bubblewrap's /dev is a writable tmpfs; writes the policy does not
	 * grant must not land there.  Remounted last so that mount points
	 * below /dev can still be made.
	 */
	if (table->default_write != EFFECT_RW &&
	    !row_owns_dev(table, landing) &&
	    put_args(out, "--remount-ro", "/dev", NULL) < 0)
		return -1;
	return 0;
}

int linux_emit_args(const struct table *table,
		    const struct landing_set *landing, bool launch_placeholders,
		    FILE *out, struct diag_list *diags)
{
	if (check_rows(table, landing, launch_placeholders, diags) < 0)
		return -1;
	if (write_args(table, landing, out) < 0 || ferror(out))
		return diag_error(diags, NULL,
				  "cannot write the bubblewrap argument list: "
				  "%s", strerror(errno));
	return 0;
}

static int linux_emit_profile(const struct table *table,
			      const struct landing_set *landing, FILE *out,
			      struct diag_list *diags)
{
	return linux_emit_args(table, landing, false, out, diags);
}

static int linux_emit_plan_artifact(const struct table *table,
				    const struct landing_set *landing,
				    FILE *out, struct diag_list *diags)
{
	return linux_emit_args(table, landing, true, out, diags);
}

const struct emitter emitter_linux = {
	.name = "linux",
	.profile_ext = "bwrap",
	.classify = linux_classify,
	.emit_profile = linux_emit_profile,
	.emit_plan_artifact = linux_emit_plan_artifact,
};

/* ------------------------------------------------------------------ */
/* glob expansion at launch */

/*
 * One segment of a pattern being expanded.
 * @s, @len: the text (points into the walk's copy of the pattern)
 * @kind: SEG_LIT, SEG_GLOB or SEG_STARSTAR
 */
struct pseg {
	const char *s;
	size_t len;
	enum seg_kind kind;
};

/*
 * Split the normalized absolute @text (modified: '/' become NULs) into
 * segments.  Returns the count, or -1 when there are too many.
 */
static int split_pattern(char *text, struct pseg *segs, size_t max)
{
	size_t n = 0;
	char *p = text;

	while (*p) {
		char *start;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		if (n == max)
			return -1;
		start = p;
		while (*p && *p != '/')
			p++;
		if (*p)
			*p++ = '\0';
		segs[n].s = start;
		segs[n].len = strlen(start);
		if (strcmp(start, "**") == 0)
			segs[n].kind = SEG_STARSTAR;
		else if (strpbrk(start, "*?"))
			segs[n].kind = SEG_GLOB;
		else
			segs[n].kind = SEG_LIT;
		n++;
	}
	return (int)n;
}

/* A pattern has at most PATH_MAX / 2 segments ("/a/b/..."). */
#define MAX_SEGS (PATH_MAX / 2)

struct walk {
	const struct pseg *segs;
	size_t nsegs;
	size_t nlit;
	size_t entries;
	struct strv out;
	char *err;
};

static char *path_join(const char *dir, const char *name)
{
	if (strcmp(dir, "/") == 0)
		return xasprintf("/%s", name);
	return xasprintf("%s/%s", dir, name);
}

static int walk_count(struct walk *w)
{
	if (++w->entries <= LINUX_WALK_MAX_ENTRIES)
		return 0;
	w->err = xasprintf("the walk looks at more than %d entries",
			   LINUX_WALK_MAX_ENTRIES);
	return -1;
}

static int walk(struct walk *w, const char *dir, size_t i, size_t depth);

/* Are segments @i and after all "**" (or none): the path matches here? */
static bool rest_starstar(const struct walk *w, size_t i)
{
	for (; i < w->nsegs; i++)
		if (w->segs[i].kind != SEG_STARSTAR)
			return false;
	return true;
}

/* Segment @i is literal: one lookup, following symbolic links. */
static int walk_lit(struct walk *w, const char *dir, size_t i, size_t depth)
{
	char *child = path_join(dir, w->segs[i].s);
	struct stat st;
	int ret = 0;

	if (walk_count(w) < 0)
		goto out;
	if (i + 1 == w->nsegs) {
		if (lstat(child, &st) == 0)
			strv_add(&w->out, child);
		goto out;
	}
	if (stat(child, &st) == 0 && S_ISDIR(st.st_mode))
		ret = walk(w, child, i + 1, depth + (i >= w->nlit));
	else if (lstat(child, &st) == 0 && rest_starstar(w, i + 1))
		strv_add(&w->out, child);
out:
	free(child);
	return w->err ? -1 : ret;
}

/*
 * Segment @i is a glob or "**": read @dir.  Entries reached through a
 * wildcard are never descended through a symbolic link, so the walk stays
 * inside the tree and cannot loop.
 */
static int walk_dir(struct walk *w, const char *dir, size_t i, size_t depth)
{
	const struct pseg *seg = &w->segs[i];
	struct strv names = { 0 };
	struct dirent *de;
	size_t k;
	DIR *d;
	int ret = 0;

	d = opendir(dir);
	if (!d) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		w->err = xasprintf("cannot read directory '%s': %s", dir,
				   strerror(errno));
		return -1;
	}
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de)
			break;
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (walk_count(w) < 0) {
			ret = -1;
			break;
		}
		strv_add(&names, de->d_name);
	}
	if (!ret && errno) {
		w->err = xasprintf("cannot read directory '%s': %s", dir,
				   strerror(errno));
		ret = -1;
	}
	closedir(d);
	for (k = 0; !ret && k < names.n; k++) {
		char *child = path_join(dir, names.v[k]);
		struct stat st;
		bool isdir = lstat(child, &st) == 0 && S_ISDIR(st.st_mode);

		if (seg->kind == SEG_STARSTAR) {
			/* "**" takes this entry and stays for the next. */
			if (isdir)
				ret = walk(w, child, i, depth + 1);
			else if (rest_starstar(w, i + 1))
				strv_add(&w->out, child);
		} else if (fs_seg_glob_match(seg->s, seg->len, names.v[k],
					     strlen(names.v[k]))) {
			if (rest_starstar(w, i + 1))
				strv_add(&w->out, child);
			if (isdir && i + 1 < w->nsegs)
				ret = walk(w, child, i + 1, depth + 1);
		}
		free(child);
	}
	strv_free(&names);
	return ret;
}

static int walk(struct walk *w, const char *dir, size_t i, size_t depth)
{
	int ret;

	if (depth > LINUX_WALK_MAX_DEPTH) {
		w->err = xasprintf("the walk goes more than %d levels deep",
				   LINUX_WALK_MAX_DEPTH);
		return -1;
	}
	if (i == w->nsegs) {
		strv_add(&w->out, dir);
		return 0;
	}
	switch (w->segs[i].kind) {
	case SEG_LIT:
		return walk_lit(w, dir, i, depth);
	case SEG_STARSTAR:
		/* Zero segments first, then one more per directory level. */
		ret = walk(w, dir, i + 1, depth);
		if (ret < 0)
			return ret;
		return walk_dir(w, dir, i, depth);
	case SEG_GLOB:
		return walk_dir(w, dir, i, depth);
	default:
		BUG("bad segment kind");
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int linux_glob_expand(const char *pattern, char ***paths, size_t *npaths,
		      char **err)
{
	struct pseg *segs;
	struct walk w;
	char *text;
	size_t i, n;
	int nsegs, ret = -1;

	*paths = NULL;
	*npaths = 0;
	*err = NULL;
	if (pattern[0] != '/' || strlen(pattern) >= PATH_MAX) {
		*err = xasprintf("'%s' is not an absolute pattern", pattern);
		return -1;
	}
	text = xstrdup(pattern);
	segs = xcalloc(MAX_SEGS, sizeof(*segs));
	nsegs = split_pattern(text, segs, MAX_SEGS);
	memset(&w, 0, sizeof(w));
	if (nsegs < 0) {
		*err = xasprintf("'%s' has too many segments", pattern);
		goto out;
	}
	w.segs = segs;
	w.nsegs = (size_t)nsegs;
	while (w.nlit < w.nsegs && segs[w.nlit].kind == SEG_LIT)
		w.nlit++;
	if (w.nlit == 0 && w.nsegs > 0) {
		*err = xasprintf("'%s' starts with a wildcard", pattern);
		goto out;
	}
	if (walk(&w, "/", 0, 0) < 0) {
		*err = xasprintf("cannot expand '%s': %s", pattern, w.err);
		strv_free(&w.out);
		goto out;
	}
	qsort(w.out.v, w.out.n, sizeof(*w.out.v), cmp_str);
	/* "**" can reach one path along several routes. */
	for (i = n = 0; i < w.out.n; i++) {
		if (n && strcmp(w.out.v[n - 1], w.out.v[i]) == 0) {
			free(w.out.v[i]);
			continue;
		}
		w.out.v[n++] = w.out.v[i];
	}
	*paths = w.out.v;
	*npaths = n;
	ret = 0;
out:
	free(w.err);
	free(segs);
	free(text);
	return ret;
}

/* ------------------------------------------------------------------ */
/* instantiation at launch */

/*
 * What a mount makes of the paths it covers:
 * MK_RW, MK_RO: a bind of the same host path, writable or not
 * MK_DENY: an empty read-only tmpfs or /dev/null: nothing readable
 * MK_HOLLOW: a read-only tmpfs over a missing path (a placeholder)
 * MK_SPECIAL: bubblewrap's own /dev and /proc
 */
enum mk {
	MK_RW,
	MK_RO,
	MK_DENY,
	MK_HOLLOW,
	MK_SPECIAL,
};

/*
 * One mount of the list being built.
 * @dest: where (owned)
 * @kind: see enum mk
 * @host: a bind of the same host path: new mount points below it are
 *        made on the host
 * @mode: tmpfs only: the mode of its root (0 for other mounts)
 * @remount: a tmpfs still to be remounted read-only at the end
 */
struct mnt {
	char *dest;
	enum mk kind;
	bool host;
	unsigned mode;
	bool remount;
};

struct inst {
	const struct linux_launch_row *rows;
	size_t nrows;
	struct strv argv;
	struct strv placeholders;
	struct strv dirs;
	struct mnt *m;
	size_t nm;
	size_t cap;
	char *err;
};

static __printf(2, 3) int inst_error(struct inst *in, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	if (in->err)
		return -1;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	in->err = msg ? msg : xstrdup("out of memory");
	return -1;
}

/* Is @a an ancestor of @b, or @b itself (both clean absolute paths)? */
static bool path_under(const char *a, const char *b)
{
	size_t la = strlen(a);

	if (strcmp(a, "/") == 0)
		return true;
	return strncmp(a, b, la) == 0 && (b[la] == '\0' || b[la] == '/');
}

/* The mount that shows @path: the last one at or above it. */
static struct mnt *enclosing(struct inst *in, const char *path)
{
	size_t i;

	for (i = in->nm; i-- > 0;)
		if (path_under(in->m[i].dest, path))
			return &in->m[i];
	return NULL;
}

static void push_mount(struct inst *in, const char *dest, enum mk kind,
		       bool host, unsigned mode)
{
	size_t i;

	/* A tmpfs this mount covers is out of sight: leave it alone. */
	for (i = 0; i < in->nm; i++)
		if (in->m[i].remount && path_under(dest, in->m[i].dest))
			in->m[i].remount = false;
	if (in->nm == in->cap) {
		in->cap = in->cap ? 2 * in->cap : 16;
		in->m = xreallocarray(in->m, in->cap, sizeof(*in->m));
	}
	in->m[in->nm++] = (struct mnt){
		.dest = xstrdup(dest),
		.kind = kind,
		.host = host,
		.mode = mode,
		.remount = mode != 0,
	};
}

static void arg2(struct inst *in, const char *a, const char *b)
{
	strv_add(&in->argv, a);
	strv_add(&in->argv, b);
}

static void arg3(struct inst *in, const char *a, const char *b,
		 const char *c)
{
	arg2(in, a, b);
	strv_add(&in->argv, c);
}

/*
 * Each strict ancestor of @dest below @top, shallowest first, as new
 * strings appended to @sv.
 */
static void ancestors_between(const char *top, const char *dest,
			      struct strv *sv)
{
	size_t start = strcmp(top, "/") == 0 ? 0 : strlen(top);
	const char *p;

	for (p = dest + start + 1; (p = strchr(p, '/')); p++)
		strv_push(sv, xstrndup(dest, (size_t)(p - dest)));
}

static bool same_class(enum mk a, enum mk b)
{
	if (a == MK_HOLLOW)
		a = MK_DENY;
	if (b == MK_HOLLOW)
		b = MK_DENY;
	return a == b && a != MK_SPECIAL;
}

/*
 * prepare - get ready to mount @kind at @dest.  Returns 1 when the mount
 * would change nothing (the region already is @kind), 0 when the caller
 * should mount, -1 on error.  Inside a tmpfs, the directories leading to
 * @dest are made with the tmpfs's own mode (bubblewrap would make them
 * 0755: listable); inside a writable host region, a hole's ancestors are
 * bound onto themselves, so that they are mount points: a rename or
 * rmdir then fails with EBUSY and cannot carry the hole away or let the
 * child recreate the path without it.
 */
static int prepare(struct inst *in, const char *dest, enum mk kind)
{
	struct strv anc = { 0 };
	struct mnt *e = enclosing(in, dest);
	char mode[16];
	size_t i;

	if (!e)
		return inst_error(in, "the artifact mounts no root");
	if (same_class(e->kind, kind))
		return 1;
	if (strcmp(e->dest, dest) == 0)
		return 0;
	if (e->mode) {
		snprintf(mode, sizeof(mode), "0%o", e->mode);
		ancestors_between(e->dest, dest, &anc);
		for (i = 0; i < anc.n; i++) {
			if (strv_has(&in->dirs, anc.v[i]))
				continue;
			arg2(in, "--perms", mode);
			arg2(in, "--dir", anc.v[i]);
			strv_add(&in->dirs, anc.v[i]);
		}
	} else if (kind != MK_RW && e->kind == MK_RW && e->host) {
		/* push_mount() moves in->m: @e is not used past here. */
		ancestors_between(e->dest, dest, &anc);
		for (i = 0; i < anc.n; i++) {
			arg3(in, "--bind", anc.v[i], anc.v[i]);
			push_mount(in, anc.v[i], MK_RW, true, 0);
		}
	}
	strv_free(&anc);
	return 0;
}

static int mount_bind(struct inst *in, const char *path, enum mk kind,
		      const char *opt)
{
	int ret = prepare(in, path, kind);

	if (ret)
		return ret < 0 ? -1 : 0;
	arg3(in, opt, path, path);
	push_mount(in, path, kind, true, 0);
	return 0;
}

static int mount_tmpfs(struct inst *in, const char *path, enum mk kind,
		       unsigned mode)
{
	char m[16];
	int ret = prepare(in, path, kind);

	if (ret)
		return ret < 0 ? -1 : 0;
	snprintf(m, sizeof(m), "0%o", mode);
	arg2(in, "--perms", m);
	arg2(in, "--tmpfs", path);
	push_mount(in, path, kind, false, mode);
	return 0;
}

static int mount_null(struct inst *in, const char *path)
{
	int ret = prepare(in, path, MK_DENY);

	if (ret)
		return ret < 0 ? -1 : 0;
	/*
	 * bubblewrap binds without devices (nodev): opening this character
	 * device fails with EACCES for reading and writing alike, and it
	 * is empty; it cannot be removed while mounted.
	 */
	arg3(in, "--ro-bind", "/dev/null", path);
	push_mount(in, path, MK_DENY, false, 0);
	return 0;
}

/*
 * place_missing - @path (of a deny or ro row) does not exist on the host.
 * When the child could create its first missing component C, cover C:
 * with a placeholder tmpfs (an empty directory the launcher makes on the
 * host, mode 0111 when C is the denied path itself, else 0555), or with
 * /dev/null when C exists but is no directory (the child could replace it
 * by one).
 */
static int place_missing(struct inst *in, const char *path, bool deny)
{
	struct strv anc = { 0 };
	struct stat st;
	char *c = NULL, *parent;
	bool nondir = false;
	struct mnt *e;
	size_t i;
	int ret = 0;

	ancestors_between("/", path, &anc);
	strv_add(&anc, path);
	for (i = 0; i < anc.n && !c; i++) {
		if (strv_has(&in->placeholders, anc.v[i]))
			goto out;
		if (stat(anc.v[i], &st) == 0) {
			if (!S_ISDIR(st.st_mode)) {
				c = anc.v[i];
				nondir = true;
			}
			continue;
		}
		if (errno != ENOENT) {
			ret = inst_error(in, "cannot inspect '%s': %s",
					 anc.v[i], strerror(errno));
			goto out;
		}
		if (lstat(anc.v[i], &st) == 0) {
			ret = inst_error(in, "'%s' is a dangling symbolic "
					 "link", anc.v[i]);
			goto out;
		}
		c = anc.v[i];
	}
	if (!c)
		goto out;
	parent = xstrdup(c);
	*strrchr(parent, '/') = '\0';
	e = enclosing(in, parent[0] ? parent : "/");
	free(parent);
	if (!e) {
		ret = inst_error(in, "the artifact mounts no root");
		goto out;
	}
	if (e->kind == MK_SPECIAL) {
		/*
		 * bubblewrap's own /dev (a tmpfs, writable until remounted)
		 * gets the mount point made inside it, not on the host; in
		 * /proc nothing can be created.
		 */
		if (strcmp(e->dest, "/dev") != 0)
			goto out;
		if (nondir)
			ret = mount_null(in, c);
		else
			ret = mount_tmpfs(in, c, MK_HOLLOW, 0555);
		goto out;
	}
	if (e->kind != MK_RW)
		goto out;
	if (nondir) {
		ret = mount_null(in, c);
		goto out;
	}
	strv_add(&in->placeholders, c);
	ret = mount_tmpfs(in, c, MK_HOLLOW,
			  deny && strcmp(c, path) == 0 ? 0111 : 0555);
out:
	strv_free(&anc);
	return ret;
}

/*
 * launch_path - mount what row @r decides at @path, which the row matches
 * as a whole subtree (@subtree) or as that one path only.
 */
static int launch_path(struct inst *in, const struct linux_launch_row *r,
		       const char *path, bool subtree, bool literal)
{
	struct stat st;

	if (lstat(path, &st) < 0) {
		if (errno != ENOENT && errno != ENOTDIR)
			return inst_error(in, "cannot inspect '%s': %s", path,
					  strerror(errno));
		if (!literal || r->effect == EFFECT_RW)
			return 0;
		return place_missing(in, path, r->effect == EFFECT_DENY);
	}
	if (S_ISLNK(st.st_mode)) {
		/* bubblewrap mounts over a link's target, not the link. */
		if (r->effect == EFFECT_RW)
			return literal ? mount_bind(in, path, MK_RW, "--bind") :
			       0;
		if (r->effect == EFFECT_RO)
			return inst_error(in, "row %u: '%s' is a symbolic "
					  "link: bubblewrap would mount its "
					  "target read-only instead",
					  r->index, path);
		if (stat(path, &st) < 0)
			return inst_error(in, "row %u: '%s' is a dangling "
					  "symbolic link", r->index, path);
	}
	if (S_ISDIR(st.st_mode)) {
		switch (r->effect) {
		case EFFECT_RW:
			/* A bind would grant what lies below: narrow. */
			return subtree ? mount_bind(in, path, MK_RW, "--bind") :
			       0;
		case EFFECT_RO:
			if (!subtree)
				return inst_error(in, "row %u matches the "
					"directory '%s' but not what lies "
					"below it, and a mount covers both; "
					"end the pattern with '/**'",
					r->index, path);
			return mount_bind(in, path, MK_RO, "--ro-bind");
		case EFFECT_DENY:
			return mount_tmpfs(in, path, MK_DENY, 0111);
		case EFFECT_ALLOW:
		default:
			return inst_error(in, "row %u has no file effect",
					  r->index);
		}
	}
	switch (r->effect) {
	case EFFECT_RW:
		return mount_bind(in, path, MK_RW, "--bind");
	case EFFECT_RO:
		return mount_bind(in, path, MK_RO, "--ro-bind");
	case EFFECT_DENY:
		return mount_null(in, path);
	case EFFECT_ALLOW:
	default:
		return inst_error(in, "row %u has no file effect", r->index);
	}
}

static int launch_row(struct inst *in, const struct linux_launch_row *r)
{
	struct pseg *segs = NULL;
	char *text = NULL, *base = NULL, *msg;
	char **paths = NULL;
	size_t npaths = 0, i, nlit = 0, nbase;
	int nsegs, ret = -1;

	if (r->pattern[0] != '/' || strlen(r->pattern) >= PATH_MAX)
		return inst_error(in, "row %u: '%s' is not an absolute "
				  "pattern", r->index, r->pattern);
	text = xstrdup(r->pattern);
	segs = xcalloc(MAX_SEGS, sizeof(*segs));
	nsegs = split_pattern(text, segs, MAX_SEGS);
	if (nsegs < 0) {
		inst_error(in, "row %u: too many segments", r->index);
		goto out;
	}
	while (nlit < (size_t)nsegs && segs[nlit].kind == SEG_LIT)
		nlit++;
	nbase = (size_t)nsegs;
	while (nbase > nlit && segs[nbase - 1].kind == SEG_STARSTAR)
		nbase--;
	if (nbase == nlit) {
		/* No wildcard but trailing "**": one subtree. */
		base = text_prefix(r->pattern, (uint32_t)nlit);
		ret = launch_path(in, r, base, true, true);
		goto out;
	}
	if (nlit == 0) {
		inst_error(in, "row %u: '%s' starts with a wildcard",
			   r->index, r->pattern);
		goto out;
	}
	base = text_prefix(r->pattern, (uint32_t)nbase);
	if (linux_glob_expand(base, &paths, &npaths, &msg) < 0) {
		inst_error(in, "row %u: %s", r->index, msg);
		free(msg);
		goto out;
	}
	ret = 0;
	for (i = 0; i < npaths && ret == 0; i++)
		ret = launch_path(in, r, paths[i], nbase < (size_t)nsegs,
				  false);
out:
	for (i = 0; i < npaths; i++)
		free(paths[i]);
	free(paths);
	free(base);
	free(segs);
	free(text);
	return ret;
}

static const char *const pass_flags[] = {
	"--new-session", "--die-with-parent", "--unshare-user",
	"--disable-userns", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
	"--unshare-cgroup-try", "--unshare-net",
};

static bool is_pass_flag(const char *a)
{
	size_t i;

	for (i = 0; i < array_size(pass_flags); i++)
		if (strcmp(a, pass_flags[i]) == 0)
			return true;
	return false;
}

static int parse_row_index(const char *s, uint32_t *out)
{
	unsigned long v;
	char *end;

	if (s[0] < '0' || s[0] > '9' || (s[0] == '0' && s[1]))
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int inst_launch(struct inst *in, const char *num)
{
	uint32_t idx;
	size_t i;

	if (parse_row_index(num, &idx) < 0)
		return inst_error(in, "bad row number '%s' after %s", num,
				  LINUX_LAUNCH_ARG);
	for (i = 0; i < in->nrows; i++)
		if (in->rows[i].index == idx)
			return launch_row(in, &in->rows[i]);
	return inst_error(in, "the artifact names file row %u, which is no "
			  "launch row of the plan", idx);
}

/* A static "--bind-try"/"--ro-bind-try": kept only when the source is. */
static int inst_try(struct inst *in, const char *opt, const char *src,
		    const char *dest)
{
	enum mk kind = strcmp(opt, "--bind-try") == 0 ? MK_RW : MK_RO;
	struct stat st;
	int ret;

	if (strcmp(src, dest) != 0 || dest[0] != '/')
		return inst_error(in, "unexpected %s '%s' '%s' in the "
				  "artifact", opt, src, dest);
	if (lstat(src, &st) < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		return inst_error(in, "cannot inspect '%s': %s", src,
				  strerror(errno));
	}
	ret = prepare(in, dest, kind);
	if (ret)
		return ret < 0 ? -1 : 0;
	arg3(in, opt, src, dest);
	push_mount(in, dest, kind, true, 0);
	return 0;
}

/*
 * Split @len bytes at @buf into NUL-terminated arguments (borrowed
 * pointers into @buf).  Returns -1 unless the last byte is a NUL.
 */
static int split_args(const uint8_t *buf, size_t len, struct strv *out)
{
	size_t i, start = 0;

	if (len && buf[len - 1] != '\0')
		return -1;
	for (i = 0; i < len; i++) {
		if (buf[i])
			continue;
		strv_push(out, (char *)(buf + start));
		start = i + 1;
	}
	return 0;
}

static int inst_args(struct inst *in, const struct strv *a)
{
	size_t i = 0;

	while (i < a->n && !in->err) {
		const char *o = a->v[i];
		size_t left = a->n - i - 1;

		if (is_pass_flag(o)) {
			strv_add(&in->argv, o);
			i++;
		} else if (strcmp(o, "--cap-drop") == 0 ||
			   strcmp(o, "--remount-ro") == 0) {
			if (left < 1)
				break;
			arg2(in, o, a->v[i + 1]);
			i += 2;
		} else if (strcmp(o, "--dev") == 0 ||
			   strcmp(o, "--proc") == 0) {
			if (left < 1)
				break;
			arg2(in, o, a->v[i + 1]);
			push_mount(in, a->v[i + 1], MK_SPECIAL, false, 0);
			i += 2;
		} else if (strcmp(o, "--ro-bind") == 0 ||
			   strcmp(o, "--bind") == 0) {
			if (left < 2)
				break;
			arg3(in, o, a->v[i + 1], a->v[i + 2]);
			push_mount(in, a->v[i + 2],
				   o[2] == 'r' ? MK_RO : MK_RW,
				   strcmp(a->v[i + 1], a->v[i + 2]) == 0, 0);
			i += 3;
		} else if (strcmp(o, "--ro-bind-try") == 0 ||
			   strcmp(o, "--bind-try") == 0) {
			if (left < 2)
				break;
			inst_try(in, o, a->v[i + 1], a->v[i + 2]);
			i += 3;
		} else if (strcmp(o, LINUX_LAUNCH_ARG) == 0) {
			if (left < 1)
				break;
			inst_launch(in, a->v[i + 1]);
			i += 2;
		} else {
			return inst_error(in, "unexpected argument '%s' in the "
					  "artifact", o);
		}
	}
	if (in->err)
		return -1;
	if (i < a->n)
		return inst_error(in, "'%s' lacks its operands at the end of "
				  "the artifact", a->v[i]);
	return 0;
}

int linux_launch_instantiate(const uint8_t *artifact, size_t len,
			     const struct linux_launch_row *rows, size_t nrows,
			     struct linux_launch *out, char **err)
{
	struct strv a = { 0 };
	struct inst in;
	size_t i;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	*err = NULL;
	memset(&in, 0, sizeof(in));
	in.rows = rows;
	in.nrows = nrows;
	if (split_args(artifact, len, &a) < 0) {
		inst_error(&in, "the artifact does not end with a NUL byte");
		goto out;
	}
	if (inst_args(&in, &a) < 0)
		goto out;
	if (!in.nm) {
		inst_error(&in, "the artifact mounts no root");
		goto out;
	}
	/* Only now: until here bubblewrap may need new mount points. */
	for (i = 0; i < in.nm; i++)
		if (in.m[i].remount)
			arg2(&in, "--remount-ro", in.m[i].dest);
	out->argv = in.argv.v;
	out->argc = in.argv.n;
	out->placeholders = in.placeholders.v;
	out->nplaceholders = in.placeholders.n;
	memset(&in.argv, 0, sizeof(in.argv));
	memset(&in.placeholders, 0, sizeof(in.placeholders));
	ret = 0;
out:
	if (ret < 0)
		*err = in.err ? in.err : xstrdup("cannot instantiate");
	else
		free(in.err);
	free(a.v);
	strv_free(&in.argv);
	strv_free(&in.placeholders);
	strv_free(&in.dirs);
	for (i = 0; i < in.nm; i++)
		free(in.m[i].dest);
	free(in.m);
	return ret;
}

void linux_launch_free(struct linux_launch *launch)
{
	size_t i;

	if (!launch)
		return;
	for (i = 0; i < launch->argc; i++)
		free(launch->argv[i]);
	free(launch->argv);
	for (i = 0; i < launch->nplaceholders; i++)
		free(launch->placeholders[i]);
	free(launch->placeholders);
	memset(launch, 0, sizeof(*launch));
}
