/* SPDX-License-Identifier: MIT */
/*
 * capsid.c - the windows capability SID (capsid.h; doc/targets.md, "The
 * capability SID"): SHA-256 (FIPS 180-4), the line encoding and the SID's
 * spelling, shared by the compiler and the windows launcher.
 */
#include <vbox.h>

#include <stdio.h>

#include "capsid.h"
#include "ir.h"
#include "plan.h"



static const uint32_t sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b,
	0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01,
	0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7,
	0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
	0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152,
	0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
	0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08,
	0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f,
	0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline uint32_t ror32(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

void sha256_init(struct sha256 *s)
{
	static const uint32_t iv[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(s->h, iv, sizeof(iv));
	s->nbytes = 0;
	s->nblock = 0;
}

static void sha256_compress(uint32_t h[8], const uint8_t *p)
{
	uint32_t w[64], v[8], t1, t2;
	unsigned i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (i = 16; i < 64; i++)
		w[i] = w[i - 16] + w[i - 7] +
		       (ror32(w[i - 15], 7) ^ ror32(w[i - 15], 18) ^
			w[i - 15] >> 3) +
		       (ror32(w[i - 2], 17) ^ ror32(w[i - 2], 19) ^
			w[i - 2] >> 10);
	memcpy(v, h, sizeof(v));
	for (i = 0; i < 64; i++) {
		t1 = v[7] + (ror32(v[4], 6) ^ ror32(v[4], 11) ^
			     ror32(v[4], 25)) +
		     ((v[4] & v[5]) ^ (~v[4] & v[6])) + sha256_k[i] + w[i];
		t2 = (ror32(v[0], 2) ^ ror32(v[0], 13) ^ ror32(v[0], 22)) +
		     ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
		memmove(v + 1, v, 7 * sizeof(v[0]));
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (i = 0; i < 8; i++)
		h[i] += v[i];
}

void sha256_update(struct sha256 *s, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t n;

	s->nbytes += len;
	while (len) {
		n = sizeof(s->block) - s->nblock;
		if (n > len)
			n = len;
		memcpy(s->block + s->nblock, p, n);
		s->nblock += n;
		p += n;
		len -= n;
		if (s->nblock == sizeof(s->block)) {
			sha256_compress(s->h, s->block);
			s->nblock = 0;
		}
	}
}

void sha256_final(struct sha256 *s, uint8_t out[32])
{
	uint64_t bits = s->nbytes * 8;
	uint8_t pad[72] = { 0x80 };
	size_t npad = (s->nblock < 56 ? 56 : 120) - s->nblock;
	unsigned i;

	for (i = 0; i < 8; i++)
		pad[npad + i] = (uint8_t)(bits >> (56 - 8 * i));
	sha256_update(s, pad, npad + 8);
	for (i = 0; i < 32; i++)
		out[i] = (uint8_t)(s->h[i / 4] >> (24 - 8 * (i % 4)));
}

void capsid_line(struct sha256 *s, const char *tag, const char *text)
{
	char head[48];
	int n;

	/* Length-prefixed, so no row text can forge a line boundary. */
	n = snprintf(head, sizeof(head), "%s %zu:", tag, strlen(text));
	if (n < 0 || (size_t)n >= sizeof(head))
		BUG("sid line header does not fit");
	sha256_update(s, head, (size_t)n);
	sha256_update(s, text, strlen(text));
	sha256_update(s, "\n", 1);
}

void capsid_begin(struct sha256 *s, const char *target)
{
	sha256_init(s);
	capsid_line(s, "format", "vbox-windows-capability-v1");
	capsid_line(s, "target", target);
}

void capsid_end(struct sha256 *s, char out[CAPSID_MAX],
		uint32_t sub[CAPSID_NSUB])
{
	uint8_t d[32];
	uint32_t v[CAPSID_NSUB];
	size_t i, len;
	int n;

	sha256_final(s, d);
	v[0] = 3;
	for (i = 0; i < 8; i++)
		v[i + 1] = (uint32_t)d[4 * i] | (uint32_t)d[4 * i + 1] << 8 |
			   (uint32_t)d[4 * i + 2] << 16 |
			   (uint32_t)d[4 * i + 3] << 24;
	len = 0;
	n = snprintf(out, CAPSID_MAX, "S-1-15");
	if (n < 0 || (size_t)n >= CAPSID_MAX)
		BUG("capability SID does not fit");
	len = (size_t)n;
	for (i = 0; i < CAPSID_NSUB; i++) {
		n = snprintf(out + len, CAPSID_MAX - len, "-%lu",
			     (unsigned long)v[i]);
		if (n < 0 || (size_t)n >= CAPSID_MAX - len)
			BUG("capability SID does not fit");
		len += (size_t)n;
	}
	if (sub)
		memcpy(sub, v, sizeof(v));
}

/* The row as diagnostics print it (compiler/table.c, row_text()). */
static int plan_row_text(const struct plan_row *r, enum domain domain,
			 char **out)
{
	char bangs[LEVEL_MAX + 1];
	const char *e;

	switch (r->effect) {
	case EFFECT_DENY:
		e = "deny";
		break;
	case EFFECT_RO:
		e = domain == DOMAIN_FS ? "ro" : NULL;
		break;
	case EFFECT_RW:
		e = domain == DOMAIN_FS ? "rw" : NULL;
		break;
	case EFFECT_ALLOW:
		e = domain == DOMAIN_NET ? "allow" : NULL;
		break;
	default:
		e = NULL;
		break;
	}
	if (!e)
		return -1;
	memset(bangs, '!', r->level);
	bangs[r->level] = '\0';
	*out = xasprintf("%s%s:%s", bangs, e, r->target);
	return 0;
}

/* Feed @n rows of @rows to @s in priority order. */
static int capsid_rows(struct sha256 *s, const char *tag,
		       const struct plan_row *rows, size_t n,
		       enum domain domain)
{
	const struct plan_row **order;
	size_t i;
	char *text;
	int ret = 0;

	if (!n)
		return 0;
	order = xcalloc(n, sizeof(*order));
	for (i = 0; i < n; i++) {
		/* plan_decode() checked that priorities are a permutation. */
		if (rows[i].prio >= n || order[rows[i].prio]) {
			ret = -1;
			goto out;
		}
		order[rows[i].prio] = &rows[i];
	}
	for (i = 0; i < n; i++) {
		if (plan_row_text(order[i], domain, &text) < 0) {
			ret = -1;
			goto out;
		}
		capsid_line(s, tag, text);
		free(text);
	}
out:
	free(order);
	return ret;
}

int capsid_of_plan(const struct plan *plan, char out[CAPSID_MAX],
		   uint32_t sub[CAPSID_NSUB])
{
	struct sha256 s;

	if (plan->default_write != EFFECT_DENY &&
	    plan->default_write != EFFECT_RW)
		return -1;
	capsid_begin(&s, target_id_name(plan->target));
	capsid_line(&s, "write",
		    plan->default_write == EFFECT_DENY ? "deny" : "rw");
	capsid_line(&s, "net",
		    plan->default_net == EFFECT_DENY ? "deny" : "open");
	if (capsid_rows(&s, "fs", plan->fs, plan->nfs, DOMAIN_FS) < 0 ||
	    capsid_rows(&s, "net", plan->net, plan->nnet, DOMAIN_NET) < 0)
		return -1;
	capsid_end(&s, out, sub);
	return 0;
}
