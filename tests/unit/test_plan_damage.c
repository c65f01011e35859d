/* SPDX-License-Identifier: MIT */
/*
 * test_plan_damage.c - test_plan's rejected plans: every byte and bit
 * flipped, every truncation, plans edited and resealed with a valid
 * checksum (forged), the supervised landing where it may not be, the
 * exact messages, and plan_load() on files.  Each must be refused with a
 * one-line message, never a crash.  The plans are built with
 * test_plan.c's helpers (test_plan_int.h).
 */
#include <vbox.h>

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "diag.h"
#include "emit.h"
#include "ir.h"
#include "plan.h"
#include "plan_encode.h"
#include "tap.h"
#include "test_plan_int.h"
#include "testlib.h"
#include "wire.h"

/* ---- damage ----------------------------------------------------------- */

static struct blob small_plan(struct tl_compiled *c)
{
	struct blob b;
	size_t len;
	char *art = lx_bytes(0, &len);

	if (tl_compile(c, policy_small, "linux", TL_SHADOW))
		BUG("the small policy does not compile");
	classify_by_hand(c);
	b = encode(c, "linux", art, len);
	free(art);
	return b;
}

/* A rejection must carry a message of exactly one non-empty line. */
static bool good_message(const char *err)
{
	return err && *err && !strchr(err, '\n');
}

void test_every_byte_flip(void)
{
	struct tl_compiled c;
	struct blob b = small_plan(&c);
	size_t i, tried = 0, bad = 0;
	unsigned v;

	for (i = 0; i < b.len; i++) {
		uint8_t orig = b.p[i];

		for (v = 0; v < 256; v++) {
			struct plan p;
			char *err = NULL;

			if (v == orig)
				continue;
			b.p[i] = (uint8_t)v;
			tried++;
			if (!decode_copy(b.p, b.len, &p, &err)) {
				if (bad++ < 5)
					diag("byte %zu = %u accepted", i, v);
				plan_release(&p);
			} else if (!good_message(err)) {
				bad++;
			}
			free(err);
		}
		b.p[i] = orig;
	}
	ok(bad == 0 && tried == b.len * 255,
	   "all %zu single-byte changes of a %zu-byte plan are rejected",
	   tried, b.len);
	free(b.p);
	tl_compiled_free(&c);
}

void test_every_bit_flip_large(void)
{
	struct tl_compiled c;
	struct blob b;
	size_t i, bad = 0, len;
	char *artifact = lx_bytes(60, &len);

	if (tl_compile(&c, policy_big, "linux", TL_SHADOW))
		BUG("the big policy does not compile");
	classify_by_hand(&c);
	b = encode(&c, "linux", artifact, len);
	free(artifact);
	for (i = 0; i < b.len * 8; i++) {
		struct plan p;
		char *err = NULL;

		b.p[i / 8] ^= (uint8_t)(1u << (i % 8));
		if (!decode_copy(b.p, b.len, &p, &err)) {
			bad++;
			plan_release(&p);
		} else if (!good_message(err)) {
			bad++;
		}
		free(err);
		b.p[i / 8] ^= (uint8_t)(1u << (i % 8));
	}
	ok(bad == 0, "all %zu single-bit changes of a %zu-byte plan are "
	   "rejected", b.len * 8, b.len);
	free(b.p);
	tl_compiled_free(&c);
}

void test_every_truncation(void)
{
	struct tl_compiled c;
	struct blob b = small_plan(&c);
	struct plan p;
	char *err = NULL;
	size_t n, bad = 0;

	for (n = 0; n < b.len; n++) {
		if (!decode_copy(b.p, n, &p, &err)) {
			bad++;
			plan_release(&p);
		} else if (!good_message(err)) {
			bad++;
		}
		free(err);
		err = NULL;
	}
	ok(bad == 0, "every truncation (0..%zu bytes) is rejected", b.len - 1);
	ok(decode_copy(b.p, b.len, &p, &err) == 0, "the whole plan loads");
	plan_release(&p);
	free(b.p);
	tl_compiled_free(&c);
}

