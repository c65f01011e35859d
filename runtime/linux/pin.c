/* SPDX-License-Identifier: MIT */
/*
 * pin.c - granted host paths are pinned (pin.h): every row's mount is
 * walked on the host without following links; a link is followed only
 * where the table gives its target the mount's effect (follow.h), and
 * then the target is mounted instead.
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "follow.h"
#include "ir.h"
#include "linux_artifact.h"
#include "nolink.h"
#include "pathmap.h"
#include "pin.h"
#include "plan.h"
#include "strv.h"

/* The row's label for a message: "SOURCE: row N 'EFFECT:TARGET'". */
static char *row_label(const struct plan *plan, uint32_t row)
{
	const struct plan_row *r;
	size_t i;

	for (i = 0; i < plan->nfs; i++) {
		r = &plan->fs[i];
		if (r->index == row)
			return xasprintf("%s: row %u '%s:%s'", r->source,
					 r->index, effect_name(r->effect),
					 r->target);
	}
	return xasprintf("row %u", row);
}

/*
 * Walk @path from "/" one component at a time without following any
 * link (walk()'s slow path, which says which component is the link).
 */
static int walk_by_component(const char *path, struct stat *st, char **link)
{
	char buf[PATH_MAX], *p, *slash, *seg;
	int fd, next;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -2;
	}
	fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -2;
	for (p = buf + 1; *p; p = slash ? slash + 1 : p + strlen(p)) {
		slash = strchr(p, '/');
		if (slash)
			*slash = '\0';
		seg = p;
		if (!*seg) {
			if (!slash)
				break;
			continue;
		}
		next = openat(fd, seg, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			close(fd);
			return errno == ENOENT ? 1 : -2;
		}
		close(fd);
		fd = next;
		if (fstat(fd, st) < 0) {
			close(fd);
			return -2;
		}
		if (S_ISLNK(st->st_mode)) {
			close(fd);
			*link = xstrndup(buf, (size_t)(seg - buf) + strlen(seg));
			return -1;
		}
		if (slash)
			*slash = '/';
		else
			break;
	}
	if (fstat(fd, st) < 0) {
		close(fd);
		return -2;
	}
	close(fd);
	return 0;
}

/*
 * Walk @path from "/" without following any link.  0 with *@st of the
 * last component; 1 when a component is missing; -1 with
 * *@link (the symlink's path, owned) when a component is a link; -2 with
 * errno on another error.  The common case is one look: the parent,
 * resolved with no link, is kept in @pp for the next path in it (a
 * table's mounts come siblings together: 200 rows in one directory are
 * one walk to it and 200 fstatat() calls, not 200 openat2(), fstat()
 * and close()), and the last component is looked at from there without
 * following it.  A link, an error or a kernel without openat2 takes the
 * walk one component at a time, which also names the link.
 */
static int walk(const char *path, struct stat *st, char **link,
		struct nolink_parent *pp)
{
	char parent[PATH_MAX];
	const char *base;
	int fd, saved;

	base = nolink_split(path, parent);
	if (base) {
		fd = nolink_parent_fd(pp, parent);
		if (fd >= 0 && fstatat(fd, base, st, AT_SYMLINK_NOFOLLOW) == 0)
			return S_ISLNK(st->st_mode) ?
				       walk_by_component(path, st, link) : 0;
		if (errno == ENOENT)
			return 1;
		return walk_by_component(path, st, link);
	}
	fd = nolink_open(AT_FDCWD, path, 0, 0);
	if (fd >= 0) {
		if (fstat(fd, st) < 0) {
			saved = errno;
			close(fd);
			errno = saved;
			return -2;
		}
		close(fd);
		return 0;
	}
	if (errno == ENOENT && path[0] == '/')
		return 1;
	return walk_by_component(path, st, link);
}

static bool below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return path[0] == '/';
	return strncmp(path, dir, n) == 0 && (path[n] == '/' || !path[n]);
}

/* The mounts of bubblewrap's list and then the init's, as one list. */
struct mounts {
	struct lx_artifact *lx;
	struct lx_artifact *init;
	size_t n;
};

