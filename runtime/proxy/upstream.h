/* SPDX-License-Identifier: MIT */
/*
 * upstream.h - chaining through the plan's @upstream-proxy (http,
 * socks5, socks5h).  Only the plan names it: the launcher's own *_PROXY
 * variables are never read.
 */
#ifndef VBOX_UPSTREAM_H
#define VBOX_UPSTREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Addresses kept for the upstream proxy's host. */
#define UPSTREAM_MAX_ADDRS 8

/**
 * enum up_kind - the upstream's protocol
 * @UP_HTTP: HTTP CONNECT (and absolute-form for plain HTTP)
 * @UP_SOCKS5: SOCKS5; names are resolved and judged here, the upstream
 *             gets the chosen address
 * @UP_SOCKS5H: SOCKS5; the upstream resolves the name
 */
enum up_kind {
	UP_HTTP,
	UP_SOCKS5,
	UP_SOCKS5H,
};

/**
 * struct upstream - a parsed upstream proxy
 * @kind: see enum up_kind
 * @host: its host (brackets removed)
 * @port: its port
 * @user, @pass: credentials, or NULL
 * @basic: "Basic base64(user:pass)" for HTTP, or NULL
 * @addr: its addresses, resolved once at start
 * @naddr: number of @addr
 */
struct upstream {
	enum up_kind kind;
	char *host;
	uint16_t port;
	char *user;
	char *pass;
	char *basic;
	struct sockaddr_storage addr[UPSTREAM_MAX_ADDRS];
	unsigned naddr;
};

/*
 * upstream_parse - parse @url and resolve its host (blocking, once,
 * before the loop serves anyone).  Returns 0, or -1 with *@err.  For an
 * upstream that resolves names itself (http, socks5h) it warns once on
 * stderr that SPEC 4's address classes cannot be applied to them
 * (doc/proxy.md).
 */
int upstream_parse(const char *url, struct upstream **out, char **err);

/* upstream_parse_url - upstream_parse() without the resolution. */
int upstream_parse_url(const char *url, struct upstream **out, char **err);

/*
 * upstream_warning - the warning upstream_parse() prints for @up, or
 * NULL when the upstream gets only judged addresses (socks5).
 */
const char *upstream_warning(const struct upstream *up);

void upstream_free(struct upstream *up);

/* The longest target name sent to the upstream (RFC 1928's limit). */
#define UP_HOST_MAX 255
/*
 * The first bytes of a handshake never pass this: for a bracketed
 * UP_HOST_MAX name and a 5-digit port, the CONNECT line (282 bytes) and
 * its Host field (271), "Proxy-Authorization: Basic " with the base64 of
 * a 255:255 pair (713) and the empty line, 1,268 in all.  They are built
 * with a bounded builder all the same, and refused if they do not fit.
 */
#define UP_OUT_MAX 2048

/**
 * struct up_hs - one handshake with the upstream
 * @up: the upstream
 * @state: where we are
 * @host: the target as sent (a name, or an address text)
 * @addr: the target address for UP_SOCKS5 (family AF_INET/AF_INET6)
 * @port: the target port
 * @out: bytes to send now
 * @nout: their number
 * @reply: SOCKS reply code of a refusal, or 0
 * @why: why upstream_start() failed, or NULL
 */
struct up_hs {
	const struct upstream *up;
	int state;
	char host[UP_HOST_MAX + 1];
	struct sockaddr_storage addr;
	uint16_t port;
	unsigned char out[UP_OUT_MAX];
	size_t nout;
	int reply;
	const char *why;
};

/*
 * upstream_start - begin a handshake for @host:@port (@addr: the judged
 * address, used by UP_SOCKS5).  Returns 0 with the first bytes in
 * hs->out, or -1 when they cannot be made (a name over UP_HOST_MAX
 * bytes): then hs->out is empty and the first upstream_feed() fails
 * with the reason, so a caller that only feeds still ends cleanly.
 */
int upstream_start(struct up_hs *hs, const struct upstream *up,
		   const char *host, uint16_t port,
		   const struct sockaddr *addr);

/*
 * upstream_feed - the upstream sent @n bytes at @in.  Returns 1 when the
 * tunnel is up (*@used bytes were the handshake's; the rest is tunnel
 * data), 0 when more is needed (hs->out may hold bytes to send), -1 on
 * refusal or nonsense (*@why set).
 */
int upstream_feed(struct up_hs *hs, const unsigned char *in, size_t n,
		  size_t *used, const char **why);

#endif /* VBOX_UPSTREAM_H */
