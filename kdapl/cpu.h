/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-CPU completion processing (seed 004, "parallelizing completion event
 * processing").
 *
 * Each provider (RDMA device, the "interface" of the seed) has a
 * struct kdapl_cpuset: one slot per participating CPU, holding how many
 * event queues are bound to that CPU and how many events it processed.
 * When an event queue (an EVD, with its CQ if it has one) is created, it
 * is bound to the slot with the fewest bound queues, ties broken by the
 * fewest events processed. From then on every event of that queue is
 * processed, and every upcall of that EVD runs, on that CPU: the producer
 * kicks the queue's struct kdapl_dispatch, which schedules an irq_poll on
 * the bound CPU (locally, or through an IPI), and the poll function runs
 * there in softirq context. This is the DPC of the seed.
 *
 * The participating CPUs are the module parameter "cpus" (a cpulist,
 * default: all possible CPUs). A bound CPU that is offline when an event
 * arrives is replaced by the CPU the event arrives on.
 */
#ifndef KDAPL_CPU_H
#define KDAPL_CPU_H

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/irq_poll.h>
#include <linux/smp.h>

/**
 * struct kdapl_cpu_slot - one participating CPU of a provider
 * @cpu: the CPU
 * @queues: event queues bound to it (kdapl_cpu_bind/unbind)
 * @events: events processed on it (kdapl_dispatch_account)
 */
struct kdapl_cpu_slot {
	unsigned int cpu;
	atomic_t queues;
	atomic64_t events;
};

/**
 * struct kdapl_cpuset - the participating CPUs of one provider
 * @lock: serialises the choice in kdapl_cpu_bind() so that two queues
 *	created at once do not both pick the same least-loaded slot
 * @nr: number of slots
 * @slot: one per participating CPU, in CPU order
 *
 * Owned by the provider: allocated when the device appears, freed after
 * the last event queue of the device is gone.
 */
struct kdapl_cpuset {
	spinlock_t lock;	/* serialises the choice of a slot */
	unsigned int nr;
	struct kdapl_cpu_slot slot[];
};

struct kdapl_dispatch;
typedef int (*kdapl_dispatch_fn)(struct kdapl_dispatch *d, int budget);

/**
 * struct kdapl_dispatch - runs one event queue's processing on its CPU
 * @iop: the softirq poll context, scheduled on @slot's CPU
 * @csd: IPI that schedules @iop when the kick comes from another CPU
 * @flags: KDAPL_DISPATCH_IPI (an IPI is in flight; cleared at the end of
 *	the IPI function, the last access to this structure from it) and
 *	KDAPL_DISPATCH_DEAD (kdapl_dispatch_stop() ran: no more kicks) and
 *	KDAPL_DISPATCH_KICKED (work arrived since the processing function
 *	last started: a kick that lands while the poll is finishing would
 *	otherwise be lost, see dispatch_poll())
 * @slot: the CPU this queue is bound to
 * @fn: the processing function; returns how much of @budget it used and
 *	is called again while it uses all of it
 */
struct kdapl_dispatch {
	struct irq_poll iop;
	call_single_data_t csd;
	unsigned long flags;
	struct kdapl_cpu_slot *slot;
	kdapl_dispatch_fn fn;
};

#define KDAPL_DISPATCH_IPI	0
#define KDAPL_DISPATCH_DEAD	1
#define KDAPL_DISPATCH_KICKED	2

int kdapl_cpu_init(void);
void kdapl_cpu_exit(void);
const struct cpumask *kdapl_cpu_mask(void);

struct kdapl_cpuset *kdapl_cpuset_alloc(const struct cpumask *mask);
void kdapl_cpuset_free(struct kdapl_cpuset *set);
struct kdapl_cpu_slot *kdapl_cpu_bind(struct kdapl_cpuset *set);
void kdapl_cpu_unbind(struct kdapl_cpu_slot *slot);

void kdapl_dispatch_init(struct kdapl_dispatch *d, struct kdapl_cpu_slot *slot,
			 kdapl_dispatch_fn fn, int weight);
void kdapl_dispatch_kick(struct kdapl_dispatch *d);
void kdapl_dispatch_stop(struct kdapl_dispatch *d);

/**
 * kdapl_dispatch_account() - count events processed by a dispatch
 * @d: the dispatch, from within its processing function
 * @n: number of events
 *
 * Context: the dispatch's processing function (softirq).
 */
static inline void kdapl_dispatch_account(struct kdapl_dispatch *d, int n)
{
	atomic64_add(n, &d->slot->events);
}

#endif /* KDAPL_CPU_H */
