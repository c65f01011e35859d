/* SPDX-License-Identifier: MIT */
/*
 * plan.c - loading plan.bin (layout in plan.h; doc/targets.md).
 *
 * Owned here: the header, the checksum, the sections and their rows.
 * The loader is shared by vboxc (tests) and vbox-exec, so it treats its
 * input as hostile: every read is bounds-checked against the bytes left
 * in its section, every count is checked against those bytes before
 * anything is allocated, and every enum is range-checked.  Any error
 * produces one line saying what is wrong; nothing is half-loaded.
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "ir.h"
#include "landing.h"
#include "plan.h"
#include "wire.h"

/* The windows launcher's cross build (mingw) has neither. */
#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif
#ifndef O_NOCTTY
#define O_NOCTTY 0
#endif

/* Smallest encoding of one entry: what a count is checked against. */
#define ROW_MIN_BYTES (4 + 4 + 4 + 4 + 4)
#define RESERVED_MIN_BYTES (4 + 4)
#define FINDING_MIN_BYTES (1 + 1 + 4 + 4)

/*
 * CRC-32C (Castagnoli), reflected polynomial 0x82f63b78, one byte at a
 * time.  Entry i is the CRC register after shifting i through eight
 * rounds of the polynomial division.
 */
static const uint32_t crc32c_table[256] = {
	0x00000000, 0xf26b8303, 0xe13b70f7, 0x1350f3f4, 0xc79a971f, 0x35f1141c,
	0x26a1e7e8, 0xd4ca64eb, 0x8ad958cf, 0x78b2dbcc, 0x6be22838, 0x9989ab3b,
	0x4d43cfd0, 0xbf284cd3, 0xac78bf27, 0x5e133c24, 0x105ec76f, 0xe235446c,
	0xf165b798, 0x030e349b, 0xd7c45070, 0x25afd373, 0x36ff2087, 0xc494a384,
	0x9a879fa0, 0x68ec1ca3, 0x7bbcef57, 0x89d76c54, 0x5d1d08bf, 0xaf768bbc,
	0xbc267848, 0x4e4dfb4b, 0x20bd8ede, 0xd2d60ddd, 0xc186fe29, 0x33ed7d2a,
	0xe72719c1, 0x154c9ac2, 0x061c6936, 0xf477ea35, 0xaa64d611, 0x580f5512,
	0x4b5fa6e6, 0xb93425e5, 0x6dfe410e, 0x9f95c20d, 0x8cc531f9, 0x7eaeb2fa,
	0x30e349b1, 0xc288cab2, 0xd1d83946, 0x23b3ba45, 0xf779deae, 0x05125dad,
	0x1642ae59, 0xe4292d5a, 0xba3a117e, 0x4851927d, 0x5b016189, 0xa96ae28a,
	0x7da08661, 0x8fcb0562, 0x9c9bf696, 0x6ef07595, 0x417b1dbc, 0xb3109ebf,
	0xa0406d4b, 0x522bee48, 0x86e18aa3, 0x748a09a0, 0x67dafa54, 0x95b17957,
	0xcba24573, 0x39c9c670, 0x2a993584, 0xd8f2b687, 0x0c38d26c, 0xfe53516f,
	0xed03a29b, 0x1f682198, 0x5125dad3, 0xa34e59d0, 0xb01eaa24, 0x42752927,
	0x96bf4dcc, 0x64d4cecf, 0x77843d3b, 0x85efbe38, 0xdbfc821c, 0x2997011f,
	0x3ac7f2eb, 0xc8ac71e8, 0x1c661503, 0xee0d9600, 0xfd5d65f4, 0x0f36e6f7,
	0x61c69362, 0x93ad1061, 0x80fde395, 0x72966096, 0xa65c047d, 0x5437877e,
	0x4767748a, 0xb50cf789, 0xeb1fcbad, 0x197448ae, 0x0a24bb5a, 0xf84f3859,
	0x2c855cb2, 0xdeeedfb1, 0xcdbe2c45, 0x3fd5af46, 0x7198540d, 0x83f3d70e,
	0x90a324fa, 0x62c8a7f9, 0xb602c312, 0x44694011, 0x5739b3e5, 0xa55230e6,
	0xfb410cc2, 0x092a8fc1, 0x1a7a7c35, 0xe811ff36, 0x3cdb9bdd, 0xceb018de,
	0xdde0eb2a, 0x2f8b6829, 0x82f63b78, 0x709db87b, 0x63cd4b8f, 0x91a6c88c,
	0x456cac67, 0xb7072f64, 0xa457dc90, 0x563c5f93, 0x082f63b7, 0xfa44e0b4,
	0xe9141340, 0x1b7f9043, 0xcfb5f4a8, 0x3dde77ab, 0x2e8e845f, 0xdce5075c,
	0x92a8fc17, 0x60c37f14, 0x73938ce0, 0x81f80fe3, 0x55326b08, 0xa759e80b,
	0xb4091bff, 0x466298fc, 0x1871a4d8, 0xea1a27db, 0xf94ad42f, 0x0b21572c,
	0xdfeb33c7, 0x2d80b0c4, 0x3ed04330, 0xccbbc033, 0xa24bb5a6, 0x502036a5,
	0x4370c551, 0xb11b4652, 0x65d122b9, 0x97baa1ba, 0x84ea524e, 0x7681d14d,
	0x2892ed69, 0xdaf96e6a, 0xc9a99d9e, 0x3bc21e9d, 0xef087a76, 0x1d63f975,
	0x0e330a81, 0xfc588982, 0xb21572c9, 0x407ef1ca, 0x532e023e, 0xa145813d,
	0x758fe5d6, 0x87e466d5, 0x94b49521, 0x66df1622, 0x38cc2a06, 0xcaa7a905,
	0xd9f75af1, 0x2b9cd9f2, 0xff56bd19, 0x0d3d3e1a, 0x1e6dcdee, 0xec064eed,
	0xc38d26c4, 0x31e6a5c7, 0x22b65633, 0xd0ddd530, 0x0417b1db, 0xf67c32d8,
	0xe52cc12c, 0x1747422f, 0x49547e0b, 0xbb3ffd08, 0xa86f0efc, 0x5a048dff,
	0x8ecee914, 0x7ca56a17, 0x6ff599e3, 0x9d9e1ae0, 0xd3d3e1ab, 0x21b862a8,
	0x32e8915c, 0xc083125f, 0x144976b4, 0xe622f5b7, 0xf5720643, 0x07198540,
	0x590ab964, 0xab613a67, 0xb831c993, 0x4a5a4a90, 0x9e902e7b, 0x6cfbad78,
	0x7fab5e8c, 0x8dc0dd8f, 0xe330a81a, 0x115b2b19, 0x020bd8ed, 0xf0605bee,
	0x24aa3f05, 0xd6c1bc06, 0xc5914ff2, 0x37faccf1, 0x69e9f0d5, 0x9b8273d6,
	0x88d28022, 0x7ab90321, 0xae7367ca, 0x5c18e4c9, 0x4f48173d, 0xbd23943e,
	0xf36e6f75, 0x0105ec76, 0x12551f82, 0xe03e9c81, 0x34f4f86a, 0xc69f7b69,
	0xd5cf889d, 0x27a40b9e, 0x79b737ba, 0x8bdcb4b9, 0x988c474d, 0x6ae7c44e,
	0xbe2da0a5, 0x4c4623a6, 0x5f16d052, 0xad7d5351,
};

