/* SPDX-License-Identifier: MIT */
/*
 * loop_backend.h - what runtime/loop.c (clock, timers, the run loop)
 * asks of a backend: runtime/loop_epoll.c or runtime/loop_poll.c, one
 * of them linked into each program (loop.h).  Private to the loop.
 */
#ifndef VBOX_LOOP_BACKEND_H
#define VBOX_LOOP_BACKEND_H

#include "loop.h"

/* Set up the backend's part of a zeroed @lp.  0 or -errno. */
int backend_init(struct loop *lp);

/* Free the backend's part of @lp. */
void backend_release(struct loop *lp);

/* Register @w (inactive) for @events.  0 or -errno. */
int backend_add(struct loop *lp, struct loop_watch *w, uint32_t events);

/* Change @w's (active) events.  0 or -errno. */
int backend_modify(struct loop *lp, struct loop_watch *w, uint32_t events);

/*
 * Forget @w (active), and every event of the current round not yet
 * delivered to it.
 */
void backend_remove(struct loop *lp, struct loop_watch *w);

/*
 * Wait at most @timeout_ms (-1: no limit) and deliver what is ready,
 * stopping early when a callback calls loop_stop().  0 (EINTR included)
 * or -errno.
 */
int backend_wait(struct loop *lp, int timeout_ms);

#endif /* VBOX_LOOP_BACKEND_H */
