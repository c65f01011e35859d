/* SPDX-License-Identifier: MIT */
/*
 * cli.h - shared pieces of the vboxc program: option parsing, loading and
 * building the table, printing diagnostics and deterministic JSON.
 *
 * The program is thin on purpose: every decision about the policy is made
 * in compiler/; this layer only turns the command line into library calls
 * and library results into bytes on stdout/stderr.
 */
#ifndef VBOX_CLI_H
#define VBOX_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "location.h"
#include "diag.h"
#include "stmt.h"

struct row;
struct table;
struct target_traits;

#define CLI_PROGNAME "vboxc"

/* Exit statuses of doc/rules.md §11. */
#define CLI_EXIT_OK 0
#define CLI_EXIT_FAIL 1
#define CLI_EXIT_USAGE 2

/*
 * The one dump flag set for every JSON document vboxc prints: compact
 * (explain is one object per line), keys in insertion order.
 */
#define CLI_JSON_FLAGS (JSON_COMPACT | JSON_PRESERVE_ORDER)

/* Bounds on a --queries file: exceeding them is an error, never a cut. */
#define CLI_MAX_QUERY_LINE (64u << 10)
#define CLI_MAX_QUERIES (1u << 20)
#define CLI_MAX_QUERIES_BYTES (64u << 20)

/**
 * enum cli_format - output format of check, explain and preflight
 * @CLI_FORMAT_TEXT: human-readable text (the default)
 * @CLI_FORMAT_JSON: JSON as doc/rules.md §8 and §9 describe
 * @CLI_FORMAT_SARIF: SARIF 2.1.0 (check only; doc/packaging.md)
 */
enum cli_format {
	CLI_FORMAT_TEXT,
	CLI_FORMAT_JSON,
	CLI_FORMAT_SARIF,
};

/**
 * enum cli_query_op - what an explain query asks
 * @CLI_QUERY_READ: may the process read PATH?
 * @CLI_QUERY_WRITE: may the process write PATH?
 * @CLI_QUERY_NET: may the process connect to HOST[:PORT]?
 */
enum cli_query_op {
	CLI_QUERY_READ,
	CLI_QUERY_WRITE,
	CLI_QUERY_NET,
};

/**
 * enum cli_emit - what compile writes (--emit)
 * @CLI_EMIT_PROFILE: the target's profile: SBPL, bwrap argument list or
 *                    ACL plan JSON (the default)
 * @CLI_EMIT_PLAN: plan.bin for vbox-exec (binary)
 * @CLI_EMIT_IR: the analysed table as JSON
 * @CLI_EMIT_TABLE: the table as the target enforces it, as text
 *                  (table_text.h)
 */
enum cli_emit {
	CLI_EMIT_PROFILE,
	CLI_EMIT_PLAN,
	CLI_EMIT_IR,
	CLI_EMIT_TABLE,
};

/**
 * enum cli_mode - how vbox-exec launches on linux (--mode)
 * @CLI_MODE_NS: namespaces and bubblewrap (the default)
 * @CLI_MODE_CONTAINER: container mode: Landlock, seccomp and the socket
 *                      supervisor, no namespaces (doc/targets.md)
 */
enum cli_mode {
	CLI_MODE_NS,
	CLI_MODE_CONTAINER,
};

/**
 * struct cli_query - one explain query, in command-line order
 * @op: see enum cli_query_op
 * @arg: the path or host as given (owned); NULL when @error is set
 *       before evaluation
 * @label: "<op> <arg>" as printed in the "query" member (owned, may hold
 *         any byte but NUL; printers sanitize it)
 * @error: set while parsing a --queries file when the line is malformed:
 *         the query is invalid and answered with this message (owned)
 */
struct cli_query {
	enum cli_query_op op;
	char *arg;
	char *label;
	char *error;
};

/**
 * struct cli_opts - a parsed command line
 * @target: --target, or the host's traits
 * @target_given: --target was given explicitly
 * @defines: -D values "NAME=VALUE" in order (borrowed from argv)
 * @ndefines: number of @defines
 * @defines_cap: allocated slots of @defines
 * @werror: -Werror was given
 * @format: --format
 * @rules: the RULES operands ("-" is standard input; borrowed from argv)
 * @nrules: number of @rules
 * @queries: explain's queries in command-line order (owned array)
 * @nqueries: number of @queries
 * @qcap: allocated slots of @queries
 * @query_given: some query option was given (even a --queries file that
 *               turned out to hold no query)
 * @resolve: --follow or --no-follow was given: resolve symbolic links
 * @follow_last: --follow (resolve the last component too)
 * @stdin_used: something already claimed standard input
 * @emit: compile's --emit
 * @output: compile's -o/--output (borrowed from argv), NULL for standard
 *          output ("-" also means standard output)
 * @include_dirs: -I/--include-dir values in order (borrowed from argv),
 *                searched for '@include <NAME>' before the installed
 *                rule library
 * @ninclude_dirs: number of @include_dirs
 * @include_dirs_cap: allocated slots of @include_dirs
 * @max_errors: --max-errors: errors shown before the rest are only
 *              counted (0: every error is shown)
 * @per_row: preflight --per-row: one text line per row, not grouped
 * @mode: --mode (check, preflight; linux only)
 * @mode_given: --mode was given explicitly
 * @accept_narrower: --accept-narrower: container mode's deny rows and
 *                   holes narrower (Landlock alone), where no row needs
 *                   the path supervisor
 * @source_root: compile's --source-root (borrowed from argv), or NULL:
 *               the directory the artifact's locations are relative to
 */
