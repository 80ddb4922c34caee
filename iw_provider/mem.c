// SPDX-License-Identifier: GPL-2.0
/*
 * kiwarp: protection domains and memory regions.
 *
 * STags: bits 31..8 are an index into kdev->mr_xa (allocated cyclically
 * so a freed STag is not soon reused), bits 7..0 the consumer's key
 * (ib_update_fast_reg_key). STag 0 is the local DMA lkey: any kernel
 * virtual address, local access only; it is never valid from the wire.
 *
 * DMA MRs (get_dma_mr) give local access to all kernel memory and are
 * refused with remote access (no "unsafe global rkey"). Remote access
 * goes through fast-registration MRs: alloc_mr(IB_MR_TYPE_MEM_REG),
 * map_mr_sg, IB_WR_REG_MR, IB_WR_LOCAL_INV / Send with Invalidate.
 *
 * The device uses virtual DMA (no dma_device): the addresses ib_core
 * hands us in SGEs and scatterlists are kernel virtual addresses.
 *
 * Lookups from the data path (kiwarp_mr_get) run under RCU and take a
 * reference; dereg erases the index, drops the registration's reference,
 * waits for the lookups to finish and frees after a grace period.
 */

#include <linux/slab.h>
#include <linux/scatterlist.h>

#include "kiwarp.h"

int kiwarp_alloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	struct kiwarp_dev *kdev = to_kdev(pd->device);

	if (atomic_inc_return(&kdev->num_pd) > KIWARP_MAX_PD) {
		atomic_dec(&kdev->num_pd);
		return -ENOMEM;
	}
	return 0;
}

int kiwarp_dealloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	atomic_dec(&to_kdev(pd->device)->num_pd);
	return 0;
}

static struct kiwarp_mr *kiwarp_mr_new(struct ib_pd *pd,
				       enum kiwarp_mr_kind kind)
{
	struct kiwarp_dev *kdev = to_kdev(pd->device);
	struct kiwarp_mr *mr;
	u32 index;
	int ret;

	if (atomic_inc_return(&kdev->num_mr) > KIWARP_MAX_MR) {
		ret = -ENOMEM;
		goto out_count;
	}
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr) {
		ret = -ENOMEM;
		goto out_count;
	}
	mr->kdev = kdev;
	mr->kind = kind;
	kref_init(&mr->ref);
	init_completion(&mr->done);
	ret = xa_alloc_cyclic_irq(&kdev->mr_xa, &index, mr,
				  XA_LIMIT(1, KIWARP_STAG_IDX_MAX),
				  &kdev->mr_next, GFP_KERNEL);
	if (ret < 0)
		goto out_free;
	mr->index = index;
	mr->stag = index << 8;
	mr->ibmr.lkey = mr->stag;
	mr->ibmr.rkey = mr->stag;
	return mr;

out_free:
	kfree(mr);
out_count:
	atomic_dec(&kdev->num_mr);
	return ERR_PTR(ret);
}

struct ib_mr *kiwarp_get_dma_mr(struct ib_pd *pd, int access)
{
	struct kiwarp_mr *mr;

	if (access & (IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE |
		      IB_ACCESS_REMOTE_ATOMIC))
		return ERR_PTR(-EOPNOTSUPP);
	mr = kiwarp_mr_new(pd, KIWARP_MR_DMA);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->access = access | IB_ACCESS_LOCAL_WRITE;
	mr->length = U64_MAX;
	mr->valid = true;
	return &mr->ibmr;
}

struct ib_mr *kiwarp_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			      u32 max_num_sg)
{
	struct kiwarp_mr *mr;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg || max_num_sg > KIWARP_MAX_FRMR_PAGES)
		return ERR_PTR(-EINVAL);
	mr = kiwarp_mr_new(pd, KIWARP_MR_FRMR);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->pages = kcalloc(max_num_sg, sizeof(*mr->pages), GFP_KERNEL);
	if (!mr->pages) {
		kiwarp_dereg_mr(&mr->ibmr, NULL);
		return ERR_PTR(-ENOMEM);
	}
	mr->max_pages = max_num_sg;
	return &mr->ibmr;
}

