/* SPDX-License-Identifier: MIT */
/*
 * seccomp.c - build (libseccomp) and load (raw syscall) the sandbox's
 * seccomp programs; see seccomp.h.
 *
 * Every rule is added for the native architecture, x32 and i386 (the
 * three an x86-64 kernel runs); libseccomp translates each name per
 * architecture, and a name an architecture lacks is skipped there (the
 * call does not exist, so nothing can reach it).  i386's multiplexers
 * socketcall() and ipc() hide their arguments in memory, out of BPF's
 * reach: socketcall() is refused with ENOSYS (so the socket family and
 * unix-socket checks cannot be bypassed through it; an i386 program that
 * uses it has no sockets), and ipc() is left alone (SysV IPC is
 * namespaced).
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "seccomp.h"
#include "seccomp_int.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP 0x02000000
#endif
#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif
#ifndef SECCOMP_GET_NOTIF_SIZES
#define SECCOMP_GET_NOTIF_SIZES 3
#endif

/* Refused outright (EPERM), whatever the arguments. */
static const char *const deny_eperm[] = {
	"io_uring_setup", "io_uring_enter", "io_uring_register",
	"add_key", "request_key", "keyctl",
	"bpf", "perf_event_open", "userfaultfd",
	"init_module", "finit_module", "delete_module",
	"kexec_load", "kexec_file_load",
	"open_by_handle_at",
	"mount", "umount", "umount2", "pivot_root", "fsopen", "fsmount",
	"fsconfig", "fspick", "move_mount", "open_tree", "mount_setattr",
	"setns",
};

/* Namespace flags: unshare() and clone() with any of them are refused. */
static const uint64_t ns_flags[] = {
	CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC,
	CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET,
};

static bool refuse_unix_sockets;

/*
 * Socket families a sandboxed program may create (AF_UNIX not where the
 * kernel lacks user notification: seccomp_progs_build()'s refuse_unix).
 */
static bool family_allowed(unsigned f)
{
	return (f == AF_UNIX && !refuse_unix_sockets) || f == AF_INET ||
	       f == AF_INET6 || f == AF_NETLINK;
}

/* Upper bound of the refused family numbers compared on 32 bits. */
#define FAMILY_ENUM_MAX 64

/*
 * The largest k such that [f, f + 2^k) is aligned, below FAMILY_ENUM_MAX
 * and holds no allowed family (f itself is refused).
 */
static unsigned family_block(unsigned f)
{
	unsigned k = 0, g;
	bool clean;

	for (;;) {
		unsigned n = 1u << (k + 1);

		if (f % n != 0 || f + n > FAMILY_ENUM_MAX)
			return k;
		clean = true;
		for (g = f; g < f + n; g++)
			if (family_allowed(g))
				clean = false;
		if (!clean)
			return k;
		k++;
	}
}

static int add_arches(scmp_filter_ctx ctx)
{
#if defined(__x86_64__)
	int rc;

	rc = seccomp_arch_add(ctx, SCMP_ARCH_X32);
	if (rc < 0 && rc != -EEXIST)
		return rc;
	rc = seccomp_arch_add(ctx, SCMP_ARCH_X86);
	if (rc < 0 && rc != -EEXIST)
		return rc;
#else
	(void)ctx;
#endif
	return 0;
}

/*
 * seccomp_rule_add() for a name: a name unknown to this architecture set
 * (resolve fails) is not an error, the call does not exist here.
 */
int seccomp_rule(scmp_filter_ctx ctx, uint32_t action, const char *name,
		 unsigned n, const struct scmp_arg_cmp *cmp)
{
	int nr = seccomp_syscall_resolve_name(name);

	if (nr == __NR_SCMP_ERROR)
		return 0;
	return seccomp_rule_add_array(ctx, action, nr, n, cmp);
}

