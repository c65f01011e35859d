/* SPDX-License-Identifier: MIT */
/*
 * test_winexec.c - the windows launcher's portable parts, natively:
 * its JSON reader, the ACL plan of every golden windows case (SID
 * derivation against the compiler's, every tampering refused), command
 * line quoting against CommandLineToArgvW's rules, the canonical ACL
 * merge on the in-memory model, and the state file's reconciliation
 * (apply, revoke, a launcher killed in the middle, two writers; in
 * test_winexec_state.c, test_winexec_int.h).
 */
#include <vbox.h>

#include <dirent.h>
#include <stdio.h>

#include "aclplan.h"
#include "bbuf.h"
#include "capsid.h"
#include "cmdline.h"
#include "ir.h"
#include "plan.h"
#include "state.h"
#include "tap.h"
#include "test_winexec_int.h"
#include "wjson.h"

static const char *srcdir;

char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct bbuf b;
	char buf[4096], *out;
	size_t n;

	if (!f)
		return NULL;
	bbuf_init_heap(&b, 64u << 20);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		bbuf_add(&b, buf, n);
	fclose(f);
	if (!bbuf_ok(&b)) {
		bbuf_free(&b);
		return NULL;
	}
	out = bbuf_take(&b, len);
	bbuf_free(&b);
	return out;
}

/* ------------------------------------------------------------------ */

static void test_json(void)
{
	static const struct {
		const char *text;
		bool good;
	} cases[] = {
		{ "{\"a\": [1, -2, true, false, null, \"x\"]}", true },
		{ "  \"\\u00e9\\ud83d\\ude00\"  ", true },
		{ "9223372036854775807", true },
		{ "-9223372036854775808", true },
		{ "9223372036854775808", false },
		{ "{\"a\": 1, \"a\": 2}", false },
		{ "[1,]", false },
		{ "{\"a\" 1}", false },
		{ "01", false },
		{ "1.5", false },
		{ "\"\\u0000\"", false },
		{ "\"\\ud800\"", false },
		{ "\"\\udc00\"", false },
		{ "\"\xc3\x28\"", false },
		{ "\"\xed\xa0\x80\"", false },
		{ "\"a\nb\"", false },
		{ "[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]", false },
		{ "[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]", true },
		{ "{} {}", false },
		{ "", false },
		{ "tru", false },
	};
	struct wjson v;
	char *err;
	size_t i;
	int r;

	for (i = 0; i < array_size(cases); i++) {
		err = NULL;
		r = wjson_parse(cases[i].text, strlen(cases[i].text), &v, &err);
		ok((r == 0) == cases[i].good, "json case %zu %s", i,
		   cases[i].good ? "parses" : "is refused");
		if (r == 0)
			wjson_free(&v);
		else if (!err)
			ok(0, "json case %zu has a message", i);
		free(err);
	}
	r = wjson_parse("\"\\u00e9\\ud83d\\ude00\"", 20, &v, &err);
	ok(r == 0 && !strcmp(v.s, "\xc3\xa9\xf0\x9f\x98\x80"),
	   "escapes decode to UTF-8");
	if (r == 0)
		wjson_free(&v);
}

/* ------------------------------------------------------------------ */
/* The worked example of doc/targets.md, "The capability SID". */

static void test_sid_doc(void)
{
	static const char *const lines[][2] = {
		{ "write", "deny" },
		{ "net", "open" },
		{ "fs", "!ro:/c/Work/keep" },
		{ "fs", "rw:/c/Work/**" },
		{ "fs", "rw:/d/cache/*.tmp" },
		{ "net", "allow:api.example.com:443" },
	};
	uint32_t sub[CAPSID_NSUB];
	char sid[CAPSID_MAX];
	struct sha256 s;
	uint8_t d[32];
	size_t i;

	capsid_begin(&s, "windows");
	for (i = 0; i < array_size(lines); i++)
		capsid_line(&s, lines[i][0], lines[i][1]);
	capsid_end(&s, sid, sub);
	is_str(sid,
	       "S-1-15-3-2612492579-2080800967-4093296802-3959799214-"
	       "2665490581-2602947222-706786048-2066423425",
	       "the SID of doc/targets.md's worked example");
	is_int(sub[0], 3, "its first sub-authority is 3 (capability)");
	is_int(sub[1], 2612492579u, "the digest words follow");
	/* FIPS 180-4's "abc". */
	sha256_init(&s);
	sha256_update(&s, "abc", 3);
	sha256_final(&s, d);
	ok(d[0] == 0xba && d[1] == 0x78 && d[31] == 0xad,
	   "SHA-256 of \"abc\"");
}

