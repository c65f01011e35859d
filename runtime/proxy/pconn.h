/* SPDX-License-Identifier: MIT */
/*
 * pconn.h - one client connection of the proxy, shared by the files that
 * drive it, from the lowest up: pconn.c (what every part does with it:
 * log lines, deadlines, events, replies, its end), relay.c (tunnels, and
 * a plain forward), http.c (HTTP requests and plain forwarding), socks.c
 * (SOCKS5), conn.c (its life: judging, resolution, dialling), listen.c
 * (accepting it, with its protocol's operations).  A lower file calls a
 * higher one only through struct pc_ops.  Private to runtime/proxy/.
 */
#ifndef VBOX_PCONN_H
#define VBOX_PCONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "loop.h"
#include "netaddr.h"
#include "proxy.h"
#include "upstream.h"

/* Client bytes held while a request is read (the head bound too). */
#define PC_IN_CAP 32768
/* Largest request head. */
#define PC_HEAD_MAX 16384
/* Addresses tried per target. */
#define PC_MAX_ADDRS 16
/* A reply's text (403 body, SOCKS5 log) at most. */
#define PC_TEXT_MAX 8192

/**
 * enum pc_state - where a connection is
 * @PC_READ_REQ: reading a request (HTTP head, SOCKS5 messages)
 * @PC_WRITE: writing @out, then @after
 * @PC_RESOLVE: waiting for the resolver
 * @PC_DIAL: connecting to @addrs[@iaddr]
 * @PC_UPHS: handshake with the upstream proxy
 * @PC_TUNNEL: relaying a tunnel
 * @PC_HTTP: forwarding one plain HTTP exchange
 * @PC_LINGER: our side is shut; draining the client until it closes
 */
enum pc_state {
	PC_READ_REQ,
	PC_WRITE,
	PC_RESOLVE,
	PC_DIAL,
	PC_UPHS,
	PC_TUNNEL,
	PC_HTTP,
	PC_LINGER,
};

/**
 * enum pc_after - what follows a drained @out
 * @AFTER_READ: read the next request
 * @AFTER_CLOSE: shut down, linger, close
 */
enum pc_after {
	AFTER_READ,
	AFTER_CLOSE,
};

/**
 * struct rdir - one direction of a tunnel
 * @from, @to: the sockets
 * @pipe: splice relay: the pipe (-1 until relay_prepare())
 * @buf: buffer relay: a ring of @cap bytes (NULL until relay_prepare();
 *       owned)
 * @boff: buffer relay: where the held bytes start in @buf
 * @held: bytes read from @from and not yet written, in @pipe or @buf
 * @cap: @pipe's or @buf's capacity (0 until made)
 * @pend: bytes to write before anything relayed (owned)
 * @plen, @poff: their length and how much is written
 * @pcap: allocated @pend bytes
 * @eof: @from reached its end
 * @shut: @to was shut down for writing
 */
struct rdir {
	int from, to;
	int pipe[2];
	unsigned char *buf;
	size_t boff;
	size_t held;
	size_t cap;
	unsigned char *pend;
	size_t plen, poff, pcap;
	bool eof;
	bool shut;
};

struct hfwd;
struct pconn;
struct verdict;

/**
 * enum pc_fail - why a target cannot be served
 * @FAIL_DENIED: the table says no
 * @FAIL_TARGET: the target is malformed
 * @FAIL_RESOLVE: the name does not resolve
 * @FAIL_CONNECT: no address accepted the connection
 * @FAIL_UPSTREAM: the upstream proxy said no
 * @FAIL_TIMEOUT: too slow
 * @FAIL_RESOURCE: the proxy has no room for it now (fds, tunnel memory)
 */
enum pc_fail {
	FAIL_DENIED,
	FAIL_TARGET,
	FAIL_RESOLVE,
	FAIL_CONNECT,
	FAIL_UPSTREAM,
	FAIL_TIMEOUT,
	FAIL_RESOURCE,
};

/**
 * struct pc_ops - what a connection's protocol does (http.c: http_ops,
 * socks.c: socks_ops, relay.c: forward_ops), chosen by the listener
 * that accepted it; conn.c and pconn.c call these and nothing of the
 * protocols' own
 * @on_request: request bytes arrived (@in), or a buffered request waits
 * @refuse: the target cannot be served (@f), @text the why
 * @deny: the table said no (@v, @addr: as verdict_format() takes them),
 *        @body the why
 * @established: the connection to the target (or the upstream proxy) is
 *               made: answer the client and start the tunnel or the
 *               exchange (@extra, @n: bytes the upstream sent after its
 *               handshake); @pc may be gone when it returns
 * @events: the events to wait for in PC_TUNNEL and PC_HTTP
 * @pump: the work of PC_TUNNEL and PC_HTTP when an event came
 * @release: free what the protocol holds of @pc
 */
