/* SPDX-License-Identifier: MIT */
/*
 * test_unixsock.c - the socket supervisor (runtime/supervisor/sockets/unixsock.c) with
 * real seccomp notifications, real mounts and real listeners.
 *
 * The test is the supervisor; a forked child makes a private mount
 * namespace in which $T/ro is read-only and $T/rw writable, loads the
 * walls, hands the listener fd back, and tries to reach the test's
 * listeners: the one in rw must work (stream connect, datagram sendto
 * and sendmsg, relative path after chdir), the one in ro never, whatever
 * the way (direct, symlink in rw, "..", /proc/self/root, relative path,
 * a symlink swapped in a loop by another thread).  Host side: the ro
 * listeners count every connection and datagram they get, and must end
 * with zero.
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/seccomp.h>

#include "loop.h"
#include "supervisor/sockets/cmsg_iter.h"
#include "walls/seccomp.h"
#include "supervisor/sockets/sockcall.h"
#include "supervisor/sockets/unixsock.h"
#include "tap.h"

#define RACE_ROUNDS 2000

static char T[] = "/tmp/vbox-unixsock-XXXXXX";
static char path_rw[256], path_ro[256], dgram_rw[256], dgram_ro[256];

struct listener {
	struct loop_watch w;
	int count;
	bool dgram;
};

static struct listener l_rw, l_ro, d_rw, d_ro;

static void on_listener(struct loop *lp, struct loop_watch *w, uint32_t ev)
{
	struct listener *l = w->ctx;
	char buf[512];
	int c;

	(void)lp;
	(void)ev;
	if (l->dgram) {
		while (recv(w->fd, buf, sizeof(buf), MSG_DONTWAIT) >= 0)
			l->count++;
		return;
	}
	while ((c = accept4(w->fd, NULL, NULL, SOCK_CLOEXEC |
			    SOCK_NONBLOCK)) >= 0) {
		l->count++;
		close(c);
	}
}

static int listen_at(struct loop *lp, struct listener *l, const char *path,
		     int type)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    (type == SOCK_STREAM && listen(fd, 4096) < 0))
		BUG("listener %s: %s", path, strerror(errno));
	chmod(path, 0777);
	l->dgram = type == SOCK_DGRAM;
	loop_watch_init(&l->w, fd, on_listener, l);
	return loop_watch_add(lp, &l->w, EPOLLIN);
}

/* ---- the decoder alone ---- */

#define MEM_BASE 0x10000u

/* The child's memory, for sockcall_decode(): @mem at MEM_BASE. */
struct fake_mem {
	unsigned char *p;
	size_t len;
};

static int fake_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct fake_mem *m = ctx;

	if (addr < MEM_BASE || addr - MEM_BASE > m->len ||
	    len > m->len - (addr - MEM_BASE))
		return EFAULT;
	memcpy(buf, m->p + (addr - MEM_BASE), len);
	return 0;
}

static int decode(int nr, const uint64_t args[6], int type, void *mem,
		  size_t len, struct sockcall *c)
{
	struct seccomp_data d;
	struct sockcall_sock sk = { AF_UNIX, type, 200000 };
	struct fake_mem m = { mem, len };

	memset(&d, 0, sizeof(d));
	d.arch = AUDIT_ARCH_X86_64;
	d.nr = nr;
	memcpy(d.args, args, sizeof(d.args));
	return sockcall_decode(&d, &sk, fake_read, &m, c);
}

