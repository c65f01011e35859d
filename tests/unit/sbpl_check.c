/* SPDX-License-Identifier: MIT */
/*
 * sbpl_check.c - parse, check and interpret vboxc's SBPL profiles (see
 * sbpl_check.h).  Written for tests: it accepts only what the emitter
 * promises to write, so any drift in the emitter shows up here.
 */
#include <vbox.h>

#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <strings.h>

#include "sbpl_check.h"

#define MAX_DEPTH 32
/* Seatbelt rejects a profile whose strings grow past about 1 KiB. */
#define MAX_STRING 1000

struct parser {
	const char *s;
	size_t len;
	size_t pos;
	unsigned line;
	char *err;
};

static __printf(2, 3) int fail(char **err, const char *fmt, ...)
{
	va_list ap;

	if (*err)
		return -1;
	va_start(ap, fmt);
	if (vasprintf(err, fmt, ap) < 0)
		*err = NULL;
	va_end(ap);
	if (!*err)
		*err = xstrdup("out of memory");
	return -1;
}

static struct sbpl_node *node_new(enum sbpl_node_kind kind, unsigned line)
{
	struct sbpl_node *n = xzalloc(sizeof(*n));

	n->kind = kind;
	n->line = line;
	return n;
}

static void node_free(struct sbpl_node *n)
{
	size_t i;

	if (!n)
		return;
	for (i = 0; i < n->nkids; i++)
		node_free(n->kids[i]);
	free(n->kids);
	free(n->text);
	if (n->re) {
		regfree(n->re);
		free(n->re);
	}
	free(n);
}

static void node_add(struct sbpl_node *list, struct sbpl_node *kid)
{
	list->kids = xreallocarray(list->kids, list->nkids + 1,
				   sizeof(*list->kids));
	list->kids[list->nkids++] = kid;
}

static void skip_space(struct parser *ps)
{
	while (ps->pos < ps->len) {
		char c = ps->s[ps->pos];

		if (c == '\n') {
			ps->line++;
			ps->pos++;
		} else if (c == ' ') {
			ps->pos++;
		} else if (c == ';') {
			while (ps->pos < ps->len && ps->s[ps->pos] != '\n')
				ps->pos++;
		} else {
			break;
		}
	}
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A string; ps->pos is at the opening quote. */
static struct sbpl_node *parse_string(struct parser *ps)
{
	struct sbpl_node *n = node_new(SBPL_NODE_STRING, ps->line);
	size_t start = ++ps->pos, cap = 16;

	n->text = xmalloc(cap);
	for (;;) {
		int c, hi, lo;

		if (ps->pos >= ps->len || ps->s[ps->pos] == '\n') {
			fail(&ps->err, "line %u: unterminated string",
			     n->line);
			goto bad;
		}
		c = (unsigned char)ps->s[ps->pos++];
		if (c == '"')
			break;
		if (c == '\\') {
			if (ps->pos >= ps->len)
				continue;
			c = (unsigned char)ps->s[ps->pos++];
			if (c == 'x') {
				if (ps->pos + 2 > ps->len ||
				    (hi = hexval(ps->s[ps->pos])) < 0 ||
				    (lo = hexval(ps->s[ps->pos + 1])) < 0) {
					fail(&ps->err, "line %u: \\x needs two "
					     "hex digits", ps->line);
					goto bad;
				}
				ps->pos += 2;
				c = hi * 16 + lo;
				if (!c) {
					fail(&ps->err, "line %u: NUL byte in "
					     "a string", ps->line);
					goto bad;
				}
			} else if (c != '\\' && c != '"') {
				fail(&ps->err, "line %u: unknown escape "
				     "'\\%c' (only \\\\, \\\" and \\xHH)",
				     ps->line, c);
				goto bad;
			}
		}
		if (n->len + 2 > cap) {
			cap *= 2;
			n->text = xrealloc(n->text, cap);
		}
		n->text[n->len++] = (char)c;
	}
	n->text[n->len] = '\0';
	n->written = ps->pos - 1 - start;
	return n;
bad:
	node_free(n);
	return NULL;
}

static bool symbol_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '*' || c == '-' || c == '_' ||
	       c == '.';
}

static struct sbpl_node *parse_expr(struct parser *ps, unsigned depth)
{
	struct sbpl_node *n;
	char c = ps->s[ps->pos];
	size_t start;

