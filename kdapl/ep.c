// SPDX-License-Identifier: GPL-2.0
/*
 * Endpoints: dat_ep_create, dat_ep_query, dat_ep_modify,
 * dat_ep_get_status, dat_ep_reset, dat_ep_free, and the EP helpers the
 * connection code (cm.c, sp.c) and the data path (dto.c) share.
 *
 * An EP has a QP while it has a PZ and its EVDs (the "configured"
 * states of the table in ep_state.c); the QP is created at once so that
 * receives can be posted before connecting, is replaced when the PZ
 * changes, and is recreated by dat_ep_reset() (an iWARP QP does not come
 * back from ERROR). Locking and contexts: see ep.h.
 */

#include <linux/debugfs.h>
#include <linux/export.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "ep.h"
#include "evd.h"
#include "lmr.h"
#include "registry.h"

#define CREATE_TRACE_POINTS
#include "kdapl_trace.h"

/* Defaults for attributes the consumer leaves at 0. */
#define KDAPL_EP_DEF_DTOS	32
#define KDAPL_EP_DEF_IOV	4
#define KDAPL_EP_DEF_RDMA_READ	4

/*
 * Send queue slots beyond max_request_dtos: the drain marker and
 * memory registrations posted ahead of consumer requests.
 */
#define KDAPL_EP_SQ_EXTRA	8

struct workqueue_struct *kdapl_wq;

/* All EPs, for debugfs. */
static LIST_HEAD(ep_list);
static DEFINE_SPINLOCK(ep_list_lock);	/* protects ep_list */

static DAT_RETURN bad_ep(void)
{
	return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
}

/**
 * kdapl_ep_move() - apply an op or event to the EP's state
 * @ep: the EP, its lock held
 * @op: what happened
 *
 * Return: true if the table allows @op in the current state (the state is
 * then the table's next state), false if it refuses it.
 */
bool kdapl_ep_move(struct kdapl_ep *ep, enum kdapl_ep_op op)
{
	DAT_EP_STATE next;

	lockdep_assert_held(&ep->lock);
	if (!kdapl_ep_state_next(ep->state, op, &next))
		return false;
	if (next != ep->state)
		trace_kdapl_ep_state(kdapl_obj_handle(&ep->base), ep->state,
				     next, op);
	ep->state = next;
	return true;
}

/**
 * kdapl_ep_post_conn() - post a connection event on the connect EVD
 * @ep: the EP
 * @num: DAT_CONNECTION_EVENT_*
 *
 * The event's private data points at @ep->peer_pdata.
 * Context: any context.
 */
void kdapl_ep_post_conn(struct kdapl_ep *ep, DAT_EVENT_NUMBER num)
{
	DAT_EVENT ev = { .event_number = num };
	DAT_CONNECTION_EVENT_DATA *d = &ev.event_data.connect_event_data;

	d->ep_handle = kdapl_obj_handle(&ep->base);
	d->private_data_size = ep->peer_pdata_len;
	d->private_data = ep->peer_pdata_len ? ep->peer_pdata : NULL;
	trace_kdapl_conn_event(d->ep_handle, num, d->private_data_size);
	if (ep->connect_evd)
		kdapl_evd_post(ep->connect_evd, &ev);
}

/**
 * kdapl_ep_queue() - have the EP's work item do something
 * @ep: the EP
 * @act: the action
 *
 * The queued work holds a reference on the EP.
 * Context: any context.
 */
void kdapl_ep_queue(struct kdapl_ep *ep, enum kdapl_ep_action act)
{
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	__set_bit(act, &ep->actions);
	spin_unlock_irqrestore(&ep->lock, flags);
	kdapl_hobj_ref(&ep->base.hobj);
	if (!queue_work(kdapl_wq, &ep->work))
		kdapl_obj_put(&ep->base);
}

/*
 * The connect timeout or the bounded disconnect wait. Softirq context.
 * An older arming that fires late finds jiffies before the deadline.
 * A graceful disconnect that runs out of time is ended by the EP's work
 * (KDAPL_EP_ACT_DISC_TIMEOUT), which must sleep: the QP goes to ERROR
 * and is drained before the event, so the consumer gets every flush
 * first (seed 002: complete only once all DMA is done).
 */
static void kdapl_ep_timer(struct timer_list *t)
{
	struct kdapl_ep *ep = from_timer(ep, t, timer);
	DAT_EVENT_NUMBER num = 0;
	unsigned long flags;
	DAT_EP_STATE was;

	spin_lock_irqsave(&ep->lock, flags);
	if (time_before(jiffies, ep->deadline)) {
		spin_unlock_irqrestore(&ep->lock, flags);
		return;
	}
	was = ep->state;
	if (was == DAT_EP_STATE_DISCONNECT_PENDING && !ep->disc_forcing) {
		/*
		 * The work ends it after the drain; should the drain not
		 * return, the same bound once more ends it here.
		 */
		ep->disc_forcing = true;
		kdapl_ep_arm_timer(ep, kdapl_disconnect_timeout_us());
		spin_unlock_irqrestore(&ep->lock, flags);
		kdapl_ep_queue(ep, KDAPL_EP_ACT_DISC_TIMEOUT);
		return;
	}
	if (was == DAT_EP_STATE_ACTIVE_CONNECTION_PENDING && ep->iws) {
		/*
		 * A socket connect: the provider may have read the Reply
		 * already; the EP's work asks it (cm.c, ep_do_iws_timeout).
		 */
		spin_unlock_irqrestore(&ep->lock, flags);
		kdapl_ep_queue(ep, KDAPL_EP_ACT_IWS_TIMEOUT);
		return;
	}
	if (!kdapl_ep_move(ep, KDAPL_EP_EV_TIMEOUT)) {
		spin_unlock_irqrestore(&ep->lock, flags);
		return;
	}
	/*
	 * seed 003: a remote host that did not respond within the time-out
	 * is UNREACHABLE (its address never resolved); a connection not
	 * established by then is TIMED_OUT.
	 */
	if (was != DAT_EP_STATE_ACTIVE_CONNECTION_PENDING)
		num = DAT_CONNECTION_EVENT_BROKEN;
	else if (!ep->iws && !ep->addr_resolved)
		num = DAT_CONNECTION_EVENT_UNREACHABLE;
	else
		num = DAT_CONNECTION_EVENT_TIMED_OUT;
	ep->peer_pdata_len = 0;
	spin_unlock_irqrestore(&ep->lock, flags);
	if (num)
		kdapl_ep_post_conn(ep, num);
	kdapl_ep_queue(ep, KDAPL_EP_ACT_ABORT);
}

/**
 * kdapl_ep_arm_timer() - start the EP's timer
 * @ep: the EP, its lock held
 * @usec: microseconds, or DAT_TIMEOUT_INFINITE (no timer)
 */
