/* SPDX-License-Identifier: MIT */
/*
 * init.c - vbox-init, the sandbox's first program (doc/launcher.md,
 * "The sandbox's init").
 *
 * bubblewrap runs it (from an fd vbox-exec passes, so it runs even where
 * the policy hides its path) as the sandbox's PID 1:
 *
 *   vbox-init [--channel=FD] -- COMMAND [ARG...]
 *
 * Without a channel (the line `vbox-exec --dry-run` prints) there is no
 * setup and nothing to report: the command just runs.
 * It reads the one CH_SETUP message vbox-exec sent on the channel
 * (channel.h), puts the setup in place (apply_setup(): the mounts
 * vbox-exec hands it, the nested user namespace, dropping every
 * capability, PWD; steps.h), answers CH_READY (or CH_ERROR and exits
 * 125), makes sure only fds 0, 1 and 2 reach the command
 * (bubblewrap passes on every fd it inherited), and runs the command as
 * its child: the child reports CH_STARTED (its pid rides along in the
 * kernel's credentials) and execvp()s it.  The init reaps every orphan
 * and exits with the command's status (128 + N for death by signal N:
 * an init cannot re-raise it) as soon as the command ends; the kernel
 * then kills what is left of the namespace.  It is not dumpable, so the
 * command can neither ptrace it nor read its memory.  If the exec fails
 * the child reports CH_EXEC_FAILED, says why and exits like a shell: 127
 * when the command is not found, 126 when it cannot be executed.
 *
 * Owned here: everything that happens inside the sandbox before the
 * command runs.  Each step of the setup is one function called from
 * apply_setup(), in a fixed order; the proxy's listening sockets will be
 * new CH_SETUP attributes handled there and reported in CH_READY.  The
 * walls (runtime/walls/walls.h: no_new_privs, Landlock, the seccomp
 * filters) arrive as a memfd in CH_SETUP and are put in place in the
 * command's process, right before the exec (put_walls()), so the init
 * itself stays outside them.  Static, libc only: no allocation after
 * the setup is read, nothing the command could not have.
 */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "channel.h"
#include "exit_codes.h"
#include "guard.h"
#include "steps.h"
#include "walls/walls.h"

#ifndef CLOSE_RANGE_CLOEXEC
/* From linux/close_range.h (Linux 5.11); older kernels say EINVAL. */
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/* Longest PWD the setup may carry. */
#define PWD_MAX 4096
/* Ports the setup may ask to listen on (two sockets each). */
#define LISTEN_MAX (CH_MAX_FDS / 2)

/**
 * struct setup - what CH_SETUP asked for
 * @pwd: the command's PWD ("" with @has_pwd false: leave it)
 * @has_pwd: set PWD to @pwd
 * @unset_pwd: remove PWD
 * @mounts_fd: the mounts to make (CH_FD_MOUNTS), or -1
 * @has_idmap: move into a nested user namespace mapping @uid and @gid
 * @uid, @gid: see @has_idmap
 * @walls_fd: the walls' memfd (CH_FD_WALLS), -1 when none
 * @ports: CH_A_LISTEN ports, in order
 * @nports: number of @ports
 * @fds: the listening sockets made for them (sent in CH_READY)
 * @nfds: number of @fds
 */
struct setup {
	char pwd[PWD_MAX];
	bool has_pwd;
	bool unset_pwd;
	int mounts_fd;
	bool has_idmap;
	uint32_t uid;
	uint32_t gid;
	int walls_fd;
	bool hand_listener;
	bool guard;
	uint32_t guard_flags;
	uint16_t ports[LISTEN_MAX];
	size_t nports;
	int fds[CH_MAX_FDS];
	size_t nfds;
};

static int channel = -1;
/* One message buffer, reused: the init allocates nothing. */
static struct ch_msg msg;

static __attribute__((format(printf, 1, 2))) void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
}

/* Report a setup failure to vbox-exec and stderr, then exit 125. */
static __attribute__((noreturn, format(printf, 1, 2))) void
fail(const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	say("vbox-exec: sandbox init: %s\n", line);
	if (channel >= 0) {
		ch_init(&msg, CH_ERROR);
		if (ch_put_str(&msg, CH_A_MESSAGE, line) == 0)
			ch_send_plain(channel, &msg);
	}
	_exit(EXIT_LAUNCHER);
}

