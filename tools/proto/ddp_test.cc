// SPDX-License-Identifier: GPL-2.0
//
// Host tests for iw_provider/proto/ddp.c (DDP/RDMAP header codec), built
// with ASan and UBSan. Wire bytes follow RFC 5040/5041 and siw's iwarp.h.

#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include <gtest/gtest.h>

extern "C" {
#include "ddp.h"
}

namespace {

std::vector<u8> Encode(const ddp_hdr &h)
{
	std::vector<u8> buf(DDP_HDR_MAX);
	int n = ddp_hdr_encode(&h, buf.data(), buf.size());

	EXPECT_GT(n, 0);
	buf.resize(n > 0 ? n : 0);
	return buf;
}

TEST(Ddp, WriteBytes)
{
	ddp_hdr h = {};
	h.opcode = RDMAP_WRITE;
	h.last = true;
	h.stag = 0x11223344;
	h.to = 0x0102030405060708ULL;
	std::vector<u8> b = Encode(h);
	const u8 want[] = { 0xc1, 0x40, 0x11, 0x22, 0x33, 0x44, 1, 2, 3, 4,
			    5, 6, 7, 8 };

	ASSERT_EQ(b.size(), sizeof(want));
	EXPECT_EQ(std::memcmp(b.data(), want, sizeof(want)), 0);
}

TEST(Ddp, SendInvBytes)
{
	ddp_hdr h = {};
	h.opcode = RDMAP_SEND_SE_INV;
	h.stag = 0xaabbccdd;
	h.qn = 7;	// ignored: follows from the opcode
	h.msn = 5;
	h.mo = 0x100;
	std::vector<u8> b = Encode(h);
	const u8 want[] = { 0x01, 0x46, 0xaa, 0xbb, 0xcc, 0xdd, 0, 0, 0, 0,
			    0, 0, 0, 5, 0, 0, 1, 0 };

	ASSERT_EQ(b.size(), sizeof(want));
	EXPECT_EQ(std::memcmp(b.data(), want, sizeof(want)), 0);
}

TEST(Ddp, RoundTripAll)
{
	for (u8 op = 0; op < RDMAP_OPCODE_COUNT; op++) {
		ddp_hdr h = {}, d = {};
		ddp_err err = {};

		h.opcode = op;
		h.last = true;
		h.stag = 0x1234 + op;
		h.to = 0xfedcba9876543210ULL;
		h.msn = 9;
		h.sink_stag = 0x55;
		h.sink_to = 0x66;
		h.read_size = 0x77;
		h.src_stag = 0x88;
		h.src_to = 0x99;
		h.term_layer = TERM_LAYER_DDP;
		h.term_etype = DDP_ETYPE_TAGGED;
		h.term_ecode = DDP_ECODE_T_BASE_BOUNDS;
		h.term_flags = TERM_FLAG_M;
		std::vector<u8> b = Encode(h);
		ASSERT_EQ(ddp_hdr_decode(b.data(), b.size(), &d, &err),
			  (int)b.size()) << int(op);
		EXPECT_EQ(d.opcode, op);
		EXPECT_TRUE(d.last);
		if (op == RDMAP_WRITE || op == RDMAP_READ_RESP) {
			EXPECT_TRUE(d.tagged);
			EXPECT_EQ(d.stag, h.stag);
			EXPECT_EQ(d.to, h.to);
			continue;
		}
		EXPECT_FALSE(d.tagged);
		EXPECT_EQ(d.msn, 9U);
		if (op == RDMAP_READ_REQ) {
			EXPECT_EQ(d.qn, (u32)DDP_QN_READ_REQ);
			EXPECT_EQ(d.sink_stag, 0x55U);
			EXPECT_EQ(d.sink_to, 0x66U);
			EXPECT_EQ(d.read_size, 0x77U);
			EXPECT_EQ(d.src_stag, 0x88U);
			EXPECT_EQ(d.src_to, 0x99U);
		} else if (op == RDMAP_TERMINATE) {
			EXPECT_EQ(d.qn, (u32)DDP_QN_TERMINATE);
			EXPECT_EQ(d.term_layer, TERM_LAYER_DDP);
			EXPECT_EQ(d.term_etype, DDP_ETYPE_TAGGED);
			EXPECT_EQ(d.term_ecode, DDP_ECODE_T_BASE_BOUNDS);
			EXPECT_EQ(d.term_flags, TERM_FLAG_M);
			// RFC 5040 4.8: layer in the high nibble
			EXPECT_EQ(b[18], 0x11);
		} else {
			EXPECT_EQ(d.qn, (u32)DDP_QN_SEND);
			bool inv = op == RDMAP_SEND_INV ||
				   op == RDMAP_SEND_SE_INV;
			EXPECT_EQ(d.stag, inv ? h.stag : 0U);
		}
	}
}

TEST(Ddp, BadHeaders)
{
	ddp_hdr d = {};
	ddp_err err = {};
	u8 b[DDP_HDR_MAX] = {};

	// DDP version 0
	b[0] = 0x40;
	b[1] = 0x43;
	EXPECT_EQ(ddp_hdr_len(b[0], b[1], &err), -EPROTO);
	EXPECT_EQ(err.layer, TERM_LAYER_DDP);
	EXPECT_EQ(err.ecode, DDP_ECODE_UT_VERSION);
	// RDMAP version 2
	b[0] = 0x41;
	b[1] = 0x83;
	EXPECT_EQ(ddp_hdr_len(b[0], b[1], &err), -EPROTO);
	EXPECT_EQ(err.layer, TERM_LAYER_RDMAP);
	EXPECT_EQ(err.ecode, RDMAP_ECODE_VERSION);
	// opcode 9 and a tagged Send
	EXPECT_EQ(ddp_hdr_len(0x41, 0x49, &err), -EPROTO);
	EXPECT_EQ(err.ecode, RDMAP_ECODE_OPCODE);
	EXPECT_EQ(ddp_hdr_len(0xc1, 0x43, &err), -EPROTO);
	EXPECT_EQ(ddp_hdr_len(0x41, 0x40, &err), -EPROTO);	// untagged Write
	// Send with QN 1
	b[0] = 0x41;
	b[1] = 0x43;
	b[9] = 1;
	EXPECT_EQ(ddp_hdr_decode(b, DDP_UNTAGGED_HDR_LEN, &d, &err), -EPROTO);
	EXPECT_EQ(err.ecode, DDP_ECODE_UT_INVALID_QN);
	// Read Request with a non-zero MO
	std::memset(b, 0, sizeof(b));
	b[0] = 0x41;
	b[1] = 0x41;
	b[9] = 1;
	b[17] = 4;
	EXPECT_EQ(ddp_hdr_decode(b, sizeof(b), &d, &err), -EPROTO);
	EXPECT_EQ(err.ecode, DDP_ECODE_UT_INVALID_MO);
	// short buffers ask for more
	EXPECT_EQ(ddp_hdr_decode(b, 1, &d, &err), -EAGAIN);
	b[17] = 0;
	EXPECT_EQ(ddp_hdr_decode(b, RDMAP_READ_REQ_HDR_LEN - 1, &d, &err),
		  -EAGAIN);
	EXPECT_EQ(ddp_hdr_decode(b, RDMAP_READ_REQ_HDR_LEN, &d, &err),
		  RDMAP_READ_REQ_HDR_LEN);
}

TEST(Ddp, EncodeErrors)
{
	ddp_hdr h = {};
	u8 b[DDP_HDR_MAX];

	h.opcode = 8;
	EXPECT_EQ(ddp_hdr_encode(&h, b, sizeof(b)), -EINVAL);
	h.opcode = RDMAP_READ_REQ;
	EXPECT_EQ(ddp_hdr_encode(&h, b, RDMAP_READ_REQ_HDR_LEN - 1), -EMSGSIZE);
	EXPECT_EQ(ddp_hdr_encode(&h, nullptr, 100), -EMSGSIZE);
}

TEST(Ddp, MaxPayload)
{
	// 1448 byte MSS, tagged: 2 + 14 + payload + 4 <= 1448, 4-aligned
	u32 p = ddp_max_payload(1448, DDP_TAGGED_HDR_LEN);
	EXPECT_LE(2 + DDP_TAGGED_HDR_LEN + p + 4, 1448U);
	EXPECT_EQ(p % 4, 0U);
	EXPECT_EQ(p, 1428U);
	EXPECT_EQ(ddp_max_payload(10, DDP_UNTAGGED_HDR_LEN), 4U);
	EXPECT_LE(ddp_max_payload(1U << 20, DDP_TAGGED_HDR_LEN) +
		  DDP_TAGGED_HDR_LEN, 0xffffU);
}

// Random bytes never make the decoder read past @len or crash
TEST(Ddp, RandomInput)
{
	std::mt19937 rng(4);

	for (int i = 0; i < 20000; i++) {
		size_t len = rng() % (DDP_HDR_MAX + 4);
		std::unique_ptr<u8[]> b(new u8[len ? len : 1]);
		ddp_hdr d;
		ddp_err err;

		for (size_t j = 0; j < len; j++)
			b[j] = u8(rng());
		if (len >= 2 && (rng() & 1)) {
			b[0] = u8((b[0] & 0xc0) | 1);
			b[1] = u8(0x40 | (b[1] & 0x07));
		}
		int n = ddp_hdr_decode(b.get(), len, &d, &err);
		EXPECT_TRUE(n == -EAGAIN || n == -EPROTO ||
			    (n > 0 && (size_t)n <= len));
	}
}

} // namespace
