/* SPDX-License-Identifier: MIT */
/*
 * sup_attack.c - the sandboxed side of tests/launch/exec_supervisor_attacks.sh:
 * malformed socket calls aimed at the socket supervisor (runtime/walls/
 * unixsock.c) and controls that must still work.  Prints one line
 * "NAME RESULT" per step, RESULT "ok", a count, or the errno's name;
 * the shell test judges them and, from the host side, what was reached.
 *
 *   sup_attack deny DIR P108  the attacks of a net-deny sandbox; DIR is
 *                          writable and holds the host's sockets, P108
 *                          a host socket's 108-byte name
 *   sup_attack flood DIR   1100 threads in a blocking connect() to a
 *                          listener that never accepts (the supervisor's
 *                          bound on calls waiting: "flood-enobufs N")
 *   sup_attack bind108 DIR  bind() of a 108-byte relative name without a
 *                          NUL, in DIR
 *   sup_attack traced-exec DIR  an exec by a child a debugger traces
 *                          (PTRACE_TRACEME), and one by an untraced one
 *   sup_attack open DIR TAG  net open: bind() of an abstract name (made
 *                          unique by TAG) and of a path in DIR, kept
 *                          until DIR/done appears
 *   sup_attack slow-exit DIR TAG MIB  a process slow to die: a child
 *                          appends a tick to DIR/tick-TAG every 0.1 s,
 *                          the process fills MIB MiB of memory (which
 *                          its exit must free before the child is
 *                          orphaned), writes DIR/ready-TAG and waits
 * Exits 7 at the end, so the launcher's status is seen to be the child's.
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define END_STATUS 7

static void say(const char *name, long rc)
{
	const char *e;

	if (rc >= 0) {
		printf("%s ok\n", name);
	} else {
		switch (errno) {
		case EINVAL: e = "EINVAL"; break;
		case EACCES: e = "EACCES"; break;
		case ENOENT: e = "ENOENT"; break;
		case EMSGSIZE: e = "EMSGSIZE"; break;
		case ECONNREFUSED: e = "ECONNREFUSED"; break;
		case EOPNOTSUPP: e = "EOPNOTSUPP"; break;
		case EPERM: e = "EPERM"; break;
		case EFAULT: e = "EFAULT"; break;
		case EBADF: e = "EBADF"; break;
		case ENOBUFS: e = "ENOBUFS"; break;
		case EADDRINUSE: e = "EADDRINUSE"; break;
		case ETOOMANYREFS: e = "ETOOMANYREFS"; break;
		default: e = strerror(errno); break;
		}
		printf("%s %s\n", name, e);
	}
	fflush(stdout);
}

/* connect() with an AF_UNIX address of @len bytes, its tail chosen. */
static void long_addr(unsigned len)
{
	unsigned char a[256];
	char name[32];
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	unsigned i;
	long rc;

	memset(a, 'A', sizeof(a));
	a[0] = AF_UNIX;
	a[1] = 0;
	/* what the review's exploit put over the saved registers */
	for (i = len >= 8 ? len - 8 : 2; i < len; i++)
		a[i] = (unsigned char)(0x13 + 0x24 * i);
	rc = syscall(SYS_connect, fd, a, len);
	snprintf(name, sizeof(name), "longaddr-%u", len);
	say(name, rc);
	close(fd);
}

/* A 108-byte sun_path without NUL (address of 110 bytes). */
static void path108(const char *path)
{
	struct sockaddr_un sa;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (strlen(path) != sizeof(sa.sun_path)) {
		printf("path108 bad-length %zu\n", strlen(path));
		return;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, path, sizeof(sa.sun_path));
	say("path108", connect(fd, (struct sockaddr *)&sa, sizeof(sa)));
	close(fd);
}

/*
 * bind() of a relative name of exactly 108 bytes, without a NUL: legal
 * for the kernel (an address of sizeof(struct sockaddr_un)), made in
 * @dir.
 */
