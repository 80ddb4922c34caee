// SPDX-License-Identifier: GPL-2.0
/*
 * Connection management of endpoints: dat_ep_connect, dat_ep_dup_connect,
 * dat_ep_disconnect, the EP's work item and the rdma_cm event handler.
 *
 * The consumer calls here are upcall-safe: they check and move the EP's
 * state under its spinlock (the table in ep_state.c), post the events
 * that the state change itself defines, and queue the rest for the EP's
 * work item (kdapl_ep_work), which makes the rdma_cm calls in process
 * context. rdma_cm's event handler (kdapl_cm_handler) runs in process
 * context with the cm_id's handler mutex held; it moves the state, posts
 * events and queues work, and never takes a mutex of ours.
 *
 * Events of an outcome are posted exactly once: whoever moves the state
 * out of a pending state posts, and an event the table refuses is stale
 * and dropped (an ESTABLISHED after an abort is torn down instead).
 *
 * Graceful disconnect (seed 002): DISCONNECT_PENDING until the peer's
 * disconnect (or an error) was seen and the QP is drained; then one
 * DISCONNECTED event. The wait is bounded by disconnect_timeout_ms, after
 * which the connection is aborted and the EP DISCONNECTED anyway.
 */

#include <linux/export.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/module.h>
#include <net/net_namespace.h>
#include <rdma/ib_cm.h>
#include <kiwarp/reject.h>
#include <kiwarp/sock.h>

#include "ep.h"
#include "evd.h"
#include "registry.h"
#include "kdapl_trace.h"

static atomic_t kdapl_test_fail_spare = ATOMIC_INIT(0);

/**
 * kdapl_test_fail_spares() - fail the next makes of an EP's rdma_cm id
 * @n: how many of kdapl_ep_spare_fill()'s next allocations fail, as an
 *	allocation failure would
 *
 * For the self-tests (kdapl_conn's conn_connect_no_resources), which
 * cannot aim current->fail_nth at it reliably: debugobjects and KASAN
 * allocate from the same task at varying times.
 *
 * Return: how many of the previous request were left unused.
 */
unsigned int kdapl_test_fail_spares(unsigned int n)
{
	return atomic_xchg(&kdapl_test_fail_spare, n);
}
EXPORT_SYMBOL_NS_GPL(kdapl_test_fail_spares, KDAPL_INTERNAL);

static unsigned int disconnect_timeout_ms = 2000;
module_param(disconnect_timeout_ms, uint, 0644);
MODULE_PARM_DESC(disconnect_timeout_ms,
		 "Bound on a graceful disconnect's wait for the peer (ms)");

/**
 * kdapl_set_disconnect_timeout() - change the graceful disconnect bound
 * @ms: milliseconds
 *
 * Return: the previous value. For the self-tests, which race the bound
 * against the close handshake; consumers use the module parameter.
 */
unsigned int kdapl_set_disconnect_timeout(unsigned int ms)
{
	return xchg(&disconnect_timeout_ms, ms);
}
EXPORT_SYMBOL_NS_GPL(kdapl_set_disconnect_timeout, KDAPL_INTERNAL);

/* The graceful disconnect's bound, in microseconds (kdapl_ep_arm_timer) */
DAT_TIMEOUT kdapl_disconnect_timeout_us(void)
{
	return READ_ONCE(disconnect_timeout_ms) * 1000;
}

/*
 * rdma_cm address and route resolution time-out, each. An address that
 * has not resolved by then is tried again while a consumer's finite
 * connect time-out has time left (the consumer's clock decides; the
 * event at it is UNREACHABLE, seed 003); with DAT_TIMEOUT_INFINITE this
 * is the network's verdict: UNREACHABLE after it.
 */
#define KDAPL_RESOLVE_MS	2000
/*
 * The address is first resolved with this much shorter time-out, then,
 * if that expires, once more with the rest of KDAPL_RESOLVE_MS. The
 * reason is a race in ib_core (drivers/infiniband/core/addr.c,
 * rdma_resolve_ip): when the neighbour is not yet resolved it sends the
 * ARP/ND probe before it queues the request, and a reply that comes
 * back at once - always on veth, where it is answered within the
 * sender's own softirq - updates the neighbour while no request is
 * queued to be woken, so the request sleeps until its time-out. Every
 * first connection to a peer then took the whole 2 s (seen in the
 * trace_connection suite: "address resolved" 2.06 s after the connect).
 */
#define KDAPL_RESOLVE_FIRST_MS	20

/**
 * kdapl_sockaddr_check() - is this an address kdapl can connect to
 * @sa: the address
 *
 * Return: DAT_SUCCESS or DAT_INVALID_ADDRESS.
 * Context: any context.
 */
DAT_RETURN kdapl_sockaddr_check(const struct sockaddr *sa)
{
	if (!sa)
		return DAT_ERROR(DAT_INVALID_ADDRESS, DAT_INVALID_ADDRESS_UNSUPPORTED);
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *sin = (const void *)sa;

		if (ipv4_is_zeronet(sin->sin_addr.s_addr) ||
		    ipv4_is_multicast(sin->sin_addr.s_addr) ||
		    ipv4_is_lbcast(sin->sin_addr.s_addr))
			return DAT_ERROR(DAT_INVALID_ADDRESS,
					 DAT_INVALID_ADDRESS_UNREACHABLE);
		return DAT_SUCCESS;
	}
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const void *)sa;

		if (ipv6_addr_any(&sin6->sin6_addr) ||
		    ipv6_addr_is_multicast(&sin6->sin6_addr))
			return DAT_ERROR(DAT_INVALID_ADDRESS,
					 DAT_INVALID_ADDRESS_UNREACHABLE);
		return DAT_SUCCESS;
	}
	return DAT_ERROR(DAT_INVALID_ADDRESS, DAT_INVALID_ADDRESS_UNSUPPORTED);
}

