#!/bin/bash
# Word splitting of $OURS, $TCP, $common... into key=value words is
# intended throughout.
# shellcheck disable=SC2086,SC1091
# Guest side of `make bench`, topology (b): two guests, one vCPU each,
# joined by a virtual wire (scripts/run-guest-pair.sh). b is the passive
# end: kiwarp device kwB on eth0, kdapl_bench's DAT responder on it and
# its TCP responder. a measures, as topology (a) does, DAT over kiwarp
# (kwA) and kernel TCP on the same wire, interleaved round by round;
# every figure goes to a's $OUT/bench.raw named "pair.<figure>"
# (tools/bench reads the two topologies from one file). Costs are a's
# only (b's CPU serves the responders).
#
# Then the storage consumers (consumer-bench.sh): NVMe-oF and NFS over
# kiwarp against NVMe/TCP and NFS over TCP, b serving, a measuring.
#
# $KDAPL_RUN/bench.conf may set REPS, MS, WARM_MS, ROUNDS, WARM_ROUNDS,
# SIZES, LAT_SIZES, DEPTH, CONS_* (scripts/bench.sh writes it for
# --quick).
set -u
. "$KDAPL_SRC/scripts/guest/lib.sh"
. "$KDAPL_SRC/scripts/guest/pair-lib.sh"
. "$KDAPL_SRC/scripts/guest/bench-lib.sh"
. "$KDAPL_SRC/scripts/guest/nvme.sh"
. "$KDAPL_SRC/scripts/guest/nfs.sh"
. "$KDAPL_SRC/scripts/guest/consumer-bench.sh"

REPS=10			# rounds, as topology (a)
MS=1000
WARM_MS=250
ROUNDS=5000
WARM_ROUNDS=1000
SIZES="4096 65536 1048576"
# A 4 KiB ping-pong across the wire stalled for its 60 s time-out with
# kernel TCP and with kDAPL alike while the wire was a host TCP socket
# (first full run, 2026-11-26), which held the tails of bursts; on the
# UNIX-socket wire (run-guest-pair.sh) it runs (2026-11-27, 10 rounds).
LAT_SIZES="64 4096"
DEPTH=16
[ -r "$KDAPL_RUN/bench.conf" ] && . "$KDAPL_RUN/bench.conf"

CTL=/sys/kernel/debug/kdapl_bench/ctl
RAW=$OUT/bench.raw

# KIWARP_ARGS: from bench.conf (scripts/bench.sh: KDAPL_FPDU_SEGS,
# KDAPL_ZCOPY_MIN), as on topology (a)
pb_modules() {
	insmod "$MODDIR/kdapl.ko" &&
	# shellcheck disable=SC2086 # words
	insmod "$MODDIR/kiwarp.ko" ${KIWARP_ARGS:-} &&
	insmod "$MODDIR/kdapl_bench.ko"
}

pb_side_a() {
	local OURS="ia_a=kwA addr=$PAIR_B_ADDR port=7011"
	local TCP="addr=$PAIR_B_ADDR port=7003"
	local common="ms=$MS warm=$WARM_MS depth=$DEPTH" s c lat

	: >"$RAW"
	echo "# pair cpus $(nproc) kernel $(uname -r) clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)" >>"$RAW"
	pair_wire_up "$PAIR_A_ADDR" && pb_modules &&
	rdma link add kwA type kiwarp netdev eth0 ||
		{ echo "# failed: side a setup" >>"$RAW"; return 1; }
	echo "# kiwarp fpdu_segs $(cat /sys/module/kiwarp/parameters/fpdu_segs) zcopy_min $(cat /sys/module/kiwarp/parameters/zcopy_min)" >>"$RAW"
	pair_wait b-ready 300 && pair_ping "$PAIR_B_ADDR" ||
		{ echo "# failed: no side b" >>"$RAW"; return 1; }
	# interleaved as in topology (a) (bench-lib.sh)
	for s in $SIZES; do
		c="$common size=$s"
		interleave "dat test=write $OURS $c tag=pair.ours.write.$s" \
			"tcp test=stream $TCP $c tag=pair.tcp.stream.$s" \
			"dat test=read $OURS $c tag=pair.ours.read.$s" \
			"dat test=send $OURS $c tag=pair.ours.send.$s"
	done
	for s in $LAT_SIZES; do
		lat="rounds=$ROUNDS warm=$WARM_ROUNDS size=$s"
		interleave "dat test=lat $OURS $lat tag=pair.ours.lat.$s" \
			"tcp test=lat $TCP $lat tag=pair.tcp.lat.$s"
	done
	consumer_bench_b_measure
	pair_post a-done
}

pb_side_b() {
	pair_wire_up "$PAIR_B_ADDR" && pb_modules &&
	rdma link add kwB type kiwarp netdev eth0 &&
	echo "respond ia=kwB port=7011" >"$CTL" &&
	echo "respond tcp port=7003" >"$CTL" || { pair_post abort; return 1; }
	consumer_bench_b_serve
	pair_post b-ready
	pair_wait a-done 3000
	consumer_bench_b_stop
	echo unrespond >"$CTL" && cat "$CTL"
}

guest_marker "cpus=$(nproc)"
echo "kdapl-bench: pair side $ROLE, $(nproc) CPUs, kernel $(uname -r)"
case "$ROLE" in
a) pb_side_a || pair_post abort ;;
b) pb_side_b ;;
*) echo "kdapl-bench: no role" ;;
esac
rmmod kdapl_bench
rdma link delete kwA 2>/dev/null
rdma link delete kwB 2>/dev/null
rmmod kdapl
rmmod kiwarp
guest_marker "done"
