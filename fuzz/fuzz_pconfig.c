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
 * The same bytes go to the reader of vbox-proxy's denial notices
 * (pconfig_denial_decode), which vbox-exec prints on its stderr: an
 * accepted one must hold two printable texts within their bound, and
 * encode back to the same bytes.
 *
 * Seeds: fuzz/seeds/pconfig/ (configurations in the deny and open
 * postures, with and without an upstream proxy; denial notices).
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

static void check_text(const char *s)
{
	size_t n = strlen(s), i;

	if (!n || n > PROXY_DENY_TEXT_MAX)
		BUG("a notice text of %zu bytes accepted", n);
	for (i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			BUG("a notice text with byte %#x accepted",
			    (unsigned char)s[i]);
}

static void denial(const uint8_t *data, size_t size)
{
	char what[PROXY_DENY_TEXT_MAX + 1], why[PROXY_DENY_TEXT_MAX + 1];
	uint8_t back[PCONFIG_MAX_MSG];
	uint32_t lost;
	size_t n;

	if (pconfig_denial_decode(data, size, &lost, what, why) != 0)
		return;
	check_text(what);
	check_text(why);
	n = pconfig_denial_encode(back, lost, what, why);
	if (n != size || memcmp(back, data, size))
		BUG("a denial notice does not encode back to its bytes");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pconfig c;
	struct judge j;
	struct net_target q;
	struct verdict v;
	char *err = NULL;
	size_t i;

	denial(data, size);
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