uint32_t crc32c(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	size_t i;

	crc = ~crc;
	for (i = 0; i < len; i++)
		crc = crc32c_table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
	return ~crc;
}

static const char *section_name(unsigned tag)
{
	switch (tag) {
	case PLAN_SEC_POLICY:
		return "policy";
	case PLAN_SEC_FS_ROWS:
		return "file rows";
	case PLAN_SEC_NET_ROWS:
		return "network rows";
	case PLAN_SEC_RESERVED:
		return "reserved entries";
	case PLAN_SEC_FINDINGS:
		return "findings";
	case PLAN_SEC_ARTIFACT:
		return "artifact";
	default:
		return "unknown";
	}
}

/* ---- reading --------------------------------------------------------- */

static int decode_policy(struct wire_reader *r, struct plan *p)
{
	char *proxy;

	if (wire_u8(r, &p->default_write, "default write") ||
	    wire_u8(r, &p->default_net, "default net"))
		return -1;
	if (p->default_write != EFFECT_DENY && p->default_write != EFFECT_RW)
		return wire_corrupt(r, "default write %u is out of range",
			       p->default_write);
	if (p->default_net != EFFECT_DENY && p->default_net != EFFECT_ALLOW)
		return wire_corrupt(r, "default net %u is out of range",
			       p->default_net);
	if (wire_string(r, &proxy, "upstream proxy"))
		return -1;
	if (*proxy)
		p->upstream_proxy = proxy;
	else
		free(proxy);
	return 0;
}

