#!/bin/bash
# Guest side of `make stress` (scripts/stress.sh): the test hosts, then
# the stress suites at full length (or short, kdguest.stress=check).
set -u
. "$KDAPL_SRC/scripts/guest/lib.sh"
. "$KDAPL_SRC/scripts/guest/stress.sh"

# kdguest.stress=check (make stress STRESS_LEVEL=check): the short form;
# kdguest.stress_only=<case>[,<case>...] (through KDAPL_APPEND, for
# development): only those cases, the others reported skipped
level=stress
read -r -a args </proc/cmdline
for arg in "${args[@]}"; do
	case "$arg" in
	kdguest.stress=check) level=check ;;
	kdguest.stress_only=*) export STRESS_ONLY=${arg#*=} ;;
	esac
done

dev_guest_begin
STRESS_LEVEL=$level kdapl_stress_suite
dev_guest_end
