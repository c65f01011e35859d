/* SPDX-License-Identifier: MIT */
/*
 * test_netaddr.c - network targets: rule and query parsing, normalization
 * (doc/rules.md §6, "Network targets"), the numeric host forms the proxy
 * accepts (doc/proxy.md, "Judging"), matching and coverage.
 */
#include <vbox.h>

#include <stdio.h>

#include "netaddr.h"
#include "tap.h"

typedef int (*parse_fn)(const char *, struct net_target *, char **);

static const char *kind_name(enum host_kind k)
{
	switch (k) {
	case HOST_NAME:
		return "name";
	case HOST_SUFFIX:
		return "suffix";
	case HOST_IPV4:
		return "ipv4";
	case HOST_IPV6:
		return "ipv6";
	case HOST_LOOPBACK:
		return "loopback";
	default:
		return "?";
	}
}

static bool target_empty(const struct net_target *t)
{
	static const struct net_target zero;

	return !memcmp(t, &zero, sizeof(zero));
}

/* One point: @raw parses to @kind with canonical text @text. */
static void parse_ok(parse_fn fn, const char *what, const char *raw,
		     enum host_kind kind, const char *text)
{
	struct net_target t;
	char *err = NULL;
	int ret = fn(raw, &t, &err);
	bool good = ret == 0 && !err && t.kind == kind &&
		    !strcmp(t.text, text);

	if (!ok(good, "%s '%s' -> %s %s", what, raw, kind_name(kind), text)) {
		if (ret)
			diag("  error: %s", err ? err : "(none)");
		else
			diag("  got %s %s", kind_name(t.kind), t.text);
	}
	if (!ret)
		net_target_free(&t);
	free(err);
}

/*
 * One point: @raw is refused with a message containing @want, worded as
 * the house style says, and the target is left empty.
 */
static void parse_bad(parse_fn fn, const char *what, const char *raw,
		      const char *want)
{
	struct net_target t;
	char *err = NULL;
	int ret = fn(raw, &t, &err);
	size_t n = err ? strlen(err) : 0;
	bool good = ret == -1 && err && strstr(err, want) &&
		    !(err[0] >= 'A' && err[0] <= 'Z') && n &&
		    err[n - 1] != '.' && !strchr(err, '\n') &&
		    target_empty(&t);

	if (!ok(good, "%s '%s' refused: %s", what, raw, want)) {
		if (ret)
			diag("  got error: %s", err ? err : "(none)");
		else
			diag("  accepted as %s", t.text);
	}
	if (!ret)
		net_target_free(&t);
	free(err);
}

#define rule_ok(raw, kind, text) \
	parse_ok(net_rule_parse, "rule", raw, kind, text)
#define rule_bad(raw, want) parse_bad(net_rule_parse, "rule", raw, want)
#define query_ok(raw, kind, text) \
	parse_ok(net_query_parse, "query", raw, kind, text)
#define query_bad(raw, want) parse_bad(net_query_parse, "query", raw, want)

static void must_parse(parse_fn fn, const char *raw, struct net_target *t)
{
	char *err = NULL;

	if (fn(raw, t, &err)) {
		diag("cannot parse '%s': %s", raw, err);
		free(err);
		memset(t, 0, sizeof(*t));
		t->kind = HOST_NAME;
		t->host = xstrdup("\x01unparsable");
		t->text = xstrdup("\x01unparsable");
		t->any_port = false;
		t->port = 0;
	}
}

/* One point: does rule @r match query @q? */
static void match(const char *r, const char *q, bool want)
{
	struct net_target rt, qt;

	must_parse(net_rule_parse, r, &rt);
	must_parse(net_query_parse, q, &qt);
	ok(net_match(&rt, &qt) == want, "rule '%s' %s query '%s'", r,
	   want ? "matches" : "does not match", q);
	net_target_free(&rt);
	net_target_free(&qt);
}

/* One point: does rule @outer cover rule @inner? */
static void covers(const char *outer, const char *inner, bool want)
{
	struct net_target o, i;

	must_parse(net_rule_parse, outer, &o);
	must_parse(net_rule_parse, inner, &i);
	ok(net_covers(&o, &i) == want, "'%s' %s '%s'", outer,
	   want ? "covers" : "does not cover", inner);
	net_target_free(&o);
	net_target_free(&i);
}


