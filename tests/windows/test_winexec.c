/* SPDX-License-Identifier: MIT */
/*
 * test_winexec.c - the windows launcher's portable parts, natively:
 * its JSON reader, the ACL plan of every golden windows case (SID
 * derivation against the compiler's, every tampering refused), command
 * line quoting against CommandLineToArgvW's rules, the canonical ACL
 * merge on the in-memory model, and the state file's reconciliation
 * (apply, revoke, a launcher killed in the middle, two writers).
 */
#include <vbox.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "aclplan.h"
#include "bbuf.h"
#include "capsid.h"
#include "cmdline.h"
#include "ir.h"
#include "plan.h"
#include "state.h"
#include "tap.h"
#include "wjson.h"

static const char *srcdir;

static char *slurp(const char *path, size_t *len)
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
static int golden_plan(const char *name, struct plan *plan)
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
static char *replace_once(const char *text, const char *from, const char *to)
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
/* Reconciliation against an in-memory host. */

struct host {
	char *paths[16];
	struct wacl acls[16];
	bool exists[16];
	size_t n;
	char *file;
	size_t file_len;
	const char *alive[8];
	size_t nalive;
	bool fail_revoke;
	unsigned locked;
};

static struct wacl *host_acl(struct host *h, const char *path)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		if (!strcasecmp(h->paths[i], path))
			return &h->acls[i];
	if (h->n == array_size(h->paths))
		BUG("test host full");
	h->paths[h->n] = xstrdup(path);
	h->exists[h->n] = true;
	memset(&h->acls[h->n], 0, sizeof(h->acls[0]));
	return &h->acls[h->n++];
}

static void host_free(struct host *h)
{
	size_t i;

	for (i = 0; i < h->n; i++) {
		free(h->paths[i]);
		wacl_free(&h->acls[i]);
	}
	free(h->file);
}

/* Apply @obj's ACEs as the launcher does. */
static void host_apply_obj(struct host *h, const struct wobj *o)
{
	struct wacl *acl = host_acl(h, o->path), next;

	if (wacl_merge(acl, o->aces, o->naces, &next) < 0)
		BUG("test host not canonical");
	wacl_free(acl);
	*acl = next;
}

static size_t host_count(struct host *h, const char *sid)
{
	size_t i, j, n = 0;

	for (i = 0; i < h->n; i++)
		for (j = 0; j < h->acls[i].n; j++)
			n += !strcmp(h->acls[i].aces[j].sid, sid);
	return n;
}

static int h_lock(void *ctx, char **err)
{
	struct host *h = ctx;

	(void)err;
	if (h->locked++)
		BUG("test lock taken twice");
	return 0;
}

static void h_unlock(void *ctx)
{
	struct host *h = ctx;

	h->locked--;
}

static int h_read(void *ctx, char **buf, size_t *len, char **err)
{
	struct host *h = ctx;

	(void)err;
	*buf = h->file ? xstrndup(h->file, h->file_len) : NULL;
	*len = h->file_len;
	return 0;
}

static int h_write(void *ctx, const char *buf, size_t len, char **err)
{
	struct host *h = ctx;

	(void)err;
	free(h->file);
	h->file = xstrndup(buf, len);
	h->file_len = len;
	return 0;
}

static bool h_alive(void *ctx, const char *holder)
{
	struct host *h = ctx;
	size_t i;

	for (i = 0; i < h->nalive; i++)
		if (!strcmp(h->alive[i], holder))
			return true;
	return false;
}

static int h_revoke(void *ctx, const struct srec *r)
{
	struct host *h = ctx;
	struct wacl *acl, next;

	if (h->fail_revoke)
		return -1;
	if (r->kind != SREC_ACE)
		return 0;
	acl = host_acl(h, r->path);
	wacl_remove(acl, &r->ace, &next);
	wacl_free(acl);
	*acl = next;
	return 0;
}

/* A launch of @ap by @holder: intent, apply (@upto objects), sweep. */
static void launch_start(struct host *h, const struct state_ops *ops,
			 const struct aclplan *ap, const char *holder,
			 size_t upto)
{
	struct sstate s;
	char *err = NULL;
	size_t i;

	if (state_open(ops, &s, &err) < 0)
		BUG("state_open: %s", err);
	state_records_for(ap, holder, &s);
	if (state_write(ops, &s, &err) < 0)
		BUG("state_write: %s", err);
	for (i = 0; i < ap->nobjs && i < upto; i++)
		host_apply_obj(h, &ap->objs[i]);
	if (upto < ap->nobjs) {
		/* Killed here: the lock dies with the process. */
		ops->unlock(ops->ctx);
		sstate_free(&s);
		return;
	}
	state_sweep(ops, &s, holder);
	if (state_write(ops, &s, &err) < 0)
		BUG("state_write: %s", err);
	state_close(ops, &s);
}

static size_t launch_end(const struct state_ops *ops, const char *holder)
{
	struct sstate s;
	char *err = NULL;
	size_t failed;

	if (state_open(ops, &s, &err) < 0)
		BUG("state_open: %s", err);
	failed = state_finish(ops, &s, holder);
	if (state_write(ops, &s, &err) < 0)
		BUG("state_write: %s", err);
	state_close(ops, &s);
	return failed;
}

