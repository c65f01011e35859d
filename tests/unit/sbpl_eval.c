/* SPDX-License-Identifier: MIT */
/*
 * sbpl_eval.c - interpret a checked SBPL profile the way Seatbelt
 * decides (see sbpl_check.h): the system's fixed links, the operations'
 * fall-through to their wildcard ancestors, the last matching rule first,
 * file and connection queries.  sbpl_check.c parses and checks the
 * profile; sbpl_check_int.h holds what the two share.
 */
#include <vbox.h>

#include <regex.h>
#include <stdio.h>
#include <strings.h>

#include "sbpl_check.h"
#include "sbpl_check_int.h"

/* ---- interpretation: how Seatbelt decides ---- */

/*
 * What follows models Seatbelt's evaluation as the public descriptions of
 * it tell it (the "Sandbox Profile Language version 1" prelude shipped in
 * libsandbox, reverse-engineering notes on compiled profiles, the
 * profiles Chromium and other projects maintain, and results published
 * from real sandbox-exec runs).  The model, in words:
 *
 * 1. Rules are kept per operation.  "(allow A B F)" adds one rule to the
 *    list of A and one to the list of B; a wildcard name such as
 *    "file-write*" is an operation of its own with its own list, not a
 *    shorthand that expands into the specific operations.
 * 2. A check of a specific operation (file-write-data) tries that
 *    operation's list, then falls through to its wildcard ancestors in
 *    turn (file-write*, then file*, then default).  So a rule on the
 *    specific operation beats a rule on a wildcard ancestor whatever
 *    their order in the text.
 * 3. Within one list, the rule written last is tried first: the last
 *    matching filtered rule decides.  A rule with no filter is the
 *    operation's default: it decides when no filtered rule of that
 *    operation matches, wherever in the text it is written (the last such
 *    rule, if there are several).
 * 4. The filters of one rule are alternatives: any one matching is
 *    enough.
 * 5. (remote ip "HOST:PORT") names HOST "*" (any address) or
 *    "localhost", which is 127.0.0.1 and ::1 only -- not the rest of
 *    127.0.0.0/8.
 * 6. Paths are matched after symbolic links are resolved; for calls that
 *    act on a name (unlink, rename, creating an entry) the last component
 *    is not followed.  rename(2) and rmdir(2) are checked as
 *    file-write-unlink of the source; the new name is checked as the
 *    creation of an entry there (file-write-create).  A symbolic link is
 *    created as file-write-create of its own name, vnode type SYMLINK.
 *
 * Points 1-3 are the ones the earlier "last match wins over every
 * operation" model of this file got wrong; tests/macos/run.sh lets a Mac
 * confirm them (doc/darwin.md).
 */

/*
 * The links every macOS system has, resolved the way the kernel does
 * before Seatbelt sees a path.  /dev/stdin, /dev/stdout and /dev/stderr
 * are fdesc links to fd/0, fd/1 and fd/2.
 */
static const struct {
	const char *link;
	const char *target;
} system_links[] = {
	{ "/tmp", "/private/tmp" },
	{ "/var", "/private/var" },
	{ "/etc", "/private/etc" },
	{ "/dev/stdin", "/dev/fd/0" },
	{ "/dev/stdout", "/dev/fd/1" },
	{ "/dev/stderr", "/dev/fd/2" },
};

/* Does @path start with the link @link as whole components, any case? */
static size_t link_prefix(const char *path, const char *link)
{
	size_t n = strlen(link);

	if (strncasecmp(path, link, n) != 0)
		return 0;
	return path[n] == '/' || path[n] == '\0' ? n : 0;
}

char *sbpl_resolve(const char *path, bool follow_last)
{
	size_t i, n;

	for (i = 0; i < array_size(system_links); i++) {
		n = link_prefix(path, system_links[i].link);
		if (!n || (!follow_last && path[n] == '\0'))
			continue;
		return xasprintf("%s%s", system_links[i].target, path + n);
	}
	return xstrdup(path);
}

