/* SPDX-License-Identifier: MIT */
/*
 * netaddr.c - network targets: parsing, normalization and matching
 * (doc/rules.md §6 "Network targets").
 *
 * Rules are parsed strictly: a rule must say exactly one thing, so numeric
 * shorthand ("127.1", "2130706433") and leading zeros are errors there.
 * Queries - and through them the egress proxy's CONNECT targets - accept
 * every numeric form a resolver accepts and fold it to the address it
 * denotes, so that a query is judged as the address it will reach.
 *
 * Address text is parsed and printed here rather than by inet_pton() and
 * inet_ntop(): their accepted forms and their output (e.g. "::127.0.0.1")
 * differ between C libraries, and the output must be byte-identical on
 * every machine.
 */
#include <vbox.h>

#include <stdarg.h>
#include <stdio.h>
#include <strings.h>

#include "ipaddr.h"
#include "netaddr.h"

#define NAME_MAX_LEN	253
#define LABEL_MAX_LEN	63
/* Longest piece of user text quoted verbatim in a message. */
#define SHOW_MAX	120
#define SHOW_SLOTS	8

enum parse_mode {
	MODE_RULE,
	MODE_QUERY,
};

/**
 * struct parse_ctx - state of one net_rule_parse()/net_query_parse() call
 * @raw: the whole target as given (borrowed)
 * @mode: rule or query grammar
 * @err: where the message goes (may be NULL)
 * @show: printable copies of user text for the message (owned)
 * @nshow: used entries of @show
 * @where: " in 'RAW'" to follow a quoted host, or "" when the host is
 *         all of RAW (owned by @show)
 */
struct parse_ctx {
	const char *raw;
	enum parse_mode mode;
	char **err;
	char *show[SHOW_SLOTS];
	int nshow;
	const char *where;
};

static void ctx_release(struct parse_ctx *c)
{
	int i;

	for (i = 0; i < c->nshow; i++)
		free(c->show[i]);
	c->nshow = 0;
}

/*
 * show - @n bytes of @s made safe to print inside quotes: bytes outside
 * printable ASCII become \xNN (a message may end up in JSON, which needs
 * valid UTF-8) and long text is cut.  Owned by @c.
 */
static const char *show(struct parse_ctx *c, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, o = 0, cut = n > SHOW_MAX ? SHOW_MAX : n;
	char *buf;

	if (c->nshow >= SHOW_SLOTS)
		BUG("too many quoted strings in one message");
	buf = xmalloc(cut * 4 + 4);
	for (i = 0; i < cut; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch >= 0x20 && ch < 0x7f) {
			buf[o++] = (char)ch;
		} else {
			buf[o++] = '\\';
			buf[o++] = 'x';
			buf[o++] = hex[ch >> 4];
			buf[o++] = hex[ch & 15];
		}
	}
	if (cut < n) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = '\0';
	c->show[c->nshow++] = buf;
	return buf;
}

static const char *show_str(struct parse_ctx *c, const char *s)
{
	return show(c, s, strlen(s));
}

/*
 * in_raw - " in 'RAW'" to follow the quoted part @s of RAW, or "" when
 * @s is all of RAW and saying it twice would only add noise.
 */
static const char *in_raw(struct parse_ctx *c, const char *s, size_t n)
{
	char *buf;

	if (s == c->raw && !c->raw[n])
		return "";
	buf = xasprintf(" in '%s'", show_str(c, c->raw));
	free(c->show[--c->nshow]);
	if (c->nshow >= SHOW_SLOTS)
		BUG("too many quoted strings in one message");
	c->show[c->nshow++] = buf;
	return buf;
}

/* fail - record the message (if wanted) and return -1. */
static __printf(2, 3) int fail(struct parse_ctx *c, const char *fmt, ...)
{
	va_list ap;
	int len;
	char *msg;

	if (!c->err)
		return -1;
	va_start(ap, fmt);
	len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (len < 0)
		BUG("bad message format '%s'", fmt);
	msg = xmalloc((size_t)len + 1);
	va_start(ap, fmt);
	vsnprintf(msg, (size_t)len + 1, fmt, ap);
	va_end(ap);
	*c->err = msg;
	return -1;
}

static bool is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

static bool is_name_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       is_digit(ch) || ch == '-' || ch == '_' || ch == '.';
}

static bool has_char(const char *s, size_t n, char ch)
{
	return memchr(s, ch, n) != NULL;
}

