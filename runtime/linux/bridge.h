/* SPDX-License-Identifier: MIT */
/*
 * bridge.h - the egress proxy bridged into the sandbox's network
 * namespace (doc/proxy.md "What the child sees (Linux)").
 *
 * The sandbox keeps its own network namespace.  Its init makes the
 * listening sockets there (127.0.0.1:PORT and [::1]:PORT) and hands them
 * over the init channel; vbox-exec passes them on to the proxy's own
 * process, vbox-proxy (runtime/proxy/vbox_proxy.c, pconfig.h), which
 * accepts on them from outside and dials from the host's namespace: one
 * relay in user space per connection.  Loopback-class rows with a port
 * are also forwarded as plain TCP at their own port number.
 */
#ifndef VBOX_BRIDGE_H
#define VBOX_BRIDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sys/types.h>

#include "judge.h"
#include "loop.h"
#include "proxy.h"

struct plan;
struct env_list;
struct supervisor;

/* Ports the init can listen on: CH_MAX_FDS sockets, two per port. */
#define BRIDGE_MAX_PORTS 8

/* How long vbox-proxy may take to start serving. */
#define BRIDGE_READY_MS 10000

/* Distinct denial notices shown on stderr; the rest are counted. */
#define BRIDGE_NOTICES_MAX 20

/**
 * struct bridge - the proxy of one launch
 * @active: the plan needs a proxy (a network allow row under
 *          @default net deny)
 * @judge: the plan's network rows (to choose the forwarded ports)
 * @token: per endpoint (enum proxy_proto), in the child's environment
 * @ports: ports the init listens on: [0] HTTP, [1] SOCKS5, then forwards
 * @nports: number of @ports
 * @envp: the child's environment with the proxy variables, set last
 * @helper: vbox-proxy's pid, or 0
 * @helper_pidfd: a pidfd for it, or -1 (no pidfds: @helper alone)
 * @ctl: our end of its control socket, or -1
 * @ready: it said it serves
 * @lp: the loop @watch is on
 * @watch: @ctl, once ready: its end is reported
 * @notice: the denial notices shown ("vbox: denied ..."; owned)
 * @nnotice: their number, at most BRIDGE_NOTICES_MAX
 * @notice_more: denials told after that, or lost on the way
 */
struct bridge {
	bool active;
	struct judge judge;
	char token[2][PROXY_TOKEN_LEN + 1];
	uint16_t ports[BRIDGE_MAX_PORTS];
	size_t nports;
	char **envp;
	pid_t helper;
	int helper_pidfd;
	int ctl;
	bool ready;
	struct loop *lp;
	struct loop_watch watch;
	char *notice[BRIDGE_NOTICES_MAX];
	size_t nnotice;
	uint64_t notice_more;
};

/*
 * bridge_prepare - decide from @p whether a proxy runs and on which
 * ports.  Returns 0, or -1 with *@err.
 */
int bridge_prepare(struct bridge *b, const struct plan *p, char **err);

/*
 * bridge_env - make the proxy's tokens and the child's environment with
 * them from @env (@b->envp), before bubblewrap starts with it.  Returns
 * 0, or -1 with *@err.
 */
int bridge_env(struct bridge *b, const struct env_list *env, char **err);

/*
 * bridge_start - start vbox-proxy (supervisor_spawn_helper() of @sv) with
 * its configuration; after bridge_env(), and after bubblewrap's start
 * (which the proxy's start would delay).  It does not wait for the
 * proxy: see bridge_ready().  Returns 0, or -1 with *@err.
 */
int bridge_start(struct bridge *b, struct supervisor *sv,
		 const struct plan *p, char **err);

/*
 * bridge_ready - wait (at most BRIDGE_READY_MS) until vbox-proxy serves;
 * before the command may run.  From then on its end is reported on
 * @sv's loop.  Returns 0, or -1 with *@err (it cannot serve).
 */
int bridge_ready(struct bridge *b, struct supervisor *sv, char **err);

/*
 * bridge_listen_host - container mode: no network namespace of the
 * sandbox's, so the proxy listens on the host's 127.0.0.1, at ports the
 * kernel picks (the child reaches them through the socket supervisor;
 * any other local process needs the tokens).  After bridge_prepare(),
 * before bridge_env(): @b->ports become those ports, without forwards.
 * @fds get the two sockets (-1 when no proxy runs), to hand over with
 * bridge_take_listener() once the proxy serves.  0, or -1 with *@err.
 */
int bridge_listen_host(struct bridge *b, int fds[2], char **err);

/* bridge_take_listener - a listening socket from the init (taken). */
void bridge_take_listener(struct bridge *b, int fd);

/*
 * bridge_release - end vbox-proxy and reap it, free everything.  The
 * denial notices it sent last are shown first, then how many more were
 * not shown.
 */
void bridge_release(struct bridge *b);

#endif /* VBOX_BRIDGE_H */
