/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The layout both kernel sides of tools/wirepeer give a connection
 * (kiwarp_wire_target.c for the rdma_cm cases, kdapl_wire_target.c for
 * the socket takeover ones): a registered region of REG_LEN bytes and
 * RECV_RING receive buffers of RECV_LEN bytes, each surrounded by GUARD
 * canary bytes (CANARY) that the peer's cases check through debugfs.
 */
#ifndef KDAPL_KUNIT_WIRE_TARGET_H
#define KDAPL_KUNIT_WIRE_TARGET_H

#define REG_LEN		4096
#define RECV_LEN	64
#define RECV_RING	2
#define GUARD		64
#define CANARY		0x5c
#define RBUF_LEN	(RECV_RING * (RECV_LEN + GUARD) + GUARD)

#endif /* KDAPL_KUNIT_WIRE_TARGET_H */
