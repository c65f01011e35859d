/* SPDX-License-Identifier: MIT */
/*
 * unixsock.c - perform the sandbox's addressed socket calls for it; see
 * unixsock.h.
 *
 * One notification at a time is received; each becomes a struct op that
 * holds everything copied from the child (the socket taken with
 * pidfd_getfd(), the decoded call, the fds of SCM_RIGHTS), so the call
 * can be performed, and retried from a timer while it would block,
 * without looking at the child again.  The decoding of the child's bytes
 * (addresses, msghdrs, iovecs, control data) is sockcall.c's: pure code
 * reading the child's memory through read_child(), which the fuzz
 * harness replaces.  After every read of the child,
 * SECCOMP_IOCTL_NOTIF_ID_VALID: the thread is still waiting in this very
 * call, so the pid was not reused and the memory was its.
 *
 * The call is made with the child's permission checks: when vbox-exec
 * has capabilities (run as root), its effective set is emptied around
 * the call, so a socket file the child could not open for writing is
 * not reached through the supervisor's CAP_DAC_OVERRIDE.
 *
 * Container mode (unixsock_config.container) adds, here because they
 * share the op, the notification loop and the answers: the admission of
 * inet destinations (judge_inet(), own loopback listeners checked with
 * listeners.c), listen(), the metadata calls (handle_metacall(); the
 * decoding and the change are metacall.c's), and, where pidfd_getfd() is
 * refused, the emulation of connect() and bind() on sockets of the
 * supervisor's own (prepare_emulated(), install()).  The file has grown
 * past a thousand lines: those container parts are the ones to move out
 * first, behind a header of the op's internals.
 *
 * No buffer here is sized by the child: paths are built in a struct
 * strbuf and the child's /proc files read into one (childpath.c), and
 * what sockcall.c copies is allocated to its checked length.
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "childpath.h"
#include "loop.h"
#include "sockcall.h"
#include "strbuf.h"
#include "unixsock.h"
#include "container_rules.h"
#include "listeners.h"
#include "metacall.h"
#include "pathsup.h"

#ifndef ST_RDONLY
#define ST_RDONLY 1
#endif
/* Linux 6.6: wake the supervisor and the child on one CPU, in turn. */
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

#define OP_RETRY_FIRST_MS 0.2
#define OP_RETRY_MAX_MS 20.0

struct unixsock;

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
 */
struct op {
	struct unixsock *us;
	struct loop_timer timer;
	struct loop_watch ready;
	bool watching;
	double delay;
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
	bool cont;
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
	struct unixsock_stats total;	/* for unixsock_stats() */
	bool watching;			/* the loop waits on the listener */
};

/* A notification pathsup.c's thread handed over (not a path call). */
struct fwd {
	struct fwd *next;
	struct seccomp_notif *req;	/* the kernel's size (owned) */
};

/* A loopback listener of the sandbox's own: its port and its inode. */
struct own_listener {
	uint16_t port;
	uint64_t ino;
};

/* The most loopback listeners of the sandbox's own remembered. */
#define OWN_PORTS_MAX 4096

/* ------------------------------------------------------------------ */
/* small helpers */
/* ------------------------------------------------------------------ */
/* small helpers */

static int notif_valid(const struct unixsock *us, uint64_t id)
{
	uint64_t v = id;

	return ioctl(us->w.fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &v) == 0;
}

/*
 * Let the call go on as the child made it.  Only for what no address
 * slipped in after the check can redirect (prepare_emulated()).
 */
static void respond_continue(struct unixsock *us, uint64_t id)
{
	struct seccomp_notif_resp *resp = us->resp;

	memset(resp, 0, us->resp_size);
	resp->id = id;
	resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	if (ioctl(us->w.fd, SECCOMP_IOCTL_NOTIF_SEND, resp) < 0)
		us->stats.gone++;
	else
		us->stats.handled++;
}

