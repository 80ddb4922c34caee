/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kiwarp: the one local header of the RNIC provider (objects, locks,
 * cross-file calls). Documentation/iw_provider.rst describes the design.
 *
 * Object overview (who owns what):
 *
 *   kiwarp_dev   one per `rdma link add ... type kiwarp`; memory owned by
 *                ib_core (ib_alloc_device), freed after dealloc_driver.
 *   kiwarp_pd    embedded in ib_pd (core allocated).
 *   kiwarp_cq    embedded in ib_cq (core allocated).
 *   kiwarp_qp    embedded in ib_qp (core allocated); a kref counts the
 *                users that may still touch it after destroy_qp starts
 *                (iw_cm, the connection works); destroy_qp waits for zero.
 *   kiwarp_mr    allocated here, indexed by STag in kdev->mr_xa, kref'd by
 *                lookups; dereg waits for the last lookup to finish.
 *   kiwarp_cep   a TCP connection during MPA setup (cm.c).
 *   kiwarp_listen a listening iw_cm_id: one TCP listener per address.
 */
#ifndef KIWARP_H
#define KIWARP_H

#include <linux/types.h>
#include <linux/kref.h>
#include <linux/completion.h>
#include <linux/spinlock.h>
#include <linux/mutex.h>
#include <linux/xarray.h>
#include <linux/workqueue.h>
#include <linux/irq_work.h>
#include <linux/interrupt.h>
#include <linux/smp.h>
#include <linux/netdevice.h>
#include <net/sock.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>
#include <linux/seq_file.h>

#include "mpa.h"
#include "ddp.h"
#include "fpdu.h"
#include "crc32c.h"

#define KIWARP_VERSION		"0.2"
#define KIWARP_NODE_DESC	"kiwarp software iWARP RNIC"

#define KIWARP_MAX_QP		1024
#define KIWARP_MAX_QP_WR	1024
#define KIWARP_MAX_SGE		4
#define KIWARP_MAX_SGE_RD	1
#define KIWARP_MAX_CQ		1024
#define KIWARP_MAX_CQE		8192
#define KIWARP_MAX_PD		1024
#define KIWARP_MAX_MR		4096
#define KIWARP_MAX_ORD		32
#define KIWARP_MAX_IRD		32
#define KIWARP_MAX_FRMR_PAGES	256
/* MRs are indexed by the upper 24 bits of their STag */
#define KIWARP_STAG_IDX_MAX	((1U << 24) - 1)

extern bool kiwarp_mpa_crc;		/* module parameter: request CRC */
extern bool kiwarp_cq_affinity;		/* module parameter: see cq.c */
extern bool kiwarp_test_fail_work;	/* test hook, kiwarp_work_run() */
extern atomic_t kiwarp_test_lose_fin;	/* test hook, kiwarp_tcp_shutdown() */
extern unsigned int kiwarp_close_timeout_ms;	/* graceful close bound */
extern unsigned int kiwarp_sock_sndtimeo_ms;	/* takeover's send bound */
extern unsigned int kiwarp_fpdu_segs;	/* FPDU size in MSS, module parameter */
extern int kiwarp_zcopy_min;	/* zero-copy from this size, zc.c */
extern struct workqueue_struct *kiwarp_wq;	/* connection, TX, RX works */
extern struct workqueue_struct *kiwarp_down_wq;	/* teardown works */
extern struct workqueue_struct *kiwarp_cm_wq;	/* active connect works */
extern struct dentry *kiwarp_debugfs_root;

/*
 * Our MPA Request offers FPDUs longer than one segment (MPA_FLAG_GSO_EXP,
 * siw's bit) when fpdu_segs allows them, our Reply accepts such an offer;
 * a connection whose two frames had the bit sends them
 * (kiwarp_bind.large_fpdu).
 */
static inline bool kiwarp_large_fpdu_offered(void)
{
	return READ_ONCE(kiwarp_fpdu_segs) > 1;
}

/**
 * kiwarp_work_run() - run a work function of kiwarp's
 * @fn: the work's body
 * @work: its work item
 *
 * With the test_fail_work hook set, the body runs as a task the fault
 * injectors' task filter selects (current->make_it_fail), and the worker
 * is given back as it was. The compiler makes @fn a direct call.
 */
static inline void kiwarp_work_run(void (*fn)(struct work_struct *work),
				   struct work_struct *work)
{
#ifdef CONFIG_FAULT_INJECTION
	int was = current->make_it_fail;

	if (unlikely(READ_ONCE(kiwarp_test_fail_work)))
		current->make_it_fail = 1;
	fn(work);
	current->make_it_fail = was;
#else
	fn(work);
#endif
}

/*
 * Per-QP statistics (debugfs, restrack, the port's hw counters).
 * Updated by the TX and RX works only, read racily by those.
 */
