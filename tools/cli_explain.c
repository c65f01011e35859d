// SPDX-License-Identifier: MIT
/*
 * cli_explain.c - "vboxc explain": answer read/write/net queries.
 *
 * Queries are answered in command-line order, a --queries file's lines at
 * its position.  QUERY below is "<op> <as given>" (op: read, write, net).
 *
 * Text format, one line per query on stdout:
 *
 *   QUERY: allow|deny by row N (EFFECT, level L) at FILE:LINE:COL
 *   QUERY: allow by default (reads are always allowed)
 *   QUERY: allow|deny by default (@default write rw|deny)
 *   QUERY: allow|deny by default (@default net open|deny)
 *   QUERY: error: MESSAGE
 *
 * When the path or host that was evaluated differs from the one given
 * (cleaned, resolved with --follow/--no-follow, port added) QUERY is
 * followed by " (as EVALUATED)".  A query without a port decided by a
 * row for one port ends with "; any port was asked: the row decides
 * port P only".  Rows are numbered per domain, as in the
 * table.  Warnings of the rules go to stderr.
 *
 * JSON format, one compact object per query on stdout:
 *
 *   {"query":QUERY,"allow":BOOL,"row":N,"level":L,"effect":EFFECT,
 *    "source":"FILE:LINE:COL","domain":"fs"|"net","target":TARGET}
 *
 * with "row" -1, "level" 0 and "effect", "source" and "target" null when
 * the default decided; an invalid query prints {"query":QUERY,"error":MSG}.
 * Warnings are not printed in JSON mode (use check).
 *
 * RULES may be one plan (cli_plan.c): the table it carries answers.
 *
 * An invalid query makes the exit status 1; the other queries are still
 * answered.  Invalid rules (or a warning under -Werror) answer nothing:
 * the diagnostics go to stderr and the exit status is 1.
 */
#include <vbox.h>

#include <errno.h>
#include <stdio.h>

#include <jansson.h>

#include "cli.h"
#include "eval.h"
#include "explain_json.h"
#include "fspath.h"
#include "ir.h"
#include "netaddr.h"

/**
 * struct answer - the outcome of one query, ready to print
 * @domain: the domain the query asks about
 * @dec: the decision (valid when !@error)
 * @evaluated: the cleaned path or normalized host:port (owned), or NULL
 * @error: why the query is invalid (owned), or NULL
 */
struct answer {
	enum domain domain;
	struct decision dec;
	char *evaluated;
	char *error;
};

static void answer_fs(const struct cli_opts *opts, const struct table *table,
		      const struct cli_query *q, struct answer *a)
{
	struct fs_path path;
	char *resolved;

	memset(&path, 0, sizeof(path));
	if (fs_path_parse(q->arg, table->target, &path, &a->error) < 0)
		return;
	if (opts->resolve) {
		resolved = fs_path_resolve(path.text, opts->follow_last);
		if (!resolved) {
			/* Guessing past a loop or a denied lookup is unsafe. */
			a->error = xasprintf("cannot resolve '%s': %s",
					     path.text, strerror(errno));
			fs_path_free(&path);
			return;
		}
		fs_path_free(&path);
		memset(&path, 0, sizeof(path));
		if (fs_path_parse(resolved, table->target, &path,
				  &a->error) < 0) {
			free(resolved);
			return;
		}
		free(resolved);
	}
	eval_fs(table, &path,
		q->op == CLI_QUERY_WRITE ? FS_WRITE : FS_READ, &a->dec);
	a->evaluated = xstrdup(path.text);
	fs_path_free(&path);
}

static void answer_net(const struct table *table, const struct cli_query *q,
		       struct answer *a)
{
	struct net_target t;

	memset(&t, 0, sizeof(t));
	if (net_query_parse(q->arg, &t, &a->error) < 0)
		return;
	eval_net(table, &t, &a->dec);
	a->evaluated = xstrdup(t.text);
	net_target_free(&t);
}

/* Fill @a for @q; returns 0, or -1 when the query is invalid. */
static int answer_query(const struct cli_opts *opts, const struct table *table,
			const struct cli_query *q, struct answer *a)
{
	memset(a, 0, sizeof(*a));
	a->domain = q->op == CLI_QUERY_NET ? DOMAIN_NET : DOMAIN_FS;
	if (q->error) {
		a->error = xstrdup(q->error);
		return -1;
	}
	switch (q->op) {
	case CLI_QUERY_READ:
	case CLI_QUERY_WRITE:
		answer_fs(opts, table, q, a);
		break;
	case CLI_QUERY_NET:
		answer_net(table, q, a);
		break;
	default:
		BUG("unknown query op %d", (int)q->op);
	}
	if (a->error)
		return -1;
	if (!a->evaluated) {
		/* A parser failing without a message must still fail. */
		a->error = xstrdup("invalid query");
		return -1;
	}
	return 0;
}

/* Why the default decided, in the words of the rule language. */
static const char *default_reason(const struct table *table,
				  const struct cli_query *q)
{
	switch (q->op) {
	case CLI_QUERY_READ:
		return "reads are always allowed";
	case CLI_QUERY_WRITE:
		return table->default_write == EFFECT_RW ?
			"@default write rw" : "@default write deny";
	case CLI_QUERY_NET:
		return table->default_net == EFFECT_ALLOW ?
			"@default net open" : "@default net deny";
	default:
		BUG("unknown query op %d", (int)q->op);
	}
}