static bool effect_valid(enum domain domain, unsigned effect)
{
	if (domain == DOMAIN_FS)
		return effect == EFFECT_DENY || effect == EFFECT_RO ||
		       effect == EFFECT_RW;
	return effect == EFFECT_DENY || effect == EFFECT_ALLOW;
}

/*
 * A plan holds only rows the target enforces or can omit.  Supervised
 * rows exist only where a supervisor judges path calls: file rows of a
 * linux plan that deny or make read-only (an older loader refuses the
 * value as out of range, so it never misreads such a plan).
 */
static int check_landing(struct wire_reader *r, enum target_id target,
			 enum domain domain, const struct plan_row *row)
{
	switch (row->landing) {
	case LANDING_KERNEL:
	case LANDING_LAUNCH:
	case LANDING_PROXY:
	case LANDING_ABSORBED:
		return 0;
	case LANDING_SUPERVISED:
		if (domain != DOMAIN_FS)
			return wire_corrupt(r, "a network row cannot land "
					    "supervised");
		if (target != TARGET_LINUX)
			return wire_corrupt(r, "landing supervised in a %s "
					    "plan (linux only)",
					    target_id_name(target));
		if (row->effect == EFFECT_RW)
			return wire_corrupt(r, "an rw row cannot land "
					    "supervised");
		return 0;
	default:
		return wire_corrupt(r, "landing %u is out of range",
				    row->landing);
	}
}

static int decode_row(struct wire_reader *r, enum target_id target,
		      enum domain domain, uint32_t i, uint32_t n,
		      struct plan_row *row)
{
	uint8_t zero;

	if (wire_u32(r, &row->index, "index") ||
	    wire_u32(r, &row->prio, "priority") ||
	    wire_u8(r, &row->effect, "effect") ||
	    wire_u8(r, &row->level, "level") ||
	    wire_u8(r, &row->landing, "landing") ||
	    wire_u8(r, &zero, "padding"))
		return -1;
	if (row->index != i)
		return wire_corrupt(r, "index %u, expected %u", row->index, i);
	if (row->prio >= n)
		return wire_corrupt(r, "priority %u is out of range", row->prio);
	if (!effect_valid(domain, row->effect))
		return wire_corrupt(r, "effect %u is out of range", row->effect);
	if (check_landing(r, target, domain, row))
		return -1;
	if (zero)
		return wire_corrupt(r, "padding byte is %u, not 0", zero);
	if (wire_string(r, &row->target, "target") ||
	    wire_string(r, &row->source, "source"))
		return -1;
	if (!*row->target)
		return wire_corrupt(r, "empty target");
	return 0;
}

