#!/bin/bash
# Guest side of `make check`: runs inside the test guest (see
# scripts/guest/init), writes KTAP to $KDAPL_RUN/out/results.ktap.
# The host (scripts/check.sh) parses that file and the console log.
set -u
. "$KDAPL_SRC/scripts/guest/lib.sh"
. "$KDAPL_SRC/scripts/guest/kdapltest.sh"
. "$KDAPL_SRC/scripts/guest/nfs.sh"
. "$KDAPL_SRC/scripts/guest/nvme.sh"
. "$KDAPL_SRC/scripts/guest/stress.sh"

guest_marker "cpus=$(nproc)"
echo "kdapl-guest: $(nproc) CPUs, kernel $(uname -r)"

# --- guest_env: the two test hosts and siw between them ----------------
ktap_suite guest_env 7
ktap_check test_hosts_created setup_test_hosts
ktap_check kiwarp_hosts_created setup_kiwarp_hosts
ktap_check ping_a_to_b ping -c 1 -W 5 "$HOST_B_ADDR"
ktap_check siw_devices sh -c 'rdma link show | grep -q siwA &&
	rdma link show | grep -q siwB'
rping_siw() {
	ip netns exec b rping -s -a "$HOST_B_ADDR" -C 3 >/tmp/rping-s.log 2>&1 &
	local spid=$! rc=1 try
	for try in 1 2 3 4 5 6 7 8 9 10; do
		sleep 1
		if timeout 60 rping -c -a "$HOST_B_ADDR" -C 3 -v \
			>/tmp/rping-c.log 2>&1; then
			rc=0
			break
		fi
	done
	wait "$spid" || rc=1
	grep -c 'ping data' /tmp/rping-c.log | grep -qx 3 || rc=1
	[ $rc -eq 0 ] || cat /tmp/rping-c.log /tmp/rping-s.log
	return $rc
}
ktap_check rping_siw_a_to_b rping_siw
ktap_check rxe_host_created setup_rxe_host
# Userspace rping over rxeA (rdma-core's rxe provider), server and client
# on the one device: the RoCE baseline the kdapl_conn_rxe suite relies on.
rping_rxe() {
	rping -s -a "$RXE_ADDR" -p 7999 -C 3 >/tmp/rping-rxe-s.log 2>&1 &
	local spid=$! rc=1 try
	for try in 1 2 3 4 5 6 7 8 9 10; do
		sleep 1
		if timeout 60 rping -c -a "$RXE_ADDR" -p 7999 -C 3 -v \
			>/tmp/rping-rxe-c.log 2>&1; then
			rc=0
			break
		fi
	done
	wait "$spid" || rc=1
	grep -c 'ping data' /tmp/rping-rxe-c.log | grep -qx 3 || rc=1
	[ $rc -eq 0 ] || cat /tmp/rping-rxe-c.log /tmp/rping-rxe-s.log
	return $rc
}
ktap_check rping_rxe_loopback rping_rxe
ktap_end

# --- module_lifecycle: load/unload cycles, debugfs, no leak -------------
lifecycle() {
	local mod=$1 dir=$2 i
	for i in $(seq 1 20); do
		insmod "$MODDIR/$mod.ko" || { echo "insmod $mod #$i"; return 1; }
		[ -d "/sys/kernel/debug/$dir" ] ||
			{ echo "no debugfs $dir"; rmmod "$mod"; return 1; }
		rmmod "$mod" || { echo "rmmod $mod #$i"; return 1; }
	done
	[ ! -e "/sys/kernel/debug/$dir" ] || { echo "debugfs $dir left"; return 1; }
}
kmemleak_clean() {
	local km=/sys/kernel/debug/kmemleak
	# Objects younger than 5 s are not reported: wait, then scan twice.
	sleep 6
	echo scan >"$km"
	echo scan >"$km"
	if [ -s "$km" ]; then
		head -n 30 "$km"
		return 1
	fi
}
echo clear >/sys/kernel/debug/kmemleak
ktap_suite module_lifecycle 3
ktap_check kdapl_load_unload_20 lifecycle kdapl kdapl
ktap_check kiwarp_load_unload_20 lifecycle kiwarp kiwarp
ktap_check no_kmemleak_after_cycles kmemleak_clean
ktap_end

# --- KUnit suites, one module each (kunit/SUITES) ------------------------
insmod "$MODDIR/kdapl.ko"
insmod "$MODDIR/kiwarp.ko"

# --- kdapl_demo: what `make demo` shows, checked -------------------------
ktap_suite kdapl_demo 3
ktap_check demo_connects_and_moves_data insmod "$MODDIR/kdapl_demo.ko"
ktap_check debugfs_shows_live_eps sh -c \
	'[ "$(grep -c " CONNECTED " /sys/kernel/debug/kdapl/eps)" -eq 2 ]'
ktap_check demo_unloads_without_eps sh -c 'busybox rmmod kdapl_demo &&
	[ "$(grep -c . /sys/kernel/debug/kdapl/eps)" -eq 1 ]'
ktap_end

# kw0, kw1, kw2 (lib.sh): the kiwarp suites use them; kiwarp is unloaded
# below with the devices still there (module exit removes them).
add_kiwarp_device || echo "kdapl-guest: rdma link add kw0..kw2 failed"

# --- kiwarp_device: link add/delete, netdev removal, unload ------------
kiwarp_device_suite

