// Judging a kdapl guest test run: KTAP results, kernel console splats,
// guest markers, and the report that kdapl-report prints.
//
// The pieces are independent and pure (text in, values out) so that each
// can be tested on its own; main.cc only reads files and prints.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace kdapl::report {

// --- counts -------------------------------------------------------------

enum class Outcome { passed, failed, skipped };

struct Tally {
	std::uint64_t passed = 0;
	std::uint64_t failed = 0;
	std::uint64_t skipped = 0;

	void add(Outcome outcome);
	Tally &operator+=(const Tally &other);
	bool operator==(const Tally &) const = default;
};

// "P passed, F failed, S skipped"
std::string format_tally(const Tally &tally);

// Parses a line that is exactly "P passed, F failed" or
// "P passed, F failed, S skipped" (a trailing '\r' is ignored).
std::optional<Tally> parse_tally_line(std::string_view line);

// Splits text into lines, dropping each line's trailing '\r'.
std::vector<std::string> split_lines(std::string_view text);

// --- KTAP results -------------------------------------------------------

// One "ok N name # directive" / "not ok N name" line (indent removed).
struct ResultLine {
	bool ok = false;
	std::uint64_t number = 0;
	std::string name;
	std::string directive; // text after " # ", e.g. "SKIP needs hardware"

	// SKIP (ok or not ok) is skipped, TODO is failed, else ok/not ok.
	Outcome outcome() const;
};

std::optional<ResultLine> parse_result_line(std::string_view text);

// "1..N" (anything after a space is ignored).
std::optional<std::uint64_t> parse_plan_line(std::string_view text);

struct CaseResult {
	std::string name;
	Outcome outcome = Outcome::failed;
};

// One suite: "# Subtest: name", its plan, its case lines (those at the
// subtest's own indent; deeper ones are parameters) and the suite's own
// result line at a smaller indent.
struct SuiteBlock {
	std::string name;
	std::vector<std::string> lines; // the block as written, without '\r'
	std::optional<std::uint64_t> plan;
	std::vector<CaseResult> cases;
	std::optional<ResultLine> result; // missing: the block was cut off

	Tally tally() const;
};

// "# kdapl-guest: ..." lines the guest writes between blocks.
struct GuestMarkers {
	bool done = false;
	std::optional<std::uint64_t> cpus;
};

struct Results {
	std::vector<SuiteBlock> suites;
	GuestMarkers markers;
};

// Parses the guest's results file: concatenated suite blocks (KUnit
// debugfs results or the guest scripts' imitation of them) and markers.
Results parse_results(std::string_view text);

// --- kernel console -----------------------------------------------------

// Drops a leading "[    1.234567] " printk timestamp (and a following
// "[  T123]" caller id, and a "<4>" level prefix before it).
std::string_view strip_printk_prefix(std::string_view line);

// True for a line (without timestamp) that reports a kernel problem:
// BUG:, WARNING:, cut here, Oops and other die() headers, panic,
// kmemleak leaks, hung tasks, UBSAN, RCU stalls, SLUB corruption.
// "Call Trace:" alone and the debug options' boot banners do not match.
bool is_splat_line(std::string_view line);

struct Splat {
	std::string line; // without the printk timestamp
	bool allowed = false;
	// The report's body: the lines after `line` (timestamps removed) up
	// to the next splat line, the end of a WARN trace, or a bound; what a
	// reader of a CI log needs to find the cause (lock chains, stacks).
	std::vector<std::string> context;
};

// All splat lines of a console log. A "cut here" line followed shortly
// by another splat line is folded into that line (so an allowlisted
// WARNING is not failed by its own cut-here header).
std::vector<Splat> scan_console(std::string_view text,
				const std::vector<std::string> &allowlist);

// --- configuration files ------------------------------------------------

// Thrown for malformed input files and bad command lines.
struct InputError : std::runtime_error {
	using std::runtime_error::runtime_error;
};

// Allowlist: one entry per line; blank lines and '#' lines ignored. An
// entry is a substring of the splat line, optionally followed by
// " @@ <substring>" parts that the report's body must each contain.
std::vector<std::string> parse_allowlist(std::string_view text);

// Expected suites: "<module> <suite>" (or just "<suite>") per line,
// '#' starts a comment. Returns the suite names.
std::vector<std::string> parse_expect_file(std::string_view text);

// --- command line -------------------------------------------------------

struct Options {
	std::string results_path;
	std::string console_path;
	std::vector<std::string> expect_files;
	std::vector<std::string> expect_names;
	std::optional<std::string> allowlist_path;
	std::optional<int> qemu_status;
	std::vector<int> qemu_ok_statuses{0};
	bool timed_out = false;
	std::uint64_t min_cpus = 2;
};

std::string_view usage_text();

// Parses the arguments after argv[0]; throws InputError.
Options parse_options(const std::vector<std::string_view> &args);

// --- verdict ------------------------------------------------------------

// Everything known about one guest run.
struct RunFacts {
	Results results;
	std::vector<Splat> splats;
	std::vector<std::string> expected_suites;
	std::optional<int> qemu_status;
	std::vector<int> qemu_ok_statuses{0};
	bool timed_out = false;
	std::uint64_t min_cpus = 2;
};

struct Check {
	std::string name;
	bool ok = false;
	std::string reason; // why it failed
};

struct Verdict {
	std::vector<Check> checks; // the guest_run checks, in print order
	Tally total;		   // all suite cases plus the checks

	bool passed() const { return total.failed == 0; }
};

Verdict judge(const RunFacts &facts);

// Prints the suite blocks, per-suite counts, the splat lines (the first
// failing report's body on lines starting "# | "), the guest_run checks
// and the final "P passed, F failed, S skipped" line.
void print_report(std::ostream &out, const RunFacts &facts,
		  const Verdict &verdict);

} // namespace kdapl::report
