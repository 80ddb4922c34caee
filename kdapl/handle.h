/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kdapl typed handle table.
 *
 * Every DAT object (IA, PZ, EVD, EP, ...) embeds a struct kdapl_hobj and is
 * entered in a struct kdapl_htable. The consumer never sees a kernel
 * pointer: it gets an opaque DAT handle that encodes the table index and
 * the object type, and every DAT call turns that handle back into a
 * counted reference with kdapl_hobj_get(), which rejects NULL, garbage,
 * stale and wrongly typed handles.
 *
 * The design follows drivers/infiniband/sw/rxe/rxe_pool.c: an allocating
 * XArray with cyclic index allocation, so that a freed handle value is not
 * handed out again until the index space wraps, and a kref per object.
 */
#ifndef KDAPL_HANDLE_H
#define KDAPL_HANDLE_H

#include <linux/kref.h>
#include <linux/types.h>
#include <linux/xarray.h>

/**
 * enum kdapl_htype - type of a DAT object, as encoded in its handle
 * @KDAPL_HT_NONE: not a valid type; returned for an invalid handle
 * @KDAPL_HT_IA: interface adapter
 * @KDAPL_HT_PZ: protection zone
 * @KDAPL_HT_EVD: event dispatcher
 * @KDAPL_HT_EP: endpoint
 * @KDAPL_HT_LMR: local memory region
 * @KDAPL_HT_RMR: remote memory region
 * @KDAPL_HT_PSP: public service point
 * @KDAPL_HT_RSP: reserved service point
 * @KDAPL_HT_CR: connection request
 * @KDAPL_HT_CNO: consumer notification object
 * @KDAPL_HT_SRQ: shared receive queue
 * @KDAPL_HT_CSP: common service point
 * @KDAPL_HT_SSP: socket service point
 * @KDAPL_HT_MAX: number of values; not a type
 */
enum kdapl_htype {
	KDAPL_HT_NONE = 0,
	KDAPL_HT_IA = 1,
	KDAPL_HT_PZ,
	KDAPL_HT_EVD,
	KDAPL_HT_EP,
	KDAPL_HT_LMR,
	KDAPL_HT_RMR,
	KDAPL_HT_PSP,
	KDAPL_HT_RSP,
	KDAPL_HT_CR,
	KDAPL_HT_CNO,
	KDAPL_HT_SRQ,
	KDAPL_HT_CSP,
	KDAPL_HT_SSP,
	KDAPL_HT_MAX
};

/*
 * Handle encoding: (index << KDAPL_HANDLE_TYPE_BITS) | type. The type
 * field is never 0 and the index is at most KDAPL_HANDLE_INDEX_MAX, so a
 * handle is never NULL and always below 1 << 29: it is not a kernel
 * address on any architecture.
 */
#define KDAPL_HANDLE_TYPE_BITS	5
#define KDAPL_HANDLE_TYPE_MASK	((1UL << KDAPL_HANDLE_TYPE_BITS) - 1)
#define KDAPL_HANDLE_INDEX_MAX	((1U << 24) - 1)

/**
 * struct kdapl_hobj - handle-table entry embedded in every DAT object
 * @type: object type, set by kdapl_hobj_add() and never changed
 * @index: table index, set by kdapl_hobj_add() and never changed; it stays
 *	valid after kdapl_hobj_remove() so the handle value can still be
 *	reported (e.g. in events already queued for the object)
 * @ref: reference count
 * @release: called once, on the last kdapl_hobj_put(); frees the object
 *
 * Ownership and locking:
 *
 * - kdapl_hobj_add() sets the count to 1. That reference belongs to the
 *   creator and stands for the handle the consumer holds.
 * - kdapl_hobj_get() takes a further reference, under RCU, only while the
 *   index maps to the object and the count is not zero. A reference keeps
 *   the memory alive; it does not keep the handle valid.
 * - Freeing a handle is kdapl_hobj_remove() followed by kdapl_hobj_put()
 *   of the creator's reference, in that order. Only the caller for whom
 *   kdapl_hobj_remove() returned true may drop the creator's reference.
 *   A lookup that starts after the erase fails; one that read the entry
 *   before it may still get its reference (as if it had run just before);
 *   @release runs when the last reference is put.
 * - The last reference must never be dropped while the object is still
 *   in the table.
 * - kdapl_hobj_get(), kdapl_hobj_put(), kdapl_hobj_remove() and
 *   kdapl_handle_type() work in any context, hard and soft IRQ included.
 *   @release therefore runs in whatever context the last put happens in
 *   and must not sleep; an object that needs to sleep to be torn down
 *   should do that before kdapl_hobj_remove() or defer it to a workqueue.
 * - kdapl_hobj_get() looks up under RCU, without the table's lock: the
 *   memory of an object must outlive an RCU grace period after its last
 *   reference. @release frees it with kfree_rcu() on @rcu (or an RCU
 *   deferral of its own).
 * - The object's own state is protected by its own locks, not by the
 *   table.
 */
struct kdapl_hobj {
	enum kdapl_htype type;
	u32 index;
	struct kref ref;
	void (*release)(struct kdapl_hobj *obj);
	struct rcu_head rcu;
};

/**
 * struct kdapl_htable - table of DAT handles
 * @xa: index -> struct kdapl_hobj; XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ.
 *	xa_lock protects @xa, @next and @count.
 * @next: next index to try, for cyclic allocation
 * @limit: range of indices handed out; the owner may lower @limit.max
 *	after kdapl_htable_init() and before the first kdapl_hobj_add()
 * @count: number of objects in the table (added and not yet removed)
 */
struct kdapl_htable {
	struct xarray xa;
	u32 next;
	struct xa_limit limit;
	unsigned int count;
};

const char *kdapl_htype_name(enum kdapl_htype type);

void kdapl_htable_init(struct kdapl_htable *tbl);
void kdapl_htable_destroy(struct kdapl_htable *tbl);
unsigned int kdapl_htable_count(struct kdapl_htable *tbl);

int kdapl_hobj_add(struct kdapl_htable *tbl, struct kdapl_hobj *obj,
		   enum kdapl_htype type,
		   void (*release)(struct kdapl_hobj *obj), gfp_t gfp);
bool kdapl_hobj_remove(struct kdapl_htable *tbl, struct kdapl_hobj *obj);
bool kdapl_hobj_present(struct kdapl_htable *tbl, const struct kdapl_hobj *obj);
void *kdapl_hobj_handle(const struct kdapl_hobj *obj);
struct kdapl_hobj *kdapl_hobj_get(struct kdapl_htable *tbl, void *handle,
				  enum kdapl_htype type);
void kdapl_hobj_put(struct kdapl_hobj *obj);
enum kdapl_htype kdapl_handle_type(struct kdapl_htable *tbl, void *handle);

/**
 * kdapl_hobj_ref() - take another reference on an object already held
 * @obj: object the caller holds a reference on
 *
 * For one object keeping another alive (an EP holding its PZ, say).
 *
 * Context: Any context.
 */
static inline void kdapl_hobj_ref(struct kdapl_hobj *obj)
{
	kref_get(&obj->ref);
}

#endif /* KDAPL_HANDLE_H */
