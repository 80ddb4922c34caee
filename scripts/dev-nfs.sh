#!/bin/sh
# Development shortcut for suite nfs_rdma (NFS over RDMA on kiwarp, siw
# as the control): build the modules, boot the debug guest once with the
# test hosts, run the suite and judge the run like `make check`
# (kdapl-report: results, splats, leaks). The run directory is
# build/guest-nfs_rdma; console.log has everything.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
ktree=$("$top/scripts/build-kernel.sh" debug | tail -n 1)
make -C "$top" modules >/dev/null
run=$top/build/guest-nfs_rdma
mkdir -p "$run"
rc=0
"$top/scripts/run-guest.sh" "$ktree" "$run" scripts/guest/dev-nfs.sh \
	"${KDAPL_GUEST_TIMEOUT:-900}" || rc=$?
touch "$run/out/results.ktap"
"$top/build/tools/report/kdapl-report" --results "$run/out/results.ktap" \
	--console "$run/console.log" --expect nfs_rdma \
	--allowlist "$top/scripts/splat-allowlist" --qemu-status "$rc"
