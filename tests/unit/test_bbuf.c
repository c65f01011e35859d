/* SPDX-License-Identifier: MIT */
/*
 * test_bbuf.c - the bounded builder (util/bbuf.h): it never holds
 * more than its limit, an append that does not fit is refused whole and
 * marks the builder, and the bytes are NUL-terminated at every moment.
 */
#include <vbox.h>

#include "bbuf.h"
#include "tap.h"

static void test_fixed(void)
{
	char buf[8] = "xxxxxxx";
	struct bbuf b;

	bbuf_init_fixed(&b, buf, sizeof(buf));
	is_str(b.s, "", "a fixed builder starts empty");
	bbuf_puts(&b, "abc");
	bbuf_printf(&b, "%d", 1234);
	is_str(buf, "abc1234", "seven bytes fit in eight with the NUL");
	ok(bbuf_ok(&b), "nothing refused yet");
	is_int((long long)bbuf_room(&b), 0, "no room left");
	bbuf_putc(&b, 'z');
	ok(!bbuf_ok(&b), "one byte more is refused");
	is_str(buf, "abc1234", "and the content is what fitted, whole");

	bbuf_init_fixed(&b, buf, sizeof(buf));
	bbuf_puts(&b, "ab");
	bbuf_printf(&b, "%s", "cdefghij");
	ok(!bbuf_ok(&b), "a formatted append that does not fit is refused");
	is_str(buf, "ab", "nothing of it was appended");
	bbuf_puts(&b, "c");
	is_str(buf, "ab", "after a refusal nothing more is appended");
}

static void test_heap(void)
{
	struct bbuf b;
	char *s;
	size_t len, i;

	bbuf_init_heap(&b, 1000);
	for (i = 0; i < 100; i++)
		bbuf_puts(&b, "0123456789");
	ok(bbuf_ok(&b), "a heap builder grows to its limit");
	is_int((long long)b.len, 1000, "1000 bytes held");
	ok(b.cap <= 1001, "never allocated past the limit and its NUL "
	   "(%zu)", b.cap);
	bbuf_putc(&b, '!');
	ok(!bbuf_ok(&b), "the 1001st byte is refused");
	s = bbuf_take(&b, &len);
	is_int((long long)len, 1000, "bbuf_take gives the length");
	is_int((long long)strlen(s), 1000, "and a NUL-terminated string");
	free(s);
	ok(bbuf_ok(&b) && b.len == 0, "the builder is empty and usable again");
	bbuf_add(&b, "", 0);
	is_str(b.s, "", "an empty append keeps it empty");
	bbuf_free(&b);

	bbuf_init_heap(&b, 0);
	bbuf_putc(&b, 'a');
	ok(!bbuf_ok(&b) && b.s[0] == '\0', "a zero limit holds nothing");
	bbuf_free(&b);
}

static void test_printable(void)
{
	static const char raw[] = "GET /\r\n\x1b[2J\\\x80";
	char buf[64];
	struct bbuf b;

	bbuf_init_fixed(&b, buf, sizeof(buf));
	bbuf_put_printable(&b, raw, sizeof(raw) - 1);
	is_str(buf, "GET /\\x0d\\x0a\\x1b[2J\\x5c\\x80",
	       "control bytes, the backslash and high bytes are escaped");

	bbuf_init_fixed(&b, buf, 8);
	bbuf_put_printable(&b, "ab\ncdef", 7);
	ok(!bbuf_ok(&b), "an escaped run that does not fit is marked");
	is_str(buf, "ab\\x0ac", "as much as fits, no escape cut in half");
}

int main(void)
{
	test_fixed();
	test_heap();
	test_printable();
	return done_testing();
}
