#!/bin/sh
# `make bench`: build the modules against the perf (non-debug) guest
# kernel in a copy of the tree under build/, run both topologies - (a)
# one guest with veth (scripts/guest/bench.sh), (b) two guests of one
# vCPU each joined by a virtual wire (scripts/run-guest-pair.sh,
# scripts/guest/pair-bench.sh) - and turn the raw figures into a
# terminal table, build/bench/bench.json and build/bench/bench.png
# (tools/bench).
#
#   scripts/bench.sh [--quick] [--flavour perf|debug] [--profile REGEX]
#                    [--only REGEX] [--topology a|b|both]
#
# --quick: three short rounds per figure (a smoke test of the harness,
# numbers not meaningful). --flavour debug: the debug kernel
# (numbers not meaningful either). --profile REGEX: only the commands
# matching REGEX (e.g. 'ours.write.65536'), each under `perf record -a
# -g` in the guest; build/bench/profile-<tag>.txt get perf's report.
# --only REGEX: run only the commands matching REGEX (an extended regex
# on the command line as the guest writes it, "... tag=<tag> reps=1"),
# with the full rounds: a before/after of a few figures.
# Documentation/performance.rst.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/bench-hostcpu.sh"
flavour=perf
quick=0
profile=
only=
topo=both
while [ $# -gt 0 ]; do
	case "$1" in
	--quick) quick=1 ;;
	--flavour) flavour=$2; shift ;;
	--profile) profile=$2; shift; topo=a ;;
	--only) only=$2; shift ;;
	--topology) topo=$2; shift ;;
	*) echo "usage: $0 [--quick] [--flavour perf|debug] [--profile REGEX] [--only REGEX] [--topology a|b|both]" >&2; exit 2 ;;
	esac
	shift
done
case "$topo" in a|b|both) ;; *) echo "bench: --topology a|b|both" >&2; exit 2 ;; esac

"$top/scripts/install-deps.sh"
ktree=$("$top/scripts/build-kernel.sh" "$flavour" | tail -n 1)

# Modules are built in the source tree (kbuild M=): build this flavour in
# a copy so the clone's own (debug) objects are never mixed with it.
out=$top/build/bench
src=$top/build/bench-$flavour/src
run=$top/build/bench-$flavour/guest
# nothing of an earlier build may leak into this one: emptied first
"$top/scripts/tree-copy.sh" "$src"
mkdir -p "$out" "$run"
echo "bench: building the modules against $ktree"
make -s -C "$ktree" M="$src" -j"$(nproc)" modules

cmake -S "$top/tools" -B "$top/build/tools" -DCMAKE_BUILD_TYPE=Release \
	>"$out/cmake.log" 2>&1
cmake --build "$top/build/tools" --target kdapl-bench -j"$(nproc)" \
	>>"$out/cmake.log" 2>&1

if [ "$quick" -eq 1 ]; then
	cat >"$run/bench.conf" <<'CONF'
REPS=3
MS=200
WARM_MS=100
ROUNDS=500
WARM_ROUNDS=100
SETUPS=3
SIZES="4096 65536"
LAT_SIZES="64"
SCALE_CONNS="1 8"
SWEEP_REPS=1
SWEEP_SIZES="1024"
SWEEP_DEPTHS="1 64"
SWEEP_CONNS="8"
SWEEP_SIGNALS="1 16"
CONS_REPS=2
CONS_SEC=1
CONS_MIB=16
CONF
else
	rm -f "$run/bench.conf"
fi

# KDAPL_FPDU_SEGS=N: load kiwarp with fpdu_segs=N (default: its own, 32);
# KDAPL_ZCOPY_MIN=N: with zcopy_min=N (default: its own, -1 = by path:
# never over veth or loopback, from 1 MiB on a wire; 0 = never);
# KDAPL_MPA_CRC=1: with mpa_crc=1 (MPA CRC32c on kiwarp's connections);
# KDAPL_KIWARP_ARGS="p=v ...": any other kiwarp module parameters
kargs=
[ -n "${KDAPL_FPDU_SEGS:-}" ] && kargs="fpdu_segs=$KDAPL_FPDU_SEGS"
[ -n "${KDAPL_ZCOPY_MIN:-}" ] && kargs="$kargs zcopy_min=$KDAPL_ZCOPY_MIN"
[ -n "${KDAPL_MPA_CRC:-}" ] && kargs="$kargs mpa_crc=$KDAPL_MPA_CRC"
[ -n "${KDAPL_KIWARP_ARGS:-}" ] && kargs="$kargs $KDAPL_KIWARP_ARGS"
if [ -n "$kargs" ]; then
	echo "KIWARP_ARGS=\"$kargs\"" >>"$run/bench.conf"
fi

if [ -n "$only" ] && [ -z "$profile" ]; then
	printf 'ONLY=%s\n' "'$only'" >>"$run/bench.conf"
