// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "kiwarp_fpdu": CRC32c and MPA FPDU framing
 * (iw_provider/proto/crc32c.c, fpdu.c). tools/proto/fpdu_test.cc checks
 * the same literals on the host.
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/string.h>

#include "crc32c.h"
#include "fpdu.h"

/* Complete CRC32c: seeded with ~0, result complemented */
static u32 full_crc(const void *buf, size_t len)
{
	return ~iw_crc32c(IW_CRC32C_SEED, buf, len);
}

static u8 *fpdu_buf(struct kunit *test, size_t len)
{
	u8 *buf = kunit_kzalloc(test, len, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	return buf;
}

/* RFC 3720 B.4 vectors and the CRC-32C check value */
static void fpdu_test_crc32c_vectors(struct kunit *test)
{
	static const u8 check[] = "123456789";
	u8 buf[32];
	int i;

	memset(buf, 0, sizeof(buf));
	KUNIT_EXPECT_EQ(test, full_crc(buf, sizeof(buf)), 0x8a9136aaU);
	/* The raw register, as the kernel's crc32c() returns it */
	KUNIT_EXPECT_EQ(test, iw_crc32c(IW_CRC32C_SEED, buf, sizeof(buf)),
			0x756ec955U);

	memset(buf, 0xff, sizeof(buf));
	KUNIT_EXPECT_EQ(test, full_crc(buf, sizeof(buf)), 0x62a8ab43U);

	for (i = 0; i < 32; i++)
		buf[i] = i;
	KUNIT_EXPECT_EQ(test, full_crc(buf, sizeof(buf)), 0x46dd794eU);

	for (i = 0; i < 32; i++)
		buf[i] = 31 - i;
	KUNIT_EXPECT_EQ(test, full_crc(buf, sizeof(buf)), 0x113fdb5cU);

	KUNIT_EXPECT_EQ(test, full_crc(check, 9), 0xe3069283U);
	/* Incremental updates give the same result */
	KUNIT_EXPECT_EQ(test, ~iw_crc32c(iw_crc32c(IW_CRC32C_SEED, check, 4),
					 check + 4, 5), 0xe3069283U);
	/* Empty input leaves the register alone */
	KUNIT_EXPECT_EQ(test, iw_crc32c(0x12345678U, check, 0), 0x12345678U);
}

static void fpdu_test_pad(struct kunit *test)
{
	static const u16 pad[8] = { 2, 1, 0, 3, 2, 1, 0, 3 };
	u16 len;

	for (len = 0; len < 8; len++) {
		KUNIT_EXPECT_EQ(test, mpa_fpdu_pad(len), pad[len]);
		KUNIT_EXPECT_EQ(test, mpa_fpdu_size(len),
				(size_t)(2 + len + pad[len] + 4));
	}
	KUNIT_EXPECT_EQ(test, mpa_fpdu_pad(0xffff), 3);
	KUNIT_EXPECT_EQ(test, mpa_fpdu_size(0xffff), (size_t)MPA_FPDU_MAX_LEN);
	KUNIT_EXPECT_EQ(test, mpa_fpdu_size(0xffff), (size_t)65544);
}

static void fpdu_test_roundtrip(struct kunit *test)
{
	static const u16 lens[] = { 0, 1, 2, 3, 4, 5, 13, 64, 1021, 4096,
				    0xffff };
	u8 *payload = fpdu_buf(test, 0xffff);
	u8 *buf = fpdu_buf(test, MPA_FPDU_MAX_LEN);
	size_t i;
	int crc;

	for (i = 0; i < 0xffff; i++)
		payload[i] = (u8)(i * 7 + 3);

	for (crc = 0; crc < 2; crc++) {
		for (i = 0; i < ARRAY_SIZE(lens); i++) {
			u16 len = lens[i];
			int size = (int)mpa_fpdu_size(len);
			const u8 *ulpdu = NULL;
			u16 ulen = 0;

			KUNIT_ASSERT_EQ(test, mpa_fpdu_encode(payload, len, crc,
							      buf, size),
					size);
			KUNIT_EXPECT_EQ(test, size % 4, 0);
			KUNIT_ASSERT_EQ(test,
					mpa_fpdu_decode(buf, size, crc, 0xffff,
							&ulpdu, &ulen),
					size);
			KUNIT_EXPECT_PTR_EQ(test, ulpdu,
					    (const u8 *)buf + MPA_FPDU_HDR_LEN);
			KUNIT_EXPECT_EQ(test, ulen, len);
			KUNIT_EXPECT_EQ(test, memcmp(ulpdu, payload, len), 0);
		}
	}
}

static void fpdu_test_bytes(struct kunit *test)
{
	static const u8 expect_crc[] = {
		0x00, 0x03,		/* ULPDU_Length 3 */
		'a', 'b', 'c',
		0x00, 0x00, 0x00,	/* pad to 8 */
		0x59, 0x23, 0x97, 0x12,	/* CRC32c 0x12972359, LSB first */
	};
	static const u8 expect_nocrc[] = {
		0x00, 0x03, 'a', 'b', 'c', 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00,	/* CRC field present, zero */
	};
	u8 buf[sizeof(expect_crc)];

	memset(buf, 0xee, sizeof(buf));
	KUNIT_ASSERT_EQ(test, mpa_fpdu_encode("abc", 3, true, buf, sizeof(buf)),
			(int)sizeof(expect_crc));
	KUNIT_EXPECT_EQ(test, memcmp(buf, expect_crc, sizeof(buf)), 0);
	KUNIT_EXPECT_EQ(test, full_crc(buf, 8), 0x12972359U);

	memset(buf, 0xee, sizeof(buf));
	KUNIT_ASSERT_EQ(test, mpa_fpdu_encode("abc", 3, false, buf,
					      sizeof(buf)),
			(int)sizeof(expect_nocrc));
	KUNIT_EXPECT_EQ(test, memcmp(buf, expect_nocrc, sizeof(buf)), 0);
}

static void fpdu_test_bad_crc(struct kunit *test)
{
	static const u8 payload[] = { 1, 2, 3, 4, 5 };	/* pad 1 */
	int size = (int)mpa_fpdu_size(sizeof(payload));
	const u8 *ulpdu = NULL;
	u16 ulen = 0;
	u8 buf[16];
	int bit;

	KUNIT_ASSERT_EQ(test, size, 12);
	/* Every bit after the length field: payload, pad, CRC */
	for (bit = MPA_FPDU_HDR_LEN * 8; bit < size * 8; bit++) {
		KUNIT_ASSERT_EQ(test, mpa_fpdu_encode(payload, sizeof(payload),
						      true, buf, sizeof(buf)),
				size);
		buf[bit / 8] ^= 1 << (bit % 8);
		KUNIT_EXPECT_EQ(test, mpa_fpdu_decode(buf, size, true, 0xffff,
						      &ulpdu, &ulen),
				-EBADMSG);
		KUNIT_EXPECT_NULL(test, ulpdu);
		/* Without CRC the field and pad are not checked */
		if (bit >= (MPA_FPDU_HDR_LEN + (int)sizeof(payload)) * 8)
			KUNIT_EXPECT_EQ(test,
					mpa_fpdu_decode(buf, size, false,
							0xffff, &ulpdu,
							&ulen),
					size);
		ulpdu = NULL;
	}
}

static void fpdu_test_truncated(struct kunit *test)
{
	static const u8 payload[] = "truncated";
	int size = (int)mpa_fpdu_size(sizeof(payload));
	u8 *buf = fpdu_buf(test, size);
	const u8 *ulpdu = NULL;
	u16 ulen = 0;
	int len;

	KUNIT_ASSERT_EQ(test, mpa_fpdu_encode(payload, sizeof(payload), true,
					      buf, size), size);
	for (len = 0; len < size; len++) {
		KUNIT_EXPECT_EQ(test, mpa_fpdu_decode(buf, len, true, 0xffff,
						      &ulpdu, &ulen), -EAGAIN);
		KUNIT_EXPECT_EQ(test, mpa_fpdu_decode(buf, len, false, 0xffff,
						      &ulpdu, &ulen), -EAGAIN);
	}
	KUNIT_EXPECT_EQ(test, mpa_fpdu_decode(NULL, 0, true, 0xffff, &ulpdu,
					      &ulen), -EAGAIN);
	KUNIT_EXPECT_NULL(test, ulpdu);
	KUNIT_EXPECT_EQ(test, ulen, 0);
}

static void fpdu_test_oversize(struct kunit *test)
{
	static const u8 hdr[] = { 0x00, 0x64 };	/* ULPDU_Length 100 */
	u8 *payload = fpdu_buf(test, 0xffff);
	u8 *buf = fpdu_buf(test, MPA_FPDU_MAX_LEN);
	const u8 *ulpdu = NULL;
	u16 ulen = 0;
	int size;

	/* Rejected from the length field alone, before the rest arrives */
	KUNIT_EXPECT_EQ(test, mpa_fpdu_decode(hdr, sizeof(hdr), true, 99,
					      &ulpdu, &ulen), -EPROTO);
	KUNIT_EXPECT_EQ(test, mpa_fpdu_decode(hdr, sizeof(hdr), true, 100,
					      &ulpdu, &ulen), -EAGAIN);
	KUNIT_EXPECT_EQ(test, mpa_fpdu_decode(hdr, sizeof(hdr), false, 0,
					      &ulpdu, &ulen), -EPROTO);

	size = mpa_fpdu_encode(payload, 0xffff, true, buf, MPA_FPDU_MAX_LEN);
	KUNIT_ASSERT_EQ(test, size, MPA_FPDU_MAX_LEN);
	KUNIT_EXPECT_EQ(test, mpa_fpdu_decode(buf, size, true, 0xfffe,
					      &ulpdu, &ulen), -EPROTO);
	KUNIT_EXPECT_NULL(test, ulpdu);
	KUNIT_EXPECT_EQ(test, mpa_fpdu_decode(buf, size, true, 0xffff,
					      &ulpdu, &ulen), size);
	KUNIT_EXPECT_EQ(test, ulen, 0xffff);
}

static void fpdu_test_encode_errors(struct kunit *test)
{
	u8 buf[12];

	memset(buf, 0xee, sizeof(buf));
	KUNIT_EXPECT_EQ(test, mpa_fpdu_encode("abc", 3, true, buf, 11),
			-EMSGSIZE);
	KUNIT_EXPECT_EQ(test, buf[0], 0xee);
	KUNIT_EXPECT_EQ(test, buf[10], 0xee);
	KUNIT_EXPECT_EQ(test, mpa_fpdu_encode("abc", 3, true, NULL, 12),
			-EMSGSIZE);
	KUNIT_EXPECT_EQ(test, mpa_fpdu_encode(NULL, 3, true, buf, 12),
			-EINVAL);
	/* Empty ULPDU: length, 2 pad bytes, CRC */
	KUNIT_EXPECT_EQ(test, mpa_fpdu_encode(NULL, 0, false, buf, 8), 8);
}

static void fpdu_test_stream(struct kunit *test)
{
	u8 *buf = fpdu_buf(test, 64);
	const u8 *ulpdu = NULL;
	u16 ulen = 0;
	int a, b;

	a = mpa_fpdu_encode("first", 5, true, buf, 64);
	KUNIT_ASSERT_EQ(test, a, 12);
	b = mpa_fpdu_encode("second!", 7, true, buf + a, 64 - a);
	KUNIT_ASSERT_EQ(test, b, 16);

	KUNIT_EXPECT_EQ(test, mpa_fpdu_decode(buf, a + b, true, 0xffff,
					      &ulpdu, &ulen), a);
	KUNIT_EXPECT_EQ(test, ulen, 5);
	KUNIT_EXPECT_EQ(test, memcmp(ulpdu, "first", 5), 0);
	KUNIT_EXPECT_EQ(test, mpa_fpdu_decode(buf + a, b, true, 0xffff,
					      &ulpdu, &ulen), b);
	KUNIT_EXPECT_EQ(test, ulen, 7);
	KUNIT_EXPECT_EQ(test, memcmp(ulpdu, "second!", 7), 0);
}

static struct kunit_case kiwarp_fpdu_cases[] = {
	KUNIT_CASE(fpdu_test_crc32c_vectors),
	KUNIT_CASE(fpdu_test_pad),
	KUNIT_CASE(fpdu_test_roundtrip),
	KUNIT_CASE(fpdu_test_bytes),
	KUNIT_CASE(fpdu_test_bad_crc),
	KUNIT_CASE(fpdu_test_truncated),
	KUNIT_CASE(fpdu_test_oversize),
	KUNIT_CASE(fpdu_test_encode_errors),
	KUNIT_CASE(fpdu_test_stream),
	{}
};

static struct kunit_suite kiwarp_fpdu_suite = {
	.name = "kiwarp_fpdu",
	.test_cases = kiwarp_fpdu_cases,
};

kunit_test_suite(kiwarp_fpdu_suite);

MODULE_DESCRIPTION("KUnit tests for kiwarp CRC32c and MPA FPDU framing");
MODULE_IMPORT_NS(KIWARP_INTERNAL);
MODULE_LICENSE("GPL");
