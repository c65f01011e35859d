/* SPDX-License-Identifier: MIT */
/*
 * unixsock_int.h - what the socket supervisor's files share (unixsock.h
 * is the launcher's view): the supervisor (struct unixsock), the
 * notification being answered (struct op) and the functions each file
 * gives the others.  Internal to runtime/supervisor/sockets/unixsock*.c:
 *
 *   unixsock.c          the notification loop: receiving (from the
 *                       listener, or handed over by the paths thread),
 *                       the op prepared from the child, the metadata
 *                       calls, the lifetime of the supervisor
 *   unixsock_op.c       what every file does with an op: is its caller
 *                       still there, the answer, the child's memory and
 *                       fds, the capabilities around a call, the op freed
 *   unixsock_dest.c     a message's destination: a pathname resolved in
 *                       the sandbox's root, a pathname bind() prepared,
 *                       the abstract-socket rules, the fds it sends taken
 *   unixsock_inet.c     container mode's inet destinations: admission,
 *                       listen() on loopback, the sandbox's own listeners
 *   unixsock_perform.c  the call made for the child, retried from a
 *                       timer while it would block, and finished
 *   unixsock_emul.c     container mode without pidfd_getfd(): connect()
 *                       and bind() made on the supervisor's own socket,
 *                       installed over the child's fd
 */
#ifndef VBOX_SUPERVISOR_UNIXSOCK_INT_H
#define VBOX_SUPERVISOR_UNIXSOCK_INT_H

#include <linux/capability.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "supervisor/childpath.h"
#include "loop.h"
#include "sockcall.h"
#include "unixsock.h"

#define OP_RETRY_FIRST_MS 0.2
#define OP_RETRY_MAX_MS 20.0
/* A call that waited this long is retried less often, up to the second
 * bound: hundreds of waiting calls must not keep the supervisor busy. */
#define OP_RETRY_SLOW_AFTER_MS 1000.0
#define OP_RETRY_SLOW_MAX_MS 100.0
/* Calls waiting to be retried at most (then ENOBUFS), and notifications
 * the paths thread hands the loop at most: each is a thread of the child
 * blocked in its call, so the bound is on memory, not on the child. */
#define OPS_WAITING_MAX 256
#define FWD_MAX 4096

struct fwd;
struct own_listener;
struct pathsup;
struct seccomp_data;
struct seccomp_notif;
struct seccomp_notif_resp;

/**
 * struct dest - one message's destination and fds, ready to use
 * @addr, @addrlen: the address to use (rewritten for a pathname)
 * @has_addr: an address is given
 * @target: O_PATH fd of a pathname destination, -1 otherwise
 * @fds, @nfds: the taken fds of SCM_RIGHTS (already written, as the
 *              supervisor's numbers, into the message's control data)
 */
struct dest {
	struct sockaddr_storage addr;
	socklen_t addrlen;
	bool has_addr;
	int target;
	int *fds;
	size_t nfds;
};

/**
 * struct op - one notification being answered
 * @us: the supervisor
 * @timer: retry while the call would block
 * @ready: a connect in progress: @sock watched for writability, so the
 *         answer goes out when the connection is made, not at the next
 *         retry (@watching: added to the loop)
 * @delay: the next retry's delay
 * @since: when it began to wait (loop_now_ms())
 * @id: the notification
 * @tid: the calling thread (host pid)
 * @sock: the child's socket, taken
 * @blocking: the call blocks (blocking socket, no MSG_DONTWAIT)
 * @sockfl: the socket's file status flags
 * @connecting: a non-unix connect is in progress (blocking caller)
 * @call: what the child asked for (sockcall.h)
 * @dest: per message of @call, its destination and fds
 * @done: messages sent so far; @sent: bytes sent of each
 * @bind_dir, @bind_name, @umask: a pathname bind: the directory (O_PATH),
 *         the name in it, the child's umask
 * @emulated: without pidfd_getfd(): @sock is the supervisor's own, to be
 *            installed over the child's fd @child_fd (with O_CLOEXEC when
 *            @child_cloexec) once the call succeeds (unixsock_emul.c)
 * @next: on the supervisor's list of ops waiting for a retry
 */
