// SPDX-License-Identifier: MIT
/*
 * cli_diff.c - "vboxc diff OLD NEW": every class of paths and
 * destinations the two rule files decide differently (compiler/diff.h,
 * doc/reviewing.md), for code review and CI gates.
 *
 * Both files are loaded as compile loads them (the same --target, -D
 * and -I for both).  Text format, one block per class on stdout, sorted
 * by operation (read, write, net) and witness; nothing when no decision
 * differs:
 *
 *   widens|narrows QUERY
 *     old: allow|deny by row N (EFFECT, level L) at FILE:LINE:COL: ROW
 *     new: allow|deny by default (REASON)
 *   ...
 *   N classes differ: W widen, R narrow
 *
 * QUERY is what "vboxc explain" takes ("read PATH", "write PATH", "net
 * HOST:PORT") and answers as shown on each table.  JSON: one object,
 * {"target","old","new","differences":[{"query","domain","change",
 * "old":{ANSWER},"new":{ANSWER}}...],"widens":W,"narrows":R}, ANSWER
 * being explain's members from "allow" to "target" plus "rule".  SARIF:
 * one result per class, a widening at level "error" located at the NEW
 * row that decides it, a narrowing at level "note".
 *
 * Exit status as diff(1), for CI gates: 0 nothing widens (equal, or only
 * narrower), 1 something widens, 2 trouble (usage, invalid rules, a
 * comparison past its bounds, an output error).
 */
#include <vbox.h>

#include <stdio.h>

#include <jansson.h>

#include "cli.h"
#include "diff.h"
#include "ir.h"
#include "location.h"
#include "target.h"

#define DIFF_EXIT_SAME CLI_EXIT_OK
#define DIFF_EXIT_WIDENS 1
#define DIFF_EXIT_TROUBLE 2

/* Why a table's default decides @op, in the words explain uses. */
static const char *default_reason(const struct table *t, enum diff_op op)
{
	switch (op) {
	case DIFF_READ:
		return "reads are always allowed";
	case DIFF_WRITE:
		return t->default_write == EFFECT_RW ? "@default write rw" :
						       "@default write deny";
	case DIFF_NET:
		return t->default_net == EFFECT_ALLOW ? "@default net open" :
							"@default net deny";
	default:
		BUG("bad diff op %d", (int)op);
	}
}

/* The query explain takes for @c ("write /srv/x"); caller frees. */
static char *class_query(const struct diff_class *c)
{
	return xasprintf("%s %s", diff_op_name(c->op), c->witness);
}

static const char *change_name(const struct diff_class *c)
{
	return diff_class_widens(c) ? "widens" : "narrows";
}

/* "  old: deny by row 1 (deny, level 1) at F:L:C: !deny:/x" */
static void print_side(const char *tag, const struct table *t,
		       const struct diff_class *c, bool allow,
		       const struct row *row)
{
	char *where, *text, *clean;

	printf("  %s: %s by ", tag, allow ? "allow" : "deny");
	if (!row) {
		printf("default (%s)\n", default_reason(t, c->op));
		return;
	}
	printf("row %u (%s, level %u)", (unsigned)row->index,
	       effect_name(row->effect), (unsigned)row->level);
	where = location_format(&row->loc);
	if (where) {
		clean = cli_sanitize(where, strlen(where));
		printf(" at %s", clean);
		free(clean);
		free(where);
	}
	text = row_text(row);
	clean = cli_sanitize(text, strlen(text));
	printf(": %s\n", clean);
	free(clean);
	free(text);
}

static void print_text(const struct table *const t[2],
		       const struct diff_result *r)
{
	size_t i, widen = 0;
	char *q, *clean;

	for (i = 0; i < r->n; i++) {
		const struct diff_class *c = &r->classes[i];

		q = class_query(c);
		clean = cli_sanitize(q, strlen(q));
		printf("%s %s\n", change_name(c), clean);
		free(clean);
		free(q);
		print_side("old", t[0], c, c->old_allow, c->old_row);
		print_side("new", t[1], c, c->new_allow, c->new_row);
		widen += diff_class_widens(c);
	}
	if (r->n)
		printf("%zu class%s differ%s: %zu widen%s, %zu narrow%s\n",
		       r->n, r->n == 1 ? "" : "es", r->n == 1 ? "s" : "",
		       widen, widen == 1 ? "s" : "", r->n - widen,
		       r->n - widen == 1 ? "s" : "");
}