/*
 * Mark every fd above 2 close-on-exec: the channel stays usable until
 * the exec, and nothing else reaches the command.
 */
static int cloexec_all(void)
{
	struct dirent *de;
	DIR *dir;
	long fd;
	char *end;
	int self;

#ifdef SYS_close_range
	if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
		return 0;
#endif
	dir = opendir("/proc/self/fd");
	if (!dir)
		return -1;
	self = dirfd(dir);
	while ((de = readdir(dir)) != NULL) {
		errno = 0;
		fd = strtol(de->d_name, &end, 10);
		if (*end || errno || fd <= 2 || fd == self || fd > INT32_MAX)
			continue;
		if (fcntl((int)fd, F_SETFD, FD_CLOEXEC) < 0 && errno != EBADF) {
			closedir(dir);
			return -1;
		}
	}
	closedir(dir);
	return 0;
}

static int parse_fd(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 3 || v > 65535)
		return -1;
	return (int)v;
}

/* Read and check CH_SETUP into *@s. */
static void read_setup(struct setup *s)
{
	struct ch_attr_view a;
	size_t off = 0;
	int ret;

	ret = ch_recv(channel, &msg, 0);
	if (ret == 0)
		fail("vbox-exec went away before sending the setup");
	if (ret < 0)
		fail("cannot read the setup: %s", strerror(errno));
	/* A sandbox the launch does not use (runtime/linux/runner.c). */
	if (ch_type_of(&msg) == CH_ABANDON)
		_exit(EXIT_LAUNCHER);
	if (ch_type_of(&msg) != CH_SETUP)
		fail("expected the setup, got message type %u",
		     ch_type_of(&msg));
	while ((ret = ch_next(&msg, &off, &a)) > 0) {
		unsigned role;
		uint32_t ids[2];
		int fd;

		switch (a.attr) {
		case CH_A_FD:
			fd = ch_fd(&msg, &a, &role);
			if (fd < 0)
				fail("the setup carries an unexpected fd");
			if (role == CH_FD_MOUNTS && s->mounts_fd < 0)
				s->mounts_fd = fd;
			else if (role == CH_FD_WALLS && s->walls_fd < 0)
				s->walls_fd = fd;
			else
				fail("the setup carries an unexpected fd");
			break;
		case CH_A_IDMAP:
			if (a.len != sizeof(ids))
				fail("bad id map in the setup");
			memcpy(ids, a.val, sizeof(ids));
			s->uid = ids[0];
			s->gid = ids[1];
			s->has_idmap = true;
			break;
		case CH_A_PWD:
			if (ch_str(&a, s->pwd, sizeof(s->pwd)) < 0)
				fail("bad PWD in the setup");
			s->has_pwd = true;
			break;
		case CH_A_UNSET_PWD:
			s->unset_pwd = true;
			break;
		case CH_A_HAND_LISTENER:
			s->hand_listener = true;
			break;
		case CH_A_GUARD:
			if (ch_u32(&a, &s->guard_flags) < 0)
				fail("bad guard flags in the setup");
			s->guard = true;
			break;
		case CH_A_LISTEN: {
			uint32_t port;

			if (ch_u32(&a, &port) < 0 || port == 0 ||
			    port > 65535 || s->nports == LISTEN_MAX)
				fail("bad listening port in the setup");
			s->ports[s->nports++] = (uint16_t)port;
			break;
		}
		default:
			if (a.attr & CH_A_OPTIONAL)
				break;
			fail("the setup asks for %u, which this init does not "
			     "know", a.attr);
		}
	}
	if (ret < 0)
		fail("the setup message is malformed");
	/* Mounts come with the namespace that takes the power back. */
	if ((s->mounts_fd >= 0) != s->has_idmap)
		fail("the setup's fds and id map do not match");
	if (msg.nfds != (s->mounts_fd >= 0 ? 1u : 0u) +
			(s->walls_fd >= 0 ? 1u : 0u))
		fail("the setup carries %zu unexpected fds", msg.nfds);
}

/*
 * listen_loopback - a listening socket on the namespace's loopback:
 * 127.0.0.1 (@v6 false) or ::1.  Returns the fd, or -1 with errno.
 */
