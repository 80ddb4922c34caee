// SPDX-License-Identifier: GPL-2.0
//
// kiwarp-wirepeer: malformed frames from a userspace peer on a plain TCP
// socket against kiwarp_wire_target.ko (a kiwarp rdma_cm listener, see
// kunit/kiwarp_wire_target.c), run inside the test guest:
//
//   kiwarp-wirepeer [--addr A] [--port P] [--conns FILE] [--suite NAME]
//                   [--fuzz ROUNDS [--seed S] [--only-fuzz 1]]
//
// Every case opens its own TCP connection. MPA cases send a bad Request
// and expect an MPA reject Reply or the connection closed, and no new
// QP at the target. FPDU cases complete the MPA exchange (revision 2,
// CRC as the case says), wait until the target's MR is registered
// (debugfs "ready=1"), send one bad frame and expect a TERMINATE with
// the given layer/type/code - or, for the truncated ones, the
// connection closed - and then, from debugfs: the QP in ERROR, the
// TERMINATEs counted, the canaries around the region and the receive
// buffers intact and, where the frame was refused before placement,
// the region untouched. One valid case first: an RDMA Read over a small
// MSS, whose Read Response FPDUs must each fit it. With --fuzz, a last
// case fuzz_rx_streams sends ROUNDS connections random FPDU streams
// (FuzzRx(); --only-fuzz: that case alone). The result is KTAP on
// stdout, one case each.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "peer.h"

using namespace std::chrono_literals;
using namespace wirepeer;