/*
 * A query without a port is any port: a row for one port matches it
 * (overlap, doc/rules.md §6), which must not read as "all ports allowed".
 */
static bool is_any_port(const char *evaluated)
{
	size_t n = evaluated ? strlen(evaluated) : 0;

	return n >= 2 && strcmp(evaluated + n - 2, ":*") == 0;
}

static void answer_print_text(const struct table *table,
			      const struct cli_query *q,
			      const struct answer *a)
{
	const struct row *row = a->dec.row;
	char *label = cli_sanitize(q->label, strlen(q->label));
	const char *verdict = a->dec.allow ? "allow" : "deny";
	char *text, *where;

	fputs(label, stdout);
	if (a->evaluated && strcmp(a->evaluated, q->arg) != 0) {
		text = cli_sanitize(a->evaluated, strlen(a->evaluated));
		printf(" (as %s)", text);
		free(text);
	}
	if (a->error) {
		text = cli_sanitize(a->error, strlen(a->error));
		printf(": error: %s\n", text);
		free(text);
	} else if (!row) {
		printf(": %s by default (%s)\n", verdict,
		       default_reason(table, q));
	} else {
		printf(": %s by row %u (%s, level %u)", verdict,
		       (unsigned)row->index, effect_name(row->effect),
		       (unsigned)row->level);
		where = row->loc.in ? location_format(&row->loc) : NULL;
		if (where) {
			text = cli_sanitize(where, strlen(where));
			printf(" at %s", text);
			free(text);
			free(where);
		}
		if (row->domain == DOMAIN_NET && !row->net.any_port &&
		    is_any_port(a->evaluated))
			printf("; any port was asked: the row decides port %u "
			       "only", (unsigned)row->net.port);
		putchar('\n');
	}
	free(label);
}

/* Print @a for @q as one JSON line; returns 0, or -1 after a message. */
static int answer_print_json(struct explain_json *ej,
			     const struct cli_query *q, const struct answer *a)
{
	struct explain_answer ea = {
		.label = q->label,
		.error = a->error,
		.allow = a->dec.allow,
		.domain = a->domain,
		.row = a->dec.row,
	};
	const char *text;
	size_t len;

	text = explain_json_answer(ej, &ea, &len);
	if (!text)
		return -1;
	if (fwrite(text, 1, len, stdout) != len || putchar('\n') == EOF) {
		fprintf(stderr, "%s: error writing standard output: %s\n",
			CLI_PROGNAME, strerror(errno));
		return -1;
	}
	return 0;
}

static int explain_run(const struct cli_opts *opts)
{
	struct explain_json *ej = NULL;
	struct cli_session s;
	struct answer a;
	int status = CLI_EXIT_OK;
	size_t i;

	if (opts->nrules && cli_file_is_plan(opts->rules[0]))
		cli_session_load_plan(&s, opts);
	else
		cli_session_load(&s, opts);
	if (cli_failed(&s, opts)) {
		cli_print_diags(&s, opts);
		status = CLI_EXIT_FAIL;
		goto out;
	}
	if (opts->format == CLI_FORMAT_TEXT)
		cli_print_diags(&s, opts);
	else
		ej = explain_json_alloc(s.table);

	for (i = 0; i < opts->nqueries; i++) {
		const struct cli_query *q = &opts->queries[i];

		if (answer_query(opts, s.table, q, &a) < 0)
			status = CLI_EXIT_FAIL;
		if (opts->format == CLI_FORMAT_TEXT) {
			answer_print_text(s.table, q, &a);
		} else if (answer_print_json(ej, q, &a) < 0) {
			status = CLI_EXIT_FAIL;
			i = opts->nqueries;
		}
		free(a.evaluated);
		free(a.error);
	}
out:
	explain_json_free(ej);
	cli_session_free(&s);
	return status;
}

static const char explain_description[] =
	"Answer \"may this process read/write PATH, connect to HOST:PORT?\"\n"
	"against the rules, naming the deciding row.  Queries are\n"
	"answered in command-line order, one line each.\n";

static const char explain_format_help[] =
	"text (default) or json (one object\n"
	"per query and line)";

static const char explain_notes[] =
	"Paths must be absolute; '~' and variables are not expanded.\n"
	"RULES may be '-' for standard input, or one plan (compile\n"
	"--emit=plan): the answers come from the table it carries.\n"
	"\n"
	"Exit status: 0 every query answered, 1 invalid rules, an invalid\n"
	"query or a warning under -Werror, 2 usage error.\n";

const struct cli_command cli_explain_command = {
	.name = "explain",
	.summary = "answer read/write/net queries against the rules",
	.synopsis = "explain [OPTIONS] RULES...|PLAN QUERY...",
	.description = explain_description,
	.format_help = explain_format_help,
	.formats = CLI_FORMATS(CLI_FORMAT_TEXT) | CLI_FORMATS(CLI_FORMAT_JSON),
	.notes = explain_notes,
	.flags = CLI_OPT_QUERIES | CLI_OPT_FORMAT,
	.run = explain_run,
};
