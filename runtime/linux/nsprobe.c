/* SPDX-License-Identifier: MIT */
/*
 * nsprobe.c - why a user namespace cannot be made here (nsprobe.h).
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nsprobe.h"

/* The probe's child answers with this on a pipe. */
struct ns_answer {
	int stage;
	int err;
	int unshare0_err;
};

/*
 * Read the file at @path into @buf (at most @size - 1 bytes, then
 * NUL-terminated).  0, or -1 when it cannot be opened or read.  What
 * does not fit is left unread: the callers look for short fields near
 * the start.
 */
static int read_text(const char *path, char *buf, size_t size)
{
	size_t have = 0;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while (have < size - 1) {
		n = read(fd, buf + have, size - 1 - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			close(fd);
			return -1;
		}
		if (n == 0)
			break;
		have += (size_t)n;
	}
	close(fd);
	buf[have] = '\0';
	return 0;
}

/* The number a /proc/sys file holds, or -1. */
static long read_number(const char *path)
{
	char buf[32], *end;
	long v;

	if (read_text(path, buf, sizeof(buf)) < 0)
		return -1;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || end == buf || v < 0)
		return -1;
	return v;
}

/* The number after "\nNAME:" in /proc/self/status (@status), or -1. */
static long status_field(const char *status, const char *name)
{
	const char *p = status;
	size_t len = strlen(name);
	char *end;
	long v;

	while ((p = strstr(p, name)) != NULL) {
		if ((p == status || p[-1] == '\n') && p[len] == ':') {
			errno = 0;
			v = strtol(p + len + 1, &end, 10);
			if (errno || end == p + len + 1 || v < 0)
				return -1;
			return v;
		}
		p += len;
	}
	return -1;
}

static void read_seccomp(long *mode, long *filters)
{
	char status[8192];

	*mode = *filters = -1;
	if (read_text("/proc/self/status", status, sizeof(status)) < 0)
		return;
	*mode = status_field(status, "Seccomp");
	*filters = status_field(status, "Seccomp_filters");
}

/*
 * How many mounts lie below /proc in /proc/self/mountinfo (a container
 * masks paths there), or -1.  A line longer than the buffer (a mount
 * point of kilobytes) is skipped, not counted.
 */
static long proc_covers(void)
{
	char line[4096], *p;
	long count = 0;
	FILE *f;
	int i, c;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strchr(line, '\n')) {
			while ((c = fgetc(f)) != EOF && c != '\n')
				;
			continue;
		}
		/* ID PARENT MAJOR:MINOR ROOT MOUNT-POINT ... */
		p = line;
		for (i = 0; i < 4 && p; i++) {
			p = strchr(p, ' ');
			if (p)
				p++;
		}
		if (p && strncmp(p, "/proc/", 6) == 0)
			count++;
	}
	fclose(f);
	return count;
}

bool ns_inside_vbox(void)
{
	char buf[256];
	size_t n0;
	ssize_t n;
	int fd;

	fd = open("/proc/1/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	n0 = strlen(buf);
	return (size_t)n > n0 + 1 &&
	       strncmp(buf + n0 + 1, "--channel=", 10) == 0 &&
	       (strcmp(buf, "/proc/self/fd/3") == 0 ||
		strstr(buf, "vbox-init") != NULL);
}

/* Is this the initial user namespace (uid_map "0 0 4294967295")? */
static bool initial_userns(void)
{
	unsigned long inside, outside, count;
	char buf[256];

	if (read_text("/proc/self/uid_map", buf, sizeof(buf)) < 0)
		return false;
	return sscanf(buf, "%lu %lu %lu", &inside, &outside, &count) == 3 &&
	       inside == 0 && outside == 0 && count == 4294967295UL &&
	       strchr(buf, '\n') == strrchr(buf, '\n');
}

bool ns_suspect(void)
{
	long mode, filters;

	read_seccomp(&mode, &filters);
	if (mode != 0 || filters > 0)
		return true;
	if (!initial_userns())
		return true;
	return read_number("/proc/sys/user/max_user_namespaces") == 0 ||
	       read_number("/proc/sys/kernel/unprivileged_userns_clone") == 0 ||
	       read_number("/proc/sys/kernel/"
			   "apparmor_restrict_unprivileged_userns") > 0;
}

/* Write @text whole to the /proc file @path; 0, or -1 with errno. */
static int write_proc(const char *path, const char *text)
{
	size_t len = strlen(text);
	ssize_t n;
	int fd, e;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	do
		n = write(fd, text, len);
	while (n < 0 && errno == EINTR);
	e = errno;
	close(fd);
	if (n < 0) {
		errno = e;
		return -1;
	}
	if ((size_t)n != len) {
		errno = EIO;
		return -1;
	}
	return 0;
}

/*
 * PID 1 of the probe's new PID namespace: a new /proc, as the sandbox's
 * init makes one.  The kernel refuses it (EPERM) where the /proc this
 * process sees has paths covered by mounts it could not see through, as
 * a container's masked paths are.  Exit status: 0, the errno of the
 * mount of proc, or 128 + the errno of making the mounts private.
 */
static __attribute__((noreturn)) void probe_proc(void)
{
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		_exit(128 + (errno & 0x7f));
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  NULL) < 0)
		_exit(errno & 0x7f ? errno & 0x7f : EIO);
	_exit(0);
}

