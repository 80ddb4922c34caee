// SPDX-License-Identifier: GPL-2.0
/*
 * Local memory regions: dat_lmr_kcreate, dat_lmr_query, dat_lmr_free,
 * dat_lmr_sync_rdma_read, dat_lmr_sync_rdma_write, and the registration
 * and translation helpers the endpoint code uses. lmr.h describes the
 * object, its registration states, lifetime and locking.
 *
 * debugfs, per provider:
 *   /sys/kernel/debug/kdapl/providers/<name>/lmrs   one line per LMR:
 *     "lmr <handle> ia <handle> pz <handle> lmr_context <n>
 *      rmr_context <n> length <n> priv <hex> segs <n> reg <state>
 *      users <n>"
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/export.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <linux/xarray.h>

#include "lmr.h"

/* lmr_context -> struct kdapl_lmr; read under RCU, written in process context. */
static DEFINE_XARRAY_ALLOC1(kdapl_lmr_xa);
/* Next lmr_context to try (xa_alloc_cyclic), under the XArray's lock. */
static u32 kdapl_lmr_next;
/* Posting order of registrations (struct kdapl_lmr.reg_seq). */
static atomic64_t kdapl_lmr_seq = ATOMIC64_INIT(0);
/* Woken whenever an LMR leaves KDAPL_LMR_REG_POSTED. */
static DECLARE_WAIT_QUEUE_HEAD(kdapl_lmr_wq);

/* The largest LMR: 2^24 pages (64 GiB with 4 KiB pages). */
#define KDAPL_LMR_MAX_PAGES	BIT(24)

/* How long dat_lmr_free() waits for a posted registration to complete. */
#define KDAPL_LMR_FREE_WAIT	HZ

#define KDAPL_MEM_PRIV_REMOTE \
	(DAT_MEM_PRIV_REMOTE_READ_FLAG | DAT_MEM_PRIV_REMOTE_WRITE_FLAG)

#define E_PARAM(n)	DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG##n)

static const char * const kdapl_lmr_reg_names[] = {
	[KDAPL_LMR_REG_NONE] = "none",
	[KDAPL_LMR_REG_PENDING] = "pending",
	[KDAPL_LMR_REG_POSTED] = "posted",
	[KDAPL_LMR_REG_REGISTERED] = "registered",
	[KDAPL_LMR_REG_STALE] = "stale",
	[KDAPL_LMR_REG_ERROR] = "error",
	[KDAPL_LMR_REG_GONE] = "gone",
};

/**
 * kdapl_lmr_reg_name() - the name of a registration state
 * @reg: the state
 *
 * Context: any context.
 * Return: a static string; "?" for an unknown value.
 */
const char *kdapl_lmr_reg_name(enum kdapl_lmr_reg reg)
{
	if ((unsigned int)reg >= ARRAY_SIZE(kdapl_lmr_reg_names))
		return "?";
	return kdapl_lmr_reg_names[reg];
}
EXPORT_SYMBOL_NS_GPL(kdapl_lmr_reg_name, KDAPL_INTERNAL);

static struct kdapl_lmr *kdapl_lmr_of_handle(DAT_LMR_HANDLE handle)
{
	struct kdapl_obj *o = kdapl_obj_get(handle, KDAPL_HT_LMR);

	return o ? container_of(o, struct kdapl_lmr, base) : NULL;
}

static void kdapl_lmr_release(struct kdapl_hobj *h)
{
	struct kdapl_lmr *lmr = container_of(h, struct kdapl_lmr, base.hobj);

	WARN_ON_ONCE(lmr->mr || lmr->mapped);
	kdapl_obj_put(&lmr->pz->base);
	kdapl_obj_put(&lmr->base.ia->base);
	/* Translations may still be reading it under RCU. */
	kvfree_rcu(lmr, rcu);
}

/* The DMA segment holding byte @off (the last one for @off == length). */
static const struct kdapl_lmr_seg *kdapl_lmr_seg_find(const struct kdapl_lmr *lmr,
						      u64 off)
{
	unsigned int lo = 0, hi = lmr->nsegs - 1;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo + 1) / 2;

		if (lmr->segs[mid].off <= off)
			lo = mid;
		else
			hi = mid - 1;
	}
	return &lmr->segs[lo];
}

/*
 * Is [@va, @va + @len) inside the LMR? Sets *@off to the offset of @va.
 * Written so that no sum can wrap.
 */
static bool kdapl_lmr_contains(const struct kdapl_lmr *lmr, u64 va, u64 len,
			       u64 *off)
{
	if (va < lmr->addr)
		return false;
	*off = va - lmr->addr;
	return *off <= lmr->length && len <= lmr->length - *off;
}

