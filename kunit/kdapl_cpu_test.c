// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite kdapl_cpu: per-CPU completion processing (kdapl/cpu.c).
 * Needs at least two online CPUs; the guest runner checks it has them.
 */

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/delay.h>
#include <linux/module.h>

#include "../kdapl/cpu.h"

MODULE_IMPORT_NS(KDAPL_INTERNAL);

struct probe {
	struct kdapl_dispatch d;
	atomic_t calls;
	atomic_t wrong_cpu;
	atomic_t not_softirq;
	int more;		/* calls that still report a full budget */
	struct completion done;
};

static int probe_fn(struct kdapl_dispatch *d, int budget)
{
	struct probe *p = container_of(d, struct probe, d);

	atomic_inc(&p->calls);
	if (smp_processor_id() != d->slot->cpu)
		atomic_inc(&p->wrong_cpu);
	if (!in_serving_softirq())
		atomic_inc(&p->not_softirq);
	kdapl_dispatch_account(d, 1);
	if (p->more > 0) {
		p->more--;
		return budget;
	}
	complete(&p->done);
	return 0;
}

static void probe_init(struct probe *p, struct kdapl_cpu_slot *slot)
{
	memset(p, 0, sizeof(*p));
	init_completion(&p->done);
	kdapl_dispatch_init(&p->d, slot, probe_fn, 8);
}

static struct kdapl_cpuset *two_cpu_set(struct kunit *test)
{
	struct kdapl_cpuset *set;

	KUNIT_ASSERT_GE_MSG(test, num_online_cpus(), 2U,
			    "per-CPU tests need two online CPUs");
	set = kdapl_cpuset_alloc(cpu_online_mask);
	KUNIT_ASSERT_NOT_NULL(test, set);
	KUNIT_ASSERT_EQ(test, set->nr, num_online_cpus());
	return set;
}

static void cpu_test_mask(struct kunit *test)
{
	const struct cpumask *m = kdapl_cpu_mask();

	KUNIT_EXPECT_FALSE(test, cpumask_empty(m));
	KUNIT_EXPECT_TRUE(test, cpumask_subset(m, cpu_possible_mask));
	KUNIT_EXPECT_NULL(test, kdapl_cpuset_alloc(cpu_none_mask));
}

static void cpu_test_bind_balances(struct kunit *test)
{
	struct kdapl_cpuset *set = two_cpu_set(test);
	struct kdapl_cpu_slot *s[8];
	unsigned int i;

	for (i = 0; i < 2 * set->nr; i++)
		s[i] = kdapl_cpu_bind(set);
	for (i = 0; i < set->nr; i++)
		KUNIT_EXPECT_EQ(test, atomic_read(&set->slot[i].queues), 2);

	/* Free one queue on the first slot: the next one goes there. */
	kdapl_cpu_unbind(&set->slot[0]);
	KUNIT_EXPECT_PTR_EQ(test, kdapl_cpu_bind(set), &set->slot[0]);

	for (i = 0; i < 2 * set->nr; i++)
		kdapl_cpu_unbind(s[i]);
	for (i = 0; i < set->nr; i++)
		KUNIT_EXPECT_EQ(test, atomic_read(&set->slot[i].queues), 0);
	kdapl_cpuset_free(set);
}

static void cpu_test_bind_ties_by_events(struct kunit *test)
{
	struct kdapl_cpuset *set = two_cpu_set(test);
	struct kdapl_cpu_slot *a, *b, *c;

	a = kdapl_cpu_bind(set);
	b = kdapl_cpu_bind(set);
	KUNIT_EXPECT_PTR_NE(test, a, b);
	/* Same queue count everywhere: the CPU with fewer events wins. */
	atomic64_add(1000, &set->slot[0].events);
	if (set->nr == 2) {
		c = kdapl_cpu_bind(set);
		KUNIT_EXPECT_PTR_EQ(test, c, &set->slot[1]);
		kdapl_cpu_unbind(c);
	}
	kdapl_cpu_unbind(a);
	kdapl_cpu_unbind(b);
	kdapl_cpuset_free(set);
}

/* A kick from a thread pinned to @from must run on @slot's CPU. */
struct kicker {
	struct probe *p;
	struct completion started;
};

static int kicker_fn(void *arg)
{
	struct kicker *k = arg;

	kdapl_dispatch_kick(&k->p->d);
	complete(&k->started);
	return 0;
}

static void kick_from(struct kunit *test, struct probe *p, unsigned int from)
{
	struct kicker k = { .p = p };
	struct task_struct *t;

	init_completion(&k.started);
	t = kthread_create(kicker_fn, &k, "kdapl_kick/%u", from);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	kthread_bind(t, from);
	wake_up_process(t);
	wait_for_completion(&k.started);
}

