// SPDX-License-Identifier: GPL-2.0
/*
 * Event dispatchers: dat_evd_kcreate, dat_evd_modify_upcall,
 * dat_evd_query, dat_evd_resize, dat_evd_post_se, dat_evd_dequeue,
 * dat_evd_free.
 *
 * Upcall semantics (Documentation/kdapl.rst has the full statement):
 *
 * - DAT_UPCALL_DISABLE: events stay queued for dat_evd_dequeue().
 * - DAT_UPCALL_SINGLE_INSTANCE and DAT_UPCALL_MANY: each event is removed
 *   from the queue and handed to the upcall, oldest first, with
 *   more_events telling whether others are queued behind it. All upcalls
 *   of one EVD run on its CPU from one softirq poll context, so they never
 *   overlap: SINGLE_INSTANCE is guaranteed, MANY is allowed to behave so.
 * - DAT_UPCALL_NORIFY (notify): the upcall gets a copy of the oldest event
 *   while the event stays queued; it is called again only after the
 *   consumer dequeued.
 * - DAT_UPCALL_TEARDOWN (modify only): no upcall starts afterwards; the
 *   call returns once the upcall in progress, if any, has returned.
 *
 * Upcalls run in softirq context on the EVD's CPU, never under a kdapl
 * lock: they may call every upcall-safe DAT function, on this EVD too.
 */

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <kiwarp/cq.h>

#include "kdapl.h"
#include "evd.h"
#include "registry.h"
#include "ep.h"
#include "kdapl_trace.h"

#define KDAPL_EVD_MAX_QLEN	BIT(20)
#define KDAPL_EVD_BUDGET	16

#define EVD_FLAGS_KNOWN (DAT_EVD_SOFTWARE_FLAG | DAT_EVD_CR_FLAG | \
			 DAT_EVD_DTO_FLAG | DAT_EVD_CONNECTION_FLAG | \
			 DAT_EVD_RMR_BIND_FLAG | DAT_EVD_ASYNC_FLAG)

static bool producer_cq = true;
module_param(producer_cq, bool, 0644);
MODULE_PARM_DESC(producer_cq,
		 "Follow placement: DTO EVDs created while set ask a device that can choose (kiwarp) to run their CQ handler on the CPU that produced the completion (default on); off: the device decides (kiwarp: its cq_affinity)");

/**
 * kdapl_producer_cq() - whether new DTO EVDs ask for producer-CPU handlers
 *
 * Return: the producer_cq module parameter (for the tests).
 */
bool kdapl_producer_cq(void)
{
	return READ_ONCE(producer_cq);
}
EXPORT_SYMBOL_NS_GPL(kdapl_producer_cq, KDAPL_INTERNAL);

/* All EVDs, for debugfs. */
static LIST_HEAD(evd_list);
static DEFINE_SPINLOCK(evd_list_lock);	/* protects evd_list */

static DAT_RETURN bad_evd(void)
{
	return DAT_ERROR(DAT_INVALID_HANDLE, DAT_NO_SUBTYPE);
}

static bool policy_valid(DAT_UPCALL_POLICY policy)
{
	return policy == DAT_UPCALL_DISABLE ||
	       policy == DAT_UPCALL_SINGLE_INSTANCE ||
	       policy == DAT_UPCALL_MANY || policy == DAT_UPCALL_NORIFY;
}

static DAT_EVENT *ring_alloc(u32 qlen)
{
	return kvcalloc(qlen, sizeof(DAT_EVENT), GFP_KERNEL);
}

/* Caller holds evd->lock; the queue is not empty. */
static void ring_pop(struct kdapl_evd *evd, DAT_EVENT *event)
{
	*event = evd->ring[evd->head];
	evd->head = (evd->head + 1) % evd->qlen;
	evd->count--;
	evd->quiet = min(evd->quiet, evd->count);
}

/*
 * Make one upcall for @event. Caller holds evd->lock (taken with @flags)
 * and has checked the policy; the lock is dropped for the upcall, and
 * TEARDOWN waits for upcalls_running to drop back.
 */
static void evd_upcall_unlock(struct kdapl_evd *evd, DAT_EVENT *event,
			      DAT_BOOLEAN more, unsigned long flags)
	__releases(&evd->lock)
{
	DAT_UPCALL_OBJECT upcall = evd->upcall;

	evd->upcalls_running++;
	evd->upcalls++;
	spin_unlock_irqrestore(&evd->lock, flags);

	trace_kdapl_upcall(kdapl_obj_handle(&evd->base), event->event_number,
			   more);
	upcall.upcall_func(upcall.instance_data, event, more);

	spin_lock_irqsave(&evd->lock, flags);
	if (!--evd->upcalls_running)
		wake_up(&evd->wq);
	spin_unlock_irqrestore(&evd->lock, flags);
}

/*
 * Deliver queued events to the upcall; runs in softirq context on the
 * CPU the EVD's dispatch chose (kdapl_dispatch). Returns the number of
 * events handled.
 */
static int evd_upcalls(struct kdapl_evd *evd, int budget)
{
	/* copied whole from the ring before it is read */
	DAT_EVENT __uninitialized event;
	DAT_BOOLEAN more;
	unsigned long flags;
	int done = 0;

	while (done < budget) {
		spin_lock_irqsave(&evd->lock, flags);
		if (evd->count <= evd->quiet || !evd->upcall.upcall_func ||
		    evd->policy == DAT_UPCALL_DISABLE ||
		    evd->policy == DAT_UPCALL_TEARDOWN ||
		    (evd->policy == DAT_UPCALL_NORIFY && evd->notified)) {
			spin_unlock_irqrestore(&evd->lock, flags);
			break;
		}
		if (evd->policy == DAT_UPCALL_NORIFY) {
			event = evd->ring[evd->head];
			evd->notified = true;
			more = evd->count > 1 ? DAT_TRUE : DAT_FALSE;
		} else {
			ring_pop(evd, &event);
			more = evd->count ? DAT_TRUE : DAT_FALSE;
		}
		evd_upcall_unlock(evd, &event, more, flags);
		done++;
	}
	return done;
}

