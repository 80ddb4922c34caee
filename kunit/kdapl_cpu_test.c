// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite kdapl_cpu: per-CPU completion processing (kdapl/cpu.c).
 * Needs at least two online CPUs; the guest runner checks it has them.
 */

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/delay.h>
#include <linux/module.h>

#include "../kdapl/cpu.h"

MODULE_IMPORT_NS(KDAPL_INTERNAL);

#define PROBE_CPUS	8

struct probe {
	struct kdapl_dispatch d;
	atomic_t calls;
	atomic_t wrong_cpu;	/* spread mode: calls off the bound CPU */
	atomic_t not_softirq;
	atomic_t running;	/* calls in progress: must never exceed 1 */
	atomic_t concurrent;	/* calls that found another one running */
	atomic_t on[PROBE_CPUS];	/* calls per CPU */
	unsigned int work_us;	/* busy work per call */
	int more;		/* calls that still report a full budget */
	struct completion done;
};

static int probe_fn(struct kdapl_dispatch *d, int budget)
{
	struct probe *p = container_of(d, struct probe, d);
	unsigned int cpu = smp_processor_id();

	if (atomic_inc_return(&p->running) > 1)
		atomic_inc(&p->concurrent);
	atomic_inc(&p->calls);
	if (d->set->mode == KDAPL_PLACE_SPREAD && cpu != d->slot->cpu)
		atomic_inc(&p->wrong_cpu);
	if (cpu < PROBE_CPUS)
		atomic_inc(&p->on[cpu]);
	if (!in_serving_softirq())
		atomic_inc(&p->not_softirq);
	if (p->work_us)
		udelay(p->work_us);
	kdapl_dispatch_account(d, 1);
	atomic_dec(&p->running);
	if (p->more > 0) {
		p->more--;
		return budget;
	}
	complete(&p->done);
	return 0;
}

static void probe_init(struct probe *p, struct kdapl_cpuset *set,
		       struct kdapl_cpu_slot *slot)
{
	memset(p, 0, sizeof(*p));
	init_completion(&p->done);
	kdapl_dispatch_init(&p->d, set, slot, probe_fn, 8);
}

static struct kdapl_cpuset *two_cpu_set(struct kunit *test,
					enum kdapl_placement mode)
{
	struct kdapl_cpuset *set;

	KUNIT_ASSERT_GE_MSG(test, num_online_cpus(), 2U,
			    "per-CPU tests need two online CPUs");
	set = kdapl_cpuset_alloc(cpu_online_mask, mode);
	KUNIT_ASSERT_NOT_NULL(test, set);
	KUNIT_ASSERT_EQ(test, set->nr, num_online_cpus());
	return set;
}

static void cpu_test_mask(struct kunit *test)
{
	const struct cpumask *m = kdapl_cpu_mask();

	KUNIT_EXPECT_FALSE(test, cpumask_empty(m));
	KUNIT_EXPECT_TRUE(test, cpumask_subset(m, cpu_possible_mask));
	KUNIT_EXPECT_NULL(test, kdapl_cpuset_alloc(cpu_none_mask,
						   KDAPL_PLACE_FOLLOW));
}

