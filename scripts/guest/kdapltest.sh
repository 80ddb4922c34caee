# shellcheck shell=bash
# kdapltest in the guest (sourced after lib.sh; kdapl.ko and kiwarp.ko
# loaded, the test hosts and kw1/kw2 up): suite kdapltest_interop, OFA
# dapltest (uDAPL over siw) against kdapltest.ko both ways, kdapltest
# against itself, bad input. See Documentation/kdapltest.rst.
#
# siw opens its sockets in the namespace of the task that calls it: the
# kernel's siw side is siwA in the root namespace (client threads,
# connection work and the server's ioctl all run there), OFA's side is
# siwB in namespace b (veth1, 192.0.2.2). kdapltest against itself runs
# over kiwarp, which has no such limit: the server on kw1 (203.0.113.1,
# root namespace), the client on kw2 (namespace b).

KDT_BIN=$KDAPL_SRC/build/tools/kdapltest/kdapltest
KDT_DATCONF=/tmp/kdapltest-dat.conf
# logs go to the run directory: the host keeps them (build/.../out/)
KDT_LOG=$OUT/kdapltest-
KDT_OPS="client SR 4096 server SR 4096 client RW 8192 client RR 8192"
# iterations of the issue's transaction test in make check: 2 threads x
# 2 EPs x 7 ops x 20 = 560 WQEs, seconds on the debug kernel (KASAN and
# lockdep make it slow, and other guests may share the machine)
KDT_ITER=20
# the servers' processes, once started
KDT_OFA_PID=
KDT_SRV_SIW=
KDT_SRV_KW=

kdt_datconf() {
	cat >"$KDT_DATCONF" <<'EOC'
ofa-v2-veth0 u2.0 nonthreadsafe default libdaplofa.so.2 dapl.2.0 "veth0 0" ""
ofa-v2-veth1 u2.0 nonthreadsafe default libdaplofa.so.2 dapl.2.0 "veth1 0" ""
ofa-v2-veth8 u2.0 nonthreadsafe default libdaplofa.so.2 dapl.2.0 "veth8 0" ""
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
	kdt_wait_ready "$KDT_OFA_PID" "${KDT_LOG}ofa-server.log"
}

# kdt_wait_ready PID LOG: until LOG says "Service Point Ready" (the
# server listens), while PID lives; 120 s at most.
kdt_wait_ready() {
	local i
	for i in $(seq 1 600); do
		grep -q "Service Point Ready" "$2" && return 0
		kill -0 "$1" 2>/dev/null || break
		sleep 0.2
	done
	cat "$2"
	return 1
}

# kdt_wait_exit PID: until the process is gone (300 s at most). Cases
# run in a subshell (ktap_check), where `wait` cannot see the process:
# what it said on its way out tells how it ended.
kdt_wait_exit() {
	local i
	for i in $(seq 1 600); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.5
	done
	echo "process $1 did not exit"
	return 1
}

# Our kernel servers: on siwA (root namespace) for OFA's client, on kw1
# for our own client (a non-default port: both listen at once).
KDT_KW_PORT=62100
kdt_servers_start() {
	"$KDT_BIN" -T S -D siwA >"${KDT_LOG}server-siw.log" 2>&1 &
	KDT_SRV_SIW=$!
	"$KDT_BIN" -T S -D kw1 -n "$KDT_KW_PORT" \
		>"${KDT_LOG}server-kw.log" 2>&1 &
	KDT_SRV_KW=$!
	kdt_wait_ready "$KDT_SRV_SIW" "${KDT_LOG}server-siw.log" &&
	kdt_wait_ready "$KDT_SRV_KW" "${KDT_LOG}server-kw.log"
}

# The issue's transaction test, OFA's client (namespace b, siwB)
# against our server on siwA, in the background while the other cases
# against our servers run; its verdict is taken after the servers quit.
KDT_OFA_CLIENT=
kdt_kernel_server_ofa_client_start() {
	ip netns exec b env DAT_OVERRIDE="$KDT_DATCONF" timeout 600 \
		stdbuf -oL -eL dapltest -T T -s "$HOST_A_ADDR" -D ofa-v2-veth1 \
		-i "$KDT_ITER" -t 2 -w 2 -V $KDT_OPS \
		>"${KDT_LOG}ofa-client.log" 2>&1 &
	KDT_OFA_CLIENT=$!
}

