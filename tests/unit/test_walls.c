/* SPDX-License-Identifier: MIT */
/*
 * test_walls.c - the seccomp and Landlock walls (runtime/walls/) with
 * real system calls, each in a forked child that loads the wall itself:
 * every call doc/launcher.md "Walls" lists is refused with its errno (x86-64, x32 and
 * i386 entry points), the ordinary calls still work, and Landlock
 * refuses a write outside the allowed paths while one inside succeeds.
 *
 * Each refused call is first made without the filter (as the test runs:
 * usually root), so the expected errno is shown to come from the wall;
 * a call that already fails that way without the wall is marked so.
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "walls/landlock.h"
#include "walls/seccomp.h"
#include "i386_entry.h"
#include "tap.h"

#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif
#define X32_BIT 0x40000000L

static struct seccomp_prog deny, supervised;
/* The program in_child() loads: the deny or the supervised filter. */
static const struct seccomp_prog *loaded = &deny;

/* Run @fn in a child; its exit status is the errno it saw (0: success). */
static int in_child(bool filtered, long (*fn)(void))
{
	int status;
	pid_t pid;
	long r;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		BUG("fork: %s", strerror(errno));
	if (pid == 0) {
		if (filtered &&
		    (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		     seccomp_prog_load(loaded->insns, loaded->len, NULL) < 0))
			_exit(250);
		errno = 0;
		r = fn();
		_exit(r < 0 ? (errno & 0xff) : 0);
	}
	if (waitpid(pid, &status, 0) < 0)
		BUG("waitpid: %s", strerror(errno));
	if (WIFSIGNALED(status))
		return 1000 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static long c_io_uring_setup(void) { return syscall(SYS_io_uring_setup, 0, NULL); }
static long c_io_uring_enter(void) { return syscall(SYS_io_uring_enter, -1, 0, 0, 0, NULL, 0); }
static long c_io_uring_register(void) { return syscall(SYS_io_uring_register, -1, 0, NULL, 0); }
static long c_add_key(void) { return syscall(SYS_add_key, NULL, NULL, NULL, 0, 0); }
static long c_request_key(void) { return syscall(SYS_request_key, NULL, NULL, NULL, 0); }
static long c_keyctl(void) { return syscall(SYS_keyctl, 0, -3, 0); }
static long c_bpf(void) { return syscall(SYS_bpf, -1, NULL, 0); }
static long c_perf(void) { return syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0); }
static long c_userfaultfd(void) { return syscall(SYS_userfaultfd, O_CLOEXEC); }
static long c_init_module(void) { return syscall(SYS_init_module, NULL, 0, ""); }
static long c_finit_module(void) { return syscall(SYS_finit_module, -1, "", 0); }
static long c_delete_module(void) { return syscall(SYS_delete_module, "vbox_no_such_module", O_NONBLOCK); }
static long c_kexec_load(void) { return syscall(SYS_kexec_load, 0, 0, NULL, 0xffffffffUL); }
static long c_kexec_file_load(void) { return syscall(SYS_kexec_file_load, -1, -1, 0, NULL, 0xffffffffUL); }
static long c_open_by_handle_at(void) { return syscall(SYS_open_by_handle_at, -1, NULL, 0); }
static long c_mount(void) { return syscall(SYS_mount, "none", "/vbox-no-such-dir", "tmpfs", 0, NULL); }
static long c_umount2(void) { return syscall(SYS_umount2, "/vbox-no-such-dir", 0); }
static long c_pivot_root(void) { return syscall(SYS_pivot_root, "/vbox-no-such-dir", "/vbox-no-such-dir"); }
static long c_fsopen(void) { return syscall(SYS_fsopen, "vbox-no-such-fs", 0); }
static long c_fsmount(void) { return syscall(SYS_fsmount, -1, 0, 0); }
static long c_fsconfig(void) { return syscall(SYS_fsconfig, -1, 0, NULL, NULL, 0); }
static long c_fspick(void) { return syscall(SYS_fspick, -1, "", 0); }
static long c_move_mount(void) { return syscall(SYS_move_mount, -1, "", -1, "", 0); }
static long c_open_tree(void) { return syscall(SYS_open_tree, -1, "", 0); }
static long c_mount_setattr(void) { return syscall(SYS_mount_setattr, -1, "", 0, NULL, 0); }
static long c_setns(void) { return syscall(SYS_setns, -1, 0); }
static long c_unshare_user(void) { return syscall(SYS_unshare, CLONE_NEWUSER); }
static long c_unshare_ns(void) { return syscall(SYS_unshare, CLONE_NEWNS | CLONE_FILES); }
static long c_unshare_net(void) { return syscall(SYS_unshare, CLONE_NEWNET); }
static long c_unshare_time(void) { return syscall(SYS_unshare, 0x80); }
/* clone() with a namespace flag: the child (if any) exits at once. */
static long c_clone_newpid(void)
{
	long r = syscall(SYS_clone, CLONE_NEWPID | SIGCHLD, 0, NULL, NULL, 0);

	if (r == 0)
		_exit(0);
	if (r > 0)
		waitpid((pid_t)r, NULL, 0);
	return r < 0 ? -1 : 0;
}
static long c_clone3(void) { return syscall(SYS_clone3, NULL, 0); }
/* The request with garbage in the upper half: the kernel ignores it. */
static long c_tiocsti(void)
{
	char ch = 'x';

	return syscall(SYS_ioctl, -1, 0xdead000000000000UL | TIOCSTI, &ch);
}
static long c_tioclinux(void) { return syscall(SYS_ioctl, -1, (unsigned long)TIOCLINUX, NULL); }
static long c_af_packet(void) { return socket(AF_PACKET, SOCK_RAW, 0); }
static long c_af_key(void) { return socket(AF_KEY, SOCK_RAW, 2); }
static long c_af_alg(void) { return socket(AF_ALG, SOCK_SEQPACKET, 0); }
static long c_af_vsock(void) { return socket(AF_VSOCK, SOCK_STREAM, 0); }
static long c_af_bluetooth(void) { return socket(AF_BLUETOOTH, SOCK_RAW, 0); }
static long c_af_big(void) { return syscall(SYS_socket, 0x100000002L, SOCK_STREAM, 0); }
/* x32 entry points (the x32 bit set): refused before the kernel looks. */
static long c_x32_keyctl(void) { return syscall(X32_BIT | SYS_keyctl, 0, -3, 0); }
static long c_x32_mount(void) { return syscall(X32_BIT | SYS_mount, "none", "/vbox-no-such-dir", "tmpfs", 0, NULL); }
/* i386 entry (int $0x80): keyctl is 288, unshare 310, socketcall 102. */
static long int80(long nr, long a, long b)
{
	long r = i386_call(nr, a, b);

	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return -1;
	}
	return r;
}
static long c_i386_keyctl(void) { return int80(288, 0, -3); }
static long c_i386_unshare(void) { return int80(310, CLONE_NEWUSER, 0); }
static long c_i386_socketcall(void) { return int80(102, 1, 0); }

