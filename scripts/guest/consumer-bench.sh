# shellcheck shell=bash
# make bench's storage consumers (sourced by bench.sh and pair-bench.sh
# after lib.sh, bench-lib.sh, nvme.sh and nfs.sh): what a storage user
# would pick instead of RDMA over a software RNIC is the TCP form of the
# same protocol on the same wire. NVMe over Fabrics (nvmet + nvme host)
# over kiwarp, siw and rxe against NVMe/TCP, and NFSv3 over RDMA
# (knfsd's svcrdma, xprtrdma) over kiwarp and siw against NFSv3 over
# TCP, with fio, O_DIRECT:
#
#   seqwrite/seqread     1 MiB blocks, queue depth 1
#   randwrite/randread   4 KiB blocks, queue depth 32 (libaio)
#
# Each run lasts CONS_SEC seconds on a file (or namespace) of CONS_MIB
# MiB made before the first round; a round runs every transport of one
# workload, interleaved as the kdapl figures are (bench-lib.sh). The
# figures, "<proto>.<transport>.<workload>" in MB/s (10^6 bytes) and
# ".us_per_mb" the guest's busy CPU time (all CPUs, /proc/stat: user,
# nice, system, irq, softirq, steal) per MB moved, go to $RAW; the
# host's tools/bench pairs them into "<transport>/tcp <proto> <workload>"
# ratios.

CONS_REPS=${CONS_REPS:-5}	# rounds
CONS_SEC=${CONS_SEC:-3}		# one fio run
CONS_MIB=${CONS_MIB:-48}	# the file or the part of the namespace used
CONS_NQN=nqn.2026-11.org.kdapl:bench
# knfsd with the thread count Debian's nfs-kernel-server starts: an NFS
# WRITE over RDMA holds its thread while the server Reads the data.
NFS_THREADS=8
CONS_MNT=/tmp/cons-nfs
CONS_WORKLOADS="seqwrite:write:1m:1 seqread:read:1m:1 randwrite:randwrite:4k:32 randread:randread:4k:32"
declare -A CONS_TARGET=()	# transport -> block device or file

# The guest's busy time so far, in us (USER_HZ is 100).
cons_busy_us() {
	awk '$1 == "cpu" { print ($2 + $3 + $4 + $7 + $8 + $9) * 10000 }' \
		/proc/stat
}

# cons_fio tag=T target=F rw=RW bs=BS qd=N [reps=1]: one measured run;
# "T <MB/s>" and "T.us_per_mb <us>" on stdout, as kdapl_bench's ctl
# file gives its figures. fio's error or no I/O fails it.
cons_fio() {
	local tag='' target='' rw='' bs='' qd='' kv b0 b1 out
	for kv in "$@"; do
		case "$kv" in
		tag=*) tag=${kv#tag=} ;;
		target=*) target=${kv#target=} ;;
		rw=*) rw=${kv#rw=} ;;
		bs=*) bs=${kv#bs=} ;;
		qd=*) qd=${kv#qd=} ;;
		esac
	done
	b0=$(cons_busy_us)
	out=$(timeout $((CONS_SEC + 60)) fio --name=cons --filename="$target" \
		--direct=1 --ioengine=libaio --rw="$rw" --bs="$bs" \
		--iodepth="$qd" --size="${CONS_MIB}m" --runtime="$CONS_SEC" \
		--time_based --norandommap --randrepeat=0 --invalidate=0 \
		--output-format=terse --terse-version=3 2>&1) ||
		{ echo "kdapl-bench: fio: $out" >&2; return 1; }
	b1=$(cons_busy_us)
	# terse v3: 5 error, 6/9 read KiB and ms, 47/50 write KiB and ms;
	# any other line fio wrote goes to the console
	echo "$out" | awk -F';' -v tag="$tag" -v busy=$((b1 - b0)) '
		$1 != "3" || NF < 50 { print "kdapl-bench: fio: " $0 >"/dev/stderr"
				       next }
		$5 != 0 { exit 1 }
		{
			kib = $6 + $47; ms = $9 > $50 ? $9 : $50
			if (kib <= 0 || ms <= 0)
				exit 1
			mb = kib * 1024 / 1e6
			printf "%s %.1f\n", tag, mb * 1000 / ms
			printf "%s.us_per_mb %.0f\n", tag, busy / mb
		}'
}