# Its verdict: it exited (60 s at most after our server did), printed
# its statistics and no error (its exit status says nothing); our
# server counted the test done, not failed.
kdt_kernel_server_ofa_client_verdict() {
	local i
	for i in $(seq 1 120); do
		kill -0 "$KDT_OFA_CLIENT" 2>/dev/null || break
		sleep 0.5
	done
	cat "${KDT_LOG}ofa-client.log"
	if kill -0 "$KDT_OFA_CLIENT" 2>/dev/null; then
		echo "OFA's client did not exit"
		kill "$KDT_OFA_CLIENT"
		return 1
	fi
	local r=0
	[ ! -e "$KDT_SIW_RACES_SRV" ] || r=$(wc -l <"$KDT_SIW_RACES_SRV")
	[ "$r" -eq 0 ] ||
		echo "counting $r -T P run(s) lost to siw's startup race"
	! grep -q "Error\|Failed\|FAIL\|ERR" "${KDT_LOG}ofa-client.log" &&
	grep -q "Stats" "${KDT_LOG}ofa-client.log" &&
	kdt_server_verdict "${KDT_LOG}server-siw.log" \
		"$((3 + r)) tests done, $r failed, 0 clients refused" &&
	kdt_no_new_terminate
}

# kdapltest against itself over kiwarp: the same test, kw2 -> kw1.
kdt_both() {
	local rc=0
	timeout 300 ip netns exec b "$KDT_BIN" -T T -s "$KW1_ADDR" \
		-n "$KDT_KW_PORT" -D kw2 -i "$KDT_ITER" -t 2 -w 2 -V $KDT_OPS \
		>"${KDT_LOG}both.log" 2>&1 || rc=$?
	cat "${KDT_LOG}both.log"
	[ "$rc" -eq 0 ] && grep -q "transaction test passed" "${KDT_LOG}both.log"
}

# kdt_bad_input WHAT CLIENT-ERROR SERVER-ERROR OPTIONS...: a crafted
# client (kw2) against the kw1 server: both sides say what went wrong,
# the client exits 1, the server counts one more refused client.
kdt_bad_input() {
	local what=$1 cerr=$2 serr=$3 rc=0 before
	shift 3
	before=$(grep -c "clients refused" "${KDT_LOG}server-kw.log")
	timeout 120 ip netns exec b "$KDT_BIN" -T T -s "$KW1_ADDR" \
		-n "$KDT_KW_PORT" -D kw2 -i 1 client SR 64 server SR 64 "$@" \
		>"${KDT_LOG}bad-$what.log" 2>&1 || rc=$?
	cat "${KDT_LOG}bad-$what.log"
	[ "$rc" -eq 1 ] && grep -q "$cerr" "${KDT_LOG}bad-$what.log" ||
		{ echo "client: exit $rc"; return 1; }
	# the server's front end reports each refusal with its reason
	local i
	for i in $(seq 1 100); do
		[ "$(grep -c "clients refused" "${KDT_LOG}server-kw.log")" -gt \
			"$before" ] && break
		sleep 0.2
	done
	tail -n 1 "${KDT_LOG}server-kw.log" | grep -q "$serr" ||
		{ cat "${KDT_LOG}server-kw.log"; return 1; }
	dmesg | grep -q "kdapltest: server: client [0-9]* refused: .*$serr"
}

kdt_bad_version() {
	kdt_bad_input version "refused the request" \
		"DAPLTEST VERSION MISMATCH: server 6, client 5" --wire-version 5
}

kdt_bad_truncated() {
	kdt_bad_input truncated "refused the request" \
		"command: 100 bytes, expected 8192 (truncated)" --cmd-bytes 100
}

kdt_bad_test_type() {
	kdt_bad_input type "refused the request" "unknown test type 9" \
		--wire-test-type 9
}

# Both kernel servers quit when asked (OFA's client quits the siw one,
# ours the kiwarp one), once their tests are over: exit status 0.
kdt_servers_quit() {
	local rc=0
	# OFA's exit status says nothing: the server's exit does
	ip netns exec b env DAT_OVERRIDE="$KDT_DATCONF" timeout 60 \
		dapltest -T Q -s "$HOST_A_ADDR" -D ofa-v2-veth1
	timeout 60 ip netns exec b "$KDT_BIN" -T Q -s "$KW1_ADDR" \
		-n "$KDT_KW_PORT" -D kw2 || rc=1
	kdt_wait_exit "$KDT_SRV_SIW" || rc=1
	kdt_wait_exit "$KDT_SRV_KW" || rc=1
	cat "${KDT_LOG}server-siw.log" "${KDT_LOG}server-kw.log"
	[ "$rc" -eq 0 ] &&
	grep -q "server exiting (quit)" "${KDT_LOG}server-siw.log" &&
	grep -q "server exiting (quit)" "${KDT_LOG}server-kw.log"
}

