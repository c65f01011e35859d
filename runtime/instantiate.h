/* SPDX-License-Identifier: MIT */
/*
 * instantiate.h - turn a linux plan into the final bubblewrap argument
 * list, and manage the host placeholders it needs.
 *
 * The list is, in this fixed order:
 *
 *   1. the launcher's flags the artifact lacks, in this order:
 *      --new-session --die-with-parent --unshare-user --unshare-pid
 *      --as-pid-1 --cap-drop ALL --disable-userns (when bubblewrap
 *      supports it) --unshare-net (network deny posture); the compiled
 *      artifact carries all but --as-pid-1 (the launcher's shim is the
 *      sandbox's init), so usually only that one is added;
 *   2. the plan's artifact, each "--vbox-launch" "ROW" placeholder pair
 *      replaced by the mounts for that row, expanded against the host
 *      file system by linux_launch_instantiate() (emitters/linux.h; its
 *      glob walk looks at most LINUX_WALK_MAX_ENTRIES entries and
 *      LINUX_WALK_MAX_DEPTH levels, past which the launch is refused);
 *   3. --ro-bind PLAN PLAN, when the policy leaves the plan file (by its
 *      real path) writable: the plan is never writable from inside;
 *   4. --chdir DIR, the child's working directory.
 *
 * The launcher refuses (exit 125) a plan with an unsupported row, a row
 * that lands in the egress proxy (there is none yet), a launch row the
 * artifact does not name exactly once, or an artifact without a /proc
 * mount (the shim needs /proc/self/fd).
 */
#ifndef VBOX_INSTANTIATE_H
#define VBOX_INSTANTIATE_H

#include <stdbool.h>
#include <stddef.h>

struct plan;

/**
 * struct sandbox_args - an instantiated plan
 * @argv: the argument list for `bwrap --args FD` (each owned)
 * @argc: number of @argv entries
 * @placeholders: host directories to create before the start and remove
 *                after the end (owned; see linux.h)
 * @nplaceholders: number of @placeholders
 * @created: how many of @placeholders exist now (made by
 *           placeholders_create())
 * @nlaunch: launch-class rows expanded
 * @added: hardening flags the launcher added to the artifact's
 * @dropped_disable_userns: --disable-userns was removed because this
 *                         bubblewrap does not know it
 * @guarded_plan: the plan file is bound read-only onto itself (step 3)
 */
struct sandbox_args {
	char **argv;
	size_t argc;
	char **placeholders;
	size_t nplaceholders;
	size_t created;
	size_t nlaunch;
	size_t added;
	bool dropped_disable_userns;
	bool guarded_plan;
};

/* The mode of a placeholder directory on the host. */
#define PLACEHOLDER_MODE 0700

/*
 * instantiate_linux - build *@out (free with sandbox_args_free()) for
 * @plan, a linux plan loaded from @plan_path, with the child's working
 * directory @workdir;
 * @disable_userns says whether the bubblewrap to run knows
 * --disable-userns.  Looks at the host file system, creates nothing.
 * Returns 0, or -1 with a one-line reason in *@err (caller frees).
 */
int instantiate_linux(const struct plan *plan, const char *plan_path,
		      const char *workdir, bool disable_userns,
		      struct sandbox_args *out, char **err);

/*
 * placeholders_create - mkdir every placeholder, in order, failing if one
 * already exists (the host changed since instantiation: the mounts could
 * be wrong).  Returns 0, or -1 with *@err after removing those it made.
 */
int placeholders_create(struct sandbox_args *sa, char **err);

/*
 * placeholders_remove - rmdir the placeholders made, in reverse order.
 * One that cannot be removed (something was put in it on the host) is
 * reported on stderr and left.
 */
void placeholders_remove(struct sandbox_args *sa);

void sandbox_args_free(struct sandbox_args *sa);

#endif /* VBOX_INSTANTIATE_H */
