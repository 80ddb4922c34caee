/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kiwarp: MPA FPDU framing (RFC 5044 section 4), markers not supported.
 *
 * Wire layout of an FPDU, as sent and expected by Linux siw:
 *
 *   bytes 0..1      ULPDU_Length, big endian (the ULPDU, not the FPDU)
 *   ULPDU_Length    ULPDU (DDP segment)
 *   0..3 bytes      pad, zero on send, so that 2 + ULPDU_Length + pad
 *                   is a multiple of 4
 *   4 bytes         CRC field
 *
 * The CRC field is ALWAYS present, whether or not CRC was negotiated:
 * siw always sends and consumes the 4-byte trailer and zeroes it when
 * CRC is off (RFC 5044 section 4.1). With CRC on it holds
 * ~CRC32c(~0, length field + ULPDU + pad) stored least significant
 * byte first: exactly what the kernel's "crc32c" shash final()
 * (put_unaligned_le32(~crc)) writes for siw, and the byte order in
 * which RFC 3720 B.4 lists its vectors. With CRC off the field is
 * written as zero and ignored on receive.
 */
#ifndef KIWARP_PROTO_FPDU_H
#define KIWARP_PROTO_FPDU_H

#include "shim.h"

#define MPA_FPDU_HDR_LEN	2
#define MPA_FPDU_CRC_LEN	4
/* Largest FPDU: 0xffff byte ULPDU, 3 pad bytes, CRC: 65544 */
#define MPA_FPDU_MAX_LEN	(MPA_FPDU_HDR_LEN + 0xffff + 3 + MPA_FPDU_CRC_LEN)

/* Pad bytes after a ULPDU of @ulpdu_len bytes: 0..3 */
static inline u16 mpa_fpdu_pad(u16 ulpdu_len)
{
	return (u16)(-(MPA_FPDU_HDR_LEN + (u32)ulpdu_len) & 3);
}

/*
 * mpa_fpdu_size() - bytes on the wire for a ULPDU of @ulpdu_len bytes:
 * 2 + @ulpdu_len + pad + 4 (the CRC field is always present).
 */
size_t mpa_fpdu_size(u16 ulpdu_len);

/*
 * mpa_fpdu_encode() - write one FPDU carrying @len bytes of @ulpdu into
 * @buf. Pad bytes are zero; the CRC field is the CRC32c if @crc, else 0.
 *
 * Return: bytes written (mpa_fpdu_size(@len)), -EINVAL if @ulpdu is
 * NULL with non-zero @len, -EMSGSIZE if @buf is NULL or @buflen is too
 * small. @buf is not touched on error.
 */
int mpa_fpdu_encode(const void *ulpdu, u16 len, bool crc, u8 *buf,
		    size_t buflen);

/*
 * mpa_fpdu_decode() - parse the FPDU at the start of @buf (@len bytes
 * available; more may follow). ULPDU_Length is checked against
 * @max_ulpdu before waiting for the rest of the FPDU. With @crc the CRC
 * field is verified, else it is ignored. Pad contents are ignored
 * (except for the CRC).
 *
 * On success *@ulpdu points into @buf at the ULPDU and *@ulpdu_len is
 * its length; on error they are left untouched.
 *
 * Return: FPDU size consumed (> 0), or -EAGAIN if @len does not yet
 * hold the whole FPDU, -EPROTO if ULPDU_Length > @max_ulpdu, -EBADMSG
 * on a CRC mismatch.
 */
int mpa_fpdu_decode(const u8 *buf, size_t len, bool crc, u16 max_ulpdu,
		    const u8 **ulpdu, u16 *ulpdu_len);

#endif /* KIWARP_PROTO_FPDU_H */
