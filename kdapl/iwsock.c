// SPDX-License-Identifier: GPL-2.0
/*
 * iWARP socket takeover (seed 000): dat_iw_socket_connect() and the Socket
 * Service Point (dat_iw_ssp_create/free/query), on IAs whose provider can
 * take a connected kernel TCP socket over.
 *
 * The provider interface is include/kiwarp/sock.h. kdapl does not link
 * against kiwarp.ko: it looks the operations up with
 * symbol_get(kiwarp_sock_ops) and keeps that module reference for as long
 * as a socket-mode object (struct kdapl_iws) exists; on other devices
 * (siw, any IB device) the calls return DAT_MODEL_NOT_SUPPORTED.
 *
 * struct kdapl_iws is one socket on its way to RDMA, from the call that
 * hands the socket over until the connection is released. Its holder -
 * the one that must release the provider's connection - changes on the
 * passive side: the SSP until the MPA Request arrives, then the CR, then
 * the EP that accepts it. The active side's holder is the EP. The
 * provider reports events to kdapl_iws_handler(), which forwards them to
 * the current @owner (the SSP, or the EP once it connects or accepts).
 *
 * Locking: @mutex serialises the provider's handler with the setup and
 * with changes of @owner; the handler runs holding it. The provider's
 * release() waits for a running handler, so it is never called with
 * @mutex held. Lock order (continues ep.h): ia->lock, ep->cm_mutex,
 * iws->mutex, ep->lock, evd->lock.
 *
 * Socket ownership (seed 000): the socket is the consumer's until the
 * provider says otherwise. It goes back on every failure of a connect and
 * when an SSP is freed before its request arrived; the event or call that
 * reports the failure comes after the provider restored it. The TIMED_OUT
 * of a socket connect is therefore posted by the EP's abort, once the
 * provider gave the socket back (ep->iws_event).
 */

#include <linux/export.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <net/sock.h>
#include <net/tcp_states.h>
#include <kiwarp/reject.h>
#include <kiwarp/sock.h>
#include <dat2/dat_iw_extensions.h>

#include "ep.h"
#include "evd.h"
#include "registry.h"

/* Largest final streaming-mode message of an SSP. */
#define KDAPL_SSP_FINAL_MAX	(64 * 1024)

/**
 * struct kdapl_iws - one socket takeover
 * @ref: the SSP's (while it exists), the holder's
 * @ops: the provider's operations; a module reference (symbol_get)
 * @conn: the provider's connection, NULL if listen found the socket down
 * @mutex: see above; protects @owner, @requested, @down, @released,
 *	@detaching, @held_cr
 * @owner: the SSP or EP that gets the events (a reference), or NULL
 * @sock: the consumer's socket
 * @requested: the MPA Request arrived (SSP): the socket is the CR's
 * @down: SOCKET_DOWN was reported (SSP)
 * @released: the provider's connection was released
 * @detaching: dat_iw_ssp_free() is taking the socket back (SSP): a
 *	request that arrives meanwhile waits in @held_cr, so that no CR can
 *	release the provider's connection while the free still uses it
 * @held_cr: that request's CR, queued by kdapl_ssp_detach()
 */
struct kdapl_iws {
	struct kref ref;
	const struct kiwarp_sock_ops *ops;
	struct kiwarp_sock_conn *conn;
	struct mutex mutex;	/* see the comment at the top */
	struct kdapl_obj *owner;
	struct socket *sock;
	bool requested;
	bool down;
	bool released;
	bool detaching;
	struct kdapl_cr *held_cr;
};

static const struct kiwarp_sock_ops *iws_ops_get(struct ib_device *dev)
{
	const struct kiwarp_sock_ops *ops = symbol_get(kiwarp_sock_ops);

	if (!ops)
		return NULL;
	if (ops->version != KIWARP_SOCK_VERSION || !dev ||
	    !ops->supported(dev)) {
		symbol_put(kiwarp_sock_ops);
		return NULL;
	}
	return ops;
}

/**
 * kdapl_iws_supported() - can this provider's device take sockets over
 * @prov: the provider
 *
 * Return: true for devices of a provider that implements
 * include/kiwarp/sock.h. Context: process context.
 */
bool kdapl_iws_supported(struct kdapl_provider *prov)
{
	const struct kiwarp_sock_ops *ops = iws_ops_get(prov->ibdev);

	if (!ops)
		return false;
	symbol_put(kiwarp_sock_ops);
	return true;
}

static void iws_free(struct kref *ref)
{
	struct kdapl_iws *iws = container_of(ref, struct kdapl_iws, ref);

	WARN_ON_ONCE(iws->owner || (iws->conn && !iws->released));
	mutex_destroy(&iws->mutex);
	kfree(iws);
	symbol_put(kiwarp_sock_ops);
}

