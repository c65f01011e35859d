// SPDX-License-Identifier: MIT
/*
 * cli_options.c - the vboxc command line: the one option table both the
 * parser and every subcommand's --help read, getopt_long around it
 * (single-dash -Werror, did-you-mean hints for unknown options, values
 * checked as they are parsed) and cli_command_main(), which runs a
 * subcommand on the parsed options.
 */
#include <vbox.h>

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>

#include <vbox/vbox.h>

#include "cli.h"
#include "grow.h"
#include "misspell.h"
#include "target.h"

/* getopt_long values of the long-only options. */
enum {
	OPT_TARGET = 0x100,
	OPT_WERROR,
	OPT_FORMAT,
	OPT_VERSION,
	OPT_READ,
	OPT_WRITE,
	OPT_NET,
	OPT_QUERIES,
	OPT_FOLLOW,
	OPT_NO_FOLLOW,
	OPT_EMIT,
	OPT_MAX_ERRORS,
	OPT_PER_ROW,
	OPT_MODE,
	OPT_ACCEPT_NARROWER,
	OPT_SOURCE_ROOT,
};

/* Spelled with one dash ("-Werror"), like the compilers' option. */
#define CLI_OPTF_ONE_DASH 0x100u

/**
 * struct cli_option - one option: what the parser accepts and what the
 * help says about it, in one place
 * @name: the long name
 * @short_name: the one-letter name, or 0
 * @has_arg: getopt_long's no_argument or required_argument
 * @val: what getopt_long returns for it
 * @arg: the placeholder of its value in the help ("FILE"), or NULL
 * @help: help text lines, '\n'-separated; NULL: the command's format_help
 * @flags: CLI_OPT_* group the command must accept (0: every command),
 *         plus CLI_OPTF_ONE_DASH
 */
struct cli_option {
	const char *name;
	int short_name;
	int has_arg;
	int val;
	const char *arg;
	const char *help;
	unsigned flags;
};

/*
 * Every option of every command, in the order the help lists them.
 * Options a command does not accept are left out of its getopt table, so
 * getopt reports them as unknown instead of silently ignoring them
 * (compile has --emit, not --format).
 */
