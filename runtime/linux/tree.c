/* SPDX-License-Identifier: MIT */
/*
 * tree.c - the sandboxed tree as the supervisor sees it (tree.h).
 *
 * Owned here: learning the tree from the init channel (the sandbox's
 * init from CH_READY, checked to be bubblewrap's child and pinned with a
 * pidfd; its PID namespace; the command from CH_STARTED, whose socket
 * filter's listener is taken for the supervisor), and the supervisor's
 * operations on it: forwarding signals to the command, SIGTERM to the
 * whole tree at --timeout, SIGKILL, and settling (reaping) it at the
 * end.  In namespace mode the tree is the sandbox's PID namespace; in
 * container mode, which has none, every descendant of vbox-exec but the
 * egress proxy (vbox-exec is their subreaper), swept through /proc.
 * The order of a launch is launch.c's.
 *
 * Signals are forwarded to the command through a pidfd.  The timeout
 * sends SIGTERM to every process of the sandbox's PID namespace, then
 * SIGKILL to its init, which the kernel turns into SIGKILL for all of
 * them; in every case the launcher waits until the init is gone, so
 * nothing of the tree survives vbox-exec.
 */
#include <vbox.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launch.h"
#include "process.h"
#include "tree.h"

/* The /proc scan of the timeout looks at no more entries than this. */
#define PROC_SCAN_MAX (1L << 22)

/* ------------------------------------------------------------------ */
/* pidfds (process.h); without them, plain pids, checked by namespace */

/* The PID namespace @pid lives in, as the inode of its ns link. */
static int pid_ns_of(pid_t pid, dev_t *dev, ino_t *ino)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)pid);
	if (stat(path, &st) < 0)
		return -1;
	*dev = st.st_dev;
	*ino = st.st_ino;
	return 0;
}

/* The parent and state of @pid from /proc/PID/stat; -1 when gone. */
static pid_t parent_state(pid_t pid, char *state)
{
	char path[64], buf[512], *p;
	ssize_t n;
	long ppid;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* "PID (COMM) STATE PPID ...": COMM may hold anything but ends at
	 * the last ')'. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %c %ld", state, &ppid) != 2)
		return -1;
	return (pid_t)ppid;
}

/* The parent of @pid from /proc/PID/stat, or -1. */
static pid_t parent_of(pid_t pid)
{
	char state;

	return parent_state(pid, &state);
}

/* ------------------------------------------------------------------ */
/* the sandboxed tree, as the supervisor sees it */

static bool in_sandbox_ns(const struct tree *t, pid_t pid)
{
	dev_t dev;
	ino_t ino;

	if (!t->have_ns)
		return false;
	return pid_ns_of(pid, &dev, &ino) == 0 && dev == t->ns_dev &&
	       ino == t->ns_ino;
}

/*
 * bwrap reported the host pid of its child, the sandbox's init.  Trust
 * it only while that process is bubblewrap's child: the pidfd then pins
 * the right process.
 */
static void adopt_init(struct tree *t, long pid)
{
	int fd;

	if (pid <= 1 || pid > INT32_MAX || t->init_pid)
		return;
	if (t->ct) {
		/* The runner itself: no namespace of its own. */
		if ((pid_t)pid != t->runner)
			return;
		t->init_pid = (pid_t)pid;
		t->init_pidfd = proc_pidfd_open((pid_t)pid);
		t->have_ns = false;
		return;
	}
	fd = proc_pidfd_open((pid_t)pid);
	if (parent_of((pid_t)pid) != t->runner) {
		if (fd >= 0)
			close(fd);
		return;
	}
	t->init_pid = (pid_t)pid;
	t->init_pidfd = fd;
	t->have_ns = pid_ns_of(t->init_pid, &t->ns_dev, &t->ns_ino) == 0;
	vx_log("sandbox init is host pid %d", (int)pid);
}

/* The init reported CH_READY: its credentials name it. */
void tree_on_ready(struct init_link *l, void *ctx)
{
	adopt_init(ctx, l->init_pid);
}

/*
 * The command's process loaded the socket filter and waits: take its
 * listener (fd @num there) and supervise it on the loop.  0, or -1 with
 * the reason said (the tree is then ended: the command must not run).
 */
