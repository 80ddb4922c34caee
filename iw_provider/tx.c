// SPDX-License-Identifier: GPL-2.0
/*
 * kiwarp: the transmit path (one work per QP, qp->tx_work).
 *
 * The TX work is the only writer of a connected QP's socket. Each pass
 * sends, in this order: a pending TERMINATE (then the QP goes to ERROR);
 * RDMA Read Responses for the inbound Read Requests queued by RX (IRQ);
 * the send queue in order - Send, Send with Invalidate, Send with SE,
 * RDMA Write, RDMA Read Request (entered in the ORQ first, at most ORD
 * outstanding; IB_SEND_FENCE waits for them), and the local REG_MR and
 * LOCAL_INV steps. In CLOSING, once the SQ is empty, our half of the TCP
 * connection is closed (FIN). Once the peer's FIN came (it moved the QP to
 * CLOSING, or came during our close) nothing more is sent: our FIN goes
 * at once and ends the connection (kiwarp_qp_fin_sent()), the WQEs not
 * sent are flushed.
 *
 * A message is cut into FPDUs of at most fpdu_segs path MSS (fpdu_max).
 * Up to KIWARP_TX_BATCH of them go to TCP in one kernel_sendmsg() of a
 * kvec array (qp->txb): per FPDU its header, the payload straight from
 * the registered memory (no staging copy), its pad and CRC. MSG_MORE is
 * set but for the batch that ends the message, so TCP builds full-size
 * skbs. Nothing is allocated per message. Sends and Writes complete
 * once handed to TCP - or, when their batches were lent to TCP without
 * a copy (zc.c, messages of at least zcopy_min bytes in page-backed
 * memory), once TCP has them acknowledged; Reads complete when their
 * last response segment is placed (rx.c); completions are reported in
 * SQ order (qp.c).
 */

#include <linux/wait_bit.h>

#include "kiwarp.h"
#include "kiwarp_trace.h"

#define KIWARP_TX_BUDGET	64

static const u8 kiwarp_zero_pad[3];

/*
 * A WQE of the TX work is finished (process context, no lock held). With
 * bh off, the CQ notification it raises runs at local_bh_enable(), on
 * this CPU, in softirq - instead of through a self-IPI (cq.c).
 */
static void kiwarp_tx_complete(struct kiwarp_qp *qp, u32 idx,
			       enum ib_wc_status status)
{
	local_bh_disable();
	kiwarp_sq_complete(qp, idx, status);
	local_bh_enable();
}

/*
 * Add FPDU @nf of the batch in qp->txb: @h's header (@hlen bytes) for
 * the message's payload from offset @sent of @total, taken from @src:
 * at most @max_pay bytes, and what the kvecs from *@nv leave room for.
 * Return: the payload bytes taken (*@nv and *@flen advanced, h->last
 * set when they end the message), or -EFAULT/-EACCES (@src).
 */
static int kiwarp_tx_fpdu(struct kiwarp_qp *qp, struct ddp_hdr *h, u32 hlen,
			  u32 max_pay, u64 base_to, struct kiwarp_cursor *src,
			  u32 sent, u32 total, u8 *slots, u32 nf, u32 *nv,
			  u32 *flen)
{
	struct kiwarp_txbuf *txb = &qp->txb;
	struct kvec *vec = txb->vec;
	u32 want = min(total - sent, max_pay);
	u32 first = *nv, n = first + 1, got = 0, pad, crc, i;
	u8 *hdr = txb->hdr[nf], *trl = txb->trl[nf];
	int ret;

	if (slots) {	/* zero-copy: headers where TCP may keep them */
		hdr = slots + nf * KIWARP_ZC_SLOT;
		trl = hdr + KIWARP_ZC_TRL_OFF;
	}

	while (got < want && n < KIWARP_TX_VECS - 1) {
		void *p;
		u32 len;

		ret = kiwarp_cursor_piece(src, want - got, &p, &len);
		if (ret)
			return ret == -ENOENT ? -EFAULT : ret;
		vec[n].iov_base = p;
		vec[n].iov_len = len;
		n++;
		got += len;
	}
	if (h->opcode == RDMAP_WRITE || h->opcode == RDMAP_READ_RESP)
		h->to = base_to + sent;
	else
		h->mo = sent;
	h->last = sent + got == total;
	ddp_hdr_encode(h, hdr + MPA_FPDU_HDR_LEN, DDP_HDR_MAX);
	put_unaligned_be16(hlen + got, hdr);
	vec[first].iov_base = hdr;
	vec[first].iov_len = MPA_FPDU_HDR_LEN + hlen;

	pad = mpa_fpdu_pad(hlen + got);
	memset(trl, 0, 3 + MPA_FPDU_CRC_LEN);
	if (qp->crc) {
		crc = IW_CRC32C_SEED;
		for (i = first; i < n; i++)
			crc = iw_crc32c(crc, vec[i].iov_base, vec[i].iov_len);
		crc = ~iw_crc32c(crc, kiwarp_zero_pad, pad);
		put_unaligned_le32(crc, trl + pad);
	}
	vec[n].iov_base = trl;
	vec[n].iov_len = pad + MPA_FPDU_CRC_LEN;
	n++;
	*flen += MPA_FPDU_HDR_LEN + hlen + got + pad + MPA_FPDU_CRC_LEN;
	*nv = n;
	return got;
}

