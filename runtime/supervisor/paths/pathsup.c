/* SPDX-License-Identifier: MIT */
/*
 * pathsup.c - the supervisor's thread for supervised paths (pathsup.h).
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <poll.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "supervisor/childpath.h"
#include "execwatch.h"
#include "exit_codes.h"
#include "supervisor/metacall.h"
#include "pathcall.h"
#include "pathsup.h"
#include "pathwait.h"


/* Interrupts the thread's wait at the end (pathsup_stop()). */
#define STOP_SIGNAL SIGURG

struct pathsup {
	struct pathsup_config cfg;
	pthread_t thread;
	atomic_bool stop;
	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;
	struct child_fds fds;	/* the last caller's pidfd */
	bool no_getfd;		/* pidfd_getfd() refused: child_open_fd() */
	/* the thread's start, told to pathsup_start() */
	pthread_mutex_t start_lock;
	pthread_cond_t started;
	bool start_done;
	int start_err;		/* 0, or the errno that stopped it */
	/* its end, told to pathsup_stop() (start_lock), on @ended_clock */
	pthread_cond_t ended;
	clockid_t ended_clock;
	bool end_done;
	bool fs_shared;		/* no fs context of its own (below) */
	pthread_mutex_t names;	/* pathsup_names_lock() */
	atomic_ulong handled;	/* read by the loop for --log */
	atomic_ulong refused;
	atomic_ulong gone;
};

/* What the decoders read through: the calling thread's memory. */
struct caller {
	pid_t tid;
};

static int read_caller(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct caller *c = ctx;

	return child_peek(c->tid, addr, buf, len);
}

static bool still_pending(struct pathsup *ps, uint64_t id)
{
	uint64_t v = id;

	return ioctl(ps->cfg.listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &v) == 0;
}

static void answer(struct pathsup *ps, uint64_t id, int64_t val, int err)
{
	memset(ps->resp, 0, ps->cfg.resp_size);
	ps->resp->id = id;
	ps->resp->val = err ? 0 : val;
	ps->resp->error = err ? -err : 0;
	if (ioctl(ps->cfg.listener, SECCOMP_IOCTL_NOTIF_SEND, ps->resp) < 0)
		ps->gone++;	/* the caller went away (ENOENT) */
	else
		ps->handled++;
	if (err == EACCES || err == EROFS)
		ps->refused++;
}

/* Answer @id with @fd installed in the child (the call's result). */
static void answer_fd(struct pathsup *ps, uint64_t id, int fd, bool cloexec)
{
	struct seccomp_notif_addfd a;

	memset(&a, 0, sizeof(a));
	a.id = id;
	a.flags = SECCOMP_ADDFD_FLAG_SEND;
	a.srcfd = (uint32_t)fd;
	a.newfd_flags = cloexec ? O_CLOEXEC : 0;
	if (ioctl(ps->cfg.listener, SECCOMP_IOCTL_NOTIF_ADDFD, &a) >= 0)
		ps->handled++;
	else if (errno == ENOENT)
		ps->gone++;
	else
		answer(ps, id, 0, errno == EMFILE ? EMFILE : EACCES);
}

/*
 * The one SECCOMP_USER_NOTIF_FLAG_CONTINUE of the supervisors
 * (continue-site: execve).  No process can run a program for another, so
 * a judged execve() goes on as the child's own call; execwatch.c traces
 * the caller across it and judges what the kernel loaded before it runs
 * (doc/launcher.md, "What continues"; tests/source/continue_sites.sh
 * holds the code and that list to each other).  0 or ENOENT (the caller
 * is gone).
 */
static int go_on(void *ctx, uint64_t id)
{
	struct pathsup *ps = ctx;

	memset(ps->resp, 0, ps->cfg.resp_size);
	ps->resp->id = id;
	ps->resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	if (ioctl(ps->cfg.listener, SECCOMP_IOCTL_NOTIF_SEND, ps->resp) < 0) {
		ps->gone++;
		return ENOENT;
	}
	ps->handled++;
	return 0;
}