# cons_prepare T: the transport's file or namespace filled once (reads
# must find data; no run pays for the layout) and warmed.
cons_prepare() {
	timeout 300 dd if=/dev/urandom of="${CONS_TARGET[$1]}" bs=1M \
		count="$CONS_MIB" oflag=direct conv=notrunc status=none
}

# cons_rounds PROTO PREFIX TRANSPORT...: every workload, interleaved
# over the transports; figures named PREFIX PROTO.TRANSPORT.WORKLOAD.
cons_rounds() {
	# shellcheck disable=SC2034 # REPS: interleave's rounds
	local proto=$1 pre=$2 w name rw bs qd t REPS=$CONS_REPS
	local -a cmds
	shift 2
	for w in $CONS_WORKLOADS; do
		IFS=: read -r name rw bs qd <<<"$w"
		cmds=()
		for t in "$@"; do
			[ -n "${CONS_TARGET[$t]:-}" ] || continue
			cmds+=("fio tag=$pre$proto.$t.$name target=${CONS_TARGET[$t]} rw=$rw bs=$bs qd=$qd")
		done
		interleave "${cmds[@]}"
	done
}

# cons_wanted [PROTO]: the consumer section (or PROTO's part) wanted at
# all: no ONLY, or ONLY (a --only run) names it.
cons_wanted() {
	[ -z "${ONLY:-}" ] || echo "$ONLY" | grep -qE "${1:-nvme|nfs}"
}

# cons_nvme_target T TRTYPE ADDR SVCID ID: T's subsystem and port.
cons_nvme_target() {
	nvme_target_setup "$CONS_NQN.$1" "/tmp/cons-nvme-$1" &&
	nvme_port_add "$5" "$3" "$2" "$4" "$CONS_NQN.$1"
}

# cons_nvme_host T TRTYPE ADDR SVCID: connected, T's namespace noted.
cons_nvme_host() {
	nvme_connect "$3" "$2" "$4" "$CONS_NQN.$1" &&
	CONS_TARGET[$1]=/dev/${NVME_CTRL}n1 &&
	cons_prepare "$1" ||
		{ echo "# failed: nvme over $1" >>"$RAW"; unset "CONS_TARGET[$1]"; }
}

# cons_nvme T TRTYPE ADDR SVCID ID: target and host in this guest
cons_nvme() {
	cons_nvme_target "$1" "$2" "$3" "$4" "$5" ||
		{ echo "# failed: nvme target over $1" >>"$RAW"; return; }
	cons_nvme_host "$1" "$2" "$3" "$4"
}

# cons_nfs_mount T ADDR OPTS: the export mounted on $CONS_MNT-T, T's
# file made.
cons_nfs_mount() {
	mkdir -p "$CONS_MNT-$1" &&
	timeout 120 mount -t nfs -o "$3" "$2:$NFS_EXPORT" "$CONS_MNT-$1" &&
	CONS_TARGET[$1]=$CONS_MNT-$1/data-$1 &&
	cons_prepare "$1" ||
		{ echo "# failed: nfs over $1" >>"$RAW"; unset "CONS_TARGET[$1]"; }
}

cons_nfs_umount() {
	local m
	for m in "$CONS_MNT"-*; do
		mountpoint -q "$m" || continue
		timeout 60 umount "$m" || umount -f -l "$m"
	done
}

# What moved over kiwarp (rx_bytes of the device's QPs), in bench.raw's
# notes: the kiwarp figures were kiwarp's.
cons_kiwarp_note() {
	awk -v w="$2" '{ for (i = 1; i < NF; i++) if ($i == "rx_bytes")
			s += $(i + 1) }
	     END { printf "# consumer %s: kiwarp %s QPs received %d bytes\n",
		   w, FILENAME, s }' "/sys/kernel/debug/kiwarp/$1/qps" >>"$RAW"
}

