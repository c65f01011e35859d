/* SPDX-License-Identifier: MIT */
/*
 * test_darwin_int.h - what test_darwin.c and test_darwin_policies.c
 * share: compiling, emitting and checking a policy (test_darwin.c) and
 * the whole-policy cases (test_darwin_policies.c).  Internal to
 * test_darwin.
 */
#ifndef VBOX_TEST_DARWIN_INT_H
#define VBOX_TEST_DARWIN_INT_H

#include <stddef.h>

struct diag_list;
struct tl_compiled;

/* test_darwin.c */

/* Compile and classify @text for darwin into @c. */
int compile_text(struct tl_compiled *c, const char *text);

/* The profile as a string (caller frees), or NULL when emitting failed. */
char *emit(const struct tl_compiled *c, size_t *len,
	   struct diag_list *diags);

/* Emit, check, interpret; returns the profile (caller frees) or NULL. */
char *check_policy(const struct tl_compiled *c, const char *name);

/* test_darwin_policies.c */
void test_long_strings(void);
void test_landings(void);
void test_policies(void);
void test_injection(void);
void test_cases(void);

#endif /* VBOX_TEST_DARWIN_INT_H */
