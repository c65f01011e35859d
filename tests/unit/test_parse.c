/* SPDX-License-Identifier: MIT */
/*
 * test_parse.c - the front end: rule-file syntax, locations, encoding
 * checks and @include expansion, through load_buffer(), load_rules() and
 * parse_input().  The @include cases, on real files, are in
 * test_parse_include.c (test_parse_int.h).
 */
#include <vbox.h>

#include <errno.h>
#include <stdio.h>

#include "diag.h"
#include "load.h"
#include "location.h"
#include "stmt.h"
#include "tap.h"
#include "test_parse_int.h"

void run_init(struct run *r)
{
	memset(r, 0, sizeof(*r));
	diag_list_init(&r->diags);
}

void run_free(struct run *r)
{
	stmt_list_free(&r->out);
	diag_list_free(&r->diags);
	input_set_free(&r->inputs);
}

static void run_buf(struct run *r, const char *buf, size_t len)
{
	run_init(r);
	r->rc = load_buffer(&r->inputs, "t.rules", buf, len, &r->out,
			    &r->diags);
}

void run_str(struct run *r, const char *text)
{
	run_buf(r, text, strlen(text));
}

const char *first_msg(const struct run *r)
{
	return r->diags.n ? r->diags.items[0].msg : NULL;
}

/* @text loads cleanly into @n statements. */
static void check_ok(const char *text, size_t n, const char *what)
{
	struct run r;

	run_str(&r, text);
	is_int(r.rc, 0, "%s: loads", what);
	is_int(r.out.n, n, "%s: %zu statement(s)", what, n);
	if (r.diags.n)
		diag("  first error: %s", first_msg(&r));
	run_free(&r);
}

/*
 * @text gives exactly one error, at @line:@col, with message @msg, and
 * no statement from that line.
 */
static void check_err_buf(const char *buf, size_t len, unsigned line,
			  unsigned col, const char *msg, const char *what)
{
	struct run r;

	run_buf(&r, buf, len);
	is_int(r.rc, -1, "%s: fails", what);
	is_int(r.diags.nerrors, 1, "%s: one error", what);
	if (r.diags.n) {
		const struct diag *d = &r.diags.items[0];

		is_int(d->loc.line, line, "%s: error line", what);
		is_int(d->loc.col, col, "%s: error column", what);
		is_str(d->msg, msg, "%s: message", what);
		ok(d->loc.in && d->loc.last_col >= d->loc.col,
		   "%s: located span", what);
	} else {
		ok(0, "%s: error line", what);
		ok(0, "%s: error column", what);
		ok(0, "%s: message", what);
		ok(0, "%s: located span", what);
	}
	is_int(r.out.n, 0, "%s: no statement", what);
	run_free(&r);
}

static void check_err(const char *text, unsigned line, unsigned col,
		      const char *msg, const char *what)
{
	check_err_buf(text, strlen(text), line, col, msg, what);
}

/* @text is one row; check its fields. */
static void check_row(const char *text, unsigned level, enum effect effect,
		      const char *value, bool quoted, unsigned col,
		      unsigned vcol, unsigned vlast, const char *what)
{
	const struct stmt *s;
	struct run r;

	run_str(&r, text);
	is_int(r.rc, 0, "%s: loads", what);
	if (r.out.n != 1) {
		ok(0, "%s: one row (got %zu, error: %s)", what, r.out.n,
		   first_msg(&r) ? first_msg(&r) : "none");
		run_free(&r);
		return;
	}
	s = &r.out.items[0];
	ok(s->kind == STMT_ROW, "%s: a row", what);
	is_int(s->level, level, "%s: level", what);
	is_int(s->effect, effect, "%s: effect", what);
	is_str(s->value, value, "%s: value", what);
	is_int(s->quoted, quoted, "%s: quoted", what);
	is_int(s->loc.col, col, "%s: column", what);
	is_int(s->value_loc.col, vcol, "%s: value column", what);
	is_int(s->value_loc.last_col, vlast, "%s: value last column", what);
	is_int(s->loc.last_col, vlast, "%s: row ends with its value", what);
	run_free(&r);
}

