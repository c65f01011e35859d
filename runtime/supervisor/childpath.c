/* SPDX-License-Identifier: MIT */
/*
 * childpath.c - a sandboxed thread's paths and credentials, for the
 * socket and path supervisors: its working directory and fds read
 * through /proc, its paths resolved in the sandbox's root (and their
 * lexical form, the name judged where no link was met), its memory
 * read; see childpath.h.
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "childpath.h"
#include "strbuf.h"

/* /proc/TID/status is a few KiB; anything longer is not it. */
#define STATUS_MAX (64u << 10)

void proc_name(char *buf, size_t size, const char *pre, long n,
	       const char *post)
{
	char digits[24];
	size_t i = sizeof(digits), a = strlen(pre), b = strlen(post), d;
	long v = n;

	if (n < 0)
		BUG("a /proc name of a negative number %ld", n);
	do
		digits[--i] = (char)('0' + v % 10);
	while ((v /= 10) > 0);
	d = sizeof(digits) - i;
	if (a + d + b >= size)
		BUG("%s%ld%s does not fit %zu bytes", pre, n, post, size);
	memcpy(buf, pre, a);
	memcpy(buf + a, digits + i, d);
	memcpy(buf + a + d, post, b + 1);
}

/* "/proc/TID/WHAT" into @buf (a pid always fits). */
void child_proc_path(char *buf, size_t size, pid_t tid, const char *what)
{
	char post[64];
	size_t n = strlen(what);

	if (n + 2 > sizeof(post))
		BUG("/proc/%d/%s does not fit %zu bytes", (int)tid, what, size);
	post[0] = '/';
	memcpy(post + 1, what, n + 1);
	proc_name(buf, size, "/proc/", (long)tid, post);
}

/*
 * /proc/TID/WHAT (a link: cwd, fd/N) as the sandbox names its target,
 * appended to @out.  A link of a task in another mount namespace reads
 * as the path from that namespace's root.  Read into a buffer grown to
 * fit, up to PATH_MAX (the kernel's own bound on a path: ENAMETOOLONG).
 */
int child_link(pid_t tid, const char *what, struct strbuf *out)
{
	char link[64], *buf = NULL;
	size_t size = 256;
	ssize_t n;
	int rc;

	child_proc_path(link, sizeof(link), tid, what);
	for (;;) {
		buf = xrealloc(buf, size);
		n = readlink(link, buf, size);
		if (n < 0) {
			rc = errno == ENOENT ? ESRCH : EACCES;
			goto out;
		}
		if ((size_t)n < size)
			break;
		if (size > PATH_MAX) {
			rc = ENAMETOOLONG;
			goto out;
		}
		size *= 2;
	}
	if (n == 0 || buf[0] != '/') {
		rc = EACCES;	/* unreachable from its root: refused */
		goto out;
	}
	strbuf_add(out, buf, (size_t)n);
	rc = 0;
out:
	free(buf);
	return rc;
}

/*
 * @path as an absolute path in the sandbox, into @full: relative ones
 * from the child's working directory.  0 or an errno (ENAMETOOLONG past
 * PATH_MAX, as the kernel).
 */
int child_full_path(pid_t tid, const char *path, struct strbuf *full)
{
	int rc;

	if (path[0] != '/') {
		rc = child_link(tid, "cwd", full);
		if (rc)
			return rc;
		strbuf_putc(full, '/');
	}
	strbuf_puts(full, path);
	return full->len >= PATH_MAX ? ENAMETOOLONG : 0;
}


/* Retries of an openat2() the kernel answered EAGAIN (child_openat2()). */
#define OPENAT2_RETRIES 256

int child_openat2(int dirfd, const char *path, const struct open_how *how)
{
	unsigned tries = 0;
	int fd;

	for (;;) {
		fd = (int)syscall(SYS_openat2, dirfd, path, how, sizeof(*how));
		if (fd >= 0 || errno != EAGAIN ||
		    (how->resolve & RESOLVE_CACHED) ||
		    ++tries >= OPENAT2_RETRIES)
			return fd;
		if (tries % 16 == 0)
			sched_yield();
	}
}

/*
 * openat2() @full in the sandbox's root as the kernel would resolve it
 * for the child (symlinks and ".." inside the root).  The fd, or -1 with
 * *@rc the errno for the child.
 */
static int open_in_root(int root_fd, const char *full, uint64_t flags,
			uint64_t resolve, int *rc)
{
	struct open_how how;
	int fd;

	memset(&how, 0, sizeof(how));
	how.flags = flags;
	how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS | resolve;
	fd = child_openat2(root_fd, full, &how);
	if (fd >= 0)
		return fd;
	*rc = errno;
	if (*rc == ELOOP && (resolve & RESOLVE_NO_SYMLINKS))
		return -1;	/* a link met: the caller resolves again */
	/*
	 * /proc/self and /proc/thread-self name the resolver, not the child,
	 * and /proc's magic links are refused: a path through /proc that
	 * does not resolve here is refused, not reported missing.
	 */
	if (strncmp(full, "/proc/", 6) == 0)
		*rc = EACCES;
	/* EXDEV, ELOOP: a magic link or an escape; EAGAIN: renames or
	 * mounts kept racing every retry.  All refusals. */
	else if (*rc == EXDEV || *rc == EAGAIN || *rc == ELOOP)
		*rc = EACCES;
	return -1;
}

