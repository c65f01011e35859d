/* SPDX-License-Identifier: MIT */
/*
 * sbpl.c - SBPL strings, comments and path filters (see sbpl.h).
 */
#include <vbox.h>

#include <stdio.h>

#include "fspath.h"
#include "sbpl.h"
#include "strbuf.h"

static bool printable(unsigned char c)
{
	return c >= 0x20 && c < 0x7f;
}

size_t sbpl_string_size(const char *s, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			n += 2;
		else if (printable(c))
			n += 1;
		else
			n += 4;
	}
	return n;
}

/* Is @c written as itself in an SBPL string? */
static bool plain_in_string(unsigned char c)
{
	return printable(c) && c != '"' && c != '\\';
}

/*
 * Strings and comments are written a run of plain bytes at a time: a
 * darwin profile of a million rows is some 380 MB, and a call per byte
 * was the largest part of its compile.
 */
void sbpl_write_string(FILE *out, const char *s, size_t len)
{
	size_t i = 0, run;

	fputc('"', out);
	while (i < len) {
		unsigned char c;

		run = i;
		while (run < len && plain_in_string((unsigned char)s[run]))
			run++;
		if (run > i) {
			fwrite(s + i, 1, run - i, out);
			i = run;
			continue;
		}
		c = (unsigned char)s[i++];
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else
			fprintf(out, "\\x%02x", c);
	}
	fputc('"', out);
}

void sbpl_write_comment(FILE *out, const char *text)
{
	fputs(";; ", out);
	sbpl_write_comment_text(out, text);
	fputc('\n', out);
}

void sbpl_write_comment_text(FILE *out, const char *text)
{
	const unsigned char *p = (const unsigned char *)text, *run;

	while (*p) {
		for (run = p; *run && printable(*run); run++)
			;
		if (run > p) {
			fwrite(p, 1, (size_t)(run - p), out);
			p = run;
			continue;
		}
		fprintf(out, "\\x%02x", *p++);
	}
}

/* Characters with a meaning in a POSIX extended regular expression. */
static bool re_meta(char c)
{
	switch (c) {
	case '.': case '[': case ']': case '(': case ')': case '*': case '+':
	case '?': case '{': case '}': case '|': case '^': case '$': case '\\':
		return true;
	default:
		return false;
	}
}

static bool ascii_lower(char c)
{
	return c >= 'a' && c <= 'z';
}

static bool ascii_letter(char c)
{
	return ascii_lower(c) || (c >= 'A' && c <= 'Z');
}

/* One byte of pattern text that matches itself. */
static void re_literal(struct strbuf *b, char c, bool fold)
{
	char cls[4];

	if (fold && ascii_letter(c)) {
		char lo = (char)(ascii_lower(c) ? c : c - 'A' + 'a');

		cls[0] = '[';
		cls[1] = lo;
		cls[2] = (char)(lo - 'a' + 'A');
		cls[3] = ']';
		strbuf_add(b, cls, sizeof(cls));
		return;
	}
	if (re_meta(c))
		strbuf_putc(b, '\\');
	strbuf_putc(b, c);
}

static bool seg_all_stars(const struct seg *s)
{
	uint32_t i;

	for (i = 0; i < s->len; i++)
		if (s->s[i] != '*')
			return false;
	return true;
}

/* The expression for one segment other than "**" (no leading slash). */
static void re_segment(struct strbuf *b, const struct seg *s, bool fold)
{
	uint32_t i;

	if (s->kind == SEG_GLOB && seg_all_stars(s)) {
		strbuf_puts(b, "[^/]+");
		return;
	}
	for (i = 0; i < s->len; i++) {
		char c = s->s[i];

		if (s->kind == SEG_GLOB && c == '*') {
			/* A run of stars is one ("**" inside a segment). */
			while (i + 1 < s->len && s->s[i + 1] == '*')
				i++;
			strbuf_puts(b, "[^/]*");
		} else if (s->kind == SEG_GLOB && c == '?') {
			strbuf_puts(b, SBPL_RE_UTF8_CHAR);
		} else {
			re_literal(b, c, fold);
		}
	}
}

