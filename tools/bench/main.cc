// kdapl-bench: raw figures of a `make bench` guest run -> terminal
// table, bench.json and a gnuplot script for the plot of the paired
// ratios with their intervals.
//
//   kdapl-bench --raw bench.raw [--json out.json] [--plot prefix]
//               [--flavour perf]
//
// --plot writes <prefix>.gp, which writes <prefix>.png when run by
// gnuplot. Exit status 0; 1 if the raw file has unparsable lines or
// no figures; 2 on usage errors.
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "bench.h"

namespace {

int usage()
{
	std::cerr << "usage: kdapl-bench --raw FILE [--json FILE] "
		     "[--plot PREFIX] [--flavour NAME]\n";
	return 2;
}

bool write_file(const std::string &path, const std::string &text)
{
	std::ofstream f(path);

	f << text;
	return static_cast<bool>(f);
}

}  // namespace

int main(int argc, char **argv)
{
	std::string raw_path, json_path, plot_prefix, flavour = "perf";

	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		if (i + 1 >= argc)
			return usage();
		if (a == "--raw")
			raw_path = argv[++i];
		else if (a == "--json")
			json_path = argv[++i];
		else if (a == "--plot")
			plot_prefix = argv[++i];
		else if (a == "--flavour")
			flavour = argv[++i];
		else
			return usage();
	}
	if (raw_path.empty())
		return usage();
	std::ifstream in(raw_path);
	if (!in) {
		std::cerr << "kdapl-bench: cannot read " << raw_path << "\n";
		return 2;
	}
	std::stringstream ss;
	ss << in.rdbuf();

	using namespace kdapl::bench;
	Raw raw = parse_raw(ss.str());
	auto stats = stats_of(raw);
	auto rs = ratios(raw);
	auto pl = pooled(raw);
	std::cout << table(stats, rs, pl);
	for (const auto &c : raw.comments)
		std::cout << "# " << c << "\n";
	if (!json_path.empty() &&
	    !write_file(json_path, json(raw, stats, rs, pl, flavour))) {
		std::cerr << "kdapl-bench: cannot write " << json_path << "\n";
		return 2;
	}
	if (!plot_prefix.empty() &&
	    !write_file(plot_prefix + ".gp", plot_script(rs, plot_prefix))) {
		std::cerr << "kdapl-bench: cannot write the plot script\n";
		return 2;
	}
	for (const auto &e : raw.errors)
		std::cerr << "kdapl-bench: unparsable line: " << e << "\n";
	return raw.errors.empty() && !stats.empty() ? 0 : 1;
}
