/* SPDX-License-Identifier: MIT */
/*
 * execwatch.c - an execve() of the sandbox judged on what the kernel
 * loaded (execwatch.h).
 *
 * The order is what makes it hold: traced before the call goes on, so
 * the exec stop cannot be missed; interrupted right after, so a call
 * that fails (or is restarted) stops on its way back to user space
 * instead of running on traced.  A seized tracee reports its stops to
 * this thread only; the thread waits for that one tracee by pid (after a
 * non-leader thread's exec it carries its thread group's id).
 */
#include <vbox.h>

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "supervisor/childpath.h"
#include "execwatch.h"
#include "pathcall_int.h"
#include "pathcall_run.h"
#include "strbuf.h"

/* /proc/PID/maps right after an exec lists a handful of mappings. */
#define MAPS_MAX (256u << 10)
/* The auxiliary vector is a few hundred bytes. */
#define AUXV_MAX (16u << 10)

#define DELETED " (deleted)"

/* Said once: why an exec cannot be watched here. */
static atomic_bool said_untraceable;

/* The thread group @tid belongs to (host pid), or -1. */
static pid_t tgid_of(pid_t tid)
{
	struct strbuf b = { 0 };
	const char *p;
	long v = -1;

	if (child_proc_read(tid, "status", 64u << 10, &b) == 0 &&
	    (p = strstr(b.s, "\nTgid:\t")))
		v = strtol(p + 7, NULL, 10);
	free(b.s);
	return v > 0 ? (pid_t)v : -1;
}

/*
 * The next stop or end of the tracee @*pid, which becomes @tgid once its
 * exec has made it the thread group's leader.  1 with *@status for a
 * stop, 0 when it is gone (exited, killed, reaped by another), -1 on an
 * error that leaves nothing to wait for.
 */
static int next_stop(pid_t *pid, pid_t tgid, int *status)
{
	pid_t got;

	for (;;) {
		got = waitpid(*pid, status, __WALL);
		if (got == *pid)
			return WIFSTOPPED(*status) ? 1 : 0;
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0 && errno == ECHILD && *pid != tgid && tgid > 0) {
			*pid = tgid;	/* a non-leader's exec: now the leader */
			continue;
		}
		return got < 0 && errno == ECHILD ? 0 : -1;
	}
}

/*
 * Let the tracee go: at a stop, detached (with the signal of a
 * signal-delivery stop handed back to it); running, interrupted first.
 */
static void release(pid_t pid, pid_t tgid)
{
	int status, event, sig;

	if (ptrace(PTRACE_INTERRUPT, pid, 0, 0) < 0 && errno == ESRCH &&
	    pid != tgid && tgid > 0)
		pid = tgid;
	while (next_stop(&pid, tgid, &status) == 1) {
		event = status >> 16;
		sig = WSTOPSIG(status);
		if (ptrace(PTRACE_DETACH, pid, 0,
			   (void *)(long)(event == 0 && sig != SIGTRAP ? sig :
					  0)) == 0 || errno == ESRCH)
			return;
	}
}

/* Judge @path (as /proc prints it) for reading, " (deleted)" or not. */
static int judge_shown(const struct pathcall_env *e, const char *path)
{
	size_t n = strlen(path), k = strlen(DELETED);
	char *live;
	int rc;

	/* /proc escapes a newline as "\012" and nothing else: a name
	 * holding a backslash cannot be told from one that was escaped */
	if (strchr(path, '\\'))
		return EACCES;
	rc = e->judge(e->judge_ctx, path, PJ_READ, "exec (as loaded)");
	if (!rc && n > k && strcmp(path + n - k, DELETED) == 0) {
		live = xstrndup(path, n - k);
		rc = e->judge(e->judge_ctx, live, PJ_READ, "exec (as loaded)");
		free(live);
	}
	return rc;
}

/* Every file mapped in @pid (its program and interpreter), judged. */
static int judge_maps(const struct pathcall_env *e, pid_t pid)
{
	struct strbuf b = { 0 };
	char *line, *next, *path;
	int rc, off;

	rc = child_proc_read(pid, "maps", MAPS_MAX, &b);
	if (rc)
		goto out;
	for (line = b.s; line && *line && !rc; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		/* "start-end perms offset dev inode   path" */
		off = -1;
		if (sscanf(line, "%*x-%*x %*s %*x %*x:%*x %*u %n", &off) < 0 ||
		    off < 0)
			continue;
		path = line + off;
		if (*path == '/')
			rc = judge_shown(e, path);
	}
out:
	free(b.s);
	return rc;
}

