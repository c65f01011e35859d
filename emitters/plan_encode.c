/* SPDX-License-Identifier: MIT */
/*
 * plan_encode.c - writing plan.bin from an analysed table (plan_encode.h;
 * the layout is plan/plan.h's, the field encoding plan/wire.h's).
 *
 * A million-row plan is some 70 MB; held whole beside the table, its
 * classification and the artifact it was the peak of a large compile.
 * So the plan is streamed: every section's size is counted first, then
 * its bytes go out through a small buffer, the checksum computed as
 * they pass, and written into the header last.
 */
#include <vbox.h>

#include <errno.h>
#include <stdio.h>

#include "emit.h"
#include "ir.h"
#include "location.h"
#include "plan.h"
#include "plan_encode.h"
#include "wire.h"

/* What the stream is given at once. */
#define SINK_CHUNK ((size_t)1 << 20)

/*
 * struct sink - the plan on its way to @out
 * @out: the destination (borrowed)
 * @b: bytes not yet given to @out (at most about SINK_CHUNK)
 * @crc: CRC-32C of the bytes given so far (the header's field as zero)
 * @len: bytes given so far
 * @failed: a write or a read failed (errno was set)
 */
struct sink {
	FILE *out;
	struct wbuf b;
	uint32_t crc;
	uint64_t len;
	bool failed;
};

static void sink_flush(struct sink *s)
{
	if (!s->b.len)
		return;
	s->crc = crc32c(s->crc, s->b.p, s->b.len);
	if (!s->failed && fwrite(s->b.p, 1, s->b.len, s->out) != s->b.len)
		s->failed = true;
	s->len += s->b.len;
	s->b.len = 0;
}

static void sink_maybe_flush(struct sink *s)
{
	if (s->b.len >= SINK_CHUNK)
		sink_flush(s);
}

/* Where the stream is: what was given plus what waits. */
static uint64_t sink_at(const struct sink *s)
{
	return s->len + s->b.len;
}

/*
 * A section's header, its size counted beforehand; section_end() checks
 * that the payload written has that size.
 */
static uint64_t section_begin(struct sink *s, enum plan_section tag,
			      uint64_t size)
{
	if (size > UINT32_MAX)
		BUG("plan section %d of %llu bytes", tag,
		    (unsigned long long)size);
	wbuf_u16(&s->b, tag);
	wbuf_u16(&s->b, 0);
	wbuf_u32(&s->b, (uint32_t)size);
	return sink_at(s) + size;
}

static void section_end(const struct sink *s, uint64_t end,
			enum plan_section tag)
{
	if (sink_at(s) != end)
		BUG("plan section %d: counted and written sizes differ", tag);
}

/* A section's header and payload size. */
#define SECTION_HEADER 8

/*
 * A row's source, "SOURCE:LINE:COL" (location_source()), in two parts:
 * the name (*@name) and ":LINE:COL" in @num (*@numlen bytes); both empty
 * without a location.  Counting and writing use it alike.
 */
static void source_parts(const struct location *loc, const char **name,
			 char num[static 24], size_t *numlen)
{
	int n;

	*name = "";
	*numlen = 0;
	num[0] = '\0';
	if (!loc || !loc->in)
		return;
	*name = loc->in->source ? loc->in->source : loc->in->name;
	n = snprintf(num, 24, ":%u:%u", loc->line, loc->col);
	if (n < 0 || n >= 24)
		BUG("cannot format a location");
	*numlen = (size_t)n;
}

static const char *row_target_text(const struct row *row)
{
	return row->domain == DOMAIN_FS ? row->fs.text : row->net.text;
}

static uint64_t rows_size(const struct rowvec *rows)
{
	uint64_t n = 4;
	const char *name;
	char num[24];
	size_t numlen, i;

	for (i = 0; i < rows->n; i++) {
		const struct row *row = rows->order[i];

		source_parts(&row->loc, &name, num, &numlen);
		n += 12 + 4 + strlen(row_target_text(row)) + 4 +
		     strlen(name) + numlen;
	}
	return n;
}

