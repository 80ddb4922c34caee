// SPDX-License-Identifier: GPL-2.0
/*
 * kiwarp: the receive path (one work per QP, qp->rx_work, queued by the
 * socket's data_ready and state_change callbacks).
 *
 * The work parses the TCP stream in place: with the socket locked,
 * tcp_read_sock() lends it the received skbs one piece at a time
 * (kiwarp_rx_actor) and the parser takes each FPDU in three stages
 * (qp->rx): the MPA length and DDP/RDMAP header into rx.hdr, the
 * payload, the pad and CRC. The payload is copied straight from the skb
 * into its final place - the registered memory named by the STag of a
 * tagged segment, the posted receive of a Send, the sink of an
 * outstanding Read - with no intermediate buffer and no socket call per
 * FPDU; the CRC (if negotiated) is computed over the placed bytes and
 * checked when the trailer arrives, before the message completes. A
 * pass takes at most KIWARP_RX_PASS_BYTES, then queues the work again
 * so that other QPs on the workqueue run. The socket's data_ready runs
 * the same parser in place (kiwarp_rx_data_ready()) while no more than
 * KIWARP_RX_INLINE_BYTES are queued, so a small message is placed and
 * completed in the softirq that received it, without waking the work;
 * more than that (a bulk transfer) goes to the work on another CPU
 * (kiwarp_qp_queue_rx_away()): on veth and loopback the softirq runs
 * on the sender's CPU, which then keeps sending while this one places.
 * A Read Request for more than KIWARP_READ_AWAY_BYTES is answered from
 * that other CPU as well (kiwarp_qp_kick_tx_away()), so the responder's
 * TX does not share a CPU with the requester's.
 *
 * Nothing from the wire is trusted: header lengths, opcodes, versions,
 * queue numbers, MSNs and MOs are checked; an STag must be valid, of the
 * QP's PD, grant the access and cover [TO, TO + length) without wrap
 * (kiwarp_cursor_*, mem.c); Read Responses must match the oldest
 * outstanding Read; inbound Reads are limited to the IRD. A violation
 * sends a TERMINATE with the layer, error type and code of RFC 5040/5041
 * and moves the QP to ERROR; nothing more is placed.
 *
 * Locking: the parser runs under the socket lock - owned by the RX work
 * (lock_sock), or held by TCP's receive path around data_ready - so one
 * parser runs at a time; what it calls - kiwarp_qp_terminate(),
 * kiwarp_qp_error(), kiwarp_cq_add() - only takes spinlocks and queues
 * works, never sleeps nor calls the socket.
 */

#include <net/tcp.h>

#include "kiwarp.h"
#include "kiwarp_trace.h"

#define KIWARP_RX_PASS_BYTES	(512 * 1024)
#define KIWARP_RX_INLINE_BYTES	(16 * 1024)
/*
 * The RX work parses with bottom halves off this much at a time:
 * kiwarp_rx_actor() stops at its read_descriptor's budget, mid-skb and
 * mid-FPDU if need be (the parser resumes where it stopped).
 */
#define KIWARP_RX_BH_CHUNK_BYTES	(64 * 1024)
/*
 * A Read Request for more than this is answered from another CPU than
 * the requester's sender (kiwarp_qp_kick_tx_away()): a Read Response
 * of a page is a copy worth a CPU of its own while the requester goes
 * on; a smaller one is answered where it was asked, without a wakeup
 * elsewhere. Measured (Documentation/performance.rst): a stream of
 * 4 KiB Reads at 0.42 and 0.40 of the TCP stream answered where asked,
 * 0.61 and 0.53 away (two paired runs).
 */
#define KIWARP_READ_AWAY_BYTES	2048

/*
 * Test hook for the stress suite (issue 18): flip one bit of every n-th
 * FPDU's payload received on a connection with MPA CRC, as it is placed,
 * before the CRC sees it - what a corrupting middlebox or bad memory does
 * past TCP's checksum, which netem's corruption never gets past. The CRC
 * check must then end the connection with a TERMINATE (LLP, CRC error)
 * and complete nothing of the FPDU's message. Connections without CRC
 * are left alone: there the wrong bytes would be delivered, which is
 * what the CRC is there to prevent.
 */
static unsigned int kiwarp_test_rx_corrupt;
module_param_named(test_rx_corrupt, kiwarp_test_rx_corrupt, uint, 0644);
MODULE_PARM_DESC(test_rx_corrupt, "test hook: corrupt one bit of every n-th FPDU received on connections with MPA CRC (default 0: never)");
static atomic_t kiwarp_test_rx_corrupt_seen = ATOMIC_INIT(0);