static void test_rule_names(void)
{
	rule_ok("example.com", HOST_NAME, "example.com:*");
	rule_ok("example.com:443", HOST_NAME, "example.com:443");
	rule_ok("Example.COM.:443", HOST_NAME, "example.com:443");
	rule_ok("example.com:*", HOST_NAME, "example.com:*");
	rule_ok("example.com:1", HOST_NAME, "example.com:1");
	rule_ok("example.com:65535", HOST_NAME, "example.com:65535");
	rule_ok("git@github.com:22", HOST_NAME, "github.com:22");
	rule_ok("Deploy.User-1_x@host_name-1.example:8080", HOST_NAME,
		"host_name-1.example:8080");
	rule_ok("intranet", HOST_NAME, "intranet:*");
	rule_ok("1.2.3.a", HOST_NAME, "1.2.3.a:*");
	rule_ok("0x7f.com", HOST_NAME, "0x7f.com:*");
	rule_ok("a.0x1g", HOST_NAME, "a.0x1g:*");
	rule_ok("123.example.com", HOST_NAME, "123.example.com:*");
	rule_ok("localhost.example.com", HOST_NAME,
		"localhost.example.com:*");
	rule_ok("notlocalhost", HOST_NAME, "notlocalhost:*");

	rule_bad("", "empty network target");
	rule_bad("/etc", "invalid character '/' in host '/etc'");
	rule_bad("/etc/passwd", "host names use letters");
	rule_bad("$HOME", "invalid character '$'");
	rule_bad("${API}:443", "invalid character '$'");
	rule_bad("ex%ample.com", "invalid character '%'");
	rule_bad("ex\xc3\xa4mple.com", "invalid character '\\xc3'");
	rule_bad("a b.com", "white space in network target 'a b.com'");
	rule_bad("a.com\t", "white space");
	rule_bad("a.com\r", "control character");
	rule_bad("a\x01.com", "control character in network target 'a\\x01.com'");
	rule_bad("a\x7f.com", "control character");
	rule_bad("a..com", "empty label in host 'a..com'");
	rule_bad(".a.com", "empty label");
	rule_bad("a.com..", "empty label");
	rule_bad(".", "empty label");
	rule_bad(":443", "empty host in ':443'");
	rule_bad("u@", "empty host in 'u@'");
	rule_bad("u@:22", "empty host");
	rule_bad("@example.com", "empty user in '@example.com'");
	rule_bad("a@b@example.com", "several '@'");
	rule_bad("u/x@example.com", "invalid character '/' in user 'u/x'");
	rule_bad("$USER@example.com", "invalid character '$' in user");
}

static void test_rule_lengths(void)
{
	char l63[64], l64[65], name[300], buf[320], want[320];

	memset(l63, 'a', 63);
	l63[63] = '\0';
	memset(l64, 'b', 64);
	l64[64] = '\0';
	snprintf(buf, sizeof(buf), "%s.com:80", l63);
	rule_ok(buf, HOST_NAME, buf);
	snprintf(buf, sizeof(buf), "%s.com", l64);
	rule_bad(buf, "a label has at most 63 characters");

	/* 3 * 63 + 61 + 3 dots = 253, the longest name; one more is too long */
	snprintf(name, sizeof(name), "%s.%s.%s.%.61s", l63, l63, l63, l63);
	snprintf(buf, sizeof(buf), "%s.", name);
	snprintf(want, sizeof(want), "%s:*", name);
	rule_ok(buf, HOST_NAME, want);
	snprintf(buf, sizeof(buf), "x%s", name);
	rule_bad(buf, "a name has at most 253 characters");
	/* "*." counts: no name under such a suffix could be written. */
	snprintf(buf, sizeof(buf), "*.%s", name + 1);
	rule_bad(buf, "a name has at most 253 characters");
	snprintf(buf, sizeof(buf), "*.%s", name + 2);
	snprintf(want, sizeof(want), "*.%s:*", name + 2);
	rule_ok(buf, HOST_SUFFIX, want);
}

