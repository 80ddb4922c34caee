// SPDX-License-Identifier: GPL-2.0
//
// Host tests for iw_provider/proto/crc32c.c and fpdu.c. Mirrors
// kunit/kiwarp_fpdu_test.c (same literals) and adds randomised decoder
// input; built with ASan and UBSan so any out-of-bounds access or UB
// aborts the test.

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include <gtest/gtest.h>

extern "C" {
#include "crc32c.h"
#include "fpdu.h"
}

namespace {

u32 FullCrc(const void *buf, size_t len)
{
	return ~iw_crc32c(IW_CRC32C_SEED, buf, len);
}

// Exactly @n heap bytes, so ASan flags any access past the end.
std::unique_ptr<u8[]> Exact(const u8 *src, size_t n)
{
	std::unique_ptr<u8[]> p(new u8[n ? n : 1]);
	if (n)
		std::memcpy(p.get(), src, n);
	return p;
}

TEST(Fpdu, Crc32cVectors)
{
	static const char check[] = "123456789";
	u8 buf[32];

	std::memset(buf, 0, sizeof(buf));
	EXPECT_EQ(FullCrc(buf, sizeof(buf)), 0x8a9136aaU);
	EXPECT_EQ(iw_crc32c(IW_CRC32C_SEED, buf, sizeof(buf)), 0x756ec955U);

	std::memset(buf, 0xff, sizeof(buf));
	EXPECT_EQ(FullCrc(buf, sizeof(buf)), 0x62a8ab43U);

	for (int i = 0; i < 32; i++)
		buf[i] = u8(i);
	EXPECT_EQ(FullCrc(buf, sizeof(buf)), 0x46dd794eU);

	for (int i = 0; i < 32; i++)
		buf[i] = u8(31 - i);
	EXPECT_EQ(FullCrc(buf, sizeof(buf)), 0x113fdb5cU);

	EXPECT_EQ(FullCrc(check, 9), 0xe3069283U);
	EXPECT_EQ(~iw_crc32c(iw_crc32c(IW_CRC32C_SEED, check, 4), check + 4, 5),
		  0xe3069283U);
	EXPECT_EQ(iw_crc32c(0x12345678U, check, 0), 0x12345678U);
}

TEST(Fpdu, Pad)
{
	static const u16 pad[8] = {2, 1, 0, 3, 2, 1, 0, 3};

	for (u16 len = 0; len < 8; len++) {
		EXPECT_EQ(mpa_fpdu_pad(len), pad[len]) << len;
		EXPECT_EQ(mpa_fpdu_size(len), size_t(2 + len + pad[len] + 4));
	}
	EXPECT_EQ(mpa_fpdu_pad(0xffff), 3);
	EXPECT_EQ(mpa_fpdu_size(0xffff), size_t(MPA_FPDU_MAX_LEN));
	EXPECT_EQ(mpa_fpdu_size(0xffff), size_t(65544));
	for (u32 len = 0; len <= 0xffff; len++)
		ASSERT_EQ(mpa_fpdu_size(u16(len)) % 4, 0U) << len;
}

TEST(Fpdu, RoundTrip)
{
	static const u16 lens[] = {0, 1, 2, 3, 4, 5, 13, 64, 1021, 4096,
				   0xffff};
	std::vector<u8> payload(0xffff);

	for (size_t i = 0; i < payload.size(); i++)
		payload[i] = u8(i * 7 + 3);

	for (bool crc : {false, true}) {
		for (u16 len : lens) {
			int size = int(mpa_fpdu_size(len));
			std::unique_ptr<u8[]> buf(new u8[size]);
			const u8 *ulpdu = nullptr;
			u16 ulen = 0;

			ASSERT_EQ(mpa_fpdu_encode(payload.data(), len, crc,
						  buf.get(), size), size);
			EXPECT_EQ(size % 4, 0);
			ASSERT_EQ(mpa_fpdu_decode(buf.get(), size, crc, 0xffff,
						  &ulpdu, &ulen), size);
			EXPECT_EQ(ulpdu, buf.get() + MPA_FPDU_HDR_LEN);
			EXPECT_EQ(ulen, len);
			EXPECT_EQ(std::memcmp(ulpdu, payload.data(), len), 0);
		}
	}
}

TEST(Fpdu, Bytes)
{
	static const u8 expect_crc[] = {
		0x00, 0x03, 'a', 'b', 'c', 0x00, 0x00, 0x00,
		0x59, 0x23, 0x97, 0x12,	// CRC32c 0x12972359, LSB first
	};
	static const u8 expect_nocrc[] = {
		0x00, 0x03, 'a', 'b', 'c', 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00,
	};
	u8 buf[sizeof(expect_crc)];

	std::memset(buf, 0xee, sizeof(buf));
	ASSERT_EQ(mpa_fpdu_encode("abc", 3, true, buf, sizeof(buf)),
		  int(sizeof(expect_crc)));
	EXPECT_EQ(std::memcmp(buf, expect_crc, sizeof(buf)), 0);
	EXPECT_EQ(FullCrc(buf, 8), 0x12972359U);

	std::memset(buf, 0xee, sizeof(buf));
	ASSERT_EQ(mpa_fpdu_encode("abc", 3, false, buf, sizeof(buf)),
		  int(sizeof(expect_nocrc)));
	EXPECT_EQ(std::memcmp(buf, expect_nocrc, sizeof(buf)), 0);
}

TEST(Fpdu, BadCrc)
{
	static const u8 payload[] = {1, 2, 3, 4, 5};
	const int size = int(mpa_fpdu_size(sizeof(payload)));
	u8 buf[16];

	ASSERT_EQ(size, 12);
	for (int bit = MPA_FPDU_HDR_LEN * 8; bit < size * 8; bit++) {
		const u8 *ulpdu = nullptr;
		u16 ulen = 0;

		ASSERT_EQ(mpa_fpdu_encode(payload, sizeof(payload), true, buf,
					  sizeof(buf)), size);
		buf[bit / 8] ^= u8(1 << (bit % 8));
		auto exact = Exact(buf, size);
		EXPECT_EQ(mpa_fpdu_decode(exact.get(), size, true, 0xffff,
					  &ulpdu, &ulen), -EBADMSG) << bit;
		EXPECT_EQ(ulpdu, nullptr);
		if (bit >= (MPA_FPDU_HDR_LEN + int(sizeof(payload))) * 8) {
			EXPECT_EQ(mpa_fpdu_decode(exact.get(), size, false,
						  0xffff, &ulpdu, &ulen), size);
		}
	}
}

TEST(Fpdu, Truncated)
{
	static const u8 payload[] = "truncated";
	const int size = int(mpa_fpdu_size(sizeof(payload)));
	std::vector<u8> buf(size);
	const u8 *ulpdu = nullptr;
	u16 ulen = 0;

	ASSERT_EQ(mpa_fpdu_encode(payload, sizeof(payload), true, buf.data(),
				  size), size);
	for (int len = 0; len < size; len++) {
		auto exact = Exact(buf.data(), len);
		EXPECT_EQ(mpa_fpdu_decode(exact.get(), len, true, 0xffff,
					  &ulpdu, &ulen), -EAGAIN) << len;
		EXPECT_EQ(mpa_fpdu_decode(exact.get(), len, false, 0xffff,
					  &ulpdu, &ulen), -EAGAIN) << len;
	}
	EXPECT_EQ(mpa_fpdu_decode(nullptr, 0, true, 0xffff, &ulpdu, &ulen),
		  -EAGAIN);
	EXPECT_EQ(ulpdu, nullptr);
	EXPECT_EQ(ulen, 0);
}

TEST(Fpdu, Oversize)
{
	static const u8 hdr[] = {0x00, 0x64};	// ULPDU_Length 100
	std::vector<u8> payload(0xffff, 0x5a);
	std::vector<u8> buf(MPA_FPDU_MAX_LEN);
	const u8 *ulpdu = nullptr;
	u16 ulen = 0;

	EXPECT_EQ(mpa_fpdu_decode(hdr, sizeof(hdr), true, 99, &ulpdu, &ulen),
		  -EPROTO);
	EXPECT_EQ(mpa_fpdu_decode(hdr, sizeof(hdr), true, 100, &ulpdu, &ulen),
		  -EAGAIN);
	EXPECT_EQ(mpa_fpdu_decode(hdr, sizeof(hdr), false, 0, &ulpdu, &ulen),
		  -EPROTO);

	int size = mpa_fpdu_encode(payload.data(), 0xffff, true, buf.data(),
				   buf.size());
	ASSERT_EQ(size, MPA_FPDU_MAX_LEN);
	EXPECT_EQ(mpa_fpdu_decode(buf.data(), size, true, 0xfffe, &ulpdu,
				  &ulen), -EPROTO);
	EXPECT_EQ(ulpdu, nullptr);
	EXPECT_EQ(mpa_fpdu_decode(buf.data(), size, true, 0xffff, &ulpdu,
				  &ulen), size);
	EXPECT_EQ(ulen, 0xffff);
}

TEST(Fpdu, EncodeErrors)
{
	u8 buf[12];

	std::memset(buf, 0xee, sizeof(buf));
	EXPECT_EQ(mpa_fpdu_encode("abc", 3, true, buf, 11), -EMSGSIZE);
	EXPECT_EQ(buf[0], 0xee);
	EXPECT_EQ(buf[10], 0xee);
	EXPECT_EQ(mpa_fpdu_encode("abc", 3, true, nullptr, 12), -EMSGSIZE);
	EXPECT_EQ(mpa_fpdu_encode(nullptr, 3, true, buf, 12), -EINVAL);
	EXPECT_EQ(mpa_fpdu_encode(nullptr, 0, false, buf, 8), 8);
}

TEST(Fpdu, Stream)
{
	u8 buf[64] = {};
	const u8 *ulpdu = nullptr;
	u16 ulen = 0;

	int a = mpa_fpdu_encode("first", 5, true, buf, sizeof(buf));
	ASSERT_EQ(a, 12);
	int b = mpa_fpdu_encode("second!", 7, true, buf + a, sizeof(buf) - a);
	ASSERT_EQ(b, 16);

	EXPECT_EQ(mpa_fpdu_decode(buf, a + b, true, 0xffff, &ulpdu, &ulen), a);
	EXPECT_EQ(ulen, 5);
	EXPECT_EQ(std::memcmp(ulpdu, "first", 5), 0);
	EXPECT_EQ(mpa_fpdu_decode(buf + a, b, true, 0xffff, &ulpdu, &ulen), b);
	EXPECT_EQ(ulen, 7);
	EXPECT_EQ(std::memcmp(ulpdu, "second!", 7), 0);
}

// Host only: random bytes into the decoder, exact-size heap buffers.
TEST(Fpdu, RandomDecode)
{
	std::mt19937 rng(0x4b495750);
	std::uniform_int_distribution<int> byte(0, 255);

	for (int iter = 0; iter < 20000; iter++) {
		size_t len = rng() % 300;
		std::vector<u8> src(len);
		for (auto &b : src)
			b = u8(byte(rng));
		// Often keep the length field small enough to complete
		if (len >= 2 && (iter & 1))
			src[0] = 0;
		auto exact = Exact(src.data(), len);
		bool crc = iter & 2;
		u16 max = u16(rng());
		const u8 *ulpdu = nullptr;
		u16 ulen = 0;

		int rc = mpa_fpdu_decode(exact.get(), len, crc, max, &ulpdu,
					 &ulen);
		if (rc > 0) {
			ASSERT_LE(size_t(rc), len);
			ASSERT_EQ(size_t(rc), mpa_fpdu_size(ulen));
			ASSERT_LE(ulen, max);
			ASSERT_EQ(ulpdu, exact.get() + MPA_FPDU_HDR_LEN);
		} else {
			ASSERT_TRUE(rc == -EAGAIN || rc == -EPROTO ||
				    rc == -EBADMSG) << rc;
			ASSERT_EQ(ulpdu, nullptr);
		}
	}
}

// Host only: random payloads round trip, one bit flip is always caught.
TEST(Fpdu, RandomRoundTrip)
{
	std::mt19937 rng(0x46504455);

	for (int iter = 0; iter < 2000; iter++) {
		u16 len = u16(rng() % 2048);
		std::vector<u8> payload(len);
		for (auto &b : payload)
			b = u8(rng());
		size_t size = mpa_fpdu_size(len);
		std::unique_ptr<u8[]> buf(new u8[size]);
		const u8 *ulpdu = nullptr;
		u16 ulen = 0;

		ASSERT_EQ(mpa_fpdu_encode(payload.data(), len, true, buf.get(),
					  size), int(size));
		ASSERT_EQ(mpa_fpdu_decode(buf.get(), size, true, len, &ulpdu,
					  &ulen), int(size));
		ASSERT_EQ(ulen, len);
		if (len) {
			ASSERT_EQ(std::memcmp(ulpdu, payload.data(), len), 0);
		}

		size_t bit = MPA_FPDU_HDR_LEN * 8 +
			     rng() % ((size - MPA_FPDU_HDR_LEN) * 8);
		buf[bit / 8] ^= u8(1 << (bit % 8));
		ASSERT_EQ(mpa_fpdu_decode(buf.get(), size, true, len, &ulpdu,
					  &ulen), -EBADMSG);
	}
}

}  // namespace
