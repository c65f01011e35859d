/* SPDX-License-Identifier: MIT */
/*
 * test_nsprobe.c - the classification of why a user namespace cannot be
 * made (runtime/linux/nsprobe.h), from facts as the probe gathers them,
 * and the probe itself on this machine.  The real conditions (a seccomp
 * filter like Docker's, bubblewrap --disable-userns) are reproduced by
 * tests/launch/exec_container.sh.
 */
#include <vbox.h>

#include <errno.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nsprobe.h"
#include "tap.h"

/* Facts of an unprivileged process on a host that allows everything. */
static struct ns_facts base(void)
{
	struct ns_facts f;

	memset(&f, 0, sizeof(f));
	f.stage = NS_OK;
	f.max_userns = 1000;
	f.unpriv_clone = -1;
	f.aa_restrict = -1;
	return f;
}

/* Does the cause of @f contain every one of the NULL-ended @want? */
static void cause_has(const struct ns_facts *f, const char *desc, ...)
{
	char *cause = ns_cause(f);
	const char *w;
	va_list ap;
	bool all = cause != NULL;

	va_start(ap, desc);
	while ((w = va_arg(ap, const char *)) != NULL)
		if (!cause || !strstr(cause, w)) {
			all = false;
			diag("  missing '%s'", w);
		}
	va_end(ap);
	if (!ok(all, "%s", desc))
		diag("  cause: %s", cause ? cause : "(none)");
	free(cause);
}

