/* SPDX-License-Identifier: MIT */
/*
 * fuzz_pconfig.c - libFuzzer target for vbox-proxy's configuration
 * reader (runtime/proxy/pconfig.c, pconfig_decode): the sealed memory
 * file vbox-exec hands the proxy.  vbox-exec writes it, but the reader is
 * the proxy's first contact with outside bytes and builds the judge every
 * connection is decided by, so it must refuse any damaged copy with a
 * message, never half-read.  An accepted configuration is then queried
 * the way connections are judged.
 *
 * Seeds: fuzz/seeds/pconfig/ (configurations in the deny and open
 * postures, with and without an upstream proxy).
 */
#include <vbox.h>

#include "judge.h"
#include "netaddr.h"
#include "pconfig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const queries[] = {
	"api.example.com:443", "www.evil.com:443", "127.0.0.1:8080",
	"10.1.2.3:22", "[::1]:80", "169.254.169.254:80",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pconfig c;
	struct judge j;
	struct net_target q;
	struct verdict v;
	char *err = NULL;
	size_t i;

	if (pconfig_decode(data, size, &c, &j, &err) != 0) {
		if (!err)
			BUG("pconfig_decode failed without a message");
		free(err);
		return 0;
	}
	if (c.nports < 2 || c.nports > PCONFIG_MAX_PORTS)
		BUG("pconfig_decode accepted %zu ports", c.nports);
	for (i = 0; i < array_size(queries); i++) {
		if (net_query_parse(queries[i], &q, &err) != 0)
			BUG("query '%s': %s", queries[i], err);
		judge_query(&j, &q, &v);
		net_target_free(&q);
	}
	pconfig_release(&c);
	judge_release(&j);
	return 0;
}
