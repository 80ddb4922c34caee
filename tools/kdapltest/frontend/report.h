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
};

// dapltest's "----- Stats ----" block (MB = 10^6 bytes, as dapltest).
std::string format_stats(const Stats &s);

// One JSON object: the options, the status and the statistics.
std::string format_json(const Options &o, const Stats &s);

}  // namespace kdt