void kdapl_ep_arm_timer(struct kdapl_ep *ep, DAT_TIMEOUT usec)
{
	lockdep_assert_held(&ep->lock);
	ep->timed = usec != DAT_TIMEOUT_INFINITE;
	if (!ep->timed) {
		ep->deadline = jiffies + MAX_JIFFY_OFFSET;
		del_timer(&ep->timer);
		return;
	}
	ep->deadline = jiffies + usecs_to_jiffies(usec);
	mod_timer(&ep->timer, ep->deadline);
}

/**
 * kdapl_ep_break() - the QP failed under a connection
 * @ep: the EP
 *
 * A CONNECTED EP goes DISCONNECTED with DAT_CONNECTION_EVENT_BROKEN and
 * the connection is aborted; in any other state nothing happens (the
 * connection's own outcome is reported, or was). Callers: a fatal QP
 * event, and a work completion in error other than a flush: over IB and
 * RoCE the transport says nothing else (a remote access error NAKs the
 * request and moves both QPs to ERROR while the CM connection stays),
 * over iWARP it comes before the TERMINATE's close.
 *
 * Context: any context; takes ep->lock.
 */
void kdapl_ep_break(struct kdapl_ep *ep)
{
	unsigned long flags;
	bool broken;

	spin_lock_irqsave(&ep->lock, flags);
	broken = ep->state == DAT_EP_STATE_CONNECTED &&
		 kdapl_ep_move(ep, KDAPL_EP_EV_CM_BROKEN);
	spin_unlock_irqrestore(&ep->lock, flags);
	if (broken) {
		ep->peer_pdata_len = 0;
		kdapl_ep_post_conn(ep, DAT_CONNECTION_EVENT_BROKEN);
		kdapl_ep_queue(ep, KDAPL_EP_ACT_ABORT);
	}
}

/* An asynchronous QP event: a QP error breaks the connection. */
static void kdapl_ep_qp_event(struct ib_event *ibev, void *ctx)
{
	switch (ibev->event) {
	case IB_EVENT_QP_FATAL:
	case IB_EVENT_QP_REQ_ERR:
	case IB_EVENT_QP_ACCESS_ERR:
		kdapl_ep_break(ctx);
		break;
	default:
		break;
	}
}

/*
 * IB and RoCE: a QP takes receives from INIT on, so a new QP goes there
 * at once, on the provider's port with the first P_Key and no remote
 * access, as rdma_create_qp() leaves one (cma_init_conn_qp()); connect
 * and accept move it on with the connection's own attributes
 * (kdapl_ep_qp_ready() in cm.c). An iWARP QP takes receives while idle
 * (RESET) and iw_cm moves it when the connection is up.
 */
static int kdapl_ep_qp_init(struct kdapl_ep *ep, struct ib_qp *qp)
{
	struct ib_qp_attr qa = {
		.qp_state = IB_QPS_INIT,
		.pkey_index = 0,
		.port_num = ep->base.ia->prov->port,
		.qp_access_flags = 0,
	};

	if (ep->base.ia->prov->iwarp)
		return 0;
	return ib_modify_qp(qp, &qa, IB_QP_STATE | IB_QP_PKEY_INDEX |
			    IB_QP_PORT | IB_QP_ACCESS_FLAGS);
}

static bool kdapl_ep_configured(struct kdapl_ep *ep)
{
	return ep->pz && ep->recv_evd && ep->request_evd && ep->connect_evd;
}

/*
 * Create the QP of a configured EP. Caller holds ia->lock (the device is
 * present and the IA open) and ep->cm_mutex.
 */
static DAT_RETURN kdapl_ep_qp_create(struct kdapl_ep *ep)
{
	struct ib_qp_init_attr qa = {
		.event_handler = kdapl_ep_qp_event,
		.qp_context = ep,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	struct ib_qp *qp;
	int err;

	lockdep_assert_held(&ep->base.ia->lock);
	lockdep_assert_held(&ep->cm_mutex);
	if (!ep->pz->pd || !ep->recv_evd->cq || !ep->request_evd->cq)
		return DAT_ERROR(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
	qa.send_cq = ep->request_evd->cq;
	qa.recv_cq = ep->recv_evd->cq;
	qa.cap.max_send_wr = ep->attr.max_request_dtos + KDAPL_EP_SQ_EXTRA;
	qa.cap.max_recv_wr = ep->attr.max_recv_dtos + 1;
	qa.cap.max_send_sge = ep->attr.max_request_iov;
	qa.cap.max_recv_sge = ep->attr.max_recv_iov;

	err = kdapl_ep_wrs_alloc(ep);
	if (err)
		return DAT_ERROR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	qp = ib_create_qp(ep->pz->pd, &qa);
	if (IS_ERR(qp)) {
		kdapl_ep_wrs_free(ep);
		return DAT_ERROR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP);
	}
	err = kdapl_ep_qp_init(ep, qp);
	if (err) {
		/* Nothing was posted on it: no drain. */
		ib_destroy_qp(qp);
		kdapl_ep_wrs_free(ep);
		return DAT_ERROR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_TEP);
	}
	spin_lock_irq(&ep->lock);
	ep->qp = qp;
	ep->drained = false;	/* its flushes are to come */
	ep->recv_out = 0;
	spin_unlock_irq(&ep->lock);
	return DAT_SUCCESS;
}

/*
 * Destroy the EP's cm_id and QP: work in flight is flushed to the EVDs
 * (ib_drain_qp), so every work request context has come back. Caller
 * holds ep->cm_mutex and, for the QP, ia->lock with the device present.
 */
static void kdapl_ep_qp_destroy(struct kdapl_ep *ep)
{
	struct rdma_cm_id *id = ep->cm_id;
	struct ib_qp *qp = ep->qp;
	struct kdapl_iws *iws;

	lockdep_assert_held(&ep->cm_mutex);
	if (id) {
		/*
		 * iw_cm holds a connect's cm_id until the provider answers
		 * (CONNECT_REPLY): a QP in ERROR tells kiwarp to give up the
		 * connect now rather than at its MPA time-out. The drain
		 * below flushes whatever the QP held anyway.
		 */
		if (qp) {
			struct ib_qp_attr qa = { .qp_state = IB_QPS_ERR };

			ib_modify_qp(qp, &qa, IB_QP_STATE);
		}
		ep->cm_id = NULL;
		rdma_destroy_id(id);
	}
	spin_lock_irq(&ep->lock);
	iws = ep->iws;
	ep->iws = NULL;
	spin_unlock_irq(&ep->lock);
	if (iws)	/* before the QP: no event may find it gone */
		kdapl_iws_release(iws);
	if (!qp)
		return;
	spin_lock_irq(&ep->lock);
	ep->qp = NULL;		/* posts from here on find no QP */
	spin_unlock_irq(&ep->lock);
	ib_drain_qp(qp);
	kdapl_dto_reclaim_all(ep);
	/* Registrations posted on it and not seen completing are stale. */
	if (ep->pz)
		kdapl_lmr_qp_gone(ep->pz, qp);
	ib_destroy_qp(qp);
	kdapl_ep_wrs_free(ep);
}

