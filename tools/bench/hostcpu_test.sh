#!/bin/sh
# ctest bench.hostcpu: scripts/bench-hostcpu.sh on canned input - the
# merge pairs each tag's records with its runs in order, keeps their
# rounds and derives CPU us per op; the watcher turns begin/end console
# lines (CRLF, timestamps, a warm-up begin without end) into records.
set -eu
# shellcheck source=../../scripts/bench-hostcpu.sh
. "$1"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

clk=$(getconf CLK_TCK)
# two runs of a: 0.5 s and 1 s of CPU over 1 s; one of b, no round
cat >"$t/host" <<H
a $((clk / 2)) 1000000000
b $clk 2000000000
a $clk 1000000000
c 0 3000000
H
cat >"$t/raw" <<R
# a comment
a 10.000 @1
a.cpus 1.000 @1
a.us_per_op 100.000 @1
a.cpus 2.000 @2
a.us_per_op 50.000 @2
b.cpus 0.500
b.us_per_op 8.000
c.cpus 1.000 @1
c.us_per_op 5.000 @1
R
hostcpu_merge "$t/raw" "$t/host" >"$t/out"
cat >"$t/want" <<W
a.host_cpus 0.500 @1
a.host_us_per_op 50.000 @1
a.host_cpus 1.000 @2
a.host_us_per_op 25.000 @2
b.host_cpus 0.500
b.host_us_per_op 8.000
W
diff -u "$t/want" "$t/out" || fail "merge"

# the watcher, on a console being written, for this shell's sleep
sleep 30 &
pid=$!
: >"$t/console"
hostcpu_watch "$t/console" "$t/rec" "$pid" &
w=$!
{
	printf '[    1.0] kdapl_bench: cost begin\r\n'
	printf 'noise\r\n[    2.0] kdapl_bench: cost begin\r\n'
	printf '[    3.0] kdapl_bench: cost end ours.lat.64\r\n'
	printf '[    4.0] kdapl_bench: cost end stray\r\n'
} >>"$t/console"
sleep 2
kill "$pid"
wait "$w" || true
[ "$(wc -l <"$t/rec")" -eq 1 ] || fail "records: $(cat "$t/rec")"
read -r tag ticks ns <"$t/rec"
[ "$tag" = ours.lat.64 ] || fail "tag '$tag'"
if [ "$ticks" -lt 0 ] || [ "$ns" -le 0 ]; then
	fail "values $ticks $ns"
fi
echo "bench.hostcpu: ok"
