#!/bin/sh
# Development shortcut: build, boot the debug guest once and run only the
# named KUnit suites (each "<module>:<suite>"), then judge the run like
# `make check` does (kdapl-report: results, splats, leaks).
#
#   scripts/dev-guest.sh kdapl_conn_test:kdapl_conn [...]
#
# The run directory is build/guest-dev; its console.log has everything.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
ktree=$("$top/scripts/build-kernel.sh" debug | tail -n 1)
make -C "$top" modules >/dev/null
run=$top/build/guest-dev
mkdir -p "$run"
: >"$run/only"
for s in "$@"; do
	echo "${s%%:*} ${s#*:}" >>"$run/only"
done
rc=0
"$top/scripts/run-guest.sh" "$ktree" "$run" scripts/guest/dev.sh \
	"${KDAPL_GUEST_TIMEOUT:-900}" || rc=$?
touch "$run/out/results.ktap"
exp=
for s in "$@"; do
	exp="$exp --expect ${s#*:}"
done
# shellcheck disable=SC2086
"$top/build/tools/report/kdapl-report" --results "$run/out/results.ktap" \
	--console "$run/console.log" $exp \
	--allowlist "$top/scripts/splat-allowlist" --qemu-status "$rc"
