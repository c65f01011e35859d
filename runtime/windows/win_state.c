/* SPDX-License-Identifier: MIT */
/*
 * win_state.c - the state file of the windows launcher on the host
 * (win_host.h; doc/launcher.md, "The state file"): its directory and its
 * lock, reading and writing it, the liveness of the launches that hold
 * entries in it (holders), and the revocation a dead holder left behind,
 * as the state_ops that state.c drives.
 */
#include <vbox.h>

#include <stdio.h>

#include <windows.h>

#include "state.h"
#include "win_host.h"
#include "win_log.h"

/* ------------------------------------------------------------------ */
/* Holders. */

static uint64_t process_start(HANDLE p)
{
	FILETIME c, e, k, u;

	if (!GetProcessTimes(p, &c, &e, &k, &u))
		return 0;
	return (uint64_t)c.dwHighDateTime << 32 | c.dwLowDateTime;
}

char *holder_self(void)
{
	return xasprintf("%lu:%llu", (unsigned long)GetCurrentProcessId(),
			 (unsigned long long)process_start(
				 GetCurrentProcess()));
}

bool holder_alive(const char *holder)
{
	unsigned long pid;
	unsigned long long start;
	DWORD code, err;
	HANDLE p;
	bool alive;
	int n = 0;

	if (sscanf(holder, "%lu:%llu%n", &pid, &start, &n) != 2 ||
	    (size_t)n != strlen(holder))
		return false;
	p = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, (DWORD)pid);
	if (!p) {
		err = GetLastError();
		/* Not ours to open: it runs, as someone else. */
		return err == ERROR_ACCESS_DENIED;
	}
	alive = process_start(p) == start && GetExitCodeProcess(p, &code) &&
		code == STILL_ACTIVE;
	CloseHandle(p);
	return alive;
}

/* ------------------------------------------------------------------ */
/* The state file. */

struct file_ctx {
	wchar_t *dir;
	HANDLE lock;
	char *err_path;
};

static wchar_t *in_dir(const wchar_t *dir, const wchar_t *name)
{
	size_t n = wcslen(dir) + wcslen(name) + 2;
	wchar_t *w = xcalloc(n, sizeof(*w));

	swprintf(w, n, L"%ls\\%ls", dir, name);
	return w;
}

