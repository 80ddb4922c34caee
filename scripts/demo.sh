#!/bin/bash
# `make demo`: install what is missing, build the debug kernel and the
# modules, boot the guest and run scripts/guest/demo.sh in it.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install-deps.sh"
ktree=$("$top/scripts/build-kernel.sh" debug | tail -n 1)
make -s -C "$ktree" M="$top" W=1 -j"$(nproc)" modules
# the kdapltest front end the guest runs
cmake -S "$top/tools" -B "$top/build/tools" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	>/dev/null
cmake --build "$top/build/tools" -j"$(nproc)" --target kdapltest >/dev/null
run=$top/build/guest-demo
rc=0
"$top/scripts/run-guest.sh" "$ktree" "$run" scripts/guest/demo.sh 600 || rc=$?
# The guest's console: our output without the kernel's boot chatter.
sed -n '/^### /,$p' "$run/console.log" | grep -v '^\[ *[0-9.]*\] \(kdapl-init\|reboot\)' || true
exit "$rc"
