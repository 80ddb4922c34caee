# shellcheck shell=bash
# KTAP cases of a host-side stage of make check (scripts/static-checks.sh,
# scripts/distro-check.sh), sourced: counts in n and failed.

n=0
failed=0

# result NAME OK LOGFILE [head|tail]: case NAME passed if OK is 0; else
# LOGFILE's first (head, the default) or last 40 lines go out as KTAP
# comments before "not ok"
result() {
	n=$((n + 1))
	if [ "$2" -eq 0 ]; then
		echo "    ok $n $1"
	else
		sed 's/^/    # /' "$3" | "${4:-head}" -n 40
		echo "    not ok $n $1"
		failed=$((failed + 1))
	fi
}
