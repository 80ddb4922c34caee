// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite kdapl_evd: event dispatchers without a device (kdapl/evd.c):
 * queue order, overflow, upcall policies and their context, teardown,
 * resize, and the upcall-safe calls made from inside an upcall.
 */

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/module.h>

#include "../kdapl/evd.h"

MODULE_IMPORT_NS(KDAPL_INTERNAL);

#define NEV 10

struct rec {
	struct kunit *test;
	DAT_EVD_HANDLE self;
	DAT_EVD_HANDLE other;
	int n;
	int stop_at;
	unsigned long ptr[NEV * 2];
	DAT_BOOLEAN more[NEV * 2];
	unsigned int cpu[NEV * 2];
	bool softirq[NEV * 2];
	DAT_RETURN in_upcall[4];
	bool slow;
	atomic_t running;
	atomic_t finished;
	struct completion done;
};

static void rec_upcall(DAT_PVOID data, const DAT_EVENT *ev, DAT_BOOLEAN more)
{
	struct rec *r = data;
	int i = r->n;

	if (i < ARRAY_SIZE(r->ptr)) {
		r->ptr[i] = (unsigned long)ev->event_data.software_event_data.pointer;
		r->more[i] = more;
		r->cpu[i] = smp_processor_id();
		r->softirq[i] = in_serving_softirq();
	}
	r->n++;
	if (r->slow) {
		atomic_inc(&r->running);
		mdelay(100);
		atomic_inc(&r->finished);
	}
	if (r->n == r->stop_at)
		complete(&r->done);
}

static struct kdapl_cpuset *test_cpus(struct kunit *test)
{
	struct kdapl_cpuset *set = kdapl_cpuset_alloc(cpu_online_mask,
							 KDAPL_PLACE_SPREAD);

	KUNIT_ASSERT_NOT_NULL(test, set);
	return set;
}

static struct kdapl_evd *mk_evd(struct kunit *test, struct kdapl_cpuset *set,
				int qlen, DAT_UPCALL_POLICY pol, struct rec *r,
				DAT_EVD_FLAGS flags)
{
	DAT_UPCALL_OBJECT up = { .instance_data = r, .upcall_func = rec_upcall };
	struct kdapl_evd *evd = NULL;

	KUNIT_ASSERT_EQ(test, kdapl_evd_create(NULL, set, qlen, pol,
					       r ? &up : NULL, flags, &evd),
			DAT_SUCCESS);
	KUNIT_ASSERT_NOT_NULL(test, evd);
	if (r)
		r->self = kdapl_obj_handle(&evd->base);
	return evd;
}

static DAT_RETURN post(DAT_EVD_HANDLE h, unsigned long v)
{
	DAT_EVENT ev = { .event_number = DAT_SOFTWARE_EVENT };

	ev.event_data.software_event_data.pointer = (void *)v;
	return dat_evd_post_se(h, &ev);
}

static unsigned long ev_val(const DAT_EVENT *ev)
{
	return (unsigned long)ev->event_data.software_event_data.pointer;
}

static u32 create_type(struct kdapl_cpuset *set, int qlen,
		       DAT_UPCALL_POLICY pol, const DAT_UPCALL_OBJECT *up,
		       DAT_EVD_FLAGS flags)
{
	struct kdapl_evd *evd = NULL;
	DAT_RETURN ret = kdapl_evd_create(NULL, set, qlen, pol, up, flags,
					  &evd);

	if (ret == DAT_SUCCESS)
		kdapl_evd_destroy(evd);
	return DAT_GET_TYPE(ret);
}

static DAT_RETURN set_policy(DAT_EVD_HANDLE h, DAT_UPCALL_POLICY pol,
			     DAT_UPCALL_FLAG invoc)
{
	return dat_evd_modify_upcall(h, pol, DAT_UPCALL_SAME, invoc);
}

static struct rec *mk_rec(struct kunit *test, int stop_at)
{
	struct rec *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->test = test;
	r->stop_at = stop_at;
	init_completion(&r->done);
	return r;
}

