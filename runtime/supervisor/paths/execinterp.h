/* SPDX-License-Identifier: MIT */
/*
 * execinterp.h - the interpreter a program names, as the kernel will
 * load it on execve(): a script's "#!" line, an ELF program's PT_INTERP.
 * The supervisor judges it too (pathcall_run.c), since the kernel opens
 * it without a call the filter sees.  Pure: the file is read through a
 * callback, every size is bounded, and it is fuzzed (fuzz_pathcall.c).
 */
#ifndef VBOX_SUPERVISOR_EXECINTERP_H
#define VBOX_SUPERVISOR_EXECINTERP_H

#include <stddef.h>
#include <stdint.h>

/* The kernel reads this much of a file to tell its format (binfmt). */
#define EXECINTERP_HEAD 256
/* The most program headers (the kernel reads at most 64 KiB of them). */
#define EXECINTERP_PHNUM_MAX (65536 / 56)

/*
 * execinterp_read_fn - up to @len bytes at offset @off of the program
 * into @buf: the number read (fewer at the end of the file), or -1.
 */
typedef long (*execinterp_read_fn)(void *ctx, uint64_t off, void *buf,
				   size_t len);

/*
 * execinterp_name - the interpreter of the program read through @rd:
 * 1 with *@out (caller frees; a path, as the kernel takes it: absolute,
 * or relative to the working directory for "#!"), *@script set for a
 * "#!" line (whose interpreter may be a script again); 0 when it names
 * none (a static ELF program, another format); -1 when it cannot be
 * read or is malformed where the kernel would look (the caller
 * refuses).
 */
int execinterp_name(execinterp_read_fn rd, void *ctx, char **out,
		    int *script);

#endif /* VBOX_SUPERVISOR_EXECINTERP_H */