static int supervisor_take(struct tree *t, int num)
{
	struct unixsock_config cfg = { 0 };
	char *err = NULL;
	int fd;

	if (!t->walls.notify) {
		vx_error("the sandbox reported a socket filter it was not "
			 "asked for; not trusting it");
		return -1;
	}
	if (t->link.listener_fd >= 0) {
		/* Sent by the command's process itself (CH_LISTENER_FD). */
		fd = t->link.listener_fd;
		t->link.listener_fd = -1;
	} else {
		fd = t->cmd_pidfd < 0 ? -1 :
		     (int)syscall(SYS_pidfd_getfd, t->cmd_pidfd, num, 0);
	}
	if (fd < 0) {
		vx_error("socket supervisor: cannot take the listener: %s",
			 strerror(errno));
		return -1;
	}
	cfg.pathname_open = t->walls.pathname_open;
	cfg.refuse_abstract = t->walls.refuse_abstract;
	/*
	 * The sandbox's root, read from /proc/PID/root: of the init in
	 * namespace mode; in container mode of the command, since the init
	 * there is the tree's guard, not dumpable, whose root an ordinary
	 * user cannot read (the same root: the command has no other).
	 */
	cfg.init_pid = t->ct ? t->cmd_pid : t->init_pid;
	cfg.init_pidfd = t->ct ? t->cmd_pidfd : t->init_pidfd;
	cfg.container = t->ct ? &t->ct->rules : NULL;
	cfg.admit_inet = t->ct && t->ct->net_deny ? container_admit : NULL;
	cfg.admit_ctx = t->ct;
	cfg.no_getfd = t->ct && t->ct->no_getfd;
	if (t->judge) {
		cfg.judge = pathjudge_judge;
		cfg.below = pathjudge_below;
		cfg.judge_ctx = t->judge;
	}
	t->sup = unixsock_alloc(supervisor_loop(&t->sv), fd, &cfg, &err);
	if (!t->sup) {
		vx_error("socket supervisor: %s", err);
		free(err);
		return -1;
	}
	if (init_link_listener_taken(&t->link) < 0) {
		vx_error("socket supervisor: cannot answer the sandbox: %s",
			 strerror(errno));
		return -1;
	}
	return 0;
}

/* The init reported CH_STARTED: the command is about to be exec'd. */
void tree_on_started(struct init_link *l, void *ctx)
{
	struct tree *t = ctx;

	t->started = true;
	t->cmd_pid = l->cmd_pid;
	t->t_started = proc_now_ms();
	if (t->cmd_pid > 0)
		t->cmd_pidfd = proc_pidfd_open(t->cmd_pid);
	if (t->ct)
		vx_log("stage: sandbox start took %.3f ms from the init's "
		       "start (command is host pid %d)",
		       t->t_started - t->t_spawn, (int)t->cmd_pid);
	else
		vx_log("stage: sandbox start took %.3f ms from bubblewrap's "
		       "start, %.3f ms from its argument list (command is "
		       "host pid %d)", t->t_started - t->t_spawn,
		       t->t_started - t->t_args, (int)t->cmd_pid);
	if ((l->listener >= 0 && supervisor_take(t, l->listener) < 0) ||
	    (l->listener < 0 && t->walls.notify)) {
		if (l->listener < 0)
			vx_error("the sandbox reported no socket filter; not "
				 "trusting it");
		/* The command never runs: it waits for the answer. */
		t->started = false;
		l->protocol_error = true;
		tree_kill(t);
		return;
	}
	/* Signals that came before the command was known. */
	supervisor_flush_signals(&t->sv);
}

/*
 * A terminal sends these to every process of its foreground group: the
 * command's whole group (the command leads it, init.c) gets them, so
 * that Ctrl-C ends a script and its current child, or a pipeline, at
 * once.  Other signals (SIGTERM, SIGHUP) go to the command, as
 * kill(1) would send them (doc/launcher.md, "Signals").
 */
static bool to_group(int sig)
{
	return sig == SIGINT || sig == SIGQUIT || sig == SIGTSTP ||
	       sig == SIGCONT;
}

static bool tree_forward(void *ctx, int sig)
{
	struct tree *t = ctx;

	if (!t->started)
		return false;
	/*
	 * Only a process of the sandbox's namespace: the command's pid
	 * could have been reused outside after it exited.
	 */
	if (t->cmd_pid <= 0)
		return true;
	if (t->have_ns ? in_sandbox_ns(t, t->cmd_pid) || t->cmd_pidfd >= 0
		       : t->cmd_pidfd >= 0) {
		if (to_group(sig)) {
			vx_log("forwarding signal %d to the command's process "
			       "group", sig);
			if (proc_signal_group(t->cmd_pidfd, t->cmd_pid, sig) <
			    0 && errno != ESRCH)
				vx_log("cannot forward signal %d: %s", sig,
				       strerror(errno));
		} else {
			vx_log("forwarding signal %d to the command", sig);
			proc_signal(t->cmd_pidfd, t->cmd_pid, sig);
		}
	}
	return true;
}