const char *sbpl_op_parent(const char *op)
{
	/* The ancestors of every operation the queries below use. */
	static const struct {
		const char *op;
		const char *parent;
	} tree[] = {
		{ "file-read-data", "file-read*" },
		{ "file-read-metadata", "file-read*" },
		{ "file-read*", "file*" },
		{ "file-write-data", "file-write*" },
		{ "file-write-create", "file-write*" },
		{ "file-write-unlink", "file-write*" },
		{ "file-write-mode", "file-write*" },
		{ "file-write-times", "file-write*" },
		{ "file-write*", "file*" },
		{ "file-ioctl", "file*" },
		{ "file-map-executable", "file*" },
		{ "file-link", "file*" },
		{ "file*", "default" },
		{ "process-exec", "process*" },
		{ "process-fork", "process*" },
		{ "process*", "default" },
		{ "network-outbound", "network*" },
		{ "network-inbound", "network*" },
		{ "network-bind", "network*" },
		{ "network*", "default" },
	};
	size_t i;

	for (i = 0; i < array_size(tree); i++)
		if (!strcmp(tree[i].op, op))
			return tree[i].parent;
	if (strcmp(op, "default") != 0)
		BUG("sbpl_check: operation '%s' has no known ancestor", op);
	return NULL;
}

/* Does rule @r name operation @op itself (not an ancestor or child)? */
static bool rule_names(const struct sbpl_node *r, const char *op, size_t *k)
{
	bool named = false;

	for (*k = 1; *k < r->nkids && r->kids[*k]->kind == SBPL_NODE_SYMBOL;
	     (*k)++)
		if (!strcmp(r->kids[*k]->text, op))
			named = true;
	return named;
}

bool sbpl_filter_matches_path(const struct sbpl_node *f, const char *path)
{
	const char *s;
	size_t n;

	if (f->kind != SBPL_NODE_LIST || f->nkids != 2 ||
	    f->kids[1]->kind != SBPL_NODE_STRING)
		return false;
	s = f->kids[1]->text;
	if (is_sym(f->kids[0], "literal"))
		return strcmp(s, path) == 0;
	if (is_sym(f->kids[0], "subpath")) {
		n = strlen(s);
		if (n == 1)
			return path[0] == '/';
		return strncmp(s, path, n) == 0 &&
		       (path[n] == '\0' || path[n] == '/');
	}
	if (is_sym(f->kids[0], "regex") && f->kids[1]->re)
		return regexec(f->kids[1]->re, path, 0, NULL, 0) == 0;
	return false;
}

/*
 * The value of a string expression, or NULL when a parameter is missing
 * (Seatbelt fails the whole profile then; here the filter just does not
 * match).
 */
static char *eval_expr(const struct sbpl_node *n,
		       const struct sbpl_param *params, size_t nparams)
{
	char *acc, *part, *joined;
	size_t i;

	if (n->kind == SBPL_NODE_STRING)
		return xstrdup(n->text);
	if (is_list_head(n, "param")) {
		for (i = 0; i < nparams; i++)
			if (!strcmp(params[i].name, n->kids[1]->text))
				return xstrdup(params[i].value);
		return NULL;
	}
	acc = xstrdup("");
	for (i = 1; i < n->nkids; i++) {
		part = eval_expr(n->kids[i], params, nparams);
		if (!part) {
			free(acc);
			return NULL;
		}
		joined = xasprintf("%s%s", acc, part);
		free(acc);
		free(part);
		acc = joined;
	}
	return acc;
}

/* Seatbelt's "localhost": the two loopback addresses, nothing more. */
static bool is_localhost(const char *addr)
{
	return !strcmp(addr, "127.0.0.1") || !strcmp(addr, "::1");
}

static bool remote_matches(const struct sbpl_node *f, const char *addr,
			   unsigned port, const struct sbpl_param *params,
			   size_t nparams)
{
	char *spec, *colon;
	bool host_ok, port_ok;

	if (!is_list_head(f, "remote") || f->nkids != 3)
		return false;
	spec = eval_expr(f->kids[2], params, nparams);
	if (!spec)
		return false;
	colon = strrchr(spec, ':');
	if (!colon) {
		free(spec);
		return false;
	}
	*colon = '\0';
	host_ok = !strcmp(spec, "*") ||
		  (!strcmp(spec, "localhost") && is_localhost(addr));
	port_ok = !strcmp(colon + 1, "*") ||
		  strtoul(colon + 1, NULL, 10) == port;
	free(spec);
	return host_ok && port_ok;
}

