/* SPDX-License-Identifier: MIT */
/*
 * test_fspath_int.h - what test_fspath.c and test_fspath_match.c share:
 * the three targets' traits and the unix environment (test_fspath.c),
 * and the matching cases (test_fspath_match.c).  Internal to test_fspath.
 */
#ifndef VBOX_TEST_FSPATH_INT_H
#define VBOX_TEST_FSPATH_INT_H

struct target_traits;
struct var_source;

/* test_fspath.c: the traits the tests rely on, spelled out. */
extern const struct target_traits t_linux;
extern const struct target_traits t_darwin;
extern const struct target_traits t_windows;
/* $HOME and friends as the unix cases see them. */
extern const struct var_source vs_unix;

/* test_fspath_match.c */
void test_matching(void);
void test_match_subtree(void);
void test_match_performance(void);
void test_queries(void);
void test_covers(void);
void test_resolve(void);

#endif /* VBOX_TEST_FSPATH_INT_H */