static void put_rows(struct sink *s, const struct rowvec *rows,
		     const struct landing *landing, size_t nlanding)
{
	const char *name;
	char num[24];
	size_t numlen, namelen, i;

	if (nlanding != rows->n)
		BUG("landing set has %zu entries for %zu rows", nlanding,
		    rows->n);
	wbuf_u32(&s->b, (uint32_t)rows->n);
	for (i = 0; i < rows->n; i++) {
		const struct row *row = rows->order[i];
		const struct landing *l = &landing[i];

		/*
		 * compile refuses a table with an unsupported row before it
		 * gets here; a plan must never carry one.
		 */
		if (l->row != row || l->kind == LANDING_RESERVED ||
		    l->kind == LANDING_UNSUPPORTED)
			BUG("row %zu: landing does not belong in a plan", i);
		wbuf_u32(&s->b, row->index);
		wbuf_u32(&s->b, row->prio);
		wbuf_u8(&s->b, row->effect);
		wbuf_u8(&s->b, row->level);
		wbuf_u8(&s->b, l->kind);
		wbuf_u8(&s->b, 0);
		wbuf_string(&s->b, row_target_text(row));
		source_parts(&row->loc, &name, num, &numlen);
		namelen = strlen(name);
		if (namelen + numlen > UINT32_MAX)
			BUG("row %zu: source name too long", i);
		wbuf_u32(&s->b, (uint32_t)(namelen + numlen));
		wbuf_put(&s->b, name, namelen);
		wbuf_put(&s->b, num, numlen);
		sink_maybe_flush(s);
	}
}

static uint64_t reserved_size(const struct landing_set *landing)
{
	uint64_t n = 4;
	size_t i;

	for (i = 0; i < landing->nreserved; i++)
		n += 8 + strlen(landing->reserved[i].entry) +
		     (landing->reserved[i].reason ?
		      strlen(landing->reserved[i].reason) : 0);
	return n;
}

/* Copy @len bytes of @in through the sink. */
static void put_stream(struct sink *s, FILE *in, uint64_t len)
{
	size_t want, got;

	while (len && !s->failed) {
		sink_flush(s);
		want = len < SINK_CHUNK ? (size_t)len : SINK_CHUNK;
		if (s->b.cap < want) {
			s->b.p = xrealloc(s->b.p, want);
			s->b.cap = want;
		}
		got = fread(s->b.p, 1, want, in);
		if (got != want) {
			if (!ferror(in))
				errno = EIO;	/* shorter than it said */
			s->failed = true;
			return;
		}
		s->b.len = got;
		len -= got;
	}
}

