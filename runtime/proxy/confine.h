/* SPDX-License-Identifier: MIT */
/*
 * confine.h - the walls of the egress proxy's own process, vbox-proxy
 * (doc/proxy.md "The proxy's process").
 *
 * vbox-proxy parses what the sandbox sends; code that took it over would
 * run outside the sandbox.  It is confined in two steps.
 *
 * First, before it reads anything (proxy_drop_privileges()): no
 * capability left in any set, the bounding set emptied when it may be,
 * and, started by root, a user of its own (PROXY_USER as /etc/passwd
 * has it, not through NSS; else the fallback uid and gid
 * PROXY_FALLBACK_ID): no supplementary group, every uid and gid that
 * one, root's securebits locked so it cannot be root again.
 *
 * Then, once its configuration is read and its resolver set up, before
 * it serves (proxy_confine()): not dumpable (no other process of its uid
 * may trace it or read its tokens), no_new_privs, Landlock (no file
 * written, executed or listed; only the resolver's files read, no TCP
 * port bound; abstract unix sockets and signals scoped to itself where
 * the ABI has scopes), and a seccomp filter: the sandbox's deny rules
 * plus execve, execveat, ptrace, process_vm_readv/writev, and sockets of
 * AF_INET and AF_INET6 only, stream and datagram only (walls/seccomp.h).
 */
#ifndef VBOX_PROXY_CONFINE_H
#define VBOX_PROXY_CONFINE_H

#include <stdbool.h>
#include <sys/types.h>

/* The system user vbox-proxy runs as when root starts it. */
#define PROXY_USER "vbox-proxy"
/* Its uid and gid when /etc/passwd has no PROXY_USER. */
#define PROXY_FALLBACK_ID 65534

/* Whose uid vbox-proxy runs with (struct proxy_creds). */
enum proxy_who {
	PROXY_WHO_CALLER,	/* not started by root: the caller's own */
	PROXY_WHO_USER,		/* started by root: PROXY_USER's */
	PROXY_WHO_FALLBACK,	/* started by root, no PROXY_USER */
};

/**
 * struct proxy_creds - what proxy_drop_privileges() left
 * @uid: the real, effective and saved uid
 * @gid: the real, effective and saved gid
 * @who: where @uid comes from
 * @bounding_cleared: the bounding set is empty (always when started by
 *                    root; an unprivileged caller cannot empty it, and
 *                    with no_new_privs and no exec it can never matter)
 */
struct proxy_creds {
	uid_t uid;
	gid_t gid;
	enum proxy_who who;
	bool bounding_cleared;
};

/*
 * proxy_drop_privileges - the first step, for the calling process
 * (single-threaded), for good; @user names the system user to take when
 * started by root (PROXY_USER; tests name others).  Re-arms the
 * parent-death SIGKILL, which a change of uid clears.  Returns 0 and
 * fills *@pc, or -1 with *@err (caller frees): nothing may run then.
 */
int proxy_drop_privileges(const char *user, struct proxy_creds *pc,
			  char **err);

/* proxy_who_name - @pc's uid in words, for --log: "vbox-proxy (uid 998)". */
char *proxy_who_name(const struct proxy_creds *pc);

/*
 * proxy_confine - the second step, for the calling process
 * (single-threaded), for good.  Returns the Landlock ABI used (0: the
 * kernel has none; the other walls still hold), or -1 with *@err (caller
 * frees): nothing may be served then.
 */
int proxy_confine(char **err);

#endif /* VBOX_PROXY_CONFINE_H */