/* ---- forged plans: edited, then resealed with a valid checksum -------- */

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static uint32_t get32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* Fix the size field and the checksum after an edit. */
static void reseal(struct blob *b)
{
	uint64_t n = b->len;
	int i;

	for (i = 0; i < 8; i++)
		b->p[16 + i] = (uint8_t)(n >> (8 * i));
	put32(b->p + 24, 0);
	put32(b->p + 24, crc32c(0, b->p, b->len));
}

/* Offset of section @tag's header in a well-formed plan. */
static size_t section_at(const struct blob *b, unsigned tag)
{
	size_t off = PLAN_HEADER_SIZE;

	while (off + 8 <= b->len) {
		if ((unsigned)(b->p[off] | b->p[off + 1] << 8) == tag)
			return off;
		off += 8 + get32(b->p + off + 4);
	}
	BUG("no section %u", tag);
}

/* Splice: replace @del bytes at @at with @n bytes of @ins. */
static void splice(struct blob *b, size_t at, size_t del, const void *ins,
		   size_t n)
{
	uint8_t *p = xmalloc(b->len - del + n);

	memcpy(p, b->p, at);
	if (n)
		memcpy(p + at, ins, n);
	memcpy(p + at + n, b->p + at + del, b->len - at - del);
	free(b->p);
	b->p = p;
	b->len = b->len - del + n;
}

/* Replace the findings with @n copies of one finding. */
static void set_finding(struct blob *b, unsigned kind, unsigned domain,
			uint32_t row, uint32_t by, unsigned n)
{
	size_t at = section_at(b, PLAN_SEC_FINDINGS), i;
	uint8_t payload[4 + 2 * 10];

	if (n > 2)
		BUG("at most 2 findings");
	put32(payload, n);
	for (i = 0; i < n; i++) {
		uint8_t *f = payload + 4 + 10 * i;

		f[0] = (uint8_t)kind;
		f[1] = (uint8_t)domain;
		put32(f + 2, row);
		put32(f + 6, by);
	}
	splice(b, at + 8, get32(b->p + at + 4), payload, 4 + 10 * n);
	put32(b->p + at + 4, (uint32_t)(4 + 10 * n));
}

static void expect_reject(struct blob *b, const char *want, const char *what)
{
	struct plan p;
	char *err = NULL;

	if (!decode_copy(b->p, b->len, &p, &err)) {
		ok(0, "%s: rejected", what);
		plan_release(&p);
		return;
	}
	if (!ok(good_message(err) && strstr(err, want), "%s", what))
		diag("  got '%s', want it to contain '%s'", err, want);
	free(err);
}

/* A fresh small plan, edited by @edit, resealed, must fail with @want. */
#define FORGE(want, what, ...)                                          \
	do {                                                            \
		struct tl_compiled c_;                                  \
		struct blob b = small_plan(&c_);                         \
		__VA_ARGS__;                                            \
		reseal(&b);                                             \
		expect_reject(&b, want, what);                          \
		free(b.p);                                              \
		tl_compiled_free(&c_);                                  \
	} while (0)

/* The first file row's fixed fields start after its section header. */
#define FS_ROW0 (section_at(&b, PLAN_SEC_FS_ROWS) + 8 + 4)
/* The second's after the first's fields and two strings. */
#define FS_ROW1 row_after(&b, FS_ROW0)
#define NET_ROW0 (section_at(&b, PLAN_SEC_NET_ROWS) + 8 + 4)

static size_t row_after(const struct blob *b, size_t at)
{
	at += 12;
	at += 4 + get32(b->p + at);
	return at + 4 + get32(b->p + at);
}

/*
 * A small plan for @target whose deny row (row 1) lands supervised;
 * plan_supervised_paths() on what it decodes to (-1: refused, with the
 * message in *@err).
 */
