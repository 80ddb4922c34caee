#include "ktap.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <ostream>
#include <utility>

namespace kdapl::report {

namespace {

// --- small string helpers -----------------------------------------------

constexpr std::string_view whitespace = " \t\r\n";

std::string_view trim(std::string_view s)
{
	const auto first = s.find_first_not_of(whitespace);
	if (first == std::string_view::npos)
		return {};
	const auto last = s.find_last_not_of(whitespace);
	return s.substr(first, last - first + 1);
}

bool contains(std::string_view s, std::string_view part)
{
	return s.find(part) != std::string_view::npos;
}

// Removes `literal` from the front of `s` if it is there.
bool take_literal(std::string_view &s, std::string_view literal)
{
	if (!s.starts_with(literal))
		return false;
	s.remove_prefix(literal.size());
	return true;
}

// Removes a run of decimal digits from the front of `s` into `number`.
bool take_number(std::string_view &s, std::uint64_t &number)
{
	const auto digits = std::min(s.find_first_not_of("0123456789"), s.size());
	if (digits == 0)
		return false;
	const auto [end, ec] = std::from_chars(s.data(), s.data() + digits, number);
	if (ec != std::errc())
		return false;
	s.remove_prefix(end - s.data());
	return true;
}

std::optional<std::uint64_t> parse_whole_number(std::string_view s)
{
	std::uint64_t number = 0;
	if (!take_number(s, number) || !s.empty())
		return std::nullopt;
	return number;
}

bool starts_with_nocase(std::string_view s, std::string_view prefix)
{
	if (s.size() < prefix.size())
		return false;
	return std::equal(prefix.begin(), prefix.end(), s.begin(),
			  [](char a, char b) {
				  return std::toupper(static_cast<unsigned char>(a)) ==
					 std::toupper(static_cast<unsigned char>(b));
			  });
}

std::size_t indent_of(std::string_view line)
{
	return std::min(line.find_first_not_of(' '), line.size());
}

std::string join(const std::vector<std::string> &parts, std::string_view sep)
{
	std::string joined;
	for (const auto &part : parts) {
		if (!joined.empty())
			joined += sep;
		joined += part;
	}
	return joined;
}

// --- results file -------------------------------------------------------

constexpr std::string_view subtest_prefix = "# Subtest: ";
constexpr std::string_view marker_prefix = "# kdapl-guest: ";

bool is_version_line(std::string_view text)
{
	return text.starts_with("KTAP version ") || text.starts_with("TAP version ");
}

// Reads the results file line by line. Outside a suite it collects the
// KTAP header lines that precede a "# Subtest:" line, so a block is
// printed as the guest wrote it. Inside a suite, lines at the subtest's
// indent are its plan and cases, deeper lines belong to parameterized
// cases, and a result line at a smaller indent ends the suite.
class ResultsParser {
public:
	void feed(std::string line)
	{
		if (line.starts_with(marker_prefix)) {
			close_suite();
			note_marker(trim(std::string_view(line).substr(marker_prefix.size())));
			return;
		}
		const auto indent = indent_of(line);
		const auto text = std::string_view(line).substr(indent);
		if (open_ && starts_next_block(text, indent))
			close_suite();
		if (open_)
			feed_suite(std::move(line), indent);
		else
			feed_outside(std::move(line), indent);
	}

	Results finish()
	{
		close_suite();
		return std::move(results_);
	}

private:
	// A header at or left of the case indent: the open block was cut off.
	bool starts_next_block(std::string_view text, std::size_t indent) const
	{
		return indent <= case_indent_ &&
		       (text.starts_with(subtest_prefix) || is_version_line(text));
	}

	void feed_outside(std::string line, std::size_t indent)
	{
		const auto text = std::string_view(line).substr(indent);
		if (text.starts_with(subtest_prefix)) {
			start_suite(std::move(line), indent);
		} else if (is_version_line(text) || parse_plan_line(text)) {
			preamble_.push_back(std::move(line));
		} else if (!text.empty()) {
			preamble_.clear(); // unrelated output between blocks
		}
	}

	void start_suite(std::string line, std::size_t indent)
	{
		SuiteBlock suite;
		const auto text = std::string_view(line).substr(indent);
		suite.name = std::string(trim(text.substr(subtest_prefix.size())));
		suite.lines = std::move(preamble_);
		suite.lines.push_back(std::move(line));
		preamble_.clear();
		open_ = std::move(suite);
		case_indent_ = indent;
	}