static struct lx_mount *mount_at(const struct mounts *ms, size_t k)
{
	return k < ms->lx->n ? &ms->lx->m[k] : &ms->init->m[k - ms->lx->n];
}

/*
 * Does a mount replace what is below its destination, so that a pin
 * checked there would look at the wrong file?  A tmpfs, /dev/null or a
 * bind of another tree does; a bind of a path onto itself shows the same
 * file, and a remount or a directory makes no mount of its own.
 */
static bool covers(const struct lx_mount *o)
{
	if (!o->dest || o->kind == LX_REMOUNT_RO || o->kind == LX_DIR)
		return false;
	return !lx_kind_is_bind(o->kind) || strcmp(o->src, o->dest) != 0;
}

/*
 * What the mount of a row touches on the host and what it gives there:
 * a bind its source (EFFECT_RO or EFFECT_RW by its kind), /dev/null or a
 * tmpfs its destination (the row's effect: a denied path, or an empty
 * placeholder of a read-only one).  NULL: nothing of the host, as for a
 * destination inside a tmpfs an earlier mount made (@tmpfs maps the
 * destinations of the tmpfs mounts before @i).
 */
static const char *host_side(const struct plan *plan, const struct mounts *ms,
			     size_t i, const struct pathmap *tmpfs,
			     uint8_t *effect, bool *is_bind)
{
	size_t j;

	const struct lx_mount *m = mount_at(ms, i);

	*is_bind = false;
	if (m->row == LX_ROW_NONE || !m->dest)
		return NULL;
	if (lx_kind_is_bind(m->kind) && strcmp(m->src, "/dev/null") != 0) {
		*is_bind = true;
		*effect = m->kind == LX_BIND_RW || m->kind == LX_BIND_RW_TRY ?
				  EFFECT_RW : EFFECT_RO;
		return m->src;
	}
	if (!lx_kind_is_bind(m->kind) && m->kind != LX_TMPFS)
		return NULL;
	if (pathmap_any_strictly_above(tmpfs, m->dest, &j))
		return NULL;
	*effect = EFFECT_DENY;
	if (m->kind == LX_TMPFS && m->row < plan->nfs &&
	    plan->fs[m->row].effect == EFFECT_RO)
		*effect = EFFECT_RO;
	return m->dest;
}

/* The launcher's own mounts the resolved @path must keep clear of. */
static const char *own_mount_in_the_way(const struct mounts *ms, size_t i,
					const char *path)
{
	const struct lx_mount *o;
	size_t j;

	for (j = 0; j < ms->n; j++) {
		o = mount_at(ms, j);
		/* A remount or a directory makes no mount of its own. */
		if (o->row != LX_ROW_NONE || !o->dest ||
		    o->kind == LX_REMOUNT_RO || o->kind == LX_DIR ||
		    strcmp(o->dest, "/") == 0)
			continue;
		if (below(path, o->dest) || (j < i && below(o->dest, path)))
			return o->dest;
	}
	return NULL;
}

/* "row N 'EFFECT:TARGET'" or "no row: the default" (for messages). */
static char *decider_text(const struct plan *plan, uint32_t row)
{
	char *label, *text;

	if (row == UINT32_MAX)
		return xstrdup("no row matches there: the default decides");
	label = row_label(plan, row);
	text = xasprintf("%s decides", label);
	free(label);
	return text;
}

/*
 * Mount @i's host path @path runs through the symbolic link @link: move
 * the mount to the resolved path when the table gives that path the
 * mount's @effect, else refuse.  0, or -1 with *@err.
 */
static int follow_link(const struct plan *plan, struct follow_view **view,
		       const struct mounts *ms, size_t i, const char *path,
		       const char *link, uint8_t effect, bool is_bind,
		       struct pin *pin, struct strv *followed,
		       struct nolink_parent *pp, char **err)
{
	struct lx_mount *m = mount_at(ms, i), *o;
	char target[PATH_MAX], real[PATH_MAX], *label, *why, *again = NULL;
	const char *own;
	struct stat st;
	uint32_t decider;
	uint8_t got;
	bool below;
	ssize_t n;
	size_t j;
	int rc;