static int supervised_row(const char *target, char **err)
{
	struct tl_compiled c;
	struct plan p;
	struct blob b;
	size_t len;
	char *art = strcmp(target, "linux") == 0 ? lx_bytes(0, &len) :
		    xstrdup("(version 1)");
	int ret;

	if (strcmp(target, "linux") != 0)
		len = strlen(art);
	/* Compiled for linux (its paths), encoded for @target. */
	if (tl_compile(&c, policy_small, "linux", TL_SHADOW))
		BUG("the small policy does not compile");
	classify_by_hand(&c);
	b = encode(&c, target, art, len);
	free(art);
	if (b.p[FS_ROW1 + 8] != EFFECT_DENY)
		BUG("row 1 of the small policy is not its deny row");
	b.p[FS_ROW1 + 10] = LANDING_SUPERVISED;
	reseal(&b);
	*err = NULL;
	ret = decode_copy(b.p, b.len, &p, err) ? -1 :
	      plan_supervised_paths(&p);
	if (ret >= 0)
		plan_release(&p);
	free(b.p);
	tl_compiled_free(&c);
	return ret;
}

/*
 * LANDING_SUPERVISED: file rows of linux plans, deny and ro only; an
 * older loader refuses the value as out of range.
 */
void test_supervised(void)
{
	char *err = NULL;
	int got;

	is_int(supervised_row("linux", &err), 1,
	       "supervised: a linux deny row loads, and is reported");
	free(err);
	got = supervised_row("darwin", &err);
	if (!ok(got < 0 && good_message(err) &&
		strstr(err, "landing supervised in a darwin plan (linux "
		       "only)"), "supervised: refused in a darwin plan"))
		diag("  got %d '%s'", got, err ? err : "");
	free(err);
	got = supervised_row("windows", &err);
	if (!ok(got < 0 && good_message(err) &&
		strstr(err, "landing supervised in a windows plan"),
		"supervised: refused in a windows plan"))
		diag("  got %d '%s'", got, err ? err : "");
	free(err);
	FORGE("an rw row cannot land supervised", "supervised: an rw row",
	      b.p[FS_ROW0 + 10] = LANDING_SUPERVISED);
	FORGE("a network row cannot land supervised",
	      "supervised: a network row",
	      b.p[NET_ROW0 + 10] = LANDING_SUPERVISED);
	FORGE("landing 7 is out of range", "supervised: the next value",
	      b.p[FS_ROW1 + 10] = LANDING_SUPERVISED + 1);
}

