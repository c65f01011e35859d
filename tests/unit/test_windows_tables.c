/* SPDX-License-Identifier: MIT */
/*
 * test_windows_tables.c - test_windows on whole tables: the plan's ACLs,
 * evaluated as Windows does, against the decision engine on random
 * tables; a variable that is not UTF-8; and every testdata/ok_*.rules
 * case for windows, emitting valid JSON or refused with a reason.
 * Compiling and emitting are test_windows.c's (test_windows_int.h).
 */
#include <vbox.h>

#include <stdio.h>

#include <jansson.h>

#include "diag.h"
#include "emit.h"
#include "eval.h"
#include "fspath.h"
#include "ir.h"
#include "tap.h"
#include "test_windows_int.h"
#include "testlib.h"

/*
 * Property test: the plan's ACLs, evaluated the way Windows does (nearest
 * ACE first, deny before allow at one distance, the low integrity level
 * writing only below a low label), decide every probe path exactly as the
 * decision engine does, on random tables of concrete rows.
 */
#define ACE_READ 0x1u
#define ACE_WRITE 0x2u

static uint32_t rng_state = 0x9e3779b9u;

static uint32_t rng(uint32_t n)
{
	/* xorshift32: a fixed sequence, so failures reproduce. */
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state % n;
}

/* "/c/a/B" -> "c:\\a\\b": the folded native spelling of a probe. */
static char *probe_native(const char *canon)
{
	char *out = xasprintf("%c:%s", canon[1], canon + 2);
	size_t i;

	for (i = 0; out[i]; i++) {
		if (out[i] == '/')
			out[i] = '\\';
		else if (out[i] >= 'A' && out[i] <= 'Z')
			out[i] += 'a' - 'A';
	}
	return out;
}

static char ascii_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c + 'a' - 'A') : c;
}

/* The entry of @plan whose path folds to @path (already folded). */
static json_t *entry_at(json_t *plan, const char *path)
{
	const char *p;
	json_t *e;
	size_t i, j;

	json_array_foreach(json_object_get(plan, "entries"), i, e) {
		p = json_string_value(json_object_get(e, "path"));
		for (j = 0; p && p[j] && ascii_lower(p[j]) == path[j]; j++)
			;
		if (p && !p[j] && !path[j])
			return e;
	}
	return NULL;
}

/* Does the plan let the child do @bit on the probe @native? */
static bool acl_allows(json_t *plan, const char *native, uint32_t bit)
{
	const char *sid = json_string_value(json_object_get(plan,
							    "capability_sid"));
	bool low = !strcmp(json_string_value(json_object_get(
				   json_object_get(plan, "token"),
				   "integrity_level")), "low");
	bool decided = false, allow = true, labelled = false;
	char *path = xstrdup(native), *cut;
	json_t *e, *ace;
	size_t i;
	int pass;

	for (;;) {
		e = entry_at(plan, path);
		if (e && json_is_object(json_object_get(e, "label")))
			labelled = true;
		/* Deny ACEs of one distance before its allow ACEs. */
		for (pass = 0; e && !decided && pass < 2; pass++)
			json_array_foreach(json_object_get(e, "aces"), i, ace) {
				const char *type = json_string_value(
					json_object_get(ace, "type"));
				uint32_t mask = (uint32_t)strtoul(
					json_string_value(json_object_get(
						ace, "mask")), NULL, 16);

				if (strcmp(json_string_value(json_object_get(
						   ace, "sid")), sid) ||
				    !(mask & bit) ||
				    strcmp(type, pass ? "allow" : "deny"))
					continue;
				decided = true;
				allow = pass == 1;
				break;
			}
		cut = strrchr(path, '\\');
		if (!cut || cut[1] == '\0')
			break;
		if (cut == path + 2)
			cut[1] = '\0';
		else
			*cut = '\0';
	}
	free(path);
	/*
	 * No ACE of the plan decided: the host's own ACEs for the user do,
	 * and the user may read and write (the plan's default case).
	 */
	if (bit == ACE_WRITE && low && !labelled)
		return false;
	return allow;
}

static const char *const probe_segs[] = { "a", "b", "B" };

/*
 * Probe path number @n (its @depth base-3 digits pick the segments) below
 * drive @drive (0: C:, 1: D:), for reads and writes.  Returns the number
 * of disagreements; the first few are shown (@seen: shown so far).
 */
static size_t check_probe(const struct tl_compiled *c, json_t *plan,
			  const char *rules, size_t drive, size_t n,
			  size_t depth, size_t seen)
{
	static const enum fs_op ops[] = { FS_READ, FS_WRITE };
	static const uint32_t bits[] = { ACE_READ, ACE_WRITE };
	char probe[64], *native, *err = NULL;
	size_t len, i, bad = 0;
	struct decision d;
	struct fs_path p;
	bool acl;

	len = (size_t)snprintf(probe, sizeof(probe), "/%c", "cd"[drive]);
	for (i = 0; i < depth; i++, n /= 3)
		len += (size_t)snprintf(probe + len, sizeof(probe) - len,
					"/%s", probe_segs[n % 3]);
	if (fs_path_parse(probe, c->table->target, &p, &err)) {
		ok(0, "probe %s parses: %s", probe, err);
		free(err);
		return 1;
	}
	native = probe_native(probe);
	for (i = 0; i < array_size(ops); i++) {
		eval_fs(c->table, &p, ops[i], &d);
		acl = acl_allows(plan, native, bits[i]);
		if (d.allow == acl)
			continue;
		if (seen + bad++ < 3)
			diag("%s %s: table %s, plan %s, rules:\n%s",
			     i ? "write" : "read", probe,
			     d.allow ? "allow" : "deny",
			     acl ? "allow" : "deny", rules);
	}
	free(native);
	fs_path_free(&p);
	return bad;
}

