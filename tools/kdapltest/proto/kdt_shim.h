/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kdapltest wire codec portability shim.
 *
 * kdt_proto.c is built twice: into kdapltest.ko and, unchanged, into the
 * host-side GoogleTest binary (as C11, its header also included from
 * C++). It may only use what this header provides: u8 u16 u32 u64,
 * bool, size_t, memcpy() and memset(), and the errno values
 * EINVAL EPROTO EMSGSIZE EBADMSG (negated, kernel style).
 */
#ifndef KDT_PROTO_SHIM_H
#define KDT_PROTO_SHIM_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/errno.h>
#include <linux/string.h>

#else /* !__KERNEL__ */

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

#endif /* __KERNEL__ */

#endif /* KDT_PROTO_SHIM_H */
