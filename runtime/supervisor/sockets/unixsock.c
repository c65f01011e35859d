/* SPDX-License-Identifier: MIT */
/*
 * unixsock.c - perform the sandbox's addressed socket calls for it; see
 * unixsock.h.  This file: the notification loop.
 *
 * One notification at a time is received; each becomes a struct op that
 * holds everything copied from the child (the socket taken with
 * pidfd_getfd(), the decoded call, the fds of SCM_RIGHTS), so the call
 * can be performed, and retried from a timer while it would block,
 * without looking at the child again.  The decoding of the child's bytes
 * (addresses, msghdrs, iovecs, control data) is sockcall.c's: pure code
 * reading the child's memory through us_read_child(), which the fuzz
 * harness replaces.  After every read of the child,
 * SECCOMP_IOCTL_NOTIF_ID_VALID: the thread is still waiting in this very
 * call, so the pid was not reused and the memory was its.
 *
 * The call is made with the child's permission checks: when vbox-exec
 * has capabilities (run as root), its effective set is emptied around
 * the call, so a socket file the child could not open for writing is
 * not reached through the supervisor's CAP_DAC_OVERRIDE.
 *
 * The supervisor is split by responsibility (unixsock_int.h lists the
 * files).  Here: receiving (from the listener, or handed over by the
 * supervised paths' thread), preparing the op (prepare(): the child's
 * socket and call), dispatching it (handle(): performed, or queued for
 * a retry), container mode's metadata calls
 * (handle_metacall(); the decoding and the change are metacall.c's),
 * and the supervisor's life.  What the op is then made of lives beside:
 * its answers and its freeing (unixsock_op.c), its destination
 * (unixsock_dest.c), container mode's
 * inet admission (unixsock_inet.c), the call itself and its retries
 * (unixsock_perform.c), and the emulation where pidfd_getfd() is
 * refused (unixsock_emul.c).  The line falls where a part needs only the
 * op, not the loop: each of those files is reached through a few calls,
 * and the loop's state stays here.
 *
 * No buffer here is sized by the child: paths are built in a struct
 * strbuf and the child's /proc files read into one (childpath.c), and
 * what sockcall.c copies is allocated to its checked length.
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "supervisor/childpath.h"
#include "walls/container_rules.h"
#include "loop.h"
#include "supervisor/metacall.h"
#include "supervisor/paths/pathsup.h"
#include "sockcall.h"
#include "unixsock.h"
#include "unixsock_int.h"

/* Linux 6.6: wake the supervisor and the child on one CPU, in turn. */
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

/* A notification pathsup.c's thread handed over (not a path call). */
struct fwd {
	struct fwd *next;
	struct seccomp_notif *req;	/* the kernel's size (owned) */
};

/* ------------------------------------------------------------------ */
/* one notification */

/*
 * Everything the call needs from the child: its socket, the decoded
 * call, the destinations and fds.  0 or an errno for the child.
 */
static int prepare(struct unixsock *us, struct op *op,
		   const struct seccomp_data *d)
{
	struct sockcall_sock sk;
	enum sockcall_kind kind;
	socklen_t sl;
	size_t i;
	int fd, rc, v;

	if (us->cfg.no_getfd)
		return us_prepare_emulated(us, op, d);
	rc = sockcall_fd(d, &kind, &fd);
	if (rc)
		return rc;
	rc = us_take_fd(us, op->tid, fd, &op->sock);
	if (rc)
		return rc;
	/* (Nothing is done with what is taken before the caller is
	 * checked again, in handle().) */
	sl = sizeof(v);
	if (getsockopt(op->sock, SOL_SOCKET, SO_DOMAIN, &v, &sl) < 0)
		return errno;	/* ENOTSOCK, as the kernel */
	sk.family = v;
	sl = sizeof(v);
	sk.type = getsockopt(op->sock, SOL_SOCKET, SO_TYPE, &v, &sl) < 0 ?
		  -1 : v;
	sl = sizeof(v);
	sk.sndbuf = getsockopt(op->sock, SOL_SOCKET, SO_SNDBUF, &v, &sl) < 0 ||
		    v < 0 ? 0 : (size_t)v;
	op->sockfl = fcntl(op->sock, F_GETFL);
	rc = sockcall_decode(d, &sk, us_read_child, op, &op->call);
	if (rc)
		return rc;
	op->blocking = op->sockfl >= 0 && !(op->sockfl & O_NONBLOCK) &&
		       !(op->call.flags & MSG_DONTWAIT);
	if (!op->call.nmsgs)
		return 0;
	op->dest = xcalloc(op->call.nmsgs, sizeof(*op->dest));
	op->sent = xcalloc(op->call.nmsgs, sizeof(*op->sent));
	for (i = 0; i < op->call.nmsgs; i++)
		op->dest[i].target = -1;
	for (i = 0; i < op->call.nmsgs; i++) {
		rc = us_take_dest(op, i);
		if (rc)
			return rc;
	}
	return 0;
}

