/* SPDX-License-Identifier: MIT */
/*
 * cmdline.c - quoting an argument vector into a windows command line and
 * splitting one as CommandLineToArgvW does (cmdline.h).
 *
 * The rules (CommandLineToArgvW, and the Microsoft C runtime since 2008):
 * the program name runs to the next blank, or from a leading '"' to the
 * next '"', and has no escapes.  After it, arguments are separated by
 * blanks (space, tab) outside quotes; 2N backslashes before a '"' give N
 * backslashes and the '"' toggles quoting; 2N+1 backslashes before a '"'
 * give N backslashes and a literal '"'; backslashes before anything else
 * are literal.  Inside quotes, '""' gives a literal '"' and stays quoted.
 */
#include <vbox.h>

#include "bbuf.h"
#include "cmdline.h"
#include "grow.h"

static bool needs_quotes(const char *s)
{
	return !*s || strpbrk(s, " \t\n\v\"");
}

static void quote_arg(struct bbuf *b, const char *s)
{
	size_t nbs;

	if (!needs_quotes(s)) {
		bbuf_puts(b, s);
		return;
	}
	bbuf_putc(b, '"');
	for (;;) {
		for (nbs = 0; *s == '\\'; s++)
			nbs++;
		if (!*s) {
			/* Doubled: the closing quote must stay a quote. */
			while (nbs--) {
				bbuf_putc(b, '\\');
				bbuf_putc(b, '\\');
			}
			break;
		}
		if (*s == '"') {
			while (nbs--) {
				bbuf_putc(b, '\\');
				bbuf_putc(b, '\\');
			}
			bbuf_puts(b, "\\\"");
		} else {
			while (nbs--)
				bbuf_putc(b, '\\');
			bbuf_putc(b, *s);
		}
		s++;
	}
	bbuf_putc(b, '"');
}

char *cmdline_quote(char *const *argv, char **err)
{
	struct bbuf b;
	char *line;
	size_t i;

	if (!argv[0] || !argv[0][0]) {
		*err = xstrdup("the command name is empty");
		return NULL;
	}
	if (strchr(argv[0], '"')) {
		*err = xstrdup("a windows command name cannot contain '\"'");
		return NULL;
	}
	bbuf_init_heap(&b, CMDLINE_MAX);
	if (strpbrk(argv[0], " \t")) {
		bbuf_putc(&b, '"');
		bbuf_puts(&b, argv[0]);
		bbuf_putc(&b, '"');
	} else {
		bbuf_puts(&b, argv[0]);
	}
	for (i = 1; argv[i]; i++) {
		bbuf_putc(&b, ' ');
		quote_arg(&b, argv[i]);
	}
	if (!bbuf_ok(&b)) {
		bbuf_free(&b);
		*err = xasprintf("the command line is longer than %d "
				 "characters",
				 CMDLINE_MAX);
		return NULL;
	}
	line = bbuf_take(&b, NULL);
	bbuf_free(&b);
	return line;
}

static void push(char ***v, size_t *n, size_t *cap, char *s)
{
	GROW(*v, *cap, *n + 2);
	(*v)[(*n)++] = s;
	(*v)[*n] = NULL;
}

char **cmdline_split(const char *line, size_t *argc)
{
	size_t n = 0, cap = 0, nbs, len = strlen(line);
	char **v = NULL;
	const char *p = line, *end;
	struct bbuf b;
	bool quoted;

	/* The program name. */
	if (*p == '"') {
		end = strchr(p + 1, '"');
		if (!end)
			end = p + len;
		push(&v, &n, &cap, xstrndup(p + 1, (size_t)(end - p - 1)));
		p = *end ? end + 1 : end;
	} else {
		end = p + strcspn(p, " \t");
		push(&v, &n, &cap, xstrndup(p, (size_t)(end - p)));
		p = end;
	}
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		bbuf_init_heap(&b, len + 1);
		quoted = false;
		while (*p && (quoted || (*p != ' ' && *p != '\t'))) {
			for (nbs = 0; *p == '\\'; p++)
				nbs++;
			if (*p == '"') {
				for (; nbs >= 2; nbs -= 2)
					bbuf_putc(&b, '\\');
				if (nbs) {
					bbuf_putc(&b, '"');
					p++;
				} else if (quoted && p[1] == '"') {
					bbuf_putc(&b, '"');
					p += 2;
				} else {
					quoted = !quoted;
					p++;
				}
				continue;
			}
			while (nbs--)
				bbuf_putc(&b, '\\');
			if (!*p)
				break;
			if (!quoted && (*p == ' ' || *p == '\t'))
				break;
			bbuf_putc(&b, *p++);
		}
		if (!bbuf_ok(&b))
			BUG("a split argument outgrew its line");
		push(&v, &n, &cap, bbuf_take(&b, NULL));
		bbuf_free(&b);
	}
	*argc = n;
	return v;
}

void cmdline_free(char **argv)
{
	size_t i;

	if (!argv)
		return;
	for (i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
}
