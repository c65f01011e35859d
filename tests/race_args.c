/* SPDX-License-Identifier: MIT */
/*
 * race_args.c - the sandboxed side of tests/exec_race.sh: every call the
 * supervisor judges, made in a loop while one of its pointer arguments
 * is flipped between an allowed and a denied value, by a second thread
 * of the caller (the default) or by a second process that shares the
 * memory through a MAP_SHARED mapping (--shared).  A supervisor that
 * judges a copy and then lets the kernel read the child's memory again
 * loses this race within a few hundred tries (doc/launcher.md,
 * "Supervised paths", "What continues").
 *
 *   race_args [--shared] [--ms N] [--ro FILE] [--denied NAME]
 *             W HOST SECRET CASE...
 *   race_args --marker
 *
 * W is the workspace the host laid out (exec_race.sh names each file),
 * HOST a directory of host sockets outside every writable region, SECRET
 * the first bytes of the denied files' contents.  --ro names the file
 * the policy keeps read-only (default W/.git/hooks/pre-commit), --denied
 * a name the child may not make (default W/sub/.env); container mode,
 * which has no supervised rows, points them outside its writable root.
 * Each CASE ("all": every one) runs for N milliseconds (default 300)
 * and prints
 *
 *   CASE tries=T ok=A won=W
 *
 * T attempts, A of them succeeded on the allowed value (the race really
 * ran both ways), W forbidden outcomes it saw itself (a read that began
 * with SECRET, a write open of a read-only file, a denied name made, a
 * denied program run, a peer that is a host socket).  The first bytes of
 * every read that is not W/ok.txt's are printed as "data CASE TEXT", so
 * that the host, which judges, sees what reached the child.  "CASE skip WHY" when the case cannot run
 * here (a datagram socket refused at socket(), say).
 *
 * --marker is the denied program's body: exec_race.sh copies this file
 * to a denied name; run, it prints EXEC-MARKER and exits 42.
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#define MARKER_STATUS 42
#define SLOT 256	/* bytes of one flipped value */

/*
 * The memory the calls point into, and the flip's state: private to the
 * process (a thread flips), or MAP_SHARED (a forked process flips).
 */
struct arena {
	atomic_int stop;
	atomic_int run;		/* the flipper flips while set */
	size_t off, len;	/* what it flips: buf[off .. off + len) */
	unsigned char a[2 * SLOT], b[2 * SLOT];	/* allowed, denied */
	_Alignas(16) unsigned char buf[4 * SLOT];
};

static struct arena *ar;
static bool shared;
static const char *W, *HOST, *SECRET;
static unsigned long run_ms = 300;

/* One attempt's outcome. */
enum outcome { TRY_REFUSED, TRY_OK, TRY_WON };

struct rcase {
	const char *name;
	/* lay out ar->a and ar->b (and the rest of ar->buf); false: skip */
	bool (*setup)(const struct rcase *c, char **why);
	enum outcome (*attempt)(const struct rcase *c);
	int arg;	/* which call of a family */
	/* instead of flipping memory, what the second thread or process
	 * does in a loop (NULL: flip) */
	void (*racer)(void);
};

static const struct rcase *current;

static void unix_addr(struct sockaddr_un *sa, const char *path);

/* ------------------------------------------------------------------ */
/* the flipper */

static void flip_loop(void)
{
	if (current && current->racer) {
		current->racer();
		return;
	}
	while (!atomic_load_explicit(&ar->stop, memory_order_relaxed)) {
		if (!atomic_load_explicit(&ar->run, memory_order_relaxed)) {
			sched_yield();
			continue;
		}
		memcpy(ar->buf + ar->off, ar->a, ar->len);
		__asm__ volatile("" ::: "memory");
		memcpy(ar->buf + ar->off, ar->b, ar->len);
		__asm__ volatile("" ::: "memory");
	}
}

static void *flip_thread(void *arg)
{
	(void)arg;
	flip_loop();
	return NULL;
}

static pthread_t flipper_tid;
static pid_t flipper_pid = -1;

static void flipper_start(void)
{
	atomic_store(&ar->stop, 0);
	if (shared) {
		flipper_pid = fork();
		if (flipper_pid == 0) {
			flip_loop();
			_exit(0);
		}
		if (flipper_pid < 0) {
			perror("race_args: fork");
			exit(2);
		}
	} else if (pthread_create(&flipper_tid, NULL, flip_thread, NULL)) {
		fprintf(stderr, "race_args: pthread_create failed\n");
		exit(2);
	}
}

static void flipper_stop(void)
{
	atomic_store(&ar->stop, 1);
	if (shared) {
		while (waitpid(flipper_pid, NULL, 0) < 0 && errno == EINTR)
			;
	} else {
		pthread_join(flipper_tid, NULL);
	}
}

