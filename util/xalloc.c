/* SPDX-License-Identifier: MIT */
/*
 * xalloc.c - allocation that never returns NULL, and BUG().
 *
 * Running out of memory while compiling a policy has no safe partial
 * result, so the process stops with a message instead of threading NULL
 * checks through every layer.
 */
#include <vbox.h>

#include <stdarg.h>
#include <stdio.h>

#include "grow.h"
#include "hugemem.h"

static __noreturn void out_of_memory(void)
{
	fputs("vbox: out of memory\n", stderr);
	abort();
}

void __vbox_bug(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "vbox: BUG at %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		out_of_memory();
	mem_after_alloc(p, size);
	return p;
}

void *xzalloc(size_t size)
{
	return xcalloc(1, size);
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		out_of_memory();
	/* calloc() succeeded: the product does not overflow. */
	mem_after_alloc(p, nmemb * size);
	return p;
}

void *xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);

	if (!p)
		out_of_memory();
	/* What realloc() moved is written; the rest is hinted in time. */
	mem_after_alloc(p, size);
	return p;
}

void *xreallocarray(void *ptr, size_t nmemb, size_t size)
{
	if (size && nmemb > SIZE_MAX / size)
		out_of_memory();
	return xrealloc(ptr, nmemb * size);
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int len;

	va_start(ap, fmt);
	len = vasprintf(&p, fmt, ap);
	va_end(ap);
	if (len < 0)
		out_of_memory();
	mem_after_alloc(p, (size_t)len + 1);
	return p;
}

/*
 * A large array grows into a new block, hinted before the copy writes
 * it: realloc() would write the copy first, each page of it a fault.
 */
void *mem_grow_block(void *p, size_t old_bytes, size_t new_bytes)
{
	void *q;

	if (new_bytes < MEM_LARGE_MIN || new_bytes <= old_bytes)
		return xrealloc(p, new_bytes);
	q = xmalloc(new_bytes);
	if (p) {
		memcpy(q, p, old_bytes);
		free(p);
	}
	return q;
}

void grow_array(void *arrp, size_t *cap, size_t need, size_t size)
{
	void **p = arrp;
	size_t n;

	if (need <= *cap)
		return;
	n = *cap ? *cap : 16;
	while (n < need)
		n = n > SIZE_MAX / 2 ? need : n * 2;
	if (size && n > SIZE_MAX / size)
		out_of_memory();
	/* *cap * size fitted when *cap was grown to. */
	*p = mem_grow_block(*p, *cap * size, n * size);
	*cap = n;
}
