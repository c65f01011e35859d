/* SPDX-License-Identifier: MIT */
/*
 * judge.h - the proxy's judge: the plan's network rows in priority order,
 * matched with the compiler's own matcher (compiler/netaddr.c), plus the
 * forbidden address classes of doc/proxy.md "Judging" for name rows.
 */
#ifndef VBOX_JUDGE_H
#define VBOX_JUDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "netaddr.h"

struct bbuf;
struct sockaddr;

/**
 * enum forbid_class - why an address is not reachable through a name row
 * @FORBID_NONE: an ordinary (public) address
 * @FORBID_LOOPBACK: 127.0.0.0/8, ::1
 * @FORBID_PRIVATE: RFC 1918
 * @FORBID_CGNAT: 100.64.0.0/10
 * @FORBID_LINK_LOCAL: 169.254.0.0/16, fe80::/10
 * @FORBID_UNIQUE_LOCAL: fc00::/7
 * @FORBID_MULTICAST: 224.0.0.0/4, ff00::/8
 * @FORBID_BROADCAST: 255.255.255.255
 * @FORBID_UNSPECIFIED: 0.0.0.0/8, ::
 * @FORBID_METADATA: cloud metadata services
 * @FORBID_HOST: one of this machine's own interface addresses
 * @FORBID_V4_IN_V6: IPv4 hidden in IPv6 (mapped, compatible, NAT64
 *                   64:ff9b::/96 and 64:ff9b:1::/48, 6to4 2002::/16,
 *                   Teredo 2001::/32)
 * @FORBID_IETF: 192.0.0.0/24, IETF protocol assignments
 * @FORBID_BENCHMARK: 198.18.0.0/15, 2001:2::/48 (also the fake-IP range
 *                    of local DNS-based proxies)
 * @FORBID_SITE_LOCAL: fec0::/10 (deprecated, still routed on some sites)
 * @FORBID_RESERVED: 240.0.0.0/4 (but 255.255.255.255), 100::/64,
 *                   2001:10::/28, 2001:20::/28
 */
enum forbid_class {
	FORBID_NONE,
	FORBID_LOOPBACK,
	FORBID_PRIVATE,
	FORBID_CGNAT,
	FORBID_LINK_LOCAL,
	FORBID_UNIQUE_LOCAL,
	FORBID_MULTICAST,
	FORBID_BROADCAST,
	FORBID_UNSPECIFIED,
	FORBID_METADATA,
	FORBID_HOST,
	FORBID_V4_IN_V6,
	FORBID_IETF,
	FORBID_BENCHMARK,
	FORBID_SITE_LOCAL,
	FORBID_RESERVED,
};

/**
 * struct judge_row - one network row
 * @allow: an allow row (else deny)
 * @target: the normalized rule target (owned)
 * @index: the row's index in the table (as explain prints it)
 * @level: its level
 * @source: "FILE:LINE:COL" (owned)
 */
struct judge_row {
	bool allow;
	struct net_target target;
	uint32_t index;
	uint8_t level;
	char *source;
};

/**
 * struct judge - the rows in priority order and what they need
 * @rows: the rows, first match wins (owned)
 * @nrows: number of @rows
 * @default_allow: @default net open
 * @host4: this machine's IPv4 addresses, 4 bytes each (owned)
 * @nhost4: number of @host4 entries
 * @host6: this machine's IPv6 addresses, 16 bytes each (owned)
 * @nhost6: number of @host6 entries
 * @host_read_ms: when @host4/@host6 were read (loop_now_ms clock)
 */
struct judge {
	struct judge_row *rows;
	size_t nrows;
	bool default_allow;
	uint8_t *host4;
	size_t nhost4;
	uint8_t *host6;
	size_t nhost6;
	double host_read_ms;
};

/**
 * struct verdict - one decision
 * @allow: allowed
 * @row: the deciding row (position in judge.rows), or -1
 * @forbid: the forbidden class that refused an address, or FORBID_NONE
 */
struct verdict {
	bool allow;
	int row;
	enum forbid_class forbid;
};

/* judge_init - an empty judge; @default_allow is the net posture. */
void judge_init(struct judge *j, bool default_allow);

/*
 * judge_add_row - append a row (call in priority order).  @target is a
 * normalized rule target as the plan stores it.  Returns 0, or -1 with a
 * message in *@err (caller frees) when it does not parse.
 */
int judge_add_row(struct judge *j, bool allow, const char *target,
		  uint32_t index, uint8_t level, const char *source,
		  char **err);

/* judge_release - free what @j holds. */
void judge_release(struct judge *j);

/*
 * judge_read_host_addrs - (re)read this machine's interface addresses.
 * Returns 0 or -errno.
 */
int judge_read_host_addrs(struct judge *j);

/* judge_query - first match for the normalized query @q, or the default. */
void judge_query(const struct judge *j, const struct net_target *q,
		 struct verdict *v);

/*
 * judge_addr - may a connection to @sa go ahead, for a target @q whose
 * query verdict allowed it?  A name target reaches an address in a
 * forbidden class only when the first row matching that address allows
 * it (a row naming the IP, or the loopback class); any address whose
 * first match is a deny row is refused.
 */
void judge_addr(const struct judge *j, const struct sockaddr *sa,
		struct verdict *v);

/* judge_classify - the forbidden class of an address (4 or 16 bytes). */
enum forbid_class judge_classify(const struct judge *j, const uint8_t *a,
				 size_t len);

/* forbid_name - "private (RFC 1918)" ... for messages. */
const char *forbid_name(enum forbid_class c);

/*
 * verdict_format - append "allow by row 0 (allow, level 0) at rules:3:1"
 * and the like, in explain's words, to @b (whole or marked over, as
 * bbuf.h says; the row's source is appended printable).
 */
void verdict_format(const struct judge *j, const struct verdict *v,
		    const char *addr, struct bbuf *b);

/* The most bytes of a row's source in a reason phrase, header or notice. */
#define VERDICT_SOURCE_MAX 160

/*
 * verdict_brief - the decision in a few words, for vbox-exec's notice:
 * "row 3 at rules:7:1", "@default net deny", or "address 10.1.2.3 is
 * private (RFC 1918), no row names it" (@addr: the refused address).
 * Printable ASCII only; a source longer than VERDICT_SOURCE_MAX is cut
 * and marked "...".
 */
void verdict_brief(const struct judge *j, const struct verdict *v,
		   const char *addr, struct bbuf *b);

/*
 * verdict_phrase - a refusal's reason phrase: "vbox: denied by row 3
 * (rules:7:1)", "vbox: denied by default (@default net deny)", "vbox:
 * denied: address ... is ..., no row names it".  The same bounds.
 */
void verdict_phrase(const struct judge *j, const struct verdict *v,
		    const char *addr, struct bbuf *b);

/*
 * verdict_header - the X-Vbox-Decision value: 'deny; row=3; level=0;
 * source="rules:7:1"', 'deny; row=default; posture="@default net deny"'
 * or 'deny; row=none; class="private (RFC 1918)"; address="10.1.2.3"'.
 * Quoted values hold no '"' or '\\' (written \xNN); the same bounds.
 */
void verdict_header(const struct judge *j, const struct verdict *v,
		    const char *addr, struct bbuf *b);

#endif /* VBOX_JUDGE_H */