char *sbpl_regex(const struct seg *segs, uint32_t nsegs, bool subtree,
		 bool fold)
{
	struct strbuf b = { 0 };
	bool concrete = false, prev_starstar = false;
	size_t guess = 16;
	uint32_t i;

	/*
	 * Room for the usual expression at once (a letter folds to 4 bytes,
	 * a segment's slash and wildcards to a few): a million rows build
	 * some three million of these.
	 */
	for (i = 0; i < nsegs; i++) {
		if (segs[i].kind != SEG_STARSTAR)
			concrete = true;
		guess += 8 + (size_t)segs[i].len * (fold ? 4 : 2);
	}
	strbuf_reserve(&b, guess);
	strbuf_putc(&b, '^');
	if (!concrete) {
		/*
		 * Only "**" (or nothing): with a segment to match this is
		 * every path, root included; without one, "/" itself or,
		 * as a subtree, everything.
		 */
		strbuf_puts(&b, nsegs || subtree ? "/.*$" : "/$");
		return b.s;
	}
	for (i = 0; i < nsegs; i++) {
		if (segs[i].kind == SEG_STARSTAR) {
			/* Consecutive "**" match what one does. */
			if (!prev_starstar)
				strbuf_puts(&b, "(/.*)?");
			prev_starstar = true;
			continue;
		}
		prev_starstar = false;
		strbuf_putc(&b, '/');
		re_segment(&b, &segs[i], fold);
	}
	if (subtree && !prev_starstar)
		strbuf_puts(&b, "(/.*)?");
	strbuf_putc(&b, '$');
	return b.s;
}

char *sbpl_path_text(const struct seg *segs, uint32_t nsegs)
{
	struct strbuf b = { 0 };
	size_t len = 0;
	uint32_t i;

	if (!nsegs)
		return xstrdup("/");
	for (i = 0; i < nsegs; i++)
		len += 1 + (size_t)segs[i].len;
	strbuf_reserve(&b, len);
	for (i = 0; i < nsegs; i++) {
		strbuf_putc(&b, '/');
		strbuf_add(&b, segs[i].s, segs[i].len);
	}
	return b.s;
}

enum sbpl_filter_kind sbpl_filter_kind_of(const struct seg *segs,
					  uint32_t nsegs, bool subtree,
					  bool fold)
{
	bool wild = false, letters = false;
	uint32_t i, k;

	for (i = 0; i < nsegs; i++) {
		if (segs[i].kind != SEG_LIT)
			wild = true;
		for (k = 0; k < segs[i].len; k++)
			if (ascii_letter(segs[i].s[k]))
				letters = true;
	}
	if (!wild && !(fold && letters))
		return subtree ? SBPL_SUBPATH : SBPL_LITERAL;
	return SBPL_REGEX;
}

size_t sbpl_filter_bound(const struct seg *segs, uint32_t nsegs)
{
	size_t n = 8, utf8 = sbpl_string_size(SBPL_RE_UTF8_CHAR,
					      strlen(SBPL_RE_UTF8_CHAR));
	uint32_t i, k;

	for (i = 0; i < nsegs; i++) {
		n += 6;
		for (k = 0; k < segs[i].len; k++) {
			char c = segs[i].s[k];

			if (segs[i].kind == SEG_GLOB && c == '?')
				n += utf8;
			else if (segs[i].kind == SEG_GLOB && c == '*')
				n += 5;
			else
				n += 4;
		}
	}
	return n;
}

void sbpl_filter_make(struct sbpl_filter *f, const struct seg *segs,
		      uint32_t nsegs, bool subtree, bool fold)
{
	f->kind = sbpl_filter_kind_of(segs, nsegs, subtree, fold);
	if (f->kind == SBPL_REGEX)
		f->value = sbpl_regex(segs, nsegs, subtree, fold);
	else
		f->value = sbpl_path_text(segs, nsegs);
	f->written = sbpl_string_size(f->value, strlen(f->value));
}

const char *sbpl_filter_kind_name(enum sbpl_filter_kind kind)
{
	switch (kind) {
	case SBPL_LITERAL:
		return "literal";
	case SBPL_SUBPATH:
		return "subpath";
	case SBPL_REGEX:
		return "regex";
	default:
		BUG("bad SBPL filter kind %d", kind);
	}
}

void sbpl_filter_write(FILE *out, const struct sbpl_filter *f)
{
	fputc('(', out);
	fputs(sbpl_filter_kind_name(f->kind), out);
	fputc(' ', out);
	sbpl_write_string(out, f->value, strlen(f->value));
	fputc(')', out);
}

bool sbpl_filter_equal(const struct sbpl_filter *a,
		       const struct sbpl_filter *b)
{
	return a->kind == b->kind && strcmp(a->value, b->value) == 0;
}

void sbpl_filter_free(struct sbpl_filter *f)
{
	if (!f)
		return;
	free(f->value);
	f->value = NULL;
}
