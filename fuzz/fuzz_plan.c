/* SPDX-License-Identifier: MIT */
/*
 * fuzz_plan.c - libFuzzer target for what vbox-exec does with a plan.bin
 * before anything starts: the loader (plan_decode: the header, the
 * checksum, every section, the typed linux artifact) and, for a linux
 * plan it accepts, the launch-time instantiation (sandbox_build: the
 * refusals, launch rows made into mounts against the host file system
 * with bounded glob walks, the launcher's mounts, the kernel-state
 * mounts) and the rendering for bubblewrap.  Pipelines fetch and cache
 * plan files, so they are input like any other.
 *
 * Seeded by "make fuzz" with every plan vboxc compiles from testdata/ and
 * examples/ and with fuzz/plan-regressions/, where crashing inputs are
 * kept.  Nothing here writes to the host: placeholders are only listed.
 */
#include <vbox.h>

#include <stdarg.h>
#include <stdio.h>

#include "launch.h"
#include "linux_artifact.h"
#include "plan.h"
#include "sandbox.h"
#include "wire.h"

/* vbox-exec's diagnostics: the fuzzer keeps quiet. */
void vx_log(const char *fmt, ...)
{
	(void)fmt;
}

void vx_error(const char *fmt, ...)
{
	(void)fmt;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sandbox sa;
	struct wbuf out = { 0 };
	struct plan plan;
	char *err = NULL;

	if (plan_decode(data, size, &plan, &err) < 0) {
		free(err);
		return 0;
	}
	if (plan.target == TARGET_LINUX &&
	    sandbox_build(&plan, "/nonexistent/vbox-fuzz/plan.bin", "/", true,
			  &sa, &err) == 0) {
		lx_render(&sa.lx, &out);
		wbuf_release(&out);
		sandbox_release(&sa);
	}
	free(err);
	plan_release(&plan);
	return 0;
}