static void bind108(const char *dir)
{
	struct sockaddr_un sa;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (chdir(dir) < 0) {
		say("bind108-chdir", -1);
		return;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memset(sa.sun_path, 'b', sizeof(sa.sun_path));
	say("bind108", bind(fd, (struct sockaddr *)&sa, sizeof(sa)));
	close(fd);
}

/* sendmsg() on a socketpair with the control data in @ctl. */
static long send_ctl(int s, void *ctl, size_t len)
{
	struct iovec iov = { (void *)"x", 1 };
	struct msghdr m;

	memset(&m, 0, sizeof(m));
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = ctl;
	m.msg_controllen = len;
	return sendmsg(s, &m, MSG_DONTWAIT);
}

static void cmsg_attacks(void)
{
	union {
		struct cmsghdr h;
		unsigned char b[CMSG_SPACE(254 * sizeof(int))];
	} u;
	struct cmsghdr *c = &u.h;
	struct ucred cr = { getpid(), getuid(), getgid() };
	char buf[8];
	int sv[2], i, *fds, got = -1;
	struct msghdr m;
	struct iovec iov = { buf, sizeof(buf) };

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) < 0) {
		say("socketpair", -1);
		return;
	}
	/* The review's: msg_controllen 16, cmsg_len claiming 253 fds. */
	memset(&u, 0, sizeof(u));
	c->cmsg_len = CMSG_LEN(253 * sizeof(int));
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	say("cmsg-len-past-control", send_ctl(sv[0], &u, 16));
	/* 254 fds, well formed: more than SCM_MAX_FD. */
	fds = (int *)CMSG_DATA(c);
	c->cmsg_len = CMSG_LEN(254 * sizeof(int));
	for (i = 0; i < 254; i++)
		fds[i] = 0;
	say("cmsg-254-fds", send_ctl(sv[0], &u, CMSG_SPACE(254 * sizeof(int))));
	/* cmsg_len below a header */
	c->cmsg_len = 4;
	say("cmsg-len-short", send_ctl(sv[0], &u, CMSG_SPACE(sizeof(int))));
	/* SCM_CREDENTIALS: the supervisor's are not the child's */
	memset(&u, 0, sizeof(u));
	c->cmsg_len = CMSG_LEN(sizeof(cr));
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_CREDENTIALS;
	memcpy(CMSG_DATA(c), &cr, sizeof(cr));
	say("cmsg-credentials", send_ctl(sv[0], &u, CMSG_SPACE(sizeof(cr))));
	/* control: one fd passed, received on the other end */
	memset(&u, 0, sizeof(u));
	c->cmsg_len = CMSG_LEN(sizeof(int));
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	i = STDOUT_FILENO;
	memcpy(CMSG_DATA(c), &i, sizeof(i));
	say("cmsg-one-fd", send_ctl(sv[0], &u, CMSG_SPACE(sizeof(int))));
	memset(&m, 0, sizeof(m));
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = &u;
	m.msg_controllen = sizeof(u);
	memset(&u, 0, sizeof(u));
	if (recvmsg(sv[1], &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) == 1 &&
	    (c = CMSG_FIRSTHDR(&m)) && c->cmsg_type == SCM_RIGHTS)
		memcpy(&got, CMSG_DATA(c), sizeof(got));
	printf("cmsg-one-fd-received %s\n", got >= 0 &&
	       fcntl(got, F_GETFD) >= 0 ? "ok" : "no");
	close(sv[0]);
	close(sv[1]);
}

static void mmsg(void)
{
	struct mmsghdr v[5];
	struct iovec iov[5];
	char data[5][8], buf[16];
	int sv[2], i, n, lens_ok = 1, recv_ok = 1;
	ssize_t r;

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) < 0) {
		say("socketpair", -1);
		return;
	}
	memset(v, 0, sizeof(v));
	for (i = 0; i < 5; i++) {
		snprintf(data[i], sizeof(data[i]), "msg%d", i);
		iov[i].iov_base = data[i];
		iov[i].iov_len = (size_t)i + 1;
		v[i].msg_hdr.msg_iov = &iov[i];
		v[i].msg_hdr.msg_iovlen = 1;
		v[i].msg_len = 999;
	}
	n = sendmmsg(sv[0], v, 5, MSG_DONTWAIT);
	for (i = 0; i < 5; i++)
		if (v[i].msg_len != (unsigned)i + 1)
			lens_ok = 0;
	for (i = 0; i < 5; i++) {
		r = recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT);
		if (r != i + 1 || memcmp(buf, data[i], (size_t)r) != 0)
			recv_ok = 0;
	}
	printf("sendmmsg-count %d\nsendmmsg-lens %s\nsendmmsg-received %s\n",
	       n, lens_ok ? "ok" : "bad", recv_ok ? "ok" : "bad");
	close(sv[0]);
	close(sv[1]);
}

