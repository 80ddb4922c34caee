#!/bin/sh
# Install the Debian 12 packages this project needs to build the test
# kernel, the modules and the host tools, and to run the QEMU test guest.
# Debian's own kernel image and headers, and dkms, are for the distro
# stage of make check: a guest boots that kernel image. (On a machine that
# boots through GRUB, installing linux-image-amd64 also adds a boot entry
# for it, as on any Debian system with the stock kernel.)
# Idempotent: packages already present are not touched, and apt is only
# called when something is missing.
set -eu

PKGS="build-essential bc flex bison libelf-dev libssl-dev dwarves cpio
busybox-static kmod xz-utils qemu-system-x86 linux-source-6.1 sparse
perl python3 iproute2 iputils-ping rdmacm-utils ibverbs-utils ibverbs-providers
libibverbs-dev librdmacm-dev cmake g++ libgtest-dev pkg-config clang
dapl2-utils libdapl2 gnuplot-nox nfs-kernel-server fio
linux-image-amd64 linux-headers-amd64 dkms"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
	   grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done

if [ -z "$missing" ]; then
	echo "install-deps: all packages present"
	exit 0
fi

echo "install-deps: installing:$missing"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# shellcheck disable=SC2086
$SUDO apt-get install -y -q --no-install-recommends $missing
