// SPDX-License-Identifier: GPL-2.0
/*
 * Data transfer: dat_ep_post_send, dat_ep_post_recv, dat_ep_post_rdma_read,
 * dat_ep_post_rdma_write, and the completion of their work requests.
 *
 * Posting is upcall-safe: the EP's spinlock covers the state check, taking
 * a work request context (struct kdapl_wr) from the EP's free list, the
 * translation of the local triplets (kdapl_lmr_get() then
 * kdapl_lmr_sge_held(): one lookup per triplet), holding the
 * LMRs used, and the driver's post. Each context's wr_cqe.done is
 * kdapl_dto_done(), which the DTO EVD's poller calls on the EVD's CPU: it
 * turns the work completion into a DAT_DTO_COMPLETION_EVENT, releases
 * the LMRs and gives the context back. Nothing is allocated per message.
 *
 * Selective signaling (DAT_COMPLETION_SUPPRESS_FLAG) posts sends and RDMA
 * Writes unsignaled: their contexts wait on the EP's unsignaled list
 * until a later request completes (struct kdapl_wr), or, after an
 * abort or a disconnect, the drain. RDMA Reads stay signaled, since a
 * Read may complete after requests posted behind it; only their
 * successful event is dropped (unsig_ok() has the other exceptions).
 *
 * Work requests kdapl posts for memory registration carry small wr_id
 * values (lmr.h) and are handed to kdapl_lmr_wc() instead.
 */

#include <linux/export.h>
#include <linux/slab.h>

#include "ep.h"
#include "evd.h"
#include "lmr.h"
#include "registry.h"
#include "kdapl_trace.h"

static_assert(KDAPL_WR_ID_INTERNAL_LIMIT == KDAPL_LMR_WR_ID_LIMIT);

/**
 * kdapl_ep_wrs_alloc() - size the EP's work request contexts
 * @ep: the EP, its QP about to be created (ep->cm_mutex held)
 *
 * Return: 0 or -ENOMEM.
 */
int kdapl_ep_wrs_alloc(struct kdapl_ep *ep)
{
	u32 n = ep->attr.max_request_dtos + ep->attr.max_recv_dtos, i;

	ep->wrs = kvcalloc(n, sizeof(*ep->wrs), GFP_KERNEL);
	if (!ep->wrs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		ep->wrs[i].cqe.done = kdapl_dto_done;
		ep->wrs[i].ep = ep;
		ep->wrs[i].next = i + 1 < n ? i + 1 : U32_MAX;
	}
	spin_lock_irq(&ep->lock);
	ep->nr_wrs = n;
	ep->free_wr = n ? 0 : U32_MAX;
	ep->unsig_head = U32_MAX;
	ep->unsig_tail = U32_MAX;
	ep->unsig_count = 0;
	ep->held_head = U32_MAX;
	ep->held_tail = U32_MAX;
	spin_unlock_irq(&ep->lock);
	return 0;
}

/**
 * kdapl_ep_wrs_free() - free the contexts once the QP is gone
 * @ep: the EP; every context has come back (the QP was drained)
 */
void kdapl_ep_wrs_free(struct kdapl_ep *ep)
{
	struct kdapl_wr *wrs = ep->wrs;

	spin_lock_irq(&ep->lock);
	ep->wrs = NULL;
	ep->nr_wrs = 0;
	ep->free_wr = U32_MAX;
	ep->unsig_head = U32_MAX;
	ep->unsig_tail = U32_MAX;
	ep->unsig_count = 0;
	WARN_ON_ONCE(ep->held_head != U32_MAX);	/* the drain flushed them */
	spin_unlock_irq(&ep->lock);
	kvfree(wrs);
}

