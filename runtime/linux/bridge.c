/* SPDX-License-Identifier: MIT */
/*
 * bridge.c - the egress proxy of a Linux launch (bridge.h).
 */
#include <vbox.h>

#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bridge.h"
#include "emit.h"
#include "env.h"
#include "ir.h"
#include "launch.h"
#include "plan.h"
#include "planjudge.h"

/* First choices for the proxy's ports inside the namespace. */
#define BRIDGE_HTTP_PORT 3128
#define BRIDGE_SOCKS_PORT 1080

static bool port_taken(const struct bridge *b, uint16_t port)
{
	size_t i;

	for (i = 0; i < b->nports; i++)
		if (b->ports[i] == port)
			return true;
	return false;
}

static uint16_t free_port(const struct bridge *b, const uint16_t *avoid,
			  size_t navoid, uint16_t want)
{
	size_t i;

	for (;; want++) {
		bool clash = port_taken(b, want);

		for (i = 0; i < navoid && !clash; i++)
			clash = avoid[i] == want;
		if (!clash)
			return want;
	}
}

int bridge_prepare(struct bridge *b, const struct plan *p, char **err)
{
	uint16_t fwd[64];
	size_t nfwd = 0, i;
	bool allow = false;

	memset(b, 0, sizeof(*b));
	if (p->default_net != EFFECT_DENY)
		return 0;
	for (i = 0; i < p->nnet; i++)
		allow = allow || (p->net[i].effect == EFFECT_ALLOW &&
				  p->net[i].landing == LANDING_PROXY);
	if (!allow)
		return 0;
	if (judge_from_plan(&b->judge, p, err) != 0)
		return -1;
	b->active = true;
	/* loopback rows naming a port the table allows: forwarded */
	for (i = 0; i < b->judge.nrows && nfwd < array_size(fwd); i++) {
		const struct net_target *t = &b->judge.rows[i].target;
		struct net_target q;
		struct verdict v;
		char hp[32], *qerr = NULL;
		size_t k;

		if (t->kind != HOST_LOOPBACK || t->any_port)
			continue;
		for (k = 0; k < nfwd && fwd[k] != t->port; k++)
			;
		if (k < nfwd)
			continue;
		snprintf(hp, sizeof(hp), "localhost:%u", t->port);
		if (net_query_parse(hp, &q, &qerr) != 0) {
			free(qerr);
			continue;
		}
		judge_query(&b->judge, &q, &v);
		net_target_free(&q);
		if (v.allow)
			fwd[nfwd++] = t->port;
	}
	b->ports[b->nports] = free_port(b, fwd, nfwd, BRIDGE_HTTP_PORT);
	b->nports++;
	b->ports[b->nports] = free_port(b, fwd, nfwd, BRIDGE_SOCKS_PORT);
	b->nports++;
	for (i = 0; i < nfwd; i++) {
		if (fwd[i] < 1024)
			vx_log("note: loopback port %u is below 1024, where "
			       "the sandbox (no capabilities) may not listen: "
			       "it is forwarded only if the kernel allows it, "
			       "and always served through the proxy", fwd[i]);
		if (b->nports == BRIDGE_MAX_PORTS) {
			vx_log("note: loopback port %u is served through the "
			       "proxy only (at most %d forwards)",
			       fwd[i], BRIDGE_MAX_PORTS - 2);
			continue;
		}
		b->ports[b->nports++] = fwd[i];
	}
	return 0;
}

static void log_line(void *ctx, const char *line)
{
	(void)ctx;
	vx_log("%s", line);
}

int bridge_start(struct bridge *b, struct loop *lp, const struct plan *p,
		 const struct env_list *env, char **err)
{
	char *http, *socks;

	if (!b->active)
		return 0;
	if (proxy_init(&b->px, lp, &b->judge, p->upstream_proxy, err) != 0)
		return -1;
	b->started = true;
	b->px.log = vx_log_enabled ? log_line : NULL;
	http = xasprintf("http://vbox:%s@127.0.0.1:%u",
			 b->px.token[PROXY_HTTP], b->ports[0]);
	socks = xasprintf("socks5h://vbox:%s@127.0.0.1:%u",
			  b->px.token[PROXY_SOCKS5], b->ports[1]);
	/* set last: nothing the caller gave can override them */
	b->envp = env_with_proxy(env, http, socks);
	vx_log("egress proxy: HTTP on 127.0.0.1:%u, SOCKS5 on 127.0.0.1:%u in "
	       "the sandbox, %zu loopback forward%s",
	       b->ports[0], b->ports[1], b->nports - 2,
	       b->nports == 3 ? "" : "s");
	free(http);
	free(socks);
	return 0;
}

void bridge_take_listener(struct bridge *b, int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	uint16_t port;
	int ret;

	if (!b->started ||
	    getsockname(fd, (struct sockaddr *)&ss, &len) < 0 ||
	    (ss.ss_family != AF_INET && ss.ss_family != AF_INET6)) {
		close(fd);
		return;
	}
	port = ntohs(ss.ss_family == AF_INET ?
			     ((struct sockaddr_in *)&ss)->sin_port :
			     ((struct sockaddr_in6 *)&ss)->sin6_port);
	if (port == b->ports[0])
		ret = proxy_listen(&b->px, fd, PROXY_HTTP);
	else if (port == b->ports[1])
		ret = proxy_listen(&b->px, fd, PROXY_SOCKS5);
	else if (port_taken(b, port))
		ret = proxy_listen_forward(&b->px, fd, port);
	else {
		close(fd);
		return;
	}
	if (ret < 0)
		vx_error("cannot serve the proxy port %u: %s", port,
			 strerror(-ret));
}

void bridge_release(struct bridge *b)
{
	if (b->started)
		proxy_release(&b->px);
	if (b->active)
		judge_release(&b->judge);
	env_vector_free(b->envp);
	memset(b, 0, sizeof(*b));
}