/*
 * pathcall_take_fn: the child's fd @fd (/proc/self/fd/N), a copy; where
 * pidfd_getfd() is refused (container mode under Docker's default
 * profile), a handle of its file (child_open_fd()).
 */
static int take(void *ctx, pid_t tid, int fd, int *out, int *acc)
{
	struct pathsup *ps = ctx;
	int rc;

	if (!ps->no_getfd) {
		rc = child_take_fd(&ps->fds, tid, fd, out);
		if (rc != EPERM && rc != ENOSYS) {
			if (!rc && acc)
				*acc = fcntl(*out, F_GETFL);
			return rc;
		}
		ps->no_getfd = true;	/* refused here: not asked again */
	}
	return child_open_fd(tid, fd, out, acc);
}

/*
 * One path or metadata call: decoded, checked to be still pending after
 * every read of the child (its memory was the caller's), made, answered.
 */
static void serve_one(struct pathsup *ps)
{
	const struct seccomp_data *d = &ps->req->data;
	struct caller c = { (pid_t)ps->req->pid };
	struct pathcall_env e = {
		.tid = c.tid,
		.root_fd = ps->cfg.root_fd,
		.judge = ps->cfg.judge,
		.below = ps->cfg.below,
		.judge_ctx = ps->cfg.judge_ctx,
		.take = take,
		.take_ctx = ps,
	};
	uint64_t id = ps->req->id;
	struct pathcall_result res;
	struct pathcall pc;
	struct metacall mc;
	bool meta = !pathcall_is(d);
	int err;

	err = meta ? metacall_decode(d, read_caller, &c, &mc) :
		     pathcall_decode(d, read_caller, &c, &pc);
	if (!still_pending(ps, id)) {
		ps->gone++;
		if (!err && meta)
			metacall_release(&mc);
		else if (!err)
			pathcall_release(&pc);
		return;
	}
	if (err) {
		answer(ps, id, 0, err);
		return;
	}
	pthread_mutex_lock(&ps->names);
	if (meta) {
		err = pathcall_meta(&mc, &e);
		pthread_mutex_unlock(&ps->names);
		metacall_release(&mc);
		answer(ps, id, 0, err);
		return;
	}
	pathcall_run(&pc, &e, &res);
	pthread_mutex_unlock(&ps->names);
	pathcall_release(&pc);
	if (res.exec_go) {
		err = execwatch_run(&e, id, go_on, ps);
		if (err)
			answer(ps, id, 0, err);
	} else if (res.blocking) {
		err = pathwait_start(ps->cfg.listener, id, res.fd,
				     res.open_flags, res.cloexec);
		if (err)
			answer(ps, id, 0, err);
	} else if (res.fd >= 0) {
		answer_fd(ps, id, res.fd, res.cloexec);
		close(res.fd);
	} else {
		answer(ps, id, res.val, res.err);
	}
}

/* No effective capability on this thread: calls made for the child
 * never pass a permission check the child would fail. */
static int drop_caps(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d) < 0)
		return -1;
	d[0].effective = d[1].effective = 0;
	return (int)syscall(SYS_capset, &h, d);
}

/*
 * Never seen: a wait that fails otherwise (the request is zeroed and
 * sized by the kernel) would leave every later path call of the sandbox
 * waiting unanswered until --timeout.  vbox-exec ends instead, and with
 * it the sandbox (bubblewrap's --die-with-parent; the kernel answers a
 * call still pending ENOSYS): nothing runs unjudged, and the user learns
 * it now.  Placeholders left on the host are removed by the next launch
 * (phreg.h), as after a killed launcher.
 */
static _Noreturn void receive_failed(int err)
{
	fprintf(stderr, "vbox-exec: the path supervisor cannot receive the "
		"sandbox's calls: %s; ending the sandbox\n", strerror(err));
	_exit(EXIT_LAUNCHER);
}

/*
 * True when no process uses the filter any more (the kernel reports
 * POLLHUP on its listener then, and for good: a filter without users
 * gets none back).  From then on the wait returns ENOENT at once, every
 * time: looping on it would spin a CPU through the sandbox's whole
 * teardown, which on a small machine slows the teardown itself.
 */
