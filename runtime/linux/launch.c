/* SPDX-License-Identifier: MIT */
/*
 * launch.c - run the command under bubblewrap, or in container mode
 * without it (launch.h; doc/launcher.md, "How a launch works",
 * "Container mode").
 *
 * Owned here: the order of a launch (find bubblewrap, build the sandbox,
 * make the placeholders, open the init channel and send the setup, start
 * bubblewrap, supervise, map the outcome) and the sandboxed tree as the
 * supervisor sees it: the init channel's CH_READY carries the host pid of
 * the sandbox's init (the kernel's credentials), from which the launcher
 * learns its PID namespace; CH_STARTED gives the command's host pid.  No CH_STARTED
 * means the command never started: whatever bubblewrap's status,
 * vbox-exec exits 125.
 *
 * Container mode (launch_container(), --mode=container|auto) has no PID
 * namespace: vbox-init is the runner and becomes the command, and the
 * tree is every descendant of vbox-exec but the egress proxy, swept with
 * SIGKILL when the command ends (container_settle()); its decisions
 * before the start are container.c's.
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
#include <sys/epoll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bwrap.h"
#include "container.h"
#include "env.h"
#include "bridge.h"
#include "init_link.h"
#include "nsprobe.h"
#include "ir.h"
#include "emit.h"
#include "pathjudge.h"
#include "launch.h"
#include "plan.h"
#include "process.h"
#include "phreg.h"
#include "pin.h"
#include "sandbox.h"
#include "strv.h"
#include "supervise.h"
#include "walls/unixsock.h"
#include "walls/walls.h"

/* The /proc scan of the timeout looks at no more entries than this. */
#define PROC_SCAN_MAX (1L << 22)

int launch_platform(void)
{
	return TARGET_LINUX;
}

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

/**
 * struct tree - what the launcher knows about the running sandbox
 * @sv: the supervisor
 * @link: the init channel
 * @runner: bubblewrap's pid
 * @init_pid, @init_pidfd: the sandbox's init (0 and -1 until known)
 * @ns_dev, @ns_ino, @have_ns: its PID namespace
 * @cmd_pid, @cmd_pidfd: the command (0 and -1 until the init reported)
 * @started: the init reported: the command is about to be exec'd
 * @ended_by_us: vbox-exec ended the tree before the command started for a
 *               reason of its own (its egress proxy), and said why
 * @t_spawn, @t_args, @t_started: clock readings for --log (bubblewrap's
 *                               start, its argument list sent, CH_STARTED)
 * @walls: the walls prepared for this launch (runtime/walls/walls.h)
 * @sup: the socket supervisor, once the command's listener is taken
 * @ct: container mode's decisions (NULL in namespace mode): no PID
 *      namespace; vbox-init is the runner and execs the command in its
 *      own process, the tree is every descendant of vbox-exec but the
 *      egress proxy (vbox-exec is their subreaper)
 * @auto_cause: --mode=auto chose container mode: why namespaces failed
 */
struct tree {
	struct supervisor sv;
	struct init_link link;
	pid_t runner;
	pid_t init_pid;
	int init_pidfd;
	dev_t ns_dev;
	ino_t ns_ino;
	bool have_ns;
	pid_t cmd_pid;
	int cmd_pidfd;
	bool started;
	bool ended_by_us;
	double t_spawn;
	double t_args;
	double t_started;
	int args_fd;
	struct walls walls;
	struct unixsock *sup;
	struct pathjudge *judge;
	struct bridge bridge;
	struct container *ct;
	const char *auto_cause;
};

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
static void on_ready(struct init_link *l, void *ctx)
{
	adopt_init(ctx, l->init_pid);
}