/*
 * A pending socket connect ends with its IA: is the socket back? The
 * provider gives it back unless it read the Reply first; then what came
 * of it reached kdapl_ep_iws_event() meanwhile, and only an ESTABLISHED
 * (ep->iws_bound) took the socket. cm_mutex held.
 */
static bool ep_iws_end(struct kdapl_ep *ep)
{
	struct kdapl_iws *iws;
	bool back;

	spin_lock_irq(&ep->lock);
	iws = ep->iws;
	ep->iws = NULL;
	spin_unlock_irq(&ep->lock);
	if (!iws)
		return false;
	back = !kdapl_iws_give_back(iws);
	if (!back) {
		spin_lock_irq(&ep->lock);
		back = !ep->iws_bound;
		spin_unlock_irq(&ep->lock);
	}
	kdapl_iws_release(iws);
	return back;
}

/**
 * kdapl_ep_release_device() - give back the EP's device resources
 * @ep: an EP of an IA that is dead or closing
 *
 * The connection is over: a connected EP goes DISCONNECTED with a BROKEN
 * event. A socket connect still pending ends with DISCONNECTED if its
 * socket came back (as an abrupt disconnect's), BROKEN if the provider
 * had bound it (socket_transfer.rst). The EP object stays until it is
 * freed.
 *
 * Context: process context, ia->lock held.
 */
void kdapl_ep_release_device(struct kdapl_ep *ep)
{
	DAT_EVENT_NUMBER num = DAT_CONNECTION_EVENT_BROKEN;
	bool broken = false, iws_pending;

	lockdep_assert_held(&ep->base.ia->lock);
	del_timer_sync(&ep->timer);
	mutex_lock(&ep->cm_mutex);
	spin_lock_irq(&ep->lock);
	iws_pending = ep->iws &&
		      ep->state == DAT_EP_STATE_ACTIVE_CONNECTION_PENDING;
	switch (ep->state) {
	case DAT_EP_STATE_DISCONNECT_PENDING:
		/*
		 * A BROKEN would leave a graceful disconnect pending for a
		 * drain that no work will run (the IA is dead): end it now.
		 */
		broken = kdapl_ep_move(ep, KDAPL_EP_EV_TIMEOUT);
		break;
	case DAT_EP_STATE_CONNECTED:
	case DAT_EP_STATE_ACTIVE_CONNECTION_PENDING:
	case DAT_EP_STATE_COMPLETION_PENDING:
		broken = kdapl_ep_move(ep, KDAPL_EP_EV_CM_BROKEN);
		break;
	default:
		break;
	}
	spin_unlock_irq(&ep->lock);
	if (broken && iws_pending && ep_iws_end(ep))
		num = DAT_CONNECTION_EVENT_DISCONNECTED;
	kdapl_ep_qp_destroy(ep);
	mutex_unlock(&ep->cm_mutex);
	if (broken) {
		ep->peer_pdata_len = 0;
		kdapl_ep_post_conn(ep, num);
	}
}

static void kdapl_ep_release(struct kdapl_hobj *h)
{
	struct kdapl_ep *ep = container_of(h, struct kdapl_ep, base.hobj);

	WARN_ON_ONCE(ep->qp || ep->cm_id || ep->spare_id || ep->wrs ||
		     ep->iws);
	kdapl_obj_put(&ep->base.ia->base);
	kfree_rcu(ep, base.hobj.rcu);	/* handle lookups run under RCU */
}

/* Drop the EP's hold on an EVD or PZ. */
static void evd_unuse(struct kdapl_evd *evd)
{
	if (evd) {
		atomic_dec(&evd->users);
		kdapl_obj_put(&evd->base);
	}
}

static void pz_unuse(struct kdapl_pz *pz)
{
	if (pz) {
		atomic_dec(&pz->users);
		kdapl_obj_put(&pz->base);
	}
}

/* Drop the lookup references of dat_ep_create()/dat_ep_modify(). */
static void put_lookups(struct kdapl_pz *pz, struct kdapl_evd *recv,
			struct kdapl_evd *req, struct kdapl_evd *conn)
{
	if (pz)
		kdapl_obj_put(&pz->base);
	if (recv)
		kdapl_obj_put(&recv->base);
	if (req)
		kdapl_obj_put(&req->base);
	if (conn)
		kdapl_obj_put(&conn->base);
}

/*
 * Fill in defaults and check the attributes against the device. The
 * RDMA Read depths have none here: 0 asks for no RDMA Reads (seed 000,
 * 3.1.4.1); kdapl_ep_new() picks them when the consumer gave no
 * attributes.
 */
static DAT_RETURN kdapl_ep_attr_check(struct kdapl_ia *ia, DAT_EP_ATTR *a)
{
	const struct ib_device_attr *d = &ia->prov->attrs;

	if (a->service_type != DAT_SERVICE_TYPE_RC)
		return DAT_ERROR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
	if (!a->max_recv_dtos)
		a->max_recv_dtos = KDAPL_EP_DEF_DTOS;
	if (!a->max_request_dtos)
		a->max_request_dtos = KDAPL_EP_DEF_DTOS;
	if (!a->max_recv_iov)
		a->max_recv_iov = KDAPL_EP_DEF_IOV;
	if (!a->max_request_iov)
		a->max_request_iov = KDAPL_EP_DEF_IOV;
	if (!a->max_rdma_read_iov)
		a->max_rdma_read_iov = min_t(int, a->max_request_iov,
					     d->max_sge_rd);
	if (!a->max_rdma_write_iov)
		a->max_rdma_write_iov = a->max_request_iov;
	if (!a->max_message_size)
		a->max_message_size = ia->prov->max_msg_sz;
	if (!a->max_rdma_size)
		a->max_rdma_size = ia->prov->max_msg_sz;

	if (a->max_recv_iov > KDAPL_MAX_IOV ||
	    a->max_request_iov > KDAPL_MAX_IOV ||
	    a->max_recv_dtos < 0 || a->max_request_dtos < 0 ||
	    a->max_recv_iov < 0 || a->max_request_iov < 0 ||
	    a->max_rdma_read_in < 0 || a->max_rdma_read_out < 0 ||
	    a->max_rdma_read_iov < 0 || a->max_rdma_write_iov < 0 ||
	    a->max_recv_dtos + 1 > d->max_qp_wr ||
	    a->max_request_dtos + KDAPL_EP_SQ_EXTRA > d->max_qp_wr ||
	    a->max_recv_iov > d->max_recv_sge ||
	    a->max_request_iov > d->max_send_sge ||
	    a->max_rdma_read_iov > d->max_sge_rd ||
	    a->max_rdma_write_iov > a->max_request_iov ||
	    a->max_rdma_read_in > d->max_qp_rd_atom ||
	    a->max_rdma_read_out > d->max_qp_init_rd_atom ||
	    a->max_message_size > ia->prov->max_msg_sz ||
	    a->max_rdma_size > ia->prov->max_msg_sz)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
	return DAT_SUCCESS;
}

