/* SPDX-License-Identifier: MIT */
/*
 * unixsock_perform.c - the socket supervisor makes the child's call
 * (unixsock.h, unixsock_int.h): with everything already taken from the
 * child (the op), the bind(), connect(), listen() or sends are made on
 * its socket, never blocking the loop: a call that would block is
 * retried from a timer (and a connect in progress also when its socket
 * becomes writable) until it goes through or its caller goes away.  The
 * op is then finished: sendmmsg()'s msg_len written back in the child,
 * the emulated socket installed (unixsock_emul.c), the answer sent.
 * Apart because nothing here reads the child's requests or judges them:
 * it only acts on what the op holds.
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "supervisor/childpath.h"
#include "loop.h"
#include "sockcall.h"
#include "unixsock.h"
#include "unixsock_int.h"

/* bind() @op->bind_name in @op->bind_dir, with the child's umask. */
static int bind_path(struct op *op)
{
	struct sockaddr_un sun;
	size_t n = strlen(op->bind_name);
	socklen_t len;
	mode_t old;
	int err = 0;

	/*
	 * The name came from the child's sun_path, which may fill all 108
	 * bytes without a NUL (a relative name the kernel takes as is): it
	 * is passed the same way, without one.
	 */
	if (n > sizeof(sun.sun_path))
		return ENAMETOOLONG;	/* cannot be: decoded from a sun_path */
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, op->bind_name, n);
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n +
			  (n < sizeof(sun.sun_path) ? 1 : 0));
	/*
	 * vbox-exec is one thread: its working directory and umask are
	 * the child's for the call, then its own again.  The directory is
	 * entered with the child's permissions (capabilities off).
	 */
	if (fchdir(op->bind_dir) < 0)
		return errno;
	old = umask(op->umask);
	if (bind(op->sock, (struct sockaddr *)&sun, len) < 0)
		err = errno;
	umask(old);
	if (op->us->have_caps)
		us_caps_effective(op->us, true);
	if (fchdir(op->us->home_fd) < 0 && chdir("/") < 0)
		BUG("cannot return to vbox-exec's directory: %s",
		    strerror(errno));
	if (op->us->have_caps)
		us_caps_effective(op->us, false);
	return err;
}

/* Send message op->done; 0 with *@n sent, or an errno. */
static int send_one(struct op *op, ssize_t *n)
{
	struct sockcall_msg *m = &op->call.msgs[op->done];
	struct dest *d = &op->dest[op->done];
	struct msghdr h;
	struct iovec iov;

	memset(&h, 0, sizeof(h));
	iov.iov_base = m->data;
	iov.iov_len = m->len;
	h.msg_iov = &iov;
	h.msg_iovlen = 1;
	if (d->has_addr) {
		h.msg_name = &d->addr;
		h.msg_namelen = d->addrlen;
	}
	h.msg_control = m->controllen ? m->control : NULL;
	h.msg_controllen = m->controllen;
	*n = sendmsg(op->sock, &h, op->call.flags | MSG_DONTWAIT |
		     MSG_NOSIGNAL);
	return *n < 0 ? errno : 0;
}

/*
 * The sends: from message op->done on, while they go through.  0 with
 * *@res (bytes, or for sendmmsg() messages sent), EAGAIN to wait, or an
 * errno.
 */
static int perform_send(struct op *op, int64_t *res)
{
	ssize_t n;
	int err;

	while (op->done < op->call.nmsgs) {
		err = send_one(op, &n);
		if (err == EWOULDBLOCK)
			err = EAGAIN;
		if (err) {
			if (op->done == 0 || (err == EAGAIN && op->blocking))
				return err;
			break;	/* the count so far, as the kernel */
		}
		op->sent[op->done++] = n;
		if ((size_t)n < op->call.msgs[op->done - 1].len)
			break;	/* partial: the batch ends */
	}
	*res = op->call.mmsg ? (int64_t)op->done : op->sent[0];
	return 0;
}

