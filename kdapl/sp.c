// SPDX-License-Identifier: GPL-2.0
/*
 * The passive side: public service points (dat_psp_*), reserved service
 * points (dat_rsp_*) and connection requests (dat_cr_*).
 *
 * A service point is a listening rdma_cm id bound to the IA's address and
 * the qualifier (TCP port), in the network namespace of the IA's netdev.
 * A connection request arrives in rdma_cm's handler, which only records
 * it (struct kdapl_cr) and queues the CR's work; the work, in process
 * context under the IA's lock, gives it a handle, creates the provider's
 * EP for a PSP with DAT_PSP_PROVIDER_FLAG or takes the RSP's EP, and posts
 * DAT_CONNECTION_REQUEST_EVENT. dat_cr_accept() and dat_cr_reject() are
 * upcall-safe: they claim the CR by removing its handle and leave the
 * rdma_cm calls to the EP's work (accept) or the CR's work (reject).
 *
 * An RSP takes one request; later ones are rejected as not the consumer's
 * (include/kiwarp/reject.h), and the handler's non-zero return makes
 * rdma_cm destroy the new id. Every reject kdapl makes on its own is
 * such a non-peer reject; only dat_cr_reject() is the consumer's.
 * Freeing a PSP stops the listen; requests already handed out and
 * established connections are not affected.
 */

#include <linux/debugfs.h>
#include <linux/export.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include <rdma/ib_cm.h>
#include <kiwarp/reject.h>

#include "ep.h"
#include "evd.h"
#include "registry.h"

#define KDAPL_LISTEN_BACKLOG	64

/* All PSPs and RSPs whose handle exists, for debugfs. */
static LIST_HEAD(sp_list);
static DEFINE_SPINLOCK(sp_list_lock);	/* protects sp_list */

/* What a CR's work has to do. */
enum {
	KDAPL_CR_ARRIVE,	/* a request arrived: handle, EP, event */
	KDAPL_CR_REJECT,	/* the consumer rejected it */
};

static struct kdapl_sp *kdapl_sp_get(void *h, enum kdapl_htype type)
{
	struct kdapl_obj *o = kdapl_obj_get(h, type);

	return o ? container_of(o, struct kdapl_sp, base) : NULL;
}

static struct kdapl_cr *kdapl_cr_get(DAT_CR_HANDLE h)
{
	struct kdapl_obj *o = kdapl_obj_get(h, KDAPL_HT_CR);

	return o ? container_of(o, struct kdapl_cr, base) : NULL;
}

static void kdapl_cr_release(struct kdapl_hobj *h)
{
	struct kdapl_cr *cr = container_of(h, struct kdapl_cr, base.hobj);

	WARN_ON_ONCE(cr->cm_id || cr->iws);
	if (cr->ep)
		kdapl_obj_put(&cr->ep->base);
	kdapl_obj_put(&cr->sp->base);
	kdapl_obj_put(&cr->base.ia->base);
	kfree_rcu(cr, base.hobj.rcu);	/* handle lookups run under RCU */
}

/* Free a CR that never got a handle. */
static void kdapl_cr_discard(struct kdapl_cr *cr)
{
	if (cr->cm_id)
		rdma_destroy_id(cr->cm_id);
	if (cr->iws)
		kdapl_iws_release(cr->iws);
	if (cr->ep)
		kdapl_obj_put(&cr->ep->base);
	kdapl_obj_put(&cr->sp->base);
	kfree(cr);
}

/* The consumer rejects a request: destroy its id. Not from the handler. */
static void cr_reject_id(struct rdma_cm_id *id, const void *pd, u8 len)
{
	rdma_lock_handler(id);
	rdma_reject(id, pd, len, IB_CM_REJ_CONSUMER_DEFINED);
	rdma_unlock_handler(id);
	rdma_destroy_id(id);
}

/*
 * kdapl itself refuses a request (a full RSP, a freed service point, no
 * resources): a reject the requester reads as NON_PEER_REJECTED
 * (include/kiwarp/reject.h). Caller holds the id's handler mutex.
 */
static void cr_reject_nonpeer_locked(struct rdma_cm_id *id)
{
	rdma_reject(id, KIWARP_NONPEER_REJECT, KIWARP_NONPEER_REJECT_LEN,
		    IB_CM_REJ_INVALID_SERVICE_ID);
}

/* The same from process context, destroying the id. Not the handler. */
static void cr_reject_nonpeer(struct rdma_cm_id *id)
{
	rdma_lock_handler(id);
	cr_reject_nonpeer_locked(id);
	rdma_unlock_handler(id);
	rdma_destroy_id(id);
}

static void cr_post_arrival(struct kdapl_cr *cr, struct kdapl_evd *evd)
{
	DAT_EVENT ev = { .event_number = DAT_CONNECTION_REQUEST_EVENT };
	DAT_CR_ARRIVAL_EVENT_DATA *d = &ev.event_data.cr_arrival_event_data;

	if (cr->sp->psp || cr->sp->ssp)	/* an SSP's handle: psp_handle */
		d->sp_handle.psp_handle = kdapl_obj_handle(&cr->sp->base);
	else
		d->sp_handle.rsp_handle = kdapl_obj_handle(&cr->sp->base);
	d->local_ia_address_ptr = (struct sockaddr *)&cr->local;
	d->conn_qual = cr->sp->qual;
	d->cr_handle = kdapl_obj_handle(&cr->base);
	d->truncate_flag = cr->truncated ? DAT_TRUE : DAT_FALSE;
	kdapl_evd_post(evd, &ev);
}

