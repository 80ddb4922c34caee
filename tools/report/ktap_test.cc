// Tests of the report library, and of kdapl-report / kdapl-sum run on the
// canned guest runs under testdata/.

#include "ktap.h"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace kdapl::report {

void PrintTo(const Tally &tally, std::ostream *out)
{
	*out << format_tally(tally);
}

namespace {

// --- helpers --------------------------------------------------------------

std::string testdata_path(std::string_view name)
{
	return std::string(KTAP_TESTDATA) + "/" + std::string(name);
}

std::string read_testdata(std::string_view name)
{
	std::ifstream in(testdata_path(name), std::ios::binary);
	EXPECT_TRUE(in.is_open()) << "missing test data " << name;
	return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string replace_all(std::string text, std::string_view from, std::string_view to)
{
	for (auto pos = text.find(from); pos != std::string::npos;
	     pos = text.find(from, pos + to.size()))
		text.replace(pos, from.size(), to);
	return text;
}

std::string with_crlf(const std::string &text)
{
	return replace_all(text, "\n", "\r\n");
}

// A guest run as scripts/check.sh describes it to kdapl-report.
RunFacts canned_run(const std::string &results, const std::string &console,
		    const std::vector<std::string> &allowlist = {})
{
	RunFacts facts;
	facts.results = parse_results(results);
	facts.splats = scan_console(console, allowlist);
	facts.expected_suites = parse_expect_file(read_testdata("expect.txt"));
	facts.expected_suites.push_back("guest_env");
	facts.expected_suites.push_back("module_lifecycle");
	facts.qemu_status = 0;
	return facts;
}

RunFacts clean_run()
{
	return canned_run(read_testdata("results_pass.ktap"),
			  read_testdata("console_clean.log"));
}

const Check &check_named(const Verdict &verdict, std::string_view name)
{
	const auto it = std::find_if(verdict.checks.begin(), verdict.checks.end(),
				     [name](const Check &check) { return check.name == name; });
	if (it == verdict.checks.end())
		throw std::runtime_error("no check " + std::string(name));
	return *it;
}

const SuiteBlock &suite_named(const Results &results, std::string_view name)
{
	const auto it = std::find_if(results.suites.begin(), results.suites.end(),
				     [name](const SuiteBlock &suite) { return suite.name == name; });
	if (it == results.suites.end())
		throw std::runtime_error("no suite " + std::string(name));
	return *it;
}

std::vector<std::string> failed_checks(const Verdict &verdict)
{
	std::vector<std::string> names;
	for (const auto &check : verdict.checks)
		if (!check.ok)
			names.push_back(check.name);
	return names;
}

std::vector<std::string> failing_splat_lines(const std::vector<Splat> &splats)
{
	std::vector<std::string> lines;
	for (const auto &splat : splats)
		if (!splat.allowed)
			lines.push_back(splat.line);
	return lines;
}

// KUnit 6.1 debugfs results of one suite (top-level header included).
constexpr std::string_view handle_block = "KTAP version 1\n"
					  "1..1\n"
					  "    KTAP version 1\n"
					  "    # Subtest: kdapl_handle\n"
					  "    1..3\n"
					  "    ok 1 add_get\n"
					  "    # wrong_type: EXPECTATION FAILED at kdapl/handle_test.c:58\n"
					  "    Expected h == NULL, but\n"
					  "        h == ffff888005d3e8c0\n"
					  "\n"
					  "    not ok 2 wrong_type\n"
					  "    ok 3 skipped_case # SKIP needs hardware\n"
					  "# kdapl_handle: pass:1 fail:1 skip:1 total:3\n"
					  "not ok 1 kdapl_handle\n";

// --- counts -------------------------------------------------------------

TEST(Tally, FormatsAndParsesSummaryLines)
{
	const Tally tally{.passed = 12, .failed = 1, .skipped = 3};
	EXPECT_EQ(format_tally(tally), "12 passed, 1 failed, 3 skipped");
	EXPECT_EQ(parse_tally_line("12 passed, 1 failed, 3 skipped"), tally);
	EXPECT_EQ(parse_tally_line("12 passed, 1 failed, 3 skipped\r"), tally);
	EXPECT_EQ(parse_tally_line("4 passed, 0 failed"), (Tally{.passed = 4}));
}

TEST(Tally, RejectsLinesThatAreNotExactlyASummary)
{
	for (const auto *line : {"", "suite x: 1 passed, 0 failed, 0 skipped",
				 " 1 passed, 0 failed", "1 passed, 0 failed, 0 skipped ",
				 "1 passed, 0 failed,", "1 passed,  0 failed", "-1 passed, 0 failed",
				 "1 passed, 0 failed, 2 skipped, 3 todo", "ok 1 passed, 0 failed",
				 "99999999999999999999999 passed, 0 failed"})
		EXPECT_FALSE(parse_tally_line(line)) << line;
}

// --- KTAP lines ---------------------------------------------------------

TEST(ResultLine, ParsesOkNotOkDashAndDirectives)
{
	const auto ok = parse_result_line("ok 1 add_get");
	ASSERT_TRUE(ok);
	EXPECT_TRUE(ok->ok);
	EXPECT_EQ(ok->number, 1u);
	EXPECT_EQ(ok->name, "add_get");
	EXPECT_EQ(ok->outcome(), Outcome::passed);

	const auto failed = parse_result_line("not ok 12 - wrong_type");
	ASSERT_TRUE(failed);
	EXPECT_FALSE(failed->ok);
	EXPECT_EQ(failed->number, 12u);
	EXPECT_EQ(failed->name, "wrong_type");
	EXPECT_EQ(failed->outcome(), Outcome::failed);

	const auto skipped = parse_result_line("ok 3 skipped_case # SKIP needs hardware");
	ASSERT_TRUE(skipped);
	EXPECT_EQ(skipped->name, "skipped_case");
	EXPECT_EQ(skipped->directive, "SKIP needs hardware");
	EXPECT_EQ(skipped->outcome(), Outcome::skipped);
}

TEST(ResultLine, SkipIsSkippedEvenWhenNotOkAndTodoIsFailed)
{
	EXPECT_EQ(parse_result_line("not ok 2 x # SKIP no device")->outcome(), Outcome::skipped);
	EXPECT_EQ(parse_result_line("ok 2 x # skip")->outcome(), Outcome::skipped);
	EXPECT_EQ(parse_result_line("ok 2 x # TODO not written")->outcome(), Outcome::failed);
	EXPECT_EQ(parse_result_line("not ok 2 x # TODO")->outcome(), Outcome::failed);
	EXPECT_EQ(parse_result_line("ok 1 # SKIP")->name, "");
}

TEST(ResultLine, RejectsOtherLines)
{
	for (const auto *line : {"ok", "ok x", "okay 1 x", "not ok", "# ok 1 x", "ok 1x",
				 "1..3", "Expected h == NULL, but"})
		EXPECT_FALSE(parse_result_line(line)) << line;
}

TEST(PlanLine, ParsesPlans)
{
	EXPECT_EQ(parse_plan_line("1..3"), 3u);
	EXPECT_EQ(parse_plan_line("1..0 # SKIP nothing to do"), 0u);
	EXPECT_FALSE(parse_plan_line("1..x"));
	EXPECT_FALSE(parse_plan_line("2..3"));
	EXPECT_FALSE(parse_plan_line("1..3x"));
}

// --- results file -------------------------------------------------------

TEST(ParseResults, ReadsKunit61DebugfsBlock)
{
	const auto results = parse_results(handle_block);
	ASSERT_EQ(results.suites.size(), 1u);
	const auto &suite = results.suites.front();
	EXPECT_EQ(suite.name, "kdapl_handle");
	EXPECT_EQ(suite.plan, 3u);
	ASSERT_EQ(suite.cases.size(), 3u);
	EXPECT_EQ(suite.cases[1].name, "wrong_type");
	ASSERT_TRUE(suite.result);
	EXPECT_FALSE(suite.result->ok);
	EXPECT_EQ(suite.result->name, "kdapl_handle");
	EXPECT_EQ(suite.tally(), (Tally{.passed = 1, .failed = 1, .skipped = 1}));
}

TEST(ParseResults, KeepsTheBlockVerbatimIncludingItsHeader)
{
	const auto results = parse_results(handle_block);
	ASSERT_EQ(results.suites.size(), 1u);
	std::string joined;
	for (const auto &line : results.suites.front().lines)
		joined += line + "\n";
	EXPECT_EQ(joined, handle_block);
}

TEST(ParseResults, ReadsBlocksWithoutTopLevelHeader)
{
	const auto results = parse_results("    KTAP version 1\n"
					   "    # Subtest: guest_env\n"
					   "    1..2\n"
					   "    # ping_a_to_b: command failed: ping -c 1 192.0.2.2\n"
					   "    ok 1 test_hosts_created\n"
					   "    not ok 2 ping_a_to_b\n"
					   "not ok 1 guest_env\n");
	ASSERT_EQ(results.suites.size(), 1u);
	EXPECT_EQ(results.suites[0].lines.front(), "    KTAP version 1");
	EXPECT_EQ(results.suites[0].tally(), (Tally{.passed = 1, .failed = 1}));
	EXPECT_TRUE(results.suites[0].result);
}

TEST(ParseResults, CountsParameterizedCasesAtTheCaseLevel)
{
	const auto results = parse_results(read_testdata("results_pass.ktap"));
	const auto &mpa = suite_named(results, "kiwarp_mpa");
	EXPECT_EQ(mpa.plan, 3u);
	ASSERT_EQ(mpa.cases.size(), 3u);
	EXPECT_EQ(mpa.cases[1].name, "crc_vectors");
	EXPECT_EQ(mpa.cases[2].name, "fpdu_split");
	EXPECT_EQ(mpa.tally(), (Tally{.passed = 3}));
	EXPECT_EQ(mpa.result->name, "kiwarp_mpa");
}

TEST(ParseResults, AFailedParameterFailsOnlyThroughItsCase)
{
	const auto results = parse_results("    # Subtest: s\n"
					   "    1..1\n"
					   "        # Subtest: p\n"
					   "        ok 1 param-0\n"
					   "        not ok 2 param-1\n"
					   "    not ok 1 p\n"
					   "not ok 1 s\n");
	ASSERT_EQ(results.suites.size(), 1u);
	EXPECT_EQ(results.suites[0].tally(), (Tally{.failed = 1}));
}

TEST(ParseResults, SeparatesConcatenatedSuites)
{
	const auto results = parse_results(read_testdata("results_pass.ktap"));
	std::vector<std::string> names;
	for (const auto &suite : results.suites)
		names.push_back(suite.name);
	EXPECT_EQ(names, (std::vector<std::string>{"guest_env", "module_lifecycle",
						   "kdapl_error", "kdapl_handle", "kiwarp_mpa"}));
	for (const auto &suite : results.suites) {
		EXPECT_TRUE(suite.result) << suite.name;
		EXPECT_EQ(suite.plan, suite.cases.size()) << suite.name;
	}
}

TEST(ParseResults, CountsSkipsAsSkipped)
{
	const auto results = parse_results(read_testdata("results_pass.ktap"));
	EXPECT_EQ(suite_named(results, "kdapl_handle").tally(),
		  (Tally{.passed = 2, .skipped = 1}));
}

TEST(ParseResults, TruncatedBlockHasNoResultLine)
{
	const auto results = parse_results(read_testdata("results_truncated.ktap"));
	const auto &handle = suite_named(results, "kdapl_handle");
	EXPECT_FALSE(handle.result);
	EXPECT_EQ(handle.plan, 3u);
	EXPECT_EQ(handle.cases.size(), 2u);
	EXPECT_FALSE(results.markers.done);
}

TEST(ParseResults, CutOffBlockDoesNotSwallowTheNextOne)
{
	const auto results = parse_results("KTAP version 1\n1..1\n"
					   "    KTAP version 1\n"
					   "    # Subtest: first\n"
					   "    1..2\n"
					   "    ok 1 a\n"
					   "KTAP version 1\n1..1\n"
					   "    KTAP version 1\n"
					   "    # Subtest: second\n"
					   "    1..1\n"
					   "    ok 1 b\n"
					   "ok 1 second\n");
	ASSERT_EQ(results.suites.size(), 2u);
	EXPECT_FALSE(results.suites[0].result);
	EXPECT_EQ(results.suites[0].cases.size(), 1u);
	EXPECT_TRUE(results.suites[1].result);
	EXPECT_EQ(results.suites[1].lines.front(), "KTAP version 1");
	EXPECT_EQ(results.suites[1].cases.size(), 1u);
}

TEST(ParseResults, ReadsGuestMarkers)
{
	const auto results = parse_results("# kdapl-guest: cpus=4\n"
					   "# kdapl-guest: insmod foo failed\n"
					   "# kdapl-guest: done\n");
	EXPECT_EQ(results.markers.cpus, 4u);
	EXPECT_TRUE(results.markers.done);
	EXPECT_TRUE(results.suites.empty());
}

TEST(ParseResults, MarkerEndsAnOpenBlock)
{
	const auto results = parse_results("    # Subtest: s\n    1..2\n    ok 1 a\n"
					   "# kdapl-guest: done\n");
	ASSERT_EQ(results.suites.size(), 1u);
	EXPECT_FALSE(results.suites[0].result);
	EXPECT_TRUE(results.markers.done);
}

TEST(ParseResults, IgnoresUnknownLines)
{
	const auto results = parse_results("garbage before\n"
					   "ok 7 stray result\n"
					   "    # Subtest: s\n    1..1\n    ok 1 a\nok 1 s\n"
					   "trailing noise\n");
	ASSERT_EQ(results.suites.size(), 1u);
	EXPECT_EQ(results.suites[0].lines.size(), 4u);
	EXPECT_EQ(results.suites[0].tally(), (Tally{.passed = 1}));
	EXPECT_FALSE(results.markers.done);
}

TEST(ParseResults, HandlesCrLfLineEndings)
{
	const auto lf = parse_results(read_testdata("results_pass.ktap"));
	const auto crlf = parse_results(with_crlf(read_testdata("results_pass.ktap")));
	ASSERT_EQ(crlf.suites.size(), lf.suites.size());
	for (std::size_t i = 0; i < lf.suites.size(); ++i) {
		EXPECT_EQ(crlf.suites[i].name, lf.suites[i].name);
		EXPECT_EQ(crlf.suites[i].lines, lf.suites[i].lines);
		EXPECT_EQ(crlf.suites[i].tally(), lf.suites[i].tally());
	}
	EXPECT_EQ(crlf.markers.cpus, 2u);
	EXPECT_TRUE(crlf.markers.done);
}

// --- console ------------------------------------------------------------

TEST(Console, StripsPrintkTimestamp)
{
	EXPECT_EQ(strip_printk_prefix("[    1.234567] BUG: x"), "BUG: x");
	EXPECT_EQ(strip_printk_prefix("[ 1234.500000][  T123] WARNING: y"), "WARNING: y");
	EXPECT_EQ(strip_printk_prefix("<4>[    0.100000]  <TASK>"), " <TASK>");
	EXPECT_EQ(strip_printk_prefix("[mem 0x0-0x9fbff] usable"), "[mem 0x0-0x9fbff] usable");
	EXPECT_EQ(strip_printk_prefix("plain"), "plain");
}

class SplatLine : public testing::TestWithParam<const char *> {};

TEST_P(SplatLine, IsASplat)
{
	EXPECT_TRUE(is_splat_line(strip_printk_prefix(GetParam())));
}

INSTANTIATE_TEST_SUITE_P(
	KernelReports, SplatLine,
	testing::Values(
		"[   14.201234] BUG: KASAN: use-after-free in kdapl_handle_get+0x8c/0x110 [kdapl]",
		"[    9.000000] BUG: kernel NULL pointer dereference, address: 0000000000000008",
		"[    9.000000] BUG: sleeping function called from invalid context at mm/slab.h:742",
		"[   48.000000] watchdog: BUG: soft lockup - CPU#1 stuck for 26s! [kworker/1:2:99]",
		"[   12.302542] WARNING: possible circular locking dependency detected",
		"[   12.302542] WARNING: possible recursive locking detected",
		"[   12.302541] WARNING: CPU: 1 PID: 211 at drivers/infiniband/sw/siw/siw_qp.c:1420 "
		"siw_qp_llp_close+0x1c3/0x2a0 [siw]",
		"[    9.000000] ------------[ cut here ]------------",
		"[    9.000000] kernel BUG at drivers/infiniband/core/device.c:1234!",
		"[    9.000000] Oops: 0002 [#1] PREEMPT SMP KASAN NOPTI",
		"[    9.000000] general protection fault, probably for non-canonical address "
		"0xdffffc0000000001: 0000 [#1] PREEMPT SMP KASAN NOPTI",
		"[    9.000000] invalid opcode: 0000 [#1] PREEMPT SMP KASAN NOPTI",
		"[    9.000000] Kernel panic - not syncing: Fatal exception",
		"[  600.000000] kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)",
		"[  600.000000] kmemleak: 1 new suspected memory leaks (see /sys/kernel/debug/kmemleak)",
		"[  245.000000] INFO: task kworker/0:1:23 blocked for more than 122 seconds.",
		"[    9.000000] UBSAN: shift-out-of-bounds in drivers/infiniband/sw/siw/siw_qp_tx.c:77:14",
		"[   70.000000] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:",
		"[   70.000000] rcu: INFO: rcu_preempt self-detected stall on CPU",
		"[   70.000000] INFO: rcu_tasks detected stalls on tasks:",
		"[    9.000000] INFO: trying to register non-static key.",
		"[    9.000000] BUG kmalloc-64 (Tainted: G    B      O    N): Poison overwritten"));

class HarmlessLine : public testing::TestWithParam<const char *> {};

TEST_P(HarmlessLine, IsNotASplat)
{
	EXPECT_FALSE(is_splat_line(strip_printk_prefix(GetParam())));
}

INSTANTIATE_TEST_SUITE_P(
	BootBanners, HarmlessLine,
	testing::Values(
		"[    0.000000] kasan: KernelAddressSanitizer initialized",
		"[    0.000000] Lock dependency validator: Copyright (c) 2006 Red Hat, Inc., Ingo Molnar",
		"[    0.000000] ... MAX_LOCKDEP_SUBCLASSES:  8",
		"[    0.000000]  memory used by lock dependency info: 6365 kB",
		"[    1.501000] kmemleak: Kernel memory leak detector initialized (mem pool available: 65536)",
		"[    1.501317] kmemleak: Automatic memory scanning thread started",
		"[  600.000000] kmemleak: 0 new suspected memory leaks (see /sys/kernel/debug/kmemleak)",
		"[    0.000000] rcu: \tRCU lockdep checking is enabled.",
		"[    0.000000] \tRCU CPU stall warnings timeout set to 100 (rcu_cpu_stall_timeout).",
		"[    0.000000] Running RCU self tests",
		"[   12.302532]     not ok 2 wrong_type",
		"[   12.302532]     # wrong_type: EXPECTATION FAILED at kdapl/handle_test.c:58",
		"[   12.302587]  <TASK>",
		"[   12.302586] Call Trace:",
		"kdapl-guest: DEBUG: 2 CPUs"));

TEST(Console, CleanBootLogHasNoSplats)
{
	EXPECT_TRUE(scan_console(read_testdata("console_clean.log"), {}).empty());
}

TEST(Console, FindsLockdepSplat)
{
	const auto splats = scan_console(read_testdata("console_lockdep.log"), {});
	EXPECT_EQ(failing_splat_lines(splats),
		  (std::vector<std::string>{"WARNING: possible circular locking dependency detected"}));
}

TEST(Console, KeepsLockdepReportBody)
{
	const auto splats = scan_console(read_testdata("console_lockdep.log"), {});
	ASSERT_EQ(splats.size(), 1u);
	const auto &body = splats[0].context;
	ASSERT_FALSE(body.empty());
	EXPECT_EQ(body.front(), "6.1.0-kdapl #1 Tainted: G           O     N");
	EXPECT_NE(std::find(body.begin(), body.end(),
			    "-> #0 (&ep->lock){+.+.}-{2:2}:"),
		  body.end());
	EXPECT_NE(std::find(body.begin(), body.end(), " </TASK>"), body.end());
	EXPECT_LE(body.size(), 120u);
}

TEST(Console, WarnBodyEndsAtEndTrace)
{
	const auto splats = scan_console(read_testdata("console_siw_warning.log"), {});
	ASSERT_EQ(splats.size(), 1u);
	ASSERT_FALSE(splats[0].context.empty());
	EXPECT_EQ(splats[0].context.back(), "---[ end trace 0000000000000000 ]---");
}

TEST(Console, AllowlistEntryCanRequireBodyFrames)
{
	const std::string console =
		"[    1.0] BUG: sleeping function called from invalid context at x.h:1\n"
		"[    1.1]  folio_lock+0x15/0x35\n"
		"[    1.2]  siw_umem_release+0x122/0x20d [siw]\n"
		"[    1.3]  siw_rdmap_complete+0x2e6/0x1074 [siw]\n"
		"[    2.0] BUG: sleeping function called from invalid context at x.h:1\n"
		"[    2.1]  folio_lock+0x15/0x35\n"
		"[    2.2]  kdapl_ep_free+0x10/0x20 [kdapl]\n";
	const std::vector<std::string> allow = parse_allowlist(
		"BUG: sleeping function called from invalid context"
		" @@ siw_umem_release+ @@ siw_rdmap_complete+\n");
	const auto splats = scan_console(console, allow);
	ASSERT_EQ(splats.size(), 2u);
	EXPECT_TRUE(splats[0].allowed);
	EXPECT_FALSE(splats[1].allowed) << "the same line from our code fails";
	EXPECT_FALSE(scan_console(console, parse_allowlist(
		"BUG: sleeping function @@ siw_umem_release+ @@ not_there\n"))[0]
			     .allowed) << "every body part must be present";
}

TEST(Report, PrintsFirstFailingReportBody)
{
	const auto facts = canned_run(read_testdata("results_pass.ktap"),
				      read_testdata("console_lockdep.log"));
	std::ostringstream out;
	print_report(out, facts, judge(facts));
	const auto text = out.str();
	EXPECT_NE(text.find("# kernel splat: WARNING: possible circular locking"),
		  std::string::npos);
	EXPECT_NE(text.find("# |  *** DEADLOCK ***\n"), std::string::npos);
	EXPECT_NE(text.find("# |  kdapl_ep_disconnect+0x4e/0x1a0 [kdapl]\n"),
		  std::string::npos);
}

TEST(Console, FindsKasanSplat)
{
	const auto splats = scan_console(read_testdata("console_kasan.log"), {});
	EXPECT_EQ(failing_splat_lines(splats),
		  (std::vector<std::string>{
			  "BUG: KASAN: use-after-free in kdapl_handle_get+0x8c/0x110 [kdapl]"}));
}

TEST(Console, FindsKmemleakReport)
{
	const auto splats = scan_console(read_testdata("console_kmemleak.log"), {});
	ASSERT_EQ(splats.size(), 1u);
	EXPECT_EQ(splats[0].line,
		  "kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)");
}

TEST(Console, FoldsCutHereIntoTheWarningAndAllowsIt)
{
	const auto allowlist = parse_allowlist(read_testdata("allowlist.txt"));
	const auto splats = scan_console(read_testdata("console_siw_warning.log"), allowlist);
	ASSERT_EQ(splats.size(), 1u);
	EXPECT_TRUE(splats[0].line.starts_with("WARNING: CPU: 1 PID: 211 at drivers/"));
	EXPECT_TRUE(splats[0].allowed);
}

TEST(Console, CutHereAloneIsReported)
{
	const auto splats = scan_console("[ 1.0] ------------[ cut here ]------------\n"
					 "[ 1.1] something\n",
					 {});
	ASSERT_EQ(splats.size(), 1u);
	EXPECT_EQ(splats[0].line, "------------[ cut here ]------------");
}

TEST(Console, HandlesCrLf)
{
	const auto splats = scan_console(with_crlf(read_testdata("console_kasan.log")), {});
	ASSERT_EQ(splats.size(), 1u);
	EXPECT_FALSE(splats[0].line.ends_with('\r'));
}

// --- configuration files ------------------------------------------------

TEST(ConfigFiles, AllowlistSkipsCommentsAndBlanks)
{
	EXPECT_EQ(parse_allowlist("# comment\n\n  siw_qp.c:1420  \r\n#x\nWARNING: foo [#1]\n"),
		  (std::vector<std::string>{"siw_qp.c:1420", "WARNING: foo [#1]"}));
}

TEST(ConfigFiles, ExpectFileGivesSuiteNames)
{
	EXPECT_EQ(parse_expect_file(read_testdata("expect.txt")),
		  (std::vector<std::string>{"kdapl_error", "kdapl_handle", "kiwarp_mpa"}));
	EXPECT_EQ(parse_expect_file("a_test a # trailing comment\r\n\n  b\n"),
		  (std::vector<std::string>{"a", "b"}));
	EXPECT_THROW(parse_expect_file("mod suite extra\n"), InputError);
}

// --- command line -------------------------------------------------------

TEST(Options, ParsesTheRunnersCommandLine)
{
	const auto options = parse_options(
		{"--results", "r.ktap", "--console", "c.log", "--expect-file", "SUITES",
		 "--expect", "guest_env", "--expect", "module_lifecycle", "--allowlist", "a",
		 "--qemu-status", "124", "--timed-out", "--min-cpus", "4", "--qemu-ok-status", "33"});
	EXPECT_EQ(options.results_path, "r.ktap");
	EXPECT_EQ(options.console_path, "c.log");
	EXPECT_EQ(options.expect_files, std::vector<std::string>{"SUITES"});
	EXPECT_EQ(options.expect_names,
		  (std::vector<std::string>{"guest_env", "module_lifecycle"}));
	EXPECT_EQ(options.allowlist_path, "a");
	EXPECT_EQ(options.qemu_status, 124);
	EXPECT_EQ(options.qemu_ok_statuses, (std::vector<int>{0, 33}));
	EXPECT_TRUE(options.timed_out);
	EXPECT_EQ(options.min_cpus, 4u);
}

TEST(Options, DefaultsAndErrors)
{
	const auto options = parse_options({"--results", "r", "--console", "c", "--expect", "s"});
	EXPECT_EQ(options.min_cpus, 2u);
	EXPECT_FALSE(options.qemu_status);
	EXPECT_FALSE(options.timed_out);

	EXPECT_THROW(parse_options({"--console", "c", "--expect", "s"}), InputError);
	EXPECT_THROW(parse_options({"--results", "r", "--expect", "s"}), InputError);
	EXPECT_THROW(parse_options({"--results", "r", "--console", "c"}), InputError);
	EXPECT_THROW(parse_options({"--results", "r", "--console", "c", "--expect"}), InputError);
	EXPECT_THROW(parse_options({"--results", "r", "--console", "c", "--expect", "s",
				    "--qemu-status", "x"}),
		     InputError);
	EXPECT_THROW(parse_options({"--results", "r", "--console", "c", "--expect", "s",
				    "--min-cpus", "-1"}),
		     InputError);
	EXPECT_THROW(parse_options({"--results", "r", "--console", "c", "--expect", "s",
				    "--bogus"}),
		     InputError);
}

// --- verdict ------------------------------------------------------------

TEST(Judge, AllPassRunPasses)
{
	const auto verdict = judge(clean_run());
	EXPECT_TRUE(verdict.passed()) << testing::PrintToString(failed_checks(verdict));
	// 4 + 3 + 4 + 2 + 3 suite cases passed (one skipped), 3 + 5 checks.
	EXPECT_EQ(verdict.total, (Tally{.passed = 24, .failed = 0, .skipped = 1}));
	std::vector<std::string> names;
	for (const auto &check : verdict.checks)
		names.push_back(check.name);
	EXPECT_EQ(names, (std::vector<std::string>{
				 "guest_completed", "guest_cpus", "kernel_log_clean",
				 "suite_reported_kdapl_error", "suite_reported_kdapl_handle",
				 "suite_reported_kiwarp_mpa", "suite_reported_guest_env",
				 "suite_reported_module_lifecycle"}));
}

TEST(Judge, FailingCaseFails)
{
	const auto verdict = judge(canned_run(read_testdata("results_fail_case.ktap"),
					      read_testdata("console_clean.log")));
	EXPECT_FALSE(verdict.passed());
	EXPECT_TRUE(failed_checks(verdict).empty()); // only the case itself failed
	EXPECT_EQ(verdict.total, (Tally{.passed = 23, .failed = 1, .skipped = 1}));
}

TEST(Judge, TruncatedResultsFail)
{
	const auto verdict = judge(canned_run(read_testdata("results_truncated.ktap"),
					      read_testdata("console_clean.log")));
	EXPECT_FALSE(verdict.passed());
	const auto &handle = check_named(verdict, "suite_reported_kdapl_handle");
	EXPECT_FALSE(handle.ok);
	EXPECT_EQ(handle.reason, "truncated: no final result line; plan 1..3 but 2 case lines");
	EXPECT_EQ(check_named(verdict, "suite_reported_kiwarp_mpa").reason, "no results block");
	EXPECT_FALSE(check_named(verdict, "guest_completed").ok);
}

TEST(Judge, PlanMismatchWithFinalLineFails)
{
	// KUNIT_LOG_SIZE (512 bytes in 6.1) can swallow a case's own result line.
	auto facts = clean_run();
	facts.results = parse_results(replace_all(read_testdata("results_pass.ktap"),
						  "    ok 2 status_strings\n", ""));
	const auto verdict = judge(facts);
	const auto &check = check_named(verdict, "suite_reported_kdapl_error");
	EXPECT_FALSE(check.ok);
	EXPECT_EQ(check.reason, "plan 1..4 but 3 case lines");
}

TEST(Judge, MissingExpectedSuiteFails)
{
	auto facts = clean_run();
	facts.expected_suites.push_back("kiwarp_cm");
	const auto verdict = judge(facts);
	EXPECT_FALSE(verdict.passed());
	EXPECT_EQ(failed_checks(verdict), std::vector<std::string>{"suite_reported_kiwarp_cm"});
	EXPECT_EQ(check_named(verdict, "suite_reported_kiwarp_cm").reason, "no results block");
}

TEST(Judge, UnexpectedSuiteIsCountedAndChecked)
{
	auto facts = clean_run();
	facts.expected_suites = {"kdapl_error"};
	const auto verdict = judge(facts);
	EXPECT_TRUE(verdict.passed());
	EXPECT_TRUE(check_named(verdict, "suite_reported_kiwarp_mpa").ok);
}

TEST(Judge, SuiteReportedTwiceFails)
{
	auto facts = clean_run();
	facts.results.suites.push_back(suite_named(facts.results, "kdapl_error"));
	EXPECT_EQ(check_named(judge(facts), "suite_reported_kdapl_error").reason,
		  "reported 2 times");
}

TEST(Judge, SuiteNotOkWithoutFailingCaseFails)
{
	auto facts = clean_run();
	facts.results = parse_results(replace_all(read_testdata("results_pass.ktap"),
						  "ok 1 kdapl_error", "not ok 1 kdapl_error"));
	EXPECT_FALSE(check_named(judge(facts), "suite_reported_kdapl_error").ok);
}

TEST(Judge, LockdepSplatFails)
{
	const auto verdict = judge(canned_run(read_testdata("results_pass.ktap"),
					      read_testdata("console_lockdep.log")));
	EXPECT_EQ(failed_checks(verdict), std::vector<std::string>{"kernel_log_clean"});
	EXPECT_EQ(check_named(verdict, "kernel_log_clean").reason,
		  "1 splat line(s): WARNING: possible circular locking dependency detected");
}

TEST(Judge, KasanSplatFails)
{
	const auto verdict = judge(canned_run(read_testdata("results_pass.ktap"),
					      read_testdata("console_kasan.log")));
	EXPECT_EQ(failed_checks(verdict), std::vector<std::string>{"kernel_log_clean"});
	EXPECT_NE(check_named(verdict, "kernel_log_clean").reason.find("BUG: KASAN"),
		  std::string::npos);
}

TEST(Judge, KmemleakReportFails)
{
	const auto verdict = judge(canned_run(read_testdata("results_pass.ktap"),
					      read_testdata("console_kmemleak.log")));
	EXPECT_EQ(failed_checks(verdict), std::vector<std::string>{"kernel_log_clean"});
}

TEST(Judge, UnallowedWarningFails)
{
	const auto verdict = judge(canned_run(read_testdata("results_pass.ktap"),
					      read_testdata("console_siw_warning.log")));
	EXPECT_EQ(failed_checks(verdict), std::vector<std::string>{"kernel_log_clean"});
}

TEST(Judge, AllowlistedSplatPasses)
{
	const auto verdict = judge(canned_run(read_testdata("results_pass.ktap"),
					      read_testdata("console_siw_warning.log"),
					      parse_allowlist(read_testdata("allowlist.txt"))));
	EXPECT_TRUE(verdict.passed());
}

TEST(Judge, ReasonListsTheFirstFewSplats)
{
	auto facts = clean_run();
	for (const auto *line : {"BUG: a", "BUG: b", "BUG: c", "BUG: d"})
		facts.splats.push_back({line, false, {}});
	EXPECT_EQ(check_named(judge(facts), "kernel_log_clean").reason,
		  "4 splat line(s): BUG: a | BUG: b | BUG: c");
}

TEST(Judge, OneCpuFails)
{
	auto facts = clean_run();
	facts.results.markers.cpus = 1;
	const auto verdict = judge(facts);
	EXPECT_EQ(failed_checks(verdict), std::vector<std::string>{"guest_cpus"});
	EXPECT_EQ(check_named(verdict, "guest_cpus").reason, "cpus=1, need at least 2");
}

TEST(Judge, MinCpusIsConfigurable)
{
	auto facts = clean_run();
	facts.min_cpus = 4;
	EXPECT_FALSE(check_named(judge(facts), "guest_cpus").ok);
	facts.min_cpus = 1;
	facts.results.markers.cpus = 1;
	EXPECT_TRUE(check_named(judge(facts), "guest_cpus").ok);
}

TEST(Judge, MissingCpusMarkerFails)
{
	auto facts = clean_run();
	facts.results.markers.cpus.reset();
	EXPECT_FALSE(check_named(judge(facts), "guest_cpus").ok);
}

TEST(Judge, NoDoneMarkerFails)
{
	auto facts = clean_run();
	facts.results.markers.done = false;
	const auto verdict = judge(facts);
	EXPECT_EQ(failed_checks(verdict), std::vector<std::string>{"guest_completed"});
	EXPECT_EQ(check_named(verdict, "guest_completed").reason,
		  "no '# kdapl-guest: done' marker");
}

TEST(Judge, TimeOutFails)
{
	auto facts = clean_run();
	facts.timed_out = true;
	facts.qemu_status = 124;
	const auto verdict = judge(facts);
	EXPECT_EQ(failed_checks(verdict), std::vector<std::string>{"guest_completed"});
	EXPECT_EQ(check_named(verdict, "guest_completed").reason, "timed out");
}

TEST(Judge, QemuStatusOtherThanExpectedFails)
{
	auto facts = clean_run();
	facts.qemu_status = 1;
	EXPECT_EQ(check_named(judge(facts), "guest_completed").reason,
		  "guest crashed (qemu exit status 1)");
	facts.qemu_ok_statuses = {0, 1};
	EXPECT_TRUE(check_named(judge(facts), "guest_completed").ok);
}

TEST(Judge, HandlesCrLfInputs)
{
	const auto verdict = judge(canned_run(with_crlf(read_testdata("results_pass.ktap")),
					      with_crlf(read_testdata("console_clean.log"))));
	EXPECT_TRUE(verdict.passed());
	EXPECT_EQ(verdict.total, judge(clean_run()).total);
}

TEST(Judge, EmptyResultsFileFailsEverySuite)
{
	auto facts = clean_run();
	facts.results = parse_results("");
	const auto verdict = judge(facts);
	EXPECT_EQ(verdict.total, (Tally{.passed = 1, .failed = 7}));
}

// --- printed report -----------------------------------------------------

TEST(PrintReport, PrintsBlocksCountsChecksAndTotal)
{
	auto facts = canned_run(std::string(handle_block), read_testdata("console_siw_warning.log"),
				parse_allowlist(read_testdata("allowlist.txt")));
	facts.expected_suites = {"kdapl_handle"};
	std::ostringstream out;
	print_report(out, facts, judge(facts));
	const std::string expected =
		std::string(handle_block) +
		"suite kdapl_handle: 1 passed, 1 failed, 1 skipped\n"
		"# Subtest: guest_run\n"
		"1..4\n"
		"# allowed splat: WARNING: CPU: 1 PID: 211 at "
		"drivers/infiniband/sw/siw/siw_qp.c:1420 siw_qp_llp_close+0x1c3/0x2a0 [siw]\n"
		"not ok 1 guest_completed # no '# kdapl-guest: done' marker\n"
		"not ok 2 guest_cpus # no '# kdapl-guest: cpus=N' marker\n"
		"ok 3 kernel_log_clean\n"
		"ok 4 suite_reported_kdapl_handle\n"
		"3 passed, 3 failed, 1 skipped\n";
	EXPECT_EQ(out.str(), expected);
}

// --- the programs, on canned files ----------------------------------------

struct Run {
	int status = -1;
	std::string output;
};

std::string quoted(const std::string &word)
{
	return "'" + replace_all(word, "'", "'\\''") + "'";
}

Run run_shell(const std::string &command)
{
	Run run;
	FILE *pipe = popen((command + " 2>/dev/null").c_str(), "r");
	if (!pipe)
		return run;
	char buffer[4096];
	for (std::size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;)
		run.output.append(buffer, n);
	const int status = pclose(pipe);
	run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	return run;
}

std::string last_line(const std::string &output)
{
	auto text = std::string_view(output);
	if (text.ends_with('\n'))
		text.remove_suffix(1);
	return std::string(text.substr(text.rfind('\n') + 1));
}

// A file in the temporary directory, named after the running test (ctest
// runs the tests in parallel) and removed again at the end of the scope.
class TempFile {
public:
	TempFile(std::string_view name, const std::string &text)
	{
		const auto *test = testing::UnitTest::GetInstance()->current_test_info();
		path_ = testing::TempDir() + "ktap_test_" + std::to_string(getpid()) + "_" +
			test->name() + "_" + std::string(name);
		std::ofstream(path_, std::ios::binary) << text;
	}
	~TempFile() { std::remove(path_.c_str()); }
	TempFile(const TempFile &) = delete;
	TempFile &operator=(const TempFile &) = delete;

	const std::string &path() const { return path_; }

private:
	std::string path_;
};

Run run_report(const std::string &results, const std::string &console,
	       const std::string &extra = "")
{
	return run_shell(quoted(KDAPL_REPORT_BIN) + " --results " + quoted(results) +
			 " --console " + quoted(console) + " --expect-file " +
			 quoted(testdata_path("expect.txt")) +
			 " --expect guest_env --expect module_lifecycle --allowlist " +
			 quoted(testdata_path("allowlist.txt")) + " --qemu-status 0 " + extra);
}

Run run_sum(const std::string &input)
{
	const TempFile file("sum.txt", input);
	return run_shell(quoted(KDAPL_SUM_BIN) + " < " + quoted(file.path()));
}

TEST(ReportProgram, PassesCleanRun)
{
	const auto run = run_report(testdata_path("results_pass.ktap"),
				    testdata_path("console_clean.log"));
	EXPECT_EQ(run.status, 0) << run.output;
	EXPECT_EQ(last_line(run.output), "24 passed, 0 failed, 1 skipped");
	EXPECT_TRUE(run.output.starts_with("    KTAP version 1\n    # Subtest: guest_env\n"));
	EXPECT_NE(run.output.find("\nsuite kdapl_handle: 2 passed, 0 failed, 1 skipped\n"),
		  std::string::npos);
	EXPECT_NE(run.output.find("\n# Subtest: guest_run\n1..8\nok 1 guest_completed\n"),
		  std::string::npos);
}

TEST(ReportProgram, FailsOnFailingCase)
{
	const auto run = run_report(testdata_path("results_fail_case.ktap"),
				    testdata_path("console_clean.log"));
	EXPECT_EQ(run.status, 1);
	EXPECT_EQ(last_line(run.output), "23 passed, 1 failed, 1 skipped");
}

TEST(ReportProgram, FailsOnTruncatedResults)
{
	const auto run = run_report(testdata_path("results_truncated.ktap"),
				    testdata_path("console_clean.log"));
	EXPECT_EQ(run.status, 1);
	EXPECT_NE(run.output.find("not ok 5 suite_reported_kdapl_handle # truncated"),
		  std::string::npos)
		<< run.output;
}

TEST(ReportProgram, FailsOnSplats)
{
	for (const auto *console : {"console_lockdep.log", "console_kasan.log",
				    "console_kmemleak.log"}) {
		const auto run = run_report(testdata_path("results_pass.ktap"),
					    testdata_path(console));
		EXPECT_EQ(run.status, 1) << console;
		EXPECT_EQ(last_line(run.output), "23 passed, 1 failed, 1 skipped") << console;
		EXPECT_NE(run.output.find("\nnot ok 3 kernel_log_clean # 1 splat line(s): "),
			  std::string::npos)
			<< console;
	}
}

TEST(ReportProgram, AllowlistedSplatPasses)
{
	const auto run = run_report(testdata_path("results_pass.ktap"),
				    testdata_path("console_siw_warning.log"));
	EXPECT_EQ(run.status, 0) << run.output;
	EXPECT_NE(run.output.find("\n# allowed splat: WARNING: CPU: 1 PID: 211 at "),
		  std::string::npos);
}

TEST(ReportProgram, FailsOnTimeOutAndOnOneCpu)
{
	const auto timed_out = run_report(testdata_path("results_pass.ktap"),
					  testdata_path("console_clean.log"), "--timed-out");
	EXPECT_EQ(timed_out.status, 1);
	const auto one_cpu = run_report(testdata_path("results_pass.ktap"),
					testdata_path("console_clean.log"), "--min-cpus 3");
	EXPECT_EQ(one_cpu.status, 1);
	EXPECT_NE(one_cpu.output.find("not ok 2 guest_cpus # cpus=2, need at least 3"),
		  std::string::npos);
}

TEST(ReportProgram, PrintsBlocksWithoutCarriageReturns)
{
	const TempFile results("crlf.ktap", with_crlf(read_testdata("results_pass.ktap")));
	const TempFile console("crlf.log", with_crlf(read_testdata("console_clean.log")));
	const auto run = run_report(results.path(), console.path());
	EXPECT_EQ(run.status, 0) << run.output;
	EXPECT_EQ(run.output.find('\r'), std::string::npos);
	EXPECT_EQ(last_line(run.output), "24 passed, 0 failed, 1 skipped");
}

TEST(ReportProgram, UsageErrorsExitTwoAndCountOneFailure)
{
	const auto usage = run_shell(quoted(KDAPL_REPORT_BIN) + " --bogus");
	EXPECT_EQ(usage.status, 2);
	EXPECT_EQ(usage.output, "0 passed, 1 failed, 0 skipped\n");

	const auto unreadable = run_report(testdata_path("no_such_file.ktap"),
					   testdata_path("console_clean.log"));
	EXPECT_EQ(unreadable.status, 2);
	EXPECT_EQ(unreadable.output, "0 passed, 1 failed, 0 skipped\n");

	const auto directory = run_report(testdata_path("results_pass.ktap"), KTAP_TESTDATA);
	EXPECT_EQ(directory.status, 2);
}

TEST(SumProgram, SumsSummaryLines)
{
	const auto run = run_sum("== host\n"
				 "12 passed, 0 failed, 1 skipped\n"
				 "suite x: 5 passed, 7 failed, 0 skipped\n"
				 "3 passed, 0 failed\r\n"
				 "  9 passed, 9 failed, 9 skipped\n"
				 "23 passed, 0 failed, 1 skipped\n");
	EXPECT_EQ(run.status, 0);
	EXPECT_EQ(run.output, "38 passed, 0 failed, 2 skipped\n");
}

TEST(SumProgram, FailsWhenAnyStageFailed)
{
	const auto run = run_sum("12 passed, 0 failed, 1 skipped\n0 passed, 1 failed, 0 skipped\n");
	EXPECT_EQ(run.status, 1);
	EXPECT_EQ(run.output, "12 passed, 1 failed, 1 skipped\n");
}

TEST(SumProgram, FailsOnNoSummaryLine)
{
	const auto empty = run_sum("");
	EXPECT_EQ(empty.status, 1);
	EXPECT_EQ(empty.output, "0 passed, 0 failed, 0 skipped\n");
	EXPECT_EQ(run_sum("no summary here\n").status, 1);
}

TEST(SumProgram, SumsTheReportOfACleanRun)
{
	const auto report = run_report(testdata_path("results_pass.ktap"),
				       testdata_path("console_clean.log"));
	const auto run = run_sum(report.output + "1 passed, 0 failed, 0 skipped\n");
	EXPECT_EQ(run.status, 0);
	EXPECT_EQ(run.output, "25 passed, 0 failed, 1 skipped\n");
}

} // namespace
} // namespace kdapl::report
