/* SPDX-License-Identifier: MIT */
/*
 * execinterp.c - the interpreter a program names (execinterp.h), read
 * the way binfmt_script and binfmt_elf read it.
 */
#include <vbox.h>

#include <elf.h>
#include <limits.h>

#include "execinterp.h"

/* Exactly @len bytes at @off, or -1. */
static int read_all(execinterp_read_fn rd, void *ctx, uint64_t off,
		    void *buf, size_t len)
{
	long n = rd(ctx, off, buf, len);

	return n >= 0 && (size_t)n == len ? 0 : -1;
}

/* "#!": the first word after it, up to a blank or the line's end. */
static int script_interp(const char *head, size_t n, char **out)
{
	size_t i = 2, start;

	while (i < n && (head[i] == ' ' || head[i] == '\t'))
		i++;
	start = i;
	while (i < n && head[i] != ' ' && head[i] != '\t' &&
	       head[i] != '\n' && head[i] != '\0')
		i++;
	if (i == start)
		return 0;	/* "#!" alone: the kernel says ENOEXEC */
	*out = xstrndup(head + start, i - start);
	return 1;
}

static int elf_interp(execinterp_read_fn rd, void *ctx,
		      const unsigned char *head, size_t n, char **out)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	char *path;
	size_t i;

	if (n < sizeof(eh))
		return -1;
	memcpy(&eh, head, sizeof(eh));
	if (eh.e_ident[EI_CLASS] != ELFCLASS64)
		return -1;	/* only x86_64 programs run (i386: ENOSYS) */
	if (eh.e_phentsize != sizeof(ph) || eh.e_phnum > EXECINTERP_PHNUM_MAX)
		return -1;
	for (i = 0; i < eh.e_phnum; i++) {
		if (eh.e_phoff > UINT64_MAX - (uint64_t)(i + 1) * sizeof(ph))
			return -1;
		if (read_all(rd, ctx, eh.e_phoff + i * sizeof(ph), &ph,
			     sizeof(ph)))
			return -1;
		if (ph.p_type != PT_INTERP)
			continue;
		/* the kernel: at least 2 bytes, at most PATH_MAX, NUL last */
		if (ph.p_filesz < 2 || ph.p_filesz > PATH_MAX)
			return -1;
		path = xmalloc((size_t)ph.p_filesz);
		if (read_all(rd, ctx, ph.p_offset, path,
			     (size_t)ph.p_filesz) ||
		    path[ph.p_filesz - 1] != '\0' ||
		    strlen(path) + 1 != ph.p_filesz) {
			free(path);
			return -1;
		}
		*out = path;
		return 1;
	}
	return 0;
}

int execinterp_name(execinterp_read_fn rd, void *ctx, char **out,
		    int *script)
{
	unsigned char head[EXECINTERP_HEAD];
	long got;
	size_t n;

	*out = NULL;
	*script = 0;
	got = rd(ctx, 0, head, sizeof(head));
	if (got < 0 || (size_t)got > sizeof(head))
		return -1;
	n = (size_t)got;
	if (n >= 2 && head[0] == '#' && head[1] == '!') {
		*script = 1;
		return script_interp((const char *)head, n, out);
	}
	if (n >= 4 && memcmp(head, ELFMAG, SELFMAG) == 0)
		return elf_interp(rd, ctx, head, n, out);
	return 0;
}
