/* SPDX-License-Identifier: MIT */
/*
 * phreg.c - placeholders shared between concurrent launches (phreg.h).
 */
#include <vbox.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "grow.h"
#include "launch.h"
#include "linux_artifact.h"
#include "mounts.h"
#include "pathmap.h"
#include "phreg.h"
#include "process.h"
#include "sandbox.h"

/* Entries the sweep looks at in the registry, at most. */
#define PHREG_MAX_ENTRIES 10000

/*
 * The registry of this process's launch, from phreg_begin() to
 * phreg_end(): placeholders_create() registers through it (vbox-exec
 * runs one launch).
 */
static struct phreg *current;

static bool below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return path[0] == '/';
	return strncmp(path, dir, n) == 0 && (path[n] == '/' || !path[n]);
}

/* A directory that is the uid's own, mode 0700, no symlink; made if absent. */
static int own_dir(const char *path, char **err)
{
	struct stat st;

	if (mkdir(path, 0700) < 0 && errno != EEXIST) {
		*err = xasprintf("placeholder registry: cannot make '%s': %s",
				 path, strerror(errno));
		return -1;
	}
	if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode) ||
	    st.st_uid != geteuid() || (st.st_mode & 07777) != 0700) {
		*err = xasprintf("placeholder registry: '%s' is not a "
				 "directory of uid %d with mode 0700; not "
				 "starting", path, (int)geteuid());
		return -1;
	}
	return 0;
}

static char *registry_dir(char **err)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	struct stat st;
	char *base, *dir;

	if (geteuid() == 0) {
		if (mkdir("/run/vbox", 0700) < 0 && errno != EEXIST) {
			*err = xasprintf("placeholder registry: cannot make "
					 "/run/vbox: %s", strerror(errno));
			return NULL;
		}
		base = xstrdup("/run/vbox");
	} else if (xdg && xdg[0] == '/' && lstat(xdg, &st) == 0 &&
		   S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
		   (st.st_mode & 077) == 0) {
		base = xasprintf("%s/vbox", xdg);
	} else {
		base = xasprintf("/tmp/vbox-%d", (int)geteuid());
	}
	if (own_dir(base, err) < 0) {
		free(base);
		return NULL;
	}
	dir = xasprintf("%s/placeholders", base);
	free(base);
	if (own_dir(dir, err) < 0) {
		free(dir);
		return NULL;
	}
	return dir;
}

/* FNV-1a, 64 bits: the lock file's name for @path. */
static char *lock_name(const char *path)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *path; path++) {
		h ^= (unsigned char)*path;
		h *= 1099511628211ULL;
	}
	return xasprintf("%016llx.lock", (unsigned long long)h);
}

/* The placeholder path a lock file records, or NULL. */
static char *read_path(int fd)
{
	char buf[PATH_MAX + 1];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 1 || buf[0] != '/')
		return NULL;
	buf[n] = '\0';
	if (strlen(buf) != (size_t)n)
		return NULL;
	return xstrdup(buf);
}

/*
 * Could @path be a placeholder of this uid?  A directory it owns (rmdir()
 * then removes it only if empty).  A path registered by a launch killed
 * before its mkdir may since have been made by someone else.
 */
static bool is_placeholder(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
	       st.st_uid == geteuid();
}

struct stale {
	char *path;
	char *name;
	int fd;
};

/* Deepest first: a placeholder inside another goes before it. */
static int cmp_stale(const void *a, const void *b)
{
	const struct stale *x = a, *y = b;
	size_t lx = strlen(x->path), ly = strlen(y->path);

	return lx < ly ? 1 : lx > ly ? -1 : strcmp(x->path, y->path);
}

/*
 * Remove every placeholder nobody holds (the registry is locked): its
 * lock file can be locked exclusively.  Placeholders nest (a launch
 * that found another's placeholder may make one inside it), so the
 * deepest go first.
 */
