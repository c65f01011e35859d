/* SPDX-License-Identifier: MIT */
/*
 * win_child.h - running the child in its job object (win_child.c).
 */
#ifndef VBOX_WIN_CHILD_H
#define VBOX_WIN_CHILD_H

#include <windows.h>

/*
 * run_child - run @cmdline (the command @name, for messages) with
 * @token, the environment block @env and the working directory @cwd, in
 * a job object; wait at most @timeout_ms (0: no bound).  The child's
 * status (all 32 bits), 124 on timeout, 130 when Ctrl-C ended it, or
 * 125, 126, 127 when it could not start.
 */
int run_child(const char *name, ULONGLONG timeout_ms, HANDLE token,
	      const wchar_t *cmdline, wchar_t *env, const wchar_t *cwd);

#endif /* VBOX_WIN_CHILD_H */
