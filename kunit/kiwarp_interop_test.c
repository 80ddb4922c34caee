// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "kiwarp_interop": the kiwarp RNIC against Linux siw over
 * rdma_cm, in the guest's test hosts (scripts/guest/lib.sh): kw0 on
 * veth2 (198.51.100.1, namespace "b") and siwC on veth3 (198.51.100.2,
 * root namespace; siw opens its sockets in the caller's namespace, so
 * it must be the root one for a kernel test). Each case connects one kernel rdma_cm endpoint on
 * each device, registers a fast-registration MR on both sides, swaps
 * (address, rkey) with SENDs, and then each side in turn RDMA WRITEs a
 * pattern into the other's MR, reads it back with RDMA READ and SENDs
 * a multi-FPDU message; every byte is checked on both ends. Then a
 * graceful rdma_disconnect must reach both sides.
 *
 *   interop_siw_ours_rdma_cm   siw listens, kiwarp connects
 *   interop_ours_siw_rdma_cm   kiwarp listens, siw connects
 *   ..._crc                    the same with MPA CRC asked by kiwarp
 *   ours_ours_rdma_cm[_crc]    kw2 (veth5, 203.0.113.2, "b") and kw1
 *                              (veth4, 203.0.113.1, root) both ways
 *   ours_ours_tcp_port_taken   kw1 connects from a local port a plain
 *                              TCP connection already holds
 *   ours_ours_zcopy[_crc]      zero-copy transmit: a 96 KiB WRITE lent to
 *                              TCP completes only once acknowledged, a
 *                              READ is answered from lent memory
 *   ours_ours_zcopy_abort      abort with a lent WRITE unacknowledged:
 *                              flushed, not completed
 *   interop_ours_siw_zcopy[_crc]  the same data to and from siw
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/rtnetlink.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <rdma/rdma_cm.h>
#include <rdma/ib_verbs.h>
#include <rdma/rw.h>

#include "kiwarp.h"
#include "test_net.h"

#define OURS_ADDR	"198.51.100.1"
#define SIW_ADDR	"198.51.100.2"
#define OURS_NETDEV	"veth2"
#define BUF_LEN		16384
#define XFER_LEN	6000	/* several FPDUs, crosses pages */
#define READ_OFF	8192
#define MSG_LEN		4096
#define SEND_LEN	3000
#define TMO		(15 * HZ)
#define RW_LEN		12000	/* ulp_patterns' rdma_rw contexts */

enum {
	WR_REG, WR_INFO, WR_WRITE, WR_READ, WR_SEND, WR_RINFO, WR_RDATA,
	WR_SCATTER, WR_SINV, WR_COUNT
};

struct wire_info {
	__be64 addr;
	__be32 rkey;
	__be32 len;
};

struct cm_ctx {
	wait_queue_head_t wq;
	unsigned long events;
	int status;			/* of the last event with one */
	struct rdma_cm_id *child;
	/* the CONNECT_REQUEST's Read depths, as rdma_cm reports them */
	u8 req_initiator_depth;
	u8 req_responder_resources;
};

/*
 * The client's Read depths for interop_run_port(): NULL for 4 and 4.
 * Set, the server accepts with what its CONNECT_REQUEST reported, as
 * svcrdma and nvmet-rdma do.
 */
static const struct rdma_conn_param *cli_depths;

struct ep {
	struct kunit *test;
	struct rdma_cm_id *id;
	struct ib_device *dev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	u8 *buf;
	u32 len;			/* of @buf */
	struct scatterlist sg;
	bool sg_mapped;
	struct ib_mr *mr;
	struct wire_info *info;		/* ours, sent */
	struct wire_info *rinfo;	/* the peer's, received */
	u8 *msg;			/* received message */
	u64 info_dma, rinfo_dma, msg_dma;
	struct ib_wc seen[WR_COUNT];
	bool got[WR_COUNT];
};

static int cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct cm_ctx *c = id->context;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		c->child = id;
		c->req_initiator_depth = ev->param.conn.initiator_depth;
		c->req_responder_resources = ev->param.conn.responder_resources;
	}
	if (ev->status)
		c->status = ev->status;
	set_bit(ev->event, &c->events);
	wake_up(&c->wq);
	return 0;
}

static bool cm_wait(struct cm_ctx *c, int ev)
{
	return wait_event_timeout(c->wq, test_bit(ev, &c->events), TMO) > 0;
}

static void make_addr(struct sockaddr_in *sin, const char *ip, u16 port)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	sin->sin_addr.s_addr = in_aton(ip);
}

static bool ep_wait(struct ep *e, int wr)
{
	unsigned long end = jiffies + TMO;
	struct ib_wc wc;

	while (!e->got[wr]) {
		if (ib_poll_cq(e->cq, 1, &wc) == 1) {
			if (wc.wr_id < WR_COUNT) {
				e->seen[wc.wr_id] = wc;
				e->got[wc.wr_id] = true;
			}
			continue;
		}
		if (time_after(jiffies, end))
			return false;
		usleep_range(200, 500);
	}
	e->got[wr] = false;
	KUNIT_EXPECT_EQ_MSG(e->test, e->seen[wr].status, IB_WC_SUCCESS,
			    "wr %d on %s", wr, dev_name(&e->dev->dev));
	return e->seen[wr].status == IB_WC_SUCCESS;
}

static int post_recv(struct ep *e, int wr, u64 addr, u32 len)
{
	struct ib_sge sge = { .addr = addr, .length = len,
			      .lkey = e->pd->local_dma_lkey };
	struct ib_recv_wr rwr = { .wr_id = wr, .sg_list = &sge, .num_sge = 1 };
	const struct ib_recv_wr *bad;

	return ib_post_recv(e->id->qp, &rwr, &bad);
}

/* PD, CQ, QP on the id's device, MR over a buffer, receives posted */
static int ep_setup(struct ep *e, struct rdma_cm_id *id, u32 len)
{
	struct ib_qp_init_attr qa = {
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 2, .max_recv_sge = 2,
			 .max_rdma_ctxs = 2 },	/* ulp_rw() */
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	int ret;

	e->id = id;
	e->dev = id->device;
	e->pd = ib_alloc_pd(e->dev, 0);
	if (IS_ERR(e->pd))
		return PTR_ERR(e->pd);
	e->cq = ib_alloc_cq(e->dev, NULL, 64, 0, IB_POLL_DIRECT);
	if (IS_ERR(e->cq))
		return PTR_ERR(e->cq);
	qa.send_cq = e->cq;
	qa.recv_cq = e->cq;
	ret = rdma_create_qp(id, e->pd, &qa);
	if (ret)
		return ret;
	e->len = len;
	e->buf = kzalloc(len, GFP_KERNEL);
	e->info = kzalloc(sizeof(*e->info), GFP_KERNEL);
	e->rinfo = kzalloc(sizeof(*e->rinfo), GFP_KERNEL);
	e->msg = kzalloc(MSG_LEN, GFP_KERNEL);
	if (!e->buf || !e->info || !e->rinfo || !e->msg)
		return -ENOMEM;
	sg_init_one(&e->sg, e->buf, len);
	if (ib_dma_map_sg(e->dev, &e->sg, 1, DMA_BIDIRECTIONAL) != 1)
		return -EIO;
	e->sg_mapped = true;
	e->mr = ib_alloc_mr(e->pd, IB_MR_TYPE_MEM_REG, len / PAGE_SIZE + 1);
	if (IS_ERR(e->mr))
		return PTR_ERR(e->mr);
	if (ib_map_mr_sg(e->mr, &e->sg, 1, NULL, PAGE_SIZE) != 1)
		return -EIO;
	e->info_dma = ib_dma_map_single(e->dev, e->info, sizeof(*e->info),
					DMA_TO_DEVICE);
	e->rinfo_dma = ib_dma_map_single(e->dev, e->rinfo, sizeof(*e->rinfo),
					 DMA_FROM_DEVICE);
	e->msg_dma = ib_dma_map_single(e->dev, e->msg, MSG_LEN,
				       DMA_FROM_DEVICE);
	ret = post_recv(e, WR_RINFO, e->rinfo_dma, sizeof(*e->rinfo));
	if (!ret)
		ret = post_recv(e, WR_RDATA, e->msg_dma, MSG_LEN);
	return ret;
}