/* A request's arrival, in process context. */
static void __cr_arrive(struct kdapl_cr *cr)
{
	struct kdapl_sp *sp = cr->sp;
	struct kdapl_ia *ia = sp->base.ia;
	struct kdapl_ep *ep = NULL;
	struct kdapl_evd *evd;
	unsigned long flags;
	DAT_RETURN ret;

	mutex_lock(&ia->lock);
	if (sp->dead || kdapl_ia_child_get(ia) != DAT_SUCCESS)
		goto reject;
	if ((sp->psp || sp->ssp) && (sp->flags & DAT_PSP_PROVIDER_FLAG)) {
		ret = kdapl_ep_new(ia, NULL, NULL, NULL, NULL, NULL, true, &ep);
		if (ret != DAT_SUCCESS)
			goto reject_child;
		spin_lock_irqsave(&ep->lock, flags);
		kdapl_ep_move(ep, KDAPL_EP_EV_PSP_PROVIDER_EP);
		spin_unlock_irqrestore(&ep->lock, flags);
		/* The consumer frees it (after accept) with dat_ep_free(). */
		kdapl_hobj_ref(&ep->base.hobj);
		cr->ep = ep;
	} else if (!sp->psp) {
		ep = sp->ep;
		if (!ep)
			goto reject_child;
		sp->ep = NULL;		/* its reference moves to the CR */
		cr->ep = ep;
		spin_lock_irqsave(&ep->lock, flags);
		kdapl_ep_move(ep, KDAPL_EP_EV_CM_REQUEST);
		ep->rsp = NULL;
		spin_unlock_irqrestore(&ep->lock, flags);
	}
	cr->base.ia = ia;
	spin_lock_init(&cr->base.ctx_lock);
	if (kdapl_hobj_add(&kdapl.handles, &cr->base.hobj, KDAPL_HT_CR,
			   kdapl_cr_release, GFP_KERNEL))
		goto reject_ep;
	list_add_tail(&cr->node, &ia->crs);
	sp->requests++;
	atomic_inc(&sp->pending);
	/*
	 * Once the lock is dropped the SP may be freed, which lets go of
	 * its EVD, and the EVD freed: keep its memory until the event is
	 * posted. An EVD freed meanwhile takes the event without delivering
	 * it (its dispatch is stopped), as for any event racing its free.
	 */
	evd = sp->evd;
	kdapl_hobj_ref(&evd->base.hobj);
	mutex_unlock(&ia->lock);
	cr_post_arrival(cr, evd);
	kdapl_obj_put(&evd->base);
	return;

reject_ep:
	if (ep && ep->provider_ep) {
		mutex_unlock(&ia->lock);
		kdapl_ep_destroy(ep);
		mutex_lock(&ia->lock);
	} else if (ep) {
		spin_lock_irqsave(&ep->lock, flags);
		kdapl_ep_move(ep, KDAPL_EP_OP_CR_REJECT);
		spin_unlock_irqrestore(&ep->lock, flags);
	}
reject_child:
	kdapl_ia_child_gone(ia);
	kdapl_obj_put(&ia->base);
reject:
	mutex_unlock(&ia->lock);
	if (cr->cm_id) {
		cr_reject_nonpeer(cr->cm_id);
		cr->cm_id = NULL;
	}
	/* no event: the socket stays the consumer's, shut down */
	if (cr->iws)
		kdapl_iws_refuse(cr->iws);
	kdapl_cr_discard(cr);
}

/*
 * The arrival, then the SP's count of those to come: once it drops to
 * zero kdapl_sp_destroy() may return. The CR may be gone by then (a
 * reject, or an accept and a free racing from another task), and with
 * it its reference on the SP: hold one of our own for the wake-up.
 */
static void cr_arrive(struct kdapl_cr *cr)
{
	struct kdapl_sp *sp = cr->sp;

	kdapl_hobj_ref(&sp->base.hobj);
	__cr_arrive(cr);
	if (atomic_dec_and_test(&sp->arrivals))
		wake_up_var(&sp->arrivals);
	kdapl_obj_put(&sp->base);
}

/* The consumer rejected the request (or handed it off, or the IA goes). */
static void cr_finish(struct kdapl_cr *cr, bool reject)
{
	struct kdapl_ia *ia = cr->base.ia;
	struct kdapl_iws *iws;
	struct rdma_cm_id *id;
	struct kdapl_ep *ep;

	mutex_lock(&ia->lock);
	list_del_init(&cr->node);
	id = cr->cm_id;
	cr->cm_id = NULL;
	iws = cr->iws;
	cr->iws = NULL;
	mutex_unlock(&ia->lock);
	atomic_dec(&cr->sp->pending);
	if (id && reject)
		cr_reject_id(id, cr->pdata, cr->pdata_len);
	else if (id)
		rdma_destroy_id(id);
	if (iws && reject)
		kdapl_iws_reject(iws, cr->pdata, cr->pdata_len);
	if (iws)
		kdapl_iws_release(iws);
	ep = cr->ep;
	if (ep && ep->provider_ep)	/* back to provider control: gone */
		kdapl_ep_destroy(ep);
	kdapl_ia_child_gone(ia);
	kdapl_obj_put(&cr->base);	/* the creator's reference */
}

static void __kdapl_cr_work(struct work_struct *work)
{
	struct kdapl_cr *cr = container_of(work, struct kdapl_cr, work);

	if (cr->action == KDAPL_CR_ARRIVE)
		cr_arrive(cr);
	else
		cr_finish(cr, true);
}

static void kdapl_cr_work(struct work_struct *work)
{
	int was = kdapl_fault_begin();

	__kdapl_cr_work(work);
	kdapl_fault_end(was);
}

/* Fill the zeroed @cr with a request for @sp; counted in sp->arrivals. */
static void cr_init(struct kdapl_cr *cr, struct kdapl_sp *sp, const void *pd,
		    u16 pdlen, u32 ird, u32 ord)
{
	/* The type is what kdapl_cm_handler() looks at, before the handle. */
	cr->base.hobj.type = KDAPL_HT_CR;
	cr->pdata_len = min_t(unsigned int, pdlen, KDAPL_PDATA_MAX);
	cr->truncated = pdlen > KDAPL_PDATA_MAX;
	if (pd && cr->pdata_len)
		memcpy(cr->pdata, pd, cr->pdata_len);
	cr->ird = min_t(u32, ird, U8_MAX);
	cr->ord = min_t(u32, ord, U8_MAX);
	kdapl_hobj_ref(&sp->base.hobj);
	cr->sp = sp;
	atomic_inc(&sp->arrivals);	/* every one queued runs cr_arrive() */
	INIT_LIST_HEAD(&cr->node);
	INIT_WORK(&cr->work, kdapl_cr_work);
	cr->action = KDAPL_CR_ARRIVE;
}

/*
 * Record a request for @sp and queue its arrival. Takes over @id, which
 * must not be used by anyone else; its context becomes the CR.
 */
static int cr_queue(struct kdapl_sp *sp, struct rdma_cm_id *id,
		    const void *pd, u8 pdlen, u8 ird, u8 ord)
{
	struct kdapl_cr *cr = kzalloc(sizeof(*cr), GFP_KERNEL);

	if (!cr)
		return -ENOMEM;
	cr_init(cr, sp, pd, pdlen, ird, ord);
	cr->cm_id = id;
	memcpy(&cr->local, &id->route.addr.src_addr, sizeof(cr->local));
	memcpy(&cr->remote, &id->route.addr.dst_addr, sizeof(cr->remote));
	id->context = cr;
	queue_work(kdapl_wq, &cr->work);
	return 0;
}

