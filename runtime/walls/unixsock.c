/* SPDX-License-Identifier: MIT */
/*
 * unixsock.c - perform the sandbox's addressed socket calls for it; see
 * unixsock.h.
 *
 * One notification at a time is received; each becomes a struct op that
 * holds everything copied from the child (the socket taken with
 * pidfd_getfd(), the address, the data, the fds of SCM_RIGHTS), so the
 * call can be performed, and retried from a timer while it would block,
 * without looking at the child again.  Each read of the child's memory
 * is followed by SECCOMP_IOCTL_NOTIF_ID_VALID: the thread is still
 * waiting in this very call, so the pid was not reused and the memory
 * was its.
 *
 * The call is made with the child's permission checks: when vbox-exec
 * has capabilities (run as root), its effective set is emptied around
 * the call, so a socket file the child could not open for writing is
 * not reached through the supervisor's CAP_DAC_OVERRIDE.
 *
 * Only the native (x86-64) entry points carry struct pointers this file
 * decodes; an x32 or i386 sendmsg()/sendmmsg() is refused with EACCES
 * (connect() and sendto() are decoded on every architecture: their
 * arguments are registers).
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "loop.h"
#include "unixsock.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif
#ifndef ST_RDONLY
#define ST_RDONLY 1
#endif
#define X32_BIT 0x40000000u
/* Linux 6.6: wake the supervisor and the child on one CPU, in turn. */
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

/* Bounds on what is copied from the child per call. */
#define OP_DATA_MAX (1u << 20)
#define OP_CONTROL_MAX (64u << 10)
#define OP_IOV_MAX 1024
#define OP_RETRY_FIRST_MS 0.2
#define OP_RETRY_MAX_MS 20.0

enum op_kind { OP_CONNECT, OP_SEND };

struct unixsock;

/**
 * struct op - one notification being answered
 * @us: the supervisor
 * @timer: retry while the call would block
 * @ready: a connect in progress: @sock watched for writability, so the
 *         answer goes out when the connection is made, not at the next
 *         retry (@watching: added to the loop)
 * @delay: the next retry's delay
 * @id: the notification
 * @tid: the calling thread (host pid)
 * @kind: connect or send
 * @sock: the child's socket, taken
 * @target: O_PATH fd of a pathname destination, -1 otherwise
 * @blocking: the child's socket is in blocking mode
 * @connecting: a non-unix connect is in progress (blocking caller)
 * @addr, @addrlen: the address to use (rewritten for a pathname)
 * @has_addr: @addr is given
 * @data, @len: the bytes to send
 * @control, @controllen: control data with translated fds
 * @fds, @nfds: the taken fds of SCM_RIGHTS
 * @flags: send flags
 * @mmsg_len_at: for sendmmsg(), where to write msg_len (0: not)
 */
struct op {
	struct unixsock *us;
	struct loop_timer timer;
	struct loop_watch ready;
	bool watching;
	double delay;
	uint64_t id;
	pid_t tid;
	enum op_kind kind;
	int sock;
	int target;
	bool blocking;
	int sockfl;
	bool connecting;
	struct sockaddr_storage addr;
	socklen_t addrlen;
	bool has_addr;
	void *data;
	size_t len;
	void *control;
	size_t controllen;
	int *fds;
	size_t nfds;
	int flags;
	uint64_t mmsg_len_at;
	struct op *next;
};

struct unixsock {
	struct loop *lp;
	struct loop_watch w;
	struct unixsock_config cfg;
	struct unixsock_stats stats;
	struct seccomp_notif *req;
	size_t req_size;
	size_t resp_size;
	struct op *ops;		/* waiting for a retry */
	bool have_caps;
	int root_fd;		/* the sandbox's root, opened once */
	pid_t cached_tid;	/* the last caller, and its pidfd */
	int cached_pidfd;
};

/* ------------------------------------------------------------------ */
/* small helpers */

static int notif_valid(const struct unixsock *us, uint64_t id)
{
	uint64_t v = id;

	return ioctl(us->w.fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &v) == 0;
}

