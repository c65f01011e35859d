/* SPDX-License-Identifier: MIT */
/*
 * seccomp_container.c - container mode's filters (seccomp.h:
 * seccomp_container_build()), on top of the deny rules every mode has
 * (seccomp.c, through seccomp_int.h).
 */
#include <vbox.h>

#include <errno.h>
#include <netinet/in.h>
#include <seccomp.h>
#include <sys/socket.h>

#include "seccomp.h"
#include "seccomp_int.h"

/*
 * Container mode (doc/launcher.md, "Container mode"): no namespace of
 * its own, so what namespace mode leaves to the sandbox's namespaces is
 * refused or supervised here.  SysV IPC and POSIX message queues are the
 * host's: refused.  An inet socket is TCP or nothing (no UDP, raw, SCTP
 * or MPTCP: the supervisor judges every TCP destination, and nothing
 * else reaches the network); netlink is the route family only (the C
 * library's address checks), never the host's socket lists or audit;
 * TCP Fast Open's connect-on-send is refused (sendto() and sendmsg()
 * with an address are supervised, and the supervisor refuses
 * MSG_FASTOPEN).  bind() and listen() are supervised: an inet socket
 * listens on loopback only, or a host outside could connect in.
 */
static const char *const deny_container_eperm[] = {
	"shmget", "shmat", "shmdt", "shmctl", "msgget", "msgsnd", "msgrcv",
	"msgctl", "semget", "semop", "semtimedop", "semtimedop_time64",
	"semctl", "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive",
	"mq_timedsend_time64", "mq_timedreceive_time64", "mq_notify",
	"mq_getsetattr",
};

/* Metadata calls container mode supervises (runtime/supervisor/metacall.h). */
static const char *const container_meta[] = {
	"chmod", "fchmod", "fchmodat", "chown", "fchown", "lchown",
	"fchownat", "utime", "utimes", "futimesat", "utimensat",
	"setxattr", "lsetxattr", "fsetxattr", "removexattr",
	"lremovexattr", "fremovexattr", "truncate",
	/* 32-bit variants (i386): the supervisor answers ENOSYS */
	"chown32", "fchown32", "lchown32", "utimensat_time64", "truncate64",
};

/* A process named by its first argument (a pid; 0: the caller). */
static const char *const container_self_a0[] = {
	"prlimit64", "sched_setaffinity", "sched_setscheduler",
	"sched_setparam", "sched_setattr", "migrate_pages", "move_pages",
};

/* By its second (setpriority's and ioprio_set's "who"; 0: the caller). */
static const char *const container_self_a1[] = {
	"setpriority", "ioprio_set",
};

/* Types other than SOCK_STREAM (1), in blocks of the low four bits. */
static const uint32_t deny_container_type[][2] = {
	{ 0xf, 0 }, { 0xe, 2 }, { 0xc, 4 }, { 0x8, 8 },
};

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif
#define TCP_FASTOPEN_CONNECT_OPT 30

static int build_container_nogetfd_sends(scmp_filter_ctx ctx,
					 const char **what);

/*
 * @getfd: the supervisor can take the child's sockets (pidfd_getfd())
 * and makes every addressed call on copies; without, see
 * build_container_nogetfd_sends().  @paths: the supervisor judges every
 * path call as well (supervised paths in container mode: a deny or
 * read-only row Landlock cannot hold exactly), so the path calls are
 * stopped, openat2() among them, beside the metadata calls.
 */