static void iws_put(struct kdapl_iws *iws)
{
	kref_put(&iws->ref, iws_free);
}

/* The DAT return for iws_new()'s error @err. */
static DAT_RETURN iws_new_ret(long err)
{
	if (err == -ENOMEM)
		return DAT_ERROR(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	if (err == -ENODEV)
		return DAT_ERROR(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
	return DAT_ERROR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
}

/*
 * A takeover for @sock on @ia's device, and in *@devp that device under a
 * registration lock (ib_device_try_get()) for the calling API function's
 * provider calls; the caller drops it with ib_device_put() before it
 * returns. The lock is taken under ia->lock, where kdapl_ia_kill() marks
 * an IA dead: an IA not dead there still has its device, and from then on
 * the lock keeps it, and the provider's device behind it, from being
 * freed. The unregistration waits for the lock only after the clients'
 * removal, so an IA may still be killed during the call: a socket
 * connect's kill waits for ep->cm_mutex and then ends the connect; an
 * SSP listening by then stays, like one that listened before the
 * removal, until dat_iw_ssp_free() gives its socket back (KUnit
 * ssp_device_removal). An IA whose device went away has none: -ENODEV.
 */
static struct kdapl_iws *iws_new(struct kdapl_ia *ia, struct socket *sock,
				 struct ib_device **devp)
{
	const struct kiwarp_sock_ops *ops;
	struct ib_device *dev = NULL;
	struct kdapl_iws *iws;

	mutex_lock(&ia->lock);
	if (!ia->dead && ib_device_try_get(ia->prov->ibdev))
		dev = ia->prov->ibdev;
	mutex_unlock(&ia->lock);
	if (!dev)
		return ERR_PTR(-ENODEV);
	ops = iws_ops_get(dev);
	if (!ops) {
		ib_device_put(dev);
		return ERR_PTR(-EOPNOTSUPP);
	}
	iws = kzalloc(sizeof(*iws), GFP_KERNEL);
	if (!iws) {
		symbol_put(kiwarp_sock_ops);
		ib_device_put(dev);
		return ERR_PTR(-ENOMEM);
	}
	kref_init(&iws->ref);
	mutex_init(&iws->mutex);
	iws->ops = ops;
	iws->sock = sock;
	*devp = dev;
	return iws;
}

/* Change who gets the events. Caller holds iws->mutex. */
static void iws_set_owner(struct kdapl_iws *iws, struct kdapl_obj *o)
{
	struct kdapl_obj *old = iws->owner;

	lockdep_assert_held(&iws->mutex);
	if (o)
		kdapl_hobj_ref(&o->hobj);
	iws->owner = o;
	if (old)
		kdapl_obj_put(old);
}

/**
 * kdapl_iws_release() - the holder is done with the takeover
 * @iws: the takeover; the caller's reference is dropped
 *
 * Releases the provider's connection (no event after this returns): a
 * socket still borrowed goes back to the consumer, a connection not yet
 * accepted is refused, an established one stays with the QP (whose
 * destruction or error closes it).
 *
 * Context: process context, no kdapl lock but ia->lock/ep->cm_mutex
 * (the provider's handler takes neither).
 */
void kdapl_iws_release(struct kdapl_iws *iws)
{
	bool rel;

	mutex_lock(&iws->mutex);
	iws_set_owner(iws, NULL);
	rel = iws->conn && !iws->released;
	iws->released = true;
	mutex_unlock(&iws->mutex);
	if (rel)
		iws->ops->release(iws->conn);
	iws_put(iws);
}

/**
 * kdapl_iws_give_back() - take the socket back if it is only borrowed
 * @iws: a takeover whose holder serialises its calls (ep->cm_mutex)
 *
 * Return: 0, the socket is the consumer's again (the conn is gone), or
 * -EBUSY: the provider read the Request or Reply first, and every event
 * that came of it went through kdapl_iws_handler() before this returned.
 * Context: process context; iws->mutex not held (the provider waits for
 * the handler).
 */
int kdapl_iws_give_back(struct kdapl_iws *iws)
{
	bool live;
	int err;

	mutex_lock(&iws->mutex);
	live = iws->conn && !iws->released;
	mutex_unlock(&iws->mutex);
	if (!live)
		return -EBUSY;
	err = iws->ops->give_back(iws->conn);
	if (!err) {
		mutex_lock(&iws->mutex);
		iws->released = true;
		mutex_unlock(&iws->mutex);
	}
	return err;
}

/**
 * kdapl_iws_refuse() - kdapl itself refuses an SSP's request
 * @iws: held by a CR that never reached the consumer
 *
 * The requester reads a non-peer reject; the socket, shut down, stays the
 * consumer's, who was never told it went (no request event).
 * Context: process context.
 */
void kdapl_iws_refuse(struct kdapl_iws *iws)
{
	if (iws->conn && !iws->released)
		iws->ops->refuse(iws->conn, KIWARP_NONPEER_REJECT,
				 KIWARP_NONPEER_REJECT_LEN);
}

/**
 * kdapl_iws_reject() - refuse the request of an SSP's takeover
 * @iws: held by a CR
 * @pdata: private data of the MPA reject, @len bytes
 * @len: at most the provider's limit
 *
 * Context: process context.
 */
void kdapl_iws_reject(struct kdapl_iws *iws, const void *pdata, u16 len)
{
	if (iws->conn && !iws->released)
		iws->ops->reject(iws->conn, pdata, len);
}

/**
 * kdapl_iws_accept() - accept an SSP's request onto @ep's QP
 * @iws: held by the EP now (taken from its CR)
 * @ep: gets the events from here on
 * @p: private data and RDMA read limits of the reply
 *
 * Return: 0 (ESTABLISHED or FAILED follows) or -errno.
 * Context: process context, ep->cm_mutex held.
 */
int kdapl_iws_accept(struct kdapl_iws *iws, struct kdapl_ep *ep,
		     const struct kiwarp_sock_param *p)
{
	lockdep_assert_held(&ep->cm_mutex);
	mutex_lock(&iws->mutex);
	iws_set_owner(iws, &ep->base);
	mutex_unlock(&iws->mutex);
	if (!iws->conn || iws->released || !ep->qp)
		return -EINVAL;
	return iws->ops->accept(iws->conn, ep->qp, p);
}

/* Local and remote address of a socket. Sleeps (lock_sock). */
static void sock_addrs(struct socket *sock, struct sockaddr_storage *l,
		       struct sockaddr_storage *r)
{
	memset(l, 0, sizeof(*l));
	memset(r, 0, sizeof(*r));
	if (kernel_getsockname(sock, (struct sockaddr *)l) < 0)
		l->ss_family = AF_UNSPEC;
	if (kernel_getpeername(sock, (struct sockaddr *)r) < 0)
		r->ss_family = AF_UNSPEC;
}

static u16 sockaddr_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	if (ss->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)ss)->sin_port);
	return 0;
}

