/* SPDX-License-Identifier: MIT */
/*
 * explain_json.h - the JSON answers of "vboxc explain", one compact
 * object a line (the format is described in cli_explain.c).
 *
 * jansson builds and dumps, once, every part of an answer that depends
 * only on the deciding row (or on the default): everything after
 * "allow".  An answer is then the query string, escaped here, the verdict
 * and that cached text.  tests/unit/test_explain_json.c holds these bytes
 * equal to a json_pack + json_dumps of the whole object on every explain
 * case and on random queries.
 */
#ifndef VBOX_EXPLAIN_JSON_H
#define VBOX_EXPLAIN_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "ir.h"

struct table;
struct row;

/**
 * struct explain_answer - one answer, as explain_json prints it
 * @label: the query as given ("write /srv/x"); sanitized when printed
 * @error: why the query is invalid, or NULL; sanitized when printed
 * @allow: the decision (when !@error)
 * @domain: the domain the query asks about
 * @row: the deciding row, or NULL for the default (when !@error)
 */
struct explain_answer {
	const char *label;
	const char *error;
	bool allow;
	enum domain domain;
	const struct row *row;
};

struct explain_json;

/*
 * explain_json_alloc - the state for answers about @table (borrowed; it
 * must outlive the state).  Never returns NULL.
 */
struct explain_json *explain_json_alloc(const struct table *table);
void explain_json_free(struct explain_json *ej);

/*
 * explain_json_answer - the JSON text of @a, without a newline, in a
 * buffer owned by @ej and valid until the next call; its length in
 * *@len.  Returns NULL after a message on stderr when jansson fails.
 */
const char *explain_json_answer(struct explain_json *ej,
				const struct explain_answer *a, size_t *len);

#endif /* VBOX_EXPLAIN_JSON_H */
