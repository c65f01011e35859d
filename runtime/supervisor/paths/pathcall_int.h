/* SPDX-License-Identifier: MIT */
/*
 * pathcall_int.h - what pathcall_run.c and pathcall_open.c share: a
 * path made absolute as the sandbox names it, resolved in its root, and
 * the file reached judged (pathcall_resolve.c, whose head comment says
 * how), and the opens (pathcall_open.c), which pathcall_run.c
 * dispatches to.  Internal to the supervised path calls.
 */
#ifndef VBOX_SUPERVISOR_PATHCALL_INT_H
#define VBOX_SUPERVISOR_PATHCALL_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct pathcall;
struct pathcall_env;
struct pathcall_result;
struct strbuf;

/* "/proc/self/fd/%d" of our own fd @fd into @buf. */
void pc_self_fd(char *buf, size_t size, int fd);

/* (@dirfd, @path) as an absolute path in the sandbox, appended to @full.
 * 0 or an errno for the child. */
int pc_full_path(const struct pathcall_env *e, int dirfd, const char *path,
		 struct strbuf *full);

/* The child's own fd that @full names (/proc/self/fd/N, /dev/fd/N,
 * /dev/std*), or -1. */
int pc_own_fd_name(const char *full);

/* /proc/self, /proc/thread-self in @full made the caller's numbers. */
int pc_rewrite_self(const struct pathcall_env *e, struct strbuf *full);

/* The file our fd @fd reached, judged for @want (PJ_*); @anon_ok: an fd
 * that names no file (a pipe) passes.  0 or an errno. */
int pc_judge_fd(const struct pathcall_env *e, int fd, unsigned want,
		const char *what, bool anon_ok);

/* pc_judge_fd() of a file with a path, at @name when the resolution
 * gave it (child_open_in_root_named()), else read back from @fd. */
int pc_judge_named(const struct pathcall_env *e, int fd, const char *name,
		   unsigned want, const char *what);

/* What an open with @flags does to its file (PJ_*). */
unsigned pc_open_wants(uint64_t flags);

/* The write of a name's directory, as a name change makes it (@judged:
 * the parent's path, "/", the name).  0 or an errno. */
int pc_judge_entries(const struct pathcall_env *e, const struct strbuf *judged);

/* The parent of the absolute @full opened O_PATH in the root (*@pfd),
 * the last name as the call takes it (*@name, caller frees) and the
 * name as judged (@judged).  0 or an errno. */
int pc_open_parent(const struct pathcall_env *e, const char *full, int *pfd,
		   char **name, struct strbuf *judged);

/* Is the last name "." or ".."? */
bool pc_dot_name(const char *name);

/* The child may make files here (its fs ids are ours): its umask in
 * *@mask.  0 or an errno. */
int pc_creator(const struct pathcall_env *e, mode_t *mask);

/* The opens (pathcall_open.c). */
void pathcall_open(const struct pathcall *pc, const struct pathcall_env *e,
		   struct pathcall_result *res);

#endif /* VBOX_SUPERVISOR_PATHCALL_INT_H */
