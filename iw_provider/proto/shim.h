/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kiwarp protocol code portability shim.
 *
 * The sources under iw_provider/proto/ are built twice: into kiwarp.ko
 * and, unchanged, into the host-side GoogleTest binaries (as C11, with
 * headers also included from C++). They may only use what this header
 * provides:
 *
 *   u8 u16 u32 u64 s32, __be16 __be32, bool, size_t
 *   cpu_to_be16() be16_to_cpu() cpu_to_be32() be32_to_cpu()
 *   get_unaligned_be16() put_unaligned_be16()
 *   get_unaligned_be32() put_unaligned_be32()
 *   memcpy() memcmp() memset()
 *   EINVAL EPROTO EMSGSIZE EAGAIN EBADMSG (used negated, kernel style)
 *   EXPORT_SYMBOL_NS_GPL() (a no-op declaration on the host)
 *
 * On the host, __be16/__be32 are plain integers: sparse endianness
 * checking only happens in the kernel build.
 */
#ifndef KIWARP_PROTO_SHIM_H
#define KIWARP_PROTO_SHIM_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/export.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <asm/byteorder.h>
#include <asm/unaligned.h>

#else /* !__KERNEL__ */

#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <errno.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

typedef __UINT8_TYPE__ u8;
typedef __UINT16_TYPE__ u16;
typedef __UINT32_TYPE__ u32;
typedef __UINT64_TYPE__ u64;
typedef __INT32_TYPE__ s32;
typedef __UINT16_TYPE__ __be16;
typedef __UINT32_TYPE__ __be32;

/* Host: nothing to export; still a valid file scope declaration */
#define EXPORT_SYMBOL_NS_GPL(sym, ns) struct kiwarp_host_no_export

/*
 * GCC/Clang builtins rather than <endian.h>: htobe16() and friends are
 * hidden by glibc under strict -std=c11.
 */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define cpu_to_be16(x) ((__be16)(u16)(x))
#define cpu_to_be32(x) ((__be32)(u32)(x))
#else
#define cpu_to_be16(x) ((__be16)__builtin_bswap16((u16)(x)))
#define cpu_to_be32(x) ((__be32)__builtin_bswap32((u32)(x)))
#endif
#define be16_to_cpu(x) ((u16)cpu_to_be16(x))
#define be32_to_cpu(x) ((u32)cpu_to_be32(x))

static inline u16 get_unaligned_be16(const void *p)
{
	const u8 *b = (const u8 *)p;

	return (u16)((u16)b[0] << 8 | b[1]);
}

static inline u32 get_unaligned_be32(const void *p)
{
	const u8 *b = (const u8 *)p;

	return (u32)b[0] << 24 | (u32)b[1] << 16 | (u32)b[2] << 8 | b[3];
}

static inline void put_unaligned_be16(u16 val, void *p)
{
	u8 *b = (u8 *)p;

	b[0] = (u8)(val >> 8);
	b[1] = (u8)val;
}

static inline void put_unaligned_be32(u32 val, void *p)
{
	u8 *b = (u8 *)p;

	b[0] = (u8)(val >> 24);
	b[1] = (u8)(val >> 16);
	b[2] = (u8)(val >> 8);
	b[3] = (u8)val;
}

#endif /* __KERNEL__ */

#endif /* KIWARP_PROTO_SHIM_H */