static const char *const iw_attr_names[3] = {
	DAT_IW_EP_ATTR_DOMAIN, DAT_IW_EP_ATTR_TYPE, DAT_IW_EP_ATTR_PROTOCOL,
};

static void sock_params(struct socket *sock, int v[3])
{
	v[0] = sock->sk->sk_family;
	v[1] = sock->type;
	v[2] = sock->sk->sk_protocol;
}

/*
 * Does the EP ask for a socket domain, type or protocol other than
 * @sock's (transport-specific attributes given at dat_ep_create)?
 */
static bool iw_attr_conflict(struct kdapl_ep *ep, struct socket *sock)
{
	const DAT_NAMED_ATTR *a = ep->attr.ep_transport_specific;
	int v[3], i, j, want;

	if (a == ep->iw_attr)
		return false;	/* inherited from an earlier socket */
	sock_params(sock, v);
	for (i = 0; a && i < ep->attr.ep_transport_specific_count; i++) {
		for (j = 0; j < 3; j++) {
			if (!a[i].name || strcmp(a[i].name, iw_attr_names[j]))
				continue;
			if (!a[i].value || kstrtoint(a[i].value, 0, &want) ||
			    want != v[j])
				return true;
		}
	}
	return false;
}

/* The EP inherits the socket's domain, type and protocol. ep->lock held. */
static void iw_attr_inherit(struct kdapl_ep *ep, struct socket *sock)
{
	int v[3], i;

	lockdep_assert_held(&ep->lock);
	sock_params(sock, v);
	for (i = 0; i < 3; i++) {
		snprintf(ep->iw_val[i], sizeof(ep->iw_val[i]), "%d", v[i]);
		ep->iw_attr[i].name = iw_attr_names[i];
		ep->iw_attr[i].value = ep->iw_val[i];
	}
	ep->attr.ep_transport_specific_count = 3;
	ep->attr.ep_transport_specific = ep->iw_attr;
}

