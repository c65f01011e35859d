/* SPDX-License-Identifier: MIT */
/*
 * loop.c - what both backends of the event loop share (loop.h): the
 * clock, the binary min-heap of deadlines, the watch bookkeeping and the
 * run loop.  Waiting on descriptors is the backend's (loop_backend.h).
 */
#include <vbox.h>

#include <errno.h>
#include <time.h>

#include "loop.h"
#include "loop_backend.h"

double loop_now_ms(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		BUG("clock_gettime(CLOCK_MONOTONIC) failed");
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int loop_init(struct loop *lp)
{
	int rc;

	memset(lp, 0, sizeof(*lp));
	lp->fd = -1;
	rc = backend_init(lp);
	if (rc)
		backend_release(lp);
	return rc;
}

void loop_release(struct loop *lp)
{
	size_t i;

	backend_release(lp);
	for (i = 0; i < lp->ntimers; i++)
		lp->timers[i]->heap_index = SIZE_MAX;
	free(lp->timers);
	memset(lp, 0, sizeof(*lp));
	lp->fd = -1;
}

void loop_watch_init(struct loop_watch *w, int fd, loop_fd_fn fn, void *ctx)
{
	w->fd = fd;
	w->events = 0;
	w->fn = fn;
	w->ctx = ctx;
	w->active = false;
	w->slot = SIZE_MAX;
}

int loop_watch_add(struct loop *lp, struct loop_watch *w, uint32_t events)
{
	int rc;

	if (w->active)
		return -EEXIST;
	rc = backend_add(lp, w, events);
	if (rc)
		return rc;
	w->events = events;
	w->active = true;
	lp->nwatches++;
	return 0;
}

int loop_watch_modify(struct loop *lp, struct loop_watch *w, uint32_t events)
{
	int rc;

	if (!w->active)
		return -ENOENT;
	if (w->events == events)
		return 0;
	rc = backend_modify(lp, w, events);
	if (rc)
		return rc;
	w->events = events;
	return 0;
}

void loop_watch_remove(struct loop *lp, struct loop_watch *w)
{
	if (!w->active)
		return;
	/* The embedding object may be freed next: the backend forgets
	 * the events of this round not yet delivered to @w. */
	backend_remove(lp, w);
	w->active = false;
	lp->nwatches--;
}

/* ---- timers: a min-heap on deadline_ms ---- */

static void heap_set(struct loop *lp, size_t i, struct loop_timer *t)
{
	lp->timers[i] = t;
	t->heap_index = i;
}

static void heap_up(struct loop *lp, size_t i)
{
	struct loop_timer *t = lp->timers[i];

	while (i > 0) {
		size_t parent = (i - 1) / 2;

		if (lp->timers[parent]->deadline_ms <= t->deadline_ms)
			break;
		heap_set(lp, i, lp->timers[parent]);
		i = parent;
	}
	heap_set(lp, i, t);
}

static void heap_down(struct loop *lp, size_t i)
{
	struct loop_timer *t = lp->timers[i];

	for (;;) {
		size_t child = 2 * i + 1;

		if (child >= lp->ntimers)
			break;
		if (child + 1 < lp->ntimers &&
		    lp->timers[child + 1]->deadline_ms <
			    lp->timers[child]->deadline_ms)
			child++;
		if (t->deadline_ms <= lp->timers[child]->deadline_ms)
			break;
		heap_set(lp, i, lp->timers[child]);
		i = child;
	}
	heap_set(lp, i, t);
}

void loop_timer_init(struct loop_timer *t, loop_timer_fn fn, void *ctx)
{
	t->deadline_ms = 0;
	t->fn = fn;
	t->ctx = ctx;
	t->heap_index = SIZE_MAX;
}

void loop_timer_cancel(struct loop *lp, struct loop_timer *t)
{
	size_t i = t->heap_index;
	struct loop_timer *last;

	if (i == SIZE_MAX)
		return;
	t->heap_index = SIZE_MAX;
	last = lp->timers[--lp->ntimers];
	if (last == t)
		return;
	heap_set(lp, i, last);
	heap_down(lp, i);
	heap_up(lp, last->heap_index);
}

void loop_timer_arm(struct loop *lp, struct loop_timer *t,
		    double deadline_ms)
{
	loop_timer_cancel(lp, t);
	if (lp->ntimers == lp->timers_cap) {
		lp->timers_cap = lp->timers_cap ? 2 * lp->timers_cap : 16;
		lp->timers = xreallocarray(lp->timers, lp->timers_cap,
					   sizeof(*lp->timers));
	}
	t->deadline_ms = deadline_ms;
	heap_set(lp, lp->ntimers++, t);
	heap_up(lp, t->heap_index);
}

/* Fire every timer whose deadline has passed; the next wait in ms. */
static int run_timers(struct loop *lp)
{
	for (;;) {
		struct loop_timer *t;
		double left;

		if (lp->stopped)
			return 0;
		if (lp->ntimers == 0)
			return -1;
		t = lp->timers[0];
		left = t->deadline_ms - loop_now_ms();
		if (left > 0) {
			/* Round up, so a timer never wakes the loop early. */
			if (left >= (double)INT32_MAX)
				return INT32_MAX;
			return (int)left + 1;
		}
		loop_timer_cancel(lp, t);
		t->fn(lp, t);
	}
}

int loop_run(struct loop *lp)
{
	lp->stopped = false;
	while (!lp->stopped) {
		int timeout = run_timers(lp);
		int rc;

		if (lp->stopped)
			break;
		if (timeout < 0 && lp->nwatches == 0)
			break;
		rc = backend_wait(lp, timeout);
		if (rc)
			return rc;
	}
	return 0;
}

void loop_stop(struct loop *lp)
{
	lp->stopped = true;
}
