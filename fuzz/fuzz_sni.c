/* SPDX-License-Identifier: MIT */
/*
 * fuzz_sni.c - libFuzzer target for the proxy's ClientHello reader
 * (runtime/proxy/sni.c, sni_parse): the first bytes a sandboxed client
 * sends up a tunnel, read whole across records before they may pass.
 *
 * Besides the sanitizers, it checks what relay.c relies on: no input is
 * "not TLS" whose first byte is a TLS record type (an alert first must
 * not hide a hello), a found name is a terminated host name of at most
 * 253 bytes in [a-z0-9._-], and a name buffer too small for the name
 * makes the hello malformed rather than cut.
 *
 * Seeds: fuzz/seeds/sni/ (hellos with and without a server name, in one
 * and several records, an alert first, a record version of 0.x).
 */
#include <vbox.h>

#include "sni.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char name[256], small[8];
	enum sni_result r, rs;
	size_t i, len;

	r = sni_parse(data, size, name, sizeof(name));
	if (!size && r != SNI_NEED_MORE)
		BUG("no bytes: result %d", (int)r);
	if (size && data[0] >= 0x14 && data[0] <= 0x18 && r == SNI_NOT_TLS)
		BUG("record type %u taken for not TLS", data[0]);
	if (size && (data[0] < 0x14 || data[0] > 0x18) && r != SNI_NOT_TLS)
		BUG("first byte 0x%02x taken for TLS", data[0]);
	rs = sni_parse(data, size, small, sizeof(small));
	if (r != SNI_FOUND) {
		if (rs != r)
			BUG("result %d with a small name buffer, %d without",
			    (int)rs, (int)r);
		return 0;
	}
	len = strnlen(name, sizeof(name));
	if (len == 0 || len > 253)
		BUG("a server name of %zu bytes", len);
	for (i = 0; i < len; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') ||
		      (name[i] >= '0' && name[i] <= '9') || name[i] == '-' ||
		      name[i] == '.' || name[i] == '_'))
			BUG("a server name byte 0x%02x",
			    (unsigned char)name[i]);
	if (len < sizeof(small) - 1 ? rs != SNI_FOUND || strcmp(small, name) :
				      rs != SNI_FOUND && rs != SNI_BAD)
		BUG("a name of %zu bytes: result %d with 8 bytes of room", len,
		    (int)rs);
	return 0;
}
