/* SPDX-License-Identifier: MIT */
/*
 * plan_encode.h - the compile side of plan.bin (layout: plan/plan.h).
 */
#ifndef VBOX_PLAN_ENCODE_H
#define VBOX_PLAN_ENCODE_H

#include <stddef.h>
#include <stdint.h>

struct table;
struct landing_set;

/*
 * plan_encode - serialize @table (analysed), its classification @landing
 * and the artifact bytes into a new buffer (*@out, *@out_len; caller
 * frees).  Deterministic: the same inputs give the same bytes.
 */
void plan_encode(const struct table *table, const struct landing_set *landing,
		 const char *target_name, const uint8_t *artifact,
		 size_t artifact_len, uint8_t **out, size_t *out_len);

#endif /* VBOX_PLAN_ENCODE_H */
