// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU completion processing: CPU choice by load and the dispatch of an
 * event queue's processing to its CPU. See cpu.h for the model.
 */

#include <linux/module.h>
#include <linux/delay.h>
#include <linux/slab.h>

#include "cpu.h"

static char *cpus_param;
module_param_named(cpus, cpus_param, charp, 0444);
MODULE_PARM_DESC(cpus,
		 "CPUs that process completion events (cpulist, default: all)");

/* The participating CPUs: set once at module init, read-only afterwards. */
static cpumask_var_t kdapl_cpus;

/**
 * kdapl_cpu_init() - parse the "cpus" module parameter
 *
 * Return: 0, or -EINVAL if the list is malformed or names no possible CPU.
 * Context: module init.
 */
int kdapl_cpu_init(void)
{
	if (!zalloc_cpumask_var(&kdapl_cpus, GFP_KERNEL))
		return -ENOMEM;

	if (!cpus_param || !*cpus_param) {
		cpumask_copy(kdapl_cpus, cpu_possible_mask);
		return 0;
	}
	if (cpulist_parse(cpus_param, kdapl_cpus))
		goto bad;
	cpumask_and(kdapl_cpus, kdapl_cpus, cpu_possible_mask);
	if (cpumask_empty(kdapl_cpus))
		goto bad;
	return 0;

bad:
	pr_err("kdapl: cpus=%s names no usable CPU\n", cpus_param);
	free_cpumask_var(kdapl_cpus);
	return -EINVAL;
}

void kdapl_cpu_exit(void)
{
	free_cpumask_var(kdapl_cpus);
}

/**
 * kdapl_cpu_mask() - the participating CPUs
 *
 * Return: the mask given by the "cpus" module parameter.
 */
const struct cpumask *kdapl_cpu_mask(void)
{
	return kdapl_cpus;
}
EXPORT_SYMBOL_NS_GPL(kdapl_cpu_mask, KDAPL_INTERNAL);

/**
 * kdapl_cpuset_alloc() - per-provider slots for the CPUs of @mask
 * @mask: participating CPUs, normally kdapl_cpu_mask()
 *
 * Return: the set, or NULL if @mask is empty or memory is short.
 * Context: process context.
 */
struct kdapl_cpuset *kdapl_cpuset_alloc(const struct cpumask *mask)
{
	unsigned int nr = cpumask_weight(mask), i = 0, cpu;
	struct kdapl_cpuset *set;

	if (!nr)
		return NULL;
	set = kzalloc(struct_size(set, slot, nr), GFP_KERNEL);
	if (!set)
		return NULL;
	spin_lock_init(&set->lock);
	set->nr = nr;
	for_each_cpu(cpu, mask) {
		set->slot[i].cpu = cpu;
		atomic_set(&set->slot[i].queues, 0);
		atomic64_set(&set->slot[i].events, 0);
		i++;
	}
	return set;
}
EXPORT_SYMBOL_NS_GPL(kdapl_cpuset_alloc, KDAPL_INTERNAL);

/**
 * kdapl_cpuset_free() - free a set whose queues are all unbound
 * @set: the set, or NULL
 *
 * Context: any context.
 */
void kdapl_cpuset_free(struct kdapl_cpuset *set)
{
	unsigned int i;

	if (!set)
		return;
	for (i = 0; i < set->nr; i++)
		WARN_ON(atomic_read(&set->slot[i].queues));
	kfree(set);
}
EXPORT_SYMBOL_NS_GPL(kdapl_cpuset_free, KDAPL_INTERNAL);

/*
 * Is @a a better home for a new queue than @b? Online CPUs first, then
 * fewest bound queues, then fewest events processed.
 */
static bool slot_better(struct kdapl_cpu_slot *a, struct kdapl_cpu_slot *b)
{
	int qa = atomic_read(&a->queues), qb = atomic_read(&b->queues);
	bool on_a = cpu_online(a->cpu), on_b = cpu_online(b->cpu);

	if (on_a != on_b)
		return on_a;
	if (qa != qb)
		return qa < qb;
	return atomic64_read(&a->events) < atomic64_read(&b->events);
}

/**
 * kdapl_cpu_bind() - choose the CPU for a new event queue
 * @set: the provider's set
 *
 * Return: the least loaded slot, its queue count already raised; release
 * it with kdapl_cpu_unbind().
 * Context: any context.
 */
struct kdapl_cpu_slot *kdapl_cpu_bind(struct kdapl_cpuset *set)
{
	struct kdapl_cpu_slot *best = &set->slot[0];
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&set->lock, flags);
	for (i = 1; i < set->nr; i++)
		if (slot_better(&set->slot[i], best))
			best = &set->slot[i];
	atomic_inc(&best->queues);
	spin_unlock_irqrestore(&set->lock, flags);
	return best;
}
EXPORT_SYMBOL_NS_GPL(kdapl_cpu_bind, KDAPL_INTERNAL);

