/* SPDX-License-Identifier: MIT */
/*
 * launch_linux.c - run the command under bubblewrap (launch.h).
 *
 * vbox-exec starts bubblewrap as
 *
 *   bwrap --args 4 --json-status-fd 5 -- /proc/self/fd/3 --internal-shim
 *         --status-fd=6 [--pwd=DIR|--unset-pwd] -- COMMAND [ARG...]
 *
 * with the environment the child gets (env.h), and these fds:
 *   3  vbox-exec's own binary, so the shim runs even where the policy
 *      hides its path (the exec goes through /proc/self/fd/3);
 *   4  a sealed memfd with the instantiated argument list (instantiate.h);
 *   5  bubblewrap's JSON status: the host pid of the sandbox's init, from
 *      which the launcher learns the sandbox's PID namespace;
 *   6  one end of a socket pair: right before the command is exec'd it
 *      sends one byte, and SCM_CREDENTIALS give the launcher the
 *      command's host pid.  No byte means the command never started:
 *      whatever bubblewrap's status, vbox-exec exits 125.
 * The shim (shim.c) is the sandbox's PID 1; it closes every fd above 2
 * before the command runs.
 *
 * Signals are forwarded to the command through a pidfd.  The timeout
 * sends SIGTERM to every process of the sandbox's PID namespace, then
 * SIGKILL to its init, which the kernel turns into SIGKILL for all of
 * them; in every case the launcher waits until the init is gone, so
 * nothing of the tree survives vbox-exec.
 */
#include <vbox.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "env.h"
#include "instantiate.h"
#include "strbuf.h"
#include "launch.h"
#include "plan.h"
#include "process.h"

#ifndef BWRAP_PATH
#define BWRAP_PATH "/usr/bin/bwrap"
#endif

/* The runner's fds, in proc_spawn order (fd 3 + index). */
enum {
	FD_SELF,
	FD_ARGS,
	FD_JSON,
	FD_STATUS,
	NFDS,
};

/* bwrap's JSON status lines are short; the first one holds the pid. */
#define JSON_MAX 4096
/* The /proc scan of the timeout looks at no more entries than this. */
#define PROC_SCAN_MAX (1L << 22)

int launch_platform(void)
{
	return PLAN_TARGET_LINUX;
}

/* ------------------------------------------------------------------ */
/* pidfds (Linux 5.3); without them, plain pids, checked by namespace */

static int pidfd_open_(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

static int signal_pid(int pidfd, pid_t pid, int sig)
{
#ifdef SYS_pidfd_send_signal
	if (pidfd >= 0)
		return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
#else
	(void)pidfd;
#endif
	return kill(pid, sig);
}

/* The PID namespace @pid lives in, as the inode of its ns link. */
static int pid_ns_of(pid_t pid, dev_t *dev, ino_t *ino)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)pid);
	if (stat(path, &st) < 0)
		return -1;
	*dev = st.st_dev;
	*ino = st.st_ino;
	return 0;
}

/* The parent of @pid from /proc/PID/stat, or -1. */
static pid_t parent_of(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	long ppid;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* "PID (COMM) STATE PPID ...": COMM may hold anything but ends at
	 * the last ')'. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %ld", &ppid) != 1)
		return -1;
	return (pid_t)ppid;
}

/* ------------------------------------------------------------------ */
/* the sandboxed tree, as the supervisor sees it */

/**
 * struct tree - what the launcher knows about the running sandbox
 * @runner: bubblewrap's pid
 * @json_fd, @status_fd: read ends of fds 5 and 6, -1 once closed
 * @json, @json_len: bubblewrap's status output so far
 * @init_pid, @init_pidfd: the sandbox's init (0 and -1 until known)
 * @ns_dev, @ns_ino, @have_ns: its PID namespace
 * @cmd_pid, @cmd_pidfd: the command (0 and -1 until the shim reported)
 * @started: the shim reported: the command is about to be exec'd
 * @t_spawn, @t_started: clock readings for --log
 */
