/* SPDX-License-Identifier: MIT */
/*
 * test_plan.c - plan.bin and the JSON IR: round trips, determinism, and a
 * loader that rejects every damaged, truncated or forged plan with a
 * one-line message and never crashes (run under ASan and UBSan).
 */
#include <vbox.h>

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "diag.h"
#include "emit.h"
#include "ir.h"
#include "ir_json.h"
#include "plan.h"
#include "plan_encode.h"
#include "tap.h"
#include "testlib.h"
#include "wire.h"

/*
 * A classification by hand, independent of the emitters: shadowed rows
 * are absorbed, the others cycle through the kinds a plan can hold.
 */
static void classify_by_hand(struct tl_compiled *c)
{
	static const enum landing_kind kinds[] = {
		LANDING_KERNEL, LANDING_LAUNCH, LANDING_PROXY,
	};
	size_t i;

	landing_set_init(&c->landing, c->table);
	for (i = 0; i < c->landing.nfs; i++) {
		struct landing *l = &c->landing.fs[i];

		if (l->row->shadowed_by)
			landing_set_reason(l, LANDING_ABSORBED,
					   "dead: covered by row %u",
					   l->row->shadowed_by->index);
		else
			landing_set_reason(l, kinds[i % 3], "file reason %zu",
					   i);
	}
	for (i = 0; i < c->landing.nnet; i++) {
		struct landing *l = &c->landing.net[i];

		landing_set_reason(l, l->row->shadowed_by ? LANDING_ABSORBED :
				   kinds[(i + 1) % 3], "net reason %zu", i);
	}
	landing_set_add_reserved(&c->landing,
				 "!!!!!allow:localhost:${VBOX_PROXY_HTTP_PORT}",
				 "the proxy's own %s port", "http");
	landing_set_add_reserved(&c->landing, "rw:/dev/null", "%s",
				 "every program writes there");
}

/* A plan in a buffer of exactly its size, so ASan sees any over-read. */
struct blob {
	uint8_t *p;
	size_t len;
};

static struct blob encode(const struct tl_compiled *c, const char *target,
			  const char *artifact, size_t artifact_len)
{
	struct blob b;

	plan_encode(c->table, &c->landing, target,
		    (const uint8_t *)artifact, artifact_len, &b.p, &b.len);
	return b;
}

/*
 * A valid encoded linux artifact (plan/linux_artifact.h) of @nbinds
 * try-binds, a root and a launch mount for row 3 (*@len bytes; caller
 * frees): the loader decodes a linux plan's artifact, so the framing
 * tests give it a real one.
 */
static char *lx_bytes(size_t nbinds, size_t *len)
{
	struct lx_artifact a;
	struct wbuf b = { 0 };
	char path[64];
	size_t i;

	memset(&a, 0, sizeof(a));
	a.flags = LX_NEW_SESSION | LX_CAP_DROP_ALL;
	lx_add(&a, LX_BIND_RO, "/", "/", 0, LX_ROW_NONE);
	for (i = 0; i < nbinds; i++) {
		snprintf(path, sizeof(path), "/srv/path%zu", i);
		lx_add(&a, LX_BIND_RO_TRY, path, path, 0, (uint32_t)i);
	}
	lx_add(&a, LX_LAUNCH, NULL, NULL, 0, 3);
	lx_encode(&a, &b);
	lx_artifact_release(&a);
	*len = b.len;
	return (char *)b.p;
}

static int decode_copy(const uint8_t *buf, size_t len, struct plan *p,
		       char **err)
{
	uint8_t *copy = xmalloc(len ? len : 1);
	int ret;

	if (len)
		memcpy(copy, buf, len);
	ret = plan_decode(len ? copy : NULL, len, p, err);
	free(copy);
	return ret;
}

/* ---- CRC-32C ---------------------------------------------------------- */

static uint32_t crc32c_bitwise(const uint8_t *p, size_t len)
{
	uint32_t crc = 0xffffffffu;
	size_t i;
	int k;

	for (i = 0; i < len; i++) {
		crc ^= p[i];
		for (k = 0; k < 8; k++)
			crc = crc & 1 ? (crc >> 1) ^ 0x82f63b78u : crc >> 1;
	}
	return ~crc;
}

