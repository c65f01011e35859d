/* SPDX-License-Identifier: MIT */
/*
 * testlib.h - the fixture the C unit tests share: compile a policy (rules
 * text or a rules file) for a target into a table, optionally analysed
 * and classified, and walk the testdata/ok_*.rules cases of a target.
 *
 * Nothing here prints a TAP point: tap.h keeps its counter per program
 * file, so every test point stays in the test that makes it.  The library
 * only returns results (and prints "# " comment lines on failure).
 */
#ifndef VBOX_TESTLIB_H
#define VBOX_TESTLIB_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"
#include "emit.h"
#include "load.h"
#include "stmt.h"

/* The home directory of the default test environment. */
#define TL_HOME "/home/tester"

/* The default test environment: only "HOME=" TL_HOME, NULL-terminated. */
extern char *const tl_environ[];

/**
 * enum tl_flags - what tl_compile() does besides load and table_build()
 * @TL_SHADOW: run shadow_analyze(), so row->shadowed_by and the table's
 *             findings are set and shadowing warnings are queued
 * @TL_CLASSIFY: run emit_classify() with the target's emitter into
 *               tl_compiled.landing and keep its result in
 *               tl_compiled.classified; implies @TL_SHADOW, which every
 *               classifier relies on
 * @TL_LANDINGS: run only the target emitter's classify hook into
 *               tl_compiled.landing: the landings and their reasons, with
 *               no error records queued and no table check, so a test
 *               can count what the emitter itself queues; implies
 *               @TL_SHADOW (ignored with @TL_CLASSIFY)
 * @TL_QUIET: on failure, do not print the diagnostics; for callers that
 *            expect failures or report them their own way
 */
enum tl_flags {
	TL_SHADOW = 1u << 0,
	TL_CLASSIFY = 1u << 1,
	TL_LANDINGS = 1u << 2,
	TL_QUIET = 1u << 3,
};

/**
 * struct tl_source - one policy to compile and how its variables expand
 * @text: the rules, loaded as one in-memory file named "t.rules"; NULL to
 *        load @path instead
 * @path: a rules file, loaded with load_rules() so that '@include'
 *        resolves relative to it and locations name it
 * @target: the target's name: "linux", "darwin" or "windows"
 * @defines: "NAME=VALUE" definitions, consulted before the environment
 *           (borrowed)
 * @ndefines: number of @defines
 * @environ: the environment ("NAME=VALUE", NULL-terminated); NULL means
 *           tl_environ
 * @flags: enum tl_flags
 */
struct tl_source {
	const char *text;
	const char *path;
	const char *target;
	const char *const *defines;
	size_t ndefines;
	char *const *environ;
	unsigned flags;
};

/**
 * struct tl_compiled - one compiled policy and everything its table borrows
 * @inputs: the loaded input files, which locations point into
 * @stmts: the statements, which the table's rows point into
 * @diags: every record queued while compiling; tests hand &diags to later
 *         calls (emitters) too
 * @table: the table, NULL when loading or building failed
 * @landing: the classification with TL_CLASSIFY or TL_LANDINGS; zeroed
 *           otherwise, for a test to fill itself (freed either way)
 * @classified: with TL_CLASSIFY, emit_classify()'s result: 0, or -1 when
 *              a row or the table is unsupported on the target; else 0
 */
struct tl_compiled {
	struct input_set inputs;
	struct stmt_list stmts;
	struct diag_list diags;
	struct table *table;
	struct landing_set landing;
	int classified;
};

/*
 * tl_compile_source - load @src, build its table for @src->target and run
 * what @src->flags ask for.  Returns 0, or -1 when loading or building
 * failed; then the diagnostics are printed to stdout as "# test: ..."
 * comment lines unless TL_QUIET is set, and stay in @c->diags.  Call
 * tl_compiled_free() on @c either way.  An unknown target is a bug.
 */
int tl_compile_source(struct tl_compiled *c, const struct tl_source *src);

/*
 * tl_compile - tl_compile_source() for rules @text on @target in the
 * default environment, with no definitions.
 */
int tl_compile(struct tl_compiled *c, const char *text, const char *target,
	       unsigned flags);

/* tl_compiled_free - free everything @c holds; safe after a failure. */
void tl_compiled_free(struct tl_compiled *c);

/* tl_has_error - does @d hold an error whose message contains @needle? */
bool tl_has_error(const struct diag_list *d, const char *needle);

/**
 * struct tl_case - one testdata/ok_*.rules case whose "# TARGETS:" header
 *                  lists the target being walked
 * @name: the file name, "ok_topic_n.rules"
 * @path: the file's path, "DIR/NAME" with DIR from struct tl_cases
 * @text: the whole file, NUL-terminated
 * @defines: the words of its "# DEFINES:" header, "NAME=VALUE" each, for
 *           struct tl_source
 * @ndefines: number of @defines (0 without the header)
 */
struct tl_case {
	const char *name;
	const char *path;
	const char *text;
	const char *const *defines;
	size_t ndefines;
};

/**
 * struct tl_cases - the ok_*.rules files of the testdata directory
 * @dir: "$srcdir/testdata", or "./testdata" when $srcdir is not set
 * @names: the file names in strcmp() order, so that the TAP output does
 *         not depend on the file system's directory order (owned)
 * @n: number of @names
 */
struct tl_cases {
	char *dir;
	char **names;
	size_t n;
};

/*
 * tl_cases_open - list the ok_*.rules files of the testdata directory into
 * @cases.  Returns 0, or -1 when the directory cannot be opened (@cases
 * then holds only @dir, for the message).  Free with tl_cases_free()
 * either way.
 */
int tl_cases_open(struct tl_cases *cases);

/*
 * tl_cases_foreach - call @fn for every case of @cases, in order, whose
 * "# TARGETS:" header names @target; the case is only valid during the
 * call.  Headers are the leading lines that start with '#'.  A file that
 * cannot be read, or is larger than 1 MiB, is skipped with a "# " line on
 * stdout.  Returns the number of files skipped so (0 when all were read),
 * for the caller to fail a test point on.
 */
size_t tl_cases_foreach(const struct tl_cases *cases, const char *target,
			void (*fn)(const struct tl_case *tc, void *ctx),
			void *ctx);

/* tl_cases_free - free the names and directory of @cases. */
void tl_cases_free(struct tl_cases *cases);

#endif /* VBOX_TESTLIB_H */
