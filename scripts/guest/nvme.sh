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

# nvme_connect ADDR [TRTYPE SVCID NQN]: what "nvme connect -t rdma -a
# ADDR -s 4420 -n NQN" does; the namespace's block device must appear.
NVME_CTRL=
nvme_connect() {
	local tr=${2:-rdma} i
	echo "transport=$tr,traddr=$1,trsvcid=${3:-4420},nqn=${4:-$NVME_NQN}" \
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

# nvme_over NAME ADDR PORTID: one device's cases.
nvme_over() {
	ktap_check "${1}_port" nvme_port_add "$3" "$2"
	ktap_check "${1}_connect" nvme_connect "$2"
	ktap_check "${1}_${NVME_MIB}m_direct" nvme_roundtrip "$2" "$1"
	[ "$1" != kiwarp ] || ktap_check kiwarp_carried_the_data nvme_kiwarp_carried
	ktap_check "${1}_disconnect" nvme_disconnect "$2"
	ktap_check "${1}_port_removed" nvme_port_del "$3"
}

nvme_rdma_suite() {
	ktap_suite nvme_rdma 18
	ktap_check target_subsystem nvme_target_setup
	nvme_over kiwarp "$KW1_ADDR" 1
	nvme_over siw "$HOST_A_ADDR" 2
	nvme_over rxe "$RXE_ADDR" 3
	ktap_check target_removed nvme_cleanup
	ktap_end
}
