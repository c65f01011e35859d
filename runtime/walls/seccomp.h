/* SPDX-License-Identifier: MIT */
/*
 * seccomp.h - the sandbox's system-call wall (doc/launcher.md "Walls").
 *
 * The BPF programs are built with libseccomp (at build time, by
 * gen_seccomp; seccomp_bpf.c holds their bytes) and vbox-exec hands one
 * of them to the sandbox's init, which loads it with the raw seccomp()
 * call after bubblewrap built the sandbox and right before the command
 * runs:
 *
 *   the deny filter        refuses the calls doc/launcher.md lists (EPERM;
 *                          clone3 ENOSYS), on x86-64, x32 and i386 alike;
 *   the proxy filter       the deny filter that also refuses exec,
 *                          tracing and every socket but TCP and UDP, for
 *                          vbox-proxy (runtime/proxy/confine.h);
 *   the supervised filter  the deny filter that also hands connect(),
 *                          sendto() with an address, sendmsg() and
 *                          sendmmsg() to the supervisor in vbox-exec
 *                          (unixsock.h); loaded with
 *                          SECCOMP_FILTER_FLAG_NEW_LISTENER, whose
 *                          listener fd vbox-exec takes.
 *
 * One filter, not a deny filter plus a notify filter: the kernel checks,
 * compiles and runs over every system-call number each filter it loads
 * (tens of microseconds per launch), and runs each on every call.  Both
 * are binary trees of call numbers, not chains.
 *
 * Building (seccomp.c) needs libseccomp; loading (seccomp_load.c) needs
 * nothing but the kernel, so neither vbox-exec nor its shim links it.
 */
#ifndef VBOX_WALLS_SECCOMP_H
#define VBOX_WALLS_SECCOMP_H

#include <stdbool.h>
#include <stddef.h>

/**
 * struct seccomp_prog - one exported BPF program
 * @insns: struct sock_filter instructions, as seccomp_export_bpf() wrote
 * @len: bytes in @insns, a multiple of 8
 */
struct seccomp_prog {
	void *insns;
	size_t len;
};

/*
 * Fill @deny and @supervised; 0, or -1 with *@err (caller frees).  With
 * @refuse_unix both also refuse socket(AF_UNIX) (EPERM; not
 * socketpair()): the stand-in where the kernel lacks user notification.
 */
int seccomp_progs_build(struct seccomp_prog *deny,
			struct seccomp_prog *supervised, bool refuse_unix,
			char **err);
void seccomp_prog_free(struct seccomp_prog *p);

/*
 * seccomp_open_progs_build - the supervised filters of @default net open:
 * @open_all stops what the supervised filter stops and bind() (no
 * Landlock abstract scope), @open_bind the deny rules and bind() alone.
 * 0, or -1 with *@err (owned by the caller).
 */
int seccomp_open_progs_build(struct seccomp_prog *open_all,
			     struct seccomp_prog *open_bind, char **err);

/*
 * Fill @proxy: the deny filter that also refuses execve(), execveat(),
 * ptrace(), process_vm_readv()/writev(), socketpair() and socket() of
 * AF_UNIX or AF_NETLINK or of a type but stream and datagram (EPERM),
 * for the egress proxy's process (runtime/proxy/confine.h).  0, or -1
 * with *@err.
 */
int seccomp_proxy_build(struct seccomp_prog *proxy, char **err);

/*
 * seccomp_paths_progs_build - the supervised filters with the path calls
 * added (supervised paths: pathcall.h): @paths, for net deny and net
 * open (the path calls include bind()); @bind_paths, for net open with
 * Landlock's abstract scope (no connect or send supervised).
 */
int seccomp_paths_progs_build(struct seccomp_prog *paths,
			      struct seccomp_prog *bind_paths, char **err);

/*
 * seccomp_paths_ro_progs_build - the same two for a plan whose supervised
 * rows are all `ro`: of the path calls only those that can write are
 * handed over (open and openat with a writing flag, never an exec;
 * seccomp.c says which and why).
 */
int seccomp_paths_ro_progs_build(struct seccomp_prog *paths,
				 struct seccomp_prog *bind_paths, char **err);