/*
 * One operation's list (points 1 and 3 above): the last filtered rule
 * naming exactly @op with a filter @match accepts, else the last
 * unfiltered rule naming @op.  Returns its form index, 0 for none.
 */
static size_t eval_list(const struct sbpl_profile *p, const char *op,
			bool (*match)(const struct sbpl_node *, const void *),
			const void *ctx)
{
	size_t i, k, fallback = 0;

	for (i = p->nforms; i-- > 1;) {
		const struct sbpl_node *r = p->forms[i];

		if (!rule_names(r, op, &k))
			continue;
		if (k == r->nkids) {
			if (!fallback)
				fallback = i;
			continue;
		}
		for (; k < r->nkids; k++)
			if (match(r->kids[k], ctx))
				return i;
	}
	return fallback;
}

/* Point 2: @op's list, then each ancestor's, up to "default". */
static size_t eval_op(const struct sbpl_profile *p, const char *op,
		      bool (*match)(const struct sbpl_node *, const void *),
		      const void *ctx, bool *allow)
{
	size_t decided = 0;

	for (; op && !decided; op = sbpl_op_parent(op))
		decided = eval_list(p, op, match, ctx);
	*allow = decided && is_sym(p->forms[decided]->kids[0], "allow");
	return decided;
}

/* A file query: the (resolved) path and the vnode type it concerns. */
struct file_query {
	const char *path;
	enum sbpl_vnode vnode;
};

static const char *const vnode_names[] = {
	[SBPL_VNODE_REGULAR] = "REGULAR-FILE",
	[SBPL_VNODE_DIRECTORY] = "DIRECTORY",
	[SBPL_VNODE_SYMLINK] = "SYMLINK",
};

static bool file_match(const struct sbpl_node *f, const void *ctx)
{
	const struct file_query *q = ctx;

	if (is_list_head(f, "vnode-type"))
		return f->nkids == 2 && q->vnode != SBPL_VNODE_ANY &&
		       is_sym(f->kids[1], vnode_names[q->vnode]);
	return sbpl_filter_matches_path(f, q->path);
}

size_t sbpl_eval_file(const struct sbpl_profile *p, const char *op,
		      const char *path, bool follow_last,
		      enum sbpl_vnode vnode, bool *allow)
{
	struct file_query q = { sbpl_resolve(path, follow_last), vnode };
	size_t decided = eval_op(p, op, file_match, &q, allow);

	free((char *)q.path);
	return decided;
}

size_t sbpl_eval_path(const struct sbpl_profile *p, const char *op,
		      const char *path, bool *allow)
{
	return sbpl_eval_file(p, op, path, true, SBPL_VNODE_ANY, allow);
}

bool sbpl_may_unlink(const struct sbpl_profile *p, const char *path,
		     enum sbpl_vnode vnode)
{
	bool allow;

	sbpl_eval_file(p, "file-write-unlink", path, false, vnode, &allow);
	return allow;
}

bool sbpl_may_create(const struct sbpl_profile *p, const char *path,
		     enum sbpl_vnode vnode)
{
	bool allow;

	sbpl_eval_file(p, "file-write-create", path, false, vnode, &allow);
	return allow;
}

bool sbpl_may_rename(const struct sbpl_profile *p, const char *from,
		     const char *to, enum sbpl_vnode vnode)
{
	return sbpl_may_unlink(p, from, vnode) &&
	       sbpl_may_create(p, to, vnode);
}

struct remote_query {
	const char *addr;
	unsigned port;
	const struct sbpl_param *params;
	size_t nparams;
};

static bool remote_match(const struct sbpl_node *f, const void *ctx)
{
	const struct remote_query *q = ctx;

	return remote_matches(f, q->addr, q->port, q->params, q->nparams);
}

size_t sbpl_eval_remote(const struct sbpl_profile *p, const char *op,
			const char *addr, unsigned port,
			const struct sbpl_param *params, size_t nparams,
			bool *allow)
{
	struct remote_query q = { addr, port, params, nparams };

	return eval_op(p, op, remote_match, &q, allow);
}
