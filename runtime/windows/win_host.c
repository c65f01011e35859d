/* SPDX-License-Identifier: MIT */
/*
 * win_host.c - what vbox-exec.exe does to the host (win_host.h): text
 * and SIDs, ACEs and labels on objects opened by handle, and the gaps of
 * inherited DACLs closed (the state file and its holders are
 * win_state.c's).
 *
 * Every object is opened once with "\\?\" and FILE_FLAG_BACKUP_SEMANTICS
 * | FILE_FLAG_OPEN_REPARSE_POINT, so a reparse point is opened itself and
 * never followed; the handle's final path must be the path the plan
 * names (a junction or symbolic link among its ancestors changes it),
 * and only then is its security descriptor read and written, through the
 * same handle.
 */
#include <vbox.h>

#include <stdio.h>

#include <windows.h>
#include <aclapi.h>
#include <sddl.h>

#include "aclplan.h"
#include "grow.h"
#include "state.h"
#include "win_host.h"

/* ------------------------------------------------------------------ */
/* Text. */

wchar_t *utf8_to_wide(const char *s)
{
	int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1,
				    NULL, 0);
	wchar_t *w;

	if (n <= 0)
		return NULL;
	w = xcalloc((size_t)n, sizeof(*w));
	if (MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n) !=
	    n) {
		free(w);
		return NULL;
	}
	return w;
}

char *wide_to_utf8(const wchar_t *w)
{
	int n = WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, w, -1, NULL,
				    0, NULL, NULL);
	char *s;

	if (n <= 0)
		return NULL;
	s = xmalloc((size_t)n);
	if (WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, w, -1, s, n,
				NULL, NULL) != n) {
		free(s);
		return NULL;
	}
	return s;
}

char *win_strerror(DWORD code)
{
	wchar_t *buf = NULL;
	char *s, *p;
	DWORD n;

	n = FormatMessageW(FORMAT_MESSAGE_ALLOCATE_BUFFER |
				   FORMAT_MESSAGE_FROM_SYSTEM |
				   FORMAT_MESSAGE_IGNORE_INSERTS,
			   NULL, code, 0, (LPWSTR)&buf, 0, NULL);
	s = n && buf ? wide_to_utf8(buf) : NULL;
	if (buf)
		LocalFree(buf);
	if (!s)
		return xasprintf("error %lu", (unsigned long)code);
	/* No trailing ".\r\n". */
	for (p = s + strlen(s); p > s && strchr(" .\r\n", p[-1]); p--)
		p[-1] = '\0';
	p = xasprintf("%s (error %lu)", s, (unsigned long)code);
	free(s);
	return p;
}

/* "\\?\" + @path, in UTF-16. */
static wchar_t *long_path(const char *path)
{
	char *s = xasprintf("\\\\?\\%s", path);
	wchar_t *w = utf8_to_wide(s);

	free(s);
	return w;
}

/* ------------------------------------------------------------------ */
/* SIDs. */

PSID capability_sid_new(const uint32_t sub[CAPSID_NSUB])
{
	SID_IDENTIFIER_AUTHORITY app = { SECURITY_APP_PACKAGE_AUTHORITY };
	DWORD len = GetSidLengthRequired(CAPSID_NSUB);
	PSID sid = xzalloc(len);
	unsigned i;

	/*
	 * AllocateAndInitializeSid() takes at most eight sub-authorities;
	 * ours has nine (3 and the digest), so the SID is built in place.
	 */
	if (!InitializeSid(sid, &app, CAPSID_NSUB))
		BUG("InitializeSid refused %u sub-authorities", CAPSID_NSUB);
	for (i = 0; i < CAPSID_NSUB; i++)
		*GetSidSubAuthority(sid, i) = sub[i];
	if (!IsValidSid(sid))
		BUG("the capability SID is not valid");
	return sid;
}

char *sid_text(PSID sid)
{
	wchar_t *w = NULL;
	char *s;

	if (!ConvertSidToStringSidW(sid, &w))
		return NULL;
	s = wide_to_utf8(w);
	LocalFree(w);
	return s;
}

/* ------------------------------------------------------------------ */
/* Objects. */

/*
 * Open @path for its security descriptor; 1 when it does not exist, 0
 * when *@h is open and checked, -1 with *@why.
 */
