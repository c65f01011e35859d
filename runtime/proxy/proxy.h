/* SPDX-License-Identifier: MIT */
/*
 * proxy.h - the egress proxy of vbox-exec (doc/proxy.md), on the one event
 * loop (loop.h).
 *
 * Two endpoints, each with its own random token: HTTP (CONNECT tunnels
 * and absolute-form plain HTTP) and SOCKS5 (CONNECT only).  Every target
 * is judged by struct judge; names are resolved once (dns.h) and only an
 * authorised address is dialled.  Tunnels are relayed with splice()
 * through a pipe per direction on Linux, through a bounded buffer per
 * direction elsewhere (relay.c, compat.h); plain HTTP goes through small
 * buffers so that each request and response is framed exactly.
 */
#ifndef VBOX_PROXY_H
#define VBOX_PROXY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dns.h"
#include "judge.h"
#include "loop.h"

/* Token length: 24 random bytes in unpadded base64url. */
#define PROXY_TOKEN_LEN 32

/**
 * enum proxy_proto - what an endpoint speaks
 * @PROXY_HTTP: HTTP/1.1 proxy requests
 * @PROXY_SOCKS5: SOCKS5 with username/password
 * @PROXY_FORWARD: a plain TCP forward to one loopback port of the host
 *                 (a loopback-class row), judged like any target
 */
enum proxy_proto {
	PROXY_HTTP,
	PROXY_SOCKS5,
	PROXY_FORWARD,
};

/**
 * struct proxy_limits - bounds, all in milliseconds or counts
 * @handshake_ms: from accept to a judged, dialled target (per request)
 * @connect_ms: one dial attempt
 * @idle_ms: a tunnel or a kept-alive connection without traffic
 * @max_conns: client connections at once (more are closed at accept)
 */
struct proxy_limits {
	double handshake_ms;
	double connect_ms;
	double idle_ms;
	size_t max_conns;
};

/*
 * Tunnel stores (relay.c): every tunnel direction has one, a pipe (Linux)
 * or a ring buffer (VBOX_PORTABLE).  A new one holds RELAY_FIRST bytes
 * while all stores together hold at most half of @relay_mem_max, else
 * one page; a full one doubles, up to @relay_max, while the total stays
 * within that half.  A tunnel whose two stores would pass @relay_mem_max
 * is refused (SOCKS5 0x01, HTTP 503).  The defaults:
 */
#define PROXY_RELAY_MEM (64u << 20)
#define PROXY_RELAY_FIRST (64u << 10)

/* While the listeners are set aside at the fd limit: retry this often. */
#define PROXY_ACCEPT_RETRY_MS 500.0

/**
 * struct proxy_stats - counters, for tests and the log
 * @accepts: accept() calls on the listeners
 * @accept_fails: those that failed for want of fds or memory
 * @accept_pauses: times the listeners were set aside for it
 * @accept_retries: times the timer tried them while set aside
 * @accept_logged_ms: when the last line about it was logged (0: never)
 * @relay_peak: the most bytes all tunnel stores held at once
 * @relay_grown: stores grown past their first size
 * @relay_refused: tunnels refused for want of store memory or fds
 */
struct proxy_stats {
	uint64_t accepts;
	uint64_t accept_fails;
	uint64_t accept_pauses;
	uint64_t accept_retries;
	double accept_logged_ms;
	size_t relay_peak;
	uint64_t relay_grown;
	uint64_t relay_refused;
};

/* proxy_log_fn - one decision or event line, without newline. */
typedef void (*proxy_log_fn)(void *ctx, const char *line);

/*
 * proxy_deny_fn - a connection the table refused: @what is the request
 * ("CONNECT example.com:443", "GET example.com:80", "SOCKS5 ...",
 * "forward localhost:8080"), @why verdict_brief()'s words.  Both are
 * printable ASCII, at most PROXY_DENY_TEXT_MAX bytes each.
 */
typedef void (*proxy_deny_fn)(void *ctx, const char *what, const char *why);

/* The most bytes of either text a proxy_deny_fn gets. */
#define PROXY_DENY_TEXT_MAX 400

struct upstream;
struct pconn;
struct plisten;

/**
 * struct proxy - the proxy
 * @lp: the loop it runs on
 * @judge: the rules (borrowed)
 * @dns: the resolver
 * @up: the upstream proxy, or NULL (owned)
 * @token: per endpoint
 * @limits: see struct proxy_limits
 * @log: decision log, or NULL
 * @log_ctx: for @log
 * @deny: told of every refusal by the table, or NULL
 * @deny_ctx: for @deny
 * @conns: live client connections (list)
 * @nconns: their number
 * @listeners: listening sockets (list)
 * @accept_paused: the listeners are not watched (out of fds)
 * @accept_tm: retries accepting while @accept_paused
 * @fds_freed: called when a connection's fds are closed (listen.c's:
 *             listeners set aside at the fd limit are watched again)
 * @relay_mem: bytes all tunnel stores can hold now (their capacities)
 * @relay_mem_max: the most @relay_mem may be (PROXY_RELAY_MEM)
 * @relay_max: the most one store grows to (1 MiB for pipes, 256 KiB
 *             for buffers)
 * @stats: see struct proxy_stats
 */
struct proxy {
	struct loop *lp;
	struct judge *judge;
	struct dns dns;
	struct upstream *up;
	char token[2][PROXY_TOKEN_LEN + 1];
	struct proxy_limits limits;
	proxy_log_fn log;
	void *log_ctx;
	proxy_deny_fn deny;
	void *deny_ctx;
	struct pconn *conns;
	size_t nconns;
	struct plisten *listeners;
	bool accept_paused;
	struct loop_timer accept_tm;
	void (*fds_freed)(struct proxy *px);
	size_t relay_mem;
	size_t relay_mem_max;
	size_t relay_max;
	struct proxy_stats stats;
};

/*
 * proxy_init - a proxy on @lp judging with @j (borrowed; it must outlive
 * the proxy).  @upstream is the plan's @upstream-proxy URL or NULL; its
 * host is resolved here, once, before the loop serves anyone.  Makes
 * fresh tokens.  Returns 0, or -1 with *@err (caller frees).
 */
int proxy_init(struct proxy *px, struct loop *lp, struct judge *j,
	       const char *upstream, char **err);

/*
 * proxy_set_tokens - use these tokens (PROXY_TOKEN_LEN characters each,
 * made by proxy_token_make()) instead of proxy_init()'s: the process
 * that puts them in the command's environment made them.
 */
void proxy_set_tokens(struct proxy *px, const char *http, const char *socks);

/*
 * proxy_listen - serve @proto on the listening socket @fd (the proxy
 * owns it from now on, success or not).  Returns 0 or -errno.
 */
int proxy_listen(struct proxy *px, int fd, enum proxy_proto proto);

/*
 * proxy_listen_forward - forward connections accepted on the listening
 * socket @fd to localhost:@port on the host, as plain TCP, each judged
 * as "localhost:@port".  The proxy owns @fd.  Returns 0 or -errno.
 */
int proxy_listen_forward(struct proxy *px, int fd, uint16_t port);

/* proxy_release - close every connection and listener; free all. */
void proxy_release(struct proxy *px);

/*
 * proxy_token_make - @out gets PROXY_TOKEN_LEN URL-safe characters from
 * the system's random source (compat_random()) and a NUL.  Returns 0 or
 * -errno.
 */
int proxy_token_make(char *out);

#endif /* VBOX_PROXY_H */
