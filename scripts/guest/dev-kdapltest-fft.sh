#!/bin/bash
# Guest side of `scripts/dev-kdapltest.sh fft`: the test hosts, kdapl.ko
# and kiwarp.ko with kw0..kw2, then only suite kdapltest_fft
# (scripts/guest/kdapltest.sh).
set -u
. "$KDAPL_SRC/scripts/guest/lib.sh"
. "$KDAPL_SRC/scripts/guest/kdapltest.sh"

guest_marker "cpus=$(nproc)"
setup_test_hosts || echo "kdapl-guest: test hosts failed"
setup_kiwarp_hosts || echo "kdapl-guest: kiwarp hosts failed"
echo clear >/sys/kernel/debug/kmemleak
insmod "$MODDIR/kdapl.ko"
insmod "$MODDIR/kiwarp.ko"
add_kiwarp_device || echo "kdapl-guest: rdma link add kw0..kw2 failed"
kdapltest_fft_suite
rmmod kiwarp
rmmod kdapl
sleep 6
echo scan >/sys/kernel/debug/kmemleak
guest_marker done