static const struct cli_option cli_options[] = {
	{ "read", 0, required_argument, OPT_READ, "PATH",
	  "may PATH be read?", CLI_OPT_QUERIES },
	{ "write", 0, required_argument, OPT_WRITE, "PATH",
	  "may PATH be written?", CLI_OPT_QUERIES },
	{ "net", 0, required_argument, OPT_NET, "HOST[:PORT]",
	  "may HOST be connected to?", CLI_OPT_QUERIES },
	{ "queries", 0, required_argument, OPT_QUERIES, "FILE",
	  "one query a line: 'read PATH',\n'write PATH' or 'net HOST:PORT';\n"
	  "blank and '#' lines are skipped", CLI_OPT_QUERIES },
	{ "follow", 0, no_argument, OPT_FOLLOW, NULL,
	  "resolve symbolic links in every\ncomponent of queried paths",
	  CLI_OPT_QUERIES },
	{ "no-follow", 0, no_argument, OPT_NO_FOLLOW, NULL,
	  "... in every component but the last", CLI_OPT_QUERIES },
	{ "target", 0, required_argument, OPT_TARGET, "TARGET",
	  "darwin, linux or windows\n(default: the host platform)", 0 },
	{ "mode", 0, required_argument, OPT_MODE, "MODE",
	  "linux only: how vbox-exec launches:\nns (namespaces; the default) "
	  "or\ncontainer (vbox-exec --mode=container:\nLandlock, seccomp, "
	  "the socket and\npath supervisors, no namespaces)",
	  CLI_OPT_MODE },
	{ "accept-narrower", 0, no_argument, OPT_ACCEPT_NARROWER, NULL,
	  "with --mode=container: deny rows\nand holes held by Landlock "
	  "alone,\nnarrower (notes), where no row\nneeds the path supervisor "
	  "(as\nvbox-exec --accept-narrower)",
	  CLI_OPT_MODE },
	{ "emit", 0, required_argument, OPT_EMIT, "WHAT",
	  "profile (default): the SBPL profile\n(darwin), bwrap argument "
	  "list (linux,\nNUL-separated) or ACL plan JSON\n(windows); plan: "
	  "plan.bin for\nvbox-exec (binary); ir: the table as\nJSON; "
	  "table: the table as the target\nenforces it (text, to "
	  "golden-diff)",
	  CLI_OPT_COMPILE },
	{ "source-root", 0, required_argument, OPT_SOURCE_ROOT, "DIR",
	  "name rule files in the artifact's\nlocations relative to DIR "
	  "(default:\nthe first rule file's directory;\nlibrary files are "
	  "'<NAME>')", CLI_OPT_COMPILE },
	{ "per-row", 0, no_argument, OPT_PER_ROW, NULL,
	  "one text line per row, not grouped\nby reason", CLI_OPT_PREFLIGHT },
	{ "output", 'o', required_argument, 'o', "FILE",
	  "write to FILE, replaced only when the\ncompile succeeds "
	  "(default or '-':\nstandard output; a plan is never\nwritten to "
	  "a terminal)", CLI_OPT_COMPILE },
	{ "define", 'D', required_argument, 'D', "NAME=VALUE",
	  "variable for pattern expansion\n(repeatable; the last one wins)",
	  0 },
	{ "include-dir", 'I', required_argument, 'I', "DIR",
	  "search DIR for '@include <NAME>'\n(repeatable, in order, before "
	  "the\ninstalled rule library)", 0 },
	{ "Werror", 0, no_argument, OPT_WERROR, NULL,
	  "treat warnings as errors", CLI_OPTF_ONE_DASH },
	{ "max-errors", 0, required_argument, OPT_MAX_ERRORS, "N",
	  "show at most N errors, then count\nthe rest (default 20; 0: all)",
	  0 },
	{ "format", 0, required_argument, OPT_FORMAT, "FORMAT", NULL,
	  CLI_OPT_FORMAT },
	{ "help", 'h', no_argument, 'h', NULL,
	  "print this help and exit", 0 },
	{ "version", 0, no_argument, OPT_VERSION, NULL,
	  "print the version and exit", 0 },
};

static const char *const format_names[] = {
	[CLI_FORMAT_TEXT] = "text",
	[CLI_FORMAT_JSON] = "json",
	[CLI_FORMAT_SARIF] = "sarif",
};


static bool accepts(const struct cli_command *cmd, const struct cli_option *o)
{
	unsigned group = o->flags & ~CLI_OPTF_ONE_DASH;

	return group == 0 || (cmd->flags & group);
}

/* The getopt_long table of @cmd, terminated by a zero entry. */
static struct option *build_options(const struct cli_command *cmd)
{
	struct option *opts;
	size_t i, n = 0;

	opts = xcalloc(array_size(cli_options) + 1, sizeof(*opts));
	for (i = 0; i < array_size(cli_options); i++) {
		if (!accepts(cmd, &cli_options[i]))
			continue;
		opts[n].name = cli_options[i].name;
		opts[n].has_arg = cli_options[i].has_arg;
		opts[n].val = cli_options[i].val;
		n++;
	}
	return opts;
}

/*
 * The short options of @cmd for getopt_long (caller frees): ':' first,
 * for quiet errors, then each letter, with ':' when it takes a value.
 */
static char *short_options(const struct cli_command *cmd)
{
	char *s = xmalloc(2 * array_size(cli_options) + 2), *w = s;
	size_t i;

	*w++ = ':';
	for (i = 0; i < array_size(cli_options); i++) {
		const struct cli_option *o = &cli_options[i];

		if (!o->short_name || !accepts(cmd, o))
			continue;
		*w++ = (char)o->short_name;
		if (o->has_arg == required_argument)
			*w++ = ':';
	}
	*w = '\0';
	return s;
}

