# shellcheck shell=bash
# Helpers shared by the guest-side scripts (sourced, bash).
#
# KTAP output for guest-side test programs: a suite is opened with
# ktap_suite NAME PLAN, each case reported with ktap_case, closed with
# ktap_end. The block has the layout of a KUnit debugfs results file so
# the host parser treats both alike.

OUT=$KDAPL_RUN/out
RESULTS=$OUT/results.ktap

_ktap_n=0
_ktap_fail=0
_ktap_name=

ktap_suite() {
	_ktap_name=$1
	echo "kdapl-guest: suite $1 at $(cut -d' ' -f1 /proc/uptime) s"
	_ktap_n=0
	_ktap_fail=0
	{
		echo "    KTAP version 1"
		echo "    # Subtest: $1"
		echo "    1..$2"
	} >>"$RESULTS"
}

# ktap_case ok|fail|skip NAME [reason/log...]
ktap_case() {
	local res=$1 name=$2
	shift 2
	_ktap_n=$((_ktap_n + 1))
	for l in "$@"; do
		echo "    # $name: $l" >>"$RESULTS"
	done
	case "$res" in
	ok) echo "    ok $_ktap_n $name" >>"$RESULTS" ;;
	skip) echo "    ok $_ktap_n $name # SKIP $*" >>"$RESULTS" ;;
	*) echo "    not ok $_ktap_n $name" >>"$RESULTS"
	   _ktap_fail=1 ;;
	esac
}

# ktap_check NAME command...: one case from a command's exit status.
ktap_check() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		ktap_case ok "$name"
	else
		ktap_case fail "$name" "command failed: $*" \
			"$(echo "$out" | tail -n 5 | tr '\n' '|')"
	fi
}

# ktap_step NAME FUNC...: a case from FUNC run in this shell, not in
# ktap_check's subshell (a server it starts must outlive the case; the
# variables it sets stay); its output goes to $OUT/step-NAME.log, whose
# last lines a failure shows.
ktap_step() {
	local name=$1 log="$OUT/step-$1.log"
	shift
	if "$@" >"$log" 2>&1; then
		ktap_case ok "$name"
		return 0
	fi
	ktap_case fail "$name" "$(tail -n 5 "$log" | tr '\n' '|')"
	return 1
}

ktap_end() {
	if [ "$_ktap_fail" -eq 0 ]; then
		echo "ok 1 $_ktap_name" >>"$RESULTS"
	else
		echo "not ok 1 $_ktap_name" >>"$RESULTS"
	fi
}

guest_marker() {
	echo "# kdapl-guest: $*" >>"$RESULTS"
}

# dev_guest_begin / dev_guest_end: prologue and epilogue of the
# development guest scripts (dev.sh, dev-kdapltest*.sh): the two test
# hosts and kiwarp's, kmemleak cleared, kdapl.ko and kiwarp.ko with
# kw0..kw2 loaded; then both unloaded (if still there) and kmemleak
# scanned, which the host's kdapl-report judges.
dev_guest_begin() {
	guest_marker "cpus=$(nproc)"
	setup_test_hosts || echo "kdapl-guest: test hosts failed"
	setup_kiwarp_hosts || echo "kdapl-guest: kiwarp hosts failed"
	setup_rxe_host || echo "kdapl-guest: rxe host failed"
	echo clear >/sys/kernel/debug/kmemleak
	insmod "$MODDIR/kdapl.ko"
	insmod "$MODDIR/kiwarp.ko"
	add_kiwarp_device || echo "kdapl-guest: rdma link add kw0..kw2 failed"
}

dev_guest_end() {
	grep -q '^kiwarp ' /proc/modules && rmmod kiwarp
	grep -q '^kdapl ' /proc/modules && rmmod kdapl
	sleep 6
	echo scan >/sys/kernel/debug/kmemleak
	guest_marker done
}

# insmod/rmmod from the static busybox: Debian's kmod pulls in libcrypto,
# and loading that over 9p for every call costs seconds under TCG.
insmod() { busybox insmod "$@"; }
rmmod() { busybox rmmod "$@"; }