struct op {
	struct unixsock *us;
	struct loop_timer timer;
	struct loop_watch ready;
	bool watching;
	double delay;
	double since;
	uint64_t id;
	pid_t tid;
	int sock;
	bool blocking;
	int sockfl;
	bool connecting;
	struct sockcall call;
	struct dest *dest;
	size_t done;
	int64_t *sent;
	int bind_dir;
	char *bind_name;
	mode_t umask;
	bool emulated;
	int child_fd;
	bool child_cloexec;
	struct op *next;
};

/*
 * No pidfd_getfd(): a socket the supervisor bound for the child and
 * installed over the child's fd, kept (a copy) until the child listens
 * on it, by the socket's inode.  Bounded: the oldest goes first.
 */
struct bound {
	uint64_t ino;
	int fd;
};
#define BOUND_MAX 256

struct unixsock {
	struct loop *lp;
	struct loop_watch w;
	struct unixsock_config cfg;
	struct unixsock_stats stats;
	struct seccomp_notif *req;
	size_t req_size;
	struct seccomp_notif_resp *resp;
	size_t resp_size;
	struct op *ops;		/* waiting for a retry */
	size_t nops;		/* on @ops */
	bool said_full;		/* the ENOBUFS line was printed */
	bool have_caps;
	struct __user_cap_data_struct caps[2];	/* as vbox-exec started */
	int root_fd;		/* the sandbox's root, from its init */
	int home_fd;		/* vbox-exec's working directory */
	struct child_fds fds;	/* the last caller's pidfd */
	/* container mode: loopback ports the sandbox's own sockets listen
	 * on (its test servers), which it may connect to */
	struct own_listener *own;
	size_t nown;
	struct bound bound[BOUND_MAX];
	size_t nbound;
	/* supervised paths: the thread that waits on the listener, and the
	 * notifications it hands over (a queue the loop empties) */
	struct pathsup *paths;
	int fwd_fd;			/* eventfd: the queue has entries */
	struct loop_watch fwd_w;
	pthread_mutex_t fwd_lock;
	struct fwd *fwd_head, *fwd_tail;
	size_t nfwd;			/* on it */
	struct unixsock_stats total;	/* for unixsock_stats() */
	bool watching;			/* the loop waits on the listener */
};

/* unixsock_op.c: the answers and the op's life */

/* Is notification @id still pending (its caller waiting in it)? */
int us_notif_valid(const struct unixsock *us, uint64_t id);
/* Answer @id with @val, or with the error @err (counted). */
void us_respond(struct unixsock *us, uint64_t id, int64_t val, int err);
/* child_read_fn: the child's memory, for @ctx, a struct op. */
int us_read_child(void *ctx, uint64_t addr, void *buf, size_t len);
/* Take fd @fd of thread @tid into *@out.  0 or an errno. */
int us_take_fd(struct unixsock *us, pid_t tid, int fd, int *out);
/* vbox-exec's effective capabilities on or off (this thread). */
void us_caps_effective(const struct unixsock *us, bool on);
void us_op_free(struct op *op);

/* unixsock_dest.c: message @i's destination and fds.  0 or an errno. */
int us_take_dest(struct op *op, size_t i);

/* unixsock_inet.c: container mode's judgements, 0 or EACCES (or
 * EADDRINUSE: a port someone else listens on), and a listen() made
 * looked at again and remembered (0 or EADDRINUSE, undone) */
int us_judge_inet(const struct op *op, const struct sockcall_msg *m);
int us_judge_listen(const struct op *op);
int us_listened(struct op *op);

/* unixsock_perform.c: the call made (0 with *@res, EAGAIN: would block,
 * or an errno), finished (answered, @op freed), retried */
int us_perform(struct op *op, int64_t *res);
void us_op_finish(struct op *op, int64_t res, int err);
void us_on_retry(struct loop *lp, struct loop_timer *t);
void us_on_ready(struct loop *lp, struct loop_watch *w, uint32_t events);

/* unixsock_emul.c: without pidfd_getfd() */
int us_prepare_emulated(struct unixsock *us, struct op *op,
			const struct seccomp_data *d);
/* The supervisor's socket over the child's fd.  0 or an errno. */
int us_install(struct op *op);
/* Close and forget bound socket @i. */
void us_bound_forget(struct unixsock *us, size_t i);

#endif /* VBOX_SUPERVISOR_UNIXSOCK_INT_H */
