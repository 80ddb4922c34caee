// kdapl-report: decides whether a guest test run passed.
//
// Reads the guest's KTAP results file, its serial console log and the
// list of expected suites; prints every suite block, per-suite counts,
// the guest_run checks and a last line "P passed, F failed, S skipped".
// Exit status: 0 if nothing failed, 1 if something did, 2 if the command
// line or an input file was bad (the last line then counts one failure).

#include "ktap.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace kdapl::report;

std::string read_file(const std::string &path)
{
	std::ifstream in(path, std::ios::binary);
	if (!in || std::filesystem::is_directory(path))
		throw InputError("cannot read '" + path + "'");
	std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
	if (in.bad())
		throw InputError("error reading '" + path + "'");
	return text;
}

std::vector<std::string> expected_suites(const Options &options)
{
	std::vector<std::string> suites;
	for (const auto &path : options.expect_files) {
		const auto from_file = parse_expect_file(read_file(path));
		suites.insert(suites.end(), from_file.begin(), from_file.end());
	}
	suites.insert(suites.end(), options.expect_names.begin(),
		      options.expect_names.end());
	return suites;
}

RunFacts gather_facts(const Options &options)
{
	const auto allowlist = options.allowlist_path
				       ? parse_allowlist(read_file(*options.allowlist_path))
				       : std::vector<std::string>{};
	RunFacts facts;
	facts.results = parse_results(read_file(options.results_path));
	facts.splats = scan_console(read_file(options.console_path), allowlist);
	facts.expected_suites = expected_suites(options);
	facts.qemu_status = options.qemu_status;
	facts.qemu_ok_statuses = options.qemu_ok_statuses;
	facts.timed_out = options.timed_out;
	facts.min_cpus = options.min_cpus;
	return facts;
}

int report(const std::vector<std::string_view> &args)
{
	const auto facts = gather_facts(parse_options(args));
	const auto verdict = judge(facts);
	print_report(std::cout, facts, verdict);
	return verdict.passed() ? 0 : 1;
}

} // namespace

int main(int argc, char **argv)
{
	const std::vector<std::string_view> args(argv + 1, argv + argc);
	try {
		return report(args);
	} catch (const InputError &error) {
		std::cerr << "kdapl-report: " << error.what() << '\n' << usage_text();
		std::cout << format_tally({.passed = 0, .failed = 1, .skipped = 0}) << '\n';
		return 2;
	}
}
