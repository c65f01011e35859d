/* SPDX-License-Identifier: MIT */
/*
 * test_plan_int.h - what test_plan.c and test_plan_damage.c share: the
 * policies and the helpers that build, encode and decode a plan
 * (test_plan.c), and the rejection cases (test_plan_damage.c).  Internal
 * to test_plan.
 */
#ifndef VBOX_TEST_PLAN_INT_H
#define VBOX_TEST_PLAN_INT_H

#include <stddef.h>
#include <stdint.h>

struct plan;
struct tl_compiled;

/* A plan in a buffer of exactly its size, so ASan sees any over-read. */
struct blob {
	uint8_t *p;
	size_t len;
};

/* test_plan.c */
extern const char policy_small[];
extern const char policy_big[];

/*
 * A classification by hand, independent of the emitters: shadowed rows
 * are absorbed, the others cycle through the kinds a plan can hold.
 */
void classify_by_hand(struct tl_compiled *c);

/* @c's table and landings encoded for @target, with @artifact. */
struct blob encode(const struct tl_compiled *c, const char *target,
		   const char *artifact, size_t artifact_len);

/* A valid encoded linux artifact of @nbinds try-binds (caller frees). */
char *lx_bytes(size_t nbinds, size_t *len);

/* plan_decode() on a copy of exactly @len bytes (ASan sees over-reads). */
int decode_copy(const uint8_t *buf, size_t len, struct plan *p,
		char **err);

/* test_plan_damage.c */
void test_every_byte_flip(void);
void test_every_bit_flip_large(void);
void test_every_truncation(void);
void test_forged(void);
void test_supervised(void);
void test_messages(void);
void test_load(void);

#endif /* VBOX_TEST_PLAN_INT_H */
