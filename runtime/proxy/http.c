/* SPDX-License-Identifier: MIT */
/*
 * http.c - the HTTP endpoint (pconn.h): CONNECT tunnels, and
 * absolute-form plain HTTP forwarded one exchange at a time.
 *
 * Each request on a kept-alive connection is judged by itself.  A plain
 * request goes to its own outbound connection ("Connection: close"), its
 * body is delimited exactly (httpmsg.h) and the response is delimited
 * exactly too, so bytes after a request can never reach the origin of
 * that request, and bytes after a response can never reach the client as
 * the answer to its next request: the next request is read only once the
 * current exchange is over, and then judged again.
 */
#include <vbox.h>

#include <errno.h>
#include <stdio.h>
#include <strings.h>
#include <sys/socket.h>

#include "auth.h"
#include "bbuf.h"
#include "compat.h"
#include "httpmsg.h"
#include "judge.h"
#include "pconn.h"

/* Upstream bytes held while a response is framed. */
#define HF_RCAP 65536

/**
 * struct hfwd - one plain HTTP exchange
 * @req: the request body
 * @resp: the response body
 * @head_req: the request is HEAD
 * @close: close the client connection after this exchange
 * @uhead, @uhlen, @uhoff: the rewritten request head for the origin
 * @req_ok: bytes at the front of pc->in that are checked request body
 * @r, @rlen: bytes from the origin not yet passed on
 * @resp_head: the final response head was passed on
 * @chead, @chlen, @choff: a rewritten response head for the client
 * @resp_ok: bytes at the front of @r that are checked response body
 * @up_eof: the origin closed
 * @sent: something went to the client already
 */
struct hfwd {
	struct body req;
	struct body resp;
	bool head_req;
	bool close;
	char *uhead;
	size_t uhlen, uhoff;
	size_t req_ok;
	unsigned char *r;
	size_t rlen;
	bool resp_head;
	char *chead;
	size_t chlen, choff;
	size_t resp_ok;
	bool up_eof;
	bool sent;
};

static void http_fwd_free(struct pconn *pc)
{
	struct hfwd *hf = pc->hf;

	if (!hf)
		return;
	free(hf->uhead);
	free(hf->r);
	free(hf->chead);
	free(hf);
	pc->hf = NULL;
}

static const char *reason(int status)
{
	switch (status) {
	case 400:
		return "Bad Request";
	case 403:
		return "Forbidden";
	case 407:
		return "Proxy Authentication Required";
	case 431:
		return "Request Header Fields Too Large";
	case 502:
		return "Bad Gateway";
	case 503:
		return "Service Unavailable";
	case 504:
		return "Gateway Timeout";
	default:
		return "Error";
	}
}

/*
 * refuse_why - the reply: @phrase (printable, from verdict_phrase()) as the
 * reason phrase where clients print it, else the standard one; and
 * "X-Vbox-Decision: @decision" when given.
 */
static void refuse_why(struct pconn *pc, int status, const char *body,
		       bool keep, const char *phrase, const char *decision)
{
	char *msg;

	if (!phrase && status == 407)
		phrase = "vbox: proxy credentials required (the token in "
			 "HTTP_PROXY)";
	msg = xasprintf("HTTP/1.1 %d %s\r\n%s%s%s%s"
			"Content-Type: text/plain\r\n"
			"Content-Length: %zu\r\n%s\r\nvbox: %s\n",
			status, phrase ? phrase : reason(status),
			status == 407 ?
				"Proxy-Authenticate: Basic realm=\"vbox\"\r\n" :
				"",
			decision ? "X-Vbox-Decision: " : "",
			decision ? decision : "", decision ? "\r\n" : "",
			strlen(body) + 7, keep ? "" : "Connection: close\r\n",
			body);
	http_fwd_free(pc);
	pc_reply(pc, msg, strlen(msg), keep ? AFTER_READ : AFTER_CLOSE);
	free(msg);
}

static void refuse(struct pconn *pc, int status, const char *body,
		   bool keep)
{
	refuse_why(pc, status, body, keep, NULL, NULL);
}