/* Column where the help text of an option starts. */
#define HELP_COL 27

/* One option's help: "  -D, --define=NAME=VALUE  text..." */
static void print_option_help(const struct cli_command *cmd,
			      const struct cli_option *o, FILE *out)
{
	const char *help = o->help ? o->help : cmd->format_help;
	const char *line, *nl;
	int width;

	if (o->short_name)
		width = fprintf(out, "  -%c, ", o->short_name);
	else
		width = fprintf(out, "      ");
	width += fprintf(out, "%s%s%s%s",
			 (o->flags & CLI_OPTF_ONE_DASH) ? "-" : "--", o->name,
			 o->arg ? "=" : "", o->arg ? o->arg : "");
	for (line = help ? help : ""; ; line = nl + 1) {
		nl = strchr(line, '\n');
		if (width >= HELP_COL - 1) {
			fputc('\n', out);
			width = 0;
		}
		fprintf(out, "%*s%.*s\n", HELP_COL - width, "",
			nl ? (int)(nl - line) : (int)strlen(line), line);
		width = 0;
		if (!nl)
			break;
	}
}

void cli_print_help(const struct cli_command *cmd, FILE *out)
{
	size_t i;

	fprintf(out, "Usage: %s %s\n%s\n", CLI_PROGNAME, cmd->synopsis,
		cmd->description);
	if (cmd->flags & CLI_OPT_QUERIES) {
		fprintf(out, "Queries (repeatable, at least one):\n");
		for (i = 0; i < array_size(cli_options); i++)
			if (cli_options[i].flags & CLI_OPT_QUERIES)
				print_option_help(cmd, &cli_options[i], out);
		fputc('\n', out);
	}
	fprintf(out, "Options:\n");
	for (i = 0; i < array_size(cli_options); i++)
		if (accepts(cmd, &cli_options[i]) &&
		    !(cli_options[i].flags & CLI_OPT_QUERIES))
			print_option_help(cmd, &cli_options[i], out);
	if (cmd->notes)
		fprintf(out, "\n%s", cmd->notes);
}

/*
 * Does the argument @arg consume the next argument as its value?  Used
 * only to keep "-Werror" rewriting away from option values ("-D -Werror",
 * "-o -Werror").  @shortopts is the getopt string.  Abbreviated long
 * options count when they prefix an option that takes a value.
 */
static bool takes_separate_value(const char *arg, const char *shortopts,
				 const struct option *opts)
{
	const char *p, *o;
	size_t len;

	if (arg[0] != '-' || arg[1] == '\0')
		return false;
	if (arg[1] != '-') {
		/*
		 * A short cluster ("-hD X"): the first option that takes a
		 * value ends it, with the rest of the cluster or the next
		 * argument as that value.
		 */
		for (p = arg + 1; *p; p++) {
			o = *p == ':' ? NULL : strchr(shortopts, *p);
			if (o && o[1] == ':')
				return p[1] == '\0';
		}
		return false;
	}
	if (strchr(arg, '='))
		return false;
	len = strlen(arg + 2);
	if (len == 0)
		return false;
	for (; opts->name; opts++)
		if (opts->has_arg == required_argument &&
		    strncmp(opts->name, arg + 2, len) == 0)
			return true;
	return false;
}


static int set_target(const struct cli_command *cmd, struct cli_opts *o,
		      const char *arg)
{
	const char *hint;

	o->target = target_lookup(arg);
	o->target_given = true;
	if (o->target)
		return 0;
	hint = target_suggest(arg);
	if (hint)
		return cli_usage_error(cmd, "unknown target '%s' (expected %s); "
				       "did you mean '%s'?", arg,
				       target_names(), hint);
	return cli_usage_error(cmd, "unknown target '%s' (expected %s)", arg,
			       target_names());
}

