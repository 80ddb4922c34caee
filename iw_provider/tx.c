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
 * Up to KIWARP_TX_BATCH of them go to TCP in one sendmsg of a
 * kvec array (qp->txb): per FPDU its header, the payload straight from
 * the registered memory (no staging copy), its pad and CRC. MSG_MORE is
 * set but for the batch that ends the message, so TCP builds full-size
 * skbs - and, for a Read Request or a Read Response, on that one too
 * while another message is already queued (a WQE or a Read Response),
 * so that such messages back to back share segments. When the work
 * then stops without sending on (idle, or the next WQE waits for a Read
 * Response), it pushes what TCP holds (kiwarp_tx_uncork()). Sends and
 * Writes end their last batch without MSG_MORE: held for the next
 * message, 4 KiB ones went out in 64 KiB segments, whose receive goes
 * off-CPU (rx.c), and lost a quarter of their throughput on make
 * bench's topology (a) (Documentation/performance.rst). Nothing is
 * allocated per message. The TX work never waits for room in the
 * socket: a message is kept in qp->txm across passes, and when TCP
 * takes only part of a batch the work returns and
 * sk_write_space queues it again (kiwarp_sk_write_space()), where it
 * goes on (a batch lent to TCP by reference, zc.c, still waits).
 * Sends and Writes complete once handed to TCP - or, when their
 * batches were lent to TCP without a copy (zc.c, messages of at least
 * zcopy_min bytes in page-backed memory), once TCP has them
 * acknowledged; Reads complete when their last response segment is
 * placed (rx.c); completions are reported in SQ order (qp.c).
 */

#include <linux/tcp.h>
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
 * Start qp->txm: @kind's message, header @h, @total payload bytes from
 * qp->txm.src (set up by the caller), a WQE's SQ slot @idx.
 * Return: 0, or the header's encoding error.
 */
static int kiwarp_txm_start(struct kiwarp_qp *qp, enum kiwarp_txm_kind kind,
			    u32 idx, const struct ddp_hdr *h, u32 total)
{
	struct kiwarp_txmsg *m = &qp->txm;
	int hret;

	m->kind = kind;
	m->idx = idx;
	m->read = kind == KIWARP_TXM_WQE && h->opcode == RDMAP_READ_REQ;
	m->h = *h;
	m->base_to = h->to;
	m->total = total;
	m->sent = 0;
	/*
	 * Read Responses are copied: no WQE of ours stands for them, so
	 * nothing could wait for TCP to release lent pages before the
	 * consumer invalidates and reuses the memory (LOCAL_INV, a Send
	 * with Invalidate) - the pages would still be sent from.
	 */
	m->try_zc = qp->zc && total >= qp->zc_min &&
		    h->opcode != RDMAP_READ_RESP;
	m->zc = false;
	m->nv = 0;
	m->flen = 0;
	m->done = 0;
	hret = ddp_hdr_encode(&m->h, qp->txb.hdr[0] + MPA_FPDU_HDR_LEN,
			      DDP_HDR_MAX);
	if (hret < 0)
		return hret;
	m->hlen = hret;
	m->max_pay = ddp_max_payload(qp->fpdu_max, m->hlen);
	return 0;
}

/*
 * Is another message queued behind the one in qp->txm (which was taken
 * off its queue)? A hint, read without the lock: a WQE posted just
 * after is sent by this work's next step anyway, and a corked tail is
 * pushed when the work stops (kiwarp_tx_uncork()).
 */
static bool kiwarp_tx_next_queued(struct kiwarp_qp *qp)
{
	return READ_ONCE(qp->irq_head) != READ_ONCE(qp->irq_tail) ||
	       READ_ONCE(qp->sq_next) != READ_ONCE(qp->sq_tail);
}

/*
 * The TX work stops with nothing more to send for now: push the
 * partial segment TCP may hold after a batch sent with MSG_MORE (an
 * ACK would push it too, but with nothing in flight none comes).
 */
