/* SPDX-License-Identifier: MIT */
/*
 * kstate.h - global kernel state stays read-only in the sandbox
 * (doc/launcher.md "Walls"), for every posture and whoever starts vbox-exec.
 *
 * A uid-0 child (vbox-exec run as root) passes the uid checks of sysctls
 * and of many procfs and sysfs files even without capabilities, so the
 * launcher makes them read-only with bubblewrap mount operations:
 *
 *   right after the sandbox's own "--proc /proc" (or, when nothing
 *   after it mounts at, above or below /proc, at the end of the list,
 *   where the sandbox's init can make them):
 *     --ro-bind /proc/X /proc/X  for every top-level /proc entry that is
 *                                a directory, bound whole (sys, fs, tty,
 *                                acpi, driver, ...; not irq and bus,
 *                                which bubblewrap covers, nor pressure,
 *                                writable by every user by design) or a
 *                                file with a write bit (sysrq-trigger,
 *                                mtrr, ...);
 *     --ro-bind /dev/null /proc/X  for every top-level /proc file that
 *                                only its owner (root) may read
 *                                (timer_list, slabinfo, kpageflags, ...;
 *                                not kmsg and kcore, which the kernel
 *                                gates behind a capability): what
 *                                an ordinary user cannot read, a child
 *                                mapped to root does not read either;
 *   at the end of the list, over whatever the plan mounted there:
 *     --remount-ro M             for every host mount at or below /sys,
 *                                every host mount of a kernel file
 *                                system elsewhere (proc, cgroup, debugfs,
 *                                binfmt_misc, ...; see kstate.c), and
 *                                every plan mount below /proc or /sys.
 * bubblewrap's --remount-ro does not recurse into submounts, hence one
 * per mount.  Only a host mount a read-write bind carries into the
 * sandbox is remounted: one under a read-only bind is read-only already
 * (bubblewrap remounts a read-only bind's submounts), one the plan hides
 * (a tmpfs or /dev/null over it or an ancestor) does not exist there.  What remains writable in /proc is per-process
 * (the sandbox's own processes): doc/launcher.md, "Walls".
 */
#ifndef VBOX_WALLS_KSTATE_H
#define VBOX_WALLS_KSTATE_H

#include <stdbool.h>
#include <stddef.h>

struct lx_artifact;

/**
 * struct kstate - what the host shows, scanned once per launch
 * @proc: top-level /proc entries to bind read-only (names, owned)
 * @nproc: number of @proc entries
 * @mask: top-level /proc files only root may read, to hide (owned)
 * @nmask: number of @mask entries
 * @mounts: mount points to remount read-only at the end (owned)
 * @nmounts: number of @mounts
 * @host: every mount point of the host, sorted (owned): not for this
 *        wall, for the launcher's split of the mounts (sandbox.c), which
 *        must know whether a bind carries host mounts below it
 * @nhost: number of @host
 */
struct kstate {
	char **proc;
	size_t nproc;
	char **mask;
	size_t nmask;
	char **mounts;
	size_t nmounts;
	char **host;
	size_t nhost;
};

/*
 * Scan @proc_dir (normally "/proc") and @mountinfo (normally
 * "/proc/self/mountinfo").  The /proc entries are scanned only when
 * @root (the child will be uid 0, mapped to host root): for any other
 * uid the files' owner and mode already refuse the writes and reads
 * they guard, and Landlock refuses every write below /proc.  0, or -1
 * with *@err (caller frees).
 */
int kstate_scan(struct kstate *ks, const char *proc_dir, const char *mountinfo,
		bool root, char **err);
void kstate_free(struct kstate *ks);

/*
 * kstate_apply - add the wall's mounts to sandbox @a (the plan's mounts
 * in place): the /proc binds and masks right after its "/proc" procfs
 * or at the end (see above), the remounts at the end.  Returns how many
 * mounts were added.
 */
size_t kstate_apply(const struct kstate *ks, struct lx_artifact *a);

#endif /* VBOX_WALLS_KSTATE_H */