struct tree {
	pid_t runner;
	int json_fd;
	int status_fd;
	char json[JSON_MAX + 1];
	size_t json_len;
	pid_t init_pid;
	int init_pidfd;
	dev_t ns_dev;
	ino_t ns_ino;
	bool have_ns;
	pid_t cmd_pid;
	int cmd_pidfd;
	bool started;
	double t_spawn;
	double t_started;
};

static bool in_sandbox_ns(const struct tree *t, pid_t pid)
{
	dev_t dev;
	ino_t ino;

	if (!t->have_ns)
		return false;
	return pid_ns_of(pid, &dev, &ino) == 0 && dev == t->ns_dev &&
	       ino == t->ns_ino;
}

/*
 * bwrap reported the host pid of its child, the sandbox's init.  Trust
 * it only while that process is bubblewrap's child: the pidfd then pins
 * the right process.
 */
static void adopt_init(struct tree *t, long pid)
{
	int fd;

	if (pid <= 1 || pid > INT32_MAX || t->init_pid)
		return;
	fd = pidfd_open_((pid_t)pid);
	if (parent_of((pid_t)pid) != t->runner) {
		if (fd >= 0)
			close(fd);
		return;
	}
	t->init_pid = (pid_t)pid;
	t->init_pidfd = fd;
	t->have_ns = pid_ns_of(t->init_pid, &t->ns_dev, &t->ns_ino) == 0;
	vx_log("sandbox init is host pid %d", (int)pid);
}

static bool read_json(struct tree *t)
{
	char scratch[512];
	ssize_t n;

	for (;;) {
		if (t->json_len < JSON_MAX)
			n = read(t->json_fd, t->json + t->json_len,
				 JSON_MAX - t->json_len);
		else
			n = read(t->json_fd, scratch, sizeof(scratch));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return true;
		if (n <= 0)
			break;
		if (t->json_len < JSON_MAX) {
			t->json_len += (size_t)n;
			t->json[t->json_len] = '\0';
		}
	}
	close(t->json_fd);
	t->json_fd = -1;
	return false;
}

/* Input on the JSON status pipe: look for "child-pid". */
static bool on_json(struct tree *t)
{
	bool open_ = read_json(t);
	char *p;

	p = strstr(t->json, "\"child-pid\"");
	if (p && !t->init_pid) {
		p = strchr(p, ':');
		if (p)
			adopt_init(t, strtol(p + 1, NULL, 10));
	}
	return open_;
}

/* Input on the status socket: the shim's byte, with its credentials. */
static bool on_status(struct tree *t)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} u;
	struct cmsghdr *c;
	struct ucred cred;
	struct msghdr msg;
	struct iovec iov;
	char byte = 0;
	ssize_t n;

	memset(&msg, 0, sizeof(msg));
	iov.iov_base = &byte;
	iov.iov_len = 1;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = u.buf;
	msg.msg_controllen = sizeof(u.buf);
	n = recvmsg(t->status_fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return true;
	if (n == 1 && byte == 'S') {
		for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
			if (c->cmsg_level != SOL_SOCKET ||
			    c->cmsg_type != SCM_CREDENTIALS)
				continue;
			memcpy(&cred, CMSG_DATA(c), sizeof(cred));
			t->cmd_pid = cred.pid;
		}
		t->started = true;
		t->t_started = proc_now_ms();
		if (t->cmd_pid > 0)
			t->cmd_pidfd = pidfd_open_(t->cmd_pid);
		vx_log("stage: sandbox start took %.3f ms (command is host "
		       "pid %d)", t->t_started - t->t_spawn, (int)t->cmd_pid);
	}
	/* One message, then nothing: done with the socket either way. */
	close(t->status_fd);
	t->status_fd = -1;
	return false;
}

static bool tree_readable(void *ctx, int fd)
{
	struct tree *t = ctx;

	if (fd == t->json_fd)
		return on_json(t);
	if (fd == t->status_fd)
		return on_status(t);
	return false;
}

