/* SPDX-License-Identifier: MIT */
/*
 * sni.c - the server_name of a TLS ClientHello (sni.h; RFC 8446 §4.1.2,
 * RFC 6066 §3).  Handshake bytes are gathered from consecutive handshake
 * records first, so a hello split over records or segments is seen whole.
 */
#include <vbox.h>

#include "sni.h"

/**
 * struct rd - a bounded reader
 * @p: next byte
 * @n: bytes left
 */
struct rd {
	const unsigned char *p;
	size_t n;
};

static bool take(struct rd *r, size_t k, const unsigned char **out)
{
	if (r->n < k)
		return false;
	if (out)
		*out = r->p;
	r->p += k;
	r->n -= k;
	return true;
}

static bool u8(struct rd *r, unsigned *v)
{
	const unsigned char *p;

	if (!take(r, 1, &p))
		return false;
	*v = p[0];
	return true;
}

static bool u16(struct rd *r, unsigned *v)
{
	const unsigned char *p;

	if (!take(r, 2, &p))
		return false;
	*v = (unsigned)p[0] << 8 | p[1];
	return true;
}

/* sub - a reader over the next @len bytes of @r */
static bool sub(struct rd *r, size_t len, struct rd *out)
{
	const unsigned char *p;

	if (!take(r, len, &p))
		return false;
	out->p = p;
	out->n = len;
	return true;
}

static enum sni_result server_name(struct rd *ext, char *name, size_t size)
{
	struct rd list, host;
	unsigned llen, type, hlen;
	size_t i;
	bool seen = false;

	if (!u16(ext, &llen) || !sub(ext, llen, &list) || ext->n)
		return SNI_BAD;
	while (list.n) {
		if (!u8(&list, &type) || !u16(&list, &hlen) ||
		    !sub(&list, hlen, &host))
			return SNI_BAD;
		if (type != 0)
			continue;
		if (seen || hlen == 0 || hlen > 253 || hlen >= size)
			return SNI_BAD;
		seen = true;
		for (i = 0; i < hlen; i++) {
			unsigned char c = host.p[i];

			if (c >= 'A' && c <= 'Z')
				c = (unsigned char)(c - 'A' + 'a');
			if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
			      c == '-' || c == '.' || c == '_'))
				return SNI_BAD;
			name[i] = (char)c;
		}
		name[hlen] = '\0';
		if (hlen > 1 && name[hlen - 1] == '.')
			name[hlen - 1] = '\0';
	}
	return seen ? SNI_FOUND : SNI_NONE;
}

static enum sni_result client_hello(struct rd *h, char *name, size_t size)
{
	struct rd exts, ext;
	unsigned v, len, type;
	enum sni_result res = SNI_NONE;
	bool seen = false;

	if (!u16(h, &v) || !take(h, 32, NULL) ||	/* version, random */
	    !u8(h, &len) || len > 32 || !take(h, len, NULL) ||
	    !u16(h, &len) || len < 2 || len % 2 || !take(h, len, NULL) ||
	    !u8(h, &len) || len < 1 || !take(h, len, NULL))
		return SNI_BAD;
	if (!h->n)
		return SNI_NONE;	/* no extensions at all */
	if (!u16(h, &len) || !sub(h, len, &exts) || h->n)
		return SNI_BAD;
	while (exts.n) {
		if (!u16(&exts, &type) || !u16(&exts, &len) ||
		    !sub(&exts, len, &ext))
			return SNI_BAD;
		if (type != 0)
			continue;
		if (seen)
			return SNI_BAD;
		seen = true;
		res = server_name(&ext, name, size);
		if (res == SNI_BAD)
			return res;
	}
	return res;
}

enum sni_result sni_parse(const unsigned char *buf, size_t len, char *name,
			  size_t size)
{
	static unsigned char hs[SNI_MAX_HELLO];
	size_t off = 0, nhs = 0, need = 0;
	struct rd h;

	/*
	 * The first byte alone says whether this is TLS: a record type
	 * (change_cipher_spec 20, alert 21, handshake 22, application_data
	 * 23, heartbeat 24), whatever the version bytes after it say (some
	 * servers take any version below 16.0 in the first record).  TLS
	 * must then start with the ClientHello: a record of another type
	 * before it (which some servers skip) would hide it.
	 */
	if (!len)
		return SNI_NEED_MORE;
	if (buf[0] < 0x14 || buf[0] > 0x18)
		return SNI_NOT_TLS;
	if (buf[0] != 0x16)
		return SNI_NOT_FIRST;
	for (;;) {
		size_t rlen;

		if (len - off < 5)
			return len > SNI_MAX_HELLO ? SNI_BAD : SNI_NEED_MORE;
		if (buf[off] != 0x16)
			return off ? SNI_BAD : SNI_NOT_FIRST;
		if (buf[off + 1] != 0x03)
			return SNI_BAD;
		rlen = (size_t)buf[off + 3] << 8 | buf[off + 4];
		if (rlen == 0 || rlen > 16384)
			return SNI_BAD;
		if (len - off - 5 < rlen)
			return off + 5 + rlen > SNI_MAX_HELLO ? SNI_BAD :
								 SNI_NEED_MORE;
		if (nhs + rlen > sizeof(hs))
			return SNI_BAD;
		memcpy(hs + nhs, buf + off + 5, rlen);
		nhs += rlen;
		off += 5 + rlen;
		if (nhs >= 4 && !need) {
			if (hs[0] != 1)	/* ClientHello */
				return SNI_BAD;
			need = 4 + ((size_t)hs[1] << 16 | (size_t)hs[2] << 8 |
				    hs[3]);
			if (need > sizeof(hs))
				return SNI_BAD;
		}
		if (need && nhs >= need)
			break;
	}
	h.p = hs + 4;
	h.n = need - 4;
	return client_hello(&h, name, size);
}
