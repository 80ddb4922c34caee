// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite kdapl_lmr: local and remote memory regions (kdapl/lmr.c,
 * rmr.c) against the real siw devices of the test guest (siwA in the
 * root namespace, siwB in namespace b).
 *
 * siw maps DMA to kernel virtual addresses, so a translated SGE can be
 * compared with the buffer's address. Posting registrations needs a QP
 * that can send; the suite uses a real siw QP that is not connected (the
 * post must fail and leave the LMR pending) and a fake QP whose
 * post_send records the work requests, to walk the registration states.
 *
 * Every IA a case opens is closed abruptly at the end of the case, and
 * vmalloc'd memory and pages are freed after that, so a failing case
 * leaks nothing.
 */

#include <kunit/test.h>
#include <linux/seq_file.h>
#include <linux/completion.h>
#include <linux/gfp.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/sort.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "../kdapl/lmr.h"

#include "kdapl_test.h"

MODULE_IMPORT_NS(KDAPL_INTERNAL);

#define MAX_IAS		8
#define MAX_VBUFS	4
#define MAX_WRS		8
#define MAX_OBJS	4
#define MAX_VPAGES	8

struct rec_wr {
	enum ib_wr_opcode opcode;
	u64 wr_id;
	int send_flags;
	struct ib_mr *mr;
	u32 key;
	int access;
	u32 inv_rkey;
};

struct lmr_ctx {
	DAT_IA_HANDLE ia[MAX_IAS];
	int nia;
	void *vbuf[MAX_VBUFS];
	int nvbuf;
	struct page *pages[2];
	struct page *vpages[MAX_VPAGES];	/* behind @vmap */
	int nvpages;
	void *vmap;
	struct kdapl_obj *obj[MAX_OBJS];	/* references to drop */
	int nobj;
	struct ib_device *dev;		/* a device reference to drop */
	bool removed;			/* @dev was taken away: give it back */
	/* the siwA -> siwB connection of lmr_remote_rdma */
	struct rdma_cm_id *listen, *id_a, *id_b;
	struct ib_cq *cq_a, *cq_b;
	struct ib_pd *pd_b;
	struct completion est_a, est_b, step_a;
	int event_a;
	bool qp_a, qp_b;
	/* the fake QP */
	struct ib_device *fake_dev;
	struct ib_qp *fake_qp;
	struct rec_wr wr[MAX_WRS];
	int nwr;
	int fail_at;			/* post_send fails at this WR; -1 never */
};

static struct lmr_ctx *cur;		/* the running case's, for the fake */

#define E_MODEL		DAT_ERROR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE)
#define E_PRIV		DAT_ERROR(DAT_PRIVILEGES_VIOLATION, DAT_NO_SUBTYPE)
#define E_PROT		DAT_ERROR(DAT_PROTECTION_VIOLATION, DAT_NO_SUBTYPE)

#define SIW_A	"siwA"
#define SIW_B	"siwB"

#define PRIV_LOCAL	(DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_LOCAL_WRITE_FLAG)
#define PRIV_ALL	DAT_MEM_PRIV_ALL_FLAG

static struct lmr_ctx *ctx_of(struct kunit *test)
{
	return test->priv;
}

static DAT_IA_HANDLE open_ia(struct kunit *test, char *name)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_IA_HANDLE ia = DAT_HANDLE_NULL;
	struct lmr_ctx *ctx = ctx_of(test);

	ASSERT_OK(test, dat_ia_open(name, 8, &async, &ia));
	KUNIT_ASSERT_LT(test, ctx->nia, MAX_IAS);
	ctx->ia[ctx->nia++] = ia;
	return ia;
}

static DAT_PZ_HANDLE create_pz(struct kunit *test, DAT_IA_HANDLE ia)
{
	DAT_PZ_HANDLE pz = DAT_HANDLE_NULL;

	ASSERT_OK(test, dat_pz_create(ia, &pz));
	return pz;
}

/* The PZ behind a handle; the reference is dropped at the end of the case. */
static struct kdapl_pz *pz_of(struct kunit *test, DAT_PZ_HANDLE h)
{
	struct lmr_ctx *ctx = ctx_of(test);
	struct kdapl_obj *o;

	KUNIT_ASSERT_LT(test, ctx->nobj, MAX_OBJS);
	o = kdapl_obj_get(h, KDAPL_HT_PZ);
	KUNIT_ASSERT_NOT_NULL(test, o);
	ctx->obj[ctx->nobj++] = o;
	return container_of(o, struct kdapl_pz, base);
}

static void *kbuf(struct kunit *test, size_t len)
{
	void *p = kunit_kzalloc(test, len, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	return p;
}

static void *vbuf(struct kunit *test, size_t len)
{
	struct lmr_ctx *ctx = ctx_of(test);
	void *p;

	KUNIT_ASSERT_LT(test, ctx->nvbuf, MAX_VBUFS);
	p = vzalloc(len);
	KUNIT_ASSERT_NOT_NULL(test, p);
	ctx->vbuf[ctx->nvbuf++] = p;
	return p;
}

static int pfn_desc(const void *a, const void *b)
{
	unsigned long pa = page_to_pfn(*(struct page * const *)a);
	unsigned long pb = page_to_pfn(*(struct page * const *)b);

	return pa < pb ? 1 : pa > pb ? -1 : 0;
}

/*
 * @n pages mapped virtually contiguous in falling physical order, so no
 * two neighbours are physically contiguous: n DMA segments on siw.
 */
static void *scattered(struct kunit *test, unsigned int n)
{
	struct lmr_ctx *ctx = ctx_of(test);
	unsigned int i;
	void *va;

	KUNIT_ASSERT_NULL(test, ctx->vmap);
	KUNIT_ASSERT_LE(test, n, (unsigned int)MAX_VPAGES);
	for (i = 0; i < n; i++) {
		ctx->vpages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		KUNIT_ASSERT_NOT_NULL(test, ctx->vpages[i]);
		ctx->nvpages++;
	}
	sort(ctx->vpages, n, sizeof(ctx->vpages[0]), pfn_desc, NULL);
	va = vmap(ctx->vpages, n, VM_MAP, PAGE_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, va);
	ctx->vmap = va;
	return va;
}

struct lmr_out {
	DAT_LMR_HANDLE h;
	DAT_LMR_CONTEXT lctx;
	DAT_RMR_CONTEXT rctx;
	DAT_VLEN len;
	DAT_VADDR addr;
};

static DAT_RETURN lmr_create(DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz,
			     DAT_MEM_TYPE type, DAT_REGION_DESCRIPTION r,
			     u64 len, DAT_MEM_PRIV_FLAGS priv,
			     struct lmr_out *o)
{
	memset(o, 0, sizeof(*o));
	return dat_lmr_kcreate(ia, type, r, len, pz, priv, DAT_VA_TYPE_VA,
			       DAT_MEM_OPTIMIZE_DONT_CARE, &o->h, &o->lctx,
			       &o->rctx, &o->len, &o->addr);
}

static struct lmr_out va_lmr(struct kunit *test, DAT_IA_HANDLE ia,
			     DAT_PZ_HANDLE pz, void *va, u64 len,
			     DAT_MEM_PRIV_FLAGS priv)
{
	DAT_REGION_DESCRIPTION r = { .for_va = va };
	struct lmr_out o;

	ASSERT_OK(test, lmr_create(ia, pz, DAT_MEM_TYPE_VIRTUAL, r, len, priv,
				   &o));
	KUNIT_EXPECT_NOT_NULL(test, o.h);
	KUNIT_EXPECT_NE(test, o.lctx, 0U);
	KUNIT_EXPECT_EQ(test, o.len, len);
	KUNIT_EXPECT_EQ(test, o.addr, (u64)(uintptr_t)va);
	return o;
}

static DAT_LMR_TRIPLET trip(DAT_LMR_CONTEXT c, const void *va, u32 len)
{
	DAT_LMR_TRIPLET t = {
		.virtual_address = (uintptr_t)va,
		.segment_length = len,
		.lmr_context = c,
	};

	return t;
}

static DAT_RETURN to_sge(struct kdapl_pz *pz, DAT_LMR_CONTEXT c, u64 va,
			 u32 len, struct ib_sge *sge)
{
	DAT_LMR_TRIPLET t = {
		.virtual_address = va,
		.segment_length = len,
		.lmr_context = c,
	};

	memset(sge, 0x5a, sizeof(*sge));
	return kdapl_lmr_to_sge(pz, &t, sge);
}

static enum kdapl_lmr_reg reg_state(struct kunit *test, struct kdapl_pz *pz,
				    DAT_LMR_CONTEXT c)
{
	struct kdapl_lmr *lmr = kdapl_lmr_get(pz, c);
	enum kdapl_lmr_reg reg;

	KUNIT_ASSERT_NOT_NULL(test, lmr);
	reg = READ_ONCE(lmr->reg);
	kdapl_lmr_put(lmr);
	return reg;
}

static bool handle_valid(DAT_HANDLE h)
{
	DAT_HANDLE_TYPE type;

	return dat_get_handle_type(h, &type) == DAT_SUCCESS;
}

/* ---- the fake QP ------------------------------------------------------ */

static int fake_post_send(struct ib_qp *qp, const struct ib_send_wr *wr,
			  const struct ib_send_wr **bad)
{
	for (; wr; wr = wr->next) {
		struct rec_wr *r;

		if (cur->nwr == cur->fail_at || cur->nwr == MAX_WRS) {
			*bad = wr;
			return -ENOMEM;
		}
		r = &cur->wr[cur->nwr++];
		r->opcode = wr->opcode;
		r->wr_id = wr->wr_id;
		r->send_flags = wr->send_flags;
		if (wr->opcode == IB_WR_REG_MR) {
			r->mr = reg_wr(wr)->mr;
			r->key = reg_wr(wr)->key;
			r->access = reg_wr(wr)->access;
		} else if (wr->opcode == IB_WR_LOCAL_INV) {
			r->inv_rkey = wr->ex.invalidate_rkey;
		}
	}
	return 0;
}

static struct ib_qp *fake_qp(struct kunit *test)
{
	struct lmr_ctx *ctx = ctx_of(test);

	ctx->fake_dev = kunit_kzalloc(test, sizeof(*ctx->fake_dev),
				      GFP_KERNEL);
	ctx->fake_qp = kunit_kzalloc(test, sizeof(*ctx->fake_qp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx->fake_dev);
	KUNIT_ASSERT_NOT_NULL(test, ctx->fake_qp);
	ctx->fake_dev->ops.post_send = fake_post_send;
	ctx->fake_qp->device = ctx->fake_dev;
	ctx->fail_at = -1;
	return ctx->fake_qp;
}

static void fake_wc(struct kdapl_pz *pz, struct ib_qp *qp, u64 wr_id,
		    enum ib_wc_status status)
{
	struct ib_wc wc = {
		.wr_id = wr_id,
		.status = status,
		.opcode = IB_WC_REG_MR,
		.qp = qp,
	};

	kdapl_lmr_wc(pz, &wc);
}

/*
 * ---- a real connection, on siwA to itself --------------------------------
 *
 * Not siwA -> siwB: siw creates its TCP sockets (listen and connect) in
 * the network namespace of the calling task, not of the cm_id or the
 * device, so a kernel thread in the root namespace gets -EADDRNOTAVAIL
 * listening on 192.0.2.2 in namespace b. Both ends on 192.0.2.1 keep
 * everything in the root namespace.
 */

#define CONN_PORT	18515
#define CONN_WAIT	(10 * HZ)

static void conn_qp_attr(struct ib_qp_init_attr *a, struct ib_cq *cq)
{
	memset(a, 0, sizeof(*a));
	a->send_cq = cq;
	a->recv_cq = cq;
	a->qp_type = IB_QPT_RC;
	a->sq_sig_type = IB_SIGNAL_REQ_WR;
	a->cap.max_send_wr = 16;
	a->cap.max_recv_wr = 4;
	a->cap.max_send_sge = 1;
	a->cap.max_recv_sge = 1;
}

static int conn_handler_b(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct lmr_ctx *ctx = id->context;
	struct rdma_conn_param param = {
		.responder_resources = 1,
		.initiator_depth = 1,
	};
	struct ib_qp_init_attr qa;

	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		if (ctx->id_b)
			return -EBUSY;		/* the CM destroys @id */
		conn_qp_attr(&qa, ctx->cq_b);
		if (rdma_create_qp(id, ctx->pd_b, &qa))
			return -ENOMEM;
		ctx->qp_b = true;
		ctx->id_b = id;
		if (rdma_accept(id, &param)) {
			rdma_destroy_qp(id);
			ctx->qp_b = false;
			ctx->id_b = NULL;
			return -EIO;
		}
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		complete(&ctx->est_b);
		break;
	default:
		break;
	}
	return 0;
}

static int conn_handler_a(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct lmr_ctx *ctx = id->context;

	WRITE_ONCE(ctx->event_a, ev->event);
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		complete(&ctx->step_a);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		complete(&ctx->est_a);
		break;
	default:
		break;
	}
	return 0;
}

