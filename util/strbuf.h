/* SPDX-License-Identifier: MIT */
/*
 * strbuf.h - a growable byte string that stays NUL-terminated.
 *
 * Start from a zeroed struct; the caller owns @s (free() it, or take it as
 * the result).  Allocation failure aborts, as every x*alloc does.
 */
#ifndef VBOX_STRBUF_H
#define VBOX_STRBUF_H

#include <stddef.h>

/**
 * struct strbuf - a growable string
 * @s: the bytes, NUL-terminated once anything was added (owned)
 * @len: bytes in @s, excluding the NUL
 * @cap: bytes allocated
 */
struct strbuf {
	char *s;
	size_t len;
	size_t cap;
};

/* strbuf_add - append @n bytes at @p. */
void strbuf_add(struct strbuf *b, const char *p, size_t n);
/* strbuf_puts - append the string @p. */
void strbuf_puts(struct strbuf *b, const char *p);
/* strbuf_putc - append one byte. */
void strbuf_putc(struct strbuf *b, char c);
/*
 * strbuf_reserve - room for @n more bytes (and the NUL) without growing:
 * a string built a byte at a time then reallocates once, not per
 * doubling.
 */
void strbuf_reserve(struct strbuf *b, size_t n);

#endif /* VBOX_STRBUF_H */
