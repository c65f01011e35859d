/* SPDX-License-Identifier: MIT */
/*
 * pin.h - granted host paths are pinned (doc/launcher.md, "Pinned
 * paths").
 *
 * Every mount a row makes on a host path (a bind's source; the denied
 * path a tmpfs or /dev/null covers) is walked on the host one component
 * at a time with O_PATH | O_NOFOLLOW.  A symbolic link anywhere in it
 * would carry the mount to the link's target, which the row does not
 * name: the target is mounted instead when the table gives it, and
 * everything below it, the mount's effect (the `vboxc explain --follow`
 * view, follow.h); otherwise the launch is refused (125) naming the row,
 * the link, the resolved path and what the table gives it.  The device
 * and inode of each bind's source are recorded; the sandbox's init checks
 * them again on the mount points before the command starts
 * (walls_apply()), so a path swapped between this check and the mount
 * is caught too.  A cover (a tmpfs, or /dev/null over a denied file) is
 * mounted by the init onto its mount point opened with no link in the
 * path and checked there after the mount (runtime/init/mounts.c); each
 * /dev/null cover also gets a read-only remount at the end, made the
 * same way, which checks again one bubblewrap made.
 */
#ifndef VBOX_PIN_H
#define VBOX_PIN_H

#include <stddef.h>
#include <stdint.h>

struct lx_artifact;
struct plan;
struct strv;

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
 * pin_check - walk the mounts of every row in @lx and then @init (the
 * mounts the sandbox's init makes), moving a mount whose host path runs
 * through a link to the resolved path where the table allows it (one
 * line for --log each in @followed).  0 with *@pins (*@npins; caller
 * frees the array; @dest borrowed from the artifacts), or -1 with *@err.
 */
int pin_check(const struct plan *plan, struct lx_artifact *lx,
	      struct lx_artifact *init, struct pin **pins, size_t *npins,
	      struct strv *followed, char **err);

#endif /* VBOX_PIN_H */
