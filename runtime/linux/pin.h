/* SPDX-License-Identifier: MIT */
/*
 * pin.h - granted host paths are pinned (doc/launcher.md, "Pinned
 * paths"; issue 7, item 5).
 *
 * Every bind a row makes (its source is a host path the row grants or
 * holes) is walked on the host one component at a time with O_PATH |
 * O_NOFOLLOW: a symbolic link anywhere in it would carry the mount to
 * the link's target, which the row does not name, so the launch is
 * refused (125) naming the row and the link.  The device and inode of
 * each source are recorded; the sandbox's init checks them again on the
 * mount points before the command starts (walls_apply()), so a path
 * swapped between this check and bubblewrap's mount is caught too.
 */
#ifndef VBOX_PIN_H
#define VBOX_PIN_H

#include <stddef.h>
#include <stdint.h>

struct lx_artifact;
struct plan;

/**
 * struct pin - one pinned mount
 * @dest: where it is mounted in the sandbox (borrowed from the artifact)
 * @dev, @ino: what the host path was when checked
 */
struct pin {
	const char *dest;
	uint64_t dev;
	uint64_t ino;
};

/*
 * pin_check - walk every row bind of @lx (for @plan's row labels).
 * 0 with *@pins (*@npins; caller frees the array), or -1 with *@err.
 */
int pin_check(const struct plan *plan, const struct lx_artifact *lx,
	      struct pin **pins, size_t *npins, char **err);

#endif /* VBOX_PIN_H */