static void evd_test_create_params(struct kunit *test)
{
	struct kdapl_cpuset *set = test_cpus(test);
	DAT_UPCALL_OBJECT none = { 0 };
	struct kdapl_evd *evd;

	const DAT_EVD_FLAGS sw = DAT_EVD_SOFTWARE_FLAG;

	KUNIT_EXPECT_EQ(test, create_type(set, 0, DAT_UPCALL_DISABLE, NULL, sw),
			DAT_INVALID_PARAMETER);
	KUNIT_EXPECT_EQ(test, create_type(set, 8, DAT_UPCALL_TEARDOWN, NULL, sw),
			DAT_INVALID_PARAMETER);
	KUNIT_EXPECT_EQ(test, create_type(set, 8, DAT_UPCALL_SINGLE_INSTANCE,
					  &none, sw), DAT_INVALID_PARAMETER);
	KUNIT_EXPECT_EQ(test, create_type(set, 8, DAT_UPCALL_DISABLE, NULL, 0),
			DAT_INVALID_PARAMETER);
	KUNIT_EXPECT_EQ(test, create_type(set, 8, DAT_UPCALL_DISABLE, NULL,
					  0x8000), DAT_INVALID_PARAMETER);

	evd = mk_evd(test, set, 8, DAT_UPCALL_DISABLE, NULL,
		     DAT_EVD_SOFTWARE_FLAG);
	KUNIT_EXPECT_PTR_EQ(test, kdapl_evd_get(kdapl_obj_handle(&evd->base)),
			    evd);
	kdapl_obj_put(&evd->base);
	KUNIT_EXPECT_EQ(test, atomic_read(&evd->slot->queues), 1);
	kdapl_evd_destroy(evd);
	KUNIT_EXPECT_EQ(test, atomic_read(&set->slot[0].queues) +
			atomic_read(&set->slot[set->nr - 1].queues), 0);
	kdapl_cpuset_free(set);
}

static void evd_test_fifo_and_empty(struct kunit *test)
{
	struct kdapl_cpuset *set = test_cpus(test);
	struct kdapl_evd *evd = mk_evd(test, set, 16, DAT_UPCALL_DISABLE,
				       NULL, DAT_EVD_SOFTWARE_FLAG);
	DAT_EVD_HANDLE h = kdapl_obj_handle(&evd->base);
	DAT_EVENT ev;
	unsigned long i;

	for (i = 1; i <= NEV; i++)
		KUNIT_ASSERT_EQ(test, post(h, i), DAT_SUCCESS);
	for (i = 1; i <= NEV; i++) {
		KUNIT_ASSERT_EQ(test, dat_evd_dequeue(h, &ev), DAT_SUCCESS);
		KUNIT_EXPECT_EQ(test, ev.event_number, DAT_SOFTWARE_EVENT);
		KUNIT_EXPECT_PTR_EQ(test, ev.evd_handle, h);
		KUNIT_EXPECT_EQ(test, ev_val(&ev), (unsigned long)i);
	}
	KUNIT_EXPECT_EQ(test, DAT_GET_TYPE(dat_evd_dequeue(h, &ev)),
			DAT_QUEUE_EMPTY);
	KUNIT_EXPECT_EQ(test, DAT_GET_TYPE(dat_evd_dequeue(h, NULL)),
			DAT_INVALID_PARAMETER);
	kdapl_evd_destroy(evd);
	kdapl_cpuset_free(set);
}

static void evd_test_post_se_checks(struct kunit *test)
{
	struct kdapl_cpuset *set = test_cpus(test);
	struct kdapl_evd *evd = mk_evd(test, set, 4, DAT_UPCALL_DISABLE, NULL,
				       DAT_EVD_DTO_FLAG);
	DAT_EVENT ev = { .event_number = DAT_DTO_COMPLETION_EVENT };
	DAT_EVD_HANDLE h = kdapl_obj_handle(&evd->base);

	/* No software flag: refused. Wrong event number: refused. */
	KUNIT_EXPECT_EQ(test, DAT_GET_TYPE(post(h, 1)), DAT_INVALID_PARAMETER);
	KUNIT_EXPECT_EQ(test, DAT_GET_TYPE(dat_evd_post_se(h, &ev)),
			DAT_INVALID_PARAMETER);
	KUNIT_EXPECT_EQ(test, evd->count, 0U);
	kdapl_evd_destroy(evd);
	kdapl_cpuset_free(set);
}