static void tree_kill(void *ctx);

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
	cfg.init_pid = t->init_pid;
	cfg.init_pidfd = t->init_pidfd;
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
static void on_started(struct init_link *l, void *ctx)
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
	if (t->have_ns ? in_sandbox_ns(t, t->cmd_pid) : t->cmd_pidfd >= 0) {
		vx_log("forwarding signal %d to the command", sig);
		proc_signal(t->cmd_pidfd, t->cmd_pid, sig);
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

static void tree_kill(void *ctx)
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
 * forking meanwhile is found by the next one.
 */
static void container_settle(struct tree *t)
{
	int round;

	for (round = 0; round < 1000; round++) {
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (sweep(t, SIGKILL) == 0)
			break;
		usleep(1000);
	}
	if (round == 1000)
		vx_error("warning: processes of the tree were still starting "
			 "after 1000 rounds of SIGKILL");
	while (waitpid(-1, NULL, WNOHANG) > 0)
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
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	if (t->cmd_pidfd >= 0) {
		close(t->cmd_pidfd);
		t->cmd_pidfd = -1;
	}
	/* What the init said last. */
	init_link_drain(&t->link);
}

/* ------------------------------------------------------------------ */
/* the launch */

static const struct supervisor_ops tree_ops = {
	.forward = tree_forward,
	.terminate = tree_terminate,
	.kill = tree_kill,
	.settle = tree_settle,
};

/* The status after the runner ended; see launch_run(). */
static int outcome(const struct tree *t, const struct proc_result *res)
{
	int status = proc_exit_status(res);

	if (res->timed_out) {
		vx_log("stage: child exit: timed out after %.3f ms; the whole "
		       "tree was ended", res->elapsed_ms);
		return EXIT_TIMEOUT;
	}
	if (t->link.error)
		vx_error("%s; the command did not run", t->link.error);
	if (t->link.protocol_error)
		return EXIT_LAUNCHER;
	if (!t->started && t->ended_by_us)
		return EXIT_LAUNCHER;
	if (!t->started && t->ct) {
		vx_error("the sandbox's init failed before the command started "
			 "(%s %d); the command did not run",
			 WIFSIGNALED(res->status) ? "signal" : "exit status",
			 WIFSIGNALED(res->status) ? WTERMSIG(res->status) :
			 WEXITSTATUS(res->status));
		return EXIT_LAUNCHER;
	}
	if (!t->started) {
		vx_error("bubblewrap failed before the command started "
			 "(%s %d); the command did not run",
			 WIFSIGNALED(res->status) ? "signal" : "exit status",
			 WIFSIGNALED(res->status) ? WTERMSIG(res->status) :
			 WEXITSTATUS(res->status));
		bwrap_diagnose_userns();
		return EXIT_LAUNCHER;
	}
	vx_log("stage: child exit: status %d after %.3f ms (%.3f ms after "
	       "the sandbox started)", status, res->elapsed_ms,
	       proc_now_ms() - t->t_started);
	return status;
}

/* A listening socket the init made for the egress proxy. */
static void on_listener(struct init_link *l, int fd, void *ctx)
{
	struct tree *t = ctx;

	(void)l;
	bridge_take_listener(&t->bridge, fd);
}

/*
 * Start bubblewrap before the instantiation, its argument list to come
 * on a socket (its fd BWRAP_FD_ARGS; @t->args_fd is ours): its exec,
 * dynamic loading and start-up run on another processor while vbox-exec
 * instantiates the plan, pins the paths and prepares the walls
 * (bench/README.md).  bubblewrap reads the whole list before it makes
 * anything, so until send_setup() it has built nothing; a launch that
 * fails meanwhile kills it (abort_start()).  The sandbox's init never
 * runs the command without vbox-exec's CH_SETUP either.
 */
static int start_early(struct tree *t, const struct launch_request *req,
		       const char *bwrap, char **err)
{
	int pass[BWRAP_NFDS] = { -1, -1, -1 }, sv[2];
	const char *init = init_path();
	struct proc_spawn sp;
	char **argv = NULL;
	int ret = -1;
	size_t i;
	pid_t pid;

	/* the egress proxy's ports and variables, in bubblewrap's env */
	if (bridge_prepare(&t->bridge, req->plan, err) < 0 ||
	    bridge_env(&t->bridge, req->env, err) < 0)
		return -1;
	pass[BWRAP_FD_INIT] = open(init, O_RDONLY | O_CLOEXEC);
	if (pass[BWRAP_FD_INIT] < 0) {
		*err = xasprintf("cannot open the sandbox's init %s: %s",
				 init, strerror(errno));
		goto out;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		*err = xasprintf("cannot make the argument socket: %s",
				 strerror(errno));
		goto out;
	}
	t->args_fd = sv[0];
	pass[BWRAP_FD_ARGS] = sv[1];
	if (init_link_open(&t->link, err) < 0)
		goto out;
	pass[BWRAP_FD_CHANNEL] = t->link.peer;
	/*
	 * Orphans of the tree (the sandbox's init once bubblewrap is gone)
	 * come to vbox-exec, which reaps them: no zombie outlives it.
	 */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) {
		*err = xasprintf("cannot become a child subreaper: %s",
				 strerror(errno));
		goto out;
	}
	argv = bwrap_argv(bwrap, req);
	sp.path = bwrap;
	sp.argv = argv;
	sp.envp = t->bridge.envp ? t->bridge.envp : req->env->v;
	sp.pass = pass;
	sp.npass = BWRAP_NFDS;
	t->t_spawn = proc_now_ms();
	pid = supervisor_spawn(&t->sv, &sp, err);
	if (pid < 0)
		goto out;
	t->runner = pid;
	/* The runner has its copy; ours would keep the channel open. */
	init_link_handed_over(&t->link);
	pass[BWRAP_FD_CHANNEL] = -1;
	/* The proxy's process, while bubblewrap starts (a failure ends it). */
	if (bridge_start(&t->bridge, &t->sv, req->plan, err) < 0)
		goto out;
	ret = 0;
out:
	for (i = 0; i < BWRAP_NFDS; i++)
		if (pass[i] >= 0 && i != BWRAP_FD_CHANNEL)
			close(pass[i]);
	bwrap_argv_free(argv);
	return ret;
}

