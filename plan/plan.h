/* SPDX-License-Identifier: MIT */
/*
 * plan.h - plan.bin, the compiled policy vbox-exec runs (doc/targets.md,
 * "plan.bin").
 *
 * The plan library (plan/libplan.la: this format, its loader, the linux
 * artifact) is what vbox-exec links to read a plan: it needs neither the
 * parser nor the compiler nor jansson.  Writing a plan needs the analysed
 * table and lives on the compile side (emitters/plan_encode.h).
 *
 * Layout, all integers little-endian:
 *
 *   header (32 bytes)
 *     0  8  magic "VBOXPLAN"
 *     8  2  format version (PLAN_FORMAT_VERSION)
 *    10  1  target (enum target_id, target_id.h)
 *    11  1  zero
 *    12  4  header size (32)
 *    16  8  total file size
 *    24  4  CRC-32C of the whole file, computed with these 4 bytes zero
 *    28  4  number of sections
 *   sections, in tag order, each: u16 tag, u16 zero, u32 payload size,
 *   payload.  Strings are u32 length + bytes (no NUL; a NUL inside is
 *   corrupt).  Nothing may follow the last section.
 *
 * The checksum detects damage (CRC-32C catches every single-byte change
 * and every truncation together with the size field); it is not a
 * signature.  The loader bounds every count and length by the bytes left,
 * so no input makes it read out of bounds or allocate without limit.
 */
#ifndef VBOX_PLAN_H
#define VBOX_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "linux_artifact.h"
#include "target_id.h"

#define PLAN_MAGIC "VBOXPLAN"
/*
 * 2: the linux artifact is typed mounts (linux_artifact.h) instead of a
 *    bubblewrap argument list with "--vbox-launch ROW" placeholders.
 */
#define PLAN_FORMAT_VERSION 2
#define PLAN_HEADER_SIZE 32
/* The header's fixed fields (offsets in the layout above). */
#define PLAN_HDR_VERSION 8
#define PLAN_HDR_TARGET 10
#define PLAN_HDR_ZERO 11
#define PLAN_HDR_HEADER_SIZE 12
#define PLAN_HDR_FILE_SIZE 16
#define PLAN_HDR_CRC 24
#define PLAN_HDR_NSECTIONS 28

#define PLAN_SECTION_HEADER_SIZE 8
#define PLAN_NSECTIONS PLAN_SEC_ARTIFACT

/* Upper bounds the loader enforces (corrupt beyond them). */
#define PLAN_MAX_FILE_BYTES (1u << 30)
#define PLAN_MAX_ROWS (1u << 24)


/**
 * enum plan_section - section tags, written in this order, each once
 * @PLAN_SEC_POLICY: u8 default_write (enum effect), u8 default_net
 *                   (EFFECT_DENY or EFFECT_ALLOW = open), string upstream
 *                   proxy (empty = none)
 * @PLAN_SEC_FS_ROWS: u32 count, then rows (see struct plan_row)
 * @PLAN_SEC_NET_ROWS: u32 count, then rows
 * @PLAN_SEC_RESERVED: u32 count, then (string entry, string reason)
 * @PLAN_SEC_FINDINGS: u32 count, then (u8 kind, u8 domain, u32 row,
 *                     u32 by)
 * @PLAN_SEC_ARTIFACT: the target artifact: SBPL text and the ACL plan JSON
 *                     as `vboxc compile` emits them; on linux the typed
 *                     sandbox of linux_artifact.h, with an LX_LAUNCH mount
 *                     where each launch-class row's mounts belong
 */
enum plan_section {
	PLAN_SEC_POLICY = 1,
	PLAN_SEC_FS_ROWS = 2,
	PLAN_SEC_NET_ROWS = 3,
	PLAN_SEC_RESERVED = 4,
	PLAN_SEC_FINDINGS = 5,
	PLAN_SEC_ARTIFACT = 6,
};