static void respond(struct unixsock *us, uint64_t id, int64_t val, int err)
{
	struct seccomp_notif_resp *resp = us->resp;

	/* us->resp is the kernel's size (SECCOMP_GET_NOTIF_SIZES). */
	memset(resp, 0, us->resp_size);
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

/* sockcall_read_fn over child_peek(): the decoder's view of the child. */
static int read_child(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct op *op = ctx;

	return child_peek(op->tid, addr, buf, len);
}

/* Take fd @fd of thread @tid (childpath.h: the last caller's pidfd). */
static int take_fd(struct unixsock *us, pid_t tid, int fd, int *out)
{
	return child_take_fd(&us->fds, tid, fd, out);
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
static void caps_effective(const struct unixsock *us, bool on)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	/* The permitted sets, read once (unixsock_alloc()): a notification
	 * costs two system calls here, not four. */
	memcpy(d, us->caps, sizeof(d));
	d[0].effective = on ? d[0].permitted : 0;
	d[1].effective = on ? d[1].permitted : 0;
	if (syscall(SYS_capset, &h, d) < 0)
		BUG("cannot %s the effective capabilities: %s",
		    on ? "restore" : "drop", strerror(errno));
}

static void op_free(struct op *op)
{
	size_t i, j;

	if (!op)
		return;
	if (op->sock >= 0)
		close(op->sock);
	for (i = 0; op->dest && i < op->call.nmsgs; i++) {
		if (op->dest[i].target >= 0)
			close(op->dest[i].target);
		for (j = 0; j < op->dest[i].nfds; j++)
			close(op->dest[i].fds[j]);
		free(op->dest[i].fds);
	}
	if (op->bind_dir >= 0)
		close(op->bind_dir);
	free(op->bind_name);
	free(op->dest);
	free(op->sent);
	sockcall_release(&op->call);
	free(op);
}

/* ------------------------------------------------------------------ */
/* the address */

/*
 * Container mode: the rights the child's Landlock rules grant at what
 * the O_PATH fd @fd names (its path now, read from our own fd table).
 */
static uint64_t granted_at_fd(const struct unixsock *us, int fd)
{
	char link[64], *path = NULL;
	size_t size = 256;
	ssize_t n;
	uint64_t r = 0;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	/* A path is at most PATH_MAX; grow to it, never past it. */
	for (;;) {
		path = xrealloc(path, size);
		n = readlink(link, path, size);
		if (n < 0)
			goto out;
		if ((size_t)n < size)
			break;
		if (size >= PATH_MAX)
			goto out;
		size *= 2;
	}
	path[n] = '\0';
	if (path[0] == '/')
		r = container_granted_at(us->cfg.container, path);
out:
	free(path);
	return r;
}

static bool inet_family(int f)
{
	return f == AF_INET || f == AF_INET6;
}

/* Is @sa a loopback address (127/8, ::1, ::ffff:127/104)? */
static bool inet_loopback(const struct sockaddr_storage *sa)
{
	const struct sockaddr_in6 *s6 = (const void *)sa;
	const uint8_t *a = s6->sin6_addr.s6_addr;
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					    0xff, 0xff };

	if (sa->ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)(const void *)sa)
			      ->sin_addr.s_addr) >> 24) == 127;
	if (sa->ss_family != AF_INET6)
		return false;
	if (IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr))
		return true;
	return memcmp(a, mapped, sizeof(mapped)) == 0 && a[12] == 127;
}

static uint16_t inet_port(const struct sockaddr_storage *sa)
{
	return ntohs(sa->ss_family == AF_INET ?
		     ((const struct sockaddr_in *)(const void *)sa)->sin_port :
		     ((const struct sockaddr_in6 *)(const void *)sa)->sin6_port);
}

static bool own_ino(const struct unixsock *us, uint64_t ino)
{
	size_t i;

	for (i = 0; i < us->nown; i++)
		if (us->own[i].ino == ino)
			return true;
	return false;
}