/*
 * Set-user-ID and set-group-ID bits: a file the child owns keeps them on
 * the host, where no nosuid mount follows it (a root-started child's
 * `chmod 4755` in its writable root, or fchmod on the file its output is
 * redirected to, left a set-uid-root program any local user could run).
 * Refused in every mode argument the filter can read; fchmodat2 is
 * ENOSYS (the newer-calls filter), openat2's mode lies in memory (ENOSYS
 * where the supervisor does not judge it, pathcall_open.c where it does).
 * A call a program hands to the supervisor unconditionally (supervised
 * paths, container mode's metadata calls) stays a notification in the
 * filter libseccomp builds: the supervisor refuses set-id modes itself
 * (metacall_apply(), pathcall_open(), run_name()).  Where open() and
 * openat() are handed over only with a writing flag (every supervised
 * row ro: seccomp_build_path_calls_writes()), these rules stand beside
 * that and come first: a set-id mode is EPERM there, handed over or not.
 */
static const struct {
	const char *name;
	unsigned arg;
} setid_mode[] = {
	{ "chmod", 1 }, { "fchmod", 1 }, { "fchmodat", 2 }, { "open", 2 },
	{ "openat", 3 }, { "creat", 1 }, { "mknod", 1 }, { "mknodat", 2 },
};

static int build_setid(scmp_filter_ctx ctx, const char **what)
{
	static const unsigned bits[] = { S_ISUID, S_ISGID };
	struct scmp_arg_cmp c;
	size_t i, b;
	int rc = 0;

	for (i = 0; rc >= 0 && i < array_size(setid_mode); i++) {
		for (b = 0; rc >= 0 && b < array_size(bits); b++) {
			*what = setid_mode[i].name;
			c = (struct scmp_arg_cmp){
				.arg = setid_mode[i].arg,
				.op = SCMP_CMP_MASKED_EQ,
				.datum_a = bits[b],
				.datum_b = bits[b],
			};
			rc = seccomp_rule(ctx, SCMP_ACT_ERRNO(EPERM),
				  setid_mode[i].name, 1, &c);
		}
	}
	return rc;
}

static int build_deny_common(scmp_filter_ctx ctx, const char **what,
			     bool openat2_enosys);

int seccomp_build_deny(scmp_filter_ctx ctx, const char **what)
{
	return build_deny_common(ctx, what, true);
}

/* The deny rules where the supervisor judges openat2 (supervised paths). */
int seccomp_build_deny_judged(scmp_filter_ctx ctx, const char **what)
{
	return build_deny_common(ctx, what, false);
}

