# shellcheck shell=bash
# The two-guest topology's common part (scripts/run-guest-pair.sh), for
# pair.sh (make check) and pair-bench.sh (make bench): the role, the
# addresses on the wire, the markers both guests meet by.

ROLE=${KDAPL_ROLE:-}
PAIR_A_ADDR=198.18.0.1
PAIR_B_ADDR=198.18.0.2

# pair_post NAME / pair_wait NAME [SECONDS]: the markers
pair_post() { : >"$KDAPL_SYNC/$1"; }
pair_wait() {
	local i
	for i in $(seq 1 $((${2:-300} * 5))); do
		[ -e "$KDAPL_SYNC/$1" ] && return 0
		[ -e "$KDAPL_SYNC/abort" ] && { echo "the other side gave up"; return 1; }
		sleep 0.2
	done
	echo "no $1 from the other side"
	return 1
}

# The wire: eth0 up with this side's address, the other side answers.
pair_wire_up() {
	ip link set lo up &&
	ip addr add "$1/24" dev eth0 &&
	ip link set eth0 up
}

pair_ping() {
	local i
	for i in $(seq 1 30); do
		ping -c 1 -W 2 "$1" >/dev/null 2>&1 && return 0
	done
	ping -c 1 -W 2 "$1"
}