/*
 * Priorities must be a permutation that sorts the rows by level, highest
 * first, then by index: the launcher may apply rows in @prio order, so
 * a plan whose order disagrees with its levels is corrupt.
 */
static int check_prio(struct wire_reader *r, const struct plan_row *rows,
		      uint32_t n)
{
	uint32_t *inv, k;
	int ret = 0;

	if (!n)
		return 0;
	inv = xmalloc(n * sizeof(*inv));
	memset(inv, 0xff, n * sizeof(*inv));
	for (k = 0; k < n && !ret; k++) {
		if (inv[rows[k].prio] != UINT32_MAX)
			ret = wire_corrupt(r, "rows %u and %u share priority %u",
				      inv[rows[k].prio], k, rows[k].prio);
		inv[rows[k].prio] = k;
	}
	for (k = 1; k < n && !ret; k++) {
		const struct plan_row *a = &rows[inv[k - 1]];
		const struct plan_row *b = &rows[inv[k]];

		if (a->level < b->level ||
		    (a->level == b->level && a->index > b->index))
			ret = wire_corrupt(r, "priority %u disagrees with the levels",
				      k);
	}
	free(inv);
	return ret;
}

static int decode_rows(struct wire_reader *r, enum target_id target,
		       enum domain domain, struct plan_row **out, size_t *nout)
{
	const char *what = domain == DOMAIN_FS ? "file rows" : "network rows";
	uint32_t n, i;

	if (wire_count(r, &n, ROW_MIN_BYTES, PLAN_MAX_ROWS))
		return -1;
	if (!n)
		return 0;
	*out = xcalloc(n, sizeof(**out));
	*nout = n;
	for (i = 0; i < n; i++) {
		snprintf(r->ctx, sizeof(r->ctx), "%s, row %u", what, i);
		if (decode_row(r, target, domain, i, n, &(*out)[i]))
			return -1;
	}
	snprintf(r->ctx, sizeof(r->ctx), "%s", what);
	return check_prio(r, *out, n);
}

static int decode_reserved(struct wire_reader *r, struct plan *p)
{
	uint32_t n, i;

	if (wire_count(r, &n, RESERVED_MIN_BYTES, PLAN_MAX_ROWS))
		return -1;
	if (!n)
		return 0;
	p->reserved = xcalloc(n, sizeof(*p->reserved));
	p->nreserved = n;
	for (i = 0; i < n; i++) {
		struct plan_reserved *e = &p->reserved[i];

		snprintf(r->ctx, sizeof(r->ctx), "reserved entry %u", i);
		if (wire_string(r, &e->entry, "entry") ||
		    wire_string(r, &e->reason, "reason"))
			return -1;
		if (!*e->entry)
			return wire_corrupt(r, "empty entry");
	}
	return 0;
}

static int check_finding(struct wire_reader *r, const struct plan *p,
			 const struct plan_finding *f, uint64_t *last)
{
	const struct plan_row *rows = f->domain == DOMAIN_FS ? p->fs : p->net;
	size_t n = f->domain == DOMAIN_FS ? p->nfs : p->nnet;
	uint64_t key = ((uint64_t)f->domain << 32 | f->row) + 1;

	if (f->kind != FINDING_INEFFECTIVE && f->kind != FINDING_DEAD)
		return wire_corrupt(r, "kind %u is out of range", f->kind);
	if (f->domain != DOMAIN_FS && f->domain != DOMAIN_NET)
		return wire_corrupt(r, "domain %u is out of range", f->domain);
	if (f->row >= n || f->by >= n)
		return wire_corrupt(r, "row %u or %u is out of range", f->row,
			       f->by);
	/* Shadow analysis only ever names a higher-priority row. */
	if (rows[f->by].prio >= rows[f->row].prio)
		return wire_corrupt(r, "row %u cannot cover row %u", f->by, f->row);
	/* Findings come sorted: file rows first, each by row index, once. */
	if (key <= *last)
		return wire_corrupt(r, "findings out of order");
	*last = key;
	return 0;
}

