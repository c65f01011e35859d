/* SPDX-License-Identifier: MIT */
/*
 * mounts_model.c - the coverage model of the mounts made so far
 * (mounts_int.h): which mount shows a path, pushing a mount and the
 * directories it needs, a mount of each kind, placeholders for missing
 * paths, the host notes, and the instantiation's first error.
 * mounts.c turns the plan's rows into mounts with these.
 */
#include <vbox.h>

#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grow.h"
#include "linux_artifact.h"
#include "mounts.h"
#include "mounts_int.h"
#include "pathmap.h"
#include "strv.h"

__printf(2, 3) int inst_error(struct inst *in, const char *fmt, ...)
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
const char *home_hint(const char *path, int err)
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

bool creation_granted(struct inst *in, const char *src)
{
	char *parent = xstrdup(src), *slash = strrchr(parent, '/');
	const struct mnt *e;
	struct stat st;
	bool ok;

	if (slash)
		*slash = '\0';
	/* Only where the user may make it: else it is the warning. */
	ok = parent[0] && stat(parent, &st) == 0 && S_ISDIR(st.st_mode) &&
	     access(parent, W_OK | X_OK) == 0;
	free(parent);
	if (ok)
		return true;
	e = enclosing(in, src);
	return e && e->kind == MK_RW;
}

