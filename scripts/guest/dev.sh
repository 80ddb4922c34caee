#!/bin/bash
# Guest side of scripts/dev-guest.sh: the two test hosts, then only the
# KUnit suites listed in $KDAPL_RUN/only ("<module> <suite>" per line).
set -u
. "$KDAPL_SRC/scripts/guest/lib.sh"

guest_marker "cpus=$(nproc)"
setup_test_hosts || echo "kdapl-guest: test hosts failed"
setup_kiwarp_hosts || echo "kdapl-guest: kiwarp hosts failed"
echo clear >/sys/kernel/debug/kmemleak
insmod "$MODDIR/kdapl.ko"
insmod "$MODDIR/kiwarp.ko"
add_kiwarp_device || echo "kdapl-guest: rdma link add kw0..kw2 failed"
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
grep -q '^kiwarp ' /proc/modules && rmmod kiwarp
rmmod kdapl
sleep 6
echo scan >/sys/kernel/debug/kmemleak
guest_marker done
