/* SPDX-License-Identifier: MIT */
/*
 * wjson.c - the windows launcher's JSON reader (wjson.h).
 *
 * A recursive descent over a bounded cursor: every read checks the bytes
 * left, recursion is bounded by WJSON_MAX_DEPTH, and the first error
 * stops the parse with its offset.
 */
#include <vbox.h>

#include <stdarg.h>
#include <stdio.h>

#include "bbuf.h"
#include "grow.h"
#include "wjson.h"

struct cursor {
	const char *p;
	size_t len;
	size_t pos;
	char *err;
};

static int fail(struct cursor *c, const char *fmt, ...) __printf(2, 3);

static int fail(struct cursor *c, const char *fmt, ...)
{
	char msg[128];
	va_list ap;
	int n;

	if (c->err)
		return -1;
	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n < 0)
		msg[0] = '\0';
	/* A cut message is still the message's start; msg is our text. */
	c->err = xasprintf("offset %zu: %s", c->pos, msg);
	return -1;
}

static void skip_blanks(struct cursor *c)
{
	while (c->pos < c->len &&
	       (c->p[c->pos] == ' ' || c->p[c->pos] == '\t' ||
		c->p[c->pos] == '\n' || c->p[c->pos] == '\r'))
		c->pos++;
}

static bool literal(struct cursor *c, const char *word)
{
	size_t n = strlen(word);

	if (c->len - c->pos < n || memcmp(c->p + c->pos, word, n))
		return false;
	c->pos += n;
	return true;
}

static int hex4(struct cursor *c, unsigned *out)
{
	unsigned v = 0, i;
	char ch;

	if (c->len - c->pos < 4)
		return fail(c, "truncated \\u escape");
	for (i = 0; i < 4; i++) {
		ch = c->p[c->pos + i];
		v <<= 4;
		if (ch >= '0' && ch <= '9')
			v |= (unsigned)(ch - '0');
		else if (ch >= 'a' && ch <= 'f')
			v |= (unsigned)(ch - 'a' + 10);
		else if (ch >= 'A' && ch <= 'F')
			v |= (unsigned)(ch - 'A' + 10);
		else
			return fail(c, "bad \\u escape");
	}
	c->pos += 4;
	*out = v;
	return 0;
}