static DAT_DTO_COMPLETION_STATUS wc_status(enum ib_wc_status s)
{
	switch (s) {
	case IB_WC_SUCCESS:
		return DAT_DTO_SUCCESS;
	case IB_WC_WR_FLUSH_ERR:
		return DAT_DTO_ERR_FLUSHED;
	case IB_WC_LOC_LEN_ERR:
		return DAT_DTO_ERR_LOCAL_LENGTH;
	case IB_WC_LOC_QP_OP_ERR:
	case IB_WC_LOC_EEC_OP_ERR:
		return DAT_DTO_ERR_LOCAL_EP;
	case IB_WC_LOC_PROT_ERR:
	case IB_WC_MW_BIND_ERR:
		return DAT_DTO_ERR_LOCAL_PROTECTION;
	case IB_WC_BAD_RESP_ERR:
		return DAT_DTO_ERR_BAD_RESPONSE;
	case IB_WC_REM_ACCESS_ERR:
	case IB_WC_REM_INV_REQ_ERR:
		return DAT_DTO_ERR_REMOTE_ACCESS;
	case IB_WC_REM_OP_ERR:
	case IB_WC_REM_ABORT_ERR:
		return DAT_DTO_ERR_REMOTE_RESPONDER;
	case IB_WC_RNR_RETRY_EXC_ERR:
		return DAT_DTO_ERR_RECEIVER_NOT_READY;
	default:
		return DAT_DTO_ERR_TRANSPORT;
	}
}

/* Whether sequence number @a comes before @b (they wrap). */
static bool seq_before(u32 a, u32 b)
{
	return (s32)(a - b) < 0;
}

/*
 * A request posted as @seq completed: every unsignaled request posted
 * before it has succeeded. Unlink them from the EP's unsignaled list and
 * return the first (chained by unsig_next), or U32_MAX. Caller holds
 * ep->lock.
 */
static u32 unsig_take_before(struct kdapl_ep *ep, u32 seq)
{
	u32 first = ep->unsig_head, last = U32_MAX, i = first;

	while (i != U32_MAX && seq_before(ep->wrs[i].seq, seq)) {
		last = i;
		i = ep->wrs[i].unsig_next;
		ep->unsig_count--;
	}
	if (last == U32_MAX)
		return U32_MAX;
	ep->wrs[last].unsig_next = U32_MAX;
	ep->unsig_head = i;
	if (i == U32_MAX)
		ep->unsig_tail = U32_MAX;
	return first;
}

/*
 * Unlink @wr, an unsignaled request that has its own (error) completion:
 * after unsig_take_before() it is the head. Caller holds ep->lock.
 */
static void unsig_unlink(struct kdapl_ep *ep, struct kdapl_wr *wr)
{
	u32 idx = wr - ep->wrs, i = ep->unsig_head, prev = U32_MAX;

	while (i != U32_MAX && i != idx) {
		prev = i;
		i = ep->wrs[i].unsig_next;
	}
	if (i == U32_MAX)
		return;
	if (prev == U32_MAX)
		ep->unsig_head = wr->unsig_next;
	else
		ep->wrs[prev].unsig_next = wr->unsig_next;
	if (ep->unsig_tail == idx)
		ep->unsig_tail = prev;
	ep->unsig_count--;
}

/*
 * Give back the contexts of a chain from unsig_take_before(): requests
 * that succeeded without a completion of their own. Any context.
 */
static void unsig_put_chain(struct kdapl_ep *ep, u32 first)
{
	unsigned long flags;
	u32 i, n = 0;

	for (i = first; i != U32_MAX; i = ep->wrs[i].unsig_next) {
		struct kdapl_wr *w = &ep->wrs[i];
		u32 j;

		for (j = 0; j < w->nlmr; j++)
			kdapl_lmr_put(w->lmrs[j]);
		w->nlmr = 0;
		n++;
	}
	spin_lock_irqsave(&ep->lock, flags);
	for (i = first; i != U32_MAX;) {
		struct kdapl_wr *w = &ep->wrs[i];
		u32 next = w->unsig_next;

		w->next = ep->free_wr;
		ep->free_wr = i;
		i = next;
	}
	ep->completed += n;
	spin_unlock_irqrestore(&ep->lock, flags);
}

/*
 * A DTO event with DAT_DTO_ERR_FLUSHED for a post that never reached
 * the QP.
 */
static void post_flushed(struct kdapl_ep *ep, struct kdapl_evd *evd,
			 DAT_DTO_COOKIE cookie, u16 op)
{
	DAT_EVENT ev = { .event_number = DAT_DTO_COMPLETION_EVENT };
	DAT_DTO_COMPLETION_EVENT_DATA *d = &ev.event_data.dto_completion_event_data;

	d->ep_handle = kdapl_obj_handle(&ep->base);
	d->user_cookie = cookie;
	d->status = DAT_DTO_ERR_FLUSHED;
	d->operation = op;
	trace_kdapl_dto_done(d->ep_handle, op, cookie.as_64, d->status, 0);
	if (evd)
		kdapl_evd_post(evd, &ev);
}