/* A socket the provider refused, as a DAT return. */
static DAT_RETURN check_ret(int err)
{
	switch (err) {
	case 0:
		return DAT_SUCCESS;
	case -ENOMEM:
		return DAT_ERROR(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	default:
		/* not TCP, not through this IA, not connected, taken */
		return DAT_ERROR(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
	}
}

/* Events of an SSP's takeover. iws->mutex held. */
static void ssp_event(struct kdapl_iws *iws, struct kdapl_sp *sp,
		      const struct kiwarp_sock_event *ev)
{
	struct sockaddr_storage l, r;
	struct kdapl_cr *cr;

	if (iws->requested || iws->down)
		return;
	switch (ev->type) {
	case KIWARP_SOCK_EV_REQUEST:
		cr = sp->spare_cr;	/* one request per SSP */
		if (WARN_ON_ONCE(!cr))
			return;
		sp->spare_cr = NULL;
		iws->ops->info(iws->conn, &l, &r, NULL, NULL);
		kref_get(&iws->ref);	/* the CR's */
		kdapl_cr_make_iws(cr, sp, iws, ev->pdata, ev->pdata_len,
				  ev->ird, ev->ord, &l, &r);
		iws->requested = true;
		/* No events between the request and the accept. */
		iws_set_owner(iws, NULL);
		if (iws->detaching)
			iws->held_cr = cr;	/* kdapl_ssp_detach() queues it */
		else
			kdapl_cr_queue(cr);
		break;
	case KIWARP_SOCK_EV_SOCKET_DOWN:
		iws->down = true;
		kdapl_ssp_post_down(sp);
		break;
	default:
		break;
	}
}

/*
 * The provider's event handler: process context (a provider work), one
 * event at a time per takeover.
 */
static void __kdapl_iws_handler(void *ctx, const struct kiwarp_sock_event *ev)
{
	struct kdapl_iws *iws = ctx;
	struct kdapl_obj *o;

	mutex_lock(&iws->mutex);
	o = iws->owner;
	if (o && o->hobj.type == KDAPL_HT_EP)
		kdapl_ep_iws_event(container_of(o, struct kdapl_ep, base), ev);
	else if (o && o->hobj.type == KDAPL_HT_SSP)
		ssp_event(iws, container_of(o, struct kdapl_sp, base), ev);
	mutex_unlock(&iws->mutex);
}

static void kdapl_iws_handler(void *ctx, const struct kiwarp_sock_event *ev)
{
	int was = kdapl_fault_begin();

	__kdapl_iws_handler(ctx, ev);
	kdapl_fault_end(was);
}

/**
 * dat_iw_socket_connect() - connect an endpoint over a connected socket
 * @ep_handle: an UNCONNECTED EP (with its PZ and EVDs)
 * @socket_id: a connected kernel TCP socket routed through the EP's IA
 * @timeout: microseconds or DAT_TIMEOUT_INFINITE; 0 is refused
 * @private_data_size: bytes of @private_data, at most the provider's
 *	max_private_data_size
 * @private_data: carried by the MPA Request
 *
 * On success the EP is ACTIVE_CONNECTION_PENDING and owns the socket;
 * ESTABLISHED, PEER_REJECTED, NON_PEER_REJECTED, UNREACHABLE or TIMED_OUT
 * follows on its connect EVD. On every failure - the call's or a later
 * event's - the socket is the consumer's again, untouched but for the
 * MPA exchange, and can still stream.
 *
 * Return: DAT_SUCCESS, DAT_INVALID_HANDLE, DAT_INVALID_PARAMETER (no
 * socket, @timeout 0, too much private data, an EP transport attribute
 * that contradicts the socket), DAT_INVALID_STATE (EP not UNCONNECTED or
 * not configured; socket not TCP, not connected, not through this IA's
 * device, already taken over), DAT_INSUFFICIENT_RESOURCES,
 * DAT_MODEL_NOT_SUPPORTED (the IA's device cannot take sockets over).
 * Context: process context; sleeps. Not upcall safe.
 */
DAT_RETURN dat_iw_socket_connect(DAT_EP_HANDLE ep_handle,
				 DAT_IW_SOCKET socket_id, DAT_TIMEOUT timeout,
				 DAT_COUNT private_data_size,
				 const DAT_PVOID private_data)
{
	struct kiwarp_sock_param p = {};
	struct sockaddr_storage l, r;
	struct kdapl_iws *iws = NULL;
	struct ib_device *dev = NULL;
	struct kdapl_ep *ep;
	struct kdapl_ia *ia;
	DAT_RETURN ret;
	bool placed;
	int err;

	ep = kdapl_ep_get(ep_handle);
	if (!ep)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	ia = ep->base.ia;
	if (!in_task()) {
		ret = DAT_ERROR(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
		goto out_ep;
	}
	if (!socket_id || !socket_id->sk) {
		ret = DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
		goto out_ep;
	}
	if (!timeout) {
		ret = DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
		goto out_ep;
	}
	if (private_data_size < 0 ||
	    private_data_size > ia->prov->max_private_data ||
	    private_data_size > KDAPL_PDATA_MAX) {
		ret = DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
		goto out_ep;
	}
	if (private_data_size && !private_data) {
		ret = DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
		goto out_ep;
	}
	iws = iws_new(ia, socket_id, &dev);
	if (IS_ERR(iws)) {
		ret = iws_new_ret(PTR_ERR(iws));
		goto out_ep;
	}

	mutex_lock(&ep->cm_mutex);
	spin_lock_irq(&ep->lock);
	ret = kdapl_ep_state_check(ep->state, KDAPL_EP_OP_CONNECT);
	if (ret == DAT_SUCCESS && (!ep->qp || ep->iws || ep->cm_id ||
				   READ_ONCE(ia->dead)))
		ret = DAT_ERROR(DAT_INVALID_STATE,
				DAT_INVALID_STATE_EP_UNCONFIGURED);
	spin_unlock_irq(&ep->lock);
	if (ret != DAT_SUCCESS)
		goto out_unlock;
	ret = check_ret(iws->ops->check(dev, socket_id));
	if (ret != DAT_SUCCESS)
		goto out_unlock;
	if (iw_attr_conflict(ep, socket_id)) {
		ret = DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
		goto out_unlock;
	}

	/* Events wait for iws->mutex until the EP is in place. */
	mutex_lock(&iws->mutex);
	iws_set_owner(iws, &ep->base);
	p.pdata = private_data;
	p.pdata_len = private_data_size;
	p.ird = ep->rd_in_want;
	p.ord = ep->rd_out_want;
	err = iws->ops->connect(ep->qp, socket_id, &p, kdapl_iws_handler, iws,
				&iws->conn);
	if (err) {
		iws_set_owner(iws, NULL);
		mutex_unlock(&iws->mutex);
		ret = err == -ENOMEM ?
		      DAT_ERROR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY) :
		      err == -EINVAL ?
		      DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5) :
		      check_ret(err);
		goto out_unlock;
	}
	sock_addrs(socket_id, &l, &r);	/* sleeps: before ep->lock */
	spin_lock_irq(&ep->lock);
	placed = kdapl_ep_state_check(ep->state, KDAPL_EP_OP_CONNECT) ==
		 DAT_SUCCESS && ep->qp;
	if (placed) {
		kdapl_ep_move(ep, KDAPL_EP_OP_CONNECT);
		ep->iws = iws;
		ep->iws_event = 0;
		ep->iws_bound = false;
		ep->local = l;
		ep->remote = r;
		ep->remote_qual = sockaddr_port(&ep->remote);
		if (private_data_size)
			memcpy(ep->pdata, private_data, private_data_size);
		ep->pdata_len = private_data_size;
		ep->peer_pdata_len = 0;
		iw_attr_inherit(ep, socket_id);
		kdapl_ep_arm_timer(ep, timeout);
	}
	spin_unlock_irq(&ep->lock);
	mutex_unlock(&iws->mutex);
	if (!placed) {
		/* Connected meanwhile by another thread: give it back. */
		kdapl_iws_release(iws);
		ret = DAT_ERROR(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
	}
	iws = NULL;
out_unlock:
	mutex_unlock(&ep->cm_mutex);
	if (iws)
		iws_put(iws);
	ib_device_put(dev);
out_ep:
	kdapl_obj_put(&ep->base);
	return ret;
}
EXPORT_SYMBOL_GPL(dat_iw_socket_connect);

/**
 * kdapl_ssp_post_down() - report that an SSP's socket is down
 * @sp: the SSP, alive (the caller holds its takeover's mutex as owner,
 *	or a reference)
 *
 * Context: any context.
 */
void kdapl_ssp_post_down(struct kdapl_sp *sp)
{
	DAT_EVENT ev = { .event_number = DAT_CONNECTION_EVENT_SOCKET_DOWN };
	DAT_CR_ARRIVAL_EVENT_DATA *d = &ev.event_data.cr_arrival_event_data;

	d->sp_handle.psp_handle = kdapl_obj_handle(&sp->base);
	d->conn_qual = sp->qual;
	d->cr_handle = DAT_HANDLE_NULL;
	d->truncate_flag = DAT_FALSE;
	kdapl_evd_post(sp->evd, &ev);
}

/**
 * dat_iw_ssp_create() - a service point for one request on a socket
 * @ia_handle: the IA; its device must be able to take sockets over
 * @socket_id: a (normally connected) kernel TCP socket through the IA
 * @ep_handle: an UNCONNECTED EP with its PZ and EVDs, RESERVED until the
 *	request arrives, or DAT_HANDLE_NULL for a provider EP
 * @evd_handle: a CR EVD of the IA
 * @final_sm_msg: optional last streaming-mode message, sent once MPA
 *	Request reception is enabled; all or, to the peer, nothing (seed
 *	000: "atomically"): none of it queued in time is
 *	DAT_INSUFFICIENT_RESOURCES with the socket intact, a part sent
 *	resets the connection and gives SOCKET_DOWN
 * @final_sm_msg_len: its length, 0 for none
 * @ssp_handle: the new SSP
 *
 * The first MPA Request gives exactly one DAT_CONNECTION_REQUEST_EVENT on
 * @evd_handle (sp_handle.psp_handle is the SSP); the SSP becomes
 * non-operational and the socket the CR's. A socket that is down at
 * creation or goes down before a request gives one
 * DAT_CONNECTION_EVENT_SOCKET_DOWN instead.
 *
 * Return: DAT_SUCCESS, DAT_INVALID_HANDLE, DAT_INVALID_PARAMETER,
 * DAT_INVALID_STATE (EP not UNCONNECTED or not configured, socket not TCP
 * or not through this IA, or taken), DAT_INSUFFICIENT_RESOURCES,
 * DAT_MODEL_NOT_SUPPORTED.
 * Context: process context; sleeps. Not upcall safe.
 */
DAT_RETURN dat_iw_ssp_create(DAT_IA_HANDLE ia_handle, DAT_IW_SOCKET socket_id,
			     DAT_EP_HANDLE ep_handle,
			     DAT_EVD_HANDLE evd_handle,
			     DAT_PVOID final_sm_msg,
			     DAT_COUNT final_sm_msg_len,
			     DAT_IW_SSP_HANDLE *ssp_handle)
{
	struct sockaddr_storage l, r;
	struct kdapl_iws *iws = NULL;
	struct ib_device *dev = NULL;
	struct kdapl_evd *evd = NULL;
	struct kdapl_ep *ep = NULL;
	struct kdapl_sp *sp;
	struct kdapl_ia *ia;
	bool down = false;
	DAT_RETURN ret;
	int err;

	if (!ssp_handle)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG7);
	if (!socket_id || !socket_id->sk)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (final_sm_msg_len < 0 || final_sm_msg_len > KDAPL_SSP_FINAL_MAX)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
	if (final_sm_msg_len && !final_sm_msg)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	if (!in_task())
		return DAT_ERROR(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
	ia = kdapl_ia_get(ia_handle);
	if (!ia)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	evd = kdapl_evd_get(evd_handle);
	if (!evd || evd->base.ia != ia || !(evd->flags & DAT_EVD_CR_FLAG)) {
		ret = DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_CR);
		goto out;
	}
	if (ep_handle) {
		ep = kdapl_ep_get(ep_handle);
		if (!ep || ep->base.ia != ia) {
			ret = DAT_ERROR(DAT_INVALID_HANDLE,
					DAT_INVALID_HANDLE_EP);
			goto out;
		}
	}
	iws = iws_new(ia, socket_id, &dev);
	if (IS_ERR(iws)) {
		ret = iws_new_ret(PTR_ERR(iws));
		iws = NULL;
		goto out;
	}
	/* A socket already down is not an error: SOCKET_DOWN reports it. */
	err = iws->ops->check(dev, socket_id);
	if (err && err != -ENOTCONN) {
		ret = check_ret(err);
		goto out;
	}
	if (ep && iw_attr_conflict(ep, socket_id)) {
		ret = DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
		goto out;
	}
	sp = kzalloc(sizeof(*sp), GFP_KERNEL);
	if (!sp) {
		ret = DAT_ERROR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
		goto out;
	}
	sp->spare_cr = kdapl_cr_alloc();
	if (!sp->spare_cr) {
		kfree(sp);
		ret = DAT_ERROR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
		goto out;
	}
	sp->base.hobj.type = KDAPL_HT_SSP;
	sp->ssp = true;
	sp->flags = ep ? DAT_PSP_CONSUMER_FLAG : DAT_PSP_PROVIDER_FLAG;
	sp->sock = socket_id;
	sock_addrs(socket_id, &l, &r);
	sp->qual = sockaddr_port(&l);

	/*
	 * Published, the SSP may be freed at once (an abrupt dat_ia_close
	 * racing this call): it has its takeover from the start, so the
	 * free detaches it, and the creator keeps a reference on each
	 * until it is done (kdapl_sp_publish() takes the SSP's).
	 */
	sp->iws = iws;		/* the SSP's reference */
	kref_get(&iws->ref);	/* the creator's: @iws, below */
	/* The EP's and EVD's lookup references move to the SSP. */
	ret = kdapl_sp_publish(ia, sp, evd, ep);
	if (ret != DAT_SUCCESS) {
		iws_put(iws);
		kdapl_cr_free(sp->spare_cr);
		kfree(sp);
		goto out;
	}
	evd = NULL;
	ep = NULL;

	mutex_lock(&iws->mutex);
	err = -ECANCELED;	/* freed meanwhile: never listened */
	if (!iws->detaching) {
		iws_set_owner(iws, &sp->base);
		err = -ENOTCONN;
	}
	if (err == -ENOTCONN && (socket_id->sk->sk_state == TCP_ESTABLISHED ||
				 socket_id->sk->sk_state == TCP_CLOSE_WAIT))
		err = iws->ops->listen(dev, socket_id,
				       final_sm_msg, final_sm_msg_len,
				       kdapl_iws_handler, iws, &iws->conn);
	/*
	 * The socket is down, or the final message went only in part and
	 * kiwarp reset the connection (seed 000: all or nothing): an SSP
	 * in the non-operational state, SOCKET_DOWN.
	 */
	if (err == -ENOTCONN || err == -ECONNABORTED) {
		iws->down = true;
		down = true;
		err = 0;
	}
	if (err)
		iws_set_owner(iws, NULL);
	mutex_unlock(&iws->mutex);
	if (err) {
		/* -EAGAIN: none of the final message went, socket intact */
		kdapl_sp_destroy(sp);	/* DAT_INVALID_HANDLE if freed */
		ret = err == -ENOMEM || err == -EAGAIN ?
		      DAT_ERROR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY) :
		      err == -ECANCELED ?
		      DAT_ERROR(DAT_INVALID_STATE, DAT_NO_SUBTYPE) :
		      check_ret(err);
		kdapl_obj_put(&sp->base);	/* the creator's */
		goto out;
	}
	if (down)
		kdapl_ssp_post_down(sp);
	*ssp_handle = kdapl_obj_handle(&sp->base);
	kdapl_obj_put(&sp->base);	/* the creator's */
	ret = DAT_SUCCESS;
out:
	if (iws)
		iws_put(iws);
	if (dev)
		ib_device_put(dev);
	if (ep)
		kdapl_obj_put(&ep->base);
	if (evd)
		kdapl_obj_put(&evd->base);
	kdapl_obj_put(&ia->base);
	return ret;
}
EXPORT_SYMBOL_GPL(dat_iw_ssp_create);