static void sweep(int dirfd)
{
	struct stale *v = NULL;
	struct dirent *de;
	size_t seen = 0, n = 0, vcap = 0, i;
	char *path;
	DIR *d;
	int fd, dfd;

	dfd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return;
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return;
	}
	while ((de = readdir(d)) != NULL && seen++ < PHREG_MAX_ENTRIES) {
		size_t len = strlen(de->d_name);

		if (len < 6 || strcmp(de->d_name + len - 5, ".lock") != 0 ||
		    de->d_name[0] == '.')
			continue;
		fd = openat(dirfd, de->d_name, O_RDWR | O_NOFOLLOW |
			    O_CLOEXEC);
		if (fd < 0)
			continue;
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			close(fd);	/* a live launch holds it */
			continue;
		}
		path = read_path(fd);
		if (!path)
			path = xstrdup("");
		GROW(v, vcap, n + 1);
		v[n].path = path;
		v[n].name = xstrdup(de->d_name);
		v[n].fd = fd;
		n++;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_stale);
	for (i = 0; i < n; i++) {
		if (v[i].path[0] && is_placeholder(v[i].path) &&
		    rmdir(v[i].path) < 0 && errno != ENOENT)
			vx_error("warning: cannot remove placeholder '%s': %s",
				 v[i].path, strerror(errno));
		unlinkat(dirfd, v[i].name, 0);
		close(v[i].fd);
		free(v[i].path);
		free(v[i].name);
	}
	free(v);
}

/* "pid N" of the registry's holder, as it wrote it into ".lock". */
static const char *holder(const struct phreg *r, char *out, size_t size)
{
	char buf[24];
	ssize_t n = pread(r->lockfd, buf, sizeof(buf) - 1, 0);
	long v = 0;

	if (n > 0) {
		buf[n] = '\0';
		v = strtol(buf, NULL, 10);
	}
	if (v > 0)
		snprintf(out, size, "pid %ld", v);
	else
		snprintf(out, size, "a process that did not say which");
	return out;
}

/*
 * lock_registry - the registry's exclusive lock.  Another launch of the
 * same user holds it while it decides what exists and makes its
 * placeholders, which can take a while for a large table: the wait is
 * said on stderr after a second (naming the holder, which writes its
 * pid into ".lock"), and with @w it ends at @w's deadline or at a
 * signal that ends the launch (@w->stop).  0; -1 with *@err; or
 * PHREG_INTERRUPTED with *@err saying why.
 */
static int lock_registry(struct phreg *r, const struct phreg_wait *w,
			 char **err)
{
	double t0 = proc_now_ms(), now;
	bool said = false;
	char pid[24], who[64];
	int sig, n;

	while (flock(r->lockfd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK) {
			*err = xasprintf("placeholder registry: cannot lock: "
					 "%s", strerror(errno));
			return -1;
		}
		now = proc_now_ms();
		if (!said && now - t0 >= 1000) {
			vx_error("waiting for the placeholder registry, "
				 "held by %s (another launch of this user; "
				 "%s)", holder(r, who, sizeof(who)), r->dir);
			said = true;
		}
		if (w && w->stop && (sig = w->stop(w->ctx)) != 0) {
			*err = xasprintf("signal %d while waiting for the "
					 "placeholder registry", sig);
			return PHREG_INTERRUPTED;
		}
		if (w && w->deadline_ms > 0 && now >= w->deadline_ms) {
			*err = xasprintf("--timeout passed while waiting for "
					 "the placeholder registry %s (held by "
					 "%s)", r->dir,
					 holder(r, who, sizeof(who)));
			return PHREG_INTERRUPTED;
		}
		usleep(20 * 1000);
	}
	r->locked = r->ever_locked = true;
	if (said)
		vx_error("the placeholder registry is ours after %.1f s",
			 (proc_now_ms() - t0) / 1000);
	/* who holds it, for a launch that waits */
	n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(r->lockfd, 0) < 0 ||
	    pwrite(r->lockfd, pid, (size_t)n, 0) != n)
		vx_log("note: cannot write this launch's pid into %s/.lock: "
		       "%s", r->dir, strerror(errno));
	return 0;
}

int phreg_begin(struct phreg *r, const struct phreg_wait *w, char **err)
{
	int rc;

	memset(r, 0, sizeof(*r));
	r->dirfd = r->lockfd = r->watch_fd = -1;
	r->dir = registry_dir(err);
	if (!r->dir)
		return -1;
	r->dirfd = open(r->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			O_CLOEXEC);
	if (r->dirfd < 0) {
		*err = xasprintf("placeholder registry: %s: %s", r->dir,
				 strerror(errno));
		return -1;
	}
	r->lockfd = openat(r->dirfd, ".lock", O_RDWR | O_CREAT | O_NOFOLLOW |
			   O_CLOEXEC, 0600);
	if (r->lockfd < 0) {
		*err = xasprintf("placeholder registry: %s/.lock: %s",
				 r->dir, strerror(errno));
		return -1;
	}
	rc = lock_registry(r, w, err);
	if (rc < 0)
		return rc;
	sweep(r->dirfd);
	current = r;
	return 0;
}