int child_open_in_root(int root_fd, const char *full, int flags, int *rc)
{
	return open_in_root(root_fd, full, (uint64_t)(flags | O_PATH |
						      O_CLOEXEC), 0, rc);
}

char *path_lexical(const char *full)
{
	char *out = xmalloc(strlen(full) + 2), *o = out + 1;
	const char *p = full, *c;
	size_t n;

	out[0] = '/';
	for (;;) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		for (c = p; *p && *p != '/'; p++)
			;
		n = (size_t)(p - c);
		if (n == 1 && c[0] == '.')
			continue;
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			/* the last name off; ".." of "/" is "/" */
			while (o > out + 1 && o[-1] != '/')
				o--;
			if (o > out + 1)
				o--;
			continue;
		}
		if (o > out + 1)
			*o++ = '/';
		memcpy(o, c, n);
		o += n;
	}
	*o = '\0';
	return out;
}

int child_open_in_root_named(int root_fd, const char *full, uint64_t flags,
			     int *rc, char **name)
{
	int fd;

	*name = NULL;
	fd = open_in_root(root_fd, full, flags | O_CLOEXEC,
			  RESOLVE_NO_SYMLINKS, rc);
	if (fd >= 0) {
		*name = path_lexical(full);
		return fd;
	}
	if (*rc != ELOOP)
		return -1;
	return open_in_root(root_fd, full, flags | O_CLOEXEC, 0, rc);
}

int child_proc_read(pid_t tid, const char *what, size_t max,
		    struct strbuf *b)
{
	char path[64], chunk[1024];
	ssize_t n;
	int fd, rc = EACCES;

	child_proc_path(path, sizeof(path), tid, what);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? ESRCH : EACCES;
	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto out;
		if (n == 0)
			break;
		strbuf_add(b, chunk, (size_t)n);
		if (b->len > max)
			goto out;
	}
	rc = b->s ? 0 : EACCES;
out:
	close(fd);
	return rc;
}

/*
 * The child's umask and its fs uid and gid, from /proc/TID/status.  0 or
 * an errno.
 */
int child_status(pid_t tid, mode_t *umask_out, uid_t *fsuid, gid_t *fsgid)
{
	struct strbuf b = { 0 };
	const char *p;
	unsigned long mask;
	unsigned u[4], g[4];
	int rc = child_proc_read(tid, "status", STATUS_MAX, &b);

	if (rc)
		goto out;
	rc = EACCES;
	p = strstr(b.s, "\nUmask:\t");
	if (!p || sscanf(p + 8, "%lo", &mask) != 1 || mask > 0777)
		goto out;
	p = strstr(b.s, "\nUid:\t");
	if (!p || sscanf(p + 6, "%u %u %u %u", &u[0], &u[1], &u[2], &u[3]) != 4)
		goto out;
	p = strstr(b.s, "\nGid:\t");
	if (!p || sscanf(p + 6, "%u %u %u %u", &g[0], &g[1], &g[2], &g[3]) != 4)
		goto out;
	*umask_out = (mode_t)mask;
	*fsuid = (uid_t)u[3];
	*fsgid = (gid_t)g[3];
	rc = 0;
out:
	free(b.s);
	return rc;
}

/* The last number on the status line that starts with @key. */
static int last_number(const char *status, const char *key, pid_t *out)
{
	const char *p = strstr(status, key), *end;
	long v = -1;
	char *e;

	if (!p)
		return EACCES;
	p += strlen(key);
	end = strchr(p, '\n');
	if (!end)
		end = p + strlen(p);
	while (p < end) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p == end)
			break;
		errno = 0;
		v = strtol(p, &e, 10);
		if (e == p || errno || v <= 0 || v > INT_MAX)
			return EACCES;
		p = e;
	}
	if (v <= 0)
		return EACCES;
	*out = (pid_t)v;
	return 0;
}

int child_ns_ids(pid_t tid, pid_t *tgid, pid_t *pid)
{
	struct strbuf b = { 0 };
	int rc = child_proc_read(tid, "status", STATUS_MAX, &b);

	if (!rc)
		rc = last_number(b.s, "\nNStgid:", tgid);
	if (!rc)
		rc = last_number(b.s, "\nNSpid:", pid);
	free(b.s);
	return rc;
}

int self_fd_file(int fd, char **path)
{
	char link[64], *buf = NULL, *del;
	size_t size = 256;
	ssize_t n;

	*path = NULL;
	proc_name(link, sizeof(link), "/proc/self/fd/", fd, "");
	for (;;) {
		buf = xrealloc(buf, size);
		n = readlink(link, buf, size);
		if (n < 0) {
			free(buf);
			return -1;
		}
		if ((size_t)n < size)
			break;
		if (size >= 2 * PATH_MAX) {
			free(buf);
			return -1;
		}
		size *= 2;
	}
	buf[n] = '\0';
	if (buf[0] != '/') {
		free(buf);
		return 0;
	}
	del = strstr(buf, " (deleted)");
	if (del && !del[10])
		*del = '\0';
	*path = buf;
	return 1;
}