/**
 * kdapl_ssp_detach() - an SSP goes: give its socket back if still its
 * @sp: the SSP, off its IA's lists (no new owner can pick it up)
 * @iws: its takeover (the SSP's reference is dropped)
 *
 * The provider may have read a Request whose REQUEST has not reached
 * kdapl_iws_handler() yet: give_back() then keeps the socket and waits
 * for that delivery, whose CR is held (@iws->detaching) until the
 * provider's connection is no longer used here, then queued; its
 * arrival, which kdapl_sp_destroy() waits for, posts the event. A
 * release() instead would have rejected the Request and closed the
 * socket under a consumer told it was its own again (KUnit
 * ssp_free_racing_request).
 *
 * Context: process context; no kdapl lock held.
 */
void kdapl_ssp_detach(struct kdapl_sp *sp, struct kdapl_iws *iws)
{
	struct kdapl_cr *cr;
	bool mine, rel = false;
	int err = -EBUSY;

	mutex_lock(&iws->mutex);
	mine = !iws->requested && !iws->released && iws->conn;
	iws->detaching = true;
	mutex_unlock(&iws->mutex);
	if (mine)
		err = iws->ops->give_back(iws->conn);

	mutex_lock(&iws->mutex);
	cr = iws->held_cr;
	iws->held_cr = NULL;
	if (!iws->requested) {
		iws_set_owner(iws, NULL);
		/* given back, or ended by the provider (SOCKET_DOWN) */
		rel = mine && err;
		if (mine)
			iws->released = true;
	}
	mutex_unlock(&iws->mutex);
	if (rel)
		iws->ops->release(iws->conn);
	if (cr)
		kdapl_cr_queue(cr);	/* the socket is the CR's */
	iws_put(iws);
}