# Topology (a), one guest. NVMe: target and host both in the root
# namespace (nvmet-rdma and nvme-rdma use it only), each transport
# looping back on one address: kw1 (TCP over lo under kiwarp), siwA,
# rxeA, and NVMe/TCP on kw1's address (port 4421: kiwarp listens on
# 4420 there). NFS: knfsd in namespace b (nfs.sh), mounts from the root
# namespace over kw1 -> kw2, siwA -> siwB and TCP to kw2's address (the
# veth kiwarp uses). No NFS over rxe: its one device is in the root
# namespace, knfsd in b.
cons_nvme_a() {
	CONS_TARGET=()
	cons_nvme kiwarp rdma "$KW1_ADDR" 4420 11
	cons_nvme siw rdma "$HOST_A_ADDR" 4420 12
	cons_nvme rxe rdma "$RXE_ADDR" 4420 13
	cons_nvme tcp tcp "$KW1_ADDR" 4421 14
	cons_rounds nvme "" kiwarp siw rxe tcp
	cons_kiwarp_note kw1 nvme
	nvme_cleanup
}

cons_nfs_a() {
	local opts=vers=3,nolock,mountproto=tcp
	CONS_TARGET=()
	nfs_server_start >/dev/null || echo "# failed: knfsd" >>"$RAW"
	cons_nfs_mount kiwarp "$KW2_ADDR" "$opts,proto=rdma,port=20049"
	cons_nfs_mount siw "$HOST_B_ADDR" "$opts,proto=rdma,port=20049"
	cons_nfs_mount tcp "$KW2_ADDR" "$opts,proto=tcp"
	grep " $CONS_MNT-" /proc/mounts | sed 's/^/# consumer mount /' >>"$RAW"
	cons_rounds nfs "" kiwarp siw tcp
	cons_kiwarp_note kw1 nfs
	cons_nfs_umount
	nfs_server_stop
}

consumer_bench_a() {
	! cons_wanted nvme || cons_nvme_a
	! cons_wanted nfs || cons_nfs_a
}

# Topology (b), two guests: b serves (nvmet's kiwarp port on kwB's
# address and its NVMe/TCP port, knfsd with its RDMA listener, all in
# b's root namespace), a connects over the wire and measures. kiwarp
# against TCP only: a second RDMA device on the one wire (siw) would
# listen on the same address and ports.
consumer_bench_b_serve() {
	cons_wanted || return 0
	cons_nvme_target kiwarp rdma "$PAIR_B_ADDR" 4420 11 &&
	cons_nvme_target tcp tcp "$PAIR_B_ADDR" 4421 12 ||
		echo "kdapl-bench: nvme targets failed"
	NFS_NETNS='' nfs_server_start >/dev/null ||
		echo "kdapl-bench: knfsd failed"
}

consumer_bench_b_stop() {
	cons_wanted || return 0
	NFS_NETNS='' nfs_server_stop
	nvme_cleanup
}

consumer_bench_b_measure() {
	local opts=vers=3,nolock,mountproto=tcp
	cons_wanted || return 0
	CONS_TARGET=()
	cons_nvme_host kiwarp rdma "$PAIR_B_ADDR" 4420
	cons_nvme_host tcp tcp "$PAIR_B_ADDR" 4421
	cons_rounds nvme pair. kiwarp tcp
	cons_kiwarp_note kwA pair.nvme
	nvme_cleanup
	CONS_TARGET=()
	cons_nfs_mount kiwarp "$PAIR_B_ADDR" "$opts,proto=rdma,port=20049"
	cons_nfs_mount tcp "$PAIR_B_ADDR" "$opts,proto=tcp"
	grep " $CONS_MNT-" /proc/mounts |
		sed 's/^/# consumer pair mount /' >>"$RAW"
	cons_rounds nfs pair. kiwarp tcp
	cons_kiwarp_note kwA pair.nfs
	cons_nfs_umount
}
