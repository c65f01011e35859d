/* SPDX-License-Identifier: MIT */
/*
 * bridge.h - the egress proxy bridged into the sandbox's network
 * namespace (doc/proxy.md "What the child sees (Linux)").
 *
 * The sandbox keeps its own network namespace.  Its init makes the
 * listening sockets there (127.0.0.1:PORT and [::1]:PORT) and hands them
 * over the init channel; vbox-exec accepts on them from outside, on the
 * supervisor's loop, and dials from the host's namespace: one relay in
 * user space per connection.  Loopback-class rows with a port are also
 * forwarded as plain TCP at their own port number.
 */
#ifndef VBOX_BRIDGE_H
#define VBOX_BRIDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "judge.h"
#include "proxy.h"

struct plan;
struct loop;
struct env_list;

/* Ports the init can listen on: CH_MAX_FDS sockets, two per port. */
#define BRIDGE_MAX_PORTS 8

/**
 * struct bridge - the proxy of one launch
 * @active: the plan needs a proxy (a network allow row under
 *          @default net deny)
 * @started: @px is running on a loop
 * @judge: the plan's network rows
 * @px: the proxy
 * @ports: ports the init listens on: [0] HTTP, [1] SOCKS5, then forwards
 * @nports: number of @ports
 * @envp: the child's environment with the proxy variables, set last
 */
struct bridge {
	bool active;
	bool started;
	struct judge judge;
	struct proxy px;
	uint16_t ports[BRIDGE_MAX_PORTS];
	size_t nports;
	char **envp;
};

/*
 * bridge_prepare - decide from @p whether a proxy runs and on which
 * ports.  Returns 0, or -1 with *@err.
 */
int bridge_prepare(struct bridge *b, const struct plan *p, char **err);

/*
 * bridge_start - start the proxy on @lp and make the child's environment
 * from @env.  Returns 0, or -1 with *@err.
 */
int bridge_start(struct bridge *b, struct loop *lp, const struct plan *p,
		 const struct env_list *env, char **err);

/* bridge_take_listener - a listening socket from the init (taken). */
void bridge_take_listener(struct bridge *b, int fd);

/* bridge_release - stop the proxy, free everything. */
void bridge_release(struct bridge *b);

#endif /* VBOX_BRIDGE_H */