static void cpu_test_bind_balances(struct kunit *test)
{
	struct kdapl_cpuset *set = two_cpu_set(test, KDAPL_PLACE_SPREAD);
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
	struct kdapl_cpuset *set = two_cpu_set(test, KDAPL_PLACE_SPREAD);
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

/* Run @fn(@arg) in a kthread bound to @cpu and wait for it. */
struct on_cpu {
	void (*fn)(void *arg);
	void *arg;
	struct completion done;
};

static int on_cpu_thread(void *arg)
{
	struct on_cpu *c = arg;

	c->fn(c->arg);
	complete(&c->done);
	return 0;
}

static void run_on(struct kunit *test, unsigned int cpu,
		   void (*fn)(void *arg), void *arg)
{
	struct on_cpu c = { .fn = fn, .arg = arg };
	struct task_struct *t;

	init_completion(&c.done);
	t = kthread_create(on_cpu_thread, &c, "kdapl_test/%u", cpu);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	kthread_bind(t, cpu);
	wake_up_process(t);
	wait_for_completion(&c.done);
}

static void do_kick(void *arg)
{
	kdapl_dispatch_kick(arg);
}

/* A kick from a thread pinned to @from (spread mode: runs on the slot's CPU) */
static void kick_from(struct kunit *test, struct probe *p, unsigned int from)
{
	run_on(test, from, do_kick, &p->d);
}

static void cpu_test_dispatch_runs_on_bound_cpu(struct kunit *test)
{
	struct kdapl_cpuset *set = two_cpu_set(test, KDAPL_PLACE_SPREAD);
	unsigned int i, from;
	struct probe *p;

	p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);

	for (i = 0; i < set->nr; i++) {
		for_each_online_cpu(from) {
			probe_init(p, set, &set->slot[i]);
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
	struct kdapl_cpuset *set = two_cpu_set(test, KDAPL_PLACE_SPREAD);
	struct probe *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	probe_init(p, set, &set->slot[1]);
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
	struct kdapl_cpuset *set = two_cpu_set(test, KDAPL_PLACE_SPREAD);
	struct probe *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	probe_init(p, set, &set->slot[0]);
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
	struct kdapl_cpuset *set = two_cpu_set(test, KDAPL_PLACE_SPREAD);
	struct irq_kick *k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, k);
	k->p = kunit_kzalloc(test, sizeof(*k->p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, k->p);
	for (i = 0; i < set->nr; i++) {
		probe_init(k->p, set, &set->slot[i]);
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
	struct kdapl_cpuset *set = two_cpu_set(test, KDAPL_PLACE_SPREAD);
	struct probe *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	int i, calls;

	KUNIT_ASSERT_NOT_NULL(test, p);
	probe_init(p, set, &set->slot[1]);
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

struct bind_req {
	struct kdapl_cpuset *set;
	struct kdapl_cpu_slot *slot;
};

static void do_bind(void *arg)
{
	struct bind_req *b = arg;

	b->slot = kdapl_cpu_bind(b->set);
}

/*
 * Make @s read as @busy thousandths loaded for one window (about 20 ms).
 * The window is the slot's CPU's to write; these cases fake it with no
 * processing on that set running, and use it at once, with preemption
 * off on a pinned thread (fake_then()).
 */
static void fake_load(struct kdapl_cpu_slot *s, unsigned int busy)
{
	WRITE_ONCE(s->busy, busy);
	WRITE_ONCE(s->win_busy, 0);
	WRITE_ONCE(s->win_start, jiffies);
}

struct fake {
	struct kdapl_cpu_slot *a, *b;
	unsigned int load_a, load_b;
};

/*
 * On @cpu, with preemption off: fake the loads of @f (if any), then
 * kick @d or, with @d NULL, bind in @b. The calling thread is pinned
 * there meanwhile.
 */
static void fake_then(struct kunit *test, unsigned int cpu,
		      const struct fake *f, struct kdapl_dispatch *d,
		      struct bind_req *b)
{
	cpumask_var_t saved;

	KUNIT_ASSERT_TRUE(test, alloc_cpumask_var(&saved, GFP_KERNEL));
	cpumask_copy(saved, &current->cpus_mask);
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(cpu)),
			0);
	preempt_disable();
	KUNIT_EXPECT_EQ(test, smp_processor_id(), cpu);
	if (f) {
		fake_load(f->a, f->load_a);
		fake_load(f->b, f->load_b);
	}
	if (d)
		kdapl_dispatch_kick(d);
	else
		b->slot = kdapl_cpu_bind(b->set);
	preempt_enable();
	KUNIT_EXPECT_EQ(test, set_cpus_allowed_ptr(current, saved), 0);
	free_cpumask_var(saved);
}

/* Follow mode binds to the creating CPU, unless that CPU is overloaded. */
static void cpu_test_follow_bind_here(struct kunit *test)
{
	struct kdapl_cpuset *set = two_cpu_set(test, KDAPL_PLACE_FOLLOW);
	struct bind_req b = { .set = set };
	struct kdapl_cpu_slot *a = &set->slot[0], *other = &set->slot[1];
	unsigned int i;

	struct fake loaded = { a, other, 900, 0 };

	for (i = 0; i < 3; i++) {
		run_on(test, a->cpu, do_bind, &b);
		KUNIT_EXPECT_PTR_EQ(test, b.slot, a);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&a->queues), 3);
	/* Loaded: the least-used slot instead, as spread mode does. */
	fake_then(test, a->cpu, &loaded, NULL, &b);
	KUNIT_EXPECT_PTR_EQ(test, b.slot, other);
	kdapl_cpu_unbind(other);
	for (i = 0; i < 3; i++)
		kdapl_cpu_unbind(a);
	kdapl_cpuset_free(set);
}

static void kick_wait(struct kunit *test, struct probe *p, unsigned int from)
{
	reinit_completion(&p->done);
	run_on(test, from, do_kick, &p->d);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&p->done, 5 * HZ),
			0UL);
}