/* --------------------------------------------------------------------- */

static void test_rows(void)
{
	check_row("deny:/etc/shadow\n", 0, EFFECT_DENY, "/etc/shadow", false,
		  1, 6, 16, "plain deny");
	check_row("ro:/usr", 0, EFFECT_RO, "/usr", false, 1, 4, 7,
		  "no final newline");
	check_row("rw:~/work\n", 0, EFFECT_RW, "~/work", false, 1, 4, 9,
		  "rw");
	check_row("allow:example.com:443\n", 0, EFFECT_ALLOW,
		  "example.com:443", false, 1, 7, 21, "allow");
	check_row("!deny:/x\n", 1, EFFECT_DENY, "/x", false, 1, 7, 8,
		  "one bang");
	check_row("!!!rw:/x\n", 3, EFFECT_RW, "/x", false, 1, 7, 8,
		  "three bangs");
	check_row("deny:   /x\n", 0, EFFECT_DENY, "/x", false, 1, 9, 10,
		  "blanks after colon skipped");
	check_row("deny:\t/x\n", 0, EFFECT_DENY, "/x", false, 1, 9, 10,
		  "tab after colon");
	check_row("   deny:/x   \n", 0, EFFECT_DENY, "/x", false, 4, 9, 10,
		  "leading and trailing blanks");
	check_row("deny:/x \t \n", 0, EFFECT_DENY, "/x", false, 1, 6, 7,
		  "trailing tab and blanks cut");
	check_row("\tdeny:/x\n", 0, EFFECT_DENY, "/x", false, 9, 14, 15,
		  "leading tab: column 9");
	check_row(" \tdeny:/x\n", 0, EFFECT_DENY, "/x", false, 9, 14, 15,
		  "blank then tab: column 9");
	check_row("deny:/a b  c\n", 0, EFFECT_DENY, "/a b  c", false, 1, 6,
		  12, "inner blanks kept");
	check_row("deny:/x # comment\n", 0, EFFECT_DENY, "/x", false, 1, 6,
		  7, "trailing comment cut");
	check_row("deny:/x\t# comment\n", 0, EFFECT_DENY, "/x", false, 1, 6,
		  7, "trailing comment after tab");
	check_row("deny:/a#b\n", 0, EFFECT_DENY, "/a#b", false, 1, 6, 9,
		  "'#' not after a blank is literal");
	check_row("deny:/a b#c d #e\n", 0, EFFECT_DENY, "/a b#c d", false, 1,
		  6, 13, "cut at the first blank-'#' only");
	check_row("deny:#x\n", 0, EFFECT_DENY, "#x", false, 1, 6, 7,
		  "'#' right after ':' is literal");
	check_row("deny:/x\r\n", 0, EFFECT_DENY, "/x", false, 1, 6, 7,
		  "CRLF");
	check_row("deny:/é/ü # c\n", 0, EFFECT_DENY, "/é/ü", false, 1, 6, 9,
		  "UTF-8 counts one column a character");
	check_row("ro:\"/a b\"\n", 0, EFFECT_RO, "/a b", true, 1, 4, 9,
		  "quoted");
	check_row("ro:\"a\\\"b\\\\c\"\n", 0, EFFECT_RO, "a\"b\\c", true, 1,
		  4, 12, "quoted escapes");
	check_row("ro:\"/a #b\"\n", 0, EFFECT_RO, "/a #b", true, 1, 4, 10,
		  "'#' inside quotes");
	check_row("ro:\"/x\"  # c\n", 0, EFFECT_RO, "/x", true, 1, 4, 7,
		  "comment after quotes");
	check_row("ro:\"/x\" \t\r\n", 0, EFFECT_RO, "/x", true, 1, 4, 7,
		  "blanks after quotes, CRLF");
	check_row("ro: \"/**\"", 0, EFFECT_RO, "/**", true, 1, 5, 9,
		  "quoted, no final newline");
	check_row("ro:\"  \"\n", 0, EFFECT_RO, "  ", true, 1, 4, 7,
		  "quoted blanks are a target");
	check_row("deny:\"évil\"\n", 0, EFFECT_DENY, "évil", true, 1, 6, 11,
		  "quoted UTF-8");
	check_row("deny:/a\"b\n", 0, EFFECT_DENY, "/a\"b", false, 1, 6, 9,
		  "quote inside unquoted text is literal");

	/* 255 bangs are fine. */
	{
		char buf[300];

		memset(buf, '!', 255);
		strcpy(buf + 255, "deny:/x\n");
		check_row(buf, 255, EFFECT_DENY, "/x", false, 1, 261, 262,
			  "255 bangs");
		memset(buf, '!', 256);
		strcpy(buf + 256, "deny:/x\n");
		check_err(buf, 1, 1, "more than 255 '!' (level 256)",
			  "256 bangs");
	}
}

