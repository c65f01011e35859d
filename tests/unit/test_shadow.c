/* SPDX-License-Identifier: MIT */
/*
 * test_shadow.c - shadow analysis: the cases doc/rules.md §7 ("Shadow
 * analysis") says are found,
 * rows that must not be reported, and a soundness sweep that checks every
 * finding on generated tables against the decision engine.
 */
#include <vbox.h>

#include <stdio.h>

#include "diag.h"
#include "eval.h"
#include "ir.h"
#include "shadow.h"
#include "tap.h"
#include "testlib.h"

/* The findings as "fs:1<0:ineffective net:1<0:dead", in order. */
static char *findings_str(const struct table *t)
{
	char *out = xstrdup(""), *next;
	size_t i;

	for (i = 0; i < t->nfindings; i++) {
		const struct finding *f = &t->findings[i];

		next = xasprintf("%s%s%s:%u<%u:%s", out, i ? " " : "",
				 domain_name(f->row->domain), f->row->index,
				 f->by->index, finding_kind_name(f->kind));
		free(out);
		out = next;
	}
	return out;
}

static void expect(const char *text, const char *target, const char *want,
		   const char *what)
{
	struct tl_compiled c;
	char *got;

	if (tl_compile(&c, text, target, TL_SHADOW)) {
		ok(0, "%s: compiles", what);
		tl_compiled_free(&c);
		return;
	}
	got = findings_str(c.table);
	is_str(got, want, "%s", what);
	free(got);
	tl_compiled_free(&c);
}

static void test_required_cases(void)
{
	expect("rw:/srv/work/**\ndeny:/srv/work/secret\n", "linux",
	       "fs:1<0:ineffective", "rw /** covers a deny below it");
	expect("rw:/srv/work/**\nro:/srv/work\n", "linux",
	       "fs:1<0:ineffective", "rw /** covers its own prefix");
	expect("rw:/srv/work\nro:/srv/work/a/*.txt\n", "linux",
	       "fs:1<0:ineffective", "bare rw covers a glob in its subtree");
	expect("deny:/a/b\nro:/a/b\n", "linux", "fs:1<0:dead",
	       "identical patterns, deny over ro: dead");
	expect("ro:/a/*.txt\nrw:/a/*.txt\n", "linux", "fs:1<0:dead",
	       "identical glob patterns");
	expect("rw:/a/*.txt\ndeny:/a/*.txt\n", "linux", "fs:1<0:ineffective",
	       "identical glob patterns, rw over deny");
	expect("deny:/srv/work/secret\n!rw:/srv/**\n", "linux",
	       "fs:0<1:ineffective", "a higher level covers an earlier row");
	expect("rw:/srv/**\nrw:/srv/work/**\ndeny:/srv/work/x\n", "linux",
	       "fs:1<0:dead fs:2<0:ineffective",
	       "by names the first covering row in evaluation order");
	expect("ro:/srv/**\nrw:/srv/work/**\ndeny:/srv/work/x\n", "linux",
	       "fs:1<0:dead fs:2<0:dead",
	       "the kind follows the first covering row");
	expect("rw:/Srv/Work\ndeny:/srv/work/x\n", "darwin",
	       "fs:1<0:ineffective", "containment folds case on darwin");
	expect("rw:/Srv/Work\ndeny:/srv/work/x\n", "linux", "",
	       "containment is exact on linux");
	expect("allow:*.example.com\ndeny:evil.example.com\n", "linux",
	       "net:1<0:dead", "suffix allow covers a name below it");
	expect("allow:*.example.com\ndeny:*.a.example.com:22\n", "linux",
	       "net:1<0:dead", "suffix covers a deeper suffix");
	expect("allow:localhost\ndeny:127.0.0.1:22\n", "linux",
	       "net:1<0:dead", "loopback class covers a loopback address");
	expect("deny:example.com:443\nallow:example.com:443\n", "linux",
	       "net:1<0:dead", "identical network rows");
}

static void test_live_rows_not_reported(void)
{
	expect("rw:/srv/work/*\ndeny:/srv/work/a/b\n", "linux", "",
	       "'*' is one segment: a deeper row is live");
	expect("rw:/home/*/.ssh\ndeny:/home/u/.ssh/id_rsa\n", "linux", "",
	       "a glob without '**' does not cover the subtree");
	expect("deny:/a\n!rw:/a/b\n", "linux", "",
	       "a lower level never covers a higher one");
	expect("rw:/srv/work/x\ndeny:/srv/work\n", "linux", "",
	       "a narrower row does not cover a wider one");
	expect("allow:*.example.com:443\ndeny:evil.example.com\n", "linux", "",
	       "a single port does not cover every port");
	expect("allow:*.example.com\ndeny:example.com\n", "linux", "",
	       "a suffix does not cover the bare domain");
	expect("allow:10.0.0.1\ndeny:10.0.0.2\n", "linux", "",
	       "different addresses");
	expect("rw:/srv/**\ndeny:**/.ssh/**\n", "linux", "",
	       "a leading '**' row is not inside /srv");
}

