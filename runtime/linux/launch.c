/* SPDX-License-Identifier: MIT */
/*
 * launch.c - run the command under bubblewrap, or in container mode
 * without it (launch.h; doc/launcher.md, "How a launch works",
 * "Container mode").
 *
 * Owned here: the order of a launch (find bubblewrap, start it, build
 * the sandbox, make the placeholders, hand bubblewrap its list and the
 * init its setup, supervise, map the outcome); bubblewrap as the runner
 * (its start, the early list, a start again, its end when a launch
 * fails) is runner.c's.  No CH_STARTED from the init
 * means the command never started: whatever bubblewrap's status,
 * vbox-exec exits 125.  The tree as the supervisor sees it (the init and
 * the command learnt from the channel, signals, the timeout's SIGTERM,
 * SIGKILL and the reaping at the end) is tree.c's.
 *
 * Container mode (launch_container(), --mode=container|auto) has no PID
 * namespace: vbox-init is the runner and becomes the command, and the
 * tree is every descendant of vbox-exec but the egress proxy; its
 * decisions before the start are container.c's.
 */
#include <vbox.h>

#include <errno.h>
#include <sys/epoll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
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
#include "landing.h"
#include "pathjudge.h"
#include "launch.h"
#include "mounts.h"
#include "plan.h"
#include "process.h"
#include "phreg.h"
#include "pin.h"
#include "runner.h"
#include "sandbox.h"
#include "strv.h"
#include "supervise.h"
#include "tree.h"
#include "supervisor/sockets/unixsock.h"
#include "walls/walls.h"
#include "wire.h"

/* The terminal on @fd (a copy: caller frees), or NULL. */
static char *terminal_of(int fd)
{
	const char *name = isatty(fd) ? ttyname(fd) : NULL;

	return name ? xstrdup(name) : NULL;
}

int launch_platform(void)
{
	return TARGET_LINUX;
}

/* ------------------------------------------------------------------ */
/* the launch */

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
	if (w->paths)
		vx_log("walls: supervised paths: %s", w->paths_writes ?
		       "only the calls that can write are handed over (every "
		       "supervised row is ro: no read-only open, no exec)" :
		       "every path call is handed over");
}

/* launch_stop's @stop for a launch: a signal that ends it, or 0. */
static int stop_signal(void *ctx)
{
	struct tree *t = ctx;

	return supervisor_stop_signal(&t->sv);
}

/*
 * The status of a launch a step of which failed with @err: ended by a
 * signal (said once, 128 + it), or by --timeout passing while it waited
 * for the placeholder registry (124), or the launcher's 125.
 */
static int failed_status(struct tree *t, const struct launch_request *req,
			 const char *err, bool waited_out)
{
	int sig = req->dry_run ? 0 : supervisor_stop_signal(&t->sv);

	if (sig) {
		vx_error("%s: the launch ended before the command ran, and "
			 "what it made on the host is removed", strsignal(sig));
		return 128 + sig;
	}
	vx_error("%s", err);
	return waited_out ? EXIT_TIMEOUT : EXIT_LAUNCHER;
}