/* An SSP's one CR, allocated with it: its request cannot fail for memory. */
struct kdapl_cr *kdapl_cr_alloc(void)
{
	return kzalloc(sizeof(struct kdapl_cr), GFP_KERNEL);
}

/* A CR from kdapl_cr_alloc() that got no request. */
void kdapl_cr_free(struct kdapl_cr *cr)
{
	kfree(cr);
}

/**
 * kdapl_cr_make_iws() - record the MPA Request of an SSP in its CR
 * @cr: the SSP's CR (kdapl_cr_alloc()); queued with kdapl_cr_queue()
 * @sp: the SSP
 * @iws: its takeover; the caller's reference moves to the CR
 * @pd: the request's private data, @pdlen bytes (truncated to what kdapl
 *	keeps, with the CR's truncate flag set)
 * @pdlen: its length
 * @ird: RDMA reads the requester accepts (RFC 6581), 0 if not given
 * @ord: RDMA reads the requester issues
 * @local: the socket's local address
 * @remote: the socket's peer
 *
 * Context: the provider's event handler (process context).
 */
void kdapl_cr_make_iws(struct kdapl_cr *cr, struct kdapl_sp *sp,
		       struct kdapl_iws *iws, const void *pd, u16 pdlen,
		       u32 ird, u32 ord, const struct sockaddr_storage *local,
		       const struct sockaddr_storage *remote)
{
	cr_init(cr, sp, pd, pdlen, ird, ord);
	cr->iws = iws;
	cr->local = *local;
	cr->remote = *remote;
}

/* Queue the arrival of a CR made by kdapl_cr_make_iws(). */
void kdapl_cr_queue(struct kdapl_cr *cr)
{
	queue_work(kdapl_wq, &cr->work);
}

/**
 * kdapl_sp_cm_event() - rdma_cm events of a listening id
 * @sp: the service point
 * @id: for a connection request, the new id of the request
 * @ev: the event
 *
 * Return: 0, or non-zero to have rdma_cm reject and destroy a request's
 * new id (an RSP's second request, no memory).
 * Context: rdma_cm's handler: process context, the handler mutex held.
 */
int kdapl_sp_cm_event(struct kdapl_sp *sp, struct rdma_cm_id *id,
		      struct rdma_cm_event *ev)
{
	if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST)
		return 0;
	if (!sp->psp && test_and_set_bit(0, &sp->used)) {
		/* rdma_cm holds the new id's handler mutex for us */
		cr_reject_nonpeer_locked(id);
		return -ECONNREFUSED;
	}
	return cr_queue(sp, id, ev->param.conn.private_data,
			ev->param.conn.private_data_len,
			ev->param.conn.initiator_depth,
			ev->param.conn.responder_resources);
}

/**
 * kdapl_cr_teardown() - drop a CR's request because the device goes
 * @cr: a CR on its IA's list
 *
 * Context: process context, ia->lock held.
 */
void kdapl_cr_teardown(struct kdapl_cr *cr)
{
	lockdep_assert_held(&cr->base.ia->lock);
	if (cr->cm_id) {
		rdma_destroy_id(cr->cm_id);
		cr->cm_id = NULL;
	}
	if (cr->iws) {
		kdapl_iws_release(cr->iws);
		cr->iws = NULL;
	}
}

/**
 * kdapl_sp_teardown() - stop a service point's listen
 * @sp: a PSP or RSP on its IA's list
 *
 * Context: process context, ia->lock held.
 */
void kdapl_sp_teardown(struct kdapl_sp *sp)
{
	lockdep_assert_held(&sp->base.ia->lock);
	sp->dead = true;
	if (sp->cm_id) {
		rdma_destroy_id(sp->cm_id);
		sp->cm_id = NULL;
	}
}

static void kdapl_sp_release(struct kdapl_hobj *h)
{
	struct kdapl_sp *sp = container_of(h, struct kdapl_sp, base.hobj);

	WARN_ON_ONCE(sp->cm_id || sp->ep || sp->iws);
	kdapl_obj_put(&sp->base.ia->base);
	kfree_rcu(sp, base.hobj.rcu);	/* handle lookups run under RCU */
}

/**
 * kdapl_sp_destroy() - free a service point
 * @sp: a PSP, RSP or SSP; the caller holds a reference of its own
 *
 * Stops listening (an SSP gives a socket that got no request back), gives
 * a reserved EP back. A request that came in before is settled when this
 * returns, one way for each kind (seed 000: consistently): a PSP's or
 * RSP's whose arrival had not run yet is rejected with no event, an
 * SSP's - whose socket went to its CR when it came - arrives: its
 * DAT_CONNECTION_REQUEST_EVENT is on the EVD (with the reserved EP, if
 * any) before this returns, so a consumer that finds none owns its
 * socket again.
 *
 * Return: DAT_SUCCESS, or DAT_INVALID_HANDLE if someone else freed it.
 * Context: process context; sleeps. ia->lock not held, not kdapl_wq
 * (it waits for that workqueue's arrivals).
 */
DAT_RETURN kdapl_sp_destroy(struct kdapl_sp *sp)
{
	struct kdapl_ia *ia = sp->base.ia;
	struct kdapl_iws *iws;
	struct rdma_cm_id *id;
	struct kdapl_ep *ep;

	mutex_lock(&ia->lock);
	if (!kdapl_hobj_remove(&kdapl.handles, &sp->base.hobj)) {
		mutex_unlock(&ia->lock);
		return DAT_ERROR(DAT_INVALID_HANDLE,
				 sp->ssp ? DAT_NO_SUBTYPE :
				 sp->psp ? DAT_INVALID_HANDLE_PSP :
				 DAT_INVALID_HANDLE_RSP);
	}
	list_del_init(&sp->node);
	spin_lock_irq(&sp_list_lock);
	list_del_init(&sp->all);
	spin_unlock_irq(&sp_list_lock);
	if (!sp->ssp)
		sp->dead = true;
	id = sp->cm_id;
	sp->cm_id = NULL;
	iws = sp->iws;
	sp->iws = NULL;
	mutex_unlock(&ia->lock);

	if (id)
		rdma_destroy_id(id);	/* waits for a handler in progress */
	if (iws)
		kdapl_ssp_detach(sp, iws);	/* no handler after this */
	if (sp->spare_cr) {		/* an SSP that got no request */
		kdapl_cr_free(sp->spare_cr);
		sp->spare_cr = NULL;
	}
	/* nothing is queued for @sp any more: settle what is */
	wait_var_event(&sp->arrivals, !atomic_read(&sp->arrivals));

	mutex_lock(&ia->lock);
	sp->dead = true;
	ep = sp->ep;
	sp->ep = NULL;
	mutex_unlock(&ia->lock);
	if (ep) {
		spin_lock_irq(&ep->lock);
		kdapl_ep_move(ep, KDAPL_EP_OP_RSP_FREE);
		ep->rsp = NULL;
		spin_unlock_irq(&ep->lock);
		kdapl_obj_put(&ep->base);
	}
	atomic_dec(&sp->evd->users);
	kdapl_obj_put(&sp->evd->base);
	kdapl_ia_child_gone(ia);
	kdapl_obj_put(&sp->base);
	return DAT_SUCCESS;
}

