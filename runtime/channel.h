/* SPDX-License-Identifier: MIT */
/*
 * channel.h - the channel between vbox-exec and the sandbox's init
 * (doc/launcher.md, "The init channel").
 *
 * One SOCK_SEQPACKET socket pair; vbox-exec keeps one end (with
 * SO_PASSCRED), the init gets the other as an inherited fd.  Every
 * message is one datagram:
 *
 *   header  u16 type (enum ch_type), u16 version (CH_VERSION),
 *           u32 payload length
 *   payload attributes, each u16 attr (enum ch_attr), u16 length, the
 *           value, zero padding to a multiple of 4
 *
 * in the host's byte order (both ends run on the same machine), at most
 * CH_MSG_MAX bytes, with at most CH_MAX_FDS file descriptors attached as
 * SCM_RIGHTS; an attribute names an attached fd by its index.  The
 * kernel attaches the sender's credentials (SCM_CREDENTIALS) to every
 * message vbox-exec receives, so the pid in a report is the kernel's
 * word, not the sender's.  Bulk data that does not fit (a BPF program, a
 * long path list) travels as a sealed memfd attached to a message.
 *
 * An attribute number with CH_A_OPTIONAL set may be ignored by a reader
 * that does not know it; any other unknown attribute makes the reader
 * refuse the whole message (fail closed: a wall the init does not know
 * must not be skipped silently).
 *
 * Owned here: the framing, sending and receiving (fds and credentials
 * included), and attribute iteration.  The meaning of each message is
 * runtime/init/init.c's and runtime/linux/init_link.c's.  This file is
 * linked into the static init: libc only, no allocation.
 */
#ifndef VBOX_CHANNEL_H
#define VBOX_CHANNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CH_VERSION 1
#define CH_HEADER_SIZE 8
#define CH_MSG_MAX 65536
#define CH_MAX_FDS 16

/**
 * enum ch_type - what a message is
 * @CH_SETUP: vbox-exec -> init, exactly one, before anything else: what
 *            the init must put in place before the command runs
 * @CH_READY: init -> vbox-exec: the setup is in place; carries the fds
 *            the init made for vbox-exec (CH_A_FD), if any
 * @CH_STARTED: the command's process -> vbox-exec, right before its
 *              exec; its credentials give vbox-exec the command's pid
 * @CH_EXEC_FAILED: the command's process -> vbox-exec: the exec failed
 *                  (CH_A_ERRNO, CH_A_STATUS 126 or 127)
 * @CH_ERROR: init -> vbox-exec: the setup could not be put in place
 *            (CH_A_MESSAGE); the init exits 125 and the command never runs
 * @CH_LISTENER_TAKEN: vbox-exec -> the command's process, after a
 *                     CH_STARTED with CH_A_LISTENER: vbox-exec holds the
 *                     socket filter's listener (runtime/walls/walls.h);
 *                     the process may close its copy and exec
 * @CH_LISTENER_FD: a helper of the command's process -> vbox-exec, before
 *                  CH_STARTED, when CH_SETUP had CH_A_HAND_LISTENER: the
 *                  listener itself (CH_FD_LISTENER), sent by a helper
 *                  cloned before the filter was loaded and sharing the
 *                  process's fd table (the process itself can no longer
 *                  sendmsg())
 * @CH_ABANDON: vbox-exec -> init, instead of CH_SETUP: this sandbox is
 *              not the launch's (bubblewrap was started again with
 *              another list); the init exits 125 without a word
 */
enum ch_type {
	CH_SETUP = 1,
	CH_READY = 2,
	CH_STARTED = 3,
	CH_EXEC_FAILED = 4,
	CH_ERROR = 5,
	CH_LISTENER_TAKEN = 6,
	CH_LISTENER_FD = 7,
	CH_ABANDON = 8,
};

/* An attribute number a reader may ignore when it does not know it. */
#define CH_A_OPTIONAL 0x8000

/**
 * enum ch_attr - attributes
 * @CH_A_PWD: CH_SETUP: string, the command's PWD
 * @CH_A_UNSET_PWD: CH_SETUP: empty; the command gets no PWD at all
 * @CH_A_ERRNO: u32, an errno value
 * @CH_A_STATUS: u32, an exit status
 * @CH_A_MESSAGE: string, one line for the user
 * @CH_A_FD: u32 role (enum ch_fd_role), u32 index of an attached fd
 * @CH_A_IDMAP: CH_SETUP: u32 uid, u32 gid: after its mounts, the init
 *              moves into a nested user namespace mapping them to its
 *              uid and gid 0 (bubblewrap then runs it as uid 0 with every
 *              capability, which the init drops)
 * @CH_A_LISTENER: CH_STARTED: u32, the number of the socket filter's
 *                 listener fd in the command's process, which waits for
 *                 CH_LISTENER_TAKEN (vbox-exec takes it with
 *                 pidfd_getfd(): the filter is loaded, so the process
 *                 can no longer send it with SCM_RIGHTS itself)
 * @CH_A_HAND_LISTENER: CH_SETUP: empty; container mode where
 *                      pidfd_getfd() is refused: the command's process
 *                      sends the listener itself (CH_LISTENER_FD) before
 *                      CH_STARTED
 * @CH_A_GUARD: CH_SETUP: u32 flags (CH_GUARD_*); container mode: the init
 *              stays as the tree's guard (a subreaper that forks the
 *              command and ends the whole tree when vbox-exec dies)
 * @CH_A_LISTEN: CH_SETUP: u32 port; the init listens on 127.0.0.1:port
 *               and [::1]:port in the sandbox's network namespace and
 *               sends the sockets back (CH_FD_LISTEN) for the egress
 *               proxy and its loopback forwards
 */
