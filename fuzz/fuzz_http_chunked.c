/* SPDX-License-Identifier: MIT */
/*
 * fuzz_http_chunked.c - libFuzzer target for vbox-proxy's body framing
 * state machine (runtime/proxy/httpmsg.c, body_feed): chunked bodies with
 * extensions and trailers, and bodies by length.  The bytes arrive in
 * pieces as the network cuts them; however they are cut, the body must
 * end at the same byte, or be refused the same way, as when they come at
 * once.
 *
 * The first byte chooses the framing (bit 0: by length, the next 4 bytes
 * little-endian being the length) and the second seeds the cuts.  Seeds:
 * fuzz/seeds/http_chunked/.
 */
#include <vbox.h>

#include "httpmsg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void start(struct body *b, const uint8_t *data)
{
	memset(b, 0, sizeof(*b));
	if (data[0] & 1) {
		b->kind = BODY_LENGTH;
		b->left = (uint64_t)data[2] | (uint64_t)data[3] << 8 |
			  (uint64_t)data[4] << 16 | (uint64_t)data[5] << 24;
		b->done = b->left == 0;
	} else {
		b->kind = BODY_CHUNKED;
	}
}

/* feed - how many bytes belong to the body (-1: refused) */
static ssize_t feed(struct body *b, const char *p, size_t n, unsigned cut)
{
	size_t off = 0;

	while (off < n && !b->done) {
		size_t piece = cut ? 1 + (off * 7 + cut) % (cut + 1) : n - off;
		ssize_t k;

		if (piece > n - off)
			piece = n - off;
		k = body_feed(b, p + off, piece);
		if (k < 0)
			return -1;
		if ((size_t)k > piece || (!b->done && (size_t)k != piece))
			BUG("body_feed took %zd of %zu without ending", k,
			    piece);
		off += (size_t)k;
	}
	return (ssize_t)off;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct body one, cut;
	ssize_t a, b;

	if (size < 6)
		return 0;
	start(&one, data);
	start(&cut, data);
	a = feed(&one, (const char *)data + 6, size - 6, 0);
	b = feed(&cut, (const char *)data + 6, size - 6, data[1]);
	if (a != b || (a >= 0 && one.done != cut.done))
		BUG("cut differently, the body ends differently: %zd/%d, "
		    "%zd/%d", a, one.done, b, cut.done);
	if (a >= 0 && one.done && body_feed(&one, "x", 1) != 0)
		BUG("a finished body takes more bytes");
	return 0;
}
