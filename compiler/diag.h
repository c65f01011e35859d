/* SPDX-License-Identifier: MIT */
/*
 * diag.h - diagnostics are records, printed only by the programs.
 *
 * Library code never prints and never exits: it queues records on a
 * struct diag_list and returns -1.  The CLI prints them in order as
 * "FILE:LINE:COL: error|warning|note: message" followed by the source line
 * and a caret, or turns them into JSON.  -Werror is a count check.
 */
#ifndef VBOX_DIAG_H
#define VBOX_DIAG_H

#include <stdint.h>
#include <stdio.h>
#include "location.h"
#include "u64map.h"

/**
 * enum diag_severity - how bad a record is
 * @DIAG_ERROR: the input is invalid; the command fails
 * @DIAG_WARNING: suspicious but valid (shadowed rows); an error under -Werror
 * @DIAG_NOTE: extra facts about the preceding error or warning
 */
enum diag_severity {
	DIAG_ERROR,
	DIAG_WARNING,
	DIAG_NOTE,
};

/**
 * struct diag - one diagnostic record
 * @severity: see enum diag_severity
 * @loc: where; @loc.in == NULL for diagnostics with no file position
 * @msg: the message: lower-case start, no trailing period, offending text
 *       quoted, owned by the record
 * @fold: the record's reason: a hash of its severity and its message with
 *        quoted text and numbers left out (a note: its record's)
 * @ordinal: how many records of this reason were queued up to this one
 *           (a note: its record's)
 */
struct diag {
	enum diag_severity severity;
	struct location loc;
	char *msg;
	uint64_t fold;
	uint32_t ordinal;
};

/**
 * struct diag_list - the records of one run, in the order they were queued
 * @items: the records
 * @n: number of records
 * @cap: allocated slots
 * @nerrors: number of DIAG_ERROR records
 * @nwarnings: number of DIAG_WARNING records
 * @max_errors: after this many errors further errors are counted but not
 *              stored (0 = unlimited); a final note says so when printing.
 *              Parsing goes on past it (an input's size bounds the work),
 *              so the count of errors not shown is exact
 * @dropped: number of errors not stored because of @max_errors
 * @nshown: errors that text shows (not folded), which @max_errors bounds
 * @folds: reason (struct diag's @fold) -> records queued for it
 * @fold_hint: where the records a fold hides are listed, said on the
 *             fold's line ("--format=json lists every row"), or NULL;
 *             a static string of the caller's
 *
 * Repeats fold in text (diag_print()): of the records of one reason the
 * first DIAG_FOLD_SHOW are printed, then one line "... and N more rows"
 * when N is 2 or more (one more is printed instead);
 * the list keeps every record (JSON and SARIF list each), and a folded
 * error does not count against @max_errors.
 */
struct diag_list {
	struct diag *items;
	size_t n;
	size_t cap;
	size_t nerrors;
	size_t nwarnings;
	size_t max_errors;
	size_t dropped;
	size_t nshown;
	struct u64map folds;
	const char *fold_hint;
};

#define DIAG_DEFAULT_MAX_ERRORS 20
/* Records of one reason printed before the rest are folded. */
#define DIAG_FOLD_SHOW 3
/*
 * Folded records are stored while the list holds fewer than this many;
 * past it they are counted only (a folded error as not shown).
 */
#define DIAG_MAX_RECORDS 1000000

void diag_list_init(struct diag_list *list);
void diag_list_free(struct diag_list *list);

/*
 * diag_error - queue an error at @loc (may be NULL); always returns -1 so
 * call sites read "return diag_error(...)".
 */
__printf(3, 4) int diag_error(struct diag_list *list,
			      const struct location *loc, const char *fmt, ...);
__printf(3, 4) void diag_warning(struct diag_list *list,
				 const struct location *loc,
				 const char *fmt, ...);
__printf(3, 4) void diag_note(struct diag_list *list,
			      const struct location *loc, const char *fmt, ...);

/*
 * diag_list_take - queue @src's records on @dst, in order (under @dst's
 * cap), and leave @src empty.  For callers that look at a step's records
 * before they pass them on.
 */
void diag_list_take(struct diag_list *dst, struct diag_list *src);

/*
 * diag_print - print every record to @out in order.  Records with a
 * location print "In file included from FILE:LINE:COL:" lines for @include
 * chains, the message, the source line (tabs expanded, control and invalid
 * UTF-8 bytes shown as \xNN, long lines cut around the column with "...")
 * and a caret line.  Records without a location print "@progname: ...".
 * Repeats of one reason fold (struct diag_list): the first
 * DIAG_FOLD_SHOW with their notes, then "@progname: note: ... and N more
 * rows with this error|warning[ (@fold_hint)]" when N >= 2.
 */
void diag_print(FILE *out, const struct diag_list *list, const char *progname);

#endif /* VBOX_DIAG_H */