/* Flip @len bytes at @off between @a and @b (each @len bytes). */
static void flip_set(size_t off, const void *a, const void *b, size_t len)
{
	atomic_store(&ar->run, 0);
	ar->off = off;
	ar->len = len;
	memcpy(ar->a, a, len);
	memcpy(ar->b, b, len);
	memcpy(ar->buf + off, a, len);
	atomic_store(&ar->run, 1);
}

/* Flip a path slot at @off between the strings @a and @b. */
static void flip_paths(size_t off, const char *a, const char *b)
{
	char pa[SLOT], pb[SLOT];

	memset(pa, 0, sizeof(pa));
	memset(pb, 0, sizeof(pb));
	snprintf(pa, sizeof(pa), "%s", a);
	snprintf(pb, sizeof(pb), "%s", b);
	flip_set(off, pa, pb, SLOT);
}

static char *wpath(const char *name)
{
	return xasprintf("%s/%s", W, name);
}

/* ------------------------------------------------------------------ */
/* what the host laid out, and what an attempt looks at */

static struct stat hook0;	/* the read-only hook, as it started */

static char *p_ok, *p_env, *p_hook, *p_sub_env, *p_tool, *p_env_dir;
static char ok_text[64];	/* W/ok.txt's first bytes, not printed */
static bool have_xattr;		/* the read-only file carries user.keep */

static bool secret_fd(const char *name, int fd)
{
	char buf[96];
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	size_t i;

	if (n <= 0)
		return false;
	buf[n] = '\0';
	for (i = 0; i < (size_t)n; i++)
		if (buf[i] == '\n' || (unsigned char)buf[i] < ' ')
			buf[i] = '.';
	if (strcmp(buf, ok_text) != 0)
		printf("data %s %s\n", name, buf);
	return strncmp(buf, SECRET, strlen(SECRET)) == 0;
}

static bool exists(const char *p)
{
	struct stat st;

	return lstat(p, &st) == 0;
}

/* Has the hook changed since the start (content, mode, times, owner)? */
static bool hook_changed(void)
{
	struct stat st;

	if (stat(p_hook, &st) < 0)
		return true;
	return st.st_size != hook0.st_size || st.st_mode != hook0.st_mode ||
	       st.st_mtim.tv_sec != hook0.st_mtim.tv_sec ||
	       st.st_mtim.tv_nsec != hook0.st_mtim.tv_nsec ||
	       st.st_ctim.tv_sec != hook0.st_ctim.tv_sec ||
	       st.st_ctim.tv_nsec != hook0.st_ctim.tv_nsec;
}

static void touch(const char *p)
{
	int fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);

	if (fd >= 0)
		close(fd);
}

static char *slot(int k)
{
	return (char *)ar->buf + k * SLOT;
}

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

/* ------------------------------------------------------------------ */
/* sockets: connect, sendto, sendmsg, sendmmsg */

static char *p_host_stream, *p_host_dgram, *p_ok_stream, *p_ok_dgram;
static int own_stream = -1, own_dgram = -1;

static void unix_addr(struct sockaddr_un *sa, const char *path)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	snprintf(sa->sun_path, sizeof(sa->sun_path), "%s", path);
}