struct kiwarp_qp_stats {
	u64 tx_bytes;
	u64 rx_bytes;
	u64 tx_fpdus;
	u64 rx_fpdus;
	u64 tx_zc_batches;	/* batches lent to TCP without a copy */
	u64 tx_waits;		/* sends that found the socket's buffer full */
	u32 terms_sent;
	u32 terms_rcvd;
	u32 errors;
	u32 crc_errors;		/* FPDUs whose MPA CRC did not match */
};

/* The same summed over a device's QPs (stats.c): 64 bits, no wrap */
struct kiwarp_dev_stats {
	u64 tx_bytes;
	u64 rx_bytes;
	u64 tx_fpdus;
	u64 rx_fpdus;
	u64 tx_zc_batches;
	u64 tx_waits;
	u64 terms_sent;
	u64 terms_rcvd;
	u64 errors;
	u64 crc_errors;
};

/*
 * struct kiwarp_dev - one RNIC.
 *
 * Owner: ib_core (ib_alloc_device); alive from newlink until
 * dealloc_driver returns. @netdev is held by ib_core from
 * ib_device_set_netdev until unregistration.
 * @list is on kiwarp_devices under kiwarp_devices_lock (device.c).
 * @qp_xa, @mr_xa: the xarrays' own locks (mr_xa: irq safe, looked up
 * from the data path under RCU).
 */
struct kiwarp_dev {
	struct ib_device ibdev;
	struct net_device *netdev;
	struct list_head list;
	struct xarray qp_xa;
	struct xarray mr_xa;
	u32 mr_next;		/* cyclic STag index hint, mr_xa lock */
	atomic_t num_pd;
	atomic_t num_cq;
	atomic_t num_qp;
	atomic_t num_mr;
	atomic64_t cr_dropped;	/* connection requests iw_cm had no room for */
	/*
	 * The port's hw counters (stats.c) sum @stats_qps, every QP from
	 * create to destroy, and @retired, what destroyed QPs counted:
	 * both under @stats_lock, so a QP's counts move from one to the
	 * other at once and the sums never go back.
	 */
	spinlock_t stats_lock;
	struct list_head stats_qps;
	struct kiwarp_dev_stats retired;
	struct dentry *debugfs;
};

static inline struct kiwarp_dev *to_kdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct kiwarp_dev, ibdev);
}

struct kiwarp_pd {
	struct ib_pd ibpd;
};

static inline struct kiwarp_pd *to_kpd(struct ib_pd *pd)
{
	return container_of(pd, struct kiwarp_pd, ibpd);
}

/*
 * struct kiwarp_cq - a completion queue: a ring of ib_wc.
 *
 * @lock (irq safe) protects the ring, @armed and @overflow. Producers
 * are the QP paths (any context), the consumer is poll_cq.
 * @notify_tasklet runs ibcq.comp_handler in softirq context: on the
 * raising CPU, or if @affine on @cpu, the CPU of the CQ's completion
 * vector: scheduled there directly (through @kick_work from plain
 * process context), or through @csd (an async IPI to @cpu, counted in
 * @csd_inflight) from another CPU; on the raising CPU while @cpu is
 * offline (@offline_raises counts those). @notifies counts the
 * handler's runs. destroy_cq waits for @csd_inflight to drop to zero,
 * then irq_work_sync() and tasklet_kill(). @cpu is set at creation and
 * never changes; @affine is set at creation from the cq_affinity
 * parameter and changed only by a consumer's kiwarp_cq_set_affine()
 * (READ_ONCE/WRITE_ONCE). @err_work reports an overflow (IB_EVENT_CQ_ERR)
 * from hard irq context on the producing CPU, never under the caller's
 * locks: a consumer may modify the QP from its event handler.
 */
struct kiwarp_cq {
	struct ib_cq ibcq;
	spinlock_t lock;		/* ring, head, tail, armed, overflow */
	struct ib_wc *ring;
	u32 size;		/* entries, a power of two */
	u32 head;		/* next to poll */
	u32 tail;		/* next to fill */
	u8 armed;		/* 0, IB_CQ_SOLICITED or IB_CQ_NEXT_COMP */
	bool overflow;
	bool affine;		/* handler on @cpu (see above) */
	int cpu;		/* its completion vector's CPU */
	struct tasklet_struct notify_tasklet;
	struct irq_work kick_work;
	struct irq_work err_work;	/* IB_EVENT_CQ_ERR, after an overflow */
	call_single_data_t csd;
	atomic_t csd_inflight;
	atomic64_t notifies;
	atomic64_t offline_raises;
};

static inline struct kiwarp_cq *to_kcq(struct ib_cq *cq)
{
	return container_of(cq, struct kiwarp_cq, ibcq);
}

enum kiwarp_mr_kind {
	KIWARP_MR_DMA,		/* kernel virtual addresses, local only */
	KIWARP_MR_FRMR,		/* fast registration page list */
};

