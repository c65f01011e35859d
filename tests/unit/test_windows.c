/* SPDX-License-Identifier: MIT */
/*
 * test_windows.c - the windows target: classification of every row kind,
 * exact ACL plans for small tables, the capability SID (a known value,
 * determinism, sensitivity), the key order of the schema, the network
 * posture refusal, and every testdata/ok_*.rules case for windows either
 * emitting valid JSON or being refused with a reason.
 *
 * The property test on random tables, the non-UTF-8 path and the
 * testdata/ cases are in test_windows_tables.c (test_windows_int.h).
 */
#include <vbox.h>

#include <stdio.h>

#include <jansson.h>

#include "diag.h"
#include "emit.h"
#include "ir.h"
#include "tap.h"
#include "test_windows_int.h"
#include "testlib.h"

static char *const no_env[] = { NULL };

#define HOME_DEFINE "HOME=C:\\Users\\tester"

/*
 * Build, analyze and classify @text for windows.  @defines ("NAME=VALUE",
 * @ndefines of them) come first; HOME is defined as a drive path unless
 * they define it.  Returns 0, or -1 when the table does not build.
 */
int compile_defs(struct tl_compiled *c, const char *text,
		 const char *const *defines, size_t ndefines)
{
	const char *defs[32];
	struct tl_source src = {
		.text = text,
		.target = "windows",
		.defines = defs,
		.environ = no_env,
		.flags = TL_CLASSIFY,
	};
	bool have_home = false;
	size_t i, n = 0;

	/* Dropping a definition would test another policy: refuse. */
	if (ndefines >= array_size(defs))
		BUG("%zu definitions, at most %zu", ndefines,
		    array_size(defs) - 1);
	for (i = 0; i < ndefines; i++) {
		if (!strncmp(defines[i], "HOME=", 5))
			have_home = true;
		defs[n++] = defines[i];
	}
	if (!have_home)
		defs[n++] = HOME_DEFINE;
	src.ndefines = n;
	return tl_compile_source(c, &src);
}

int compile(struct tl_compiled *c, const char *text)
{
	return compile_defs(c, text, NULL, 0);
}