static int build_container_common(scmp_filter_ctx ctx, const char **what,
				  bool getfd, bool paths)
{
	static const unsigned inet[] = { AF_INET, AF_INET6 };
	static const unsigned proto[] = { 132 /* SCTP */, IPPROTO_MPTCP };
	struct scmp_arg_cmp c[2];
	size_t i, k;
	int rc = paths ? seccomp_build_deny_judged(ctx, what) :
		 seccomp_build_deny(ctx, what);

	if (rc >= 0)
		rc = getfd ? seccomp_build_notify(ctx, what) :
			     build_container_nogetfd_sends(ctx, what);
	if (rc >= 0)
		rc = seccomp_build_notify_bind(ctx, what);
	if (rc >= 0) {
		*what = "listen";
		rc = seccomp_rule(ctx, SCMP_ACT_NOTIFY, "listen", 0, NULL);
	}
	for (i = 0; rc >= 0 && i < array_size(deny_container_eperm); i++) {
		*what = deny_container_eperm[i];
		rc = seccomp_rule(ctx, SCMP_ACT_ERRNO(EPERM), deny_container_eperm[i],
			  0, NULL);
	}
	/* i386's ipc() multiplexes SysV IPC, its arguments out of reach. */
	if (rc >= 0) {
		*what = "ipc";
		rc = seccomp_rule(ctx, SCMP_ACT_ERRNO(ENOSYS), "ipc", 0, NULL);
	}
	*what = "socket";
	for (i = 0; rc >= 0 && i < array_size(inet); i++) {
		c[0] = SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffu, inet[i]);
		for (k = 0; rc >= 0 && k < array_size(deny_container_type);
		     k++) {
			c[1] = SCMP_A1(SCMP_CMP_MASKED_EQ,
				       deny_container_type[k][0],
				       deny_container_type[k][1]);
			rc = seccomp_rule(ctx, SCMP_ACT_ERRNO(EPERM), "socket", 2, c);
		}
		for (k = 0; rc >= 0 && k < array_size(proto); k++) {
			c[1] = SCMP_A2(SCMP_CMP_MASKED_EQ, 0xffffffffu,
				       proto[k]);
			rc = seccomp_rule(ctx, SCMP_ACT_ERRNO(EPERM), "socket", 2, c);
		}
	}
	if (rc >= 0) {
		c[0] = SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffu, AF_NETLINK);
		c[1] = SCMP_A2(SCMP_CMP_NE, 0);
		rc = seccomp_rule(ctx, SCMP_ACT_ERRNO(EPERM), "socket", 2, c);
	}
	if (rc >= 0) {
		*what = "setsockopt";
		c[0] = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, IPPROTO_TCP);
		c[1] = SCMP_A2(SCMP_CMP_MASKED_EQ, 0xffffffffu,
			       TCP_FASTOPEN_CONNECT_OPT);
		rc = seccomp_rule(ctx, SCMP_ACT_ERRNO(EPERM), "setsockopt", 2, c);
	}
	/* Metadata Landlock does not cover: judged by the supervisor; with
	 * supervised paths every path call (the metadata calls among them). */
	if (rc >= 0 && paths)
		rc = seccomp_build_path_calls(ctx, what);
	for (i = 0; rc >= 0 && !paths && i < array_size(container_meta); i++) {
		*what = container_meta[i];
		rc = seccomp_rule(ctx, SCMP_ACT_NOTIFY, container_meta[i], 0, NULL);
	}
	/*
	 * Calls that act on another process by pid: the sandbox has no PID
	 * namespace of its own, and Landlock does not judge them (limits,
	 * niceness, affinity, scheduling, I/O priority of a host process of
	 * the same uid).  Only the calling process itself (0).
	 */
	for (i = 0; rc >= 0 && i < array_size(container_self_a0); i++) {
		*what = container_self_a0[i];
		c[0] = SCMP_A0(SCMP_CMP_NE, 0);
		rc = seccomp_rule(ctx, SCMP_ACT_ERRNO(EPERM), container_self_a0[i], 1,
			  c);
	}
	for (i = 0; rc >= 0 && i < array_size(container_self_a1); i++) {
		*what = container_self_a1[i];
		c[0] = SCMP_A1(SCMP_CMP_NE, 0);
		rc = seccomp_rule(ctx, SCMP_ACT_ERRNO(EPERM), container_self_a1[i], 1,
			  c);
	}
	/* ... nor every process of the caller's uid (PRIO_USER, who 0). */
	if (rc >= 0) {
		*what = "setpriority";
		c[0] = SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffu, 2 /* PRIO_USER */);
		rc = seccomp_rule(ctx, SCMP_ACT_ERRNO(EPERM), "setpriority", 1, c);
	}
	if (rc >= 0) {
		*what = "ioprio_set";
		c[0] = SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffu,
			       3 /* IOPRIO_WHO_USER */);
		rc = seccomp_rule(ctx, SCMP_ACT_ERRNO(EPERM), "ioprio_set", 1, c);
	}
	/* File flags (chattr) and fsxattrs: no path to judge them by. */
	return rc < 0 ? rc : seccomp_build_chattr(ctx, what);
}

static int build_container(scmp_filter_ctx ctx, const char **what)
{
	return build_container_common(ctx, what, true, false);
}

static int build_container_paths(scmp_filter_ctx ctx, const char **what)
{
	return build_container_common(ctx, what, true, true);
}

/* Unix socket types but SOCK_STREAM (1) and SOCK_SEQPACKET (5), in
 * blocks of the low four bits. */
static const uint32_t deny_unix_dgram_type[][2] = {
	{ 0xf, 0 }, { 0xe, 2 }, { 0xf, 4 }, { 0xe, 6 }, { 0x8, 8 },
};