	void feed_suite(std::string line, std::size_t indent)
	{
		const auto text = std::string_view(line).substr(indent);
		if (indent == case_indent_)
			note_case_level(text);
		const auto result = indent < case_indent_ ? parse_result_line(text)
							  : std::nullopt;
		open_->lines.push_back(std::move(line));
		if (result) {
			open_->result = *result;
			close_suite();
		}
	}

	void note_case_level(std::string_view text)
	{
		if (const auto plan = parse_plan_line(text); plan && !open_->plan) {
			open_->plan = plan;
		} else if (const auto result = parse_result_line(text)) {
			open_->cases.push_back({result->name, result->outcome()});
		}
	}

	void note_marker(std::string_view marker)
	{
		if (marker == "done") {
			results_.markers.done = true;
		} else if (take_literal(marker, "cpus=")) {
			if (const auto cpus = parse_whole_number(trim(marker)))
				results_.markers.cpus = cpus;
		}
	}

	void close_suite()
	{
		if (open_)
			results_.suites.push_back(std::move(*open_));
		open_.reset();
		preamble_.clear();
	}

	Results results_;
	std::vector<std::string> preamble_;
	std::optional<SuiteBlock> open_;
	std::size_t case_indent_ = 0;
};

// --- console ------------------------------------------------------------

constexpr std::string_view cut_here = "------------[ cut here ]------------";

// How many lines after "cut here" the splat's own first line may come
// (WARN() prints its message first).
constexpr std::size_t cut_here_window = 8;

// How many lines of a report's body are kept: a lockdep chain report
// with its stack backtrace is about 80.
constexpr std::size_t splat_context_lines = 120;

// The last line of a WARN()/BUG() report.
constexpr std::string_view end_trace = "---[ end trace";

// Substrings that mark a kernel problem report.
constexpr std::array splat_markers = {
	std::string_view("BUG:"), // KASAN, NULL deref, sleeping in atomic, soft lockup
	std::string_view("kernel BUG at "),
	std::string_view("WARNING:"), // WARN(), lockdep
	cut_here,
	std::string_view("Oops:"),
	std::string_view("general protection fault"),
	std::string_view("Kernel panic"),
	std::string_view("UBSAN:"),
	std::string_view("INFO: rcu_"), // "rcu: INFO: rcu_sched detected stalls"
	std::string_view("RCU stall"),
	std::string_view("INFO: trying to register non-static key"),
};

bool is_hex_digit(char c)
{
	return std::isxdigit(static_cast<unsigned char>(c)) != 0;
}

bool is_word_char(char c)
{
	return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// Whether `marker` occurs in `line` not glued to a preceding word
// ("DEBUG: x" holds no "BUG:" marker).
bool contains_marker(std::string_view line, std::string_view marker)
{
	for (auto pos = line.find(marker); pos != std::string_view::npos;
	     pos = line.find(marker, pos + 1))
		if (pos == 0 || !is_word_char(line[pos - 1]))
			return true;
	return false;
}

// x86 die() header: "<what>: 0000 [#1] PREEMPT SMP KASAN".
bool is_die_header(std::string_view line)
{
	const auto pos = line.find(" [#");
	if (pos == std::string_view::npos || pos < 6)
		return false;
	const auto code = line.substr(pos - 6, 6); // ": 0000"
	return code.starts_with(": ") &&
	       std::all_of(code.begin() + 2, code.end(), is_hex_digit);
}

// "kmemleak: N new suspected memory leaks ..." with N > 0.
bool reports_memory_leaks(std::string_view line)
{
	const auto pos = line.find(" new suspected memory leak");
	if (pos == std::string_view::npos)
		return false;
	const auto head = line.substr(0, pos);
	const auto start = head.find_last_not_of("0123456789") + 1;
	const auto count = parse_whole_number(head.substr(start));
	return count && *count > 0;
}

// "INFO: task kworker/0:1:42 blocked for more than 120 seconds."
bool reports_hung_task(std::string_view line)
{
	return contains(line, "INFO: task ") && contains(line, " blocked for more than");
}

// SLUB debug: "BUG kmalloc-64 (Tainted: G    B     ): Poison overwritten".
bool reports_slab_corruption(std::string_view line)
{
	return line.starts_with("BUG ") && contains(line, "): ");
}

bool is_cut_here(std::string_view line)
{
	return contains(line, cut_here);
}

bool splat_follows(const std::vector<std::string> &lines, std::size_t at)
{
	const auto end = std::min(lines.size(), at + 1 + cut_here_window);
	for (auto i = at + 1; i < end; ++i) {
		const auto line = strip_printk_prefix(lines[i]);
		if (is_splat_line(line) && !is_cut_here(line))
			return true;
	}
	return false;
}

// The body of the report whose first line is lines[at].
std::vector<std::string> splat_context(const std::vector<std::string> &lines, std::size_t at)
{
	std::vector<std::string> context;
	const auto end = std::min(lines.size(), at + 1 + splat_context_lines);
	for (auto i = at + 1; i < end; ++i) {
		const auto line = strip_printk_prefix(lines[i]);
		if (is_splat_line(line))
			break;
		context.emplace_back(line);
		if (contains(line, end_trace))
			break;
	}
	return context;
}

// An allowlist entry "LINE" allows a splat line containing LINE; "LINE @@
// BODY [@@ BODY]..." only when the report's body also contains every
// BODY (a stack frame, say), so that one driver's known bug does not
// allow every report of its kind.
constexpr std::string_view allow_body_sep = " @@ ";

bool entry_allows(std::string_view entry, std::string_view line,
		  const std::vector<std::string> &body)
{
	auto sep = entry.find(allow_body_sep);
	if (!contains(line, entry.substr(0, sep)))
		return false;
	while (sep != std::string_view::npos) {
		entry.remove_prefix(sep + allow_body_sep.size());
		sep = entry.find(allow_body_sep);
		const auto want = entry.substr(0, sep);
		if (std::none_of(body.begin(), body.end(), [want](const std::string &l) {
			    return contains(l, want);
		    }))
			return false;
	}
	return true;
}

bool is_allowed(std::string_view line, const std::vector<std::string> &body,
		const std::vector<std::string> &allowlist)
{
	return std::any_of(allowlist.begin(), allowlist.end(),
			   [line, &body](const std::string &entry) {
				   return entry_allows(entry, line, body);
			   });
}

// Removes a bracketed field such as "[    1.234567]" if `accept` likes
// its content (leading spaces removed).
template <typename Accept>
void take_bracketed(std::string_view &s, Accept accept)
{
	if (!s.starts_with('['))
		return;
	const auto close = s.find(']');
	if (close == std::string_view::npos)
		return;
	auto inside = s.substr(1, close - 1);
	inside.remove_prefix(std::min(inside.find_first_not_of(' '), inside.size()));
	if (accept(inside))
		s.remove_prefix(close + 1);
}

bool is_timestamp(std::string_view s)
{
	std::uint64_t part = 0;
	return take_number(s, part) && take_literal(s, ".") && take_number(s, part) &&
	       s.empty();
}

bool is_caller_id(std::string_view s)
{
	return (take_literal(s, "T") || take_literal(s, "C")) && parse_whole_number(s);
}

// --- command line -------------------------------------------------------

template <typename Number>
Number parse_option_number(std::string_view option, std::string_view value)
{
	Number number{};
	const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), number);
	if (ec != std::errc() || end != value.data() + value.size())
		throw InputError(std::string(option) + ": not a number: '" +
				 std::string(value) + "'");
	return number;
}

class ArgReader {
public:
	explicit ArgReader(const std::vector<std::string_view> &args) : args_(args) {}

