/* SPDX-License-Identifier: MIT */
/*
 * netaddr.h - network targets: parsing, normalization and matching
 * (doc/rules.md §6 "Network targets").
 */
#ifndef VBOX_NETADDR_H
#define VBOX_NETADDR_H

#include <stdbool.h>
#include <stdint.h>

/**
 * enum host_kind - what a normalized host is
 * @HOST_NAME: a DNS name, lower case, no trailing dot
 * @HOST_SUFFIX: a rule's "*.name": every strict subdomain of @host
 * @HOST_IPV4: an IPv4 address in dotted-quad form
 * @HOST_IPV6: an IPv6 address in RFC 5952 form (never IPv4-mapped)
 * @HOST_LOOPBACK: the loopback class: localhost, *.localhost,
 *                 127.0.0.0/8 and ::1 are all one host
 */
enum host_kind {
	HOST_NAME,
	HOST_SUFFIX,
	HOST_IPV4,
	HOST_IPV6,
	HOST_LOOPBACK,
};

/**
 * struct net_target - a normalized rule target or query
 * @kind: see enum host_kind
 * @host: canonical host text (owned): the name, the suffix without "*.",
 *        the address; for HOST_LOOPBACK the canonical spelling written
 *        ("localhost", "127.0.0.1", "::1", "*.localhost" ...)
 * @any_port: port "*" (or absent)
 * @port: 1..65535 when !@any_port
 * @text: canonical "HOST:PORT" (IPv6 bracketed, "*.x" for suffixes, port
 *        "*" when any) (owned)
 * @addr: the address bytes for HOST_IPV4 (4) and HOST_IPV6 (16)
 */
struct net_target {
	enum host_kind kind;
	uint16_t port;
	bool any_port;
	char *host;
	char *text;
	uint8_t addr[16];
};

/*
 * net_rule_parse - parse a rule TARGET strictly (no numeric shorthand, no
 * leading zeros).  Returns 0, or -1 with a message in *@err (caller frees).
 */
int net_rule_parse(const char *raw, struct net_target *out, char **err);

/*
 * net_query_parse - parse a queried HOST[:PORT]; numeric forms a resolver
 * accepts ("2130706433", "0x7f.1", "127.1", "[::ffff:127.0.0.1]") are
 * normalized first; wildcards are errors.  Returns 0 or -1 with *@err.
 */
int net_query_parse(const char *raw, struct net_target *out, char **err);

/*
 * net_url_scheme_len - the length of "scheme://" when @raw starts with a
 * URL scheme, else 0.  A network target is never a URL: parsing one
 * fails with the HOST:PORT it probably means.
 */
size_t net_url_scheme_len(const char *raw);

/*
 * net_text_is_range - is @raw an address range, "ADDRESS/BITS" (CIDR)?
 * Rows name single hosts; parsing one fails saying so.
 */
bool net_text_is_range(const char *raw);

void net_target_free(struct net_target *t);

/* net_match - does rule @rule match query @q (ports: overlap)? */
bool net_match(const struct net_target *rule, const struct net_target *q);

/*
 * net_covers - sound proof that everything @inner matches @outer matches
 * too (host set and port set both contained).
 */
bool net_covers(const struct net_target *outer, const struct net_target *inner);

#endif /* VBOX_NETADDR_H */
