/* SPDX-License-Identifier: MIT */
/*
 * race_files.c - race_args's cases of the path and metadata calls (the
 * opens, the names made, linked, removed and renamed, truncate, chmod,
 * chown, the utimes and xattr families, execve) and bind(), whose name
 * is one made: race.h says how a case is run.
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "race.h"

/* ------------------------------------------------------------------ */
/* opens */

static bool setup_read(const struct rcase *c, char **why)
{
	(void)c;
	(void)why;
	flip_paths(0, p_ok, p_env);
	return true;
}

/* open, openat, openat2 of slot 0 for reading. */
static enum outcome try_read(const struct rcase *c)
{
	struct open_how how = { .flags = O_RDONLY | O_CLOEXEC };
	int fd;
	bool won;

	switch (c->arg) {
	case 0:
		fd = (int)syscall(SYS_open, slot(0), O_RDONLY | O_CLOEXEC);
		break;
	case 1:
		fd = (int)syscall(SYS_openat, AT_FDCWD, slot(0),
				  O_RDONLY | O_CLOEXEC);
		break;
	default:
		fd = (int)syscall(SYS_openat2, AT_FDCWD, slot(0), &how,
				  sizeof(how));
	}
	if (fd < 0)
		return TRY_REFUSED;
	won = secret_fd(c->name, fd);
	close(fd);
	return won ? TRY_WON : TRY_OK;
}

static bool setup_write(const struct rcase *c, char **why)
{
	(void)c;
	(void)why;
	flip_paths(0, p_ok, p_hook);
	return true;
}

/* open for appending: a write open of the hook is won (and written). */
static enum outcome write_opened(int fd)
{
	struct stat st;
	int acc;
	bool won;

	if (fd < 0)
		return TRY_REFUSED;
	acc = fcntl(fd, F_GETFL);
	won = acc >= 0 && !(acc & O_PATH) && (acc & O_ACCMODE) != O_RDONLY &&
	      fstat(fd, &st) == 0 && st.st_ino == hook0.st_ino &&
	      st.st_dev == hook0.st_dev;
	if (won)
		(void)!write(fd, "PWNED\n", 6);
	close(fd);
	return won ? TRY_WON : TRY_OK;
}

static enum outcome try_write(const struct rcase *c)
{
	int fl = O_WRONLY | O_APPEND | O_CLOEXEC;

	if (c->arg == 0)
		return write_opened((int)syscall(SYS_open, slot(0), fl));
	return write_opened((int)syscall(SYS_openat, AT_FDCWD, slot(0), fl));
}

/*
 * openat2() with the path and struct open_how side by side, flipped
 * together: (ok.txt, O_PATH) and (.env, O_RDONLY) -- the review's race --
 * or only the flags: (hook, O_PATH) and (hook, O_WRONLY | O_APPEND).
 */
struct path_how {
	char path[SLOT - sizeof(struct open_how)];
	struct open_how how;
};

static bool setup_openat2(const struct rcase *c, char **why)
{
	struct path_how a, b;

	(void)why;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	if (c->arg == 0) {
		snprintf(a.path, sizeof(a.path), "%s", p_ok);
		a.how.flags = O_PATH | O_CLOEXEC;
		snprintf(b.path, sizeof(b.path), "%s", p_env);
		b.how.flags = O_RDONLY | O_CLOEXEC;
	} else {
		snprintf(a.path, sizeof(a.path), "%s", p_hook);
		a.how.flags = O_PATH | O_CLOEXEC;
		snprintf(b.path, sizeof(b.path), "%s", p_hook);
		b.how.flags = O_WRONLY | O_APPEND | O_CLOEXEC;
	}
	flip_set(0, &a, &b, sizeof(a));
	return true;
}