/*
 * The launch failed before bubblewrap had its arguments: it is still
 * reading them and has made nothing.  Kill it first, then close the
 * socket (an end of the list must never reach it), then reap it.
 */
static void abort_start(struct tree *t)
{
	int status;

	if (t->runner > 0) {
		kill(t->runner, SIGKILL);
		if (t->args_fd >= 0) {
			close(t->args_fd);
			t->args_fd = -1;
		}
		while (waitpid(t->runner, &status, 0) < 0 && errno == EINTR)
			;
		t->runner = 0;
	}
	if (t->args_fd >= 0) {
		close(t->args_fd);
		t->args_fd = -1;
	}
}

/* The sandbox is decided: hand bubblewrap its list, the init its setup. */
static int send_setup(struct tree *t, const struct launch_request *req,
		      const struct sandbox *sa, char **err)
{
	int rc = bwrap_args_send(sa, t->args_fd, err);

	t->t_args = proc_now_ms();
	close(t->args_fd);
	t->args_fd = -1;
	if (rc < 0)
		return -1;
	/*
	 * The command never runs before its egress proxy serves; bubblewrap
	 * builds the sandbox meanwhile (a proxy that fails ends the tree).
	 */
	if (bridge_ready(&t->bridge, &t->sv, err) < 0) {
		t->ended_by_us = true;
		return -1;
	}
	t->link.on_ready = on_ready;
	t->link.walls_fd = t->walls.fd;
	t->link.on_started = on_started;
	t->link.ctx = t;
	if (t->bridge.active) {
		t->link.listen_ports = t->bridge.ports;
		t->link.nlisten = t->bridge.nports;
		t->link.on_listener = on_listener;
	}
	return init_link_setup(&t->link, req, sa, err);
}

/*
 * --log: vbox-exec's own CPU time, all its threads (the supervisors)
 * and none of the sandbox's processes: what supervision costs in CPU
 * (bench/supervised.sh reads it).
 */