/* "unknown WHAT 'ARG' (expected A|B...)" with a did-you-mean hint. */
static int value_error(const struct cli_command *cmd, const char *what,
		       const char *arg, const char *const *names, size_t n)
{
	const char *hint = misspell_suggest(arg, strlen(arg), names, n);
	char *list = xstrdup(names[0]), *t;
	size_t i;
	int ret;

	for (i = 1; i < n; i++) {
		t = xasprintf("%s|%s", list, names[i]);
		free(list);
		list = t;
	}
	if (hint)
		ret = cli_usage_error(cmd, "unknown %s '%s' (expected %s); did "
				      "you mean '%s'?", what, arg, list, hint);
	else
		ret = cli_usage_error(cmd, "unknown %s '%s' (expected %s)",
				      what, arg, list);
	free(list);
	return ret;
}

static int set_format(const struct cli_command *cmd, struct cli_opts *o,
		      const char *arg)
{
	const char *names[array_size(format_names)];
	size_t i, n = 0;

	for (i = 0; i < array_size(format_names); i++) {
		if (!(cmd->formats & CLI_FORMATS(i)))
			continue;
		if (strcmp(arg, format_names[i]) == 0) {
			o->format = (enum cli_format)i;
			return 0;
		}
		names[n++] = format_names[i];
	}
	if (n == 0)
		return cli_usage_error(cmd, "unknown format '%s'", arg);
	return value_error(cmd, "format", arg, names, n);
}

static int add_include_dir(const struct cli_command *cmd,
			   struct cli_opts *o, const char *arg)
{
	if (arg[0] == '\0')
		return cli_usage_error(cmd, "empty include directory name");
	GROW(o->include_dirs, o->include_dirs_cap, o->ninclude_dirs + 1);
	o->include_dirs[o->ninclude_dirs++] = arg;
	return 0;
}

static int set_emit(const struct cli_command *cmd, struct cli_opts *o,
		    const char *arg)
{
	static const char *const modes[] = { "profile", "plan", "ir",
					     "table" };

	if (strcmp(arg, "profile") == 0)
		o->emit = CLI_EMIT_PROFILE;
	else if (strcmp(arg, "plan") == 0)
		o->emit = CLI_EMIT_PLAN;
	else if (strcmp(arg, "ir") == 0)
		o->emit = CLI_EMIT_IR;
	else if (strcmp(arg, "table") == 0)
		o->emit = CLI_EMIT_TABLE;
	else
		return value_error(cmd, "emit mode", arg, modes,
				   array_size(modes));
	return 0;
}

static int set_max_errors(const struct cli_command *cmd, struct cli_opts *o,
			  const char *arg)
{
	unsigned long n;
	char *end;

	errno = 0;
	if (arg[0] < '0' || arg[0] > '9')
		return cli_usage_error(cmd, "invalid error count '%s' "
				       "(expected a number, 0 for no cap)",
				       arg);
	n = strtoul(arg, &end, 10);
	if (errno || *end || n > 1000000)
		return cli_usage_error(cmd, "invalid error count '%s' "
				       "(expected 0 to 1000000)", arg);
	o->max_errors = n;
	return 0;
}

static int set_mode(const struct cli_command *cmd, struct cli_opts *o,
		    const char *arg)
{
	static const char *const modes[] = { "ns", "container" };

	if (strcmp(arg, "ns") == 0)
		o->mode = CLI_MODE_NS;
	else if (strcmp(arg, "container") == 0)
		o->mode = CLI_MODE_CONTAINER;
	else
		return value_error(cmd, "mode", arg, modes,
				   array_size(modes));
	o->mode_given = true;
	return 0;
}

static int add_define(const struct cli_command *cmd, struct cli_opts *o,
		      const char *arg)
{
	const char *eq = strchr(arg, '=');

	if (!eq || eq == arg)
		return cli_usage_error(cmd, "invalid definition '%s' %s", arg,
				       "(expected NAME=VALUE)");
	GROW(o->defines, o->defines_cap, o->ndefines + 1);
	o->defines[o->ndefines++] = arg;
	return 0;
}

