// SPDX-License-Identifier: GPL-2.0
/*
 * kiwarp: RC queue pairs - creation, the state machine, posting work,
 * completions and flushing.
 *
 * QP states (RDMAC verbs), every change through
 * kiwarp_qp_set_state_locked() with qp->state_lock held:
 *
 *   IDLE       created, or reset; receives may be posted, sends queue
 *   RTS        connected (cm.c bound a socket); data moves
 *   CLOSING    graceful close asked (IB_QPS_SQD), or the peer's FIN came
 *              in RTS (receives flushed, the owner told): the SQ
 *              drains, then our TCP half closes; the close of both
 *              halves ends in ERROR. Work posted now is an error that
 *              resets the connection (closing rules, seed 004)
 *   TERMINATE  a protocol error was seen: a TERMINATE is being sent
 *   ERROR      all work completes with IB_WC_WR_FLUSH_ERR; the
 *              connection (if any) is torn down (cm.c down work)
 *
 *   IDLE -> RTS | ERROR;  RTS -> CLOSING | TERMINATE | ERROR;
 *   CLOSING -> TERMINATE | ERROR;  TERMINATE -> ERROR;
 *   ERROR -> IDLE (IB_QPS_RESET, only once disconnected and flushed).
 *
 * ib_qp_state mapping (modify/query): RESET, INIT, RTR <-> IDLE, RTS <->
 * RTS, SQD -> CLOSING, SQE -> TERMINATE, ERR -> ERROR.
 *
 * Send queue completions are generated in posting order: a WQE that
 * finishes early (a Send after a Read still waiting for its response)
 * is marked done and retired when all older ones are.
 */

#include <linux/slab.h>
#include <linux/log2.h>

#include <linux/sched/isolation.h>
#include <net/tcp.h>

#include "kiwarp.h"

#define CREATE_TRACE_POINTS
#include "kiwarp_trace.h"

const char *const kiwarp_qp_state_name[KIWARP_QPS_COUNT] = {
	[KIWARP_QPS_IDLE] = "IDLE",
	[KIWARP_QPS_RTS] = "RTS",
	[KIWARP_QPS_CLOSING] = "CLOSING",
	[KIWARP_QPS_TERMINATE] = "TERMINATE",
	[KIWARP_QPS_ERROR] = "ERROR",
};
EXPORT_SYMBOL_NS_GPL(kiwarp_qp_state_name, KIWARP_INTERNAL);

/* allowed[from] is a bit mask of the states reachable from "from" */
static const u8 kiwarp_qp_allowed[KIWARP_QPS_COUNT] = {
	[KIWARP_QPS_IDLE] = BIT(KIWARP_QPS_RTS) | BIT(KIWARP_QPS_ERROR),
	[KIWARP_QPS_RTS] = BIT(KIWARP_QPS_CLOSING) |
			   BIT(KIWARP_QPS_TERMINATE) | BIT(KIWARP_QPS_ERROR),
	[KIWARP_QPS_CLOSING] = BIT(KIWARP_QPS_TERMINATE) |
			       BIT(KIWARP_QPS_ERROR),
	[KIWARP_QPS_TERMINATE] = BIT(KIWARP_QPS_ERROR),
	[KIWARP_QPS_ERROR] = BIT(KIWARP_QPS_IDLE),
};

/**
 * kiwarp_qp_set_state_locked() - the one place QP states change.
 * @qp: the QP, qp->state_lock held
 * @next: the new state
 *
 * Return: 0 (also when already in @next) or -EINVAL for a transition
 * the table does not allow.
 */
int kiwarp_qp_set_state_locked(struct kiwarp_qp *qp,
			       enum kiwarp_qp_state next)
{
	lockdep_assert_held(&qp->state_lock);
	if (qp->state == next)
		return 0;
	if (!(kiwarp_qp_allowed[qp->state] & BIT(next)))
		return -EINVAL;
	trace_kiwarp_qp_state(qp, qp->state, next);
	qp->state = next;
	return 0;
}
EXPORT_SYMBOL_NS_GPL(kiwarp_qp_set_state_locked, KIWARP_INTERNAL);

enum kiwarp_qp_state kiwarp_qp_state(struct kiwarp_qp *qp)
{
	return READ_ONCE(qp->state);
}
EXPORT_SYMBOL_NS_GPL(kiwarp_qp_state, KIWARP_INTERNAL);

static void kiwarp_qp_release(struct kref *ref)
{
	complete(&container_of(ref, struct kiwarp_qp, ref)->freed);
}

void kiwarp_qp_get(struct kiwarp_qp *qp)
{
	kref_get(&qp->ref);
}

void kiwarp_qp_put(struct kiwarp_qp *qp)
{
	kref_put(&qp->ref, kiwarp_qp_release);
}

/*
 * Queue one of the QP's works on @cpu (WORK_CPU_UNBOUND: this one); a
 * queued work holds a QP reference. The teardown goes to its own
 * workqueue: it waits for the others.
 */
static void kiwarp_qp_queue_on(struct kiwarp_qp *qp, struct work_struct *work,
			       int cpu)
{
	kiwarp_qp_get(qp);
	if (!queue_work_on(cpu, work == &qp->down_work ? kiwarp_down_wq :
			   kiwarp_wq, work))
		kiwarp_qp_put(qp);
}

void kiwarp_qp_queue(struct kiwarp_qp *qp, struct work_struct *work)
{
	kiwarp_qp_queue_on(qp, work, WORK_CPU_UNBOUND);
}

/*
 * A CPU for @qp's bulk work (receive placement, Read Responses) other
 * than @cpu, if there is one: an online CPU that may run kernel work
 * (not isolated), the QPs spread over those by their number. Both
 * works of a QP get the same one: a QP that places bulk data while it
 * answers bulk Reads has them share it.
 */