static void respond(struct unixsock *us, uint64_t id, int64_t val, int err)
{
	struct seccomp_notif_resp *resp;
	char buf[256];

	if (us->resp_size > sizeof(buf))
		return;	/* checked in unixsock_alloc() */
	memset(buf, 0, sizeof(buf));
	resp = (struct seccomp_notif_resp *)buf;
	resp->id = id;
	resp->val = err ? 0 : val;
	resp->error = err ? -err : 0;
	resp->flags = 0;
	if (ioctl(us->w.fd, SECCOMP_IOCTL_NOTIF_SEND, resp) < 0)
		us->stats.gone++;	/* the caller went away (ENOENT) */
	else
		us->stats.handled++;
	if (err == EACCES)
		us->stats.refused++;
}

/* Read @len bytes of the child's memory at @addr; 0 or an errno. */
static int peek(pid_t tid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote;
	ssize_t n;

	if (len == 0)
		return 0;
	remote.iov_base = (void *)(uintptr_t)addr;
	remote.iov_len = len;
	n = process_vm_readv(tid, &local, 1, &remote, 1, 0);
	if (n < 0)
		return errno == ESRCH ? ESRCH : EFAULT;
	return (size_t)n == len ? 0 : EFAULT;
}

static int open_pidfd(pid_t tid)
{
	int pidfd = (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD);

	if (pidfd < 0 && errno == EINVAL)
		pidfd = (int)syscall(SYS_pidfd_open, tid, 0);
	return pidfd;
}

/*
 * Take fd @fd of thread @tid.  The last caller's pidfd is kept: a pidfd
 * pins its process, so a reused pid fails (ESRCH) and is reopened.
 */
static int take_fd(struct unixsock *us, pid_t tid, int fd, int *out)
{
	int saved;

	if (us->cached_tid != tid || us->cached_pidfd < 0) {
		if (us->cached_pidfd >= 0)
			close(us->cached_pidfd);
		us->cached_tid = tid;
		us->cached_pidfd = open_pidfd(tid);
		if (us->cached_pidfd < 0)
			return errno;
	}
	*out = (int)syscall(SYS_pidfd_getfd, us->cached_pidfd, fd, 0);
	if (*out < 0 && errno == ESRCH) {
		close(us->cached_pidfd);
		us->cached_pidfd = open_pidfd(tid);
		if (us->cached_pidfd < 0)
			return errno;
		*out = (int)syscall(SYS_pidfd_getfd, us->cached_pidfd, fd, 0);
	}
	saved = errno;
	return *out < 0 ? saved : 0;
}

/*
 * The calls made for the child run without vbox-exec's effective
 * capabilities (when it has any: run as root), so they never pass a
 * permission check the child would fail: a socket file or a directory
 * the child could not open or search, through CAP_DAC_OVERRIDE or
 * CAP_DAC_READ_SEARCH.  Taking fds and reading memory need none (the
 * owner of the sandbox's user namespace has every capability in it).
 * Per thread; vbox-exec gets them back for its own work.
 */
static void caps_effective(bool on)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d) < 0)
		BUG("capget: %s", strerror(errno));
	d[0].effective = on ? d[0].permitted : 0;
	d[1].effective = on ? d[1].permitted : 0;
	if (syscall(SYS_capset, &h, d) < 0)
		BUG("cannot %s the effective capabilities: %s",
		    on ? "restore" : "drop", strerror(errno));
}

static void op_free(struct op *op)
{
	size_t i;

	if (!op)
		return;
	if (op->sock >= 0)
		close(op->sock);
	if (op->target >= 0)
		close(op->target);
	for (i = 0; i < op->nfds; i++)
		close(op->fds[i]);
	free(op->fds);
	free(op->data);
	free(op->control);
	free(op);
}

/* ------------------------------------------------------------------ */
/* the address */

/*
 * The child's working directory as the sandbox names it.  /proc/TID/cwd
 * of a task in another mount namespace reads as the path from that
 * namespace's root.
 */
