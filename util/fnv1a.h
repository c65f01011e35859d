/* SPDX-License-Identifier: MIT */
/*
 * fnv1a.h - FNV-1a over a run of bytes, 32 bits: the hash of the path
 * maps (compiler/pathmap.c, and runtime/init/srcview.c in vbox-init,
 * which links nothing of ours: hence a header).  util/u64map.h has the
 * 64-bit one.
 */
#ifndef VBOX_FNV1A_H
#define VBOX_FNV1A_H

#include <stddef.h>
#include <stdint.h>

static inline uint32_t fnv1a32(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= s[i];
		h *= 16777619u;
	}
	return h;
}

#endif /* VBOX_FNV1A_H */
