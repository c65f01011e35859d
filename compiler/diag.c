/* SPDX-License-Identifier: MIT */
/*
 * diag.c - diagnostic records and their one printer.
 */
#include <vbox.h>

#include <stdarg.h>

#include "diag.h"
#include "grow.h"

/* How many display columns of a long source line to show around a caret. */
#define DIAG_WINDOW_BEFORE 60
#define DIAG_WINDOW_WIDTH 140

static bool is_word_byte(char c);

void diag_list_init(struct diag_list *list)
{
	memset(list, 0, sizeof(*list));
}

void diag_list_free(struct diag_list *list)
{
	size_t i;

	for (i = 0; i < list->n; i++)
		free(list->items[i].msg);
	free(list->items);
	u64map_free(&list->folds);
	memset(list, 0, sizeof(*list));
}

/*
 * The reason of a record: @severity and @msg with every 'quoted' run and
 * every number left out, so "pattern '~/a' is not on a drive ..." of
 * row 1 and of row 40 are one reason, "row 7 'x' is dead" and "row 9 'y'
 * is dead" another.  Quotes open and close as shorten_quotes() says.
 */
static uint64_t fold_hash(enum diag_severity severity, const char *msg)
{
	uint64_t h = U64_HASH_SEED;
	unsigned char sev = (unsigned char)severity;
	size_t len = strlen(msg), i, j;

	h = u64_hash_bytes(h, &sev, 1);
	for (i = 0; i < len; i++) {
		if (msg[i] >= '0' && msg[i] <= '9') {
			while (i + 1 < len && msg[i + 1] >= '0' &&
			       msg[i + 1] <= '9')
				i++;
			h = u64_hash_bytes(h, "#", 1);
			continue;
		}
		if (msg[i] == '\'' && (!i || !is_word_byte(msg[i - 1]))) {
			for (j = i + 1; j < len; j++)
				if (msg[j] == '\'' && !is_word_byte(msg[j + 1]))
					break;
			if (j < len) {
				h = u64_hash_bytes(h, "''", 2);
				i = j;
				continue;
			}
		}
		h = u64_hash_bytes(h, msg + i, 1);
	}
	return h;
}

/*
 * Quoted text in messages longer than this is cut to DIAG_QUOTE_KEEP
 * bytes and "...": a 1 MB pattern must not make a 1 MB message line (the
 * source line under it is cut the same way).
 */
#define DIAG_QUOTE_MAX 160
#define DIAG_QUOTE_KEEP 120

