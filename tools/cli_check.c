// SPDX-License-Identifier: MIT
/*
 * cli_check.c - "vboxc check": parse, validate and analyze rule files.
 *
 * Text format: diagnostics go to stderr, nothing goes to stdout.  JSON
 * format: exactly one object on stdout,
 *   {"errors":[{"source":"f:3:1"|null,"message":"..."}...],
 *    "warnings":[{"kind":...,"row":N,"domain":...,"by":M,"source":...,
 *                 "message":...}...]}
 * and nothing on stderr unless the JSON itself cannot be written.  Notes
 * attached to errors are left out of the JSON; warnings come from the
 * table's findings, which hold the same facts as the warning records.
 */
#include <vbox.h>

#include <stdio.h>

#include <jansson.h>

#include "cli.h"
#include "diag.h"
#include "ir.h"
#include "shadow.h"

/* The "errors" array: every DIAG_ERROR record, in order. */
static json_t *errors_json(const struct diag_list *diags)
{
	json_t *arr = json_array(), *e;
	char *msg;
	size_t i;

	if (!arr)
		return NULL;
	for (i = 0; i < diags->n; i++) {
		const struct diag *d = &diags->items[i];

		if (d->severity != DIAG_ERROR)
			continue;
		e = cli_json_pack("{s:o, s:o}",
				  "source", cli_json_location(&d->loc),
				  "message", cli_json_string(d->msg));
		if (!e || json_array_append_new(arr, e) != 0)
			goto err;
	}
	/* Errors beyond the cap were counted, not stored: say so. */
	if (diags->dropped) {
		msg = xasprintf("%zu more error%s not shown", diags->dropped,
				diags->dropped == 1 ? "" : "s");
		e = cli_json_pack("{s:n, s:o}", "source", "message",
				  cli_json_string(msg));
		free(msg);
		if (!e || json_array_append_new(arr, e) != 0)
			goto err;
	}
	return arr;
err:
	json_decref(arr);
	return NULL;
}

/* The "warnings" array: the table's shadow findings, in their order. */
static json_t *warnings_json(const struct table *table)
{
	json_t *arr = json_array(), *w;
	char *msg;
	size_t i;

	if (!arr)
		return NULL;
	for (i = 0; table && i < table->nfindings; i++) {
		const struct finding *f = &table->findings[i];

		msg = finding_message(f);
		w = cli_json_pack("{s:s, s:I, s:s, s:I, s:o, s:o}",
				  "kind", finding_kind_name(f->kind),
				  "row", (json_int_t)f->row->index,
				  "domain", domain_name(f->row->domain),
				  "by", (json_int_t)f->by->index,
				  "source", cli_json_location(&f->row->loc),
				  "message", cli_json_string(msg));
		free(msg);
		if (!w || json_array_append_new(arr, w) != 0)
			goto err;
	}
	return arr;
err:
	json_decref(arr);
	return NULL;
}

static int check_print_json(const struct cli_session *s)
{
	json_t *errors = errors_json(&s->diags);
	json_t *warnings = warnings_json(s->table);

	if (!errors || !warnings) {
		json_decref(errors);
		json_decref(warnings);
		fprintf(stderr, "%s: cannot build the JSON report\n",
			CLI_PROGNAME);
		return -1;
	}
	return cli_json_print(cli_json_pack("{s:o, s:o}", "errors", errors,
					    "warnings", warnings));
}

static int check_run(const struct cli_opts *opts)
{
	struct cli_session s;
	int status;

	cli_session_load(&s, opts);
	status = cli_failed(&s, opts) ? CLI_EXIT_FAIL : CLI_EXIT_OK;
	if (opts->format == CLI_FORMAT_TEXT) {
		cli_print_diags(&s, opts);
	} else if ((opts->format == CLI_FORMAT_SARIF ?
		    cli_sarif_print(&s) : check_print_json(&s)) < 0) {
		/* The report is lost: the diagnostics must still be seen. */
		cli_print_diags(&s, opts);
		status = CLI_EXIT_FAIL;
	}
	cli_session_free(&s);
	return status;
}

static const char check_description[] =
	"Parse and validate rule files, build the table and report rows\n"
	"that can never decide (shadow analysis).  Prints nothing on\n"
	"success.\n";

static const char check_format_help[] =
	"text (default: diagnostics on stderr),\n"
	"json (one object on stdout) or sarif\n"
	"(a SARIF 2.1.0 log on stdout)";

static const char check_notes[] =
	"RULES may be '-' for standard input.\n"
	"\n"
	"Exit status: 0 success, 1 invalid rules or a warning under\n"
	"-Werror, 2 usage error.\n";

const struct cli_command cli_check_command = {
	.name = "check",
	.summary = "parse, validate and analyze rules; diagnostics only",
	.synopsis = "check [OPTIONS] RULES...",
	.description = check_description,
	.format_help = check_format_help,
	.formats = CLI_FORMATS(CLI_FORMAT_TEXT) | CLI_FORMATS(CLI_FORMAT_JSON) |
		   CLI_FORMATS(CLI_FORMAT_SARIF),
	.notes = check_notes,
	.flags = CLI_OPT_FORMAT,
	.run = check_run,
};