/* kick_wait() with the loads of @f faked right before the kick */
static void fake_kick_wait(struct kunit *test, struct probe *p,
			   unsigned int from, const struct fake *f)
{
	reinit_completion(&p->done);
	fake_then(test, from, f, &p->d, NULL);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&p->done, 5 * HZ),
			0UL);
}

/* At low load the processing runs where the kick comes from. */
static void cpu_test_follow_runs_where_kicked(struct kunit *test)
{
	struct kdapl_cpuset *set = two_cpu_set(test, KDAPL_PLACE_FOLLOW);
	struct probe *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	unsigned int a = set->slot[0].cpu, b = set->slot[1].cpu;

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_LT(test, max(a, b), (unsigned int)PROBE_CPUS);
	probe_init(p, set, &set->slot[0]);
	kick_wait(test, p, b);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->on[b]), 1);
	KUNIT_EXPECT_EQ(test, READ_ONCE(p->d.cpu), b);
	/* A queue moves once per window: wait one out, then come back. */
	msleep(jiffies_to_msecs(2 * (HZ / 50 ?: 1)) + 10);
	kick_wait(test, p, a);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->on[a]), 1);
	KUNIT_EXPECT_EQ(test, READ_ONCE(p->d.cpu), a);
	kick_wait(test, p, a);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->on[a]), 2);
	kdapl_dispatch_stop(&p->d);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->calls), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->not_softirq), 0);
	KUNIT_EXPECT_EQ(test, p->d.moves, 2UL);
	kdapl_cpuset_free(set);
}

/*
 * Load moves a queue off its producer's CPU; inside the hysteresis band
 * nothing moves either way.
 */
static void cpu_test_follow_moves_by_load(struct kunit *test)
{
	struct kdapl_cpuset *set = two_cpu_set(test, KDAPL_PLACE_FOLLOW);
	struct kdapl_cpu_slot *sa = &set->slot[0], *sb = &set->slot[1];
	struct probe *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	struct probe *q = kunit_kzalloc(test, sizeof(*q), GFP_KERNEL);
	struct fake heavy = { sa, sb, 900, 100 }, band = { sa, sb, 700, 600 };
	struct fake light = { sa, sb, 100, 600 };

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_ASSERT_LT(test, max(sa->cpu, sb->cpu), (unsigned int)PROBE_CPUS);
	probe_init(p, set, sa);
	probe_init(q, set, sa);

	/* Overloaded, the other CPU light: p moves there. */
	fake_kick_wait(test, p, sa->cpu, &heavy);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->on[sb->cpu]), 1);
	KUNIT_EXPECT_EQ(test, p->d.moves, 1UL);

	/* Both busy, within the margin: p stays away, q stays home. */
	msleep(jiffies_to_msecs(2 * (HZ / 50 ?: 1)) + 10);
	fake_kick_wait(test, p, sa->cpu, &band);
	fake_kick_wait(test, q, sa->cpu, &band);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->on[sb->cpu]), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&q->on[sa->cpu]), 1);
	KUNIT_EXPECT_EQ(test, p->d.moves, 1UL);
	KUNIT_EXPECT_EQ(test, q->d.moves, 0UL);

	/* The producer's CPU went light: p follows it home. */
	fake_kick_wait(test, p, sa->cpu, &light);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->on[sa->cpu]), 1);
	KUNIT_EXPECT_EQ(test, p->d.moves, 2UL);

	kdapl_dispatch_stop(&p->d);
	kdapl_dispatch_stop(&q->d);
	kdapl_cpuset_free(set);
}

