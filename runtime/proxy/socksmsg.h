/* SPDX-License-Identifier: MIT */
/*
 * socksmsg.h - the SOCKS5 messages a client sends (RFC 1928, RFC 1929),
 * read from bytes alone: no socket, no connection state, so that the
 * fuzz target reads them exactly as socks.c does.  Each reader looks at
 * the first @n bytes of what the client sent so far and says whether a
 * whole message is there, how long it is, or why it is refused.
 */
#ifndef VBOX_SOCKSMSG_H
#define VBOX_SOCKSMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The longest target socks_request() makes: a bracketed name of 255
 * bytes (a name with ':' is bracketed), a port and the NUL.
 */
#define SOCKS_HOSTPORT_MAX (1 + 255 + 1 + 1 + 5 + 1)

/**
 * enum socks_res - what the bytes hold
 * @SOCKS_MORE: not a whole message yet
 * @SOCKS_DONE: a whole message (its length in @used)
 * @SOCKS_FAIL: the client is refused: an answer and a close (@why says
 *              why; socks_request() also sets @reply)
 */
enum socks_res {
	SOCKS_MORE,
	SOCKS_DONE,
	SOCKS_FAIL,
};

/*
 * socks_greeting - VER NMETHODS METHODS.  On SOCKS_DONE, *@used is its
 * length and *@userpass says whether username/password (2) is offered.
 * SOCKS_FAIL with *@why when it is not SOCKS5 or offers no method.
 */
enum socks_res socks_greeting(const unsigned char *b, size_t n, size_t *used,
			      bool *userpass, const char **why);

/*
 * socks_auth - RFC 1929: VER ULEN UNAME PLEN PASSWD.  On SOCKS_DONE,
 * *@used is its length and @user/@pass point into @b (not terminated).
 * SOCKS_FAIL with *@why for a version other than 1.
 */
enum socks_res socks_auth(const unsigned char *b, size_t n, size_t *used,
			  const unsigned char **user, size_t *ulen,
			  const unsigned char **pass, size_t *plen,
			  const char **why);

/**
 * struct socks_req - a CONNECT request
 * @used: its length
 * @cmd: the command (1 CONNECT, 2 BIND, 3 UDP ASSOCIATE)
 * @atyp: the address type (1 IPv4, 3 name, 4 IPv6)
 * @port: the port
 * @hostport: "1.2.3.4:80", "[::1]:80", "name:80" (DONE only)
 * @reply: SOCKS_FAIL: the reply code to send, or 0 to reset instead
 * @why: SOCKS_FAIL: why, for the log
 */
struct socks_req {
	size_t used;
	unsigned cmd;
	unsigned atyp;
	uint16_t port;
	char hostport[SOCKS_HOSTPORT_MAX];
	unsigned reply;
	const char *why;
};

/*
 * socks_request - VER CMD RSV ATYP DST.ADDR DST.PORT.  SOCKS_DONE for a
 * CONNECT whose name is printable ASCII, SOCKS_FAIL with @reply 7 for
 * another command, 8 for an unknown address type, 1 for a bad name, 0
 * (reset) when it is not SOCKS5.
 */
enum socks_res socks_request(const unsigned char *b, size_t n,
			     struct socks_req *r);

#endif /* VBOX_SOCKSMSG_H */
