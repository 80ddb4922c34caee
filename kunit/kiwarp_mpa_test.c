// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "kiwarp_mpa": MPA Request/Reply frame encoding, decoding
 * and negotiation (iw_provider/proto/mpa.c). tools/proto/mpa_test.cc
 * mirrors these cases on the host.
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/string.h>

#include "mpa.h"

/* Largest frame: header plus the maximum private data */
#define FRAME_MAX (MPA_RR_HDR_LEN + MPA_MAX_PRIVDATA)

static u8 *frame_buf(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, FRAME_MAX + 1, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	return buf;
}

static void mpa_test_roundtrip_rev1(struct kunit *test)
{
	static const u8 pd[] = "hello";
	struct mpa_frame_info fi = {
		.kind = MPA_KIND_REQUEST, .rev = MPA_REVISION_1, .crc = true,
	};
	struct mpa_frame_info out = { .kind = MPA_KIND_REQUEST };
	u8 *buf = frame_buf(test);
	u16 total = 0;
	int len;

	len = mpa_frame_encode(&fi, pd, sizeof(pd), buf, FRAME_MAX);
	KUNIT_ASSERT_EQ(test, len, MPA_RR_HDR_LEN + (int)sizeof(pd));

	KUNIT_ASSERT_EQ(test, mpa_frame_decode_header(buf, len, &out, &total),
			0);
	KUNIT_EXPECT_EQ(test, out.kind, MPA_KIND_REQUEST);
	KUNIT_EXPECT_EQ(test, out.rev, MPA_REVISION_1);
	KUNIT_EXPECT_TRUE(test, out.crc);
	KUNIT_EXPECT_FALSE(test, out.markers);
	KUNIT_EXPECT_FALSE(test, out.reject);
	KUNIT_EXPECT_FALSE(test, out.v2_enhanced);
	KUNIT_EXPECT_EQ(test, total, (u16)sizeof(pd));
	KUNIT_EXPECT_EQ(test, out.pd_len, (u16)sizeof(pd));
	KUNIT_EXPECT_EQ(test, memcmp(buf + MPA_RR_HDR_LEN, pd, sizeof(pd)), 0);
	/* Not enhanced: there is no IRD/ORD block to parse */
	KUNIT_EXPECT_EQ(test, mpa_frame_decode_v2(buf + MPA_RR_HDR_LEN,
						  total, &out), -EINVAL);
}

static void mpa_test_roundtrip_rev2(struct kunit *test)
{
	static const u8 pd[] = { 1, 2, 3 };
	struct mpa_frame_info fi = {
		.kind = MPA_KIND_REPLY, .rev = MPA_REVISION_2,
		.v2_enhanced = true, .ird = 5, .ord = MPA_V2_IRD_ORD_MAX,
		.p2p = true, .read_rtr = true,
	};
	struct mpa_frame_info out = { .kind = MPA_KIND_ANY };
	u8 *buf = frame_buf(test);
	u16 total = 0;
	int len;

	len = mpa_frame_encode(&fi, pd, sizeof(pd), buf, FRAME_MAX);
	KUNIT_ASSERT_EQ(test, len,
			MPA_RR_HDR_LEN + MPA_V2_BLOCK_LEN + (int)sizeof(pd));

	KUNIT_ASSERT_EQ(test, mpa_frame_decode_header(buf, len, &out, &total),
			0);
	KUNIT_EXPECT_EQ(test, out.kind, MPA_KIND_REPLY);
	KUNIT_EXPECT_EQ(test, out.rev, MPA_REVISION_2);
	KUNIT_EXPECT_TRUE(test, out.v2_enhanced);
	KUNIT_EXPECT_FALSE(test, out.crc);
	KUNIT_EXPECT_EQ(test, total, (u16)(MPA_V2_BLOCK_LEN + sizeof(pd)));
	KUNIT_EXPECT_EQ(test, out.pd_len, (u16)sizeof(pd));

	KUNIT_ASSERT_EQ(test, mpa_frame_decode_v2(buf + MPA_RR_HDR_LEN,
						  total, &out), 0);
	KUNIT_EXPECT_EQ(test, out.ird, 5);
	KUNIT_EXPECT_EQ(test, out.ord, MPA_V2_IRD_ORD_MAX);
	KUNIT_EXPECT_TRUE(test, out.p2p);
	KUNIT_EXPECT_FALSE(test, out.zero_len_rtr);
	KUNIT_EXPECT_FALSE(test, out.write_rtr);
	KUNIT_EXPECT_TRUE(test, out.read_rtr);
	KUNIT_EXPECT_EQ(test, memcmp(buf + MPA_RR_HDR_LEN + MPA_V2_BLOCK_LEN,
				     pd, sizeof(pd)), 0);
}