static struct kdapl_sp *kdapl_ssp_get(DAT_IW_SSP_HANDLE h)
{
	struct kdapl_obj *o = kdapl_obj_get(h, KDAPL_HT_SSP);

	return o ? container_of(o, struct kdapl_sp, base) : NULL;
}

/**
 * dat_iw_ssp_free() - destroy a socket service point
 * @ssp_handle: the SSP
 *
 * A socket still attached (no request yet) goes back to the consumer,
 * its connectivity untouched; the reserved EP goes back to UNCONNECTED.
 * A request that already arrived is not affected.
 *
 * Return: DAT_SUCCESS, DAT_INVALID_HANDLE.
 * Context: process context; sleeps. Not upcall safe.
 */
DAT_RETURN dat_iw_ssp_free(DAT_IW_SSP_HANDLE ssp_handle)
{
	struct kdapl_sp *sp = kdapl_ssp_get(ssp_handle);
	DAT_RETURN ret;

	if (!sp)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_NO_SUBTYPE);
	if (!in_task())
		ret = DAT_ERROR(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
	else
		ret = kdapl_sp_destroy(sp);
	kdapl_obj_put(&sp->base);
	return ret;
}
EXPORT_SYMBOL_GPL(dat_iw_ssp_free);

/**
 * dat_iw_ssp_query() - a socket service point's parameters
 * @ssp_handle: the SSP
 * @ssp_param_mask: DAT_IW_SSP_FIELD_* bits wanted
 * @ssp_param: the wanted fields are filled in, the others left alone
 *
 * socket_id is NULL once the SSP is non-operational (the socket went to
 * a CR, or is down); ep_handle is the reserved EP until the request.
 *
 * Return: DAT_SUCCESS, DAT_INVALID_HANDLE, DAT_INVALID_PARAMETER;
 * DAT_INVALID_STATE from an upcall (softirq) or interrupt context (the
 * extension document lists dat_iw_ssp_query among the calls that are not
 * upcall safe: it takes the SSP's and the IA's mutexes).
 * Context: process context; sleeps. Not upcall safe.
 */