static int listen_loopback(uint16_t port, bool v6)
{
	struct sockaddr_in s4 = { .sin_family = AF_INET };
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6 };
	int fd, one = 1, e;

	fd = socket(v6 ? AF_INET6 : AF_INET,
		    SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	s4.sin_port = htons(port);
	s4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s6.sin6_port = htons(port);
	s6.sin6_addr = in6addr_loopback;
	if ((v6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one,
			      sizeof(one)) < 0) ||
	    (v6 ? bind(fd, (struct sockaddr *)&s6, sizeof(s6)) :
		  bind(fd, (struct sockaddr *)&s4, sizeof(s4))) < 0 ||
	    listen(fd, SOMAXCONN) < 0) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/*
 * make_listeners - the sockets the egress proxy accepts on: created
 * here, inside the sandbox's network namespace, served from outside.
 * IPv4 is required; ::1 is skipped only where the namespace has no IPv6.
 */
static void make_listeners(struct setup *s)
{
	size_t i;
	int fd;

	for (i = 0; i < s->nports; i++) {
		fd = listen_loopback(s->ports[i], false);
		/* the sandbox holds no capability: a port below
		 * ip_unprivileged_port_start is not forwarded (vbox-exec
		 * serves it through the proxy only and says so) */
		if (fd < 0 && errno == EACCES && s->ports[i] < 1024)
			continue;
		if (fd < 0)
			fail("cannot listen on 127.0.0.1:%u in the sandbox: %s",
			     s->ports[i], strerror(errno));
		s->fds[s->nfds++] = fd;
		fd = listen_loopback(s->ports[i], true);
		if (fd < 0 && errno != EAFNOSUPPORT && errno != EADDRNOTAVAIL)
			fail("cannot listen on [::1]:%u in the sandbox: %s",
			     s->ports[i], strerror(errno));
		if (fd >= 0)
			s->fds[s->nfds++] = fd;
	}
}

/*
 * The terminal on fds 0-2 is the host's inode, on the host's devpts: a
 * child that owns it could make it world-readable and -writable (fchmod)
 * for every local user.  /dev/console is the same terminal on a
 * read-only mount (bubblewrap's console, made read-only: sandbox.c), so
 * each of fds 0-2 that is that terminal is opened again through it, with
 * the same access and flags: writes and ioctls as before, its inode
 * refusing changes (EROFS).  /dev/console is the first of fds 1, 0, 2
 * that is a terminal (launch.c); another terminal on one of fds 0-2
 * stays as it came (doc/launcher.md).
 */
static void terminal_through_console(void)
{
	struct stat con, st;
	int i, fd, fl;

	if (stat("/dev/console", &con) < 0 || !S_ISCHR(con.st_mode))
		return;
	for (i = 0; i <= 2; i++) {
		if (fstat(i, &st) < 0 || !S_ISCHR(st.st_mode) ||
		    st.st_rdev != con.st_rdev)
			continue;
		fl = fcntl(i, F_GETFL);
		if (fl < 0)
			fail("cannot read the flags of fd %d: %s", i,
			     strerror(errno));
		fd = open("/dev/console", (fl & (O_ACCMODE | O_APPEND |
						 O_NONBLOCK)) |
			  O_NOCTTY | O_CLOEXEC);
		/*
		 * A launch as another uid than the terminal's (su, sudo -u)
		 * may use the fd it was given but not open the terminal:
		 * the fd stays as it came (doc/launcher.md).
		 */
		if (fd < 0 && (errno == EACCES || errno == EPERM))
			continue;
		if (fd < 0 || dup2(fd, i) < 0)
			fail("cannot open the terminal again read-only "
			     "mounted: %s", strerror(errno));
		close(fd);
	}
}

/* The steps of the setup, in order; each fails closed. */
static void apply_setup(struct setup *s)
{
	char err[512];

	/*
	 * The user-namespace limit while /proc/sys is writable: before the
	 * mounts close it, after the procfs the list mounts (if any).
	 */
	if (s->mounts_fd >= 0) {
		if (init_mounts_apply(s->mounts_fd, s->has_idmap ?
				      init_limit_userns : NULL, err,
				      sizeof(err)) < 0)
			fail("%s", err);
		close(s->mounts_fd);
	} else if (s->has_idmap && init_limit_userns(err, sizeof(err)) < 0) {
		fail("%s", err);
	}
	terminal_through_console();
	if (s->has_idmap &&
	    init_enter_userns(s->uid, s->gid, err, sizeof(err)) < 0)
		fail("%s", err);
	/* Whatever came before: the command gets no capability. */
	if (init_drop_caps(err, sizeof(err)) < 0)
		fail("%s", err);
	/*
	 * The walls come later, in the command's process right before its
	 * exec (put_walls()): after this drop, so nothing privileged runs
	 * under them, and never in the init itself.
	 */
	if ((s->has_pwd && setenv("PWD", s->pwd, 1) < 0) ||
	    (s->unset_pwd && unsetenv("PWD") < 0))
		fail("cannot set PWD: %s", strerror(errno));
	make_listeners(s);
}