/*
 * Hand @len bytes in the first @nv of qp->txb.vec to TCP, as
 * kernel_sendmsg() would, waiting for room in the socket's send buffer
 * if need be. A send that finds no room for all of it is counted in
 * stats.tx_waits (the port's counter of the same name): it is first
 * tried without waiting, and whatever TCP took then is not sent again.
 * Return: bytes sent (@len unless the socket failed), or an error.
 */
static int kiwarp_tx_sendmsg(struct kiwarp_qp *qp, struct msghdr *msg,
			     u32 nv, u32 len)
{
	int ret, took;

	iov_iter_kvec(&msg->msg_iter, ITER_SOURCE, qp->txb.vec, nv, len);
	msg->msg_flags |= MSG_DONTWAIT;
	ret = sock_sendmsg(qp->sock, msg);
	if (ret == len || (ret < 0 && ret != -EAGAIN))
		return ret;
	qp->stats.tx_waits++;
	took = max(ret, 0);
	msg->msg_flags &= ~MSG_DONTWAIT;
	ret = sock_sendmsg(qp->sock, msg);	/* the rest, waiting for ACKs */
	return ret < 0 ? ret : took + ret;
}

/*
 * Send one message: @total bytes from @src behind headers from @h. For
 * tagged messages h->to is the first byte's offset; untagged get their
 * MO filled in. Messages of at least zcopy_min bytes go by reference
 * where the memory allows (zc.c); *@zc tells whether a batch did.
 * Return: 0, -EACCES/-EFAULT (@src), or a socket error.
 */
static int kiwarp_tx_msg(struct kiwarp_qp *qp, struct ddp_hdr *h,
			 struct kiwarp_cursor *src, u32 total, bool *zc)
{
	u32 zmin = READ_ONCE(kiwarp_zcopy_min);
	/*
	 * Read Responses are copied: no WQE of ours stands for them, so
	 * nothing could wait for TCP to release lent pages before the
	 * consumer invalidates and reuses the memory (LOCAL_INV, a Send
	 * with Invalidate) - the pages would still be sent from.
	 */
	bool try_zc = qp->zc && zmin && total >= zmin &&
		      h->opcode != RDMAP_READ_RESP;
	u64 base_to = h->to;
	u32 sent = 0, hlen, max_pay;
	int hret;

	*zc = false;

	hret = ddp_hdr_encode(h, qp->txb.hdr[0] + MPA_FPDU_HDR_LEN,
			      DDP_HDR_MAX);
	if (hret < 0)
		return hret;
	hlen = hret;
	max_pay = ddp_max_payload(qp->fpdu_max, hlen);

