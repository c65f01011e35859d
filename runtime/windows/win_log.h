/* SPDX-License-Identifier: MIT */
/*
 * win_log.h - what vbox-exec.exe says on stderr: "vbox-exec: MESSAGE",
 * "vbox-exec: warning: MESSAGE", and with --log "vbox-exec: [T ms]
 * MESSAGE", T counted from @t_start.
 */
#ifndef VBOX_WIN_LOG_H
#define VBOX_WIN_LOG_H

#include <stdbool.h>

#include <windows.h>

/* --log was given; when vbox-exec.exe started (GetTickCount64()). */
extern bool log_on;
extern ULONGLONG t_start;

void vx_error(const char *fmt, ...) __printf(1, 2);
/* host_warn - "vbox-exec: warning: …" on stderr. */
void host_warn(const char *fmt, ...) __printf(1, 2);
/* vx_log - a timed line, with --log only. */
void vx_log(const char *fmt, ...) __printf(1, 2);

#endif /* VBOX_WIN_LOG_H */