static void set_ipv4(struct net_target *out, const uint8_t b[4])
{
	out->host = xasprintf("%u.%u.%u.%u", b[0], b[1], b[2], b[3]);
	if (b[0] == 127) {
		out->kind = HOST_LOOPBACK;
		return;
	}
	out->kind = HOST_IPV4;
	memcpy(out->addr, b, 4);
}

/* set_ipv6 - an IPv4-mapped address is that IPv4 address (doc/rules.md §6). */
static void set_ipv6(struct net_target *out, const uint8_t a[16])
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };
	static const uint8_t loop6[16] = { [15] = 1 };
	char buf[48];

	if (!memcmp(a, mapped, sizeof(mapped))) {
		set_ipv4(out, a + 12);
		return;
	}
	ipv6_format(a, buf);
	out->host = xstrdup(buf);
	if (!memcmp(a, loop6, sizeof(loop6))) {
		out->kind = HOST_LOOPBACK;
		return;
	}
	out->kind = HOST_IPV6;
	memcpy(out->addr, a, 16);
}

/* A label some resolver would read as a number ("0x" alone included). */
static bool label_numeric(const char *l, size_t n)
{
	size_t i = 0;

	if (n >= 2 && l[0] == '0' && (l[1] == 'x' || l[1] == 'X')) {
		for (i = 2; i < n; i++)
			if (hex_digit_value(l[i]) < 0)
				return false;
		return true;
	}
	if (!n)
		return false;
	for (; i < n; i++)
		if (!is_digit(l[i]))
			return false;
	return true;
}

static bool last_label_numeric(const char *name)
{
	const char *dot = strrchr(name, '.');
	const char *l = dot ? dot + 1 : name;

	return label_numeric(l, strlen(l));
}

static bool is_localhost(const char *name)
{
	size_t n = strlen(name);

	return !strcmp(name, "localhost") ||
	       (n > 10 && !strcmp(name + n - 10, ".localhost"));
}

/* name_under - @name is a strict subdomain of @suffix. */
static bool name_under(const char *name, const char *suffix)
{
	size_t n = strlen(name), s = strlen(suffix);

	return n > s + 1 && name[n - s - 1] == '.' &&
	       !memcmp(name + n - s, suffix, s);
}

/*
 * parse_name - check the name @s (@n bytes) and return it lower-cased
 * without its one trailing dot in *@name.  @what_host is the text quoted
 * in messages.  *@dot tells whether a trailing dot was removed.
 */
static int parse_name(struct parse_ctx *c, const char *s, size_t n,
		      const char *what_host, char **name, bool *dot)
{
	size_t i, label = 0;
	char *lc;

	for (i = 0; i < n; i++) {
		if (!is_name_char(s[i]))
			return fail(c, "invalid character '%s' in host '%s'%s: host names use letters, digits, '-', '_' and '.'",
				    show(c, s + i, 1), what_host, c->where);
	}
	*dot = n > 0 && s[n - 1] == '.';
	if (*dot)
		n--;
	if (n > NAME_MAX_LEN)
		return fail(c, "host '%s'%s is too long: a name has at most %d characters",
			    what_host, c->where, NAME_MAX_LEN);
	for (i = 0; i <= n; i++) {
		if (i < n && s[i] != '.') {
			label++;
			continue;
		}
		if (!label)
			return fail(c, "empty label in host '%s'%s",
				    what_host, c->where);
		if (label > LABEL_MAX_LEN)
			return fail(c, "label '%s' in host '%s' is too long: a label has at most %d characters",
				    show(c, s + i - label, label), what_host,
				    LABEL_MAX_LEN);
		label = 0;
	}
	lc = xstrndup(s, n);
	for (i = 0; i < n; i++)
		if (lc[i] >= 'A' && lc[i] <= 'Z')
			lc[i] = (char)(lc[i] - 'A' + 'a');
	*name = lc;
	return 0;
}

/*
 * numeric_host - @name ends in a numeric label, so it is not a name a
 * resolver would look up: it is an IPv4 address or nothing.
 */