#define BUSY_QUEUES	8
#define BUSY_WORK_US	50
#define BUSY_MS		400

struct busy_run {
	struct probe *p[BUSY_QUEUES];
	unsigned long calls;
};

/* The only producer, on one CPU: kicks every queue, again and again. */
static void busy_produce(void *arg)
{
	struct busy_run *r = arg;
	unsigned long end = jiffies + msecs_to_jiffies(BUSY_MS);
	unsigned int i;

	while (time_before(jiffies, end)) {
		for (i = 0; i < BUSY_QUEUES; i++)
			kdapl_dispatch_kick(&r->p[i]->d);
		usleep_range(100, 200);
	}
}

/* Calls processed in BUSY_MS with every queue produced on slot 0's CPU. */
static unsigned long busy_run(struct kunit *test, enum kdapl_placement mode,
			      unsigned long *moves, unsigned int *on_other,
			      unsigned long *max_moves)
{
	struct kdapl_cpuset *set = two_cpu_set(test, mode);
	struct kdapl_cpu_slot *sa = &set->slot[0], *sb = &set->slot[1];
	struct busy_run *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	unsigned long calls = 0;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, r);
	*moves = 0;
	*on_other = 0;
	*max_moves = 0;
	for (i = 0; i < BUSY_QUEUES; i++) {
		r->p[i] = kunit_kzalloc(test, sizeof(*r->p[i]), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, r->p[i]);
		probe_init(r->p[i], set, sa);
		r->p[i]->work_us = BUSY_WORK_US;
	}
	run_on(test, sa->cpu, busy_produce, r);
	for (i = 0; i < BUSY_QUEUES; i++) {
		kdapl_dispatch_stop(&r->p[i]->d);
		calls += atomic_read(&r->p[i]->calls);
		*moves += r->p[i]->d.moves;
		*max_moves = max(*max_moves, r->p[i]->d.moves);
		*on_other += atomic_read(&r->p[i]->on[sb->cpu]);
		KUNIT_EXPECT_EQ(test, atomic_read(&r->p[i]->concurrent), 0);
		KUNIT_EXPECT_EQ(test, atomic_read(&r->p[i]->not_softirq), 0);
	}
	kdapl_cpuset_free(set);
	return calls;
}

/*
 * Eight busy queues, all produced on one CPU: follow mode spreads their
 * processing over both CPUs by load, without moving them back and forth.
 * Spread mode, with all of them bound to that CPU here, is the one-CPU
 * figure. The throughput ratio is printed, not judged: the guest's vCPUs
 * share the host with everything else.
 */
static void cpu_test_follow_spreads_real_load(struct kunit *test)
{
	unsigned long one, two, moves, spread_moves, most, spread_most;
	unsigned int other, spread_other;

	KUNIT_ASSERT_LT(test, max(cpumask_first(cpu_online_mask),
				  cpumask_next(cpumask_first(cpu_online_mask),
					       cpu_online_mask)),
			(unsigned int)PROBE_CPUS);
	one = busy_run(test, KDAPL_PLACE_SPREAD, &spread_moves, &spread_other,
		       &spread_most);
	two = busy_run(test, KDAPL_PLACE_FOLLOW, &moves, &other, &most);
	kunit_info(test, "calls in %u ms: one CPU %lu, follow %lu (%lu on the other CPU, %lu moves), ratio %lu.%02lu\n",
		   BUSY_MS, one, two, (unsigned long)other, moves,
		   two / max(one, 1UL), (two % max(one, 1UL)) * 100 / max(one, 1UL));
	KUNIT_EXPECT_EQ(test, spread_moves, 0UL);
	KUNIT_EXPECT_EQ(test, spread_other, 0U);
	/* A tenth of the work at least went to the other CPU... */
	KUNIT_EXPECT_GE(test, (unsigned long)other * 10, two);
	/* ...by a few moves per queue, not by oscillation. */
	KUNIT_EXPECT_LE(test, most, 4UL);
}