/*
 * DTOs held back from the QP, flushed after the QP's own
 * (kdapl_dto_flush_held()), so that each EVD sees its flushes in posting
 * order:
 * - receives once a graceful disconnect asked the provider (cm.c,
 *   ep_do_disconnect()): an iWARP QP is CLOSING then, where siw refuses
 *   a post and the closing rules of seed 004 call it an error, and
 *   nothing can arrive after our FIN to fill one; DISCONNECT_PENDING
 *   allows receives (man dat_ep_post_recv), so they are taken (issue 15
 *   item 3);
 * - any DTO posted in DISCONNECTED before the QP was drained (the abort
 *   or the device's removal is still moving it to ERROR): flushed at
 *   once it would overtake the flushes of those posted before;
 * - and while some are held or being flushed.
 * They wait on ep->held_head, linked through unsig_next (unused by a
 * DTO that never reached the QP). Caller holds ep->lock.
 */
static bool dto_held(struct kdapl_ep *ep, enum kdapl_ep_op op)
{
	if (!ep->wrs)
		return false;
	if (ep->held_head != U32_MAX || ep->held_flushing)
		return true;
	if (ep->state == DAT_EP_STATE_DISCONNECTED)
		return !ep->drained;
	return op == KDAPL_EP_OP_POST_RECV &&
	       ep->state == DAT_EP_STATE_DISCONNECT_PENDING && ep->disc_asked;
}

/*
 * Take a context for a held DTO: its cookie and operation only, no LMR
 * held or translated (it never reaches the QP, as one flushed at once in
 * DISCONNECTED). Caller holds ep->lock.
 */
static int held_add(struct kdapl_ep *ep, DAT_DTO_COOKIE cookie, u16 op)
{
	struct kdapl_wr *wr;
	u32 idx;

	lockdep_assert_held(&ep->lock);
	if (ep->free_wr == U32_MAX)
		return DAT_ERROR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP);
	idx = ep->free_wr;
	wr = &ep->wrs[idx];
	ep->free_wr = wr->next;
	wr->next = KDAPL_WR_BUSY;
	wr->nlmr = 0;
	wr->cookie = cookie;
	wr->len = 0;
	wr->op = op;
	wr->unsig_next = U32_MAX;
	if (ep->held_tail == U32_MAX)
		ep->held_head = idx;
	else
		ep->wrs[ep->held_tail].unsig_next = idx;
	ep->held_tail = idx;
	ep->posted++;
	return DAT_SUCCESS;
}

/**
 * kdapl_dto_flush_held() - flush the DTOs held back from the QP
 * @ep: the EP; its QP was drained (ib_drain_qp()): every completion of
 *	it is on its EVD, so these come after them
 *
 * From then on a DTO posted in DISCONNECTED is flushed at once
 * (ep->drained). Context: process context (the EP's work, its free).
 */
void kdapl_dto_flush_held(struct kdapl_ep *ep)
{
	struct kdapl_wr *w;
	u32 i, j;

	spin_lock_irq(&ep->lock);
	if (!ep->wrs || ep->held_flushing) {
		spin_unlock_irq(&ep->lock);
		return;
	}
	/* a receive posted meanwhile joins the list, not overtakes it */
	ep->held_flushing = true;
	for (;;) {
		i = ep->held_head;
		if (i == U32_MAX)
			break;
		w = &ep->wrs[i];
		ep->held_head = w->unsig_next;
		if (ep->held_head == U32_MAX)
			ep->held_tail = U32_MAX;
		spin_unlock_irq(&ep->lock);
		for (j = 0; j < w->nlmr; j++)
			kdapl_lmr_put(w->lmrs[j]);
		w->nlmr = 0;
		post_flushed(ep, w->op == DAT_DTO_RECEIVE ? ep->recv_evd :
			     ep->request_evd, w->cookie, w->op);
		spin_lock_irq(&ep->lock);
		ep->completed++;
		ep->flushed++;
		w->next = ep->free_wr;
		ep->free_wr = i;
	}
	ep->held_flushing = false;
	ep->drained = true;
	spin_unlock_irq(&ep->lock);
}

/**
 * kdapl_dto_reclaim_all() - after a drain, the unsignaled requests left
 * @ep: the EP; its QP was drained (every completion has been processed)
 *
 * Those still on the list had no completion: they succeeded. The held
 * receives are flushed, after the QP's.
 * Context: process context.
 */