static int numeric_host(struct parse_ctx *c, const char *name, bool dot,
			const char *what_host, struct net_target *out)
{
	uint8_t b[4], plain[4];
	bool numeric = ipv4_numeric(name, strlen(name), b);

	if (c->mode == MODE_RULE && !dot &&
	    ipv4_plain(name, strlen(name), plain)) {
		set_ipv4(out, plain);
		return 0;
	}
	if (c->mode == MODE_RULE && numeric)
		return fail(c, "invalid IPv4 address '%s'%s: not a plain dotted quad (a resolver reads it as %u.%u.%u.%u)",
			    what_host, c->where,
			    b[0], b[1], b[2], b[3]);
	if (numeric) {
		set_ipv4(out, b);
		return 0;
	}
	return fail(c, "invalid host '%s'%s: its last label is numeric but it is not an IPv4 address",
		    what_host, c->where);
}

/*
 * parse_suffix - a rule's "*.NAME" (@s points after "*.").  A wildcard
 * under localhost names the loopback class, so "*.localhost" is allowed
 * although a wildcard otherwise needs two labels (doc/rules.md §6).
 */
static int parse_suffix(struct parse_ctx *c, const char *s, size_t n,
			const char *what_host, struct net_target *out)
{
	uint8_t b[4];
	char *name;
	bool dot;

	if (!n || (n == 1 && s[0] == '.'))
		return fail(c, "wildcard host '%s'%s: '*.' must be followed by a name",
			    what_host, c->where);
	if (parse_name(c, s, n, what_host, &name, &dot))
		return -1;
	if (last_label_numeric(name)) {
		bool ip = ipv4_numeric(name, strlen(name), b);

		free(name);
		if (ip)
			return fail(c, "wildcard host '%s'%s: '*.' is never followed by an IP address",
				    what_host, c->where);
		return fail(c, "invalid host '%s'%s: its last label is numeric but it is not an IPv4 address",
			    what_host, c->where);
	}
	if (strlen(name) + 2 > NAME_MAX_LEN) {
		free(name);
		return fail(c, "host '%s'%s is too long: a name has at most %d characters",
			    what_host, c->where, NAME_MAX_LEN);
	}
	if (is_localhost(name)) {
		out->kind = HOST_LOOPBACK;
		out->host = xasprintf("*.%s", name);
		free(name);
		return 0;
	}
	if (!strchr(name, '.')) {
		free(name);
		return fail(c, "wildcard host '%s'%s: '*.' must be followed by at least two labels",
			    what_host, c->where);
	}
	out->kind = HOST_SUFFIX;
	out->host = name;
	return 0;
}

/* parse_plain_host - an unbracketed host without ':'. */
static int parse_plain_host(struct parse_ctx *c, const char *s, size_t n,
			    struct net_target *out)
{
	const char *what_host = show(c, s, n);
	char *name;
	bool dot;

	c->where = in_raw(c, s, n);
	if (!n)
		return fail(c, "empty host in '%s'", show_str(c, c->raw));
	if (has_char(s, n, '*')) {
		if (c->mode == MODE_QUERY)
			return fail(c, "wildcard host '%s' in a query '%s'",
				    what_host, show_str(c, c->raw));
		if (n == 1)
			return fail(c, "bare '*' host in '%s': the global posture is set with '@default net'",
				    show_str(c, c->raw));
		if (n >= 2 && s[0] == '*' && s[1] == '.' &&
		    !has_char(s + 2, n - 2, '*'))
			return parse_suffix(c, s + 2, n - 2, what_host, out);
		return fail(c, "invalid wildcard host '%s'%s: only a leading '*.' label is allowed; the global posture is set with '@default net'",
			    what_host, c->where);
	}
	if (parse_name(c, s, n, what_host, &name, &dot))
		return -1;
	if (last_label_numeric(name)) {
		int ret = numeric_host(c, name, dot, what_host, out);

		free(name);
		return ret;
	}
	out->kind = is_localhost(name) ? HOST_LOOPBACK : HOST_NAME;
	out->host = name;
	return 0;
}

/* parse_ipv6_host - an IPv6 address, bracketed (@s inside) or not. */
static int parse_ipv6_host(struct parse_ctx *c, const char *s, size_t n,
			   bool bracketed, struct net_target *out)
{
	uint8_t a[16], b[4];

	if (!n)
		return fail(c, "empty host in '%s'", show_str(c, c->raw));
	if (has_char(s, n, '%'))
		return fail(c, "zone id in IPv6 address '%s'%s: zone ids are not supported",
			    show(c, s, n), in_raw(c, s, n));
	if (ipv6_parse(s, n, a)) {
		set_ipv6(out, a);
		return 0;
	}
	if (bracketed && !has_char(s, n, ':') &&
	    (ipv4_plain(s, n, b) || ipv4_numeric(s, n, b)))
		return fail(c, "bracketed IPv4 address '[%s]'%s: write it without brackets",
			    show(c, s, n), in_raw(c, s - 1, n + 2));
	if (!bracketed)
		return fail(c, "invalid IPv6 address '%s'%s: an unbracketed host with several ':' must be an IPv6 address",
			    show(c, s, n), in_raw(c, s, n));
	return fail(c, "invalid IPv6 address '%s'%s", show(c, s, n),
		    in_raw(c, s, n));
}

