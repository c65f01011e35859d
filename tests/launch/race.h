/* SPDX-License-Identifier: MIT */
/*
 * race.h - what race_args's files share (tests/launch/race_args.c runs the
 * cases, race_files.c and race_sockets.c hold them).
 *
 * A case lays out an allowed and a denied value of one pointer argument
 * (setup), and an attempt makes the call once on the memory a second
 * thread or process flips between the two (attempt): its outcome is
 * refused, made on the allowed value (ok), or a forbidden outcome the
 * child saw itself (won).  A case may instead name what the second
 * thread or process does in a loop (racer).
 */
#ifndef VBOX_TESTS_RACE_H
#define VBOX_TESTS_RACE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

struct sockaddr_un;

#define MARKER_STATUS 42
#define SLOT 256	/* bytes of one flipped value */

/**
 * struct arena - the memory the calls point into, and the flip's state:
 * private to the process (a thread flips), or MAP_SHARED (a forked
 * process flips)
 * @stop: the flipper ends
 * @run: the flipper flips while set
 * @slow: the flipper rests 0.1 ms in each state (a case no call of which
 *        got through at full speed, race_args.c)
 * @off, @len: what it flips: @buf[@off .. @off + @len)
 * @a, @b: the allowed and the denied value
 * @buf: what the calls point into
 */
struct arena {
	atomic_int stop;
	atomic_int run;
	atomic_int slow;
	size_t off, len;
	unsigned char a[2 * SLOT], b[2 * SLOT];
	_Alignas(16) unsigned char buf[4 * SLOT];
};

/* One attempt's outcome. */
enum outcome { TRY_REFUSED, TRY_OK, TRY_WON };

/**
 * struct rcase - one case
 * @name: as the command line and the output name it
 * @setup: lay out the values (and the rest of the arena); false with
 *         *why (caller frees): skipped
 * @attempt: make the call once
 * @arg: which call of a family
 * @racer: instead of flipping memory, what the second thread or process
 *         does in a loop (NULL: flip)
 * @child_flips: the attempt forks a child that makes the call (an exec):
 *               without --shared that child flips for itself, since the
 *               parent's flipping thread does not survive fork()
 */
struct rcase {
	const char *name;
	bool (*setup)(const struct rcase *c, char **why);
	enum outcome (*attempt)(const struct rcase *c);
	int arg;
	void (*racer)(void);
	bool child_flips;
};

extern struct arena *ar;
extern bool shared;		/* a process flips (--shared) */
extern const char *W, *HOST, *SECRET;
extern const struct rcase *current;

/* What the host laid out (race_args.c names each from W and HOST). */
extern char *p_ok, *p_env, *p_hook, *p_sub_env, *p_tool, *p_env_dir;
extern char *p_host_stream, *p_host_dgram, *p_ok_stream, *p_ok_dgram;
extern struct stat hook0;	/* the read-only file, as a case found it */
extern char ok_text[64];	/* W/ok.txt's first bytes, never printed */
extern bool have_xattr;		/* the read-only file carries user.keep */

/* The flipper, on a thread (exec cases start their own in the child). */
void *flip_thread(void *arg);
/* Flip @len bytes at @off between @a and @b. */
void flip_set(size_t off, const void *a, const void *b, size_t len);
/* Flip a path slot at @off between the strings @a and @b. */
void flip_paths(size_t off, const char *a, const char *b);
/* W/@name (caller frees). */
char *wpath(const char *name);
/* Slot @k of the arena's buffer. */
char *slot(int k);

/* Print what @fd reads (unless W/ok.txt's); does it begin with SECRET? */
bool secret_fd(const char *name, int fd);
bool exists(const char *p);
/* Has the read-only file changed since hook0 (content, mode, times)? */
bool hook_changed(void);
void touch(const char *p);
void unix_addr(struct sockaddr_un *sa, const char *path);

extern const struct rcase race_file_cases[], race_socket_cases[];
extern const size_t race_nfile_cases, race_nsocket_cases;

#endif /* VBOX_TESTS_RACE_H */
