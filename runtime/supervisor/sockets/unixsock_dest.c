/* SPDX-License-Identifier: MIT */
/*
 * unixsock_dest.c - the socket supervisor's destinations (unixsock.h,
 * unixsock_int.h): for each message of a call, the address the
 * supervisor will use and the fds it sends, taken from the child.
 *
 * A pathname is resolved as the child would, in the sandbox's root and
 * the child's working directory, to an O_PATH fd of the socket file
 * that the address then names through /proc/self/fd (nothing the child
 * changes after the check can redirect it); the writable regions, the
 * Landlock rules (container mode) and the table (supervised paths)
 * judge it.  A pathname bind() has its directory resolved and its name
 * kept.  An abstract address is refused or used as given by the rules
 * of unixsock.h.  Everything that turns the child's address into one
 * the supervisor may use is here; whether an inet address is admitted
 * is unixsock_inet.c's, asked from us_take_dest().
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/un.h>
#include <unistd.h>

#include "supervisor/childpath.h"
#include "walls/container_rules.h"
#include "sockcall.h"
#include "strbuf.h"
#include "unixsock.h"
#include "unixsock_int.h"

#ifndef ST_RDONLY
#define ST_RDONLY 1
#endif

/*
 * Container mode: the rights the child's Landlock rules grant at what
 * the O_PATH fd @fd names (its path now, read from our own fd table).
 */
static uint64_t granted_at_fd(const struct unixsock *us, int fd)
{
	char link[64], *path = NULL;
	size_t size = 256;
	ssize_t n;
	uint64_t r = 0;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	/* A path is at most PATH_MAX; grow to it, never past it. */
	for (;;) {
		path = xrealloc(path, size);
		n = readlink(link, path, size);
		if (n < 0)
			goto out;
		if ((size_t)n < size)
			break;
		if (size >= PATH_MAX)
			goto out;
		size *= 2;
	}
	path[n] = '\0';
	if (path[0] == '/')
		r = container_granted_at(us->cfg.container, path);
out:
	free(path);
	return r;
}

/* Supervised paths: may the child use the socket file @fd?  0 or EACCES. */
static int judge_socket_file(const struct unixsock *us, int fd)
{
	char *path = self_fd_path(fd);
	int rc = EACCES;

	if (path)
		rc = us->cfg.judge(us->cfg.judge_ctx, path, PJ_WRITE,
				   "connect") ? EACCES : 0;
	free(path);
	return rc;
}

/*
 * Resolve the pathname @path as the child would, in its root and working
 * directory; on success @d->target is an O_PATH fd of the socket file
 * and @d->addr names it through /proc/self/fd.  Returns 0 or an errno.
 */
static int resolve_path(struct op *op, struct dest *d, const char *path)
{
	struct sockaddr_un *sun = (struct sockaddr_un *)&d->addr;
	struct strbuf full = { 0 };
	struct statfs sfs;
	struct stat st;
	int rc, n;

	rc = child_full_path(op->tid, path, &full);
	if (rc)
		goto out;
	d->target = child_open_in_root(op->us->root_fd, full.s, 0, &rc);
	if (d->target < 0)
		goto out;
	/* The file itself, as the kernel's unix_find_bsd() checks it. */
	rc = EACCES;
	if (fstat(d->target, &st) < 0)
		goto out;
	rc = ECONNREFUSED;
	if (!S_ISSOCK(st.st_mode))
		goto out;
	rc = EACCES;
	/* Writable region: a mount the sandbox sees writable; in container
	 * mode, where the Landlock rules grant writing. */
	if (!op->us->cfg.pathname_open && op->us->cfg.container &&
	    !(granted_at_fd(op->us, d->target) & CR_WRITE_FILE))
		goto out;
	if (!op->us->cfg.pathname_open && !op->us->cfg.container &&
	    (fstatfs(d->target, &sfs) < 0 || (sfs.f_flags & ST_RDONLY)))
		goto out;
	/* Supervised paths: a socket at a name a row denies or makes
	 * read-only is not reached (under net open too). */
	if (op->us->cfg.judge && judge_socket_file(op->us, d->target))
		goto out;
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	n = snprintf(sun->sun_path, sizeof(sun->sun_path), "/proc/self/fd/%d",
		     d->target);
	if (n < 0 || (size_t)n >= sizeof(sun->sun_path))
		BUG("/proc/self/fd/%d does not fit sun_path", d->target);
	d->addrlen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
				 (size_t)n + 1);
	rc = 0;
out:
	free(full.s);
	return rc;
}

/*
 * The name a pathname bind() makes (op->bind_dir's path and the name),
 * judged for writing by the table, and its directory too, which the new
 * entry writes (as pathcall_run.c's names).  0 or an errno.
 */