static void test_rule_ports(void)
{
	rule_bad("a.com:", "empty port in 'a.com:'");
	rule_bad("a.com:080", "invalid port '080' in 'a.com:080': leading zeros");
	rule_bad("a.com:00", "leading zeros");
	rule_bad("a.com:+80", "invalid port '+80' in 'a.com:+80': a port has no sign");
	rule_bad("a.com:-1", "a port has no sign");
	rule_bad("a.com:0", "invalid port '0' in 'a.com:0': out of range");
	rule_bad("a.com:65536", "out of range 1..65535");
	rule_bad("a.com:99999999999999999999", "out of range");
	rule_bad("a.com:http", "not a number or '*'");
	rule_bad("a.com:8o", "not a number");
	rule_bad("a.com:**", "not a number");
	rule_bad("[::1]:", "empty port in '[::1]:'");
	rule_bad("[::1]:0443", "leading zeros");
}

static void test_rule_ipv4(void)
{
	rule_ok("1.2.3.4", HOST_IPV4, "1.2.3.4:*");
	rule_ok("10.0.0.1:5432", HOST_IPV4, "10.0.0.1:5432");
	rule_ok("0.0.0.0", HOST_IPV4, "0.0.0.0:*");
	rule_ok("255.255.255.255:1", HOST_IPV4, "255.255.255.255:1");
	rule_ok("169.254.169.254:80", HOST_IPV4, "169.254.169.254:80");
	rule_ok("u@192.168.1.10:22", HOST_IPV4, "192.168.1.10:22");

	rule_bad("127.1", "invalid IPv4 address '127.1': not a plain dotted quad (a resolver reads it as 127.0.0.1)");
	rule_bad("2130706433", "reads it as 127.0.0.1");
	rule_bad("010.0.0.1", "reads it as 8.0.0.1");
	rule_bad("0x7f.0.0.1", "reads it as 127.0.0.1");
	rule_bad("0177.0.0.1:80", "not a plain dotted quad");
	rule_bad("10.0.0.01", "not a plain dotted quad");
	rule_bad("1.2.3.4.", "not a plain dotted quad");
	rule_bad("1.2.3.256", "not an IPv4 address");
	rule_bad("1.2.3.4.5", "invalid host '1.2.3.4.5': its last label is numeric");
	rule_bad("a.123", "its last label is numeric but it is not an IPv4 address");
	rule_bad("example.0x1f", "its last label is numeric");
	rule_bad("08", "not an IPv4 address");
	rule_bad("0x", "not an IPv4 address");
	rule_bad("[1.2.3.4]", "bracketed IPv4 address '[1.2.3.4]': write it without brackets");
	rule_bad("[1.2.3.4]:80", "bracketed IPv4 address");
	rule_bad("[example.com]", "invalid IPv6 address 'example.com'");
}