/*
 * Container mode where the supervisor cannot take the child's sockets
 * (pidfd_getfd() refused, as Docker's default profile does).  A send
 * cannot be made for the child on copies, and letting the child's own
 * send go on after a look at its msghdr would let the kernel read it
 * again (a name added meanwhile: doc/launcher.md, "What continues").
 * So no send is stopped at all, and what makes that sound is decided
 * here, on registers: no socket exists for which a destination on a
 * send counts.  A unix socket is SOCK_STREAM or SOCK_SEQPACKET (the
 * kernel makes SOCK_RAW a datagram one: refused too), which refuse or
 * ignore a name on a send; an inet socket is TCP (build_container_
 * common()), which ignores one unless MSG_FASTOPEN (refused); netlink
 * is the route family, whose other destinations need a capability the
 * sandbox lacks.  sendto() with an address is refused outright, as
 * before.  connect(), bind() and listen() are still stopped and made on
 * the supervisor's own sockets (unixsock_emul.c).
 */
static int build_container_nogetfd_sends(scmp_filter_ctx ctx,
					 const char **what)
{
	struct scmp_arg_cmp c[2];
	size_t i;
	int rc;

	*what = "connect";
	rc = seccomp_rule(ctx, SCMP_ACT_NOTIFY, "connect", 0, NULL);
	for (i = 0; rc >= 0 && i < array_size(deny_unix_dgram_type); i++) {
		c[0] = SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffu, AF_UNIX);
		c[1] = SCMP_A1(SCMP_CMP_MASKED_EQ, deny_unix_dgram_type[i][0],
			       deny_unix_dgram_type[i][1]);
		*what = "socket";
		rc = seccomp_rule(ctx, SCMP_ACT_ERRNO(EPERM), "socket", 2, c);
		if (rc >= 0) {
			*what = "socketpair";
			rc = seccomp_rule(ctx, SCMP_ACT_ERRNO(EPERM), "socketpair", 2,
				  c);
		}
	}
	if (rc >= 0) {
		*what = "sendto";
		c[0] = SCMP_A4(SCMP_CMP_NE, 0);
		rc = seccomp_rule(ctx, SCMP_ACT_ERRNO(EACCES), "sendto", 1, c);
	}
	if (rc >= 0) {
		*what = "sendto";
		c[0] = SCMP_A3(SCMP_CMP_MASKED_EQ, MSG_FASTOPEN, MSG_FASTOPEN);
		rc = seccomp_rule(ctx, SCMP_ACT_ERRNO(EPERM), "sendto", 1, c);
	}
	if (rc >= 0) {
		*what = "sendmsg";
		c[0] = SCMP_A2(SCMP_CMP_MASKED_EQ, MSG_FASTOPEN, MSG_FASTOPEN);
		rc = seccomp_rule(ctx, SCMP_ACT_ERRNO(EPERM), "sendmsg", 1, c);
	}
	if (rc >= 0) {
		*what = "sendmmsg";
		c[0] = SCMP_A3(SCMP_CMP_MASKED_EQ, MSG_FASTOPEN, MSG_FASTOPEN);
		rc = seccomp_rule(ctx, SCMP_ACT_ERRNO(EPERM), "sendmmsg", 1, c);
	}
	return rc;
}

static int build_container_nogetfd(scmp_filter_ctx ctx, const char **what)
{
	return build_container_common(ctx, what, false, false);
}

static int build_container_nogetfd_paths(scmp_filter_ctx ctx,
					 const char **what)
{
	return build_container_common(ctx, what, false, true);
}

int seccomp_container_build(struct seccomp_prog out[CONTAINER_FILTERS],
			    char **err)
{
	static const struct {
		int (*add)(scmp_filter_ctx, const char **);
		const char *name;
	} k[CONTAINER_FILTERS] = {
		[CONTAINER_FILTER_PLAIN] = { build_container, "container" },
		[CONTAINER_FILTER_NOGETFD] = { build_container_nogetfd,
			"container (no pidfd_getfd)" },
		[CONTAINER_FILTER_PATHS] = { build_container_paths,
			"container (paths)" },
		[CONTAINER_FILTER_NOGETFD_PATHS] = {
			build_container_nogetfd_paths,
			"container (no pidfd_getfd, paths)" },
	};
	size_t i;

	memset(out, 0, CONTAINER_FILTERS * sizeof(*out));
	for (i = 0; i < CONTAINER_FILTERS; i++)
		if (seccomp_build_one(k[i].add, &out[i], k[i].name, err) < 0) {
			while (i-- > 0)
				seccomp_prog_free(&out[i]);
			return -1;
		}
	return 0;
}
