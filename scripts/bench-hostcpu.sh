# shellcheck shell=sh
# The host's CPU cost of each measured run of `make bench` (sourced by
# scripts/bench.sh, POSIX sh). bench/cost.c brackets every measured run
# with the console lines "kdapl_bench: cost begin" and "kdapl_bench: cost
# end <tag>"; a watcher follows the guest's console and, as each line
# arrives, reads the CPU time of the QEMU processes (user + system time
# of all their threads, /proc/<pid>/stat) and the host's clock. The
# figures are <tag>.host_cpus (host CPUs busy during the run: under TCG
# the vCPUs' and the device model's work) and <tag>.host_us_per_op
# (host CPU time per operation), merged into bench.raw with the run's
# round. The two lines take a few hundred microseconds of serial output
# each, outside the guest's own snapshots; the guest waits until they are
# printed, and the watcher sees each within about 10 ms (tail's poll
# interval), so a figure is good to about 20 ms of a run.

# hostcpu_pids DIR: the QEMU processes whose serial console is under DIR
hostcpu_pids() {
	pgrep -f "^qemu-system-x86_64 .*-serial file:$1/" | tr '\n' ' '
}

# hostcpu_ticks PID...: their CPU time, clock ticks
hostcpu_ticks() {
	for _p in "$@"; do
		cat "/proc/$_p/stat" 2>/dev/null
	done | awk '{ sub(/^[0-9]+ \(.*\) /, ""); t += $12 + $13 }
		    END { print t + 0 }'
}

# hostcpu_watch CONSOLE OUT PID...: "<tag> <ticks> <ns>" per measured
# run into OUT, until the first PID exits
hostcpu_watch() {
	_console=$1 _out=$2
	shift 2
	_cr=$(printf '\r')
	_bns=
	# with --pid GNU tail polls, every second by default: a line would
	# reach us up to 1 s late (begin and end of a short run together)
	tail --pid="$1" -s 0.01 -n +1 -F "$_console" 2>/dev/null |
	while IFS= read -r _line; do
		_line=${_line%"$_cr"}
		case $_line in
		*"kdapl_bench: cost begin"*)
			_bns=$(date +%s%N)
			_bt=$(hostcpu_ticks "$@")
			;;
		*"kdapl_bench: cost end "*)
			[ -n "$_bns" ] || continue
			_ens=$(date +%s%N)
			_et=$(hostcpu_ticks "$@")
			echo "${_line##*cost end } $((_et - _bt)) $((_ens - _bns))"
			_bns=
			;;
		esac
	done >"$_out"
}

# hostcpu_start DIR N CONSOLE OUT: once the N QEMU processes under DIR
# are up (at most 30 s), watch CONSOLE in the background; sets
# hostcpu_pid
hostcpu_start() {
	hostcpu_pid=
	_i=0
	_pids=
	while [ "$_i" -lt 300 ]; do
		_pids=$(hostcpu_pids "$1")
		# shellcheck disable=SC2086 # one word per PID
		[ "$(echo $_pids | wc -w)" -lt "$2" ] || break
		sleep 0.1
		_i=$((_i + 1))
	done
	shift
	if [ "$(echo "$_pids" | wc -w)" -lt "$1" ]; then
		echo "bench: QEMU processes not found: no host CPU figures" >&2
		return 0
	fi
	shift
	# shellcheck disable=SC2086 # one word per PID
	hostcpu_watch "$1" "$2" $_pids &
	# shellcheck disable=SC2034 # read by the caller
	hostcpu_pid=$!
}

# hostcpu_merge RAW HOSTFILE: the host figures of RAW's runs, one line
# each ("<tag>.host_cpus <v> [@<round>]"): the i-th record of a tag is
# the run of its i-th "<tag>.cpus" line (runs are measured in order); a
# record shorter than 5 clock ticks gives none
hostcpu_merge() {
	awk -v clk="$(getconf CLK_TCK)" '
	FNR == NR {
		k = ++n[$1]
		# shorter than a few clock ticks: no figure (a line was late)
		hv[$1, k] = ($3 >= 5e9 / clk) ? ($2 / clk) / ($3 / 1e9) : -1
		next
	}
	/^#/ { next }
	$1 ~ /\.cpus$/ && $1 !~ /\.host_cpus$/ {
		t = substr($1, 1, length($1) - 5)
		i = ++m[t]
		r = (NF >= 3) ? $3 : ""
		cpus[t, i] = $2
		rnd[t, i] = r
		order[++no] = t SUBSEP i
		next
	}
	$1 ~ /\.us_per_op$/ && $1 !~ /\.host_us_per_op$/ {
		t = substr($1, 1, length($1) - 10)
		upo[t, ++u[t]] = $2
	}
	END {
		for (j = 1; j <= no; j++) {
			split(order[j], a, SUBSEP)
			t = a[1]
			i = a[2]
			if (!((t, i) in hv) || hv[t, i] < 0)
				continue
			h = hv[t, i]
			r = rnd[t, i] == "" ? "" : " " rnd[t, i]
			printf "%s.host_cpus %.3f%s\n", t, h, r
			if (((t, i) in upo) && cpus[t, i] > 0)
				printf "%s.host_us_per_op %.3f%s\n", t,
				       upo[t, i] * h / cpus[t, i], r
		}
	}' "$2" "$1"
}
