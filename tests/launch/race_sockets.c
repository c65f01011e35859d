/* SPDX-License-Identifier: MIT */
/*
 * race_sockets.c - race_args's cases of the socket calls whose address
 * lives in the child's memory: connect(), sendto(), sendmsg()'s name and
 * whole header, sendmmsg(), on a datagram socket and on a SOCK_RAW
 * socketpair (race.h).
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "race.h"

/* ------------------------------------------------------------------ */
/* sockets: connect, sendto, sendmsg, sendmmsg */

static int own_stream = -1, own_dgram = -1;


/* The case's own sockets: a stream listener and a datagram socket. */
static bool own_sockets(bool dgram, char **why)
{
	struct sockaddr_un sa;

	if (own_stream < 0) {
		unix_addr(&sa, p_ok_stream);
		(void)unlink(p_ok_stream);
		own_stream = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (own_stream < 0 ||
		    bind(own_stream, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
		    listen(own_stream, 512) < 0) {
			*why = xasprintf("own stream socket: %s",
					 strerror(errno));
			return false;
		}
	}
	if (dgram && own_dgram < 0) {
		unix_addr(&sa, p_ok_dgram);
		(void)unlink(p_ok_dgram);
		own_dgram = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC |
				   SOCK_NONBLOCK, 0);
		if (own_dgram < 0 ||
		    bind(own_dgram, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
			*why = xasprintf("datagram socket: %s",
					 strerror(errno));
			if (own_dgram >= 0)
				close(own_dgram);
			own_dgram = -1;
			return false;
		}
	}
	return true;
}

static bool setup_connect(const struct rcase *c, char **why)
{
	struct sockaddr_un a, b;

	(void)c;
	if (!own_sockets(false, why))
		return false;
	unix_addr(&a, p_ok_stream);
	unix_addr(&b, p_host_stream);
	flip_set(0, &a, &b, sizeof(a));
	return true;
}

static enum outcome try_connect(const struct rcase *c)
{
	struct sockaddr_un peer;
	socklen_t len = sizeof(peer);
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), a;
	bool won;

	(void)c;
	if (s < 0)
		return TRY_REFUSED;
	if (connect(s, (struct sockaddr *)(void *)slot(0),
		    sizeof(struct sockaddr_un)) < 0) {
		close(s);
		return TRY_REFUSED;
	}
	memset(&peer, 0, sizeof(peer));
	won = getpeername(s, (struct sockaddr *)&peer, &len) == 0 &&
	      strcmp(peer.sun_path, p_host_stream) == 0;
	close(s);
	/* the accepted end of our own listener, if that is where it went */
	a = accept4(own_stream, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (a >= 0)
		close(a);
	return won ? TRY_WON : TRY_OK;
}

/*
 * A datagram socket sends with its destination flipped:
 *   0 sendto's address; 1 sendmsg's msg_name bytes; 2 the whole msghdr
 *   (no name: to our own socket it is connected to / the host's name);
 *   3 sendmmsg's msg_name bytes;
 *   4 as 2 on a SOCK_RAW socketpair (the kernel makes a unix SOCK_RAW
 *   socket a datagram one): the review's race, where datagram sockets
 *   are refused but an unaddressed send was let go on.
 */
struct send_area {
	struct msghdr h;
	struct mmsghdr mh;
	struct iovec iov;
	struct sockaddr_un name;
	char data[8];
};

static int send_sock = -1, send_peer = -1;

static void send_close(void)
{
	if (send_sock >= 0)
		close(send_sock);
	if (send_peer >= 0)
		close(send_peer);
	send_sock = send_peer = -1;
}

/* Our end of the sends, and where an unaddressed send of it goes. */
static bool send_ends(const struct rcase *c, const struct sockaddr_un *a,
		      char **why)
{
	int sv[2];

	send_close();
	if (c->arg == 4) {
		if (socketpair(AF_UNIX, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
			       0, sv) < 0) {
			*why = xasprintf("socketpair(SOCK_RAW): %s",
					 strerror(errno));
			return false;
		}
		send_sock = sv[0];
		send_peer = sv[1];
		return true;
	}
	if (!own_sockets(true, why))
		return false;
	send_sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
			   0);
	if (send_sock < 0) {
		*why = xasprintf("socket(SOCK_DGRAM): %s", strerror(errno));
		return false;
	}
	if (c->arg == 2 &&
	    connect(send_sock, (const struct sockaddr *)a, sizeof(*a)) < 0) {
		*why = xasprintf("connect to our own datagram socket: %s",
				 strerror(errno));
		return false;
	}
	return true;
}

static bool setup_send(const struct rcase *c, char **why)
{
	struct send_area *s = (struct send_area *)(void *)slot(1);
	struct msghdr ha, hb;
	struct sockaddr_un a, b;

	unix_addr(&a, p_ok_dgram);
	unix_addr(&b, p_host_dgram);
	if (!send_ends(c, &a, why))
		return false;
	memset(s, 0, sizeof(*s));
	memcpy(s->data, "race", 4);
	s->iov.iov_base = s->data;
	s->iov.iov_len = 4;
	s->name = a;
	s->h.msg_iov = &s->iov;
	s->h.msg_iovlen = 1;
	s->h.msg_name = &s->name;
	s->h.msg_namelen = sizeof(s->name);
	s->mh.msg_hdr = s->h;
	if (c->arg == 0 || c->arg == 1 || c->arg == 3) {
		flip_set((size_t)((unsigned char *)&s->name - ar->buf), &a, &b,
			 sizeof(a));
		return true;
	}
	/* no name (the connected peer) against the host's name */
	s->name = b;
	ha = s->h;
	ha.msg_name = NULL;
	ha.msg_namelen = 0;
	hb = s->h;
	flip_set((size_t)((unsigned char *)&s->h - ar->buf), &ha, &hb,
		 sizeof(ha));
	return true;
}

static enum outcome try_send(const struct rcase *c)
{
	struct send_area *s = (struct send_area *)(void *)slot(1);
	char buf[16];
	long rc;
	int drain = send_peer >= 0 ? send_peer : own_dgram;

	switch (c->arg) {
	case 0:
		rc = sendto(send_sock, s->data, 4, MSG_DONTWAIT,
			    (struct sockaddr *)&s->name, sizeof(s->name));
		break;
	case 3:
		rc = syscall(SYS_sendmmsg, send_sock, &s->mh, 1, MSG_DONTWAIT);
		break;
	default:
		rc = sendmsg(send_sock, &s->h, MSG_DONTWAIT);
	}
	/* drain our own end, so that it never fills */
	while (recv(drain, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
	/* the host counts what reached its socket: nothing to see here */
	return rc < 0 ? TRY_REFUSED : TRY_OK;
}

const struct rcase race_socket_cases[] = {
	{ "connect", setup_connect, try_connect, 0 },
	{ "sendto", setup_send, try_send, 0 },
	{ "sendmsg-name", setup_send, try_send, 1 },
	{ "sendmsg-header", setup_send, try_send, 2 },
	{ "sendmmsg-name", setup_send, try_send, 3 },
	{ "raw-sendmsg-header", setup_send, try_send, 4 },
};
const size_t race_nsocket_cases = array_size(race_socket_cases);
