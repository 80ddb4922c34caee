#!/bin/bash
# Guest side of scripts/dev-guest.sh: the two test hosts, then only the
# KUnit suites listed in $KDAPL_RUN/only ("<module> <suite>" per line).
set -u
. "$KDAPL_SRC/scripts/guest/lib.sh"

dev_guest_begin
# kdapl_rping needs userspace rping around it (lib.sh).
grep -v '^\(k[a-z]*_rping_test\|guest\) ' "$KDAPL_RUN/only" >/tmp/dev-only || true
run_kunit_suites /tmp/dev-only
if grep -q '^kdapl_rping_test' "$KDAPL_RUN/only"; then
	kdapl_rping_suites
fi
if grep -q '^kiwarp_rping_test' "$KDAPL_RUN/only"; then
	kiwarp_rping_suites
fi
# "guest:kiwarp_wire_user", "guest:kiwarp_unload_live": shell suites.
if grep -q '^guest kiwarp_wire_user' "$KDAPL_RUN/only"; then
	kiwarp_wire_user_suite
fi
if grep -q '^guest kiwarp_unload_live' "$KDAPL_RUN/only"; then
	kiwarp_unload_live_suite
fi
dev_guest_end