static int decode_findings(struct wire_reader *r, struct plan *p)
{
	uint64_t last = 0;
	uint32_t n, i;

	if (wire_count(r, &n, FINDING_MIN_BYTES, PLAN_MAX_ROWS))
		return -1;
	if (!n)
		return 0;
	p->findings = xcalloc(n, sizeof(*p->findings));
	p->nfindings = n;
	for (i = 0; i < n; i++) {
		struct plan_finding *f = &p->findings[i];

		snprintf(r->ctx, sizeof(r->ctx), "finding %u", i);
		if (wire_u8(r, &f->kind, "kind") ||
		    wire_u8(r, &f->domain, "domain") ||
		    wire_u32(r, &f->row, "row") || wire_u32(r, &f->by, "by") ||
		    check_finding(r, p, f, &last))
			return -1;
	}
	return 0;
}

/*
 * The artifact is kept NUL-terminated (not counted) for text targets; a
 * linux one is decoded too.
 */
static int decode_artifact(struct wire_reader *r, struct plan *p)
{
	p->artifact = xmalloc(r->len + 1);
	if (r->len)
		memcpy(p->artifact, r->p, r->len);
	p->artifact[r->len] = '\0';
	p->artifact_len = r->len;
	if (p->target == TARGET_LINUX)
		return lx_decode(r, &p->lx);
	r->off = r->len;
	return 0;
}

static int decode_section(struct wire_reader *r, unsigned tag, struct plan *p)
{
	switch (tag) {
	case PLAN_SEC_POLICY:
		return decode_policy(r, p);
	case PLAN_SEC_FS_ROWS:
		return decode_rows(r, p->target, DOMAIN_FS, &p->fs, &p->nfs);
	case PLAN_SEC_NET_ROWS:
		return decode_rows(r, p->target, DOMAIN_NET, &p->net,
				   &p->nnet);
	case PLAN_SEC_RESERVED:
		return decode_reserved(r, p);
	case PLAN_SEC_FINDINGS:
		return decode_findings(r, p);
	case PLAN_SEC_ARTIFACT:
		return decode_artifact(r, p);
	default:
		BUG("bad section tag %u", tag);
	}
}

/*
 * The header in the order that gives the most useful message: what the
 * file is, which version, whether it is whole, whether it is intact, and
 * only then what an intact header says.
 */
/*
 * Text where a plan was expected: a rules file given in its place (a plan
 * starts with its binary magic).  Looks at the first 256 bytes only.
 */
static bool looks_like_text(const uint8_t *buf, size_t len)
{
	size_t i, n = len < 256 ? len : 256;
	bool nl = false;

	for (i = 0; i < n; i++) {
		if (buf[i] < 0x20 && buf[i] != '\n' && buf[i] != '\t' &&
		    buf[i] != '\r')
			return false;
		nl |= buf[i] == '\n';
	}
	/* A few stray bytes are no file of rules. */
	return nl || n >= 16;
}