static void test_row_errors(void)
{
	check_err("DENY:/x\n", 1, 1,
		  "unknown effect 'DENY': effects are lower case", "DENY");
	check_err("Ro:/x\n", 1, 1,
		  "unknown effect 'Ro': effects are lower case", "Ro");
	check_err("dny:/x\n", 1, 1,
		  "unknown effect 'dny'; did you mean 'deny'?", "dny");
	check_err("read:/x\n", 1, 1, "unknown effect 'read': expected "
		  "'deny', 'ro', 'rw' or 'allow'", "read");
	check_err("deny :/x\n", 1, 5, "white space between 'deny' and ':'",
		  "blank before colon");
	check_err("ro\t:/x\n", 1, 3, "white space between 'ro' and ':'",
		  "tab before colon");
	check_err("! deny:/x\n", 1, 2, "white space between '!' and 'deny'",
		  "blank after bang");
	check_err("! !deny:/x\n", 1, 2, "white space between '!' and '!'",
		  "blank between bangs");
	check_err("deny /x\n", 1, 5, "missing ':' after 'deny'",
		  "missing colon");
	check_err("deny\n", 1, 5, "missing ':' after 'deny'",
		  "bare effect");
	check_err("allow", 1, 6, "missing ':' after 'allow'",
		  "bare effect at end of file");
	check_err("!!:/x\n", 1, 3, "missing effect after '!'",
		  "bangs without effect");
	check_err(":/x\n", 1, 1, "missing effect before ':'",
		  "colon at line start");
	check_err("/etc/passwd\n", 1, 1, "unknown statement '/etc/passwd': "
		  "expected a row (EFFECT:TARGET), a directive or a section "
		  "header", "bare path");
	check_err("\"deny\":/x\n", 1, 1, "unexpected '\"': expected a row "
		  "(EFFECT:TARGET), a directive or a section header",
		  "quote at line start");
	check_err("deny:\n", 1, 6, "empty target", "empty target");
	check_err("deny:", 1, 6, "empty target", "empty target at EOF");
	check_err("deny:   # comment\n", 1, 6, "empty target",
		  "comment only");
	check_err("ro:\"\"\n", 1, 4, "empty target", "empty quoted target");
	check_err("ro:\"abc\n", 1, 4, "unterminated quoted target",
		  "unterminated");
	check_err("ro:\"abc", 1, 4, "unterminated quoted target",
		  "unterminated at EOF");
	check_err("ro:\"abc\\\n", 1, 4, "unterminated quoted target",
		  "backslash before line end");
	check_err("ro:\"a\\nb\"\n", 1, 6, "unknown escape '\\n' in quoted "
		  "target: only \\\" and \\\\ are allowed", "\\n escape");
	check_err("ro:\"a\\*\"\n", 1, 6, "unknown escape '\\*' in quoted "
		  "target: only \\\" and \\\\ are allowed", "\\* escape");
	check_err("ro:\"a\\é\"\n", 1, 6, "unknown escape '\\é' in quoted "
		  "target: only \\\" and \\\\ are allowed", "UTF-8 escape");
	check_err("ro:\"/x\" y\n", 1, 9,
		  "unexpected text after quoted target: 'y'",
		  "text after quotes");
	check_err("ro:\"/x\"#c\n", 1, 8,
		  "unexpected text after quoted target: '#c'",
		  "'#' right after quotes");
	check_err("ro:\"/x\"\"y\"\n", 1, 8,
		  "unexpected text after quoted target: '\"y\"'",
		  "two quoted strings");
	check_err("]\n", 1, 1, "unexpected ']': expected a row "
		  "(EFFECT:TARGET), a directive or a section header",
		  "stray bracket");

	/* The leftmost mistake of a line is the one reported. */
	check_err("DENY :\"a\\q\" x\n", 1, 1,
		  "unknown effect 'DENY': effects are lower case",
		  "several mistakes: leftmost");
	check_err("deny :\"a\n", 1, 5, "white space between 'deny' and ':'",
		  "blank and unterminated");
}

