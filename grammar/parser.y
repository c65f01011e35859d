/* SPDX-License-Identifier: MIT */
/*
 * parser.y - the rule-file grammar (doc/rules.md §1 "Files and lines",
 * §2 "Rows", §4 "Directives").
 *
 * One statement a line.  Actions only construct struct stmt records and
 * report syntax errors; every semantic check (directive words, URLs, the
 * domain of a deny row, targets) is the compiler's.  Errors recover at the
 * end of the line so one mistake gives one message and later lines are
 * still checked.
 */

%code top {
#include <vbox.h>

#include <stdarg.h>
#include <stdio.h>
}

%code requires {
#include <stdbool.h>
#include "location.h"
#include "stmt.h"

struct parse_state;

/**
 * struct parse_value - a target or path as the parser carries it
 * @s: the text, quotes removed and escapes resolved (owned)
 * @quoted: it was written in double quotes
 */
struct parse_value {
	char *s;
	bool quoted;
};

/**
 * enum parse_line_kind - what a complete line does
 * @PARSE_LINE_NONE: nothing (its error is already reported)
 * @PARSE_LINE_STMT: append a statement
 * @PARSE_LINE_SECTION: open a section
 */
enum parse_line_kind {
	PARSE_LINE_NONE,
	PARSE_LINE_STMT,
	PARSE_LINE_SECTION,
};

/**
 * struct parse_line - a statement line, applied only when its line end
 * is reached: the parser may reduce a line before the scanner has seen
 * the junk at its end, and a line with an error must change nothing
 * @kind: see enum parse_line_kind
 * @section: the section a header line opens
 * @stmt: the statement (PARSE_LINE_STMT); owns its strings
 */
struct parse_line {
	enum parse_line_kind kind;
	enum section section;
	struct stmt stmt;
};
}

%code provides {
int yylex(YYSTYPE *lvalp, YYLTYPE *llocp, void *scanner);
}

%code {
#include "diag.h"
#include "misspell.h"
#include "parse_state.h"

/*
 * Locations are spans on one line.  A rule's span runs from its first
 * symbol's first column to its last symbol's last column; an empty rule
 * takes the place of the symbol before it.
 */
#define YYLLOC_DEFAULT(cur, rhs, n)					\
	do {								\
		if (n) {						\
			(cur) = YYRHSLOC(rhs, 1);			\
			(cur).last_col = YYRHSLOC(rhs, n).last_col;	\
		} else {						\
			(cur) = YYRHSLOC(rhs, 0);			\
		}							\
	} while (0)

static void yyerror(YYLTYPE *loc, struct parse_state *state, void *scanner,
		    const char *msg);
static int check_row(struct parse_state *state, unsigned level,
		     const YYLTYPE *bang_loc, const char *word,
		     const YYLTYPE *word_loc, const YYLTYPE *colon_loc);
static void make_row(struct parse_state *state, struct parse_line *line,
		     unsigned level, const YYLTYPE *bang_loc, int effect,
		     const YYLTYPE *effect_loc, const YYLTYPE *colon_loc,
		     struct parse_value *target, const YYLTYPE *target_loc);
static void make_default(struct parse_line *line, const YYLTYPE *loc,
			 char *arg, const YYLTYPE *arg_loc, char *value,
			 const YYLTYPE *value_loc);
static void make_value(struct parse_state *state, struct parse_line *line,
		       enum stmt_kind kind, const YYLTYPE *loc, char *value,
		       bool quoted, const YYLTYPE *value_loc);
static void apply_line(struct parse_state *state, struct parse_line *line);
static struct location loc_after(const YYLTYPE *loc);
}

%define api.pure full
%define api.token.prefix {TOK_}
%define api.location.type {struct location}
%define parse.error custom
%define parse.lac full
%locations
%expect 0
%parse-param {struct parse_state *state} {void *scanner}
%lex-param {void *scanner}

%union {
	char *str;
	unsigned num;
	int effect;
	struct parse_value val;
	struct parse_line line;
}

