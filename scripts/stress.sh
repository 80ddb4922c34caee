#!/bin/bash
# `make stress`: the stress suites (scripts/guest/stress.sh) at full length
# on the debug kernel (KASAN, lockdep, kmemleak, the hung-task detector),
# judged like `make check`'s guest stage (kdapl-report: every case, every
# splat, every leak), then the table of what was tried. About 2 hours
# on two cores. `make check` runs the same suites short; so does
# `make stress STRESS_LEVEL=check`.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build
run=$build/guest-stress
mkdir -p "$build"

fail() {
	echo "stress: $*" >&2
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
}

"$top/scripts/install-deps.sh" || fail "installing packages failed"
ktree=$("$top/scripts/build-kernel.sh" debug | tail -n 1) ||
	fail "building the debug kernel failed"
make -C "$top" modules KDIR="$ktree" >"$build/stress-modules.log" 2>&1 ||
	{ tail -n 30 "$build/stress-modules.log"; fail "modules did not build"; }
# the host tools: the report parser, the wire peer (rx_fuzz)
if ! cmake -S "$top/tools" -B "$build/tools" \
	-DCMAKE_BUILD_TYPE=RelWithDebInfo >"$build/cmake.log" 2>&1 ||
   ! cmake --build "$build/tools" -j"$(nproc)" \
	--target kdapl-report kiwarp-wirepeer >>"$build/cmake.log" 2>&1; then
	fail "building kdapl-report and kiwarp-wirepeer failed"
fi

# STRESS_LEVEL=check: the short form of make check (a 3-minute run of
# the same plumbing)
case "${STRESS_LEVEL:-stress}" in
check) KDAPL_APPEND="${KDAPL_APPEND:-} kdguest.stress=check" ;;
stress) ;;
*) fail "STRESS_LEVEL is check or stress" ;;
esac
export KDAPL_APPEND
mkdir -p "$run"
rc=0
"$top/scripts/run-guest.sh" "$ktree" "$run" scripts/guest/stress-run.sh \
	"${KDAPL_STRESS_TIMEOUT:-14400}" || rc=$?
tmo=
[ "$rc" -ne 124 ] || tmo=--timed-out
touch "$run/out/results.ktap"
echo "== stress: what was tried (figure value; Documentation/testing.rst)"
grep -v '^[a-z]* case ' "$run/out/stress-table.txt" 2>/dev/null
echo "== stress: cases (result, duration)"
awk '$2 == "case" { printf "%-34s %-7s %s\n", $3, $4, $5 }' \
	"$run/out/stress-table.txt" 2>/dev/null
echo "stress console log: $run/console.log"
"$build/tools/report/kdapl-report" --results "$run/out/results.ktap" \
	--console "$run/console.log" --expect kdapl_stress \
	--allowlist "$top/scripts/splat-allowlist" --qemu-status "$rc" $tmo