static void test_lines(void)
{
	struct run r;

	check_ok("", 0, "empty file");
	check_ok("\n\n\n", 0, "blank lines");
	check_ok("  \t \n\t\n", 0, "lines of blanks");
	check_ok("# comment\n   # indented\n\t#tab\n#", 0, "comments");
	check_ok("\r\n# c\r\n\r\n", 0, "CRLF blank and comment lines");
	check_ok("deny:/a\nro:/b\n\nrw:/c\n# c\nallow:x.org\n", 4,
		 "several rows");

	/* One error a line; later lines still count. */
	run_str(&r, "DENY:/x\ndeny:/ok\nro \"x\"\nrw:/ok2\n");
	is_int(r.rc, -1, "recovery: fails");
	is_int(r.diags.nerrors, 2, "recovery: two errors");
	is_int(r.out.n, 2, "recovery: both good rows kept");
	if (r.diags.n == 2) {
		is_int(r.diags.items[0].loc.line, 1, "recovery: first at 1");
		is_int(r.diags.items[1].loc.line, 3, "recovery: second at 3");
	}
	if (r.out.n == 2) {
		is_str(r.out.items[0].value, "/ok", "recovery: row 2");
		is_int(r.out.items[1].loc.line, 4, "recovery: row 4 line");
	}
	run_free(&r);

	/* A line that fails after a complete row adds nothing. */
	run_str(&r, "ro:\"/a\" junk\nrw:/b\n");
	is_int(r.diags.nerrors, 1, "junk after row: one error");
	is_int(r.out.n, 1, "junk after row: row dropped");
	run_free(&r);

	/* Past the cap errors are counted, not stored: the parse goes on. */
	{
		char buf[4000];
		size_t i, o = 0;

		for (i = 0; i < 100; i++)
			o += sprintf(buf + o, "DENY:/x%zu\n", i);
		run_init(&r);
		r.diags.max_errors = 5;
		r.rc = load_buffer(&r.inputs, "t.rules", buf, o, &r.out,
				   &r.diags);
		is_int(r.rc, -1, "error cap: fails");
		is_int(r.diags.nerrors, 100, "error cap: every error counted");
		/*
		 * One reason 100 times: text shows 3 and folds the rest,
		 * outside the cap; the list keeps each (compiler/diag.h).
		 */
		is_int(r.diags.n, 100, "error cap: one reason: every error kept");
		is_int(r.diags.dropped, 0, "error cap: one reason folds outside it");
		is_int(r.diags.nshown, 3, "error cap: one reason: three shown");
		run_free(&r);
	}

	/* Line numbers and line offsets. */
	run_str(&r, "# c\r\n\ndeny:/a\n  ro:\"b\"\n");
	if (r.out.n == 2) {
		const struct stmt *s = &r.out.items[1];
		size_t len;
		const char *line = location_line(&s->loc, &len);

		is_int(r.out.items[0].loc.line, 3, "line after CRLF and blank");
		is_int(r.out.items[0].loc.line_offset, 6, "line offset 3");
		is_int(s->loc.line, 4, "line 4");
		is_int(s->loc.line_offset, 14, "line offset 4");
		is_int(s->value_loc.line_offset, 14, "value line offset");
		ok(line && len == 8 && memcmp(line, "  ro:\"b\"", 8) == 0,
		   "location_line finds the line");
	} else {
		ok(0, "offsets: two rows");
	}
	run_free(&r);
}