/* Can a forked child make a user namespace at all (no maps)? */
static bool bare_unshare_works(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(unshare(CLONE_NEWUSER) == 0 ? 0 : 1);
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return false;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(void)
{
	struct ns_facts f;
	char *cause, *msg;
	int r;

	f = base();
	ok(ns_cause(&f) == NULL, "nothing refused: no cause");

	f = base();
	f.in_vbox = true;
	cause_has(&f, "inside a vbox sandbox, whatever the probe says",
		  "already inside a vbox sandbox", NULL);

	/* Docker's default profile refuses unshare() outright. */
	f = base();
	f.stage = NS_UNSHARE;
	f.err = EPERM;
	f.unshare0_err = EPERM;
	f.seccomp = 2;
	f.seccomp_filters = 1;
	cause_has(&f, "EPERM, unshare(0) refused too: the seccomp filter",
		  "EPERM", "seccomp filter", "Docker", "unshare(0)", NULL);
	f.unshare0_err = 0;
	cause_has(&f, "EPERM under a filter that lets unshare(0) pass",
		  "EPERM", "seccomp filter", "Seccomp_filters: 1", NULL);

	f = base();
	f.stage = NS_UNSHARE;
	f.err = EPERM;
	f.unpriv_clone = 0;
	cause_has(&f, "EPERM with kernel.unprivileged_userns_clone=0",
		  "kernel.unprivileged_userns_clone is 0", NULL);
	f.root = true;
	cause_has(&f, "... but not blamed for root, which it does not bind",
		  "EPERM", "no seccomp filter", NULL);

	f = base();
	f.stage = NS_UNSHARE;
	f.err = EPERM;
	cause_has(&f, "EPERM with nothing to explain it says so",
		  "no seccomp filter and no sysctl", NULL);

	f = base();
	f.stage = NS_UNSHARE;
	f.err = ENOSPC;
	f.max_userns = 0;
	cause_has(&f, "ENOSPC with user.max_user_namespaces=0",
		  "ENOSPC", "user.max_user_namespaces is 0", NULL);
	f.max_userns = 2147483647;
	cause_has(&f, "ENOSPC in a namespace that allows no nested one",
		  "ENOSPC", "allows no nested one", "--disable-userns",
		  NULL);

	f = base();
	f.stage = NS_UNSHARE;
	f.err = ENOSYS;
	f.seccomp = 2;
	f.seccomp_filters = 3;
	cause_has(&f, "ENOSYS under a filter", "ENOSYS",
		  "seccomp filter", NULL);
	f.seccomp = 0;
	f.seccomp_filters = 0;
	cause_has(&f, "ENOSYS without one", "ENOSYS", "not implemented",
		  NULL);

	f = base();
	f.stage = NS_UNSHARE;
	f.err = EINVAL;
	cause_has(&f, "EINVAL: a kernel without user namespaces",
		  "CONFIG_USER_NS", NULL);

	/* Ubuntu 24.04: unshare works, the map cannot be written. */
	f = base();
	f.stage = NS_UID_MAP;
	f.err = EACCES;
	f.aa_restrict = 1;
	cause_has(&f, "uid_map EACCES with AppArmor's restriction on",
		  "/proc/self/uid_map", "EACCES", "AppArmor",
		  "apparmor_restrict_unprivileged_userns is 1", NULL);
	f.aa_restrict = 0;
	cause_has(&f, "uid_map EACCES without it names the file only",
		  "/proc/self/uid_map", "EACCES", NULL);
	f.stage = NS_SETGROUPS;
	f.err = EPERM;
	cause_has(&f, "setgroups refused", "/proc/self/setgroups", "EPERM",
		  NULL);
	f.stage = NS_GID_MAP;
	cause_has(&f, "gid_map refused", "/proc/self/gid_map", NULL);

	f = base();
	f.stage = NS_FORK;
	f.err = EAGAIN;
	cause_has(&f, "a probe that cannot run says so",
		  "could not run", "EAGAIN", NULL);

	f = base();
	f.stage = NS_UNSHARE;
	f.err = ENOMEM;
	cause_has(&f, "another errno is named as it is", "ENOMEM", NULL);

	/* podman's default profile: namespaces work, /proc is masked. */
	f = base();
	f.stage = NS_PROC;
	f.err = EPERM;
	f.proc_covers = 9;
	cause_has(&f, "a new /proc refused under 9 covered paths",
		  "a new /proc cannot be mounted", "EPERM",
		  "9 paths below this /proc are covered",
		  "systempaths=unconfined", "unmask=ALL", NULL);
	f.proc_covers = 0;
	cause = ns_cause(&f);
	ok(cause && strstr(cause, "a new /proc cannot be mounted") &&
	   !strstr(cause, "covered"),
	   "... without covered paths, only the refusal is named");
	free(cause);
	f.stage = NS_PIDNS;
	cause_has(&f, "a PID namespace refused", "CLONE_NEWPID", NULL);
	f.stage = NS_PRIVATE;
	cause_has(&f, "private mounts refused", "MS_PRIVATE", NULL);

	msg = ns_refused_message(NS_UNSHARE, "CAUSE");
	is_str(msg, "user namespaces are refused here: CAUSE; "
	       "--mode=container sandboxes without them (Landlock, seccomp "
	       "and the socket supervisor: see vbox-exec(1))",
	       "the launcher's message around the cause");
	free(msg);
	msg = ns_refused_message(NS_PROC, "CAUSE");
	is_str(msg, "namespace mode cannot start here: CAUSE; "
	       "--mode=container sandboxes without namespaces (Landlock, "
	       "seccomp and the socket supervisor: see vbox-exec(1))",
	       "... and around a cause past the user namespace");
	free(msg);

	/* The probe itself, on this machine. */
	cause = NULL;
	r = ns_probe(&cause);
	if (r < 0)
		diag("here: %s", cause);
	ok(r == 0 ? cause == NULL : cause != NULL && *cause,
	   "the probe answers 0, or -1 with a cause");
	ok(bare_unshare_works() || r < 0,
	   "a refused bare unshare is never reported as possible");
	free(cause);
	ns_facts_probe(&f);
	ok(f.proc_covers >= 0, "mounts below /proc counted (%ld)",
	   f.proc_covers);
	ok(f.seccomp >= 0 && f.seccomp_filters >= 0,
	   "Seccomp and Seccomp_filters read from /proc/self/status "
	   "(%ld, %ld)", f.seccomp, f.seccomp_filters);
	return done_testing();
}