struct ib_mr *kiwarp_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
				 u64 virt, int access, struct ib_udata *udata)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static void kiwarp_mr_release(struct kref *ref)
{
	complete(&container_of(ref, struct kiwarp_mr, ref)->done);
}

void kiwarp_mr_put(struct kiwarp_mr *mr)
{
	kref_put(&mr->ref, kiwarp_mr_release);
}
EXPORT_SYMBOL_NS_GPL(kiwarp_mr_put, KIWARP_INTERNAL);

int kiwarp_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct kiwarp_mr *mr = to_kmr(ibmr);
	struct kiwarp_dev *kdev = mr->kdev;

	xa_erase_irq(&kdev->mr_xa, mr->index);
	kiwarp_mr_put(mr);
	wait_for_completion(&mr->done);
	kfree(mr->pages);
	atomic_dec(&kdev->num_mr);
	kfree_rcu(mr, rcu);
	return 0;
}

/**
 * kiwarp_mr_get() - look up a registered STag and take a reference.
 * @kdev: the device
 * @stag: STag from a WR or from the wire (key byte included)
 *
 * Context: any. Return: the MR (put with kiwarp_mr_put()) or NULL when
 * no MR has this index or its key differs.
 */
struct kiwarp_mr *kiwarp_mr_get(struct kiwarp_dev *kdev, u32 stag)
{
	struct kiwarp_mr *mr;

	rcu_read_lock();
	mr = xa_load(&kdev->mr_xa, stag >> 8);
	if (mr && !kref_get_unless_zero(&mr->ref))
		mr = NULL;
	rcu_read_unlock();
	if (mr && READ_ONCE(mr->stag) != stag) {
		kiwarp_mr_put(mr);
		mr = NULL;
	}
	return mr;
}
EXPORT_SYMBOL_NS_GPL(kiwarp_mr_get, KIWARP_INTERNAL);

/**
 * kiwarp_mr_check() - may @len bytes at @addr be accessed through @mr?
 * @mr: a referenced MR
 * @pd: the QP's protection domain
 * @access: IB_ACCESS_* needed (0 for local read)
 * @addr: first byte (tagged offset or virtual address)
 * @len: byte count
 *
 * Return: 0 or the RDMAP error code to report: RDMAP_ECODE_INVALID_STAG
 * (not valid), STAG_NOT_ASSOC (other PD), ACCESS_RIGHTS, BASE_BOUNDS
 * (outside the region; overflow safe).
 */
int kiwarp_mr_check(struct kiwarp_mr *mr, struct ib_pd *pd, int access,
		    u64 addr, u64 len)
{
	if (!READ_ONCE(mr->valid))
		return RDMAP_ECODE_INVALID_STAG;
	if (mr->ibmr.pd != pd)
		return RDMAP_ECODE_STAG_NOT_ASSOC;
	if ((mr->access & access) != access)
		return RDMAP_ECODE_ACCESS_RIGHTS;
	if (mr->kind == KIWARP_MR_DMA)
		return 0;
	if (addr < mr->iova || len > mr->length ||
	    addr - mr->iova > mr->length - len)
		return RDMAP_ECODE_BASE_BOUNDS;
	return 0;
}
EXPORT_SYMBOL_NS_GPL(kiwarp_mr_check, KIWARP_INTERNAL);

/**
 * kiwarp_mr_kva() - kernel address of byte @addr of @mr.
 * @mr: a referenced MR, @addr already checked with kiwarp_mr_check()
 * @addr: the address (tagged offset)
 * @contig: set to the bytes contiguous from there (within the page for
 *	fast-registration MRs, U32_MAX for DMA MRs)
 *
 * Return: the address, or NULL if the page list does not cover @addr.
 */
