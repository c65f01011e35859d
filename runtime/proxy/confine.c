/* SPDX-License-Identifier: MIT */
/*
 * confine.c - the egress proxy process's walls (confine.h).
 *
 * Credentials with the C library's calls (the process is single-threaded:
 * c-ares starts no thread), capabilities and Landlock with raw system
 * calls; Landlock's constants as walls/landlock.c names them, by ABI.
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "confine.h"
#include "walls/landlock.h"
#include "walls/seccomp.h"

#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_IS_SET 1
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif

/* ---- credentials ---------------------------------------------------- */

/* No kernel has this many capabilities; past it, something is wrong. */
#define CAP_COUNT_MAX 1024
/* Where the system user is looked up (confine.h: not through NSS). */
#define PASSWD_FILE "/etc/passwd"

/*
 * Root's ways back, locked: a set-uid-root program gives no capability
 * (no exec is allowed anyway), a change of uid always clears the
 * capabilities, and no capability is kept across it or raised ambient.
 */
#define PROXY_SECUREBITS (SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | \
			  SECBIT_NO_SETUID_FIXUP_LOCKED | \
			  SECBIT_KEEP_CAPS_LOCKED | \
			  SECBIT_NO_CAP_AMBIENT_RAISE | \
			  SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED)

/*
 * @name's uid and gid from PASSWD_FILE, read with the C library's own
 * parser (fgetpwent(); the process is single-threaded); *@found false
 * when it has no such user.  Not getpwnam(): NSS loads its modules
 * (systemd's userdb: three libraries and a walk of its directories, 0.25
 * ms here against 0.03, on a root launch's way to the command) for a user
 * that useradd, adduser --system and systemd-sysusers all write into
 * the file.  0, or -1 with *@err: a file that cannot be read, or a user
 * with root's uid or gid.
 */
static int lookup_user(const char *name, uid_t *uid, gid_t *gid,
		       bool *found, char **err)
{
	struct passwd *pw;
	FILE *f;

	*found = false;
	f = fopen(PASSWD_FILE, "re");
	if (!f) {
		if (errno == ENOENT)
			return 0;
		*err = xasprintf("cannot read %s: %s", PASSWD_FILE,
				 strerror(errno));
		return -1;
	}
	errno = 0;
	while ((pw = fgetpwent(f)) != NULL) {
		if (pw->pw_name && strcmp(pw->pw_name, name) == 0) {
			*found = true;
			*uid = pw->pw_uid;
			*gid = pw->pw_gid;
			break;
		}
	}
	if (!*found && ferror(f)) {
		*err = xasprintf("cannot read %s: %s", PASSWD_FILE,
				 strerror(errno ? errno : EIO));
		fclose(f);
		return -1;
	}
	fclose(f);
	if (*found && (*uid == 0 || *gid == 0 || *uid == (uid_t)-1 ||
		       *gid == (gid_t)-1)) {
		*err = xasprintf("the user '%s' has uid %lu and gid %lu: "
				 "vbox-proxy does not run as root or as -1",
				 name, (unsigned long)*uid,
				 (unsigned long)*gid);
		return -1;
	}
	return 0;
}

static int caps_get(struct __user_cap_data_struct d[2])
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};

	return (int)syscall(SYS_capget, &h, d);
}

/* Clear the effective, permitted and inheritable sets. */
static int caps_clear(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	return (int)syscall(SYS_capset, &h, d);
}

/*
 * Empty the bounding set: every capability the kernel knows, that is up
 * to /proc/sys/kernel/cap_last_cap, which is where PR_CAPBSET_READ
 * starts to say EINVAL (asked of the kernel itself: no file to read).
 * 0, or -1 with errno (EPERM without CAP_SETPCAP).
 */
static int bounding_clear(void)
{
	unsigned long cap;
	int rc;

	for (cap = 0; cap < CAP_COUNT_MAX; cap++) {
		rc = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);
		if (rc < 0)
			return errno == EINVAL && cap > 0 ? 0 : -1;
		if (rc > 0 && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0)
			return -1;
	}
	errno = E2BIG;
	return -1;
}

