/* SPDX-License-Identifier: MIT */
/*
 * fuzz_winplan.c - libFuzzer target for what the windows launcher
 * (runtime/windows/) reads from outside: the first byte picks
 *   0  its JSON reader (wjson_parse)
 *   1  the ACL plan (aclplan_load), the rest being the artifact of a
 *      fixed windows plan whose rows are "rw:C:\work\**" and
 *      "!deny:C:\work\secret"; an accepted one is also printed
 *   2  the reconciliation state file (sstate_parse), formatted again
 *   3  a command line split as CommandLineToArgvW does, quoted again
 * Seeds: fuzz/seeds/winplan/ (the golden windows artifacts, states,
 * command lines).
 */
#include <vbox.h>

#include "aclplan.h"
#include "bbuf.h"
#include "cmdline.h"
#include "ir.h"
#include "plan.h"
#include "state.h"
#include "wjson.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_aclplan(const uint8_t *data, size_t size)
{
	struct plan_row rows[2] = {
		{ .index = 0, .prio = 1, .effect = EFFECT_RW, .level = 0,
		  .landing = 0, .target = (char *)"/c/work/**",
		  .source = (char *)"f:1:1" },
		{ .index = 1, .prio = 0, .effect = EFFECT_DENY, .level = 1,
		  .landing = 0, .target = (char *)"/c/work/secret",
		  .source = (char *)"f:2:1" },
	};
	struct plan plan = { 0 };
	struct aclplan ap;
	struct bbuf out;
	char *err = NULL;

	plan.target = TARGET_WINDOWS;
	plan.default_write = EFFECT_DENY;
	plan.default_net = EFFECT_ALLOW;
	plan.fs = rows;
	plan.nfs = 2;
	plan.artifact = xmalloc(size + 1);
	memcpy(plan.artifact, data, size);
	plan.artifact[size] = '\0';
	plan.artifact_len = size;
	if (aclplan_load(&plan, &ap, &err) == 0) {
		bbuf_init_heap(&out, 1u << 20);
		aclplan_print(&ap, &out);
		bbuf_free(&out);
		aclplan_release(&ap);
	}
	free(err);
	free(plan.artifact);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wjson v;
	struct sstate s;
	char *err = NULL, *text, **argv, *line;
	size_t n, argc;

	if (size < 1)
		return 0;
	switch (data[0] & 3) {
	case 0:
		if (wjson_parse((const char *)data + 1, size - 1, &v, &err) == 0)
			wjson_free(&v);
		break;
	case 1:
		fuzz_aclplan(data + 1, size - 1);
		break;
	case 2:
		if (sstate_parse((const char *)data + 1, size - 1, &s, &err) ==
		    0) {
			free(sstate_format(&s, &n));
			sstate_free(&s);
		}
		break;
	default:
		text = xstrndup((const char *)data + 1, size - 1);
		argv = cmdline_split(text, &argc);
		line = argv[0][0] && !strchr(argv[0], '"') ?
			       cmdline_quote(argv, &err) :
			       NULL;
		free(line);
		cmdline_free(argv);
		free(text);
		break;
	}
	free(err);
	return 0;
}
