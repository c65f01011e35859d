/* SPDX-License-Identifier: MIT */
/*
 * nolink.h - a path walked with no symbolic link anywhere, its parent
 * kept for the next sibling.  The host's pins (runtime/linux/pin.c) and
 * the sandbox's check of them (runtime/walls/walls_apply.c, in
 * vbox-init, which links nothing of ours: hence a header) look at many
 * paths in one directory; a table's mounts are listed in order, siblings
 * together, so the walk to the directory is made once for them and each
 * path costs one look at its last component from there.
 *
 * Sharing the parent moves a sibling's resolution of it from its own
 * look to the first sibling's, microseconds earlier; every such check is
 * of a moment either way (the parent could be swapped after the last
 * look as well), and what is finally mounted is checked again in the
 * sandbox.
 */
#ifndef VBOX_NOLINK_H
#define VBOX_NOLINK_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>

/*
 * @path (relative to @dirfd) opened O_PATH with @flags added, with no
 * symbolic or magic link anywhere in it (a trailing one included:
 * ELOOP), @resolve added (RESOLVE_BENEATH, ...).  The fd, or -1 with
 * errno.  Every no-link open of vbox-exec and vbox-init is this one.
 */
static inline int nolink_open(int dirfd, const char *path, uint64_t flags,
			      uint64_t resolve)
{
	struct open_how how;

	memset(&how, 0, sizeof(how));
	how.flags = flags | O_PATH | O_CLOEXEC;
	how.resolve = resolve | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
	return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
}

/* The parent directory looked at last, resolved with no link. */
struct nolink_parent {
	char path[PATH_MAX];
	int fd;		/* -1: none kept */
};

#define NOLINK_PARENT_INIT { .fd = -1 }

/*
 * The directory @parent opened with no link, kept in @pp for the next
 * path in it (the kept one when @parent is the same).  The fd (owned by
 * @pp), or -1 with errno.
 */
static inline int nolink_parent_fd(struct nolink_parent *pp,
				   const char *parent)
{
	size_t n = strlen(parent);

	if (pp->fd >= 0 && strcmp(pp->path, parent) == 0)
		return pp->fd;
	if (pp->fd >= 0)
		close(pp->fd);
	pp->fd = -1;
	if (n >= sizeof(pp->path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	pp->fd = nolink_open(AT_FDCWD, parent, O_DIRECTORY, 0);
	if (pp->fd >= 0)
		memcpy(pp->path, parent, n + 1);
	return pp->fd;
}

static inline void nolink_parent_close(struct nolink_parent *pp)
{
	if (pp->fd >= 0)
		close(pp->fd);
	pp->fd = -1;
}

/*
 * Split the absolute @path into its parent (into @parent, PATH_MAX
 * bytes; "/" for a path right below the root) and last component.  The
 * last component, or NULL when there is none to look at from a parent:
 * "/" itself, a trailing slash, "." or "..", a relative or too long
 * path (the caller walks the whole path instead).
 */
static inline const char *nolink_split(const char *path, char *parent)
{
	const char *base = strrchr(path, '/');
	size_t n;

	if (path[0] != '/' || !base || !base[1] ||
	    strcmp(base + 1, ".") == 0 || strcmp(base + 1, "..") == 0)
		return NULL;
	n = (size_t)(base - path);
	if (n >= PATH_MAX)
		return NULL;
	if (n == 0)
		n = 1;	/* "/x": the root */
	memcpy(parent, path, n);
	parent[n] = '\0';
	return base + 1;
}

#endif /* VBOX_NOLINK_H */