static int decode_header(const uint8_t *buf, size_t len, struct plan *p,
			 char **err)
{
	size_t magic_len = len < 8 ? len : 8;
	uint32_t crc, want;
	uint64_t size;
	unsigned v;

	if (magic_len && memcmp(buf, PLAN_MAGIC, magic_len) != 0)
		return wire_fail(err, "not a vbox plan%s",
				 looks_like_text(buf, len) ?
				 " (it looks like a rules file: make a plan "
				 "with 'vboxc compile --emit=plan RULES -o "
				 "PLAN')" : "");
	if (len < PLAN_HEADER_SIZE)
		return wire_fail(err, "truncated: %zu bytes, shorter than the %u-byte plan header",
			    len, (unsigned)PLAN_HEADER_SIZE);
	v = (unsigned)le_load(buf + PLAN_HDR_VERSION, 2);
	if (v != PLAN_FORMAT_VERSION)
		return wire_fail(err, "plan format version %u is not supported (this build reads version %u)",
			    v, (unsigned)PLAN_FORMAT_VERSION);
	if (len > PLAN_MAX_FILE_BYTES)
		return wire_fail(err, "too large: %zu bytes, over the %u-byte limit",
			    len, PLAN_MAX_FILE_BYTES);
	size = le_load(buf + PLAN_HDR_FILE_SIZE, 8);
	if (size > len)
		return wire_fail(err, "truncated: the plan is %zu bytes, its header says %llu",
			    len, (unsigned long long)size);
	if (size < len)
		return wire_fail(err, "trailing bytes: the plan is %zu bytes, its header says %llu",
			    len, (unsigned long long)size);

	want = (uint32_t)le_load(buf + PLAN_HDR_CRC, 4);
	crc = crc32c(0, buf, PLAN_HDR_CRC);
	crc = crc32c(crc, "\0\0\0\0", 4);
	crc = crc32c(crc, buf + PLAN_HDR_CRC + 4, len - PLAN_HDR_CRC - 4);
	if (crc != want)
		return wire_fail(err, "checksum mismatch: the plan is damaged");

	v = buf[PLAN_HDR_TARGET];
	if (v < TARGET_ID_MIN || v > TARGET_ID_MAX)
		return wire_fail(err, "unknown target %u in the plan", v);
	p->target = v;
	if (buf[PLAN_HDR_ZERO])
		return wire_fail(err, "corrupt plan: header: reserved byte is %u, not 0",
			    buf[PLAN_HDR_ZERO]);
	v = (unsigned)le_load(buf + PLAN_HDR_HEADER_SIZE, 4);
	if (v != PLAN_HEADER_SIZE)
		return wire_fail(err, "corrupt plan: header: header size %u, not %u",
			    v, (unsigned)PLAN_HEADER_SIZE);
	v = (unsigned)le_load(buf + PLAN_HDR_NSECTIONS, 4);
	if (v != PLAN_NSECTIONS)
		return wire_fail(err, "corrupt plan: header: %u sections, not %u", v,
			    PLAN_NSECTIONS);
	return 0;
}

static int decode_sections(const uint8_t *buf, size_t len, struct plan *p,
			   char **err)
{
	size_t off = PLAN_HEADER_SIZE;
	unsigned tag;

	for (tag = 1; tag <= PLAN_NSECTIONS; tag++) {
		struct wire_reader r = { .err = err };
		unsigned got, zero;
		uint32_t size;

		if (len - off < PLAN_SECTION_HEADER_SIZE)
			return wire_fail(err, "corrupt plan: section %u (%s) is missing",
				    tag, section_name(tag));
		got = (unsigned)le_load(buf + off, 2);
		zero = (unsigned)le_load(buf + off + 2, 2);
		size = (uint32_t)le_load(buf + off + 4, 4);
		if (got < tag)
			return wire_fail(err, "corrupt plan: section %u (%s) is duplicated or out of order",
				    got, section_name(got));
		if (got > PLAN_NSECTIONS)
			return wire_fail(err, "corrupt plan: unknown section tag %u",
				    got);
		if (got > tag)
			return wire_fail(err, "corrupt plan: section %u (%s) is missing",
				    tag, section_name(tag));
		snprintf(r.ctx, sizeof(r.ctx), "%s section", section_name(tag));
		if (zero)
			return wire_corrupt(&r, "reserved field is %u, not 0", zero);
		off += PLAN_SECTION_HEADER_SIZE;
		if (size > len - off)
			return wire_corrupt(&r, "size %u overruns the plan (%zu bytes left)",
				       size, len - off);
		r.p = buf + off;
		r.len = size;
		snprintf(r.ctx, sizeof(r.ctx), "%s", section_name(tag));
		if (decode_section(&r, tag, p))
			return -1;
		if (r.off != r.len)
			return wire_corrupt(&r, "%zu unused bytes at the end",
				       r.len - r.off);
		off += size;
	}
	if (off != len)
		return wire_fail(err, "corrupt plan: %zu bytes after the last section",
			    len - off);
	return 0;
}

