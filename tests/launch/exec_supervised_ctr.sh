#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/launch/exec_supervised_ctr.sh - exec_supervised.sh in container mode
# (issue 31; doc/launcher.md, "The path supervisor in container mode"):
# the same workspace plan, the same calls by number, the same indirect
# ways and races, under --mode=container, where no mount holds anything
# and the path supervisor judges every path call by the table and the
# mount list read as a map.  As root and as uid 65534, judged from the
# host side, with the same verdicts as namespace mode.
VBOX_SUP_MODE=container
export VBOX_SUP_MODE
exec sh "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/launch/exec_supervised.sh"