static void kiwarp_rx_test_corrupt(struct kiwarp_rx *rx, void *p)
{
	unsigned int every = READ_ONCE(kiwarp_test_rx_corrupt);

	if (likely(!every) || rx->pay_got)
		return;
	if (atomic_inc_return(&kiwarp_test_rx_corrupt_seen) % every == 0)
		*(u8 *)p ^= 0x01;
}

/*
 * Take up to @len bytes of the lent skb piece into @buf.
 * Return: bytes taken (> 0), or -EAGAIN when the piece is used up.
 */
static int kiwarp_rx_recv(struct kiwarp_qp *qp, void *buf, u32 len)
{
	struct kiwarp_rx *rx = &qp->rx;
	u32 n = min(len, rx->skb_left);

	if (!n)
		return -EAGAIN;
	if (skb_copy_bits(rx->skb, rx->skb_off, buf, n))
		return -EFAULT;	/* the piece is shorter than lent: a bug */
	rx->skb_off += n;
	rx->skb_left -= n;
	return n;
}

static int kiwarp_rx_fail(struct kiwarp_qp *qp, u8 layer, u8 etype,
			  u8 ecode)
{
	kiwarp_qp_terminate(qp, layer, etype, ecode);
	return -EPROTO;
}

/* A tagged buffer error from kiwarp_mr_check()'s RDMAP code */
static int kiwarp_rx_tagged_fail(struct kiwarp_qp *qp, u8 ecode)
{
	switch (ecode) {
	case RDMAP_ECODE_ACCESS_RIGHTS:
		return kiwarp_rx_fail(qp, TERM_LAYER_RDMAP,
				      RDMAP_ETYPE_REMOTE_PROTECTION, ecode);
	case RDMAP_ECODE_BASE_BOUNDS:
		ecode = DDP_ECODE_T_BASE_BOUNDS;
		break;
	case RDMAP_ECODE_STAG_NOT_ASSOC:
		ecode = DDP_ECODE_T_STAG_NOT_ASSOC;
		break;
	case RDMAP_ECODE_TO_WRAP:
		ecode = DDP_ECODE_T_TO_WRAP;
		break;
	default:
		ecode = DDP_ECODE_T_INVALID_STAG;
		break;
	}
	return kiwarp_rx_fail(qp, TERM_LAYER_DDP, DDP_ETYPE_TAGGED, ecode);
}

static int kiwarp_rx_untagged_fail(struct kiwarp_qp *qp, u8 ecode)
{
	return kiwarp_rx_fail(qp, TERM_LAYER_DDP, DDP_ETYPE_UNTAGGED, ecode);
}

/* Check an STag range the peer names before we use it. */
static int kiwarp_rx_check_range(struct kiwarp_qp *qp, u32 stag, u64 to,
				 u32 len, int access)
{
	struct kiwarp_mr *mr;
	int ecode;

	if (to + len < to)
		return RDMAP_ECODE_TO_WRAP;
	if (!len)
		return 0;
	mr = stag ? kiwarp_mr_get(qp->kdev, stag) : NULL;
	if (!mr)
		return RDMAP_ECODE_INVALID_STAG;
	ecode = kiwarp_mr_check(mr, qp->ibqp.pd, access, to, len);
	kiwarp_mr_put(mr);
	return ecode;
}

/* A Send segment begins: take the receive WQE on the first one. */
static int kiwarp_rx_begin_send(struct kiwarp_qp *qp)
{
	struct kiwarp_rx *rx = &qp->rx;
	unsigned long flags;
	bool got = false;

	if (rx->dh.msn != rx->msn[DDP_QN_SEND])
		return kiwarp_rx_untagged_fail(qp, DDP_ECODE_UT_INVALID_MSN);
	if (!rx->in_send) {
		if (rx->dh.mo)
			return kiwarp_rx_untagged_fail(qp,
						       DDP_ECODE_UT_INVALID_MO);
		spin_lock_irqsave(&qp->rq_lock, flags);
		if (qp->rq_head != qp->rq_tail) {
			/* held at the head until complete (kiwarp_qp.rq_held) */
			rx->rwqe = qp->rq[qp->rq_head & (qp->rq_size - 1)];
			qp->rq_held = true;
			got = true;
		}
		spin_unlock_irqrestore(&qp->rq_lock, flags);
		if (!got)
			return kiwarp_rx_untagged_fail(qp,
						       DDP_ECODE_UT_NO_BUFFER);
		rx->in_send = true;
		rx->in_op = rx->dh.opcode;
		rx->msg_len = 0;
		kiwarp_cursor_init(&rx->scur, qp, rx->rwqe.sge,
				   rx->rwqe.num_sge, IB_ACCESS_LOCAL_WRITE,
				   false);
		rx->scur_live = true;
	} else if (rx->dh.opcode != rx->in_op) {
		return kiwarp_rx_fail(qp, TERM_LAYER_RDMAP,
				      RDMAP_ETYPE_REMOTE_OPERATION,
				      RDMAP_ECODE_OPCODE);
	}
	if (rx->dh.mo != rx->msg_len)
		return kiwarp_rx_untagged_fail(qp, DDP_ECODE_UT_INVALID_MO);
	if (rx->pay_len > rx->rwqe.total_len - rx->msg_len)
		return kiwarp_rx_untagged_fail(qp, DDP_ECODE_UT_TOO_LONG);
	rx->place = &rx->scur;
	return 0;
}

