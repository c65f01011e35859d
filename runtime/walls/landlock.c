/* SPDX-License-Identifier: MIT */
/*
 * landlock.c - Landlock with raw syscalls; see landlock.h.
 *
 * Installed headers lag the kernel (Debian 12 ships 6.1's), so every
 * constant and struct newer than ABI 1 is defined here, by its ABI:
 *   ABI 2  LANDLOCK_ACCESS_FS_REFER
 *   ABI 3  LANDLOCK_ACCESS_FS_TRUNCATE
 *   ABI 5  LANDLOCK_ACCESS_FS_IOCTL_DEV
 *   ABI 6  the ruleset's "scoped" field: abstract unix sockets, signals
 * ABI 4 adds network rules, which the sandbox does not use here (the
 * network namespace and the proxy are its network walls).
 *
 * Async-signal-safe: the init calls this between fork and exec.
 */
#include <config.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landlock.h"
#include "nolink.h"

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_RULE_PATH_BENEATH 1

#define LL_FS_EXECUTE (1ULL << 0)
#define LL_FS_WRITE_FILE (1ULL << 1)
#define LL_FS_READ_FILE (1ULL << 2)
#define LL_FS_READ_DIR (1ULL << 3)
#define LL_FS_REMOVE_DIR (1ULL << 4)
#define LL_FS_REMOVE_FILE (1ULL << 5)
#define LL_FS_MAKE_CHAR (1ULL << 6)
#define LL_FS_MAKE_DIR (1ULL << 7)
#define LL_FS_MAKE_REG (1ULL << 8)
#define LL_FS_MAKE_SOCK (1ULL << 9)
#define LL_FS_MAKE_FIFO (1ULL << 10)
#define LL_FS_MAKE_BLOCK (1ULL << 11)
#define LL_FS_MAKE_SYM (1ULL << 12)
#define LL_FS_REFER (1ULL << 13)	/* ABI 2 */
#define LL_FS_TRUNCATE (1ULL << 14)	/* ABI 3 */
#define LL_FS_IOCTL_DEV (1ULL << 15)	/* ABI 5 */

#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)	/* ABI 6 */
#define LL_SCOPE_SIGNAL (1ULL << 1)			/* ABI 6 */

/* ABI 1 write-like rights; each later ABI adds its own below. */
#define LL_FS_WRITE_V1 (LL_FS_WRITE_FILE | LL_FS_REMOVE_DIR | \
			LL_FS_REMOVE_FILE | LL_FS_MAKE_CHAR | LL_FS_MAKE_DIR | \
			LL_FS_MAKE_REG | LL_FS_MAKE_SOCK | LL_FS_MAKE_FIFO | \
			LL_FS_MAKE_BLOCK | LL_FS_MAKE_SYM)

/* struct landlock_ruleset_attr as of ABI 6 (older kernels take a prefix). */
struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

struct ll_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

/* Highest ABI whose layout this file knows. */
#define LL_ABI_KNOWN 7

int landlock_abi(void)
{
	long v = syscall(SYS_landlock_create_ruleset, NULL, 0,
			 LL_CREATE_RULESET_VERSION);

	if (v < 0)
		return 0;
	return v > INT32_MAX ? INT32_MAX : (int)v;
}

/* The write-like rights ABI @abi can handle. */
static uint64_t write_rights(int abi)
{
	uint64_t r = LL_FS_WRITE_V1;

	if (abi >= 2)
		r |= LL_FS_REFER;
	if (abi >= 3)
		r |= LL_FS_TRUNCATE;
	if (abi >= 5)
		r |= LL_FS_IOCTL_DEV;
	return r;
}

#define LL_FS_READ_ONLY_V1 (LL_FS_EXECUTE | LL_FS_READ_FILE | LL_FS_READ_DIR)
#define LL_NET_BIND_TCP (1ULL << 0)	/* ABI 4 */