	do {
		struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
		u32 nf = 0, nv = 0, flen = 0, payload = 0;
		u8 *slots = try_zc ? kiwarp_zc_slots(qp) : NULL;
		int ret;

		/* whole FPDUs while the batch has room for one more */
		do {
			ret = kiwarp_tx_fpdu(qp, h, hlen, max_pay, base_to, src,
					     sent, total, slots, nf, &nv, &flen);
			if (ret < 0)
				return ret;
			sent += ret;
			payload += ret;
			nf++;
		} while (!h->last && nf < KIWARP_TX_BATCH &&
			 KIWARP_TX_VECS - nv >= 3);
		ret = 0;
		if (slots) {
			ret = kiwarp_zc_send(qp, nv, flen, !h->last);
			if (ret < 0)
				return ret;
			*zc |= ret > 0;
			try_zc = ret > 0;	/* not page-backed: copy the rest */
		}
		if (!ret) {
			/* More of this message follows: let TCP fill skbs. */
			if (!h->last)
				msg.msg_flags |= MSG_MORE;
			ret = kiwarp_tx_sendmsg(qp, &msg, nv, flen);
			if (ret != flen)
				return ret < 0 ? ret : -EIO;
		}
		qp->stats.tx_fpdus += nf;
		qp->stats.tx_bytes += payload;
	} while (!h->last);
	return 0;
}

static int kiwarp_tx_terminate(struct kiwarp_qp *qp)
{
	struct ddp_hdr h = {
		.opcode = RDMAP_TERMINATE,
		.msn = qp->send_msn[DDP_QN_TERMINATE]++,
		.term_layer = qp->term_layer,
		.term_etype = qp->term_etype,
		.term_ecode = qp->term_ecode,
	};
	struct kiwarp_cursor none;
	bool zc;

	kiwarp_cursor_init(&none, qp, NULL, 0, 0, false);
	qp->stats.terms_sent++;
	trace_kiwarp_terminate(qp, true, h.term_layer, h.term_etype,
			       h.term_ecode);
	return kiwarp_tx_msg(qp, &h, &none, 0, &zc);
}

/* Answer the oldest inbound Read Request. */
static int kiwarp_tx_read_resp(struct kiwarp_qp *qp, struct kiwarp_irqe *e)
{
	struct ddp_hdr h = {
		.opcode = RDMAP_READ_RESP,
		.stag = e->sink_stag,
		.to = e->sink_to,
	};
	struct kiwarp_cursor src;
	bool zc;
	int ret;

	kiwarp_cursor_tagged(&src, qp, e->src_stag, e->src_to, e->len,
			     IB_ACCESS_REMOTE_READ);
	ret = kiwarp_tx_msg(qp, &h, &src, e->len, &zc);
	kiwarp_cursor_end(&src);
	if (ret == -EACCES)
		kiwarp_qp_terminate(qp, TERM_LAYER_RDMAP,
				    RDMAP_ETYPE_REMOTE_PROTECTION, src.ecode);
	return ret;
}

static u8 kiwarp_send_opcode(const struct kiwarp_swqe *w)
{
	bool se = w->flags & IB_SEND_SOLICITED;

	if (w->opcode == IB_WR_SEND_WITH_INV)
		return se ? RDMAP_SEND_SE_INV : RDMAP_SEND_INV;
	return se ? RDMAP_SEND_SE : RDMAP_SEND;
}

/*
 * Process the WQE in SQ slot @idx (already counted as processed).
 * Return: 0, or an error that takes the QP to ERROR.
 */