static void test_sections(void)
{
	struct run r;

	run_str(&r, "deny:/a\n[fs]\ndeny:/b\n[net] # c\ndeny:x.org\n"
		"[fs]\t\nro:/c\n");
	is_int(r.rc, 0, "sections: load");
	if (r.out.n == 4) {
		is_int(r.out.items[0].section, SECTION_NONE, "before any");
		is_int(r.out.items[1].section, SECTION_FS, "[fs]");
		is_int(r.out.items[2].section, SECTION_NET, "[net]");
		is_int(r.out.items[3].section, SECTION_FS, "[fs] again");
	} else {
		ok(0, "sections: four rows");
	}
	run_free(&r);

	check_ok("[fs]", 0, "section at EOF");
	check_ok("  [net]  \r\n", 0, "section with blanks and CRLF");
	check_err("[FS]\n", 1, 1, "unknown section header '[FS]': section "
		  "headers are lower case", "[FS]");
	check_err("[dns]\n", 1, 1, "unknown section header '[dns]': "
		  "expected '[fs]' or '[net]'", "[dns]");
	check_err("[ fs ]\n", 1, 1, "unknown section header '[ fs ]': "
		  "expected '[fs]' or '[net]'", "[ fs ]");
	check_err("[fs\n", 1, 1, "unterminated section header '[fs': "
		  "missing ']'", "[fs");
	check_err("[fs] deny:/x\n", 1, 6,
		  "unexpected text after '[fs]': 'deny:/x'",
		  "row after header");
	check_err("[net]#c\n", 1, 6, "unexpected text after '[net]': '#c'",
		  "comment without blank");

	/* A header on a line with an error opens no section. */
	run_str(&r, "[net]\n[fs] x\ndeny:x.org\n");
	if (r.out.n == 1)
		is_int(r.out.items[0].section, SECTION_NET,
		       "failed header changes nothing");
	else
		ok(0, "failed header: one row");
	run_free(&r);
}