static void test_crc32c(void)
{
	uint8_t buf[1000];
	size_t i;
	bool same = true;

	is_int(crc32c(0, "123456789", 9), 0xe3069283u,
	       "crc32c check value of \"123456789\"");
	is_int(crc32c(0, "", 0), 0, "crc32c of nothing is 0");
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 7 + (i >> 3));
	for (i = 0; i <= sizeof(buf); i += 37)
		if (crc32c(0, buf, i) != crc32c_bitwise(buf, i) ||
		    crc32c(crc32c(0, buf, i / 2), buf + i / 2, i - i / 2) !=
			    crc32c(0, buf, i))
			same = false;
	ok(same, "crc32c table matches the bitwise definition, in pieces too");
}

static void test_target_names(void)
{
	is_int(target_id_of("darwin"), TARGET_DARWIN, "darwin");
	is_int(target_id_of("linux"), TARGET_LINUX, "linux");
	is_int(target_id_of("windows"), TARGET_WINDOWS, "windows");
	is_int(target_id_of("beos"), 0, "unknown target name");
	is_int(target_id_of(NULL), 0, "no target name");
	is_str(target_id_name(TARGET_LINUX), "linux", "linux name");
	is_str(target_id_name(0), "unknown", "unknown target");
}

/* ---- round trips ------------------------------------------------------ */

static int rows_equal(const char *what, const struct rowvec *rows,
		      const struct landing *landing,
		      const struct plan_row *prow, size_t n)
{
	size_t i;

	if (n != rows->n) {
		diag("%s: %zu rows, want %zu", what, n, rows->n);
		return 0;
	}
	for (i = 0; i < n; i++) {
		const struct row *r = rows->order[i];
		const char *target = r->domain == DOMAIN_FS ? r->fs.text :
							      r->net.text;
		char *source = location_format(&r->loc);
		bool same = prow[i].index == r->index &&
			    prow[i].prio == r->prio &&
			    prow[i].effect == r->effect &&
			    prow[i].level == r->level &&
			    prow[i].landing == landing[i].kind &&
			    strcmp(prow[i].target, target) == 0 &&
			    strcmp(prow[i].source, source) == 0;

		free(source);
		if (!same) {
			diag("%s: row %zu differs", what, i);
			return 0;
		}
	}
	return 1;
}

static int plan_matches(const struct tl_compiled *c, const char *target,
			const struct plan *p, const char *artifact,
			size_t artifact_len)
{
	const struct table *t = c->table;
	size_t i;

	if (p->target != target_id_of(target) ||
	    p->default_write != t->default_write ||
	    p->default_net != t->default_net) {
		diag("header or policy differs");
		return 0;
	}
	if (!!p->upstream_proxy != !!t->upstream_proxy ||
	    (p->upstream_proxy &&
	     strcmp(p->upstream_proxy, t->upstream_proxy) != 0)) {
		diag("upstream proxy differs");
		return 0;
	}
	if (!rows_equal("fs", &t->fs, c->landing.fs, p->fs, p->nfs) ||
	    !rows_equal("net", &t->net, c->landing.net, p->net, p->nnet))
		return 0;
	if (p->nreserved != c->landing.nreserved)
		return 0;
	for (i = 0; i < p->nreserved; i++)
		if (strcmp(p->reserved[i].entry,
			   c->landing.reserved[i].entry) != 0 ||
		    strcmp(p->reserved[i].reason,
			   c->landing.reserved[i].reason) != 0)
			return 0;
	if (p->nfindings != t->nfindings)
		return 0;
	for (i = 0; i < p->nfindings; i++) {
		const struct finding *f = &t->findings[i];

		if (p->findings[i].kind != f->kind ||
		    p->findings[i].domain != f->row->domain ||
		    p->findings[i].row != f->row->index ||
		    p->findings[i].by != f->by->index)
			return 0;
	}
	return p->artifact_len == artifact_len &&
	       memcmp(p->artifact, artifact, artifact_len) == 0 &&
	       p->artifact[artifact_len] == '\0';
}