static int child_cwd(pid_t tid, char *buf, size_t size)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/cwd", (int)tid);
	n = readlink(link, buf, size - 1);
	if (n < 0)
		return errno == ENOENT ? ESRCH : EACCES;
	if ((size_t)n >= size - 1 || buf[0] != '/')
		return EACCES;
	buf[n] = '\0';
	return 0;
}

/*
 * Resolve the pathname @path as the child would, in its root and working
 * directory; on success op->target is an O_PATH fd of the socket file
 * and op->addr names it through /proc/self/fd.  Returns 0 or an errno.
 */
static int resolve_path(struct op *op, const char *path)
{
	struct open_how how;
	struct statfs sfs;
	struct stat st;
	char full[PATH_MAX + sizeof(((struct sockaddr_un *)0)->sun_path) + 2];
	char link[64];
	struct sockaddr_un *sun = (struct sockaddr_un *)&op->addr;
	int root, rc;

	if (path[0] == '/') {
		snprintf(full, sizeof(full), "%s", path);
	} else {
		rc = child_cwd(op->tid, full, PATH_MAX);
		if (rc)
			return rc;
		strcat(full, "/");
		strcat(full, path);
	}
	/*
	 * Every process of the sandbox has the same root: it cannot chroot
	 * (no capability) nor enter another mount namespace (setns and
	 * unshare are refused).  Opened once, from the first caller.
	 */
	if (op->us->root_fd < 0) {
		snprintf(link, sizeof(link), "/proc/%d/root", (int)op->tid);
		op->us->root_fd = open(link, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (op->us->root_fd < 0)
			return errno == ENOENT ? ESRCH : EACCES;
	}
	root = op->us->root_fd;
	memset(&how, 0, sizeof(how));
	how.flags = O_PATH | O_CLOEXEC;
	how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
	op->target = (int)syscall(SYS_openat2, root, full, &how, sizeof(how));
	rc = errno;
	/*
	 * /proc/self and /proc/thread-self name the resolver, not the child,
	 * and /proc's magic links are refused: a path through /proc that
	 * does not resolve here is refused, not reported missing.
	 */
	if (op->target < 0 && strncmp(full, "/proc/", 6) == 0)
		return EACCES;
	if (op->target < 0)
		/* EXDEV, ELOOP: a magic link or an escape; EAGAIN: a
		 * rename race.  All refusals. */
		return rc == EXDEV || rc == EAGAIN || rc == ELOOP ? EACCES
									: rc;
	/* The file itself, as the kernel's unix_find_bsd() checks it. */
	if (fstat(op->target, &st) < 0)
		return EACCES;
	if (!S_ISSOCK(st.st_mode))
		return ECONNREFUSED;
	if (!op->us->cfg.pathname_open) {
		/* Writable region: a mount the sandbox sees writable. */
		if (fstatfs(op->target, &sfs) < 0 || (sfs.f_flags & ST_RDONLY))
			return EACCES;
	}
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	snprintf(sun->sun_path, sizeof(sun->sun_path), "/proc/self/fd/%d",
		 op->target);
	op->addrlen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
				  strlen(sun->sun_path) + 1);
	return 0;
}

/*
 * Copy the child's address (@addr, @len) into op->addr, resolving a unix
 * one.  Returns 0 or an errno for the child.
 */
static int take_addr(struct op *op, uint64_t addr, uint64_t len)
{
	char path[sizeof(((struct sockaddr_un *)0)->sun_path) + 1];
	struct sockaddr_un *sun = (struct sockaddr_un *)&op->addr;
	size_t plen;
	int rc;

	if (len > sizeof(op->addr))
		return EINVAL;
	memset(&op->addr, 0, sizeof(op->addr));
	rc = peek(op->tid, addr, &op->addr, (size_t)len);
	if (rc)
		return rc;
	op->addrlen = (socklen_t)len;
	op->has_addr = true;
	if (len < sizeof(sa_family_t) || op->addr.ss_family != AF_UNIX)
		return 0;	/* the kernel judges it, in its namespace */
	plen = (size_t)len - offsetof(struct sockaddr_un, sun_path);
	if (len <= offsetof(struct sockaddr_un, sun_path) || plen == 0)
		return 0;	/* no name: the kernel says EINVAL */
	if (sun->sun_path[0] == '\0') {
		/* Abstract: namespaced by the socket's network namespace. */
		return op->us->cfg.refuse_abstract ? EACCES : 0;
	}
	memcpy(path, sun->sun_path, plen);
	path[plen] = '\0';
	return resolve_path(op, path);
}

