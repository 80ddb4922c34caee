// SPDX-License-Identifier: GPL-2.0
//
// kiwarp-wirepeer --takeover 1: a hostile peer on the socket takeover
// path (issue 18 item 6) against kdapl_wire_target.ko
// (kunit/kdapl_wire_target.c), whose two sides go through kdapl's
// public DAT API on kw0:
//
//   - its SSP side (dat_iw_ssp_create): we connect to opt.ssp_port, send
//     "STREAM\n" (the streaming phase), read its final message "READY\n"
//     and then speak MPA and DDP - or misbehave;
//   - its active side (dat_iw_socket_connect): we listen on
//     opt.local_addr, write "connect ..." to its ctl file, take its TCP
//     connection, answer "STREAM\n" with "STREAMED\n" and then answer
//     its MPA Request - or misbehave.
//
// Every case then reads the target's line for the connection (debugfs
// "sessions": the DAT events, the EP's state at the end, whether the
// socket came back to the consumer and its fallback to streaming, the
// receives, the canaries) until the session is done, and checks it.

#include <poll.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

#include "peer.h"

namespace wirepeer {
namespace {

std::string ReadSessions()
{
	std::ifstream f(opt.sessions);
	std::stringstream ss;

	ss << f.rdbuf();
	return ss.str();
}

// Poll the target's line for @port until @pred holds (@secs).
ConnLine WaitSession(unsigned port,
		     const std::function<bool(const ConnLine &)> &pred,
		     const std::string &what, int secs = 40)
{
	auto end = std::chrono::steady_clock::now() + std::chrono::seconds(secs);
	std::optional<ConnLine> c;

	for (;;) {
		c = FindConn(ReadSessions(), port);
		if (c && pred(*c))
			return *c;
		if (std::chrono::steady_clock::now() > end)
			break;
		std::this_thread::sleep_for(50ms);
	}
	std::string line;
	if (c)
		for (auto &[k, v] : c->kv)
			line += " " + k + "=" + v;
	throw CaseError("timed out waiting for " + what + " (port " +
			std::to_string(port) + ":" +
			(c ? line : std::string(" no line")) + ")");
}

ConnLine WaitDone(unsigned port)
{
	return WaitSession(port, [](const ConnLine &l) {
		return l.get("done") == "1";
	}, "the session's end");
}

// What every session must end with: the canaries intact, the region
// untouched unless @written, the EP not left connected.
void CheckEnd(const ConnLine &c, bool written = false)
{
	Require(c.get("guard") == "ok", "canary around the region hit");
	Require(c.get("recv_guard") == "ok",
		"canary around the receive buffers hit");
	Require(written || c.get("region") == "clean",
		"bytes placed in the region");
	Require(c.get("state") != "CONNECTED" &&
		c.get("state") != "DISCONNECT_PENDING",
		"the EP ended " + c.get("state"));
}

void Expect(const ConnLine &c, const std::string &k, const std::string &v)
{
	Require(c.get(k) == v, k + "=" + c.get(k) + ", want " + v);
}

// Our FIN ends the connected session of @port gracefully: its last
// event DISCONNECTED, the EP DISCONNECTED, CheckEnd() (@written: the
// case wrote the region). Returns the line.
ConnLine FinDisconnects(Sock &s, unsigned port, bool written = false)
{
	s.ShutWrite();
	ConnLine c = WaitDone(port);

	Expect(c, "end", "disconnected");
	Expect(c, "state", "DISCONNECTED");
	CheckEnd(c, written);
	return c;
}

std::vector<std::uint8_t> Bytes(std::string_view s)
{
	return {s.begin(), s.end()};
}

// Read exactly @what from @s.
void ReadIs(Sock &s, std::string_view what, const std::string &ctx)
{
	std::vector<std::uint8_t> b;

	Require(s.ReadExact(b, what.size()), ctx + ": nothing read (" +
		(s.closed ? "closed" : "timed out") + ")");
	Require(std::string(b.begin(), b.end()) == what,
		ctx + ": read \"" + std::string(b.begin(), b.end()) +
		"\", want \"" + std::string(what) + "\"");
}

// An MPA frame's header and private data from @s (@kind expected).
mpa_frame_info ReadMpa(Sock &s, mpa_frame_kind kind, std::string *pd)
{
	std::vector<std::uint8_t> b;
	mpa_frame_info fi{};
	u16 pd_len = 0;

	Require(s.ReadExact(b, MPA_RR_HDR_LEN), "no MPA frame");
	fi.kind = kind;
	Require(mpa_frame_decode_header(b.data(), b.size(), &fi, &pd_len) == 0,
		"bad MPA frame");
	Require(s.ReadExact(b, pd_len), "MPA private data missing");
	if (fi.v2_enhanced)
		Require(mpa_frame_decode_v2(b.data() + MPA_RR_HDR_LEN, pd_len,
					    &fi) == 0, "bad RFC 6581 block");
	if (pd) {
		std::size_t off = MPA_RR_HDR_LEN +
				  (fi.v2_enhanced ? MPA_V2_BLOCK_LEN : 0);
		pd->assign(b.begin() + off, b.end());
	}
	return fi;
}

std::vector<std::uint8_t> EncodeMpa(const mpa_frame_info &fi,
				    std::string_view pd)
{
	std::vector<std::uint8_t> b(MPA_RR_HDR_LEN + MPA_MAX_PRIVDATA);
	int n = mpa_frame_encode(&fi, pd.data(), pd.size(), b.data(),
				 b.size());

	Require(n > 0, "cannot encode the MPA frame");
	b.resize(n);
	return b;
}

// Our MPA Request: revision 2, RFC 6581 block with @ird/@ord.
std::vector<std::uint8_t> Request(bool crc, u16 ird = 4, u16 ord = 4)
{
	mpa_frame_info fi{};

	fi.kind = MPA_KIND_REQUEST;
	fi.rev = MPA_REVISION_2;
	fi.crc = crc;
	fi.v2_enhanced = true;
	fi.ird = ird;
	fi.ord = ord;
	return EncodeMpa(fi, "hostile");
}

std::vector<std::uint8_t> Send32(std::uint32_t msn, bool crc)
{
	return Fpdu(Untagged(RDMAP_SEND, msn), 32, crc);
}

// The target's first message once connected: a Send of its region's
// STag, TO and length (big endian), which must match its line @c.
void ReadAdvert(Sock &s, bool crc, const ConnLine &c)
{
	std::vector<std::uint8_t> f = ReadFpdu(s);
	const u8 *u;
	u16 ulen;
	ddp_hdr h{};
	ddp_err err{};
	int hl;

	Require(!f.empty(), "no advertisement from the target (" +
		std::string(s.closed ? "closed" : "timed out") + ")");
	Require(mpa_fpdu_decode(f.data(), f.size(), crc, 0xffff, &u,
				&ulen) > 0, "bad FPDU instead of the advertisement");
	hl = ddp_hdr_decode(u, ulen, &h, &err);
	Require(hl > 0 && h.opcode == RDMAP_SEND && ulen - hl == 16,
		"the first FPDU is not the 16-byte advertisement");
	const u8 *p = u + hl;
	std::uint32_t stag = (p[0] << 24) | (p[1] << 16) | (p[2] << 8) | p[3];
	std::uint64_t to = 0;
	for (int i = 4; i < 12; i++)
		to = to << 8 | p[i];
	std::uint32_t len = (p[12] << 24) | (p[13] << 16) | (p[14] << 8) | p[15];
	Require(stag == c.num("stag") && to == c.num("to") &&
		len == c.num("len"), "the advertisement is not the region's");
}

// The session of @port established and its advertisement read from @s:
// the target's line, for the region's STag and TO.
ConnLine Established(Sock &s, unsigned port, bool crc)
{
	ConnLine c = WaitSession(port, [](const ConnLine &l) {
		return l.get("phase") == "established";
	}, "the connection established");

	ReadAdvert(s, crc, c);
	return c;
}

// The first 16 bytes of the 32-byte Send, as the target's rhead shows
constexpr const char *kSendHead = "abababababababababababababababab";

// --- the SSP side ------------------------------------------------------

// Connect to the SSP side and stream; READY is read unless @ready is
// false (a case that sends more before it).
void SspStream(Sock &s, bool ready = true)
{
	s.Connect(opt.ssp_port);
	s.Send(Bytes("STREAM\n"));
	if (ready)
		ReadIs(s, "READY\n", "the SSP's final message");
}

// After our Request: the Reply accepts with "ACCEPTED"; returns it.
mpa_frame_info SspReply(Sock &s)
{
	std::string pd;
	mpa_frame_info fi = ReadMpa(s, MPA_KIND_REPLY, &pd);

	Require(!fi.reject, "the Reply rejects");
	Require(pd == "ACCEPTED", "Reply private data \"" + pd + "\"");
	return fi;
}

// A Send after the takeover arrives whole; an RDMA Write lands in the
// region; our FIN ends the connection gracefully.
void SspValid()
{
	Sock s;

	SspStream(s);
	s.Send(Request(false));
	SspReply(s);
	ConnLine c = Established(s, s.local_port, false);
	s.Send(Send32(1, false));
	ddp_hdr w{};
	w.opcode = RDMAP_WRITE;
	w.last = true;
	w.stag = static_cast<u32>(c.num("stag"));
	w.to = c.num("to") + 100;
	s.Send(Fpdu(w, 64, false));
	c = WaitSession(s.local_port, [](const ConnLine &l) {
		return l.num("recvs") >= 1;
	}, "the Send received");
	Expect(c, "rlen", "32");
	Expect(c, "rhead", kSendHead);
	c = FinDisconnects(s, s.local_port, true);
	Expect(c, "ev", "request");
	Expect(c, "conn", "established");
	Expect(c, "recvs", "1");
	Expect(c, "advert", "sent");
	Require(c.get("region") == "dirty", "the RDMA Write was not placed");
}

// The Request and a first Send in the same segment as the last streaming
// bytes, before the SSP existed: nothing of it may be lost.
void SspRequestEarly()
{
	Sock s;
	auto b = Bytes("STREAM\n");
	auto r = Request(false);
	auto f = Send32(1, false);

	b.insert(b.end(), r.begin(), r.end());
	b.insert(b.end(), f.begin(), f.end());
	SspStream(s, false);	// "STREAM\n" is in @b
	s.Send(std::vector<std::uint8_t>(b.begin() + 7, b.end()));
	ReadIs(s, "READY\n", "the SSP's final message");
	SspReply(s);
	ConnLine c = WaitSession(s.local_port, [](const ConnLine &l) {
		return l.num("recvs") >= 1;
	}, "the early Send received");
	Expect(c, "rhead", kSendHead);
	FinDisconnects(s, s.local_port);
}

// Not MPA after the final message: SOCKET_DOWN, the socket back with
// the consumer, who falls back to streaming on it.
void SspNotMpa()
{
	Sock s;

	SspStream(s);
	s.Send(Bytes("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
	ReadIs(s, "FALLBACK\n", "the consumer's fallback");
	ConnLine c = WaitDone(s.local_port);
	Expect(c, "ev", "socket_down");
	Expect(c, "returned", "1");
	Expect(c, "fallback", "9");
	Expect(c, "conn", "none");
	CheckEnd(c);
}

// Close @s with a reset (SO_LINGER 0); returns its local port.
unsigned ResetClose(Sock &s)
{
	linger l = {1, 0};
	unsigned port = s.local_port;

	setsockopt(s.fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	close(s.fd);
	s.fd = socket(AF_INET, SOCK_STREAM, 0);	// for ~Sock
	return port;
}

// Part of a Request, then FIN or a reset: SOCKET_DOWN, nothing made.
void SspTruncated(bool reset)
{
	Sock s;
	auto r = Request(false);

	SspStream(s);
	r.resize(12);
	s.Send(r);
	if (reset) {
		ConnLine c = WaitDone(ResetClose(s));
		Expect(c, "ev", "socket_down");
		Expect(c, "conn", "none");
		CheckEnd(c);
		return;
	}
	s.ShutWrite();
	ConnLine c = WaitDone(s.local_port);
	Expect(c, "ev", "socket_down");
	Expect(c, "conn", "none");
	CheckEnd(c);
}

// A 64-byte Read Request of the region @c advertises gets its Read
// Response.
void ReadAnswered(Sock &s, const ConnLine &c, bool crc)
{
	ddp_hdr h = Untagged(RDMAP_READ_REQ, 1);
	const u8 *u;
	u16 ulen;
	ddp_hdr r{};
	ddp_err err{};

	h.sink_stag = 0x7700;
	h.sink_to = 0x1000;
	h.read_size = 64;
	h.src_stag = static_cast<u32>(c.num("stag"));
	h.src_to = c.num("to");
	s.Send(Fpdu(h, 0, crc));
	std::vector<std::uint8_t> f = ReadFpdu(s);
	Require(!f.empty() && mpa_fpdu_decode(f.data(), f.size(), crc,
					      0xffff, &u, &ulen) > 0 &&
		ddp_hdr_decode(u, ulen, &r, &err) > 0 &&
		r.opcode == RDMAP_READ_RESP && r.stag == 0x7700,
		"no Read Response");
}

// A session that ended with @ev after our reset: the socket came back
// to the consumer, whose fallback write could not reach us.
void ExpectBackReset(const ConnLine &c, const std::string &ev)
{
	Expect(c, "ev", ev);
	Expect(c, "returned", "1");
	Require(c.get("fallback") != "9", "the fallback reached a reset peer");
	CheckEnd(c);
}

// A reset in the streaming phase: right after our last streaming bytes,
// racing the SSP's creation (@ready false: made on a socket already
// down, or down under it), or once its final message came (@ready: the
// SSP listening). Either way one SOCKET_DOWN, the socket the
// consumer's again (its fallback write fails), nothing made.
void SspReset(bool ready)
{
	Sock s;

	SspStream(s, ready);
	if (!ready)	/* our STREAM on its way, not discarded by the reset */
		std::this_thread::sleep_for(50ms);
	ConnLine c = WaitDone(ResetClose(s));
	Expect(c, "conn", "none");
	ExpectBackReset(c, "socket_down");
}

// RFC 6581 values at their 14-bit maximum: the Reply caps both at what
// the target's EP has, and an RDMA Read within them works.
void SspIrdOrdMax()
{
	Sock s;

	SspStream(s);
	s.Send(Request(false, MPA_V2_IRD_ORD_MAX, MPA_V2_IRD_ORD_MAX));
	mpa_frame_info fi = SspReply(s);
	Require(fi.v2_enhanced, "the Reply has no RFC 6581 block");
	Require(fi.ird >= 1 && fi.ird <= 32 && fi.ord <= 32,
		"Reply IRD/ORD " + std::to_string(fi.ird) + "/" +
		std::to_string(fi.ord) + ", want 1..32 / <= 32");
	ConnLine c = Established(s, s.local_port, false);
	ReadAnswered(s, c, false);
	FinDisconnects(s, s.local_port);
}

// We asked for ORD 0 (we issue no Reads), so the target gives us no
// IRD; a Read Request anyway is more than it takes: TERMINATE, the
// connection BROKEN, nothing placed.
void SspReadBeyondIrd()
{
	Sock s;

	SspStream(s);
	s.Send(Request(false, 4, 0));
	mpa_frame_info fi = SspReply(s);
	Require(fi.ird == 0, "Reply IRD " + std::to_string(fi.ird) +
		" after our ORD 0");
	ConnLine c = Established(s, s.local_port, false);
	ddp_hdr h = Untagged(RDMAP_READ_REQ, 1);
	h.sink_stag = 0x7700;
	h.read_size = 64;
	h.src_stag = static_cast<u32>(c.num("stag"));
	h.src_to = c.num("to");
	s.Send(Fpdu(h, 0, false));
	Outcome o = Judge(ReadFpdu(s), false, s.closed);
	Require(o.terminate, "no TERMINATE: " + o.what);
	Require(o.layer == TERM_LAYER_DDP && o.etype == DDP_ETYPE_UNTAGGED &&
		o.ecode == DDP_ECODE_UT_NO_BUFFER, "TERMINATE " +
		std::to_string(o.layer) + "/" + std::to_string(o.etype) + "/" +
		std::to_string(o.ecode));
	c = WaitDone(s.local_port);
	Expect(c, "end", "broken");
	CheckEnd(c);
}

// CRC asked for in the Request; an FPDU with a bad CRC after the
// takeover: TERMINATE (LLP, CRC), BROKEN, nothing received.
void SspBadCrc()
{
	Sock s;

	SspStream(s);
	s.Send(Request(true));
	mpa_frame_info fi = SspReply(s);
	Require(fi.crc, "the Reply turned CRC off");
	Established(s, s.local_port, true);
	auto f = Send32(1, true);
	f.back() ^= 0x5a;
	s.Send(f);
	Outcome o = Judge(ReadFpdu(s), true, s.closed);
	Require(o.terminate && o.layer == TERM_LAYER_LLP &&
		o.ecode == LLP_ECODE_CRC, "no TERMINATE for the CRC: " + o.what);
	ConnLine c = WaitDone(s.local_port);
	Expect(c, "end", "broken");
	Expect(c, "recvs", "0");
	CheckEnd(c);
}

// Random FPDU streams on taken-over sockets (the fuzz of main.cc's
// fuzz_rx_streams): whatever comes, the session ends with the canaries
// intact and the EP not connected.
void SspFuzz()
{
	std::mt19937_64 rng(opt.seed);

	for (unsigned r = 0; r < 10; r++) {
		Sock s;
		bool crc = rng() & 1;
		std::vector<std::uint8_t> stream, rx;

		SspStream(s);
		s.Send(Request(crc));
		SspReply(s);
		ConnLine c = Established(s, s.local_port, crc);
		for (unsigned i = 1 + rng() % 8; i; i--) {
			auto f = FuzzFrame(rng, c, crc);

			stream.insert(stream.end(), f.begin(), f.end());
		}
		(void)!send(s.fd, stream.data(), stream.size(), MSG_NOSIGNAL);
		timeval tv = {0, 200000};
		setsockopt(s.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		while (s.ReadExact(rx, 1) && rx.size() < (1u << 20))
			;
		s.ShutWrite();
		c = WaitDone(s.local_port);
		Require(c.get("guard") == "ok" && c.get("recv_guard") == "ok",
			"round " + std::to_string(r) + " (seed " +
			std::to_string(opt.seed) + "): a canary was hit");
		Require(c.get("state") != "CONNECTED",
			"round " + std::to_string(r) + ": the EP ended CONNECTED");
	}
}

// --- the active side ---------------------------------------------------

// A listener of ours the target's connect comes to.
class Listener {
public:
	explicit Listener(unsigned port) : port(port)
	{
		fd = socket(AF_INET, SOCK_STREAM, 0);
		Require(fd >= 0, "socket");
		int one = 1;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		sockaddr_in sin{};
		sin.sin_family = AF_INET;
		sin.sin_port = htons(port);
		inet_pton(AF_INET, opt.local_addr.c_str(), &sin.sin_addr);
		Require(bind(fd, reinterpret_cast<sockaddr *>(&sin),
			     sizeof(sin)) == 0 && listen(fd, 1) == 0,
			"listen on " + opt.local_addr + ":" +
			std::to_string(port) + ": " + strerror(errno));
	}
	~Listener() { close(fd); }

	// Ask the target to connect (its connect's @timeout_ms), take the
	// connection into @s and do the streaming phase.
	void Take(Sock &s, unsigned timeout_ms)
	{
		std::ofstream ctl(opt.ctl);

		ctl << "connect " << opt.local_addr << " " << port << " "
		    << timeout_ms << "\n";
		ctl.close();
		Require(!ctl.fail(), "cannot write " + opt.ctl);
		pollfd p = {fd, POLLIN, 0};
		Require(poll(&p, 1, 10000) == 1, "the target did not connect");
		close(s.fd);
		s.fd = accept(fd, nullptr, nullptr);
		Require(s.fd >= 0, "accept");
		timeval tv = {10, 0};
		setsockopt(s.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		ReadIs(s, "STREAM\n", "the target's streaming");
		s.Send(Bytes("STREAMED\n"));
	}

	int fd;
	unsigned port;
};

unsigned next_port = 7300;

// The target's Request: revision 2, "REQUEST!" after the RFC 6581 block.
mpa_frame_info TakeRequest(Sock &s)
{
	std::string pd;
	mpa_frame_info fi = ReadMpa(s, MPA_KIND_REQUEST, &pd);

	Require(pd == "REQUEST!", "Request private data \"" + pd + "\"");
	return fi;
}

std::vector<std::uint8_t> Reply(const mpa_frame_info &req, bool reject,
				std::string_view pd)
{
	mpa_frame_info fi{};

	fi.kind = MPA_KIND_REPLY;
	fi.rev = MPA_REVISION_2;
	fi.crc = req.crc;
	fi.reject = reject;
	fi.v2_enhanced = req.v2_enhanced;
	fi.ird = std::min<u16>(req.ord, 4);
	fi.ord = std::min<u16>(req.ird, 4);
	return EncodeMpa(fi, pd);
}

void ConnectValid()
{
	Listener l(next_port++);
	Sock s;

	l.Take(s, 5000);
	auto req = TakeRequest(s);
	s.Send(Reply(req, false, "HELLO"));
	ConnLine c = Established(s, l.port, req.crc);
	s.Send(Send32(1, req.crc));
	c = WaitSession(l.port, [](const ConnLine &x) {
		return x.num("recvs") >= 1;
	}, "the Send received");
	Expect(c, "rhead", kSendHead);
	c = FinDisconnects(s, l.port);
	Expect(c, "ev", "established");
}

// A Reply (RFC 6581 block) with our IRD @ird and ORD @ord, to a Request
// that had the block.
std::vector<std::uint8_t> ReplyIrdOrd(const mpa_frame_info &req, u16 ird,
				      u16 ord)
{
	mpa_frame_info fi{};

	Require(req.v2_enhanced, "the Request has no RFC 6581 block");
	fi.kind = MPA_KIND_REPLY;
	fi.rev = MPA_REVISION_2;
	fi.crc = req.crc;
	fi.v2_enhanced = true;
	fi.ird = ird;
	fi.ord = ord;
	return EncodeMpa(fi, "");
}

// A Reply with our IRD @ird and ORD @ord: the target keeps the IRD it
// offered and lowers its ORD to our IRD at most (RFC 6581), as
// dat_ep_query shows; a Read Request within its IRD is answered. At the
// largest values the block encodes, and at 0.
void ConnectIrdOrd(u16 ird, u16 ord)
{
	Listener l(next_port++);
	Sock s;

	l.Take(s, 5000);
	auto req = TakeRequest(s);
	u16 want = std::min(req.ord, ird);
	s.Send(ReplyIrdOrd(req, ird, ord));
	ConnLine c = Established(s, l.port, req.crc);
	Require(c.num("ird") == req.ird && c.num("ord") == want,
		"the EP's IRD/ORD " + c.get("ird") + "/" + c.get("ord") +
		", want " + std::to_string(req.ird) + "/" +
		std::to_string(want));
	Require(req.ird >= 1, "the target offered no IRD");
	ReadAnswered(s, c, req.crc);
	c = FinDisconnects(s, l.port);
	Expect(c, "ev", "established");
}

// A reset where the target waits for our Reply: NON_PEER_REJECTED, the
// socket back with the consumer (dead: its fallback write fails).
void ConnectResetDuringMpa()
{
	Listener l(next_port++);
	Sock s;

	l.Take(s, 5000);
	TakeRequest(s);
	ResetClose(s);
	ConnLine c = WaitDone(l.port);
	Expect(c, "state", "DISCONNECTED");
	ExpectBackReset(c, "non_peer_rejected");
}

// A reset right after our streaming bytes, racing dat_iw_socket_connect:
// refused (DAT_INVALID_STATE on a socket already down) or
// NON_PEER_REJECTED; no connection, nothing placed.
void ConnectResetWhileStreaming()
{
	Listener l(next_port++);
	Sock s;

	l.Take(s, 5000);
	std::this_thread::sleep_for(20ms);	/* STREAMED not discarded */
	ResetClose(s);
	ConnLine c = WaitDone(l.port);
	Require(c.get("phase") == "connect_failed" ||
		c.get("ev") == "non_peer_rejected",
		"phase=" + c.get("phase") + " ev=" + c.get("ev") +
		", want connect_failed or non_peer_rejected");
	Require(c.get("conn") == "none" && c.get("ird") == "-1",
		"a connection came up");
	CheckEnd(c);
}

// A Reply the target cannot take: @event, the socket back with the
// consumer and (when @fallback) usable: its "FALLBACK\n" reaches us.
void ConnectBad(const std::function<std::vector<std::uint8_t>(
			const mpa_frame_info &)> &reply,
		const std::string &event, bool fallback,
		unsigned timeout_ms = 5000, bool fin = false)
{
	Listener l(next_port++);
	Sock s;

	l.Take(s, timeout_ms);
	auto req = TakeRequest(s);
	auto r = reply(req);
	if (!r.empty())
		s.Send(r);
	if (fin)
		s.ShutWrite();
	if (fallback)
		ReadIs(s, "FALLBACK\n", "the consumer's fallback");
	ConnLine c = WaitDone(l.port);
	Expect(c, "ev", event);
	Expect(c, "returned", "1");
	if (fallback)
		Expect(c, "fallback", "9");
	Expect(c, "state", "DISCONNECTED");
	CheckEnd(c);
}

}  // namespace

std::vector<Case> TakeoverCases()
{
	return {
	{"ssp_valid_send_write_fin", SspValid},
	{"ssp_request_with_streaming_bytes", SspRequestEarly},
	{"ssp_not_mpa_falls_back", SspNotMpa},
	{"ssp_request_truncated_then_fin", [] { SspTruncated(false); }},
	{"ssp_request_truncated_then_reset", [] { SspTruncated(true); }},
	{"ssp_reset_while_streaming", [] { SspReset(false); }},
	{"ssp_reset_after_final_message", [] { SspReset(true); }},
	{"ssp_ird_ord_at_rfc6581_max", SspIrdOrdMax},
	{"ssp_read_beyond_ird_terminates", SspReadBeyondIrd},
	{"ssp_bad_crc_after_takeover", SspBadCrc},
	{"ssp_fuzz_after_takeover", SspFuzz},
	{"connect_valid", ConnectValid},
	{"connect_reply_ird_ord_max", [] {
		ConnectIrdOrd(MPA_V2_IRD_ORD_MAX, MPA_V2_IRD_ORD_MAX);
	}},
	{"connect_reply_ird_zero", [] { ConnectIrdOrd(0, 0); }},
	{"connect_reset_during_mpa", ConnectResetDuringMpa},
	{"connect_reset_while_streaming", ConnectResetWhileStreaming},
	{"connect_reply_bad_key", [] {
		ConnectBad([](const mpa_frame_info &req) {
			auto r = Reply(req, false, "");
			std::memcpy(r.data(), "MPA ID Req Frame", MPA_KEY_LEN);
			return r;
		}, "non_peer_rejected", true);
	}},
	{"connect_reply_peer_to_peer_unasked", [] {
		ConnectBad([](const mpa_frame_info &req) {
			auto r = Reply(req, false, "");
			r[MPA_RR_HDR_LEN] |= MPA_V2_PEER_TO_PEER >> 8;
			r[MPA_RR_HDR_LEN + 2] |= MPA_V2_RDMA_WRITE_RTR >> 8;
			return r;
		}, "non_peer_rejected", true);
	}},
	{"connect_peer_rejects", [] {
		ConnectBad([](const mpa_frame_info &req) {
			return Reply(req, true, "NO");
		}, "peer_rejected", true);
	}},
	{"connect_silent_peer_times_out", [] {
		ConnectBad([](const mpa_frame_info &) {
			return std::vector<std::uint8_t>();
		}, "timed_out", true, 1500);
	}},
	{"connect_reply_truncated_then_fin", [] {
		ConnectBad([](const mpa_frame_info &req) {
			auto r = Reply(req, false, "");
			r.resize(9);
			return r;
		}, "non_peer_rejected", false, 5000, true);
	}},
	};
}

}  // namespace wirepeer
