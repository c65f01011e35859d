/* SPDX-License-Identifier: MIT */
/*
 * winprobe.c - the small windows child of the wine plumbing tests
 * (tests/windows/wine.sh), cross-built with vbox-exec.exe.
 *
 *   winprobe args ARG...        print each argument as the child got it
 *   winprobe env NAME...        print NAME=VALUE, or "NAME unset"
 *   winprobe exit N             exit with status N (32 bits)
 *   winprobe sleep S            sleep S seconds, then exit 0
 *   winprobe spawn FILE         start "winprobe sleep 600" (a grandchild),
 *                               write its pid to FILE, then sleep
 *   winprobe alive PID          exit 0 when PID runs, 1 when not
 *   winprobe handle VALUE       print "open" or "closed" for a handle value
 *   winprobe run CMD...         run CMD, print "exit N" (all 32 bits)
 *   winprobe run-inherit CMD... the same with an inheritable event whose
 *                               value is in VBOX_TEST_HANDLE
 *   winprobe spawn-exit FILE    the same grandchild, then exit 0 at once
 *   winprobe handle-env         "open" or "closed" for VBOX_TEST_HANDLE
 *   winprobe sddl PATH          print PATH's DACL in SDDL
 *   winprobe token              print what the token says (informational)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <windows.h>
#include <aclapi.h>
#include <sddl.h>
#include <shellapi.h>

static void put_utf8(const wchar_t *w)
{
	char buf[8192];
	int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, buf, sizeof(buf), NULL,
				    NULL);

	if (n <= 0) {
		fputs("(unconvertible)", stdout);
		return;
	}
	fputs(buf, stdout);
}

/* The rest of our own command line after @skip arguments, as given. */
static wchar_t *rest_of_line(int skip)
{
	wchar_t *p = GetCommandLineW();
	int i;
	BOOL q;

	for (i = 0; i < skip; i++) {
		while (*p == L' ' || *p == L'\t')
			p++;
		for (q = FALSE; *p && (q || (*p != L' ' && *p != L'\t')); p++) {
			if (*p == L'\\' && p[1] == L'"')
				p++;
			else if (*p == L'"')
				q = !q;
		}
	}
	while (*p == L' ' || *p == L'\t')
		p++;
	return p;
}

static int run(int skip, BOOL inherit)
{
	STARTUPINFOW si = { .cb = sizeof(si) };
	PROCESS_INFORMATION pi;
	SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
	wchar_t *line = _wcsdup(rest_of_line(skip)), val[32];
	HANDLE ev = NULL;
	DWORD code;

	if (inherit) {
		ev = CreateEventW(&sa, TRUE, FALSE, NULL);
		swprintf(val, 32, L"%llu", (unsigned long long)(UINT_PTR)ev);
		SetEnvironmentVariableW(L"VBOX_TEST_HANDLE", val);
	}
	if (!CreateProcessW(NULL, line, NULL, NULL, inherit, 0, NULL, NULL,
			    &si, &pi)) {
		printf("cannot run: error %lu\n", GetLastError());
		return 2;
	}
	WaitForSingleObject(pi.hProcess, INFINITE);
	GetExitCodeProcess(pi.hProcess, &code);
	printf("exit %lu\n", (unsigned long)code);
	fflush(stdout);
	return 0;
}

