#!/bin/bash
# Guest side of `make demo`: set up the two test hosts, load both modules
# and show what a user would look at.
set -u
. "$KDAPL_SRC/scripts/guest/lib.sh"
RESULTS=/dev/null

step() { printf '\n### %s\n' "$*"; }

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

step "unloading"
rmmod kiwarp && rmmod kdapl && echo "both modules unloaded"
dmesg | grep -E 'kdapl|kiwarp'
