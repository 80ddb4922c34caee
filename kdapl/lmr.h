/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Local memory regions (lmr.c) and what the endpoint code needs of them.
 *
 * An LMR is memory mapped for its IA's device once, at dat_lmr_kcreate():
 * an sg_table of its pages, DMA-mapped bidirectionally, seen as an array
 * of DMA segments (one for kmalloc'd or other linear memory, usually one
 * per page for vmalloc'd or physical page-array memory).
 *
 * Local access. A triplet (lmr_context, virtual_address, segment_length)
 * becomes one ib_sge (kdapl_lmr_to_sge()): within one DMA segment it is
 * the DMA address with the PD's local_dma_lkey; across segments it needs
 * the LMR's memory registration (below) and is the registered address
 * with the MR's lkey.
 *
 * Remote access and registration. An LMR with remote privileges, or with
 * more than one DMA segment, gets a fast-registration MR at creation
 * (ib_alloc_mr + ib_map_mr_sg, iova = the LMR's registered address), whose
 * rkey is the LMR's rmr_context. The IB_WR_REG_MR that makes it valid
 * needs a QP: kdapl_lmr_post_pending() posts those of a PZ on a QP of the
 * PZ. Registration states (enum kdapl_lmr_reg, under pz->lmr_lock):
 *
 *   NONE       no MR (local access only, one DMA segment)
 *   PENDING    MR known invalid, REG_MR not posted
 *   POSTED     REG_MR posted on @reg_qp, its completion not seen yet
 *   REGISTERED the REG_MR completed successfully
 *   STALE      posted, but the QP went away before its completion was
 *              seen: valid or not, nobody knows; the next registration is
 *              LOCAL_INV + REG_MR (invalidating an invalid MR is allowed)
 *   ERROR      the REG_MR failed (not flushed); never posted again
 *   GONE       the MR and DMA mapping are given back (LMR freed, IA
 *              closed abruptly or device removed)
 *
 * Work requests kdapl posts on the endpoint's QP carry small wr_id values
 * below KDAPL_LMR_WR_ID_LIMIT, never a pointer: REG_MR is signaled with
 * KDAPL_LMR_WR_ID_REG, LOCAL_INV unsignaled with KDAPL_LMR_WR_ID_INV.
 * The CQ poller must hand every work completion with such a wr_id to
 * kdapl_lmr_wc() and make no DTO event of it. A flushed REG_MR was not
 * executed, so its LMR goes back to PENDING and is posted again on the
 * next QP. The QP's send queue and the CQ need room for these work
 * requests (two per pending LMR at most).
 *
 * Lifetime. An LMR is a child of its IA (counted in ia->children, holds a
 * reference on the IA) and a user of its PZ (pz->users and a reference
 * on the PZ; on pz->lmrs while its handle exists). Its lmr_context indexes
 * a global XArray (unique in the module, so per IA too), which lookups
 * read under RCU; the memory is freed an RCU grace period after the last
 * reference. @users counts DTOs (and RMR binds) using the LMR:
 * kdapl_lmr_get()/kdapl_lmr_put(); dat_lmr_free() answers
 * DAT_INVALID_STATE while it is not 0 and sets it to -1 once it wins, so
 * no new use can start.
 *
 * Locking: ia->lock (mutex) -> pz->lmr_lock (spinlock, irqsave). The
 * membership of pz->lmrs changes only under both; the registration state
 * and @reg_qp only under pz->lmr_lock. The endpoint code may call the
 * upcall-safe functions below with its own spinlock held; pz->lmr_lock
 * is taken inside it, and only the driver's post_send runs under it.
 */
#ifndef KDAPL_LMR_H
#define KDAPL_LMR_H

#include <linux/rcupdate.h>
#include <linux/scatterlist.h>
#include <rdma/ib_verbs.h>

#include "registry.h"

#define KDAPL_LMR_WR_ID_REG	0
#define KDAPL_LMR_WR_ID_INV	1
#define KDAPL_LMR_WR_ID_LIMIT	2

enum kdapl_lmr_reg {
	KDAPL_LMR_REG_NONE,
	KDAPL_LMR_REG_PENDING,
	KDAPL_LMR_REG_POSTED,
	KDAPL_LMR_REG_REGISTERED,
	KDAPL_LMR_REG_STALE,
	KDAPL_LMR_REG_ERROR,
	KDAPL_LMR_REG_GONE,
};

/**
 * struct kdapl_lmr_seg - one DMA-contiguous piece of an LMR
 * @off: byte offset of the piece from the LMR's start
 * @dma: its DMA address
 * @len: its length
 */
struct kdapl_lmr_seg {
	u64 off;
	u64 dma;
	u64 len;
};

/**
 * struct kdapl_lmr - a local memory region
 * @base: handle, consumer context, owning IA (referenced)
 * @pz: the PZ (referenced; the LMR counts in @pz->users)
 * @pz_node: on @pz->lmrs while the handle exists
 * @rcu: frees the LMR after the readers of the context XArray
 * @lmr_context: index in the context XArray; never 0
 * @rmr_context: the MR's rkey for an LMR with remote privileges, else 0
 * @mem_type: DAT_MEM_TYPE_VIRTUAL or DAT_MEM_TYPE_PHYSICAL
 * @region: the region description the consumer passed
 * @priv: DAT_MEM_PRIV_* flags
 * @va_type: DAT_VA_TYPE_VA
 * @addr: the registered address: triplets address the LMR as
 *	[@addr, @addr + @length)
 * @length: bytes
 * @local_lkey: the PD's local_dma_lkey, copied at creation
 * @mr_lkey: the MR's lkey, copied at creation (0 without an MR)
 * @access: IB access flags of the MR's registration
 * @sgt: the pages, DMA-mapped while @mapped
 * @mapped: @sgt is DMA-mapped on the IA's device
 * @mr: the fast-registration MR, or NULL
 * @reg: enum kdapl_lmr_reg; under @pz->lmr_lock, read locklessly with
 *	READ_ONCE by the translation
 * @reg_qp: the QP the REG_MR was posted on (POSTED); compared, never
 *	dereferenced; under @pz->lmr_lock
 * @reg_seq: posting order among POSTED LMRs, to match completions
 * @reg_inv: the posted registration began with a LOCAL_INV (from STALE)
 * @users: DTOs and RMR binds using it; -1 once dat_lmr_free() won
 * @nsegs: entries in @segs
 * @segs: the DMA segments, in order; they stay readable until the
 *	RCU-deferred free, but describe a live mapping only while @reg is
 *	not KDAPL_LMR_REG_GONE
 *
 * Everything not marked otherwise is set at creation and never changes;
 * @sgt, @mapped and @mr change only under ia->lock.
 */
struct kdapl_lmr {
	struct kdapl_obj base;
	struct kdapl_pz *pz;
	struct list_head pz_node;
	struct rcu_head rcu;
	DAT_LMR_CONTEXT lmr_context;
	DAT_RMR_CONTEXT rmr_context;
	DAT_MEM_TYPE mem_type;
	DAT_REGION_DESCRIPTION region;
	DAT_MEM_PRIV_FLAGS priv;
	DAT_VA_TYPE va_type;
	u64 addr;
	u64 length;
	u32 local_lkey;
	u32 mr_lkey;
	int access;
	struct sg_table sgt;
	bool mapped;
	struct ib_mr *mr;
	enum kdapl_lmr_reg reg;
	struct ib_qp *reg_qp;
	u64 reg_seq;
	bool reg_inv;
	atomic_t users;
	unsigned int nsegs;
	struct kdapl_lmr_seg segs[];
};

/* For the endpoint code: upcall-safe, never sleep. */
int kdapl_lmr_post_pending(struct kdapl_pz *pz, struct ib_qp *qp);
void kdapl_lmr_wc(struct kdapl_pz *pz, const struct ib_wc *wc);
void kdapl_lmr_qp_gone(struct kdapl_pz *pz, struct ib_qp *qp);
DAT_RETURN kdapl_lmr_to_sge(struct kdapl_pz *pz, const DAT_LMR_TRIPLET *t,
			    struct ib_sge *sge);
struct kdapl_lmr *kdapl_lmr_get(struct kdapl_pz *pz,
				DAT_LMR_CONTEXT lmr_context);
void kdapl_lmr_put(struct kdapl_lmr *lmr);
DAT_RETURN kdapl_lmr_sge_held(const struct kdapl_lmr *lmr,
			      const DAT_LMR_TRIPLET *t, struct ib_sge *sge);
const char *kdapl_lmr_reg_name(enum kdapl_lmr_reg reg);

/* For pz.c: process context, ia->lock held. */
void kdapl_lmr_pz_release_device(struct kdapl_pz *pz);
void kdapl_lmr_pz_teardown(struct kdapl_pz *pz);

/* providers/<device>/lmrs (registry.c creates the file). */
extern const struct file_operations kdapl_lmrs_fops;
struct seq_file;
int kdapl_lmrs_show(struct seq_file *m, void *v);

#endif /* KDAPL_LMR_H */
