#!/bin/bash
# `make check`'s distro stage: the modules as a Debian user gets them.
#
#   scripts/distro-check.sh <report-tool>
#
# Host side, suite distro_build (KTAP on stdout), in a copy of the module
# sources (scripts/module-sources.sh: this tree's objects stay the test
# kernel's) against Debian's own linux-headers-amd64:
#   build_w1_clean     make KDIR=/lib/modules/<release>/build: W=1, no
#                      warning, and no KUnit module (that kernel has none)
#   make_install       make install INSTALL_MOD_PATH=<dir>: the modules
#                      under lib/modules/<release>/extra, unsigned without
#                      a failed attempt to sign (no key in the headers)
#   dkms_install       dkms install with dkms.conf, into a private dkms,
#                      source and install tree: kdapl, kiwarp, kdapltest
#                      in <release>/updates/dkms, built for <release>
# Guest side, suite debian_kernel (scripts/guest/distro.sh): Debian's
# kernel image booted under QEMU with the dkms-installed modules, which
# it loads with modprobe; judged by <report-tool> like every guest run.
#
# The last lines are the two stages' "N passed, N failed, N skipped".
set -u
report=$1
top=$(cd "$(dirname "$0")/.." && pwd)
work=$top/build/distro
rundir=$top/build/guest-distro
. "$top/scripts/host-ktap.sh"

# The newest installed Debian kernel with its headers (make deps installs
# linux-image-amd64 and linux-headers-amd64).
mkdir -p "$top/build"
for d in /lib/modules/*/build; do
	v=$(basename "$(dirname "$d")")
	[ -f "/boot/vmlinuz-$v" ] && echo "$v"
done 2>/dev/null | sort -V >"$top/build/distro-releases"
rel=$(tail -n 1 "$top/build/distro-releases")

echo "    KTAP version 1"
echo "    # Subtest: distro_build"
echo "    1..3"
rm -rf "$work"
mkdir -p "$work"
if [ -z "$rel" ]; then
	echo "no installed kernel with headers under /lib/modules" >"$work/none"
	result build_w1_clean 1 "$work/none"
	result make_install 1 "$work/none"
	result dkms_install 1 "$work/none"
	echo "$((n - failed)) passed, $failed failed, 0 skipped"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi
echo "    # Debian kernel $rel"
kdir=/lib/modules/$rel/build
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
src=$work/src/kdapl-$ver
srcok=0
"$top/scripts/module-sources.sh" "$src" >"$work/sources.log" 2>&1 || srcok=1

# W=1 against Debian's headers; kunit/ must not be built (no KUnit).
rc=0
make -C "$src" KDIR="$kdir" -j"$(nproc)" modules >"$work/w1.log" 2>&1 || rc=$?
{
	[ "$srcok" -eq 0 ] || cat "$work/sources.log"
	grep -E 'warning:|error:' "$work/w1.log"
	[ "$rc" -eq 0 ] || tail -n 20 "$work/w1.log"
	find "$src/kunit" -name '*.ko'
	for m in kdapl/kdapl.ko iw_provider/kiwarp.ko tools/kdapltest/kdapltest.ko; do
		[ -f "$src/$m" ] || echo "$m not built"
	done
} >"$work/w1.bad" 2>&1
[ ! -s "$work/w1.bad" ]
result build_w1_clean $? "$work/w1.bad" tail

# make install into a staging root (what a package build does).
rc=0
make -C "$src" KDIR="$kdir" INSTALL_MOD_PATH="$work/root" install \
	>"$work/install.log" 2>&1 || rc=$?
{
	[ "$rc" -eq 0 ] || tail -n 20 "$work/install.log"
	# no key in Debian's headers: unsigned, quietly (no sign-file errors)
	grep -E 'SSL error|sign-file' "$work/install.log" | head -n 5
	for m in kdapl/kdapl.ko iw_provider/kiwarp.ko \
		 tools/kdapltest/kdapltest.ko; do
		[ -f "$work/root/lib/modules/$rel/extra/$m" ] ||
			echo "extra/$m not installed"
	done
} >"$work/install.bad" 2>&1
[ ! -s "$work/install.bad" ]
result make_install $? "$work/install.bad" tail

# dkms, kept out of the system's module trees (its own dkms, source and
# install trees, no depmod); it signs what it builds with its MOK key,
# which it makes once in /var/lib/dkms/mok.{key,pub} if there is none.
dk=$work/dkms
mkdir -p "$dk/tree" "$dk/inst/$rel"
rc=0
dkms install "kdapl/$ver" -k "$rel" --sourcetree "$work/src" \
	--dkmstree "$dk/tree" --installtree "$dk/inst" --no-depmod \
	>"$work/dkms.log" 2>&1 || rc=$?
{
	[ "$rc" -eq 0 ] || { tail -n 20 "$work/dkms.log";
		tail -n 20 "$dk/tree/kdapl/$ver/build/make.log"; }
	for m in kdapl kiwarp kdapltest; do
		ko=$dk/inst/$rel/updates/dkms/$m.ko
		if [ ! -f "$ko" ]; then
			echo "updates/dkms/$m.ko not installed"
		elif ! modinfo -F vermagic "$ko" | grep -q "^$rel "; then
			echo "$m.ko: vermagic $(modinfo -F vermagic "$ko")"
		fi
	done
} >"$work/dkms.bad" 2>&1
[ ! -s "$work/dkms.bad" ]
result dkms_install $? "$work/dkms.bad" tail
[ "$failed" -eq 0 ] && echo "ok 1 distro_build" || echo "not ok 1 distro_build"
echo "$((n - failed)) passed, $failed failed, 0 skipped"

# The guest: Debian's kernel, the dkms-installed modules in modules-tree/.
rm -rf "$rundir/modules" "$rundir/modules-tree"
mkdir -p "$rundir/modules" "$rundir/modules-tree"
cp -a "$dk/inst/$rel" "$rundir/modules-tree/" 2>/dev/null
grc=0
KDAPL_DISTRO=$rel "$top/scripts/run-guest.sh" - "$rundir" \
	scripts/guest/distro.sh "${KDAPL_DISTRO_TIMEOUT:-600}" || grc=$?
tmo=
[ "$grc" -ne 124 ] || tmo=--timed-out
touch "$rundir/out/results.ktap"
"$report" --results "$rundir/out/results.ktap" --console "$rundir/console.log" \
	--expect debian_kernel --allowlist "$top/scripts/splat-allowlist" \
	--qemu-status "$grc" $tmo
echo "distro guest console log: $rundir/console.log"
