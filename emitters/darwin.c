/* SPDX-License-Identifier: MIT */
/*
 * darwin.c - the darwin target: one Seatbelt (SBPL) profile for
 * sandbox-exec.  This file writes the profile and defines
 * emitter_darwin; darwin_classify.c decides where rows land and
 * darwin_forms.c spells their patterns (darwin.h).  The exact profile
 * shape, and why each base allowance is there, is documented in
 * doc/targets.md ("darwin").
 *
 * Seatbelt keeps rules per operation: a check of a specific operation
 * (file-write-data) tries the rules written for it, the last written
 * first, and only then falls through to its wildcard ancestors
 * (file-write*, file*, default); a rule without a filter is its
 * operation's default.  So within every operation the base allowances
 * and the defaults come first and the rows follow from the lowest
 * priority to the highest: the row that decides in the table (doc/rules.md §3)
 * is the last rule that matches.  The base section names two specific
 * operations (file-write-data and file-ioctl, for devices), so every
 * write rule below it names them too, next to file-write*: otherwise the
 * base allowance would decide on its own list before the row's rule is
 * consulted.  doc/darwin.md explains the model.
 */
#include <vbox.h>

#include <stdio.h>

#include "darwin.h"
#include "diag.h"
#include "emit.h"
#include "ir.h"
#include "sbpl.h"
#include "table_text.h"
#include "target.h"

/* Operations a file row grants or takes away, as SBPL writes them. */
#define OPS_READ "file-read* file-map-executable process-exec"
/*
 * Writes: the wildcard and the specific operations the base section
 * allows on devices, so that every operation's list holds the rows in
 * the same order above the base allowances.
 */
#define OPS_WRITE "file-write* file-write-data file-ioctl"
/* Ancestors of ro and deny rows: no rename, removal, creation, change. */
#define OPS_GUARD OPS_WRITE

/*
 * A base allowance: why (comment lines, separated by newlines) and the
 * rule.  Base allowances come before every row, so a row naming the same
 * thing overrides them.
 */
struct base_rule {
	const char *why;
	const char *rule;
};

static const struct base_rule base_process[] = {
	{ "run programs and create processes; children inherit this profile",
	  "(allow process-exec process-fork)" },
	{ "signals only to itself and its children (the same sandbox)",
	  "(allow signal (target same-sandbox))" },
	{ "process information only about itself and its children",
	  "(allow process-info* (target same-sandbox))" },
	{ "sysctls libc and language runtimes read: the hardware and CPU\n"
	  "features (CPU count, page size), OS version, limits, boot time,\n"
	  "load average, and whether Rosetta translates the process",
	  "(allow sysctl-read\n"
	  "    (sysctl-name-prefix \"hw.\")\n"
	  "    (sysctl-name-prefix \"machdep.cpu.\")\n"
	  "    (sysctl-name \"kern.argmax\")\n"
	  "    (sysctl-name \"kern.boottime\")\n"
	  "    (sysctl-name \"kern.hostname\")\n"
	  "    (sysctl-name \"kern.maxfiles\")\n"
	  "    (sysctl-name \"kern.maxfilesperproc\")\n"
	  "    (sysctl-name \"kern.maxproc\")\n"
	  "    (sysctl-name \"kern.ngroups\")\n"
	  "    (sysctl-name \"kern.osproductversion\")\n"
	  "    (sysctl-name \"kern.osrelease\")\n"
	  "    (sysctl-name \"kern.ostype\")\n"
	  "    (sysctl-name \"kern.osvariant_status\")\n"
	  "    (sysctl-name \"kern.osversion\")\n"
	  "    (sysctl-name \"kern.secure_kernel\")\n"
	  "    (sysctl-name \"kern.usrstack64\")\n"
	  "    (sysctl-name \"kern.version\")\n"
	  "    (sysctl-name \"sysctl.proc_translated\")\n"
	  "    (sysctl-name \"vm.loadavg\"))" },
	{ "mach services libc uses",
	  "(allow mach-lookup\n"
	  "    ;; user and group lookups: getpwuid(3), getgrnam(3)\n"
	  "    (global-name \"com.apple.system.opendirectoryd.libinfo\")\n"
	  "    ;; group membership: getgrouplist(3), initgroups(3)\n"
	  "    (global-name \"com.apple.system.opendirectoryd.membership\")\n"
	  "    ;; syslog(3) and os_log\n"
	  "    (global-name \"com.apple.system.logger\")\n"
	  "    (global-name \"com.apple.logd\")\n"
	  "    ;; notify(3): libc learns of time zone changes through it\n"
	  "    (global-name \"com.apple.system.notification_center\")\n"
	  "    ;; the per-user temporary directory: confstr(3)\n"
	  "    (global-name \"com.apple.bsd.dirhelper\")\n"
	  "    ;; certificate checks of TLS clients (the proxy never "
	  "terminates TLS)\n"
	  "    (global-name \"com.apple.trustd.agent\"))" },
	{ "notify(3) reads its state from one shared memory page",
	  "(allow ipc-posix-shm-read-data ipc-posix-shm-read-metadata\n"
	  "    (ipc-posix-name \"apple.shm.notification_center\"))" },
	{ "creating a socket grants nothing: connections are checked below",
	  "(allow system-socket)" },
	{ "pseudo-terminals, for programs that drive a terminal (script, "
	  "expect)",
	  "(allow pseudo-tty)" },
};

