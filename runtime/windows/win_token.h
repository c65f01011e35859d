/* SPDX-License-Identifier: MIT */
/*
 * win_token.h - the restricted token the child runs with
 * (doc/targets.md, "The token").
 */
#ifndef VBOX_WIN_TOKEN_H
#define VBOX_WIN_TOKEN_H

#include <windows.h>

struct aclplan;

/*
 * make_token - no privileges but SeChangeNotify, restricting SIDs the
 * capability SID of @ap, the user and every enabled group (logon SID
 * included), and under @default write deny a low integrity level.  The
 * token, or NULL with *@err (caller frees).
 */
HANDLE make_token(const struct aclplan *ap, char **err);

#endif /* VBOX_WIN_TOKEN_H */
