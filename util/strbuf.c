/* SPDX-License-Identifier: MIT */
/*
 * strbuf.c - the growable string (see strbuf.h).
 */
#include <vbox.h>

#include "grow.h"
#include "strbuf.h"

void strbuf_add(struct strbuf *b, const char *p, size_t n)
{
	if (n > SIZE_MAX / 2 - b->len - 1)
		BUG("string of %zu bytes is too long", b->len);
	GROW(b->s, b->cap, b->len + n + 1);
	memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void strbuf_puts(struct strbuf *b, const char *p)
{
	strbuf_add(b, p, strlen(p));
}

void strbuf_putc(struct strbuf *b, char c)
{
	/* The common case, room left, without the general path's checks. */
	if (b->len + 2 <= b->cap) {
		b->s[b->len++] = c;
		b->s[b->len] = '\0';
		return;
	}
	strbuf_add(b, &c, 1);
}

void strbuf_reserve(struct strbuf *b, size_t n)
{
	if (n > SIZE_MAX / 2 - b->len - 1)
		BUG("string of %zu bytes is too long", b->len);
	GROW(b->s, b->cap, b->len + n + 1);
}