static void evd_test_overflow(struct kunit *test)
{
	struct kdapl_cpuset *set = test_cpus(test);
	struct kdapl_evd *evd = mk_evd(test, set, 4, DAT_UPCALL_DISABLE, NULL,
				       DAT_EVD_SOFTWARE_FLAG);
	DAT_EVD_HANDLE h = kdapl_obj_handle(&evd->base);
	DAT_EVENT ev;
	unsigned long i;

	for (i = 1; i <= 4; i++)
		KUNIT_ASSERT_EQ(test, post(h, i), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, DAT_GET_TYPE(post(h, 5)), DAT_QUEUE_FULL);
	KUNIT_EXPECT_EQ(test, DAT_GET_TYPE(post(h, 6)), DAT_QUEUE_FULL);
	KUNIT_EXPECT_EQ(test, evd->overflows, 2ULL);
	KUNIT_EXPECT_TRUE(test, evd->overflowed);
	/* The queued events are intact and in order. */
	for (i = 1; i <= 4; i++) {
		KUNIT_ASSERT_EQ(test, dat_evd_dequeue(h, &ev), DAT_SUCCESS);
		KUNIT_EXPECT_EQ(test, ev_val(&ev), (unsigned long)i);
	}
	KUNIT_EXPECT_FALSE(test, evd->overflowed);
	kdapl_evd_destroy(evd);
	kdapl_cpuset_free(set);
}

static void evd_test_upcall_on_cpu_in_order(struct kunit *test)
{
	struct kdapl_cpuset *set = test_cpus(test);
	struct rec *r = mk_rec(test, NEV);
	struct kdapl_evd *evd = mk_evd(test, set, 16,
				       DAT_UPCALL_SINGLE_INSTANCE, r,
				       DAT_EVD_SOFTWARE_FLAG);
	DAT_EVENT ev;
	int i;

	for (i = 1; i <= NEV; i++)
		KUNIT_ASSERT_EQ(test, post(r->self, i), DAT_SUCCESS);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&r->done, 5 * HZ), 0UL);
	for (i = 0; i < NEV; i++) {
		KUNIT_EXPECT_EQ(test, r->ptr[i], (unsigned long)i + 1);
		KUNIT_EXPECT_EQ(test, r->cpu[i], evd->slot->cpu);
		KUNIT_EXPECT_TRUE(test, r->softirq[i]);
	}
	/* Delivered events left the queue. */
	KUNIT_EXPECT_EQ(test, DAT_GET_TYPE(dat_evd_dequeue(r->self, &ev)),
			DAT_QUEUE_EMPTY);
	KUNIT_EXPECT_EQ(test, evd->upcalls, (u64)NEV);
	kdapl_evd_destroy(evd);
	kdapl_cpuset_free(set);
}

static void evd_test_invoc_any_more_events(struct kunit *test)
{
	struct kdapl_cpuset *set = test_cpus(test);
	struct rec *r = mk_rec(test, NEV);
	struct kdapl_evd *evd = mk_evd(test, set, 16, DAT_UPCALL_DISABLE, r,
				       DAT_EVD_SOFTWARE_FLAG);
	int i;

	for (i = 1; i <= NEV; i++)
		KUNIT_ASSERT_EQ(test, post(r->self, i), DAT_SUCCESS);
	msleep(20);
	KUNIT_EXPECT_EQ(test, r->n, 0);
	KUNIT_ASSERT_EQ(test, set_policy(r->self, DAT_UPCALL_SINGLE_INSTANCE,
					 DAT_UPCALL_INVOC_ANY), DAT_SUCCESS);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&r->done, 5 * HZ), 0UL);
	for (i = 0; i < NEV - 1; i++)
		KUNIT_EXPECT_EQ(test, r->more[i], DAT_TRUE);
	KUNIT_EXPECT_EQ(test, r->more[NEV - 1], DAT_FALSE);
	kdapl_evd_destroy(evd);
	kdapl_cpuset_free(set);
}

static void evd_test_invoc_new_waits(struct kunit *test)
{
	struct kdapl_cpuset *set = test_cpus(test);
	struct rec *r = mk_rec(test, 3);
	struct kdapl_evd *evd = mk_evd(test, set, 16, DAT_UPCALL_DISABLE, r,
				       DAT_EVD_SOFTWARE_FLAG);

	KUNIT_ASSERT_EQ(test, post(r->self, 1), DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, post(r->self, 2), DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, set_policy(r->self, DAT_UPCALL_SINGLE_INSTANCE,
					 DAT_UPCALL_INVOC_NEW), DAT_SUCCESS);
	msleep(50);
	KUNIT_EXPECT_EQ(test, r->n, 0);
	/* The next new event delivers everything queued, oldest first. */
	KUNIT_ASSERT_EQ(test, post(r->self, 3), DAT_SUCCESS);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&r->done, 5 * HZ), 0UL);
	KUNIT_EXPECT_EQ(test, r->ptr[0], 1UL);
	KUNIT_EXPECT_EQ(test, r->ptr[2], 3UL);
	kdapl_evd_destroy(evd);
	kdapl_cpuset_free(set);
}