/*
 * May the sandbox connect to loopback @port as to its own listener?
 * Only while every TCP socket listening on that port is one it made
 * listen: never to a host service that took the port after the sandbox
 * let it go, or that listens beside it (SO_REUSEPORT).
 */
static bool own_port(const struct unixsock *us, uint16_t port)
{
	uint64_t ino[16];
	size_t i, n;
	bool known = false;

	for (i = 0; i < us->nown && !known; i++)
		known = us->own[i].port == port;
	if (!known || tcp_listeners(port, ino, array_size(ino), &n) < 0 ||
	    n == 0 || n > array_size(ino))
		return false;
	for (i = 0; i < n; i++)
		if (!own_ino(us, ino[i]))
			return false;
	return true;
}

/*
 * A loopback listener the sandbox made: its own, to connect to as in
 * namespace mode's private loopback.  Past the bound, no more are
 * remembered (connects to them are then judged by the table).
 */
static void own_listener_add(struct unixsock *us, uint16_t port, uint64_t ino)
{
	if (own_ino(us, ino) || us->nown >= OWN_PORTS_MAX)
		return;
	us->own = xreallocarray(us->own, us->nown + 1, sizeof(*us->own));
	us->own[us->nown].port = port;
	us->own[us->nown].ino = ino;
	us->nown++;
}

/*
 * Container mode under net deny: may message @m go where it says?  0 or
 * EACCES.  Only the launcher's judgement of an inet address admits it.
 */
static int judge_inet(const struct op *op, const struct sockcall_msg *m)
{
	const struct unixsock_config *cfg = &op->us->cfg;

	if (!cfg->container || !cfg->admit_inet || !m->to.has ||
	    !inet_family(m->to.sa.ss_family))
		return 0;
	if (op->call.kind == SOCKCALL_BIND)
		return inet_loopback(&m->to.sa) ? 0 : EACCES;
	if (op->call.flags & MSG_FASTOPEN)
		return EACCES;
	if (inet_loopback(&m->to.sa) && own_port(op->us, inet_port(&m->to.sa)))
		return 0;
	return cfg->admit_inet(cfg->admit_ctx,
			       (const struct sockaddr *)&m->to.sa) ? 0 :
	       EACCES;
}

/*
 * Container mode under net deny: listen() on an inet socket bound to a
 * loopback address only (an unbound one would be bound to every address
 * by the kernel, reachable from other hosts).  0 or EACCES.
 */
static int judge_listen(const struct op *op)
{
	struct sockaddr_storage sa;
	socklen_t len = sizeof(sa);

	if (!op->us->cfg.container || !op->us->cfg.admit_inet)
		return 0;
	memset(&sa, 0, sizeof(sa));
	if (getsockname(op->sock, (struct sockaddr *)&sa, &len) < 0)
		return errno;
	if (!inet_family(sa.ss_family))
		return 0;
	if (inet_port(&sa) == 0 || !inet_loopback(&sa))
		return EACCES;
	return 0;
}

/* A listen() made: remember a loopback port (container mode). */
static void listened(struct op *op)
{
	struct sockaddr_storage sa;
	socklen_t len = sizeof(sa);

	struct stat st;

	memset(&sa, 0, sizeof(sa));
	if (op->us->cfg.container &&
	    getsockname(op->sock, (struct sockaddr *)&sa, &len) == 0 &&
	    inet_family(sa.ss_family) && inet_loopback(&sa) &&
	    fstat(op->sock, &st) == 0)
		own_listener_add(op->us, inet_port(&sa), (uint64_t)st.st_ino);
}

/* Supervised paths: may the child use the socket file @fd?  0 or EACCES. */
static int judge_socket_file(const struct unixsock *us, int fd)
{
	char *path = self_fd_path(fd);
	int rc = EACCES;

	if (path)
		rc = us->cfg.judge(us->cfg.judge_ctx, path, PJ_WRITE,
				   "connect") ? EACCES : 0;
	free(path);
	return rc;
}

