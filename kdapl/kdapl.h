/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kdapl internal declarations shared by the core's files.
 *
 * Object model. Every DAT object embeds a struct kdapl_obj (its handle
 * table entry, consumer context and owning IA) and lives in its own file
 * (ia.c, pz.c, evd.c, ...). Lifetimes:
 *
 * - The consumer's handle is the creator's reference (kdapl_hobj_add());
 *   dat_*_free() removes the handle and drops that reference.
 * - Every dat_* call turns the handle into its own reference with
 *   kdapl_obj_get() and drops it on return, so an object never goes away
 *   under a call in progress.
 * - A child holds a reference on its IA (obj->ia) for its whole life; the
 *   IA refuses a graceful close while it has children.
 *
 * Locking order (outer first): kdapl.providers_lock (mutex) ->
 * provider->lock (mutex) -> object spinlocks (evd->lock, ...). Spinlocks
 * are taken irqsave: completion processing runs in softirq context and
 * upcall-safe calls may come from any context.
 */
#ifndef KDAPL_KDAPL_H
#define KDAPL_KDAPL_H

#include <linux/dcache.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/sched.h>

#include <dat2/kdat.h>

#include "handle.h"

struct kdapl_ia;
struct kdapl_evd;
struct kdapl_provider;
struct kdapl_cpuset;

/**
 * struct kdapl_obj - what every DAT object has
 * @hobj: handle table entry (type, index, kref)
 * @context: consumer context (dat_set/get_consumer_context); written and
 *	read whole under @ctx_lock
 * @ctx_lock: protects @context
 * @ia: owning IA, referenced for the object's life; NULL for an IA
 */
struct kdapl_obj {
	struct kdapl_hobj hobj;
	DAT_CONTEXT context;
	spinlock_t ctx_lock;	/* protects context */
	struct kdapl_ia *ia;
};

/**
 * struct kdapl_ia - an open interface adapter (ia.c)
 * @base: handle and consumer context (@base.ia is NULL)
 * @prov: the provider (RDMA device) it was opened on; referenced
 * @node: on @prov's list of IAs, under the provider's lock
 * @async_evd: the IA's asynchronous EVD (created by dat_ia_open when the
 *	consumer asked for one, or the consumer's own); referenced
 * @cpus: the provider's CPU placement set (cpu.h), set at open
 * @children: objects created on this IA and not yet freed
 * @dead: the device went away; calls answer with an error
 * @lock: protects @state, @pzs, @addr and the PZs' device resources; see
 *	registry.h for where it sits in the locking order
 * @state: enum kdapl_ia_state (registry.h)
 * @pzs: the IA's PZs (struct kdapl_pz.node) whose handles exist
 * @own_async_evd: dat_ia_open() created @async_evd (and destroys it)
 * @own_children: how many of @children are the IA's own (its async EVD);
 *	a graceful close fails while there are more
 * @addr: storage for DAT_IA_ATTR.ia_address_ptr: the IA's address as of
 *	the last dat_ia_query()
 * @eps: the IA's endpoints (struct kdapl_ep.node), under @lock
 * @sps: its PSPs and RSPs (struct kdapl_sp.node), under @lock
 * @crs: its connection requests (struct kdapl_cr.node), under @lock
 *
 * ia.c owns the rest of the IA's definition.
 */
struct kdapl_ia {
	struct kdapl_obj base;
	struct kdapl_provider *prov;
	struct list_head node;
	struct kdapl_evd *async_evd;
	struct kdapl_cpuset *cpus;
	atomic_t children;
	bool dead;
	struct mutex lock;	/* see above */
	int state;
	struct list_head pzs;
	bool own_async_evd;
	int own_children;
	struct sockaddr_storage addr;
	struct list_head eps;
	struct list_head sps;
	struct list_head crs;
};

/**
 * struct kdapl_globals - module-wide state
 * @handles: every live DAT handle; see handle.h for its locking
 * @debugfs: /sys/kernel/debug/kdapl, created at init, removed at exit
 *
 * Set up once in kdapl_init() before anything can reach it and torn down
 * in kdapl_exit() after everything that could reach it is gone.
 */
struct kdapl_globals {
	struct kdapl_htable handles;
	struct dentry *debugfs;
};

extern struct kdapl_globals kdapl;

struct kdapl_obj *kdapl_obj_get(void *handle, enum kdapl_htype type);

static inline void kdapl_obj_put(struct kdapl_obj *obj)
{
	kdapl_hobj_put(&obj->hobj);
}

static inline void *kdapl_obj_handle(struct kdapl_obj *obj)
{
	return kdapl_hobj_handle(&obj->hobj);
}

extern bool kdapl_test_fail_work;

/*
 * Test hook for the stress suite (issue 18), as kiwarp's: while
 * test_fail_work is set, kdapl's works and connection event handlers run
 * as a task the fault injectors' task filter (failslab, fail_page_alloc
 * with task-filter=Y) selects, so their allocations - ours and those of
 * the rdma_cm calls they make - fail at the injectors' rate.
 * kdapl_fault_begin() returns what kdapl_fault_end() puts back.
 */
static inline int kdapl_fault_begin(void)
{
#ifdef CONFIG_FAULT_INJECTION
	int was = current->make_it_fail;

	if (unlikely(READ_ONCE(kdapl_test_fail_work)))
		current->make_it_fail = 1;
	return was;
#else
	return 0;
#endif
}

static inline void kdapl_fault_end(int was)
{
#ifdef CONFIG_FAULT_INJECTION
	current->make_it_fail = was;
#endif
}

#endif /* KDAPL_KDAPL_H */