static bool filter_unused(int listener)
{
	struct pollfd p = { .fd = listener, .events = POLLIN };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLHUP);
}

/* Nothing is left to answer: wait for pathsup_stop()'s signal. */
static void park_until_stopped(struct pathsup *ps)
{
	while (!atomic_load(&ps->stop))
		pause();	/* the stop signal interrupts it */
}

static void *serve(void *arg)
{
	struct pathsup *ps = arg;
	struct seccomp_notif *copy;
	int err;

	while (!atomic_load(&ps->stop)) {
		memset(ps->req, 0, ps->cfg.req_size);
		if (ioctl(ps->cfg.listener, SECCOMP_IOCTL_NOTIF_RECV,
			  ps->req) < 0) {
			if (errno == ENOENT &&
			    filter_unused(ps->cfg.listener)) {
				park_until_stopped(ps);
				break;
			}
			if (errno == EINTR || errno == ENOENT)
				continue;	/* stopped, or caller gone */
			receive_failed(errno);
		}
		if (pathcall_is(&ps->req->data) ||
		    metacall_is(&ps->req->data)) {
			serve_one(ps);
			continue;
		}
		copy = xmalloc(ps->cfg.req_size);
		memcpy(copy, ps->req, ps->cfg.req_size);
		err = ps->cfg.forward(ps->cfg.forward_ctx, copy);
		if (err) {
			free(copy);
			answer(ps, ps->req->id, 0, err);
		}
	}
	return NULL;
}

static void on_stop_signal(int sig)
{
	(void)sig;	/* only to interrupt the wait */
}

static void tell_started(struct pathsup *ps, int err)
{
	pthread_mutex_lock(&ps->start_lock);
	ps->start_done = true;
	ps->start_err = err;
	pthread_cond_signal(&ps->started);
	pthread_mutex_unlock(&ps->start_lock);
}

/*
 * Runs on the new thread before serve(): its own umask, no caps.  A
 * file-system context of its own (CLONE_FS) keeps the umask it sets
 * around a creation off the loop's thread; where unshare() is refused
 * altogether (Docker's default seccomp profile refuses it whatever the
 * flags), the context stays shared, which holds as well: every umask
 * and working-directory change of vbox-exec while the sandbox runs is
 * made under the names lock (this thread's calls, the loop's pathname
 * bind(): pathsup_names_lock()).  Fails the start, never the process.
 */
static void *start(void *arg)
{
	struct pathsup *ps = arg;
	sigset_t set;
	int err = 0;

	sigemptyset(&set);
	sigaddset(&set, STOP_SIGNAL);
	if (unshare(CLONE_FS) < 0) {
		if (errno == EPERM || errno == ENOSYS)
			ps->fs_shared = true;
		else
			err = errno;
	}
	if (!err && drop_caps() < 0)
		err = errno;
	if (!err)
		err = pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	tell_started(ps, err);
	if (!err)
		serve(ps);
	pthread_mutex_lock(&ps->start_lock);
	ps->end_done = true;
	pthread_cond_signal(&ps->ended);
	pthread_mutex_unlock(&ps->start_lock);
	return NULL;
}

/*
 * Wait up to @ms for the thread's end (told by start()); whether it
 * came.  A condition on the monotonic clock where the C library allows
 * it: a step of the wall clock neither cuts the wait short nor
 * stretches it.
 */
static bool wait_ended(struct pathsup *ps, long ms)
{
	struct timespec until;
	bool ended;

	clock_gettime(ps->ended_clock, &until);
	until.tv_nsec += ms * 1000000L;
	until.tv_sec += until.tv_nsec / 1000000000L;
	until.tv_nsec %= 1000000000L;
	pthread_mutex_lock(&ps->start_lock);
	while (!ps->end_done &&
	       pthread_cond_timedwait(&ps->ended, &ps->start_lock,
				      &until) == 0)
		;
	ended = ps->end_done;
	pthread_mutex_unlock(&ps->start_lock);
	return ended;
}

