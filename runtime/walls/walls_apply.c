/* SPDX-License-Identifier: MIT */
/*
 * walls_apply.c - the sandbox's init puts the walls in place (walls.h).
 * Linked into the static vbox-init: libc only.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "landlock.h"
#include "nolink.h"
#include "seccomp.h"
#include "walls.h"

#ifndef SYS_statx
#define SYS_statx 332	/* x86_64 */
#endif
#ifndef AT_STATX_SYNC_AS_STAT
#define AT_STATX_SYNC_AS_STAT 0
#endif
#define PIN_STATX_TYPE 0x0001u		/* STATX_TYPE */
#define PIN_STATX_INO 0x0100u		/* STATX_INO */
#define PIN_STATX_MOUNT_ROOT 0x2000u	/* STATX_ATTR_MOUNT_ROOT */

/*
 * struct statx (linux/stat.h), the fields this file reads: not every C
 * library the static vbox-init is built with declares it, and one that
 * does would clash with the kernel's header.
 */
struct pin_statx {
	uint32_t mask;
	uint32_t blksize;
	uint64_t attributes;
	uint32_t nlink, uid, gid;
	uint16_t mode, spare0;
	uint64_t ino, size, blocks;
	uint64_t attributes_mask;
	uint8_t times[4 * 16];
	uint32_t rdev_major, rdev_minor;
	uint32_t dev_major, dev_minor;
	uint64_t spare[14];
};
_Static_assert(sizeof(struct pin_statx) == 256 &&
	       offsetof(struct pin_statx, ino) == 32 &&
	       offsetof(struct pin_statx, attributes_mask) == 56 &&
	       offsetof(struct pin_statx, dev_major) == 136,
	       "struct pin_statx is not struct statx");

/* Is @path, resolved with no symbolic link, the file @dev:@ino? */
static bool resolves_to(const char *path, uint64_t dev, uint64_t ino)
{
	struct stat st;
	bool ok;
	int fd;

	fd = nolink_open(AT_FDCWD, path, 0, 0);
	if (fd < 0)
		return false;
	ok = fstat(fd, &st) == 0 && (uint64_t)st.st_dev == dev &&
	     (uint64_t)st.st_ino == ino;
	close(fd);
	return ok;
}

/*
 * Does the pin on mount point @path hold?  The path has no symbolic link
 * in the sandbox, is the host file checked (@dev, @ino), and is a mount
 * point: a component swapped for a link when the mount was made and
 * swapped back since would have carried the bind elsewhere and left
 * @path the unmounted original, which the device and inode alone cannot
 * tell.  (Resolving its last component from its parent without crossing
 * a mount fails with EXDEV exactly when something is mounted there.)
 * The way of kernels without STATX_ATTR_MOUNT_ROOT (before 5.8).
 */
static bool pin_holds_by_open(const char *path, const char *parent,
			      const char *base, uint64_t dev, uint64_t ino)
{
	int fd, pfd;
	bool ok;

	if (!resolves_to(path, dev, ino))
		return false;
	pfd = nolink_open(AT_FDCWD, parent, O_DIRECTORY, 0);
	if (pfd < 0)
		return false;
	fd = nolink_open(pfd, base, 0, RESOLVE_NO_XDEV | RESOLVE_BENEATH);
	ok = fd < 0 && errno == EXDEV;
	if (fd >= 0)
		close(fd);
	close(pfd);
	return ok;
}

/*
 * pin_holds_by_open()'s question, answered by one path walk instead of
 * three: the parent resolved with no symbolic link (or kept from the
 * pin before in the same directory, @pp: nolink.h), then one statx()
 * of the last component, not followed if it is a link (a link is never
 * the pinned file), which
 * gives the device and inode of what is mounted there and whether that
 * is a mount's root.  -1 when this kernel cannot say (no statx(), or no
 * STATX_ATTR_MOUNT_ROOT), else whether it holds.
 */
static int pin_holds_by_statx(struct nolink_parent *pp, const char *parent,
			      const char *base, uint64_t dev, uint64_t ino)
{
	struct pin_statx sx;
	int pfd, rc;

	pfd = nolink_parent_fd(pp, parent);
	if (pfd < 0)
		return 0;
	memset(&sx, 0, sizeof(sx));
	rc = (int)syscall(SYS_statx, pfd, base,
			  AT_SYMLINK_NOFOLLOW | AT_STATX_SYNC_AS_STAT,
			  PIN_STATX_TYPE | PIN_STATX_INO, &sx);
	/* (EPERM: an older container runtime's filter refuses statx().) */
	if (rc < 0)
		return errno == ENOSYS || errno == EPERM ? -1 : 0;
	if (!(sx.attributes_mask & PIN_STATX_MOUNT_ROOT))
		return -1;
	return (sx.mask & PIN_STATX_INO) && !S_ISLNK(sx.mode) &&
	       (sx.attributes & PIN_STATX_MOUNT_ROOT) &&
	       sx.dev_major == major((dev_t)dev) &&
	       sx.dev_minor == minor((dev_t)dev) && sx.ino == ino;
}