/* After the maps: a new mount and PID namespace, a /proc in them. */
static void probe_pidns(struct ns_answer *a)
{
	int status;
	pid_t pid;

	if (unshare(CLONE_NEWNS | CLONE_NEWPID) < 0) {
		a->stage = NS_PIDNS;
		a->err = errno;
		return;
	}
	pid = fork();
	if (pid < 0) {
		a->stage = NS_PIDNS;
		a->err = errno;
		return;
	}
	if (pid == 0)
		probe_proc();
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			a->stage = NS_PIDNS;
			a->err = errno;
			return;
		}
	if (!WIFEXITED(status)) {
		a->stage = NS_PROC;
		a->err = EIO;
	} else if (WEXITSTATUS(status) >= 128) {
		a->stage = NS_PRIVATE;
		a->err = WEXITSTATUS(status) - 128;
	} else if (WEXITSTATUS(status) != 0) {
		a->stage = NS_PROC;
		a->err = WEXITSTATUS(status);
	}
}

/* The probe's child: what bubblewrap does first, each step's errno. */
static __attribute__((noreturn)) void probe_child(int fd)
{
	struct ns_answer a = { NS_OK, 0, 0 };
	unsigned int uid = (unsigned int)geteuid();
	unsigned int gid = (unsigned int)getegid();
	struct sigaction sa;
	sigset_t set;
	char map[64];
	int n;

	/* The bound: whatever the parent blocked, SIGALRM ends the child. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	if (sigaction(SIGALRM, &sa, NULL) < 0 ||
	    sigprocmask(SIG_UNBLOCK, &set, NULL) < 0)
		_exit(1);
	alarm(5);

	/* No kernel refuses unshare(0): only a filter on unshare() does. */
	if (unshare(0) < 0)
		a.unshare0_err = errno;
	if (unshare(CLONE_NEWUSER) < 0) {
		a.stage = NS_UNSHARE;
		a.err = errno;
		goto out;
	}
	/* Absent before Linux 3.19, where gid_map needs no "deny". */
	if (write_proc("/proc/self/setgroups", "deny") < 0 &&
	    errno != ENOENT) {
		a.stage = NS_SETGROUPS;
		a.err = errno;
		goto out;
	}
	n = snprintf(map, sizeof(map), "%u %u 1\n", uid, uid);
	if (n < 0 || (size_t)n >= sizeof(map))
		_exit(1);
	if (write_proc("/proc/self/uid_map", map) < 0) {
		a.stage = NS_UID_MAP;
		a.err = errno;
		goto out;
	}
	n = snprintf(map, sizeof(map), "%u %u 1\n", gid, gid);
	if (n < 0 || (size_t)n >= sizeof(map))
		_exit(1);
	if (write_proc("/proc/self/gid_map", map) < 0) {
		a.stage = NS_GID_MAP;
		a.err = errno;
		goto out;
	}
	probe_pidns(&a);
out:
	_exit(write(fd, &a, sizeof(a)) == (ssize_t)sizeof(a) ? 0 : 1);
}

