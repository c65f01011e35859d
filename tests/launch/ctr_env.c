/* SPDX-License-Identifier: MIT */
/*
 * ctr_env.c - the conditions of a container, reproduced on this machine
 * for tests/launch/exec_container.sh: a seccomp filter is loaded, then COMMAND
 * is exec'd under it (and everything it starts inherits it).
 *
 *   ctr_env [--docker] [--ptrace] [--gvisor] [--probe] -- COMMAND [ARG...]
 *
 * --docker  the errnos of Docker's default profile for a process
 *           without CAP_SYS_ADMIN and CAP_SYS_PTRACE: EPERM for unshare,
 *           setns, mount, umount2, pivot_root, the new mount API, clone
 *           with any namespace flag, pidfd_getfd, process_vm_readv and
 *           process_vm_writev, keyctl/add_key/request_key, bpf,
 *           perf_event_open, userfaultfd, io_uring (Docker 25 and later)
 *           and the administrative calls; ENOSYS for clone3 (so that
 *           libc falls back to clone, whose flags the filter can see)
 * --ptrace  with --docker: as Docker with --cap-add=SYS_PTRACE, which
 *           then allows pidfd_getfd, process_vm_readv and
 *           process_vm_writev
 * --gvisor  what gVisor answers: landlock_create_ruleset ENOSYS, and
 *           seccomp(SECCOMP_SET_MODE_FILTER) with
 *           SECCOMP_FILTER_FLAG_NEW_LISTENER EINVAL
 * --probe   print what the process sees then ("unshare EPERM", ...), one
 *           line a call, instead of exec'ing: the helper's own check
 *
 *   ctr_env --uring
 *
 * loads no filter: it makes an io_uring instance (io_uring_setup with
 * 4 entries) and prints "io_uring_setup ok" or its errno; exit status 0
 * only when it was made.  The sandboxed side of the io_uring attack.
 *
 * The filter's default is to allow: what is listed is all that differs
 * (Docker's real profile lists what it allows; the refused calls that
 * matter to a sandbox are the ones above).  no_new_privs is set, as an
 * unprivileged process must to load a filter.
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SECCOMP_SET_MODE_FILTER
#define SECCOMP_SET_MODE_FILTER 1
#endif
#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#define SECCOMP_FILTER_FLAG_NEW_LISTENER (1UL << 3)
#endif
#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP 0x02000000
#endif

/* Refused outright with EPERM under --docker. */
static const char *const docker_eperm[] = {
	"unshare", "setns", "mount", "umount2", "umount", "pivot_root",
	"fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree",
	"mount_setattr",
	"keyctl", "add_key", "request_key",
	"bpf", "perf_event_open", "userfaultfd",
	"io_uring_setup", "io_uring_enter", "io_uring_register",
	"kexec_load", "kexec_file_load", "init_module", "finit_module",
	"delete_module", "open_by_handle_at", "name_to_handle_at", "acct",
	"quotactl", "syslog", "reboot", "swapon", "swapoff",
	"settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
	"lookup_dcookie", "nfsservctl", "uselib", "ustat", "sysfs",
	"_sysctl", "vm86", "vm86old", "iopl", "ioperm",
};

/* Refused with EPERM under --docker unless --ptrace (CAP_SYS_PTRACE). */
static const char *const docker_ptrace[] = {
	"pidfd_getfd", "process_vm_readv", "process_vm_writev",
};

/* The namespace flags clone() is refused with. */
static const unsigned long ns_flags[] = {
	CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER,
	CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWCGROUP,
};

static void die(const char *what, int rc)
{
	fprintf(stderr, "ctr_env: %s: %s\n", what, strerror(rc < 0 ? -rc : rc));
	exit(126);
}

/* A rule for the call @name, skipped where this architecture lacks it. */
static void refuse(scmp_filter_ctx ctx, const char *name, int err)
{
	int nr = seccomp_syscall_resolve_name(name), rc;

	if (nr == __NR_SCMP_ERROR)
		return;
	rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(err), nr, 0);
	if (rc < 0)
		die(name, rc);
}