/*
 * struct kiwarp_mr - a memory region and its STag.
 *
 * Owner: the consumer (alloc_mr/get_dma_mr .. dereg_mr). @ref: one for
 * the registration, one per data path lookup (kiwarp_mr_get). dereg
 * removes the STag from mr_xa, drops its reference and waits on @done.
 * @valid, @stag, @iova, @length, @access, @npages: written by REG_MR /
 * LOCAL_INV in the QP's TX work and map_mr_sg (consumer serialises
 * with the WRs it posts); read by the data path, which re-checks
 * @valid under the QP's RX/TX work ordering. @pages holds kernel
 * virtual addresses (the device uses virtual DMA).
 */
struct kiwarp_mr {
	struct ib_mr ibmr;
	struct kiwarp_dev *kdev;
	struct kref ref;
	struct completion done;
	struct rcu_head rcu;
	enum kiwarp_mr_kind kind;
	u32 index;
	u32 stag;
	bool valid;
	int access;
	u64 iova;
	u64 length;
	u32 page_shift;
	u32 npages;
	u32 max_pages;
	u64 *pages;
};

static inline struct kiwarp_mr *to_kmr(struct ib_mr *mr)
{
	return container_of(mr, struct kiwarp_mr, ibmr);
}

/* QP states (RDMAC verbs); names in kiwarp_qp_state_name[] (qp.c) */
enum kiwarp_qp_state {
	KIWARP_QPS_IDLE,
	KIWARP_QPS_RTS,
	KIWARP_QPS_CLOSING,
	KIWARP_QPS_TERMINATE,
	KIWARP_QPS_ERROR,
	KIWARP_QPS_COUNT
};

/*
 * struct kiwarp_cursor - walks an SGE list (or one tagged range) as
 * kernel virtual pieces, checking each SGE's STag on entry: PD, access
 * and bounds. @remote: STags come from the wire (STag 0 refused).
 * @mr is referenced while the cursor stands in its SGE. Owned by one
 * work (TX or RX); kiwarp_cursor_end() releases it.
 */
struct kiwarp_cursor {
	struct kiwarp_qp *qp;
	const struct ib_sge *sge;
	u32 nsge;
	u32 i;
	u32 off;		/* bytes consumed in sge[i] */
	int access;
	bool remote;
	struct kiwarp_mr *mr;
	u8 ecode;		/* RDMAP error code after -EACCES */
	struct ib_sge one;	/* storage for a single tagged range */
};

/* A send queue work request, copied from ib_send_wr at post time */
struct kiwarp_swqe {
	u64 wr_id;
	enum ib_wr_opcode opcode;
	int flags;		/* IB_SEND_* */
	u32 num_sge;
	struct ib_sge sge[KIWARP_MAX_SGE];
	u32 total_len;
	u64 remote_addr;
	u32 rkey;
	u32 ex_key;		/* invalidate STag (SEND_INV, LOCAL_INV) */
	struct kiwarp_mr *reg_mr;	/* IB_WR_REG_MR */
	u32 reg_key;
	int reg_access;
	u32 sent;		/* bytes of payload sent so far */
	bool done;		/* finished, waiting for older WQEs */
	enum ib_wc_status status;
	u32 byte_len;		/* for the completion */
};

struct kiwarp_rwqe {
	u64 wr_id;
	u32 num_sge;
	struct ib_sge sge[KIWARP_MAX_SGE];
	u32 total_len;
};

/* An outstanding RDMA READ we issued (ORQ) */
struct kiwarp_orqe {
	u32 sq_idx;		/* its SQ slot */
	u32 sink_stag;
	u64 sink_to;
	u32 len;
	u32 placed;
	/*
	 * RDMA_READ_WITH_INV: @inv_key is invalidated once the last
	 * response is placed, before the completion. A flushed Read
	 * leaves it valid (as siw): the consumer invalidates or frees it.
	 */
	bool inv;
	u32 inv_key;
};

static inline bool kiwarp_wr_is_read(enum ib_wr_opcode op)
{
	return op == IB_WR_RDMA_READ || op == IB_WR_RDMA_READ_WITH_INV;
}

/* An inbound RDMA READ we must answer (IRQ) */
struct kiwarp_irqe {
	u32 sink_stag;
	u64 sink_to;
	u32 src_stag;
	u64 src_to;
	u32 len;
};

/* RX parser stages of one FPDU */
enum kiwarp_rx_stage {
	KIWARP_RX_HDR,		/* MPA length + DDP/RDMAP header */
	KIWARP_RX_PAYLOAD,	/* placing the payload */
	KIWARP_RX_TRAILER,	/* pad + CRC */
};

/*
 * struct kiwarp_rx - receive side state of a connected QP. Only the
 * QP's rx_work touches it (one work item never runs concurrently).
 */
