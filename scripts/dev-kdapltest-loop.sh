#!/bin/sh
# Development shortcut for kdapltest: build the modules and the host
# tools, boot the debug guest once with the two test hosts, run only
# suite kdapltest_interop (scripts/guest/dev-kdapltest-loop.sh) and judge the
# run like `make check` (kdapl-report: results, splats, leaks).
#
#   scripts/dev-kdapltest.sh
#
# The run directory is build/guest-kdapltest; console.log has everything,
# the guest's logs of the suite are printed on failure (KTAP comments).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
ktree=$("$top/scripts/build-kernel.sh" debug | tail -n 1)
make -C "$top" modules >/dev/null
cmake -S "$top/tools" -B "$top/build/tools" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	>/dev/null
cmake --build "$top/build/tools" -j2 --target kdapltest kdapl-report >/dev/null
run=$top/build/guest-kdapltest-loop
rc=0
"$top/scripts/run-guest.sh" "$ktree" "$run" scripts/guest/dev-kdapltest-loop.sh \
	"${KDAPL_GUEST_TIMEOUT:-900}" || rc=$?
touch "$run/out/results.ktap"
"$top/build/tools/report/kdapl-report" --results "$run/out/results.ktap" \
	--console "$run/console.log" --expect kdapltest_loop \
	--allowlist "$top/scripts/splat-allowlist" --qemu-status "$rc"