int plan_decode(const uint8_t *buf, size_t len, struct plan *out, char **err)
{
	struct plan p;

	memset(&p, 0, sizeof(p));
	memset(out, 0, sizeof(*out));
	*err = NULL;
	if (decode_header(buf, len, &p, err) ||
	    decode_sections(buf, len, &p, err)) {
		plan_release(&p);
		return -1;
	}
	*out = p;
	return 0;
}

/* Read all of @fd, failing past PLAN_MAX_FILE_BYTES; errno on failure. */
static int read_bounded(int fd, uint8_t **out, size_t *out_len, bool *big)
{
	size_t len = 0, cap = 0;
	uint8_t *buf = NULL;

	*big = false;
	for (;;) {
		ssize_t n;

		if (len == cap) {
			if (cap > PLAN_MAX_FILE_BYTES) {
				*big = true;
				free(buf);
				return -1;
			}
			cap = cap ? cap * 2 : 64 << 10;
			/* One byte past the limit is enough to know. */
			if (cap > PLAN_MAX_FILE_BYTES + 1)
				cap = PLAN_MAX_FILE_BYTES + 1;
			buf = xrealloc(buf, cap);
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int saved = errno;

			free(buf);
			errno = saved;
			return -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > PLAN_MAX_FILE_BYTES) {
		*big = true;
		free(buf);
		return -1;
	}
	*out = buf;
	*out_len = len;
	return 0;
}

int plan_load(const char *path, struct plan *out, char **err)
{
	uint8_t *buf = NULL;
	size_t len = 0;
	char *why = NULL;
	bool big;
	int fd, ret;

	memset(out, 0, sizeof(*out));
	*err = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return wire_fail(err, "%s: cannot open: %s", path, strerror(errno));
	ret = read_bounded(fd, &buf, &len, &big);
	if (ret) {
		if (big)
			wire_fail(err, "%s: too large: over the %u-byte limit", path,
			     PLAN_MAX_FILE_BYTES);
		else
			wire_fail(err, "%s: cannot read: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	ret = plan_decode(buf, len, out, &why);
	free(buf);
	if (ret) {
		wire_fail(err, "%s: %s", path, why);
		free(why);
	}
	return ret;
}

bool plan_supervised_paths(const struct plan *p)
{
	size_t i;

	for (i = 0; i < p->nfs; i++)
		if (p->fs[i].landing == LANDING_SUPERVISED)
			return true;
	return false;
}

bool plan_supervised_ro_only(const struct plan *p)
{
	size_t i;
	bool any = false;

	/* anything but ro (deny) judges reads too: fail closed */
	for (i = 0; i < p->nfs; i++) {
		if (p->fs[i].landing != LANDING_SUPERVISED)
			continue;
		if (p->fs[i].effect != EFFECT_RO)
			return false;
		any = true;
	}
	return any;
}

static void free_rows(struct plan_row *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(rows[i].target);
		free(rows[i].source);
	}
	free(rows);
}

void plan_release(struct plan *plan)
{
	size_t i;

	if (!plan)
		return;
	free(plan->upstream_proxy);
	free_rows(plan->fs, plan->nfs);
	free_rows(plan->net, plan->nnet);
	for (i = 0; i < plan->nreserved; i++) {
		free(plan->reserved[i].entry);
		free(plan->reserved[i].reason);
	}
	free(plan->reserved);
	free(plan->findings);
	free(plan->artifact);
	lx_artifact_release(&plan->lx);
	memset(plan, 0, sizeof(*plan));
}