struct kiwarp_rx {
	enum kiwarp_rx_stage stage;
	u8 hdr[DDP_HDR_MAX + MPA_FPDU_HDR_LEN];
	u32 hdr_got;
	u32 hdr_need;
	struct ddp_hdr dh;
	u32 pay_len;		/* payload bytes in this FPDU */
	u32 pay_got;
	u8 trailer[3 + MPA_FPDU_CRC_LEN];
	u32 trl_need;
	u32 trl_got;
	u32 crc;
	struct kiwarp_rwqe rwqe; /* copy of the Send's receive WQE */
	/*
	 * Two placement contexts, as DDP has two models: @scur walks the
	 * receive WQE of the Send in progress and lives across its
	 * segments (holding the MR of the SGE it stands in); @tcur is the
	 * tagged range of one Write or Read Response segment. Tagged
	 * segments may come between the segments of a Send, so neither
	 * may touch the other. @place is the one this FPDU's payload
	 * goes to. A cursor's *_live flag says it may hold an MR.
	 */
	struct kiwarp_cursor scur;
	struct kiwarp_cursor tcur;
	struct kiwarp_cursor *place;
	bool scur_live;
	bool tcur_live;
	bool discarding;	/* payload goes to @discard */
	u16 mpa_len;
	u32 msg_len;		/* bytes of the current message so far */
	u32 msn[DDP_QN_COUNT];	/* next expected MSN per queue */
	bool in_send;		/* a multi-segment SEND is in progress */
	u8 in_op;
	/*
	 * The bytes being parsed: a piece of a received skb, lent by
	 * tcp_read_sock() to the RX work's actor (socket lock held).
	 */
	const struct sk_buff *skb;
	u32 skb_off;
	u32 skb_left;
	int err;		/* this pass stopped on an error */
	bool halt;		/* this pass stopped: the QP left RTS/CLOSING */
	u8 discard[256];	/* sink for payload that is dropped */
};

struct kiwarp_qp;

/* FPDUs handed to TCP per kernel_sendmsg(), and the kvecs for them */
#define KIWARP_TX_BATCH		16
#define KIWARP_TX_VECS		64

/*
 * struct kiwarp_txbuf - the TX work's buffers for one kernel_sendmsg():
 * the MPA length + DDP/RDMAP header and the pad + CRC of each FPDU of a
 * batch, and the kvecs that chain them with the payload pieces.
 */
#define KIWARP_ZC_BVECS		(2 * KIWARP_TX_VECS)

struct kiwarp_txbuf {
	u8 hdr[KIWARP_TX_BATCH][MPA_FPDU_HDR_LEN + DDP_HDR_MAX];
	u8 trl[KIWARP_TX_BATCH][3 + MPA_FPDU_CRC_LEN];
	struct kvec vec[KIWARP_TX_VECS];
	struct bio_vec bvec[KIWARP_ZC_BVECS];	/* the same, by page (zc.c) */
};

/*
 * struct kiwarp_txmsg - the message the TX work is sending, kept across
 * its passes (tx.c). TCP may take only part of a batch when the peer
 * reads slowly: the TX work then returns, and sk_write_space queues it
 * again (kiwarp_sk_write_space()), instead of sleeping in sendmsg, where
 * a worker - or kiwarp_wq's rescuer, with every work queued behind it -
 * would wait for a peer that may never read. TX work only; released by
 * the teardown (kiwarp_tx_release()).
 * @kind: what it is, KIWARP_TXM_NONE when there is none
 * @idx: a WQE's SQ slot (counted as processed)
 * @h: its header, @hlen bytes encoded; the payload at most @max_pay
 *	bytes an FPDU
 * @read: a WQE's Read Request (it completes in RX, not here)
 * @src: where the payload comes from (the current SGE's MR referenced;
 *	the memory of pieces still in unsent kvecs is the ULP's, as for any
 *	WQE not completed)
 * @base_to: the first byte's tagged offset
 * @total: payload bytes; @sent: those put in batches so far
 * @try_zc: its batches may be lent to TCP (zc.c); @zc: one was
 * @nv: kvecs of the batch in qp->txb; @flen: its bytes; @done: those
 *	TCP took; @nf: its FPDUs; @payload: its payload bytes; @more:
 *	MSG_MORE (more of the message follows)
 */
enum kiwarp_txm_kind {
	KIWARP_TXM_NONE,
	KIWARP_TXM_WQE,
	KIWARP_TXM_READ_RESP,
	KIWARP_TXM_TERM,
};

struct kiwarp_txmsg {
	enum kiwarp_txm_kind kind;
	u32 idx;
	bool read;
	struct ddp_hdr h;
	u32 hlen;
	u32 max_pay;
	struct kiwarp_cursor src;
	u64 base_to;
	u32 total;
	u32 sent;
	bool try_zc;
	bool zc;
	u32 nv;
	u32 flen;
	u32 done;
	u32 nf;
	u32 payload;
	bool more;
};

/* Zero-copy batches in flight per QP, and each FPDU's header slot */
#define KIWARP_ZC_RECS		32
#define KIWARP_ZC_SLOT		64	/* header at 0, pad + CRC at 32 */
#define KIWARP_ZC_TRL_OFF	32