static uint32_t rng_state = 88172645u;

static uint32_t rnd(uint32_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state % n;
}

static const char *const segs[] = { "a", "b", "c", "*", "?", "**", "a*",
				    "*b" };

static void random_path(char *buf, size_t size, bool pattern)
{
	unsigned n = 1 + rnd(4), i;

	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		strncat(buf, "/", size - strlen(buf) - 1);
		strncat(buf, segs[rnd(pattern ? array_size(segs) : 3)],
			size - strlen(buf) - 1);
	}
}

/*
 * Every finding must be true: for every probe path the row matches, the
 * decision engine's first matching row is a different, earlier row.
 */
static void test_soundness_sweep(void)
{
	static const char *const effects[] = { "deny", "ro", "rw" };
	unsigned round, checked = 0, wrong = 0, findings = 0;
	char probes[400][40];
	unsigned i, j;

	/* All paths of up to 4 segments over {a, b, c, ab, cb}. */
	for (i = 0; i < array_size(probes); i++)
		random_path(probes[i], sizeof(probes[i]), false);

	for (round = 0; round < 60; round++) {
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		struct tl_compiled c;

		for (i = 0; i < 25; i++) {
			char path[64];

			random_path(path, sizeof(path), true);
			if (path[1] == '*' || path[1] == '?')
				path[1] = 'c';
			fprintf(f, "%.*s%s:%s\n", (int)rnd(2), "!",
				effects[rnd(3)], path);
		}
		fclose(f);
		if (tl_compile(&c, text, "linux", TL_SHADOW | TL_QUIET)) {
			/* e.g. "..": skip the table, it says nothing. */
			tl_compiled_free(&c);
			free(text);
			continue;
		}
		for (i = 0; i < c.table->nfindings; i++) {
			const struct finding *fd = &c.table->findings[i];

			findings++;
			for (j = 0; j < array_size(probes); j++) {
				struct fs_path p;
				char *err = NULL;

				if (fs_path_parse(probes[j], c.table->target,
						  &p, &err)) {
					free(err);
					continue;
				}
				if (fs_match(&fd->row->fs, &p)) {
					const struct row *first =
						eval_fs_first_match_linear(
							&c.table->fs, &p);

					checked++;
					if (first == fd->row ||
					    !fs_match(&fd->by->fs, &p))
						wrong++;
				}
				fs_path_free(&p);
			}
		}
		tl_compiled_free(&c);
		free(text);
	}
	ok(wrong == 0 && findings > 20 && checked > 100,
	   "every finding holds on probe paths (%u findings, %u probes "
	   "checked)", findings, checked);
	if (wrong)
		diag("  %u probe paths contradict a finding", wrong);
}

static void test_warnings_queued(void)
{
	struct tl_compiled c;

	if (!ok(tl_compile(&c, "rw:/srv/**\n\tdeny:/srv/secret\n", "linux",
			   TL_SHADOW) == 0, "table compiles"))
		return;
	is_int(c.diags.nwarnings, 1, "one warning queued");
	ok(c.diags.n == 2 && c.diags.items[1].severity == DIAG_NOTE &&
		   c.diags.items[1].loc.line == 1,
	   "followed by a note at the covering row");
	ok(c.diags.n >= 1 && c.diags.items[0].loc.line == 2 &&
		   c.diags.items[0].loc.col == 9,
	   "the warning points at the row (line 2, column 9 after a tab)");
	is_str(c.diags.n >= 1 ? c.diags.items[0].msg : NULL,
	       "row 1 'deny:/srv/secret' is ineffective: covered by "
	       "higher-priority rw row 0 'rw:/srv/**'",
	       "warning text");
	tl_compiled_free(&c);
}

/* The partial findings as "fs:1<0@/proj/.env", in order. */
static char *partials_str(const struct table *t)
{
	char *out = xstrdup(""), *next;
	size_t i;

	for (i = 0; i < t->npartials; i++) {
		const struct finding *f = &t->partials[i];

		next = xasprintf("%s%s%s:%u<%u@%s", out, i ? " " : "",
				 domain_name(f->row->domain), f->row->index,
				 f->by->index, f->example);
		free(out);
		out = next;
	}
	return out;
}

static void expect_partial(const char *text, const char *target,
			   const char *want, const char *what)
{
	struct tl_compiled c;
	char *got;

	if (tl_compile(&c, text, target, TL_SHADOW)) {
		ok(0, "%s: compiles", what);
		tl_compiled_free(&c);
		return;
	}
	got = partials_str(c.table);
	is_str(got, want, "partial: %s", what);
	free(got);
	tl_compiled_free(&c);
}