%destructor { free($$); } <str>
%destructor { free($$.s); } <val>
%destructor { free($$.stmt.arg); free($$.stmt.value); } <line>

%token NEWLINE "end of line"
%token <num> BANGS "'!'"
%token <str> WORD "word"
%token COLON "':'"
%token <str> TEXT "text"
%token <str> QSTRING "quoted text"
%token SECTION_FS "'[fs]'"
%token SECTION_NET "'[net]'"
%token DEFAULT "'@default'"
%token UPSTREAM "'@upstream-proxy'"
%token INCLUDE "'@include'"
%token JUNK "character"
%token LEX_ERROR "invalid text"

%type <num> bangs
%type <val> target
%type <line> stmt

%%

input	: %empty
	| input line
	;

line	: NEWLINE
	| stmt NEWLINE
		{
			apply_line(state, &$1);
		}
	| error NEWLINE
		{
			/*
			 * Past the error cap errors are only counted, so
			 * the "N more errors" note is exact: go on.
			 */
			yyerrok;
		}
	;

	/*
	 * The row is checked as soon as its ':' is read, before the target
	 * is scanned, so a line with several mistakes reports its leftmost.
	 */
stmt	: bangs WORD COLON
		<effect>{ $$ = check_row(state, $1, &@1, $2, &@2, &@3); }
	  target
		{
			make_row(state, &$$, $1, &@1, $4, &@2, &@3, &$5, &@5);
			free($2);
		}
	| SECTION_FS
		{
			memset(&$$, 0, sizeof($$));
			$$.kind = PARSE_LINE_SECTION;
			$$.section = SECTION_FS;
		}
	| SECTION_NET
		{
			memset(&$$, 0, sizeof($$));
			$$.kind = PARSE_LINE_SECTION;
			$$.section = SECTION_NET;
		}
	| DEFAULT WORD WORD
		{ make_default(&$$, &@$, $2, &@2, $3, &@3); }
	| DEFAULT WORD
		{
			struct location at = loc_after(&@2);
			char *q = parse_quote($2, strlen($2));

			memset(&$$, 0, sizeof($$));
			parse_error(state, &at,
				    "missing value after '@default %s'", q);
			free(q);
			free($2);
		}
	| DEFAULT
		{
			struct location at = loc_after(&@1);

			memset(&$$, 0, sizeof($$));
			parse_error(state, &at,
				    "missing setting after '@default': "
				    "write '@default write deny|rw' or "
				    "'@default net deny|open'");
		}
	| UPSTREAM TEXT
		{
			make_value(state, &$$, STMT_UPSTREAM, &@$, $2, false,
				   &@2);
		}
	| UPSTREAM QSTRING
		{
			memset(&$$, 0, sizeof($$));
			parse_error(state, &@2,
				    "'@upstream-proxy' takes an unquoted URL");
			free($2);
		}
	| UPSTREAM
		{
			struct location at = loc_after(&@1);

			memset(&$$, 0, sizeof($$));
			parse_error(state, &at,
				    "missing URL after '@upstream-proxy'");
		}
	| INCLUDE QSTRING
		{
			make_value(state, &$$, STMT_INCLUDE, &@$, $2, true,
				   &@2);
		}
	| INCLUDE TEXT
		{
			size_t n = strlen($2);

			if (n >= 2 && $2[0] == '<' && $2[n - 1] == '>') {
				/* '@include <NAME>': the rule library. */
				memmove($2, $2 + 1, n - 2);
				$2[n - 2] = '\0';
				make_value(state, &$$, STMT_INCLUDE, &@$, $2,
					   false, &@2);
			} else {
				char *q = parse_quote($2, n);

				memset(&$$, 0, sizeof($$));
				parse_error(state, &@2,
					    "the path of '@include' must be "
					    "quoted: write '@include \"%s\"'",
					    q);
				free(q);
				free($2);
			}
		}
	| INCLUDE
		{
			struct location at = loc_after(&@1);

			memset(&$$, 0, sizeof($$));
			parse_error(state, &at,
				    "missing path after '@include'");
		}
	;

