// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the kdapl typed handle table (kdapl/handle.c).
 *
 * Every case builds its own table and tears it down at the end. Test
 * objects are heap allocated and freed by their release callback, which
 * also counts how often it ran, so a release that runs early, late or
 * twice shows up in the counts (and, on the debug kernel, as a KASAN
 * report).
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/irqflags.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/timer.h>

#include "../kdapl/handle.h"

#define KHT_MAGIC	0x6b646170UL
#define KHT_DEAD	0x64656164UL

struct kht_obj {
	struct kdapl_hobj hobj;
	unsigned long magic;
	atomic_t *released;
};

static struct kht_obj *kht_of(struct kdapl_hobj *hobj)
{
	return container_of(hobj, struct kht_obj, hobj);
}

static void kht_release(struct kdapl_hobj *hobj)
{
	struct kht_obj *o = kht_of(hobj);

	o->magic = KHT_DEAD;
	atomic_inc(o->released);
	kfree_rcu(o, hobj.rcu);	/* lookups run under RCU */
}

static struct kht_obj *kht_alloc(atomic_t *released, gfp_t gfp)
{
	struct kht_obj *o = kzalloc(sizeof(*o), gfp);

	if (o) {
		o->magic = KHT_MAGIC;
		o->released = released;
	}
	return o;
}

/* Allocate and add an object; the test owns the creator's reference. */
static struct kht_obj *kht_add(struct kunit *test, struct kdapl_htable *tbl,
			       enum kdapl_htype type, atomic_t *released)
{
	struct kht_obj *o = kht_alloc(released, GFP_KERNEL);
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, o);
	ret = kdapl_hobj_add(tbl, &o->hobj, type, kht_release, GFP_KERNEL);
	if (ret)
		kfree(o);
	KUNIT_ASSERT_EQ(test, ret, 0);
	return o;
}

/* Remove an object and drop the creator's reference. */
static void kht_free(struct kunit *test, struct kdapl_htable *tbl,
		     struct kht_obj *o)
{
	KUNIT_EXPECT_TRUE(test, kdapl_hobj_remove(tbl, &o->hobj));
	kdapl_hobj_put(&o->hobj);
}

static void *kht_hval(unsigned long val)
{
	return (void *)val;
}

static unsigned long kht_hnum(void *handle)
{
	return (unsigned long)handle;
}

/* Add, look up twice, put, remove: references and counts at each step. */
static void kht_test_add_get(struct kunit *test)
{
	atomic_t released = ATOMIC_INIT(0);
	struct kdapl_hobj *r1, *r2;
	struct kdapl_htable tbl;
	struct kht_obj *o;
	void *handle;

	kdapl_htable_init(&tbl);
	KUNIT_EXPECT_EQ(test, kdapl_htable_count(&tbl), 0U);

	o = kht_add(test, &tbl, KDAPL_HT_IA, &released);
	KUNIT_EXPECT_EQ(test, kdapl_htable_count(&tbl), 1U);
	KUNIT_EXPECT_EQ(test, kref_read(&o->hobj.ref), 1U);
	KUNIT_EXPECT_EQ(test, o->hobj.type, KDAPL_HT_IA);
	KUNIT_EXPECT_NE(test, o->hobj.index, 0U);
	KUNIT_EXPECT_TRUE(test, o->hobj.release == kht_release);

	handle = kdapl_hobj_handle(&o->hobj);
	KUNIT_EXPECT_NOT_NULL(test, handle);
	KUNIT_EXPECT_PTR_NE(test, handle, (void *)o);
	KUNIT_EXPECT_PTR_NE(test, handle, (void *)&o->hobj);
	KUNIT_EXPECT_PTR_EQ(test, kdapl_hobj_handle(&o->hobj), handle);
	KUNIT_EXPECT_EQ(test, kht_hnum(handle) & KDAPL_HANDLE_TYPE_MASK,
			(unsigned long)KDAPL_HT_IA);

	r1 = kdapl_hobj_get(&tbl, handle, KDAPL_HT_IA);
	KUNIT_EXPECT_PTR_EQ(test, r1, &o->hobj);
	KUNIT_EXPECT_EQ(test, kref_read(&o->hobj.ref), 2U);

	r2 = kdapl_hobj_get(&tbl, handle, KDAPL_HT_IA);
	KUNIT_EXPECT_PTR_EQ(test, r2, &o->hobj);
	KUNIT_EXPECT_EQ(test, kref_read(&o->hobj.ref), 3U);

	kdapl_hobj_put(r2);
	KUNIT_EXPECT_EQ(test, kref_read(&o->hobj.ref), 2U);
	kdapl_hobj_put(r1);
	KUNIT_EXPECT_EQ(test, kref_read(&o->hobj.ref), 1U);
	KUNIT_EXPECT_EQ(test, atomic_read(&released), 0);

	/* put(NULL) is a no-op. */
	kdapl_hobj_put(NULL);

	kht_free(test, &tbl, o);
	KUNIT_EXPECT_EQ(test, atomic_read(&released), 1);
	KUNIT_EXPECT_EQ(test, kdapl_htable_count(&tbl), 0U);

	kdapl_htable_destroy(&tbl);
}