void test_forged(void)
{
	static const uint8_t four[4] = { 1, 2, 3, 4 };

	FORGE("count 4294967295 exceeds the limit", "a huge row count",
	      put32(b.p + section_at(&b, PLAN_SEC_FS_ROWS) + 8, 0xffffffffu));
	FORGE("needs at least", "a row count within the limit, past the end",
	      put32(b.p + section_at(&b, PLAN_SEC_FS_ROWS) + 8,
		    PLAN_MAX_ROWS));
	FORGE("count 4294967295 exceeds the limit", "a huge reserved count",
	      put32(b.p + section_at(&b, PLAN_SEC_RESERVED) + 8, 0xffffffffu));
	FORGE("needs at least", "a huge finding count",
	      put32(b.p + section_at(&b, PLAN_SEC_FINDINGS) + 8, 100000));
	FORGE("string length 4294967295 exceeds", "a huge string length",
	      put32(b.p + FS_ROW0 + 12, 0xffffffffu));
	FORGE("NUL byte inside the string", "a NUL inside a string",
	      b.p[FS_ROW0 + 16 + 1] = 0);
	FORGE("effect 3 is out of range", "an allow effect on a file row",
	      b.p[FS_ROW0 + 8] = EFFECT_ALLOW);
	FORGE("landing 4 is out of range", "a reserved landing on a row",
	      b.p[FS_ROW0 + 10] = LANDING_RESERVED);
	FORGE("landing 5 is out of range", "an unsupported row",
	      b.p[FS_ROW0 + 10] = LANDING_UNSUPPORTED);
	FORGE("padding byte is 1", "a non-zero padding byte",
	      b.p[FS_ROW0 + 11] = 1);
	FORGE("index 7, expected 0", "a wrong row index",
	      put32(b.p + FS_ROW0, 7));
	FORGE("share priority", "two rows with one priority",
	      put32(b.p + FS_ROW0 + 4, 1));
	FORGE("priority 2 is out of range", "a priority past the rows",
	      put32(b.p + FS_ROW0 + 4, 2));
	FORGE("default write 3 is out of range", "a bad write posture",
	      b.p[section_at(&b, PLAN_SEC_POLICY) + 8] = EFFECT_ALLOW);
	FORGE("default net 1 is out of range", "a bad network posture",
	      b.p[section_at(&b, PLAN_SEC_POLICY) + 9] = EFFECT_RO);
	FORGE("unknown target 0", "target 0", b.p[10] = 0);
	FORGE("unknown target 4", "target 4", b.p[10] = 4);
	FORGE("reserved byte is 9", "header padding", b.p[11] = 9);
	FORGE("header size 33", "header size", put32(b.p + 12, 33));
	FORGE("5 sections, not 6", "section count", put32(b.p + 28, 5));
	FORGE("section 2 (file rows) is duplicated or out of order",
	      "a duplicated section",
	      b.p[section_at(&b, PLAN_SEC_NET_ROWS)] = PLAN_SEC_FS_ROWS);
	FORGE("section 2 (file rows) is missing", "a missing section",
	      b.p[section_at(&b, PLAN_SEC_FS_ROWS)] = PLAN_SEC_NET_ROWS);
	FORGE("unknown section tag 7", "an unknown section",
	      b.p[section_at(&b, PLAN_SEC_ARTIFACT)] = 7);
	FORGE("reserved field is 1", "a section header's padding",
	      b.p[section_at(&b, PLAN_SEC_RESERVED) + 2] = 1);
	FORGE("overruns the plan", "a section size past the end",
	      size_t at = section_at(&b, PLAN_SEC_ARTIFACT);
	      put32(b.p + at + 4, get32(b.p + at + 4) + 1));
	FORGE("4 bytes after the last section", "bytes after the artifact",
	      splice(&b, b.len, 0, four, 4));
	FORGE("1 unused bytes at the end", "a section longer than its fields",
	      size_t at = section_at(&b, PLAN_SEC_POLICY);
	      put32(b.p + at + 4, get32(b.p + at + 4) + 1);
	      splice(&b, at + 8 + get32(b.p + at + 4) - 1, 0, four, 1));
	FORGE("section 6 (artifact) is missing", "the last section cut off",
	      size_t at = section_at(&b, PLAN_SEC_ARTIFACT);
	      splice(&b, at, b.len - at, NULL, 0));
	FORGE("row 3 or 0 is out of range", "a finding naming no row",
	      set_finding(&b, FINDING_DEAD, DOMAIN_FS, 3, 0, 1));
	FORGE("row 1 cannot cover row 0", "a finding covered from below",
	      set_finding(&b, FINDING_DEAD, DOMAIN_FS, 0, 1, 1));
	FORGE("row 0 cannot cover row 0", "a row covering itself",
	      set_finding(&b, FINDING_DEAD, DOMAIN_FS, 0, 0, 1));
	FORGE("findings out of order", "the same finding twice",
	      set_finding(&b, FINDING_INEFFECTIVE, DOMAIN_FS, 1, 0, 2));
	FORGE("kind 2 is out of range", "a bad finding kind",
	      set_finding(&b, 2, DOMAIN_FS, 1, 0, 1));
	FORGE("domain 2 is out of range", "a bad finding domain",
	      set_finding(&b, FINDING_DEAD, 2, 1, 0, 1));
	FORGE("row 1 or 0 is out of range", "a finding on a missing net row",
	      set_finding(&b, FINDING_DEAD, DOMAIN_NET, 1, 0, 1));
}

