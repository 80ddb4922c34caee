#!/bin/bash
# Guest side of `make demo`: set up the two test hosts, load both modules
# and show what a user would look at.
set -u
. "$KDAPL_SRC/scripts/guest/lib.sh"
RESULTS=/dev/null

step() { printf '\n### %s\n' "$*"; }

# The kernel's messages reach the console only through the dmesg lines
# below: each is printed once, where it belongs.
dmesg -n 1

step "guest: $(nproc) CPUs, kernel $(uname -r)"
setup_test_hosts || echo "demo: test host setup failed"
setup_kiwarp_hosts || echo "demo: kiwarp host setup failed"
ip -br addr show dev veth0
ip netns exec b ip -br addr show dev veth1

step "loading kdapl.ko and kiwarp.ko"
insmod "$MODDIR/kdapl.ko" && insmod "$MODDIR/kiwarp.ko"
lsmod

step "RDMA devices (rdma link / rdma dev)"
rdma link show
rdma dev show

step "kdapl_demo: two IAs connect through kDAPL, echo 100 messages, RDMA write+read 64 KiB"
insmod "$MODDIR/kdapl_demo.ko" && dmesg | grep 'kdapl_demo:' | tail -n 3

step "debugfs while the demo's connection is up"
for f in eps sps evds handles; do
	echo "--- /sys/kernel/debug/kdapl/$f"
	cat "/sys/kernel/debug/kdapl/$f"
done
show_debugfs kdapl | grep providers

step "unloading kdapl_demo (graceful disconnect)"
rmmod kdapl_demo && dmesg | grep 'kdapl_demo:' | tail -n 1
cat /sys/kernel/debug/kdapl/eps

step "socket to RDMA: kdapl_sockdemo between kw1 (root ns) and kw2 (ns b)"
add_kiwarp_device || echo "demo: rdma link add kw0..kw2 failed"
insmod "$MODDIR/kdapl_sockdemo.ko" && dmesg | grep 'kdapl_sockdemo:' | tail -n 4
echo "--- before: the TCP connection is a socket, B's SSP holds it"
cat /sys/kernel/debug/kdapl/sps /sys/kernel/debug/kdapl/eps
cat /sys/kernel/debug/kiwarp/kw1/qps 2>/dev/null
echo 1 >/sys/module/kdapl_sockdemo/parameters/go
dmesg | grep 'kdapl_sockdemo:' | tail -n 3
echo "--- after: two connected EPs in socket mode, QPs on the same TCP connection"
cat /sys/kernel/debug/kdapl/sps /sys/kernel/debug/kdapl/eps
cat /sys/kernel/debug/kiwarp/kw1/qps /sys/kernel/debug/kiwarp/kw2/qps 2>/dev/null
rmmod kdapl_sockdemo && dmesg | grep 'kdapl_sockdemo:' | tail -n 1

step "kdapltest: dapltest's transaction test between the two hosts (OFA dapltest -T S in b on siwB, our kernel client on siwA)"
. "$KDAPL_SRC/scripts/guest/kdapltest.sh"
kdt_datconf
insmod "$MODDIR/kdapltest.ko" && kdt_ofa_server_start &&
	"$KDT_BIN" -T T -s "$HOST_B_ADDR" -D siwA -i 100 -t 2 -w 2 -V $KDT_OPS
"$KDT_BIN" -T Q -s "$HOST_B_ADDR" -D siwA
kdt_wait_exit "$KDT_OFA_PID"
echo "--- the OFA server's side"
cat "${KDT_LOG}ofa-server.log"

step "kdapltest against itself over kiwarp: kdapltest -T S on kw1 (root ns), the client on kw2 (ns b)"
"$KDT_BIN" -T S -D kw1 >"${KDT_LOG}demo-server.log" 2>&1 &
srv=$!
kdt_wait_ready "$srv" "${KDT_LOG}demo-server.log" &&
	ip netns exec b "$KDT_BIN" -T T -s "$KW1_ADDR" -D kw2 -i 100 -t 2 -w 2 \
		-V $KDT_OPS &&
	ip netns exec b "$KDT_BIN" -T P -s "$KW1_ADDR" -D kw2 -i 200 -p 8 RW 4096
