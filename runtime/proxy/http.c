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
#include "compat.h"
#include "httpmsg.h"
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

void http_fwd_free(struct pconn *pc)
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
	case 504:
		return "Gateway Timeout";
	default:
		return "Error";
	}
}

static void refuse(struct pconn *pc, int status, const char *body,
		   bool keep)
{
	char *msg;

	msg = xasprintf("HTTP/1.1 %d %s\r\n%s"
			"Content-Type: text/plain\r\n"
			"Content-Length: %zu\r\n%s\r\nvbox: %s\n",
			status, reason(status),
			status == 407 ?
				"Proxy-Authenticate: Basic realm=\"vbox\"\r\n" :
				"",
			strlen(body) + 7, keep ? "" : "Connection: close\r\n",
			body);
	http_fwd_free(pc);
	pc_reply(pc, msg, strlen(msg), keep ? AFTER_READ : AFTER_CLOSE);
	free(msg);
}

void http_refuse(struct pconn *pc, int status, const char *body)
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
	refuse(pc, status, body, keep);
}

static bool dropped(const struct http_field *f)
{
	static const char *const names[] = {
		"host",	      "proxy-authorization", "proxy-connection",
		"connection", "keep-alive",	     "upgrade",
		"te",
	};
	size_t i;

	for (i = 0; i < array_size(names); i++)
		if (http_field_is(f, names[i]))
			return true;
	return false;
}

/*
 * absolute - split an absolute-form target "http://AUTH/PATH".  Returns
 * 0, or -1 with *@why.
 */
static int absolute(const char *t, size_t n, const char **auth,
		    size_t *alen, const char **path, size_t *plen,
		    const char **why)
{
	size_t i;

	if (n < 8 || strncasecmp(t, "http://", 7)) {
		*why = n && t[0] == '/' ?
			       "not a proxy request (origin-form target)" :
			       "only http:// targets (use CONNECT for TLS)";
		return -1;
	}
	if (memchr(t, '#', n)) {
		*why = "fragment in request target";
		return -1;
	}
	for (i = 7; i < n && t[i] != '/' && t[i] != '?'; i++)
		;
	*auth = t + 7;
	*alen = i - 7;
	if (!*alen || memchr(*auth, '@', *alen)) {
		*why = "bad authority in request target";
		return -1;
	}
	*path = t + i;
	*plen = n - i;
	return 0;
}

/* authority_hostport - "host:port" for judging, port 80 by default */
static void authority_hostport(const char *a, size_t n, char *out,
			       size_t size)
{
	const char *rb = memchr(a, ']', n);
	const char *colon = NULL;
	size_t i;

	for (i = rb ? (size_t)(rb - a) : 0; i < n; i++)
		if (a[i] == ':')
			colon = a + i;
	if (colon && colon + 1 < a + n)
		snprintf(out, size, "%.*s", (int)n, a);
	else
		snprintf(out, size, "%.*s:80",
			 (int)(colon ? (size_t)(colon - a) : n), a);
}

static char *rewrite_request(struct pconn *pc, const struct http_head *h,
			     const char *auth, size_t alen, const char *path,
			     size_t plen)
{
	const struct upstream *up = pc->px->up;
	bool abs = up && up->kind == UP_HTTP;
	size_t cap = h->len + alen + 256, n = 0, i;
	char *o = xmalloc(cap + (up && up->basic ? strlen(up->basic) : 0));
	int k;

	n += (size_t)sprintf(o + n, "%.*s ", (int)h->mlen, h->method);
	if (abs)
		n += (size_t)sprintf(o + n, "http://%.*s", (int)alen, auth);
	if (plen == 0 || path[0] == '?')
		o[n++] = '/';
	memcpy(o + n, path, plen);
	n += plen;
	n += (size_t)sprintf(o + n, " HTTP/1.%d\r\n", h->minor);
	for (i = 0; i < h->nfields; i++) {
		const struct http_field *f = &h->fields[i];

		if (dropped(f))
			continue;
		memcpy(o + n, f->name, f->nlen);
		n += f->nlen;
		o[n++] = ':';
		o[n++] = ' ';
		memcpy(o + n, f->val, f->vlen);
		n += f->vlen;
		o[n++] = '\r';
		o[n++] = '\n';
	}
	k = sprintf(o + n, "Host: %.*s\r\nConnection: close\r\n", (int)alen,
		    auth);
	n += (size_t)k;
	if (abs && up->basic)
		n += (size_t)sprintf(o + n, "Proxy-Authorization: %s\r\n",
				     up->basic);
	o[n++] = '\r';
	o[n++] = '\n';
	o[n] = '\0';
	return o;
}