/* Look up an optional EVD handle; NULL handle gives NULL. */
static DAT_RETURN evd_lookup(struct kdapl_ia *ia, DAT_EVD_HANDLE h,
			     DAT_EVD_FLAGS need, enum dat_return_subtype sub,
			     struct kdapl_evd **evdp)
{
	struct kdapl_evd *evd;

	*evdp = NULL;
	if (!h)
		return DAT_SUCCESS;
	evd = kdapl_evd_get(h);
	if (!evd)
		return DAT_ERROR(DAT_INVALID_HANDLE, sub);
	if (evd->base.ia != ia || !(evd->flags & need)) {
		kdapl_obj_put(&evd->base);
		return DAT_ERROR(DAT_INVALID_HANDLE, sub);
	}
	*evdp = evd;
	return DAT_SUCCESS;
}

static DAT_RETURN pz_lookup(struct kdapl_ia *ia, DAT_PZ_HANDLE h,
			    struct kdapl_pz **pzp)
{
	struct kdapl_obj *o;

	*pzp = NULL;
	if (!h)
		return DAT_SUCCESS;
	o = kdapl_obj_get(h, KDAPL_HT_PZ);
	if (!o)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
	if (o->ia != ia) {
		kdapl_obj_put(o);
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
	}
	*pzp = container_of(o, struct kdapl_pz, base);
	return DAT_SUCCESS;
}

/*
 * Are the objects an EP is about to use still valid? Asked under the
 * IA's lock, which their free paths take to check their users and
 * remove their handles (dat_pz_free(), dat_evd_free()): a PZ or EVD
 * looked up before the lock and freed since is never attached.
 */
static DAT_RETURN ep_refs_present(struct kdapl_pz *pz, struct kdapl_evd *recv,
				  struct kdapl_evd *req,
				  struct kdapl_evd *conn)
{
	if (pz && !kdapl_hobj_present(&kdapl.handles, &pz->base.hobj))
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
	if (recv && !kdapl_hobj_present(&kdapl.handles, &recv->base.hobj))
		return DAT_ERROR(DAT_INVALID_HANDLE,
				 DAT_INVALID_HANDLE_EVD_RECV);
	if (req && !kdapl_hobj_present(&kdapl.handles, &req->base.hobj))
		return DAT_ERROR(DAT_INVALID_HANDLE,
				 DAT_INVALID_HANDLE_EVD_REQUEST);
	if (conn && !kdapl_hobj_present(&kdapl.handles, &conn->base.hobj))
		return DAT_ERROR(DAT_INVALID_HANDLE,
				 DAT_INVALID_HANDLE_EVD_CONN);
	return DAT_SUCCESS;
}

/**
 * kdapl_ep_new() - create an endpoint
 * @ia: the IA; its lock held, open and alive
 * @pz: PZ or NULL; the EP takes over the caller's reference
 * @recv: receive EVD or NULL; taken over likewise
 * @req: request EVD or NULL; taken over likewise
 * @conn: connect EVD or NULL; taken over likewise
 * @attr: attributes (defaults filled in, checked), or NULL for defaults
 * @provider_ep: a PSP creates it for a request
 * @epp: set to the new EP (the caller owns the creator's reference)
 *
 * On failure the references passed in are dropped.
 *
 * Context: process context, ia->lock held.
 */
