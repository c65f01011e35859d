/* SPDX-License-Identifier: MIT */
/*
 * walls.h - the walls of the Linux sandbox, from vbox-exec to the init.
 *
 * vbox-exec (walls_prepare, walls.c) decides and builds everything: the
 * seccomp programs, the Landlock paths, whether a socket supervisor is
 * needed, and writes them into one sealed memfd, attached to CH_SETUP
 * (role CH_FD_WALLS).  vbox-init (walls_apply, walls_apply.c) applies
 * them in the command's process, right before the exec:
 *
 *   no_new_privs; Landlock (when the kernel has it); one seccomp filter
 *   (seccomp.h): the deny filter, or the supervised filter, whose
 *   listener fd number CH_STARTED carries (CH_A_LISTENER); vbox-exec
 *   takes it with pidfd_getfd() and answers CH_LISTENER_TAKEN before the
 *   command's process closes it and execs.
 *
 * The blob's layout (native endianness, all u32):
 *   "VBXW" VERSION FLAGS FILTER_LEN NPATHS PATHS_LEN NPINS PINS_LEN
 *   NRULES RULES_LEN ABI_MAX ZERO,
 *   then FILTER_LEN bytes of BPF, then PATHS_LEN
 *   bytes of NPATHS NUL-terminated paths (Landlock's), then PINS_LEN
 *   bytes of NPINS pins (u64 dev, u64 ino, NUL-terminated mount point:
 *   runtime/linux/pin.h), which the init checks first, then RULES_LEN
 *   bytes of NRULES container-mode rules (u64 rights, u32 optional,
 *   NUL-terminated path: landlock.h's struct landlock_rule).  ABI_MAX
 *   caps the Landlock ABI (0: none; the test suite's cap).
 */
#ifndef VBOX_WALLS_WALLS_H
#define VBOX_WALLS_WALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lx_artifact;

#define WALLS_VERSION 4
#define WALLS_MAGIC 0x57584256u	/* "VBXW" */
#define WALLS_BLOB_MAX (4u << 20)
#define WALLS_PATHS_MAX 4096

/* The blob's head (see above). */
struct walls_blob_head {
	uint32_t magic;
	uint32_t version;
	uint32_t flags;
	uint32_t filter_len;
	uint32_t npaths;
	uint32_t paths_len;
	uint32_t npins;
	uint32_t pins_len;
	uint32_t nrules;
	uint32_t rules_len;
	uint32_t abi_max;
	uint32_t zero;
};

/* A container-mode rule in the blob, before its NUL-terminated path. */
struct walls_rule_head {
	uint64_t rights;
	uint32_t optional;
	uint32_t zero;
};

/* A pin in the blob: u64 dev, u64 ino, then the NUL-terminated path. */
struct walls_pin_head {
	uint64_t dev;
	uint64_t ino;
};
/* Flags of the blob. */
#define WALLS_NOTIFY (1u << 0)		/* the filter has a listener */
#define WALLS_LANDLOCK (1u << 1)	/* apply Landlock */
#define WALLS_CONTAINER (1u << 2)	/* container mode: the rules, or fail */
#define WALLS_NEWER (1u << 3)		/* calls from 451 on: ENOSYS first */
#define WALLS_NO_CORE (1u << 4)		/* no core dump (RLIMIT_CORE 0) */

/**
 * struct walls - what vbox-exec prepared, for the launch and --log
 * @fd: the sealed memfd for the init (-1 when closed)
 * @landlock_abi: the Landlock ABI the init will use (0: none)
 * @notify: a socket supervisor runs (the supervised filter is loaded)
 * @pathname_open: pathname sockets unrestricted (net open)
 * @refuse_abstract: the supervisor refuses abstract addresses
 * @bind_only: the supervisor sees bind() alone (net open, Landlock's
 *             abstract scope covers connecting)
 * @no_unix: no user notification: AF_UNIX socket() is refused
 * @container: container mode (the whole ruleset, the container filter)
 * @paths: supervised paths: the filter hands the path calls over too
 * @paths_writes: of them only those that can write (WALLS_PATHS_WRITES)
 * @nwritable: Landlock's writable paths (container mode: its rules)
 */
struct walls {
	int fd;
	int landlock_abi;
	bool notify;
	bool pathname_open;
	bool refuse_abstract;
	bool bind_only;
	bool no_unix;
	bool container;
	bool paths;
	bool paths_writes;
	size_t nwritable;
};

/*
 * Which path calls the filter hands over: none (no row lands
 * supervised), all of them, or those that can write (every supervised
 * row is `ro`: plan_supervised_ro_only(); seccomp.c says which).
 */
enum walls_paths {
	WALLS_PATHS_NONE,
	WALLS_PATHS_ALL,
	WALLS_PATHS_WRITES,
};

/*
 * walls_prepare - build the walls for sandbox @lx (instantiated, with
 * the plan's mounts); @net_open is "@default net open"; @paths: which
 * path calls are handed over too (the plan has rows that land
 * supervised unless WALLS_PATHS_NONE).
 * 0, or -1 with *@err naming what failed.
 */
struct pin;
int walls_prepare(const struct lx_artifact *lx, bool net_open,
		  enum walls_paths paths,
		  const struct pin *pins, size_t npins, struct walls *w,
		  char **err);

/*
 * walls_prepare_container - the walls of container mode: the Landlock
 * ruleset of @cr (container_rules.h) with ABI at most @abi (the probed
 * or capped ABI, > 0), and the container filter (seccomp.h), whose
 * listener the supervisor takes.  @net_open: "@default net open";
 * @no_getfd: the filter for a supervisor without pidfd_getfd(); @paths:
 * supervised paths (every path call handed over; no core dump).
 * 0, or -1 with *@err.
 */
struct container_rules;
int walls_prepare_container(const struct container_rules *cr, bool net_open,
			    int abi, bool no_getfd, bool paths,
			    struct walls *w, char **err);
void walls_release(struct walls *w);

/*
 * walls_apply - in the sandbox, in the process about to exec the command:
 * read the blob from @fd and apply it.  *@listener is the notify
 * listener (-1 when none).  0, or -1 with errno and *@what naming the
 * step; *@abi gets the Landlock ABI applied.
 */
int walls_apply(int fd, int *listener, int *abi, const char **what);

#endif /* VBOX_WALLS_WALLS_H */