enum ch_attr {
	CH_A_PWD = 1,
	CH_A_UNSET_PWD = 2,
	CH_A_ERRNO = 3,
	CH_A_STATUS = 4,
	CH_A_MESSAGE = 5,
	CH_A_FD = 6,
	CH_A_IDMAP = 7,
	CH_A_LISTENER = 8,
	CH_A_HAND_LISTENER = 9,
	CH_A_GUARD = 10,
	CH_A_LISTEN = 16,
};

/* CH_A_GUARD's flags: the guard's own domain scopes signals (the
 * command's walls use Landlock ABI 6 or later). */
#define CH_GUARD_SCOPED 1u

/**
 * enum ch_fd_role - what an attached fd is for (CH_A_FD); numbers are
 * reserved here so the rooms that add them cannot collide
 * @CH_FD_NONE: never sent
 * @CH_FD_MOUNTS: CH_SETUP: a sealed memfd holding the mounts the init
 *                makes, in plan/linux_artifact.h's encoding (flags 0)
 * @CH_FD_WALLS: CH_SETUP: the sealed memfd with the walls
 *               (runtime/walls/walls.h)
 * @CH_FD_LISTENER: CH_LISTENER_FD: the socket filter's listener
 * @CH_FD_LISTEN: a listening TCP socket asked for by CH_A_LISTEN (its
 *                port and family tell which)
 */
enum ch_fd_role {
	CH_FD_NONE = 0,
	CH_FD_MOUNTS = 1,
	CH_FD_WALLS = 2,
	CH_FD_LISTENER = 3,
	CH_FD_LISTEN = 16,
};

/**
 * struct ch_msg - one message being built or received
 * @buf: header and payload
 * @len: bytes of @buf in use (CH_HEADER_SIZE at least)
 * @fds: attached fds (received ones are owned by the receiver, O_CLOEXEC)
 * @nfds: number of @fds
 * @pid: received only: the sender's pid from SCM_CREDENTIALS (0: none)
 */
struct ch_msg {
	uint8_t buf[CH_MSG_MAX];
	size_t len;
	int fds[CH_MAX_FDS];
	size_t nfds;
	pid_t pid;
};

/* ch_init - make @m an empty message of @type. */
void ch_init(struct ch_msg *m, enum ch_type type);

/* ch_type_of - the type of a built or received message. */
unsigned ch_type_of(const struct ch_msg *m);

/*
 * ch_put - append attribute @attr with @len bytes at @val.  Returns 0, or
 * -1 (errno E2BIG) when the message would exceed CH_MSG_MAX.
 */
int ch_put(struct ch_msg *m, unsigned attr, const void *val, size_t len);
int ch_put_u32(struct ch_msg *m, unsigned attr, uint32_t v);
int ch_put_str(struct ch_msg *m, unsigned attr, const char *s);
/*
 * ch_put_fd - attach @fd (not closed, not taken) with @role.  -1 with
 * E2BIG past CH_MAX_FDS.
 */
int ch_put_fd(struct ch_msg *m, unsigned role, int fd);

/* ch_send - send @m on @sock (MSG_NOSIGNAL).  0, or -1 with errno. */
int ch_send(int sock, const struct ch_msg *m);

/*
 * ch_send_plain - ch_send() for a message without fds, with send(): a
 * sendto() without an address, which the sandbox's socket filter lets
 * through (sendmsg() goes to the supervisor, which may not be there
 * yet).  0, or -1 with errno.
 */
int ch_send_plain(int sock, const struct ch_msg *m);

/*
 * ch_recv - receive one message from @sock into @m (@flags for
 * recvmsg(), e.g. MSG_DONTWAIT).  Returns 1 for a message, 0 when the
 * peer is gone, -1 with errno (EAGAIN, or EPROTO for a malformed or
 * truncated message, whose fds are closed).
 */
int ch_recv(int sock, struct ch_msg *m, int flags);

/* ch_close_fds - close the fds attached to a received @m. */
void ch_close_fds(struct ch_msg *m);

/**
 * struct ch_attr_view - one attribute of a message
 * @attr: its number
 * @len: its value's length
 * @val: its value (in the message)
 */
struct ch_attr_view {
	unsigned attr;
	size_t len;
	const uint8_t *val;
};

/*
 * ch_next - the attribute at *@off (start with 0), advancing *@off.
 * Returns 1, 0 at the end, -1 when the payload is malformed.
 */
int ch_next(const struct ch_msg *m, size_t *off, struct ch_attr_view *a);

/* ch_u32 - @a's value as a u32; -1 when it is not 4 bytes. */
int ch_u32(const struct ch_attr_view *a, uint32_t *v);

/*
 * ch_str - @a's value copied into @buf (@size bytes) as a string; -1
 * when it holds a NUL byte or does not fit.
 */
int ch_str(const struct ch_attr_view *a, char *buf, size_t size);

/* ch_fd - the attached fd @a (CH_A_FD) names, with its role; -1 if none. */
int ch_fd(const struct ch_msg *m, const struct ch_attr_view *a,
	  unsigned *role);

#endif /* VBOX_CHANNEL_H */