/* A handle only resolves for its own type, whatever type bits it carries. */
static void kht_test_wrong_type(struct kunit *test)
{
	atomic_t released = ATOMIC_INIT(0);
	unsigned int bad = 0, t;
	struct kdapl_hobj *r;
	struct kdapl_htable tbl;
	struct kht_obj *o;
	void *handle;

	kdapl_htable_init(&tbl);
	o = kht_add(test, &tbl, KDAPL_HT_EP, &released);
	handle = kdapl_hobj_handle(&o->hobj);

	for (t = 0; t <= KDAPL_HANDLE_TYPE_MASK; t++) {
		void *forged = kht_hval(((unsigned long)o->hobj.index <<
					 KDAPL_HANDLE_TYPE_BITS) | t);

		/* The real handle asked for as another type. */
		r = kdapl_hobj_get(&tbl, handle, t);
		if (t == KDAPL_HT_EP)
			KUNIT_EXPECT_PTR_EQ(test, r, &o->hobj);
		else if (r)
			bad++;
		kdapl_hobj_put(r);

		/* The same index with other type bits, asked for as such. */
		if (t == KDAPL_HT_EP)
			continue;
		r = kdapl_hobj_get(&tbl, forged, t);
		if (r) {
			bad++;
			kdapl_hobj_put(r);
		}
		r = kdapl_hobj_get(&tbl, forged, KDAPL_HT_EP);
		if (r) {
			bad++;
			kdapl_hobj_put(r);
		}
		if (kdapl_handle_type(&tbl, forged) != KDAPL_HT_NONE)
			bad++;
	}
	KUNIT_EXPECT_EQ(test, bad, 0U);
	KUNIT_EXPECT_EQ(test, kref_read(&o->hobj.ref), 1U);

	kht_free(test, &tbl, o);
	KUNIT_EXPECT_EQ(test, atomic_read(&released), 1);
	kdapl_htable_destroy(&tbl);
}

/* Count the lookups of @h, under every type, that wrongly succeed. */
static unsigned int kht_bogus_hits(struct kdapl_htable *tbl, void *h)
{
	unsigned int hits = 0, t;
	struct kdapl_hobj *r;

	for (t = 0; t <= KDAPL_HT_MAX; t++) {
		r = kdapl_hobj_get(tbl, h, t);
		if (r) {
			hits++;
			kdapl_hobj_put(r);
		}
	}
	if (kdapl_handle_type(tbl, h) != KDAPL_HT_NONE)
		hits++;
	return hits;
}

/* NULL, kernel pointers, error pointers and random values never resolve. */
static void kht_test_garbage(struct kunit *test)
{
	atomic_t released = ATOMIC_INIT(0);
	unsigned int hits = 0, i;
	struct kdapl_htable tbl;
	struct kht_obj *ia, *ep;
	unsigned long hia, hep;
	int on_stack = 0;

	kdapl_htable_init(&tbl);
	ia = kht_add(test, &tbl, KDAPL_HT_IA, &released);
	ep = kht_add(test, &tbl, KDAPL_HT_EP, &released);
	hia = kht_hnum(kdapl_hobj_handle(&ia->hobj));
	hep = kht_hnum(kdapl_hobj_handle(&ep->hobj));

	{
		void *bogus[] = {
			NULL,
			ia, &ia->hobj, ep, &ep->hobj,
			&tbl, &tbl.xa, test, &on_stack, &released,
			THIS_MODULE, kht_hval(PAGE_OFFSET),
			ERR_PTR(-EINVAL), ERR_PTR(-ENOMEM), ERR_PTR(-1),
			kht_hval(~0UL), kht_hval(1), kht_hval(KDAPL_HT_IA),
			kht_hval(KDAPL_HT_MAX),
			kht_hval(KDAPL_HANDLE_TYPE_MASK),
			/* Type bits cleared or out of range. */
			kht_hval(hia & ~KDAPL_HANDLE_TYPE_MASK),
			kht_hval(hia | KDAPL_HANDLE_TYPE_MASK),
			kht_hval((hia & ~KDAPL_HANDLE_TYPE_MASK) |
				 KDAPL_HT_MAX),
			/* Valid type, index not allocated. */
			kht_hval(hep + (4UL << KDAPL_HANDLE_TYPE_BITS)),
			kht_hval(((unsigned long)KDAPL_HANDLE_INDEX_MAX <<
				  KDAPL_HANDLE_TYPE_BITS) | KDAPL_HT_IA),
			/* Valid type, index out of range. */
			kht_hval((((unsigned long)KDAPL_HANDLE_INDEX_MAX + 1) <<
				  KDAPL_HANDLE_TYPE_BITS) | KDAPL_HT_IA),
			kht_hval(hia | (1UL << 29)),
			kht_hval(hia | (1UL << (BITS_PER_LONG - 1))),
			kht_hval(hia | ~(~0UL >> 8)),
		};

		for (i = 0; i < ARRAY_SIZE(bogus); i++) {
			unsigned int n = kht_bogus_hits(&tbl, bogus[i]);

			if (n)
				kunit_err(test, "bogus handle #%u resolved\n",
					  i);
			hits += n;
		}
	}

	for (i = 0; i < 10000; i++) {
		unsigned long v;

		switch (i % 3) {
		case 0:		/* anything */
			v = get_random_long();
			break;
		case 1:		/* plausible type bits */
			v = (get_random_long() & ~KDAPL_HANDLE_TYPE_MASK) |
			    (1 + i % (KDAPL_HT_MAX - 1));
			break;
		default:	/* fully plausible, index mostly unallocated */
			v = ((unsigned long)(1 + get_random_u32() %
					     KDAPL_HANDLE_INDEX_MAX) <<
			     KDAPL_HANDLE_TYPE_BITS) |
			    (1 + i % (KDAPL_HT_MAX - 1));
			break;
		}
		if (v == hia || v == hep)
			continue;
		hits += kht_bogus_hits(&tbl, kht_hval(v));
	}
	KUNIT_EXPECT_EQ(test, hits, 0U);

	/* The real handles still work and no reference leaked. */
	KUNIT_EXPECT_EQ(test, kdapl_handle_type(&tbl, kht_hval(hia)),
			KDAPL_HT_IA);
	KUNIT_EXPECT_EQ(test, kdapl_handle_type(&tbl, kht_hval(hep)),
			KDAPL_HT_EP);
	KUNIT_EXPECT_EQ(test, kref_read(&ia->hobj.ref), 1U);
	KUNIT_EXPECT_EQ(test, kref_read(&ep->hobj.ref), 1U);

	kht_free(test, &tbl, ia);
	kht_free(test, &tbl, ep);
	KUNIT_EXPECT_EQ(test, atomic_read(&released), 2);
	kdapl_htable_destroy(&tbl);
}

