/* SPDX-License-Identifier: MIT */
/*
 * test_pconfig.c - the egress proxy process's configuration
 * (runtime/proxy/pconfig.h): what vbox-exec writes, vbox-proxy reads
 * back exactly, judging as the plan does; any damaged copy is refused
 * with a message, never half-read.
 */
#include <vbox.h>

#include <stdio.h>

#include "emit.h"
#include "ir.h"
#include "judge.h"
#include "netaddr.h"
#include "pconfig.h"
#include "plan.h"
#include "planjudge.h"
#include "tap.h"
#include "wire.h"

/* Network rows of a plan, in table order, with their priority. */
static const struct {
	const char *target;
	uint8_t effect, level;
	uint32_t prio;
	const char *source;
} rows[] = {
	{ "api.example.com:443", EFFECT_ALLOW, 0, 3, "rules:4:1" },
	{ "*.evil.com", EFFECT_DENY, 2, 0, "rules:5:1" },
	{ "localhost:8080", EFFECT_ALLOW, 0, 4, NULL },
	{ "10.1.2.3", EFFECT_DENY, 1, 1, "rules:7:3" },
	{ "*.example.com", EFFECT_ALLOW, 1, 2, "rules:8:1" },
};

static const char *queries[] = {
	"api.example.com:443", "api.example.com:80", "www.evil.com:443",
	"x.example.com:22", "localhost:8080", "127.0.0.1:8080",
	"10.1.2.3:443", "example.org:443",
};

static void make_plan(struct plan *p)
{
	size_t i;

	memset(p, 0, sizeof(*p));
	p->default_net = EFFECT_DENY;
	p->upstream_proxy = xstrdup("http://proxy.corp.example:3128");
	p->nnet = array_size(rows);
	p->net = xcalloc(p->nnet, sizeof(*p->net));
	for (i = 0; i < p->nnet; i++) {
		p->net[i].index = (uint32_t)(10 + i);
		p->net[i].prio = rows[i].prio;
		p->net[i].effect = rows[i].effect;
		p->net[i].level = rows[i].level;
		p->net[i].landing = LANDING_PROXY;
		p->net[i].target = xstrdup(rows[i].target);
		p->net[i].source = rows[i].source ? xstrdup(rows[i].source) :
						    NULL;
	}
}

static void make_config(struct pconfig *c)
{
	memset(c, 0, sizeof(*c));
	c->log = true;
	c->t0_ms = 123456.789;
	memset(c->token[PROXY_HTTP], 'h', PROXY_TOKEN_LEN);
	memset(c->token[PROXY_SOCKS5], 's', PROXY_TOKEN_LEN);
	c->ports[0] = 3128;
	c->ports[1] = 1080;
	c->ports[2] = 8080;
	c->nports = 3;
}

/*
 * Do @a and @b decide every query alike, by the same row?  The queries
 * must meet an allowing row, a denying row and the default.
 */
static bool same_verdicts(const struct judge *a, const struct judge *b)
{
	bool allowed = false, denied = false, by_default = false;
	size_t i;

	for (i = 0; i < array_size(queries); i++) {
		struct net_target q;
		struct verdict va, vb;
		char *err = NULL;

		if (net_query_parse(queries[i], &q, &err) != 0) {
			diag("query %s: %s", queries[i], err);
			free(err);
			return false;
		}
		judge_query(a, &q, &va);
		judge_query(b, &q, &vb);
		net_target_free(&q);
		allowed = allowed || (va.allow && va.row >= 0);
		denied = denied || (!va.allow && va.row >= 0);
		by_default = by_default || va.row < 0;
		if (va.allow != vb.allow || va.row != vb.row) {
			diag("%s: %s by row %d, then %s by row %d", queries[i],
			     va.allow ? "allow" : "deny", va.row,
			     vb.allow ? "allow" : "deny", vb.row);
			return false;
		}
	}
	if (!allowed || !denied || !by_default)
		diag("the queries miss a kind of decision");
	return allowed && denied && by_default;
}

