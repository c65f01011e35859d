/* SPDX-License-Identifier: MIT */
/*
 * fuzz_http_target.c - libFuzzer target for the request targets
 * vbox-proxy judges (runtime/proxy/httpmsg.c): a CONNECT target taken as
 * it is, and an absolute-form "http://AUTH/PATH" split into its authority
 * (host, port, IPv6 brackets, userinfo refused) with port 80 by default;
 * each host:port then goes through net_query_parse() as pc_go() does.
 *
 * The first byte chooses: 0 a CONNECT target, else an absolute-form one.
 * Seeds: fuzz/seeds/http_target/.
 */
#include <vbox.h>

#include "httpmsg.h"
#include "netaddr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void judge(const char *a, size_t n, unsigned defport)
{
	struct net_target q;
	const char *why = NULL;
	char *hp, *err = NULL;
	size_t len;

	hp = http_hostport(a, n, defport, &why);
	if (!hp) {
		if (!why)
			BUG("http_hostport failed without a reason");
		return;
	}
	len = strlen(hp);
	if (len > n + 6 || (!defport && (len != n || memcmp(hp, a, n))))
		BUG("host:port of %zu bytes from %zu", len, n);
	if (net_query_parse(hp, &q, &err) == 0) {
		if (!q.text || strlen(q.text) > 1024)
			BUG("a judged target without its text");
		net_target_free(&q);
	} else if (!err) {
		BUG("net_query_parse failed without a message");
	}
	free(err);
	free(hp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *t = (const char *)data + 1, *why = NULL, *auth, *path;
	size_t n, alen, plen;

	if (size < 1)
		return 0;
	n = size - 1;
	if (data[0] == 0) {
		judge(t, n, 0);
		return 0;
	}
	if (http_absolute_target(t, n, &auth, &alen, &path, &plen, &why) !=
	    0) {
		if (!why)
			BUG("a refused target without a reason");
		return 0;
	}
	if (auth != t + 7 || path != auth + alen || path + plen != t + n ||
	    !alen || memchr(auth, '@', alen))
		BUG("the target split is wrong");
	judge(auth, alen, 80);
	return 0;
}