void *kiwarp_mr_kva(struct kiwarp_mr *mr, u64 addr, u32 *contig)
{
	u64 psize, pos;
	u32 idx;

	if (mr->kind == KIWARP_MR_DMA) {
		*contig = U32_MAX;
		return (void *)(uintptr_t)addr;
	}
	psize = 1ULL << mr->page_shift;
	pos = (addr - mr->iova) + (mr->iova & (psize - 1));
	idx = pos >> mr->page_shift;
	if (idx >= mr->npages)
		return NULL;
	*contig = psize - (pos & (psize - 1));
	return (void *)(uintptr_t)(mr->pages[idx] + (pos & (psize - 1)));
}
EXPORT_SYMBOL_NS_GPL(kiwarp_mr_kva, KIWARP_INTERNAL);

static int kiwarp_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct kiwarp_mr *mr = to_kmr(ibmr);

	if (mr->npages >= mr->max_pages)
		return -ENOMEM;
	mr->pages[mr->npages++] = addr;
	return 0;
}

int kiwarp_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int nents,
		     unsigned int *sg_offset)
{
	struct kiwarp_mr *mr = to_kmr(ibmr);

	if (mr->kind != KIWARP_MR_FRMR)
		return -EINVAL;
	mr->npages = 0;
	mr->page_shift = ilog2(ibmr->page_size);
	return ib_sg_to_pages(ibmr, sg, nents, sg_offset, kiwarp_set_page);
}

/**
 * kiwarp_mr_reg() - IB_WR_REG_MR: make @mr valid under @key.
 * @mr: the MR from the WR
 * @pd: the posting QP's PD
 * @key: the new STag; its index part must be @mr's
 * @access: IB_ACCESS_* of the registration
 *
 * Context: the QP's TX work. Return: 0 or -EINVAL.
 */
