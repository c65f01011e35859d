/* SPDX-License-Identifier: MIT */
/*
 * tap.h - a tiny TAP producer for C unit tests.
 *
 * ok(cond, fmt, ...) records one test point; is_int/is_str compare and print
 * both sides on failure; done_testing() prints the plan and returns the
 * exit status (0 only if every point passed).
 */
#ifndef VBOX_TAP_H
#define VBOX_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/*
 * One count for the whole test program, whichever of its files records a
 * point: weak definitions, which the linker merges into one.
 */
__attribute__((weak)) int tap_n;
__attribute__((weak)) int tap_failed;

static inline __attribute__((format(printf, 2, 3))) int
ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	return cond;
}

#define diag(...) \
	do { printf("# "); printf(__VA_ARGS__); putchar('\n'); } while (0)

#define is_int(got, want, ...) \
	do { long long g_ = (got), w_ = (want); \
	     if (!ok(g_ == w_, __VA_ARGS__)) \
		diag("  got %lld, want %lld", g_, w_); } while (0)

#define is_str(got, want, ...) \
	do { const char *g_ = (got), *w_ = (want); \
	     int same_ = (g_ && w_) ? strcmp(g_, w_) == 0 : g_ == w_; \
	     if (!ok(same_, __VA_ARGS__)) \
		diag("  got '%s', want '%s'", g_ ? g_ : "(null)", \
		     w_ ? w_ : "(null)"); } while (0)

static inline int done_testing(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif /* VBOX_TAP_H */