static void kiwarp_tx_uncork(struct kiwarp_qp *qp)
{
	struct socket *sock = READ_ONCE(qp->sock);

	qp->tx_corked = false;
	if (sock)
		tcp_sock_set_cork(sock->sk, false);
}

/*
 * Hand what is left of the batch to TCP without waiting. A send that
 * finds no room is counted in stats.tx_waits (the port's counter of the
 * same name); TCP has then set SOCK_NOSPACE and calls sk_write_space
 * once there is room, which queues the TX work again.
 * Return: 0 when TCP has all of the batch, -EAGAIN when it has no room
 * for the rest, or the socket's error.
 */
static int kiwarp_txm_push(struct kiwarp_qp *qp)
{
	struct kiwarp_txmsg *m = &qp->txm;
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL | MSG_DONTWAIT };
	int ret;

	/* more of this message follows: let TCP fill skbs */
	if (m->more)
		msg.msg_flags |= MSG_MORE;
	iov_iter_kvec(&msg.msg_iter, ITER_SOURCE, qp->txb.vec, m->nv, m->flen);
	iov_iter_advance(&msg.msg_iter, m->done);
	/*
	 * Before the send: a write space that comes once TCP is full must
	 * find it set (kiwarp_sk_write_space()); cleared when all went.
	 */
	WRITE_ONCE(qp->tx_blocked, true);
	ret = sock_sendmsg(qp->sock, &msg);
	if (ret > 0)
		m->done += ret;
	WRITE_ONCE(qp->tx_partial, m->done && m->done < m->flen);
	if (m->done == m->flen) {
		WRITE_ONCE(qp->tx_blocked, false);
		qp->tx_corked = m->more;
		return 0;
	}
	if (ret < 0 && ret != -EAGAIN)
		return ret;
	qp->stats.tx_waits++;
	if (sk_stream_memory_free(qp->sock->sk)) {
		/*
		 * Room, but TCP could not allocate (an skb, a page frag):
		 * with nothing in flight no ACK calls sk_write_space. Try
		 * again in a moment, as sk_stream_wait_memory() would.
		 */
		schedule_timeout_uninterruptible(msecs_to_jiffies(10));
		kiwarp_qp_kick_tx_home(qp);
	}
	return -EAGAIN;
}

/*
 * Build the message's next batch in qp->txb: whole FPDUs while it has
 * room for one more. A batch that may go by reference is lent to TCP
 * here (zc.c; it waits for room); one that is copied is pushed by the
 * caller. Return: 0, -EFAULT/-EACCES (the source), or a socket error.
 */
static int kiwarp_txm_batch(struct kiwarp_qp *qp)
{
	struct kiwarp_txmsg *m = &qp->txm;
	u8 *slots = m->try_zc ? kiwarp_zc_slots(qp) : NULL;
	u32 nf = 0, nv = 0, flen = 0, payload = 0;
	int ret;

	do {
		ret = kiwarp_tx_fpdu(qp, &m->h, m->hlen, m->max_pay,
				     m->base_to, &m->src, m->sent, m->total,
				     slots, nf, &nv, &flen);
		if (ret < 0)
			return ret;
		m->sent += ret;
		payload += ret;
		nf++;
	} while (!m->h.last && nf < KIWARP_TX_BATCH &&
		 KIWARP_TX_VECS - nv >= 3);
	m->nv = nv;
	m->flen = flen;
	m->done = 0;
	m->nf = nf;
	m->payload = payload;
	m->more = !m->h.last ||
		  ((m->read || m->kind == KIWARP_TXM_READ_RESP) &&
		   kiwarp_tx_next_queued(qp));
	if (slots) {
		ret = kiwarp_zc_send(qp, nv, flen, m->more);
		if (ret < 0)
			return ret;
		m->zc |= ret > 0;
		m->try_zc = ret > 0;	/* not page-backed: copy the rest */
		if (ret > 0) {
			m->done = flen;	/* lent to TCP */
			qp->tx_corked = m->more;
		}
	}
	return 0;
}