void kdapl_dto_reclaim_all(struct kdapl_ep *ep)
{
	u32 first;

	spin_lock_irq(&ep->lock);
	first = ep->wrs ? ep->unsig_head : U32_MAX;
	ep->unsig_head = U32_MAX;
	ep->unsig_tail = U32_MAX;
	ep->unsig_count = 0;
	spin_unlock_irq(&ep->lock);
	if (first != U32_MAX)
		unsig_put_chain(ep, first);
	kdapl_dto_flush_held(ep);
}

/**
 * kdapl_dto_done() - a DTO's work completion
 * @cq: the CQ of the EVD (its cq_context is the EVD)
 * @wc: the completion
 *
 * Context: the EVD's processing: softirq on the EVD's CPU, or a drain.
 */
void kdapl_dto_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kdapl_wr *wr = container_of(wc->wr_cqe, struct kdapl_wr, cqe);
	DAT_EVENT ev = { .event_number = DAT_DTO_COMPLETION_EVENT };
	DAT_DTO_COMPLETION_EVENT_DATA *d = &ev.event_data.dto_completion_event_data;
	struct kdapl_evd *evd = cq->cq_context;
	struct kdapl_ep *ep = wr->ep;
	u32 succeeded = U32_MAX;
	bool silent, quiet, disc = false;
	unsigned long flags;
	u32 i;

	d->ep_handle = kdapl_obj_handle(&ep->base);
	d->user_cookie = wr->cookie;
	d->status = wc_status(wc->status);
	d->operation = wr->op;
	d->transfered_length = wr->op == DAT_DTO_RECEIVE ? wc->byte_len :
			       wr->len;
	if (wc->wc_flags & IB_WC_WITH_INVALIDATE)
		d->rmr_context = wc->ex.invalidate_rkey;
	silent = wr->suppress && wc->status == IB_WC_SUCCESS;
	quiet = wr->quiet;
	trace_kdapl_dto_done(d->ep_handle, wr->op, wr->cookie.as_64, d->status,
			     d->transfered_length);
	for (i = 0; i < wr->nlmr; i++)
		kdapl_lmr_put(wr->lmrs[i]);
	wr->nlmr = 0;
	/* one section: the counters, the unsignaled ones, the context back */
	spin_lock_irqsave(&ep->lock, flags);
	ep->completed++;
	if (wc->status == IB_WC_WR_FLUSH_ERR)
		ep->flushed++;
	if (wr->op != DAT_DTO_RECEIVE && ep->unsig_head != U32_MAX) {
		succeeded = unsig_take_before(ep, wr->seq);
		if (wr->unsignaled)
			unsig_unlink(ep, wr);
	}
	if (wr->op == DAT_DTO_RECEIVE) {
		ep->recv_out--;
	} else if (!wr->unsignaled && !--ep->sig_out && ep->disc_wait) {
		/* the last one a graceful disconnect waited for */
		ep->disc_wait = false;
		disc = true;
	}
	wr->next = ep->free_wr;
	ep->free_wr = wr - ep->wrs;
	spin_unlock_irqrestore(&ep->lock, flags);
	if (disc)
		kdapl_ep_queue(ep, KDAPL_EP_ACT_DISCONNECT);
	if (succeeded != U32_MAX)
		unsig_put_chain(ep, succeeded);
	/*
	 * DAT_COMPLETION_SUPPRESS_FLAG: no event for a success. An error
	 * that breaks the connection is queued, not delivered at once: the
	 * upcall must find the EP broken (below), as it always did.
	 */
	if (!silent && quiet)
		kdapl_evd_queue_quiet(evd, &ev);
	else if (!silent && (wc->status == IB_WC_SUCCESS ||
			     wc->status == IB_WC_WR_FLUSH_ERR))
		kdapl_evd_deliver(evd, &ev);
	else if (!silent)
		kdapl_evd_queue(evd, &ev, false);
	/*
	 * An error that is not a flush ends the connection, reported after
	 * the completion that says why. The EP is still there: its free
	 * drains the QP, and the drain's marker completes after this one.
	 */
	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR)
		kdapl_ep_break(ep);
}

/**
 * kdapl_cq_internal_wc() - a completion that is not a DTO
 * @wc: a completion whose wr_id is below KDAPL_LMR_WR_ID_LIMIT
 *
 * Context: the EVD's processing.
 */