static int kiwarp_qp_other_cpu(struct kiwarp_qp *qp, int cpu)
{
	const struct cpumask *hk = housekeeping_cpumask(HK_TYPE_WQ);
	unsigned int n = cpumask_weight_and(cpu_online_mask, hk);
	unsigned int skip, steps, next = cpu;

	if (n < 2)
		return cpu;
	skip = qp->ibqp.qp_num % (n - 1);
	/* bounded: CPUs may go offline meanwhile (from process context) */
	for (steps = 0; steps < 2 * nr_cpu_ids; steps++) {
		next = cpumask_next_and(next, cpu_online_mask, hk);
		if (next >= nr_cpu_ids)
			next = cpumask_first_and(cpu_online_mask, hk);
		if (next >= nr_cpu_ids)
			break;
		if (next != cpu && !skip--)
			return next;
	}
	return cpu;
}

/*
 * A CPU for bulk work of @qp other than the one the peer's data comes
 * from (issue 17): on veth and loopback TCP's receive softirq runs on
 * the sending CPU, so that is where the peer's TX work runs. It is the
 * CPU of the last softirq delivery, not of this call: a backlog parsed
 * in release_sock() runs on the socket owner's CPU - our own TX work
 * sending a Read Response, say - and "away" from that would put the
 * work right beside the peer's sender.
 */
static int kiwarp_qp_away_cpu(struct kiwarp_qp *qp)
{
	int src = READ_ONCE(qp->rx_src_cpu);

	/* none yet, or gone since: with no other CPU we stay here */
	if (src < 0 || !cpu_online(src))
		src = raw_smp_processor_id();
	return kiwarp_qp_other_cpu(qp, src);
}

/*
 * Queue @qp's RX work away from the peer's sender. A CPU that goes
 * offline leaves the work to the workqueue's unbound workers.
 */
void kiwarp_qp_queue_rx_away(struct kiwarp_qp *qp)
{
	kiwarp_qp_queue_on(qp, &qp->rx_work, kiwarp_qp_away_cpu(qp));
}

/*
 * A Read Response of more than KIWARP_READ_AWAY_BYTES (rx.c) is sent
 * away from the peer's sender too: there, on veth, the requester's own
 * TX work and completions run. A small one is sent where it was asked.
 * This places an idle TX work (a request parsed in the softirq or the
 * RX work); while the TX work runs the workqueue keeps it on its CPU,
 * and it takes requests parsed in its own release_sock() in the same
 * pass.
 */
void kiwarp_qp_kick_tx_away(struct kiwarp_qp *qp)
{
	kiwarp_qp_queue_on(qp, &qp->tx_work, kiwarp_qp_away_cpu(qp));
}

/* A post (or a state change) runs the TX work where it is made. */
void kiwarp_qp_kick_tx(struct kiwarp_qp *qp)
{
	kiwarp_qp_queue(qp, &qp->tx_work);
}

/*
 * Room again in TCP, a freed ORQ slot or zero-copy record: the TX work
 * goes on where it last ran. Those kicks come where the peer's
 * acknowledgments or Read Responses are processed - on veth the CPU of
 * the peer's bulk receive work (kiwarp_qp_queue_rx_away()) - and the
 * TX work would follow them there and share that CPU for good.
 */
void kiwarp_qp_kick_tx_home(struct kiwarp_qp *qp)
{
	int cpu = READ_ONCE(qp->tx_cpu);

	kiwarp_qp_queue_on(qp, &qp->tx_work, cpu < 0 || !cpu_online(cpu) ?
			   WORK_CPU_UNBOUND : cpu);
}

void kiwarp_iw_add_ref(struct ib_qp *ibqp)
{
	kiwarp_qp_get(to_kqp(ibqp));
}

void kiwarp_iw_rem_ref(struct ib_qp *ibqp)
{
	kiwarp_qp_put(to_kqp(ibqp));
}

/**
 * kiwarp_qp_lookup() - the QP numbered @qpn, with a reference.
 * @kdev: the device
 * @qpn: the QP number
 *
 * A QP being destroyed (out of the index, or its count already at zero)
 * is not found. Context: any; takes the index's lock.
 * Return: the QP (put with kiwarp_qp_put()) or NULL.
 */
struct kiwarp_qp *kiwarp_qp_lookup(struct kiwarp_dev *kdev, u32 qpn)
{
	struct kiwarp_qp *qp;

	xa_lock(&kdev->qp_xa);
	qp = xa_load(&kdev->qp_xa, qpn);
	if (qp && !kref_get_unless_zero(&qp->ref))
		qp = NULL;
	xa_unlock(&kdev->qp_xa);
	return qp;
}

/*
 * iw_cm looks a QP up by number and takes its own reference right after
 * (iw_add_ref, under its cm_id lock), as it does with siw: the consumer
 * owns the QP across iw_cm_connect()/iw_cm_accept(). A QP already being
 * destroyed is not returned.
 */
struct ib_qp *kiwarp_iw_get_qp(struct ib_device *ibdev, int qpn)
{
	struct kiwarp_qp *qp = kiwarp_qp_lookup(to_kdev(ibdev), qpn);

	if (!qp)
		return NULL;
	kiwarp_qp_put(qp);
	return &qp->ibqp;
}
EXPORT_SYMBOL_NS_GPL(kiwarp_iw_get_qp, KIWARP_INTERNAL);

/**
 * kiwarp_qp_error() - move @qp to ERROR: flush and tear down.
 * @qp: the QP
 *
 * Context: any. The connection teardown (cm.c) runs in a work.
 */
void kiwarp_qp_error(struct kiwarp_qp *qp)
{
	unsigned long flags;
	bool down = false;

	spin_lock_irqsave(&qp->state_lock, flags);
	kiwarp_qp_set_state_locked(qp, KIWARP_QPS_ERROR);
	if (qp->conn_up && !qp->down_queued) {
		qp->down_queued = true;
		down = true;
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (down)
		kiwarp_qp_queue(qp, &qp->down_work);
	kiwarp_qp_flush_rq(qp);
	kiwarp_qp_kick_tx(qp);
}
EXPORT_SYMBOL_NS_GPL(kiwarp_qp_error, KIWARP_INTERNAL);

/**
 * kiwarp_qp_down_status() - record why the connection goes down.
 * @qp: the QP
 * @status: 0 (orderly close) or a negative errno (see kiwarp/sock.h,
 *	KIWARP_SOCK_EV_CLOSED)
 *
 * The first reason recorded for a connection wins. Context: any.
 */
void kiwarp_qp_down_status(struct kiwarp_qp *qp, int status)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->state_lock, flags);
	if (qp->conn_up && !qp->down_queued && !qp->down_status_set) {
		qp->down_status_set = true;
		qp->down_status = status;
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);
}