static int judge_bound_name(struct op *op)
{
	struct strbuf judged = { 0 };
	char *dir = self_fd_path(op->bind_dir);
	int rc = EACCES;

	if (dir) {
		strbuf_puts(&judged, dir);
		if (judged.len > 1)
			strbuf_putc(&judged, '/');
		strbuf_puts(&judged, op->bind_name);
		rc = op->us->cfg.judge(op->us->cfg.judge_ctx, judged.s,
				       PJ_WRITE, "bind");
		if (!rc)
			rc = op->us->cfg.judge(op->us->cfg.judge_ctx, dir,
					       PJ_WRITE,
					       "changing the entries");
	}
	free(dir);
	free(judged.s);
	return rc;
}

/*
 * A pathname bind(): the parent directory resolved now (O_PATH, in the
 * child's root and working directory), the name kept for us_perform(),
 * which binds in that directory.  The last component is never resolved
 * here: bind() creates it or fails (EEXIST), as for the child.
 */
static int prepare_bind(struct op *op, const char *path)
{
	struct strbuf full = { 0 };
	const char *slash, *name;
	uid_t fsuid;
	gid_t fsgid;
	int rc, fd;

	rc = child_status(op->tid, &op->umask, &fsuid, &fsgid);
	if (rc)
		return rc;
	/*
	 * The file is created with vbox-exec's fs ids; they are the child's
	 * (the sandbox's uid is the launching one).  Anything else is
	 * refused rather than leaving a file of another owner.
	 */
	if (fsuid != geteuid() || fsgid != getegid())
		return EACCES;
	rc = child_full_path(op->tid, path, &full);
	if (rc)
		goto out;
	/* A trailing slash: bind() creates nothing; EEXIST when the path
	 * names something (a directory), ENOENT when not. */
	if (full.s[full.len - 1] == '/') {
		while (full.len > 1 && full.s[full.len - 1] == '/')
			full.s[--full.len] = '\0';
		fd = child_open_in_root(op->us->root_fd, full.s, 0, &rc);
		if (fd >= 0) {
			close(fd);
			rc = EEXIST;
		} else if (rc == ENOENT || rc == ENOTDIR) {
			rc = ENOENT;
		}
		goto out;
	}
	slash = strrchr(full.s, '/');
	name = slash + 1;
	/* "." and "..": not a name bind() can create. */
	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
		rc = EEXIST;
		goto out;
	}
	op->bind_name = xstrdup(name);
	full.s[slash == full.s ? 1 : (size_t)(slash - full.s)] = '\0';
	op->bind_dir = child_open_in_root(op->us->root_fd, full.s, O_DIRECTORY, &rc);
	if (op->bind_dir >= 0)
		rc = 0;
	/* Supervised paths: the socket file is a name made, judged so. */
	if (!rc && op->us->cfg.judge)
		rc = judge_bound_name(op);
	/* Made by vbox-exec, outside the child's Landlock domain: in
	 * container mode the rules must let the child make it there. */
	if (!rc && op->us->cfg.container &&
	    !(granted_at_fd(op->us, op->bind_dir) & CR_MAKE_SOCK))
		rc = EACCES;
out:
	free(full.s);
	return rc;
}

/*
 * Message @i's destination: the address to use, and the fds it sends
 * taken from the child (written into the control data as ours).
 */
int us_take_dest(struct op *op, size_t i)
{
	struct sockcall_msg *m = &op->call.msgs[i];
	struct dest *d = &op->dest[i];
	size_t k;
	int rc, num, fd;

	d->target = -1;
	rc = us_judge_inet(op, m);
	if (rc)
		return rc;
	if (m->to.has) {
		d->has_addr = true;
		d->addr = m->to.sa;
		d->addrlen = m->to.len;
		switch (m->to.unix_kind) {
		case SOCKCALL_AS_GIVEN:
		case SOCKCALL_AUTOBIND:
			break;
		case SOCKCALL_ABSTRACT:
			/*
			 * When the sandbox shares the host's network
			 * namespace, an explicit abstract name is the host's
			 * (squatting).  (A bind is stopped in a namespace of
			 * the sandbox's own only with supervised paths.)
			 */
			if ((op->call.kind == SOCKCALL_BIND &&
			     (op->us->cfg.pathname_open ||
			      op->us->cfg.container)) ||
			    op->us->cfg.refuse_abstract)
				return EACCES;
			break;
		case SOCKCALL_PATH:
			if (op->call.kind == SOCKCALL_BIND)
				rc = prepare_bind(op, m->to.path);
			else
				rc = resolve_path(op, d, m->to.path);
			if (rc)
				return rc;
			break;
		default:
			BUG("unix address kind %d", (int)m->to.unix_kind);
		}
	}
	if (m->nfds)
		d->fds = xcalloc(m->nfds, sizeof(*d->fds));
	for (k = 0; k < m->nfds; k++) {
		memcpy(&num, m->control + m->fd_off[k], sizeof(num));
		rc = us_take_fd(op->us, op->tid, num, &fd);
		if (rc)
			return rc == ESRCH ? ESRCH : EBADF;
		d->fds[d->nfds++] = fd;
		memcpy(m->control + m->fd_off[k], &fd, sizeof(fd));
	}
	return 0;
}
