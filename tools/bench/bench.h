// Turning the raw figures of a `make bench` guest run into statistics,
// ratios against the targets of issue 7, a terminal table, bench.json
// and the data of the throughput plot.
//
// Raw input (scripts/guest/bench.sh): one "<figure> <value>" line per
// measured run; lines starting with '#' are comments ("# cpus N" is
// kept). Figure names: <stack>.<op>.<size> (MB/s), <stack>.lat.<size>.
// median|p99 (us), <stack>.conn / ours.sconn (per s), scale.<on|off>.<n>
// [.events|.cpuK]. Pure functions, tested in bench_test.cc.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kdapl::bench {

struct Raw {
	std::map<std::string, std::vector<double>> samples;
	std::vector<std::string> comments;	// without the leading "# "
	std::vector<std::string> errors;	// lines that did not parse
};

Raw parse_raw(std::string_view text);

struct Stat {
	double median = 0;
	double min = 0;
	double max = 0;
	std::size_t n = 0;
};

// Median (mean of the middle two for an even count), min, max.
std::optional<Stat> stat_of(std::vector<double> v);

enum class Cmp { at_least, at_most };

struct Ratio {
	std::string name;	// e.g. "ours/tcp write 65536"
	std::string num, den;	// figure names
	double value = 0;	// median(num) / median(den)
	std::optional<double> target;
	Cmp cmp = Cmp::at_least;
	bool met() const;
};

// Every ratio that can be formed from the figures present, with its
// target where issue 7 sets one.
std::vector<Ratio> ratios(const std::map<std::string, Stat> &stats);

std::map<std::string, Stat> stats_of(const Raw &raw);

// The unit of a figure by its name: "MB/s", "us", "1/s", "events".
std::string unit_of(std::string_view figure);

std::string json(const std::map<std::string, Stat> &stats,
		 const std::vector<Ratio> &rs, const Raw &raw,
		 std::string_view flavour);

std::string table(const std::map<std::string, Stat> &stats,
		  const std::vector<Ratio> &rs);

// Throughput vs message size per stack: a gnuplot data block and script
// that writes <prefix>.png.
std::string plot_script(const std::map<std::string, Stat> &stats,
			std::string_view prefix);

}  // namespace kdapl::bench
