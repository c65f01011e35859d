/* SPDX-License-Identifier: MIT */
/*
 * i386_entry.h - the i386 system call entry (int $0x80) from 64-bit
 * code, for the tests that check a 32-bit entry is refused as its 64-bit
 * twin is (test_walls.c, i386_call.c).
 *
 * The number goes in eax, the arguments in ebx, ecx and edx (zero here:
 * truncate64's length is ecx:edx), the result comes back in eax
 * (sign-extended here: the 32-bit ABI defines only the low half).  The
 * kernel's 32-bit entry saves r8-r11 as zero and returns them so (it
 * does not leak kernel values through registers a 32-bit task cannot
 * see): they are clobbered.  Where the kernel has no usable i386 entry
 * (no IA32_EMULATION, or ia32_emulation=0 on its command line), the
 * instruction raises SIGSEGV instead: i386_probe() finds out first.
 */
#ifndef VBOX_TESTS_I386_ENTRY_H
#define VBOX_TESTS_I386_ENTRY_H

#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* The call's raw result: a value, or -errno. */
static inline long i386_call(long nr, long a, long b)
{
	long r;

	__asm__ volatile("int $0x80"
			 : "=a"(r)
			 : "0"(nr), "b"(a), "c"(b), "d"(0L)
			 : "r8", "r9", "r10", "r11", "cc", "memory");
	return (int)r;
}

/*
 * Is the i386 entry usable?  Outside any filter, in a child whose
 * SIGSEGV is the kernel's default again, set with the raw system call
 * (the sanitizers' run-time installs a SIGSEGV handler of its own, which
 * would report the probe's crash and fail the run): 0 when int $0x80
 * answered, the signal that killed the child, or -1 when the probe
 * itself failed.
 */
static inline int i386_probe(void)
{
	struct {
		unsigned long handler, flags, restorer, mask;
	} dfl = { 0, 0, 0, 0 };	/* struct kernel_sigaction, SIG_DFL */
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (syscall(SYS_rt_sigaction, SIGSEGV, &dfl, NULL,
			    sizeof(dfl.mask)) < 0)
			_exit(250);
		i386_call(20 /* getpid */, 0, 0);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	if (WIFSIGNALED(status))
		return WTERMSIG(status);
	return WEXITSTATUS(status) == 0 ? 0 : -1;
}

#endif /* VBOX_TESTS_I386_ENTRY_H */