void ns_facts_probe(struct ns_facts *f)
{
	struct ns_answer a;
	int pfd[2], status;
	ssize_t n;
	pid_t pid;

	memset(f, 0, sizeof(*f));
	f->root = geteuid() == 0;
	f->in_vbox = ns_inside_vbox();
	read_seccomp(&f->seccomp, &f->seccomp_filters);
	f->max_userns = read_number("/proc/sys/user/max_user_namespaces");
	f->unpriv_clone = read_number("/proc/sys/kernel/"
				      "unprivileged_userns_clone");
	f->aa_restrict = read_number("/proc/sys/kernel/"
				     "apparmor_restrict_unprivileged_userns");
	f->proc_covers = proc_covers();

	f->stage = NS_FORK;
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		f->err = errno;
		return;
	}
	pid = fork();
	if (pid < 0) {
		f->err = errno;
		close(pfd[0]);
		close(pfd[1]);
		return;
	}
	if (pid == 0) {
		close(pfd[0]);
		probe_child(pfd[1]);
	}
	close(pfd[1]);
	do
		n = read(pfd[0], &a, sizeof(a));
	while (n < 0 && errno == EINTR);
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (n != (ssize_t)sizeof(a) || a.stage < NS_OK ||
	    a.stage > NS_PROC) {
		f->err = EIO;
		return;
	}
	f->stage = (enum ns_stage)a.stage;
	f->err = a.err;
	f->unshare0_err = a.unshare0_err;
}

/* "EPERM (Operation not permitted)" for the errnos a probe meets. */
static char *errno_text(int e)
{
	static const struct {
		int e;
		const char *name;
	} names[] = {
		{ EPERM, "EPERM" },	{ EACCES, "EACCES" },
		{ ENOSPC, "ENOSPC" },	{ ENOSYS, "ENOSYS" },
		{ EINVAL, "EINVAL" },	{ EUSERS, "EUSERS" },
		{ ENOMEM, "ENOMEM" },	{ EAGAIN, "EAGAIN" },
		{ EIO, "EIO" },		{ ENOENT, "ENOENT" },
	};
	size_t i;

	for (i = 0; i < array_size(names); i++)
		if (names[i].e == e)
			return xasprintf("%s (%s)", names[i].name,
					 strerror(e));
	return xasprintf("errno %d (%s)", e, strerror(e));
}

static const char *stage_file(enum ns_stage s)
{
	switch (s) {
	case NS_SETGROUPS:
		return "/proc/self/setgroups";
	case NS_UID_MAP:
		return "/proc/self/uid_map";
	case NS_GID_MAP:
		return "/proc/self/gid_map";
	case NS_OK:
	case NS_FORK:
	case NS_UNSHARE:
	case NS_PIDNS:
	case NS_PRIVATE:
	case NS_PROC:
	default:
		break;
	}
	return "?";
}

/* The causes of a refused unshare(CLONE_NEWUSER). */
static char *unshare_cause(const struct ns_facts *f, const char *et)
{
	switch (f->err) {
	case EPERM:
		if (f->unshare0_err == EPERM)
			return xasprintf("unshare(CLONE_NEWUSER): %s: refused "
					 "by this process's seccomp filter (a "
					 "container's profile, e.g. Docker's "
					 "default; unshare(0) is refused too)",
					 et);
		if (!f->root && f->unpriv_clone == 0)
			return xasprintf("unshare(CLONE_NEWUSER): %s: sysctl "
					 "kernel.unprivileged_userns_clone is "
					 "0", et);
		if (f->seccomp == 2 || f->seccomp_filters > 0)
			return xasprintf("unshare(CLONE_NEWUSER): %s: refused "
					 "by this process's seccomp filter "
					 "(Seccomp_filters: %ld; a container's "
					 "profile, e.g. Docker's default)", et,
					 f->seccomp_filters);
		if (!f->root && f->aa_restrict > 0)
			return xasprintf("unshare(CLONE_NEWUSER): %s: sysctl "
					 "kernel.apparmor_restrict_unprivileged"
					 "_userns is %ld (AppArmor)", et,
					 f->aa_restrict);
		return xasprintf("unshare(CLONE_NEWUSER): %s, with no seccomp "
				 "filter and no sysctl against it (a security "
				 "module, or a chroot?)", et);
	case ENOSPC:
		if (f->max_userns == 0)
			return xasprintf("unshare(CLONE_NEWUSER): %s: sysctl "
					 "user.max_user_namespaces is 0", et);
		return xasprintf("unshare(CLONE_NEWUSER): %s: the user "
				 "namespace this runs in allows no nested one "
				 "(made by bubblewrap --disable-userns, or a "
				 "container with user.max_user_namespaces=0 in "
				 "it, or its limit is reached)", et);
	case EUSERS:
		return xasprintf("unshare(CLONE_NEWUSER): %s: user namespaces "
				 "are nested 32 deep already", et);
	case EINVAL:
		return xasprintf("unshare(CLONE_NEWUSER): %s: this kernel has "
				 "no user namespaces (CONFIG_USER_NS)", et);
	case ENOSYS:
		if (f->seccomp == 2 || f->seccomp_filters > 0)
			return xasprintf("unshare(CLONE_NEWUSER): %s: refused "
					 "by this process's seccomp filter "
					 "(Seccomp_filters: %ld)", et,
					 f->seccomp_filters);
		return xasprintf("unshare(CLONE_NEWUSER): %s: not "
				 "implemented here (an emulated kernel?)", et);
	default:
		break;
	}
	return xasprintf("unshare(CLONE_NEWUSER): %s", et);
}

