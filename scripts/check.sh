#!/bin/bash
# `make check`: every test of the project, one summary at the end.
#
# Stages (each prints its cases and a line `N passed, N failed, N skipped`):
#   static   W=1 build, sparse (C=2) and checkpatch --strict on our C files
#   host     the C++ tools and their GoogleTest suites, run by ctest
#   guest    the debug kernel under QEMU: test hosts, module lifecycle,
#            every KUnit suite in kunit/SUITES; judged by kdapl-report
#   pair     two guests on a virtual wire (scripts/run-guest-pair.sh):
#            kdapl over kiwarp, and kiwarp against siw, across hosts
#   distro   the modules built, installed (make install, dkms) and
#            loaded with modprobe on Debian's own kernel, booted in a
#            guest (scripts/distro-check.sh)
# The last line sums all stages; the exit status is 0 only if nothing failed.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build
sumfile=$build/summary.txt
mkdir -p "$build"
: >"$sumfile"

summary() { echo "$1 passed, $2 failed, $3 skipped" | tee -a "$sumfile"; }

finish() {
	if [ -x "$build/tools/report/kdapl-sum" ]; then
		"$build/tools/report/kdapl-sum" <"$sumfile"
		exit $?
	fi
	# No kdapl-sum (the host tools did not build): sum here instead.
	awk '/^[0-9]+ passed, [0-9]+ failed/ { p += $1; f += $3; s += $5 }
	     END { printf "%d passed, %d failed, %d skipped\n", p, f, s }' \
		"$sumfile"
	exit 1
}

fatal() {
	echo "check: $*" >&2
	summary 0 1 0 >/dev/null
	finish
}

"$top/scripts/install-deps.sh" || fatal "installing packages failed"
ktree=$("$top/scripts/build-kernel.sh" debug | tail -n 1) ||
	fatal "building the debug kernel failed"

# --- host tools first: the report parser is needed below --------------
echo "== host: C++ tools and ctest"
if cmake -S "$top/tools" -B "$build/tools" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	>"$build/cmake.log" 2>&1 &&
   cmake --build "$build/tools" -j"$(nproc)" >>"$build/cmake.log" 2>&1; then
	ctest --test-dir "$build/tools" --output-on-failure -j"$(nproc)" \
		>"$build/ctest.log" 2>&1
	grep -E '^ *[0-9]+/[0-9]+ Test +#' "$build/ctest.log" |
		sed 's/ *[0-9.]* sec$//'
	tot=$(sed -n 's/.*tests passed, \([0-9]*\) tests\{0,1\} failed out of \([0-9]*\).*/\1 \2/p' \
		"$build/ctest.log")
	skipped=$(grep -c 'Not Run\|\*\*\*Skipped' "$build/ctest.log")
	if [ -n "$tot" ]; then
		set -- $tot
		summary $(($2 - $1 - skipped)) "$1" "$skipped"
	else
		cat "$build/ctest.log"
		summary 0 1 0
	fi
else
	tail -n 40 "$build/cmake.log"
	fatal "building the host tools failed"
fi

# --- static checks --------------------------------------------------
echo "== static: W=1, sparse C=2, checkpatch --strict"
"$top/scripts/static-checks.sh" "$ktree" | tee "$build/static.log"
grep -E '^[0-9]+ passed, ' "$build/static.log" | tail -n 1 >>"$sumfile"
[ -f "$top/kdapl/kdapl.ko" ] || fatal "modules did not build"

# --- guest ------------------------------------------------------------
echo "== guest: debug kernel under QEMU"
grun=$build/guest-debug
grc=0
"$top/scripts/run-guest.sh" "$ktree" "$grun" scripts/guest/run-tests.sh \
	"${KDAPL_GUEST_TIMEOUT:-2400}" || grc=$?
tmo=
[ "$grc" -ne 124 ] || tmo=--timed-out
touch "$grun/out/results.ktap"
"$build/tools/report/kdapl-report" --results "$grun/out/results.ktap" \
	--console "$grun/console.log" --expect-file "$top/kunit/SUITES" \
	--expect guest_env --expect module_lifecycle --expect kdapl_demo \
	--expect kiwarp_device --expect kdapl_device_removal \
	--expect kdapl_rping --expect rping_userspace --expect kdapl_sockdemo --expect kiwarp_rdma_tool --expect trace_connection \
	--expect kdapltest_interop \
	--expect kiwarp_rping --expect kiwarp_rping_userspace \
	--expect kiwarp_wire_user --expect kdapl_wire_user --expect kiwarp_unload_live \
	--expect kdapl_bench_smoke --expect kdapl_stress --expect kdapltest_fft --expect nfs_rdma \
	--expect kdapltest_rxe --expect nvme_rdma \
	--allowlist "$top/scripts/splat-allowlist" \
	--qemu-status "$grc" $tmo | tee "$build/guest-report.txt"
grep -E '^[0-9]+ passed, ' "$build/guest-report.txt" | tail -n 1 >>"$sumfile"
echo "guest console log: $grun/console.log"

# --- two guests on a virtual wire ------------------------------------------
echo "== pair: two guests joined by a virtual wire (one vCPU each)"
prun=$build/guest-pair
"$top/scripts/run-guest-pair.sh" "$ktree" "$prun" scripts/guest/pair.sh \
	"${KDAPL_PAIR_TIMEOUT:-1200}" || true
for side in a b; do
	pst=$(cat "$prun/$side/qemu-status" 2>/dev/null || echo 1)
	ptmo=
	[ "$pst" -ne 124 ] || ptmo=--timed-out
	touch "$prun/$side/out/results.ktap"
	"$build/tools/report/kdapl-report" \
		--results "$prun/$side/out/results.ktap" \
		--console "$prun/$side/console.log" --expect "pair_$side" \
		--allowlist "$top/scripts/splat-allowlist" --min-cpus 1 \
		--qemu-status "$pst" $ptmo | tee "$build/pair-$side-report.txt"
	grep -E '^[0-9]+ passed, ' "$build/pair-$side-report.txt" | tail -n 1 \
		>>"$sumfile"
	echo "pair guest $side console log: $prun/$side/console.log"
done

# --- Debian's own kernel -----------------------------------------------------
echo "== distro: the modules on Debian's own kernel (dkms, modprobe)"
"$top/scripts/distro-check.sh" "$build/tools/report/kdapl-report" |
	tee "$build/distro.log"
# its two stages' summaries (the host's build, the guest's report), or a
# failure if it died before printing them
if [ "$(grep -cE '^[0-9]+ passed, ' "$build/distro.log")" -eq 2 ]; then
	grep -E '^[0-9]+ passed, ' "$build/distro.log" >>"$sumfile"
else
	echo "check: the distro stage ended without its two summaries"
	summary 0 1 0
fi

# A CI log shows the end of this output: repeat each guest's first failing
# kernel report there (kdapl-report prints its body on "# | " lines).
reports="$build/guest-report.txt $build/pair-a-report.txt $build/pair-b-report.txt
$build/distro.log"
# shellcheck disable=SC2086 # word splitting of the file list is meant
if cat $reports 2>/dev/null | grep -q '^# | '; then
	echo "== kernel splats (each guest's first failing report in full)"
	for r in $reports; do
		[ -f "$r" ] || continue
		grep -q '^# | ' "$r" || continue
		echo "-- $(basename "$r" .txt)"
		grep -e '^# kernel splat: ' -e '^# | ' "$r"
	done
fi

echo "== total"
finish