DAT_RETURN kdapl_ep_new(struct kdapl_ia *ia, struct kdapl_pz *pz,
			struct kdapl_evd *recv, struct kdapl_evd *req,
			struct kdapl_evd *conn, const DAT_EP_ATTR *attr,
			bool provider_ep, struct kdapl_ep **epp)
{
	struct kdapl_ep *ep;
	DAT_RETURN ret;

	lockdep_assert_held(&ia->lock);
	ret = ep_refs_present(pz, recv, req, conn);
	if (ret != DAT_SUCCESS)
		goto err_refs;
	ep = kzalloc(sizeof(*ep), GFP_KERNEL);
	if (!ep) {
		ret = DAT_ERROR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
		goto err_refs;
	}
	if (attr) {
		ep->attr = *attr;
	} else {
		const struct ib_device_attr *d = &ia->prov->attrs;

		/* No attributes: the provider's choice (seed 000, 3.1.4.2). */
		ep->attr.service_type = DAT_SERVICE_TYPE_RC;
		ep->attr.max_rdma_read_in = min(KDAPL_EP_DEF_RDMA_READ,
						d->max_qp_rd_atom);
		ep->attr.max_rdma_read_out = min(KDAPL_EP_DEF_RDMA_READ,
						 d->max_qp_init_rd_atom);
	}
	ret = kdapl_ep_attr_check(ia, &ep->attr);
	if (ret != DAT_SUCCESS)
		goto err_free;
	ep->rd_in_want = ep->attr.max_rdma_read_in;
	ep->rd_out_want = ep->attr.max_rdma_read_out;
	ret = kdapl_ia_child_get(ia);
	if (ret != DAT_SUCCESS)
		goto err_free;

	spin_lock_init(&ep->lock);
	spin_lock_init(&ep->base.ctx_lock);
	mutex_init(&ep->cm_mutex);
	INIT_WORK(&ep->work, kdapl_ep_work);
	timer_setup(&ep->timer, kdapl_ep_timer, 0);
	ep->base.ia = ia;
	ep->provider_ep = provider_ep;
	ep->free_wr = U32_MAX;
	ep->held_head = U32_MAX;
	ep->held_tail = U32_MAX;
	ep->unsig_head = U32_MAX;
	ep->unsig_tail = U32_MAX;
	ep->pz = pz;
	ep->recv_evd = recv;
	ep->request_evd = req;
	ep->connect_evd = conn;
	if (pz)
		atomic_inc(&pz->users);
	if (recv)
		atomic_inc(&recv->users);
	if (req)
		atomic_inc(&req->users);
	if (conn)
		atomic_inc(&conn->users);
	ep->state = kdapl_ep_configured(ep) ? DAT_EP_STATE_UNCONNECTED :
		    DAT_EP_STATE_UNCONFIGURED_UNCONNECTED;

	if (ep->state == DAT_EP_STATE_UNCONNECTED) {
		mutex_lock(&ep->cm_mutex);
		ret = kdapl_ep_qp_create(ep);
		mutex_unlock(&ep->cm_mutex);
		if (ret != DAT_SUCCESS)
			goto err_child;
	}
	if (kdapl_hobj_add(&kdapl.handles, &ep->base.hobj, KDAPL_HT_EP,
			   kdapl_ep_release, GFP_KERNEL)) {
		ret = DAT_ERROR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
		mutex_lock(&ep->cm_mutex);
		kdapl_ep_qp_destroy(ep);
		mutex_unlock(&ep->cm_mutex);
		goto err_child;
	}
	list_add_tail(&ep->node, &ia->eps);
	spin_lock_irq(&ep_list_lock);
	list_add_tail(&ep->all, &ep_list);
	spin_unlock_irq(&ep_list_lock);
	*epp = ep;
	return DAT_SUCCESS;

err_child:
	kdapl_ia_child_gone(ia);
	kdapl_obj_put(&ia->base);
	pz_unuse(pz);
	evd_unuse(recv);
	evd_unuse(req);
	evd_unuse(conn);
	kfree(ep);
	return ret;
err_free:
	kfree(ep);
err_refs:
	put_lookups(pz, recv, req, conn);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(kdapl_ep_new, KDAPL_INTERNAL);

/**
 * dat_ep_create() - create an endpoint
 * @ia_handle: the IA
 * @pz_handle: PZ, or DAT_HANDLE_NULL (the EP then has no QP until a
 *	dat_ep_modify() gives it a PZ)
 * @recv_evd_handle: DTO EVD for receive completions, or DAT_HANDLE_NULL
 * @request_evd_handle: DTO EVD for request completions, or DAT_HANDLE_NULL
 * @connect_evd_handle: connection EVD, or DAT_HANDLE_NULL
 * @ep_attributes: attributes; NULL or 0 fields take kdapl's defaults
 * @ep_handle: set to the new EP
 *
 * Return: DAT_SUCCESS, DAT_INVALID_HANDLE, DAT_INVALID_PARAMETER,
 * DAT_INVALID_STATE (device gone), DAT_MODEL_NOT_SUPPORTED (service type
 * other than RC), DAT_INSUFFICIENT_RESOURCES.
 * Context: process context; sleeps.
 */
DAT_RETURN dat_ep_create(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE pz_handle,
			 DAT_EVD_HANDLE recv_evd_handle,
			 DAT_EVD_HANDLE request_evd_handle,
			 DAT_EVD_HANDLE connect_evd_handle,
			 const DAT_EP_ATTR *ep_attributes,
			 DAT_EP_HANDLE *ep_handle)
{
	struct kdapl_evd *recv = NULL, *req = NULL, *conn = NULL;
	struct kdapl_pz *pz = NULL;
	struct kdapl_ep *ep;
	struct kdapl_ia *ia;
	DAT_RETURN ret;

	if (!ep_handle)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG7);
	ia = kdapl_ia_get(ia_handle);
	if (!ia)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	ret = pz_lookup(ia, pz_handle, &pz);
	if (ret == DAT_SUCCESS)
		ret = evd_lookup(ia, recv_evd_handle, DAT_EVD_DTO_FLAG,
				 DAT_INVALID_HANDLE_EVD_RECV, &recv);
	if (ret == DAT_SUCCESS)
		ret = evd_lookup(ia, request_evd_handle, DAT_EVD_DTO_FLAG,
				 DAT_INVALID_HANDLE_EVD_REQUEST, &req);
	if (ret == DAT_SUCCESS)
		ret = evd_lookup(ia, connect_evd_handle,
				 DAT_EVD_CONNECTION_FLAG,
				 DAT_INVALID_HANDLE_EVD_CONN, &conn);
	if (ret != DAT_SUCCESS) {
		put_lookups(pz, recv, req, conn);
		kdapl_obj_put(&ia->base);
		return ret;
	}

	mutex_lock(&ia->lock);
	ret = kdapl_ep_new(ia, pz, recv, req, conn, ep_attributes, false, &ep);
	if (ret == DAT_SUCCESS) {
		/* ours: an abrupt dat_ia_close may destroy it meanwhile */
		kdapl_hobj_ref(&ep->base.hobj);
		*ep_handle = kdapl_obj_handle(&ep->base);
	}
	mutex_unlock(&ia->lock);
	if (ret == DAT_SUCCESS) {
		kdapl_ep_spare_fill(ep);	/* for dat_ep_connect() */
		kdapl_obj_put(&ep->base);
	}
	kdapl_obj_put(&ia->base);
	return ret;
}
EXPORT_SYMBOL_GPL(dat_ep_create);

static DAT_PORT_QUAL sockaddr_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)ss)->sin_port);
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return 0;
}

static void *evd_handle(struct kdapl_evd *evd)
{
	return evd ? kdapl_obj_handle(&evd->base) : NULL;
}

/**
 * dat_ep_query() - query an endpoint
 * @ep_handle: the EP
 * @ep_param_mask: DAT_EP_FIELD_* bits wanted
 * @ep_param: filled with the requested fields; the address pointers point
 *	into the EP and stay valid until it is freed
 *
 * Return: DAT_SUCCESS, DAT_INVALID_HANDLE, DAT_INVALID_PARAMETER.
 * Context: any context.
 */
DAT_RETURN dat_ep_query(DAT_EP_HANDLE ep_handle,
			DAT_EP_PARAM_MASK ep_param_mask,
			DAT_EP_PARAM *ep_param)
{
	struct kdapl_ep *ep;
	unsigned long flags;

	if (ep_param_mask & ~DAT_EP_FIELD_ALL)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!ep_param)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	ep = kdapl_ep_get(ep_handle);
	if (!ep)
		return bad_ep();

	spin_lock_irqsave(&ep->lock, flags);
	if (ep_param_mask & DAT_EP_FIELD_IA_HANDLE)
		ep_param->ia_handle = kdapl_obj_handle(&ep->base.ia->base);
	if (ep_param_mask & DAT_EP_FIELD_EP_STATE)
		ep_param->ep_state = ep->state;
	if (ep_param_mask & DAT_EP_FIELD_COMM)
		memset(&ep_param->comm, 0, sizeof(ep_param->comm));
	if (ep_param_mask & DAT_EP_FIELD_LOCAL_IA_ADDRESS_PTR)
		ep_param->local_ia_address_ptr = (struct sockaddr *)&ep->local;
	if (ep_param_mask & DAT_EP_FIELD_LOCAL_PORT_QUAL)
		ep_param->local_port_qual = sockaddr_port(&ep->local);
	if (ep_param_mask & DAT_EP_FIELD_REMOTE_IA_ADDRESS_PTR)
		ep_param->remote_ia_address_ptr =
			(struct sockaddr *)&ep->remote;
	if (ep_param_mask & DAT_EP_FIELD_REMOTE_PORT_QUAL)
		ep_param->remote_port_qual = sockaddr_port(&ep->remote);
	if (ep_param_mask & DAT_EP_FIELD_PZ_HANDLE)
		ep_param->pz_handle = ep->pz ? kdapl_obj_handle(&ep->pz->base) :
				      NULL;
	if (ep_param_mask & DAT_EP_FIELD_RECV_EVD_HANDLE)
		ep_param->recv_evd_handle = evd_handle(ep->recv_evd);
	if (ep_param_mask & DAT_EP_FIELD_REQUEST_EVD_HANDLE)
		ep_param->request_evd_handle = evd_handle(ep->request_evd);
	if (ep_param_mask & DAT_EP_FIELD_CONNECT_EVD_HANDLE)
		ep_param->connect_evd_handle = evd_handle(ep->connect_evd);
	if (ep_param_mask & DAT_EP_FIELD_SRQ_HANDLE)
		ep_param->srq_handle = NULL;
	if (ep_param_mask & DAT_EP_FIELD_EP_ATTR_ALL)
		ep_param->ep_attr = ep->attr;
	spin_unlock_irqrestore(&ep->lock, flags);

	kdapl_obj_put(&ep->base);
	return DAT_SUCCESS;
}
EXPORT_SYMBOL_GPL(dat_ep_query);

