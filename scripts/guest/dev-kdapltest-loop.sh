#!/bin/bash
# Guest side of `scripts/dev-kdapltest.sh loop`: the issue's transaction
# test (each followed by -T P RW and RR) many times in one boot: OFA
# against OFA (server siwB in namespace b, client siwA: the control),
# OFA's server (siwB) with our client (siwA), our server (siwA) with
# OFA's client (siwB), 6 rounds each (5 for the control); then
# kdapltest against itself over kiwarp, 3 rounds. The guest's
# environment is fixed (kdapl-init): change the counts here.
set -u
. "$KDAPL_SRC/scripts/guest/lib.sh"
. "$KDAPL_SRC/scripts/guest/kdapltest.sh"

loops=6
KDT_OFA_SRV_OPTS=

# OFA's server with uDAPL's CM warnings (DAPL_DBG_TYPE_CM_WARN 0x10000:
# an abrupt disconnect whose rdma_cm DISCONNECTED did not come within
# uDAPL's 250 ms says so)
kdt_ofa_server_start() {
	: >"${KDT_LOG}ofa-server.log"
	ip netns exec b env DAT_OVERRIDE="$KDT_DATCONF" DAPL_DBG_TYPE=0x10003 \
		timeout 900 stdbuf -oL -eL dapltest -T S $KDT_OFA_SRV_OPTS -D ofa-v2-veth1 \
		>"${KDT_LOG}ofa-server.log" 2>&1 &
	KDT_OFA_PID=$!
	kdt_wait_ready "$KDT_OFA_PID" "${KDT_LOG}ofa-server.log"
}
dev_guest_begin
insmod "$MODDIR/kdapltest.ko"
kdt_datconf
: >"${KDT_LOG}loop-perf.txt"
ktap_suite kdapltest_loop 4

# control: OFA against OFA (server siwB in namespace b, client siwA)
fails=0
kdt_ofa_server_start >"${KDT_LOG}start.log" 2>&1 || cat "${KDT_LOG}start.log"
for i in $(seq 1 5); do
	start=$(cut -d' ' -f1 /proc/uptime)
	# shellcheck disable=SC2086 # KDT_OPS: the op list, as words
	env DAT_OVERRIDE="$KDT_DATCONF" timeout 90 stdbuf -oL -eL dapltest \
		-T T -s "$HOST_B_ADDR" -D ofa-v2-veth0 -i "$KDT_ITER" -t 2 -w 2 \
		-V $KDT_OPS >"${KDT_LOG}loop-ofa-ofa.log" 2>&1
	rc=$?
	end=$(cut -d' ' -f1 /proc/uptime)
	if [ "$rc" -eq 124 ] || grep -q "Error\|Failed\|FAIL\|ERR" \
		"${KDT_LOG}loop-ofa-ofa.log"; then
		fails=$((fails + 1))
		cat "${KDT_LOG}loop-ofa-ofa.log"
	fi
	echo "loop $i: OFA's client against OFA's server took $start..$end s"
	# shellcheck disable=SC2086
	for op in RW RR; do
		kdt_perf_run "${KDT_LOG}loop-perf.txt" "ofa_ofa_$op" env \
			DAT_OVERRIDE="$KDT_DATCONF" dapltest -T P -s "$HOST_B_ADDR" \
			-D ofa-v2-veth0 $KDT_PERF $op 4096 1 || fails=$((fails + 1))
	done
	[ "$fails" -ge 2 ] && break
done
env DAT_OVERRIDE="$KDT_DATCONF" timeout 60 dapltest -T Q -s "$HOST_B_ADDR" \
	-D ofa-v2-veth0
kdt_wait_exit "$KDT_OFA_PID"
echo "# OFA against OFA: $fails failed; OFA's server said:"
grep -v "Service Point Ready" "${KDT_LOG}ofa-server.log" | sed "s/WARNING/warning/"
if [ "$fails" -eq 0 ]; then
	ktap_case ok ofa_ofa_loop
else
	ktap_case fail ofa_ofa_loop
fi

# OFA's server, our client; OFA's server with -d: its test threads say
# "End Successfully" (two per transaction test), else which step failed
# (the final sync's failures are debug output only)
fails=0
KDT_OFA_SRV_OPTS=-d
kdt_ofa_server_start >"${KDT_LOG}start.log" 2>&1 || cat "${KDT_LOG}start.log"
for i in $(seq 1 "$loops"); do
	rc=0
	start=$(cut -d' ' -f1 /proc/uptime)
	timeout 300 "$KDT_BIN" -T T -s "$HOST_B_ADDR" -D siwA -i "$KDT_ITER" \
		-t 2 -w 2 -V $KDT_OPS >"${KDT_LOG}loop-client.log" 2>&1 || rc=$?
	echo "loop $i: our client took $start..$(cut -d' ' -f1 /proc/uptime) s"
	# shellcheck disable=SC2086
	for op in RW RR; do
		kdt_perf_run "${KDT_LOG}loop-perf.txt" "ofa_ours_$op" "$KDT_BIN" \
			-T P -s "$HOST_B_ADDR" -D siwA $KDT_PERF $op 4096 ||
			fails=$((fails + 1))
	done
	if [ "$rc" -ne 0 ]; then
		fails=$((fails + 1))
		echo "loop $i: our client failed ($rc)"
		cat "${KDT_LOG}loop-client.log"
	fi