/* ------------------------------------------------------------------ */
/* sendmsg(): the message */

struct msghdr64 {
	uint64_t name;
	uint32_t namelen;
	uint32_t pad0;
	uint64_t iov;
	uint64_t iovlen;
	uint64_t control;
	uint64_t controllen;
	int32_t flags;
	uint32_t pad1;
};

struct iovec64 {
	uint64_t base;
	uint64_t len;
};

/* Take the fds of SCM_RIGHTS; refuse SCM_CREDENTIALS. */
static int take_control(struct op *op)
{
	struct msghdr m;
	struct cmsghdr *c;
	size_t i, n;
	int *fdp, rc;

	memset(&m, 0, sizeof(m));
	m.msg_control = op->control;
	m.msg_controllen = op->controllen;
	for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		if (c->cmsg_level != SOL_SOCKET)
			continue;
		if (c->cmsg_type == SCM_CREDENTIALS)
			return EOPNOTSUPP;
		if (c->cmsg_type != SCM_RIGHTS || c->cmsg_len < CMSG_LEN(0))
			continue;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		if (op->nfds + n > 253)
			return ETOOMANYREFS;
		op->fds = xreallocarray(op->fds, op->nfds + n + 1,
					sizeof(*op->fds));
		fdp = (int *)CMSG_DATA(c);
		for (i = 0; i < n; i++) {
			int fd;

			rc = take_fd(op->us, op->tid, fdp[i], &fd);
			if (rc)
				return rc == ESRCH ? ESRCH : EBADF;
			op->fds[op->nfds++] = fd;
			fdp[i] = fd;
		}
	}
	return 0;
}

/* Copy a native struct msghdr at @at and what it points to. */
static int take_msghdr(struct op *op, uint64_t at)
{
	struct msghdr64 h;
	struct iovec64 *iov = NULL;
	size_t i, total = 0, n;
	int rc;

	rc = peek(op->tid, at, &h, sizeof(h));
	if (rc)
		return rc;
	if (h.iovlen > OP_IOV_MAX || h.controllen > OP_CONTROL_MAX)
		return h.iovlen > OP_IOV_MAX ? EMSGSIZE : ENOBUFS;
	if (h.name && h.namelen) {
		rc = take_addr(op, h.name, h.namelen);
		if (rc)
			return rc;
	}
	if (h.iovlen) {
		iov = xcalloc(h.iovlen, sizeof(*iov));
		rc = peek(op->tid, h.iov, iov, h.iovlen * sizeof(*iov));
		if (rc)
			goto out;
		for (i = 0; i < h.iovlen; i++) {
			if (iov[i].len > OP_DATA_MAX - total) {
				rc = EMSGSIZE;
				goto out;
			}
			total += iov[i].len;
		}
		op->data = xmalloc(total ? total : 1);
		for (i = 0, n = 0; i < h.iovlen; i++) {
			rc = peek(op->tid, iov[i].base, (char *)op->data + n,
				  iov[i].len);
			if (rc)
				goto out;
			n += iov[i].len;
		}
		op->len = total;
	}
	if (h.control && h.controllen) {
		op->control = xmalloc(h.controllen);
		op->controllen = h.controllen;
		rc = peek(op->tid, h.control, op->control, h.controllen);
		if (rc)
			goto out;
	}
	rc = 0;
out:
	free(iov);
	return rc;
}

/* ------------------------------------------------------------------ */
/* performing the call */

