/* SPDX-License-Identifier: MIT */
/*
 * proxy_cases.h - the egress proxy's loopback cases (proxy_cases.c).
 */
#ifndef VBOX_PROXY_CASES_H
#define VBOX_PROXY_CASES_H

/*
 * proxy_run_loopback_tests - start the origins and a proxy host, run
 * every loopback case against them (needs pc_tmpdir).
 */
void proxy_run_loopback_tests(void);

#endif /* VBOX_PROXY_CASES_H */