static void test_rule_ipv6(void)
{
	rule_ok("[2001:db8::1]:443", HOST_IPV6, "[2001:db8::1]:443");
	rule_ok("2001:db8::1", HOST_IPV6, "[2001:db8::1]:*");
	rule_ok("[2001:DB8:0000:0000:0000:0000:0000:0001]", HOST_IPV6,
		"[2001:db8::1]:*");
	rule_ok("[2001:db8:0:0:1:0:0:1]", HOST_IPV6, "[2001:db8::1:0:0:1]:*");
	rule_ok("[2001:0:0:1:0:0:0:1]", HOST_IPV6, "[2001:0:0:1::1]:*");
	rule_ok("[2001:db8:0:1:1:1:1:1]", HOST_IPV6, "[2001:db8:0:1:1:1:1:1]:*");
	rule_ok("[1:0:0:0:0:0:0:0]", HOST_IPV6, "[1::]:*");
	rule_ok("[0:0:0:0:0:0:0:0]", HOST_IPV6, "[::]:*");
	rule_ok("::", HOST_IPV6, "[::]:*");
	rule_ok("[1:2:3:4:5:6:7::]", HOST_IPV6, "[1:2:3:4:5:6:7:0]:*");
	rule_ok("[::2:3:4:5:6:7:8]", HOST_IPV6, "[0:2:3:4:5:6:7:8]:*");
	rule_ok("[fe80::1]:22", HOST_IPV6, "[fe80::1]:22");
	rule_ok("[::1.2.3.4]", HOST_IPV6, "[::102:304]:*");
	rule_ok("[64:ff9b::1.2.3.4]", HOST_IPV6, "[64:ff9b::102:304]:*");
	rule_ok("2001:db8::1:443", HOST_IPV6, "[2001:db8::1:443]:*");
	rule_ok("u@[2001:db8::a:B:c]:8443", HOST_IPV6,
		"[2001:db8::a:b:c]:8443");

	/* IPv4-mapped addresses are the IPv4 address. */
	rule_ok("::ffff:1.2.3.4", HOST_IPV4, "1.2.3.4:*");
	rule_ok("[::FFFF:1.2.3.4]:443", HOST_IPV4, "1.2.3.4:443");
	rule_ok("[::ffff:a00:1]", HOST_IPV4, "10.0.0.1:*");
	rule_ok("[0:0:0:0:0:ffff:c0a8:0101]:80", HOST_IPV4, "192.168.1.1:80");

	rule_bad("fe80::1%eth0", "zone id in IPv6 address 'fe80::1%eth0'");
	rule_bad("[fe80::1%25eth0]:80", "zone ids are not supported");
	rule_bad("[::1", "missing ']' in '[::1'");
	rule_bad("[::1]x", "unexpected text 'x' after ']'");
	rule_bad("[::1]]", "unexpected text");
	rule_bad("[]", "empty host in '[]'");
	rule_bad("[]:80", "empty host");
	rule_bad("a.com:80:90", "an unbracketed host with several ':' must be an IPv6 address");
	rule_bad("::1:80:", "invalid IPv6 address");
	rule_bad("[1::2::3]", "invalid IPv6 address '1::2::3'");
	rule_bad("[:::]", "invalid IPv6 address");
	rule_bad("[:1::]", "invalid IPv6 address");
	rule_bad("[12345::]", "invalid IPv6 address");
	rule_bad("[1:2:3:4:5:6:7:8:9]", "invalid IPv6 address");
	rule_bad("[1:2:3:4:5:6:7]", "invalid IPv6 address");
	rule_bad("[1:2:3:4::5:6:7:8]", "invalid IPv6 address");
	rule_bad("[::ffff:1.2.3]", "invalid IPv6 address");
	rule_bad("[::ffff:01.2.3.4]", "invalid IPv6 address");
	rule_bad("[::1.2.3.4:5]", "invalid IPv6 address");
	rule_bad("[1:2:3:4:5:6:7:1.2.3.4]", "invalid IPv6 address");
	rule_bad("[g::1]", "invalid IPv6 address");
}

static void test_rule_wildcards(void)
{
	rule_ok("*.example.com", HOST_SUFFIX, "*.example.com:*");
	rule_ok("*.Example.COM.:443", HOST_SUFFIX, "*.example.com:443");
	rule_ok("*.a.b.example.com:80", HOST_SUFFIX, "*.a.b.example.com:80");
	rule_ok("*.co.uk", HOST_SUFFIX, "*.co.uk:*");

	rule_bad("*", "bare '*' host in '*': the global posture is set with '@default net'");
	rule_bad("*:443", "bare '*' host");
	rule_bad("*:*", "'@default net'");
	rule_bad("a*.example.com", "invalid wildcard host 'a*.example.com'");
	rule_bad("*.*.example.com", "the global posture is set with '@default net'");
	rule_bad("api.*.example.com", "only a leading '*.' label is allowed");
	rule_bad("*example.com", "only a leading '*.' label is allowed");
	rule_bad("example.*", "only a leading '*.' label is allowed");
	rule_bad("*.com", "wildcard host '*.com': '*.' must be followed by at least two labels");
	rule_bad("*.com.", "at least two labels");
	rule_bad("*.", "'*.' must be followed by a name");
	rule_bad("*..", "'*.' must be followed by a name");
	rule_bad("*..com", "empty label");
	rule_bad("*.1.2.3.4", "'*.' is never followed by an IP address");
	rule_bad("*.10.1", "never followed by an IP address");
	rule_bad("*.a.123", "its last label is numeric");
	rule_bad("*.[::1]", "invalid IPv6 address");
	rule_bad("*.[a].com", "invalid character '['");
	rule_bad("*.exa$mple.com", "invalid character '$'");
}