/*
 * Our consumer closes abruptly (ERROR, destroy; iw_cm's abrupt
 * disconnect): a reset, unless the connection is already ending for
 * another reason. An abortive close resets (RFC 5040's closing rules,
 * issue 15 item 3); siw closes with a FIN even then. Not once a
 * graceful close started (CLOSING): kernel ULPs call rdma_disconnect()
 * and then drain, which moves the QP to ERROR at once; a reset there
 * would throw away sends TCP still holds that already completed, as
 * cxgb4 also avoids. A taken-over socket is reset in any state, unless
 * the peer closed first (its FIN came): the close is answered with ours.
 */
static void kiwarp_qp_abrupt(struct kiwarp_qp *qp)
{
	struct ib_device *dev = &qp->kdev->ibdev;
	int status = -ECONNRESET;
	unsigned long flags;

	/* during unregistration (device or netdev removed): -ENODEV */
	if (!ib_device_try_get(dev))
		status = -ENODEV;
	else
		ib_device_put(dev);
	spin_lock_irqsave(&qp->state_lock, flags);
	if (qp->conn_up && !qp->down_queued) {
		qp->local_close = true;
		if (!qp->down_status_set) {
			qp->down_status_set = true;
			qp->down_status = status;
			if (!qp->peer_closed &&
			    (qp->sock_mode || qp->state == KIWARP_QPS_RTS))
				WRITE_ONCE(qp->abort, true);
		}
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);
}

/*
 * Bound the rest of a graceful close (kiwarp_close_timeout_ms): our SQ
 * draining, our FIN, the peer's. The timer holds a QP reference. Not
 * once the teardown is queued: it cancels the timer after it marked the
 * connection down, and a timer armed after that would outlive the
 * connection (a destroy waiting for its reference, or a next connection
 * of the QP reset at its expiry).
 */
static void kiwarp_qp_arm_close(struct kiwarp_qp *qp)
{
	unsigned long tmo = msecs_to_jiffies(kiwarp_close_timeout_ms);
	unsigned long flags;

	spin_lock_irqsave(&qp->state_lock, flags);
	if (qp->conn_up && !qp->down_queued) {
		kiwarp_qp_get(qp);
		if (!queue_delayed_work(kiwarp_wq, &qp->close_work, tmo))
			kiwarp_qp_put(qp);
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);
}

/**
 * kiwarp_qp_peer_fin() - the peer closed its half of the connection.
 * @qp: the QP; all the peer sent was parsed
 *
 * The closing rules (seed 004, FIG. 14; RDMAC verbs): in RTS the QP goes
 * CLOSING, not ERROR. Nothing can arrive after the FIN, so the receives
 * are flushed (and any posted later, at once) and the owner is told now
 * (iw_cm's DISCONNECT, the takeover's KIWARP_SOCK_EV_DISCONNECT).
 * Nothing more of ours may go either (data after its FIN is the peer's
 * error): the WQE in progress finishes, our FIN follows at once and ends
 * the connection (kiwarp_tx_step()), within kiwarp_close_timeout_ms; the
 * WQEs not sent, and sends posted now (kiwarp_qp_post_closing()), are
 * flushed. When we closed first and our FIN is out, the connection is
 * over now; when our own close is still draining, its FIN follows the
 * WQE in progress the same way.
 *
 * Context: the RX work (process context, no lock held).
 */
