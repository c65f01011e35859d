/* SPDX-License-Identifier: MIT */
/*
 * diff_net.c - the destinations two tables decide differently.
 *
 * A network row matches a set of hosts and a set of ports (doc/rules.md
 * §6), so the destinations split into finitely many classes that every
 * row of both tables treats alike, and one destination of each class
 * decides for all of it:
 *
 *   hosts:  the loopback class; each name, IPv4 and IPv6 address a row
 *           names; for each "*.S" row, a fresh name one label under S
 *           (it lies under exactly the suffixes S lies under, and is no
 *           named host, as every unnamed name whose deepest row suffix
 *           is S); and one host no row matches (a fresh name);
 *   ports:  for each host, each port a row matching it names, and one
 *           port none names.
 *
 * Both tables are evaluated on every pair, so the classes are exact.
 * Queries with port "*" are not destinations (explain answers them by
 * overlap) and are not compared.
 */
#include <vbox.h>

#include <stdio.h>

#include "diff_int.h"
#include "eval.h"
#include "grow.h"
#include "index.h"
#include "ir.h"
#include "netaddr.h"
#include "strv.h"

#define NAME_MAX_LEN 253

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool in_sorted(const struct strv *v, const char *s)
{
	return v->n && bsearch(&s, v->v, v->n, sizeof(*v->v), str_cmp);
}

static void sort_unique(struct strv *v)
{
	size_t i, n = 0;

	if (!v->n)	/* (v->v may be NULL: qsort's base must not be) */
		return;
	qsort(v->v, v->n, sizeof(*v->v), str_cmp);
	for (i = 0; i < v->n; i++) {
		if (n && !strcmp(v->v[n - 1], v->v[i])) {
			free(v->v[i]);
			continue;
		}
		v->v[n++] = v->v[i];
	}
	v->n = n;
}

/* Add to @ports the port of every row of @l matching @q's host. */
static void list_ports(const struct rowvec *rows, const struct idx_list *l,
		       const struct net_target *q, uint16_t **ports,
		       size_t *n, size_t *cap)
{
	uint32_t i;

	for (i = 0; l && i < l->n; i++) {
		const struct net_target *r =
			&rows->prio[idx_list_prio(l)[i]]->net;

		/* @q has any port: the match is the hosts'. */
		if (r->any_port || !net_match(r, q))
			continue;
		GROW(*ports, *cap, *n + 1);
		(*ports)[(*n)++] = r->port;
	}
}

/* The rows' ports for the host of @q, in the lists eval.c would read. */
static void host_ports(const struct table *t, const struct net_target *q,
		       uint16_t **ports, size_t *n, size_t *cap)
{
	const struct net_index *idx = t->net_index;
	const char *dot;

	if (q->kind == HOST_LOOPBACK) {
		list_ports(&t->net, net_index_list(idx, NET_KEY_LOOPBACK, "",
						   0), q, ports, n, cap);
		return;
	}
	list_ports(&t->net, net_index_list(idx, NET_KEY_EXACT, q->host,
					   strlen(q->host)), q, ports, n, cap);
	if (q->kind != HOST_NAME)
		return;
	for (dot = strchr(q->host, '.'); dot; dot = strchr(dot + 1, '.'))
		list_ports(&t->net, net_index_list(idx, NET_KEY_SUFFIX,
						   dot + 1, strlen(dot + 1)),
			   q, ports, n, cap);
}

static int port_cmp(const void *a, const void *b)
{
	return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b;
}

/* A port none of @ports (sorted) is, preferring common ones; 0: none. */
static unsigned other_port(const uint16_t *ports, size_t n)
{
	static const uint16_t liked[] = { 443, 80, 22, 8080 };
	uint16_t p;
	size_t i;

	for (i = 0; i < array_size(liked); i++)
		if (!n || !bsearch(&liked[i], ports, n, sizeof(*ports),
				   port_cmp))
			return liked[i];
	for (p = 1; p != 0; p++)
		if (!n || !bsearch(&p, ports, n, sizeof(*ports), port_cmp))
			return p;
	return 0;
}

/* Compare both tables on @host at @port; returns 0 or -1. */
static int compare_one(struct diff_ctx *ctx, const char *host, unsigned port)
{
	struct net_target q;
	struct decision d[2];
	char *text, *err = NULL;
	int side;

	if (strchr(host, ':'))
		text = xasprintf("[%s]:%u", host, port);
	else
		text = xasprintf("%s:%u", host, port);
	if (net_query_parse(text, &q, &err) < 0) {
		diff_fail(ctx, "destination '%s' of a class does not parse: "
			  "%s", text, err);
		free(err);
		free(text);
		return -1;
	}
	for (side = 0; side < 2; side++)
		eval_net(ctx->t[side], &q, &d[side]);
	ctx->stats.net_queries++;
	if (d[0].allow != d[1].allow)
		diff_record(ctx, DIFF_NET, q.text, d[0].row, d[0].allow,
			    d[1].row, d[1].allow);
	net_target_free(&q);
	free(text);
	return 0;
}