static void ep_teardown(struct ep *e)
{
	if (!e->id)
		return;
	if (e->id->qp)
		rdma_destroy_qp(e->id);
	if (e->msg_dma) {
		ib_dma_unmap_single(e->dev, e->info_dma, sizeof(*e->info),
				    DMA_TO_DEVICE);
		ib_dma_unmap_single(e->dev, e->rinfo_dma, sizeof(*e->rinfo),
				    DMA_FROM_DEVICE);
		ib_dma_unmap_single(e->dev, e->msg_dma, MSG_LEN,
				    DMA_FROM_DEVICE);
	}
	if (!IS_ERR_OR_NULL(e->mr))
		ib_dereg_mr(e->mr);
	if (e->sg_mapped)
		ib_dma_unmap_sg(e->dev, &e->sg, 1, DMA_BIDIRECTIONAL);
	if (!IS_ERR_OR_NULL(e->cq))
		ib_free_cq(e->cq);
	if (!IS_ERR_OR_NULL(e->pd))
		ib_dealloc_pd(e->pd);
	kfree(e->buf);
	kfree(e->info);
	kfree(e->rinfo);
	kfree(e->msg);
}

static int post_send(struct ep *e, struct ib_send_wr *wr)
{
	const struct ib_send_wr *bad;

	wr->send_flags |= IB_SEND_SIGNALED;
	return ib_post_send(e->id->qp, wr, &bad);
}

/* Register the MR (REG_MR) and tell the peer about it (SEND) */
static bool ep_publish(struct ep *e)
{
	struct ib_reg_wr reg = {
		.wr = { .wr_id = WR_REG, .opcode = IB_WR_REG_MR },
		.mr = e->mr,
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
			  IB_ACCESS_REMOTE_WRITE,
	};
	struct ib_sge sge = { .addr = e->info_dma, .length = sizeof(*e->info),
			      .lkey = e->pd->local_dma_lkey };
	struct ib_send_wr swr = { .wr_id = WR_INFO, .opcode = IB_WR_SEND,
				  .sg_list = &sge, .num_sge = 1 };

	ib_update_fast_reg_key(e->mr, ib_inc_rkey(e->mr->rkey) & 0xff);
	reg.key = e->mr->rkey;
	if (post_send(e, &reg.wr) || !ep_wait(e, WR_REG))
		return false;
	e->info->addr = cpu_to_be64(e->mr->iova);
	e->info->rkey = cpu_to_be32(e->mr->rkey);
	e->info->len = cpu_to_be32(e->len);
	return !post_send(e, &swr) && ep_wait(e, WR_INFO);
}

static void fill(u8 *p, u32 len, u8 seed)
{
	u32 i;

	for (i = 0; i < len; i++)
		p[i] = (u8)(seed + i * 7 + (i >> 8));
}

/* @a writes, reads back and sends to @b; both ends checked */
static bool exercise(struct kunit *test, struct ep *a, struct ep *b, u8 seed)
{
	u64 raddr = be64_to_cpu(a->rinfo->addr);
	u32 rkey = be32_to_cpu(a->rinfo->rkey);
	u8 *want = kunit_kmalloc(test, XFER_LEN, GFP_KERNEL);
	struct ib_sge sge = { .lkey = a->mr->lkey };
	struct ib_rdma_wr rw = { .wr.sg_list = &sge, .wr.num_sge = 1 };
	struct ib_send_wr swr = { .wr_id = WR_SEND, .opcode = IB_WR_SEND,
				  .sg_list = &sge, .num_sge = 1 };

	if (!want)
		return false;
	fill(want, XFER_LEN, seed);
	memcpy(a->buf, want, XFER_LEN);
	memset(a->buf + READ_OFF, 0, XFER_LEN);

	sge.addr = a->mr->iova;
	sge.length = XFER_LEN;
	rw.wr.wr_id = WR_WRITE;
	rw.wr.opcode = IB_WR_RDMA_WRITE;
	rw.remote_addr = raddr;
	rw.rkey = rkey;
	if (post_send(a, &rw.wr) || !ep_wait(a, WR_WRITE))
		return false;

	sge.addr = a->mr->iova + READ_OFF;
	rw.wr.wr_id = WR_READ;
	rw.wr.opcode = IB_WR_RDMA_READ;
	rw.wr.send_flags = 0;
	if (post_send(a, &rw.wr) || !ep_wait(a, WR_READ))
		return false;
	KUNIT_EXPECT_EQ(test, memcmp(a->buf + READ_OFF, want, XFER_LEN), 0);
	KUNIT_EXPECT_EQ(test, memcmp(b->buf, want, XFER_LEN), 0);

	sge.addr = a->mr->iova + 100;
	sge.length = SEND_LEN;
	if (post_send(a, &swr) || !ep_wait(a, WR_SEND) || !ep_wait(b, WR_RDATA))
		return false;
	KUNIT_EXPECT_EQ(test, b->seen[WR_RDATA].byte_len, SEND_LEN);
	KUNIT_EXPECT_EQ(test, memcmp(b->msg, want + 100, SEND_LEN), 0);
	return true;
}

/* One side of a test connection */
struct side {
	const char *dev;	/* expected RDMA device */
	const char *ip;		/* its address (the listener's matters) */
	const char *netdev;	/* a netdev of its namespace, NULL: root */
};

static bool is_ours(struct ep *e)
{
	return e->dev && e->dev->ops.driver_id == RDMA_DRIVER_UNKNOWN;
}

static void check_ours(struct kunit *test, struct ep *e, bool crc)
{
	struct kiwarp_qp *qp;

	if (!is_ours(e) || !e->id || !e->id->qp)
		return;
	qp = to_kqp(e->id->qp);
	KUNIT_EXPECT_EQ(test, qp->crc, crc);
	KUNIT_EXPECT_EQ(test, kiwarp_qp_state(qp), KIWARP_QPS_RTS);
	KUNIT_EXPECT_EQ(test, qp->mpa_rev, MPA_REVISION_2);
	KUNIT_EXPECT_GT(test, qp->stats.rx_fpdus, 6ULL);
	KUNIT_EXPECT_EQ(test, qp->stats.terms_sent, 0U);
	KUNIT_EXPECT_EQ(test, qp->stats.terms_rcvd, 0U);
}

/*
 * The client bound @cport: rdma_cm keeps showing it to the consumer
 * (iw_cm's port mapper model: local_addr is the consumer's view,
 * m_local_addr the wire's), while kiwarp's TCP socket has the port TCP
 * gave it when @cport was taken.
 */
static void check_cport(struct kunit *test, struct rdma_cm_id *cid,
			const struct side *cside, u16 cport)
{
	struct sockaddr_in *src;
	struct sockaddr_in wire = {};
	struct kiwarp_qp *qp;

	src = (struct sockaddr_in *)&cid->route.addr.src_addr;
	KUNIT_EXPECT_EQ(test, ntohs(src->sin_port), cport);
	if (!cid->qp) {
		KUNIT_FAIL(test, "client has no QP");
		return;
	}
	qp = to_kqp(cid->qp);
	mutex_lock(&qp->conn_lock);
	if (qp->sock)
		kernel_getsockname(qp->sock, (struct sockaddr *)&wire);
	mutex_unlock(&qp->conn_lock);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(wire.sin_addr.s_addr),
			be32_to_cpu(in_aton(cside->ip)));
	KUNIT_EXPECT_NE(test, ntohs(wire.sin_port), 0);
	KUNIT_EXPECT_NE(test, ntohs(wire.sin_port), cport);
}

static struct net *side_net(const struct side *s)
{
	return s->netdev ? test_find_net(s->netdev) : get_net(&init_net);
}

/*
 * kiwarp's fpdu_segs during interop_run_port(): 1 (one-segment FPDUs,
 * each message here spans several), or what a large-FPDU case sets.
 */
static unsigned int interop_segs = 1;

/* What a test does on the connection: */
enum body_result {
	BODY_FAILED,
	BODY_OK,	/* connected still: a graceful disconnect follows */
	BODY_ABORTED,	/* the body ended the connection: both ends told */
};

typedef enum body_result (*run_body)(struct kunit *test, struct ep *cli,
				     struct ep *srv);

/*
 * One connection: @srv listens, @cli connects; kiwarp asks for CRC if
 * @crc. Both sides then exercise each other, or run @body if given,
 * with MRs of @buf_len bytes. A non-zero @cport binds the client's
 * rdma_cm id to that local port.
 */
