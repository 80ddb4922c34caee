#!/bin/bash
# Guest side of `make demo`: set up the two test hosts, load both modules
# and show what a user would look at.
set -u
. "$KDAPL_SRC/scripts/guest/lib.sh"
RESULTS=/dev/null

step() { printf '\n### %s\n' "$*"; }

step "guest: $(nproc) CPUs, kernel $(uname -r)"
setup_test_hosts || echo "demo: test host setup failed"
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

step "debugfs: /sys/kernel/debug/kiwarp"
show_debugfs kiwarp

step "unloading"
rmmod kiwarp && rmmod kdapl && echo "both modules unloaded"
dmesg | grep -E 'kdapl|kiwarp'