static enum outcome try_openat2(const struct rcase *c)
{
	struct path_how *ph = (struct path_how *)(void *)slot(0);
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, ph->path, &ph->how,
			      sizeof(ph->how));
	int acc;
	bool won;

	if (fd < 0)
		return TRY_REFUSED;
	acc = fcntl(fd, F_GETFL);
	if (c->arg != 0)
		return write_opened(fd);
	won = acc >= 0 && !(acc & O_PATH) && secret_fd(c->name, fd);
	close(fd);
	return won ? TRY_WON : TRY_OK;
}

/* An O_PATH open whose path flips: the handle then used for reading. */
static enum outcome try_opath(const struct rcase *c)
{
	char proc[64];
	int fd, rfd;
	bool won = false;

	fd = (int)syscall(SYS_openat, AT_FDCWD, slot(0), O_PATH | O_CLOEXEC);
	if (fd < 0)
		return TRY_REFUSED;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	rfd = open(proc, O_RDONLY | O_CLOEXEC);
	if (rfd >= 0) {
		won = secret_fd(c->name, rfd);
		close(rfd);
	}
	close(fd);
	return won ? TRY_WON : TRY_OK;
}

/* ------------------------------------------------------------------ */
/* names made: creat, O_CREAT, mkdir, mknod, symlink, link, bind */

static char *p_made;	/* the allowed name each attempt makes */

static bool setup_make(const struct rcase *c, char **why)
{
	(void)why;
	free(p_made);
	p_made = xasprintf("%s/made-%s", W, c->name);
	flip_paths(0, p_made, p_sub_env);
	return true;
}

/* Made: the denied name exists (won), or the allowed one (removed). */
static enum outcome made(long rc)
{
	if (exists(p_sub_env))
		return TRY_WON;
	if (exists(p_made)) {
		if (unlink(p_made) < 0)
			(void)rmdir(p_made);
	}
	return rc < 0 ? TRY_REFUSED : TRY_OK;
}

static enum outcome try_make(const struct rcase *c)
{
	struct open_how how = { .flags = O_CREAT | O_WRONLY | O_CLOEXEC,
				.mode = 0644 };
	long rc;

	switch (c->arg) {
	case 0:
		rc = syscall(SYS_creat, slot(0), 0644);
		break;
	case 1:
		rc = syscall(SYS_openat, AT_FDCWD, slot(0),
			     O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
		break;
	case 2:
		rc = syscall(SYS_openat2, AT_FDCWD, slot(0), &how, sizeof(how));
		break;
	case 3:
		rc = syscall(SYS_mkdir, slot(0), 0755);
		break;
	case 4:
		rc = syscall(SYS_mkdirat, AT_FDCWD, slot(0), 0755);
		break;
	case 5:
		rc = syscall(SYS_mknod, slot(0), S_IFIFO | 0644, 0);
		break;
	case 6:
		rc = syscall(SYS_mknodat, AT_FDCWD, slot(0), S_IFIFO | 0644, 0);
		break;
	case 7:
		rc = syscall(SYS_symlink, "ok.txt", slot(0));
		break;
	case 8:
		rc = syscall(SYS_symlinkat, "ok.txt", AT_FDCWD, slot(0));
		break;
	case 9:
		rc = syscall(SYS_link, p_ok, slot(0));
		break;
	default:
		rc = syscall(SYS_linkat, AT_FDCWD, p_ok, AT_FDCWD, slot(0), 0);
		break;
	}
	if (rc >= 0 && c->arg <= 2)
		close((int)rc);
	return made(rc);
}

/* bind() of a unix socket to a flipped name. */
static bool setup_bind(const struct rcase *c, char **why)
{
	struct sockaddr_un a, b;

	(void)why;
	free(p_made);
	p_made = xasprintf("%s/made-%s", W, c->name);
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.sun_family = b.sun_family = AF_UNIX;
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", p_made);
	snprintf(b.sun_path, sizeof(b.sun_path), "%s", p_sub_env);
	flip_set(0, &a, &b, sizeof(a));
	return true;
}

static enum outcome try_bind(const struct rcase *c)
{
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	long rc;

