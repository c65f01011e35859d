/* SPDX-License-Identifier: MIT */
/*
 * mounts.h - a linux plan's launch-class rows made into mounts against
 * the host file system (doc/targets.md, "Linux: at launch").
 */
#ifndef VBOX_MOUNTS_H
#define VBOX_MOUNTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "linux_artifact.h"
#include "pathmap.h"

/**
 * struct linux_launch_row - a launch-class file row, as a plan gives it
 * @index: the file row index an LX_LAUNCH mount names
 * @effect: enum effect (EFFECT_DENY, EFFECT_RO or EFFECT_RW)
 * @pattern: the normalized pattern text (a plan row's target), absolute,
 *           '/'-separated, cleaned; borrowed
 * @above, @nabove: the patterns of the rows tried before it (higher
 *                  priority), borrowed: a glob match one of them also
 *                  matches is theirs to decide, not this row's
 */
struct linux_launch_row {
	uint32_t index;
	uint8_t effect;
	const char *pattern;
	const char *const *above;
	size_t nabove;
};

/**
 * struct linux_host_note - a row whose effect depended on the host
 * @row: the file row index
 * @path: the host path that decided (owned)
 * @what: what was found there and what was done (static text)
 * @warn: the row grants less than it says (a missing writable root): the
 *        launch warns about it, not only under --log and --dry-run
 */
struct linux_host_note {
	uint32_t row;
	char *path;
	const char *what;
	bool warn;
};

/**
 * struct linux_launch - an instantiated sandbox
 * @sandbox: every mount concrete (no LX_LAUNCH), the tmpfs mounts made
 *           read-only at the end
 * @placeholders: host directories that must exist for the mounts: the
 *                launcher creates them (mkdir, in this order, failing if
 *                one exists) before starting bwrap and removes them
 *                (rmdir, in reverse order) when the child has ended, so a
 *                denied or read-only path that did not exist stays absent
 *                or empty for the child's whole life; owned
 * @nplaceholders: number of @placeholders
 * @notes: the rows whose effect depended on the host, in artifact order
 *         (owned)
 * @nnotes: number of @notes
 * @creates: missing writable roots inside a region the table makes
 *           writable: the launcher creates them (mkdir -p, mode 0700, as
 *           the invoking user) before starting bwrap and leaves them
 *           (owned)
 * @ncreates: number of @creates
 * @host_ids: the destination of each mount made on a host path that the
 *            instantiation looked at and found no symbolic link (keys
 *            borrowed from @sandbox's mounts), mapped to its index in
 *            @host_idv: what stat() of it would say, without looking
 *            again (sandbox.c's plan guard)
 * @host_idv: device and inode, @nhost_ids of them (owned)
 */
/**
 * struct launch_stop - how a long step of the launch learns that it
 * must end: @stop returns the signal that came (SIGINT, SIGTERM, ...) or
 * 0, looked at every LAUNCH_STOP_EVERY rows or paths; @stop NULL: never
 * @ctx: for @stop
 */
struct launch_stop {
	int (*stop)(void *ctx);
	void *ctx;
};
#define LAUNCH_STOP_EVERY 64

/* launch_stopped - the signal @s's @stop says came, or 0 (NULL: 0). */
int launch_stopped(const struct launch_stop *s);

struct linux_host_id {
	dev_t dev;
	ino_t ino;
};

struct linux_launch {
	struct lx_artifact sandbox;
	char **placeholders;
	size_t nplaceholders;
	struct linux_host_note *notes;
	size_t nnotes;
	char **creates;
	size_t ncreates;
	struct pathmap host_ids;
	struct linux_host_id *host_idv;
	size_t nhost_ids;
};

/*
 * linux_launch_instantiate - make @art (a decoded plan artifact) concrete
 * against the host file system (lstat, stat, readdir; it creates
 * nothing): each LX_LAUNCH mount is looked up in @rows (ascending by
 * index) and replaced by the row's mounts; a literal row (or one whose
 * only wildcards are trailing "**" segments) stands for its whole
 * subtree, a glob is expanded within GLOB_WALK_MAX_ENTRIES /
 * GLOB_WALK_MAX_DEPTH (glob.h); a try-bind whose source is missing is
 * dropped.  Holes in writable regions are anchored (their ancestors
 * become mount points) so a rename cannot carry them away.  Every mount
 * made for a row carries the row's index.  Returns 0 with *@out filled
 * (release with linux_launch_release()), or -1 with a one-line reason in
 * *@err (caller frees): an unknown row, a walk past its bounds, a match
 * that cannot be mounted faithfully, or a signal @stop saw (NULL: none).
 */
int linux_launch_instantiate(const struct lx_artifact *art,
			     const struct linux_launch_row *rows, size_t nrows,
			     const struct launch_stop *stop,
			     struct linux_launch *out, char **err);

/*
 * linux_launch_instantiate_frame - the same with every LX_LAUNCH mount
 * left out: the sandbox the plan's table would have without its launch
 * rows, from which the launcher guesses bubblewrap's argument list
 * before the rows are looked at (runner.c, "the early argument list").
 */
int linux_launch_instantiate_frame(const struct lx_artifact *art,
				   const struct launch_stop *stop,
				   struct linux_launch *out, char **err);

/* linux_launch_release - free what *@launch holds (NULL-safe). */
void linux_launch_release(struct linux_launch *launch);

#endif /* VBOX_MOUNTS_H */
