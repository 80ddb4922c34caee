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

step "debugfs: /sys/kernel/debug/kiwarp"
show_debugfs kiwarp

step "unloading"
rmmod kiwarp && rmmod kdapl && echo "both modules unloaded"
dmesg | grep -E 'kdapl|kiwarp'
