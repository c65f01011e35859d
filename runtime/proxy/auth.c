/* SPDX-License-Identifier: MIT */
/*
 * auth.c - tokens and credential checks (auth.h, proxy.h).  Comparisons
 * take the same time whatever the first differing byte.
 */
#include <vbox.h>

#include <errno.h>
#include <strings.h>

#include "auth.h"
#include "compat.h"
#include "proxy.h"

static const char b64url[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
static const char b64std[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int proxy_token_make(char *out)
{
	unsigned char raw[PROXY_TOKEN_LEN * 3 / 4];
	size_t i, o = 0;
	int rc = compat_random(raw, sizeof(raw));

	if (rc)
		return rc;
	for (i = 0; i < sizeof(raw); i += 3) {
		unsigned v = (unsigned)raw[i] << 16 | (unsigned)raw[i + 1] << 8 |
			     raw[i + 2];

		out[o++] = b64url[v >> 18 & 63];
		out[o++] = b64url[v >> 12 & 63];
		out[o++] = b64url[v >> 6 & 63];
		out[o++] = b64url[v & 63];
	}
	out[o] = '\0';
	return 0;
}

char *b64_encode(const unsigned char *p, size_t n)
{
	char *out = xmalloc((n + 2) / 3 * 4 + 1);
	size_t i, o = 0;

	for (i = 0; i < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16;

		if (i + 1 < n)
			v |= (unsigned)p[i + 1] << 8;
		if (i + 2 < n)
			v |= p[i + 2];
		out[o++] = b64std[v >> 18 & 63];
		out[o++] = b64std[v >> 12 & 63];
		out[o++] = i + 1 < n ? b64std[v >> 6 & 63] : '=';
		out[o++] = i + 2 < n ? b64std[v & 63] : '=';
	}
	out[o] = '\0';
	return out;
}

static bool same(const unsigned char *a, size_t alen, const char *b)
{
	size_t blen = strlen(b), i;
	unsigned char d = alen != blen;

	for (i = 0; i < blen; i++)
		d |= (unsigned char)((i < alen ? a[i] : 0) ^ (unsigned char)b[i]);
	return d == 0;
}

bool auth_pair_ok(const unsigned char *user, size_t ulen,
		  const unsigned char *pass, size_t plen, const char *token)
{
	bool u = same(user, ulen, PROXY_USER);
	bool p = same(pass, plen, token);

	return u & p;
}

static int b64val(char c)
{
	const char *p;

	if (!c)
		return -1;
	p = strchr(b64std, c);
	return p ? (int)(p - b64std) : -1;
}

bool auth_basic_ok(const char *val, size_t vlen, const char *token)
{
	unsigned char dec[256];
	size_t i = 0, n = 0, colon;
	unsigned acc = 0;
	int bits = 0;

	if (vlen < 6 || strncasecmp(val, "basic", 5) || val[5] != ' ')
		return false;
	val += 6;
	vlen -= 6;
	while (vlen && *val == ' ') {
		val++;
		vlen--;
	}
	if (vlen == 0 || vlen % 4 || vlen / 4 * 3 > sizeof(dec))
		return false;
	for (i = 0; i < vlen; i++) {
		int v;

		if (val[i] == '=') {
			/* padding only at the very end */
			if (i < vlen - 2 || (i == vlen - 2 && val[i + 1] != '='))
				return false;
			break;
		}
		v = b64val(val[i]);
		if (v < 0)
			return false;
		acc = acc << 6 | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			dec[n++] = (unsigned char)(acc >> bits);
		}
	}
	for (colon = 0; colon < n && dec[colon] != ':'; colon++)
		;
	if (colon == n)
		return false;
	return auth_pair_ok(dec, colon, dec + colon + 1, n - colon - 1, token);
}
