/* SPDX-License-Identifier: MIT */
/*
 * auth.h - proxy credentials: the user is "vbox", the password the
 * endpoint's token; HTTP carries them as Basic, SOCKS5 as RFC 1929.
 */
#ifndef VBOX_AUTH_H
#define VBOX_AUTH_H

#include <stdbool.h>
#include <stddef.h>

/* The user name in the proxy URLs. */
#define PROXY_USER "vbox"

/* auth_basic_ok - does a Proxy-Authorization value carry vbox:@token? */
bool auth_basic_ok(const char *val, size_t vlen, const char *token);

/* auth_pair_ok - do @user/@pass (not terminated) equal vbox/@token? */
bool auth_pair_ok(const unsigned char *user, size_t ulen,
		  const unsigned char *pass, size_t plen, const char *token);

/* b64_encode - standard base64 of @n bytes; returns a new string. */
char *b64_encode(const unsigned char *p, size_t n);

#endif /* VBOX_AUTH_H */