done
timeout 60 "$KDT_BIN" -T Q -s "$HOST_B_ADDR" -D siwA
kdt_wait_exit "$KDT_OFA_PID"
n=$(grep -c "Transaction Test Finished" "${KDT_LOG}ofa-server.log")
ends=$(grep -c "End Successfully" "${KDT_LOG}ofa-server.log")
errs=$(grep -c "ERR\|Error\|rror" "${KDT_LOG}ofa-server.log")
echo "# OFA server: $n tests finished, $ends threads ended successfully, $errs error lines, our client $fails failed"
grep -i "error\|fail\|warn\|Finished\|End Succ" "${KDT_LOG}ofa-server.log" |
	sed "s/WARNING/warning/" | head -n 60
if [ "$n" -eq "$loops" ] && [ "$errs" -eq 0 ] && [ "$fails" -eq 0 ] &&
	[ "$ends" -ge $((2 * loops)) ]; then
	ktap_case ok ofa_server_kdapltest_client_loop
else
	ktap_case fail ofa_server_kdapltest_client_loop
fi

# our server, OFA's client
fails=0
"$KDT_BIN" -T S -D siwA >"${KDT_LOG}server-siw.log" 2>&1 &
KDT_SRV_SIW=$!
kdt_wait_ready "$KDT_SRV_SIW" "${KDT_LOG}server-siw.log"
for i in $(seq 1 "$loops"); do
	start=$(cut -d' ' -f1 /proc/uptime)
	ip netns exec b env DAT_OVERRIDE="$KDT_DATCONF" timeout 90 \
		stdbuf -oL -eL dapltest -T T -s "$HOST_A_ADDR" -D ofa-v2-veth1 \
		-i "$KDT_ITER" -t 2 -w 2 -V $KDT_OPS \
		>"${KDT_LOG}loop-ofa-client.log" 2>&1
	rc=$?
	end=$(cut -d' ' -f1 /proc/uptime)
	if [ "$rc" -eq 124 ] || grep -q "Error\|Failed\|FAIL\|ERR" \
		"${KDT_LOG}loop-ofa-client.log" ||
		! grep -q "Stats" "${KDT_LOG}loop-ofa-client.log"; then
		fails=$((fails + 1))
		echo "loop $i: OFA's client failed ($rc)"
		cat "${KDT_LOG}loop-ofa-client.log"
	fi
	echo "loop $i: OFA's client took $start..$end s"
	# shellcheck disable=SC2086
	for op in RW RR; do
		kdt_perf_run "${KDT_LOG}loop-perf.txt" "ours_ofa_$op" ip netns exec \
			b env DAT_OVERRIDE="$KDT_DATCONF" dapltest -T P \
			-s "$HOST_A_ADDR" -D ofa-v2-veth1 $KDT_PERF $op 4096 1 ||
			fails=$((fails + 1))
	done
	[ "$fails" -ge 2 ] && break
done
ip netns exec b env DAT_OVERRIDE="$KDT_DATCONF" timeout 60 \
	dapltest -T Q -s "$HOST_A_ADDR" -D ofa-v2-veth1
kdt_wait_exit "$KDT_SRV_SIW"
cat "${KDT_LOG}server-siw.log"
if [ "$fails" -eq 0 ] && kdt_server_verdict "${KDT_LOG}server-siw.log" \
	"$((3 * loops)) tests done, 0 failed, 0 clients refused"; then
	ktap_case ok kdapltest_server_ofa_client_loop
else
	ktap_case fail kdapltest_server_ofa_client_loop
fi

# kdapltest against itself over kiwarp (kw2 -> kw1)
fails=0
"$KDT_BIN" -T S -D kw1 -n "$KDT_KW_PORT" >"${KDT_LOG}server-kw.log" 2>&1 &
KDT_SRV_KW=$!
kdt_wait_ready "$KDT_SRV_KW" "${KDT_LOG}server-kw.log"
for i in $(seq 1 3); do
	start=$(cut -d' ' -f1 /proc/uptime)
	kdt_both >"${KDT_LOG}loop-both.log" 2>&1 ||
		{ fails=$((fails + 1)); cat "${KDT_LOG}loop-both.log"; }
	echo "loop $i: kdapltest against itself took $start..$(cut -d' ' -f1 /proc/uptime) s"
done
timeout 60 ip netns exec b "$KDT_BIN" -T Q -s "$KW1_ADDR" -n "$KDT_KW_PORT" -D kw2
kdt_wait_exit "$KDT_SRV_KW"
cat "${KDT_LOG}server-kw.log"
if [ "$fails" -eq 0 ] && kdt_server_verdict "${KDT_LOG}server-kw.log" \
	"3 tests done, 0 failed, 0 clients refused"; then
	ktap_case ok kdapltest_both_loop
else
	ktap_case fail kdapltest_both_loop
fi
ktap_end
echo "# perf runs:"
sed 's/^/# /' "${KDT_LOG}loop-perf.txt"
dmesg | grep -i "siw" | tail -n 30
rmmod kdapltest
dev_guest_end
