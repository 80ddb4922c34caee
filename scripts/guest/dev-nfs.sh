#!/bin/bash
# Guest side of scripts/dev-nfs.sh: the test hosts, kdapl.ko and
# kiwarp.ko with kw0..kw2, then only the storage suite named in
# $KDAPL_RUN/suite: nfs_rdma (scripts/guest/nfs.sh) or nvme_rdma
# (scripts/guest/nvme.sh).
set -u
. "$KDAPL_SRC/scripts/guest/lib.sh"
. "$KDAPL_SRC/scripts/guest/nfs.sh"
. "$KDAPL_SRC/scripts/guest/nvme.sh"

dev_guest_begin
case "$(cat "$KDAPL_RUN/suite" 2>/dev/null)" in
nvme_rdma) nvme_rdma_suite ;;
*) nfs_rdma_suite ;;
esac
dev_guest_end
