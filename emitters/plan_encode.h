/* SPDX-License-Identifier: MIT */
/*
 * plan_encode.h - the compile side of plan.bin (layout: plan/plan.h).
 */
#ifndef VBOX_PLAN_ENCODE_H
#define VBOX_PLAN_ENCODE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct table;
struct landing_set;

/*
 * plan_encode_to - write plan.bin for @table (analysed), its
 * classification @landing and the artifact, the @artifact_len bytes read
 * from @artifact's position (NULL when there are none), to @out, a stream
 * open for writing that can seek back (a file or a memory stream).  The
 * plan goes out through a small buffer, never whole (a million rows'
 * plan is some 70 MB); the header's checksum is written last and @out is
 * left at the plan's end.  Returns 0, or -1 with errno set when a write
 * to @out or a read of @artifact failed (@out holds part of a plan then).
 * Deterministic: the same inputs give the same bytes.
 *
 * plan_encode - the same into a new buffer (*@out, *@out_len; caller
 * frees); never fails.
 */
int plan_encode_to(FILE *out, const struct table *table,
		   const struct landing_set *landing, const char *target_name,
		   FILE *artifact, uint64_t artifact_len);
void plan_encode(const struct table *table, const struct landing_set *landing,
		 const char *target_name, const uint8_t *artifact,
		 size_t artifact_len, uint8_t **out, size_t *out_len);

#endif /* VBOX_PLAN_ENCODE_H */