/* The profile as a string (caller frees), or NULL when emitting fails. */
char *emit(struct tl_compiled *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc;

	if (!f)
		return NULL;
	rc = emitter_windows.emit_profile(c->table, &c->landing, f,
					  &c->diags);
	if (fclose(f) || rc) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The landing of file row @index as "kind: reason". */
static char *fs_landing(const struct tl_compiled *c, size_t index)
{
	const struct landing *l = &c->landing.fs[index];

	return xasprintf("%s: %s", landing_kind_name(l->kind),
			 l->reason ? l->reason : "(none)");
}

static char *net_landing(const struct tl_compiled *c, size_t index)
{
	const struct landing *l = &c->landing.net[index];

	return xasprintf("%s: %s", landing_kind_name(l->kind),
			 l->reason ? l->reason : "(none)");
}

#define IS_LANDING(got_, want_, ...) \
	do { char *g__ = (got_); \
	     is_str(g__, want_, __VA_ARGS__); free(g__); } while (0)

static void test_classify(void)
{
	struct tl_compiled c;
	bool found = false;
	size_t i;

	if (!ok(compile(&c, "@default net open\n"
			    "rw:C:\\Work\\**\n"          /* 0 */
			    "!ro:C:\\Work\\keep\n"       /* 1 */
			    "deny:C:\\Work\\keep\\x\n"   /* 2 */
			    "rw:D:\\cache\\*.tmp\n"      /* 3 */
			    "deny:C:\\Users\\*\\secret\n" /* 4 */
			    "ro:**\\.git\n"              /* 5 */
			    "!!rw:C:\\Secrets\\pub\n"    /* 6 */
			    "deny:C:\\Secrets\n"         /* 7 */
			    "ro:/e/docs\n"               /* 8 */
			    "deny:evil.example.com\n"    /* 0 */
			    "allow:api.example.com:443\n" /* 1 */
			    "allow:*.example.com\n"      /* 2 */
			    "deny:x.example.com\n") == 0, /* 3 */
		"classification table compiles"))
		return;
	is_int(c.classified, -1, "a table with unsupported rows is refused");
	IS_LANDING(fs_landing(&c, 0),
		   "kernel: writable root: allow ACE for the capability SID "
		   "and a low integrity label",
		   "rw subtree is a writable root");
	IS_LANDING(fs_landing(&c, 1),
		   "kernel: read-only: explicit deny-write ACE for the "
		   "capability SID",
		   "higher-priority ro hole inside an rw root lands");
	IS_LANDING(fs_landing(&c, 2), "absorbed: dead: covered by row 1",
		   "deny below a higher-priority ro row is dead");
	IS_LANDING(fs_landing(&c, 3),
		   "absorbed: glob: windows ACLs apply to concrete paths; "
		   "omitting an allow only narrows the sandbox",
		   "rw glob is absorbed");
	IS_LANDING(fs_landing(&c, 4),
		   "unsupported: glob: windows ACLs apply to concrete paths, "
		   "so it needs launch-time expansion, which has no windows "
		   "launcher",
		   "deny glob is unsupported");
	IS_LANDING(fs_landing(&c, 5),
		   "unsupported: glob: windows ACLs apply to concrete paths, "
		   "so it needs launch-time expansion, which has no windows "
		   "launcher",
		   "ro glob with a leading ** is unsupported");
	IS_LANDING(fs_landing(&c, 6),
		   "kernel: writable root: allow ACE for the capability SID "
		   "and a low integrity label",
		   "rw nested in a lower-priority deny lands");
	IS_LANDING(fs_landing(&c, 7),
		   "kernel: explicit deny ACE (read and write) for the "
		   "capability SID",
		   "deny lands");
	IS_LANDING(fs_landing(&c, 8),
		   "kernel: read-only: explicit deny-write ACE for the "
		   "capability SID",
		   "standalone ro lands");
	IS_LANDING(net_landing(&c, 0),
		   "unsupported: windows enforces only the open network "
		   "posture: a network deny needs an egress proxy or firewall "
		   "rules, which the windows plan does not have",
		   "network deny is unsupported");
	IS_LANDING(net_landing(&c, 1),
		   "absorbed: the network posture is open: the connection is "
		   "allowed without it",
		   "network allow is absorbed");
	IS_LANDING(net_landing(&c, 3), "absorbed: dead: covered by row 2",
		   "dead network deny is absorbed, not refused");
	for (i = 0; i < c.diags.n; i++)
		if (strstr(c.diags.items[i].msg,
			   "row 4 'deny:/c/Users/*/secret' is unsupported on "
			   "windows: glob"))
			found = true;
	ok(found, "the refusal names the row, the target and the reason");
	tl_compiled_free(&c);

	if (!ok(compile(&c, "@default net open\n"
			    "rw:C:\\Work\n"
			    "ro:C:\\Work\\keep\n"
			    "deny:C:\\Data\\**\n"
			    "!ro:C:\\Data\\pub\n") == 0,
		"second table compiles"))
		return;
	is_int(c.classified, 0, "a table of concrete rows is accepted");
	IS_LANDING(fs_landing(&c, 1),
		   "absorbed: dead: covered by row 0",
		   "ro hole inside a higher-priority rw root is dead");
	IS_LANDING(fs_landing(&c, 3),
		   "kernel: read-only: explicit deny-write ACE for the "
		   "capability SID",
		   "ro hole inside a lower-priority deny lands");
	tl_compiled_free(&c);

	if (!ok(compile(&c, "@default net open\n"
			    "@default write rw\n"
			    "rw:C:\\Work\n") == 0,
		"rw posture table compiles"))
		return;
	IS_LANDING(fs_landing(&c, 0),
		   "kernel: writable root: allow ACE for the capability SID",
		   "rw posture: no integrity label");
	tl_compiled_free(&c);
}

/*
 * Known capability SIDs: SHA-256 over the serialization doc/targets.md
 * gives, computed independently of this code (Python hashlib).
 */
#define SID_NESTED \
	"S-1-15-3-3157761508-3665111000-4288222431-737797448-" \
	"176923545-71282204-2633317766-234334022"
#define SID_DENY_RW \
	"S-1-15-3-1345158451-3521367749-2009163787-2025679209-" \
	"27108182-2967515327-2807966773-3719073168"

static const char plan_nested[] =
	"{\n"
	"  \"format\": \"vbox-acl-plan\",\n"
	"  \"version\": 1,\n"
	"  \"target\": \"windows\",\n"
	"  \"capability_sid\": \"" SID_NESTED "\",\n"
	"  \"token\": {\n"
	"    \"type\": \"restricted\",\n"
	"    \"disable_max_privilege\": true,\n"
	"    \"restricting_sids\": [\n"
	"      \"capability\",\n"
	"      \"user\",\n"
	"      \"groups\"\n"
	"    ],\n"
	"    \"integrity_level\": \"low\"\n"
	"  },\n"
	"  \"postures\": {\n"
	"    \"write\": \"deny\",\n"
	"    \"net\": \"open\"\n"
	"  },\n"
	"  \"entries\": [\n"
	"    {\n"
	"      \"row\": 1,\n"
	"      \"rule\": \"!ro:/c/Work/keep\",\n"
	"      \"effect\": \"ro\",\n"
	"      \"path\": \"C:\\\\Work\\\\keep\",\n"
	"      \"aces\": [\n"
	"        {\n"
	"          \"type\": \"deny\",\n"
	"          \"sid\": \"" SID_NESTED "\",\n"
	"          \"rights\": \"write\",\n"
	"          \"mask\": \"0x000d0156\",\n"
	"          \"inheritance\": \"OICI\"\n"
	"        },\n"
	"        {\n"
	"          \"type\": \"allow\",\n"
	"          \"sid\": \"" SID_NESTED "\",\n"
	"          \"rights\": \"read_execute\",\n"
	"          \"mask\": \"0x001200a9\",\n"
	"          \"inheritance\": \"OICI\"\n"
	"        },\n"
	"        {\n"
	"          \"type\": \"allow\",\n"
	"          \"sid\": \"S-1-3-4\",\n"
	"          \"rights\": \"read_control\",\n"
	"          \"mask\": \"0x00020000\",\n"
	"          \"inheritance\": \"OICI\"\n"
	"        }\n"
	"      ],\n"
	"      \"label\": null,\n"
	"      \"if_missing\": \"placeholder\"\n"
	"    },\n"
	"    {\n"
	"      \"row\": 0,\n"
	"      \"rule\": \"rw:/c/Work/**\",\n"
	"      \"effect\": \"rw\",\n"
	"      \"path\": \"C:\\\\Work\",\n"
	"      \"aces\": [\n"
	"        {\n"
	"          \"type\": \"allow\",\n"
	"          \"sid\": \"" SID_NESTED "\",\n"
	"          \"rights\": \"modify\",\n"
	"          \"mask\": \"0x001301bf\",\n"
	"          \"inheritance\": \"OICI\"\n"
	"        }\n"
	"      ],\n"
	"      \"label\": {\n"
	"        \"level\": \"low\",\n"
	"        \"policy\": \"NO_WRITE_UP\",\n"
	"        \"inheritance\": \"OICI\"\n"
	"      },\n"
	"      \"if_missing\": \"skip\"\n"
	"    }\n"
	"  ],\n"
	"  \"pins\": [\n"
	"    {\n"
	"      \"path\": \"C:\\\\Work\",\n"
	"      \"holes\": [\n"
	"        1\n"
	"      ],\n"
	"      \"aces\": [\n"
	"        {\n"
	"          \"type\": \"deny\",\n"
	"          \"sid\": \"" SID_NESTED "\",\n"
	"          \"rights\": \"pin\",\n"
	"          \"mask\": \"0x000d0040\",\n"
	"          \"inheritance\": \"none\"\n"
	"        },\n"
	"        {\n"
	"          \"type\": \"allow\",\n"
	"          \"sid\": \"S-1-3-4\",\n"
	"          \"rights\": \"read_control\",\n"
	"          \"mask\": \"0x00020000\",\n"
	"          \"inheritance\": \"none\"\n"
	"        }\n"
	"      ]\n"
	"    }\n"
	"  ]\n"
	"}\n";

static const char plan_deny_rw[] =
	"{\n"
	"  \"format\": \"vbox-acl-plan\",\n"
	"  \"version\": 1,\n"
	"  \"target\": \"windows\",\n"
	"  \"capability_sid\": \"" SID_DENY_RW "\",\n"
	"  \"token\": {\n"
	"    \"type\": \"restricted\",\n"
	"    \"disable_max_privilege\": true,\n"
	"    \"restricting_sids\": [\n"
	"      \"capability\",\n"
	"      \"user\",\n"
	"      \"groups\"\n"
	"    ],\n"
	"    \"integrity_level\": \"medium\"\n"
	"  },\n"
	"  \"postures\": {\n"
	"    \"write\": \"rw\",\n"
	"    \"net\": \"open\"\n"
	"  },\n"
	"  \"entries\": [\n"
	"    {\n"
	"      \"row\": 0,\n"
	"      \"rule\": \"deny:/c/Users/tester/.ssh\",\n"
	"      \"effect\": \"deny\",\n"
	"      \"path\": \"C:\\\\Users\\\\tester\\\\.ssh\",\n"
	"      \"aces\": [\n"
	"        {\n"
	"          \"type\": \"deny\",\n"
	"          \"sid\": \"" SID_DENY_RW "\",\n"
	"          \"rights\": \"read_write\",\n"
	"          \"mask\": \"0x000f01ff\",\n"
	"          \"inheritance\": \"OICI\"\n"
	"        },\n"
	"        {\n"
	"          \"type\": \"allow\",\n"
	"          \"sid\": \"S-1-3-4\",\n"
	"          \"rights\": \"read_control\",\n"
	"          \"mask\": \"0x00020000\",\n"
	"          \"inheritance\": \"OICI\"\n"
	"        }\n"
	"      ],\n"
	"      \"label\": null,\n"
	"      \"if_missing\": \"placeholder\"\n"
	"    }\n"
	"  ],\n"
	"  \"pins\": [\n"
	"    {\n"
	"      \"path\": \"C:\\\\Users\",\n"
	"      \"holes\": [\n"
	"        0\n"
	"      ],\n"
	"      \"aces\": [\n"
	"        {\n"
	"          \"type\": \"deny\",\n"
	"          \"sid\": \"" SID_DENY_RW "\",\n"
	"          \"rights\": \"pin\",\n"
	"          \"mask\": \"0x000d0040\",\n"
	"          \"inheritance\": \"none\"\n"
	"        },\n"
	"        {\n"
	"          \"type\": \"allow\",\n"
	"          \"sid\": \"S-1-3-4\",\n"
	"          \"rights\": \"read_control\",\n"
	"          \"mask\": \"0x00020000\",\n"
	"          \"inheritance\": \"none\"\n"
	"        }\n"
	"      ]\n"
	"    },\n"
	"    {\n"
	"      \"path\": \"C:\\\\Users\\\\tester\",\n"
	"      \"holes\": [\n"
	"        0\n"
	"      ],\n"
	"      \"aces\": [\n"
	"        {\n"
	"          \"type\": \"deny\",\n"
	"          \"sid\": \"" SID_DENY_RW "\",\n"
	"          \"rights\": \"pin\",\n"
	"          \"mask\": \"0x000d0040\",\n"
	"          \"inheritance\": \"none\"\n"
	"        },\n"
	"        {\n"
	"          \"type\": \"allow\",\n"
	"          \"sid\": \"S-1-3-4\",\n"
	"          \"rights\": \"read_control\",\n"
	"          \"mask\": \"0x00020000\",\n"
	"          \"inheritance\": \"none\"\n"
	"        }\n"
	"      ]\n"
	"    }\n"
	"  ]\n"
	"}\n";

static void test_exact(void)
{
	struct tl_compiled c;
	char *got;

	if (!ok(compile(&c, "@default net open\n"
			    "rw:C:\\Work\\**\n"
			    "!ro:C:\\Work\\keep\n") == 0,
		"nested table compiles"))
		return;
	got = emit(&c);
	is_str(got, plan_nested,
	       "ro hole in an rw root: exact plan with a pin");
	free(got);
	tl_compiled_free(&c);

	if (!ok(compile(&c, "@default net open\n"
			    "@default write rw\n"
			    "deny:~\\.ssh\n") == 0,
		"deny table compiles"))
		return;
	got = emit(&c);
	is_str(got, plan_deny_rw,
	       "deny under the rw posture: exact plan, medium integrity, "
	       "every writable ancestor pinned");
	free(got);
	tl_compiled_free(&c);

	if (!ok(compile(&c, "@default net open\n") == 0,
		"empty table compiles"))
		return;
	got = emit(&c);
	ok(got && strstr(got, "\"entries\": [],\n  \"pins\": []\n}\n"),
	   "an empty table still emits a complete plan");
	free(got);
	tl_compiled_free(&c);
}

/*
 * The "if_missing" of @text's first entry, and how many pins its plan
 * has, in @out ("placeholder 0"); "none" when there is no plan.
 */
static void missing_of(const char *text, char *out, size_t size)
{
	struct tl_compiled c;
	json_error_t err;
	json_t *plan = NULL, *e;
	char *got = NULL;

	snprintf(out, size, "none");
	if (!compile(&c, text))
		got = emit(&c);
	if (got)
		plan = json_loads(got, 0, &err);
	e = json_array_get(json_object_get(plan, "entries"), 0);
	if (json_is_string(json_object_get(e, "if_missing")))
		snprintf(out, size, "%s %zu",
			 json_string_value(json_object_get(e, "if_missing")),
			 json_array_size(json_object_get(plan, "pins")));
	json_decref(plan);
	free(got);
	tl_compiled_free(&c);
}

/*
 * A missing deny or ro path right below a drive root the child may write
 * (Authenticated Users may make folders in C:\) gets a placeholder,
 * though drive roots are never pinned (issue 35).
 */
static void test_below_drive(void)
{
	static const struct {
		const char *rows, *want, *what;
	} cases[] = {
		{ "@default write rw\ndeny:C:/Data/**\n", "placeholder 0",
		  "a deny right below a writable drive root" },
		{ "@default write rw\nro:C:\\Data\n", "placeholder 0",
		  "an ro right below a writable drive root" },
		{ "deny:C:\\Data\n", "skip 0",
		  "under @default write deny the child cannot make it" },
		{ "@default write rw\n!ro:C:\\Data\ndeny:C:\\**\n",
		  "skip 0", "a drive root a deny row covers" },
		{ "@default write rw\ndeny:C:\\Data\\x\n",
		  "placeholder 1", "one level lower: pinned, as before" },
	};
	char got[64], *text;
	size_t i;

	for (i = 0; i < array_size(cases); i++) {
		text = xasprintf("@default net open\n%s", cases[i].rows);
		missing_of(text, got, sizeof(got));
		is_str(got, cases[i].want, "%s: if_missing and pins",
		       cases[i].what);
		free(text);
	}
}

/* The capability SID of @text's plan (caller frees), or NULL. */
static char *sid_of(const char *text)
{
	struct tl_compiled c;
	json_error_t err;
	json_t *plan;
	char *out, *sid = NULL;

	if (compile(&c, text)) {
		tl_compiled_free(&c);
		return NULL;
	}
	out = emit(&c);
	plan = out ? json_loads(out, 0, &err) : NULL;
	if (plan && json_is_string(json_object_get(plan, "capability_sid")))
		sid = xstrdup(json_string_value(
			json_object_get(plan, "capability_sid")));
	json_decref(plan);
	free(out);
	tl_compiled_free(&c);
	return sid;
}

static bool sid_well_formed(const char *sid)
{
	unsigned long long v;
	const char *p;
	char *end;
	int n = 0;

	if (strncmp(sid, "S-1-15-3-", 9))
		return false;
	for (p = sid + 8; *p; p = end) {
		if (*p != '-' || !(p[1] >= '0' && p[1] <= '9'))
			return false;
		v = strtoull(p + 1, &end, 10);
		if (v > 0xffffffffull)
			return false;
		n++;
	}
	return n == 8;
}

static void test_sid(void)
{
	static const char base[] = "@default net open\n"
				   "rw:C:\\Work\\**\n"
				   "deny:C:\\Work\\secret\n";
	static const struct {
		const char *text;
		const char *what;
	} changed[] = {
		{ "@default net open\nrw:C:\\Work\\**\n"
		  "!deny:C:\\Work\\secret\n",
		  "a level" },
		{ "@default net open\nrw:C:\\Work\\**\nro:C:\\Work\\secret\n",
		  "an effect" },
		{ "@default net open\nrw:C:\\Work\\**\n"
		  "deny:C:\\Work\\secret2\n",
		  "a target" },
		{ "@default net open\ndeny:C:\\Work\\secret\nrw:C:\\Work\\**\n",
		  "the order of two rows" },
		{ "@default net open\n@default write rw\nrw:C:\\Work\\**\n"
		  "deny:C:\\Work\\secret\n",
		  "the write posture" },
		{ "@default net open\nrw:C:\\Work\\**\ndeny:C:\\Work\\secret\n"
		  "allow:example.com\n",
		  "a network row" },
		{ "@default net open\nrw:C:\\Work\\**\ndeny:C:\\Work\\secret\n"
		  "rw:D:\\x\n",
		  "an added row" },
	};
	char *a, *b;
	size_t i;

	a = sid_of(base);
	b = sid_of(base);
	if (!ok(a && b, "the base table has a SID")) {
		free(a);
		free(b);
		return;
	}
	ok(sid_well_formed(a),
	   "SID has the form S-1-15-3 plus 8 sub-authorities");
	is_str(a, b, "the same rules give the same SID");
	free(b);
	b = sid_of("# another comment\n@default net open\n\n"
		   "rw:c:/Work/**\n"
		   "deny:/c/Work/secret   # trailing\n");
	is_str(b, a, "other spellings of the same rows give the same SID");
	free(b);
	for (i = 0; i < array_size(changed); i++) {
		b = sid_of(changed[i].text);
		ok(b && strcmp(a, b) != 0, "changing %s changes the SID",
		   changed[i].what);
		free(b);
	}
	free(a);
	a = sid_of("@default net open\nrw:C:\\Work\\**\n!ro:C:\\Work\\keep\n");
	is_str(a, SID_NESTED, "known SID (SHA-256 of the documented text)");
	free(a);
}

/* The keys of object @o, comma-separated (caller frees). */
static char *keys_of(json_t *o)
{
	char *out = xstrdup(""), *next;
	void *it;

	if (!json_is_object(o))
		return out;
	for (it = json_object_iter(o); it;
	     it = json_object_iter_next(o, it)) {
		next = xasprintf("%s%s%s", out, *out ? "," : "",
				 json_object_iter_key(it));
		free(out);
		out = next;
	}
	return out;
}

#define IS_KEYS(o, want, ...) \
	do { char *k__ = keys_of(o); \
	     is_str(k__, want, __VA_ARGS__); free(k__); } while (0)

static void test_key_order(void)
{
	struct tl_compiled c;
	json_error_t err;
	json_t *plan, *entry;
	char *out;

	if (!ok(compile(&c, "@default net open\n"
			    "rw:C:\\Work\\**\n"
			    "!ro:C:\\Work\\keep\n") == 0,
		"key-order table compiles"))
		return;
	out = emit(&c);
	plan = out ? json_loads(out, 0, &err) : NULL;
	if (!ok(plan != NULL, "the plan parses as JSON"))
		goto out;
	IS_KEYS(plan,
		"format,version,target,capability_sid,token,postures,entries,"
		"pins", "top-level key order");
	IS_KEYS(json_object_get(plan, "token"),
		"type,disable_max_privilege,restricting_sids,integrity_level",
		"token key order");
	IS_KEYS(json_object_get(plan, "postures"), "write,net",
		"postures key order");
	entry = json_array_get(json_object_get(plan, "entries"), 1);
	IS_KEYS(entry, "row,rule,effect,path,aces,label,if_missing",
		"entry key order");
	IS_KEYS(json_array_get(json_object_get(entry, "aces"), 0),
		"type,sid,rights,mask,inheritance", "ACE key order");
	IS_KEYS(json_object_get(entry, "label"), "level,policy,inheritance",
		"label key order");
	IS_KEYS(json_array_get(json_object_get(plan, "pins"), 0),
		"path,holes,aces", "pin key order");
out:
	json_decref(plan);
	free(out);
	tl_compiled_free(&c);
}

const char *first_error(const struct tl_compiled *c,
			const struct location **loc)
{
	size_t i;

	for (i = 0; i < c->diags.n; i++)
		if (c->diags.items[i].severity == DIAG_ERROR) {
			*loc = &c->diags.items[i].loc;
			return c->diags.items[i].msg;
		}
	return NULL;
}

static void test_net_posture(void)
{
	const struct location *loc = NULL;
	struct tl_compiled c;
	char *out;

	if (!ok(compile(&c, "rw:C:\\Work\n") == 0,
		"table with the built-in net posture compiles"))
		return;
	is_int(c.classified, -1,
	       "classification refuses the built-in deny posture");
	out = emit(&c);
	ok(out == NULL, "emitting refuses the built-in deny posture");
	is_str(first_error(&c, &loc),
	       "the default network posture 'deny' is unsupported on windows: "
	       "add '@default net open'",
	       "built-in posture: the message says what to add");
	ok(loc && loc->in == NULL, "built-in posture: no location");
	free(out);
	tl_compiled_free(&c);

	if (!ok(compile(&c, "@default net deny\nallow:example.com\n") == 0,
		"table with an explicit deny posture compiles"))
		return;
	IS_LANDING(net_landing(&c, 0),
		   "absorbed: windows enforces no network rows; omitting an "
		   "allow only narrows (the deny posture itself is refused)",
		   "allow under the deny posture is absorbed");
	out = emit(&c);
	ok(out == NULL, "emitting refuses an explicit deny posture");
	is_str(first_error(&c, &loc),
	       "network posture 'deny' is unsupported on windows: the ACL "
	       "plan cannot confine connections; use '@default net open'",
	       "explicit posture: message");
	ok(loc && loc->in && loc->line == 1,
	   "explicit posture: the error points at the directive");
	free(out);
	tl_compiled_free(&c);
}

static void test_write_error(void)
{
	const struct location *loc = NULL;
	struct tl_compiled c;
	FILE *f = fopen("/dev/full", "w");

	if (!f) {
		ok(1, "# SKIP no /dev/full");
		return;
	}
	if (compile(&c, "@default net open\nrw:C:\\Work\n")) {
		tl_compiled_free(&c);
		fclose(f);
		return;
	}
	is_int(emitter_windows.emit_profile(c.table, &c.landing, f, &c.diags),
	       -1, "a failed write is reported");
	is_str(first_error(&c, &loc), "cannot write the windows ACL plan",
	       "write error message");
	fclose(f);
	tl_compiled_free(&c);
}

int main(void)
{
	test_classify();
	test_exact();
	test_below_drive();
	test_sid();
	test_key_order();
	test_net_posture();
	test_write_error();
	test_faithful();
	test_bad_utf8();
	test_cases();
	return done_testing();
}
