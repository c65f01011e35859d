/* SPDX-License-Identifier: MIT */
/*
 * mounts.c - launch-class rows made into typed mounts against the host
 * file system (mounts.h).
 *
 * Owned here: the coverage model of the mounts made so far (which mount
 * shows a path), placeholders for missing paths, anchoring holes inside
 * writable regions, and the decision of which mount kind a matched host
 * path gets.  The glob walk is glob.c's; bubblewrap's spelling is
 * plan/linux_artifact.c's.
 */
#include <vbox.h>

#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "glob.h"
#include "grow.h"
#include "ir.h"
#include "linux_artifact.h"
#include "mounts.h"
#include "fspath.h"
#include "pathmap.h"
#include "strv.h"
#include "target.h"

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

/*
 * The instantiation in progress.
 * @rows, @nrows: the plan's launch rows
 * @out: the sandbox being built
 * @row: the row whose mounts are being made (LX_ROW_NONE: the base)
 * @placeholders: host directories to make (see struct linux_launch)
 * @dirs: directories made inside tmpfs mounts so far
 * @m, @nm, @cap: the mounts so far, as a coverage model
 * @err: the first error
 */
struct inst {
	const struct linux_launch_row *rows;
	size_t nrows;
	struct lx_artifact *out;
	uint32_t row;
	struct strv placeholders;
	struct linux_host_note *notes;
	size_t nnotes;
	struct strv creates;
	struct strv dirs;
	struct mnt *m;
	size_t nm;
	size_t cap;
	struct pathmap at;
	struct pathmap below;
	struct strv below_keys;
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

/*
 * EACCES on a path under another user's home directory: the plan was
 * most likely compiled by that user, and '~' was expanded then.  Returns
 * the hint to append to the message ("" when none; a static buffer).
 */
static const char *home_hint(const char *path, int err)
{
	static char buf[PATH_MAX + 256];
	const struct passwd *pw;
	size_t n;

	buf[0] = '\0';
	if (err != EACCES)
		return buf;
	setpwent();
	while ((pw = getpwent())) {
		n = pw->pw_dir ? strlen(pw->pw_dir) : 0;
		if (n < 2 || pw->pw_uid == getuid() ||
		    strncmp(path, pw->pw_dir, n) != 0 ||
		    (path[n] != '/' && path[n] != '\0'))
			continue;
		snprintf(buf, sizeof(buf), " (it is under the home directory "
			 "of '%s', %s: '~' and $HOME in rules are expanded "
			 "when the plan is compiled; compile the plan as the "
			 "user who runs it)", pw->pw_name, pw->pw_dir);
		break;
	}
	endpwent();
	return buf;
}

/*
 * May the missing writable root @src be created by the launcher?  Only
 * when the table itself lets every component to be created be written:
 * @src alone is missing (the rw row that binds it matches @src), or the
 * region that shows it is writable (the child could create it anyway).
 * Creating it then widens nothing, and the row's mount happens.
 */
static struct mnt *enclosing(struct inst *in, const char *path);
static bool path_under(const char *a, const char *b);

/* Is @p a writable root to create, or one of its missing ancestors? */
static bool will_be_created(const struct inst *in, const char *p)
{
	size_t i;

	for (i = 0; i < in->creates.n; i++)
		if (path_under(p, in->creates.v[i]))
			return true;
	return false;
}

static bool creation_granted(struct inst *in, const char *src)
{
	char *parent = xstrdup(src), *slash = strrchr(parent, '/');
	const struct mnt *e;
	struct stat st;
	bool ok;

	if (slash)
		*slash = '\0';
	ok = parent[0] && stat(parent, &st) == 0 && S_ISDIR(st.st_mode);
	free(parent);
	if (ok)
		return true;
	e = enclosing(in, src);
	return e && e->kind == MK_RW;
}

/* Remember that row @row's effect at @path depended on the host. */
static void host_note(struct inst *in, uint32_t row, const char *path,
		      const char *what, bool warn)
{
	struct linux_host_note *n;

	in->notes = xreallocarray(in->notes, in->nnotes + 1,
				  sizeof(*in->notes));
	n = &in->notes[in->nnotes++];
	n->row = row;
	n->path = xstrdup(path);
	n->what = what;
	n->warn = warn;
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

	return pathmap_last_above(&in->at, path, &i) ? &in->m[i] : NULL;
}

/* Every strict ancestor of @dest has mount @idx below it (in->below). */
static void note_below(struct inst *in, const char *dest, size_t idx)
{
	const char *p;

	for (p = dest + 1; (p = strchr(p, '/')); p++) {
		strv_push(&in->below_keys, xstrndup(dest, (size_t)(p - dest)));
		pathmap_put_max(&in->below,
				in->below_keys.v[in->below_keys.n - 1], idx);
	}
}

static void push_mount(struct inst *in, const char *dest, enum mk kind,
		       bool host, unsigned mode)
{
	size_t i;

	/* A tmpfs this mount covers is out of sight: leave it alone. */
	for (i = 0; i < in->nm; i++)
		if (in->m[i].remount && path_under(dest, in->m[i].dest))
			in->m[i].remount = false;
	GROW(in->m, in->cap, in->nm + 1);
	in->m[in->nm] = (struct mnt){
		.dest = xstrdup(dest),
		.kind = kind,
		.host = host,
		.mode = mode,
		.remount = mode != 0,
	};
	pathmap_put_max(&in->at, in->m[in->nm].dest, in->nm);
	note_below(in, dest, in->nm);
	in->nm++;
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
	unsigned mode;
	size_t i;

	if (!e)
		return inst_error(in, "the artifact mounts no root");
	/*
	 * Redundant only when nothing is mounted below @dest yet: a lower
	 * row's hole there (a bind of a file in a denied directory) must
	 * be covered again by this higher row's mount, or it would show
	 * what this row decides otherwise.
	 */
	if (same_class(e->kind, kind) && !pathmap_get(&in->below, dest, &i))
		return 1;
	if (strcmp(e->dest, dest) == 0)
		return 0;
	if (e->mode) {
		mode = e->mode;
		ancestors_between(e->dest, dest, &anc);
		for (i = 0; i < anc.n; i++) {
			if (strv_has(&in->dirs, anc.v[i]))
				continue;
			lx_add(in->out, LX_DIR, NULL, anc.v[i], mode, in->row);
			strv_add(&in->dirs, anc.v[i]);
		}
	} else if (kind != MK_RW && e->kind == MK_RW && e->host) {
		/* push_mount() moves in->m: @e is not used past here. */
		ancestors_between(e->dest, dest, &anc);
		for (i = 0; i < anc.n; i++) {
			lx_add(in->out, LX_BIND_RW, anc.v[i], anc.v[i], 0,
			       in->row);
			push_mount(in, anc.v[i], MK_RW, true, 0);
		}
	}
	strv_release(&anc);
	return 0;
}

static int mount_bind(struct inst *in, const char *path, enum mk kind)
{
	int ret = prepare(in, path, kind);

	if (ret)
		return ret < 0 ? -1 : 0;
	lx_add(in->out, kind == MK_RW ? LX_BIND_RW : LX_BIND_RO, path, path, 0,
	       in->row);
	push_mount(in, path, kind, true, 0);
	return 0;
}

static int mount_tmpfs(struct inst *in, const char *path, enum mk kind,
		       unsigned mode)
{
	int ret = prepare(in, path, kind);

	if (ret)
		return ret < 0 ? -1 : 0;
	lx_add(in->out, LX_TMPFS, NULL, path, mode, in->row);
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
	lx_add(in->out, LX_BIND_RO, "/dev/null", path, 0, in->row);
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
		/*
		 * A writable root the launcher creates will be a directory,
		 * writable: a hole at or below it needs its mount as if it
		 * existed (the root itself: an empty tmpfs over it).
		 */
		if (will_be_created(in, anc.v[i])) {
			if (i + 1 < anc.n)
				continue;
			ret = mount_tmpfs(in, path, MK_HOLLOW,
					  deny ? 0111 : 0555);
			goto out;
		}
		if (stat(anc.v[i], &st) == 0) {
			if (!S_ISDIR(st.st_mode)) {
				c = anc.v[i];
				nondir = true;
			}
			continue;
		}
		if (errno != ENOENT) {
			ret = inst_error(in, "cannot inspect '%s': %s%s",
					 anc.v[i], strerror(errno),
					 home_hint(anc.v[i], errno));
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
	host_note(in, in->row, path, "does not exist on the host: an empty "
		  "read-only placeholder keeps it absent for the child's "
		  "whole life", false);
	ret = mount_tmpfs(in, c, MK_HOLLOW,
			  deny && strcmp(c, path) == 0 ? 0111 : 0555);
out:
	strv_release(&anc);
	return ret;
}

/* vbox-exec runs linux plans only: case kept, no drive letters. */
static const struct target_traits launch_paths = {
	.id = TARGET_LINUX,
	.name = "linux",
};

/* The compiled patterns of the rows tried before a launch row. */
struct above {
	const struct fs_pattern *pats;
	size_t n;
};

/*
 * Does a row tried before @r (@above, compiled from r->above) decide
 * @path, and with @subtree everything below it too?  Then that row's
 * effect holds there, not @r's, and @r mounts nothing at @path: a
 * `!ro: /a/s1` over a deny glob matching /a/s1/f0 keeps that file
 * readable, as explain says (the higher row is absorbed, so no mount of
 * its own would put the file back).  A mount on a directory (or what a
 * link leads to) shows its whole subtree, so a row above that decides
 * the directory alone (`rw: /a/d?` over a deny of each directory in /a
 * and all below it) does not excuse it: skipping the mount there would
 * show what explain denies below the directory.
 */
static bool decided_above(const struct above *above, const char *path,
			  bool subtree)
{
	struct fs_path q;
	char *err = NULL;
	bool hit = false;
	size_t i;

	if (!above->n)
		return false;
	if (fs_path_parse(path, &launch_paths, &q, &err) < 0) {
		free(err);
		return false;
	}
	for (i = 0; i < above->n && !hit; i++)
		hit = subtree ? fs_match_subtree(&above->pats[i], &q) :
		      fs_match(&above->pats[i], &q);
	fs_path_free(&q);
	return hit;
}

/*
 * launch_path - mount what row @r decides at @path, which the row matches
 * as a whole subtree (@subtree) or as that one path only.
 */
static int launch_path(struct inst *in, const struct linux_launch_row *r,
		       const struct above *above, const char *path,
		       bool subtree, bool literal)
{
	struct stat st;

	if (lstat(path, &st) < 0) {
		if (errno != ENOENT && errno != ENOTDIR)
			return inst_error(in, "cannot inspect '%s': %s%s",
					  path, strerror(errno),
					  home_hint(path, errno));
		if (!literal || r->effect == EFFECT_RW)
			return 0;
		return place_missing(in, path, r->effect == EFFECT_DENY);
	}
	/* What a mount on a directory or a link's target shows: a subtree. */
	if (decided_above(above, path, S_ISDIR(st.st_mode) ||
					S_ISLNK(st.st_mode)))
		return 0;
	if (S_ISLNK(st.st_mode)) {
		/* bubblewrap mounts over a link's target, not the link. */
		host_note(in, r->index, path, r->effect == EFFECT_RW && !literal ?
			  "is a symbolic link: a glob match that is a link is "
			  "not made writable" :
			  "is a symbolic link: the mount moves to its target "
			  "only where the table gives the target the row's "
			  "effect (pin.h), else the launch is refused",
			  false);
		if (r->effect == EFFECT_RW)
			return literal ? mount_bind(in, path, MK_RW) :
			       0;
		if (r->effect == EFFECT_RO && literal)
			return mount_bind(in, path, MK_RO);
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
			return subtree ? mount_bind(in, path, MK_RW) :
			       0;
		case EFFECT_RO:
			if (!subtree)
				return inst_error(in, "row %u matches the "
					"directory '%s' but not what lies "
					"below it, and a mount covers both; "
					"end the pattern with '/**'",
					r->index, path);
			return mount_bind(in, path, MK_RO);
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
		return mount_bind(in, path, MK_RW);
	case EFFECT_RO:
		return mount_bind(in, path, MK_RO);
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
	struct fs_pattern *above = NULL;
	char *text = NULL, *base = NULL, *msg;
	char **paths = NULL;
	size_t npaths = 0, i, nlit = 0, nbase, nmax, nabove = 0;
	int nsegs, ret = -1;

	if (r->pattern[0] != '/' || strlen(r->pattern) >= PATH_MAX)
		return inst_error(in, "row %u: '%s' is not an absolute "
				  "pattern", r->index, r->pattern);
	text = xstrdup(r->pattern);
	nmax = glob_seg_bound(text);
	segs = xcalloc(nmax, sizeof(*segs));
	nsegs = glob_split(text, segs, nmax);
	if (nsegs < 0) {
		inst_error(in, "row %u: too many segments", r->index);
		goto out;
	}
	if (r->nabove) {
		above = xcalloc(r->nabove, sizeof(*above));
		for (; nabove < r->nabove; nabove++) {
			if (fs_pattern_from_text(r->above[nabove],
						 &launch_paths, &above[nabove],
						 &msg) < 0) {
				inst_error(in, "row %u: a row before it: %s",
					   r->index, msg);
				free(msg);
				goto out;
			}
		}
	}
	while (nlit < (size_t)nsegs && segs[nlit].kind == SEG_LIT)
		nlit++;
	nbase = (size_t)nsegs;
	while (nbase > nlit && segs[nbase - 1].kind == SEG_STARSTAR)
		nbase--;
	if (nbase == nlit) {
		/* No wildcard but trailing "**": one subtree. */
		base = glob_prefix(r->pattern, nlit);
		ret = launch_path(in, r, &(struct above){ above, nabove },
				  base, true, true);
		goto out;
	}
	if (nlit == 0) {
		inst_error(in, "row %u: '%s' starts with a wildcard",
			   r->index, r->pattern);
		goto out;
	}
	base = glob_prefix(r->pattern, nbase);
	if (glob_expand(base, &paths, &npaths, &msg) < 0) {
		inst_error(in, "row %u: %s", r->index, msg);
		free(msg);
		goto out;
	}
	ret = 0;
	host_note(in, r->index, r->pattern, npaths ?
		  "is a glob expanded on the host now: each match is mounted "
		  "for the row" :
		  "is a glob that matches nothing on the host now: the row "
		  "mounts nothing", false);
	for (i = 0; i < npaths && ret == 0; i++)
		ret = launch_path(in, r, &(struct above){ above, nabove },
				  paths[i], nbase < (size_t)nsegs, false);
out:
	for (i = 0; i < nabove; i++)
		fs_pattern_free(&above[i]);
	free(above);
	for (i = 0; i < npaths; i++)
		free(paths[i]);
	free(paths);
	free(base);
	free(segs);
	free(text);
	return ret;
}

static int inst_launch(struct inst *in, uint32_t idx)
{
	size_t lo = 0, hi = in->nrows, mid;
	int ret;

	/* @rows are in table order: indexes ascend. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (in->rows[mid].index < idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == in->nrows || in->rows[lo].index != idx)
		return inst_error(in, "the artifact names file row %u, which "
				  "is no launch row of the plan", idx);
	in->row = idx;
	ret = launch_row(in, &in->rows[lo]);
	in->row = LX_ROW_NONE;
	return ret;
}

/* A static try-bind of a kernel row: kept only when the source is. */
static int inst_try(struct inst *in, const struct lx_mount *m)
{
	enum mk kind = m->kind == LX_BIND_RW_TRY ? MK_RW : MK_RO;
	struct stat st;
	int ret;

	if (strcmp(m->src, m->dest) != 0)
		return inst_error(in, "unexpected bind of '%s' onto '%s' in "
				  "the artifact", m->src, m->dest);
	if (lstat(m->src, &st) < 0) {
		if (errno == ENOENT || errno == ENOTDIR) {
			if (kind == MK_RW && errno == ENOENT &&
			    creation_granted(in, m->src)) {
				strv_add(&in->creates, m->src);
				host_note(in, m->row, m->src, "did not exist "
					  "on the host; the table lets it be "
					  "created, so the launcher creates it "
					  "(mode 0700)", false);
				goto mount;
			}
			host_note(in, m->row, m->src, kind == MK_RW ?
				  "does not exist on the host: the row makes "
				  "nothing writable there (create it before "
				  "the launch)" :
				  "does not exist on the host: nothing is "
				  "mounted there", kind == MK_RW);
			return 0;
		}
		return inst_error(in, "cannot inspect '%s': %s%s", m->src,
				  strerror(errno), home_hint(m->src,
								errno));
	}
mount:
	in->row = m->row;
	ret = prepare(in, m->dest, kind);
	in->row = LX_ROW_NONE;
	if (ret)
		return ret < 0 ? -1 : 0;
	lx_add(in->out, m->kind, m->src, m->dest, 0, m->row);
	push_mount(in, m->dest, kind, true, 0);
	return 0;
}

static int inst_mount(struct inst *in, const struct lx_mount *m)
{
	switch ((enum lx_kind)m->kind) {
	case LX_DEV:
	case LX_PROC:
		lx_add(in->out, m->kind, NULL, m->dest, 0, m->row);
		push_mount(in, m->dest, MK_SPECIAL, false, 0);
		return 0;
	case LX_BIND_RO:
	case LX_BIND_RW:
		lx_add(in->out, m->kind, m->src, m->dest, 0, m->row);
		push_mount(in, m->dest, m->kind == LX_BIND_RO ? MK_RO : MK_RW,
			   strcmp(m->src, m->dest) == 0, 0);
		return 0;
	case LX_BIND_RO_TRY:
	case LX_BIND_RW_TRY:
		return inst_try(in, m);
	case LX_REMOUNT_RO:
		lx_add(in->out, m->kind, NULL, m->dest, 0, m->row);
		return 0;
	case LX_LAUNCH:
		return inst_launch(in, m->row);
	case LX_TMPFS:
		/*
		 * "@default tmp private": the one tmpfs a plan may name,
		 * the launcher's own (no row) at /tmp; sandbox.c makes it a
		 * directory of the launch's own.  Writable: no remount.
		 */
		if (m->row == LX_ROW_NONE && m->dest &&
		    strcmp(m->dest, "/tmp") == 0 &&
		    m->mode == LX_PRIVATE_TMP_MODE) {
			lx_add(in->out, m->kind, NULL, m->dest, m->mode,
			       m->row);
			push_mount(in, m->dest, MK_RW, false, 0);
			return 0;
		}
		return inst_error(in, "unexpected tmpfs mount of '%s' in the "
				  "artifact", m->dest ? m->dest : "");
	case LX_DIR:
	default:
		return inst_error(in, "unexpected %s mount of '%s' in the "
				  "artifact", m->kind == LX_DIR ? "directory" :
				  "tmpfs", m->dest ? m->dest : "");
	}
}

int linux_launch_instantiate(const struct lx_artifact *art,
			     const struct linux_launch_row *rows, size_t nrows,
			     struct linux_launch *out, char **err)
{
	struct inst in;
	size_t i;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	*err = NULL;
	memset(&in, 0, sizeof(in));
	in.rows = rows;
	in.nrows = nrows;
	in.out = &out->sandbox;
	in.row = LX_ROW_NONE;
	out->sandbox.flags = art->flags;
	for (i = 0; i < art->n && !in.err; i++)
		inst_mount(&in, &art->m[i]);
	if (in.err)
		goto out;
	if (!in.nm) {
		inst_error(&in, "the artifact mounts no root");
		goto out;
	}
	/* Only now: until here bubblewrap may need new mount points. */
	for (i = 0; i < in.nm; i++)
		if (in.m[i].remount)
			lx_add(in.out, LX_REMOUNT_RO, NULL, in.m[i].dest, 0,
			       LX_ROW_NONE);
	out->placeholders = in.placeholders.v;
	out->nplaceholders = in.placeholders.n;
	memset(&in.placeholders, 0, sizeof(in.placeholders));
	out->notes = in.notes;
	out->nnotes = in.nnotes;
	in.notes = NULL;
	in.nnotes = 0;
	out->creates = in.creates.v;
	out->ncreates = in.creates.n;
	memset(&in.creates, 0, sizeof(in.creates));
	ret = 0;
out:
	if (ret < 0) {
		*err = in.err ? in.err : xstrdup("cannot instantiate");
		linux_launch_release(out);
	} else {
		free(in.err);
	}
	strv_release(&in.placeholders);
	for (i = 0; i < in.nnotes; i++)
		free(in.notes[i].path);
	free(in.notes);
	strv_release(&in.creates);
	strv_release(&in.dirs);
	pathmap_release(&in.at);
	pathmap_release(&in.below);
	strv_release(&in.below_keys);
	for (i = 0; i < in.nm; i++)
		free(in.m[i].dest);
	free(in.m);
	return ret;
}

void linux_launch_release(struct linux_launch *launch)
{
	size_t i;

	if (!launch)
		return;
	lx_artifact_release(&launch->sandbox);
	for (i = 0; i < launch->nplaceholders; i++)
		free(launch->placeholders[i]);
	free(launch->placeholders);
	for (i = 0; i < launch->nnotes; i++)
		free(launch->notes[i].path);
	free(launch->notes);
	for (i = 0; i < launch->ncreates; i++)
		free(launch->creates[i]);
	free(launch->creates);
	memset(launch, 0, sizeof(*launch));
}
