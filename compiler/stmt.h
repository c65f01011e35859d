/* SPDX-License-Identifier: MIT */
/*
 * stmt.h - what the grammar hands to the compiler.
 *
 * The parser only constructs and queues statements; every semantic check
 * (directive values, duplication, include cycles, target validity, domain
 * of a deny row) happens in compiler/.
 */
#ifndef VBOX_STMT_H
#define VBOX_STMT_H

#include <stdbool.h>
#include <stddef.h>
#include "location.h"

/**
 * enum effect - what a row does when it decides
 * @EFFECT_DENY: file: no read, no write; network: no connection
 * @EFFECT_RO: file: read allowed, write denied
 * @EFFECT_RW: file: read and write allowed
 * @EFFECT_ALLOW: network: connection allowed
 */
enum effect {
	EFFECT_DENY,
	EFFECT_RO,
	EFFECT_RW,
	EFFECT_ALLOW,
};

/**
 * enum section - the [fs]/[net] section a row was written in
 * @SECTION_NONE: outside any section (every file starts here)
 * @SECTION_FS: after a "[fs]" line
 * @SECTION_NET: after a "[net]" line
 */
enum section {
	SECTION_NONE,
	SECTION_FS,
	SECTION_NET,
};

/**
 * enum stmt_kind - kinds of statement
 * @STMT_ROW: LEVEL EFFECT ":" TARGET
 * @STMT_DEFAULT: "@default" @arg @value (arg and value are words, not yet
 *                validated: the compiler checks "write"/"net" and values)
 * @STMT_UPSTREAM: "@upstream-proxy" @value (unquoted URL text)
 * @STMT_INCLUDE: "@include" @value: the unescaped quoted path, or, when
 *                @quoted is false, the NAME of '@include <NAME>' (a file
 *                of the rule library, resolved by the loader)
 */
enum stmt_kind {
	STMT_ROW,
	STMT_DEFAULT,
	STMT_UPSTREAM,
	STMT_INCLUDE,
};

/**
 * struct stmt - one statement line
 * @kind: see enum stmt_kind
 * @level: number of leading '!' (STMT_ROW; the parser rejects > 255)
 * @effect: STMT_ROW's effect word; "deny" is EFFECT_DENY in both domains
 * @section: STMT_ROW: the section in force at this line
 * @quoted: @value was written in double quotes
 * @loc: span of the whole statement (column of its first character)
 * @value_loc: span of @value (the target, URL or include path); for a
 *             quoted value it spans the quotes
 * @arg_loc: span of @arg (STMT_DEFAULT)
 * @arg: STMT_DEFAULT: the word after "@default" (owned)
 * @value: the target / value, quotes removed and escapes resolved (owned);
 *         may contain any byte but NUL
 *
 * The small fields come first, together: 112 bytes, not 120 (a
 * million-row table holds a million of these at once).
 */
struct stmt {
	enum stmt_kind kind;
	unsigned level;
	enum effect effect;
	enum section section;
	bool quoted;
	struct location loc;
	struct location value_loc;
	struct location arg_loc;
	char *arg;
	char *value;
};

/* A growable array of statements; owns each statement's strings. */
struct stmt_list {
	struct stmt *items;
	size_t n;
	size_t cap;
};

/* stmt_list_push - append a copy of *@s, taking ownership of its strings. */
void stmt_list_push(struct stmt_list *list, const struct stmt *s);
void stmt_list_free(struct stmt_list *list);

/* stmt_consume - free @s's strings (it stays in its list, empty). */
void stmt_consume(struct stmt *s);

#endif /* VBOX_STMT_H */