/*
 * Record @path in its lock file (the registry is locked) and hold it
 * (shared) from here on: the placeholder about to be made is this
 * launch's, and phreg_hold() need not open the file again.
 */
static int note(struct phreg *r, const char *path, char **err)
{
	char *name = lock_name(path);
	size_t len = strlen(path);
	int fd;

	fd = openat(r->dirfd, name, O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
	if (fd < 0 || pwrite(fd, path, len, 0) != (ssize_t)len ||
	    flock(fd, LOCK_SH) < 0) {
		*err = xasprintf("placeholder registry: cannot register '%s': "
				 "%s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		free(name);
		return -1;
	}
	free(name);
	GROW(r->held, r->held_cap, r->nheld + 1);
	r->held[r->nheld++] = fd;
	return 0;
}

/*
 * Forget @path, the last one noted, which is not ours after all: let
 * its lock go, and remove the file unless another launch holds it.
 */
static void unnote(struct phreg *r, const char *path)
{
	char *name = lock_name(path);
	int fd;

	if (r->nheld > 0)
		close(r->held[--r->nheld]);
	fd = openat(r->dirfd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0)
		unlinkat(r->dirfd, name, 0);
	if (fd >= 0)
		close(fd);
	free(name);
}

/* Open files a launch needs besides its placeholders' locks. */
#define FDS_BESIDES_PLACEHOLDERS 256

/*
 * A launch holds the lock file of each placeholder open for its whole
 * life (the kernel drops a dead launch's locks): @n placeholders need @n
 * open files.  Raise the soft limit up to the hard one where that is
 * needed; beyond it, refuse before anything is made.
 */
static int fds_for_placeholders(size_t n, char **err)
{
	struct rlimit rl;
	rlim_t want = (rlim_t)n + FDS_BESIDES_PLACEHOLDERS;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0) {
		*err = xasprintf("cannot read the open-file limit: %s",
				 strerror(errno));
		return -1;
	}
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want) {
		if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= want)
			rl.rlim_cur = want;
		else
			rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur < want) {
			*err = xasprintf("the plan needs %zu placeholders, and "
					 "a launch keeps one file open for "
					 "each: %llu open files, more than the "
					 "limit of %llu (ulimit -n); raise the "
					 "limit, or create the missing paths "
					 "the rows name (--log lists them)",
					 n, (unsigned long long)want,
					 (unsigned long long)rl.rlim_cur);
			return -1;
		}
	}
	return 0;
}

int placeholders_create(struct sandbox *sa, const struct launch_stop *stop,
			char **err)
{
	struct phreg *r = current;
	const char *p;
	int saved, sig;

	if (!r || !r->locked)
		BUG("placeholders made outside the registry's lock");
	if (fds_for_placeholders(sa->nplaceholders, err) < 0)
		return -1;
	for (sa->created = 0; sa->created < sa->nplaceholders; sa->created++) {
		p = sa->placeholders[sa->created];
		if (sa->created % LAUNCH_STOP_EVERY == LAUNCH_STOP_EVERY - 1 &&
		    (sig = launch_stopped(stop)) != 0) {
			*err = xasprintf("stopped by signal %d", sig);
			placeholders_remove(sa);
			return -1;
		}
		/*
		 * Registered before it exists: a launch killed right after
		 * the mkdir leaves a path the next sweep removes, never an
		 * unregistered directory on the host.
		 */
		if (note(r, p, err) < 0) {
			placeholders_remove(sa);
			return -1;
		}
		if (mkdir(p, PLACEHOLDER_MODE) == 0)
			continue;
		saved = errno;
		unnote(r, p);
		if (saved == EEXIST)
			*err = xasprintf("placeholder '%s' appeared after the "
					 "plan was instantiated (another "
					 "launch, or the host changed); not "
					 "starting", p);
		else
			*err = xasprintf("cannot create placeholder '%s': %s",
					 p, strerror(saved));
		placeholders_remove(sa);
		return -1;
	}
	return 0;
}

