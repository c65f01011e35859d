/* SPDX-License-Identifier: MIT */
/*
 * bbuf.c - the bounded builder (see bbuf.h).
 */
#include <vbox.h>

#include <stdio.h>

#include "bbuf.h"

void bbuf_init_fixed(struct bbuf *b, char *buf, size_t size)
{
	if (size == 0)
		BUG("a bounded builder needs room for its NUL");
	b->s = buf;
	b->s[0] = '\0';
	b->len = 0;
	b->cap = size;
	b->limit = size - 1;
	b->heap = false;
	b->over = false;
}

void bbuf_init_heap(struct bbuf *b, size_t limit)
{
	if (limit >= SIZE_MAX / 2)
		BUG("bounded builder limit of %zu bytes", limit);
	b->cap = limit < 64 ? limit + 1 : 64;
	b->s = xmalloc(b->cap);
	b->s[0] = '\0';
	b->len = 0;
	b->limit = limit;
	b->heap = true;
	b->over = false;
}

void bbuf_free(struct bbuf *b)
{
	if (b->heap)
		free(b->s);
	b->s = NULL;
	b->len = b->cap = b->limit = 0;
}

char *bbuf_take(struct bbuf *b, size_t *len)
{
	char *s;

	if (!b->heap)
		BUG("bbuf_take of a fixed builder");
	s = b->s;
	if (len)
		*len = b->len;
	bbuf_init_heap(b, b->limit);
	return s;
}

/* Room for @n more bytes and the NUL, within the limit; false if not. */
static bool reserve(struct bbuf *b, size_t n)
{
	size_t want;

	if (b->over || n > b->limit - b->len) {
		b->over = true;
		return false;
	}
	want = b->len + n + 1;
	if (want <= b->cap)
		return true;
	if (!b->heap)
		BUG("fixed bounded builder without room below its limit");
	/* Double, but never past the limit (and its NUL). */
	while (b->cap < want)
		b->cap = b->cap > (b->limit + 1) / 2 ? b->limit + 1 :
						       b->cap * 2;
	b->s = xrealloc(b->s, b->cap);
	return true;
}

void bbuf_add(struct bbuf *b, const void *p, size_t n)
{
	if (!reserve(b, n))
		return;
	if (n)
		memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void bbuf_puts(struct bbuf *b, const char *p)
{
	bbuf_add(b, p, strlen(p));
}

void bbuf_putc(struct bbuf *b, char c)
{
	bbuf_add(b, &c, 1);
}

void bbuf_vprintf(struct bbuf *b, const char *fmt, va_list ap)
{
	va_list again;
	int n;

	if (b->over)
		return;
	va_copy(again, ap);
	n = vsnprintf(NULL, 0, fmt, again);
	va_end(again);
	if (n < 0)
		BUG("vsnprintf failed for '%s'", fmt);
	if (!reserve(b, (size_t)n))
		return;
	if (vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap) != n)
		BUG("vsnprintf changed its mind for '%s'", fmt);
	b->len += (size_t)n;
}

void bbuf_printf(struct bbuf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	bbuf_vprintf(b, fmt, ap);
	va_end(ap);
}

void bbuf_put_printable(struct bbuf *b, const void *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = p;
	char esc[4] = { '\\', 'x', 0, 0 };
	size_t i;

	for (i = 0; i < n && !b->over; i++) {
		if (u[i] >= 0x20 && u[i] < 0x7f && u[i] != '\\') {
			bbuf_putc(b, (char)u[i]);
			continue;
		}
		esc[2] = hex[u[i] >> 4];
		esc[3] = hex[u[i] & 15];
		bbuf_add(b, esc, sizeof(esc));
	}
}
