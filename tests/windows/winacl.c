/* SPDX-License-Identifier: MIT */
/*
 * winacl.c - the launcher's DACL round trip on an object whose security
 * descriptor wine keeps: a registry key (wine keeps no file DACL, it
 * makes one up from the mode bits).  For the wine plumbing tests
 * (tests/windows/wine.sh):
 *
 *   winacl PLAN
 *
 * makes HKCU\Software\vbox-test-acl-PID, merges into its DACL the ACEs
 * of PLAN's object that has the most (win_host.c's own code: the SID
 * strings, the model, the canonical merge, SetSecurityInfo), merges them
 * again, then removes them one by one, and prints "canonical yes|no",
 * "idempotent yes|no", "restored yes|no" and the SDDL at each step.
 */
#include <vbox.h>

#include <stdarg.h>
#include <stdio.h>

#include <windows.h>
#include <aclapi.h>
#include <sddl.h>

#include "aclplan.h"
#include "plan.h"
#include "win_host.h"
#include "win_log.h"

/* The launcher's warnings, plainly (win_log.c is not linked here). */
void host_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void print_sddl(const char *tag, HKEY key)
{
	PSECURITY_DESCRIPTOR sd = NULL;
	wchar_t *text = NULL;
	char *u;

	if (GetSecurityInfo(key, SE_REGISTRY_KEY, DACL_SECURITY_INFORMATION,
			    NULL, NULL, NULL, NULL, &sd) != ERROR_SUCCESS ||
	    !ConvertSecurityDescriptorToStringSecurityDescriptorW(
		    sd, SDDL_REVISION_1, DACL_SECURITY_INFORMATION, &text,
		    NULL)) {
		printf("%s (unreadable)\n", tag);
	} else {
		u = wide_to_utf8(text);
		printf("%s %s\n", tag, u ? u : "?");
		free(u);
	}
	if (text)
		LocalFree(text);
	if (sd)
		LocalFree(sd);
}

static bool same_acl(const struct wacl *a, const struct wacl *b)
{
	size_t i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (!wace_equal(&a->aces[i], &b->aces[i]))
			return false;
	return true;
}

static int fail(const char *what, char *why)
{
	printf("error %s: %s\n", what, why ? why : "?");
	free(why);
	return 2;
}

int main(int argc, char **argv)
{
	struct wacl before, after, again, restored;
	const struct wobj *o = NULL;
	struct aclplan ap;
	struct plan plan;
	char *err = NULL, *buf;
	wchar_t name[64];
	bool prot, wrote;
	size_t i, len;
	HKEY key;
	FILE *f;
	long n;

	if (argc != 2)
		return 2;
	f = fopen(argv[1], "rb");
	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET))
		return fail("open", xstrdup(argv[1]));
	len = (size_t)n;
	buf = xmalloc(len + 1);
	if (fread(buf, 1, len, f) != len)
		return fail("read", xstrdup(argv[1]));
	fclose(f);
	if (plan_decode((uint8_t *)buf, len, &plan, &err) < 0)
		return fail("plan", err);
	free(buf);
	if (aclplan_load(&plan, &ap, &err) < 0)
		return fail("aclplan", err);
	for (i = 0; i < ap.nobjs; i++)
		if (!o || ap.objs[i].naces > o->naces)
			o = &ap.objs[i];
	if (!o)
		return fail("plan", xstrdup("no object"));
	swprintf(name, 64, L"Software\\vbox-test-acl-%lu",
		 (unsigned long)GetCurrentProcessId());
	if (RegCreateKeyExW(HKEY_CURRENT_USER, name, 0, NULL,
			    REG_OPTION_VOLATILE,
			    KEY_ALL_ACCESS | READ_CONTROL | WRITE_DAC, NULL,
			    &key, NULL) != ERROR_SUCCESS)
		return fail("key", xstrdup("cannot create it"));
	print_sddl("before", key);
	if (host_read_dacl(key, SE_REGISTRY_KEY, &before, &prot, &err) < 0)
		return fail("read", err);
	if (host_merge_handle(key, SE_REGISTRY_KEY, o->aces, o->naces, false,
			      &wrote, &err) < 0)
		return fail("merge", err);
	print_sddl("merged", key);
	if (host_read_dacl(key, SE_REGISTRY_KEY, &after, &prot, &err) < 0)
		return fail("read", err);
	if (host_merge_handle(key, SE_REGISTRY_KEY, o->aces, o->naces, false,
			      &wrote, &err) < 0)
		return fail("merge", err);
	if (host_read_dacl(key, SE_REGISTRY_KEY, &again, &prot, &err) < 0)
		return fail("read", err);
	for (i = 0; i < o->naces; i++)
		if (host_remove_handle(key, SE_REGISTRY_KEY, &o->aces[i],
				       &err) < 0)
			return fail("remove", err);
	print_sddl("removed", key);
	if (host_read_dacl(key, SE_REGISTRY_KEY, &restored, &prot, &err) < 0)
		return fail("read", err);
	printf("aces %zu of %s\n", o->naces, o->path);
	printf("canonical %s\n",
	       wacl_canonical(&after) && after.n == before.n + o->naces ?
		       "yes" :
		       "no");
	printf("idempotent %s\n", same_acl(&after, &again) ? "yes" : "no");
	printf("restored %s\n", same_acl(&before, &restored) ? "yes" : "no");
	RegCloseKey(key);
	RegDeleteKeyW(HKEY_CURRENT_USER, name);
	wacl_free(&before);
	wacl_free(&after);
	wacl_free(&again);
	wacl_free(&restored);
	aclplan_release(&ap);
	plan_release(&plan);
	return 0;
}