static void interop_run_port(struct kunit *test, const struct side *sside,
			     const struct side *cside, bool crc, u16 cport,
			     u32 buf_len, run_body body)
{
	enum body_result res = BODY_OK;
	struct net *srv_net = side_net(sside), *cli_net = side_net(cside);
	struct rdma_conn_param cp = {
		.initiator_depth = 4, .responder_resources = 4,
		.retry_count = 7,
	};
	struct cm_ctx sctx, cctx;
	struct rdma_cm_id *lid = NULL, *cid = NULL;
	struct sockaddr_in saddr, caddr;
	struct ep *srv, *cli;
	bool old_crc = kiwarp_mpa_crc;
	unsigned int old_segs = kiwarp_fpdu_segs;
	static u16 port = 18515;

	srv = kunit_kzalloc(test, sizeof(*srv), GFP_KERNEL);
	cli = kunit_kzalloc(test, sizeof(*cli), GFP_KERNEL);
	init_waitqueue_head(&sctx.wq);
	init_waitqueue_head(&cctx.wq);
	sctx.events = 0;
	cctx.events = 0;
	sctx.status = 0;
	cctx.status = 0;
	sctx.child = NULL;
	if (!srv_net || !cli_net || !srv || !cli) {
		KUNIT_FAIL(test, "no namespace for %s/%s or no memory",
			   sside->netdev, cside->netdev);
		goto out;
	}
	srv->test = test;
	cli->test = test;
	WRITE_ONCE(kiwarp_mpa_crc, crc);
	/* One-segment FPDUs unless a case asks for larger ones. */
	WRITE_ONCE(kiwarp_fpdu_segs, interop_segs);

	lid = rdma_create_id(srv_net, cm_handler, &sctx, RDMA_PS_TCP,
			     IB_QPT_RC);
	if (IS_ERR(lid)) {
		KUNIT_FAIL(test, "listen id %ld", PTR_ERR(lid));
		lid = NULL;
		goto out;
	}
	make_addr(&saddr, sside->ip, port++);
	if (rdma_bind_addr(lid, (struct sockaddr *)&saddr) ||
	    rdma_listen(lid, 4)) {
		KUNIT_FAIL(test, "bind/listen on %s", sside->ip);
		goto out;
	}

	cid = rdma_create_id(cli_net, cm_handler, &cctx, RDMA_PS_TCP,
			     IB_QPT_RC);
	if (IS_ERR(cid)) {
		KUNIT_FAIL(test, "client id %ld", PTR_ERR(cid));
		cid = NULL;
		goto out;
	}
	make_addr(&caddr, cside->ip, cport);
	if (rdma_resolve_addr(cid, cport ? (struct sockaddr *)&caddr : NULL,
			      (struct sockaddr *)&saddr, 5000) ||
	    !cm_wait(&cctx, RDMA_CM_EVENT_ADDR_RESOLVED) ||
	    rdma_resolve_route(cid, 5000) ||
	    !cm_wait(&cctx, RDMA_CM_EVENT_ROUTE_RESOLVED)) {
		KUNIT_FAIL(test, "address/route resolution (events %lx)",
			   cctx.events);
		goto out;
	}
	KUNIT_EXPECT_STREQ(test, dev_name(&cid->device->dev), cside->dev);
	if (ep_setup(cli, cid, buf_len)) {
		KUNIT_FAIL(test, "client setup");
		goto out;
	}
	if (cli_depths) {
		cp.initiator_depth = cli_depths->initiator_depth;
		cp.responder_resources = cli_depths->responder_resources;
	}
	if (rdma_connect(cid, &cp) ||
	    !cm_wait(&sctx, RDMA_CM_EVENT_CONNECT_REQUEST)) {
		KUNIT_FAIL(test, "no connect request (events %lx/%lx, status %d)",
			   cctx.events, sctx.events, cctx.status);
		goto out;
	}
	KUNIT_EXPECT_STREQ(test, dev_name(&sctx.child->device->dev),
			   sside->dev);
	if (ep_setup(srv, sctx.child, buf_len)) {
		KUNIT_FAIL(test, "server setup");
		goto out;
	}
	if (cli_depths) {
		/* the listener may issue what the client takes, and back */
		KUNIT_EXPECT_EQ(test, sctx.req_initiator_depth,
				cli_depths->responder_resources);
		KUNIT_EXPECT_EQ(test, sctx.req_responder_resources,
				cli_depths->initiator_depth);
		cp.initiator_depth = sctx.req_initiator_depth;
		cp.responder_resources = sctx.req_responder_resources;
	}
	rdma_lock_handler(sctx.child);
	KUNIT_EXPECT_EQ(test, rdma_accept(sctx.child, &cp), 0);
	rdma_unlock_handler(sctx.child);
	if (!cm_wait(&cctx, RDMA_CM_EVENT_ESTABLISHED) ||
	    !cm_wait(&sctx, RDMA_CM_EVENT_ESTABLISHED)) {
		KUNIT_FAIL(test, "not established (events %lx/%lx)",
			   cctx.events, sctx.events);
		goto out;
	}

	if (!ep_publish(cli) || !ep_publish(srv) ||
	    !ep_wait(cli, WR_RINFO) || !ep_wait(srv, WR_RINFO)) {
		KUNIT_FAIL(test, "MR exchange");
		goto out;
	}
	if (body) {
		res = body(test, cli, srv);
		if (res == BODY_FAILED)
			goto out;
	} else {
		if (!exercise(test, cli, srv, 0x11) ||
		    !exercise(test, srv, cli, 0x5a)) {
			KUNIT_FAIL(test, "data transfer");
			goto out;
		}
		check_ours(test, cli, crc);
		check_ours(test, srv, crc);
	}
	if (cport)
		check_cport(test, cid, cside, cport);

	if (res == BODY_OK)
		KUNIT_EXPECT_EQ(test, rdma_disconnect(cid), 0);
	KUNIT_EXPECT_TRUE(test, cm_wait(&cctx, RDMA_CM_EVENT_DISCONNECTED));
	KUNIT_EXPECT_TRUE(test, cm_wait(&sctx, RDMA_CM_EVENT_DISCONNECTED));
out:
	WRITE_ONCE(kiwarp_mpa_crc, old_crc);
	WRITE_ONCE(kiwarp_fpdu_segs, old_segs);
	if (cli)
		ep_teardown(cli);
	if (srv)
		ep_teardown(srv);
	if (sctx.child)
		rdma_destroy_id(sctx.child);
	if (cid)
		rdma_destroy_id(cid);
	if (lid)
		rdma_destroy_id(lid);
	if (srv_net)
		put_net(srv_net);
	if (cli_net)
		put_net(cli_net);
}

static void interop_run(struct kunit *test, const struct side *sside,
			const struct side *cside, bool crc)
{
	interop_run_port(test, sside, cside, crc, 0, BUF_LEN, NULL);
}

static const struct side ours_b = { "kw0", OURS_ADDR, OURS_NETDEV };
static const struct side siw_root = { "siwC", SIW_ADDR, NULL };
static const struct side kw1_root = { "kw1", "203.0.113.1", NULL };
static const struct side kw2_b = { "kw2", "203.0.113.2", "veth5" };

static void interop_siw_ours_rdma_cm(struct kunit *test)
{
	interop_run(test, &siw_root, &ours_b, false);
}

static void interop_ours_siw_rdma_cm(struct kunit *test)
{
	interop_run(test, &ours_b, &siw_root, false);
}

static void interop_siw_ours_rdma_cm_crc(struct kunit *test)
{
	interop_run(test, &siw_root, &ours_b, true);
}

static void interop_ours_siw_rdma_cm_crc(struct kunit *test)
{
	interop_run(test, &ours_b, &siw_root, true);
}

static void ours_ours_rdma_cm(struct kunit *test)
{
	interop_run(test, &kw2_b, &kw1_root, false);
}

static void ours_ours_rdma_cm_crc(struct kunit *test)
{
	interop_run(test, &kw1_root, &kw2_b, true);
}

/*
 * rdma_cm picks the active side's port in its own port space, blind to
 * TCP. A plain TCP connection (no SO_REUSEADDR) holding that port on
 * the same address must not fail the connect: kiwarp binds a port TCP
 * chooses and reports it.
 */