/*
 * Resolve the pathname @path as the child would, in its root and working
 * directory; on success @d->target is an O_PATH fd of the socket file
 * and @d->addr names it through /proc/self/fd.  Returns 0 or an errno.
 */
static int resolve_path(struct op *op, struct dest *d, const char *path)
{
	struct sockaddr_un *sun = (struct sockaddr_un *)&d->addr;
	struct strbuf full = { 0 };
	struct statfs sfs;
	struct stat st;
	int rc, n;

	rc = child_full_path(op->tid, path, &full);
	if (rc)
		goto out;
	d->target = child_open_in_root(op->us->root_fd, full.s, 0, &rc);
	if (d->target < 0)
		goto out;
	/* The file itself, as the kernel's unix_find_bsd() checks it. */
	rc = EACCES;
	if (fstat(d->target, &st) < 0)
		goto out;
	rc = ECONNREFUSED;
	if (!S_ISSOCK(st.st_mode))
		goto out;
	rc = EACCES;
	/* Writable region: a mount the sandbox sees writable; in container
	 * mode, where the Landlock rules grant writing. */
	if (!op->us->cfg.pathname_open && op->us->cfg.container &&
	    !(granted_at_fd(op->us, d->target) & CR_WRITE_FILE))
		goto out;
	if (!op->us->cfg.pathname_open && !op->us->cfg.container &&
	    (fstatfs(d->target, &sfs) < 0 || (sfs.f_flags & ST_RDONLY)))
		goto out;
	/* Supervised paths: a socket at a name a row denies or makes
	 * read-only is not reached (under net open too). */
	if (op->us->cfg.judge && judge_socket_file(op->us, d->target))
		goto out;
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	n = snprintf(sun->sun_path, sizeof(sun->sun_path), "/proc/self/fd/%d",
		     d->target);
	if (n < 0 || (size_t)n >= sizeof(sun->sun_path))
		BUG("/proc/self/fd/%d does not fit sun_path", d->target);
	d->addrlen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
				 (size_t)n + 1);
	rc = 0;
out:
	free(full.s);
	return rc;
}

/*
 * The name a pathname bind() makes (op->bind_dir's path and the name),
 * judged for writing by the table.  0 or an errno.
 */
static int judge_bound_name(struct op *op)
{
	struct strbuf judged = { 0 };
	char *dir = self_fd_path(op->bind_dir);
	int rc = EACCES;

	if (dir) {
		strbuf_puts(&judged, dir);
		if (judged.len > 1)
			strbuf_putc(&judged, '/');
		strbuf_puts(&judged, op->bind_name);
		rc = op->us->cfg.judge(op->us->cfg.judge_ctx, judged.s,
				       PJ_WRITE, "bind");
	}
	free(dir);
	free(judged.s);
	return rc;
}

/*
 * A pathname bind(): the parent directory resolved now (O_PATH, in the
 * child's root and working directory), the name kept for perform(),
 * which binds in that directory.  The last component is never resolved
 * here: bind() creates it or fails (EEXIST), as for the child.
 */