static void refuse_kept(struct pconn *pc, int status, const char *body,
			const char *phrase, const char *decision)
{
	bool keep = false;

	/* keep the connection only when nothing of this request is left
	 * unread and the client did not ask to close */
	if (status == 403 || status == 407) {
		if (pc->tunnel)
			keep = !pc->hf || !pc->hf->close;
		else
			keep = pc->hf && pc->hf->req.done && !pc->hf->close;
	}
	if (pc->hf && pc->hf->sent) {
		pc_abort(pc, body);
		return;
	}
	refuse_why(pc, status, body, keep, phrase, decision);
}

static void http_refuse(struct pconn *pc, int status, const char *body)
{
	refuse_kept(pc, status, body, NULL, NULL);
}

static void http_deny(struct pconn *pc, const char *body, const char *phrase,
	       const char *decision)
{
	refuse_kept(pc, 403, body, phrase, decision);
}

/*
 * set_what - the request as log lines name it, in pc->what: printable,
 * and marked with "..." where it was cut to fit.
 */
static void set_what(struct pconn *pc, const struct http_head *h)
{
	struct bbuf b;

	bbuf_init_heap(&b, sizeof(pc->what) - 4);
	bbuf_put_printable(&b, h->method, h->mlen);
	bbuf_putc(&b, ' ');
	bbuf_put_printable(&b, h->target, h->tlen);
	memcpy(pc->what, b.s, b.len + 1);
	if (!bbuf_ok(&b))
		memcpy(pc->what + b.len, "...", 4);
	bbuf_free(&b);
}

static void http_on_request(struct pconn *pc)
{
	struct http_head h;
	const struct http_field *authz = NULL;
	const char *why = NULL, *auth = NULL, *path = NULL;
	char *hostport;
	size_t alen = 0, plen = 0, i;
	bool conn_close = false;
	struct hfwd *hf;
	int rc;

	rc = http_head_parse((const char *)pc->in, pc->inlen, false, &h, &why);
	if (rc == 0) {
		if (pc->inlen >= PC_HEAD_MAX)
			refuse(pc, 431, "request head too large", false);
		return;
	}
	if (rc < 0 || h.len > PC_HEAD_MAX) {
		pc_log(pc, "bad request: %s", why ? why : "head too large");
		refuse(pc, 400, why ? why : "request head too large", false);
		return;
	}
	for (i = 0; i < h.nfields; i++) {
		const struct http_field *f = &h.fields[i];

		if (http_field_is(f, "proxy-authorization")) {
			if (authz) {
				refuse(pc, 400, "several credentials", false);
				return;
			}
			authz = f;
		}
		if ((http_field_is(f, "connection") ||
		     http_field_is(f, "proxy-connection")) &&
		    http_token_in(f->val, f->vlen, "close"))
			conn_close = true;
	}
	hf = xcalloc(1, sizeof(*hf));
	pc->hf = hf;
	hf->close = conn_close || h.minor == 0;
	if (http_request_body(&h, &hf->req, &why) != 0) {
		pc_log(pc, "bad request: %s", why);
		refuse(pc, 400, why, false);
		return;
	}
	pc->tunnel = h.mlen == 7 && !memcmp(h.method, "CONNECT", 7);
	set_what(pc, &h);
	if (pc->tunnel && hf->req.kind != BODY_NONE) {
		refuse(pc, 400, "CONNECT with a body", false);
		return;
	}
	if (!authz || !auth_basic_ok(authz->val, authz->vlen,
				     pc->px->token[PROXY_HTTP])) {
		pc_log(pc, "%s: %s proxy credentials", pc->what,
		       authz ? "wrong" : "no");
		memmove(pc->in, pc->in + h.len, pc->inlen - h.len);
		pc->inlen -= h.len;
		http_refuse(pc, 407, "proxy credentials required");
		return;
	}
	if (pc->tunnel) {
		hostport = http_hostport(h.target, h.tlen, 0, &why);
	} else {
		hostport = NULL;
		if (http_absolute_target(h.target, h.tlen, &auth, &alen, &path,
					 &plen, &why) == 0) {
			if (alen >= 260)
				why = "authority too long";
			else
				hostport = http_hostport(auth, alen, 80, &why);
		}
	}
	if (!hostport) {
		pc_log(pc, "%s: bad request: %s", pc->what, why);
		refuse(pc, 400, why, false);
		return;
	}
	if (!pc->tunnel) {
		const struct upstream *up = pc->px->up;
		bool abs = up && up->kind == UP_HTTP;

		hf->head_req = h.mlen == 4 && !memcmp(h.method, "HEAD", 4);
		hf->uhead = http_rewrite_request(&h, auth, alen, path, plen,
						 abs, abs ? up->basic : NULL,
						 &hf->uhlen);
		if (!hf->uhead) {
			pc_log(pc, "%s: bad request: the head for the origin "
				   "would pass %d bytes",
			       pc->what, HTTP_REWRITE_MAX);
			free(hostport);
			refuse(pc, 431, "request head too large", false);
			return;
		}
	}
	memmove(pc->in, pc->in + h.len, pc->inlen - h.len);
	pc->inlen -= h.len;
	pc_go(pc, hostport);
	free(hostport);
}

