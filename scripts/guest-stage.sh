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

# What a distribution kernel needs before it can mount the host's root
# over 9p (Debian builds virtio and 9p as modules): these and their
# dependencies, in load order as modprobe resolves them for that kernel
# (nothing for a part built in).
DISTRO_BOOT_MODULES="9p 9pnet_virtio virtio_pci"

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
		# shellcheck disable=SC2086 # the module list is split on purpose
		modprobe -S "$3" -a --show-depends $DISTRO_BOOT_MODULES \
			>"$2/boot-modules.txt" || return 1
		for _ko in $(awk '$1 == "insmod" && !seen[$2]++ { print $2 }' \
				"$2/boot-modules.txt"); do
			case "$_ko" in
			*.ko) ;;
			*) echo "make_initramfs: $_ko: busybox insmod takes" \
				"only uncompressed modules" >&2; return 1 ;;
			esac
			cp "$_ko" "$_staging/modules/"
			basename "$_ko" >>"$_staging/boot-modules"
		done
	fi
	cp "$1/scripts/guest/init" "$_staging/init"
	chmod 755 "$_staging/init"
	(cd "$_staging" && find . | cpio -o -H newc --quiet | gzip -1) \
		>"$2/initramfs.cpio.gz"
}