/* Some capability left in a set: its name for the message, else NULL. */
static const char *caps_left(bool bounding)
{
	struct __user_cap_data_struct d[2];
	unsigned long cap;
	int rc;

	if (caps_get(d) != 0)
		return "capget() fails";
	if (d[0].effective || d[1].effective)
		return "effective";
	if (d[0].permitted || d[1].permitted)
		return "permitted";
	if (d[0].inheritable || d[1].inheritable)
		return "inheritable";
	for (cap = 0; cap < CAP_COUNT_MAX; cap++) {
		rc = prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, cap, 0, 0);
		if (rc < 0)
			break;
		if (rc > 0)
			return "ambient";
	}
	for (cap = 0; bounding && cap < CAP_COUNT_MAX; cap++) {
		rc = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);
		if (rc < 0)
			break;
		if (rc > 0)
			return "bounding";
	}
	return NULL;
}

/* Started by root: the securebits, the bounding set, then the ids. */
static int leave_root(const struct proxy_creds *pc, char **err)
{
	int bits = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);

	if (bits < 0) {
		*err = xasprintf("prctl(PR_GET_SECUREBITS): %s",
				 strerror(errno));
		return -1;
	}
	bits &= ~(SECBIT_KEEP_CAPS | SECBIT_NO_SETUID_FIXUP);
	if (prctl(PR_SET_SECUREBITS, (unsigned long)bits | PROXY_SECUREBITS,
		  0, 0, 0) != 0) {
		*err = xasprintf("prctl(PR_SET_SECUREBITS): %s",
				 strerror(errno));
		return -1;
	}
	if (bounding_clear() != 0) {
		*err = xasprintf("cannot empty the bounding set: %s",
				 strerror(errno));
		return -1;
	}
	if (setgroups(0, NULL) != 0) {
		*err = xasprintf("setgroups(): %s", strerror(errno));
		return -1;
	}
	if (setresgid(pc->gid, pc->gid, pc->gid) != 0) {
		*err = xasprintf("setresgid(%lu): %s", (unsigned long)pc->gid,
				 strerror(errno));
		return -1;
	}
	if (setresuid(pc->uid, pc->uid, pc->uid) != 0) {
		*err = xasprintf("setresuid(%lu): %s", (unsigned long)pc->uid,
				 strerror(errno));
		return -1;
	}
	return 0;
}

/* That root is gone for good: the ids are @pc's and none goes back. */
static int check_not_root(const struct proxy_creds *pc, char **err)
{
	uid_t r, e, s;
	gid_t rg, eg, sg;

	if (getresuid(&r, &e, &s) != 0 || getresgid(&rg, &eg, &sg) != 0 ||
	    r != pc->uid || e != pc->uid || s != pc->uid ||
	    rg != pc->gid || eg != pc->gid || sg != pc->gid) {
		*err = xstrdup("the uid or gid did not change");
		return -1;
	}
	if (getgroups(0, NULL) != 0) {
		*err = xstrdup("supplementary groups are left");
		return -1;
	}
	if (setresuid(0, 0, 0) == 0 || errno != EPERM ||
	    setresgid(0, 0, 0) == 0 || errno != EPERM ||
	    setgroups(0, NULL) == 0 || errno != EPERM) {
		*err = xstrdup("it could become root again");
		return -1;
	}
	return 0;
}

/* Does this user namespace map @uid (/proc/self/uid_map)? */
static bool uid_mapped(uid_t uid)
{
	unsigned long in, out, count;
	bool mapped = true;
	FILE *f;

	f = fopen("/proc/self/uid_map", "re");
	if (!f)
		return true;	/* no user namespaces: every id exists */
	mapped = false;
	while (fscanf(f, "%lu %lu %lu", &in, &out, &count) == 3)
		if (uid >= in && uid - in < count)
			mapped = true;
	fclose(f);
	return mapped;
}