namespace {

std::string ReadConns()
{
	std::ifstream f(opt.conns);
	std::stringstream ss;

	ss << f.rdbuf();
	return ss.str();
}

unsigned Requests()
{
	auto n = wirepeer::ParseRequests(ReadConns());

	Require(n.has_value(), "no requests= line in " + opt.conns);
	return *n;
}

// Poll the target's line for our @port until @pred holds (10 s).
ConnLine WaitConn(unsigned port, const std::function<bool(const ConnLine &)> &pred,
		  const std::string &what)
{
	auto end = std::chrono::steady_clock::now() + 10s;
	std::optional<ConnLine> c;

	for (;;) {
		c = wirepeer::FindConn(ReadConns(), port);
		if (c && pred(*c))
			return *c;
		if (std::chrono::steady_clock::now() > end)
			break;
		std::this_thread::sleep_for(50ms);
	}
	throw CaseError("timed out waiting for " + what + " (port " +
			std::to_string(port) + ": " +
			(c ? "state=" + c->get("state") : "no line") + ")");
}

// --- the cases -------------------------------------------------------

struct Expect {
	bool terminate;			// else: the connection closed
	int layer = -1, etype = -1, ecode = -1;	// -1: any
	bool region_clean = true;	// nothing placed in the region
};

// MPA cases: a bad Request; an MPA reject Reply or a closed connection,
// and no QP created.
void MpaCase(const std::vector<std::uint8_t> &req, bool shut)
{
	unsigned before = Requests();
	Sock s;
	std::vector<std::uint8_t> rep;

	s.Connect();
	s.Send(req);
	if (shut)
		s.ShutWrite();
	if (s.ReadExact(rep, MPA_RR_HDR_LEN)) {
		mpa_frame_info fi{};

		fi.kind = MPA_KIND_REPLY;
		Require(mpa_frame_decode_header(rep.data(), rep.size(), &fi,
						nullptr) == 0 && fi.reject,
			"answered with something else than an MPA reject");
	} else {
		Require(s.closed, "neither a reject nor a close within 10 s");
	}
	std::this_thread::sleep_for(200ms);
	Require(Requests() == before, "the target saw a connection request");
	Require(!wirepeer::FindConn(ReadConns(), s.local_port),
		"a connection exists for it");
}

// FPDU cases: connected, then @frame (built from the target's line).
void FpduCase(bool crc,
	      const std::function<std::vector<std::uint8_t>(const ConnLine &)>
		      &frame,
	      const Expect &want, bool shut = false)
{
	Sock s;
	bool use_crc = MpaConnect(s, crc);
	ConnLine c = WaitConn(s.local_port, [](const ConnLine &l) {
		return l.get("ready") == "1" && l.get("state") == "RTS";
	}, "the target's MR");

	s.Send(frame(c));
	if (shut)
		s.ShutWrite();
	std::vector<std::uint8_t> rx = ReadFpdu(s);
	wirepeer::Outcome o = wirepeer::Judge(rx, use_crc, s.closed);

	if (want.terminate) {
		Require(o.terminate, "no TERMINATE: " +
			(o.closed ? std::string("closed") :
			 s.timed_out ? std::string("timed out") : o.what));
		auto code = [](int v) { return std::to_string(v); };
		Require((want.layer < 0 || o.layer == want.layer) &&
			(want.etype < 0 || o.etype == want.etype) &&
			(want.ecode < 0 || o.ecode == want.ecode),
			"TERMINATE layer/type/code " + code(o.layer) + "/" +
			code(o.etype) + "/" + code(o.ecode) + ", want " +
			code(want.layer) + "/" + code(want.etype) + "/" +
			code(want.ecode));
	} else {
		Require(o.terminate || o.closed,
			"neither TERMINATE nor close: " +
			(s.timed_out ? std::string("timed out") : o.what));
	}
	c = WaitConn(s.local_port, [](const ConnLine &l) {
		return l.get("state") == "ERROR";
	}, "the QP in ERROR");
	if (want.terminate)
		Require(c.num("terms_sent") == 1, "terms_sent " +
			c.get("terms_sent"));
	Require(c.get("guard") == "ok", "canary around the region hit");
	Require(c.get("recv_guard") == "ok",
		"canary around the receive buffers hit");
	if (want.region_clean)
		Require(c.get("region") == "clean",
			"bytes placed in the region");
}

// Not malformed: a valid RDMA Read of the whole region over a connection
// whose MSS we made small (TCP_MAXSEG). Our Request offers no large
// FPDUs, so whatever kiwarp's fpdu_segs (module parameter, read from
// sysfs; the suite runs with the default, which offers them), its
// Reply must not set the bit and every Read Response FPDU must fit one
// MSS. Each FPDU carries the next bytes of the sink, the last one the
// L flag; the region bytes are the target's zeros.
void ReadWithinMss()
{
	constexpr int kMss = 536;
	unsigned segs = 0;
	bool offered = false;

	std::ifstream(opt.fpdu_segs) >> segs;
	Require(segs >= 1, "cannot read " + opt.fpdu_segs);
	const std::size_t max_fpdu = kMss;
	constexpr u32 kSink = 0x7700, kSinkTo = 0x10000;
	Sock s(kMss);
	bool crc = MpaConnect(s, false, false, &offered);

	Require(!offered, "the Reply sets the large-FPDU bit unasked "
		"(fpdu_segs " + std::to_string(segs) + ")");
	ConnLine c = WaitConn(s.local_port, [](const ConnLine &l) {
		return l.get("ready") == "1" && l.get("state") == "RTS";
	}, "the target's MR");
	ddp_hdr h{};
	std::uint32_t len = static_cast<std::uint32_t>(c.num("len"));
	std::uint32_t got = 0, fpdus = 0;

	h.opcode = RDMAP_READ_REQ;
	h.last = true;
	h.msn = 1;
	h.sink_stag = kSink;
	h.sink_to = kSinkTo;
	h.read_size = len;
	h.src_stag = static_cast<u32>(c.num("stag"));
	h.src_to = c.num("to");
	s.Send(wirepeer::Fpdu(h, 0, false));
	for (bool last = false; !last;) {
		std::vector<std::uint8_t> f = ReadFpdu(s);
		const u8 *u;
		u16 ulen;
		ddp_hdr r{};
		ddp_err err{};

		Require(!f.empty(), "connection ended after " +
			std::to_string(got) + " bytes");
		Require(f.size() <= max_fpdu, "FPDU of " +
			std::to_string(f.size()) + " bytes, over the MSS " +
			std::to_string(kMss));
		Require(mpa_fpdu_decode(f.data(), f.size(), crc, 0xffff, &u,
					&ulen) > 0, "bad FPDU");
		int hl = ddp_hdr_decode(u, ulen, &r, &err);

		Require(hl > 0 && r.opcode == RDMAP_READ_RESP,
			"not a Read Response");
		Require(r.stag == kSink && r.to == kSinkTo + got,
			"Read Response at the wrong sink place");
		for (int i = hl; i < ulen; i++)
			Require(u[i] == 0, "Read Response data not the region's");
		got += ulen - hl;
		fpdus++;
		last = r.last;
	}
	Require(got == len, "read " + std::to_string(got) + " of " +
		std::to_string(len) + " bytes");
	Require(fpdus >= len / max_fpdu, "only " + std::to_string(fpdus) +
		" FPDUs");
	c = WaitConn(s.local_port, [](const ConnLine &l) {
		return l.get("state") == "RTS";
	}, "the QP still in RTS");
	Require(c.num("terms_sent") == 0, "a TERMINATE was sent");
}

// The target QP's tx_waits (kiwarp's debugfs "qps" line of the QP whose
// remote port is @port), -1 if there is none.
long TxWaits(unsigned port)
{
	std::ifstream f(opt.qps);
	std::string line, tag = ":" + std::to_string(port) + " mpa ";

	while (std::getline(f, line)) {
		auto at = line.find(" tx_waits ");

		if (line.find(tag) != std::string::npos && at != line.npos)
			return std::stol(line.substr(at + 10));
	}
	return -1;
}

// Kernel threads whose stack shows a kiwarp TX work sleeping for room in
// a socket (/proc/<pid>/stack).
unsigned TxSleepers()
{
	unsigned n = 0;

	for (const auto &d : std::filesystem::directory_iterator("/proc")) {
		std::string pid = d.path().filename();

		if (pid.find_first_not_of("0123456789") != pid.npos)
			continue;
		std::ifstream f(d.path() / "stack");
		std::stringstream ss;

		if (!f)
			continue;
		ss << f.rdbuf();
		std::string st = ss.str();
		if (st.find("sk_stream_wait_memory") != st.npos &&
		    st.find("kiwarp_tx") != st.npos)
			n++;
	}
	return n;
}

// A peer that stops reading (issue 18 item 6): it sends RDMA Read
// Requests of the whole region, one at a time, with a 4 KiB receive
// buffer, and reads nothing, until the target's TX found TCP full
// (tx_waits). Then no kernel thread may sleep in a kiwarp TX work for
// room (the TX work goes on from sk_write_space instead: a sleeping one
// held a worker, or the workqueue's rescuer with every QP's work queued
// behind it), and another connection on the device must complete an
// MPA exchange and an RDMA Read. The suite's rmmod of the target later
// destroys the stuck QP.
void PeerStopsReading()
{
	Sock s(0, 4096);
	bool crc = MpaConnect(s, false);
	ConnLine c = WaitConn(s.local_port, [](const ConnLine &l) {
		return l.get("ready") == "1" && l.get("state") == "RTS";
	}, "the target's MR");
	ddp_hdr h{};
	unsigned sent = 0;

	h.opcode = RDMAP_READ_REQ;
	h.last = true;
	h.sink_stag = 0x7700;
	h.sink_to = 0x10000;
	h.read_size = static_cast<u32>(c.num("len"));
	h.src_stag = static_cast<u32>(c.num("stag"));
	h.src_to = c.num("to");
	while (TxWaits(s.local_port) <= 0) {
		Require(sent < 400, "TCP never full after " +
			std::to_string(sent) + " Read Requests");
		h.msn = ++sent;
		s.Send(wirepeer::Fpdu(h, 0, crc));
		std::this_thread::sleep_for(20ms);
	}
	for (int i = 0; i < 5; i++) {
		Require(TxSleepers() == 0,
			"a kiwarp TX work sleeps in sendmsg for room");
		std::this_thread::sleep_for(100ms);
	}
	Sock other;
	auto t0 = std::chrono::steady_clock::now();

	MpaConnect(other, false);
	ConnLine oc = WaitConn(other.local_port, [](const ConnLine &l) {
		return l.get("ready") == "1" && l.get("state") == "RTS";
	}, "the other connection's MR");
	h.msn = 1;
	h.src_stag = static_cast<u32>(oc.num("stag"));
	h.src_to = oc.num("to");
	other.Send(wirepeer::Fpdu(h, 0, false));
	std::uint32_t got = 0;
	while (got < h.read_size) {
		std::vector<std::uint8_t> f = ReadFpdu(other);
		const u8 *u;
		u16 ulen;
		ddp_hdr r{};
		ddp_err err{};

		Require(!f.empty(), "the other connection's Read stopped");
		Require(mpa_fpdu_decode(f.data(), f.size(), false, 0xffff,
					&u, &ulen) > 0 &&
			ddp_hdr_decode(u, ulen, &r, &err) > 0 &&
			r.opcode == RDMAP_READ_RESP, "not a Read Response");
		got += ulen - ddp_hdr_len(u[0], u[1], &err);
	}
	Require(std::chrono::steady_clock::now() - t0 < 5s,
		"the other connection took over 5 s");
	Require(TxWaits(s.local_port) > 0, "the stuck QP is gone");
}

ddp_hdr Tagged(const ConnLine &c, std::uint64_t to)
{
	ddp_hdr h{};

	h.opcode = RDMAP_WRITE;
	h.last = true;
	h.stag = static_cast<u32>(c.num("stag"));
	h.to = to;
	return h;
}


constexpr Expect kTagged(int ecode)
{
	return {true, TERM_LAYER_DDP, DDP_ETYPE_TAGGED, ecode};
}


}  // namespace

