/* SPDX-License-Identifier: MIT */
/*
 * container.h - what container mode decides before its start
 * (doc/launcher.md, "Container mode"): the probes of the mechanisms it
 * needs, the Landlock rules of the instantiated sandbox and whether the
 * launch may use them, the loopback destinations the socket supervisor
 * admits, and the --dry-run and --log reports.  The launch itself is
 * runtime/linux/launch.c's, with vbox-init as the runner.
 */
#ifndef VBOX_CONTAINER_H
#define VBOX_CONTAINER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "walls/container_rules.h"
#include "judge.h"

struct launch_request;
struct sandbox;

/**
 * struct container - one container-mode launch
 * @rules: the Landlock wall (container_rules.h)
 * @abi: the Landlock ABI it uses (capped for the test suite)
 * @net_deny: "@default net deny": inet destinations are admitted here
 * @judge, @have_judge: the plan's network rows (loopback destinations)
 * @proxy_ports: the egress proxy's ports on 127.0.0.1 (0: none)
 * @no_getfd: pidfd_getfd() is refused here (Docker's default profile
 *            without CAP_SYS_PTRACE): the listener comes over the
 *            channel, the supervisor emulates connect() and bind() with
 *            sockets of its own installed in the child, and no send is
 *            stopped: the filter leaves no socket for which a send's
 *            destination counts (unixsock.h, seccomp.c)
 * @supervised: supervised paths: the supervisor judges every path call
 *              (container_rules.h), Landlock keeps the coarse shape
 */
struct container {
	struct container_rules rules;
	int abi;
	bool net_deny;
	struct judge judge;
	bool have_judge;
	uint16_t proxy_ports[2];
	bool no_getfd;
	bool supervised;
};

/*
 * container_probe - can container mode run here at all?  Landlock (the
 * ABI, or why not: ENOSYS, disabled at boot), seccomp user notification
 * (gVisor refuses a listener), pidfd_getfd() (refused by Docker's default
 * profile without CAP_SYS_PTRACE).  Sets @c->abi.  0, or -1 with *@err
 * naming what is missing.  @accept_unscoped: below ABI 6 is accepted.
 */
int container_probe(struct container *c, bool accept_unscoped, char **err);

/*
 * container_prepare - the rules for the instantiated sandbox @sa and the
 * network judge for @req's plan.  With @supervise (rows that land
 * supervised, the private /tmp), or where Landlock would hold a row
 * only narrower (unless @req->accept_narrower), the supervisor judges
 * every path call (@c->supervised).  0, or -1 with *@err.
 */
int container_prepare(struct container *c, const struct launch_request *req,
		      const struct sandbox *sa, bool supervise, char **err);

/* container_admit - unixsock's admit_inet for @ctx, a struct container. */
bool container_admit(void *ctx, const struct sockaddr *sa);

/* container_log - the --log (and --dry-run) lines of the decision. */
void container_log(const struct container *c, const struct launch_request *req,
		   bool always);

/* container_dry_run - print what the launch would apply; exit status. */
int container_dry_run(const struct container *c,
		      const struct launch_request *req);

void container_release(struct container *c);

#endif /* VBOX_CONTAINER_H */
