/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kdapl_bench.ko: what the stress workloads (stress.c, many.c) share: a
 * side of a command (an IA and what its EPs share) and the payload
 * patterns every byte moved is checked against.
 */
#ifndef _KDAPL_BENCH_STRESS_H_
#define _KDAPL_BENCH_STRESS_H_

#include <linux/in.h>

#include <dat2/kdat.h>

#include "bench.h"

/* One side of a stress command: an IA and what its EPs share. */
struct st_side {
	DAT_IA_HANDLE ia;
	DAT_EVD_HANDLE async;
	DAT_PZ_HANDLE pz;
	DAT_EVD_HANDLE conn;
	DAT_EVD_HANDLE dto;
};

/* Cookies: the connection's index, and what the request was. */
enum st_kind { ST_SEND = 1, ST_RECV, ST_WRITE, ST_FENCE, ST_FENCE_RECV,
	       ST_READ };

/*
 * st_side_open() - open @ia with a PZ, a connection and a DTO EVD of
 * @qlen events each (notify upcalls: bench_wait_ev() or polling);
 * st_side_close() after, also on a failure. st_side_close() with @check
 * closes the IA gracefully and fails when anything is left on it.
 */
int st_side_open(struct st_side *s, const char *ia, int qlen);
int st_side_close(struct st_side *s, bool check);

/* The command's peer address (addr=, IPv4). */
int st_addr(const struct bench_cmd *c, struct sockaddr_in *sin);

/*
 * Payloads: st_fill() writes the pattern of @seed, which st_seed()
 * makes unique for (connection, sequence, kind) at any offset;
 * st_check() is 0 or -EBADMSG with the first wrong byte reported.
 */
u64 st_seed(u32 conn, u32 seq, enum st_kind kind);
void st_fill(u8 *p, size_t len, u64 seed);
int st_check(const u8 *p, size_t len, u64 seed, const char *what, u32 conn,
	     u32 seq);

/* The "many" workloads (many.c). */
int st_many(const struct bench_cmd *cmd, bool ssp);

#endif /* _KDAPL_BENCH_STRESS_H_ */