void kiwarp_qp_peer_fin(struct kiwarp_qp *qp)
{
	enum { PEER_FIN_END, PEER_FIN_HALF, PEER_FIN_DRAIN } what;
	const struct kiwarp_conn_ops *ops;
	unsigned long flags;
	bool again;

	spin_lock_irqsave(&qp->state_lock, flags);
	again = qp->peer_closed;
	WRITE_ONCE(qp->peer_closed, true);
	what = PEER_FIN_END;
	if (qp->conn_up && !qp->down_queued && !qp->fin_sent) {
		if (qp->state == KIWARP_QPS_RTS &&
		    !kiwarp_qp_set_state_locked(qp, KIWARP_QPS_CLOSING))
			what = PEER_FIN_HALF;
		else if (qp->state == KIWARP_QPS_CLOSING)
			what = PEER_FIN_DRAIN;
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (again && what != PEER_FIN_END)
		return;		/* an RX pass after the FIN: nothing new */
	trace_kiwarp_rx_down(qp, 0, true);

	if (what == PEER_FIN_END) {
		kiwarp_qp_down_status(qp, 0);
		kiwarp_qp_error(qp);
		return;
	}
	kiwarp_qp_flush_rq(qp);
	if (what == PEER_FIN_HALF) {
		ibdev_dbg(qp->ibqp.device, "qp %u: peer closed: CLOSING\n",
			  qp->ibqp.qp_num);
		kiwarp_qp_arm_close(qp);
		/*
		 * conn_ops and conn_priv stay while the RX work runs: the
		 * teardown flushes it before it clears them. Not under
		 * conn_lock: the takeover's owner takes its own lock first.
		 */
		ops = qp->conn_ops;
		qp->peer_told = true;
		if (ops && ops->peer_closed)
			ops->peer_closed(qp, qp->conn_priv);
	}
	kiwarp_qp_kick_tx(qp);	/* drain, then our FIN */
}

/**
 * kiwarp_qp_fin_sent() - our FIN is out (the TX work, CLOSING, SQ drained).
 * @qp: the QP
 *
 * Return: true if the peer's FIN came first: the connection is over, and
 * it was ended here (status 0).
 */
bool kiwarp_qp_fin_sent(struct kiwarp_qp *qp)
{
	unsigned long flags;
	bool both;

	spin_lock_irqsave(&qp->state_lock, flags);
	WRITE_ONCE(qp->fin_sent, true);
	both = qp->peer_closed;
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (both) {
		kiwarp_qp_down_status(qp, 0);
		kiwarp_qp_error(qp);
	}
	return both;
}

/*
 * A send posted in CLOSING (seed 004, FIG. 13 (4), FIG. 16 (3); RDMAC
 * verbs). In a close our consumer started it is the error the closing
 * rules name: refused, the connection reset, the QP in ERROR (teardown
 * status -ECONNABORTED). In one the peer's FIN started, the consumer
 * may not have been told (rdma_cm reports iw_cm's DISCONNECT only with
 * the CLOSE): the send is taken and flushed once we are down, which is
 * at once (our FIN needs no drain then). Return: true if refused.
 * Context: any.
 */
static bool kiwarp_qp_post_closing(struct kiwarp_qp *qp)
{
	unsigned long flags;
	bool fire = false, refuse = false;

	spin_lock_irqsave(&qp->state_lock, flags);
	if (qp->state == KIWARP_QPS_CLOSING && !qp->peer_closed) {
		refuse = true;
		if (qp->conn_up && !qp->down_queued) {
			if (!qp->down_status_set) {
				qp->down_status_set = true;
				qp->down_status = -ECONNABORTED;
			}
			WRITE_ONCE(qp->abort, true);
			fire = true;
		}
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (fire) {
		qp->stats.errors++;
		ibdev_dbg(qp->ibqp.device, "qp %u: send posted in CLOSING: reset\n",
			  qp->ibqp.qp_num);
		kiwarp_qp_error(qp);
	}
	return refuse;
}

/* How often the close work looks whether a lost FIN's data is acked */
#define KIWARP_FIN_LOST_POLL_MS	5

/**
 * kiwarp_qp_fin_lost() - TCP queued no FIN for our close (the TX work).
 * @qp: the QP, CLOSING, its socket shut for sending (FIN_WAIT1)
 *
 * kiwarp_tcp_shutdown() found no FIN queued: the peer would never learn
 * of our close, and our close would end at its bound with a reset and
 * -ETIMEDOUT. End it as soon as that is lossless instead: the close work
 * polls until TCP has everything we sent acknowledged, then resets the
 * connection with status 0 - an orderly close whose last step is a
 * reset - or, not acknowledged within kiwarp_close_timeout_ms, with
 * -ETIMEDOUT as before (kiwarp_qp_close_timeout()).
 *
 * Context: the TX work.
 */
void kiwarp_qp_fin_lost(struct kiwarp_qp *qp)
{
	unsigned long flags;

	ibdev_dbg(qp->ibqp.device, "qp %u: no FIN queued for our close\n",
		  qp->ibqp.qp_num);
	spin_lock_irqsave(&qp->state_lock, flags);
	if (qp->conn_up && !qp->down_queued && !qp->fin_lost) {
		WRITE_ONCE(qp->fin_lost, true);	/* rx.c reads it */
		qp->fin_lost_end = jiffies +
				   msecs_to_jiffies(kiwarp_close_timeout_ms);
		/* a pending close work holds its reference already */
		kiwarp_qp_get(qp);
		if (mod_delayed_work(kiwarp_wq, &qp->close_work, 0))
			kiwarp_qp_put(qp);
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);
}

/**
 * kiwarp_qp_close_timeout() - a graceful close took too long.
 * @work: qp->close_work, armed when the QP went CLOSING
 *
 * The peer's FIN did not come within kiwarp_close_timeout_ms: reset the
 * connection (status -ETIMEDOUT). Holds a QP reference while armed.
 * After a lost FIN (kiwarp_qp_fin_lost()) it polls instead, and resets
 * with status 0 once our data is acknowledged. The socket is ours while
 * the connection is up and its teardown not queued: the teardown
 * releases it only after it queued itself and cancelled this work.
 */
void kiwarp_qp_close_timeout(struct work_struct *work)
{
	struct kiwarp_qp *qp = container_of(to_delayed_work(work),
					    struct kiwarp_qp, close_work);
	unsigned long flags;
	unsigned long poll = msecs_to_jiffies(KIWARP_FIN_LOST_POLL_MS);
	bool fire = false, again;
	int status = -ETIMEDOUT;
	struct sock *sk;

	spin_lock_irqsave(&qp->state_lock, flags);
	if (qp->conn_up && !qp->down_queued && !qp->down_status_set) {
		if (qp->fin_lost) {
			sk = qp->sock->sk;
			if (!before(READ_ONCE(tcp_sk(sk)->snd_una),
				    READ_ONCE(tcp_sk(sk)->write_seq)))
				status = 0;
			else if (!READ_ONCE(sk->sk_err) &&
				 time_before(jiffies, qp->fin_lost_end)) {
				/*
				 * Our reference goes with the requeued work;
				 * if another is pending, that one has its own.
				 */
				again = queue_delayed_work(kiwarp_wq,
							   &qp->close_work,
							   poll);
				spin_unlock_irqrestore(&qp->state_lock, flags);
				if (!again)
					kiwarp_qp_put(qp);
				return;
			}
		}
		qp->down_status_set = true;
		qp->down_status = status;
		WRITE_ONCE(qp->abort, true);
		fire = true;
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (fire) {
		ibdev_dbg(qp->ibqp.device, "qp %u: graceful close %s: reset\n",
			  qp->ibqp.qp_num, status ? "timed out" : "acked");
		kiwarp_qp_error(qp);
	}
	kiwarp_qp_put(qp);
}

/* IB_EVENT_QP_FATAL to the QP's consumer (see kiwarp_qp_fatal()). */
static void kiwarp_qp_tell_fatal(struct kiwarp_qp *qp)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = IB_EVENT_QP_FATAL,
	};

	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

/**
 * kiwarp_qp_fatal() - tell the consumer the peer's TERMINATE ends the QP
 * @qp: the QP; the caller recorded -EPROTO (kiwarp_qp_down_status())
 *	and moves it to ERROR next
 *
 * IB_EVENT_QP_FATAL to the QP's event handler, once per connection, for a
 * TERMINATE the peer sent, and (__kiwarp_qp_terminate()) for one we send
 * for an error we found. iw_cm reports the close that follows as any
 * other (IW_CM_EVENT_CLOSE, which rdma_cm turns into DISCONNECTED):
 * without the event a consumer could not tell the connection broke
 * (kdapl reports BROKEN on it, as over the socket takeover). siw reports
 * most of its protocol errors this way. Not for the consumer's own
 * Terminate (SQE), nor once the consumer moved the QP out of RTS and
 * CLOSING (an ERROR it asked for, a destroy in progress).
 *
 * Context: any; the RX path calls it under the socket lock, as a NIC
 * driver calls the handler from its interrupt.
 */
void kiwarp_qp_fatal(struct kiwarp_qp *qp)
{
	unsigned long flags;
	bool tell;

	spin_lock_irqsave(&qp->state_lock, flags);
	tell = qp->conn_up && !qp->fatal_told &&
	       (qp->state == KIWARP_QPS_RTS || qp->state == KIWARP_QPS_CLOSING);
	if (tell)
		qp->fatal_told = true;
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (tell)
		kiwarp_qp_tell_fatal(qp);
}

/*
 * Queue a TERMINATE for the TX work, then ERROR; the teardown lets the TX
 * work send it first (kiwarp_qp_down_work). @status: why the connection
 * goes down. @fatal: an error of ours, told to the consumer once the
 * TERMINATE is queued (a consumer's ERROR in reaction then waits for it
 * to go out instead of resetting the connection first).
 */
static void __kiwarp_qp_terminate(struct kiwarp_qp *qp, u8 layer, u8 etype,
				  u8 ecode, int status, bool fatal)
{
	unsigned long flags;
	bool kick = false, tell = false;

	kiwarp_qp_down_status(qp, status);
	spin_lock_irqsave(&qp->state_lock, flags);
	if (qp->conn_up &&
	    !kiwarp_qp_set_state_locked(qp, KIWARP_QPS_TERMINATE) &&
	    !qp->term_pending) {
		qp->term_pending = true;
		qp->term_layer = layer;
		qp->term_etype = etype;
		qp->term_ecode = ecode;
		kick = true;
		tell = fatal && !qp->fatal_told;
		if (tell)
			qp->fatal_told = true;
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);
	ibdev_dbg(qp->ibqp.device, "qp %u: terminate layer %u etype %u ecode %u\n",
		  qp->ibqp.qp_num, layer, etype, ecode);
	if (kick)
		kiwarp_qp_kick_tx(qp);
	else
		kiwarp_qp_error(qp);
	if (tell)
		kiwarp_qp_tell_fatal(qp);
}

/**
 * kiwarp_qp_terminate() - a protocol error: send TERMINATE, then ERROR.
 * @qp: the QP
 * @layer: TERM_LAYER_*
 * @etype: error type of that layer
 * @ecode: error code
 *
 * Context: the RX or TX work (stats). Only the first error is reported.
 */
void kiwarp_qp_terminate(struct kiwarp_qp *qp, u8 layer, u8 etype,
			 u8 ecode)
{
	qp->stats.errors++;
	__kiwarp_qp_terminate(qp, layer, etype, ecode, -EPROTO, true);
}

/**
 * kiwarp_qp_sqe() - the consumer's Terminate (modify_qp to SQE)
 * @qp: the QP, in RTS
 *
 * The peer is told with a TERMINATE (RDMAP, local catastrophic error,
 * code unspecified, as siw sends), then the connection ends, aborted by
 * the consumer: no error of the QP's (qp_errors), -ECONNABORTED as the
 * reason.
 *
 * Context: process context (modify_qp).
 */
void kiwarp_qp_sqe(struct kiwarp_qp *qp)
{
	__kiwarp_qp_terminate(qp, TERM_LAYER_RDMAP, RDMAP_ETYPE_CATASTROPHIC,
			      RDMAP_ECODE_UNSPECIFIED, -ECONNABORTED, false);
}

static bool kiwarp_sqe_signaled(struct kiwarp_qp *qp, struct kiwarp_swqe *w)
{
	return qp->sq_sig_all || (w->flags & IB_SEND_SIGNALED);
}

static enum ib_wc_opcode kiwarp_wc_opcode(enum ib_wr_opcode op)
{
	switch (op) {
	case IB_WR_RDMA_WRITE:
		return IB_WC_RDMA_WRITE;
	case IB_WR_RDMA_READ:
	case IB_WR_RDMA_READ_WITH_INV:
		return IB_WC_RDMA_READ;
	case IB_WR_REG_MR:
		return IB_WC_REG_MR;
	case IB_WR_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	default:
		return IB_WC_SEND;
	}
}

/* Retire finished WQEs from the SQ head in order. sq_lock held. */
static void kiwarp_sq_retire_locked(struct kiwarp_qp *qp)
{
	struct kiwarp_cq *cq = to_kcq(qp->ibqp.send_cq);
	struct kiwarp_swqe *w;
	struct ib_wc wc;

	while (qp->sq_head != qp->sq_next) {
		w = &qp->sq[qp->sq_head & (qp->sq_size - 1)];
		if (!w->done)
			break;
		if (kiwarp_sqe_signaled(qp, w) || w->status != IB_WC_SUCCESS) {
			memset(&wc, 0, sizeof(wc));
			wc.wr_id = w->wr_id;
			wc.status = w->status;
			wc.opcode = kiwarp_wc_opcode(w->opcode);
			wc.byte_len = w->byte_len;
			wc.qp = &qp->ibqp;
			kiwarp_cq_add(cq, &wc, w->status != IB_WC_SUCCESS);
		}
		qp->sq_head++;
	}
}

/**
 * kiwarp_sq_complete() - the WQE in SQ slot @idx is finished.
 * @qp: the QP
 * @idx: the slot index (free running)
 * @status: its completion status
 *
 * Context: any; takes sq_lock.
 */
void kiwarp_sq_complete(struct kiwarp_qp *qp, u32 idx,
			enum ib_wc_status status)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->sq_lock, flags);
	if (idx - qp->sq_head < qp->sq_next - qp->sq_head) {
		struct kiwarp_swqe *w = &qp->sq[idx & (qp->sq_size - 1)];

		w->done = true;
		w->status = status;
		kiwarp_sq_retire_locked(qp);
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
}

/**
 * kiwarp_qp_flush_sq() - complete every SQ WQE with a flush error.
 * @qp: the QP; its connection must be down (no RX placement going on)
 *
 * Context: the TX work or the teardown.
 */
void kiwarp_qp_flush_sq(struct kiwarp_qp *qp)
{
	unsigned long flags;
	u32 i;

	spin_lock_irqsave(&qp->sq_lock, flags);
	for (i = qp->sq_head; i != qp->sq_tail; i++) {
		struct kiwarp_swqe *w = &qp->sq[i & (qp->sq_size - 1)];

		if (!w->done) {
			w->done = true;
			w->status = IB_WC_WR_FLUSH_ERR;
		}
	}
	qp->sq_next = qp->sq_tail;
	qp->orq_head = qp->orq_tail;
	qp->irq_head = qp->irq_tail;
	kiwarp_sq_retire_locked(qp);
	spin_unlock_irqrestore(&qp->sq_lock, flags);
}

/*
 * Complete all posted receives with a flush error, in ERROR or once the
 * peer closed its half (kiwarp_qp_peer_fin(): nothing can arrive after
 * its FIN). In ERROR not while the oldest is held by a Send being placed
 * (kiwarp_qp.rq_held): the one ending that Send flushes the rest after
 * it. Called with rq_lock held.
 */
void kiwarp_qp_flush_rq_locked(struct kiwarp_qp *qp)
{
	struct kiwarp_cq *cq = to_kcq(qp->ibqp.recv_cq);
	bool eof = READ_ONCE(qp->peer_closed);
	struct ib_wc wc;

	lockdep_assert_held(&qp->rq_lock);
	if (kiwarp_qp_state(qp) == KIWARP_QPS_ERROR)
		eof = false;	/* the held one is the teardown's (rx.c) */
	else if (!eof || kiwarp_qp_state(qp) != KIWARP_QPS_CLOSING)
		return;
	if (qp->rq_held && !eof)
		return;
	/* after the peer's FIN nothing ends a Send being placed */
	qp->rq_held = false;
	while (qp->rq_head != qp->rq_tail) {
		memset(&wc, 0, sizeof(wc));
		wc.wr_id = qp->rq[qp->rq_head & (qp->rq_size - 1)].wr_id;
		wc.status = IB_WC_WR_FLUSH_ERR;
		wc.opcode = IB_WC_RECV;
		wc.qp = &qp->ibqp;
		kiwarp_cq_add(cq, &wc, true);
		qp->rq_head++;
	}
}

/* kiwarp_qp_flush_rq_locked(), taking rq_lock. Context: any. */
void kiwarp_qp_flush_rq(struct kiwarp_qp *qp)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->rq_lock, flags);
	kiwarp_qp_flush_rq_locked(qp);
	spin_unlock_irqrestore(&qp->rq_lock, flags);
}

