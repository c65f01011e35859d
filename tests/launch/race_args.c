/* SPDX-License-Identifier: MIT */
/*
 * race_args.c - the sandboxed side of tests/launch/exec_race.sh: every call the
 * supervisor judges, made in a loop while one of its pointer arguments
 * is flipped between an allowed and a denied value, by a second thread
 * of the caller (the default) or by a second process that shares the
 * memory through a MAP_SHARED mapping (--shared).  A supervisor that
 * judges a copy and then lets the kernel read the child's memory again
 * loses this race within a few hundred tries (doc/launcher.md,
 * "Supervised paths", "What continues").
 *
 *   race_args [--shared] [--ms N] [--ro FILE] [--denied NAME]
 *             W HOST SECRET CASE...
 *   race_args --marker
 *
 * W is the workspace the host laid out (exec_race.sh names each file),
 * HOST a directory of host sockets outside every writable region, SECRET
 * the first bytes of the denied files' contents.  --ro names the file
 * the policy keeps read-only (default W/.git/hooks/pre-commit), --denied
 * a name the child may not make (default W/sub/.env); container mode,
 * which has no supervised rows, points them outside its writable root.
 * Each CASE ("all": every one) runs for N milliseconds (default 300)
 * and prints
 *
 *   CASE tries=T ok=A won=W
 *
 * T attempts, A of them succeeded on the allowed value (the race really
 * ran both ways), W forbidden outcomes it saw itself (a read that began
 * with SECRET, a write open of a read-only file, a denied name made, a
 * denied program run, a peer that is a host socket).  The first bytes of
 * every read that is not W/ok.txt's are printed as "data CASE TEXT", so
 * that the host, which judges, sees what reached the child.  "CASE skip
 * WHY" when the case cannot run here (a datagram socket refused at
 * socket(), say).  This file runs the cases; race_files.c and
 * race_sockets.c hold them (race.h).
 *
 * --marker is the denied program's body: exec_race.sh copies this file
 * to a denied name; run, it prints EXEC-MARKER and exits 42.
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "race.h"

struct arena *ar;
bool shared;
const char *W, *HOST, *SECRET;
const struct rcase *current;
static unsigned long run_ms = 300;

/* ------------------------------------------------------------------ */
/* the flipper */

static void flip_loop(void)
{
	if (current && current->racer) {
		current->racer();
		return;
	}
	while (!atomic_load_explicit(&ar->stop, memory_order_relaxed)) {
		if (!atomic_load_explicit(&ar->run, memory_order_relaxed)) {
			sched_yield();
			continue;
		}
		memcpy(ar->buf + ar->off, ar->a, ar->len);
		__asm__ volatile("" ::: "memory");
		if (atomic_load_explicit(&ar->slow, memory_order_relaxed))
			usleep(100);
		memcpy(ar->buf + ar->off, ar->b, ar->len);
		__asm__ volatile("" ::: "memory");
		if (atomic_load_explicit(&ar->slow, memory_order_relaxed))
			usleep(100);
	}
}

void *flip_thread(void *arg)
{
	(void)arg;
	flip_loop();
	return NULL;
}

static pthread_t flipper_tid;
static pid_t flipper_pid = -1;

static void flipper_start(void)
{
	atomic_store(&ar->stop, 0);
	if (shared) {
		flipper_pid = fork();
		if (flipper_pid == 0) {
			flip_loop();
			_exit(0);
		}
		if (flipper_pid < 0) {
			perror("race_args: fork");
			exit(2);
		}
	} else if (pthread_create(&flipper_tid, NULL, flip_thread, NULL)) {
		fprintf(stderr, "race_args: pthread_create failed\n");
		exit(2);
	}
}

static void flipper_stop(void)
{
	atomic_store(&ar->stop, 1);
	if (shared) {
		while (waitpid(flipper_pid, NULL, 0) < 0 && errno == EINTR)
			;
	} else {
		pthread_join(flipper_tid, NULL);
	}
}