static const char policy_small[] =
	"rw:/srv/work\n"
	"deny:/srv/work/secret\n"
	"allow:example.com:443\n";

static const char policy_big[] =
	"@default write deny\n"
	"@default net deny\n"
	"@upstream-proxy http://proxy.example:3128\n"
	"rw:/srv/work/**\n"
	"deny:/srv/work/secret\n"
	"ro:/srv/work/docs/*.txt\n"
	"!!deny:**/.ssh/**\n"
	"!rw:~/projects\n"
	"ro:\"/srv/with space/x\"\n"
	"deny:/srv/\xc3\xa9t\xc3\xa9\n"
	"[net]\n"
	"allow:*.example.com:443\n"
	"deny:evil.example.com\n"
	"!allow:localhost:8080\n"
	"allow:[2001:db8::1]:22\n"
	"!!!deny:10.0.0.1\n";

static const char policy_open[] =
	"@default write rw\n"
	"@default net open\n"
	"ro:/etc\n";

static const char policy_empty[] = "# nothing\n";

static void round_trip(const char *policy, const char *target,
		       const char *what)
{
	static const char text[] = "(version 1)\n(deny default)\n";
	struct tl_compiled c;
	struct blob a, b;
	struct plan p;
	char *err = NULL, *artifact;
	size_t artifact_len;

	if (strcmp(target, "linux") == 0) {
		artifact = lx_bytes(2, &artifact_len);
	} else {
		artifact = xstrdup(text);
		artifact_len = sizeof(text);
	}
	if (tl_compile(&c, policy, target, TL_SHADOW)) {
		ok(0, "%s: compiles", what);
		tl_compiled_free(&c);
		free(artifact);
		return;
	}
	classify_by_hand(&c);
	a = encode(&c, target, artifact, artifact_len);
	b = encode(&c, target, artifact, artifact_len);
	ok(a.len == b.len && memcmp(a.p, b.p, a.len) == 0,
	   "%s on %s: encoding twice gives identical bytes", what, target);
	if (decode_copy(a.p, a.len, &p, &err)) {
		ok(0, "%s on %s: decodes: %s", what, target, err);
		free(err);
	} else {
		ok(plan_matches(&c, target, &p, artifact, artifact_len),
		   "%s on %s: every decoded field matches", what, target);
		if (strcmp(target, "linux") == 0)
			ok(p.lx.n == 4 && p.lx.m[3].kind == LX_LAUNCH &&
			   p.lx.m[3].row == 3 &&
			   strcmp(p.lx.m[1].src, "/srv/path0") == 0,
			   "%s on linux: the artifact's mounts decode", what);
		plan_release(&p);
	}
	free(artifact);
	free(a.p);
	free(b.p);
	tl_compiled_free(&c);
}

static void test_round_trips(void)
{
	round_trip(policy_small, "linux", "small policy");
	round_trip(policy_big, "linux", "every feature");
	round_trip(policy_big, "darwin", "every feature");
	round_trip(policy_open, "darwin", "open posture");
	round_trip("rw:C:\\Users\\tester\\work\ndeny:C:/Users/tester/work/k\n",
		   "windows", "drive paths");
	round_trip(policy_empty, "linux", "no rows");
}

/*
 * The same through the real emitters: classification by emit_classify()
 * and the plan artifact (the profile where the target has no other).  A policy a target refuses is skipped
 * (the emitters' own tests decide what is supported).
 */
/*
 * Compile @policy for @target with its emitter, encode, decode, and
 * compare; the decoded plan has supervised rows exactly when
 * @supervised.
 */