/* Processing of an EVD without a CQ: its load is the events delivered. */
static int evd_deliver(struct kdapl_dispatch *d, int budget)
{
	struct kdapl_evd *evd = container_of(d, struct kdapl_evd, dispatch);
	int done = evd_upcalls(evd, budget);

	kdapl_dispatch_account(d, done);
	return done;
}

/* Completions taken from the CQ per ib_poll_cq() call. */
#define KDAPL_EVD_POLL_BATCH	8

/*
 * Processing of a DTO EVD, in softirq context: move work
 * completions from the CQ into the ring (each work request's done
 * function turns its completion into an event), deliver upcalls, and
 * re-arm the CQ once it is empty. The CQ is always emptied - a drain of a
 * QP waits for its marker completion - so a completion that finds the
 * ring full is refused like any event: counted and reported as an
 * overflow (kdapl_evd_post()).
 *
 * A poll that returns fewer completions than asked found the CQ empty:
 * it is armed at once, with IB_CQ_REPORT_MISSED_EVENTS telling whether
 * one came meanwhile (then the processing runs again), as ib_core's own
 * pollers arm after a short poll (ib_poll_handler(), ib_cq_poll_work()).
 * They arm after irq_poll_complete(); we arm before it, and a
 * notification between our arming and the completion finds the poll
 * still scheduled and leaves KDAPL_DISPATCH_KICKED, which dispatch_poll()
 * looks at after completing (cpu.c). A single completion thus costs one
 * poll and the arming; polling the empty CQ again before and after
 * arming cost two more calls of the driver's poll per processing, half
 * of kiwarp's ib_poll_cq samples in a 64 B DAT ping-pong's profile
 * (Documentation/performance.rst).
 *
 * siw alone is polled once more after arming (@poll_after_arm). Its
 * producer publishes a completion (cq_put, under its CQ lock) and then
 * reads whether the CQ is armed with no barrier between the two, while
 * siw_req_notify_cq() sets the flag (smp_store_mb) and reads cq_put
 * without that lock: the producer's read can pass its store, and the
 * completion would notify nobody until the next one arrives.
 * ib_poll_cq() takes siw's CQ lock, which orders us after such a
 * producer, or it after our arming. (Found by reading siw; not seen:
 * kdapltest counts events that came without their upcall, and found
 * none either way. Documentation/kdapltest.rst.) kiwarp arms and adds
 * a completion under its CQ lock; rxe arms under its CQ lock and its
 * producer reads the flag after taking that lock (rxe_cq_post()): either
 * way the later of the two sees the other.
 */
static int evd_cq_poll(struct kdapl_dispatch *d, int budget)
{
	struct kdapl_evd *evd = container_of(d, struct kdapl_evd, dispatch);
	/* only the @n ib_poll_cq() filled are read */
	struct ib_wc wcs[KDAPL_EVD_POLL_BATCH] __uninitialized;
	int polled = 0, want, n, i;
	bool again = false, armed = false;
	struct ib_cq *cq;

	rcu_read_lock();	/* kdapl_evd_release_device() waits for us */
	cq = READ_ONCE(evd->cq);
	while (cq && polled < budget) {
		want = min(budget - polled, KDAPL_EVD_POLL_BATCH);
		n = ib_poll_cq(cq, want, wcs);
		for (i = 0; i < n; i++) {
			/* kdapl_evd_deliver(): no more in hand after this one */
			evd->poll_last = i + 1 == n;
			if (wcs[i].wr_id < KDAPL_WR_ID_INTERNAL_LIMIT)
				kdapl_cq_internal_wc(&wcs[i]);
			else
				wcs[i].wr_cqe->done(cq, &wcs[i]);
		}
		evd->poll_last = false;
		if (n > 0)
			polled += n;
		if (n == want || (n > 0 && armed))
			continue;
		if (armed)
			break;		/* empty after arming too (siw) */
		/* Empty: re-arm; a positive answer means poll again. */
		again = ib_req_notify_cq(cq, IB_CQ_NEXT_COMP |
					 IB_CQ_REPORT_MISSED_EVENTS) > 0;
		if (again || !evd->poll_after_arm)
			break;
		armed = true;	/* and poll once more, see above */
	}
	rcu_read_unlock();

	/* Load is measured by completions processed, upcalls or not. */
	kdapl_dispatch_account(d, polled);
	evd_upcalls(evd, budget);
	/* Claiming the whole budget makes irq_poll run us again. */
	return again || polled >= budget ? budget : polled;
}

/* The CQ's completion handler, in the device's context: kick. */
static void evd_cq_comp(struct ib_cq *cq, void *ctx)
{
	struct kdapl_evd *evd = ctx;

	kdapl_dispatch_kick(&evd->dispatch);
}

static void report_overflow(struct kdapl_evd *evd);

/* A CQ error (overrun): the consumer posted more than the EVD holds. */
static void evd_cq_event(struct ib_event *ev, void *ctx)
{
	struct kdapl_evd *evd = ctx;
	unsigned long flags;

	spin_lock_irqsave(&evd->lock, flags);
	evd->overflows++;
	spin_unlock_irqrestore(&evd->lock, flags);
	report_overflow(evd);
}

/*
 * Follow placement: have kiwarp run @cq's handler on the producing CPU.
 * kdapl does not link against kiwarp (include/kiwarp/cq.h); any other
 * device, or kiwarp not loaded, keeps its own way.
 */