int proxy_drop_privileges(const char *user, struct proxy_creds *pc,
			  char **err)
{
	pid_t parent = getppid();
	const char *left;
	bool found = false;
	uid_t r, e, s;
	gid_t g;

	memset(pc, 0, sizeof(*pc));
	if (getresuid(&r, &e, &s) != 0) {
		*err = xasprintf("getresuid(): %s", strerror(errno));
		return -1;
	}
	/*
	 * Root of a user namespace that maps no other id (a container run
	 * by an ordinary user, `unshare -r`): no other uid exists there,
	 * and this root is the caller's own uid outside.  It stays, as an
	 * ordinary caller's does, and loses every capability below.
	 */
	if ((r == 0 || e == 0 || s == 0) && !uid_mapped(PROXY_FALLBACK_ID)) {
		pc->who = PROXY_WHO_CALLER;
		pc->uid = r;
		pc->gid = getgid();
		pc->bounding_cleared = bounding_clear() == 0;
	} else if (r != 0 && e != 0 && s != 0) {
		/* already unprivileged: its own uid, every id the real one */
		pc->who = PROXY_WHO_CALLER;
		pc->uid = r;
		pc->gid = g = getgid();
		if (setresgid(g, g, g) != 0 || setresuid(r, r, r) != 0) {
			*err = xasprintf("cannot settle on uid %lu: %s",
					 (unsigned long)r, strerror(errno));
			return -1;
		}
		/* with CAP_SETPCAP (ambient, say) it can, and does */
		pc->bounding_cleared = bounding_clear() == 0;
	} else {
		if (lookup_user(user, &pc->uid, &pc->gid, &found, err) < 0)
			return -1;
		pc->who = found ? PROXY_WHO_USER : PROXY_WHO_FALLBACK;
		if (!found)
			pc->uid = pc->gid = PROXY_FALLBACK_ID;
		if (leave_root(pc, err) < 0)
			return -1;
		pc->bounding_cleared = true;
	}
	/* what a change of uid leaves: inheritable, ambient (not root's) */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 &&
	    errno != EINVAL) {
		*err = xasprintf("cannot clear the ambient capabilities: %s",
				 strerror(errno));
		return -1;
	}
	if (caps_clear() != 0) {
		*err = xasprintf("capset(): %s", strerror(errno));
		return -1;
	}
	left = caps_left(pc->bounding_cleared);
	if (left) {
		*err = xasprintf("capabilities are left: %s", left);
		return -1;
	}
	if (pc->who != PROXY_WHO_CALLER && check_not_root(pc, err) < 0)
		return -1;
	/* a change of uid clears the parent-death signal: again */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) {
		*err = xasprintf("prctl(PR_SET_PDEATHSIG): %s",
				 strerror(errno));
		return -1;
	}
	if (getppid() != parent) {
		*err = xstrdup("the process that started it is gone");
		return -1;
	}
	return 0;
}

char *proxy_who_name(const struct proxy_creds *pc)
{
	switch (pc->who) {
	case PROXY_WHO_USER:
		return xasprintf("user %s (uid %lu, gid %lu)", PROXY_USER,
				 (unsigned long)pc->uid,
				 (unsigned long)pc->gid);
	case PROXY_WHO_FALLBACK:
		return xasprintf("uid %lu, gid %lu (no user %s)",
				 (unsigned long)pc->uid,
				 (unsigned long)pc->gid, PROXY_USER);
	case PROXY_WHO_CALLER:
		return xasprintf("the caller's uid %lu", (unsigned long)pc->uid);
	default:
		BUG("who is %d", (int)pc->who);
	}
}

/* ---- Landlock ------------------------------------------------------- */

/*
 * What it reads once it serves: c-ares opens /etc/hosts for each name it
 * looks up (strace of a launch that resolves names: nothing else); the
 * rest is the resolver's configuration, which it read at its start and
 * a resolver may read again.  A rule holds the file (the inode, links
 * followed), not its name: a file replaced by another while it runs is
 * not readable (c-ares then asks DNS alone).
 */
static const char *const resolver_files[] = {
	"/etc/hosts", "/etc/resolv.conf", "/etc/nsswitch.conf",
	"/etc/host.conf", "/etc/gai.conf",
};

/* ---- the second step ------------------------------------------------ */

int proxy_confine(char **err)
{
	const char *what = NULL;
	int abi;

	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
		*err = xasprintf("prctl(PR_SET_DUMPABLE): %s", strerror(errno));
		return -1;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		*err = xasprintf("prctl(PR_SET_NO_NEW_PRIVS): %s",
				 strerror(errno));
		return -1;
	}
	/* Only the resolver's files are read; nothing is written,
	 * executed or listed, no TCP port bound (landlock.h). */
	abi = landlock_restrict_read_only(resolver_files,
					  (unsigned)array_size(resolver_files),
					  &what);
	if (abi < 0) {
		*err = xasprintf("landlock: %s: %s", what, strerror(errno));
		return -1;
	}
	if (seccomp_prog_load(seccomp_bpf_proxy, seccomp_bpf_proxy_len,
			      NULL) != 0) {
		*err = xasprintf("seccomp: %s", strerror(errno));
		return -1;
	}
	return abi;
}
