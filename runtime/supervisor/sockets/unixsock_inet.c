/* SPDX-License-Identifier: MIT */
/*
 * unixsock_inet.c - the socket supervisor's inet destinations in
 * container mode under net deny (unixsock.h: @admit_inet): a connect or
 * a send is admitted when it goes to one of the sandbox's own loopback
 * listeners, or when the launcher admits it (the proxy's ports, the
 * table's loopback rows); a bind() takes a loopback address only, and
 * listen() a socket bound to one.  The sandbox's own listeners are
 * remembered here when listen() succeeds, and checked against the
 * kernel's list of TCP listeners (listeners.c, sock_diag) at each
 * connect.  Apart because it is the one part of the supervisor that
 * judges network addresses, not names or fds.  In any posture, a port
 * someone outside the sandbox listens on is never joined (SO_REUSEPORT).
 */
#include <vbox.h>

#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "listeners.h"
#include "sockcall.h"
#include "unixsock.h"
#include "unixsock_int.h"

/* A loopback listener of the sandbox's own: its port and its inode. */
struct own_listener {
	uint16_t port;
	uint64_t ino;
};

/* The most loopback listeners of the sandbox's own remembered. */
#define OWN_PORTS_MAX 4096

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
int us_judge_inet(const struct op *op, const struct sockcall_msg *m)
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
 * Container mode: does anyone but the sandbox listen on TCP @port?  The
 * sandbox shares the host's network namespace, and a socket with
 * SO_REUSEPORT of the same uid may listen beside a host service's and
 * take about half of its connections: a port someone else listens on is
 * never joined.  0, or EADDRINUSE (also when the kernel's list cannot
 * be read or is longer than we look).
 */
static int others_listen(const struct unixsock *us, uint16_t port,
			 uint64_t self)
{
	uint64_t ino[16];
	size_t i, n;

	if (tcp_listeners(port, ino, array_size(ino), &n) < 0 ||
	    n > array_size(ino))
		return EADDRINUSE;
	for (i = 0; i < n; i++)
		if (ino[i] != self && !own_ino(us, ino[i]))
			return EADDRINUSE;
	return 0;
}

/* The port @sock is bound to, its inode; false when not an inet one. */
static bool inet_bound(int sock, struct sockaddr_storage *sa, uint64_t *ino)
{
	socklen_t len = sizeof(*sa);
	struct stat st;

	memset(sa, 0, sizeof(*sa));
	if (getsockname(sock, (struct sockaddr *)sa, &len) < 0 ||
	    !inet_family(sa->ss_family) || fstat(sock, &st) < 0)
		return false;
	*ino = (uint64_t)st.st_ino;
	return true;
}

/*
 * Container mode: listen() on an inet socket whose port no one else
 * listens on (others_listen()); under net deny, bound to a loopback
 * address only (an unbound one would be bound to every address by the
 * kernel, reachable from other hosts).  0, EACCES or EADDRINUSE.
 */
int us_judge_listen(const struct op *op)
{
	struct sockaddr_storage sa;
	uint64_t ino;

	if (!op->us->cfg.container || !inet_bound(op->sock, &sa, &ino))
		return 0;
	if (op->us->cfg.admit_inet &&
	    (inet_port(&sa) == 0 || !inet_loopback(&sa)))
		return EACCES;
	return inet_port(&sa) ? others_listen(op->us, inet_port(&sa), ino) : 0;
}

/*
 * A listen() made (container mode): looked at once more, since a host
 * service may have started beside it meanwhile; then a loopback port is
 * remembered as the sandbox's own.  0, or EADDRINUSE with the socket's
 * listening undone.
 */
int us_listened(struct op *op)
{
	struct sockaddr_storage sa;
	uint64_t ino;

	if (!op->us->cfg.container || !inet_bound(op->sock, &sa, &ino))
		return 0;
	if (others_listen(op->us, inet_port(&sa), ino)) {
		/* a TCP listener shut down for reading listens no more */
		(void)shutdown(op->sock, SHUT_RD);
		return EADDRINUSE;
	}
	if (inet_loopback(&sa))
		own_listener_add(op->us, inet_port(&sa), ino);
	return 0;
}