static const struct base_rule base_devices[] = {
	{ "output discarded to /dev/null or /dev/zero",
	  "(allow file-write-data file-ioctl\n"
	  "    (literal \"/dev/null\")\n"
	  "    (literal \"/dev/zero\"))" },
	{ "entropy: every TLS library and hash table seed reads it",
	  "(allow file-read*\n"
	  "    (literal \"/dev/random\")\n"
	  "    (literal \"/dev/urandom\"))" },
	{ "the controlling terminal and pseudo-terminals",
	  "(allow file-write-data file-ioctl\n"
	  "    (literal \"/dev/tty\")\n"
	  "    (literal \"/dev/ptmx\")\n"
	  "    (regex \"^/dev/ttys[0-9]+$\"))" },
	{ "descriptors the process already holds, reopened by name",
	  "(allow file-write-data\n"
	  "    (literal \"/dev/stdout\")\n"
	  "    (literal \"/dev/stderr\")\n"
	  "    (regex \"^/dev/fd/[0-9]+$\"))" },
};

static void write_base(FILE *out, const struct base_rule *rules, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const char *why = rules[i].why, *nl;

		while ((nl = strchr(why, '\n'))) {
			char *line = xstrndup(why, (size_t)(nl - why));

			sbpl_write_comment(out, line);
			free(line);
			why = nl + 1;
		}
		sbpl_write_comment(out, why);
		fprintf(out, "%s\n", rules[i].rule);
	}
}

static void write_section(FILE *out, const char *title)
{
	fprintf(out, "\n;; ---- %s ----\n", title);
}

/* "(ACTION OPS" and one filter a line, then ")". */
static void write_rule(FILE *out, const char *action, const char *ops,
		       const struct sbpl_filter *filters, size_t n)
{
	size_t i;

	/* Pieces, not fprintf(): a million-row profile has millions. */
	fputc('(', out);
	fputs(action, out);
	fputc(' ', out);
	fputs(ops, out);
	for (i = 0; i < n; i++) {
		fputs("\n    ", out);
		sbpl_filter_write(out, &filters[i]);
	}
	fputs(")\n", out);
}

/*
 * ";; row N, level L: " and the row as row_text() spells it, written as
 * it goes: a million rows each made and freed two strings for it.  Only
 * the target can hold a byte the comment must escape.
 */
static void write_row_comment(FILE *out, const struct row *row)
{
	const char *target = row->domain == DOMAIN_FS ? row->fs.text :
							row->net.text;
	unsigned i;

	fprintf(out, ";; row %u, level %u: ", row->index, row->level);
	for (i = 0; i < row->level; i++)
		fputc('!', out);
	fputs(effect_name(row->effect), out);
	fputc(':', out);
	sbpl_write_comment_text(out, target);
	fputc('\n', out);
}