struct kiwarp_zc;

/* struct kiwarp_zc_rec - one zero-copy batch lent to TCP (zc.c) */
struct kiwarp_zc_rec {
	struct ubuf_info ubuf;	/* TCP's references on the batch */
	struct kiwarp_zc *zc;
	u32 sq_idx;		/* the WQE this batch ends, if ends_wqe */
	bool ends_wqe;
	bool done;		/* TCP let go (zc->lock) */
};

/*
 * struct kiwarp_zc - a connection's zero-copy records (zc.c describes
 * the lifetime and locking).
 */
struct kiwarp_zc {
	refcount_t ref;		/* the QP's + one per record in flight */
	/* qp, head, tail, rec[].done/ends_wqe; TX also reads head bare */
	spinlock_t lock;
	struct kiwarp_qp *qp;	/* NULL once detached */
	u32 head;		/* oldest record in flight */
	u32 tail;		/* next record to take (TX work) */
	u8 *slots;		/* header/trailer slots, a compound page */
	struct kiwarp_zc_rec rec[KIWARP_ZC_RECS];
};

/*
 * struct kiwarp_conn_ops - who is told when a QP's connection is down.
 *
 * Set with the socket at kiwarp_qp_bind_socket(): the iw_cm glue
 * (cm.c, @priv is the cm_id) or the socket takeover (sock.c, @priv is
 * the kiwarp_sock_conn). @down is called once per connection from the
 * teardown work, process context, no QP lock held, after the socket
 * was released and the queues flushed; it ends the QP's reference on
 * @priv. qp->peer_closed, qp->local_close and @status tell how the
 * connection ended. @peer_closed (optional) is called when the peer's
 * FIN moved the QP from RTS to CLOSING (kiwarp_qp_peer_fin()), from the
 * RX work, no lock held; qp->peer_told says it was, so @down does not
 * report the peer's close a second time.
 */
struct kiwarp_conn_ops {
	void (*peer_closed)(struct kiwarp_qp *qp, void *priv);
	void (*down)(struct kiwarp_qp *qp, void *priv, int status);
};

/* The callbacks and settings of a socket before kiwarp took it over */
struct kiwarp_sk_saved {
	void *user_data;
	void (*data_ready)(struct sock *sk);
	void (*state_change)(struct sock *sk);
	void (*write_space)(struct sock *sk);
};

/*
 * struct kiwarp_qp - an RC queue pair.
 *
 * Owner: the consumer via ib_core; memory freed by ib_core after
 * destroy_qp returns, which first waits for @ref to drop to zero:
 * refs are held by the consumer (initial), by iw_cm (iw_add_ref) and by
 * a connection in setup (cm.c).
 *
 * Locks:
 *  @state_lock (irq safe) protects @state, @term_* and @conn_up; every
 *   state change is kiwarp_qp_set_state_locked() (qp.c).
 *  @sq_lock (irq safe) protects the SQ ring (@sq_*), ORQ (@orq_*), IRQ
 *   (@irq_*) indices and contents.
 *  @rq_lock (irq safe) protects the RQ ring and @rq_held. While a Send
 *   is being placed, its receive WQE stays at @rq_head with @rq_held
 *   set; only the parser completing it, or kiwarp_qp_down_work() once
 *   no parser runs, completes it and moves @rq_head on. A flush leaves
 *   the ring alone meanwhile, so receives complete in posting order.
 *  @conn_lock (mutex) serialises connection bind and teardown and
 *   protects @sock, @cm_id, @saved_* callbacks. The socket callbacks
 *   read sk_user_data under sk_callback_lock.
 * Works: @tx_work (sends), @rx_work (receives), @down_work (teardown);
 * all on kiwarp_wq, each holds a QP reference while queued.
 */
struct kiwarp_cep;

struct kiwarp_qp {
	struct ib_qp ibqp;
	struct kiwarp_dev *kdev;
	struct kref ref;
	struct completion freed;

	spinlock_t state_lock;		/* state, conn_up, term_*, connecting */
	enum kiwarp_qp_state state;
	/* our connect's cep until it binds or fails (cm.c), referenced */
	struct kiwarp_cep *connecting;
	bool conn_up;
	bool term_pending;	/* TERMINATE to send */
	bool term_sending;	/* the TX work sends it now: set under
				 * state_lock, cleared with a release
				 * and wake_up_var() once TCP has it
				 */
	u8 term_layer;
	u8 term_etype;
	u8 term_ecode;
	bool term_sent;		/* the TERMINATE is TCP's, up to term_end
				 * (its write_seq then): set by the TX
				 * work before term_sending's release,
				 * read by the teardown after its acquire
				 */
	u32 term_end;
	bool fatal_told;	/* IB_EVENT_QP_FATAL reported (once) */
	bool iwcm_failed;	/* iw_cm dropped the CONNECT_REPLY, we
				 * reported the connect failed: no CLOSE
				 * (under conn_lock, cm.c)
				 */
	bool down_queued;
	int access;		/* IB_ACCESS_REMOTE_* from modify_qp */
	u8 cm_timeout;		/* IB_QP_TIMEOUT from modify_qp: the
				 * bound of a connect's TCP handshake and
				 * MPA Reply wait (kiwarp_cm_timeout()),
				 * if cm_timeout_set
				 */
	bool cm_timeout_set;