bangs	: %empty
		{ $$ = 0; }
	| BANGS
		{ $$ = $1; }
	;

target	: %empty
		{ $$.s = NULL; $$.quoted = false; }
	| TEXT
		{ $$.s = $1; $$.quoted = false; }
	| QSTRING
		{ $$.s = $1; $$.quoted = true; }
	;

%%

/* The column right after @loc, where missing text was expected. */
static struct location loc_after(const YYLTYPE *loc)
{
	struct location at = *loc;

	at.col = loc->last_col + 1;
	at.last_col = at.col;
	return at;
}

/* The blanks between two adjacent symbols on one line. */
static struct location loc_between(const YYLTYPE *a, const YYLTYPE *b)
{
	struct location at = *a;

	at.col = a->last_col + 1;
	at.last_col = b->col > at.col ? b->col - 1 : at.col;
	return at;
}

static const char *const effect_names[] = {
	[EFFECT_DENY] = "deny",
	[EFFECT_RO] = "ro",
	[EFFECT_RW] = "rw",
	[EFFECT_ALLOW] = "allow",
};

/*
 * Map an effect word; on failure queue the error.  Effects are lower case
 * only: accepting "DENY" would make "Deny" and "deny" two spellings that a
 * later tool might disagree on.
 */
static int lookup_effect(struct parse_state *state, const char *word,
			 const YYLTYPE *loc, enum effect *effect)
{
	size_t i, len = strlen(word);
	char *q;
	int ret;

	for (i = 0; i < array_size(effect_names); i++) {
		if (strcmp(word, effect_names[i]) == 0) {
			*effect = i;
			return 0;
		}
	}
	q = parse_quote(word, len);
	for (i = 0; i < array_size(effect_names); i++) {
		if (strcasecmp(word, effect_names[i]) == 0) {
			ret = parse_error(state, loc, "unknown effect '%s': "
					  "effects are lower case", q);
			goto out;
		}
	}
	for (i = 0; i < array_size(effect_names); i++) {
		if (len >= 3 &&
		    parse_misspell(word, len, effect_names[i], 1) <= 1) {
			ret = parse_error(state, loc, "unknown effect '%s'; "
					  "did you mean '%s'?", q,
					  effect_names[i]);
			goto out;
		}
	}
	ret = parse_error(state, loc, "unknown effect '%s': expected "
			  "'deny', 'ro', 'rw' or 'allow'", q);
out:
	free(q);
	return ret;
}

/*
 * Check the part of a row before its target: the effect as an enum
 * effect, or -1 after an error.
 */
static int check_row(struct parse_state *state, unsigned level,
		     const YYLTYPE *bang_loc, const char *word,
		     const YYLTYPE *word_loc, const YYLTYPE *colon_loc)
{
	enum effect effect = EFFECT_DENY;
	struct location at;

	if (level && word_loc->col != bang_loc->last_col + 1) {
		char *q = parse_quote(word, strlen(word));

		at = loc_between(bang_loc, word_loc);
		parse_error(state, &at, "white space between '!' and '%s'", q);
		free(q);
		return -1;
	}
	if (lookup_effect(state, word, word_loc, &effect))
		return -1;
	if (colon_loc->col != word_loc->last_col + 1) {
		at = loc_between(word_loc, colon_loc);
		parse_error(state, &at, "white space between '%s' and ':'",
			    effect_names[effect]);
		return -1;
	}
	return effect;
}

static void make_row(struct parse_state *state, struct parse_line *line,
		     unsigned level, const YYLTYPE *bang_loc, int effect,
		     const YYLTYPE *effect_loc, const YYLTYPE *colon_loc,
		     struct parse_value *target, const YYLTYPE *target_loc)
{
	struct stmt *s = &line->stmt;

