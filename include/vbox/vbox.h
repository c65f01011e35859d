/* SPDX-License-Identifier: MIT */
/*
 * <vbox/vbox.h> - libvbox, the vbox policy compiler as a library.
 *
 * Load ordered sandbox rule files (the language of vbox.rules(5)) for one
 * target, and ask what the compiled table decides, exactly as
 * "vboxc explain" answers: "may this process read or write PATH, connect
 * to HOST:PORT?".  Pure: answering never touches the host.
 *
 * Build with:   cc prog.c $(pkg-config --cflags --libs vbox)
 * Manual page:  vbox(3).
 *
 * Interface rules:
 * - A loaded policy is read-only: several threads may call vbox_explain()
 *   on one policy at once.  vbox_policy_load() reads the rule files and
 *   the environment (variables, the home directory through a cached
 *   passwd lookup) and must not run in two threads at the same time.
 * - Strings in a struct vbox_decision are owned by the policy and stay
 *   valid until vbox_policy_free().
 * - Only the symbols declared here are exported; their ABI is versioned
 *   (SONAME libvbox.so.0, symbol version VBOX_0).
 */
#ifndef VBOX_PUBLIC_VBOX_H
#define VBOX_PUBLIC_VBOX_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An opaque, compiled and analysed policy table. */
struct vbox_policy;

/**
 * struct vbox_decision - the answer to one query
 * @allow: 1 when the operation is allowed, 0 when it is denied
 * @row: 0-based index of the deciding row in its domain's table (file
 *       rows and network rows are numbered separately, in the assembled
 *       order of the rule files), or -1 when the default decided
 * @level: the deciding row's level (number of '!'); 0 for a default
 * @effect: the deciding row's effect, "deny", "ro", "rw" or "allow";
 *          NULL for a default decision
 * @source: where the deciding row was written, "FILE:LINE:COL"; NULL for
 *          a default decision
 */
struct vbox_decision {
	int allow;
	int row;
	int level;
	const char *effect;
	const char *source;
};

/**
 * vbox_policy_load() - read, check and compile rule files
 * @out: receives the new policy on success, NULL on failure
 * @target: "linux", "darwin" or "windows" (matching rules and variable
 *          expansion follow that target), or NULL for the host platform
 * @files: paths of the rule files, in order ("-" reads standard input);
 *         '@include "FILE"' is resolved next to the including file and
 *         '@include <NAME>' in the installed rule library
 * @nfiles: number of @files (at least 1)
 * @defines: "NAME=VALUE" strings for pattern variables, as vboxc -D;
 *           may be NULL when @ndefines is 0
 * @ndefines: number of @defines
 * @diagnostics: where errors, warnings and notes are printed, in the
 *               format of vboxc ("FILE:LINE:COL: error: ..." with the
 *               source line and a caret), or NULL for silence
 *
 * Return: 0 on success; -1 when the arguments or the rules are invalid,
 * with the reasons printed to @diagnostics.  Warnings (shadowed rows) do
 * not fail a load.  Free the policy with vbox_policy_free().
 */
int vbox_policy_load(struct vbox_policy **out, const char *target,
		     const char *const files[], size_t nfiles,
		     const char *const defines[], size_t ndefines,
		     FILE *diagnostics);

/**
 * vbox_explain() - decide one query against a policy
 * @p: the policy
 * @query: "read PATH", "write PATH" or "net HOST[:PORT]", as in a
 *         vboxc --queries file (PATH absolute; HOST a name, an IPv4
 *         address or a bracketed IPv6 address; no port means any port)
 * @out: receives the decision
 *
 * Return: 0 with *@out filled, or -1 when an argument or the query is
 * invalid (*@out is then cleared: deny, row -1).
 */
int vbox_explain(const struct vbox_policy *p, const char *query,
		 struct vbox_decision *out);

/**
 * vbox_policy_free() - release a policy and every string its decisions
 * point to; NULL is allowed
 * @p: the policy
 */
void vbox_policy_free(struct vbox_policy *p);

/**
 * vbox_version() - the library's version, e.g. "0.1.0" (static string)
 */
const char *vbox_version(void);

#ifdef __cplusplus
}
#endif

#endif /* VBOX_PUBLIC_VBOX_H */