	bool done() const { return next_ >= args_.size(); }
	std::string_view next() { return args_[next_++]; }

	std::string_view value_of(std::string_view option)
	{
		if (done())
			throw InputError(std::string(option) + " needs a value");
		return next();
	}

private:
	const std::vector<std::string_view> &args_;
	std::size_t next_ = 0;
};

void check_required(const Options &options)
{
	if (options.results_path.empty())
		throw InputError("--results is required");
	if (options.console_path.empty())
		throw InputError("--console is required");
	if (options.expect_files.empty() && options.expect_names.empty())
		throw InputError("no expected suites: give --expect-file or --expect");
}

// --- verdict ------------------------------------------------------------

constexpr std::size_t splats_in_reason = 3;
constexpr std::size_t splats_printed = 20;

// Printed before each line of the first failing report's body, so that
// scripts/check.sh can show the bodies again at the end of its output.
constexpr std::string_view splat_body_prefix = "# | ";
constexpr std::size_t max_quoted_line = 200;

std::string quote_line(std::string_view line)
{
	if (line.size() <= max_quoted_line)
		return std::string(line);
	return std::string(line.substr(0, max_quoted_line)) + "...";
}

Check make_check(std::string name, const std::vector<std::string> &problems)
{
	return {std::move(name), problems.empty(), join(problems, "; ")};
}

Check completed_check(const RunFacts &facts)
{
	std::vector<std::string> problems;
	const auto &ok = facts.qemu_ok_statuses;
	if (facts.timed_out)
		problems.push_back("timed out");
	else if (facts.qemu_status &&
		 std::find(ok.begin(), ok.end(), *facts.qemu_status) == ok.end())
		problems.push_back("guest crashed (qemu exit status " +
				   std::to_string(*facts.qemu_status) + ")");
	if (!facts.results.markers.done)
		problems.push_back("no '" + std::string(marker_prefix) + "done' marker");
	return make_check("guest_completed", problems);
}

Check cpus_check(const RunFacts &facts)
{
	std::vector<std::string> problems;
	const auto &cpus = facts.results.markers.cpus;
	if (!cpus)
		problems.push_back("no '" + std::string(marker_prefix) + "cpus=N' marker");
	else if (*cpus < facts.min_cpus)
		problems.push_back("cpus=" + std::to_string(*cpus) + ", need at least " +
				   std::to_string(facts.min_cpus));
	return make_check("guest_cpus", problems);
}

std::vector<const Splat *> failing_splats(const std::vector<Splat> &splats)
{
	std::vector<const Splat *> failing;
	for (const auto &splat : splats)
		if (!splat.allowed)
			failing.push_back(&splat);
	return failing;
}

Check console_check(const std::vector<Splat> &splats)
{
	const auto failing = failing_splats(splats);
	if (failing.empty())
		return make_check("kernel_log_clean", {});
	std::vector<std::string> quoted;
	for (std::size_t i = 0; i < failing.size() && i < splats_in_reason; ++i)
		quoted.push_back(quote_line(failing[i]->line));
	const auto reason = std::to_string(failing.size()) + " splat line(s): " +
			    join(quoted, " | ");
	return {"kernel_log_clean", false, reason};
}

std::vector<std::string> block_problems(const SuiteBlock &suite)
{
	std::vector<std::string> problems;
	if (!suite.result)
		problems.push_back("truncated: no final result line");
	if (!suite.plan)
		problems.push_back("no plan line");
	else if (*suite.plan != suite.cases.size())
		problems.push_back("plan 1.." + std::to_string(*suite.plan) + " but " +
				   std::to_string(suite.cases.size()) + " case lines");
	if (suite.result && suite.result->outcome() == Outcome::failed &&
	    suite.tally().failed == 0)
		problems.push_back("suite result is 'not ok' but no case failed");
	return problems;
}

Check suite_check(const Results &results, const std::string &name)
{
	std::vector<const SuiteBlock *> blocks;
	for (const auto &suite : results.suites)
		if (suite.name == name)
			blocks.push_back(&suite);

	std::vector<std::string> problems;
	if (blocks.empty())
		problems.push_back("no results block");
	else if (blocks.size() > 1)
		problems.push_back("reported " + std::to_string(blocks.size()) + " times");
	else
		problems = block_problems(*blocks.front());
	return make_check("suite_reported_" + name, problems);
}

// The expected suites, then any others the results file holds.
std::vector<std::string> suites_to_check(const RunFacts &facts)
{
	std::vector<std::string> names;
	const auto add = [&names](const std::string &name) {
		if (std::find(names.begin(), names.end(), name) == names.end())
			names.push_back(name);
	};
	for (const auto &name : facts.expected_suites)
		add(name);
	for (const auto &suite : facts.results.suites)
		add(suite.name);
	return names;
}

void print_splats(std::ostream &out, const std::vector<Splat> &splats)
{
	std::size_t printed = 0;
	bool body_printed = false;
	for (const auto &splat : splats) {
		if (printed++ == splats_printed) {
			out << "# ... " << splats.size() - splats_printed
			    << " more splat lines in the console log\n";
			return;
		}
		out << (splat.allowed ? "# allowed splat: " : "# kernel splat: ")
		    << quote_line(splat.line) << '\n';
		// The first failing report in full: later ones are often its
		// consequences, and the console log holds them all.
		if (splat.allowed || body_printed)
			continue;
		for (const auto &line : splat.context)
			out << splat_body_prefix << quote_line(line) << '\n';
		body_printed = true;
	}
}

void print_check(std::ostream &out, std::size_t number, const Check &check)
{
	out << (check.ok ? "ok " : "not ok ") << number << ' ' << check.name;
	if (!check.ok)
		out << " # " << check.reason;
	out << '\n';
}

} // namespace