static void evd_test_notify_keeps_event(struct kunit *test)
{
	struct kdapl_cpuset *set = test_cpus(test);
	struct rec *r = mk_rec(test, 1);
	struct kdapl_evd *evd = mk_evd(test, set, 16, DAT_UPCALL_DISABLE, r,
				       DAT_EVD_SOFTWARE_FLAG);
	DAT_EVENT ev;

	/*
	 * Queue both events before notifications start, so the one
	 * notification sees the second behind the first (a dispatch between
	 * two live posts would legitimately report no more events).
	 */
	KUNIT_ASSERT_EQ(test, post(r->self, 7), DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, post(r->self, 8), DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, set_policy(r->self, DAT_UPCALL_NORIFY,
					 DAT_UPCALL_INVOC_ANY), DAT_SUCCESS);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&r->done, 5 * HZ), 0UL);
	msleep(20);
	/* One notification until the consumer dequeues; events stay. */
	KUNIT_EXPECT_EQ(test, r->n, 1);
	KUNIT_EXPECT_EQ(test, r->ptr[0], 7UL);
	KUNIT_EXPECT_EQ(test, r->more[0], DAT_TRUE);
	reinit_completion(&r->done);
	r->stop_at = 2;
	KUNIT_ASSERT_EQ(test, dat_evd_dequeue(r->self, &ev), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, ev_val(&ev), 7UL);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&r->done, 5 * HZ), 0UL);
	KUNIT_EXPECT_EQ(test, r->ptr[1], 8UL);
	kdapl_evd_destroy(evd);
	kdapl_cpuset_free(set);
}

static void evd_test_teardown_waits(struct kunit *test)
{
	struct kdapl_cpuset *set = test_cpus(test);
	struct rec *r = mk_rec(test, 1);
	struct kdapl_evd *evd = mk_evd(test, set, 16, DAT_UPCALL_MANY, r,
				       DAT_EVD_SOFTWARE_FLAG);
	cpumask_var_t saved, others;
	int i;

	/*
	 * This thread watches the first upcall run: not from the EVD's CPU,
	 * where both upcalls (200 ms of softirq) would run before it looks.
	 */
	KUNIT_ASSERT_TRUE(test, alloc_cpumask_var(&saved, GFP_KERNEL));
	KUNIT_ASSERT_TRUE(test, alloc_cpumask_var(&others, GFP_KERNEL));
	cpumask_copy(saved, &current->cpus_mask);
	cpumask_andnot(others, cpu_online_mask, cpumask_of(evd->slot->cpu));
	KUNIT_ASSERT_FALSE(test, cpumask_empty(others));
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, others), 0);
	free_cpumask_var(others);

	r->slow = true;
	KUNIT_ASSERT_EQ(test, post(r->self, 1), DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, post(r->self, 2), DAT_SUCCESS);
	for (i = 0; i < 1000 && !atomic_read(&r->running); i++)
		usleep_range(100, 200);
	KUNIT_ASSERT_EQ(test, atomic_read(&r->running), 1);
	KUNIT_EXPECT_EQ(test, set_policy(r->self, DAT_UPCALL_TEARDOWN,
					 DAT_UPCALL_INVOC_NEW), DAT_SUCCESS);
	/* The upcall in progress returned before TEARDOWN did ... */
	KUNIT_EXPECT_EQ(test, atomic_read(&r->finished), 1);
	/* ... and no other starts afterwards. */
	KUNIT_ASSERT_EQ(test, post(r->self, 3), DAT_SUCCESS);
	msleep(250);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->running), 1);
	kdapl_evd_destroy(evd);
	kdapl_cpuset_free(set);
	KUNIT_EXPECT_EQ(test, set_cpus_allowed_ptr(current, saved), 0);
	free_cpumask_var(saved);
}

/* Upcall-safe calls made from inside an upcall on the debug kernel. */
static void nested_upcall(DAT_PVOID data, const DAT_EVENT *ev,
			  DAT_BOOLEAN more)
{
	struct rec *r = data;
	DAT_EVENT out;

	r->in_upcall[0] = dat_evd_dequeue(r->self, &out);
	r->in_upcall[1] = post(r->other, 42);
	r->in_upcall[2] = set_policy(r->self, DAT_UPCALL_TEARDOWN,
				     DAT_UPCALL_INVOC_NEW);
	r->in_upcall[3] = dat_evd_free(r->self);
	complete(&r->done);
}