/* 0 with *@res, or an errno; EAGAIN means "would block". */
static int perform(struct op *op, int64_t *res)
{
	struct msghdr m;
	struct iovec iov;
	struct pollfd p;
	socklen_t sl = sizeof(int);
	ssize_t n;
	int err = 0, rc, fl;

	if (op->connecting) {
		p.fd = op->sock;
		p.events = POLLOUT;
		if (poll(&p, 1, 0) == 0)
			return EAGAIN;
		if (getsockopt(op->sock, SOL_SOCKET, SO_ERROR, &err, &sl) < 0)
			return errno;
		*res = 0;
		return err;
	}
	if (op->kind == OP_CONNECT) {
		/* Never block the loop: a blocking socket is non-blocking
		 * for the call, and retried (on_retry()) while it would
		 * block. */
		fl = op->blocking ? op->sockfl : -1;
		if (fl >= 0)
			fcntl(op->sock, F_SETFL, fl | O_NONBLOCK);
		rc = connect(op->sock, (struct sockaddr *)&op->addr,
			     op->addrlen);
		err = rc < 0 ? errno : 0;
		if (fl >= 0)
			fcntl(op->sock, F_SETFL, fl);
		*res = 0;
	} else {
		memset(&m, 0, sizeof(m));
		iov.iov_base = op->data;
		iov.iov_len = op->len;
		m.msg_iov = &iov;
		m.msg_iovlen = 1;
		if (op->has_addr) {
			m.msg_name = &op->addr;
			m.msg_namelen = op->addrlen;
		}
		m.msg_control = op->control;
		m.msg_controllen = op->controllen;
		n = sendmsg(op->sock, &m, op->flags | MSG_DONTWAIT |
			    MSG_NOSIGNAL);
		err = n < 0 ? errno : 0;
		*res = n;
	}
	if (op->kind == OP_CONNECT && err == EINPROGRESS && op->blocking &&
	    op->addr.ss_family != AF_UNIX) {
		op->connecting = true;
		return EAGAIN;
	}
	if (err == EWOULDBLOCK)
		err = EAGAIN;
	return err;
}

static void op_finish(struct op *op, int64_t res, int err)
{
	struct unixsock *us = op->us;
	uint32_t len32;
	struct iovec local, remote;

	if (!err && op->mmsg_len_at) {
		/* sendmmsg(): msg_len of the one message sent. */
		len32 = (uint32_t)res;
		local.iov_base = &len32;
		local.iov_len = sizeof(len32);
		remote.iov_base = (void *)(uintptr_t)op->mmsg_len_at;
		remote.iov_len = sizeof(len32);
		if (process_vm_writev(op->tid, &local, 1, &remote, 1, 0) !=
		    (ssize_t)sizeof(len32)) {
			res = 0;
			err = EFAULT;
		} else {
			res = 1;
		}
	}
	respond(us, op->id, res, err);
	op_free(op);
}

static void op_unlink(struct unixsock *us, struct op *op)
{
	struct op **pp;

	for (pp = &us->ops; *pp; pp = &(*pp)->next) {
		if (*pp == op) {
			*pp = op->next;
			return;
		}
	}
}

/* @op is answered or dropped: no timer, no watch, off the list. */
static void op_done_waiting(struct unixsock *us, struct op *op)
{
	loop_timer_cancel(us->lp, &op->timer);
	if (op->watching)
		loop_watch_remove(us->lp, &op->ready);
	op->watching = false;
	op_unlink(us, op);
}

/*
 * Try the waiting @op again: true when it is over (answered, or dropped
 * because its caller went away), false while it would still block.
 */
static bool op_retry(struct unixsock *us, struct op *op)
{
	int64_t res = 0;
	int err;

	if (!notif_valid(us, op->id)) {
		/* The caller was interrupted or is gone. */
		us->stats.gone++;
		op_done_waiting(us, op);
		op_free(op);
		return true;
	}
	if (us->have_caps)
		caps_effective(false);
	err = perform(op, &res);
	if (us->have_caps)
		caps_effective(true);
	if (err == EAGAIN)
		return false;
	op_done_waiting(us, op);
	op_finish(op, res, err);
	return true;
}