char *self_fd_path(int fd)
{
	char *path;

	return self_fd_file(fd, &path) == 1 ? path : NULL;
}

/*
 * Read or write @len bytes of thread @tid's memory at @addr through
 * /proc/TID/mem: where process_vm_readv() is refused (Docker's default
 * profile without CAP_SYS_PTRACE).  Opened per call: an fd would keep
 * the address space of before an exec.  0 or an errno.
 */
int child_mem_io(pid_t tid, uint64_t addr, void *buf, size_t len, bool write)
{
	char path[64];
	ssize_t n;
	int fd, err = 0;

	child_proc_path(path, sizeof(path), tid, "mem");
	fd = open(path, (write ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ESRCH ? ESRCH : EFAULT;
	if (addr > (uint64_t)INT64_MAX - len)
		err = EFAULT;
	else if (write)
		n = pwrite(fd, buf, len, (off_t)addr);
	else
		n = pread(fd, buf, len, (off_t)addr);
	if (!err && (n < 0 || (size_t)n != len))
		err = EFAULT;
	close(fd);
	return err;
}

/* Read @len bytes of the child's memory at @addr; 0 or an errno. */
int child_peek(pid_t tid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote;
	ssize_t n;

	if (len == 0)
		return 0;
	remote.iov_base = (void *)(uintptr_t)addr;
	remote.iov_len = len;
	n = process_vm_readv(tid, &local, 1, &remote, 1, 0);
	if (n < 0 && (errno == EPERM || errno == ENOSYS))
		return child_mem_io(tid, addr, buf, len, false);
	if (n < 0)
		return errno == ESRCH ? ESRCH : EFAULT;
	return (size_t)n == len ? 0 : EFAULT;
}

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

static int open_pidfd(pid_t tid)
{
	int pidfd = (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD);

	if (pidfd < 0 && errno == EINVAL)
		pidfd = (int)syscall(SYS_pidfd_open, tid, 0);
	return pidfd;
}

int child_take_fd(struct child_fds *c, pid_t tid, int fd, int *out)
{
	int saved;

	if (c->tid != tid || c->pidfd < 0) {
		if (c->pidfd >= 0)
			close(c->pidfd);
		c->tid = tid;
		c->pidfd = open_pidfd(tid);
		if (c->pidfd < 0)
			return errno;
	}
	*out = (int)syscall(SYS_pidfd_getfd, c->pidfd, fd, 0);
	if (*out < 0 && errno == ESRCH) {
		close(c->pidfd);
		c->pidfd = open_pidfd(tid);
		if (c->pidfd < 0)
			return errno;
		*out = (int)syscall(SYS_pidfd_getfd, c->pidfd, fd, 0);
	}
	saved = errno;
	return *out < 0 ? saved : 0;
}

/* "flags:\t0100002" of /proc/TID/fdinfo/N: the status flags, or -1. */
static int fdinfo_flags(pid_t tid, int fd)
{
	struct strbuf b = { 0 };
	char what[32];
	const char *p;
	char *end;
	long v = -1;

	snprintf(what, sizeof(what), "fdinfo/%d", fd);
	if (child_proc_read(tid, what, 64u << 10, &b) == 0 &&
	    (p = strstr(b.s, "flags:\t")) &&
	    (p == b.s || p[-1] == '\n')) {
		errno = 0;
		v = strtol(p + 7, &end, 8);
		if (errno || end == p + 7 || v < 0 || v > INT_MAX)
			v = -1;
	}
	free(b.s);
	return (int)v;
}

int child_open_fd(pid_t tid, int fd, int *out, int *acc)
{
	struct stat a, b;
	char link[64], what[32];
	int flags, err;

	snprintf(what, sizeof(what), "fd/%d", fd);
	child_proc_path(link, sizeof(link), tid, what);
	*out = open(link, O_PATH | O_CLOEXEC);
	if (*out < 0)
		return errno == ENOENT ? EBADF : errno;
	if (!acc)
		return 0;
	flags = fdinfo_flags(tid, fd);
	if (flags < 0) {
		close(*out);
		*out = -1;
		return EBADF;	/* closed meanwhile, or the thread is gone */
	}
	if (fstat(*out, &a) < 0 || stat(link, &b) < 0) {
		err = errno == ENOENT ? EBADF : EACCES;
		close(*out);
		*out = -1;
		return err;
	}
	/* the fd read is the file opened: else it was swapped meanwhile */
	if (a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
		close(*out);
		*out = -1;
		return EAGAIN;
	}
	*acc = flags;
	return 0;
}

void child_fds_release(struct child_fds *c)
{
	if (c->pidfd >= 0)
		close(c->pidfd);
	c->pidfd = -1;
	c->tid = 0;
}