static bool pin_holds(struct nolink_parent *pp, const char *path,
		      uint64_t dev, uint64_t ino)
{
	char parent[PATH_MAX];
	const char *base;
	int rc;

	base = strrchr(path, '/');
	if (!base || !base[1])
		return resolves_to(path, dev, ino);	/* "/": a mount point */
	if ((size_t)(base - path) >= sizeof(parent))
		return false;
	memcpy(parent, path, (size_t)(base - path));
	parent[base - path] = '\0';
	base++;
	/* What RESOLVE_BENEATH refused below: a last component that leaves
	 * the parent. */
	if (strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return false;
	rc = pin_holds_by_statx(pp, parent[0] ? parent : "/", base, dev,
				ino);
	if (rc >= 0)
		return rc;
	return pin_holds_by_open(path, parent[0] ? parent : "/", base, dev,
				 ino);
}

int walls_apply(int fd, int *listener, int *abi, const char **what)
{
	struct walls_blob_head h;
	struct stat st;
	const char **paths = NULL;
	struct landlock_rule *rules = NULL;
	struct nolink_parent pp = NOLINK_PARENT_INIT;
	static char pinmsg[300];
	char *blob = NULL, *p, *end, *q;
	size_t have = 0, i, body;
	ssize_t n;
	int rc = -1;

	*listener = -1;
	*abi = 0;
	*what = "reading the walls";
	if (fstat(fd, &st) < 0)
		return -1;
	if (st.st_size < (off_t)sizeof(h) || st.st_size > WALLS_BLOB_MAX) {
		errno = EINVAL;
		return -1;
	}
	blob = malloc((size_t)st.st_size + 1);
	if (!blob)
		return -1;
	while (have < (size_t)st.st_size) {
		n = pread(fd, blob + have, (size_t)st.st_size - have,
			  (off_t)have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			errno = n < 0 ? errno : EIO;
			goto out;
		}
		have += (size_t)n;
	}
	memcpy(&h, blob, sizeof(h));
	body = (size_t)h.filter_len + h.paths_len + h.pins_len + h.rules_len;
	errno = EINVAL;
	if (h.magic != WALLS_MAGIC || h.version != WALLS_VERSION ||
	    h.filter_len == 0 || body != have - sizeof(h) ||
	    h.npaths > WALLS_PATHS_MAX || h.npins > WALLS_PATHS_MAX ||
	    h.nrules > WALLS_PATHS_MAX || h.zero ||
	    (h.nrules && !(h.flags & WALLS_CONTAINER)))
		goto out;
	paths = calloc(h.npaths + 1, sizeof(*paths));
	if (!paths)
		goto out;
	errno = EINVAL;
	p = blob + sizeof(h) + h.filter_len;
	end = p + h.paths_len;
	for (i = 0; i < h.npaths; i++) {
		q = p < end ? memchr(p, '\0', (size_t)(end - p)) : NULL;
		if (!q)
			goto out;
		paths[i] = p;
		p = q + 1;
	}

	/*
	 * The pins first (runtime/linux/pin.h): every granted path must
	 * still be the file vbox-exec checked on the host.
	 */
	p = end;
	end = p + h.pins_len;
	for (i = 0; i < h.npins; i++) {
		struct walls_pin_head ph;

		errno = EINVAL;
		if ((size_t)(end - p) < sizeof(ph) + 1)
			goto out;
		memcpy(&ph, p, sizeof(ph));
		p += sizeof(ph);
		q = memchr(p, '\0', (size_t)(end - p));
		if (!q)
			goto out;
		if (!pin_holds(&pp, p, ph.dev, ph.ino)) {
			snprintf(pinmsg, sizeof(pinmsg), "granted path '%.*s' "
				 "is not the one checked on the host (it "
				 "changed before the mount)", 200, p);
			*what = pinmsg;
			errno = ESTALE;
			goto out;
		}
		p = q + 1;
	}

	errno = EINVAL;
	if (p != end)
		goto out;
	/* Container mode's rules (landlock.h), checked whole first. */
	rules = calloc(h.nrules + 1, sizeof(*rules));
	if (!rules)
		goto out;
	end = blob + have;
	for (i = 0; i < h.nrules; i++) {
		struct walls_rule_head rh;

		errno = EINVAL;
		if ((size_t)(end - p) < sizeof(rh) + 2)
			goto out;
		memcpy(&rh, p, sizeof(rh));
		p += sizeof(rh);
		q = memchr(p, '\0', (size_t)(end - p));
		if (!q || *p != '/' || rh.optional > 1 || rh.zero)
			goto out;
		rules[i].path = p;
		rules[i].rights = rh.rights;
		rules[i].optional = (int)rh.optional;
		p = q + 1;
	}
	if (p != end)
		goto out;

	*what = "setrlimit(RLIMIT_CORE)";
	if ((h.flags & WALLS_NO_CORE) &&
	    setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 }) < 0)
		goto out;
	*what = "prctl(PR_SET_NO_NEW_PRIVS)";
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		goto out;
	if (h.flags & WALLS_CONTAINER) {
		*abi = landlock_restrict_rules(rules, h.nrules,
					       (int)h.abi_max, what);
		if (*abi < 0)
			goto out;
	} else if (h.flags & WALLS_LANDLOCK) {
		*abi = landlock_restrict(paths, h.npaths, what);
		if (*abi < 0)
			goto out;
	}
	*what = "seccomp (the filter of newer calls)";
	if ((h.flags & (WALLS_CONTAINER | WALLS_NEWER)) &&
	    seccomp_newer_calls_load() < 0)
		goto out;
	*what = h.flags & WALLS_NOTIFY ?
		"seccomp with user notification (the supervised filter)" :
		"seccomp (the deny filter)";
	if (seccomp_prog_load(blob + sizeof(h), h.filter_len,
			      h.flags & WALLS_NOTIFY ? listener : NULL) < 0)
		goto out;
	rc = 0;
out:
	/* the pins' last parent (O_CLOEXEC: never the command's) */
	if (pp.fd >= 0) {
		int saved = errno;	/* the caller says why with it */

		close(pp.fd);
		errno = saved;
	}
	free(rules);
	free(paths);
	free(blob);
	return rc;
}
