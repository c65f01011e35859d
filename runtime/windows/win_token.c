/* SPDX-License-Identifier: MIT */
/*
 * win_token.c - the child's restricted token (win_token.h;
 * doc/targets.md, "The token").
 */
#include <vbox.h>

#include <windows.h>

#include "aclplan.h"
#include "win_host.h"
#include "win_log.h"
#include "win_token.h"

static void free_groups(TOKEN_GROUPS *g)
{
	free(g);
}

static void *token_info(HANDLE tok, TOKEN_INFORMATION_CLASS cls)
{
	DWORD len = 0;
	void *buf;

	GetTokenInformation(tok, cls, NULL, 0, &len);
	if (!len)
		return NULL;
	buf = xmalloc(len);
	if (!GetTokenInformation(tok, cls, buf, len, &len)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/*
 * The restricted token (doc/targets.md, "The token"): no privileges but
 * SeChangeNotify, restricting SIDs the capability SID, the user and
 * every enabled group (logon SID included), and under @default write
 * deny a low integrity level.
 */
HANDLE make_token(const struct aclplan *ap, char **err)
{
	HANDLE tok = NULL, rtok = NULL;
	TOKEN_USER *user = NULL;
	TOKEN_GROUPS *groups = NULL;
	SID_AND_ATTRIBUTES *res = NULL;
	TOKEN_MANDATORY_LABEL tml;
	SID_IDENTIFIER_AUTHORITY ml = { SECURITY_MANDATORY_LABEL_AUTHORITY };
	BYTE lowbuf[SECURITY_MAX_SID_SIZE];
	PSID cap = capability_sid_new(ap->sub), low = (PSID)lowbuf;
	char *text, *e;
	DWORD i, n = 0;

	text = sid_text(cap);
	if (!text || strcmp(text, ap->sid)) {
		*err = xasprintf("the capability SID built (%s) is not the "
				 "plan's",
				 text ? text : "?");
		free(text);
		goto out;
	}
	vx_log("capability SID %s (9 sub-authorities, built in place)", text);
	free(text);
	if (!OpenProcessToken(GetCurrentProcess(),
			      TOKEN_DUPLICATE | TOKEN_QUERY |
				      TOKEN_ASSIGN_PRIMARY |
				      TOKEN_ADJUST_DEFAULT,
			      &tok)) {
		e = win_strerror(GetLastError());
		*err = xasprintf("cannot open the launcher's token: %s", e);
		free(e);
		goto out;
	}
	user = token_info(tok, TokenUser);
	groups = token_info(tok, TokenGroups);
	if (!user || !groups) {
		*err = xstrdup("cannot read the launcher's user and groups");
		goto out;
	}
	res = xcalloc(groups->GroupCount + 2, sizeof(*res));
	res[n++].Sid = cap;
	res[n++].Sid = user->User.Sid;
	for (i = 0; i < groups->GroupCount; i++) {
		DWORD a = groups->Groups[i].Attributes;

		if (!(a & SE_GROUP_ENABLED) || (a & SE_GROUP_INTEGRITY) ||
		    (a & SE_GROUP_USE_FOR_DENY_ONLY))
			continue;
		res[n++].Sid = groups->Groups[i].Sid;
	}
	if (!CreateRestrictedToken(tok, DISABLE_MAX_PRIVILEGE, 0, NULL, 0,
				   NULL, n, res, &rtok)) {
		e = win_strerror(GetLastError());
		*err = xasprintf("CreateRestrictedToken: %s", e);
		free(e);
		rtok = NULL;
		goto out;
	}
	vx_log("restricted token: DISABLE_MAX_PRIVILEGE, %lu restricting "
	       "SIDs",
	       (unsigned long)n);
	if (ap->low) {
		if (!InitializeSid(low, &ml, 1))
			BUG("InitializeSid refused the low level");
		*GetSidSubAuthority(low, 0) = SECURITY_MANDATORY_LOW_RID;
		tml.Label.Sid = low;
		tml.Label.Attributes = SE_GROUP_INTEGRITY;
		if (!SetTokenInformation(rtok, TokenIntegrityLevel, &tml,
					 sizeof(tml) + GetLengthSid(low))) {
			e = win_strerror(GetLastError());
			*err = xasprintf("cannot lower the token's integrity "
					 "level: %s",
					 e);
			free(e);
			CloseHandle(rtok);
			rtok = NULL;
			goto out;
		}
		vx_log("integrity level low");
	}
out:
	free(res);
	free(user);
	free_groups(groups);
	free(cap);
	if (tok)
		CloseHandle(tok);
	return rtok;
}