static void unit_cmsg(void)
{
	unsigned char b[64];
	struct cmsg_iter it;
	struct cmsg_item c;
	uint64_t len;
	int rc, n;

	/* the review's: controllen 16, cmsg_len claiming 253 fds */
	memset(b, 0, sizeof(b));
	len = CMSG_LEN(253 * sizeof(int));
	memcpy(b, &len, sizeof(len));
	cmsg_iter_init(&it, b, 16);
	is_int(cmsg_iter_next(&it, &c), -EINVAL,
	       "cmsg: cmsg_len past msg_controllen: EINVAL");
	is_int(cmsg_iter_next(&it, &c), 0, "cmsg: the walk is then over");
	len = 8;
	memcpy(b, &len, sizeof(len));
	cmsg_iter_init(&it, b, 16);
	is_int(cmsg_iter_next(&it, &c), -EINVAL,
	       "cmsg: cmsg_len below a header: EINVAL");
	cmsg_iter_init(&it, b, 15);
	is_int(cmsg_iter_next(&it, &c), 0,
	       "cmsg: fewer bytes than a header: no message");
	/* two messages, 20 then 16 bytes; 4 trailing bytes ignored */
	memset(b, 0, sizeof(b));
	len = 20;
	memcpy(b, &len, sizeof(len));
	len = 16;
	memcpy(b + 24, &len, sizeof(len));
	cmsg_iter_init(&it, b, 44);
	n = 0;
	while ((rc = cmsg_iter_next(&it, &c)) > 0)
		n++;
	is_int(n * 10 + rc, 20, "cmsg: two aligned messages, trailing bytes "
	       "ignored");
	/* the second header's cmsg_len runs past the end */
	len = 24;
	memcpy(b + 24, &len, sizeof(len));
	cmsg_iter_init(&it, b, 44);
	n = 0;
	while ((rc = cmsg_iter_next(&it, &c)) > 0)
		n++;
	is_int(n * 10 + rc, 10 - EINVAL, "cmsg: a later header past the end: "
	       "EINVAL");
	/* the upper half of a 64-bit cmsg_len counts (musl hides it) */
	len = (1ull << 32) | 16;
	memcpy(b, &len, sizeof(len));
	cmsg_iter_init(&it, b, 16);
	is_int(cmsg_iter_next(&it, &c), -EINVAL,
	       "cmsg: cmsg_len's upper 32 bits are read");
}