/*
 * Make @sp visible: a child of @ia with a handle, on the lists, @ep
 * reserved (RSP_CREATE: UNCONNECTED -> RESERVED), @id its listening id.
 * On success the references of the @evd and @ep lookups move to @sp; on
 * failure nothing changed and the caller keeps them.
 */
static DAT_RETURN sp_publish(struct kdapl_ia *ia, struct kdapl_sp *sp,
			     struct kdapl_evd *evd, struct kdapl_ep *ep,
			     struct rdma_cm_id *id)
{
	DAT_RETURN ret;

	mutex_lock(&ia->lock);
	/* freed since its lookup? dat_evd_free() decides under this lock */
	if (!kdapl_hobj_present(&kdapl.handles, &evd->base.hobj)) {
		ret = DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_CR);
		goto out_unlock;
	}
	ret = kdapl_ia_child_get(ia);
	if (ret != DAT_SUCCESS)
		goto out_unlock;
	if (ep) {
		spin_lock_irq(&ep->lock);
		ret = kdapl_ep_state_check(ep->state, KDAPL_EP_OP_RSP_CREATE);
		/* An SSP's EP must be configured (seed 000). */
		if (ret == DAT_SUCCESS && sp->ssp &&
		    ep->state != DAT_EP_STATE_UNCONNECTED)
			ret = DAT_ERROR(DAT_INVALID_STATE,
					DAT_INVALID_STATE_EP_UNCONFIGURED);
		if (ret == DAT_SUCCESS) {
			kdapl_ep_move(ep, KDAPL_EP_OP_RSP_CREATE);
			ep->rsp = sp;
		}
		spin_unlock_irq(&ep->lock);
		if (ret != DAT_SUCCESS)
			goto out_child;
	}
	INIT_LIST_HEAD(&sp->all);
	INIT_LIST_HEAD(&sp->node);
	sp->base.ia = ia;
	spin_lock_init(&sp->base.ctx_lock);
	if (kdapl_hobj_add(&kdapl.handles, &sp->base.hobj, sp->base.hobj.type,
			   kdapl_sp_release, GFP_KERNEL)) {
		/* Undo by hand: nothing has seen the SP yet. */
		if (ep) {
			spin_lock_irq(&ep->lock);
			kdapl_ep_move(ep, KDAPL_EP_OP_RSP_FREE);
			ep->rsp = NULL;
			spin_unlock_irq(&ep->lock);
		}
		ret = DAT_ERROR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
		goto out_child;
	}
	atomic_inc(&evd->users);
	sp->evd = evd;
	sp->ep = ep;
	list_add_tail(&sp->node, &ia->sps);
	spin_lock_irq(&sp_list_lock);
	list_add_tail(&sp->all, &sp_list);
	spin_unlock_irq(&sp_list_lock);
	sp->cm_id = id;
	if (sp->ssp)	/* the creator's (iwsock.c): a free may come at once */
		kdapl_hobj_ref(&sp->base.hobj);
	mutex_unlock(&ia->lock);
	return DAT_SUCCESS;

out_child:
	kdapl_ia_child_gone(ia);
	kdapl_obj_put(&ia->base);
out_unlock:
	mutex_unlock(&ia->lock);
	return ret;
}

/**
 * kdapl_sp_publish() - make an SSP visible (iwsock.c)
 * @ia: its IA
 * @sp: the SSP, filled in but for the links
 * @evd: its CR EVD (a lookup reference, moved to @sp on success)
 * @ep: its EP or NULL (a lookup reference, moved on success)
 *
 * On success the caller holds a reference of its own on @sp (dropped
 * with kdapl_obj_put()): a racing free may run from the moment the
 * handle exists.
 *
 * Return: DAT_SUCCESS, DAT_INVALID_STATE (IA closing, EP not
 * UNCONNECTED), DAT_INSUFFICIENT_RESOURCES.
 * Context: process context; sleeps.
 */
DAT_RETURN kdapl_sp_publish(struct kdapl_ia *ia, struct kdapl_sp *sp,
			    struct kdapl_evd *evd, struct kdapl_ep *ep)
{
	return sp_publish(ia, sp, evd, ep, NULL);
}

/*
 * Create a PSP (@ep NULL) or an RSP for @ep, listening on *@qual, or on a
 * port the stack picks if *@qual is 0 (dat_psp_create_any).
 */