static bool tree_forward(void *ctx, int sig)
{
	struct tree *t = ctx;

	if (!t->started)
		return false;
	/*
	 * Only a process of the sandbox's namespace: the command's pid
	 * could have been reused outside after it exited.
	 */
	if (t->cmd_pid <= 0)
		return true;
	if (t->have_ns ? in_sandbox_ns(t, t->cmd_pid) : t->cmd_pidfd >= 0) {
		vx_log("forwarding signal %d to the command", sig);
		signal_pid(t->cmd_pidfd, t->cmd_pid, sig);
	}
	return true;
}

/* SIGTERM to every process of the sandbox's PID namespace but its init. */
static void tree_terminate(void *ctx)
{
	struct tree *t = ctx;
	struct dirent *de;
	long seen = 0, pid;
	char *end;
	DIR *proc;
	int fd;

	vx_log("timeout: sending SIGTERM to the whole tree");
	if (!t->have_ns) {
		/* Without the namespace, end bubblewrap: --die-with-parent
		 * then kills the tree at once. */
		kill(t->runner, SIGTERM);
		return;
	}
	proc = opendir("/proc");
	if (!proc) {
		kill(t->runner, SIGTERM);
		return;
	}
	while ((de = readdir(proc)) != NULL && seen++ < PROC_SCAN_MAX) {
		errno = 0;
		pid = strtol(de->d_name, &end, 10);
		if (errno || *end || pid <= 0 || pid > INT32_MAX ||
		    pid == t->init_pid || !in_sandbox_ns(t, (pid_t)pid))
			continue;
		/* Pin the process, then check it is still the one. */
		fd = pidfd_open_((pid_t)pid);
		if (in_sandbox_ns(t, (pid_t)pid))
			signal_pid(fd, (pid_t)pid, SIGTERM);
		if (fd >= 0)
			close(fd);
	}
	closedir(proc);
}

static void tree_kill(void *ctx)
{
	struct tree *t = ctx;

	vx_log("killing the whole tree");
	if (t->init_pid)
		signal_pid(t->init_pidfd, t->init_pid, SIGKILL);
}

/*
 * bubblewrap is reaped.  Its death already killed the init (parent-death
 * signal), but asynchronously: kill it again and wait for it, because
 * the init only exits once every process of its namespace is gone.  As
 * vbox-exec is a child subreaper, the orphaned init is reparented to it,
 * and reaped here rather than left as a zombie for the host's init.
 */
