#!/bin/bash
# Guest side of `make stress` (scripts/stress.sh): the test hosts, then
# the stress suites at full length.
set -u
. "$KDAPL_SRC/scripts/guest/lib.sh"
. "$KDAPL_SRC/scripts/guest/stress.sh"

dev_guest_begin
STRESS_LEVEL=stress kdapl_stress_suite
dev_guest_end
