#!/bin/bash
# Guest side of scripts/dev-guest.sh: the two test hosts, then only the
# KUnit suites listed in $KDAPL_RUN/only ("<module> <suite>" per line).
set -u
. "$KDAPL_SRC/scripts/guest/lib.sh"
. "$KDAPL_SRC/scripts/guest/stress.sh"

dev_guest_begin
# kdapl_rping needs userspace rping around it (lib.sh).
grep -v '^\(k[a-z]*_rping_test\|guest\) ' "$KDAPL_RUN/only" >/tmp/dev-only || true
run_kunit_suites /tmp/dev-only
if grep -q '^kdapl_rping_test' "$KDAPL_RUN/only"; then
	kdapl_rping_suites
fi
if grep -q '^kiwarp_rping_test' "$KDAPL_RUN/only"; then
	kiwarp_rping_suites
fi
# "guest:<name>": the shell suite <name>_suite (lib.sh), e.g.
# guest:kiwarp_wire_user, guest:kiwarp_unload_live, guest:kiwarp_rdma_tool
while read -r mod suite; do
	[ "$mod" = guest ] || continue
	if declare -F "${suite}_suite" >/dev/null; then
		"${suite}_suite" </dev/null
	else
		echo "kdapl-guest: no shell suite $suite"
	fi
done <"$KDAPL_RUN/only"
dev_guest_end
