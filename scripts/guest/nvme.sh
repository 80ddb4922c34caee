# shellcheck shell=bash
# Suite nvme_rdma (sourced after lib.sh; kiwarp.ko loaded, kw1 and the
# siw and rxe hosts up): the kernel's NVMe over Fabrics on RDMA, target
# (nvmet-rdma) and host (nvme-rdma), on kiwarp, with siw and rxe as the
# controls. A file-backed namespace (tmpfs, buffered I/O) is exported
# through configfs on a port per device; the host connects through
# /dev/nvme-fabrics, the interface nvme-cli's "nvme connect" writes to
# (nvme-cli is not needed), writes a random file to the namespace with
# O_DIRECT, reads it back with O_DIRECT and compares.
#
# nvmet-rdma and nvme-rdma open their cm_ids in the initial network
# namespace only, so target and host are both in the root namespace and
# each connection loops back on one device: kw1 (203.0.113.1) to itself
# through TCP over lo, siwA (192.0.2.1), rxeA (198.19.0.1). The two-guest
# topology (scripts/guest/pair.sh) is where the wire is real.

NVME_CFG=/sys/kernel/config/nvmet
NVME_NQN=nqn.2026-11.org.kdapl:test
NVME_BACK=/tmp/nvme-backing
NVME_DATA=/tmp/nvme-data
NVME_MIB=32

# nvme_target_setup [NQN [FILE]]: the subsystem NQN (default
# NVME_NQN), its namespace (a 64 MiB tmpfs file, default NVME_BACK) and
# no port yet.
nvme_target_setup() {
	local nqn=${1:-$NVME_NQN} back=${2:-$NVME_BACK}
	local sub=$NVME_CFG/subsystems/$nqn
	mountpoint -q /sys/kernel/config ||
		mount -t configfs configfs /sys/kernel/config || return 1
	[ -d "$NVME_CFG" ] || { echo "no nvmet in configfs"; return 1; }
	dd if=/dev/zero of="$back" bs=1M count=64 status=none &&
	mkdir "$sub" &&
	echo 1 >"$sub/attr_allow_any_host" &&
	mkdir "$sub/namespaces/1" &&
	echo "$back" >"$sub/namespaces/1/device_path" &&
	echo 1 >"$sub/namespaces/1/buffered_io" &&
	echo 1 >"$sub/namespaces/1/enable"
}

# nvme_port_add ID ADDR [TRTYPE [SVCID [NQN]]]: a port (rdma on 4420
# and NVME_NQN by default) on ADDR exporting the subsystem; nvmet
# listens when the link is made.
nvme_port_add() {
	local p=$NVME_CFG/ports/$1 nqn=${5:-$NVME_NQN}
	mkdir "$p" &&
	echo "${3:-rdma}" >"$p/addr_trtype" &&
	echo ipv4 >"$p/addr_adrfam" &&
	echo "$2" >"$p/addr_traddr" &&
	echo "${4:-4420}" >"$p/addr_trsvcid" &&
	ln -s "$NVME_CFG/subsystems/$nqn" "$p/subsystems/$nqn" ||
		{ dmesg | tail -n 10; return 1; }
}

# nvme_port_del ID [NQN]
nvme_port_del() {
	local p=$NVME_CFG/ports/$1
	rm -f "$p/subsystems/${2:-$NVME_NQN}" && rmdir "$p"
}

# nvme_ctrl_of ADDR [TRTYPE]: the controller the host made to ADDR over
# TRTYPE (rdma by default), from /sys/class/nvme (its name).
nvme_ctrl_of() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ -e "$c/transport" ] || continue
		grep -qx "${2:-rdma}" "$c/transport" &&
			grep -q "traddr=$1," "$c/address" &&
			{ basename "$c"; return 0; }
	done
	return 1
}

# nvme_connect ADDR [TRTYPE SVCID NQN [OPTS]]: what "nvme connect -t
# rdma -a ADDR -s 4420 -n NQN" does (OPTS: more options of
# /dev/nvme-fabrics, e.g. reconnect_delay=1); the namespace's block
# device must appear.
NVME_CTRL=
nvme_connect() {
	local tr=${2:-rdma} i
	echo "transport=$tr,traddr=$1,trsvcid=${3:-4420},nqn=${4:-$NVME_NQN}${5:+,$5}" \
		>/dev/nvme-fabrics || { dmesg | tail -n 20; return 1; }
	NVME_CTRL=$(nvme_ctrl_of "$1" "$tr") ||
		{ echo "no controller"; return 1; }
	for i in $(seq 1 50); do
		[ -b "/dev/${NVME_CTRL}n1" ] && return 0
		sleep 0.2
	done
	ls /dev/nvme*
	return 1
}

