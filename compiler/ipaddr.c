/* SPDX-License-Identifier: MIT */
/*
 * ipaddr.c - IP addresses as text (ipaddr.h): the dotted quad a rule
 * accepts, the numeric IPv4 forms a resolver accepts, IPv6 in any valid
 * spelling, and IPv6's canonical text.  Pure; the network targets of
 * netaddr.c are made of these.
 */
#include <vbox.h>

#include <stdio.h>

#include "ipaddr.h"

static bool is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

int hex_digit_value(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/*
 * ipv4_plain - @s is exactly a dotted quad of decimal numbers 0..255
 * without leading zeros: the only IPv4 spelling a rule accepts.
 */
bool ipv4_plain(const char *s, size_t n, uint8_t out[4])
{
	size_t i = 0;
	int part;

	for (part = 0; part < 4; part++) {
		unsigned int v = 0;
		size_t start = i;

		while (i < n && is_digit(s[i]) && i - start < 4)
			v = v * 10 + (unsigned int)(s[i++] - '0');
		if (i == start || i - start > 3 || v > 255)
			return false;
		if (i - start > 1 && s[start] == '0')
			return false;
		out[part] = (uint8_t)v;
		if (part < 3) {
			if (i >= n || s[i] != '.')
				return false;
			i++;
		}
	}
	return i == n;
}

/*
 * ipv4_numeric - parse @s the way inet_aton() does: one to four parts,
 * each decimal, octal (leading 0) or hex (0x), the last
 * part filling all remaining bytes.  Anything a resolver would take for
 * an address must be judged as that address.
 */
bool ipv4_numeric(const char *s, size_t n, uint8_t out[4])
{
	static const uint32_t last_max[] = { 0xffffffffu, 0xffffffu, 0xffffu,
					      0xffu };
	uint32_t parts[4], v32;
	size_t i = 0;
	int np = 0, k;

	for (;;) {
		uint64_t v = 0;
		unsigned int base = 10;
		bool any = false;

		if (np == 4)
			return false;
		if (i < n && s[i] == '0') {
			base = 8;
			any = true;
			i++;
			/*
			 * A bare "0x" is zero to some parsers and an error to
			 * inet_aton(); it is refused (its label still counts as
			 * numeric, so it is never looked up as a name either).
			 */
			if (i < n && (s[i] == 'x' || s[i] == 'X')) {
				base = 16;
				any = false;
				i++;
			}
		}
		for (; i < n && s[i] != '.'; i++) {
			int d = hex_digit_value(s[i]);

			if (d < 0 || (unsigned int)d >= base)
				return false;
			v = v * base + (unsigned int)d;
			if (v > 0xffffffffu)
				return false;
			any = true;
		}
		if (!any)
			return false;
		parts[np++] = (uint32_t)v;
		if (i == n)
			break;
		i++;
	}
	for (k = 0; k < np - 1; k++)
		if (parts[k] > 0xff)
			return false;
	if (parts[np - 1] > last_max[np - 1])
		return false;
	v32 = parts[np - 1];
	for (k = 0; k < np - 1; k++)
		v32 |= parts[k] << (24 - 8 * k);
	out[0] = (uint8_t)(v32 >> 24);
	out[1] = (uint8_t)(v32 >> 16);
	out[2] = (uint8_t)(v32 >> 8);
	out[3] = (uint8_t)v32;
	return true;
}

/*
 * ipv6_parse - any RFC 4291 text form: 1..4 hex digits per group, at most
 * one "::", an optional trailing dotted quad.  No zone id.
 */
bool ipv6_parse(const char *s, size_t n, uint8_t out[16])
{
	uint16_t w[8];
	int nw = 0, gap = -1, k;
	size_t i = 0;

	if (n < 2)
		return false;
	if (s[0] == ':') {
		if (s[1] != ':')
			return false;
		gap = 0;
		i = 2;
	}
	while (i < n) {
		size_t start = i;
		unsigned int v = 0;

		while (i < n && hex_digit_value(s[i]) >= 0 && i - start < 5)
			v = v * 16 + (unsigned int)hex_digit_value(s[i++]);
		if (i == start)
			return false;
		if (i < n && s[i] == '.') {
			uint8_t b[4];

			if (nw > 6 || !ipv4_plain(s + start, n - start, b))
				return false;
			w[nw++] = (uint16_t)(b[0] << 8 | b[1]);
			w[nw++] = (uint16_t)(b[2] << 8 | b[3]);
			i = n;
			break;
		}
		if (i - start > 4 || nw == 8)
			return false;
		w[nw++] = (uint16_t)v;
		if (i == n)
			break;
		if (s[i++] != ':' || i == n)
			return false;
		if (s[i] == ':') {
			if (gap >= 0)
				return false;
			gap = nw;
			i++;
		}
	}
	if (gap >= 0 ? nw > 7 : nw != 8)
		return false;
	memset(out, 0, 16);
	for (k = 0; k < nw; k++) {
		int at = (gap >= 0 && k >= gap) ? k + 8 - nw : k;

		out[2 * at] = (uint8_t)(w[k] >> 8);
		out[2 * at + 1] = (uint8_t)w[k];
	}
	return true;
}

/*
 * ipv6_format - RFC 5952: lower case, no leading zeros, the longest run of
 * two or more zero groups as "::" (the leftmost on ties).  @buf holds 40.
 */
void ipv6_format(const uint8_t a[16], char *buf)
{
	int best = -1, best_len = 1, run = 0, k, o = 0;
	unsigned int w[8];

	for (k = 0; k < 8; k++) {
		w[k] = (unsigned int)a[2 * k] << 8 | a[2 * k + 1];
		run = w[k] ? 0 : run + 1;
		if (run > best_len) {
			best_len = run;
			best = k - run + 1;
		}
	}
	for (k = 0; k < 8; k++) {
		if (k == best) {
			o += sprintf(buf + o, "::");
			k += best_len - 1;
			continue;
		}
		if (k && k != best + best_len)
			buf[o++] = ':';
		o += sprintf(buf + o, "%x", w[k]);
	}
	buf[o] = '\0';
}