	if (depth > MAX_DEPTH) {
		fail(&ps->err, "line %u: nested deeper than %d", ps->line,
		     MAX_DEPTH);
		return NULL;
	}
	if (c == '"')
		return parse_string(ps);
	if (symbol_char(c)) {
		n = node_new(SBPL_NODE_SYMBOL, ps->line);
		for (start = ps->pos; ps->pos < ps->len &&
		     symbol_char(ps->s[ps->pos]); ps->pos++)
			;
		n->len = ps->pos - start;
		n->text = xstrndup(ps->s + start, n->len);
		return n;
	}
	if (c != '(') {
		fail(&ps->err, "line %u: unexpected '%c'", ps->line, c);
		return NULL;
	}
	n = node_new(SBPL_NODE_LIST, ps->line);
	ps->pos++;
	for (;;) {
		struct sbpl_node *kid;

		skip_space(ps);
		if (ps->pos >= ps->len) {
			fail(&ps->err, "line %u: the list opened here is "
			     "never closed", n->line);
			node_free(n);
			return NULL;
		}
		if (ps->s[ps->pos] == ')') {
			ps->pos++;
			return n;
		}
		kid = parse_expr(ps, depth + 1);
		if (!kid) {
			node_free(n);
			return NULL;
		}
		node_add(n, kid);
	}
}

int sbpl_parse(const char *text, size_t len, struct sbpl_profile *out,
	       char **err)
{
	struct parser ps = { .s = text, .len = len, .line = 1 };
	unsigned line = 1;
	size_t i;

	memset(out, 0, sizeof(*out));
	*err = NULL;
	/* vboxc writes printable ASCII only: nothing hides in a profile. */
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];

		if (c == '\n')
			line++;
		else if (c < 0x20 || c > 0x7e)
			return fail(err, "line %u: byte 0x%02x outside "
				    "printable ASCII", line, c);
	}
	for (;;) {
		struct sbpl_node *n;

		skip_space(&ps);
		if (ps.pos >= ps.len)
			return 0;
		if (ps.s[ps.pos] == ')') {
			fail(err, "line %u: ')' closes nothing", ps.line);
			break;
		}
		n = parse_expr(&ps, 0);
		if (!n) {
			*err = ps.err;
			break;
		}
		out->forms = xreallocarray(out->forms, out->nforms + 1,
					   sizeof(*out->forms));
		out->forms[out->nforms++] = n;
	}
	sbpl_profile_free(out);
	return -1;
}

void sbpl_profile_free(struct sbpl_profile *p)
{
	size_t i;

	for (i = 0; i < p->nforms; i++)
		node_free(p->forms[i]);
	free(p->forms);
	memset(p, 0, sizeof(*p));
}

/* ---- structure ---- */

enum {
	CAT_PATH = 1 << 0,
	CAT_REMOTE = 1 << 1,
	CAT_LOCAL = 1 << 2,
	CAT_MACH = 1 << 3,
	CAT_SYSCTL = 1 << 4,
	CAT_IPC = 1 << 5,
	CAT_TARGET = 1 << 6,
};

/* The operations vboxc writes, and the filter kinds each one takes. */
static const struct op_info {
	const char *name;
	unsigned cats;
} known_ops[] = {
	{ "file-read*", CAT_PATH },
	{ "file-write*", CAT_PATH },
	{ "file-write-data", CAT_PATH },
	{ "file-write-unlink", CAT_PATH },
	{ "file-ioctl", CAT_PATH },
	{ "file-map-executable", CAT_PATH },
	{ "process-exec", CAT_PATH },
	{ "process-fork", 0 },
	{ "process-info*", CAT_TARGET },
	{ "signal", CAT_TARGET },
	{ "sysctl-read", CAT_SYSCTL },
	{ "mach-lookup", CAT_MACH },
	{ "ipc-posix-shm-read-data", CAT_IPC },
	{ "ipc-posix-shm-read-metadata", CAT_IPC },
	{ "system-socket", 0 },
	{ "pseudo-tty", 0 },
	{ "network*", CAT_REMOTE | CAT_LOCAL },
	{ "network-outbound", CAT_REMOTE },
	{ "network-inbound", CAT_LOCAL },
	{ "network-bind", CAT_LOCAL },
};

static const struct op_info *op_lookup(const char *name)
{
	size_t i;

	for (i = 0; i < array_size(known_ops); i++)
		if (strcmp(known_ops[i].name, name) == 0)
			return &known_ops[i];
	return NULL;
}

static bool is_sym(const struct sbpl_node *n, const char *text)
{
	return n->kind == SBPL_NODE_SYMBOL && strcmp(n->text, text) == 0;
}

static bool is_list_head(const struct sbpl_node *n, const char *head)
{
	return n->kind == SBPL_NODE_LIST && n->nkids &&
	       is_sym(n->kids[0], head);
}

