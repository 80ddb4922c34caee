#!/bin/bash
# shellcheck disable=SC1091
# Guest side of scripts/dev-pair-diag.sh: one kdapl_bench DAT stream
# across the wire, a measuring (the bench's figures), b responding; both
# trace 100 ms of it and sample their kiwarp QPs and TCP sockets.
set -u
. "$KDAPL_SRC/scripts/guest/lib.sh"
. "$KDAPL_SRC/scripts/guest/pair-lib.sh"
CTL=/sys/kernel/debug/kdapl_bench/ctl
DIAG_TEST="read"
DIAG_SIZE=4096
DIAG_PERF=
# shellcheck disable=SC1091
[ -r "$KDAPL_RUN/diag.conf" ] && . "$KDAPL_RUN/diag.conf"
TEST=$DIAG_TEST
SIZE=$DIAG_SIZE
mods() {
	insmod "$MODDIR/kdapl.ko" && insmod "$MODDIR/kiwarp.ko" &&
	insmod "$MODDIR/kdapl_bench.ko"
}
sample() {
	local i
	for i in 1 2 3 4 5 6; do
		sleep 0.4
		echo "== sample $i $(date +%s.%N)"
		cat /sys/kernel/debug/kiwarp/*/qps 2>/dev/null
		ss -tinH state established
	done
}
T=/sys/kernel/tracing
trace_setup() {
	mount -t tracefs nodev $T 2>/dev/null
	echo 8192 >$T/buffer_size_kb
	echo 1 >$T/events/kiwarp/kiwarp_bind/enable
	echo 1 >$T/events/net/net_dev_xmit/enable
	echo 1 >$T/events/net/netif_receive_skb/enable
	echo 1 >$T/events/sched/sched_switch/enable
	echo 1 >$T/events/irq/softirq_entry/enable
	echo 0 >$T/tracing_on
}
trace_window() {
	echo 1 >$T/tracing_on; sleep 0.1; echo 0 >$T/tracing_on
}
# DIAG_PERF=1: a second of cpu-clock samples of the guest, its report
# (self samples per symbol) in perf-<side>.txt
perf_window() {
	[ -n "$DIAG_PERF" ] || return 0
	if ! perf record -q -a -g -e cpu-clock -o /tmp/diag.data -- sleep 1 \
		>/dev/null 2>&1; then
		echo "perf record failed" >"$OUT/perf-$1.txt"
		return 0
	fi
	perf report -q -i /tmp/diag.data --stdio --no-children --sort sym -n \
		--percent-limit 0.4 -g none >"$OUT/perf-$1.txt" 2>&1
}
side_a() {
	pair_wire_up "$PAIR_A_ADDR" && mods &&
		rdma link add kwA type kiwarp netdev eth0 || return 1
	pair_wait b-ready 300 && pair_ping "$PAIR_B_ADDR" || return 1
	trace_setup
	nstat -n >/dev/null
	sample > "$OUT/diag-a.txt" 2>&1 &
	(sleep 1.5; trace_window) &
	(sleep 0.5; perf_window a) &
	echo "dat test=$TEST ia_a=kwA addr=$PAIR_B_ADDR port=7011 ms=2500 warm=250 depth=16 size=$SIZE tag=diag" >"$CTL"
	cat "$CTL" >"$OUT/diag-result.txt"
	wait
	nstat >"$OUT/nstat-a.txt"
	cat $T/trace >"$OUT/trace-a.txt"
	pair_post a-done
}
side_b() {
	if ! { pair_wire_up "$PAIR_B_ADDR" && mods &&
	       rdma link add kwB type kiwarp netdev eth0 &&
	       echo "respond ia=kwB port=7011" >"$CTL"; }; then
		pair_post abort
		return 1
	fi
	trace_setup
	pair_post b-ready
	(sleep 0.7; perf_window b) &
	sleep 2.5
	trace_window
	wait
	sample > "$OUT/diag-b.txt" 2>&1
	pair_wait a-done 300
	cat $T/trace >"$OUT/trace-b.txt"
	echo unrespond >"$CTL"
}
guest_marker "cpus=$(nproc)"
case "$ROLE" in
a) side_a || pair_post abort ;;
b) side_b ;;
esac
rmmod kdapl_bench; rdma link delete kwA 2>/dev/null; rdma link delete kwB 2>/dev/null
rmmod kdapl; rmmod kiwarp
guest_marker "done"