static void evd_test_calls_from_upcall(struct kunit *test)
{
	struct kdapl_cpuset *set = test_cpus(test);
	DAT_UPCALL_OBJECT up = { .upcall_func = nested_upcall };
	struct kdapl_evd *evd = NULL, *other;
	struct rec *r = mk_rec(test, 1);
	DAT_EVENT ev;

	up.instance_data = r;
	/* Both events are queued before the upcall may run. */
	KUNIT_ASSERT_EQ(test, kdapl_evd_create(NULL, set, 8,
					       DAT_UPCALL_DISABLE, &up,
					       DAT_EVD_SOFTWARE_FLAG, &evd),
			DAT_SUCCESS);
	other = mk_evd(test, set, 8, DAT_UPCALL_DISABLE, NULL,
		       DAT_EVD_SOFTWARE_FLAG);
	r->self = kdapl_obj_handle(&evd->base);
	r->other = kdapl_obj_handle(&other->base);

	KUNIT_ASSERT_EQ(test, post(r->self, 1), DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, post(r->self, 2), DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, set_policy(r->self, DAT_UPCALL_SINGLE_INSTANCE,
					 DAT_UPCALL_INVOC_ANY), DAT_SUCCESS);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&r->done, 5 * HZ), 0UL);
	/* The second event was dequeued by the upcall itself. */
	KUNIT_EXPECT_EQ(test, r->in_upcall[0], DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, r->in_upcall[1], DAT_SUCCESS);
	/* Sleeping calls refuse to run in an upcall rather than deadlock. */
	KUNIT_EXPECT_EQ(test, DAT_GET_TYPE(r->in_upcall[2]), DAT_INVALID_STATE);
	KUNIT_EXPECT_EQ(test, DAT_GET_TYPE(r->in_upcall[3]), DAT_INVALID_STATE);
	KUNIT_EXPECT_EQ(test, dat_evd_dequeue(r->other, &ev), DAT_SUCCESS);
	kdapl_evd_destroy(evd);
	kdapl_evd_destroy(other);
	kdapl_cpuset_free(set);
}

static void evd_test_resize(struct kunit *test)
{
	struct kdapl_cpuset *set = test_cpus(test);
	struct kdapl_evd *evd = mk_evd(test, set, 4, DAT_UPCALL_DISABLE, NULL,
				       DAT_EVD_SOFTWARE_FLAG);
	DAT_EVD_HANDLE h = kdapl_obj_handle(&evd->base);
	DAT_EVD_PARAM p;
	DAT_EVENT ev;
	unsigned long i;

	/* Wrap the ring first so the copy has to unwrap it. */
	KUNIT_ASSERT_EQ(test, post(h, 100), DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, dat_evd_dequeue(h, &ev), DAT_SUCCESS);
	for (i = 1; i <= 4; i++)
		KUNIT_ASSERT_EQ(test, post(h, i), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, DAT_GET_TYPE(dat_evd_resize(h, 3)),
			DAT_INVALID_STATE);
	KUNIT_EXPECT_EQ(test, DAT_GET_TYPE(dat_evd_resize(h, 0)),
			DAT_INVALID_PARAMETER);
	KUNIT_ASSERT_EQ(test, dat_evd_resize(h, 8), DAT_SUCCESS);
	for (i = 5; i <= 8; i++)
		KUNIT_ASSERT_EQ(test, post(h, i), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, DAT_GET_TYPE(post(h, 9)), DAT_QUEUE_FULL);
	for (i = 1; i <= 8; i++) {
		KUNIT_ASSERT_EQ(test, dat_evd_dequeue(h, &ev), DAT_SUCCESS);
		KUNIT_EXPECT_EQ(test, ev_val(&ev), (unsigned long)i);
	}
	memset(&p, 0xa5, sizeof(p));
	KUNIT_ASSERT_EQ(test, dat_evd_query(h, DAT_EVD_FIELD_EVD_QLEN |
					    DAT_EVD_FIELD_EVD_FLAGS, &p),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, p.evd_qlen, 8);
	KUNIT_EXPECT_EQ(test, p.evd_flags, DAT_EVD_SOFTWARE_FLAG);
	/* Fields not asked for are left alone. */
	KUNIT_EXPECT_EQ(test, (u32)p.upcall_policy, 0xa5a5a5a5U);
	kdapl_evd_destroy(evd);
	kdapl_cpuset_free(set);
}