/*
 * Container mode: is @pid (alive) of the tree?  Its parents lead to
 * vbox-exec, and not through the egress proxy.  Orphans come to the
 * nearest subreaper above them, vbox-exec at the latest, so none escapes.
 */
static bool of_tree(const struct tree *t, pid_t pid)
{
	pid_t self = getpid(), p = pid;
	char state = '?';
	int depth;

	for (depth = 0; depth < 4096 && p > 1; depth++) {
		if (p == t->bridge.helper)
			return false;
		p = parent_state(p, &state);
		if (depth == 0 && (state == 'Z' || state == 'X'))
			return false;
		if (p == self)
			return true;
	}
	return false;
}

/* Container mode: @sig to every live process of the tree; how many. */
static long sweep(const struct tree *t, int sig)
{
	struct dirent *de;
	long seen = 0, pid, hit = 0;
	char *end;
	DIR *proc;
	int fd;

	proc = opendir("/proc");
	if (!proc)
		return 0;
	while ((de = readdir(proc)) != NULL && seen++ < PROC_SCAN_MAX) {
		errno = 0;
		pid = strtol(de->d_name, &end, 10);
		if (errno || *end || pid <= 1 || pid > INT32_MAX ||
		    pid == getpid() || !of_tree(t, (pid_t)pid))
			continue;
		/* Pin the process, then check it is still of the tree. */
		fd = proc_pidfd_open((pid_t)pid);
		if (of_tree(t, (pid_t)pid)) {
			proc_signal(fd, (pid_t)pid, sig);
			hit++;
		}
		if (fd >= 0)
			close(fd);
	}
	closedir(proc);
	return hit;
}

/* SIGTERM to every process of the sandbox's PID namespace but its init. */
static void tree_terminate(void *ctx)
{
	struct tree *t = ctx;
	struct dirent *de;
	long seen = 0, pid;
	char *end;
	DIR *proc;
	int fd;

	vx_log("timeout: sending SIGTERM to the whole tree");
	if (t->ct) {
		sweep(t, SIGTERM);
		return;
	}
	if (!t->have_ns) {
		/* Without the namespace, end bubblewrap: --die-with-parent
		 * then kills the tree at once. */
		kill(t->runner, SIGTERM);
		return;
	}
	proc = opendir("/proc");
	if (!proc) {
		kill(t->runner, SIGTERM);
		return;
	}
	while ((de = readdir(proc)) != NULL && seen++ < PROC_SCAN_MAX) {
		errno = 0;
		pid = strtol(de->d_name, &end, 10);
		if (errno || *end || pid <= 0 || pid > INT32_MAX ||
		    pid == t->init_pid || !in_sandbox_ns(t, (pid_t)pid))
			continue;
		/* Pin the process, then check it is still the one. */
		fd = proc_pidfd_open((pid_t)pid);
		if (in_sandbox_ns(t, (pid_t)pid))
			proc_signal(fd, (pid_t)pid, SIGTERM);
		if (fd >= 0)
			close(fd);
	}
	closedir(proc);
}