/* Decode a copy of exactly @len bytes (ASan sees an over-read). */
static int decode_copy(const uint8_t *buf, size_t len, struct pconfig *c,
		       struct judge *j, char **err)
{
	uint8_t *copy = xmalloc(len ? len : 1);
	int rc;

	if (len)
		memcpy(copy, buf, len);
	rc = pconfig_decode(copy, len, c, j, err);
	free(copy);
	return rc;
}

static void round_trip(const struct plan *p, const struct wbuf *w)
{
	struct pconfig in, out;
	struct judge ref, got;
	char *err = NULL;
	size_t i;

	make_config(&in);
	if (!ok(decode_copy(w->p, w->len, &out, &got, &err) == 0,
		"the configuration reads back")) {
		diag("%s", err);
		free(err);
		return;
	}
	ok(out.log && out.t0_ms > 123456.788 && out.t0_ms < 123456.790,
	   "--log and its time origin (%.3f ms) survive", out.t0_ms);
	ok(!strcmp(out.token[PROXY_HTTP], in.token[PROXY_HTTP]) &&
		   !strcmp(out.token[PROXY_SOCKS5], in.token[PROXY_SOCKS5]),
	   "both tokens survive");
	ok(out.nports == 3 && out.ports[0] == 3128 && out.ports[1] == 1080 &&
		   out.ports[2] == 8080,
	   "the ports survive, in order");
	ok(out.upstream && !strcmp(out.upstream, p->upstream_proxy),
	   "the upstream proxy survives");
	if (judge_from_plan(&ref, p, &err) != 0)
		BUG("judge_from_plan: %s", err);
	ok(got.nrows == ref.nrows && got.default_allow == ref.default_allow,
	   "%zu rows and the posture, as judge_from_plan() has them",
	   got.nrows);
	for (i = 0; i < got.nrows && i < ref.nrows; i++)
		if (got.rows[i].index != ref.rows[i].index ||
		    got.rows[i].level != ref.rows[i].level ||
		    got.rows[i].allow != ref.rows[i].allow ||
		    strcmp(got.rows[i].source, ref.rows[i].source))
			break;
	ok(i == ref.nrows, "every row in priority order, with its index, "
	   "level, effect and source");
	ok(same_verdicts(&ref, &got), "%zu queries decided alike",
	   array_size(queries));
	judge_release(&ref);
	judge_release(&got);
	pconfig_release(&out);
}

static void damaged(const struct wbuf *w)
{
	struct pconfig out;
	struct judge j;
	uint8_t *copy;
	size_t len, i, bad = 0, read_back = 0;
	char *err = NULL;
	int rc;

	/* every shorter copy is refused, with a message */
	for (len = 0; len < w->len; len++) {
		if (decode_copy(w->p, len, &out, &j, &err) == 0) {
			pconfig_release(&out);
			judge_release(&j);
			bad++;
			continue;
		}
		if (!err)
			bad++;
		free(err);
		err = NULL;
	}
	ok(bad == 0, "all %zu truncated copies are refused with a message",
	   w->len);
	/* one byte more */
	copy = xmalloc(w->len + 1);
	memcpy(copy, w->p, w->len);
	copy[w->len] = 0;
	rc = pconfig_decode(copy, w->len + 1, &out, &j, &err);
	ok(rc != 0 && err && strstr(err, "after the rows"),
	   "a byte after the rows is refused: %s", err ? err : "(none)");
	free(err);
	err = NULL;
	free(copy);
	/* every byte flipped: refused, or read whole (the sanitizers watch) */
	bad = 0;
	for (i = 0; i < w->len; i++) {
		copy = xmalloc(w->len);
		memcpy(copy, w->p, w->len);
		copy[i] ^= 0xff;
		if (pconfig_decode(copy, w->len, &out, &j, &err) == 0) {
			read_back++;
			pconfig_release(&out);
			judge_release(&j);
		} else if (!err) {
			bad++;
		}
		free(err);
		err = NULL;
		free(copy);
	}
	ok(bad == 0, "%zu one-byte damages: %zu read whole, the rest refused "
	   "with a message", w->len, read_back);
}