/**
 * struct plan_row - one row as the launcher sees it
 * @index: position in its domain's table
 * @prio: position in priority order
 * @effect: enum effect
 * @level: 0..255
 * @landing: enum landing_kind on the plan's target: kernel, launch,
 *           proxy, absorbed, or (file rows of linux plans, deny and ro
 *           only) supervised
 * @target: the normalized target text (fs pattern text or "host:port")
 * @source: "FILE:LINE:COL" where the row was written
 *
 * Encoded as u32 index, u32 prio, u8 effect, u8 level, u8 landing, u8 zero,
 * string target, string source.
 */
struct plan_row {
	uint32_t index;
	uint32_t prio;
	uint8_t effect;
	uint8_t level;
	uint8_t landing;
	char *target;
	char *source;
};

/**
 * struct plan_finding - a shadow finding, for vbox-exec --log
 * @kind: enum finding_kind
 * @domain: enum domain
 * @row: the shadowed row's index
 * @by: the covering row's index
 */
struct plan_finding {
	uint8_t kind;
	uint8_t domain;
	uint32_t row;
	uint32_t by;
};

/**
 * struct plan_reserved - a reserved entry
 * @entry: what the launcher adds
 * @reason: why
 */
struct plan_reserved {
	char *entry;
	char *reason;
};

/**
 * struct plan - a loaded plan; every pointer is owned by it
 * @target: enum target_id
 * @default_write: enum effect (EFFECT_DENY or EFFECT_RW)
 * @default_net: enum effect (EFFECT_DENY or EFFECT_ALLOW)
 * @upstream_proxy: NULL when none
 * @fs, @nfs, @net, @nnet: rows in table order
 * @reserved, @nreserved: reserved entries
 * @findings, @nfindings: shadow findings
 * @artifact, @artifact_len: the artifact bytes (NUL-terminated, not
 *                          counted)
 * @lx: linux plans: the artifact, decoded and checked
 */
struct plan {
	enum target_id target;
	uint8_t default_write;
	uint8_t default_net;
	char *upstream_proxy;
	struct plan_row *fs;
	size_t nfs;
	struct plan_row *net;
	size_t nnet;
	struct plan_reserved *reserved;
	size_t nreserved;
	struct plan_finding *findings;
	size_t nfindings;
	uint8_t *artifact;
	size_t artifact_len;
	struct lx_artifact lx;
};

/*
 * plan_decode - verify and parse @len bytes at @buf into *@out.  Returns
 * 0, or -1 with a one-line message in *@err (caller frees) saying what is
 * wrong: truncated, trailing bytes, bad magic, unsupported version, bad
 * checksum, or which section/field is corrupt.  On failure *@out is
 * zeroed and owns nothing.
 */
int plan_decode(const uint8_t *buf, size_t len, struct plan *out, char **err);

/*
 * plan_load - read the file @path (bounded by PLAN_MAX_FILE_BYTES) and
 * plan_decode() it; *@err names the file.
 */
int plan_load(const char *path, struct plan *out, char **err);

/* plan_release - free what @plan holds (NULL-safe); it is empty again. */
void plan_release(struct plan *plan);

/*
 * plan_supervised_paths - some live file row of @p lands supervised
 * (LANDING_SUPERVISED: the launcher's supervisor must judge path calls;
 * only linux plans have such rows, plan_decode() refuses them elsewhere).
 */
bool plan_supervised_paths(const struct plan *p);

/*
 * plan_supervised_ro_only - @p has rows that land supervised, and every
 * one of them is `ro`: the supervisor refuses writes alone, so no read
 * needs handing over (doc/launcher.md, "Supervised paths": the filter
 * then hands over only the calls that can write).
 */
bool plan_supervised_ro_only(const struct plan *p);

/* crc32c - CRC-32C (Castagnoli) of @len bytes, continuing from @crc. */
uint32_t crc32c(uint32_t crc, const void *buf, size_t len);

#endif /* VBOX_PLAN_H */