void http_on_request(struct pconn *pc)
{
	struct http_head h;
	const struct http_field *authz = NULL;
	const char *why = NULL, *auth, *path;
	char hostport[300];
	size_t alen, plen, i;
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
	if (pc->tunnel) {
		snprintf(pc->what, sizeof(pc->what), "CONNECT %.*s",
			 (int)(h.tlen > 260 ? 260 : h.tlen), h.target);
		if (hf->req.kind != BODY_NONE) {
			refuse(pc, 400, "CONNECT with a body", false);
			return;
		}
	} else {
		snprintf(pc->what, sizeof(pc->what), "%.*s %.*s",
			 (int)(h.mlen > 20 ? 20 : h.mlen), h.method,
			 (int)(h.tlen > 260 ? 260 : h.tlen), h.target);
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
		if (h.tlen >= sizeof(hostport)) {
			refuse(pc, 400, "target too long", false);
			return;
		}
		snprintf(hostport, sizeof(hostport), "%.*s", (int)h.tlen,
			 h.target);
	} else {
		if (absolute(h.target, h.tlen, &auth, &alen, &path, &plen,
			     &why) != 0 ||
		    alen >= 260) {
			pc_log(pc, "%s: bad request: %s", pc->what,
			       why ? why : "authority too long");
			refuse(pc, 400, why ? why : "authority too long",
			       false);
			return;
		}
		authority_hostport(auth, alen, hostport, sizeof(hostport));
		hf->head_req = h.mlen == 4 && !memcmp(h.method, "HEAD", 4);
		hf->uhead = rewrite_request(pc, &h, auth, alen, path, plen);
		hf->uhlen = strlen(hf->uhead);
	}
	memmove(pc->in, pc->in + h.len, pc->inlen - h.len);
	pc->inlen -= h.len;
	pc_go(pc, hostport);
}

void http_established(struct pconn *pc)
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

static char *rewrite_response(const struct http_head *h, const char *raw,
			      bool close, size_t *len)
{
	size_t n = 0, i, eol;
	char *o = xmalloc(h->len + 32);

	eol = (size_t)((const char *)memchr(raw, '\n', h->len) - raw) + 1;
	memcpy(o, raw, eol);
	n = eol;
	for (i = 0; i < h->nfields; i++) {
		const struct http_field *f = &h->fields[i];

		if (http_field_is(f, "connection") ||
		    http_field_is(f, "keep-alive") ||
		    http_field_is(f, "proxy-connection"))
			continue;
		memcpy(o + n, f->name, f->nlen);
		n += f->nlen;
		o[n++] = ':';
		o[n++] = ' ';
		memcpy(o + n, f->val, f->vlen);
		n += f->vlen;
		o[n++] = '\r';
		o[n++] = '\n';
	}
	if (close) {
		memcpy(o + n, "Connection: close\r\n", 19);
		n += 19;
	}
	o[n++] = '\r';
	o[n++] = '\n';
	*len = n;
	return o;
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
	hf->chead = rewrite_response(&h, (const char *)hf->r,
				     hf->resp_head && hf->close, &hf->chlen);
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

void http_fwd_pump(struct pconn *pc)
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

void http_fwd_events(struct pconn *pc, uint32_t *cev, uint32_t *uev)
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
