/* SPDX-License-Identifier: MIT */
/*
 * confine.h - the walls of the egress proxy's own process, vbox-proxy
 * (doc/proxy.md "The proxy's process").
 *
 * vbox-proxy parses what the sandbox sends; code that took it over would
 * run as the user, outside the sandbox.  Once it serves it keeps its
 * sockets and the files it reads (/etc/hosts), and loses the rest:
 * not dumpable (no other process of the user may trace it or read its
 * tokens), no_new_privs, Landlock with no writable path (no file written,
 * abstract unix sockets and signals scoped to itself where the ABI has
 * scopes), and a seccomp filter: the sandbox's deny rules plus execve,
 * execveat, ptrace and process_vm_readv/writev (walls/seccomp.h).
 */
#ifndef VBOX_PROXY_CONFINE_H
#define VBOX_PROXY_CONFINE_H

/*
 * proxy_confine - confine the calling process (single-threaded) for
 * good.  Returns the Landlock ABI used (0: the kernel has none; the
 * other walls still hold), or -1 with *@err (caller frees): nothing
 * may be served then.
 */
int proxy_confine(char **err);

#endif /* VBOX_PROXY_CONFINE_H */
