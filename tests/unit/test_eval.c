/* SPDX-License-Identifier: MIT */
/*
 * test_eval.c - the decision engine: doc/rules.md §3 ("Evaluation") on
 * hand-written
 * tables, and the indexed lookup against the linear reference on
 * generated tables.
 */
#include <vbox.h>

#include <stdio.h>

#include "eval.h"
#include "ir.h"
#include "tap.h"
#include "testlib.h"

/* "allow row N" / "deny row N" / "allow default" for a query. */
static char *fs_answer(const struct table *t, const char *path,
		       enum fs_op op)
{
	struct fs_path p;
	struct decision d;
	char *err = NULL, *out;

	if (fs_path_parse(path, t->target, &p, &err)) {
		out = xasprintf("error %s", err);
		free(err);
		return out;
	}
	eval_fs(t, &p, op, &d);
	if (d.row)
		out = xasprintf("%s row %u", d.allow ? "allow" : "deny",
				d.row->index);
	else
		out = xasprintf("%s default", d.allow ? "allow" : "deny");
	fs_path_free(&p);
	return out;
}

static char *net_answer(const struct table *t, const char *q)
{
	struct net_target n;
	struct decision d;
	char *err = NULL, *out;

	if (net_query_parse(q, &n, &err)) {
		out = xasprintf("error %s", err);
		free(err);
		return out;
	}
	eval_net(t, &n, &d);
	if (d.row)
		out = xasprintf("%s row %u", d.allow ? "allow" : "deny",
				d.row->index);
	else
		out = xasprintf("%s default", d.allow ? "allow" : "deny");
	net_target_free(&n);
	return out;
}

#define IS_FS(t, path, op, want) \
	do { char *a_ = fs_answer(t, path, op); \
	     is_str(a_, want, "%s %s -> %s", op == FS_READ ? "read" : "write", \
		    path, want); free(a_); } while (0)
#define IS_NET(t, q, want) \
	do { char *a_ = net_answer(t, q); \
	     is_str(a_, want, "net %s -> %s", q, want); free(a_); } while (0)

static void test_quick_start(void)
{
	struct tl_compiled c;

	/* The reference design's quick-start table. */
	if (!ok(tl_compile(&c, "ro:~/.ssh/known_hosts\n"
			       "deny:**/.ssh/**\n"
			       "rw:/srv/work/**\n"
			       "allow:api.example.com:443\n", "linux", 0) == 0,
		"quick-start table compiles"))
		return;
	IS_FS(c.table, "/srv/work/out.txt", FS_WRITE, "allow row 2");
	IS_FS(c.table, "/srv/work", FS_WRITE, "allow row 2");
	IS_FS(c.table, "/home/tester/.ssh/known_hosts", FS_READ, "allow row 0");
	IS_FS(c.table, "/home/tester/.ssh/known_hosts", FS_WRITE, "deny row 0");
	IS_FS(c.table, "/home/tester/.ssh/id_rsa", FS_READ, "deny row 1");
	IS_FS(c.table, "/srv/work/.ssh/key", FS_WRITE, "deny row 1");
	IS_FS(c.table, "/etc/passwd", FS_READ, "allow default");
	IS_FS(c.table, "/etc/passwd", FS_WRITE, "deny default");
	IS_NET(c.table, "api.example.com:443", "allow row 0");
	IS_NET(c.table, "api.example.com:80", "deny default");
	IS_NET(c.table, "api.example.com", "allow row 0");
	tl_compiled_free(&c);
}

static void test_levels_and_order(void)
{
	struct tl_compiled c;

	if (!ok(tl_compile(&c, "rw:/srv/work/**\n"
			       "deny:/srv/work/secret\n"
			       "!deny:/srv/work/secret2\n"
			       "!!ro:/srv\n"
			       "@default write rw\n"
			       "deny:example.com\n"
			       "!allow:example.com:443\n"
			       "@default net open\n", "linux", 0) == 0,
		"levels table compiles"))
		return;
	/* Level 2 ro:/srv wins over everything below /srv. */
	IS_FS(c.table, "/srv/work/a", FS_WRITE, "deny row 3");
	IS_FS(c.table, "/srv/work/a", FS_READ, "allow row 3");
	IS_FS(c.table, "/srv/work/secret2", FS_READ, "allow row 3");
	IS_FS(c.table, "/tmp/x", FS_WRITE, "allow default");
	IS_NET(c.table, "example.com:443", "allow row 1");
	IS_NET(c.table, "example.com:80", "deny row 0");
	/* A query for any port overlaps the level-1 allow first. */
	IS_NET(c.table, "example.com:*", "allow row 1");
	IS_NET(c.table, "other.com:1", "allow default");
	tl_compiled_free(&c);

	if (!ok(tl_compile(&c, "rw:/srv/work/**\n"
			       "deny:/srv/work/secret\n", "linux", 0) == 0,
		"order table compiles"))
		return;
	/* Same level: table order, not specificity. */
	IS_FS(c.table, "/srv/work/secret", FS_READ, "allow row 0");
	tl_compiled_free(&c);
}