void placeholders_remove(struct sandbox *sa)
{
	const char *p;

	while (sa->created > 0) {
		p = sa->placeholders[--sa->created];
		if (rmdir(p) < 0 && errno != ENOENT)
			vx_error("warning: cannot remove placeholder '%s': %s",
				 p, strerror(errno));
	}
}

/* Hold the existing lock file of @path (shared). */
static int hold(struct phreg *r, const char *path, char **err)
{
	char *name = lock_name(path);
	int fd;

	fd = openat(r->dirfd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || flock(fd, LOCK_SH) < 0) {
		*err = xasprintf("placeholder registry: cannot hold '%s': %s",
				 path, strerror(errno));
		if (fd >= 0)
			close(fd);
		free(name);
		return -1;
	}
	free(name);
	GROW(r->held, r->held_cap, r->nheld + 1);
	r->held[r->nheld++] = fd;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The first of the @n sorted @v not before @key. */
static size_t lower_bound(char *const *v, size_t n, const char *key)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(v[mid], key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Does one of the @n sorted @v equal @path or lie below it?  Those below
 * sort together after "@path/" (a sibling "@path-x" sorts between @path
 * and them), so two searches answer.
 */
static bool sorted_has_at_or_below(char *const *v, size_t n,
				   const char *path)
{
	size_t i = lower_bound(v, n, path), len = strlen(path);
	char *slash;
	bool hit;

	if (i < n && strcmp(v[i], path) == 0)
		return true;
	if (len == 1)			/* "/": every mount is below it */
		return n > 0;
	slash = xasprintf("%s/", path);
	i = lower_bound(v, n, slash);
	hit = i < n && strncmp(v[i], slash, len + 1) == 0;
	free(slash);
	return hit;
}

/*
 * Registered placeholders @lx mounts over (or below): hold them too.
 * The registry may list many (this launch's own, another large launch's):
 * each is looked up, not compared with every path made and mount.
 */
static int hold_existing(struct phreg *r, const struct lx_artifact *lx,
			 char *const *made, size_t nmade, char **err)
{
	struct dirent *de;
	size_t seen = 0, i, ndests = 0, v;
	struct pathmap mine = { 0 };
	char *path, **dests;
	DIR *d;
	int fd, dfd, ret = 0;

	dfd = openat(r->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = dfd < 0 ? NULL : fdopendir(dfd);
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		*err = xasprintf("placeholder registry: cannot list %s: %s",
				 r->dir, strerror(errno));
		return -1;
	}
	for (i = 0; i < nmade; i++)
		pathmap_put_max(&mine, made[i], 0);
	dests = xreallocarray(NULL, lx->n ? lx->n : 1, sizeof(*dests));
	for (i = 0; i < lx->n; i++)
		if (lx->m[i].dest)
			dests[ndests++] = lx->m[i].dest;
	qsort(dests, ndests, sizeof(*dests), cmp_str);
	while (ret == 0 && (de = readdir(d)) != NULL &&
	       seen++ < PHREG_MAX_ENTRIES) {
		size_t n = strlen(de->d_name);

		if (n < 6 || strcmp(de->d_name + n - 5, ".lock") != 0 ||
		    de->d_name[0] == '.')
			continue;
		fd = openat(r->dirfd, de->d_name, O_RDONLY | O_NOFOLLOW |
			    O_CLOEXEC);
		if (fd < 0)
			continue;
		path = read_path(fd);
		close(fd);
		if (!path)
			continue;
		if (!pathmap_get(&mine, path, &v) &&
		    sorted_has_at_or_below(dests, ndests, path))
			ret = hold(r, path, err);
		free(path);
	}
	closedir(d);
	free(dests);
	pathmap_release(&mine);
	return ret;
}

/* Could the sandbox write @dir?  The last mount covering it decides. */
static bool writable_in(const char *dir, const struct lx_artifact *a)
{
	const struct lx_mount *m;
	bool rw = true;
	size_t i;

	for (i = 0; i < a->n; i++) {
		m = &a->m[i];
		if (!m->dest || m->kind == LX_DIR || m->kind == LX_REMOUNT_RO ||
		    !below(dir, m->dest))
			continue;
		rw = m->kind == LX_BIND_RW || m->kind == LX_BIND_RW_TRY;
	}
	return rw;
}

/* Close every fd from 3 up but @a and @b. */
static void close_all_but(int a, int b)
{
	int lo = a < b ? a : b, hi = a < b ? b : a, fd;

	if (syscall(SYS_close_range, 3U, (unsigned)lo - 1, 0U) == 0 &&
	    (hi == lo + 1 ||
	     syscall(SYS_close_range, (unsigned)lo + 1, (unsigned)hi - 1,
		     0U) == 0) &&
	    syscall(SYS_close_range, (unsigned)hi + 1, ~0U, 0U) == 0)
		return;
	for (fd = 3; fd < 4096; fd++)
		if (fd != a && fd != b)
			close(fd);
}

/* The watchdog's life: wait for vbox-exec's end; sweep if it died. */
static __noreturn void watchdog(int pipe_fd, int dirfd)
{
	ssize_t n;
	char c;
	int lock, null;

	setsid();
	null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		if (null > 2)
			close(null);
	}
	close_all_but(pipe_fd, dirfd);
	do
		n = read(pipe_fd, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n == 1)
		_exit(0);	/* vbox-exec cleaned up itself */
	/*
	 * vbox-exec died: its sandbox is being killed with it (parent-death
	 * signals).  Give that a moment, then remove what nobody holds.
	 */
	usleep(200 * 1000);
	lock = openat(dirfd, ".lock", O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (lock < 0 || flock(lock, LOCK_EX) < 0)
		_exit(1);
	sweep(dirfd);
	_exit(0);
}

/*
 * Start the watchdog: when vbox-exec dies without saying it is done
 * (SIGKILL), it removes what nobody holds any more.  It holds nothing
 * itself (it closes every lock fd it inherited at once).
 */
static void start_watchdog(struct phreg *r)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return;
	}
	if (pid == 0) {
		close(p[1]);
		watchdog(p[0], r->dirfd);
	}
	close(p[0]);
	r->watchdog = (int)pid;
	r->watch_fd = p[1];
}

