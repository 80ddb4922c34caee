#!/bin/bash
# Guest side of the two-host topology in `make check`: one copy runs in
# each of two guests (scripts/run-guest-pair.sh), KDAPL_ROLE a or b, each
# with one NIC (eth0) on the virtual wire between them. Suites pair_a and
# pair_b (Documentation/testing.rst):
#
#   1. kdapl over kiwarp across the wire: kdapltest's server in a (kDAPL
#      over kiwarp device kwA), its client in b (over kwB), the
#      transaction test of make check's kdapltest_interop.
#   2. kiwarp against siw across the wire: a swaps kwA for a siw device
#      and serves OFA dapltest (uDAPL over siw, userspace); b's kdapltest
#      client over kiwarp runs the same test against it.
#   3. The kernel's storage consumers across the wire, kiwarp on both
#      ends (a has kwA back): b serves NFS over RDMA (knfsd, svcrdma)
#      and an NVMe-oF namespace (nvmet-rdma); a mounts (xprtrdma) and
#      connects (nvme-rdma), writes and reads back with O_DIRECT and
#      compares (nfs.sh, nvme.sh).
#
# The two scripts meet through marker files in the directory both guests
# share ($KDAPL_SYNC): each waits for the other's marker with a time-out,
# so one side failing ends both.
set -u
. "$KDAPL_SRC/scripts/guest/lib.sh"
. "$KDAPL_SRC/scripts/guest/kdapltest.sh"

. "$KDAPL_SRC/scripts/guest/pair-lib.sh"
. "$KDAPL_SRC/scripts/guest/nfs.sh"
. "$KDAPL_SRC/scripts/guest/nvme.sh"

# the servers of phase 3 are in b's root namespace
NFS_NETNS=

PAIR_DATCONF=/tmp/pair-dat.conf

pair_modules() {
	insmod "$MODDIR/kdapl.ko" &&
	insmod "$MODDIR/kiwarp.ko" &&
	insmod "$MODDIR/kdapltest.ko" &&
	[ -c /dev/kdapltest ]
}

# --- side a: the servers ---------------------------------------------------
PAIR_SRV=
pair_a_kiwarp_server() {
	rdma link add kwA type kiwarp netdev eth0 || return 1
	"$KDT_BIN" -T S -D kwA >"${KDT_LOG}pair-server-kw.log" 2>&1 &
	PAIR_SRV=$!
	kdt_wait_ready "$PAIR_SRV" "${KDT_LOG}pair-server-kw.log"
}

# b's client ran the test and asked the server to quit: its own count
pair_a_kiwarp_verdict() {
	kdt_wait_exit "$PAIR_SRV" || return 1
	cat "${KDT_LOG}pair-server-kw.log"
	kdt_server_verdict "${KDT_LOG}pair-server-kw.log" \
		"1 tests done, 0 failed, 0 clients refused"
}

pair_a_siw_server() {
	rdma link delete kwA &&
	insmod "$MODDIR/siw.ko" &&
	rdma link add siwA type siw netdev eth0 || return 1
	echo 'ofa-v2-eth0 u2.0 nonthreadsafe default libdaplofa.so.2 dapl.2.0 "eth0 0" ""' \
		>"$PAIR_DATCONF"
	env DAT_OVERRIDE="$PAIR_DATCONF" timeout 600 stdbuf -oL -eL \
		dapltest -T S -D ofa-v2-eth0 >"${KDT_LOG}pair-ofa-server.log" 2>&1 &
	PAIR_SRV=$!
	kdt_wait_ready "$PAIR_SRV" "${KDT_LOG}pair-ofa-server.log"
}

# OFA's server: the test finished, no error of dapltest's or uDAPL's,
# and siw saw no TERMINATE from kiwarp.
pair_a_siw_verdict() {
	kdt_wait_exit "$PAIR_SRV" || return 1
	cat "${KDT_LOG}pair-ofa-server.log"
	grep -q "Transaction Test Finished" "${KDT_LOG}pair-ofa-server.log" &&
	! grep -q "Error\|Failed\|ERR\|async_event" \
		"${KDT_LOG}pair-ofa-server.log" &&
	! dmesg | grep -q "siw: got TERMINATE"
}

pair_wait_ping() {
	pair_wait "$1" 300 && pair_ping "$2"
}

# phase 3: siwA goes, kwA comes back
pair_a_kiwarp_again() {
	rdma link delete siwA && rmmod siw &&
	rdma link add kwA type kiwarp netdev eth0
}

# What a's QPs on kwA received, at least @1 bytes (the data came over
# kiwarp, not over TCP)
pair_a_kiwarp_carried() {
	local f=/sys/kernel/debug/kiwarp/kwA/qps
	cat "$f"
	awk -v want="$1" '
	     { for (i = 1; i < NF; i++) if ($i == "rx_bytes") s += $(i + 1) }
	     END { exit !(s >= want) }' "$f"
}

