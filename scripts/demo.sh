#!/bin/bash
# `make demo`: install what is missing, build the perf (non-debug) kernel
# and the modules for it, boot the guest and run scripts/guest/demo.sh in
# it. The perf kernel, not make check's debug one (KASAN, lockdep): the
# figures the demo ends with are the product's speed, not the debugger's.
# KDAPL_DEMO_FLAVOUR=debug shows the same on the debug kernel.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
flavour=${KDAPL_DEMO_FLAVOUR:-perf}
"$top/scripts/install-deps.sh"
ktree=$("$top/scripts/build-kernel.sh" "$flavour" | tail -n 1)

# Modules are built in the source tree (kbuild M=): build for this kernel
# in a copy, as make bench does, so the clone's own objects stay the
# debug kernel's.
src=$top/build/demo-$flavour/src
run=$top/build/demo-$flavour/guest
"$top/scripts/tree-copy.sh" "$src"
mkdir -p "$run"
echo "demo: building the modules for the $flavour kernel"
make -s -C "$ktree" M="$src" -j"$(nproc)" modules
# the kdapltest front end the guest runs, where the guest looks for it
cmake -S "$top/tools" -B "$top/build/tools" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	>/dev/null
cmake --build "$top/build/tools" -j"$(nproc)" --target kdapltest >/dev/null
mkdir -p "$src/build/tools/kdapltest"
cp "$top/build/tools/kdapltest/kdapltest" "$src/build/tools/kdapltest/"

echo "demo: booting the guest (a minute or two)"
rc=0
"$src/scripts/run-guest.sh" "$ktree" "$run" scripts/guest/demo.sh 600 || rc=$?
# The guest's console from the demo's first step: the kernel's own lines
# come only through the demo's dmesg calls (it quiets the console).
sed -n '/^### /,$p' "$run/console.log" | grep -v -e '^kdapl-init: ' -e '^\[ *[0-9.]*\] reboot: ' || true
exit "$rc"
