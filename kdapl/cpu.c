// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU completion processing: the placement policy (where a queue is
 * bound and where it is processed), the load it is measured by, and the
 * dispatch of a queue's processing to its CPU. See cpu.h for the model.
 */

#include <linux/module.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "cpu.h"

static char *cpus_param;
module_param_named(cpus, cpus_param, charp, 0444);
MODULE_PARM_DESC(cpus,
		 "CPUs that process completion events (cpulist, default: all)");

static char *placement_param = "follow";
module_param_named(placement, placement_param, charp, 0444);
MODULE_PARM_DESC(placement,
		 "Where an EVD's events are processed: follow (where its completions arrive, moved by load; default) or spread (always on the CPU it was bound to)");

/* Length of a load window, in jiffies (about 20 ms). */
#define KDAPL_LOAD_WINDOW	(HZ / 50 ?: 1)

/* The participating CPUs: set once at module init, read-only afterwards. */
static cpumask_var_t kdapl_cpus;
static enum kdapl_placement kdapl_placement;

static const char * const placement_names[] = {
	[KDAPL_PLACE_FOLLOW] = "follow",
	[KDAPL_PLACE_SPREAD] = "spread",
};

/**
 * kdapl_placement_name() - the name of a placement policy
 * @mode: the policy
 *
 * Return: its module parameter spelling.
 */
const char *kdapl_placement_name(enum kdapl_placement mode)
{
	return mode < ARRAY_SIZE(placement_names) ? placement_names[mode] : "?";
}
EXPORT_SYMBOL_NS_GPL(kdapl_placement_name, KDAPL_INTERNAL);

/**
 * kdapl_cpu_placement() - the placement policy of new providers
 *
 * Return: the policy named by the "placement" module parameter.
 */
enum kdapl_placement kdapl_cpu_placement(void)
{
	return kdapl_placement;
}
EXPORT_SYMBOL_NS_GPL(kdapl_cpu_placement, KDAPL_INTERNAL);

static int placement_parse(void)
{
	int i = sysfs_match_string(placement_names, placement_param);

	if (i < 0) {
		pr_err("kdapl: placement=%s: want follow or spread\n",
		       placement_param);
		return -EINVAL;
	}
	kdapl_placement = i;
	return 0;
}

/**
 * kdapl_cpu_init() - parse the "cpus" and "placement" module parameters
 *
 * Return: 0, or -EINVAL if the list is malformed or names no possible CPU
 * or the placement is unknown.
 * Context: module init.
 */