pair_a_storage() {
	ktap_check nfs_mount_across_hosts nfs_mount "$PAIR_B_ADDR"
	ktap_check nfs_16m_direct_across_hosts nfs_roundtrip "$PAIR_B_ADDR" \
		p16m 16777216 1048576
	ktap_check nfs_kiwarp_carried_the_data pair_a_kiwarp_carried 16777216
	ktap_check kiwarp_zero_copy_from_1m_on_the_wire kiwarp_zc_min_is \
		/sys/kernel/debug/kiwarp/kwA/qps 1048576
	ktap_check nfs_umount nfs_umount
	ktap_check nvme_connect_across_hosts nvme_connect "$PAIR_B_ADDR"
	ktap_check "nvme_${NVME_MIB}m_direct_across_hosts" nvme_roundtrip \
		"$PAIR_B_ADDR" pair
	ktap_check nvme_kiwarp_carried_the_data pair_a_kiwarp_carried \
		$((NVME_MIB * 1048576))
	ktap_check nvme_disconnect nvme_disconnect "$PAIR_B_ADDR"
	nfs_umount_all
}

pair_side_a() {
	ktap_suite pair_a 18
	ktap_check wire_up pair_wire_up "$PAIR_A_ADDR"
	ktap_check modules_load pair_modules
	ktap_check peer_reachable pair_wait_ping b-up "$PAIR_B_ADDR"
	if ktap_step kdapltest_server_on_kiwarp pair_a_kiwarp_server; then
		pair_post a-kw-ready
		pair_wait b-kw-done 600
	fi
	ktap_check kdapltest_server_verdict pair_a_kiwarp_verdict
	if ktap_step ofa_server_on_siw pair_a_siw_server; then
		pair_post a-siw-ready
		pair_wait b-siw-done 600
	fi
	ktap_check ofa_server_verdict pair_a_siw_verdict
	ktap_check kiwarp_device_again pair_a_kiwarp_again
	if pair_wait b-storage-ready 600; then
		ktap_case ok storage_servers_ready
		pair_a_storage
	else
		ktap_case fail storage_servers_ready "no b-storage-ready"
	fi
	pair_post a-storage-done
	ktap_end
}

# --- side b: the clients, over kiwarp ---------------------------------------
pair_b_client() {
	local log=$1 rc=0
	timeout 300 "$KDT_BIN" -T T -s "$PAIR_A_ADDR" -D kwB \
		-i "$KDT_ITER" -t 2 -w 2 -V $KDT_OPS >"$log" 2>&1 || rc=$?
	cat "$log"
	[ "$rc" -eq 0 ] && grep -q "transaction test passed" "$log"
}

# tell a's server to quit (ours or OFA's: the same -T Q)
pair_b_quit() {
	timeout 60 "$KDT_BIN" -T Q -s "$PAIR_A_ADDR" -D kwB
}

# phase 3: knfsd and the NVMe-oF target on kwB's address
pair_b_nvme_target() {
	nvme_target_setup && nvme_port_add 1 "$PAIR_B_ADDR"
}

pair_side_b() {
	ktap_suite pair_b 10
	ktap_check wire_up pair_wire_up "$PAIR_B_ADDR"
	ktap_check modules_load pair_modules
	ktap_check kiwarp_device rdma link add kwB type kiwarp netdev eth0
	pair_post b-up
	ktap_check peer_reachable pair_ping "$PAIR_A_ADDR"
	if pair_wait a-kw-ready 600; then
		ktap_check kdapl_over_kiwarp_across_hosts pair_b_client \
			"${KDT_LOG}pair-kw.log"
		pair_b_quit
	else
		ktap_case fail kdapl_over_kiwarp_across_hosts "no server"
	fi
	pair_post b-kw-done
	if pair_wait a-siw-ready 600; then
		ktap_check kiwarp_against_siw_across_hosts pair_b_client \
			"${KDT_LOG}pair-siw.log"
		pair_b_quit
	else
		ktap_case fail kiwarp_against_siw_across_hosts "no server"
	fi
	pair_post b-siw-done
	ktap_check nfs_server_up nfs_server_start
	ktap_check nvme_target_up pair_b_nvme_target
	pair_post b-storage-ready
	pair_wait a-storage-done 900
	ktap_check nvme_target_removed nvme_cleanup
	ktap_check nfs_server_stopped nfs_server_stop
	ktap_end
}

guest_marker "cpus=$(nproc)"
echo "kdapl-guest: side $ROLE, $(nproc) CPUs, kernel $(uname -r)"
echo clear >/sys/kernel/debug/kmemleak
case "$ROLE" in
a) pair_side_a ;;
b) pair_side_b ;;
*) echo "kdapl-guest: no role" ;;
esac
[ "$_ktap_fail" -eq 0 ] || pair_post abort

# leave nothing behind: servers, devices, modules. A leak anywhere in
# the run shows on the console for the host's parser ("kmemleak: N new
# suspected memory leaks"); objects younger than 5 s are not reported.
[ -n "$PAIR_SRV" ] && kill "$PAIR_SRV" 2>/dev/null && kdt_wait_exit "$PAIR_SRV"
rmmod kdapltest
rdma link delete kwA 2>/dev/null
rdma link delete kwB 2>/dev/null
rmmod kdapl
rmmod kiwarp
sleep 6
echo scan >/sys/kernel/debug/kmemleak
guest_marker done