/*
 * The container-mode filters, by index.  PLAIN: with a listener, the
 * supervised filter's rules and bind() and listen() supervised; SysV
 * IPC and message queues refused; inet sockets TCP only (no UDP, raw,
 * SCTP, MPTCP); netlink of the route family only; TCP_FASTOPEN_CONNECT
 * refused; the metadata calls supervised.  NOGETFD: the same where the
 * supervisor cannot take the child's sockets (pidfd_getfd() refused),
 * which also refuses datagram unix sockets and MSG_FASTOPEN.  PATHS and
 * NOGETFD_PATHS: each with every path call supervised too (supervised
 * paths in container mode).
 */
enum {
	CONTAINER_FILTER_PLAIN,
	CONTAINER_FILTER_NOGETFD,
	CONTAINER_FILTER_PATHS,
	CONTAINER_FILTER_NOGETFD_PATHS,
	CONTAINER_FILTERS
};

/* seccomp_container_build - fill @out; 0, or -1 with *@err. */
int seccomp_container_build(struct seccomp_prog out[CONTAINER_FILTERS],
			    char **err);

/*
 * Load @len bytes of BPF (no_new_privs must be set).  With @listener
 * non-NULL the filter is loaded with SECCOMP_FILTER_FLAG_NEW_LISTENER and
 * *@listener receives the notification fd (close-on-exec).  0, or -1 with
 * errno.  Async-signal-safe: the init calls it between fork and exec.
 */
int seccomp_prog_load(const void *insns, size_t len, int *listener);

/*
 * seccomp_newer_calls_load - container mode: refuse (ENOSYS) every call
 * numbered SECCOMP_NEWER_FIRST or more, which the filters built by name
 * cannot reach (seccomp_load.c).  0, or -1 with errno.
 */
#define SECCOMP_NEWER_FIRST 451
int seccomp_newer_calls_load(void);

/* Does this kernel have seccomp user notification?  (probes, no side effect) */
int seccomp_notify_available(void);

/*
 * The programs, built at build time by gen_seccomp (seccomp_bpf.c):
 * the deny filter, the deny filter that also refuses socket(AF_UNIX),
 * and the supervised filter.
 */
extern const unsigned char seccomp_bpf_deny[];
extern const size_t seccomp_bpf_deny_len;
extern const unsigned char seccomp_bpf_deny_nounix[];
extern const size_t seccomp_bpf_deny_nounix_len;
extern const unsigned char seccomp_bpf_supervised[];
extern const size_t seccomp_bpf_supervised_len;
extern const unsigned char seccomp_bpf_supervised_open[];
extern const size_t seccomp_bpf_supervised_open_len;
extern const unsigned char seccomp_bpf_supervised_bind[];
extern const size_t seccomp_bpf_supervised_bind_len;
extern const unsigned char seccomp_bpf_container[];
extern const size_t seccomp_bpf_container_len;
extern const unsigned char seccomp_bpf_container_nogetfd[];
extern const size_t seccomp_bpf_container_nogetfd_len;
extern const unsigned char seccomp_bpf_container_paths[];
extern const size_t seccomp_bpf_container_paths_len;
extern const unsigned char seccomp_bpf_container_nogetfd_paths[];
extern const size_t seccomp_bpf_container_nogetfd_paths_len;
extern const unsigned char seccomp_bpf_supervised_paths[];
extern const size_t seccomp_bpf_supervised_paths_len;
extern const unsigned char seccomp_bpf_supervised_bind_paths[];
extern const size_t seccomp_bpf_supervised_bind_paths_len;
extern const unsigned char seccomp_bpf_supervised_paths_ro[];
extern const size_t seccomp_bpf_supervised_paths_ro_len;
extern const unsigned char seccomp_bpf_supervised_bind_paths_ro[];
extern const size_t seccomp_bpf_supervised_bind_paths_ro_len;
extern const unsigned char seccomp_bpf_proxy[];
extern const size_t seccomp_bpf_proxy_len;

#endif /* VBOX_WALLS_SECCOMP_H */