/* Does the long option @arg ("--na[=v]") abbreviate several options? */
static bool is_ambiguous(const char *arg, const struct option *opts)
{
	size_t len, n = 0;

	if (strncmp(arg, "--", 2) != 0)
		return false;
	arg += 2;
	len = strcspn(arg, "=");
	for (; opts->name; opts++)
		if (strncmp(opts->name, arg, len) == 0)
			n++;
	return n > 1;
}

/* The long option an unknown "--name[=v]" @arg probably means, or NULL. */
static const char *option_suggest(const char *arg,
				  const struct option *opts)
{
	const char *names[64];
	size_t n = 0;

	if (strncmp(arg, "--", 2) != 0)
		return NULL;
	for (; opts->name && n < array_size(names); opts++)
		names[n++] = opts->name;
	return misspell_suggest(arg + 2, strcspn(arg + 2, "="), names, n);
}

/*
 * Single-dash misspellings.  getopt_long reads "-Werrror" as the short
 * options W, e, r ... and would report only "-W".  parse_args() rewrites
 * a single-dash word whose first letter is no short option of the
 * command, when some option's name is near it, to TYPO_MARK followed by
 * the word: getopt_long then rejects it as an unknown long option at its
 * own place in the argument order, and option_error() names the word as
 * typed with the option it probably means.  The mark holds a byte no
 * option name has.
 */
#define TYPO_MARK "--\x01"

/*
 * The option the word @word ("Werrror", "target=linux": an argument
 * without its dash) probably means, of those @cmd accepts, or NULL.
 */
static const struct cli_option *single_dash_suggest(
	const struct cli_command *cmd, const char *word)
{
	const char *names[array_size(cli_options)], *hint;
	size_t i, n = 0;

	for (i = 0; i < array_size(cli_options); i++)
		if (accepts(cmd, &cli_options[i]))
			names[n++] = cli_options[i].name;
	hint = misspell_suggest(word, strcspn(word, "="), names, n);
	for (i = 0; hint && i < array_size(cli_options); i++)
		if (cli_options[i].name == hint)
			return &cli_options[i];
	return NULL;
}

/*
 * Is @arg a single-dash word ("-Werrror", not "-W" or "-D NAME") whose
 * first letter is no short option in @shortopts, the getopt string, and
 * whose name is near one of @cmd's options?
 */
static bool single_dash_typo(const struct cli_command *cmd, const char *arg,
			     const char *shortopts)
{
	if (arg[0] != '-' || arg[1] == '\0' || arg[1] == '-' ||
	    arg[2] == '\0')
		return false;
	if (arg[1] != ':' && strchr(shortopts, arg[1]))
		return false;
	return single_dash_suggest(cmd, arg + 1) != NULL;
}

/* Report a word parse_args() marked as a single-dash misspelling. */
static int single_dash_error(const struct cli_command *cmd, const char *word)
{
	const struct cli_option *o = single_dash_suggest(cmd, word);
	size_t len = strcspn(word, "=");
	bool one_dash;

	if (!o)
		BUG("marked option '-%s' has no suggestion", word);
	one_dash = o->flags & CLI_OPTF_ONE_DASH;
	/* "-Werror=yes": the option is right, the value is not. */
	if (one_dash && o->has_arg == no_argument && word[len] == '=' &&
	    strlen(o->name) == len && strncmp(o->name, word, len) == 0)
		return cli_usage_error(cmd, "option '-%s' takes no argument",
				       o->name);
	return cli_usage_error(cmd, "unknown option '-%.*s'; did you mean "
			       "'%s%s'?", (int)len, word,
			       one_dash ? "-" : "--", o->name);
}

