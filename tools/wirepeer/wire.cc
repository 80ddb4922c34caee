// SPDX-License-Identifier: GPL-2.0
//
// kiwarp-wirepeer: socket-free helpers (see wire.h).

#include "wire.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <sstream>

namespace wirepeer {

std::string ConnLine::get(const std::string &k) const
{
	auto it = kv.find(k);

	return it == kv.end() ? std::string() : it->second;
}

std::uint64_t ConnLine::num(const std::string &k) const
{
	std::string v = get(k);
	std::uint64_t n = 0;
	int base = 10;
	const char *b = v.data(), *e = v.data() + v.size();

	if (v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
		base = 16;
		b += 2;
	}
	std::from_chars(b, e, n, base);
	return n;
}

static ConnLine ParseLine(std::string_view line)
{
	ConnLine c;
	std::istringstream in{std::string(line)};
	std::string tok;

	while (in >> tok) {
		auto eq = tok.find('=');

		if (eq != std::string::npos)
			c.kv[tok.substr(0, eq)] = tok.substr(eq + 1);
	}
	return c;
}

std::optional<unsigned> ParseRequests(std::string_view file)
{
	std::istringstream in{std::string(file)};
	std::string line;

	while (std::getline(in, line)) {
		ConnLine c = ParseLine(line);

		if (c.kv.contains("requests"))
			return static_cast<unsigned>(c.num("requests"));
	}
	return std::nullopt;
}

std::optional<ConnLine> FindConn(std::string_view file, unsigned port)
{
	std::istringstream in{std::string(file)};
	std::optional<ConnLine> last;
	std::string line;

	while (std::getline(in, line)) {
		ConnLine c = ParseLine(line);

		if (c.kv.contains("port") && c.num("port") == port)
			last = std::move(c);
	}
	return last;
}

std::vector<std::uint8_t> MpaRequest(std::uint8_t rev, bool crc,
				     bool markers, std::uint16_t pd_len,
				     std::string_view key)
{
	std::vector<std::uint8_t> f(MPA_RR_HDR_LEN + pd_len, 0);

	std::memcpy(f.data(), MPA_KEY_REQ, MPA_KEY_LEN);
	if (!key.empty())
		std::memcpy(f.data(), key.data(),
			    std::min<std::size_t>(key.size(), MPA_KEY_LEN));
	f[MPA_RR_OFF_FLAGS] = (crc ? MPA_FLAG_CRC : 0) |
			      (markers ? MPA_FLAG_MARKERS : 0) |
			      (rev == MPA_REVISION_2 ? MPA_FLAG_ENHANCED : 0);
	f[MPA_RR_OFF_REV] = rev;
	f[MPA_RR_OFF_PD_LEN] = pd_len >> 8;
	f[MPA_RR_OFF_PD_LEN + 1] = pd_len & 0xff;
	if (rev == MPA_REVISION_2 && pd_len >= MPA_V2_BLOCK_LEN) {
		f[MPA_RR_HDR_LEN + 1] = 4;	// IRD 4
		f[MPA_RR_HDR_LEN + 3] = 4;	// ORD 4
	}
	return f;
}

std::vector<std::uint8_t> Fpdu(const ddp_hdr &h, std::uint32_t pay, bool crc)
{
	std::vector<std::uint8_t> ulpdu(DDP_HDR_MAX + pay);
	int hlen = ddp_hdr_encode(&h, ulpdu.data(), ulpdu.size());

	if (hlen < 0 || hlen + pay > 0xffff)
		return {};
	std::memset(ulpdu.data() + hlen, 0xab, pay);
	ulpdu.resize(hlen + pay);
	std::vector<std::uint8_t> f(mpa_fpdu_size(ulpdu.size()));
	int n = mpa_fpdu_encode(ulpdu.data(), ulpdu.size(), crc, f.data(),
				f.size());

	if (n < 0)
		return {};
	f.resize(n);
	return f;
}

Outcome Judge(const std::vector<std::uint8_t> &rx, bool crc, bool closed)
{
	Outcome o;
	const u8 *u;
	u16 ulen;
	ddp_hdr h{};
	ddp_err err{};

	o.closed = closed;
	if (rx.empty()) {
		if (!closed)
			o.what = "nothing came back";
		return o;
	}
	int n = mpa_fpdu_decode(rx.data(), rx.size(), crc, 0xffff, &u, &ulen);

	if (n <= 0) {
		o.what = "not an FPDU (" + std::to_string(rx.size()) +
			 " bytes, " + std::to_string(n) + ")";
		return o;
	}
	if (ddp_hdr_decode(u, ulen, &h, &err) <= 0) {
		o.what = "undecodable DDP header";
		return o;
	}
	if (h.opcode != RDMAP_TERMINATE) {
		o.what = "opcode " + std::to_string(h.opcode) +
			 " instead of TERMINATE";
		return o;
	}
	o.terminate = true;
	o.layer = h.term_layer;
	o.etype = h.term_etype;
	o.ecode = h.term_ecode;
	return o;
}

}  // namespace wirepeer
