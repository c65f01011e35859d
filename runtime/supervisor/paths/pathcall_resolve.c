/* SPDX-License-Identifier: MIT */
/*
 * pathcall_resolve.c - what every supervised path call does first
 * (pathcall_int.h): the path made absolute as the sandbox names it (the
 * child's working directory or directory fd read through /proc), the
 * parent of a name opened in the sandbox's root, the file reached or the
 * name made judged by the table.  pathcall_open.c and pathcall_run.c
 * make the calls on what this resolved.
 *
 * /proc needs care: /proc/self names the resolver, and the supervisor
 * may open files of the sandbox's processes the child may not (it owns
 * the sandbox's user namespace).  /proc/self and /proc/thread-self are
 * rewritten to the caller's numbers; /proc/self/fd/N, /dev/fd/N and
 * /dev/std* are the child's own fd, taken and reopened; other processes'
 * entries are open to reading a few public files only.
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <unistd.h>

#include "supervisor/childpath.h"
#include "pathcall_int.h"
#include "pathcall_run.h"
#include "strbuf.h"

/* ------------------------------------------------------------------ */
/* paths */

/* "/proc/self/fd/%d" of our own fd (an int always fits). */
void pc_self_fd(char *buf, size_t size, int fd)
{
	proc_name(buf, size, "/proc/self/fd/", fd, "");
}

/*
 * (@dirfd, @path) as an absolute path in the sandbox, into @full.
 * 0 or an errno for the child.
 */
int pc_full_path(const struct pathcall_env *e, int dirfd,
		     const char *path, struct strbuf *full)
{
	char what[32];
	int rc;

	if (path[0] == '/' || dirfd == AT_FDCWD)
		return child_full_path(e->tid, path, full);
	if (dirfd < 0)
		return EBADF;
	snprintf(what, sizeof(what), "fd/%d", dirfd);
	rc = child_link(e->tid, what, full);
	if (rc == ESRCH)
		return EBADF;
	if (rc == EACCES)
		return ENOTDIR;	/* a pipe or a socket */
	if (rc)
		return rc;
	if (path[0]) {
		strbuf_putc(full, '/');
		strbuf_puts(full, path);
	}
	return full->len >= PATH_MAX ? ENAMETOOLONG : 0;
}

/* Parse decimal digits at @s up to @end (or NUL): the number, or -1. */
static long digits(const char *s, const char **end)
{
	long v = 0;

	if (*s < '0' || *s > '9')
		return -1;
	while (*s >= '0' && *s <= '9') {
		v = v * 10 + (*s - '0');
		if (v > INT_MAX)
			return -1;
		s++;
	}
	*end = s;
	return v;
}

/*
 * Is @full one of the child's own fds by name (/proc/self/fd/N,
 * /proc/thread-self/fd/N, /dev/fd/N, /dev/stdin, /dev/stdout,
 * /dev/stderr)?  The fd number, or -1.
 */
int pc_own_fd_name(const char *full)
{
	static const char *const prefixes[] = {
		"/proc/self/fd/", "/proc/thread-self/fd/", "/dev/fd/",
	};
	const char *end;
	size_t i;
	long n;

	if (strcmp(full, "/dev/stdin") == 0)
		return 0;
	if (strcmp(full, "/dev/stdout") == 0)
		return 1;
	if (strcmp(full, "/dev/stderr") == 0)
		return 2;
	for (i = 0; i < array_size(prefixes); i++) {
		size_t len = strlen(prefixes[i]);

		if (strncmp(full, prefixes[i], len) != 0)
			continue;
		n = digits(full + len, &end);
		if (n >= 0 && !*end)
			return (int)n;
	}
	return -1;
}

/*
 * /proc/self and /proc/thread-self in @full, rewritten to the caller's
 * numbers in the sandbox's pid namespace (the resolver is not in it).
 */
int pc_rewrite_self(const struct pathcall_env *e, struct strbuf *full)
{
	static const char self[] = "/proc/self", thread[] = "/proc/thread-self";
	struct strbuf out = { 0 };
	const char *rest;
	char *line;
	pid_t tgid, pid;
	int rc;

	if (strncmp(full->s, self, sizeof(self) - 1) == 0 &&
	    (!full->s[sizeof(self) - 1] || full->s[sizeof(self) - 1] == '/'))
		rest = full->s + sizeof(self) - 1;
	else if (strncmp(full->s, thread, sizeof(thread) - 1) == 0 &&
		 (!full->s[sizeof(thread) - 1] ||
		  full->s[sizeof(thread) - 1] == '/'))
		rest = full->s + sizeof(thread) - 1;
	else
		return 0;
	rc = child_ns_ids(e->tid, &tgid, &pid);
	if (rc)
		return rc == ESRCH ? ESRCH : EACCES;
	if (rest == full->s + sizeof(self) - 1)
		line = xasprintf("/proc/%d%s", (int)tgid, rest);
	else
		line = xasprintf("/proc/%d/task/%d%s", (int)tgid, (int)pid,
				 rest);
	strbuf_puts(&out, line);
	free(line);
	free(full->s);
	*full = out;
	return full->len >= PATH_MAX ? ENAMETOOLONG : 0;
}

/* ------------------------------------------------------------------ */
/* judging */

/* Files of another process in /proc the child may read through us. */
static bool proc_public(const char *rest)
{
	static const char *const ok[] = {
		"", "/", "/stat", "/statm", "/status", "/cmdline", "/comm",
		"/task", "/task/",
	};
	const char *end;
	size_t i;

	/* /task/TID and its public files, as the process's own (ps -L) */
	if (strncmp(rest, "/task/", 6) == 0 && digits(rest + 6, &end) > 0)
		rest = end;
	for (i = 0; i < array_size(ok); i++)
		if (strcmp(rest, ok[i]) == 0)
			return true;
	return false;
}