static void report_ready(struct setup *s)
{
	size_t i;

	ch_init(&msg, CH_READY);
	for (i = 0; i < s->nfds; i++)
		if (ch_put_fd(&msg, CH_FD_LISTEN, s->fds[i]) < 0)
			fail("cannot report the listening sockets");
	if (ch_send(channel, &msg) < 0)
		fail("lost vbox-exec: %s", strerror(errno));
	/* vbox-exec has them now; the command never does */
	for (i = 0; i < s->nfds; i++)
		close(s->fds[i]);
	s->nfds = 0;
}

/*
 * The file execvp() would have run for @cmd: @cmd itself when it holds a
 * '/', else the first PATH entry holding a regular file of that name.
 * Fills @path (@size bytes); false when there is none.
 */
static bool command_file(const char *cmd, char *path, size_t size)
{
	const char *dirs = getenv("PATH"), *end;
	struct stat st;
	int n;

	if (strchr(cmd, '/'))
		return (size_t)snprintf(path, size, "%s", cmd) < size &&
		       stat(path, &st) == 0 && S_ISREG(st.st_mode);
	if (!dirs)
		dirs = "/usr/local/bin:/bin:/usr/bin";
	for (; *dirs; dirs = *end ? end + 1 : end) {
		end = strchr(dirs, ':');
		if (!end)
			end = dirs + strlen(dirs);
		n = snprintf(path, size, "%.*s/%s", (int)(end - dirs),
			     end == dirs ? "." : dirs, cmd);
		if (n > 0 && (size_t)n < size && stat(path, &st) == 0 &&
		    S_ISREG(st.st_mode))
			return true;
	}
	return false;
}

/*
 * ENOENT for a file that exists: its "#!" interpreter is missing.  Puts
 * the interpreter's path in @interp (@size bytes), as a shell reports it.
 */
static bool bad_interpreter(const char *cmd, char *interp, size_t size)
{
	char path[4096], line[256];
	size_t i = 2, k = 0;
	ssize_t n;
	int fd;

	if (!command_file(cmd, path, sizeof(path)))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, line, sizeof(line) - 1);
	close(fd);
	if (n < 3 || line[0] != '#' || line[1] != '!')
		return false;
	line[n] = '\0';
	while (line[i] == ' ' || line[i] == '\t')
		i++;
	while (line[i] && line[i] != ' ' && line[i] != '\t' &&
	       line[i] != '\n' && k + 1 < size)
		interp[k++] = line[i++];
	interp[k] = '\0';
	return k > 0;
}

/*
 * Container mode where vbox-exec cannot take the listener (pidfd_getfd()
 * refused, as by Docker's default profile): a helper, cloned before the
 * filter is loaded and sharing this process's fd table (CLONE_FILES, no
 * CLONE_VM: a copy of this memory), waits for the listener's number on
 * a pipe and sends the listener with SCM_RIGHTS (CH_LISTENER_FD), which
 * this process, once filtered, can no longer do.  It runs nothing else
 * and is reaped before the exec.  Returns its pid; @pipe_fds its pipe.
 */
