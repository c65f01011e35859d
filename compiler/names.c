/* SPDX-License-Identifier: MIT */
/*
 * names.c - the words for the IR's enums (ir.h, landing.h), shared by the
 * compiler, the plan library and vbox-exec, so --log and explain say
 * the same thing.
 */
#include <vbox.h>

#include "ir.h"
#include "landing.h"

const char *effect_name(enum effect effect)
{
	switch (effect) {
	case EFFECT_DENY:
		return "deny";
	case EFFECT_RO:
		return "ro";
	case EFFECT_RW:
		return "rw";
	case EFFECT_ALLOW:
		return "allow";
	default:
		BUG("bad effect %d", effect);
	}
}

const char *domain_name(enum domain domain)
{
	switch (domain) {
	case DOMAIN_FS:
		return "fs";
	case DOMAIN_NET:
		return "net";
	default:
		BUG("bad domain %d", domain);
	}
}

const char *finding_kind_name(enum finding_kind kind)
{
	switch (kind) {
	case FINDING_INEFFECTIVE:
		return "ineffective";
	case FINDING_DEAD:
		return "dead";
	case FINDING_PARTIAL:
		return "partial";
	default:
		BUG("bad finding kind %d", kind);
	}
}

const char *landing_kind_name(enum landing_kind kind)
{
	switch (kind) {
	case LANDING_KERNEL:
		return "kernel";
	case LANDING_LAUNCH:
		return "launch";
	case LANDING_PROXY:
		return "proxy";
	case LANDING_ABSORBED:
		return "absorbed";
	case LANDING_RESERVED:
		return "reserved";
	case LANDING_UNSUPPORTED:
		return "unsupported";
	case LANDING_SUPERVISED:
		return "supervised";
	default:
		BUG("bad landing kind %d", kind);
	}
}