static void test_rule_loopback(void)
{
	rule_ok("localhost", HOST_LOOPBACK, "localhost:*");
	rule_ok("LocalHost.:8080", HOST_LOOPBACK, "localhost:8080");
	rule_ok("app.localhost:3000", HOST_LOOPBACK, "app.localhost:3000");
	rule_ok("a.b.localhost", HOST_LOOPBACK, "a.b.localhost:*");
	rule_ok("127.0.0.1:5432", HOST_LOOPBACK, "127.0.0.1:5432");
	rule_ok("127.255.0.9", HOST_LOOPBACK, "127.255.0.9:*");
	rule_ok("[::1]:22", HOST_LOOPBACK, "[::1]:22");
	rule_ok("::1", HOST_LOOPBACK, "[::1]:*");
	rule_ok("[0:0:0:0:0:0:0:1]", HOST_LOOPBACK, "[::1]:*");
	rule_ok("[::0.0.0.1]", HOST_LOOPBACK, "[::1]:*");
	rule_ok("[::ffff:127.0.0.1]:80", HOST_LOOPBACK, "127.0.0.1:80");
	rule_ok("[::ffff:7f00:2]", HOST_LOOPBACK, "127.0.0.2:*");
	/* "*.localhost" has one label after "*." but names the class. */
	rule_ok("*.localhost", HOST_LOOPBACK, "*.localhost:*");
	rule_ok("*.localhost:443", HOST_LOOPBACK, "*.localhost:443");
	rule_ok("*.x.LOCALHOST", HOST_LOOPBACK, "*.x.localhost:*");
	rule_ok("root@localhost:22", HOST_LOOPBACK, "localhost:22");

	rule_bad("127.1", "not a plain dotted quad");
	rule_bad("*.127.0.0.1", "never followed by an IP address");
}

static void test_query_parse(void)
{
	query_ok("example.com:443", HOST_NAME, "example.com:443");
	query_ok("EXAMPLE.com.", HOST_NAME, "example.com:*");
	query_ok("example.com:*", HOST_NAME, "example.com:*");
	query_ok("u@example.com:22", HOST_NAME, "example.com:22");
	query_ok("1.2.3.4:80", HOST_IPV4, "1.2.3.4:80");

	/* Numeric forms a resolver accepts, folded as inet_aton() does. */
	query_ok("2130706433", HOST_LOOPBACK, "127.0.0.1:*");
	query_ok("2130706433:80", HOST_LOOPBACK, "127.0.0.1:80");
	query_ok("0x7f.1", HOST_LOOPBACK, "127.0.0.1:*");
	query_ok("0X7F.1:443", HOST_LOOPBACK, "127.0.0.1:443");
	query_ok("127.1", HOST_LOOPBACK, "127.0.0.1:*");
	query_ok("0177.0.0.1", HOST_LOOPBACK, "127.0.0.1:*");
	query_ok("0x7f000001", HOST_LOOPBACK, "127.0.0.1:*");
	query_ok("017700000001", HOST_LOOPBACK, "127.0.0.1:*");
	query_ok("127.0.0.1.", HOST_LOOPBACK, "127.0.0.1:*");
	query_ok("10.1:22", HOST_IPV4, "10.0.0.1:22");
	query_ok("010.0.0.1", HOST_IPV4, "8.0.0.1:*");
	query_ok("1.2.65535", HOST_IPV4, "1.2.255.255:*");
	query_ok("1.16777215", HOST_IPV4, "1.255.255.255:*");
	query_ok("4294967295", HOST_IPV4, "255.255.255.255:*");
	query_ok("0", HOST_IPV4, "0.0.0.0:*");
	query_ok("0xA9.0xFE.0xA9.0xFE:80", HOST_IPV4, "169.254.169.254:80");
	query_ok("2852039166", HOST_IPV4, "169.254.169.254:*");

	/* Bracketed and bare IPv6, mapped forms folded. */
	query_ok("[::ffff:127.0.0.1]", HOST_LOOPBACK, "127.0.0.1:*");
	query_ok("[::ffff:127.0.0.1]:8080", HOST_LOOPBACK, "127.0.0.1:8080");
	query_ok("[::ffff:a9fe:a9fe]:80", HOST_IPV4, "169.254.169.254:80");
	query_ok("[0::1]:22", HOST_LOOPBACK, "[::1]:22");
	query_ok("::1", HOST_LOOPBACK, "[::1]:*");
	query_ok("[2001:DB8::0:1]:443", HOST_IPV6, "[2001:db8::1]:443");
	query_ok("app.LocalHost:3000", HOST_LOOPBACK, "app.localhost:3000");

	query_bad("*.example.com", "wildcard host '*.example.com' in a query");
	query_bad("*:80", "wildcard host '*' in a query");
	query_bad("*", "in a query");
	query_bad("a*.com", "in a query");
	query_bad("4294967296", "invalid host '4294967296': its last label is numeric but it is not an IPv4 address");
	query_bad("1.2.65536", "not an IPv4 address");
	query_bad("256.1.1.1", "not an IPv4 address");
	query_bad("1.2.3.4.5", "not an IPv4 address");
	query_bad("08.0.0.1", "not an IPv4 address");
	query_bad("0x", "not an IPv4 address");
	query_bad("0x1g.0.0.1", "its last label is numeric");
	query_bad("a.123", "its last label is numeric");
	query_bad("example.com:080", "leading zeros");
	query_bad("example.com:", "empty port");
	query_bad("[1.2.3.4]", "bracketed IPv4 address");
	query_bad("[2130706433]", "bracketed IPv4 address");
	query_bad("[::ffff:127.1]", "invalid IPv6 address");
	query_bad("[fe80::1%lo]", "zone id");
	query_bad("/etc/passwd", "invalid character '/'");
	query_bad("a b", "white space");
	query_bad("", "empty network target");
}

