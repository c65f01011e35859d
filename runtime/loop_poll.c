/* SPDX-License-Identifier: MIT */
/*
 * loop_poll.c - the poll(2) backend of the event loop (loop.h,
 * loop_backend.h): macOS's, where there is no epoll, and built on Linux
 * too so that the tests run the proxy on it.
 *
 * The registered watches live in a table, each knowing its slot.  A
 * round copies the table into an array of struct pollfd, one per slot,
 * so that a ready entry i belongs to @slots[i].  Removing a watch during
 * the round leaves NULL in its slot, which drops its pending events; the
 * table is compacted at the start of the next round, never while events
 * are delivered.  A watch added during a round takes a slot past the
 * polled ones and waits for the next round.  poll() costs O(watches)
 * per round: fine for the proxy of one sandbox, which is what runs here.
 */
#include <vbox.h>

#include <errno.h>
#include <poll.h>

#include "grow.h"
#include "loop.h"
#include "loop_backend.h"

const char *loop_backend(void)
{
	return "poll";
}

int backend_init(struct loop *lp)
{
	(void)lp;
	return 0;
}

void backend_release(struct loop *lp)
{
	size_t i;

	for (i = 0; i < lp->nslots; i++)
		if (lp->slots[i])
			lp->slots[i]->slot = SIZE_MAX;
	free(lp->slots);
	lp->slots = NULL;
	lp->nslots = lp->slots_cap = 0;
	free(lp->batch);
	lp->batch = NULL;
	lp->batch_cap = 0;
}

static short to_poll(uint32_t events)
{
	return (short)(((events & LOOP_IN) ? POLLIN : 0) |
		       ((events & LOOP_OUT) ? POLLOUT : 0));
}

static uint32_t from_poll(short revents)
{
	return ((revents & POLLIN) ? LOOP_IN : 0) |
	       ((revents & POLLOUT) ? LOOP_OUT : 0) |
	       ((revents & (POLLERR | POLLNVAL)) ? LOOP_ERR : 0) |
	       ((revents & POLLHUP) ? LOOP_HUP : 0);
}

int backend_add(struct loop *lp, struct loop_watch *w, uint32_t events)
{
	(void)events;
	if (w->fd < 0)
		return -EBADF;
	GROW(lp->slots, lp->slots_cap, lp->nslots + 1);
	w->slot = lp->nslots;
	lp->slots[lp->nslots++] = w;
	return 0;
}

int backend_modify(struct loop *lp, struct loop_watch *w, uint32_t events)
{
	/* the next round reads w->events */
	(void)lp;
	(void)w;
	(void)events;
	return 0;
}

void backend_remove(struct loop *lp, struct loop_watch *w)
{
	if (w->slot >= lp->nslots || lp->slots[w->slot] != w)
		BUG("loop: watch of fd %d is not in its slot", w->fd);
	lp->slots[w->slot] = NULL;
	w->slot = SIZE_MAX;
}

/* compact - close the holes removed watches left */
static void compact(struct loop *lp)
{
	size_t i, n = 0;

	for (i = 0; i < lp->nslots; i++) {
		struct loop_watch *w = lp->slots[i];

		if (!w)
			continue;
		w->slot = n;
		lp->slots[n++] = w;
	}
	lp->nslots = n;
}

int backend_wait(struct loop *lp, int timeout_ms)
{
	struct pollfd *pfd;
	size_t i, n;
	int rc;

	compact(lp);
	n = lp->nslots;
	pfd = lp->batch;
	GROW(pfd, lp->batch_cap, n ? n : 1);
	lp->batch = pfd;
	for (i = 0; i < n; i++) {
		pfd[i].fd = lp->slots[i]->fd;
		pfd[i].events = to_poll(lp->slots[i]->events);
		pfd[i].revents = 0;
	}
	rc = poll(pfd, (nfds_t)n, timeout_ms);
	if (rc < 0)
		return errno == EINTR ? 0 : -errno;
	lp->nbatch = (int)n;
	/* lp->slots may move (a callback adds a watch): index it anew */
	for (i = 0; i < n && rc > 0 && !lp->stopped; i++) {
		struct loop_watch *w = lp->slots[i];

		if (!pfd[i].revents)
			continue;
		rc--;
		if (w)
			w->fn(lp, w, from_poll(pfd[i].revents));
	}
	lp->nbatch = 0;
	return 0;
}