static int parse_port(struct parse_ctx *c, const char *p,
		      struct net_target *out)
{
	const char *why;
	unsigned long v = 0;
	size_t i, n = strlen(p);

	if (!n)
		return fail(c, "empty port in '%s'", show_str(c, c->raw));
	if (!strcmp(p, "*")) {
		out->any_port = true;
		return 0;
	}
	why = NULL;
	if (p[0] == '+' || p[0] == '-')
		why = "a port has no sign";
	for (i = 0; !why && i < n; i++)
		if (!is_digit(p[i]))
			why = "not a number or '*'";
	if (!why && n > 1 && p[0] == '0')
		why = "leading zeros";
	if (!why && n <= 5)
		for (i = 0; i < n; i++)
			v = v * 10 + (unsigned long)(p[i] - '0');
	if (!why && (n > 5 || v < 1 || v > 65535))
		why = "out of range 1..65535";
	if (why)
		return fail(c, "invalid port '%s' in '%s': %s", show(c, p, n),
			    show_str(c, c->raw), why);
	out->port = (uint16_t)v;
	return 0;
}

/* strip_user - step over "user@"; the user is not part of the target. */
static int strip_user(struct parse_ctx *c, const char **hostport)
{
	const char *at = strchr(c->raw, '@');
	const char *s;

	if (!at)
		return 0;
	if (strchr(at + 1, '@'))
		return fail(c, "several '@' in '%s'", show_str(c, c->raw));
	if (at == c->raw)
		return fail(c, "empty user in '%s'", show_str(c, c->raw));
	/*
	 * A user is dropped, but it must still look like one: a '/', '['
	 * or ':' there means the text is not the target it seems to be.
	 */
	for (s = c->raw; s < at; s++)
		if (!is_name_char(*s))
			return fail(c, "invalid character '%s' in user '%s' in '%s': a user name uses letters, digits, '-', '_' and '.'",
				    show(c, s, 1),
				    show(c, c->raw, (size_t)(at - c->raw)),
				    show_str(c, c->raw));
	*hostport = at + 1;
	return 0;
}

/* split_host - find the host text and parse it and the port. */
static int split_host(struct parse_ctx *c, const char *hp,
		      struct net_target *out)
{
	const char *colon, *close;

	if (hp[0] == '[') {
		close = strchr(hp, ']');
		if (!close)
			return fail(c, "missing ']' in '%s'",
				    show_str(c, c->raw));
		if (close[1] && close[1] != ':')
			return fail(c, "unexpected text '%s' after ']' in '%s'",
				    show_str(c, close + 1),
				    show_str(c, c->raw));
		if (parse_ipv6_host(c, hp + 1, (size_t)(close - hp - 1), true,
				    out))
			return -1;
		if (!close[1]) {
			out->any_port = true;
			return 0;
		}
		return parse_port(c, close + 2, out);
	}
	colon = strchr(hp, ':');
	if (colon && strchr(colon + 1, ':')) {
		out->any_port = true;
		return parse_ipv6_host(c, hp, strlen(hp), false, out);
	}
	if (!colon) {
		out->any_port = true;
		return parse_plain_host(c, hp, strlen(hp), out);
	}
	if (parse_plain_host(c, hp, (size_t)(colon - hp), out))
		return -1;
	return parse_port(c, colon + 1, out);
}

/* A URL scheme and the port it implies (0: none worth suggesting). */
static unsigned int scheme_port(const char *s, size_t n)
{
	static const struct {
		const char *name;
		unsigned int port;
	} ports[] = {
		{ "http", 80 }, { "https", 443 }, { "ws", 80 }, { "wss", 443 },
		{ "ftp", 21 }, { "ssh", 22 }, { "git", 9418 },
		{ "socks5", 1080 }, { "socks5h", 1080 },
	};
	size_t i;

	for (i = 0; i < array_size(ports); i++)
		if (strlen(ports[i].name) == n &&
		    strncasecmp(ports[i].name, s, n) == 0)
			return ports[i].port;
	return 0;
}

