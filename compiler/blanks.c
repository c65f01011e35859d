/* SPDX-License-Identifier: MIT */
/*
 * blanks.c - suspicious blanks in unquoted file patterns (blanks.h).
 *
 * An unquoted target runs to the end of its line, so a row "rw:" with
 * "/srv/a/" "**  x" holds the pattern "/srv/a/" "**  x": text the
 * writer likely meant as a comment, or a second path, silently became
 * part of the pattern.  The
 * pattern stays as written (quotes are the way to say it is meant); the
 * warning points at the blanks.
 */
#include <vbox.h>

#include <limits.h>

#include "blanks.h"
#include "location.h"
#include "stmt.h"
#include "strbuf.h"

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The column of byte @off of @s when byte 0 is at column @col (GNU). */
static unsigned column_at(const char *s, size_t off, unsigned col)
{
	size_t i;

	for (i = 0; i < off && col < UINT_MAX - 9; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c & 0xc0) == 0x80)
			continue;
		col = c == '\t' ? (col - 1) / 8 * 8 + 9 : col + 1;
	}
	return col;
}

/* @s in double quotes with '"' and '\\' escaped (caller frees). */
static char *quoted(const char *s)
{
	struct strbuf b = { 0 };

	strbuf_putc(&b, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			strbuf_putc(&b, '\\');
		strbuf_putc(&b, *s);
	}
	strbuf_putc(&b, '"');
	return b.s;
}

/* Does the segment ending at byte @end of @s hold a '*'? */
static bool glob_before(const char *s, size_t end)
{
	size_t i = end;

	while (i && s[i - 1] != '/' && s[i - 1] != '\\')
		i--;
	return memchr(s + i, '*', end - i) != NULL;
}

char *blanks_check(const struct stmt *s, struct location *at)
{
	const char *v = s->value, *why = NULL;
	size_t i = 0, j, run;
	char *q, *msg;

	if (s->quoted)
		return NULL;
	for (; v[i]; i = j) {
		if (!is_blank(v[i])) {
			j = i + 1;
			continue;
		}
		for (j = i; is_blank(v[j]); j++)
			;
		run = j - i;
		if (!v[j])
			break;
		if (memchr(v + i, '\t', run))
			why = "a tab";
		else if (run >= 2)
			why = "a run of blanks";
		else if (glob_before(v, i))
			why = "a blank after a wildcard segment";
		else
			continue;
		break;
	}
	if (!why)
		return NULL;
	*at = s->value_loc;
	at->col = column_at(v, i, s->value_loc.col);
	at->last_col = column_at(v, j, s->value_loc.col) - 1;
	if (at->last_col < at->col)
		at->last_col = at->col;
	q = quoted(v);
	msg = xasprintf("%s inside the unquoted pattern '%s': the "
		     "text after it is part of the pattern; if it is meant, "
		     "write it quoted, %s; if not, end the pattern before it "
		     "(a comment starts with ' #')", why, v, q);
	free(q);
	return msg;
}
