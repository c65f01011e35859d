/* SPDX-License-Identifier: MIT */
/*
 * nsprobe.h - can this process make the user namespace bubblewrap
 * needs, and if not, why (doc/launcher.md, "Why namespace mode cannot
 * start").
 *
 * The answer is probed, not guessed from bubblewrap's message: a forked
 * child does what bubblewrap and the sandbox's init do first
 * (unshare(CLONE_NEWUSER), then /proc/self/setgroups, uid_map and
 * gid_map, then a new mount and PID namespace and a new /proc in it) and
 * reports the step that failed with its errno.  The facts that tell the
 * causes apart are read beside it: the Seccomp: and Seccomp_filters:
 * lines of /proc/self/status, whether unshare(0) (which no kernel
 * refuses) is refused too, user.max_user_namespaces,
 * kernel.unprivileged_userns_clone,
 * kernel.apparmor_restrict_unprivileged_userns and the mounts below
 * /proc in /proc/self/mountinfo.  ns_cause() turns the
 * facts into one line; it is pure, so the classification is unit-tested
 * (tests/unit/test_nsprobe.c) and each cause is reproduced for real by
 * tests/launch/exec_container.sh.
 */
#ifndef VBOX_NSPROBE_H
#define VBOX_NSPROBE_H

#include <stdbool.h>

/* The step of the probe that failed. */
enum ns_stage {
	NS_OK,		/* a user namespace with a uid and gid map was made */
	NS_FORK,	/* the probe's child could not be made or ended mute */
	NS_UNSHARE,	/* unshare(CLONE_NEWUSER) */
	NS_SETGROUPS,	/* writing "deny" to /proc/self/setgroups */
	NS_UID_MAP,	/* writing /proc/self/uid_map */
	NS_GID_MAP,	/* writing /proc/self/gid_map */
	NS_PIDNS,	/* unshare(CLONE_NEWNS | CLONE_NEWPID), first fork */
	NS_PRIVATE,	/* making the new mount namespace's mounts private */
	NS_PROC,	/* mounting a new /proc as the PID namespace's PID 1 */
};

/*
 * What was probed.  Numbers read from /proc are -1 where the file is
 * absent or unreadable (kernel.unprivileged_userns_clone exists only on
 * Debian-patched kernels, the AppArmor one only on Ubuntu's).
 */
struct ns_facts {
	enum ns_stage stage;
	int err;		/* errno of @stage (0 for NS_OK) */
	int unshare0_err;	/* errno of unshare(0), 0 when it worked */
	long seccomp;		/* Seccomp: 0 none, 1 strict, 2 filter */
	long seccomp_filters;	/* Seccomp_filters: how many are stacked */
	long max_userns;	/* /proc/sys/user/max_user_namespaces */
	long unpriv_clone;	/* /proc/sys/kernel/unprivileged_userns_clone */
	long aa_restrict;	/* ...apparmor_restrict_unprivileged_userns */
	bool root;		/* effective uid 0 */
	bool in_vbox;		/* inside a vbox sandbox (ns_inside_vbox()) */
	long proc_covers;	/* mounts below /proc (mountinfo), -1 unknown */
};

/*
 * ns_inside_vbox - is this process inside a vbox sandbox?  There, PID 1
 * is vbox-init, started as "/proc/self/fd/3 --channel=N -- ..."; its
 * command line stays readable even though it is not dumpable.
 */
bool ns_inside_vbox(void);

/*
 * ns_suspect - the cheap look, no fork: true when something here can
 * refuse user namespaces (a seccomp filter, a user namespace that is not
 * the initial one, one of the sysctls above off or restricting), so the
 * launcher runs the probe before starting bubblewrap only then.
 */
bool ns_suspect(void);

/*
 * ns_facts_probe - fill @f: the probe in a forked child (bounded: it
 * makes a few system calls, and an alarm ends it after 5 s) and the
 * facts around it.  Never fails: a probe that cannot run says so in
 * @f->stage (NS_FORK).
 */
void ns_facts_probe(struct ns_facts *f);

/*
 * ns_cause - one line naming the cause @f shows, without the "user
 * namespaces are refused here" that callers put in front; NULL when
 * @f->stage is NS_OK and not @f->in_vbox.  Caller frees.
 */
char *ns_cause(const struct ns_facts *f);

/*
 * ns_probe - 0: a user namespace with a uid map can be made here;
 * -1: *@cause is one line naming the probed cause (caller frees).
 */
int ns_probe(char **cause);

/*
 * ns_refused_message - the whole launcher message for @cause, found at
 * @stage: "user namespaces are refused here: CAUSE; --mode=container
 * ..." (for a /proc that cannot be made: "namespace mode cannot start
 * here: CAUSE; ...").  Caller frees.
 */
char *ns_refused_message(enum ns_stage stage, const char *cause);

/*
 * ns_probe_message - ns_probe() with the message around the cause:
 * 0, or -1 with *@msg (ns_refused_message(); caller frees).
 */
int ns_probe_message(char **msg);

#endif /* VBOX_NSPROBE_H */