size_t net_url_scheme_len(const char *raw)
{
	size_t i;

	if (!raw || !((raw[0] >= 'a' && raw[0] <= 'z') ||
		      (raw[0] >= 'A' && raw[0] <= 'Z')))
		return 0;
	for (i = 1; raw[i]; i++) {
		char ch = raw[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      is_digit(ch) || ch == '+' || ch == '-' || ch == '.'))
			break;
	}
	return strncmp(raw + i, "://", 3) == 0 ? i + 3 : 0;
}

/*
 * url_error - @c->raw is a URL ("https://HOST/", what "npm config get
 * registry" prints): say so, with the HOST:PORT row it probably means.
 * @slen is the length of "scheme://".
 */
static int url_error(struct parse_ctx *c, size_t slen)
{
	const char *auth = c->raw + slen, *hp, *at, *colon = NULL;
	size_t alen = strcspn(auth, "/?#"), hlen;
	unsigned int port = scheme_port(c->raw, slen - 3);
	char *guess;
	int ret;

	/* The authority: [user@]host[:port]; the user is not the host. */
	hp = auth;
	for (at = auth; at < auth + alen; at++)
		if (*at == '@')
			hp = at + 1;
	hlen = alen - (size_t)(hp - auth);
	if (hlen && hp[0] == '[') {
		const char *close = memchr(hp, ']', hlen);

		if (close && close + 1 < hp + hlen && close[1] == ':')
			colon = close + 1;
	} else {
		colon = memchr(hp, ':', hlen);
	}
	if (colon && colon + 1 < hp + hlen)
		guess = xasprintf("%.*s", (int)hlen, hp);
	else if (hlen && port)
		guess = xasprintf("%.*s:%u", (int)(colon ? colon - hp :
						   (ptrdiff_t)hlen), hp, port);
	else if (hlen)
		guess = xasprintf("%.*s:PORT", (int)(colon ? colon - hp :
						     (ptrdiff_t)hlen), hp);
	else
		return fail(c, "'%s' is a URL, not a network target: %s "
			    "names HOST[:PORT], without 'scheme://' or a path",
			    show_str(c, c->raw),
			    c->mode == MODE_RULE ? "a row" : "a query");
	ret = fail(c, "'%s' is a URL, not a network target: %s names "
		   "HOST[:PORT], without 'scheme://' or a path; did you mean "
		   "'%s'?", show_str(c, c->raw),
		   c->mode == MODE_RULE ? "a row" : "a query",
		   show_str(c, guess));
	free(guess);
	return ret;
}

bool net_text_is_range(const char *raw)
{
	const char *slash = raw ? strrchr(raw, '/') : NULL;
	uint8_t a4[4], a6[16];
	size_t n, i;

	if (!slash || !slash[1] || slash == raw)
		return false;
	for (i = 1; slash[i]; i++)
		if (!is_digit(slash[i]))
			return false;
	if (i > 4)
		return false;
	n = (size_t)(slash - raw);
	if (raw[0] == '[' && n > 2 && raw[n - 1] == ']')
		return ipv6_parse(raw + 1, n - 2, a6);
	return ipv4_plain(raw, n, a4) || ipv6_parse(raw, n, a6);
}

/*
 * range_error - "10.0.0.0/8": network rows name single hosts.  Say so,
 * and what covers such ranges without a row.
 */
static int range_error(struct parse_ctx *c, const char *hp)
{
	return fail(c, "'%s' is an address range (CIDR): network rows do "
		    "not support ranges, a row names one host (a name or an "
		    "address) and an optional port; under '@default net deny' "
		    "an address no row allows is refused already, and the "
		    "proxy refuses private, loopback and link-local addresses "
		    "no row names",
		    show_str(c, hp));
}

/* make_text - the canonical "HOST:PORT" ("*.NAME:PORT" for suffixes). */
static void make_text(struct net_target *t)
{
	const char *prefix = t->kind == HOST_SUFFIX ? "*." : "";
	char port[8];

	if (t->any_port)
		strcpy(port, "*");
	else
		snprintf(port, sizeof(port), "%u", (unsigned int)t->port);
	if (strchr(t->host, ':'))
		t->text = xasprintf("[%s]:%s", t->host, port);
	else
		t->text = xasprintf("%s%s:%s", prefix, t->host, port);
}