/* The attribute fields dat_ep_modify() can change (not the counts of
 * named attributes, which kdapl has none of).
 */
#define EP_MODIFY_ATTR	(DAT_EP_FIELD_EP_ATTR_ALL & \
			 ~(DAT_EP_FIELD_EP_ATTR_NUM_TRANSPORT_ATTR | \
			   DAT_EP_FIELD_EP_ATTR_TRANSPORT_SPECIFIC_ATTR | \
			   DAT_EP_FIELD_EP_ATTR_NUM_PROVIDER_ATTR | \
			   DAT_EP_FIELD_EP_ATTR_PROVIDER_SPECIFIC_ATTR))
#define EP_MODIFY_OK	(DAT_EP_FIELD_PZ_HANDLE | \
			 DAT_EP_FIELD_RECV_EVD_HANDLE | \
			 DAT_EP_FIELD_REQUEST_EVD_HANDLE | \
			 DAT_EP_FIELD_CONNECT_EVD_HANDLE | EP_MODIFY_ATTR)

/* Copy the attribute fields named in @m from @src to @dst. */
static void ep_attr_merge(DAT_EP_ATTR *dst, const DAT_EP_ATTR *src,
			  DAT_EP_PARAM_MASK m)
{
	if (m & DAT_EP_FIELD_EP_ATTR_SERVICE_TYPE)
		dst->service_type = src->service_type;
	if (m & DAT_EP_FIELD_EP_ATTR_MAX_MESSAGE_SIZE)
		dst->max_message_size = src->max_message_size;
	if (m & DAT_EP_FIELD_EP_ATTR_MAX_RDMA_SIZE)
		dst->max_rdma_size = src->max_rdma_size;
	if (m & DAT_EP_FIELD_EP_ATTR_QOS)
		dst->qos = src->qos;
	if (m & DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS)
		dst->recv_completion_flags = src->recv_completion_flags;
	if (m & DAT_EP_FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS)
		dst->request_completion_flags = src->request_completion_flags;
	if (m & DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS)
		dst->max_recv_dtos = src->max_recv_dtos;
	if (m & DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_DTOS)
		dst->max_request_dtos = src->max_request_dtos;
	if (m & DAT_EP_FIELD_EP_ATTR_MAX_RECV_IOV)
		dst->max_recv_iov = src->max_recv_iov;
	if (m & DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_IOV)
		dst->max_request_iov = src->max_request_iov;
	if (m & DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IN)
		dst->max_rdma_read_in = src->max_rdma_read_in;
	if (m & DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_OUT)
		dst->max_rdma_read_out = src->max_rdma_read_out;
	if (m & DAT_EP_FIELD_EP_ATTR_SRQ_SOFT_HW)
		dst->srq_soft_hw = src->srq_soft_hw;
	if (m & DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IOV)
		dst->max_rdma_read_iov = src->max_rdma_read_iov;
	if (m & DAT_EP_FIELD_EP_ATTR_MAX_RDMA_WRITE_IOV)
		dst->max_rdma_write_iov = src->max_rdma_write_iov;
}

/* Swap an EVD slot of the EP; the old one's hold is dropped. */
static void ep_swap_evd(struct kdapl_evd **slot, struct kdapl_evd *evd)
{
	evd_unuse(*slot);
	if (evd)
		atomic_inc(&evd->users);
	*slot = evd;
}

/**
 * dat_ep_modify() - change endpoint parameters
 * @ep_handle: the EP
 * @ep_param_mask: what to change: the PZ, the EVDs, attributes
 * @ep_param: the new values
 *
 * Allowed before a connection is requested or accepted (see the state
 * table). A change of PZ, EVDs or queue sizes replaces the QP; receives
 * posted on the old one are flushed to the receive EVD.
 *
 * Return: DAT_SUCCESS, DAT_INVALID_HANDLE, DAT_INVALID_PARAMETER,
 * DAT_INVALID_STATE, DAT_INSUFFICIENT_RESOURCES.
 * Context: process context; sleeps.
 */
