/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kdapltest.ko internals: dapltest's client and server over kDAPL.
 *
 * Lifetimes: a struct kdt_file lives from open() to release() of
 * /dev/kdapltest; a KDT_IOC_RUN holds the file, so every test the run
 * starts (struct kdt_ctx, its threads and endpoints) is gone before the
 * ioctl returns and the file can be released.
 */
#ifndef KDT_H
#define KDT_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/in.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <asm/byteorder.h>

#include <dat2/kdat.h>

#include "proto/kdt_proto.h"
#include "uapi/kdapltest.h"

#define KDT_CONN_TIMEOUT_MS	30000
#define KDT_DTO_TIMEOUT_MS	30000
#define KDT_SYNC_TIMEOUT_MS	10000
#define KDT_DISC_TIMEOUT_MS	5000
#define KDT_CONNECT_USEC	(30ULL * 1000 * 1000)
#define KDT_ASYNC_QLEN		16
/* -T L: at most this many objects per limit test, whatever -m says */
#define KDT_LIMIT_CAP		65536
/* segments per DTO: kdapl's KDAPL_MAX_IOV */
#define KDT_MAX_SEGS		8
/* RDMA Read depths of a transaction test's EPs, at most: kdapl's default */
#define KDT_MAX_RDMA_READS	4U

/*
 * dapltest's is_little_endian fields: a big-endian peer byte-swaps the
 * RDMA contexts and addresses it sends us, so this must be right (x86
 * has no CONFIG_CPU_LITTLE_ENDIAN; asm/byteorder.h says it).
 */
#ifdef __LITTLE_ENDIAN
#define KDT_LITTLE_ENDIAN	1
#else
#define KDT_LITTLE_ENDIAN	0
#endif

/* An EVD whose NORIFY upcall wakes a sleeping consumer. */
struct kdt_evd {
	DAT_EVD_HANDLE h;
	wait_queue_head_t wq;
	atomic_t seq;		/* bumped by every upcall */
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

/*
 * What one open /dev/kdapltest shows of its running KDT_IOC_RUN through
 * KDT_IOC_STATUS (struct kdt_status): counters only, written by the run
 * and its threads, read by another thread of the front end.
 */
struct kdt_file {
	atomic_t state;			/* KDT_STATE_* */
	atomic_t tests_done, tests_failed, tests_running, rejected;
	atomic64_t wqes, wqes_total;
	u32 port;			/* the server's port, set before READY */
	spinlock_t lock;		/* @last_error */
	char last_error[KDT_MESSAGE_MAX];
};

void kdt_file_error(struct kdt_file *f, const char *msg);

/* One endpoint of a transaction test thread. */
struct kdt_ep {
	struct kdt_evd recv, reqt, conn;
	struct kdt_evd creq;		/* server: connection requests */
	DAT_PSP_HANDLE psp;		/* server: single use, port of the EP */
	DAT_RSP_HANDLE rsp;		/* server with -r */
	DAT_EP_HANDLE ep;
	struct kdt_pool rmi;
	struct kdt_pool *pool;		/* one per op */
	struct kdt_rmi *remote;		/* per op, for the ops we initiate */
};

struct kdt_ctx;

/* One dapltest thread: its endpoints on ports base_port + n. */
struct kdt_thread {
	struct kdt_ctx *ctx;
	unsigned int index;
	u32 base_port;
	DAT_PZ_HANDLE pz;
	struct kdt_ep *eps;
	u64 time_us, bytes_send, bytes_recv, bytes_rr, bytes_rw;
};

/*
 * One transaction test, client or server side. The client's lives in
 * its KDT_IOC_RUN; a server's is created by the server loop for each
 * client, runs on its own threads while the loop serves the next
 * client, and is freed by the loop once @done (server.c).
 */
struct kdt_ctx {
	bool is_server;
	bool is_perf;			/* in a struct kdt_perf */
	bool debug;
	DAT_IA_HANDLE ia;
	struct sockaddr_in server;	/* client: the server's address */
	struct kdt_transaction_cmd cmd;
	struct kdt_server_info sinfo;
	struct kdt_file *file;		/* progress counters */
	struct list_head node;		/* server: its list of running tests */
	unsigned int test_no;		/* server: clients served so far */

	unsigned int nthreads;
	struct kdt_thread *threads;
	unsigned int started;		/* threads running or run */
	atomic_t threads_left;		/* running; the last completes @done */
	struct completion done;