static DAT_RETURN sp_create(DAT_IA_HANDLE ia_handle, DAT_CONN_QUAL *qual,
			    DAT_EVD_HANDLE evd_handle, DAT_PSP_FLAGS flags,
			    DAT_EP_HANDLE ep_handle, bool psp, void **handle)
{
	struct sockaddr_storage addr;
	struct kdapl_ep *ep = NULL;
	struct kdapl_evd *evd;
	struct rdma_cm_id *id;
	struct kdapl_sp *sp;
	struct kdapl_ia *ia;
	struct net *net;
	DAT_RETURN ret;
	int err;

	if (*qual > U16_MAX)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (flags != DAT_PSP_CONSUMER_FLAG && flags != DAT_PSP_PROVIDER_FLAG)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	ia = kdapl_ia_get(ia_handle);
	if (!ia)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	evd = kdapl_evd_get(evd_handle);
	if (!evd || evd->base.ia != ia || !(evd->flags & DAT_EVD_CR_FLAG)) {
		ret = DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_CR);
		goto out_evd;
	}
	if (!psp) {
		ep = kdapl_ep_get(ep_handle);
		if (!ep || ep->base.ia != ia) {
			ret = DAT_ERROR(DAT_INVALID_HANDLE,
					DAT_INVALID_HANDLE_EP);
			goto out_ep;
		}
	}
	net = kdapl_ia_net(ia, &addr);
	if (!net) {
		ret = DAT_ERROR(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
		goto out_ep;
	}
	sp = kzalloc(sizeof(*sp), GFP_KERNEL);
	if (!sp) {
		put_net(net);
		ret = DAT_ERROR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
		goto out_ep;
	}
	sp->base.hobj.type = psp ? KDAPL_HT_PSP : KDAPL_HT_RSP;
	sp->psp = psp;
	sp->flags = flags;
	id = rdma_create_id(net, kdapl_cm_handler, sp, RDMA_PS_TCP, IB_QPT_RC);
	put_net(net);
	if (IS_ERR(id)) {
		kfree(sp);
		ret = DAT_ERROR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
		goto out_ep;
	}
	if (addr.ss_family == AF_INET)
		((struct sockaddr_in *)&addr)->sin_port = htons(*qual);
	else
		((struct sockaddr_in6 *)&addr)->sin6_port = htons(*qual);
	err = rdma_bind_addr(id, (struct sockaddr *)&addr);
	if (err) {
		rdma_destroy_id(id);
		kfree(sp);
		ret = err == -EADDRINUSE ?
		      DAT_ERROR(DAT_CONN_QUAL_IN_USE, DAT_NO_SUBTYPE) :
		      DAT_ERROR(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
		goto out_ep;
	}
	sp->qual = id->route.addr.src_addr.ss_family == AF_INET6 ?
		   ntohs(((struct sockaddr_in6 *)&id->route.addr.src_addr)->sin6_port) :
		   ntohs(((struct sockaddr_in *)&id->route.addr.src_addr)->sin_port);
	*qual = sp->qual;

	/* The handle first: a request may arrive as soon as we listen. */
	ret = sp_publish(ia, sp, evd, ep, id);
	if (ret != DAT_SUCCESS) {
		rdma_destroy_id(id);
		kfree(sp);
		goto out_ep;
	}
	evd = NULL;
	ep = NULL;

	err = rdma_listen(id, KDAPL_LISTEN_BACKLOG);
	if (err) {
		kdapl_sp_destroy(sp);
		ret = err == -EADDRINUSE ?
		      DAT_ERROR(DAT_CONN_QUAL_IN_USE, DAT_NO_SUBTYPE) :
		      DAT_ERROR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP);
		goto out_ia;
	}
	*handle = kdapl_obj_handle(&sp->base);
	ret = DAT_SUCCESS;
	goto out_ia;

out_ep:
	if (ep)
		kdapl_obj_put(&ep->base);
out_evd:
	if (evd)
		kdapl_obj_put(&evd->base);
out_ia:
	kdapl_obj_put(&ia->base);
	return ret;
}

/**
 * dat_psp_create() - listen on a connection qualifier
 * @ia_handle: the IA
 * @conn_qual: the qualifier: a TCP port, 1-65535
 * @evd_handle: EVD with DAT_EVD_CR_FLAG for DAT_CONNECTION_REQUEST_EVENT
 * @psp_flags: DAT_PSP_CONSUMER_FLAG or DAT_PSP_PROVIDER_FLAG (each
 *	request comes with an EP the provider created, without PZ)
 * @psp_handle: set to the new PSP
 *
 * Return: DAT_SUCCESS, DAT_INVALID_HANDLE, DAT_INVALID_PARAMETER,
 * DAT_CONN_QUAL_IN_USE, DAT_INVALID_STATE, DAT_INSUFFICIENT_RESOURCES.
 * Context: process context; sleeps.
 */
DAT_RETURN dat_psp_create(DAT_IA_HANDLE ia_handle, DAT_CONN_QUAL conn_qual,
			  DAT_EVD_HANDLE evd_handle, DAT_PSP_FLAGS psp_flags,
			  DAT_PSP_HANDLE *psp_handle)
{
	if (!conn_qual)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!psp_handle)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	return sp_create(ia_handle, &conn_qual, evd_handle, psp_flags, NULL,
			 true, psp_handle);
}
EXPORT_SYMBOL_GPL(dat_psp_create);

/* dat_psp_create_any(): attempts before a busy port is the answer */
#define KDAPL_ANY_QUAL_TRIES	8

/**
 * dat_psp_create_any() - listen on a qualifier the IA chooses
 * @ia_handle: the IA
 * @conn_qual: set to the chosen qualifier (a free TCP port)
 * @evd_handle: as for dat_psp_create()
 * @psp_flags: as for dat_psp_create()
 * @psp_handle: set to the new PSP
 *
 * Return: as dat_psp_create().
 * Context: process context; sleeps.
 */
DAT_RETURN dat_psp_create_any(DAT_IA_HANDLE ia_handle,
			      DAT_CONN_QUAL *conn_qual,
			      DAT_EVD_HANDLE evd_handle,
			      DAT_PSP_FLAGS psp_flags,
			      DAT_PSP_HANDLE *psp_handle)
{
	int tries = KDAPL_ANY_QUAL_TRIES;
	DAT_CONN_QUAL q;
	DAT_RETURN ret;

	if (!conn_qual)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!psp_handle)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	/*
	 * rdma_cm picks the port in its own port space; an iWARP provider
	 * then listens on it in TCP, where a plain socket may hold it.
	 * That is the IA's choice failing, not the consumer's: pick again.
	 */
	do {
		q = 0;
		ret = sp_create(ia_handle, &q, evd_handle, psp_flags, NULL,
				true, psp_handle);
	} while (DAT_GET_TYPE(ret) == DAT_CONN_QUAL_IN_USE && --tries);
	if (ret == DAT_SUCCESS)
		*conn_qual = q;
	return ret;
}
EXPORT_SYMBOL_GPL(dat_psp_create_any);

/**
 * dat_psp_query() - query a public service point
 * @psp_handle: the PSP
 * @psp_param_mask: DAT_PSP_FIELD_* bits wanted
 * @psp_param: filled with the requested fields
 *
 * Return: DAT_SUCCESS, DAT_INVALID_HANDLE, DAT_INVALID_PARAMETER.
 * Context: any context.
 */