static void test_partial_cases(void)
{
	expect_partial("rw:/proj/**\ndeny:**/.env\n", "linux",
		       "fs:1<0@/proj/.env", "rw tree above a deny glob");
	expect_partial("!deny:**/.env\nrw:/proj/**\n", "linux", "",
		       "an intended hole (deny above rw) is not reported");
	expect_partial("rw:/proj/**\nro:/proj/**\n", "linux", "",
		       "a fully covered row is ineffective, not partial");
	expect_partial("ro:/etc/ssh/ssh_config\ndeny:/etc/ssh\n", "linux",
		       "fs:1<0@/etc/ssh/ssh_config",
		       "ro inside a denied tree");
	expect_partial("deny:/etc/ssh/keys\nro:/etc/ssh\n", "linux", "",
		       "a more restrictive row above is no override");
	expect_partial("rw:/srv/*/out\nro:/srv/work/**\n", "linux",
		       "fs:1<0@/srv/work/out", "glob above a subtree");
	expect_partial("rw:/srv/a*\ndeny:/srv/*b\n", "linux",
		       "fs:1<0@/srv/ab", "two globs in one segment");
	expect_partial("rw:/srv/x/**\nrw:/srv/y\ndeny:/srv/x/z\n", "linux",
		       "", "ineffective rows stay ineffective");
	expect_partial("rw:/Proj/**\ndeny:**/.ENV\n", "darwin",
		       "fs:1<0@/Proj/.ENV", "examples keep the user's case");
	expect_partial("allow:*.example.com:443\ndeny:evil.example.com\n",
		       "linux", "net:1<0@evil.example.com:443",
		       "allow one port of a denied host");
	expect_partial("allow:*.example.com\ndeny:evil.example.com\n",
		       "linux", "", "a covered network row is dead, not partial");
	expect_partial("allow:localhost:8080\ndeny:127.0.0.1\n", "linux",
		       "net:1<0@localhost:8080", "the loopback class");
	expect_partial("allow:api.example.com:443\ndeny:*.example.com\n",
		       "linux", "net:1<0@api.example.com:443",
		       "one allowed name under a denied suffix");
	expect_partial("allow:localhost\ndeny:*.example.com\n", "linux", "",
		       "unrelated hosts");
	expect_partial("deny:api.example.com:443\nallow:*.example.com\n",
		       "linux", "", "allow below a deny is not reported");
}

static int effect_rank(enum effect e)
{
	return e == EFFECT_DENY ? 0 : e == EFFECT_RO ? 1 : 2;
}

/*
 * Every partial finding must be real: the example is matched by the row,
 * and the linear reference evaluation lets the reported, earlier, more
 * permissive row decide it.
 */
static void test_partial_sweep(void)
{
	static const char *const effects[] = { "deny", "ro", "rw" };
	unsigned round, n = 0, wrong = 0;
	size_t i;

	for (round = 0; round < 80; round++) {
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		struct tl_compiled c;

		for (i = 0; i < 20; i++) {
			char path[64];

			random_path(path, sizeof(path), true);
			if (path[1] == '*' || path[1] == '?')
				path[1] = 'c';
			fprintf(f, "%.*s%s:%s\n", (int)rnd(2), "!",
				effects[rnd(3)], path);
		}
		fprintf(f, "deny:**/b\n");
		fclose(f);
		if (tl_compile(&c, text, "linux", TL_SHADOW | TL_QUIET)) {
			tl_compiled_free(&c);
			free(text);
			continue;
		}
		for (i = 0; i < c.table->npartials; i++) {
			const struct finding *fd = &c.table->partials[i];
			const struct row *first;
			struct fs_path p;
			char *err = NULL;

			n++;
			if (fs_path_parse(fd->example, c.table->target, &p,
					  &err)) {
				free(err);
				wrong++;
				continue;
			}
			first = eval_fs_first_match_linear(&c.table->fs, &p);
			if (!fs_match(&fd->row->fs, &p) || first != fd->by ||
			    fd->by->prio >= fd->row->prio ||
			    effect_rank(fd->by->effect) <=
				    effect_rank(fd->row->effect) ||
			    fd->row->shadowed_by)
				wrong++;
			fs_path_free(&p);
		}
		tl_compiled_free(&c);
		free(text);
	}
	ok(wrong == 0 && n > 20, "every partial finding holds (%u findings)",
	   n);
	if (wrong)
		diag("  %u partial findings are wrong", wrong);
}

int main(void)
{
	test_required_cases();
	test_live_rows_not_reported();
	test_soundness_sweep();
	test_warnings_queued();
	test_partial_cases();
	test_partial_sweep();
	return done_testing();
}
