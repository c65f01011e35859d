/* SPDX-License-Identifier: MIT */
/*
 * sandbox.h - the final bubblewrap sandbox for a linux plan, and the host
 * placeholders it needs (doc/launcher.md, "How a launch works").
 *
 * The sandbox is the plan's typed artifact (plan/linux_artifact.h) with:
 *
 *   1. the launcher's flags set whatever the plan says: --new-session
 *      --die-with-parent --unshare-user --unshare-pid --as-pid-1 (the
 *      init is the sandbox's PID 1) --cap-drop ALL, --disable-userns
 *      (when bubblewrap supports it; dropped when it does not), and
 *      --unshare-net under "@default net deny";
 *   2. each LX_LAUNCH mount replaced by the row's mounts
 *      (linux_launch_instantiate(), mounts.h);
 *   3. a read-only bind of the plan file onto itself, when the policy
 *      leaves the plan file (by its real path) writable;
 *   4. the kernel-state wall's mounts (runtime/walls/kstate.h): /proc
 *      binds and masks after the procfs (or at the end, where nothing
 *      else mounts near /proc), read-only remounts at the end;
 *   5. --chdir DIR, the child's working directory;
 *   6. when the tail of the mount list holds SANDBOX_INIT_MOUNTS_MIN
 *      mounts or more that the sandbox's init can make exactly as
 *      bubblewrap would, that tail moves to the init (@init_mounts),
 *      with the --dev and --proc before it where they commute:
 *      bubblewrap re-reads the whole mount table for every bind, the
 *      init does not.  bubblewrap then keeps the
 *      capabilities (--uid 0 --gid 0 --cap-add ALL) and the init, after
 *      its mounts, moves into a nested user namespace that maps the
 *      caller's uid and gid (as bubblewrap does), makes user namespaces
 *      impossible to create (as --disable-userns does) and drops every
 *      capability before the command runs (doc/launcher.md, "Mounts in
 *      the init").
 *
 * It is rendered for bubblewrap once, by lx_render().  The launcher
 * refuses (exit 125) a plan with an unsupported row, a row that lands in
 * the egress proxy (there is none yet), a launch row the artifact does
 * not name exactly once, or an artifact without a /proc mount.
 */
#ifndef VBOX_SANDBOX_H
#define VBOX_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>

#include "linux_artifact.h"
#include "strv.h"

struct plan;

/**
 * struct sandbox - an instantiated plan
 * @lx: the sandbox, every mount concrete, @lx.chdir set
 * @placeholders: host directories to create before the start and remove
 *                after the end (owned; see mounts.h)
 * @nplaceholders: number of @placeholders
 * @created: how many of @placeholders exist now (placeholders_create())
 * @nlaunch: launch-class rows expanded
 * @added: hardening flags the launcher added to the artifact's
 * @dropped_disable_userns: --disable-userns was removed because this
 *                         bubblewrap does not know it
 * @guarded_plan: the plan file is bound read-only onto itself (step 3)
 * @init_mounts: the mounts the init makes (step 6; no flags), in order
 *               after every mount of @lx
 * @kstate: mounts the kernel-state wall added (runtime/walls/kstate.h)
 * @host_mounts: every mount point of the host, sorted (owned; from the
 *               kernel-state scan): step 6 asks which lie below a bind
 * @nhost_mounts: number of @host_mounts
 * @host_notes: one line per row whose effect depended on the host (a
 *              missing path, what was done), for --log and --dry-run
 * @host_note_warn: per line of @host_notes, whether it is a warning
 * @warnings: the lines of @host_notes where a row grants less than it
 *            says (a missing writable root): printed on every launch,
 *            folded by reason
 * @warning_what: per warning, its reason (static text: equal reasons
 *                are the same pointer)
 * @creates: missing writable roots to create (see mounts.h; owned)
 * @ncreates: number of @creates
 */
struct sandbox {
	struct lx_artifact lx;
	char **placeholders;
	size_t nplaceholders;
	size_t created;
	size_t nlaunch;
	size_t added;
	bool dropped_disable_userns;
	bool guarded_plan;
	struct lx_artifact init_mounts;
	char **host_mounts;
	size_t nhost_mounts;
	size_t kstate;
	struct strv host_notes;
	bool *host_note_warn;
	struct strv warnings;
	const char **warning_what;
	char **creates;
	size_t ncreates;
	bool private_tmp;
	const char *private_tmp_template;
	char *private_tmp_dir;
};

/*
 * "@default tmp private" (sandbox.c): the plan's tmpfs at /tmp becomes a
 * bind of a directory of the launch's own, made by creates_make() with
 * mkdtemp() from this template (mode 0700, in /dev/shm: a tmpfs, out of
 * the sandbox's sight, which has bubblewrap's /dev) and removed with
 * everything in it by sandbox_release().  A bind, not bubblewrap's
 * --tmpfs, so that every wall treats it as the writable region it is.
 */