static void real_round_trip(const char *policy, const char *target,
			    bool supervised)
{
	const struct emitter *em;
	struct tl_compiled c;
	struct plan p;
	struct blob a;
	char *art = NULL, *err = NULL;
	size_t art_len = 0;
	FILE *f;

	if (tl_compile(&c, policy, target, TL_SHADOW)) {
		ok(0, "%s: compiles", target);
		tl_compiled_free(&c);
		return;
	}
	em = emitter_for(c.table->target);
	if (emit_classify(em, c.table, &c.landing, &c.diags)) {
		ok(1, "# SKIP %s refuses the policy", target);
		tl_compiled_free(&c);
		return;
	}
	f = open_memstream(&art, &art_len);
	if (!f || (em->emit_plan_artifact ?
		   em->emit_plan_artifact(c.table, &c.landing, f, &c.diags) :
		   em->emit_profile(c.table, &c.landing, f, &c.diags)) ||
	    fclose(f)) {
		ok(0, "%s: profile is written", target);
		diag_print(stdout, &c.diags, "# test");
		free(art);
		tl_compiled_free(&c);
		return;
	}
	a = encode(&c, target, art, art_len);
	if (decode_copy(a.p, a.len, &p, &err)) {
		ok(0, "%s emitter plan decodes: %s", target, err);
		free(err);
	} else {
		ok(plan_matches(&c, target, &p, art, art_len),
		   "%s emitter: plan round-trips its profile and landings",
		   target);
		is_int(plan_supervised_paths(&p), supervised,
		       "%s emitter: plan_supervised_paths", target);
		plan_release(&p);
	}
	free(a.p);
	free(art);
	tl_compiled_free(&c);
}

static void test_real_emitters(void)
{
	real_round_trip("rw:/srv/work\nro:/srv/work/docs\n"
			"allow:example.com:443\n", "linux", false);
	real_round_trip("rw:/srv/work\nro:/srv/work/docs\n"
			"allow:example.com:443\n", "darwin", false);
	real_round_trip("@default net open\nrw:C:/work\ndeny:C:/work/key\n",
			"windows", false);
	/* issue 23: deny and ro rows the supervisor judges */
	real_round_trip("rw:/srv/work/**\n!deny:**/.env\n"
			"!deny:/srv/work/**/.env\n"
			"!ro:/srv/work/**/.git/hooks/**\n"
			"allow:example.com:443\n", "linux", true);
	/* darwin holds the deny row in the kernel: nothing supervised */
	real_round_trip("rw:/srv/work/**\n!deny:**/.env\n"
			"allow:example.com:443\n", "darwin", false);
}

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

static void test_every_byte_flip(void)
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

static void test_every_bit_flip_large(void)
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

static void test_every_truncation(void)
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
static void test_supervised(void)
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

static void test_forged(void)
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

static void test_messages(void)
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

static void test_load(void)
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

/* ---- JSON IR ---------------------------------------------------------- */

static char *ir_text(struct tl_compiled *c, const char *target)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		BUG("open_memstream");
	if (ir_json_write(c->table, &c->landing, target, f, &c->diags))
		diag_print(stdout, &c->diags, "# test");
	if (fclose(f))
		BUG("fclose");
	return text;
}

static const char ir_policy[] =
	"@upstream-proxy http://proxy.example:3128\n"
	"rw:/srv/work/**\n"
	"deny:/srv/work/secret\n"
	"!ro:~/docs\n"
	"allow:Example.COM:443\n";