void test_messages(void)
{
	struct tl_compiled c;
	struct blob b = small_plan(&c);
	struct plan p;
	char *err = NULL, *want;

	b.p[8] = PLAN_FORMAT_VERSION + 1;
	decode_copy(b.p, b.len, &p, &err);
	want = xasprintf("plan format version %d is not supported (this "
			 "build reads version %d)", PLAN_FORMAT_VERSION + 1,
			 PLAN_FORMAT_VERSION);
	is_str(err, want, "another version");
	free(want);
	free(err);
	b.p[8] = PLAN_FORMAT_VERSION;

	b.p[0] = 'X';
	decode_copy(b.p, b.len, &p, &err);
	is_str(err, "not a vbox plan", "bad magic");
	free(err);
	decode_copy(b.p, 3, &p, &err);
	is_str(err, "not a vbox plan", "bad magic in 3 bytes");
	free(err);
	b.p[0] = 'V';

	decode_copy(b.p, 0, &p, &err);
	is_str(err, "truncated: 0 bytes, shorter than the 32-byte plan header",
	       "empty file");
	free(err);

	decode_copy(b.p, b.len - 1, &p, &err);
	want = xasprintf("truncated: the plan is %zu bytes, its header says "
			 "%zu", b.len - 1, b.len);
	is_str(err, want, "one byte short");
	free(want);
	free(err);

	b.p[b.len - 1] ^= 0x20;
	decode_copy(b.p, b.len, &p, &err);
	is_str(err, "checksum mismatch: the plan is damaged", "damaged");
	free(err);
	b.p[b.len - 1] ^= 0x20;

	splice(&b, b.len, 0, "\0", 1);
	decode_copy(b.p, b.len, &p, &err);
	want = xasprintf("trailing bytes: the plan is %zu bytes, its header "
			 "says %zu", b.len, b.len - 1);
	is_str(err, want, "one byte too many");
	free(want);
	free(err);
	ok(p.fs == NULL && p.nfs == 0 && p.artifact == NULL,
	   "a rejected plan leaves the output empty");
	free(b.p);
	tl_compiled_free(&c);
}

void test_load(void)
{
	char path[] = "/tmp/vbox-test-plan.XXXXXX";
	struct tl_compiled c;
	struct blob b = small_plan(&c);
	struct plan p;
	char *err = NULL, *want;
	FILE *f;
	int fd;

	fd = mkstemp(path);
	if (fd < 0 || !(f = fdopen(fd, "wb")))
		BUG("cannot create a temporary file: %s", strerror(errno));
	if (fwrite(b.p, 1, b.len, f) != b.len || fclose(f))
		BUG("cannot write the temporary file");
	ok(plan_load(path, &p, &err) == 0 && p.nfs == 2 && p.nnet == 1 &&
	   p.target == TARGET_LINUX, "plan_load reads a plan file");
	plan_release(&p);

	if (truncate(path, (off_t)b.len - 5))
		BUG("truncate: %s", strerror(errno));
	plan_load(path, &p, &err);
	want = xasprintf("%s: truncated: the plan is %zu bytes, its header "
			 "says %zu", path, b.len - 5, b.len);
	is_str(err, want, "plan_load names the file");
	free(want);
	free(err);
	unlink(path);

	plan_load(path, &p, &err);
	want = xasprintf("%s: cannot open: No such file or directory", path);
	is_str(err, want, "a missing plan file");
	free(want);
	free(err);

	plan_load("/", &p, &err);
	ok(err && strncmp(err, "/: cannot read: ", 16) == 0,
	   "a directory is not a plan");
	free(err);
	free(b.p);
	tl_compiled_free(&c);
}
