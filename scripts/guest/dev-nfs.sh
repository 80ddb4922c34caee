#!/bin/bash
# Guest side of scripts/dev-nfs.sh: the test hosts, kdapl.ko and
# kiwarp.ko with kw0..kw2, then only suite nfs_rdma (scripts/guest/nfs.sh).
set -u
. "$KDAPL_SRC/scripts/guest/lib.sh"
. "$KDAPL_SRC/scripts/guest/nfs.sh"

dev_guest_begin
nfs_rdma_suite
dev_guest_end