int main(void)
{
	int argc, i;
	wchar_t **argv = CommandLineToArgvW(GetCommandLineW(), &argc);
	const wchar_t *cmd;

	if (!argv || argc < 2)
		return 2;
	cmd = argv[1];
	if (!wcscmp(cmd, L"args")) {
		for (i = 2; i < argc; i++) {
			fputc('[', stdout);
			put_utf8(argv[i]);
			fputs("]\n", stdout);
		}
		return 0;
	}
	if (!wcscmp(cmd, L"env")) {
		for (i = 2; i < argc; i++) {
			wchar_t buf[4096];
			DWORD n = GetEnvironmentVariableW(argv[i], buf, 4096);

			put_utf8(argv[i]);
			if (n && n < 4096) {
				fputc('=', stdout);
				put_utf8(buf);
				fputc('\n', stdout);
			} else {
				fputs(" unset\n", stdout);
			}
		}
		return 0;
	}
	if (!wcscmp(cmd, L"exit") && argc == 3) {
		fflush(stdout);
		ExitProcess((UINT)wcstoul(argv[2], NULL, 10));
	}
	if (!wcscmp(cmd, L"sleep") && argc >= 3) {
		Sleep((DWORD)wcstoul(argv[2], NULL, 10) * 1000);
		return 0;
	}
	if ((!wcscmp(cmd, L"spawn") || !wcscmp(cmd, L"spawn-exit")) &&
	    argc == 3) {
		STARTUPINFOW si = { .cb = sizeof(si) };
		PROCESS_INFORMATION pi;
		wchar_t self[MAX_PATH], line[MAX_PATH + 64];
		FILE *f;

		GetModuleFileNameW(NULL, self, MAX_PATH);
		swprintf(line, sizeof(line) / sizeof(line[0]), L"\"%ls\" sleep 600",
			 self);
		if (!CreateProcessW(NULL, line, NULL, NULL, FALSE, 0, NULL,
				    NULL, &si, &pi))
			return 2;
		f = _wfopen(argv[2], L"w");
		if (!f)
			return 2;
		fprintf(f, "%lu\n", (unsigned long)pi.dwProcessId);
		fclose(f);
		if (!wcscmp(cmd, L"spawn-exit"))
			return 0;
		Sleep(600 * 1000);
		return 0;
	}
	if (!wcscmp(cmd, L"alive") && argc == 3) {
		HANDLE p = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE,
				       (DWORD)wcstoul(argv[2], NULL, 10));
		DWORD code;

		if (!p)
			return 1;
		if (!GetExitCodeProcess(p, &code) || code != STILL_ACTIVE)
			return 1;
		return 0;
	}
	if (!wcscmp(cmd, L"handle") && argc == 3) {
		HANDLE h = (HANDLE)(UINT_PTR)wcstoull(argv[2], NULL, 10);
		DWORD flags;

		puts(GetHandleInformation(h, &flags) ? "open" : "closed");
		return 0;
	}
	if (!wcscmp(cmd, L"handle-env")) {
		wchar_t buf[64];
		DWORD flags;
		HANDLE h;

		if (!GetEnvironmentVariableW(L"VBOX_TEST_HANDLE", buf, 64)) {
			puts("no VBOX_TEST_HANDLE");
			return 2;
		}
		h = (HANDLE)(UINT_PTR)wcstoull(buf, NULL, 10);
		puts(GetHandleInformation(h, &flags) ? "open" : "closed");
		return 0;
	}
	if (!wcscmp(cmd, L"sddl") && argc == 3) {
		PSECURITY_DESCRIPTOR sd;
		wchar_t *text;

		if (GetNamedSecurityInfoW(argv[2], SE_FILE_OBJECT,
					  DACL_SECURITY_INFORMATION, NULL, NULL,
					  NULL, NULL, &sd) != ERROR_SUCCESS)
			return 2;
		if (!ConvertSecurityDescriptorToStringSecurityDescriptorW(
			    sd, SDDL_REVISION_1, DACL_SECURITY_INFORMATION,
			    &text, NULL))
			return 2;
		put_utf8(text);
		fputc('\n', stdout);
		return 0;
	}
	if (!wcscmp(cmd, L"run") && argc >= 3)
		return run(2, FALSE);
	if (!wcscmp(cmd, L"run-inherit") && argc >= 3)
		return run(2, TRUE);
	if (!wcscmp(cmd, L"token")) {
		HANDLE tok;

		if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &tok))
			return 2;
		printf("restricted %s\n", IsTokenRestricted(tok) ? "yes" : "no");
		return 0;
	}
	return 2;
}