char *ns_cause(const struct ns_facts *f)
{
	char *et, *cause;

	if (f->in_vbox)
		return xstrdup("this is already inside a vbox sandbox "
			       "(nested sandboxes are not allowed)");
	if (f->stage == NS_OK)
		return NULL;
	et = errno_text(f->err);
	switch (f->stage) {
	case NS_FORK:
		cause = xasprintf("the probe for user namespaces could not "
				  "run: %s", et);
		break;
	case NS_UNSHARE:
		cause = unshare_cause(f, et);
		break;
	case NS_SETGROUPS:
	case NS_UID_MAP:
	case NS_GID_MAP:
		if (!f->root && f->aa_restrict > 0 &&
		    (f->err == EPERM || f->err == EACCES))
			cause = xasprintf("a new user namespace cannot "
				"write its %s: %s: AppArmor restricts "
				"unprivileged user namespaces (sysctl "
				"kernel.apparmor_restrict_unprivileged_userns "
				"is %ld)", stage_file(f->stage), et,
				f->aa_restrict);
		else
			cause = xasprintf("a new user namespace cannot "
				"write its %s: %s", stage_file(f->stage), et);
		break;
	case NS_PIDNS:
		cause = xasprintf("a new mount and PID namespace cannot be "
			"made in a new user namespace (unshare(CLONE_NEWNS | "
			"CLONE_NEWPID) or its first fork: %s)", et);
		break;
	case NS_PRIVATE:
		cause = xasprintf("the mounts of a new mount namespace cannot "
			"be made private (mount MS_PRIVATE: %s)", et);
		break;
	case NS_PROC:
		if (f->err == EPERM && f->proc_covers > 0)
			cause = xasprintf("a new /proc cannot be mounted "
				"(mount proc: %s): %ld paths below this /proc "
				"are covered by mounts (a container's masked "
				"paths: docker --security-opt "
				"systempaths=unconfined, podman --security-opt "
				"unmask=ALL), and the kernel refuses a /proc "
				"that would uncover them", et, f->proc_covers);
		else
			cause = xasprintf("a new /proc cannot be mounted "
				"(mount proc: %s)", et);
		break;
	case NS_OK:
	default:
		BUG("stage %d", (int)f->stage);
	}
	free(et);
	return cause;
}

int ns_probe(char **cause)
{
	struct ns_facts f;

	ns_facts_probe(&f);
	*cause = ns_cause(&f);
	return *cause ? -1 : 0;
}

char *ns_refused_message(enum ns_stage stage, const char *cause)
{
	bool userns = stage != NS_PIDNS && stage != NS_PRIVATE &&
		      stage != NS_PROC;

	return xasprintf("%s: %s; --mode=container sandboxes without %s "
			 "(Landlock, seccomp and the socket supervisor: see "
			 "vbox-exec(1))",
			 userns ? "user namespaces are refused here" :
			 "namespace mode cannot start here",
			 cause, userns ? "them" : "namespaces");
}

int ns_probe_message(char **msg)
{
	struct ns_facts f;
	char *cause;

	ns_facts_probe(&f);
	cause = ns_cause(&f);
	if (!cause)
		return 0;
	*msg = ns_refused_message(f.stage, cause);
	free(cause);
	return -1;
}
