/* SPDX-License-Identifier: MIT */
/*
 * execwatch.h - an execve() of the sandbox, judged on what the kernel
 * loaded (doc/launcher.md, "What continues").
 *
 * No process can run a program for another, so a judged execve() must
 * go on as the child's own call, and the kernel then reads the path (in
 * the child's memory) and the program's first bytes (on disk) again: a
 * second thread could swap either after the judgement.  The decision is
 * therefore taken again where nothing can change any more: the calling
 * thread is traced (PTRACE_SEIZE, PTRACE_O_TRACEEXEC) before its call
 * goes on and interrupted right after, so it stops either at
 * PTRACE_EVENT_EXEC, after the new program is loaded and before it runs
 * one instruction, or on its way back from a failed call.  At the exec
 * stop every file the kernel loaded (the program, its interpreter, an fd
 * binfmt_misc passes) is judged for reading by its path; one the table
 * denies ends the program with SIGKILL before it runs.  The tracer then
 * detaches; the thread is traced for the length of one execve() only.
 */
#ifndef VBOX_SUPERVISOR_EXECWATCH_H
#define VBOX_SUPERVISOR_EXECWATCH_H

#include <stdint.h>
#include <sys/types.h>

struct pathcall_env;

/*
 * execwatch_go_fn - let notification @id go on as the child made it
 * (SECCOMP_USER_NOTIF_FLAG_CONTINUE).  0, or an errno (ENOENT: the
 * caller went away).
 */
typedef int (*execwatch_go_fn)(void *ctx, uint64_t id);

/*
 * execwatch_run - the judged execve() of thread @env->tid, pending as
 * notification @id: traced, let go on through @go, and its program
 * judged once loaded (killed when denied).  0 when the call went on (its
 * answer is given; the child then sees the kernel's result, or dies of
 * SIGKILL), or the errno to answer the child with when it did not go on
 * (EPERM: the thread cannot be traced, already traced by another
 * process, say; ESRCH: it went away).  Runs on the paths thread, which
 * becomes the tracer.
 */
int execwatch_run(const struct pathcall_env *env, uint64_t id,
		  execwatch_go_fn go, void *go_ctx);

#endif /* VBOX_SUPERVISOR_EXECWATCH_H */
