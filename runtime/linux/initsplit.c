/* SPDX-License-Identifier: MIT */
/*
 * initsplit.c - which of the sandbox's mounts the init makes itself
 * (sandbox.h: sandbox_split_init_mounts(); doc/launcher.md, "Mounts in
 * the init"): the longest tail of the list whose mounts the init can
 * make with the new mount API and whose order against bubblewrap's own
 * mounts does not matter; the host's device nodes kept read-only.
 */
#include <vbox.h>

#include <string.h>
#include <sys/stat.h>

#include "linux_artifact.h"
#include "pathmap.h"
#include "sandbox.h"

/*
 * The mount before @i that shows @path (the last one at or above it):
 * @shown maps the destinations of mounts 0..i-1 that show something (a
 * remount or a directory changes nothing that is shown) to their index.
 */
static const struct lx_mount *shown_by(const struct lx_artifact *a,
				       const struct pathmap *shown,
				       const char *path)
{
	size_t j;

	return pathmap_last_above(shown, path, &j) ? &a->m[j] : NULL;
}

static bool same_path_bind(const struct lx_mount *m)
{
	return m && lx_kind_is_bind(m->kind) && strcmp(m->src, m->dest) == 0;
}

/* Is any host mount point strictly below @dir?  (@v sorted by strcmp.) */
static bool host_mount_below(char *const *v, size_t n, const char *dir)
{
	size_t lo = 0, hi = n, klen;
	char *key;
	bool below;

	if (strcmp(dir, "/") == 0)
		return n > 1 || (n == 1 && strcmp(v[0], "/") != 0);
	/* Those below DIR start with "DIR/" and sort together: find the
	 * first entry not before it. */
	key = xasprintf("%s/", dir);
	klen = strlen(key);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(v[mid], key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	below = lo < n && strncmp(v[lo], key, klen) == 0;
	free(key);
	return below;
}

/*
 * Can the init make mount @i, after mounts 0..i-1, exactly as bubblewrap
 * would?  bubblewrap takes a bind's source from the host; the init sees
 * it through the sandbox, which shows the same thing only where the
 * source is inside a bind of the same host path (or is bubblewrap's own
 * /dev/null).  A writable bind shown through a read-only one is made
 * writable at its top, which is all bubblewrap's bind is: only where no
 * host mount lies below it (bubblewrap would carry those with the
 * host's flags, the init's clone has the read-only ones of the sandbox).
 */
static bool init_can_mount(const struct sandbox *sa, size_t i,
			   const struct pathmap *shown)
{
	const struct lx_artifact *a = &sa->lx;
	const struct lx_mount *m = &a->m[i], *e;

	switch ((enum lx_kind)m->kind) {
	case LX_TMPFS:
	case LX_DIR:
	case LX_REMOUNT_RO:
		return true;
	case LX_BIND_RO:
	case LX_BIND_RW:
	case LX_BIND_RO_TRY:
	case LX_BIND_RW_TRY:
		e = shown_by(a, shown, m->src);
		if (strcmp(m->src, "/dev/null") == 0)
			return e && e->kind == LX_DEV &&
			       strcmp(e->dest, "/dev") == 0;
		/*
		 * The kernel-state wall's read-only binds of /proc files
		 * onto themselves: the sandbox's own proc shows them.
		 */
		if (e && e->kind == LX_PROC && strcmp(e->dest, "/proc") == 0)
			return strcmp(m->src, m->dest) == 0 &&
			       (m->kind == LX_BIND_RO ||
				m->kind == LX_BIND_RO_TRY);
		if (strcmp(m->src, m->dest) != 0 || !same_path_bind(e))
			return false;
		if (m->kind == LX_BIND_RW || m->kind == LX_BIND_RW_TRY)
			return e->kind == LX_BIND_RW ||
			       e->kind == LX_BIND_RW_TRY ||
			       !host_mount_below(sa->host_mounts,
						 sa->nhost_mounts, m->src);
		return true;
	case LX_DEV:
	case LX_PROC:
	case LX_LAUNCH:
	default:
		return false;
	}
}

/* Is @path @dir or below it?  (Both normalized and absolute.) */
static bool at_or_below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1)
		return true;
	return strncmp(path, dir, n) == 0 && (!path[n] || path[n] == '/');
}