/*
 * Send on with qp->txm. A message is cut into FPDUs of at most max_pay
 * payload bytes; up to KIWARP_TX_BATCH of them go to TCP at a time.
 * Return: 0 when all of it is TCP's, -EAGAIN when TCP has no room (the
 * TX work is queued again from sk_write_space and goes on from here),
 * -EACCES/-EFAULT (the source), or a socket error.
 */
static int kiwarp_txm_run(struct kiwarp_qp *qp)
{
	struct kiwarp_txmsg *m = &qp->txm;
	int ret;

	for (;;) {
		if (m->done < m->flen) {
			ret = kiwarp_txm_push(qp);
			if (ret)
				return ret;
		}
		if (m->flen) {
			qp->stats.tx_fpdus += m->nf;
			qp->stats.tx_bytes += m->payload;
			m->flen = 0;
			m->done = 0;
			if (m->h.last)
				return 0;
		}
		ret = kiwarp_txm_batch(qp);
		if (ret)
			return ret;
	}
}

/*
 * The message in qp->txm ended with @ret (0: all of it is TCP's): its
 * source is released, a WQE completes (a Read Request when its Response
 * comes, rx.c), a Read Response the source refused is answered with a
 * TERMINATE. Return: @ret, an error ending the connection, or 0.
 */
static int kiwarp_txm_end(struct kiwarp_qp *qp, int ret)
{
	struct kiwarp_txmsg *m = &qp->txm;
	enum kiwarp_txm_kind kind = m->kind;
	struct kiwarp_swqe *w;

	kiwarp_cursor_end(&m->src);
	m->kind = KIWARP_TXM_NONE;
	m->flen = 0;
	m->done = 0;
	WRITE_ONCE(qp->tx_partial, false);
	if (kind == KIWARP_TXM_READ_RESP && ret == -EACCES)
		kiwarp_qp_terminate(qp, TERM_LAYER_RDMAP,
				    RDMAP_ETYPE_REMOTE_PROTECTION,
				    m->src.ecode);
	if (kind != KIWARP_TXM_WQE)
		return ret;
	w = &qp->sq[m->idx & (qp->sq_size - 1)];
	if (ret == -EACCES || ret == -EFAULT) {
		kiwarp_tx_complete(qp, m->idx, IB_WC_LOC_PROT_ERR);
		return ret;
	}
	/*
	 * Not w->opcode: a Read's slot may be retired and reused by now (its
	 * Response can come while the Request is still ours to send).
	 */
	if (!ret && !m->read) {
		w->byte_len = w->total_len;
		/* lent to TCP: done when TCP has it acknowledged */
		if (m->zc)
			kiwarp_zc_complete_wqe(qp, m->idx);
		else
			kiwarp_tx_complete(qp, m->idx, IB_WC_SUCCESS);
	}
	return ret;
}

/* Send on with qp->txm; as kiwarp_tx_step() returns. */
static int kiwarp_txm_go(struct kiwarp_qp *qp, int ret)
{
	ret = ret ?: kiwarp_txm_run(qp);
	if (ret == -EAGAIN)
		return ret;
	return kiwarp_txm_end(qp, ret) ?: 1;
}

/**
 * kiwarp_tx_release() - the connection is down: drop the message in
 * progress (its WQE is flushed with the rest of the SQ).
 * @qp: the QP, its TX work flushed and not to touch the socket again
 */
void kiwarp_tx_release(struct kiwarp_qp *qp)
{
	kiwarp_cursor_end(&qp->txm.src);
	qp->txm.kind = KIWARP_TXM_NONE;
	qp->txm.flen = 0;
	qp->txm.done = 0;
	WRITE_ONCE(qp->tx_partial, false);
	WRITE_ONCE(qp->tx_blocked, false);
}

/*
 * Send the pending TERMINATE (once sent the QP goes to ERROR). A batch
 * TCP has part of goes out whole first, or the peer's framing breaks;
 * the rest of its message is dropped (its WQE is flushed by the
 * teardown). Return: 0 when it is TCP's or cannot go (a socket error),
 * -EAGAIN when TCP has no room yet.
 */