struct cli_opts {
	const struct target_traits *target;
	bool target_given;
	const char **defines;
	size_t ndefines;
	size_t defines_cap;
	bool werror;
	enum cli_format format;
	const char **rules;
	size_t nrules;
	struct cli_query *queries;
	size_t nqueries;
	size_t qcap;
	bool query_given;
	bool resolve;
	bool follow_last;
	bool stdin_used;
	enum cli_emit emit;
	const char *output;
	const char **include_dirs;
	size_t ninclude_dirs;
	size_t include_dirs_cap;
	size_t max_errors;
	bool per_row;
	enum cli_mode mode;
	bool mode_given;
	bool accept_narrower;
	const char *source_root;
};

/* Which optional option groups a command accepts (struct cli_command). */
#define CLI_OPT_QUERIES 0x1u
/* --emit and -o/--output (compile). */
#define CLI_OPT_COMPILE 0x2u
/* --format; its help text is the command's @format_help. */
#define CLI_OPT_FORMAT 0x4u
/* --per-row (preflight). */
#define CLI_OPT_PREFLIGHT 0x10u
/* --mode and --accept-narrower (check, preflight). */
#define CLI_OPT_MODE 0x8u

/* Bits of struct cli_command.formats: which --format values it takes. */
#define CLI_FORMATS(f) (1u << (f))

/**
 * struct cli_command - one vboxc subcommand
 * @name: the word on the command line
 * @summary: one line for "vboxc --help"
 * @synopsis: what follows "Usage: vboxc " in the command's help
 * @description: the help text before the option list
 * @format_help: what --format does for this command (help text lines,
 *               '\n'-separated), when @flags has CLI_OPT_FORMAT
 * @formats: CLI_FORMATS() of the --format values the command takes
 * @notes: the help text after the option list
 * @flags: CLI_OPT_* option groups the command accepts
 * @run: runs the command on parsed options and returns the exit status;
 *       NULL for a command reserved for a later release
 *
 * The option list of the help is printed from the same table the parser
 * reads (cli_options.c), so the two cannot drift.
 */
struct cli_command {
	const char *name;
	const char *summary;
	const char *synopsis;
	const char *description;
	const char *format_help;
	unsigned formats;
	const char *notes;
	unsigned flags;
	int (*run)(const struct cli_opts *opts);
};

/* The subcommands (cli_check.c, cli_explain.c, cli_compile.c). */
extern const struct cli_command cli_check_command;
extern const struct cli_command cli_explain_command;
extern const struct cli_command cli_compile_command;
extern const struct cli_command cli_preflight_command;
extern const struct cli_command cli_diff_command;

/**
 * struct cli_session - everything one compilation owns
 * @inputs: every rule file read (locations point into them)
 * @stmts: the assembled statements (freed once the table is built)
 * @diags: the diagnostic records, in order
 * @table: the built and analyzed table, or NULL when the rules are invalid
 */
struct cli_session {
	struct input_set inputs;
	struct stmt_list stmts;
	struct diag_list diags;
	struct table *table;
};

/*
 * cli_any_port_message - for an allow row that names no port (it allows
 * every port), the note saying so (caller frees); NULL for other rows.
 * cli_any_port_notes - queue that note on @s's list for each such row.
 */
char *cli_any_port_message(const struct row *row);
void cli_any_port_notes(struct cli_session *s);

/*
 * cli_command_main - parse @argv (argv[0] is the command name) for @cmd,
 * print its help on --help, run it (@cmd->run must be set).  Returns the
 * exit status; the caller still has to flush standard output
 * (cli_finish_stdout()).
 */
int cli_command_main(const struct cli_command *cmd, int argc, char **argv);

/* cli_print_version - "vboxc (vbox) VERSION" to standard output. */
void cli_print_version(void);

/*
 * cli_print_help - @cmd's full help text to @out: usage, description,
 * the options @cmd accepts (from the parser's option table), notes.
 */
void cli_print_help(const struct cli_command *cmd, FILE *out);

/*
 * cli_query_add_arg - append the query "@op @arg" (from --read, --write
 * or --net) to @o's queries (cli_queries.c).
 */
void cli_query_add_arg(struct cli_opts *o, enum cli_query_op op,
		       const char *arg);