# nvme_roundtrip ADDR NAME: NVME_MIB MiB of random data written to the
# namespace and read back, both O_DIRECT, equal checksums; the file
# behind the namespace holds the same bytes (when the target is in this
# guest).
nvme_roundtrip() {
	local dev want got back
	dev=/dev/$(nvme_ctrl_of "$1")n1
	[ -b "$dev" ] || { echo "no $dev"; return 1; }
	dd if=/dev/urandom of="$NVME_DATA" bs=1M count="$NVME_MIB" status=none &&
	timeout 120 dd if="$NVME_DATA" of="$dev" bs=1M oflag=direct \
		status=none &&
	timeout 120 dd if="$dev" of="$NVME_DATA.back" bs=1M \
		count="$NVME_MIB" iflag=direct status=none || return 1
	want=$(md5sum <"$NVME_DATA" | cut -d' ' -f1)
	got=$(md5sum <"$NVME_DATA.back" | cut -d' ' -f1)
	back=$want
	[ ! -f "$NVME_BACK" ] ||
		back=$(head -c "$((NVME_MIB * 1048576))" "$NVME_BACK" |
			md5sum | cut -d' ' -f1)
	rm -f "$NVME_DATA.back"
	[ "$want" = "$got" ] && [ "$want" = "$back" ] ||
		{ echo "$2: sent $want, read $got, target file $back"; return 1; }
}

# nvme_readback ADDR NAME: the NVME_MIB MiB nvme_roundtrip wrote (kept
# in NVME_DATA) read again with O_DIRECT, e.g. by a new controller.
nvme_readback() {
	local dev
	dev=/dev/$(nvme_ctrl_of "$1")n1
	[ -b "$dev" ] && [ -f "$NVME_DATA" ] || { echo "no $dev or data"; return 1; }
	timeout 120 dd if="$dev" of="$NVME_DATA.back" bs=1M \
		count="$NVME_MIB" iflag=direct status=none &&
	cmp "$NVME_DATA" "$NVME_DATA.back" ||
		{ echo "$2: read back differs"; rm -f "$NVME_DATA.back"; return 1; }
	rm -f "$NVME_DATA.back"
}

# nvme_sizes ADDR NAME: single O_DIRECT writes of 4 KiB (the
# namespace's block), 60 KiB,
# 1 MiB and 8 MiB (larger than one command's transfer: the block layer
# splits it into several in flight), each at its own offset past the
# roundtrip's data, read back in one read of the same size and compared.
nvme_sizes() {
	local dev bs off=$((40 << 20)) f=/tmp/nvme-size
	dev=/dev/$(nvme_ctrl_of "$1")n1
	[ -b "$dev" ] || { echo "no $dev"; return 1; }
	for bs in 4096 61440 1048576 8388608; do
		head -c "$bs" /dev/urandom >"$f" &&
		timeout 60 dd if="$f" of="$dev" bs="$bs" count=1 \
			seek="$off" oflag=direct,seek_bytes status=none &&
		timeout 60 dd if="$dev" of="$f.back" bs="$bs" count=1 \
			skip="$off" iflag=direct,skip_bytes status=none &&
		cmp "$f" "$f.back" ||
			{ echo "$2: $bs bytes at $off differ"; rm -f "$f" "$f.back"
			  return 1; }
		off=$((off + bs))
	done
	rm -f "$f" "$f.back"
}

# nvme_queue_depth ADDR NAME: fio at queue depth 32 (4 KiB random
# writes over 4 MiB) and 8 (128 KiB random writes over 8 MiB), both jobs
# at once, libaio and O_DIRECT, past the data of the cases before; every
# block written once with a crc32c header and verified when read back
# at the same depth; fio fails on any mismatch.
nvme_queue_depth() {
	local dev out
	dev=/dev/$(nvme_ctrl_of "$1")n1
	[ -b "$dev" ] || { echo "no $dev"; return 1; }
	out=$(timeout 180 fio --filename="$dev" --direct=1 --ioengine=libaio \
		--rw=randwrite --verify=crc32c --verify_fatal=1 --do_verify=1 \
		--randrepeat=0 --verify_state_save=0 --output-format=terse \
		--name=qd32 --bs=4k --iodepth=32 --offset=50m --size=4m \
		--name=qd8 --bs=128k --iodepth=8 --offset=54m --size=8m 2>&1) ||
		{ echo "$2: fio: $out"; return 1; }
}