/* A Read Response segment: it must continue the oldest Read. */
static int kiwarp_rx_begin_read_resp(struct kiwarp_qp *qp)
{
	struct kiwarp_rx *rx = &qp->rx;
	struct kiwarp_orqe *o = NULL;
	unsigned long flags;

	spin_lock_irqsave(&qp->sq_lock, flags);
	if (qp->orq_head != qp->orq_tail)
		o = &qp->orq[qp->orq_head % qp->orq_size];
	if (o && (rx->dh.stag != o->sink_stag ||
		  rx->dh.to != o->sink_to + o->placed ||
		  rx->pay_len > o->len - o->placed))
		o = ERR_PTR(-EINVAL);
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (!o)
		return kiwarp_rx_fail(qp, TERM_LAYER_RDMAP,
				      RDMAP_ETYPE_REMOTE_OPERATION,
				      RDMAP_ECODE_OPCODE);
	if (IS_ERR(o))
		return kiwarp_rx_fail(qp, TERM_LAYER_DDP, DDP_ETYPE_TAGGED,
				      DDP_ECODE_T_BASE_BOUNDS);
	/* our own sink SGE, checked when the Read was sent */
	rx->tcur.one.addr = rx->dh.to;
	rx->tcur.one.length = rx->pay_len;
	rx->tcur.one.lkey = rx->dh.stag;
	kiwarp_cursor_init(&rx->tcur, qp, &rx->tcur.one, 1,
			   IB_ACCESS_LOCAL_WRITE, false);
	rx->tcur_live = true;
	rx->place = &rx->tcur;
	return 0;
}

/* Header complete: validate it and set up the payload's destination. */
static int kiwarp_rx_begin(struct kiwarp_qp *qp)
{
	struct kiwarp_rx *rx = &qp->rx;
	struct ddp_hdr *h = &rx->dh;
	int ecode;

	rx->discarding = false;
	switch (h->opcode) {
	case RDMAP_WRITE:
		ecode = kiwarp_rx_check_range(qp, h->stag, h->to, rx->pay_len,
					      IB_ACCESS_REMOTE_WRITE);
		if (ecode)
			return kiwarp_rx_tagged_fail(qp, ecode);
		kiwarp_cursor_tagged(&rx->tcur, qp, h->stag, h->to,
				     rx->pay_len, IB_ACCESS_REMOTE_WRITE);
		rx->tcur_live = true;
		rx->place = &rx->tcur;
		return 0;
	case RDMAP_READ_RESP:
		return kiwarp_rx_begin_read_resp(qp);
	case RDMAP_SEND:
	case RDMAP_SEND_SE:
	case RDMAP_SEND_INV:
	case RDMAP_SEND_SE_INV:
		return kiwarp_rx_begin_send(qp);
	case RDMAP_READ_REQ:
		if (h->msn != rx->msn[DDP_QN_READ_REQ])
			return kiwarp_rx_untagged_fail(qp,
						       DDP_ECODE_UT_INVALID_MSN);
		if (rx->pay_len)
			return kiwarp_rx_untagged_fail(qp,
						       DDP_ECODE_UT_TOO_LONG);
		return 0;
	case RDMAP_TERMINATE:
		/* header copies may follow: not needed, dropped */
		rx->discarding = true;
		return 0;
	default:
		return kiwarp_rx_fail(qp, TERM_LAYER_RDMAP,
				      RDMAP_ETYPE_REMOTE_OPERATION,
				      RDMAP_ECODE_OPCODE);
	}
}

/* The tagged segment is placed: drop its MR. */
static void kiwarp_rx_tagged_end(struct kiwarp_rx *rx)
{
	if (rx->tcur_live)
		kiwarp_cursor_end(&rx->tcur);
	rx->tcur_live = false;
}

