/* SPDX-License-Identifier: MIT */
/*
 * fuzz_http_upstream.c - libFuzzer target for vbox-proxy's side of the
 * @upstream-proxy handshake (runtime/proxy/upstream.c): the URL and its
 * credentials (upstream_parse_url, no resolution), the first bytes sent
 * for a target name (the CONNECT line whose fixed buffer was issue 20's
 * abort, the SOCKS5 greeting), and the upstream's answers fed back in
 * pieces.  No network I/O: the bytes only go through the functions.
 *
 * Input: byte 0 the scheme (http, socks5, socks5h) and bit 2 "the URL is
 * the raw bytes up to the first NUL"; else bytes 1 and 2 are the lengths
 * of a user and a password taken from the input and percent-encoded into
 * a URL.  Then a target name up to a NUL, then the upstream's answers.
 * Seeds: fuzz/seeds/http_upstream/.
 */
#include <vbox.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include "bbuf.h"
#include "upstream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const schemes[] = { "http", "socks5", "socks5h" };

/* take - the next bytes up to a NUL (at most @max), as a string */
static char *take(const uint8_t **p, size_t *n, size_t max)
{
	size_t k = 0, skip;
	char *s;

	while (k < *n && k < max && (*p)[k])
		k++;
	s = xmalloc(k + 1);
	memcpy(s, *p, k);
	s[k] = '\0';
	skip = k < *n && !(*p)[k] ? k + 1 : k;
	*p += skip;
	*n -= skip;
	return s;
}

static void pct(struct bbuf *b, const char *s)
{
	for (; *s; s++)
		bbuf_printf(b, "%%%02X", (unsigned char)*s);
}

static char *make_url(const uint8_t **p, size_t *n, unsigned kind,
		      size_t ul, size_t pl)
{
	struct bbuf b;
	char *user, *pass, *url;

	user = take(p, n, ul);
	pass = take(p, n, pl);
	bbuf_init_heap(&b, 8192);
	bbuf_printf(&b, "%s://", schemes[kind]);
	if (ul) {
		pct(&b, user);
		bbuf_putc(&b, ':');
		pct(&b, pass);
		bbuf_putc(&b, '@');
	}
	bbuf_puts(&b, "127.0.0.1:3128");
	if (!bbuf_ok(&b))
		BUG("a URL of more than 8 KiB");
	url = bbuf_take(&b, NULL);
	bbuf_free(&b);
	free(user);
	free(pass);
	return url;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data;
	size_t n = size, used, piece;
	struct upstream *up = NULL;
	struct sockaddr_in sin;
	struct up_hs hs;
	unsigned char acc[16384];
	size_t alen = 0;
	const char *why;
	char *url, *name, *err = NULL;
	unsigned kind;
	int rc;

	if (size < 3)
		return 0;
	kind = (data[0] & 3) % 3;
	p += 3;
	n -= 3;
	if (data[0] & 4)
		url = take(&p, &n, 4096);
	else
		url = make_url(&p, &n, kind, data[1], data[2]);
	rc = upstream_parse_url(url, &up, &err);
	free(url);
	if (rc != 0) {
		if (!err)
			BUG("upstream_parse_url failed without a message");
		free(err);
		return 0;
	}
	if ((up->user && strlen(up->user) > 255) ||
	    (up->pass && strlen(up->pass) > 255))
		BUG("credentials over 255 bytes accepted");
	name = take(&p, &n, 400);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(0x5db8d822);
	rc = upstream_start(&hs, up, name, 443, (struct sockaddr *)&sin);
	if (hs.nout > sizeof(hs.out) || (rc != 0 && (hs.nout || !hs.why)))
		BUG("upstream_start: %d, %zu bytes", rc, hs.nout);
	if (rc == 0 && up->kind == UP_HTTP &&
	    (hs.nout < 9 || memcmp(hs.out, "CONNECT ", 8) ||
	     memcmp(hs.out + hs.nout - 4, "\r\n\r\n", 4)))
		BUG("a CONNECT request that is not one");
	/* the upstream's answers arrive a few bytes at a time; as in
	 * conn.c, what the handshake did not use stays for the next feed */
	rc = 0;
	while (n && rc == 0) {
		piece = 1 + p[0] % 32;
		if (piece > n)
			piece = n;
		if (piece > sizeof(acc) - alen)
			break;
		memcpy(acc + alen, p, piece);
		alen += piece;
		p += piece;
		n -= piece;
		do {
			why = NULL;
			rc = upstream_feed(&hs, acc, alen, &used, &why);
			if (used > alen || hs.nout > sizeof(hs.out) ||
			    (rc < 0 && !why))
				BUG("upstream_feed: %d, used %zu of %zu", rc,
				    used, alen);
			memmove(acc, acc + used, alen - used);
			alen -= used;
		} while (rc == 0 && used && !hs.nout);
	}
	free(name);
	upstream_free(up);
	return 0;
}
