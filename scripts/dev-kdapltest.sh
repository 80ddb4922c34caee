#!/bin/sh
# Development shortcut for kdapltest: build the modules and the host
# tools, boot the debug guest once with the two test hosts, run one
# kdapltest suite and judge the run like `make check` (kdapl-report:
# results, splats, leaks).
#
#   scripts/dev-kdapltest.sh [interop|fft|rxe|loop]
#
# interop (the default): suite kdapltest_interop, OFA dapltest against
# kdapltest.ko; fft: suite kdapltest_fft, the limit and function feature
# tests; rxe: suite kdapltest_rxe, both over RoCE (all three
# scripts/guest/dev-kdapltest.sh); loop: suite
# kdapltest_loop, for intermittent interop problems: the issue's
# transaction test and -T P repeated in one boot, OFA against OFA (the
# control), OFA against kdapltest both ways, kdapltest against itself
# (scripts/guest/dev-kdapltest-loop.sh; about 25 minutes).
#
# The run directory is build/guest-kdapltest-<suite>; console.log has
# everything, the guest's logs of the suite are printed on failure
# (KTAP comments).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
guest=scripts/guest/dev-kdapltest.sh
tmo=900
case "${1:-interop}" in
interop) suite=kdapltest_interop ;;
fft) suite=kdapltest_fft ;;
rxe) suite=kdapltest_rxe ;;
loop)
	suite=kdapltest_loop guest=scripts/guest/dev-kdapltest-loop.sh
	tmo=1700 ;;
*)
	echo "usage: $0 [interop|fft|rxe|loop]" >&2
	exit 2 ;;
esac
ktree=$("$top/scripts/build-kernel.sh" debug | tail -n 1)
make -C "$top" modules >/dev/null
cmake -S "$top/tools" -B "$top/build/tools" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	>/dev/null
cmake --build "$top/build/tools" -j2 --target kdapltest kdapl-report >/dev/null
run=$top/build/guest-$suite
mkdir -p "$run"
echo "$suite" >"$run/suite"
rc=0
"$top/scripts/run-guest.sh" "$ktree" "$run" "$guest" \
	"${KDAPL_GUEST_TIMEOUT:-$tmo}" || rc=$?
touch "$run/out/results.ktap"
"$top/build/tools/report/kdapl-report" --results "$run/out/results.ktap" \
	--console "$run/console.log" --expect "$suite" \
	--allowlist "$top/scripts/splat-allowlist" --qemu-status "$rc"