	label = row_label(plan, m->row);
	n = readlink(link, target, sizeof(target) - 1);
	target[n > 0 ? n : 0] = '\0';
	/*
	 * Only a bind of a path onto itself can move to the resolved path;
	 * the launcher makes no other kind for a row, but if it ever did,
	 * refuse rather than guess where the destination should go.
	 */
	if (is_bind && strcmp(m->src, m->dest) != 0) {
		*err = xasprintf("%s: '%s' on the host is a symbolic link (to "
				 "'%s') under a bind of '%s' onto '%s'; not "
				 "starting", label, link, target, m->src,
				 m->dest);
		free(label);
		return -1;
	}
	/* realpath() gives up after a bounded number of links (ELOOP). */
	if (!realpath(path, real)) {
		*err = xasprintf("%s: '%s' on the host is a symbolic link (to "
				 "'%s') and '%s' does not resolve: %s; not "
				 "starting", label, link, target, path,
				 strerror(errno));
		free(label);
		return -1;
	}
	rc = walk(real, &st, &again, pp);
	if (rc != 0) {
		*err = xasprintf("%s: '%s' on the host is a symbolic link (to "
				 "'%s'); its resolution '%s' changed while it "
				 "was checked; not starting", label, link,
				 target, real);
		free(again);
		free(label);
		return -1;
	}
	own = own_mount_in_the_way(ms, i, real);
	if (own) {
		*err = xasprintf("%s: '%s' on the host is a symbolic link (to "
				 "'%s'): the mount would land on '%s', where "
				 "the launcher mounts '%s' itself; name a path "
				 "that is no link; not starting", label, link,
				 target, real, own);
		free(label);
		return -1;
	}
	if (!*view) {
		*view = follow_view_new(plan, err);
		if (!*view) {
			free(label);
			return -1;
		}
	}
	if (!follow_same_effect(*view, real, effect, &decider, &got,
				&below)) {
		why = decider_text(plan, decider);
		*err = xasprintf("%s: '%s' on the host is a symbolic link (to "
				 "'%s'): the mount would land on '%s' and "
				 "give %s to it and everything below, but the "
				 "table gives %s%s (%s); name the resolved path "
				 "in the rules (vboxc explain --follow shows "
				 "it) or remove the link; not starting", label,
				 link, target, real, effect_name(effect),
				 below ? "part of it " : "it ",
				 effect_name(got), why);
		free(why);
		free(label);
		return -1;
	}
	strv_push(followed, xasprintf("%s: '%s' is a symbolic link (to '%s'): "
				      "mounted at '%s', which the table gives "
				      "%s too", label, link, target, real,
				      effect_name(effect)));
	free(label);
	if (is_bind) {
		free(m->src);
		m->src = xstrdup(real);
		pin->dev = (uint64_t)st.st_dev;
		pin->ino = (uint64_t)st.st_ino;
	}
	/* The read-only remounts of this mount move with it. */
	for (j = i + 1; j < ms->n; j++) {
		o = mount_at(ms, j);
		if (o->kind == LX_REMOUNT_RO && strcmp(o->dest, m->dest) == 0) {
			free(o->dest);
			o->dest = xstrdup(real);
		}
	}
	free(m->dest);
	m->dest = xstrdup(real);
	return 0;
}

int pin_check(const struct plan *plan, struct lx_artifact *lx,
	      struct lx_artifact *init, struct pin **pins, size_t *npins,
	      struct strv *followed, char **err)
{
	struct mounts ms = { lx, init, lx->n + init->n };
	struct pathmap tmpfs = { 0 }, covering = { 0 }, hiding = { 0 };
	struct nolink_parent pp = NOLINK_PARENT_INIT;
	struct follow_view *view = NULL;
	struct lx_mount *m;
	struct pin *found;
	struct stat st;
	const char *path;
	char *link = NULL, *label;
	uint8_t effect = EFFECT_DENY;
	bool is_bind, *pinned, *recheck;
	size_t i, j, n;
	int rc, ret = -1;