/* One side's answer: explain's members from "allow" on, plus "rule". */
static json_t *side_json(bool allow, const struct row *row)
{
	char *text;
	json_t *j;

	if (!row)
		return cli_json_pack("{s:b, s:i, s:i, s:n, s:n, s:n, s:n}",
				     "allow", allow, "row", -1, "level", 0,
				     "effect", "source", "target", "rule");
	text = row_text(row);
	j = cli_json_pack("{s:b, s:I, s:i, s:s, s:o, s:o, s:o}",
			  "allow", allow, "row", (json_int_t)row->index,
			  "level", (int)row->level,
			  "effect", effect_name(row->effect),
			  "source", cli_json_location(&row->loc),
			  "target", cli_json_string(row->domain == DOMAIN_FS ?
						    row->fs.text :
						    row->net.text),
			  "rule", cli_json_string(text));
	free(text);
	return j;
}

static int print_json(const struct cli_opts *opts, const struct diff_result *r)
{
	json_t *arr = json_array(), *e;
	size_t i, widen = 0;
	char *q;

	if (!arr)
		return -1;
	for (i = 0; i < r->n; i++) {
		const struct diff_class *c = &r->classes[i];

		q = class_query(c);
		e = cli_json_pack("{s:o, s:s, s:s, s:o, s:o}",
				  "query", cli_json_string(q),
				  "domain", c->op == DIFF_NET ? "net" : "fs",
				  "change", change_name(c),
				  "old", side_json(c->old_allow, c->old_row),
				  "new", side_json(c->new_allow, c->new_row));
		free(q);
		if (!e || json_array_append_new(arr, e)) {
			json_decref(arr);
			return -1;
		}
		widen += diff_class_widens(c);
	}
	return cli_json_print(cli_json_pack(
		"{s:s, s:o, s:o, s:o, s:I, s:I}",
		"target", opts->target->name,
		"old", cli_json_string(opts->rules[0]),
		"new", cli_json_string(opts->rules[1]),
		"differences", arr, "widens", (json_int_t)widen,
		"narrows", (json_int_t)(r->n - widen)));
}

/* "deny by row 1 '!deny:/x'" or "allow by default (REASON)" */
static char *side_words(const struct table *t, const struct diff_class *c,
			bool allow, const struct row *row)
{
	char *text, *s;

	if (!row)
		return xasprintf("%s by default (%s)", allow ? "allow" : "deny",
				 default_reason(t, c->op));
	text = row_text(row);
	s = xasprintf("%s by row %u '%s'", allow ? "allow" : "deny",
		      (unsigned)row->index, text);
	free(text);
	return s;
}

/*
 * Where a class is shown in review: the NEW row that decides it, else
 * the NEW table's @default that does, else (reads, or a built-in
 * default) the NEW file itself, from its first line.
 */
static json_t *class_location(const struct cli_session *s,
			      const struct diff_class *c)
{
	const struct table *t = s->table;
	const struct location *dflt = c->op == DIFF_NET ?
		&t->default_net_loc : &t->default_write_loc;
	json_t *loc;
	char *uri;

	if (c->new_row)
		return cli_sarif_location(&c->new_row->loc, NULL);
	if (c->op != DIFF_READ && dflt->in)
		return cli_sarif_location(dflt, NULL);
	if (!s->inputs.n)
		return NULL;
	uri = cli_sarif_uri(s->inputs.items[0]->name);
	loc = cli_json_pack("{s:{s:{s:o}, s:{s:i, s:i}}}",
			    "physicalLocation", "artifactLocation", "uri",
			    cli_json_string(uri), "region", "startLine", 1,
			    "startColumn", 1);
	free(uri);
	return loc;
}

static int print_sarif(const struct cli_session *const s[2],
		       const struct diff_result *r)
{
	json_t *rules, *results = json_array(), *locs, *rel, *res, *l;
	char *q, *ow, *nw, *msg;
	size_t i;

	rules = cli_json_pack(
		"[{s:s, s:{s:s}, s:{s:s}}, {s:s, s:{s:s}, s:{s:s}}]",
		"id", "widens", "shortDescription", "text",
		"the new rules allow what the old ones denied",
		"defaultConfiguration", "level", "error",
		"id", "narrows", "shortDescription", "text",
		"the new rules deny what the old ones allowed",
		"defaultConfiguration", "level", "note");
	if (!rules || !results) {
		json_decref(rules);
		json_decref(results);
		return -1;
	}
	for (i = 0; i < r->n; i++) {
		const struct diff_class *c = &r->classes[i];
		bool widens = diff_class_widens(c);

		q = class_query(c);
		ow = side_words(s[0]->table, c, c->old_allow, c->old_row);
		nw = side_words(s[1]->table, c, c->new_allow, c->new_row);
		msg = xasprintf("%s %s: now %s; before %s", q, change_name(c),
				nw, ow);
		locs = json_array();
		l = class_location(s[1], c);
		if (l)
			json_array_append_new(locs, l);
		rel = json_array();
		l = c->old_row ? cli_sarif_location(&c->old_row->loc, ow) :
				 NULL;
		if (l)
			json_array_append_new(rel, l);
		res = cli_json_pack("{s:s, s:i, s:s, s:{s:o}, s:o, s:o, "
				    "s:{s:o, s:s}}",
				    "ruleId", change_name(c),
				    "ruleIndex", widens ? 0 : 1,
				    "level", widens ? "error" : "note",
				    "message", "text", cli_json_string(msg),
				    "locations", locs,
				    "relatedLocations", rel,
				    "properties", "query", cli_json_string(q),
				    "change", change_name(c));
		free(q);
		free(ow);
		free(nw);
		free(msg);
		if (!res || json_array_append_new(results, res)) {
			json_decref(rules);
			json_decref(results);
			return -1;
		}
		if (!json_array_size(rel))
			json_object_del(res, "relatedLocations");
	}
	return cli_sarif_print_log(rules, results);
}