static void evd_cq_at_producer(struct kdapl_evd *evd, struct ib_cq *cq)
{
	typeof(kiwarp_cq_set_affine) *set_affine;

	if (evd->dispatch.set->mode != KDAPL_PLACE_FOLLOW ||
	    !READ_ONCE(producer_cq))
		return;
	set_affine = symbol_get(kiwarp_cq_set_affine);
	if (!set_affine)
		return;
	set_affine(cq, false);
	symbol_put(kiwarp_cq_set_affine);
}

/**
 * kdapl_evd_cq_create() - give a DTO EVD its completion queue
 * @evd: an EVD with DAT_EVD_DTO_FLAG, not yet used by anything
 * @ibdev: its IA's device, accessible (device access rule)
 *
 * The CQ holds as many completions as the EVD's queue and uses the
 * completion vector of the EVD's CPU, so that a device that interrupts
 * per vector interrupts on that CPU (siw and rxe call the handler where
 * the completion is produced). Under follow placement the EVD is
 * processed where its completions arrive, which a device that raises
 * every completion on the vector's CPU would hide: kiwarp is asked to
 * raise them where they are produced instead (producer_cq, on by
 * default; evd_cq_at_producer()).
 *
 * Return: 0 or a negative errno.
 * Context: process context, the IA's lock held.
 */
static int kdapl_evd_cq_create(struct kdapl_evd *evd, struct ib_device *ibdev)
{
	struct ib_cq_init_attr attr = {
		.cqe = evd->qlen,
		.comp_vector = evd->slot->cpu % max(ibdev->num_comp_vectors, 1),
	};
	struct ib_cq *cq;

	cq = ib_create_cq(ibdev, evd_cq_comp, evd_cq_event, evd, &attr);
	if (IS_ERR(cq))
		return PTR_ERR(cq);
	evd_cq_at_producer(evd, cq);
	evd->cqe = cq->cqe;
	evd->poll_after_arm = ibdev->ops.driver_id == RDMA_DRIVER_SIW;
	WRITE_ONCE(evd->cq, cq);
	ib_req_notify_cq(cq, IB_CQ_NEXT_COMP);
	return 0;
}

/**
 * kdapl_evd_release_device() - destroy a DTO EVD's completion queue
 * @evd: the EVD; no QP completes to it any more
 *
 * Context: process context, the IA's lock held.
 */
void kdapl_evd_release_device(struct kdapl_evd *evd)
{
	struct ib_cq *cq = evd->cq;

	if (!cq)
		return;
	WRITE_ONCE(evd->cq, NULL);
	synchronize_rcu();	/* evd_cq_poll() is done with it */
	ib_destroy_cq(cq);
}

static void evd_release(struct kdapl_hobj *h)
{
	struct kdapl_evd *evd = container_of(h, struct kdapl_evd, base.hobj);

	kvfree(evd->ring);
	kfree_rcu(evd, base.hobj.rcu);	/* handle lookups run under RCU */
}

/**
 * kdapl_evd_create() - create an event dispatcher
 * @ia: owning IA (a reference is taken), or NULL
 * @cpus: CPU placement set of the provider
 * @qlen: number of events the queue holds
 * @policy: upcall policy
 * @upcall: upcall object; the function may be NULL only when disabled
 * @flags: DAT_EVD_*_FLAG streams
 * @evdp: set to the new EVD
 *
 * Return: DAT_SUCCESS, DAT_INVALID_PARAMETER, DAT_INSUFFICIENT_RESOURCES.
 * Context: process context; sleeps.
 */
DAT_RETURN kdapl_evd_create(struct kdapl_ia *ia, struct kdapl_cpuset *cpus,
			    DAT_COUNT qlen, DAT_UPCALL_POLICY policy,
			    const DAT_UPCALL_OBJECT *upcall,
			    DAT_EVD_FLAGS flags, struct kdapl_evd **evdp)
{
	struct kdapl_evd *evd;
	int err;

	if (qlen <= 0 || qlen > KDAPL_EVD_MAX_QLEN)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (!policy_valid(policy))
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (policy != DAT_UPCALL_DISABLE && (!upcall || !upcall->upcall_func))
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	if (!flags || (flags & ~EVD_FLAGS_KNOWN))
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	if (!cpus || !evdp)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);

	evd = kzalloc(sizeof(*evd), GFP_KERNEL);
	if (!evd)
		return DAT_ERROR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	evd->ring = ring_alloc(qlen);
	if (!evd->ring) {
		kfree(evd);
		return DAT_ERROR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	}
	spin_lock_init(&evd->lock);
	spin_lock_init(&evd->base.ctx_lock);
	init_waitqueue_head(&evd->wq);
	evd->qlen = qlen;
	evd->flags = flags;
	evd->policy = policy;
	if (upcall)
		evd->upcall = *upcall;

	err = kdapl_hobj_add(&kdapl.handles, &evd->base.hobj, KDAPL_HT_EVD,
			     evd_release, GFP_KERNEL);
	if (err) {
		kvfree(evd->ring);
		kfree(evd);
		return DAT_ERROR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	}
	evd->slot = kdapl_cpu_bind(cpus);
	kdapl_dispatch_init(&evd->dispatch, cpus, evd->slot,
			    (flags & DAT_EVD_DTO_FLAG) ? evd_cq_poll :
			    evd_deliver, KDAPL_EVD_BUDGET);
	if (ia) {
		/*
		 * What kdapl_ia_child_get() does, without its state check:
		 * dat_ia_open() creates the IA's own async EVD before the IA
		 * is open; dat_evd_kcreate() checks the state under ia->lock.
		 */
		kdapl_hobj_ref(&ia->base.hobj);
		atomic_inc(&ia->children);
		evd->base.ia = ia;
	}
	spin_lock_irq(&evd_list_lock);
	list_add_tail(&evd->node, &evd_list);
	spin_unlock_irq(&evd_list_lock);

	*evdp = evd;
	return DAT_SUCCESS;
}
EXPORT_SYMBOL_NS_GPL(kdapl_evd_create, KDAPL_INTERNAL);