struct pathsup *pathsup_start(const struct pathsup_config *cfg, char **err)
{
	struct pathsup *ps = xzalloc(sizeof(*ps));
	pthread_condattr_t monotonic;
	struct sigaction sa;
	sigset_t set, old;
	int rc;

	ps->cfg = *cfg;
	ps->fds.pidfd = -1;
	pthread_mutex_init(&ps->names, NULL);
	pthread_mutex_init(&ps->start_lock, NULL);
	pthread_cond_init(&ps->started, NULL);
	pthread_condattr_init(&monotonic);
	ps->ended_clock = pthread_condattr_setclock(&monotonic,
						    CLOCK_MONOTONIC) == 0 ?
			  CLOCK_MONOTONIC : CLOCK_REALTIME;
	pthread_cond_init(&ps->ended, &monotonic);
	pthread_condattr_destroy(&monotonic);
	ps->req = xzalloc(cfg->req_size);
	ps->resp = xzalloc(cfg->resp_size);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;	/* no SA_RESTART: EINTR */
	sigemptyset(&sa.sa_mask);
	if (sigaction(STOP_SIGNAL, &sa, NULL) < 0) {
		*err = xasprintf("cannot set up the path supervisor: %s",
				 strerror(errno));
		goto fail;
	}
	/* Born with the signal blocked; start() unblocks it on the thread. */
	sigemptyset(&set);
	sigaddset(&set, STOP_SIGNAL);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	rc = pthread_create(&ps->thread, NULL, start, ps);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		*err = xasprintf("cannot start the path supervisor: %s",
				 strerror(rc));
		goto fail;
	}
	pthread_mutex_lock(&ps->start_lock);
	while (!ps->start_done)
		pthread_cond_wait(&ps->started, &ps->start_lock);
	pthread_mutex_unlock(&ps->start_lock);
	if (ps->start_err) {
		*err = xasprintf("the path supervisor's thread cannot set "
				 "itself up: %s", strerror(ps->start_err));
		pthread_join(ps->thread, NULL);
		goto fail;
	}
	return ps;
fail:
	pthread_cond_destroy(&ps->started);
	pthread_cond_destroy(&ps->ended);
	pthread_mutex_destroy(&ps->start_lock);
	pthread_mutex_destroy(&ps->names);
	free(ps->req);
	free(ps->resp);
	free(ps);
	return NULL;
}

void pathsup_names_lock(struct pathsup *ps)
{
	pthread_mutex_lock(&ps->names);
}

void pathsup_names_unlock(struct pathsup *ps)
{
	pthread_mutex_unlock(&ps->names);
}

void pathsup_counts(const struct pathsup *ps, unsigned long *handled,
		    unsigned long *refused, unsigned long *gone)
{
	*handled = atomic_load(&ps->handled);
	*refused = atomic_load(&ps->refused);
	*gone = atomic_load(&ps->gone);
}

void pathsup_stop(struct pathsup *ps)
{
	int rc = EBUSY, i;

	if (!ps)
		return;
	atomic_store(&ps->stop, true);
	/* Until it has seen the flag: a signal may come before its wait,
	 * so it is sent again each millisecond.  A call it makes ends soon
	 * (nothing it does blocks): 5 s.  Its end is waited for, not a
	 * millisecond each time (every supervised launch paid one). */
	for (i = 0; i < 5000 && rc == EBUSY; i++) {
		if (pthread_kill(ps->thread, STOP_SIGNAL) != 0)
			break;
		if (wait_ended(ps, 1))
			rc = pthread_join(ps->thread, NULL);
	}
	if (rc != 0) {
		/* never: but then it keeps what it uses */
		pthread_detach(ps->thread);
		return;
	}
	child_fds_release(&ps->fds);
	pthread_cond_destroy(&ps->started);
	pthread_cond_destroy(&ps->ended);
	pthread_mutex_destroy(&ps->start_lock);
	pthread_mutex_destroy(&ps->names);
	free(ps->req);
	free(ps->resp);
	free(ps);
}
