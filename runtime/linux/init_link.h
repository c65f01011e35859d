/* SPDX-License-Identifier: MIT */
/*
 * init_link.h - vbox-exec's end of the init channel (runtime/channel.h;
 * doc/launcher.md, "The init channel").
 *
 * Owned here: the socket pair, the CH_SETUP message vbox-exec sends
 * before bubblewrap starts (init_link_setup(): one function that adds
 * every attribute, in order), and the reports the init sends back,
 * received on the supervisor's loop and dispatched by type
 * (CH_READY, CH_STARTED, CH_EXEC_FAILED, CH_ERROR), fds by role.
 *
 * Extending it: a new setup item is an attribute added in
 * init_link_setup() (fds attached with ch_put_fd()) and handled in the
 * init's read_setup()/apply_setup(); an fd the init sends back is a new
 * enum ch_fd_role with an entry in init_link.c's fd_roles[] table, whose
 * handler takes ownership of the fd (and typically registers a watch on
 * the supervisor's loop).
 */
#ifndef VBOX_INIT_LINK_H
#define VBOX_INIT_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "channel.h"
#include "loop.h"

struct launch_request;
struct init_link;
struct sandbox;

/* init_link_fn - an event of the link (see struct init_link). */
typedef void (*init_link_fn)(struct init_link *l, void *ctx);

/**
 * struct init_link - the channel, as vbox-exec sees it
 * @sock: vbox-exec's end (-1 once the init side is gone)
 * @peer: the end bubblewrap passes to the init (-1 once handed over)
 * @watch: @sock on the supervisor's loop
 * @loop: that loop (NULL before init_link_watch())
 * @msg: the receive buffer (owned)
 * @ready: CH_READY arrived: the setup is in place
 * @init_pid: the init's host pid, from CH_READY's credentials
 * @started: CH_STARTED arrived: the command is about to be exec'd
 * @cmd_pid: the command's host pid, from the kernel's credentials
 * @exec_errno: CH_EXEC_FAILED's errno (0: none)
 * @error: CH_ERROR's message (owned; NULL: none)
 * @protocol_error: a malformed or unexpected message arrived (the link
 *                  was closed; the launch fails closed: 125)
 * @on_ready: called once when @ready becomes true
 * @walls_fd: the walls' memfd to attach to CH_SETUP (borrowed; -1: none)
 * @listener: CH_STARTED's CH_A_LISTENER, the socket filter's listener fd
 *            number in the command's process (-1: none)
 * @hand_listener: ask the init to send the listener itself
 *                 (CH_A_HAND_LISTENER: pidfd_getfd() is refused here)
 * @guard: container mode: ask the init to stay as the tree's guard
 *         (CH_A_GUARD), with @guard_flags (CH_GUARD_*)
 * @listener_fd: the listener CH_LISTENER_FD brought (owned; -1: none)
 * @on_started: called once when @started becomes true
 * @ctx: for @on_ready, @on_started and @on_listener
 * @listen_ports: ports the init must listen on (CH_A_LISTEN), or NULL
 * @nlisten: number of @listen_ports
 * @on_listener: takes each listening socket the init sends back
 *               (CH_FD_LISTEN); NULL: they are closed
 */
struct init_link {
	int sock;
	int peer;
	struct loop_watch watch;
	struct loop *loop;
	struct ch_msg *msg;
	bool ready;
	pid_t init_pid;
	bool started;
	pid_t cmd_pid;
	int exec_errno;
	char *error;
	bool protocol_error;
	init_link_fn on_ready;
	int walls_fd;
	int listener;
	bool hand_listener;
	bool guard;
	uint32_t guard_flags;
	int listener_fd;
	init_link_fn on_started;
	void *ctx;
	const uint16_t *listen_ports;
	size_t nlisten;
	void (*on_listener)(struct init_link *l, int fd, void *ctx);
};

/*
 * init_link_open - make the socket pair.  Returns 0, or -1 with *@err.
 * Release with init_link_release() either way.
 */
int init_link_open(struct init_link *l, char **err);

/*
 * init_link_setup - send CH_SETUP for @req and the sandbox @sa (before
 * the init can read it: the socket holds it).  Returns 0, or -1 with
 * *@err.
 */
int init_link_setup(struct init_link *l, const struct launch_request *req,
		    const struct sandbox *sa, char **err);

/*
 * init_link_listener_taken - tell the command's process that vbox-exec
 * holds the listener (CH_LISTENER_TAKEN).  0, or -1 with errno.
 */
int init_link_listener_taken(struct init_link *l);

/* init_link_handed_over - close vbox-exec's copy of the init's end. */
void init_link_handed_over(struct init_link *l);

/* init_link_watch - receive reports on @lp from now on: 0, or -1 with *@err. */
int init_link_watch(struct init_link *l, struct loop *lp, char **err);

/*
 * init_link_abandon - tell the init at the other end, which has had no
 * CH_SETUP, that its sandbox is not used (CH_ABANDON): it exits 125
 * without a word.  Before init_link_release(); errors are ignored.
 */
void init_link_abandon(struct init_link *l);

/* init_link_drain - take every report still queued (never blocks). */
void init_link_drain(struct init_link *l);

/* init_link_release - close and free what @l holds. */
void init_link_release(struct init_link *l);

#endif /* VBOX_INIT_LINK_H */
