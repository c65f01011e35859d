/* SPDX-License-Identifier: MIT */
/*
 * sbpl_check.c - parse and check vboxc's SBPL profiles (see
 * sbpl_check.h).  Written for tests: it accepts only what the emitter
 * promises to write, so any drift in the emitter shows up here.  The
 * interpretation, how Seatbelt decides, is in sbpl_eval.c.
 */
#include <vbox.h>

#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <strings.h>

#include "sbpl_check.h"
#include "sbpl_check_int.h"

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
