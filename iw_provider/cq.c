// SPDX-License-Identifier: GPL-2.0
/*
 * kiwarp: completion queues.
 *
 * A CQ is a ring of struct ib_wc under cq->lock (irq safe). Its
 * completion handler runs in softirq context, from the CQ's tasklet, as
 * a NIC driver's completion tasklet does (rxe's, for one). A CQ created
 * while the cq_affinity module parameter is set (the default;
 * cq->affine, which a consumer may change, kiwarp_cq_set_affine() in
 * include/kiwarp/cq.h) runs it on its completion vector's CPU, as a NIC's
 * interrupt vectors have their affinity: vector v belongs to the v-th
 * online CPU (kiwarp_cpu_of_vector). Other CQs run it on the CPU that
 * produced the completion, as siw and rxe call theirs: no IPI, and a
 * consumer that follows the handler's CPU (kdapl's follow placement)
 * processes where the data arrived. A producer on the handler's CPU in
 * a softirq, an interrupt or a bh-disabled section (the receive path
 * runs under sk_callback_lock's read_lock_bh; the TX work produces its
 * completions with bh off, kiwarp_tx_complete(); the RX work parses in
 * bh-off chunks, rx.c) schedules the tasklet itself: that only raises
 * the softirq, which runs when the section ends - no interrupt, and
 * after the QP's and the CQ's locks are dropped (the RX work still owns
 * the socket then; the handler never takes it). Elsewhere in process context (flushes, the
 * TX work's kiwarp_rx_drain(), zero-copy completions) an irq_work (a
 * self-IPI) schedules it. For an affine CQ, a producer on another CPU
 * sends one async IPI (smp_call_function_single_async) whose callback
 * schedules the tasklet there; the softirq runs on that interrupt's
 * exit, no second interrupt. While that CPU is offline the producer's
 * own CPU runs the handler (kiwarp_cq_raise); a tasklet pending on a CPU
 * that goes down moves to a live one (takeover_tasklets). A tasklet runs
 * on one CPU at a time, so the handler never runs twice at once, on
 * whichever CPUs it is scheduled. It is never called under a lock of
 * ours and may post and poll; ib_core's per-CPU completion processing
 * (and kdapl's) relies on this.
 *
 * Arming: req_notify_cq sets cq->armed; the next completion (or next
 * solicited / error completion for IB_CQ_SOLICITED) disarms and raises
 * the notification. IB_CQ_REPORT_MISSED_EVENTS returns 1 when
 * completions are already queued. An overflow drops the completion and
 * reports IB_EVENT_CQ_ERR once, from an irq_work (never under a QP lock).
 */

#include <linux/slab.h>
#include <linux/log2.h>
#include <linux/delay.h>
#include <linux/interrupt.h>

#include <kiwarp/cq.h>

#include "kiwarp.h"

static void kiwarp_cq_notify(struct tasklet_struct *t)
{
	struct kiwarp_cq *cq = from_tasklet(cq, t, notify_tasklet);

	atomic64_inc(&cq->notifies);
	if (cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
}

/* Process context could not raise the softirq itself: from here it can. */
static void kiwarp_cq_kick(struct irq_work *work)
{
	struct kiwarp_cq *cq = container_of(work, struct kiwarp_cq, kick_work);

	tasklet_schedule(&cq->notify_tasklet);
}

/*
 * The tasklet on this CPU. In a softirq, an interrupt or with bh off the
 * softirq runs when that ends; in plain process context raising it
 * would wake ksoftirqd, so an irq_work brings us to an interrupt exit.
 */
static void kiwarp_cq_local(struct kiwarp_cq *cq)
{
	if (in_interrupt())
		tasklet_schedule(&cq->notify_tasklet);
	else
		irq_work_queue(&cq->kick_work);
}

static void kiwarp_cq_err(struct irq_work *work)
{
	struct kiwarp_cq *cq = container_of(work, struct kiwarp_cq, err_work);
	struct ib_event ev = {
		.device = cq->ibcq.device,
		.element.cq = &cq->ibcq,
		.event = IB_EVENT_CQ_ERR,
	};

	if (cq->ibcq.event_handler)
		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
}

/* IPI callback on cq->cpu (hard irq): the softirq runs at its exit. */
static void kiwarp_cq_ipi(void *info)
{
	struct kiwarp_cq *cq = info;

	tasklet_schedule(&cq->notify_tasklet);
	atomic_dec(&cq->csd_inflight);
}

/*
 * Run the CQ's handler here, or on cq->cpu for an affine CQ. While that
 * CPU is offline the handler runs on the raising CPU instead (-ENXIO:
 * not an online CPU), so no notification is lost; once it is back,
 * notifications return to it. An IPI already queued on a CPU going
 * offline is run by that CPU before it dies (smpcfd_dying_cpu), and its
 * tasklets move to a live CPU. Preemption is off, so cq->cpu cannot go
 * down between the check and the IPI.
 */
static void kiwarp_cq_raise(struct kiwarp_cq *cq)
{
	int cpu = get_cpu();
	int ret;

	if (READ_ONCE(cq->affine) && cpu != cq->cpu) {
		atomic_inc(&cq->csd_inflight);
		ret = smp_call_function_single_async(cq->cpu, &cq->csd);
		if (!ret)
			goto out;
		atomic_dec(&cq->csd_inflight);
		/* -EBUSY: the IPI in flight will schedule the tasklet */
		if (ret == -EBUSY)
			goto out;
		atomic64_inc(&cq->offline_raises);
	}
	kiwarp_cq_local(cq);
out:
	put_cpu();
}

int kiwarp_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		     struct ib_udata *udata)
{
	struct kiwarp_dev *kdev = to_kdev(ibcq->device);
	struct kiwarp_cq *cq = to_kcq(ibcq);
	int ret;

	if (udata)
		return -EOPNOTSUPP;
	if (attr->flags)
		return -EOPNOTSUPP;
	if (!attr->cqe || attr->cqe > KIWARP_MAX_CQE)
		return -EINVAL;
	if (attr->comp_vector < 0 ||
	    attr->comp_vector >= ibcq->device->num_comp_vectors)
		return -EINVAL;
	if (atomic_inc_return(&kdev->num_cq) > KIWARP_MAX_CQ) {
		ret = -ENOMEM;
		goto out_count;
	}
	cq->size = roundup_pow_of_two(attr->cqe);
	cq->ring = kvcalloc(cq->size, sizeof(*cq->ring), GFP_KERNEL);
	if (!cq->ring) {
		ret = -ENOMEM;
		goto out_count;
	}
	spin_lock_init(&cq->lock);
	cq->cpu = kiwarp_cpu_of_vector(attr->comp_vector);
	cq->affine = READ_ONCE(kiwarp_cq_affinity);
	tasklet_setup(&cq->notify_tasklet, kiwarp_cq_notify);
	init_irq_work(&cq->kick_work, kiwarp_cq_kick);
	init_irq_work(&cq->err_work, kiwarp_cq_err);
	INIT_CSD(&cq->csd, kiwarp_cq_ipi, cq);
	atomic_set(&cq->csd_inflight, 0);
	atomic64_set(&cq->notifies, 0);
	atomic64_set(&cq->offline_raises, 0);
	ibcq->cqe = cq->size;
	return 0;

out_count:
	atomic_dec(&kdev->num_cq);
	return ret;
}