static void put_utf8(struct bbuf *b, unsigned cp)
{
	char u[4];
	size_t n;

	if (cp < 0x80) {
		u[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | cp >> 6);
		u[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | cp >> 12);
		u[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		u[0] = (char)(0xf0 | cp >> 18);
		u[1] = (char)(0x80 | (cp >> 12 & 0x3f));
		u[2] = (char)(0x80 | (cp >> 6 & 0x3f));
		u[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	bbuf_add(b, u, n);
}

/* Length of the valid UTF-8 sequence at @p (@n bytes left), or 0. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	size_t len, i;
	unsigned cp;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, cp = p[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

static int parse_string(struct cursor *c, char **out)
{
	struct bbuf b;
	unsigned cp, lo;
	size_t n;
	char ch;

	/* The result is never longer than the input. */
	bbuf_init_heap(&b, c->len);
	c->pos++; /* the opening quote */
	for (;;) {
		if (c->pos >= c->len) {
			bbuf_free(&b);
			return fail(c, "unterminated string");
		}
		ch = c->p[c->pos];
		if (ch == '"') {
			c->pos++;
			break;
		}
		if ((unsigned char)ch < 0x20) {
			bbuf_free(&b);
			return fail(c, "control character in a string");
		}
		if (ch != '\\') {
			n = utf8_len((const unsigned char *)c->p + c->pos,
				     c->len - c->pos);
			if (!n) {
				bbuf_free(&b);
				return fail(c, "invalid UTF-8 in a string");
			}
			bbuf_add(&b, c->p + c->pos, n);
			c->pos += n;
			continue;
		}
		if (++c->pos >= c->len) {
			bbuf_free(&b);
			return fail(c, "unterminated escape");
		}
		ch = c->p[c->pos++];
		switch (ch) {
		case '"':
		case '\\':
		case '/':
			bbuf_putc(&b, ch);
			break;
		case 'b':
			bbuf_putc(&b, '\b');
			break;
		case 'f':
			bbuf_putc(&b, '\f');
			break;
		case 'n':
			bbuf_putc(&b, '\n');
			break;
		case 'r':
			bbuf_putc(&b, '\r');
			break;
		case 't':
			bbuf_putc(&b, '\t');
			break;
		case 'u':
			if (hex4(c, &cp) < 0) {
				bbuf_free(&b);
				return -1;
			}
			if (cp >= 0xdc00 && cp <= 0xdfff) {
				bbuf_free(&b);
				return fail(c, "lone low surrogate");
			}
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (!literal(c, "\\u") || hex4(c, &lo) < 0 ||
				    lo < 0xdc00 || lo > 0xdfff) {
					bbuf_free(&b);
					return fail(c, "lone high surrogate");
				}
				cp = 0x10000 + ((cp - 0xd800) << 10) +
				     (lo - 0xdc00);
			}
			if (!cp) {
				bbuf_free(&b);
				return fail(c, "\\u0000 in a string");
			}
			put_utf8(&b, cp);
			break;
		default:
			bbuf_free(&b);
			return fail(c, "bad escape");
		}
	}
	if (!bbuf_ok(&b))
		BUG("a JSON string outgrew its input");
	*out = bbuf_take(&b, NULL);
	bbuf_free(&b);
	return 0;
}

static int parse_int(struct cursor *c, int64_t *out)
{
	bool neg = false;
	uint64_t v = 0, lim;
	size_t start;

	if (c->p[c->pos] == '-') {
		neg = true;
		c->pos++;
	}
	start = c->pos;
	if (c->pos >= c->len || c->p[c->pos] < '0' || c->p[c->pos] > '9')
		return fail(c, "bad number");
	if (c->p[c->pos] == '0' && c->pos + 1 < c->len &&
	    c->p[c->pos + 1] >= '0' && c->p[c->pos + 1] <= '9')
		return fail(c, "leading zero in a number");
	lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	while (c->pos < c->len && c->p[c->pos] >= '0' && c->p[c->pos] <= '9') {
		unsigned d = (unsigned)(c->p[c->pos] - '0');

		if (v > (lim - d) / 10)
			return fail(c, "number out of range");
		v = v * 10 + d;
		c->pos++;
	}
	if (c->pos < c->len && (c->p[c->pos] == '.' || c->p[c->pos] == 'e' ||
				c->p[c->pos] == 'E'))
		return fail(c, "only integers are expected");
	if (c->pos == start)
		return fail(c, "bad number");
	*out = neg ? (v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v) :
		     (int64_t)v;
	return 0;
}

static int parse_value(struct cursor *c, struct wjson *v, unsigned depth);

static int parse_array(struct cursor *c, struct wjson *v, unsigned depth)
{
	size_t cap = 0;

	v->type = WJSON_ARRAY;
	c->pos++;
	skip_blanks(c);
	if (c->pos < c->len && c->p[c->pos] == ']') {
		c->pos++;
		return 0;
	}
	for (;;) {
		GROW(v->items, cap, v->n + 1);
		memset(&v->items[v->n], 0, sizeof(v->items[0]));
		v->n++;
		if (parse_value(c, &v->items[v->n - 1], depth + 1) < 0)
			return -1;
		skip_blanks(c);
		if (c->pos >= c->len)
			return fail(c, "unterminated array");
		if (c->p[c->pos] == ']') {
			c->pos++;
			return 0;
		}
		if (c->p[c->pos] != ',')
			return fail(c, "expected ',' or ']'");
		c->pos++;
	}
}

static int parse_object(struct cursor *c, struct wjson *v, unsigned depth)
{
	size_t cap = 0, kcap = 0, i;
	char *key;

	v->type = WJSON_OBJECT;
	c->pos++;
	skip_blanks(c);
	if (c->pos < c->len && c->p[c->pos] == '}') {
		c->pos++;
		return 0;
	}
	for (;;) {
		skip_blanks(c);
		if (c->pos >= c->len || c->p[c->pos] != '"')
			return fail(c, "expected a key");
		if (parse_string(c, &key) < 0)
			return -1;
		for (i = 0; i < v->n; i++)
			if (!strcmp(v->keys[i], key)) {
				free(key);
				return fail(c, "duplicate key");
			}
		GROW(v->keys, kcap, v->n + 1);
		GROW(v->items, cap, v->n + 1);
		v->keys[v->n] = key;
		memset(&v->items[v->n], 0, sizeof(v->items[0]));
		v->n++;
		skip_blanks(c);
		if (c->pos >= c->len || c->p[c->pos] != ':')
			return fail(c, "expected ':'");
		c->pos++;
		if (parse_value(c, &v->items[v->n - 1], depth + 1) < 0)
			return -1;
		skip_blanks(c);
		if (c->pos >= c->len)
			return fail(c, "unterminated object");
		if (c->p[c->pos] == '}') {
			c->pos++;
			return 0;
		}
		if (c->p[c->pos] != ',')
			return fail(c, "expected ',' or '}'");
		c->pos++;
	}
}

static int parse_value(struct cursor *c, struct wjson *v, unsigned depth)
{
	if (depth > WJSON_MAX_DEPTH)
		return fail(c, "nested deeper than %d", WJSON_MAX_DEPTH);
	skip_blanks(c);
	if (c->pos >= c->len)
		return fail(c, "expected a value");
	switch (c->p[c->pos]) {
	case '{':
		return parse_object(c, v, depth);
	case '[':
		return parse_array(c, v, depth);
	case '"':
		v->type = WJSON_STRING;
		return parse_string(c, &v->s);
	case 't':
	case 'f':
		v->type = WJSON_BOOL;
		v->b = c->p[c->pos] == 't';
		if (literal(c, v->b ? "true" : "false"))
			return 0;
		return fail(c, "bad literal");
	case 'n':
		v->type = WJSON_NULL;
		if (literal(c, "null"))
			return 0;
		return fail(c, "bad literal");
	default:
		v->type = WJSON_INT;
		return parse_int(c, &v->i);
	}
}

int wjson_parse(const char *buf, size_t len, struct wjson *out, char **err)
{
	struct cursor c = { .p = buf, .len = len };

	memset(out, 0, sizeof(*out));
	if (parse_value(&c, out, 0) == 0) {
		skip_blanks(&c);
		if (c.pos == c.len)
			return 0;
		fail(&c, "trailing bytes after the value");
	}
	wjson_free(out);
	memset(out, 0, sizeof(*out));
	*err = c.err;
	return -1;
}

void wjson_free(struct wjson *v)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < v->n; i++) {
		wjson_free(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->s);
	memset(v, 0, sizeof(*v));
}

const struct wjson *wjson_get(const struct wjson *v, const char *key)
{
	size_t i;

	if (!v || v->type != WJSON_OBJECT)
		return NULL;
	for (i = 0; i < v->n; i++)
		if (!strcmp(v->keys[i], key))
			return &v->items[i];
	return NULL;
}

const char *wjson_type_name(enum wjson_type t)
{
	switch (t) {
	case WJSON_NULL:
		return "null";
	case WJSON_BOOL:
		return "a boolean";
	case WJSON_INT:
		return "an integer";
	case WJSON_STRING:
		return "a string";
	case WJSON_ARRAY:
		return "an array";
	case WJSON_OBJECT:
		return "an object";
	default:
		return "unknown";
	}
}

void wjson_put_string(struct bbuf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	bbuf_putc(b, '"');
	for (; *p; p++) {
		if (*p == '"' || *p == '\\') {
			bbuf_putc(b, '\\');
			bbuf_putc(b, (char)*p);
		} else if (*p < 0x20) {
			bbuf_printf(b, "\\u%04x", *p);
		} else {
			bbuf_putc(b, (char)*p);
		}
	}
	bbuf_putc(b, '"');
}