/* ------------------------------------------------------------------ */
/* The golden windows plans. */

static uint8_t *hex_decode(const char *text, size_t *len)
{
	size_t n = 0, cap = strlen(text) / 2 + 1;
	uint8_t *out = xmalloc(cap);
	unsigned v;
	int k;

	while (*text) {
		if (*text == ' ' || *text == '\n') {
			text++;
			continue;
		}
		if (sscanf(text, "%2x%n", &v, &k) != 1 || k != 2) {
			free(out);
			return NULL;
		}
		out[n++] = (uint8_t)v;
		text += 2;
	}
	*len = n;
	return out;
}

/* Load @name's plan; 0 or -1. */
int golden_plan(const char *name, struct plan *plan)
{
	char *path = xasprintf("%s/golden/%s", srcdir, name), *text, *err;
	uint8_t *bin;
	size_t len;
	int r = -1;

	text = slurp(path, &len);
	free(path);
	if (!text)
		return -1;
	bin = hex_decode(text, &len);
	free(text);
	if (bin && plan_decode(bin, len, plan, &err) == 0)
		r = 0;
	else if (bin)
		free(err);
	free(bin);
	return r;
}

/* Replace the artifact with @text and load it; returns aclplan_load()'s. */
static int load_with(struct plan *plan, const char *text, char **err)
{
	uint8_t *saved = plan->artifact;
	size_t saved_len = plan->artifact_len;
	struct aclplan ap;
	int r;

	plan->artifact = (uint8_t *)xstrdup(text);
	plan->artifact_len = strlen(text);
	*err = NULL;
	r = aclplan_load(plan, &ap, err);
	if (r == 0)
		aclplan_release(&ap);
	free(plan->artifact);
	plan->artifact = saved;
	plan->artifact_len = saved_len;
	return r;
}

/* @text with the first @from replaced by @to (NULL when absent). */
char *replace_once(const char *text, const char *from, const char *to)
{
	const char *p = strstr(text, from);

	if (!p)
		return NULL;
	return xasprintf("%.*s%s%s", (int)(p - text), text, to,
			 p + strlen(from));
}

static void tamper(struct plan *plan, const char *name, const char *from,
		   const char *to, const char *what)
{
	char *t = replace_once((const char *)plan->artifact, from, to), *err;

	if (!t) {
		diag("%s: '%s' not in the plan: not tried", name, from);
		return;
	}
	ok(load_with(plan, t, &err) < 0, "%s: refused: %s", name, what);
	if (err)
		diag("  %s", err);
	free(err);
	free(t);
}