static int open_object(const char *path, DWORD access, HANDLE *h,
		       char **why)
{
	BY_HANDLE_FILE_INFORMATION info;
	/* On the heap: a 64 KiB frame is more than a stack probe needs. */
	wchar_t *w = long_path(path), *final;
	const DWORD nfinal = WPATH_MAX + 8;
	char *got, *e;
	DWORD n, err;

	if (!w) {
		*why = xstrdup("the path is not valid UTF-8");
		return -1;
	}
	*h = CreateFileW(w, access,
			 FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
			 NULL, OPEN_EXISTING,
			 FILE_FLAG_BACKUP_SEMANTICS |
				 FILE_FLAG_OPEN_REPARSE_POINT,
			 NULL);
	free(w);
	if (*h == INVALID_HANDLE_VALUE) {
		err = GetLastError();
		if (err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND)
			return 1;
		e = win_strerror(err);
		*why = xasprintf("cannot open it: %s", e);
		free(e);
		return -1;
	}
	if (!GetFileInformationByHandle(*h, &info)) {
		e = win_strerror(GetLastError());
		*why = xasprintf("cannot read its attributes: %s", e);
		free(e);
		goto fail;
	}
	if (info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) {
		*why = xstrdup("it is a reparse point (a junction or symbolic "
			       "link): refused, as on linux a symlinked grant "
			       "is");
		goto fail;
	}
	final = xcalloc(nfinal, sizeof(*final));
	n = GetFinalPathNameByHandleW(*h, final, nfinal,
				      FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
	if (!n || n >= nfinal) {
		free(final);
		e = win_strerror(GetLastError());
		*why = xasprintf("cannot read its final path: %s", e);
		free(e);
		goto fail;
	}
	got = wide_to_utf8(final);
	w = long_path(path);
	if (!got || !w || CompareStringOrdinal(final, -1, w, -1, TRUE) !=
				  CSTR_EQUAL) {
		*why = xasprintf("it resolves to '%s' (a junction, symbolic "
				 "link or short name on the way): refused",
				 got ? got : "?");
		free(got);
		free(w);
		free(final);
		goto fail;
	}
	free(got);
	free(w);
	free(final);
	return 0;
fail:
	CloseHandle(*h);
	*h = INVALID_HANDLE_VALUE;
	return -1;
}

/* The model of @acl (NULL: empty).  -1 for an ACE kind it cannot hold. */
static int acl_to_model(PACL acl, struct wacl *out)
{
	ACL_SIZE_INFORMATION si;
	ACE_HEADER *hdr;
	struct wace a;
	PSID sid;
	DWORD i;

	memset(out, 0, sizeof(*out));
	if (!acl)
		return 0;
	if (!GetAclInformation(acl, &si, sizeof(si), AclSizeInformation))
		return -1;
	for (i = 0; i < si.AceCount; i++) {
		if (!GetAce(acl, i, (void **)&hdr))
			goto fail;
		if (hdr->AceType == ACCESS_ALLOWED_ACE_TYPE) {
			ACCESS_ALLOWED_ACE *x = (ACCESS_ALLOWED_ACE *)hdr;

			a.type = WACE_ALLOW;
			a.mask = x->Mask;
			sid = &x->SidStart;
		} else if (hdr->AceType == ACCESS_DENIED_ACE_TYPE) {
			ACCESS_DENIED_ACE *x = (ACCESS_DENIED_ACE *)hdr;

			a.type = WACE_DENY;
			a.mask = x->Mask;
			sid = &x->SidStart;
		} else {
			/* Object or callback ACEs: not ours to reorder. */
			goto fail;
		}
		a.flags = hdr->AceFlags;
		a.sid = sid_text(sid);
		if (!a.sid)
			goto fail;
		wacl_add(out, &a);
		free(a.sid);
	}
	return 0;
fail:
	wacl_free(out);
	return -1;
}

static PACL model_to_acl(const struct wacl *m)
{
	PSID *sids = xcalloc(m->n ? m->n : 1, sizeof(*sids));
	DWORD size = sizeof(ACL);
	PACL acl = NULL;
	wchar_t *w;
	size_t i;
	BOOL ok;

	for (i = 0; i < m->n; i++) {
		w = utf8_to_wide(m->aces[i].sid);
		if (!w || !ConvertStringSidToSidW(w, &sids[i])) {
			free(w);
			goto out;
		}
		free(w);
		size += sizeof(ACCESS_ALLOWED_ACE) + GetLengthSid(sids[i]);
	}
	acl = xzalloc(size);
	if (!InitializeAcl(acl, size, ACL_REVISION))
		goto fail;
	for (i = 0; i < m->n; i++) {
		const struct wace *a = &m->aces[i];

		if (a->type == WACE_DENY)
			ok = AddAccessDeniedAceEx(acl, ACL_REVISION, a->flags,
						  a->mask, sids[i]);
		else
			ok = AddAccessAllowedAceEx(acl, ACL_REVISION, a->flags,
						   a->mask, sids[i]);
		if (!ok)
			goto fail;
	}
	goto out;
fail:
	free(acl);
	acl = NULL;
out:
	for (i = 0; i < m->n; i++)
		if (sids[i])
			LocalFree(sids[i]);
	free(sids);
	return acl;
}

/* Read @h's DACL into @m, with whether it is protected. */
int host_read_dacl(HANDLE h, SE_OBJECT_TYPE type, struct wacl *m,
		   bool *protected, char **why)
{
	PSECURITY_DESCRIPTOR sd = NULL;
	SECURITY_DESCRIPTOR_CONTROL ctl = 0;
	DWORD rev, err;
	PACL dacl = NULL;
	char *e;

	err = GetSecurityInfo(h, type, DACL_SECURITY_INFORMATION,
			      NULL, NULL, &dacl, NULL, &sd);
	if (err != ERROR_SUCCESS) {
		e = win_strerror(err);
		*why = xasprintf("cannot read its DACL: %s", e);
		free(e);
		return -1;
	}
	if (!GetSecurityDescriptorControl(sd, &ctl, &rev))
		ctl = 0;
	*protected = ctl & SE_DACL_PROTECTED;
	if (acl_to_model(dacl, m) < 0) {
		LocalFree(sd);
		*why = xstrdup("its DACL holds ACE kinds the launcher does not "
			       "rewrite");
		return -1;
	}
	LocalFree(sd);
	return 0;
}

static int write_dacl(HANDLE h, SE_OBJECT_TYPE type, const struct wacl *m,
		      bool protected, char **why)
{
	PACL acl = model_to_acl(m);
	DWORD err;
	char *e;

	if (!acl) {
		*why = xstrdup("cannot build its new DACL");
		return -1;
	}
	/* SetSecurityInfo propagates inheritable ACEs to descendants. */
	err = SetSecurityInfo(h, type,
			      DACL_SECURITY_INFORMATION |
				      (protected ?
					       PROTECTED_DACL_SECURITY_INFORMATION :
					       UNPROTECTED_DACL_SECURITY_INFORMATION),
			      NULL, NULL, acl, NULL);
	free(acl);
	if (err != ERROR_SUCCESS) {
		e = win_strerror(err);
		*why = xasprintf("cannot write its DACL: %s", e);
		free(e);
		return -1;
	}
	return 0;
}

/* Give @h a low label (NO_WRITE_UP, OICI), or none when !@low. */
static int write_label(HANDLE h, bool low, char **why)
{
	SID_IDENTIFIER_AUTHORITY ml = { SECURITY_MANDATORY_LABEL_AUTHORITY };
	BYTE sidbuf[SECURITY_MAX_SID_SIZE];
	PSID sid = (PSID)sidbuf;
	DWORD size, err;
	PACL sacl;
	char *e;

	if (!InitializeSid(sid, &ml, 1))
		BUG("InitializeSid refused the low label");
	*GetSidSubAuthority(sid, 0) = SECURITY_MANDATORY_LOW_RID;
	size = sizeof(ACL) + sizeof(SYSTEM_MANDATORY_LABEL_ACE) +
	       GetLengthSid(sid);
	sacl = xzalloc(size);
	if (!InitializeAcl(sacl, size, ACL_REVISION) ||
	    (low && !AddMandatoryAce(sacl, ACL_REVISION,
				     OBJECT_INHERIT_ACE | CONTAINER_INHERIT_ACE,
				     SYSTEM_MANDATORY_LABEL_NO_WRITE_UP, sid))) {
		free(sacl);
		*why = xstrdup("cannot build its label");
		return -1;
	}
	err = SetSecurityInfo(h, SE_FILE_OBJECT, LABEL_SECURITY_INFORMATION,
			      NULL, NULL, NULL, sacl);
	free(sacl);
	if (err != ERROR_SUCCESS) {
		e = win_strerror(err);
		*why = xasprintf("cannot set its integrity label: %s", e);
		free(e);
		return -1;
	}
	return 0;
}

int host_merge_handle(HANDLE h, SE_OBJECT_TYPE type, const struct wace *add,
		      size_t nadd, bool only_gap, bool *wrote, char **why)
{
	struct wacl cur, next;
	bool protected;
	int r;

	*wrote = false;
	if (host_read_dacl(h, type, &cur, &protected, why) < 0)
		return -1;
	if (only_gap && !wacl_gap(&cur, protected)) {
		wacl_free(&cur);
		return 0;
	}
	if (wacl_merge(&cur, add, nadd, &next) < 0) {
		wacl_free(&cur);
		*why = xstrdup("its DACL is not in canonical order (explicit "
			       "deny, explicit allow, inherited): merging "
			       "into it could widen it");
		return -1;
	}
	wacl_free(&cur);
	*wrote = true;
	r = write_dacl(h, type, &next, protected, why);
	wacl_free(&next);
	return r < 0 ? -1 : 1;
}

int host_remove_handle(HANDLE h, SE_OBJECT_TYPE type, const struct wace *a,
		       char **why)
{
	struct wacl cur, next;
	bool protected;
	int r;

	if (host_read_dacl(h, type, &cur, &protected, why) < 0)
		return -1;
	if (!wacl_remove(&cur, a, &next)) {
		wacl_free(&cur);
		wacl_free(&next);
		return 0;
	}
	wacl_free(&cur);
	r = write_dacl(h, type, &next, protected, why);
	wacl_free(&next);
	return r < 0 ? -1 : 1;
}

int host_apply(const struct wobj *o, bool *created, bool *wrote, char **why)
{
	DWORD access = READ_CONTROL | WRITE_DAC |
		       (o->label_low ? WRITE_OWNER : 0);
	wchar_t *w;
	HANDLE h;
	int r;

	*created = false;
	*wrote = false;
	r = open_object(o->path, access, &h, why);
	if (r == 1 && o->placeholder) {
		w = long_path(o->path);
		if (!w || !CreateDirectoryW(w, NULL)) {
			char *e = win_strerror(GetLastError());

			free(w);
			*why = xasprintf("it is missing and its placeholder "
					 "cannot be made: %s",
					 e);
			free(e);
			return -1;
		}
		free(w);
		*created = true;
		r = open_object(o->path, access, &h, why);
	}
	if (r != 0)
		return r;
	if (host_merge_handle(h, SE_FILE_OBJECT, o->aces, o->naces, false,
			      wrote, why) < 0)
		goto fail;
	if (o->label_low && write_label(h, true, why) < 0)
		goto fail;
	CloseHandle(h);
	return 0;
fail:
	CloseHandle(h);
	return -1;
}

/*
 * Is @path a directory?  1 yes, 0 not (a file, or gone since it was
 * opened: nothing below it to walk), -1 with *@why when it cannot be
 * told.
 */
static int is_directory(const char *path, char **why)
{
	wchar_t *w = long_path(path);
	DWORD attr, err;
	char *e;

	if (!w) {
		*why = xasprintf("cannot convert %s to UTF-16", path);
		return -1;
	}
	attr = GetFileAttributesW(w);
	err = GetLastError();
	free(w);
	if (attr != INVALID_FILE_ATTRIBUTES)
		return (attr & FILE_ATTRIBUTE_DIRECTORY) ? 1 : 0;
	if (err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND)
		return 0;
	e = win_strerror(err);
	*why = xasprintf("cannot read the attributes of %s: %s", path, e);
	free(e);
	return -1;
}

/* At most this many objects below one entry (a bound on the walk). */
#define GAP_WALK_MAX 200000

/* Give @path @add explicitly when its DACL has a gap; 1 when it did. */
static int close_gap(const char *path, const struct wace *add, size_t nadd,
		     char **why)
{
	bool wrote;
	HANDLE h;
	int r;

	r = open_object(path, READ_CONTROL | WRITE_DAC, &h, why);
	if (r == 1)
		return 0; /* gone since the listing */
	if (r < 0)
		return -1;
	r = host_merge_handle(h, SE_FILE_OBJECT, add, nadd, true, &wrote, why);
	CloseHandle(h);
	return r;
}

long host_close_gaps(const struct aclplan *plan, const struct wobj *o,
		     struct sstate *s, const char *holder, char **why)
{
	WIN32_FIND_DATAW fd;
	struct wace *add = xcalloc(o->naces, sizeof(*add));
	char **stack = NULL, *dir, *name, *child, *e, *sub = NULL;
	size_t nadd = 0, nstack = 0, cap = 0, i, seen = 0;
	long fixed = 0;
	wchar_t *pat;
	HANDLE f;
	int r;

	for (i = 0; i < o->naces; i++)
		if (o->aces[i].flags & (WACE_OI | WACE_CI))
			add[nadd++] = o->aces[i];
	/*
	 * A file has nothing below it: its own DACL, merged already, is
	 * all a row on it needs.  Listing "FILE\*" is no way to learn that
	 * (wine answers ERROR_INVALID_NAME, windows ERROR_DIRECTORY).
	 */
	r = is_directory(o->path, why);
	if (r <= 0) {
		free(add);
		return r < 0 ? -1 : 0;
	}
	GROW(stack, cap, 1);
	stack[nstack++] = xstrdup(o->path);
	while (nstack) {
		dir = stack[--nstack];
		e = xasprintf("\\\\?\\%s\\*", dir);
		pat = utf8_to_wide(e);
		free(e);
		f = pat ? FindFirstFileExW(pat, FindExInfoBasic, &fd,
					   FindExSearchNameMatch, NULL, 0) :
			  INVALID_HANDLE_VALUE;
		free(pat);
		if (f == INVALID_HANDLE_VALUE) {
			DWORD err = GetLastError();

			/* A file, or an empty or vanished directory. */
			if (err == ERROR_DIRECTORY || err == ERROR_FILE_NOT_FOUND ||
			    err == ERROR_PATH_NOT_FOUND || err == ERROR_NO_MORE_FILES) {
				free(dir);
				continue;
			}
			e = win_strerror(err);
			*why = xasprintf("cannot list %s: %s", dir, e);
			free(e);
			free(dir);
			goto fail;
		}
		do {
			if (!wcscmp(fd.cFileName, L".") ||
			    !wcscmp(fd.cFileName, L".."))
				continue;
			name = wide_to_utf8(fd.cFileName);
			if (!name)
				continue;
			child = xasprintf("%s\\%s", dir, name);
			free(name);
			if (++seen > GAP_WALK_MAX) {
				*why = xasprintf("more than %d objects below "
						 "it: too many to check",
						 GAP_WALK_MAX);
				free(child);
				FindClose(f);
				free(dir);
				goto fail;
			}
			/* Its own entry decides below it; links lead out. */
			if (aclplan_entry_at(plan, child) ||
			    (fd.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)) {
				free(child);
				continue;
			}
			r = close_gap(child, add, nadd, &sub);
			if (r < 0) {
				*why = xasprintf("%s: %s", child, sub);
				free(sub);
				free(child);
				FindClose(f);
				free(dir);
				goto fail;
			}
			if (r == 1) {
				for (i = 0; i < nadd; i++)
					sstate_add(s, holder, child, SREC_ACE,
						   &add[i]);
				fixed++;
			}
			if (fd.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) {
				GROW(stack, cap, nstack + 1);
				stack[nstack++] = child;
			} else {
				free(child);
			}
		} while (FindNextFileW(f, &fd));
		FindClose(f);
		free(dir);
	}
	free(stack);
	free(add);
	return fixed;
fail:
	while (nstack)
		free(stack[--nstack]);
	free(stack);
	free(add);
	return -1;
}

int host_revoke(const struct srec *rec, char **why)
{
	wchar_t *w;
	HANDLE h;
	DWORD err;
	int r;

	if (rec->kind == SREC_PLACEHOLDER) {
		w = long_path(rec->path);
		if (!w)
			return -1;
		if (!RemoveDirectoryW(w)) {
			err = GetLastError();
			free(w);
			if (err == ERROR_FILE_NOT_FOUND ||
			    err == ERROR_PATH_NOT_FOUND)
				return 0;
			*why = win_strerror(err);
			return -1;
		}
		free(w);
		return 0;
	}
	r = open_object(rec->path,
			READ_CONTROL | WRITE_DAC |
				(rec->kind == SREC_LABEL ? WRITE_OWNER : 0),
			&h, why);
	if (r == 1)
		return 0;
	if (r < 0)
		return -1;
	if (rec->kind == SREC_LABEL) {
		r = write_label(h, false, why);
		CloseHandle(h);
		return r;
	}
	r = host_remove_handle(h, SE_FILE_OBJECT, &rec->ace, why);
	CloseHandle(h);
	return r < 0 ? -1 : 0;
}