static void on_retry(struct loop *lp, struct loop_timer *t)
{
	struct op *op = t->ctx;

	if (op_retry(op->us, op))
		return;
	op->delay = op->delay * 2 > OP_RETRY_MAX_MS ? OP_RETRY_MAX_MS :
						     op->delay * 2;
	loop_timer_arm(lp, &op->timer, loop_now_ms() + op->delay);
}

/*
 * A connect in progress became writable: made or failed.  The timer
 * stays armed meanwhile; it notices a caller that went away.
 */
static void on_ready(struct loop *lp, struct loop_watch *w, uint32_t events)
{
	struct op *op = w->ctx;

	(void)lp;
	(void)events;
	(void)op_retry(op->us, op);
}

/* ------------------------------------------------------------------ */
/* one notification */

static bool is_native(const struct seccomp_data *d)
{
	return d->arch == AUDIT_ARCH_X86_64 && !(d->nr & X32_BIT);
}

/* Which call (by the architecture's numbers). */
static int classify(const struct seccomp_data *d, bool *native)
{
	unsigned nr = (unsigned)d->nr & ~X32_BIT;

	*native = is_native(d);
	if (d->arch == AUDIT_ARCH_X86_64) {
		/* x86-64 and x32 share these numbers below 512. */
		if (nr == __NR_connect)
			return 'c';
		if (nr == __NR_sendto)
			return 't';
		if (nr == __NR_sendmsg || nr == 518)
			return 'm';
		if (nr == __NR_sendmmsg || nr == 538)
			return 'M';
	} else if (d->arch == AUDIT_ARCH_I386) {
		if (nr == 362)
			return 'c';
		if (nr == 369)
			return 't';
		if (nr == 370)
			return 'm';
		if (nr == 345)
			return 'M';
	}
	return 0;
}

static int prepare(struct unixsock *us, struct op *op,
		   const struct seccomp_data *d)
{
	bool native;
	int call = classify(d, &native), fl, rc;

	if (!call)
		return ENOSYS;
	rc = take_fd(us, op->tid, (int)d->args[0], &op->sock);
	if (rc)
		return rc;
	/* (Nothing is done with what is taken before the caller is
	 * checked again, in on_notify().) */
	fl = fcntl(op->sock, F_GETFL);
	op->sockfl = fl;
	op->blocking = fl >= 0 && !(fl & O_NONBLOCK);
	switch (call) {
	case 'c':
		op->kind = OP_CONNECT;
		return take_addr(op, d->args[1], d->args[2]);
	case 't':
		op->kind = OP_SEND;
		if (d->args[2] > OP_DATA_MAX)
			return EMSGSIZE;
		op->len = (size_t)d->args[2];
		op->data = xmalloc(op->len ? op->len : 1);
		rc = peek(op->tid, d->args[1], op->data, op->len);
		if (rc)
			return rc;
		op->flags = (int)d->args[3];
		return take_addr(op, d->args[4], d->args[5]);
	case 'm':
	case 'M':
		op->kind = OP_SEND;
		if (!native)
			return EACCES;
		if (call == 'M') {
			if (d->args[2] == 0) {
				op->len = 0;
				return ENODATA;	/* answered 0 below */
			}
			/* struct mmsghdr: the msghdr, then msg_len. */
			op->mmsg_len_at = d->args[1] + sizeof(struct msghdr64);
			op->flags = (int)d->args[3];
		} else {
			op->flags = (int)d->args[2];
		}
		rc = take_msghdr(op, d->args[1]);
		if (rc)
			return rc;
		return take_control(op);
	default:
		return ENOSYS;
	}
}

static void handle(struct loop *lp, struct unixsock *us);

