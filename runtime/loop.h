/* SPDX-License-Identifier: MIT */
/*
 * loop.h - the one event loop of vbox-exec, with two backends chosen at
 * build time: runtime/loop_epoll.c (Linux) and runtime/loop_poll.c
 * (poll(2): macOS, and built on Linux too so that it is tested there).
 * runtime/loop.c holds what both share: the clock, the timer heap and
 * the run loop.
 *
 * vbox-exec stays one process: the supervisor of the sandbox (signals
 * through a signalfd, the sandbox's init through a pidfd, seccomp
 * notifications) and the egress proxy (listeners and connections) all
 * register here, and one thread runs them.  The loop knows nothing of
 * what it watches: a user embeds a struct loop_watch or struct loop_timer
 * in its own object and gets called back with it.
 *
 * Callbacks may add, change and remove any watch or timer, their own
 * included, and free the object that embeds it after removing it: events
 * of the current batch for a removed watch are dropped, never delivered.
 */
#ifndef VBOX_LOOP_H
#define VBOX_LOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Event bits of a watch, the same on both backends.  They have the
 * values of EPOLLIN, EPOLLOUT, EPOLLERR, EPOLLHUP and EPOLLRDHUP
 * (loop_epoll.c checks that at build time), so Linux-only callers may
 * pass the EPOLL* names.  LOOP_ERR and LOOP_HUP are always reported,
 * asked for or not.  LOOP_RDHUP is reported by the epoll backend only.
 */
#define LOOP_IN 0x001u
#define LOOP_OUT 0x004u
#define LOOP_ERR 0x008u
#define LOOP_HUP 0x010u
#define LOOP_RDHUP 0x2000u

struct loop;
struct loop_watch;
struct loop_timer;

/* loop_fd_fn - @w's fd is ready: @events is a mask of LOOP_* bits. */
typedef void (*loop_fd_fn)(struct loop *lp, struct loop_watch *w,
			   uint32_t events);

/* loop_timer_fn - @t's deadline has passed; it is disarmed already. */
typedef void (*loop_timer_fn)(struct loop *lp, struct loop_timer *t);

/**
 * struct loop_watch - one watched file descriptor, embedded by its user
 * @fd: the descriptor (the loop never closes it)
 * @events: the LOOP_* events asked for (set by loop_watch_add/_modify)
 * @fn: called when @fd is ready
 * @ctx: for the user
 * @active: registered with the loop (loop-private)
 * @slot: poll backend: index in the loop's watch table (loop-private)
 */
struct loop_watch {
	int fd;
	uint32_t events;
	loop_fd_fn fn;
	void *ctx;
	bool active;
	size_t slot;
};

/**
 * struct loop_timer - one deadline, embedded by its user
 * @deadline_ms: when it fires, on loop_now_ms()'s clock (loop-private
 *               while armed)
 * @fn: called once when the deadline has passed
 * @ctx: for the user
 * @heap_index: position in the loop's heap, or SIZE_MAX when disarmed
 *              (loop-private)
 */
struct loop_timer {
	double deadline_ms;
	loop_timer_fn fn;
	void *ctx;
	size_t heap_index;
};

/**
 * struct loop - the event loop
 * @fd: epoll: the epoll instance; poll: -1
 * @batch: epoll: events of the current round; poll: one struct pollfd
 *         per @slots entry
 * @batch_cap: poll: allocated @batch entries
 * @nbatch: entries of @batch being delivered this round
 * @ibatch: epoll: the entry being delivered
 * @slots: poll: the registered watches; a removed one leaves NULL until
 *         the next round compacts the table
 * @nslots: poll: used @slots entries
 * @slots_cap: poll: allocated @slots entries
 * @timers: min-heap of armed timers by deadline
 * @ntimers: armed timers
 * @timers_cap: allocated @timers entries
 * @nwatches: registered watches
 * @stopped: loop_stop() was called
 */
struct loop {
	int fd;
	void *batch;
	size_t batch_cap;
	int nbatch;
	int ibatch;
	struct loop_watch **slots;
	size_t nslots;
	size_t slots_cap;
	struct loop_timer **timers;
	size_t ntimers;
	size_t timers_cap;
	size_t nwatches;
	bool stopped;
};

/* loop_now_ms - the loop's monotonic clock, in milliseconds. */
double loop_now_ms(void);

/*
 * loop_init - make @lp an empty loop.  Returns 0, or -errno when the
 * backend cannot start (epoll_create1()).  Release with loop_release().
 */
int loop_init(struct loop *lp);

/*
 * loop_release - free what @lp holds (not the watches' fds, not the
 * objects that embed watches or timers); @lp can be initialised again.
 */
void loop_release(struct loop *lp);

/* loop_watch_init - make @w a disarmed watch of @fd calling @fn. */
void loop_watch_init(struct loop_watch *w, int fd, loop_fd_fn fn, void *ctx);

/*
 * loop_watch_add - start watching @w->fd for @events.  Returns 0 or
 * -errno (EEXIST when @w is active already).
 */
int loop_watch_add(struct loop *lp, struct loop_watch *w, uint32_t events);

/* loop_watch_modify - watch @w (active) for @events instead.  0 or -errno. */
int loop_watch_modify(struct loop *lp, struct loop_watch *w,
		      uint32_t events);

/*
 * loop_watch_remove - stop watching @w (a no-op when inactive).  Pending
 * events of the current round for @w are dropped, so its embedding
 * object may be freed right after.  Remove a watch before closing its fd.
 */
void loop_watch_remove(struct loop *lp, struct loop_watch *w);

/* loop_timer_init - make @t a disarmed timer calling @fn. */
void loop_timer_init(struct loop_timer *t, loop_timer_fn fn, void *ctx);

/*
 * loop_timer_arm - fire @t once at @deadline_ms (loop_now_ms() clock);
 * re-arms an armed timer.
 */
void loop_timer_arm(struct loop *lp, struct loop_timer *t,
		    double deadline_ms);

/* loop_timer_cancel - disarm @t (a no-op when disarmed). */
void loop_timer_cancel(struct loop *lp, struct loop_timer *t);

/* loop_timer_armed - @t will fire. */
static inline bool loop_timer_armed(const struct loop_timer *t)
{
	return t->heap_index != SIZE_MAX;
}

/*
 * loop_run - deliver events and timers until loop_stop() is called, or
 * nothing is left to wait for (no watch, no timer).  Returns 0, or -errno
 * when epoll_wait() or poll() fails for another reason than EINTR.
 */
int loop_run(struct loop *lp);

/* loop_backend - "epoll" or "poll", for logs and test names. */
const char *loop_backend(void);

/* loop_stop - make loop_run() return after the current callback. */
void loop_stop(struct loop *lp);

#endif /* VBOX_LOOP_H */
