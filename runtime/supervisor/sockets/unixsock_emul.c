/* SPDX-License-Identifier: MIT */
/*
 * unixsock_emul.c - the socket supervisor without pidfd_getfd()
 * (unixsock.h: @no_getfd; container mode where it and process_vm_readv()
 * are refused).  The child's socket cannot be taken, so connect() and
 * bind() are made on a socket of the supervisor's own (the family from
 * the address, the type from /proc, the child's O_NONBLOCK), installed
 * over the child's fd with SECCOMP_IOCTL_NOTIF_ADDFD when the call
 * succeeds; a socket so bound is kept until the child listens on it.
 * Sends are not stopped in this posture at all (seccomp.c,
 * build_container_nogetfd_sends(): no socket the sandbox can hold
 * counts a destination on a send); one that came here anyway would be
 * refused.  Apart
 * because it replaces the ordinary preparation (unixsock.c's prepare())
 * for one posture only, with state (the bound sockets) of its own.
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "supervisor/childpath.h"
#include "sockcall.h"
#include "unixsock.h"
#include "unixsock_int.h"

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

void us_bound_forget(struct unixsock *us, size_t i)
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
 * prepare() without pidfd_getfd(): connect() and bind() get a socket of
 * the supervisor's own; listen() the copy of one it bound; a send, which
 * the filter does not stop here, is refused.
 */
int us_prepare_emulated(struct unixsock *us, struct op *op,
			const struct seccomp_data *d)
{
	struct sockcall_sock sk;
	enum sockcall_kind kind;
	uint64_t ino = 0;
	uint16_t family = AF_UNSPEC;
	size_t i;
	int fd, rc, fl;

	rc = sockcall_fd(d, &kind, &fd);
	if (!rc)
		rc = child_socket_ino(op->tid, fd, &ino);
	if (rc)
		return rc;
	if (kind == SOCKCALL_SEND)
		return EACCES;
	memset(&sk, 0, sizeof(sk));
	if (kind == SOCKCALL_LISTEN) {
		for (i = 0; i < us->nbound && us->bound[i].ino != ino; i++)
			;
		if (i == us->nbound)
			return EACCES;	/* not bound by the supervisor */
		op->sock = us->bound[i].fd;
		us->bound[i] = us->bound[--us->nbound];
		return sockcall_decode(d, &sk, us_read_child, op, &op->call);
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
	rc = sockcall_decode(d, &sk, us_read_child, op, &op->call);
	if (rc)
		return rc;
	op->dest = xcalloc(1, sizeof(*op->dest));
	op->sent = xcalloc(1, sizeof(*op->sent));
	op->dest[0].target = -1;
	rc = us_take_dest(op, 0);
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
	/* a blocking caller's connect is made without blocking the loop,
	 * and retried (unixsock_perform.c), as for a taken socket */
	op->blocking = !(fl >= 0 && (fl & O_NONBLOCK));
	op->emulated = true;
	return 0;
}

/*
 * The emulated call succeeded (or a non-blocking connect is under way):
 * the supervisor's socket takes the child's fd number.  0 or an errno.
 */
int us_install(struct op *op)
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