fi
if [ -n "$profile" ]; then
	printf 'ONLY=%s\nPROFILE=1\n' "'$profile'" >>"$run/bench.conf"
	# KDAPL_PROFILE_ANNOTATE="sym ...": their samples per instruction
	# and their callers
	[ -z "${KDAPL_PROFILE_ANNOTATE:-}" ] ||
		printf 'PROFILE_ANNOTATE=%s\n' "'$KDAPL_PROFILE_ANNOTATE'" \
			>>"$run/bench.conf"
	rm -f "$run"/out/profile-*.txt "$run"/out/annotate-*.txt \
		"$run"/out/callers-*.txt
fi

# The guests' clocksource. Under TCG the kernel finds the vCPUs' TSCs
# unsynchronized and falls back to the HPET, every read of which is an
# emulated MMIO access: read_hpet (TCP's timestamps, mostly) was 8% of
# the DAT 64 B ping-pong's samples and 15% of the verbs one's, a cost no
# machine with a TSC has. QEMU's TCG TSC is one virtual clock for all
# vCPUs (from QEMU's source; the guests' clocks are not checked), so the
# bench guests boot with tsc=reliable. KDAPL_BENCH_HPET=1 keeps the HPET.
# The guest records the clocksource it ran on in bench.raw.
if [ -z "${KDAPL_BENCH_HPET:-}" ]; then
	KDAPL_APPEND="${KDAPL_APPEND:-} tsc=reliable"
	export KDAPL_APPEND
fi

rc=0
: >"$out/bench.raw"
if [ "$topo" != b ]; then
	echo "bench: topology (a), the $flavour guest (${KDAPL_SMP:-2} CPUs); console in $run/console.log"
	KDAPL_SMP=${KDAPL_SMP:-2} "$src/scripts/run-guest.sh" "$ktree" "$run" \
		scripts/guest/bench.sh "${KDAPL_BENCH_TIMEOUT:-3600}" &
	gpid=$!
	hostcpu_start "$run" 1 "$run/console.log" "$out/hostcpu-a.txt"
	wait "$gpid" || rc=$?
	[ -z "$hostcpu_pid" ] || wait "$hostcpu_pid" || true
	if [ ! -s "$run/out/bench.raw" ]; then
		echo "bench: no results of topology (a) (guest exit $rc)" >&2
		exit 1
	fi
	cat "$run/out/bench.raw" >>"$out/bench.raw"
	[ ! -s "$out/hostcpu-a.txt" ] ||
		hostcpu_merge "$run/out/bench.raw" "$out/hostcpu-a.txt" \
			>>"$out/bench.raw"
fi
if [ "$topo" != a ]; then
	prun=$top/build/bench-$flavour/pair
	mkdir -p "$prun/a" "$prun/b"
	for side in a b; do
		rm -f "$prun/$side/bench.conf"
		[ ! -f "$run/bench.conf" ] || cp "$run/bench.conf" "$prun/$side/"
	done
	echo "bench: topology (b), two $flavour guests (1 vCPU each); consoles in $prun/a and $prun/b"
	prc=0
	"$src/scripts/run-guest-pair.sh" "$ktree" "$prun" \
		scripts/guest/pair-bench.sh "${KDAPL_BENCH_TIMEOUT:-3600}" &
	gpid=$!
	# both guests' QEMUs, timed at the measuring guest's (a) lines
	hostcpu_start "$prun" 2 "$prun/a/console.log" "$out/hostcpu-b.txt"
	wait "$gpid" || prc=$?
	[ -z "$hostcpu_pid" ] || wait "$hostcpu_pid" || true
	if [ ! -s "$prun/a/out/bench.raw" ]; then
		echo "bench: no results of topology (b) (guests exit $prc)" >&2
		exit 1
	fi
	cat "$prun/a/out/bench.raw" >>"$out/bench.raw"
	[ ! -s "$out/hostcpu-b.txt" ] ||
		hostcpu_merge "$prun/a/out/bench.raw" "$out/hostcpu-b.txt" \
			>>"$out/bench.raw"
	[ "$prc" -eq 0 ] || rc=$prc
fi
if [ -n "$profile" ]; then
	set -- "$run"/out/profile-*.txt
	[ -e "$1" ] || { echo "bench: no profile written" >&2; exit 1; }
	for f in "$@" "$run"/out/annotate-*.txt "$run"/out/callers-*.txt; do
		[ -e "$f" ] || continue
		cp "$f" "$out/"
		echo "bench: wrote $out/$(basename "$f")"
	done
	exit 0
fi
trc=0
"$top/build/tools/bench/kdapl-bench" --raw "$out/bench.raw" \
	--json "$out/bench.json" --plot "$out/bench" \
	--flavour "$flavour" >"$out/table.txt" || trc=$?
cat "$out/table.txt"
[ "$trc" -le 1 ] || { echo "bench: kdapl-bench failed ($trc)" >&2; exit 1; }
if command -v gnuplot >/dev/null 2>&1; then
	gnuplot "$out/bench.gp"
	echo "bench: wrote $out/bench.json and $out/bench.png"
else
	echo "bench: gnuplot missing, no plot; wrote $out/bench.json" >&2
fi
[ "$rc" -eq 0 ] || echo "bench: guest exit status $rc" >&2
grep -q '^# failed' "$out/bench.raw" && { echo "bench: some measurements failed (see $out/bench.raw)" >&2; exit 1; }
exit 0
