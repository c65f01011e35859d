/* SPDX-License-Identifier: MIT */
/*
 * shim.c - "vbox-exec --internal-shim": the last step inside the sandbox.
 *
 * bubblewrap runs vbox-exec's own binary as the sandbox's first program:
 *
 *   vbox-exec --internal-shim [--status-fd=N] [--pwd=DIR|--unset-pwd]
 *             -- COMMAND [ARG...]
 *
 * It makes sure only fds 0, 1 and 2 reach the command (bubblewrap passes
 * on every fd it inherited), fixes PWD (bubblewrap always sets it), tells
 * the launcher over the status socket that the sandbox is up, and
 * execvp()s the command.  On linux it is the sandbox's PID 1 (bubblewrap
 * --as-pid-1): it runs the command as its child, reaps orphans, and
 * cannot be ptraced by it (run_as_init()).  If the exec fails it says why
 * and exits like a shell: 127 when the command is not found, 126 when it
 * cannot be executed.  A command that itself exits 126 or 127 is
 * indistinguishable from this, by design, as with a shell.
 *
 * The shim runs after the sandbox is in place and holds nothing the
 * command could not have; it takes no input but its own arguments.
 */
#include <vbox.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif

#ifndef MSG_NOSIGNAL
/*
 * Older macOS lacks it: a lost launcher then ends the shim by SIGPIPE,
 * before the command runs, which fails closed as well.
 */
#define MSG_NOSIGNAL 0
#endif
#ifndef CLOSE_RANGE_CLOEXEC
/* From linux/close_range.h (Linux 5.11); older kernels say EINVAL. */
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

#include "launch.h"
#include "poll_supervise.h"

static __printf(1, 2) void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
}

/*
 * Mark every fd above 2 close-on-exec: the status socket stays usable
 * until the exec, and nothing else reaches the command.  Returns 0 or -1.
 */
static int cloexec_all(void)
{
	struct dirent *de;
	DIR *dir;
	long fd;
	char *end;
	int self;

#if defined(__linux__) && defined(SYS_close_range)
	if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
		return 0;
#endif
	dir = opendir("/proc/self/fd");
	if (!dir)
		dir = opendir("/dev/fd");
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

/* Exec the command; only returns (with the exit status) on failure. */
static int exec_command(char **argv)
{
	int saved;

	execvp(argv[0], argv);
	saved = errno;
	if (saved == ENOENT || saved == ENOTDIR) {
		say("vbox-exec: %s: not found\n", argv[0]);
		return EXIT_NOT_FOUND;
	}
	say("vbox-exec: %s: cannot execute: %s\n", argv[0], strerror(saved));
	return EXIT_NOT_EXECUTABLE;
}

/* Tell the launcher the command starts now (its pid rides along). */
static void hello(int status_fd)
{
	char byte = 'S';

	if (status_fd >= 0 && send(status_fd, &byte, 1, MSG_NOSIGNAL) != 1) {
		say("vbox-exec: lost the launcher: %s\n", strerror(errno));
		_exit(EXIT_LAUNCHER);
	}
}

#ifdef __linux__
/*
 * As the sandbox's PID 1 (bubblewrap --as-pid-1): run the command as a
 * child, reap every orphan, and exit with the command's status (128 + N
 * for death by signal N: an init cannot re-raise it) as soon as the
 * command ends; the kernel then kills what is left of the namespace.
 * The init is not dumpable, so the command cannot ptrace its parent or
 * read its memory or /proc files.
 */
static __noreturn void run_as_init(int status_fd, char **argv)
{
	sigset_t all, old;
	int status;
	pid_t pid, w;

	if (prctl(PR_SET_DUMPABLE, 0) < 0) {
		say("vbox-exec: cannot make the sandbox init undumpable: %s\n",
		    strerror(errno));
		_exit(EXIT_LAUNCHER);
	}
	/* No signal may interrupt the fork for the init's part. */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	pid = fork();
	if (pid < 0) {
		say("vbox-exec: fork: %s\n", strerror(errno));
		_exit(EXIT_LAUNCHER);
	}
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		hello(status_fd);
		_exit(exec_command(argv));
	}
	if (status_fd >= 0)
		close(status_fd);
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
#endif

int shim_main(int argc, char **argv)
{
	const char *pwd = NULL;
	bool unset_pwd = false;
	int status_fd = -1, i;

	for (i = 2; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strncmp(argv[i], "--status-fd=", 12) == 0) {
			status_fd = parse_fd(argv[i] + 12);
			if (status_fd < 0)
				goto usage;
		} else if (strncmp(argv[i], "--pwd=", 6) == 0) {
			pwd = argv[i] + 6;
		} else if (strcmp(argv[i], "--unset-pwd") == 0) {
			unset_pwd = true;
		} else {
			goto usage;
		}
	}
	if (i + 1 >= argc)
		goto usage;
	argv += i + 1;

	if (cloexec_all() < 0) {
		say("vbox-exec: cannot close inherited fds: %s\n",
		    strerror(errno));
		_exit(EXIT_LAUNCHER);
	}
	if ((pwd && setenv("PWD", pwd, 1) < 0) ||
	    (unset_pwd && unsetenv("PWD") < 0)) {
		say("vbox-exec: cannot set PWD: %s\n", strerror(errno));
		_exit(EXIT_LAUNCHER);
	}
#ifdef __linux__
	if (getpid() == 1)
		run_as_init(status_fd, argv);
#endif
	hello(status_fd);
	_exit(exec_command(argv));

usage:
	fprintf(stderr, "vbox-exec: --internal-shim is for vbox-exec's own "
		"use inside the sandbox\n");
	return EXIT_LAUNCHER;
}