static void big(void)
{
	size_t len = 3u << 20;
	char *b = calloc(1, len);
	struct iovec iov = { b, len };
	struct msghdr m;
	int sv[2], sb = 4 << 20;
	ssize_t n;

	memset(&m, 0, sizeof(m));
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	if (!b || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return;
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sb, sizeof(sb));
	n = sendmsg(sv[0], &m, MSG_DONTWAIT);
	if (n < 0)
		say("stream-3MiB", n);
	else
		printf("stream-3MiB %s\n", n > 0 && (size_t)n < len ? "short" :
		       "whole");
	close(sv[0]);
	close(sv[1]);
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) < 0)
		return;
	say("dgram-3MiB", sendmsg(sv[0], &m, MSG_DONTWAIT));
	close(sv[0]);
	close(sv[1]);
	free(b);
}

/* Connect to the host's peer-credential server and print our pid. */
static void peer(const char *dir)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	char line[64];
	ssize_t n;

	if (snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/peer.sock", dir) >=
	    (int)sizeof(sa.sun_path))
		return;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		say("peer-connect", -1);
		return;
	}
	n = read(fd, line, sizeof(line) - 1);
	if (n > 0) {
		line[n] = '\0';
		line[strcspn(line, "\n")] = '\0';
		printf("peer-seen %s\n", line);
	}
	close(fd);
}

static void open_binds(const char *dir, const char *tag)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char done[256];
	int a = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int p = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int q = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int i, fd, n;
	socklen_t sl = sizeof(sa);

	/* an X11-like name (made unique by @tag), squatted */
	n = snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1,
		     "/tmp/.X11-unix/X0-%s", tag);
	if (n < 0 || (size_t)n >= sizeof(sa.sun_path) - 1)
		return;
	say("bind-abstract", bind(a, (struct sockaddr *)&sa,
				  (socklen_t)(offsetof(struct sockaddr_un,
						       sun_path) + 1 + (size_t)n)));
	(void)listen(a, 4);
	/* autobind: a name the kernel picks */
	say("bind-autobind", bind(q, (struct sockaddr *)&sa,
				  sizeof(sa_family_t)));
	printf("autobind-abstract %s\n", getsockname(q, (struct sockaddr *)&sa,
		&sl) == 0 && sa.sun_path[0] == '\0' && sl > 2 ? "ok" : "no");
	/* a pathname in the writable directory, umask 077 */
	umask(077);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/bound.sock", dir) >=
	    (int)sizeof(sa.sun_path))
		return;
	say("bind-path", bind(p, (struct sockaddr *)&sa, sizeof(sa)));
	say("bind-path-again", bind(q, (struct sockaddr *)&sa, sizeof(sa)));
	say("listen-path", listen(p, 4));
	if (snprintf(done, sizeof(done), "%s/ready", dir) < (int)sizeof(done)) {
		fd = open(done, O_CREAT | O_WRONLY | O_CLOEXEC, 0666);
		if (fd >= 0)
			close(fd);
	}
	fflush(stdout);
	/* serve the host's connection to the path, then wait for it */
	fd = accept(p, NULL, NULL);
	if (fd >= 0) {
		(void)!write(fd, "hello\n", 6);
		close(fd);
	}
	snprintf(done, sizeof(done), "%s/done", dir);
	for (i = 0; i < 600 && access(done, F_OK) < 0; i++)
		usleep(50000);
}

/*
 * More threads than the supervisor keeps calls waiting for, each in a
 * blocking connect() to a listener that never accepts (backlog full):
 * past the bound the calls fail with ENOBUFS, and vbox-exec lives on.
 * Prints "flood-enobufs N".
 */
#define FLOOD_THREADS 1100
static atomic_int flood_enobufs;
static const char *flood_path;

static void *flood_one(void *arg)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	(void)arg;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", flood_path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 &&
	    errno == ENOBUFS)
		atomic_fetch_add(&flood_enobufs, 1);
	return NULL;
}

static void flood(const char *dir)
{
	static char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	pthread_attr_t attr;
	pthread_t t;
	int l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), i;

	if (snprintf(path, sizeof(path), "%s/flood.sock", dir) >=
	    (int)sizeof(path))
		return;
	flood_path = path;
	memcpy(sa.sun_path, path, sizeof(path));
	(void)unlink(path);
	if (bind(l, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(l, 0) < 0) {
		say("flood-listen", -1);
		return;
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 << 10);
	for (i = 0; i < FLOOD_THREADS; i++)
		if (pthread_create(&t, &attr, flood_one, NULL) != 0)
			break;
	/* the calls past the bound fail at once; the others wait on */
	for (i = 0; i < 600 && atomic_load(&flood_enobufs) == 0; i++)
		usleep(50000);
	usleep(200000);
	printf("flood-enobufs %d\n", atomic_load(&flood_enobufs));
	fflush(stdout);
}