int plan_encode_to(FILE *out, const struct table *table,
		   const struct landing_set *landing, const char *target_name,
		   FILE *artifact, uint64_t artifact_len)
{
	enum target_id target = target_id_of(target_name);
	const char *upstream = table->upstream_proxy ?
			       table->upstream_proxy : "";
	uint64_t size[PLAN_NSECTIONS + 1], file_size, end;
	struct sink s = { .out = out };
	uint8_t crc[4];
	off_t base;
	size_t i;

	if (!target)
		BUG("no plan target for '%s'", target_name);
	base = ftello(out);
	if (base < 0)
		return -1;
	size[PLAN_SEC_POLICY] = 1 + 1 + 4 + strlen(upstream);
	size[PLAN_SEC_FS_ROWS] = rows_size(&table->fs);
	size[PLAN_SEC_NET_ROWS] = rows_size(&table->net);
	size[PLAN_SEC_RESERVED] = reserved_size(landing);
	size[PLAN_SEC_FINDINGS] = 4 + 10 * (uint64_t)table->nfindings;
	size[PLAN_SEC_ARTIFACT] = artifact_len;
	file_size = PLAN_HEADER_SIZE;
	for (i = PLAN_SEC_POLICY; i <= PLAN_NSECTIONS; i++)
		file_size += SECTION_HEADER + size[i];

	s.b.p = xmalloc(SINK_CHUNK + 4096);
	s.b.cap = SINK_CHUNK + 4096;
	wbuf_put(&s.b, PLAN_MAGIC, 8);
	wbuf_u16(&s.b, PLAN_FORMAT_VERSION);
	wbuf_u8(&s.b, target);
	wbuf_u8(&s.b, 0);
	wbuf_u32(&s.b, PLAN_HEADER_SIZE);
	wbuf_le(&s.b, file_size, 8);
	wbuf_u32(&s.b, 0);		/* checksum, written last */
	wbuf_u32(&s.b, PLAN_NSECTIONS);

	end = section_begin(&s, PLAN_SEC_POLICY, size[PLAN_SEC_POLICY]);
	wbuf_u8(&s.b, table->default_write);
	wbuf_u8(&s.b, table->default_net);
	wbuf_string(&s.b, upstream);
	section_end(&s, end, PLAN_SEC_POLICY);

	end = section_begin(&s, PLAN_SEC_FS_ROWS, size[PLAN_SEC_FS_ROWS]);
	put_rows(&s, &table->fs, landing->fs, landing->nfs);
	section_end(&s, end, PLAN_SEC_FS_ROWS);

	end = section_begin(&s, PLAN_SEC_NET_ROWS, size[PLAN_SEC_NET_ROWS]);
	put_rows(&s, &table->net, landing->net, landing->nnet);
	section_end(&s, end, PLAN_SEC_NET_ROWS);

	end = section_begin(&s, PLAN_SEC_RESERVED, size[PLAN_SEC_RESERVED]);
	wbuf_u32(&s.b, (uint32_t)landing->nreserved);
	for (i = 0; i < landing->nreserved; i++) {
		wbuf_string(&s.b, landing->reserved[i].entry);
		wbuf_string(&s.b, landing->reserved[i].reason ?
				       landing->reserved[i].reason : "");
	}
	section_end(&s, end, PLAN_SEC_RESERVED);

	end = section_begin(&s, PLAN_SEC_FINDINGS, size[PLAN_SEC_FINDINGS]);
	wbuf_u32(&s.b, (uint32_t)table->nfindings);
	for (i = 0; i < table->nfindings; i++) {
		const struct finding *f = &table->findings[i];

		wbuf_u8(&s.b, f->kind);
		wbuf_u8(&s.b, f->row->domain);
		wbuf_u32(&s.b, f->row->index);
		wbuf_u32(&s.b, f->by->index);
		sink_maybe_flush(&s);
	}
	section_end(&s, end, PLAN_SEC_FINDINGS);

	end = section_begin(&s, PLAN_SEC_ARTIFACT, size[PLAN_SEC_ARTIFACT]);
	put_stream(&s, artifact, artifact_len);
	sink_flush(&s);
	wbuf_release(&s.b);
	if (s.failed)
		return -1;
	section_end(&s, end, PLAN_SEC_ARTIFACT);
	if (s.len != file_size)
		BUG("plan of %llu bytes, counted %llu",
		    (unsigned long long)s.len, (unsigned long long)file_size);

	le_store(crc, s.crc, 4);
	if (fseeko(out, base + PLAN_HDR_CRC, SEEK_SET) < 0 ||
	    fwrite(crc, 1, 4, out) != 4 ||
	    fseeko(out, base + (off_t)file_size, SEEK_SET) < 0)
		return -1;
	return 0;
}

void plan_encode(const struct table *table, const struct landing_set *landing,
		 const char *target_name, const uint8_t *artifact,
		 size_t artifact_len, uint8_t **out, size_t *out_len)
{
	char *data = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&data, &len);
	FILE *art = artifact_len ? fmemopen((void *)(uintptr_t)artifact,
					    artifact_len, "r") : NULL;

	if (!mem || (artifact_len && !art) ||
	    plan_encode_to(mem, table, landing, target_name, art,
			   artifact_len) < 0 ||
	    fclose(mem) != 0)
		BUG("cannot encode a plan in memory");
	if (art)
		fclose(art);
	*out = (uint8_t *)data;
	*out_len = len;
}
