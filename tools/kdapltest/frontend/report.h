// SPDX-License-Identifier: GPL-2.0
// kdapltest front end: dapltest-style statistics and --json output.
#pragma once

#include <string>
#include <vector>

#include "cmdline.h"

namespace kdt {

struct Stats {
	int status = 0;
	std::string message;
	unsigned threads = 0, eps = 0;
	unsigned long long wqes = 0, time_us = 0;
	unsigned long long send = 0, recv = 0, rdma_read = 0, rdma_write = 0;
	unsigned tests_done = 0, tests_failed = 0, rejected = 0;	// -T S
	unsigned pipeline = 0;					// -T P
	unsigned long long lat_min_ns = 0, lat_avg_ns = 0, lat_max_ns = 0;
};

// -T P: operations per second of the pipelined phase.
double ops_per_sec(const Stats &s);

// dapltest's statistics of a performance test.
std::string format_perf_stats(const Options &o, const Stats &s);

// dapltest's "----- Stats ----" block (MB = 10^6 bytes, as dapltest).
std::string format_stats(const Stats &s);

// One JSON object: the options, the status and the statistics.
std::string format_json(const Options &o, const Stats &s);

// -T L and -T F: one case as kdapltest.ko reported it.
struct CaseResult {
	unsigned index = 0;
	unsigned verdict = 0;		// KDT_CASE_PASS, _FAIL, _SKIP
	unsigned dat_status = 0;	// the DAT_RETURN checked last
	unsigned count = 0;		// -T L: objects created
	unsigned long long value = 0, time_us = 0;
	std::string name, desc, message;
};

const char *verdict_name(unsigned verdict);

// dapltest's report of the cases: starred blocks, "Result: PASS".
std::string format_cases(const Options &o, const std::vector<CaseResult> &c);

// One JSON object: the run and its cases.
std::string format_cases_json(const Options &o, const Stats &s,
			      const std::vector<CaseResult> &c);

}  // namespace kdt
