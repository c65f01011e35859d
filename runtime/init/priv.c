/* SPDX-License-Identifier: MIT */
/*
 * priv.c - the nested user namespace and dropping every capability
 * (steps.h).
 *
 * When the init made mounts, bubblewrap ran it as uid 0 of the sandbox's
 * user namespace (the owner of its mount namespace) with every
 * capability.  Before the command runs the init does what bubblewrap
 * would have done itself: limit user namespaces to the one it is about
 * to make (the command then gets ENOSPC, as under --disable-userns), move
 * into a nested namespace that maps the caller's uid and gid, and drop
 * every capability.  The drop is checked in every launch, privileged or
 * not: the command never starts with a capability.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>

#include "fail.h"
#include "steps.h"

/* Capability numbers looked at; the kernel knows fewer (cap_last_cap). */
#define CAP_NUMBERS 64

static int write_file(const char *path, const char *text)
{
	size_t len = strlen(text);
	ssize_t n;
	int fd, saved;

	fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -1;
	n = write(fd, text, len);
	saved = errno;
	close(fd);
	errno = saved;
	return n == (ssize_t)len ? 0 : -1;
}

int init_limit_userns(char *err, size_t errlen)
{
	if (write_file("/proc/sys/user/max_user_namespaces", "1") < 0)
		return fail(err, errlen, "cannot limit user namespaces: %s",
			    strerror(errno));
	return 0;
}

int init_enter_userns(uint32_t uid, uint32_t gid, char *err, size_t errlen)
{
	char map[64];

	if (unshare(CLONE_NEWUSER) < 0)
		return fail(err, errlen, "cannot make the user namespace: %s",
			    strerror(errno));
	snprintf(map, sizeof(map), "%u 0 1\n", uid);
	if (write_file("/proc/self/uid_map", map) < 0)
		return fail(err, errlen, "cannot map uid %u: %s", uid,
			    strerror(errno));
	if (write_file("/proc/self/setgroups", "deny") < 0)
		return fail(err, errlen, "cannot deny setgroups: %s",
			    strerror(errno));
	snprintf(map, sizeof(map), "%u 0 1\n", gid);
	if (write_file("/proc/self/gid_map", map) < 0)
		return fail(err, errlen, "cannot map gid %u: %s", gid,
			    strerror(errno));
	return 0;
}

/*
 * No capability in any set; with @bounding false, the bounding set may
 * hold some: an ordinary user's process cannot empty it (that needs
 * CAP_SETPCAP), and under no_new_privs, which the walls set before the
 * command's exec, no exec can raise a capability from it.
 */
static bool caps_empty(bool bounding)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2];
	int c;

	if (syscall(SYS_capget, &h, d) < 0)
		return false;
	if (d[0].effective || d[0].permitted || d[0].inheritable ||
	    d[1].effective || d[1].permitted || d[1].inheritable)
		return false;
	for (c = 0; c < CAP_NUMBERS; c++) {
		int r = prctl(PR_CAPBSET_READ, c, 0, 0, 0);

		if (r < 0 && errno == EINVAL)
			break;
		if (r != 0 && bounding)
			return false;
		r = prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, c, 0, 0);
		if (r > 0)
			return false;
	}
	return true;
}

int init_drop_caps(char *err, size_t errlen)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2];
	bool bset_refused = false;
	int c;

	if (caps_empty(true))
		return 0;
	for (c = 0; c < CAP_NUMBERS; c++) {
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) == 0)
			continue;
		if (errno == EINVAL)
			break;
		bset_refused = errno == EPERM;
	}
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capset, &h, d) < 0)
		return fail(err, errlen, "cannot drop capabilities: %s",
			    strerror(errno));
	/* Container mode started by an ordinary user: see caps_empty(). */
	if (!caps_empty(!bset_refused))
		return fail(err, errlen, "capabilities are left after "
			    "dropping them");
	return 0;
}
