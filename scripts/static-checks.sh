#!/bin/bash
# Static checks on our kernel C files, reported as KTAP cases:
#   build_w1    a clean module build with W=1 has no warning and succeeds
#   sparse      C=2 (sparse on every file) reports nothing
#   checkpatch  checkpatch.pl --no-tree -f --strict: 0 errors, 0 warnings
#   exports     every function in scripts/kdapl-exports is exported by
#               kdapl.ko with EXPORT_SYMBOL_GPL (Module.symvers)
#   hotpath_no_alloc  kiwarp's per-message path calls no allocator
#               (scripts/hotpath-alloc-check.sh)
#
#   scripts/static-checks.sh <kernel-tree>
# The modules are left built (W=1) for the guest run.
set -u
ktree=$1
top=$(cd "$(dirname "$0")/.." && pwd)
src=$(readlink -f "$ktree/source")
log=$top/build/static
mkdir -p "$log"
. "$top/scripts/host-ktap.sh"

echo "    KTAP version 1"
echo "    # Subtest: static_checks"
echo "    1..5"

make -s -C "$ktree" M="$top" clean >/dev/null 2>&1
rc=0
make -C "$ktree" M="$top" W=1 -j"$(nproc)" modules >"$log/w1.log" 2>&1 || rc=$?
grep -E 'warning:|error:' "$log/w1.log" >"$log/w1.bad"
[ "$rc" -eq 0 ] && [ ! -s "$log/w1.bad" ]
bad=$?
[ "$rc" -eq 0 ] || tail -n 20 "$log/w1.log" >>"$log/w1.bad"
result build_w1 $bad "$log/w1.bad"

rc=0
make -C "$ktree" M="$top" C=2 -j"$(nproc)" modules >"$log/sparse.log" 2>&1 || rc=$?
grep -E 'warning:|error:' "$log/sparse.log" >"$log/sparse.bad"
[ "$rc" -eq 0 ] && [ ! -s "$log/sparse.bad" ]
result sparse $? "$log/sparse.bad"

# tools/kdapltest: the module's C (its frontend/ and test/ are C++).
files=$(cd "$top" && find kdapl iw_provider kunit demo include tools/kdapltest bench \
	-name '*.[ch]' -not -name '*.mod.c' -not -path '*/frontend/*' \
	-not -path '*/test/*' | sort)
: >"$log/checkpatch.bad"
for f in $files; do
	# The public DAT headers must keep the specification's typedef'd
	# names (DAT_RETURN, DAT_HANDLE, ...): only there, typedefs are not
	# reported. Everything else is checked in full.
	ign=
	case "$f" in include/dat2/*) ign="--ignore NEW_TYPEDEFS" ;; esac
	# Tracepoint headers are laid out as the kernel's own
	# (include/trace/events/): TRACE_EVENT's TP_* argument blocks open
	# a line with "(" and are not aligned to it.
	case "$f" in
	*_trace.h) ign="--ignore PARENTHESIS_ALIGNMENT,OPEN_ENDED_LINE" ;;
	esac
	# shellcheck disable=SC2086
	out=$(cd "$top" && perl "$src/scripts/checkpatch.pl" --no-tree -f \
		--strict --quiet --show-types $ign "$f" 2>&1)
	[ -z "$out" ] || echo "$out" >>"$log/checkpatch.bad"
done
[ ! -s "$log/checkpatch.bad" ]
result checkpatch $? "$log/checkpatch.bad"

# dat_ia_open is a macro over the exported dat_ia_openv (kdat.h).
: >"$log/exports.bad"
for sym in $(grep -v '^#' "$top/scripts/kdapl-exports"); do
	grep -qE "^0x[0-9a-f]+[[:space:]]+$sym[[:space:]]+[^[:space:]]*/kdapl/kdapl[[:space:]]+EXPORT_SYMBOL_GPL" \
		"$top/Module.symvers" 2>/dev/null ||
		echo "$sym: not exported with EXPORT_SYMBOL_GPL by kdapl.ko" \
			>>"$log/exports.bad"
done
[ ! -s "$log/exports.bad" ]
result exports $? "$log/exports.bad"

rc=0
"$top/scripts/hotpath-alloc-check.sh" "$top" >"$log/hotpath.bad" 2>&1 || rc=$?
result hotpath_no_alloc $rc "$log/hotpath.bad"

if [ "$failed" -eq 0 ]; then echo "ok 1 static_checks"; else echo "not ok 1 static_checks"; fi
echo "$((n - failed)) passed, $failed failed, 0 skipped"
