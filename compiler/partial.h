/* SPDX-License-Identifier: MIT */
/*
 * partial.h - restrictive rows overridden on part of what they match.
 */
#ifndef VBOX_PARTIAL_H
#define VBOX_PARTIAL_H

struct table;
struct diag_list;
struct finding;

/*
 * partial_analyze - find deny and ro rows (deny network rows) that a more
 * permissive higher-priority row decides on part of what they match,
 * store them in table->partials (replacing earlier ones) and queue one
 * note per finding plus a note at the overriding row.  Run after
 * shadow_analyze() (covered rows are not reported again).  Each finding
 * carries an example path or host:port that the evaluator confirmed, so
 * none is false; a bounded number of candidates per row (from the
 * indexes) keeps it near-linear, so some are missed.
 */
void partial_analyze(struct table *table, struct diag_list *diags);

/*
 * partial_message - "row 1 'deny:**' '/.env' is partly overridden: ...,
 * e.g. /proj/.env".  Caller frees.
 */
char *partial_message(const struct finding *f);

#endif /* VBOX_PARTIAL_H */