static void test_match(void)
{
	match("example.com", "example.com:443", true);
	match("example.com:443", "EXAMPLE.COM.:443", true);
	match("example.com:443", "example.com:80", false);
	match("example.com", "www.example.com", false);
	match("example.com", "example.org", false);

	match("*.example.com", "a.example.com:443", true);
	match("*.example.com", "evil.example.com", true);
	match("*.example.com", "a.b.example.com", true);
	match("*.example.com", "example.com", false);
	match("*.example.com", "badexample.com", false);
	match("*.example.com", "example.com.evil.org", false);
	match("*.example.com:443", "a.example.com:80", false);
	match("*.10.in-addr.arpa", "1.10.in-addr.arpa", true);

	match("1.2.3.4", "1.2.3.4:22", true);
	match("1.2.3.4", "1.2.3.5", false);
	match("169.254.169.254", "2852039166:80", true);
	match("169.254.169.254", "[::ffff:169.254.169.254]", true);
	match("[::ffff:1.2.3.4]", "1.2.3.4", true);
	match("2001:db8::1", "[2001:DB8:0:0:0:0:0:1]:443", true);
	match("2001:db8::1", "2001:db8::2", false);
	match("::102:304", "1.2.3.4", false);
	match("1.2.3.4", "[::1.2.3.4]", false);

	/* The loopback class, both ways. */
	match("localhost", "127.0.0.1", true);
	match("localhost", "127.9.8.7", true);
	match("localhost", "[::1]", true);
	match("localhost", "2130706433", true);
	match("localhost", "0x7f.1", true);
	match("localhost", "[::ffff:127.0.0.1]", true);
	match("localhost", "app.localhost", true);
	match("127.0.0.1", "localhost", true);
	match("127.0.0.1", "[::1]:22", true);
	match("::1", "127.0.0.1", true);
	match("::1", "a.localhost", true);
	match("*.localhost", "localhost", true);
	match("*.x.localhost", "127.0.0.1", true);
	match("app.localhost", "::1", true);
	match("127.0.0.1:5432", "localhost:5432", true);
	match("127.0.0.1:5432", "localhost:5433", false);
	match("localhost", "localhost.example.com", false);
	match("localhost", "10.0.0.1", false);
	match("localhost", "0.0.0.0", false);
	match("localhost", "[::]", false);
	match("example.com", "localhost", false);
	match("*.example.com", "127.0.0.1", false);

	/* Wildcards never match an address. */
	match("*.example.com", "1.2.3.4", false);

	/* Ports: a "*" query overlaps any rule port. */
	match("example.com:443", "example.com:*", true);
	match("example.com:443", "example.com", true);
	match("example.com", "example.com:1", true);
	match("localhost:22", "[::1]", true);
}