	memset(line, 0, sizeof(*line));
	/* An earlier check on this line failed: it was reported there. */
	if (effect < 0 || state->failed_line == effect_loc->line)
		goto out;
	if (!target->s || !target->s[0]) {
		struct location at;

		at = target->s ? *target_loc : loc_after(colon_loc);
		parse_error(state, &at, "empty target");
		goto out;
	}

	line->kind = PARSE_LINE_STMT;
	s->kind = STMT_ROW;
	s->effect = effect;
	s->loc = level ? *bang_loc : *effect_loc;
	s->loc.last_col = target_loc->last_col;
	s->value_loc = *target_loc;
	s->level = level;
	s->value = target->s;
	s->quoted = target->quoted;
	target->s = NULL;
out:
	free(target->s);
}

static void make_default(struct parse_line *line, const YYLTYPE *loc,
			 char *arg, const YYLTYPE *arg_loc, char *value,
			 const YYLTYPE *value_loc)
{
	struct stmt *s = &line->stmt;

	memset(line, 0, sizeof(*line));
	line->kind = PARSE_LINE_STMT;
	s->kind = STMT_DEFAULT;
	s->loc = *loc;
	s->arg_loc = *arg_loc;
	s->value_loc = *value_loc;
	s->arg = arg;
	s->value = value;
}

static void make_value(struct parse_state *state, struct parse_line *line,
		       enum stmt_kind kind, const YYLTYPE *loc, char *value,
		       bool quoted, const YYLTYPE *value_loc)
{
	struct stmt *s = &line->stmt;

	memset(line, 0, sizeof(*line));
	if (!value[0]) {
		parse_error(state, value_loc, quoted ?
			    "empty path after '@include'" :
			    "empty rule library name after '@include'");
		free(value);
		return;
	}
	line->kind = PARSE_LINE_STMT;
	s->kind = kind;
	s->loc = *loc;
	s->value_loc = *value_loc;
	s->value = value;
	s->quoted = quoted;
}

/* The line ended cleanly: now it may take effect. */
static void apply_line(struct parse_state *state, struct parse_line *line)
{
	switch (line->kind) {
	case PARSE_LINE_NONE:
		break;
	case PARSE_LINE_STMT:
		line->stmt.section = state->section;
		stmt_list_push(state->out, &line->stmt);
		break;
	case PARSE_LINE_SECTION:
		state->section = line->section;
		break;
	default:
		BUG("bad line kind %d", line->kind);
	}
}

int parse_error(struct parse_state *state, const struct location *loc,
		const char *fmt, ...)
{
	va_list ap;
	char *msg;

	if (state->failed_line == loc->line)
		return -1;
	state->failed_line = loc->line;
	state->nerrors++;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (!msg)
		BUG("out of memory formatting a diagnostic");
	diag_error(state->diags, loc, "%s", msg);
	free(msg);
	return -1;
}

/* Longest quoted text a message shows; the source line shows the rest. */
#define QUOTE_MAX 60

char *parse_quote(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, o = 0, shown = 0;
	char *out = xmalloc(QUOTE_MAX * 4 + 4);

	while (i < len && shown < QUOTE_MAX) {
		size_t n = 0, k;

		if (p[i] >= 0xc2 && p[i] <= 0xdf)
			n = 2;
		else if (p[i] >= 0xe0 && p[i] <= 0xef)
			n = 3;
		else if (p[i] >= 0xf0 && p[i] <= 0xf4)
			n = 4;
		for (k = 1; n && k < n; k++)
			if (i + k >= len || (p[i + k] & 0xc0) != 0x80)
				n = 0;
		if (n) {
			memcpy(out + o, p + i, n);
			o += n;
			i += n;
		} else if (p[i] < 0x20 || p[i] >= 0x7f) {
			o += sprintf(out + o, "\\x%02x", p[i]);
			i++;
		} else {
			out[o++] = p[i++];
		}
		shown++;
	}
	if (i < len) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
	return out;
}