int kiwarp_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *attr,
		     struct ib_udata *udata)
{
	struct kiwarp_dev *kdev = to_kdev(ibqp->device);
	struct kiwarp_qp *qp = to_kqp(ibqp);
	u32 qpn;
	int ret;

	if (udata)
		return -EOPNOTSUPP;
	if (attr->qp_type != IB_QPT_RC || attr->srq || attr->create_flags)
		return -EOPNOTSUPP;
	if (!attr->send_cq || !attr->recv_cq)
		return -EINVAL;
	if (attr->cap.max_send_wr > KIWARP_MAX_QP_WR ||
	    attr->cap.max_recv_wr > KIWARP_MAX_QP_WR ||
	    attr->cap.max_send_sge > KIWARP_MAX_SGE ||
	    attr->cap.max_recv_sge > KIWARP_MAX_SGE ||
	    attr->cap.max_inline_data)
		return -EINVAL;
	if (atomic_inc_return(&kdev->num_qp) > KIWARP_MAX_QP) {
		ret = -ENOMEM;
		goto out_count;
	}

	qp->kdev = kdev;
	kref_init(&qp->ref);
	init_completion(&qp->freed);
	spin_lock_init(&qp->state_lock);
	spin_lock_init(&qp->sq_lock);
	spin_lock_init(&qp->rq_lock);
	mutex_init(&qp->conn_lock);
	INIT_WORK(&qp->tx_work, kiwarp_tx_work);
	qp->tx_cpu = -1;
	qp->rx_src_cpu = -1;
	INIT_WORK(&qp->rx_work, kiwarp_rx_work);
	INIT_WORK(&qp->down_work, kiwarp_qp_down_work);
	INIT_DELAYED_WORK(&qp->close_work, kiwarp_qp_close_timeout);
	qp->state = KIWARP_QPS_IDLE;
	qp->sq_sig_all = attr->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->sq_size = roundup_pow_of_two(max(attr->cap.max_send_wr, 1U));
	qp->rq_size = roundup_pow_of_two(max(attr->cap.max_recv_wr, 1U));
	qp->orq_size = KIWARP_MAX_ORD;
	qp->irq_size = KIWARP_MAX_IRD;
	ret = -ENOMEM;
	qp->sq = kvcalloc(qp->sq_size, sizeof(*qp->sq), GFP_KERNEL);
	qp->rq = kvcalloc(qp->rq_size, sizeof(*qp->rq), GFP_KERNEL);
	qp->orq = kcalloc(qp->orq_size, sizeof(*qp->orq), GFP_KERNEL);
	qp->irq = kcalloc(qp->irq_size, sizeof(*qp->irq), GFP_KERNEL);
	if (!qp->sq || !qp->rq || !qp->orq || !qp->irq)
		goto out_free;
	ret = xa_alloc(&kdev->qp_xa, &qpn, qp, XA_LIMIT(1, 0xffffff),
		       GFP_KERNEL);
	if (ret)
		goto out_free;
	ibqp->qp_num = qpn;
	kiwarp_stats_qp_add(qp);
	attr->cap.max_send_wr = qp->sq_size;
	attr->cap.max_recv_wr = qp->rq_size;
	attr->cap.max_send_sge = KIWARP_MAX_SGE;
	attr->cap.max_recv_sge = KIWARP_MAX_SGE;
	attr->cap.max_inline_data = 0;
	return 0;

out_free:
	kvfree(qp->sq);
	kvfree(qp->rq);
	kfree(qp->orq);
	kfree(qp->irq);
out_count:
	atomic_dec(&kdev->num_qp);
	return ret;
}

