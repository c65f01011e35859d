/* SPDX-License-Identifier: MIT */
/*
 * pconfig.h - what vbox-exec hands the egress proxy's own process,
 * vbox-proxy (doc/proxy.md "The proxy's process"), and the messages on
 * the socket between the two.
 *
 * The configuration is one blob in a sealed memory file: the tokens and
 * ports vbox-exec chose (they are in the command's environment before
 * the proxy runs), the upstream proxy, the --log flag with vbox-exec's
 * time origin, and the plan's network rows in priority order with the
 * network posture, all vbox-proxy needs to judge.  It is written with
 * the plan's own wire primitives (plan/wire.h) and read back with the
 * same bounds checks.
 *
 * Messages (a SOCK_SEQPACKET pair; vbox-proxy's end is its fd 3):
 *   vbox-proxy -> vbox-exec  "R"            ready: the proxy serves
 *                            "E" TEXT       it cannot start (then exits)
 *                            "D" u32 LOST WHAT NUL WHY NUL
 *                                           the table refused WHAT
 *                                           (proxy_deny_fn), for WHY;
 *                                           LOST notices before it did
 *                                           not fit the socket
 *   vbox-exec -> vbox-proxy  "L" u16 PORT   with one fd (SCM_RIGHTS): a
 *                                           listening socket of the
 *                                           sandbox for PORT
 *   end of file either way: the other side is done.
 */
#ifndef VBOX_PCONFIG_H
#define VBOX_PCONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proxy.h"

struct judge;
struct plan;
struct wbuf;

/* vbox-proxy's descriptors, as vbox-exec passes them. */
#define PCONFIG_FD_CONTROL 3
#define PCONFIG_FD_CONFIG 4

/* Ports served: HTTP, SOCKS5, then loopback forwards (bridge.h). */
#define PCONFIG_MAX_PORTS 8

/* The largest configuration vbox-proxy reads: never more than a plan. */
#define PCONFIG_MAX_BYTES (1u << 30)

/* A control message's largest size ("E" and a message). */
#define PCONFIG_MAX_MSG 1024

/**
 * struct pconfig - the configuration but the rows
 * @log: --log was given: decisions go to stderr
 * @t0_ms: vbox-exec's start (CLOCK_MONOTONIC, ms): --log's time origin
 * @token: per endpoint (enum proxy_proto PROXY_HTTP, PROXY_SOCKS5)
 * @ports: [0] HTTP, [1] SOCKS5, then forwarded loopback ports
 * @nports: number of @ports, at least 2
 * @upstream: the plan's upstream proxy URL, or NULL (owned)
 */
struct pconfig {
	bool log;
	double t0_ms;
	char token[2][PROXY_TOKEN_LEN + 1];
	uint16_t ports[PCONFIG_MAX_PORTS];
	size_t nports;
	char *upstream;
};

/*
 * pconfig_encode - append @c and @p's network rows (in priority order)
 * and posture to @out.  @p's priorities were checked by
 * judge_from_plan().
 */
void pconfig_encode(struct wbuf *out, const struct pconfig *c,
		    const struct plan *p);

/*
 * pconfig_decode - the reverse: fills @c and builds @j.  Returns 0, or -1
 * with *@err (caller frees; @c and @j are then empty).
 */
int pconfig_decode(const uint8_t *buf, size_t len, struct pconfig *c,
		   struct judge *j, char **err);

/* pconfig_release - free what @c holds. */
void pconfig_release(struct pconfig *c);

/*
 * pconfig_send_listener - "L" @port with @fd on the control socket @sock
 * (the caller keeps @fd).  0, or -1 with errno.
 */
int pconfig_send_listener(int sock, uint16_t port, int fd);

/*
 * pconfig_recv_listener - the next message on @sock, without waiting.
 * Returns 1 with *@port and *@fd (close-on-exec, the caller's) for an
 * "L" message; 0 at the end of the stream; -1 with errno EAGAIN (or
 * EINTR) when nothing is there yet, EPROTO for any other message (its
 * fd, if any, is closed), or the call's error.
 */
int pconfig_recv_listener(int sock, uint16_t *port, int *fd);

/*
 * pconfig_denial_encode - the "D" message into @out (PCONFIG_MAX_MSG
 * bytes): @what and @why must be 1 to PROXY_DENY_TEXT_MAX printable
 * ASCII bytes each.  Returns its length, or 0 when they are not.
 */
size_t pconfig_denial_encode(uint8_t *out, uint32_t lost, const char *what,
			     const char *why);

/*
 * pconfig_denial_decode - a "D" message of @n bytes at @msg: *@lost,
 * and @what and @why (PROXY_DENY_TEXT_MAX + 1 bytes each) get the two
 * texts, NUL-terminated.  Returns 0, or -1 for anything else: another
 * message, a text empty or too long, a byte that is not printable
 * ASCII, not exactly one NUL after each of the two.
 */
int pconfig_denial_decode(const uint8_t *msg, size_t n, uint32_t *lost,
			  char *what, char *why);

#endif /* VBOX_PCONFIG_H */