DAT_RETURN dat_iw_ssp_query(DAT_IW_SSP_HANDLE ssp_handle,
			    DAT_IW_SSP_PARAM_MASK ssp_param_mask,
			    DAT_IW_SSP_PARAM *ssp_param)
{
	struct kdapl_iws *iws;
	struct kdapl_sp *sp;
	struct kdapl_ia *ia;
	bool op;

	if (ssp_param_mask & ~DAT_IW_SSP_FIELD_ALL)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!ssp_param)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	sp = kdapl_ssp_get(ssp_handle);
	if (!sp)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_NO_SUBTYPE);
	if (!in_task()) {
		kdapl_obj_put(&sp->base);
		return DAT_ERROR(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
	}
	ia = sp->base.ia;
	/* a free racing this query takes sp->iws under ia->lock */
	mutex_lock(&ia->lock);
	iws = sp->iws;
	if (iws)
		kref_get(&iws->ref);
	mutex_unlock(&ia->lock);
	op = false;
	if (iws) {
		mutex_lock(&iws->mutex);
		op = !iws->requested && !iws->down && !iws->released &&
		     !iws->detaching;
		mutex_unlock(&iws->mutex);
		iws_put(iws);
	}
	if (ssp_param_mask & DAT_IW_SSP_FIELD_IA_HANDLE)
		ssp_param->ia_handle = kdapl_obj_handle(&ia->base);
	if (ssp_param_mask & DAT_IW_SSP_FIELD_SOCKET_ID)
		ssp_param->socket_id = op ? sp->sock : NULL;
	if (ssp_param_mask & DAT_IW_SSP_FIELD_EVD_HANDLE)
		ssp_param->evd_handle = kdapl_obj_handle(&sp->evd->base);
	if (ssp_param_mask & DAT_IW_SSP_FIELD_EP_HANDLE) {
		mutex_lock(&ia->lock);
		ssp_param->ep_handle = sp->ep ?
				       kdapl_obj_handle(&sp->ep->base) : NULL;
		mutex_unlock(&ia->lock);
	}
	if (ssp_param_mask & DAT_IW_SSP_FIELD_SSP_STATE)
		ssp_param->ssp_state = op ? DAT_IW_SSP_STATE_OPERATIONAL :
				       DAT_IW_SSP_STATE_NON_OPERATIONAL;
	kdapl_obj_put(&sp->base);
	return DAT_SUCCESS;
}
EXPORT_SYMBOL_GPL(dat_iw_ssp_query);

/**
 * kdapl_iws_show() - one word for debugfs: the takeover's state
 * @iws: a takeover or NULL
 *
 * Return: "-", "socket" (in the provider's hands), "requested", "down"
 * or "released".
 * Context: any context (racy read, for display).
 */
const char *kdapl_iws_show(struct kdapl_iws *iws)
{
	if (!iws)
		return "-";
	if (READ_ONCE(iws->released))
		return "released";
	if (READ_ONCE(iws->down))
		return "down";
	if (READ_ONCE(iws->requested))
		return "requested";
	return "socket";
}
