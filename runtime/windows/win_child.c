/* SPDX-License-Identifier: MIT */
/*
 * win_child.c - the child's run (win_child.h): started suspended with an
 * explicit handle list inside a job object that kills the whole tree
 * when it closes, resumed, waited for (bounded by --timeout, ended by
 * Ctrl-C), the tree ended, its status returned whole.
 */
#include <vbox.h>

#include <windows.h>

#include "exit_codes.h"
#include "win_child.h"
#include "win_host.h"
#include "win_log.h"

/* 128 + SIGINT, as on linux, when Ctrl-C ended the tree. */
#define EXIT_INTERRUPTED 130

static HANDLE the_job;
static volatile LONG interrupted;

/*
 * Wait for @h until @ms passed (0: for ever): WAIT_OBJECT_0,
 * WAIT_TIMEOUT or WAIT_FAILED.  One wait takes a DWORD of milliseconds,
 * INFINITE included, so a longer bound is waited for in slices.
 */
static DWORD wait_bounded(HANDLE h, ULONGLONG ms)
{
	ULONGLONG end = GetTickCount64() + ms, now;
	DWORD w;

	if (!ms)
		return WaitForSingleObject(h, INFINITE);
	for (;;) {
		now = GetTickCount64();
		if (now >= end)
			return WAIT_TIMEOUT;
		w = WaitForSingleObject(h, end - now > 0x7fffffff ?
						   0x7fffffff :
						   (DWORD)(end - now));
		if (w != WAIT_TIMEOUT)
			return w;
	}
}

/*
 * Ctrl-C, Ctrl-Break, the console closed: the whole tree ends, 130.  The
 * child is in a process group of its own (CREATE_NEW_PROCESS_GROUP), so
 * the console's Ctrl-C reaches only this handler, and the status does
 * not depend on whether the child or the handler is quicker.
 */
static BOOL WINAPI on_ctrl(DWORD type)
{
	(void)type;
	InterlockedExchange(&interrupted, 1);
	if (the_job)
		TerminateJobObject(the_job, EXIT_INTERRUPTED);
	return TRUE;
}

static int create_failed(const char *name)
{
	DWORD e = GetLastError();
	char *m = win_strerror(e);
	int rc;

	switch (e) {
	case ERROR_FILE_NOT_FOUND:
	case ERROR_PATH_NOT_FOUND:
	case ERROR_INVALID_NAME:
		rc = EXIT_NOT_FOUND;
		break;
	case ERROR_ACCESS_DENIED:
	case ERROR_BAD_EXE_FORMAT:
	case ERROR_EXE_MACHINE_TYPE_MISMATCH:
		rc = EXIT_NOT_EXECUTABLE;
		break;
	default:
		rc = EXIT_LAUNCHER;
		break;
	}
	vx_error("%s: %s", name, m);
	free(m);
	return rc;
}

/* The handles the child inherits: its standard ones, and nothing else. */
static size_t std_handles(HANDLE out[3])
{
	static const DWORD which[3] = { STD_INPUT_HANDLE, STD_OUTPUT_HANDLE,
					STD_ERROR_HANDLE };
	size_t i, n = 0;
	HANDLE h, d;

	for (i = 0; i < 3; i++) {
		h = GetStdHandle(which[i]);
		out[i] = NULL;
		if (!h || h == INVALID_HANDLE_VALUE)
			continue;
		if (!DuplicateHandle(GetCurrentProcess(), h,
				     GetCurrentProcess(), &d, 0, TRUE,
				     DUPLICATE_SAME_ACCESS))
			continue;
		out[i] = d;
	}
	/* Each is a duplicate of its own: the list never names one twice. */
	for (i = 0; i < 3; i++)
		n += out[i] != NULL;
	return n;
}