/*
 * binfmt_misc's "O" flag hands the interpreter the program as an open
 * fd (AT_EXECFD) that it reads without a call of its own: judged too.
 */
static int judge_execfd(const struct pathcall_env *e, pid_t pid)
{
	struct strbuf b = { 0 };
	Elf64_auxv_t av;
	size_t i;
	int rc, fd;

	rc = child_proc_read(pid, "auxv", AUXV_MAX, &b);
	for (i = 0; !rc && i + sizeof(av) <= b.len; i += sizeof(av)) {
		memcpy(&av, b.s + i, sizeof(av));
		if (av.a_type == AT_NULL)
			break;
		if (av.a_type != AT_EXECFD)
			continue;
		if (av.a_un.a_val > INT32_MAX || !e->take) {
			rc = EACCES;
			break;
		}
		rc = e->take(e->take_ctx, pid, (int)av.a_un.a_val, &fd,
			     NULL);
		if (!rc) {
			rc = pc_judge_fd(e, fd, PJ_READ, "exec (as loaded)",
					 false);
			close(fd);
		}
	}
	free(b.s);
	return rc;
}

/* At the exec stop: what the kernel loaded into @pid, judged. */
static int judge_loaded(const struct pathcall_env *e, pid_t pid)
{
	char link[64];
	int fd, rc;

	child_proc_path(link, sizeof(link), pid, "exe");
	fd = open(link, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return EACCES;
	rc = pc_judge_fd(e, fd, PJ_READ, "exec (as loaded)", false);
	close(fd);
	if (!rc)
		rc = judge_maps(e, pid);
	if (!rc)
		rc = judge_execfd(e, pid);
	return rc;
}

static void say_untraceable(pid_t tid, int err)
{
	if (atomic_exchange(&said_untraceable, true))
		return;
	fprintf(stderr, "vbox: refused exec in the sandbox (thread %d): the "
		"supervisor judges a program once loaded and must trace the "
		"caller for that, which failed: %s%s\n", (int)tid,
		strerror(err), err == EPERM ? " (a debugger of the sandbox "
		"traces it already, or ptrace is refused here)" : "");
	fflush(stderr);
}

int execwatch_run(const struct pathcall_env *e, uint64_t id,
		  execwatch_go_fn go, void *go_ctx)
{
	pid_t pid = e->tid, tgid = tgid_of(e->tid);
	int status, rc, err;

	if (ptrace(PTRACE_SEIZE, pid, 0,
		   (void *)(long)(PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL)) < 0) {
		err = errno;
		if (err == ESRCH)
			return ESRCH;
		say_untraceable(pid, err);
		return EPERM;
	}
	err = go(go_ctx, id);
	if (err) {
		/* the caller was interrupted or went away: nothing went on */
		release(pid, tgid);
		return err == ENOENT ? ESRCH : err;
	}
	/* stop on the way back if the call fails: never run on traced */
	(void)ptrace(PTRACE_INTERRUPT, pid, 0, 0);
	while ((rc = next_stop(&pid, tgid, &status)) == 1) {
		if (status >> 16 != PTRACE_EVENT_EXEC) {
			/* failed or restarted: the kernel answered it */
			if (ptrace(PTRACE_DETACH, pid, 0,
				   (void *)(long)(status >> 16 == 0 &&
						  WSTOPSIG(status) != SIGTRAP ?
						  WSTOPSIG(status) : 0)) == 0 ||
			    errno == ESRCH)
				return 0;
			continue;
		}
		/* loaded, not yet run: judged on what is there now */
		if (judge_loaded(e, pid)) {
			kill(pid, SIGKILL);
			release(pid, tgid);
			return 0;
		}
		/* detaching clears the pending interrupt */
		if (ptrace(PTRACE_DETACH, pid, 0, 0) == 0 || errno == ESRCH)
			return 0;
	}
	return 0;
}
