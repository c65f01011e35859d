/* SPDX-License-Identifier: MIT */
/*
 * httpmsg.c - strict HTTP/1.x heads and body delimiting (httpmsg.h).
 *
 * Lines end in CRLF only; a bare LF or CR, an obsolete line fold, white
 * space before a field's colon, control bytes in a value, several
 * Content-Length fields, or Content-Length with Transfer-Encoding are all
 * refused: a proxy and an origin that frame one byte stream differently
 * is how a second request is smuggled past the judge.
 */
#include <vbox.h>

#include <stdio.h>
#include <strings.h>

#include "bbuf.h"
#include "httpmsg.h"

static bool is_tchar(unsigned char c)
{
	if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	    (c >= 'A' && c <= 'Z'))
		return true;
	return c && strchr("!#$%&'*+-.^_`|~", c);
}

/* line_end - offset of the CRLF ending the line at @i, -2 need more, -1 bad */
static ssize_t line_end(const char *b, size_t len, size_t i)
{
	for (; i < len; i++) {
		if (b[i] == '\n')
			return -1;
		if (b[i] == '\r') {
			if (i + 1 >= len)
				return -2;
			return b[i + 1] == '\n' ? (ssize_t)i : -1;
		}
	}
	return -2;
}

static int parse_request_line(const char *p, size_t n, struct http_head *h,
			      const char **why)
{
	size_t i = 0, j;

	while (i < n && is_tchar((unsigned char)p[i]))
		i++;
	if (i == 0 || i >= n || p[i] != ' ')
		goto bad;
	h->method = p;
	h->mlen = i;
	j = ++i;
	while (i < n && (unsigned char)p[i] > ' ' && p[i] != 0x7f)
		i++;
	if (i == j || i >= n || p[i] != ' ')
		goto bad;
	h->target = p + j;
	h->tlen = i - j;
	i++;
	if (n - i != 8 || memcmp(p + i, "HTTP/1.", 7) ||
	    (p[i + 7] != '0' && p[i + 7] != '1'))
		goto bad;
	h->minor = p[i + 7] - '0';
	return 0;
bad:
	*why = "malformed request line";
	return -1;
}

static int parse_status_line(const char *p, size_t n, struct http_head *h,
			     const char **why)
{
	size_t i;

	if (n < 12 || memcmp(p, "HTTP/1.", 7) || (p[7] != '0' && p[7] != '1') ||
	    p[8] != ' ' || p[9] < '1' || p[9] > '5' || p[10] < '0' ||
	    p[10] > '9' || p[11] < '0' || p[11] > '9' ||
	    (n > 12 && p[12] != ' '))
		goto bad;
	for (i = 12; i < n; i++)
		if (((unsigned char)p[i] < ' ' && p[i] != '\t') ||
		    p[i] == 0x7f)
			goto bad;
	h->minor = p[7] - '0';
	h->status = (p[9] - '0') * 100 + (p[10] - '0') * 10 + (p[11] - '0');
	return 0;
bad:
	*why = "malformed status line";
	return -1;
}

static int parse_field(const char *p, size_t n, struct http_head *h,
		       const char **why)
{
	struct http_field *f;
	size_t i = 0, s, e, colon;

	if (p[0] == ' ' || p[0] == '\t') {
		*why = "obsolete line folding";
		return -1;
	}
	while (i < n && is_tchar((unsigned char)p[i]))
		i++;
	if (i == 0 || i >= n || p[i] != ':') {
		*why = "malformed header field";
		return -1;
	}
	if (h->nfields == HTTP_MAX_HEADERS) {
		*why = "too many header fields";
		return -1;
	}
	colon = i;
	for (s = i + 1; s < n && (p[s] == ' ' || p[s] == '\t'); s++)
		;
	for (e = n; e > s && (p[e - 1] == ' ' || p[e - 1] == '\t'); e--)
		;
	for (i = s; i < e; i++) {
		unsigned char c = (unsigned char)p[i];

		if ((c < ' ' && c != '\t') || c == 0x7f) {
			*why = "control character in a header value";
			return -1;
		}
	}
	f = &h->fields[h->nfields++];
	f->name = p;
	f->nlen = colon;
	f->val = p + s;
	f->vlen = e - s;
	return 0;
}

int http_head_parse(const char *buf, size_t len, bool response,
		    struct http_head *h, const char **why)
{
	size_t i = 0;
	ssize_t e;
	bool first = true;

