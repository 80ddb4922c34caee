#!/bin/sh
# Development tool for intermittent kdapltest interop problems: build the
# modules and the host tools, boot the debug guest once with the two test
# hosts, run suite kdapltest_loop (scripts/guest/dev-kdapltest-loop.sh:
# the issue's transaction test and -T P, repeated, OFA against OFA, OFA
# against kdapltest both ways, kdapltest against itself) and judge the
# run like `make check` (kdapl-report: results, splats, leaks).
#
#   KDAPL_GUEST_TIMEOUT=1700 scripts/dev-kdapltest-loop.sh
#
# The run directory is build/guest-kdapltest-loop.
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
	"${KDAPL_GUEST_TIMEOUT:-1700}" || rc=$?
touch "$run/out/results.ktap"
"$top/build/tools/report/kdapl-report" --results "$run/out/results.ktap" \
	--console "$run/console.log" --expect kdapltest_loop \
	--allowlist "$top/scripts/splat-allowlist" --qemu-status "$rc"