/*
 * The rest of kdapl_evd_destroy(), for the caller that removed the
 * handle: device resources, upcalls, the creator's reference.
 */
static void kdapl_evd_teardown(struct kdapl_evd *evd)
{
	struct kdapl_ia *ia = evd->base.ia;

	if (ia && evd->cq) {
		mutex_lock(&ia->lock);
		kdapl_evd_release_device(evd);
		mutex_unlock(&ia->lock);
	}
	spin_lock_irq(&evd_list_lock);
	list_del(&evd->node);
	spin_unlock_irq(&evd_list_lock);

	/* No overflow report reaches the IA after the grace period below. */
	WRITE_ONCE(evd->base.ia, NULL);
	kdapl_dispatch_stop(&evd->dispatch);	/* includes synchronize_rcu() */
	kdapl_cpu_unbind(evd->slot);
	if (ia) {
		kdapl_ia_child_gone(ia);
		kdapl_hobj_put(&ia->base.hobj);
	}
	kdapl_hobj_put(&evd->base.hobj);
}

/**
 * kdapl_evd_destroy() - free an EVD
 * @evd: the EVD; the caller passes the creator's reference
 *
 * Removes the handle, stops upcalls and waits for the one in progress,
 * then drops the creator's reference.
 *
 * Context: process context, not from an upcall; sleeps.
 */
void kdapl_evd_destroy(struct kdapl_evd *evd)
{
	if (kdapl_hobj_remove(&kdapl.handles, &evd->base.hobj))
		kdapl_evd_teardown(evd);
}
EXPORT_SYMBOL_NS_GPL(kdapl_evd_destroy, KDAPL_INTERNAL);

/*
 * Post DAT_ASYNC_ERROR_EVD_OVERFLOW for @evd on its IA's async EVD. The
 * IA is alive inside the RCU read section: kdapl_evd_destroy() clears
 * evd->base.ia and waits for a grace period before dropping its IA
 * reference, and the IA keeps its async EVD until it is released.
 */
/**
 * kdapl_evd_destroy_ia() - destroy the EVDs of an IA being closed
 * @ia: the IA; its state is no longer open, so no EVD is added meanwhile
 *
 * Destroys every EVD created on @ia except its asynchronous EVD, which
 * the IA gives up itself. For an abrupt dat_ia_close().
 *
 * Context: process context; sleeps.
 */
void kdapl_evd_destroy_ia(struct kdapl_ia *ia)
{
	struct kdapl_evd *evd;
	bool found;

	do {
		found = false;
		spin_lock_irq(&evd_list_lock);
		list_for_each_entry(evd, &evd_list, node) {
			if (evd->base.ia == ia && evd != ia->async_evd) {
				kdapl_hobj_ref(&evd->base.hobj);
				found = true;
				break;
			}
		}
		spin_unlock_irq(&evd_list_lock);
		if (found) {
			kdapl_evd_destroy(evd);
			kdapl_obj_put(&evd->base);
		}
	} while (found);
}

/**
 * kdapl_evd_release_ia() - destroy the CQs of an IA's EVDs
 * @ia: the IA, closing abruptly or losing its device; its QPs are gone
 *
 * Context: process context, the IA's lock held.
 */
void kdapl_evd_release_ia(struct kdapl_ia *ia)
{
	struct kdapl_evd *evd;
	bool found;

	lockdep_assert_held(&ia->lock);
	do {
		found = false;
		spin_lock_irq(&evd_list_lock);
		list_for_each_entry(evd, &evd_list, node) {
			if (evd->base.ia == ia && evd->cq) {
				kdapl_hobj_ref(&evd->base.hobj);
				found = true;
				break;
			}
		}
		spin_unlock_irq(&evd_list_lock);
		if (found) {
			kdapl_evd_release_device(evd);
			kdapl_obj_put(&evd->base);
		}
	} while (found);
}

static void report_overflow(struct kdapl_evd *evd)
{
	DAT_EVENT ev = { .event_number = DAT_ASYNC_ERROR_EVD_OVERFLOW };
	struct kdapl_evd *async = NULL;
	struct kdapl_ia *ia;

	ev.event_data.asynch_error_event_data.dat_handle =
		kdapl_obj_handle(&evd->base);
	rcu_read_lock();
	ia = READ_ONCE(evd->base.ia);
	if (ia)
		async = READ_ONCE(ia->async_evd);
	if (async && async != evd)
		kdapl_evd_post(async, &ev);
	rcu_read_unlock();
}

/**
 * kdapl_evd_post() - queue an event
 * @evd: the EVD
 * @event: the event; its evd_handle is set to @evd's handle
 *
 * A full queue refuses the event: it is counted, and the first refusal
 * since the consumer last dequeued is reported as
 * DAT_ASYNC_ERROR_EVD_OVERFLOW on the IA's asynchronous EVD.
 *
 * Return: DAT_SUCCESS, or DAT_QUEUE_FULL.
 * Context: any context.
 */
DAT_RETURN kdapl_evd_post(struct kdapl_evd *evd, const DAT_EVENT *event)
{
	return kdapl_evd_queue(evd, event, true);
}
EXPORT_SYMBOL_NS_GPL(kdapl_evd_post, KDAPL_INTERNAL);

