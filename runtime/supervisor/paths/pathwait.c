/* SPDX-License-Identifier: MIT */
/*
 * pathwait.c - blocking supervised opens in threads (pathwait.h).
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "supervisor/childpath.h"
#include "pathwait.h"

/*
 * A waiter must learn that its caller went away (killed while its open
 * waited): nothing else ever opens the FIFO's other end then, and the
 * thread would hold its slot for the rest of the run (past
 * PATHWAIT_MAX, every blocking FIFO open of the sandbox would fail).
 * A timer of its own interrupts its open every WAKE_MS with WAKE_SIGNAL
 * (a handler without SA_RESTART: EINTR); it then asks whether the
 * notification is still pending, and opens again if so.
 */
#define WAKE_SIGNAL SIGURG
#define WAKE_MS 200

/* The kernel's struct sigevent, for SIGEV_THREAD_ID (no libc has it
 * the same way): 64 bytes. */
struct ksigevent {
	union sigval value;
	int signo;
	int notify;
	int tid;
	int pad[11];
};

struct wait {
	int listener;
	uint64_t id;
	int fd;
	int flags;
	bool cloexec;
};

static atomic_int waiting;

static void on_wake(int sig)
{
	(void)sig;	/* only to interrupt the open */
}

static void install_wake(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_wake;	/* no SA_RESTART: EINTR */
	sigemptyset(&sa.sa_mask);
	if (sigaction(WAKE_SIGNAL, &sa, NULL) < 0)
		BUG("sigaction: %s", strerror(errno));
}

/* A timer sending WAKE_SIGNAL to this thread every WAKE_MS: its id. */
static int wake_timer(int *id)
{
	struct ksigevent ev;
	struct itimerspec its = {
		.it_value = { 0, WAKE_MS * 1000000L },
		.it_interval = { 0, WAKE_MS * 1000000L },
	};
	sigset_t set;

	memset(&ev, 0, sizeof(ev));
	ev.signo = WAKE_SIGNAL;
	ev.notify = 4;	/* SIGEV_THREAD_ID */
	ev.tid = (int)syscall(SYS_gettid);
	sigemptyset(&set);
	sigaddset(&set, WAKE_SIGNAL);
	if (pthread_sigmask(SIG_UNBLOCK, &set, NULL) != 0 ||
	    syscall(SYS_timer_create, CLOCK_MONOTONIC, &ev, id) < 0)
		return -1;
	if (syscall(SYS_timer_settime, *id, 0, &its, NULL) < 0) {
		syscall(SYS_timer_delete, *id);
		return -1;
	}
	return 0;
}

static bool still_pending(const struct wait *w)
{
	uint64_t v = w->id;

	return ioctl(w->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &v) == 0;
}

static void *wait_open(void *arg)
{
	struct wait *w = arg;
	struct seccomp_notif_addfd a;
	struct seccomp_notif_resp r;
	char proc[64];
	int fd, timer, err = 0;
	bool timed;

	proc_name(proc, sizeof(proc), "/proc/self/fd/", w->fd, "");
	/* (without the timer, it waits as before: only the slot is lost) */
	timed = wake_timer(&timer) == 0;
	for (;;) {
		fd = open(proc, w->flags);
		err = fd < 0 ? errno : 0;
		if (fd >= 0 || err != EINTR)
			break;
		if (!still_pending(w))
			goto out;	/* nobody to answer */
	}
	if (timed)
		syscall(SYS_timer_delete, timer);
	timed = false;
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
		r.error = -err;
		(void)ioctl(w->listener, SECCOMP_IOCTL_NOTIF_SEND, &r);
	}
out:
	if (timed)
		syscall(SYS_timer_delete, timer);
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

	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, install_wake);
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