void kdapl_cq_internal_wc(struct ib_wc *wc)
{
	struct kdapl_ep *ep = wc->qp ? wc->qp->qp_context : NULL;

	if (ep && ep->pz)
		kdapl_lmr_wc(ep->pz, wc);
}

/*
 * Take a context and translate the triplets into @sge, holding the LMRs.
 * Caller holds ep->lock. Returns the context or an error in *@ret.
 */
static struct kdapl_wr *wr_get(struct kdapl_ep *ep, DAT_COUNT nseg,
			       const DAT_LMR_TRIPLET *iov, struct ib_sge *sge,
			       DAT_DTO_COOKIE cookie, u16 op, DAT_RETURN *ret)
{
	struct kdapl_wr *wr;
	u64 len = 0;
	int i;

	if (ep->free_wr == U32_MAX) {
		*ret = DAT_ERROR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP);
		return NULL;
	}
	wr = &ep->wrs[ep->free_wr];
	wr->nlmr = 0;
	for (i = 0; i < nseg; i++) {
		struct kdapl_lmr *lmr;

		/* One lookup on the hot path: hold, then translate. */
		lmr = kdapl_lmr_get(ep->pz, iov[i].lmr_context);
		if (!lmr) {
			/* The reason (unknown, other PZ), from the lookup. */
			*ret = kdapl_lmr_to_sge(ep->pz, &iov[i], &sge[i]);
			if (*ret == DAT_SUCCESS)	/* freed meanwhile */
				*ret = DAT_ERROR(DAT_PRIVILEGES_VIOLATION,
						 DAT_NO_SUBTYPE);
			goto undo;
		}
		wr->lmrs[wr->nlmr++] = lmr;
		*ret = kdapl_lmr_sge_held(lmr, &iov[i], &sge[i]);
		if (*ret != DAT_SUCCESS)
			goto undo;
		len += iov[i].segment_length;
	}
	if (len > U32_MAX) {
		*ret = DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
		goto undo;
	}
	ep->free_wr = wr->next;
	wr->next = KDAPL_WR_BUSY;
	wr->cookie = cookie;
	wr->len = len;
	wr->op = op;
	wr->suppress = false;
	wr->unsignaled = false;
	wr->quiet = false;
	*ret = DAT_SUCCESS;
	return wr;
undo:
	for (i = 0; i < wr->nlmr; i++)
		kdapl_lmr_put(wr->lmrs[i]);
	wr->nlmr = 0;
	return NULL;
}

/* Undo wr_get() after a failed post. Caller holds ep->lock. */
static void wr_unget(struct kdapl_ep *ep, struct kdapl_wr *wr)
{
	u32 i;

	for (i = 0; i < wr->nlmr; i++)
		kdapl_lmr_put(wr->lmrs[i]);
	wr->nlmr = 0;
	wr->next = ep->free_wr;
	ep->free_wr = wr - ep->wrs;
}

/*
 * Whether a suppressed request can go unsignaled; if not it is posted
 * signaled and only its success event is dropped. Not a Read (it may
 * complete after requests behind it); not on a driver that lends an
 * unsignaled send's pages to TCP (struct kdapl_provider); not the one
 * that would leave every request slot unsignaled: the contexts are
 * shared with the receives, and one signaled request must be able to
 * give them back. Caller holds ep->lock.
 */
static bool unsig_ok(struct kdapl_ep *ep, enum kdapl_ep_op op, u32 len)
{
	if (op == KDAPL_EP_OP_POST_RDMA_READ)
		return false;
	if (ep->base.ia->prov->unsig_lends && len >= PAGE_SIZE)
		return false;
	return ep->unsig_count + 1 < ep->attr.max_request_dtos;
}

#define RECV_CFLAGS	(DAT_COMPLETION_SOLICITED_WAIT_FLAG | \
			 DAT_COMPLETION_UNSIGNALLED_FLAG)
#define REQUEST_CFLAGS	(DAT_COMPLETION_SUPPRESS_FLAG | \
			 DAT_COMPLETION_SOLICITED_WAIT_FLAG | \
			 DAT_COMPLETION_UNSIGNALLED_FLAG | \
			 DAT_COMPLETION_BARRIER_FENCE_FLAG)

