/* SPDX-License-Identifier: MIT */
/*
 * win_log.c - what vbox-exec.exe says on stderr (win_log.h): errors,
 * warnings, and with --log the stage timings.
 */
#include <vbox.h>

#include <stdarg.h>
#include <stdio.h>

#include <windows.h>

#include "win_log.h"

bool log_on;
ULONGLONG t_start;

static void vx_vprint(const char *tag, const char *fmt, va_list ap)
{
	fprintf(stderr, "vbox-exec: %s", tag);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	fflush(stderr);
}

void vx_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vx_vprint("", fmt, ap);
	va_end(ap);
}

void host_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vx_vprint("warning: ", fmt, ap);
	va_end(ap);
}

void vx_log(const char *fmt, ...)
{
	va_list ap;

	if (!log_on)
		return;
	fprintf(stderr, "vbox-exec: [%9llu ms] ",
		(unsigned long long)(GetTickCount64() - t_start));
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
}