	(void)c;
	if (s < 0)
		return TRY_REFUSED;
	rc = bind(s, (struct sockaddr *)(void *)slot(0),
		  sizeof(struct sockaddr_un));
	close(s);
	return made(rc);
}

/*
 * bind() in a directory that a second thread renames back and forth to
 * a denied place (W/bk/keys, where the keys/NAME.pem deny row reaches): a bind judged
 * in W/bd must never leave its socket at W/bk/keys/x.pem.
 */
static char *p_bd, *p_bk_keys, *p_bd_sock, *p_bk_sock;

static void rename_racer(void)
{
	while (!atomic_load_explicit(&ar->stop, memory_order_relaxed)) {
		(void)rename(p_bd, p_bk_keys);
		(void)rename(p_bk_keys, p_bd);
	}
}

static bool setup_bind_rename(const struct rcase *c, char **why)
{
	(void)c;
	free(p_bd);
	free(p_bk_keys);
	free(p_bd_sock);
	free(p_bk_sock);
	p_bd = wpath("bd");
	p_bk_keys = wpath("bk/keys");
	p_bd_sock = wpath("bd/x.pem");
	p_bk_sock = wpath("bk/keys/x.pem");
	if ((mkdir(p_bd, 0755) < 0 && errno != EEXIST) ||
	    (mkdir(wpath("bk"), 0755) < 0 && errno != EEXIST)) {
		*why = xasprintf("mkdir: %s", strerror(errno));
		return false;
	}
	atomic_store(&ar->run, 1);
	return true;
}

static enum outcome try_bind_rename(const struct rcase *c)
{
	struct sockaddr_un sa;
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	long rc;

	(void)c;
	if (s < 0)
		return TRY_REFUSED;
	unix_addr(&sa, p_bd_sock);
	rc = bind(s, (struct sockaddr *)&sa, sizeof(sa));
	close(s);
	if (exists(p_bk_sock))
		return TRY_WON;
	(void)unlink(p_bd_sock);
	return rc < 0 ? TRY_REFUSED : TRY_OK;
}

/* link() whose source flips between ok.txt and .env: read the link. */
static bool setup_link_src(const struct rcase *c, char **why)
{
	(void)why;
	free(p_made);
	p_made = xasprintf("%s/made-%s", W, c->name);
	flip_paths(0, p_ok, p_env);
	return true;
}

static enum outcome try_link_src(const struct rcase *c)
{
	long rc;
	int fd;
	bool won = false;

	if (c->arg == 0)
		rc = syscall(SYS_link, slot(0), p_made);
	else
		rc = syscall(SYS_linkat, AT_FDCWD, slot(0), AT_FDCWD, p_made,
			     0);
	if (rc < 0)
		return TRY_REFUSED;
	fd = open(p_made, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		won = secret_fd(c->name, fd);
		close(fd);
	}
	(void)unlink(p_made);
	return won ? TRY_WON : TRY_OK;
}

/* ------------------------------------------------------------------ */
/* names removed and renamed */

static bool setup_unlink(const struct rcase *c, char **why)
{
	(void)why;
	free(p_made);
	p_made = xasprintf("%s/made-%s", W, c->name);
	if (c->arg == 2) {
		/* rmdir: an empty directory, and a denied empty directory */
		flip_paths(0, p_made, p_env_dir);
	} else {
		flip_paths(0, p_made, p_env);
	}
	return true;
}

static enum outcome try_unlink(const struct rcase *c)
{
	long rc;

	if (c->arg == 2)
		(void)mkdir(p_made, 0755);
	else
		touch(p_made);
	switch (c->arg) {
	case 0:
		rc = syscall(SYS_unlink, slot(0));
		break;
	case 1:
		rc = syscall(SYS_unlinkat, AT_FDCWD, slot(0), 0);
		break;
	default:
		rc = syscall(SYS_rmdir, slot(0));
	}
	if (!exists(p_env) || !exists(p_env_dir))
		return TRY_WON;
	return rc < 0 ? TRY_REFUSED : TRY_OK;
}

static char *p_dst;

/* rename()'s source flips (ok name / .env), or its destination. */
static bool setup_rename(const struct rcase *c, char **why)
{
	(void)why;
	free(p_made);
	free(p_dst);
	p_made = xasprintf("%s/made-%s", W, c->name);
	p_dst = xasprintf("%s/dst-%s", W, c->name);
	if (c->arg < 3)
		flip_paths(0, p_made, p_env);
	else
		flip_paths(0, p_dst, p_sub_env);
	return true;
}

static enum outcome try_rename(const struct rcase *c)
{
	long rc;
	int fd;
	bool won = false;