DAT_RETURN dat_psp_query(DAT_PSP_HANDLE psp_handle,
			 DAT_PSP_PARAM_MASK psp_param_mask,
			 DAT_PSP_PARAM *psp_param)
{
	struct kdapl_sp *sp;

	if (psp_param_mask & ~DAT_PSP_FIELD_ALL)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!psp_param)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	sp = kdapl_sp_get(psp_handle, KDAPL_HT_PSP);
	if (!sp)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PSP);
	if (psp_param_mask & DAT_PSP_FIELD_IA_HANDLE)
		psp_param->ia_handle = kdapl_obj_handle(&sp->base.ia->base);
	if (psp_param_mask & DAT_PSP_FIELD_CONN_QUAL)
		psp_param->conn_qual = sp->qual;
	if (psp_param_mask & DAT_PSP_FIELD_EVD_HANDLE)
		psp_param->evd_handle = kdapl_obj_handle(&sp->evd->base);
	if (psp_param_mask & DAT_PSP_FIELD_PSP_FLAGS)
		psp_param->psp_flags = sp->flags;
	kdapl_obj_put(&sp->base);
	return DAT_SUCCESS;
}
EXPORT_SYMBOL_GPL(dat_psp_query);

/**
 * dat_psp_free() - stop listening and destroy a public service point
 * @psp_handle: the PSP
 *
 * Requests already delivered and connections already made stay; new
 * requests are refused by the transport (nobody listening).
 *
 * Return: DAT_SUCCESS, DAT_INVALID_HANDLE.
 * Context: process context; sleeps.
 */
DAT_RETURN dat_psp_free(DAT_PSP_HANDLE psp_handle)
{
	struct kdapl_sp *sp = kdapl_sp_get(psp_handle, KDAPL_HT_PSP);
	DAT_RETURN ret;

	if (!sp)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PSP);
	ret = kdapl_sp_destroy(sp);
	kdapl_obj_put(&sp->base);
	return ret;
}
EXPORT_SYMBOL_GPL(dat_psp_free);

/**
 * dat_rsp_create() - listen for one request for a given endpoint
 * @ia_handle: the IA
 * @conn_qual: the qualifier: a TCP port, 1-65535
 * @ep_handle: an UNCONNECTED EP; it becomes RESERVED
 * @evd_handle: EVD with DAT_EVD_CR_FLAG
 * @rsp_handle: set to the new RSP
 *
 * The first request moves the EP to PASSIVE_CONNECTION_PENDING and is
 * delivered as a CR; later requests are rejected.
 *
 * Return: as dat_psp_create(); DAT_INVALID_STATE if the EP is not
 * UNCONNECTED.
 * Context: process context; sleeps.
 */
DAT_RETURN dat_rsp_create(DAT_IA_HANDLE ia_handle, DAT_CONN_QUAL conn_qual,
			  DAT_EP_HANDLE ep_handle, DAT_EVD_HANDLE evd_handle,
			  DAT_RSP_HANDLE *rsp_handle)
{
	if (!conn_qual)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!rsp_handle)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	return sp_create(ia_handle, &conn_qual, evd_handle,
			 DAT_PSP_CONSUMER_FLAG, ep_handle, false, rsp_handle);
}
EXPORT_SYMBOL_GPL(dat_rsp_create);

/**
 * dat_rsp_query() - query a reserved service point
 * @rsp_handle: the RSP
 * @rsp_param_mask: DAT_RSP_FIELD_* bits wanted
 * @rsp_param: filled with the requested fields; ep_handle is
 *	DAT_HANDLE_NULL once the request arrived
 *
 * Return: DAT_SUCCESS, DAT_INVALID_HANDLE, DAT_INVALID_PARAMETER.
 * Context: process context; sleeps.
 */
DAT_RETURN dat_rsp_query(DAT_RSP_HANDLE rsp_handle,
			 DAT_RSP_PARAM_MASK rsp_param_mask,
			 DAT_RSP_PARAM *rsp_param)
{
	struct kdapl_sp *sp;

	if (rsp_param_mask & ~DAT_RSP_FIELD_ALL)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!rsp_param)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	sp = kdapl_sp_get(rsp_handle, KDAPL_HT_RSP);
	if (!sp)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RSP);
	if (rsp_param_mask & DAT_RSP_FIELD_IA_HANDLE)
		rsp_param->ia_handle = kdapl_obj_handle(&sp->base.ia->base);
	if (rsp_param_mask & DAT_RSP_FIELD_CONN_QUAL)
		rsp_param->conn_qual = sp->qual;
	if (rsp_param_mask & DAT_RSP_FIELD_EVD_HANDLE)
		rsp_param->evd_handle = kdapl_obj_handle(&sp->evd->base);
	if (rsp_param_mask & DAT_RSP_FIELD_EP_HANDLE) {
		mutex_lock(&sp->base.ia->lock);
		rsp_param->ep_handle = sp->ep ?
			kdapl_obj_handle(&sp->ep->base) : NULL;
		mutex_unlock(&sp->base.ia->lock);
	}
	kdapl_obj_put(&sp->base);
	return DAT_SUCCESS;
}
EXPORT_SYMBOL_GPL(dat_rsp_query);

/**
 * dat_rsp_free() - destroy a reserved service point
 * @rsp_handle: the RSP; a still reserved EP returns to UNCONNECTED
 *
 * Return: DAT_SUCCESS, DAT_INVALID_HANDLE.
 * Context: process context; sleeps.
 */
DAT_RETURN dat_rsp_free(DAT_RSP_HANDLE rsp_handle)
{
	struct kdapl_sp *sp = kdapl_sp_get(rsp_handle, KDAPL_HT_RSP);
	DAT_RETURN ret;

	if (!sp)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RSP);
	ret = kdapl_sp_destroy(sp);
	kdapl_obj_put(&sp->base);
	return ret;
}
EXPORT_SYMBOL_GPL(dat_rsp_free);

/**
 * dat_cr_query() - query a connection request
 * @cr_handle: the CR
 * @cr_param_mask: DAT_CR_FIELD_* bits wanted
 * @cr_param: filled with the requested fields; pointers point into the
 *	CR and are valid until it is accepted, rejected or handed off
 *
 * Return: DAT_SUCCESS, DAT_INVALID_HANDLE, DAT_INVALID_PARAMETER.
 * Context: any context.
 */
