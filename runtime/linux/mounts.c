/* SPDX-License-Identifier: MIT */
/*
 * mounts.c - launch-class rows made into typed mounts against the host
 * file system (mounts.h).
 *
 * Owned here: the decision of which mount kind a matched host path gets
 * (a row decided above it mounts nothing), anchoring holes inside
 * writable regions, the plan's static mounts, and the instantiation as
 * a whole.  The coverage model of the mounts made so far (which mount
 * shows a path, placeholders) is mounts_model.c's; the glob walk is
 * glob.c's; bubblewrap's spelling is plan/linux_artifact.c's.
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
#include "mounts_int.h"
#include "fspath.h"
#include "pathmap.h"
#include "strv.h"
#include "target.h"

/*
 * Does a row tried before the launch row (its first @nabove rows by
 * priority, above.h) decide @path, and with @subtree everything below
 * it too?  Then that row's effect holds there, not this row's, and it
 * mounts nothing at @path: a `!ro: /a/s1` over a deny glob matching
 * /a/s1/f0 keeps that file readable, as explain says (the higher row is
 * absorbed, so no mount of its own would put the file back).  A mount on
 * a directory (or what a link leads to) shows its whole subtree, so a
 * row above that decides the directory alone (`rw: /a/d?` over a deny
 * of each directory in /a and all below it) does not excuse it:
 * skipping the mount there would show what explain denies below the
 * directory.
 */
static bool decided_above(const struct inst *in, size_t nabove,
			  const char *path, bool subtree)
{
	return above_decides(&in->above, nabove, path, subtree);
}

static int mount_found(struct inst *in, const struct linux_launch_row *r,
		       const char *path, bool subtree, bool literal,
		       struct stat *stp);

/*
 * launch_path - mount what row @r decides at @path, which the row matches
 * as a whole subtree (@subtree) or as that one path only.
 */
static int launch_path(struct inst *in, const struct linux_launch_row *r,
		       const char *path, bool subtree, bool literal)
{
	struct stat st;
	int ret;

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
	if (decided_above(in, r->nabove, path, S_ISDIR(st.st_mode) ||
						   S_ISLNK(st.st_mode)))
		return 0;
	/* A mount on @path itself: stat() of it says what lstat() did. */
	in->cur_path = path;
	in->cur_st = S_ISLNK(st.st_mode) ? NULL : &st;
	ret = mount_found(in, r, path, subtree, literal, &st);
	in->cur_path = NULL;
	in->cur_st = NULL;
	return ret;
}

/* launch_path()'s mount for what lstat() found at @path, *@stp. */
static int mount_found(struct inst *in, const struct linux_launch_row *r,
		       const char *path, bool subtree, bool literal,
		       struct stat *stp)
{
	struct stat st = *stp;

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
	char *text = NULL, *base = NULL, *msg;
	char **paths = NULL;
	size_t npaths = 0, i, nlit = 0, nbase, nmax;
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
	/* the rows before it, compiled once for every launch row */
	if (above_extend(&in->above, r->above, r->nabove, &msg) < 0) {
		inst_error(in, "row %u: %s", r->index, msg);
		free(msg);
		goto out;
	}
	while (nlit < (size_t)nsegs && segs[nlit].kind == SEG_LIT)
		nlit++;
	nbase = (size_t)nsegs;
	while (nbase > nlit && segs[nbase - 1].kind == SEG_STARSTAR)
		nbase--;
	if (nbase == nlit) {
		/* No wildcard but trailing "**": one subtree. */
		base = glob_prefix(r->pattern, nlit);
		ret = launch_path(in, r, base, true, true);
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
			if (kind == MK_RW && errno == ENOENT &&
			    creation_in_home(m->src)) {
				strv_add(&in->creates, m->src);
				host_note(in, m->row, m->src, "did not exist "
					  "on the host; it lies in the home "
					  "directory, so the launcher creates "
					  "it and its missing parents (mode "
					  "0700)", false);
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
	ret = mnt_prepare(in, m->dest, kind);
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
		return in->frame ? 0 : inst_launch(in, m->row);
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

int launch_stopped(const struct launch_stop *s)
{
	return s && s->stop ? s->stop(s->ctx) : 0;
}

static int instantiate(const struct lx_artifact *art,
		       const struct linux_launch_row *rows, size_t nrows,
		       bool frame, const struct launch_stop *stop,
		       struct linux_launch *out, char **err)
{
	struct inst in;
	size_t i;
	int ret = -1, sig;

	memset(out, 0, sizeof(*out));
	*err = NULL;
	memset(&in, 0, sizeof(in));
	in.rows = rows;
	in.nrows = nrows;
	in.frame = frame;
	in.out = &out->sandbox;
	in.row = LX_ROW_NONE;
	out->sandbox.flags = art->flags;
	for (i = 0; i < art->n && !in.err; i++) {
		/* a large table takes a while: a signal ends it promptly */
		if (i % LAUNCH_STOP_EVERY == LAUNCH_STOP_EVERY - 1 &&
		    (sig = launch_stopped(stop)) != 0) {
			inst_error(&in, "stopped by signal %d", sig);
			break;
		}
		inst_mount(&in, &art->m[i]);
	}
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
	out->host_ids = in.host_ids;
	out->host_idv = in.host_idv;
	out->nhost_ids = in.nhost_ids;
	memset(&in.host_ids, 0, sizeof(in.host_ids));
	in.host_idv = NULL;
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
	pathmap_release(&in.dir_set);
	pathmap_release(&in.placeholder_set);
	pathmap_release(&in.at);
	pathmap_release(&in.below);
	pathmap_release(&in.host_seen);
	strv_release(&in.host_seen_keys);
	above_release(&in.above);
	pathmap_release(&in.host_ids);
	free(in.host_idv);
	for (i = 0; i < in.nm; i++)
		free(in.m[i].dest);
	free(in.m);
	return ret;
}

int linux_launch_instantiate(const struct lx_artifact *art,
			     const struct linux_launch_row *rows, size_t nrows,
			     const struct launch_stop *stop,
			     struct linux_launch *out, char **err)
{
	return instantiate(art, rows, nrows, false, stop, out, err);
}

int linux_launch_instantiate_frame(const struct lx_artifact *art,
				   const struct launch_stop *stop,
				   struct linux_launch *out, char **err)
{
	return instantiate(art, NULL, 0, true, stop, out, err);
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
	pathmap_release(&launch->host_ids);
	free(launch->host_idv);
	memset(launch, 0, sizeof(*launch));
}
