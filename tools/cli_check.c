// SPDX-License-Identifier: MIT
/*
 * cli_check.c - "vboxc check": parse, validate and analyze rule files.
 *
 * Text format: diagnostics go to stderr, nothing goes to stdout.  JSON
 * format: exactly one object on stdout,
 *   {"errors":[{"source":"f:3:1"|null,"message":"..."}...],
 *    "warnings":[{"kind":...,"row":N,"domain":...,"by":M,"source":...,
 *                 "message":...}...,
 *                {"kind":"target","target":T,"source":...,
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
#include "emit.h"
#include "ir.h"
#include "linux_container.h"
#include "partial.h"
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

/*
 * The "warnings" array: deny rows read as hosts, patterns with blanks
 * that look like trailing text, the table's shadow findings in their
 * order, then the target's warnings (check --target).
 */
static json_t *warnings_json(const struct table *table,
			     const struct diag_list *target_diags,
			     const char *target)
{
	json_t *arr = json_array(), *w;
	char *msg;
	size_t i;

	if (!arr)
		return NULL;
	for (i = 0; table && i < table->nhost_words; i++) {
		const struct row *row = table->host_words[i];

		msg = xasprintf("deny target '%s' is read as the network host "
				"'%s', not a file", row->raw, row->net.host);
		w = cli_json_pack("{s:s, s:I, s:s, s:o, s:o}",
				  "kind", "deny-host",
				  "row", (json_int_t)row->index,
				  "domain", domain_name(row->domain),
				  "source", cli_json_location(&row->loc),
				  "message", cli_json_string(msg));
		free(msg);
		if (!w || json_array_append_new(arr, w) != 0)
			goto err;
	}
	for (i = 0; table && i < table->nblanks; i++) {
		const struct table_blank *b = &table->blanks[i];

		w = cli_json_pack("{s:s, s:I, s:s, s:o, s:o}",
				  "kind", "blanks",
				  "row", (json_int_t)b->row->index,
				  "domain", domain_name(b->row->domain),
				  "source", cli_json_location(&b->at),
				  "message", cli_json_string(b->msg));
		if (!w || json_array_append_new(arr, w) != 0)
			goto err;
	}
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
	for (i = 0; i < target_diags->n; i++) {
		const struct diag *d = &target_diags->items[i];

		if (d->severity != DIAG_WARNING)
			continue;
		w = cli_json_pack("{s:s, s:s, s:o, s:o}",
				  "kind", "target", "target", target,
				  "source", cli_json_location(&d->loc),
				  "message", cli_json_string(d->msg));
		if (!w || json_array_append_new(arr, w) != 0)
			goto err;
	}
	return arr;
err:
	json_decref(arr);
	return NULL;
}

/*
 * The "notes" array (left out when empty, so tables without notes keep
 * the two-member object): partly overridden rows, allow rows that name
 * no port, an empty table, and with an explicit --target the rows
 * compile would refuse there ("unsupported") and the target's own notes
 * ("target": a darwin profile that needs the launcher's parameters, a
 * linux row that lands supervised and what it costs); with
 * --mode=container the rows vbox-exec would refuse there ("unsupported"),
 * under --accept-narrower the narrower rows ("narrower"), and the one
 * note for the rows the path supervisor holds ("supervised", the only
 * container note at no row).
 */
static json_t *notes_json(const struct table *table,
			  const struct diag_list *target_notes,
			  const char *target, bool container)
{
	json_t *arr = json_array(), *w;
	char *msg;
	size_t i;

	if (!arr)
		return NULL;
	for (i = 0; table && i < table->npartials; i++) {
		const struct finding *f = &table->partials[i];

		msg = partial_message(f);
		w = cli_json_pack("{s:s, s:I, s:s, s:I, s:s, s:s*, s:o, s:o}",
				  "kind", finding_kind_name(f->kind),
				  "row", (json_int_t)f->row->index,
				  "domain", domain_name(f->row->domain),
				  "by", (json_int_t)f->by->index,
				  "example", f->example,
				  "if_directory", f->if_dir,
				  "source", cli_json_location(&f->row->loc),
				  "message", cli_json_string(msg));
		free(msg);
		if (!w || json_array_append_new(arr, w) != 0)
			goto err;
	}
	for (i = 0; table && i < table->net.n; i++) {
		const struct row *row = table->net.order[i];

		msg = cli_any_port_message(row);
		if (!msg)
			continue;
		w = cli_json_pack("{s:s, s:I, s:s, s:o, s:o}",
				  "kind", "any-port",
				  "row", (json_int_t)row->index,
				  "domain", domain_name(row->domain),
				  "source", cli_json_location(&row->loc),
				  "message", cli_json_string(msg));
		free(msg);
		if (!w || json_array_append_new(arr, w) != 0)
			goto err;
	}
	for (i = 0; i < target_notes->n; i++) {
		const struct diag *d = &target_notes->items[i];

		if (d->severity == DIAG_WARNING)
			continue;
		w = cli_json_pack("{s:s, s:s, s:o, s:o}",
				  "kind", d->severity == DIAG_ERROR ?
				  "unsupported" : !container ? "target" :
				  d->loc.in ? "narrower" : "supervised",
				  "target", target,
				  "source", cli_json_location(&d->loc),
				  "message", cli_json_string(d->msg));
		if (!w || json_array_append_new(arr, w) != 0)
			goto err;
	}
	if (table && !table->fs.n && !table->net.n) {
		w = cli_json_pack("{s:s, s:n, s:s}", "kind", "empty", "source",
				  "message", "the table has no rows");
		if (!w || json_array_append_new(arr, w) != 0)
			goto err;
	}
	return arr;
err:
	json_decref(arr);
	return NULL;
}

