#!/bin/bash
# Developer loop for the kiwarp RNIC (not part of `make check`): the
# test hosts, kw0, then the kiwarp verbs and interop KUnit suites, then
# unload.
#   scripts/run-guest.sh <ktree> build/guest-kiwarp scripts/guest/dev-kiwarp.sh
set -u
. "$KDAPL_SRC/scripts/guest/lib.sh"

guest_marker "cpus=$(nproc)"
setup_test_hosts || echo "kiwarp-dev: setup_test_hosts failed"
setup_kiwarp_hosts || echo "kiwarp-dev: setup_kiwarp_hosts failed"
insmod "$MODDIR/kdapl.ko"
insmod "$MODDIR/kiwarp.ko"
add_kiwarp_device || echo "kiwarp-dev: rdma link add failed"
rdma link show
show_debugfs kiwarp
kiwarp_device_suite
grep '^kiwarp_\(verbs\|interop\|wire\)' "$KDAPL_SRC/kunit/SUITES" | while read -r mod suite; do
	insmod "$MODDIR/$mod.ko" || { echo "insmod $mod failed"; continue; }
	cat "/sys/kernel/debug/kunit/$suite/results" >>"$RESULTS"
	rmmod "$mod"
done
cat /sys/kernel/debug/kiwarp/kw0/qps
rmmod kiwarp
rmmod kdapl
rdma link show
sleep 6
echo scan >/sys/kernel/debug/kmemleak
guest_marker done
