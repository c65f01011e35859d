/* SPDX-License-Identifier: MIT */
/*
 * test_linux_int.h - what test_linux.c and test_linux_launch.c share:
 * the compile and render helpers (test_linux.c), the temporary tree and
 * the launch cases (test_linux_launch.c).  Internal to test_linux.
 */
#ifndef VBOX_TEST_LINUX_INT_H
#define VBOX_TEST_LINUX_INT_H

struct linux_launch;
struct lx_artifact;
struct tl_compiled;

/* test_linux.c */

/* Build, analyze and classify @text for linux (landings, no records). */
int compile(struct tl_compiled *c, const char *text);

/* @a rendered, NULs as blanks, LX_LAUNCH as "--vbox-launch ROW". */
char *render_text(const struct lx_artifact *a);

/* test_linux_launch.c */

/* The temporary tree the launch cases run against (main() makes it). */
extern char tree[256];

/* Fill the tree with the directories and files the cases name. */
void build_tree(void);

/*
 * instantiate - expand the launch rows of @c into @l against the host, as
 * vbox-exec does, from the sandbox linux_build() made with launch rows.
 * Returns 0, or -1 with the reason in *@err (caller frees).
 */
int instantiate(const struct tl_compiled *c, const struct lx_artifact *a,
		struct linux_launch *l, char **err);

/* rm -rf @path; system()'s answer. */
int rm_tree(const char *path);

void test_launch(void);
void test_launch_writable_default(void);
void test_launch_errors(void);
void test_artifact_decode(void);
void test_glob_expand(void);
void test_glob_bounds(void);
void test_init_split(void);

#endif /* VBOX_TEST_LINUX_INT_H */