static void evd_test_stale_handle(struct kunit *test)
{
	struct kdapl_cpuset *set = test_cpus(test);
	struct kdapl_evd *evd = mk_evd(test, set, 4, DAT_UPCALL_DISABLE, NULL,
				       DAT_EVD_SOFTWARE_FLAG);
	DAT_EVD_HANDLE h = kdapl_obj_handle(&evd->base);
	DAT_EVENT ev;

	KUNIT_ASSERT_EQ(test, dat_evd_free(h), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, DAT_GET_TYPE(dat_evd_free(h)), DAT_INVALID_HANDLE);
	KUNIT_EXPECT_EQ(test, DAT_GET_TYPE(dat_evd_dequeue(h, &ev)),
			DAT_INVALID_HANDLE);
	KUNIT_EXPECT_EQ(test, DAT_GET_TYPE(post(h, 1)), DAT_INVALID_HANDLE);
	KUNIT_EXPECT_EQ(test, DAT_GET_TYPE(dat_evd_dequeue(NULL, &ev)),
			DAT_INVALID_HANDLE);
	kdapl_cpuset_free(set);
}

/*
 * kdapl_evd_pending(), kdapltest's lost-wakeup check: an event queued
 * while upcalls were off, then left behind by DAT_UPCALL_INVOC_NEW, has
 * no upcall coming (the shape of a lost wakeup) and stays pending; the
 * next post kicks and notifies.
 */
static void evd_test_pending_without_upcall(struct kunit *test)
{
	struct kdapl_cpuset *set = test_cpus(test);
	struct rec *r = mk_rec(test, 1);
	struct kdapl_evd *evd = mk_evd(test, set, 16, DAT_UPCALL_DISABLE, r,
				       DAT_EVD_SOFTWARE_FLAG);
	char state[160];

	KUNIT_EXPECT_EQ(test, kdapl_evd_pending(r->self, state,
						sizeof(state)), 0);
	KUNIT_ASSERT_EQ(test, post(r->self, 8), DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, set_policy(r->self, DAT_UPCALL_NORIFY,
					 DAT_UPCALL_INVOC_NEW), DAT_SUCCESS);
	msleep(50);
	KUNIT_EXPECT_EQ(test, kdapl_evd_pending(r->self, state,
						sizeof(state)), 1);
	KUNIT_EXPECT_EQ(test, r->n, 0);
	KUNIT_EXPECT_NOT_NULL(test, strstr(state, "count 1 "));
	KUNIT_EXPECT_NOT_NULL(test, strstr(state, "notified 0"));
	/* the next post kicks: both are there, one notification */
	KUNIT_ASSERT_EQ(test, post(r->self, 9), DAT_SUCCESS);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&r->done, 5 * HZ), 0UL);
	KUNIT_EXPECT_EQ(test, r->ptr[0], 8UL);
	KUNIT_EXPECT_EQ(test, kdapl_evd_pending(r->self, state,
						sizeof(state)), 2);
	KUNIT_EXPECT_NOT_NULL(test, strstr(state, "notified 1"));
	kdapl_evd_destroy(evd);
	KUNIT_EXPECT_EQ(test, kdapl_evd_pending(r->self, state,
						sizeof(state)), -EINVAL);
	kdapl_cpuset_free(set);
}

static struct kunit_case kdapl_evd_cases[] = {
	KUNIT_CASE(evd_test_create_params),
	KUNIT_CASE(evd_test_fifo_and_empty),
	KUNIT_CASE(evd_test_post_se_checks),
	KUNIT_CASE(evd_test_overflow),
	KUNIT_CASE(evd_test_upcall_on_cpu_in_order),
	KUNIT_CASE(evd_test_invoc_any_more_events),
	KUNIT_CASE(evd_test_invoc_new_waits),
	KUNIT_CASE(evd_test_notify_keeps_event),
	KUNIT_CASE(evd_test_teardown_waits),
	KUNIT_CASE(evd_test_calls_from_upcall),
	KUNIT_CASE(evd_test_resize),
	KUNIT_CASE(evd_test_stale_handle),
	KUNIT_CASE(evd_test_pending_without_upcall),
	{}
};

static struct kunit_suite kdapl_evd_suite = {
	.name = "kdapl_evd",
	.test_cases = kdapl_evd_cases,
};

kunit_test_suites(&kdapl_evd_suite);

MODULE_DESCRIPTION("KUnit tests for kdapl event dispatchers");
MODULE_LICENSE("GPL");