int run_child(const char *name, ULONGLONG timeout_ms, HANDLE token,
	      const wchar_t *cmdline, wchar_t *env, const wchar_t *cwd)
{
	JOBOBJECT_EXTENDED_LIMIT_INFORMATION lim;
	STARTUPINFOEXW si;
	PROCESS_INFORMATION pi;
	HANDLE inherit[3], list[3];
	SIZE_T attr_size = 0;
	DWORD wait, code = EXIT_LAUNCHER;
	size_t i, nlist = 0;
	char *e;
	int rc = EXIT_LAUNCHER;

	the_job = CreateJobObjectW(NULL, NULL);
	if (!the_job) {
		e = win_strerror(GetLastError());
		vx_error("cannot create the job object: %s", e);
		free(e);
		return EXIT_LAUNCHER;
	}
	memset(&lim, 0, sizeof(lim));
	lim.BasicLimitInformation.LimitFlags =
		JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE |
		JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION;
	if (!SetInformationJobObject(the_job, JobObjectExtendedLimitInformation,
				     &lim, sizeof(lim))) {
		e = win_strerror(GetLastError());
		vx_error("cannot set the job's kill-on-close limit: %s", e);
		free(e);
		goto out_job;
	}
	SetConsoleCtrlHandler(on_ctrl, TRUE);

	std_handles(inherit);
	memset(&si, 0, sizeof(si));
	si.StartupInfo.cb = sizeof(si);
	si.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
	si.StartupInfo.hStdInput = inherit[0];
	si.StartupInfo.hStdOutput = inherit[1];
	si.StartupInfo.hStdError = inherit[2];
	for (i = 0; i < 3; i++)
		if (inherit[i])
			list[nlist++] = inherit[i];
	InitializeProcThreadAttributeList(NULL, 1, 0, &attr_size);
	si.lpAttributeList = xzalloc(attr_size);
	if (!InitializeProcThreadAttributeList(si.lpAttributeList, 1, 0,
					       &attr_size) ||
	    (nlist && !UpdateProcThreadAttribute(
			      si.lpAttributeList, 0,
			      PROC_THREAD_ATTRIBUTE_HANDLE_LIST, list,
			      nlist * sizeof(HANDLE), NULL, NULL))) {
		e = win_strerror(GetLastError());
		vx_error("cannot build the handle list: %s", e);
		free(e);
		goto out_attr;
	}
	vx_log("handle list: %zu standard handles", nlist);
	if (!CreateProcessAsUserW(token, NULL, (wchar_t *)cmdline, NULL, NULL,
				  nlist > 0,
				  CREATE_SUSPENDED |
					  EXTENDED_STARTUPINFO_PRESENT |
					  CREATE_UNICODE_ENVIRONMENT |
					  CREATE_NEW_PROCESS_GROUP,
				  env, cwd, &si.StartupInfo, &pi)) {
		rc = create_failed(name);
		goto out_list;
	}
	if (!AssignProcessToJobObject(the_job, pi.hProcess)) {
		e = win_strerror(GetLastError());
		vx_error("cannot put the command into its job: %s", e);
		free(e);
		TerminateProcess(pi.hProcess, EXIT_LAUNCHER);
		goto out_proc;
	}
	if (ResumeThread(pi.hThread) == (DWORD)-1) {
		e = win_strerror(GetLastError());
		vx_error("cannot resume the command: %s", e);
		free(e);
		TerminateJobObject(the_job, EXIT_LAUNCHER);
		goto out_proc;
	}
	vx_log("stage: command started (pid %lu)",
	       (unsigned long)pi.dwProcessId);
	wait = wait_bounded(pi.hProcess, timeout_ms);
	if (wait == WAIT_TIMEOUT) {
		TerminateJobObject(the_job, EXIT_TIMEOUT);
		WaitForSingleObject(pi.hProcess, INFINITE);
		vx_error("timed out after %g s (--timeout): the command's "
			 "whole process tree was ended; exit status 124",
			 (double)timeout_ms / 1e3);
		rc = EXIT_TIMEOUT;
		goto out_proc;
	}
	if (wait != WAIT_OBJECT_0 || !GetExitCodeProcess(pi.hProcess, &code)) {
		e = win_strerror(GetLastError());
		vx_error("cannot wait for the command: %s", e);
		free(e);
		TerminateJobObject(the_job, EXIT_LAUNCHER);
		goto out_proc;
	}
	/* The command is done: what it left running ends with it. */
	TerminateJobObject(the_job, code);
	rc = interrupted ? EXIT_INTERRUPTED : (int)code;
	vx_log("stage: command exited with status %lu", (unsigned long)code);
out_proc:
	CloseHandle(pi.hThread);
	CloseHandle(pi.hProcess);
out_list:
	DeleteProcThreadAttributeList(si.lpAttributeList);
out_attr:
	free(si.lpAttributeList);
	for (i = 0; i < 3; i++)
		if (inherit[i])
			CloseHandle(inherit[i]);
out_job:
	return rc;
}