unsigned parse_misspell(const char *a, size_t alen, const char *b,
			unsigned cap)
{
	return misspell_distance(a, alen, b, cap);
}

/* The text of the last token the scanner returned, quoted for a message. */
static char *tok_text(const struct parse_state *state,
		      const struct parse_tok *t)
{
	return parse_quote(state->in->buf + t->off, t->len);
}

static bool expects(const yypcontext_t *ctx, yysymbol_kind_t sym)
{
	yysymbol_kind_t expected[YYNTOKENS];
	int i, n;

	n = yypcontext_expected_tokens(ctx, expected, YYNTOKENS);
	for (i = 0; i < n; i++)
		if (expected[i] == sym)
			return true;
	return false;
}

static bool effect_like(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < array_size(effect_names); i++) {
		size_t n = strlen(effect_names[i]);

		if (len == n && strncasecmp(s, effect_names[i], n) == 0)
			return true;
		if (len >= 3 && parse_misspell(s, len, effect_names[i], 1) <= 1)
			return true;
	}
	return false;
}

/*
 * Syntax errors, said in the user's terms: what was probably meant, never
 * a token name.  The scanner already reported the text behind LEX_ERROR.
 */
static int yyreport_syntax_error(const yypcontext_t *ctx,
				 struct parse_state *state, void *scanner)
{
	yysymbol_kind_t la = yypcontext_token(ctx);
	const struct parse_tok *cur = &state->cur, *prev = &state->prev;
	struct location at = *yypcontext_location(ctx);
	char *what, *before;

	(void)scanner;
	if (la == YYSYMBOL_LEX_ERROR)
		return 0;
	if (la == YYSYMBOL_NEWLINE || la == YYSYMBOL_YYEOF) {
		what = xstrdup("end of line");
	} else {
		char *q = tok_text(state, cur);

		what = xasprintf("'%s'", q);
		free(q);
	}
	before = prev->kind ? tok_text(state, prev) : xstrdup("");

	if (expects(ctx, YYSYMBOL_COLON) && prev->kind == TOK_WORD) {
		/* "deny /x", "deny", "/etc/passwd" */
		if (effect_like(state->in->buf + prev->off, prev->len)) {
			at = loc_after(&prev->loc);
			parse_error(state, &at, "missing ':' after '%s'",
				    before);
		} else {
			parse_error(state, &prev->loc,
				    "unknown statement '%s': expected a row "
				    "(EFFECT:TARGET), a directive or a section "
				    "header", before);
		}
	} else if (expects(ctx, YYSYMBOL_WORD) && prev->kind == TOK_BANGS &&
		   !expects(ctx, YYSYMBOL_DEFAULT)) {
		if (la == YYSYMBOL_BANGS) {
			at = loc_between(&prev->loc, &cur->loc);
			parse_error(state, &at, "white space between '!' "
				    "and '!'");
		} else {
			at = loc_after(&prev->loc);
			parse_error(state, &at, "missing effect after '!'");
		}
	} else if (expects(ctx, YYSYMBOL_DEFAULT)) {
		/* At the start of a line. */
		if (la == YYSYMBOL_COLON)
			parse_error(state, &at, "missing effect before ':'");
		else
			parse_error(state, &at, "unexpected %s: expected a "
				    "row (EFFECT:TARGET), a directive or a "
				    "section header", what);
	} else if (expects(ctx, YYSYMBOL_NEWLINE) &&
		   !expects(ctx, YYSYMBOL_WORD)) {
		parse_error(state, &at, "unexpected %s after '%s': "
			    "expected end of line", what, before);
	} else {
		parse_error(state, &at, "unexpected %s after '%s'", what,
			    before);
	}
	free(what);
	free(before);
	return 0;
}

static void yyerror(YYLTYPE *loc, struct parse_state *state, void *scanner,
		    const char *msg)
{
	(void)scanner;
	parse_error(state, loc, "%s", msg);
}
