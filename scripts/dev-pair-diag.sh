#!/bin/sh
# Development aid (not in make check or bench): one DAT stream of
# kdapl_bench across the two-guest wire on the perf kernel, with both
# guests' packets (net_dev_xmit, netif_receive_skb), softirqs and
# context switches traced for 100 ms, and their kiwarp QP lines, TCP
# socket state (ss -ti) and nstat counters sampled
# (scripts/guest/dev-pair-diag.sh).
#
#   [DIAG_TEST=read] [DIAG_SIZE=4096] [DIAG_PERF=1] \
#	[KDAPL_PAIR_WIRE=unix|tcp] scripts/dev-pair-diag.sh
#
# DIAG_PERF=1 adds a second of perf samples of each guest during the
# stream (perf-a.txt, perf-b.txt: self samples per symbol).
#
# Results in build/pair-diag/{a,b}/out: diag-result.txt (the bench's
# figures), diag-*.txt, trace-*.txt, nstat-a.txt.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
ktree=$("$top/scripts/build-kernel.sh" perf | tail -n 1)
src=$top/build/pair-diag/src
"$top/scripts/tree-copy.sh" "$src"
make -s -C "$ktree" M="$src" -j"$(nproc)" modules
# the guests read DIAG_* from their run directory
mkdir -p "$top/build/pair-diag/a" "$top/build/pair-diag/b"
for side in a b; do
	echo "DIAG_TEST=${DIAG_TEST:-read} DIAG_SIZE=${DIAG_SIZE:-4096}" \
		"DIAG_PERF=${DIAG_PERF:-}" \
		>"$top/build/pair-diag/$side/diag.conf"
done
"$src/scripts/run-guest-pair.sh" "$ktree" "$top/build/pair-diag" \
	scripts/guest/dev-pair-diag.sh 400
cat "$top/build/pair-diag/a/out/diag-result.txt"
