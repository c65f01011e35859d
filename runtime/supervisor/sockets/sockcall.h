/* SPDX-License-Identifier: MIT */
/*
 * sockcall.h - decode one supervised socket call (unixsock.h) from the
 * seccomp notification and the child's memory, as the kernel decodes it.
 *
 * Everything here is bytes the sandbox chose.  The decoder reads the
 * child's memory only through a callback, makes no system call and sizes
 * every buffer from a checked length (exact allocations, bounds below),
 * so fuzz/fuzz_unixsock.c runs this very code on arbitrary bytes.  What
 * it returns for the child is the kernel's own errno where the kernel
 * would refuse the call before reaching a socket:
 *
 *   - an address length below 0 or above sizeof(struct sockaddr_storage)
 *     is EINVAL for connect(), bind() and sendto() (move_addr_to_kernel);
 *     a sendmsg() msg_namelen above it is cut to it (__copy_msghdr);
 *   - more than UIO_MAXIOV iovecs is EMSGSIZE; an iovec longer than
 *     SSIZE_MAX is EINVAL; msg_controllen above the bound is ENOBUFS;
 *   - a malformed control header is EINVAL (cmsg_iter.h), more than
 *     SCM_MAX_FD (253) fds in a message is EINVAL, SCM_CREDENTIALS is
 *     refused with EOPNOTSUPP (the supervisor's credentials are not the
 *     child's).
 *
 * A unix address (the socket being AF_UNIX) is classified: a pathname
 * (copied out, NUL-terminated, at most sizeof(sun_path) bytes: a full
 * sun_path without NUL is a 108-byte name, as unix_mkname_bsd() makes
 * it), an abstract name, an autobind (bind() with only the family); an
 * address the kernel refuses (a length outside (2, 110], another
 * family) is left "as given": the kernel then answers the call itself,
 * before any lookup.
 *
 * Data: a stream socket's send takes at most SOCKCALL_DATA_MAX bytes
 * (the kernel's answer is then a short count, legal for a stream); a
 * datagram larger than that is EMSGSIZE when the socket's send buffer
 * could not take it either (the kernel's own answer), and copied whole
 * up to SOCKCALL_DGRAM_MAX otherwise.  sendmmsg() takes up to UIO_MAXIOV
 * messages while their bytes stay under SOCKCALL_TOTAL_MAX and their fds
 * under SCM_MAX_FD; a later message that does not fit is left for the
 * caller's next call (the count returned says how many were sent).
 */
#ifndef VBOX_SUPERVISOR_SOCKCALL_H
#define VBOX_SUPERVISOR_SOCKCALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "supervisor/childmem.h"

struct seccomp_data;

#define SOCKCALL_DATA_MAX (1u << 20)
#define SOCKCALL_DGRAM_MAX (16u << 20)
#define SOCKCALL_CONTROL_MAX (64u << 10)
#define SOCKCALL_TOTAL_MAX (4u << 20)
#define SOCKCALL_IOV_MAX 1024		/* UIO_MAXIOV */
#define SOCKCALL_VLEN_MAX 1024		/* sendmmsg(): UIO_MAXIOV */

enum sockcall_kind {
	SOCKCALL_CONNECT,
	SOCKCALL_SEND,
	SOCKCALL_BIND,
	SOCKCALL_LISTEN,	/* container mode: no address, a backlog */
};

enum sockcall_unix {
	SOCKCALL_AS_GIVEN,	/* not a unix address to judge */
	SOCKCALL_PATH,
	SOCKCALL_ABSTRACT,
	SOCKCALL_AUTOBIND,
};

/**
 * struct sockcall_addr - an address the child gave
 * @has: given (a pointer and a length other than 0)
 * @sa: its bytes (zero-padded)
 * @len: its length (0 .. sizeof(@sa))
 * @unix_kind: how a unix socket's address is judged
 * @path: for SOCKCALL_PATH, the name (NUL-terminated, owned)
 */
struct sockcall_addr {
	bool has;
	struct sockaddr_storage sa;
	socklen_t len;
	enum sockcall_unix unix_kind;
	char *path;
};

/**
 * struct sockcall_msg - one message (or the one call) to perform
 * @to: the destination or bind address
 * @data: the bytes to send (owned, exact size; NULL when @len is 0)
 * @len: bytes in @data
 * @control: control data (owned, exact size), its SCM_RIGHTS fds still
 *           the child's numbers until translated
 * @controllen: bytes in @control
 * @fd_off: offsets in @control of each SCM_RIGHTS fd (owned)
 * @nfds: number of @fd_off
 * @len_at: sendmmsg(): where this message's msg_len goes in the child
 */
struct sockcall_msg {
	struct sockcall_addr to;
	unsigned char *data;
	size_t len;
	unsigned char *control;
	size_t controllen;
	size_t *fd_off;
	size_t nfds;
	uint64_t len_at;
};

/**
 * struct sockcall - one decoded call
 * @kind: connect, send or bind
 * @fd: the child's socket fd number
 * @flags: send flags
 * @mmsg: sendmmsg(): the answer is a count of messages
 * @msgs: the messages (owned); one for every call but sendmmsg()
 * @nmsgs: number of @msgs (0: sendmmsg() with nothing to send)
 * @backlog: listen(): its backlog
 */
struct sockcall {
	enum sockcall_kind kind;
	int fd;
	int flags;
	int backlog;
	bool mmsg;
	struct sockcall_msg *msgs;
	size_t nmsgs;
};

/**
 * struct sockcall_sock - what the supervisor learnt of the child's socket
 * @family: SO_DOMAIN
 * @type: SO_TYPE
 * @sndbuf: SO_SNDBUF
 */
struct sockcall_sock {
	int family;
	int type;
	size_t sndbuf;
};

/*
 * sockcall_fd - the call of @d and its socket fd: 0 with *@kind and *@fd
 * set; ENOSYS for a call this filter never stops; EACCES for an x32 or
 * i386 sendmsg()/sendmmsg() (their structs are not decoded).
 */
int sockcall_fd(const struct seccomp_data *d, enum sockcall_kind *kind,
		int *fd);

/*
 * sockcall_decode - decode the call of @d on a socket described by @sk,
 * reading the child's memory through @rd(@ctx, ...).  0 with *@out
 * filled (release it with sockcall_release()), or an errno for the child
 * (*@out is then released already).
 */
int sockcall_decode(const struct seccomp_data *d,
		    const struct sockcall_sock *sk, child_read_fn rd,
		    void *ctx, struct sockcall *out);

/* sockcall_release - free what sockcall_decode() allocated in @c. */
void sockcall_release(struct sockcall *c);

#endif /* VBOX_SUPERVISOR_SOCKCALL_H */
