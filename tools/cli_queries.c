/* SPDX-License-Identifier: MIT */
/*
 * cli_queries.c - explain's queries: --read/--write/--net values and the
 * lines of a --queries file, in command-line order.  A malformed line
 * becomes an invalid query at its place (answered with its message), and
 * the file's size, line length and query count are bounded.
 */
#include <vbox.h>

#include <errno.h>
#include <stdio.h>

#include "cli.h"
#include "grow.h"
#include "misspell.h"

static const char *const query_op_names[] = {
	[CLI_QUERY_READ] = "read",
	[CLI_QUERY_WRITE] = "write",
	[CLI_QUERY_NET] = "net",
};


static void add_query(struct cli_opts *o, enum cli_query_op op, char *arg,
		      char *label, char *error)
{
	struct cli_query *q;

	GROW(o->queries, o->qcap, o->nqueries + 1);
	q = &o->queries[o->nqueries++];
	q->op = op;
	q->arg = arg;
	q->label = label;
	q->error = error;
}

void cli_query_add_arg(struct cli_opts *o, enum cli_query_op op,
		       const char *arg)
{
	add_query(o, op, xstrdup(arg),
		  xasprintf("%s %s", query_op_names[op], arg), NULL);
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * One line of a --queries file, @len bytes at @line (line end removed).
 * Blank and comment lines add nothing; a malformed line becomes an invalid
 * query at its position so it is reported in order, not dropped.
 */
static void parse_query_line(struct cli_opts *o, const char *name,
			     unsigned long lineno, char *line, size_t len)
{
	static const char expected[] =
		"expected 'read PATH', 'write PATH' or 'net HOST:PORT'";
	char *end, *word, *arg;
	const char *hint;
	size_t i, wlen;

	if (len && line[len - 1] == '\r')
		len--;
	line[len] = '\0';
	if (memchr(line, '\0', len)) {
		add_query(o, CLI_QUERY_READ, NULL,
			  cli_sanitize(line, len),
			  xasprintf("%s:%lu: query line contains a NUL byte",
				    name, lineno));
		return;
	}
	while (is_blank(*line))
		line++;
	end = line + strlen(line);
	while (end > line && is_blank(end[-1]))
		*--end = '\0';
	if (*line == '\0' || *line == '#')
		return;

	word = line;
	for (wlen = 0; word[wlen] && !is_blank(word[wlen]); wlen++)
		;
	arg = word + wlen;
	while (is_blank(*arg))
		arg++;
	for (i = 0; i < array_size(query_op_names); i++) {
		if (strlen(query_op_names[i]) != wlen ||
		    strncmp(word, query_op_names[i], wlen) != 0)
			continue;
		if (*arg == '\0')
			break;
		cli_query_add_arg(o, (enum cli_query_op)i, arg);
		return;
	}
	hint = misspell_suggest(word, wlen, query_op_names,
				array_size(query_op_names));
	if (hint && *arg)
		add_query(o, CLI_QUERY_READ, NULL, xstrdup(line),
			  xasprintf("%s:%lu: malformed query: %s; did you "
				    "mean '%s'?", name, lineno, expected,
				    hint));
	else
		add_query(o, CLI_QUERY_READ, NULL, xstrdup(line),
			  xasprintf("%s:%lu: malformed query: %s", name,
				    lineno, expected));
}

/* A line over CLI_MAX_QUERY_LINE: an invalid query labelled by its head. */
static void add_overlong_query(struct cli_opts *o, const char *name,
			       unsigned long lineno, const char *buf)
{
	char *head = cli_sanitize(buf, 64);

	add_query(o, CLI_QUERY_READ, NULL, xasprintf("%s...", head),
		  xasprintf("%s:%lu: query line longer than %u bytes", name,
			    lineno, CLI_MAX_QUERY_LINE));
	free(head);
}

/*
 * Read the --queries file @path ("-" is standard input) at its position in
 * the query order.  Returns 0, or CLI_EXIT_USAGE after a message when the
 * file cannot be read or is beyond the bounds.
 */
int cli_queries_read_file(const struct cli_command *cmd,
			  struct cli_opts *o, const char *path)
{
	const char *name = strcmp(path, "-") ? path : "<stdin>";
	size_t len = 0, total = 0;
	unsigned long lineno = 0;
	bool overlong = false;
	int status = 0, c;
	char *buf;
	FILE *f;

	if (strcmp(path, "-") == 0) {
		if (o->stdin_used)
			return cli_usage_error(cmd,
					       "standard input used twice");
		o->stdin_used = true;
		f = stdin;
	} else {
		f = fopen(path, "r");
		if (!f)
			return cli_usage_error(cmd, "cannot open '%s': %s",
					       path, strerror(errno));
	}

	buf = xmalloc(CLI_MAX_QUERY_LINE + 1);
	for (;;) {
		c = getc(f);
		if (c != EOF && ++total > CLI_MAX_QUERIES_BYTES) {
			status = cli_usage_error(cmd,
				"'%s' is larger than %u bytes", name,
				CLI_MAX_QUERIES_BYTES);
			break;
		}
		if (c != EOF && c != '\n') {
			if (len < CLI_MAX_QUERY_LINE)
				buf[len++] = (char)c;
			else
				overlong = true;
			continue;
		}
		if (c == EOF && ferror(f)) {
			status = cli_usage_error(cmd, "cannot read '%s': %s",
						 name, strerror(errno));
			break;
		}
		if (c == EOF && len == 0 && !overlong)
			break;
		lineno++;
		if (o->nqueries >= CLI_MAX_QUERIES) {
			status = cli_usage_error(cmd,
				"'%s' holds more than %u queries", name,
				CLI_MAX_QUERIES);
			break;
		}
		if (overlong)
			add_overlong_query(o, name, lineno, buf);
		else
			parse_query_line(o, name, lineno, buf, len);
		len = 0;
		overlong = false;
		if (c == EOF)
			break;
	}
	free(buf);
	if (f != stdin && fclose(f) != 0 && status == 0)
		status = cli_usage_error(cmd, "cannot read '%s': %s", name,
					 strerror(errno));
	return status;
}
