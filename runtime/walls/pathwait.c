/* SPDX-License-Identifier: MIT */
/*
 * pathwait.c - blocking supervised opens in threads (pathwait.h).
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "pathwait.h"

struct wait {
	int listener;
	uint64_t id;
	int fd;
	int flags;
	bool cloexec;
};

static atomic_int waiting;

static void *wait_open(void *arg)
{
	struct wait *w = arg;
	struct seccomp_notif_addfd a;
	struct seccomp_notif_resp r;
	char proc[64];
	int fd;

	if (snprintf(proc, sizeof(proc), "/proc/self/fd/%d", w->fd) >=
	    (int)sizeof(proc))
		BUG("an fd number does not fit %zu bytes", sizeof(proc));
	fd = open(proc, w->flags);
	if (fd >= 0) {
		memset(&a, 0, sizeof(a));
		a.id = w->id;
		a.flags = SECCOMP_ADDFD_FLAG_SEND;
		a.srcfd = (uint32_t)fd;
		a.newfd_flags = w->cloexec ? O_CLOEXEC : 0;
		/* Fails only when the caller went away: nothing to answer. */
		(void)ioctl(w->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &a);
		close(fd);
	} else {
		memset(&r, 0, sizeof(r));
		r.id = w->id;
		r.error = -errno;
		(void)ioctl(w->listener, SECCOMP_IOCTL_NOTIF_SEND, &r);
	}
	close(w->fd);
	close(w->listener);
	free(w);
	atomic_fetch_sub(&waiting, 1);
	return NULL;
}

int pathwait_start(int listener, uint64_t id, int fd, int flags,
		   bool cloexec)
{
	pthread_attr_t attr;
	pthread_t t;
	struct wait *w;
	int rc;

	if (atomic_fetch_add(&waiting, 1) >= PATHWAIT_MAX) {
		atomic_fetch_sub(&waiting, 1);
		close(fd);
		return EAGAIN;
	}
	w = xzalloc(sizeof(*w));
	w->listener = fcntl(listener, F_DUPFD_CLOEXEC, 3);
	w->id = id;
	w->fd = fd;
	w->flags = flags;
	w->cloexec = cloexec;
	if (w->listener < 0) {
		rc = errno;
		goto fail;
	}
	rc = pthread_attr_init(&attr);
	if (rc)
		goto fail;
	rc = pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (!rc)
		rc = pthread_create(&t, &attr, wait_open, w);
	pthread_attr_destroy(&attr);
	if (!rc)
		return 0;
fail:
	if (w->listener >= 0)
		close(w->listener);
	close(fd);
	free(w);
	atomic_fetch_sub(&waiting, 1);
	return rc == EAGAIN ? EAGAIN : ENOMEM;
}