/*
 * A ruleset handling @fs (masked to what @abi knows), binding TCP ports
 * too when @net_bind (ABI 4), and scoping abstract unix sockets and
 * signals (ABI 6): its fd, or -1 with errno.
 */
static int ruleset_create(int abi, uint64_t fs, bool net_bind)
{
	struct ll_ruleset_attr attr;
	size_t attr_size;

	memset(&attr, 0, sizeof(attr));
	attr.handled_access_fs = fs;
	attr_size = offsetof(struct ll_ruleset_attr, handled_access_net);
	if (net_bind && abi >= 4) {
		attr.handled_access_net = LL_NET_BIND_TCP;
		attr_size = offsetof(struct ll_ruleset_attr, scoped);
	}
	if (abi >= 6) {
		attr.scoped = LL_SCOPE_ABSTRACT_UNIX_SOCKET | LL_SCOPE_SIGNAL;
		attr_size = sizeof(attr);
	}
	return (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0U);
}

/*
 * Allow @rights beneath each of @paths[0..@n) in @rs; for a path that is
 * a file (not a directory) only the rights of @file_rights that a file
 * takes.  A path that does not exist (or cannot be reached) is skipped:
 * nothing can be done there.  0, or -1 with errno and *@what.
 */
static int add_paths(int rs, const char *const *paths, unsigned n,
		     uint64_t rights, uint64_t file_rights, const char **what)
{
	struct ll_path_beneath_attr pb;
	unsigned i;
	int fd, rc, saved;

	for (i = 0; i < n; i++) {
		fd = open(paths[i], O_PATH | O_CLOEXEC);
		if (fd < 0) {
			if (errno == ENOENT || errno == ENOTDIR ||
			    errno == EACCES || errno == ELOOP)
				continue;
			*what = "open of a path for a rule";
			return -1;
		}
		pb.allowed_access = rights;
		pb.parent_fd = fd;
		rc = (int)syscall(SYS_landlock_add_rule, rs,
				  LL_RULE_PATH_BENEATH, &pb, 0U);
		if (rc < 0 && errno == EINVAL) {
			/* A file (not a directory) takes only file rights. */
			pb.allowed_access &= file_rights;
			rc = (int)syscall(SYS_landlock_add_rule, rs,
					  LL_RULE_PATH_BENEATH, &pb, 0U);
		}
		saved = errno;
		close(fd);
		if (rc < 0) {
			errno = saved;
			*what = "landlock_add_rule";
			return -1;
		}
	}
	return 0;
}

/*
 * Add the rules (add_paths()) to @rs, then enforce it on the calling
 * thread; @rs is closed either way.  The ABI used, or -1 with errno.
 */
static int ruleset_apply(int rs, int abi, const char *const *paths,
			 unsigned n, uint64_t rights, uint64_t file_rights,
			 const char **what)
{
	int saved;

	if (add_paths(rs, paths, n, rights, file_rights, what) == 0) {
		*what = "landlock_restrict_self";
		if (syscall(SYS_landlock_restrict_self, rs, 0U) == 0) {
			close(rs);
			return abi > LL_ABI_KNOWN ? LL_ABI_KNOWN : abi;
		}
	}
	saved = errno;
	close(rs);
	errno = saved;
	return -1;
}

int landlock_restrict(const char *const *paths, unsigned n, const char **what)
{
	uint64_t rights;
	int abi, rs;

	abi = landlock_abi();
	if (abi <= 0)
		return 0;
	rights = write_rights(abi);
	*what = "landlock_create_ruleset";
	rs = ruleset_create(abi, rights, false);
	if (rs < 0)
		return -1;
	return ruleset_apply(rs, abi, paths, n, rights,
			     LL_FS_WRITE_FILE | LL_FS_TRUNCATE |
				     LL_FS_IOCTL_DEV,
			     what);
}