/* Every port class of the host @host. */
static int compare_host(struct diff_ctx *ctx, const char *host)
{
	uint16_t *ports = NULL;
	size_t n = 0, cap = 0, i, k;
	struct net_target q;
	char *err = NULL;
	unsigned other;
	int side, ret = 0;

	if (net_query_parse(host, &q, &err) < 0) {
		ret = diff_fail(ctx, "host '%s' of a class does not parse: %s",
				host, err);
		free(err);
		return ret;
	}
	for (side = 0; side < 2; side++)
		host_ports(ctx->t[side], &q, &ports, &n, &cap);
	net_target_free(&q);
	if (n)
		qsort(ports, n, sizeof(*ports), port_cmp);
	for (i = k = 0; i < n; i++)
		if (!k || ports[k - 1] != ports[i])
			ports[k++] = ports[i];
	n = k;
	for (i = 0; i < n && !ret; i++)
		ret = compare_one(ctx, host, ports[i]);
	other = other_port(ports, n);
	if (!ret && other)
		ret = compare_one(ctx, host, other);
	free(ports);
	return ret;
}

/* A name one fresh label under @parent, no row's name; NULL if none fits. */
static char *fresh_name(const struct strv *names, const char *parent)
{
	char *name;
	unsigned i;

	for (i = 0; i < 1000000; i++) {
		name = i ? xasprintf("x%u.%s", i - 1, parent) :
			   xasprintf("x.%s", parent);
		if (strlen(name) > NAME_MAX_LEN) {
			free(name);
			return NULL;
		}
		if (!in_sorted(names, name))
			return name;
		free(name);
	}
	return NULL;
}

/*
 * An address no row names: from the documentation ranges, 192.0.2.N
 * (@v6: 2001:db8::N), which no rule is likely to name.
 */
static char *fresh_address(const struct strv *addrs, bool v6)
{
	struct net_target q;
	char *text, *err = NULL;
	unsigned i;

	for (i = 1; i < 256; i++) {
		if (v6)
			text = xasprintf("2001:db8::%x", i);
		else
			text = xasprintf("192.0.2.%u", i);
		if (net_query_parse(text, &q, &err) < 0)
			BUG("fresh address '%s': %s", text, err);
		if (!in_sorted(addrs, q.host)) {
			net_target_free(&q);
			return text;
		}
		net_target_free(&q);
		free(text);
	}
	return NULL;
}

int diff_net(struct diff_ctx *ctx)
{
	struct strv names = { 0 }, addrs = { 0 }, suffixes = { 0 };
	struct strv hosts = { 0 };
	char *h;
	size_t i;
	int side, ret = 0;

	for (side = 0; side < 2; side++) {
		const struct rowvec *rows = &ctx->t[side]->net;

		for (i = 0; i < rows->n; i++) {
			const struct net_target *t = &rows->order[i]->net;

			switch (t->kind) {
			case HOST_NAME:
				strv_add(&names, t->host);
				break;
			case HOST_IPV4:
			case HOST_IPV6:
				strv_add(&addrs, t->host);
				break;
			case HOST_SUFFIX:
				strv_add(&suffixes, t->host);
				break;
			case HOST_LOOPBACK:
				break;
			default:
				BUG("bad host kind %d", (int)t->kind);
			}
		}
	}
	sort_unique(&names);
	sort_unique(&addrs);
	sort_unique(&suffixes);

	strv_add(&hosts, "localhost");
	for (i = 0; i < names.n; i++)
		strv_add(&hosts, names.v[i]);
	for (i = 0; i < addrs.n; i++)
		strv_add(&hosts, addrs.v[i]);
	for (i = 0; i < suffixes.n; i++) {
		h = fresh_name(&names, suffixes.v[i]);
		if (h)
			strv_push(&hosts, h);
	}
	/* No suffix has one label: a fresh top-level name is under none. */
	h = fresh_name(&names, "invalid");
	if (h)
		strv_push(&hosts, h);
	h = fresh_address(&addrs, false);
	if (h)
		strv_push(&hosts, h);
	h = fresh_address(&addrs, true);
	if (h)
		strv_push(&hosts, h);

	for (i = 0; i < hosts.n && !ret; i++)
		ret = compare_host(ctx, hosts.v[i]);
	strv_release(&names);
	strv_release(&addrs);
	strv_release(&suffixes);
	strv_release(&hosts);
	return ret;
}