/* Translate a triplet of @lmr; caller holds RCU or a reference. */
static DAT_RETURN kdapl_lmr_sge(const struct kdapl_lmr *lmr,
				const DAT_LMR_TRIPLET *t, struct ib_sge *sge)
{
	enum kdapl_lmr_reg reg = READ_ONCE(lmr->reg);
	const struct kdapl_lmr_seg *s;
	u64 off, in_seg;

	if (reg == KDAPL_LMR_REG_GONE)
		return DAT_ERROR(DAT_PRIVILEGES_VIOLATION, DAT_NO_SUBTYPE);
	if (!kdapl_lmr_contains(lmr, t->virtual_address, t->segment_length,
				&off))
		return E_PARAM(3);
	s = kdapl_lmr_seg_find(lmr, off);
	in_seg = off - s->off;
	if (in_seg <= s->len && t->segment_length <= s->len - in_seg) {
		sge->addr = s->dma + in_seg;
		sge->length = t->segment_length;
		sge->lkey = lmr->local_lkey;
		return DAT_SUCCESS;
	}
	/* Across DMA segments: through the MR, addressed like the LMR. */
	if (reg != KDAPL_LMR_REG_POSTED && reg != KDAPL_LMR_REG_REGISTERED)
		return DAT_ERROR(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
	sge->addr = t->virtual_address;
	sge->length = t->segment_length;
	sge->lkey = lmr->mr_lkey;
	return DAT_SUCCESS;
}

/**
 * kdapl_lmr_to_sge() - translate a local triplet for a work request
 * @pz: the PZ of the endpoint that posts
 * @t: the consumer's triplet
 * @sge: filled with the device address, length and lkey
 *
 * A triplet within one DMA segment of its LMR gets the DMA address and
 * the PD's local_dma_lkey; one that crosses segments (vmalloc'd or page
 * array memory) gets the registered address and the MR's lkey, which
 * needs the LMR's registration posted: call kdapl_lmr_post_pending() on
 * the QP first. The local privileges are not checked here (the
 * local_dma_lkey grants local read and write); the device enforces those
 * of the MR. No reference is taken: hold one with kdapl_lmr_get() for as
 * long as the work request is outstanding.
 *
 * Context: any context, upcalls included; does not sleep, takes no lock.
 * Return: DAT_SUCCESS; DAT_PRIVILEGES_VIOLATION for an lmr_context that
 * names no live LMR (unknown, freed, being freed, device gone);
 * DAT_PROTECTION_VIOLATION for an LMR of another PZ;
 * DAT_INVALID_PARAMETER (DAT_INVALID_ARG3, the position of local_iov in
 * the dat_ep_post_* calls) for a segment not inside its LMR;
 * DAT_INVALID_STATE for a segment that needs the registration while it
 * is not posted (or failed). These are the DAT conventions for
 * dat_ep_post_send(): protection is the PZ, privileges the LMR itself.
 */
DAT_RETURN kdapl_lmr_to_sge(struct kdapl_pz *pz, const DAT_LMR_TRIPLET *t,
			    struct ib_sge *sge)
{
	struct kdapl_lmr *lmr;
	DAT_RETURN ret;

	rcu_read_lock();
	lmr = xa_load(&kdapl_lmr_xa, t->lmr_context);
	if (!lmr || atomic_read(&lmr->users) < 0)
		ret = DAT_ERROR(DAT_PRIVILEGES_VIOLATION, DAT_NO_SUBTYPE);
	else if (lmr->pz != pz)
		ret = DAT_ERROR(DAT_PROTECTION_VIOLATION, DAT_NO_SUBTYPE);
	else
		ret = kdapl_lmr_sge(lmr, t, sge);
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL_NS_GPL(kdapl_lmr_to_sge, KDAPL_INTERNAL);

/**
 * kdapl_lmr_sge_held() - translate a triplet of an LMR the caller holds
 * @lmr: from kdapl_lmr_get(), for the triplet's lmr_context
 * @t: the consumer's triplet
 * @sge: filled as by kdapl_lmr_to_sge()
 *
 * The DTO path's one lookup: it holds the LMR anyway, so it translates
 * from the held LMR instead of looking the context up a second time.
 *
 * Context: any context; does not sleep, takes no lock.
 * Return: as kdapl_lmr_to_sge() for an LMR of the caller's PZ.
 */
DAT_RETURN kdapl_lmr_sge_held(const struct kdapl_lmr *lmr,
			      const DAT_LMR_TRIPLET *t, struct ib_sge *sge)
{
	return kdapl_lmr_sge(lmr, t, sge);
}
EXPORT_SYMBOL_NS_GPL(kdapl_lmr_sge_held, KDAPL_INTERNAL);

/**
 * kdapl_lmr_get() - mark an LMR in use by a work request
 * @pz: the PZ the LMR must belong to
 * @lmr_context: the LMR's context, as in a triplet
 *
 * While in use, dat_lmr_free() answers DAT_INVALID_STATE. The returned
 * reference also keeps the LMR's memory; drop both with kdapl_lmr_put()
 * when the work request completed (or was flushed). An abrupt close or
 * device removal still tears the LMR down: the endpoints' QPs must be
 * gone before (their work is then flushed).
 *
 * Context: any context; does not sleep.
 * Return: the LMR, or NULL if no live LMR of @pz has that context or it
 * is being freed.
 */
struct kdapl_lmr *kdapl_lmr_get(struct kdapl_pz *pz,
				DAT_LMR_CONTEXT lmr_context)
{
	struct kdapl_lmr *lmr;

	rcu_read_lock();
	lmr = xa_load(&kdapl_lmr_xa, lmr_context);
	if (lmr && (lmr->pz != pz || !atomic_inc_unless_negative(&lmr->users)))
		lmr = NULL;
	if (lmr && !kref_get_unless_zero(&lmr->base.hobj.ref)) {
		atomic_dec(&lmr->users);
		lmr = NULL;
	}
	rcu_read_unlock();
	return lmr;
}
EXPORT_SYMBOL_NS_GPL(kdapl_lmr_get, KDAPL_INTERNAL);

/**
 * kdapl_lmr_put() - the work request that used an LMR is done
 * @lmr: from kdapl_lmr_get()
 *
 * Context: any context; does not sleep.
 */
void kdapl_lmr_put(struct kdapl_lmr *lmr)
{
	atomic_dec(&lmr->users);
	kdapl_obj_put(&lmr->base);
}
EXPORT_SYMBOL_NS_GPL(kdapl_lmr_put, KDAPL_INTERNAL);

/**
 * kdapl_lmr_post_pending() - post the PZ's pending memory registrations
 * @pz: the PZ
 * @qp: a QP of @pz that can take send work (on siw: connected, RTS)
 *
 * For every LMR of @pz in state PENDING posts a signaled IB_WR_REG_MR
 * (wr_id KDAPL_LMR_WR_ID_REG) and for one in state STALE an unsignaled
 * IB_WR_LOCAL_INV (wr_id KDAPL_LMR_WR_ID_INV) chained before it; the LMR
 * becomes POSTED. Call it before every post on @qp (it is cheap when
 * nothing is pending) and once the QP can send after connecting, so an
 * rkey sent to the peer is valid before the peer can use it: work on one
 * QP executes in order. Completions go to kdapl_lmr_wc().
 *
 * Context: any context, upcalls included; does not sleep. Takes
 * @pz->lmr_lock (irqsave) and calls ib_post_send() under it.
 * Return: 0; or the error of ib_post_send() (e.g. -ENOMEM when the send
 * queue is full, -ENOTCONN before the QP can send): the LMRs posted
 * before stay POSTED, the others keep their state.
 */
int kdapl_lmr_post_pending(struct kdapl_pz *pz, struct ib_qp *qp)
{
	const struct ib_send_wr *bad;
	struct kdapl_lmr *lmr;
	/* set in full below: not zeroed on the DTO path's every call */
	struct ib_send_wr inv __uninitialized;
	struct ib_reg_wr reg __uninitialized;
	unsigned long flags;
	int err = 0;

	/*
	 * Nothing to post (the DTO path, nearly always): no lock, no walk.
	 * An LMR whose creation returned before this post (the consumer's
	 * own ordering: it needs the LMR's context to post with it) set
	 * the flag before that.
	 */
	if (!READ_ONCE(pz->reg_todo))
		return 0;
	spin_lock_irqsave(&pz->lmr_lock, flags);
	list_for_each_entry(lmr, &pz->lmrs, pz_node) {
		bool stale = lmr->reg == KDAPL_LMR_REG_STALE;

		if (lmr->reg != KDAPL_LMR_REG_PENDING && !stale)
			continue;
		memset(&reg, 0, sizeof(reg));
		reg.wr.opcode = IB_WR_REG_MR;
		reg.wr.wr_id = KDAPL_LMR_WR_ID_REG;
		reg.wr.send_flags = IB_SEND_SIGNALED;
		reg.mr = lmr->mr;
		reg.key = lmr->mr->rkey;
		reg.access = lmr->access;
		if (stale) {
			memset(&inv, 0, sizeof(inv));
			inv.opcode = IB_WR_LOCAL_INV;
			inv.wr_id = KDAPL_LMR_WR_ID_INV;
			inv.ex.invalidate_rkey = lmr->mr->rkey;
			inv.next = &reg.wr;
		}
		err = ib_post_send(qp, stale ? &inv : &reg.wr, &bad);
		if (err) {
			/* The invalidation alone went: surely invalid now. */
			if (stale && bad == &reg.wr)
				WRITE_ONCE(lmr->reg, KDAPL_LMR_REG_PENDING);
			break;
		}
		WRITE_ONCE(lmr->reg, KDAPL_LMR_REG_POSTED);
		lmr->reg_qp = qp;
		lmr->reg_inv = stale;
		lmr->reg_seq = atomic64_inc_return(&kdapl_lmr_seq);
	}
	if (!err)	/* every one posted: none left until one changes */
		WRITE_ONCE(pz->reg_todo, false);
	spin_unlock_irqrestore(&pz->lmr_lock, flags);
	return err;
}
EXPORT_SYMBOL_NS_GPL(kdapl_lmr_post_pending, KDAPL_INTERNAL);

/**
 * kdapl_lmr_wc() - a work completion of a registration
 * @pz: the PZ of the QP the completion belongs to
 * @wc: a completion whose wr_id is below KDAPL_LMR_WR_ID_LIMIT
 *
 * Send-queue completions are in posting order, so a REG_MR completion
 * belongs to the oldest POSTED LMR of @pz posted on @wc->qp. Success
 * makes it REGISTERED; a flush means it was not executed, so it goes
 * back to PENDING (STALE if it came with an invalidation that was
 * flushed too) and is posted again on the next QP; any other error makes
 * it ERROR (logged; its remote access never becomes valid). LOCAL_INV
 * completions (only flushes, it is unsignaled) are ignored: its REG_MR
 * completes right after it.
 *
 * Context: any context (the CQ poller's softirq); does not sleep.
 */
void kdapl_lmr_wc(struct kdapl_pz *pz, const struct ib_wc *wc)
{
	struct kdapl_lmr *lmr, *oldest = NULL;
	unsigned long flags;

	if (wc->wr_id != KDAPL_LMR_WR_ID_REG)
		return;
	spin_lock_irqsave(&pz->lmr_lock, flags);
	list_for_each_entry(lmr, &pz->lmrs, pz_node) {
		if (lmr->reg == KDAPL_LMR_REG_POSTED && lmr->reg_qp == wc->qp &&
		    (!oldest || lmr->reg_seq < oldest->reg_seq))
			oldest = lmr;
	}
	if (oldest) {
		enum kdapl_lmr_reg next = KDAPL_LMR_REG_ERROR;

		if (wc->status == IB_WC_SUCCESS)
			next = KDAPL_LMR_REG_REGISTERED;
		else if (wc->status == IB_WC_WR_FLUSH_ERR)
			next = oldest->reg_inv ? KDAPL_LMR_REG_STALE :
						 KDAPL_LMR_REG_PENDING;
		WRITE_ONCE(oldest->reg, next);
		if (next == KDAPL_LMR_REG_STALE || next == KDAPL_LMR_REG_PENDING)
			WRITE_ONCE(pz->reg_todo, true);
		oldest->reg_qp = NULL;
	}
	spin_unlock_irqrestore(&pz->lmr_lock, flags);
	if (oldest && wc->status != IB_WC_SUCCESS &&
	    wc->status != IB_WC_WR_FLUSH_ERR)
		pr_warn_ratelimited("LMR context %u: registration failed: %s\n",
				    oldest->lmr_context,
				    ib_wc_status_msg(wc->status));
	if (oldest)
		wake_up_all(&kdapl_lmr_wq);
}
EXPORT_SYMBOL_NS_GPL(kdapl_lmr_wc, KDAPL_INTERNAL);

/**
 * kdapl_lmr_qp_gone() - a QP is destroyed with registrations unaccounted
 * @pz: the QP's PZ
 * @qp: the QP, about to be or just destroyed
 *
 * LMRs still POSTED on @qp (their completions were never seen: the QP
 * was destroyed without a drain) may or may not be registered; they
 * become STALE, so the next registration invalidates first. After a
 * drain (ib_drain_qp) every completion was seen and this changes nothing;
 * call it anyway when a QP goes.
 *
 * Context: any context; does not sleep.
 */
void kdapl_lmr_qp_gone(struct kdapl_pz *pz, struct ib_qp *qp)
{
	struct kdapl_lmr *lmr;
	unsigned long flags;
	bool woke = false;

	spin_lock_irqsave(&pz->lmr_lock, flags);
	list_for_each_entry(lmr, &pz->lmrs, pz_node) {
		if (lmr->reg == KDAPL_LMR_REG_POSTED && lmr->reg_qp == qp) {
			WRITE_ONCE(lmr->reg, KDAPL_LMR_REG_STALE);
			lmr->reg_qp = NULL;
			woke = true;
		}
	}
	if (woke)
		WRITE_ONCE(pz->reg_todo, true);
	spin_unlock_irqrestore(&pz->lmr_lock, flags);
	if (woke)
		wake_up_all(&kdapl_lmr_wq);
}
EXPORT_SYMBOL_NS_GPL(kdapl_lmr_qp_gone, KDAPL_INTERNAL);

/*
 * Give back the MR and the DMA mapping. Caller holds ia->lock and, if
 * anything is left to give back, the device is still there (the PD too).
 */
static void kdapl_lmr_release_device(struct kdapl_lmr *lmr)
{
	struct kdapl_pz *pz = lmr->pz;
	unsigned long flags;

	lockdep_assert_held(&lmr->base.ia->lock);
	spin_lock_irqsave(&pz->lmr_lock, flags);
	WRITE_ONCE(lmr->reg, KDAPL_LMR_REG_GONE);
	lmr->reg_qp = NULL;
	spin_unlock_irqrestore(&pz->lmr_lock, flags);
	wake_up_all(&kdapl_lmr_wq);

	if (lmr->mr) {
		ib_dereg_mr(lmr->mr);
		lmr->mr = NULL;
	}
	if (lmr->mapped) {
		ib_dma_unmap_sgtable_attrs(pz->pd->device, &lmr->sgt,
					   DMA_BIDIRECTIONAL, 0);
		lmr->mapped = false;
	}
	if (lmr->sgt.sgl)
		sg_free_table(&lmr->sgt);
}

/* The handle is removed; undo everything but the memory. ia->lock held. */
static void kdapl_lmr_unlink(struct kdapl_lmr *lmr)
{
	struct kdapl_pz *pz = lmr->pz;
	unsigned long flags;

	xa_erase(&kdapl_lmr_xa, lmr->lmr_context);
	kdapl_lmr_release_device(lmr);
	spin_lock_irqsave(&pz->lmr_lock, flags);
	list_del_init(&lmr->pz_node);
	spin_unlock_irqrestore(&pz->lmr_lock, flags);
	atomic_dec(&pz->users);
	kdapl_ia_child_gone(lmr->base.ia);
}

/**
 * kdapl_lmr_pz_release_device() - the device goes: give back the LMRs'
 * @pz: a PZ of a dying IA
 *
 * Deregisters the MRs and unmaps the memory of every LMR of @pz; the
 * LMRs stay (their handles answer DAT_INVALID_STATE to queries) until
 * freed. The endpoints' QPs must be gone already.
 *
 * Context: process context, the IA's lock held.
 */
void kdapl_lmr_pz_release_device(struct kdapl_pz *pz)
{
	struct kdapl_lmr *lmr;

	lockdep_assert_held(&pz->base.ia->lock);
	list_for_each_entry(lmr, &pz->lmrs, pz_node)
		kdapl_lmr_release_device(lmr);
}

/**
 * kdapl_lmr_pz_teardown() - destroy a PZ's LMRs (abrupt IA close)
 * @pz: the PZ
 *
 * Like dat_lmr_free() on each, regardless of use. The endpoints' QPs
 * must be gone already.
 *
 * Context: process context, the IA's lock held.
 */
void kdapl_lmr_pz_teardown(struct kdapl_pz *pz)
{
	struct kdapl_lmr *lmr, *tmp;

	lockdep_assert_held(&pz->base.ia->lock);
	list_for_each_entry_safe(lmr, tmp, &pz->lmrs, pz_node) {
		/* On the list means the handle exists: free unlinks under the lock. */
		if (WARN_ON(!kdapl_hobj_remove(&kdapl.handles, &lmr->base.hobj)))
			continue;
		kdapl_lmr_unlink(lmr);
		kdapl_obj_put(&lmr->base);
	}
}

/*
 * The pages of the region, as an sg_table (not yet DMA-mapped). Sets
 * *@addr to the registered address and *@npages to the pages spanned.
 */
static DAT_RETURN kdapl_lmr_pages(DAT_MEM_TYPE type,
				  const DAT_REGION_DESCRIPTION *r, u64 length,
				  struct sg_table *sgt, u64 *addr,
				  unsigned long *npages)
{
	unsigned long va = 0, offset = 0, n, i;
	struct page **pages;
	bool vmalloced = false;
	DAT_RETURN ret = DAT_SUCCESS;
	int err;

	if (type == DAT_MEM_TYPE_VIRTUAL) {
		unsigned long end;

		va = (unsigned long)r->for_va;
		if (!va || check_add_overflow(va, (unsigned long)(length - 1),
					      &end))
			return E_PARAM(3);
		vmalloced = is_vmalloc_addr((void *)va);
		if (vmalloced ? !is_vmalloc_addr((void *)end) :
		    !virt_addr_valid((void *)va) || !virt_addr_valid((void *)end))
			return E_PARAM(3);
		offset = offset_in_page(va);
		n = (end >> PAGE_SHIFT) - (va >> PAGE_SHIFT) + 1;
		*addr = va;
	} else {
		if (!r->for_physical)
			return E_PARAM(3);
		n = DIV_ROUND_UP(length, PAGE_SIZE);
		*addr = r->for_physical[0];
	}
	if (n > KDAPL_LMR_MAX_PAGES)
		return E_PARAM(4);

	pages = kvmalloc_array(n, sizeof(*pages), GFP_KERNEL | __GFP_NOWARN);
	if (!pages)
		return DAT_ERROR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	for (i = 0; i < n; i++) {
		unsigned long pva = va - offset + i * PAGE_SIZE;

		if (type == DAT_MEM_TYPE_PHYSICAL) {
			DAT_PADDR pa = r->for_physical[i];

			if (!PAGE_ALIGNED(pa) || !pfn_valid(PHYS_PFN(pa))) {
				ret = E_PARAM(3);
				goto out;
			}
			pages[i] = pfn_to_page(PHYS_PFN(pa));
		} else if (vmalloced) {
			pages[i] = vmalloc_to_page((void *)pva);
			if (!pages[i]) {
				ret = E_PARAM(3);
				goto out;
			}
		} else {
			pages[i] = virt_to_page((void *)pva);
		}
	}
	err = sg_alloc_table_from_pages(sgt, pages, n, offset, length,
					GFP_KERNEL);
	if (err)
		ret = DAT_ERROR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
	*npages = n;
out:
	kvfree(pages);
	return ret;
}

/* The IB access flags of a registration with DAT privileges @priv. */
static int kdapl_lmr_access(DAT_MEM_PRIV_FLAGS priv)
{
	int access = 0;

	/* The verbs want local write with remote write. */
	if (priv & (DAT_MEM_PRIV_LOCAL_WRITE_FLAG |
		    DAT_MEM_PRIV_REMOTE_WRITE_FLAG))
		access |= IB_ACCESS_LOCAL_WRITE;
	if (priv & DAT_MEM_PRIV_REMOTE_READ_FLAG)
		access |= IB_ACCESS_REMOTE_READ;
	if (priv & DAT_MEM_PRIV_REMOTE_WRITE_FLAG)
		access |= IB_ACCESS_REMOTE_WRITE;
	return access;
}

/*
 * Map @sgt for the PD's device and create the LMR around it, with its
 * MR if it needs one. Caller holds ia->lock with the device alive. On
 * success the LMR owns @sgt; on failure @sgt is unmapped but not freed.
 */
static DAT_RETURN kdapl_lmr_build(struct kdapl_pz *pz, struct sg_table *sgt,
				  unsigned long npages, u64 addr, u64 length,
				  DAT_MEM_PRIV_FLAGS priv,
				  struct kdapl_lmr **out)
{
	struct ib_device *dev = pz->pd->device;
	const struct ib_device_attr *attrs = &dev->attrs;
	struct scatterlist *sg;
	struct kdapl_lmr *lmr;
	DAT_RETURN ret;
	unsigned int i;
	u64 off = 0;
	int n;

	if (ib_dma_map_sgtable_attrs(dev, sgt, DMA_BIDIRECTIONAL, 0))
		return DAT_ERROR(DAT_INSUFFICIENT_RESOURCES,
				 DAT_RESOURCE_MEMORY);
	lmr = kvzalloc(struct_size(lmr, segs, sgt->nents), GFP_KERNEL);
	if (!lmr) {
		ret = DAT_ERROR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY);
		goto unmap;
	}
	lmr->sgt = *sgt;
	lmr->mapped = true;
	lmr->nsegs = sgt->nents;
	for_each_sgtable_dma_sg(sgt, sg, i) {
		lmr->segs[i].off = off;
		lmr->segs[i].dma = sg_dma_address(sg);
		lmr->segs[i].len = sg_dma_len(sg);
		off += sg_dma_len(sg);
	}
	lmr->local_lkey = pz->pd->local_dma_lkey;
	lmr->access = kdapl_lmr_access(priv);
	WRITE_ONCE(lmr->reg, KDAPL_LMR_REG_NONE);
	if (!(priv & KDAPL_MEM_PRIV_REMOTE) && lmr->nsegs == 1)
		goto done;

	/* Remote access, or local access across DMA segments: an MR. */
	if (npages > attrs->max_fast_reg_page_list_len) {
		ret = DAT_ERROR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY_REGION);
		goto free;
	}
	lmr->mr = ib_alloc_mr(pz->pd, IB_MR_TYPE_MEM_REG, npages);
	if (IS_ERR(lmr->mr)) {
		lmr->mr = NULL;
		ret = DAT_ERROR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY_REGION);
		goto free;
	}
	n = ib_map_mr_sg(lmr->mr, sgt->sgl, sgt->nents, NULL, PAGE_SIZE);
	if (n != sgt->nents) {
		ret = DAT_ERROR(DAT_INSUFFICIENT_RESOURCES,
				DAT_RESOURCE_MEMORY_REGION);
		goto dereg;
	}
	/*
	 * Peers and local MR-based SGEs address the region as the consumer
	 * does. ib_map_mr_sg() set the first DMA address; the offset within
	 * the first page is the same in both.
	 */
	lmr->mr->iova = addr;
	lmr->mr_lkey = lmr->mr->lkey;
	if (priv & KDAPL_MEM_PRIV_REMOTE)
		lmr->rmr_context = lmr->mr->rkey;
	WRITE_ONCE(lmr->reg, KDAPL_LMR_REG_PENDING);