static size_t state_count(struct host *h)
{
	struct sstate s;
	char *err = NULL;
	size_t n;

	if (!h->file)
		return 0;
	if (sstate_parse(h->file, h->file_len, &s, &err) < 0) {
		diag("state does not parse: %s", err);
		free(err);
		return (size_t)-1;
	}
	n = s.n;
	sstate_free(&s);
	return n;
}

static void test_state(void)
{
	struct plan p1, p2;
	struct aclplan a1, a2;
	struct host h = { 0 };
	struct state_ops ops = { &h, h_lock, h_unlock, h_read,
				 h_write, h_alive, h_revoke };
	struct sstate s;
	char *err = NULL, *f1, *f2;
	size_t len1, len2;

	if (golden_plan("ok_winacl_1.windows.plan.hex", &p1) < 0 ||
	    golden_plan("ok_guard_4.windows.plan.hex", &p2) < 0 ||
	    aclplan_load(&p1, &a1, &err) < 0 ||
	    aclplan_load(&p2, &a2, &err) < 0) {
		ok(0, "the state tests' plans load: %s", err ? err : "?");
		free(err);
		return;
	}
	/* Apply, then revoke: the host is as it was. */
	h.alive[h.nalive++] = "100:1";
	launch_start(&h, &ops, &a1, "100:1", (size_t)-1);
	ok(host_count(&h, a1.sid) > 0, "apply: the capability SID's ACEs "
				       "are on the host");
	ok(state_count(&h) > 0, "apply: the state names them");
	h.nalive = 0;
	is_int(launch_end(&ops, "100:1"), 0, "end: nothing failed");
	is_int(host_count(&h, a1.sid), 0, "end: no ACE of the SID is left");
	is_int(host_count(&h, SID_OWNER_RIGHTS), 0,
	       "end: no OWNER RIGHTS ACE is left");
	is_int(state_count(&h), 0, "end: the state is empty");

	/* Killed in the middle of applying: the next launch repairs. */
	launch_start(&h, &ops, &a1, "200:1", 2);
	ok(host_count(&h, a1.sid) > 0, "crash: a partial apply is on the host");
	ok(state_count(&h) > 0, "crash: its intent is in the state");
	h.alive[h.nalive++] = "300:1";
	launch_start(&h, &ops, &a2, "300:1", (size_t)-1);
	is_int(host_count(&h, a1.sid) + host_count(&h, SID_OWNER_RIGHTS), 0,
	       "the next launch (another plan) revoked the dead launch's "
	       "ACEs");
	h.nalive = 0;
	launch_end(&ops, "300:1");
	is_int(state_count(&h), 0, "and the state is empty when it ends");

	/* Killed, then the same plan again: its ACEs stay, one owner. */
	launch_start(&h, &ops, &a1, "210:1", 3);
	h.alive[0] = "310:1";
	h.nalive = 1;
	launch_start(&h, &ops, &a1, "310:1", (size_t)-1);
	ok(host_count(&h, a1.sid) > 0,
	   "the same plan again: the ACEs it needs stay");
	{
		struct sstate t;
		size_t i, others = 0;

		if (sstate_parse(h.file, h.file_len, &t, &err) == 0) {
			for (i = 0; i < t.n; i++)
				others += strcmp(t.recs[i].holder, "310:1") != 0;
			sstate_free(&t);
		}
		is_int(others, 0, "and the dead launch's records are gone");
	}
	h.nalive = 0;
	launch_end(&ops, "310:1");
	is_int(host_count(&h, a1.sid) + host_count(&h, SID_OWNER_RIGHTS), 0,
	       "and revoked when it ended");

	/* Two live launchers of one plan: the first to end revokes nothing. */
	h.alive[h.nalive++] = "400:1";
	h.alive[h.nalive++] = "500:1";
	launch_start(&h, &ops, &a1, "400:1", (size_t)-1);
	launch_start(&h, &ops, &a1, "500:1", (size_t)-1);
	h.alive[0] = "500:1";
	h.nalive = 1;
	launch_end(&ops, "400:1");
	ok(host_count(&h, a1.sid) > 0, "a live launcher's ACEs stay when "
				       "another ends");
	h.nalive = 0;
	launch_end(&ops, "500:1");
	is_int(host_count(&h, a1.sid), 0, "and go when the last one ends");
	is_int(state_count(&h), 0, "the state is empty again");

	/* A revocation that fails keeps its record for the next run. */
	launch_start(&h, &ops, &a1, "600:1", (size_t)-1);
	h.fail_revoke = true;
	ok(launch_end(&ops, "600:1") > 0, "failed revocations are counted");
	ok(state_count(&h) > 0, "and their records kept");
	h.fail_revoke = false;
	h.alive[0] = "800:1";
	h.nalive = 1;
	launch_start(&h, &ops, &a2, "800:1", (size_t)-1);
	is_int(host_count(&h, a1.sid), 0, "a later run revokes them");
	h.nalive = 0;
	launch_end(&ops, "800:1");
	is_int(state_count(&h), 0, "the state is empty again");

	/* The file: deterministic, and corrupt ones are refused. */
	memset(&s, 0, sizeof(s));
	state_records_for(&a1, "9:9", &s);
	sstate_add(&s, "9:9", "C:\\work\\secret", SREC_PLACEHOLDER, NULL);
	f1 = sstate_format(&s, &len1);
	sstate_free(&s);
	ok(f1 && sstate_parse(f1, len1, &s, &err) == 0, "the state parses");
	f2 = f1 ? sstate_format(&s, &len2) : NULL;
	ok(f1 && f2 && len1 == len2 && !memcmp(f1, f2, len1),
	   "and formats to the same bytes");
	sstate_free(&s);
	free(f2);
	free(h.file);
	h.file = replace_once(f1, "\"kind\": \"ace\"", "\"kind\": \"acl\"");
	h.file_len = strlen(h.file);
	ok(state_open(&ops, &s, &err) < 0 && !h.locked,
	   "a corrupt state is refused, and the lock released");
	if (err)
		diag("  %s", err);
	free(err);
	free(f1);
	aclplan_release(&a1);
	aclplan_release(&a2);
	plan_release(&p1);
	plan_release(&p2);
	host_free(&h);
}

