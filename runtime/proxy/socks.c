/* SPDX-License-Identifier: MIT */
/*
 * socks.c - the SOCKS5 endpoint: RFC 1928 CONNECT with RFC 1929
 * username/password, nothing else (pconn.h).  Replies follow doc/proxy.md
 * "Protocols":
 * no username/password method offered is 0xFF, a target the table
 * refuses is 0x02, BIND and UDP ASSOCIATE are 0x07.
 */
#include <vbox.h>

#include <arpa/inet.h>
#include <stdio.h>

#include "auth.h"
#include "compat.h"
#include "pconn.h"

enum { SK_GREET, SK_AUTH, SK_REQ, SK_DONE };

static void consume(struct pconn *pc, size_t n)
{
	memmove(pc->in, pc->in + n, pc->inlen - n);
	pc->inlen -= n;
}

void socks_refuse(struct pconn *pc, int code)
{
	char r[10] = { 5, (char)code, 0, 1 };

	pc_reply(pc, r, sizeof(r), AFTER_CLOSE);
}

void socks_established(struct pconn *pc)
{
	static const char ok[10] = { 5, 0, 0, 1 };

	free(pc->out);
	pc->out = xmalloc(sizeof(ok));
	memcpy(pc->out, ok, sizeof(ok));
	pc->outlen = sizeof(ok);
	pc->outoff = 0;
}

/* greet - returns false when @pc is gone or more bytes are needed */
static bool greet(struct pconn *pc)
{
	const unsigned char *b = pc->in;
	size_t i;

	if (pc->inlen < 2)
		return false;
	if (b[0] != 5) {
		pc_abort(pc, "not a SOCKS5 greeting");
		return false;
	}
	if (b[1] == 0 || pc->inlen < 2 + (size_t)b[1])
		return b[1] == 0 ? (pc_abort(pc, "no SOCKS5 method"), false) :
				   false;
	for (i = 0; i < b[1]; i++)
		if (b[2 + i] == 2)
			break;
	if (i == b[1]) {
		pc_log(pc, "client offers no username/password method");
		pc_reply(pc, "\x05\xff", 2, AFTER_CLOSE);
		return false;
	}
	consume(pc, 2 + (size_t)b[1]);
	pc->socks_state = SK_AUTH;
	/* more may follow at once: the reply goes out without waiting */
	if (send(pc->cfd, "\x05\x02", 2, MSG_NOSIGNAL) != 2) {
		pc_abort(pc, "cannot answer the greeting");
		return false;
	}
	return true;
}

static bool authenticate(struct pconn *pc)
{
	const unsigned char *b = pc->in;
	size_t ul, pl;

	if (pc->inlen < 2)
		return false;
	ul = b[1];
	if (pc->inlen < 3 + ul)
		return false;
	pl = b[2 + ul];
	if (pc->inlen < 3 + ul + pl)
		return false;
	if (b[0] != 1 ||
	    !auth_pair_ok(b + 2, ul, b + 3 + ul, pl,
			  pc->px->token[PROXY_SOCKS5])) {
		pc_log(pc, "bad credentials");
		pc_reply(pc, "\x01\x01", 2, AFTER_CLOSE);
		return false;
	}
	consume(pc, 3 + ul + pl);
	pc->socks_state = SK_REQ;
	if (send(pc->cfd, "\x01\x00", 2, MSG_NOSIGNAL) != 2) {
		pc_abort(pc, "cannot answer the authentication");
		return false;
	}
	return true;
}

static void request(struct pconn *pc)
{
	const unsigned char *b = pc->in;
	char host[300], ip[INET6_ADDRSTRLEN];
	size_t need, i;
	unsigned port;

	if (pc->inlen < 5)
		return;
	if (b[0] != 5) {
		pc_abort(pc, "malformed SOCKS5 request");
		return;
	}
	switch (b[3]) {
	case 1:
		need = 10;
		break;
	case 4:
		need = 22;
		break;
	case 3:
		need = 7 + (size_t)b[4];
		break;
	default:
		pc_log(pc, "address type %u not supported", b[3]);
		socks_refuse(pc, 8);
		return;
	}
	if (pc->inlen < need)
		return;
	if (b[1] != 1) {
		pc_log(pc, "command %u refused (CONNECT only)", b[1]);
		socks_refuse(pc, 7);
		return;
	}
	port = (unsigned)b[need - 2] << 8 | b[need - 1];
	if (b[3] == 1) {
		inet_ntop(AF_INET, b + 4, ip, sizeof(ip));
		snprintf(host, sizeof(host), "%s:%u", ip, port);
	} else if (b[3] == 4) {
		inet_ntop(AF_INET6, b + 4, ip, sizeof(ip));
		snprintf(host, sizeof(host), "[%s]:%u", ip, port);
	} else {
		char name[256];

		for (i = 0; i < b[4]; i++) {
			if (b[5 + i] <= ' ' || b[5 + i] >= 0x7f) {
				pc_log(pc, "bad host name in request");
				socks_refuse(pc, 1);
				return;
			}
			name[i] = (char)b[5 + i];
		}
		name[i] = '\0';
		if (strchr(name, ':'))
			snprintf(host, sizeof(host), "[%s]:%u", name, port);
		else
			snprintf(host, sizeof(host), "%s:%u", name, port);
	}
	consume(pc, need);
	pc->socks_state = SK_DONE;
	pc->tunnel = true;
	snprintf(pc->what, sizeof(pc->what), "CONNECT %s", host);
	pc_go(pc, host);
}

void socks_on_request(struct pconn *pc)
{
	if (pc->socks_state == SK_GREET && !greet(pc))
		return;
	if (pc->socks_state == SK_AUTH && !authenticate(pc))
		return;
	if (pc->socks_state == SK_REQ)
		request(pc);
}
