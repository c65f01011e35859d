/* SPDX-License-Identifier: MIT */
/*
 * wire.h - the byte-level encoding every plan.bin field uses: little-endian
 * integers and u32-length strings, written into a growable buffer and read
 * back through a bounded window that turns every overrun into a one-line
 * "corrupt plan" message (doc/targets.md, "plan.bin").
 *
 * Owned here: struct wbuf (writing) and struct wire_reader (reading).
 * Both the compile side (plan_encode, the linux artifact) and the
 * launcher's loader use them, so the two cannot disagree on a width.
 */
#ifndef VBOX_WIRE_H
#define VBOX_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * struct wbuf - a growable output buffer; never fails (allocation aborts)
 * @p: the bytes (owned)
 * @len: bytes written
 * @cap: bytes allocated
 */
struct wbuf {
	uint8_t *p;
	size_t len;
	size_t cap;
};

void wbuf_put(struct wbuf *b, const void *data, size_t n);
void wbuf_le(struct wbuf *b, uint64_t v, unsigned width);
void wbuf_u8(struct wbuf *b, unsigned v);
void wbuf_u16(struct wbuf *b, unsigned v);
void wbuf_u32(struct wbuf *b, uint32_t v);
/* wbuf_string - u32 length, then the bytes (no NUL). */
void wbuf_string(struct wbuf *b, const char *s);
/* wbuf_release - free the bytes; @b is empty again. */
void wbuf_release(struct wbuf *b);

void le_store(uint8_t *dst, uint64_t v, unsigned width);
uint64_t le_load(const uint8_t *src, unsigned width);

/**
 * struct wire_reader - a window on the input (one section's payload)
 * @p: the window's first byte
 * @len: its length
 * @off: bytes consumed
 * @ctx: what is being read ("file rows, row 3"), for messages
 * @err: where the first error message goes (caller frees)
 */
struct wire_reader {
	const uint8_t *p;
	size_t len;
	size_t off;
	char ctx[64];
	char **err;
};

/* wire_fail - set *@err to the message; returns -1. */
__printf(2, 3) int wire_fail(char **err,
						    const char *fmt, ...);
/* wire_corrupt - "corrupt plan: CTX: MESSAGE"; returns -1. */
__printf(2, 3) int wire_corrupt(struct wire_reader *r,
						       const char *fmt, ...);

size_t wire_left(const struct wire_reader *r);
int wire_u8(struct wire_reader *r, uint8_t *v, const char *what);
int wire_u16(struct wire_reader *r, uint16_t *v, const char *what);
int wire_u32(struct wire_reader *r, uint32_t *v, const char *what);
/* wire_string - a string without NUL bytes, NUL-terminated (caller frees). */
int wire_string(struct wire_reader *r, char **out, const char *what);
/*
 * wire_count - a count of entries of at least @min_bytes each, at most
 * @max: checked against the bytes left before the caller allocates.
 */
int wire_count(struct wire_reader *r, uint32_t *n, size_t min_bytes,
	       uint32_t max);

#endif /* VBOX_WIRE_H */