static void http_fwd_pump(struct pconn *pc);

static void http_established(struct pconn *pc)
{
	static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";

	if (pc->tunnel) {
		http_fwd_free(pc);
		free(pc->out);
		pc->out = xmalloc(sizeof(ok) - 1);
		memcpy(pc->out, ok, sizeof(ok) - 1);
		pc->outlen = sizeof(ok) - 1;
		pc->outoff = 0;
		return;
	}
	pc->hf->r = xmalloc(HF_RCAP);
	pc->state = PC_HTTP;
	http_fwd_pump(pc);
}

/* ---- forwarding ---------------------------------------------------- */

/* xsend - send; the count, 0 on EAGAIN, -1 on error */
static ssize_t xsend(int fd, const void *p, size_t n)
{
	ssize_t k;

	do
		k = send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
	while (k < 0 && errno == EINTR);
	if (k < 0 && errno == EAGAIN)
		return 0;
	return k;
}

static ssize_t xrecv(int fd, void *p, size_t n)
{
	ssize_t k;

	do
		k = recv(fd, p, n, MSG_DONTWAIT);
	while (k < 0 && errno == EINTR);
	if (k < 0 && errno == EAGAIN)
		return -2;
	return k;
}

/* response_head - frame the next response head in hf->r; -1: @pc gone */
static int response_head(struct pconn *pc)
{
	struct hfwd *hf = pc->hf;
	struct http_head h;
	const char *why = NULL;
	int rc;

	rc = http_head_parse((const char *)hf->r, hf->rlen, true, &h, &why);
	if (rc == 0) {
		if (hf->rlen == HF_RCAP || hf->up_eof) {
			pc_log(pc, "%s: %s", pc->what,
			       hf->up_eof ? "the origin closed early" :
					    "response head too large");
			http_refuse(pc, 502, "bad response from the origin");
			return -1;
		}
		return 0;
	}
	if (rc < 0 || h.status == 101) {
		pc_log(pc, "%s: bad response: %s", pc->what,
		       why ? why : "protocol switch refused");
		http_refuse(pc, 502, "bad response from the origin");
		return -1;
	}
	if (h.status / 100 != 1) {
		if (http_response_body(&h, hf->head_req, &hf->resp, &why) !=
		    0) {
			pc_log(pc, "%s: bad response: %s", pc->what, why);
			http_refuse(pc, 502, "bad response from the origin");
			return -1;
		}
		if (hf->resp.kind == BODY_CLOSE)
			hf->close = true;
		hf->resp_head = true;
	}
	free(hf->chead);
	hf->chead = http_rewrite_response(&h, (const char *)hf->r,
					  hf->resp_head && hf->close,
					  &hf->chlen);
	if (!hf->chead) {
		hf->chlen = 0;
		pc_log(pc, "%s: bad response: the head for the client would "
			   "pass %d bytes", pc->what, HTTP_REWRITE_MAX);
		http_refuse(pc, 502, "bad response from the origin");
		return -1;
	}
	hf->choff = 0;
	memmove(hf->r, hf->r + h.len, hf->rlen - h.len);
	hf->rlen -= h.len;
	return 1;
}