/*
 * kick_wait() that asserts nothing, for a case that must undo what it did
 * (an aborted case would leave a CPU offline). Returns whether the
 * processing ran.
 */
static bool kick_wait_try(struct probe *p, unsigned int from)
{
	struct on_cpu c = { .fn = do_kick, .arg = &p->d };
	struct task_struct *t;

	reinit_completion(&p->done);
	init_completion(&c.done);
	t = kthread_create(on_cpu_thread, &c, "kdapl_test/%u", from);
	if (IS_ERR(t))
		return false;
	kthread_bind(t, from);
	wake_up_process(t);
	wait_for_completion(&c.done);
	return wait_for_completion_timeout(&p->done, 5 * HZ);
}

/*
 * A queue whose CPU went offline is still processed: kicked from a live
 * CPU, it runs there (spread mode: until its CPU is back; follow mode:
 * it moves there for good), in softirq, once per kick. Between
 * remove_cpu() and add_cpu() nothing asserts: the CPU comes back and the
 * dispatch stops whatever happened.
 */
static void offline_case(struct kunit *test, enum kdapl_placement mode)
{
	struct kdapl_cpuset *set = two_cpu_set(test, mode);
	struct probe *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	unsigned int a = set->slot[0].cpu, b = set->slot[1].cpu;
	bool ran_off, ran_back = false;
	int err, back;

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_LT(test, max(a, b), (unsigned int)PROBE_CPUS);
	probe_init(p, set, &set->slot[1]);
	err = remove_cpu(b);
	ran_off = !err && kick_wait_try(p, a);
	back = err ? 0 : add_cpu(b);
	if (!err && !back)
		ran_back = kick_wait_try(p, a);
	kdapl_dispatch_stop(&p->d);
	kdapl_cpuset_free(set);

	KUNIT_ASSERT_EQ_MSG(test, err, 0, "CPU %u could not go offline", b);
	KUNIT_EXPECT_EQ_MSG(test, back, 0, "CPU %u did not come back", b);
	KUNIT_EXPECT_TRUE_MSG(test, ran_off, "no processing, CPU %u offline", b);
	KUNIT_EXPECT_TRUE_MSG(test, ran_back, "no processing, CPU %u back", b);
	if (mode == KDAPL_PLACE_SPREAD) {
		/* offline: where kicked; back: its own CPU again */
		KUNIT_EXPECT_EQ(test, atomic_read(&p->on[a]), 1);
		KUNIT_EXPECT_EQ(test, atomic_read(&p->on[b]), 1);
		KUNIT_EXPECT_EQ(test, atomic_read(&p->wrong_cpu), 1);
	} else {
		/* it followed the kicks to @a and stays while they come */
		KUNIT_EXPECT_EQ(test, atomic_read(&p->on[a]), 2);
		KUNIT_EXPECT_EQ(test, atomic_read(&p->on[b]), 0);
		KUNIT_EXPECT_EQ(test, READ_ONCE(p->d.cpu), a);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&p->calls), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->not_softirq), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->concurrent), 0);
}

static void cpu_test_spread_cpu_offline(struct kunit *test)
{
	offline_case(test, KDAPL_PLACE_SPREAD);
}

static void cpu_test_follow_cpu_offline(struct kunit *test)
{
	offline_case(test, KDAPL_PLACE_FOLLOW);
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
	KUNIT_CASE(cpu_test_follow_bind_here),
	KUNIT_CASE(cpu_test_follow_runs_where_kicked),
	KUNIT_CASE(cpu_test_follow_moves_by_load),
	KUNIT_CASE(cpu_test_follow_spreads_real_load),
	KUNIT_CASE(cpu_test_spread_cpu_offline),
	KUNIT_CASE(cpu_test_follow_cpu_offline),
	{}
};

static struct kunit_suite kdapl_cpu_suite = {
	.name = "kdapl_cpu",
	.test_cases = kdapl_cpu_cases,
};

kunit_test_suites(&kdapl_cpu_suite);

MODULE_DESCRIPTION("KUnit tests for kdapl per-CPU completion processing");
MODULE_LICENSE("GPL");