static void log_own_cpu(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return;
	vx_log("vbox-exec cpu: %.3f ms (user %.3f, system %.3f)",
	       (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3,
	       ru.ru_utime.tv_sec * 1e3 + ru.ru_utime.tv_usec / 1e3,
	       ru.ru_stime.tv_sec * 1e3 + ru.ru_stime.tv_usec / 1e3);
}

/* Supervise the started tree to its end; vbox-exec's exit status. */
static int wait_tree(struct tree *t, const struct launch_request *req)
{
	struct proc_result res;
	char *err = NULL;
	int status;

	if (init_link_watch(&t->link, supervisor_loop(&t->sv), &err) < 0) {
		/* The tree is started: end it, then report. */
		tree_kill(t);
		kill(t->runner, SIGKILL);
		vx_error("%s", err);
		free(err);
		err = NULL;
	}
	if (supervisor_run(&t->sv, req->timeout_ms, &res) < 0)
		vx_error("waiting for bubblewrap failed: %s; the tree was "
			 "killed", strerror(errno));
	if (t->sup) {
		const struct unixsock_stats *st = unixsock_stats(t->sup);

		vx_log("socket supervisor: %lu calls answered, %lu refused, "
		       "%lu callers gone", st->handled, st->refused, st->gone);
		unixsock_free(t->sup);
		t->sup = NULL;
	}
	log_own_cpu();
	pathjudge_free(t->judge);
	t->judge = NULL;
	status = outcome(t, &res);
	if (res.timed_out)
		vx_timed_out(req->timeout_ms);
	return status;
}

/* --log: which walls this launch has (doc/launcher.md, "Walls"). */
static void log_walls(const struct walls *w, const struct sandbox *sa)
{
	vx_log("walls: kernel state read-only (%zu mounts added); "
	       "no_new_privs; seccomp %s filter (x86-64, x32, i386)",
	       sa->kstate, w->notify ? "deny and socket" : "deny");
	if (w->landlock_abi > 0)
		vx_log("walls: landlock ABI %d: writes only beneath %zu "
		       "writable regions%s", w->landlock_abi, w->nwritable,
		       w->landlock_abi >= 6 ? "; abstract unix sockets and "
		       "signals scoped to the sandbox" : "");
	else
		vx_log("walls: landlock: not available on this kernel "
		       "(optional; the mounts and seccomp still hold)");
	if (w->notify && w->bind_only)
		vx_log("walls: unix sockets: bind() supervised (abstract "
		       "names refused); pathname sockets unrestricted (net "
		       "open); abstract sockets scoped by landlock");
	else if (w->notify)
		vx_log("walls: unix sockets: supervised (pathname sockets "
		       "%s; abstract sockets %s)", w->pathname_open ?
		       "unrestricted" : "only in writable regions",
		       w->refuse_abstract ? "refused" :
		       "of the sandbox's own network namespace");
	else if (w->no_unix)
		vx_log("walls: unix sockets: this kernel has no seccomp user "
		       "notification: socket(AF_UNIX) is refused, "
		       "socketpair() works");
	else
		vx_log("walls: unix sockets: pathname sockets unrestricted "
		       "(net open); abstract sockets scoped by landlock");
}

/*
 * A row that grants less than it says is never silent; every row whose
 * effect depended on the host is listed under --log and --dry-run (on
 * stderr: the dry-run line stays runnable).
 */
static void say_host_notes(const struct launch_request *req,
			   const struct sandbox *sa)
{
	size_t i;

	for (i = 0; i < sa->warnings.n; i++)
		vx_error("warning: %s", sa->warnings.v[i]);
	for (i = 0; (vx_log_enabled || req->dry_run) && i < sa->host_notes.n;
	     i++)
		if (!strv_has(&sa->warnings, sa->host_notes.v[i]))
			vx_error("host: %s", sa->host_notes.v[i]);
}

/* Build the sandbox, make its placeholders, run it. */
static int launch_sandbox(struct tree *t, const struct launch_request *req,
			  const char *bwrap)
{
	struct phreg reg;
	struct sandbox sa;
	struct pin *pins = NULL;
	struct strv followed = { 0 };
	size_t npins = 0;
	char *err = NULL, *tty;
	bool knows, waited = false;
	double t0;
	size_t i;
	int status = EXIT_LAUNCHER;

	knows = bwrap_knows(bwrap, "--disable-userns");
	vx_log("bubblewrap: %s (%s --disable-userns)", bwrap,
	       knows ? "knows" : "does not know");
	/*
	 * Placeholders are shared with concurrent launches (phreg.h): the
	 * registry stays locked from the instantiation (which decides
	 * what exists) until this launch holds what it mounts over.
	 */
	memset(&reg, 0, sizeof(reg));
	memset(&sa, 0, sizeof(sa));
	reg.dirfd = reg.lockfd = reg.watch_fd = -1;
	if (!req->dry_run && start_early(t, req, bwrap, &err) < 0) {
		vx_error("%s", err);
		free(err);
		goto out;
	}
	if (!req->dry_run && phreg_begin(&reg, &err) < 0) {
		vx_error("%s", err);
		free(err);
		goto out;
	}
	t0 = proc_now_ms();
	if (sandbox_build(req->plan, req->plan_path, req->workdir, knows, &sa,
			  &err) < 0) {
		vx_error("%s", err);
		free(err);
		goto out;
	}
	vx_log("stage: instantiation took %.3f ms (%zu launch rows, %zu "
	       "placeholders, %zu mounts, %zu hardening flags added)",
	       proc_now_ms() - t0, sa.nlaunch, sa.nplaceholders,
	       sa.lx.n, sa.added);
	if (sa.dropped_disable_userns)
		vx_log("note: %s does not know --disable-userns: nested user "
		       "namespaces stay possible (capabilities are still "
		       "dropped)", bwrap);
	if (sa.guarded_plan)
		vx_log("the plan file is writable under the policy: bound "
		       "read-only onto itself");
	if (req->plan->nreserved)
		vx_log("note: the plan has %zu reserved entries; none is "
		       "needed without an egress proxy", req->plan->nreserved);

	say_host_notes(req, &sa);
	if (req->dry_run) {
		status = bwrap_print_dry_run(req, bwrap, &sa);
		goto out;
	}
	/* Missing writable roots the table lets be created (sandbox.h). */
	creates_make(&sa);
	/* Granted host paths pinned (pin.h): no symlink, same inode. */
	if (pin_check(req->plan, &sa.lx, &sa.init_mounts, &pins, &npins,
		      &followed, &err) < 0) {
		vx_error("%s", err);
		free(err);
		goto out;
	}
	for (i = 0; i < followed.n; i++)
		vx_log("followed: %s", followed.v[i]);
	/* Rows that land supervised: the supervisor judges path calls. */
	if (plan_supervised_paths(req->plan)) {
		t->judge = pathjudge_new(req->plan, &err);
		if (!t->judge) {
			vx_error("%s", err);
			free(err);
			goto out;
		}
	}
	if (walls_prepare(&sa.lx, req->plan->default_net != EFFECT_DENY,
			  t->judge != NULL, pins, npins, &t->walls,
			  &err) < 0) {
		vx_error("%s", err);
		free(err);
		goto out;
	}
	vx_log("pinned %zu granted host paths (no symbolic link; device and "
	       "inode checked again in the sandbox)", npins);
	log_walls(&t->walls, &sa);
	if (placeholders_create(&sa, &err) < 0) {
		vx_error("%s", err);
		free(err);
		goto out;
	}
	if (phreg_hold(&reg, sa.placeholders, sa.created, &sa.lx, &err) < 0) {
		vx_error("%s", err);
		free(err);
		placeholders_remove(&sa);
		goto out;
	}
	vx_log("placeholders: %zu made, %zu held in all (registry %s)",
	       sa.created, reg.nheld, reg.dir);
	/*
	 * Last: everything above read the whole mount list.  bubblewrap
	 * gives its /dev a console when fd 1 is a terminal.
	 */
	tty = isatty(1) ? ttyname(1) : NULL;
	tty = tty ? xstrdup(tty) : NULL;
	sandbox_split_init_mounts(&sa, tty);
	free(tty);
	if (sa.init_mounts.n)
		vx_log("the sandbox's init makes %zu mounts (bubblewrap %zu)",
		       sa.init_mounts.n, sa.lx.n);
	waited = true;
	if (send_setup(t, req, &sa, &err) < 0) {
		vx_error("%s", err);
		free(err);
		/* bubblewrap may have its list: end the whole tree. */
		tree_kill(t);
		kill(t->runner, SIGKILL);
		(void)wait_tree(t, req);
	} else {
		status = wait_tree(t, req);
	}
	/* Ours are removed by phreg_end() once nobody holds them. */
	sa.created = 0;
out:
	/* Not yet handed its list, bubblewrap is killed before it has any. */
	if (!waited)
		abort_start(t);
	free(pins);
	strv_release(&followed);
	phreg_end(&reg);
	walls_release(&t->walls);
	sandbox_release(&sa);
	return status;
}

/*
 * Container mode (doc/launcher.md, "Container mode"): no bubblewrap and
 * no namespace.  The same instantiated sandbox is read as a Landlock
 * ruleset (container_rules.h); vbox-init, started directly, puts the
 * walls in place in its own process and execs the command there; the
 * egress proxy listens on the host's 127.0.0.1, which the socket
 * supervisor alone lets the child reach.
 */
/*
 * Rows that land supervised are judged by the supervisor through the
 * sandbox's mount namespace; container mode has none and does not hold
 * them yet: refused, naming the first (never skipped).
 */
static bool supervised_row(const struct plan *plan, char **err)
{
	size_t i;

	for (i = 0; i < plan->nfs; i++) {
		const struct plan_row *r = &plan->fs[i];

		if (r->landing != LANDING_SUPERVISED)
			continue;
		*err = xasprintf("%s: row %u '%s: %s' lands supervised, "
				 "which container mode does not hold (the "
				 "supervisor judges path calls in namespace "
				 "mode only): run it with --mode=ns",
				 r->source, r->index,
				 effect_name((enum effect)r->effect),
				 r->target);
		return true;
	}
	return false;
}

static int launch_container(struct tree *t, const struct launch_request *req)
{
	static char init_name[] = "vbox-init", channel[] = "--channel=3",
		    dashes[] = "--";
	struct container c;
	struct sandbox sa;
	struct proc_spawn sp;
	char **argv = NULL, *err = NULL;
	int lfds[2] = { -1, -1 }, pass[1], status = EXIT_LAUNCHER;
	size_t i, n;
	pid_t pid;

	memset(&c, 0, sizeof(c));
	memset(&sa, 0, sizeof(sa));
	t->ct = &c;
	if (supervised_row(req->plan, &err))
		goto fail;
	if (container_probe(&c, req->accept_unscoped_signals, &err) < 0)
		goto fail;
	if (sandbox_build(req->plan, req->plan_path, req->workdir, false, &sa,
			  &err) < 0)
		goto fail;
	say_host_notes(req, &sa);
	/* Missing writable roots the table lets be created, as ns mode. */
	if (!req->dry_run)
		creates_make(&sa);
	if (container_prepare(&c, req, &sa, &err) < 0)
		goto fail;
	if (req->dry_run) {
		status = container_dry_run(&c, req);
		goto out;
	}
	if (t->auto_cause)
		vx_error("--mode=auto: %s; running in container mode "
			 "(Landlock, seccomp and the socket supervisor, no "
			 "namespaces), which holds this plan as written",
			 t->auto_cause);
	container_log(&c, req, false);
	if (walls_prepare_container(&c.rules, !c.net_deny, c.abi, c.no_getfd,
				    &t->walls, &err) < 0)
		goto fail;
	if (bridge_prepare(&t->bridge, req->plan, &err) < 0 ||
	    bridge_listen_host(&t->bridge, lfds, &err) < 0 ||
	    bridge_env(&t->bridge, req->env, &err) < 0)
		goto fail;
	if (t->bridge.active) {
		c.proxy_ports[0] = t->bridge.ports[0];
		c.proxy_ports[1] = t->bridge.ports[1];
	}
	/*
	 * vbox-exec holds the supervisor and the proxy's sockets: the child
	 * (same uid, no namespace) may not read its memory.  Orphans of the
	 * tree come to it.
	 */
	if (prctl(PR_SET_DUMPABLE, 0) < 0 ||
	    prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) {
		err = xasprintf("cannot make vbox-exec undumpable and a "
				"subreaper: %s", strerror(errno));
		goto fail;
	}
	if (init_link_open(&t->link, &err) < 0)
		goto fail;
	for (n = 0; req->command[n]; n++)
		;
	argv = xcalloc(n + 4, sizeof(*argv));
	argv[0] = init_name;
	argv[1] = channel;
	argv[2] = dashes;
	for (i = 0; i < n; i++)
		argv[3 + i] = req->command[i];
	/* The runner starts in the working directory: it is the child. */
	if (chdir(req->workdir) < 0) {
		err = xasprintf("cannot enter %s: %s", req->workdir,
				strerror(errno));
		goto fail;
	}
	pass[0] = t->link.peer;
	sp.path = init_path();
	sp.argv = argv;
	sp.envp = t->bridge.envp ? t->bridge.envp : req->env->v;
	sp.pass = pass;
	sp.npass = 1;
	t->t_spawn = t->t_args = proc_now_ms();
	pid = supervisor_spawn(&t->sv, &sp, &err);
	if (pid < 0)
		goto fail;
	t->runner = pid;
	init_link_handed_over(&t->link);
	if (bridge_start(&t->bridge, &t->sv, req->plan, &err) < 0 ||
	    bridge_ready(&t->bridge, &t->sv, &err) < 0) {
		t->ended_by_us = true;
		goto fail_started;
	}
	for (i = 0; i < 2; i++) {
		if (lfds[i] >= 0)
			bridge_take_listener(&t->bridge, lfds[i]);
		lfds[i] = -1;
	}
	t->link.on_ready = on_ready;
	t->link.walls_fd = t->walls.fd;
	t->link.on_started = on_started;
	t->link.ctx = t;
	t->link.hand_listener = c.no_getfd;
	if (init_link_setup(&t->link, req, &sa, &err) < 0)
		goto fail_started;
	status = wait_tree(t, req);
	goto out;

fail_started:
	vx_error("%s", err);
	free(err);
	tree_kill(t);
	kill(t->runner, SIGKILL);
	(void)wait_tree(t, req);
	status = EXIT_LAUNCHER;
	goto out;
fail:
	if (t->auto_cause)
		vx_error("--mode=auto: namespace mode cannot start here: %s",
			 t->auto_cause);
	vx_error("%s", err);
	free(err);
out:
	for (i = 0; i < 2; i++)
		if (lfds[i] >= 0)
			close(lfds[i]);
	free(argv);
	walls_release(&t->walls);
	sandbox_release(&sa);
	container_release(&c);
	t->ct = NULL;
	return status;
}

/*
 * --mode=auto: namespace mode where it can start; container mode only
 * where it cannot and the plan loses nothing there (no row held
 * narrower, signals scoped), said on stderr.  Never a silent fallback.
 */
static int launch_auto(struct tree *t, const struct launch_request *req,
		       bool *use_ns)
{
	struct launch_request cr = *req;
	char *cause = NULL;
	int rc;

	*use_ns = true;
	if (req->dry_run || ns_probe(&cause) == 0)
		return 0;
	*use_ns = false;
	/* Container mode loses nothing here or does not run (container.h). */
	cr.accept_narrower = false;
	cr.accept_unscoped_signals = false;
	t->auto_cause = cause;
	rc = launch_container(t, &cr);
	t->auto_cause = NULL;
	free(cause);
	return rc;
}

int launch_run(const struct launch_request *req)
{
	struct tree *t = xzalloc(sizeof(*t));
	char *bwrap = NULL, *err = NULL;
	int status = EXIT_LAUNCHER;

	t->init_pidfd = t->cmd_pidfd = -1;
	t->args_fd = -1;
	t->link.sock = t->link.peer = -1;
	t->walls.fd = -1;
	t->bridge.ctl = t->bridge.helper_pidfd = -1;
	/* Before anything exists on the host that must be cleaned up. */
	if (!req->dry_run && supervisor_init(&t->sv, &tree_ops, t, &err) < 0)
		goto out_err;
	if (req->mode == LAUNCH_CONTAINER) {
		status = launch_container(t, req);
		goto out;
	}
	if (req->mode == LAUNCH_AUTO) {
		bool use_ns;

		status = launch_auto(t, req, &use_ns);
		if (!use_ns)
			goto out;
	}
	bwrap = bwrap_find(req->bwrap, &err);
	if (!bwrap)
		goto out_err;
	if (!req->dry_run && bwrap_check_userns(bwrap, &err) < 0)
		goto out_err;
	status = launch_sandbox(t, req, bwrap);
	goto out;

out_err:
	vx_error("%s", err);
	free(err);
out:
	init_link_release(&t->link);
	bridge_release(&t->bridge);
	if (!req->dry_run)
		supervisor_release(&t->sv);
	free(bwrap);
	free(t);
	return status;
}