static void mpa_test_header_bytes(struct kunit *test)
{
	static const u8 pd[] = { 0xaa, 0xbb };
	static const u8 expect_v2[] = {
		'M', 'P', 'A', ' ', 'I', 'D', ' ', 'R',
		'e', 'q', ' ', 'F', 'r', 'a', 'm', 'e',
		0x50,		/* C | E */
		0x02,		/* rev 2 */
		0x00, 0x06,	/* PD_Length: 4 byte block + 2 */
		0x80, 0x10,	/* P | IRD 16 */
		0xc0, 0x20,	/* W | R | ORD 32 */
		0xaa, 0xbb,
	};
	static const u8 expect_v1[] = {
		'M', 'P', 'A', ' ', 'I', 'D', ' ', 'R',
		'e', 'p', ' ', 'F', 'r', 'a', 'm', 'e',
		0xa0,		/* M | R */
		0x01,		/* rev 1 */
		0x00, 0x00,	/* no private data */
	};
	struct mpa_frame_info req = {
		.kind = MPA_KIND_REQUEST, .rev = MPA_REVISION_2, .crc = true,
		.v2_enhanced = true, .ird = 16, .ord = 32,
		.p2p = true, .write_rtr = true, .read_rtr = true,
	};
	struct mpa_frame_info rep = {
		.kind = MPA_KIND_REPLY, .rev = MPA_REVISION_1,
		.markers = true, .reject = true,
	};
	u8 *buf = frame_buf(test);

	KUNIT_ASSERT_EQ(test, mpa_frame_encode(&req, pd, sizeof(pd), buf,
					       FRAME_MAX),
			(int)sizeof(expect_v2));
	KUNIT_EXPECT_EQ(test, memcmp(buf, expect_v2, sizeof(expect_v2)), 0);

	KUNIT_ASSERT_EQ(test, mpa_frame_encode(&rep, NULL, 0, buf, FRAME_MAX),
			(int)sizeof(expect_v1));
	KUNIT_EXPECT_EQ(test, memcmp(buf, expect_v1, sizeof(expect_v1)), 0);
}

static void mpa_test_bad_key(struct kunit *test)
{
	struct mpa_frame_info fi = {
		.kind = MPA_KIND_REQUEST, .rev = MPA_REVISION_1,
	};
	struct mpa_frame_info out;
	u8 *buf = frame_buf(test);
	int len;

	len = mpa_frame_encode(&fi, NULL, 0, buf, FRAME_MAX);
	KUNIT_ASSERT_EQ(test, len, MPA_RR_HDR_LEN);

	/* A request is not the reply we wait for */
	out.kind = MPA_KIND_REPLY;
	KUNIT_EXPECT_EQ(test, mpa_frame_decode_header(buf, len, &out, NULL),
			-EPROTO);
	/* Untouched on error */
	KUNIT_EXPECT_EQ(test, out.kind, MPA_KIND_REPLY);

	buf[15] = 'E';
	out.kind = MPA_KIND_ANY;
	KUNIT_EXPECT_EQ(test, mpa_frame_decode_header(buf, len, &out, NULL),
			-EPROTO);
	out.kind = MPA_KIND_REQUEST;
	KUNIT_EXPECT_EQ(test, mpa_frame_decode_header(buf, len, &out, NULL),
			-EPROTO);
}

