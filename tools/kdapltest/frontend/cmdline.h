// SPDX-License-Identifier: GPL-2.0
// kdapltest front end: dapltest's command line, parsed and checked.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kdt_proto.h"

namespace kdt {

struct Options {
	char test_type = 0;	// 'S' 'T' 'P' 'L' 'Q' 'F'
	std::string server;	// -s
	std::string device;	// -D (a kDAPL IA: an RDMA device name)
	uint32_t port = KDT_DEFAULT_PORT;	// -n
	uint32_t iterations = 1000;	// -i
	uint32_t threads = 1;	// -t
	uint32_t eps_per_thread = 1;	// -w
	bool validate = false;	// -V
	bool poll = false;	// -P
	bool use_rsp = false;	// -r
	bool debug = false;	// -d
	uint32_t qos = 0;	// -R (DAT_QOS)
	bool json = false;	// --json
	// a crafted peer, for the bad-input tests (0: as dapltest)
	uint32_t craft_version = 0;	// --wire-version N
	uint32_t craft_test_type = 0;	// --wire-test-type N
	uint32_t craft_cmd_len = 0;	// --cmd-bytes N
	std::vector<kdt_op> ops;	// transaction op list
	// -T P
	char mode = 'b';	// -m b|p
	uint32_t pipeline = ~0u;	// -p
	// -T L
	uint32_t width = 1;		// -w
	uint32_t maximum = ~0u;	// -m, dapltest's default: no maximum
	// -T L: bit KDT_LIM_* of the limit tests named; -T F: bit n of
	// caseN. 0: all of them.
	uint32_t select = 0;
	// -T F
	uint32_t feature = ~0u;	// -f, KDT_FFT_*
};

struct ParseResult {
	bool ok = false;
	std::string error;		// why not ok
	std::vector<std::string> notes;	// dapltest's NOTE lines (-V)
	Options opts;
};

// args: the command line without the program name.
ParseResult parse_cmdline(const std::vector<std::string> &args);

// One op: "<client|server> <SR|RW|RR> [seg_size [num_segs]] [-f]".
std::optional<kdt_op> parse_op(const std::vector<std::string> &words,
			       std::string &error);

// -R: BE HT LL EC PM.
std::optional<uint32_t> parse_qos(std::string_view s);

// The wire command the options describe (-T T).
kdt_transaction_cmd to_transaction_cmd(const Options &o);

// -T L: the limit test's name (limit_ia ...) and its KDT_LIM_* index.
const char *limit_name(uint32_t index);
std::optional<uint32_t> limit_index(std::string_view name);

// -T F: the feature's name (hwconn ...), its KDT_FFT_* index and cases.
const char *fft_feature_name(uint32_t feature);
std::optional<uint32_t> fft_feature(std::string_view name);
uint32_t fft_cases(uint32_t feature);

std::string usage();

}  // namespace kdt