static int build_deny_common(scmp_filter_ctx ctx, const char **what,
			     bool openat2_enosys)
{
	struct scmp_arg_cmp c;
	size_t i;
	unsigned f, k = 0;
	int rc;

	rc = build_setid(ctx, what);
	if (rc < 0)
		return rc;
	if (openat2_enosys) {
		/* its mode is in memory: the C library falls back to openat */
		*what = "openat2";
		rc = seccomp_rule(ctx, SCMP_ACT_ERRNO(ENOSYS), "openat2", 0, NULL);
		if (rc < 0)
			return rc;
	}

	for (i = 0; i < array_size(deny_eperm); i++) {
		*what = deny_eperm[i];
		rc = seccomp_rule(ctx, SCMP_ACT_ERRNO(EPERM), deny_eperm[i], 0, NULL);
		if (rc < 0)
			return rc;
	}
	/* glibc falls back to clone() when clone3() says ENOSYS. */
	*what = "clone3";
	rc = seccomp_rule(ctx, SCMP_ACT_ERRNO(ENOSYS), "clone3", 0, NULL);
	if (rc < 0)
		return rc;
	/* i386: socketcall() hides its arguments; see the head comment. */
	*what = "socketcall";
	rc = seccomp_rule(ctx, SCMP_ACT_ERRNO(ENOSYS), "socketcall", 0, NULL);
	if (rc < 0)
		return rc;
	for (i = 0; i < array_size(ns_flags); i++) {
		c = SCMP_A0(SCMP_CMP_MASKED_EQ, ns_flags[i], ns_flags[i]);
		*what = "unshare";
		rc = seccomp_rule(ctx, SCMP_ACT_ERRNO(EPERM), "unshare", 1, &c);
		if (rc < 0)
			return rc;
		*what = "clone";
		rc = seccomp_rule(ctx, SCMP_ACT_ERRNO(EPERM), "clone", 1, &c);
		if (rc < 0)
			return rc;
	}
	/* CLONE_NEWTIME is an exit-signal bit for clone(), a flag for unshare. */
	c = SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWTIME, CLONE_NEWTIME);
	*what = "unshare";
	rc = seccomp_rule(ctx, SCMP_ACT_ERRNO(EPERM), "unshare", 1, &c);
	if (rc < 0)
		return rc;
	/* The kernel takes ioctl's request as 32 bits: compare only those. */
	*what = "ioctl";
	c = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCSTI);
	rc = seccomp_rule(ctx, SCMP_ACT_ERRNO(EPERM), "ioctl", 1, &c);
	if (rc < 0)
		return rc;
	c = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCLINUX);
	rc = seccomp_rule(ctx, SCMP_ACT_ERRNO(EPERM), "ioctl", 1, &c);
	if (rc < 0)
		return rc;
	/*
	 * socket(): refuse every family but four.  The family is an int:
	 * below FAMILY_ENUM_MAX the refused families are compared on their
	 * 32 bits, grouped into aligned blocks ((family & ~(2^k - 1)) ==
	 * start: 11 rules instead of 60, a program less than half as long,
	 * which the kernel checks and compiles on every launch); anything at
	 * or above it is refused on all 64 bits (a value with garbage in
	 * the upper half is then refused, never let through).
	 */
	*what = "socket";
	for (f = 0; f < FAMILY_ENUM_MAX; f += 1u << k) {
		if (family_allowed(f)) {
			k = 0;
			continue;
		}
		k = family_block(f);
		c = SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffu & ~((1u << k) - 1),
			    f);
		rc = seccomp_rule(ctx, SCMP_ACT_ERRNO(EPERM), "socket", 1, &c);
		if (rc < 0)
			return rc;
	}
	c = SCMP_A0(SCMP_CMP_GE, FAMILY_ENUM_MAX);
	rc = seccomp_rule(ctx, SCMP_ACT_ERRNO(EPERM), "socket", 1, &c);
	if (rc < 0)
		return rc;
	return 0;
}

int seccomp_build_notify(scmp_filter_ctx ctx, const char **what)
{
	struct scmp_arg_cmp c;
	int rc;

	*what = "connect";
	rc = seccomp_rule(ctx, SCMP_ACT_NOTIFY, "connect", 0, NULL);
	if (rc < 0)
		return rc;
	/* sendto() without an address cannot name a destination. */
	*what = "sendto";
	c = SCMP_A4(SCMP_CMP_NE, 0);
	rc = seccomp_rule(ctx, SCMP_ACT_NOTIFY, "sendto", 1, &c);
	if (rc < 0)
		return rc;
	*what = "sendmsg";
	rc = seccomp_rule(ctx, SCMP_ACT_NOTIFY, "sendmsg", 0, NULL);
	if (rc < 0)
		return rc;
	*what = "sendmmsg";
	return seccomp_rule(ctx, SCMP_ACT_NOTIFY, "sendmmsg", 0, NULL);
}

/*
 * bind() under @default net open: the sandbox shares the host's network
 * namespace, where an abstract name it binds is one a host client
 * connects to (unixsock.h).  Every bind is stopped: its address is in
 * memory, out of BPF's reach.
 */
int seccomp_build_notify_bind(scmp_filter_ctx ctx, const char **what)
{
	*what = "bind";
	return seccomp_rule(ctx, SCMP_ACT_NOTIFY, "bind", 0, NULL);
}

/* net open without Landlock's abstract scope: the calls and bind(). */
static int build_supervised_open(scmp_filter_ctx ctx, const char **what)
{
	int rc = seccomp_build_deny(ctx, what);

	if (rc >= 0)
		rc = seccomp_build_notify(ctx, what);
	return rc < 0 ? rc : seccomp_build_notify_bind(ctx, what);
}

/* net open with Landlock's abstract scope (ABI 6): bind() alone. */
static int build_supervised_bind(scmp_filter_ctx ctx, const char **what)
{
	int rc = seccomp_build_deny(ctx, what);

	return rc < 0 ? rc : seccomp_build_notify_bind(ctx, what);
}

