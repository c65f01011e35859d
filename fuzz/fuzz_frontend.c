/* SPDX-License-Identifier: MIT */
/*
 * fuzz_frontend.c - libFuzzer harness for the whole front end.
 *
 * One input is one rule file preceded by one byte that picks the target
 * (byte % 3: linux, darwin, windows).  The file goes through the same steps
 * as "vboxc check": load_buffer() (encoding checks, scanner, parser,
 * @include expansion), table_build() (directives, domains, variables,
 * guardrails, indexes) and shadow_analyze(); the diagnostics are then
 * printed to /dev/null so the caret and source-line code runs too.  All
 * memory is released, so LeakSanitizer reports any leak as a crash.
 *
 * Build and run with "make fuzz" (needs clang); see Makefile.am.
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "ir.h"
#include "load.h"
#include "location.h"
#include "shadow.h"
#include "stmt.h"
#include "target.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const fuzz_targets[] = { "linux", "darwin", "windows" };

/*
 * Fixed variables so a run never depends on the fuzzing host's environment
 * or passwd entry: the same input always takes the same path.  EMPTY and
 * WILD are there to reach the errors for an empty value and a value that
 * would add a wildcard.
 */
static const char *const fuzz_defines[] = {
	"HOME=/home/fuzz",
	"USERPROFILE=C:\\Users\\fuzz",
	"XDG_CONFIG_HOME=/home/fuzz/.config",
	"AppData=C:\\Users\\fuzz\\AppData\\Roaming",
	"WORK=/srv/work",
	"EMPTY=",
	"WILD=/srv/*",
};

static FILE *fuzz_null;
static int fuzz_home_fd = -1;	/* the fixture directory */
static int fuzz_cwd_fd = -1;	/* where libFuzzer was started */
static char *fuzz_home;		/* path of the fixture directory */

/* Small files an input may @include; loading runs inside their dir. */
static const struct {
	const char *name;
	const char *text;
} fuzz_fixtures[] = {
	{ "a.rules", "rw:/srv/work/**\n!deny:/srv/work/secret\n" },
	{ "b.rules", "[net]\nallow:*.example.com:443\n@include \"a.rules\"\n" },
	{ "self.rules", "ro:/etc\n@include \"self.rules\"\n" },
	{ "bad.rules", "DENY:/x\n\"unterminated\n" },
};

static int fuzz_write_file(const char *name, const char *text)
{
	FILE *f = fopen(name, "w");
	int ret = 0;

	if (!f)
		return -1;
	if (fputs(text, f) == EOF)
		ret = -1;
	if (fclose(f) == EOF)
		ret = -1;
	return ret;
}

/* Remove the fixture directory when the run ends normally. */
static void fuzz_cleanup(void)
{
	size_t i;
	char *path;

	for (i = 0; i < array_size(fuzz_fixtures); i++) {
		path = xasprintf("%s/%s", fuzz_home, fuzz_fixtures[i].name);
		unlink(path);
		free(path);
	}
	rmdir(fuzz_home);
	free(fuzz_home);
	fuzz_home = NULL;
}

static __noreturn void fuzz_die(const char *what)
{
	fprintf(stderr, "fuzz_frontend: %s: %s\n", what, strerror(errno));
	abort();
}

/*
 * Loading runs in a private directory holding only the fixtures:
 * load_buffer() resolves a relative @include against the working
 * directory, and an input must never reach the host's real files (see
 * fuzz_input_safe()).  Everything else runs where libFuzzer was started,
 * so relative corpus and artifact paths keep working.
 */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");
	size_t i;

	(void)argc;
	(void)argv;
	if (!tmp || !*tmp)
		tmp = "/tmp";
	fuzz_home = xasprintf("%s/vbox-fuzz-XXXXXX", tmp);
	fuzz_cwd_fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fuzz_cwd_fd < 0)
		fuzz_die(".");
	if (!mkdtemp(fuzz_home))
		fuzz_die(fuzz_home);
	if (atexit(fuzz_cleanup) != 0)
		fuzz_die("atexit");
	if (chdir(fuzz_home) != 0)
		fuzz_die(fuzz_home);
	fuzz_home_fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fuzz_home_fd < 0)
		fuzz_die(fuzz_home);
	for (i = 0; i < array_size(fuzz_fixtures); i++) {
		if (fuzz_write_file(fuzz_fixtures[i].name,
				    fuzz_fixtures[i].text) != 0) {
			fprintf(stderr, "fuzz_frontend: writing %s: %s\n",
				fuzz_fixtures[i].name, strerror(errno));
			abort();
		}
	}
	if (fchdir(fuzz_cwd_fd) != 0)
		fuzz_die("returning to the working directory");
	fuzz_null = fopen("/dev/null", "w");
	if (!fuzz_null)
		fuzz_die("/dev/null");
	return 0;
}

/*
 * Reject inputs whose @include could leave the fixture directory: a path
 * with '/' or '\' could name /dev/zero, a FIFO or a huge file, which would
 * turn the fuzzer into a test of the host.  Relative names without a
 * separator stay inside the directory ("", "." and ".." are directories
 * and must be rejected by the loader, which is worth fuzzing).
 */
static bool fuzz_input_safe(const char *buf, size_t len)
{
	static const char kw[] = "@include";
	const size_t kwlen = sizeof(kw) - 1;
	size_t i, j;

	for (i = 0; i + kwlen <= len; i++) {
		if (memcmp(buf + i, kw, kwlen) != 0)
			continue;
		for (j = i + kwlen; j < len && buf[j] != '\n' &&
		     buf[j] != '\r'; j++) {
			if (buf[j] == '/' || buf[j] == '\\')
				return false;
		}
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input_set inputs = { 0 };
	struct stmt_list stmts = { 0 };
	struct diag_list diags;
	struct compile_opts opts = { 0 };
	struct table *table = NULL;
	const char *buf;
	size_t len, i;
	int loaded;

	if (size < 1)
		return 0;
	buf = (const char *)data + 1;
	len = size - 1;
	if (!fuzz_input_safe(buf, len))
		return -1;	/* libFuzzer: do not add to the corpus */

	opts.target = target_lookup(fuzz_targets[data[0] % 3]);
	if (!opts.target)
		abort();
	opts.vars.defines = fuzz_defines;
	opts.vars.ndefines = array_size(fuzz_defines);
	opts.vars.environ = NULL;
	opts.vars.home_override = "/home/fuzz";

	diag_list_init(&diags);
	diags.max_errors = DIAG_DEFAULT_MAX_ERRORS;

	/* The same sequence as vboxc check: build only what loaded cleanly. */
	if (fchdir(fuzz_home_fd) != 0)
		fuzz_die("entering the fixture directory");
	loaded = load_buffer(&inputs, "fuzz.rules", buf, len, &stmts, &diags);
	if (fchdir(fuzz_cwd_fd) != 0)
		fuzz_die("returning to the working directory");
	if (loaded == 0 && diags.nerrors == 0) {
		table = table_build(&stmts, &opts, &diags);
		if (table) {
			shadow_analyze(table, &diags);
			for (i = 0; i < table->nfindings; i++)
				free(finding_message(&table->findings[i]));
		}
	}
	diag_print(fuzz_null, &diags, "fuzz_frontend");

	table_free(table);
	stmt_list_free(&stmts);
	diag_list_free(&diags);
	input_set_free(&inputs);
	return 0;
}
