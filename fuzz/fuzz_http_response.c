/* SPDX-License-Identifier: MIT */
/*
 * fuzz_http_response.c - libFuzzer target for a response head as
 * vbox-proxy reads it from an origin (runtime/proxy/httpmsg.c): the head,
 * its body framing, its rewrite for the client (http_rewrite_response,
 * whose hand-sized buffer was issue 20's heap overflow) and the body
 * bytes after it.  The rewrite must stay in its limit and parse again as
 * the same response.
 *
 * The first byte chooses: bit 0 the request was HEAD, bit 1 the client
 * connection closes after it.  Seeds: fuzz/seeds/http_response/.
 */
#include <vbox.h>

#include "httpmsg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data + 1, *why;
	struct http_head h, again;
	struct body b;
	bool head_req, close;
	size_t n, len;
	char *o;
	int rc;

	if (size < 1)
		return 0;
	head_req = data[0] & 1;
	close = data[0] & 2;
	n = size - 1;
	rc = http_head_parse(buf, n, true, &h, &why);
	if (rc < 0 && !why)
		BUG("a refused head without a reason");
	if (rc != 1)
		return 0;
	if (h.len > n || h.status < 100 || h.status > 599)
		BUG("head of %zu bytes, status %d", h.len, h.status);
	if (http_response_body(&h, head_req, &b, &why) == 0 && h.len < n) {
		ssize_t k = body_feed(&b, buf + h.len, n - h.len);

		if (k > (ssize_t)(n - h.len) || k < -1)
			BUG("body_feed took %zd of %zu", k, n - h.len);
	}
	o = http_rewrite_response(&h, buf, close, &len);
	if (!o)
		return 0;
	if (len > HTTP_REWRITE_MAX || strlen(o) != len)
		BUG("a rewritten response of %zu bytes", len);
	if (h.nfields + 1 <= HTTP_MAX_HEADERS) {
		rc = http_head_parse(o, len, true, &again, &why);
		if (rc != 1 || again.len != len || again.status != h.status)
			BUG("the rewritten response does not parse (%d, %s)",
			    rc, why ? why : "-");
	}
	free(o);
	return 0;
}
