// SPDX-License-Identifier: MIT
/*
 * cli_sarif.c - "vboxc check --format=sarif": the findings and errors of
 * a check as one SARIF 2.1.0 log, for code-scanning services that show
 * static-analysis results on the line they concern.
 *
 * One run, tool.driver.name "vboxc" with one reporting descriptor per
 * kind ("ineffective", "dead", "error", and any other kind a finding or a
 * record has).  Results, in this order:
 * - each error record, and each warning or note record that is no
 *   shadow finding's own, in record order (ruleId "error", "warning" or
 *   "note"); the notes that follow one become its relatedLocations;
 * - each shadow finding in the table's order, ruleId = its kind, with
 *   the covering row as a related location and row, domain and by in
 *   the result's properties (the facts of check --format=json).
 * Severities map one to one: error -> "error", warning -> "warning",
 * note -> "note".  Columns are counted in Unicode code points
 * (run.columnKind), so a tab is one column here, unlike in the text
 * diagnostics.  The bytes depend only on the input: keys in insertion
 * order, indented, no time stamps, no absolute paths but those given.
 */
#include <vbox.h>

#include <errno.h>
#include <stdio.h>

#include <jansson.h>

#include "cli.h"
#include "diag.h"
#include "ir.h"
#include "location.h"
#include "shadow.h"

#define SARIF_SCHEMA "https://docs.oasis-open.org/sarif/sarif/v2.1.0/" \
		     "errata01/os/schemas/sarif-schema-2.1.0.json"
#define SARIF_FLAGS (JSON_INDENT(2) | JSON_PRESERVE_ORDER)

/**
 * struct sarif_rule - a reporting descriptor (one kind of result)
 * @id: the ruleId
 * @level: its default level
 * @text: its short description
 */
struct sarif_rule {
	const char *id;
	const char *level;
	const char *text;
};

static const struct sarif_rule known_rules[] = {
	{ "ineffective", "warning",
	  "a deny or ro row covered by a higher-priority rw row: what it "
	  "seems to protect is not protected" },
	{ "dead", "warning",
	  "a row covered by a higher-priority row: it can never decide" },
	{ "error", "error", "invalid rules: nothing was compiled" },
	{ "warning", "warning", "a warning about the rules" },
	{ "note", "note", "a note about the rules" },
};

static const char *severity_level(enum diag_severity sev)
{
	switch (sev) {
	case DIAG_ERROR:
		return "error";
	case DIAG_WARNING:
		return "warning";
	case DIAG_NOTE:
		return "note";
	default:
		BUG("unknown severity %d", (int)sev);
	}
}

/*
 * The level of a finding.  Shadowed rows (ineffective, dead) are
 * warnings, as in the text output; a kind added later that is not one of
 * them is reported as a note, the level of analysis remarks that never
 * fail -Werror.
 */
static const char *finding_level(const struct finding *f)
{
	if (f->kind == FINDING_INEFFECTIVE || f->kind == FINDING_DEAD)
		return "warning";
	return "note";
}

/*
 * @name as a URI reference: unreserved characters and '/' stay, every
 * other byte is %-encoded; an absolute path becomes a file:// URI.
 */
char *cli_sarif_uri(const char *name)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t i, n = strlen(name);
	char *out = xmalloc(3 * n + sizeof("file://")), *w = out;

	if (name[0] == '/') {
		memcpy(w, "file://", 7);
		w += 7;
	}
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || strchr("-._~/", c)) {
			*w++ = (char)c;
		} else {
			*w++ = '%';
			*w++ = hex[c >> 4];
			*w++ = hex[c & 15];
		}
	}
	*w = '\0';
	return out;
}

/*
 * The code-point column of the display column @col on @loc's line
 * (display columns advance a tab to the next multiple of 8 plus one).
 */
static unsigned codepoint_col(const struct location *loc, unsigned col)
{
	unsigned disp = 1, cp = 1;
	const char *line;
	size_t len, i;

	line = location_line(loc, &len);
	if (!line)
		return col;
	for (i = 0; i < len && disp < col; i++) {
		unsigned char c = (unsigned char)line[i];

		if ((c & 0xc0) == 0x80)
			continue;
		disp = c == '\t' ? (disp - 1) / 8 * 8 + 9 : disp + 1;
		cp++;
	}
	return cp;
}

json_t *cli_sarif_location(const struct location *loc, const char *text)
{
	unsigned start, end;
	json_t *phys, *msg;
	char *uri;

	if (!loc->in)
		return NULL;
	uri = cli_sarif_uri(loc->in->name);
	start = codepoint_col(loc, loc->col);
	end = codepoint_col(loc, loc->last_col) + 1;
	if (end <= start)
		end = start + 1;
	phys = cli_json_pack("{s:{s:o}, s:{s:I, s:I, s:I}}",
			     "artifactLocation", "uri", cli_json_string(uri),
			     "region", "startLine", (json_int_t)loc->line,
			     "startColumn", (json_int_t)start,
			     "endColumn", (json_int_t)end);
	free(uri);
	msg = text ? cli_json_pack("{s:o}", "text", cli_json_string(text)) :
		     NULL;
	return cli_json_pack("{s:o, s:o*}", "physicalLocation", phys,
			     "message", msg);
}

/**
 * struct sarif - the log being built
 * @rules: driver.rules
 * @results: run.results
 */
struct sarif {
	json_t *rules;
	json_t *results;
};