static DAT_RETURN post_common(DAT_EP_HANDLE ep_handle, enum kdapl_ep_op op,
			      DAT_COUNT nseg, DAT_LMR_TRIPLET *iov,
			      DAT_DTO_COOKIE cookie,
			      const DAT_RMR_TRIPLET *remote,
			      DAT_COMPLETION_FLAGS cflags)
{
	/* only the @nseg wr_get() filled are read */
	struct ib_sge sge[KDAPL_MAX_IOV] __uninitialized;
	struct ib_rdma_wr rwr = {};
	struct ib_recv_wr rcv = {};
	const struct ib_send_wr *bad;
	const struct ib_recv_wr *rbad;
	struct kdapl_ep *ep;
	struct kdapl_wr *wr;
	unsigned long flags;
	DAT_COUNT max_iov;
	DAT_RETURN ret;
	u16 dop;
	int err;

	if (nseg < 0 || nseg > KDAPL_MAX_IOV || (nseg && !iov))
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	/* A receive cannot go without its completion (verbs cannot). */
	if (cflags & ~(op == KDAPL_EP_OP_POST_RECV ? RECV_CFLAGS :
		       REQUEST_CFLAGS))
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	ep = kdapl_ep_get(ep_handle);
	if (!ep)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);

	switch (op) {
	case KDAPL_EP_OP_POST_RECV:
		dop = DAT_DTO_RECEIVE;
		max_iov = ep->attr.max_recv_iov;
		break;
	case KDAPL_EP_OP_POST_SEND:
		dop = DAT_DTO_SEND;
		max_iov = ep->attr.max_request_iov;
		break;
	case KDAPL_EP_OP_POST_RDMA_READ:
		dop = DAT_DTO_RDMA_READ;
		max_iov = ep->attr.max_rdma_read_iov;
		break;
	default:
		dop = DAT_DTO_RDMA_WRITE;
		max_iov = ep->attr.max_rdma_write_iov;
		break;
	}
	if (nseg > max_iov) {
		ret = DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
		goto out;
	}
	if (remote && !remote->segment_length && nseg) {
		ret = DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
		goto out;
	}

	spin_lock_irqsave(&ep->lock, flags);
	ret = kdapl_ep_state_check(ep->state, op);
	if (ret == DAT_SUCCESS && dto_held(ep, op)) {
		/* nothing posted now may reach the wire: flushed later */
		ret = held_add(ep, cookie, dop);
		goto unlock;
	}
	if (ret == DAT_SUCCESS && ep->state == DAT_EP_STATE_DISCONNECTED) {
		/* the QP's flushes are all on the EVDs: this one's now */
		ep->posted++;
		ep->flushed++;
		spin_unlock_irqrestore(&ep->lock, flags);
		post_flushed(ep, op == KDAPL_EP_OP_POST_RECV ? ep->recv_evd :
			     ep->request_evd, cookie, dop);
		goto out;
	}
	if (ret == DAT_SUCCESS && !ep->qp)
		ret = DAT_ERROR(DAT_INVALID_STATE,
				DAT_INVALID_STATE_EP_NOTREADY);
	/*
	 * Each queue holds at most its attribute's DTOs: the QP's slots
	 * beyond them are the drain's marker and the registrations' (ep.c,
	 * kdapl_ep_qp_create()); a drain without its slot would not wait.
	 */
	if (ret == DAT_SUCCESS &&
	    (op == KDAPL_EP_OP_POST_RECV ?
	     ep->recv_out >= ep->attr.max_recv_dtos :
	     ep->sig_out + ep->unsig_count >= ep->attr.max_request_dtos))
		ret = DAT_ERROR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP);
	if (ret != DAT_SUCCESS)
		goto unlock;
	/*
	 * Registrations the peer may rely on go first (lmr.h), and before
	 * the translation: a segment that crosses pages of an LMR needs its
	 * registration posted, and this may be the LMR's first send-side use.
	 */
	if (op != KDAPL_EP_OP_POST_RECV)
		kdapl_lmr_post_pending(ep->pz, ep->qp);
	wr = wr_get(ep, nseg, iov, sge, cookie, dop, &ret);
	if (!wr)
		goto unlock;
	if (remote && wr->len > remote->segment_length) {
		wr_unget(ep, wr);
		ret = DAT_ERROR(DAT_LENGTH_ERROR, DAT_NO_SUBTYPE);
		goto unlock;
	}
	wr->quiet = cflags & DAT_COMPLETION_UNSIGNALLED_FLAG;
	wr->suppress = cflags & DAT_COMPLETION_SUPPRESS_FLAG;
	wr->unsignaled = wr->suppress && unsig_ok(ep, op, wr->len);
	wr->seq = ep->sq_seq;
	/* before the provider can complete it, so the records come in order */
	trace_kdapl_dto_post(kdapl_obj_handle(&ep->base), dop, cookie.as_64,
			     wr->len, cflags);
	if (op == KDAPL_EP_OP_POST_RECV) {
		rcv.wr_cqe = &wr->cqe;
		rcv.sg_list = sge;
		rcv.num_sge = nseg;
		err = ib_post_recv(ep->qp, &rcv, &rbad);
	} else {
		rwr.wr.wr_cqe = &wr->cqe;
		rwr.wr.sg_list = sge;
		rwr.wr.num_sge = nseg;
		rwr.wr.send_flags = wr->unsignaled ? 0 : IB_SEND_SIGNALED;
		if (cflags & DAT_COMPLETION_SOLICITED_WAIT_FLAG)
			rwr.wr.send_flags |= IB_SEND_SOLICITED;
		if (cflags & DAT_COMPLETION_BARRIER_FENCE_FLAG)
			rwr.wr.send_flags |= IB_SEND_FENCE;
		if (op == KDAPL_EP_OP_POST_SEND) {
			rwr.wr.opcode = IB_WR_SEND;
		} else {
			rwr.wr.opcode = op == KDAPL_EP_OP_POST_RDMA_READ ?
					IB_WR_RDMA_READ : IB_WR_RDMA_WRITE;
			rwr.remote_addr = remote->virtual_address;
			rwr.rkey = remote->rmr_context;
		}
		err = ib_post_send(ep->qp, &rwr.wr, &bad);
	}
	if (err) {
		wr_unget(ep, wr);
		/* an iWARP QP the peer's close moved to CLOSING: reset now */
		if (err == -ENOTCONN)
			ret = DAT_ERROR(DAT_INVALID_STATE,
					DAT_INVALID_STATE_EP_DISCONNECTED);
		else
			ret = DAT_ERROR(DAT_INSUFFICIENT_RESOURCES,
					DAT_RESOURCE_TEP);
		goto unlock;
	}
	ep->posted++;
	if (op == KDAPL_EP_OP_POST_RECV) {
		ep->recv_out++;
		goto unlock;
	}
	ep->sq_seq++;
	if (!wr->unsignaled)
		ep->sig_out++;	/* a graceful disconnect waits for it */
	if (wr->unsignaled) {
		/* under ep->lock: its error completion waits for us */
		wr->unsig_next = U32_MAX;
		if (ep->unsig_tail == U32_MAX)
			ep->unsig_head = wr - ep->wrs;
		else
			ep->wrs[ep->unsig_tail].unsig_next = wr - ep->wrs;
		ep->unsig_tail = wr - ep->wrs;
		ep->unsig_count++;
	}