// One frame of a fuzz stream: a valid one (a Write into or past the
// region, a Send, a Read Request of part of it, a TERMINATE), then at
// random a header field changed and at random its bytes (a flipped bit,
// a cut, the MPA length, bytes appended). Never empty.
std::vector<std::uint8_t> wirepeer::FuzzFrame(std::mt19937_64 &rng,
					      const ConnLine &c, bool crc)
{
	const std::uint64_t to = c.num("to");
	const std::uint32_t len = static_cast<std::uint32_t>(c.num("len"));
	std::uint32_t pay = 0;
	ddp_hdr h{};

	switch (rng() % 4) {
	case 0:
		h = Tagged(c, to + rng() % len);
		pay = rng() % 256;
		break;
	case 1:
		h = Untagged(RDMAP_SEND, 1 + rng() % 3);
		pay = rng() % 96;
		break;
	case 2:
		h = Untagged(RDMAP_READ_REQ, 1 + rng() % 3);
		h.sink_stag = static_cast<u32>(rng());
		h.sink_to = rng();
		h.read_size = rng() % (len + 64);
		h.src_stag = static_cast<u32>(c.num("stag"));
		h.src_to = to + rng() % len;
		break;
	default:
		h = Untagged(RDMAP_TERMINATE, 1);
		h.term_layer = rng() % 3;
		h.term_etype = rng() % 4;
		h.term_ecode = static_cast<u8>(rng());
		break;
	}
	switch (rng() % 10) {
	case 0:
		h.opcode = rng() % 16;
		break;
	case 1:
		h.stag ^= 1u << (rng() % 32);
		break;
	case 2:
		h.to += rng() % 8192 - 4096;
		break;
	case 3:
		h.last = !h.last;
		break;
	case 4:
		h.msn = static_cast<u32>(rng());
		break;
	case 5:
		h.mo = rng() % 512;
		break;
	case 6:
		h.tagged = !h.tagged;
		break;
	default:
		break;
	}
	std::vector<std::uint8_t> f = wirepeer::Fpdu(h, pay, crc);

	if (f.empty())		// a header the codec refuses: raw bytes
		f.resize(1 + rng() % 64);
	switch (rng() % 8) {
	case 0:
		f[rng() % f.size()] ^= 1u << (rng() % 8);
		break;
	case 1:
		f.resize(1 + rng() % f.size());
		break;
	case 2:
		f[0] = static_cast<u8>(rng());
		if (f.size() > 1)
			f[1] = static_cast<u8>(rng());
		break;
	case 3:
		for (unsigned i = rng() % 64; i; i--)
			f.push_back(static_cast<u8>(rng()));
		break;
	default:
		break;
	}
	return f;
}

