// SPDX-License-Identifier: GPL-2.0
// kdapltest front end: dapltest-style statistics and --json output.
#pragma once

#include <string>

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

}  // namespace kdt