# nvme_port_cycle ADDR PORTID NAME: the target's port removed under a
# 32 MiB O_DIRECT read (nvmet deletes the controllers of that port: the
# host loses its queues and retries the connect every second, refused
# while there is no port), added back 2 s later: the host's controller
# must be live again within 30 s and the read, whose requests waited
# for it, must return the data.
nvme_port_cycle() {
	local c dev pid i st
	c=$(nvme_ctrl_of "$1") || { echo "no controller"; return 1; }
	dev=/dev/${c}n1
	timeout 120 dd if="$dev" of="$NVME_DATA.back" bs=1M \
		count="$NVME_MIB" iflag=direct status=none &
	pid=$!
	sleep 0.3
	nvme_port_del "$2" || { kill "$pid"; return 1; }
	for i in $(seq 1 50); do
		st=$(cat "/sys/class/nvme/$c/state")
		[ "$st" != live ] && break
		sleep 0.2
	done
	echo "$3: controller $st after the port went"
	[ "$st" != live ] || { kill "$pid"; wait "$pid"; return 1; }
	sleep 2
	nvme_port_add "$2" "$1" || { kill "$pid"; return 1; }
	for i in $(seq 1 150); do
		st=$(cat "/sys/class/nvme/$c/state")
		[ "$st" = live ] && break
		sleep 0.2
	done
	echo "$3: controller $st after the port came back"
	wait "$pid" || { echo "$3: the read failed"; return 1; }
	[ "$st" = live ] && cmp "$NVME_DATA" "$NVME_DATA.back" ||
		{ echo "$3: read back differs"; rm -f "$NVME_DATA.back"
		  return 1; }
	rm -f "$NVME_DATA.back"
}

# nvme_disconnect ADDR [TRTYPE]: the controller goes, and so does its
# device.
nvme_disconnect() {
	local c
	c=$(nvme_ctrl_of "$1" "${2:-rdma}") ||
		{ echo "no controller for $1"; return 1; }
	echo 1 >"/sys/class/nvme/$c/delete_controller" &&
	! nvme_ctrl_of "$1" "${2:-rdma}" >/dev/null && [ ! -e "/dev/${c}n1" ]
}

# Whatever a failed case left: controllers, ports, the subsystems and
# their backing files.
nvme_cleanup() {
	local c p l s back
	for c in /sys/class/nvme/nvme*; do
		[ -e "$c/delete_controller" ] && echo 1 >"$c/delete_controller"
	done
	for p in "$NVME_CFG"/ports/*; do
		[ -d "$p" ] || continue
		for l in "$p"/subsystems/*; do
			[ -L "$l" ] && rm -f "$l"
		done
		rmdir "$p"
	done
	for s in "$NVME_CFG"/subsystems/*; do
		[ -d "$s" ] || continue
		back=$(cat "$s/namespaces/1/device_path" 2>/dev/null)
		if [ -d "$s/namespaces/1" ]; then
			echo 0 >"$s/namespaces/1/enable"
			rmdir "$s/namespaces/1" || return 1
		fi
		rmdir "$s" || return 1
		[ -z "$back" ] || rm -f "$back"
	done
	rm -f "$NVME_DATA"
}

# The data came over kiwarp, not TCP: kw1's QPs (both ends of the
# loopback, before the disconnect) received what was written and read.
nvme_kiwarp_carried() {
	local f=/sys/kernel/debug/kiwarp/kw1/qps
	cat "$f"
	awk -v want=$((2 * NVME_MIB * 1048576)) '
	     { for (i = 1; i < NF; i++) if ($i == "rx_bytes") s += $(i + 1) }
	     END { exit !(s >= want) }' "$f"
}

# nvme_over NAME ADDR PORTID [full]: one device's cases; with "full"
# also sizes, queue depth, a reconnect and the port removed under I/O.
nvme_over() {
	ktap_check "${1}_port" nvme_port_add "$3" "$2"
	ktap_check "${1}_connect" nvme_connect "$2" rdma 4420 "$NVME_NQN" \
		reconnect_delay=1,ctrl_loss_tmo=60
	ktap_check "${1}_${NVME_MIB}m_direct" nvme_roundtrip "$2" "$1"
	[ "$1" != kiwarp ] || ktap_check kiwarp_carried_the_data nvme_kiwarp_carried
	if [ "${4:-}" = full ]; then
		ktap_check "${1}_sizes_4k_to_8m" nvme_sizes "$2" "$1"
		ktap_check "${1}_queue_depth_32_verified" nvme_queue_depth "$2" "$1"
		ktap_check "${1}_port_removed_under_io" nvme_port_cycle "$2" "$3" "$1"
		ktap_check "${1}_disconnect_before_reconnect" nvme_disconnect "$2"
		ktap_check "${1}_reconnect" nvme_connect "$2"
		ktap_check "${1}_data_after_reconnect" nvme_readback "$2" "$1"
	fi
	ktap_check "${1}_disconnect" nvme_disconnect "$2"
	ktap_check "${1}_port_removed" nvme_port_del "$3"
}

nvme_rdma_suite() {
	ktap_suite nvme_rdma 30
	ktap_check target_subsystem nvme_target_setup
	nvme_over kiwarp "$KW1_ADDR" 1 full
	nvme_over siw "$HOST_A_ADDR" 2 full
	nvme_over rxe "$RXE_ADDR" 3
	ktap_check target_removed nvme_cleanup
	ktap_end
}
