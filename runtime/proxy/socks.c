/* SPDX-License-Identifier: MIT */
/*
 * socks.c - the SOCKS5 endpoint: RFC 1928 CONNECT with RFC 1929
 * username/password, nothing else (pconn.h).  Replies follow doc/proxy.md
 * "Protocols":
 * no username/password method offered is 0xFF, a target the table
 * refuses is 0x02, BIND and UDP ASSOCIATE are 0x07.  The messages are
 * read by socksmsg.c.
 */
#include <vbox.h>

#include <errno.h>

#include "auth.h"
#include "bbuf.h"
#include "compat.h"
#include "pconn.h"
#include "socksmsg.h"

enum { SK_GREET, SK_AUTH, SK_REQ, SK_DONE };

static void consume(struct pconn *pc, size_t n)
{
	memmove(pc->in, pc->in + n, pc->inlen - n);
	pc->inlen -= n;
}

static void socks_refuse(struct pconn *pc, int code)
{
	char r[10] = { 5, (char)code, 0, 1 };

	pc_reply(pc, r, sizeof(r), AFTER_CLOSE);
}

static void socks_established(struct pconn *pc)
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
	const char *why = NULL;
	bool userpass = false;
	size_t used = 0;

	switch (socks_greeting(pc->in, pc->inlen, &used, &userpass, &why)) {
	case SOCKS_MORE:
		return false;
	case SOCKS_FAIL:
		pc_abort(pc, why);
		return false;
	case SOCKS_DONE:
		break;
	default:
		BUG("bad socks_greeting result");
	}
	if (!userpass) {
		pc_log(pc, "client offers no username/password method");
		pc_reply(pc, "\x05\xff", 2, AFTER_CLOSE);
		return false;
	}
	consume(pc, used);
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
	const unsigned char *user = NULL, *pass = NULL;
	const char *why = NULL;
	size_t used = 0, ul = 0, pl = 0;
	enum socks_res rc;

	rc = socks_auth(pc->in, pc->inlen, &used, &user, &ul, &pass, &pl,
			&why);
	if (rc == SOCKS_MORE)
		return false;
	if (rc != SOCKS_DONE ||
	    !auth_pair_ok(user, ul, pass, pl, pc->px->token[PROXY_SOCKS5])) {
		pc_log(pc, "bad credentials");
		pc_reply(pc, "\x01\x01", 2, AFTER_CLOSE);
		return false;
	}
	consume(pc, used);
	pc->socks_state = SK_REQ;
	if (send(pc->cfd, "\x01\x00", 2, MSG_NOSIGNAL) != 2) {
		pc_abort(pc, "cannot answer the authentication");
		return false;
	}
	return true;
}

static void request(struct pconn *pc)
{
	struct socks_req r;
	struct bbuf what;

	switch (socks_request(pc->in, pc->inlen, &r)) {
	case SOCKS_MORE:
		return;
	case SOCKS_FAIL:
		if (!r.reply) {
			pc_abort(pc, r.why);
			return;
		}
		pc_log(pc, "%s (command %u, address type %u): reply %u", r.why,
		       r.cmd, r.atyp, r.reply);
		socks_refuse(pc, (int)r.reply);
		return;
	case SOCKS_DONE:
		break;
	default:
		BUG("bad socks_request result");
	}
	consume(pc, r.used);
	pc->socks_state = SK_DONE;
	pc->tunnel = true;
	/* the target is printable ASCII and fits (socksmsg.h) */
	_Static_assert(sizeof(pc->what) >= sizeof("CONNECT ") +
						   SOCKS_HOSTPORT_MAX,
		       "pconn.what holds a SOCKS5 target");
	bbuf_init_fixed(&what, pc->what, sizeof(pc->what));
	bbuf_printf(&what, "CONNECT %s", r.hostport);
	if (!bbuf_ok(&what)) {
		pc_abort(pc, "target too long");
		return;
	}
	pc_go(pc, r.hostport);
}

static void socks_on_request(struct pconn *pc)
{
	if (pc->socks_state == SK_GREET && !greet(pc))
		return;
	if (pc->socks_state == SK_AUTH && !authenticate(pc))
		return;
	if (pc->socks_state == SK_REQ)
		request(pc);
}

/* ---- the operations of a SOCKS5 connection (pconn.h) ----------------- */

static void ops_refuse(struct pconn *pc, enum pc_fail f, const char *text)
{
	int code;

	(void)text;	/* a SOCKS5 reply has a code only */
	switch (f) {
	case FAIL_DENIED:
		code = 2;
		break;
	case FAIL_TARGET:
		code = 1;
		break;
	case FAIL_RESOLVE:
		code = 4;
		break;
	case FAIL_CONNECT:
		code = pc->err == ECONNREFUSED	 ? 5 :
		       pc->err == ENETUNREACH ? 3 :
						4;
		break;
	case FAIL_UPSTREAM:
		code = pc->hs && pc->hs->reply ? pc->hs->reply : 1;
		break;
	case FAIL_TIMEOUT:
		code = 6;
		break;
	case FAIL_RESOURCE:
		code = 1;
		break;
	default:
		BUG("bad failure %d", (int)f);
	}
	socks_refuse(pc, code);
}

static void ops_deny(struct pconn *pc, const struct verdict *v,
		     const char *addr, const char *body)
{
	(void)v;
	(void)addr;
	ops_refuse(pc, FAIL_DENIED, body);
}

static void ops_established(struct pconn *pc, const unsigned char *extra,
			    size_t n)
{
	/* the tunnel's stores, before it is answered */
	if (relay_ready(pc) < 0)
		return;
	socks_established(pc);
	relay_start(pc, extra, n);
}

const struct pc_ops socks_ops = {
	.on_request = socks_on_request,
	.refuse = ops_refuse,
	.deny = ops_deny,
	.established = ops_established,
	.events = relay_events,
	.pump = relay_pump,
	.release = relay_free,
};