/**
 * kiwarp_rx_release() - drop what the parser holds of a connection.
 * @qp: the QP; no parser runs (kiwarp_qp_down_work() stopped them)
 *
 * Releases the MRs of both placement contexts and flushes the receive
 * WQE of an interrupted Send (qp->rq_held), ahead of those behind it.
 */
void kiwarp_rx_release(struct kiwarp_qp *qp)
{
	struct kiwarp_rx *rx = &qp->rx;
	unsigned long flags;

	kiwarp_rx_tagged_end(rx);
	if (rx->scur_live)
		kiwarp_cursor_end(&rx->scur);
	rx->scur_live = false;
	rx->place = NULL;
	rx->in_send = false;

	spin_lock_irqsave(&qp->rq_lock, flags);
	if (qp->rq_held) {
		struct ib_wc wc = {
			.wr_id = qp->rq[qp->rq_head & (qp->rq_size - 1)].wr_id,
			.status = IB_WC_WR_FLUSH_ERR,
			.opcode = IB_WC_RECV,
			.qp = &qp->ibqp,
		};

		kiwarp_cq_add(to_kcq(qp->ibqp.recv_cq), &wc, true);
		qp->rq_head++;
		qp->rq_held = false;
		kiwarp_qp_flush_rq_locked(qp);
	}
	spin_unlock_irqrestore(&qp->rq_lock, flags);
}

static int kiwarp_rx_finish_send(struct kiwarp_qp *qp)
{
	struct kiwarp_rx *rx = &qp->rx;
	u8 op = rx->dh.opcode;
	struct ib_wc wc = {};
	unsigned long flags;
	int ecode;

	rx->msg_len += rx->pay_len;
	if (!rx->dh.last)
		return 0;
	kiwarp_cursor_end(&rx->scur);
	rx->scur_live = false;
	wc.wr_id = rx->rwqe.wr_id;
	wc.status = IB_WC_SUCCESS;
	wc.opcode = IB_WC_RECV;
	wc.byte_len = rx->msg_len;
	wc.qp = &qp->ibqp;
	if (op == RDMAP_SEND_INV || op == RDMAP_SEND_SE_INV) {
		ecode = kiwarp_mr_invalidate(qp->kdev, qp->ibqp.pd,
					     rx->dh.stag);
		if (ecode)
			return kiwarp_rx_fail(qp, TERM_LAYER_RDMAP,
					      RDMAP_ETYPE_REMOTE_OPERATION,
					      ecode);
		wc.wc_flags |= IB_WC_WITH_INVALIDATE;
		wc.ex.invalidate_rkey = rx->dh.stag;
	}
	rx->in_send = false;
	rx->msn[DDP_QN_SEND]++;
	/* completed before any flush of the WQEs behind it */
	spin_lock_irqsave(&qp->rq_lock, flags);
	kiwarp_cq_add(to_kcq(qp->ibqp.recv_cq), &wc,
		      op == RDMAP_SEND_SE || op == RDMAP_SEND_SE_INV);
	qp->rq_head++;
	qp->rq_held = false;
	kiwarp_qp_flush_rq_locked(qp);	/* the QP went to ERROR meanwhile */
	spin_unlock_irqrestore(&qp->rq_lock, flags);
	return 0;
}

