/* SPDX-License-Identifier: MIT */
/*
 * walls.c - prepare the walls in vbox-exec (walls.h); the sandbox's init
 * applies them with walls_apply.c.
 */
#include <vbox.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "container_rules.h"
#include "landlock.h"
#include "linux_artifact.h"
#include "pin.h"
#include "seccomp.h"
#include "walls.h"


struct paths {
	char **v;
	size_t n;
};

static void paths_add(struct paths *p, const char *s)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (strcmp(p->v[i], s) == 0)
			return;
	p->v = xreallocarray(p->v, p->n + 1, sizeof(*p->v));
	p->v[p->n++] = xstrdup(s);
}

static void paths_free(struct paths *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		free(p->v[i]);
	free(p->v);
}

/*
 * "--bind / /" (write rw): every top-level entry but /proc, /sys and
 * /dev (which has its own rule), so Landlock still keeps the kernel's
 * files read-only under the mounts.  A new entry directly in / is then
 * refused, which is the price of that second wall.
 */
static int add_root_entries(struct paths *p)
{
	struct dirent *de;
	char path[300];
	DIR *d = opendir("/");
	size_t seen = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)) != NULL && seen++ < WALLS_PATHS_MAX) {
		if (de->d_name[0] == '.' && (!de->d_name[1] ||
		    (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		if (strcmp(de->d_name, "proc") == 0 ||
		    strcmp(de->d_name, "sys") == 0 ||
		    strcmp(de->d_name, "dev") == 0)
			continue;
		if (snprintf(path, sizeof(path), "/%s", de->d_name) >=
		    (int)sizeof(path))
			continue;
		paths_add(p, path);
	}
	closedir(d);
	return 0;
}

/* The writable regions of sandbox @a, as the sandbox names them. */
static int writable_paths(const struct lx_artifact *a, struct paths *p)
{
	const struct lx_mount *m;
	struct stat st;
	size_t i;

	paths_add(p, "/dev");
	for (i = 0; i < a->n; i++) {
		m = &a->m[i];
		if (m->kind != LX_BIND_RW && m->kind != LX_BIND_RW_TRY)
			continue;
		if (m->kind == LX_BIND_RW_TRY && stat(m->src, &st) < 0)
			continue;
		if (strcmp(m->dest, "/") == 0) {
			if (add_root_entries(p) < 0)
				return -1;
		} else if (strncmp(m->dest, "/proc", 5) != 0 &&
			   strncmp(m->dest, "/sys", 4) != 0) {
			paths_add(p, m->dest);
		}
	}
	return p->n > WALLS_PATHS_MAX ? -1 : 0;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Append @len bytes of @src at *@at. */
static char *put(char *at, const void *src, size_t len)
{
	if (len)
		memcpy(at, src, len);
	return at + len;
}

/*
 * Write the blob for @w into a sealed memfd (@w->fd): the head with
 * @flags, @filter, the Landlock @paths, the @pins, the container
 * @rules.  The blob is put together in memory and written at once: a
 * write per path and per pin cost two system calls a launch row.  0, or
 * -1 with *@err.
 */
static int write_blob(struct walls *w, uint32_t flags,
		      const struct seccomp_prog *filter,
		      const struct paths *p, const struct pin *pins,
		      size_t npins, const struct container_rules *cr,
		      uint32_t abi_max, char **err)
{
	struct walls_blob_head h;
	size_t i, plen = 0, rlen = 0, total;
	char *buf = NULL, *at;
	int fd = -1;

	for (i = 0; i < p->n; i++)
		plen += strlen(p->v[i]) + 1;
	for (i = 0; cr && i < cr->nrules; i++)
		rlen += sizeof(struct walls_rule_head) +
			strlen(cr->rules[i].path) + 1;
	memset(&h, 0, sizeof(h));
	h.magic = WALLS_MAGIC;
	h.version = WALLS_VERSION;
	h.flags = flags;
	h.filter_len = (uint32_t)filter->len;
	h.npaths = (uint32_t)p->n;
	h.paths_len = (uint32_t)plen;
	h.npins = (uint32_t)npins;
	for (i = 0; i < npins; i++)
		h.pins_len += (uint32_t)(sizeof(struct walls_pin_head) +
					 strlen(pins[i].dest) + 1);
	h.nrules = cr ? (uint32_t)cr->nrules : 0;
	h.rules_len = (uint32_t)rlen;
	h.abi_max = abi_max;
	total = sizeof(h) + filter->len + plen + h.pins_len + rlen;
	if (total > WALLS_BLOB_MAX) {
		*err = xstrdup("the sandbox's walls would pass their size "
			       "bound");
		return -1;
	}
	buf = xmalloc(total);
	at = put(buf, &h, sizeof(h));
	at = put(at, filter->insns, filter->len);
	for (i = 0; i < p->n; i++)
		at = put(at, p->v[i], strlen(p->v[i]) + 1);
	for (i = 0; i < npins; i++) {
		struct walls_pin_head ph = { pins[i].dev, pins[i].ino };

		at = put(at, &ph, sizeof(ph));
		at = put(at, pins[i].dest, strlen(pins[i].dest) + 1);
	}
	for (i = 0; cr && i < cr->nrules; i++) {
		struct walls_rule_head rh = { cr->rules[i].rights,
					      cr->rules[i].listed, 0 };

		at = put(at, &rh, sizeof(rh));
		at = put(at, cr->rules[i].path,
			 strlen(cr->rules[i].path) + 1);
	}
	if ((size_t)(at - buf) != total)
		BUG("walls blob: %zu of %zu bytes", (size_t)(at - buf),
		    total);
	fd = memfd_create("vbox-walls", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0 || write_all(fd, buf, total) < 0)
		goto io;
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW |
		  F_SEAL_WRITE | F_SEAL_SEAL) < 0 || lseek(fd, 0, SEEK_SET) != 0)
		goto io;
	free(buf);
	w->fd = fd;
	return 0;
io:
	*err = xasprintf("cannot write the walls for the sandbox: %s",
			 strerror(errno ? errno : EIO));
	free(buf);
	if (fd >= 0)
		close(fd);
	return -1;
}

int walls_prepare(const struct lx_artifact *lx, bool net_open,
		  enum walls_paths which, const struct pin *pins,
		  size_t npins, struct walls *w, char **err)
{
	bool paths = which != WALLS_PATHS_NONE;
	bool ro = which == WALLS_PATHS_WRITES;
	struct seccomp_prog filter;
	struct paths p = { 0 };
	bool have_notify;
	int rc;

	memset(w, 0, sizeof(*w));
	w->fd = -1;
	have_notify = seccomp_notify_available();
	w->landlock_abi = landlock_abi();
	if (net_open) {
		/*
		 * Pathname sockets are open.  Abstract ones are the host's
		 * (no network namespace): connecting to one is scoped by
		 * Landlock 6, else refused by the supervisor; binding one
		 * (a name a host client would then reach: X11's) is
		 * supervised in any case, as Landlock's scope covers
		 * connecting only.
		 */
		w->pathname_open = true;
		w->notify = true;
		w->refuse_abstract = w->landlock_abi < 6;
		w->bind_only = !w->refuse_abstract;
	} else {
		w->notify = true;
	}
	if (paths && !have_notify) {
		*err = xstrdup("the plan has rows that land supervised, and "
			       "this kernel has no seccomp user notification "
			       "to judge path calls with");
		return -1;
	}
	w->paths = paths;
	w->paths_writes = ro;
	if (w->notify && !have_notify) {
		/* No user notification: no AF_UNIX socket() at all. */
		w->notify = false;
		w->no_unix = true;
	}
	if (ro && w->bind_only) {
		filter.insns = (void *)seccomp_bpf_supervised_bind_paths_ro;
		filter.len = seccomp_bpf_supervised_bind_paths_ro_len;
	} else if (ro) {
		filter.insns = (void *)seccomp_bpf_supervised_paths_ro;
		filter.len = seccomp_bpf_supervised_paths_ro_len;
	} else if (paths && w->bind_only) {
		filter.insns = (void *)seccomp_bpf_supervised_bind_paths;
		filter.len = seccomp_bpf_supervised_bind_paths_len;
	} else if (paths) {
		filter.insns = (void *)seccomp_bpf_supervised_paths;
		filter.len = seccomp_bpf_supervised_paths_len;
	} else if (w->notify && w->bind_only) {
		filter.insns = (void *)seccomp_bpf_supervised_bind;
		filter.len = seccomp_bpf_supervised_bind_len;
	} else if (w->notify && w->pathname_open) {
		filter.insns = (void *)seccomp_bpf_supervised_open;
		filter.len = seccomp_bpf_supervised_open_len;
	} else if (w->notify) {
		filter.insns = (void *)seccomp_bpf_supervised;
		filter.len = seccomp_bpf_supervised_len;
	} else if (w->no_unix) {
		filter.insns = (void *)seccomp_bpf_deny_nounix;
		filter.len = seccomp_bpf_deny_nounix_len;
	} else {
		filter.insns = (void *)seccomp_bpf_deny;
		filter.len = seccomp_bpf_deny_len;
	}
	if (writable_paths(lx, &p) < 0) {
		*err = xstrdup("landlock: cannot list the writable regions");
		paths_free(&p);
		return -1;
	}
	w->nwritable = p.n;
	/*
	 * Calls newer than the filter can name (fchmodat2, setxattrat,
	 * file_setattr...) would reach a judged file unjudged, and
	 * fchmodat2 would set a set-id bit the filter refuses to chmod:
	 * ENOSYS, and the C library falls back to the older calls.
	 * Supervised paths: no core dump either, which the kernel writes
	 * into the working directory without a call the supervisor sees
	 * (a `core` in a supervised read-only or denied directory): the
	 * hard limit is 0 for the whole tree.
	 */
	rc = write_blob(w, (w->notify ? WALLS_NOTIFY : 0) | WALLS_NEWER |
			(paths ? WALLS_NO_CORE : 0) |
			(w->landlock_abi > 0 ? WALLS_LANDLOCK : 0),
			&filter, &p, pins, npins, NULL, 0, err);
	paths_free(&p);
	return rc;
}

int walls_prepare_container(const struct container_rules *cr, bool net_open,
			    int abi, bool no_getfd, bool paths,
			    struct walls *w, char **err)
{
	static const struct {
		const unsigned char *insns;
		const size_t *len;
	} filters[2][2] = {
		{ { seccomp_bpf_container, &seccomp_bpf_container_len },
		  { seccomp_bpf_container_paths,
		    &seccomp_bpf_container_paths_len } },
		{ { seccomp_bpf_container_nogetfd,
		    &seccomp_bpf_container_nogetfd_len },
		  { seccomp_bpf_container_nogetfd_paths,
		    &seccomp_bpf_container_nogetfd_paths_len } },
	};
	struct seccomp_prog filter;
	struct paths none = { 0 };

	memset(w, 0, sizeof(*w));
	w->fd = -1;
	w->container = true;
	w->landlock_abi = abi;
	w->notify = true;
	/*
	 * No network namespace: every abstract name is the host's.  The
	 * supervisor makes the calls it admits from vbox-exec, outside the
	 * child's Landlock domain, so it refuses abstract addresses itself
	 * (an explicit abstract bind, any abstract connect or send).
	 */
	w->refuse_abstract = true;
	w->pathname_open = net_open;
	w->paths = paths;
	filter.insns = (void *)filters[no_getfd][paths].insns;
	filter.len = *filters[no_getfd][paths].len;
	w->nwritable = cr->nrules;
	/* Supervised paths: no core dump (walls_prepare() says why). */
	return write_blob(w, WALLS_NOTIFY | WALLS_LANDLOCK | WALLS_CONTAINER |
			  (paths ? WALLS_NO_CORE : 0),
			  &filter, &none, NULL, 0, cr, (uint32_t)abi, err);
}

void walls_release(struct walls *w)
{
	if (w && w->fd >= 0) {
		close(w->fd);
		w->fd = -1;
	}
}