static void conn_teardown(struct lmr_ctx *ctx)
{
	if (ctx->listen)
		rdma_destroy_id(ctx->listen);	/* no new request after this */
	ctx->listen = NULL;
	if (ctx->id_a) {
		if (ctx->qp_a)
			rdma_destroy_qp(ctx->id_a);
		rdma_destroy_id(ctx->id_a);
	}
	if (ctx->id_b) {
		if (ctx->qp_b)
			rdma_destroy_qp(ctx->id_b);
		rdma_destroy_id(ctx->id_b);
	}
	ctx->id_a = NULL;
	ctx->id_b = NULL;
	if (ctx->cq_a)
		ib_free_cq(ctx->cq_a);
	if (ctx->cq_b)
		ib_free_cq(ctx->cq_b);
	ctx->cq_a = NULL;
	ctx->cq_b = NULL;
}

/* Connect PD @pd_a's QP to PD @pd_b's (both on siwA); both end in RTS. */
static void conn_setup(struct kunit *test, struct ib_pd *pd_a,
		       struct ib_pd *pd_b)
{
	struct lmr_ctx *ctx = ctx_of(test);
	struct rdma_conn_param param = {
		.responder_resources = 1,
		.initiator_depth = 1,
		.retry_count = 3,
	};
	struct sockaddr_in dst = { .sin_family = AF_INET };
	struct ib_qp_init_attr qa;
	int err;

	init_completion(&ctx->est_a);
	init_completion(&ctx->est_b);
	init_completion(&ctx->step_a);
	ctx->pd_b = pd_b;
	ctx->cq_a = ib_alloc_cq(pd_a->device, NULL, 32, 0, IB_POLL_DIRECT);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ctx->cq_a));
	ctx->cq_b = ib_alloc_cq(pd_b->device, NULL, 32, 0, IB_POLL_DIRECT);
	if (IS_ERR(ctx->cq_b))
		ctx->cq_b = NULL;
	KUNIT_ASSERT_NOT_NULL(test, ctx->cq_b);

	ctx->listen = rdma_create_id(&init_net, conn_handler_b, ctx,
				     RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(ctx->listen))
		ctx->listen = NULL;
	KUNIT_ASSERT_NOT_NULL(test, ctx->listen);
	dst.sin_addr.s_addr = in_aton("192.0.2.1");
	dst.sin_port = htons(CONN_PORT);
	err = rdma_bind_addr(ctx->listen, (struct sockaddr *)&dst);
	KUNIT_ASSERT_EQ(test, err, 0);
	KUNIT_ASSERT_EQ(test, rdma_listen(ctx->listen, 1), 0);

	ctx->id_a = rdma_create_id(&init_net, conn_handler_a, ctx,
				   RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(ctx->id_a))
		ctx->id_a = NULL;
	KUNIT_ASSERT_NOT_NULL(test, ctx->id_a);
	KUNIT_ASSERT_EQ(test, rdma_resolve_addr(ctx->id_a, NULL,
						(struct sockaddr *)&dst, 5000),
			0);
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&ctx->step_a,
							  CONN_WAIT), 0UL);
	KUNIT_ASSERT_EQ(test, READ_ONCE(ctx->event_a),
			RDMA_CM_EVENT_ADDR_RESOLVED);
	reinit_completion(&ctx->step_a);
	KUNIT_ASSERT_EQ(test, rdma_resolve_route(ctx->id_a, 5000), 0);
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&ctx->step_a,
							  CONN_WAIT), 0UL);
	KUNIT_ASSERT_EQ(test, READ_ONCE(ctx->event_a),
			RDMA_CM_EVENT_ROUTE_RESOLVED);
	KUNIT_ASSERT_PTR_EQ(test, ctx->id_a->device, pd_a->device);
	conn_qp_attr(&qa, ctx->cq_a);
	KUNIT_ASSERT_EQ(test, rdma_create_qp(ctx->id_a, pd_a, &qa), 0);
	ctx->qp_a = true;
	reinit_completion(&ctx->step_a);
	KUNIT_ASSERT_EQ(test, rdma_connect(ctx->id_a, &param), 0);
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&ctx->est_a,
							  CONN_WAIT), 0UL);
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&ctx->est_b,
							  CONN_WAIT), 0UL);
}

/* One work completion from @cq, polled for up to CONN_WAIT. */
static bool conn_poll(struct ib_cq *cq, struct ib_wc *wc)
{
	unsigned long end = jiffies + CONN_WAIT;

	do {
		if (ib_poll_cq(cq, 1, wc) == 1)
			return true;
		usleep_range(500, 1000);
	} while (time_before(jiffies, end));
	return false;
}

static struct ib_wc conn_rdma(struct kunit *test, enum ib_wr_opcode op,
			      struct ib_sge *sge, u64 raddr, u32 rkey)
{
	struct lmr_ctx *ctx = ctx_of(test);
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_id = 100,
			.opcode = op,
			.sg_list = sge,
			.num_sge = 1,
			.send_flags = IB_SEND_SIGNALED,
		},
		.remote_addr = raddr,
		.rkey = rkey,
	};
	struct ib_wc wc = {};

	KUNIT_EXPECT_EQ(test, ib_post_send(ctx->id_a->qp, &wr.wr, NULL), 0);
	KUNIT_EXPECT_TRUE(test, conn_poll(ctx->cq_a, &wc));
	return wc;
}

/*
 * The whole remote path over siw, between two IAs on siwA: B's LMR (vmap'd pages, so the MR spans
 * several DMA segments) is pending until its REG_MR goes on B's
 * connected QP; the completion makes it registered; A then writes into
 * it and reads it back through rmr_context at B's registered address,
 * and the device refuses access beyond the LMR.
 */
