// SPDX-License-Identifier: GPL-2.0
/*
 * kdapl typed handle table; see handle.h for the object lifetime rules.
 *
 * Lookups run under RCU without a lock, so a handle can be resolved from
 * any context (an event upcall in hard or soft IRQ as well as a consumer
 * call in process context) at the cost of a load and an atomic. Removals
 * and additions take the XArray's lock with interrupts saved and
 * disabled. A lookup that read the entry before kdapl_hobj_remove()
 * erased it may take its reference after the removal returned: that
 * reference behaves like one taken just before (it keeps the memory, not
 * the handle). Whether a handle is still valid is kdapl_hobj_present()'s
 * to say, under the caller's own lock.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bug.h>
#include <linux/export.h>
#include <linux/printk.h>
#include <linux/sched/mm.h>
#include <linux/spinlock.h>

#include "handle.h"

/* Leaked handles listed by kdapl_htable_destroy() before it gives up. */
#define KDAPL_HTABLE_LEAKS_SHOWN	16

static const char * const kdapl_htype_names[KDAPL_HT_MAX] = {
	[KDAPL_HT_NONE]	= "INVALID",
	[KDAPL_HT_IA]	= "IA",
	[KDAPL_HT_PZ]	= "PZ",
	[KDAPL_HT_EVD]	= "EVD",
	[KDAPL_HT_EP]	= "EP",
	[KDAPL_HT_LMR]	= "LMR",
	[KDAPL_HT_RMR]	= "RMR",
	[KDAPL_HT_PSP]	= "PSP",
	[KDAPL_HT_RSP]	= "RSP",
	[KDAPL_HT_CR]	= "CR",
	[KDAPL_HT_CNO]	= "CNO",
	[KDAPL_HT_SRQ]	= "SRQ",
	[KDAPL_HT_CSP]	= "CSP",
	[KDAPL_HT_SSP]	= "SSP",
};

static bool kdapl_htype_valid(enum kdapl_htype type)
{
	return type > KDAPL_HT_NONE && type < KDAPL_HT_MAX;
}

/**
 * kdapl_htype_name() - name of a handle type
 * @type: handle type
 *
 * Context: Any context.
 * Return: the DAT name of @type ("IA", "EP", ...), or "INVALID" if @type
 * is not a valid handle type.
 */
const char *kdapl_htype_name(enum kdapl_htype type)
{
	if (!kdapl_htype_valid(type))
		return kdapl_htype_names[KDAPL_HT_NONE];
	return kdapl_htype_names[type];
}
EXPORT_SYMBOL_NS_GPL(kdapl_htype_name, KDAPL_INTERNAL);

/**
 * kdapl_htable_init() - initialise an empty handle table
 * @tbl: table to initialise
 *
 * Index 0 is never used and indices are handed out cyclically from 1 to
 * KDAPL_HANDLE_INDEX_MAX. The owner may lower @tbl->limit.max before the
 * first kdapl_hobj_add().
 *
 * Context: Any context.
 */