/* The case's own sockets: a stream listener and a datagram socket. */
static bool own_sockets(bool dgram, char **why)
{
	struct sockaddr_un sa;

	if (own_stream < 0) {
		unix_addr(&sa, p_ok_stream);
		(void)unlink(p_ok_stream);
		own_stream = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (own_stream < 0 ||
		    bind(own_stream, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
		    listen(own_stream, 512) < 0) {
			*why = xasprintf("own stream socket: %s",
					 strerror(errno));
			return false;
		}
	}
	if (dgram && own_dgram < 0) {
		unix_addr(&sa, p_ok_dgram);
		(void)unlink(p_ok_dgram);
		own_dgram = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC |
				   SOCK_NONBLOCK, 0);
		if (own_dgram < 0 ||
		    bind(own_dgram, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
			*why = xasprintf("datagram socket: %s",
					 strerror(errno));
			if (own_dgram >= 0)
				close(own_dgram);
			own_dgram = -1;
			return false;
		}
	}
	return true;
}

static bool setup_connect(const struct rcase *c, char **why)
{
	struct sockaddr_un a, b;

	(void)c;
	if (!own_sockets(false, why))
		return false;
	unix_addr(&a, p_ok_stream);
	unix_addr(&b, p_host_stream);
	flip_set(0, &a, &b, sizeof(a));
	return true;
}

static enum outcome try_connect(const struct rcase *c)
{
	struct sockaddr_un peer;
	socklen_t len = sizeof(peer);
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), a;
	bool won;

	(void)c;
	if (s < 0)
		return TRY_REFUSED;
	if (connect(s, (struct sockaddr *)(void *)slot(0),
		    sizeof(struct sockaddr_un)) < 0) {
		close(s);
		return TRY_REFUSED;
	}
	memset(&peer, 0, sizeof(peer));
	won = getpeername(s, (struct sockaddr *)&peer, &len) == 0 &&
	      strcmp(peer.sun_path, p_host_stream) == 0;
	close(s);
	/* the accepted end of our own listener, if that is where it went */
	a = accept4(own_stream, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (a >= 0)
		close(a);
	return won ? TRY_WON : TRY_OK;
}

/*
 * A datagram socket sends with its destination flipped:
 *   0 sendto's address; 1 sendmsg's msg_name bytes; 2 the whole msghdr
 *   (no name: to our own socket it is connected to / the host's name);
 *   3 sendmmsg's msg_name bytes;
 *   4 as 2 on a SOCK_RAW socketpair (the kernel makes a unix SOCK_RAW
 *   socket a datagram one): the review's race, where datagram sockets
 *   are refused but an unaddressed send was let go on.
 */
struct send_area {
	struct msghdr h;
	struct mmsghdr mh;
	struct iovec iov;
	struct sockaddr_un name;
	char data[8];
};

static int send_sock = -1, send_peer = -1;

static void send_close(void)
{
	if (send_sock >= 0)
		close(send_sock);
	if (send_peer >= 0)
		close(send_peer);
	send_sock = send_peer = -1;
}

/* Our end of the sends, and where an unaddressed send of it goes. */
static bool send_ends(const struct rcase *c, const struct sockaddr_un *a,
		      char **why)
{
	int sv[2];

	send_close();
	if (c->arg == 4) {
		if (socketpair(AF_UNIX, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
			       0, sv) < 0) {
			*why = xasprintf("socketpair(SOCK_RAW): %s",
					 strerror(errno));
			return false;
		}
		send_sock = sv[0];
		send_peer = sv[1];
		return true;
	}
	if (!own_sockets(true, why))
		return false;
	send_sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
			   0);
	if (send_sock < 0) {
		*why = xasprintf("socket(SOCK_DGRAM): %s", strerror(errno));
		return false;
	}
	if (c->arg == 2 &&
	    connect(send_sock, (const struct sockaddr *)a, sizeof(*a)) < 0) {
		*why = xasprintf("connect to our own datagram socket: %s",
				 strerror(errno));
		return false;
	}
	return true;
}

static bool setup_send(const struct rcase *c, char **why)
{
	struct send_area *s = (struct send_area *)(void *)slot(1);
	struct msghdr ha, hb;
	struct sockaddr_un a, b;

	unix_addr(&a, p_ok_dgram);
	unix_addr(&b, p_host_dgram);
	if (!send_ends(c, &a, why))
		return false;
	memset(s, 0, sizeof(*s));
	memcpy(s->data, "race", 4);
	s->iov.iov_base = s->data;
	s->iov.iov_len = 4;
	s->name = a;
	s->h.msg_iov = &s->iov;
	s->h.msg_iovlen = 1;
	s->h.msg_name = &s->name;
	s->h.msg_namelen = sizeof(s->name);
	s->mh.msg_hdr = s->h;
	if (c->arg == 0 || c->arg == 1 || c->arg == 3) {
		flip_set((size_t)((unsigned char *)&s->name - ar->buf), &a, &b,
			 sizeof(a));
		return true;
	}
	/* no name (the connected peer) against the host's name */
	s->name = b;
	ha = s->h;
	ha.msg_name = NULL;
	ha.msg_namelen = 0;
	hb = s->h;
	flip_set((size_t)((unsigned char *)&s->h - ar->buf), &ha, &hb,
		 sizeof(ha));
	return true;
}

static enum outcome try_send(const struct rcase *c)
{
	struct send_area *s = (struct send_area *)(void *)slot(1);
	char buf[16];
	long rc;
	int drain = send_peer >= 0 ? send_peer : own_dgram;