int kiwarp_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct kiwarp_cq *cq = to_kcq(ibcq);
	unsigned long flags;

	spin_lock_irqsave(&cq->lock, flags);
	cq->armed = 0;
	spin_unlock_irqrestore(&cq->lock, flags);
	while (atomic_read(&cq->csd_inflight))
		usleep_range(100, 200);
	irq_work_sync(&cq->kick_work);
	tasklet_kill(&cq->notify_tasklet);
	irq_work_sync(&cq->err_work);
	kvfree(cq->ring);
	atomic_dec(&to_kdev(ibcq->device)->num_cq);
	return 0;
}

int kiwarp_cq_set_affine(struct ib_cq *ibcq, bool affine)
{
	if (ibcq->device->ops.create_cq != kiwarp_create_cq)
		return -EOPNOTSUPP;
	WRITE_ONCE(to_kcq(ibcq)->affine, affine);
	return 0;
}
EXPORT_SYMBOL_GPL(kiwarp_cq_set_affine);

/**
 * kiwarp_cq_add() - queue one completion and notify if armed.
 * @cq: the CQ
 * @wc: the completion (copied)
 * @solicited: a solicited event (Send with SE) or an error completion
 *
 * Context: any; takes cq->lock.
 */
void kiwarp_cq_add(struct kiwarp_cq *cq, const struct ib_wc *wc,
		   bool solicited)
{
	bool notify = false, overflow = false;
	unsigned long flags;

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->tail - cq->head >= cq->size) {
		overflow = !cq->overflow;
		cq->overflow = true;
	} else {
		cq->ring[cq->tail & (cq->size - 1)] = *wc;
		cq->tail++;
		if (cq->armed == IB_CQ_NEXT_COMP ||
		    (cq->armed == IB_CQ_SOLICITED &&
		     (solicited || wc->status != IB_WC_SUCCESS))) {
			cq->armed = 0;
			notify = true;
		}
	}
	spin_unlock_irqrestore(&cq->lock, flags);

	if (notify)
		kiwarp_cq_raise(cq);
	/* not from here: the caller may hold the QP's locks */
	if (overflow)
		irq_work_queue(&cq->err_work);
}

int kiwarp_poll_cq(struct ib_cq *ibcq, int num, struct ib_wc *wc)
{
	struct kiwarp_cq *cq = to_kcq(ibcq);
	unsigned long flags;
	int n = 0;

	spin_lock_irqsave(&cq->lock, flags);
	while (n < num && cq->head != cq->tail) {
		wc[n++] = cq->ring[cq->head & (cq->size - 1)];
		cq->head++;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

int kiwarp_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct kiwarp_cq *cq = to_kcq(ibcq);
	unsigned long irqf;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, irqf);
	if ((flags & IB_CQ_SOLICITED_MASK) == IB_CQ_SOLICITED) {
		if (cq->armed != IB_CQ_NEXT_COMP)
			cq->armed = IB_CQ_SOLICITED;
	} else {
		cq->armed = IB_CQ_NEXT_COMP;
	}
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && cq->head != cq->tail)
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqf);
	return ret;
}