static int prepare_bind(struct op *op, const char *path)
{
	struct strbuf full = { 0 };
	const char *slash, *name;
	uid_t fsuid;
	gid_t fsgid;
	int rc, fd;

	rc = child_status(op->tid, &op->umask, &fsuid, &fsgid);
	if (rc)
		return rc;
	/*
	 * The file is created with vbox-exec's fs ids; they are the child's
	 * (the sandbox's uid is the launching one).  Anything else is
	 * refused rather than leaving a file of another owner.
	 */
	if (fsuid != geteuid() || fsgid != getegid())
		return EACCES;
	rc = child_full_path(op->tid, path, &full);
	if (rc)
		goto out;
	/* A trailing slash: bind() creates nothing; EEXIST when the path
	 * names something (a directory), ENOENT when not. */
	if (full.s[full.len - 1] == '/') {
		while (full.len > 1 && full.s[full.len - 1] == '/')
			full.s[--full.len] = '\0';
		fd = child_open_in_root(op->us->root_fd, full.s, 0, &rc);
		if (fd >= 0) {
			close(fd);
			rc = EEXIST;
		} else if (rc == ENOENT || rc == ENOTDIR) {
			rc = ENOENT;
		}
		goto out;
	}
	slash = strrchr(full.s, '/');
	name = slash + 1;
	/* "." and "..": not a name bind() can create. */
	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
		rc = EEXIST;
		goto out;
	}
	op->bind_name = xstrdup(name);
	full.s[slash == full.s ? 1 : (size_t)(slash - full.s)] = '\0';
	op->bind_dir = child_open_in_root(op->us->root_fd, full.s, O_DIRECTORY, &rc);
	if (op->bind_dir >= 0)
		rc = 0;
	/* Supervised paths: the socket file is a name made, judged so. */
	if (!rc && op->us->cfg.judge)
		rc = judge_bound_name(op);
	/* Made by vbox-exec, outside the child's Landlock domain: in
	 * container mode the rules must let the child make it there. */
	if (!rc && op->us->cfg.container &&
	    !(granted_at_fd(op->us, op->bind_dir) & CR_MAKE_SOCK))
		rc = EACCES;
out:
	free(full.s);
	return rc;
}

/*
 * Message @i's destination: the address to use, and the fds it sends
 * taken from the child (written into the control data as ours).
 */