/* Queue @event; caller holds evd->lock. Returns whether to report. */
static bool evd_queue_locked(struct kdapl_evd *evd, const DAT_EVENT *event,
			     bool quiet, DAT_RETURN *ret)
{
	bool report = false;

	*ret = DAT_SUCCESS;
	if (evd->count == evd->qlen) {
		evd->overflows++;
		report = !evd->overflowed;
		evd->overflowed = true;
		*ret = DAT_ERROR(DAT_QUEUE_FULL, DAT_NO_SUBTYPE);
	} else {
		DAT_EVENT *slot = &evd->ring[(evd->head + evd->count) %
					     evd->qlen];

		*slot = *event;
		slot->evd_handle = kdapl_obj_handle(&evd->base);
		evd->count++;
		evd->posted++;
		/* an event that notifies carries the quiet ones before it */
		evd->quiet = quiet ? evd->quiet + 1 : 0;
	}
	return report;
}

static DAT_RETURN evd_queue(struct kdapl_evd *evd, const DAT_EVENT *event,
			    bool kick, bool quiet)
{
	unsigned long flags;
	DAT_RETURN ret;
	bool report;

	spin_lock_irqsave(&evd->lock, flags);
	report = evd_queue_locked(evd, event, quiet, &ret);
	kick = kick && evd->policy != DAT_UPCALL_DISABLE &&
	       evd->policy != DAT_UPCALL_TEARDOWN;
	spin_unlock_irqrestore(&evd->lock, flags);

	if (kick)
		kdapl_dispatch_kick(&evd->dispatch);
	if (report)
		report_overflow(evd);
	return ret;
}

/**
 * kdapl_evd_queue() - queue an event, optionally without a kick
 * @evd: the EVD
 * @event: the event
 * @kick: schedule delivery; false from the EVD's own processing, which
 *	delivers what it queued before it returns
 *
 * Return: as kdapl_evd_post().
 * Context: any context.
 */
DAT_RETURN kdapl_evd_queue(struct kdapl_evd *evd, const DAT_EVENT *event,
			   bool kick)
{
	return evd_queue(evd, event, kick, false);
}

/**
 * kdapl_evd_deliver() - an event of the EVD's own processing, to the upcall
 * @evd: the EVD
 * @event: the event; its evd_handle is set here
 *
 * With nothing queued, no other completion of this poll in hand
 * (evd->poll_last), and an upcall that takes each event
 * (DAT_UPCALL_SINGLE_INSTANCE, DAT_UPCALL_MANY), @event goes straight to
 * the upcall, with more_events false as it would have been: no copy
 * through the ring and one lock section fewer. Otherwise it is queued
 * behind the others, and the processing delivers it before it returns
 * (as kdapl_evd_queue() without a kick), with more_events true while
 * others follow. Either way the EVD's events keep their order: a direct
 * one is made only when none is queued, from the EVD's single processing
 * instance.
 *
 * Return: as kdapl_evd_post().
 * Context: the EVD's processing function (its dispatch, softirq).
 */
DAT_RETURN kdapl_evd_deliver(struct kdapl_evd *evd, DAT_EVENT *event)
{
	unsigned long flags;
	DAT_RETURN ret;
	bool report;

	event->evd_handle = kdapl_obj_handle(&evd->base);
	spin_lock_irqsave(&evd->lock, flags);
	if (evd->count || !evd->poll_last || !evd->upcall.upcall_func ||
	    (evd->policy != DAT_UPCALL_SINGLE_INSTANCE &&
	     evd->policy != DAT_UPCALL_MANY)) {
		report = evd_queue_locked(evd, event, false, &ret);
		spin_unlock_irqrestore(&evd->lock, flags);
		if (report)
			report_overflow(evd);
		return ret;
	}
	evd->posted++;
	evd_upcall_unlock(evd, event, DAT_FALSE, flags);
	return DAT_SUCCESS;
}

/**
 * kdapl_evd_queue_quiet() - queue an event that notifies nobody
 * @evd: the EVD
 * @event: the event (a DTO completion posted with
 *	DAT_COMPLETION_UNSIGNALLED_FLAG)
 *
 * No upcall is made for @event until a later event that notifies is
 * queued behind it (both are then delivered, in order); the consumer can
 * dat_evd_dequeue() it at any time.
 *
 * Return: as kdapl_evd_post().
 * Context: any context.
 */
DAT_RETURN kdapl_evd_queue_quiet(struct kdapl_evd *evd,
				 const DAT_EVENT *event)
{
	return evd_queue(evd, event, false, true);
}

/**
 * dat_evd_kcreate() - create an event dispatcher
 * @ia_handle: the IA
 * @evd_min_qlen: queue length
 * @upcall_policy: DAT_UPCALL_DISABLE, _SINGLE_INSTANCE, _MANY or _NORIFY
 * @upcall: the upcall object
 * @evd_flags: event streams
 * @evd_handle: set to the new EVD
 *
 * The EVD is bound to the least loaded participating CPU of the IA's
 * device; its upcalls run there.
 *
 * Return: DAT_SUCCESS, DAT_INVALID_HANDLE, DAT_INVALID_PARAMETER,
 * DAT_INVALID_STATE (device gone), DAT_INSUFFICIENT_RESOURCES.
 * Context: process context; sleeps.
 */
