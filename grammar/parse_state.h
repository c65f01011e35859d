/* SPDX-License-Identifier: MIT */
/*
 * parse_state.h - what the scanner and the parser share for one input.
 *
 * Private to grammar/: the rest of the tree calls parse_input() (load.h)
 * and sees only struct stmt records and diagnostics.
 */
#ifndef VBOX_PARSE_STATE_H
#define VBOX_PARSE_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include "location.h"
#include "stmt.h"

struct diag_list;

/**
 * struct parse_tok - the bytes and place of one token the scanner returned
 * @kind: the bison token kind (0 before the first token)
 * @off: byte offset of the token's text in the input buffer
 * @len: length of that text
 * @loc: its location
 *
 * The parser's error reporter uses the token before the lookahead to say
 * what was missing ("missing ':' after 'deny'").
 */
struct parse_tok {
	int kind;
	size_t off;
	size_t len;
	struct location loc;
};

/**
 * struct parse_state - scanner and parser state for one input
 * @in: the input being parsed
 * @out: where statements go
 * @diags: where errors go
 * @section: the [fs]/[net] section in force (every input starts outside)
 * @nerrors: errors this parse queued
 * @line: line of the next byte to scan (1-based)
 * @col: column of the next byte to scan (1-based, GNU tabs)
 * @offset: byte offset of the next byte to scan
 * @line_offset: byte offset of the start of @line
 * @failed_line: a line already holding an error (0 = none): the rest of
 *               that line reports nothing more, so one mistake gives one
 *               message
 * @line_has_tokens: a token other than the line end was returned on the
 *                   current line (a missing final newline is synthesised)
 * @tok_off: byte offset of the text matched last
 * @tok_len: its length
 * @pending: a token to return on the next call before scanning (0 = none)
 * @pending_loc: its location
 * @qbuf: the unescaped text of the quoted target being scanned
 * @qlen: bytes used in @qbuf
 * @qcap: bytes allocated for @qbuf
 * @qloc: location of the opening quote
 * @qoff: byte offset of the opening quote
 * @rest_what: what a quoted value read in the rest-of-line state is
 *             ("quoted target", "quoted path")
 * @after_what: what the after-value state follows, for its message
 *              ("quoted target", "'[fs]'")
 * @prev: the token before @cur
 * @cur: the token returned last (the parser's lookahead on an error)
 */
struct parse_state {
	const struct input *in;
	struct stmt_list *out;
	struct diag_list *diags;
	enum section section;
	size_t nerrors;

	unsigned line;
	unsigned col;
	size_t offset;
	size_t line_offset;
	unsigned failed_line;
	bool line_has_tokens;
	size_t tok_off;
	size_t tok_len;
	int pending;
	struct location pending_loc;

	char *qbuf;
	size_t qlen;
	size_t qcap;
	struct location qloc;
	size_t qoff;
	const char *rest_what;
	const char *after_what;

	struct parse_tok prev;
	struct parse_tok cur;
};

/*
 * parse_error - queue an error at @loc unless its line already has one;
 * marks the line failed.  Returns -1.
 */
__printf(3, 4) int parse_error(struct parse_state *state,
			       const struct location *loc,
			       const char *fmt, ...);

/*
 * parse_quote - @len bytes of @s as message text inside quotes: control
 * bytes and invalid UTF-8 become \xNN and long text is cut with "...".
 * Returns a new string the caller frees.
 */
char *parse_quote(const char *s, size_t len);

/* parse_misspell - edit distance between two short strings, capped. */
unsigned parse_misspell(const char *a, size_t alen, const char *b,
			unsigned cap);

#endif /* VBOX_PARSE_STATE_H */
