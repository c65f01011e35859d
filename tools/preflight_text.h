/* SPDX-License-Identifier: MIT */
/*
 * preflight_text.h - the text form of "vboxc preflight": the lines are
 * collected first, then printed grouped by landing and reason (the
 * reason once, its rows below it) or one line per row (--per-row).
 */
#ifndef VBOX_PREFLIGHT_TEXT_H
#define VBOX_PREFLIGHT_TEXT_H

#include <stdbool.h>
#include <stdio.h>

/**
 * struct pf_line - one row or reserved entry of the table
 * @domain: "fs", "net", or NULL for a reserved entry
 * @index: the row's index in its domain (rows only)
 * @where: "FILE:LINE:COL" or "-" (owned; rows only)
 * @rule: the row's text or the reserved entry, printable (owned)
 * @landing: the landing's name (borrowed: a static string)
 * @reason: the landing's reason, printable (owned)
 */
struct pf_line {
	const char *domain;
	unsigned int index;
	char *where;
	char *rule;
	const char *landing;
	char *reason;
};

/**
 * struct pf_text - the lines of one preflight table, in table order
 * @lines: the lines (file rows, network rows, reserved entries)
 * @n: number of @lines
 * @cap: allocated slots
 */
struct pf_text {
	struct pf_line *lines;
	size_t n;
	size_t cap;
};

void pf_text_init(struct pf_text *t);

/*
 * pf_text_add - append a line; @where, @rule and @reason become owned by
 * @t (pass cli_sanitize()d copies).  @domain NULL: a reserved entry.
 */
void pf_text_add(struct pf_text *t, const char *domain, unsigned int index,
		 char *where, char *rule, const char *landing, char *reason);

/*
 * pf_text_print - print @t to @out.  @per_row: one line each,
 *   fs|net INDEX FILE:LINE:COL 'ROW': LANDING: REASON
 *   reserved 'ENTRY': LANDING: REASON
 * otherwise grouped: for each distinct (landing, reason), in the order
 * of its first line, the line "LANDING: REASON" and below it each of its
 * rows, indented, in table order:
 *     fs|net INDEX FILE:LINE:COL 'ROW'
 *     reserved 'ENTRY'
 * Near-linear: the lines are sorted, not compared pairwise.
 */
void pf_text_print(const struct pf_text *t, bool per_row, FILE *out);

void pf_text_free(struct pf_text *t);

#endif /* VBOX_PREFLIGHT_TEXT_H */