static int st_lock(void *ctx, char **err)
{
	struct file_ctx *c = ctx;
	OVERLAPPED ov = { 0 };
	wchar_t *p = in_dir(c->dir, L"deny_acl_state.lock");
	char *e;

	c->lock = CreateFileW(p, GENERIC_READ | GENERIC_WRITE,
			      FILE_SHARE_READ | FILE_SHARE_WRITE, NULL,
			      OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
	free(p);
	if (c->lock == INVALID_HANDLE_VALUE) {
		e = win_strerror(GetLastError());
		*err = xasprintf("%s: cannot open the state's lock: %s",
				 c->err_path, e);
		free(e);
		return -1;
	}
	if (!LockFileEx(c->lock, LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &ov)) {
		e = win_strerror(GetLastError());
		*err = xasprintf("%s: cannot lock the state: %s", c->err_path,
				 e);
		free(e);
		CloseHandle(c->lock);
		return -1;
	}
	return 0;
}

static void st_unlock(void *ctx)
{
	struct file_ctx *c = ctx;
	OVERLAPPED ov = { 0 };

	UnlockFileEx(c->lock, 0, 1, 0, &ov);
	CloseHandle(c->lock);
	c->lock = INVALID_HANDLE_VALUE;
}

static int st_read(void *ctx, char **buf, size_t *len, char **err)
{
	struct file_ctx *c = ctx;
	wchar_t *p = in_dir(c->dir, L"deny_acl_state.json");
	LARGE_INTEGER size;
	DWORD got, e;
	HANDLE h;
	char *m;

	*buf = NULL;
	h = CreateFileW(p, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING,
			FILE_ATTRIBUTE_NORMAL, NULL);
	free(p);
	if (h == INVALID_HANDLE_VALUE) {
		e = GetLastError();
		if (e == ERROR_FILE_NOT_FOUND)
			return 0;
		m = win_strerror(e);
		*err = xasprintf("%s: %s", c->err_path, m);
		free(m);
		return -1;
	}
	if (!GetFileSizeEx(h, &size) || size.QuadPart < 0 ||
	    size.QuadPart > STATE_MAX_BYTES) {
		CloseHandle(h);
		*err = xasprintf("%s: cannot size it, or larger than 16 MiB",
				 c->err_path);
		return -1;
	}
	*buf = xmalloc((size_t)size.QuadPart + 1);
	if (!ReadFile(h, *buf, (DWORD)size.QuadPart, &got, NULL) ||
	    got != (DWORD)size.QuadPart) {
		CloseHandle(h);
		free(*buf);
		*buf = NULL;
		*err = xasprintf("%s: short read", c->err_path);
		return -1;
	}
	CloseHandle(h);
	(*buf)[got] = '\0';
	*len = got;
	return 0;
}

static int st_write(void *ctx, const char *buf, size_t len, char **err)
{
	struct file_ctx *c = ctx;
	wchar_t name[64], *tmp, *dst;
	DWORD put;
	HANDLE h;
	char *e;
	int ret = -1;

	swprintf(name, array_size(name), L"deny_acl_state.json.%lu.tmp",
		 (unsigned long)GetCurrentProcessId());
	tmp = in_dir(c->dir, name);
	dst = in_dir(c->dir, L"deny_acl_state.json");
	h = CreateFileW(tmp, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS,
			FILE_ATTRIBUTE_NORMAL, NULL);
	if (h == INVALID_HANDLE_VALUE)
		goto fail;
	if (!WriteFile(h, buf, (DWORD)len, &put, NULL) || put != len ||
	    !FlushFileBuffers(h)) {
		CloseHandle(h);
		DeleteFileW(tmp);
		goto fail;
	}
	CloseHandle(h);
	/* Replaced whole: a reader sees the old state or the new one. */
	if (!MoveFileExW(tmp, dst,
			 MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)) {
		DeleteFileW(tmp);
		goto fail;
	}
	ret = 0;
	goto out;
fail:
	e = win_strerror(GetLastError());
	*err = xasprintf("%s: cannot write the state: %s", c->err_path, e);
	free(e);
out:
	free(tmp);
	free(dst);
	return ret;
}

static bool st_alive(void *ctx, const char *holder)
{
	(void)ctx;
	return holder_alive(holder);
}

static int st_revoke(void *ctx, const struct srec *r)
{
	char *why = NULL;
	int ret;

	(void)ctx;
	ret = host_revoke(r, &why);
	if (ret < 0) {
		host_warn("%s: cannot revoke what an earlier launch left (%s); "
			  "kept in the state for the next run",
			  r->path, why ? why : "?");
		free(why);
	}
	return ret;
}

int host_state_ops(const char *dir, struct state_ops *ops, char **err)
{
	struct file_ctx *c;
	wchar_t *w;
	char *e;

	w = utf8_to_wide(dir);
	if (!w) {
		*err = xasprintf("%s: not valid UTF-8", dir);
		return -1;
	}
	/* Every missing directory on the way. */
	for (wchar_t *p = wcslen(w) > 3 ? w + 3 : w; *p; p++) {
		if (*p != L'\\')
			continue;
		*p = L'\0';
		CreateDirectoryW(w, NULL);
		*p = L'\\';
	}
	if (!CreateDirectoryW(w, NULL) &&
	    GetLastError() != ERROR_ALREADY_EXISTS) {
		e = win_strerror(GetLastError());
		*err = xasprintf("%s: cannot make the state directory: %s", dir,
				 e);
		free(e);
		free(w);
		return -1;
	}
	c = xzalloc(sizeof(*c));
	c->dir = w;
	c->lock = INVALID_HANDLE_VALUE;
	c->err_path = xasprintf("%s\\deny_acl_state.json", dir);
	ops->ctx = c;
	ops->lock = st_lock;
	ops->unlock = st_unlock;
	ops->read = st_read;
	ops->write = st_write;
	ops->alive = st_alive;
	ops->revoke = st_revoke;
	return 0;
}

void host_state_ops_free(struct state_ops *ops)
{
	struct file_ctx *c = ops->ctx;

	if (!c)
		return;
	free(c->dir);
	free(c->err_path);
	free(c);
	ops->ctx = NULL;
}