# Modules are loaded from a tmpfs copy: many insmod cycles over 9p are slow.
MODDIR=/tmp/kdapl-modules
# (The distro guest, scripts/guest/distro.sh, stages none: it modprobes.)
if [ ! -d "$MODDIR" ]; then
	mkdir -p "$MODDIR"
	! ls "$KDAPL_RUN"/modules/*.ko >/dev/null 2>&1 ||
		cp "$KDAPL_RUN"/modules/*.ko "$MODDIR/"
fi

# Two test hosts: the root namespace (host A, veth0, 192.0.2.1, siwA) and
# namespace "b" (host B, veth1, 192.0.2.2, siwB).
HOST_A_ADDR=192.0.2.1
HOST_B_ADDR=192.0.2.2
# siw6: a siw device in the root namespace whose netdev (veth6) has
# only an IPv6 address, for IPv6 through kdapl (kunit conn_ipv6).
HOST_C6_ADDR=2001:db8::3

# veth_to_b DEV_A ADDR_A DEV_B ADDR_B: a veth pair, DEV_A with ADDR_A/24
# in the root namespace, DEV_B with ADDR_B/24 in namespace b, both up.
veth_to_b() {
	ip link add "$1" type veth peer name "$3" &&
	ip link set "$3" netns b &&
	ip addr add "$2/24" dev "$1" &&
	ip link set "$1" up &&
	ip netns exec b ip addr add "$4/24" dev "$3" &&
	ip netns exec b ip link set "$3" up
}

setup_test_hosts() {
	ip link set lo up &&
	ip netns add b &&
	ip netns exec b ip link set lo up &&
	veth_to_b veth0 "$HOST_A_ADDR" veth1 "$HOST_B_ADDR" &&
	insmod "$MODDIR/siw.ko" &&
	rdma link add siwA type siw netdev veth0 &&
	ip netns exec b rdma link add siwB type siw netdev veth1 &&
	ip link add veth6 type veth peer name veth7 &&
	ip -6 addr add "$HOST_C6_ADDR/64" dev veth6 nodad &&
	ip link set veth7 up && ip link set veth6 up &&
	rdma link add siw6 type siw netdev veth6
}

# RoCE: the soft-RoCE device rxeA on veth8 (198.19.0.1, root namespace);
# veth9, its peer, is up in namespace b so that the link has carrier.
# rxe in 6.1 opens its UDP socket (4791) in the initial namespace only
# and hands a packet to the rxe device of the netdev it arrived on, so
# RoCE consumers in the guest run both sides on rxeA, which loops
# packets to its own MAC back in place (as siwA does over lo). The
# modules rxe needs come from the kernel tree (udp_tunnel, crc32).
RXE_ADDR=198.19.0.1
RXE_PEER_ADDR=198.19.0.2

setup_rxe_host() {
	local m
	for m in udp_tunnel ip6_udp_tunnel crc32_generic rdma_rxe; do
		[ ! -f "$MODDIR/$m.ko" ] || grep -q "^$m " /proc/modules ||
			insmod "$MODDIR/$m.ko" || return 1
	done
	veth_to_b veth8 "$RXE_ADDR" veth9 "$RXE_PEER_ADDR" &&
	rdma link add rxeA type rxe netdev veth8
}

# run_kunit_suites <file>: for each "<module> <suite>" line of <file>
# (blank lines and # comments skipped), load the test module and append
# the suite's KTAP to $RESULTS. A module holding several suites
# (consecutive lines) is loaded once. No process substitution: the guest
# has no /dev/fd.
run_kunit_suites() {
	local mod suite loaded=
	while read -r mod suite; do
		case "$mod" in '' | '#'*) continue ;; esac
		if [ "$mod" != "$loaded" ]; then
			[ -z "$loaded" ] || rmmod "$loaded"
			loaded=
			if ! insmod "$MODDIR/$mod.ko"; then
				echo "kdapl-guest: insmod $mod failed"
				continue
			fi
			loaded=$mod
		fi
		cat "/sys/kernel/debug/kunit/$suite/results" >>"$RESULTS"
	done <"$1"
	[ -z "$loaded" ] || rmmod "$loaded"
}

# debugfs tree of a module, one line per file with its first line.
show_debugfs() {
	local f
	for f in $(find "/sys/kernel/debug/$1" -type f | sort); do
		printf '%s: %s\n' "$f" "$(head -n 1 "$f" 2>/dev/null)"
	done
}

# The kiwarp pair: veth2 (198.51.100.1) in namespace "b" carries our
# RNIC kw0, veth3 (198.51.100.2) in the root namespace a second siw
# device siwC. A separate pair, because rdma_cm maps an address to the
# first RDMA device on its netdev (kw0 must not share a netdev with
# siw). kw0 sits in "b" because siw opens its sockets in the calling
# task's namespace (kernel tests run in the root one), while kiwarp
# always uses its netdev's namespace.
KW_A_ADDR=198.51.100.1
KW_B_ADDR=198.51.100.2
# IPv6 through iw_cm (kunit/kiwarp_rping_test.c)
KW_A_ADDR6=2001:db8:2::1
KW_B_ADDR6=2001:db8:2::2

setup_kiwarp_hosts() {
	ip link add veth2 type veth peer name veth3 &&
	ip link set veth2 netns b &&
	ip netns exec b ip addr add "$KW_A_ADDR/24" dev veth2 &&
	ip netns exec b ip link set veth2 up &&
	ip netns exec b ip -6 addr add "$KW_A_ADDR6/64" dev veth2 nodad &&
	ip addr add "$KW_B_ADDR/24" dev veth3 &&
	ip -6 addr add "$KW_B_ADDR6/64" dev veth3 nodad &&
	ip link set veth3 up &&
	rdma link add siwC type siw netdev veth3 &&
	setup_kiwarp_pair
}

# A third pair for kiwarp against kiwarp: veth4 (203.0.113.1, root
# namespace, kw1) and veth5 (203.0.113.2, namespace b, kw2); also
# 2001:db8:4::1 and ::2 for the socket takeover's IPv6 case.
KW1_ADDR=203.0.113.1
KW2_ADDR=203.0.113.2
KW1_ADDR6=2001:db8:4::1
KW2_ADDR6=2001:db8:4::2

setup_kiwarp_pair() {
	ip link add veth4 type veth peer name veth5 &&
	ip link set veth5 netns b &&
	ip addr add "$KW1_ADDR/24" dev veth4 &&
	ip -6 addr add "$KW1_ADDR6/64" dev veth4 nodad &&
	ip link set veth4 up &&
	ip netns exec b ip addr add "$KW2_ADDR/24" dev veth5 &&
	ip netns exec b ip -6 addr add "$KW2_ADDR6/64" dev veth5 nodad &&
	ip netns exec b ip link set veth5 up
}

# kw0 on veth2 in namespace b, kw1 on veth4, kw2 on veth5 in b;
# kiwarp.ko must be loaded.
add_kiwarp_device() {
	ip netns exec b rdma link add kw0 type kiwarp netdev veth2 &&
	rdma link add kw1 type kiwarp netdev veth4 &&
	ip netns exec b rdma link add kw2 type kiwarp netdev veth5
}

# kiwarp device lifetime checks (suite kiwarp_device); vk0/vk1 is a
# scratch veth pair.
kw_link_add_delete() {
	ip link add vk0 type veth peer name vk1 &&
	rdma link add kwt type kiwarp netdev vk0 &&
	[ -d /sys/kernel/debug/kiwarp/kwt ] &&
	rdma link show | grep -q '^link kwt/1 ' &&
	rdma link delete kwt &&
	! rdma link show | grep -q '^link kwt/' &&
	[ ! -e /sys/kernel/debug/kiwarp/kwt ]
}
kw_netdev_removal() {
	rdma link add kwt type kiwarp netdev vk0 &&
	ip link del vk0 &&
	sleep 1 &&
	! rdma link show | grep -q '^link kwt/'
}
kw_duplicate() {
	! rdma link add kwdup type kiwarp netdev veth4 2>/dev/null &&
	! rdma link add kwlo type kiwarp netdev lo 2>/dev/null
}
kw_unload_reload() {
	rmmod kiwarp &&
	! rdma link show | grep -q '^link kw'
	[ ! -e /sys/kernel/debug/kiwarp ] &&
	insmod "$MODDIR/kiwarp.ko" &&
	add_kiwarp_device
}

# Suite kiwarp_device: devices come and go through every path.
kiwarp_device_suite() {
	ktap_suite kiwarp_device 4
	ktap_check link_add_delete kw_link_add_delete
	ktap_check removed_with_netdev kw_netdev_removal
	ktap_check duplicate_or_loopback_refused kw_duplicate
	ktap_check unload_with_devices_and_reload kw_unload_reload
	ktap_end
}

# rping_around MODULE SUITE PORT_S PORT_C LOG USERSUITE CASE_S CASE_C:
# userspace rping on siwC (root namespace, 198.51.100.2) around the KUnit
# module MODULE, whose side is kw0 (198.51.100.1, namespace b). rping -s
# on PORT_S waits for the kernel client of one case; rping -c retries on
# PORT_C until another case's listener is up. Then the KUnit suite SUITE
# and a suite USERSUITE with rping's own verdicts (exit status, -V, every
# round) as CASE_S (rping's server) and CASE_C (rping's client). The
# logs are /tmp/LOG-s.log and /tmp/LOG-c.log. Needs kiwarp and kw0.
KDAPL_RPING_COUNT=100
rping_around() {
	local mod=$1 suite=$2 ps=$3 pc=$4 log=/tmp/$5 usuite=$6 cs=$7 cc=$8
	local spid cpid rs=0 rc=0 n=$KDAPL_RPING_COUNT
	rping -s -a "$KW_B_ADDR" -p "$ps" -C "$n" -S 64 -V \
		>"$log-s.log" 2>&1 &
	spid=$!
	(
		i=0
		while [ $i -lt 400 ]; do
			if timeout 120 rping -c -a "$KW_A_ADDR" -p "$pc" \
				-C "$n" -S 64 -V -v >"$log-c.log" 2>&1; then
				exit 0
			fi
			i=$((i + 1))
			sleep 0.3
		done
		exit 1
	) &
	cpid=$!
	if insmod "$MODDIR/$mod.ko" count="$n" port_server="$ps" \
		port_listen="$pc"; then
		cat "/sys/kernel/debug/kunit/$suite/results" >>"$RESULTS"
		rmmod "$mod"
	else
		echo "kdapl-guest: insmod $mod failed"
	fi
	# Whatever is still waiting has lost its peer.
	sleep 1
	kill "$spid" "$cpid" 2>/dev/null
	wait "$spid" || rs=$?
	wait "$cpid" || rc=$?
	ktap_suite "$usuite" 2
	if [ $rs -eq 0 ]; then
		ktap_case ok "$cs"
	else
		ktap_case fail "$cs" "exit $rs" \
			"$(tail -n 5 "$log-s.log" | tr '\n' '|')"
	fi
	if [ $rc -eq 0 ] &&
		[ "$(grep -c 'ping data' "$log-c.log")" -eq "$n" ]; then
		ktap_case ok "$cc"
	else
		ktap_case fail "$cc" "exit $rc" \
			"$(tail -n 5 "$log-c.log" | tr '\n' '|')"
	fi
	ktap_end
}

# kdapl_rping_suites: kDAPL's socket extensions (kunit/kdapl_rping_test.c:
# dat_iw_socket_connect to rping -s, an SSP for rping -c). Needs kdapl.
kdapl_rping_suites() {
	rping_around kdapl_rping_test kdapl_rping 7174 7175 krping \
		rping_userspace rping_server_against_socket_connect \
		rping_client_against_ssp
}

# kiwarp_rping_suites: plain kernel rdma_cm endpoints on kiwarp speaking
# rping's protocol (kunit/kiwarp_rping_test.c), both roles.
kiwarp_rping_suites() {
	rping_around kiwarp_rping_test kiwarp_rping 7176 7177 kwrping \
		kiwarp_rping_userspace rping_server_against_kiwarp_client \
		rping_client_against_kiwarp_server
}

# Suite kiwarp_unload_live: kdapl_demo holds a connection between kw1
# and kw2 (two IAs, two connected EPs), then kiwarp is unloaded under
# it: module exit unregisters the devices, ib_core has kdapl release
# them (its EPs see the device removal), nothing is left. Needs kdapl,
# kiwarp, kw1 and kw2; kiwarp is gone afterwards.
kw_live_eps() {
	[ "$(grep -c " CONNECTED " /sys/kernel/debug/kdapl/eps)" -eq "$1" ] ||
		{ cat /sys/kernel/debug/kdapl/eps; false; }
}
kw_gone() {
	! grep -q '^kiwarp ' /proc/modules &&
	[ ! -e /sys/kernel/debug/kiwarp ] &&
	! rdma link show | grep -q '^link kw'
}
kw_gone_consumers_told() {
	sleep 2
	kw_gone && kw_live_eps 0
}
kw_demo_unloads() {
	rmmod kdapl_demo &&
	dmesg | tail -n 50 | grep -q "kdapl_demo: connection already down" &&
	[ "$(grep -c . /sys/kernel/debug/kdapl/eps)" -eq 1 ]
}
kiwarp_unload_live_suite() {
	ktap_suite kiwarp_unload_live 5
	ktap_check demo_connected_kw1_kw2 insmod "$MODDIR/kdapl_demo.ko" \
		ia_a=kw1 ia_b=kw2 addr_b="$KW2_ADDR" port=7952 count=20
	ktap_check two_connected_eps kw_live_eps 2
	ktap_check rmmod_kiwarp_with_live_connections timeout 60 \
		busybox rmmod kiwarp
	ktap_check kiwarp_gone_consumers_told kw_gone_consumers_told
	ktap_check demo_unloads_after_removal kw_demo_unloads
	ktap_end
}

# Suite kiwarp_wire_user: the userspace malformed-frame peer
# (tools/wirepeer, built by the host stage) on a plain TCP socket in the
# root namespace against kiwarp_wire_target.ko's listener on kw0; the
# peer prints the suite's KTAP itself. Needs kiwarp and kw0.
WIREPEER=$KDAPL_SRC/build/tools/wirepeer/kiwarp-wirepeer
kiwarp_wire_user_suite() {
	if [ ! -x "$WIREPEER" ] ||
		! insmod "$MODDIR/kiwarp_wire_target.ko"; then
		ktap_suite kiwarp_wire_user 1
		ktap_case fail wirepeer_started "no $WIREPEER or insmod failed"
		ktap_end
		return
	fi
	# kiwarp's default fpdu_segs (large FPDUs offered): the peer offers
	# none, so read_responses_within_mss must get one-MSS FPDUs; and 60
	# rounds of random FPDU streams (make stress runs 800)
	timeout 600 "$WIREPEER" --addr "$KW_A_ADDR" --port 7180 --fuzz 60 \
		--seed "$(date +%s)" >>"$RESULTS" ||
		echo "kdapl-guest: kiwarp-wirepeer exit $?"
	cat /sys/kernel/debug/kiwarp_wire_target/conns
	rmmod kiwarp_wire_target
}

# Suite kdapl_wire_user: the same peer's socket takeover cases
# (tools/wirepeer/takeover.cc, --takeover 1) against
# kdapl_wire_target.ko, which drives kdapl's SSP and
# dat_iw_socket_connect on kw0: the peer misbehaves in the streaming
# phase, in the MPA exchange on the taken-over socket and after it.
# Needs kdapl, kiwarp and kw0.
kdapl_wire_user_suite() {
	if [ ! -x "$WIREPEER" ] ||
		! insmod "$MODDIR/kdapl_wire_target.ko"; then
		ktap_suite kdapl_wire_user 1
		ktap_case fail wirepeer_started "no $WIREPEER or insmod failed"
		ktap_end
		return
	fi
	timeout 600 "$WIREPEER" --takeover 1 --suite kdapl_wire_user \
		--addr "$KW_A_ADDR" --local-addr "$KW_B_ADDR" \
		--seed "$(date +%s)" >>"$RESULTS" ||
		echo "kdapl-guest: kiwarp-wirepeer --takeover exit $?"
	cat /sys/kernel/debug/kdapl_wire_target/sessions
	rmmod kdapl_wire_target
}

# Suite kdapl_bench_smoke: kdapl_bench.ko (make bench) loads, makes its
# passive ends from namespace b (the DAT and TCP responders, the setup
# test's PSP) and runs one tiny measurement of each kind on the debug
# kernel; numbers are not judged, only that each command succeeds and
# reports its figures, and that the responders served each connection.
# Needs kdapl, kiwarp, kw1/kw2.
BENCH_CTL=/sys/kernel/debug/kdapl_bench/ctl
# bench_cmd <command> <figure regex>...: the command succeeds and reports
# every figure
bench_cmd() {
	local f

	echo "$1" >"$BENCH_CTL" || return 1
	shift
	for f in "$@"; do
		grep -qE "^$f [0-9]+\.[0-9]{3}$" "$BENCH_CTL" ||
			{ echo "kdapl-guest: no figure $f"; cat "$BENCH_CTL";
			  return 1; }
	done
}
bench_in_b() {
	nsenter --net=/run/netns/b sh -c "echo '$1' >$BENCH_CTL"
}
bench_smoke_load() {
	insmod "$MODDIR/kdapl_bench.ko" &&
	bench_in_b "respond ia=kw2 port=7803" &&
	bench_in_b "respond tcp port=7802" &&
	bench_in_b "serve ia=kw2 port=7801" &&
	bench_in_b "serve tcp port=7805"	# namespace b, for the verbs test
}
# The DAT responder served the ping-pong and the two writes, the TCP one
# the ping-pong and the stream: one connection each, the warm-up and
# every measured run on it.
bench_smoke_unload() {
	echo unrespond >"$BENCH_CTL" &&
	grep -qx "kw2.served 3.000" "$BENCH_CTL" &&
	grep -qx "tcp.served 2.000" "$BENCH_CTL" &&
	echo unserve >"$BENCH_CTL" && rmmod kdapl_bench ||
		{ cat "$BENCH_CTL"; return 1; }
}
kdapl_bench_smoke_suite() {
	local ours="ia_a=kw1 addr=$KW2_ADDR port=7803"
	local setup="ia_a=kw1 ia_b=kw2 addr=$KW2_ADDR port=7801"
	ktap_suite kdapl_bench_smoke 10
	ktap_check load_and_serve bench_smoke_load
	# percentiles, the histogram the host pools, the run's CPU cost
	ktap_check dat_pingpong bench_cmd \
		"dat test=lat $ours size=64 rounds=20 warm=5 reps=1 tag=s.lat" \
		's\.lat\.median' 's\.lat\.p999' 's\.lat\.stalls' \
		's\.lat\.hist\.[0-9]+_[0-9]+' 's\.lat\.us_per_op' \
		's\.lat\.cs_per_op' 's\.lat\.ipi_per_op' 's\.lat\.post_ns'
	ktap_check dat_rdma_write_64k bench_cmd \
		"dat test=write $ours size=65536 ms=100 reps=1 tag=s.write" \
		's\.write' 's\.write\.us_per_mb' 's\.write\.cpus'
	# selective signaling: every 4th request signaled, DAT and verbs
	ktap_check dat_write_signal_4 bench_cmd \
		"dat test=write $ours size=4096 depth=16 signal=4 ms=100 reps=1 tag=s.sig" \
		's\.sig' 's\.sig\.us_per_mb'
	ktap_check verbs_pingpong_signal_4 bench_cmd \
		"verbs test=lat ia_a=kw1 ia_b=kw2 addr=$KW2_ADDR port=7804 size=64 rounds=20 warm=5 reps=1 signal=4 tag=s.vlat" \
		's\.vlat\.median' 's\.vlat\.us_per_op' 's\.vlat\.post_ns'
	ktap_check dat_setup_rate bench_cmd \
		"dat test=conn $setup rounds=2 reps=1 tag=s.conn" 's\.conn'
	ktap_check tcp_pingpong bench_cmd \
		"tcp test=lat addr=$KW2_ADDR port=7802 size=64 rounds=20 reps=2 tag=s.tcp" \
		's\.tcp\.median' 's\.tcp\.us_per_op'
	# one connection, three runs, each ended by the responder's count
	ktap_check tcp_stream_64k bench_cmd \
		"tcp test=stream addr=$KW2_ADDR port=7802 size=65536 ms=100 warm=50 reps=2 tag=s.stream" \
		's\.stream' 's\.stream\.us_per_mb' 's\.stream\.busy_cpu0' \
		's\.stream\.busy_cpu1'
	# the primitives' price the bench records first (bench/calib.c)
	ktap_check calib bench_cmd "calib rounds=1000 tag=s.cal" \
		's\.cal\.spin_lock_irqsave_ns' 's\.cal\.atomic_inc_ns' \
		's\.cal\.ktime_get_ns' 's\.cal\.call_ns' \
		's\.cal\.indirect_call_ns' 's\.cal\.noise_p50_ns' \
		's\.cal\.noise_p99_ns' 's\.cal\.noise_p999_ns'
	ktap_check unserve_and_unload bench_smoke_unload
	ktap_end
}

# --- kiwarp_rdma_tool: what `rdma res` and `rdma statistic` show ---------
# kdapl_demo between kw1 and kw2 (its EPs stay connected while loaded).
RT_LOG=$OUT/rdma-tool

# rt_field NAME: the value after NAME in stdin's words (first match);
# the rdma tool prints a driver's details as drv_<name> <value>
rt_field() {
	awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }'
}

rt_demo() {
	insmod "$MODDIR/kdapl_demo.ko" ia_a=kw1 ia_b=kw2 addr_b="$KW2_ADDR" \
		port=7952 count=20
}

# The demo's connected QP on kw1: kiwarp's state, both addresses, the
# MPA revision, the Read depths and the bytes it moved.
rt_res_qp() {
	local out
	out=$(rdma res show qp link kw1 -dd | tee "$RT_LOG-qp.txt")
	echo "$out"
	local line
	line=$(echo "$out" |
		grep "drv_laddr $KW1_ADDR:[0-9]* drv_raddr $KW2_ADDR:7952")
	echo "$line" | grep -q "drv_state RTS" &&
	[ "$(echo "$line" | rt_field drv_mpa_rev)" -eq 2 ] &&
	[ "$(echo "$line" | rt_field drv_ird)" -ge 1 ] &&
	[ "$(echo "$line" | rt_field drv_ord)" -ge 1 ] &&
	[ "$(echo "$line" | rt_field drv_tx_bytes)" -gt 0 ] &&
	[ "$(echo "$line" | rt_field drv_rx_fpdus)" -gt 0 ]
}

# kw1's CQs: their CPU, and notifications counted
rt_res_cq() {
	local out
	out=$(rdma res show cq dev kw1 -dd)
	echo "$out"
	echo "$out" | grep -q "drv_cpu [0-9]" &&
	echo "$out" | grep -q "drv_affine [01]" &&
	echo "$out" | awk '{ for (i = 1; i < NF; i++) if ($i == "drv_notifies") s += $(i + 1) }
		END { exit !(s > 0) }'
}

rt_res_mr() {
	local out
	out=$(rdma res show mr dev kw1 -dd)
	echo "$out"
	echo "$out" | grep -q "drv_stag 0x[0-9a-f]* drv_kind frmr drv_valid 1"
}

# rt_counter NAME: kw1's port counter NAME as `rdma statistic` says
rt_counter() {
	rdma statistic show link kw1/1 | rt_field "$1"
}

# The port counters count the demo's traffic, as sysfs does
rt_statistic() {
	local tx rx sys
	rdma statistic show link kw1/1
	tx=$(rt_counter tx_bytes)
	rx=$(rt_counter rx_fpdus)
	sys=$(cat /sys/class/infiniband/kw1/ports/1/hw_counters/tx_bytes)
	[ "${tx:-0}" -gt 0 ] && [ "${rx:-0}" -gt 0 ] && [ "$sys" -ge "$tx" ]
}

# Destroyed QPs keep their counts in the port's (no counter goes back)
rt_counters_kept() {
	local before after
	before=$(rt_counter tx_bytes)
	busybox rmmod kdapl_demo || return 1
	! rdma res show qp link kw1 | grep -q "state RTS" ||
		{ echo "a QP is left"; return 1; }
	sleep 0.1	# past the counters' 10 ms lifespan
	after=$(rt_counter tx_bytes)
	echo "tx_bytes $before -> $after"
	[ "${before:-0}" -gt 0 ] && [ "${after:-0}" -ge "$before" ]
}

kiwarp_rdma_tool_suite() {
	ktap_suite kiwarp_rdma_tool 6
	ktap_check demo_over_kiwarp rt_demo
	ktap_check res_qp_details rt_res_qp
	ktap_check res_cq_details rt_res_cq
	ktap_check res_mr_details rt_res_mr
	ktap_check statistic_counts_traffic rt_statistic
	ktap_check counters_kept_after_destroy rt_counters_kept
	ktap_end
}

# --- trace_connection: kdapl's and kiwarp's tracepoints for one connection --
# kdapl_demo between kw1 and kw2 (connect, 20 echoes, RDMA write and
# read) and its graceful disconnect, traced through tracefs.
TR=/sys/kernel/debug/tracing
TR_LOG=$OUT/trace-connection.txt

tr_run() {
	# a first connection: neither side knows the other's MAC yet
	ip neigh flush dev veth4 && ip netns exec b ip neigh flush dev veth5 &&
	echo 0 >"$TR/tracing_on" && : >"$TR/trace" &&
	echo 1 >"$TR/events/kdapl/enable" &&
	echo 1 >"$TR/events/kiwarp/enable" &&
	echo 1 >"$TR/tracing_on" || return 1
	insmod "$MODDIR/kdapl_demo.ko" ia_a=kw1 ia_b=kw2 addr_b="$KW2_ADDR" \
		port=7953 count=20 &&
	busybox rmmod kdapl_demo
	local rc=$?
	echo 0 >"$TR/tracing_on"
	echo 0 >"$TR/events/kdapl/enable"
	echo 0 >"$TR/events/kiwarp/enable"
	grep -v '^#' "$TR/trace" >"$TR_LOG"
	echo "$(wc -l <"$TR_LOG") records"
	return $rc
}

# tr_order PATTERN...: each PATTERN matches a record after the previous
# one's first match
tr_order() {
	local p n last=0
	for p in "$@"; do
		n=$(awk -v from="$last" -v pat="$p" \
			'NR > from && $0 ~ pat { print NR; exit }' "$TR_LOG")
		[ -n "$n" ] || { echo "no record /$p/ after line $last";
			sed -n "$((last + 1)),$((last + 20))p" "$TR_LOG"; return 1; }
		last=$n
	done
}

# tr_count PATTERN MIN: at least MIN records match
tr_count() {
	local n
	n=$(grep -cE "$1" "$TR_LOG")
	[ "$n" -ge "$2" ] || { echo "/$1/: $n records, want >= $2"; return 1; }
}

# connect: the active EP asks, MPA binds kw1's QP, both sides established
tr_connect() {
	tr_order 'kdapl_ep_state: .*UNCONNECTED -> ACTIVE_CONNECTION_PENDING' \
		"kiwarp_bind: kw[12] qp [0-9]+ .* mpa rev 2" \
		'kiwarp_qp_state: kw[12] qp [0-9]+ IDLE -> RTS' \
		'kdapl_cm_event: .* established status 0' \
		'kdapl_conn_event: .* ESTABLISHED'
}

# tr_time PATTERN: the timestamp (s) of the first record matching it
tr_time() {
	awk -v pat="$1" '$0 ~ pat { for (i = 1; i <= NF; i++)
		if ($i ~ /^[0-9]+\.[0-9]+:$/) { sub(":", "", $i); print $i; exit } }' \
		"$TR_LOG"
}

# The first connection to a peer resolves its address in well under the
# 2 s rdma_cm time-out (an ARP reply that beat ib_core's queued request
# used to leave the request asleep until then; kdapl/cm.c)
tr_resolve_fast() {
	local t0 t1
	t0=$(tr_time 'kdapl_ep_state: .*UNCONNECTED -> ACTIVE_CONNECTION_PENDING')
	t1=$(tr_time 'kdapl_cm_event: .* address resolved')
	echo "connect at $t0, address resolved at $t1"
	[ -n "$t0" ] && [ -n "$t1" ] &&
	awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a < 0.5) }'
}

# the transfer: sends, echoes from B's upcall, the RDMA write and read
tr_transfer() {
	tr_count 'kdapl_dto_post: .* SEND ' 40 &&
	tr_count 'kdapl_dto_done: .* RECV .* status 0 ' 20 &&
	tr_count 'kdapl_upcall: .* DTO_COMPLETION' 20 &&
	tr_order 'kdapl_dto_post: .* RDMA_WRITE .* len 65536' \
		'kdapl_dto_done: .* RDMA_WRITE .* status 0 len 65536' \
		'kdapl_dto_post: .* RDMA_READ .* len 65536' \
		'kdapl_dto_done: .* RDMA_READ .* status 0 len 65536'
}

# the graceful disconnect: the call, kiwarp closing, the event on both
tr_disconnect() {
	tr_order 'kdapl_disconnect: .* graceful from CONNECTED' \
		'kdapl_ep_state: .* CONNECTED -> DISCONNECT_PENDING' \
		'kiwarp_qp_state: kw[12] qp [0-9]+ RTS -> (CLOSING|ERROR)' \
		'kdapl_conn_event: .* DISCONNECTED' &&
	tr_count 'kdapl_conn_event: .* DISCONNECTED' 2 &&
	! grep -q 'kiwarp_terminate' "$TR_LOG"
}

trace_connection_suite() {
	ktap_suite trace_connection 5
	ktap_check connect_transfer_disconnect_traced tr_run
	ktap_check connect_sequence tr_connect
	ktap_check first_connect_resolves_fast tr_resolve_fast
	ktap_check transfer_records tr_transfer
	ktap_check disconnect_sequence tr_disconnect
	ktap_end
}

# --- kdapl_cpus_mask: a non-default cpus= (issue 15 item 10) -------------
# kdapl reloaded with cpus=1: every EVD of kdapl_demo's connection (over
# siwA) is bound to CPU 1 and processed there (evds: cpu, now); a list
# that names no usable CPU is refused at load. Needs kdapl loaded and
# nothing using it; leaves it loaded with the default mask.
evds_on_cpu1() {
	local evds=/sys/kernel/debug/kdapl/evds
	insmod "$MODDIR/kdapl_demo.ko" || return 1
	awk 'NR > 1 { n++; if ($9 != 1 || $10 != 1) bad++ }
	     END { exit !(n >= 6 && !bad) }' "$evds" ||
		{ cat "$evds"; busybox rmmod kdapl_demo; return 1; }
	busybox rmmod kdapl_demo
}
kdapl_cpus_mask_suite() {
	ktap_suite kdapl_cpus_mask 3
	ktap_check reload_with_cpus_1 sh -c \
		"rmmod kdapl && insmod '$MODDIR/kdapl.ko' cpus=1"
	ktap_check demo_evds_on_cpu_1 evds_on_cpu1
	ktap_check unusable_mask_refused sh -c "rmmod kdapl &&
		! insmod '$MODDIR/kdapl.ko' cpus=4000 2>/dev/null &&
		dmesg | tail -n 5 |
			grep -q 'kdapl: cpus=4000 names no usable CPU' &&
		insmod '$MODDIR/kdapl.ko'"
	ktap_end
}