ip netns exec b "$KDT_BIN" -T Q -s "$KW1_ADDR" -D kw2
kdt_wait_exit "$srv"
echo "--- the kernel server's side"
cat "${KDT_LOG}demo-server.log"
rmmod kdapltest

step "debugfs: /sys/kernel/debug/kiwarp"
show_debugfs kiwarp

# --- how fast: kiwarp, siw and kernel TCP side by side -------------------
# kdapl_bench.ko (make bench's module): the passive ends in namespace b,
# then ROUNDS rounds, each one run of every stack in turn; medians.
DEMO_ROUNDS=3
CTL=/sys/kernel/debug/kdapl_bench/ctl
DEMO_RAW=/tmp/demo-bench.raw
in_b() { nsenter --net=/run/netns/b sh -c "echo '$*' >$CTL"; }
demo_bench() {
	echo "$*" >"$CTL" && cat "$CTL" >>"$DEMO_RAW" ||
		echo "demo: failed: $*"
}
# demo_median FIGURE: the median of FIGURE's runs
demo_median() {
	grep "^$1 " "$DEMO_RAW" | awk '{ print $2 }' | sort -g |
		awk '{ v[NR] = $1 } END { if (NR) printf "%.1f", v[int((NR + 1) / 2)]; else printf "-" }'
}

step "how fast: 64 KiB RDMA WRITE and a 64 B round trip, kiwarp vs siw vs the kernel TCP under them ($DEMO_ROUNDS rounds, medians; $(uname -r))"
: >"$DEMO_RAW"
insmod "$MODDIR/kdapl_bench.ko" &&
	in_b "respond ia=kw2 port=7011" && in_b "respond ia=siwB port=7012" &&
	in_b "respond tcp port=7003" || echo "demo: kdapl_bench failed"
ours="ia_a=kw1 addr=$KW2_ADDR port=7011"
siw="ia_a=siwA addr=$HOST_B_ADDR port=7012"
tcp="addr=$KW2_ADDR port=7003"
w="size=65536 depth=16 ms=1000 warm=250 reps=1"
l="size=64 rounds=2000 warm=200 reps=1"
for _ in $(seq 1 "$DEMO_ROUNDS"); do
	demo_bench "dat test=write $ours $w tag=ours.write"
	demo_bench "dat test=write $siw $w tag=siw.write"
	demo_bench "tcp test=stream $tcp $w tag=tcp.write"
	demo_bench "dat test=lat $ours $l tag=ours.lat"
	demo_bench "dat test=lat $siw $l tag=siw.lat"
	demo_bench "tcp test=lat $tcp $l tag=tcp.lat"
done
echo unrespond >"$CTL"
rmmod kdapl_bench
wo=$(demo_median ours.write) ws=$(demo_median siw.write) wt=$(demo_median tcp.write)
lo=$(demo_median ours.lat.median) ls=$(demo_median siw.lat.median)
lt=$(demo_median tcp.lat.median)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }'; }
printf '%-26s %10s %10s %10s %12s\n' "" "kiwarp" "siw" "TCP" "kiwarp/TCP"
printf '%-26s %10s %10s %10s %12s\n' "64 KiB RDMA WRITE, MB/s" "$wo" "$ws" "$wt" "$(ratio "$wo" "$wt")"
printf '%-26s %10s %10s %10s %12s\n' "64 B round trip, us" "$lo" "$ls" "$lt" "$(ratio "$lo" "$lt")"
echo "(one guest, two network namespaces over veth: both ends share its CPUs)"

step "unloading"
rmmod kiwarp && rmmod kdapl && echo "both modules unloaded"

echo
echo "More: Documentation/performance.rst (make bench: every size and stack, CPU cost, two guests on a wire), Documentation/architecture.rst, README.md."