static void mpa_test_bad_rev(struct kunit *test)
{
	static const u8 bad_revs[] = { 0, 3, 0x10, 0xff };
	struct mpa_frame_info fi = {
		.kind = MPA_KIND_REQUEST, .rev = MPA_REVISION_2,
	};
	struct mpa_frame_info out;
	u8 *buf = frame_buf(test);
	unsigned int i;
	int len;

	len = mpa_frame_encode(&fi, NULL, 0, buf, FRAME_MAX);
	KUNIT_ASSERT_EQ(test, len, MPA_RR_HDR_LEN);

	for (i = 0; i < ARRAY_SIZE(bad_revs); i++) {
		buf[MPA_RR_OFF_REV] = bad_revs[i];
		out.kind = MPA_KIND_ANY;
		KUNIT_EXPECT_EQ(test,
				mpa_frame_decode_header(buf, len, &out, NULL),
				-EPROTO);

		fi.rev = bad_revs[i];
		KUNIT_EXPECT_EQ(test,
				mpa_frame_encode(&fi, NULL, 0, buf, FRAME_MAX),
				-EINVAL);
	}

	/* RFC 6581 fields need rev 2 and v2_enhanced */
	fi.rev = MPA_REVISION_1;
	fi.v2_enhanced = true;
	KUNIT_EXPECT_EQ(test, mpa_frame_encode(&fi, NULL, 0, buf, FRAME_MAX),
			-EINVAL);
	fi.v2_enhanced = false;
	fi.ird = 1;
	KUNIT_EXPECT_EQ(test, mpa_frame_encode(&fi, NULL, 0, buf, FRAME_MAX),
			-EINVAL);
	fi.rev = MPA_REVISION_2;
	KUNIT_EXPECT_EQ(test, mpa_frame_encode(&fi, NULL, 0, buf, FRAME_MAX),
			-EINVAL);
	/* IRD out of range, RTR without P */
	fi.v2_enhanced = true;
	fi.ird = MPA_V2_IRD_ORD_MAX + 1;
	KUNIT_EXPECT_EQ(test, mpa_frame_encode(&fi, NULL, 0, buf, FRAME_MAX),
			-EINVAL);
	fi.ird = 1;
	fi.write_rtr = true;
	KUNIT_EXPECT_EQ(test, mpa_frame_encode(&fi, NULL, 0, buf, FRAME_MAX),
			-EINVAL);
	/* Reject is a reply-only flag */
	fi.write_rtr = false;
	fi.reject = true;
	KUNIT_EXPECT_EQ(test, mpa_frame_encode(&fi, NULL, 0, buf, FRAME_MAX),
			-EINVAL);
}