static void ours_ours_tcp_port_taken(struct kunit *test)
{
	struct net *bnet = side_net(&kw2_b);
	struct socket *lsock = NULL, *csock = NULL, *asock = NULL;
	struct sockaddr_in laddr, caddr;
	const u16 taken = 40123;
	int ret;

	if (!bnet) {
		KUNIT_FAIL(test, "no namespace for %s", kw2_b.netdev);
		return;
	}
	make_addr(&laddr, kw2_b.ip, 18600);
	make_addr(&caddr, kw1_root.ip, taken);
	ret = sock_create_kern(bnet, AF_INET, SOCK_STREAM, IPPROTO_TCP,
			       &lsock);
	if (!ret)
		ret = kernel_bind(lsock, (struct sockaddr *)&laddr,
				  sizeof(laddr));
	if (!ret)
		ret = kernel_listen(lsock, 1);
	if (!ret)
		ret = sock_create_kern(&init_net, AF_INET, SOCK_STREAM,
				       IPPROTO_TCP, &csock);
	if (!ret)
		ret = kernel_bind(csock, (struct sockaddr *)&caddr,
				  sizeof(caddr));
	if (!ret)
		ret = kernel_connect(csock, (struct sockaddr *)&laddr,
				     sizeof(laddr), 0);
	if (!ret)
		ret = kernel_accept(lsock, &asock, 0);
	if (ret)
		KUNIT_FAIL(test, "plain TCP connection from port %u: %d",
			   taken, ret);
	else
		interop_run_port(test, &kw2_b, &kw1_root, false, taken,
				 BUF_LEN, NULL);

	if (asock)
		sock_release(asock);
	if (csock)
		sock_release(csock);
	if (lsock)
		sock_release(lsock);
	put_net(bnet);
}

/*
 * Zero-copy transmit (zc.c). The MRs are kzalloc'd above the slab sizes,
 * so page-backed: messages of zcopy_min bytes and more are lent to TCP.
 */
#define ZC_BUF_LEN	(512 * 1024)
#define ZC_LEN		(96 * 1024)
#define ZC_READ_OFF	(256 * 1024)

/* The socket of an ours end's QP (its connection is up). */
static struct sock *ours_sk(struct ep *e)
{
	struct kiwarp_qp *qp = to_kqp(e->id->qp);
	struct sock *sk = NULL;

	mutex_lock(&qp->conn_lock);
	if (qp->sock)
		sk = qp->sock->sk;
	mutex_unlock(&qp->conn_lock);
	return sk;
}

/* @a's next send completion within @ms, or -ETIMEDOUT (no completion) */
static int poll_one(struct ep *a, struct ib_wc *wc, unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);

	for (;;) {
		if (ib_poll_cq(a->cq, 1, wc) == 1)
			return 0;
		if (time_after(jiffies, end))
			return -ETIMEDOUT;
		usleep_range(500, 1000);
	}
}

/* Post an RDMA WRITE of @len bytes from @a's MR to @b's. */
static int zc_write(struct ep *a, u32 len)
{
	struct ib_sge sge = { .addr = a->mr->iova, .length = len,
			      .lkey = a->mr->lkey };
	struct ib_rdma_wr rw = {
		.wr = { .wr_id = WR_WRITE, .opcode = IB_WR_RDMA_WRITE,
			.sg_list = &sge, .num_sge = 1 },
		.remote_addr = be64_to_cpu(a->rinfo->addr),
		.rkey = be32_to_cpu(a->rinfo->rkey),
	};

	return post_send(a, &rw.wr);
}

/*
 * @r READs ZC_LEN bytes from the start of the peer's MR into its own at
 * ZC_READ_OFF (cleared first). Return: 0 when it completed successfully.
 */
static int zc_read_back(struct ep *r)
{
	struct ib_sge sge = { .addr = r->mr->iova + ZC_READ_OFF,
			      .length = ZC_LEN, .lkey = r->mr->lkey };
	struct ib_rdma_wr rw = {
		.wr = { .wr_id = WR_READ, .opcode = IB_WR_RDMA_READ,
			.sg_list = &sge, .num_sge = 1 },
		.remote_addr = be64_to_cpu(r->rinfo->addr),
		.rkey = be32_to_cpu(r->rinfo->rkey),
	};

	memset(r->buf + ZC_READ_OFF, 0, ZC_LEN);
	return post_send(r, &rw.wr) || !ep_wait(r, WR_READ) ? -EIO : 0;
}

/*
 * Post a zero-copy WRITE from @a that the peer's TCP cannot acknowledge:
 * @a's send buffer takes it whole (only acknowledgments hold it up) and
 * the peer's socket @bsk is left locked - its segments wait in the
 * backlog - until the caller's release_sock(). Checks that the WRITE
 * was lent and is not completed within @ms. Return: 0, or -EIO with
 * @bsk unlocked.
 */
static int zc_write_held(struct kunit *test, struct ep *a, struct sock *bsk,
			 unsigned int ms)
{
	struct kiwarp_qp *aqp = to_kqp(a->id->qp);
	u64 zc = aqp->stats.tx_zc_batches;
	struct sock *ask = ours_sk(a);
	struct ib_wc wc;

	if (!ask) {
		KUNIT_FAIL(test, "no socket");
		return -EIO;
	}
	lock_sock(ask);
	ask->sk_userlocks |= SOCK_SNDBUF_LOCK;
	WRITE_ONCE(ask->sk_sndbuf, 8 << 20);
	release_sock(ask);

	lock_sock(bsk);
	if (zc_write(a, ZC_LEN)) {
		release_sock(bsk);
		KUNIT_FAIL(test, "post WRITE");
		return -EIO;
	}
	KUNIT_EXPECT_EQ_MSG(test, poll_one(a, &wc, ms), -ETIMEDOUT,
			    "WRITE completed before the peer acknowledged it");
	KUNIT_EXPECT_GT(test, aqp->stats.tx_zc_batches, zc);
	return 0;
}

/* A receive of two SGEs of @e's MR: [@off0, +@len0) and [@off1, +@len1) */
static int post_recv2(struct ep *e, int wr, u32 off0, u32 len0, u32 off1,
		      u32 len1)
{
	struct ib_sge sge[2] = {
		{ .addr = e->mr->iova + off0, .length = len0,
		  .lkey = e->mr->lkey },
		{ .addr = e->mr->iova + off1, .length = len1,
		  .lkey = e->mr->lkey },
	};
	struct ib_recv_wr rwr = { .wr_id = wr, .sg_list = sge, .num_sge = 2 };
	const struct ib_recv_wr *bad;

	return ib_post_recv(e->id->qp, &rwr, &bad);
}

/*
 * One rdma_rw context of @len bytes between @buf (mapped by rdma_rw)
 * and the peer's memory at @raddr/@rkey, as svcrdma and nvmet-rdma
 * move data: on iWARP a READ is a REG_MR of a sink MR from the QP's
 * pool chained to an RDMA Read with Invalidate of it, a WRITE plain
 * RDMA Writes. Return: 0 once its signaled completion came, or an error.
 */
static int ulp_rw(struct ep *e, void *buf, u32 len, u64 raddr, u32 rkey,
		  enum dma_data_direction dir)
{
	struct ib_qp *qp = e->id->qp;
	u32 port = e->id->port_num;
	unsigned long end = jiffies + TMO;
	struct rdma_rw_ctx ctx;
	struct scatterlist sg;
	struct ib_cqe cqe = {};
	struct ib_wc wc;
	int ret;

	sg_init_one(&sg, buf, len);
	ret = rdma_rw_ctx_init(&ctx, qp, port, &sg, 1, 0, raddr, rkey, dir);
	if (ret < 0)
		return ret;
	ret = rdma_rw_ctx_post(&ctx, qp, port, &cqe, NULL);
	while (!ret) {
		if (ib_poll_cq(e->cq, 1, &wc) == 1) {
			if (wc.wr_cqe == &cqe)
				ret = wc.status == IB_WC_SUCCESS ? 1 : -EIO;
			continue;
		}
		if (time_after(jiffies, end))
			return -ETIMEDOUT;	/* its WRs may still run */
		usleep_range(200, 500);
	}
	rdma_rw_ctx_destroy(&ctx, qp, port, &sg, 1, dir);
	return ret == 1 ? 0 : ret;
}

/*
 * The verbs patterns of the kernel's storage ULPs (issue 22 item 4),
 * from @cli to @srv, each checked on the receiving end:
 * - a Send gathered from two SGEs (nvme-rdma's in-capsule data, svcrdma
 *   replies) lands whole in a one-SGE receive;
 * - a one-SGE Send scatters over a two-SGE receive, nothing placed
 *   between the two;
 * - rdma_rw READ and WRITE contexts (ulp_rw()) of 12000 bytes, across
 *   pages, from and into the receiver's MR;
 * - Send with Invalidate (xprtrdma's and nvme-rdma's remote
 *   invalidation) completes with IB_WC_WITH_INVALIDATE and the STag,
 *   and the receiver's MR is then invalid: registering it again
 *   (REG_MR, which fails on a valid MR on kiwarp and on siw) succeeds.
 */
