/* SPDX-License-Identifier: MIT */
/*
 * tree.h - the sandboxed tree as the supervisor sees it (tree.c), shared
 * by launch.c, which makes it.
 */
#ifndef VBOX_LINUX_TREE_H
#define VBOX_LINUX_TREE_H

#include <stdbool.h>
#include <sys/types.h>

#include "bridge.h"
#include "container.h"
#include "init_link.h"
#include "pathjudge.h"
#include "supervise.h"
#include "supervisor/sockets/unixsock.h"
#include "walls/walls.h"

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
 * @args_fd: our end of bubblewrap's argument socket (-1 once closed)
 * @args_early: bubblewrap has the early argument list (runner.c)
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
	bool args_early;
	struct walls walls;
	struct unixsock *sup;
	struct pathjudge *judge;
	struct bridge bridge;
	struct container *ct;
	const char *auto_cause;
};

/* The supervisor's operations on the tree (forward, terminate, kill,
 * settle); their context is the struct tree. */
extern const struct supervisor_ops tree_ops;

/* init_link callbacks (context: the struct tree): CH_READY names the
 * sandbox's init, CH_STARTED the command (its listener is taken then). */
void tree_on_ready(struct init_link *l, void *ctx);
void tree_on_started(struct init_link *l, void *ctx);

/* SIGKILL to the whole tree (context: the struct tree). */
void tree_kill(void *ctx);

/*
 * tree_end_stray - the bubblewrap @runner holds an argument list that
 * is not to be run, and its init has been told so (CH_ABANDON, runner.c):
 * the init exits at that message, bubblewrap after it.  Reap bubblewrap,
 * waiting at most @wait_ms; past that, SIGKILL it, then every child of
 * vbox-exec in another PID namespace (the init of a bubblewrap killed
 * before it gave that child its parent-death signal is left running, an
 * orphan of vbox-exec the subreaper), and reap them.
 */
void tree_end_stray(pid_t runner, int wait_ms);

#endif /* VBOX_LINUX_TREE_H */