void kdapl_htable_init(struct kdapl_htable *tbl)
{
	BUILD_BUG_ON(KDAPL_HT_MAX - 1 > KDAPL_HANDLE_TYPE_MASK);
	BUILD_BUG_ON((u64)KDAPL_HANDLE_INDEX_MAX << KDAPL_HANDLE_TYPE_BITS >
		     U32_MAX);
	BUILD_BUG_ON(ARRAY_SIZE(kdapl_htype_names) != KDAPL_HT_MAX);

	xa_init_flags(&tbl->xa, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	tbl->next = 1;
	tbl->limit = XA_LIMIT(1, KDAPL_HANDLE_INDEX_MAX);
	tbl->count = 0;
}
EXPORT_SYMBOL_NS_GPL(kdapl_htable_init, KDAPL_INTERNAL);

/**
 * kdapl_htable_destroy() - tear down a handle table
 * @tbl: table to tear down
 *
 * Every object should have been removed by now. If any are left, this
 * warns, reports how many and lists the first few; the leaked objects are
 * neither released nor touched beyond reading their type and index, since
 * somebody may still hold references to them.
 *
 * Context: Process context. Nothing else may use @tbl any more.
 */
void kdapl_htable_destroy(struct kdapl_htable *tbl)
{
	unsigned int shown = 0;
	struct kdapl_hobj *obj;
	unsigned long index;

	if (WARN(!xa_empty(&tbl->xa),
		 "kdapl: handle table destroyed with %u handle(s) in it\n",
		 kdapl_htable_count(tbl))) {
		xa_for_each(&tbl->xa, index, obj) {
			if (shown++ == KDAPL_HTABLE_LEAKS_SHOWN)
				break;
			pr_warn("leaked %s handle %#lx (refcount %u)\n",
				kdapl_htype_name(obj->type),
				(unsigned long)kdapl_hobj_handle(obj),
				kref_read(&obj->ref));
		}
	}
	xa_destroy(&tbl->xa);
	tbl->count = 0;
}
EXPORT_SYMBOL_NS_GPL(kdapl_htable_destroy, KDAPL_INTERNAL);

/**
 * kdapl_htable_count() - number of objects in a handle table
 * @tbl: handle table
 *
 * Counts objects added and not yet removed; objects removed but still
 * referenced are not counted. The value may be stale by the time the
 * caller looks at it unless the caller excludes adds and removes.
 *
 * Context: Any context.
 * Return: the number of objects in @tbl.
 */
unsigned int kdapl_htable_count(struct kdapl_htable *tbl)
{
	return READ_ONCE(tbl->count);
}
EXPORT_SYMBOL_NS_GPL(kdapl_htable_count, KDAPL_INTERNAL);

/**
 * kdapl_hobj_add() - enter an object in a handle table
 * @tbl: handle table
 * @obj: object to enter; not in any table
 * @type: type of the object
 * @release: called on the last kdapl_hobj_put() to free the object; may
 *	run in any context, see struct kdapl_hobj
 * @gfp: allocation flags; GFP_ATOMIC when called in atomic context
 *
 * Initialises @obj's type, release callback and reference count (to 1,
 * the creator's reference) and allocates an index for it. The index is
 * allocated cyclically, so a handle value that was just freed is not
 * reused until the index space wraps. The object can be looked up as soon
 * as this returns, by anybody holding (or guessing) the handle, so it must
 * be ready for kdapl_hobj_get() users before it is added.
 *
 * The lock is taken irqsave rather than with xa_alloc_cyclic_irq(), which
 * would re-enable interrupts behind a caller that had them disabled. With
 * a @gfp that may block the lock is dropped around the allocation, so
 * interrupts must then be enabled, as for any blocking allocation.
 *
 * Context: Any context if @gfp does not allow blocking; process context
 * with interrupts enabled otherwise.
 * Return: 0 on success; -EINVAL for an invalid @type or a NULL @release,
 * -ENOMEM if memory could not be allocated, -EBUSY if the table is full.
 * On failure @obj is not in the table, @release will not be called and
 * the caller frees @obj itself.
 */
int kdapl_hobj_add(struct kdapl_htable *tbl, struct kdapl_hobj *obj,
		   enum kdapl_htype type,
		   void (*release)(struct kdapl_hobj *obj), gfp_t gfp)
{
	unsigned long flags;
	int ret;

	if (!kdapl_htype_valid(type) || !release)
		return -EINVAL;

	might_alloc(gfp);

	obj->type = type;
	obj->release = release;
	kref_init(&obj->ref);

	xa_lock_irqsave(&tbl->xa, flags);
	ret = __xa_alloc_cyclic(&tbl->xa, &obj->index, obj, tbl->limit,
				&tbl->next, gfp);
	if (ret >= 0)
		WRITE_ONCE(tbl->count, tbl->count + 1);
	xa_unlock_irqrestore(&tbl->xa, flags);

	/* 1 means the allocation wrapped: still a success. */
	return ret < 0 ? ret : 0;
}
EXPORT_SYMBOL_NS_GPL(kdapl_hobj_add, KDAPL_INTERNAL);

/**
 * kdapl_hobj_remove() - make an object's handle invalid
 * @tbl: handle table @obj was added to
 * @obj: object; the caller holds a reference
 *
 * Erases @obj's index, after which kdapl_hobj_get() and
 * kdapl_handle_type() fail for its handle. References already taken stay
 * valid. The caller then drops the creator's reference with
 * kdapl_hobj_put(), but only if this call returned true: removing again
 * is harmless and returns false, so when two threads race to free the
 * same handle exactly one of them drops the creator's reference.
 *
 * The erase only happens if the index still maps to @obj, so a stale
 * call can never erase another object that later got the same index.
 *
 * Context: Any context.
 * Return: true if this call removed @obj from @tbl, false if it was not
 * in @tbl (already removed, or never added).
 */
bool kdapl_hobj_remove(struct kdapl_htable *tbl, struct kdapl_hobj *obj)
{
	unsigned long flags;
	void *old;

	xa_lock_irqsave(&tbl->xa, flags);
	/* Storing NULL never allocates, so this cannot fail. */
	old = __xa_cmpxchg(&tbl->xa, obj->index, obj, NULL, 0);
	if (old == obj)
		WRITE_ONCE(tbl->count, tbl->count - 1);
	xa_unlock_irqrestore(&tbl->xa, flags);

	WARN_ON_ONCE(xa_is_err(old));
	return old == obj;
}
EXPORT_SYMBOL_NS_GPL(kdapl_hobj_remove, KDAPL_INTERNAL);

/**
 * kdapl_hobj_present() - is @obj's handle still valid?
 * @tbl: the table
 * @obj: an object the caller holds a reference on
 *
 * A reference keeps the memory, not the handle. A caller that looked an
 * object up and then takes the lock its free path takes (a PZ's or an
 * EVD's IA lock) asks this under that lock before it makes the object
 * used: false means it was freed in between.
 *
 * Context: any.
 */
bool kdapl_hobj_present(struct kdapl_htable *tbl, const struct kdapl_hobj *obj)
{
	return xa_load(&tbl->xa, obj->index) == obj;
}
EXPORT_SYMBOL_NS_GPL(kdapl_hobj_present, KDAPL_INTERNAL);

/**
 * kdapl_hobj_handle() - the DAT handle of an object
 * @obj: object added with kdapl_hobj_add()
 *
 * The handle is an opaque value encoding @obj's index and type. It is
 * never NULL and never a kernel address, and stays the same after
 * kdapl_hobj_remove() (it just no longer resolves).
 *
 * Context: Any context.
 * Return: the handle to give the consumer for @obj.
 */
void *kdapl_hobj_handle(const struct kdapl_hobj *obj)
{
	return (void *)(((unsigned long)obj->index << KDAPL_HANDLE_TYPE_BITS) |
			obj->type);
}
EXPORT_SYMBOL_NS_GPL(kdapl_hobj_handle, KDAPL_INTERNAL);

/*
 * Split a handle into index and type, rejecting values that no
 * kdapl_hobj_handle() of @tbl could have produced.
 */
static bool kdapl_handle_decode(const struct kdapl_htable *tbl, void *handle,
				u32 *index, enum kdapl_htype *type)
{
	unsigned long val = (unsigned long)handle;
	unsigned long idx = val >> KDAPL_HANDLE_TYPE_BITS;
	enum kdapl_htype t = val & KDAPL_HANDLE_TYPE_MASK;

	if (!kdapl_htype_valid(t))
		return false;
	if (idx < tbl->limit.min || idx > tbl->limit.max)
		return false;

	*index = idx;
	*type = t;
	return true;
}

/**
 * kdapl_hobj_get() - look up a handle and take a reference on its object
 * @tbl: handle table
 * @handle: handle from the consumer; anything is accepted
 * @type: type the caller expects
 *
 * Context: Any context, hard and soft IRQ included.
 * Return: the object with a new reference, to be dropped with
 * kdapl_hobj_put(); NULL if @handle is NULL, not a handle of @tbl, of
 * another type than @type, or already removed.
 */
struct kdapl_hobj *kdapl_hobj_get(struct kdapl_htable *tbl, void *handle,
				  enum kdapl_htype type)
{
	struct kdapl_hobj *obj;
	enum kdapl_htype htype;
	u32 index;

	if (!kdapl_handle_decode(tbl, handle, &index, &htype) || htype != type)
		return NULL;

	/*
	 * No lock on the DTO path: the object's memory lives an RCU grace
	 * period past its last reference (struct kdapl_hobj), so a lookup
	 * that races with the last put finds the count at zero and fails.
	 */
	rcu_read_lock();
	obj = xa_load(&tbl->xa, index);
	if (obj && (obj->type != type || !kref_get_unless_zero(&obj->ref)))
		obj = NULL;
	rcu_read_unlock();

	return obj;
}
EXPORT_SYMBOL_NS_GPL(kdapl_hobj_get, KDAPL_INTERNAL);

static void kdapl_hobj_kref_release(struct kref *ref)
{
	struct kdapl_hobj *obj = container_of(ref, struct kdapl_hobj, ref);

	obj->release(obj);
}

/**
 * kdapl_hobj_put() - drop a reference on an object
 * @obj: object, or NULL (then nothing happens)
 *
 * On the last reference the object's release callback runs, in the
 * caller's context.
 *
 * Context: Any context, hard and soft IRQ included.
 */
void kdapl_hobj_put(struct kdapl_hobj *obj)
{
	if (obj)
		kref_put(&obj->ref, kdapl_hobj_kref_release);
}
EXPORT_SYMBOL_NS_GPL(kdapl_hobj_put, KDAPL_INTERNAL);

/**
 * kdapl_handle_type() - type of the object a handle refers to
 * @tbl: handle table
 * @handle: handle from the consumer; anything is accepted
 *
 * For dat_get_handle_type(). No reference is taken, so the answer may be
 * stale by the time the caller looks at it.
 *
 * Context: Any context, hard and soft IRQ included.
 * Return: the type of the object @handle refers to, or KDAPL_HT_NONE (0)
 * if @handle is NULL, not a handle of @tbl or already removed.
 */
enum kdapl_htype kdapl_handle_type(struct kdapl_htable *tbl, void *handle)
{
	enum kdapl_htype type = KDAPL_HT_NONE;
	struct kdapl_hobj *obj;
	enum kdapl_htype htype;
	unsigned long flags;
	u32 index;

	if (!kdapl_handle_decode(tbl, handle, &index, &htype))
		return KDAPL_HT_NONE;

	xa_lock_irqsave(&tbl->xa, flags);
	obj = xa_load(&tbl->xa, index);
	if (obj && obj->type == htype)
		type = htype;
	xa_unlock_irqrestore(&tbl->xa, flags);

	return type;
}
EXPORT_SYMBOL_NS_GPL(kdapl_handle_type, KDAPL_INTERNAL);
