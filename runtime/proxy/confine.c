/* SPDX-License-Identifier: MIT */
/*
 * confine.c - the egress proxy process's walls (confine.h).
 */
#include <vbox.h>

#include <errno.h>
#include <stdio.h>
#include <sys/prctl.h>

#include "confine.h"
#include "walls/landlock.h"
#include "walls/seccomp.h"

int proxy_confine(char **err)
{
	const char *what = NULL;
	int abi;

	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
		*err = xasprintf("prctl(PR_SET_DUMPABLE): %s", strerror(errno));
		return -1;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		*err = xasprintf("prctl(PR_SET_NO_NEW_PRIVS): %s",
				 strerror(errno));
		return -1;
	}
	/* no writable path at all */
	abi = landlock_restrict(NULL, 0, &what);
	if (abi < 0) {
		*err = xasprintf("landlock: %s: %s", what, strerror(errno));
		return -1;
	}
	if (seccomp_prog_load(seccomp_bpf_proxy, seccomp_bpf_proxy_len,
			      NULL) != 0) {
		*err = xasprintf("seccomp: %s", strerror(errno));
		return -1;
	}
	return abi;
}