static void mpa_test_oversize_len(struct kunit *test)
{
	struct mpa_frame_info fi = {
		.kind = MPA_KIND_REPLY, .rev = MPA_REVISION_2,
	};
	struct mpa_frame_info out;
	u8 *buf = frame_buf(test);
	u16 total = 0;

	KUNIT_ASSERT_EQ(test, mpa_frame_encode(&fi, NULL, 0, buf, FRAME_MAX),
			MPA_RR_HDR_LEN);

	/* The header alone is decoded: PD_Length is checked, not present */
	put_unaligned_be16(MPA_MAX_PRIVDATA, buf + MPA_RR_OFF_PD_LEN);
	out.kind = MPA_KIND_REPLY;
	KUNIT_EXPECT_EQ(test, mpa_frame_decode_header(buf, MPA_RR_HDR_LEN,
						      &out, &total), 0);
	KUNIT_EXPECT_EQ(test, total, MPA_MAX_PRIVDATA);

	put_unaligned_be16(MPA_MAX_PRIVDATA + 1, buf + MPA_RR_OFF_PD_LEN);
	KUNIT_EXPECT_EQ(test, mpa_frame_decode_header(buf, MPA_RR_HDR_LEN,
						      &out, &total), -EPROTO);
	put_unaligned_be16(0xffff, buf + MPA_RR_OFF_PD_LEN);
	KUNIT_EXPECT_EQ(test, mpa_frame_decode_header(buf, MPA_RR_HDR_LEN,
						      &out, &total), -EPROTO);

	/* Enhanced frame too short to hold its IRD/ORD block */
	buf[MPA_RR_OFF_FLAGS] = MPA_FLAG_ENHANCED;
	put_unaligned_be16(MPA_V2_BLOCK_LEN - 1, buf + MPA_RR_OFF_PD_LEN);
	KUNIT_EXPECT_EQ(test, mpa_frame_decode_header(buf, MPA_RR_HDR_LEN,
						      &out, &total), -EPROTO);
	/* ... while with rev 1 the E flag means nothing */
	buf[MPA_RR_OFF_REV] = MPA_REVISION_1;
	KUNIT_EXPECT_EQ(test, mpa_frame_decode_header(buf, MPA_RR_HDR_LEN,
						      &out, &total), 0);
	KUNIT_EXPECT_FALSE(test, out.v2_enhanced);
	KUNIT_EXPECT_EQ(test, out.pd_len, MPA_V2_BLOCK_LEN - 1);
}

static void mpa_test_short_buffer(struct kunit *test)
{
	static const u8 pd[] = { 9, 8, 7, 6 };
	struct mpa_frame_info fi = {
		.kind = MPA_KIND_REQUEST, .rev = MPA_REVISION_2,
		.v2_enhanced = true, .ird = 1, .ord = 1,
	};
	struct mpa_frame_info out = { .kind = MPA_KIND_REQUEST };
	u8 *buf = frame_buf(test);
	size_t need = MPA_RR_HDR_LEN + MPA_V2_BLOCK_LEN + sizeof(pd);
	size_t i;

	KUNIT_EXPECT_EQ(test, mpa_frame_encode(&fi, pd, sizeof(pd), buf,
					       need - 1), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, mpa_frame_encode(&fi, pd, sizeof(pd), buf, 0),
			-EMSGSIZE);
	KUNIT_ASSERT_EQ(test, mpa_frame_encode(&fi, pd, sizeof(pd), buf, need),
			(int)need);

	for (i = 0; i < MPA_RR_HDR_LEN; i++)
		KUNIT_EXPECT_EQ(test,
				mpa_frame_decode_header(buf, i, &out, NULL),
				-EAGAIN);
	KUNIT_ASSERT_EQ(test, mpa_frame_decode_header(buf, MPA_RR_HDR_LEN,
						      &out, NULL), 0);
	KUNIT_ASSERT_TRUE(test, out.v2_enhanced);
	for (i = 0; i < MPA_V2_BLOCK_LEN; i++)
		KUNIT_EXPECT_EQ(test,
				mpa_frame_decode_v2(buf + MPA_RR_HDR_LEN, i,
						    &out),
				-EPROTO);
	KUNIT_EXPECT_EQ(test, mpa_frame_decode_v2(buf + MPA_RR_HDR_LEN,
						  MPA_V2_BLOCK_LEN, &out), 0);
}

