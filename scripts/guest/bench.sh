#!/bin/bash
# Word splitting of $OURS, $SIW, $TCP, $common... into key=value words is
# intended throughout.
# shellcheck disable=SC2086,SC1091
# Guest side of `make bench` (scripts/bench.sh), topology (a), one guest:
# set up the test hosts, load kdapl, kiwarp and kdapl_bench, make the
# passive ends (responders, setup-test PSPs) from namespace b and run
# every measurement through
# /sys/kernel/debug/kdapl_bench/ctl. Raw figures ("<figure> <value>
# @<round>", one line per measured run) go to $KDAPL_RUN/out/bench.raw;
# the host turns them into the table, bench.json and the plot.
#
# $KDAPL_RUN/bench.conf may set REPS, MS, WARM_MS, ROUNDS, WARM_ROUNDS,
# SETUPS, SIZES, LAT_SIZES, SCALE_*, SWEEP_* , CONS_*, ONLY (quick
# runs).
set -u
. "$KDAPL_SRC/scripts/guest/lib.sh"
. "$KDAPL_SRC/scripts/guest/bench-lib.sh"
. "$KDAPL_SRC/scripts/guest/nvme.sh"
. "$KDAPL_SRC/scripts/guest/nfs.sh"
. "$KDAPL_SRC/scripts/guest/consumer-bench.sh"

REPS=10			# rounds: measured runs per figure, interleaved
MS=1000			# duration of one throughput run
WARM_MS=250		# its warm-up, on the same connection
ROUNDS=5000		# ping-pong round trips per run
WARM_ROUNDS=1000	# warm-up round trips
SETUPS=20		# connections per setup-rate run
SIZES="4096 65536 1048576"
LAT_SIZES="64 4096"
SCALE_CONNS="1 2 4 8"
SCALE_SIZE=4096
SCALE_WORK=500		# us of upcall work per event (scale.<mode>_work)
SCALE_WORK_CONNS="1 8"
DEPTH=16
SWEEP_REPS=5		# rounds of the sweeps
SWEEP_SIZES="64 256 1024 16384 262144"
SWEEP_DEPTHS="1 4 16 64"
SWEEP_CONNS="1 2 4 8"
SWEEP_SIGNALS="1 4 16"	# every n-th request signaled
[ -r "$KDAPL_RUN/bench.conf" ] && . "$KDAPL_RUN/bench.conf"

RAW=$OUT/bench.raw
CTL=/sys/kernel/debug/kdapl_bench/ctl
: >"$RAW"

# The stacks: ours (kw1 -> kw2), siw (siwA -> siwB), kernel TCP on the
# path kiwarp uses (veth4 -> veth5), RoCE (rxeA, both ends on the one
# device: see setup_rxe_host). Data tests go to a responder (OURS, SIW,
# RXE, TCP); the DAT setup tests drive both ends (OURS_SETUP, SIW_SETUP).
OURS="ia_a=kw1 addr=$KW2_ADDR port=7011"
SIW="ia_a=siwA addr=$HOST_B_ADDR port=7012"
RXE="ia_a=rxeA addr=$RXE_ADDR port=7013"
TCP="addr=$KW2_ADDR port=7003"
OURS_SETUP="ia_a=kw1 ia_b=kw2 addr=$KW2_ADDR port=7001"
SIW_SETUP="ia_a=siwA ia_b=siwB addr=$HOST_B_ADDR port=7002"
SCONN_PORT=7004
VERBS_PORT=7005
RXE_VERBS_PORT=7015
VERBS="ia_a=kw1 ia_b=kw2 addr=$KW2_ADDR port=$VERBS_PORT"

# In namespace b without a new mount namespace (debugfs stays visible):
# siw listens in the namespace of the task that calls rdma_listen.
in_b() {
	nsenter --net=/run/netns/b sh -c "echo '$*' >$CTL" ||
		echo "kdapl-bench: failed in b: $*"
}

# The responders create their ends' EVDs on CPU 0 (kdapl's follow
# placement binds an EVD and its CQ's vector to the creating CPU), as the
# verbs test's passive CQ is on vector 0.
serve_all() {
	in_b "respond ia=kw2 port=7011 cpu=0"
	in_b "respond ia=siwB port=7012 cpu=0"
	echo "respond ia=rxeA port=7013 cpu=0" >"$CTL" ||
		echo "kdapl-bench: failed: respond ia=rxeA"
	in_b "respond tcp port=7003"
	in_b "serve ia=kw2 port=7001"
	in_b "serve ia=siwB port=7002"
	in_b "serve tcp port=7006"	# its namespace, for sconn
}

