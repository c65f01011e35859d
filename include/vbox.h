/* SPDX-License-Identifier: MIT */
/*
 * vbox.h - the first include of every vbox translation unit.
 *
 * Pulls in config.h exactly once plus the standard headers nearly every file
 * needs, and defines the small helpers shared by all layers: allocation that
 * never returns NULL, BUG() for impossible states, array_size() and format
 * attributes.  Every other header is self-contained and forward-declares
 * what it needs.
 */
#ifndef VBOX_VBOX_H
#define VBOX_VBOX_H

#include <config.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef __MINGW32__
/* The windows launcher uses mingw's C99 printf (__USE_MINGW_ANSI_STDIO). */
#define __printf(a, b) __attribute__((format(gnu_printf, a, b)))
#else
#define __printf(a, b) __attribute__((format(printf, a, b)))
#endif
#define __noreturn __attribute__((noreturn))
#define __must_check __attribute__((warn_unused_result))

#define array_size(arr) (sizeof(arr) / sizeof((arr)[0]))

/*
 * BUG() marks a state the code's own invariants rule out.  It aborts rather
 * than continuing with a policy whose meaning is no longer known.
 */
#define BUG(fmt, ...) __vbox_bug(__FILE__, __LINE__, fmt, ##__VA_ARGS__)
__noreturn __printf(3, 4) void __vbox_bug(const char *file, int line,
					  const char *fmt, ...);

/*
 * Allocation failure policy: these abort with "out of memory" instead of
 * returning NULL, so callers carry no NULL-check noise.  The caller owns
 * every returned pointer and releases it with free().
 */
void *xmalloc(size_t size);
void *xzalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
void *xreallocarray(void *ptr, size_t nmemb, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
__printf(1, 2) char *xasprintf(const char *fmt, ...);

/* free() for pointers to const data the caller owns. */
static inline void free_const(const void *ptr)
{
	free((void *)ptr);
}

#endif /* VBOX_VBOX_H */