	*pins = NULL;
	*npins = 0;
	found = xcalloc(ms.n ? ms.n : 1, sizeof(*found));
	pinned = xcalloc(ms.n ? ms.n : 1, sizeof(*pinned));
	recheck = xcalloc(ms.n ? ms.n : 1, sizeof(*recheck));
	/* First every walk (and move), then the pins of the final list. */
	for (i = 0; i < ms.n; i++) {
		m = mount_at(&ms, i);
		path = host_side(plan, &ms, i, &tmpfs, &effect, &is_bind);
		if (!path)
			goto next;
		rc = walk(path, &st, &link, &pp);
		if (rc == -1) {
			rc = follow_link(plan, &view, &ms, i, path, link,
					 effect, is_bind, &found[i], followed,
					 &pp, err);
			free(link);
			link = NULL;
			if (rc < 0)
				goto out;
			pinned[i] = is_bind;
			goto next;
		}
		if (!is_bind)
			/*
			 * A denied path that is missing gets a placeholder;
			 * one this uid cannot reach is out of the child's
			 * reach too.
			 */
			goto next;
		if (rc == 1) {
			/*
			 * Missing now, though the instantiation saw it (a
			 * try bind with no source was dropped there): the
			 * host changed, and what appears there next could
			 * be a link bubblewrap would follow.
			 */
			label = row_label(plan, m->row);
			*err = xasprintf("%s: '%s' disappeared from the host "
					 "after the plan was instantiated; not "
					 "starting", label, m->src);
			free(label);
			goto out;
		}
		if (rc < 0) {
			label = row_label(plan, m->row);
			*err = xasprintf("%s: cannot inspect '%s' on the host: "
					 "%s; not starting", label, m->src,
					 strerror(errno));
			free(label);
			goto out;
		}
		found[i].dev = (uint64_t)st.st_dev;
		found[i].ino = (uint64_t)st.st_ino;
		pinned[i] = true;
next:
		/* After a move: the map borrows the final destination. */
		if (m->kind == LX_TMPFS && m->dest)
			pathmap_put_max(&tmpfs, m->dest, i);
	}
	/*
	 * A pin a later mount covers would be checked on the wrong file.  A
	 * /dev/null cover that any later mount hides, even a bind of the
	 * same path (a higher row's glob match granting the file back), is
	 * no longer what its path shows: a remount there would make that
	 * later mount read-only instead.
	 */
	for (i = ms.n; i-- > 0;) {
		m = mount_at(&ms, i);
		recheck[i] = m->row != LX_ROW_NONE && m->dest &&
			     lx_kind_is_bind(m->kind) &&
			     strcmp(m->src, "/dev/null") == 0 &&
			     !pathmap_last_above(&hiding, m->dest, &j);
		if (pinned[i] && pathmap_last_above(&covering, m->dest, &j))
			pinned[i] = false;
		if (covers(m))
			pathmap_put_max(&covering, m->dest, i);
		if (m->dest && m->kind != LX_REMOUNT_RO && m->kind != LX_DIR)
			pathmap_put_max(&hiding, m->dest, i);
	}
	*pins = xcalloc(ms.n ? ms.n : 1, sizeof(**pins));
	for (i = 0; i < ms.n; i++) {
		if (!pinned[i])
			continue;
		(*pins)[*npins] = found[i];
		(*pins)[*npins].dest = mount_at(&ms, i)->dest;
		(*npins)++;
	}
	/*
	 * A /dev/null over a denied file gets a read-only remount at the
	 * end, which the sandbox's init makes on the path resolved with no
	 * link and which must be a mount's root: a cover bubblewrap made by
	 * path and a link carried elsewhere stops the launch (a tmpfs cover
	 * has its remount already).  Appended last: @ms stays valid above.
	 */
	for (i = 0, n = ms.n; i < n; i++) {
		if (!recheck[i])
			continue;
		m = mount_at(&ms, i);
		lx_add(init->n ? init : lx, LX_REMOUNT_RO, NULL, m->dest, 0,
		       m->row);
	}
	ret = 0;
out:
	nolink_parent_close(&pp);
	pathmap_release(&tmpfs);
	pathmap_release(&covering);
	pathmap_release(&hiding);
	if (ret < 0) {
		free(*pins);
		*pins = NULL;
		*npins = 0;
	}
	follow_view_free(view);
	free(recheck);
	free(pinned);
	free(found);
	return ret;
}
