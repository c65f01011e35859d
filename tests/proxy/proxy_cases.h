/* SPDX-License-Identifier: MIT */
/*
 * proxy_cases.h - the egress proxy's loopback cases (proxy_cases.c).
 */
#ifndef VBOX_PROXY_CASES_H
#define VBOX_PROXY_CASES_H

#include <stdint.h>

struct host;

/*
 * proxy_run_loopback_tests - start the origins and a proxy host, run
 * every loopback case against them (needs pc_tmpdir).
 */
void proxy_run_loopback_tests(void);

/*
 * proxy_run_socks_tests - the forbidden classes, the first TLS record of
 * a tunnel, the fd limit and the tunnel stores' budget
 * (proxy_cases_socks.c; needs pc_tmpdir).
 */
void proxy_run_socks_tests(void);

/*
 * proxy_run_http_cases - the HTTP side's cases (proxy_cases_http.c): many
 * and long response fields, long targets, a long name through an upstream
 * (@echo: an echo server's port on loopback).
 */
void proxy_run_http_cases(uint16_t echo);

/*
 * What flows through the loopback cases' proxy host @h
 * (proxy_cases_tunnel.c; @echo, @origin, @banner: the peers' ports):
 * SNI at a tunnel's door, 1 GiB under a slow reader, @total bytes both
 * ways, 500 tunnels, clients that vanish (@base: the proxy's own fds).
 */
void test_sni(const struct host *h, uint16_t echo, uint16_t banner);
void test_big(const struct host *h, uint16_t origin);
void test_both_ways(const struct host *h, uint16_t echo, uint64_t total);
void test_many(const struct host *h, uint16_t echo);
void test_vanish(const struct host *h, uint16_t origin, int base);

#endif /* VBOX_PROXY_CASES_H */
