/* SPDX-License-Identifier: MIT */
/*
 * dns.h - name resolution on the event loop, with c-ares.
 *
 * Why c-ares: getaddrinfo() blocks, and the loop serves every connection
 * and the sandbox's supervisor; getaddrinfo_a() runs glibc helper threads
 * and reports through signals or thread callbacks; a thread of our own
 * with a queue cannot cancel a lookup whose client went away.  c-ares is
 * the field's asynchronous resolver: its sockets join our event loop, its
 * retries run on our timer heap, no thread is started, and it reads the
 * host's /etc/resolv.conf and /etc/hosts.
 */
#ifndef VBOX_DNS_H
#define VBOX_DNS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "loop.h"

/* Addresses kept from one answer. */
#define DNS_MAX_ADDRS 16

struct dns_query;

/**
 * struct dns_answer - the addresses of one name, in the resolver's order
 * @status: 0, or a c-ares status (ARES_ENOTFOUND ...)
 * @n: number of @addr entries
 * @addr: AF_INET / AF_INET6 addresses with the asked port
 */
struct dns_answer {
	int status;
	unsigned n;
	struct sockaddr_storage addr[DNS_MAX_ADDRS];
};

/* dns_fn - the answer for a query; the query is gone after the call. */
typedef void (*dns_fn)(void *ctx, const struct dns_answer *ans);

/**
 * struct dns - one resolver on one loop
 * @lp: the loop
 * @channel: the c-ares channel (ares_channel)
 * @socks: c-ares sockets being watched (each allocated alone: the loop
 *         holds pointers to their watches)
 * @nsocks: number of @socks
 * @live: queries not yet delivered or freed
 * @timer: c-ares' next timeout
 * @ready: initialised
 */
struct dns {
	struct loop *lp;
	void *channel;
	struct dns_sock **socks;
	unsigned nsocks;
	struct dns_query *live;
	struct loop_timer timer;
	bool ready;
};

/* dns_init - start a resolver on @lp.  0, or -1 with *@err (caller frees). */
int dns_init(struct dns *d, struct loop *lp, char **err);

/* dns_release - stop it; pending queries are cancelled silently. */
void dns_release(struct dns *d);

/*
 * dns_resolve - resolve @name once; @fn is called later from the loop
 * (never from inside this call) unless dns_cancel() comes first.
 */
struct dns_query *dns_resolve(struct dns *d, const char *name, uint16_t port,
			      dns_fn fn, void *ctx);

/* dns_cancel - @fn will not be called; @q is gone. */
void dns_cancel(struct dns_query *q);

/* dns_strerror - text for a dns_answer status. */
const char *dns_strerror(int status);

#endif /* VBOX_DNS_H */