static void sockaddr_set_port(struct sockaddr_storage *ss, u16 port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

static size_t sockaddr_len(const struct sockaddr *sa)
{
	return sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
	       sizeof(struct sockaddr_in);
}

/* Keep the peer's private data for the connection event. Caller holds
 * ep->lock or owns the EP's state transition that posts the event.
 */
static void ep_set_peer_pdata(struct kdapl_ep *ep, const void *p, u16 len)
{
	len = min_t(unsigned int, len, KDAPL_PDATA_MAX);
	if (p && len)
		memcpy(ep->peer_pdata, p, len);
	ep->peer_pdata_len = p ? len : 0;
}

/*
 * A CM outcome for @ep: move the state by @op and, if the table allows
 * it, post @num and queue @act (0: nothing). Returns whether it moved.
 * The event is posted under ep->lock with the move (lock order: ep->lock
 * before evd->lock): a dat_ep_disconnect() that sees the new state posts
 * its own event after this one. Posted after the unlock, an ESTABLISHED
 * could follow the DISCONNECTED of a disconnect that found the EP
 * CONNECTED - a consumer then read a socket-mode connection's socket as
 * its own while the abort released it (KASAN, KUnit
 * kdapl_iwsock/socket_disconnect_racing_reply, 1 run in 4).
 */
static bool ep_outcome(struct kdapl_ep *ep, enum kdapl_ep_op op,
		       DAT_EVENT_NUMBER num, int act,
		       const void *pdata, u16 pdata_len)
{
	unsigned long flags;
	bool moved;

	spin_lock_irqsave(&ep->lock, flags);
	moved = kdapl_ep_move(ep, op);
	if (moved) {
		ep->deadline = jiffies + MAX_JIFFY_OFFSET;
		del_timer(&ep->timer);
		ep_set_peer_pdata(ep, pdata, pdata_len);
		if (num)
			kdapl_ep_post_conn(ep, num);
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	if (!moved)
		return false;
	if (act >= 0)
		kdapl_ep_queue(ep, act);
	return true;
}

/*
 * The RDMA Read depths the connection got (negative: unchanged): from now
 * on what dat_ep_query() reports (seed 000: a provider may change them
 * during connection setup); dat_ep_reset() puts the wanted ones back.
 */
static void ep_set_reads(struct kdapl_ep *ep, int rd_in, int rd_out)
{
	spin_lock_irq(&ep->lock);
	if (rd_in >= 0)
		ep->attr.max_rdma_read_in = rd_in;
	if (rd_out >= 0)
		ep->attr.max_rdma_read_out = rd_out;
	spin_unlock_irq(&ep->lock);
}

/*
 * IB and RoCE: the QP transitions rdma_cm makes for a QP it created
 * (cma_modify_qp_rtr(), cma_modify_qp_rts()). kdapl creates its QPs with
 * ib_create_qp() before any cm_id exists, so rdma_cm leaves them alone
 * and the EP makes them: INIT again with the connection's port, P_Key
 * and access flags (which follow the negotiated read depth), then RTR and
 * RTS from the connection's path and the peer's QP number. On the active
 * side at the REP (RDMA_CM_EVENT_CONNECT_RESPONSE), on the passive side
 * before the REP is sent. On the passive side the IB CM still has the
 * REQ's read depths, so @p, what the REP will say, sets them (as
 * cma_modify_qp_rtr/rts do with the accept's parameters). An iWARP QP is
 * moved by iw_cm: nothing to do.
 *
 * Context: the cm_id's handler or the EP's work; @qp cannot go away
 * while @id is alive (kdapl_ep_qp_destroy() destroys the cm_id first).
 */
static int ep_qp_ready(struct kdapl_ep *ep, struct rdma_cm_id *id,
		       struct ib_qp *qp, const struct rdma_conn_param *p)
{
	static const enum ib_qp_state steps[] = {
		IB_QPS_INIT, IB_QPS_RTR, IB_QPS_RTS,
	};
	int rd_in = -1, rd_out = -1;
	struct ib_qp_attr qa;
	unsigned int i;
	int mask, err;

	if (ep->base.ia->prov->iwarp)
		return 0;
	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		memset(&qa, 0, sizeof(qa));
		qa.qp_state = steps[i];
		err = rdma_init_qp_attr(id, &qa, &mask);
		if (p && (mask & IB_QP_MAX_DEST_RD_ATOMIC))
			qa.max_dest_rd_atomic = p->responder_resources;
		if (p && (mask & IB_QP_MAX_QP_RD_ATOMIC))
			qa.max_rd_atomic = p->initiator_depth;
		if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
			rd_in = qa.max_dest_rd_atomic;
		if (mask & IB_QP_MAX_QP_RD_ATOMIC)
			rd_out = qa.max_rd_atomic;
		if (!err)
			err = ib_modify_qp(qp, &qa, mask);
		if (err) {
			pr_debug("ep %u: QP %u to state %d: %d\n",
				 ep->base.hobj.index, qp->qp_num, steps[i],
				 err);
			return err;
		}
	}
	ep_set_reads(ep, rd_in, rd_out);
	return 0;
}

/* The CONNECT action: create the cm_id and start address resolution. */
static void ep_do_connect(struct kdapl_ep *ep, struct net *net,
			  struct sockaddr_storage *src)
{
	struct rdma_cm_id *id;
	int err;

	lockdep_assert_held(&ep->cm_mutex);
	/* each failure aborts: the QP is drained (receives posted before) */
	if (!net) {
		ep_outcome(ep, KDAPL_EP_EV_CM_UNREACHABLE,
			   DAT_CONNECTION_EVENT_UNREACHABLE, KDAPL_EP_ACT_ABORT,
			   NULL, 0);
		return;
	}
	if (READ_ONCE(ep->state) != DAT_EP_STATE_ACTIVE_CONNECTION_PENDING)
		return;		/* aborted meanwhile */
	spin_lock_irq(&ep->lock);
	id = ep->spare_id;
	ep->spare_id = NULL;
	spin_unlock_irq(&ep->lock);
	if (id && id->route.addr.dev_addr.net != net) {
		/* the IA's netdev changed namespace since: make it there */
		rdma_destroy_id(id);
		id = NULL;
	}
	if (id)
		id->context = ep;	/* no event came: it was never used */
	else
		id = rdma_create_id(net, kdapl_cm_handler, ep, RDMA_PS_TCP,
				    IB_QPT_RC);
	if (IS_ERR(id)) {
		ep_outcome(ep, KDAPL_EP_EV_CM_NON_PEER_REJECTED,
			   DAT_CONNECTION_EVENT_NON_PEER_REJECTED,
			   KDAPL_EP_ACT_ABORT, NULL, 0);
		return;
	}
	sockaddr_set_port(src, 0);
	spin_lock_irq(&ep->lock);
	ep->cm_id = id;
	spin_unlock_irq(&ep->lock);
	ep->resolve_retried = false;
	err = rdma_resolve_addr(id, (struct sockaddr *)src,
				(struct sockaddr *)&ep->remote,
				KDAPL_RESOLVE_FIRST_MS);
	if (err)
		ep_outcome(ep, KDAPL_EP_EV_CM_UNREACHABLE,
			   DAT_CONNECTION_EVENT_UNREACHABLE,
			   KDAPL_EP_ACT_ABORT, NULL, 0);
}

/**
 * kdapl_ep_spare_fill() - make the rdma_cm id of the EP's next connect
 * @ep: the EP
 *
 * In the namespace of the IA's device (init_net while it has no
 * address: the connect then ends UNREACHABLE before using it). A failed
 * allocation leaves none: dat_ep_connect() answers
 * DAT_INSUFFICIENT_RESOURCES until a dat_ep_reset() makes one. None is
 * kept once kdapl_ep_destroy() freed the spare (ep->destroyed).
 * Context: process context, no kdapl lock held (takes the provider's);
 * the caller holds a reference on @ep.
 */
void kdapl_ep_spare_fill(struct kdapl_ep *ep)
{
	struct sockaddr_storage ss;
	struct rdma_cm_id *id;
	struct net *net;

	if (READ_ONCE(ep->spare_id) || READ_ONCE(ep->destroyed))
		return;
	if (atomic_add_unless(&kdapl_test_fail_spare, -1, 0))
		return;		/* a test's allocation failure */
	net = kdapl_ia_net(ep->base.ia, &ss);
	id = rdma_create_id(net ?: &init_net, kdapl_cm_handler, NULL,
			    RDMA_PS_TCP, IB_QPT_RC);
	if (net)
		put_net(net);
	if (IS_ERR(id))
		return;
	spin_lock_irq(&ep->lock);
	if (!ep->spare_id && !ep->destroyed) {
		ep->spare_id = id;
		id = NULL;
	}
	spin_unlock_irq(&ep->lock);
	if (id)
		rdma_destroy_id(id);
}

/*
 * Free the EP's spare rdma_cm id; none is made after it
 * (kdapl_ep_destroy). Process context.
 */
void kdapl_ep_spare_free(struct kdapl_ep *ep)
{
	struct rdma_cm_id *id;

	spin_lock_irq(&ep->lock);
	ep->destroyed = true;
	id = ep->spare_id;
	ep->spare_id = NULL;
	spin_unlock_irq(&ep->lock);
	if (id)
		rdma_destroy_id(id);
}

/*
 * How long the next address resolution may take: the rest of
 * KDAPL_RESOLVE_MS after the short first attempt, then KDAPL_RESOLVE_MS
 * at a time up to a finite connect time-out's deadline; 0 when there is
 * no time for another (the time-out or the verdict is due).
 */
static unsigned long ep_resolve_ms(struct kdapl_ep *ep)
{
	unsigned long flags, left, slice;
	bool timed;

	spin_lock_irqsave(&ep->lock, flags);
	timed = ep->timed;
	left = time_before(jiffies, ep->deadline) ?
	       jiffies_to_msecs(ep->deadline - jiffies) : 0;
	spin_unlock_irqrestore(&ep->lock, flags);
	if (!ep->resolve_retried)
		slice = KDAPL_RESOLVE_MS - KDAPL_RESOLVE_FIRST_MS;
	else if (timed)
		slice = KDAPL_RESOLVE_MS;
	else
		return 0;
	return timed ? min(left, slice) : slice;
}

/* The RESOLVE action: the address once more (ep_resolve_ms()). */
static void ep_do_resolve(struct kdapl_ep *ep)
{
	unsigned long ms;

	lockdep_assert_held(&ep->cm_mutex);
	if (READ_ONCE(ep->state) != DAT_EP_STATE_ACTIVE_CONNECTION_PENDING ||
	    !ep->cm_id)
		return;		/* aborted meanwhile */
	ms = ep_resolve_ms(ep);
	ep->resolve_retried = true;
	if (!ms)
		return;		/* the connect's time-out ends it */
	if (rdma_resolve_addr(ep->cm_id, NULL, (struct sockaddr *)&ep->remote,
			      ms))
		ep_outcome(ep, KDAPL_EP_EV_CM_UNREACHABLE,
			   DAT_CONNECTION_EVENT_UNREACHABLE,
			   KDAPL_EP_ACT_ABORT, NULL, 0);
}

/* The ACCEPT action of an SSP's request: the takeover moves to the EP. */
static void ep_do_accept_iws(struct kdapl_ep *ep, struct kdapl_iws *iws)
{
	struct kiwarp_sock_param p = {};

	p.pdata = ep->pdata_len ? ep->pdata : NULL;
	p.pdata_len = ep->pdata_len;
	p.ird = ep->rd_in_want;
	p.ord = ep->rd_out_want;
	spin_lock_irq(&ep->lock);
	ep->iws = iws;
	spin_unlock_irq(&ep->lock);
	if (kdapl_iws_accept(iws, ep, &p))
		ep_outcome(ep, KDAPL_EP_EV_ACCEPT_ERROR,
			   DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR,
			   KDAPL_EP_ACT_ABORT, NULL, 0);
}

/* The ACCEPT action: take the CR's cm_id and accept on the EP's QP. */
static void ep_do_accept(struct kdapl_ep *ep, struct rdma_cm_id *id,
			 struct kdapl_iws *iws, u8 cr_ird, u8 cr_ord)
{
	struct rdma_conn_param p = {};
	int err;

	lockdep_assert_held(&ep->cm_mutex);
	if (iws && ep->qp) {
		ep_do_accept_iws(ep, iws);
		return;
	}
	if (iws)
		kdapl_iws_release(iws);
	if (!id || !ep->qp) {
		ep_outcome(ep, KDAPL_EP_EV_ACCEPT_ERROR,
			   DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR,
			   KDAPL_EP_ACT_ABORT, NULL, 0);
		if (id)
			rdma_destroy_id(id);
		return;
	}
	p.private_data = ep->pdata_len ? ep->pdata : NULL;
	p.private_data_len = ep->pdata_len;
	p.qp_num = ep->qp->qp_num;
	p.responder_resources = ep->rd_in_want;
	p.initiator_depth = ep->rd_out_want;
	if (!ep->base.ia->prov->iwarp) {
		/*
		 * IB: the REP's depths are what both QPs get: no more reads
		 * than the requester will take (@cr_ird) or issue (@cr_ord).
		 * RNR retries "infinite", as the requester asks (a Send
		 * racing the peer's receive waits instead of failing).
		 */
		p.responder_resources = min_t(u8, p.responder_resources,
					      cr_ord);
		p.initiator_depth = min_t(u8, p.initiator_depth, cr_ird);
		p.rnr_retry_count = 7;
	}

	rdma_lock_handler(id);
	id->context = ep;	/* from now on events are the EP's */
	spin_lock_irq(&ep->lock);
	ep->cm_id = id;
	spin_unlock_irq(&ep->lock);
	err = ep_qp_ready(ep, id, ep->qp, &p);
	if (!err)	/* else the abort's rdma_destroy_id() sends the REJ */
		err = rdma_accept(id, &p);
	rdma_unlock_handler(id);
	if (err)
		ep_outcome(ep, KDAPL_EP_EV_ACCEPT_ERROR,
			   DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR,
			   KDAPL_EP_ACT_ABORT, NULL, 0);
}

/*
 * The ABORT action: flush the QP and drop the connection's cm_id or
 * socket takeover. A socket still borrowed goes back to the consumer
 * before the event that ends a socket connect is posted (ep->iws_event).
 * If the provider had read the Reply of a connect the consumer abruptly
 * disconnected, its ESTABLISHED comes (stale) while give_back() waits:
 * the socket went with the connection, which is torn down here, and the
 * event is BROKEN, not the DISCONNECTED that would hand the consumer a
 * socket it no longer has.
 */
static void ep_do_abort(struct kdapl_ep *ep)
{
	struct ib_qp_attr qa = { .qp_state = IB_QPS_ERR };
	struct rdma_cm_id *id = ep->cm_id;
	struct kdapl_iws *iws;
	DAT_EVENT_NUMBER num;

	lockdep_assert_held(&ep->cm_mutex);
	spin_lock_irq(&ep->lock);
	iws = ep->iws;
	ep->iws = NULL;
	num = ep->iws_event;
	spin_unlock_irq(&ep->lock);
	if (iws && num)
		kdapl_iws_give_back(iws);	/* no-op once given back */
	if (iws)
		kdapl_iws_release(iws);
	if (ep->qp)
		ib_modify_qp(ep->qp, &qa, IB_QP_STATE);
	/*
	 * Drained: suppressed requests that succeeded have no completion
	 * to give them back (once the flushes are seen, the rest did), and
	 * DTOs held back from the QP (dto.c) are flushed after its own.
	 */
	if (ep->qp) {
		ib_drain_qp(ep->qp);
		kdapl_dto_reclaim_all(ep);
	}
	if (id) {
		spin_lock_irq(&ep->lock);
		ep->cm_id = NULL;
		spin_unlock_irq(&ep->lock);
		rdma_destroy_id(id);
	}
	spin_lock_irq(&ep->lock);
	num = ep->iws_event;
	ep->iws_event = 0;
	if (num && ep->iws_bound)
		num = DAT_CONNECTION_EVENT_BROKEN;
	ep->iws_bound = false;
	spin_unlock_irq(&ep->lock);
	if (num)
		kdapl_ep_post_conn(ep, num);
}

/*
 * The IWS_TIMEOUT action: a socket connect's time-out expired. TIMED_OUT
 * tells the consumer its socket is back, so the provider is asked first:
 * either it gives the socket back (no Reply yet) and the connect times
 * out, or it had read the Reply, and what came of it - ESTABLISHED, or a
 * reject or failure that gave the socket back itself - went through
 * kdapl_ep_iws_event() meanwhile: that is the outcome. Timing out such a
 * connection left its socket to the QP's teardown, which released it
 * under a consumer told TIMED_OUT.
 */
static void ep_do_iws_timeout(struct kdapl_ep *ep)
{
	struct kdapl_iws *iws;
	bool moved;

	lockdep_assert_held(&ep->cm_mutex);
	spin_lock_irq(&ep->lock);
	iws = ep->state == DAT_EP_STATE_ACTIVE_CONNECTION_PENDING ?
	      ep->iws : NULL;
	spin_unlock_irq(&ep->lock);
	if (!iws || kdapl_iws_give_back(iws))
		return;		/* ended meanwhile, or the provider's outcome */
	spin_lock_irq(&ep->lock);
	moved = kdapl_ep_move(ep, KDAPL_EP_EV_TIMEOUT);
	if (moved) {
		ep->peer_pdata_len = 0;
		ep->iws_event = DAT_CONNECTION_EVENT_TIMED_OUT;
	}
	spin_unlock_irq(&ep->lock);
	if (moved)
		ep_do_abort(ep);	/* posts TIMED_OUT: the socket is back */
}

/*
 * Before a drain in DISCONNECT_PENDING: receives posted from now on are
 * held back (dto.c) and flushed after the drain's, as once the provider
 * was asked to close, not given to a QP whose flushes would come after
 * those of receives posted later, in DISCONNECTED.
 */
static void ep_hold_recvs(struct kdapl_ep *ep)
{
	spin_lock_irq(&ep->lock);
	ep->disc_asked = true;
	spin_unlock_irq(&ep->lock);
}

/*
 * The DRAIN action: the last step of a graceful disconnect, once the
 * peer closed (DISCONNECTED) or the connection failed (BROKEN: the
 * disconnect completed with a failure, seed 002).
 */
static void ep_do_drain(struct kdapl_ep *ep)
{
	DAT_EVENT_NUMBER num;

	lockdep_assert_held(&ep->cm_mutex);
	ep_hold_recvs(ep);
	if (ep->qp) {
		ib_drain_qp(ep->qp);
		kdapl_dto_reclaim_all(ep);
	}
	spin_lock_irq(&ep->lock);
	num = ep->disc_broken ? DAT_CONNECTION_EVENT_BROKEN :
				DAT_CONNECTION_EVENT_DISCONNECTED;
	spin_unlock_irq(&ep->lock);
	ep_outcome(ep, KDAPL_EP_EV_DISCONNECT_DONE, num, -1, NULL, 0);
	kdapl_dto_flush_held(ep);	/* posted before the state moved */
}

/*
 * May a graceful disconnect ask the provider now? Not while a signaled
 * request posted before it is still outstanding in DISCONNECT_PENDING:
 * seed 002's disconnect completes when all DMA is done, and a provider
 * that ends the connection at once (siw flushes a Send in progress when
 * its QP is moved to CLOSING; IB moves the QP to ERROR on the DREP)
 * would flush them. The last completion queues the action again
 * (kdapl_dto_done()); the disconnect's bound (disconnect_timeout_ms)
 * still ends a wait that lasts. Only deferred, never dropped: once the
 * state has moved on (the peer's disconnect and the drain came first),
 * the provider is still asked, which answers the peer (IB: the DREP).
 * Unsignaled requests after the last signaled one are not waited for.
 * Caller holds ep->cm_mutex.
 */
static bool ep_disc_ready(struct kdapl_ep *ep)
{
	bool ready;

	spin_lock_irq(&ep->lock);
	ready = ep->state != DAT_EP_STATE_DISCONNECT_PENDING || !ep->sig_out;
	ep->disc_wait = !ready;
	spin_unlock_irq(&ep->lock);
	return ready;
}

/*
 * The DISCONNECT action, once ep_disc_ready(): ask the provider. From
 * here on a receive is held back from the QP (ep->disc_asked, dto.c):
 * an iWARP QP in CLOSING takes no more work (its closing rules reset
 * the connection), and nothing could arrive after our FIN to fill it.
 */
static void ep_do_disconnect(struct kdapl_ep *ep)
{
	struct ib_qp_attr qa = { .qp_state = IB_QPS_SQD };

	lockdep_assert_held(&ep->cm_mutex);
	spin_lock_irq(&ep->lock);
	ep->disc_asked = true;
	spin_unlock_irq(&ep->lock);
	if (ep->cm_id)
		rdma_disconnect(ep->cm_id);
	else if (ep->iws && ep->qp)
		/* What iw_cm does for a graceful close: SQ drain, then FIN. */
		ib_modify_qp(ep->qp, &qa, IB_QP_STATE);
}

/*
 * The DISC_TIMEOUT action: the peer did not close within the bound. The
 * QP goes to ERROR and is drained, so every outstanding request has its
 * (flushed) completion on its EVD, and only then the EP is DISCONNECTED
 * with DAT_CONNECTION_EVENT_BROKEN: a disconnect that did not end
 * cleanly, unlike the DISCONNECTED of one that did. The ABORT action
 * then releases the connection. Nothing to do if the peer's close came
 * first (the DRAIN action finishes that one).
 */
static void ep_do_disc_timeout(struct kdapl_ep *ep)
{
	struct ib_qp_attr qa = { .qp_state = IB_QPS_ERR };
	bool go;

	lockdep_assert_held(&ep->cm_mutex);
	spin_lock_irq(&ep->lock);
	go = ep->state == DAT_EP_STATE_DISCONNECT_PENDING &&
	     !ep->disc_peer_seen;
	spin_unlock_irq(&ep->lock);
	if (!go)
		return;
	ep_hold_recvs(ep);
	if (ep->qp) {
		ib_modify_qp(ep->qp, &qa, IB_QP_STATE);
		ib_drain_qp(ep->qp);
		kdapl_dto_reclaim_all(ep);
	}
	ep_outcome(ep, KDAPL_EP_EV_TIMEOUT, DAT_CONNECTION_EVENT_BROKEN,
		   KDAPL_EP_ACT_ABORT, NULL, 0);
	kdapl_dto_flush_held(ep);	/* posted before the state moved */
}

/* The body of kdapl_ep_work(). */
static void __kdapl_ep_work(struct work_struct *work)
{
	struct kdapl_ep *ep = container_of(work, struct kdapl_ep, work);
	struct kdapl_ia *ia = ep->base.ia;
	struct sockaddr_storage src;
	struct rdma_cm_id *cr_id = NULL;
	struct kdapl_iws *cr_iws = NULL;
	struct kdapl_cr *cr = NULL;
	struct net *net = NULL;
	unsigned long acts;
	u8 cr_ird = 0, cr_ord = 0;
	u32 gen;

	spin_lock_irq(&ep->lock);
	acts = ep->actions;
	ep->actions = 0;
	gen = ep->gen;
	spin_unlock_irq(&ep->lock);

	/* Lock order: provider and IA locks before ep->cm_mutex. */
	if (test_bit(KDAPL_EP_ACT_CONNECT, &acts))
		net = kdapl_ia_net(ia, &src);
	mutex_lock(&ia->lock);
	mutex_lock(&ep->cm_mutex);
	/*
	 * dat_ep_reset() ran since these were queued: they belong to the
	 * connection it ended (an ABORT queued by the drain of the old QP
	 * would move the new one to ERROR).
	 */
	if (READ_ONCE(ep->gen) != gen)
		acts = 0;
	if (test_bit(KDAPL_EP_ACT_ACCEPT, &acts) && ep->cr) {
		/* The cm_id moves from the CR to the EP under both locks. */
		cr = ep->cr;
		ep->cr = NULL;
		cr_id = cr->cm_id;
		cr->cm_id = NULL;
		cr_iws = cr->iws;
		cr->iws = NULL;
		cr_ird = cr->ird;
		cr_ord = cr->ord;
		kdapl_cr_done(cr);
	}
	if (ia->dead) {
		acts = 0;	/* kdapl_ep_release_device() did it all */
		if (cr_id)
			rdma_destroy_id(cr_id);
		if (cr_iws)
			kdapl_iws_release(cr_iws);
		cr_id = NULL;
		cr_iws = NULL;
	}
	mutex_unlock(&ia->lock);

	if (test_bit(KDAPL_EP_ACT_ABORT, &acts)) {
		if (cr_id)
			rdma_destroy_id(cr_id);
		if (cr_iws)
			kdapl_iws_release(cr_iws);
		ep_do_abort(ep);
		goto out;
	}
	if (test_bit(KDAPL_EP_ACT_CONNECT, &acts))
		ep_do_connect(ep, net, &src);
	if (test_bit(KDAPL_EP_ACT_RESOLVE, &acts))
		ep_do_resolve(ep);
	if (test_bit(KDAPL_EP_ACT_ACCEPT, &acts))
		ep_do_accept(ep, cr_id, cr_iws, cr_ird, cr_ord);
	if (test_bit(KDAPL_EP_ACT_DISCONNECT, &acts) && ep_disc_ready(ep))
		ep_do_disconnect(ep);
	if (test_bit(KDAPL_EP_ACT_IWS_TIMEOUT, &acts))
		ep_do_iws_timeout(ep);
	if (test_bit(KDAPL_EP_ACT_DISC_TIMEOUT, &acts))
		ep_do_disc_timeout(ep);
	if (test_bit(KDAPL_EP_ACT_DRAIN, &acts))
		ep_do_drain(ep);
out:
	mutex_unlock(&ep->cm_mutex);
	if (cr)
		kdapl_obj_put(&cr->base);
	if (net)
		put_net(net);
	kdapl_obj_put(&ep->base);
}

/**
 * kdapl_ep_work() - the EP's process-context half
 * @work: ep->work
 *
 * Runs the pending actions in a fixed order; an abort makes the others
 * moot. Drops the reference kdapl_ep_queue() took.
 *
 * Context: process context (kdapl_wq).
 */
void kdapl_ep_work(struct work_struct *work)
{
	int was = kdapl_fault_begin();

	__kdapl_ep_work(work);
	kdapl_fault_end(was);
}

/*
 * The connection establishment bound an iWARP provider may keep, as an
 * IB_QP_TIMEOUT exponent (4.096 us << t; 0: none), for a connect whose
 * consumer time-out ends in @left jiffies (@timed) or never. kiwarp
 * bounds its TCP handshake and its wait for the MPA Reply with it
 * (Documentation/iw_provider.rst), so that only the consumer's clock
 * ends a connect: the bound is the time left plus a second, and kdapl's
 * own timer comes first. Providers without such a bound ignore it.
 */
static u8 ep_iw_cm_timeout(bool timed, unsigned long left)
{
	u64 ns;

	if (!timed)
		return 0;
	ns = jiffies64_to_nsecs(left) + NSEC_PER_SEC;
	return clamp_t(u64, order_base_2(DIV_ROUND_UP_ULL(ns, 4096)), 1, 31);
}

/* Route resolved: send the connection request. Handler context. */
static void ep_route_resolved(struct kdapl_ep *ep, struct rdma_cm_id *id)
{
	struct rdma_conn_param p = {};
	struct ib_qp_attr attr = {};
	unsigned long flags, left = 0;
	bool go, timed = false;
	struct ib_qp *qp;

	spin_lock_irqsave(&ep->lock, flags);
	/* the QP outlives the cm_id, whose destroy waits for this handler */
	qp = ep->qp;
	go = ep->state == DAT_EP_STATE_ACTIVE_CONNECTION_PENDING && qp;
	if (go) {
		p.qp_num = qp->qp_num;
		memcpy(&ep->local, &id->route.addr.src_addr,
		       sizeof(ep->local));
		timed = ep->timed;
		if (time_before(jiffies, ep->deadline))
			left = ep->deadline - jiffies;
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	if (!go)
		return;
	if (rdma_protocol_iwarp(id->device, id->port_num)) {
		/* a hint: a provider that refuses it keeps its own bound */
		attr.timeout = ep_iw_cm_timeout(timed, left);
		ib_modify_qp(qp, &attr, IB_QP_TIMEOUT);
	}
	p.private_data = ep->pdata_len ? ep->pdata : NULL;
	p.private_data_len = ep->pdata_len;
	p.responder_resources = ep->rd_in_want;
	p.initiator_depth = ep->rd_out_want;
	p.retry_count = 7;
	p.rnr_retry_count = 7;
	if (rdma_connect_locked(id, &p))
		ep_outcome(ep, KDAPL_EP_EV_CM_NON_PEER_REJECTED,
			   DAT_CONNECTION_EVENT_NON_PEER_REJECTED,
			   KDAPL_EP_ACT_ABORT, NULL, 0);
}

/*
 * A rejection the remote consumer made, not its DAT layer, provider or
 * transport: a reject (iWARP: an MPA reject Reply, which siw reports as
 * -ECONNRESET and iw_cm as -ECONNREFUSED; IB: a REJ with the consumer's
 * reason) without the non-peer marker (include/kiwarp/reject.h).
 */
static bool ep_peer_rejected(struct rdma_cm_id *id, int status,
			     const void *pd, u8 pdlen)
{
	if (rdma_protocol_iwarp(id->device, id->port_num))
		return (status == -ECONNRESET || status == -ECONNREFUSED) &&
		       !kiwarp_nonpeer_reject(pd, pdlen, false);
	return status == IB_CM_REJ_CONSUMER_DEFINED &&
	       !kiwarp_nonpeer_reject(pd, pdlen, true);
}

/* The connection is gone (peer disconnect, error). */
static void ep_gone(struct kdapl_ep *ep, bool error)
{
	DAT_EVENT_NUMBER num = error ? DAT_CONNECTION_EVENT_BROKEN :
			       DAT_CONNECTION_EVENT_DISCONNECTED;
	enum kdapl_ep_op op = error ? KDAPL_EP_EV_CM_BROKEN :
			      KDAPL_EP_EV_CM_DISCONNECTED;
	unsigned long flags;
	DAT_EP_STATE was;
	bool moved;

	spin_lock_irqsave(&ep->lock, flags);
	was = ep->state;
	moved = kdapl_ep_move(ep, op);
	if (moved && was == DAT_EP_STATE_DISCONNECT_PENDING) {
		ep->disc_peer_seen = true;
		ep->disc_broken |= error;
	} else if (moved) {
		ep->peer_pdata_len = 0;
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	if (!moved)
		return;

	switch (was) {
	case DAT_EP_STATE_DISCONNECT_PENDING:
		/* Our graceful disconnect: finish it once the QP is drained. */
		kdapl_ep_queue(ep, KDAPL_EP_ACT_DRAIN);
		return;
	case DAT_EP_STATE_ACTIVE_CONNECTION_PENDING:
		num = DAT_CONNECTION_EVENT_NON_PEER_REJECTED;
		break;
	case DAT_EP_STATE_COMPLETION_PENDING:
		num = DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR;
		break;
	default:
		break;
	}
	spin_lock_irqsave(&ep->lock, flags);
	ep->deadline = jiffies + MAX_JIFFY_OFFSET;
	del_timer(&ep->timer);
	spin_unlock_irqrestore(&ep->lock, flags);
	kdapl_ep_post_conn(ep, num);
	kdapl_ep_queue(ep, KDAPL_EP_ACT_ABORT);
}

/* The connection is up: ESTABLISHED with the peer's private data. */
static void ep_established(struct kdapl_ep *ep, struct rdma_cm_id *id,
			   const void *pd, u8 pdlen)
{
	spin_lock_irq(&ep->lock);
	memcpy(&ep->local, &id->route.addr.src_addr, sizeof(ep->local));
	memcpy(&ep->remote, &id->route.addr.dst_addr, sizeof(ep->remote));
	spin_unlock_irq(&ep->lock);
	if (!ep_outcome(ep, KDAPL_EP_EV_CM_ESTABLISHED,
			DAT_CONNECTION_EVENT_ESTABLISHED, -1, pd, pdlen))
		kdapl_ep_queue(ep, KDAPL_EP_ACT_ABORT);	/* stale */
}

/*
 * IB/RoCE, active side: the REP arrived. rdma_cm reports it as
 * CONNECT_RESPONSE because it does not own the QP: move the QP to RTS,
 * then rdma_accept() without parameters sends the RTU (what librdmacm
 * does for a QP it did not create), and the connection is up. A failure
 * rejects the REP (rdma_accept() does) and ends the connect.
 */
static void ep_connect_response(struct kdapl_ep *ep, struct rdma_cm_id *id,
				const void *pd, u8 pdlen)
{
	struct ib_qp *qp;

	spin_lock_irq(&ep->lock);
	qp = ep->state == DAT_EP_STATE_ACTIVE_CONNECTION_PENDING ?
	     ep->qp : NULL;
	spin_unlock_irq(&ep->lock);
	if (!qp)
		return;		/* aborted meanwhile: the abort rejects */
	if (ep_qp_ready(ep, id, qp, NULL) || rdma_accept(id, NULL)) {
		ep_outcome(ep, KDAPL_EP_EV_CM_NON_PEER_REJECTED,
			   DAT_CONNECTION_EVENT_NON_PEER_REJECTED,
			   KDAPL_EP_ACT_ABORT, NULL, 0);
		return;
	}
	ep_established(ep, id, pd, pdlen);
}

static void ep_cm_event(struct kdapl_ep *ep, struct rdma_cm_id *id,
			struct rdma_cm_event *ev)
{
	const void *pd = ev->param.conn.private_data;
	u8 pdlen = ev->param.conn.private_data_len;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		spin_lock_irq(&ep->lock);
		ep->addr_resolved = true;
		spin_unlock_irq(&ep->lock);
		if (rdma_resolve_route(id, KDAPL_RESOLVE_MS))
			ep_outcome(ep, KDAPL_EP_EV_CM_UNREACHABLE,
				   DAT_CONNECTION_EVENT_UNREACHABLE,
				   KDAPL_EP_ACT_ABORT, NULL, 0);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		ep_route_resolved(ep, id);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
		/*
		 * An attempt expired: once more while there is time
		 * (ep_resolve_ms()), from the EP's work - not from here,
		 * where rdma_resolve_addr() would wait for this very
		 * request's work (rdma_addr_cancel).
		 */
		if (ev->status == -ETIMEDOUT &&
		    READ_ONCE(ep->state) ==
		    DAT_EP_STATE_ACTIVE_CONNECTION_PENDING &&
		    ep_resolve_ms(ep)) {
			kdapl_ep_queue(ep, KDAPL_EP_ACT_RESOLVE);
			break;
		}
		fallthrough;
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
		if (!ep_outcome(ep, KDAPL_EP_EV_CM_UNREACHABLE,
				DAT_CONNECTION_EVENT_UNREACHABLE,
				KDAPL_EP_ACT_ABORT, NULL, 0))
			/* the passive end: IB's REP timed out */
			ep_outcome(ep, KDAPL_EP_EV_ACCEPT_ERROR,
				   DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR,
				   KDAPL_EP_ACT_ABORT, NULL, 0);
		break;
	case RDMA_CM_EVENT_REJECTED:
		if (ep_peer_rejected(id, ev->status, pd, pdlen)) {
			if (ep_outcome(ep, KDAPL_EP_EV_CM_PEER_REJECTED,
				       DAT_CONNECTION_EVENT_PEER_REJECTED,
				       KDAPL_EP_ACT_ABORT, pd, pdlen))
				break;
		} else if (ep_outcome(ep, KDAPL_EP_EV_CM_NON_PEER_REJECTED,
				      DAT_CONNECTION_EVENT_NON_PEER_REJECTED,
				      KDAPL_EP_ACT_ABORT, NULL, 0)) {
			break;
		}
		/*
		 * The passive end, accepted: the requester went away before
		 * the connection was up (IB: its CM answers our REP with a
		 * REJ once its cm_id is destroyed; a REP that times out is
		 * UNREACHABLE, above). No timer runs on this side.
		 */
		ep_outcome(ep, KDAPL_EP_EV_ACCEPT_ERROR,
			   DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR,
			   KDAPL_EP_ACT_ABORT, NULL, 0);
		break;
	case RDMA_CM_EVENT_CONNECT_ERROR:
		if (!ep_outcome(ep, KDAPL_EP_EV_CM_NON_PEER_REJECTED,
				DAT_CONNECTION_EVENT_NON_PEER_REJECTED,
				KDAPL_EP_ACT_ABORT, NULL, 0))
			ep_outcome(ep, KDAPL_EP_EV_ACCEPT_ERROR,
				   DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR,
				   KDAPL_EP_ACT_ABORT, NULL, 0);
		break;
	case RDMA_CM_EVENT_CONNECT_RESPONSE:
		ep_connect_response(ep, id, pd, pdlen);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		/*
		 * iWARP: iw_cm reports the provider's IRD as initiator_depth
		 * and its ORD as responder_resources (cma_iw_handler); siw
		 * and kiwarp give the connection's own (negotiated) values.
		 * IB: ep_qp_ready() took them from the QP's attributes.
		 */
		if (ep->base.ia->prov->iwarp)
			ep_set_reads(ep, ev->param.conn.initiator_depth,
				     ev->param.conn.responder_resources);
		ep_established(ep, id, pd, pdlen);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		ep_gone(ep, ev->status != 0 && ev->status != -ECONNRESET);
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		/* kdapl_ia_kill() tears the EP down from the registry. */
		break;
	default:
		break;
	}
}

/**
 * kdapl_ep_iws_event() - an event of an EP's socket takeover
 * @ep: the EP (the takeover holds a reference)
 * @ev: the provider's event (include/kiwarp/sock.h)
 *
 * The socket takeover's twin of ep_cm_event(): the same outcomes. A
 * failed exchange is UNREACHABLE when the network gave up (TCP timeout,
 * ICMP unreachable), else NON_PEER_REJECTED (seed 000: every other
 * reason). After establishment the peer's close (FIN, or a reset: an
 * abrupt disconnect) is DISCONNECTED, an LLP timeout, TERMINATE or a
 * removed device BROKEN.
 *
 * Context: the provider's event handler (process context, the
 * takeover's mutex held); takes ep->lock only.
 */
void kdapl_ep_iws_event(struct kdapl_ep *ep,
			const struct kiwarp_sock_event *ev)
{
	u16 len = ev->pdata_len;
	enum kdapl_ep_op op;
	DAT_EVENT_NUMBER num;

	switch (ev->type) {
	case KIWARP_SOCK_EV_ESTABLISHED:
		ep_set_reads(ep, ev->ird, ev->ord);
		if (!ep_outcome(ep, KDAPL_EP_EV_CM_ESTABLISHED,
				DAT_CONNECTION_EVENT_ESTABLISHED, -1,
				ev->pdata, len)) {
			/* stale: the socket is the connection's now */
			spin_lock_irq(&ep->lock);
			ep->iws_bound = true;
			spin_unlock_irq(&ep->lock);
			kdapl_ep_queue(ep, KDAPL_EP_ACT_ABORT);
		}
		break;
	case KIWARP_SOCK_EV_REJECTED:
		if (kiwarp_nonpeer_reject(ev->pdata, len, false))
			ep_outcome(ep, KDAPL_EP_EV_CM_NON_PEER_REJECTED,
				   DAT_CONNECTION_EVENT_NON_PEER_REJECTED,
				   KDAPL_EP_ACT_ABORT, NULL, 0);
		else
			ep_outcome(ep, KDAPL_EP_EV_CM_PEER_REJECTED,
				   DAT_CONNECTION_EVENT_PEER_REJECTED,
				   KDAPL_EP_ACT_ABORT, ev->pdata, len);
		break;
	case KIWARP_SOCK_EV_FAILED:
		if (ev->status == -ETIMEDOUT || ev->status == -EHOSTUNREACH ||
		    ev->status == -ENETUNREACH) {
			op = KDAPL_EP_EV_CM_UNREACHABLE;
			num = DAT_CONNECTION_EVENT_UNREACHABLE;
		} else {
			op = KDAPL_EP_EV_CM_NON_PEER_REJECTED;
			num = DAT_CONNECTION_EVENT_NON_PEER_REJECTED;
		}
		if (!ep_outcome(ep, op, num, KDAPL_EP_ACT_ABORT, NULL, 0))
			ep_outcome(ep, KDAPL_EP_EV_ACCEPT_ERROR,
				   DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR,
				   KDAPL_EP_ACT_ABORT, NULL, 0);
		break;
	case KIWARP_SOCK_EV_DISCONNECT:
		ep_gone(ep, false);
		break;
	case KIWARP_SOCK_EV_CLOSED:
		ep_gone(ep, ev->status && ev->status != -ECONNRESET);
		break;
	default:
		break;
	}
}

/**
 * kdapl_cm_handler() - rdma_cm event handler of every kdapl cm_id
 * @id: the cm_id; its context is the EP, PSP/RSP or CR it belongs to
 * @ev: the event
 *
 * Return: 0; cm_ids are always destroyed by their owner, never by
 * returning non-zero, except a connection request that cannot be taken
 * (sp.c), whose new cm_id rdma_cm then destroys and rejects.
 * Context: process context, the cm_id's handler mutex held.
 */
int kdapl_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct kdapl_obj *o = id->context;
	int was = kdapl_fault_begin();
	int ret = 0;

	switch (o->hobj.type) {
	case KDAPL_HT_EP:
		trace_kdapl_cm_event(kdapl_obj_handle(o), ev->event, ev->status);
		ep_cm_event(container_of(o, struct kdapl_ep, base), id, ev);
		break;
	case KDAPL_HT_PSP:
	case KDAPL_HT_RSP:
		ret = kdapl_sp_cm_event(container_of(o, struct kdapl_sp, base),
					id, ev);
		break;
	default:
		/* A CR's cm_id before accept: the accept or reject sees it. */
		break;
	}
	kdapl_fault_end(was);
	return ret;
}

static DAT_RETURN ep_connect(struct kdapl_ep *ep,
			     const struct sockaddr *addr, DAT_CONN_QUAL qual,
			     DAT_TIMEOUT timeout, DAT_COUNT pdata_size,
			     const void *pdata, DAT_QOS qos)
{
	struct kdapl_ia *ia = ep->base.ia;
	unsigned long flags;
	DAT_RETURN ret;

	ret = kdapl_sockaddr_check(addr);
	if (ret != DAT_SUCCESS)
		return ret;
	if (!qual || qual > U16_MAX)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (!timeout)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	if (pdata_size < 0 || pdata_size > ia->prov->max_private_data ||
	    (pdata_size && !pdata))
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	if (qos != DAT_QOS_BEST_EFFORT)
		return DAT_ERROR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
	if (READ_ONCE(ia->dead))
		return DAT_ERROR(DAT_INVALID_STATE, DAT_NO_SUBTYPE);

	spin_lock_irqsave(&ep->lock, flags);
	ret = kdapl_ep_state_check(ep->state, KDAPL_EP_OP_CONNECT);
	if (ret == DAT_SUCCESS && !ep->qp)
		ret = DAT_ERROR(DAT_INVALID_STATE,
				DAT_INVALID_STATE_EP_UNCONFIGURED);
	/* the provider's allocation, made ahead (kdapl_ep_spare_fill()) */
	if (ret == DAT_SUCCESS && !ep->spare_id)
		ret = DAT_ERROR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
	if (ret == DAT_SUCCESS) {
		kdapl_ep_move(ep, KDAPL_EP_OP_CONNECT);
		memset(&ep->remote, 0, sizeof(ep->remote));
		memcpy(&ep->remote, addr, sockaddr_len(addr));
		sockaddr_set_port(&ep->remote, qual);
		ep->remote_qual = qual;
		if (pdata_size)
			memcpy(ep->pdata, pdata, pdata_size);
		ep->pdata_len = pdata_size;
		ep->peer_pdata_len = 0;
		ep->addr_resolved = false;
		kdapl_ep_arm_timer(ep, timeout);
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	if (ret == DAT_SUCCESS)
		kdapl_ep_queue(ep, KDAPL_EP_ACT_CONNECT);
	return ret;
}

/**
 * dat_ep_connect() - connect an endpoint to a remote service point
 * @ep_handle: an EP in DAT_EP_STATE_UNCONNECTED
 * @remote_ia_address: the remote IA's IPv4 or IPv6 address
 * @remote_conn_qual: the remote service point's qualifier: a TCP port
 *	(1-65535)
 * @timeout: microseconds, or DAT_TIMEOUT_INFINITE; 0 is refused
 * @private_data_size: bytes of @private_data, at most the provider's
 *	max_private_data_size
 * @private_data: sent with the connection request
 * @quality_of_service: DAT_QOS_BEST_EFFORT
 * @connect_flags: DAT_CONNECT_DEFAULT_FLAG
 *
 * The outcome arrives on the connect EVD: ESTABLISHED (CONNECTED),
 * PEER_REJECTED, NON_PEER_REJECTED (nobody listening, transport error),
 * UNREACHABLE or TIMED_OUT (each DISCONNECTED).
 *
 * Return: DAT_SUCCESS (the EP is ACTIVE_CONNECTION_PENDING),
 * DAT_INVALID_HANDLE, DAT_INVALID_PARAMETER, DAT_INVALID_ADDRESS,
 * DAT_INVALID_STATE, DAT_MODEL_NOT_SUPPORTED, DAT_INSUFFICIENT_RESOURCES
 * (the rdma_cm id, made ahead by dat_ep_create() or dat_ep_reset(),
 * could not be allocated: dat_ep_reset() tries again).
 * Context: any context, upcalls included; never sleeps.
 */
DAT_RETURN dat_ep_connect(DAT_EP_HANDLE ep_handle,
			  DAT_IA_ADDRESS_PTR remote_ia_address,
			  DAT_CONN_QUAL remote_conn_qual, DAT_TIMEOUT timeout,
			  DAT_COUNT private_data_size,
			  const DAT_PVOID private_data,
			  DAT_QOS quality_of_service,
			  DAT_CONNECT_FLAGS connect_flags)
{
	struct kdapl_ep *ep;
	DAT_RETURN ret;

	/* the handle first: a bad handle is DAT_INVALID_HANDLE whatever else */
	ep = kdapl_ep_get(ep_handle);
	if (!ep)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	if (connect_flags != DAT_CONNECT_DEFAULT_FLAG)
		ret = DAT_ERROR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
	else
		ret = ep_connect(ep, remote_ia_address, remote_conn_qual,
				 timeout, private_data_size, private_data,
				 quality_of_service);
	kdapl_obj_put(&ep->base);
	return ret;
}
EXPORT_SYMBOL_GPL(dat_ep_connect);

/**
 * dat_ep_dup_connect() - connect to where another endpoint is connected
 * @ep_handle: an EP in DAT_EP_STATE_UNCONNECTED
 * @ep_dup_handle: a CONNECTED EP whose remote address and qualifier are
 *	used
 * @timeout: as for dat_ep_connect()
 * @private_data_size: as for dat_ep_connect()
 * @private_data: as for dat_ep_connect()
 * @quality_of_service: as for dat_ep_connect()
 *
 * Return: as dat_ep_connect(); DAT_INVALID_STATE if @ep_dup_handle is not
 * connected.
 * Context: any context, upcalls included; never sleeps.
 */
DAT_RETURN dat_ep_dup_connect(DAT_EP_HANDLE ep_handle,
			      DAT_EP_HANDLE ep_dup_handle, DAT_TIMEOUT timeout,
			      DAT_COUNT private_data_size,
			      const DAT_PVOID private_data,
			      DAT_QOS quality_of_service)
{
	struct sockaddr_storage remote;
	struct kdapl_ep *ep, *dup;
	unsigned long flags;
	DAT_CONN_QUAL qual;
	DAT_RETURN ret;

	dup = kdapl_ep_get(ep_dup_handle);
	if (!dup)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	spin_lock_irqsave(&dup->lock, flags);
	ret = kdapl_ep_state_check(dup->state, KDAPL_EP_OP_DUP_SOURCE);
	remote = dup->remote;
	spin_unlock_irqrestore(&dup->lock, flags);
	kdapl_obj_put(&dup->base);
	if (ret != DAT_SUCCESS)
		return ret;
	qual = remote.ss_family == AF_INET6 ?
	       ntohs(((struct sockaddr_in6 *)&remote)->sin6_port) :
	       ntohs(((struct sockaddr_in *)&remote)->sin_port);

	ep = kdapl_ep_get(ep_handle);
	if (!ep)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);
	if (ep == dup)
		ret = DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	else
		ret = ep_connect(ep, (struct sockaddr *)&remote, qual, timeout,
				 private_data_size, private_data,
				 quality_of_service);
	kdapl_obj_put(&ep->base);
	return ret;
}
EXPORT_SYMBOL_GPL(dat_ep_dup_connect);

/**
 * dat_ep_disconnect() - close a connection
 * @ep_handle: the EP
 * @close_flags: DAT_CLOSE_GRACEFUL_FLAG or DAT_CLOSE_ABRUPT_FLAG
 *
 * Graceful, on a CONNECTED EP: DISCONNECT_PENDING; once the peer's
 * disconnect (or an error) was seen and the QP is drained, one
 * DISCONNECTED event. Abrupt, and either kind while a connection is being
 * set up: the EP is DISCONNECTED when the call returns, the DISCONNECTED
 * event is posted by the call, outstanding work is flushed. On a
 * DISCONNECTED EP, or a second graceful call, a no-op.
 *
 * Return: DAT_SUCCESS, DAT_INVALID_HANDLE, DAT_INVALID_PARAMETER,
 * DAT_INVALID_STATE.
 * Context: any context, upcalls included; never sleeps.
 */
DAT_RETURN dat_ep_disconnect(DAT_EP_HANDLE ep_handle,
			     DAT_CLOSE_FLAGS close_flags)
{
	enum kdapl_ep_op op;
	struct kdapl_ep *ep;
	unsigned long flags;
	DAT_EP_STATE was;
	bool post = false;
	DAT_RETURN ret;
	int act = -1;

	if (close_flags == DAT_CLOSE_GRACEFUL_FLAG)
		op = KDAPL_EP_OP_DISCONNECT_GRACEFUL;
	else if (close_flags == DAT_CLOSE_ABRUPT_FLAG)
		op = KDAPL_EP_OP_DISCONNECT_ABRUPT;
	else
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	ep = kdapl_ep_get(ep_handle);
	if (!ep)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP);

	spin_lock_irqsave(&ep->lock, flags);
	was = ep->state;
	trace_kdapl_disconnect(ep_handle, op == KDAPL_EP_OP_DISCONNECT_GRACEFUL,
			       was);
	ret = kdapl_ep_state_check(was, op);
	if (ret == DAT_SUCCESS && kdapl_ep_move(ep, op) && ep->state != was) {
		if (ep->state == DAT_EP_STATE_DISCONNECT_PENDING) {
			ep->disc_peer_seen = false;
			ep->disc_broken = false;
			ep->disc_forcing = false;
			ep->disc_asked = false;
			kdapl_ep_arm_timer(ep, kdapl_disconnect_timeout_us());
			act = KDAPL_EP_ACT_DISCONNECT;
		} else {
			ep->deadline = jiffies + MAX_JIFFY_OFFSET;
			del_timer(&ep->timer);
			ep->peer_pdata_len = 0;
			act = KDAPL_EP_ACT_ABORT;
			post = true;
			/* A socket connect: the event once the socket is back. */
			if (ep->iws &&
			    was == DAT_EP_STATE_ACTIVE_CONNECTION_PENDING) {
				ep->iws_event = DAT_CONNECTION_EVENT_DISCONNECTED;
				post = false;
			}
		}
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	if (post)
		kdapl_ep_post_conn(ep, DAT_CONNECTION_EVENT_DISCONNECTED);
	if (act >= 0)
		kdapl_ep_queue(ep, act);
	kdapl_obj_put(&ep->base);
	return ret;
}
EXPORT_SYMBOL_GPL(dat_ep_disconnect);
