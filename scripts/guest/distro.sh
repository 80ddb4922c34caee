#!/bin/bash
# Guest side of `make check`'s distro stage (scripts/distro-check.sh):
# Debian's own kernel (no KUnit, no siw, rxe as a module), the modules as
# dkms installed them for it (in $KDAPL_RUN/modules-tree/<release>), put
# where modprobe looks and loaded the way a user loads them. Suite
# debian_kernel; see Documentation/testing.rst.
set -u
. "$KDAPL_SRC/scripts/guest/lib.sh"
. "$KDAPL_SRC/scripts/guest/kdapltest.sh"

rel=$(uname -r)
guest_marker "cpus=$(nproc)"
echo "kdapl-guest: $(nproc) CPUs, kernel $rel"

# The host's root is read-only here: an overlay on /lib/modules/<release>
# takes the installed modules and depmod's output (tmpfs upper layer),
# so that /lib/modules looks as on a machine after `dkms install`.
install_modules() {
	local lib=/lib/modules/$rel ovl=/tmp/modules-ovl
	[ -d "$KDAPL_RUN/modules-tree/$rel/updates/dkms" ] ||
		{ echo "no modules installed for $rel"; return 1; }
	modprobe overlay &&
	mkdir -p "$ovl/upper" "$ovl/work" &&
	mount -t overlay overlay \
		-o "lowerdir=$lib,upperdir=$ovl/upper,workdir=$ovl/work" "$lib" &&
	cp -r "$KDAPL_RUN/modules-tree/$rel/updates" "$lib/" &&
	depmod -a "$rel" &&
	[ "$(modinfo -n kiwarp)" = "$lib/updates/dkms/kiwarp.ko" ]
}

# The stock kernel has neither KUnit nor siw: kiwarp is its iWARP device.
stock_kernel() {
	grep -q '^# CONFIG_KUNIT is not set' "/boot/config-$rel" &&
	grep -q '^# CONFIG_RDMA_SIW is not set' "/boot/config-$rel" &&
	[ ! -d /sys/kernel/debug/kunit ]
}

# modprobe resolves what `insmod kiwarp.ko` alone cannot (crc32c from
# libcrc32c, ib_core, iw_cm's users); nothing of them is loaded before.
modprobe_kiwarp() {
	! grep -q '^libcrc32c ' /proc/modules ||
		{ echo "libcrc32c already loaded"; return 1; }
	modprobe kiwarp &&
	grep -q '^kiwarp ' /proc/modules &&
	grep -q '^libcrc32c ' /proc/modules &&
	[ -d /sys/kernel/debug/kiwarp ]
}

# (and no "unknown parameter": modprobe also passes the kernel command
# line's kdapl.* entries, which the guest's init must not use)
modprobe_kdapl() {
	modprobe kdapl && grep -q '^kdapl ' /proc/modules &&
	[ -r /sys/kernel/debug/kdapl/eps ] &&
	! dmesg | grep 'kdapl: unknown parameter'
}

# kw1 on veth4 (root namespace), kw2 on veth5 (namespace b), as in the
# debug guest (lib.sh); the kernel would load veth by itself, but its
# modprobe path is the initramfs's, not this root's.
kiwarp_links() {
	modprobe veth &&
	ip link set lo up &&
	ip netns add b &&
	ip netns exec b ip link set lo up &&
	setup_kiwarp_pair &&
	rdma link add kw1 type kiwarp netdev veth4 &&
	ip netns exec b rdma link add kw2 type kiwarp netdev veth5 &&
	rdma link show | grep -q 'link kw1/1 .*ACTIVE' &&
	ping -c 1 -W 5 "$KW2_ADDR"
}

KDT_SRV=

# kdapltest.ko, loaded by name, and its server on kw1.
kdt_distro_server() {
	modprobe kdapltest && [ -c /dev/kdapltest ] || return 1
	"$KDT_BIN" -T S -D kw1 -n "$KDT_KW_PORT" \
		>"${KDT_LOG}server-kw.log" 2>&1 &
	KDT_SRV=$!
	kdt_wait_ready "$KDT_SRV" "${KDT_LOG}server-kw.log"
}

kdt_distro_quit() {
	timeout 60 ip netns exec b "$KDT_BIN" -T Q -s "$KW1_ADDR" \
		-n "$KDT_KW_PORT" -D kw2 &&
	kdt_wait_exit "$KDT_SRV" &&
	kdt_server_verdict "${KDT_LOG}server-kw.log" \
		"1 tests done, 0 failed, 0 clients refused"
}

# Debian's own rxe (RoCE), the one RDMA device that kernel ships that
# can run here: kdapl over it, both kdapltest ends on rxeA (lib.sh's
# setup_rxe_host says why one device).
rxe_host() {
	modprobe crc32_generic && modprobe rdma_rxe &&
	veth_to_b veth8 "$RXE_ADDR" veth9 "$RXE_PEER_ADDR" &&
	rdma link add rxeA type rxe netdev veth8
}

kdt_distro_rxe_quit() {
	timeout 60 "$KDT_BIN" -T Q -s "$RXE_ADDR" -D rxeA &&
	kdt_wait_exit "$KDT_RXE_SRV" &&
	kdt_server_verdict "${KDT_LOG}rxe-server.log" \
		"1 tests done, 0 failed, 0 clients refused"
}

# Everything unloads by name; the links go with kiwarp.
unload_all() {
	kill "$KDT_SRV" "$KDT_RXE_SRV" 2>/dev/null
	modprobe -r kdapltest &&
	rdma link delete rxeA &&
	modprobe -r kdapl &&
	modprobe -r kiwarp &&
	! grep -q '^kdapl \|^kiwarp \|^kdapltest ' /proc/modules &&
	! rdma link show | grep -q kw
}

ktap_suite debian_kernel 13
ktap_check stock_kernel_no_kunit_no_siw stock_kernel
ktap_check dkms_modules_installed install_modules
ktap_check modprobe_kiwarp_loads_crc32c modprobe_kiwarp
ktap_check modprobe_kdapl modprobe_kdapl
ktap_check kiwarp_links_added kiwarp_links
# ktap_step: the servers must outlive their case
ktap_step kdapltest_server_ready kdt_distro_server
ktap_check kdapltest_transaction_over_kiwarp kdt_both
ktap_check kdapltest_server_quits kdt_distro_quit
ktap_step debian_rxe_added rxe_host
ktap_step rxe_kdapltest_server_ready kdt_rxe_server_start
ktap_check kdapltest_transaction_over_debian_rxe kdt_rxe_both
ktap_check rxe_kdapltest_server_quits kdt_distro_rxe_quit
ktap_check modules_unload unload_all
ktap_end
guest_marker "done"