static void on_notify(struct loop *lp, struct loop_watch *w, uint32_t events)
{
	struct unixsock *us = w->ctx;

	if (events & (EPOLLHUP | EPOLLERR)) {
		/* No process uses the filter any more. */
		loop_watch_remove(lp, w);
		return;
	}
	memset(us->req, 0, us->req_size);
	if (ioctl(w->fd, SECCOMP_IOCTL_NOTIF_RECV, us->req) < 0)
		return;	/* EINTR, or the caller went away (ENOENT) */
	if (us->have_caps)
		caps_effective(false);
	handle(lp, us);
	if (us->have_caps)
		caps_effective(true);
}

/* One notification received into us->req: answer it or queue it. */
static void handle(struct loop *lp, struct unixsock *us)
{
	struct op *op;
	int64_t res = 0;
	int err;

	op = xzalloc(sizeof(*op));
	op->us = us;
	op->id = us->req->id;
	op->tid = (pid_t)us->req->pid;
	op->sock = op->target = -1;
	err = prepare(us, op, &us->req->data);
	/* Every read of the child is over: was it the right child? */
	if (!notif_valid(us, op->id)) {
		us->stats.gone++;
		op_free(op);
		return;
	}
	if (err == ENODATA) {
		op_finish(op, 0, 0);
		return;
	}
	if (err) {
		op_finish(op, 0, err);
		return;
	}
	err = perform(op, &res);
	if (err == EAGAIN && op->blocking) {
		/* The child blocks; retry until it can go on. */
		op->delay = OP_RETRY_FIRST_MS;
		loop_timer_init(&op->timer, on_retry, op);
		loop_timer_arm(lp, &op->timer, loop_now_ms() + op->delay);
		/*
		 * A TCP connect on loopback is made within microseconds; the
		 * first retry (rounded up to the loop's millisecond) cost
		 * every connection a millisecond: its socket's writability
		 * answers it at once (bench/README.md).
		 */
		if (op->connecting) {
			loop_watch_init(&op->ready, op->sock, on_ready, op);
			op->watching =
				loop_watch_add(lp, &op->ready, LOOP_OUT) == 0;
		}
		op->next = us->ops;
		us->ops = op;
		return;
	}
	op_finish(op, res, err);
}

/* ------------------------------------------------------------------ */

struct unixsock *unixsock_alloc(struct loop *lp, int listener,
				const struct unixsock_config *cfg, char **err)
{
	struct seccomp_notif_sizes sizes;
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	struct unixsock *us;
	int rc;

	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) < 0) {
		*err = xasprintf("seccomp user notification: %s",
				 strerror(errno));
		return NULL;
	}
	if (sizes.seccomp_notif_resp > 256) {
		*err = xasprintf("seccomp user notification: response of "
				 "%u bytes", sizes.seccomp_notif_resp);
		return NULL;
	}
	us = xzalloc(sizeof(*us));
	us->lp = lp;
	us->cfg = *cfg;
	us->req_size = sizes.seccomp_notif > sizeof(struct seccomp_notif) ?
		       sizes.seccomp_notif : sizeof(struct seccomp_notif);
	us->req = xzalloc(us->req_size);
	us->resp_size = sizes.seccomp_notif_resp;
	us->have_caps = syscall(SYS_capget, &h, d) == 0 &&
			(d[0].effective || d[1].effective);
	us->root_fd = -1;
	us->cached_pidfd = -1;
	/* Best effort: a round trip costs a few context switches less. */
	(void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
		    SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
	loop_watch_init(&us->w, listener, on_notify, us);
	rc = loop_watch_add(lp, &us->w, EPOLLIN);
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

	if (!us)
		return;
	for (op = us->ops; op; op = next) {
		next = op->next;
		loop_timer_cancel(us->lp, &op->timer);
		if (op->watching)
			loop_watch_remove(us->lp, &op->ready);
		op_free(op);
	}
	if (us->w.fd >= 0) {
		loop_watch_remove(us->lp, &us->w);
		close(us->w.fd);
	}
	if (us->root_fd >= 0)
		close(us->root_fd);
	if (us->cached_pidfd >= 0)
		close(us->cached_pidfd);
	free(us->req);
	free(us);
}

const struct unixsock_stats *unixsock_stats(const struct unixsock *us)
{
	return &us->stats;
}
