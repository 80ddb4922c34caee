// SPDX-License-Identifier: GPL-2.0
/*
 * kiwarp: zero-copy transmit.
 *
 * A batch of FPDUs (tx.c) whose payload lies in page-backed memory
 * (sendpage_ok(): not slab, a page reference can be taken) is handed to
 * TCP by reference: a bio_vec message with MSG_ZEROCOPY and a ubuf_info
 * of ours (msg_ubuf), so TCP's skbs point at the registered memory
 * instead of copying it. TCP keeps those references until the peer has
 * acknowledged the bytes (or the connection is gone); only then does the
 * memory belong to the consumer again, so the WQE that sent it completes
 * when the last of its batches is released, not when sendmsg returns.
 *
 * Records: each zero-copy batch takes one of KIWARP_ZC_RECS records, in
 * order (ring [head, tail)); its headers and trailers live in the
 * record's slots of a compound page (32 KiB: the skbs reference them
 * as well). TCP drops its references in any order; a
 * record is released once it and every older one are done, so WQEs
 * still complete in SQ order. With every record in flight, a batch is
 * sent by copy: zero-copy is used where it can be, never waited for.
 *
 * Lifetime: struct kiwarp_zc is allocated when a QP is bound to a
 * socket, counted (ref): one for the QP, one per record in flight. The
 * teardown detaches the QP (zc->qp = NULL under zc->lock: no completion
 * after that) after the socket was released with a reset, which drops
 * TCP's references but those of skbs still queued below TCP; the last
 * release frees the area, from whatever context it happens in. Module
 * unload waits for every area to be freed (kiwarp_zc_exit()).
 *
 * Locking: zc->lock (irqsave) -> qp->sq_lock (kiwarp_sq_complete) ->
 * the CQ lock. The TX work is the only one to take records.
 */

#include <linux/skbuff.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/sizes.h>
#include <net/dst.h>
#include <net/rtnetlink.h>
#include <net/sock.h>

#include "kiwarp.h"

/*
 * By path (the default, -1): never over loopback or veth, where the
 * receiving end copies lent fragments anyway (skb_orphan_frags_rx) and
 * a lent FPDU costs TCP a fragment per header, trailer and payload
 * page, capping skbs at a few FPDUs where copying fills 64 KiB ones:
 * measured slower there. On a path that leaves the host (a NIC; the
 * two-guest bench's virtio wire) from KIWARP_ZC_PATH_MIN bytes on: there
 * 1 MiB WRITEs and SENDs went from 0.88 / 0.94 to 0.97 / 1.10 of TCP's
 * throughput at 0.92 / 0.83 of its CPU per MB (from 1.08), while
 * 64 KiB WRITEs lost 5 % (Documentation/performance.rst). 0: never;
 * N > 0: from N bytes on, on every path. Read at bind time.
 */
int kiwarp_zcopy_min = -1;
module_param_named(zcopy_min, kiwarp_zcopy_min, int, 0644);
MODULE_PARM_DESC(zcopy_min, "send messages of at least this many bytes from page-backed memory without copying, completing them when TCP has them acknowledged (0: never; default -1: from 1 MiB on paths that leave the host, never over loopback or veth)");
EXPORT_SYMBOL_NS_GPL(kiwarp_zcopy_min, KIWARP_INTERNAL);

#define KIWARP_ZC_PATH_MIN	SZ_1M

/**
 * kiwarp_zc_min_for() - the zero-copy threshold of a connection
 * @sk: its connected TCP socket
 *
 * zcopy_min when set (>= 0); by path otherwise: 0 (never) when the
 * socket's route goes through a loopback or veth device or there is
 * none cached, KIWARP_ZC_PATH_MIN else.
 *
 * Context: process. Return: the threshold in bytes, 0 for never.
 */
u32 kiwarp_zc_min_for(struct sock *sk)
{
	int zmin = READ_ONCE(kiwarp_zcopy_min);
	struct net_device *dev;
	struct dst_entry *dst;
	bool local;

	if (zmin >= 0)
		return zmin;
	/* a dst does not pin its device: read it under RCU */
	rcu_read_lock();
	dst = __sk_dst_get(sk);
	dev = dst ? dst_dev_rcu(dst) : NULL;
	local = !dev || (dev->flags & IFF_LOOPBACK) ||
		(dev->rtnl_link_ops &&
		 !strcmp(dev->rtnl_link_ops->kind, "veth"));
	rcu_read_unlock();
	return local ? 0 : KIWARP_ZC_PATH_MIN;
}

/* Areas alive, attached or left to TCP: the module waits for none. */
static atomic_t kiwarp_zc_alive = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(kiwarp_zc_gone);

#define KIWARP_ZC_SLOTS_ORDER \
	get_order(KIWARP_ZC_RECS * KIWARP_TX_BATCH * KIWARP_ZC_SLOT)

static void kiwarp_zc_free(struct kiwarp_zc *zc)
{
	/* any context: the last release may come from an skb's freeing */
	__free_pages(virt_to_page(zc->slots), KIWARP_ZC_SLOTS_ORDER);
	kfree(zc);
	if (atomic_dec_and_test(&kiwarp_zc_alive))
		wake_up(&kiwarp_zc_gone);
}

