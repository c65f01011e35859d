/* SPDX-License-Identifier: MIT */
/*
 * pathcall_run.h - make a supervised path call (pathcall.h) for the
 * child: resolve every path in the sandbox's root as the kernel would
 * for the child, judge the file reached (or the name made), make the call
 * on exactly that, and say what the child gets.
 */
#ifndef VBOX_SUPERVISOR_PATHCALL_RUN_H
#define VBOX_SUPERVISOR_PATHCALL_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct metacall;
struct pathcall;

/* What a judged path is used for. */
#define PJ_READ 1u
#define PJ_WRITE 2u

/*
 * pathcall_judge_fn - may the child @want (PJ_READ, PJ_WRITE) the file
 * the sandbox names @path?  0, EACCES (denied) or EROFS (read-only).
 * @what names the call for the refusal's notice; NULL: ask quietly (a
 * rename's look below a directory).
 */
typedef int (*pathcall_judge_fn)(void *ctx, const char *path, unsigned want,
				 const char *what);

/*
 * pathcall_below_fn - might a row decide some path below @a differently
 * from the same path below @b (so a directory renamed from @a to @b must
 * be looked into)?
 */
typedef bool (*pathcall_below_fn)(void *ctx, const char *a, const char *b);

/*
 * pathcall_take_fn - the child's fd @fd: a copy (pidfd_getfd()), or where
 * that is refused a handle of its file (O_PATH, from /proc/TID/fd/N):
 * 0 with *@out and, when @acc is not NULL, the status flags of the
 * child's fd in *@acc (as F_GETFL gives them), or an errno.
 */
typedef int (*pathcall_take_fn)(void *ctx, pid_t tid, int fd, int *out,
				int *acc);

/**
 * struct pathcall_env - whose call, and how to judge it
 * @tid: the calling thread (host pid)
 * @root_fd: the sandbox's root (O_PATH)
 * @judge, @below, @judge_ctx: the table's answers (pathjudge.h)
 * @take, @take_ctx: fds of the child, for /proc/self/fd/N
 */
struct pathcall_env {
	pid_t tid;
	int root_fd;
	pathcall_judge_fn judge;
	pathcall_below_fn below;
	void *judge_ctx;
	pathcall_take_fn take;
	void *take_ctx;
};

/**
 * struct pathcall_result - what the child gets
 * @err: the errno (0: success)
 * @val: the call's value when it returns no fd
 * @fd: an fd to install in the child as the call's result (owned by the
 *      caller once set; -1: none)
 * @cloexec: install it close-on-exec
 * @exec_go: EXEC judged: let the call go on, watched (execwatch.h)
 * @blocking: OPEN of a FIFO that blocks: @fd is an O_PATH fd of it, to
 *            open with @open_flags where blocking harms nothing
 * @open_flags: for @blocking
 */
struct pathcall_result {
	int err;
	int64_t val;
	int fd;
	bool cloexec;
	bool exec_go;
	bool blocking;
	int open_flags;
};

void pathcall_run(const struct pathcall *pc, const struct pathcall_env *env,
		  struct pathcall_result *res);

/*
 * pathcall_meta - a metadata call (metacall.h) in namespace mode with
 * supervised paths: resolved as pathcall_run() resolves, judged for
 * writing, made by metacall_apply().  0 or an errno.
 */
int pathcall_meta(const struct metacall *mc, const struct pathcall_env *env);

#endif /* VBOX_SUPERVISOR_PATHCALL_RUN_H */