static void test_covers(void)
{
	covers("*.example.com", "evil.example.com", true);
	covers("*.example.com", "a.b.example.com:443", true);
	covers("*.example.com", "*.example.com", true);
	covers("*.example.com", "*.api.example.com:443", true);
	covers("*.example.com", "example.com", false);
	covers("*.example.com", "badexample.com", false);
	covers("*.api.example.com", "*.example.com", false);
	covers("*.api.example.com", "x.example.com", false);
	covers("*.example.com", "1.2.3.4", false);
	covers("*.example.com:443", "a.example.com", false);
	covers("*.example.com:443", "a.example.com:443", true);
	covers("*.example.com:443", "a.example.com:80", false);

	covers("example.com", "example.com:443", true);
	covers("example.com:443", "example.com:443", true);
	covers("example.com:443", "example.com", false);
	covers("example.com", "www.example.com", false);
	covers("example.com", "*.example.com", false);

	covers("1.2.3.4", "[::ffff:1.2.3.4]:22", true);
	covers("1.2.3.4", "1.2.3.5", false);
	covers("2001:db8::1", "[2001:db8:0::1]:443", true);
	/* Unbracketed, ":443" is part of the address, not a port. */
	covers("2001:db8::1:443", "2001:db8::1", false);
	covers("[2001:db8::1]", "[2001:db8::1]:443", true);
	covers("::102:304", "1.2.3.4", false);

	covers("localhost", "127.0.0.1:80", true);
	covers("127.0.0.1", "::1", true);
	covers("::1", "*.localhost", true);
	covers("*.localhost", "localhost:3000", true);
	covers("localhost:80", "127.0.0.1", false);
	covers("localhost", "example.com", false);
	covers("*.example.com", "localhost", false);
	covers("example.com", "localhost", false);
}

static void test_keys(void)
{
}

static void test_api(void)
{
	struct net_target t;
	char *err = NULL;

	ok(net_rule_parse("a.com:80", &t, NULL) == 0 && t.port == 80 &&
	   !t.any_port && !strcmp(t.host, "a.com"),
	   "a NULL err pointer is allowed; port and host fields are set");
	net_target_free(&t);
	ok(target_empty(&t), "net_target_free empties the target");
	net_target_free(&t);
	net_target_free(NULL);
	ok(1, "net_target_free is NULL-safe and idempotent");
	ok(net_rule_parse("*", &t, NULL) == -1 && target_empty(&t),
	   "an error with a NULL err pointer still fails closed");
	ok(net_rule_parse("[2001:db8::ff]", &t, &err) == 0 &&
	   t.addr[0] == 0x20 && t.addr[1] == 0x01 && t.addr[15] == 0xff &&
	   t.any_port, "IPv6 address bytes are filled");
	net_target_free(&t);
	ok(net_query_parse("0xa.1", &t, &err) == 0 && t.addr[0] == 10 &&
	   t.addr[3] == 1, "IPv4 address bytes are filled");
	net_target_free(&t);
	ok(net_query_parse("9.8.7.6", &t, &err) == 0 &&
	   !strcmp(t.host, "9.8.7.6"), "IPv4 host is the dotted quad");
	net_target_free(&t);
	ok(net_rule_parse("*.Example.com:8", &t, &err) == 0 &&
	   !strcmp(t.host, "example.com") && t.port == 8,
	   "suffix host is the name without '*.'");
	net_target_free(&t);
	free(err);
}

/* Long and odd inputs: refused, with a bounded message. */
static void test_hostile(void)
{
	size_t n = 100000;
	char *big = xmalloc(n + 1);
	struct net_target t;
	char *err = NULL;
	int ret;

	memset(big, 'a', n);
	big[n] = '\0';
	ret = net_rule_parse(big, &t, &err);
	ok(ret == -1 && err && strlen(err) < 1000,
	   "a 100000-byte name is refused with a short message");
	free(err);
	err = NULL;
	memset(big, ':', n);
	ret = net_query_parse(big, &t, &err);
	ok(ret == -1 && err && strlen(err) < 1000,
	   "100000 colons are refused with a short message");
	free(err);
	err = NULL;
	memset(big, '1', n);
	ret = net_query_parse(big, &t, &err);
	ok(ret == -1 && err, "a 100000-digit number is refused");
	free(err);
	free(big);
}

int main(void)
{
	test_rule_names();
	test_rule_lengths();
	test_rule_ports();
	test_rule_ipv4();
	test_rule_ipv6();
	test_rule_wildcards();
	test_rule_loopback();
	test_query_parse();
	test_match();
	test_covers();
	test_keys();
	test_api();
	test_hostile();
	return done_testing();
}