# The siw startup race of dapltest's -T P (Documentation/kdapltest.rst,
# "the server sending first"): our client's connect to OFA's server comes
# back NON_PEER_REJECTED (siw's initiator dropped the connection on the
# server's early first FPDU) and OFA's server logs that test as failed
# ("Received Sync_Msg-reaping DTO problem ... Length mismatch (xfer 0x0
# wanted 0xc)", "Server: Test Failed"). With KDT_RACE_RETRY=1 a run that
# failed exactly so is run once more, and the race is counted in
# KDT_SIW_RACES: OFA's server verdict forgives as many such failures.
#
# The other direction (OFA's client against our server): siw's initiator
# drops the connection the same way, our server gets its sync receive
# flushed (a failed test in its count, "last error: sync recv: completion
# status 1" in its status lines) and OFA's client waits for ever. With
# KDT_RACE_SERVER=<our server's log> a run that timed out while our
# server counted exactly one more failed test with that last error is run
# once more and counted in KDT_SIW_RACES_SRV; the server's verdict
# (kdt_kernel_server_ofa_client_verdict) allows as many failed tests.
KDT_SIW_RACES=${KDT_LOG}siw-races
KDT_SIW_RACES_SRV=${KDT_LOG}siw-races-server
KDT_RACE_CLIENT="performance endpoint: connection failed (event 0x4003)"
KDT_RACE_SRV_ERR="last error: sync recv: completion status 1"

# kdt_srv_failed LOG: the failed tests our server last reported (0 if none)
kdt_srv_failed() {
	local n
	n=$(grep -o '[0-9]* failed, [0-9]* running' "$1" | tail -n 1 |
		cut -d' ' -f1)
	echo "${n:-0}"
}

# kdt_perf_run REPORT NAME COMMAND...: one -T P run (ours prints
# "Operation Throughput   : N ops/sec", OFA's "Operation Throughput :
# N ops/sec"); its ops/s, or why it failed, goes to the file REPORT.
kdt_perf_run() {
	local report=$1 name=$2 rc=0 ops note= srv=${KDT_RACE_SERVER:-} n0=0
	local tmo=${KDT_PERF_TMO:-300}
	shift 2
	[ -z "$srv" ] || n0=$(kdt_srv_failed "$srv")
	timeout "$tmo" "$@" >"${KDT_LOG}perf-$name.log" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ] && [ "${KDT_RACE_RETRY:-0}" = 1 ] &&
		grep -q "$KDT_RACE_CLIENT" "${KDT_LOG}perf-$name.log"; then
		echo "$name" >>"$KDT_SIW_RACES"
		mv "${KDT_LOG}perf-$name.log" "${KDT_LOG}perf-$name-race.log"
		note=" (run again after siw's startup race)"
		rc=0
		timeout "$tmo" "$@" >"${KDT_LOG}perf-$name.log" 2>&1 || rc=$?
	elif [ "$rc" -eq 124 ] && [ -n "$srv" ] &&
		[ "$(kdt_srv_failed "$srv")" -eq $((n0 + 1)) ] &&
		grep ' failed, ' "$srv" | tail -n 1 |
		grep -q "$KDT_RACE_SRV_ERR"; then
		echo "$name" >>"$KDT_SIW_RACES_SRV"
		mv "${KDT_LOG}perf-$name.log" "${KDT_LOG}perf-$name-race.log"
		note=" (run again after siw's startup race, server side)"
		rc=0
		timeout "$tmo" "$@" >"${KDT_LOG}perf-$name.log" 2>&1 || rc=$?
	fi
	ops=$(grep -m1 "Operation Throughput" "${KDT_LOG}perf-$name.log" |
		sed 's/.*: *//')
	# OFA's dapltest exits 0 after a failed test: its "Error" counts
	if [ "$rc" -eq 0 ] && [ -n "$ops" ] &&
		! grep -q "Error" "${KDT_LOG}perf-$name.log"; then
		echo "$name: $ops$note" >>"$report"
		return 0
	fi
	echo "$name: FAILED (exit $rc): $(tail -n 3 "${KDT_LOG}perf-$name.log" |
		tr '\n' '|')" >>"$report"
	return 1
}

# kdt_perf_case NAME RC REPORT: the case, each run's ops/s a comment.
kdt_perf_case() {
	local IFS=$'\n'
	# shellcheck disable=SC2046
	if [ "$2" -eq 0 ]; then
		ktap_case ok "$1" $(cat "$3")
	else
		ktap_case fail "$1" $(cat "$3")
	fi
}

KDT_PERF="-i 50 -p 8"

# kdt_server_verdict LOG COUNTS: the server's own account at its exit.
kdt_server_verdict() {
	grep -q "server exiting (quit): $2" "$1" || { cat "$1"; return 1; }
}

kdt_module_loads() {
	insmod "$MODDIR/kdapltest.ko" && [ -c /dev/kdapltest ]
}