static bool is_word_byte(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

/*
 * Shorten every 'quoted' run of @msg longer than DIAG_QUOTE_MAX bytes.
 * A quote opens after a non-word byte and closes before one, so an
 * apostrophe inside a word ("can't") is never taken for a quote.
 * Consumes @msg, returns the message to keep.
 */
static char *shorten_quotes(char *msg)
{
	size_t len = strlen(msg), i, j, o = 0, keep;
	char *out;

	if (len <= DIAG_QUOTE_MAX)
		return msg;
	out = xmalloc(len + 1);
	for (i = 0; i < len;) {
		out[o++] = msg[i];
		if (msg[i] != '\'' || (i && is_word_byte(msg[i - 1]))) {
			i++;
			continue;
		}
		for (j = i + 1; j < len; j++)
			if (msg[j] == '\'' && !is_word_byte(msg[j + 1]))
				break;
		if (j >= len || j - i - 1 <= DIAG_QUOTE_MAX) {
			memcpy(out + o, msg + i + 1, (j < len ? j : len) - i - 1);
			o += (j < len ? j : len) - i - 1;
			i = j;
			if (j < len)
				out[o++] = msg[i++];
			continue;
		}
		/* Cut on a UTF-8 character boundary. */
		keep = DIAG_QUOTE_KEEP;
		while (keep && (msg[i + 1 + keep] & 0xc0) == 0x80)
			keep--;
		memcpy(out + o, msg + i + 1, keep);
		o += keep;
		memcpy(out + o, "...'", 4);
		o += 4;
		i = j + 1;
	}
	out[o] = '\0';
	free(msg);
	return out;
}

__printf(4, 0) static void diag_vqueue(struct diag_list *list,
				       enum diag_severity severity,
				       const struct location *loc,
				       const char *fmt, va_list ap)
{
	uint64_t fold = 0;
	uint32_t ordinal = 0;
	struct diag *d;
	char *msg;

	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	if (!msg) {
		fputs("vbox: out of memory\n", stderr);
		abort();
	}
	if (severity != DIAG_NOTE) {
		fold = fold_hash(severity, msg);
		ordinal = u64map_get(&list->folds, fold);
		ordinal = ordinal == U64MAP_NONE ? 1 :
			  ordinal < UINT32_MAX - 1 ? ordinal + 1 : ordinal;
		u64map_put(&list->folds, fold, ordinal);
	} else if (list->n) {
		fold = list->items[list->n - 1].fold;
		ordinal = list->items[list->n - 1].ordinal;
	}
	switch (severity) {
	case DIAG_ERROR:
		list->nerrors++;
		/*
		 * Folded errors are not shown: the cap bounds the others.
		 * They are kept for JSON up to a bound on memory (a large
		 * file of one mistake a line); past it only counted.
		 */
		if (ordinal > DIAG_FOLD_SHOW) {
			if (list->n < DIAG_MAX_RECORDS)
				break;
			list->dropped++;
			free(msg);
			return;
		}
		list->nshown++;
		if (list->max_errors && list->nshown > list->max_errors) {
			list->dropped++;
			free(msg);
			return;
		}
		break;
	case DIAG_WARNING:
		list->nwarnings++;
		/* the first past the shown ones is kept: fold_of_one() */
		if (ordinal > DIAG_FOLD_SHOW + 1 &&
		    list->n >= DIAG_MAX_RECORDS) {
			free(msg);
			return;
		}
		break;
	case DIAG_NOTE:
		/* A note belongs to the record before it: drop it with it. */
		if ((list->max_errors && list->nshown > list->max_errors) ||
		    (ordinal > DIAG_FOLD_SHOW + 1 &&
		     list->n >= DIAG_MAX_RECORDS)) {
			free(msg);
			return;
		}
		break;
	default:
		BUG("bad severity %d", severity);
	}
	msg = shorten_quotes(msg);
	GROW(list->items, list->cap, list->n + 1);
	d = &list->items[list->n++];
	d->severity = severity;
	d->fold = fold;
	d->ordinal = ordinal;
	if (loc)
		d->loc = *loc;
	else
		memset(&d->loc, 0, sizeof(d->loc));
	d->msg = msg;
}

int diag_error(struct diag_list *list, const struct location *loc,
	       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vqueue(list, DIAG_ERROR, loc, fmt, ap);
	va_end(ap);
	return -1;
}

void diag_warning(struct diag_list *list, const struct location *loc,
		  const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vqueue(list, DIAG_WARNING, loc, fmt, ap);
	va_end(ap);
}

void diag_note(struct diag_list *list, const struct location *loc,
	       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vqueue(list, DIAG_NOTE, loc, fmt, ap);
	va_end(ap);
}

void diag_list_take(struct diag_list *dst, struct diag_list *src)
{
	size_t i;

	for (i = 0; i < src->n; i++) {
		const struct diag *d = &src->items[i];
		const struct location *loc = d->loc.in ? &d->loc : NULL;

		switch (d->severity) {
		case DIAG_ERROR:
			diag_error(dst, loc, "%s", d->msg);
			break;
		case DIAG_WARNING:
			diag_warning(dst, loc, "%s", d->msg);
			break;
		case DIAG_NOTE:
			diag_note(dst, loc, "%s", d->msg);
			break;
		default:
			BUG("bad severity %d", d->severity);
		}
	}
	diag_list_free(src);
}

static const char *severity_name(enum diag_severity severity)
{
	switch (severity) {
	case DIAG_ERROR:
		return "error";
	case DIAG_WARNING:
		return "warning";
	case DIAG_NOTE:
		return "note";
	default:
		BUG("bad severity %d", severity);
	}
}

/*
 * Length of the valid UTF-8 sequence at @s (at most @n bytes), or 0 when the
 * bytes there are not one.  Counting columns this way matches the scanner.
 */
static size_t utf8_seq_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

/*
 * One unit of a rendered source line: @bytes bytes of source that take
 * @srccols GNU columns and print as @dispcols display columns.
 */
struct unit {
	size_t bytes;
	unsigned srccols;
	unsigned dispcols;
	bool escape;
	bool tab;
};

static void next_unit(const unsigned char *s, size_t n, unsigned srccol,
		      struct unit *u)
{
	size_t len = utf8_seq_len(s, n);

	memset(u, 0, sizeof(*u));
	if (s[0] == '\t') {
		u->bytes = 1;
		u->srccols = 8 - ((srccol - 1) % 8);
		u->dispcols = u->srccols;
		u->tab = true;
	} else if (len == 0 || s[0] < 0x20 || s[0] == 0x7f) {
		/* Control and invalid bytes print escaped as \xNN. */
		u->bytes = 1;
		u->srccols = 1;
		u->dispcols = 4;
		u->escape = true;
	} else {
		u->bytes = len;
		u->srccols = 1;
		u->dispcols = 1;
	}
}

/* Print the source line of @loc and a caret line under its span. */
static void print_source_line(FILE *out, const struct location *loc)
{
	const unsigned char *line;
	size_t len, off;
	unsigned srccol = 1, disp = 0, caret_start = 0, caret_end = 0;
	unsigned win_start, win_end;
	bool have_start = false;
	struct unit u;

	line = (const unsigned char *)location_line(loc, &len);
	if (!line)
		return;

	/* First pass: display columns of the span. */
	for (off = 0; off < len; off += u.bytes) {
		next_unit(line + off, len - off, srccol, &u);
		if (!have_start && srccol + u.srccols > loc->col) {
			caret_start = disp;
			have_start = true;
		}
		if (srccol <= loc->last_col)
			caret_end = disp + u.dispcols;
		srccol += u.srccols;
		disp += u.dispcols;
	}
	if (!have_start) {
		/* The span is at the end of the line (e.g. missing text). */
		caret_start = disp;
		caret_end = disp + 1;
	}
	if (caret_end <= caret_start)
		caret_end = caret_start + 1;

	win_start = caret_start > DIAG_WINDOW_BEFORE ?
		    caret_start - DIAG_WINDOW_BEFORE : 0;
	win_end = win_start + DIAG_WINDOW_WIDTH;
	if (caret_end > win_end)
		caret_end = win_end;

	/* Second pass: print the units inside the window. */
	if (win_start)
		fputs("...", out);
	srccol = 1;
	disp = 0;
	for (off = 0; off < len; off += u.bytes) {
		next_unit(line + off, len - off, srccol, &u);
		if (disp >= win_end) {
			fputs("...", out);
			break;
		}
		if (disp >= win_start) {
			if (u.tab)
				fprintf(out, "%*s", (int)u.dispcols, "");
			else if (u.escape)
				fprintf(out, "\\x%02x", line[off]);
			else
				fwrite(line + off, 1, u.bytes, out);
		}
		srccol += u.srccols;
		disp += u.dispcols;
	}
	fputc('\n', out);

	if (win_start)
		fputs("   ", out);
	fprintf(out, "%*s^", (int)(caret_start - win_start), "");
	for (disp = caret_start + 1; disp < caret_end; disp++)
		fputc('~', out);
	fputc('\n', out);
}

static void print_include_chain(FILE *out, const struct input *in)
{
	const struct input *p;

	for (p = in; p && p->parent; p = p->parent)
		fprintf(out, "In file included from %s:%u:%u:\n",
			p->parent->name, p->included_at.line,
			p->included_at.col);
}

/*
 * Render one record into @out.  The caller hands a memory stream so a
 * record reaches the real stream in one write: stderr is unbuffered, and
 * a table with many findings would otherwise cost a system call per byte.
 */
static void print_one(FILE *out, const struct diag *d, const char *progname,
		      const struct input **last_in)
{
	if (!d->loc.in) {
		fprintf(out, "%s: %s: %s\n", progname,
			severity_name(d->severity), d->msg);
		return;
	}
	if (d->severity != DIAG_NOTE && d->loc.in != *last_in)
		print_include_chain(out, d->loc.in);
	if (d->severity != DIAG_NOTE)
		*last_in = d->loc.in;
	fprintf(out, "%s:%u:%u: %s: %s\n", d->loc.in->name, d->loc.line,
		d->loc.col, severity_name(d->severity), d->msg);
	print_source_line(out, &d->loc);
}

/*
 * Would a fold line hide a single record of @d's reason?  Then the record
 * is shown instead: the line would take the place of what it hides.  Not
 * once the error cap has dropped records: a reason's record past the
 * shown ones is stored without counting against the cap (diag_vqueue()),
 * and the output is cut short already.
 */
static bool fold_of_one(const struct diag_list *list, const struct diag *d)
{
	uint32_t total = u64map_get(&list->folds, d->fold);

	return total == DIAG_FOLD_SHOW + 1 && !list->dropped;
}

/*
 * Does text fold @d away?  A note goes with its record.
 */
static bool folded_away(const struct diag_list *list, const struct diag *d)
{
	return d->ordinal > DIAG_FOLD_SHOW && !fold_of_one(list, d);
}

/*
 * After the last record shown of a reason that has more: how many more,
 * in one line, and where each is listed when the caller said so.
 */
static void print_fold(FILE *out, const struct diag_list *list,
		       const struct diag *d, const char *progname)
{
	uint32_t total = u64map_get(&list->folds, d->fold);

	if (d->ordinal != DIAG_FOLD_SHOW || total == U64MAP_NONE ||
	    total <= DIAG_FOLD_SHOW || fold_of_one(list, d))
		return;
	total -= DIAG_FOLD_SHOW;
	fprintf(out, "%s: note: ... and %u more row%s with this %s%s%s%s\n",
		progname, (unsigned)total, total == 1 ? "" : "s",
		severity_name(d->severity),
		list->fold_hint ? " (" : "",
		list->fold_hint ? list->fold_hint : "",
		list->fold_hint ? ")" : "");
}

void diag_print(FILE *out, const struct diag_list *list, const char *progname)
{
	const struct input *last_in = NULL;
	const struct diag *fold_at = NULL;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *mem;

	for (i = 0; i < list->n; i++) {
		const struct diag *d = &list->items[i];

		if (d->severity != DIAG_NOTE && fold_at) {
			print_fold(out, list, fold_at, progname);
			fold_at = NULL;
		}
		if (folded_away(list, d))
			continue;
		if (d->severity != DIAG_NOTE && d->ordinal == DIAG_FOLD_SHOW)
			fold_at = d;
		mem = open_memstream(&buf, &len);
		if (!mem) {
			/* No memory for a buffer: print directly, slowly. */
			print_one(out, &list->items[i], progname, &last_in);
			continue;
		}
		print_one(mem, &list->items[i], progname, &last_in);
		if (fclose(mem) == 0)
			fwrite(buf, 1, len, out);
		free(buf);
		buf = NULL;
	}
	if (fold_at)
		print_fold(out, list, fold_at, progname);
	if (list->dropped)
		fprintf(out, "%s: note: %zu more error%s not shown\n", progname,
			list->dropped, list->dropped == 1 ? "" : "s");
}