/*
 * After remove: lookups fail, references already taken stay valid,
 * removing again is a no-op, and release runs once on the last put.
 */
static void kht_test_remove(struct kunit *test)
{
	atomic_t released = ATOMIC_INIT(0);
	struct kdapl_hobj *r1, *r2;
	struct kdapl_htable tbl;
	struct kht_obj *o;
	void *handle;

	kdapl_htable_init(&tbl);
	o = kht_add(test, &tbl, KDAPL_HT_EVD, &released);
	handle = kdapl_hobj_handle(&o->hobj);

	r1 = kdapl_hobj_get(&tbl, handle, KDAPL_HT_EVD);
	KUNIT_ASSERT_PTR_EQ(test, r1, &o->hobj);
	r2 = kdapl_hobj_get(&tbl, handle, KDAPL_HT_EVD);
	KUNIT_ASSERT_PTR_EQ(test, r2, &o->hobj);
	KUNIT_EXPECT_EQ(test, kref_read(&o->hobj.ref), 3U);

	KUNIT_EXPECT_TRUE(test, kdapl_hobj_remove(&tbl, &o->hobj));
	KUNIT_EXPECT_EQ(test, kdapl_htable_count(&tbl), 0U);
	KUNIT_EXPECT_NULL(test, kdapl_hobj_get(&tbl, handle, KDAPL_HT_EVD));
	KUNIT_EXPECT_EQ(test, kdapl_handle_type(&tbl, handle), KDAPL_HT_NONE);
	KUNIT_EXPECT_FALSE(test, kdapl_hobj_remove(&tbl, &o->hobj));
	KUNIT_EXPECT_EQ(test, kdapl_htable_count(&tbl), 0U);
	KUNIT_EXPECT_PTR_EQ(test, kdapl_hobj_handle(&o->hobj), handle);
	KUNIT_EXPECT_EQ(test, kref_read(&o->hobj.ref), 3U);

	/* Creator's reference: the lookups keep the object alive. */
	kdapl_hobj_put(&o->hobj);
	KUNIT_EXPECT_EQ(test, atomic_read(&released), 0);
	KUNIT_EXPECT_EQ(test, kht_of(r1)->magic, KHT_MAGIC);
	KUNIT_EXPECT_EQ(test, kref_read(&r1->ref), 2U);

	kdapl_hobj_put(r1);
	KUNIT_EXPECT_EQ(test, atomic_read(&released), 0);
	KUNIT_EXPECT_EQ(test, kht_of(r2)->magic, KHT_MAGIC);

	kdapl_hobj_put(r2);	/* last: frees the object */
	KUNIT_EXPECT_EQ(test, atomic_read(&released), 1);

	KUNIT_EXPECT_NULL(test, kdapl_hobj_get(&tbl, handle, KDAPL_HT_EVD));
	kdapl_htable_destroy(&tbl);
	KUNIT_EXPECT_EQ(test, atomic_read(&released), 1);
}

static int kht_cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a;
	unsigned long y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

#define KHT_CYCLES	1000

