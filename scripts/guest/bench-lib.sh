# shellcheck shell=bash
# The bench command runner of make bench's guest scripts (bench.sh,
# pair-bench.sh): each writes one command to kdapl_bench's ctl file and
# appends its figures to $RAW. Needs CTL, RAW, OUT.

# bench <command...>: run one command, append its figures to $RAW,
# each marked with the round "@$ROUND" when ROUND is set (interleave).
# ONLY (bench.conf), an extended regex, skips commands that do not match.
# A command is kdapl_bench's (its ctl file) or "fio ..." (cons_fio,
# consumer-bench.sh).
ONLY=${ONLY:-}
ROUND=
bench() {
	local t0=$SECONDS out
	if [ -n "$ONLY" ] && ! echo "$*" | grep -qE "$ONLY"; then
		return 0
	fi
	if [ "$1" = kiwarp ] || [ "$1" = kdapl ]; then
		bench_param "$@"
		return 0
	fi
	if [ -n "${PROFILE:-}" ]; then
		profile_cmd "$@"
		return 0
	fi
	if [ "$1" = fio ]; then
		out=$(cons_fio "${@:2}")
	elif echo "$*" >"$CTL"; then
		out=$(cat "$CTL")
	else
		out="# failed: $*"$'\n'$(cat "$CTL")
	fi
	if [ "$1" = fio ] && [ -z "$out" ]; then
		out="# failed: $*"
	fi
	case "$out" in
	"# failed: "*) echo "kdapl-bench: failed: $*" ;;
	*) [ -z "$ROUND" ] || out=$(echo "$out" | sed "/^#/!s/\$/ @$ROUND/") ;;
	esac
	echo "$out" >>"$RAW"
	echo "kdapl-bench: $* ($((SECONDS - t0)) s)"
}

# kiwarp|kdapl <param>=<value> <command>...: the command with one of that
# module's writable parameters set, restored afterwards; not run (and
# said so) if the parameter cannot be set.
bench_param() {
	local p=/sys/module/$1/parameters/${2%%=*} old

	if ! old=$(cat "$p") || ! echo "${2#*=}" >"$p"; then
		echo "# failed: $*" >>"$RAW"
		echo "kdapl-bench: failed: $*"
		return 0
	fi
	bench "${@:3}"
	echo "$old" >"$p"
}

# interleave <command>...: $REPS rounds; in each, one measured run of
# every command (reps=1, after the command's own connection and warm-up),
# one after the other, the order reversed every other round (A B C,
# C B A, ...) so that a drift of the machine favours no stack. Figures
# carry their round: tools/bench pairs the runs of one round.
interleave() {
	local -a cmds=("$@")
	local n=$# r i c

	for ((r = 1; r <= REPS; r++)); do
		ROUND=$r
		for ((i = 0; i < n; i++)); do
			if ((r % 2)); then
				c=${cmds[i]}
			else
				c=${cmds[n - 1 - i]}
			fi
			# shellcheck disable=SC2086 # words of one command
			bench $c reps=1
		done
	done
	ROUND=
}

# --profile: the command under perf (cpu-clock samples of every CPU, call
# graphs); its report, kernel and modules included, to profile-<tag>.txt:
# the number of samples, self time per symbol, then inclusive time
# (callees included), each with its sample count: a 64 B ping-pong of
# ROUNDS round trips has a fixed amount of work, so counts of two runs
# compare per round trip. cpu-clock samples are hrtimer interrupts: a
# section with interrupts off is charged to where it turns them on.
profile_cmd() {
	local tag data
	tag=$(echo "$*" | sed -n 's/.*tag=\([^ ]*\).*/\1/p')
	data=/tmp/perf-$tag.data
	nstat -n >/dev/null 2>&1
	ip netns exec b nstat -n >/dev/null 2>&1
	if [ "$1" = fio ]; then
		# a shell function: perf samples the whole guest around it
		local pid
		perf record -q -a -g -e cpu-clock -o "$data" >/dev/null 2>&1 &
		pid=$!
		sleep 1		# perf is recording
		cons_fio "${@:2}" >>"$RAW" ||
			echo "kdapl-bench: failed: $*"
		kill -INT "$pid"
		wait "$pid" ||
			echo "kdapl-bench: perf record failed: $*"
	else
		perf record -q -a -g -e cpu-clock -o "$data" -- \
			sh -c "echo '$*' >$CTL" >/dev/null 2>&1 ||
			echo "kdapl-bench: perf record failed: $*"
		cat "$CTL" >>"$RAW"
	fi
	{
		perf report -q -i "$data" --stdio --no-children --sort cpu -n \
			-g none 2>&1 |
			awk '{ n += $2 } END { print "# samples " n + 0 }'
		perf report -q -i "$data" --stdio --no-children --sort sym -n \
			--percent-limit 0.5 -g none 2>&1
		# and with callees' samples included (inclusive time)
		echo "# inclusive (children), symbols of 0.3% and more"
		perf report -q -i "$data" --stdio --children --sort sym -n \
			--percent-limit 0.3 -g none 2>&1
		# which CPU does what: the copies, the works, idle
		echo "# per CPU, self, CPU-symbol pairs of 1% and more"
		perf report -q -i "$data" --stdio --no-children --sort cpu,sym \
			-n --percent-limit 1 -g none 2>&1
	} >"$OUT/profile-$tag.txt"
	# TCP's trouble during the command (drops, time-outs), both hosts
	{
		echo "# nstat, root namespace"
		nstat 2>&1 | grep -E 'Drop|Timeout|Retrans|Loss|Prune|Collapse'
		echo "# nstat, namespace b"
		ip netns exec b nstat 2>&1 |
			grep -E 'Drop|Timeout|Retrans|Loss|Prune|Collapse'
	} >>"$OUT/profile-$tag.txt"
	# PROFILE_ANNOTATE (bench.conf): for these symbols, the samples per
	# instruction offset ("sym+0x1f"), to read against `objdump -d` of
	# the object on the host (the guest has no objdump), and the call
	# chains their samples came through (callers, 5% and more of each)
	if [ -n "${PROFILE_ANNOTATE:-}" ]; then
		local sym
		for sym in $PROFILE_ANNOTATE; do
			perf script -i "$data" -G -F ip,sym,symoff 2>/dev/null |
				awk '{ print $2 }' | grep -E "^$sym\+0x" | sort | uniq -c |
				sort -rn | head -80 >"$OUT/annotate-$tag-$sym.txt"
			perf report -q -i "$data" --stdio --no-children \
				--symbols "$sym" -g fractal,5,callee 2>&1 |
				head -200 >"$OUT/callers-$tag-$sym.txt"
		done
	fi
	echo "kdapl-bench: profiled $tag"
}

