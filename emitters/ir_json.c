/* SPDX-License-Identifier: MIT */
/*
 * ir_json.c - the compiled table as JSON (`vboxc compile --emit=ir`).
 *
 * Every object is built with json_pack() through one macro that names the
 * call site on failure, members in the documented order (jansson keeps
 * insertion order), and dumped with one fixed flag set.
 */
#include <vbox.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include <jansson.h>

#include "diag.h"
#include "emit.h"
#include "ir.h"
#include "ir_json.h"
#include "location.h"

#define IR_JSON_FLAGS (JSON_INDENT(2) | JSON_PRESERVE_ORDER)

/*
 * ir_pack - json_pack() that queues an error naming this file and line
 * when packing fails, then yields NULL ("o" arguments are stolen either
 * way, jansson >= 2.11).
 */
#define ir_pack(diags, ...) ir_pack_at(__FILE__, __LINE__, diags, __VA_ARGS__)

static json_t *ir_pack_at(const char *file, int line, struct diag_list *diags,
			  const char *fmt, ...)
{
	json_error_t jerr;
	json_t *j;
	va_list ap;

	va_start(ap, fmt);
	j = json_vpack_ex(&jerr, 0, fmt, ap);
	va_end(ap);
	if (!j)
		diag_error(diags, NULL,
			   "internal error: %s:%d: cannot build the JSON IR: %s",
			   file, line, jerr.text);
	return j;
}

/* Length of the valid UTF-8 sequence at @s (@n bytes left), 0 if none. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	uint32_t c;
	size_t len, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		c = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3;
		c = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		c = s[0] & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && c < 0x800) || (len == 4 && c < 0x10000) ||
	    c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return len;
}

/*
 * A JSON string for @s, or null for NULL.  Targets are UTF-8 text, but a
 * variable's value (or a file name in a source location) may not be; JSON
 * cannot hold such bytes, so each invalid byte is written as "\xNN" (the
 * same spelling the diagnostics use) rather than failing the whole IR.
 */
static json_t *ir_string(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n, i = 0;
	char *clean, *w;
	json_t *j;

	if (!s)
		return json_null();
	n = strlen(s);
	if (n > (SIZE_MAX - 1) / 4)
		BUG("string of %zu bytes", n);
	clean = w = xmalloc(4 * n + 1);
	while (i < n) {
		size_t len = utf8_len(p + i, n - i);

		if (!len) {
			w += sprintf(w, "\\x%02x", p[i]);
			i++;
			continue;
		}
		memcpy(w, p + i, len);
		w += len;
		i += len;
	}
	*w = '\0';
	j = json_string(clean);
	free(clean);
	/* Valid UTF-8 without NUL: only allocation can fail. */
	if (!j)
		BUG("json_string failed");
	return j;
}

/**
 * struct ir_ctx - what building one IR document needs
 * @diags: where failures are queued
 * @findings: per domain, the finding of each row by row index, or NULL
 */
struct ir_ctx {
	struct diag_list *diags;
	const struct finding **findings[2];
};

static json_t *shadow_json(const struct ir_ctx *ctx, const struct row *row)
{
	const struct finding *f = ctx->findings[row->domain][row->index];

	if (!f)
		return json_null();
	return ir_pack(ctx->diags, "{s:I, s:s}",
		       "row", (json_int_t)f->by->index,
		       "kind", finding_kind_name(f->kind));
}

static json_t *row_json(const struct ir_ctx *ctx, const struct row *row,
			const struct landing *l)
{
	const char *target = row->domain == DOMAIN_FS ? row->fs.text :
							row->net.text;
	char *source = location_source(&row->loc);
	json_t *shadow = shadow_json(ctx, row);
	json_t *j;

	if (!shadow) {
		free(source);
		return NULL;
	}
	j = ir_pack(ctx->diags,
		    "{s:I, s:I, s:i, s:s, s:o, s:o, s:o, s:s, s:o, s:o}",
		    "index", (json_int_t)row->index,
		    "prio", (json_int_t)row->prio,
		    "level", (int)row->level,
		    "effect", effect_name(row->effect),
		    "target", ir_string(target),
		    "raw", ir_string(row->raw),
		    "source", ir_string(source),
		    "landing", landing_kind_name(l->kind),
		    "reason", ir_string(l->reason),
		    "shadowed_by", shadow);
	free(source);
	return j;
}