static void handle(struct loop *lp, struct unixsock *us);

/* The most notifications answered per wake-up of the loop. */
#define NOTIFY_BURST 32

static void on_notify(struct loop *lp, struct loop_watch *w, uint32_t events)
{
	struct unixsock *us = w->ctx;
	struct pollfd more = { .fd = w->fd, .events = POLLIN };
	bool dropped = false;
	int n;

	if (events & (EPOLLHUP | EPOLLERR)) {
		/* No process uses the filter any more. */
		loop_watch_remove(lp, w);
		return;
	}
	/*
	 * Calls that wait already are answered in one go (at most
	 * NOTIFY_BURST, so the loop's other work is not starved), with the
	 * capabilities dropped once: a busy sandbox (make -j2, supervised
	 * paths) makes them back to back.
	 */
	for (n = 0; n < NOTIFY_BURST; n++) {
		if (n > 0 && (poll(&more, 1, 0) <= 0 ||
			      !(more.revents & POLLIN)))
			break;
		memset(us->req, 0, us->req_size);
		if (ioctl(w->fd, SECCOMP_IOCTL_NOTIF_RECV, us->req) < 0)
			break;	/* EINTR, or the caller went away (ENOENT) */
		if (us->have_caps && !dropped) {
			us_caps_effective(us, false);
			dropped = true;
		}
		handle(lp, us);
	}
	if (dropped)
		us_caps_effective(us, true);
}

/* Container mode: may the file at @path change (its region's rights)? */
static bool meta_writable(void *ctx, const char *path)
{
	const struct unixsock *us = ctx;

	/*
	 * /dev is the container's (or the host's) own: writing a device is
	 * granted, changing an inode there (/dev/pts made 0700 locks every
	 * other user out of new terminals) never is.
	 */
	if (strcmp(path, "/dev") == 0 || strncmp(path, "/dev/", 5) == 0)
		return false;
	return (container_rights_at(us->cfg.container, path) &
		CR_WRITE_FILE) != 0;
}

/*
 * Container mode's metadata calls (metacall.h): decoded, checked to be
 * still pending after every read of the child, made by the supervisor.
 * (With supervised paths, pathsup.c's thread makes them.)
 */
static void handle_metacall(struct unixsock *us, struct op *op)
{
	struct metacall mc;
	int err;

	err = metacall_decode(&us->req->data, us_read_child, op, &mc);
	if (!us_notif_valid(us, op->id)) {
		us->stats.gone++;
		if (!err)
			metacall_release(&mc);
		us_op_free(op);
		return;
	}
	if (!err) {
		err = metacall_run(&mc, op->tid, meta_writable, us);
		metacall_release(&mc);
	}
	if (err == EROFS)
		us->stats.refused++;
	us_respond(us, op->id, 0, err);
	us_op_free(op);
}

/* One notification received into us->req: answer it or queue it. */
static void handle_one(struct loop *lp, struct unixsock *us)
{
	struct op *op;
	int64_t res = 0;
	int err;

	op = xzalloc(sizeof(*op));
	op->us = us;
	op->id = us->req->id;
	op->tid = (pid_t)us->req->pid;
	op->sock = op->bind_dir = -1;
	if (us->cfg.container && metacall_is(&us->req->data)) {
		handle_metacall(us, op);
		return;
	}
	err = prepare(us, op, &us->req->data);
	/* Every read of the child is over: was it the right child? */
	if (!us_notif_valid(us, op->id)) {
		us->stats.gone++;
		us_op_free(op);
		return;
	}
	if (err || (op->call.mmsg && !op->call.nmsgs)) {
		us_op_finish(op, 0, err);
		return;
	}
	err = us_perform(op, &res);
	if (err == EAGAIN && op->blocking && us->nops >= OPS_WAITING_MAX) {
		/* Each is a thread of the child blocked in its call: past
		 * the bound, the call fails as a full queue does. */
		if (!us->said_full)
			fprintf(stderr, "vbox: %d socket calls of the sandbox "
				"wait already; more fail with ENOBUFS\n",
				OPS_WAITING_MAX);
		us->said_full = true;
		err = ENOBUFS;
	}
	if (err == EAGAIN && op->blocking) {
		/* The child blocks; retry until it can go on. */
		op->delay = OP_RETRY_FIRST_MS;
		op->since = loop_now_ms();
		loop_timer_init(&op->timer, us_on_retry, op);
		loop_timer_arm(lp, &op->timer, loop_now_ms() + op->delay);
		/*
		 * A TCP connect on loopback is made within microseconds; the
		 * first retry (rounded up to the loop's millisecond) cost
		 * every connection a millisecond: its socket's writability
		 * answers it at once (bench/README.md).
		 */
		if (op->connecting) {
			loop_watch_init(&op->ready, op->sock, us_on_ready, op);
			op->watching =
				loop_watch_add(lp, &op->ready, LOOP_OUT) == 0;
		}
		op->next = us->ops;
		us->ops = op;
		us->nops++;
		return;
	}
	us_op_finish(op, res, err);
}