static void add_docker(scmp_filter_ctx ctx, bool ptrace)
{
	size_t i;
	int rc;

	for (i = 0; i < array_size(docker_eperm); i++)
		refuse(ctx, docker_eperm[i], EPERM);
	for (i = 0; !ptrace && i < array_size(docker_ptrace); i++)
		refuse(ctx, docker_ptrace[i], EPERM);
	refuse(ctx, "clone3", ENOSYS);
	/*
	 * clone's flags are its first argument on the architectures this
	 * runs on (s390 swaps the first two; not one of them).
	 */
	for (i = 0; i < array_size(ns_flags); i++) {
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
				      SCMP_SYS(clone), 1,
				      SCMP_A0(SCMP_CMP_MASKED_EQ, ns_flags[i],
					      ns_flags[i]));
		if (rc < 0)
			die("clone", rc);
	}
}

static void add_gvisor(scmp_filter_ctx ctx)
{
	int rc;

	refuse(ctx, "landlock_create_ruleset", ENOSYS);
	rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EINVAL), SCMP_SYS(seccomp),
			      2, SCMP_A0(SCMP_CMP_EQ, SECCOMP_SET_MODE_FILTER),
			      SCMP_A1(SCMP_CMP_MASKED_EQ,
				      SECCOMP_FILTER_FLAG_NEW_LISTENER,
				      SECCOMP_FILTER_FLAG_NEW_LISTENER));
	if (rc < 0)
		die("seccomp", rc);
}

static void said(const char *name, long rc)
{
	const char *e;

	if (rc >= 0) {
		printf("%s ok\n", name);
		return;
	}
	switch (errno) {
	case EPERM: e = "EPERM"; break;
	case ENOSYS: e = "ENOSYS"; break;
	case EINVAL: e = "EINVAL"; break;
	case EFAULT: e = "EFAULT"; break;
	case EBADF: e = "EBADF"; break;
	case ESRCH: e = "ESRCH"; break;
	case ENOSPC: e = "ENOSPC"; break;
	default: e = strerror(errno); break;
	}
	printf("%s %s\n", name, e);
}

/* --probe: the calls the test relies on, each answered or refused. */
static int probe(void)
{
	/* An invalid pidfd: EBADF when allowed, the filter's errno if not. */
	said("unshare0", syscall(SYS_unshare, 0));
	said("pidfd_getfd", syscall(SYS_pidfd_getfd, -1, 0, 0));
	said("clone3", syscall(SYS_clone3, NULL, 0));
	said("landlock_create_ruleset",
	     syscall(SYS_landlock_create_ruleset, NULL, 0, 1U));
	/* A NULL program: EFAULT when the flag is accepted. */
	said("seccomp_listener",
	     syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		     SECCOMP_FILTER_FLAG_NEW_LISTENER, NULL));
	said("io_uring_setup", syscall(SYS_io_uring_setup, 1, NULL));
	fflush(stdout);
	return 0;
}

/* --uring: can this process make an io_uring instance? */
static int try_uring(void)
{
	struct io_uring_params p;
	long fd;

	memset(&p, 0, sizeof(p));
	fd = syscall(SYS_io_uring_setup, 4, &p);
	said("io_uring_setup", fd);
	fflush(stdout);
	if (fd < 0)
		return 1;
	close((int)fd);
	return 0;
}

int main(int argc, char **argv)
{
	bool docker = false, gvisor = false, just_probe = false;
	bool ptrace = false;
	scmp_filter_ctx ctx;
	int i, rc;

	if (argc == 2 && strcmp(argv[1], "--uring") == 0)
		return try_uring();
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--docker") == 0)
			docker = true;
		else if (strcmp(argv[i], "--ptrace") == 0)
			ptrace = true;
		else if (strcmp(argv[i], "--gvisor") == 0)
			gvisor = true;
		else if (strcmp(argv[i], "--probe") == 0)
			just_probe = true;
		else
			break;
	}
	if (i >= argc || strcmp(argv[i], "--") != 0 ||
	    (!just_probe && i + 1 >= argc) || (!docker && !gvisor)) {
		fprintf(stderr, "usage: ctr_env [--docker] [--ptrace] "
			"[--gvisor] [--probe] -- COMMAND [ARG...]\n"
			"       ctr_env --uring\n");
		return 2;
	}
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		die("seccomp_init", ENOMEM);
	if (docker)
		add_docker(ctx, ptrace);
	if (gvisor)
		add_gvisor(ctx);
	rc = seccomp_load(ctx);
	if (rc < 0)
		die("seccomp_load", rc);
	seccomp_release(ctx);
	if (just_probe)
		return probe();
	execvp(argv[i + 1], argv + i + 1);
	fprintf(stderr, "ctr_env: %s: %s\n", argv[i + 1], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