static void lmr_remote_rdma(struct kunit *test)
{
	struct lmr_ctx *ctx = ctx_of(test);
	size_t len = 3 * PAGE_SIZE;
	u8 *a = kbuf(test, 2 * len), *b = scattered(test, 3);
	struct kdapl_pz *kpa, *kpb;
	struct lmr_out la, lb;
	DAT_IA_HANDLE ia, ib;
	DAT_PZ_HANDLE pa, pb;
	struct ib_sge sge;
	struct ib_wc wc;
	size_t i;

	ia = open_ia(test, SIW_A);
	ib = open_ia(test, SIW_A);
	pa = create_pz(test, ia);
	pb = create_pz(test, ib);
	kpa = pz_of(test, pa);
	kpb = pz_of(test, pb);
	la = va_lmr(test, ia, pa, a, 2 * len, PRIV_LOCAL);
	lb = va_lmr(test, ib, pb, b, len, PRIV_ALL);
	for (i = 0; i < len; i++)
		a[i] = (u8)(i * 7 + 3);

	conn_setup(test, kpa->pd, kpb->pd);
	KUNIT_EXPECT_EQ(test, reg_state(test, kpb, lb.lctx),
			KDAPL_LMR_REG_PENDING);
	/* Nothing pending on A's side. */
	KUNIT_EXPECT_EQ(test, kdapl_lmr_post_pending(kpa, ctx->id_a->qp), 0);
	KUNIT_ASSERT_EQ(test, kdapl_lmr_post_pending(kpb, ctx->id_b->qp), 0);
	KUNIT_ASSERT_TRUE(test, conn_poll(ctx->cq_b, &wc));
	KUNIT_EXPECT_EQ(test, wc.wr_id, (u64)KDAPL_LMR_WR_ID_REG);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_REG_MR);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	kdapl_lmr_wc(kpb, &wc);
	KUNIT_EXPECT_EQ(test, reg_state(test, kpb, lb.lctx),
			KDAPL_LMR_REG_REGISTERED);

	/* RDMA Write across B's pages, at B's registered address. */
	ASSERT_OK(test, to_sge(kpa, la.lctx, (uintptr_t)a, len - 100, &sge));
	wc = conn_rdma(test, IB_WR_RDMA_WRITE, &sge, lb.addr + 100, lb.rctx);
	KUNIT_EXPECT_EQ_MSG(test, wc.status, IB_WC_SUCCESS, "write: %s",
			    ib_wc_status_msg(wc.status));

	/*
	 * RDMA Read of the whole LMR into A's second half. An iWARP write
	 * completes locally once sent; the read behind it on the same QP
	 * returns only after the write was placed, so B's memory is
	 * checked after the read.
	 */
	ASSERT_OK(test, to_sge(kpa, la.lctx, (uintptr_t)a + len, len, &sge));
	wc = conn_rdma(test, IB_WR_RDMA_READ, &sge, lb.addr, lb.rctx);
	KUNIT_EXPECT_EQ_MSG(test, wc.status, IB_WC_SUCCESS, "read: %s",
			    ib_wc_status_msg(wc.status));
	KUNIT_EXPECT_EQ(test, memcmp(b + 100, a, len - 100), 0);
	KUNIT_EXPECT_EQ(test, b[99], 0);
	KUNIT_EXPECT_EQ(test, memcmp(a + len, b, len), 0);

	/*
	 * Beyond the LMR: B's device refuses to place it and terminates the
	 * connection (an iWARP write completes locally once sent, so A's
	 * completion says nothing); B's memory is untouched and the next
	 * operation fails.
	 */
	ASSERT_OK(test, to_sge(kpa, la.lctx, (uintptr_t)a, 64, &sge));
	conn_rdma(test, IB_WR_RDMA_WRITE, &sge, lb.addr + len - 32, lb.rctx);
	ASSERT_OK(test, to_sge(kpa, la.lctx, (uintptr_t)a + len, 8, &sge));
	wc = conn_rdma(test, IB_WR_RDMA_READ, &sge, lb.addr, lb.rctx);
	KUNIT_EXPECT_NE(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, memcmp(b + len - 32, a + len - 132, 32), 0);

	kdapl_lmr_qp_gone(kpb, ctx->id_b->qp);
	conn_teardown(ctx);
	ASSERT_OK(test, dat_lmr_free(la.h));
	ASSERT_OK(test, dat_lmr_free(lb.h));
	ASSERT_OK(test, dat_pz_free(pa));
	ASSERT_OK(test, dat_pz_free(pb));
	ASSERT_OK(test, dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	ASSERT_OK(test, dat_ia_close(ib, DAT_CLOSE_GRACEFUL_FLAG));
}

/* ---- cases ------------------------------------------------------------ */

/* kmalloc'd memory: create, query, translate, PZ and IA refuse, free. */
static void lmr_kmalloc(struct kunit *test)
{
	DAT_LMR_PARAM *p = kbuf(test, sizeof(*p));
	u8 *buf = kbuf(test, 3000);
	DAT_HANDLE_TYPE type;
	struct kdapl_pz *kpz;
	struct lmr_out o;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	struct ib_sge sge;

	ia = open_ia(test, SIW_A);
	pz = create_pz(test, ia);
	kpz = pz_of(test, pz);
	o = va_lmr(test, ia, pz, buf, 3000, PRIV_LOCAL);
	KUNIT_EXPECT_EQ(test, o.rctx, 0U);
	ASSERT_OK(test, dat_get_handle_type(o.h, &type));
	KUNIT_EXPECT_EQ(test, type, DAT_HANDLE_TYPE_LMR);

	ASSERT_OK(test, dat_lmr_query(o.h, DAT_LMR_FIELD_ALL, p));
	KUNIT_EXPECT_PTR_EQ(test, p->ia_handle, ia);
	KUNIT_EXPECT_PTR_EQ(test, p->pz_handle, pz);
	KUNIT_EXPECT_EQ(test, p->mem_type, DAT_MEM_TYPE_VIRTUAL);
	KUNIT_EXPECT_PTR_EQ(test, p->region_desc.for_va, (void *)buf);
	KUNIT_EXPECT_EQ(test, p->length, 3000ULL);
	KUNIT_EXPECT_EQ(test, p->mem_priv, PRIV_LOCAL);
	KUNIT_EXPECT_EQ(test, p->va_type, DAT_VA_TYPE_VA);
	KUNIT_EXPECT_EQ(test, p->lmr_context, o.lctx);
	KUNIT_EXPECT_EQ(test, p->rmr_context, 0U);
	KUNIT_EXPECT_EQ(test, p->registered_size, 3000ULL);
	KUNIT_EXPECT_EQ(test, p->registered_address, (u64)(uintptr_t)buf);
	KUNIT_EXPECT_EQ(test, p->lmr_state.bound, DAT_FALSE);

	/* Only the requested fields are written. */
	memset(p, 0x5a, sizeof(*p));
	ASSERT_OK(test, dat_lmr_query(o.h, DAT_LMR_FIELD_LENGTH, p));
	KUNIT_EXPECT_EQ(test, p->length, 3000ULL);
	KUNIT_EXPECT_EQ(test, p->lmr_context, 0x5a5a5a5aU);
	EXPECT_RET(test, dat_lmr_query(o.h, 0x1000, p), E_PARAM(2));
	EXPECT_RET(test, dat_lmr_query(o.h, DAT_LMR_FIELD_ALL, NULL),
		   E_PARAM(3));

	/* One DMA segment: the local DMA lkey; on siw DMA address = VA. */
	ASSERT_OK(test, to_sge(kpz, o.lctx, (uintptr_t)buf + 16, 100, &sge));
	KUNIT_EXPECT_EQ(test, sge.addr, (u64)(uintptr_t)buf + 16);
	KUNIT_EXPECT_EQ(test, sge.length, 100U);
	KUNIT_EXPECT_EQ(test, sge.lkey, kpz->pd->local_dma_lkey);
	KUNIT_EXPECT_EQ(test, reg_state(test, kpz, o.lctx),
			KDAPL_LMR_REG_NONE);

	/* A PZ and an IA with an LMR are in use. */
	EXPECT_RET(test, dat_pz_free(pz), E_STATE(DAT_INVALID_STATE_PZ_IN_USE));
	EXPECT_RET(test, dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG),
		   E_STATE(DAT_INVALID_STATE_IA_IN_USE));

	ASSERT_OK(test, dat_lmr_free(o.h));
	KUNIT_EXPECT_FALSE(test, handle_valid(o.h));
	ASSERT_OK(test, dat_pz_free(pz));
	ASSERT_OK(test, dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
}

