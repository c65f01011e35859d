/* SPDX-License-Identifier: MIT */
/*
 * socksmsg.c - reading the SOCKS5 messages of a client (socksmsg.h).
 * Every length is the client's, so each is checked against the bytes
 * there before it is used, and the one text made from them, the target,
 * is built with the bounded builder.
 */
#include <vbox.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include "bbuf.h"
#include "socksmsg.h"

enum socks_res socks_greeting(const unsigned char *b, size_t n, size_t *used,
			      bool *userpass, const char **why)
{
	size_t i, nm;

	if (n < 1)
		return SOCKS_MORE;
	if (b[0] != 5) {
		*why = "not a SOCKS5 greeting";
		return SOCKS_FAIL;
	}
	if (n < 2)
		return SOCKS_MORE;
	nm = b[1];
	if (!nm) {
		*why = "no SOCKS5 method";
		return SOCKS_FAIL;
	}
	if (n < 2 + nm)
		return SOCKS_MORE;
	*userpass = false;
	for (i = 0; i < nm; i++)
		if (b[2 + i] == 2)
			*userpass = true;
	*used = 2 + nm;
	return SOCKS_DONE;
}

enum socks_res socks_auth(const unsigned char *b, size_t n, size_t *used,
			  const unsigned char **user, size_t *ulen,
			  const unsigned char **pass, size_t *plen,
			  const char **why)
{
	size_t ul, pl;

	if (n < 2)
		return SOCKS_MORE;
	ul = b[1];
	if (n < 3 + ul)
		return SOCKS_MORE;
	pl = b[2 + ul];
	if (n < 3 + ul + pl)
		return SOCKS_MORE;
	if (b[0] != 1) {
		*why = "not a username/password message";
		return SOCKS_FAIL;
	}
	*user = b + 2;
	*ulen = ul;
	*pass = b + 3 + ul;
	*plen = pl;
	*used = 3 + ul + pl;
	return SOCKS_DONE;
}

static enum socks_res refuse(struct socks_req *r, unsigned reply,
			     const char *why)
{
	r->reply = reply;
	r->why = why;
	r->hostport[0] = '\0';
	return SOCKS_FAIL;
}

enum socks_res socks_request(const unsigned char *b, size_t n,
			     struct socks_req *r)
{
	char ip[INET6_ADDRSTRLEN];
	struct bbuf hp;
	size_t need, i;

	memset(r, 0, sizeof(*r));
	if (n < 1)
		return SOCKS_MORE;
	if (b[0] != 5)
		return refuse(r, 0, "malformed SOCKS5 request");
	if (n < 5)
		return SOCKS_MORE;
	r->cmd = b[1];
	r->atyp = b[3];
	switch (b[3]) {
	case 1:
		need = 4 + 4 + 2;
		break;
	case 4:
		need = 4 + 16 + 2;
		break;
	case 3:
		need = 4 + 1 + (size_t)b[4] + 2;
		break;
	default:
		return refuse(r, 8, "address type not supported");
	}
	if (n < need)
		return SOCKS_MORE;
	r->used = need;
	if (b[1] != 1)
		return refuse(r, 7, "command refused (CONNECT only)");
	r->port = (uint16_t)(b[need - 2] << 8 | b[need - 1]);
	bbuf_init_fixed(&hp, r->hostport, sizeof(r->hostport));
	if (b[3] == 1 || b[3] == 4) {
		int af = b[3] == 1 ? AF_INET : AF_INET6;

		if (!inet_ntop(af, b + 4, ip, sizeof(ip)))
			return refuse(r, 1, "bad address in request");
		bbuf_printf(&hp, af == AF_INET ? "%s:%u" : "[%s]:%u", ip,
			    r->port);
	} else {
		bool colon = false;

		if (!b[4])
			return refuse(r, 1, "empty host name in request");
		for (i = 0; i < b[4]; i++) {
			if (b[5 + i] <= ' ' || b[5 + i] >= 0x7f)
				return refuse(r, 1, "bad host name in request");
			colon = colon || b[5 + i] == ':';
		}
		if (colon)
			bbuf_putc(&hp, '[');
		bbuf_add(&hp, b + 5, b[4]);
		bbuf_printf(&hp, "%s:%u", colon ? "]" : "", r->port);
	}
	if (!bbuf_ok(&hp))
		return refuse(r, 1, "target too long");
	return SOCKS_DONE;
}
