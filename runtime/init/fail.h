/* SPDX-License-Identifier: MIT */
/*
 * fail.h - the one-line reason a step of the init gives when it fails
 * (steps.h): mounts.c, devproc.c and priv.c.  init.c has a fail() of its
 * own, which ends the init, and does not include this.  libc only.
 */
#ifndef VBOX_INIT_FAIL_H
#define VBOX_INIT_FAIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* fail - @fmt's message into @err (@errlen bytes); -1. */
static inline __attribute__((format(printf, 3, 4))) int
fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

#endif /* VBOX_INIT_FAIL_H */