int kdapl_cpu_init(void)
{
	if (placement_parse())
		return -EINVAL;
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
 * @mode: placement policy of the provider's queues
 *
 * Return: the set, or NULL if @mask is empty or memory is short.
 * Context: process context.
 */
struct kdapl_cpuset *kdapl_cpuset_alloc(const struct cpumask *mask,
					enum kdapl_placement mode)
{
	unsigned int nr = cpumask_weight(mask), i = 0, cpu;
	unsigned long long_ago = jiffies - KDAPL_LOAD_WINDOW;
	struct kdapl_cpuset *set;

	if (!nr)
		return NULL;
	set = kzalloc(struct_size(set, slot, nr), GFP_KERNEL);
	if (!set)
		return NULL;
	set->index = kmalloc_array(nr_cpu_ids, sizeof(*set->index),
				   GFP_KERNEL);
	if (!set->index) {
		kfree(set);
		return NULL;
	}
	memset(set->index, 0xff, nr_cpu_ids * sizeof(*set->index));
	spin_lock_init(&set->lock);
	set->mode = mode;
	set->nr = nr;
	for_each_cpu(cpu, mask) {
		struct kdapl_cpu_slot *s = &set->slot[i];

		s->cpu = cpu;
		atomic_set(&s->queues, 0);
		atomic64_set(&s->events, 0);
		s->win_start = long_ago;
		s->moved_in = long_ago;
		set->index[cpu] = i++;
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
	kfree(set->index);
	kfree(set);
}
EXPORT_SYMBOL_NS_GPL(kdapl_cpuset_free, KDAPL_INTERNAL);

/**
 * kdapl_cpu_slot_of() - the slot of a CPU
 * @set: the provider's set
 * @cpu: a possible CPU
 *
 * Return: the slot, or NULL if @cpu does not take part.
 * Context: any context.
 */
struct kdapl_cpu_slot *kdapl_cpu_slot_of(struct kdapl_cpuset *set,
					 unsigned int cpu)
{
	int i = cpu < nr_cpu_ids ? set->index[cpu] : -1;

	return i < 0 ? NULL : &set->slot[i];
}
EXPORT_SYMBOL_NS_GPL(kdapl_cpu_slot_of, KDAPL_INTERNAL);

/*
 * Account @ns of processing on @s; runs on @s's CPU, in softirq context,
 * the only writer of the window. A window that ran to twice its length
 * saw the CPU idle for at least one window: it counts as no load.
 */
static void slot_add_busy(struct kdapl_cpu_slot *s, u64 ns)
{
	unsigned long now = jiffies, el = now - s->win_start;

	if (el >= KDAPL_LOAD_WINDOW) {
		u64 busy = 0;

		if (el < 2 * KDAPL_LOAD_WINDOW)
			busy = div64_u64(s->win_busy * 1000,
					 (u64)el * TICK_NSEC);
		WRITE_ONCE(s->busy, min_t(u64, busy, 1000));
		WRITE_ONCE(s->win_busy, 0);
		WRITE_ONCE(s->win_start, now);
	}
	WRITE_ONCE(s->win_busy, s->win_busy + ns);
}

/**
 * kdapl_cpu_load() - how busy processing keeps a CPU
 * @slot: the CPU's slot
 *
 * Return: thousandths of the last load window spent processing; 0 when
 * the CPU processed nothing for a window.
 * Context: any context.
 */
unsigned int kdapl_cpu_load(const struct kdapl_cpu_slot *slot)
{
	unsigned long el = jiffies - READ_ONCE(slot->win_start);
	u64 busy;

	if (el >= 2 * KDAPL_LOAD_WINDOW)
		return 0;
	if (el < KDAPL_LOAD_WINDOW)
		return READ_ONCE(slot->busy);
	/* The window ran out with nobody processing since: close it here. */
	busy = div64_u64(READ_ONCE(slot->win_busy) * 1000,
			 (u64)el * TICK_NSEC);
	return min_t(u64, busy, 1000);
}
EXPORT_SYMBOL_NS_GPL(kdapl_cpu_load, KDAPL_INTERNAL);

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
 * Follow mode: the calling CPU, unless it does not take part or its load
 * is above KDAPL_LOAD_HIGH. Otherwise, and in spread mode: the slot with
 * the fewest bound queues, ties broken by fewest events processed.
 *
 * Return: the slot, its queue count already raised; release it with
 * kdapl_cpu_unbind().
 * Context: any context.
 */
struct kdapl_cpu_slot *kdapl_cpu_bind(struct kdapl_cpuset *set)
{
	struct kdapl_cpu_slot *best = &set->slot[0], *here;
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&set->lock, flags);
	here = kdapl_cpu_slot_of(set, smp_processor_id());
	if (set->mode == KDAPL_PLACE_FOLLOW && here &&
	    kdapl_cpu_load(here) < KDAPL_LOAD_HIGH) {
		best = here;
	} else {
		for (i = 1; i < set->nr; i++)
			if (slot_better(&set->slot[i], best))
				best = &set->slot[i];
	}
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

/**
 * kdapl_dispatch_account() - count events processed by a dispatch
 * @d: the dispatch, from within its processing function
 * @n: number of completions or events
 *
 * Context: the dispatch's processing function (softirq).
 */
void kdapl_dispatch_account(struct kdapl_dispatch *d, int n)
{
	struct kdapl_cpu_slot *s = kdapl_cpu_slot_of(d->set,
						     smp_processor_id());

	atomic64_add(n, &(s ?: d->slot)->events);
}
EXPORT_SYMBOL_NS_GPL(kdapl_dispatch_account, KDAPL_INTERNAL);

static int dispatch_poll(struct irq_poll *iop, int budget)
{
	struct kdapl_dispatch *d = container_of(iop, struct kdapl_dispatch,
						iop);
	struct kdapl_cpu_slot *s;
	u64 start = local_clock();
	int done;

	set_bit(KDAPL_DISPATCH_POLLING, &d->flags);
	clear_bit(KDAPL_DISPATCH_KICKED, &d->flags);
	smp_mb__after_atomic();	/* clear before looking for work */
	done = d->fn(d, budget);
	s = kdapl_cpu_slot_of(d->set, smp_processor_id());
	if (s)
		slot_add_busy(s, local_clock() - start);
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
	/* Last access to @d from here: kdapl_dispatch_stop() waits on it. */
	clear_bit_unlock(KDAPL_DISPATCH_POLLING, &d->flags);
	return done;
}

/* IPI on the chosen CPU: schedule the poll there. */
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
 * @set: the provider's set, whose placement policy applies
 * @slot: the queue's CPU, from kdapl_cpu_bind()
 * @fn: processing function, run in softirq context
 * @weight: the largest budget passed to @fn
 *
 * Context: any context.
 */
void kdapl_dispatch_init(struct kdapl_dispatch *d, struct kdapl_cpuset *set,
			 struct kdapl_cpu_slot *slot, kdapl_dispatch_fn fn,
			 int weight)
{
	d->set = set;
	d->slot = slot;
	d->cpu = slot->cpu;
	d->moved = jiffies - KDAPL_LOAD_WINDOW;
	d->moves = 0;
	d->fn = fn;
	d->flags = 0;
	INIT_CSD(&d->csd, dispatch_ipi, d);
	irq_poll_init(&d->iop, weight, dispatch_poll);
}
EXPORT_SYMBOL_NS_GPL(kdapl_dispatch_init, KDAPL_INTERNAL);

/*
 * May @d move to @to now? Once per window for the queue, and one queue
 * per window into a CPU, so that the next choice sees the load it made.
 */
static bool may_move(struct kdapl_dispatch *d, struct kdapl_cpu_slot *to,
		     unsigned long now)
{
	unsigned long moved = READ_ONCE(d->moved);
	unsigned long last = READ_ONCE(to->moved_in);

	if (time_before(now, moved + KDAPL_LOAD_WINDOW) ||
	    time_before(now, last + KDAPL_LOAD_WINDOW))
		return false;
	/* Racing kicks: one claims the queue's move, then the CPU's. */
	if (cmpxchg(&d->moved, moved, now) != moved)
		return false;
	if (cmpxchg(&to->moved_in, last, now) != last)
		return false;
	WRITE_ONCE(d->moves, d->moves + 1);
	WRITE_ONCE(d->cpu, to->cpu);
	return true;
}

/* The lightest online participating CPU. */
static struct kdapl_cpu_slot *lightest(struct kdapl_cpuset *set,
				       unsigned int *load)
{
	struct kdapl_cpu_slot *best = NULL;
	unsigned int i, l, min = UINT_MAX;

	for (i = 0; i < set->nr; i++) {
		if (!cpu_online(set->slot[i].cpu))
			continue;
		l = kdapl_cpu_load(&set->slot[i]);
		if (l < min) {
			min = l;
			best = &set->slot[i];
		}
	}
	*load = min;
	return best;
}

/*
 * Follow mode: the CPU to process @d on, for a kick on @here (see cpu.h).
 * Preemption is off.
 */
static unsigned int follow_cpu(struct kdapl_dispatch *d, unsigned int here)
{
	struct kdapl_cpu_slot *sh = kdapl_cpu_slot_of(d->set, here), *sc, *to;
	unsigned int cur = READ_ONCE(d->cpu), lh, lc, lmin;
	unsigned long now = jiffies;

	if (!cpu_online(cur)) {
		if (!sh)	/* @here does not take part: the lightest */
			sh = lightest(d->set, &lmin);
		if (!sh)
			return here;	/* none online: as spread mode does */
		WRITE_ONCE(d->cpu, sh->cpu);
		return sh->cpu;
	}
	if (!sh)		/* @here does not take part: stay */
		return cur;
	lh = kdapl_cpu_load(sh);
	if (cur == here) {
		if (lh < KDAPL_LOAD_HIGH)
			return here;
		to = lightest(d->set, &lmin);
		if (to && to != sh && lh > lmin + KDAPL_LOAD_MARGIN &&
		    may_move(d, to, now))
			return to->cpu;
		return here;
	}
	sc = kdapl_cpu_slot_of(d->set, cur);
	lc = sc ? kdapl_cpu_load(sc) : 0;
	if ((lh < KDAPL_LOAD_LOW || lh + KDAPL_LOAD_MARGIN < lc) &&
	    may_move(d, sh, now))
		return here;
	return cur;
}

/**
 * kdapl_dispatch_kick() - make the queue's processing run
 * @d: the dispatch
 *
 * Cheap when the processing is already scheduled: the poll then sees the
 * kick (dispatch_poll()). Otherwise schedules it on the CPU the placement
 * policy chooses. After kdapl_dispatch_stop() it does nothing.
 *
 * Context: any context, hard IRQ included.
 */
void kdapl_dispatch_kick(struct kdapl_dispatch *d)
{
	unsigned int here, cpu;

	/* Preemption off from here: kdapl_dispatch_stop() waits us out. */
	here = get_cpu();
	if (test_bit(KDAPL_DISPATCH_DEAD, &d->flags))
		goto out;
	set_bit(KDAPL_DISPATCH_KICKED, &d->flags);
	smp_mb__after_atomic();	/* pairs with dispatch_poll() */
	if (test_bit(IRQ_POLL_F_SCHED, &d->iop.state))
		goto out;
	if (d->set->mode == KDAPL_PLACE_FOLLOW)
		cpu = follow_cpu(d, here);
	else
		cpu = d->slot->cpu;
	if (cpu == here || !cpu_online(cpu)) {
		irq_poll_sched(&d->iop);
	} else if (!test_and_set_bit_lock(KDAPL_DISPATCH_IPI, &d->flags)) {
		if (smp_call_function_single_async(cpu, &d->csd)) {
			/* The CPU went away meanwhile: process here. */
			clear_bit_unlock(KDAPL_DISPATCH_IPI, &d->flags);
			irq_poll_sched(&d->iop);
		}
	} else if (d->set->mode == KDAPL_PLACE_FOLLOW) {
		/*
		 * An IPI is in flight, maybe to a CPU the queue has left: a
		 * poll elsewhere may have run and finished before it lands,
		 * and the IPI then schedules nothing new. Process here.
		 * (Spread mode: the IPI goes to the one CPU that processes,
		 * whose poll it cannot interleave with.)
		 */
		irq_poll_sched(&d->iop);
	}
out:
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
	/* No poll is scheduled or can be after this... */
	irq_poll_disable(&d->iop);
	/* ...but the last one may still be finishing after its complete. */
	while (test_bit(KDAPL_DISPATCH_POLLING, &d->flags))
		usleep_range(100, 200);
}
EXPORT_SYMBOL_NS_GPL(kdapl_dispatch_stop, KDAPL_INTERNAL);
