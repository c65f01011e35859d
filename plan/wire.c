/* SPDX-License-Identifier: MIT */
/*
 * wire.c - little-endian fields and bounded reads for plan.bin (wire.h).
 */
#include <vbox.h>

#include <stdarg.h>
#include <stdio.h>

#include "grow.h"
#include "wire.h"

void wbuf_put(struct wbuf *b, const void *data, size_t n)
{
	if (n > SIZE_MAX - b->len)
		BUG("plan buffer overflow");
	GROW(b->p, b->cap, b->len + n);
	if (n)
		memcpy(b->p + b->len, data, n);
	b->len += n;
}

void le_store(uint8_t *dst, uint64_t v, unsigned width)
{
	unsigned i;

	for (i = 0; i < width; i++)
		dst[i] = (uint8_t)(v >> (8 * i));
}

uint64_t le_load(const uint8_t *src, unsigned width)
{
	uint64_t v = 0;
	unsigned i;

	for (i = 0; i < width; i++)
		v |= (uint64_t)src[i] << (8 * i);
	return v;
}

void wbuf_le(struct wbuf *b, uint64_t v, unsigned width)
{
	uint8_t tmp[8];

	le_store(tmp, v, width);
	wbuf_put(b, tmp, width);
}

void wbuf_u8(struct wbuf *b, unsigned v)
{
	wbuf_le(b, v, 1);
}

void wbuf_u16(struct wbuf *b, unsigned v)
{
	wbuf_le(b, v, 2);
}

void wbuf_u32(struct wbuf *b, uint32_t v)
{
	wbuf_le(b, v, 4);
}

void wbuf_string(struct wbuf *b, const char *s)
{
	size_t n = strlen(s);

	if (n > UINT32_MAX)
		BUG("plan string of %zu bytes", n);
	wbuf_u32(b, (uint32_t)n);
	wbuf_put(b, s, n);
}

void wbuf_release(struct wbuf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

int wire_fail(char **err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(err, fmt, ap) < 0)
		BUG("out of memory");
	va_end(ap);
	return -1;
}

int wire_corrupt(struct wire_reader *r, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		BUG("out of memory");
	va_end(ap);
	wire_fail(r->err, "corrupt plan: %s: %s", r->ctx, msg);
	free(msg);
	return -1;
}

size_t wire_left(const struct wire_reader *r)
{
	return r->len - r->off;
}

static int get_le(struct wire_reader *r, uint64_t *v, unsigned width,
		  const char *what)
{
	if (wire_left(r) < width)
		return wire_corrupt(r, "%s: needs %u bytes, %zu left", what,
				    width, wire_left(r));
	*v = le_load(r->p + r->off, width);
	r->off += width;
	return 0;
}

int wire_u8(struct wire_reader *r, uint8_t *v, const char *what)
{
	uint64_t x = 0;

	if (get_le(r, &x, 1, what))
		return -1;
	*v = (uint8_t)x;
	return 0;
}

int wire_u16(struct wire_reader *r, uint16_t *v, const char *what)
{
	uint64_t x = 0;

	if (get_le(r, &x, 2, what))
		return -1;
	*v = (uint16_t)x;
	return 0;
}

int wire_u32(struct wire_reader *r, uint32_t *v, const char *what)
{
	uint64_t x = 0;

	if (get_le(r, &x, 4, what))
		return -1;
	*v = (uint32_t)x;
	return 0;
}

int wire_string(struct wire_reader *r, char **out, const char *what)
{
	uint32_t n;

	if (wire_u32(r, &n, what))
		return -1;
	if (n > wire_left(r))
		return wire_corrupt(r, "%s: string length %u exceeds the %zu "
				    "bytes left", what, n, wire_left(r));
	if (memchr(r->p + r->off, '\0', n))
		return wire_corrupt(r, "%s: NUL byte inside the string", what);
	*out = xmalloc((size_t)n + 1);
	memcpy(*out, r->p + r->off, n);
	(*out)[n] = '\0';
	r->off += n;
	return 0;
}

int wire_count(struct wire_reader *r, uint32_t *n, size_t min_bytes,
	       uint32_t max)
{
	if (wire_u32(r, n, "count"))
		return -1;
	if (*n > max)
		return wire_corrupt(r, "count %u exceeds the limit of %u", *n,
				    max);
	if (*n > wire_left(r) / min_bytes)
		return wire_corrupt(r, "count %u needs at least %zu bytes, %zu "
				    "left", *n, (size_t)*n * min_bytes,
				    wire_left(r));
	return 0;
}
