/* SPDX-License-Identifier: MIT */
/*
 * test_parse_int.h - what test_parse.c and test_parse_include.c share:
 * a load and what it produced (test_parse.c), the temporary directory
 * and the @include cases (test_parse_include.c).  Internal to test_parse.
 */
#ifndef VBOX_TEST_PARSE_INT_H
#define VBOX_TEST_PARSE_INT_H

#include "diag.h"
#include "location.h"
#include "stmt.h"

/**
 * struct run - one load and everything it produced
 * @inputs: the inputs read
 * @out: the assembled statements
 * @diags: the diagnostics
 * @rc: the loader's return value
 */
struct run {
	struct input_set inputs;
	struct stmt_list out;
	struct diag_list diags;
	int rc;
};

/* test_parse.c */
void run_init(struct run *r);
void run_free(struct run *r);
/* load_buffer() on @text, as "t.rules" */
void run_str(struct run *r, const char *text);
/* The first diagnostic's message, or NULL. */
const char *first_msg(const struct run *r);

/* test_parse_include.c */

/* The temporary directory (main() makes it), emptied by cleanup(). */
extern char tmpdir[64];
void cleanup(void);
void test_includes(void);

#endif /* VBOX_TEST_PARSE_INT_H */