static void test_golden_one(const char *name)
{
	char *json_path, *json, *err = NULL, sid[CAPSID_MAX];
	const struct wjson *want;
	struct aclplan ap;
	struct plan plan;
	struct wjson v;
	struct bbuf a, b;
	size_t len;

	if (golden_plan(name, &plan) < 0) {
		ok(0, "%s: decodes", name);
		return;
	}
	json_path = xasprintf("%s/golden/%.*s.acl.json", srcdir,
			      (int)(strlen(name) - strlen(".plan.hex")), name);
	json = slurp(json_path, &len);
	free(json_path);
	ok(json && len == plan.artifact_len &&
		   !memcmp(json, plan.artifact, len),
	   "%s: the artifact is the golden .acl.json, byte for byte", name);
	ok(capsid_of_plan(&plan, sid, NULL) == 0, "%s: rows spell", name);
	if (json && wjson_parse(json, len, &v, &err) == 0) {
		want = wjson_get(&v, "capability_sid");
		is_str(sid, want && want->type == WJSON_STRING ? want->s : NULL,
		       "%s: the SID from the rows is the compiler's", name);
		wjson_free(&v);
	} else {
		ok(0, "%s: the golden .acl.json parses", name);
		free(err);
	}
	free(json);
	err = NULL;
	ok(aclplan_load(&plan, &ap, &err) == 0, "%s: the ACL plan is accepted",
	   name);
	if (err) {
		diag("  %s", err);
		free(err);
		plan_release(&plan);
		return;
	}
	bbuf_init_heap(&a, 1u << 20);
	bbuf_init_heap(&b, 1u << 20);
	aclplan_print(&ap, &a);
	aclplan_print(&ap, &b);
	ok(bbuf_ok(&a) && a.len == b.len && !memcmp(a.s, b.s, a.len),
	   "%s: the dry run prints the same bytes twice", name);
	for (size_t i = 0; i < ap.nobjs; i++) {
		bool dside = strstr(ap.objs[i].rows, " deny") ||
			     strstr(ap.objs[i].rows, " ro");

		ok(wobj_walks(&ap.objs[i]) == dside,
		   "%s: %s: walked for gaps %s", name, ap.objs[i].path,
		   dside ? "(a deny or ro entry)" : "never (rw, pins)");
		/* A gap walk stops at entries, never at a pin alone. */
		ok(aclplan_entry_at(&ap, ap.objs[i].key) ==
			   (strstr(ap.objs[i].rows, "row ") != NULL),
		   "%s: %s: %s the gap walk", name, ap.objs[i].path,
		   strstr(ap.objs[i].rows, "row ") ? "an entry: stops" :
						      "pins alone: not the end "
						      "of");
	}
	for (size_t i = 0; i < ap.nobjs; i++) {
		struct wacl empty = { 0 }, m;

		ok(wacl_merge(&empty, ap.objs[i].aces, ap.objs[i].naces, &m) ==
				   0 &&
			   wacl_canonical(&m),
		   "%s: %s: its ACEs are in canonical order", name,
		   ap.objs[i].path);
		wacl_free(&m);
	}
	bbuf_free(&a);
	bbuf_free(&b);
	aclplan_release(&ap);

	tamper(&plan, name, "\"mask\": \"0x000f01ff\"",
	       "\"mask\": \"0x000f0100\"", "a weakened mask");
	tamper(&plan, name, "\"type\": \"deny\"", "\"type\": \"allow\"",
	       "a deny turned allow");
	tamper(&plan, name, "\"inheritance\": \"OICI\"",
	       "\"inheritance\": \"none\"", "an inheritance dropped");
	tamper(&plan, name, "\"capability_sid\": \"S-1-15-3-",
	       "\"capability_sid\": \"S-1-15-3-1", "another SID");
	tamper(&plan, name, "\"integrity_level\": \"low\"",
	       "\"integrity_level\": \"medium\"", "a raised integrity level");
	tamper(&plan, name, "\"format\": \"vbox-acl-plan\",",
	       "\"format\": \"vbox-acl-plan\", \"extra\": 1,",
	       "an unknown key");
	tamper(&plan, name, "\"version\": 1", "\"version\": 2",
	       "another version");
	tamper(&plan, name, "\"net\": \"open\"", "\"net\": \"deny\"",
	       "another network posture");
	tamper(&plan, name, "\"path\": \"C:", "\"path\": \"C:\\\\..\\\\x",
	       "a path with '..'");
	tamper(&plan, name, "\"path\": \"C:", "\"path\": \"\\\\\\\\srv\\\\x",
	       "a UNC path");
	tamper(&plan, name, "\"if_missing\": \"placeholder\"",
	       "\"if_missing\": \"create\"", "an unknown if_missing");
	tamper(&plan, name, "\"rule\": \"", "\"rule\": \"x", "another rule");
	tamper(&plan, name, "\"entries\": [", "\"entries\": [{}, ",
	       "an empty entry");
	tamper(&plan, name, "{", "[", "not an object");
	/* The rows decide the SID: an effect changed under the artifact. */
	if (plan.nfs) {
		uint8_t saved = plan.fs[0].effect;

		plan.fs[0].effect = saved == EFFECT_RW ? EFFECT_RO : EFFECT_RW;
		ok(aclplan_load(&plan, &ap, &err) < 0,
		   "%s: refused: a row's effect changed", name);
		free(err);
		plan.fs[0].effect = saved;
	}
	plan.target = TARGET_LINUX;
	ok(aclplan_load(&plan, &ap, &err) < 0,
	   "%s: refused: a plan for linux", name);
	free(err);
	plan.target = TARGET_WINDOWS;
	plan_release(&plan);
}

static void test_golden(void)
{
	char *dir = xasprintf("%s/golden", srcdir);
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0, len;
	char **names = NULL;

	if (!d) {
		ok(0, "golden/ opens");
		free(dir);
		return;
	}
	while ((e = readdir(d))) {
		len = strlen(e->d_name);
		if (len > 17 && !strcmp(e->d_name + len - 17,
					".windows.plan.hex")) {
			names = xreallocarray(names, n + 1, sizeof(*names));
			names[n++] = xstrdup(e->d_name);
		}
	}
	closedir(d);
	free(dir);
	ok(n >= 2, "golden windows plans found (%zu)", n);
	for (size_t i = 0; i < n; i++) {
		test_golden_one(names[i]);
		free(names[i]);
	}
	free(names);
}

/* ------------------------------------------------------------------ */
/* Command lines. */