DAT_RETURN dat_evd_kcreate(DAT_IA_HANDLE ia_handle, DAT_COUNT evd_min_qlen,
			   DAT_UPCALL_POLICY upcall_policy,
			   const DAT_UPCALL_OBJECT *upcall,
			   DAT_EVD_FLAGS evd_flags,
			   DAT_EVD_HANDLE *evd_handle)
{
	struct kdapl_evd *evd;
	struct kdapl_obj *o;
	struct kdapl_ia *ia;
	DAT_RETURN ret;

	if (!evd_handle)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
	o = kdapl_obj_get(ia_handle, KDAPL_HT_IA);
	if (!o)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	ia = container_of(o, struct kdapl_ia, base);
	/* Under ia->lock: serialised with dat_ia_close() and device removal. */
	mutex_lock(&ia->lock);
	if (ia->dead)
		ret = DAT_ERROR(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
	else if (ia->state != KDAPL_IA_OPEN)
		ret = DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	else
		ret = kdapl_evd_create(ia, ia->cpus, evd_min_qlen,
				       upcall_policy, upcall, evd_flags, &evd);
	if (ret == DAT_SUCCESS && (evd_flags & DAT_EVD_DTO_FLAG) &&
	    kdapl_evd_cq_create(evd, ia->prov->ibdev)) {
		mutex_unlock(&ia->lock);
		kdapl_evd_destroy(evd);
		kdapl_obj_put(o);
		return DAT_ERROR(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	}
	mutex_unlock(&ia->lock);
	if (ret == DAT_SUCCESS)
		*evd_handle = kdapl_obj_handle(&evd->base);
	kdapl_obj_put(o);
	return ret;
}
EXPORT_SYMBOL_GPL(dat_evd_kcreate);

/**
 * dat_evd_modify_upcall() - change an EVD's upcall policy or object
 * @evd_handle: the EVD
 * @upcall_policy: the new policy, or DAT_UPCALL_TEARDOWN
 * @upcall: the new upcall object, or DAT_UPCALL_SAME
 * @upcall_invocation: DAT_UPCALL_INVOC_ANY delivers queued events at
 *	once; DAT_UPCALL_INVOC_NEW waits for the next new event
 *
 * Return: DAT_SUCCESS, DAT_INVALID_HANDLE, DAT_INVALID_PARAMETER,
 * DAT_INVALID_STATE (TEARDOWN from a context that cannot sleep).
 * Context: any context, upcalls included; DAT_UPCALL_TEARDOWN only from
 * process context (it waits for the upcall in progress).
 */
DAT_RETURN dat_evd_modify_upcall(DAT_EVD_HANDLE evd_handle,
				 DAT_UPCALL_POLICY upcall_policy,
				 const DAT_UPCALL_OBJECT *upcall,
				 DAT_UPCALL_FLAG upcall_invocation)
{
	struct kdapl_evd *evd = kdapl_evd_get(evd_handle);
	DAT_RETURN ret = DAT_SUCCESS;
	unsigned long flags;
	bool kick = false;

	if (!evd)
		return bad_evd();
	if (upcall_invocation != DAT_UPCALL_INVOC_NEW &&
	    upcall_invocation != DAT_UPCALL_INVOC_ANY) {
		ret = DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
		goto out;
	}

	if (upcall_policy == DAT_UPCALL_TEARDOWN) {
		if (!in_task()) {
			ret = DAT_ERROR(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
			goto out;
		}
		spin_lock_irqsave(&evd->lock, flags);
		evd->policy = DAT_UPCALL_TEARDOWN;
		spin_unlock_irqrestore(&evd->lock, flags);
		wait_event(evd->wq, !READ_ONCE(evd->upcalls_running));
		goto out;
	}
	if (!policy_valid(upcall_policy)) {
		ret = DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
		goto out;
	}

	spin_lock_irqsave(&evd->lock, flags);
	if (upcall_policy != DAT_UPCALL_DISABLE &&
	    !(upcall ? upcall->upcall_func : evd->upcall.upcall_func)) {
		spin_unlock_irqrestore(&evd->lock, flags);
		ret = DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
		goto out;
	}
	if (upcall != DAT_UPCALL_SAME)
		evd->upcall = *upcall;
	evd->policy = upcall_policy;
	evd->notified = false;
	kick = upcall_policy != DAT_UPCALL_DISABLE && evd->count &&
	       upcall_invocation == DAT_UPCALL_INVOC_ANY;
	spin_unlock_irqrestore(&evd->lock, flags);
	if (kick)
		kdapl_dispatch_kick(&evd->dispatch);
out:
	kdapl_obj_put(&evd->base);
	return ret;
}
EXPORT_SYMBOL_GPL(dat_evd_modify_upcall);

/**
 * dat_evd_query() - query an event dispatcher
 * @evd_handle: the EVD
 * @evd_param_mask: DAT_EVD_FIELD_* bits wanted
 * @evd_param: filled with the requested fields (others untouched)
 *
 * Return: DAT_SUCCESS, DAT_INVALID_HANDLE, DAT_INVALID_PARAMETER.
 * Context: any context.
 */
DAT_RETURN dat_evd_query(DAT_EVD_HANDLE evd_handle,
			 DAT_EVD_PARAM_MASK evd_param_mask,
			 DAT_EVD_PARAM *evd_param)
{
	struct kdapl_evd *evd;
	unsigned long flags;

	if (!evd_param || (evd_param_mask & ~DAT_EVD_FIELD_ALL))
		return DAT_ERROR(DAT_INVALID_PARAMETER, evd_param ?
				 DAT_INVALID_ARG2 : DAT_INVALID_ARG3);
	evd = kdapl_evd_get(evd_handle);
	if (!evd)
		return bad_evd();

	spin_lock_irqsave(&evd->lock, flags);
	if (evd_param_mask & DAT_EVD_FIELD_IA_HANDLE) {
		struct kdapl_ia *ia;

		/* RCU: see report_overflow() */
		rcu_read_lock();
		ia = READ_ONCE(evd->base.ia);
		evd_param->ia_handle = ia ? kdapl_obj_handle(&ia->base) : NULL;
		rcu_read_unlock();
	}
	if (evd_param_mask & DAT_EVD_FIELD_EVD_QLEN)
		evd_param->evd_qlen = evd->qlen;
	if (evd_param_mask & DAT_EVD_FIELD_UPCALL_POLICY)
		evd_param->upcall_policy = evd->policy;
	if (evd_param_mask & DAT_EVD_FIELD_UPCALL)
		evd_param->upcall = evd->upcall;
	if (evd_param_mask & DAT_EVD_FIELD_EVD_FLAGS)
		evd_param->evd_flags = evd->flags;
	spin_unlock_irqrestore(&evd->lock, flags);

	kdapl_obj_put(&evd->base);
	return DAT_SUCCESS;
}
EXPORT_SYMBOL_GPL(dat_evd_query);

/**
 * dat_evd_resize() - change the queue length
 * @evd_handle: the EVD
 * @evd_min_qlen: new length; must hold the events now queued
 *
 * Queued events are kept, in order.
 *
 * Return: DAT_SUCCESS, DAT_INVALID_HANDLE, DAT_INVALID_PARAMETER,
 * DAT_INVALID_STATE (more events queued than @evd_min_qlen),
 * DAT_INSUFFICIENT_RESOURCES.
 * Context: process context; sleeps.
 */
DAT_RETURN dat_evd_resize(DAT_EVD_HANDLE evd_handle, DAT_COUNT evd_min_qlen)
{
	DAT_EVENT *ring, *old;
	struct kdapl_evd *evd;
	DAT_RETURN ret = DAT_SUCCESS;
	unsigned long flags;
	u32 i;

	if (evd_min_qlen <= 0 || evd_min_qlen > KDAPL_EVD_MAX_QLEN)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	evd = kdapl_evd_get(evd_handle);
	if (!evd)
		return bad_evd();
	ring = ring_alloc(evd_min_qlen);
	if (!ring) {
		ret = DAT_ERROR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
		goto out;
	}

	spin_lock_irqsave(&evd->lock, flags);
	if (evd->count > evd_min_qlen) {
		spin_unlock_irqrestore(&evd->lock, flags);
		kvfree(ring);
		ret = DAT_ERROR(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
		goto out;
	}
	for (i = 0; i < evd->count; i++)
		ring[i] = evd->ring[(evd->head + i) % evd->qlen];
	old = evd->ring;
	evd->ring = ring;
	evd->head = 0;
	evd->qlen = evd_min_qlen;
	spin_unlock_irqrestore(&evd->lock, flags);
	kvfree(old);
out:
	kdapl_obj_put(&evd->base);
	return ret;
}
EXPORT_SYMBOL_GPL(dat_evd_resize);

/**
 * dat_evd_post_se() - post a software event
 * @evd_handle: an EVD created with DAT_EVD_SOFTWARE_FLAG
 * @event: a DAT_SOFTWARE_EVENT
 *
 * Return: DAT_SUCCESS, DAT_INVALID_HANDLE, DAT_INVALID_PARAMETER,
 * DAT_QUEUE_FULL (the event is not queued and the overflow is reported).
 * Context: any context, upcalls included.
 */
DAT_RETURN dat_evd_post_se(DAT_EVD_HANDLE evd_handle, const DAT_EVENT *event)
{
	struct kdapl_evd *evd;
	DAT_RETURN ret;

	if (!event || event->event_number != DAT_SOFTWARE_EVENT)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	evd = kdapl_evd_get(evd_handle);
	if (!evd)
		return bad_evd();
	if (evd->flags & DAT_EVD_SOFTWARE_FLAG)
		ret = kdapl_evd_post(evd, event);
	else
		ret = DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	kdapl_obj_put(&evd->base);
	return ret;
}
EXPORT_SYMBOL_GPL(dat_evd_post_se);

/**
 * dat_evd_dequeue() - remove the oldest event
 * @evd_handle: the EVD
 * @event: filled with the event
 *
 * Return: DAT_SUCCESS, DAT_QUEUE_EMPTY, DAT_INVALID_HANDLE,
 * DAT_INVALID_PARAMETER.
 * Context: any context, upcalls included.
 */
DAT_RETURN dat_evd_dequeue(DAT_EVD_HANDLE evd_handle, DAT_EVENT *event)
{
	struct kdapl_evd *evd;
	DAT_RETURN ret = DAT_SUCCESS;
	unsigned long flags;
	bool kick = false;

	if (!event)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	evd = kdapl_evd_get(evd_handle);
	if (!evd)
		return bad_evd();

	spin_lock_irqsave(&evd->lock, flags);
	if (evd->count) {
		ring_pop(evd, event);
		evd->overflowed = false;
		if (evd->notified) {
			/* NORIFY: re-arm, and notify again if more are queued */
			evd->notified = false;
			kick = evd->count > evd->quiet &&
			       evd->policy == DAT_UPCALL_NORIFY;
		}
	} else {
		ret = DAT_ERROR(DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE);
	}
	spin_unlock_irqrestore(&evd->lock, flags);
	if (kick)
		kdapl_dispatch_kick(&evd->dispatch);

	kdapl_obj_put(&evd->base);
	return ret;
}
EXPORT_SYMBOL_GPL(dat_evd_dequeue);

/**
 * kdapl_evd_pending() - the events an EVD holds, and its delivery state
 * @evd_handle: the EVD
 * @buf: filled with one line describing the delivery state, for a log
 * @len: size of @buf
 *
 * For a checker that must tell an upcall that is late from one that
 * never comes (kdapltest's lost-wakeup count): an event seen queued
 * twice, with no upcall between, waited for its notification all along.
 *
 * Return: the number of queued events, or -EINVAL for a bad handle.
 * Context: any context.
 */
int kdapl_evd_pending(DAT_EVD_HANDLE evd_handle, char *buf, size_t len)
{
	struct kdapl_evd *evd = kdapl_evd_get(evd_handle);
	unsigned long flags;
	int count;

	if (!evd)
		return -EINVAL;
	spin_lock_irqsave(&evd->lock, flags);
	count = evd->count;
	scnprintf(buf, len,
		  "count %u quiet %u notified %d policy %d posted %llu upcalls %llu running %u dispatch %#lx iop %#lx cpu %u",
		  evd->count, evd->quiet, evd->notified, evd->policy,
		  evd->posted, evd->upcalls, evd->upcalls_running,
		  READ_ONCE(evd->dispatch.flags),
		  READ_ONCE(evd->dispatch.iop.state),
		  READ_ONCE(evd->dispatch.cpu));
	spin_unlock_irqrestore(&evd->lock, flags);
	kdapl_obj_put(&evd->base);
	return count;
}
EXPORT_SYMBOL_NS_GPL(kdapl_evd_pending, KDAPL_INTERNAL);

/*
 * The EVD's IA with a reference, or NULL. RCU: a destroy in progress
 * drops the EVD's IA reference only after a grace period (see
 * report_overflow()), so ours can be taken.
 */
static struct kdapl_ia *evd_ia_get(struct kdapl_evd *evd)
{
	struct kdapl_ia *ia;

	rcu_read_lock();
	ia = READ_ONCE(evd->base.ia);
	if (ia)
		kdapl_hobj_ref(&ia->base.hobj);
	rcu_read_unlock();
	return ia;
}

/**
 * kdapl_evd_use() - count a new user of an EVD, unless it was freed
 * @evd: the EVD, held by a lookup reference
 *
 * For a user that does not hold the EVD's IA lock already (an IA taking
 * a consumer's asynchronous EVD): serialised with dat_evd_free(), which
 * checks the users and removes the handle under that lock.
 *
 * Return: true if counted, false if the handle is gone.
 * Context: process context; sleeps.
 */
bool kdapl_evd_use(struct kdapl_evd *evd)
{
	struct kdapl_ia *ia = evd_ia_get(evd);
	bool ok;

	if (ia)
		mutex_lock(&ia->lock);
	ok = kdapl_hobj_present(&kdapl.handles, &evd->base.hobj);
	if (ok)
		atomic_inc(&evd->users);
	if (ia) {
		mutex_unlock(&ia->lock);
		kdapl_hobj_put(&ia->base.hobj);
	}
	return ok;
}

/**
 * dat_evd_free() - destroy an event dispatcher
 * @evd_handle: the EVD
 *
 * Waits for an upcall in progress; queued events are discarded.
 *
 * Return: DAT_SUCCESS, DAT_INVALID_HANDLE, DAT_INVALID_STATE (in use as an
 * IA's asynchronous EVD or by an endpoint, or called from a context that
 * cannot sleep, such as an upcall).
 * Context: process context; sleeps.
 */
DAT_RETURN dat_evd_free(DAT_EVD_HANDLE evd_handle)
{
	struct kdapl_evd *evd;
	DAT_RETURN ret = DAT_SUCCESS;
	bool removed = false;
	struct kdapl_ia *ia;

	evd = kdapl_evd_get(evd_handle);
	if (!evd)
		return bad_evd();
	if (!in_task()) {
		kdapl_obj_put(&evd->base);
		return DAT_ERROR(DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_IN_USE);
	}
	ia = evd_ia_get(evd);
	/*
	 * Users are raised under the IA's lock by a user that checked the
	 * EVD's handle there (kdapl_ep_new(), dat_ep_modify(), sp_publish(),
	 * kdapl_evd_use()): checking
	 * them and removing the handle under that lock leaves no window
	 * for an EP to attach to an EVD being destroyed.
	 */
	if (ia)
		mutex_lock(&ia->lock);
	if (atomic_read(&evd->users) || (ia && ia->async_evd == evd))
		ret = DAT_ERROR(DAT_INVALID_STATE, DAT_INVALID_STATE_EVD_IN_USE);
	else if (!kdapl_hobj_remove(&kdapl.handles, &evd->base.hobj))
		ret = bad_evd();
	else
		removed = true;
	if (ia)
		mutex_unlock(&ia->lock);
	/* Our lookup reference keeps @evd alive across the teardown. */
	if (removed)
		kdapl_evd_teardown(evd);
	if (ia)
		kdapl_hobj_put(&ia->base.hobj);
	kdapl_obj_put(&evd->base);
	return ret;
}
EXPORT_SYMBOL_GPL(dat_evd_free);

static int evds_show(struct seq_file *m, void *v)
{
	struct kdapl_evd *evd;

	seq_puts(m, "handle flags qlen queued posted overflows upcalls policy cpu now moves\n");
	spin_lock_irq(&evd_list_lock);
	list_for_each_entry(evd, &evd_list, node) {
		spin_lock(&evd->lock);
		seq_printf(m, "%#lx %#x %u %u %llu %llu %llu %d %u %u %lu\n",
			   (unsigned long)kdapl_obj_handle(&evd->base),
			   evd->flags, evd->qlen, evd->count, evd->posted,
			   evd->overflows, evd->upcalls, evd->policy,
			   evd->slot->cpu, READ_ONCE(evd->dispatch.cpu),
			   READ_ONCE(evd->dispatch.moves));
		spin_unlock(&evd->lock);
	}
	spin_unlock_irq(&evd_list_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(evds);

/**
 * kdapl_evd_debugfs_init() - create /sys/kernel/debug/kdapl/evds
 * @dir: the module's debugfs directory
 */
void kdapl_evd_debugfs_init(struct dentry *dir)
{
	debugfs_create_file("evds", 0444, dir, NULL, &evds_fops);
}
