/* SPDX-License-Identifier: MIT */
/*
 * unixsock.h - the supervisor of the sandbox's socket addresses
 * (doc/launcher.md "Walls", "Unix sockets"), on vbox-exec's event loop.
 *
 * The sandbox's supervised filter (seccomp.h) stops connect(), sendto()
 * with an address, sendmsg() and sendmmsg() (and, when the sandbox
 * shares the host's network namespace, bind(); with Landlock's abstract
 * scope, bind() alone) and hands them here.  The supervisor never lets
 * the child's call continue (a continued call re-reads the child's
 * memory and fd table, which another thread could change after the
 * check); it performs the call itself, on the child's own socket taken
 * with pidfd_getfd(), with the address and data it copied (sockcall.h
 * decodes them), and answers with the result:
 *
 *   - a pathname unix address is resolved in the sandbox's root (opened
 *     once from its init) and the child's working directory (openat2
 *     RESOLVE_IN_ROOT, O_PATH, symlinks followed as the kernel follows
 *     them); unless pathname sockets are open (@default net open), the
 *     socket must lie on a mount the sandbox sees writable, else EACCES;
 *     the connection goes through /proc/self/fd/N of that O_PATH fd, so
 *     nothing the child changes after the check can redirect it;
 *   - a pathname bind() is made in the directory resolved the same way
 *     (O_PATH), entered with fchdir(), with the child's umask;
 *   - an abstract address is used as given when the socket's network
 *     namespace is the sandbox's own; refused (EACCES) when
 *     @refuse_abstract (no private network namespace and no Landlock
 *     scope); an explicit abstract bind() is always refused (it is only
 *     stopped in the host's network namespace); an autobind is made;
 *   - any other family's address is used as given (its namespace is the
 *     sandbox's, or the host's under net open); in container mode an
 *     inet address is admitted by the launcher (the proxy's ports and
 *     what the table's loopback rows allow) or refused (EACCES).
 * A blocking call that would block is retried from a timer, so the loop
 * never blocks; the child stays in its call meanwhile.
 */
#ifndef VBOX_SUPERVISOR_UNIXSOCK_H
#define VBOX_SUPERVISOR_UNIXSOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "supervisor/paths/pathcall_run.h"

struct container_rules;
struct loop;
struct sockaddr;
struct unixsock;

/**
 * struct unixsock_config - the posture
 * @pathname_open: pathname sockets are not restricted (net open)
 * @refuse_abstract: refuse every abstract address
 * @init_pid: the sandbox's init (host pid), whose root is the sandbox's
 * @init_pidfd: its pidfd (borrowed), to check @init_pid was not reused
 * @container: container mode (borrowed; NULL in namespace mode): no
 *             namespace of the sandbox's own, so a pathname socket is
 *             judged by the Landlock rules (connect: the socket where
 *             they grant writing; bind: a directory where they grant
 *             making sockets), and inet addresses by @admit_inet
 * @admit_inet: container mode under net deny: may the child connect or
 *              send to this inet address (NULL: as given)?  A bind()
 *              then takes a loopback address only, and listen() a
 *              socket bound to one; MSG_FASTOPEN is refused.
 * @admit_ctx: for @admit_inet
 * @no_getfd: container mode where pidfd_getfd() (and process_vm_readv())
 *            are refused: the child's memory is read through
 *            /proc/TID/mem; connect() and bind() are made on a socket
 *            of the supervisor's own (same family and type, the child's
 *            O_NONBLOCK), installed over the child's fd with
 *            SECCOMP_IOCTL_NOTIF_ADDFD (options set on the child's
 *            socket before are lost); listen() only on a socket bound
 *            that way, made on the supervisor's copy; a send with an
 *            address is refused (EACCES), one without goes on as the
 *            child made it (the filter refuses the sockets and flags for
 *            which an address slipped in later would count)
 * @judge, @below, @judge_ctx: namespace mode with supervised paths
 *            (pathcall.h; NULL: none): the path and metadata calls are
 *            made by the supervisor, each judged by the table
 *            (pathjudge.h), and a pathname bind() names a file judged
 *            for writing
 */
struct unixsock_config {
	bool pathname_open;
	bool refuse_abstract;
	pid_t init_pid;
	int init_pidfd;
	const struct container_rules *container;
	bool (*admit_inet)(void *ctx, const struct sockaddr *sa);
	void *admit_ctx;
	bool no_getfd;
	pathcall_judge_fn judge;
	pathcall_below_fn below;
	void *judge_ctx;
};

/**
 * struct unixsock_stats - what the supervisor did, for --log
 * @handled: notifications answered
 * @refused: of them, refused by the policy (EACCES)
 * @gone: notifications whose caller went away first
 */
struct unixsock_stats {
	unsigned long handled;
	unsigned long refused;
	unsigned long gone;
};

/*
 * Start supervising @listener (consumed: closed by unixsock_free()) on
 * @lp.  NULL with *@err on failure.  The watch ends by itself when the
 * last process using the filter is gone.
 */
struct unixsock *unixsock_alloc(struct loop *lp, int listener,
				const struct unixsock_config *cfg, char **err);
void unixsock_free(struct unixsock *us);
const struct unixsock_stats *unixsock_stats(struct unixsock *us);

#endif /* VBOX_SUPERVISOR_UNIXSOCK_H */