static void exchange_done(struct pconn *pc)
{
	struct hfwd *hf = pc->hf;
	bool close = hf->close || !hf->req.done;

	pc_close_upstream(pc);
	http_fwd_free(pc);
	if (close) {
		/* nothing more on this connection: drain and close */
		pc_reply(pc, "", 0, AFTER_CLOSE);
		return;
	}
	pc_read_next(pc);
}

static void http_fwd_pump(struct pconn *pc)
{
	struct hfwd *hf = pc->hf;
	int round;
	ssize_t n;

	pc_touch(pc);
	for (round = 0; round < 16; round++) {
		bool progress = false;

		/* client -> origin: the head, then checked body bytes */
		if (hf->uhoff < hf->uhlen) {
			n = xsend(pc->ufd, hf->uhead + hf->uhoff,
				  hf->uhlen - hf->uhoff);
			if (n < 0)
				goto broken;
			hf->uhoff += (size_t)n;
			progress = n > 0;
		} else {
			if (hf->req_ok < pc->inlen && !hf->req.done) {
				n = body_feed(&hf->req, (char *)pc->in +
							       hf->req_ok,
					      pc->inlen - hf->req_ok);
				if (n < 0) {
					pc_abort(pc, "bad request body framing");
					return;
				}
				hf->req_ok += (size_t)n;
			}
			if (hf->req_ok) {
				n = xsend(pc->ufd, pc->in, hf->req_ok);
				if (n < 0)
					goto broken;
				memmove(pc->in, pc->in + n,
					pc->inlen - (size_t)n);
				pc->inlen -= (size_t)n;
				hf->req_ok -= (size_t)n;
				progress = n > 0;
			}
			if (!hf->req.done && pc->inlen < PC_IN_CAP &&
			    hf->req_ok == pc->inlen) {
				n = xrecv(pc->cfd, pc->in + pc->inlen,
					  PC_IN_CAP - pc->inlen);
				if (n == 0 || n == -1) {
					pc_abort(pc, "the client left inside "
						     "a request body");
					return;
				}
				if (n > 0) {
					pc->inlen += (size_t)n;
					progress = true;
				}
			}
		}
		/* origin -> client: heads rewritten, body bytes checked */
		if (hf->choff < hf->chlen) {
			n = xsend(pc->cfd, hf->chead + hf->choff,
				  hf->chlen - hf->choff);
			if (n < 0)
				goto gone;
			hf->choff += (size_t)n;
			hf->sent = true;
			progress = progress || n > 0;
			if (hf->choff < hf->chlen)
				goto next;
		}
		if (!hf->resp_head && hf->rlen) {
			int rc = response_head(pc);

			if (rc < 0)
				return;
			if (rc > 0) {
				progress = true;
				goto next;
			}
		}
		if (hf->resp_head && hf->resp_ok < hf->rlen &&
		    !hf->resp.done) {
			n = body_feed(&hf->resp, (char *)hf->r + hf->resp_ok,
				      hf->rlen - hf->resp_ok);
			if (n < 0) {
				pc_abort(pc, "bad response body framing");
				return;
			}
			hf->resp_ok += (size_t)n;
		}
		if (hf->resp_ok) {
			n = xsend(pc->cfd, hf->r, hf->resp_ok);
			if (n < 0)
				goto gone;
			memmove(hf->r, hf->r + n, hf->rlen - (size_t)n);
			hf->rlen -= (size_t)n;
			hf->resp_ok -= (size_t)n;
			hf->sent = true;
			progress = progress || n > 0;
		}
		if (hf->resp_head && hf->resp.done && !hf->resp_ok &&
		    hf->choff == hf->chlen) {
			if (hf->rlen)
				hf->close = true;	/* bytes past the end */
			exchange_done(pc);
			return;
		}
		if (!hf->up_eof && hf->rlen < HF_RCAP &&
		    !(hf->resp_head && hf->resp.done)) {
			n = xrecv(pc->ufd, hf->r + hf->rlen,
				  HF_RCAP - hf->rlen);
			if (n == -1)
				goto broken;
			if (n == 0) {
				hf->up_eof = true;
				progress = true;
				if (hf->resp_head &&
				    hf->resp.kind == BODY_CLOSE) {
					hf->resp.done = true;
				} else if (hf->resp_head) {
					pc_abort(pc, "the origin closed "
						     "inside a response");
					return;
				} else if (!hf->rlen) {
					pc_log(pc, "%s: the origin closed "
						   "without a response",
					       pc->what);
					http_refuse(pc, 502, "empty response "
							     "from the origin");
					return;
				}
			}
			if (n > 0) {
				hf->rlen += (size_t)n;
				progress = true;
			}
		}
next:
		if (!progress)
			break;
	}
	pc_events(pc);
	return;
broken:
	if (!hf->sent) {
		pc_log(pc, "%s: the origin failed: %s", pc->what,
		       strerror(errno));
		http_refuse(pc, 502, "the origin failed");
		return;
	}
	pc_abort(pc, strerror(errno));
	return;
gone:
	pc_abort(pc, "the client went away");
}