#define SANDBOX_PRIVATE_TMP "/dev/shm/vbox-tmp.XXXXXX"

/*
 * sandbox_private_tmp_in - make the private /tmp's directory from
 * @tmpl (a static mkdtemp() template) instead; before creates_make().
 * Container mode's is in the host's /tmp (container_rules.h).
 */
void sandbox_private_tmp_in(struct sandbox *sa, const char *tmpl);

/*
 * Fewer mounts than this in the tail stay with bubblewrap.  One: even a
 * single mount (the read-only remount of /dev) is cheaper in the init,
 * whose nested user namespace and capability drop cost no more than
 * bubblewrap's own (bench/README.md, "vbox-exec launch", 2026-12-03).
 */
#define SANDBOX_INIT_MOUNTS_MIN 1

/* The mode of a placeholder directory on the host. */
#define PLACEHOLDER_MODE 0700

/*
 * sandbox_build - build *@out (release with sandbox_release()) for @plan,
 * a linux plan loaded from @plan_path, with the child's working
 * directory @workdir; @disable_userns says whether the bubblewrap to run
 * knows --disable-userns.  Steps 1-5 above: every mount stays in
 * @out->lx.  Looks at the host file system, creates nothing.  Returns 0,
 * or -1 with a one-line reason in *@err (caller frees), a signal @stop
 * saw included (NULL: none).
 */
struct launch_stop;
int sandbox_build(const struct plan *plan, const char *plan_path,
		  const char *workdir, bool disable_userns,
		  const struct launch_stop *stop, struct sandbox *out,
		  char **err);

/*
 * sandbox_build_frame - the same without the plan's launch rows
 * (linux_launch_instantiate_frame()) and without host notes: what
 * bubblewrap's part of the argument list most likely is, known before
 * the rows are looked at (runner.c, "the early argument list").
 */
int sandbox_build_frame(const struct plan *plan, const char *plan_path,
			const char *workdir, bool disable_userns,
			struct sandbox *out, char **err);

/*
 * sandbox_split_init_mounts - step 6: move the longest tail of mounts the
 * init can make to @sa->init_mounts, with the --dev and --proc mounts
 * before it that the init can make and that commute with what stays,
 * when that is long enough.  @tty is the terminal the init's --dev
 * makes /dev/console (the first of fds 1, 0, 2 that is one; NULL: none),
 * which the init then gives the command for each of fds 0-2 that is that
 * terminal, read-only mounted; @tty1 is the terminal on fd 1 or NULL
 * (bubblewrap's own --dev makes that one /dev/console).  Called last,
 * right before the start, once everything that reads the whole mount
 * list (pins, walls, placeholders, the registry's tmpfs) has (for the
 * frame of the early list, right after its pins: runner.c); never for
 * --dry-run, whose line cannot carry the init's setup.
 */
void sandbox_split_init_mounts(struct sandbox *sa, const char *tty,
			       const char *tty1);

/*
 * placeholders_create - mkdir every placeholder, in order, failing if one
 * already exists (the host changed since instantiation: the mounts could
 * be wrong).  Each is registered (phreg.h) before it is made, so a
 * SIGKILL at any point leaves no placeholder the registry does not
 * name; call it between phreg_begin() and phreg_hold() (defined in
 * phreg.c).  Returns 0, or -1 with *@err after removing those it made
 * (a signal @stop saw included).
 */
int placeholders_create(struct sandbox *sa, const struct launch_stop *stop,
			char **err);

/*
 * placeholders_remove - rmdir the placeholders made, in reverse order.
 * One that cannot be removed (something was put in it on the host) is
 * reported on stderr and left.
 */
void placeholders_remove(struct sandbox *sa);

/*
 * creates_make - mkdir -p every entry of @sa->creates (mode 0700, owned
 * by the invoking user), kept after the child ends.  One that cannot be
 * made is a warning: its row's bind is a try-bind and is then skipped.
 * First, the private /tmp of "@default tmp private" (above), removed by
 * sandbox_release(); one that cannot be made fails the launch.
 */
void creates_make(struct sandbox *sa);

/*
 * sandbox_private_tmp_make - creates_make()'s first step alone: the
 * private /tmp's directory made, the list names it.
 */
void sandbox_private_tmp_make(struct sandbox *sa);

/*
 * sandbox_private_tmp_adopt - @to, not yet given its private /tmp, takes
 * the one made for @from (sandbox_private_tmp_make()): both lists name
 * the same directory, which @to's release removes.
 */
void sandbox_private_tmp_adopt(struct sandbox *to, struct sandbox *from);

/*
 * sandbox_say_notes - on stderr: with @all (--log, --dry-run) every host
 * note of @sa, else its warnings, folded by reason (three rows named,
 * then "... and N more rows").
 */
void sandbox_say_notes(const struct sandbox *sa, bool all);

/* sandbox_release - free what @sa holds; it is empty again. */
void sandbox_release(struct sandbox *sa);

#endif /* VBOX_SANDBOX_H */