/* Report getopt's '?' or ':' for the argument vector @args. */
static int option_error(const struct cli_command *cmd,
			const struct option *longopts, char **args, int c)
{
	const char *arg = args[optind - 1], *hint;

	if (c == '?' && optopt == 0 &&
	    strncmp(arg, TYPO_MARK, strlen(TYPO_MARK)) == 0)
		return single_dash_error(cmd, arg + strlen(TYPO_MARK));
	if (c == ':') {
		if (optopt > 0 && optopt < 0x100 && strncmp(arg, "--", 2) != 0)
			return cli_usage_error(cmd, "option '-%c' %s", optopt,
					       "requires an argument");
		return cli_usage_error(cmd, "option '%s' requires an argument",
				       arg);
	}
	if (optopt == 0 && !is_ambiguous(arg, longopts) &&
	    (hint = option_suggest(arg, longopts)))
		return cli_usage_error(cmd, "unknown option '%.*s'; did you "
				       "mean '--%s'?", (int)strcspn(arg, "="),
				       arg, hint);
	if (optopt == 0)
		return cli_usage_error(cmd, "%s option '%.*s'",
				       is_ambiguous(arg, longopts) ?
				       "ambiguous" : "unknown",
				       (int)strcspn(arg, "="), arg);
	if (optopt >= 0x100)
		return cli_usage_error(cmd, "option '%.*s' takes no argument",
				       (int)strcspn(arg, "="), arg);
	return cli_usage_error(cmd, "unknown option '-%c'", optopt);
}

/*
 * One option returned by getopt_long.  Returns 0 to go on, -1 when the
 * command is done successfully (help, version), or a usage exit status.
 */
static int handle_option(const struct cli_command *cmd, struct cli_opts *o,
			 int c, const char *arg)
{
	switch (c) {
	case OPT_TARGET:
		return set_target(cmd, o, arg);
	case 'D':
		return add_define(cmd, o, arg);
	case 'I':
		return add_include_dir(cmd, o, arg);
	case OPT_WERROR:
		o->werror = true;
		return 0;
	case OPT_FORMAT:
		return set_format(cmd, o, arg);
	case OPT_EMIT:
		return set_emit(cmd, o, arg);
	case OPT_MAX_ERRORS:
		return set_max_errors(cmd, o, arg);
	case OPT_PER_ROW:
		o->per_row = true;
		return 0;
	case OPT_MODE:
		return set_mode(cmd, o, arg);
	case OPT_ACCEPT_NARROWER:
		o->accept_narrower = true;
		return 0;
	case 'o':
		if (arg[0] == '\0')
			return cli_usage_error(cmd, "empty output file name");
		o->output = arg;
		return 0;
	case OPT_SOURCE_ROOT:
		if (arg[0] == '\0')
			return cli_usage_error(cmd, "empty source root");
		o->source_root = arg;
		return 0;
	case 'h':
		cli_print_help(cmd, stdout);
		return -1;
	case OPT_VERSION:
		cli_print_version();
		return -1;
	case OPT_READ:
		o->query_given = true;
		cli_query_add_arg(o, CLI_QUERY_READ, arg);
		return 0;
	case OPT_WRITE:
		o->query_given = true;
		cli_query_add_arg(o, CLI_QUERY_WRITE, arg);
		return 0;
	case OPT_NET:
		o->query_given = true;
		cli_query_add_arg(o, CLI_QUERY_NET, arg);
		return 0;
	case OPT_QUERIES:
		o->query_given = true;
		return cli_queries_read_file(cmd, o, arg);
	case OPT_FOLLOW:
		o->resolve = true;
		o->follow_last = true;
		return 0;
	case OPT_NO_FOLLOW:
		o->resolve = true;
		o->follow_last = false;
		return 0;
	default:
		BUG("unexpected option value %d", c);
	}
}

/*
 * Parse @argc/@argv (argv[0] is the command name) into @o.  Returns 0 to
 * run the command, -1 when it is done (help, version), or a usage exit
 * status.
 */
static int parse_args(const struct cli_command *cmd, int argc, char **argv,
		      struct cli_opts *o)
{
	/* getopt_long wants writable strings; it only permutes pointers. */
	static char werror_long[] = "--Werror";
	struct option *longopts = build_options(cmd);
	char *shortopts = short_options(cmd);
	char **args = xcalloc((size_t)argc + 1, sizeof(*args));
	/* The rewritten misspellings, freed at the end (args is permuted). */
	char **marked = xcalloc((size_t)argc + 1, sizeof(*marked));
	size_t nmarked = 0;
	int i, c, status = 0;

