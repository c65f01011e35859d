/* SPDX-License-Identifier: MIT */
/*
 * test_darwin_policies.c - test_darwin on whole policies: the
 * classification (long strings, landings, the reserved proxy ports), the
 * policies with levels, a variable that tries to inject a rule, and (a)
 * every darwin case in testdata/, each profile checked and interpreted by
 * test_darwin.c's check_policy() (test_darwin_int.h).
 */
#include <vbox.h>

#include "emit.h"
#include "ir.h"
#include "tap.h"
#include "test_darwin_int.h"
#include "testlib.h"

/* ---- classification ---- */

static const struct landing *fs_landing(const struct tl_compiled *c, size_t i)
{
	return &c->landing.fs[i];
}

void test_long_strings(void)
{
	struct tl_compiled c;
	char *text, *letters, *digits, *p;

	letters = xmalloc(301);
	memset(letters, 'a', 300);
	letters[300] = '\0';
	digits = xmalloc(991);
	memset(digits, '7', 990);
	digits[990] = '\0';
	text = xasprintf("deny:/%s\nrw:/%s\n", letters, digits);
	if (ok(!compile_text(&c, text), "long patterns compile")) {
		is_int(fs_landing(&c, 0)->kind, LANDING_UNSUPPORTED,
		       "a row needing a regex over 1000 bytes is unsupported");
		ok(fs_landing(&c, 0)->reason &&
		   strstr(fs_landing(&c, 0)->reason, "1000 bytes"),
		   "the reason names the limit: %s", fs_landing(&c, 0)->reason);
		ok(c.classified == -1 &&
		   tl_has_error(&c.diags, "is unsupported on darwin"),
		   "emit_classify refuses the table with an error");
		is_int(fs_landing(&c, 1)->kind, LANDING_KERNEL,
		       "a 991-byte subpath without letters fits");
		p = emit(&c, &(size_t){ 0 }, &c.diags);
		ok(!p, "emit_profile refuses a table with an unsupported row");
		free(p);
	}
	tl_compiled_free(&c);
	free(text);
	free(letters);
	free(digits);
}

void test_landings(void)
{
	struct tl_compiled c;
	char *p;

	if (ok(!compile_text(&c, "rw:/srv/**\n"
				 "deny:/srv/x\n"
				 "ro:/srv/**/y\n"
				 "allow:localhost:8080\n"
				 "deny:localhost:*\n"
				 "allow:localhost:9000\n"
				 "allow:api.example.com:443\n"
				 "deny:10.0.0.1\n"),
	       "deny-posture policy compiles")) {
		is_int(c.classified, 0, "nothing unsupported");
		is_int(fs_landing(&c, 1)->kind, LANDING_ABSORBED,
		       "a dead deny row is absorbed");
		ok(strstr(fs_landing(&c, 1)->reason, "dead: covered by row 0")
		   != NULL, "its reason names the covering row");
		is_int(c.landing.net[0].kind, LANDING_KERNEL,
		       "a loopback allow lands in the kernel");
		is_int(c.landing.net[2].kind, LANDING_ABSORBED,
		       "a loopback row below localhost:* is dead");
		is_int(c.landing.net[3].kind, LANDING_PROXY,
		       "a name row lands in the proxy");
		is_int(c.landing.net[4].kind, LANDING_PROXY,
		       "a non-loopback deny row lands in the proxy");
		is_int(c.landing.nreserved, 2, "two reserved proxy ports");
		if (c.landing.nreserved == 2)
			is_str(c.landing.reserved[0].entry,
			       "allow:localhost:${VBOX_PROXY_HTTP_PORT}",
			       "the HTTP proxy port is reserved");
		p = check_policy(&c, "deny posture");
		ok(p && !strstr(p, "deny:/srv/x"),
		   "the dead row is not written");
		ok(p && strstr(p, "(param \"VBOX_PROXY_SOCKS_PORT\")"),
		   "the SOCKS port is an SBPL parameter");
		ok(p && !strstr(p, "local ip \"localhost:8080"),
		   "outbound rows never use local ip");
		free(p);
	}
	tl_compiled_free(&c);

	if (ok(!compile_text(&c, "allow:localhost:5432\nrw:/srv/**\n"),
	       "loopback-only policy compiles")) {
		is_int(c.landing.nreserved, 0, "no proxy, no reserved ports");
		p = check_policy(&c, "loopback only");
		ok(p && !strstr(p, "(param "), "no parameter to pass");
		free(p);
	}
	tl_compiled_free(&c);

	if (ok(!compile_text(&c, "@default net open\n"
				 "@default write rw\n"
				 "deny:localhost:22\n"
				 "allow:api.example.com\n"
				 "deny:/etc/**\n"),
	       "open-posture policy compiles")) {
		is_int(c.landing.net[0].kind, LANDING_UNSUPPORTED,
		       "open posture: a loopback deny is unsupported (seatbelt's "
		       "localhost is not all of 127.0.0.0/8)");
		is_int(c.landing.net[1].kind, LANDING_ABSORBED,
		       "open posture: a non-loopback allow is absorbed");
		is_int(c.landing.nreserved, 0, "open posture: no proxy");
	}
	tl_compiled_free(&c);

	if (ok(!compile_text(&c, "@default net open\n"
				 "@default write rw\n"
				 "allow:localhost:22\n"
				 "deny:/etc/**\n"),
	       "open-posture policy with a loopback allow compiles")) {
		is_int(c.landing.net[0].kind, LANDING_ABSORBED,
		       "open posture: a loopback allow is absorbed");
		free(check_policy(&c, "open posture"));
	}
	tl_compiled_free(&c);

	if (ok(!compile_text(&c, "@default net open\ndeny:evil.example.com\n"),
	       "open posture with a name deny compiles")) {
		is_int(c.landing.net[0].kind, LANDING_UNSUPPORTED,
		       "open posture: a non-loopback deny is unsupported");
		ok(c.classified == -1 &&
		   tl_has_error(&c.diags, "row 0 'deny:evil.example.com:*' is "
			     "unsupported on darwin"),
		   "the error names the row and the target");
	}
	tl_compiled_free(&c);
}