int kiwarp_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct kiwarp_qp *qp = to_kqp(ibqp);
	struct kiwarp_dev *kdev = qp->kdev;

	xa_erase(&kdev->qp_xa, ibqp->qp_num);
	kiwarp_qp_abrupt(qp);
	kiwarp_qp_error(qp);
	/* a connect's cep holds the QP until it ends: end it now */
	kiwarp_cm_connect_abort(qp);
	/* iw_cm's reference goes with the CLOSE event of the teardown */
	kiwarp_qp_put(qp);
	wait_for_completion(&qp->freed);
	kiwarp_zc_detach(qp);	/* the teardown did, unless never bound */
	kiwarp_stats_qp_retire(qp);	/* no work runs: the counts are final */
	kvfree(qp->sq);
	kvfree(qp->rq);
	kfree(qp->orq);
	kfree(qp->irq);
	atomic_dec(&kdev->num_qp);
	return 0;
}

static enum ib_qp_state kiwarp_to_ib_state(enum kiwarp_qp_state s)
{
	switch (s) {
	case KIWARP_QPS_IDLE:
		return IB_QPS_INIT;
	case KIWARP_QPS_RTS:
		return IB_QPS_RTS;
	case KIWARP_QPS_CLOSING:
		return IB_QPS_SQD;
	case KIWARP_QPS_TERMINATE:
		return IB_QPS_SQE;
	default:
		return IB_QPS_ERR;
	}
}

