/* SPDX-License-Identifier: MIT */
/*
 * fuzz_pathcall.c - libFuzzer target for the supervisor's decoding of a
 * supervised path call (runtime/supervisor/paths/pathcall.c): the very code
 * vbox-exec runs on a notified open, openat2, mkdir, link, rename,
 * symlink, unlink or execve, fed arbitrary bytes as the seccomp_data and
 * as the child's memory, through a reader like the supervisor's (there
 * process_vm_readv()).  No system call is made.
 *
 * Input: byte 0 picks the call (and architecture), then six 64-bit
 * arguments (little-endian); the rest is the child's memory, mapped at
 * MEM_BASE (a read outside it is EFAULT, as for the child).  A decoded
 * call is checked against the bounds pathcall.h promises, and every
 * string is read whole (ASan sees a short allocation).
 *
 * Each decoded path, made absolute, is also taken through path_lexical()
 * (runtime/supervisor/childpath.h), the name judged where a resolution
 * met no link: the result is one absolute path with no empty, "." or
 * ".." name and no trailing slash, no longer than its input, and its own
 * lexical form.
 *
 * Seeds: fuzz/seeds/pathcall/ (an open, an openat2 with its struct, a
 * rename, a symlink, an unlinkat, an execveat with AT_EMPTY_PATH).
 */
#include <vbox.h>

#include <errno.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <sys/syscall.h>

#include "child_mem.h"
#include "supervisor/childpath.h"
#include "supervisor/paths/execinterp.h"
#include "supervisor/paths/pathcall.h"

#define HEAD (1 + 6 * 8)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct {
	uint32_t arch;
	int nr;
} calls[] = {
	{ AUDIT_ARCH_X86_64, __NR_open },
	{ AUDIT_ARCH_X86_64, __NR_openat },
	{ AUDIT_ARCH_X86_64, __NR_openat2 },
	{ AUDIT_ARCH_X86_64, __NR_creat },
	{ AUDIT_ARCH_X86_64, __NR_mkdirat },
	{ AUDIT_ARCH_X86_64, __NR_mknodat },
	{ AUDIT_ARCH_X86_64, __NR_symlinkat },
	{ AUDIT_ARCH_X86_64, __NR_linkat },
	{ AUDIT_ARCH_X86_64, __NR_unlinkat },
	{ AUDIT_ARCH_X86_64, __NR_renameat2 },
	{ AUDIT_ARCH_X86_64, __NR_execve },
	{ AUDIT_ARCH_X86_64, __NR_execveat },
	{ AUDIT_ARCH_X86_64, __NR_rmdir },
	{ AUDIT_ARCH_X86_64, 0x40000000 | __NR_openat },	/* x32 */
	{ AUDIT_ARCH_I386, 5 },				/* i386 open */
};

/* execinterp_read_fn over the input: short at its end, as a file. */
static long read_file(void *ctx, uint64_t off, void *buf, size_t len)
{
	const struct child_mem *f = ctx;

	if (off > f->len)
		return 0;
	if (len > f->len - off)
		len = f->len - (size_t)off;
	memcpy(buf, f->p + off, len);
	return (long)len;
}

static size_t touch(const char *s)
{
	size_t n = strlen(s);

	if (n >= PATH_MAX)
		BUG("a path of %zu bytes", n);
	return n;
}

/* path_lexical() of "/" @path: clean, no longer, a fixed point. */
static void check_lexical(const char *path)
{
	char *abs = xasprintf("/%s", path), *lex = path_lexical(abs), *again;
	const char *p, *end;
	size_t n = strlen(lex);

	if (lex[0] != '/' || n > strlen(abs) ||
	    (n > 1 && lex[n - 1] == '/'))
		BUG("path_lexical('%s') = '%s'", abs, lex);
	for (p = lex + 1; n > 1 && p <= lex + n; p = end + 1) {
		end = strchr(p, '/');
		if (!end)
			end = lex + n;
		if (end == p || (end - p == 1 && p[0] == '.') ||
		    (end - p == 2 && p[0] == '.' && p[1] == '.'))
			BUG("path_lexical('%s') = '%s': a name left", abs,
			    lex);
	}
	again = path_lexical(lex);
	if (strcmp(again, lex) != 0)
		BUG("path_lexical('%s') = '%s', not a fixed point", lex,
		    again);
	free(again);
	free(lex);
	free(abs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct seccomp_data d;
	struct pathcall pc;
	struct child_mem m;
	size_t i;
	uint64_t a;
	int rc;

	if (size >= 1 && (data[0] & 0x80)) {
		struct child_mem f = { data + 1, size - 1 };
		char *interp;
		int script;

		rc = execinterp_name(read_file, &f, &interp, &script);
		if (rc == 1 && (!interp || !interp[0] ||
				strlen(interp) > PATH_MAX))
			BUG("an interpreter name out of bounds");
		if (rc != 1 && interp)
			BUG("a name left behind");
		free(interp);
		return 0;
	}
	if (size < HEAD)
		return 0;
	memset(&d, 0, sizeof(d));
	d.arch = calls[data[0] % array_size(calls)].arch;
	d.nr = calls[data[0] % array_size(calls)].nr;
	for (i = 0; i < 6; i++) {
		memcpy(&a, data + 1 + 8 * i, sizeof(a));
		d.args[i] = a;
	}
	m.p = data + HEAD;
	m.len = size - HEAD;
	if (pathcall_is(&d) != (d.arch == AUDIT_ARCH_X86_64 &&
				!(d.nr & 0x40000000)))
		BUG("pathcall_is disagrees on call %d", d.nr);
	rc = pathcall_decode(&d, child_mem_read, &m, &pc);
	if (rc) {
		if (pc.path[0] || pc.path[1] || pc.target)
			BUG("an error left strings behind");
		return 0;
	}
	if (!pc.path[0])
		BUG("a decoded call without its path");
	touch(pc.path[0]);
	check_lexical(pc.path[0]);
	if ((pc.op == PATHCALL_LINK || pc.op == PATHCALL_RENAME) !=
	    (pc.path[1] != NULL))
		BUG("a second path where none belongs, or none");
	if (pc.path[1])
		touch(pc.path[1]);
	if ((pc.op == PATHCALL_SYMLINK) != (pc.target != NULL))
		BUG("a link's contents where none belongs, or none");
	if (pc.target)
		touch(pc.target);
	if (pc.op == PATHCALL_OPEN && (pc.flags >> 32))
		BUG("open flags past 32 bits");
	pathcall_release(&pc);
	return 0;
}