/**
 * kiwarp_zc_exit() - wait until TCP let go of every lent batch.
 *
 * The callbacks are this module's code: at unload, after the devices
 * (and with them every QP) are gone, skbs still queued below TCP may
 * hold records; their release must come before the module goes.
 */
void kiwarp_zc_exit(void)
{
	wait_event(kiwarp_zc_gone, !atomic_read(&kiwarp_zc_alive));
	/*
	 * The last release woke us from inside an RCU read section
	 * (kiwarp_zc_callback()): let it leave this module's code before
	 * the module goes (vhost_net does the same for its callbacks).
	 */
	synchronize_rcu();
}

static void kiwarp_zc_put(struct kiwarp_zc *zc, unsigned int n)
{
	if (n && refcount_sub_and_test(n, &zc->ref))
		kiwarp_zc_free(zc);
}

/*
 * TCP, or our sendmsg, drops a reference on a record's ubuf_info; the
 * last one releases the record. Context: any (skb freeing).
 */
static void kiwarp_zc_callback(struct sk_buff *skb, struct ubuf_info *uarg,
			       bool success)
{
	struct kiwarp_zc_rec *rec = container_of(uarg, struct kiwarp_zc_rec,
						 ubuf);
	struct kiwarp_zc *zc = rec->zc;
	unsigned int released = 0;
	struct kiwarp_qp *qp;
	unsigned long flags;

	if (!refcount_dec_and_test(&uarg->refcnt))
		return;
	/* up to the last release's wake_up: see kiwarp_zc_exit() */
	rcu_read_lock();
	spin_lock_irqsave(&zc->lock, flags);
	rec->done = true;
	qp = zc->qp;
	while (zc->head != zc->tail) {
		struct kiwarp_zc_rec *r = &zc->rec[zc->head % KIWARP_ZC_RECS];

		if (!r->done)
			break;
		if (r->ends_wqe && qp)
			kiwarp_sq_complete(qp, r->sq_idx, IB_WC_SUCCESS);
		WRITE_ONCE(zc->head, zc->head + 1);
		released++;
	}
	if (released && qp)
		kiwarp_qp_kick_tx_home(qp);	/* a WQE done, a record free */
	spin_unlock_irqrestore(&zc->lock, flags);
	kiwarp_zc_put(zc, released);
	rcu_read_unlock();
}

/**
 * kiwarp_zc_attach() - give a QP being bound its zero-copy records.
 * @qp: the QP, in kiwarp_qp_bind_socket()
 *
 * Context: process. Return: 0, or -ENOMEM (then the QP sends by copy).
 */
int kiwarp_zc_attach(struct kiwarp_qp *qp)
{
	struct kiwarp_zc *zc;
	struct page *page;
	int i;

	zc = kzalloc(sizeof(*zc), GFP_KERNEL);
	if (!zc)
		return -ENOMEM;
	/* a compound page: TCP takes references on its parts */
	page = alloc_pages(GFP_KERNEL | __GFP_COMP | __GFP_ZERO |
			   __GFP_NOWARN, KIWARP_ZC_SLOTS_ORDER);
	if (!page) {
		kfree(zc);
		return -ENOMEM;
	}
	zc->slots = page_address(page);
	atomic_inc(&kiwarp_zc_alive);
	refcount_set(&zc->ref, 1);
	spin_lock_init(&zc->lock);
	zc->qp = qp;
	for (i = 0; i < KIWARP_ZC_RECS; i++)
		zc->rec[i].zc = zc;
	qp->zc = zc;
	return 0;
}

/**
 * kiwarp_zc_quiesce() - lent batches complete no WQE from now on.
 * @qp: the QP, whose connection is about to be reset (teardown)
 *
 * TCP drops what it still holds on a reset; those batches were not
 * delivered, so their WQEs are left to the SQ flush. The records stay
 * attached until kiwarp_zc_detach(). Context: process.
 */
void kiwarp_zc_quiesce(struct kiwarp_qp *qp)
{
	struct kiwarp_zc *zc = qp->zc;
	unsigned long flags;

	if (!zc)
		return;
	spin_lock_irqsave(&zc->lock, flags);
	zc->qp = NULL;
	spin_unlock_irqrestore(&zc->lock, flags);
}

/**
 * kiwarp_zc_detach() - the QP's connection is gone: no more completions.
 * @qp: the QP, in the teardown, after its socket was released
 *
 * Records still held below TCP keep the area until they are freed;
 * their WQEs are flushed by the teardown like every unfinished WQE.
 */
void kiwarp_zc_detach(struct kiwarp_qp *qp)
{
	struct kiwarp_zc *zc = qp->zc;

	if (!zc)
		return;
	kiwarp_zc_quiesce(qp);
	qp->zc = NULL;
	kiwarp_zc_put(zc, 1);
}

/* Records in flight: the teardown resets instead of closing then. */
bool kiwarp_zc_busy(struct kiwarp_qp *qp)
{
	struct kiwarp_zc *zc = qp->zc;
	unsigned long flags;
	bool busy;

	if (!zc)
		return false;
	spin_lock_irqsave(&zc->lock, flags);
	busy = zc->head != zc->tail;
	spin_unlock_irqrestore(&zc->lock, flags);
	return busy;
}

