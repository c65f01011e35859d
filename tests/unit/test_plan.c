/* SPDX-License-Identifier: MIT */
/*
 * test_plan.c - plan.bin and the JSON IR: round trips, determinism, and a
 * loader that rejects every damaged, truncated or forged plan with a
 * one-line message and never crashes (run under ASan and UBSan; those
 * cases are in test_plan_damage.c, test_plan_int.h).
 */
#include <vbox.h>

#include <errno.h>

#include <stdio.h>

#include "diag.h"
#include "emit.h"
#include "ir.h"
#include "ir_json.h"
#include "plan.h"
#include "plan_encode.h"
#include "tap.h"
#include "test_plan_int.h"
#include "testlib.h"
#include "wire.h"

/*
 * A classification by hand, independent of the emitters: shadowed rows
 * are absorbed, the others cycle through the kinds a plan can hold.
 */
void classify_by_hand(struct tl_compiled *c)
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

struct blob encode(const struct tl_compiled *c, const char *target,
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
char *lx_bytes(size_t nbinds, size_t *len)
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

int decode_copy(const uint8_t *buf, size_t len, struct plan *p,
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

const char policy_small[] =
	"rw:/srv/work\n"
	"deny:/srv/work/secret\n"
	"allow:example.com:443\n";

const char policy_big[] =
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
 * @supervised is not SUP_NONE, every one of them ro exactly when it is
 * SUP_RO (issue 33: the filter then hands over no read).
 */
enum { SUP_NONE, SUP_SOME, SUP_RO };

static void real_round_trip(const char *policy, const char *target,
			    int supervised)
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
		is_int(plan_supervised_paths(&p), supervised != SUP_NONE,
		       "%s emitter: plan_supervised_paths", target);
		is_int(plan_supervised_ro_only(&p), supervised == SUP_RO,
		       "%s emitter: plan_supervised_ro_only", target);
		plan_release(&p);
	}
	free(a.p);
	free(art);
	tl_compiled_free(&c);
}

static void test_real_emitters(void)
{
	real_round_trip("rw:/srv/work\nro:/srv/work/docs\n"
			"allow:example.com:443\n", "linux", SUP_NONE);
	real_round_trip("rw:/srv/work\nro:/srv/work/docs\n"
			"allow:example.com:443\n", "darwin", SUP_NONE);
	real_round_trip("@default net open\nrw:C:/work\ndeny:C:/work/key\n",
			"windows", SUP_NONE);
	/* issue 23: deny and ro rows the supervisor judges */
	real_round_trip("rw:/srv/work/**\n!deny:**/.env\n"
			"!deny:/srv/work/**/.env\n"
			"!ro:/srv/work/**/.git/hooks/**\n"
			"allow:example.com:443\n", "linux", SUP_SOME);
	/* issue 33: ro rows alone, supervised; a deny beside them is not */
	real_round_trip("rw:/srv/work/**\n!ro:**/.git/hooks/**\n"
			"!ro:/srv/work/**/*.lock\n", "linux", SUP_RO);
	real_round_trip("rw:/srv/work/**\n!ro:**/.git/hooks/**\n"
			"!deny:/srv/work/**/.env\n", "linux", SUP_SOME);
	/* darwin holds the deny row in the kernel: nothing supervised */
	real_round_trip("rw:/srv/work/**\n!deny:**/.env\n"
			"allow:example.com:443\n", "darwin", SUP_NONE);
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

/*
 * plan_encode_to() after other bytes of a file gives the bytes
 * plan_encode() gives (its checksum written at the plan's own header);
 * a failing write and an artifact shorter than said are errors, not a
 * plan.
 */
static void test_stream(void)
{
	static const char policy[] = "[fs]\nrw: /srv/a\n!deny: /srv/a/b\n"
				     "[net]\nallow: example.com:443\n";
	struct tl_compiled c;
	struct blob a;
	char *artifact, *got = NULL;
	size_t artifact_len, got_len = 0;
	FILE *mem, *art, *full;

	artifact = lx_bytes(3, &artifact_len);
	if (tl_compile(&c, policy, "linux", TL_SHADOW)) {
		ok(0, "stream: compiles");
		free(artifact);
		return;
	}
	classify_by_hand(&c);
	a = encode(&c, "linux", artifact, artifact_len);
	mem = open_memstream(&got, &got_len);
	art = fmemopen(artifact, artifact_len, "r");
	ok(mem && art && fputs("before", mem) >= 0 &&
	   plan_encode_to(mem, c.table, &c.landing, "linux", art,
			  artifact_len) == 0 &&
	   fclose(mem) == 0, "stream: a plan after 6 other bytes");
	ok(got_len == a.len + 6 && memcmp(got, "before", 6) == 0 &&
	   memcmp(got + 6, a.p, a.len) == 0,
	   "stream: ... is the encoded plan, checksum included");
	if (art)
		fclose(art);
	free(got);

	full = fopen("/dev/full", "w");
	art = fmemopen(artifact, artifact_len, "r");
	if (!full || !art) {
		ok(1, "# SKIP no /dev/full here");
	} else {
		int ret = plan_encode_to(full, c.table, &c.landing, "linux",
					 art, artifact_len);

		ok(ret < 0 && errno == ENOSPC,
		   "stream: a write that fails is an error (%s)",
		   strerror(errno));
	}
	if (full)
		fclose(full);
	if (art)
		fclose(art);

	got = NULL;
	mem = open_memstream(&got, &got_len);
	art = fmemopen(artifact, artifact_len, "r");
	errno = 0;
	ok(mem && art && plan_encode_to(mem, c.table, &c.landing, "linux",
					art, artifact_len + 10) < 0 &&
	   errno == EIO, "stream: an artifact shorter than said is EIO");
	if (mem)
		fclose(mem);
	if (art)
		fclose(art);
	free(got);
	free(a.p);
	free(artifact);
	tl_compiled_free(&c);
}

int main(void)
{
	test_crc32c();
	test_stream();
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
