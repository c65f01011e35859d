/* SPDX-License-Identifier: MIT */
/*
 * runner.c - bubblewrap, the runner of a launch in namespace mode
 * (runner.h; doc/launcher.md, "How a launch works", step 7, and "The
 * early argument list"): its start before the sandbox is decided, the
 * early list, the real list or a start again, the init's setup, and its
 * end when the launch fails before the command runs.
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bridge.h"
#include "bwrap.h"
#include "env.h"
#include "init_link.h"
#include "launch.h"
#include "pin.h"
#include "process.h"
#include "runner.h"
#include "sandbox.h"
#include "strv.h"
#include "supervise.h"
#include "tree.h"
#include "wire.h"

/* A listening socket the init made for the egress proxy. */
static void on_listener(struct init_link *l, int fd, void *ctx)
{
	struct tree *t = ctx;

	(void)l;
	bridge_take_listener(&t->bridge, fd);
}

/*
 * Start bubblewrap, its argument list to come on a socket (its fd
 * BWRAP_FD_ARGS; @t->args_fd is ours), with a new init channel.
 * bubblewrap reads the whole list before it makes anything; the
 * sandbox's init never runs the command without vbox-exec's CH_SETUP.
 */
static int spawn_runner(struct tree *t, const struct launch_request *req,
			const char *bwrap, char **err)
{
	int pass[BWRAP_NFDS] = { -1, -1, -1 }, sv[2];
	const char *init = init_path();
	struct proc_spawn sp;
	char **argv = NULL;
	int ret = -1;
	size_t i;
	pid_t pid;

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
	ret = 0;
out:
	for (i = 0; i < BWRAP_NFDS; i++)
		if (pass[i] >= 0 && i != BWRAP_FD_CHANNEL)
			close(pass[i]);
	bwrap_argv_free(argv);
	return ret;
}

/*
 * Start bubblewrap before the instantiation: its exec, dynamic loading
 * and start-up run on another processor while vbox-exec builds the
 * sandbox (bench/README.md), and from the early argument list on
 * (runner_send_early()) its namespaces and root too.  A launch that fails
 * meanwhile kills it (runner_abort()).
 */
int runner_start(struct tree *t, const struct launch_request *req,
		 const char *bwrap, char **err)
{
	/* the egress proxy's ports and variables, in bubblewrap's env */
	if (bridge_prepare(&t->bridge, req->plan, err) < 0 ||
	    bridge_env(&t->bridge, req->env, err) < 0)
		return -1;
	/*
	 * Orphans of the tree (the sandbox's init once bubblewrap is gone)
	 * come to vbox-exec, which reaps them: no zombie outlives it.
	 */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) {
		*err = xasprintf("cannot become a child subreaper: %s",
				 strerror(errno));
		return -1;
	}
	if (spawn_runner(t, req, bwrap, err) < 0)
		return -1;
	/* The proxy's process, while bubblewrap starts (a failure ends it). */
	return bridge_start(&t->bridge, &t->sv, req->plan, err);
}

/*
 * How long a bubblewrap given the early list, and its init told to end,
 * may take to end before they are killed (tree_end_stray()): they take a
 * few milliseconds, bubblewrap's own start.
 */
#define STRAY_WAIT_MS 500

/*
 * The launch failed before the command could run.  bubblewrap still
 * reading its list is killed (SIGKILL) before the socket closes, so no
 * end of a list ever reaches it, and reaped.  One that has the early list
 * may have built its part of the sandbox and started the init, which
 * waits for its setup: the init is told to end instead (CH_ABANDON), and
 * both are waited for (tree_end_stray()), so that nothing of the launch
 * outlives vbox-exec; a SIGKILL alone could leave that init running
 * (bubblewrap gives it its parent-death signal late in its start).
 */
void runner_abort(struct tree *t)
{
	int status;

	if (t->runner > 0 && t->args_early) {
		/* It has a list: its init, told, ends; bubblewrap with it. */
		init_link_abandon(&t->link);
		tree_end_stray(t->runner, STRAY_WAIT_MS);
		t->runner = 0;
	} else if (t->runner > 0) {
		/* Killed first: an end of the list never reaches it. */
		kill(t->runner, SIGKILL);
		while (waitpid(t->runner, &status, 0) < 0 && errno == EINTR)
			;
		t->runner = 0;
	}
	if (t->args_fd >= 0) {
		close(t->args_fd);
		t->args_fd = -1;
	}
}

/*
 * The early argument list (doc/launcher.md, "The early argument list").
 * bubblewrap's part of the sandbox is its flags and the mounts before
 * the tail the init makes; for most tables that is the root and nothing
 * a launch row decides.  So before the rows are looked at, the sandbox
 * the table has without its launch rows (sandbox_build_frame()) is
 * pinned and split like the real one, and bubblewrap gets that part at
 * once: it builds its namespaces and root while vbox-exec builds the
 * sandbox.  The list sent is kept in @sent; runner_send_setup() renders
 * the real sandbox's part and compares the bytes: when they differ (a
 * row mounts what only bubblewrap can), bubblewrap and its init are
 * ended and bubblewrap is started again with the real list.  Nothing is
 * sent where the frame depends on what the launch makes on the host
 * later (a writable root to create, a placeholder).  The frame's private
 * /tmp is made now and handed to the real sandbox (@frame is kept for
 * that).
 */
