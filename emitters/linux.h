/* SPDX-License-Identifier: MIT */
/*
 * linux.h - the linux target: bubblewrap sandboxes (doc/targets.md,
 * "Linux").
 *
 * The compile side builds the typed sandbox of plan/linux_artifact.h for
 * a classified table.  Rows that need host facts (a denied path's type,
 * whether it exists, what a glob matches) are launch-class: a plan
 * carries an LX_LAUNCH mount where their mounts belong, and the launcher
 * (runtime/linux/mounts.h) replaces it against the host file system.
 */
#ifndef VBOX_LINUX_H
#define VBOX_LINUX_H

#include <stdbool.h>

#include "linux_artifact.h"

struct table;
struct landing_set;
struct diag_list;
struct lx_artifact;

/*
 * linux_build - fill *@out (release with lx_artifact_release()) with the
 * sandbox for @table (analysed) classified as @landing (by
 * emitter_linux.classify).  With @launch_rows every launch-class row
 * becomes an LX_LAUNCH mount at its position in the mount order (for
 * plan.bin); without, a launch-class row is an error at the row saying
 * to use --emit=plan with vbox-exec (a static list cannot hold it).
 * Returns 0, or -1 with errors queued and *@out empty.  An unsupported
 * entry is an error too.
 */
int linux_build(const struct table *table, const struct landing_set *landing,
		bool launch_rows, struct lx_artifact *out,
		struct diag_list *diags);

#endif /* VBOX_LINUX_H */