void test_faithful(void)
{
	static const char *const segs[] = { "a", "b", "B" };
	static const char *const effects[] = { "deny", "ro", "rw" };
	size_t tables = 0, mismatches = 0, t, r, k, len, depth, ndepth;
	char rules[1024], *out;
	json_error_t err;
	struct tl_compiled c;
	json_t *plan;

	for (t = 0; t < 400; t++) {
		len = (size_t)snprintf(rules, sizeof(rules),
				       "@default net open\n%s",
				       rng(3) ? "" : "@default write rw\n");
		for (r = 0, k = 1 + rng(6); r < k; r++) {
			size_t nseg = 1 + rng(3), i;

			len += (size_t)snprintf(rules + len,
						sizeof(rules) - len,
						"%.*s%s:%s", (int)rng(3), "!!",
						effects[rng(3)],
						rng(4) ? "C:" : "D:");
			for (i = 0; i < nseg; i++)
				len += (size_t)snprintf(rules + len,
							sizeof(rules) - len,
							"\\%s", segs[rng(3)]);
			len += (size_t)snprintf(rules + len,
						sizeof(rules) - len, "%s\n",
						rng(3) ? "" : "\\**");
		}
		if (compile(&c, rules)) {
			tl_compiled_free(&c);
			continue;
		}
		out = c.classified ? NULL : emit(&c);
		plan = out ? json_loads(out, 0, &err) : NULL;
		if (!plan) {
			tl_compiled_free(&c);
			free(out);
			continue;
		}
		tables++;
		/* Every probe path up to depth 4 below C: and D:. */
		for (k = 0; k < 2; k++)
			for (depth = 1, ndepth = 3; depth <= 4;
			     depth++, ndepth *= 3)
				for (r = 0; r < ndepth; r++)
					mismatches += check_probe(
						&c, plan, rules, k, r, depth,
						mismatches);
		json_decref(plan);
		free(out);
		tl_compiled_free(&c);
	}
	ok(tables > 200, "%zu random tables emitted plans", tables);
	is_int(mismatches, 0,
	       "nearest-ACE-first evaluation of the plan equals the table");
}

/*
 * A variable may carry bytes that are not UTF-8 into a path; JSON cannot
 * hold them, so the plan is refused with a message, never cut or crashed.
 */
void test_bad_utf8(void)
{
	static const char *const defs[] = { "BAD=C:\\x\xff" };
	const struct location *loc = NULL;
	struct tl_compiled c;
	const char *msg;
	char *out;

	if (compile_defs(&c, "@default net open\ndeny:$BAD\n", defs, 1)) {
		ok(1, "a non-UTF-8 variable value is rejected by the table");
		tl_compiled_free(&c);
		return;
	}
	out = emit(&c);
	msg = first_error(&c, &loc);
	ok(!out && msg && strstr(msg, "cannot build the windows ACL plan"),
	   "a non-UTF-8 path is refused (%s)", msg ? msg : "none");
	free(out);
	tl_compiled_free(&c);
}

/*
 * Compile @text with @defs; the result must be valid JSON ending in a
 * newline, or a refusal with a reason.  Returns 1 when refused only for
 * the network posture, else 0.
 */
static int check_case(const char *name, const char *what, const char *text,
		      const char *const *defs, size_t n)
{
	const struct location *loc = NULL;
	struct tl_compiled c;
	json_error_t err;
	json_t *plan;
	const char *msg;
	char *out;
	int posture = 0;

	if (compile_defs(&c, text, defs, n)) {
		ok(0, "%s%s: compiles for windows", name, what);
		tl_compiled_free(&c);
		return 0;
	}
	if (c.classified) {
		msg = first_error(&c, &loc);
		ok(msg && strstr(msg, "is unsupported on windows: "),
		   "%s%s: refused with a reason (%s)", name, what,
		   msg ? msg : "none");
		tl_compiled_free(&c);
		return 0;
	}
	out = emit(&c);
	plan = out ? json_loads(out, 0, &err) : NULL;
	if (out) {
		ok(plan && json_is_object(plan) &&
		   out[strlen(out) - 1] == '\n',
		   "%s%s: emits valid JSON ending in a newline", name, what);
	} else {
		msg = first_error(&c, &loc);
		ok(msg != NULL, "%s%s: refused with a reason (%s)", name, what,
		   msg ? msg : "none");
		posture = msg && strstr(msg, "network posture 'deny'");
	}
	json_decref(plan);
	free(out);
	tl_compiled_free(&c);
	return posture;
}

static void run_case(const struct tl_case *tc, void *ctx)
{
	char *open_text;

	(void)ctx;
	/*
	 * Most cases keep the built-in deny posture, which windows refuses
	 * as a whole; run their rows once more in the open posture so the
	 * plan itself is exercised.
	 */
	if (check_case(tc->name, "", tc->text, tc->defines, tc->ndefines)) {
		open_text = xasprintf("@default net open\n%s", tc->text);
		check_case(tc->name, " (net open)", open_text, tc->defines,
			   tc->ndefines);
		free(open_text);
	}
}

void test_cases(void)
{
	struct tl_cases cases;
	int ret = tl_cases_open(&cases);

	if (ok(ret == 0, "testdata directory %s opens", cases.dir) &&
	    tl_cases_foreach(&cases, "windows", run_case, NULL))
		ok(0, "every case in %s is readable", cases.dir);
	tl_cases_free(&cases);
}
