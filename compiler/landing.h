/* SPDX-License-Identifier: MIT */
/*
 * landing.h - the words for how a row lands on a target (doc/targets.md,
 * "Landing"): the emitters classify, plan.bin stores the kind, and the
 * launcher, preflight and explain name it.  Below the emitters so that
 * the plan library and the launcher need nothing of theirs.
 */
#ifndef VBOX_LANDING_H
#define VBOX_LANDING_H

/**
 * enum landing_kind - how one entry is enforced on a target (doc/targets.md)
 * @LANDING_KERNEL: by the OS mechanism the artifact configures
 * @LANDING_LAUNCH: by the launcher instantiating it at launch time (e.g.
 *                  expanding a glob against the host file system)
 * @LANDING_PROXY: by the launcher's egress proxy
 * @LANDING_ABSORBED: needs nothing: dead, redundant, or an allow whose
 *                    omission only narrows the sandbox
 * @LANDING_RESERVED: an internal entry the launcher adds, not a user row
 * @LANDING_UNSUPPORTED: cannot be enforced faithfully: compile fails
 * @LANDING_SUPERVISED: by the launcher's supervisor judging each path
 *                      system call with the table's own matcher (linux:
 *                      deny and ro rows that mounts made at launch cannot
 *                      hold).  Last, so the values plan.bin stores for the
 *                      others stay what they were.
 */
enum landing_kind {
	LANDING_KERNEL,
	LANDING_LAUNCH,
	LANDING_PROXY,
	LANDING_ABSORBED,
	LANDING_RESERVED,
	LANDING_UNSUPPORTED,
	LANDING_SUPERVISED,
};

/* landing_kind_name - "kernel", "launch", "proxy", "absorbed", ... */
const char *landing_kind_name(enum landing_kind kind);

#endif /* VBOX_LANDING_H */