static void test_cmdline(void)
{
	static const char *const hard[][4] = {
		{ "prog", "", NULL },
		{ "prog", "a b", "c", NULL },
		{ "prog", "a\"b", NULL },
		{ "prog", "a\\", NULL },
		{ "prog", "a\\\\", "b\\\"", NULL },
		{ "prog", "\\\\server\\share\\", NULL },
		{ "prog", "\"", NULL },
		{ "prog", "\\\"", NULL },
		{ "prog", "trailing space ", NULL },
		{ "prog", "tab\there", NULL },
		{ "prog", "new\nline", NULL },
		{ "C:\\Program Files\\x.exe", "a", NULL },
		{ "prog", "%PATH%", "^&|<>", NULL },
		{ "prog", "\xc3\xa9t\xc3\xa9", "\\\\\\\"", NULL },
	};
	/* Lines as CommandLineToArgvW splits them. */
	static const struct {
		const char *line;
		const char *argv[5];
	} splits[] = {
		{ "p a\\\\\\\"b", { "p", "a\\\"b" } },
		{ "p \"a\\\\\" b", { "p", "a\\", "b" } },
		{ "p a\\\\b c", { "p", "a\\\\b", "c" } },
		{ "p \"a b\"c d", { "p", "a bc", "d" } },
		{ "\"C:\\a b\\p.exe\" x", { "C:\\a b\\p.exe", "x" } },
		{ "p \"\"", { "p", "" } },
		{ "p \"a\"\"b\"", { "p", "a\"b" } },
		{ "p\tx   y", { "p", "x", "y" } },
		{ "\"p\\\"x", { "p\\", "x" } },
	};
	char *line, *err = NULL, **v;
	size_t i, j, argc;
	bool same;

	for (i = 0; i < array_size(hard); i++) {
		line = cmdline_quote((char *const *)hard[i], &err);
		if (!line) {
			ok(0, "hard case %zu quotes: %s", i, err);
			free(err);
			continue;
		}
		v = cmdline_split(line, &argc);
		same = true;
		for (j = 0; hard[i][j]; j++)
			same = same && j < argc && !strcmp(v[j], hard[i][j]);
		ok(same && argc == j, "hard case %zu round-trips", i);
		cmdline_free(v);
		free(line);
	}
	for (i = 0; i < array_size(splits); i++) {
		v = cmdline_split(splits[i].line, &argc);
		same = true;
		for (j = 0; splits[i].argv[j]; j++)
			same = same && j < argc &&
			       !strcmp(v[j], splits[i].argv[j]);
		ok(same && argc == j, "split case %zu: %s", i, splits[i].line);
		cmdline_free(v);
	}
	{
		char *const bad[] = { (char *)"a\"b", NULL };
		char *const empty[] = { (char *)"", NULL };

		ok(!cmdline_quote(bad, &err), "a '\"' in the program name is "
					      "refused");
		free(err);
		ok(!cmdline_quote(empty, &err), "an empty program name is "
						"refused");
		free(err);
	}
	{
		char *big = xmalloc(CMDLINE_MAX + 2);
		char *const args[] = { (char *)"p", big, NULL };

		memset(big, 'x', CMDLINE_MAX + 1);
		big[CMDLINE_MAX + 1] = '\0';
		ok(!cmdline_quote(args, &err), "a line over %d is refused",
		   CMDLINE_MAX);
		free(err);
		free(big);
	}
}

/* ------------------------------------------------------------------ */
/* The ACL model. */

#define CAP "S-1-15-3-1-2-3-4-5-6-7-8"
#define USER "S-1-5-21-1-2-3-1001"

static struct wace mk(uint8_t type, uint8_t flags, uint32_t mask,
		      const char *sid)
{
	struct wace a = { type, flags, mask, (char *)sid };

	return a;
}

static bool acl_is(const struct wacl *m, const struct wace *want, size_t n)
{
	size_t i;

	if (m->n != n)
		return false;
	for (i = 0; i < n; i++)
		if (!wace_equal(&m->aces[i], &want[i]))
			return false;
	return true;
}

