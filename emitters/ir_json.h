/* SPDX-License-Identifier: MIT */
/*
 * ir_json.h - the compiled table as JSON (`vboxc compile --emit=ir`).
 *
 * The schema is documented in doc/targets.md ("The JSON IR").  Keys appear
 * in a fixed order (insertion order, never hash order), rows in priority
 * order, so the bytes are a pure function of the table and its landing.
 */
#ifndef VBOX_IR_JSON_H
#define VBOX_IR_JSON_H

#include <stdio.h>

struct table;
struct landing_set;
struct diag_list;

#define IR_JSON_FORMAT "vbox-ir"
#define IR_JSON_VERSION 1

/*
 * ir_json_write - write @table (analysed by shadow_analyze()) with its
 * classification @landing on @target_name as one JSON object indented by
 * two spaces, followed by a newline, to @out.  Returns 0, or -1 with an
 * error queued on @diags (JSON could not be built, or @out failed).
 */
int ir_json_write(const struct table *table, const struct landing_set *landing,
		  const char *target_name, FILE *out, struct diag_list *diags);

#endif /* VBOX_IR_JSON_H */
