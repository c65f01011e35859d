/* SPDX-License-Identifier: MIT */
/*
 * table_text.c - the table as a target enforces it, as text (table_text.h).
 */
#include <vbox.h>

#include "emit.h"
#include "ir.h"
#include "table_text.h"

/* @text with control and non-ASCII bytes as \xNN: one line, any locale. */
static void put_escaped(FILE *out, const char *text)
{
	const unsigned char *p;

	for (p = (const unsigned char *)text; *p; p++) {
		if (*p >= 0x20 && *p < 0x7f && *p != '\\')
			fputc(*p, out);
		else
			fprintf(out, "\\x%02x", *p);
	}
}

/*
 * The URL without "user:password@": a credential has no place in a file
 * made to be committed, and it decides nothing.
 */
static void put_url(FILE *out, const char *url)
{
	const char *scheme = strstr(url, "://");
	const char *host = scheme ? scheme + 3 : url;
	const char *at = strrchr(host, '@');

	if (!at) {
		put_escaped(out, url);
		return;
	}
	fwrite(url, 1, (size_t)(host - url), out);
	put_escaped(out, at + 1);
}

static void put_rows(FILE *out, const char *prefix, const struct rowvec *rows,
		     const struct landing *landing)
{
	size_t i;

	for (i = 0; i < rows->n; i++) {
		const struct row *row = rows->prio[i];
		char *text = row_text(row);

		fprintf(out, "%s%-10s ", prefix,
			landing_name(&landing[row->index]));
		put_escaped(out, text);
		fputc('\n', out);
		free(text);
	}
}

int table_text_write(const struct table *table,
		     const struct landing_set *landing, unsigned parts,
		     const char *prefix, FILE *out)
{
	if (parts & TABLE_TEXT_FS) {
		fprintf(out, "%s@default write %s\n", prefix,
			table->default_write == EFFECT_RW ? "rw" : "deny");
		fprintf(out, "%s@default tmp %s\n", prefix,
			table->tmp_private ? "private" : "host");
		fprintf(out, "%sfile rows, first match decides (a read "
			"no row matches is allowed):\n", prefix);
		put_rows(out, prefix, &table->fs, landing->fs);
	}
	if (parts & TABLE_TEXT_NET) {
		fprintf(out, "%s@default net %s\n", prefix,
			table->default_net == EFFECT_DENY ? "deny" : "open");
		if (table->upstream_proxy) {
			fprintf(out, "%s@upstream-proxy ", prefix);
			put_url(out, table->upstream_proxy);
			fputc('\n', out);
		}
		fprintf(out, "%snetwork rows, first match decides:\n", prefix);
		put_rows(out, prefix, &table->net, landing->net);
	}
	return ferror(out) ? -1 : 0;
}