static void mpa_test_pd_limit(struct kunit *test)
{
	struct mpa_frame_info fi = {
		.kind = MPA_KIND_REQUEST, .rev = MPA_REVISION_1,
	};
	struct mpa_frame_info out = { .kind = MPA_KIND_REQUEST };
	u8 *pd = kunit_kzalloc(test, MPA_MAX_PRIVDATA + 1, GFP_KERNEL);
	u8 *buf = frame_buf(test);
	u16 total = 0;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd);
	memset(pd, 0x5a, MPA_MAX_PRIVDATA + 1);

	/* Buffer one byte larger than needed: the size limit must bite */
	KUNIT_EXPECT_EQ(test, mpa_frame_encode(&fi, pd, MPA_MAX_PRIVDATA, buf,
					       FRAME_MAX + 1), FRAME_MAX);
	KUNIT_EXPECT_EQ(test, mpa_frame_decode_header(buf, FRAME_MAX, &out,
						      &total), 0);
	KUNIT_EXPECT_EQ(test, total, MPA_MAX_PRIVDATA);
	KUNIT_EXPECT_EQ(test, mpa_frame_encode(&fi, pd, MPA_MAX_PRIVDATA + 1,
					       buf, FRAME_MAX + 1), -EMSGSIZE);

	/* The RFC 6581 block counts against the limit */
	fi.rev = MPA_REVISION_2;
	fi.v2_enhanced = true;
	KUNIT_EXPECT_EQ(test, mpa_frame_encode(&fi, pd,
					       MPA_MAX_PRIVDATA -
					       MPA_V2_BLOCK_LEN,
					       buf, FRAME_MAX + 1), FRAME_MAX);
	KUNIT_EXPECT_EQ(test, mpa_frame_decode_header(buf, FRAME_MAX, &out,
						      &total), 0);
	KUNIT_EXPECT_EQ(test, total, MPA_MAX_PRIVDATA);
	KUNIT_EXPECT_EQ(test, out.pd_len, MPA_MAX_PRIVDATA - MPA_V2_BLOCK_LEN);
	KUNIT_EXPECT_EQ(test, mpa_frame_encode(&fi, pd,
					       MPA_MAX_PRIVDATA -
					       MPA_V2_BLOCK_LEN + 1,
					       buf, FRAME_MAX + 1), -EMSGSIZE);
	/* Largest u16 length must not wrap anything */
	KUNIT_EXPECT_EQ(test, mpa_frame_encode(&fi, pd, 0xffff, buf,
					       FRAME_MAX + 1), -EMSGSIZE);
}

static void mpa_test_negotiate_markers(struct kunit *test)
{
	struct mpa_frame_info req = {
		.kind = MPA_KIND_REQUEST, .rev = MPA_REVISION_2,
		.markers = true, .v2_enhanced = true, .ird = 4, .ord = 4,
	};
	struct mpa_frame_info local = {
		.rev = MPA_REVISION_2, .ird = 8, .ord = 8,
	};
	struct mpa_frame_info reply;
	u8 *buf = frame_buf(test);

	KUNIT_EXPECT_EQ(test, mpa_negotiate(&req, &local, &reply), -EPROTO);
	KUNIT_EXPECT_EQ(test, reply.kind, MPA_KIND_REPLY);
	KUNIT_EXPECT_TRUE(test, reply.reject);
	KUNIT_EXPECT_FALSE(test, reply.markers);
	KUNIT_EXPECT_FALSE(test, reply.v2_enhanced);
	/* The reject is a frame that can be sent */
	KUNIT_EXPECT_EQ(test, mpa_frame_encode(&reply, NULL, 0, buf,
					       FRAME_MAX), MPA_RR_HDR_LEN);
	KUNIT_EXPECT_EQ(test, buf[MPA_RR_OFF_FLAGS], MPA_FLAG_REJECT);

	/* A reply is not a request */
	req.markers = false;
	req.kind = MPA_KIND_REPLY;
	KUNIT_EXPECT_EQ(test, mpa_negotiate(&req, &local, &reply), -EINVAL);
	KUNIT_EXPECT_TRUE(test, reply.reject);
}