static int kiwarp_rx_finish_read_resp(struct kiwarp_qp *qp)
{
	struct kiwarp_rx *rx = &qp->rx;
	enum ib_wc_status status = IB_WC_SUCCESS;
	bool done = false, bad = false, inv = false, kick = false;
	struct kiwarp_orqe *o;
	unsigned long flags;
	u32 idx = 0, inv_key = 0;

	kiwarp_rx_tagged_end(rx);
	spin_lock_irqsave(&qp->sq_lock, flags);
	if (qp->orq_head != qp->orq_tail) {
		o = &qp->orq[qp->orq_head % qp->orq_size];
		o->placed += rx->pay_len;
		if (rx->dh.last) {
			bad = o->placed != o->len;
			done = true;
			idx = o->sq_idx;
			inv = o->inv;
			inv_key = o->inv_key;
			qp->orq_head++;
			/*
			 * The TX work waits for this slot only with a WQE
			 * not yet taken (a Read over the ORD, a fence: it
			 * looks under this lock, so a later look sees the
			 * slot free) or, closing, to send our FIN once no
			 * Response is due (tx.c, kiwarp_tx_step()). The
			 * state is a hint that holds because every move out
			 * of RTS kicks the TX work after setting it, and a
			 * pass reads it (state_lock) before its sq_lock
			 * section: a pass that found this Response due saw
			 * CLOSING, and so do we after it. Otherwise the
			 * kick would run the work for nothing (an NFS
			 * server's every Read).
			 */
			kick = qp->sq_next != qp->sq_tail ||
			       kiwarp_qp_state(qp) != KIWARP_QPS_RTS;
		}
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (bad)
		return kiwarp_rx_fail(qp, TERM_LAYER_DDP, DDP_ETYPE_TAGGED,
				      DDP_ECODE_T_BASE_BOUNDS);
	if (done) {
		/*
		 * RDMA Read with Invalidate: the sink's MR is invalid once
		 * the data is placed, before the completion says so (what
		 * rdma_rw relies on for iWARP Reads instead of a LOCAL_INV).
		 */
		if (inv && kiwarp_mr_invalidate(qp->kdev, qp->ibqp.pd,
						inv_key))
			status = IB_WC_LOC_PROT_ERR;
		kiwarp_sq_complete(qp, idx, status);
		if (status != IB_WC_SUCCESS)	/* a local error, as siw */
			return kiwarp_rx_fail(qp, TERM_LAYER_RDMAP,
					      RDMAP_ETYPE_CATASTROPHIC,
					      RDMAP_ECODE_UNSPECIFIED);
		if (kick)
			kiwarp_qp_kick_tx_home(qp);	/* an ORQ slot is free */
	}
	return 0;
}

static int kiwarp_rx_finish_read_req(struct kiwarp_qp *qp)
{
	struct kiwarp_rx *rx = &qp->rx;
	struct ddp_hdr *h = &rx->dh;
	unsigned long flags;
	bool full;
	int ecode;

	if (h->read_size > 0x80000000U)
		return kiwarp_rx_fail(qp, TERM_LAYER_RDMAP,
				      RDMAP_ETYPE_REMOTE_OPERATION,
				      RDMAP_ECODE_UNSPECIFIED);
	ecode = kiwarp_rx_check_range(qp, h->src_stag, h->src_to,
				      h->read_size, IB_ACCESS_REMOTE_READ);
	if (ecode)
		return kiwarp_rx_fail(qp, TERM_LAYER_RDMAP,
				      RDMAP_ETYPE_REMOTE_PROTECTION, ecode);
	if (h->sink_to + h->read_size < h->sink_to)
		return kiwarp_rx_fail(qp, TERM_LAYER_DDP, DDP_ETYPE_TAGGED,
				      DDP_ECODE_T_TO_WRAP);
	spin_lock_irqsave(&qp->sq_lock, flags);
	full = qp->irq_tail - qp->irq_head >= qp->ird;
	if (!full) {
		qp->irq[qp->irq_tail % qp->irq_size] = (struct kiwarp_irqe) {
			.sink_stag = h->sink_stag,
			.sink_to = h->sink_to,
			.src_stag = h->src_stag,
			.src_to = h->src_to,
			.len = h->read_size,
		};
		qp->irq_tail++;
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (full)	/* more Reads outstanding than our IRD */
		return kiwarp_rx_untagged_fail(qp, DDP_ECODE_UT_NO_BUFFER);
	rx->msn[DDP_QN_READ_REQ]++;
	if (h->read_size > KIWARP_READ_AWAY_BYTES)
		kiwarp_qp_kick_tx_away(qp);
	else
		kiwarp_qp_kick_tx(qp);	/* where it was asked */
	return 0;
}

/* FPDU complete and its CRC good: finish what it carried. */
static int kiwarp_rx_finish(struct kiwarp_qp *qp)
{
	struct kiwarp_rx *rx = &qp->rx;

	qp->stats.rx_fpdus++;
	qp->stats.rx_bytes += rx->pay_len;
	switch (rx->dh.opcode) {
	case RDMAP_WRITE:
		kiwarp_rx_tagged_end(rx);
		return 0;
	case RDMAP_READ_RESP:
		return kiwarp_rx_finish_read_resp(qp);
	case RDMAP_READ_REQ:
		return kiwarp_rx_finish_read_req(qp);
	case RDMAP_TERMINATE:
		qp->stats.terms_rcvd++;
		trace_kiwarp_terminate(qp, false, rx->dh.term_layer,
				       rx->dh.term_etype, rx->dh.term_ecode);
		kiwarp_qp_down_status(qp, -EPROTO);
		kiwarp_qp_fatal(qp);
		kiwarp_qp_error(qp);
		return -EPROTO;
	default:
		return kiwarp_rx_finish_send(qp);
	}
}

static int kiwarp_rx_hdr(struct kiwarp_qp *qp)
{
	struct kiwarp_rx *rx = &qp->rx;
	struct ddp_err err;
	int n, hlen;

	if (!rx->hdr_need)
		rx->hdr_need = MPA_FPDU_HDR_LEN + 2;
	n = kiwarp_rx_recv(qp, rx->hdr + rx->hdr_got,
			   rx->hdr_need - rx->hdr_got);
	if (n <= 0)
		return n;
	rx->hdr_got += n;
	if (rx->hdr_got < rx->hdr_need)
		return 1;
	if (rx->hdr_need == MPA_FPDU_HDR_LEN + 2) {
		rx->mpa_len = get_unaligned_be16(rx->hdr);
		hlen = ddp_hdr_len(rx->hdr[2], rx->hdr[3], &err);
		if (hlen < 0)
			return kiwarp_rx_fail(qp, err.layer, err.etype,
					      err.ecode);
		if (rx->mpa_len < hlen)
			return kiwarp_rx_fail(qp, TERM_LAYER_LLP, 0,
					      LLP_ECODE_FPDU_START);
		rx->hdr_need = MPA_FPDU_HDR_LEN + hlen;
		return 1;
	}
	hlen = ddp_hdr_decode(rx->hdr + MPA_FPDU_HDR_LEN,
			      rx->hdr_got - MPA_FPDU_HDR_LEN, &rx->dh, &err);
	if (hlen < 0)
		return kiwarp_rx_fail(qp, err.layer, err.etype, err.ecode);
	rx->pay_len = rx->mpa_len - hlen;
	rx->pay_got = 0;
	if (qp->crc)	/* else the trailer's CRC field is not looked at */
		rx->crc = iw_crc32c(IW_CRC32C_SEED, rx->hdr, rx->hdr_got);
	if (kiwarp_rx_begin(qp))
		return -EPROTO;
	rx->stage = rx->pay_len ? KIWARP_RX_PAYLOAD : KIWARP_RX_TRAILER;
	rx->trl_need = mpa_fpdu_pad(rx->mpa_len) + MPA_FPDU_CRC_LEN;
	rx->trl_got = 0;
	return 1;
}

static int kiwarp_rx_payload(struct kiwarp_qp *qp)
{
	struct kiwarp_rx *rx = &qp->rx;
	u32 want = rx->pay_len - rx->pay_got, len;
	void *p;
	int n;

	if (rx->discarding) {
		p = rx->discard;
		len = min_t(u32, want, sizeof(rx->discard));
	} else {
		n = kiwarp_cursor_piece(rx->place, want, &p, &len);
		if (n == -EACCES)
			return kiwarp_rx_tagged_fail(qp, rx->place->ecode);
		if (n)
			return kiwarp_rx_fail(qp, TERM_LAYER_DDP,
					      DDP_ETYPE_CATASTROPHIC, 0);
	}
	n = kiwarp_rx_recv(qp, p, len);
	if (!rx->discarding && (n <= 0 || n < len))
		rx->place->off -= len - max(n, 0);	/* give back the rest */
	if (n <= 0)
		return n;
	if (qp->crc) {
		kiwarp_rx_test_corrupt(rx, p);
		rx->crc = iw_crc32c(rx->crc, p, n);
	}
	rx->pay_got += n;
	if (rx->pay_got == rx->pay_len)
		rx->stage = KIWARP_RX_TRAILER;
	return 1;
}

static int kiwarp_rx_trailer(struct kiwarp_qp *qp)
{
	struct kiwarp_rx *rx = &qp->rx;
	u32 pad = rx->trl_need - MPA_FPDU_CRC_LEN;
	int n;

	n = kiwarp_rx_recv(qp, rx->trailer + rx->trl_got,
			   rx->trl_need - rx->trl_got);
	if (n <= 0)
		return n;
	rx->trl_got += n;
	if (rx->trl_got < rx->trl_need)
		return 1;
	if (qp->crc) {
		u32 crc = ~iw_crc32c(rx->crc, rx->trailer, pad);

		if (crc != get_unaligned_le32(rx->trailer + pad)) {
			qp->stats.crc_errors++;
			return kiwarp_rx_fail(qp, TERM_LAYER_LLP, 0,
					      LLP_ECODE_CRC);
		}
	}
	rx->stage = KIWARP_RX_HDR;
	rx->hdr_got = 0;
	rx->hdr_need = 0;
	return kiwarp_rx_finish(qp) ?: 1;
}

/* Return: 1 progress, -EAGAIN piece used up, < 0 error (handled). */
static int kiwarp_rx_step(struct kiwarp_qp *qp)
{
	switch (qp->rx.stage) {
	case KIWARP_RX_HDR:
		return kiwarp_rx_hdr(qp);
	case KIWARP_RX_PAYLOAD:
		return kiwarp_rx_payload(qp);
	default:
		return kiwarp_rx_trailer(qp);
	}
}

/* May the QP still take data from the wire? */
static bool kiwarp_rx_live(struct kiwarp_qp *qp)
{
	enum kiwarp_qp_state st;
	unsigned long flags;
	bool up;

	spin_lock_irqsave(&qp->state_lock, flags);
	st = qp->state;
	up = qp->conn_up;
	spin_unlock_irqrestore(&qp->state_lock, flags);
	return up && (st == KIWARP_QPS_RTS || st == KIWARP_QPS_CLOSING);
}

/*
 * Bytes after our FIN: by the closing rules of the verbs (RDMAC, RFC 5040;
 * seed 004, "after sending out the TCP FIN, any data come in") an error
 * that resets the connection. Nothing of them is placed: the receive
 * WQEs are flushed, the peer reads a reset. Context: the parser (the
 * socket's receive path or the RX work).
 */
static void kiwarp_rx_after_fin(struct kiwarp_qp *qp)
{
	kiwarp_qp_down_status(qp, -EPROTO);
	WRITE_ONCE(qp->abort, true);	/* read by the teardown it queues */
	qp->stats.errors++;
	ibdev_dbg(qp->ibqp.device, "qp %u: data after our FIN: reset\n",
		  qp->ibqp.qp_num);
	trace_kiwarp_rx_down(qp, -EPROTO, false);
	kiwarp_qp_error(qp);
}

/*
 * tcp_read_sock()'s actor: parse @len bytes of @skb from @off, at most
 * @desc->count of them. Return: the bytes consumed; 0 stops the pass
 * (the budget is spent, an error, or the QP left RTS). tcp_read_sock()
 * offers the rest of a piece consumed in part again at once, so a spent
 * budget is checked first.
 */
static int kiwarp_rx_actor(read_descriptor_t *desc, struct sk_buff *skb,
			   unsigned int off, size_t len)
{
	struct kiwarp_qp *qp = desc->arg.data;
	struct kiwarp_rx *rx = &qp->rx;
	u32 piece, used;
	int ret;

	if (!desc->count || rx->err || rx->halt)
		return 0;
	if (!kiwarp_rx_live(qp)) {
		rx->halt = true;
		return 0;
	}
	/* after a FIN TCP could not send, the peer's data is no error */
	if (unlikely(READ_ONCE(qp->fin_sent)) && len &&
	    !READ_ONCE(qp->fin_lost)) {
		kiwarp_rx_after_fin(qp);
		rx->halt = true;
		return 0;
	}
	rx->skb = skb;
	rx->skb_off = off;
	piece = min3(len, desc->count, (size_t)U32_MAX);
	rx->skb_left = piece;
	while (rx->skb_left) {
		ret = kiwarp_rx_step(qp);
		if (ret < 0 && ret != -EAGAIN) {
			rx->err = ret;
			break;
		}
	}
	used = piece - rx->skb_left;
	rx->skb = NULL;
	rx->skb_left = 0;
	desc->count -= used;
	return used;
}

/*
 * After a pass: an error other than a protocol error (answered with
 * TERMINATE already) takes the connection down. Context: any.
 */
static void kiwarp_rx_failed(struct kiwarp_qp *qp, int ret)
{
	if (ret < 0 && ret != -EPROTO) {
		/* a reset, TCP giving up, an ICMP error */
		trace_kiwarp_rx_down(qp, ret, false);
		kiwarp_qp_down_status(qp, ret);
		kiwarp_qp_error(qp);
	}
}

/**
 * kiwarp_rx_data_ready() - parse what just arrived, in the caller.
 * @qp: the QP bound to @sk
 * @sk: its socket, locked: either by the TCP receive path (softirq, not
 *	owned by a task) or owned by the task in whose release_sock() the
 *	backlog is processed - in both cases no other parser can run
 *
 * While at most KIWARP_RX_INLINE_BYTES are queued they are placed right
 * here, which saves the RX work's wakeup on small messages; more (bulk
 * data), an end of stream and socket errors are left to the RX work,
 * bulk data on another CPU. Called from kiwarp's sk_data_ready under
 * sk_callback_lock.
 */
void kiwarp_rx_data_ready(struct kiwarp_qp *qp, struct sock *sk)
{
	read_descriptor_t desc = {
		.arg.data = qp,
		.count = KIWARP_RX_INLINE_BYTES,
	};
	struct kiwarp_rx *rx = &qp->rx;

	if (!kiwarp_rx_live(qp))
		return;
	if (!sock_owned_by_user(sk))	/* TCP's softirq, not a backlog */
		WRITE_ONCE(qp->rx_src_cpu, raw_smp_processor_id());
	if (tcp_inq(sk) > KIWARP_RX_INLINE_BYTES) {
		kiwarp_qp_queue_rx_away(qp);
		return;
	}
	rx->err = 0;
	rx->halt = false;
	tcp_read_sock(sk, &desc, kiwarp_rx_actor);
	if (rx->err)
		kiwarp_rx_failed(qp, rx->err);
	else if (!desc.count && !rx->halt)
		kiwarp_qp_queue_rx_away(qp);	/* more to read */
}

/**
 * kiwarp_rx_drain() - parse what is queued before a send error ends us
 * @qp: the QP, whose TX work just found the connection reset
 *
 * A peer that found an error sends TERMINATE and closes; its close is a
 * reset when our data was still unread there, and our next send fails
 * with it while the TERMINATE may still wait, unparsed, in our receive
 * queue. Parsed here first, it is the reason the connection ends
 * (-EPROTO, IB_EVENT_QP_FATAL), not the reset; the messages in front of
 * it are placed and completed as the RX work would have.
 *
 * Context: process context (the TX work), no lock held.
 */
void kiwarp_rx_drain(struct kiwarp_qp *qp)
{
	read_descriptor_t desc = {
		.arg.data = qp,
		.count = INT_MAX,
	};
	struct kiwarp_rx *rx = &qp->rx;
	struct sock *sk;

	/* qp->sock stays until kiwarp_qp_down_work() has flushed us */
	if (!kiwarp_rx_live(qp))
		return;
	sk = qp->sock->sk;
	lock_sock(sk);
	rx->err = 0;
	rx->halt = false;
	tcp_read_sock(sk, &desc, kiwarp_rx_actor);
	release_sock(sk);
}

static void __kiwarp_rx_work(struct work_struct *work)
{
	struct kiwarp_qp *qp = container_of(work, struct kiwarp_qp, rx_work);
	size_t left = KIWARP_RX_PASS_BYTES;	/* of this pass */
	struct kiwarp_rx *rx = &qp->rx;
	bool eof = false, halt, more;
	struct sock *sk;
	int ret;

	/* qp->sock stays until kiwarp_qp_down_work() has flushed us */
	if (!kiwarp_rx_live(qp))
		goto out;
	sk = qp->sock->sk;
	lock_sock(sk);
	rx->err = 0;
	rx->halt = false;
	/*
	 * In chunks with bottom halves off, as the softirq parses: the
	 * completions placed schedule their CQ's tasklet, which runs at
	 * the chunk's local_bh_enable() (kiwarp_cq_local()), instead of an
	 * irq_work each (a self-IPI); the socket is still ours then, so
	 * what arrives meanwhile waits in its backlog for release_sock().
	 */
	do {
		read_descriptor_t chunk = {
			.arg.data = qp,
			.count = min_t(size_t, left, KIWARP_RX_BH_CHUNK_BYTES),
		};

		left -= chunk.count;
		local_bh_disable();
		ret = tcp_read_sock(sk, &chunk, kiwarp_rx_actor);
		local_bh_enable();
		left += chunk.count;	/* the chunk's unused rest */
		/* a chunk used up: there may be more queued */
		more = ret > 0 && !chunk.count && left && !rx->err &&
		       !rx->halt;
	} while (more);
	halt = rx->halt;	/* release_sock()'s backlog may reset it */
	if (rx->err) {
		ret = rx->err;
	} else if (halt || !left) {
		ret = 0;
	} else if (ret >= 0 || ret == -EAGAIN) {
		/* all read: why nothing more comes, if it does not */
		ret = sock_error(sk);
		if (!ret && ((sk->sk_shutdown & RCV_SHUTDOWN) ||
			     sk->sk_state == TCP_CLOSE))
			eof = true;
	}
	release_sock(sk);

	if (eof) {
		/* the peer closed its half: CLOSING, or the end */
		kiwarp_qp_peer_fin(qp);
	} else if (ret < 0) {
		kiwarp_rx_failed(qp, ret);
	} else if (!ret && !left && !halt) {
		kiwarp_qp_queue(qp, &qp->rx_work);	/* more to read */
	}
out:
	kiwarp_qp_put(qp);
}

void kiwarp_rx_work(struct work_struct *work)
{
	kiwarp_work_run(__kiwarp_rx_work, work);
}
