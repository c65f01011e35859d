/* SPDX-License-Identifier: MIT */
/*
 * test_explain_json.c - explain's JSON answers (tools/explain_json.c)
 * byte for byte against jansson packing and dumping the whole object, as
 * vboxc did before the answers were assembled from cached parts.
 *
 * Compared: on every testdata case with a .queries file (the explain
 * goldens), for each of its targets, every query line as the query,
 * decided by every row of the table (allowed and denied), by the default
 * of each domain, and failing with an error; then random queries and
 * error messages with quotes, backslashes, tabs, other control
 * characters, DEL, multi-byte UTF-8 and invalid UTF-8.
 */
#include <vbox.h>

#include <stdio.h>

#include <jansson.h>

#include "cli.h"
#include "explain_json.h"
#include "ir.h"
#include "tap.h"
#include "testlib.h"

/* The reference: one json_pack of the whole answer, json_dumps. */
static char *reference(const struct explain_answer *a)
{
	const struct row *row = a->row;
	json_t *obj;
	char *text;

	if (a->error)
		obj = cli_json_pack("{s:o, s:o}",
				    "query", cli_json_string(a->label),
				    "error", cli_json_string(a->error));
	else if (!row)
		obj = cli_json_pack("{s:o, s:b, s:i, s:i, s:n, s:n, s:s, s:n}",
				    "query", cli_json_string(a->label),
				    "allow", (int)a->allow,
				    "row", -1,
				    "level", 0,
				    "effect",
				    "source",
				    "domain", domain_name(a->domain),
				    "target");
	else
		obj = cli_json_pack("{s:o, s:b, s:I, s:i, s:s, s:o, s:s, s:o}",
				    "query", cli_json_string(a->label),
				    "allow", (int)a->allow,
				    "row", (json_int_t)row->index,
				    "level", (int)row->level,
				    "effect", effect_name(row->effect),
				    "source", cli_json_location(&row->loc),
				    "domain", domain_name(row->domain),
				    "target", cli_json_string(
					    row->domain == DOMAIN_FS ?
					    row->fs.text : row->net.text));
	if (!obj)
		return NULL;
	text = json_dumps(obj, CLI_JSON_FLAGS);
	json_decref(obj);
	return text;
}

/*
 * struct tally - answers compared so far under one heading
 * @n: answers compared
 * @bad: answers that differed (the first is shown)
 */
struct tally {
	size_t n;
	size_t bad;
};

static void compare(struct explain_json *ej, const struct explain_answer *a,
		    struct tally *t)
{
	char *want = reference(a);
	const char *got;
	size_t len = 0;

	got = explain_json_answer(ej, a, &len);
	t->n++;
	if (want && got && len == strlen(want) && memcmp(got, want, len) == 0 &&
	    !memchr(got, '\0', len)) {
		free(want);
		return;
	}
	if (!t->bad++)
		diag("got  %.*s\n# want %s", got ? (int)len : 6,
		     got ? got : "(null)", want ? want : "(null)");
	free(want);
}

/* Every way @label can be answered on @table. */
static void answer_all(const struct table *table, struct explain_json *ej,
		       const char *label, struct tally *t)
{
	struct explain_answer a = { .label = label };
	size_t i;
	int allow;

	for (allow = 0; allow < 2; allow++) {
		a.allow = allow;
		a.domain = DOMAIN_FS;
		a.row = NULL;
		compare(ej, &a, t);
		a.domain = DOMAIN_NET;
		compare(ej, &a, t);
		for (i = 0; i < table->fs.n; i++) {
			a.domain = DOMAIN_FS;
			a.row = table->fs.order[i];
			compare(ej, &a, t);
		}
		for (i = 0; i < table->net.n; i++) {
			a.domain = DOMAIN_NET;
			a.row = table->net.order[i];
			compare(ej, &a, t);
		}
	}
	a.row = NULL;
	a.error = "malformed query: expected 'read PATH', 'write PATH' or "
		  "'net HOST:PORT'";
	compare(ej, &a, t);
	a.error = label;
	compare(ej, &a, t);
}