/* The index of the rule @id in driver.rules, added when missing. */
static json_int_t rule_index(struct sarif *s, const char *id,
			     const char *level)
{
	const char *text = "a finding of the shadow analysis";
	size_t i;

	for (i = 0; i < json_array_size(s->rules); i++) {
		json_t *r = json_array_get(s->rules, i);

		if (strcmp(json_string_value(json_object_get(r, "id")),
			   id) == 0)
			return (json_int_t)i;
	}
	for (i = 0; i < array_size(known_rules); i++)
		if (strcmp(known_rules[i].id, id) == 0)
			text = known_rules[i].text;
	json_array_append_new(s->rules, cli_json_pack(
		"{s:s, s:{s:s}, s:{s:s}}", "id", id,
		"shortDescription", "text", text,
		"defaultConfiguration", "level", level));
	return (json_int_t)json_array_size(s->rules) - 1;
}

/* Append a result; returns its relatedLocations array (borrowed). */
static json_t *add_result(struct sarif *s, const char *id, const char *level,
			  const char *text, const struct location *loc,
			  json_t *props)
{
	json_t *locs = json_array(), *related = json_array(), *r, *l;
	json_int_t idx = rule_index(s, id, level);

	l = loc ? cli_sarif_location(loc, NULL) : NULL;
	if (l)
		json_array_append_new(locs, l);
	r = cli_json_pack("{s:s, s:I, s:s, s:{s:o}, s:o, s:o, s:o*}",
			  "ruleId", id, "ruleIndex", idx, "level", level,
			  "message", "text", cli_json_string(text),
			  "locations", locs, "relatedLocations", related,
			  "properties", props);
	if (!r)
		return NULL;
	json_array_append_new(s->results, r);
	return json_object_get(r, "relatedLocations");
}

/* Does some finding belong to the record @d (the warning at its row)? */
static bool finding_record(const struct table *t, const struct diag *d)
{
	size_t i;

	for (i = 0; t && d->loc.in && i < t->nfindings; i++) {
		const struct location *l = &t->findings[i].row->loc;

		if (l->in == d->loc.in && l->line == d->loc.line &&
		    l->col == d->loc.col)
			return true;
	}
	return false;
}

/* The results of the diagnostic records (see the file comment). */
static void add_records(struct sarif *s, const struct cli_session *sess)
{
	const struct diag_list *diags = &sess->diags;
	json_t *related = NULL;
	bool skipping = false;
	char *msg;
	size_t i;

	for (i = 0; i < diags->n; i++) {
		const struct diag *d = &diags->items[i];
		json_t *l;

		if (d->severity == DIAG_NOTE && (related || skipping)) {
			l = skipping ? NULL :
				       cli_sarif_location(&d->loc, d->msg);
			if (l)
				json_array_append_new(related, l);
			continue;
		}
		if (d->severity != DIAG_ERROR &&
		    finding_record(sess->table, d)) {
			/* The finding's own result says it, with its kind. */
			skipping = true;
			related = NULL;
			continue;
		}
		skipping = false;
		related = add_result(s, severity_level(d->severity),
				     severity_level(d->severity), d->msg,
				     &d->loc, NULL);
	}
	if (diags->dropped) {
		msg = xasprintf("%zu more error%s not shown", diags->dropped,
				diags->dropped == 1 ? "" : "s");
		add_result(s, "error", "error", msg, NULL, NULL);
		free(msg);
	}
}

static void add_findings(struct sarif *s, const struct table *t)
{
	json_t *related, *props, *l;
	char *msg, *here;
	size_t i;

	for (i = 0; t && i < t->nfindings; i++) {
		const struct finding *f = &t->findings[i];

		msg = finding_message(f);
		props = cli_json_pack("{s:I, s:s, s:I}",
				      "row", (json_int_t)f->row->index,
				      "domain", domain_name(f->row->domain),
				      "by", (json_int_t)f->by->index);
		related = add_result(s, finding_kind_name(f->kind),
				     finding_level(f), msg, &f->row->loc,
				     props);
		free(msg);
		here = xasprintf("row %u is here", (unsigned)f->by->index);
		l = cli_sarif_location(&f->by->loc, here);
		free(here);
		if (l && related)
			json_array_append_new(related, l);
	}
}

/* Results without related locations carry no empty array. */
static void drop_empty_related(json_t *results)
{
	size_t i;

	for (i = 0; i < json_array_size(results); i++) {
		json_t *r = json_array_get(results, i);

		json_t *rel = json_object_get(r, "relatedLocations");

		if (json_array_size(rel) == 0)
			json_object_del(r, "relatedLocations");
	}
}

int cli_sarif_print_log(json_t *rules, json_t *results)
{
	json_t *log;

	log = cli_json_pack("{s:s, s:s, s:[{s:{s:{s:s, s:s, s:o}}, "
			    "s:s, s:o}]}",
			    "$schema", SARIF_SCHEMA, "version", "2.1.0",
			    "runs", "tool", "driver", "name", CLI_PROGNAME,
			    "version", PACKAGE_VERSION, "rules", rules,
			    "columnKind", "unicodeCodePoints",
			    "results", results);
	if (!log) {
		fprintf(stderr, "%s: cannot build the SARIF log\n",
			CLI_PROGNAME);
		return -1;
	}
	return cli_json_print_flags(log, SARIF_FLAGS);
}

int cli_sarif_print(const struct cli_session *sess)
{
	struct sarif s;
	size_t i;

	s.rules = json_array();
	s.results = json_array();
	if (!s.rules || !s.results) {
		json_decref(s.rules);
		json_decref(s.results);
		return -1;
	}
	/* The known kinds always come first, in a fixed order. */
	for (i = 0; i < 3; i++)
		rule_index(&s, known_rules[i].id, known_rules[i].level);
	add_records(&s, sess);
	add_findings(&s, sess->table);

	drop_empty_related(s.results);
	return cli_sarif_print_log(s.rules, s.results);
}