static int take_dest(struct op *op, size_t i)
{
	struct sockcall_msg *m = &op->call.msgs[i];
	struct dest *d = &op->dest[i];
	size_t k;
	int rc, num, fd;

	d->target = -1;
	rc = judge_inet(op, m);
	if (rc)
		return rc;
	if (m->to.has) {
		d->has_addr = true;
		d->addr = m->to.sa;
		d->addrlen = m->to.len;
		switch (m->to.unix_kind) {
		case SOCKCALL_AS_GIVEN:
		case SOCKCALL_AUTOBIND:
			break;
		case SOCKCALL_ABSTRACT:
			/*
			 * When the sandbox shares the host's network
			 * namespace, an explicit abstract name is the host's
			 * (squatting).  (A bind is stopped in a namespace of
			 * the sandbox's own only with supervised paths.)
			 */
			if ((op->call.kind == SOCKCALL_BIND &&
			     (op->us->cfg.pathname_open ||
			      op->us->cfg.container)) ||
			    op->us->cfg.refuse_abstract)
				return EACCES;
			break;
		case SOCKCALL_PATH:
			if (op->call.kind == SOCKCALL_BIND)
				rc = prepare_bind(op, m->to.path);
			else
				rc = resolve_path(op, d, m->to.path);
			if (rc)
				return rc;
			break;
		default:
			BUG("unix address kind %d", (int)m->to.unix_kind);
		}
	}
	if (m->nfds)
		d->fds = xcalloc(m->nfds, sizeof(*d->fds));
	for (k = 0; k < m->nfds; k++) {
		memcpy(&num, m->control + m->fd_off[k], sizeof(num));
		rc = take_fd(op->us, op->tid, num, &fd);
		if (rc)
			return rc == ESRCH ? ESRCH : EBADF;
		d->fds[d->nfds++] = fd;
		memcpy(m->control + m->fd_off[k], &fd, sizeof(fd));
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* performing the call */

/* bind() @op->bind_name in @op->bind_dir, with the child's umask. */
static int bind_path(struct op *op)
{
	struct sockaddr_un sun;
	size_t n = strlen(op->bind_name);
	mode_t old;
	int err = 0;

	/* The name came from a sun_path: it fits. */
	if (n >= sizeof(sun.sun_path))
		BUG("bind name of %zu bytes", n);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, op->bind_name, n);
	/*
	 * vbox-exec is one thread: its working directory and umask are
	 * the child's for the call, then its own again.  The directory is
	 * entered with the child's permissions (capabilities off).
	 */
	if (fchdir(op->bind_dir) < 0)
		return errno;
	old = umask(op->umask);
	if (bind(op->sock, (struct sockaddr *)&sun,
		 (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1)) < 0)
		err = errno;
	umask(old);
	if (op->us->have_caps)
		caps_effective(op->us, true);
	if (fchdir(op->us->home_fd) < 0 && chdir("/") < 0)
		BUG("cannot return to vbox-exec's directory: %s",
		    strerror(errno));
	if (op->us->have_caps)
		caps_effective(op->us, false);
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
static int perform(struct op *op, int64_t *res)
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
		err = judge_listen(op);
		if (err)
			return err;
		if (listen(op->sock, op->call.backlog) < 0)
			return errno;
		listened(op);
		return 0;
	case SOCKCALL_CONNECT:
		/* Never block the loop: a blocking socket is non-blocking
		 * for the call, and retried (on_retry()) while it would
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

static int install(struct op *op);

static void op_finish(struct op *op, int64_t res, int err)
{
	int n;

	if (op->emulated && (!err || err == EINPROGRESS)) {
		int e = install(op);

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
	respond(op->us, op->id, res, err);
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
		caps_effective(us, false);
	err = perform(op, &res);
	if (us->have_caps)
		caps_effective(us, true);
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

/* ------------------------------------------------------------------ */
/* without pidfd_getfd(): the supervisor's own sockets (unixsock.h) */

/* The inode of the socket at fd @fd of @tid: 0, EBADF or ENOTSOCK. */
static int child_socket_ino(pid_t tid, int fd, uint64_t *ino)
{
	char path[64], link[64];
	unsigned long long v;
	char tail;
	ssize_t n;

	if (fd < 0)
		return EBADF;
	child_proc_path(path, sizeof(path), tid, "fd/");
	if (strlen(path) + 12 >= sizeof(path))
		return EBADF;
	snprintf(path + strlen(path), sizeof(path) - strlen(path), "%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return errno == ESRCH ? ESRCH : EBADF;
	link[n] = '\0';
	if (sscanf(link, "socket:[%llu%c", &v, &tail) != 2 || tail != ']')
		return ENOTSOCK;
	*ino = v;
	return 0;
}

/* The file status flags of fd @fd of @tid (its fdinfo), or -1. */
static int child_fd_flags(pid_t tid, int fd)
{
	char path[64], buf[256], *p;
	unsigned long v;
	ssize_t n;
	int f;

	child_proc_path(path, sizeof(path), tid, "fdinfo/");
	snprintf(path + strlen(path), sizeof(path) - strlen(path), "%d", fd);
	f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return -1;
	n = read(f, buf, sizeof(buf) - 1);
	close(f);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strstr(buf, "flags:");
	if (!p || sscanf(p + 6, "%lo", &v) != 1)
		return -1;
	return (int)v;
}

/*
 * The type of unix socket @ino (/proc/TID/net/unix), SOCK_STREAM when it
 * is not listed.  The lines end in a path the sandbox chose, so a
 * forged line could only pick another type for the supervisor's own new
 * socket, which the child then gets: nothing it could not make itself.
 */
static int unix_type(pid_t tid, uint64_t ino)
{
	char path[64], line[512];
	unsigned long long v;
	unsigned type;
	size_t lines = 0;
	int found = SOCK_STREAM;
	FILE *f;

	child_proc_path(path, sizeof(path), tid, "net/unix");
	f = fopen(path, "re");
	if (!f)
		return found;
	while (fgets(line, sizeof(line), f) && lines++ < 1000000) {
		if (sscanf(line, "%*s %*x %*x %*x %x %*x %llu", &type, &v) == 2 &&
		    v == ino && (type == SOCK_STREAM || type == SOCK_SEQPACKET)) {
			found = (int)type;
			break;
		}
	}
	fclose(f);
	return found;
}

static void bound_forget(struct unixsock *us, size_t i)
{
	close(us->bound[i].fd);
	us->bound[i] = us->bound[--us->nbound];
}

static void bound_add(struct unixsock *us, int sock)
{
	struct stat st;
	size_t i;

	if (fstat(sock, &st) < 0)
		return;
	if (us->nbound == BOUND_MAX) {
		close(us->bound[0].fd);
		for (i = 1; i < us->nbound; i++)
			us->bound[i - 1] = us->bound[i];
		us->nbound--;
	}
	us->bound[us->nbound].ino = (uint64_t)st.st_ino;
	us->bound[us->nbound].fd = fcntl(sock, F_DUPFD_CLOEXEC, 3);
	if (us->bound[us->nbound].fd >= 0)
		us->nbound++;
}

/*
 * prepare() without pidfd_getfd(): a send is judged by whether it names
 * a destination; connect() and bind() get a socket of the supervisor's
 * own; listen() the copy of one it bound.
 */
static int prepare_emulated(struct unixsock *us, struct op *op,
			    const struct seccomp_data *d)
{
	struct sockcall_sock sk;
	enum sockcall_kind kind;
	uint64_t ino = 0;
	uint16_t family = AF_UNSPEC;
	bool addressed;
	size_t i;
	int fd, rc, fl;

	rc = sockcall_fd(d, &kind, &fd);
	if (!rc)
		rc = child_socket_ino(op->tid, fd, &ino);
	if (rc)
		return rc;
	if (kind == SOCKCALL_SEND) {
		rc = sockcall_send_addressed(d, read_child, op, &addressed);
		if (rc)
			return rc;
		if (addressed)
			return EACCES;
		op->cont = true;
		return 0;
	}
	memset(&sk, 0, sizeof(sk));
	if (kind == SOCKCALL_LISTEN) {
		for (i = 0; i < us->nbound && us->bound[i].ino != ino; i++)
			;
		if (i == us->nbound)
			return EACCES;	/* not bound by the supervisor */
		op->sock = us->bound[i].fd;
		us->bound[i] = us->bound[--us->nbound];
		return sockcall_decode(d, &sk, read_child, op, &op->call);
	}
	/* connect(), bind(): the address's family is the socket's. */
	if ((uint32_t)d->args[2] >= sizeof(family)) {
		rc = child_peek(op->tid, d->args[1], &family, sizeof(family));
		if (rc)
			return rc;
	}
	sk.family = family;
	if (family == AF_UNIX)
		sk.type = unix_type(op->tid, ino);
	else if (family == AF_INET || family == AF_INET6)
		sk.type = SOCK_STREAM;
	else if (family == AF_NETLINK)
		sk.type = SOCK_RAW;
	else
		return kind == SOCKCALL_CONNECT && family == AF_UNSPEC ?
		       EACCES : EAFNOSUPPORT;
	rc = sockcall_decode(d, &sk, read_child, op, &op->call);
	if (rc)
		return rc;
	op->dest = xcalloc(1, sizeof(*op->dest));
	op->sent = xcalloc(1, sizeof(*op->sent));
	op->dest[0].target = -1;
	rc = take_dest(op, 0);
	if (rc)
		return rc;
	fl = child_fd_flags(op->tid, fd);
	op->child_fd = fd;
	op->child_cloexec = fl >= 0 && (fl & O_CLOEXEC);
	op->sock = socket(family, sk.type | SOCK_CLOEXEC |
			  (fl >= 0 && (fl & O_NONBLOCK) ? SOCK_NONBLOCK : 0), 0);
	if (op->sock < 0)
		return errno;
	if (kind == SOCKCALL_BIND && family != AF_UNIX && family != AF_NETLINK)
		(void)setsockopt(op->sock, SOL_SOCKET, SO_REUSEADDR, &(int){ 1 },
				 sizeof(int));
	op->sockfl = fcntl(op->sock, F_GETFL);
	op->emulated = true;
	return 0;
}

/*
 * The emulated call succeeded (or a non-blocking connect is under way):
 * the supervisor's socket takes the child's fd number.  0 or an errno.
 */
static int install(struct op *op)
{
	struct seccomp_notif_addfd a;

	memset(&a, 0, sizeof(a));
	a.id = op->id;
	a.flags = SECCOMP_ADDFD_FLAG_SETFD;
	a.srcfd = (uint32_t)op->sock;
	a.newfd = (uint32_t)op->child_fd;
	a.newfd_flags = op->child_cloexec ? O_CLOEXEC : 0;
	if (ioctl(op->us->w.fd, SECCOMP_IOCTL_NOTIF_ADDFD, &a) < 0)
		return errno == ENOENT ? ESRCH : errno;
	if (op->call.kind == SOCKCALL_BIND)
		bound_add(op->us, op->sock);
	return 0;
}

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
		return prepare_emulated(us, op, d);
	rc = sockcall_fd(d, &kind, &fd);
	if (rc)
		return rc;
	rc = take_fd(us, op->tid, fd, &op->sock);
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
	rc = sockcall_decode(d, &sk, read_child, op, &op->call);
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
		rc = take_dest(op, i);
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
			caps_effective(us, false);
			dropped = true;
		}
		handle(lp, us);
	}
	if (dropped)
		caps_effective(us, true);
}

