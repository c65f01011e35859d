/* SPDX-License-Identifier: MIT */
/*
 * sbpl_check.h - a checker and a small interpreter for the SBPL profiles
 * vboxc writes, for tests on machines without macOS.
 *
 * The parser reads the s-expression syntax (lists, symbols, strings with
 * the escapes \\, \" and \xHH, ';' comments).  sbpl_check() then holds a
 * profile to the structure vboxc promises: "(version 1)" first, then
 * "(deny default)", then only (allow|deny OPERATION... FILTER...) rules
 * with operations and filters from a known list, each filter used with
 * operations it applies to, path strings absolute, regular expressions
 * anchored and accepted by POSIX regcomp(REG_EXTENDED) (the emitter uses
 * no SBPL-only regex syntax, so nothing needs translating), and no
 * string longer than 1000 bytes.  The interpreter answers "which rule
 * decides this operation on this path (or this loopback port)?" the way
 * Seatbelt does: the last matching rule wins.
 */
#ifndef VBOX_SBPL_CHECK_H
#define VBOX_SBPL_CHECK_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

/**
 * enum sbpl_node_kind - what an s-expression is
 * @SBPL_NODE_LIST: "(" ... ")"
 * @SBPL_NODE_SYMBOL: a bare word ("allow", "file-read*", "1")
 * @SBPL_NODE_STRING: a quoted string, escapes decoded
 */
enum sbpl_node_kind {
	SBPL_NODE_LIST,
	SBPL_NODE_SYMBOL,
	SBPL_NODE_STRING,
};

/**
 * struct sbpl_node - one parsed s-expression
 * @kind: see enum sbpl_node_kind
 * @line: 1-based line where it starts
 * @text: symbol or decoded string, NUL-terminated (owned; NULL for lists)
 * @len: bytes in @text
 * @written: strings: bytes between the quotes as written
 * @kids: list elements (owned)
 * @nkids: number of @kids
 * @re: for the argument string of a (regex ...) filter, the compiled
 *      expression once sbpl_filter_compile() has run (owned)
 */
struct sbpl_node {
	enum sbpl_node_kind kind;
	unsigned line;
	char *text;
	size_t len;
	size_t written;
	struct sbpl_node **kids;
	size_t nkids;
	regex_t *re;
};

/**
 * struct sbpl_profile - a parsed profile
 * @forms: the top-level forms in order (owned)
 * @nforms: number of @forms
 */
struct sbpl_profile {
	struct sbpl_node **forms;
	size_t nforms;
};

/**
 * struct sbpl_param - a value for (param "NAME"), like sandbox-exec -D
 * @name: the parameter's name
 * @value: its value
 */
struct sbpl_param {
	const char *name;
	const char *value;
};

/*
 * sbpl_parse - parse @len bytes of profile text into *@out (free with
 * sbpl_profile_free()).  Returns 0, or -1 with a message "line N: ..." in
 * *@err (caller frees).  Bounded: nesting deeper than 32 is an error.
 */
int sbpl_parse(const char *text, size_t len, struct sbpl_profile *out,
	       char **err);

/*
 * sbpl_check - check the structure described above; compiles every
 * regular expression.  Returns 0, or -1 with *@err (caller frees).
 */
int sbpl_check(struct sbpl_profile *p, char **err);

/* sbpl_profile_free - free every form of @p and zero it. */
void sbpl_profile_free(struct sbpl_profile *p);

/*
 * sbpl_filter_compile - check one path filter ((literal|subpath|regex
 * STRING)) and compile its regular expression.  Returns 0 or -1 with
 * *@err.
 */
int sbpl_filter_compile(struct sbpl_node *filter, char **err);

/* sbpl_filter_matches_path - does the compiled path @filter match @path? */
bool sbpl_filter_matches_path(const struct sbpl_node *filter,
			      const char *path);

/*
 * sbpl_eval_path - decide operation @op (e.g. "file-read-data",
 * "file-write-data", "file-write-unlink") on @path in a checked profile:
 * the last rule naming @op (exactly, through a "prefix*" wildcard, or as
 * "default") whose filters are empty or include one matching @path.
 * Returns the index of the deciding form; *@allow is its action.
 */
size_t sbpl_eval_path(const struct sbpl_profile *p, const char *op,
		      const char *path, bool *allow);

/*
 * sbpl_eval_remote - the same for a connection (@op "network-outbound")
 * to a loopback address (@loopback) or any other host, on @port; a
 * (remote ip "HOST:PORT") filter matches when HOST is "*" or "localhost"
 * for a loopback address, and PORT is "*" or @port.  (param ...) takes
 * its value from @params.  Returns the deciding form's index.
 */
size_t sbpl_eval_remote(const struct sbpl_profile *p, const char *op,
			bool loopback, unsigned port,
			const struct sbpl_param *params, size_t nparams,
			bool *allow);

#endif /* VBOX_SBPL_CHECK_H */