static void test_directives(void)
{
	struct run r;

	run_str(&r, "@default write deny\n  @default net open # c\n"
		"@upstream-proxy http://u:p@h:8080 # c\n"
		"@upstream-proxy  socks5://h:1#frag \n");
	is_int(r.rc, 0, "directives: load");
	if (r.out.n == 4) {
		const struct stmt *s = &r.out.items[0];

		is_int(s->kind, STMT_DEFAULT, "@default kind");
		is_str(s->arg, "write", "@default arg");
		is_str(s->value, "deny", "@default value");
		is_int(s->loc.col, 1, "@default column");
		is_int(s->loc.last_col, 19, "@default last column");
		is_int(s->arg_loc.col, 10, "@default arg column");
		is_int(s->arg_loc.last_col, 14, "@default arg last column");
		is_int(s->value_loc.col, 16, "@default value column");
		s = &r.out.items[1];
		is_str(s->arg, "net", "second @default arg");
		is_str(s->value, "open", "second @default value");
		is_int(s->loc.col, 3, "indented @default column");
		s = &r.out.items[2];
		is_int(s->kind, STMT_UPSTREAM, "@upstream-proxy kind");
		is_str(s->value, "http://u:p@h:8080",
		       "@upstream-proxy value, comment cut");
		is_int(s->value_loc.col, 17, "@upstream-proxy value column");
		is_int(s->quoted, 0, "@upstream-proxy unquoted");
		s = &r.out.items[3];
		is_str(s->value, "socks5://h:1#frag",
		       "@upstream-proxy keeps '#' not after a blank");
	} else {
		ok(0, "directives: four statements (got %zu: %s)", r.out.n,
		   first_msg(&r) ? first_msg(&r) : "");
	}
	run_free(&r);

	check_ok("@default write rw", 1, "@default at EOF");
	check_err("@defualt write deny\n", 1, 1, "unknown directive "
		  "'@defualt'; did you mean '@default'?", "@defualt");
	check_err("@inclde \"x\"\n", 1, 1, "unknown directive '@inclde'; "
		  "did you mean '@include'?", "@inclde");
	check_err("@upstream_proxy http://h:1\n", 1, 1, "unknown directive "
		  "'@upstream_proxy'; did you mean '@upstream-proxy'?",
		  "@upstream_proxy");
	check_err("@DEFAULT write deny\n", 1, 1, "unknown directive "
		  "'@DEFAULT': directive names are lower case", "@DEFAULT");
	check_err("@proxy x\n", 1, 1, "unknown directive '@proxy': expected "
		  "'@default', '@upstream-proxy' or '@include'", "@proxy");
	check_err("@\n", 1, 1, "unknown directive '@': expected "
		  "'@default', '@upstream-proxy' or '@include'", "bare @");
	check_err("  @defaults write deny\n", 1, 3, "unknown directive "
		  "'@defaults'; did you mean '@default'?", "@defaults");
	check_err("@default\n", 1, 9, "missing setting after '@default': "
		  "write '@default write deny|rw' or '@default net deny|open'",
		  "@default alone");
	check_err("@default write\n", 1, 15,
		  "missing value after '@default write'", "@default one word");
	check_err("@default write deny rw\n", 1, 21, "unexpected 'rw' after "
		  "'deny': expected end of line", "@default three words");
	check_err("@default: write\n", 1, 9,
		  "unexpected ':' after '@default'", "@default colon");
	check_err("@upstream-proxy\n", 1, 16,
		  "missing URL after '@upstream-proxy'",
		  "@upstream-proxy alone");
	check_err("@upstream-proxy   # c\n", 1, 16,
		  "missing URL after '@upstream-proxy'",
		  "@upstream-proxy comment only");
	check_err("@upstream-proxy \"http://h:1\"\n", 1, 17,
		  "'@upstream-proxy' takes an unquoted URL",
		  "@upstream-proxy quoted");
	check_err("@include x.rules\n", 1, 10, "the path of '@include' must be "
		  "quoted: write '@include \"x.rules\"'", "@include unquoted");
	check_err("@include\n", 1, 9, "missing path after '@include'",
		  "@include alone");
	check_err("@include \"\"\n", 1, 10, "empty path after '@include'",
		  "@include empty");
	check_err("@include \"a\" b\n", 1, 14,
		  "unexpected text after quoted path: 'b'",
		  "@include trailing text");
}

/* parse_input() hands @include on as a statement; the loader expands it. */
static void test_parse_input(void)
{
	const char text[] = "[net]\n@include \"a \\\"b\\\".rules\" # c\n";
	struct input in = {
		.name = (char *)"direct.rules",
		.buf = (char *)text,
		.len = sizeof(text) - 1,
	};
	struct stmt_list out = { 0 };
	struct diag_list diags;
	int rc;

	diag_list_init(&diags);
	rc = parse_input(&in, &out, &diags);
	is_int(rc, 0, "parse_input: ok");
	if (out.n == 1) {
		const struct stmt *s = &out.items[0];

		is_int(s->kind, STMT_INCLUDE, "parse_input: include kind");
		is_str(s->value, "a \"b\".rules", "include path unescaped");
		is_int(s->quoted, 1, "include quoted");
		is_int(s->loc.line, 2, "include line");
		is_int(s->loc.col, 1, "include column");
		is_int(s->value_loc.col, 10, "include path column");
		is_int(s->value_loc.last_col, 24, "include path last column");
		ok(s->loc.in == &in, "include location's input");
	} else {
		ok(0, "parse_input: one statement");
	}
	stmt_list_free(&out);
	diag_list_free(&diags);

	/* parse_input alone must survive bytes the loader would refuse. */
	{
		const char bad[] = "deny:/a\0b\nro:\"\0\"\nx\ry\n\xff:\x80\n";
		struct input bin = {
			.name = (char *)"bin.rules",
			.buf = (char *)bad,
			.len = sizeof(bad) - 1,
		};

		diag_list_init(&diags);
		rc = parse_input(&bin, &out, &diags);
		is_int(rc, -1, "parse_input: raw NUL and CR are errors");
		ok(diags.nerrors >= 3, "parse_input: one error a bad line");
		stmt_list_free(&out);
		diag_list_free(&diags);
	}
}