/* Is @p an absolute path at or below @home (both clean)? */
static bool below_home(const char *home, const char *p)
{
	size_t n;

	if (!home || home[0] != '/' || !home[1])
		return false;
	n = strlen(home);
	while (n > 1 && home[n - 1] == '/')
		n--;
	return strncmp(home, p, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

bool creation_in_home(const char *src)
{
	const struct passwd *pw = getpwuid(geteuid());
	char *anc = xstrdup(src), *slash;
	struct stat st;
	bool ok = false;

	/* The deepest ancestor that exists: no symbolic link is followed. */
	for (;;) {
		slash = strrchr(anc, '/');
		if (!slash || slash == anc)
			goto out;
		*slash = '\0';
		if (lstat(anc, &st) == 0)
			break;
		if (errno != ENOENT)
			goto out;
	}
	/*
	 * Made inside the user's own home directory, in a directory the
	 * user owns: nothing the user could not make, and only the rw row's
	 * own root becomes writable in the sandbox (the parents made stay
	 * as read-only as the region that shows them).
	 */
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid())
		goto out;
	ok = below_home(getenv("HOME"), anc) ||
	     (pw && below_home(pw->pw_dir, anc));
out:
	free(anc);
	return ok;
}

/* Remember that row @row's effect at @path depended on the host. */
void host_note(struct inst *in, uint32_t row, const char *path,
	       const char *what, bool warn)
{
	struct linux_host_note *n;

	GROW(in->notes, in->notes_cap, in->nnotes + 1);
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

/*
 * Every strict ancestor of @dest has mount @idx below it (in->below).
 * The keys are prefixes of @dest, borrowed: @dest is the mount's own
 * copy, kept as long as the map.
 */
static void note_below(struct inst *in, const char *dest, size_t idx)
{
	const char *p;

	for (p = dest + 1; (p = strchr(p, '/')); p++)
		pathmap_put_max_len(&in->below, dest, (size_t)(p - dest), idx);
}

void push_mount(struct inst *in, const char *dest, enum mk kind,
		bool host, unsigned mode)
{
	size_t i;

	/*
	 * A tmpfs this mount covers is out of sight: leave it alone.  Only
	 * where something is mounted at or below @dest (the maps say so
	 * at once: most mounts of a large table cover nothing).
	 */
	if (strcmp(dest, "/") == 0 || pathmap_get(&in->at, dest, &i) ||
	    pathmap_get(&in->below, dest, &i))
		for (i = 0; i < in->nm; i++)
			if (in->m[i].remount &&
			    path_under(dest, in->m[i].dest))
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
	note_below(in, in->m[in->nm].dest, in->nm);
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
int mnt_prepare(struct inst *in, const char *dest, enum mk kind)
{
	struct strv anc = { 0 };
	struct mnt *e = enclosing(in, dest);
	unsigned mode;
	size_t i, seen;

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
			if (pathmap_get(&in->dir_set, anc.v[i], &seen))
				continue;
			lx_add(in->out, LX_DIR, NULL, anc.v[i], mode, in->row);
			strv_add(&in->dirs, anc.v[i]);
			pathmap_put_max(&in->dir_set,
					in->dirs.v[in->dirs.n - 1], 0);
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

/*
 * The mount just added to the list is on launch_path()'s path, which it
 * found no link at: its device and inode are known (struct linux_launch).
 */
static void note_host_id(struct inst *in, const char *path)
{
	const struct lx_mount *m = &in->out->m[in->out->n - 1];

	if (!in->cur_st || !in->cur_path || strcmp(path, in->cur_path) != 0)
		return;
	GROW(in->host_idv, in->host_ids_cap, in->nhost_ids + 1);
	in->host_idv[in->nhost_ids] = (struct linux_host_id){
		in->cur_st->st_dev, in->cur_st->st_ino,
	};
	pathmap_put_max(&in->host_ids, m->dest, in->nhost_ids++);
}

int mount_bind(struct inst *in, const char *path, enum mk kind)
{
	int ret = mnt_prepare(in, path, kind);

	if (ret)
		return ret < 0 ? -1 : 0;
	lx_add(in->out, kind == MK_RW ? LX_BIND_RW : LX_BIND_RO, path, path, 0,
	       in->row);
	note_host_id(in, path);
	push_mount(in, path, kind, true, 0);
	return 0;
}

int mount_tmpfs(struct inst *in, const char *path, enum mk kind,
		unsigned mode)
{
	int ret = mnt_prepare(in, path, kind);

	if (ret)
		return ret < 0 ? -1 : 0;
	lx_add(in->out, LX_TMPFS, NULL, path, mode, in->row);
	note_host_id(in, path);
	push_mount(in, path, kind, false, mode);
	return 0;
}

int mount_null(struct inst *in, const char *path)
{
	int ret = mnt_prepare(in, path, MK_DENY);

	if (ret)
		return ret < 0 ? -1 : 0;
	/*
	 * bubblewrap binds without devices (nodev): opening this character
	 * device fails with EACCES for reading and writing alike, and it
	 * is empty; it cannot be removed while mounted.
	 */
	lx_add(in->out, LX_BIND_RO, "/dev/null", path, 0, in->row);
	note_host_id(in, path);
	push_mount(in, path, MK_DENY, false, 0);
	return 0;
}

/* What the host has at a path that place_missing() looks at. */
enum host_kind {
	HOST_DIR = 1,
	HOST_NONDIR,
	HOST_MISSING,
};

/*
 * host_kind_of - what the host has at @p, looked at once per launch: the
 * rows of a large table share their ancestors, and each look is a path
 * walk in the kernel.  0 with *@kind, or -1 (inst_error()).
 */
static int host_kind_of(struct inst *in, const char *p, size_t *kind)
{
	struct stat st;

	if (pathmap_get(&in->host_seen, p, kind))
		return 0;
	if (stat(p, &st) == 0) {
		*kind = S_ISDIR(st.st_mode) ? HOST_DIR : HOST_NONDIR;
	} else if (errno != ENOENT) {
		return inst_error(in, "cannot inspect '%s': %s%s", p,
				  strerror(errno), home_hint(p, errno));
	} else if (lstat(p, &st) == 0) {
		return inst_error(in, "'%s' is a dangling symbolic link", p);
	} else {
		*kind = HOST_MISSING;
	}
	strv_add(&in->host_seen_keys, p);
	pathmap_put_max(&in->host_seen,
			in->host_seen_keys.v[in->host_seen_keys.n - 1], *kind);
	return 0;
}

/*
 * place_missing - @path (of a deny or ro row) does not exist on the host.
 * When the child could create its first missing component C, cover C:
 * with a placeholder tmpfs (an empty directory the launcher makes on the
 * host, mode 0111 when C is the denied path itself, else 0555), or with
 * /dev/null when C exists but is no directory (the child could replace it
 * by one).  The ancestors are looked at in one copy of @path, cut at each
 * '/' in turn (from "/a" down to @path itself).
 */
int place_missing(struct inst *in, const char *path, bool deny)
{
	char *buf = xstrdup(path), *c = NULL, *parent;
	size_t len = strlen(buf), cut, seen, kind;
	bool nondir = false;
	struct mnt *e;
	int ret = 0;

	for (cut = 1; cut <= len && !c; cut++) {
		bool last;

		if (cut < len && buf[cut] != '/')
			continue;
		last = cut == len;
		buf[cut] = '\0';
		if (pathmap_get(&in->placeholder_set, buf, &seen))
			goto out;
		/*
		 * A writable root the launcher creates will be a directory,
		 * writable: a hole at or below it needs its mount as if it
		 * existed (the root itself: an empty tmpfs over it).
		 */
		if (will_be_created(in, buf)) {
			if (!last) {
				buf[cut] = '/';
				continue;
			}
			ret = mount_tmpfs(in, path, MK_HOLLOW,
					  deny ? 0111 : 0555);
			goto out;
		}
		if (host_kind_of(in, buf, &kind) < 0) {
			ret = -1;
			goto out;
		}
		if (kind != HOST_DIR) {
			/* @buf stays cut here: it is C. */
			c = buf;
			nondir = kind == HOST_NONDIR;
			break;
		}
		if (!last)
			buf[cut] = '/';
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
	pathmap_put_max(&in->placeholder_set,
			in->placeholders.v[in->placeholders.n - 1], 0);
	host_note(in, in->row, path, "does not exist on the host: an empty "
		  "read-only placeholder keeps it absent for the child's "
		  "whole life", false);
	ret = mount_tmpfs(in, c, MK_HOLLOW,
			  deny && strcmp(c, path) == 0 ? 0111 : 0555);
out:
	free(buf);
	return ret;
}