static void tree_settle(void *ctx)
{
	struct tree *t = ctx;
	struct pollfd p;
	double until = proc_now_ms() + PROC_SETTLE_MS;
	int left;

	if (t->init_pidfd >= 0) {
		signal_pid(t->init_pidfd, t->init_pid, SIGKILL);
		p.fd = t->init_pidfd;
		p.events = POLLIN;
		for (;;) {
			left = (int)(until - proc_now_ms());
			if (left <= 0)
				break;
			if (poll(&p, 1, left) >= 0 || errno != EINTR)
				break;
		}
		close(t->init_pidfd);
		t->init_pidfd = -1;
		while (waitpid(t->init_pid, NULL, WNOHANG) < 0 &&
		       errno == EINTR)
			;
	} else if (t->init_pid) {
		kill(t->init_pid, SIGKILL);
		/* Our child by now, or already reaped (ECHILD). */
		while (waitpid(t->init_pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	/* Nothing else can have been reparented to us; reap it anyway. */
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	if (t->cmd_pidfd >= 0) {
		close(t->cmd_pidfd);
		t->cmd_pidfd = -1;
	}
	if (t->json_fd >= 0) {
		close(t->json_fd);
		t->json_fd = -1;
	}
	if (t->status_fd >= 0) {
		close(t->status_fd);
		t->status_fd = -1;
	}
}

/* ------------------------------------------------------------------ */
/* finding and checking bubblewrap */

static bool is_executable_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       access(path, X_OK) == 0;
}

/*
 * The bubblewrap to run: $VBOX_BWRAP when set (tests use it to simulate
 * a missing or broken bubblewrap), else the configure-time BWRAP_PATH,
 * else the first "bwrap" on PATH.
 */
static char *find_bwrap(char **err)
{
	const char *env = getenv("VBOX_BWRAP"), *path, *p, *colon;
	char *cand;
	size_t len;

	if (env && *env) {
		if (env[0] == '/' && is_executable_file(env))
			return xstrdup(env);
		*err = xasprintf("bubblewrap not found: VBOX_BWRAP=%s is not "
				 "an executable file given by absolute path",
				 env);
		return NULL;
	}
	if (is_executable_file(BWRAP_PATH))
		return xstrdup(BWRAP_PATH);
	path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; *p; p = *colon ? colon + 1 : colon) {
		colon = strchrnul(p, ':');
		len = (size_t)(colon - p);
		if (len == 0 || p[0] != '/')
			continue;
		cand = xasprintf("%.*s/bwrap", (int)len, p);
		if (is_executable_file(cand))
			return cand;
		free(cand);
	}
	*err = xasprintf("bubblewrap not found: not at %s (configure time) "
			 "and no bwrap in PATH; install bubblewrap",
			 BWRAP_PATH);
	return NULL;
}

/*
 * Does the bubblewrap binary know @opt?  Its option names are string
 * literals in the binary; reading it is far cheaper than running
 * "bwrap --help" on every launch.
 */
static bool bwrap_knows(const char *bwrap, const char *opt)
{
	size_t olen = strlen(opt), have = 0, total = 0;
	char buf[65536];
	bool found = false;
	ssize_t n;
	int fd;

	fd = open(bwrap, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	/* bubblewrap is about 100 KiB; a 64 MiB cap bounds the read. */
	while (!found && total < (64u << 20)) {
		n = read(fd, buf + have, sizeof(buf) - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		total += (size_t)n;
		have += (size_t)n;
		found = memmem(buf, have, opt, olen) != NULL;
		/* Keep a tail so a match across reads is seen. */
		if (have >= olen) {
			memmove(buf, buf + have - (olen - 1), olen - 1);
			have = olen - 1;
		}
	}
	close(fd);
	return found;
}

static int read_small(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/*
 * The cheap checks that user namespaces can work, before anything is
 * started.  A setuid bubblewrap does not need them.
 */
static int check_userns(const char *bwrap, char **err)
{
	struct stat st;
	char buf[32];

	if (stat(bwrap, &st) == 0 && (st.st_mode & S_ISUID) && st.st_uid == 0)
		return 0;
	if (read_small("/proc/sys/user/max_user_namespaces", buf,
		       sizeof(buf)) == 0 && atol(buf) == 0) {
		*err = xstrdup("user namespaces are unavailable: "
			       "/proc/sys/user/max_user_namespaces is 0");
		return -1;
	}
	if (geteuid() != 0 &&
	    read_small("/proc/sys/kernel/unprivileged_userns_clone", buf,
		       sizeof(buf)) == 0 && atol(buf) == 0) {
		*err = xstrdup("user namespaces are unavailable: "
			       "/proc/sys/kernel/unprivileged_userns_clone "
			       "is 0");
		return -1;
	}
	return 0;
}

/* After bubblewrap failed: was it because user namespaces do not work? */
static void diagnose_userns(void)
{
	int status = 0;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return;
	if (pid == 0)
		_exit(unshare(CLONE_NEWUSER) == 0 ? 0 : (errno & 0x7f) + 1);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
		vx_error("user namespaces are unavailable: "
			 "unshare(CLONE_NEWUSER): %s",
			 strerror(WEXITSTATUS(status) - 1));
}

/* ------------------------------------------------------------------ */
/* the command lines */

static void sb_word(struct strbuf *b, const char *w)
{
	char *q = shell_quote(w);

	if (b->len)
		strbuf_add(b, " ", 1);
	strbuf_add(b, q, strlen(q));
	free(q);
}

/* The shim's part of the command line, from "--" on. */
static void shim_args(const struct launch_request *req, bool status,
		      char ***out, size_t *n)
{
	size_t i, cmdn = 0, k = 0;
	char **v;

	while (req->command[cmdn])
		cmdn++;
	v = xcalloc(cmdn + 8, sizeof(*v));
	v[k++] = xstrdup("--");
	v[k++] = xasprintf("/proc/self/fd/%d", 3 + FD_SELF);
	v[k++] = xstrdup("--internal-shim");
	if (status)
		v[k++] = xasprintf("--status-fd=%d", 3 + FD_STATUS);
	if (req->pwd)
		v[k++] = xasprintf("--pwd=%s", req->pwd);
	else if (req->unset_pwd)
		v[k++] = xstrdup("--unset-pwd");
	v[k++] = xstrdup("--");
	for (i = 0; i < cmdn; i++)
		v[k++] = xstrdup(req->command[i]);
	*out = v;
	*n = k;
}

static void free_words(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static char *self_path(void)
{
	char buf[4096];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return xstrdup(buf);
}

/*
 * --dry-run: one line a POSIX shell runs as the launch would, fd 3
 * included; placeholders are made before and removed after.
 */
static int print_dry_run(const struct launch_request *req, const char *bwrap,
			 const struct sandbox_args *sa)
{
	struct strbuf b = { 0 };
	char **shim, *self, *q;
	size_t nshim, i;
	int ret = 0;

	self = self_path();
	if (!self) {
		vx_error("cannot find vbox-exec's own binary: %s",
			 strerror(errno));
		return EXIT_LAUNCHER;
	}
	if (sa->nplaceholders) {
		sb_word(&b, "mkdir");
		sb_word(&b, "-m");
		strbuf_add(&b, " 0700 --", 8);
		for (i = 0; i < sa->nplaceholders; i++)
			sb_word(&b, sa->placeholders[i]);
		strbuf_add(&b, " && {", 5);
	}
	sb_word(&b, "env");
	sb_word(&b, "-i");
	sb_word(&b, "--");
	for (i = 0; i < req->env->n; i++)
		sb_word(&b, req->env->v[i]);
	sb_word(&b, bwrap);
	for (i = 0; i < sa->argc; i++)
		sb_word(&b, sa->argv[i]);
	shim_args(req, false, &shim, &nshim);
	for (i = 0; i < nshim; i++)
		sb_word(&b, shim[i]);
	free_words(shim, nshim);
	q = shell_quote(self);
	strbuf_add(&b, " 3<", 3);
	strbuf_add(&b, q, strlen(q));
	free(q);
	if (sa->nplaceholders) {
		strbuf_add(&b, "; s=$?; rmdir --", 16);
		for (i = sa->nplaceholders; i-- > 0;)
			sb_word(&b, sa->placeholders[i]);
		strbuf_add(&b, "; (exit \"$s\"); }", 16);
	}
	if (printf("%s\n", b.s) < 0 || fflush(stdout) != 0) {
		vx_error("cannot write the command line: %s", strerror(errno));
		ret = EXIT_LAUNCHER;
	}
	free(b.s);
	free(self);
	return ret;
}

/* A sealed memfd holding @sa's arguments, NUL-terminated, at offset 0. */
static int args_memfd(const struct sandbox_args *sa, char **err)
{
	size_t i, len;
	int fd;

	fd = memfd_create("vbox-exec-args", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0) {
		*err = xasprintf("memfd_create: %s", strerror(errno));
		return -1;
	}
	for (i = 0; i < sa->argc; i++) {
		const char *p = sa->argv[i];

		len = strlen(p) + 1;
		while (len > 0) {
			ssize_t n = write(fd, p, len);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				goto fail;
			p += n;
			len -= (size_t)n;
		}
	}
	/* Nobody can change the list once bubblewrap may read it. */
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW |
		  F_SEAL_WRITE | F_SEAL_SEAL) < 0 ||
	    lseek(fd, 0, SEEK_SET) != 0)
		goto fail;
	return fd;
fail:
	*err = xasprintf("cannot write the argument memfd: %s",
			 strerror(errno ? errno : EIO));
	close(fd);
	return -1;
}

/* ------------------------------------------------------------------ */
/* the launch */

/* The status after the runner ended; see launch_run(). */
static int outcome(const struct tree *t, const struct proc_result *res)
{
	int status = proc_exit_status(res);

	if (res->timed_out) {
		vx_log("stage: child exit: timed out after %.3f ms; the whole "
		       "tree was ended", res->elapsed_ms);
		return EXIT_TIMEOUT;
	}
	if (!t->started) {
		vx_error("bubblewrap failed before the command started "
			 "(%s %d); the command did not run",
			 WIFSIGNALED(res->status) ? "signal" : "exit status",
			 WIFSIGNALED(res->status) ? WTERMSIG(res->status) :
			 WEXITSTATUS(res->status));
		diagnose_userns();
		return EXIT_LAUNCHER;
	}
	vx_log("stage: child exit: status %d after %.3f ms (%.3f ms after "
	       "the sandbox started)", status, res->elapsed_ms,
	       proc_now_ms() - t->t_started);
	return status;
}

static int start_and_wait(const struct launch_request *req, const char *bwrap,
			  const struct sandbox_args *sa)
{
	int pass[NFDS] = { -1, -1, -1, -1 }, json[2] = { -1, -1 };
	int sock[2] = { -1, -1 }, one = 1, status = EXIT_LAUNCHER;
	struct proc_result res;
	struct proc_spawn sp;
	struct proc_ops ops;
	struct tree t;
	char **argv = NULL, **shim = NULL, *err = NULL;
	size_t nshim = 0, i, k = 0;
	pid_t pid;

	memset(&t, 0, sizeof(t));
	t.json_fd = t.status_fd = t.init_pidfd = t.cmd_pidfd = -1;

	pass[FD_SELF] = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (pass[FD_SELF] < 0) {
		vx_error("cannot open vbox-exec's own binary: %s",
			 strerror(errno));
		goto out;
	}
	pass[FD_ARGS] = args_memfd(sa, &err);
	if (pass[FD_ARGS] < 0)
		goto out_err;
	if (pipe2(json, O_CLOEXEC) < 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sock) < 0 ||
	    setsockopt(sock[0], SOL_SOCKET, SO_PASSCRED, &one,
		       sizeof(one)) < 0 ||
	    fcntl(json[0], F_SETFL, O_NONBLOCK) < 0) {
		vx_error("cannot set up the status channels: %s",
			 strerror(errno));
		goto out;
	}
	pass[FD_JSON] = json[1];
	pass[FD_STATUS] = sock[1];

	shim_args(req, true, &shim, &nshim);
	argv = xcalloc(nshim + 8, sizeof(*argv));
	argv[k++] = (char *)bwrap;
	argv[k++] = (char *)"--args";
	argv[k++] = (char *)"4";
	argv[k++] = (char *)"--json-status-fd";
	argv[k++] = (char *)"5";
	for (i = 0; i < nshim; i++)
		argv[k++] = shim[i];
	argv[k] = NULL;

	/*
	 * Orphans of the tree (the sandbox's init once bubblewrap is gone)
	 * come to vbox-exec, which reaps them: no zombie outlives it.
	 */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) {
		vx_error("cannot become a child subreaper: %s",
			 strerror(errno));
		goto out;
	}
	sp.path = bwrap;
	sp.argv = argv;
	sp.envp = req->env->v;
	sp.pass = pass;
	sp.npass = NFDS;
	t.t_spawn = proc_now_ms();
	pid = proc_start(&sp, &err);
	if (pid < 0)
		goto out_err;
	t.runner = pid;
	/* The runner has its copies; ours would keep the pipes open. */
	close(json[1]);
	close(sock[1]);
	json[1] = sock[1] = -1;
	t.json_fd = json[0];
	t.status_fd = sock[0];
	json[0] = sock[0] = -1;

	memset(&ops, 0, sizeof(ops));
	ops.ctx = &t;
	for (i = 0; i < PROC_MAX_WATCH_FDS; i++)
		ops.watch[i] = -1;
	ops.watch[0] = t.json_fd;
	ops.watch[1] = t.status_fd;
	ops.readable = tree_readable;
	ops.forward = tree_forward;
	ops.terminate = tree_terminate;
	ops.kill = tree_kill;
	ops.settle = tree_settle;
	if (proc_supervise(pid, req->timeout_ms, &ops, &res) < 0)
		vx_error("waiting for bubblewrap failed: %s; the tree was "
			 "killed", strerror(errno));
	status = outcome(&t, &res);
	goto out;

out_err:
	vx_error("%s", err);
	free(err);
out:
	for (i = 0; i < NFDS; i++)
		if (pass[i] >= 0 && i != FD_JSON && i != FD_STATUS)
			close(pass[i]);
	for (i = 0; i < 2; i++) {
		if (json[i] >= 0)
			close(json[i]);
		if (sock[i] >= 0)
			close(sock[i]);
	}
	free(argv);
	if (shim)
		free_words(shim, nshim);
	return status;
}

int launch_run(const struct launch_request *req)
{
	struct sandbox_args sa;
	char *bwrap, *err = NULL;
	bool knows;
	double t0;
	int status = EXIT_LAUNCHER;

	/* Before anything exists on the host that must be cleaned up. */
	if (!req->dry_run && proc_signals_install() < 0) {
		vx_error("cannot install signal handlers: %s", strerror(errno));
		return EXIT_LAUNCHER;
	}
	bwrap = find_bwrap(&err);
	if (!bwrap)
		goto out_err;
	if (!req->dry_run && check_userns(bwrap, &err) < 0)
		goto out_bwrap;
	knows = bwrap_knows(bwrap, "--disable-userns");
	vx_log("bubblewrap: %s (%s --disable-userns)", bwrap,
	       knows ? "knows" : "does not know");

	t0 = proc_now_ms();
	if (instantiate_linux(req->plan, req->plan_path, req->workdir, knows,
			      &sa, &err) < 0)
		goto out_bwrap;
	vx_log("stage: instantiation took %.3f ms (%zu launch rows, %zu "
	       "placeholders, %zu bubblewrap arguments, %zu hardening flags "
	       "added)", proc_now_ms() - t0, sa.nlaunch, sa.nplaceholders,
	       sa.argc, sa.added);
	if (sa.dropped_disable_userns)
		vx_log("note: %s does not know --disable-userns: nested user "
		       "namespaces stay possible (capabilities are still "
		       "dropped)", bwrap);
	if (sa.guarded_plan)
		vx_log("the plan file is writable under the policy: bound "
		       "read-only onto itself");
	if (req->plan->nreserved)
		vx_log("note: the plan has %zu reserved entries; none is "
		       "needed without an egress proxy", req->plan->nreserved);

	if (req->dry_run) {
		status = print_dry_run(req, bwrap, &sa);
		goto out_sa;
	}
	if (placeholders_create(&sa, &err) < 0)
		goto out_sa_err;
	status = start_and_wait(req, bwrap, &sa);
	placeholders_remove(&sa);
	goto out_sa;

out_sa_err:
	vx_error("%s", err);
	free(err);
out_sa:
	sandbox_args_free(&sa);
	free(bwrap);
	return status;

out_bwrap:
	free(bwrap);
out_err:
	vx_error("%s", err);
	free(err);
	return EXIT_LAUNCHER;
}