DAT_RETURN dat_ep_modify(DAT_EP_HANDLE ep_handle,
			 DAT_EP_PARAM_MASK ep_param_mask,
			 const DAT_EP_PARAM *ep_param)
{
	struct kdapl_evd *recv = NULL, *req = NULL, *conn = NULL;
	struct kdapl_pz *pz = NULL;
	DAT_EP_ATTR attr;
	struct kdapl_ep *ep;
	struct kdapl_ia *ia;
	enum kdapl_ep_op op;
	DAT_RETURN ret;
	bool was_cfg, is_cfg;

	if (!ep_param_mask || (ep_param_mask & ~EP_MODIFY_OK))
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!ep_param)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	ep = kdapl_ep_get(ep_handle);
	if (!ep)
		return bad_ep();
	ia = ep->base.ia;

	ret = DAT_SUCCESS;
	if (ep_param_mask & DAT_EP_FIELD_PZ_HANDLE)
		ret = pz_lookup(ia, ep_param->pz_handle, &pz);
	if (ret == DAT_SUCCESS && (ep_param_mask & DAT_EP_FIELD_RECV_EVD_HANDLE))
		ret = evd_lookup(ia, ep_param->recv_evd_handle,
				 DAT_EVD_DTO_FLAG,
				 DAT_INVALID_HANDLE_EVD_RECV, &recv);
	if (ret == DAT_SUCCESS &&
	    (ep_param_mask & DAT_EP_FIELD_REQUEST_EVD_HANDLE))
		ret = evd_lookup(ia, ep_param->request_evd_handle,
				 DAT_EVD_DTO_FLAG,
				 DAT_INVALID_HANDLE_EVD_REQUEST, &req);
	if (ret == DAT_SUCCESS &&
	    (ep_param_mask & DAT_EP_FIELD_CONNECT_EVD_HANDLE))
		ret = evd_lookup(ia, ep_param->connect_evd_handle,
				 DAT_EVD_CONNECTION_FLAG,
				 DAT_INVALID_HANDLE_EVD_CONN, &conn);
	if (ret != DAT_SUCCESS)
		goto out_refs;

	mutex_lock(&ia->lock);
	mutex_lock(&ep->cm_mutex);
	if (ia->dead || ia->state != KDAPL_IA_OPEN) {
		ret = DAT_ERROR(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
		goto out_unlock;
	}
	op = (ep_param_mask & ~EP_MODIFY_ATTR) ? KDAPL_EP_OP_MODIFY_PZ :
	     KDAPL_EP_OP_MODIFY;
	spin_lock_irq(&ep->lock);
	ret = kdapl_ep_state_check(ep->state, op);
	spin_unlock_irq(&ep->lock);
	if (ret == DAT_SUCCESS)
		ret = ep_refs_present(pz, recv, req, conn);
	if (ret != DAT_SUCCESS)
		goto out_unlock;
	attr = ep->attr;
	ep_attr_merge(&attr, &ep_param->ep_attr, ep_param_mask);
	ret = kdapl_ep_attr_check(ia, &attr);
	if (ret != DAT_SUCCESS) {
		ret = DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
		goto out_unlock;
	}

	/* The old QP goes; a new one comes if the EP is configured. */
	was_cfg = kdapl_ep_configured(ep);
	kdapl_ep_qp_destroy(ep);
	spin_lock_irq(&ep->lock);
	ep->attr = attr;
	ep->rd_in_want = attr.max_rdma_read_in;
	ep->rd_out_want = attr.max_rdma_read_out;
	spin_unlock_irq(&ep->lock);
	if (ep_param_mask & DAT_EP_FIELD_PZ_HANDLE) {
		pz_unuse(ep->pz);
		if (pz)
			atomic_inc(&pz->users);
		ep->pz = pz;
		pz = NULL;
	}
	if (ep_param_mask & DAT_EP_FIELD_RECV_EVD_HANDLE) {
		ep_swap_evd(&ep->recv_evd, recv);
		recv = NULL;
	}
	if (ep_param_mask & DAT_EP_FIELD_REQUEST_EVD_HANDLE) {
		ep_swap_evd(&ep->request_evd, req);
		req = NULL;
	}
	if (ep_param_mask & DAT_EP_FIELD_CONNECT_EVD_HANDLE) {
		ep_swap_evd(&ep->connect_evd, conn);
		conn = NULL;
	}
	is_cfg = kdapl_ep_configured(ep);
	if (is_cfg)
		ret = kdapl_ep_qp_create(ep);
	spin_lock_irq(&ep->lock);
	if (is_cfg && ret == DAT_SUCCESS && !was_cfg)
		kdapl_ep_move(ep, KDAPL_EP_EV_CONFIGURED);
	else if ((!is_cfg || ret != DAT_SUCCESS) && was_cfg)
		kdapl_ep_move(ep, KDAPL_EP_EV_UNCONFIGURED);
	spin_unlock_irq(&ep->lock);
out_unlock:
	mutex_unlock(&ep->cm_mutex);
	mutex_unlock(&ia->lock);
out_refs:
	put_lookups(pz, recv, req, conn);
	kdapl_obj_put(&ep->base);
	return ret;
}
EXPORT_SYMBOL_GPL(dat_ep_modify);

/**
 * dat_ep_get_status() - state and queue idleness of an endpoint
 * @ep_handle: the EP
 * @ep_state: set to the state, if not NULL
 * @recv_idle: set to whether no receive is outstanding, if not NULL
 * @request_idle: set to whether no request is outstanding, if not NULL
 *
 * Return: DAT_SUCCESS, DAT_INVALID_HANDLE.
 * Context: any context.
 */