load_stack() {
	insmod "$MODDIR/kdapl.ko" "$@" &&
	insmod "$MODDIR/kdapl_bench.ko"
}

unload_stack() {
	echo unrespond >"$CTL" && sed 's/^/# /' "$CTL" >>"$RAW"
	echo unserve >"$CTL"
	rmmod kdapl_bench
	rmmod kdapl
}

guest_marker "cpus=$(nproc) kernel=$(uname -r)"
echo "# cpus $(nproc)" >>"$RAW"
echo "# clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)" >>"$RAW"
setup_test_hosts || echo "kdapl-bench: test hosts failed"
setup_kiwarp_hosts || echo "kdapl-bench: kiwarp hosts failed"
setup_rxe_host || echo "kdapl-bench: rxe host failed"
# shellcheck disable=SC2086 # KIWARP_ARGS: words from bench.conf
insmod "$MODDIR/kiwarp.ko" ${KIWARP_ARGS:-}
for p in fpdu_segs zcopy_min mpa_crc; do
	echo "# kiwarp $p $(cat "/sys/module/kiwarp/parameters/$p")"
done >>"$RAW"
add_kiwarp_device || echo "kdapl-bench: rdma link add kw0..kw2 failed"
load_stack || echo "kdapl-bench: loading kdapl/kdapl_bench failed"
# What the emulation charges for a lock section, an atomic, a clock read
# (bench/calib.c): the scale for CPU figures that count them. Every run.
echo "calib rounds=100000 tag=calib" >"$CTL" && sed 's/^/# /' "$CTL" >>"$RAW"
serve_all

# Every comparison is interleaved (bench-lib.sh): one measured run of each
# stack per round, REPS rounds, so a ratio pairs runs taken seconds apart.
common="ms=$MS warm=$WARM_MS depth=$DEPTH"
for s in $SIZES; do
	c="$common size=$s"
	cmds=("dat test=write $OURS $c tag=ours.write.$s"
		"dat test=write $SIW $c tag=siw.write.$s"
		"tcp test=stream $TCP $c tag=tcp.stream.$s"
		"dat test=read $OURS $c tag=ours.read.$s"
		"dat test=read $SIW $c tag=siw.read.$s"
		"dat test=send $OURS $c tag=ours.send.$s"
		"dat test=send $SIW $c tag=siw.send.$s")
	# kdapl's EVDs with kiwarp's CQ handlers where the completion is
	# produced (the default, kdapl producer_cq=1) against handlers on
	# the vector's CPU; then both with the active end's EVDs on CPU 1,
	# the responder's on CPU 0 (sendx: the ends on two CPUs, forced)
	[ "$s" != 4096 ] ||
		cmds+=("kdapl producer_cq=0 dat test=send $OURS $c tag=ours.sendv.$s"
			"dat test=send $OURS $c cpu=1 tag=ours.sendx.$s"
			"kdapl producer_cq=0 dat test=send $OURS $c cpu=1 tag=ours.sendxv.$s")
	interleave "${cmds[@]}"
done
for s in $LAT_SIZES; do
	lat="rounds=$ROUNDS warm=$WARM_ROUNDS size=$s"
	# RoCE too: the DAT layer's cost over a second transport
	# DAT and raw verbs with both ends on CPU 0 (EVDs created there,
	# CQs on vector 0), and with the ends on two CPUs
	interleave "dat test=lat $OURS $lat cpu=0 tag=ours.lat.$s" \
		"dat test=lat $OURS $lat cpu=1 tag=ours.datx.lat.$s" \
		"verbs test=lat $VERBS vec_a=0 vec_b=0 $lat tag=ours.verbs.lat.$s" \
		"verbs test=lat $VERBS vec_a=0 vec_b=1 $lat tag=ours.verbsx.lat.$s" \
		"tcp test=lat $TCP $lat tag=tcp.lat.$s" \
		"dat test=lat $SIW $lat cpu=0 tag=siw.lat.$s" \
		"dat test=lat $RXE $lat cpu=0 tag=rxe.lat.$s" \
		"verbs test=lat ia_a=rxeA ia_b=rxeA addr=$RXE_ADDR port=$RXE_VERBS_PORT $lat tag=rxe.verbs.lat.$s"