/*
 * The supervised filter: the deny rules and the notify rules in one
 * program (they name disjoint calls).  One filter instead of two saves
 * the kernel a second check, compilation and per-call cache pass at
 * every launch, and the command a second filter run on every call.
 */
static int build_supervised(scmp_filter_ctx ctx, const char **what)
{
	int rc = seccomp_build_deny(ctx, what);

	return rc < 0 ? rc : seccomp_build_notify(ctx, what);
}

/*
 * Supervised paths (pathcall.h, doc/launcher.md "Supervised paths"):
 * every call that opens, makes, removes, renames, links or runs a file
 * by name, the metadata calls, and bind() (a unix socket's file is a
 * name made).  Added to a supervised program only for plans with rows
 * that land `supervised`.  uselib() maps a file by name: the supervisor
 * answers it ENOSYS.
 */
static const char *const path_calls[] = {
	"open", "openat", "openat2", "creat", "mkdir", "mkdirat", "mknod",
	"mknodat", "symlink", "symlinkat", "link", "linkat", "unlink",
	"unlinkat", "rmdir", "rename", "renameat", "renameat2", "execve",
	"execveat", "bind", "uselib",
	"chmod", "fchmod", "fchmodat", "chown", "fchown", "lchown",
	"fchownat", "utime", "utimes", "futimesat", "utimensat",
	"setxattr", "lsetxattr", "fsetxattr", "removexattr",
	"lremovexattr", "fremovexattr", "truncate",
	/* 32-bit variants (i386): the supervisor answers ENOSYS */
	"chown32", "fchown32", "lchown32", "utimensat_time64", "truncate64",
};

/*
 * FS_IOC_SETFLAGS (both sizes), FS_IOC_FSSETXATTR, and the inode
 * generation: FS_IOC_SETVERSION and EXT4_IOC_SETVERSION (both sizes).
 */
static const uint32_t chattr_ioctl[] = {
	0x40086602u, 0x40046602u, 0x401c5820u,
	0x40087602u, 0x40047602u, 0x40086604u, 0x40046604u,
	0x40806685u,	/* FS_IOC_ENABLE_VERITY: the file immutable for good */
};

/*
 * File flags (chattr) and fsxattrs change a file opened for reading
 * alone, and the ioctl names no path to judge: refused wherever a
 * supervised row or container mode holds files without a read-only
 * mount (a read-only mount refuses them itself, EROFS).
 */
int seccomp_build_chattr(scmp_filter_ctx ctx, const char **what)
{
	struct scmp_arg_cmp c;
	size_t i;
	int rc = 0;

	for (i = 0; rc >= 0 && i < array_size(chattr_ioctl); i++) {
		*what = "ioctl";
		c = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, chattr_ioctl[i]);
		rc = seccomp_rule(ctx, SCMP_ACT_ERRNO(EPERM), "ioctl", 1, &c);
	}
	return rc;
}

int seccomp_build_path_calls(scmp_filter_ctx ctx, const char **what)
{
	size_t i;
	int rc = 0;

	for (i = 0; rc >= 0 && i < array_size(path_calls); i++) {
		*what = path_calls[i];
		rc = seccomp_rule(ctx, SCMP_ACT_NOTIFY, path_calls[i], 0, NULL);
	}
	return rc;
}

static int build_paths(scmp_filter_ctx ctx, const char **what)
{
	int rc = seccomp_build_path_calls(ctx, what);

	return rc < 0 ? rc : seccomp_build_chattr(ctx, what);
}