// --- counts -------------------------------------------------------------

void Tally::add(Outcome outcome)
{
	switch (outcome) {
	case Outcome::passed:
		++passed;
		break;
	case Outcome::failed:
		++failed;
		break;
	case Outcome::skipped:
		++skipped;
		break;
	}
}

Tally &Tally::operator+=(const Tally &other)
{
	passed += other.passed;
	failed += other.failed;
	skipped += other.skipped;
	return *this;
}

std::string format_tally(const Tally &tally)
{
	return std::to_string(tally.passed) + " passed, " + std::to_string(tally.failed) +
	       " failed, " + std::to_string(tally.skipped) + " skipped";
}

std::optional<Tally> parse_tally_line(std::string_view line)
{
	if (line.ends_with('\r'))
		line.remove_suffix(1);
	Tally tally;
	if (!take_number(line, tally.passed) || !take_literal(line, " passed, ") ||
	    !take_number(line, tally.failed) || !take_literal(line, " failed"))
		return std::nullopt;
	if (line.empty())
		return tally;
	if (!take_literal(line, ", ") || !take_number(line, tally.skipped) ||
	    !take_literal(line, " skipped") || !line.empty())
		return std::nullopt;
	return tally;
}

std::vector<std::string> split_lines(std::string_view text)
{
	std::vector<std::string> lines;
	while (!text.empty()) {
		const auto end = std::min(text.find('\n'), text.size());
		auto line = text.substr(0, end);
		if (line.ends_with('\r'))
			line.remove_suffix(1);
		lines.emplace_back(line);
		text.remove_prefix(std::min(end + 1, text.size()));
	}
	return lines;
}