static enum body_result ulp_patterns(struct kunit *test, struct ep *cli,
				     struct ep *srv)
{
	struct ib_sge sge[2] = {
		{ .addr = cli->mr->iova, .length = 1000, .lkey = cli->mr->lkey },
		{ .addr = cli->mr->iova + 5000, .length = 2000,
		  .lkey = cli->mr->lkey },
	};
	struct ib_send_wr swr = { .wr_id = WR_SEND, .opcode = IB_WR_SEND,
				  .sg_list = sge, .num_sge = 2 };
	struct ib_reg_wr reg = {
		.wr = { .wr_id = WR_REG, .opcode = IB_WR_REG_MR },
		.mr = srv->mr,
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
			  IB_ACCESS_REMOTE_WRITE,
	};
	u32 rkey = be32_to_cpu(cli->rinfo->rkey);
	u64 raddr = be64_to_cpu(cli->rinfo->addr);
	u8 *rbuf, *wbuf;
	struct ib_wc *wc;
	int ret;

	fill(cli->buf, 8192, 0x42);
	/* gather: into the one-SGE receive posted at setup (srv->msg) */
	if (post_send(cli, &swr) || !ep_wait(cli, WR_SEND) ||
	    !ep_wait(srv, WR_RDATA)) {
		KUNIT_FAIL(test, "two-SGE Send");
		return BODY_FAILED;
	}
	KUNIT_EXPECT_EQ(test, srv->seen[WR_RDATA].byte_len, 3000U);
	KUNIT_EXPECT_EQ(test, memcmp(srv->msg, cli->buf, 1000), 0);
	KUNIT_EXPECT_EQ(test, memcmp(srv->msg + 1000, cli->buf + 5000, 2000),
			0);

	/* scatter: 4000 bytes over 1500 at 0 and 2500 at 8192 */
	memset(srv->buf, 0, 12288);
	sge[0].addr = cli->mr->iova + 100;
	sge[0].length = 4000;
	swr.num_sge = 1;
	if (post_recv2(srv, WR_SCATTER, 0, 1500, 8192, 2500) ||
	    post_send(cli, &swr) || !ep_wait(cli, WR_SEND) ||
	    !ep_wait(srv, WR_SCATTER)) {
		KUNIT_FAIL(test, "Send into a two-SGE receive");
		return BODY_FAILED;
	}
	KUNIT_EXPECT_EQ(test, srv->seen[WR_SCATTER].byte_len, 4000U);
	KUNIT_EXPECT_EQ(test, memcmp(srv->buf, cli->buf + 100, 1500), 0);
	KUNIT_EXPECT_EQ(test, memcmp(srv->buf + 8192, cli->buf + 1600, 2500),
			0);
	KUNIT_EXPECT_PTR_EQ(test, memchr_inv(srv->buf + 1500, 0, 8192 - 1500),
			    NULL);

	/* rdma_rw: READ the receiver's first 12000 bytes, WRITE others */
	rbuf = kunit_kzalloc(test, RW_LEN, GFP_KERNEL);
	wbuf = kunit_kmalloc(test, RW_LEN, GFP_KERNEL);
	if (!rbuf || !wbuf) {
		KUNIT_FAIL(test, "no memory");
		return BODY_FAILED;
	}
	fill(srv->buf, RW_LEN, 0x17);
	fill(wbuf, RW_LEN, 0x65);
	ret = ulp_rw(cli, rbuf, RW_LEN, raddr, rkey, DMA_FROM_DEVICE);
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "rdma_rw READ");
	if (ret)
		return BODY_FAILED;
	KUNIT_EXPECT_EQ(test, memcmp(rbuf, srv->buf, RW_LEN), 0);
	ret = ulp_rw(cli, wbuf, RW_LEN, raddr + 2048, rkey, DMA_TO_DEVICE);
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "rdma_rw WRITE");
	if (ret)
		return BODY_FAILED;
	/* the WRITE is placed before the Send below completes there */

	/* Send with Invalidate of the receiver's MR */
	sge[0].length = 64;
	swr.opcode = IB_WR_SEND_WITH_INV;
	swr.ex.invalidate_rkey = rkey;
	if (post_recv(srv, WR_SINV, srv->msg_dma, MSG_LEN) ||
	    post_send(cli, &swr) || !ep_wait(cli, WR_SEND) ||
	    !ep_wait(srv, WR_SINV)) {
		KUNIT_FAIL(test, "Send with Invalidate");
		return BODY_FAILED;
	}
	wc = &srv->seen[WR_SINV];
	KUNIT_EXPECT_EQ(test, memcmp(srv->buf + 2048, wbuf, RW_LEN), 0);
	KUNIT_EXPECT_EQ(test, memcmp(srv->buf, rbuf, 2048), 0);	/* kept */
	KUNIT_EXPECT_EQ(test, wc->byte_len, 64U);
	KUNIT_EXPECT_TRUE(test, wc->wc_flags & IB_WC_WITH_INVALIDATE);
	KUNIT_EXPECT_EQ(test, wc->ex.invalidate_rkey, rkey);
	ib_update_fast_reg_key(srv->mr, ib_inc_rkey(srv->mr->rkey) & 0xff);
	reg.key = srv->mr->rkey;
	if (post_send(srv, &reg.wr) || !ep_wait(srv, WR_REG)) {
		KUNIT_FAIL(test, "REG_MR after the remote invalidation");
		return BODY_FAILED;
	}
	return BODY_OK;
}

static void ulp_run(struct kunit *test, const struct side *sside,
		    const struct side *cside)
{
	interop_run_port(test, sside, cside, false, 0, BUF_LEN, ulp_patterns);
}

static void ulp_ours_ours(struct kunit *test)
{
	ulp_run(test, &kw2_b, &kw1_root);
}

/* kiwarp sends, siw receives */
static void ulp_ours_to_siw(struct kunit *test)
{
	ulp_run(test, &siw_root, &ours_b);
}

/* siw sends, kiwarp receives */
static void ulp_siw_to_ours(struct kunit *test)
{
	ulp_run(test, &ours_b, &siw_root);
}

/*
 * An ours end's FPDU bound (qp->fpdu_max): interop_segs MSS of the path
 * when both MPA frames offered FPDUs longer than a segment (@large),
 * else one MSS.
 */
static void check_fpdu_max(struct kunit *test, struct ep *e, bool large)
{
	struct kiwarp_qp *qp;
	u32 mss = 0;

	if (!is_ours(e) || !e->id->qp)
		return;
	qp = to_kqp(e->id->qp);
	mutex_lock(&qp->conn_lock);
	if (qp->sock)
		mss = max_t(u32, tcp_sk(qp->sock->sk)->mss_cache, 128);
	mutex_unlock(&qp->conn_lock);
	KUNIT_EXPECT_EQ(test, qp->fpdu_max, mss * (large ? interop_segs : 1));
}

/*
 * Large FPDUs (issue 17): with fpdu_segs > 1 kiwarp offers them in its
 * MPA frames (MPA_FLAG_GSO_EXP, siw's bit) and sends them only when the
 * peer's frame offered them too. The client's offer decides: siw (its
 * try_gso is off) never offers in a Request, and as a responder it
 * echoes the Request's flags, the bit included, and takes large FPDUs.
 * Each end WRITEs ZC_LEN bytes (several FPDUs of either size) and READs
 * them back; both copies must be equal.
 */
static enum body_result large_fpdus(struct kunit *test, struct ep *cli,
				    struct ep *srv)
{
	bool large = is_ours(cli);
	struct ep *e[2] = { cli, srv };
	u8 *want = kunit_kmalloc(test, ZC_LEN, GFP_KERNEL);
	int i;