	switch (c->arg) {
	case 0:
		rc = sendto(send_sock, s->data, 4, MSG_DONTWAIT,
			    (struct sockaddr *)&s->name, sizeof(s->name));
		break;
	case 3:
		rc = syscall(SYS_sendmmsg, send_sock, &s->mh, 1, MSG_DONTWAIT);
		break;
	default:
		rc = sendmsg(send_sock, &s->h, MSG_DONTWAIT);
	}
	/* drain our own end, so that it never fills */
	while (recv(drain, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
	/* the host counts what reached its socket: nothing to see here */
	return rc < 0 ? TRY_REFUSED : TRY_OK;
}

/* ------------------------------------------------------------------ */

static const struct rcase cases[] = {
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
	{ "execve", setup_exec, try_exec, 0 },
	{ "execveat", setup_exec, try_exec, 1 },
	{ "bind", setup_bind, try_bind, 0 },
	{ "bind-rename", setup_bind_rename, try_bind_rename, 0,
	  rename_racer },
	{ "connect", setup_connect, try_connect, 0 },
	{ "sendto", setup_send, try_send, 0 },
	{ "sendmsg-name", setup_send, try_send, 1 },
	{ "sendmsg-header", setup_send, try_send, 2 },
	{ "sendmmsg-name", setup_send, try_send, 3 },
	{ "raw-sendmsg-header", setup_send, try_send, 4 },
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void run_case(const struct rcase *c)
{
	unsigned long tries = 0, okn = 0, won = 0;
	char *why = NULL;
	double end;
	bool exec_case = c->attempt == try_exec;

	current = c;
	/* an exec's child flips for itself when a thread must do it */
	if (exec_case && !shared)
		atomic_store(&ar->stop, 0);
	if (!c->setup(c, &why)) {
		printf("%s skip %s\n", c->name, why ? why : "");
		free(why);
		fflush(stdout);
		return;
	}
	if (!exec_case || shared)
		flipper_start();
	end = now_ms() + (double)run_ms;
	while (now_ms() < end) {
		switch (c->attempt(c)) {
		case TRY_OK:
			okn++;
			break;
		case TRY_WON:
			won++;
			break;
		case TRY_REFUSED:
		default:
			break;
		}
		tries++;
		fflush(stdout);
	}
	if (!exec_case || shared)
		flipper_stop();
	atomic_store(&ar->run, 0);
	printf("%s tries=%lu ok=%lu won=%lu\n", c->name, tries, okn, won);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	int i = 1;
	size_t k;

	if (argc == 2 && strcmp(argv[1], "--marker") == 0) {
		printf("EXEC-MARKER\n");
		return MARKER_STATUS;
	}
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--shared") == 0)
			shared = true;
		else if (strcmp(argv[i], "--ms") == 0 && i + 1 < argc)
			run_ms = strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--ro") == 0 && i + 1 < argc)
			p_hook = xstrdup(argv[++i]);
		else if (strcmp(argv[i], "--denied") == 0 && i + 1 < argc)
			p_sub_env = xstrdup(argv[++i]);
		else
			break;
	}
	if (argc - i < 4) {
		fprintf(stderr, "usage: race_args [--shared] [--ms N] W HOST "
			"SECRET CASE...\n");
		return 2;
	}
	W = argv[i++];
	HOST = argv[i++];
	SECRET = argv[i++];
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	ar = mmap(NULL, sizeof(*ar), PROT_READ | PROT_WRITE,
		  (shared ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS, -1, 0);
	if (ar == MAP_FAILED) {
		perror("race_args: mmap");
		return 2;
	}
	p_ok = wpath("ok.txt");
	p_env = wpath(".env");
	if (!p_hook)
		p_hook = wpath(".git/hooks/pre-commit");
	if (!p_sub_env)
		p_sub_env = wpath("sub/.env");
	p_env_dir = wpath("e/.env");
	p_tool = wpath("keys/tool.pem");
	p_ok_stream = wpath("ok.sock");
	p_ok_dgram = wpath("ok.dgram");
	p_host_stream = xasprintf("%s/stream.sock", HOST);
	p_host_dgram = xasprintf("%s/dgram.sock", HOST);
	if (stat(p_hook, &hook0) < 0) {
		fprintf(stderr, "race_args: %s: %s\n", p_hook, strerror(errno));
		return 2;
	}
	have_xattr = getxattr(p_hook, "user.keep", ok_text, 1) >= 0;
	{
		int fd = open(p_ok, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd >= 0 ? read(fd, ok_text, sizeof(ok_text) - 1) : -1;
		size_t j;

		ok_text[n > 0 ? n : 0] = '\0';
		for (j = 0; ok_text[j]; j++)
			if ((unsigned char)ok_text[j] < ' ')
				ok_text[j] = '.';
		if (fd >= 0)
			close(fd);
	}
	for (; i < argc; i++) {
		for (k = 0; k < array_size(cases); k++)
			if (strcmp(argv[i], cases[k].name) == 0 ||
			    strcmp(argv[i], "all") == 0)
				run_case(&cases[k]);
	}
	return 0;
}
