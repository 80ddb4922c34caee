#!/bin/sh
# Development shortcut for kdapltest: build the modules and the host
# tools, boot the debug guest once with the two test hosts, run one
# kdapltest suite and judge the run like `make check` (kdapl-report:
# results, splats, leaks).
#
#   scripts/dev-kdapltest.sh [interop|fft]
#
# interop (the default): suite kdapltest_interop, OFA dapltest against
# kdapltest.ko (scripts/guest/dev-kdapltest.sh); fft: suite
# kdapltest_fft, the limit and function feature tests
# (scripts/guest/dev-kdapltest-fft.sh).
#
# The run directory is build/guest-kdapltest (build/guest-kdapltest-fft);
# console.log has everything, the guest's logs of the suite are printed
# on failure (KTAP comments).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
case "${1:-interop}" in
interop)
	suite=kdapltest_interop guest=scripts/guest/dev-kdapltest.sh
	run=$top/build/guest-kdapltest ;;
fft)
	suite=kdapltest_fft guest=scripts/guest/dev-kdapltest-fft.sh
	run=$top/build/guest-kdapltest-fft ;;
*)
	echo "usage: $0 [interop|fft]" >&2
	exit 2 ;;
esac
ktree=$("$top/scripts/build-kernel.sh" debug | tail -n 1)
make -C "$top" modules >/dev/null
cmake -S "$top/tools" -B "$top/build/tools" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	>/dev/null
cmake --build "$top/build/tools" -j2 --target kdapltest kdapl-report >/dev/null
rc=0
"$top/scripts/run-guest.sh" "$ktree" "$run" "$guest" \
	"${KDAPL_GUEST_TIMEOUT:-900}" || rc=$?
touch "$run/out/results.ktap"
"$top/build/tools/report/kdapl-report" --results "$run/out/results.ktap" \
	--console "$run/console.log" --expect "$suite" \
	--allowlist "$top/scripts/splat-allowlist" --qemu-status "$rc"