unlock:
	spin_unlock_irqrestore(&ep->lock, flags);
out:
	kdapl_obj_put(&ep->base);
	return ret;
}

/**
 * dat_ep_post_send() - post a send
 * @ep_handle: the EP: CONNECTED, or DISCONNECTED (flushed at once)
 * @num_segments: entries in @local_iov (0 for a zero-length send)
 * @local_iov: LMR triplets of the data
 * @user_cookie: returned in the DTO completion event
 * @completion_flags: DAT_COMPLETION_SOLICITED_WAIT_FLAG,
 *	DAT_COMPLETION_BARRIER_FENCE_FLAG, and:
 *	DAT_COMPLETION_SUPPRESS_FLAG: no event if it succeeds; its
 *	LMRs are held until a later request on the EP completes (or the
 *	EP is drained), and it occupies its request slot until then, so
 *	a consumer that suppresses must post a request without it at
 *	least every max_request_dtos posts; a failure or flush still
 *	gives its event;
 *	DAT_COMPLETION_UNSIGNALLED_FLAG: its event makes no upcall of its
 *	own: it is delivered ahead of the next event that does, or taken
 *	with dat_evd_dequeue()
 *
 * Return: DAT_SUCCESS, DAT_INVALID_HANDLE, DAT_INVALID_PARAMETER,
 * DAT_INVALID_STATE, DAT_PROTECTION_VIOLATION, DAT_PRIVILEGES_VIOLATION,
 * DAT_INSUFFICIENT_RESOURCES (request queue full).
 * Context: any context, upcalls included; never sleeps.
 */