static void unit_decode(void)
{
	unsigned char mem[4096];
	struct sockcall c;
	struct sockaddr_un *sun = (struct sockaddr_un *)mem;
	uint64_t args[6] = { 3, MEM_BASE, 0, 0, 0, 0 };
	uint64_t *q;
	size_t len;
	int rc;

	/* connect(): addresses of 110..128 bytes */
	memset(mem, 'A', sizeof(mem));
	sun->sun_family = AF_UNIX;
	for (len = 111; len <= 128; len++) {
		args[2] = len;
		rc = decode(__NR_connect, args, SOCK_STREAM, mem, sizeof(mem),
			    &c);
		if (rc || c.msgs[0].to.unix_kind != SOCKCALL_AS_GIVEN)
			break;
		sockcall_release(&c);
	}
	is_int((int)len, 129, "decode: AF_UNIX addresses of 111..128 bytes "
	       "are left to the kernel (its EINVAL)");
	args[2] = 129;
	is_int(decode(__NR_connect, args, SOCK_STREAM, mem, sizeof(mem), &c),
	       EINVAL, "decode: an address longer than sockaddr_storage: "
	       "EINVAL");
	args[2] = (uint32_t)-1;
	is_int(decode(__NR_connect, args, SOCK_STREAM, mem, sizeof(mem), &c),
	       EINVAL, "decode: a negative address length: EINVAL");
	args[2] = 110;
	rc = decode(__NR_connect, args, SOCK_STREAM, mem, sizeof(mem), &c);
	ok(rc == 0 && c.msgs[0].to.unix_kind == SOCKCALL_PATH &&
	   strlen(c.msgs[0].to.path) == 108,
	   "decode: a full sun_path without NUL is a 108-byte name");
	if (rc == 0)
		sockcall_release(&c);
	args[2] = 2;
	rc = decode(__NR_bind, args, SOCK_STREAM, mem, sizeof(mem), &c);
	ok(rc == 0 && c.msgs[0].to.unix_kind == SOCKCALL_AUTOBIND,
	   "decode: bind() with the family alone is an autobind");
	if (rc == 0)
		sockcall_release(&c);
	sun->sun_path[0] = '\0';
	args[2] = 10;
	rc = decode(__NR_bind, args, SOCK_STREAM, mem, sizeof(mem), &c);
	ok(rc == 0 && c.msgs[0].to.unix_kind == SOCKCALL_ABSTRACT,
	   "decode: an abstract name");
	if (rc == 0)
		sockcall_release(&c);
	args[1] = 0x1000;
	args[2] = 20;
	is_int(decode(__NR_connect, args, SOCK_STREAM, mem, sizeof(mem), &c),
	       EFAULT, "decode: an address outside the child's memory: "
	       "EFAULT");
	args[1] = MEM_BASE;

	/* sendmsg(): msghdr at 0, iovec at 64, control at 128 */
	memset(mem, 0, sizeof(mem));
	q = (uint64_t *)mem;
	q[2] = MEM_BASE + 64;	/* msg_iov */
	q[3] = 1;		/* msg_iovlen */
	q[4] = MEM_BASE + 128;	/* msg_control */
	q[5] = 16;		/* msg_controllen */
	q[8] = MEM_BASE + 256;	/* iov_base */
	q[9] = 1;		/* iov_len */
	q[16] = CMSG_LEN(253 * sizeof(int));
	q[17] = ((uint64_t)SCM_RIGHTS << 32) | SOL_SOCKET;
	args[2] = 0;
	is_int(decode(__NR_sendmsg, args, SOCK_DGRAM, mem, sizeof(mem), &c),
	       EINVAL, "decode: sendmsg() with cmsg_len past msg_controllen: "
	       "EINVAL");
	q[5] = CMSG_SPACE(254 * sizeof(int));
	q[16] = CMSG_LEN(254 * sizeof(int));
	is_int(decode(__NR_sendmsg, args, SOCK_DGRAM, mem, sizeof(mem), &c),
	       EINVAL, "decode: 254 fds: EINVAL (SCM_MAX_FD)");
	q[5] = CMSG_SPACE(2 * sizeof(int));
	q[16] = CMSG_LEN(2 * sizeof(int));
	rc = decode(__NR_sendmsg, args, SOCK_DGRAM, mem, sizeof(mem), &c);
	ok(rc == 0 && c.msgs[0].nfds == 2 && c.msgs[0].fd_off[1] == 20 &&
	   c.msgs[0].len == 1, "decode: two fds, found at their offsets");
	if (rc == 0)
		sockcall_release(&c);
	q[17] = ((uint64_t)SCM_CREDENTIALS << 32) | SOL_SOCKET;
	is_int(decode(__NR_sendmsg, args, SOCK_DGRAM, mem, sizeof(mem), &c),
	       EOPNOTSUPP, "decode: SCM_CREDENTIALS: EOPNOTSUPP");
	q[5] = 0;
	q[3] = 1025;
	is_int(decode(__NR_sendmsg, args, SOCK_DGRAM, mem, sizeof(mem), &c),
	       EMSGSIZE, "decode: more than UIO_MAXIOV iovecs: EMSGSIZE");
	q[3] = 1;
	q[9] = 3u << 20;	/* 3 MiB, past the memory: a stream reads 1 MiB */
	rc = decode(__NR_sendmsg, args, SOCK_STREAM, mem, sizeof(mem), &c);
	is_int(rc, EFAULT, "decode: a stream send reads at most 1 MiB "
	       "(which is past this memory: EFAULT)");
	is_int(decode(__NR_sendmsg, args, SOCK_DGRAM, mem, sizeof(mem), &c),
	       EMSGSIZE, "decode: a 3 MiB datagram: EMSGSIZE");

	/* sendmmsg(): three messages of 1, 2, 3 bytes */
	memset(mem, 0, sizeof(mem));
	q = (uint64_t *)mem;
	for (len = 0; len < 3; len++) {
		q[len * 8 + 2] = MEM_BASE + 1024 + len * 16;
		q[len * 8 + 3] = 1;
		q[(1024 + len * 16) / 8] = MEM_BASE + 2048;
		q[(1024 + len * 16) / 8 + 1] = len + 1;
	}
	args[2] = 3;
	rc = decode(__NR_sendmmsg, args, SOCK_DGRAM, mem, sizeof(mem), &c);
	ok(rc == 0 && c.mmsg && c.nmsgs == 3 && c.msgs[2].len == 3 &&
	   c.msgs[1].len_at == MEM_BASE + 64 + 56,
	   "decode: sendmmsg() of three messages, each msg_len's place");
	if (rc == 0)
		sockcall_release(&c);
	args[2] = 5;	/* the fourth's iovec is outside the memory */
	q[3 * 8 + 2] = 0x1000;
	q[3 * 8 + 3] = 1;
	rc = decode(__NR_sendmmsg, args, SOCK_DGRAM, mem, sizeof(mem), &c);
	ok(rc == 0 && c.nmsgs == 3, "decode: sendmmsg() stops before a "
	   "message it cannot read, once one was read");
	if (rc == 0)
		sockcall_release(&c);
}

