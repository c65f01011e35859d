/* SPDX-License-Identifier: MIT */
/*
 * bwrap.h - bubblewrap itself: which one runs, what it supports, the
 * argument list it reads, the init's command line, and the --dry-run
 * line (doc/launcher.md, "How a launch works").
 *
 * The fds bubblewrap gets, in proc_spawn order (fd 3 + index):
 *   3  the init binary (vbox-init), executed as /proc/self/fd/3 so it
 *      runs even where the policy hides its path;
 *   4  its end of the argument socket, the rendered list (`--args 4`);
 *   5  the init's end of the init channel (runtime/channel.h).
 */
#ifndef VBOX_BWRAP_H
#define VBOX_BWRAP_H

#include <stdbool.h>
#include <stddef.h>

struct launch_request;
struct sandbox;

enum {
	BWRAP_FD_INIT,
	BWRAP_FD_ARGS,
	BWRAP_FD_CHANNEL,
	BWRAP_NFDS,
};

/*
 * bwrap_find - the bubblewrap to run: @explicit (--bwrap=PATH, absolute)
 * when given, else the path configure found.  Never an ambient variable
 * or PATH.  NULL with *@err when it is not an executable file.
 */
char *bwrap_find(const char *explicit, char **err);

/*
 * bwrap_knows - does the bubblewrap binary know @opt?  For the configure-
 * time bubblewrap and --disable-userns, configure's answer (a bubblewrap
 * replaced later by one without the option rejects it: fail closed).
 * Otherwise its option names are looked for as string literals in the
 * binary, far cheaper than running "bwrap --help".
 */
bool bwrap_knows(const char *bwrap, const char *opt);

/*
 * bwrap_check_userns - that user namespaces can work, before anything
 * is started (not needed for a setuid bubblewrap): where ns_suspect()
 * sees something that can refuse them, the probe (nsprobe.h) runs.
 * Returns 0, or -1 with *@err naming the probed cause.
 */
int bwrap_check_userns(const char *bwrap, char **err);

/*
 * bwrap_diagnose_userns - after bubblewrap failed: was it userns?  Prints
 * the probed cause (ns_refused_message()) when it was.
 */
void bwrap_diagnose_userns(void);

/*
 * init_path - the sandbox's init: VBOX_INIT_PATH (configure time:
 * $(pkglibexecdir)/vbox-init), or, only for the vbox-exec binary of the
 * build tree itself (its /proc/self/exe is the configure-time
 * VBOX_BUILD_EXE_PATH), the init of the build tree.  Never from the
 * environment.
 */
const char *init_path(void);

/*
 * launcher_in_build_tree - this is the build tree's vbox-exec (its own
 * path is the configure-time path): only it uses the build tree's init
 * and proxy, and honours the test suite's knobs.
 */
bool launcher_in_build_tree(void);

/*
 * proxy_path - the egress proxy's program, vbox-proxy: VBOX_PROXY_PATH
 * ($(pkglibexecdir)/vbox-proxy), or the build tree's for the build
 * tree's vbox-exec, as init_path() chooses.
 */
const char *proxy_path(void);

/*
 * bwrap_args_render - @sa's argument list, as bubblewrap reads it from
 * its socket (lx_render()), appended to @out.
 */
struct wbuf;
void bwrap_args_render(const struct sandbox *sa, struct wbuf *out);

/* bwrap_args_write - send @args whole on the stream socket @fd (the
 * caller closes @fd: the end of the list).  0, or -1 with *@err. */
int bwrap_args_write(int fd, const struct wbuf *args, char **err);

/*
 * bwrap_argv - the whole command line around the argument list:
 * BWRAP --args 4 -- /proc/self/fd/3 --channel=5 --
 * COMMAND [ARG...]; NULL-terminated, the strings owned by the vector
 * (free with bwrap_argv_free()).
 */
char **bwrap_argv(const char *bwrap, const struct launch_request *req);
void bwrap_argv_free(char **argv);

/*
 * bwrap_print_dry_run - one line a POSIX shell runs as the launch would,
 * the init's fd included, placeholders made before and removed after.
 * The line runs the init without a channel, so it carries no setup (see
 * doc/launcher.md).  Returns 0 or EXIT_LAUNCHER.
 */
int bwrap_print_dry_run(const struct launch_request *req, const char *bwrap,
			const struct sandbox *sa);

#endif /* VBOX_BWRAP_H */