/*
 * denials - vbox-proxy's "D" notices: a round trip; every truncation,
 * a byte that is not printable, a second NUL and an over-long text
 * refused by the reader (vbox-exec prints what it accepts); the writer
 * refuses what the reader would.
 */
static void denials(void)
{
	char what[PROXY_DENY_TEXT_MAX + 1], why[PROXY_DENY_TEXT_MAX + 1];
	char big[PROXY_DENY_TEXT_MAX + 2];
	uint8_t msg[PCONFIG_MAX_MSG], copy[PCONFIG_MAX_MSG + 8];
	size_t n, k, bad = 0;
	uint32_t lost = 0;

	n = pconfig_denial_encode(msg, 7, "CONNECT example.com:443",
				  "row 3 at rules:7:1");
	ok(n == 1 + 4 + 23 + 1 + 18 + 1, "a notice encodes to %zu bytes", n);
	ok(pconfig_denial_decode(msg, n, &lost, what, why) == 0 &&
	   lost == 7 && !strcmp(what, "CONNECT example.com:443") &&
	   !strcmp(why, "row 3 at rules:7:1"), "... and reads back whole");
	for (k = 0; k < n; k++)
		bad += pconfig_denial_decode(msg, k, &lost, what, why) == 0;
	ok(bad == 0, "each of its %zu truncations is refused", n);
	memcpy(copy, msg, n);
	copy[8] = '\n';
	ok(pconfig_denial_decode(copy, n, &lost, what, why) < 0,
	   "a newline in a text is refused");
	copy[8] = (char)0xc3;
	ok(pconfig_denial_decode(copy, n, &lost, what, why) < 0,
	   "a byte past ASCII is refused");
	copy[8] = '\0';
	ok(pconfig_denial_decode(copy, n, &lost, what, why) < 0,
	   "a second NUL is refused");
	copy[0] = 'R';
	copy[8] = msg[8];
	ok(pconfig_denial_decode(copy, n, &lost, what, why) < 0,
	   "another message is refused");
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ok(pconfig_denial_encode(msg, 0, big, "x") == 0 &&
	   pconfig_denial_encode(msg, 0, "x", "") == 0 &&
	   pconfig_denial_encode(msg, 0, "a\tb", "x") == 0,
	   "the writer refuses a text too long, empty or not printable");
	big[sizeof(big) - 2] = '\0';
	n = pconfig_denial_encode(msg, 0, big, big);
	ok(n && pconfig_denial_decode(msg, n, &lost, what, why) == 0 &&
	   strlen(what) == PROXY_DENY_TEXT_MAX,
	   "two texts at the bound fit one message (%zu bytes)", n);
	copy[0] = 'D';
	memcpy(copy + 1, msg + 1, 4);
	memset(copy + 5, 'b', PROXY_DENY_TEXT_MAX + 1);
	copy[5 + PROXY_DENY_TEXT_MAX + 1] = '\0';
	copy[5 + PROXY_DENY_TEXT_MAX + 2] = 'x';
	copy[5 + PROXY_DENY_TEXT_MAX + 3] = '\0';
	ok(pconfig_denial_decode(copy, PROXY_DENY_TEXT_MAX + 9, &lost, what,
				 why) < 0, "a text past the bound is refused");
}

int main(void)
{
	struct pconfig c;
	struct plan p;
	struct wbuf w = { 0 }, w2 = { 0 };

	make_plan(&p);
	make_config(&c);
	c.upstream = p.upstream_proxy;
	pconfig_encode(&w, &c, &p);
	pconfig_encode(&w2, &c, &p);
	ok(w.len == w2.len && !memcmp(w.p, w2.p, w.len),
	   "the same configuration encodes to the same %zu bytes", w.len);
	round_trip(&p, &w);
	damaged(&w);
	denials();
	wbuf_release(&w);
	wbuf_release(&w2);
	plan_release(&p);
	return done_testing();
}