// --- KTAP results -------------------------------------------------------

Outcome ResultLine::outcome() const
{
	if (starts_with_nocase(directive, "SKIP"))
		return Outcome::skipped;
	if (starts_with_nocase(directive, "TODO"))
		return Outcome::failed;
	return ok ? Outcome::passed : Outcome::failed;
}

std::optional<ResultLine> parse_result_line(std::string_view text)
{
	ResultLine result;
	if (take_literal(text, "ok "))
		result.ok = true;
	else if (!take_literal(text, "not ok "))
		return std::nullopt;
	if (!take_number(text, result.number))
		return std::nullopt;
	if (!text.empty() && text.front() != ' ')
		return std::nullopt;

	const auto hash = text.find(" # ");
	if (hash != std::string_view::npos)
		result.directive = std::string(trim(text.substr(hash + 3)));
	auto description = trim(text.substr(0, hash));
	take_literal(description, "- "); // "ok 1 - name" is KTAP too
	result.name = std::string(trim(description));
	return result;
}

std::optional<std::uint64_t> parse_plan_line(std::string_view text)
{
	std::uint64_t count = 0;
	if (!take_literal(text, "1..") || !take_number(text, count))
		return std::nullopt;
	if (!text.empty() && text.front() != ' ')
		return std::nullopt;
	return count;
}

Tally SuiteBlock::tally() const
{
	Tally tally;
	for (const auto &test_case : cases)
		tally.add(test_case.outcome);
	return tally;
}

Results parse_results(std::string_view text)
{
	ResultsParser parser;
	for (auto &line : split_lines(text))
		parser.feed(std::move(line));
	return parser.finish();
}

// --- kernel console -----------------------------------------------------

std::string_view strip_printk_prefix(std::string_view line)
{
	if (line.starts_with('<')) {
		auto rest = line.substr(1);
		std::uint64_t level = 0;
		if (take_number(rest, level) && take_literal(rest, ">"))
			line = rest;
	}
	const auto before = line.size();
	take_bracketed(line, is_timestamp);
	if (line.size() != before) {
		take_bracketed(line, is_caller_id);
		take_literal(line, " ");
	}
	return line;
}

bool is_splat_line(std::string_view line)
{
	const auto has_marker = std::any_of(
		splat_markers.begin(), splat_markers.end(),
		[line](std::string_view marker) { return contains_marker(line, marker); });
	return has_marker || is_die_header(line) || reports_memory_leaks(line) ||
	       reports_hung_task(line) || reports_slab_corruption(line);
}

