# shellcheck shell=sh
# What a test guest boots with, for scripts/run-guest.sh and
# scripts/run-guest-pair.sh (sourced, POSIX sh).

# stage_modules TOP KTREE DIR: the modules a guest loads (ours, the
# tree's siw and rxe) into DIR
stage_modules() {
	mkdir -p "$3"
	cp "$1"/kdapl/*.ko "$1"/iw_provider/*.ko "$1"/kunit/*.ko \
		"$1"/demo/*.ko "$1"/tools/kdapltest/*.ko "$1"/bench/*.ko "$3/"
	cp "$2/drivers/infiniband/sw/siw/siw.ko" "$3/"
	# rxe and what it needs when built as modules (as distributions do)
	for _m in drivers/infiniband/sw/rxe/rdma_rxe.ko net/ipv4/udp_tunnel.ko \
		net/ipv6/ip6_udp_tunnel.ko crypto/crc32_generic.ko; do
		[ ! -f "$2/$_m" ] || cp "$2/$_m" "$3/"
	done
}

# Modules a distribution kernel needs before it can mount the host's
# root over 9p (Debian builds virtio and 9p as modules), in load order.
DISTRO_BOOT_MODULES="virtio_ring virtio virtio_pci_modern_dev
virtio_pci_legacy_dev virtio_pci 9pnet 9pnet_virtio netfs fscache 9p"

# make_initramfs TOP RUNDIR [RELEASE]: busybox and our init, as
# RUNDIR/initramfs.cpio.gz; with RELEASE (an installed distribution
# kernel), also that kernel's DISTRO_BOOT_MODULES from /lib/modules,
# listed in load order in /boot-modules for the init to insmod
make_initramfs() {
	_staging=$2/initramfs
	rm -rf "$_staging"
	mkdir -p "$_staging/bin" "$_staging/proc" "$_staging/sys" \
		"$_staging/dev" "$_staging/mnt"
	cp /bin/busybox "$_staging/bin/busybox"
	if [ -n "${3:-}" ]; then
		mkdir -p "$_staging/modules"
		for _m in $DISTRO_BOOT_MODULES; do
			_ko=$(modinfo -k "$3" -n "$_m") || return 1
			cp "$_ko" "$_staging/modules/$_m.ko"
			echo "$_m.ko" >>"$_staging/boot-modules"
		done
	fi
	cp "$1/scripts/guest/init" "$_staging/init"
	chmod 755 "$_staging/init"
	(cd "$_staging" && find . | cpio -o -H newc --quiet | gzip -1) \
		>"$2/initramfs.cpio.gz"
}