struct pc_ops {
	void (*on_request)(struct pconn *pc);
	void (*refuse)(struct pconn *pc, enum pc_fail f, const char *text);
	void (*deny)(struct pconn *pc, const struct verdict *v,
		     const char *addr, const char *body);
	void (*established)(struct pconn *pc, const unsigned char *extra,
			    size_t n);
	void (*events)(struct pconn *pc, uint32_t *cev, uint32_t *uev);
	void (*pump)(struct pconn *pc);
	void (*release)(struct pconn *pc);
};


/**
 * struct pconn - one client connection
 * @px: the proxy
 * @prev, @next: the proxy's list
 * @proto: the endpoint's protocol
 * @ops: its operations
 * @state: see enum pc_state
 * @cfd, @ufd: client and outbound sockets (-1 when none)
 * @cw, @uw: their watches
 * @tm: handshake, dial, idle and linger deadlines
 * @last_ms: last traffic (idle limit)
 * @in, @inlen: client bytes not yet consumed (PC_IN_CAP allocated)
 * @out, @outlen, @outoff: a reply being written to the client
 * @after: see enum pc_after
 * @socks_state: SOCKS5 step
 * @tunnel: CONNECT or SOCKS5 (else plain HTTP)
 * @q: the judged target
 * @have_q: @q is set
 * @what: the request for log lines ("CONNECT example.com:443")
 * @dq: pending resolution
 * @addrs, @naddrs, @iaddr: addresses to dial, the one being tried
 * @target_addr: the judged target address (UP_SOCKS5)
 * @hs: upstream handshake state (owned)
 * @ubuf, @ubuflen: upstream handshake reply bytes (owned)
 * @c2u, @u2c: tunnel directions
 * @sni_wait: the client's first bytes are held for the SNI check
 * @hf: plain HTTP forwarding state (owned)
 * @err: errno of the last failure, for replies
 * @kick: a buffered request waits to be parsed (from the timer)
 */
struct pconn {
	struct proxy *px;
	struct pconn *prev, *next;
	enum proxy_proto proto;
	const struct pc_ops *ops;
	enum pc_state state;
	int cfd, ufd;
	struct loop_watch cw, uw;
	struct loop_timer tm;
	double last_ms;
	unsigned char *in;
	size_t inlen;
	char *out;
	size_t outlen, outoff;
	enum pc_after after;
	int socks_state;
	bool tunnel;
	struct net_target q;
	bool have_q;
	char what[320];
	struct dns_query *dq;
	struct sockaddr_storage addrs[PC_MAX_ADDRS];
	unsigned naddrs, iaddr;
	struct sockaddr_storage target_addr;
	struct up_hs *hs;
	unsigned char *ubuf;
	size_t ubuflen;
	struct rdir c2u, u2c;
	bool sni_wait;
	struct hfwd *hf;
	int err;
	bool kick;
};

/* pconn.c */
__printf(2, 3) void pc_log(struct pconn *pc, const char *fmt, ...);
/* px_log - a --log line about the proxy itself */
__printf(2, 3) void px_log(struct proxy *px, const char *fmt, ...);
void pc_free(struct pconn *pc);
void pc_abort(struct pconn *pc, const char *why);
void pc_reply(struct pconn *pc, const char *bytes, size_t n,
	      enum pc_after after);
void pc_events(struct pconn *pc);
void pc_close_upstream(struct pconn *pc);
void pc_read_next(struct pconn *pc);
void pc_touch(struct pconn *pc);
/* pc_arm - the connection's deadline @ms from now */
void pc_arm(struct pconn *pc, double ms);
/* pc_write_out - write the pending reply: 1 when all is written, 0 to
 * wait, -1 when the client is gone */
int pc_write_out(struct pconn *pc);
/* pc_after_out - the reply is written: the next request, or the close */
void pc_after_out(struct pconn *pc);

/* conn.c */
/* pc_accepted - a new client connection @fd on a listener of @proto,
 * served by @ops (@port: a forward's host port); owns @fd from here */
void pc_accepted(struct proxy *px, int fd, enum proxy_proto proto,
		 const struct pc_ops *ops, uint16_t port);
/* pc_go - judge @hostport, resolve, dial, and at the end the protocol's
 * established() or refuse() */
void pc_go(struct pconn *pc, const char *hostport);

/* http.c, socks.c, relay.c: the protocols */
extern const struct pc_ops http_ops, socks_ops, forward_ops;

/* relay.c */
/*
 * relay_prepare - make both stores of a tunnel before it is answered.
 * Returns 0, or -errno (ENOBUFS: the proxy's store budget is spent;
 * EMFILE...: no pipe) with nothing held.
 */
int relay_prepare(struct pconn *pc);
/* relay_ready - relay_prepare(), or the tunnel refused (FAIL_RESOURCE)
 * and -1 */
int relay_ready(struct pconn *pc);
void relay_start(struct pconn *pc, const unsigned char *prefix, size_t n);
void relay_pump(struct pconn *pc);
void relay_events(struct pconn *pc, uint32_t *cev, uint32_t *uev);
void relay_free(struct pconn *pc);

#endif /* VBOX_PCONN_H */
