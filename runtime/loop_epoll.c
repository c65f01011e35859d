/* SPDX-License-Identifier: MIT */
/*
 * loop_epoll.c - the Linux backend of the event loop: one epoll
 * instance, level-triggered, up to LOOP_BATCH events per round
 * (loop.h, loop_backend.h).
 */
#include <vbox.h>

#include <errno.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "loop.h"
#include "loop_backend.h"

/* Events taken from the kernel per round. */
#define LOOP_BATCH 64

/* loop.h promises the EPOLL* values, so both spellings work here. */
_Static_assert(LOOP_IN == EPOLLIN && LOOP_OUT == EPOLLOUT &&
		       LOOP_ERR == EPOLLERR && LOOP_HUP == EPOLLHUP &&
		       LOOP_RDHUP == EPOLLRDHUP,
	       "LOOP_* bits are the EPOLL* bits");

const char *loop_backend(void)
{
	return "epoll";
}

int backend_init(struct loop *lp)
{
	lp->fd = epoll_create1(EPOLL_CLOEXEC);
	if (lp->fd < 0)
		return -errno;
	lp->batch = xcalloc(LOOP_BATCH, sizeof(struct epoll_event));
	return 0;
}

void backend_release(struct loop *lp)
{
	if (lp->fd >= 0)
		close(lp->fd);
	lp->fd = -1;
	free(lp->batch);
	lp->batch = NULL;
}

int backend_add(struct loop *lp, struct loop_watch *w, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = w };

	if (epoll_ctl(lp->fd, EPOLL_CTL_ADD, w->fd, &ev) != 0)
		return -errno;
	return 0;
}

int backend_modify(struct loop *lp, struct loop_watch *w, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = w };

	if (epoll_ctl(lp->fd, EPOLL_CTL_MOD, w->fd, &ev) != 0)
		return -errno;
	return 0;
}

void backend_remove(struct loop *lp, struct loop_watch *w)
{
	struct epoll_event *batch = lp->batch;
	int i;

	/* Only fails for an fd already closed, which removed it anyway. */
	(void)epoll_ctl(lp->fd, EPOLL_CTL_DEL, w->fd, NULL);
	for (i = lp->ibatch + 1; i < lp->nbatch; i++)
		if (batch[i].data.ptr == w)
			batch[i].data.ptr = NULL;
}

int backend_wait(struct loop *lp, int timeout_ms)
{
	struct epoll_event *batch = lp->batch;
	int n = epoll_wait(lp->fd, batch, LOOP_BATCH, timeout_ms);

	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	lp->nbatch = n;
	for (lp->ibatch = 0; lp->ibatch < n && !lp->stopped; lp->ibatch++) {
		struct loop_watch *w = batch[lp->ibatch].data.ptr;

		if (w)
			w->fn(lp, w, batch[lp->ibatch].events);
	}
	lp->nbatch = 0;
	lp->ibatch = 0;
	return 0;
}