/* Flip @len bytes at @off between @a and @b (each @len bytes). */
void flip_set(size_t off, const void *a, const void *b, size_t len)
{
	atomic_store(&ar->run, 0);
	ar->off = off;
	ar->len = len;
	memcpy(ar->a, a, len);
	memcpy(ar->b, b, len);
	memcpy(ar->buf + off, a, len);
	atomic_store(&ar->run, 1);
}

/* Flip a path slot at @off between the strings @a and @b. */
void flip_paths(size_t off, const char *a, const char *b)
{
	char pa[SLOT], pb[SLOT];

	memset(pa, 0, sizeof(pa));
	memset(pb, 0, sizeof(pb));
	snprintf(pa, sizeof(pa), "%s", a);
	snprintf(pb, sizeof(pb), "%s", b);
	flip_set(off, pa, pb, SLOT);
}

char *wpath(const char *name)
{
	return xasprintf("%s/%s", W, name);
}

/* ------------------------------------------------------------------ */
/* what the host laid out, and what an attempt looks at */

struct stat hook0;	/* the read-only hook, as it started */

char *p_ok, *p_env, *p_hook, *p_sub_env, *p_tool, *p_env_dir;
char *p_host_stream, *p_host_dgram, *p_ok_stream, *p_ok_dgram;
char ok_text[64];	/* W/ok.txt's first bytes, not printed */
bool have_xattr;		/* the read-only file carries user.keep */

bool secret_fd(const char *name, int fd)
{
	char buf[96];
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	size_t i;

	if (n <= 0)
		return false;
	buf[n] = '\0';
	for (i = 0; i < (size_t)n; i++)
		if (buf[i] == '\n' || (unsigned char)buf[i] < ' ')
			buf[i] = '.';
	if (strcmp(buf, ok_text) != 0)
		printf("data %s %s\n", name, buf);
	return strncmp(buf, SECRET, strlen(SECRET)) == 0;
}

bool exists(const char *p)
{
	struct stat st;

	return lstat(p, &st) == 0;
}

/* Has the hook changed since the start (content, mode, times, owner)? */
bool hook_changed(void)
{
	struct stat st;

	if (stat(p_hook, &st) < 0)
		return true;
	return st.st_size != hook0.st_size || st.st_mode != hook0.st_mode ||
	       st.st_mtim.tv_sec != hook0.st_mtim.tv_sec ||
	       st.st_mtim.tv_nsec != hook0.st_mtim.tv_nsec ||
	       st.st_ctim.tv_sec != hook0.st_ctim.tv_sec ||
	       st.st_ctim.tv_nsec != hook0.st_ctim.tv_nsec;
}

void touch(const char *p)
{
	int fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);

	if (fd >= 0)
		close(fd);
}

char *slot(int k)
{
	return (char *)ar->buf + k * SLOT;
}