static int kiwarp_tx_wqe(struct kiwarp_qp *qp, struct kiwarp_swqe *w,
			 u32 idx)
{
	struct kiwarp_cursor src;
	struct ddp_hdr h = {};
	unsigned long flags;
	bool zc;
	int ret;

	switch (w->opcode) {
	case IB_WR_REG_MR:
		ret = kiwarp_mr_reg(w->reg_mr, qp->ibqp.pd, w->reg_key,
				    w->reg_access);
		kiwarp_tx_complete(qp, idx, ret ? IB_WC_MW_BIND_ERR :
						  IB_WC_SUCCESS);
		return ret;
	case IB_WR_LOCAL_INV:
		ret = kiwarp_mr_invalidate(qp->kdev, qp->ibqp.pd, w->ex_key);
		kiwarp_tx_complete(qp, idx, ret ? IB_WC_LOC_PROT_ERR :
						  IB_WC_SUCCESS);
		return ret ? -EINVAL : 0;
	case IB_WR_RDMA_READ:
	case IB_WR_RDMA_READ_WITH_INV:
		if (kiwarp_sges_check(qp, w->sge, 1, IB_ACCESS_LOCAL_WRITE)) {
			kiwarp_tx_complete(qp, idx, IB_WC_LOC_PROT_ERR);
			return -EACCES;
		}
		spin_lock_irqsave(&qp->sq_lock, flags);
		qp->orq[qp->orq_tail % qp->orq_size] = (struct kiwarp_orqe) {
			.sq_idx = idx,
			.sink_stag = w->sge[0].lkey,
			.sink_to = w->sge[0].addr,
			.len = w->sge[0].length,
			.inv = w->opcode == IB_WR_RDMA_READ_WITH_INV,
			/*
			 * The sink's STag as it is now, as siw and cxgb4
			 * do, not ex.invalidate_rkey: rdma_rw (nvmet-rdma,
			 * svcrdma, isert) fills that in when it builds the
			 * chain and increments the MR's key when it posts
			 * it, so it names the key from before the chain's
			 * own REG_MR. The sink is what the verb invalidates.
			 */
			.inv_key = w->sge[0].lkey,
		};
		qp->orq_tail++;
		spin_unlock_irqrestore(&qp->sq_lock, flags);
		h.opcode = RDMAP_READ_REQ;
		h.msn = qp->send_msn[DDP_QN_READ_REQ]++;
		h.sink_stag = w->sge[0].lkey;
		h.sink_to = w->sge[0].addr;
		h.read_size = w->sge[0].length;
		h.src_stag = w->rkey;
		h.src_to = w->remote_addr;
		kiwarp_cursor_init(&src, qp, NULL, 0, 0, false);
		return kiwarp_tx_msg(qp, &h, &src, 0, &zc);
	case IB_WR_RDMA_WRITE:
		h.opcode = RDMAP_WRITE;
		h.stag = w->rkey;
		h.to = w->remote_addr;
		break;
	default:
		h.opcode = kiwarp_send_opcode(w);
		h.stag = w->ex_key;
		h.msn = qp->send_msn[DDP_QN_SEND]++;
		break;
	}
	if (kiwarp_sges_check(qp, w->sge, w->num_sge, 0)) {
		kiwarp_tx_complete(qp, idx, IB_WC_LOC_PROT_ERR);
		return -EACCES;
	}
	kiwarp_cursor_init(&src, qp, w->sge, w->num_sge, 0, false);
	ret = kiwarp_tx_msg(qp, &h, &src, w->total_len, &zc);
	kiwarp_cursor_end(&src);
	if (ret == -EACCES || ret == -EFAULT) {
		kiwarp_tx_complete(qp, idx, IB_WC_LOC_PROT_ERR);
		return ret;
	}
	if (!ret) {
		w->byte_len = w->total_len;
		/* lent to TCP: done when TCP has it acknowledged */
		if (zc)
			kiwarp_zc_complete_wqe(qp, idx);
		else
			kiwarp_tx_complete(qp, idx, IB_WC_SUCCESS);
	}
	return ret;
}

/*
 * One step of a connected QP in RTS or CLOSING. Return: 1 if there may
 * be more to do, 0 when idle, < 0 on an error (QP to ERROR).
 */