static void mpa_test_negotiate_crc(struct kunit *test)
{
	struct mpa_frame_info req = {
		.kind = MPA_KIND_REQUEST, .rev = MPA_REVISION_1,
	};
	struct mpa_frame_info local = { .rev = MPA_REVISION_2 };
	struct mpa_frame_info reply;
	int r, l;

	for (r = 0; r < 2; r++) {
		for (l = 0; l < 2; l++) {
			req.crc = r;
			local.crc = l;
			KUNIT_ASSERT_EQ(test,
					mpa_negotiate(&req, &local, &reply), 0);
			KUNIT_EXPECT_EQ(test, reply.crc, r || l);
			KUNIT_EXPECT_FALSE(test, reply.reject);
			/* rev is the lower of both */
			KUNIT_EXPECT_EQ(test, reply.rev, MPA_REVISION_1);
			KUNIT_EXPECT_FALSE(test, reply.v2_enhanced);
		}
	}
}

static void mpa_test_negotiate_ird_ord(struct kunit *test)
{
	struct mpa_frame_info req = {
		.kind = MPA_KIND_REQUEST, .rev = MPA_REVISION_2,
		.v2_enhanced = true, .ird = 4, .ord = 16,
		.p2p = true, .write_rtr = true, .read_rtr = true,
	};
	struct mpa_frame_info local = {
		.rev = MPA_REVISION_2, .ird = 8, .ord = 0xffff,
		.p2p = true, .write_rtr = true, .read_rtr = true,
	};
	struct mpa_frame_info reply;

	KUNIT_ASSERT_EQ(test, mpa_negotiate(&req, &local, &reply), 0);
	KUNIT_EXPECT_EQ(test, reply.rev, MPA_REVISION_2);
	KUNIT_EXPECT_TRUE(test, reply.v2_enhanced);
	KUNIT_EXPECT_EQ(test, reply.ord, 4);	/* <= request IRD */
	KUNIT_EXPECT_EQ(test, reply.ird, 8);	/* local IRD < request ORD */
	KUNIT_EXPECT_TRUE(test, reply.p2p);
	KUNIT_EXPECT_TRUE(test, reply.write_rtr);	/* Write preferred */
	KUNIT_EXPECT_FALSE(test, reply.read_rtr);
	KUNIT_EXPECT_FALSE(test, reply.zero_len_rtr);

	/* Only Read in common */
	local.write_rtr = false;
	KUNIT_ASSERT_EQ(test, mpa_negotiate(&req, &local, &reply), 0);
	KUNIT_EXPECT_TRUE(test, reply.read_rtr);
	KUNIT_EXPECT_FALSE(test, reply.write_rtr);

	/* ... but a Read RTR needs an IRD slot at the responder */
	req.ord = 0;
	KUNIT_EXPECT_EQ(test, mpa_negotiate(&req, &local, &reply), -EPROTO);
	KUNIT_EXPECT_TRUE(test, reply.reject);

	/* Local ORD is capped to the 14-bit field and the request IRD */
	req.ird = MPA_V2_IRD_ORD_MAX;
	req.ord = MPA_V2_IRD_ORD_MAX;
	local.write_rtr = true;
	KUNIT_ASSERT_EQ(test, mpa_negotiate(&req, &local, &reply), 0);
	KUNIT_EXPECT_EQ(test, reply.ord, MPA_V2_IRD_ORD_MAX);
	KUNIT_EXPECT_EQ(test, reply.ird, 8);

	/* P2P requested but not supported locally: reject */
	local.p2p = false;
	KUNIT_EXPECT_EQ(test, mpa_negotiate(&req, &local, &reply), -EPROTO);
	KUNIT_EXPECT_TRUE(test, reply.reject);

	/* No P2P requested: no RTR bits in the reply */
	req.p2p = false;
	req.write_rtr = false;
	req.read_rtr = false;
	local.p2p = true;
	KUNIT_ASSERT_EQ(test, mpa_negotiate(&req, &local, &reply), 0);
	KUNIT_EXPECT_FALSE(test, reply.p2p);
	KUNIT_EXPECT_FALSE(test, reply.write_rtr);
	KUNIT_EXPECT_FALSE(test, reply.read_rtr);

	/* Local rev 1: no enhanced reply, no IRD/ORD */
	local.rev = MPA_REVISION_1;
	KUNIT_ASSERT_EQ(test, mpa_negotiate(&req, &local, &reply), 0);
	KUNIT_EXPECT_EQ(test, reply.rev, MPA_REVISION_1);
	KUNIT_EXPECT_FALSE(test, reply.v2_enhanced);
	KUNIT_EXPECT_EQ(test, reply.ird, 0);
	KUNIT_EXPECT_EQ(test, reply.ord, 0);
}

