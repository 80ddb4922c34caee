#!/bin/sh
# Copy the whole project, without build/, .git and kbuild's products,
# into DEST (emptied first): make bench and make demo build the modules
# for the perf kernel there, so the clone's own objects (the debug
# kernel's, for make check) are never mixed with them. The copy keeps
# scripts/ and tools/: the guest runs its scripts from it.
#
#   scripts/tree-copy.sh DEST
set -eu
[ $# -eq 1 ] || { echo "usage: $0 DEST" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$1"
mkdir -p "$1"
(cd "$top" && tar -cf - --exclude=./build --exclude=./.git \
	--exclude='*.o' --exclude='*.ko' --exclude='*.cmd' --exclude='*.mod' \
	--exclude='*.mod.c' --exclude=Module.symvers --exclude=modules.order \
	.) | (cd "$1" && tar -xf -)
