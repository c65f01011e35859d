/* SPDX-License-Identifier: MIT */
/*
 * location.h - where a piece of policy came from.
 *
 * Every statement, row and diagnostic carries a struct location.  Inputs own
 * the complete text of a rule file so diagnostics can re-read the offending
 * line through line_offset instead of copying it into fixed buffers.
 */
#ifndef VBOX_LOCATION_H
#define VBOX_LOCATION_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

struct input;

/**
 * struct location - a span on one line of one input
 * @in: the input; NULL for locations that are not in any file
 *      (command-line options, internal entries)
 * @line: 1-based line number
 * @col: 1-based column of the first character; one column per UTF-8
 *       character, a tab advances to the next multiple of 8 plus one (GNU)
 * @last_col: column of the last character of the span (>= @col), for the
 *            caret underline
 * @line_offset: byte offset of the start of @line in @in->buf; 32 bits
 *               suffice, as an input is at most LOAD_MAX_FILE_BYTES
 *               (load.h), and keep the struct at 24 bytes: every row,
 *               statement and diagnostic holds one or more
 */
struct location {
	const struct input *in;
	unsigned line;
	unsigned col;
	unsigned last_col;
	uint32_t line_offset;
};

/**
 * struct input - one rule file read into memory
 * @name: the name diagnostics print: the path as given on the command line,
 *        or the including file's directory joined with the @include path;
 *        "<stdin>" for standard input
 * @real: canonical path used to detect include cycles (NULL for stdin)
 * @buf: the file's bytes, NUL-terminated, with a leading UTF-8 BOM skipped
 * @len: number of bytes in @buf, excluding the terminating NUL
 * @parent: the input holding the @include that read this one, or NULL
 * @included_at: location of that @include statement (valid when @parent)
 * @depth: 0 for a file named on the command line, parent's depth + 1
 * @source: the name artifacts carry (--emit=ir, plan.bin), the same on
 *          every machine: "<NAME>" for the rule library's NAME.rules, a
 *          file included from the library as "<PATH>" relative to the
 *          library's directory, any other file as its path relative to
 *          the source root (load.h), "<stdin>" for standard input
 * @lib_dir: for a rule library file and what it includes: the library
 *           directory it was found in (canonical); NULL otherwise
 */
struct input {
	char *name;
	char *real;
	char *source;
	char *lib_dir;
	char *buf;
	size_t len;
	const struct input *parent;
	struct location included_at;
	unsigned depth;
};

/* An input set owns every input read for one compilation. */
struct input_set {
	struct input **items;
	size_t n;
	size_t cap;
};

/*
 * input_set_add - take ownership of @in; returns it for convenience.
 * input_set_free - free every input and the set's array (not the set).
 */
struct input *input_set_add(struct input_set *set, struct input *in);
void input_set_free(struct input_set *set);

/*
 * location_format - "FILE:LINE:COL" into a new string the caller frees;
 * NULL when @loc has no input.
 */
char *location_format(const struct location *loc);

/*
 * location_source - "SOURCE:LINE:COL" of @loc with the input's @source
 * (the machine-independent name artifacts carry) into a new string the
 * caller frees; NULL when @loc has no input.
 */
char *location_source(const struct location *loc);

/*
 * location_line - the text of @loc's line (without its line end): sets
 * *@len and returns a pointer into the input's buffer, or NULL.
 */
const char *location_line(const struct location *loc, size_t *len);

#endif /* VBOX_LOCATION_H */