static int check_print_json(const struct cli_session *s,
			    const struct diag_list *target_notes,
			    const char *target, bool container)
{
	json_t *errors = errors_json(&s->diags);
	json_t *warnings = warnings_json(s->table, target_notes, target);
	json_t *notes = notes_json(s->table, target_notes, target,
				   container);

	if (!errors || !warnings || !notes) {
		json_decref(errors);
		json_decref(warnings);
		json_decref(notes);
		fprintf(stderr, "%s: cannot build the JSON report\n",
			CLI_PROGNAME);
		return -1;
	}
	if (!json_array_size(notes)) {
		json_decref(notes);
		return cli_json_print(cli_json_pack("{s:o, s:o}", "errors",
						    errors, "warnings",
						    warnings));
	}
	return cli_json_print(cli_json_pack("{s:o, s:o, s:o}", "errors", errors,
					    "warnings", warnings, "notes",
					    notes));
}

/*
 * check --target=T given explicitly: what compile would refuse on T, as
 * notes (check itself never rejects a table for its target: doc/rules.md
 * §7, "What compile would refuse"), the rows that land supervised on T,
 * as notes with their cost (compile notes them alike), and what compile
 * warns about on T (the emitter's table check), as warnings, which
 * -Werror counts.  All are collected in @out; each refusal and note also
 * becomes a note and each warning a warning on the session's list, so
 * the text and SARIF output show them in place.
 */
static void target_notes(struct cli_session *s, const struct cli_opts *opts,
			 struct diag_list *out)
{
	const struct emitter *em = emitter_for(opts->target);
	struct landing_set landing;
	size_t i;

	if (!opts->target_given || !s->table)
		return;
	/*
	 * Compile's classifiers, at compile's cost: near-linear on every
	 * target (bench/README.md, "check --target (no row bound)"), so
	 * every table gets the notes, however large.
	 */
	emit_classify(em, s->table, &landing, out);
	emit_supervised_notes(em, &landing, out);
	landing_set_free(&landing);
	for (i = 0; i < out->n; i++) {
		const struct diag *d = &out->items[i];
		const struct location *loc = d->loc.in ? &d->loc : NULL;

		if (d->severity == DIAG_ERROR)
			diag_note(&s->diags, loc, "'vboxc compile --target=%s' "
				  "would refuse this: %s", em->name, d->msg);
		else if (d->severity == DIAG_WARNING)
			diag_warning(&s->diags, loc, "%s", d->msg);
		else
			diag_note(&s->diags, loc, "%s", d->msg);
	}
}

/*
 * check --mode=container: each unsupported row a note saying vbox-exec
 * would refuse it, as target_notes() does for compile (check never
 * rejects a table for what its target cannot hold); each narrower row
 * (--accept-narrower) a note, and the rows the path supervisor holds one
 * note for all of them: none is an error.  All also go to @out, for the
 * JSON "notes".
 */
static void container_notes(struct cli_session *s,
			    const struct cli_opts *opts,
			    struct diag_list *out)
{
	struct diag_list unsupported, notes;
	struct ctr_landings ctr;
	size_t i;

	if (!s->table)
		return;
	diag_list_init(&unsupported);
	diag_list_init(&notes);
	linux_container_classify(s->table, opts->accept_narrower, &ctr);
	linux_container_report(&ctr, &notes, &unsupported);
	for (i = 0; i < notes.n; i++) {
		const struct diag *d = &notes.items[i];
		const struct location *loc = d->loc.in ? &d->loc : NULL;

		diag_note(&s->diags, loc, "%s", d->msg);
		diag_note(out, loc, "%s", d->msg);
	}
	diag_list_free(&notes);
	for (i = 0; i < unsupported.n; i++) {
		const struct diag *d = &unsupported.items[i];
		const struct location *loc = d->loc.in ? &d->loc : NULL;

		diag_note(&s->diags, loc, "'vbox-exec --mode=container' would "
			  "refuse this: %s", d->msg);
	}
	diag_list_take(out, &unsupported);
	diag_list_free(&unsupported);
	linux_container_free(&ctr);
}

static int check_run(const struct cli_opts *opts)
{
	struct diag_list tnotes;
	struct cli_session s;
	int status;

	diag_list_init(&tnotes);
	cli_session_load(&s, opts);
	if (opts->mode == CLI_MODE_CONTAINER)
		container_notes(&s, opts, &tnotes);
	else
		target_notes(&s, opts, &tnotes);
	/* After target_notes(): -Werror counts the target's warnings. */
	status = cli_failed(&s, opts) ? CLI_EXIT_FAIL : CLI_EXIT_OK;
	if (opts->format == CLI_FORMAT_TEXT) {
		cli_any_port_notes(&s);
		cli_print_diags(&s, opts);
	} else if ((opts->format == CLI_FORMAT_SARIF ?
		    cli_sarif_print(&s) :
		    check_print_json(&s, &tnotes,
				     emitter_for(opts->target)->name,
				     opts->mode == CLI_MODE_CONTAINER)) < 0) {
		/* The report is lost: the diagnostics must still be seen. */
		cli_print_diags(&s, opts);
		status = CLI_EXIT_FAIL;
	}
	cli_session_free(&s);
	diag_list_free(&tnotes);
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
	.flags = CLI_OPT_FORMAT | CLI_OPT_MODE,
	.run = check_run,
};