/*
 * A plan whose supervised rows are all `ro` (plan_supervised_ro_only()):
 * the supervisor refuses nothing but a write there, and only on a path
 * such a row decides; every read it would allow, and every read the
 * kernel makes for the child is held by the mounts as under a plan
 * without supervised rows.  So the filter hands over only the calls that
 * can write:
 *
 *  - open() and openat() only with a flag that writes: an access mode
 *    of O_WRONLY or O_RDWR (or 3, which has O_WRONLY's bit), O_CREAT,
 *    O_TRUNC (which empties a file even opened O_RDONLY), or
 *    O_TMPFILE's own bit (O_TMPFILE is that bit and O_DIRECTORY, and
 *    the kernel wants write access with it anyway).  The flags are the
 *    kernel's `int`: each bit is compared in the low 32 bits alone, and
 *    libseccomp compares the upper half under a mask of 0, which
 *    always matches, so a value with garbage above bit 31 and a writing
 *    bit below is handed over like any other.  x32 and i386 have the
 *    flags in the same argument with the same bits (asm-generic); the
 *    supervisor answers their writing opens ENOSYS as before, and their
 *    reads go to the kernel, as 64-bit reads do;
 *  - openat2() and creat() always: openat2()'s flags are in child
 *    memory, out of BPF's reach, and creat() always writes;
 *  - not execve() and execveat(): an exec is judged for reading alone
 *    (the program and its interpreters), which an `ro` row never
 *    refuses, so there is nothing to judge and no exec to watch;
 *  - every other call of path_calls, all of which write (make, remove,
 *    link or rename a name, change metadata, truncate, bind a socket's
 *    name); uselib() stays answered ENOSYS.
 *
 * A read-only open was most of the calls handed over (bench/README.md,
 * "Supervised paths": 99 % of git status' and make's).
 */
static const char *const path_calls_not_ro[] = {
	"open", "openat", "execve", "execveat",
};

/* The open flags that can write; O_TMPFILE without O_DIRECTORY's bit. */
static const uint32_t open_write_flags[] = {
	O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_TMPFILE & ~O_DIRECTORY,
};

static bool path_call_ro_skipped(const char *name)
{
	size_t i;

	for (i = 0; i < array_size(path_calls_not_ro); i++)
		if (strcmp(name, path_calls_not_ro[i]) == 0)
			return true;
	return false;
}

int seccomp_build_path_calls_writes(scmp_filter_ctx ctx, const char **what)
{
	static const struct {
		const char *name;
		unsigned arg;
	} opens[] = { { "open", 1 }, { "openat", 2 } };
	struct scmp_arg_cmp c;
	size_t i, f;
	int rc = 0;

	for (i = 0; rc >= 0 && i < array_size(path_calls); i++) {
		if (path_call_ro_skipped(path_calls[i]))
			continue;
		*what = path_calls[i];
		rc = seccomp_rule(ctx, SCMP_ACT_NOTIFY, path_calls[i], 0, NULL);
	}
	for (i = 0; rc >= 0 && i < array_size(opens); i++) {
		for (f = 0; rc >= 0 && f < array_size(open_write_flags); f++) {
			*what = opens[i].name;
			c = (struct scmp_arg_cmp){
				.arg = opens[i].arg,
				.op = SCMP_CMP_MASKED_EQ,
				.datum_a = open_write_flags[f],
				.datum_b = open_write_flags[f],
			};
			rc = seccomp_rule(ctx, SCMP_ACT_NOTIFY, opens[i].name,
					  1, &c);
		}
	}
	return rc;
}

static int build_paths_writes(scmp_filter_ctx ctx, const char **what)
{
	int rc = seccomp_build_path_calls_writes(ctx, what);

	return rc < 0 ? rc : seccomp_build_chattr(ctx, what);
}

/* The supervised filter and the paths (whose bind() covers net open's). */
static int build_supervised_paths(scmp_filter_ctx ctx, const char **what)
{
	int rc = seccomp_build_deny_judged(ctx, what);

	if (rc >= 0)
		rc = seccomp_build_notify(ctx, what);
	return rc < 0 ? rc : build_paths(ctx, what);
}

/* net open with Landlock's abstract scope: bind() and the paths. */
static int build_supervised_bind_paths(scmp_filter_ctx ctx, const char **what)
{
	int rc = seccomp_build_deny_judged(ctx, what);

	return rc < 0 ? rc : build_paths(ctx, what);
}

/* The same two, for plans whose supervised rows are all ro. */
static int build_supervised_paths_ro(scmp_filter_ctx ctx, const char **what)
{
	int rc = seccomp_build_deny_judged(ctx, what);

	if (rc >= 0)
		rc = seccomp_build_notify(ctx, what);
	return rc < 0 ? rc : build_paths_writes(ctx, what);
}

