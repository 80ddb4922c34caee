// Turning the raw figures of a `make bench` run into statistics, paired
// ratios with intervals against the targets of the performance issues,
// a terminal table, bench.json and a gnuplot script for bench.png.
//
// Raw input (scripts/guest/bench.sh, pair-bench.sh): one
// "<figure> <value> [@<round>]" line per measured run; lines starting
// with '#' are comments. The guest runs the stacks of one comparison
// interleaved, one measured run each per round (A B, B A, A B, ...), and
// marks each line with its round: a ratio pairs the runs of one round.
// Figure names: <stack>.<op>.<size> (MB/s), <stack>.lat.<size>.<q> (us),
// <stack>.conn / ours.sconn (per s), scale.<on|spread|off>[_work].<n>[.events|.cpuK],
// any of them followed by a cost (.cpus, .us_per_op, .us_per_mb,
// .softirq_per_op, .pkts_per_op, .ipi_per_op, .irqwork_per_op,
// .cs_per_op); round trip histograms <stack>.lat.<size>.hist.<lo>_<hi>
// (ns, a count). Topology (b)'s figures carry the prefix "pair.". Pure
// functions, tested in bench_test.cc.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kdapl::bench {

// One figure's measured runs, and the round of each (-1: not given).
struct Series {
	std::vector<double> v;
	std::vector<long> round;
	void add(double x, long r = -1)
	{
		v.push_back(x);
		round.push_back(r);
	}
};

// Round trip histogram: (lo, hi) in ns, inclusive -> samples.
using Hist = std::map<std::pair<std::uint64_t, std::uint64_t>, double>;

struct Raw {
	std::map<std::string, Series> samples;
	std::map<std::string, Hist> hists;	// by figure ("ours.lat.64")
	std::vector<std::string> comments;	// without the leading "# "
	std::vector<std::string> errors;	// lines that did not parse
};

Raw parse_raw(std::string_view text);

struct Stat {
	double median = 0;
	double lo = 0, hi = 0;		// 95% bootstrap interval of the median
	double min = 0, max = 0;
	std::size_t n = 0;
};

// Median (mean of the middle two for an even count), its interval, min,
// max.
std::optional<Stat> stat_of(std::vector<double> v);

// The 95% percentile bootstrap interval of the median of @v (2000
// resamples, a fixed seed: the same input gives the same interval).
std::pair<double, double> median_interval(const std::vector<double> &v);

// num / den over the runs of the rounds both have, the k-th run of a
// round with the other's k-th of that round (by index when either has no
// rounds); a zero denominator is left out.
std::vector<double> paired(const Series &num, const Series &den);

enum class Cmp { at_least, at_most };

struct Ratio {
	std::string name;	// e.g. "ours/tcp write 65536"
	std::string topology;	// "a" (one guest) or "b" (two guests)
	std::string num, den;	// figure names
	double value = 0;	// median of the paired ratios
	double lo = 0, hi = 0;	// its 95% interval
	std::size_t pairs = 0;
	std::optional<double> target;
	Cmp cmp = Cmp::at_least;
	bool met() const;	// the median meets the target
};

// Every ratio that can be formed from the figures present, for both
// topologies, with its target where issue 16 or 17 sets one.
std::vector<Ratio> ratios(const Raw &raw);

std::map<std::string, Stat> stats_of(const Raw &raw);

// Percentiles pooled over every run's round trips (from the histograms;
// a value is its bucket's middle, within 3%), and the stalls (> 1 ms).
struct Pooled {
	double samples = 0;
	double p50 = 0, p90 = 0, p99 = 0, p999 = 0;	// us
	double stalls = 0;
};

std::map<std::string, Pooled> pooled(const Raw &raw);

// The unit of a figure by its name: "MB/s", "us", "1/s", "events", ...
std::string unit_of(std::string_view figure);

std::string json(const Raw &raw, const std::map<std::string, Stat> &stats,
		 const std::vector<Ratio> &rs,
		 const std::map<std::string, Pooled> &pl,
		 std::string_view flavour);

std::string table(const std::map<std::string, Stat> &stats,
		  const std::vector<Ratio> &rs,
		  const std::map<std::string, Pooled> &pl);

// The ratios that have a target, or compare with TCP, with their
// intervals, per topology: a gnuplot script that writes <prefix>.png.
std::string plot_script(const std::vector<Ratio> &rs,
			std::string_view prefix);

}  // namespace kdapl::bench
