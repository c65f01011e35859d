/* SPDX-License-Identifier: MIT */
/*
 * pin.c - granted host paths are pinned (pin.h).
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ir.h"
#include "linux_artifact.h"
#include "pin.h"
#include "plan.h"

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
 * Walk @path from "/" without following any link.  0 with *@st of the
 * last component; 1 when a component is missing; -1 with
 * *@link (the symlink's path, owned) when a component is a link; -2 with
 * errno on another error.
 */
static int walk(const char *path, struct stat *st, char **link)
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

static bool below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return path[0] == '/';
	return strncmp(path, dir, n) == 0 && (path[n] == '/' || !path[n]);
}

/*
 * Does a later mount replace mount @i's view (a tmpfs, /dev/null or
 * another tree at or above its destination)?  Its pin would then be
 * checked against the wrong file.
 */
static bool covered_later(const struct lx_artifact *lx, size_t i)
{
	const struct lx_mount *m = &lx->m[i], *o;
	size_t j;

	for (j = i + 1; j < lx->n; j++) {
		o = &lx->m[j];
		if (!o->dest || o->kind == LX_REMOUNT_RO || o->kind == LX_DIR ||
		    !below(m->dest, o->dest))
			continue;
		if (!lx_kind_is_bind(o->kind) || strcmp(o->src, o->dest) != 0)
			return true;
	}
	return false;
}

int pin_check(const struct plan *plan, const struct lx_artifact *lx,
	      struct pin **pins, size_t *npins, char **err)
{
	const struct lx_mount *m;
	struct stat st;
	char *link = NULL, *label, target[PATH_MAX];
	ssize_t n;
	size_t i;
	int rc;

	*pins = NULL;
	*npins = 0;
	for (i = 0; i < lx->n; i++) {
		m = &lx->m[i];
		if (m->row == LX_ROW_NONE || !lx_kind_is_bind(m->kind) ||
		    strcmp(m->src, "/dev/null") == 0)
			continue;
		rc = walk(m->src, &st, &link);
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
			free(*pins);
			*pins = NULL;
			return -1;
		}
		if (rc == -1) {
			label = row_label(plan, m->row);
			n = readlink(link, target, sizeof(target) - 1);
			target[n > 0 ? n : 0] = '\0';
			*err = xasprintf("%s: '%s' on the host is a symbolic "
					 "link (to '%s'): the mount would reach "
					 "what it points to, which the row "
					 "does not name; name the resolved "
					 "path in the rules (vboxc explain "
					 "--follow shows it); not starting",
					 label, link, target);
			free(label);
			free(link);
			free(*pins);
			*pins = NULL;
			return -1;
		}
		if (rc < 0) {
			label = row_label(plan, m->row);
			*err = xasprintf("%s: cannot inspect '%s' on the host: "
					 "%s; not starting", label, m->src,
					 strerror(errno));
			free(label);
			free(*pins);
			*pins = NULL;
			return -1;
		}
		if (covered_later(lx, i))
			continue;
		*pins = xreallocarray(*pins, *npins + 1, sizeof(**pins));
		(*pins)[*npins].dest = m->dest;
		(*pins)[*npins].dev = (uint64_t)st.st_dev;
		(*pins)[*npins].ino = (uint64_t)st.st_ino;
		(*npins)++;
	}
	return 0;
}
