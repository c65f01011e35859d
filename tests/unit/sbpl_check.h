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
 * decides this operation on this path (or this connection)?" the way
 * Seatbelt does: rules kept per operation, a specific operation falling
 * through to its wildcard ancestors, the last matching rule first within
 * one operation, an unfiltered rule as the operation's default, paths
 * resolved through the system's fixed symbolic links first, and
 * "localhost" meaning 127.0.0.1 and ::1 only.  sbpl_eval.c says, rule by
 * rule, what it models and where that knowledge comes from.
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

/**
 * enum sbpl_vnode - the kind of file a query concerns, for (vnode-type)
 * @SBPL_VNODE_ANY: not said (an existing path, type not considered)
 * @SBPL_VNODE_REGULAR: a regular file
 * @SBPL_VNODE_DIRECTORY: a directory
 * @SBPL_VNODE_SYMLINK: a symbolic link
 */
enum sbpl_vnode {
	SBPL_VNODE_ANY,
	SBPL_VNODE_REGULAR,
	SBPL_VNODE_DIRECTORY,
	SBPL_VNODE_SYMLINK,
};

/*
 * sbpl_resolve - @path with the fixed links of every macOS system
 * resolved (/tmp, /var, /etc to /private/..., /dev/stdout and friends to
 * /dev/fd/N), as Seatbelt sees it; with !@follow_last a path that is
 * itself such a link stays as it is (unlink, rename and create act on
 * the name).  Caller frees.
 */
char *sbpl_resolve(const char *path, bool follow_last);

/*
 * sbpl_op_parent - the wildcard operation a check of @op falls through to
 * when no rule of @op decides ("file-write-data" -> "file-write*" ->
 * "file*" -> "default"); NULL for "default".  An operation outside the
 * model is a bug in the caller.
 */
const char *sbpl_op_parent(const char *op);

/*
 * sbpl_eval_file - decide operation @op (e.g. "file-read-data",
 * "file-write-data", "file-ioctl", "file-write-create") on @path, of
 * vnode type @vnode, in a checked profile.  @path is resolved first
 * (sbpl_resolve(), @follow_last).  Returns the index of the deciding
 * form (0 when nothing decides; then *@allow is false); *@allow is its
 * action.
 */
size_t sbpl_eval_file(const struct sbpl_profile *p, const char *op,
		      const char *path, bool follow_last,
		      enum sbpl_vnode vnode, bool *allow);

/* sbpl_eval_path - sbpl_eval_file() following every link, any vnode. */
size_t sbpl_eval_path(const struct sbpl_profile *p, const char *op,
		      const char *path, bool *allow);

/*
 * The system calls that act on a name, as Seatbelt checks them:
 * sbpl_may_unlink - unlink(2)/rmdir(2) of @path: file-write-unlink;
 * sbpl_may_create - a new entry @path (open O_CREAT, mkdir, symlink(2)
 *                   with @vnode SBPL_VNODE_SYMLINK): file-write-create;
 * sbpl_may_rename - rename(2) of @from to @to: file-write-unlink of the
 *                   source and file-write-create of the new name.
 * The last component is never followed.
 */
bool sbpl_may_unlink(const struct sbpl_profile *p, const char *path,
		     enum sbpl_vnode vnode);
bool sbpl_may_create(const struct sbpl_profile *p, const char *path,
		     enum sbpl_vnode vnode);
bool sbpl_may_rename(const struct sbpl_profile *p, const char *from,
		     const char *to, enum sbpl_vnode vnode);

/*
 * sbpl_eval_remote - the same for a connection (@op "network-outbound")
 * to address @addr ("127.0.0.1", "::1", "127.0.0.2", or any other host
 * text) on @port: a (remote ip "HOST:PORT") filter matches when HOST is
 * "*", or "localhost" and @addr is 127.0.0.1 or ::1, and PORT is "*" or
 * @port.  (param ...) takes its value from @params.  Returns the
 * deciding form's index.
 */
size_t sbpl_eval_remote(const struct sbpl_profile *p, const char *op,
			const char *addr, unsigned port,
			const struct sbpl_param *params, size_t nparams,
			bool *allow);

#endif /* VBOX_SBPL_CHECK_H */