done:
	if (off != length)
		pr_warn_once("LMR DMA segments cover %llu of %llu bytes\n",
			     off, length);
	*out = lmr;
	return DAT_SUCCESS;

dereg:
	ib_dereg_mr(lmr->mr);
free:
	kvfree(lmr);
unmap:
	ib_dma_unmap_sgtable_attrs(dev, sgt, DMA_BIDIRECTIONAL, 0);
	return ret;
}

static struct kdapl_pz *kdapl_lmr_pz_get(DAT_PZ_HANDLE handle)
{
	struct kdapl_obj *o = kdapl_obj_get(handle, KDAPL_HT_PZ);

	return o ? container_of(o, struct kdapl_pz, base) : NULL;
}

static DAT_RETURN kdapl_lmr_check_args(DAT_MEM_TYPE mem_type, DAT_VLEN length,
				       DAT_MEM_PRIV_FLAGS privileges,
				       DAT_VA_TYPE va_type,
				       DAT_MEM_OPTIMIZE_FLAGS opt,
				       DAT_LMR_HANDLE *lmr_handle)
{
	switch (mem_type) {
	case DAT_MEM_TYPE_VIRTUAL:
	case DAT_MEM_TYPE_PHYSICAL:
		break;
	case DAT_MEM_TYPE_LMR:
	case DAT_MEM_TYPE_PLATFORM:
	case DAT_MEM_TYPE_IA:
	case DAT_MEM_TYPE_BYPASS:
	case DAT_MEM_TYPE_PHYSICAL_VAR_PAGES:
		return DAT_ERROR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
	default:
		return E_PARAM(2);
	}
	if (!length)
		return E_PARAM(4);
	if (privileges & ~DAT_MEM_PRIV_ALL_FLAG)
		return E_PARAM(6);
	if (va_type == DAT_VA_TYPE_ZB)
		return DAT_ERROR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
	if (va_type != DAT_VA_TYPE_VA)
		return E_PARAM(7);
	if (opt & ~(DAT_MEM_OPTIMIZE_IA | DAT_MEM_OPTIMIZE_MIN_EXPOSURE |
		    DAT_MEM_OPTIMIZE_EXACT_EXPOSURE))
		return E_PARAM(8);
	if (!lmr_handle)
		return E_PARAM(9);
	return DAT_SUCCESS;
}

