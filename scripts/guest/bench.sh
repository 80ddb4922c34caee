#!/bin/bash
# Word splitting of $OURS, $SIW, $TCP, $common... into key=value words is
# intended throughout.
# shellcheck disable=SC2086,SC1091
# Guest side of `make bench` (scripts/bench.sh), topology (a), one guest:
# set up the test hosts, load kdapl, kiwarp and kdapl_bench, make the
# passive ends (responders, setup-test PSPs) from namespace b and run
# every measurement through
# /sys/kernel/debug/kdapl_bench/ctl. Raw figures ("<figure> <value>",
# one line per measured run) go to $KDAPL_RUN/out/bench.raw; the host
# turns them into the table, bench.json and the plot.
#
# $KDAPL_RUN/bench.conf may set REPS, MS, ROUNDS, SETUPS, SIZES,
# SEND_SIZES, LAT_SIZES, SCALE_CONNS, ONLY (quick runs on the debug kernel).
set -u
. "$KDAPL_SRC/scripts/guest/lib.sh"
. "$KDAPL_SRC/scripts/guest/bench-lib.sh"

REPS=5			# measured runs per figure, after one warm-up run
MS=1000			# duration of one throughput run
ROUNDS=10000		# ping-pong round trips per run
SETUPS=20		# connections per setup-rate run
SIZES="4096 65536 1048576"
SEND_SIZES="4096 65536 1048576"
LAT_SIZES="64 4096"
SCALE_CONNS="1 2 4"
SCALE_SIZE=4096
DEPTH=16
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

# In namespace b without a new mount namespace (debugfs stays visible):
# siw listens in the namespace of the task that calls rdma_listen.
in_b() {
	nsenter --net=/run/netns/b sh -c "echo '$*' >$CTL" ||
		echo "kdapl-bench: failed in b: $*"
}

serve_all() {
	in_b "respond ia=kw2 port=7011"
	in_b "respond ia=siwB port=7012"
	echo "respond ia=rxeA port=7013" >"$CTL" ||
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
	echo unrespond >"$CTL" && cat "$CTL" | sed 's/^/# /' >>"$RAW"
	echo unserve >"$CTL"
	rmmod kdapl_bench
	rmmod kdapl
}

guest_marker "cpus=$(nproc) kernel=$(uname -r)"
echo "# cpus $(nproc)" >>"$RAW"
setup_test_hosts || echo "kdapl-bench: test hosts failed"
setup_kiwarp_hosts || echo "kdapl-bench: kiwarp hosts failed"
setup_rxe_host || echo "kdapl-bench: rxe host failed"
# shellcheck disable=SC2086 # KIWARP_ARGS: words from bench.conf
insmod "$MODDIR/kiwarp.ko" ${KIWARP_ARGS:-}
echo "# kiwarp fpdu_segs $(cat /sys/module/kiwarp/parameters/fpdu_segs)" >>"$RAW"
echo "# kiwarp zcopy_min $(cat /sys/module/kiwarp/parameters/zcopy_min)" >>"$RAW"
add_kiwarp_device || echo "kdapl-bench: rdma link add kw0..kw2 failed"
load_stack || echo "kdapl-bench: loading kdapl/kdapl_bench failed"
serve_all

common="reps=$REPS ms=$MS depth=$DEPTH"
for s in $SIZES; do
	bench dat test=write $OURS $common size=$s tag=ours.write.$s
	bench dat test=write $SIW $common size=$s tag=siw.write.$s
	bench dat test=read $OURS $common size=$s tag=ours.read.$s
	bench dat test=read $SIW $common size=$s tag=siw.read.$s
	bench tcp test=stream $TCP $common size=$s tag=tcp.stream.$s
done
for s in $SEND_SIZES; do
	bench dat test=send $OURS $common size=$s tag=ours.send.$s
	bench dat test=send $SIW $common size=$s tag=siw.send.$s
done
for s in $LAT_SIZES; do
	lat="reps=$REPS rounds=$ROUNDS size=$s"
	bench dat test=lat $OURS $lat tag=ours.lat.$s
	bench dat test=lat $SIW $lat tag=siw.lat.$s
	bench tcp test=lat $TCP $lat tag=tcp.lat.$s
	bench verbs test=lat ia_a=kw1 ia_b=kw2 addr=$KW2_ADDR \
		port=$VERBS_PORT $lat tag=ours.verbs.lat.$s
	# RoCE: the DAT layer's cost over a second transport
	bench dat test=lat $RXE $lat tag=rxe.lat.$s
	bench verbs test=lat ia_a=rxeA ia_b=rxeA addr=$RXE_ADDR \
		port=$RXE_VERBS_PORT $lat tag=rxe.verbs.lat.$s
done
setup="reps=$REPS rounds=$SETUPS"
bench dat test=conn $OURS_SETUP $setup tag=ours.conn
bench dat test=sconn ia_a=kw1 ia_b=kw2 addr=$KW2_ADDR port=$SCONN_PORT \
	$setup tag=ours.sconn
bench dat test=conn $SIW_SETUP $setup tag=siw.conn
bench tcp test=conn $TCP $setup tag=tcp.conn

# Completion scaling: per-CPU spreading on (all CPUs), then off (CPU 0).
for n in $SCALE_CONNS; do
	bench dat test=write $OURS $common size=$SCALE_SIZE conns=$n \
		tag=scale.on.$n
done
unload_stack
load_stack cpus=0 || echo "kdapl-bench: reloading kdapl cpus=0 failed"
serve_all
for n in $SCALE_CONNS; do
	bench dat test=write $OURS $common size=$SCALE_SIZE conns=$n \
		tag=scale.off.$n
done
# The ping-pong again with every EVD on CPU 0: what cross-CPU dispatch
# (an IPI per event) costs the DAT path next to raw verbs.
for s in $LAT_SIZES; do
	bench dat test=lat $OURS reps=$REPS rounds=$ROUNDS size=$s \
		tag=ours1cpu.lat.$s
done
unload_stack
rmmod kiwarp
guest_marker "done"