static void http_fwd_events(struct pconn *pc, uint32_t *cev, uint32_t *uev)
{
	struct hfwd *hf = pc->hf;

	*cev = 0;
	*uev = 0;
	if (!hf)
		return;
	/* bytes read but not yet framed count as pending: a pump round
	 * may end right after a read */
	if (hf->uhoff < hf->uhlen || hf->req_ok ||
	    (!hf->req.done && pc->inlen > hf->req_ok))
		*uev |= LOOP_OUT;
	else if (!hf->req.done && pc->inlen < PC_IN_CAP)
		*cev |= LOOP_IN;
	if (hf->choff < hf->chlen || (hf->resp_head && hf->rlen))
		*cev |= LOOP_OUT;
	else if (!hf->up_eof && hf->rlen < HF_RCAP &&
		 !(hf->resp_head && hf->resp.done))
		*uev |= LOOP_IN;
}

/* ---- the operations of an HTTP connection (pconn.h) ------------------ */

static void ops_refuse(struct pconn *pc, enum pc_fail f, const char *text)
{
	static const int status[] = {
		[FAIL_DENIED] = 403, [FAIL_TARGET] = 400,
		[FAIL_RESOLVE] = 502, [FAIL_CONNECT] = 502,
		[FAIL_UPSTREAM] = 502, [FAIL_TIMEOUT] = 504,
		[FAIL_RESOURCE] = 503,
	};

	http_refuse(pc, status[f], text);
}

/* A 403 with the decision in its reason phrase and X-Vbox-Decision. */
static void ops_deny(struct pconn *pc, const struct verdict *v,
		     const char *addr, const char *body)
{
	const struct judge *j = pc->px->judge;
	struct bbuf phrase, hdr;

	bbuf_init_heap(&phrase, PC_TEXT_MAX);
	verdict_phrase(j, v, addr, &phrase);
	bbuf_init_heap(&hdr, PC_TEXT_MAX);
	verdict_header(j, v, addr, &hdr);
	/* bounded by VERDICT_SOURCE_MAX: whole, or not sent */
	http_deny(pc, body, bbuf_ok(&phrase) ? phrase.s : NULL,
		  bbuf_ok(&hdr) ? hdr.s : NULL);
	bbuf_free(&phrase);
	bbuf_free(&hdr);
}

static void ops_established(struct pconn *pc, const unsigned char *extra,
			    size_t n)
{
	if (!pc->tunnel) {
		http_established(pc);
		return;
	}
	/* the tunnel's stores, before it is answered */
	if (relay_ready(pc) < 0)
		return;
	http_established(pc);
	relay_start(pc, extra, n);
}

static void ops_events(struct pconn *pc, uint32_t *cev, uint32_t *uev)
{
	if (pc->state == PC_TUNNEL)
		relay_events(pc, cev, uev);
	else
		http_fwd_events(pc, cev, uev);
}

static void ops_pump(struct pconn *pc)
{
	if (pc->state == PC_TUNNEL)
		relay_pump(pc);
	else
		http_fwd_pump(pc);
}

static void ops_release(struct pconn *pc)
{
	relay_free(pc);
	http_fwd_free(pc);
}

const struct pc_ops http_ops = {
	.on_request = http_on_request,
	.refuse = ops_refuse,
	.deny = ops_deny,
	.established = ops_established,
	.events = ops_events,
	.pump = ops_pump,
	.release = ops_release,
};