/* ---- the child ---- */

static int conn(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), rc;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	rc = rc < 0 ? errno : 0;
	close(fd);
	return rc;
}

/* Loopback TCP ports: one listening (never accepting), one closed. */
static uint16_t tcp_open_port, tcp_closed_port;

/*
 * A blocking TCP connect: the supervisor makes it non-blocking for its
 * loop and answers when the connection is made or refused.
 */
static int tcp_conn(uint16_t port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(port),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), rc;

	rc = connect(fd, (struct sockaddr *)&sin, sizeof(sin));
	rc = rc < 0 ? errno : 0;
	close(fd);
	return rc;
}

static uint16_t tcp_port(int fd)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);

	if (getsockname(fd, (struct sockaddr *)&sin, &len) < 0)
		BUG("getsockname: %s", strerror(errno));
	return ntohs(sin.sin_port);
}

static int dgram_to(const char *path, bool use_sendmsg)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct msghdr m = { 0 };
	struct iovec iov = { (void *)"hi", 2 };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ssize_t n;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (use_sendmsg) {
		m.msg_name = &sa;
		m.msg_namelen = sizeof(sa);
		m.msg_iov = &iov;
		m.msg_iovlen = 1;
		n = sendmsg(fd, &m, 0);
	} else {
		n = sendto(fd, "hi", 2, 0, (struct sockaddr *)&sa, sizeof(sa));
	}
	n = n < 0 ? errno : (n == 2 ? 0 : EIO);
	close(fd);
	return (int)n;
}

static volatile int race_stop;

static void *swapper(void *arg)
{
	char link[300], tmp[300];

	(void)arg;
	snprintf(link, sizeof(link), "%s/rw/swap", T);
	snprintf(tmp, sizeof(tmp), "%s/rw/swap.tmp", T);
	while (!race_stop) {
		unlink(tmp);
		if (symlink(path_ro, tmp) == 0)
			rename(tmp, link);
		unlink(tmp);
		if (symlink(path_rw, tmp) == 0)
			rename(tmp, link);
	}
	return NULL;
}

static __noreturn void child(int sock, int out,
			     struct seccomp_prog *supervised)
{
	char ro[300], p[300];
	int listener = -1, i, r[20], sv[2];
	pthread_t th;
	size_t k = 0;
	int race_bad = 0, race_ok = 0;

