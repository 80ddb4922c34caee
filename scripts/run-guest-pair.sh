#!/bin/sh
# Boot two test guests joined by a virtual wire and run one guest-side
# script in each (the two-host topology, Documentation/testing.rst).
#
#   scripts/run-guest-pair.sh <kernel-tree> <run-dir> <guest-script> [timeout-s]
#
# Each guest is its own QEMU (TCG) with its own CPU(s) and a virtio NIC;
# the NICs are joined by a QEMU stream netdev over a UNIX socket
# (guest "a" listens, guest "b" connects), so each side's
# network stack runs on its own vCPU and the wire is a real NIC path, as
# between two hosts. Both boot the same kernel; the script learns its
# side from kdguest.role=a|b (KDAPL_ROLE in the guest).
#
# Not a TCP socket on the host's loopback (KDAPL_PAIR_WIRE=tcp, the wire
# until 2026-11-27): there the host's Nagle and delayed ACK held the
# last frames of a burst for 7-40 ms, until the guest's TCP re-sent
# them (tail loss probes: 517 DSACKs in a 4 KiB RDMA Read run against
# 12 over the UNIX socket), which stalled every request-response
# exchange - RDMA Reads, ping-pongs, NFS writes - while a TCP stream,
# never idle, moved as fast over both (Documentation/performance.rst).
#
# <run-dir>/a, <run-dir>/b  each guest's run directory, as run-guest.sh's
#                           (modules/, out/, console.log)
# <run-dir>/sync            shared read-write by both (/run/kdapl-sync):
#                           the scripts meet there with marker files
#
# Exit status: 0 if both QEMUs exited 0, else the first non-zero status
# (124: the time-out, default 900 s, expired). Each guest's status is
# also in <run-dir>/<side>/qemu-status.
# Environment: KDAPL_PAIR_SMP (CPUs per guest, default 1), KDAPL_PAIR_MEM
# (default 1536M), KDAPL_CPU and KDAPL_APPEND as for run-guest.sh,
# KDAPL_PAIR_WIRE (unix, the default, or tcp).
set -eu

ktree=$1
rundir=$2
script=$3
tmo=${4:-900}
top=$(cd "$(dirname "$0")/.." && pwd)
smp=${KDAPL_PAIR_SMP:-1}
mem=${KDAPL_PAIR_MEM:-1536M}

. "$top/scripts/guest-stage.sh"
mkdir -p "$rundir/sync"
rm -f "$rundir/sync/"*
for side in a b; do
	mkdir -p "$rundir/$side/out"
	rm -f "$rundir/$side/out/"* "$rundir/$side/console.log" \
		"$rundir/$side/qemu-status"
	stage_modules "$top" "$ktree" "$rundir/$side/modules"
done
make_initramfs "$top" "$rundir"
initrd=$rundir/initramfs.cpio.gz

# The wire: a UNIX socket, or a free port on the host's loopback.
wire=${KDAPL_PAIR_WIRE:-unix}
# in a directory of its own under /tmp: a socket's path has 107 bytes
wiredir=$(mktemp -d /tmp/kdapl-wire.XXXXXX)
trap 'rm -rf "$wiredir"' EXIT
sock=$wiredir/wire.sock
listening() { ss -Hltn "sport = :$1" 2>/dev/null | grep -q .; }
case "$wire" in
unix) ;;
tcp)
	port=
	for p in $(shuf -i 20000-59999 -n 50); do
		if ! listening "$p"; then
			port=$p
			break
		fi
	done
	[ -n "$port" ] || { echo "run-guest-pair: no free port" >&2; exit 1; }
	;;
*) echo "run-guest-pair: KDAPL_PAIR_WIRE is unix or tcp" >&2; exit 2 ;;
esac
wire_up() {
	if [ "$wire" = unix ]; then
		[ -S "$sock" ]
	else
		listening "$port"
	fi
}

# the netdev of a guest; $1: server=on|off
netdev() {
	if [ "$wire" = unix ]; then
		echo "stream,id=n0,server=$1,addr.type=unix,addr.path=$sock"
	else
		echo "stream,id=n0,server=$1,addr.type=inet,addr.host=127.0.0.1,addr.port=$port"
	fi
}

# guest SIDE SERVER MAC: one QEMU, its status into <side>/qemu-status
guest() {
	side=$1
	rc=0
	timeout --foreground -k 10 "$tmo" \
		qemu-system-x86_64 -nodefaults -accel tcg \
		-cpu "${KDAPL_CPU:-max,la57=off}" -m "$mem" -smp "$smp" \
		-kernel "$ktree/arch/x86/boot/bzImage" -initrd "$initrd" \
		-append "console=ttyS0 pci=noacpi no_timer_check panic=-1 oops=panic kdguest.run=$script kdguest.role=$side ${KDAPL_APPEND:-}" \
		-serial "file:$rundir/$side/console.log" -display none \
		-no-reboot \
		-netdev "$(netdev "$2")" \
		-device "virtio-net-pci,netdev=n0,mac=$3" \
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
		-virtfs local,path="$rundir/$side",mount_tag=kdapl_run,security_model=none,multidevs=remap \
		-virtfs local,path="$top",mount_tag=kdapl_src,security_model=none,readonly=on,multidevs=remap \
		-virtfs local,path="$rundir/sync",mount_tag=kdapl_sync,security_model=none,multidevs=remap \
		</dev/null || rc=$?
	echo "$rc" >"$rundir/$side/qemu-status"
}

# The listening side first; the other connects once it listens.
guest a on 52:54:00:6b:64:01 &
apid=$!
i=0
while ! wire_up; do
	i=$((i + 1))
	if [ "$i" -gt 100 ] || ! kill -0 "$apid" 2>/dev/null; then
		echo "run-guest-pair: guest a does not listen ($wire wire)" >&2
		wait "$apid" || true
		exit 1
	fi
	sleep 0.1
done
guest b off 52:54:00:6b:64:02 &
bpid=$!
wait "$apid" || true
wait "$bpid" || true

rc=0
for side in a b; do
	s=$(cat "$rundir/$side/qemu-status" 2>/dev/null || echo 1)
	if [ "$rc" -eq 0 ] && [ "$s" -ne 0 ]; then
		rc=$s
	fi
done
exit "$rc"