/* The lines of @path (NULL when it cannot be read), at most 1 MiB. */
static char *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	size_t n;

	if (!f)
		return NULL;
	buf = xmalloc((1u << 20) + 1);
	n = fread(buf, 1, 1u << 20, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

/**
 * struct case_ctx - one target's walk over the cases
 * @target: the target
 * @cases: cases with a .queries file compared
 */
struct case_ctx {
	const char *target;
	size_t cases;
};

static void run_case(const struct tl_case *tc, void *ctx)
{
	struct case_ctx *cc = ctx;
	const struct tl_source src = {
		.path = tc->path,
		.target = cc->target,
		.defines = tc->defines,
		.ndefines = tc->ndefines,
		.flags = TL_QUIET,
	};
	struct explain_json *ej;
	struct tally t = { 0 };
	struct tl_compiled c;
	char *qpath, *text, *line, *save = NULL;
	size_t len = strlen(tc->path);

	qpath = xasprintf("%.*s.queries", (int)(len - strlen(".rules")),
			  tc->path);
	text = read_file(qpath);
	free(qpath);
	if (!text)
		return;
	if (tl_compile_source(&c, &src) < 0) {
		/* Invalid so: explain answers nothing (cases.sh checks). */
		diag("%s does not compile for %s here: not compared", tc->name,
		     cc->target);
		tl_compiled_free(&c);
		free(text);
		return;
	}
	cc->cases++;
	ej = explain_json_alloc(c.table);
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		answer_all(c.table, ej, line, &t);
	ok(t.n > 0 && !t.bad, "%s (%s): %zu answers equal jansson's dump",
	   tc->name, cc->target, t.n);
	explain_json_free(ej);
	tl_compiled_free(&c);
	free(text);
}

static void test_cases(void)
{
	static const char *const targets[] = { "linux", "darwin", "windows" };
	struct tl_cases cases;
	size_t i;

	if (tl_cases_open(&cases)) {
		ok(0, "no testdata directory at %s", cases.dir);
		tl_cases_free(&cases);
		return;
	}
	for (i = 0; i < array_size(targets); i++) {
		struct case_ctx cc = { .target = targets[i] };

		if (tl_cases_foreach(&cases, targets[i], run_case, &cc))
			ok(0, "every case in %s is readable", cases.dir);
		ok(cc.cases > 0, "%zu %s cases with queries compared",
		   cc.cases, targets[i]);
	}
	tl_cases_free(&cases);
}

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint32_t rnd(uint32_t n)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 2685821657736338717ull) >> 33) % n;
}

/* A random string of pieces that need escaping, sanitizing, or neither. */
static char *random_text(void)
{
	static const char *const pieces[] = {
		"a", "Z", "/", " ", "read /srv/", "\"", "\\", "\\\"", "\t",
		"\n", "\r", "\b", "\f", "\x01", "\x1f", "\x7f",
		"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
		"\x80", "\xff", "\xc3", "\xe2\x82", "\xed\xa0\x80",
		"\xc0\xaf", "%", "*", "?", "\\u0000", "}", "{\"", ":",
	};
	size_t n = rnd(12), i;
	char *s = xstrdup(""), *t;

	for (i = 0; i < n; i++) {
		t = xasprintf("%s%s", s, pieces[rnd(array_size(pieces))]);
		free(s);
		s = t;
	}
	return s;
}

static void test_random(void)
{
	static const char rules[] =
		"deny:/srv/work/keys\n"
		"rw:\"/srv/wo\\\"rk \\\\x/**\"\n"
		"!ro:/opt/caf\xc3\xa9/**\n"
		"[net]\n"
		"allow:github.com:443\n"
		"deny:localhost\n";
	struct explain_json *ej;
	struct tally t = { 0 }, terr = { 0 };
	struct tl_compiled c;
	int i;

	if (!ok(!tl_compile(&c, rules, "linux", 0), "random-query table "
		"compiles")) {
		tl_compiled_free(&c);
		return;
	}
	ej = explain_json_alloc(c.table);
	for (i = 0; i < 3000; i++) {
		char *label = random_text(), *err = random_text();
		struct explain_answer a = {
			.label = label,
			.allow = rnd(2),
			.domain = rnd(2) ? DOMAIN_FS : DOMAIN_NET,
		};

		if (a.domain == DOMAIN_FS && rnd(3))
			a.row = c.table->fs.order[rnd(c.table->fs.n)];
		else if (a.domain == DOMAIN_NET && rnd(3))
			a.row = c.table->net.order[rnd(c.table->net.n)];
		compare(ej, &a, &t);
		a.row = NULL;
		a.error = err;
		compare(ej, &a, &terr);
		free(label);
		free(err);
	}
	ok(!t.bad, "%zu random queries: answers equal jansson's dump", t.n);
	ok(!terr.bad, "%zu random invalid queries: errors equal jansson's "
	   "dump", terr.n);
	explain_json_free(ej);
	tl_compiled_free(&c);
}

int main(void)
{
	test_cases();
	test_random();
	return done_testing();
}