static int kiwarp_tx_terminate(struct kiwarp_qp *qp)
{
	struct kiwarp_txmsg *m = &qp->txm;
	struct ddp_hdr h = {
		.opcode = RDMAP_TERMINATE,
		.term_layer = qp->term_layer,
		.term_etype = qp->term_etype,
		.term_ecode = qp->term_ecode,
	};
	int ret;

	if (m->kind != KIWARP_TXM_TERM) {
		if (m->kind != KIWARP_TXM_NONE && m->done &&
		    m->done < m->flen) {
			ret = kiwarp_txm_push(qp);
			if (ret)
				return ret == -EAGAIN ? ret : 0;
			qp->stats.tx_fpdus += m->nf;
			qp->stats.tx_bytes += m->payload;
		}
		kiwarp_tx_release(qp);
		h.msn = qp->send_msn[DDP_QN_TERMINATE]++;
		qp->stats.terms_sent++;
		trace_kiwarp_terminate(qp, true, h.term_layer, h.term_etype,
				       h.term_ecode);
		kiwarp_cursor_init(&m->src, qp, NULL, 0, 0, false);
		ret = kiwarp_txm_start(qp, KIWARP_TXM_TERM, 0, &h, 0);
		if (ret) {
			kiwarp_tx_release(qp);
			return 0;
		}
	}
	ret = kiwarp_txm_run(qp);
	if (ret == -EAGAIN)
		return ret;
	if (!ret) {
		/* how far the teardown waits for the peer's ACK (cm.c) */
		qp->term_end = READ_ONCE(tcp_sk(qp->sock->sk)->write_seq);
		qp->term_sent = true;
	}
	kiwarp_tx_release(qp);
	return 0;
}

/* Answer the oldest inbound Read Request. */
static int kiwarp_tx_read_resp(struct kiwarp_qp *qp, struct kiwarp_irqe *e)
{
	struct ddp_hdr h = {
		.opcode = RDMAP_READ_RESP,
		.stag = e->sink_stag,
		.to = e->sink_to,
	};

	kiwarp_cursor_tagged(&qp->txm.src, qp, e->src_stag, e->src_to, e->len,
			     IB_ACCESS_REMOTE_READ);
	return kiwarp_txm_go(qp, kiwarp_txm_start(qp, KIWARP_TXM_READ_RESP, 0,
						  &h, e->len));
}

static u8 kiwarp_send_opcode(const struct kiwarp_swqe *w)
{
	bool se = w->flags & IB_SEND_SOLICITED;

	if (w->opcode == IB_WR_SEND_WITH_INV)
		return se ? RDMAP_SEND_SE_INV : RDMAP_SEND_INV;
	return se ? RDMAP_SEND_SE : RDMAP_SEND;
}

/*
 * Process the WQE in SQ slot @idx (already counted as processed): a
 * message goes out through qp->txm. Return: as kiwarp_tx_step().
 */