static const char ir_want[] =
	"{\n"
	"  \"format\": \"vbox-ir\",\n"
	"  \"version\": 1,\n"
	"  \"target\": \"linux\",\n"
	"  \"defaults\": {\n"
	"    \"write\": \"deny\",\n"
	"    \"net\": \"deny\"\n"
	"  },\n"
	"  \"upstream_proxy\": \"http://proxy.example:3128\",\n"
	"  \"fs\": [\n"
	"    {\n"
	"      \"index\": 2,\n"
	"      \"prio\": 0,\n"
	"      \"level\": 1,\n"
	"      \"effect\": \"ro\",\n"
	"      \"target\": \"/home/tester/docs\",\n"
	"      \"raw\": \"~/docs\",\n"
	"      \"source\": \"t.rules:4:1\",\n"
	"      \"landing\": \"proxy\",\n"
	"      \"reason\": \"file reason 2\",\n"
	"      \"shadowed_by\": null\n"
	"    },\n"
	"    {\n"
	"      \"index\": 0,\n"
	"      \"prio\": 1,\n"
	"      \"level\": 0,\n"
	"      \"effect\": \"rw\",\n"
	"      \"target\": \"/srv/work/**\",\n"
	"      \"raw\": \"/srv/work/**\",\n"
	"      \"source\": \"t.rules:2:1\",\n"
	"      \"landing\": \"kernel\",\n"
	"      \"reason\": \"file reason 0\",\n"
	"      \"shadowed_by\": null\n"
	"    },\n"
	"    {\n"
	"      \"index\": 1,\n"
	"      \"prio\": 2,\n"
	"      \"level\": 0,\n"
	"      \"effect\": \"deny\",\n"
	"      \"target\": \"/srv/work/secret\",\n"
	"      \"raw\": \"/srv/work/secret\",\n"
	"      \"source\": \"t.rules:3:1\",\n"
	"      \"landing\": \"absorbed\",\n"
	"      \"reason\": \"dead: covered by row 0\",\n"
	"      \"shadowed_by\": {\n"
	"        \"row\": 0,\n"
	"        \"kind\": \"ineffective\"\n"
	"      }\n"
	"    }\n"
	"  ],\n"
	"  \"net\": [\n"
	"    {\n"
	"      \"index\": 0,\n"
	"      \"prio\": 0,\n"
	"      \"level\": 0,\n"
	"      \"effect\": \"allow\",\n"
	"      \"target\": \"example.com:443\",\n"
	"      \"raw\": \"Example.COM:443\",\n"
	"      \"source\": \"t.rules:5:1\",\n"
	"      \"landing\": \"launch\",\n"
	"      \"reason\": \"net reason 0\",\n"
	"      \"shadowed_by\": null\n"
	"    }\n"
	"  ],\n"
	"  \"reserved\": [\n"
	"    {\n"
	"      \"entry\": \"!!!!!allow:localhost:${VBOX_PROXY_HTTP_PORT}\",\n"
	"      \"reason\": \"the proxy's own http port\"\n"
	"    },\n"
	"    {\n"
	"      \"entry\": \"rw:/dev/null\",\n"
	"      \"reason\": \"every program writes there\"\n"
	"    }\n"
	"  ]\n"
	"}\n";

static void test_ir_json(void)
{
	struct tl_compiled a, b;
	char *ta, *ta2, *tb;

	if (tl_compile(&a, ir_policy, "linux", TL_SHADOW) ||
	    tl_compile(&b, ir_policy, "linux", TL_SHADOW))
		BUG("the IR policy does not compile");
	classify_by_hand(&a);
	classify_by_hand(&b);
	ta = ir_text(&a, "linux");
	ta2 = ir_text(&a, "linux");
	tb = ir_text(&b, "linux");
	is_str(ta, ir_want, "the JSON IR of a small table");
	ok(strcmp(ta, ta2) == 0 && strcmp(ta, tb) == 0,
	   "the JSON IR is the same for a second run and a second compile");
	free(ta);
	free(ta2);
	free(tb);
	tl_compiled_free(&a);
	tl_compiled_free(&b);

	if (tl_compile(&a, "@default write rw\n@default net open\n", "darwin",
		       TL_SHADOW))
		BUG("the empty policy does not compile");
	landing_set_init(&a.landing, a.table);
	ta = ir_text(&a, "darwin");
	is_str(ta, "{\n  \"format\": \"vbox-ir\",\n  \"version\": 1,\n"
	       "  \"target\": \"darwin\",\n  \"defaults\": {\n"
	       "    \"write\": \"rw\",\n    \"net\": \"open\"\n  },\n"
	       "  \"upstream_proxy\": null,\n  \"fs\": [],\n  \"net\": [],\n"
	       "  \"reserved\": []\n}\n", "an empty open table");
	free(ta);
	tl_compiled_free(&a);
}

int main(void)
{
	test_crc32c();
	test_target_names();
	test_round_trips();
	test_real_emitters();
	test_every_byte_flip();
	test_every_bit_flip_large();
	test_every_truncation();
	test_forged();
	test_supervised();
	test_messages();
	test_load();
	test_ir_json();
	return done_testing();
}