	spinlock_t sq_lock;		/* SQ, ORQ, IRQ rings */
	struct kiwarp_swqe *sq;
	u32 sq_size;
	u32 sq_head;		/* oldest not completed */
	u32 sq_next;		/* next to process */
	u32 sq_tail;		/* next free */
	u32 sq_sig_all;
	struct kiwarp_orqe *orq;
	u32 orq_size;		/* ORD */
	u32 orq_head;
	u32 orq_tail;
	struct kiwarp_irqe *irq;
	u32 irq_size;		/* IRD */
	u32 irq_head;
	u32 irq_tail;
	u32 send_msn[DDP_QN_COUNT];	/* next MSN we send per queue */

	spinlock_t rq_lock;		/* RQ ring */
	struct kiwarp_rwqe *rq;
	u32 rq_size;
	u32 rq_head;
	u32 rq_tail;
	bool rq_held;		/* rq[rq_head] is the Send being placed */

	struct mutex conn_lock;	/* sock, conn_ops/priv, saved callbacks */
	struct socket *sock;
	const struct kiwarp_conn_ops *conn_ops;	/* who to tell when down */
	void *conn_priv;
	bool sock_mode;		/* bound through the socket takeover */
	struct kiwarp_sk_saved saved;
	int down_status;	/* first reason of the teardown (state_lock) */
	bool down_status_set;
	bool local_close;	/* our consumer started the close */
	bool abort;		/* teardown resets instead of closing */
	bool crc;
	u8 mpa_rev;
	u32 ird;
	u32 ord;
	u32 fpdu_max;		/* largest FPDU on the wire: fpdu_segs MSS */
	bool fin_sent;		/* TX work: our FIN is out (CLOSING) */
	bool fin_lost;		/* TCP queued no FIN for it (state_lock) */
	unsigned long fin_lost_end;	/* jiffies: reset by then */
	bool peer_closed;	/* its FIN came (state_lock) */
	bool peer_told;		/* @peer_closed was reported (RX work) */
	struct sockaddr_storage laddr;	/* 4-tuple, set at bind */
	struct sockaddr_storage raddr;

	struct work_struct tx_work;
	struct work_struct rx_work;
	struct work_struct down_work;
	struct delayed_work close_work;	/* bounds a graceful close */
	struct kiwarp_rx rx;
	struct kiwarp_txbuf txb;	/* TX work only */
	struct kiwarp_txmsg txm;	/* TX work only */
	bool tx_blocked;	/* a TX send may have found TCP full: only
				 * then does write space queue the TX work
				 * (every writable write space did: 2.7 net
				 * softirqs per 64 KiB WRITE, 15 % of its
				 * throughput on make bench's topology a)
				 */
	bool tx_corked;		/* TX work only: the last batch TCP took
				 * went with MSG_MORE although its message
				 * ended (another was queued): TCP may hold
				 * a partial segment until we push
				 */
	bool tx_partial;	/* TCP has part of a batch (TX work writes,
				 * the teardown reads: a FIN behind it would
				 * cut an FPDU, so it resets instead)
				 */
	int tx_cpu;		/* where the TX work last ran, -1 before
				 * (written by it, read racily by
				 * kiwarp_qp_kick_tx_home())
				 */
	int rx_src_cpu;		/* where TCP's receive softirq last gave
				 * us data (-1 before): on veth and
				 * loopback the CPU the peer sends from.
				 * Written by kiwarp_rx_data_ready() only
				 * outside a socket owner's backlog, read
				 * racily by kiwarp_qp_away_cpu()
				 */
	struct kiwarp_zc *zc;		/* zero-copy records, while bound */
	u32 zc_min;		/* zero-copy from this message size on, 0:
				 * never (kiwarp_zc_min_for(), at bind)
				 */
	struct kiwarp_qp_stats stats;
	struct list_head stats_node;	/* on kdev->stats_qps, stats_lock */
	struct dentry *debugfs;
};

static inline struct kiwarp_qp *to_kqp(struct ib_qp *qp)
{
	return container_of(qp, struct kiwarp_qp, ibqp);
}

/* main.c */
int kiwarp_cpu_of_vector(int vector);

/* stats.c: the port's hw counters and restrack details */
extern const struct ib_device_ops kiwarp_stats_ops;
void kiwarp_stats_init(struct kiwarp_dev *kdev);
void kiwarp_stats_qp_add(struct kiwarp_qp *qp);
void kiwarp_stats_qp_retire(struct kiwarp_qp *qp);