static void test_encoding(void)
{
	struct run r;

	check_err_buf("deny:/a\nro:/b\0c\n", 16, 2, 6, "invalid NUL byte",
		      "NUL byte");
	check_err("deny:/a\rb\n", 1, 8,
		  "lone carriage return: lines end with LF or CRLF", "lone CR");
	check_err("deny:/a\r", 1, 8,
		  "lone carriage return: lines end with LF or CRLF",
		  "CR at EOF");
	check_err("deny:/\xc0\xaf\n", 1, 7,
		  "invalid UTF-8: overlong encoding (byte 0xc0)", "overlong 2");
	check_err("deny:/\xe0\x80\xaf\n", 1, 7,
		  "invalid UTF-8: overlong encoding (byte 0xe0)", "overlong 3");
	check_err("deny:/\xf0\x80\x80\xaf\n", 1, 7,
		  "invalid UTF-8: overlong encoding (byte 0xf0)", "overlong 4");
	check_err("deny:/\xed\xa0\x80\n", 1, 7,
		  "invalid UTF-8: surrogate code point (byte 0xed)",
		  "surrogate");
	check_err("deny:/\xf4\x90\x80\x80\n", 1, 7,
		  "invalid UTF-8: code point above U+10FFFF (byte 0xf4)",
		  "above U+10FFFF");
	check_err("deny:/\xf5\x80\x80\x80\n", 1, 7,
		  "invalid UTF-8: code point above U+10FFFF (byte 0xf5)",
		  "0xf5 lead byte");
	check_err("deny:/\xe2\x82\n", 1, 7,
		  "invalid UTF-8: truncated sequence (byte 0xe2)", "truncated");
	check_err("deny:/\xe2\x82", 1, 7,
		  "invalid UTF-8: truncated sequence (byte 0xe2)",
		  "truncated at EOF");
	check_err("deny:/\x80\n", 1, 7,
		  "invalid UTF-8: unexpected continuation byte (byte 0x80)",
		  "stray continuation");
	check_err("deny:/\xff\n", 1, 7,
		  "invalid UTF-8: byte that starts no character (byte 0xff)",
		  "0xff");
	check_err("\tro:/é\xff\n", 1, 14,
		  "invalid UTF-8: byte that starts no character (byte 0xff)",
		  "column after tab and UTF-8");
	check_ok("deny:/\xf4\x8f\xbf\xbf/\xef\xbf\xbd\n", 1,
		 "U+10FFFF and U+FFFD are fine");

	/* One error a line, every bad line, and nothing parsed. */
	run_str(&r, "ro:/\xff\xff\xff\nDENY:/x\nro:/\x80\nro:/ok\n");
	is_int(r.diags.nerrors, 2, "encoding: one error a bad line");
	is_int(r.out.n, 0, "encoding: the file is not parsed");
	if (r.diags.n == 2)
		is_int(r.diags.items[1].loc.line, 3, "encoding: second line 3");
	run_free(&r);

	run_init(&r);
	r.diags.max_errors = 3;
	{
		char buf[200];
		size_t i;

		for (i = 0; i < 10; i++)
			memcpy(buf + i * 5, "r\xff:x\n", 5);
		r.rc = load_buffer(&r.inputs, "t.rules", buf, 50, &r.out,
				   &r.diags);
	}
	is_int(r.diags.nerrors, 10, "encoding errors: all counted");
	/* One reason: folded in text, outside the cap. */
	is_int(r.diags.dropped, 0, "encoding errors: one reason, none dropped");
	run_free(&r);

	/* A byte-order mark is skipped; columns count after it. */
	check_row("\xef\xbb\xbf" "deny:/x\n", 0, EFFECT_DENY, "/x", false, 1,
		  6, 7, "BOM skipped");
	check_err("\xef\xbb\xbf" "DENY:/x\n", 1, 1,
		  "unknown effect 'DENY': effects are lower case",
		  "BOM then error at column 1");
	run_str(&r, "\xef\xbb\xbf# c\n");
	is_int(r.rc, 0, "BOM then comment");
	ok(r.inputs.n == 1 && r.inputs.items[0]->len == 4 &&
	   strcmp(r.inputs.items[0]->buf, "# c\n") == 0,
	   "BOM removed from the input buffer");
	run_free(&r);
	check_err("\n\xef\xbb\xbf\n", 2, 1, "unknown statement "
		  "'\xef\xbb\xbf': expected a row (EFFECT:TARGET), a directive "
		  "or a section header", "BOM elsewhere is text");
}