DAT_RETURN dat_cr_query(DAT_CR_HANDLE cr_handle,
			DAT_CR_PARAM_MASK cr_param_mask,
			DAT_CR_PARAM *cr_param)
{
	struct kdapl_cr *cr;

	if (cr_param_mask & ~DAT_CR_FIELD_ALL)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!cr_param)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	cr = kdapl_cr_get(cr_handle);
	if (!cr)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR);
	if (cr_param_mask & DAT_CR_FIELD_REMOTE_IA_ADDRESS_PTR)
		cr_param->remote_ia_address_ptr = (struct sockaddr *)&cr->remote;
	if (cr_param_mask & DAT_CR_FIELD_REMOTE_PORT_QUAL)
		cr_param->remote_port_qual =
			cr->remote.ss_family == AF_INET6 ?
			ntohs(((struct sockaddr_in6 *)&cr->remote)->sin6_port) :
			ntohs(((struct sockaddr_in *)&cr->remote)->sin_port);
	if (cr_param_mask & DAT_CR_FIELD_PRIVATE_DATA_SIZE)
		cr_param->private_data_size = cr->pdata_len;
	if (cr_param_mask & DAT_CR_FIELD_PRIVATE_DATA)
		cr_param->private_data = cr->pdata;
	if (cr_param_mask & DAT_CR_FIELD_LOCAL_EP_HANDLE)
		cr_param->local_ep_handle = cr->ep ?
			kdapl_obj_handle(&cr->ep->base) : NULL;
	kdapl_obj_put(&cr->base);
	return DAT_SUCCESS;
}
EXPORT_SYMBOL_GPL(dat_cr_query);

/**
 * dat_cr_accept() - accept a connection request
 * @cr_handle: the CR; its handle is gone when the call succeeds
 * @ep_handle: the EP to connect: the RSP's or the provider's EP
 *	(DAT_HANDLE_NULL picks it), or for a consumer PSP an UNCONNECTED
 *	EP with a PZ and EVDs
 * @private_data_size: at most the provider's max_private_data_size
 * @private_data: sent with the accept
 *
 * The EP goes COMPLETION_PENDING; DAT_CONNECTION_EVENT_ESTABLISHED (then
 * CONNECTED) or ACCEPT_COMPLETION_ERROR follows on its connect EVD.
 *
 * Return: DAT_SUCCESS, DAT_INVALID_HANDLE, DAT_INVALID_PARAMETER,
 * DAT_INVALID_STATE.
 * Context: any context, upcalls included; never sleeps.
 */
DAT_RETURN dat_cr_accept(DAT_CR_HANDLE cr_handle, DAT_EP_HANDLE ep_handle,
			 DAT_COUNT private_data_size,
			 const DAT_PVOID private_data)
{
	struct kdapl_cr *cr = kdapl_cr_get(cr_handle);
	struct kdapl_ep *ep;
	unsigned long flags;
	DAT_RETURN ret;

	if (!cr)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR);
	if (private_data_size < 0 ||
	    private_data_size > cr->base.ia->prov->max_private_data ||
	    (private_data_size && !private_data)) {
		ret = DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
		goto out_cr;
	}
	ep = ep_handle ? kdapl_ep_get(ep_handle) : NULL;
	if (!ep && cr->ep) {
		ep = cr->ep;
		kdapl_hobj_ref(&ep->base.hobj);
	}
	if (!ep || ep->base.ia != cr->base.ia) {
		ret = DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
		goto out_ep;
	}
	if (cr->ep && ep != cr->ep) {
		ret = DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
		goto out_ep;
	}

	spin_lock_irqsave(&ep->lock, flags);
	ret = kdapl_ep_state_check(ep->state, KDAPL_EP_OP_CR_ACCEPT);
	if (ret == DAT_SUCCESS && (!ep->qp || ep->cr))
		ret = DAT_ERROR(DAT_INVALID_STATE, DAT_INVALID_STATE_EP_NOTREADY);
	/* Claim the CR: of accept, reject and handoff only one wins. */
	if (ret == DAT_SUCCESS &&
	    !kdapl_hobj_remove(&kdapl.handles, &cr->base.hobj))
		ret = DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR);
	if (ret == DAT_SUCCESS) {
		kdapl_ep_move(ep, KDAPL_EP_OP_CR_ACCEPT);
		ep->cr = cr;	/* takes over the CR's creator reference */
		if (private_data_size)
			memcpy(ep->pdata, private_data, private_data_size);
		ep->pdata_len = private_data_size;
		ep->local = cr->local;
		ep->remote = cr->remote;
		ep->peer_pdata_len = 0;
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	if (ret == DAT_SUCCESS)
		kdapl_ep_queue(ep, KDAPL_EP_ACT_ACCEPT);
out_ep:
	if (ep)
		kdapl_obj_put(&ep->base);
out_cr:
	kdapl_obj_put(&cr->base);
	return ret;
}
EXPORT_SYMBOL_GPL(dat_cr_accept);

/**
 * kdapl_cr_done() - an accept took the CR's cm_id: drop the CR
 * @cr: the CR, claimed by dat_cr_accept()
 *
 * Context: process context, ia->lock held.
 */
void kdapl_cr_done(struct kdapl_cr *cr)
{
	lockdep_assert_held(&cr->base.ia->lock);
	list_del_init(&cr->node);
	atomic_dec(&cr->sp->pending);
	kdapl_ia_child_gone(cr->base.ia);
}

/**
 * dat_cr_reject() - reject a connection request
 * @cr_handle: the CR; its handle is gone when the call succeeds
 * @private_data_size: at most the provider's max_private_data_size
 * @private_data: sent with the reject
 *
 * The requester sees DAT_CONNECTION_EVENT_PEER_REJECTED. An RSP's EP goes
 * UNCONNECTED; a provider's EP is destroyed.
 *
 * Return: DAT_SUCCESS, DAT_INVALID_HANDLE, DAT_INVALID_PARAMETER.
 * Context: any context, upcalls included; never sleeps.
 */
DAT_RETURN dat_cr_reject(DAT_CR_HANDLE cr_handle, DAT_COUNT private_data_size,
			 const DAT_PVOID private_data)
{
	struct kdapl_cr *cr = kdapl_cr_get(cr_handle);
	unsigned long flags;
	DAT_RETURN ret = DAT_SUCCESS;

	if (!cr)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR);
	if (private_data_size < 0 ||
	    private_data_size > cr->base.ia->prov->max_private_data ||
	    (private_data_size && !private_data)) {
		ret = DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
		goto out;
	}
	if (!kdapl_hobj_remove(&kdapl.handles, &cr->base.hobj)) {
		ret = DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR);
		goto out;
	}
	if (private_data_size)
		memcpy(cr->pdata, private_data, private_data_size);
	cr->pdata_len = private_data_size;
	if (cr->ep) {
		spin_lock_irqsave(&cr->ep->lock, flags);
		kdapl_ep_move(cr->ep, KDAPL_EP_OP_CR_REJECT);
		spin_unlock_irqrestore(&cr->ep->lock, flags);
	}
	cr->action = KDAPL_CR_REJECT;
	queue_work(kdapl_wq, &cr->work);
out:
	kdapl_obj_put(&cr->base);
	return ret;
}
EXPORT_SYMBOL_GPL(dat_cr_reject);