void runner_send_early(struct tree *t, const struct launch_request *req,
		       bool knows, const char *tty, const char *tty1,
		       struct sandbox *frame, struct wbuf *sent)
{
	struct pin *pins = NULL;
	struct strv followed = { 0 };
	size_t npins = 0;
	char *err = NULL;
	const char *why = NULL;

	if (sandbox_build_frame(req->plan, req->plan_path, req->workdir,
				knows, frame, &err) < 0) {
		vx_log("bubblewrap's list is not sent early: %s", err);
		free(err);
		return;
	}
	if (frame->ncreates)
		why = "a writable root is created first";
	else if (frame->nplaceholders)
		why = "a placeholder is made first";
	if (!why && frame->private_tmp) {
		sandbox_private_tmp_make(frame);
		if (!frame->private_tmp_dir)
			why = "no private /tmp";
	}
	if (!why && pin_check(req->plan, &frame->lx, &frame->init_mounts,
			      &pins, &npins, &followed, &err) < 0) {
		vx_log("bubblewrap's list is not sent early: %s", err);
		free(err);
		goto out;
	}
	if (why) {
		vx_log("bubblewrap's list is not sent early: %s", why);
		goto out;
	}
	sandbox_split_init_mounts(frame, tty, tty1);
	bwrap_args_render(frame, sent);
	t->t_args = proc_now_ms();
	if (bwrap_args_write(t->args_fd, sent, &err) < 0) {
		/* bubblewrap has part of a list: it is started again. */
		vx_log("%s", err);
		free(err);
		sent->len = 0;
	}
	close(t->args_fd);
	t->args_fd = -1;
	t->args_early = true;
	vx_log("bubblewrap's early list sent (the table without its launch "
	       "rows, %zu mounts in bubblewrap)", frame->lx.n);
out:
	free(pins);
	strv_release(&followed);
}

/*
 * The early list was not this sandbox's: bubblewrap, and the init it may
 * have started, are ended, and bubblewrap is started again with a new
 * init channel.
 */
static int restart_runner(struct tree *t, const struct launch_request *req,
			  const char *bwrap, char **err)
{
	runner_abort(t);
	supervisor_forget_runner(&t->sv);
	init_link_release(&t->link);
	t->args_early = false;
	return spawn_runner(t, req, bwrap, err);
}

/*
 * The sandbox is decided: hand bubblewrap its list (unless the early one,
 * @early, was this one: runner_send_early()), the init its setup.  0; 1 when
 * bubblewrap, given the early list, has ended already (its status says
 * why); -1 with *@err.
 */
int runner_send_setup(struct tree *t, const struct launch_request *req,
		      const struct sandbox *sa, const struct wbuf *early,
		      const char *bwrap, char **err)
{
	struct wbuf real = { 0 };
	int rc = 0;

	bwrap_args_render(sa, &real);
	if (t->args_early) {
		if (early->len == real.len &&
		    memcmp(early->p, real.p, real.len) == 0) {
			vx_log("bubblewrap's list: the early one (sent %.3f ms "
			       "after bubblewrap's start)",
			       t->t_args - t->t_spawn);
			wbuf_release(&real);
			goto setup;
		}
		vx_log("bubblewrap's early list is not this sandbox's (%s): "
		       "bubblewrap is started again", early->len ?
		       "a launch row mounts what only bubblewrap can" :
		       "it did not get all of it");
		if (restart_runner(t, req, bwrap, err) < 0) {
			wbuf_release(&real);
			return -1;
		}
	}
	rc = bwrap_args_write(t->args_fd, &real, err);
	wbuf_release(&real);
	t->t_args = proc_now_ms();
	close(t->args_fd);
	t->args_fd = -1;
	if (rc < 0)
		return -1;
setup:
	/*
	 * The command never runs before its egress proxy serves; bubblewrap
	 * builds the sandbox meanwhile (a proxy that fails ends the tree).
	 */
	if (bridge_ready(&t->bridge, &t->sv, err) < 0) {
		t->ended_by_us = true;
		return -1;
	}
	t->link.on_ready = tree_on_ready;
	t->link.walls_fd = t->walls.fd;
	t->link.on_started = tree_on_started;
	t->link.ctx = t;
	if (t->bridge.active) {
		t->link.listen_ports = t->bridge.ports;
		t->link.nlisten = t->bridge.nports;
		t->link.on_listener = on_listener;
	}
	if (init_link_setup(&t->link, req, sa, err) == 0)
		return 0;
	/*
	 * Given the early list, bubblewrap may have failed and ended (the
	 * init's end of the channel with it) before the setup: its own
	 * message and status say why (wait_tree()), not the channel.
	 */
	if (t->args_early && (errno == EPIPE || errno == ECONNRESET)) {
		free(*err);
		*err = NULL;
		return 1;
	}
	return -1;
}