/* Load the rule file @opts->rules[@i] into @s; false when it is unusable. */
static bool load_one(const struct cli_opts *opts, size_t i,
		     struct cli_session *s)
{
	struct cli_opts one = *opts;

	one.rules = &opts->rules[i];
	one.nrules = 1;
	cli_session_load(s, &one);
	if (!cli_failed(s, &one))
		return true;
	cli_print_diags(s, &one);
	return false;
}

static int diff_run(const struct cli_opts *opts)
{
	struct cli_session s[2];
	const struct cli_session *sp[2] = { &s[0], &s[1] };
	const struct table *t[2];
	struct diff_result r;
	char *err = NULL;
	int status = DIFF_EXIT_TROUBLE, ret;
	size_t i;
	bool ok;

	memset(&r, 0, sizeof(r));
	if (opts->nrules != 2)
		return cli_usage_error(&cli_diff_command, "diff compares two "
				       "rule files, OLD and NEW (%zu given)",
				       opts->nrules);
	ok = load_one(opts, 0, &s[0]);
	ok = load_one(opts, 1, &s[1]) && ok;
	if (!ok)
		goto out;
	t[0] = s[0].table;
	t[1] = s[1].table;
	if (table_diff(t[0], t[1], &r, &err) < 0) {
		fprintf(stderr, "%s: error: cannot compare '%s' and '%s': %s\n",
			CLI_PROGNAME, opts->rules[0], opts->rules[1], err);
		free(err);
		goto out;
	}
	switch (opts->format) {
	case CLI_FORMAT_TEXT:
		print_text(t, &r);
		ret = 0;
		break;
	case CLI_FORMAT_JSON:
		ret = print_json(opts, &r);
		break;
	case CLI_FORMAT_SARIF:
		ret = print_sarif(sp, &r);
		break;
	default:
		BUG("bad format %d", (int)opts->format);
	}
	if (ret < 0)
		goto out;
	status = DIFF_EXIT_SAME;
	for (i = 0; i < r.n; i++)
		if (diff_class_widens(&r.classes[i]))
			status = DIFF_EXIT_WIDENS;
out:
	diff_result_free(&r);
	cli_session_free(&s[1]);
	cli_session_free(&s[0]);
	return status;
}

static const char diff_description[] =
	"Compare the decisions of two rule files: every class of paths\n"
	"(read, write) and destinations (host:port) that OLD and NEW decide\n"
	"differently, each with a witness that 'vboxc explain' answers so\n"
	"on both, the row of each file that decides it, and whether NEW\n"
	"widens (newly allows) or narrows.  The classes come from the\n"
	"patterns themselves, not from samples: no output means no path\n"
	"and no destination is decided differently (doc/reviewing.md).\n"
	"Both files are read as compile reads them.\n";

static const char diff_format_help[] =
	"text (default), json (one object)\n"
	"or sarif (a SARIF 2.1.0 log; a\n"
	"widening is an error at the NEW row)";

static const char diff_notes[] =
	"OLD or NEW may be '-' for standard input.\n"
	"\n"
	"Exit status: 0 nothing widens (no difference, or only narrower),\n"
	"1 something widens, 2 usage error, invalid rules or a comparison\n"
	"past its bounds.\n";

const struct cli_command cli_diff_command = {
	.name = "diff",
	.summary = "what two rule files decide differently",
	.synopsis = "diff [OPTIONS] OLD NEW",
	.description = diff_description,
	.format_help = diff_format_help,
	.formats = CLI_FORMATS(CLI_FORMAT_TEXT) | CLI_FORMATS(CLI_FORMAT_JSON) |
		   CLI_FORMATS(CLI_FORMAT_SARIF),
	.notes = diff_notes,
	.flags = CLI_OPT_FORMAT,
	.run = diff_run,
};