	touch(p_made);
	switch (c->arg) {
	case 0:
		rc = syscall(SYS_rename, slot(0), p_dst);
		break;
	case 1:
		rc = syscall(SYS_renameat, AT_FDCWD, slot(0), AT_FDCWD, p_dst);
		break;
	case 2:
		rc = syscall(SYS_renameat2, AT_FDCWD, slot(0), AT_FDCWD, p_dst,
			     0);
		break;
	default:
		rc = syscall(SYS_rename, p_made, slot(0));
	}
	if (!exists(p_env) || exists(p_sub_env))
		won = true;
	fd = open(p_dst, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		won |= secret_fd(c->name, fd);
		close(fd);
	}
	(void)unlink(p_dst);
	return won ? TRY_WON : rc < 0 ? TRY_REFUSED : TRY_OK;
}

/* ------------------------------------------------------------------ */
/* metadata: truncate, chmod, chown, utimes, xattrs */

static bool setup_meta(const struct rcase *c, char **why)
{
	if (c->arg >= 8 && !have_xattr) {
		*why = xstrdup("no user.keep on the read-only file (no user "
			       "extended attributes here)");
		return false;
	}
	/* judged against the file as this case found it */
	if (stat(p_hook, &hook0) < 0) {
		*why = xasprintf("%s: %s", p_hook, strerror(errno));
		return false;
	}
	flip_paths(0, p_ok, p_hook);
	return true;
}

static enum outcome try_meta(const struct rcase *c)
{
	struct timespec ts[2] = { { 1, 0 }, { 1, 0 } };
	struct timeval tv[2] = { { 1, 0 }, { 1, 0 } };
	char v[8];
	long rc;