static void test_merge(void)
{
	struct wacl cur = { 0 }, m1, m2, r;
	struct wace add[] = {
		mk(WACE_DENY, WACE_OI | WACE_CI, 0x000d0156, CAP),
		mk(WACE_ALLOW, WACE_OI | WACE_CI, 0x001200a9, CAP),
		mk(WACE_ALLOW, WACE_OI | WACE_CI, 0x00020000, SID_OWNER_RIGHTS),
	};
	struct wace a;

	/* The user's own: an explicit allow, an inherited deny and allow. */
	a = mk(WACE_ALLOW, 0, 0x001f01ff, USER);
	wacl_add(&cur, &a);
	a = mk(WACE_DENY, WACE_INHERITED | WACE_OI, 0x00010000, "S-1-1-0");
	wacl_add(&cur, &a);
	a = mk(WACE_ALLOW, WACE_INHERITED | WACE_OI | WACE_CI, 0x001200a9,
	       "S-1-5-32-545");
	wacl_add(&cur, &a);
	ok(wacl_canonical(&cur), "the user's DACL is canonical");
	ok(wacl_merge(&cur, add, array_size(add), &m1) == 0, "merge");
	{
		struct wace want[] = {
			add[0],
			mk(WACE_ALLOW, 0, 0x001f01ff, USER),
			add[1],
			add[2],
			cur.aces[1],
			cur.aces[2],
		};

		ok(acl_is(&m1, want, array_size(want)),
		   "explicit deny, explicit allows (the user's first), then "
		   "inherited in their order");
	}
	ok(wacl_canonical(&m1), "the merge is canonical");
	ok(wacl_merge(&m1, add, array_size(add), &m2) == 0 &&
		   acl_is(&m2, m1.aces, m1.n),
	   "merging again changes nothing (idempotent)");
	wacl_free(&m2);
	/* Revoking what was added gives the user's DACL back. */
	{
		struct wacl t = { 0 }, u;
		size_t i, n = 0;

		for (i = 0; i < m1.n; i++)
			wacl_add(&t, &m1.aces[i]);
		for (i = 0; i < array_size(add); i++) {
			n += wacl_remove(&t, &add[i], &u);
			wacl_free(&t);
			t = u;
		}
		is_int(n, 3, "three ACEs revoked");
		ok(acl_is(&t, cur.aces, cur.n), "the DACL is the user's again");
		wacl_free(&t);
	}
	/* An inherited ACE equal to one of ours is never removed. */
	{
		struct wacl t = { 0 };

		a = add[0];
		a.flags |= WACE_INHERITED;
		wacl_add(&t, &a);
		is_int(wacl_remove(&t, &add[0], &r), 0,
		       "an inherited copy is not revoked");
		wacl_free(&t);
		wacl_free(&r);
	}
	/* Not canonical: an explicit allow after an inherited ACE. */
	{
		struct wacl t = { 0 };

		wacl_add(&t, &cur.aces[1]);
		wacl_add(&t, &cur.aces[0]);
		ok(!wacl_canonical(&t), "an explicit ACE after an inherited one "
					"is not canonical");
		ok(wacl_merge(&t, add, array_size(add), &r) < 0 && !r.n,
		   "and merging into it is refused");
		wacl_free(&t);
	}
	/* Gaps below a deny: a protected DACL, an explicit allow. */
	{
		struct wacl t = { 0 };

		ok(!wacl_gap(&t, false), "an empty inheriting DACL has no gap");
		ok(wacl_gap(&t, true), "a protected DACL is a gap");
		wacl_add(&t, &cur.aces[1]);
		a = mk(WACE_DENY, 0, 0x00010000, USER);
		wacl_add(&t, &a);
		ok(!wacl_gap(&t, false), "explicit denies and inherited ACEs "
					 "are no gap");
		wacl_add(&t, &cur.aces[0]);
		ok(wacl_gap(&t, false), "an explicit allow is a gap");
		wacl_free(&t);
	}
	wacl_free(&m1);
	wacl_free(&cur);
}

/* ------------------------------------------------------------------ */

static void test_paths(void)
{
	static const struct {
		const char *p;
		bool good;
	} cases[] = {
		{ "C:\\", true },	    { "c:\\Work", true },
		{ "C:\\a b\\c.d", true },   { "C:", false },
		{ "C:\\a\\", false },	    { "C:\\a\\..\\b", false },
		{ "C:\\a\\.\\b", false },   { "\\\\srv\\share", false },
		{ "C:\\a:b", false },	    { "C:\\a/b", false },
		{ "1:\\a", false },	    { "C:\\a\\\\b", false },
		{ "C:\\a\x01", false },	    { "C:\\\xc3\xa9", true },
	};
	size_t i;

	for (i = 0; i < array_size(cases); i++)
		ok(wpath_check(cases[i].p) == cases[i].good, "path '%s' is %s",
		   cases[i].p, cases[i].good ? "accepted" : "refused");
}

int main(void)
{
	srcdir = getenv("srcdir");
	if (!srcdir)
		srcdir = ".";
	test_json();
	test_sid_doc();
	test_golden();
	test_cmdline();
	test_paths();
	test_merge();
	test_state();
	test_two_writers();
	return done_testing();
}