void unix_addr(struct sockaddr_un *sa, const char *path)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	snprintf(sa->sun_path, sizeof(sa->sun_path), "%s", path);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void run_case(const struct rcase *c)
{
	unsigned long tries = 0, okn = 0, won = 0;
	char *why = NULL;
	double end;
	bool exec_case = c->child_flips;

	current = c;
	/* an exec's child flips for itself when a thread must do it */
	if (exec_case && !shared)
		atomic_store(&ar->stop, 0);
	if (!c->setup(c, &why)) {
		printf("%s skip %s\n", c->name, why ? why : "");
		free(why);
		fflush(stdout);
		return;
	}
	if (!exec_case || shared)
		flipper_start();
	atomic_store(&ar->slow, 0);
	end = now_ms() + (double)run_ms;
	for (;;) {
		if (now_ms() >= end) {
			/*
			 * A race lost every time is not a race that ran both
			 * ways: on a slow machine (sanitizers, load) the
			 * flipper can change the bytes within every call.  Go
			 * on (at most 4 times as long) with a flipper that
			 * rests 0.1 ms in each state, still racing.  An exec's
			 * child flips through the same shared arena, so the
			 * exec cases rest too (under load a supervised exec
			 * takes tens of ms: a few tries, all refused), and go
			 * on longer: 11 tries in 4 times as long, all
			 * refused, were seen in a loaded make check.
			 */
			if (okn || won || c->racer ||
			    atomic_load(&ar->slow))
				break;
			atomic_store(&ar->slow, 1);
			end = now_ms() + (exec_case ? 20.0 : 4.0) *
					 (double)run_ms;
		}
		if (atomic_load(&ar->slow) && okn)
			break;
		switch (c->attempt(c)) {
		case TRY_OK:
			okn++;
			break;
		case TRY_WON:
			won++;
			break;
		case TRY_REFUSED:
		default:
			break;
		}
		tries++;
		fflush(stdout);
	}
	if (!exec_case || shared)
		flipper_stop();
	atomic_store(&ar->run, 0);
	printf("%s tries=%lu ok=%lu won=%lu\n", c->name, tries, okn, won);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	const struct rcase *c;
	int i = 1;
	size_t k;

	if (argc == 2 && strcmp(argv[1], "--marker") == 0) {
		printf("EXEC-MARKER\n");
		return MARKER_STATUS;
	}
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--shared") == 0)
			shared = true;
		else if (strcmp(argv[i], "--ms") == 0 && i + 1 < argc)
			run_ms = strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--ro") == 0 && i + 1 < argc)
			p_hook = xstrdup(argv[++i]);
		else if (strcmp(argv[i], "--denied") == 0 && i + 1 < argc)
			p_sub_env = xstrdup(argv[++i]);
		else
			break;
	}
	if (argc - i < 4) {
		fprintf(stderr, "usage: race_args [--shared] [--ms N] W HOST "
			"SECRET CASE...\n");
		return 2;
	}
	W = argv[i++];
	HOST = argv[i++];
	SECRET = argv[i++];
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	ar = mmap(NULL, sizeof(*ar), PROT_READ | PROT_WRITE,
		  (shared ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS, -1, 0);
	if (ar == MAP_FAILED) {
		perror("race_args: mmap");
		return 2;
	}
	p_ok = wpath("ok.txt");
	p_env = wpath(".env");
	if (!p_hook)
		p_hook = wpath(".git/hooks/pre-commit");
	if (!p_sub_env)
		p_sub_env = wpath("sub/.env");
	p_env_dir = wpath("e/.env");
	p_tool = wpath("keys/tool.pem");
	p_ok_stream = wpath("ok.sock");
	p_ok_dgram = wpath("ok.dgram");
	p_host_stream = xasprintf("%s/stream.sock", HOST);
	p_host_dgram = xasprintf("%s/dgram.sock", HOST);
	if (stat(p_hook, &hook0) < 0) {
		fprintf(stderr, "race_args: %s: %s\n", p_hook, strerror(errno));
		return 2;
	}
	have_xattr = getxattr(p_hook, "user.keep", ok_text, 1) >= 0;
	{
		int fd = open(p_ok, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd >= 0 ? read(fd, ok_text, sizeof(ok_text) - 1) : -1;
		size_t j;

		ok_text[n > 0 ? n : 0] = '\0';
		for (j = 0; ok_text[j]; j++)
			if ((unsigned char)ok_text[j] < ' ')
				ok_text[j] = '.';
		if (fd >= 0)
			close(fd);
	}
	for (; i < argc; i++) {
		for (k = 0; k < race_nfile_cases + race_nsocket_cases; k++) {
			c = k < race_nfile_cases ? &race_file_cases[k] :
			    &race_socket_cases[k - race_nfile_cases];
			if (strcmp(argv[i], c->name) == 0 ||
			    strcmp(argv[i], "all") == 0)
				run_case(c);
		}
	}
	return 0;
}