namespace {

// Random FPDU streams into connected QPs (issue 18 item 7): opt.fuzz
// rounds, each a new connection (CRC on or off at random) that gets 1 to
// 8 frames of FuzzFrame() in one send; what comes back (TERMINATE, Read
// Responses) is read and dropped, then our FIN; once the target's QP is
// in ERROR its canaries around the region and the receive buffers must
// be intact: nothing placed outside a registered region, whatever came.
// The kernel log is judged by the runner. Prints the figures.
void FuzzRx()
{
	std::mt19937_64 rng(opt.seed);
	std::uint64_t frames = 0, bytes = 0;
	unsigned terms = 0, closes = 0;

	for (unsigned r = 0; r < opt.fuzz; r++) {
		Sock s;
		bool crc = MpaConnect(s, rng() & 1);
		ConnLine c = WaitConn(s.local_port, [](const ConnLine &l) {
			return l.get("ready") == "1" && l.get("state") == "RTS";
		}, "the target's MR");
		std::vector<std::uint8_t> stream, rx;
		unsigned n = 1 + rng() % 8;

		for (unsigned i = 0; i < n; i++) {
			auto f = FuzzFrame(rng, c, crc);

			stream.insert(stream.end(), f.begin(), f.end());
		}
		frames += n;
		bytes += stream.size();
		// the target may close at once: no verdict on the send
		(void)!send(s.fd, stream.data(), stream.size(), MSG_NOSIGNAL);
		timeval tv = {0, 200000};
		setsockopt(s.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		while (s.ReadExact(rx, 1)) {
			if (rx.size() > (1u << 20))
				break;
		}
		wirepeer::Outcome o = wirepeer::Judge(rx, crc, s.closed);

		terms += o.terminate;
		closes += s.closed;
		s.ShutWrite();
		c = WaitConn(s.local_port, [](const ConnLine &l) {
			return l.get("state") == "ERROR";
		}, "the QP in ERROR after round " + std::to_string(r));
		Require(c.get("guard") == "ok" && c.get("recv_guard") == "ok",
			"round " + std::to_string(r) + " (seed " +
			std::to_string(opt.seed) + "): a canary was hit");
	}
	std::cout << "    # fuzz_rx_streams: rounds " << opt.fuzz << " seed "
		  << opt.seed << " frames " << frames << " bytes " << bytes
		  << " terminates_first " << terms << " closed " << closes
		  << "\n";
}

std::vector<Case> Cases()
{
	if (opt.only_fuzz)
		return {{"fuzz_rx_streams", FuzzRx}};
	std::vector<Case> cases = {
	{"read_responses_within_mss", ReadWithinMss},
	{"mpa_bad_key", [] {
		MpaCase(wirepeer::MpaRequest(MPA_REVISION_2, false, false, 4,
					     "MPA ID Rep Frame"), false);
	}},
	{"mpa_bad_revision", [] {
		MpaCase(wirepeer::MpaRequest(3, false, false, 4), false);
	}},
	{"mpa_markers", [] {
		MpaCase(wirepeer::MpaRequest(MPA_REVISION_2, false, true, 4),
			false);
	}},
	{"mpa_private_data_too_long", [] {
		MpaCase(wirepeer::MpaRequest(MPA_REVISION_2, false, false,
					     MPA_MAX_PRIVDATA + 1), false);
	}},
	{"mpa_truncated_request", [] {
		auto r = wirepeer::MpaRequest(MPA_REVISION_2, false, false, 4);

		r.resize(10);
		MpaCase(r, true);
	}},
	{"peer_stops_reading", PeerStopsReading},
	{"mpa_request_trickled", [] {
		Sock s;

		MpaConnect(s, false, true);
		WaitConn(s.local_port, [](const ConnLine &c) {
			return c.get("established") == "1";
		}, "the connection established");
	}},
	{"mpa_silent_peer", [] {
		// A peer that connects and sends nothing holds up no other
		// setup, and is closed once the target's 10 s bound is over.
		Sock silent, s;
		std::vector<std::uint8_t> b;

		silent.Connect();
		auto t0 = std::chrono::steady_clock::now();
		MpaConnect(s, false);
		Require(std::chrono::steady_clock::now() - t0 < 5s,
			"a setup waited behind a silent peer");
		timeval tv = {20, 0};
		setsockopt(silent.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		Require(!silent.ReadExact(b, 1) && silent.closed,
			"the silent peer was not closed within 20 s");
		Require(std::chrono::steady_clock::now() - t0 > 8s,
			"the silent peer was closed before the 10 s bound");
	}},
	{"fpdu_bad_crc", [] {
		FpduCase(true, [](const ConnLine &) {
			auto f = wirepeer::Fpdu(Untagged(RDMAP_SEND, 1), 8,
						true);
			f.back() ^= 0x5a;
			return f;
		}, {true, TERM_LAYER_LLP, 0, LLP_ECODE_CRC});
	}},
	{"stag_unknown", [] {
		FpduCase(false, [](const ConnLine &c) {
			ddp_hdr h = Tagged(c, c.num("to"));

			h.stag += 0x100;	// the next index: not registered
			return wirepeer::Fpdu(h, 16, false);
		}, kTagged(DDP_ECODE_T_INVALID_STAG));
	}},
	{"stag_zero_local_dma_lkey", [] {
		FpduCase(false, [](const ConnLine &c) {
			ddp_hdr h = Tagged(c, c.num("to"));

			h.stag = 0;
			return wirepeer::Fpdu(h, 16, false);
		}, kTagged(DDP_ECODE_T_INVALID_STAG));
	}},
	{"stag_wrong_key", [] {
		FpduCase(false, [](const ConnLine &c) {
			ddp_hdr h = Tagged(c, c.num("to"));

			h.stag ^= 0xff;
			return wirepeer::Fpdu(h, 16, false);
		}, kTagged(DDP_ECODE_T_INVALID_STAG));
	}},
	{"write_past_region_end", [] {
		FpduCase(false, [](const ConnLine &c) {
			return wirepeer::Fpdu(Tagged(c, c.num("to") +
						     c.num("len") - 8), 32,
					      false);
		}, kTagged(DDP_ECODE_T_BASE_BOUNDS));
	}},
	{"write_before_region", [] {
		FpduCase(false, [](const ConnLine &c) {
			return wirepeer::Fpdu(Tagged(c, c.num("to") - 16), 32,
					      false);
		}, kTagged(DDP_ECODE_T_BASE_BOUNDS));
	}},
	{"write_to_wraps", [] {
		FpduCase(false, [](const ConnLine &c) {
			return wirepeer::Fpdu(Tagged(c, ~0ULL - 3), 16, false);
		}, kTagged(DDP_ECODE_T_TO_WRAP));
	}},
	{"write_oversized_mpa_length", [] {
		// 65535 byte ULPDU announced, only the header sent.
		FpduCase(false, [](const ConnLine &c) {
			auto f = wirepeer::Fpdu(Tagged(c, c.num("to")),
						0xffff - DDP_TAGGED_HDR_LEN,
						false);
			f.resize(MPA_FPDU_HDR_LEN + DDP_TAGGED_HDR_LEN);
			return f;
		}, kTagged(DDP_ECODE_T_BASE_BOUNDS));
	}},
	{"read_request_oversized", [] {
		FpduCase(false, [](const ConnLine &c) {
			ddp_hdr h = Untagged(RDMAP_READ_REQ, 1);

			h.sink_stag = 0x1000;
			h.read_size = 2 * c.num("len");
			h.src_stag = static_cast<u32>(c.num("stag"));
			h.src_to = c.num("to");
			return wirepeer::Fpdu(h, 0, false);
		}, {true, TERM_LAYER_RDMAP, RDMAP_ETYPE_REMOTE_PROTECTION,
		    RDMAP_ECODE_BASE_BOUNDS});
	}},
	{"send_oversized", [] {
		FpduCase(false, [](const ConnLine &c) {
			return wirepeer::Fpdu(Untagged(RDMAP_SEND, 1),
					      c.num("rlen") + 4, false);
		}, {true, TERM_LAYER_DDP, DDP_ETYPE_UNTAGGED,
		    DDP_ECODE_UT_TOO_LONG});
	}},
	{"ulpdu_shorter_than_header", [] {
		FpduCase(false, [](const ConnLine &c) {
			auto f = wirepeer::Fpdu(Tagged(c, c.num("to")), 0,
						false);
			f[0] = 0;
			f[1] = 4;	// MPA length 4 < 14
			return f;
		}, {true, TERM_LAYER_LLP, 0, LLP_ECODE_FPDU_START});
	}},
	{"bad_ddp_version", [] {
		FpduCase(false, [](const ConnLine &c) {
			auto f = wirepeer::Fpdu(Tagged(c, c.num("to")), 16,
						false);
			f[2] = (f[2] & ~3) | 2;	// DDP version 2
			return f;
		}, {true, TERM_LAYER_DDP, -1, -1});
	}},
	{"truncated_fpdu_then_fin", [] {
		FpduCase(false, [](const ConnLine &c) {
			auto f = wirepeer::Fpdu(Tagged(c, c.num("to")), 256,
						false);
			f.resize(f.size() / 2);
			return f;
		}, {false, -1, -1, -1, false}, true);
	}},
	{"truncated_header_then_fin", [] {
		FpduCase(false, [](const ConnLine &) {
			auto f = wirepeer::Fpdu(Untagged(RDMAP_SEND, 1), 8,
						false);
			f.resize(5);
			return f;
		}, {false}, true);
	}},
	};
	if (opt.fuzz)
		cases.push_back({"fuzz_rx_streams", FuzzRx});
	return cases;
}

}  // namespace

int main(int argc, char **argv)
{
	for (int i = 1; i + 1 < argc; i += 2) {
		std::string a = argv[i], v = argv[i + 1];

		if (a == "--addr")
			opt.addr = v;
		else if (a == "--port")
			opt.port = std::stoul(v);
		else if (a == "--conns")
			opt.conns = v;
		else if (a == "--suite")
			opt.suite = v;
		else if (a == "--fpdu-segs-file")
			opt.fpdu_segs = v;
		else if (a == "--fuzz")
			opt.fuzz = std::stoul(v);
		else if (a == "--seed")
			opt.seed = std::stoull(v);
		else if (a == "--only-fuzz")
			opt.only_fuzz = v == "1";
		else if (a == "--takeover")
			opt.takeover = v == "1";
		else if (a == "--local-addr")
			opt.local_addr = v;
		else {
			std::cerr << "usage: kiwarp-wirepeer [--addr A] [--port P] [--conns FILE] [--suite NAME] [--fpdu-segs-file F] [--fuzz ROUNDS] [--seed S] [--only-fuzz 0|1] [--takeover 0|1 [--local-addr A]]\n";
			return 2;
		}
	}
	auto cases = opt.takeover ? TakeoverCases() : Cases();
	int n = 0, failed = 0;

	std::cout << "    KTAP version 1\n    # Subtest: " << opt.suite
		  << "\n    1.." << cases.size() << "\n" << std::flush;
	for (auto &c : cases) {
		std::string err;

		try {
			c.run();
		} catch (const CaseError &e) {
			err = e.msg;
		}
		n++;
		if (err.empty()) {
			std::cout << "    ok " << n << " " << c.name << "\n";
		} else {
			failed++;
			std::cout << "    # " << c.name << ": " << err << "\n"
				  << "    not ok " << n << " " << c.name << "\n";
		}
		std::cout << std::flush;
	}
	std::cout << (failed ? "not ok 1 " : "ok 1 ") << opt.suite << "\n";
	return failed ? 1 : 0;
}