/* Every string, wherever it is, stays within Seatbelt's limit. */
static int check_strings(const struct sbpl_node *n, char **err)
{
	size_t i;

	if (n->kind == SBPL_NODE_STRING &&
	    (n->written > MAX_STRING || n->len > MAX_STRING))
		return fail(err, "line %u: a string of %zu bytes (limit %d)",
			    n->line, n->written, MAX_STRING);
	for (i = 0; i < n->nkids; i++)
		if (check_strings(n->kids[i], err))
			return -1;
	return 0;
}

/* A clean absolute path: "/" or "/a/b", no empty segment. */
static bool clean_path(const char *s)
{
	size_t len = strlen(s);

	if (s[0] != '/')
		return false;
	if (len > 1 && s[len - 1] == '/')
		return false;
	return strstr(s, "//") == NULL;
}

static bool regex_anchored(const char *s, size_t len)
{
	size_t bs = 0;

	if (len < 2 || s[0] != '^' || s[len - 1] != '$')
		return false;
	/* An odd number of backslashes before '$' makes it literal. */
	while (bs + 2 <= len && s[len - 2 - bs] == '\\')
		bs++;
	return bs % 2 == 0;
}

int sbpl_filter_compile(struct sbpl_node *f, char **err)
{
	struct sbpl_node *arg;
	char buf[256];
	int rc;

	if (f->kind != SBPL_NODE_LIST || f->nkids != 2 ||
	    f->kids[0]->kind != SBPL_NODE_SYMBOL ||
	    f->kids[1]->kind != SBPL_NODE_STRING)
		return fail(err, "line %u: a path filter takes one string",
			    f->line);
	arg = f->kids[1];
	if (is_sym(f->kids[0], "literal") || is_sym(f->kids[0], "subpath")) {
		if (!clean_path(arg->text))
			return fail(err, "line %u: '%s' is not a clean "
				    "absolute path", f->line, arg->text);
		return 0;
	}
	if (!is_sym(f->kids[0], "regex"))
		return fail(err, "line %u: unknown path filter '%s'", f->line,
			    f->kids[0]->text);
	if (!regex_anchored(arg->text, arg->len))
		return fail(err, "line %u: regex '%s' is not anchored with "
			    "'^' and '$'", f->line, arg->text);
	if (arg->re)
		return 0;
	arg->re = xmalloc(sizeof(*arg->re));
	rc = regcomp(arg->re, arg->text, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		regerror(rc, arg->re, buf, sizeof(buf));
		free(arg->re);
		arg->re = NULL;
		return fail(err, "line %u: regex '%s' does not compile: %s",
			    f->line, arg->text, buf);
	}
	return 0;
}

/* STRING | (string-append EXPR...) | (param "NAME") */
static int check_expr(const struct sbpl_node *n, char **err)
{
	size_t i;

	if (n->kind == SBPL_NODE_STRING)
		return 0;
	if (is_list_head(n, "string-append")) {
		for (i = 1; i < n->nkids; i++)
			if (check_expr(n->kids[i], err))
				return -1;
		return 0;
	}
	if (is_list_head(n, "param") && n->nkids == 2 &&
	    n->kids[1]->kind == SBPL_NODE_STRING && n->kids[1]->len) {
		for (i = 0; i < n->kids[1]->len; i++) {
			char c = n->kids[1]->text[i];

			if (!((c >= 'A' && c <= 'Z') ||
			      (c >= '0' && c <= '9') || c == '_'))
				return fail(err, "line %u: bad parameter name "
					    "'%s'", n->line, n->kids[1]->text);
		}
		return 0;
	}
	return fail(err, "line %u: expected a string, (string-append ...) "
		    "or (param \"NAME\")", n->line);
}

/* "localhost:PORT", "localhost:*", "*:PORT" or "*:*". */
static bool ip_spec_valid(const char *s)
{
	const char *colon = strrchr(s, ':');
	char *end;
	long port;

	if (!colon)
		return false;
	if (!((colon - s == 9 && strncmp(s, "localhost", 9) == 0) ||
	      (colon - s == 1 && s[0] == '*')))
		return false;
	if (strcmp(colon + 1, "*") == 0)
		return true;
	if (colon[1] < '1' || colon[1] > '9')
		return false;
	port = strtol(colon + 1, &end, 10);
	return !*end && port >= 1 && port <= 65535;
}

