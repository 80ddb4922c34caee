#!/bin/bash
# Copy what builds the kernel modules (Kbuild, Makefile, dkms.conf,
# include/ and the module directories, kunit/ included: Kbuild builds it
# only where the kernel has KUnit) into DEST, e.g. /usr/src/kdapl-<version>
# for dkms (`make dkms-source`) or a scratch tree for a build against
# another kernel's headers that must not touch this tree's objects.
#
#   scripts/module-sources.sh DEST
#
# Files come from git (tracked, and new ones not yet added but not
# ignored) when this is a checkout, else from the directories as they
# are, build products left out. DEST is emptied first.
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 DEST" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
dest=$1
parts="Kbuild Makefile dkms.conf include kdapl iw_provider kunit demo bench
tools/kdapltest"

rm -rf "$dest"
mkdir -p "$dest"
cd "$top"
# shellcheck disable=SC2086 # the part list is split on purpose
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -co --exclude-standard -- $parts
else
	find $parts -type f ! -name '*.o' ! -name '*.ko' ! -name '*.mod*' \
		! -name '.*.cmd' ! -name 'modules.order' ! -name 'Module.symvers'
fi | grep -v -e '\.cc$' -e 'CMakeLists\.txt$' | tar -cf - -T - |
	tar -xf - -C "$dest"
echo "module-sources: $(find "$dest" -type f | wc -l) files in $dest"