/* vmalloc'd memory: per-page segments; crossing pages needs the MR. */
static void lmr_vmalloc(struct kunit *test)
{
	u8 *buf = scattered(test, 5);
	u8 *va = buf + 100, *vz;
	struct kdapl_pz *kpz;
	struct ib_qp *qp;
	struct lmr_out o;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	struct ib_sge sge;
	u8 *in_page2;

	ia = open_ia(test, SIW_A);
	pz = create_pz(test, ia);
	kpz = pz_of(test, pz);
	o = va_lmr(test, ia, pz, va, 4 * PAGE_SIZE, PRIV_LOCAL);
	KUNIT_EXPECT_EQ(test, o.rctx, 0U);
	/* Local only, but five segments (offset 100): an MR, pending. */
	{
		struct kdapl_lmr *l = kdapl_lmr_get(kpz, o.lctx);

		KUNIT_ASSERT_NOT_NULL(test, l);
		KUNIT_EXPECT_EQ(test, l->nsegs, 5U);
		kdapl_lmr_put(l);
	}
	KUNIT_EXPECT_EQ(test, reg_state(test, kpz, o.lctx),
			KDAPL_LMR_REG_PENDING);

	/* Within the second page: its own page's DMA address. */
	in_page2 = buf + PAGE_SIZE + 8;
	ASSERT_OK(test, to_sge(kpz, o.lctx, (uintptr_t)in_page2, 64, &sge));
	KUNIT_EXPECT_EQ(test, sge.addr,
			(u64)(uintptr_t)page_address(vmalloc_to_page(in_page2)) + 8);
	KUNIT_EXPECT_EQ(test, sge.lkey, kpz->pd->local_dma_lkey);

	/* Across a page boundary: not before the registration is posted. */
	EXPECT_RET(test, to_sge(kpz, o.lctx, (uintptr_t)buf + PAGE_SIZE - 8,
				16, &sge),
		   E_STATE(DAT_NO_SUBTYPE));
	qp = fake_qp(test);
	KUNIT_EXPECT_EQ(test, kdapl_lmr_post_pending(kpz, qp), 0);
	KUNIT_ASSERT_EQ(test, ctx_of(test)->nwr, 1);
	ASSERT_OK(test, to_sge(kpz, o.lctx, (uintptr_t)buf + PAGE_SIZE - 8,
			       16, &sge));
	KUNIT_EXPECT_EQ(test, sge.addr, (u64)(uintptr_t)buf + PAGE_SIZE - 8);
	KUNIT_EXPECT_EQ(test, sge.length, 16U);
	KUNIT_EXPECT_NE(test, sge.lkey, kpz->pd->local_dma_lkey);
	KUNIT_EXPECT_EQ(test, sge.lkey, ctx_of(test)->wr[0].mr->lkey);
	/* The MR addresses the region by its virtual address. */
	KUNIT_EXPECT_EQ(test, ctx_of(test)->wr[0].mr->iova,
			(u64)(uintptr_t)va);
	KUNIT_EXPECT_EQ(test, ctx_of(test)->wr[0].mr->length,
			(u64)4 * PAGE_SIZE);
	/* The whole region in one SGE. */
	ASSERT_OK(test, to_sge(kpz, o.lctx, (uintptr_t)va, 4 * PAGE_SIZE,
			       &sge));

	fake_wc(kpz, qp, KDAPL_LMR_WR_ID_REG, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, reg_state(test, kpz, o.lctx),
			KDAPL_LMR_REG_REGISTERED);
	ASSERT_OK(test, dat_lmr_free(o.h));

	/* vzalloc'd memory, however its pages happen to lie. */
	vz = vbuf(test, 3 * PAGE_SIZE);
	o = va_lmr(test, ia, pz, vz, 3 * PAGE_SIZE, PRIV_LOCAL);
	ASSERT_OK(test, to_sge(kpz, o.lctx, (uintptr_t)vz + 2 * PAGE_SIZE + 1,
			       100, &sge));
	KUNIT_EXPECT_EQ(test, sge.addr,
			(u64)(uintptr_t)page_address(vmalloc_to_page(vz + 2 * PAGE_SIZE)) + 1);
	ASSERT_OK(test, dat_lmr_free(o.h));
	ASSERT_OK(test, dat_pz_free(pz));
	ASSERT_OK(test, dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
}

/* Physical pages: two separate pages as one LMR. */
static void lmr_physical(struct kunit *test)
{
	struct lmr_ctx *ctx = ctx_of(test);
	DAT_REGION_DESCRIPTION r;
	struct kdapl_pz *kpz;
	DAT_PADDR *pa;
	struct lmr_out o;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	struct ib_sge sge;
	u64 len = 2 * PAGE_SIZE - 10;
	struct kdapl_lmr *lmr;

	pa = kbuf(test, 2 * sizeof(*pa));
	ctx->pages[0] = alloc_page(GFP_KERNEL);
	ctx->pages[1] = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx->pages[0]);
	KUNIT_ASSERT_NOT_NULL(test, ctx->pages[1]);
	pa[0] = page_to_phys(ctx->pages[0]);
	pa[1] = page_to_phys(ctx->pages[1]);

	ia = open_ia(test, SIW_A);
	pz = create_pz(test, ia);
	kpz = pz_of(test, pz);
	r.for_physical = pa;
	ASSERT_OK(test, lmr_create(ia, pz, DAT_MEM_TYPE_PHYSICAL, r, len,
				   PRIV_LOCAL, &o));
	/* Addressed from the first page's physical address. */
	KUNIT_EXPECT_EQ(test, o.addr, pa[0]);
	KUNIT_EXPECT_EQ(test, o.len, len);
	ASSERT_OK(test, to_sge(kpz, o.lctx, pa[0] + PAGE_SIZE + 4, 32, &sge));
	KUNIT_EXPECT_EQ(test, sge.addr,
			(u64)(uintptr_t)page_address(ctx->pages[1]) + 4);
	EXPECT_RET(test, to_sge(kpz, o.lctx, pa[0] + len - 4, 5, &sge),
		   E_PARAM(3));
	ASSERT_OK(test, dat_lmr_free(o.h));

	/* Remote: the MR addresses it by the same (physical) addresses. */
	ASSERT_OK(test, lmr_create(ia, pz, DAT_MEM_TYPE_PHYSICAL, r, len,
				   PRIV_ALL, &o));
	KUNIT_EXPECT_NE(test, o.rctx, 0U);
	lmr = kdapl_lmr_get(kpz, o.lctx);
	KUNIT_ASSERT_NOT_NULL(test, lmr);
	KUNIT_EXPECT_EQ(test, lmr->mr->iova, pa[0]);
	KUNIT_EXPECT_EQ(test, lmr->mr->length, len);
	kdapl_lmr_put(lmr);
	ASSERT_OK(test, dat_lmr_free(o.h));

	/* Not page aligned, and no array. */
	pa[1] += 8;
	EXPECT_RET(test, lmr_create(ia, pz, DAT_MEM_TYPE_PHYSICAL, r, len,
				    PRIV_LOCAL, &o), E_PARAM(3));
	r.for_physical = NULL;
	EXPECT_RET(test, lmr_create(ia, pz, DAT_MEM_TYPE_PHYSICAL, r, len,
				    PRIV_LOCAL, &o), E_PARAM(3));
	KUNIT_EXPECT_NULL(test, o.h);
	ASSERT_OK(test, dat_pz_free(pz));
	ASSERT_OK(test, dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
}

/* Triplets outside the LMR, with and without wrap-around, are refused. */
static void lmr_sge_bounds(struct kunit *test)
{
	u8 *buf = kbuf(test, 4096);
	u64 base = (uintptr_t)buf;
	struct kdapl_pz *kpz;
	struct lmr_out o;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	struct ib_sge sge;

	ia = open_ia(test, SIW_A);
	pz = create_pz(test, ia);
	kpz = pz_of(test, pz);
	o = va_lmr(test, ia, pz, buf, 1000, PRIV_LOCAL);

	ASSERT_OK(test, to_sge(kpz, o.lctx, base, 1000, &sge));
	KUNIT_EXPECT_EQ(test, sge.length, 1000U);
	ASSERT_OK(test, to_sge(kpz, o.lctx, base + 1000, 0, &sge));
	ASSERT_OK(test, to_sge(kpz, o.lctx, base + 999, 1, &sge));
	EXPECT_RET(test, to_sge(kpz, o.lctx, base - 1, 1, &sge), E_PARAM(3));
	EXPECT_RET(test, to_sge(kpz, o.lctx, base, 1001, &sge), E_PARAM(3));
	EXPECT_RET(test, to_sge(kpz, o.lctx, base + 1000, 1, &sge),
		   E_PARAM(3));
	EXPECT_RET(test, to_sge(kpz, o.lctx, base + 1001, 0, &sge),
		   E_PARAM(3));
	EXPECT_RET(test, to_sge(kpz, o.lctx, base + 500, U32_MAX, &sge),
		   E_PARAM(3));
	/* Sums that wrap around. */
	EXPECT_RET(test, to_sge(kpz, o.lctx, U64_MAX - 10, 100, &sge),
		   E_PARAM(3));
	EXPECT_RET(test, to_sge(kpz, o.lctx, U64_MAX, U32_MAX, &sge),
		   E_PARAM(3));
	/* Nothing was written by the refusals. */
	KUNIT_EXPECT_EQ(test, sge.lkey, 0x5a5a5a5aU);
	/* Contexts that name no LMR. */
	EXPECT_RET(test, to_sge(kpz, 0, base, 1, &sge), E_PRIV);
	EXPECT_RET(test, to_sge(kpz, o.lctx + 100000, base, 1, &sge), E_PRIV);

	ASSERT_OK(test, dat_lmr_free(o.h));
	ASSERT_OK(test, dat_pz_free(pz));
	ASSERT_OK(test, dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
}

/* An LMR is usable only through its own PZ, created only on its own IA. */
static void lmr_wrong_pz(struct kunit *test)
{
	u8 *buf = kbuf(test, 512);
	DAT_PZ_HANDLE pz1, pz2, pzb;
	struct kdapl_pz *kpz1, *kpz2;
	DAT_REGION_DESCRIPTION r = { .for_va = buf };
	DAT_IA_HANDLE ia, ib;
	struct lmr_out o, o2;
	struct ib_sge sge;

	ia = open_ia(test, SIW_A);
	ib = open_ia(test, SIW_A);
	pz1 = create_pz(test, ia);
	pz2 = create_pz(test, ia);
	pzb = create_pz(test, ib);
	kpz1 = pz_of(test, pz1);
	kpz2 = pz_of(test, pz2);
	o = va_lmr(test, ia, pz1, buf, 512, PRIV_LOCAL);

	ASSERT_OK(test, to_sge(kpz1, o.lctx, (uintptr_t)buf, 8, &sge));
	EXPECT_RET(test, to_sge(kpz2, o.lctx, (uintptr_t)buf, 8, &sge),
		   E_PROT);
	KUNIT_EXPECT_NULL(test, kdapl_lmr_get(kpz2, o.lctx));

	/* A PZ of another IA, or no PZ at all. */
	EXPECT_RET(test, lmr_create(ia, pzb, DAT_MEM_TYPE_VIRTUAL, r, 512,
				    PRIV_LOCAL, &o2),
		   E_HANDLE(DAT_INVALID_HANDLE_PZ));
	EXPECT_RET(test, lmr_create(ia, ia, DAT_MEM_TYPE_VIRTUAL, r, 512,
				    PRIV_LOCAL, &o2),
		   E_HANDLE(DAT_INVALID_HANDLE_PZ));
	EXPECT_RET(test, lmr_create(pz1, pz1, DAT_MEM_TYPE_VIRTUAL, r, 512,
				    PRIV_LOCAL, &o2),
		   E_HANDLE(DAT_INVALID_HANDLE_IA));
	KUNIT_EXPECT_NULL(test, o2.h);

	ASSERT_OK(test, dat_lmr_free(o.h));
	ASSERT_OK(test, dat_pz_free(pz1));
	ASSERT_OK(test, dat_pz_free(pz2));
	ASSERT_OK(test, dat_pz_free(pzb));
	ASSERT_OK(test, dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	ASSERT_OK(test, dat_ia_close(ib, DAT_CLOSE_GRACEFUL_FLAG));
}

/* Freed handles and contexts are dead; values are not handed out again. */
static void lmr_freed_handle(struct kunit *test)
{
	DAT_LMR_PARAM *p = kbuf(test, sizeof(*p));
	u8 *buf = kbuf(test, 256);
	struct kdapl_pz *kpz;
	struct lmr_out o, o2;
	DAT_HANDLE_TYPE type;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	struct ib_sge sge;

	ia = open_ia(test, SIW_A);
	pz = create_pz(test, ia);
	kpz = pz_of(test, pz);
	o = va_lmr(test, ia, pz, buf, 256, PRIV_LOCAL);
	ASSERT_OK(test, dat_lmr_free(o.h));

	EXPECT_RET(test, dat_lmr_query(o.h, DAT_LMR_FIELD_ALL, p),
		   E_HANDLE(DAT_INVALID_HANDLE_LMR));
	EXPECT_RET(test, dat_lmr_free(o.h), E_HANDLE(DAT_INVALID_HANDLE_LMR));
	EXPECT_RET(test, dat_get_handle_type(o.h, &type),
		   E_HANDLE(DAT_INVALID_HANDLE1));
	EXPECT_RET(test, to_sge(kpz, o.lctx, (uintptr_t)buf, 8, &sge), E_PRIV);
	KUNIT_EXPECT_NULL(test, kdapl_lmr_get(kpz, o.lctx));
	EXPECT_RET(test, dat_lmr_free(NULL), E_HANDLE(DAT_INVALID_HANDLE_LMR));
	EXPECT_RET(test, dat_lmr_free(pz), E_HANDLE(DAT_INVALID_HANDLE_LMR));
	EXPECT_RET(test, dat_lmr_query(ia, DAT_LMR_FIELD_ALL, p),
		   E_HANDLE(DAT_INVALID_HANDLE_LMR));

	/* The same memory again: new handle, new context. */
	o2 = va_lmr(test, ia, pz, buf, 256, PRIV_LOCAL);
	KUNIT_EXPECT_PTR_NE(test, o2.h, o.h);
	KUNIT_EXPECT_NE(test, o2.lctx, o.lctx);
	EXPECT_RET(test, to_sge(kpz, o.lctx, (uintptr_t)buf, 8, &sge), E_PRIV);
	ASSERT_OK(test, to_sge(kpz, o2.lctx, (uintptr_t)buf, 8, &sge));
	ASSERT_OK(test, dat_lmr_free(o2.h));
	ASSERT_OK(test, dat_pz_free(pz));
	ASSERT_OK(test, dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
}

/* An LMR in use by a work request cannot be freed; after the put it can. */
static void lmr_in_use(struct kunit *test)
{
	u8 *buf = kbuf(test, 256);
	struct kdapl_lmr *l1, *l2;
	struct kdapl_pz *kpz;
	struct lmr_out o;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;

	ia = open_ia(test, SIW_A);
	pz = create_pz(test, ia);
	kpz = pz_of(test, pz);
	o = va_lmr(test, ia, pz, buf, 256, PRIV_LOCAL);

	l1 = kdapl_lmr_get(kpz, o.lctx);
	l2 = kdapl_lmr_get(kpz, o.lctx);
	KUNIT_ASSERT_NOT_NULL(test, l1);
	KUNIT_ASSERT_NOT_NULL(test, l2);
	KUNIT_EXPECT_EQ(test, atomic_read(&l1->users), 2);
	EXPECT_RET(test, dat_lmr_free(o.h),
		   E_STATE(DAT_INVALID_STATE_LMR_IN_USE));
	kdapl_lmr_put(l1);
	EXPECT_RET(test, dat_lmr_free(o.h),
		   E_STATE(DAT_INVALID_STATE_LMR_IN_USE));
	KUNIT_EXPECT_TRUE(test, handle_valid(o.h));
	kdapl_lmr_put(l2);
	ASSERT_OK(test, dat_lmr_free(o.h));
	KUNIT_EXPECT_NULL(test, kdapl_lmr_get(kpz, o.lctx));
	ASSERT_OK(test, dat_pz_free(pz));
	ASSERT_OK(test, dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
}

/*
 * A remote LMR: its own rkey, pending until a QP takes the REG_MR; a real
 * siw QP that is not connected refuses the post and the LMR stays
 * pending.
 */
static void lmr_remote_pending(struct kunit *test)
{
	u8 *b1 = kbuf(test, 2048), *b2 = kbuf(test, 2048);
	struct ib_qp_init_attr qpa = {};
	struct kdapl_pz *kpz;
	struct lmr_out o1, o2;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	struct ib_sge sge;
	struct ib_qp *qp;
	struct ib_cq *cq;
	int err;

	ia = open_ia(test, SIW_A);
	pz = create_pz(test, ia);
	kpz = pz_of(test, pz);
	o1 = va_lmr(test, ia, pz, b1, 2048, PRIV_ALL);
	o2 = va_lmr(test, ia, pz, b2, 2048, DAT_MEM_PRIV_REMOTE_READ_FLAG);
	KUNIT_EXPECT_NE(test, o1.rctx, 0U);
	KUNIT_EXPECT_NE(test, o2.rctx, 0U);
	KUNIT_EXPECT_NE(test, o1.rctx, o2.rctx);
	KUNIT_EXPECT_NE(test, o1.rctx, kpz->pd->local_dma_lkey);
	KUNIT_EXPECT_EQ(test, reg_state(test, kpz, o1.lctx),
			KDAPL_LMR_REG_PENDING);
	/* Local use does not wait for the registration. */
	ASSERT_OK(test, to_sge(kpz, o1.lctx, (uintptr_t)b1, 2048, &sge));
	KUNIT_EXPECT_EQ(test, sge.lkey, kpz->pd->local_dma_lkey);

	cq = ib_alloc_cq(kpz->pd->device, NULL, 16, 0, IB_POLL_DIRECT);
	KUNIT_ASSERT_FALSE(test, IS_ERR(cq));
	qpa.send_cq = cq;
	qpa.recv_cq = cq;
	qpa.qp_type = IB_QPT_RC;
	qpa.sq_sig_type = IB_SIGNAL_REQ_WR;
	qpa.cap.max_send_wr = 8;
	qpa.cap.max_recv_wr = 8;
	qpa.cap.max_send_sge = 1;
	qpa.cap.max_recv_sge = 1;
	qp = ib_create_qp(kpz->pd, &qpa);
	if (IS_ERR(qp)) {
		ib_free_cq(cq);
		KUNIT_FAIL(test, "ib_create_qp: %ld", PTR_ERR(qp));
		return;
	}
	err = kdapl_lmr_post_pending(kpz, qp);
	KUNIT_EXPECT_LT(test, err, 0);
	KUNIT_EXPECT_EQ(test, reg_state(test, kpz, o1.lctx),
			KDAPL_LMR_REG_PENDING);
	KUNIT_EXPECT_EQ(test, reg_state(test, kpz, o2.lctx),
			KDAPL_LMR_REG_PENDING);
	kdapl_lmr_qp_gone(kpz, qp);
	ib_destroy_qp(qp);
	ib_free_cq(cq);
	KUNIT_EXPECT_EQ(test, reg_state(test, kpz, o1.lctx),
			KDAPL_LMR_REG_PENDING);

	ASSERT_OK(test, dat_lmr_free(o1.h));
	ASSERT_OK(test, dat_lmr_free(o2.h));
	ASSERT_OK(test, dat_pz_free(pz));
	ASSERT_OK(test, dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
}

/* The registration states, walked with a QP that records the posts. */
static void lmr_registration_states(struct kunit *test)
{
	struct lmr_ctx *ctx = ctx_of(test);
	u8 *b1 = kbuf(test, 1024), *b2 = kbuf(test, 1024);
	struct kdapl_pz *kpz;
	struct lmr_out o1, o2, o3;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	struct ib_qp *qp, *qp2;
	struct rec_wr *w;
	unsigned long t0;

	ia = open_ia(test, SIW_A);
	pz = create_pz(test, ia);
	kpz = pz_of(test, pz);
	qp = fake_qp(test);
	qp2 = kunit_kzalloc(test, sizeof(*qp2), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, qp2);
	qp2->device = ctx->fake_dev;
	o1 = va_lmr(test, ia, pz, b1, 1024, PRIV_ALL);
	o2 = va_lmr(test, ia, pz, b2, 1024, DAT_MEM_PRIV_REMOTE_READ_FLAG);
	o3 = va_lmr(test, ia, pz, b2, 512, PRIV_LOCAL);	/* no MR */

	/* Both remote LMRs are posted, in order, signaled, wr_id 0. */
	KUNIT_EXPECT_EQ(test, kdapl_lmr_post_pending(kpz, qp), 0);
	KUNIT_ASSERT_EQ(test, ctx->nwr, 2);
	w = &ctx->wr[0];
	KUNIT_EXPECT_EQ(test, w->opcode, IB_WR_REG_MR);
	KUNIT_EXPECT_EQ(test, w->wr_id, (u64)KDAPL_LMR_WR_ID_REG);
	KUNIT_EXPECT_TRUE(test, w->send_flags & IB_SEND_SIGNALED);
	KUNIT_EXPECT_EQ(test, w->key, o1.rctx);
	KUNIT_EXPECT_EQ(test, w->mr->rkey, o1.rctx);
	KUNIT_EXPECT_EQ(test, w->mr->iova, (u64)(uintptr_t)b1);
	KUNIT_EXPECT_EQ(test, w->access, IB_ACCESS_LOCAL_WRITE |
			IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE);
	KUNIT_EXPECT_EQ(test, ctx->wr[1].key, o2.rctx);
	KUNIT_EXPECT_EQ(test, ctx->wr[1].access, IB_ACCESS_REMOTE_READ);
	KUNIT_EXPECT_EQ(test, reg_state(test, kpz, o1.lctx),
			KDAPL_LMR_REG_POSTED);
	KUNIT_EXPECT_EQ(test, reg_state(test, kpz, o3.lctx),
			KDAPL_LMR_REG_NONE);
	/* Nothing pending: nothing posted. */
	KUNIT_EXPECT_EQ(test, kdapl_lmr_post_pending(kpz, qp), 0);
	KUNIT_EXPECT_EQ(test, ctx->nwr, 2);

	/* Completions match the oldest posted LMR of that QP. */
	fake_wc(kpz, qp2, KDAPL_LMR_WR_ID_REG, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, reg_state(test, kpz, o1.lctx),
			KDAPL_LMR_REG_POSTED);
	fake_wc(kpz, qp, KDAPL_LMR_WR_ID_REG, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, reg_state(test, kpz, o1.lctx),
			KDAPL_LMR_REG_REGISTERED);
	KUNIT_EXPECT_EQ(test, reg_state(test, kpz, o2.lctx),
			KDAPL_LMR_REG_POSTED);
	/* A flush: not executed, pending again, posted on the next QP. */
	fake_wc(kpz, qp, KDAPL_LMR_WR_ID_REG, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test, reg_state(test, kpz, o2.lctx),
			KDAPL_LMR_REG_PENDING);
	KUNIT_EXPECT_EQ(test, kdapl_lmr_post_pending(kpz, qp2), 0);
	KUNIT_ASSERT_EQ(test, ctx->nwr, 3);
	KUNIT_EXPECT_EQ(test, ctx->wr[2].opcode, IB_WR_REG_MR);
	KUNIT_EXPECT_EQ(test, ctx->wr[2].key, o2.rctx);

	/* The QP goes without a drain: unknown, so invalidate first. */
	kdapl_lmr_qp_gone(kpz, qp2);
	KUNIT_EXPECT_EQ(test, reg_state(test, kpz, o2.lctx),
			KDAPL_LMR_REG_STALE);
	KUNIT_EXPECT_EQ(test, reg_state(test, kpz, o1.lctx),
			KDAPL_LMR_REG_REGISTERED);
	/* A full send queue: the error, and nothing changes. */
	ctx->fail_at = 3;
	KUNIT_EXPECT_EQ(test, kdapl_lmr_post_pending(kpz, qp), -ENOMEM);
	KUNIT_EXPECT_EQ(test, reg_state(test, kpz, o2.lctx),
			KDAPL_LMR_REG_STALE);
	ctx->fail_at = -1;
	KUNIT_EXPECT_EQ(test, kdapl_lmr_post_pending(kpz, qp), 0);
	KUNIT_ASSERT_EQ(test, ctx->nwr, 5);
	KUNIT_EXPECT_EQ(test, ctx->wr[3].opcode, IB_WR_LOCAL_INV);
	KUNIT_EXPECT_EQ(test, ctx->wr[3].wr_id, (u64)KDAPL_LMR_WR_ID_INV);
	KUNIT_EXPECT_FALSE(test, ctx->wr[3].send_flags & IB_SEND_SIGNALED);
	KUNIT_EXPECT_EQ(test, ctx->wr[3].inv_rkey, o2.rctx);
	KUNIT_EXPECT_EQ(test, ctx->wr[4].opcode, IB_WR_REG_MR);
	KUNIT_EXPECT_EQ(test, ctx->wr[4].key, o2.rctx);
	/* A flushed LOCAL_INV completion says nothing by itself. */
	fake_wc(kpz, qp, KDAPL_LMR_WR_ID_INV, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test, reg_state(test, kpz, o2.lctx),
			KDAPL_LMR_REG_POSTED);

	/* Freeing waits for the posted registration, then gives up. */
	t0 = jiffies;
	EXPECT_RET(test, dat_lmr_free(o2.h),
		   E_STATE(DAT_INVALID_STATE_LMR_IN_USE));
	KUNIT_EXPECT_GE(test, jiffies - t0, (unsigned long)HZ / 2);
	KUNIT_EXPECT_TRUE(test, handle_valid(o2.h));
	/* Flushed together with its invalidation: stale again. */
	fake_wc(kpz, qp, KDAPL_LMR_WR_ID_REG, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test, reg_state(test, kpz, o2.lctx),
			KDAPL_LMR_REG_STALE);
	/* Another error: the registration failed for good. */
	KUNIT_EXPECT_EQ(test, kdapl_lmr_post_pending(kpz, qp), 0);
	fake_wc(kpz, qp, KDAPL_LMR_WR_ID_REG, IB_WC_LOC_PROT_ERR);
	KUNIT_EXPECT_EQ(test, reg_state(test, kpz, o2.lctx),
			KDAPL_LMR_REG_ERROR);
	KUNIT_EXPECT_EQ(test, kdapl_lmr_post_pending(kpz, qp), 0);
	KUNIT_EXPECT_EQ(test, ctx->nwr, 7);

	ASSERT_OK(test, dat_lmr_free(o1.h));
	ASSERT_OK(test, dat_lmr_free(o2.h));
	ASSERT_OK(test, dat_lmr_free(o3.h));
	ASSERT_OK(test, dat_pz_free(pz));
	ASSERT_OK(test, dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
}

/* The helpers the DTO path calls from upcalls never sleep. */
static void lmr_atomic_context(struct kunit *test)
{
	DAT_LMR_PARAM *p = kbuf(test, sizeof(*p));
	u8 *buf = scattered(test, 3);
	struct kdapl_lmr *lmr;
	struct kdapl_pz *kpz;
	unsigned long flags;
	struct lmr_out o;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	struct ib_sge sge;
	struct ib_qp *qp;
	DAT_RETURN r1, r2;
	int err;

	ia = open_ia(test, SIW_A);
	pz = create_pz(test, ia);
	kpz = pz_of(test, pz);
	qp = fake_qp(test);
	o = va_lmr(test, ia, pz, buf, 3 * PAGE_SIZE, PRIV_ALL);

	local_irq_save(flags);
	err = kdapl_lmr_post_pending(kpz, qp);
	r1 = to_sge(kpz, o.lctx, (uintptr_t)buf + 10, 2 * PAGE_SIZE, &sge);
	lmr = kdapl_lmr_get(kpz, o.lctx);
	fake_wc(kpz, qp, KDAPL_LMR_WR_ID_REG, IB_WC_SUCCESS);
	kdapl_lmr_qp_gone(kpz, qp);
	r2 = dat_lmr_query(o.h, DAT_LMR_FIELD_ALL, p);
	if (lmr)
		kdapl_lmr_put(lmr);
	local_irq_restore(flags);

	KUNIT_EXPECT_EQ(test, err, 0);
	ASSERT_OK(test, r1);
	ASSERT_OK(test, r2);
	KUNIT_EXPECT_NOT_NULL(test, lmr);
	KUNIT_EXPECT_EQ(test, reg_state(test, kpz, o.lctx),
			KDAPL_LMR_REG_REGISTERED);
	ASSERT_OK(test, dat_lmr_free(o.h));
	ASSERT_OK(test, dat_pz_free(pz));
	ASSERT_OK(test, dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
}

static void lmr_bad_args(struct kunit *test)
{
	u8 *buf = kbuf(test, 64);
	DAT_REGION_DESCRIPTION r = { .for_va = buf }, rp;
	DAT_LMR_HANDLE h = DAT_HANDLE_NULL;
	DAT_PADDR pa = virt_to_phys(buf);
	struct lmr_out o;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;

	ia = open_ia(test, SIW_A);
	pz = create_pz(test, ia);

	EXPECT_RET(test, lmr_create(ia, pz, DAT_MEM_TYPE_LMR, r, 64,
				    PRIV_LOCAL, &o), E_MODEL);
	EXPECT_RET(test, lmr_create(ia, pz, DAT_MEM_TYPE_PLATFORM, r, 64,
				    PRIV_LOCAL, &o), E_MODEL);
	EXPECT_RET(test, lmr_create(ia, pz, DAT_MEM_TYPE_IA, r, 64,
				    PRIV_LOCAL, &o), E_MODEL);
	EXPECT_RET(test, lmr_create(ia, pz, DAT_MEM_TYPE_BYPASS, r, 64,
				    PRIV_LOCAL, &o), E_MODEL);
	EXPECT_RET(test, lmr_create(ia, pz, DAT_MEM_TYPE_PHYSICAL_VAR_PAGES,
				    r, 64, PRIV_LOCAL, &o), E_MODEL);
	EXPECT_RET(test, lmr_create(ia, pz, (DAT_MEM_TYPE)0x1234, r, 64,
				    PRIV_LOCAL, &o), E_PARAM(2));
	EXPECT_RET(test, lmr_create(ia, pz, DAT_MEM_TYPE_VIRTUAL, r, 0,
				    PRIV_LOCAL, &o), E_PARAM(4));
	rp.for_physical = &pa;
	EXPECT_RET(test, lmr_create(ia, pz, DAT_MEM_TYPE_PHYSICAL, rp,
				    1ULL << 50, PRIV_LOCAL, &o), E_PARAM(4));
	EXPECT_RET(test, lmr_create(ia, pz, DAT_MEM_TYPE_VIRTUAL, r, 64,
				    (DAT_MEM_PRIV_FLAGS)0x80, &o), E_PARAM(6));
	EXPECT_RET(test, dat_lmr_kcreate(ia, DAT_MEM_TYPE_VIRTUAL, r, 64, pz,
					 PRIV_LOCAL, DAT_VA_TYPE_ZB, 0, &h,
					 NULL, NULL, NULL, NULL), E_MODEL);
	EXPECT_RET(test, dat_lmr_kcreate(ia, DAT_MEM_TYPE_VIRTUAL, r, 64, pz,
					 PRIV_LOCAL, (DAT_VA_TYPE)7, 0, &h,
					 NULL, NULL, NULL, NULL), E_PARAM(7));
	EXPECT_RET(test, dat_lmr_kcreate(ia, DAT_MEM_TYPE_VIRTUAL, r, 64, pz,
					 PRIV_LOCAL, DAT_VA_TYPE_VA,
					 (DAT_MEM_OPTIMIZE_FLAGS)0x10, &h,
					 NULL, NULL, NULL, NULL), E_PARAM(8));
	EXPECT_RET(test, dat_lmr_kcreate(ia, DAT_MEM_TYPE_VIRTUAL, r, 64, pz,
					 PRIV_LOCAL, DAT_VA_TYPE_VA, 0, NULL,
					 NULL, NULL, NULL, NULL), E_PARAM(9));
	/* Memory that is neither linear-mapped nor vmalloc'd, or wraps. */
	r.for_va = NULL;
	EXPECT_RET(test, lmr_create(ia, pz, DAT_MEM_TYPE_VIRTUAL, r, 64,
				    PRIV_LOCAL, &o), E_PARAM(3));
	r.for_va = (void *)0x1000;
	EXPECT_RET(test, lmr_create(ia, pz, DAT_MEM_TYPE_VIRTUAL, r, 64,
				    PRIV_LOCAL, &o), E_PARAM(3));
	r.for_va = (void *)(ULONG_MAX - 10);
	EXPECT_RET(test, lmr_create(ia, pz, DAT_MEM_TYPE_VIRTUAL, r, 64,
				    PRIV_LOCAL, &o), E_PARAM(3));
	KUNIT_EXPECT_NULL(test, h);
	KUNIT_EXPECT_NULL(test, o.h);

	/* Optional outputs may be NULL. */
	r.for_va = buf;
	ASSERT_OK(test, dat_lmr_kcreate(ia, DAT_MEM_TYPE_VIRTUAL, r, 64, pz,
					PRIV_LOCAL, DAT_VA_TYPE_VA, 0, &h,
					NULL, NULL, NULL, NULL));
	ASSERT_OK(test, dat_lmr_free(h));
	/* None of the refusals left a child behind. */
	ASSERT_OK(test, dat_pz_free(pz));
	ASSERT_OK(test, dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
}

/* siw (and ib_core for kernel consumers) has no memory windows. */
static void lmr_rmr_not_supported(struct kunit *test)
{
	DAT_RMR_HANDLE rmr = DAT_HANDLE_NULL;
	DAT_PROVIDER_ATTR *pa = kbuf(test, sizeof(*pa));
	DAT_IA_ATTR *a = kbuf(test, sizeof(*a));
	DAT_RMR_PARAM *rp = kbuf(test, sizeof(*rp));
	u8 *buf = kbuf(test, 64);
	DAT_RMR_COOKIE cookie = { .as_64 = 1 };
	DAT_RMR_CONTEXT rc = 0;
	DAT_LMR_TRIPLET t;
	struct lmr_out o;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;

	ia = open_ia(test, SIW_A);
	pz = create_pz(test, ia);
	o = va_lmr(test, ia, pz, buf, 64, PRIV_ALL);
	t = trip(o.lctx, buf, 64);

	EXPECT_RET(test, dat_rmr_create(pz, &rmr), E_MODEL);
	KUNIT_EXPECT_NULL(test, rmr);
	EXPECT_RET(test, dat_rmr_create(pz, NULL), E_PARAM(2));
	EXPECT_RET(test, dat_rmr_create(ia, &rmr),
		   E_HANDLE(DAT_INVALID_HANDLE_PZ));
	EXPECT_RET(test, dat_rmr_query(o.h, DAT_RMR_FIELD_ALL, rp),
		   E_HANDLE(DAT_INVALID_HANDLE_RMR));
	EXPECT_RET(test, dat_rmr_query(NULL, DAT_RMR_FIELD_ALL, rp),
		   E_HANDLE(DAT_INVALID_HANDLE_RMR));
	EXPECT_RET(test, dat_rmr_bind((DAT_RMR_HANDLE)0x7777, o.h, &t,
				      DAT_MEM_PRIV_REMOTE_READ_FLAG,
				      DAT_VA_TYPE_VA, NULL,
				      cookie,
				      DAT_COMPLETION_DEFAULT_FLAG, &rc),
		   E_HANDLE(DAT_INVALID_HANDLE_RMR));
	EXPECT_RET(test, dat_rmr_free(pz), E_HANDLE(DAT_INVALID_HANDLE_RMR));
	KUNIT_EXPECT_EQ(test, rc, 0U);

	ASSERT_OK(test, dat_ia_query(ia, NULL, DAT_IA_FIELD_IA_MAX_RMRS |
				     DAT_IA_FIELD_IA_MAX_LMRS, a,
				     DAT_PROVIDER_FIELD_LMR_MEM_TYPE_SUPPORTED,
				     pa));
	KUNIT_EXPECT_EQ(test, a->max_rmrs, 0);
	KUNIT_EXPECT_GT(test, a->max_lmrs, 0);
	KUNIT_EXPECT_EQ(test, pa->lmr_mem_types_supported,
			DAT_MEM_TYPE_VIRTUAL | DAT_MEM_TYPE_PHYSICAL);

	ASSERT_OK(test, dat_lmr_free(o.h));
	ASSERT_OK(test, dat_pz_free(pz));
	ASSERT_OK(test, dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
}

/* Abrupt close frees every LMR; the rest is kmemleak's to check. */
static void lmr_abrupt_close(struct kunit *test)
{
	u8 *k = kbuf(test, 8192), *v = vbuf(test, 4 * PAGE_SIZE);
	DAT_LMR_PARAM *p = kbuf(test, sizeof(*p));
	struct lmr_out o1, o2, o3, o4;
	DAT_PZ_HANDLE pz, pz2;
	struct kdapl_pz *kpz;
	struct ib_sge sge;
	DAT_IA_HANDLE ia;
	struct ib_qp *qp;

	ia = open_ia(test, SIW_A);
	pz = create_pz(test, ia);
	pz2 = create_pz(test, ia);
	kpz = pz_of(test, pz);
	qp = fake_qp(test);
	o1 = va_lmr(test, ia, pz, k, 8192, PRIV_LOCAL);
	o2 = va_lmr(test, ia, pz, v, 4 * PAGE_SIZE, PRIV_LOCAL);
	o3 = va_lmr(test, ia, pz, k, 4096, PRIV_ALL);
	o4 = va_lmr(test, ia, pz2, v, 100, PRIV_ALL);
	KUNIT_EXPECT_EQ(test, kdapl_lmr_post_pending(kpz, qp), 0);
	fake_wc(kpz, qp, KDAPL_LMR_WR_ID_REG, IB_WC_SUCCESS);

	ASSERT_OK(test, dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));
	KUNIT_EXPECT_FALSE(test, handle_valid(o1.h));
	KUNIT_EXPECT_FALSE(test, handle_valid(o2.h));
	KUNIT_EXPECT_FALSE(test, handle_valid(o3.h));
	KUNIT_EXPECT_FALSE(test, handle_valid(o4.h));
	KUNIT_EXPECT_FALSE(test, handle_valid(pz));
	EXPECT_RET(test, dat_lmr_query(o1.h, DAT_LMR_FIELD_ALL, p),
		   E_HANDLE(DAT_INVALID_HANDLE_LMR));
	EXPECT_RET(test, dat_lmr_free(o3.h), E_HANDLE(DAT_INVALID_HANDLE_LMR));
	/* The contexts are gone with them (the PZ's memory is still ours). */
	EXPECT_RET(test, to_sge(kpz, o1.lctx, (uintptr_t)k, 8, &sge), E_PRIV);
	KUNIT_EXPECT_NULL(test, kdapl_lmr_get(kpz, o2.lctx));
	/* Late completions find nothing to change. */
	fake_wc(kpz, qp, KDAPL_LMR_WR_ID_REG, IB_WC_WR_FLUSH_ERR);
}

static void lmr_sync(struct kunit *test)
{
	u8 *k = kbuf(test, 4096), *v = scattered(test, 3);
	DAT_LMR_TRIPLET t[3];
	struct lmr_out o1, o2, ob;
	DAT_IA_HANDLE ia, ib;
	DAT_PZ_HANDLE pz, pzb;

	ia = open_ia(test, SIW_A);
	ib = open_ia(test, SIW_B);
	pz = create_pz(test, ia);
	pzb = create_pz(test, ib);
	o1 = va_lmr(test, ia, pz, k, 4096, PRIV_ALL);
	o2 = va_lmr(test, ia, pz, v, 3 * PAGE_SIZE, PRIV_ALL);
	ob = va_lmr(test, ib, pzb, k, 4096, PRIV_ALL);
	t[0] = trip(o1.lctx, k + 100, 200);
	t[1] = trip(o2.lctx, v + 10, 2 * PAGE_SIZE);	/* across pages */
	t[2] = trip(o2.lctx, v + 3 * PAGE_SIZE, 0);

	ASSERT_OK(test, dat_lmr_sync_rdma_read(ia, t, 3));
	ASSERT_OK(test, dat_lmr_sync_rdma_write(ia, t, 3));
	ASSERT_OK(test, dat_lmr_sync_rdma_write(ia, NULL, 0));
	EXPECT_RET(test, dat_lmr_sync_rdma_read(ia, NULL, 1), E_PARAM(2));
	EXPECT_RET(test, dat_lmr_sync_rdma_read(pz, t, 3),
		   E_HANDLE(DAT_INVALID_HANDLE_IA));
	/* Another IA's LMR, outside the LMR, no LMR. */
	EXPECT_RET(test, dat_lmr_sync_rdma_read(ib, t, 1), E_PARAM(2));
	t[2] = trip(o2.lctx, v + 3 * PAGE_SIZE, 1);
	EXPECT_RET(test, dat_lmr_sync_rdma_write(ia, t, 3), E_PARAM(2));
	t[2] = trip(0, v, 1);
	EXPECT_RET(test, dat_lmr_sync_rdma_write(ia, t, 3), E_PARAM(2));
	t[0] = trip(ob.lctx, k, 8);
	ASSERT_OK(test, dat_lmr_sync_rdma_read(ib, t, 1));

	ASSERT_OK(test, dat_lmr_free(o1.h));
	ASSERT_OK(test, dat_lmr_free(o2.h));
	ASSERT_OK(test, dat_lmr_free(ob.h));
	ASSERT_OK(test, dat_pz_free(pz));
	ASSERT_OK(test, dat_pz_free(pzb));
	ASSERT_OK(test, dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
	ASSERT_OK(test, dat_ia_close(ib, DAT_CLOSE_GRACEFUL_FLAG));
}

/* providers/<device>/lmrs lists the live LMRs with their state. */
static void lmr_debugfs(struct kunit *test)
{
	u8 *buf = kbuf(test, 128);
	char *want = kbuf(test, 256);
	struct seq_file m = {};
	struct kdapl_obj *io;
	struct lmr_out o;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;

	ia = open_ia(test, SIW_A);
	pz = create_pz(test, ia);
	o = va_lmr(test, ia, pz, buf, 128, PRIV_ALL);
	snprintf(want, 256,
		 "lmr %#lx ia %#lx pz %#lx lmr_context %u rmr_context %#x length 128 priv 0x33 segs 1 reg pending users 0\n",
		 (unsigned long)o.h, (unsigned long)ia, (unsigned long)pz,
		 o.lctx, o.rctx);

	/* The file's show function, on a seq_file of our own. */
	io = kdapl_obj_get(ia, KDAPL_HT_IA);
	KUNIT_ASSERT_NOT_NULL(test, io);
	m.size = 8192;
	m.buf = kbuf(test, m.size);
	m.private = container_of(io, struct kdapl_ia, base)->prov;
	KUNIT_EXPECT_EQ(test, kdapl_lmrs_show(&m, NULL), 0);
	KUNIT_EXPECT_LT(test, m.count, m.size);
	m.buf[min(m.count, m.size - 1)] = 0;
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(m.buf, want), "read: %s", m.buf);

	ASSERT_OK(test, dat_lmr_free(o.h));
	m.count = 0;
	KUNIT_EXPECT_EQ(test, kdapl_lmrs_show(&m, NULL), 0);
	m.buf[min(m.count, m.size - 1)] = 0;
	KUNIT_EXPECT_NULL(test, strstr(m.buf, want));
	kdapl_obj_put(io);
	ASSERT_OK(test, dat_pz_free(pz));
	ASSERT_OK(test, dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
}

/* The device goes: LMRs give back the device, stay until freed. */
static void lmr_device_removal(struct kunit *test)
{
	DAT_LMR_PARAM *p = kbuf(test, sizeof(*p));
	u8 *k = kbuf(test, 4096), *v = vbuf(test, 2 * PAGE_SIZE);
	struct lmr_ctx *ctx = ctx_of(test);
	DAT_REGION_DESCRIPTION r = { .for_va = k };
	struct lmr_out o1, o2, o3;
	struct kdapl_pz *kpz;
	struct ib_device *dev;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	struct ib_sge sge;

	dev = ib_device_get_by_name("siwB", RDMA_DRIVER_UNKNOWN);
	KUNIT_ASSERT_NOT_NULL(test, dev);
	ctx->dev = dev;
	ia = open_ia(test, SIW_B);
	pz = create_pz(test, ia);
	kpz = pz_of(test, pz);
	o1 = va_lmr(test, ia, pz, k, 4096, PRIV_LOCAL);
	o2 = va_lmr(test, ia, pz, k, 4096, PRIV_ALL);
	o3 = va_lmr(test, ia, pz, v, 2 * PAGE_SIZE, PRIV_ALL);

	ctx->removed = true;
	kdapl_registry_remove_device(dev);

	EXPECT_RET(test, dat_lmr_query(o1.h, DAT_LMR_FIELD_ALL, p),
		   E_STATE(DAT_NO_SUBTYPE));
	EXPECT_RET(test, to_sge(kpz, o1.lctx, (uintptr_t)k, 8, &sge), E_PRIV);
	EXPECT_RET(test, lmr_create(ia, pz, DAT_MEM_TYPE_VIRTUAL, r, 64,
				    PRIV_LOCAL, &o1), E_STATE(DAT_NO_SUBTYPE));
	EXPECT_RET(test, dat_pz_free(pz), E_STATE(DAT_INVALID_STATE_PZ_IN_USE));
	ASSERT_OK(test, dat_lmr_free(o2.h));
	ASSERT_OK(test, dat_lmr_free(o3.h));
	/* The rest goes with an abrupt close. */
	ASSERT_OK(test, dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG));

	ctx->removed = false;
	KUNIT_EXPECT_EQ(test, kdapl_registry_add_device(dev), 0);
	ia = open_ia(test, SIW_B);
	ASSERT_OK(test, dat_ia_close(ia, DAT_CLOSE_GRACEFUL_FLAG));
}

static int lmr_test_init(struct kunit *test)
{
	test->priv = kunit_kzalloc(test, sizeof(struct lmr_ctx), GFP_KERNEL);
	cur = test->priv;
	return test->priv ? 0 : -ENOMEM;
}

static void lmr_test_exit(struct kunit *test)
{
	struct lmr_ctx *ctx = ctx_of(test);
	int i;

	conn_teardown(ctx);
	/* Already closed ones answer DAT_INVALID_HANDLE. */
	for (i = 0; i < ctx->nia; i++)
		dat_ia_close(ctx->ia[i], DAT_CLOSE_ABRUPT_FLAG);
	for (i = 0; i < ctx->nobj; i++)
		kdapl_obj_put(ctx->obj[i]);
	for (i = 0; i < ctx->nvbuf; i++)
		vfree(ctx->vbuf[i]);
	if (ctx->vmap)
		vunmap(ctx->vmap);
	for (i = 0; i < ctx->nvpages; i++)
		__free_page(ctx->vpages[i]);
	for (i = 0; i < ARRAY_SIZE(ctx->pages); i++)
		if (ctx->pages[i])
			__free_page(ctx->pages[i]);
	if (ctx->removed)
		kdapl_registry_add_device(ctx->dev);
	if (ctx->dev)
		ib_device_put(ctx->dev);
	cur = NULL;
}

static struct kunit_case kdapl_lmr_cases[] = {
	KUNIT_CASE(lmr_kmalloc),
	KUNIT_CASE(lmr_vmalloc),
	KUNIT_CASE(lmr_physical),
	KUNIT_CASE(lmr_sge_bounds),
	KUNIT_CASE(lmr_wrong_pz),
	KUNIT_CASE(lmr_freed_handle),
	KUNIT_CASE(lmr_in_use),
	KUNIT_CASE(lmr_remote_pending),
	KUNIT_CASE(lmr_remote_rdma),
	KUNIT_CASE(lmr_registration_states),
	KUNIT_CASE(lmr_atomic_context),
	KUNIT_CASE(lmr_bad_args),
	KUNIT_CASE(lmr_rmr_not_supported),
	KUNIT_CASE(lmr_abrupt_close),
	KUNIT_CASE(lmr_sync),
	KUNIT_CASE(lmr_debugfs),
	KUNIT_CASE(lmr_device_removal),
	{}
};

static struct kunit_suite kdapl_lmr_suite = {
	.name = "kdapl_lmr",
	.init = lmr_test_init,
	.exit = lmr_test_exit,
	.test_cases = kdapl_lmr_cases,
};

kunit_test_suite(kdapl_lmr_suite);

MODULE_DESCRIPTION("KUnit tests for kdapl LMRs and RMRs over siw");
MODULE_LICENSE("GPL");