/* Build the sandbox, make its placeholders, run it. */
static int launch_sandbox(struct tree *t, const struct launch_request *req,
			  const char *bwrap)
{
	struct launch_stop stop = { req->dry_run ? NULL : stop_signal, t };
	struct phreg_wait wait = {
		.deadline_ms = req->dry_run ? 0 :
			       supervisor_deadline(&t->sv, req->timeout_ms),
		.stop = req->dry_run ? NULL : stop_signal,
		.ctx = t,
	};
	struct phreg reg;
	struct sandbox sa, frame;
	struct wbuf early = { 0 };
	struct pin *pins = NULL;
	struct strv followed = { 0 };
	size_t npins = 0;
	char *err = NULL, *tty = NULL, *tty1 = NULL;
	bool knows, waited = false;
	double t0;
	size_t i;
	int status = EXIT_LAUNCHER, rc;

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
	memset(&frame, 0, sizeof(frame));
	reg.dirfd = reg.lockfd = reg.watch_fd = -1;
	if (!req->dry_run && runner_start(t, req, bwrap, &err) < 0) {
		vx_error("%s", err);
		free(err);
		goto out;
	}
	/*
	 * bubblewrap gives its /dev a console when fd 1 is a terminal; the
	 * init's --dev takes the first of fds 1, 0, 2 that is one (`cmd >
	 * out` keeps the terminal on fds 0 and 2), so that the init can hand
	 * it to the command read-only mounted (runtime/init/init.c).
	 */
	tty1 = terminal_of(1);
	tty = tty1 ? xstrdup(tty1) : terminal_of(0);
	if (!tty)
		tty = terminal_of(2);
	if (!req->dry_run)
		runner_send_early(t, req, knows, tty, tty1, &frame, &early);
	if (!req->dry_run && (rc = phreg_begin(&reg, &wait, &err)) < 0) {
		status = failed_status(t, req, err, rc == PHREG_INTERRUPTED);
		free(err);
		goto out;
	}
	t0 = proc_now_ms();
	if (sandbox_build(req->plan, req->plan_path, req->workdir, knows,
			  &stop, &sa, &err) < 0) {
		status = failed_status(t, req, err, false);
		free(err);
		goto out;
	}
	sandbox_private_tmp_adopt(&sa, &frame);
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

	sandbox_say_notes(&sa, vx_log_enabled || req->dry_run);
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
			  !t->judge ? WALLS_PATHS_NONE :
			  plan_supervised_ro_only(req->plan) ?
			  WALLS_PATHS_WRITES : WALLS_PATHS_ALL,
			  pins, npins, &t->walls,
			  &err) < 0) {
		vx_error("%s", err);
		free(err);
		goto out;
	}
	vx_log("pinned %zu granted host paths (no symbolic link; device and "
	       "inode checked again in the sandbox)", npins);
	log_walls(&t->walls, &sa);
	if (placeholders_create(&sa, &stop, &err) < 0) {
		status = failed_status(t, req, err, false);
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
	/* Last: everything above read the whole mount list. */
	sandbox_split_init_mounts(&sa, tty, tty1);
	if (sa.init_mounts.n)
		vx_log("the sandbox's init makes %zu mounts (bubblewrap %zu)",
		       sa.init_mounts.n, sa.lx.n);
	waited = true;
	rc = runner_send_setup(t, req, &sa, &early, bwrap, &err);
	if (rc < 0) {
		vx_error("%s", err);
		free(err);
		/*
		 * bubblewrap may have its list: end the whole tree (an init
		 * without its setup is told to end, not left waiting).  A
		 * bubblewrap that could not be started again is none: no
		 * kill(0), which would reach vbox-exec's process group.
		 */
		init_link_abandon(&t->link);
		if (t->runner > 0) {
			tree_kill(t);
			kill(t->runner, SIGKILL);
			(void)wait_tree(t, req);
		}
	} else {
		status = wait_tree(t, req);
	}
	/* Ours are removed by phreg_end() once nobody holds them. */
	sa.created = 0;
out:
	/* Not yet given the setup, bubblewrap and its init are killed. */
	if (!waited)
		runner_abort(t);
	free(pins);
	strv_release(&followed);
	phreg_end(&reg);
	walls_release(&t->walls);
	sandbox_release(&sa);
	sandbox_release(&frame);
	wbuf_release(&early);
	free(tty);
	free(tty1);
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
static int launch_container(struct tree *t, const struct launch_request *req)
{
	static char init_name[] = "vbox-init", channel[] = "--channel=3",
		    dashes[] = "--";
	struct container c;
	struct sandbox sa;
	struct proc_spawn sp;
	struct env_list env = { 0 };
	const struct env_list *child_env = req->env;
	char **argv = NULL, *err = NULL;
	int lfds[2] = { -1, -1 }, pass[1], status = EXIT_LAUNCHER;
	size_t i, n;
	pid_t pid;
	struct launch_stop stop = { req->dry_run ? NULL : stop_signal, t };

	memset(&c, 0, sizeof(c));
	memset(&sa, 0, sizeof(sa));
	t->ct = &c;
	if (container_probe(&c, req->accept_unscoped_signals, &err) < 0)
		goto fail;
	if (sandbox_build(req->plan, req->plan_path, req->workdir, false,
			  &stop, &sa, &err) < 0)
		goto fail;
	sandbox_say_notes(&sa, vx_log_enabled || req->dry_run);
	/* The private /tmp: a directory of the launch's own in the host's
	 * /tmp, the sandbox's $TMPDIR (container_rules.h). */
	sandbox_private_tmp_in(&sa, CONTAINER_PRIVATE_TMP);
	/* Missing writable roots the table lets be created, as ns mode. */
	if (!req->dry_run)
		creates_make(&sa);
	if (!req->dry_run && sa.private_tmp && !sa.private_tmp_dir) {
		err = xstrdup("container mode: the private /tmp's directory "
			      "could not be made (said above)");
		goto fail;
	}
	if (container_prepare(&c, req, &sa, plan_supervised_paths(req->plan) ||
			      sa.private_tmp, &err) < 0)
		goto fail;
	/* Rows that land supervised, holes, denies: judged per path call. */
	if (c.supervised) {
		t->judge = pathjudge_new(req->plan, &err);
		if (!t->judge)
			goto fail;
		pathjudge_hold_regions(t->judge, &c.rules);
	}
	if (sa.private_tmp) {
		env_copy_with(req->env, "TMPDIR", sa.private_tmp_dir ?
			      sa.private_tmp_dir : CONTAINER_PRIVATE_TMP, &env);
		child_env = &env;
		vx_log("container mode: the private /tmp is '%s', the "
		       "sandbox's $TMPDIR; the host's /tmp is neither read nor "
		       "written", sa.private_tmp_dir ? sa.private_tmp_dir :
		       CONTAINER_PRIVATE_TMP);
	}
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
				    c.supervised, &t->walls, &err) < 0)
		goto fail;
	if (bridge_prepare(&t->bridge, req->plan, &err) < 0 ||
	    bridge_listen_host(&t->bridge, lfds, &err) < 0 ||
	    bridge_env(&t->bridge, child_env, &err) < 0)
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
	sp.envp = t->bridge.envp ? t->bridge.envp : child_env->v;
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
	t->link.on_ready = tree_on_ready;
	t->link.walls_fd = t->walls.fd;
	t->link.on_started = tree_on_started;
	t->link.ctx = t;
	t->link.hand_listener = c.no_getfd;
	/* no PID namespace: the init guards the tree (init/guard.h) */
	t->link.guard = true;
	t->link.guard_flags = c.abi >= 6 ? CH_GUARD_SCOPED : 0;
	vx_log("container mode: the init guards the tree: a subreaper that "
	       "ends it when the command ends or vbox-exec dies, %s",
	       c.abi >= 6 ? "in a domain that scopes signals (the command "
	       "can neither signal nor trace it)" : "not protected from the "
	       "command below Landlock ABI 6 (signals not scoped)");
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
	status = failed_status(t, req, err, false);
	free(err);
out:
	for (i = 0; i < 2; i++)
		if (lfds[i] >= 0)
			close(lfds[i]);
	free(argv);
	walls_release(&t->walls);
	/* (freed by wait_tree() once started; never started: here) */
	pathjudge_free(t->judge);
	t->judge = NULL;
	sandbox_release(&sa);
	container_release(&c);
	env_list_free(&env);
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