/* The i386 entry (i386_entry.h), the test stopped when the probe fails. */
static int probe_i386(void)
{
	int r;

	fflush(stdout);
	r = i386_probe();
	if (r < 0)
		BUG("i386 probe: %s", strerror(errno));
	return r;
}

/* Ordinary calls that must keep working. */
static long p_unix(void) { long fd = socket(AF_UNIX, SOCK_STREAM, 0); return fd < 0 ? -1 : close((int)fd); }
static long p_inet(void) { long fd = socket(AF_INET, SOCK_DGRAM, 0); return fd < 0 ? -1 : close((int)fd); }
static long p_inet6(void) { long fd = socket(AF_INET6, SOCK_STREAM, 0); return fd < 0 ? -1 : close((int)fd); }
static long p_netlink(void) { long fd = socket(AF_NETLINK, SOCK_RAW, 0); return fd < 0 ? -1 : close((int)fd); }
static long p_socketpair(void) { int sv[2]; return socketpair(AF_UNIX, SOCK_STREAM, 0, sv); }
static long p_fork(void)
{
	int st;
	pid_t p = fork();

	if (p == 0)
		_exit(7);
	if (p < 0 || waitpid(p, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 7 ? 0 : -1;
}
static long p_thread_clone(void)
{
	/* glibc's pthread_create path: clone3 ENOSYS, then clone(). */
	long r = syscall(SYS_clone, CLONE_FILES | SIGCHLD, 0, NULL, NULL, 0);

	if (r == 0)
		_exit(0);
	return r < 0 ? -1 : (waitpid((pid_t)r, NULL, 0) < 0 ? -1 : 0);
}
static long p_unshare_files(void) { return syscall(SYS_unshare, CLONE_FILES); }
static long p_ioctl_other(void)
{
	struct winsize ws;
	int fd = open("/dev/null", O_RDONLY);
	long r = ioctl(fd, TIOCGWINSZ, &ws);

	/* ENOTTY from the kernel, not EPERM from the filter. */
	return r < 0 && errno == ENOTTY ? 0 : -1;
}
static long p_ptrace(void)
{
	/* ptrace stays allowed: ESRCH for a pid that is not a tracee. */
	long r = syscall(SYS_ptrace, 3 /* PEEKUSER */, getppid(), 0, 0);

	return r < 0 && errno == ESRCH ? 0 : -1;
}

struct refused {
	const char *name;
	long (*fn)(void);
	int want;
};

static const struct refused refused[] = {
	{ "io_uring_setup", c_io_uring_setup, EPERM },
	{ "io_uring_enter", c_io_uring_enter, EPERM },
	{ "io_uring_register", c_io_uring_register, EPERM },
	{ "add_key", c_add_key, EPERM },
	{ "request_key", c_request_key, EPERM },
	{ "keyctl", c_keyctl, EPERM },
	{ "bpf", c_bpf, EPERM },
	{ "perf_event_open", c_perf, EPERM },
	{ "userfaultfd", c_userfaultfd, EPERM },
	{ "init_module", c_init_module, EPERM },
	{ "finit_module", c_finit_module, EPERM },
	{ "delete_module", c_delete_module, EPERM },
	{ "kexec_load", c_kexec_load, EPERM },
	{ "kexec_file_load", c_kexec_file_load, EPERM },
	{ "open_by_handle_at", c_open_by_handle_at, EPERM },
	{ "mount", c_mount, EPERM },
	{ "umount2", c_umount2, EPERM },
	{ "pivot_root", c_pivot_root, EPERM },
	{ "fsopen", c_fsopen, EPERM },
	{ "fsmount", c_fsmount, EPERM },
	{ "fsconfig", c_fsconfig, EPERM },
	{ "fspick", c_fspick, EPERM },
	{ "move_mount", c_move_mount, EPERM },
	{ "open_tree", c_open_tree, EPERM },
	{ "mount_setattr", c_mount_setattr, EPERM },
	{ "setns", c_setns, EPERM },
	{ "unshare(CLONE_NEWUSER)", c_unshare_user, EPERM },
	{ "unshare(CLONE_NEWNS|CLONE_FILES)", c_unshare_ns, EPERM },
	{ "unshare(CLONE_NEWNET)", c_unshare_net, EPERM },
	{ "unshare(CLONE_NEWTIME)", c_unshare_time, EPERM },
	{ "clone(CLONE_NEWPID)", c_clone_newpid, EPERM },
	{ "clone3", c_clone3, ENOSYS },
	{ "ioctl(TIOCSTI) with upper bits set", c_tiocsti, EPERM },
	{ "ioctl(TIOCLINUX)", c_tioclinux, EPERM },
	{ "socket(AF_PACKET)", c_af_packet, EPERM },
	{ "socket(AF_KEY)", c_af_key, EPERM },
	{ "socket(AF_ALG)", c_af_alg, EPERM },
	{ "socket(AF_VSOCK)", c_af_vsock, EPERM },
	{ "socket(AF_BLUETOOTH)", c_af_bluetooth, EPERM },
	{ "socket(AF_INET with upper bits set)", c_af_big, EPERM },
	{ "x32 keyctl", c_x32_keyctl, EPERM },
	{ "x32 mount", c_x32_mount, EPERM },
};

static const struct refused i386_calls[] = {
	{ "i386 keyctl", c_i386_keyctl, EPERM },
	{ "i386 unshare(CLONE_NEWUSER)", c_i386_unshare, EPERM },
	{ "i386 socketcall", c_i386_socketcall, ENOSYS },
};

struct allowed {
	const char *name;
	long (*fn)(void);
};

static const struct allowed allowed[] = {
	{ "socket(AF_UNIX)", p_unix },
	{ "socket(AF_INET)", p_inet },
	{ "socket(AF_INET6)", p_inet6 },
	{ "socket(AF_NETLINK)", p_netlink },
	{ "socketpair(AF_UNIX)", p_socketpair },
	{ "fork", p_fork },
	{ "clone without namespace flags", p_thread_clone },
	{ "unshare(CLONE_FILES)", p_unshare_files },
	{ "ioctl(TIOCGWINSZ) reaches the kernel", p_ioctl_other },
	{ "ptrace reaches the kernel", p_ptrace },
};

/*
 * Every family below 64 but the four allowed, and a few above, is
 * refused with EPERM (the filter groups them into blocks: a block one
 * too wide or too narrow shows here).  The first family that is not
 * refused, plus one, is the child's status; 0 when all are.
 */
static long c_families(void)
{
	static const int above[] = { 64, 65, 127, 128, 255, 1 << 16 };
	int f;
	size_t i;

	for (f = 0; f < 64; f++) {
		if (f == AF_UNIX || f == AF_INET || f == AF_INET6 ||
		    f == AF_NETLINK)
			continue;
		if (socket(f, SOCK_DGRAM, 0) >= 0 || errno != EPERM)
			_exit(f + 1);
	}
	for (i = 0; i < array_size(above); i++)
		if (socket(above[i], SOCK_DGRAM, 0) >= 0 || errno != EPERM)
			_exit(100 + (int)i);
	return 0;
}

/* The deny list, under the program @name (set as loaded). */
static void test_seccomp(const char *name)
{
	size_t i;
	int got, base;
	bool have_i386;

	for (i = 0; i < array_size(refused); i++) {
		base = in_child(false, refused[i].fn);
		got = in_child(true, refused[i].fn);
		if (!ok(got == refused[i].want, "%s: %s is refused with %s%s",
			name, refused[i].name, strerror(refused[i].want),
			base == refused[i].want ? " (also without the wall)"
						: ""))
			diag("  got %d (%s), without the wall %d", got,
			     got < 256 ? strerror(got) : "signal", base);
	}
	/* i386 entry works only with IA32 emulation in the kernel. */
	base = probe_i386();
	have_i386 = base == 0;
	for (i = 0; i < array_size(i386_calls); i++) {
		if (!have_i386) {
			ok(1, "# SKIP %s: %s: this kernel has no usable i386 "
			   "entry (int $0x80 outside the wall: signal %d, %s)",
			   name, i386_calls[i].name, base, strsignal(base));
			continue;
		}
		got = in_child(true, i386_calls[i].fn);
		is_int(got, i386_calls[i].want, "%s: %s is refused with %s",
		       name, i386_calls[i].name,
		       strerror(i386_calls[i].want));
	}
	for (i = 0; i < array_size(allowed); i++)
		is_int(in_child(true, allowed[i].fn), 0, "%s: %s still works",
		       name, allowed[i].name);
	got = in_child(true, c_families);
	if (!ok(got == 0, "%s: every other socket family is refused with "
		"EPERM", name))
		diag("  family %d was not (status %d)", got - 1, got);
}

/*
 * The stand-in on a kernel without user notification: the deny filter
 * built with refuse_unix also refuses socket(AF_UNIX); socketpair()
 * and the other families still work.
 */
static void test_no_notify(void)
{
	struct seccomp_prog d2, n2;
	char *err = NULL;

	if (seccomp_progs_build(&d2, &n2, true, &err) < 0) {
		ok(0, "seccomp programs without notification: %s", err);
		free(err);
		return;
	}
	seccomp_prog_free(&deny);
	deny = d2;
	loaded = &deny;
	is_int(in_child(true, p_unix), EPERM, "no user notification: "
	       "socket(AF_UNIX) is refused with EPERM");
	is_int(in_child(false, p_unix), 0, "... (it works without the "
	       "filter)");
	is_int(in_child(true, p_socketpair), 0, "no user notification: "
	       "socketpair(AF_UNIX) still works");
	is_int(in_child(true, p_inet), 0, "no user notification: "
	       "socket(AF_INET) still works");
	seccomp_prog_free(&n2);
}

/* ------------------------------------------------------------------ */

static char tmpl[] = "/tmp/vbox-walls-XXXXXX";
static char inside[256], outside[256], outfile[300];

static int write_file(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0)
		return errno;
	if (write(fd, "x", 1) != 1) {
		close(fd);
		return errno ? errno : EIO;
	}
	close(fd);
	return 0;
}

static void test_landlock(void)
{
	const char *paths[1];
	char path[400];
	int abi, status, sv[2], l;
	struct sockaddr_un sa;
	pid_t pid;
	unsigned char res[8];

	abi = landlock_abi();
	if (abi <= 0) {
		ok(1, "# SKIP landlock: this kernel has no Landlock "
		   "(landlock_create_ruleset failed)");
		return;
	}
	diag("landlock ABI %d", abi);
	if (!mkdtemp(tmpl))
		BUG("mkdtemp: %s", strerror(errno));
	snprintf(inside, sizeof(inside), "%s/in", tmpl);
	snprintf(outside, sizeof(outside), "%s/out", tmpl);
	snprintf(outfile, sizeof(outfile), "%s/existing", outside);
	if (mkdir(inside, 0700) < 0 || mkdir(outside, 0700) < 0 ||
	    write_file(outfile) != 0)
		BUG("setup: %s", strerror(errno));

	/* An abstract listener outside the child's domain. */
	l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1, "vbox-walls-%d",
		 (int)getpid());
	if (l < 0 || bind(l, (struct sockaddr *)&sa,
			  (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
				      1 + strlen(sa.sun_path + 1))) < 0 ||
	    listen(l, 4) < 0)
		BUG("abstract listener: %s", strerror(errno));
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		BUG("socketpair: %s", strerror(errno));

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		const char *what = "";
		int c;

		close(sv[0]);
		paths[0] = inside;
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    landlock_restrict(paths, 1, &what) <= 0)
			_exit(99);
		snprintf(path, sizeof(path), "%s/new", inside);
		res[0] = (unsigned char)write_file(path);
		snprintf(path, sizeof(path), "%s/new", outside);
		res[1] = (unsigned char)write_file(path);
		res[2] = (unsigned char)write_file(outfile);
		res[3] = (unsigned char)(mkdir(path, 0700) < 0 ? errno : 0);
		res[4] = (unsigned char)(unlink(outfile) < 0 ? errno : 0);
		c = socket(AF_UNIX, SOCK_STREAM, 0);
		res[5] = (unsigned char)(connect(c, (struct sockaddr *)&sa,
			(socklen_t)(offsetof(struct sockaddr_un, sun_path) +
				    1 + strlen(sa.sun_path + 1))) < 0 ?
			errno : 0);
		res[6] = (unsigned char)(kill(getppid(), 0) < 0 ? errno : 0);
		res[7] = (unsigned char)(open(outfile, O_RDONLY) < 0 ? errno
								     : 0);
		_exit(write(sv[1], res, sizeof(res)) == sizeof(res) ? 0 : 98);
	}
	close(sv[1]);
	memset(res, 0xff, sizeof(res));
	if (read(sv[0], res, sizeof(res)) != sizeof(res))
		diag("no result from the child");
	waitpid(pid, &status, 0);
	close(sv[0]);
	close(l);
	is_int(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0,
	       "landlock child ran (restrict succeeded)");
	is_int(res[0], 0, "landlock: a new file inside the allowed path");
	is_int(res[1], EACCES, "landlock: a new file outside is refused");
	is_int(res[2], EACCES, "landlock: rewriting a file outside is refused");
	is_int(res[3], EACCES, "landlock: mkdir outside is refused");
	is_int(res[4], EACCES, "landlock: unlink outside is refused");
	is_int(res[7], 0, "landlock: reading outside still works");
	if (abi >= 6) {
		is_int(res[5], EPERM, "landlock ABI %d: an abstract socket "
		       "outside the domain is refused", abi);
		is_int(res[6], EPERM, "landlock ABI %d: signalling a process "
		       "outside the domain is refused", abi);
	} else {
		ok(1, "# SKIP abstract/signal scope: landlock ABI %d < 6", abi);
	}
	snprintf(path, sizeof(path), "%s/new", outside);
	ok(access(path, F_OK) < 0, "landlock: host side: nothing was "
	   "created outside");
	ok(access(outfile, F_OK) == 0, "landlock: host side: the outside "
	   "file is still there");
	snprintf(path, sizeof(path), "rm -rf -- '%s'", tmpl);
	if (system(path) != 0)
		diag("cleanup of %s failed", tmpl);
}

int main(void)
{
	char *err = NULL;

	if (seccomp_progs_build(&deny, &supervised, false, &err) < 0) {
		ok(0, "seccomp programs build: %s", err);
		free(err);
		return done_testing();
	}
	ok(deny.len > 0 && supervised.len > deny.len, "seccomp programs "
	   "built (%zu and %zu bytes)", deny.len, supervised.len);
	ok(seccomp_notify_available(), "this kernel has seccomp user "
	   "notification");
	loaded = &deny;
	ok(in_child(false, c_families) != 0, "control: without a filter some "
	   "family is not refused with EPERM (the family check can fail)");
	test_seccomp("deny filter");
	/* What the launcher loads when a socket supervisor runs. */
	loaded = &supervised;
	test_seccomp("supervised filter");
	test_no_notify();
	test_landlock();
	seccomp_prog_free(&deny);
	seccomp_prog_free(&supervised);
	return done_testing();
}