/* ---- (c) policies with levels ---- */

static const struct {
	const char *name;
	const char *text;
} policies[] = {
	{ "levels",
	  "rw:/srv/work/**\n"
	  "!deny:/srv/work/secret\n"
	  "!!ro:/srv/work/secret/public\n"
	  "deny:/srv/work/tmp\n" },
	{ "read-only hole in a writable root",
	  "rw:/Users/Dev/Project/**\n"
	  "!ro:/Users/Dev/Project/.git/**\n"
	  "!!rw:/Users/Dev/Project/.git/index.lock\n"
	  "deny:**/.ssh/**\n"
	  "!!!deny:**/*.pem\n" },
	{ "symlinked prefixes",
	  "rw:/tmp/**\n"
	  "!deny:/private/tmp/secret\n"
	  "ro:/private/var/db/**\n"
	  "!!rw:/var/db/scratch\n"
	  "deny:/etc/ssh\n"
	  "!rw:/private/*/shared/**\n"
	  "deny:/*/hidden\n" },
	{ "wildcards and case",
	  "@default write rw\n"
	  "deny:/Srv/*.KEY\n"
	  "!ro:/srv/pub/?\n"
	  "!!deny:/srv/pub/\xc3\xa9\n"
	  "rw:/srv/**/cache/**\n"
	  "!deny:/srv/cache/*.lock\n"
	  "ro:/srv/a.b+c(d)/**\n" },
	{ "doc/targets.md worked example",
	  "rw:/Users/dev/proj/**\n"
	  "!deny:/Users/dev/proj/.env\n"
	  "!ro:/Users/dev/proj/.git/**\n"
	  "!deny:**/*.pem\n"
	  "rw:/tmp/build\n"
	  "allow:localhost:5432\n"
	  "allow:github.com:443\n" },
	{ "everything under a private glob",
	  "deny:/private/**/k\n"
	  "!rw:/home/**/.env\n"
	  "rw:/home/*/work\n"
	  "!!deny:/home/tester/work/x?\n" },
};

void test_policies(void)
{
	size_t i;

	for (i = 0; i < array_size(policies); i++) {
		struct tl_compiled c;

		if (ok(!compile_text(&c, policies[i].text) && !c.classified,
		       "policy '%s' compiles for darwin", policies[i].name))
			free(check_policy(&c, policies[i].name));
		tl_compiled_free(&c);
	}
}

/*
 * A variable may hold any byte but NUL: whatever reaches a comment or a
 * string must not end it early and inject a rule.
 */
void test_injection(void)
{
	static const char *const defines[] = {
		"X=/srv/a\n(allow default)\n;\"",
	};
	const struct tl_source src = {
		.text = "deny:$X/k\nrw:\"$X/*\"\n",
		.target = "darwin",
		.defines = defines,
		.ndefines = array_size(defines),
		.flags = TL_CLASSIFY,
	};
	struct tl_compiled c;
	char *p;

	if (tl_compile_source(&c, &src)) {
		ok(1, "# SKIP a newline in a variable is refused earlier");
		tl_compiled_free(&c);
		return;
	}
	p = check_policy(&c, "newline in a variable");
	ok(p && !strstr(p, "\n(allow default)"),
	   "the variable's newline is escaped, no rule injected");
	free(p);
	tl_compiled_free(&c);
}

/* ---- (a) every darwin case in testdata/ ---- */

static void run_case(const struct tl_case *tc, void *ctx)
{
	const struct tl_source src = {
		.path = tc->path,
		.target = "darwin",
		.defines = tc->defines,
		.ndefines = tc->ndefines,
		.flags = TL_CLASSIFY,
	};
	struct tl_compiled c;

	(void)ctx;
	if (!ok(!tl_compile_source(&c, &src), "%s compiles for darwin",
		tc->name)) {
		tl_compiled_free(&c);
		return;
	}
	if (c.classified) {
		/* Refused rows must come with their errors, nothing else. */
		ok(tl_has_error(&c.diags, "is unsupported on darwin"),
		   "%s: unsupported on darwin, with an error per row",
		   tc->name);
	} else {
		free(check_policy(&c, tc->name));
	}
	tl_compiled_free(&c);
}

void test_cases(void)
{
	struct tl_cases cases;

	if (tl_cases_open(&cases)) {
		ok(1, "# SKIP no testdata directory at %s", cases.dir);
		tl_cases_free(&cases);
		return;
	}
	ok(cases.n > 0, "found %zu ok cases in %s", cases.n, cases.dir);
	if (tl_cases_foreach(&cases, "darwin", run_case, NULL))
		ok(0, "every case in %s is readable", cases.dir);
	tl_cases_free(&cases);
}