static void test_big(void)
{
	struct run r;
	size_t n = 1u << 20, i;
	char *buf = xmalloc(n + 64);

	/* A 1 MiB line. */
	memcpy(buf, "deny:/", 6);
	memset(buf + 6, 'a', n);
	memcpy(buf + 6 + n, "   # c\n", 7);
	run_buf(&r, buf, n + 13);
	is_int(r.rc, 0, "1 MiB line loads");
	ok(r.out.n == 1 && strlen(r.out.items[0].value) == n + 1,
	   "1 MiB target kept whole");
	if (r.out.n == 1)
		is_int(r.out.items[0].value_loc.last_col, n + 6,
		       "1 MiB line last column");
	run_free(&r);

	/* A 1 MiB quoted line without its closing quote. */
	memcpy(buf, "ro:\"", 4);
	memset(buf + 4, 'b', n);
	run_buf(&r, buf, n + 4);
	is_str(first_msg(&r), "unterminated quoted target",
	       "1 MiB unterminated quote");
	run_free(&r);

	/* A 1 MiB run of blanks inside and after a target. */
	memcpy(buf, "deny:/x", 7);
	memset(buf + 7, ' ', n);
	memcpy(buf + 7 + n, "y\t\n", 3);
	run_buf(&r, buf, n + 10);
	ok(r.rc == 0 && r.out.n == 1 && strlen(r.out.items[0].value) == n + 3,
	   "1 MiB of inner blanks");
	run_free(&r);
	free(buf);

	/* A million lines. */
	{
		size_t lines = 1000000, len = 0;
		char *big = xmalloc(lines * 24);

		for (i = 0; i < lines; i++) {
			switch (i % 4) {
			case 0:
				len += sprintf(big + len, "deny:/d/%zu\n", i);
				break;
			case 1:
				len += sprintf(big + len, "!rw:\"/w %zu\"\n",
					       i);
				break;
			case 2:
				len += sprintf(big + len, "# %zu\n", i);
				break;
			default:
				len += sprintf(big + len, "\n");
				break;
			}
		}
		run_buf(&r, big, len);
		is_int(r.rc, 0, "a million lines load");
		is_int(r.out.n, lines / 2, "a million lines: rows");
		if (r.out.n == lines / 2)
			is_int(r.out.items[r.out.n - 1].loc.line, lines - 2,
			       "a million lines: last row's line");
		run_free(&r);
		free(big);
	}
}

int main(void)
{
	strcpy(tmpdir, "/tmp/vbox-test-parse.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}

	test_rows();
	test_row_errors();
	test_lines();
	test_sections();
	test_directives();
	test_parse_input();
	test_encoding();
	test_big();
	test_includes();

	cleanup();
	return done_testing();
}
