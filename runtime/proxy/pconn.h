/* SPDX-License-Identifier: MIT */
/*
 * pconn.h - one client connection of the proxy, shared by the files that
 * drive it: conn.c (life cycle, judging, dialling), http.c (HTTP
 * requests and plain forwarding), socks.c (SOCKS5), relay.c (tunnels).
 * Private to runtime/proxy/.
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

/**
 * struct pconn - one client connection
 * @px: the proxy
 * @prev, @next: the proxy's list
 * @proto: the endpoint's protocol
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

/* conn.c */
__printf(2, 3) void pc_log(struct pconn *pc, const char *fmt, ...);
/* px_log - a --log line about the proxy itself */
__printf(2, 3) void px_log(struct proxy *px, const char *fmt, ...);
/* pc_accepted - a new client connection @fd on a listener of @proto
 * (@port: a forward's host port); owns @fd from here */
void pc_accepted(struct proxy *px, int fd, enum proxy_proto proto,
		 uint16_t port);
void pc_free(struct pconn *pc);
void pc_abort(struct pconn *pc, const char *why);
void pc_reply(struct pconn *pc, const char *bytes, size_t n,
	      enum pc_after after);
void pc_events(struct pconn *pc);
void pc_go(struct pconn *pc, const char *hostport);
void pc_close_upstream(struct pconn *pc);
void pc_read_next(struct pconn *pc);
void pc_touch(struct pconn *pc);

/* listen.c */
/* proxy_accept_resume - watch listeners set aside at the fd limit again */
void proxy_accept_resume(struct proxy *px);

/* http.c */
void http_on_request(struct pconn *pc);
void http_refuse(struct pconn *pc, int status, const char *body);
/* http_deny - a 403 with the decision in its reason @phrase and in an
 * X-Vbox-Decision: @decision header (both printable, bounded) */
void http_deny(struct pconn *pc, const char *body, const char *phrase,
	       const char *decision);
void http_established(struct pconn *pc);
void http_fwd_pump(struct pconn *pc);
void http_fwd_events(struct pconn *pc, uint32_t *cev, uint32_t *uev);
void http_fwd_free(struct pconn *pc);

/* socks.c */
void socks_on_request(struct pconn *pc);
void socks_refuse(struct pconn *pc, int code);
void socks_established(struct pconn *pc);

/* relay.c */
/*
 * relay_prepare - make both stores of a tunnel before it is answered.
 * Returns 0, or -errno (ENOBUFS: the proxy's store budget is spent;
 * EMFILE...: no pipe) with nothing held.
 */
int relay_prepare(struct pconn *pc);
void relay_start(struct pconn *pc, const unsigned char *prefix, size_t n);
void relay_pump(struct pconn *pc);
void relay_events(struct pconn *pc, uint32_t *cev, uint32_t *uev);
void relay_free(struct pconn *pc);

#endif /* VBOX_PCONN_H */