static void cpu_test_dispatch_runs_on_bound_cpu(struct kunit *test)
{
	struct kdapl_cpuset *set = two_cpu_set(test);
	unsigned int i, from;
	struct probe *p;

	p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);

	for (i = 0; i < set->nr; i++) {
		for_each_online_cpu(from) {
			probe_init(p, &set->slot[i]);
			kick_from(test, p, from);
			KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&p->done, 5 * HZ), 0UL);
			kdapl_dispatch_stop(&p->d);
			KUNIT_EXPECT_EQ(test, atomic_read(&p->calls), 1);
			KUNIT_EXPECT_EQ_MSG(test, atomic_read(&p->wrong_cpu), 0,
					    "slot cpu %u kicked from %u",
					    set->slot[i].cpu, from);
			KUNIT_EXPECT_EQ(test, atomic_read(&p->not_softirq), 0);
		}
	}
	KUNIT_EXPECT_GT(test, atomic64_read(&set->slot[0].events), 0LL);
	kdapl_cpuset_free(set);
}

static void cpu_test_dispatch_repolls_full_budget(struct kunit *test)
{
	struct kdapl_cpuset *set = two_cpu_set(test);
	struct probe *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	probe_init(p, &set->slot[1]);
	p->more = 5;
	kdapl_dispatch_kick(&p->d);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&p->done, 5 * HZ), 0UL);
	kdapl_dispatch_stop(&p->d);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->calls), 6);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->wrong_cpu), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&set->slot[1].events), 6LL);
	kdapl_cpuset_free(set);
}

static void cpu_test_stop_then_kick(struct kunit *test)
{
	struct kdapl_cpuset *set = two_cpu_set(test);
	struct probe *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	probe_init(p, &set->slot[0]);
	kdapl_dispatch_stop(&p->d);
	kdapl_dispatch_kick(&p->d);
	kick_from(test, p, set->slot[1].cpu);
	msleep(50);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->calls), 0);
	kdapl_cpuset_free(set);
}

struct irq_kick {
	struct hrtimer timer;
	struct probe *p;
};

static enum hrtimer_restart irq_kick_fn(struct hrtimer *t)
{
	struct irq_kick *k = container_of(t, struct irq_kick, timer);

	kdapl_dispatch_kick(&k->p->d);
	return HRTIMER_NORESTART;
}

static void cpu_test_kick_from_hardirq(struct kunit *test)
{
	struct kdapl_cpuset *set = two_cpu_set(test);
	struct irq_kick *k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, k);
	k->p = kunit_kzalloc(test, sizeof(*k->p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, k->p);
	for (i = 0; i < set->nr; i++) {
		probe_init(k->p, &set->slot[i]);
		hrtimer_init(&k->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
		k->timer.function = irq_kick_fn;
		hrtimer_start(&k->timer, ms_to_ktime(1), HRTIMER_MODE_REL_HARD);
		KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&k->p->done, 5 * HZ), 0UL);
		hrtimer_cancel(&k->timer);
		kdapl_dispatch_stop(&k->p->d);
		KUNIT_EXPECT_EQ(test, atomic_read(&k->p->wrong_cpu), 0);
		KUNIT_EXPECT_EQ(test, atomic_read(&k->p->not_softirq), 0);
	}
	kdapl_cpuset_free(set);
}

static void cpu_test_many_kicks_coalesce(struct kunit *test)
{
	struct kdapl_cpuset *set = two_cpu_set(test);
	struct probe *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	int i, calls;

	KUNIT_ASSERT_NOT_NULL(test, p);
	probe_init(p, &set->slot[1]);
	for (i = 0; i < 1000; i++)
		kdapl_dispatch_kick(&p->d);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&p->done, 5 * HZ), 0UL);
	msleep(20);
	kdapl_dispatch_stop(&p->d);
	calls = atomic_read(&p->calls);
	KUNIT_EXPECT_GE(test, calls, 1);
	KUNIT_EXPECT_LE(test, calls, 1000);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->wrong_cpu), 0);
	kdapl_cpuset_free(set);
}

static struct kunit_case kdapl_cpu_cases[] = {
	KUNIT_CASE(cpu_test_mask),
	KUNIT_CASE(cpu_test_bind_balances),
	KUNIT_CASE(cpu_test_bind_ties_by_events),
	KUNIT_CASE(cpu_test_dispatch_runs_on_bound_cpu),
	KUNIT_CASE(cpu_test_dispatch_repolls_full_budget),
	KUNIT_CASE(cpu_test_stop_then_kick),
	KUNIT_CASE(cpu_test_kick_from_hardirq),
	KUNIT_CASE(cpu_test_many_kicks_coalesce),
	{}
};

static struct kunit_suite kdapl_cpu_suite = {
	.name = "kdapl_cpu",
	.test_cases = kdapl_cpu_cases,
};

kunit_test_suites(&kdapl_cpu_suite);

MODULE_DESCRIPTION("KUnit tests for kdapl per-CPU completion processing");
MODULE_LICENSE("GPL");