static int kiwarp_tx_step(struct kiwarp_qp *qp, enum kiwarp_qp_state st)
{
	struct kiwarp_swqe *w = NULL;
	struct kiwarp_irqe e;
	bool have_irq = false, drained, peer_fin;
	unsigned long flags;
	u32 idx = 0;
	int ret;

	/*
	 * After the peer's FIN nothing more of ours is sent (it would be
	 * data after the peer's FIN, an error there: seed 004): the WQE in
	 * progress was finished by the call that sent it, the rest is
	 * flushed once we are down. Our FIN goes at once.
	 */
	peer_fin = st == KIWARP_QPS_CLOSING && READ_ONCE(qp->peer_closed);
	spin_lock_irqsave(&qp->sq_lock, flags);
	if (peer_fin) {
		/* nothing to take */
	} else if (qp->irq_head != qp->irq_tail) {
		/*
		 * The request's IRD slot is free as soon as we take it: the
		 * requester frees its ORD slot when the last segment of the
		 * response arrives and may send its next Read Request at
		 * once, which can be parsed (from the socket backlog, at
		 * release_sock) before kiwarp_tx_msg() returns. Freeing the
		 * slot after the send made that request overflow the IRD
		 * (a TERMINATE) whenever the requester used its whole ORD.
		 */
		e = qp->irq[qp->irq_head++ % qp->irq_size];
		have_irq = true;
	} else if (qp->sq_next != qp->sq_tail) {
		w = &qp->sq[qp->sq_next & (qp->sq_size - 1)];
		if (kiwarp_wr_is_read(w->opcode) && !qp->ord) {
			/* the connection allows no Read: a local error */
			idx = qp->sq_next++;
			spin_unlock_irqrestore(&qp->sq_lock, flags);
			kiwarp_tx_complete(qp, idx, IB_WC_LOC_QP_OP_ERR);
			return -EINVAL;
		}
		if ((kiwarp_wr_is_read(w->opcode) &&
		     qp->orq_tail - qp->orq_head >= qp->ord) ||
		    ((w->flags & IB_SEND_FENCE) &&
		     qp->orq_tail != qp->orq_head)) {
			/* wait for a Read Response: RX kicks us */
			w = NULL;
		} else {
			idx = qp->sq_next++;
		}
	}
	/* every WQE sent and no Read waits for its Response */
	drained = peer_fin || (qp->sq_next == qp->sq_tail &&
			       qp->orq_head == qp->orq_tail);
	spin_unlock_irqrestore(&qp->sq_lock, flags);

	if (have_irq)
		return kiwarp_tx_read_resp(qp, &e) ?: 1;
	if (w) {
		ret = kiwarp_tx_wqe(qp, w, idx);
		return ret ?: 1;
	}
	if (st == KIWARP_QPS_CLOSING && !qp->fin_sent && drained) {
		/*
		 * From now on data from the peer is an error (rx.c): so not
		 * while a Read Response is still to come (the RX path kicks
		 * us when the last one is in).
		 */
		if (!kiwarp_qp_fin_sent(qp))
			kernel_sock_shutdown(qp->sock, SHUT_WR);
	}
	return 0;
}

void kiwarp_tx_work(struct work_struct *work)
{
	struct kiwarp_qp *qp = container_of(work, struct kiwarp_qp, tx_work);
	enum kiwarp_qp_state st;
	int budget = KIWARP_TX_BUDGET, ret;
	unsigned long flags;
	bool up, term;

	while (budget--) {
		spin_lock_irqsave(&qp->state_lock, flags);
		st = qp->state;
		up = qp->conn_up;
		term = qp->term_pending;
		qp->term_pending = false;
		qp->term_sending = term && up;
		spin_unlock_irqrestore(&qp->state_lock, flags);

		if (!up) {
			/*
			 * The teardown kicks us once the socket is gone: TCP
			 * may hold zero-copy batches until then.
			 */
			if (st == KIWARP_QPS_ERROR && !READ_ONCE(qp->sock))
				kiwarp_qp_flush_sq(qp);
			break;
		}
		if (term) {
			kiwarp_tx_terminate(qp);
			/* in TCP's hands now: the teardown may go on */
			smp_store_release(&qp->term_sending, false);
			wake_up_var(&qp->term_sending);
			kiwarp_qp_error(qp);
			break;
		}
		if (st != KIWARP_QPS_RTS && st != KIWARP_QPS_CLOSING)
			break;	/* the teardown flushes */
		ret = kiwarp_tx_step(qp, st);
		if (ret < 0) {
			qp->stats.errors++;
			kiwarp_qp_down_status(qp, ret == -EPIPE ? -ECONNRESET :
					      ret);
			kiwarp_qp_error(qp);
			break;
		}
		if (!ret)
			break;
	}
	if (budget < 0)
		kiwarp_qp_kick_tx(qp);	/* more to do: let others run */
	kiwarp_qp_put(qp);
}
