/* SPDX-License-Identifier: MIT */
/*
 * shadow.h - rows that can never decide (doc/rules.md §7).
 */
#ifndef VBOX_SHADOW_H
#define VBOX_SHADOW_H

struct table;
struct diag_list;

/*
 * shadow_analyze - find every row the analysis can prove is covered by a
 * higher-priority row, store the findings in @table (replacing earlier
 * ones) and queue one warning per finding plus a note at the covering row.
 * Never claims a live row is dead; may miss some dead rows.  Runs in about
 * O(rows x depth), never over all pairs of rows.
 */
void shadow_analyze(struct table *table, struct diag_list *diags);

struct finding;

/*
 * finding_message - the one-line text of a finding, the same words the
 * warning uses: "row 3 'deny:/srv/work/secret' is ineffective: covered by
 * higher-priority rw row 1 'rw:/srv/work/' '**'".  Caller frees.
 */
char *finding_message(const struct finding *f);

#endif /* VBOX_SHADOW_H */