/**
 * dat_lmr_kcreate() - register kernel memory as a local memory region
 * @ia_handle: the IA
 * @mem_type: DAT_MEM_TYPE_VIRTUAL: @region_description.for_va is a kernel
 *	virtual address of linear-mapped (kmalloc'd, page allocator) or
 *	vmalloc'd memory; DAT_MEM_TYPE_PHYSICAL: .for_physical points to an
 *	array of DIV_ROUND_UP(@length, PAGE_SIZE) page-aligned CPU physical
 *	addresses of RAM pages, the region starting at the first. The other
 *	types answer DAT_MODEL_NOT_SUPPORTED.
 * @region_description: the memory
 * @length: bytes
 * @pz_handle: a PZ of @ia_handle
 * @privileges: DAT_MEM_PRIV_*_FLAG
 * @va_type: DAT_VA_TYPE_VA; DAT_VA_TYPE_ZB is DAT_MODEL_NOT_SUPPORTED
 * @mem_optimization: DAT_MEM_OPTIMIZE_* hint, ignored
 * @lmr_handle: set to the new LMR
 * @lmr_context: if not NULL, set to the context for local triplets
 * @rmr_context: if not NULL, set to the rkey peers use for RDMA to the
 *	LMR, or 0 without remote privileges
 * @registered_length: if not NULL, set to @length
 * @registered_address: if not NULL, set to the address triplets (local
 *	and remote) use for the first byte: for_va, or for_physical[0]
 *
 * The memory is DMA-mapped for the device at once (bidirectionally); it
 * must stay allocated until the LMR is freed. An LMR with remote
 * privileges (or vmalloc'd memory spanning pages) also gets a
 * fast-registration MR of at most max_fast_reg_page_list_len pages,
 * which becomes valid once posted on a QP of the PZ (see
 * kdapl_lmr_post_pending()); until then peers cannot use the rkey.
 *
 * Context: process context; sleeps.
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE (DAT_INVALID_HANDLE_IA,
 * DAT_INVALID_HANDLE_PZ also for a PZ of another IA); DAT_INVALID_STATE if
 * the device went away; DAT_INVALID_PARAMETER (DAT_INVALID_ARG2 unknown
 * @mem_type, ARG3 memory that is not as described, ARG4 zero @length or
 * more than 2^24 pages, ARG6 unknown privilege bits, ARG7 unknown @va_type, ARG8
 * unknown optimization bits, ARG9 NULL @lmr_handle);
 * DAT_MODEL_NOT_SUPPORTED; DAT_INSUFFICIENT_RESOURCES (DAT_RESOURCE_MEMORY,
 * DAT_RESOURCE_MEMORY_REGION when the device has no MR or the region has
 * too many pages for one).
 */
