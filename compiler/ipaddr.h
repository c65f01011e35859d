/* SPDX-License-Identifier: MIT */
/*
 * ipaddr.h - IP addresses as text, as rules and resolvers write them
 * (ipaddr.c).  Each parser takes @n bytes at @s (no NUL needed) and
 * fills @out only when it returns true.
 */
#ifndef VBOX_IPADDR_H
#define VBOX_IPADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* hex_digit_value - 0..15 for a hex digit, else -1 */
int hex_digit_value(char ch);

/* ipv4_plain - a dotted quad of 0..255 without leading zeros: the only
 * IPv4 spelling a rule accepts */
bool ipv4_plain(const char *s, size_t n, uint8_t out[4]);

/* ipv4_numeric - every IPv4 spelling inet_aton() and resolvers accept
 * (2130706433, 0x7f.1, 0177.0.0.1): what a query is normalized from */
bool ipv4_numeric(const char *s, size_t n, uint8_t out[4]);

/* ipv6_parse - an IPv6 address in any valid spelling (compressed,
 * embedded IPv4), no zone */
bool ipv6_parse(const char *s, size_t n, uint8_t out[16]);

/* ipv6_format - the canonical text (RFC 5952: lower case, the longest
 * run of zeros compressed) into @buf (INET6_ADDRSTRLEN bytes) */
void ipv6_format(const uint8_t a[16], char *buf);

#endif /* VBOX_IPADDR_H */