/*
 * cli_queries_read_file - read the --queries file @path ("-" is standard
 * input) into @o's queries at its place in the query order.  Returns 0,
 * or CLI_EXIT_USAGE after a message when the file cannot be read or is
 * beyond the bounds (CLI_MAX_QUERY*).
 */
int cli_queries_read_file(const struct cli_command *cmd, struct cli_opts *o,
			  const char *path);

/*
 * cli_sarif_print - write the findings and errors of @s as one SARIF
 * 2.1.0 log to standard output (cli_sarif.c).  Returns 0, or -1 after a
 * message on stderr.
 */
int cli_sarif_print(const struct cli_session *s);

/*
 * cli_sarif_location - a SARIF location object for @loc, with the
 * message @text when it is not NULL; NULL when @loc is in no file.
 * Columns are code points (the log's columnKind).
 */
json_t *cli_sarif_location(const struct location *loc, const char *text);

/*
 * cli_sarif_print_log - print one SARIF 2.1.0 log of one run of vboxc
 * whose driver has the reporting descriptors @rules and whose results
 * are @results (both consumed).  Returns 0, or -1 after a message.
 */
int cli_sarif_print_log(json_t *rules, json_t *results);

/*
 * cli_sarif_uri - @name as a URI reference (an absolute path becomes a
 * file:// URI).  Caller frees.
 */
char *cli_sarif_uri(const char *name);

/*
 * cli_usage_error - print "vboxc: MESSAGE" and a hint naming @cmd (NULL:
 * the program) to stderr; returns CLI_EXIT_USAGE.
 */
__printf(2, 3) int cli_usage_error(const struct cli_command *cmd,
				   const char *fmt, ...);

/*
 * cli_session_load - read, parse and build the rules of @opts and run
 * shadow analysis.  Returns 0 when a table was built (s->table set), -1
 * when the rules are invalid (errors queued on s->diags).  Free with
 * cli_session_free() in either case.
 */
int cli_session_load(struct cli_session *s, const struct cli_opts *opts);
void cli_session_free(struct cli_session *s);

/*
 * cli_file_is_plan - @path is a regular file that starts with plan.bin's
 * magic (a plan given where rules may be expected); false for "-",
 * pipes and unreadable files (a pipe cannot be read twice).
 */
bool cli_file_is_plan(const char *path);

/*
 * cli_session_load_plan - cli_session_load() for explain's one operand
 * that is a plan (cli_plan.c): the table the plan carries, without shadow
 * analysis; its rows' locations are the plan's "SOURCE:LINE:COL".
 * Returns 0 with s->table set, or -1 with one error queued (the plan is
 * damaged, or mixed with rule files, -D, -I or another --target).
 */
int cli_session_load_plan(struct cli_session *s, const struct cli_opts *opts);

/*
 * cli_print_diags - print every record of @s in text form to stderr, and
 * under -Werror a closing line saying warnings were treated as errors.
 */
void cli_print_diags(const struct cli_session *s,
		     const struct cli_opts *opts);

/*
 * cli_failed - the exit decision after loading: true when the rules are
 * invalid or, under -Werror, when there is a warning.
 */
bool cli_failed(const struct cli_session *s, const struct cli_opts *opts);

/*
 * cli_sanitize - a NUL-terminated copy of @s (@len bytes) that is valid
 * UTF-8: invalid bytes, NUL and other C0 controls but tab are written as
 * "\xNN".  Caller frees.
 */
char *cli_sanitize(const char *s, size_t len);

/*
 * cli_json_string - a new JSON string holding sanitized @s, or JSON null
 * when @s is NULL.  Never returns NULL.
 */
json_t *cli_json_string(const char *s);

/*
 * cli_json_location - "FILE:LINE:COL" of @loc as a new JSON string, or
 * JSON null when @loc is in no file.
 */
json_t *cli_json_location(const struct location *loc);

/*
 * cli_json_pack - json_pack() that reports the caller's file and line on
 * stderr when packing fails and then returns NULL.  "o" arguments are
 * stolen even on failure (jansson >= 2.11).
 */
#define cli_json_pack(...) cli_json_pack_at(__FILE__, __LINE__, __VA_ARGS__)
json_t *cli_json_pack_at(const char *file, int line, const char *fmt, ...);

/*
 * cli_json_print_flags - dump @obj (consumed; NULL means building it
 * failed) to standard output with jansson's @flags followed by "\n".
 * Returns 0, or -1 after printing a message to stderr.
 */
int cli_json_print_flags(json_t *obj, size_t flags);

/* cli_json_print - cli_json_print_flags() with CLI_JSON_FLAGS. */
int cli_json_print(json_t *obj);

/*
 * cli_finish_stdout - flush and close standard output; returns @status,
 * or CLI_EXIT_FAIL after a message when the output could not be written.
 */
int cli_finish_stdout(int status);

#endif /* VBOX_CLI_H */