int kiwarp_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		     struct ib_udata *udata)
{
	struct kiwarp_qp *qp = to_kqp(ibqp);
	unsigned long flags;
	bool kick = false;
	int ret = 0;

	if (udata)
		return -EOPNOTSUPP;
	if (mask & IB_QP_ACCESS_FLAGS)
		WRITE_ONCE(qp->access, attr->qp_access_flags);
	if (mask & IB_QP_TIMEOUT) {
		WRITE_ONCE(qp->cm_timeout, attr->timeout);
		WRITE_ONCE(qp->cm_timeout_set, true);
	}
	if (!(mask & IB_QP_STATE))
		return 0;

	switch (attr->qp_state) {
	case IB_QPS_RESET:
	case IB_QPS_INIT:
	case IB_QPS_RTR:
		spin_lock_irqsave(&qp->state_lock, flags);
		if ((qp->state == KIWARP_QPS_ERROR &&
		     (qp->conn_up || qp->sq_head != qp->sq_tail ||
		      qp->rq_head != qp->rq_tail)) || qp->connecting)
			ret = -EBUSY;
		else if (qp->state != KIWARP_QPS_IDLE)
			ret = kiwarp_qp_set_state_locked(qp, KIWARP_QPS_IDLE);
		if (!ret && qp->state == KIWARP_QPS_IDLE) {
			/* the last connection's close is no more */
			qp->down_queued = false;
			WRITE_ONCE(qp->peer_closed, false);
			qp->peer_told = false;
			WRITE_ONCE(qp->fin_sent, false);
		}
		spin_unlock_irqrestore(&qp->state_lock, flags);
		break;
	case IB_QPS_RTS:
		ret = kiwarp_qp_state(qp) == KIWARP_QPS_RTS ? 0 : -EINVAL;
		break;
	case IB_QPS_SQD:
		spin_lock_irqsave(&qp->state_lock, flags);
		if (qp->state == KIWARP_QPS_RTS) {
			kiwarp_qp_set_state_locked(qp, KIWARP_QPS_CLOSING);
			qp->local_close = true;
			kick = true;
		}
		spin_unlock_irqrestore(&qp->state_lock, flags);
		if (kick) {
			/* the peer's FIN must come within the bound */
			kiwarp_qp_arm_close(qp);
			kiwarp_qp_kick_tx(qp);
		}
		break;
	case IB_QPS_SQE:
		/*
		 * RDMAC's Terminate asked by the consumer: the peer is told
		 * with a TERMINATE (RDMAP, local catastrophic error, code
		 * unspecified, as siw sends), then the connection ends;
		 * without a connection it is the same as ERROR.
		 */
		if (kiwarp_qp_state(qp) == KIWARP_QPS_RTS) {
			kiwarp_qp_sqe(qp);
			break;
		}
		fallthrough;
	case IB_QPS_ERR:
		kiwarp_qp_abrupt(qp);
		kiwarp_qp_error(qp);
		/* after ERROR: a connect either sees it or is found here */
		kiwarp_cm_connect_abort(qp);
		break;
	default:
		ret = -EINVAL;
	}
	return ret;
}

int kiwarp_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_qp_init_attr *init)
{
	struct kiwarp_qp *qp = to_kqp(ibqp);

	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));
	attr->qp_state = kiwarp_to_ib_state(kiwarp_qp_state(qp));
	attr->cur_qp_state = attr->qp_state;
	attr->qp_access_flags = READ_ONCE(qp->access);
	attr->timeout = READ_ONCE(qp->cm_timeout);
	attr->cap.max_send_wr = qp->sq_size;
	attr->cap.max_recv_wr = qp->rq_size;
	attr->cap.max_send_sge = KIWARP_MAX_SGE;
	attr->cap.max_recv_sge = KIWARP_MAX_SGE;
	attr->max_rd_atomic = qp->ord;
	attr->max_dest_rd_atomic = qp->ird;
	attr->path_mtu = ib_mtu_int_to_enum(READ_ONCE(qp->kdev->netdev->mtu));
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->qp_type = IB_QPT_RC;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sq_sig_all ? IB_SIGNAL_ALL_WR :
					     IB_SIGNAL_REQ_WR;
	return 0;
}