# The transaction test of the issue: -V, SR RW RR, 2 threads x 2 EPs.
# Only the client's verdict here; the server's comes from its complete
# log once it has exited (kdt_ofa_server_verdict).
kdt_ofa_server_kernel_client() {
	local rc=0
	timeout 300 "$KDT_BIN" -T T -s "$HOST_B_ADDR" -D siwA -i "$KDT_ITER" -t 2 \
		-w 2 -V $KDT_OPS >"${KDT_LOG}client.log" 2>&1 || rc=$?
	cat "${KDT_LOG}client.log"
	[ "$rc" -eq 0 ] && grep -q "transaction test passed" \
		"${KDT_LOG}client.log" || { dmesg | tail -n 20; return 1; }
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

# -T Q makes the OFA server exit ("DT_cs_Server (...): Exiting."). It
# exits only once the threads of every test it served are gone (it waits
# for its clients), and its log is complete once the process is: wait
# for the process, not for a line of output.
kdt_quit_ofa_server() {
	timeout 60 "$KDT_BIN" -T Q -s "$HOST_B_ADDR" -D siwA || return 1
	kdt_wait_exit "$KDT_OFA_PID" &&
	grep -q "Exiting" "${KDT_LOG}ofa-server.log" ||
		{ cat "${KDT_LOG}ofa-server.log"; return 1; }
}

# siw's TERMINATEs since the suite began: none is expected on siw in
# this suite. dapltest's server says nothing when a test thread fails
# after the iterations (its final sync), only uDAPL logs a failed
# completion - and not always: siw's "got TERMINATE" in the kernel log
# is what shows a SEND that found no receive (layer 1 DDP, type 2
# untagged buffer, code 2 no buffer). A smaller count (the ring buffer
# wrapped) is not held against the run.
KDT_TERMINATES=0
kdt_count_terminates() {
	dmesg | grep -c "siw: got TERMINATE"
}

kdt_no_new_terminate() {
	[ "$(kdt_count_terminates)" -le "$KDT_TERMINATES" ] && return 0
	echo "siw TERMINATEs during the suite:"
	dmesg | grep "siw: got TERMINATE"
	return 1
}

# The OFA server's view, from its complete log: every transaction test
# it served (the issue's test and the --json run) finished, with no
# error of dapltest's or uDAPL's (a failed completion, an async QP
# error), and siw saw no TERMINATE.
kdt_ofa_server_verdict() {
	local n races=0 seen failed
	n=$(grep -c "Transaction Test Finished" "${KDT_LOG}ofa-server.log")
	[ -f "$KDT_SIW_RACES" ] && races=$(grep -c . "$KDT_SIW_RACES")
	seen=$(grep -c "Received Sync_Msg-reaping DTO problem" \
		"${KDT_LOG}ofa-server.log")
	failed=$(grep -c "^Server: Test Failed" "${KDT_LOG}ofa-server.log")
	[ "$n" -eq 2 ] && [ "$seen" -le "$races" ] && [ "$failed" -le "$races" ] &&
	! grep -v -e "Test Error: Received Sync_Msg-reaping DTO problem" \
		-e "Length mismatch (xfer 0x0 wanted 0xc)" \
		-e "^Server: Test Failed" "${KDT_LOG}ofa-server.log" |
		grep -q "Error\|Failed\|ERR\|async_event" ||
		{ echo "finished tests: $n, siw races $races"
		  cat "${KDT_LOG}ofa-server.log"; return 1; }
	[ "$races" -eq 0 ] || echo "forgiven: $races siw startup race(s)"
	kdt_no_new_terminate
}

kdt_module_unloads() {
	# a server still running (a case failed) is stopped first
	kill "$KDT_SRV_SIW" "$KDT_SRV_KW" 2>/dev/null &&
		{ kdt_wait_exit "$KDT_SRV_SIW"; kdt_wait_exit "$KDT_SRV_KW"; }
	rmmod kdapltest && [ ! -e /dev/kdapltest ]
}

# kdt_case_after RC LOG NAME CHECK...: case NAME passes if the run
# before (exit RC, output LOG) passed and CHECK does now.
kdt_case_after() {
	local rc=$1 log=$2 name=$3
	shift 3
	if [ "$rc" -ne 0 ]; then
		ktap_case fail "$name" "$(tail -n 5 "$log" | tr '\n' '|')"
	else
		ktap_check "$name" "$@"
	fi
}

kdapltest_interop_suite() {
	local crc=0 brc=0 prc=0 kprc=0
	local ofa="ip netns exec b env DAT_OVERRIDE=$KDT_DATCONF dapltest"
	local kw="ip netns exec b $KDT_BIN"
	kdt_datconf
	KDT_TERMINATES=$(kdt_count_terminates)
	: >"${KDT_LOG}perf-ofa.txt"
	rm -f "$KDT_SIW_RACES"
	: >"${KDT_LOG}perf-kernel.txt"
	ktap_suite kdapltest_interop 17
	ktap_check kdapltest_module_loads kdt_module_loads

	# OFA's server (namespace b) and our client; ktap_step: the server
	# must outlive the case
	ktap_step ofa_server_ready kdt_ofa_server_start
	# the verdict waits for the server's exit (kdt_quit_ofa_server)
	kdt_ofa_server_kernel_client >"${KDT_LOG}case1.log" 2>&1 || crc=$?
	# -T P, our client against OFA's server: RW and RR
	# shellcheck disable=SC2086
	{
	KDT_RACE_RETRY=1 kdt_perf_run "${KDT_LOG}perf-ofa.txt" \
		kdapltest_client_RW "$KDT_BIN" -T P -s "$HOST_B_ADDR" -D siwA \
		$KDT_PERF RW 4096 || prc=1
	KDT_RACE_RETRY=1 kdt_perf_run "${KDT_LOG}perf-ofa.txt" \
		kdapltest_client_RR "$KDT_BIN" -T P -s "$HOST_B_ADDR" -D siwA \
		$KDT_PERF RR 4096 || prc=1
	}
	ktap_check kdapltest_json_second_run kdt_json_second_run
	ktap_check kdapltest_bad_cmdline kdt_bad_cmdline
	ktap_check kdapltest_kernel_refuses_bad_ia kdt_kernel_refuses
	ktap_check kdapltest_quits_ofa_server kdt_quit_ofa_server
	kdt_case_after "$crc" "${KDT_LOG}case1.log" \
		interop_ofa_server_kdapltest_client kdt_ofa_server_verdict

	# our servers: OFA's client, bad input, our client
	ktap_step kdapltest_servers_ready kdt_servers_start
	kdt_kernel_server_ofa_client_start
	# -T P, OFA's client against our server: RW and RR
	# shellcheck disable=SC2086
	{
	KDT_RACE_SERVER="${KDT_LOG}server-siw.log" KDT_PERF_TMO=120 \
		kdt_perf_run "${KDT_LOG}perf-ofa.txt" ofa_client_RW $ofa -T P \
		-s "$HOST_A_ADDR" -D ofa-v2-veth1 $KDT_PERF RW 4096 1 || prc=1
	KDT_RACE_SERVER="${KDT_LOG}server-siw.log" KDT_PERF_TMO=120 \
		kdt_perf_run "${KDT_LOG}perf-ofa.txt" ofa_client_RR $ofa -T P \
		-s "$HOST_A_ADDR" -D ofa-v2-veth1 $KDT_PERF RR 4096 1 || prc=1
	}
	ktap_check bad_input_other_version kdt_bad_version
	ktap_check bad_input_truncated_command kdt_bad_truncated
	ktap_check bad_input_unknown_test_type kdt_bad_test_type
	kdt_both >"${KDT_LOG}case3.log" 2>&1 || brc=$?
	# -T P, kdapltest against itself (kw2 -> kw1): RW and RR
	# shellcheck disable=SC2086
	{
	kdt_perf_run "${KDT_LOG}perf-kernel.txt" kernel_both_RW $kw -T P \
		-s "$KW1_ADDR" -n "$KDT_KW_PORT" -D kw2 $KDT_PERF RW 4096 || kprc=1
	kdt_perf_run "${KDT_LOG}perf-kernel.txt" kernel_both_RR $kw -T P \
		-s "$KW1_ADDR" -n "$KDT_KW_PORT" -D kw2 $KDT_PERF RR 4096 || kprc=1
	}
	ktap_check kdapltest_servers_quit kdt_servers_quit
	ktap_check interop_kdapltest_server_ofa_client \
		kdt_kernel_server_ofa_client_verdict
	kdt_case_after "$brc" "${KDT_LOG}case3.log" interop_kdapltest_both \
		kdt_server_verdict "${KDT_LOG}server-kw.log" \
		"3 tests done, 0 failed, 3 clients refused"
	kdt_perf_case interop_ofa_perf "$prc" "${KDT_LOG}perf-ofa.txt"
	kdt_perf_case kdapltest_perf "$kprc" "${KDT_LOG}perf-kernel.txt"

	ktap_check kdapltest_module_unloads kdt_module_unloads
	ktap_end
	echo "kdapl-guest: kdapltest_interop done at $(cut -d' ' -f1 /proc/uptime) s"
	kill "$KDT_OFA_PID" "$KDT_SRV_SIW" "$KDT_SRV_KW" "$KDT_OFA_CLIENT" \
		2>/dev/null
}

# --- kdapltest_fft: dapltest's limit test (-T L) and function feature
# tests (-T F) of kdapltest.ko against kdapl.ko, in the root namespace
# (siwA, HOST_A_ADDR; kw1, KW1_ADDR). kdapltest prints one JSON object
# per run, one {"name":...} object per case (frontend/report.cc); a case
# here passes when kdapltest's own verdicts and counts are as expected.

# objects per limit test (-m) and object sets (-w) in make check
KDT_LIM_M=16
KDT_LIM_W=2

# kdt_json_case FILE NAME: case NAME's object of the JSON in FILE
kdt_json_case() {
	grep -o "{\"name\":\"$2\",[^}]*}" "$1"
}

# kdt_json_field OBJECT FIELD: a number or a string without commas
kdt_json_field() {
	echo "$1" | sed -n "s/.*\"$2\":\"\{0,1\}\([^\",]*\).*/\1/p"
}

# kdt_run NAME ARGS...: one kdapltest run, its output in ${KDT_LOG}NAME.json
# and its exit status in ${KDT_LOG}NAME.rc
kdt_run() {
	local name=$1 rc=0
	shift
	timeout 600 "$@" --json >"${KDT_LOG}$name.json" \
		2>"${KDT_LOG}$name.err" || rc=$?
	echo "$rc" >"${KDT_LOG}$name.rc"
}

# kdt_lim_case RUN NAME COUNT: limit test NAME of run RUN passed and
# created exactly COUNT objects (or, with COUNT "+N", at least N)
kdt_lim_case() {
	local obj res count
	obj=$(kdt_json_case "${KDT_LOG}$1.json" "$2")
	echo "$obj"
	res=$(kdt_json_field "$obj" result)
	count=$(kdt_json_field "$obj" count)
	[ "$res" = PASS ] || { cat "${KDT_LOG}$1.err"; return 1; }
	case "$3" in
	+*) [ "$count" -ge "${3#+}" ] ;;
	*) [ "$count" -eq "$3" ] ;;
	esac
}

