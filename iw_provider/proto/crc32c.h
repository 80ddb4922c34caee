/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kiwarp: CRC32c (Castagnoli, reflected polynomial 0x82f63b78) for the
 * MPA FPDU CRC (RFC 5044 section 4, RFC 3385).
 *
 * Same convention as the kernel's crc32c(): the value is a raw running
 * register, neither pre- nor post-inverted. A complete CRC is
 * ~iw_crc32c(~0U, buf, len); RFC 3720 B.4 and the "123456789" check
 * value (0xe3069283) are given in that complemented form.
 *
 * Under __KERNEL__ this calls crc32c() (lib/libcrc32c.c); on the host a
 * table driven implementation with identical results is used.
 */
#ifndef KIWARP_PROTO_CRC32C_H
#define KIWARP_PROTO_CRC32C_H

#include "shim.h"

#define IW_CRC32C_SEED	(~(u32)0)

u32 iw_crc32c(u32 crc, const void *buf, size_t len);

#endif /* KIWARP_PROTO_CRC32C_H */