static void test_folding_and_loopback(void)
{
	struct tl_compiled c;

	if (!ok(tl_compile(&c, "deny:/Users/*/Secret\nallow:localhost:8080\n"
			       "deny:*.Example.COM\n", "darwin", 0) == 0,
		"darwin table compiles"))
		return;
	IS_FS(c.table, "/users/bob/SECRET", FS_READ, "deny row 0");
	IS_FS(c.table, "/users/bob/SECRET/x", FS_READ, "allow default");
	IS_NET(c.table, "127.0.0.1:8080", "allow row 0");
	IS_NET(c.table, "foo.localhost:8080", "allow row 0");
	IS_NET(c.table, "[::1]:8080", "allow row 0");
	IS_NET(c.table, "2130706433:8080", "allow row 0");
	IS_NET(c.table, "127.0.0.1:8081", "deny default");
	IS_NET(c.table, "a.example.com:1", "deny row 1");
	IS_NET(c.table, "example.com:1", "deny default");
	tl_compiled_free(&c);

	if (!ok(tl_compile(&c, "deny:/Users/*/Secret\n", "linux", 0) == 0,
		"linux table compiles"))
		return;
	IS_FS(c.table, "/users/bob/SECRET", FS_READ, "allow default");
	IS_FS(c.table, "/Users/bob/Secret", FS_WRITE, "deny row 0");
	tl_compiled_free(&c);
}

/* A small deterministic generator (xorshift), so failures reproduce. */
static uint32_t rng_state = 2463534242u;

static uint32_t rnd(uint32_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state % n;
}

static const char *const seg_pool[] = { "a", "b", "srv", "work", ".ssh",
					"x.txt", "A", "*", "?", "*.txt",
					"**", "w*k" };

static void append_path(char *buf, size_t size, bool pattern)
{
	unsigned n = 1 + rnd(4), i;

	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		const char *s = seg_pool[rnd(pattern ? array_size(seg_pool) : 7)];

		strncat(buf, "/", size - strlen(buf) - 1);
		strncat(buf, s, size - strlen(buf) - 1);
	}
}

static void test_index_matches_linear(const char *target)
{
	static const char *const effects[] = { "deny", "ro", "rw" };
	static const char *const hosts[] = { "a.com", "b.a.com", "*.a.com",
					     "localhost", "127.0.0.9", "::1",
					     "10.0.0.1", "*.b.a.com" };
	static const char *const qhosts[] = { "a.com", "b.a.com", "c.b.a.com",
					      "x.localhost", "127.0.0.1",
					      "10.0.0.1", "[::1]", "z.com" };
	unsigned round, mismatches = 0, queries = 0;

	for (round = 0; round < 40; round++) {
		char *text = NULL, line[256];
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		struct tl_compiled c;
		unsigned i;

		for (i = 0; i < 60; i++) {
			char path[200];

			append_path(path, sizeof(path), true);
			/* Keep clear of the "covers everything" guardrail. */
			if (path[1] == '*' || path[1] == '?')
				path[1] = 'q';
			fprintf(f, "%.*s%s:%s\n", (int)rnd(3), "!!",
				effects[rnd(3)], path);
		}
		for (i = 0; i < 20; i++) {
			const char *h = hosts[rnd(array_size(hosts))];

			if (strchr(h, ':'))
				snprintf(line, sizeof(line), "[%s]", h);
			else
				snprintf(line, sizeof(line), "%s", h);
			fprintf(f, "%.*s%s:%s:%u\n", (int)rnd(3), "!!",
				rnd(2) ? "allow" : "deny", line, 80 + rnd(3));
		}
		fclose(f);
		if (tl_compile(&c, text, target, 0)) {
			ok(0, "generated table %u compiles", round);
			tl_compiled_free(&c);
			free(text);
			continue;
		}
		for (i = 0; i < 200; i++) {
			char path[200];
			struct fs_path p;
			char *err = NULL;

			append_path(path, sizeof(path), false);
			if (fs_path_parse(path, c.table->target, &p, &err)) {
				free(err);
				mismatches++;
				continue;
			}
			{
				struct decision d;

				eval_fs(c.table, &p, FS_READ, &d);
				if (d.row != eval_fs_first_match_linear(
						    &c.table->fs, &p))
					mismatches++;
			}
			queries++;
			fs_path_free(&p);
		}
		for (i = 0; i < 50; i++) {
			struct net_target q;
			struct decision d;
			char *err = NULL;

			snprintf(line, sizeof(line), "%s:%u",
				 qhosts[rnd(array_size(qhosts))], 79 + rnd(4));
			if (net_query_parse(line, &q, &err)) {
				free(err);
				mismatches++;
				continue;
			}
			eval_net(c.table, &q, &d);
			if (d.row != eval_net_first_match_linear(&c.table->net,
								 &q))
				mismatches++;
			queries++;
			net_target_free(&q);
		}
		tl_compiled_free(&c);
		free(text);
	}
	ok(mismatches == 0 && queries > 5000,
	   "%s: indexed lookup equals linear scan on %u generated queries",
	   target, queries);
	if (mismatches)
		diag("  %u mismatches", mismatches);
}

int main(void)
{
	test_quick_start();
	test_levels_and_order();
	test_folding_and_loopback();
	test_index_matches_linear("linux");
	test_index_matches_linear("darwin");
	return done_testing();
}