static pid_t listener_helper(int pipe_fds[2])
{
	int listener = -1;
	long pid;

	if (pipe2(pipe_fds, O_CLOEXEC) < 0)
		fail("cannot make the listener's pipe: %s", strerror(errno));
	pid = syscall(SYS_clone, CLONE_FILES | SIGCHLD, 0, NULL, NULL, 0);
	if (pid < 0)
		fail("cannot start the listener's helper: %s",
		     strerror(errno));
	if (pid > 0)
		return (pid_t)pid;
	/* The helper: the fd table is shared, so it closes nothing. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (read(pipe_fds[0], &listener, sizeof(listener)) !=
	    (ssize_t)sizeof(listener) || listener < 0)
		_exit(1);
	ch_init(&msg, CH_LISTENER_FD);
	if (ch_put_fd(&msg, CH_FD_LISTENER, listener) < 0 ||
	    ch_send(channel, &msg) < 0)
		_exit(1);
	_exit(0);
}

/* The helper sent the listener: 0, or fail(). */
static void listener_handed(pid_t helper, int pipe_fds[2], int listener)
{
	int status;

	if (write(pipe_fds[1], &listener, sizeof(listener)) !=
	    (ssize_t)sizeof(listener))
		fail("cannot hand the listener to its helper: %s",
		     strerror(errno));
	while (waitpid(helper, &status, 0) < 0)
		if (errno != EINTR)
			fail("lost the listener's helper: %s",
			     strerror(errno));
	close(pipe_fds[0]);
	close(pipe_fds[1]);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail("the listener's helper could not send it");
}

/*
 * In the command's process, right before the exec: the walls
 * (walls/walls.h).  Returns the socket filter's listener, -1 when none.
 */
static int put_walls(int walls_fd)
{
	const char *what = "";
	int listener = -1, abi = 0;

	if (walls_fd < 0)
		return -1;
	if (walls_apply(walls_fd, &listener, &abi, &what) < 0)
		fail("cannot put the sandbox's walls in place: %s: %s", what,
		     strerror(errno));
	close(walls_fd);
	return listener;
}

/* vbox-exec took the listener: then it may be closed. */
static void listener_taken(int listener)
{
	int ret;

	ret = ch_recv(channel, &msg, 0);
	if (ret <= 0 || ch_type_of(&msg) != CH_LISTENER_TAKEN) {
		ch_close_fds(&msg);
		fail("vbox-exec did not take the socket filter's listener");
	}
	close(listener);
}

/*
 * is_directory - @path names a directory (as a shell says it, for a
 * command with a '/': execve() answers EACCES for one).
 */
static bool is_directory(const char *path)
{
	struct stat st;

	return strchr(path, '/') && stat(path, &st) == 0 &&
	       S_ISDIR(st.st_mode);
}

/*
 * In the command's process: the walls, report, exec; only returns on
 * failure.  Every report goes with send(): once the socket filter is
 * loaded, sendmsg() waits for the supervisor.
 */
static int exec_command(char **argv, int walls_fd, bool hand_listener)
{
	char interp[256];
	int saved, status, listener, pipe_fds[2] = { -1, -1 };
	pid_t helper = 0;

	/*
	 * The command leads a process group of its own, so that vbox-exec
	 * can pass a terminal's SIGINT, SIGQUIT, SIGTSTP and SIGCONT to all
	 * of it (a shell script and its current child, a pipeline), as a
	 * terminal would.  Before CH_STARTED: once vbox-exec knows the
	 * command, its group exists.  A session leader (the command run
	 * without a fork) leads its group already.
	 */
	if (getsid(0) != getpid() && getpgrp() != getpid() &&
	    setpgid(0, 0) < 0)
		fail("cannot give the command a process group: %s",
		     strerror(errno));
	if (hand_listener && walls_fd >= 0 && channel >= 0)
		helper = listener_helper(pipe_fds);
	listener = put_walls(walls_fd);
	if (helper > 0) {
		if (listener < 0)
			fail("the walls made no listener to hand over");
		listener_handed(helper, pipe_fds, listener);
	}
	/*
	 * Not PID 1 (container mode): this process, the guard's child, is
	 * about to become the command; the exec would make it dumpable
	 * again in any case (the guard stays undumpable).  vbox-exec, an
	 * ordinary user's
	 * process there, must take its listener (pidfd_getfd()) and read
	 * its calls' memory, which a non-dumpable process refuses.
	 */
	if (getpid() != 1 && prctl(PR_SET_DUMPABLE, 1) < 0)
		fail("cannot make the command's process dumpable: %s",
		     strerror(errno));
	ch_init(&msg, CH_STARTED);
	if (listener >= 0 &&
	    ch_put_u32(&msg, CH_A_LISTENER, (uint32_t)listener) < 0)
		fail("cannot report the socket filter's listener");
	if (channel >= 0 && ch_send_plain(channel, &msg) < 0) {
		say("vbox-exec: lost the launcher: %s\n", strerror(errno));
		return EXIT_LAUNCHER;
	}
	if (listener >= 0) {
		if (channel < 0)
			fail("a socket filter without vbox-exec");
		listener_taken(listener);
	}
	execvp(argv[0], argv);
	saved = errno;
	status = saved == ENOENT || saved == ENOTDIR ? EXIT_NOT_FOUND :
		 EXIT_NOT_EXECUTABLE;
	ch_init(&msg, CH_EXEC_FAILED);
	if (ch_put_u32(&msg, CH_A_ERRNO, (uint32_t)saved) == 0 &&
	    ch_put_u32(&msg, CH_A_STATUS, (uint32_t)status) == 0 &&
	    channel >= 0)
		ch_send_plain(channel, &msg);
	if (status == EXIT_NOT_FOUND && bad_interpreter(argv[0], interp,
							sizeof(interp)))
		say("vbox-exec: %s: bad interpreter: %s: %s\n", argv[0],
		    interp, strerror(saved));
	else if (status == EXIT_NOT_FOUND)
		say("vbox-exec: %s: not found\n", argv[0]);
	else if (saved == EACCES && is_directory(argv[0]))
		say("vbox-exec: %s: is a directory\n", argv[0]);
	else
		say("vbox-exec: %s: cannot execute: %s\n", argv[0],
		    strerror(saved));
	return status;
}

/* As PID 1: the command is a child; reap everything; pass its status. */
static __attribute__((noreturn)) void run_as_init(char **argv, int walls_fd)
{
	sigset_t all, old;
	int status;
	pid_t pid, w;

	/* No signal may interrupt the fork for the init's part. */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	pid = fork();
	if (pid < 0)
		fail("fork: %s", strerror(errno));
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		_exit(exec_command(argv, walls_fd, false));
	}
	if (channel >= 0)
		close(channel);
	channel = -1;
	if (walls_fd >= 0)
		close(walls_fd);
	for (;;) {
		w = waitpid(-1, &status, 0);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			_exit(EXIT_LAUNCHER);
		if (w != pid)
			continue;
		if (WIFEXITED(status))
			_exit(WEXITSTATUS(status));
		if (WIFSIGNALED(status))
			_exit(128 + WTERMSIG(status));
	}
}