/* Validate and copy one send WR into @w. */
static int kiwarp_copy_swr(struct kiwarp_qp *qp, const struct ib_send_wr *wr,
			   struct kiwarp_swqe *w)
{
	u64 total = 0;
	int i;

	if (wr->num_sge < 0 || wr->num_sge > KIWARP_MAX_SGE)
		return -EINVAL;
	if (wr->send_flags & IB_SEND_INLINE)
		return -EINVAL;
	memset(w, 0, sizeof(*w));
	w->wr_id = wr->wr_id;
	w->opcode = wr->opcode;
	w->flags = wr->send_flags;
	switch (wr->opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_INV:
		w->ex_key = wr->ex.invalidate_rkey;
		break;
	case IB_WR_RDMA_WRITE:
		w->remote_addr = rdma_wr(wr)->remote_addr;
		w->rkey = rdma_wr(wr)->rkey;
		break;
	case IB_WR_RDMA_READ_WITH_INV:
		/* the sink's MR, invalidated once the data is placed */
		w->ex_key = wr->ex.invalidate_rkey;
		fallthrough;
	case IB_WR_RDMA_READ:
		if (wr->num_sge != 1)
			return -EINVAL;
		w->remote_addr = rdma_wr(wr)->remote_addr;
		w->rkey = rdma_wr(wr)->rkey;
		w->byte_len = wr->sg_list[0].length;
		break;
	case IB_WR_REG_MR:
		w->reg_mr = to_kmr(reg_wr(wr)->mr);
		w->reg_key = reg_wr(wr)->key;
		w->reg_access = reg_wr(wr)->access;
		return 0;
	case IB_WR_LOCAL_INV:
		w->ex_key = wr->ex.invalidate_rkey;
		return 0;
	default:
		return -EOPNOTSUPP;
	}
	w->num_sge = wr->num_sge;
	for (i = 0; i < wr->num_sge; i++) {
		w->sge[i] = wr->sg_list[i];
		total += wr->sg_list[i].length;
	}
	if (total > 0x80000000ULL)
		return -EMSGSIZE;
	w->total_len = total;
	return 0;
}

int kiwarp_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		     const struct ib_send_wr **bad_wr)
{
	struct kiwarp_qp *qp = to_kqp(ibqp);
	enum kiwarp_qp_state st = kiwarp_qp_state(qp);
	unsigned long flags;
	int ret = 0;

	if (st == KIWARP_QPS_CLOSING && kiwarp_qp_post_closing(qp)) {
		*bad_wr = wr;
		return -ENOTCONN;
	}
	spin_lock_irqsave(&qp->sq_lock, flags);
	for (; wr; wr = wr->next) {
		if (qp->sq_tail - qp->sq_head >= qp->sq_size) {
			ret = -ENOMEM;
			break;
		}
		ret = kiwarp_copy_swr(qp, wr,
				      &qp->sq[qp->sq_tail & (qp->sq_size - 1)]);
		if (ret)
			break;
		qp->sq_tail++;
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (ret)
		*bad_wr = wr;
	if (st != KIWARP_QPS_IDLE)
		kiwarp_qp_kick_tx(qp);
	return ret;
}

int kiwarp_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		     const struct ib_recv_wr **bad_wr)
{
	struct kiwarp_qp *qp = to_kqp(ibqp);
	struct kiwarp_rwqe *w;
	unsigned long flags;
	int ret = 0, i;
	u64 total;

	/*
	 * Taken in CLOSING too, unlike a send: a receive puts nothing on the
	 * wire, a ULP refills its ring from completion handlers after
	 * rdma_disconnect() without knowing the state, and a reset would
	 * throw away sends that completed and TCP still holds. In our close
	 * it waits and is flushed in order with the others (nothing after
	 * our FIN is placed: rx.c); after the peer's FIN at once.
	 */
	spin_lock_irqsave(&qp->rq_lock, flags);
	for (; wr; wr = wr->next) {
		if (wr->num_sge < 0 || wr->num_sge > KIWARP_MAX_SGE) {
			ret = -EINVAL;
			break;
		}
		if (qp->rq_tail - qp->rq_head >= qp->rq_size) {
			ret = -ENOMEM;
			break;
		}
		w = &qp->rq[qp->rq_tail & (qp->rq_size - 1)];
		w->wr_id = wr->wr_id;
		w->num_sge = wr->num_sge;
		total = 0;
		for (i = 0; i < wr->num_sge; i++) {
			w->sge[i] = wr->sg_list[i];
			total += wr->sg_list[i].length;
		}
		if (total > 0x80000000ULL) {
			ret = -EMSGSIZE;
			break;
		}
		w->total_len = total;
		qp->rq_tail++;
	}
	spin_unlock_irqrestore(&qp->rq_lock, flags);
	if (ret)
		*bad_wr = wr;
	kiwarp_qp_flush_rq(qp);
	return ret;
}

/* One debugfs line; called under the qp_xa lock (device.c). */
void kiwarp_qp_debugfs_show(struct seq_file *m, struct kiwarp_qp *qp)
{
	struct kiwarp_qp_stats *s = &qp->stats;

	seq_printf(m, "qp %u state %s local %pISpc remote %pISpc mpa %u crc %u ird %u ord %u tx_bytes %llu rx_bytes %llu tx_fpdus %llu rx_fpdus %llu tx_zc_batches %llu tx_waits %llu terms_sent %u terms_rcvd %u errors %u taken_over %u zc_min %u crc_errors %u\n",
		   qp->ibqp.qp_num, kiwarp_qp_state_name[kiwarp_qp_state(qp)],
		   &qp->laddr, &qp->raddr, qp->mpa_rev, qp->crc, qp->ird,
		   qp->ord, s->tx_bytes, s->rx_bytes, s->tx_fpdus,
		   s->rx_fpdus, s->tx_zc_batches, s->tx_waits, s->terms_sent,
		   s->terms_rcvd, s->errors, READ_ONCE(qp->sock_mode),
		   qp->zc_min, s->crc_errors);
}
