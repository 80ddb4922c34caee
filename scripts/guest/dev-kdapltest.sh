#!/bin/bash
# Guest side of scripts/dev-kdapltest.sh: the test hosts, kdapl.ko and
# kiwarp.ko with kw0..kw2, then only the kdapltest suite named in
# $KDAPL_RUN/suite (kdapltest_interop, kdapltest_fft or kdapltest_rxe,
# functions of scripts/guest/kdapltest.sh).
set -u
. "$KDAPL_SRC/scripts/guest/lib.sh"
. "$KDAPL_SRC/scripts/guest/kdapltest.sh"

dev_guest_begin
case "$(cat "$KDAPL_RUN/suite" 2>/dev/null)" in
kdapltest_fft) kdapltest_fft_suite ;;
kdapltest_rxe) kdapltest_rxe_suite ;;
*) kdapltest_interop_suite ;;
esac
dev_guest_end
