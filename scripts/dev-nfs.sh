#!/bin/sh
# Development shortcut for the storage consumer suites: nfs_rdma (NFS
# over RDMA on kiwarp, siw as the control; the default) or nvme_rdma
# (NVMe over Fabrics, siw and rxe the controls):
#
#   scripts/dev-nfs.sh [nfs|nvme]
#
# builds the modules, boots the debug guest once with the test hosts,
# runs the suite and judges the run like `make check` (kdapl-report:
# results, splats, leaks). The run directory is build/guest-<suite>;
# console.log has everything.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
ktree=$("$top/scripts/build-kernel.sh" debug | tail -n 1)
case "${1:-nfs}" in
nfs) suite=nfs_rdma ;;
nvme) suite=nvme_rdma ;;
*) echo "usage: $0 [nfs|nvme]" >&2; exit 2 ;;
esac
make -C "$top" modules >/dev/null
run=$top/build/guest-$suite
mkdir -p "$run"
echo "$suite" >"$run/suite"
rc=0
"$top/scripts/run-guest.sh" "$ktree" "$run" scripts/guest/dev-nfs.sh \
	"${KDAPL_GUEST_TIMEOUT:-900}" || rc=$?
touch "$run/out/results.ktap"
"$top/build/tools/report/kdapl-report" --results "$run/out/results.ktap" \
	--console "$run/console.log" --expect "$suite" \
	--allowlist "$top/scripts/splat-allowlist" --qemu-status "$rc"
