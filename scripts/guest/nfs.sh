# shellcheck shell=bash
# Suite nfs_rdma (sourced after lib.sh; kiwarp.ko loaded, kw1/kw2 and the
# siw test hosts up): the kernel's own NFS over RDMA on kiwarp, with siw
# as the control. knfsd serves in namespace b with "rdma 20049" in its
# portlist (svcrdma); the root namespace mounts with proto=rdma
# (xprtrdma): over kw1 -> kw2 (203.0.113.2) and over siwA -> siwB
# (192.0.2.2). Files are written and read back with O_DIRECT (no page
# cache between the checksums and the wire) and compared.
#
# User space is Debian's nfs-kernel-server from the host root (rpcbind,
# exportfs, rpc.mountd, rpc.nfsd); /var/lib/nfs is a tmpfs here, the
# export a tmpfs directory (fsid=0).

NFS_EXPORT=/tmp/nfs-export
NFS_MNT=/tmp/nfs-mnt
NFS_DATA=/tmp/nfs-data
NFS_OPTS=vers=3,proto=rdma,port=20049,nolock,mountproto=tcp
NFS_THREADS=${NFS_THREADS:-4}	# knfsd's threads (Debian starts 8)

# The server's network namespace: b (its nfsd, rpcbind and mountd live
# in the mount namespace ip-netns-exec makes; they keep it); empty for
# the root namespace (make bench's two-guest topology).
NFS_NETNS=${NFS_NETNS-b}

# nfs_in_ns CMD...: CMD in the server's namespace
nfs_in_ns() {
	if [ -n "$NFS_NETNS" ]; then
		ip netns exec "$NFS_NETNS" "$@"
	else
		"$@"
	fi
}

# The processes of the server's namespace
nfs_ns_pids() {
	local p
	if [ -n "$NFS_NETNS" ]; then
		ip netns pids "$NFS_NETNS"
		return
	fi
	for p in /proc/[0-9]*; do
		echo "${p#/proc/}"
	done
}

# The server, all in its namespace.
nfs_server_start() {
	mkdir -p "$NFS_EXPORT" /var/lib/nfs 2>/dev/null
	mount -t tmpfs tmpfs /var/lib/nfs &&
	: >/var/lib/nfs/etab && : >/var/lib/nfs/rmtab &&
	: >/var/lib/nfs/xtab || return 1
	mount -t tmpfs tmpfs "$NFS_EXPORT" || return 1
	nfs_in_ns sh -c "
		mount -t nfsd nfsd /proc/fs/nfsd &&
		rpcbind -w &&
		exportfs -o rw,fsid=0,insecure,no_root_squash,no_subtree_check \
			'*:$NFS_EXPORT' &&
		rpc.mountd --no-udp &&
		rpc.nfsd $NFS_THREADS &&
		echo 'rdma 20049' >/proc/fs/nfsd/portlist &&
		cat /proc/fs/nfsd/portlist" || return 1
}

# The server goes; what it leaves behind (svcrdma's listeners on kw0 and
# kw2, its daemons) is said on the console for the later suites' sake.
nfs_server_stop() {
	local pid
	nfs_in_ns sh -c "
		mount -t nfsd nfsd /proc/fs/nfsd 2>/dev/null
		rpc.nfsd 0
		exportfs -ua
		[ -z \"\$(cat /proc/fs/nfsd/portlist 2>/dev/null)\" ] ||
			echo 'kdapl-guest: nfsd still listening'
		umount /proc/fs/nfsd"
	for pid in $(nfs_ns_pids); do
		case "$(cat "/proc/$pid/comm" 2>/dev/null)" in
		rpcbind | rpc.mountd) kill "$pid" ;;
		esac
	done
	umount "$NFS_EXPORT" 2>/dev/null
	umount /var/lib/nfs 2>/dev/null
	return 0
}

# nfs_mount ADDR: mount the export over RDMA; it must say proto=rdma
nfs_mount() {
	mkdir -p "$NFS_MNT" &&
	timeout 120 mount -t nfs -o "$NFS_OPTS" "$1:$NFS_EXPORT" "$NFS_MNT" &&
	grep " $NFS_MNT nfs " /proc/mounts | grep -q "proto=rdma" ||
		{ grep " $NFS_MNT " /proc/mounts; dmesg | tail -n 20; return 1; }
}

nfs_umount() {
	timeout 60 umount "$NFS_MNT"
}

# Whatever is still mounted there goes (a failed case may leave mounts
# stacked), lazily if it must.
nfs_umount_all() {
	local i
	for i in 1 2 3 4; do
		mountpoint -q "$NFS_MNT" || return 0
		timeout 30 umount "$NFS_MNT" || umount -f -l "$NFS_MNT"
	done
}