static int append(const struct ir_ctx *ctx, json_t *arr, json_t *item)
{
	if (!item)
		return -1;
	/* json_array_append_new() releases @item even when it fails. */
	if (json_array_append_new(arr, item))
		return diag_error(ctx->diags, NULL,
				  "internal error: cannot build the JSON IR");
	return 0;
}

static json_t *new_array(const struct ir_ctx *ctx)
{
	json_t *arr = json_array();

	if (!arr)
		diag_error(ctx->diags, NULL,
			   "internal error: cannot build the JSON IR");
	return arr;
}

/* The rows of one domain in priority order: the order they decide in. */
static json_t *rows_json(const struct ir_ctx *ctx, const struct rowvec *rows,
			 const struct landing *landing, size_t nlanding)
{
	json_t *arr = new_array(ctx);
	size_t k;

	if (!arr)
		return NULL;
	if (nlanding != rows->n)
		BUG("landing set has %zu entries for %zu rows", nlanding,
		    rows->n);
	for (k = 0; k < rows->n; k++) {
		const struct row *row = rows->prio[k];
		const struct landing *l = &landing[row->index];

		if (l->row != row)
			BUG("landing entry %u is for another row", row->index);
		if (append(ctx, arr, row_json(ctx, row, l))) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

static json_t *reserved_json(const struct ir_ctx *ctx,
			     const struct landing_set *landing)
{
	json_t *arr = new_array(ctx);
	size_t i;

	if (!arr)
		return NULL;
	for (i = 0; i < landing->nreserved; i++) {
		const struct landing *l = &landing->reserved[i];
		json_t *item = ir_pack(ctx->diags, "{s:o, s:o}",
				       "entry", ir_string(l->entry),
				       "reason", ir_string(l->reason));

		if (append(ctx, arr, item)) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

static json_t *table_json(const struct ir_ctx *ctx, const struct table *table,
			  const struct landing_set *landing,
			  const char *target_name)
{
	json_t *fs, *net, *reserved;

	fs = rows_json(ctx, &table->fs, landing->fs, landing->nfs);
	net = rows_json(ctx, &table->net, landing->net, landing->nnet);
	reserved = reserved_json(ctx, landing);
	if (!fs || !net || !reserved) {
		json_decref(fs);
		json_decref(net);
		json_decref(reserved);
		return NULL;
	}
	return ir_pack(ctx->diags,
		       "{s:s, s:i, s:s, s:{s:s, s:s}, s:o, s:o, s:o, s:o}",
		       "format", IR_JSON_FORMAT,
		       "version", IR_JSON_VERSION,
		       "target", target_name,
		       "defaults",
		       "write", effect_name(table->default_write),
		       "net", table->default_net == EFFECT_ALLOW ? "open" :
								    "deny",
		       "upstream_proxy", ir_string(table->upstream_proxy),
		       "fs", fs,
		       "net", net,
		       "reserved", reserved);
}

int ir_json_write(const struct table *table, const struct landing_set *landing,
		  const char *target_name, FILE *out, struct diag_list *diags)
{
	struct ir_ctx ctx = { .diags = diags };
	json_t *root;
	size_t i;
	int ret = 0;

	ctx.findings[DOMAIN_FS] = xcalloc(table->fs.n,
					  sizeof(*ctx.findings[DOMAIN_FS]));
	ctx.findings[DOMAIN_NET] = xcalloc(table->net.n,
					   sizeof(*ctx.findings[DOMAIN_NET]));
	for (i = 0; i < table->nfindings; i++) {
		const struct finding *f = &table->findings[i];

		ctx.findings[f->row->domain][f->row->index] = f;
	}

	root = table_json(&ctx, table, landing, target_name);
	if (!root) {
		ret = -1;
		goto out_free;
	}
	if (json_dumpf(root, out, IR_JSON_FLAGS) != 0 ||
	    fputc('\n', out) == EOF)
		ret = diag_error(diags, NULL, "cannot write the JSON IR: %s",
				 strerror(errno));
	json_decref(root);
out_free:
	free(ctx.findings[DOMAIN_FS]);
	free(ctx.findings[DOMAIN_NET]);
	return ret;
}
