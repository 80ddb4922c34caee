// SPDX-License-Identifier: GPL-2.0
//
// Host tests for iw_provider/proto/mpa.c. Mirrors kunit/kiwarp_mpa_test.c
// and adds randomised decoder/negotiation checks; built with ASan and
// UBSan so any out-of-bounds access or UB aborts the test.

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include <gtest/gtest.h>

extern "C" {
#include "mpa.h"
}

namespace {

constexpr size_t kFrameMax = MPA_RR_HDR_LEN + MPA_MAX_PRIVDATA;

mpa_frame_info Info(mpa_frame_kind kind, u8 rev)
{
	mpa_frame_info fi{};
	fi.kind = kind;
	fi.rev = rev;
	return fi;
}

// Exactly @n heap bytes, so ASan flags any access past the end.
std::unique_ptr<u8[]> Exact(const u8 *src, size_t n)
{
	std::unique_ptr<u8[]> p(new u8[n]);
	if (n)
		std::memcpy(p.get(), src, n);
	return p;
}

TEST(Mpa, RoundTripRev1)
{
	static const u8 pd[] = "hello";
	mpa_frame_info fi = Info(MPA_KIND_REQUEST, MPA_REVISION_1);
	fi.crc = true;
	std::vector<u8> buf(kFrameMax);

	int len = mpa_frame_encode(&fi, pd, sizeof(pd), buf.data(), buf.size());
	ASSERT_EQ(len, int(MPA_RR_HDR_LEN + sizeof(pd)));

	mpa_frame_info out = Info(MPA_KIND_REQUEST, 0);
	u16 total = 0;
	auto exact = Exact(buf.data(), len);
	ASSERT_EQ(mpa_frame_decode_header(exact.get(), len, &out, &total), 0);
	EXPECT_EQ(out.kind, MPA_KIND_REQUEST);
	EXPECT_EQ(out.rev, MPA_REVISION_1);
	EXPECT_TRUE(out.crc);
	EXPECT_FALSE(out.markers);
	EXPECT_FALSE(out.reject);
	EXPECT_FALSE(out.v2_enhanced);
	EXPECT_EQ(total, sizeof(pd));
	EXPECT_EQ(out.pd_len, sizeof(pd));
	EXPECT_EQ(std::memcmp(exact.get() + MPA_RR_HDR_LEN, pd, sizeof(pd)), 0);
	EXPECT_EQ(mpa_frame_decode_v2(exact.get() + MPA_RR_HDR_LEN, total,
				      &out), -EINVAL);
}

TEST(Mpa, RoundTripRev2)
{
	static const u8 pd[] = {1, 2, 3};
	mpa_frame_info fi = Info(MPA_KIND_REPLY, MPA_REVISION_2);
	fi.v2_enhanced = true;
	fi.ird = 5;
	fi.ord = MPA_V2_IRD_ORD_MAX;
	fi.p2p = true;
	fi.read_rtr = true;
	std::vector<u8> buf(kFrameMax);

	int len = mpa_frame_encode(&fi, pd, sizeof(pd), buf.data(), buf.size());
	ASSERT_EQ(len, int(MPA_RR_HDR_LEN + MPA_V2_BLOCK_LEN + sizeof(pd)));

	mpa_frame_info out = Info(MPA_KIND_ANY, 0);
	u16 total = 0;
	auto exact = Exact(buf.data(), len);
	ASSERT_EQ(mpa_frame_decode_header(exact.get(), len, &out, &total), 0);
	EXPECT_EQ(out.kind, MPA_KIND_REPLY);
	EXPECT_EQ(out.rev, MPA_REVISION_2);
	EXPECT_TRUE(out.v2_enhanced);
	EXPECT_FALSE(out.crc);
	EXPECT_EQ(total, MPA_V2_BLOCK_LEN + sizeof(pd));
	EXPECT_EQ(out.pd_len, sizeof(pd));

	ASSERT_EQ(mpa_frame_decode_v2(exact.get() + MPA_RR_HDR_LEN, total,
				      &out), 0);
	EXPECT_EQ(out.ird, 5);
	EXPECT_EQ(out.ord, MPA_V2_IRD_ORD_MAX);
	EXPECT_TRUE(out.p2p);
	EXPECT_FALSE(out.zero_len_rtr);
	EXPECT_FALSE(out.write_rtr);
	EXPECT_TRUE(out.read_rtr);
	EXPECT_EQ(std::memcmp(exact.get() + MPA_RR_HDR_LEN + MPA_V2_BLOCK_LEN,
			      pd, sizeof(pd)), 0);
}

TEST(Mpa, HeaderBytes)
{
	static const u8 pd[] = {0xaa, 0xbb};
	static const u8 expect_v2[] = {
		'M', 'P', 'A', ' ', 'I', 'D', ' ', 'R',
		'e', 'q', ' ', 'F', 'r', 'a', 'm', 'e',
		0x50,		// C | E
		0x02,		// rev 2
		0x00, 0x06,	// PD_Length: 4 byte block + 2
		0x80, 0x10,	// P | IRD 16
		0xc0, 0x20,	// W | R | ORD 32
		0xaa, 0xbb,
	};
	static const u8 expect_v1[] = {
		'M', 'P', 'A', ' ', 'I', 'D', ' ', 'R',
		'e', 'p', ' ', 'F', 'r', 'a', 'm', 'e',
		0xa0,		// M | R
		0x01,		// rev 1
		0x00, 0x00,	// no private data
	};
	mpa_frame_info req = Info(MPA_KIND_REQUEST, MPA_REVISION_2);
	req.crc = true;
	req.v2_enhanced = true;
	req.ird = 16;
	req.ord = 32;
	req.p2p = true;
	req.write_rtr = true;
	req.read_rtr = true;
	mpa_frame_info rep = Info(MPA_KIND_REPLY, MPA_REVISION_1);
	rep.markers = true;
	rep.reject = true;
	std::vector<u8> buf(kFrameMax);

	ASSERT_EQ(mpa_frame_encode(&req, pd, sizeof(pd), buf.data(),
				   buf.size()), int(sizeof(expect_v2)));
	EXPECT_TRUE(std::equal(expect_v2, expect_v2 + sizeof(expect_v2),
			       buf.begin()));

	ASSERT_EQ(mpa_frame_encode(&rep, nullptr, 0, buf.data(), buf.size()),
		  int(sizeof(expect_v1)));
	EXPECT_TRUE(std::equal(expect_v1, expect_v1 + sizeof(expect_v1),
			       buf.begin()));
}

TEST(Mpa, BadKey)
{
	mpa_frame_info fi = Info(MPA_KIND_REQUEST, MPA_REVISION_1);
	std::vector<u8> buf(kFrameMax);
	int len = mpa_frame_encode(&fi, nullptr, 0, buf.data(), buf.size());
	ASSERT_EQ(len, MPA_RR_HDR_LEN);

	mpa_frame_info out = Info(MPA_KIND_REPLY, 0);
	EXPECT_EQ(mpa_frame_decode_header(buf.data(), len, &out, nullptr),
		  -EPROTO);
	EXPECT_EQ(out.kind, MPA_KIND_REPLY);	// untouched on error

	buf[15] = 'E';
	out.kind = MPA_KIND_ANY;
	EXPECT_EQ(mpa_frame_decode_header(buf.data(), len, &out, nullptr),
		  -EPROTO);
	out.kind = MPA_KIND_REQUEST;
	EXPECT_EQ(mpa_frame_decode_header(buf.data(), len, &out, nullptr),
		  -EPROTO);

	// An expected kind that is not a kind at all
	buf[15] = 'e';
	out.kind = static_cast<mpa_frame_kind>(7);
	EXPECT_EQ(mpa_frame_decode_header(buf.data(), len, &out, nullptr),
		  -EINVAL);
}

TEST(Mpa, BadRev)
{
	mpa_frame_info fi = Info(MPA_KIND_REQUEST, MPA_REVISION_2);
	std::vector<u8> buf(kFrameMax);
	int len = mpa_frame_encode(&fi, nullptr, 0, buf.data(), buf.size());
	ASSERT_EQ(len, MPA_RR_HDR_LEN);

	for (u8 rev : {0, 3, 0x10, 0xff}) {
		buf[MPA_RR_OFF_REV] = rev;
		mpa_frame_info out = Info(MPA_KIND_ANY, 0);
		EXPECT_EQ(mpa_frame_decode_header(buf.data(), len, &out,
						  nullptr), -EPROTO) << +rev;
		fi.rev = rev;
		EXPECT_EQ(mpa_frame_encode(&fi, nullptr, 0, buf.data(),
					   buf.size()), -EINVAL) << +rev;
	}

	auto enc = [&](const mpa_frame_info &f) {
		return mpa_frame_encode(&f, nullptr, 0, buf.data(), buf.size());
	};
	fi.rev = MPA_REVISION_1;
	fi.v2_enhanced = true;
	EXPECT_EQ(enc(fi), -EINVAL);
	fi.v2_enhanced = false;
	fi.ird = 1;
	EXPECT_EQ(enc(fi), -EINVAL);
	fi.rev = MPA_REVISION_2;
	EXPECT_EQ(enc(fi), -EINVAL);
	fi.v2_enhanced = true;
	fi.ird = MPA_V2_IRD_ORD_MAX + 1;
	EXPECT_EQ(enc(fi), -EINVAL);
	fi.ird = 1;
	fi.write_rtr = true;
	EXPECT_EQ(enc(fi), -EINVAL);
	fi.write_rtr = false;
	fi.reject = true;
	EXPECT_EQ(enc(fi), -EINVAL);
	fi.reject = false;
	fi.kind = MPA_KIND_ANY;
	EXPECT_EQ(enc(fi), -EINVAL);
	fi.kind = MPA_KIND_REQUEST;
	EXPECT_EQ(mpa_frame_encode(&fi, nullptr, 1, buf.data(), buf.size()),
		  -EINVAL);
	EXPECT_EQ(enc(fi), MPA_RR_HDR_LEN + MPA_V2_BLOCK_LEN);
}

TEST(Mpa, OversizeLen)
{
	mpa_frame_info fi = Info(MPA_KIND_REPLY, MPA_REVISION_2);
	u8 buf[MPA_RR_HDR_LEN];
	ASSERT_EQ(mpa_frame_encode(&fi, nullptr, 0, buf, sizeof(buf)),
		  MPA_RR_HDR_LEN);

	mpa_frame_info out = Info(MPA_KIND_REPLY, 0);
	u16 total = 0;
	put_unaligned_be16(MPA_MAX_PRIVDATA, buf + MPA_RR_OFF_PD_LEN);
	EXPECT_EQ(mpa_frame_decode_header(buf, sizeof(buf), &out, &total), 0);
	EXPECT_EQ(total, MPA_MAX_PRIVDATA);

	put_unaligned_be16(MPA_MAX_PRIVDATA + 1, buf + MPA_RR_OFF_PD_LEN);
	EXPECT_EQ(mpa_frame_decode_header(buf, sizeof(buf), &out, &total),
		  -EPROTO);
	put_unaligned_be16(0xffff, buf + MPA_RR_OFF_PD_LEN);
	EXPECT_EQ(mpa_frame_decode_header(buf, sizeof(buf), &out, &total),
		  -EPROTO);
	EXPECT_EQ(total, MPA_MAX_PRIVDATA);	// untouched on error

	buf[MPA_RR_OFF_FLAGS] = MPA_FLAG_ENHANCED;
	put_unaligned_be16(MPA_V2_BLOCK_LEN - 1, buf + MPA_RR_OFF_PD_LEN);
	EXPECT_EQ(mpa_frame_decode_header(buf, sizeof(buf), &out, &total),
		  -EPROTO);
	buf[MPA_RR_OFF_REV] = MPA_REVISION_1;
	EXPECT_EQ(mpa_frame_decode_header(buf, sizeof(buf), &out, &total), 0);
	EXPECT_FALSE(out.v2_enhanced);
	EXPECT_EQ(out.pd_len, MPA_V2_BLOCK_LEN - 1);
}

TEST(Mpa, ShortBuffer)
{
	static const u8 pd[] = {9, 8, 7, 6};
	mpa_frame_info fi = Info(MPA_KIND_REQUEST, MPA_REVISION_2);
	fi.v2_enhanced = true;
	fi.ird = 1;
	fi.ord = 1;
	const size_t need = MPA_RR_HDR_LEN + MPA_V2_BLOCK_LEN + sizeof(pd);
	std::vector<u8> buf(need);

	EXPECT_EQ(mpa_frame_encode(&fi, pd, sizeof(pd), buf.data(), need - 1),
		  -EMSGSIZE);
	EXPECT_EQ(mpa_frame_encode(&fi, pd, sizeof(pd), buf.data(), 0),
		  -EMSGSIZE);
	EXPECT_EQ(mpa_frame_encode(&fi, pd, sizeof(pd), nullptr, 0),
		  -EMSGSIZE);
	ASSERT_EQ(mpa_frame_encode(&fi, pd, sizeof(pd), buf.data(), need),
		  int(need));

	mpa_frame_info out = Info(MPA_KIND_REQUEST, 0);
	for (size_t i = 0; i < MPA_RR_HDR_LEN; i++) {
		auto exact = Exact(buf.data(), i);
		EXPECT_EQ(mpa_frame_decode_header(exact.get(), i, &out,
						  nullptr), -EAGAIN) << i;
	}
	EXPECT_EQ(mpa_frame_decode_header(nullptr, 0, &out, nullptr), -EAGAIN);
	ASSERT_EQ(mpa_frame_decode_header(buf.data(), MPA_RR_HDR_LEN, &out,
					  nullptr), 0);
	ASSERT_TRUE(out.v2_enhanced);
	for (size_t i = 0; i < MPA_V2_BLOCK_LEN; i++) {
		auto exact = Exact(buf.data() + MPA_RR_HDR_LEN, i);
		EXPECT_EQ(mpa_frame_decode_v2(exact.get(), i, &out), -EPROTO)
			<< i;
	}
	auto exact = Exact(buf.data() + MPA_RR_HDR_LEN, MPA_V2_BLOCK_LEN);
	EXPECT_EQ(mpa_frame_decode_v2(exact.get(), MPA_V2_BLOCK_LEN, &out), 0);
	EXPECT_EQ(out.ird, 1);
	EXPECT_EQ(out.ord, 1);
}

TEST(Mpa, PdLimit)
{
	std::vector<u8> pd(MPA_MAX_PRIVDATA + 1, 0x5a);
	std::vector<u8> buf(kFrameMax + 1);
	mpa_frame_info fi = Info(MPA_KIND_REQUEST, MPA_REVISION_1);
	mpa_frame_info out = Info(MPA_KIND_REQUEST, 0);
	u16 total = 0;

	EXPECT_EQ(mpa_frame_encode(&fi, pd.data(), MPA_MAX_PRIVDATA,
				   buf.data(), buf.size()), int(kFrameMax));
	EXPECT_EQ(mpa_frame_decode_header(buf.data(), kFrameMax, &out, &total),
		  0);
	EXPECT_EQ(total, MPA_MAX_PRIVDATA);
	EXPECT_EQ(mpa_frame_encode(&fi, pd.data(), MPA_MAX_PRIVDATA + 1,
				   buf.data(), buf.size()), -EMSGSIZE);

	fi.rev = MPA_REVISION_2;
	fi.v2_enhanced = true;
	EXPECT_EQ(mpa_frame_encode(&fi, pd.data(),
				   MPA_MAX_PRIVDATA - MPA_V2_BLOCK_LEN,
				   buf.data(), buf.size()), int(kFrameMax));
	EXPECT_EQ(mpa_frame_decode_header(buf.data(), kFrameMax, &out, &total),
		  0);
	EXPECT_EQ(total, MPA_MAX_PRIVDATA);
	EXPECT_EQ(out.pd_len, MPA_MAX_PRIVDATA - MPA_V2_BLOCK_LEN);
	EXPECT_EQ(mpa_frame_encode(&fi, pd.data(),
				   MPA_MAX_PRIVDATA - MPA_V2_BLOCK_LEN + 1,
				   buf.data(), buf.size()), -EMSGSIZE);
	EXPECT_EQ(mpa_frame_encode(&fi, pd.data(), 0xffff, buf.data(),
				   buf.size()), -EMSGSIZE);
}

TEST(Mpa, NegotiateMarkers)
{
	mpa_frame_info req = Info(MPA_KIND_REQUEST, MPA_REVISION_2);
	req.markers = true;
	req.v2_enhanced = true;
	req.ird = 4;
	req.ord = 4;
	mpa_frame_info local = Info(MPA_KIND_ANY, MPA_REVISION_2);
	local.ird = 8;
	local.ord = 8;
	mpa_frame_info reply;
	u8 buf[MPA_RR_HDR_LEN];

	EXPECT_EQ(mpa_negotiate(&req, &local, &reply), -EPROTO);
	EXPECT_EQ(reply.kind, MPA_KIND_REPLY);
	EXPECT_TRUE(reply.reject);
	EXPECT_FALSE(reply.markers);
	EXPECT_FALSE(reply.v2_enhanced);
	EXPECT_EQ(mpa_frame_encode(&reply, nullptr, 0, buf, sizeof(buf)),
		  MPA_RR_HDR_LEN);
	EXPECT_EQ(buf[MPA_RR_OFF_FLAGS], MPA_FLAG_REJECT);

	req.markers = false;
	req.kind = MPA_KIND_REPLY;
	EXPECT_EQ(mpa_negotiate(&req, &local, &reply), -EINVAL);
	EXPECT_TRUE(reply.reject);
}

TEST(Mpa, NegotiateCrc)
{
	mpa_frame_info req = Info(MPA_KIND_REQUEST, MPA_REVISION_1);
	mpa_frame_info local = Info(MPA_KIND_ANY, MPA_REVISION_2);
	mpa_frame_info reply;

	for (bool r : {false, true}) {
		for (bool l : {false, true}) {
			req.crc = r;
			local.crc = l;
			ASSERT_EQ(mpa_negotiate(&req, &local, &reply), 0);
			EXPECT_EQ(reply.crc, r || l);
			EXPECT_FALSE(reply.reject);
			EXPECT_EQ(reply.rev, MPA_REVISION_1);
			EXPECT_FALSE(reply.v2_enhanced);
		}
	}
}

// siw's "GSO frames expected" bit (0x08 of the flags byte, its
// MPA_RR_FLAG_GSO_EXP): encoded, decoded, and the Reply sets it only
// when the Request offered and the responder wants it too.
TEST(Mpa, LargeFpduBit)
{
	mpa_frame_info fi = Info(MPA_KIND_REQUEST, MPA_REVISION_1);
	std::vector<u8> buf(kFrameMax);

	for (bool on : {false, true}) {
		fi.large_fpdu = on;
		fi.crc = true;
		int len = mpa_frame_encode(&fi, nullptr, 0, buf.data(),
					   buf.size());
		ASSERT_EQ(len, int(MPA_RR_HDR_LEN));
		EXPECT_EQ(buf[MPA_RR_OFF_FLAGS], on ? 0x48 : 0x40);
		mpa_frame_info out = Info(MPA_KIND_ANY, 0);
		auto exact = Exact(buf.data(), len);
		ASSERT_EQ(mpa_frame_decode_header(exact.get(), len, &out,
						  nullptr), 0);
		EXPECT_EQ(out.large_fpdu, on);
		EXPECT_TRUE(out.crc);
	}

	mpa_frame_info req = Info(MPA_KIND_REQUEST, MPA_REVISION_2);
	mpa_frame_info local = Info(MPA_KIND_ANY, MPA_REVISION_2);
	mpa_frame_info reply;
	for (bool r : {false, true}) {
		for (bool l : {false, true}) {
			req.large_fpdu = r;
			local.large_fpdu = l;
			ASSERT_EQ(mpa_negotiate(&req, &local, &reply), 0);
			EXPECT_EQ(reply.large_fpdu, r && l);
		}
	}
}

TEST(Mpa, NegotiateIrdOrd)
{
	mpa_frame_info req = Info(MPA_KIND_REQUEST, MPA_REVISION_2);
	req.v2_enhanced = true;
	req.ird = 4;
	req.ord = 16;
	req.p2p = true;
	req.write_rtr = true;
	req.read_rtr = true;
	mpa_frame_info local = Info(MPA_KIND_ANY, MPA_REVISION_2);
	local.ird = 8;
	local.ord = 0xffff;
	local.p2p = true;
	local.write_rtr = true;
	local.read_rtr = true;
	mpa_frame_info reply;

	ASSERT_EQ(mpa_negotiate(&req, &local, &reply), 0);
	EXPECT_EQ(reply.rev, MPA_REVISION_2);
	EXPECT_TRUE(reply.v2_enhanced);
	EXPECT_EQ(reply.ord, 4);
	EXPECT_EQ(reply.ird, 8);
	EXPECT_TRUE(reply.p2p);
	EXPECT_TRUE(reply.write_rtr);
	EXPECT_FALSE(reply.read_rtr);
	EXPECT_FALSE(reply.zero_len_rtr);

	local.write_rtr = false;
	ASSERT_EQ(mpa_negotiate(&req, &local, &reply), 0);
	EXPECT_TRUE(reply.read_rtr);
	EXPECT_FALSE(reply.write_rtr);

	req.ord = 0;
	EXPECT_EQ(mpa_negotiate(&req, &local, &reply), -EPROTO);
	EXPECT_TRUE(reply.reject);

	req.ird = MPA_V2_IRD_ORD_MAX;
	req.ord = MPA_V2_IRD_ORD_MAX;
	local.write_rtr = true;
	ASSERT_EQ(mpa_negotiate(&req, &local, &reply), 0);
	EXPECT_EQ(reply.ord, MPA_V2_IRD_ORD_MAX);
	EXPECT_EQ(reply.ird, 8);

	local.p2p = false;
	EXPECT_EQ(mpa_negotiate(&req, &local, &reply), -EPROTO);
	EXPECT_TRUE(reply.reject);

	req.p2p = false;
	req.write_rtr = false;
	req.read_rtr = false;
	local.p2p = true;
	ASSERT_EQ(mpa_negotiate(&req, &local, &reply), 0);
	EXPECT_FALSE(reply.p2p);
	EXPECT_FALSE(reply.write_rtr);
	EXPECT_FALSE(reply.read_rtr);

	local.rev = MPA_REVISION_1;
	ASSERT_EQ(mpa_negotiate(&req, &local, &reply), 0);
	EXPECT_EQ(reply.rev, MPA_REVISION_1);
	EXPECT_FALSE(reply.v2_enhanced);
	EXPECT_EQ(reply.ird, 0);
	EXPECT_EQ(reply.ord, 0);
}

TEST(Mpa, NegotiateRtrFallback)
{
	mpa_frame_info req = Info(MPA_KIND_REQUEST, MPA_REVISION_2);
	req.v2_enhanced = true;
	req.ird = 1;
	req.ord = 1;
	req.p2p = true;
	mpa_frame_info local = Info(MPA_KIND_ANY, MPA_REVISION_2);
	local.ird = 1;
	local.ord = 1;
	local.p2p = true;
	local.write_rtr = true;
	mpa_frame_info reply;
	u8 buf[MPA_RR_HDR_LEN + MPA_V2_BLOCK_LEN];

	ASSERT_EQ(mpa_negotiate(&req, &local, &reply), 0);
	EXPECT_TRUE(reply.write_rtr);

	req.zero_len_rtr = true;
	local.zero_len_rtr = true;
	ASSERT_EQ(mpa_negotiate(&req, &local, &reply), 0);
	EXPECT_TRUE(reply.zero_len_rtr);
	EXPECT_FALSE(reply.write_rtr);

	ASSERT_EQ(mpa_frame_encode(&reply, nullptr, 0, buf, sizeof(buf)),
		  int(sizeof(buf)));
	EXPECT_EQ(get_unaligned_be16(buf + MPA_RR_HDR_LEN),
		  MPA_V2_PEER_TO_PEER | MPA_V2_ZERO_LENGTH_RTR | 1);
	EXPECT_EQ(get_unaligned_be16(buf + MPA_RR_HDR_LEN + 2), 1);

	local.zero_len_rtr = false;
	EXPECT_EQ(mpa_negotiate(&req, &local, &reply), -EPROTO);
	EXPECT_TRUE(reply.reject);
}

TEST(Mpa, ShimByteOrder)
{
	u8 b[4];
	put_unaligned_be32(0x01020304u, b);
	EXPECT_EQ(b[0], 1);
	EXPECT_EQ(b[3], 4);
	EXPECT_EQ(get_unaligned_be32(b), 0x01020304u);
	EXPECT_EQ(be16_to_cpu(cpu_to_be16(0x1234)), 0x1234);
	EXPECT_EQ(be32_to_cpu(cpu_to_be32(0x12345678u)), 0x12345678u);
	__be16 v = cpu_to_be16(0x1234);
	EXPECT_EQ(reinterpret_cast<const u8 *>(&v)[0], 0x12);
}

// Random bytes, mostly with a plausible header so the decoder gets past
// the key and revision checks, in exactly sized heap buffers.
TEST(MpaFuzz, RandomBuffersStayInBounds)
{
	std::mt19937 rng(0x6b697761);	// fixed seed: reproducible
	std::uniform_int_distribution<int> byte(0, 255);
	std::uniform_int_distribution<size_t> length(0, kFrameMax + 16);
	size_t decoded = 0, v2_decoded = 0;

	for (int iter = 0; iter < 50000; iter++) {
		size_t len = length(rng);
		std::vector<u8> src(len);
		for (auto &b : src)
			b = u8(byte(rng));

		int shape = iter % 4;
		if (shape && len >= MPA_KEY_LEN)
			std::memcpy(src.data(), shape == 1 ? MPA_KEY_REQ :
				    MPA_KEY_REP, MPA_KEY_LEN);
		if (shape >= 2 && len > MPA_RR_OFF_REV)
			src[MPA_RR_OFF_REV] = u8(1 + byte(rng) % 2);
		if (shape == 3 && len >= MPA_RR_HDR_LEN)
			put_unaligned_be16(u16(byte(rng) * 3 % 600),
					   src.data() + MPA_RR_OFF_PD_LEN);

		auto buf = Exact(src.data(), len);
		mpa_frame_info fi = Info(MPA_KIND_ANY, 0);
		u16 total = 0xdead;
		int rc = mpa_frame_decode_header(buf.get(), len, &fi, &total);
		if (len < MPA_RR_HDR_LEN) {
			ASSERT_EQ(rc, -EAGAIN);
			continue;
		}
		ASSERT_TRUE(rc == 0 || rc == -EPROTO) << rc;
		if (rc)
			continue;
		decoded++;
		ASSERT_LE(total, MPA_MAX_PRIVDATA);
		ASSERT_TRUE(fi.rev == 1 || fi.rev == 2);
		ASSERT_EQ(fi.pd_len + (fi.v2_enhanced ? MPA_V2_BLOCK_LEN : 0),
			  total);

		size_t avail = std::min<size_t>(total, len - MPA_RR_HDR_LEN);
		auto pd = Exact(buf.get() + MPA_RR_HDR_LEN, avail);
		rc = mpa_frame_decode_v2(pd.get(), avail, &fi);
		if (!fi.v2_enhanced) {
			ASSERT_EQ(rc, -EINVAL);
			continue;
		}
		if (avail < MPA_V2_BLOCK_LEN) {
			ASSERT_EQ(rc, -EPROTO);
			continue;
		}
		ASSERT_EQ(rc, 0);
		v2_decoded++;
		ASSERT_LE(fi.ird, MPA_V2_IRD_ORD_MAX);
		ASSERT_LE(fi.ord, MPA_V2_IRD_ORD_MAX);

		// Whatever decodes re-encodes to the same header and block
		// (reject on a request is not encodable).
		if (fi.reject && fi.kind == MPA_KIND_REQUEST)
			continue;
		if (!fi.p2p)
			fi.zero_len_rtr = fi.write_rtr = fi.read_rtr = false;
		std::vector<u8> out(kFrameMax);
		int n = mpa_frame_encode(&fi, pd.get() + MPA_V2_BLOCK_LEN,
					 u16(avail - MPA_V2_BLOCK_LEN),
					 out.data(), out.size());
		ASSERT_EQ(n, int(MPA_RR_HDR_LEN + avail));
		ASSERT_EQ(std::memcmp(out.data(), buf.get(), MPA_KEY_LEN), 0);
	}
	// The generator must actually reach the deeper paths.
	EXPECT_GT(decoded, 5000u);
	EXPECT_GT(v2_decoded, 500u);
}

// Random (valid) requests and local preferences: every outcome of
// negotiation is an encodable reply that honours the clamping rules.
TEST(MpaFuzz, NegotiateInvariants)
{
	std::mt19937 rng(0x6d7061);
	std::uniform_int_distribution<int> bit(0, 1);
	std::uniform_int_distribution<int> word(0, 0xffff);
	std::vector<u8> buf(kFrameMax);

	for (int iter = 0; iter < 100000; iter++) {
		mpa_frame_info req = Info(MPA_KIND_REQUEST, u8(1 + bit(rng)));
		req.markers = bit(rng) && bit(rng);
		req.crc = bit(rng);
		req.v2_enhanced = req.rev == 2 && bit(rng);
		if (req.v2_enhanced) {
			req.ird = u16(word(rng) & MPA_V2_MASK_IRD_ORD);
			req.ord = u16(word(rng) & MPA_V2_MASK_IRD_ORD);
			if (bit(rng) & bit(rng)) {
				req.ird &= 3;
				req.ord &= 3;
			}
			req.p2p = bit(rng);
			req.zero_len_rtr = req.p2p && bit(rng);
			req.write_rtr = req.p2p && bit(rng);
			req.read_rtr = req.p2p && bit(rng);
		}
		mpa_frame_info local = Info(MPA_KIND_ANY, u8(1 + bit(rng)));
		local.crc = bit(rng);
		local.ird = u16(word(rng) & (bit(rng) ? 3 : 0xffff));
		local.ord = u16(word(rng) & (bit(rng) ? 3 : 0xffff));
		local.p2p = bit(rng);
		local.zero_len_rtr = bit(rng);
		local.write_rtr = bit(rng);
		local.read_rtr = bit(rng);

		mpa_frame_info rep;
		int rc = mpa_negotiate(&req, &local, &rep);
		ASSERT_TRUE(rc == 0 || rc == -EPROTO) << rc;
		ASSERT_EQ(rep.kind, MPA_KIND_REPLY);
		ASSERT_EQ(rep.reject, rc != 0);
		ASSERT_FALSE(rep.markers);
		ASSERT_EQ(rep.crc, req.crc || local.crc);
		ASSERT_EQ(rep.rev, std::min(req.rev, local.rev));
		if (req.markers) {
			ASSERT_EQ(rc, -EPROTO);
		}
		if (rep.v2_enhanced) {
			ASSERT_LE(rep.ord, req.ird);
			ASSERT_LE(rep.ord, local.ord);
			ASSERT_LE(rep.ird, req.ord);
			ASSERT_LE(rep.ird, local.ird);
			ASSERT_EQ(rep.p2p, req.p2p);
			int rtr = rep.zero_len_rtr + rep.write_rtr +
				  rep.read_rtr;
			ASSERT_EQ(rtr, rep.p2p ? 1 : 0);
			if (rep.read_rtr) {
				ASSERT_GE(rep.ird, 1);
			}
		} else {
			ASSERT_FALSE(rep.p2p);
			ASSERT_EQ(rep.ird | rep.ord, 0);
		}
		int n = mpa_frame_encode(&rep, nullptr, 0, buf.data(),
					 buf.size());
		ASSERT_GE(n, MPA_RR_HDR_LEN) << n;
	}
}

}  // namespace
