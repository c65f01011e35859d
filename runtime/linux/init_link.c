/* SPDX-License-Identifier: MIT */
/*
 * init_link.c - the setup sent to the sandbox's init and the reports it
 * sends back (init_link.h).
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "init_link.h"
#include "launch.h"
#include "linux_artifact.h"
#include "sandbox.h"
#include "wire.h"

/* The egress proxy's listening sockets, made in the sandbox's netns. */
static void take_listener(struct init_link *l, int fd)
{
	if (l->on_listener)
		l->on_listener(l, fd, l->ctx);
	else
		close(fd);
}

/*
 * The fds the init may send back, by role.  @take owns the fd from the
 * call on.  The walls (a seccomp listener) add theirs here.
 */
static const struct {
	enum ch_fd_role role;
	void (*take)(struct init_link *l, int fd);
} fd_roles[] = {
	{ CH_FD_NONE, NULL },
	{ CH_FD_LISTEN, take_listener },
};

static void close_link(struct init_link *l)
{
	if (l->sock < 0)
		return;
	if (l->loop)
		loop_watch_remove(l->loop, &l->watch);
	close(l->sock);
	l->sock = -1;
}

static void protocol_error(struct init_link *l, const char *what)
{
	vx_error("the sandbox's init sent %s; not trusting it", what);
	l->protocol_error = true;
	close_link(l);
}

int init_link_open(struct init_link *l, char **err)
{
	int sv[2], one = 1;

	memset(l, 0, sizeof(*l));
	l->sock = l->peer = -1;
	l->walls_fd = l->listener = l->listener_fd = -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		*err = xasprintf("cannot make the init channel: %s",
				 strerror(errno));
		return -1;
	}
	l->sock = sv[0];
	l->peer = sv[1];
	if (setsockopt(l->sock, SOL_SOCKET, SO_PASSCRED, &one,
		       sizeof(one)) < 0) {
		*err = xasprintf("cannot make the init channel: %s",
				 strerror(errno));
		return -1;
	}
	l->msg = xmalloc(sizeof(*l->msg));
	return 0;
}

/* A sealed memfd with the init's mounts, encoded; -1 with errno. */
static int mounts_memfd(const struct lx_artifact *mounts)
{
	struct wbuf b = { 0 };
	const uint8_t *p;
	size_t len;
	int fd, saved;

	fd = memfd_create("vbox-init-mounts", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -1;
	lx_encode(mounts, &b);
	for (p = b.p, len = b.len; len > 0;) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			goto fail;
		p += n;
		len -= (size_t)n;
	}
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW |
		  F_SEAL_WRITE | F_SEAL_SEAL) < 0)
		goto fail;
	wbuf_release(&b);
	return fd;
fail:
	saved = errno ? errno : EIO;
	wbuf_release(&b);
	close(fd);
	errno = saved;
	return -1;
}

int init_link_setup(struct init_link *l, const struct launch_request *req,
		    const struct sandbox *sa, char **err)
{
	struct ch_msg *m = l->msg;
	uint32_t ids[2];
	size_t i;
	int ret = 0, mfd = -1;

	ch_init(m, CH_SETUP);
	/* PWD: see struct launch_request. */
	if (req->pwd)
		ret = ch_put_str(m, CH_A_PWD, req->pwd);
	else if (req->unset_pwd)
		ret = ch_put(m, CH_A_UNSET_PWD, NULL, 0);
	/* The mounts the init makes, then the user namespace it moves to. */
	if (ret == 0 && sa->init_mounts.n) {
		mfd = mounts_memfd(&sa->init_mounts);
		ids[0] = (uint32_t)getuid();
		ids[1] = (uint32_t)getgid();
		ret = mfd < 0 ? -1 : ch_put_fd(m, CH_FD_MOUNTS, mfd);
		if (ret == 0)
			ret = ch_put(m, CH_A_IDMAP, ids, sizeof(ids));
	}
	/* The walls (runtime/walls/walls.h). */
	if (ret == 0 && l->walls_fd >= 0)
		ret = ch_put_fd(m, CH_FD_WALLS, l->walls_fd);
	if (ret == 0 && l->hand_listener)
		ret = ch_put(m, CH_A_HAND_LISTENER, NULL, 0);
	if (ret == 0 && l->guard)
		ret = ch_put_u32(m, CH_A_GUARD, l->guard_flags);
	/* the egress proxy's ports (runtime/linux/bridge.c) */
	for (i = 0; ret == 0 && i < l->nlisten; i++)
		ret = ch_put_u32(m, CH_A_LISTEN, l->listen_ports[i]);
	if (ret < 0 || ch_send(l->sock, m) < 0) {
		int saved = errno;

		*err = xasprintf("cannot send the sandbox's setup: %s",
				 strerror(saved));
		if (mfd >= 0)
			close(mfd);
		errno = saved;
		return -1;
	}
	if (mfd >= 0)
		close(mfd);
	return 0;
}

int init_link_listener_taken(struct init_link *l)
{
	struct ch_msg *m = xmalloc(sizeof(*m));
	int ret;

	ch_init(m, CH_LISTENER_TAKEN);
	ret = l->sock >= 0 ? ch_send(l->sock, m) : -1;
	free(m);
	return ret;
}

/* CH_STARTED's attributes: the listener's number, if any. */
static bool on_started_attrs(struct init_link *l, struct ch_msg *m)
{
	struct ch_attr_view a;
	size_t off = 0;
	uint32_t v;
	int ret;

	while ((ret = ch_next(m, &off, &a)) > 0) {
		if (a.attr == CH_A_LISTENER && ch_u32(&a, &v) == 0 &&
		    v <= INT32_MAX && l->listener < 0) {
			l->listener = (int)v;
			continue;
		}
		if (a.attr & CH_A_OPTIONAL)
			continue;
		return false;
	}
	return ret == 0;
}