# The limit run as a whole: it exited 0 and reported all 9 tests.
kdt_lim_all() {
	cat "${KDT_LOG}limit.json" "${KDT_LOG}limit.err"
	[ "$(cat "${KDT_LOG}limit.rc")" -eq 0 ] &&
	[ "$(grep -o '{"name":"limit_[a-z_]*"' "${KDT_LOG}limit.json" |
		wc -l)" -eq 9 ]
}

# limit_rpost to exhaustion: the EP refused a receive once it held at
# least its max_recv_dtos (kdapl's default 32), with
# DAT_INSUFFICIENT_RESOURCES (0x30000 type); every receive came back
# flushed (kdapltest checks that).
kdt_lim_rpost() {
	local obj st
	kdt_lim_case limit-rpost limit_rpost +32 || return 1
	kdt_lim_case limit "limit_rpost" "$KDT_LIM_M" || return 1
	obj=$(kdt_json_case "${KDT_LOG}limit-rpost.json" limit_rpost)
	st=$(kdt_json_field "$obj" dat_status)
	[ $(((st >> 16) & 0x3fff)) -eq 3 ] ||
		{ echo "stopped by $st, not DAT_INSUFFICIENT_RESOURCES"; return 1; }
}

kdt_lim_size() {
	local obj
	obj=$(kdt_json_case "${KDT_LOG}limit.json" limit_size_lmr)
	echo "$obj"
	[ "$(kdt_json_field "$obj" result)" = PASS ] &&
	[ "$(kdt_json_field "$obj" value)" -ge 4096 ]
}

