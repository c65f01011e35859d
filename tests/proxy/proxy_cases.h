/* SPDX-License-Identifier: MIT */
/*
 * proxy_cases.h - the egress proxy's loopback cases (proxy_cases.c).
 */
#ifndef VBOX_PROXY_CASES_H
#define VBOX_PROXY_CASES_H

#include <stdint.h>

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

#endif /* VBOX_PROXY_CASES_H */
