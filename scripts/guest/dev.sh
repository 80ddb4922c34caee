#!/bin/bash
# Guest side of scripts/dev-guest.sh: the two test hosts, then only the
# KUnit suites listed in $KDAPL_RUN/only ("<module> <suite>" per line).
set -u
. "$KDAPL_SRC/scripts/guest/lib.sh"

guest_marker "cpus=$(nproc)"
setup_test_hosts || echo "kdapl-guest: test hosts failed"
echo clear >/sys/kernel/debug/kmemleak
insmod "$MODDIR/kdapl.ko"
insmod "$MODDIR/kiwarp.ko"
while read -r mod suite; do
	[ -n "$mod" ] || continue
	if ! insmod "$MODDIR/$mod.ko"; then
		echo "kdapl-guest: insmod $mod failed"
		continue
	fi
	cat "/sys/kernel/debug/kunit/$suite/results" >>"$RESULTS"
	rmmod "$mod"
done <"$KDAPL_RUN/only"
rmmod kiwarp
rmmod kdapl
sleep 6
echo scan >/sys/kernel/debug/kmemleak
guest_marker done