/* Freed handle values are not handed out again (until the space wraps). */
static void kht_test_cyclic(struct kunit *test)
{
	atomic_t released = ATOMIC_INIT(0);
	unsigned int dups = 0, stale = 0, i;
	struct kdapl_htable tbl;
	unsigned long *seen;
	struct kht_obj *o;

	seen = kunit_kcalloc(test, KHT_CYCLES, sizeof(*seen), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, seen);

	kdapl_htable_init(&tbl);
	for (i = 0; i < KHT_CYCLES; i++) {
		o = kht_add(test, &tbl, KDAPL_HT_PZ, &released);
		seen[i] = kht_hnum(kdapl_hobj_handle(&o->hobj));
		/* The previous, freed, handle must not resolve. */
		if (i && kdapl_handle_type(&tbl, kht_hval(seen[i - 1])))
			stale++;
		kht_free(test, &tbl, o);
	}
	KUNIT_EXPECT_NE(test, seen[0], seen[1]);
	KUNIT_EXPECT_EQ(test, stale, 0U);
	KUNIT_EXPECT_EQ(test, atomic_read(&released), KHT_CYCLES);
	KUNIT_EXPECT_EQ(test, kdapl_htable_count(&tbl), 0U);

	sort(seen, KHT_CYCLES, sizeof(*seen), kht_cmp_ulong, NULL);
	for (i = 1; i < KHT_CYCLES; i++)
		if (seen[i] == seen[i - 1])
			dups++;
	KUNIT_EXPECT_EQ(test, dups, 0U);

	kdapl_htable_destroy(&tbl);
}

/*
 * A small table: full -> -EBUSY, wrap-around reuses only free indices, a
 * stale remove cannot erase the object that reuses the index, and bad
 * arguments are refused.
 */
static void kht_test_limit(struct kunit *test)
{
	atomic_t released = ATOMIC_INIT(0);
	struct kht_obj *a[4], *extra, *b, *c;
	struct kdapl_hobj *r, *stale;
	struct kdapl_htable tbl;
	u32 freed_index;
	unsigned int i;

	kdapl_htable_init(&tbl);
	tbl.limit.max = ARRAY_SIZE(a);

	for (i = 0; i < ARRAY_SIZE(a); i++) {
		a[i] = kht_add(test, &tbl, KDAPL_HT_CNO, &released);
		KUNIT_EXPECT_EQ(test, a[i]->hobj.index, i + 1);
	}

	extra = kht_alloc(&released, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, extra);
	KUNIT_EXPECT_EQ(test, kdapl_hobj_add(&tbl, &extra->hobj, KDAPL_HT_CNO,
					     kht_release, GFP_KERNEL), -EBUSY);
	KUNIT_EXPECT_EQ(test, kdapl_htable_count(&tbl), 4U);
	/* A failed add leaves nothing behind to remove. */
	KUNIT_EXPECT_FALSE(test, kdapl_hobj_remove(&tbl, &extra->hobj));
	KUNIT_EXPECT_EQ(test, kdapl_htable_count(&tbl), 4U);

	/* Invalid arguments. */
	KUNIT_EXPECT_EQ(test, kdapl_hobj_add(&tbl, &extra->hobj, KDAPL_HT_NONE,
					     kht_release, GFP_KERNEL), -EINVAL);
	KUNIT_EXPECT_EQ(test, kdapl_hobj_add(&tbl, &extra->hobj, KDAPL_HT_MAX,
					     kht_release, GFP_KERNEL), -EINVAL);
	KUNIT_EXPECT_EQ(test, kdapl_hobj_add(&tbl, &extra->hobj, KDAPL_HT_CNO,
					     NULL, GFP_KERNEL), -EINVAL);
	kfree(extra);
	KUNIT_EXPECT_EQ(test, atomic_read(&released), 0);

	/* Free one; the only free index is reused after the wrap. */
	freed_index = a[1]->hobj.index;
	kht_free(test, &tbl, a[1]);
	KUNIT_EXPECT_EQ(test, atomic_read(&released), 1);
	b = kht_add(test, &tbl, KDAPL_HT_CNO, &released);
	KUNIT_EXPECT_EQ(test, b->hobj.index, freed_index);
	KUNIT_EXPECT_EQ(test, kdapl_htable_count(&tbl), 4U);

	/* Stale remove after the index went to another object. */
	stale = kdapl_hobj_get(&tbl, kdapl_hobj_handle(&a[0]->hobj),
			       KDAPL_HT_CNO);
	KUNIT_ASSERT_PTR_EQ(test, stale, &a[0]->hobj);
	kht_free(test, &tbl, a[0]);
	c = kht_add(test, &tbl, KDAPL_HT_CNO, &released);
	KUNIT_EXPECT_EQ(test, c->hobj.index, stale->index);
	KUNIT_EXPECT_FALSE(test, kdapl_hobj_remove(&tbl, stale));
	KUNIT_EXPECT_EQ(test, kdapl_htable_count(&tbl), 4U);
	r = kdapl_hobj_get(&tbl, kdapl_hobj_handle(&c->hobj), KDAPL_HT_CNO);
	KUNIT_EXPECT_PTR_EQ(test, r, &c->hobj);
	kdapl_hobj_put(r);
	KUNIT_EXPECT_EQ(test, atomic_read(&released), 1);
	kdapl_hobj_put(stale);		/* last reference of a[0] */
	KUNIT_EXPECT_EQ(test, atomic_read(&released), 2);

	kht_free(test, &tbl, a[2]);
	kht_free(test, &tbl, a[3]);
	kht_free(test, &tbl, b);
	kht_free(test, &tbl, c);
	KUNIT_EXPECT_EQ(test, atomic_read(&released), 6);
	KUNIT_EXPECT_EQ(test, kdapl_htable_count(&tbl), 0U);
	kdapl_htable_destroy(&tbl);
}