	if (!want) {
		KUNIT_FAIL(test, "no memory");
		return BODY_FAILED;
	}
	check_fpdu_max(test, cli, large);
	check_fpdu_max(test, srv, large);
	for (i = 0; i < 2; i++) {
		struct ep *a = e[i], *b = e[1 - i];

		fill(want, ZC_LEN, 0x21 + i);
		memcpy(a->buf, want, ZC_LEN);
		if (zc_write(a, ZC_LEN) || !ep_wait(a, WR_WRITE) ||
		    zc_read_back(a)) {
			KUNIT_FAIL(test, "WRITE and READ back from end %d", i);
			return BODY_FAILED;
		}
		KUNIT_EXPECT_EQ(test, memcmp(b->buf, want, ZC_LEN), 0);
		KUNIT_EXPECT_EQ(test,
				memcmp(a->buf + ZC_READ_OFF, want, ZC_LEN), 0);
	}
	return BODY_OK;
}

static void large_run(struct kunit *test, const struct side *sside,
		      const struct side *cside, bool crc)
{
	interop_segs = 8;
	interop_run_port(test, sside, cside, crc, 0, ZC_BUF_LEN, large_fpdus);
	interop_segs = 1;
}

static void large_fpdu_ours_ours(struct kunit *test)
{
	large_run(test, &kw2_b, &kw1_root, false);
}

static void large_fpdu_ours_ours_crc(struct kunit *test)
{
	large_run(test, &kw1_root, &kw2_b, true);
}

/* siw's Reply echoes our offer: our large FPDUs to siw, siw's small */
static void large_fpdu_siw_listener(struct kunit *test)
{
	large_run(test, &siw_root, &ours_b, false);
}

/* siw's Request offers none: kiwarp sends one-segment FPDUs */
static void large_fpdu_ours_listener_siw(struct kunit *test)
{
	large_run(test, &ours_b, &siw_root, true);
}

/*
 * A WRITE lent to TCP completes only once the peer's TCP acknowledged
 * it: with the peer's socket locked (segments wait in its backlog,
 * unacknowledged) and a send buffer that takes the whole WRITE, no
 * completion may come; once the peer runs again it does, and the data
 * is there. A READ's response is copied, never lent (issue 19, 9:
 * nothing on the responder could wait for TCP to release the pages
 * before the memory is invalidated and reused).
 */
static enum body_result zc_acked(struct kunit *test, struct ep *a,
				 struct ep *b)
{
	struct kiwarp_qp *aqp = to_kqp(a->id->qp), *bqp = to_kqp(b->id->qp);
	u8 *want = kunit_kmalloc(test, ZC_LEN, GFP_KERNEL);
	u64 bzc = bqp->stats.tx_zc_batches;
	struct sock *bsk = ours_sk(b);

	if (!want || !bsk) {
		KUNIT_FAIL(test, "no memory or no socket");
		return BODY_FAILED;
	}
	KUNIT_EXPECT_FALSE(test, PageSlab(virt_to_head_page(a->buf)));
	fill(want, ZC_LEN, 0x33);
	memcpy(a->buf, want, ZC_LEN);
	if (zc_write_held(test, a, bsk, 300))
		return BODY_FAILED;
	release_sock(bsk);
	if (!ep_wait(a, WR_WRITE))
		return BODY_FAILED;

	/*
	 * READ: b answers by copy. Its response follows the WRITE's
	 * placement (RDMAP ordering): b->buf is checked after it, not at
	 * the WRITE's completion.
	 */
	if (zc_read_back(a))
		return BODY_FAILED;
	KUNIT_EXPECT_EQ(test, memcmp(b->buf, want, ZC_LEN), 0);
	KUNIT_EXPECT_EQ(test, memcmp(a->buf + ZC_READ_OFF, want, ZC_LEN), 0);
	KUNIT_EXPECT_EQ(test, bqp->stats.tx_zc_batches, bzc);
	KUNIT_EXPECT_EQ(test, aqp->stats.terms_sent + bqp->stats.terms_sent,
			0U);
	return BODY_OK;
}

/*
 * The connection is aborted while TCP holds a zero-copy WRITE the peer
 * has not acknowledged: the WRITE is flushed, never completed as done;
 * both ends are told; nothing leaks (kmemleak) when TCP lets go later.
 */
static enum body_result zc_abort(struct kunit *test, struct ep *a,
				 struct ep *b)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct sock *bsk = ours_sk(b);
	struct ib_wc wc;
	int ret;

	if (!bsk) {
		KUNIT_FAIL(test, "no socket");
		return BODY_FAILED;
	}
	if (zc_write_held(test, a, bsk, 200))
		return BODY_FAILED;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(a->id->qp, &attr, IB_QP_STATE), 0);
	/* the posted receives are flushed too; the WRITE is what counts */
	do {
		ret = poll_one(a, &wc, 10000);
		if (!ret)
			KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	} while (!ret && wc.wr_id != WR_WRITE);
	release_sock(bsk);
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "the WRITE was not flushed");
	return BODY_ABORTED;
}

/* A connection with zero-copy transmit from 64 KiB on (zcopy_min). */
static void zc_run(struct kunit *test, const struct side *sside,
		   const struct side *cside, bool crc, run_body body)
{
	int old = READ_ONCE(kiwarp_zcopy_min);

	WRITE_ONCE(kiwarp_zcopy_min, 65536);
	interop_run_port(test, sside, cside, crc, 0, ZC_BUF_LEN, body);
	WRITE_ONCE(kiwarp_zcopy_min, old);
}

static void ours_ours_zcopy(struct kunit *test)
{
	zc_run(test, &kw2_b, &kw1_root, false, zc_acked);
}

static void ours_ours_zcopy_crc(struct kunit *test)
{
	zc_run(test, &kw1_root, &kw2_b, true, zc_acked);
}

static void ours_ours_zcopy_abort(struct kunit *test)
{
	zc_run(test, &kw2_b, &kw1_root, false, zc_abort);
}

/* siw receives what we lend; its READs of our memory are answered by copy */
static enum body_result zc_siw(struct kunit *test, struct ep *a,
			       struct ep *b)
{
	struct ep *ours = is_ours(a) ? a : b, *siw = ours == a ? b : a;
	struct kiwarp_qp *qp = to_kqp(ours->id->qp);
	u8 *want = kunit_kmalloc(test, ZC_LEN, GFP_KERNEL);
	u64 zc = qp->stats.tx_zc_batches;

	if (!want)
		return BODY_FAILED;
	fill(want, ZC_LEN, 0x77);
	memcpy(ours->buf, want, ZC_LEN);
	if (zc_write(ours, ZC_LEN) || !ep_wait(ours, WR_WRITE))
		return BODY_FAILED;
	/* siw READs it back: ordered after the WRITE's placement */
	if (zc_read_back(siw))
		return BODY_FAILED;
	KUNIT_EXPECT_EQ(test, memcmp(siw->buf, want, ZC_LEN), 0);
	KUNIT_EXPECT_EQ(test, memcmp(siw->buf + ZC_READ_OFF, want, ZC_LEN),
			0);
	KUNIT_EXPECT_GT(test, qp->stats.tx_zc_batches, zc);
	KUNIT_EXPECT_EQ(test, qp->stats.terms_sent + qp->stats.terms_rcvd,
			0U);
	return BODY_OK;
}

static void interop_ours_siw_zcopy(struct kunit *test)
{
	zc_run(test, &ours_b, &siw_root, false, zc_siw);
}

static void interop_ours_siw_zcopy_crc(struct kunit *test)
{
	zc_run(test, &siw_root, &ours_b, true, zc_siw);
}

/* --- what the kernel's storage ULPs rely on (issue 22) --------------- */

/*
 * The server READs the client's buffer (as svcrdma and nvmet-rdma fetch
 * a request's data), with the depth its CONNECT_REQUEST reported.
 */
static enum body_result srv_reads(struct kunit *test, struct ep *cli,
				  struct ep *srv)
{
	u8 *want = kunit_kmalloc(test, ZC_LEN, GFP_KERNEL);

	if (!want)
		return BODY_FAILED;
	fill(want, ZC_LEN, 0x4d);
	memcpy(cli->buf, want, ZC_LEN);
	if (zc_read_back(srv)) {
		KUNIT_FAIL(test, "the server's READ failed");
		return BODY_FAILED;
	}
	KUNIT_EXPECT_EQ(test, memcmp(srv->buf + ZC_READ_OFF, want, ZC_LEN), 0);
	return BODY_OK;
}

/*
 * A client that issues no Read and takes 4 (xprtrdma's parameters): the
 * listener's CONNECT_REQUEST must let it issue 4 and take none, as siw
 * reports it - svcrdma refused the connection when kiwarp said 0
 * ("svcrdma_initdepth_err"). Checked for our listener with both our and
 * siw's client, and for siw's listener with ours as the control.
 */
