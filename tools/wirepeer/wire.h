// SPDX-License-Identifier: GPL-2.0
//
// kiwarp-wirepeer: a userspace iWARP peer on a plain TCP socket that
// sends malformed MPA/DDP/RDMAP frames to a kiwarp listener
// (kunit/kiwarp_wire_target.c) and checks each outcome. The pieces that
// do not need a socket (the target's debugfs line, frame building, the
// verdict on what came back) are here so the host tests can run them.

#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

extern "C" {
#include "ddp.h"
#include "fpdu.h"
#include "mpa.h"
}

namespace wirepeer {

// One connection line of kiwarp_wire_target's debugfs file "conns":
// space separated key=value pairs.
struct ConnLine {
	std::map<std::string, std::string> kv;

	std::string get(const std::string &k) const;
	std::uint64_t num(const std::string &k) const;	// decimal or 0x hex
};

// The "requests=N" count of the file, nullopt if absent.
std::optional<unsigned> ParseRequests(std::string_view file);
// The line of the connection whose peer (our) port is @port: the last
// such line, the newest. The targets list every connection until they
// are unloaded, oldest first, and a long run reuses ephemeral ports:
// stress's 800-round rx_fuzz once read an earlier connection's line in
// ERROR for a port it had just connected from again.
std::optional<ConnLine> FindConn(std::string_view file, unsigned port);

// An MPA Request: revision @rev, CRC and markers flags, @pd_len bytes of
// private data (with the RFC 6581 block first for revision 2), then the
// key replaced by @key if not empty.
std::vector<std::uint8_t> MpaRequest(std::uint8_t rev, bool crc,
				     bool markers, std::uint16_t pd_len,
				     std::string_view key = {});

// One FPDU around the encoded header @h and @pay bytes of payload
// (value 0xab), CRC if @crc.
std::vector<std::uint8_t> Fpdu(const ddp_hdr &h, std::uint32_t pay, bool crc);

// What came back from the target after a bad frame.
struct Outcome {
	bool terminate = false;	// a TERMINATE FPDU was read
	std::uint8_t layer = 0, etype = 0, ecode = 0;
	bool closed = false;	// EOF or reset instead
	std::string what;	// anything else, for the log
};

// Decode the bytes read after a bad frame (@crc: the CRC is in use).
Outcome Judge(const std::vector<std::uint8_t> &rx, bool crc, bool closed);

}  // namespace wirepeer
