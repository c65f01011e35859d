/* SPDX-License-Identifier: MIT */
/*
 * table_text.h - the table as a target enforces it, as plain text: the
 * defaults, the upstream proxy, then every row in evaluation order with
 * its landing.  No source locations and no row numbers: it changes
 * exactly when a decision can (a row, its level or effect or pattern,
 * their order, a default) or where a row lands, so it is what reviewers
 * golden-diff next to a profile that cannot show everything
 * (doc/reviewing.md): `compile --emit=table`, and the network rows as a
 * comment block in the darwin profile.
 */
#ifndef VBOX_TABLE_TEXT_H
#define VBOX_TABLE_TEXT_H

#include <stdio.h>

struct table;
struct landing_set;

/**
 * enum table_text_part - which parts table_text_write() writes
 * @TABLE_TEXT_FS: @default write and tmp, and the file rows
 * @TABLE_TEXT_NET: @default net, @upstream-proxy, and the network rows
 */
enum table_text_part {
	TABLE_TEXT_FS = 1,
	TABLE_TEXT_NET = 2,
};

/*
 * table_text_write - write the @parts (enum table_text_part, or-ed) of
 * @table classified as @landing to @out, each line starting with
 * @prefix ("" or an SBPL ";; ").  Lines are "@default ..." directives and
 * "LANDING ROW" with ROW as row_text() writes it (control and non-ASCII
 * bytes as \xNN); an @upstream-proxy URL loses its user-info.  Returns 0,
 * or -1 when @out reports an error.
 */
int table_text_write(const struct table *table,
		     const struct landing_set *landing, unsigned parts,
		     const char *prefix, FILE *out);

#endif /* VBOX_TABLE_TEXT_H */
