/* SPDX-License-Identifier: MIT */
/*
 * explain_json.c - explain's JSON answers (see explain_json.h).
 *
 * An answer is {"query":Q,"allow":B,"row":N,"level":L,"effect":E,
 * "source":S,"domain":D,"target":T}, or {"query":Q,"error":M}.  Packing
 * and dumping that whole object with jansson for each of 200,000 queries
 * made JSON answers 3.5 times slower than text ones, and reusing the
 * objects and the dump buffer still 2.6 times (bench/README.md): most of
 * the time went into dumping the same keys and row strings again.  So
 * jansson dumps each deciding row's part, from "row" to the closing
 * brace, once, on first use; an answer is written as
 *
 *   {"query":  Q  ,"allow":  true|false  CACHED-ROW-PART
 *
 * where only Q (and an error message) is escaped here, by jansson's rules
 * for the text cli_sanitize() leaves: valid UTF-8 without controls other
 * than tab.
 */
#include <vbox.h>

#include <stdio.h>

#include <jansson.h>

#include "cli.h"
#include "explain_json.h"
#include "ir.h"
#include "strbuf.h"

/* The dump of a packed answer starts so when its query is "". */
static const char packed_head[] = "{\"query\":\"\",\"allow\":false";

/**
 * struct explain_json - cached row parts and the output buffer
 * @table: the table the rows belong to (borrowed)
 * @fs, @net: the row part of each row by row index, NULL until first
 *            used (owned strings), one array per domain
 * @dflt: the row part of a default decision, by enum domain
 * @out: the answer being written
 */
struct explain_json {
	const struct table *table;
	char **fs;
	char **net;
	char *dflt[DOMAIN_NET + 1];
	struct strbuf out;
};

struct explain_json *explain_json_alloc(const struct table *table)
{
	struct explain_json *ej = xzalloc(sizeof(*ej));

	ej->table = table;
	ej->fs = xcalloc(table->fs.n + 1, sizeof(*ej->fs));
	ej->net = xcalloc(table->net.n + 1, sizeof(*ej->net));
	return ej;
}

static void parts_free(char **parts, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(parts[i]);
	free(parts);
}

void explain_json_free(struct explain_json *ej)
{
	size_t i;

	if (!ej)
		return;
	parts_free(ej->fs, ej->table->fs.n);
	parts_free(ej->net, ej->table->net.n);
	for (i = 0; i < array_size(ej->dflt); i++)
		free(ej->dflt[i]);
	free(ej->out.s);
	free(ej);
}

/*
 * row_part - jansson's dump of an answer decided by @row (NULL: the
 * default for @domain) after its "allow" member, as a new string, or NULL
 * after a message.
 */
static char *row_part(const struct row *row, enum domain domain)
{
	char *text, *part = NULL;
	json_t *obj;

	if (!row)
		obj = cli_json_pack("{s:s, s:b, s:i, s:i, s:n, s:n, s:s, s:n}",
				    "query", "",
				    "allow", 0,
				    "row", -1,
				    "level", 0,
				    "effect",
				    "source",
				    "domain", domain_name(domain),
				    "target");
	else
		obj = cli_json_pack("{s:s, s:b, s:I, s:i, s:s, s:o, s:s, s:o}",
				    "query", "",
				    "allow", 0,
				    "row", (json_int_t)row->index,
				    "level", (int)row->level,
				    "effect", effect_name(row->effect),
				    "source", cli_json_location(&row->loc),
				    "domain", domain_name(row->domain),
				    "target", cli_json_string(
					    row->domain == DOMAIN_FS ?
					    row->fs.text : row->net.text));
	if (!obj)
		return NULL;
	text = json_dumps(obj, CLI_JSON_FLAGS);
	json_decref(obj);
	if (text && strncmp(text, packed_head, strlen(packed_head)) == 0)
		part = xstrdup(text + strlen(packed_head));
	else
		fprintf(stderr, "%s: cannot format JSON output\n",
			CLI_PROGNAME);
	free(text);
	return part;
}

/*
 * put_string - append @s as a JSON string, sanitized as cli_json_string()
 * does and escaped as jansson's dump does without JSON_ENSURE_ASCII or
 * JSON_ESCAPE_SLASH: '"' and '\\' with a backslash, the controls that
 * have a short form with it, other controls as \uXXXX; everything else,
 * multi-byte UTF-8 too, as it is.
 */
static void put_string(struct strbuf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t len = strlen(s), i, run;
	char *clean = NULL, esc[7];

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c < 0x20 && c != '\t') || c == 0x7f || c >= 0x80)
			break;
	}
	/* Non-ASCII text needs the UTF-8 check; plain ASCII is kept. */
	if (i < len) {
		clean = cli_sanitize(s, len);
		s = clean;
		len = strlen(s);
	}
	strbuf_putc(b, '"');
	for (i = 0; i < len; i += run) {
		unsigned char c = (unsigned char)s[i];
		const char *e = NULL;

		for (run = 0; i + run < len; run++) {
			c = (unsigned char)s[i + run];
			if (c == '"' || c == '\\' || c < 0x20)
				break;
		}
		if (run) {
			strbuf_add(b, s + i, run);
			continue;
		}
		switch (c) {
		case '"':
			e = "\\\"";
			break;
		case '\\':
			e = "\\\\";
			break;
		case '\b':
			e = "\\b";
			break;
		case '\f':
			e = "\\f";
			break;
		case '\n':
			e = "\\n";
			break;
		case '\r':
			e = "\\r";
			break;
		case '\t':
			e = "\\t";
			break;
		default:
			memcpy(esc, "\\u00", 4);
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 0xf];
			esc[6] = '\0';
			e = esc;
			break;
		}
		strbuf_puts(b, e);
		run = 1;
	}
	strbuf_putc(b, '"');
	free(clean);
}

const char *explain_json_answer(struct explain_json *ej,
				const struct explain_answer *a, size_t *len)
{
	const struct row *row = a->row;
	char **part;

	ej->out.len = 0;
	strbuf_puts(&ej->out, "{\"query\":");
	put_string(&ej->out, a->label);
	if (a->error) {
		strbuf_puts(&ej->out, ",\"error\":");
		put_string(&ej->out, a->error);
		strbuf_putc(&ej->out, '}');
		*len = ej->out.len;
		return ej->out.s;
	}
	if (!row)
		part = &ej->dflt[a->domain];
	else if (row->domain == DOMAIN_FS)
		part = &ej->fs[row->index];
	else
		part = &ej->net[row->index];
	if (!*part) {
		*part = row_part(row, a->domain);
		if (!*part)
			return NULL;
	}
	strbuf_puts(&ej->out,
		    a->allow ? ",\"allow\":true" : ",\"allow\":false");
	strbuf_puts(&ej->out, *part);
	*len = ej->out.len;
	return ej->out.s;
}
