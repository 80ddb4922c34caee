/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kdapl_bench.ko: what the DAT tests' two ends share (dat.c, the active
 * end of each test; resp.c, the responder that is the passive end).
 */
#ifndef _KDAPL_BENCH_DAT_H_
#define _KDAPL_BENCH_DAT_H_

#include <linux/types.h>

#include <dat2/kdat.h>

#define BENCH_EVD_QLEN		512
#define BENCH_RQ		256	/* passive end's receives (SEND test) */
#define BENCH_CREDIT_EVERY	32	/* passive end returns credits per */
#define BENCH_CREDIT_RECVS	16	/* active end's credit receives */
#define BENCH_CREDIT_LEN	8
#define BENCH_HELLO_LEN		64
#define BENCH_CTL_PAGES		2
#define BENCH_CREDIT_OFF	BENCH_HELLO_LEN	/* in ctl page 0 */
#define BENCH_PONG_OFF		PAGE_SIZE	/* ctl page 1 */
#define BENCH_FENCE_OFF		128		/* ctl page 0 */
#define BENCH_FENCE_LEN		8
#define BENCH_GO_OFF		192		/* ctl page 0: "go" */
#define BENCH_GO_LEN		8

enum bench_test {
	BT_SETUP,	/* waiting for the passive end's hello */
	BT_WRITE,
	BT_READ,
	BT_SEND,
	BT_LAT,
	BT_DOWN,	/* tearing down: ignore flushes, post nothing */
};

/*
 * Private data of a data test's connection request: what the active end
 * will do, so that the responder sizes and arms its end. 16 bytes, within
 * every transport's limit (IB CM: 56).
 */
#define BENCH_PD_MAGIC		0x4b444252	/* "KDBR" */
struct bench_pd_req {
	__le32 magic;
	__le32 test;	/* enum bench_test */
	__le32 size;	/* message size */
	__le32 rsvd;
};

/* Private data of the responder's accept: its data region, for RDMA. */
struct bench_pd_rep {
	__le32 magic;
	__le32 rctx;	/* rmr_context of the data LMR */
	__le64 va;	/* its first byte, as the peer addresses it */
};

/**
 * struct bench_mem - registered memory of one end
 * @buf: @len bytes, vmalloc'd (page aligned)
 * @len: size of @buf
 * @lmr: the LMR over @buf
 * @lctx: @lmr's lmr_context
 * @rctx: @lmr's rmr_context, used by the peer
 * @va: @buf's address in the LMR
 */
struct bench_mem {
	u8 *buf;
	size_t len;
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lctx;
	DAT_RMR_CONTEXT rctx;
	DAT_VADDR va;
};

/**
 * struct bench_listen - a passive DAT end: an IA, a PZ, a PSP
 * @name: the IA (device) name; "" when unused
 * @port: the PSP's connection qualifier
 * @ia: the IA
 * @async: the IA's asynchronous EVD
 * @pz: the PZ of the passive ends' LMRs and EPs
 * @cr: the PSP's CR EVD
 * @psp: the PSP
 */
struct bench_listen {
	char name[32];
	u16 port;
	DAT_IA_HANDLE ia;
	DAT_EVD_HANDLE async;
	DAT_PZ_HANDLE pz;
	DAT_EVD_HANDLE cr;
	DAT_PSP_HANDLE psp;
};

int bench_listen_open(struct bench_listen *l, const char *ia, u16 port,
		      DAT_UPCALL_OBJECT *up, DAT_UPCALL_POLICY policy);
void bench_listen_close(struct bench_listen *l);

int bench_mem_open(struct bench_mem *m, DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz,
		   size_t len);
void bench_mem_close(struct bench_mem *m);
DAT_LMR_TRIPLET bench_trip(struct bench_mem *m, size_t off, size_t len);

/* A failed DAT call: say which and with what, as -EIO. */
#define dat_fail(what, ret) \
	({ pr_warn("%s: %s failed: %#x\n", __func__, what, (u32)(ret)); -EIO; })

static inline int dat_chk(const char *what, DAT_RETURN ret)
{
	return ret == DAT_SUCCESS ? 0 : dat_fail(what, ret);
}

/*
 * Event-driven waits (dat.c): an EVD created with DAT_UPCALL_NOTIFY and
 * &bench_ev_up wakes the command, which dequeues; bench_ev_untie() before
 * such an EVD is freed.
 */
extern DAT_UPCALL_OBJECT bench_ev_up;
void bench_ev_untie(DAT_EVD_HANDLE evd);
int bench_wait_ev_ms(DAT_EVD_HANDLE evd, DAT_EVENT *ev, u32 ms);
int bench_wait_ev(DAT_EVD_HANDLE evd, DAT_EVENT *ev);
int bench_expect_ev(DAT_EVD_HANDLE evd, DAT_EVENT_NUMBER num, DAT_EVENT *ev);

/* The responder (resp.c). */
int bench_resp_start(const char *ia, u16 port, u32 cpu);
void bench_resp_stop(void);

#endif /* _KDAPL_BENCH_DAT_H_ */