/*
 * Container mode: the command is a child of this process, which guards
 * the tree (guard.h) and passes the command's status.
 */
static __attribute__((noreturn)) void run_as_guard(char **argv,
						   const struct setup *s)
{
	char err[256];
	pid_t pid;

	if (guard_prepare(s->guard_flags & CH_GUARD_SCOPED, err,
			  sizeof(err)) < 0)
		fail("%s", err);
	pid = fork();
	if (pid < 0)
		fail("fork: %s", strerror(errno));
	if (pid == 0) {
		guard_child();
		_exit(exec_command(argv, s->walls_fd, s->hand_listener));
	}
	if (channel >= 0)
		close(channel);
	channel = -1;
	if (s->walls_fd >= 0)
		close(s->walls_fd);
	guard_wait(pid);
}

int main(int argc, char **argv)
{
	struct setup setup;
	int i;

	memset(&setup, 0, sizeof(setup));
	setup.mounts_fd = -1;
	setup.walls_fd = -1;
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strncmp(argv[i], "--channel=", 10) == 0 &&
		    (channel = parse_fd(argv[i] + 10)) >= 0)
			continue;
		goto usage;
	}
	if (i + 1 >= argc)
		goto usage;
	argv += i + 1;

	if (prctl(PR_SET_DUMPABLE, 0) < 0)
		fail("cannot make the sandbox init undumpable: %s",
		     strerror(errno));
	if (cloexec_all() < 0)
		fail("cannot close inherited fds: %s", strerror(errno));
	if (channel >= 0)
		read_setup(&setup);
	apply_setup(&setup);
	if (channel >= 0)
		report_ready(&setup);
	if (getpid() == 1)
		run_as_init(argv, setup.walls_fd);
	if (setup.guard)
		run_as_guard(argv, &setup);
	_exit(exec_command(argv, setup.walls_fd, setup.hand_listener));

usage:
	say("vbox-init: the sandbox's init is for vbox-exec's own use\n");
	return EXIT_LAUNCHER;
}