void init_link_handed_over(struct init_link *l)
{
	if (l->peer >= 0)
		close(l->peer);
	l->peer = -1;
}

/* @fd was taken: it is not closed with the message's other fds. */
static void forget_fd(struct ch_msg *m, int fd)
{
	size_t i;

	for (i = 0; i < m->nfds; i++)
		if (m->fds[i] == fd)
			m->fds[i] = -1;
}

static void take_fds(struct init_link *l, struct ch_msg *m)
{
	struct ch_attr_view a;
	size_t off = 0, i;
	unsigned role;
	int fd, ret;

	while ((ret = ch_next(m, &off, &a)) > 0) {
		if (a.attr != CH_A_FD) {
			if (a.attr & CH_A_OPTIONAL)
				continue;
			protocol_error(l, "an unknown report attribute");
			return;
		}
		fd = ch_fd(m, &a, &role);
		for (i = 0; fd >= 0 && i < array_size(fd_roles); i++) {
			if (fd_roles[i].take && fd_roles[i].role == role) {
				fd_roles[i].take(l, fd);
				forget_fd(m, fd);
				break;
			}
		}
	}
	if (ret < 0)
		protocol_error(l, "a malformed report");
}

static void on_exec_failed(struct init_link *l, struct ch_msg *m)
{
	struct ch_attr_view a;
	uint32_t v;
	size_t off = 0;

	while (ch_next(m, &off, &a) > 0)
		if (a.attr == CH_A_ERRNO && ch_u32(&a, &v) == 0)
			l->exec_errno = (int)v;
	vx_log("the command could not be executed: %s",
	       strerror(l->exec_errno));
}

static void on_error(struct init_link *l, struct ch_msg *m)
{
	struct ch_attr_view a;
	char line[512];
	size_t off = 0;

	while (ch_next(m, &off, &a) > 0)
		if (a.attr == CH_A_MESSAGE &&
		    ch_str(&a, line, sizeof(line)) == 0 && !l->error)
			l->error = xstrdup(line);
	if (!l->error)
		l->error = xstrdup("the sandbox's init failed");
}

/* One report; false when the link is done. */
static bool receive(struct init_link *l)
{
	struct ch_msg *m = l->msg;
	size_t i;
	int ret;

	ret = ch_recv(l->sock, m, MSG_DONTWAIT);
	if (ret < 0 && errno == EAGAIN)
		return false;
	if (ret <= 0) {
		if (ret < 0)
			protocol_error(l, "a malformed message");
		close_link(l);
		return false;
	}
	switch (ch_type_of(m)) {
	case CH_READY:
		if (l->ready)
			goto unexpected;
		l->ready = true;
		l->init_pid = m->pid;
		take_fds(l, m);
		if (l->sock >= 0 && l->on_ready)
			l->on_ready(l, l->ctx);
		break;
	case CH_STARTED:
		if (!l->ready || l->started)
			goto unexpected;
		if (m->nfds || !on_started_attrs(l, m))
			goto unexpected;
		l->started = true;
		l->cmd_pid = m->pid;
		if (l->on_started)
			l->on_started(l, l->ctx);
		break;
	case CH_LISTENER_FD: {
		struct ch_attr_view a;
		size_t off = 0;
		unsigned role = 0;
		int fd = -1;

		/* Once, asked for, before CH_STARTED, one fd of that role. */
		if (!l->ready || l->started || !l->hand_listener ||
		    l->listener_fd >= 0 || m->nfds != 1 ||
		    ch_next(m, &off, &a) <= 0 || a.attr != CH_A_FD ||
		    (fd = ch_fd(m, &a, &role)) < 0 || role != CH_FD_LISTENER ||
		    ch_next(m, &off, &a) != 0)
			goto unexpected;
		l->listener_fd = fd;
		forget_fd(m, fd);
		break;
	}
	case CH_EXEC_FAILED:
		if (!l->started)
			goto unexpected;
		on_exec_failed(l, m);
		break;
	case CH_ERROR:
		on_error(l, m);
		break;
	default:
		goto unexpected;
	}
	for (i = 0; i < m->nfds; i++)
		if (m->fds[i] >= 0)
			close(m->fds[i]);
	m->nfds = 0;
	return l->sock >= 0;
unexpected:
	ch_close_fds(m);
	protocol_error(l, "an unexpected message");
	return false;
}

static void on_readable(struct loop *lp, struct loop_watch *w,
			uint32_t events)
{
	struct init_link *l = w->ctx;

	(void)lp;
	(void)events;
	while (receive(l))
		;
}

int init_link_watch(struct init_link *l, struct loop *lp, char **err)
{
	int ret;

	loop_watch_init(&l->watch, l->sock, on_readable, l);
	ret = loop_watch_add(lp, &l->watch, EPOLLIN);
	if (ret < 0) {
		*err = xasprintf("cannot watch the init channel: %s",
				 strerror(-ret));
		return -1;
	}
	l->loop = lp;
	return 0;
}

void init_link_abandon(struct init_link *l)
{
	/* (A gone init has nothing to be told.) */
	if (l->sock < 0 || !l->msg)
		return;
	ch_init(l->msg, CH_ABANDON);
	(void)ch_send(l->sock, l->msg);
}

void init_link_drain(struct init_link *l)
{
	while (l->sock >= 0 && receive(l))
		;
}

void init_link_release(struct init_link *l)
{
	close_link(l);
	init_link_handed_over(l);
	if (l->listener_fd >= 0)
		close(l->listener_fd);
	free(l->msg);
	free(l->error);
	memset(l, 0, sizeof(*l));
	l->sock = l->peer = l->walls_fd = l->listener = l->listener_fd = -1;
}
