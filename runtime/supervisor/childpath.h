/* SPDX-License-Identifier: MIT */
/*
 * childpath.h - a sandboxed thread's paths, as the supervisors (sockets:
 * unixsock.h; paths: pathcall.h) must see them: a path the child gave
 * made absolute from its working directory, opened in the sandbox's root
 * exactly as the kernel would resolve it for the child (and its lexical
 * form where that met no link), and the child's umask and fs ids.  Everything read here (the path, /proc/TID/cwd, /proc/TID/status)
 * is the sandbox's choice: buffers grow to fit, up to PATH_MAX or the
 * status file's bound, never a fixed size filled from them.
 *
 * Each function returns 0 or the errno the child should get.
 */
#ifndef VBOX_SUPERVISOR_CHILDPATH_H
#define VBOX_SUPERVISOR_CHILDPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct strbuf;

/*
 * proc_name - @pre, the decimal @n (at least 0), then @post into @buf of
 * @size bytes: the /proc names every supervised call makes, without the
 * C library's formatted printing (a fifth of the supervisor's own CPU
 * time a call, measured).  Our sizes always fit; BUG() otherwise.
 */
void proc_name(char *buf, size_t size, const char *pre, long n,
	       const char *post);

/* "/proc/TID/WHAT" into @buf of @size bytes (a pid always fits). */
void child_proc_path(char *buf, size_t size, pid_t tid, const char *what);

/*
 * child_link - the target of link /proc/TID/@what (cwd, fd/N) as the
 * sandbox names it, appended to @out: 0, ESRCH (no such link), EACCES
 * (not a path: a pipe, or unreachable from the sandbox's root) or
 * ENAMETOOLONG.
 */
int child_link(pid_t tid, const char *what, struct strbuf *out);

/*
 * @path as an absolute path in the sandbox, appended to @full: a
 * relative one from thread @tid's working directory.  ENAMETOOLONG past
 * PATH_MAX, as the kernel.
 */
int child_full_path(pid_t tid, const char *path, struct strbuf *full);

/*
 * openat2() the absolute @full in the sandbox's root @root_fd as the
 * kernel would resolve it for the child (symlinks and ".." inside the
 * root, no magic links), O_PATH plus @flags.  The fd, or -1 with *@rc
 * the errno for the child (a path through /proc that does not resolve
 * here, an escape or a rename race: EACCES).
 */
int child_open_in_root(int root_fd, const char *full, int flags, int *rc);

/*
 * path_lexical - the absolute @full with repeated slashes, "." and ".."
 * taken out as the kernel resolves them in the sandbox's root where no
 * symbolic link is met: ".." drops the name before it, ".." of "/" is
 * "/".  No trailing slash but for "/" itself.  Caller frees.
 */
char *path_lexical(const char *full);

/*
 * child_open_in_root_named - child_open_in_root() with open flags @flags
 * as given (O_PATH or the child's), first with no symbolic link allowed
 * anywhere in @full.  When that resolves, the walk is @full itself and
 * *@name is its lexical form (path_lexical()), the file's path in the
 * sandbox as reading it back through /proc would give it; the names on
 * the way were those of the entries the kernel looked up, and what could
 * rename a protected entry is itself judged.  Where a link is met, it
 * resolves as child_open_in_root() does and *@name is NULL: the caller
 * reads the name back.  The fd, or -1 with *@rc.
 */
int child_open_in_root_named(int root_fd, const char *full, uint64_t flags,
			     int *rc, char **name);

struct open_how;

/*
 * child_openat2 - openat2() as the supervisor resolves a child's path,
 * retried (boundedly) where the kernel answers EAGAIN: under
 * RESOLVE_IN_ROOT or RESOLVE_BENEATH a ".." step (a symbolic link such as
 * /usr/bin/npm -> ../share/...) gives up when a rename or a mount
 * happens anywhere on the host meanwhile, and the kernel's answer is to
 * try again.  Not retried for RESOLVE_CACHED, whose EAGAIN is an answer.
 * The fd, or -1 with errno (EAGAIN still after the retries).
 */
int child_openat2(int dirfd, const char *path, const struct open_how *how);

/*
 * child_proc_read - /proc/TID/@what whole, appended to @b: 0, ESRCH (no
 * such thread), or EACCES (unreadable, or longer than @max bytes: a
 * file the sandbox could grow is never read without a bound).
 */
int child_proc_read(pid_t tid, const char *what, size_t max,
		    struct strbuf *b);

/* Thread @tid's umask and fs uid and gid, from /proc/TID/status. */
int child_status(pid_t tid, mode_t *umask_out, uid_t *fsuid, gid_t *fsgid);

/*
 * child_ns_ids - thread @tid's thread-group id and its own id as the
 * sandbox's pid namespace numbers them (the last NStgid and NSpid), for
 * /proc/self and /proc/thread-self.  0 or an errno.
 */
int child_ns_ids(pid_t tid, pid_t *tgid, pid_t *pid);

/*
 * self_fd_path - the path our fd @fd names now (for a file in the
 * sandbox's mount namespace: as the sandbox names it), without a
 * " (deleted)" tail; NULL when it names no file (a pipe, a socket) or is
 * longer than PATH_MAX.  Caller frees.
 */
char *self_fd_path(int fd);

/*
 * self_fd_file - what our fd @fd names: 1 and *@path (caller frees) for
 * a file with a path, 0 for an fd with none (a pipe, a socket, an
 * anonymous inode: its link is no path), -1 when it cannot be told (a
 * path longer than the kernel prints, ENAMETOOLONG): a caller that lets
 * an fd with no path pass must never take -1 for 0.
 */
int self_fd_file(int fd, char **path);

/*
 * child_peek - @len bytes of thread @tid's memory at @addr into @buf
 * (process_vm_readv(), or /proc/TID/mem where that is refused).  0 or an
 * errno (ESRCH: gone; EFAULT).
 */
int child_peek(pid_t tid, uint64_t addr, void *buf, size_t len);

/**
 * struct child_fds - the last caller's pidfd, kept: a pidfd pins its
 * process, so a reused pid fails (ESRCH) and is opened again
 * @tid: that caller (0: none)
 * @pidfd: its pidfd (-1: none)
 */
struct child_fds {
	pid_t tid;
	int pidfd;
};

/* child_take_fd - a copy of thread @tid's fd @fd (pidfd_getfd()) into
 * *@out.  0 or an errno. */
int child_take_fd(struct child_fds *c, pid_t tid, int fd, int *out);

/*
 * child_open_fd - where pidfd_getfd() is refused: a handle (O_PATH) of
 * the file thread @tid's fd @fd refers to, from /proc/TID/fd/N, and in
 * *@acc (when not NULL) the status flags a fd of the child held on that
 * very file (/proc/TID/fdinfo/N, read between two looks that must find
 * the same file: a fd swapped meanwhile is another file's, refused with
 * EAGAIN).  0 or an errno (EBADF: no such fd).
 */
int child_open_fd(pid_t tid, int fd, int *out, int *acc);

/* child_fds_release - close the pidfd kept. */
void child_fds_release(struct child_fds *c);

/* child_mem_io - read or write through /proc/TID/mem.  0 or an errno. */
int child_mem_io(pid_t tid, uint64_t addr, void *buf, size_t len,
		 bool write);

#endif /* VBOX_SUPERVISOR_CHILDPATH_H */