# An IA that does not exist: the test fails, and says why.
kdt_lim_bad_ia() {
	local obj
	cat "${KDT_LOG}limit-bad.json"
	obj=$(kdt_json_case "${KDT_LOG}limit-bad.json" limit_pz)
	[ "$(cat "${KDT_LOG}limit-bad.rc")" -eq 1 ] &&
	[ "$(kdt_json_field "$obj" result)" = FAIL ] &&
	echo "$obj" | grep -q "dat_ia_open(nosuchia)"
}

# kdt_fft_case RUN CASES [SKIPPED...]: run RUN exited 0 with CASES
# cases, every one PASS but the SKIPPED ones (caseN), which are SKIP.
kdt_fft_case() {
	local run=$1 n=$2 i obj want
	shift 2
	cat "${KDT_LOG}$run.json" "${KDT_LOG}$run.err"
	[ "$(cat "${KDT_LOG}$run.rc")" -eq 0 ] || return 1
	for i in $(seq 0 $((n - 1))); do
		obj=$(kdt_json_case "${KDT_LOG}$run.json" "case$i")
		want=PASS
		case " $* " in *" case$i "*) want=SKIP ;; esac
		[ "$(kdt_json_field "$obj" result)" = "$want" ] ||
			{ echo "case$i: not $want"; return 1; }
	done
	[ "$(grep -o '{"name":"case[0-9]*"' "${KDT_LOG}$run.json" |
		wc -l)" -eq "$n" ]
}