/* ------------------------------------------------------------------ */
/* Two writers at once, as real processes on real files. */

struct fctx {
	const char *dir;
	int lockfd;
};

static int f_lock(void *ctx, char **err)
{
	struct fctx *c = ctx;
	char *p = xasprintf("%s/state.lock", c->dir);

	c->lockfd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	free(p);
	if (c->lockfd < 0 || flock(c->lockfd, LOCK_EX) < 0) {
		*err = xasprintf("lock: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static void f_unlock(void *ctx)
{
	struct fctx *c = ctx;

	close(c->lockfd);
}

static int f_read(void *ctx, char **buf, size_t *len, char **err)
{
	struct fctx *c = ctx;
	char *p = xasprintf("%s/state.json", c->dir);

	(void)err;
	*buf = slurp(p, len);
	free(p);
	return 0;
}

static int f_write(void *ctx, const char *buf, size_t len, char **err)
{
	struct fctx *c = ctx;
	char *tmp = xasprintf("%s/state.json.%d.tmp", c->dir, (int)getpid());
	char *dst = xasprintf("%s/state.json", c->dir);
	FILE *f = fopen(tmp, "wb");
	int ret = 0;

	if (!f || fwrite(buf, 1, len, f) != len || fclose(f) ||
	    rename(tmp, dst) < 0) {
		*err = xstrdup("write failed");
		ret = -1;
	}
	free(tmp);
	free(dst);
	return ret;
}

static bool f_alive(void *ctx, const char *holder)
{
	(void)ctx;
	(void)holder;
	return true;
}

static int f_revoke(void *ctx, const struct srec *r)
{
	(void)ctx;
	(void)r;
	return 0;
}

#define WRITES 40

static void test_two_writers(void)
{
	char tmpl[] = "/tmp/vbox-winstate.XXXXXX", *dir, *p, *buf;
	struct fctx c = { 0 };
	struct state_ops ops = { &c, f_lock, f_unlock, f_read,
				 f_write, f_alive, f_revoke };
	struct sstate s;
	pid_t pids[2];
	int st, i, k, good = 0;
	size_t len;
	char *err = NULL;

	dir = mkdtemp(tmpl);
	if (!dir) {
		ok(0, "mkdtemp");
		return;
	}
	c.dir = dir;
	for (k = 0; k < 2; k++) {
		pids[k] = fork();
		if (pids[k] == 0) {
			for (i = 0; i < WRITES; i++) {
				char holder[32];
				struct sstate t;

				snprintf(holder, sizeof(holder), "%d:%d", k, i);
				if (state_open(&ops, &t, &err) < 0)
					_exit(1);
				sstate_add(&t, holder, "C:\\x", SREC_LABEL,
					   NULL);
				if (state_write(&ops, &t, &err) < 0)
					_exit(1);
				state_close(&ops, &t);
			}
			_exit(0);
		}
	}
	for (k = 0; k < 2; k++)
		if (pids[k] > 0 && waitpid(pids[k], &st, 0) == pids[k] &&
		    WIFEXITED(st) && WEXITSTATUS(st) == 0)
			good++;
	is_int(good, 2, "two writers ran to the end");
	p = xasprintf("%s/state.json", dir);
	buf = slurp(p, &len);
	ok(buf && sstate_parse(buf, len, &s, &err) == 0,
	   "the state they left parses (no torn write)");
	is_int(buf ? (long long)s.n : -1, 2 * WRITES,
	       "and holds every record both wrote (no lost update)");
	if (buf)
		sstate_free(&s);
	free(buf);
	unlink(p);
	free(p);
	p = xasprintf("%s/state.lock", dir);
	unlink(p);
	free(p);
	rmdir(dir);
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
