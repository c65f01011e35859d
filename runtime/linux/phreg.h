/* SPDX-License-Identifier: MIT */
/*
 * phreg.h - placeholders shared between concurrent launches
 * (doc/launcher.md, "Placeholders").
 *
 * A placeholder is an empty directory vbox-exec makes on the host over a
 * denied path that does not exist, so the child cannot create it, and
 * removes when the child has ended.  Launches of the same or overlapping
 * plans run at once; without coordination, launch B finds A's
 * placeholder present, mounts over it without one of its own, and loses
 * that mount when A removes it.
 *
 * The registry is a directory only the launching uid can write (root:
 * /run/vbox/placeholders; others: $XDG_RUNTIME_DIR/vbox/placeholders, or
 * /tmp/vbox-UID/placeholders, each checked to be the uid's own, mode
 * 0700, no symlink), with one lock file per placeholder path.  A launch
 * holds a shared flock() on the lock file of every placeholder it made
 * or mounts over, for its whole life; the kernel drops the locks of a
 * process that dies, SIGKILL included.  Under an exclusive lock on the
 * registry (".lock"), held from the instantiation to the start and again
 * at the end, a launch removes every placeholder nobody holds any more:
 * its own, and those of launches that were killed.  A small watchdog
 * process does the same when vbox-exec dies without doing it.  The
 * registry is hidden from the sandbox (a tmpfs over it) wherever the
 * sandbox could write it.
 */
#ifndef VBOX_PHREG_H
#define VBOX_PHREG_H

#include <stdbool.h>
#include <stddef.h>

struct lx_artifact;

/**
 * struct phreg - this launch's part of the registry
 * @dir: the registry directory (owned)
 * @dirfd: it, open (O_PATH | O_DIRECTORY), -1 when closed
 * @lockfd: ".lock", exclusively locked while @locked
 * @locked: the registry is this launch's
 * @ever_locked: it was (phreg_end() has something to sweep)
 * @held: lock fds of the placeholders held (shared flock)
 * @nheld: number of @held; @held_cap: room for
 * @watchdog: pid of the watchdog (0: none), @watch_fd its pipe
 */
struct phreg {
	char *dir;
	int dirfd;
	int lockfd;
	bool locked;
	bool ever_locked;
	int *held;
	size_t nheld;
	size_t held_cap;
	int watchdog;
	int watch_fd;
};

/**
 * struct phreg_wait - how long phreg_begin() may wait for the lock
 * @deadline_ms: proc_now_ms() at which to give up (0: never): --timeout
 *               counts the wait
 * @stop: a signal that ends the launch, if one came (0: none)
 * @ctx: for @stop
 */
struct phreg_wait {
	double deadline_ms;
	int (*stop)(void *ctx);
	void *ctx;
};

/* phreg_begin()'s value when @w ended the wait (*err says why). */
#define PHREG_INTERRUPTED (-2)

/*
 * phreg_begin - find or make the registry, lock it (waiting as @w
 * allows; said on stderr after a second), remove stale placeholders.
 * 0, -1 with *@err, or PHREG_INTERRUPTED with *@err.  Call phreg_end()
 * either way.
 */
int phreg_begin(struct phreg *r, const struct phreg_wait *w, char **err);

/*
 * phreg_hold - after the placeholders @made were made (this launch's,
 * held since placeholders_create() registered them): hold every other
 * registered placeholder sandbox @lx mounts over;
 * hide the registry in @lx where the sandbox could write it; start the
 * watchdog; unlock the registry.  0, or -1 with *@err.
 */
int phreg_hold(struct phreg *r, char *const *made, size_t nmade,
	       struct lx_artifact *lx, char **err);

/*
 * phreg_end - the launch is over: drop the holds and, under the lock,
 * remove every placeholder nobody holds; release @r.
 */
void phreg_end(struct phreg *r);

#endif /* VBOX_PHREG_H */