DAT_RETURN dat_lmr_kcreate(DAT_IA_HANDLE ia_handle, DAT_MEM_TYPE mem_type,
			   DAT_REGION_DESCRIPTION region_description,
			   DAT_VLEN length, DAT_PZ_HANDLE pz_handle,
			   DAT_MEM_PRIV_FLAGS privileges, DAT_VA_TYPE va_type,
			   DAT_MEM_OPTIMIZE_FLAGS mem_optimization,
			   DAT_LMR_HANDLE *lmr_handle,
			   DAT_LMR_CONTEXT *lmr_context,
			   DAT_RMR_CONTEXT *rmr_context,
			   DAT_VLEN *registered_length,
			   DAT_VADDR *registered_address)
{
	struct kdapl_lmr *lmr = NULL;
	struct sg_table sgt = {};
	unsigned long npages = 0;
	struct kdapl_pz *pz;
	struct kdapl_ia *ia;
	DAT_RETURN ret;
	u64 addr = 0;
	u32 id;

	ia = kdapl_ia_get(ia_handle);
	if (!ia)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	pz = kdapl_lmr_pz_get(pz_handle);
	if (!pz || pz->base.ia != ia) {
		ret = DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
		goto put_pz;
	}
	ret = kdapl_lmr_check_args(mem_type, length, privileges, va_type,
				   mem_optimization, lmr_handle);
	if (ret != DAT_SUCCESS)
		goto put_pz;
	ret = kdapl_lmr_pages(mem_type, &region_description, length, &sgt,
			      &addr, &npages);
	if (ret != DAT_SUCCESS)
		goto put_pz;

	mutex_lock(&ia->lock);
	/* Open and not dead: the device stays until we unlock. */
	ret = kdapl_ia_child_get(ia);
	if (ret != DAT_SUCCESS)
		goto unlock;
	if (list_empty(&pz->node) || !pz->pd) {
		ret = DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
		goto child_gone;
	}
	ret = kdapl_lmr_build(pz, &sgt, npages, addr, length, privileges,
			      &lmr);
	if (ret != DAT_SUCCESS)
		goto child_gone;
	/* From here the LMR owns the sg_table, mapping and MR. */
	spin_lock_init(&lmr->base.ctx_lock);
	INIT_LIST_HEAD(&lmr->pz_node);
	atomic_set(&lmr->users, 0);
	lmr->base.ia = ia;		/* the child reference */
	lmr->pz = pz;
	lmr->mem_type = mem_type;
	lmr->region = region_description;
	lmr->priv = privileges;
	lmr->va_type = va_type;
	lmr->addr = addr;
	lmr->length = length;

	if (xa_alloc_cyclic(&kdapl_lmr_xa, &id, lmr, XA_LIMIT(1, U32_MAX),
			    &kdapl_lmr_next, GFP_KERNEL) < 0) {
		ret = DAT_ERROR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
		goto destroy;
	}
	lmr->lmr_context = id;
	if (kdapl_hobj_add(&kdapl.handles, &lmr->base.hobj, KDAPL_HT_LMR,
			   kdapl_lmr_release, GFP_KERNEL)) {
		xa_erase(&kdapl_lmr_xa, id);
		/* A translation may have found it meanwhile. */
		synchronize_rcu();
		ret = DAT_ERROR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
		goto destroy;
	}
	/* The PZ's user reference, and the LMR's on the PZ's memory. */
	atomic_inc(&pz->users);
	kdapl_hobj_ref(&pz->base.hobj);
	spin_lock_irq(&pz->lmr_lock);
	list_add_tail(&lmr->pz_node, &pz->lmrs);
	if (lmr->reg == KDAPL_LMR_REG_PENDING)
		WRITE_ONCE(pz->reg_todo, true);
	spin_unlock_irq(&pz->lmr_lock);
	mutex_unlock(&ia->lock);

	*lmr_handle = kdapl_obj_handle(&lmr->base);
	if (lmr_context)
		*lmr_context = lmr->lmr_context;
	if (rmr_context)
		*rmr_context = lmr->rmr_context;
	if (registered_length)
		*registered_length = length;
	if (registered_address)
		*registered_address = addr;
	kdapl_obj_put(&pz->base);
	kdapl_obj_put(&ia->base);
	return DAT_SUCCESS;

destroy:
	/* Not yet visible to anybody: undo by hand. */
	if (lmr->mr)
		ib_dereg_mr(lmr->mr);
	ib_dma_unmap_sgtable_attrs(pz->pd->device, &lmr->sgt,
				   DMA_BIDIRECTIONAL, 0);
	kvfree(lmr);
child_gone:
	/* Undo kdapl_ia_child_get(); the lookup reference keeps the IA. */
	kdapl_ia_child_gone(ia);
	kdapl_obj_put(&ia->base);
unlock:
	mutex_unlock(&ia->lock);
	sg_free_table(&sgt);
put_pz:
	if (pz)
		kdapl_obj_put(&pz->base);
	kdapl_obj_put(&ia->base);
	return ret;
}
EXPORT_SYMBOL_GPL(dat_lmr_kcreate);