static int parse_target(const char *raw, struct net_target *out, char **err,
			enum parse_mode mode)
{
	struct parse_ctx c = { .raw = raw ? raw : "", .mode = mode,
			       .err = err };
	const char *hp = c.raw, *s;
	size_t slen;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (!*c.raw) {
		fail(&c, "empty network target");
		goto out;
	}
	for (s = c.raw; *s; s++) {
		if (*s == ' ' || *s == '\t') {
			fail(&c, "white space in network target '%s'",
			     show_str(&c, c.raw));
			goto out;
		}
		if ((unsigned char)*s < 0x20 || *s == 0x7f) {
			fail(&c, "control character in network target '%s'",
			     show_str(&c, c.raw));
			goto out;
		}
	}
	slen = net_url_scheme_len(c.raw);
	if (slen) {
		url_error(&c, slen);
		goto out;
	}
	if (strip_user(&c, &hp))
		goto out;
	if (net_text_is_range(hp)) {
		range_error(&c, hp);
		goto out;
	}
	if (!*hp) {
		fail(&c, "empty host in '%s'", show_str(&c, c.raw));
		goto out;
	}
	if (split_host(&c, hp, out)) {
		net_target_free(out);
		goto out;
	}
	make_text(out);
	ret = 0;
out:
	ctx_release(&c);
	return ret;
}

/* net_rule_parse - see netaddr.h.  On error *@out is left empty. */
int net_rule_parse(const char *raw, struct net_target *out, char **err)
{
	return parse_target(raw, out, err, MODE_RULE);
}

/* net_query_parse - see netaddr.h.  On error *@out is left empty. */
int net_query_parse(const char *raw, struct net_target *out, char **err)
{
	return parse_target(raw, out, err, MODE_QUERY);
}

/* net_target_free - release what @t owns and empty it; NULL-safe. */
void net_target_free(struct net_target *t)
{
	if (!t)
		return;
	free(t->host);
	free(t->text);
	memset(t, 0, sizeof(*t));
}

/*
 * host_overlap - do the host sets of @a and @b intersect?  Queries never
 * hold a suffix, but a suffix query is answered conservatively anyway.
 */
static bool host_overlap(const struct net_target *a,
			 const struct net_target *b)
{
	switch (a->kind) {
	case HOST_LOOPBACK:
		return b->kind == HOST_LOOPBACK;
	case HOST_NAME:
		if (b->kind == HOST_NAME)
			return !strcmp(a->host, b->host);
		return b->kind == HOST_SUFFIX && name_under(a->host, b->host);
	case HOST_SUFFIX:
		if (b->kind == HOST_NAME)
			return name_under(b->host, a->host);
		return b->kind == HOST_SUFFIX &&
		       (!strcmp(a->host, b->host) ||
			name_under(a->host, b->host) ||
			name_under(b->host, a->host));
	case HOST_IPV4:
		return b->kind == HOST_IPV4 && !memcmp(a->addr, b->addr, 4);
	case HOST_IPV6:
		return b->kind == HOST_IPV6 && !memcmp(a->addr, b->addr, 16);
	default:
		BUG("bad host kind %d", (int)a->kind);
	}
}

/* net_match - see netaddr.h. */
bool net_match(const struct net_target *rule, const struct net_target *q)
{
	if (!rule->any_port && !q->any_port && rule->port != q->port)
		return false;
	return host_overlap(rule, q);
}

/* net_covers - see netaddr.h.  Sound, and complete for these host sets. */
bool net_covers(const struct net_target *outer, const struct net_target *inner)
{
	if (!outer->any_port && (inner->any_port || inner->port != outer->port))
		return false;
	switch (outer->kind) {
	case HOST_LOOPBACK:
		return inner->kind == HOST_LOOPBACK;
	case HOST_NAME:
		return inner->kind == HOST_NAME &&
		       !strcmp(outer->host, inner->host);
	case HOST_SUFFIX:
		if (inner->kind == HOST_NAME)
			return name_under(inner->host, outer->host);
		return inner->kind == HOST_SUFFIX &&
		       (!strcmp(inner->host, outer->host) ||
			name_under(inner->host, outer->host));
	case HOST_IPV4:
		return inner->kind == HOST_IPV4 &&
		       !memcmp(outer->addr, inner->addr, 4);
	case HOST_IPV6:
		return inner->kind == HOST_IPV6 &&
		       !memcmp(outer->addr, inner->addr, 16);
	default:
		BUG("bad host kind %d", (int)outer->kind);
	}
}
