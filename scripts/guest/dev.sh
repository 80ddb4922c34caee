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
loaded=
while read -r mod suite; do
	[ -n "$mod" ] || continue
	if [ "$mod" != "$loaded" ]; then
		[ -z "$loaded" ] || rmmod "$loaded"
		loaded=
		if ! insmod "$MODDIR/$mod.ko"; then
			echo "kdapl-guest: insmod $mod failed"
			continue
		fi
		loaded=$mod
	fi
	cat "/sys/kernel/debug/kunit/$suite/results" >>"$RESULTS"
done <"$KDAPL_RUN/only"
[ -z "$loaded" ] || rmmod "$loaded"
rmmod kiwarp
rmmod kdapl
sleep 6
echo scan >/sys/kernel/debug/kmemleak
guest_marker done