static int check_filter(struct sbpl_node *f, unsigned *cat, char **err)
{
	const char *name;

	if (f->kind != SBPL_NODE_LIST || !f->nkids ||
	    f->kids[0]->kind != SBPL_NODE_SYMBOL)
		return fail(err, "line %u: a filter must be a list starting "
			    "with its name", f->line);
	name = f->kids[0]->text;
	if (!strcmp(name, "literal") || !strcmp(name, "subpath") ||
	    !strcmp(name, "regex")) {
		*cat = CAT_PATH;
		return sbpl_filter_compile(f, err);
	}
	if (!strcmp(name, "remote") || !strcmp(name, "local")) {
		*cat = name[0] == 'r' ? CAT_REMOTE : CAT_LOCAL;
		if (f->nkids != 3 || !is_sym(f->kids[1], "ip"))
			return fail(err, "line %u: (%s ip ADDRESS) expected",
				    f->line, name);
		if (f->kids[2]->kind == SBPL_NODE_STRING &&
		    !ip_spec_valid(f->kids[2]->text))
			return fail(err, "line %u: '%s' is not HOST:PORT with "
				    "HOST localhost or *", f->line,
				    f->kids[2]->text);
		return check_expr(f->kids[2], err);
	}
	if (!strcmp(name, "global-name") || !strcmp(name, "sysctl-name") ||
	    !strcmp(name, "sysctl-name-prefix") ||
	    !strcmp(name, "ipc-posix-name")) {
		*cat = name[0] == 'g' ? CAT_MACH :
		       name[0] == 's' ? CAT_SYSCTL : CAT_IPC;
		if (f->nkids != 2 || f->kids[1]->kind != SBPL_NODE_STRING ||
		    !f->kids[1]->len)
			return fail(err, "line %u: (%s \"NAME\") expected",
				    f->line, name);
		return 0;
	}
	if (!strcmp(name, "target")) {
		*cat = CAT_TARGET;
		if (f->nkids != 2 || !(is_sym(f->kids[1], "self") ||
				       is_sym(f->kids[1], "same-sandbox")))
			return fail(err, "line %u: (target self|same-sandbox) "
				    "expected", f->line);
		return 0;
	}
	return fail(err, "line %u: unknown filter '%s'", f->line, name);
}

static int check_rule(struct sbpl_node *r, char **err)
{
	const struct op_info *ops[array_size(known_ops)];
	size_t nops = 0, i, k;
	unsigned cat = 0;

	if (r->kind != SBPL_NODE_LIST || r->nkids < 2 ||
	    !(is_sym(r->kids[0], "allow") || is_sym(r->kids[0], "deny")))
		return fail(err, "line %u: a rule is (allow|deny OPERATION... "
			    "FILTER...)", r->line);
	for (i = 1; i < r->nkids && r->kids[i]->kind == SBPL_NODE_SYMBOL;
	     i++) {
		const struct op_info *op = op_lookup(r->kids[i]->text);

		if (!op)
			return fail(err, "line %u: unknown operation '%s'",
				    r->line, r->kids[i]->text);
		if (nops == array_size(ops))
			return fail(err, "line %u: operation listed twice",
				    r->line);
		ops[nops++] = op;
	}
	if (!nops)
		return fail(err, "line %u: a rule names no operation", r->line);
	for (; i < r->nkids; i++) {
		if (r->kids[i]->kind != SBPL_NODE_LIST)
			return fail(err, "line %u: '%s' after a filter",
				    r->line, r->kids[i]->text);
		if (check_filter(r->kids[i], &cat, err))
			return -1;
		for (k = 0; k < nops; k++)
			if (!(ops[k]->cats & cat))
				return fail(err, "line %u: operation '%s' "
					    "does not take filter '%s'",
					    r->line, ops[k]->name,
					    r->kids[i]->kids[0]->text);
	}
	return 0;
}

int sbpl_check(struct sbpl_profile *p, char **err)
{
	size_t i;

	*err = NULL;
	for (i = 0; i < p->nforms; i++)
		if (check_strings(p->forms[i], err))
			return -1;
	if (p->nforms < 2)
		return fail(err, "a profile needs (version 1) and "
			    "(deny default)");
	if (!is_list_head(p->forms[0], "version") ||
	    p->forms[0]->nkids != 2 || !is_sym(p->forms[0]->kids[1], "1"))
		return fail(err, "line %u: the first form must be (version 1)",
			    p->forms[0]->line);
	if (!is_list_head(p->forms[1], "deny") || p->forms[1]->nkids != 2 ||
	    !is_sym(p->forms[1]->kids[1], "default"))
		return fail(err, "line %u: the second form must be "
			    "(deny default)", p->forms[1]->line);
	for (i = 2; i < p->nforms; i++)
		if (check_rule(p->forms[i], err))
			return -1;
	return 0;
}

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