done
setup="rounds=$SETUPS"
interleave "dat test=conn $OURS_SETUP $setup tag=ours.conn" \
	"dat test=sconn ia_a=kw1 ia_b=kw2 addr=$KW2_ADDR port=$SCONN_PORT $setup tag=ours.sconn" \
	"dat test=conn $SIW_SETUP $setup tag=siw.conn" \
	"tcp test=conn $TCP $setup tag=tcp.conn"

# Sweeps, fewer rounds: message size (ours' WRITE against the TCP stream),
# queue depth and connections at once (ours' 64 KiB WRITE).
sweep() {
	local REPS=$SWEEP_REPS

	interleave "$@"
}
for s in $SWEEP_SIZES; do
	sweep "dat test=write $OURS $common size=$s tag=ours.write.$s" \
		"tcp test=stream $TCP $common size=$s tag=tcp.stream.$s"
done
cmds=()
for d in $SWEEP_DEPTHS; do
	cmds+=("dat test=write $OURS ms=$MS warm=$WARM_MS depth=$d size=65536 tag=sweep.depth.$d")
done
sweep "${cmds[@]}"
cmds=()
for n in $SWEEP_CONNS; do
	cmds+=("dat test=write $OURS $common size=65536 conns=$n tag=sweep.conns.$n")
done
sweep "${cmds[@]}"
# Selective signaling: ours' DAT WRITE 4 KiB at depth 16, and the 64 B
# ping-pong through DAT and raw verbs (both verbs ends signal every n-th).
cmds=()
for n in $SWEEP_SIGNALS; do
	lat="rounds=$ROUNDS warm=$WARM_ROUNDS size=64 signal=$n"
	cmds+=("dat test=write $OURS $common size=4096 signal=$n tag=sweep.signal.write.$n"
		"dat test=lat $OURS $lat cpu=0 tag=sweep.signal.lat.$n"
		"verbs test=lat $VERBS vec_a=0 vec_b=0 $lat tag=sweep.signal.verbs.$n")
done
sweep "${cmds[@]}"

# Completion scaling: kdapl's default follow placement on all CPUs (on),
# the seed's strict spreading (spread: kdapl placement=spread), then one
# CPU (off: kdapl cpus=0); runs of three module loads, rounds paired by
# number. Every EP's EVDs are created by the command, on one CPU: follow
# mode must spread their processing by load. The <mode>_work runs give
# every event SCALE_WORK us of processing in the upcall: the busy EVDs
# the dispatch exists for (without it the transport bounds the figure).
scale() {	# scale on|spread|off
	local n
	local -a cmds=()

	for n in $SCALE_CONNS; do
		cmds+=("dat test=write $OURS $common size=$SCALE_SIZE conns=$n tag=scale.$1.$n")
	done
	for n in $SCALE_WORK_CONNS; do
		cmds+=("dat test=write $OURS $common size=$SCALE_SIZE conns=$n work=$SCALE_WORK tag=scale.$1_work.$n")
	done
	interleave "${cmds[@]}"
}
scale on
unload_stack
load_stack placement=spread ||
	echo "kdapl-bench: reloading kdapl placement=spread failed"
serve_all
scale spread
unload_stack
load_stack cpus=0 || echo "kdapl-bench: reloading kdapl cpus=0 failed"
serve_all
scale off
# The ping-pong with every EVD on CPU 0, the CPU of vector 0, where the
# verbs test's CQs are: the DAT layer at the verbs test's placement,
# against verbs runs of the same rounds.
for s in $LAT_SIZES; do
	lat="rounds=$ROUNDS warm=$WARM_ROUNDS size=$s"
	interleave "dat test=lat $OURS $lat tag=ours1cpu.lat.$s" \
		"verbs test=lat $VERBS vec_a=0 vec_b=0 $lat tag=ours1cpu.verbs.lat.$s"
done
unload_stack
# The kernel's storage consumers over kiwarp, siw, rxe and TCP
# (consumer-bench.sh)
consumer_bench_a
rmmod kiwarp
guest_marker "done"