	snprintf(ro, sizeof(ro), "%s/ro", T);
	if (unshare(CLONE_NEWNS) < 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount(ro, ro, NULL, MS_BIND, NULL) < 0 ||
	    mount(NULL, ro, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) < 0)
		_exit(91);
	/* No capabilities, as in the sandbox (--cap-drop ALL). */
	{
		struct __user_cap_header_struct h = {
			_LINUX_CAPABILITY_VERSION_3, 0 };
		struct __user_cap_data_struct d[2];

		memset(d, 0, sizeof(d));
		if (syscall(SYS_capset, &h, d) < 0)
			_exit(97);
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		_exit(92);
	/* The launcher's one filter; the supervisor takes its listener
	 * with pidfd_getfd() (a sendmsg() would wait for the supervisor
	 * that does not have it yet). */
	{
		int dupfd;

		if (seccomp_prog_load(supervised->insns, supervised->len,
				      &listener) < 0)
			_exit(93);
		dupfd = listener;
		if (write(sock, &dupfd, sizeof(dupfd)) != sizeof(dupfd))
			_exit(94);
	}
	r[k++] = conn(path_rw);
	r[k++] = conn(path_ro);
	snprintf(p, sizeof(p), "%s/rw/link", T);
	r[k++] = conn(p);
	snprintf(p, sizeof(p), "%s/rw/../ro/s", T);
	r[k++] = conn(p);
	snprintf(p, sizeof(p), "/proc/self/root%s", path_ro);
	r[k++] = conn(p);
	if (chdir(ro) < 0)
		_exit(95);
	r[k++] = conn("s");
	snprintf(p, sizeof(p), "%s/rw", T);
	if (chdir(p) < 0)
		_exit(95);
	r[k++] = conn("s");
	r[k++] = conn("../ro/s");
	r[k++] = dgram_to(dgram_rw, false);
	r[k++] = dgram_to(dgram_ro, false);
	r[k++] = dgram_to(dgram_rw, true);
	r[k++] = dgram_to(dgram_ro, true);
	r[k++] = socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0 ? errno : 0;
	r[k++] = tcp_conn(tcp_open_port);
	r[k++] = tcp_conn(tcp_closed_port);
	/* the race: a symlink flipped between rw and ro */
	pthread_create(&th, NULL, swapper, NULL);
	snprintf(p, sizeof(p), "%s/rw/swap", T);
	for (i = 0; i < RACE_ROUNDS; i++) {
		int rc = conn(p);

		if (rc == 0)
			race_ok++;
		else if (rc != EACCES && rc != ENOENT)
			race_bad++;
	}
	race_stop = 1;
	pthread_join(th, NULL);
	r[k++] = race_bad;
	r[k++] = race_ok > 0 ? 0 : 1;
	if (write(out, r, k * sizeof(int)) != (ssize_t)(k * sizeof(int)))
		_exit(96);
	_exit(0);
}

/* ---- the supervisor ---- */

struct results {
	struct loop_watch w;
	int r[20];
	size_t have;
};

static void on_results(struct loop *lp, struct loop_watch *w, uint32_t ev)
{
	struct results *res = w->ctx;
	ssize_t n;

	(void)ev;
	n = read(w->fd, (char *)res->r + res->have,
		 sizeof(res->r) - res->have);
	if (n > 0) {
		res->have += (size_t)n;
		return;
	}
	loop_watch_remove(lp, w);
	loop_stop(lp);
}

int main(void)
{
	struct seccomp_prog deny, supervised;
	struct unixsock_config cfg = { false, false, 0, -1 };
	struct results res = { .have = 0 };
	struct loop lp;
	struct unixsock *us;
	char *err = NULL, p[300];
	int sk[2], pp[2], remote_fd, listener, pidfd, status;
	pid_t pid;

	unit_cmsg();
	unit_decode();
	if (geteuid() != 0) {
		diag("the supervisor's run needs root for a private mount "
		     "namespace (the launcher tests cover other uids)");
		return done_testing();
	}
	if (seccomp_progs_build(&deny, &supervised, false, &err) < 0)
		BUG("%s", err);
	if (!mkdtemp(T))
		BUG("mkdtemp: %s", strerror(errno));
	chmod(T, 0755);
	snprintf(p, sizeof(p), "%s/rw", T);
	mkdir(p, 0777);
	snprintf(p, sizeof(p), "%s/ro", T);
	mkdir(p, 0777);
	snprintf(path_rw, sizeof(path_rw), "%s/rw/s", T);
	snprintf(path_ro, sizeof(path_ro), "%s/ro/s", T);
	snprintf(dgram_rw, sizeof(dgram_rw), "%s/rw/d", T);
	snprintf(dgram_ro, sizeof(dgram_ro), "%s/ro/d", T);
	snprintf(p, sizeof(p), "%s/rw/link", T);
	if (symlink(path_ro, p) < 0)
		BUG("symlink: %s", strerror(errno));

	if (loop_init(&lp) < 0)
		BUG("loop_init");
	listen_at(&lp, &l_rw, path_rw, SOCK_STREAM);
	listen_at(&lp, &l_ro, path_ro, SOCK_STREAM);
	listen_at(&lp, &d_rw, dgram_rw, SOCK_DGRAM);
	listen_at(&lp, &d_ro, dgram_ro, SOCK_DGRAM);

	{
		struct sockaddr_in sin = {
			.sin_family = AF_INET,
			.sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		int t1 = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		int t2 = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (t1 < 0 || t2 < 0 ||
		    bind(t1, (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
		    listen(t1, 8) < 0 ||
		    bind(t2, (struct sockaddr *)&sin, sizeof(sin)) < 0)
			BUG("tcp: %s", strerror(errno));
		tcp_open_port = tcp_port(t1);
		/* bound, never listening: a connect there is refused */
		tcp_closed_port = tcp_port(t2);
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sk) < 0 ||
	    pipe2(pp, O_CLOEXEC) < 0)
		BUG("socketpair: %s", strerror(errno));
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(sk[0]);
		close(pp[0]);
		child(sk[1], pp[1], &supervised);
	}
	close(sk[1]);
	close(pp[1]);
	/* The child wrote its listener's fd number; take the fd. */
	if (read(sk[0], &remote_fd, sizeof(remote_fd)) != sizeof(remote_fd)) {
		ok(0, "the child loaded the walls");
		waitpid(pid, &status, 0);
		diag("child status %d", WEXITSTATUS(status));
		return done_testing();
	}
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	listener = (int)syscall(SYS_pidfd_getfd, pidfd, remote_fd, 0);
	ok(listener >= 0, "the child loaded the walls; listener taken");
	/* The child stands for the sandbox's init: its root is the root. */
	cfg.init_pid = pid;
	cfg.init_pidfd = pidfd;
	us = unixsock_alloc(&lp, listener, &cfg, &err);
	if (!us)
		BUG("%s", err);
	loop_watch_init(&res.w, pp[0], on_results, &res);
	loop_watch_add(&lp, &res.w, EPOLLIN);
	loop_run(&lp);
	waitpid(pid, &status, 0);
	/* let the last datagrams arrive */
	on_listener(&lp, &d_rw.w, EPOLLIN);
	on_listener(&lp, &d_ro.w, EPOLLIN);
	on_listener(&lp, &l_ro.w, EPOLLIN);
	is_int(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0,
	       "the child ran to the end");
	is_int(res.have, 17 * sizeof(int), "all results came back");
	is_int(res.r[0], 0, "connect to a socket in the writable region");
	is_int(res.r[1], EACCES, "connect to a socket on a read-only mount: "
	       "EACCES");
	is_int(res.r[2], EACCES, "... through a symlink in the writable "
	       "region: EACCES");
	is_int(res.r[3], EACCES, "... through '..': EACCES");
	is_int(res.r[4], EACCES, "... through /proc/self/root: EACCES");
	is_int(res.r[5], EACCES, "... by a relative path after chdir: EACCES");
	is_int(res.r[6], 0, "relative path in the writable region works");
	is_int(res.r[7], EACCES, "relative '../ro/s' from the writable "
	       "region: EACCES");
	is_int(res.r[8], 0, "datagram sendto() into the writable region");
	is_int(res.r[9], EACCES, "datagram sendto() to a read-only mount: "
	       "EACCES");
	is_int(res.r[10], 0, "datagram sendmsg() into the writable region");
	is_int(res.r[11], EACCES, "datagram sendmsg() to a read-only mount: "
	       "EACCES");
	is_int(res.r[12], 0, "socketpair() works");
	is_int(res.r[13], 0, "a blocking TCP connect on loopback is made");
	is_int(res.r[14], ECONNREFUSED, "a blocking TCP connect to a closed "
	       "port: ECONNREFUSED");
	is_int(res.r[15], 0, "swapped symlink race: every connect either "
	       "worked or was refused");
	is_int(res.r[16], 0, "swapped symlink race: some connects reached "
	       "the writable one");
	is_int(l_ro.count, 0, "host side: the read-only listener never got "
	       "a connection");
	is_int(d_ro.count, 0, "host side: the read-only datagram socket "
	       "never got a datagram");
	ok(l_rw.count >= 3, "host side: the writable listener got the "
	   "allowed connections (%d)", l_rw.count);
	is_int(d_rw.count, 2, "host side: the writable datagram socket got "
	       "both datagrams");
	diag("supervisor: %lu handled, %lu refused, %lu gone",
	     unixsock_stats(us)->handled, unixsock_stats(us)->refused,
	     unixsock_stats(us)->gone);
	unixsock_free(us);
	close(pidfd);
	loop_release(&lp);
	snprintf(p, sizeof(p), "rm -rf -- '%s'", T);
	if (system(p) != 0)
		diag("cleanup failed");
	seccomp_prog_free(&deny);
	seccomp_prog_free(&supervised);
	return done_testing();
}