/* The host device nodes bubblewrap's --dev binds (its devnodes[]). */
static const char *const dev_nodes[] = {
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
	"/dev/tty",
};

/*
 * Can the init make the --dev or --proc mount @i (after mounts 0..i-1)
 * exactly as bubblewrap would?  The init sees host files only through
 * the sandbox: the device nodes (and the terminal @tty, bubblewrap's
 * /dev/console) must be shown by binds of the same host paths, and a new
 * procfs may be mounted in a user namespace only where the host's proc
 * is fully visible (a bind of it, nothing mounted below /proc yet).
 */
static bool init_can_make(const struct lx_artifact *a, size_t i,
			  const struct pathmap *shown, const char *tty)
{
	const struct lx_mount *m = &a->m[i];
	size_t j;

	if (m->kind == LX_DEV) {
		for (j = 0; j < array_size(dev_nodes); j++)
			if (!same_path_bind(shown_by(a, shown, dev_nodes[j])))
				return false;
		return !tty || same_path_bind(shown_by(a, shown, tty));
	}
	if (m->kind != LX_PROC || strcmp(m->dest, "/proc") != 0 ||
	    !same_path_bind(shown_by(a, shown, "/proc")))
		return false;
	for (j = 0; j < i; j++)
		if (a->m[j].dest && strcmp(a->m[j].dest, "/proc") != 0 &&
		    at_or_below(a->m[j].dest, "/proc"))
			return false;
	return true;
}

/*
 * May mount @i move behind mounts i+1..@start-1 (which stay with
 * bubblewrap)?  Only when none of them mounts at, below or above its
 * destination: then the two orders build the same tree.
 */
static bool commutes(const struct lx_artifact *a, size_t i, size_t start)
{
	const char *d = a->m[i].dest;
	size_t j;

	for (j = i + 1; j < start; j++) {
		const char *e = a->m[j].dest;

		if (e && (at_or_below(e, d) || at_or_below(d, e)))
			return false;
	}
	return true;
}

/*
 * bubblewrap's own --dev binds the host's device nodes writable: a child
 * that owns them (root's, mapped to root) could chmod, chown or touch
 * the host's /dev/null.  Each node is remounted read-only after it (a
 * read-only mount still opens a device for writing, but refuses every
 * metadata change, EROFS) by the init, which keeps the node usable
 * (bubblewrap's --remount-ro would add nodev).  The init's own --dev
 * makes its nodes read-only already.
 */
static void dev_nodes_read_only(struct sandbox *sa, const char *tty1)
{
	struct lx_artifact *to = &sa->init_mounts;
	char *path;
	size_t i, j, n = sa->lx.n;

	for (i = 0; i < n; i++) {
		if (sa->lx.m[i].kind != LX_DEV)
			continue;
		for (j = 0; j < array_size(dev_nodes); j++) {
			path = xasprintf("%s%s", sa->lx.m[i].dest,
					 dev_nodes[j] + strlen("/dev"));
			lx_add(to, LX_REMOUNT_RO, NULL, path, 0, LX_ROW_NONE);
			free(path);
		}
		if (tty1) {
			path = xasprintf("%s/console", sa->lx.m[i].dest);
			lx_add(to, LX_REMOUNT_RO, NULL, path, 0, LX_ROW_NONE);
			free(path);
		}
	}
}

