/* SPDX-License-Identifier: MIT */
/*
 * launch.h - the platform interface of vbox-exec, and its one error
 * convention.
 *
 * vbox_exec.c parses the command line, loads the plan with the plan
 * library, refuses a plan for another platform and builds the child's
 * environment; then exactly one of runtime/linux/launch.c (bubblewrap)
 * or runtime/darwin/launch.c (sandbox-exec) is linked in and runs the
 * command under the plan.  Everything a platform file needs from the
 * rest is here.
 *
 * Errors: a function that can fail returns 0 (or a valid value) on
 * success and -1 with a one-line message in *err (the caller frees it)
 * on failure; the caller that gives up prints it once with vx_error()
 * and returns EXIT_LAUNCHER.  Functions that only print (vx_error) are
 * the top of a launch.  Exit statuses are exit_codes.h's.
 */
#ifndef VBOX_LAUNCH_H
#define VBOX_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>

struct plan;
struct env_list;

/*
 * enum launch_mode - how a linux plan is run (vbox-exec --mode;
 * doc/launcher.md, "Container mode")
 * @LAUNCH_NS: bubblewrap and namespaces (the default)
 * @LAUNCH_CONTAINER: no namespace: Landlock, seccomp, the supervisor
 * @LAUNCH_AUTO: container mode only where namespaces cannot start and
 *               the plan loses nothing there; said on stderr
 */
enum launch_mode {
	LAUNCH_NS = 0,
	LAUNCH_CONTAINER,
	LAUNCH_AUTO,
};

/**
 * struct launch_request - one launch, fully decided by the command line
 * @plan_path: the plan file as given (for messages)
 * @plan: the loaded plan, already checked to be for launch_platform()
 * @command: COMMAND [ARG...], NULL-terminated, at least one entry
 * @env: the child's environment (env.h), final but for the proxy
 *       variables a platform adds when it runs a proxy (env_with_proxy())
 * @pwd: what the child's PWD must be, or NULL to let the runner set it
 *       to the working directory
 * @unset_pwd: the child must not have PWD at all (--replace-env without
 *             -e PWD=...)
 * @workdir: the child's working directory, absolute, checked to be a
 *           directory on the host
 * @timeout_ms: end the tree after this long; 0 for never
 * @dry_run: print the runner's command line instead of starting it
 * @bwrap: --bwrap, or NULL
 * @mode: enum launch_mode
 * @accept_narrower: container mode may hold rows narrower than the table
 * @accept_unscoped_signals: container mode may run below Landlock ABI 6
 */
struct launch_request {
	const char *plan_path;
	const struct plan *plan;
	char *const *command;
	const struct env_list *env;
	const char *pwd;
	bool unset_pwd;
	const char *workdir;
	double timeout_ms;
	bool dry_run;
	const char *bwrap;
	int mode;
	bool accept_narrower;
	bool accept_unscoped_signals;
};

/* launch_platform - the enum plan_target this vbox-exec runs. */
int launch_platform(void);

/*
 * launch_run - run @req's command under its plan and wait for the whole
 * tree to end.  Returns vbox-exec's exit status: the command's status,
 * 128 + N for death by signal N, 124 after a timeout, 125 when the
 * sandbox could not be set up (a message on stderr says why; the command
 * never ran), 126/127 from the sandbox's init (runtime/init/init.c).  With @req->dry_run prints
 * the runner's command line on stdout and returns 0.
 */
int launch_run(const struct launch_request *req);

/* vx_log_enabled - --log was given. */
extern bool vx_log_enabled;

/* vx_quiet - --quiet was given: no "vbox:" notices or hints. */
extern bool vx_quiet;

/*
 * vx_log - with --log, one line "vbox-exec: [   1.234 ms] MESSAGE" on
 * stderr, the time counted from vbox-exec's start.
 */
__attribute__((format(printf, 1, 2))) void vx_log(const char *fmt, ...);

/* vx_log_origin - vx_log()'s time origin (proc_now_ms()'s clock). */
double vx_log_origin(void);

/* vx_error - "vbox-exec: MESSAGE" on stderr. */
__attribute__((format(printf, 1, 2))) void vx_error(const char *fmt, ...);

/*
 * vx_timed_out - the one stderr line of a --timeout of @timeout_ms that
 * expired (always printed: exit 124 alone does not say who ended it).
 */
void vx_timed_out(double timeout_ms);

/*
 * shell_quote - @s quoted for a POSIX shell: unchanged when it holds only
 * safe characters, else in single quotes (a quote inside written '\'').
 * Returns a new string (caller frees).
 */
char *shell_quote(const char *s);

#endif /* VBOX_LAUNCH_H */