/*
 * With supervised paths, a pathname bind() makes a name, as the paths
 * thread's calls do: it is judged and made under their names lock, so
 * no rename moves its directory between its judgement and its making.
 * (A bind never waits: the lock is held for microseconds.)
 */
static void handle(struct loop *lp, struct unixsock *us)
{
	enum sockcall_kind kind;
	int fd;
	bool names = us->paths &&
		     sockcall_fd(&us->req->data, &kind, &fd) == 0 &&
		     kind == SOCKCALL_BIND;

	if (names)
		pathsup_names_lock(us->paths);
	handle_one(lp, us);
	if (names)
		pathsup_names_unlock(us->paths);
}

/*
 * pathsup.h's forward: on the paths thread, queue @req for the loop.
 * ENOBUFS past FWD_MAX (the loop is that far behind; each entry is a
 * thread of the child blocked in its call).
 */
static int fwd_push(void *ctx, struct seccomp_notif *req)
{
	struct unixsock *us = ctx;
	struct fwd *f;
	uint64_t one = 1;

	pthread_mutex_lock(&us->fwd_lock);
	if (us->nfwd >= FWD_MAX) {
		pthread_mutex_unlock(&us->fwd_lock);
		return ENOBUFS;
	}
	us->nfwd++;
	f = xzalloc(sizeof(*f));
	f->req = req;
	if (us->fwd_tail)
		us->fwd_tail->next = f;
	else
		us->fwd_head = f;
	us->fwd_tail = f;
	pthread_mutex_unlock(&us->fwd_lock);
	/* An eventfd's counter only fails to grow past 2^64 - 2. */
	(void)!write(us->fwd_fd, &one, sizeof(one));
	return 0;
}

static struct fwd *fwd_take_all(struct unixsock *us)
{
	struct fwd *all;

	pthread_mutex_lock(&us->fwd_lock);
	all = us->fwd_head;
	us->fwd_head = us->fwd_tail = NULL;
	us->nfwd = 0;
	pthread_mutex_unlock(&us->fwd_lock);
	return all;
}

/* The loop's side: the handed-over notifications, handled as received. */
static void on_forwarded(struct loop *lp, struct loop_watch *w,
			 uint32_t events)
{
	struct unixsock *us = w->ctx;
	struct fwd *f, *next;
	uint64_t n;

	(void)events;
	(void)!read(us->fwd_fd, &n, sizeof(n));
	f = fwd_take_all(us);
	if (f && us->have_caps)
		us_caps_effective(us, false);
	for (; f; f = next) {
		next = f->next;
		memcpy(us->req, f->req, us->req_size);
		free(f->req);
		free(f);
		handle(lp, us);
	}
	if (us->have_caps)
		us_caps_effective(us, true);
}

/*
 * Supervised paths: pathsup.c's thread waits on @listener and answers
 * the path calls; the rest comes to the loop through an eventfd.
 */