/*
 * A child that a debugger of the sandbox traces (PTRACE_TRACEME, as gdb
 * and strace start a program) execs /bin/true: under supervised rows the
 * exec cannot be watched, so it is refused.  Prints "traced-exec RESULT"
 * (ok: the exec ran) and, for the control, "untraced-exec RESULT".
 */
static void traced_exec(void)
{
	int status, traced;
	pid_t pid;

	for (traced = 1; traced >= 0; traced--) {
		pid = fork();
		if (pid == 0) {
			if (traced && (ptrace(PTRACE_TRACEME, 0, 0, 0) < 0 ||
				       raise(SIGSTOP) != 0))
				_exit(3);
			execl("/bin/true", "true", (char *)NULL);
			_exit(errno == EPERM ? 4 : 5);
		}
		if (pid < 0)
			return;
		while (waitpid(pid, &status, 0) == pid && WIFSTOPPED(status))
			ptrace(PTRACE_CONT, pid, 0,
			       (void *)(long)(WSTOPSIG(status) == SIGSTOP ||
					      WSTOPSIG(status) == SIGTRAP ? 0 :
					      WSTOPSIG(status)));
		printf("%s %s\n", traced ? "traced-exec" : "untraced-exec",
		       WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "ok" :
		       WIFEXITED(status) && WEXITSTATUS(status) == 4 ? "EPERM" :
		       "other");
		fflush(stdout);
	}
}

/* open() of @dir/@name with @flags (files made 0644); -1 on error. */
static int open_in(const char *dir, const char *name, int flags)
{
	char path[4096];

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return open(path, flags | O_CLOEXEC, 0644);
}

/*
 * A process whose exit takes a while (it must free @mib MiB of pages one
 * by one) and whose child writes DIR/tick-TAG until it is killed: the
 * child is orphaned only once that exit is done, so a guard that gave up
 * before it would leave the child running.
 */
static void slow_exit(const char *dir, const char *tag, const char *mib)
{
	char name[256], text[64];
	struct timespec now, tenth = { 0, 100000000L };
	size_t len = (size_t)strtoul(mib, NULL, 10) << 20;
	char *mem;
	pid_t pid;
	int fd;

	if (snprintf(name, sizeof(name), "tick-%s", tag) >= (int)sizeof(name))
		_exit(2);
	pid = fork();
	if (pid < 0)
		_exit(2);
	if (pid == 0) {
		/* appended, so a kill between two steps of a write never
		 * leaves the file as if nothing was written */
		fd = open_in(dir, name, O_WRONLY | O_CREAT | O_APPEND);
		if (fd < 0)
			_exit(2);
		for (;;) {
			int n;

			clock_gettime(CLOCK_REALTIME, &now);
			n = snprintf(text, sizeof(text), "%lld.%09ld\n",
				     (long long)now.tv_sec, now.tv_nsec);
			if (write(fd, text, (size_t)n) != n)
				_exit(2);
			nanosleep(&tenth, NULL);
		}
	}
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("slow-exit: mmap");
		_exit(2);
	}
	/* small pages: a huge page is freed at once */
	madvise(mem, len, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < len; i += 4096)
		mem[i] = 1;
	snprintf(name, sizeof(name), "ready-%s", tag);
	fd = open_in(dir, name, O_WRONLY | O_CREAT);
	if (fd < 0)
		_exit(2);
	close(fd);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	unsigned len;

	if (argc < 3)
		return 2;
	if (strcmp(argv[1], "deny") == 0) {
		for (len = 110; len <= 128; len++)
			long_addr(len);
		long_addr(129);
		long_addr(0);
		if (argc > 3)
			path108(argv[3]);
		cmsg_attacks();
		mmsg();
		big();
		peer(argv[2]);
	} else if (strcmp(argv[1], "flood") == 0) {
		flood(argv[2]);
		_exit(END_STATUS);	/* the waiting threads with it */
	} else if (strcmp(argv[1], "bind108") == 0) {
		bind108(argv[2]);
	} else if (strcmp(argv[1], "traced-exec") == 0) {
		traced_exec();
	} else if (strcmp(argv[1], "open") == 0) {
		open_binds(argv[2], argc > 3 ? argv[3] : "x");
	} else if (strcmp(argv[1], "slow-exit") == 0 && argc > 4) {
		slow_exit(argv[2], argv[3], argv[4]);
	}
	printf("end\n");
	fflush(stdout);
	return END_STATUS;
}
