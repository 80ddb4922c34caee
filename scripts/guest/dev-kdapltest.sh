#!/bin/bash
# Guest side of scripts/dev-kdapltest.sh: the two test hosts, kdapl.ko,
# then only suite kdapltest_interop (scripts/guest/kdapltest.sh).
set -u
. "$KDAPL_SRC/scripts/guest/lib.sh"
. "$KDAPL_SRC/scripts/guest/kdapltest.sh"

guest_marker "cpus=$(nproc)"
setup_test_hosts || echo "kdapl-guest: test hosts failed"
echo clear >/sys/kernel/debug/kmemleak
insmod "$MODDIR/kdapl.ko"
kdapltest_interop_suite
rmmod kdapl
sleep 6
echo scan >/sys/kernel/debug/kmemleak
guest_marker done