static int build_supervised_bind_paths_ro(scmp_filter_ctx ctx,
					  const char **what)
{
	int rc = seccomp_build_deny_judged(ctx, what);

	return rc < 0 ? rc : build_paths_writes(ctx, what);
}

/*
 * The egress proxy's own process (vbox-proxy) once it serves: the deny
 * rules, and nothing that reaches beyond its sockets: no program run,
 * no other process traced or its memory read or written.  Code that
 * took over the proxy (it parses what the sandbox sends) keeps the
 * user's network, not the user's processes or a shell.  Its sockets are
 * TCP and UDP over IPv4 and IPv6: no unix socket (vbox-exec made its
 * control socket), no netlink (it reads its interface addresses before
 * it confines itself), no raw or packet socket.
 */
static const char *const deny_proxy_eperm[] = {
	"execve", "execveat", "ptrace", "process_vm_readv",
	"process_vm_writev", "socketpair",
};

/* Families the deny rules allow that the proxy does not need. */
static const unsigned deny_proxy_family[] = { AF_UNIX, AF_NETLINK };

/*
 * Socket types other than SOCK_STREAM (1) and SOCK_DGRAM (2), as
 * aligned blocks of the type's low four bits (the type; SOCK_NONBLOCK
 * and SOCK_CLOEXEC are above them): { mask, value }.
 */
static const uint32_t deny_proxy_type[][2] = {
	{ 0xf, 0 }, { 0xf, 3 }, { 0xc, 4 }, { 0x8, 8 },
};

static int build_proxy(scmp_filter_ctx ctx, const char **what)
{
	struct scmp_arg_cmp c;
	size_t i;
	int rc = seccomp_build_deny(ctx, what);

	for (i = 0; rc >= 0 && i < array_size(deny_proxy_eperm); i++) {
		*what = deny_proxy_eperm[i];
		rc = seccomp_rule(ctx, SCMP_ACT_ERRNO(EPERM), deny_proxy_eperm[i], 0,
			  NULL);
	}
	*what = "socket";
	for (i = 0; rc >= 0 && i < array_size(deny_proxy_family); i++) {
		c = SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffu,
			    deny_proxy_family[i]);
		rc = seccomp_rule(ctx, SCMP_ACT_ERRNO(EPERM), "socket", 1, &c);
	}
	for (i = 0; rc >= 0 && i < array_size(deny_proxy_type); i++) {
		c = SCMP_A1(SCMP_CMP_MASKED_EQ, deny_proxy_type[i][0],
			    deny_proxy_type[i][1]);
		rc = seccomp_rule(ctx, SCMP_ACT_ERRNO(EPERM), "socket", 1, &c);
	}
	return rc;
}

/* Export @ctx's BPF into @out through a memfd. */
static int export(scmp_filter_ctx ctx, struct seccomp_prog *out, char **err)
{
	struct stat st;
	ssize_t n;
	size_t have = 0;
	int fd, rc;

	fd = memfd_create("vbox-seccomp", MFD_CLOEXEC);
	if (fd < 0) {
		*err = xasprintf("memfd_create: %s", strerror(errno));
		return -1;
	}
	rc = seccomp_export_bpf(ctx, fd);
	if (rc < 0) {
		*err = xasprintf("seccomp_export_bpf: %s", strerror(-rc));
		goto fail;
	}
	if (fstat(fd, &st) < 0 || st.st_size <= 0 ||
	    st.st_size % (off_t)sizeof(struct sock_filter) != 0 ||
	    st.st_size > (off_t)(BPF_MAXINSNS * sizeof(struct sock_filter))) {
		*err = xasprintf("seccomp_export_bpf wrote an unusable "
				 "program (%lld bytes)",
				 (long long)st.st_size);
		goto fail;
	}
	out->len = (size_t)st.st_size;
	out->insns = xmalloc(out->len);
	while (have < out->len) {
		n = pread(fd, (char *)out->insns + have, out->len - have,
			  (off_t)have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			*err = xasprintf("reading the exported seccomp "
					 "program: %s",
					 n < 0 ? strerror(errno) : "short");
			seccomp_prog_free(out);
			goto fail;
		}
		have += (size_t)n;
	}
	close(fd);
	return 0;
fail:
	close(fd);
	return -1;
}