	memset(o, 0, sizeof(*o));
	o->target = target_host();
	o->format = CLI_FORMAT_TEXT;
	o->max_errors = DIAG_DEFAULT_MAX_ERRORS;
	o->emit = CLI_EMIT_PROFILE;

	/*
	 * getopt_long knows no single-dash long options: "-Werror" becomes
	 * "--Werror", and a misspelling of an option name is marked (see
	 * TYPO_MARK), except after "--" and where it is another option's
	 * value.
	 */
	for (i = 0; i < argc; i++) {
		args[i] = argv[i];
		if (i == 0)
			continue;
		if (strcmp(argv[i], "--") == 0) {
			for (i++; i < argc; i++)
				args[i] = argv[i];
			break;
		}
		if (strcmp(argv[i], "-Werror") == 0) {
			args[i] = werror_long;
		} else if (single_dash_typo(cmd, argv[i], shortopts)) {
			args[i] = xasprintf(TYPO_MARK "%s", argv[i] + 1);
			marked[nmarked++] = args[i];
		} else if (takes_separate_value(argv[i], shortopts,
						longopts) &&
			   i + 1 < argc) {
			i++;
			args[i] = argv[i];
		}
	}

	opterr = 0;
	optind = 0;
	while (status == 0) {
		c = getopt_long(argc, args, shortopts, longopts, NULL);
		if (c == -1)
			break;
		if (c == '?' || c == ':')
			status = option_error(cmd, longopts, args, c);
		else
			status = handle_option(cmd, o, c, optarg);
	}
	if (status != 0)
		goto out;

	o->nrules = (size_t)(argc - optind);
	o->rules = xcalloc(o->nrules + 1, sizeof(*o->rules));
	for (i = optind; i < argc; i++) {
		o->rules[i - optind] = args[i];
		if (strcmp(args[i], "-") != 0)
			continue;
		if (o->stdin_used) {
			status = cli_usage_error(cmd,
						 "standard input used twice");
			goto out;
		}
		o->stdin_used = true;
	}
	if (o->nrules == 0) {
		status = cli_usage_error(cmd, "missing RULES operand");
		goto out;
	}
	if ((cmd->flags & CLI_OPT_QUERIES) && !o->query_given)
		status = cli_usage_error(cmd, "no query given (%s)",
			"use --read, --write, --net or --queries");
	else if (o->mode_given && o->target->id != TARGET_LINUX)
		status = cli_usage_error(cmd, "--mode is for --target=linux "
					 "only (vbox-exec's launch modes); "
					 "'%s' has none", o->target->name);
	else if (o->accept_narrower && o->mode != CLI_MODE_CONTAINER)
		status = cli_usage_error(cmd, "--accept-narrower needs "
					 "--mode=container");
out:
	while (nmarked > 0)
		free(marked[--nmarked]);
	free(marked);
	free(args);
	free(longopts);
	free(shortopts);
	return status;
}

static void opts_free(struct cli_opts *o)
{
	size_t i;

	for (i = 0; i < o->nqueries; i++) {
		free(o->queries[i].arg);
		free(o->queries[i].label);
		free(o->queries[i].error);
	}
	free(o->queries);
	free(o->defines);
	free(o->include_dirs);
	free(o->rules);
}

void cli_print_version(void)
{
	/* The library's version: vboxc and libvbox ship together. */
	printf("%s (vbox) %s\n", CLI_PROGNAME, vbox_version());
}

int cli_command_main(const struct cli_command *cmd, int argc, char **argv)
{
	struct cli_opts opts;
	int status;

	status = parse_args(cmd, argc, argv, &opts);
	if (status == 0)
		status = cmd->run(&opts);
	else if (status < 0)
		status = CLI_EXIT_OK;
	opts_free(&opts);
	return status;
}
