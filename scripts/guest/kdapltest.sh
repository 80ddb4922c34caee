# shellcheck shell=bash
# kdapltest in the guest (sourced after lib.sh, kdapl.ko loaded, the two
# test hosts up): suite kdapltest_interop, OFA dapltest (uDAPL over siw)
# against kdapltest.ko. See Documentation/kdapltest.rst.
#
# siw opens its sockets in the caller's namespace: the kernel client runs
# on siwA in the root namespace, OFA's `dapltest -T S` in namespace b on
# siwB (veth1, 192.0.2.2).

KDT_BIN=$KDAPL_SRC/build/tools/kdapltest/kdapltest
KDT_DATCONF=/tmp/kdapltest-dat.conf
# logs go to the run directory: the host keeps them (build/.../out/)
KDT_LOG=$OUT/kdapltest-
KDT_OPS="client SR 4096 server SR 4096 client RW 8192 client RR 8192"

kdt_datconf() {
	cat >"$KDT_DATCONF" <<'EOC'
ofa-v2-veth0 u2.0 nonthreadsafe default libdaplofa.so.2 dapl.2.0 "veth0 0" ""
ofa-v2-veth1 u2.0 nonthreadsafe default libdaplofa.so.2 dapl.2.0 "veth1 0" ""
EOC
}

# OFA dapltest -T S in namespace b; waits for "Service Point Ready".
kdt_ofa_server_start() {
	local i
	: >"${KDT_LOG}ofa-server.log"
	# stdbuf: dapltest's stdout to a file is block buffered, and only
	# "Service Point Ready" is flushed by dapltest itself
	ip netns exec b env DAT_OVERRIDE="$KDT_DATCONF" \
		timeout 600 stdbuf -oL -eL dapltest -T S -D ofa-v2-veth1 \
		>"${KDT_LOG}ofa-server.log" 2>&1 &
	KDT_OFA_PID=$!
	for i in $(seq 1 100); do
		grep -q "Service Point Ready" "${KDT_LOG}ofa-server.log" &&
			return 0
		kill -0 "$KDT_OFA_PID" 2>/dev/null || break
		sleep 0.2
	done
	cat "${KDT_LOG}ofa-server.log"
	return 1
}

kdt_module_loads() {
	insmod "$MODDIR/kdapltest.ko" && [ -c /dev/kdapltest ]
}

# The transaction test of the issue: -V, SR RW RR, 2 threads x 2 EPs.
kdt_ofa_server_kernel_client() {
	local rc=0 i
	timeout 300 "$KDT_BIN" -T T -s "$HOST_B_ADDR" -D siwA -i 100 -t 2 \
		-w 2 -V $KDT_OPS >"${KDT_LOG}client.log" 2>&1 || rc=$?
	cat "${KDT_LOG}client.log"
	[ "$rc" -eq 0 ] && grep -q "transaction test passed" \
		"${KDT_LOG}client.log" || { dmesg | tail -n 20; return 1; }
	# the server saw the client through to the end (its threads finish
	# after their disconnects), without an error
	for i in $(seq 1 100); do
		grep -q "Transaction Test Finished" "${KDT_LOG}ofa-server.log" &&
			break
		sleep 0.2
	done
	grep -q "Transaction Test Finished" "${KDT_LOG}ofa-server.log" &&
	! grep -q "Error" "${KDT_LOG}ofa-server.log" ||
		{ cat "${KDT_LOG}ofa-server.log"; return 1; }
}

# A second run with --json: the module serves one test after another.
kdt_json_second_run() {
	timeout 300 "$KDT_BIN" -T T -s "$HOST_B_ADDR" -D siwA -i 20 \
		client SR 1024 server SR 1024 --json >"${KDT_LOG}json.log" 2>&1
	cat "${KDT_LOG}json.log"
	grep -q '"status":0,' "${KDT_LOG}json.log"
}

# Bad command lines are refused by the front end (exit 2, a reason).
kdt_bad_cmdline() {
	local rc=0
	"$KDT_BIN" -T X >"${KDT_LOG}bad.log" 2>&1 || rc=$?
	[ "$rc" -eq 2 ] && grep -q "unknown test type" "${KDT_LOG}bad.log" ||
		return 1
	rc=0
	"$KDT_BIN" -T T -s "$HOST_B_ADDR" -D siwA client SR >"${KDT_LOG}bad.log" \
		2>&1 || rc=$?
	[ "$rc" -eq 2 ] && grep -q "server SR" "${KDT_LOG}bad.log"
}

# Bad input the kernel sees: an IA that does not exist, 9 segments.
kdt_kernel_refuses() {
	local rc=0
	"$KDT_BIN" -T T -s "$HOST_B_ADDR" -D nosuchia client SR server SR \
		>"${KDT_LOG}bad.log" 2>&1 || rc=$?
	cat "${KDT_LOG}bad.log"
	[ "$rc" -eq 1 ] && grep -q "cannot open IA nosuchia" "${KDT_LOG}bad.log"
}

# -T Q makes the OFA server exit ("DT_cs_Server (...): Exiting.").
kdt_quit_ofa_server() {
	local i
	timeout 60 "$KDT_BIN" -T Q -s "$HOST_B_ADDR" -D siwA || return 1
	# it exits once its test threads saw their disconnects
	for i in $(seq 1 300); do
		grep -q "Exiting" "${KDT_LOG}ofa-server.log" && return 0
		sleep 0.2
	done
	cat "${KDT_LOG}ofa-server.log"
	return 1
}

kdt_module_unloads() {
	rmmod kdapltest && [ ! -e /dev/kdapltest ]
}

kdapltest_interop_suite() {
	kdt_datconf
	ktap_suite kdapltest_interop 8
	ktap_check kdapltest_module_loads kdt_module_loads
	# not through ktap_check: the server must outlive a subshell
	if kdt_ofa_server_start >"${KDT_LOG}start.log" 2>&1; then
		ktap_case ok ofa_server_ready
	else
		ktap_case fail ofa_server_ready "$(tail -n 5 "${KDT_LOG}start.log" |
			tr '\n' '|')"
	fi
	ktap_check interop_ofa_server_kdapltest_client \
		kdt_ofa_server_kernel_client
	ktap_check kdapltest_json_second_run kdt_json_second_run
	ktap_check kdapltest_bad_cmdline kdt_bad_cmdline
	ktap_check kdapltest_kernel_refuses_bad_ia kdt_kernel_refuses
	ktap_check kdapltest_quits_ofa_server kdt_quit_ofa_server
	ktap_check kdapltest_module_unloads kdt_module_unloads
	ktap_end
	echo "kdapl-guest: kdapltest_interop done at $(cut -d' ' -f1 /proc/uptime) s"
	kill "$KDT_OFA_PID" 2>/dev/null
}