	/* server: connection requests seen; wakes @sync_wq */
	atomic_t requests;
	/* the sync barrier (client) and diagnostics */
	atomic_t sync_left;
	atomic_t sleeps, long_sleeps;	/* kdt_wait(), diagnostics */
	atomic_t lost_wakeups;		/* events found without their upcall */
	wait_queue_head_t sync_wq;
	spinlock_t lock;		/* the fields below */
	u64 wqes, time_us, bytes_send, bytes_recv, bytes_rr, bytes_rw;
	bool failed;
	int status;			/* first error, negative errno */
	char message[KDT_MESSAGE_MAX];	/* its text */
};

void kdt_ctx_init(struct kdt_ctx *ctx, bool is_server, struct kdt_file *f);
void kdt_fail(struct kdt_ctx *ctx, int err, const char *fmt, ...)
	__printf(3, 4);
bool kdt_failed(struct kdt_ctx *ctx);
const char *kdt_dat_str(DAT_RETURN ret);

DAT_RETURN kdt_evd_create(struct kdt_ctx *ctx, DAT_COUNT qlen,
			  DAT_EVD_FLAGS flags, struct kdt_evd *e);
void kdt_evd_free(struct kdt_evd *e);
int kdt_wait(struct kdt_ctx *ctx, struct kdt_evd *e, DAT_EVENT *ev,
	     unsigned int ms, bool poll);
int kdt_dto_wait(struct kdt_ctx *ctx, struct kdt_evd *e, u64 cookie, u64 len,
		 bool poll, const char *what);
int kdt_conn_wait(struct kdt_ctx *ctx, struct kdt_evd *e, const char *what);
void kdt_wait_peer_close(struct kdt_ctx *ctx, DAT_EP_HANDLE ep,
			 struct kdt_evd *conn);
void kdt_disconnect(struct kdt_ctx *ctx, DAT_EP_HANDLE ep,
		    struct kdt_evd *conn);
int kdt_pool_alloc(struct kdt_ctx *ctx, DAT_PZ_HANDLE pz, struct kdt_pool *p,
		   u32 seg_size, u32 num);
void kdt_pool_free(struct kdt_pool *p);
u8 *kdt_seg(struct kdt_pool *p, u32 i);
int kdt_post1(struct kdt_ctx *ctx, DAT_EP_HANDLE ep, bool send,
	      struct kdt_pool *p, u32 i, u32 len, u64 cookie);

/* The transaction test (test.c) */
int kdt_tt_alloc(struct kdt_ctx *ctx);
int kdt_tt_setup_thread(struct kdt_thread *t);
int kdt_tt_start(struct kdt_ctx *ctx, bool setup_in_thread);
int kdt_tt_wait(struct kdt_ctx *ctx);
void kdt_tt_free(struct kdt_ctx *ctx);

/*
 * One performance test, either side (perf.c): the client's runs in its
 * KDT_IOC_RUN, a server's on a thread of its own; the server loop frees
 * it once @ctx.done.
 */
struct kdt_perf {
	struct kdt_ctx ctx;		/* IA, server address, failure, done */
	struct kdt_perf_cmd cmd;
	u32 port;			/* Server_Info's first port */
	u32 pipeline;
	DAT_PZ_HANDLE pz;
	struct kdt_evd recv, reqt, conn, creq;
	DAT_EP_HANDLE ep;
	DAT_PSP_HANDLE psp;		/* server, until the request */
	struct kdt_pool sync;		/* memory info / sync: send, recv */
	struct kdt_pool op;		/* the RDMA buffer */
	struct kdt_rmi remote;		/* client: the server's buffer */
	u64 time_us, lat_min, lat_avg, lat_max;
};

const char *kdt_perf_check(const struct kdt_perf_cmd *cmd);
int kdt_perf_client(struct kdt_perf *p);
int kdt_perf_server_start(struct kdt_perf *p);
void kdt_perf_free(struct kdt_perf *p);

/*
 * One -T L or -T F run (cases.c, limit.c, fft.c): its parameters and
 * results (copied from and back to the caller's struct kdt_cases) and
 * the case in progress. Runs in the KDT_IOC_RUN, one case after the
 * other; nothing is shared with another thread.
 */
struct kdt_cases_run {
	struct kdt_run *run;
	struct kdt_cases *c;
	struct kdt_case_result *r;	/* the case in progress, or NULL */
	u64 start_ns;
	bool debug;
};

void kdt_case_begin(struct kdt_cases_run *cr, u32 index, const char *name,
		    const char *desc);
void kdt_case_fail(struct kdt_cases_run *cr, DAT_RETURN ret,
		   const char *fmt, ...) __printf(3, 4);
void kdt_case_skip(struct kdt_cases_run *cr, const char *fmt, ...)
	__printf(2, 3);
void kdt_case_note(struct kdt_cases_run *cr, const char *fmt, ...)
	__printf(2, 3);
bool kdt_case_expect(struct kdt_cases_run *cr, DAT_RETURN got,
		     DAT_RETURN want, const char *what);
bool kdt_case_failed(const struct kdt_cases_run *cr);
void kdt_case_end(struct kdt_cases_run *cr);
bool kdt_case_wanted(const struct kdt_cases_run *cr, u32 index);
DAT_RETURN kdt_evd_kcreate(DAT_IA_HANDLE ia, DAT_COUNT qlen,
			   DAT_EVD_FLAGS flags, struct kdt_evd *e);
DAT_RETURN kdt_evd_wait_us(struct kdt_evd *e, u64 timeout_us, DAT_EVENT *ev);

void kdt_limit_run(struct kdt_cases_run *cr);
void kdt_fft_run(struct kdt_cases_run *cr);
int kdt_cases_ioctl(struct kdt_run *run, struct kdt_file *f);

int kdt_client_run(struct kdt_run *run, struct kdt_file *f);
int kdt_server_run(struct kdt_run *run, struct kdt_file *f);

#endif /* KDT_H */