# The same over kiwarp (kw1): every limit test, every feature.
kdt_kiwarp() {
	local f n
	kdt_run kw-limit "$KDT_BIN" -T L -D kw1 -m 8
	kdt_lim_case kw-limit limit_ia 8 && kdt_lim_case kw-limit limit_ep 8 &&
	kdt_lim_case kw-limit limit_lmr 8 &&
	[ "$(cat "${KDT_LOG}kw-limit.rc")" -eq 0 ] || return 1
	for f in hwconn:4 endpoint:3 pz:3 mem:5 connmgt:3 queryinfo:16; do
		n=${f#*:}
		f=${f%:*}
		kdt_run "kw-$f" "$KDT_BIN" -T F -D kw1 -f "$f" -s "$KW1_ADDR" \
			-n 62301
		if [ "$f" = queryinfo ]; then
			kdt_fft_case "kw-$f" "$n" case1 case5 || return 1
		else
			kdt_fft_case "kw-$f" "$n" || return 1
		fi
	done
}

# Without --json: dapltest's report, a block per case, and the count.
kdt_plain() {
	local rc=0 log=${KDT_LOG}plain.log
	timeout 300 "$KDT_BIN" -T F -D siwA -f pz >"$log" 2>&1 || rc=$?
	timeout 300 "$KDT_BIN" -T L -D siwA -m 4 limit_pz >>"$log" 2>&1 ||
		rc=$?
	cat "$log"
	[ "$rc" -eq 0 ] &&
	grep -q "^Function feature: Protection Zone management        case: 2$" \
		"$log" &&
	[ "$(grep -c "^Result: PASS$" "$log")" -eq 4 ] &&
	grep -q "function feature test: 3 cases, 3 passed, 0 failed, 0 skipped" \
		"$log" &&
	grep -q "^Limitation Test                      limit_pz$" "$log" &&
	grep -q "^LimitTest: PZs created: 4$" "$log"
}

kdapltest_fft_suite() {
	local f
	ktap_suite kdapltest_fft 21
	ktap_check kdapltest_module_loads kdt_module_loads

	kdt_run limit "$KDT_BIN" -T L -D siwA -w "$KDT_LIM_W" -m "$KDT_LIM_M"
	kdt_run limit-rpost "$KDT_BIN" -T L -D siwA -w "$KDT_LIM_W" -m 256 \
		limit_rpost
	kdt_run limit-bad "$KDT_BIN" -T L -D nosuchia limit_pz
	ktap_check limit_ia kdt_lim_case limit limit_ia "$KDT_LIM_M"
	ktap_check limit_pz kdt_lim_case limit limit_pz "$KDT_LIM_M"
	ktap_check limit_evd kdt_lim_case limit limit_evd "$KDT_LIM_M"
	ktap_check limit_ep kdt_lim_case limit limit_ep "$KDT_LIM_M"
	ktap_check limit_rsp kdt_lim_case limit limit_rsp "$KDT_LIM_M"
	ktap_check limit_psp kdt_lim_case limit limit_psp "$KDT_LIM_M"
	ktap_check limit_lmr kdt_lim_case limit limit_lmr "$KDT_LIM_M"
	ktap_check limit_rpost kdt_lim_rpost
	ktap_check limit_size_lmr kdt_lim_size
	ktap_check limit_all_tests_exit_0 kdt_lim_all
	ktap_check limit_bad_ia_fails kdt_lim_bad_ia

	for f in hwconn endpoint pz mem queryinfo; do
		kdt_run "fft-$f" "$KDT_BIN" -T F -D siwA -f "$f"
	done
	# case2: a loopback connection, to siwA's own address
	kdt_run fft-connmgt "$KDT_BIN" -T F -D siwA -f connmgt \
		-s "$HOST_A_ADDR" -n 62300
	ktap_check fft_hwconn kdt_fft_case fft-hwconn 4
	ktap_check fft_endpoint kdt_fft_case fft-endpoint 3
	ktap_check fft_pz kdt_fft_case fft-pz 3
	ktap_check fft_mem kdt_fft_case fft-mem 5
	ktap_check fft_connmgt kdt_fft_case fft-connmgt 3
	# CNOs (case1) kDAPL has none; CRs (case5) are connmgt's
	ktap_check fft_queryinfo kdt_fft_case fft-queryinfo 16 case1 case5
	ktap_check limit_and_fft_kiwarp kdt_kiwarp
	ktap_check plain_output kdt_plain

	ktap_check kdapltest_module_unloads sh -c 'busybox rmmod kdapltest &&
		[ ! -e /dev/kdapltest ]'
	ktap_end
}

# --- kdapltest_rxe: kDAPL over RoCE. OFA dapltest (uDAPL's ofa provider
# on rdma-core's rxe provider, the uDAPL peer most users have) against
# kdapltest.ko both ways, and kdapltest against itself, all on rxeA
# (RXE_ADDR, root namespace; see setup_rxe_host in lib.sh: both sides
# share the one rxe device). The servers take turns on dapltest's port.
KDT_RXE_OFA_PID=
KDT_RXE_SRV=

kdt_rxe_ofa_server_start() {
	: >"${KDT_LOG}rxe-ofa-server.log"
	env DAT_OVERRIDE="$KDT_DATCONF" timeout 600 stdbuf -oL -eL \
		dapltest -T S -D ofa-v2-veth8 \
		>"${KDT_LOG}rxe-ofa-server.log" 2>&1 &
	KDT_RXE_OFA_PID=$!
	kdt_wait_ready "$KDT_RXE_OFA_PID" "${KDT_LOG}rxe-ofa-server.log"
}

# Our client's transaction test against OFA's server, then -T Q; the
# OFA server's complete log must show the test finished without error.
kdt_rxe_ofa_server_kernel_client() {
	local rc=0
	timeout 300 "$KDT_BIN" -T T -s "$RXE_ADDR" -D rxeA -i "$KDT_ITER" \
		-t 2 -w 2 -V $KDT_OPS >"${KDT_LOG}rxe-client.log" 2>&1 || rc=$?
	cat "${KDT_LOG}rxe-client.log"
	timeout 60 "$KDT_BIN" -T Q -s "$RXE_ADDR" -D rxeA || rc=1
	kdt_wait_exit "$KDT_RXE_OFA_PID" || rc=1
	[ "$rc" -eq 0 ] &&
	grep -q "transaction test passed" "${KDT_LOG}rxe-client.log" &&
	[ "$(grep -c "Transaction Test Finished" \
		"${KDT_LOG}rxe-ofa-server.log")" -eq 1 ] &&
	! grep -q "Error\|Failed\|ERR\|async_event" \
		"${KDT_LOG}rxe-ofa-server.log" ||
		{ cat "${KDT_LOG}rxe-ofa-server.log"; return 1; }
}

kdt_rxe_server_start() {
	"$KDT_BIN" -T S -D rxeA >"${KDT_LOG}rxe-server.log" 2>&1 &
	KDT_RXE_SRV=$!
	kdt_wait_ready "$KDT_RXE_SRV" "${KDT_LOG}rxe-server.log"
}

# OFA's client against our server: its statistics and no error (its
# exit status says nothing).
kdt_rxe_kernel_server_ofa_client() {
	env DAT_OVERRIDE="$KDT_DATCONF" timeout 300 stdbuf -oL -eL \
		dapltest -T T -s "$RXE_ADDR" -D ofa-v2-veth8 -i "$KDT_ITER" \
		-t 2 -w 2 -V $KDT_OPS >"${KDT_LOG}rxe-ofa-client.log" 2>&1
	cat "${KDT_LOG}rxe-ofa-client.log"
	! grep -q "Error\|Failed\|FAIL\|ERR" "${KDT_LOG}rxe-ofa-client.log" &&
	grep -q "Stats" "${KDT_LOG}rxe-ofa-client.log"
}

kdt_rxe_both() {
	local rc=0
	timeout 300 "$KDT_BIN" -T T -s "$RXE_ADDR" -D rxeA -i "$KDT_ITER" \
		-t 2 -w 2 -V $KDT_OPS >"${KDT_LOG}rxe-both.log" 2>&1 || rc=$?
	cat "${KDT_LOG}rxe-both.log"
	[ "$rc" -eq 0 ] && grep -q "transaction test passed" "${KDT_LOG}rxe-both.log"
}

kdt_rxe_server_quit() {
	timeout 60 "$KDT_BIN" -T Q -s "$RXE_ADDR" -D rxeA &&
	kdt_wait_exit "$KDT_RXE_SRV" &&
	kdt_server_verdict "${KDT_LOG}rxe-server.log" \
		"2 tests done, 0 failed, 0 clients refused"
}

kdt_rxe_unload() {
	# a server still running (a case failed) is stopped first
	kill "$KDT_RXE_SRV" "$KDT_RXE_OFA_PID" 2>/dev/null &&
		{ kdt_wait_exit "$KDT_RXE_SRV"; kdt_wait_exit "$KDT_RXE_OFA_PID"; }
	rmmod kdapltest && [ ! -e /dev/kdapltest ]
}

kdapltest_rxe_suite() {
	kdt_datconf
	ktap_suite kdapltest_rxe 8
	ktap_check kdapltest_module_loads kdt_module_loads
	# ktap_step: the servers must outlive the case
	ktap_step rxe_ofa_server_ready kdt_rxe_ofa_server_start
	ktap_check rxe_ofa_server_kdapltest_client \
		kdt_rxe_ofa_server_kernel_client
	ktap_step rxe_kdapltest_server_ready kdt_rxe_server_start
	ktap_check rxe_kdapltest_server_ofa_client \
		kdt_rxe_kernel_server_ofa_client
	ktap_check rxe_kdapltest_both kdt_rxe_both
	ktap_check rxe_kdapltest_server_quits kdt_rxe_server_quit
	ktap_check kdapltest_module_unloads kdt_rxe_unload
	ktap_end
}