# nfs_roundtrip ADDR NAME BYTES BS [buffered]: a random file written with
# O_DIRECT in blocks of BS and read back the same way over a fresh mount
# of ADDR; checksums equal. "buffered" goes through the page cache
# instead (writeback and readahead keep many RPCs in flight) with an
# fsync before the remount. A transfer that hangs is killed (hard
# mounts wait in a killable state).
nfs_roundtrip() {
	local addr=$1 name=$2 bytes=$3 bs=$4 a b wf=oflag=direct rf=iflag=direct
	[ "${5:-}" != buffered ] || { wf=conv=fsync; rf=iflag=fullblock; }
	mkdir -p "$NFS_DATA" &&
	head -c "$bytes" /dev/urandom >"$NFS_DATA/$name" &&
	timeout -s KILL 300 dd if="$NFS_DATA/$name" of="$NFS_MNT/$name" \
		bs="$bs" "$wf" status=none &&
	nfs_umount && nfs_mount "$addr" || return 1
	a=$(md5sum <"$NFS_DATA/$name")
	timeout -s KILL 300 dd if="$NFS_MNT/$name" of="$NFS_DATA/$name.back" \
		bs="$bs" "$rf" status=none || return 1
	b=$(md5sum <"$NFS_DATA/$name.back")
	rm -f "$NFS_DATA/$name" "$NFS_DATA/$name.back"
	[ "$a" = "$b" ] || { echo "checksums differ: $a / $b"; return 1; }
}

# Many small files, fsync'ed, listed and read back after a remount
nfs_small_files() {
	local addr=$1 i
	mkdir -p "$NFS_MNT/small" || return 1
	for i in $(seq 1 100); do
		echo "file $i $(head -c 512 /dev/urandom | md5sum)" \
			>"$NFS_MNT/small/$i" || return 1
	done
	sync -f "$NFS_MNT/small/1" || return 1
	md5sum "$NFS_MNT"/small/* >/tmp/nfs-small.sum
	nfs_umount && nfs_mount "$addr" || return 1
	[ "$(find "$NFS_MNT/small" -type f | wc -l)" -eq 100 ] &&
	md5sum "$NFS_MNT"/small/* | cmp -s - /tmp/nfs-small.sum
}

# The server restarts under a live mount (rpc.nfsd 0, then back with
# its RDMA listener): the client's transport reconnects over kiwarp and
# a file written before reads back equal, a new one goes through.
nfs_server_restart() {
	local a b
	head -c 262144 /dev/urandom >"$NFS_DATA/before" &&
	timeout -s KILL 120 dd if="$NFS_DATA/before" of="$NFS_MNT/before" \
		bs=65536 oflag=direct status=none || return 1
	nfs_in_ns sh -c "
		mount -t nfsd nfsd /proc/fs/nfsd &&
		rpc.nfsd 0 && sleep 2 &&
		rpc.nfsd $NFS_THREADS &&
		echo 'rdma 20049' >/proc/fs/nfsd/portlist &&
		cat /proc/fs/nfsd/portlist" || return 1
	a=$(md5sum <"$NFS_DATA/before")
	timeout -s KILL 300 dd if="$NFS_MNT/before" of="$NFS_DATA/before.back" \
		bs=65536 iflag=direct status=none || return 1
	b=$(md5sum <"$NFS_DATA/before.back")
	[ "$a" = "$b" ] || { echo "checksums differ: $a / $b"; return 1; }
	timeout -s KILL 120 dd if="$NFS_DATA/before" of="$NFS_MNT/after" \
		bs=65536 oflag=direct status=none &&
	rm -f "$NFS_DATA/before" "$NFS_DATA/before.back"
}

# The 16 MiB just read back came over kiwarp (not TCP): kw1's QPs
nfs_kiwarp_carried() {
	local f=/sys/kernel/debug/kiwarp/kw1/qps
	cat "$f"
	awk '{ for (i = 1; i < NF; i++) if ($i == "rx_bytes") s += $(i + 1) }
	     END { exit !(s >= 16777216) }' "$f"
}

# kiwarp_zc_min_is QPS WANT: kiwarp's debugfs QPS file has QPs and each
# has the zero-copy threshold WANT (zc_min, chosen by path at bind: 0
# over veth and loopback, 1048576 on a route that leaves the host).
kiwarp_zc_min_is() {
	awk -v want="$2" '
	     { for (i = 1; i < NF; i++) if ($i == "zc_min") {
		     n++; if ($(i + 1) != want) bad++ } }
	     END { exit !(n > 0 && !bad) }' "$1" ||
		{ echo "zc_min of the QPs in $1 not all $2"; return 1; }
}

nfs_rdma_suite() {
	ktap_suite nfs_rdma 14
	ktap_check nfs_server_up nfs_server_start
	ktap_check mount_over_kiwarp nfs_mount "$KW2_ADDR"
	ktap_check kiwarp_4k_direct nfs_roundtrip "$KW2_ADDR" f4k 4096 4096
	ktap_check kiwarp_1m_direct nfs_roundtrip "$KW2_ADDR" f1m 1048576 \
		65536
	ktap_check kiwarp_16m_direct nfs_roundtrip "$KW2_ADDR" f16m \
		16777216 1048576
	ktap_check kiwarp_carried_the_data nfs_kiwarp_carried
	ktap_check kiwarp_no_zero_copy_over_veth kiwarp_zc_min_is \
		/sys/kernel/debug/kiwarp/kw1/qps 0
	ktap_check kiwarp_64m_buffered nfs_roundtrip "$KW2_ADDR" f64m \
		67108864 1048576 buffered
	ktap_check kiwarp_small_files_fsync nfs_small_files "$KW2_ADDR"
	ktap_check kiwarp_server_restart nfs_server_restart
	ktap_check umount_kiwarp nfs_umount
	# the control: the same over siw
	ktap_check mount_over_siw nfs_mount "$HOST_B_ADDR"
	ktap_check siw_16m_direct nfs_roundtrip "$HOST_B_ADDR" s16m \
		16777216 1048576
	ktap_check umount_siw nfs_umount
	ktap_end
	nfs_umount_all
	nfs_server_stop
}
