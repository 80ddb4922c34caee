#!/bin/sh
# Build (or reuse) the test-guest kernel.
#
#   scripts/build-kernel.sh debug|perf
#
# Prints the path of the kernel build tree on stdout (the last line).
# The tree lives outside the clone, under
#   ${KDAPL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kdapl}/kernel-<flavour>-<key>
# where <key> hashes the source package version, the config fragments and
# this script. A second run with the same key reuses the tree; a changed
# fragment builds a new one. Source is unpacked once per source version.
set -eu

flavour=${1:-debug}
case "$flavour" in
debug|perf) ;;
*) echo "usage: $0 debug|perf" >&2; exit 2 ;;
esac

here=$(cd "$(dirname "$0")" && pwd)
cache=${KDAPL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kdapl}
tarball=/usr/src/linux-source-6.1.tar.xz
[ -r "$tarball" ] || { echo "build-kernel: $tarball missing (run scripts/install-deps.sh)" >&2; exit 1; }

srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
key=$( { echo "$srcver"; cat "$here/kconfig/base.config" \
	"$here/kconfig/$flavour.config" "$0"; } | sha256sum | cut -c1-16)
src=$cache/src-$srcver
obj=$cache/kernel-$flavour-$key
jobs=$(( $(nproc) + 1 ))

mkdir -p "$cache"

if [ -f "$obj/.kdapl-built" ]; then
	echo "build-kernel: reusing $obj" >&2
	echo "$obj"
	exit 0
fi

if [ ! -f "$src/.kdapl-unpacked" ]; then
	echo "build-kernel: unpacking $tarball" >&2
	rm -rf "$src" "$src.tmp"
	mkdir -p "$src.tmp"
	tar -xJf "$tarball" -C "$src.tmp" --strip-components=1
	touch "$src.tmp/.kdapl-unpacked"
	mv "$src.tmp" "$src"
fi

echo "build-kernel: configuring $flavour kernel in $obj" >&2
rm -rf "$obj"
mkdir -p "$obj"
make -s -C "$src" O="$obj" tinyconfig >&2
KCONFIG_CONFIG="$obj/.config" "$src/scripts/kconfig/merge_config.sh" -m \
	-O "$obj" "$obj/.config" "$here/kconfig/base.config" \
	"$here/kconfig/$flavour.config" >&2
make -s -C "$src" O="$obj" olddefconfig >&2

# Every line of the fragments must have survived olddefconfig: a symbol
# that kconfig silently dropped (a missing dependency) is a build error.
bad=0
for frag in "$here/kconfig/base.config" "$here/kconfig/$flavour.config"; do
	grep -E '^(CONFIG_[A-Z0-9_]+=|# CONFIG_[A-Z0-9_]+ is not set)' "$frag" |
	while IFS= read -r line; do
		if ! grep -qxF "$line" "$obj/.config"; then
			echo "build-kernel: $frag: '$line' not in final .config" >&2
			echo bad
		fi
	done
done | grep -q bad && bad=1
[ "$bad" -eq 0 ] || exit 1

echo "build-kernel: building ($jobs jobs)" >&2
make -s -C "$src" O="$obj" -j"$jobs" bzImage modules >&2
make -s -C "$src" O="$obj" modules_prepare >&2
touch "$obj/.kdapl-built"
echo "$obj"