static int kiwarp_tx_wqe(struct kiwarp_qp *qp, struct kiwarp_swqe *w,
			 u32 idx)
{
	struct kiwarp_cursor *src = &qp->txm.src;
	struct ddp_hdr h = {};
	unsigned long flags;
	int ret;

	switch (w->opcode) {
	case IB_WR_REG_MR:
		ret = kiwarp_mr_reg(w->reg_mr, qp->ibqp.pd, w->reg_key,
				    w->reg_access);
		kiwarp_tx_complete(qp, idx, ret ? IB_WC_MW_BIND_ERR :
						  IB_WC_SUCCESS);
		return ret ?: 1;
	case IB_WR_LOCAL_INV:
		ret = kiwarp_mr_invalidate(qp->kdev, qp->ibqp.pd, w->ex_key);
		kiwarp_tx_complete(qp, idx, ret ? IB_WC_LOC_PROT_ERR :
						  IB_WC_SUCCESS);
		return ret ? -EINVAL : 1;
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
		kiwarp_cursor_init(src, qp, NULL, 0, 0, false);
		return kiwarp_txm_go(qp, kiwarp_txm_start(qp, KIWARP_TXM_WQE,
							  idx, &h, 0));
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
	kiwarp_cursor_init(src, qp, w->sge, w->num_sge, 0, false);
	return kiwarp_txm_go(qp, kiwarp_txm_start(qp, KIWARP_TXM_WQE, idx, &h,
						  w->total_len));
}

/*
 * One step of a connected QP in RTS or CLOSING: the message in progress
 * goes on, else the next is taken. Return: 1 if there may be more to do,
 * 0 when idle, -EAGAIN when TCP has no room (sk_write_space queues us
 * again), other errors take the QP to ERROR.
 */
static int kiwarp_tx_step(struct kiwarp_qp *qp, enum kiwarp_qp_state st)
{
	struct kiwarp_swqe *w = NULL;
	struct kiwarp_irqe e;
	bool have_irq = false, drained, peer_fin;
	unsigned long flags;
	u32 idx = 0;

	if (qp->txm.kind != KIWARP_TXM_NONE)
		return kiwarp_txm_go(qp, 0);

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
		 * release_sock) before the response is sent. Freeing the
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
		return kiwarp_tx_read_resp(qp, &e);
	if (w)
		return kiwarp_tx_wqe(qp, w, idx);
	if (st == KIWARP_QPS_CLOSING && !qp->fin_sent && drained) {
		/*
		 * From now on data from the peer is an error (rx.c): so not
		 * while a Read Response is still to come (the RX path kicks
		 * us when the last one is in).
		 */
		if (!kiwarp_qp_fin_sent(qp) &&
		    !kiwarp_tcp_shutdown(qp->sock, SHUT_WR))
			kiwarp_qp_fin_lost(qp);
	}
	return 0;
}

static void __kiwarp_tx_work(struct work_struct *work)
{
	struct kiwarp_qp *qp = container_of(work, struct kiwarp_qp, tx_work);
	enum kiwarp_qp_state st;
	int budget = KIWARP_TX_BUDGET, ret;
	unsigned long flags;
	bool up, term;

	WRITE_ONCE(qp->tx_cpu, raw_smp_processor_id());
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
			if (kiwarp_tx_terminate(qp) == -EAGAIN) {
				/*
				 * On from sk_write_space while the teardown
				 * waits for it (KIWARP_TERM_WAIT_MS), then a
				 * reset: such a peer may never read.
				 */
				spin_lock_irqsave(&qp->state_lock, flags);
				qp->term_pending = true;
				spin_unlock_irqrestore(&qp->state_lock, flags);
				kiwarp_qp_error(qp);
				break;
			}
			/* in TCP's hands now: the teardown may go on */
			smp_store_release(&qp->term_sending, false);
			wake_up_var(&qp->term_sending);
			kiwarp_qp_error(qp);
			break;
		}
		if (st != KIWARP_QPS_RTS && st != KIWARP_QPS_CLOSING)
			break;	/* the teardown flushes */
		ret = kiwarp_tx_step(qp, st);
		if (ret == -EAGAIN)
			break;	/* TCP is full: sk_write_space resumes us */
		if (ret < 0) {
			/* a reset: the peer's TERMINATE, if queued, says why */
			if (ret == -EPIPE || ret == -ECONNRESET)
				kiwarp_rx_drain(qp);
			qp->stats.errors++;
			kiwarp_qp_down_status(qp, ret == -EPIPE ? -ECONNRESET :
					      ret);
			kiwarp_qp_error(qp);
			break;
		}
		if (!ret) {
			/* idle, or the next WQE waits for a Read Response */
			if (qp->tx_corked)
				kiwarp_tx_uncork(qp);
			break;
		}
	}
	if (budget < 0)
		kiwarp_qp_kick_tx(qp);	/* more to do: let others run */
	kiwarp_qp_put(qp);
}

void kiwarp_tx_work(struct work_struct *work)
{
	kiwarp_work_run(__kiwarp_tx_work, work);
}
