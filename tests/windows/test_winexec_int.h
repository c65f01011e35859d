/* SPDX-License-Identifier: MIT */
/*
 * test_winexec_int.h - what test_winexec.c and test_winexec_state.c
 * share: the file and golden plan helpers (test_winexec.c) and the state
 * file cases (test_winexec_state.c).  Internal to test_winexec.
 */
#ifndef VBOX_TEST_WINEXEC_INT_H
#define VBOX_TEST_WINEXEC_INT_H

#include <stddef.h>

struct plan;

/* test_winexec.c */

/* The whole of @path (caller frees) and its length in *@len, or NULL. */
char *slurp(const char *path, size_t *len);

/* Load @name's plan; 0 or -1. */
int golden_plan(const char *name, struct plan *plan);

/* @text with the first @from replaced by @to (NULL when absent). */
char *replace_once(const char *text, const char *from, const char *to);

/* test_winexec_state.c */
void test_state(void);
void test_two_writers(void);

#endif /* VBOX_TEST_WINEXEC_INT_H */