DAT_RETURN dat_ep_post_send(DAT_EP_HANDLE ep_handle, DAT_COUNT num_segments,
			    DAT_LMR_TRIPLET *local_iov,
			    DAT_DTO_COOKIE user_cookie,
			    DAT_COMPLETION_FLAGS completion_flags)
{
	return post_common(ep_handle, KDAPL_EP_OP_POST_SEND, num_segments,
			   local_iov, user_cookie, NULL, completion_flags);
}
EXPORT_SYMBOL_GPL(dat_ep_post_send);

/**
 * dat_ep_post_recv() - post a receive buffer
 * @ep_handle: the EP, in any state with a QP (before connecting too)
 * @num_segments: entries in @local_iov
 * @local_iov: LMR triplets of the buffer
 * @user_cookie: returned in the DTO completion event
 * @completion_flags: DAT_COMPLETION_SOLICITED_WAIT_FLAG,
 *	DAT_COMPLETION_UNSIGNALLED_FLAG (as for dat_ep_post_send()); not
 *	DAT_COMPLETION_SUPPRESS_FLAG: a receive always completes
 *
 * Return: as dat_ep_post_send().
 * Context: any context, upcalls included; never sleeps.
 */
DAT_RETURN dat_ep_post_recv(DAT_EP_HANDLE ep_handle, DAT_COUNT num_segments,
			    DAT_LMR_TRIPLET *local_iov,
			    DAT_DTO_COOKIE user_cookie,
			    DAT_COMPLETION_FLAGS completion_flags)
{
	return post_common(ep_handle, KDAPL_EP_OP_POST_RECV, num_segments,
			   local_iov, user_cookie, NULL, completion_flags);
}
EXPORT_SYMBOL_GPL(dat_ep_post_recv);

/**
 * dat_ep_post_rdma_read() - post an RDMA Read
 * @ep_handle: the EP
 * @num_segments: entries in @local_iov
 * @local_iov: where the data lands
 * @user_cookie: returned in the DTO completion event
 * @remote_iov: the peer's memory: rmr_context (rkey), virtual_address,
 *	segment_length (at least the local total)
 * @completion_flags: as for dat_ep_post_send()
 *
 * Return: as dat_ep_post_send(); DAT_LENGTH_ERROR when the local total
 * exceeds the remote segment.
 * Context: any context, upcalls included; never sleeps.
 */
DAT_RETURN dat_ep_post_rdma_read(DAT_EP_HANDLE ep_handle,
				 DAT_COUNT num_segments,
				 DAT_LMR_TRIPLET *local_iov,
				 DAT_DTO_COOKIE user_cookie,
				 const DAT_RMR_TRIPLET *remote_iov,
				 DAT_COMPLETION_FLAGS completion_flags)
{
	if (!remote_iov)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	return post_common(ep_handle, KDAPL_EP_OP_POST_RDMA_READ, num_segments,
			   local_iov, user_cookie, remote_iov,
			   completion_flags);
}
EXPORT_SYMBOL_GPL(dat_ep_post_rdma_read);

/**
 * dat_ep_post_rdma_write() - post an RDMA Write
 * @ep_handle: the EP
 * @num_segments: entries in @local_iov
 * @local_iov: the data
 * @user_cookie: returned in the DTO completion event
 * @remote_iov: where it goes in the peer's memory
 * @completion_flags: as for dat_ep_post_send()
 *
 * Return: as dat_ep_post_rdma_read().
 * Context: any context, upcalls included; never sleeps.
 */
DAT_RETURN dat_ep_post_rdma_write(DAT_EP_HANDLE ep_handle,
				  DAT_COUNT num_segments,
				  DAT_LMR_TRIPLET *local_iov,
				  DAT_DTO_COOKIE user_cookie,
				  const DAT_RMR_TRIPLET *remote_iov,
				  DAT_COMPLETION_FLAGS completion_flags)
{
	if (!remote_iov)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	return post_common(ep_handle, KDAPL_EP_OP_POST_RDMA_WRITE,
			   num_segments, local_iov, user_cookie, remote_iov,
			   completion_flags);
}
EXPORT_SYMBOL_GPL(dat_ep_post_rdma_write);