#define LL_NET_CONNECT_TCP (1ULL << 1)	/* ABI 4 */
#define LL_FS_FILE_RIGHTS (LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | \
			   LL_FS_TRUNCATE | LL_FS_IOCTL_DEV)

int landlock_restrict_rules(const struct landlock_rule *rules, unsigned n,
			    int abi_max, const char **what)
{
	struct ll_path_beneath_attr pb;
	struct ll_ruleset_attr attr;
	uint64_t handled;
	size_t attr_size;
	unsigned i;
	int abi, rs, fd, rc, saved;

	abi = landlock_abi();
	if (abi_max > 0 && abi > abi_max)
		abi = abi_max;
	*what = "landlock_create_ruleset (container mode needs Landlock)";
	if (abi <= 0) {
		errno = ENOSYS;
		return -1;
	}
	handled = write_rights(abi) | LL_FS_READ_ONLY_V1;
	memset(&attr, 0, sizeof(attr));
	attr.handled_access_fs = handled;
	attr_size = offsetof(struct ll_ruleset_attr, handled_access_net);
	if (abi >= 4) {
		attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
		attr_size = offsetof(struct ll_ruleset_attr, scoped);
	}
	if (abi >= 6) {
		attr.scoped = LL_SCOPE_ABSTRACT_UNIX_SOCKET | LL_SCOPE_SIGNAL;
		attr_size = sizeof(attr);
	}
	rs = (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0U);
	if (rs < 0)
		return -1;
	for (i = 0; i < n; i++) {
		fd = nolink_open(AT_FDCWD, rules[i].path, 0, 0);
		if (fd < 0) {
			if (errno == ENOENT || errno == ENOTDIR ||
			    (rules[i].optional && (errno == ELOOP ||
						   errno == EACCES)))
				continue;
			*what = errno == ELOOP ?
				"a granted path has a symbolic link on its way "
				"(it changed since the launcher looked)" :
				"open of a path for a rule";
			goto fail;
		}
		pb.allowed_access = rules[i].rights & handled;
		pb.parent_fd = fd;
		rc = (int)syscall(SYS_landlock_add_rule, rs,
				  LL_RULE_PATH_BENEATH, &pb, 0U);
		if (rc < 0 && errno == EINVAL) {
			/* A file (not a directory) takes only file rights. */
			pb.allowed_access &= LL_FS_FILE_RIGHTS;
			rc = pb.allowed_access ?
			     (int)syscall(SYS_landlock_add_rule, rs,
					  LL_RULE_PATH_BENEATH, &pb, 0U) : 0;
		}
		saved = errno;
		close(fd);
		errno = saved;
		if (rc < 0) {
			*what = "landlock_add_rule";
			goto fail;
		}
	}
	return ruleset_apply(rs, abi, NULL, 0, 0, 0, what);
fail:
	saved = errno;
	close(rs);
	errno = saved;
	return -1;
}

int landlock_restrict_read_only(const char *const *files, unsigned n,
				const char **what)
{
	int abi, rs;

	abi = landlock_abi();
	if (abi <= 0)
		return 0;
	*what = "landlock_create_ruleset";
	rs = ruleset_create(abi, write_rights(abi) | LL_FS_READ_ONLY_V1, true);
	if (rs < 0)
		return -1;
	return ruleset_apply(rs, abi, files, n, LL_FS_READ_FILE,
			     LL_FS_READ_FILE, what);
}

int landlock_scope_signals(const char **what)
{
	struct ll_ruleset_attr attr;
	int rs;

	*what = "landlock_create_ruleset (signal scope: ABI 6)";
	if (landlock_abi() < 6) {
		errno = EOPNOTSUPP;
		return -1;
	}
	memset(&attr, 0, sizeof(attr));
	attr.scoped = LL_SCOPE_SIGNAL;
	rs = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr),
			  0U);
	if (rs < 0)
		return -1;
	return ruleset_apply(rs, 6, NULL, 0, 0, 0, what) < 0 ? -1 : 0;
}
