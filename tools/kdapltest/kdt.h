/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kdapltest.ko internals: the dapltest client over kDAPL.
 */
#ifndef KDT_H
#define KDT_H

#include <linux/atomic.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include <dat2/kdat.h>

#include "proto/kdt_proto.h"
#include "uapi/kdapltest.h"

/* An EVD whose NORIFY upcall wakes a sleeping consumer. */
struct kdt_evd {
	DAT_EVD_HANDLE h;
	wait_queue_head_t wq;
	atomic_t seq;
};

/* A dapltest buffer pool: @num segments of @seg bytes, one LMR. */
struct kdt_pool {
	u8 *buf;
	u32 seg;		/* segment stride, rounded to KDT_SEG_ALIGN */
	u32 num;
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lctx;
	DAT_RMR_CONTEXT rctx;
	DAT_VADDR addr;
};

/* One run of KDT_IOC_RUN. */
struct kdt_ctx {
	struct kdt_run *run;		/* the request; result filled here */
	bool debug;
	DAT_IA_HANDLE ia;
	struct sockaddr_in server;
	struct kdt_transaction_cmd cmd;
	struct kdt_server_info sinfo;

	/* client threads: the sync barrier and the statistics */
	atomic_t sync_left;
	atomic_t sleeps, sleep_timeouts;	/* kdt_wait(), diagnostics */
	wait_queue_head_t sync_wq;
	spinlock_t lock;		/* the fields below */
	u64 wqes, time_us, bytes_send, bytes_recv, bytes_rr, bytes_rw;
	bool failed;
};

int kdt_client_run(struct kdt_run *run);

void kdt_fail(struct kdt_ctx *ctx, int err, const char *fmt, ...)
	__printf(3, 4);

#endif /* KDT_H */
