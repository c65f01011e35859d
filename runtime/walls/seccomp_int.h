/* SPDX-License-Identifier: MIT */
/*
 * seccomp_int.h - the rule builders seccomp.c's filters are made of, for
 * the files that make more filters from them (seccomp_container.c).
 * Internal to runtime/walls/.  Each returns 0, or a negative errno with
 * *@what naming the call whose rule failed.
 */
#ifndef VBOX_WALLS_SECCOMP_INT_H
#define VBOX_WALLS_SECCOMP_INT_H

#include <seccomp.h>
#include <stdint.h>

struct seccomp_prog;

/* seccomp_rule - a rule for the call @name (none where no architecture
 * of the filter has it) */
int seccomp_rule(scmp_filter_ctx ctx, uint32_t action, const char *name,
		 unsigned n, const struct scmp_arg_cmp *cmp);
/* The deny rules of every mode (doc/launcher.md, "Walls"). */
int seccomp_build_deny(scmp_filter_ctx ctx, const char **what);
/* The same where the supervisor judges openat2 (supervised paths):
 * openat2() is allowed here, to be stopped by a path-call rule. */
int seccomp_build_deny_judged(scmp_filter_ctx ctx, const char **what);
/* Every call that takes a path the supervised paths judge (and bind()):
 * notified (the metadata calls among them) */
int seccomp_build_path_calls(scmp_filter_ctx ctx, const char **what);
/* The path calls that can write, for plans whose supervised rows are ro. */
int seccomp_build_path_calls_writes(scmp_filter_ctx ctx, const char **what);
/* connect(), sendto() with an address, sendmsg(), sendmmsg(): notified */
int seccomp_build_notify(scmp_filter_ctx ctx, const char **what);
/* bind(): notified */
int seccomp_build_notify_bind(scmp_filter_ctx ctx, const char **what);
/* chattr's and the fsxattr ioctls: EPERM */
int seccomp_build_chattr(scmp_filter_ctx ctx, const char **what);
/* seccomp_build_one - a filter of the rules @add makes, exported as BPF
 * into @out; 0, or -1 with *@err */
int seccomp_build_one(int (*add)(scmp_filter_ctx, const char **),
		      struct seccomp_prog *out, const char *name, char **err);

#endif /* VBOX_WALLS_SECCOMP_INT_H */