static void depths_run(struct kunit *test, const struct side *sside,
		       const struct side *cside)
{
	static const struct rdma_conn_param xprtrdma_like = {
		.initiator_depth = 0, .responder_resources = 4,
	};
	cli_depths = &xprtrdma_like;
	interop_run_port(test, sside, cside, false, 0, ZC_BUF_LEN, srv_reads);
	cli_depths = NULL;
}

static void depths_ours_listener_ours_client(struct kunit *test)
{
	depths_run(test, &kw2_b, &kw1_root);
}

static void depths_ours_listener_siw_client(struct kunit *test)
{
	depths_run(test, &ours_b, &siw_root);
}

static void depths_siw_listener_ours_client(struct kunit *test)
{
	depths_run(test, &siw_root, &ours_b);
}

/*
 * RDMA Read with Invalidate (rdma_rw's iWARP Read): the client READs
 * into its MR and has it invalidated by the Read's completion. The data
 * is there; our MR is no longer valid (siw's, as the control, is not
 * looked into).
 */
static enum body_result read_inv(struct kunit *test, struct ep *cli,
				 struct ep *srv)
{
	u8 *want = kunit_kmalloc(test, ZC_LEN, GFP_KERNEL);
	struct ib_sge sge = { .addr = cli->mr->iova + ZC_READ_OFF,
			      .length = ZC_LEN, .lkey = cli->mr->lkey };
	struct ib_rdma_wr rw = {
		.wr = { .wr_id = WR_READ, .opcode = IB_WR_RDMA_READ_WITH_INV,
			.sg_list = &sge, .num_sge = 1,
			.ex.invalidate_rkey = cli->mr->lkey },
		.remote_addr = be64_to_cpu(cli->rinfo->addr),
		.rkey = be32_to_cpu(cli->rinfo->rkey),
	};

	if (!want)
		return BODY_FAILED;
	fill(want, ZC_LEN, 0x6e);
	memcpy(srv->buf, want, ZC_LEN);
	memset(cli->buf + ZC_READ_OFF, 0, ZC_LEN);
	/* no ASSERT here: interop_run_port() must clean up */
	if (post_send(cli, &rw.wr)) {
		KUNIT_FAIL(test, "READ_WITH_INV refused");
		return BODY_FAILED;
	}
	if (!ep_wait(cli, WR_READ)) {
		KUNIT_FAIL(test, "READ_WITH_INV: status %d",
			   cli->seen[WR_READ].status);
		return BODY_FAILED;
	}
	KUNIT_EXPECT_EQ(test, cli->seen[WR_READ].opcode, IB_WC_RDMA_READ);
	KUNIT_EXPECT_EQ(test, memcmp(cli->buf + ZC_READ_OFF, want, ZC_LEN), 0);
	if (is_ours(cli)) {
		struct kiwarp_mr *mr = kiwarp_mr_get(to_kdev(cli->dev),
						     cli->mr->lkey);

		KUNIT_EXPECT_NOT_NULL(test, mr);
		if (mr) {
			KUNIT_EXPECT_EQ(test,
					kiwarp_mr_check(mr, cli->pd,
							IB_ACCESS_LOCAL_WRITE,
							cli->mr->iova, 1),
					RDMAP_ECODE_INVALID_STAG);
			kiwarp_mr_put(mr);
		}
	}
	return BODY_OK;
}

/* --- messages back to back share TCP segments (issue 17 item 3) ----- */

#define CHAIN_ROUNDS	10

/*
 * A WRITE, a READ and a fenced SEND posted in one chain: the WRITE and
 * the Read Request go to TCP with MSG_MORE (a message is queued behind
 * each), then the SEND waits for the Read Response - so the TX work
 * stops with TCP holding the Read Request in a partial segment, and
 * must push it. Had it not, the request would wait for TCP's probe
 * timer (or an ACK from the peer): in the debug guest 10 rounds took
 * 2200 ms that way, 90 ms with the push, so they must take less than
 * 30 ms each on average.
 */
static enum body_result chain_fence(struct kunit *test, struct ep *cli,
				    struct ep *srv)
{
	struct ib_sge wsge = { .addr = cli->mr->iova, .length = 2000,
			       .lkey = cli->mr->lkey };
	struct ib_sge rsge = { .addr = cli->mr->iova + READ_OFF,
			       .length = 2000, .lkey = cli->mr->lkey };
	struct ib_sge ssge = { .addr = cli->mr->iova + 100, .length = 100,
			       .lkey = cli->mr->lkey };
	struct ib_rdma_wr w = {
		.wr = { .wr_id = WR_WRITE, .opcode = IB_WR_RDMA_WRITE,
			.sg_list = &wsge, .num_sge = 1,
			.send_flags = IB_SEND_SIGNALED },
		.remote_addr = be64_to_cpu(cli->rinfo->addr),
		.rkey = be32_to_cpu(cli->rinfo->rkey),
	};
	struct ib_rdma_wr r = w;
	struct ib_send_wr snd = {
		.wr_id = WR_SEND, .opcode = IB_WR_SEND, .sg_list = &ssge,
		.num_sge = 1, .send_flags = IB_SEND_SIGNALED | IB_SEND_FENCE,
	};
	const struct ib_send_wr *bad;
	ktime_t t0 = ktime_get();
	s64 ms;
	int i;

	r.wr.wr_id = WR_READ;
	r.wr.opcode = IB_WR_RDMA_READ;
	r.wr.sg_list = &rsge;
	w.wr.next = &r.wr;
	r.wr.next = &snd;
	for (i = 0; i < CHAIN_ROUNDS; i++) {
		fill(cli->buf, 2000, 0x20 + i);
		memset(cli->buf + READ_OFF, 0, 2000);
		if (ib_post_send(cli->id->qp, &w.wr, &bad) ||
		    !ep_wait(cli, WR_WRITE) || !ep_wait(cli, WR_READ) ||
		    !ep_wait(cli, WR_SEND) || !ep_wait(srv, WR_RDATA) ||
		    post_recv(srv, WR_RDATA, srv->msg_dma, MSG_LEN)) {
			KUNIT_FAIL(test, "chain %d failed", i);
			return BODY_FAILED;
		}
		KUNIT_EXPECT_EQ(test, memcmp(cli->buf + READ_OFF, cli->buf,
					     2000), 0);
		KUNIT_EXPECT_EQ(test, memcmp(srv->msg, cli->buf + 100, 100), 0);
	}
	ms = ktime_ms_delta(ktime_get(), t0);
	kunit_info(test, "%d chains in %lld ms", CHAIN_ROUNDS, ms);
	KUNIT_EXPECT_LT_MSG(test, ms, CHAIN_ROUNDS * 30LL,
			    "a corked Read Request waited for TCP's timer");
	return BODY_OK;
}

static void chain_fence_ours_ours(struct kunit *test)
{
	interop_run_port(test, &kw2_b, &kw1_root, false, 0, BUF_LEN,
			 chain_fence);
}

static void chain_fence_ours_to_siw(struct kunit *test)
{
	interop_run_port(test, &siw_root, &ours_b, false, 0, BUF_LEN,
			 chain_fence);
}

/*
 * More Reads in one chain than the connection's ORD (4): the fifth
 * waits in the SQ for a Read Response to free an ORQ slot, and only
 * the receive path can wake the TX work for it (it kicks when a WQE
 * is still untaken). Only the last Read is signaled; every region must
 * hold its data when it completes.
 */
#define OVER_ORD_READS	9
#define OVER_ORD_LEN	800

/*
 * Post @n RDMA Reads of @len bytes in one chain, only the last
 * signaled: the i-th from @srv's buffer at i * @len (filled with @seed
 * + i) to @cli's at READ_OFF + i * @len (zeroed). No ASSERT here:
 * interop_run_port() must clean up. Return: whether it was posted.
 */
static bool post_read_chain(struct kunit *test, struct ep *cli,
			    struct ep *srv, int n, u32 len, u8 seed)
{
	struct ib_sge *sge = kunit_kcalloc(test, n, sizeof(*sge), GFP_KERNEL);
	struct ib_rdma_wr *r = kunit_kcalloc(test, n, sizeof(*r), GFP_KERNEL);
	const struct ib_send_wr *bad;
	int i;

