/* SPDX-License-Identifier: MIT */
/*
 * landlock.h - the sandbox's second file wall (doc/launcher.md "Walls").
 *
 * Applied by the sandbox's init to itself right before the command runs,
 * with raw syscalls: every write-like access is handled, and allowed
 * only beneath the writable regions the launcher names (the plan's
 * writable roots, the devices, the private /tmp).  Reading and executing
 * stay with the mounts.  ABI 6 and later also scope abstract unix
 * sockets and signals to the sandbox.
 */
#ifndef VBOX_WALLS_LANDLOCK_H
#define VBOX_WALLS_LANDLOCK_H

/* The kernel's Landlock ABI version, 0 when it has none. */
int landlock_abi(void);

/*
 * Restrict the calling thread (and what it execs) so that writes succeed
 * only beneath @paths[0..@n).  A path that does not exist in the sandbox
 * is skipped (nothing can be written there).  no_new_privs must be set.
 * Returns the ABI used (> 0), 0 when the kernel has no Landlock (not an
 * error), or -1 with errno and *@what naming the failing step.
 */
int landlock_restrict(const char *const *paths, unsigned n, const char **what);

/*
 * Restrict the calling thread to reading the files @files[0..@n) (a
 * missing one is skipped): every file access the ABI knows is handled,
 * nothing else is read, listed, written or executed; binding a TCP port
 * is handled with none allowed (ABI 4); abstract unix sockets and
 * signals are scoped (ABI 6).  A rule holds the file (its inode, links
 * followed), not its name.  Returns as landlock_restrict().  vbox-proxy
 * confines itself with it (runtime/proxy/confine.c).
 */
int landlock_restrict_read_only(const char *const *files, unsigned n,
				const char **what);

/**
 * struct landlock_rule - one rule of a whole ruleset (container mode)
 * @path: where it applies (absolute)
 * @rights: the filesystem rights granted beneath it (Landlock's bits;
 *          those the kernel's ABI does not know are left out)
 * @optional: skipped when @path is gone or is a symbolic link; any other
 *            rule's path must be there without a link on its way
 */
struct landlock_rule {
	const char *path;
	unsigned long long rights;
	int optional;
};

/*
 * Restrict the calling thread to exactly @rules[0..@n): every
 * filesystem right the ABI knows is handled (reading too), TCP bind and
 * connect are handled with no port allowed (ABI 4: the child's own
 * inet connects and binds are made by the socket supervisor, outside
 * the ruleset), abstract unix sockets and signals are scoped (ABI 6).
 * @abi_max caps the ABI used (0: none).  Container mode needs it: a
 * kernel without Landlock is an error (ENOSYS).  Returns the ABI used,
 * or -1 with errno and *@what.  Async-signal-safe.
 */
int landlock_restrict_rules(const struct landlock_rule *rules, unsigned n,
			    int abi_max, const char **what);

/*
 * landlock_scope_signals - a domain that restricts nothing but signals:
 * the calling thread (and what it starts) may then signal only processes
 * of its own domain or of domains nested below it, and those below it
 * cannot signal it (nor trace it: Landlock's ptrace rule).  Container
 * mode's init guards the tree in one (runtime/init/init.c).  0, or -1
 * with errno (EOPNOTSUPP below ABI 6) and *@what.  Async-signal-safe.
 */
int landlock_scope_signals(const char **what);

#endif /* VBOX_WALLS_LANDLOCK_H */