static int start_paths(struct unixsock *us, int listener, char **err)
{
	struct pathsup_config pc = {
		.listener = listener,
		.root_fd = us->root_fd,
		.judge = us->cfg.judge,
		.below = us->cfg.below,
		.judge_ctx = us->cfg.judge_ctx,
		.forward = fwd_push,
		.forward_ctx = us,
		.req_size = us->req_size,
		.resp_size = us->resp_size,
	};
	int rc;

	us->fwd_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (us->fwd_fd < 0) {
		*err = xasprintf("supervised paths: eventfd: %s",
				 strerror(errno));
		return -1;
	}
	loop_watch_init(&us->fwd_w, us->fwd_fd, on_forwarded, us);
	rc = loop_watch_add(us->lp, &us->fwd_w, EPOLLIN);
	if (rc < 0) {
		*err = xasprintf("supervised paths: cannot watch: %s",
				 strerror(-rc));
		close(us->fwd_fd);
		us->fwd_fd = -1;
		return -1;
	}
	us->paths = pathsup_start(&pc, err);
	if (!us->paths) {
		loop_watch_remove(us->lp, &us->fwd_w);
		close(us->fwd_fd);
		us->fwd_fd = -1;
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */

/*
 * The sandbox's root, from its init: /proc/PID/root opened, then the
 * pidfd asked whether that process still lives, so a pid reused in
 * between can never give another root.  Every process of the sandbox has
 * that root: it cannot chroot (no capability) nor enter another mount
 * namespace (setns and unshare are refused).
 */
static int open_root(const struct unixsock_config *cfg, char **err)
{
	char link[64];
	int fd;

	if (cfg->init_pid <= 0 || cfg->init_pidfd < 0) {
		*err = xstrdup("the sandbox's init is not known");
		return -1;
	}
	child_proc_path(link, sizeof(link), cfg->init_pid, "root");
	fd = open(link, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		*err = xasprintf("cannot open the sandbox's root (%s): %s",
				 link, strerror(errno));
		return -1;
	}
	if (syscall(SYS_pidfd_send_signal, cfg->init_pidfd, 0, NULL, 0) < 0) {
		*err = xasprintf("the sandbox's init is gone: %s",
				 strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

struct unixsock *unixsock_alloc(struct loop *lp, int listener,
				const struct unixsock_config *cfg, char **err)
{
	struct seccomp_notif_sizes sizes;
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	struct unixsock *us;
	int rc, root;

	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) < 0) {
		*err = xasprintf("seccomp user notification: %s",
				 strerror(errno));
		close(listener);
		return NULL;
	}
	root = open_root(cfg, err);
	if (root < 0) {
		close(listener);
		return NULL;
	}
	us = xzalloc(sizeof(*us));
	us->lp = lp;
	us->cfg = *cfg;
	us->root_fd = root;
	us->req_size = sizes.seccomp_notif > sizeof(struct seccomp_notif) ?
		       sizes.seccomp_notif : sizeof(struct seccomp_notif);
	us->req = xzalloc(us->req_size);
	us->resp_size = sizes.seccomp_notif_resp >
				sizeof(struct seccomp_notif_resp) ?
			sizes.seccomp_notif_resp :
			sizeof(struct seccomp_notif_resp);
	us->resp = xzalloc(us->resp_size);
	us->have_caps = syscall(SYS_capget, &h, d) == 0 &&
			(d[0].effective || d[1].effective);
	if (us->have_caps)
		memcpy(us->caps, d, sizeof(us->caps));
	us->home_fd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (us->home_fd < 0)
		us->home_fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	us->fds.pidfd = -1;
	/* Best effort: a round trip costs a few context switches less. */
	(void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
		    SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
	us->fwd_fd = -1;
	pthread_mutex_init(&us->fwd_lock, NULL);
	loop_watch_init(&us->w, listener, on_notify, us);
	if (cfg->judge) {
		/* the paths thread waits on it; the loop answers with it */
		if (start_paths(us, listener, err) < 0) {
			unixsock_free(us);	/* closes the listener */
			return NULL;
		}
		return us;
	}
	rc = loop_watch_add(lp, &us->w, EPOLLIN);
	us->watching = rc == 0;
	if (rc < 0) {
		*err = xasprintf("cannot watch the seccomp listener: %s",
				 strerror(-rc));
		us->w.fd = -1;
		unixsock_free(us);
		close(listener);
		return NULL;
	}
	return us;
}

void unixsock_free(struct unixsock *us)
{
	struct op *op, *next;
	struct fwd *f, *fnext;

	if (!us)
		return;
	if (us->paths) {
		pathsup_stop(us->paths);
		us->paths = NULL;
	}
	for (f = fwd_take_all(us); f; f = fnext) {
		fnext = f->next;
		free(f->req);
		free(f);
	}
	if (us->fwd_fd >= 0) {
		loop_watch_remove(us->lp, &us->fwd_w);
		close(us->fwd_fd);
	}
	pthread_mutex_destroy(&us->fwd_lock);
	for (op = us->ops; op; op = next) {
		next = op->next;
		loop_timer_cancel(us->lp, &op->timer);
		if (op->watching)
			loop_watch_remove(us->lp, &op->ready);
		us_op_free(op);
	}
	if (us->w.fd >= 0) {
		if (us->watching)
			loop_watch_remove(us->lp, &us->w);
		close(us->w.fd);
	}
	if (us->root_fd >= 0)
		close(us->root_fd);
	if (us->home_fd >= 0)
		close(us->home_fd);
	free(us->own);
	while (us->nbound)
		us_bound_forget(us, us->nbound - 1);
	child_fds_release(&us->fds);
	free(us->req);
	free(us->resp);
	free(us);
}

const struct unixsock_stats *unixsock_stats(struct unixsock *us)
{
	unsigned long h = 0, r = 0, g = 0;

	if (us->paths)
		pathsup_counts(us->paths, &h, &r, &g);
	us->total.handled = us->stats.handled + h;
	us->total.refused = us->stats.refused + r;
	us->total.gone = us->stats.gone + g;
	return &us->total;
}