int phreg_hold(struct phreg *r, char *const *made, size_t nmade,
	       struct lx_artifact *lx, char **err)
{
	/* @made are held since placeholders_create() noted them. */
	if (hold_existing(r, lx, made, nmade, err) < 0)
		return -1;
	/* The sandbox must not reach the registry. */
	if (writable_in(r->dir, lx))
		lx_add(lx, LX_TMPFS, NULL, r->dir, 0, LX_ROW_NONE);
	if (r->nheld)
		start_watchdog(r);
	/* no holder to name any more */
	(void)!ftruncate(r->lockfd, 0);
	flock(r->lockfd, LOCK_UN);
	r->locked = false;
	return 0;
}

void phreg_end(struct phreg *r)
{
	char *err = NULL;
	size_t i;

	/*
	 * The watchdog first.  It got copies of the lock fds at its fork
	 * and closes them at once, but only once it runs: on a busy machine
	 * a short launch can reach this point first, and while it has not,
	 * its copies hold this launch's placeholders, which the sweep below
	 * would then leave (the next launch removed them).  Told that
	 * vbox-exec is done, it exits without sweeping; once it is reaped
	 * it holds nothing.
	 */
	if (r->watch_fd >= 0) {
		if (write(r->watch_fd, "D", 1) != 1)
			vx_error("warning: the placeholder watchdog is gone");
		close(r->watch_fd);
		r->watch_fd = -1;
		while (waitpid(r->watchdog, NULL, 0) < 0 && errno == EINTR)
			;
	}
	for (i = 0; i < r->nheld; i++)
		close(r->held[i]);
	free(r->held);
	r->held = NULL;
	r->nheld = 0;
	r->held_cap = 0;
	/* (a launch that never had the lock made and holds nothing) */
	if (r->lockfd >= 0 && r->ever_locked &&
	    (r->locked || lock_registry(r, NULL, &err) == 0)) {
		sweep(r->dirfd);
		(void)!ftruncate(r->lockfd, 0);	/* no holder to name */
	}
	free(err);
	if (r->lockfd >= 0)
		close(r->lockfd);
	if (r->dirfd >= 0)
		close(r->dirfd);
	free(r->dir);
	if (current == r)
		current = NULL;
	memset(r, 0, sizeof(*r));
	r->dirfd = r->lockfd = r->watch_fd = -1;
}