/**
 * kiwarp_zc_slots() - the header and trailer slots of the next record.
 * @qp: the QP (TX work)
 *
 * Return: the slots of record zc->tail (KIWARP_TX_BATCH of
 * KIWARP_ZC_SLOT bytes, none crossing a page), or NULL when every
 * record is in flight.
 */
u8 *kiwarp_zc_slots(struct kiwarp_qp *qp)
{
	struct kiwarp_zc *zc = qp->zc;

	/*
	 * Only we move tail; a head read before a release only makes the
	 * ring look fuller than it is (the batch is copied), never emptier.
	 */
	if (!zc || zc->tail - READ_ONCE(zc->head) >= KIWARP_ZC_RECS)
		return NULL;
	return zc->slots + (zc->tail % KIWARP_ZC_RECS) * KIWARP_TX_BATCH *
			   KIWARP_ZC_SLOT;
}

/* The page behind a kernel address, or NULL if it cannot be lent. */
static struct page *kiwarp_zc_page(const void *p)
{
	struct page *page;

	if (is_vmalloc_addr(p))
		page = vmalloc_to_page(p);
	else if (virt_addr_valid(p))
		page = virt_to_page(p);
	else
		return NULL;
	return page && sendpage_ok(page) ? page : NULL;
}

/**
 * kiwarp_zc_send() - hand the batch in qp->txb to TCP by reference.
 * @qp: the QP (TX work); kiwarp_zc_slots() gave the headers' slots
 * @nv: kvecs in qp->txb.vec
 * @len: their bytes
 * @more: MSG_MORE
 *
 * Return: @len when sent, 0 when a piece cannot be lent (send the kvecs
 * by copy; the record stays free), or a socket error.
 */
int kiwarp_zc_send(struct kiwarp_qp *qp, u32 nv, u32 len, bool more)
{
	struct kiwarp_zc *zc = qp->zc;
	struct kiwarp_txbuf *txb = &qp->txb;
	struct msghdr msg = {
		.msg_flags = MSG_NOSIGNAL | MSG_ZEROCOPY |
			     (more ? MSG_MORE : 0),
	};
	struct kiwarp_zc_rec *rec;
	unsigned long flags;
	u32 i, nb = 0;
	int ret;

	/* one bio_vec per page of every piece */
	for (i = 0; i < nv; i++) {
		const u8 *p = txb->vec[i].iov_base;
		size_t left = txb->vec[i].iov_len;

		while (left) {
			u32 off = offset_in_page(p);
			u32 n = min_t(size_t, left, PAGE_SIZE - off);
			struct page *page = kiwarp_zc_page(p);

			if (!page || nb == KIWARP_ZC_BVECS)
				return 0;
			txb->bvec[nb].bv_page = page;
			txb->bvec[nb].bv_offset = off;
			txb->bvec[nb].bv_len = n;
			nb++;
			p += n;
			left -= n;
		}
	}

	rec = &zc->rec[zc->tail % KIWARP_ZC_RECS];
	rec->done = false;
	rec->ends_wqe = false;
	rec->ubuf.callback = kiwarp_zc_callback;
	rec->ubuf.flags = SKBFL_ZEROCOPY_FRAG | SKBFL_DONT_ORPHAN;
	refcount_set(&rec->ubuf.refcnt, 1);	/* ours, for the sendmsg */
	refcount_inc(&zc->ref);			/* the record's */
	spin_lock_irqsave(&zc->lock, flags);
	zc->tail++;
	spin_unlock_irqrestore(&zc->lock, flags);

	msg.msg_ubuf = &rec->ubuf;
	iov_iter_bvec(&msg.msg_iter, ITER_SOURCE, txb->bvec, nb, len);
	ret = sock_sendmsg(qp->sock, &msg);
	/* TCP holds its own references now; ours goes */
	net_zcopy_put(&rec->ubuf);
	if (ret != len)
		return ret < 0 ? ret : -EIO;
	qp->stats.tx_zc_batches++;
	return len;
}

/**
 * kiwarp_zc_complete_wqe() - complete SQ slot @idx once its batches are.
 * @qp: the QP (TX work)
 * @idx: the WQE, whose last zero-copy batch is the newest record
 *
 * If that record is released already, the WQE completes now.
 */
void kiwarp_zc_complete_wqe(struct kiwarp_qp *qp, u32 idx)
{
	struct kiwarp_zc *zc = qp->zc;
	unsigned long flags;
	bool now = true;

	spin_lock_irqsave(&zc->lock, flags);
	if (zc->tail != zc->head) {
		struct kiwarp_zc_rec *r =
			&zc->rec[(zc->tail - 1) % KIWARP_ZC_RECS];

		r->sq_idx = idx;
		r->ends_wqe = true;
		now = false;
	}
	spin_unlock_irqrestore(&zc->lock, flags);
	if (now)
		kiwarp_sq_complete(qp, idx, IB_WC_SUCCESS);
}
