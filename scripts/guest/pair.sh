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
#
# The two scripts meet through marker files in the directory both guests
# share ($KDAPL_SYNC): each waits for the other's marker with a time-out,
# so one side failing ends both.
set -u
. "$KDAPL_SRC/scripts/guest/lib.sh"
. "$KDAPL_SRC/scripts/guest/kdapltest.sh"

. "$KDAPL_SRC/scripts/guest/pair-lib.sh"

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

pair_side_a() {
	ktap_suite pair_a 7
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

pair_side_b() {
	ktap_suite pair_b 6
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