/* 0 with *@res, or an errno; EAGAIN means "would block". */
int us_perform(struct op *op, int64_t *res)
{
	struct dest *d = &op->dest[0];
	struct pollfd p;
	socklen_t sl = sizeof(int);
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
	switch (op->call.kind) {
	case SOCKCALL_SEND:
		return perform_send(op, res);
	case SOCKCALL_BIND:
		*res = 0;
		if (op->bind_name)
			return bind_path(op);
		return bind(op->sock, (struct sockaddr *)&d->addr,
			    d->addrlen) < 0 ? errno : 0;
	case SOCKCALL_LISTEN:
		*res = 0;
		err = us_judge_listen(op);
		if (err)
			return err;
		if (listen(op->sock, op->call.backlog) < 0)
			return errno;
		return us_listened(op);
	case SOCKCALL_CONNECT:
		/* Never block the loop: a blocking socket is non-blocking
		 * for the call, and retried (us_on_retry()) while it would
		 * block. */
		fl = op->blocking ? op->sockfl : -1;
		if (fl >= 0)
			fcntl(op->sock, F_SETFL, fl | O_NONBLOCK);
		rc = connect(op->sock, (struct sockaddr *)&d->addr,
			     d->addrlen);
		err = rc < 0 ? errno : 0;
		if (fl >= 0)
			fcntl(op->sock, F_SETFL, fl);
		*res = 0;
		if (err == EINPROGRESS && op->blocking &&
		    d->addr.ss_family != AF_UNIX) {
			op->connecting = true;
			return EAGAIN;
		}
		return err == EWOULDBLOCK ? EAGAIN : err;
	default:
		BUG("sockcall kind %d", (int)op->call.kind);
	}
}

/* sendmmsg(): msg_len of each message sent, in the child. */
static int write_lens(struct op *op)
{
	struct iovec local, remote;
	uint32_t len32;
	size_t i;

	for (i = 0; i < op->done; i++) {
		len32 = (uint32_t)op->sent[i];
		local.iov_base = &len32;
		local.iov_len = sizeof(len32);
		remote.iov_base = (void *)(uintptr_t)op->call.msgs[i].len_at;
		remote.iov_len = sizeof(len32);
		if (process_vm_writev(op->tid, &local, 1, &remote, 1, 0) !=
		    (ssize_t)sizeof(len32) &&
		    ((errno != EPERM && errno != ENOSYS) ||
		     child_mem_io(op->tid, op->call.msgs[i].len_at, &len32,
			    sizeof(len32), true) != 0))
			return (int)i;
	}
	return (int)op->done;
}

void us_op_finish(struct op *op, int64_t res, int err)
{
	int n;

	if (op->emulated && (!err || err == EINPROGRESS)) {
		int e = us_install(op);

		if (e)
			err = e;
	}
	if (!err && op->call.mmsg && op->done) {
		/* A message whose msg_len cannot be written is not counted
		 * (__sys_sendmmsg()); none counted is EFAULT. */
		n = write_lens(op);
		res = n;
		if (n == 0)
			err = EFAULT;
	}
	us_respond(op->us, op->id, res, err);
	us_op_free(op);
}
static void op_unlink(struct unixsock *us, struct op *op)
{
	struct op **pp;

	for (pp = &us->ops; *pp; pp = &(*pp)->next) {
		if (*pp == op) {
			*pp = op->next;
			us->nops--;
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

	if (!us_notif_valid(us, op->id)) {
		/* The caller was interrupted or is gone. */
		us->stats.gone++;
		op_done_waiting(us, op);
		us_op_free(op);
		return true;
	}
	if (us->have_caps)
		us_caps_effective(us, false);
	err = us_perform(op, &res);
	if (us->have_caps)
		us_caps_effective(us, true);
	if (err == EAGAIN)
		return false;
	op_done_waiting(us, op);
	us_op_finish(op, res, err);
	return true;
}

void us_on_retry(struct loop *lp, struct loop_timer *t)
{
	struct op *op = t->ctx;
	double max;

	if (op_retry(op->us, op))
		return;
	max = loop_now_ms() - op->since > OP_RETRY_SLOW_AFTER_MS ?
	      OP_RETRY_SLOW_MAX_MS : OP_RETRY_MAX_MS;
	op->delay = op->delay * 2 > max ? max : op->delay * 2;
	loop_timer_arm(lp, &op->timer, loop_now_ms() + op->delay);
}

/*
 * A connect in progress became writable: made or failed.  The timer
 * stays armed meanwhile; it notices a caller that went away.
 */
void us_on_ready(struct loop *lp, struct loop_watch *w, uint32_t events)
{
	struct op *op = w->ctx;

	(void)lp;
	(void)events;
	(void)op_retry(op->us, op);
}
