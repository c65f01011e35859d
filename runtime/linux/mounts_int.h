/* SPDX-License-Identifier: MIT */
/*
 * mounts_int.h - what mounts.c and mounts_model.c share: the mounts of
 * the list being built, the instantiation in progress, and the model's
 * operations (mounts_model.c).  Internal to runtime/linux/mounts*.c.
 */
#ifndef VBOX_MOUNTS_INT_H
#define VBOX_MOUNTS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "above.h"
#include "pathmap.h"
#include "strv.h"

struct linux_host_note;
struct linux_launch_row;
struct lx_artifact;

/*
 * What a mount makes of the paths it covers:
 * MK_RW, MK_RO: a bind of the same host path, writable or not
 * MK_DENY: an empty read-only tmpfs or /dev/null: nothing readable
 * MK_HOLLOW: a read-only tmpfs over a missing path (a placeholder)
 * MK_SPECIAL: bubblewrap's own /dev and /proc
 */
enum mk {
	MK_RW,
	MK_RO,
	MK_DENY,
	MK_HOLLOW,
	MK_SPECIAL,
};

/*
 * One mount of the list being built.
 * @dest: where (owned)
 * @kind: see enum mk
 * @host: a bind of the same host path: new mount points below it are
 *        made on the host
 * @mode: tmpfs only: the mode of its root (0 for other mounts)
 * @remount: a tmpfs still to be remounted read-only at the end
 */
struct mnt {
	char *dest;
	enum mk kind;
	bool host;
	unsigned mode;
	bool remount;
};

/*
 * The instantiation in progress.
 * @rows, @nrows: the plan's launch rows
 * @out: the sandbox being built
 * @row: the row whose mounts are being made (LX_ROW_NONE: the base)
 * @placeholders: host directories to make (see struct linux_launch)
 * @dirs: directories made inside tmpfs mounts so far
 * @dir_set, @placeholder_set: @dirs and @placeholders as sets (keys
 *           borrowed from them): a table of N rows asks N times
 * @m, @nm, @cap: the mounts so far, as a coverage model
 * @at, @below: each mount's destination, and each strict ancestor of
 *           one (keys borrowed from @m's destinations: a prefix of one
 *           for @below), to the last mount there or below
 * @host_seen: what the host has at a path, looked at once
 *           (@host_seen_keys)
 * @above: the rows above the one being made, indexed
 * @err: the first error
 */
struct inst {
	const struct linux_launch_row *rows;
	size_t nrows;
	bool frame;		/* LX_LAUNCH mounts left out */
	struct lx_artifact *out;
	uint32_t row;
	struct strv placeholders;
	struct linux_host_note *notes;
	size_t nnotes;
	size_t notes_cap;
	struct strv creates;
	struct strv dirs;
	struct pathmap dir_set;
	struct pathmap placeholder_set;
	struct mnt *m;
	size_t nm;
	size_t cap;
	struct pathmap at;
	struct pathmap below;
	struct pathmap host_seen;
	struct strv host_seen_keys;
	struct above_index above;
	/* the path launch_path() mounts and its lstat(), when no link */
	const char *cur_path;
	const struct stat *cur_st;
	struct pathmap host_ids;
	struct linux_host_id *host_idv;
	size_t nhost_ids, host_ids_cap;
	char *err;
};

/* inst_error - the instantiation's first error (later ones are
 * dropped); returns -1 */
__printf(2, 3) int inst_error(struct inst *in, const char *fmt, ...);
/* home_hint - for EACCES under another user's home: why ('~' was
 * expanded at compile time); "" otherwise (a static buffer) */
const char *home_hint(const char *path, int err);
/* creation_granted - may the missing writable root @src be created? */
bool creation_granted(struct inst *in, const char *src);
/*
 * creation_in_home - may the missing writable root @src be created with
 * its missing parents: the deepest existing ancestor is a directory (no
 * symbolic link) owned by the invoking user, at or below the user's home
 * directory ($HOME, or the passwd entry's)?  A cache such as ~/.cache/pip
 * on a runner that has no ~/.cache yet.
 */
bool creation_in_home(const char *src);
/* host_note - row @row's effect at @path depended on the host */
void host_note(struct inst *in, uint32_t row, const char *path,
	       const char *what, bool warn);
/* push_mount - a mount at @dest into the list and the model */
void push_mount(struct inst *in, const char *dest, enum mk kind,
		bool host, unsigned mode);
/* mnt_prepare - what a mount at @dest needs first (directories inside a
 * tmpfs, mount points on the host); 0 or -1 (inst_error()) */
int mnt_prepare(struct inst *in, const char *dest, enum mk kind);
/* A bind of @path to itself, a tmpfs, /dev/null: 0 or -1. */
int mount_bind(struct inst *in, const char *path, enum mk kind);
int mount_tmpfs(struct inst *in, const char *path, enum mk kind,
		unsigned mode);
int mount_null(struct inst *in, const char *path);
/* place_missing - a placeholder keeps the missing @path absent (a
 * denied one unreadable, @deny); 0 or -1 */
int place_missing(struct inst *in, const char *path, bool deny);

#endif /* VBOX_MOUNTS_INT_H */