static void write_fs_row(FILE *out, const struct row *row,
			 const struct fs_plan *plan)
{
	write_row_comment(out, row);
	switch (row->effect) {
	case EFFECT_DENY:
		write_rule(out, "deny", OPS_READ " " OPS_WRITE, plan->filters,
			   plan->nfilters);
		break;
	case EFFECT_RO:
		write_rule(out, "allow", OPS_READ, plan->filters,
			   plan->nfilters);
		write_rule(out, "deny", OPS_WRITE, plan->filters,
			   plan->nfilters);
		break;
	case EFFECT_RW:
		write_rule(out, "allow", OPS_READ " " OPS_WRITE, plan->filters,
			   plan->nfilters);
		break;
	case EFFECT_ALLOW:
	default:
		BUG("file row with effect %d", row->effect);
	}
}

/*
 * Rows that land in the kernel, from the lowest priority to the highest;
 * every other landing writes nothing.  An unsupported entry means the
 * caller skipped emit_classify()'s verdict: refuse rather than write a
 * profile wider than the table.
 */
static int check_landing(const struct landing *l, struct diag_list *diags)
{
	char *text;
	int ret;

	if (l->kind != LANDING_UNSUPPORTED)
		return 0;
	text = row_text(l->row);
	ret = diag_error(diags, &l->row->loc,
			 "row %u '%s' is unsupported on darwin: %s",
			 l->row->index, text, l->reason ? l->reason : "");
	free(text);
	return ret;
}

static void write_fs(FILE *out, const struct table *table,
		     const struct landing_set *landing)
{
	bool guards = false;
	struct fs_plan plan;
	size_t i;

	write_section(out, "files: defaults");
	sbpl_write_comment(out, "reads that match no row are allowed (running "
			   "programs is a base allowance)");
	fputs("(allow file-read* file-map-executable)\n", out);
	if (table->default_write == EFFECT_RW) {
		sbpl_write_comment(out, "@default write rw: writes that match "
				   "no row are allowed");
		fputs("(allow " OPS_WRITE ")\n", out);
	} else {
		sbpl_write_comment(out, "@default write deny: (deny default) "
				   "denies writes that match no row");
	}
	sbpl_write_comment(out, "devices every program uses, below every row: "
			   "each write rule below");
	sbpl_write_comment(out, "names file-write-data and file-ioctl too, so "
			   "a row naming a device overrides these");
	write_base(out, base_devices, array_size(base_devices));

	write_section(out, "file rows, lowest priority first (per operation, "
		      "the last matching rule wins)");
	for (i = table->fs.n; i-- > 0;) {
		const struct row *row = table->fs.prio[i];

		if (landing->fs[row->index].kind != LANDING_KERNEL)
			continue;
		darwin_fs_plan_build(table, row, FS_PLAN_FILTERS, &plan);
		/* Classified as fitting: a bound that lied would show here. */
		if (plan.longest > SBPL_MAX_STRING)
			BUG("row %u: a filter of %zu bytes in a kernel landing",
			    row->index, plan.longest);
		write_fs_row(out, row, &plan);
		if (plan.guarded)
			guards = true;
		darwin_fs_plan_free(&plan);
	}
	if (!guards)
		return;

	/*
	 * Above every row: a rename must not carry a protected path away,
	 * and an absent ancestor must not be created as a link to elsewhere
	 * or by renaming a prepared directory onto it.
	 */
	write_section(out, "ancestors of read-only and denied paths: not "
		      "renamed, removed, created or changed");
	for (i = table->fs.n; i-- > 0;) {
		const struct row *row = table->fs.prio[i];

		if (landing->fs[row->index].kind != LANDING_KERNEL ||
		    !darwin_row_guarded(row))
			continue;
		darwin_fs_plan_build(table, row, FS_PLAN_GUARDS, &plan);
		if (plan.nguards) {
			write_row_comment(out, row);
			write_rule(out, "deny", OPS_GUARD, plan.guards,
				   plan.nguards);
		}
		darwin_fs_plan_free(&plan);
	}
}

static void write_net_row(FILE *out, const struct row *row)
{
	write_row_comment(out, row);
	fprintf(out, "(%s network-outbound (remote ip \"localhost:",
		row->effect == EFFECT_ALLOW ? "allow" : "deny");
	if (row->net.any_port)
		fputc('*', out);
	else
		fprintf(out, "%u", row->net.port);
	fputs("\"))\n", out);
}