	switch (c->arg) {
	case 0:
		rc = syscall(SYS_truncate, slot(0), 0);
		break;
	case 1:
		rc = syscall(SYS_chmod, slot(0), 0600);
		break;
	case 2:
		rc = syscall(SYS_fchmodat, AT_FDCWD, slot(0), 0600, 0);
		break;
	case 3:
		rc = syscall(SYS_chown, slot(0), getuid(), getgid());
		break;
	case 4:
		rc = syscall(SYS_lchown, slot(0), getuid(), getgid());
		break;
	case 5:
		rc = syscall(SYS_fchownat, AT_FDCWD, slot(0), getuid(),
			     getgid(), 0);
		break;
	case 6:
		rc = syscall(SYS_utimes, slot(0), tv);
		break;
	case 7:
		rc = syscall(SYS_utimensat, AT_FDCWD, slot(0), ts, 0);
		break;
	case 8:
		rc = syscall(SYS_setxattr, slot(0), "user.race", "x", 1, 0);
		break;
	case 9:
		rc = syscall(SYS_lsetxattr, slot(0), "user.race", "x", 1, 0);
		break;
	default:
		rc = syscall(SYS_removexattr, slot(0), "user.keep");
		/* put back the allowed file's, to remove it again */
		(void)setxattr(p_ok, "user.keep", "1", 1, 0);
	}
	if (hook_changed() ||
	    (have_xattr &&
	     (getxattr(p_hook, "user.race", v, sizeof(v)) >= 0 ||
	      getxattr(p_hook, "user.keep", v, sizeof(v)) < 0)))
		return TRY_WON;
	return rc < 0 ? TRY_REFUSED : TRY_OK;
}

/* ------------------------------------------------------------------ */
/* execve, execveat */

static bool setup_exec(const struct rcase *c, char **why)
{
	(void)c;
	(void)why;
	flip_paths(0, "/bin/true", p_tool);
	return true;
}

/*
 * A child execs slot 0 while it flips: with a thread of its own (the
 * parent's flipper does not survive fork()), or with the parent's
 * flipper process through the shared mapping.
 */
static enum outcome try_exec(const struct rcase *c)
{
	static char x[] = "x", marker[] = "--marker";
	char *const argv[] = { x, marker, NULL };
	char *const envp[] = { NULL };
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return TRY_REFUSED;
	if (pid == 0) {
		pthread_t t;

		if (!shared && pthread_create(&t, NULL, flip_thread, NULL))
			_exit(3);
		if (c->arg == 0)
			syscall(SYS_execve, slot(0), argv, envp);
		else
			syscall(SYS_execveat, AT_FDCWD, slot(0), argv, envp, 0);
		_exit(4);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return TRY_REFUSED;
	if (WIFEXITED(status) && WEXITSTATUS(status) == MARKER_STATUS)
		return TRY_WON;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? TRY_OK :
	       TRY_REFUSED;
}

const struct rcase race_file_cases[] = {
	{ "open-read", setup_read, try_read, 0 },
	{ "openat-read", setup_read, try_read, 1 },
	{ "openat2-read", setup_read, try_read, 2 },
	{ "open-write", setup_write, try_write, 0 },
	{ "openat-write", setup_write, try_write, 1 },
	{ "openat2-path-how", setup_openat2, try_openat2, 0 },
	{ "openat2-how-write", setup_openat2, try_openat2, 1 },
	{ "openat-opath", setup_read, try_opath, 0 },
	{ "creat", setup_make, try_make, 0 },
	{ "openat-creat", setup_make, try_make, 1 },
	{ "openat2-creat", setup_make, try_make, 2 },
	{ "mkdir", setup_make, try_make, 3 },
	{ "mkdirat", setup_make, try_make, 4 },
	{ "mknod", setup_make, try_make, 5 },
	{ "mknodat", setup_make, try_make, 6 },
	{ "symlink", setup_make, try_make, 7 },
	{ "symlinkat", setup_make, try_make, 8 },
	{ "link-new", setup_make, try_make, 9 },
	{ "linkat-new", setup_make, try_make, 10 },
	{ "link-src", setup_link_src, try_link_src, 0 },
	{ "linkat-src", setup_link_src, try_link_src, 1 },
	{ "unlink", setup_unlink, try_unlink, 0 },
	{ "unlinkat", setup_unlink, try_unlink, 1 },
	{ "rmdir", setup_unlink, try_unlink, 2 },
	{ "rename-src", setup_rename, try_rename, 0 },
	{ "renameat-src", setup_rename, try_rename, 1 },
	{ "renameat2-src", setup_rename, try_rename, 2 },
	{ "rename-dst", setup_rename, try_rename, 3 },
	{ "truncate", setup_meta, try_meta, 0 },
	{ "chmod", setup_meta, try_meta, 1 },
	{ "fchmodat", setup_meta, try_meta, 2 },
	{ "chown", setup_meta, try_meta, 3 },
	{ "lchown", setup_meta, try_meta, 4 },
	{ "fchownat", setup_meta, try_meta, 5 },
	{ "utimes", setup_meta, try_meta, 6 },
	{ "utimensat", setup_meta, try_meta, 7 },
	{ "setxattr", setup_meta, try_meta, 8 },
	{ "lsetxattr", setup_meta, try_meta, 9 },
	{ "removexattr", setup_meta, try_meta, 10 },
	{ "execve", setup_exec, try_exec, 0, NULL, true },
	{ "execveat", setup_exec, try_exec, 1, NULL, true },
	{ "bind", setup_bind, try_bind, 0 },
	{ "bind-rename", setup_bind_rename, try_bind_rename, 0,
	  rename_racer },
};
const size_t race_nfile_cases = array_size(race_file_cases);