void tree_end_stray(pid_t runner, int wait_ms)
{
	dev_t my_dev, dev;
	ino_t my_ino, ino;
	struct dirent *de;
	long seen = 0, pid;
	pid_t self = getpid(), got;
	char *end;
	DIR *proc;
	int i, fd;

	for (i = 0; i <= wait_ms; i++) {
		do
			got = waitpid(runner, NULL, WNOHANG | __WNOTHREAD);
		while (got < 0 && errno == EINTR);
		if (got != 0)
			return;
		if (i < wait_ms)
			usleep(1000);
	}
	vx_error("warning: bubblewrap %d did not end in %d ms: killed",
		 (int)runner, wait_ms);
	kill(runner, SIGKILL);
	while (waitpid(runner, NULL, __WNOTHREAD) < 0 && errno == EINTR)
		;
	/* Its child, the sandbox's init, is ours now: in another PID
	 * namespace, which nothing else of vbox-exec's is. */
	if (pid_ns_of(self, &my_dev, &my_ino) < 0)
		return;
	proc = opendir("/proc");
	if (!proc)
		return;
	while ((de = readdir(proc)) != NULL && seen++ < PROC_SCAN_MAX) {
		errno = 0;
		pid = strtol(de->d_name, &end, 10);
		if (errno || *end || pid <= 1 || pid > INT32_MAX ||
		    parent_of((pid_t)pid) != self ||
		    pid_ns_of((pid_t)pid, &dev, &ino) < 0 ||
		    (dev == my_dev && ino == my_ino))
			continue;
		/* Pin the process, then check it is still the one. */
		fd = proc_pidfd_open((pid_t)pid);
		if (parent_of((pid_t)pid) == self) {
			proc_signal(fd, (pid_t)pid, SIGKILL);
			while (waitpid((pid_t)pid, NULL, __WNOTHREAD) < 0 &&
			       errno == EINTR)
				;
		}
		if (fd >= 0)
			close(fd);
	}
	closedir(proc);
}

void tree_kill(void *ctx)
{
	struct tree *t = ctx;

	vx_log("killing the whole tree");
	if (t->ct)
		sweep(t, SIGKILL);
	if (t->init_pid)
		proc_signal(t->init_pidfd, t->init_pid, SIGKILL);
}

/*
 * Container mode: the command ended (or the tree is ended); kill what is
 * left of the tree, as the kernel does for a PID namespace whose init
 * ends, and reap it.  Rounds until a sweep finds nobody: a process
 * forking meanwhile is found by the next one.  (Every reap here is
 * __WNOTHREAD: a process the path supervisor's thread traces for an exec
 * (execwatch.h) reports its stops to that thread's waitpid() alone.)
 */
static void container_settle(struct tree *t)
{
	int round;

	for (round = 0; round < 1000; round++) {
		while (waitpid(-1, NULL, WNOHANG | __WNOTHREAD) > 0)
			;
		if (sweep(t, SIGKILL) == 0)
			break;
		usleep(1000);
	}
	if (round == 1000)
		vx_error("warning: processes of the tree were still starting "
			 "after 1000 rounds of SIGKILL");
	while (waitpid(-1, NULL, WNOHANG | __WNOTHREAD) > 0)
		;
	if (t->init_pidfd >= 0) {
		close(t->init_pidfd);
		t->init_pidfd = -1;
	}
	if (t->cmd_pidfd >= 0) {
		close(t->cmd_pidfd);
		t->cmd_pidfd = -1;
	}
	init_link_drain(&t->link);
}

/*
 * bubblewrap is reaped.  Its death already killed the init (parent-death
 * signal), but asynchronously: kill it again and wait for it, because
 * the init only exits once every process of its namespace is gone.  As
 * vbox-exec is a child subreaper, the orphaned init is reparented to it,
 * and reaped here rather than left as a zombie for the host's init.
 */
static void tree_settle(void *ctx)
{
	struct tree *t = ctx;
	struct pollfd p;
	double until = proc_now_ms() + PROC_SETTLE_MS;
	int left;

	if (t->ct) {
		container_settle(t);
		return;
	}
	if (t->init_pidfd >= 0) {
		proc_signal(t->init_pidfd, t->init_pid, SIGKILL);
		p.fd = t->init_pidfd;
		p.events = POLLIN;
		for (;;) {
			left = (int)(until - proc_now_ms());
			if (left <= 0)
				break;
			if (poll(&p, 1, left) >= 0 || errno != EINTR)
				break;
		}
		close(t->init_pidfd);
		t->init_pidfd = -1;
		while (waitpid(t->init_pid, NULL, WNOHANG) < 0 &&
		       errno == EINTR)
			;
	} else if (t->init_pid) {
		kill(t->init_pid, SIGKILL);
		/* Our child by now, or already reaped (ECHILD). */
		while (waitpid(t->init_pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	/* Nothing else can have been reparented to us; reap it anyway. */
	while (waitpid(-1, NULL, WNOHANG | __WNOTHREAD) > 0)
		;
	if (t->cmd_pidfd >= 0) {
		close(t->cmd_pidfd);
		t->cmd_pidfd = -1;
	}
	/* What the init said last. */
	init_link_drain(&t->link);
}

const struct supervisor_ops tree_ops = {
	.forward = tree_forward,
	.terminate = tree_terminate,
	.kill = tree_kill,
	.settle = tree_settle,
};