/*
 * Comments only: the whole network table as vbox-exec's egress proxy
 * judges it, so that a row landing in the proxy changes the profile
 * too and a golden-diffed profile shows every network change
 * (doc/reviewing.md).
 */
static void write_proxy_block(FILE *out, const struct table *table,
			      const struct landing_set *landing)
{
	write_section(out, "network table (comments: vbox-exec's egress "
		      "proxy judges each connection by it)");
	/* A write error stays on @out: darwin_emit_profile() checks it. */
	(void)table_text_write(table, landing, TABLE_TEXT_NET, ";; ", out);
}

static void write_net(FILE *out, const struct table *table,
		      const struct landing_set *landing)
{
	size_t i;

	if (darwin_net_open(table)) {
		write_section(out, "network: @default net open");
		sbpl_write_comment(out, "connections that match no row are "
				   "allowed");
		fputs("(allow network*)\n", out);
		sbpl_write_comment(out, "name resolution: DNS configuration "
				   "and mDNSResponder");
		fputs("(allow mach-lookup\n"
		      "    (global-name "
		      "\"com.apple.SystemConfiguration.DNSConfiguration\")\n"
		      "    (global-name \"com.apple.dnssd.service\"))\n", out);
	} else {
		write_section(out, "network: @default net deny");
		sbpl_write_comment(out, "no connection, not even to a unix "
				   "socket, unless a rule below allows it");
		fputs("(deny network-outbound)\n", out);
		sbpl_write_comment(out, "listening on loopback grants no "
				   "outbound connection");
		fputs("(allow network-bind network-inbound "
		      "(local ip \"localhost:*\"))\n", out);
	}
	sbpl_write_comment(out, "loopback rows, lowest priority first");
	for (i = table->net.n; i-- > 0;) {
		const struct row *row = table->net.prio[i];

		if (landing->net[row->index].kind == LANDING_KERNEL)
			write_net_row(out, row);
	}
	write_proxy_block(out, table, landing);
	if (!landing->nreserved)
		return;
	write_section(out, "reserved: the launcher's proxy, above every row");
	sbpl_write_comment(out, "ports filled in at launch: sandbox-exec "
			   "-D NAME=PORT for each parameter");
	for (i = 0; i < landing->nreserved; i++) {
		const char *param =
			darwin_reserved_param(landing->reserved[i].entry);

		sbpl_write_comment(out, landing->reserved[i].entry);
		fprintf(out, "(allow network-outbound (remote ip "
			"(string-append \"localhost:\" (param \"%s\"))))\n",
			param);
	}
}

static int darwin_emit_profile(const struct table *table,
			       const struct landing_set *landing, FILE *out,
			       struct diag_list *diags)
{
	int ret = 0;
	size_t i;

	for (i = 0; i < landing->nfs; i++)
		if (check_landing(&landing->fs[i], diags))
			ret = -1;
	for (i = 0; i < landing->nnet; i++)
		if (check_landing(&landing->net[i], diags))
			ret = -1;
	if (ret)
		return ret;

	sbpl_write_comment(out, "Seatbelt profile written by vboxc for "
			   "target darwin; do not edit.");
	sbpl_write_comment(out, "Layout and reasons: doc/targets.md. Run "
			   "with sandbox-exec -f FILE.");
	fputs("(version 1)\n", out);
	sbpl_write_comment(out, "everything not allowed below is denied");
	fputs("(deny default)\n", out);
	write_section(out, "base allowances (below every row)");
	write_base(out, base_process, array_size(base_process));
	write_fs(out, table, landing);
	write_net(out, table, landing);
	if (ferror(out))
		return diag_error(diags, NULL, "cannot write the SBPL profile");
	return 0;
}

const struct emitter emitter_darwin = {
	.id = TARGET_DARWIN,
	.name = TARGET_DARWIN_NAME,
	.profile_ext = "sb",
	.check_table = darwin_check_table,
	.classify = darwin_classify,
	.index_use = EMIT_INDEX_NONE,
	.emit_profile = darwin_emit_profile,
};
