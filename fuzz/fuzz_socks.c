/* SPDX-License-Identifier: MIT */
/*
 * fuzz_socks.c - libFuzzer target for the SOCKS5 messages a sandboxed
 * client sends the proxy (runtime/proxy/socksmsg.c): the greeting, the
 * RFC 1929 username/password and the CONNECT request, read one after the
 * other from the input as socks.c reads them from the client, and the
 * target then parsed as pc_go() parses it (compiler/netaddr.c).
 *
 * Besides the sanitizers, it checks what socks.c relies on: a whole
 * message is never longer than the bytes given, no shorter prefix of it
 * is whole already, the credentials point inside it, and a target is a
 * terminated, printable string of at most SOCKS_HOSTPORT_MAX bytes.
 *
 * Seeds: fuzz/seeds/socks/ (IPv4, IPv6 and name requests, other
 * commands and address types, bad versions, long names).
 */
#include <vbox.h>

#include "auth.h"
#include "netaddr.h"
#include "socksmsg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char token[] = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

static void check_request(const unsigned char *b, size_t n)
{
	struct socks_req r, q;
	struct net_target t;
	enum socks_res res;
	char *err = NULL;
	size_t i, len;

	res = socks_request(b, n, &r);
	if (res == SOCKS_MORE)
		return;
	if (res == SOCKS_FAIL) {
		if (!r.why || (r.reply != 0 && r.reply != 1 && r.reply != 7 &&
			       r.reply != 8))
			BUG("a refusal without a reason or with reply %u",
			    r.reply);
		return;
	}
	if (res != SOCKS_DONE || r.used > n || r.used < 8 || r.cmd != 1)
		BUG("request: result %d, %zu of %zu bytes, command %u",
		    (int)res, r.used, n, r.cmd);
	len = strnlen(r.hostport, sizeof(r.hostport));
	if (len == sizeof(r.hostport) || len < 2)
		BUG("a target of %zu bytes", len);
	for (i = 0; i < len; i++)
		if (r.hostport[i] <= ' ' || r.hostport[i] >= 0x7f)
			BUG("an unprintable target byte 0x%02x",
			    (unsigned char)r.hostport[i]);
	for (i = 0; i < r.used; i++) {
		res = socks_request(b, i, &q);
		if (res == SOCKS_DONE)
			BUG("a request whole after %zu of its %zu bytes", i,
			    r.used);
	}
	if (net_query_parse(r.hostport, &t, &err) == 0)
		net_target_free(&t);
	else
		free(err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const unsigned char *user = NULL, *pass = NULL;
	const char *why = NULL;
	size_t used = 0, off, ul = 0, pl = 0, i;
	bool userpass = false, up2;
	enum socks_res res;

	res = socks_greeting(data, size, &used, &userpass, &why);
	if (res == SOCKS_FAIL && !why)
		BUG("greeting refused without a reason");
	if (res != SOCKS_DONE)
		return 0;
	if (used < 3 || used > size || used != 2 + (size_t)data[1])
		BUG("greeting of %zu bytes out of %zu", used, size);
	for (i = 0; i < used; i++)
		if (socks_greeting(data, i, &off, &up2, &why) == SOCKS_DONE)
			BUG("a greeting whole after %zu bytes", i);
	off = used;
	res = socks_auth(data + off, size - off, &used, &user, &ul, &pass,
			 &pl, &why);
	if (res == SOCKS_FAIL && !why)
		BUG("authentication refused without a reason");
	if (res != SOCKS_DONE)
		return 0;
	if (used > size - off || used != 3 + ul + pl ||
	    user != data + off + 2 || pass != user + ul + 1)
		BUG("authentication of %zu bytes out of %zu", used,
		    size - off);
	(void)auth_pair_ok(user, ul, pass, pl, token);
	off += used;
	check_request(data + off, size - off);
	return 0;
}
