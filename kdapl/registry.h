/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The registry: one provider per RDMA device (registry.c), and the IA and
 * PZ internals the registry needs to tear an IA down when its device goes
 * away (ia.c, pz.c).
 *
 * Lifetimes. A provider is created when ib_core reports a device (the
 * ib_client's add) and put on the global list, which holds one reference.
 * Every IA opened on it holds another. When the device goes away (the
 * ib_client's remove) the provider leaves the list, every open IA is
 * marked dead and gives back what it holds of the device (today: its
 * LMRs' MRs and DMA mappings, then its PZs' ib_pd), an asynchronous
 * DAT_ASYNC_ERROR_IA_CATASTROPHIC event is posted on each IA's async EVD,
 * the debugfs directory is removed and the list's reference is dropped.
 * The memory stays until the last IA is released; after the remove
 * callback returns nothing touches the ib_device again.
 *
 * Locking, outer first (see also kdapl.h):
 *
 *   kdapl_providers_lock (registry.c) - the list of providers, and
 *	provider->name for readers that do not hold provider->lock
 *   provider->lock - provider->ias, provider->removing, provider->name,
 *	and ia->dead (written under both provider->lock and ia->lock)
 *   ia->lock - ia->state, ia->pzs, pz->pd, ia->addr, ia->dead, pz->lmrs,
 *	the LMRs' device resources (lmr.h)
 *   object spinlocks (evd->lock, obj->ctx_lock, pz->lmr_lock)
 *
 * Device access rule: code may use provider->ibdev only while holding
 * provider->lock with provider->removing false, or ia->lock with ia->dead
 * false and ia->state KDAPL_IA_OPEN (the IA is then on provider->ias and
 * the remove callback waits for ia->lock before it returns).
 */
#ifndef KDAPL_REGISTRY_H
#define KDAPL_REGISTRY_H

#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <rdma/ib_verbs.h>

#include "kdapl.h"

/* kdapl's own version, reported as the DAT provider version. */
#define KDAPL_PROVIDER_VERSION_MAJOR	0
#define KDAPL_PROVIDER_VERSION_MINOR	1

/*
 * Largest consumer private data in a connection request, by transport:
 * iWARP MPA carries 256 bytes (RDMA_MAX_PRIVATE_DATA, what siw accepts),
 * of which the RFC 6581 enhanced connection setup takes 8 for IRD/ORD;
 * an IB CM REQ carries 92 bytes, of which rdma_cm's header takes 36.
 */
#define KDAPL_IW_MAX_PRIVATE_DATA	248
#define KDAPL_IB_MAX_PRIVATE_DATA	56

/**
 * struct kdapl_provider - one RDMA device, as a DAT provider
 * @ibdev: the device; see the device access rule above
 * @name: the device name, which is the IA name; under
 *	kdapl_providers_lock and @lock (a writer holds both)
 * @ref: the global list holds one reference, every IA another
 * @lock: protects @ias, @removing, @name and the IAs' dead flag
 * @removing: the device is going away: no new IA, no device access
 * @ias: open IAs (struct kdapl_ia.node)
 * @node: on the global list of providers, under kdapl_providers_lock
 * @cpus: the participating CPUs for the EVDs of this device's IAs
 * @attrs: the device attributes, copied when the device appeared
 * @max_msg_sz: largest message on port @port, from ib_query_port()
 * @port: the port whose netdev gives the IA address (the first port)
 * @iwarp: @port speaks iWARP
 * @unsig_lends: the driver lends an unsignaled send's pages of at least a
 *	page to TCP and counts it done before they are acknowledged (siw's
 *	sendpage path): such sends stay signaled, so that their completion
 *	still means the memory is free (dto.c)
 * @max_private_data: largest private data of a connection request
 * @vendor: the vendor name reported in DAT_IA_ATTR
 * @debugfs: /sys/kernel/debug/kdapl/providers/<name>
 */
struct kdapl_provider {
	struct ib_device *ibdev;
	char name[IB_DEVICE_NAME_MAX];
	struct kref ref;
	struct mutex lock;	/* see above */
	bool removing;
	struct list_head ias;
	struct list_head node;
	struct kdapl_cpuset *cpus;
	struct ib_device_attr attrs;
	u32 max_msg_sz;
	u32 port;
	bool iwarp;
	bool unsig_lends;
	int max_private_data;
	char vendor[DAT_NAME_MAX_LENGTH];
	struct dentry *debugfs;
};

/**
 * enum kdapl_ia_state - where an IA is in its life (ia->state)
 * @KDAPL_IA_OPENING: dat_ia_open() is still setting it up; its handle
 *	may exist but it takes no consumer objects yet
 * @KDAPL_IA_OPEN: open; on its provider's list
 * @KDAPL_IA_CLOSING: dat_ia_close() has begun; its handle is gone
 */
enum kdapl_ia_state {
	KDAPL_IA_OPENING,
	KDAPL_IA_OPEN,
	KDAPL_IA_CLOSING,
};

/**
 * struct kdapl_pz - a protection zone (pz.c)
 * @base: handle, consumer context, owning IA (referenced; the PZ counts
 *	in ia->children until its handle is freed)
 * @pd: the device protection domain; NULL once the device went away.
 *	Under ia->lock.
 * @node: on ia->pzs while the handle exists, under ia->lock
 * @users: EPs, LMRs, RMRs and SRQs using the PZ; taken under ia->lock
 *	while @node is on the list, dropped anywhere. dat_pz_free() refuses
 *	while it is not 0.
 * @lmr_lock: protects the registration state of the LMRs on @lmrs (see
 *	lmr.h); taken irqsave, inside ia->lock and the endpoint's locks
 * @lmrs: the PZ's LMRs whose handles exist (struct kdapl_lmr.pz_node);
 *	changed under ia->lock and @lmr_lock, read under either
 * @reg_todo: an LMR on @lmrs may be PENDING or STALE (a registration to
 *	post): set under @lmr_lock whenever one becomes so, cleared there
 *	by kdapl_lmr_post_pending() once none is; read without the lock by
 *	the DTO path, which skips the walk while it is false
 */
struct kdapl_pz {
	struct kdapl_obj base;
	struct ib_pd *pd;
	struct list_head node;
	atomic_t users;
	spinlock_t lmr_lock;	/* see above */
	struct list_head lmrs;
	bool reg_todo;
};

/* registry.c */
int kdapl_registry_init(void);
void kdapl_registry_exit(void);
struct kdapl_provider *kdapl_provider_find(const char *name);
void kdapl_provider_put(struct kdapl_provider *prov);
int kdapl_registry_add_device(struct ib_device *ibdev);
void kdapl_registry_remove_device(struct ib_device *ibdev);

/* ia.c */
struct kdapl_ia *kdapl_ia_get(DAT_IA_HANDLE handle);
DAT_RETURN kdapl_ia_child_get(struct kdapl_ia *ia);
void kdapl_ia_child_gone(struct kdapl_ia *ia);
void kdapl_ia_kill(struct kdapl_ia *ia);
void kdapl_ia_release_device(struct kdapl_ia *ia);
void kdapl_ia_destroy_children(struct kdapl_ia *ia);

/* pz.c */
void kdapl_pz_teardown(struct kdapl_pz *pz);
void kdapl_pz_release_device(struct kdapl_pz *pz);

#endif /* KDAPL_REGISTRY_H */
