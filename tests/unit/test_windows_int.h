/* SPDX-License-Identifier: MIT */
/*
 * test_windows_int.h - what test_windows.c and test_windows_tables.c
 * share: compiling, emitting and the first error (test_windows.c), and
 * the whole-table cases (test_windows_tables.c).  Internal to
 * test_windows.
 */
#ifndef VBOX_TEST_WINDOWS_INT_H
#define VBOX_TEST_WINDOWS_INT_H

#include <stddef.h>

struct location;
struct tl_compiled;

/* test_windows.c */

/*
 * Build, analyze and classify @text for windows.  @defines ("NAME=VALUE",
 * @ndefines of them) come first; HOME is defined as a drive path unless
 * they define it.  Returns 0, or -1 when the table does not build.
 */
int compile_defs(struct tl_compiled *c, const char *text,
		 const char *const *defines, size_t ndefines);
int compile(struct tl_compiled *c, const char *text);

/* The profile as a string (caller frees), or NULL when emitting fails. */
char *emit(struct tl_compiled *c);

/* The first error of @c and its location in *@loc, or NULL. */
const char *first_error(const struct tl_compiled *c,
			const struct location **loc);

/* test_windows_tables.c */
void test_faithful(void);
void test_bad_utf8(void);
void test_cases(void);

#endif /* VBOX_TEST_WINDOWS_INT_H */