/**
 * kdapl_cpu_unbind() - an event queue bound by kdapl_cpu_bind() is gone
 * @slot: its slot
 *
 * Context: any context.
 */
void kdapl_cpu_unbind(struct kdapl_cpu_slot *slot)
{
	atomic_dec(&slot->queues);
}
EXPORT_SYMBOL_NS_GPL(kdapl_cpu_unbind, KDAPL_INTERNAL);

static int dispatch_poll(struct irq_poll *iop, int budget)
{
	struct kdapl_dispatch *d = container_of(iop, struct kdapl_dispatch,
						iop);
	int done;

	clear_bit(KDAPL_DISPATCH_KICKED, &d->flags);
	smp_mb__after_atomic();	/* clear before looking for work */
	done = d->fn(d, budget);
	if (done < budget) {
		irq_poll_complete(iop);
		/*
		 * A kick between the processing function's last look and
		 * the completion found the poll still scheduled and did
		 * nothing: schedule again for it.
		 */
		smp_mb__after_atomic();
		if (test_bit(KDAPL_DISPATCH_KICKED, &d->flags))
			irq_poll_sched(iop);
	}
	return done;
}

/* IPI on the bound CPU: schedule the poll there. */
static void dispatch_ipi(void *info)
{
	struct kdapl_dispatch *d = info;

	irq_poll_sched(&d->iop);
	/* Last access to @d from this IPI: kdapl_dispatch_stop() waits on it. */
	clear_bit_unlock(KDAPL_DISPATCH_IPI, &d->flags);
}

/**
 * kdapl_dispatch_init() - set up the dispatch of one event queue
 * @d: the dispatch, embedded in the queue
 * @slot: the queue's CPU, from kdapl_cpu_bind()
 * @fn: processing function, run in softirq context on @slot's CPU
 * @weight: the largest budget passed to @fn
 *
 * Context: any context.
 */
void kdapl_dispatch_init(struct kdapl_dispatch *d, struct kdapl_cpu_slot *slot,
			 kdapl_dispatch_fn fn, int weight)
{
	d->slot = slot;
	d->fn = fn;
	d->flags = 0;
	INIT_CSD(&d->csd, dispatch_ipi, d);
	irq_poll_init(&d->iop, weight, dispatch_poll);
}
EXPORT_SYMBOL_NS_GPL(kdapl_dispatch_init, KDAPL_INTERNAL);

/**
 * kdapl_dispatch_kick() - make the queue's processing run on its CPU
 * @d: the dispatch
 *
 * Cheap when the processing is already scheduled. After
 * kdapl_dispatch_stop() it does nothing.
 *
 * Context: any context, hard IRQ included.
 */
void kdapl_dispatch_kick(struct kdapl_dispatch *d)
{
	unsigned int cpu = d->slot->cpu;
	unsigned int here;

	/* Preemption off from here: kdapl_dispatch_stop() waits us out. */
	here = get_cpu();
	if (test_bit(KDAPL_DISPATCH_DEAD, &d->flags)) {
		put_cpu();
		return;
	}
	set_bit(KDAPL_DISPATCH_KICKED, &d->flags);
	smp_mb__after_atomic();	/* pairs with dispatch_poll() */
	if (cpu == here || !cpu_online(cpu)) {
		irq_poll_sched(&d->iop);
	} else if (!test_and_set_bit_lock(KDAPL_DISPATCH_IPI, &d->flags)) {
		if (smp_call_function_single_async(cpu, &d->csd)) {
			/* The CPU went away meanwhile: process here. */
			clear_bit_unlock(KDAPL_DISPATCH_IPI, &d->flags);
			irq_poll_sched(&d->iop);
		}
	}
	put_cpu();
}
EXPORT_SYMBOL_NS_GPL(kdapl_dispatch_kick, KDAPL_INTERNAL);

/**
 * kdapl_dispatch_stop() - stop a dispatch for good
 * @d: the dispatch
 *
 * Later kicks do nothing; waits for kicks in progress, for an IPI in
 * flight and for a running processing function to return. Afterwards @d
 * may be freed, provided nobody can start a new kick on it (the owner
 * unpublishes @d before stopping it).
 *
 * Context: process context; sleeps.
 */
void kdapl_dispatch_stop(struct kdapl_dispatch *d)
{
	set_bit(KDAPL_DISPATCH_DEAD, &d->flags);
	/* Kicks run with preemption off: after this, none still runs. */
	synchronize_rcu();
	while (test_bit(KDAPL_DISPATCH_IPI, &d->flags))
		usleep_range(100, 200);
	irq_poll_disable(&d->iop);
}
EXPORT_SYMBOL_NS_GPL(kdapl_dispatch_stop, KDAPL_INTERNAL);