DAT_RETURN dat_ep_get_status(DAT_EP_HANDLE ep_handle, DAT_EP_STATE *ep_state,
			     DAT_BOOLEAN *recv_idle,
			     DAT_BOOLEAN *request_idle)
{
	struct kdapl_ep *ep = kdapl_ep_get(ep_handle);
	unsigned long flags;
	u32 i, recv = 0, req = 0;

	if (!ep)
		return bad_ep();
	spin_lock_irqsave(&ep->lock, flags);
	if (ep_state)
		*ep_state = ep->state;
	for (i = 0; ep->wrs && i < ep->nr_wrs; i++) {
		if (ep->wrs[i].next != KDAPL_WR_BUSY)
			continue;	/* free */
		if (ep->wrs[i].op == DAT_DTO_RECEIVE)
			recv++;
		else
			req++;
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	if (recv_idle)
		*recv_idle = recv ? DAT_FALSE : DAT_TRUE;
	if (request_idle)
		*request_idle = req ? DAT_FALSE : DAT_TRUE;
	kdapl_obj_put(&ep->base);
	return DAT_SUCCESS;
}
EXPORT_SYMBOL_GPL(dat_ep_get_status);

/**
 * dat_ep_reset() - make a disconnected endpoint unconnected again
 * @ep_handle: the EP
 *
 * The connection's cm_id and QP go (outstanding work is flushed) and a
 * fresh QP is created. A no-op on an UNCONNECTED EP.
 *
 * Return: DAT_SUCCESS, DAT_INVALID_HANDLE, DAT_INVALID_STATE (also from
 * an upcall or other atomic context), DAT_INSUFFICIENT_RESOURCES (the EP
 * is then UNCONFIGURED).
 * Context: process context; sleeps.
 */
DAT_RETURN dat_ep_reset(DAT_EP_HANDLE ep_handle)
{
	struct kdapl_ep *ep = kdapl_ep_get(ep_handle);
	struct kdapl_ia *ia;
	DAT_RETURN ret;

	if (!ep)
		return bad_ep();
	if (!in_task()) {	/* it sleeps: not from an upcall */
		kdapl_obj_put(&ep->base);
		return DAT_ERROR(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
	}
	ia = ep->base.ia;
	/* Work the old connection queued must not act on the new one. */
	flush_work(&ep->work);
	mutex_lock(&ia->lock);
	mutex_lock(&ep->cm_mutex);
	spin_lock_irq(&ep->lock);
	ret = kdapl_ep_state_check(ep->state, KDAPL_EP_OP_RESET);
	spin_unlock_irq(&ep->lock);
	if (ret != DAT_SUCCESS || ep->state != DAT_EP_STATE_DISCONNECTED)
		goto out;
	if (ia->dead || ia->state != KDAPL_IA_OPEN) {
		ret = DAT_ERROR(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
		goto out;
	}
	del_timer_sync(&ep->timer);
	kdapl_ep_qp_destroy(ep);
	/*
	 * What the old connection queued, before or during the drain, is
	 * void: cleared here, and a work item that took it already drops it
	 * on seeing the new generation (kdapl_ep_work()).
	 */
	spin_lock_irq(&ep->lock);
	ep->actions = 0;
	ep->gen++;
	spin_unlock_irq(&ep->lock);
	ret = kdapl_ep_qp_create(ep);
	spin_lock_irq(&ep->lock);
	kdapl_ep_move(ep, KDAPL_EP_OP_RESET);
	if (ret != DAT_SUCCESS)
		kdapl_ep_move(ep, KDAPL_EP_EV_UNCONFIGURED);
	memset(&ep->remote, 0, sizeof(ep->remote));
	memset(&ep->local, 0, sizeof(ep->local));
	ep->peer_pdata_len = 0;
	ep->disc_peer_seen = false;
	ep->disc_broken = false;
	ep->disc_forcing = false;
	ep->disc_wait = false;
	ep->disc_asked = false;
	WARN_ON_ONCE(ep->sig_out);	/* the drain gave every one back */
	ep->attr.max_rdma_read_in = ep->rd_in_want;
	ep->attr.max_rdma_read_out = ep->rd_out_want;
	spin_unlock_irq(&ep->lock);
out:
	mutex_unlock(&ep->cm_mutex);
	mutex_unlock(&ia->lock);
	kdapl_ep_spare_fill(ep);	/* the next connect's, if none */
	kdapl_obj_put(&ep->base);
	return ret;
}
EXPORT_SYMBOL_GPL(dat_ep_reset);

/**
 * kdapl_ep_destroy() - destroy an endpoint in any state
 * @ep: the EP; the caller holds a reference of its own
 *
 * Removes the handle, aborts a connection, flushes and destroys the QP,
 * and drops what the EP holds. dat_ep_free() checks the state first; an
 * abrupt dat_ia_close() does not.
 *
 * Return: DAT_SUCCESS, or DAT_INVALID_HANDLE if someone else freed it.
 * Context: process context; sleeps. ia->lock not held.
 */
DAT_RETURN kdapl_ep_destroy(struct kdapl_ep *ep)
{
	struct kdapl_ia *ia = ep->base.ia;
	struct kdapl_cr *cr = NULL;
	bool removed;

	mutex_lock(&ia->lock);
	removed = kdapl_hobj_remove(&kdapl.handles, &ep->base.hobj);
	if (!removed) {
		mutex_unlock(&ia->lock);
		return bad_ep();
	}
	list_del_init(&ep->node);
	spin_lock_irq(&ep_list_lock);
	list_del_init(&ep->all);
	spin_unlock_irq(&ep_list_lock);
	del_timer_sync(&ep->timer);
	mutex_lock(&ep->cm_mutex);
	spin_lock_irq(&ep->lock);
	ep->state = DAT_EP_STATE_DISCONNECTED;
	ep->actions = 0;
	spin_unlock_irq(&ep->lock);
	if (ep->cr) {
		/* Accepted, but the accept did not run: drop the request. */
		if (ep->cr->cm_id)
			rdma_destroy_id(ep->cr->cm_id);
		ep->cr->cm_id = NULL;
		if (ep->cr->iws)
			kdapl_iws_release(ep->cr->iws);
		ep->cr->iws = NULL;
		kdapl_cr_done(ep->cr);
		cr = ep->cr;
		ep->cr = NULL;
	}
	if (!ia->dead)
		kdapl_ep_qp_destroy(ep);
	mutex_unlock(&ep->cm_mutex);
	mutex_unlock(&ia->lock);
	if (cr)
		kdapl_obj_put(&cr->base);

	/* Queued work finds no actions; wait for a running one. */
	flush_work(&ep->work);
	del_timer_sync(&ep->timer);
	kdapl_ep_spare_free(ep);	/* none is made after it */
	kdapl_ia_child_gone(ia);
	pz_unuse(ep->pz);
	evd_unuse(ep->recv_evd);
	evd_unuse(ep->request_evd);
	evd_unuse(ep->connect_evd);
	ep->pz = NULL;
	ep->recv_evd = NULL;
	ep->request_evd = NULL;
	ep->connect_evd = NULL;
	kdapl_obj_put(&ep->base);	/* the creator's reference */
	return DAT_SUCCESS;
}

/**
 * dat_ep_free() - destroy an endpoint
 * @ep_handle: the EP
 *
 * Refused while an RSP or a CR owns the EP (RESERVED, PASSIVE and
 * TENTATIVE CONNECTION_PENDING); elsewhere a connection is torn down
 * abruptly and outstanding work is flushed to the EVDs first.
 *
 * Return: DAT_SUCCESS, DAT_INVALID_HANDLE, DAT_INVALID_STATE.
 * Context: process context; sleeps.
 */
DAT_RETURN dat_ep_free(DAT_EP_HANDLE ep_handle)
{
	struct kdapl_ep *ep = kdapl_ep_get(ep_handle);
	DAT_RETURN ret;

	if (!ep)
		return bad_ep();
	if (!in_task()) {
		kdapl_obj_put(&ep->base);
		return DAT_ERROR(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
	}
	spin_lock_irq(&ep->lock);
	ret = kdapl_ep_state_check(ep->state, KDAPL_EP_OP_FREE);
	spin_unlock_irq(&ep->lock);
	if (ret == DAT_SUCCESS)
		ret = kdapl_ep_destroy(ep);
	kdapl_obj_put(&ep->base);
	return ret;
}
EXPORT_SYMBOL_GPL(dat_ep_free);

static const char *sa_str(const struct sockaddr_storage *ss, char *buf,
			  size_t len)
{
	if (ss->ss_family == AF_INET)
		snprintf(buf, len, "%pISpc", ss);
	else if (ss->ss_family == AF_INET6)
		snprintf(buf, len, "%pISpc", ss);
	else
		snprintf(buf, len, "-");
	return buf;
}

static int eps_show(struct seq_file *m, void *v)
{
	char la[64], ra[64];
	struct kdapl_ep *ep;

	seq_puts(m, "handle state qpn local remote posted completed flushed transport\n");
	spin_lock_irq(&ep_list_lock);
	list_for_each_entry(ep, &ep_list, all) {
		spin_lock(&ep->lock);
		seq_printf(m, "%#lx %s %d %s %s %llu %llu %llu %s\n",
			   (unsigned long)kdapl_obj_handle(&ep->base),
			   kdapl_ep_state_name(ep->state),
			   ep->qp ? (int)ep->qp->qp_num : -1,
			   sa_str(&ep->local, la, sizeof(la)),
			   sa_str(&ep->remote, ra, sizeof(ra)),
			   ep->posted, ep->completed, ep->flushed,
			   ep->iws ? "socket" : ep->cm_id ? "rdma_cm" : "-");
		spin_unlock(&ep->lock);
	}
	spin_unlock_irq(&ep_list_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(eps);

/**
 * kdapl_ep_debugfs_init() - create /sys/kernel/debug/kdapl/eps
 * @dir: the module's debugfs directory
 */
void kdapl_ep_debugfs_init(struct dentry *dir)
{
	debugfs_create_file("eps", 0444, dir, NULL, &eps_fops);
}

int kdapl_ep_init(void)
{
	kdapl_wq = alloc_workqueue("kdapl", WQ_MEM_RECLAIM, 0);
	return kdapl_wq ? 0 : -ENOMEM;
}

void kdapl_ep_exit(void)
{
	destroy_workqueue(kdapl_wq);
}
