// SPDX-License-Identifier: MIT
/*
 * cli_common.c - what every vboxc subcommand does: a usage error said
 * the one way (cli_usage_error()); after parsing, loading and building
 * the table (struct cli_session), printing diagnostics and the -Werror
 * decision, sanitized deterministic JSON, and closing standard output
 * with its errors reported.
 */
#include <vbox.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"
#include "diag.h"
#include "ir.h"
#include "load.h"
#include "location.h"
#include "shadow.h"
#include "stmt.h"

int cli_session_load(struct cli_session *s, const struct cli_opts *opts)
{
	struct compile_opts copts;
	struct load_opts lopts;
	bool loaded;

	memset(s, 0, sizeof(*s));
	diag_list_init(&s->diags);
	s->diags.max_errors = opts->max_errors;
	/* check's JSON lists each record a fold hides (errors_json()) */
	s->diags.fold_hint = "vboxc check --format=json lists every row";

	/*
	 * Statements that did parse are still validated after a syntax
	 * error, so one run reports every bad line; the table is dropped.
	 */
	lopts.include_dirs = opts->include_dirs;
	lopts.ninclude_dirs = opts->ninclude_dirs;
	lopts.rules_dir = NULL;
	lopts.source_root = opts->source_root;
	/*
	 * vboxc is one thread and short-lived: a large table's heap on
	 * huge pages (doc/design.md, "Large tables and memory").
	 */
	lopts.large_heap = true;
	loaded = load_rules_opts(&s->inputs, opts->rules, opts->nrules,
				 &lopts, &s->stmts, &s->diags) == 0 &&
		 !s->diags.nerrors;

	memset(&copts, 0, sizeof(copts));
	copts.target = opts->target;
	copts.vars.defines = opts->defines;
	copts.vars.ndefines = opts->ndefines;
	copts.vars.environ = environ;
	copts.vars.home_override = NULL;
	/*
	 * Nothing reads the statements once the rows are made (rows copy
	 * what they keep): a million of them are some 140 MB that the
	 * indexes, the analysis and the emitters do not need beside them.
	 */
	s->table = table_build_take(&s->stmts, &copts, &s->diags);
	if (!s->table)
		return -1;
	if (!loaded) {
		table_free(s->table);
		s->table = NULL;
		return -1;
	}
	shadow_analyze(s->table, &s->diags);
	/* Fail closed should a library layer queue an error yet succeed. */
	return s->diags.nerrors ? -1 : 0;
}

/*
 * An allow row without a port allows every port of its host: explain
 * says so when asked; check and compile say it once per row, as a note
 * (a choice, not a mistake: no warning, nothing for -Werror).  An
 * explicit ":*" is taken as meant; deny rows are left alone (every port
 * is the narrow reading there), and so are dead rows.
 */
char *cli_any_port_message(const struct row *row)
{
	size_t len = strlen(row->raw);
	char *text, *msg;
	int host_len;

	if (row->domain != DOMAIN_NET || row->effect != EFFECT_ALLOW ||
	    !row->net.any_port || row->shadowed_by ||
	    (len >= 2 && strcmp(row->raw + len - 2, ":*") == 0))
		return NULL;
	/* The canonical text ends in ":*" when no port was given. */
	host_len = (int)strlen(row->net.text) - 2;
	text = row_text(row);
	msg = xasprintf("row %u '%s' names no port: it allows every port of "
			"%.*s (write '%.*s:443' for HTTPS only)", row->index,
			text, host_len, row->net.text, host_len,
			row->net.text);
	free(text);
	return msg;
}

void cli_any_port_notes(struct cli_session *s)
{
	char *msg;
	size_t i;

	for (i = 0; s->table && i < s->table->net.n; i++) {
		const struct row *row = s->table->net.order[i];

		msg = cli_any_port_message(row);
		if (!msg)
			continue;
		diag_note(&s->diags, &row->loc, "%s", msg);
		free(msg);
	}
}

void cli_session_free(struct cli_session *s)
{
	table_free(s->table);
	s->table = NULL;
	stmt_list_free(&s->stmts);
	diag_list_free(&s->diags);
	input_set_free(&s->inputs);
}