/*
 * The file @fd reached, at @path, judged for @want: its path by the
 * table; in /proc, another process's entries only for reading public
 * files.  0 or an errno.
 */
static int judge_at(const struct pathcall_env *e, int fd, const char *path,
		    unsigned want, const char *what)
{
	struct statfs sfs;
	const char *end;
	pid_t tgid, pid;
	long n;
	int rc;

	/* (the path first: a statfs per call saved) */
	if (strncmp(path, "/proc/", 6) == 0 &&
	    (n = digits(path + 6, &end)) > 0 &&
	    fstatfs(fd, &sfs) == 0 && sfs.f_type == PROC_SUPER_MAGIC) {
		rc = child_ns_ids(e->tid, &tgid, &pid);
		if (rc || (n != tgid && ((want & PJ_WRITE) ||
					 !proc_public(end))))
			return rc == ESRCH ? ESRCH : EACCES;
	}
	return e->judge(e->judge_ctx, path, want, what);
}

/*
 * judge_at() of the path the kernel prints for @fd.  @anon_ok: an fd
 * that names no file (a pipe) is fine; a file whose path the kernel
 * cannot print (past PATH_MAX) is never taken for one.
 */
int pc_judge_fd(const struct pathcall_env *e, int fd, unsigned want,
		    const char *what, bool anon_ok)
{
	char *path;
	int rc, kind = self_fd_file(fd, &path);

	if (kind <= 0)
		return kind == 0 && anon_ok ? 0 : EACCES;
	rc = judge_at(e, fd, path, want, what);
	free(path);
	return rc;
}

int pc_judge_named(const struct pathcall_env *e, int fd, const char *name,
		   unsigned want, const char *what)
{
	return name ? judge_at(e, fd, name, want, what) :
		      pc_judge_fd(e, fd, want, what, false);
}

/*
 * What an open with @flags does to its file.  An access mode of 3 (both
 * bits) opens for ioctls alone, but the kernel asks for read and write
 * permission, and a read-only mount answers EROFS: judged as both.
 */
unsigned pc_open_wants(uint64_t flags)
{
	unsigned acc = (unsigned)(flags & O_ACCMODE), want = 0;

	if (flags & O_PATH)
		return PJ_READ;
	if (acc == O_RDONLY || acc == O_RDWR || acc == O_ACCMODE)
		want |= PJ_READ;
	if (acc != O_RDONLY || (flags & O_TRUNC))
		want |= PJ_WRITE;
	return want ? want : PJ_READ;
}

/*
 * The parent directory of the absolute @full opened (O_PATH) in the
 * root, the last name (with any trailing slashes, as the call takes it)
 * and the name as judged (@judged: the parent's path, "/", the name).
 */
int pc_open_parent(const struct pathcall_env *e, const char *full,
		       int *pfd, char **name, struct strbuf *judged)
{
	size_t len = strlen(full), end = len, start;
	char *dir, *parent;
	int rc;

	*pfd = -1;
	*name = NULL;
	while (end > 1 && full[end - 1] == '/')
		end--;
	start = end;
	while (start > 0 && full[start - 1] != '/')
		start--;
	if (start == end)
		return EBUSY;	/* "/" itself */
	dir = xstrndup(full, start);
	*pfd = child_open_in_root(e->root_fd, dir, O_DIRECTORY, &rc);
	free(dir);
	if (*pfd < 0)
		return rc;
	parent = self_fd_path(*pfd);
	if (!parent) {
		close(*pfd);
		*pfd = -1;
		return EACCES;
	}
	strbuf_puts(judged, parent);
	if (judged->len > 1)
		strbuf_putc(judged, '/');
	strbuf_add(judged, full + start, end - start);
	free(parent);
	*name = xstrdup(full + start);
	return 0;
}

/* Is the last name (trailing slashes aside) "." or ".."? */
bool pc_dot_name(const char *name)
{
	size_t n = strcspn(name, "/");

	return (n == 1 && name[0] == '.') ||
	       (n == 2 && name[0] == '.' && name[1] == '.');
}

/*
 * Creating a file makes it with the supervisor's fs ids and the child's
 * umask: the ids must be the child's (they are: the sandbox runs as the
 * launching user), the umask is set around the call.  0 or an errno.
 */
int pc_creator(const struct pathcall_env *e, mode_t *mask)
{
	uid_t fsuid;
	gid_t fsgid;
	int rc = child_status(e->tid, mask, &fsuid, &fsgid);

	if (rc)
		return rc;
	return fsuid == geteuid() && fsgid == getegid() ? 0 : EACCES;
}

/*
 * A name made, removed or renamed writes its directory too: a row that
 * decides the directory but not its entries (`ro: /w/d?`, or a deny of
 * every `.env` where one is a directory) refuses the change, as a
 * read-only mount of that directory would.  @judged is the parent's
 * path, "/", the name.  0 or an errno.
 */
int pc_judge_entries(const struct pathcall_env *e, const struct strbuf *judged)
{
	size_t cut = judged->len;
	char *dir;
	int rc;

	while (cut > 0 && judged->s[cut - 1] != '/')
		cut--;
	dir = cut <= 1 ? xstrdup("/") : xstrndup(judged->s, cut - 1);
	rc = e->judge(e->judge_ctx, dir, PJ_WRITE, "changing the entries");
	free(dir);
	return rc;
}
