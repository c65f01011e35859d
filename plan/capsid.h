/* SPDX-License-Identifier: MIT */
/*
 * capsid.h - the windows capability SID (doc/targets.md, "The capability
 * SID"), one implementation for the compiler (emitters/windows.c) and
 * the windows launcher (runtime/windows/), so both derive it alike.
 *
 * SHA-256 over lines "TAG LEN:TEXT\n", formatted as S-1-15-3 and the
 * digest as eight 32-bit little-endian sub-authorities.
 */
#ifndef VBOX_CAPSID_H
#define VBOX_CAPSID_H

#include <stddef.h>
#include <stdint.h>

struct plan;

/* Longest SID text: "S-1-15-3" and eight "-4294967295", and a NUL. */
#define CAPSID_MAX 128
/* Sub-authorities of a capability SID: 3 and the eight digest words. */
#define CAPSID_NSUB 9

struct sha256 {
	uint32_t h[8];
	uint64_t nbytes;
	uint8_t block[64];
	size_t nblock;
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
void sha256_final(struct sha256 *s, uint8_t out[32]);

/* capsid_begin - start a derivation: the format and target lines. */
void capsid_begin(struct sha256 *s, const char *target);
/* capsid_line - one length-prefixed line "TAG LEN:TEXT\n". */
void capsid_line(struct sha256 *s, const char *tag, const char *text);
/* capsid_end - the SID text into @out, and its sub-authorities into @sub. */
void capsid_end(struct sha256 *s, char out[CAPSID_MAX],
		uint32_t sub[CAPSID_NSUB]);

/*
 * capsid_of_plan - derive the SID of a loaded windows plan from its rows
 * (priority order) and postures, exactly as the compiler does from its
 * table.  Returns 0, or -1 when a row cannot be spelled (bad effect).
 */
int capsid_of_plan(const struct plan *plan, char out[CAPSID_MAX],
		   uint32_t sub[CAPSID_NSUB]);

#endif /* VBOX_CAPSID_H */