std::vector<Splat> scan_console(std::string_view text,
				const std::vector<std::string> &allowlist)
{
	const auto lines = split_lines(text);
	std::vector<Splat> splats;
	for (std::size_t i = 0; i < lines.size(); ++i) {
		const auto line = strip_printk_prefix(lines[i]);
		if (!is_splat_line(line))
			continue;
		if (is_cut_here(line) && splat_follows(lines, i))
			continue;
		auto body = splat_context(lines, i);
		const bool allowed = is_allowed(line, body, allowlist);
		splats.push_back({std::string(line), allowed, std::move(body)});
	}
	return splats;
}

// --- configuration files ------------------------------------------------

std::vector<std::string> parse_allowlist(std::string_view text)
{
	std::vector<std::string> entries;
	for (const auto &line : split_lines(text)) {
		const auto entry = trim(line);
		if (!entry.empty() && !entry.starts_with('#'))
			entries.emplace_back(entry);
	}
	return entries;
}

std::vector<std::string> parse_expect_file(std::string_view text)
{
	std::vector<std::string> suites;
	std::size_t line_number = 0;
	for (const auto &line : split_lines(text)) {
		++line_number;
		auto rest = std::string_view(line).substr(0, line.find('#'));
		std::vector<std::string> words;
		for (rest = trim(rest); !rest.empty(); rest = trim(rest)) {
			const auto end = std::min(rest.find_first_of(whitespace), rest.size());
			words.emplace_back(rest.substr(0, end));
			rest.remove_prefix(end);
		}
		if (words.size() > 2)
			throw InputError("expect file line " + std::to_string(line_number) +
					 ": want '<module> <suite>'");
		if (!words.empty())
			suites.push_back(words.back());
	}
	return suites;
}

// --- command line -------------------------------------------------------

std::string_view usage_text()
{
	return "usage: kdapl-report --results FILE --console FILE\n"
	       "                    (--expect-file FILE | --expect SUITE)...\n"
	       "                    [--allowlist FILE] [--qemu-status N]\n"
	       "                    [--qemu-ok-status N]... [--timed-out] [--min-cpus N]\n";
}

Options parse_options(const std::vector<std::string_view> &args)
{
	Options options;
	ArgReader reader(args);
	while (!reader.done()) {
		const auto arg = reader.next();
		if (arg == "--results")
			options.results_path = reader.value_of(arg);
		else if (arg == "--console")
			options.console_path = reader.value_of(arg);
		else if (arg == "--expect-file")
			options.expect_files.emplace_back(reader.value_of(arg));
		else if (arg == "--expect")
			options.expect_names.emplace_back(reader.value_of(arg));
		else if (arg == "--allowlist")
			options.allowlist_path = reader.value_of(arg);
		else if (arg == "--qemu-status")
			options.qemu_status = parse_option_number<int>(arg, reader.value_of(arg));
		else if (arg == "--qemu-ok-status")
			options.qemu_ok_statuses.push_back(
				parse_option_number<int>(arg, reader.value_of(arg)));
		else if (arg == "--timed-out")
			options.timed_out = true;
		else if (arg == "--min-cpus")
			options.min_cpus =
				parse_option_number<std::uint64_t>(arg, reader.value_of(arg));
		else
			throw InputError("unknown argument '" + std::string(arg) + "'");
	}
	check_required(options);
	return options;
}

// --- verdict ------------------------------------------------------------

Verdict judge(const RunFacts &facts)
{
	Verdict verdict;
	verdict.checks.push_back(completed_check(facts));
	verdict.checks.push_back(cpus_check(facts));
	verdict.checks.push_back(console_check(facts.splats));
	for (const auto &name : suites_to_check(facts))
		verdict.checks.push_back(suite_check(facts.results, name));

	for (const auto &suite : facts.results.suites)
		verdict.total += suite.tally();
	for (const auto &check : verdict.checks)
		verdict.total.add(check.ok ? Outcome::passed : Outcome::failed);
	return verdict;
}

void print_report(std::ostream &out, const RunFacts &facts, const Verdict &verdict)
{
	for (const auto &suite : facts.results.suites)
		for (const auto &line : suite.lines)
			out << line << '\n';
	for (const auto &suite : facts.results.suites)
		out << "suite " << suite.name << ": " << format_tally(suite.tally()) << '\n';

	out << "# Subtest: guest_run\n";
	out << "1.." << verdict.checks.size() << '\n';
	print_splats(out, facts.splats);
	for (std::size_t i = 0; i < verdict.checks.size(); ++i)
		print_check(out, i + 1, verdict.checks[i]);
	out << format_tally(verdict.total) << '\n';
}

} // namespace kdapl::report
