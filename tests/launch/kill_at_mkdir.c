/* SPDX-License-Identifier: MIT */
/*
 * kill_at_mkdir.c - run a command under ptrace and SIGKILL it at its
 * mkdir() of one path (tests/launch/exec_placeholder_kill.sh): right after the
 * call made the directory, or with -b right before the call.  Only the
 * command's first process is traced.  Exit 0 when it was killed there,
 * 3 when it never made that call, 1 on error.
 *
 *   kill_at_mkdir [-b] PATH -- CMD [ARG...]
 */
#include <vbox.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/ptrace.h>

/* @pid's NUL-terminated string at @addr into @buf (@len bytes). */
static int peek_string(pid_t pid, unsigned long addr, char *buf, size_t len)
{
	size_t off = 0, i;
	long word;

	while (off < len) {
		errno = 0;
		word = ptrace(PTRACE_PEEKDATA, pid, addr + off, NULL);
		if (errno)
			return -1;
		for (i = 0; i < sizeof(word) && off < len; i++, off++) {
			buf[off] = ((const char *)&word)[i];
			if (!buf[off])
				return 0;
		}
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct ptrace_syscall_info info;
	bool before = false, armed = false;
	char path[PATH_MAX];
	const char *want;
	int status, sig, i = 1;
	pid_t pid;

	if (i < argc && strcmp(argv[i], "-b") == 0) {
		before = true;
		i++;
	}
	if (argc - i < 3 || strcmp(argv[i + 1], "--") != 0) {
		fprintf(stderr, "usage: kill_at_mkdir [-b] PATH -- CMD...\n");
		return 1;
	}
	want = argv[i];
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0 || raise(SIGSTOP))
			_exit(1);
		execvp(argv[i + 2], argv + i + 2);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status) ||
	    ptrace(PTRACE_SETOPTIONS, pid, NULL,
		   PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC |
		   PTRACE_O_EXITKILL) < 0) {
		perror("kill_at_mkdir: ptrace");
		return 1;
	}
	sig = 0;
	for (;;) {
		if (ptrace(PTRACE_SYSCALL, pid, NULL, (void *)(long)sig) < 0)
			return 1;
		sig = 0;
		if (waitpid(pid, &status, 0) != pid)
			return 1;
		if (WIFEXITED(status) || WIFSIGNALED(status))
			return 3;
		if (!WIFSTOPPED(status))
			continue;
		if (WSTOPSIG(status) != (SIGTRAP | 0x80)) {
			/* An event stop passes nothing on; a signal goes on. */
			if (status >> 16 == 0)
				sig = WSTOPSIG(status);
			continue;
		}
		if (ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof(info),
			   &info) < 0)
			return 1;
		if (info.op == PTRACE_SYSCALL_INFO_ENTRY) {
			unsigned long arg;

			if (info.entry.nr == SYS_mkdirat)
				arg = info.entry.args[1];
#ifdef SYS_mkdir
			else if (info.entry.nr == SYS_mkdir)
				arg = info.entry.args[0];
#endif
			else
				continue;
			armed = peek_string(pid, arg, path, sizeof(path)) == 0 &&
				strcmp(path, want) == 0;
			if (armed && before)
				break;
		} else if (info.op == PTRACE_SYSCALL_INFO_EXIT && armed) {
			if (info.exit.rval == 0)
				break;
			armed = false;
		}
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	printf("killed %s mkdir('%s')\n", before ? "before" : "after", want);
	return 0;
}