/**
 * dat_lmr_query() - query a local memory region
 * @lmr_handle: the LMR
 * @lmr_param_mask: DAT_LMR_FIELD_* bits wanted
 * @lmr_param: the requested fields are filled in, the others left alone
 *
 * registered_size and registered_address are the LMR's length and
 * address; lmr_state says no FMR support and not bound.
 *
 * Context: any context; does not sleep.
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE (DAT_INVALID_HANDLE_LMR);
 * DAT_INVALID_PARAMETER (unknown mask bits: DAT_INVALID_ARG2, NULL
 * @lmr_param: DAT_INVALID_ARG3); DAT_INVALID_STATE if the device went
 * away.
 */
DAT_RETURN dat_lmr_query(DAT_LMR_HANDLE lmr_handle,
			 DAT_LMR_PARAM_MASK lmr_param_mask,
			 DAT_LMR_PARAM *lmr_param)
{
	DAT_LMR_PARAM_MASK m = lmr_param_mask;
	DAT_LMR_PARAM *p = lmr_param;
	DAT_RETURN ret = DAT_SUCCESS;
	struct kdapl_lmr *lmr;

	lmr = kdapl_lmr_of_handle(lmr_handle);
	if (!lmr)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR);
	if (m & ~DAT_LMR_FIELD_ALL) {
		ret = E_PARAM(2);
		goto out;
	}
	if (!p) {
		ret = E_PARAM(3);
		goto out;
	}
	if (READ_ONCE(lmr->base.ia->dead)) {
		ret = DAT_ERROR(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
		goto out;
	}
	if (m & DAT_LMR_FIELD_IA_HANDLE)
		p->ia_handle = kdapl_obj_handle(&lmr->base.ia->base);
	if (m & DAT_LMR_FIELD_MEM_TYPE)
		p->mem_type = lmr->mem_type;
	if (m & DAT_LMR_FIELD_REGION_DESC)
		p->region_desc = lmr->region;
	if (m & DAT_LMR_FIELD_LENGTH)
		p->length = lmr->length;
	if (m & DAT_LMR_FIELD_PZ_HANDLE)
		p->pz_handle = kdapl_obj_handle(&lmr->pz->base);
	if (m & DAT_LMR_FIELD_MEM_PRIV)
		p->mem_priv = lmr->priv;
	if (m & DAT_LMR_FIELD_VA_TYPE)
		p->va_type = lmr->va_type;
	if (m & DAT_LMR_FIELD_LMR_CONTEXT)
		p->lmr_context = lmr->lmr_context;
	if (m & DAT_LMR_FIELD_RMR_CONTEXT)
		p->rmr_context = lmr->rmr_context;
	if (m & DAT_LMR_FIELD_REGISTERED_SIZE)
		p->registered_size = lmr->length;
	if (m & DAT_LMR_FIELD_REGISTERED_ADDRESS)
		p->registered_address = lmr->addr;
	if (m & DAT_LMR_FIELD_LMR_STATE) {
		p->lmr_state.fmr_support = DAT_FALSE;
		p->lmr_state.bound = DAT_FALSE;
	}
out:
	kdapl_obj_put(&lmr->base);
	return ret;
}
EXPORT_SYMBOL_GPL(dat_lmr_query);