	if (!sge || !r) {
		KUNIT_FAIL(test, "no memory");
		return false;
	}
	for (i = 0; i < n; i++) {
		fill(srv->buf + i * len, len, seed + i);
		sge[i] = (struct ib_sge) {
			.addr = cli->mr->iova + READ_OFF + i * len,
			.length = len, .lkey = cli->mr->lkey,
		};
		r[i].wr.wr_id = WR_READ;
		r[i].wr.opcode = IB_WR_RDMA_READ;
		r[i].wr.sg_list = &sge[i];
		r[i].wr.num_sge = 1;
		r[i].wr.next = i + 1 < n ? &r[i + 1].wr : NULL;
		r[i].remote_addr = be64_to_cpu(cli->rinfo->addr) + i * len;
		r[i].rkey = be32_to_cpu(cli->rinfo->rkey);
	}
	r[n - 1].wr.send_flags = IB_SEND_SIGNALED;
	memset(cli->buf + READ_OFF, 0, n * len);
	if (ib_post_send(cli->id->qp, &r[0].wr, &bad)) {
		KUNIT_FAIL(test, "chain of %d Reads refused", n);
		return false;
	}
	return true;
}

static enum body_result reads_over_ord(struct kunit *test, struct ep *cli,
				       struct ep *srv)
{
	BUILD_BUG_ON(READ_OFF + OVER_ORD_READS * OVER_ORD_LEN > BUF_LEN);
	if (!post_read_chain(test, cli, srv, OVER_ORD_READS, OVER_ORD_LEN,
			     0x31))
		return BODY_FAILED;
	if (!ep_wait(cli, WR_READ)) {
		KUNIT_FAIL(test, "Reads over the ORD: no completion in time");
		return BODY_FAILED;
	}
	KUNIT_EXPECT_EQ(test, cli->seen[WR_READ].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, memcmp(cli->buf + READ_OFF, srv->buf,
				     OVER_ORD_READS * OVER_ORD_LEN), 0);
	return BODY_OK;
}

static void reads_over_ord_ours_ours(struct kunit *test)
{
	interop_run_port(test, &kw2_b, &kw1_root, false, 0, BUF_LEN,
			 reads_over_ord);
}

static void reads_over_ord_ours_to_siw(struct kunit *test)
{
	interop_run_port(test, &siw_root, &ours_b, false, 0, BUF_LEN,
			 reads_over_ord);
}

/*
 * A graceful disconnect asked while Reads are outstanding, some of them
 * still in the SQ behind the ORD (review of e438185): our FIN must wait
 * for the last Read Response, and the RX path must kick the TX work in
 * CLOSING so that it goes then. Every Read completes with its data, both
 * ends see DISCONNECTED within half of kiwarp's close bound (6.7x what
 * the siw case took on the debug guest), and our QP went down with
 * status 0 - not reset at the bound. Responses of 32 KiB are
 * placed by the RX work on the other CPU (more than rx.c's inline
 * bytes), whose kick is the one that matters.
 */
#define DISC_READS	9
#define DISC_READ_LEN	(32 * 1024)

static enum body_result reads_then_disconnect(struct kunit *test,
					      struct ep *cli, struct ep *srv)
{
	struct cm_ctx *cc = cli->id->context, *sc = srv->id->context;
	unsigned int tmo = READ_ONCE(kiwarp_close_timeout_ms);
	ktime_t t0 = ktime_get();
	s64 ms;

	BUILD_BUG_ON(READ_OFF + DISC_READS * DISC_READ_LEN > ZC_BUF_LEN);
	if (!post_read_chain(test, cli, srv, DISC_READS, DISC_READ_LEN, 0x41))
		return BODY_FAILED;
	KUNIT_EXPECT_EQ(test, rdma_disconnect(cli->id), 0);
	if (!ep_wait(cli, WR_READ)) {
		KUNIT_FAIL(test, "Reads before the FIN: no completion in time");
		return BODY_FAILED;
	}
	/* an unsignaled Read that failed completes with the same wr_id */
	KUNIT_EXPECT_EQ(test, cli->seen[WR_READ].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, memcmp(cli->buf + READ_OFF, srv->buf,
				     DISC_READS * DISC_READ_LEN), 0);
	if (!cm_wait(cc, RDMA_CM_EVENT_DISCONNECTED) ||
	    !cm_wait(sc, RDMA_CM_EVENT_DISCONNECTED)) {
		KUNIT_FAIL(test, "no DISCONNECTED (events %lx/%lx)",
			   cc->events, sc->events);
		return BODY_FAILED;
	}
	ms = ktime_ms_delta(ktime_get(), t0);
	kunit_info(test, "%d Reads and the close in %lld ms", DISC_READS, ms);
	/* the bound of a close gone wrong; down_status tells it too */
	KUNIT_EXPECT_LT_MSG(test, ms, (s64)tmo / 2,
			    "the close waited for its bound");
	/* an orderly close, on both ends that are ours */
	if (is_ours(cli))
		KUNIT_EXPECT_EQ(test,
				READ_ONCE(to_kqp(cli->id->qp)->down_status), 0);
	if (is_ours(srv))
		KUNIT_EXPECT_EQ(test,
				READ_ONCE(to_kqp(srv->id->qp)->down_status), 0);
	return BODY_ABORTED;	/* disconnected already */
}

static void reads_then_disconnect_ours_ours(struct kunit *test)
{
	interop_run_port(test, &kw2_b, &kw1_root, false, 0, ZC_BUF_LEN,
			 reads_then_disconnect);
}

static void reads_then_disconnect_ours_to_siw(struct kunit *test)
{
	interop_run_port(test, &siw_root, &ours_b, false, 0, ZC_BUF_LEN,
			 reads_then_disconnect);
}

static void read_inv_ours_ours(struct kunit *test)
{
	interop_run_port(test, &kw2_b, &kw1_root, false, 0, ZC_BUF_LEN,
			 read_inv);
}

static void read_inv_ours_from_siw(struct kunit *test)
{
	interop_run_port(test, &siw_root, &ours_b, false, 0, ZC_BUF_LEN,
			 read_inv);
}

static struct kunit_case kiwarp_interop_cases[] = {
	KUNIT_CASE(interop_siw_ours_rdma_cm),
	KUNIT_CASE(interop_ours_siw_rdma_cm),
	KUNIT_CASE(interop_siw_ours_rdma_cm_crc),
	KUNIT_CASE(interop_ours_siw_rdma_cm_crc),
	KUNIT_CASE(ours_ours_rdma_cm),
	KUNIT_CASE(ours_ours_rdma_cm_crc),
	KUNIT_CASE(ours_ours_tcp_port_taken),
	KUNIT_CASE(ours_ours_zcopy),
	KUNIT_CASE(ours_ours_zcopy_crc),
	KUNIT_CASE(ours_ours_zcopy_abort),
	KUNIT_CASE(interop_ours_siw_zcopy),
	KUNIT_CASE(interop_ours_siw_zcopy_crc),
	KUNIT_CASE(ulp_ours_ours),
	KUNIT_CASE(ulp_ours_to_siw),
	KUNIT_CASE(ulp_siw_to_ours),
	KUNIT_CASE(large_fpdu_ours_ours),
	KUNIT_CASE(large_fpdu_ours_ours_crc),
	KUNIT_CASE(large_fpdu_siw_listener),
	KUNIT_CASE(large_fpdu_ours_listener_siw),
	KUNIT_CASE(depths_ours_listener_ours_client),
	KUNIT_CASE(depths_ours_listener_siw_client),
	KUNIT_CASE(depths_siw_listener_ours_client),
	KUNIT_CASE(chain_fence_ours_ours),
	KUNIT_CASE(chain_fence_ours_to_siw),
	KUNIT_CASE(reads_over_ord_ours_ours),
	KUNIT_CASE(reads_over_ord_ours_to_siw),
	KUNIT_CASE(reads_then_disconnect_ours_ours),
	KUNIT_CASE(reads_then_disconnect_ours_to_siw),
	KUNIT_CASE(read_inv_ours_ours),
	KUNIT_CASE(read_inv_ours_from_siw),
	{}
};

static struct kunit_suite kiwarp_interop_suite = {
	.name = "kiwarp_interop",
	.test_cases = kiwarp_interop_cases,
};

kunit_test_suite(kiwarp_interop_suite);

MODULE_DESCRIPTION("KUnit interop tests: kiwarp against siw over rdma_cm");
MODULE_IMPORT_NS(KIWARP_INTERNAL);
MODULE_LICENSE("GPL");