int kiwarp_mr_reg(struct kiwarp_mr *mr, struct ib_pd *pd, u32 key,
		  int access)
{
	if (mr->kind != KIWARP_MR_FRMR || mr->ibmr.pd != pd ||
	    (key >> 8) != mr->index || READ_ONCE(mr->valid))
		return -EINVAL;
	mr->access = access;
	mr->iova = mr->ibmr.iova;
	mr->length = mr->ibmr.length;
	WRITE_ONCE(mr->stag, key);
	smp_wmb(); /* fields above before valid */
	WRITE_ONCE(mr->valid, true);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(kiwarp_mr_reg, KIWARP_INTERNAL);

/**
 * kiwarp_mr_invalidate() - local or remote invalidation of @stag.
 * @kdev: the device
 * @pd: the PD of the QP asking
 * @stag: the STag to invalidate
 *
 * Return: 0, or the RDMAP error code (INVALID_STAG, STAG_NOT_ASSOC,
 * CANNOT_INVALIDATE for a DMA MR).
 */
int kiwarp_mr_invalidate(struct kiwarp_dev *kdev, struct ib_pd *pd,
			 u32 stag)
{
	struct kiwarp_mr *mr = kiwarp_mr_get(kdev, stag);
	int ret = 0;

	if (!mr)
		return RDMAP_ECODE_INVALID_STAG;
	if (mr->ibmr.pd != pd)
		ret = RDMAP_ECODE_STAG_NOT_ASSOC;
	else if (mr->kind != KIWARP_MR_FRMR)
		ret = RDMAP_ECODE_CANNOT_INVALIDATE;
	else
		WRITE_ONCE(mr->valid, false);
	kiwarp_mr_put(mr);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(kiwarp_mr_invalidate, KIWARP_INTERNAL);

/**
 * kiwarp_cursor_init() - start walking @nsge SGEs.
 * @c: the cursor
 * @qp: the QP (PD and device)
 * @sge: the SGEs (kept by the caller while the cursor lives)
 * @nsge: their number
 * @access: IB_ACCESS_* each SGE's STag must grant (0: local read)
 * @remote: the STags came from the wire; STag 0 is refused
 */
void kiwarp_cursor_init(struct kiwarp_cursor *c, struct kiwarp_qp *qp,
			const struct ib_sge *sge, u32 nsge, int access,
			bool remote)
{
	c->qp = qp;
	c->sge = sge;
	c->nsge = nsge;
	c->i = 0;
	c->off = 0;
	c->access = access;
	c->remote = remote;
	c->mr = NULL;
	c->ecode = 0;
}

/* A tagged range from the wire: @len bytes at @to under @stag */
void kiwarp_cursor_tagged(struct kiwarp_cursor *c, struct kiwarp_qp *qp,
			  u32 stag, u64 to, u32 len, int access)
{
	c->one.addr = to;
	c->one.length = len;
	c->one.lkey = stag;
	kiwarp_cursor_init(c, qp, &c->one, 1, access, true);
}

void kiwarp_cursor_end(struct kiwarp_cursor *c)
{
	if (c->mr)
		kiwarp_mr_put(c->mr);
	c->mr = NULL;
}

/* Enter sge[c->i]: look up and check its STag. */
static int kiwarp_cursor_enter(struct kiwarp_cursor *c)
{
	const struct ib_sge *s = &c->sge[c->i];
	int ecode;

	if (!s->lkey) {
		if (c->remote) {
			c->ecode = RDMAP_ECODE_INVALID_STAG;
			return -EACCES;
		}
		return 0;
	}
	c->mr = kiwarp_mr_get(c->qp->kdev, s->lkey);
	if (!c->mr) {
		c->ecode = RDMAP_ECODE_INVALID_STAG;
		return -EACCES;
	}
	ecode = kiwarp_mr_check(c->mr, c->qp->ibqp.pd, c->access, s->addr,
				s->length);
	if (ecode) {
		c->ecode = ecode;
		kiwarp_cursor_end(c);
		return -EACCES;
	}
	return 0;
}

/**
 * kiwarp_cursor_piece() - the next contiguous piece of at most @max bytes.
 * @c: the cursor
 * @max: bytes wanted (> 0)
 * @kva: set to the piece's kernel address
 * @len: set to its length (1 .. @max)
 *
 * Return: 0, -ENOENT when the SGEs are used up, -EACCES on a protection
 * error (@c->ecode says which), -EFAULT when a page list is too short.
 */
int kiwarp_cursor_piece(struct kiwarp_cursor *c, u32 max, void **kva,
			u32 *len)
{
	const struct ib_sge *s;
	u32 contig, left;
	void *p;

	for (;;) {
		if (c->i >= c->nsge)
			return -ENOENT;
		s = &c->sge[c->i];
		if (c->off < s->length)
			break;
		kiwarp_cursor_end(c);
		c->i++;
		c->off = 0;
	}
	if (!c->off && !c->mr && s->lkey) {
		int ret = kiwarp_cursor_enter(c);

		if (ret)
			return ret;
	} else if (!c->off && !s->lkey && c->remote) {
		c->ecode = RDMAP_ECODE_INVALID_STAG;
		return -EACCES;
	}
	left = min(s->length - c->off, max);
	if (c->mr) {
		p = kiwarp_mr_kva(c->mr, s->addr + c->off, &contig);
		if (!p)
			return -EFAULT;
		left = min(left, contig);
	} else {
		p = (void *)(uintptr_t)(s->addr + c->off);
	}
	*kva = p;
	*len = left;
	c->off += left;
	return 0;
}

/**
 * kiwarp_sges_check() - check local SGEs before using them.
 * @qp: the QP
 * @sge: the SGEs
 * @nsge: their number
 * @access: IB_ACCESS_LOCAL_WRITE for receive buffers, 0 to read
 *
 * Return: 0 or -EACCES.
 */
int kiwarp_sges_check(struct kiwarp_qp *qp, const struct ib_sge *sge,
		      u32 nsge, int access)
{
	struct kiwarp_cursor c;
	u32 i;

	for (i = 0; i < nsge; i++) {
		if (!sge[i].lkey)
			continue;
		kiwarp_cursor_init(&c, qp, &sge[i], 1, access, false);
		if (kiwarp_cursor_enter(&c))
			return -EACCES;
		kiwarp_cursor_end(&c);
	}
	return 0;
}