static void mpa_test_negotiate_rtr_fallback(struct kunit *test)
{
	struct mpa_frame_info req = {
		.kind = MPA_KIND_REQUEST, .rev = MPA_REVISION_2,
		.v2_enhanced = true, .ird = 1, .ord = 1, .p2p = true,
	};
	struct mpa_frame_info local = {
		.rev = MPA_REVISION_2, .ird = 1, .ord = 1,
		.p2p = true, .write_rtr = true,
	};
	struct mpa_frame_info reply;
	u8 *buf = frame_buf(test);
	int len;

	/* P without any RTR type: siw semantics, RDMA Write */
	KUNIT_ASSERT_EQ(test, mpa_negotiate(&req, &local, &reply), 0);
	KUNIT_EXPECT_TRUE(test, reply.write_rtr);

	/* Only zero length Send offered, and supported */
	req.zero_len_rtr = true;
	local.zero_len_rtr = true;
	KUNIT_ASSERT_EQ(test, mpa_negotiate(&req, &local, &reply), 0);
	KUNIT_EXPECT_TRUE(test, reply.zero_len_rtr);
	KUNIT_EXPECT_FALSE(test, reply.write_rtr);

	/* The negotiated reply encodes as P | Z, IRD 1, ORD 1 */
	len = mpa_frame_encode(&reply, NULL, 0, buf, FRAME_MAX);
	KUNIT_ASSERT_EQ(test, len, MPA_RR_HDR_LEN + MPA_V2_BLOCK_LEN);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(buf + MPA_RR_HDR_LEN),
			MPA_V2_PEER_TO_PEER | MPA_V2_ZERO_LENGTH_RTR | 1);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(buf + MPA_RR_HDR_LEN + 2), 1);

	/* ... and not supported: nothing in common */
	local.zero_len_rtr = false;
	KUNIT_EXPECT_EQ(test, mpa_negotiate(&req, &local, &reply), -EPROTO);
	KUNIT_EXPECT_TRUE(test, reply.reject);
}

static struct kunit_case kiwarp_mpa_cases[] = {
	KUNIT_CASE(mpa_test_roundtrip_rev1),
	KUNIT_CASE(mpa_test_roundtrip_rev2),
	KUNIT_CASE(mpa_test_header_bytes),
	KUNIT_CASE(mpa_test_bad_key),
	KUNIT_CASE(mpa_test_bad_rev),
	KUNIT_CASE(mpa_test_oversize_len),
	KUNIT_CASE(mpa_test_short_buffer),
	KUNIT_CASE(mpa_test_pd_limit),
	KUNIT_CASE(mpa_test_negotiate_markers),
	KUNIT_CASE(mpa_test_negotiate_crc),
	KUNIT_CASE(mpa_test_negotiate_ird_ord),
	KUNIT_CASE(mpa_test_negotiate_rtr_fallback),
	{}
};

static struct kunit_suite kiwarp_mpa_suite = {
	.name = "kiwarp_mpa",
	.test_cases = kiwarp_mpa_cases,
};

kunit_test_suite(kiwarp_mpa_suite);

MODULE_DESCRIPTION("KUnit tests for kiwarp MPA frame handling");
MODULE_IMPORT_NS(KIWARP_INTERNAL);
MODULE_LICENSE("GPL");
