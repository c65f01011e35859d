/* SPDX-License-Identifier: MIT */
/*
 * fuzz_http_request.c - libFuzzer target for a request head as vbox-proxy
 * reads it from the sandbox (runtime/proxy/httpmsg.c): http_head_parse()
 * for a request, the body framing decision, the absolute-form target
 * split and the host:port to judge (then net_query_parse(), as pc_go()
 * does), and the head rewritten for the origin or an HTTP upstream, which
 * must parse again as the same request.
 *
 * Seeds: fuzz/seeds/http_request/ (curl, git, pip and npm style requests,
 * CONNECT, bodies by length and chunked).
 */
#include <vbox.h>

#include "httpmsg.h"
#include "netaddr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void judge_target(const char *a, size_t n, unsigned defport)
{
	struct net_target q;
	const char *why = NULL;
	char *hp, *err = NULL;

	hp = http_hostport(a, n, defport, &why);
	if (!hp) {
		if (!why)
			BUG("http_hostport failed without a reason");
		return;
	}
	if (strlen(hp) > HTTP_TARGET_MAX + 6)
		BUG("host:port of %zu bytes", strlen(hp));
	if (net_query_parse(hp, &q, &err) == 0)
		net_target_free(&q);
	free(err);
	free(hp);
}

static void rewrite(const struct http_head *h, const char *auth,
		    size_t alen, const char *path, size_t plen, bool abs)
{
	struct http_head again;
	const char *why;
	size_t len;
	char *o;
	int rc;

	o = http_rewrite_request(h, auth, alen, path, plen, abs,
				 abs ? "Basic dXNlcjpwYXNz" : NULL, &len);
	if (!o)
		return;
	if (len > HTTP_REWRITE_MAX || strlen(o) != len)
		BUG("a rewritten request of %zu bytes", len);
	/* the fields kept, Host and Connection (and credentials) */
	if (h->nfields + 3 <= HTTP_MAX_HEADERS) {
		rc = http_head_parse(o, len, false, &again, &why);
		if (rc != 1 || again.len != len || again.mlen != h->mlen ||
		    again.minor != h->minor)
			BUG("the rewritten request does not parse (%d, %s)",
			    rc, why ? why : "-");
	}
	free(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data, *why, *auth, *path;
	struct http_head h;
	struct body b;
	size_t alen, plen;
	int rc;

	rc = http_head_parse(buf, size, false, &h, &why);
	if (rc < 0 && !why)
		BUG("a refused head without a reason");
	if (rc != 1)
		return 0;
	if (h.len > size || h.nfields > HTTP_MAX_HEADERS)
		BUG("head of %zu bytes, %zu fields", h.len, h.nfields);
	if (http_request_body(&h, &b, &why) == 0 && h.len < size)
		(void)body_feed(&b, buf + h.len, size - h.len);
	if (h.mlen == 7 && !memcmp(h.method, "CONNECT", 7)) {
		judge_target(h.target, h.tlen, 0);
		return 0;
	}
	if (http_absolute_target(h.target, h.tlen, &auth, &alen, &path, &plen,
				 &why) != 0)
		return 0;
	if (auth + alen > h.target + h.tlen || path + plen != h.target + h.tlen)
		BUG("the target split leaves the target");
	judge_target(auth, alen, 80);
	rewrite(&h, auth, alen, path, plen, false);
	rewrite(&h, auth, alen, path, plen, true);
	return 0;
}