/* device.c */
int kiwarp_device_init(void);
void kiwarp_device_exit(void);
int kiwarp_newlink(const char *name, struct net_device *netdev);

/* pd + mr: mem.c */
int kiwarp_alloc_pd(struct ib_pd *pd, struct ib_udata *udata);
int kiwarp_dealloc_pd(struct ib_pd *pd, struct ib_udata *udata);
struct ib_mr *kiwarp_get_dma_mr(struct ib_pd *pd, int access);
struct ib_mr *kiwarp_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			      u32 max_num_sg);
struct ib_mr *kiwarp_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
				 u64 virt, int access, struct ib_udata *udata);
int kiwarp_dereg_mr(struct ib_mr *mr, struct ib_udata *udata);
int kiwarp_map_mr_sg(struct ib_mr *mr, struct scatterlist *sg, int nents,
		     unsigned int *sg_offset);
struct kiwarp_mr *kiwarp_mr_get(struct kiwarp_dev *kdev, u32 stag);
void kiwarp_mr_put(struct kiwarp_mr *mr);
int kiwarp_mr_check(struct kiwarp_mr *mr, struct ib_pd *pd, int access,
		    u64 addr, u64 len);
void *kiwarp_mr_kva(struct kiwarp_mr *mr, u64 addr, u32 *contig);
int kiwarp_mr_reg(struct kiwarp_mr *mr, struct ib_pd *pd, u32 key,
		  int access);
int kiwarp_mr_invalidate(struct kiwarp_dev *kdev, struct ib_pd *pd,
			 u32 stag);

void kiwarp_cursor_init(struct kiwarp_cursor *c, struct kiwarp_qp *qp,
			const struct ib_sge *sge, u32 nsge, int access,
			bool remote);
void kiwarp_cursor_tagged(struct kiwarp_cursor *c, struct kiwarp_qp *qp,
			  u32 stag, u64 to, u32 len, int access);
int kiwarp_cursor_piece(struct kiwarp_cursor *c, u32 max, void **kva,
			u32 *len);
void kiwarp_cursor_end(struct kiwarp_cursor *c);
int kiwarp_sges_check(struct kiwarp_qp *qp, const struct ib_sge *sge,
		      u32 nsge, int access);

/* cq.c */
int kiwarp_create_cq(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
		     struct ib_udata *udata);
int kiwarp_destroy_cq(struct ib_cq *cq, struct ib_udata *udata);
int kiwarp_poll_cq(struct ib_cq *cq, int num, struct ib_wc *wc);
int kiwarp_req_notify_cq(struct ib_cq *cq, enum ib_cq_notify_flags flags);
void kiwarp_cq_add(struct kiwarp_cq *cq, const struct ib_wc *wc,
		   bool solicited);

/* qp.c */
extern const char *const kiwarp_qp_state_name[KIWARP_QPS_COUNT];
int kiwarp_create_qp(struct ib_qp *qp, struct ib_qp_init_attr *attr,
		     struct ib_udata *udata);
int kiwarp_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
		     struct ib_udata *udata);
int kiwarp_query_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
		    struct ib_qp_init_attr *init);
int kiwarp_destroy_qp(struct ib_qp *qp, struct ib_udata *udata);
int kiwarp_post_send(struct ib_qp *qp, const struct ib_send_wr *wr,
		     const struct ib_send_wr **bad_wr);
int kiwarp_post_recv(struct ib_qp *qp, const struct ib_recv_wr *wr,
		     const struct ib_recv_wr **bad_wr);
void kiwarp_qp_get(struct kiwarp_qp *qp);
void kiwarp_qp_put(struct kiwarp_qp *qp);
void kiwarp_iw_add_ref(struct ib_qp *qp);
void kiwarp_iw_rem_ref(struct ib_qp *qp);
struct ib_qp *kiwarp_iw_get_qp(struct ib_device *dev, int qpn);
enum kiwarp_qp_state kiwarp_qp_state(struct kiwarp_qp *qp);
int kiwarp_qp_set_state_locked(struct kiwarp_qp *qp,
			       enum kiwarp_qp_state next);
void kiwarp_qp_error(struct kiwarp_qp *qp);
void kiwarp_qp_down_status(struct kiwarp_qp *qp, int status);
void kiwarp_qp_peer_fin(struct kiwarp_qp *qp);
bool kiwarp_qp_fin_sent(struct kiwarp_qp *qp);
void kiwarp_qp_fin_lost(struct kiwarp_qp *qp);
void kiwarp_qp_close_timeout(struct work_struct *work);
bool kiwarp_tcp_shutdown(struct socket *sock, int how);
void kiwarp_qp_sqe(struct kiwarp_qp *qp);

/* How long a teardown waits for a queued TERMINATE to be sent. */
#define KIWARP_TERM_WAIT_MS	250

