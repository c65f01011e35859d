/* SPDX-License-Identifier: MIT */
/*
 * wjson.h - a small strict JSON reader for the windows launcher: the ACL
 * plan inside plan.bin and the reconciliation state file are read with
 * it, so vbox-exec.exe needs no JSON library.
 *
 * Strict RFC 8259 with these limits: nesting at most WJSON_MAX_DEPTH,
 * numbers are integers that fit an int64_t (the plan and the state file
 * have no others), a string may not hold U+0000, and a duplicate key in
 * an object is an error.  Keys keep their order.  Every size is bounded
 * by the input's, so no input makes it allocate without limit.
 */
#ifndef VBOX_WJSON_H
#define VBOX_WJSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WJSON_MAX_DEPTH 16

enum wjson_type {
	WJSON_NULL,
	WJSON_BOOL,
	WJSON_INT,
	WJSON_STRING,
	WJSON_ARRAY,
	WJSON_OBJECT,
};

/**
 * struct wjson - one value; every pointer is owned by it
 * @type: which member is used
 * @b: WJSON_BOOL
 * @i: WJSON_INT
 * @s: WJSON_STRING (NUL-terminated, UTF-8)
 * @items, @n: WJSON_ARRAY elements, WJSON_OBJECT values
 * @keys: WJSON_OBJECT keys, parallel to @items
 */
struct wjson {
	enum wjson_type type;
	bool b;
	int64_t i;
	char *s;
	struct wjson *items;
	char **keys;
	size_t n;
};

/*
 * wjson_parse - parse @len bytes at @buf (one value, blanks around it)
 * into *@out.  Returns 0, or -1 with "offset N: what" in *@err (caller
 * frees); *@out then owns nothing.
 */
int wjson_parse(const char *buf, size_t len, struct wjson *out, char **err);

/* wjson_free - free what @v holds (not @v itself). */
void wjson_free(struct wjson *v);

/* wjson_get - the value of @key in object @v, or NULL. */
const struct wjson *wjson_get(const struct wjson *v, const char *key);

/* wjson_type_name - "null", "boolean", ... for messages. */
const char *wjson_type_name(enum wjson_type t);

/*
 * wjson_put_string - append @s as a JSON string (quotes, escapes) to the
 * bounded builder @b (util/bbuf.h).
 */
struct bbuf;
void wjson_put_string(struct bbuf *b, const char *s);

#endif /* VBOX_WJSON_H */
