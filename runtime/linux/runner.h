/* SPDX-License-Identifier: MIT */
/*
 * runner.h - bubblewrap, the runner of a launch in namespace mode
 * (runner.c), for launch.c, which decides the order of a launch.
 */
#ifndef VBOX_LINUX_RUNNER_H
#define VBOX_LINUX_RUNNER_H

#include <stdbool.h>

struct launch_request;
struct sandbox;
struct tree;
struct wbuf;

/*
 * runner_start - start bubblewrap before the sandbox is decided, its
 * argument list to come on a socket (@t->args_fd), with the egress
 * proxy's process where the plan has one.  0, or -1 with *@err.
 */
int runner_start(struct tree *t, const struct launch_request *req,
		 const char *bwrap, char **err);

/*
 * runner_send_early - give bubblewrap its part of the frame (the table
 * without its launch rows: sandbox_build_frame()) at once, when nothing
 * in it waits for what the launch makes on the host; the bytes sent in
 * @sent (empty: none went out, or bubblewrap has part of a list), the
 * frame kept in *@frame for its private /tmp.  Never fails: without an
 * early list the real one goes out later (--log says why).
 */
void runner_send_early(struct tree *t, const struct launch_request *req,
		       bool knows, const char *tty, const char *tty1,
		       struct sandbox *frame, struct wbuf *sent);

/*
 * runner_send_setup - the sandbox @sa is decided: bubblewrap gets its
 * list unless the early one @early is it (else bubblewrap is started
 * again), the init its setup.  0; 1 when bubblewrap, given the early
 * list, has ended already (its status says why); -1 with *@err.
 */
int runner_send_setup(struct tree *t, const struct launch_request *req,
		      const struct sandbox *sa, const struct wbuf *early,
		      const char *bwrap, char **err);

/*
 * runner_abort - the launch failed before the init had its setup: end
 * bubblewrap and anything it started, and reap them.
 */
void runner_abort(struct tree *t);

#endif /* VBOX_LINUX_RUNNER_H */