bool cli_failed(const struct cli_session *s, const struct cli_opts *opts)
{
	if (!s->table || s->diags.nerrors)
		return true;
	return opts->werror && s->diags.nwarnings;
}

void cli_print_diags(const struct cli_session *s, const struct cli_opts *opts)
{
	diag_print(stderr, &s->diags, CLI_PROGNAME);
	if (opts->werror && s->diags.nwarnings)
		fprintf(stderr,
			"%s: error: %zu warning%s treated as error%s (-Werror)\n",
			CLI_PROGNAME, s->diags.nwarnings,
			s->diags.nwarnings == 1 ? "" : "s",
			s->diags.nwarnings == 1 ? "" : "s");
}

/*
 * Length of the valid UTF-8 sequence at @s (at most @len bytes), or 0.
 * Overlong forms, surrogates and code points above U+10FFFF are invalid,
 * as jansson requires.
 */
static size_t utf8_seq_len(const unsigned char *s, size_t len)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (n > len || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

char *cli_sanitize(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out = xmalloc(4 * len + 1), *w = out;
	size_t i = 0, n;

	while (i < len) {
		n = utf8_seq_len(p + i, len - i);
		if (n == 0 || (n == 1 && ((p[i] < 0x20 && p[i] != '\t') ||
					  p[i] == 0x7f))) {
			w += sprintf(w, "\\x%02x", p[i]);
			i++;
			continue;
		}
		memcpy(w, p + i, n);
		w += n;
		i += n;
	}
	*w = '\0';
	return out;
}

json_t *cli_json_string(const char *s)
{
	json_t *j;
	char *clean;

	if (!s)
		return json_null();
	clean = cli_sanitize(s, strlen(s));
	j = json_string(clean);
	free(clean);
	/* Only allocation can fail on sanitized text: out of memory. */
	if (!j)
		BUG("json_string failed");
	return j;
}

json_t *cli_json_location(const struct location *loc)
{
	char *text = loc->in ? location_format(loc) : NULL;
	json_t *j = cli_json_string(text);

	free(text);
	return j;
}

json_t *cli_json_pack_at(const char *file, int line, const char *fmt, ...)
{
	json_error_t err;
	json_t *j;
	va_list ap;

	va_start(ap, fmt);
	j = json_vpack_ex(&err, 0, fmt, ap);
	va_end(ap);
	if (!j)
		fprintf(stderr, "%s: %s:%d: cannot build JSON: %s\n",
			CLI_PROGNAME, file, line, err.text);
	return j;
}

int cli_json_print(json_t *obj)
{
	return cli_json_print_flags(obj, CLI_JSON_FLAGS);
}

int cli_json_print_flags(json_t *obj, size_t flags)
{
	char *text;
	size_t len;
	int ret = 0;

	if (!obj)
		return -1;
	/*
	 * Dump to memory and write once: json_dumpf() makes one locked
	 * fwrite() per token, which dominated explain's JSON output.
	 */
	text = json_dumps(obj, flags);
	json_decref(obj);
	if (!text) {
		fprintf(stderr, "%s: cannot format JSON output\n",
			CLI_PROGNAME);
		return -1;
	}
	len = strlen(text);
	if (fwrite(text, 1, len, stdout) != len || putchar('\n') == EOF) {
		fprintf(stderr, "%s: error writing standard output: %s\n",
			CLI_PROGNAME, strerror(errno));
		ret = -1;
	}
	free(text);
	return ret;
}

int cli_finish_stdout(int status)
{
	bool bad = fflush(stdout) != 0 || ferror(stdout);

	if (fclose(stdout) != 0)
		bad = true;
	if (bad) {
		fprintf(stderr, "%s: error writing standard output: %s\n",
			CLI_PROGNAME, strerror(errno));
		return CLI_EXIT_FAIL;
	}
	return status;
}

int cli_usage_error(const struct cli_command *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", CLI_PROGNAME);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (cmd)
		fprintf(stderr, "\nTry '%s %s --help' for more information.\n",
			CLI_PROGNAME, cmd->name);
	else
		fprintf(stderr, "\nTry '%s --help' for more information.\n",
			CLI_PROGNAME);
	return CLI_EXIT_USAGE;
}