/**
 * dat_lmr_free() - deregister and destroy a local memory region
 * @lmr_handle: the LMR
 *
 * Refused while work requests use the LMR (kdapl_lmr_get()). A
 * registration posted on a QP and not completed yet is waited for up to
 * a second (the MR cannot be deregistered under a queued REG_MR). Then
 * the handle goes, the MR is deregistered and the memory unmapped; the
 * consumer may free the memory when this returns. Works on an LMR whose
 * device went away.
 *
 * Context: process context; sleeps.
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE (DAT_INVALID_HANDLE_LMR, also
 * when another free or the IA's abrupt close got there first);
 * DAT_INVALID_STATE (DAT_INVALID_STATE_LMR_IN_USE) while in use or while
 * the registration stays posted.
 */
DAT_RETURN dat_lmr_free(DAT_LMR_HANDLE lmr_handle)
{
	DAT_RETURN ret = DAT_SUCCESS;
	struct kdapl_lmr *lmr;
	struct kdapl_ia *ia;
	bool removed = false;
	int users;

	lmr = kdapl_lmr_of_handle(lmr_handle);
	if (!lmr)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR);
	ia = lmr->base.ia;

	/* No new use from here; -1 also tells a concurrent free. */
	users = atomic_cmpxchg(&lmr->users, 0, -1);
	if (users) {
		ret = users < 0 ?
			DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR) :
			DAT_ERROR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_LMR_IN_USE);
		goto put;
	}
	wait_event_timeout(kdapl_lmr_wq,
			   READ_ONCE(lmr->reg) != KDAPL_LMR_REG_POSTED,
			   KDAPL_LMR_FREE_WAIT);

	mutex_lock(&ia->lock);
	if (list_empty(&lmr->pz_node)) {
		/* The IA's abrupt close took it. */
		ret = DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR);
	} else if (READ_ONCE(lmr->reg) == KDAPL_LMR_REG_POSTED) {
		/* Still queued; only post_pending sets POSTED, not from here. */
		atomic_set(&lmr->users, 0);
		ret = DAT_ERROR(DAT_INVALID_STATE, DAT_INVALID_STATE_LMR_IN_USE);
	} else if (!kdapl_hobj_remove(&kdapl.handles, &lmr->base.hobj)) {
		ret = DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR);
	} else {
		kdapl_lmr_unlink(lmr);
		removed = true;
	}
	mutex_unlock(&ia->lock);

	if (removed)
		kdapl_obj_put(&lmr->base);
put:
	kdapl_obj_put(&lmr->base);
	return ret;
}
EXPORT_SYMBOL_GPL(dat_lmr_free);

/* Sync [@off, @off + @left) of @lmr, segment by segment. */
static void kdapl_lmr_sync_range(const struct kdapl_lmr *lmr, u64 off,
				 u64 left, bool for_device)
{
	struct ib_device *dev = lmr->pz->pd->device;
	const struct kdapl_lmr_seg *s;

	for (s = kdapl_lmr_seg_find(lmr, off); left; s++) {
		u64 in = off - s->off;
		u64 len = min(left, s->len - in);

		if (for_device)
			ib_dma_sync_single_for_device(dev, s->dma + in, len,
						      DMA_BIDIRECTIONAL);
		else
			ib_dma_sync_single_for_cpu(dev, s->dma + in, len,
						   DMA_BIDIRECTIONAL);
		off += len;
		left -= len;
	}
}