/**
 * dat_cr_handoff() - pass a connection request to another service point
 * @cr_handle: the CR; its handle is gone when the call succeeds
 * @handoff: qualifier of a PSP of the same IA, which gets the request as
 *	a new CR
 *
 * An RSP's EP goes UNCONNECTED; a provider's EP is destroyed.
 *
 * Return: DAT_SUCCESS, DAT_INVALID_HANDLE, DAT_INVALID_PARAMETER (no PSP
 * with that qualifier), DAT_INSUFFICIENT_RESOURCES,
 * DAT_MODEL_NOT_SUPPORTED (a request of a socket service point: its
 * socket cannot move to another service point).
 * Context: process context; sleeps.
 */
DAT_RETURN dat_cr_handoff(DAT_CR_HANDLE cr_handle, DAT_CONN_QUAL handoff)
{
	struct kdapl_cr *cr = kdapl_cr_get(cr_handle);
	struct kdapl_sp *sp, *to = NULL;
	struct rdma_cm_id *id = NULL;
	struct kdapl_ia *ia;
	DAT_RETURN ret = DAT_SUCCESS;

	if (!cr)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR);
	if (cr->sp->ssp) {
		/* The socket is this SSP's: no other service point has it. */
		kdapl_obj_put(&cr->base);
		return DAT_ERROR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
	}
	ia = cr->base.ia;
	mutex_lock(&ia->lock);
	list_for_each_entry(sp, &ia->sps, node) {
		if (sp->psp && !sp->dead && sp->qual == handoff &&
		    sp != cr->sp) {
			to = sp;
			kdapl_hobj_ref(&to->base.hobj);
			break;
		}
	}
	if (!to)
		ret = DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	else if (!kdapl_hobj_remove(&kdapl.handles, &cr->base.hobj))
		ret = DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR);
	if (ret == DAT_SUCCESS) {
		id = cr->cm_id;
		cr->cm_id = NULL;
	}
	mutex_unlock(&ia->lock);
	if (ret != DAT_SUCCESS)
		goto out;

	if (cr->ep) {
		spin_lock_irq(&cr->ep->lock);
		kdapl_ep_move(cr->ep, KDAPL_EP_OP_CR_HANDOFF);
		spin_unlock_irq(&cr->ep->lock);
	}
	if (id) {
		rdma_lock_handler(id);
		if (cr_queue(to, id, cr->pdata, cr->pdata_len, cr->ird,
			     cr->ord)) {
			id->context = cr;
			rdma_unlock_handler(id);
			cr_reject_nonpeer(id);
			ret = DAT_ERROR(DAT_INSUFFICIENT_RESOURCES,
					DAT_RESOURCE_MEMORY);
		} else {
			rdma_unlock_handler(id);
		}
	}
	cr_finish(cr, false);
out:
	if (to)
		kdapl_obj_put(&to->base);
	kdapl_obj_put(&cr->base);
	return ret;
}
EXPORT_SYMBOL_GPL(dat_cr_handoff);

/**
 * kdapl_ia_destroy_children() - destroy what an abrupt close leaves
 * @ia: the IA, CLOSING, its device resources already released
 *
 * Context: process context; sleeps. ia->lock not held.
 */
void kdapl_ia_destroy_children(struct kdapl_ia *ia)
{
	struct kdapl_cr *cr;
	struct kdapl_sp *sp;
	struct kdapl_ep *ep;

	/* Queued arrivals find the IA closing and discard themselves. */
	flush_workqueue(kdapl_wq);
	for (;;) {
		bool claimed;

		mutex_lock(&ia->lock);
		cr = list_first_entry_or_null(&ia->crs, struct kdapl_cr, node);
		if (cr) {
			claimed = kdapl_hobj_remove(&kdapl.handles,
						    &cr->base.hobj);
			if (!claimed)	/* claimed elsewhere, work pending */
				list_del_init(&cr->node);
			kdapl_hobj_ref(&cr->base.hobj);
		}
		mutex_unlock(&ia->lock);
		if (!cr)
			break;
		if (claimed)
			cr_finish(cr, false);
		kdapl_obj_put(&cr->base);
	}
	for (;;) {
		mutex_lock(&ia->lock);
		sp = list_first_entry_or_null(&ia->sps, struct kdapl_sp, node);
		if (sp)
			kdapl_hobj_ref(&sp->base.hobj);
		mutex_unlock(&ia->lock);
		if (!sp)
			break;
		if (kdapl_sp_destroy(sp) != DAT_SUCCESS) {
			mutex_lock(&ia->lock);
			list_del_init(&sp->node);
			mutex_unlock(&ia->lock);
		}
		kdapl_obj_put(&sp->base);
	}
	for (;;) {
		mutex_lock(&ia->lock);
		ep = list_first_entry_or_null(&ia->eps, struct kdapl_ep, node);
		if (ep)
			kdapl_hobj_ref(&ep->base.hobj);
		mutex_unlock(&ia->lock);
		if (!ep)
			break;
		if (kdapl_ep_destroy(ep) != DAT_SUCCESS) {
			mutex_lock(&ia->lock);
			list_del_init(&ep->node);
			mutex_unlock(&ia->lock);
		}
		kdapl_obj_put(&ep->base);
	}
}

static int sps_show(struct seq_file *m, void *v)
{
	struct kdapl_sp *sp;

	seq_puts(m, "handle kind qual flags evd reserved used requests pending_crs socket\n");
	spin_lock_irq(&sp_list_lock);
	list_for_each_entry(sp, &sp_list, all) {
		seq_printf(m, "%#lx %s %llu %#x %#lx %d %d %llu %d %s\n",
			   (unsigned long)kdapl_obj_handle(&sp->base),
			   sp->ssp ? "ssp" : sp->psp ? "psp" : "rsp",
			   sp->qual, sp->flags,
			   (unsigned long)kdapl_obj_handle(&sp->evd->base),
			   !!READ_ONCE(sp->ep), test_bit(0, &sp->used),
			   READ_ONCE(sp->requests), atomic_read(&sp->pending),
			   kdapl_iws_show(READ_ONCE(sp->iws)));
	}
	spin_unlock_irq(&sp_list_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sps);

/**
 * kdapl_sp_debugfs_init() - create /sys/kernel/debug/kdapl/sps
 * @dir: the module's debugfs directory
 */
void kdapl_sp_debugfs_init(struct dentry *dir)
{
	debugfs_create_file("sps", 0444, dir, NULL, &sps_fops);
}