int seccomp_build_one(int (*add)(scmp_filter_ctx, const char **),
		      struct seccomp_prog *out, const char *name, char **err)
{
	scmp_filter_ctx ctx;
	const char *what = "setup";
	int rc;

	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx) {
		*err = xasprintf("seccomp: cannot start the %s filter", name);
		return -1;
	}
	/* The init sets no_new_privs itself, before it loads. */
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
	/*
	 * A binary tree of system-call numbers instead of a linear chain:
	 * when it loads a filter the kernel runs it for every system call
	 * number of every architecture (to cache the calls it always
	 * allows), and every call the command makes runs it again.
	 */
	if (rc == 0)
		rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	if (rc == 0)
		rc = add_arches(ctx);
	if (rc == 0)
		rc = add(ctx, &what);
	if (rc < 0) {
		*err = xasprintf("seccomp: %s filter, rule for %s: %s", name,
				 what, strerror(-rc));
		seccomp_release(ctx);
		return -1;
	}
	rc = export(ctx, out, err);
	seccomp_release(ctx);
	return rc;
}

int seccomp_progs_build(struct seccomp_prog *deny,
			struct seccomp_prog *supervised, bool refuse_unix,
			char **err)
{
	refuse_unix_sockets = refuse_unix;
	memset(deny, 0, sizeof(*deny));
	memset(supervised, 0, sizeof(*supervised));
	if (seccomp_build_one(seccomp_build_deny, deny, "deny", err) < 0)
		return -1;
	if (seccomp_build_one(build_supervised, supervised, "supervised",
			      err) < 0) {
		seccomp_prog_free(deny);
		return -1;
	}
	return 0;
}

int seccomp_open_progs_build(struct seccomp_prog *open_all,
			     struct seccomp_prog *open_bind, char **err)
{
	refuse_unix_sockets = false;
	memset(open_all, 0, sizeof(*open_all));
	memset(open_bind, 0, sizeof(*open_bind));
	if (seccomp_build_one(build_supervised_open, open_all,
			      "supervised (net open)", err) < 0)
		return -1;
	if (seccomp_build_one(build_supervised_bind, open_bind,
			      "supervised (bind)", err) < 0) {
		seccomp_prog_free(open_all);
		return -1;
	}
	return 0;
}

int seccomp_proxy_build(struct seccomp_prog *proxy, char **err)
{
	refuse_unix_sockets = false;
	memset(proxy, 0, sizeof(*proxy));
	return seccomp_build_one(build_proxy, proxy, "proxy", err);
}

void seccomp_prog_free(struct seccomp_prog *p)
{
	if (!p)
		return;
	free(p->insns);
	p->insns = NULL;
	p->len = 0;
}

int seccomp_paths_progs_build(struct seccomp_prog *paths,
			      struct seccomp_prog *bind_paths, char **err)
{
	refuse_unix_sockets = false;
	memset(paths, 0, sizeof(*paths));
	memset(bind_paths, 0, sizeof(*bind_paths));
	if (seccomp_build_one(build_supervised_paths, paths,
			      "supervised (paths)", err) < 0)
		return -1;
	if (seccomp_build_one(build_supervised_bind_paths, bind_paths,
			      "supervised (bind, paths)", err) < 0) {
		seccomp_prog_free(paths);
		return -1;
	}
	return 0;
}

int seccomp_paths_ro_progs_build(struct seccomp_prog *paths,
				 struct seccomp_prog *bind_paths, char **err)
{
	refuse_unix_sockets = false;
	memset(paths, 0, sizeof(*paths));
	memset(bind_paths, 0, sizeof(*bind_paths));
	if (seccomp_build_one(build_supervised_paths_ro, paths,
			      "supervised (ro paths)", err) < 0)
		return -1;
	if (seccomp_build_one(build_supervised_bind_paths_ro, bind_paths,
			      "supervised (bind, ro paths)", err) < 0) {
		seccomp_prog_free(paths);
		return -1;
	}
	return 0;
}