# --- kdapl_device_removal: `rdma link delete` under a live connection ----
# kdapl_demo between kw1 (root namespace) and kw2 (namespace b), then
# kw1 goes away with the IAs open and the connection up.
demo_kw() {
	insmod "$MODDIR/kdapl_demo.ko" ia_a=kw1 ia_b=kw2 addr_b="$KW2_ADDR" \
		port=7950 count=20
}
ktap_suite kdapl_device_removal 5
ktap_check demo_over_kiwarp_across_hosts demo_kw
ktap_check two_connected_eps sh -c \
	'[ "$(grep -c " CONNECTED " /sys/kernel/debug/kdapl/eps)" -eq 2 ]'
ktap_check rdma_link_delete_with_open_ias timeout 60 rdma link delete kw1
ktap_check no_connected_ep_left sh -c 'sleep 3;
	[ "$(grep -c " CONNECTED " /sys/kernel/debug/kdapl/eps)" -eq 0 ] ||
	{ cat /sys/kernel/debug/kdapl/eps; false; }'
ktap_check demo_unloads_and_kw1_returns sh -c 'busybox rmmod kdapl_demo &&
	dmesg | grep -q "kdapl_demo: connection already down" &&
	rdma link add kw1 type kiwarp netdev veth4'
ktap_end

# --- kiwarp_rdma_tool: rdma res -dd and rdma statistic on kw1 (lib.sh) ----
kiwarp_rdma_tool_suite

# --- trace_connection: one connection through kdapl's and kiwarp's tracepoints
trace_connection_suite

# --- kdapl_sockdemo: what `make demo` shows of socket to RDMA, checked ----
ktap_suite kdapl_sockdemo 4
ktap_check streaming_then_ssp insmod "$MODDIR/kdapl_sockdemo.ko"
ktap_check debugfs_shows_ssp_holding_socket sh -c \
	'grep -q " ssp .* socket$" /sys/kernel/debug/kdapl/sps ||
	{ cat /sys/kernel/debug/kdapl/sps; false; }'
ktap_check transition_and_rdma sh -c \
	'echo 1 >/sys/module/kdapl_sockdemo/parameters/go &&
	[ "$(grep -c " CONNECTED .* socket$" /sys/kernel/debug/kdapl/eps)" -eq 2 ] ||
	{ cat /sys/kernel/debug/kdapl/eps; false; }'
ktap_check unload_disconnects sh -c 'busybox rmmod kdapl_sockdemo &&
	dmesg | grep -q "kdapl_sockdemo: disconnected gracefully" &&
	[ "$(grep -c . /sys/kernel/debug/kdapl/eps)" -eq 1 ]'
ktap_end

# --- kdapltest_interop: OFA dapltest against kdapltest.ko -----------------
# (scripts/dev-kdapltest.sh runs just this suite)
kdapltest_interop_suite

# --- kdapltest_fft: dapltest's limit and function feature tests ----------
# kdapltest.ko on siwA and kw1, root namespace (scripts/guest/kdapltest.sh)
kdapltest_fft_suite

# --- kdapltest_rxe: kdapltest and OFA dapltest over RoCE (rxeA) ---------
kdapltest_rxe_suite

# --- every KUnit suite of kunit/SUITES -----------------------------------
run_kunit_suites "$KDAPL_SRC/kunit/SUITES"

# --- kdapl_rping + rping_userspace: socket extensions vs rping on siw ----
kdapl_rping_suites

# --- kiwarp_rping + kiwarp_rping_userspace: rping's protocol on kiwarp ----
kiwarp_rping_suites

# --- kiwarp_wire_user: malformed frames from a userspace peer ------------
kiwarp_wire_user_suite
kdapl_wire_user_suite

# --- kdapl_bench_smoke: make bench's module, one tiny run of each kind -----
# After the KUnit suites, so that its connect/disconnect cycles between
# kw1 and kw2 come after them. (kiwarp_interop's ours_ours_rdma_cm once
# got no connect request, -ECONNABORTED, when it ran before; a cause
# found since: kdapl_iwsock left kw1's neighbour entry for kw2 on a
# stale MAC, fixed there.)
kdapl_bench_smoke_suite

# --- kdapl_stress: make stress's suites, short (scripts/guest/stress.sh) ----
# churn, PSP free under requests, checked soaks on netem'd wires
kdapl_stress_suite

# --- nfs_rdma: the kernel's NFS over RDMA on kiwarp, siw as the control ---
# (scripts/guest/nfs.sh; knfsd in namespace b, the mount in the root)
nfs_rdma_suite

# --- nvme_rdma: NVMe over Fabrics (nvmet-rdma, nvme-rdma) on kiwarp, ------
# siw and rxe the controls (scripts/guest/nvme.sh)
nvme_rdma_suite

# --- kiwarp_unload_live: rmmod kiwarp under live connections -------------
kiwarp_unload_live_suite

# --- kdapl_cpus_mask: kdapl reloaded with cpus=1 (lib.sh) -----------------
kdapl_cpus_mask_suite
rmmod kdapl

# A leak anywhere in the run shows up on the console for the host parser
# ("kmemleak: N new suspected memory leaks"); objects younger than 5 s are
# not reported, hence the wait.
sleep 6
echo scan >/sys/kernel/debug/kmemleak
guest_marker done