/* Container mode: may the file at @path change (its region's rights)? */
static bool meta_writable(void *ctx, const char *path)
{
	const struct unixsock *us = ctx;

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

	err = metacall_decode(&us->req->data, read_child, op, &mc);
	if (!notif_valid(us, op->id)) {
		us->stats.gone++;
		if (!err)
			metacall_release(&mc);
		op_free(op);
		return;
	}
	if (!err) {
		err = metacall_run(&mc, op->tid, meta_writable, us);
		metacall_release(&mc);
	}
	if (err == EROFS)
		us->stats.refused++;
	respond(us, op->id, 0, err);
	op_free(op);
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
	op->sock = op->bind_dir = -1;
	if (us->cfg.container && metacall_is(&us->req->data)) {
		handle_metacall(us, op);
		return;
	}
	err = prepare(us, op, &us->req->data);
	/* Every read of the child is over: was it the right child? */
	if (!notif_valid(us, op->id)) {
		us->stats.gone++;
		op_free(op);
		return;
	}
	if (!err && op->cont) {
		/* An unaddressed send, without pidfd_getfd(): as made. */
		respond_continue(us, op->id);
		op_free(op);
		return;
	}
	if (err || (op->call.mmsg && !op->call.nmsgs)) {
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

/* pathsup.h's forward: on the paths thread, queue @req for the loop. */
static void fwd_push(void *ctx, struct seccomp_notif *req)
{
	struct unixsock *us = ctx;
	struct fwd *f = xzalloc(sizeof(*f));
	uint64_t one = 1;

	f->req = req;
	pthread_mutex_lock(&us->fwd_lock);
	if (us->fwd_tail)
		us->fwd_tail->next = f;
	else
		us->fwd_head = f;
	us->fwd_tail = f;
	pthread_mutex_unlock(&us->fwd_lock);
	/* An eventfd's counter only fails to grow past 2^64 - 2. */
	(void)!write(us->fwd_fd, &one, sizeof(one));
}

static struct fwd *fwd_take_all(struct unixsock *us)
{
	struct fwd *all;

	pthread_mutex_lock(&us->fwd_lock);
	all = us->fwd_head;
	us->fwd_head = us->fwd_tail = NULL;
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
		caps_effective(us, false);
	for (; f; f = next) {
		next = f->next;
		memcpy(us->req, f->req, us->req_size);
		free(f->req);
		free(f);
		handle(lp, us);
	}
	if (us->have_caps)
		caps_effective(us, true);
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
		op_free(op);
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
		bound_forget(us, us->nbound - 1);
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
