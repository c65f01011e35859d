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

/*
 * Every second input (by its first byte) has its size and checksum
 * fields made right before decoding, so mutations reach the sections
 * instead of dying at the checksum; the others test the checks.
 */
static int decode(const uint8_t *data, size_t size, struct plan *plan,
		  char **err)
{
	uint8_t *copy;
	uint32_t crc;
	uint64_t total = size;
	int i, ret;

	if (size < 32 || size > (1u << 20) || !(data[0] & 1) ||
	    memcmp(data + 1, "BOXPLAN", 7) != 0)
		return plan_decode(data, size, plan, err);
	copy = xmalloc(size);
	memcpy(copy, data, size);
	copy[0] = 'V';
	for (i = 0; i < 8; i++)
		copy[16 + i] = (uint8_t)(total >> (8 * i));
	memset(copy + 24, 0, 4);
	crc = crc32c(0, copy, size);
	for (i = 0; i < 4; i++)
		copy[24 + i] = (uint8_t)(crc >> (8 * i));
	ret = plan_decode(copy, size, plan, err);
	free(copy);
	return ret;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sandbox sa;
	struct wbuf out = { 0 };
	struct plan plan;
	char *err = NULL;

	if (decode(data, size, &plan, &err) < 0) {
		free(err);
		return 0;
	}
	if (plan.target == TARGET_LINUX &&
	    sandbox_build(&plan, "/nonexistent/vbox-fuzz/plan.bin", "/", true,
			  NULL, &sa, &err) == 0) {
		/* With and without a terminal (the init's /dev/console). */
		sandbox_split_init_mounts(&sa, size & 1 ? "/dev/pts/0" : NULL,
					  size & 2 ? "/dev/pts/0" : NULL);
		lx_render(&sa.lx, &out);
		wbuf_release(&out);
		sandbox_release(&sa);
	}
	free(err);
	plan_release(&plan);
	return 0;
}
