// SPDX-License-Identifier: GPL-2.0
/*
 * kiwarp: MPA FPDU framing (RFC 5044 section 4). Wire layout and CRC
 * byte order are described in fpdu.h.
 *
 * No kernel-only calls: also compiled into the host tests. Sizes are
 * computed in size_t from u16 values (at most MPA_FPDU_MAX_LEN), so
 * they cannot wrap, and every access is checked against the buffer
 * length first.
 */

#ifdef __KERNEL__
#include <linux/export.h>
#include <linux/module.h>
#endif

#include "crc32c.h"
#include "fpdu.h"

/* CRC field: complemented CRC32c, least significant byte first */
static void mpa_fpdu_put_crc(u32 crc, u8 *p)
{
	p[0] = (u8)crc;
	p[1] = (u8)(crc >> 8);
	p[2] = (u8)(crc >> 16);
	p[3] = (u8)(crc >> 24);
}

static u32 mpa_fpdu_get_crc(const u8 *p)
{
	return (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 |
	       (u32)p[3] << 24;
}

size_t mpa_fpdu_size(u16 ulpdu_len)
{
	return MPA_FPDU_HDR_LEN + (size_t)ulpdu_len +
	       mpa_fpdu_pad(ulpdu_len) + MPA_FPDU_CRC_LEN;
}
EXPORT_SYMBOL_NS_GPL(mpa_fpdu_size, KIWARP_INTERNAL);

int mpa_fpdu_encode(const void *ulpdu, u16 len, bool crc, u8 *buf,
		    size_t buflen)
{
	size_t size = mpa_fpdu_size(len);
	size_t crc_off = size - MPA_FPDU_CRC_LEN;
	u16 pad = mpa_fpdu_pad(len);

	if (len && !ulpdu)
		return -EINVAL;
	if (!buf || buflen < size)
		return -EMSGSIZE;

	put_unaligned_be16(len, buf);
	if (len)
		memcpy(buf + MPA_FPDU_HDR_LEN, ulpdu, len);
	if (pad)
		memset(buf + MPA_FPDU_HDR_LEN + len, 0, pad);
	if (crc)
		mpa_fpdu_put_crc(~iw_crc32c(IW_CRC32C_SEED, buf, crc_off),
				 buf + crc_off);
	else
		memset(buf + crc_off, 0, MPA_FPDU_CRC_LEN);

	return (int)size;
}
EXPORT_SYMBOL_NS_GPL(mpa_fpdu_encode, KIWARP_INTERNAL);

int mpa_fpdu_decode(const u8 *buf, size_t len, bool crc, u16 max_ulpdu,
		    const u8 **ulpdu, u16 *ulpdu_len)
{
	size_t size, crc_off;
	u16 ulen;

	if (!buf || len < MPA_FPDU_HDR_LEN)
		return -EAGAIN;

	ulen = get_unaligned_be16(buf);
	if (ulen > max_ulpdu)
		return -EPROTO;

	size = mpa_fpdu_size(ulen);
	if (len < size)
		return -EAGAIN;

	crc_off = size - MPA_FPDU_CRC_LEN;
	if (crc && mpa_fpdu_get_crc(buf + crc_off) !=
		   (u32)~iw_crc32c(IW_CRC32C_SEED, buf, crc_off))
		return -EBADMSG;

	*ulpdu = buf + MPA_FPDU_HDR_LEN;
	*ulpdu_len = ulen;
	return (int)size;
}
EXPORT_SYMBOL_NS_GPL(mpa_fpdu_decode, KIWARP_INTERNAL);
