// SPDX-License-Identifier: GPL-2.0
//
// kiwarp-wirepeer's socket side, shared by its two sets of cases:
// main.cc (malformed frames against kiwarp_wire_target.ko's rdma_cm
// listener) and takeover.cc (the socket takeover path against
// kdapl_wire_target.ko): the options, a case's failure, a TCP socket
// with time-outs, the MPA exchange and FPDU reads.

#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "wire.h"

namespace wirepeer {

using namespace std::chrono_literals;

struct Options {
	std::string addr = "198.51.100.1";
	unsigned port = 7180;
	std::string conns = "/sys/kernel/debug/kiwarp_wire_target/conns";
	std::string suite = "kiwarp_wire_user";
	std::string fpdu_segs = "/sys/module/kiwarp/parameters/fpdu_segs";
	std::string qps = "/sys/kernel/debug/kiwarp/kw0/qps";
	unsigned fuzz = 0;		// rounds of fuzz_rx_streams, 0: none
	std::uint64_t seed = 1;
	bool only_fuzz = false;		// the fuzz case alone
	// --takeover 1: the socket takeover cases (takeover.cc) against
	// kdapl_wire_target.ko instead
	bool takeover = false;
	unsigned ssp_port = 7181;	// the target's SSP listener
	std::string local_addr = "198.51.100.2";	// ours, for its connects
	std::string sessions = "/sys/kernel/debug/kdapl_wire_target/sessions";
	std::string ctl = "/sys/kernel/debug/kdapl_wire_target/ctl";
};

inline Options opt;

class CaseError {
public:
	explicit CaseError(std::string m) : msg(std::move(m)) {}
	std::string msg;
};

inline void Require(bool ok, const std::string &what)
{
	if (!ok)
		throw CaseError(what);
}

class Sock {
public:
	explicit Sock(int mss = 0, int rcvbuf = 0)
	{
		fd = socket(AF_INET, SOCK_STREAM, 0);
		Require(fd >= 0, "socket: " + std::string(strerror(errno)));
		timeval tv = {10, 0};
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		int one = 1;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (mss)
			setsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss,
				   sizeof(mss));
		if (rcvbuf)
			setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf,
				   sizeof(rcvbuf));
	}
	~Sock() { close(fd); }
	Sock(const Sock &) = delete;
	Sock &operator=(const Sock &) = delete;

	// Connect to opt.addr:opt.port (or @port), retrying for 10 s while
	// nobody listens yet.
	void Connect(unsigned port = 0)
	{
		sockaddr_in sin{};
		auto end = std::chrono::steady_clock::now() + 10s;

		sin.sin_family = AF_INET;
		sin.sin_port = htons(port ? port : opt.port);
		Require(inet_pton(AF_INET, opt.addr.c_str(), &sin.sin_addr) == 1,
			"bad address " + opt.addr);
		while (connect(fd, reinterpret_cast<sockaddr *>(&sin),
			       sizeof(sin))) {
			Require(errno == ECONNREFUSED &&
				std::chrono::steady_clock::now() < end,
				"connect: " + std::string(strerror(errno)));
			std::this_thread::sleep_for(100ms);
		}
		socklen_t len = sizeof(sin);
		getsockname(fd, reinterpret_cast<sockaddr *>(&sin), &len);
		local_port = ntohs(sin.sin_port);
	}

	void Send(const std::vector<std::uint8_t> &b)
	{
		Require(!b.empty(), "empty frame (encoding failed)");
		Require(send(fd, b.data(), b.size(), MSG_NOSIGNAL) ==
			static_cast<ssize_t>(b.size()),
			"send: " + std::string(strerror(errno)));
	}

	// Read exactly @n bytes; false on EOF/reset/time-out (see @closed).
	bool ReadExact(std::vector<std::uint8_t> &out, std::size_t n)
	{
		std::size_t have = out.size();

		out.resize(have + n);
		while (n) {
			ssize_t r = recv(fd, out.data() + out.size() - n, n, 0);

			if (r <= 0) {
				closed = r == 0 || errno == ECONNRESET;
				timed_out = r < 0 && (errno == EAGAIN ||
						      errno == EWOULDBLOCK);
				out.resize(out.size() - n);
				return false;
			}
			n -= r;
		}
		return true;
	}

	void ShutWrite() { shutdown(fd, SHUT_WR); }

	int fd;
	unsigned local_port = 0;
	bool closed = false;
	bool timed_out = false;
};

// A complete MPA exchange; returns the negotiated CRC. @trickle: the
// Request one byte at a time, 20 ms apart (the target reads it as it
// comes, never waiting for it: kiwarp's event-driven passive setup).
// Connect and exchange MPA frames (our Request offers no large FPDUs);
// the Reply's CRC is returned, whether it offers large FPDUs in *large.
inline bool MpaConnect(Sock &s, bool crc, bool trickle = false,
		       bool *large = nullptr)
{
	std::vector<std::uint8_t> rep;
	mpa_frame_info fi{};
	u16 pd_len = 0;
	auto req = wirepeer::MpaRequest(MPA_REVISION_2, crc, false,
					MPA_V2_BLOCK_LEN);

	s.Connect();
	if (trickle) {
		for (auto b : req) {
			s.Send({b});
			std::this_thread::sleep_for(20ms);
		}
	} else {
		s.Send(req);
	}
	Require(s.ReadExact(rep, MPA_RR_HDR_LEN), "no MPA Reply");
	fi.kind = MPA_KIND_REPLY;
	Require(mpa_frame_decode_header(rep.data(), rep.size(), &fi,
					&pd_len) == 0, "bad MPA Reply");
	Require(!fi.reject, "MPA Reply rejects");
	Require(pd_len <= MPA_MAX_PRIVDATA, "Reply private data too long");
	Require(s.ReadExact(rep, pd_len), "Reply private data missing");
	Require(fi.crc == crc, "CRC not as asked");
	if (large)
		*large = fi.large_fpdu;
	return fi.crc;
}

// Read one FPDU (or nothing: EOF, reset, time-out).
inline std::vector<std::uint8_t> ReadFpdu(Sock &s)
{
	std::vector<std::uint8_t> b;

	if (!s.ReadExact(b, MPA_FPDU_HDR_LEN))
		return b;
	u16 ulen = (b[0] << 8) | b[1];
	s.ReadExact(b, mpa_fpdu_size(ulen) - MPA_FPDU_HDR_LEN);
	return b;
}

inline ddp_hdr Untagged(std::uint8_t op, std::uint32_t msn)
{
	ddp_hdr h{};

	h.opcode = op;
	h.last = true;
	h.msn = msn;
	return h;
}

struct Case {
	const char *name;
	std::function<void()> run;
};

// One frame of a fuzz stream for the region of @c (stag, to, len),
// valid or not (main.cc).
std::vector<std::uint8_t> FuzzFrame(std::mt19937_64 &rng, const ConnLine &c,
				    bool crc);

// The socket takeover cases (takeover.cc).
std::vector<Case> TakeoverCases();

}  // namespace wirepeer
