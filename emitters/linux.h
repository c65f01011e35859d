/* SPDX-License-Identifier: MIT */
/*
 * linux.h - the linux target: bubblewrap argument lists (SPEC §2).
 *
 * The compiler side writes the list `bwrap --args FD` reads; rows that need
 * host facts (a denied path's type, whether it exists, what a glob
 * matches) are launch-class and appear in a plan's artifact as the two
 * placeholder arguments "--vbox-launch" "ROW".  The launcher side
 * (linux_launch_instantiate) replaces them against the host file system.
 * doc/targets.md describes the shape of the list and every decision.
 */
#ifndef VBOX_LINUX_H
#define VBOX_LINUX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct table;
struct landing_set;
struct diag_list;

/*
 * Walk bounds for expanding one glob at launch: directory entries looked
 * at (each readdir entry and each literal lookup counts) and directory
 * levels below the literal prefix.  Past either the launch is refused.
 */
#define LINUX_WALK_MAX_ENTRIES 10000
#define LINUX_WALK_MAX_DEPTH 32

/* The placeholder a plan's artifact carries for a launch-class row. */
#define LINUX_LAUNCH_ARG "--vbox-launch"

/*
 * linux_emit_args - write the bubblewrap argument list for @table (analysed)
 * classified as @landing (by emitter_linux.classify) to @out, each argument
 * followed by a NUL byte.  With @launch_placeholders every launch-class
 * row is written as LINUX_LAUNCH_ARG and its decimal file row index at its
 * position in the mount order (plan.bin); without, a launch-class row is
 * an error at the row saying to use --emit=plan with vbox-exec (a static
 * list cannot hold it).  Returns 0, or -1 with errors queued and nothing
 * written.  An unsupported entry is an error too.
 */
int linux_emit_args(const struct table *table,
		    const struct landing_set *landing, bool launch_placeholders,
		    FILE *out, struct diag_list *diags);

/**
 * struct linux_launch_row - a launch-class file row, as a plan gives it
 * @index: the file row index named by the artifact's placeholder
 * @effect: enum effect (EFFECT_DENY, EFFECT_RO or EFFECT_RW)
 * @pattern: the normalized pattern text (a plan row's target), absolute,
 *           '/'-separated, cleaned; borrowed
 */
struct linux_launch_row {
	uint32_t index;
	uint8_t effect;
	const char *pattern;
};

/**
 * struct linux_launch - an instantiated argument list
 * @argv: the arguments (owned, each NUL-terminated), ready to be written
 *        NUL-separated for `bwrap --args FD`; the caller appends "--" and
 *        the command
 * @argc: number of @argv entries
 * @placeholders: host directories that must exist for the mounts: the
 *                launcher creates them (mkdir, in this order, failing if
 *                one exists) before starting bwrap and removes them
 *                (rmdir, in reverse order) when the child has ended, so a
 *                denied or read-only path that did not exist stays absent
 *                or empty for the child's whole life (SPEC §5); owned
 * @nplaceholders: number of @placeholders
 */
struct linux_launch {
	char **argv;
	size_t argc;
	char **placeholders;
	size_t nplaceholders;
};

/*
 * linux_launch_instantiate - turn the plan artifact @artifact (@len bytes,
 * NUL-terminated arguments as linux_emit_args writes them with
 * placeholders) into the final list, looking at the host file system
 * (lstat, stat, readdir; it creates nothing).  Each placeholder is looked up
 * in @rows and replaced by its mounts; a literal row (or one whose only
 * wildcards are trailing "**" segments) stands for its whole subtree, a
 * glob is expanded within LINUX_WALK_MAX_ENTRIES / LINUX_WALK_MAX_DEPTH.
 * Holes in writable regions are anchored (their ancestors become mount
 * points) so a rename cannot carry them away.  Returns 0 with *@out filled
 * (free with linux_launch_free()), or -1 with a one-line reason in *@err
 * (caller frees): a malformed artifact, an unknown row, a walk past its
 * bounds, or a match that cannot be mounted faithfully.  The launcher
 * refuses the launch (exit 125) then.
 */
int linux_launch_instantiate(const uint8_t *artifact, size_t len,
			     const struct linux_launch_row *rows, size_t nrows,
			     struct linux_launch *out, char **err);

/* linux_launch_free - free what *@launch owns (NULL-safe); zeroes it. */
void linux_launch_free(struct linux_launch *launch);

/*
 * linux_glob_expand - the existing host paths @pattern (normalized,
 * absolute, at least one literal segment before the first wildcard)
 * matches, by SPEC §1.4 with exact case, sorted bytewise, without
 * duplicates; symbolic links are matched but never descended.  Returns 0
 * with *@paths (*@npaths entries; caller frees each and the array), or -1
 * with *@err when the walk exceeds LINUX_WALK_MAX_ENTRIES entries or
 * LINUX_WALK_MAX_DEPTH levels, or a directory cannot be read.
 */
int linux_glob_expand(const char *pattern, char ***paths, size_t *npaths,
		      char **err);

#endif /* VBOX_LINUX_H */
