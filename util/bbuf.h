/* SPDX-License-Identifier: MIT */
/*
 * bbuf.h - the bounded builder: every output made from bytes someone
 * else chose (the sandbox, the network, a file) is built with it.
 *
 * A struct bbuf never holds more than its limit.  An append that would
 * pass the limit appends nothing and marks the builder @over: the
 * content is then every append before that one, whole, and the caller
 * must look at bbuf_ok() before it sends or uses the result as
 * complete.  So a buffer can be too small, but it can never be
 * overflowed, and a cut is never silent.
 *
 * Two kinds of storage:
 *   bbuf_init_fixed(b, buf, size)   the caller's array: at most size-1
 *                                   bytes and a NUL; nothing allocated
 *   bbuf_init_heap(b, limit)        grows as needed up to @limit bytes;
 *                                   the caller owns the result, through
 *                                   bbuf_take() (or frees with bbuf_free())
 * Either way b->s is NUL-terminated at every moment, so it may be
 * printed as it is (a cut line is still a line).  Allocation failure
 * aborts, as every x*alloc does.
 */
#ifndef VBOX_BBUF_H
#define VBOX_BBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/**
 * struct bbuf - a bounded builder
 * @s: the bytes, always NUL-terminated (owned only when @heap)
 * @len: bytes in @s, excluding the NUL
 * @cap: bytes allocated at @s
 * @limit: the most @len may ever be
 * @heap: @s is allocated here and grows up to @limit
 * @over: an append did not fit (and was not made)
 */
struct bbuf {
	char *s;
	size_t len;
	size_t cap;
	size_t limit;
	bool heap;
	bool over;
};

/* bbuf_init_fixed - build into @buf of @size bytes (@size >= 1). */
void bbuf_init_fixed(struct bbuf *b, char *buf, size_t size);
/* bbuf_init_heap - build into memory of our own, at most @limit bytes. */
void bbuf_init_heap(struct bbuf *b, size_t limit);
/* bbuf_free - free a heap builder's bytes (a fixed one: nothing). */
void bbuf_free(struct bbuf *b);
/*
 * bbuf_take - a heap builder's bytes, now the caller's (free()), with
 * their length in *@len when @len is given; the builder is empty again.
 */
char *bbuf_take(struct bbuf *b, size_t *len);

/* bbuf_add - append @n bytes at @p, or nothing and mark @over. */
void bbuf_add(struct bbuf *b, const void *p, size_t n);
/* bbuf_puts - append the string @p (the same rule). */
void bbuf_puts(struct bbuf *b, const char *p);
/* bbuf_putc - append one byte (the same rule). */
void bbuf_putc(struct bbuf *b, char c);
/* bbuf_printf - append formatted text, whole or not at all. */
void bbuf_printf(struct bbuf *b, const char *fmt, ...)
	__printf(2, 3);
void bbuf_vprintf(struct bbuf *b, const char *fmt, va_list ap)
	__printf(2, 0);
/*
 * bbuf_put_printable - append @n bytes at @p for a log line: printable
 * ASCII as it is, every other byte (and the backslash) as \xNN, so bytes
 * from outside can neither end the line nor drive a terminal.  Appends
 * as much as fits, then marks @over if some did not.
 */
void bbuf_put_printable(struct bbuf *b, const void *p, size_t n);

/* bbuf_ok - no append was refused: the content is complete. */
static inline bool bbuf_ok(const struct bbuf *b)
{
	return !b->over;
}

/* bbuf_room - how many more bytes would fit. */
static inline size_t bbuf_room(const struct bbuf *b)
{
	return b->limit - b->len;
}

#endif /* VBOX_BBUF_H */
