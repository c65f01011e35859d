/* SPDX-License-Identifier: MIT */
/*
 * sbpl.h - writing Seatbelt profile language (SBPL): strings, comments
 * and path filters for file patterns.
 *
 * Nothing here knows a target: the caller says whether paths fold case.
 * Regular expressions use only the POSIX extended subset every Seatbelt
 * release accepts (anchors, bracket expressions, groups, '*', '+', '?'
 * and backslash-escaped literals), so a POSIX regcomp() can check them.
 */
#ifndef VBOX_SBPL_H
#define VBOX_SBPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct seg;

/*
 * Seatbelt rejects a whole profile whose string literals grow past about
 * 1 KiB; no string we write may be longer than this many bytes, counted
 * as written between the quotes (escapes included).
 */
#define SBPL_MAX_STRING 1000

/*
 * The regular expression for one UTF-8 character inside a segment (what
 * '?' matches): a byte that is neither '/' nor a continuation byte,
 * followed by its continuation bytes.  Exact for valid UTF-8.
 */
#define SBPL_RE_UTF8_CHAR "[^/\x80-\xbf][\x80-\xbf]*"

/**
 * enum sbpl_filter_kind - the SBPL path filter a pattern is written as
 * @SBPL_LITERAL: (literal "PATH"): exactly one path
 * @SBPL_SUBPATH: (subpath "PATH"): the path and everything below it
 * @SBPL_REGEX: (regex "RE"): an anchored POSIX extended expression
 */
enum sbpl_filter_kind {
	SBPL_LITERAL,
	SBPL_SUBPATH,
	SBPL_REGEX,
};

/**
 * struct sbpl_filter - one path filter
 * @kind: see enum sbpl_filter_kind
 * @value: the string's value, before SBPL escaping (owned)
 * @written: bytes the value takes between the quotes once escaped
 */
struct sbpl_filter {
	enum sbpl_filter_kind kind;
	char *value;
	size_t written;
};

/*
 * sbpl_string_size - the number of bytes @len bytes at @s take between
 * the quotes of an SBPL string: '"' and '\\' are escaped with a
 * backslash, bytes outside printable ASCII become "\xHH".
 */
size_t sbpl_string_size(const char *s, size_t len);

/* sbpl_write_string - write @len bytes at @s as a quoted SBPL string. */
void sbpl_write_string(FILE *out, const char *s, size_t len);

/*
 * sbpl_write_comment - write ";; " @text and a newline; bytes outside
 * printable ASCII are shown as "\xHH", so no text (a variable's value
 * holding a newline, say) can end the comment and inject a rule.
 */
void sbpl_write_comment(FILE *out, const char *text);

/* sbpl_write_comment_text - @text as sbpl_write_comment() shows it, alone. */
void sbpl_write_comment_text(FILE *out, const char *text);

/*
 * sbpl_regex - the anchored regular expression (unescaped value, caller
 * frees) matching exactly the clean absolute paths that the @nsegs
 * segments at @segs match (doc/rules.md §5): "**" segments become "(/.*)?",
 * '*' becomes "[^/]*" (a segment of stars alone "[^/]+": segments are
 * never empty), '?' becomes SBPL_RE_UTF8_CHAR, every other byte matches
 * itself, regex metacharacters backslash-escaped.  With @subtree the
 * path's whole subtree matches too ("(/.*)?" at the end).  With @fold
 * ASCII letters match in either case ("[aA]"); segment text must then be
 * lower case, as folding targets store it.
 */
char *sbpl_regex(const struct seg *segs, uint32_t nsegs, bool subtree,
		 bool fold);

/*
 * sbpl_path_text - "/" joined with the segments' text (caller frees);
 * "/" for no segment.
 */
char *sbpl_path_text(const struct seg *segs, uint32_t nsegs);

/*
 * sbpl_filter_kind_of - the kind of filter sbpl_filter_make() makes of
 * these segments.
 * sbpl_filter_bound - at least the @written of that filter, counted
 * without building it: every byte as the most it can become ("?" the
 * UTF-8 class, "*" "[^/]*", a folded letter "[aA]", an escaped or
 * unprintable byte four), every segment six ("(/.*)?"), and eight more
 * for the anchors and a subtree's tail.  For a classifier that only asks
 * whether a filter fits.
 */
enum sbpl_filter_kind sbpl_filter_kind_of(const struct seg *segs,
					  uint32_t nsegs, bool subtree,
					  bool fold);
size_t sbpl_filter_bound(const struct seg *segs, uint32_t nsegs);

/*
 * sbpl_filter_make - the filter for a segment list (see sbpl_regex for
 * the arguments): a wildcard-free pattern becomes (subpath) when
 * @subtree, else (literal) -- unless @fold and an ASCII letter occurs:
 * Seatbelt compares literal and subpath strings case-sensitively, so
 * such a pattern becomes a case-folding (regex).  Wildcards always give
 * a (regex).  Fills *@f (free with sbpl_filter_free()).
 */
void sbpl_filter_make(struct sbpl_filter *f, const struct seg *segs,
		      uint32_t nsegs, bool subtree, bool fold);

/* sbpl_filter_write - write "(literal \"...\")" and the like. */
void sbpl_filter_write(FILE *out, const struct sbpl_filter *f);

/* sbpl_filter_equal - same kind and same value? */
bool sbpl_filter_equal(const struct sbpl_filter *a,
		       const struct sbpl_filter *b);

/* sbpl_filter_free - free @f's value (the struct itself is the caller's). */
void sbpl_filter_free(struct sbpl_filter *f);

/* sbpl_filter_kind_name - "literal", "subpath", "regex". */
const char *sbpl_filter_kind_name(enum sbpl_filter_kind kind);

#endif /* VBOX_SBPL_H */