/* kdapl_handle_type() and kdapl_htype_name() for every type. */
static void kht_test_handle_type(struct kunit *test)
{
	static const char * const names[KDAPL_HT_MAX] = {
		[KDAPL_HT_IA] = "IA",	[KDAPL_HT_PZ] = "PZ",
		[KDAPL_HT_EVD] = "EVD",	[KDAPL_HT_EP] = "EP",
		[KDAPL_HT_LMR] = "LMR",	[KDAPL_HT_RMR] = "RMR",
		[KDAPL_HT_PSP] = "PSP",	[KDAPL_HT_RSP] = "RSP",
		[KDAPL_HT_CR] = "CR",	[KDAPL_HT_CNO] = "CNO",
		[KDAPL_HT_SRQ] = "SRQ",	[KDAPL_HT_CSP] = "CSP",
		[KDAPL_HT_SSP] = "SSP",
	};
	struct kht_obj *o[KDAPL_HT_MAX];
	atomic_t released = ATOMIC_INIT(0);
	struct kdapl_htable tbl;
	enum kdapl_htype t;

	kdapl_htable_init(&tbl);
	for (t = KDAPL_HT_IA; t < KDAPL_HT_MAX; t++) {
		void *h;

		o[t] = kht_add(test, &tbl, t, &released);
		h = kdapl_hobj_handle(&o[t]->hobj);
		KUNIT_EXPECT_EQ(test, kdapl_handle_type(&tbl, h), t);
		KUNIT_EXPECT_EQ(test, kht_hnum(h) & KDAPL_HANDLE_TYPE_MASK,
				(unsigned long)t);
		KUNIT_EXPECT_STREQ(test, kdapl_htype_name(t), names[t]);
	}
	KUNIT_EXPECT_EQ(test, kdapl_htable_count(&tbl), KDAPL_HT_MAX - 1U);
	KUNIT_EXPECT_STREQ(test, kdapl_htype_name(KDAPL_HT_NONE), "INVALID");
	KUNIT_EXPECT_STREQ(test, kdapl_htype_name(KDAPL_HT_MAX), "INVALID");
	KUNIT_EXPECT_STREQ(test, kdapl_htype_name(100), "INVALID");
	KUNIT_EXPECT_EQ(test, kdapl_handle_type(&tbl, NULL), KDAPL_HT_NONE);

	for (t = KDAPL_HT_IA; t < KDAPL_HT_MAX; t++) {
		void *h = kdapl_hobj_handle(&o[t]->hobj);

		KUNIT_EXPECT_TRUE(test, kdapl_hobj_remove(&tbl, &o[t]->hobj));
		KUNIT_EXPECT_EQ(test, kdapl_handle_type(&tbl, h),
				KDAPL_HT_NONE);
		kdapl_hobj_put(&o[t]->hobj);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&released), KDAPL_HT_MAX - 1);
	kdapl_htable_destroy(&tbl);
}

#define KHT_MANY	10000

