// SPDX-License-Identifier: MIT
/*
 * libvbox_client.c - a user of the installed libvbox, built by
 * tests/packaging/install.sh with only "pkg-config --cflags --libs vbox".
 *
 *   libvbox_client [-t TARGET] [-D NAME=VALUE]... RULES... -- QUERY...
 *
 * Loads RULES, then prints one line per QUERY, in the members and order
 * of "vboxc explain --format=json" (query, allow, row, level, effect,
 * source) so the test can compare the two, or "QUERY\tinvalid" when
 * vbox_explain() returns -1.  Exit status: 0, 1 when a query was invalid,
 * 2 when the rules did not load.
 */
#include <stdio.h>
#include <string.h>

#include <vbox/vbox.h>

#define MAX_ARGS 64

int main(int argc, char **argv)
{
	const char *files[MAX_ARGS], *defines[MAX_ARGS], *target = NULL;
	size_t nfiles = 0, ndefines = 0;
	struct vbox_policy *p = NULL;
	struct vbox_decision d;
	int i, status = 0;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "-t") == 0 && i + 1 < argc)
			target = argv[++i];
		else if (strcmp(argv[i], "-D") == 0 && i + 1 < argc &&
			 ndefines < MAX_ARGS)
			defines[ndefines++] = argv[++i];
		else if (nfiles < MAX_ARGS)
			files[nfiles++] = argv[i];
	}
	if (vbox_policy_load(&p, target, files, nfiles, defines, ndefines,
			     stderr) != 0) {
		if (p != NULL)
			fprintf(stderr, "a failed load left a policy\n");
		return 2;
	}
	for (i++; i < argc; i++) {
		if (vbox_explain(p, argv[i], &d) != 0) {
			if (d.allow || d.row != -1 || d.effect || d.source)
				fprintf(stderr, "invalid query answered\n");
			printf("%s\tinvalid\n", argv[i]);
			status = 1;
			continue;
		}
		printf("%s\t%s\t%d\t%d\t%s\t%s\n", argv[i],
		       d.allow ? "true" : "false", d.row, d.level,
		       d.effect ? d.effect : "null",
		       d.source ? d.source : "null");
	}
	vbox_policy_free(p);
	printf("version %s\n", vbox_version());
	return status;
}