/*
 * Is a TERMINATE queued or being handed to TCP? (kiwarp_qp_down_work)
 * The TX work hands term_pending over to term_sending under state_lock:
 * read without it, the new term_pending and the old term_sending could
 * both say no. The acquire pairs with the release that ends the send
 * (tx.c), after which term_sent and term_end are read.
 */
static inline bool kiwarp_qp_term_busy(struct kiwarp_qp *qp)
{
	unsigned long flags;
	bool busy;

	spin_lock_irqsave(&qp->state_lock, flags);
	/* acquire: pairs with the release of term_sending in tx.c */
	busy = qp->term_pending || smp_load_acquire(&qp->term_sending);
	spin_unlock_irqrestore(&qp->state_lock, flags);
	return busy;
}

void kiwarp_qp_fatal(struct kiwarp_qp *qp);
void kiwarp_qp_terminate(struct kiwarp_qp *qp, u8 layer, u8 etype,
			 u8 ecode);
void kiwarp_sq_complete(struct kiwarp_qp *qp, u32 idx,
			enum ib_wc_status status);
void kiwarp_qp_kick_tx(struct kiwarp_qp *qp);
void kiwarp_qp_queue(struct kiwarp_qp *qp, struct work_struct *work);
void kiwarp_qp_queue_rx_away(struct kiwarp_qp *qp);
void kiwarp_qp_kick_tx_away(struct kiwarp_qp *qp);
void kiwarp_qp_kick_tx_home(struct kiwarp_qp *qp);
void kiwarp_qp_flush_sq(struct kiwarp_qp *qp);
void kiwarp_qp_flush_rq(struct kiwarp_qp *qp);
void kiwarp_qp_flush_rq_locked(struct kiwarp_qp *qp);
struct kiwarp_qp *kiwarp_qp_lookup(struct kiwarp_dev *kdev, u32 qpn);
void kiwarp_qp_debugfs_show(struct seq_file *m, struct kiwarp_qp *qp);

/* cm.c */
int kiwarp_cm_connect(struct iw_cm_id *id, struct iw_cm_conn_param *p);
void kiwarp_cm_connect_abort(struct kiwarp_qp *qp);
int kiwarp_cm_accept(struct iw_cm_id *id, struct iw_cm_conn_param *p);
int kiwarp_cm_reject(struct iw_cm_id *id, const void *pdata, u8 len);
int kiwarp_cm_create_listen(struct iw_cm_id *id, int backlog);
int kiwarp_cm_destroy_listen(struct iw_cm_id *id);
/* Negotiated parameters of an MPA connection, for kiwarp_qp_bind_socket */
/*
 * struct kiwarp_bind - what kiwarp_qp_bind_socket() binds. @up, if set,
 * is called once the QP is in RTS, with qp->conn_lock still held: the
 * owner reports the connection there (iw_cm's CONNECT_REPLY or
 * ESTABLISHED), so that no teardown (which starts under conn_lock) can
 * report its end first. It must not sleep on the QP; @up_arg is its.
 */
struct kiwarp_bind {
	const struct kiwarp_conn_ops *ops;
	void *priv;
	void (*up)(struct kiwarp_qp *qp, void *priv, void *up_arg);
	void *up_arg;
	const struct kiwarp_sk_saved *orig;	/* NULL: the socket's current */
	bool sock_mode;
	bool crc;
	bool large_fpdu;	/* both sides' MPA frames set MPA_FLAG_GSO_EXP */
	u8 rev;
	u32 ird;
	u32 ord;
};

int kiwarp_qp_bind_socket(struct kiwarp_qp *qp, struct socket *sock,
			  const struct kiwarp_bind *b);
void kiwarp_qp_down_work(struct work_struct *work);
void kiwarp_sk_data_ready(struct sock *sk);
void kiwarp_sk_state_change(struct sock *sk);
void kiwarp_sk_write_space(struct sock *sk);

/* tx.c, rx.c */
void kiwarp_tx_work(struct work_struct *work);
void kiwarp_tx_release(struct kiwarp_qp *qp);
void kiwarp_rx_work(struct work_struct *work);
void kiwarp_rx_drain(struct kiwarp_qp *qp);
void kiwarp_rx_data_ready(struct kiwarp_qp *qp, struct sock *sk);
void kiwarp_rx_release(struct kiwarp_qp *qp);

/* zc.c */
u32 kiwarp_zc_min_for(struct sock *sk);
int kiwarp_zc_attach(struct kiwarp_qp *qp);
void kiwarp_zc_detach(struct kiwarp_qp *qp);
void kiwarp_zc_quiesce(struct kiwarp_qp *qp);
bool kiwarp_zc_busy(struct kiwarp_qp *qp);
u8 *kiwarp_zc_slots(struct kiwarp_qp *qp);
int kiwarp_zc_send(struct kiwarp_qp *qp, u32 nv, u32 len, bool more);
void kiwarp_zc_complete_wqe(struct kiwarp_qp *qp, u32 idx);
void kiwarp_zc_exit(void);

#endif /* KIWARP_H */