/* Many objects of mixed types: count, lookups and partial removal. */
static void kht_test_many(struct kunit *test)
{
	unsigned int add_err = 0, bad = 0, live, i;
	atomic_t released = ATOMIC_INIT(0);
	struct kdapl_htable tbl;
	struct kht_obj **objs;
	struct kdapl_hobj *r;

	objs = kvcalloc(KHT_MANY, sizeof(*objs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, objs);

	kdapl_htable_init(&tbl);
	for (i = 0; i < KHT_MANY; i++) {
		enum kdapl_htype t = KDAPL_HT_IA + i % (KDAPL_HT_MAX - 1);
		struct kht_obj *o = kht_alloc(&released, GFP_KERNEL);

		if (!o || kdapl_hobj_add(&tbl, &o->hobj, t, kht_release,
					 GFP_KERNEL)) {
			kfree(o);
			add_err++;
			continue;
		}
		objs[i] = o;
	}
	KUNIT_EXPECT_EQ(test, add_err, 0U);
	KUNIT_EXPECT_EQ(test, kdapl_htable_count(&tbl), KHT_MANY - add_err);

	/* Every handle resolves to its own object, under its own type. */
	for (i = 0; i < KHT_MANY; i++) {
		if (!objs[i])
			continue;
		r = kdapl_hobj_get(&tbl, kdapl_hobj_handle(&objs[i]->hobj),
				   objs[i]->hobj.type);
		if (r != &objs[i]->hobj)
			bad++;
		kdapl_hobj_put(r);
	}
	KUNIT_EXPECT_EQ(test, bad, 0U);

	/* Remove the even ones: they stop resolving, the odd ones do not. */
	live = KHT_MANY - add_err;
	for (i = 0; i < KHT_MANY; i += 2) {
		if (!objs[i])
			continue;
		if (kdapl_hobj_remove(&tbl, &objs[i]->hobj))
			live--;
		else
			bad++;
	}
	KUNIT_EXPECT_EQ(test, kdapl_htable_count(&tbl), live);
	for (i = 0; i < KHT_MANY; i++) {
		void *h;

		if (!objs[i])
			continue;
		h = kdapl_hobj_handle(&objs[i]->hobj);
		if ((kdapl_handle_type(&tbl, h) != KDAPL_HT_NONE) != (i & 1))
			bad++;
	}
	KUNIT_EXPECT_EQ(test, bad, 0U);

	for (i = 1; i < KHT_MANY; i += 2)
		if (objs[i] && !kdapl_hobj_remove(&tbl, &objs[i]->hobj))
			bad++;
	KUNIT_EXPECT_EQ(test, bad, 0U);
	KUNIT_EXPECT_EQ(test, kdapl_htable_count(&tbl), 0U);
	KUNIT_EXPECT_EQ(test, atomic_read(&released), 0);

	for (i = 0; i < KHT_MANY; i++)
		kdapl_hobj_put(objs[i] ? &objs[i]->hobj : NULL);
	KUNIT_EXPECT_EQ(test, atomic_read(&released), KHT_MANY - add_err);

	kdapl_htable_destroy(&tbl);
	kvfree(objs);
}

/* Everything done with interrupts, then bottom halves, disabled. */
static void kht_test_irqs_disabled(struct kunit *test)
{
	bool irqs_off, got, removed, bh_off, got2, removed2;
	atomic_t released = ATOMIC_INIT(0);
	enum kdapl_htype type, type2;
	struct kdapl_htable tbl;
	struct kht_obj *o, *p;
	unsigned long flags;
	struct kdapl_hobj *r;
	int released_early;
	void *h, *ph = NULL;
	int add_ret;

	kdapl_htable_init(&tbl);
	o = kht_add(test, &tbl, KDAPL_HT_LMR, &released);
	h = kdapl_hobj_handle(&o->hobj);
	p = kht_alloc(&released, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);

	local_irq_save(flags);
	irqs_off = irqs_disabled();
	r = kdapl_hobj_get(&tbl, h, KDAPL_HT_LMR);
	got = r == &o->hobj;
	kdapl_hobj_put(r);
	type = kdapl_handle_type(&tbl, h);
	add_ret = kdapl_hobj_add(&tbl, &p->hobj, KDAPL_HT_RMR, kht_release,
				 GFP_ATOMIC);
	if (!add_ret)
		ph = kdapl_hobj_handle(&p->hobj);
	removed = kdapl_hobj_remove(&tbl, &o->hobj);
	if (removed)
		kdapl_hobj_put(&o->hobj);	/* release with irqs off */
	released_early = atomic_read(&released);
	local_irq_restore(flags);

	KUNIT_EXPECT_TRUE(test, irqs_off);
	KUNIT_EXPECT_TRUE(test, got);
	KUNIT_EXPECT_EQ(test, type, KDAPL_HT_LMR);
	KUNIT_EXPECT_TRUE(test, removed);
	KUNIT_EXPECT_EQ(test, released_early, 1);
	KUNIT_EXPECT_EQ(test, add_ret, 0);
	if (add_ret) {
		kfree(p);
		kdapl_htable_destroy(&tbl);
		return;
	}

	local_bh_disable();
	bh_off = in_softirq();
	r = kdapl_hobj_get(&tbl, ph, KDAPL_HT_RMR);
	got2 = r == &p->hobj;
	kdapl_hobj_put(r);
	type2 = kdapl_handle_type(&tbl, ph);
	removed2 = kdapl_hobj_remove(&tbl, &p->hobj);
	if (removed2)
		kdapl_hobj_put(&p->hobj);
	local_bh_enable();

	KUNIT_EXPECT_TRUE(test, bh_off);
	KUNIT_EXPECT_TRUE(test, got2);
	KUNIT_EXPECT_EQ(test, type2, KDAPL_HT_RMR);
	KUNIT_EXPECT_TRUE(test, removed2);
	KUNIT_EXPECT_EQ(test, atomic_read(&released), 2);
	KUNIT_EXPECT_EQ(test, kdapl_htable_count(&tbl), 0U);
	kdapl_htable_destroy(&tbl);
}

/*
 * State for one run of kht_irq_body() from a hard IRQ (hrtimer in hard
 * mode) or a softirq (timer_list). The test hands the creator's reference
 * of @handle's object to the callback, which frees the object there.
 */
struct kht_irq_ctx {
	struct kdapl_htable *tbl;
	void *handle;
	struct kht_obj *extra;
	atomic_t *released;
	struct completion done;
	struct hrtimer hrt;
	struct timer_list timer;
	bool right_ctx;
	bool got;
	bool wrong_type_null;
	bool type_ok;
	bool removed;
	int add_ret;
	int released_in_irq;
};

static void kht_irq_body(struct kht_irq_ctx *c)
{
	struct kdapl_hobj *r, *w;

	r = kdapl_hobj_get(c->tbl, c->handle, KDAPL_HT_EP);
	c->got = r && kht_of(r)->magic == KHT_MAGIC;
	w = kdapl_hobj_get(c->tbl, c->handle, KDAPL_HT_PZ);
	c->wrong_type_null = !w;
	kdapl_hobj_put(w);
	c->type_ok = kdapl_handle_type(c->tbl, c->handle) == KDAPL_HT_EP;

	c->add_ret = kdapl_hobj_add(c->tbl, &c->extra->hobj, KDAPL_HT_SRQ,
				    kht_release, GFP_ATOMIC);

	c->removed = r && kdapl_hobj_remove(c->tbl, r);
	if (c->removed)
		kdapl_hobj_put(r);	/* the creator's reference */
	kdapl_hobj_put(r);		/* the lookup: last, releases */
	c->released_in_irq = atomic_read(c->released);
}

static enum hrtimer_restart kht_hrtimer_fn(struct hrtimer *t)
{
	struct kht_irq_ctx *c = container_of(t, struct kht_irq_ctx, hrt);

	c->right_ctx = in_hardirq();
	kht_irq_body(c);
	complete(&c->done);
	return HRTIMER_NORESTART;
}

static void kht_timer_fn(struct timer_list *t)
{
	struct kht_irq_ctx *c = from_timer(c, t, timer);

	c->right_ctx = in_serving_softirq();
	kht_irq_body(c);
	complete(&c->done);
}

static void kht_run_in_irq(struct kunit *test, bool hard)
{
	atomic_t released = ATOMIC_INIT(0);
	struct kdapl_htable tbl;
	struct kht_irq_ctx *c;
	struct kdapl_hobj *r;
	unsigned long left;
	struct kht_obj *o;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	kdapl_htable_init(&tbl);
	o = kht_add(test, &tbl, KDAPL_HT_EP, &released);
	c->tbl = &tbl;
	c->handle = kdapl_hobj_handle(&o->hobj);
	c->released = &released;
	c->extra = kht_alloc(&released, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c->extra);
	init_completion(&c->done);

	if (hard) {
		hrtimer_init(&c->hrt, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
		c->hrt.function = kht_hrtimer_fn;
		hrtimer_start(&c->hrt, ns_to_ktime(100 * NSEC_PER_USEC),
			      HRTIMER_MODE_REL_HARD);
	} else {
		timer_setup(&c->timer, kht_timer_fn, 0);
		mod_timer(&c->timer, jiffies + 1);
	}
	left = wait_for_completion_timeout(&c->done, 10 * HZ);
	if (hard)
		hrtimer_cancel(&c->hrt);
	else
		del_timer_sync(&c->timer);
	KUNIT_ASSERT_NE_MSG(test, left, 0UL, "timer callback never ran");

	KUNIT_EXPECT_TRUE(test, c->right_ctx);
	KUNIT_EXPECT_TRUE(test, c->got);
	KUNIT_EXPECT_TRUE(test, c->wrong_type_null);
	KUNIT_EXPECT_TRUE(test, c->type_ok);
	KUNIT_EXPECT_TRUE(test, c->removed);
	KUNIT_EXPECT_EQ(test, c->released_in_irq, 1);
	KUNIT_EXPECT_EQ(test, c->add_ret, 0);
	KUNIT_EXPECT_NULL(test, kdapl_hobj_get(&tbl, c->handle, KDAPL_HT_EP));

	/* The object added in the callback is usable from process context. */
	if (c->add_ret) {
		kfree(c->extra);
	} else {
		r = kdapl_hobj_get(&tbl, kdapl_hobj_handle(&c->extra->hobj),
				   KDAPL_HT_SRQ);
		KUNIT_EXPECT_PTR_EQ(test, r, &c->extra->hobj);
		kdapl_hobj_put(r);
		kht_free(test, &tbl, c->extra);
		KUNIT_EXPECT_EQ(test, atomic_read(&released), 2);
	}
	KUNIT_EXPECT_EQ(test, kdapl_htable_count(&tbl), 0U);
	kdapl_htable_destroy(&tbl);
}

/* get/put/add/remove/release from a hard IRQ and from a softirq. */
static void kht_test_irq_callbacks(struct kunit *test)
{
	kht_run_in_irq(test, true);
	kht_run_in_irq(test, false);
}

/*
 * Stress: a creator thread adds an object, publishes its handle, then
 * frees it; two lookup threads resolve whatever handle is published and
 * now and then free the object themselves, racing the creator. Whoever
 * removes the handle drops the creator's reference, as DAT free calls
 * racing on one handle would.
 */
#define KHT_STRESS_MS		200
#define KHT_STRESS_GETTERS	2

struct kht_stress {
	struct kdapl_htable tbl;
	void *handle;
	atomic_t released;
	atomic_t created;
	atomic_t removed;
	atomic_t getter_removed;
	atomic_t errors;
	atomic_long_t hits;
	atomic_long_t misses;
};

static int kht_stress_creator(void *arg)
{
	struct kht_stress *s = arg;
	unsigned int n = 0;
	struct kht_obj *o;

	while (!kthread_should_stop()) {
		o = kht_alloc(&s->released, GFP_KERNEL);
		if (!o) {
			atomic_inc(&s->errors);
			usleep_range(1000, 2000);
			continue;
		}
		if (kdapl_hobj_add(&s->tbl, &o->hobj, KDAPL_HT_EP,
				   kht_release, GFP_KERNEL)) {
			kfree(o);
			atomic_inc(&s->errors);
			usleep_range(1000, 2000);
			continue;
		}
		atomic_inc(&s->created);
		kdapl_hobj_ref(&o->hobj);	/* ours, for the free below */
		WRITE_ONCE(s->handle, kdapl_hobj_handle(&o->hobj));

		if (++n % 4)
			udelay(1 + n % 8);
		else
			cond_resched();

		if (kdapl_hobj_remove(&s->tbl, &o->hobj)) {
			atomic_inc(&s->removed);
			kdapl_hobj_put(&o->hobj);
		}
		if (o->magic != KHT_MAGIC)
			atomic_inc(&s->errors);
		kdapl_hobj_put(&o->hobj);
	}
	return 0;
}

static int kht_stress_getter(void *arg)
{
	struct kht_stress *s = arg;
	struct kdapl_hobj *r, *w;
	unsigned long n = 0;
	void *h;

	while (!kthread_should_stop()) {
		h = READ_ONCE(s->handle);
		r = kdapl_hobj_get(&s->tbl, h, KDAPL_HT_EP);
		if (!r) {
			atomic_long_inc(&s->misses);
			goto next;
		}
		atomic_long_inc(&s->hits);
		if (kht_of(r)->magic != KHT_MAGIC ||
		    kdapl_hobj_handle(r) != h)
			atomic_inc(&s->errors);

		w = kdapl_hobj_get(&s->tbl, h, KDAPL_HT_IA);
		if (w) {
			atomic_inc(&s->errors);
			kdapl_hobj_put(w);
		}

		if (++n % 64 == 0 && kdapl_hobj_remove(&s->tbl, r)) {
			atomic_inc(&s->removed);
			atomic_inc(&s->getter_removed);
			kdapl_hobj_put(r);	/* the creator's reference */
		}
		if (kht_of(r)->magic != KHT_MAGIC)
			atomic_inc(&s->errors);
		kdapl_hobj_put(r);
next:
		cond_resched();
	}
	return 0;
}

static void kht_test_concurrent(struct kunit *test)
{
	struct task_struct *tasks[1 + KHT_STRESS_GETTERS];
	struct kht_stress *s;
	unsigned int i;
	bool ok = true;

	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	kdapl_htable_init(&s->tbl);

	for (i = 0; i < ARRAY_SIZE(tasks); i++) {
		tasks[i] = kthread_create(i ? kht_stress_getter :
					  kht_stress_creator, s,
					  "kht_stress/%u", i);
		if (IS_ERR(tasks[i]))
			ok = false;
	}
	for (i = 0; i < ARRAY_SIZE(tasks); i++)
		if (ok)
			wake_up_process(tasks[i]);
	if (ok)
		msleep(KHT_STRESS_MS);
	/* Creator first, so its last object is freed before lookups stop. */
	for (i = 0; i < ARRAY_SIZE(tasks); i++)
		if (!IS_ERR(tasks[i]))
			kthread_stop(tasks[i]);
	KUNIT_ASSERT_TRUE_MSG(test, ok, "kthread_create failed");

	kunit_info(test, "created %d, freed by lookup threads %d, hits %ld, misses %ld\n",
		   atomic_read(&s->created), atomic_read(&s->getter_removed),
		   atomic_long_read(&s->hits), atomic_long_read(&s->misses));

	KUNIT_EXPECT_GT(test, atomic_read(&s->created), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&s->errors), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&s->removed),
			atomic_read(&s->created));
	KUNIT_EXPECT_EQ(test, atomic_read(&s->released),
			atomic_read(&s->created));
	KUNIT_EXPECT_EQ(test, kdapl_htable_count(&s->tbl), 0U);
	KUNIT_EXPECT_EQ(test, kdapl_handle_type(&s->tbl, READ_ONCE(s->handle)),
			KDAPL_HT_NONE);
	kdapl_htable_destroy(&s->tbl);
}

static struct kunit_case kdapl_handle_cases[] = {
	KUNIT_CASE(kht_test_add_get),
	KUNIT_CASE(kht_test_wrong_type),
	KUNIT_CASE(kht_test_garbage),
	KUNIT_CASE(kht_test_remove),
	KUNIT_CASE(kht_test_cyclic),
	KUNIT_CASE(kht_test_limit),
	KUNIT_CASE(kht_test_handle_type),
	KUNIT_CASE(kht_test_many),
	KUNIT_CASE(kht_test_irqs_disabled),
	KUNIT_CASE(kht_test_irq_callbacks),
	KUNIT_CASE(kht_test_concurrent),
	{}
};

static struct kunit_suite kdapl_handle_suite = {
	.name = "kdapl_handle",
	.test_cases = kdapl_handle_cases,
};

kunit_test_suite(kdapl_handle_suite);

MODULE_DESCRIPTION("KUnit tests for the kdapl handle table");
MODULE_IMPORT_NS(KDAPL_INTERNAL);
MODULE_LICENSE("GPL");