/*
 * Is mount @i (of those the init makes: @in_init) the read-only remount
 * pin_check() appends after a /dev/null cover, where that cover is the
 * init's too and is what its path shows at that point?  The init clones
 * such a cover read-only before it attaches it, onto an fd of its mount
 * point reached with no symbolic link, and checks right after that the
 * path, resolved again with no link, shows the cover
 * (runtime/init/mounts.c, attach_cover()): the remount would set no
 * flag and repeat that check, one path walk and a mount_setattr() per
 * denied file.  A cover bubblewrap made by path keeps its remount, the
 * only check it gets.  @shown maps the destinations of mounts 0..i-1
 * that show something to their index.
 */
static bool cover_checked_already(const struct lx_artifact *a, size_t i,
				  const bool *in_init,
				  const struct pathmap *shown)
{
	const struct lx_mount *m = &a->m[i], *c;
	size_t j;

	if (m->kind != LX_REMOUNT_RO || m->row == LX_ROW_NONE || !in_init[i] ||
	    !pathmap_last_above(shown, m->dest, &j) || !in_init[j])
		return false;
	c = &a->m[j];
	return c->kind == LX_BIND_RO && c->row == m->row &&
	       strcmp(c->src, "/dev/null") == 0 &&
	       strcmp(c->dest, m->dest) == 0;
}

void sandbox_split_init_mounts(struct sandbox *sa, const char *tty,
			       const char *tty1)
{
	struct pathmap shown = { 0 };
	struct lx_artifact *a = &sa->lx;
	size_t start = a->n, i, k;
	bool *ok, *make, dev_kept = false;

	ok = xcalloc(a->n ? a->n : 1, sizeof(*ok));
	make = xcalloc(a->n ? a->n : 1, sizeof(*make));
	for (i = 0; i < a->n; i++) {
		const struct lx_mount *m = &a->m[i];

		ok[i] = init_can_mount(sa, i, &shown);
		make[i] = init_can_make(a, i, &shown, tty);
		if (m->dest && m->kind != LX_REMOUNT_RO && m->kind != LX_DIR)
			pathmap_put_max(&shown, m->dest, i);
	}
	pathmap_release(&shown);
	while (start > 0 && ok[start - 1])
		start--;
	/*
	 * bubblewrap's --dev and --proc before that tail move to the init
	 * too, ahead of it, where they commute with what stays: --dev alone
	 * costs bubblewrap six binds, each with a read of the whole mount
	 * table, about 0.8 ms (bench/README.md).
	 */
	for (i = 0; i < start; i++)
		make[i] = make[i] && commutes(a, i, start);
	for (i = 0, k = 0; i < start; i++)
		k += make[i];
	/* (bubblewrap's --dev always gives the init its remounts.) */
	for (i = 0; i < start && !dev_kept; i++)
		dev_kept = a->m[i].kind == LX_DEV && !make[i];
	if (a->n - start + k < SANDBOX_INIT_MOUNTS_MIN && !dev_kept) {
		free(ok);
		free(make);
		return;
	}
	/* From here on @ok says which mounts the init makes. */
	for (i = 0; i < a->n; i++)
		ok[i] = i >= start || make[i];
	for (i = 0; i < a->n; i++) {
		const struct lx_mount *m = &a->m[i];

		if (ok[i] && !cover_checked_already(a, i, ok, &shown))
			lx_add(&sa->init_mounts, m->kind,
			       m->kind == LX_DEV ? tty : m->src, m->dest,
			       m->mode, m->row);
		if (m->dest && m->kind != LX_REMOUNT_RO && m->kind != LX_DIR)
			pathmap_put_max(&shown, m->dest, i);
	}
	pathmap_release(&shown);
	for (i = 0, k = 0; i < a->n; i++) {
		if (i >= start || make[i]) {
			free(a->m[i].src);
			free(a->m[i].dest);
		} else {
			a->m[k++] = a->m[i];
		}
	}
	a->n = k;
	free(ok);
	free(make);
	a->flags &= ~(uint32_t)(LX_CAP_DROP_ALL | LX_DISABLE_USERNS);
	a->flags |= LX_UID_0 | LX_CAP_ADD_ALL;
	dev_nodes_read_only(sa, tty1);
}