	memset(h, 0, sizeof(*h));
	*why = NULL;
	/* a request may be preceded by empty lines (RFC 9112 §2.2) */
	while (!response && i + 1 < len && buf[i] == '\r' && buf[i + 1] == '\n'
	       && i < 8)
		i += 2;
	for (;;) {
		e = line_end(buf, len, i);
		if (e == -2)
			return 0;
		if (e == -1) {
			*why = "line not ended by CRLF";
			return -1;
		}
		if ((size_t)e == i) {
			if (first) {
				*why = "empty request line";
				return -1;
			}
			h->len = i + 2;
			return 1;
		}
		if (first) {
			if ((response ? parse_status_line :
					parse_request_line)(buf + i,
							    (size_t)e - i, h,
							    why) != 0)
				return -1;
			first = false;
		} else if (parse_field(buf + i, (size_t)e - i, h, why) != 0) {
			return -1;
		}
		i = (size_t)e + 2;
	}
}

bool http_field_is(const struct http_field *f, const char *name)
{
	return strlen(name) == f->nlen && !strncasecmp(f->name, name, f->nlen);
}

bool http_token_in(const char *v, size_t vlen, const char *tok)
{
	size_t i = 0, s, e, tl = strlen(tok);

	while (i < vlen) {
		while (i < vlen && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
			i++;
		s = i;
		while (i < vlen && v[i] != ',')
			i++;
		e = i;
		while (e > s && (v[e - 1] == ' ' || v[e - 1] == '\t'))
			e--;
		if (e - s == tl && !strncasecmp(v + s, tok, tl))
			return true;
	}
	return false;
}

/* parse_length - a Content-Length value: digits only, bounded. */
static int parse_length(const struct http_field *f, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (f->vlen == 0 || f->vlen > 18)
		return -1;
	for (i = 0; i < f->vlen; i++) {
		if (f->val[i] < '0' || f->val[i] > '9')
			return -1;
		v = v * 10 + (uint64_t)(f->val[i] - '0');
	}
	*out = v;
	return 0;
}

/* framing - the Content-Length and Transfer-Encoding fields of @h. */
static int framing(const struct http_head *h, const struct http_field **cl,
		   const struct http_field **te, const char **why)
{
	size_t i;

	*cl = *te = NULL;
	for (i = 0; i < h->nfields; i++) {
		const struct http_field *f = &h->fields[i];

		if (http_field_is(f, "content-length")) {
			if (*cl) {
				*why = "several Content-Length fields";
				return -1;
			}
			*cl = f;
		} else if (http_field_is(f, "transfer-encoding")) {
			if (*te) {
				*why = "several Transfer-Encoding fields";
				return -1;
			}
			*te = f;
		}
	}
	if (*cl && *te) {
		*why = "both Content-Length and Transfer-Encoding";
		return -1;
	}
	return 0;
}

static bool is_chunked(const struct http_field *te)
{
	return te->vlen == 7 && !strncasecmp(te->val, "chunked", 7);
}

int http_request_body(const struct http_head *h, struct body *b,
		      const char **why)
{
	const struct http_field *cl, *te;

	memset(b, 0, sizeof(*b));
	if (framing(h, &cl, &te, why) != 0)
		return -1;
	if (te) {
		if (h->minor == 0 || !is_chunked(te)) {
			*why = "unsupported Transfer-Encoding";
			return -1;
		}
		b->kind = BODY_CHUNKED;
		return 0;
	}
	if (cl) {
		if (parse_length(cl, &b->left) != 0) {
			*why = "bad Content-Length";
			return -1;
		}
		b->kind = BODY_LENGTH;
		b->done = b->left == 0;
		return 0;
	}
	b->kind = BODY_NONE;
	b->done = true;
	return 0;
}

int http_response_body(const struct http_head *h, bool head_request,
		       struct body *b, const char **why)
{
	const struct http_field *cl, *te;

	memset(b, 0, sizeof(*b));
	if (framing(h, &cl, &te, why) != 0)
		return -1;
	if (head_request || h->status / 100 == 1 || h->status == 204 ||
	    h->status == 304) {
		b->kind = BODY_NONE;
		b->done = true;
		return 0;
	}
	if (te) {
		b->kind = is_chunked(te) ? BODY_CHUNKED : BODY_CLOSE;
		return 0;
	}
	if (cl) {
		if (parse_length(cl, &b->left) != 0) {
			*why = "bad Content-Length";
			return -1;
		}
		b->kind = BODY_LENGTH;
		b->done = b->left == 0;
		return 0;
	}
	b->kind = BODY_CLOSE;
	return 0;
}

/* chunked decoder states */
enum {
	CS_SIZE0,	/* first hex digit */
	CS_SIZE,	/* more hex digits, ';' or CR */
	CS_EXT,		/* chunk extension up to CR */
	CS_SIZE_LF,
	CS_DATA,
	CS_DATA_CR,
	CS_DATA_LF,
	CS_TRAILER0,	/* start of a trailer line (CR ends the body) */
	CS_TRAILER,
	CS_TRAILER_LF,
	CS_END_LF,
};

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static ssize_t chunked_feed(struct body *b, const char *p, size_t n)
{
	size_t i = 0;

	while (i < n && !b->done) {
		char c = p[i];

		switch (b->state) {
		case CS_SIZE0:
			if (hexval(c) < 0)
				return -1;
			b->left = (uint64_t)hexval(c);
			b->count = 1;
			b->state = CS_SIZE;
			i++;
			break;
		case CS_SIZE:
			if (hexval(c) >= 0) {
				if (++b->count > 15)
					return -1;
				b->left = b->left * 16 + (uint64_t)hexval(c);
			} else if (c == ';') {
				b->count = 0;
				b->state = CS_EXT;
			} else if (c == '\r') {
				b->state = CS_SIZE_LF;
			} else {
				return -1;
			}
			i++;
			break;
		case CS_EXT:
			if (c == '\r')
				b->state = CS_SIZE_LF;
			else if (c == '\n' || ++b->count > 1024 ||
				 ((unsigned char)c < ' ' && c != '\t'))
				return -1;
			i++;
			break;
		case CS_SIZE_LF:
			if (c != '\n')
				return -1;
			b->state = b->left ? CS_DATA : CS_TRAILER0;
			i++;
			break;
		case CS_DATA: {
			size_t take = n - i;

			if (take > b->left)
				take = (size_t)b->left;
			b->left -= take;
			i += take;
			if (!b->left)
				b->state = CS_DATA_CR;
			break;
		}
		case CS_DATA_CR:
			if (c != '\r')
				return -1;
			b->state = CS_DATA_LF;
			i++;
			break;
		case CS_DATA_LF:
			if (c != '\n')
				return -1;
			b->state = CS_SIZE0;
			i++;
			break;
		case CS_TRAILER0:
			if (c == '\r') {
				b->state = CS_END_LF;
			} else if (c == '\n' || c == ' ' || c == '\t') {
				return -1;
			} else {
				b->state = CS_TRAILER;
			}
			if (++b->trailer > 8192)
				return -1;
			i++;
			break;
		case CS_TRAILER:
			if (c == '\r')
				b->state = CS_TRAILER_LF;
			else if (c == '\n')
				return -1;
			if (++b->trailer > 8192)
				return -1;
			i++;
			break;
		case CS_TRAILER_LF:
			if (c != '\n')
				return -1;
			b->state = CS_TRAILER0;
			i++;
			break;
		case CS_END_LF:
			if (c != '\n')
				return -1;
			b->done = true;
			i++;
			break;
		default:
			BUG("bad chunked state %d", b->state);
		}
	}
	return (ssize_t)i;
}

ssize_t body_feed(struct body *b, const char *p, size_t n)
{
	size_t take;

	if (b->done)
		return 0;
	switch (b->kind) {
	case BODY_NONE:
		b->done = true;
		return 0;
	case BODY_LENGTH:
		take = n < b->left ? n : (size_t)b->left;
		b->left -= take;
		b->done = b->left == 0;
		return (ssize_t)take;
	case BODY_CHUNKED:
		return chunked_feed(b, p, n);
	case BODY_CLOSE:
		return (ssize_t)n;
	default:
		BUG("bad body kind %d", (int)b->kind);
	}
}

/* ---- heads as they go on ------------------------------------------- */

static void put_field(struct bbuf *b, const struct http_field *f)
{
	bbuf_add(b, f->name, f->nlen);
	bbuf_add(b, ": ", 2);
	bbuf_add(b, f->val, f->vlen);
	bbuf_add(b, "\r\n", 2);
}

/* finish - the builder's bytes, or NULL when something did not fit */
static char *finish(struct bbuf *b, size_t *len)
{
	char *s;

	if (!bbuf_ok(b)) {
		bbuf_free(b);
		return NULL;
	}
	s = bbuf_take(b, len);
	bbuf_free(b);
	return s;
}

char *http_rewrite_response(const struct http_head *h, const char *raw,
			    bool close, size_t *len)
{
	const char *nl = memchr(raw, '\n', h->len);
	struct bbuf b;
	size_t i;

	if (!nl)
		BUG("http_rewrite_response: a parsed head without a line end");
	bbuf_init_heap(&b, HTTP_REWRITE_MAX);
	bbuf_add(&b, raw, (size_t)(nl - raw) + 1);
	for (i = 0; i < h->nfields; i++) {
		const struct http_field *f = &h->fields[i];

		if (http_field_is(f, "connection") ||
		    http_field_is(f, "keep-alive") ||
		    http_field_is(f, "proxy-connection"))
			continue;
		put_field(&b, f);
	}
	if (close)
		bbuf_puts(&b, "Connection: close\r\n");
	bbuf_add(&b, "\r\n", 2);
	return finish(&b, len);
}

/* hop - a field that is not passed on to the origin */
static bool hop(const struct http_field *f)
{
	static const char *const names[] = {
		"host",	      "proxy-authorization", "proxy-connection",
		"connection", "keep-alive",	     "upgrade",
		"te",
	};
	size_t i;

	for (i = 0; i < array_size(names); i++)
		if (http_field_is(f, names[i]))
			return true;
	return false;
}

char *http_rewrite_request(const struct http_head *h, const char *auth,
			   size_t alen, const char *path, size_t plen,
			   bool absolute, const char *basic, size_t *len)
{
	struct bbuf b;
	size_t i;

	bbuf_init_heap(&b, HTTP_REWRITE_MAX);
	bbuf_add(&b, h->method, h->mlen);
	bbuf_putc(&b, ' ');
	if (absolute) {
		bbuf_puts(&b, "http://");
		bbuf_add(&b, auth, alen);
	}
	if (plen == 0 || path[0] == '?')
		bbuf_putc(&b, '/');
	bbuf_add(&b, path, plen);
	bbuf_printf(&b, " HTTP/1.%d\r\n", h->minor);
	for (i = 0; i < h->nfields; i++)
		if (!hop(&h->fields[i]))
			put_field(&b, &h->fields[i]);
	bbuf_puts(&b, "Host: ");
	bbuf_add(&b, auth, alen);
	bbuf_puts(&b, "\r\nConnection: close\r\n");
	if (absolute && basic)
		bbuf_printf(&b, "Proxy-Authorization: %s\r\n", basic);
	bbuf_add(&b, "\r\n", 2);
	return finish(&b, len);
}

/* ---- request targets ----------------------------------------------- */

int http_absolute_target(const char *t, size_t n, const char **auth,
			 size_t *alen, const char **path, size_t *plen,
			 const char **why)
{
	size_t i;

	if (n < 8 || strncasecmp(t, "http://", 7)) {
		*why = n && t[0] == '/' ?
			       "not a proxy request (origin-form target)" :
			       "only http:// targets (use CONNECT for TLS)";
		return -1;
	}
	if (memchr(t, '#', n)) {
		*why = "fragment in request target";
		return -1;
	}
	for (i = 7; i < n && t[i] != '/' && t[i] != '?'; i++)
		;
	*auth = t + 7;
	*alen = i - 7;
	if (!*alen || memchr(*auth, '@', *alen)) {
		*why = "bad authority in request target";
		return -1;
	}
	*path = t + i;
	*plen = n - i;
	return 0;
}

char *http_hostport(const char *a, size_t n, unsigned defport,
		    const char **why)
{
	const char *rb, *colon = NULL;
	struct bbuf b;
	char *out;
	size_t i;

	if (n == 0) {
		*why = "empty target";
		return NULL;
	}
	if (n > HTTP_TARGET_MAX) {
		*why = "target too long";
		return NULL;
	}
	if (memchr(a, '\0', n)) {
		*why = "NUL in target";
		return NULL;
	}
	bbuf_init_heap(&b, HTTP_TARGET_MAX + 6);
	rb = memchr(a, ']', n);
	for (i = rb ? (size_t)(rb - a) : 0; i < n; i++)
		if (a[i] == ':')
			colon = a + i;
	if (!defport || (colon && colon + 1 < a + n)) {
		bbuf_add(&b, a, n);
	} else {
		bbuf_add(&b, a, colon ? (size_t)(colon - a) : n);
		bbuf_printf(&b, ":%u", defport);
	}
	out = finish(&b, NULL);
	if (!out)
		*why = "target too long";
	return out;
}