/*
 * Validate every triplet (an LMR of @ia, inside it), then sync each for
 * the CPU or the device. Caller holds ia->lock with the device alive, so
 * no LMR of @ia is unlinked meanwhile.
 */
static DAT_RETURN kdapl_lmr_sync(struct kdapl_ia *ia,
				 const DAT_LMR_TRIPLET *t, DAT_VLEN n,
				 bool for_device)
{
	struct kdapl_lmr *lmr;
	DAT_VLEN i;
	u64 off;

	for (i = 0; i < n; i++) {
		lmr = xa_load(&kdapl_lmr_xa, t[i].lmr_context);
		if (!lmr || lmr->base.ia != ia || !lmr->mapped ||
		    !kdapl_lmr_contains(lmr, t[i].virtual_address,
					t[i].segment_length, &off))
			return E_PARAM(2);
	}
	for (i = 0; i < n; i++) {
		lmr = xa_load(&kdapl_lmr_xa, t[i].lmr_context);
		kdapl_lmr_contains(lmr, t[i].virtual_address,
				   t[i].segment_length, &off);
		kdapl_lmr_sync_range(lmr, off, t[i].segment_length,
				     for_device);
	}
	return DAT_SUCCESS;
}

static DAT_RETURN kdapl_lmr_sync_call(DAT_IA_HANDLE ia_handle,
				      const DAT_LMR_TRIPLET *segs,
				      DAT_VLEN n, bool for_device)
{
	struct kdapl_ia *ia = kdapl_ia_get(ia_handle);
	DAT_RETURN ret;

	if (!ia)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	if (n && !segs) {
		kdapl_obj_put(&ia->base);
		return E_PARAM(2);
	}
	mutex_lock(&ia->lock);
	if (ia->dead)
		ret = DAT_ERROR(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
	else if (ia->state != KDAPL_IA_OPEN)
		ret = DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	else
		ret = kdapl_lmr_sync(ia, segs, n, for_device);
	mutex_unlock(&ia->lock);
	kdapl_obj_put(&ia->base);
	return ret;
}

/**
 * dat_lmr_sync_rdma_read() - make local memory ready for peers to read
 * @ia_handle: the IA
 * @local_segments: triplets of LMRs of the IA, inside their LMRs
 * @num_segments: entries in @local_segments
 *
 * Syncs the DMA mapping of each segment for the device
 * (ib_dma_sync_single_for_device). Every triplet is checked before any is
 * synced. kdapl reports lmr_sync_req false: on cache-coherent platforms
 * this is a no-op, elsewhere it is what makes CPU writes visible.
 *
 * Context: process context; sleeps (the IA's lock).
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE (DAT_INVALID_HANDLE_IA);
 * DAT_INVALID_PARAMETER (DAT_INVALID_ARG2: NULL @local_segments, or a
 * triplet naming no LMR of the IA or reaching outside it);
 * DAT_INVALID_STATE if the device went away.
 */
DAT_RETURN dat_lmr_sync_rdma_read(DAT_IA_HANDLE ia_handle,
				  const DAT_LMR_TRIPLET *local_segments,
				  DAT_VLEN num_segments)
{
	return kdapl_lmr_sync_call(ia_handle, local_segments, num_segments,
				   true);
}
EXPORT_SYMBOL_GPL(dat_lmr_sync_rdma_read);

/**
 * dat_lmr_sync_rdma_write() - make what peers wrote visible to the CPU
 * @ia_handle: the IA
 * @local_segments: triplets of LMRs of the IA, inside their LMRs
 * @num_segments: entries in @local_segments
 *
 * Syncs the DMA mapping of each segment for the CPU
 * (ib_dma_sync_single_for_cpu); otherwise as dat_lmr_sync_rdma_read().
 *
 * Context: process context; sleeps (the IA's lock).
 * Return: as dat_lmr_sync_rdma_read().
 */
DAT_RETURN dat_lmr_sync_rdma_write(DAT_IA_HANDLE ia_handle,
				   const DAT_LMR_TRIPLET *local_segments,
				   DAT_VLEN num_segments)
{
	return kdapl_lmr_sync_call(ia_handle, local_segments, num_segments,
				   false);
}
EXPORT_SYMBOL_GPL(dat_lmr_sync_rdma_write);

static void kdapl_lmr_show(struct seq_file *m, struct kdapl_lmr *lmr)
{
	seq_printf(m, "lmr %#lx ia %#lx pz %#lx lmr_context %u rmr_context %#x length %llu priv %#x segs %u reg %s users %d\n",
		   (unsigned long)kdapl_obj_handle(&lmr->base),
		   (unsigned long)kdapl_obj_handle(&lmr->base.ia->base),
		   (unsigned long)kdapl_obj_handle(&lmr->pz->base),
		   lmr->lmr_context, lmr->rmr_context, lmr->length,
		   (unsigned int)lmr->priv, lmr->nsegs,
		   kdapl_lmr_reg_name(READ_ONCE(lmr->reg)),
		   atomic_read(&lmr->users));
}

/**
 * kdapl_lmrs_show() - print providers/<device>/lmrs
 * @m: the seq_file; @m->private is the provider
 * @v: unused
 *
 * Exported for the KUnit suite, which cannot open debugfs files from
 * its kernel thread.
 *
 * Context: process context; takes the provider's and the IAs' locks.
 * Return: 0.
 */
int kdapl_lmrs_show(struct seq_file *m, void *v)
{
	struct kdapl_provider *prov = m->private;
	struct kdapl_lmr *lmr;
	struct kdapl_ia *ia;
	struct kdapl_pz *pz;

	mutex_lock(&prov->lock);
	list_for_each_entry(ia, &prov->ias, node) {
		mutex_lock(&ia->lock);
		list_for_each_entry(pz, &ia->pzs, node)
			list_for_each_entry(lmr, &pz->lmrs, pz_node)
				kdapl_lmr_show(m, lmr);
		mutex_unlock(&ia->lock);
	}
	mutex_unlock(&prov->lock);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(kdapl_lmrs_show, KDAPL_INTERNAL);

static int lmrs_open(struct inode *inode, struct file *file)
{
	return single_open(file, kdapl_lmrs_show, inode->i_private);
}

const struct file_operations kdapl_lmrs_fops = {
	.owner = THIS_MODULE,
	.open = lmrs_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};
