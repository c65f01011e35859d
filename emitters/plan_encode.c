/* SPDX-License-Identifier: MIT */
/*
 * plan_encode.c - writing plan.bin from an analysed table (plan_encode.h;
 * the layout is plan/plan.h's, the field encoding plan/wire.h's).
 */
#include <vbox.h>

#include "emit.h"
#include "ir.h"
#include "location.h"
#include "plan.h"
#include "plan_encode.h"
#include "wire.h"

/* Write a section header with a size to patch; returns where it is. */
static size_t section_begin(struct wbuf *b, enum plan_section tag)
{
	size_t at;

	wbuf_u16(b, tag);
	wbuf_u16(b, 0);
	at = b->len;
	wbuf_u32(b, 0);
	return at;
}

static void section_end(struct wbuf *b, size_t at)
{
	size_t n = b->len - at - 4;

	if (n > UINT32_MAX)
		BUG("plan section of %zu bytes", n);
	le_store(b->p + at, n, 4);
}

/*
 * An upper bound of what put_rows() writes for @rows: the plan's buffer
 * is sized once, as a million-row plan (some 70 MB) grown by doubling
 * left up to as much again behind it in the heap.
 */
static size_t rows_bound(const struct rowvec *rows)
{
	size_t i, n = 4;

	for (i = 0; i < rows->n; i++) {
		const struct row *row = rows->order[i];
		const struct input *in = row->loc.in;

		n += 12 + 4 + strlen(row->domain == DOMAIN_FS ? row->fs.text :
							    row->net.text);
		/* "SOURCE:LINE:COL", two numbers of at most 10 digits */
		n += 4 + (in ? strlen(in->source ? in->source : in->name) +
			       22 : 0);
	}
	return n;
}

static void put_rows(struct wbuf *b, const struct rowvec *rows,
		     const struct landing *landing, size_t nlanding)
{
	size_t i;

	if (nlanding != rows->n)
		BUG("landing set has %zu entries for %zu rows", nlanding,
		    rows->n);
	wbuf_u32(b, (uint32_t)rows->n);
	for (i = 0; i < rows->n; i++) {
		const struct row *row = rows->order[i];
		const struct landing *l = &landing[i];
		char *source;

		/*
		 * compile refuses a table with an unsupported row before it
		 * gets here; a plan must never carry one.
		 */
		if (l->row != row || l->kind == LANDING_RESERVED ||
		    l->kind == LANDING_UNSUPPORTED)
			BUG("row %zu: landing does not belong in a plan", i);
		wbuf_u32(b, row->index);
		wbuf_u32(b, row->prio);
		wbuf_u8(b, row->effect);
		wbuf_u8(b, row->level);
		wbuf_u8(b, l->kind);
		wbuf_u8(b, 0);
		wbuf_string(b, row->domain == DOMAIN_FS ? row->fs.text :
							 row->net.text);
		source = location_source(&row->loc);
		wbuf_string(b, source ? source : "");
		free(source);
	}
}

void plan_encode(const struct table *table, const struct landing_set *landing,
		 const char *target_name, const uint8_t *artifact,
		 size_t artifact_len, uint8_t **out, size_t *out_len)
{
	enum target_id target = target_id_of(target_name);
	struct wbuf b = { 0 };
	size_t at, i, bound;

	if (!target)
		BUG("no plan target for '%s'", target_name);
	bound = 1024 + rows_bound(&table->fs) + rows_bound(&table->net) +
		artifact_len + 10 * table->nfindings +
		(table->upstream_proxy ? strlen(table->upstream_proxy) : 0);
	for (i = 0; i < landing->nreserved; i++)
		bound += 8 + strlen(landing->reserved[i].entry) +
			 (landing->reserved[i].reason ?
			  strlen(landing->reserved[i].reason) : 0);
	/* Exactly the bound, not GROW()'s next power of two. */
	b.p = xmalloc(bound);
	b.cap = bound;

	wbuf_put(&b, PLAN_MAGIC, 8);
	wbuf_u16(&b, PLAN_FORMAT_VERSION);
	wbuf_u8(&b, target);
	wbuf_u8(&b, 0);
	wbuf_u32(&b, PLAN_HEADER_SIZE);
	wbuf_le(&b, 0, 8);		/* file size, patched below */
	wbuf_u32(&b, 0);			/* checksum, patched below */
	wbuf_u32(&b, PLAN_NSECTIONS);

	at = section_begin(&b, PLAN_SEC_POLICY);
	wbuf_u8(&b, table->default_write);
	wbuf_u8(&b, table->default_net);
	wbuf_string(&b, table->upstream_proxy ? table->upstream_proxy : "");
	section_end(&b, at);

	at = section_begin(&b, PLAN_SEC_FS_ROWS);
	put_rows(&b, &table->fs, landing->fs, landing->nfs);
	section_end(&b, at);

	at = section_begin(&b, PLAN_SEC_NET_ROWS);
	put_rows(&b, &table->net, landing->net, landing->nnet);
	section_end(&b, at);

	at = section_begin(&b, PLAN_SEC_RESERVED);
	wbuf_u32(&b, (uint32_t)landing->nreserved);
	for (i = 0; i < landing->nreserved; i++) {
		wbuf_string(&b, landing->reserved[i].entry);
		wbuf_string(&b, landing->reserved[i].reason ?
				       landing->reserved[i].reason : "");
	}
	section_end(&b, at);

	at = section_begin(&b, PLAN_SEC_FINDINGS);
	wbuf_u32(&b, (uint32_t)table->nfindings);
	for (i = 0; i < table->nfindings; i++) {
		const struct finding *f = &table->findings[i];

		wbuf_u8(&b, f->kind);
		wbuf_u8(&b, f->row->domain);
		wbuf_u32(&b, f->row->index);
		wbuf_u32(&b, f->by->index);
	}
	section_end(&b, at);

	at = section_begin(&b, PLAN_SEC_ARTIFACT);
	wbuf_put(&b, artifact, artifact_len);
	section_end(&b, at);

	le_store(b.p + PLAN_HDR_FILE_SIZE, b.len, 8);
	le_store(b.p + PLAN_HDR_CRC, crc32c(0, b.p, b.len), 4);
	*out = b.p;
	*out_len = b.len;
}

