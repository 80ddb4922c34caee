// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "kiwarp_wire": malformed input from a raw peer. A plain
 * kernel TCP socket in the root namespace plays the MPA initiator
 * against an rdma_cm listener on kw0 (veth2, 198.51.100.1, namespace
 * "b"), then sends one bad FPDU built with the proto/ codecs. Each case
 * expects a TERMINATE with the right layer, error type and code back,
 * the QP in ERROR, rdma_cm's DISCONNECTED, no byte placed outside the
 * registered region, and no kernel splat. The markers case expects an
 * MPA reject Reply instead.
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/net.h>
#include <linux/rtnetlink.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <rdma/rdma_cm.h>
#include <rdma/ib_verbs.h>

#include "kiwarp.h"
#include "test_net.h"

#define OURS_ADDR	"198.51.100.1"
#define OURS_NETDEV	"veth2"
#define REG_LEN		4096
#define GUARD		64
#define RECV_LEN	64
#define TMO		(10 * HZ)

struct wire_ctx {
	struct kunit *test;
	wait_queue_head_t wq;
	unsigned long events;
	struct rdma_cm_id *child;
	struct net *net;
	struct rdma_cm_id *lid;
	struct socket *sock;
	struct ib_pd *pd;
	struct ib_cq *cq;
	u8 *buf;		/* GUARD | REG_LEN registered | GUARD */
	struct scatterlist sg;
	bool sg_mapped;
	struct ib_mr *mr;
	u8 *rbuf;
	u64 rbuf_dma;
	struct kiwarp_qp *qp;
	u8 frame[MPA_FPDU_MAX_LEN];
	u8 ulpdu[DDP_HDR_MAX + 256];
};

static int wire_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct wire_ctx *c = id->context;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		c->child = id;
	set_bit(ev->event, &c->events);
	wake_up(&c->wq);
	return 0;
}

static bool wire_wait(struct wire_ctx *c, int ev)
{
	return wait_event_timeout(c->wq, test_bit(ev, &c->events), TMO) > 0;
}

static int raw_send(struct socket *s, const void *buf, size_t len)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };

	return kernel_sendmsg(s, &msg, &iov, 1, len) == len ? 0 : -EIO;
}

static int raw_recv(struct socket *s, void *buf, size_t len)
{
	struct kvec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = {};

	return kernel_recvmsg(s, &msg, &iov, 1, len, MSG_WAITALL) == len ?
	       0 : -EIO;
}

static int wire_init(struct kunit *test)
{
	struct wire_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	if (!c)
		return -ENOMEM;
	c->test = test;
	init_waitqueue_head(&c->wq);
	c->net = test_find_net(OURS_NETDEV);
	test->priv = c;
	return 0;
}

static void wire_exit(struct kunit *test)
{
	struct wire_ctx *c = test->priv;

	if (c->sock)
		sock_release(c->sock);
	if (c->child && c->child->qp)
		rdma_destroy_qp(c->child);
	if (c->rbuf_dma)
		ib_dma_unmap_single(c->pd->device, c->rbuf_dma, RECV_LEN,
				    DMA_FROM_DEVICE);
	if (!IS_ERR_OR_NULL(c->mr))
		ib_dereg_mr(c->mr);
	if (c->sg_mapped)
		ib_dma_unmap_sg(c->pd->device, &c->sg, 1, DMA_BIDIRECTIONAL);
	if (!IS_ERR_OR_NULL(c->cq))
		ib_free_cq(c->cq);
	if (!IS_ERR_OR_NULL(c->pd))
		ib_dealloc_pd(c->pd);
	if (c->child)
		rdma_destroy_id(c->child);
	if (c->lid)
		rdma_destroy_id(c->lid);
	kfree(c->buf);
	kfree(c->rbuf);
	if (c->net)
		put_net(c->net);
}

/* Server side after CONNECT_REQUEST: QP, MR, receives, accept */
static int wire_accept(struct wire_ctx *c, int mr_access, int nrecv)
{
	struct rdma_cm_id *id = c->child;
	struct ib_qp_init_attr qa = {
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	struct rdma_conn_param cp = { .initiator_depth = 4,
				      .responder_resources = 4 };
	struct ib_sge sge;
	struct ib_recv_wr rwr = { .sg_list = &sge, .num_sge = 1 };
	const struct ib_recv_wr *bad;
	int ret, i;

	c->pd = ib_alloc_pd(id->device, 0);
	if (IS_ERR(c->pd))
		return PTR_ERR(c->pd);
	c->cq = ib_alloc_cq(id->device, NULL, 32, 0, IB_POLL_DIRECT);
	if (IS_ERR(c->cq))
		return PTR_ERR(c->cq);
	qa.send_cq = c->cq;
	qa.recv_cq = c->cq;
	ret = rdma_create_qp(id, c->pd, &qa);
	if (ret)
		return ret;
	c->qp = to_kqp(id->qp);
	c->buf = kzalloc(REG_LEN + 2 * GUARD, GFP_KERNEL);
	c->rbuf = kzalloc(RECV_LEN, GFP_KERNEL);
	if (!c->buf || !c->rbuf)
		return -ENOMEM;
	sg_init_one(&c->sg, c->buf + GUARD, REG_LEN);
	if (ib_dma_map_sg(id->device, &c->sg, 1, DMA_BIDIRECTIONAL) != 1)
		return -EIO;
	c->sg_mapped = true;
	c->mr = ib_alloc_mr(c->pd, IB_MR_TYPE_MEM_REG, 4);
	if (IS_ERR(c->mr))
		return PTR_ERR(c->mr);
	if (ib_map_mr_sg(c->mr, &c->sg, 1, NULL, PAGE_SIZE) != 1)
		return -EIO;
	c->rbuf_dma = ib_dma_map_single(id->device, c->rbuf, RECV_LEN,
					DMA_FROM_DEVICE);
	sge.addr = c->rbuf_dma;
	sge.length = RECV_LEN;
	sge.lkey = c->pd->local_dma_lkey;
	for (i = 0; i < nrecv; i++) {
		ret = ib_post_recv(id->qp, &rwr, &bad);
		if (ret)
			return ret;
	}
	rdma_lock_handler(id);
	ret = rdma_accept(id, &cp);
	rdma_unlock_handler(id);
	if (ret)
		return ret;
	if (!wire_wait(c, RDMA_CM_EVENT_ESTABLISHED))
		return -ETIMEDOUT;
	if (mr_access) {
		struct ib_reg_wr reg = {
			.wr = { .opcode = IB_WR_REG_MR,
				.send_flags = IB_SEND_SIGNALED },
			.mr = c->mr,
			.access = mr_access,
		};
		const struct ib_send_wr *sbad;
		unsigned long end = jiffies + TMO;
		struct ib_wc wc;

		ib_update_fast_reg_key(c->mr, 0x42);
		reg.key = c->mr->rkey;
		ret = ib_post_send(id->qp, &reg.wr, &sbad);
		if (ret)
			return ret;
		while (ib_poll_cq(c->cq, 1, &wc) != 1) {
			if (time_after(jiffies, end))
				return -ETIMEDOUT;
			usleep_range(200, 500);
		}
		if (wc.status != IB_WC_SUCCESS)
			return -EIO;
	}
	return 0;
}

/*
 * Listen, connect the raw socket, send the MPA Request (with the M flag
 * if @markers: then stop), accept with an MR registered for @mr_access
 * (none if 0) and @nrecv receives posted, read the Reply.
 */
static int wire_connect(struct wire_ctx *c, u16 port, bool crc,
			bool markers, int mr_access, int nrecv)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = in_aton(OURS_ADDR),
	};
	struct mpa_frame_info fi = {
		.kind = MPA_KIND_REQUEST, .rev = MPA_REVISION_2, .crc = crc,
		.v2_enhanced = true, .ird = 4, .ord = 4,
	};
	u8 rep[MPA_RR_HDR_LEN + MPA_V2_BLOCK_LEN];
	int len, ret;

	if (!c->net)
		return -ENODEV;
	c->lid = rdma_create_id(c->net, wire_cm_handler, c, RDMA_PS_TCP,
				IB_QPT_RC);
	if (IS_ERR(c->lid)) {
		ret = PTR_ERR(c->lid);
		c->lid = NULL;
		return ret;
	}
	ret = rdma_bind_addr(c->lid, (struct sockaddr *)&sin);
	if (!ret)
		ret = rdma_listen(c->lid, 2);
	if (ret)
		return ret;
	ret = sock_create_kern(&init_net, AF_INET, SOCK_STREAM, IPPROTO_TCP,
			       &c->sock);
	if (ret)
		return ret;
	c->sock->sk->sk_rcvtimeo = TMO;
	c->sock->sk->sk_sndtimeo = TMO;
	ret = kernel_connect(c->sock, (struct sockaddr *)&sin, sizeof(sin), 0);
	if (ret)
		return ret;
	len = mpa_frame_encode(&fi, NULL, 0, c->frame, sizeof(c->frame));
	if (len < 0)
		return len;
	if (markers)
		c->frame[MPA_RR_OFF_FLAGS] |= MPA_FLAG_MARKERS;
	ret = raw_send(c->sock, c->frame, len);
	if (ret || markers)
		return ret;
	if (!wire_wait(c, RDMA_CM_EVENT_CONNECT_REQUEST))
		return -ETIMEDOUT;
	ret = wire_accept(c, mr_access, nrecv);
	if (ret)
		return ret;
	ret = raw_recv(c->sock, rep, sizeof(rep));
	if (ret)
		return ret;
	memset(&fi, 0, sizeof(fi));
	fi.kind = MPA_KIND_REPLY;
	ret = mpa_frame_decode_header(rep, sizeof(rep), &fi, NULL);
	if (ret)
		return ret;
	KUNIT_EXPECT_FALSE(c->test, fi.reject);
	KUNIT_EXPECT_EQ(c->test, fi.crc, crc);
	KUNIT_EXPECT_TRUE(c->test, fi.v2_enhanced);
	return 0;
}

/* Frame @ulen ULPDU bytes of c->ulpdu and send it */
static int wire_send_fpdu(struct wire_ctx *c, u16 ulen, bool crc,
			  bool break_crc)
{
	int len = mpa_fpdu_encode(c->ulpdu, ulen, crc, c->frame,
				  sizeof(c->frame));

	if (len < 0)
		return len;
	if (break_crc)
		c->frame[len - 1] ^= 0x5a;
	return raw_send(c->sock, c->frame, len);
}

/* Build a header (+ @pay bytes of 0xab) into c->ulpdu; its length */
static u16 wire_build(struct wire_ctx *c, struct ddp_hdr *h, u16 pay)
{
	int hlen = ddp_hdr_encode(h, c->ulpdu, sizeof(c->ulpdu));

	KUNIT_ASSERT_GT(c->test, hlen, 0);
	memset(c->ulpdu + hlen, 0xab, pay);
	return hlen + pay;
}

/* Expect a TERMINATE (layer, etype, ecode), then the QP in ERROR */
static void wire_expect_term(struct wire_ctx *c, u8 layer, u8 etype,
			     u8 ecode, bool crc)
{
	struct kunit *test = c->test;
	unsigned long end = jiffies + TMO;
	struct ddp_hdr h;
	struct ddp_err err;
	const u8 *u;
	u16 ulen;
	size_t rest;

	KUNIT_ASSERT_EQ(test, raw_recv(c->sock, c->frame, 2), 0);
	ulen = get_unaligned_be16(c->frame);
	rest = mpa_fpdu_size(ulen) - 2;
	KUNIT_ASSERT_LE(test, rest, sizeof(c->frame) - 2);
	KUNIT_ASSERT_EQ(test, raw_recv(c->sock, c->frame + 2, rest), 0);
	KUNIT_ASSERT_GT(test, mpa_fpdu_decode(c->frame, rest + 2, crc, 0xffff,
					      &u, &ulen), 0);
	KUNIT_ASSERT_GT(test, ddp_hdr_decode(u, ulen, &h, &err), 0);
	KUNIT_EXPECT_EQ(test, h.opcode, RDMAP_TERMINATE);
	KUNIT_EXPECT_EQ(test, h.term_layer, layer);
	KUNIT_EXPECT_EQ(test, h.term_etype, etype);
	KUNIT_EXPECT_EQ(test, h.term_ecode, ecode);
	KUNIT_EXPECT_TRUE(test, wire_wait(c, RDMA_CM_EVENT_DISCONNECTED));
	while (kiwarp_qp_state(c->qp) != KIWARP_QPS_ERROR &&
	       time_before(jiffies, end))
		usleep_range(500, 1000);
	KUNIT_EXPECT_EQ(test, kiwarp_qp_state(c->qp), KIWARP_QPS_ERROR);
	KUNIT_EXPECT_EQ(test, c->qp->stats.terms_sent, 1U);
}

static bool guards_clean(struct wire_ctx *c)
{
	return !memchr_inv(c->buf, 0, GUARD) &&
	       !memchr_inv(c->buf + GUARD + REG_LEN, 0, GUARD);
}

#define RW	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
		 IB_ACCESS_REMOTE_READ)

static void wire_bad_stag(struct kunit *test)
{
	struct wire_ctx *c = test->priv;
	struct ddp_hdr h = { .opcode = RDMAP_WRITE, .last = true,
			     .stag = 0x12345642, .to = 0 };

	KUNIT_ASSERT_EQ(test, wire_connect(c, 19001, false, false, RW, 1), 0);
	h.to = c->mr->iova;
	KUNIT_ASSERT_EQ(test, wire_send_fpdu(c, wire_build(c, &h, 16), false,
					     false), 0);
	wire_expect_term(c, TERM_LAYER_DDP, DDP_ETYPE_TAGGED,
			 DDP_ECODE_T_INVALID_STAG, false);
}

static void wire_write_out_of_bounds(struct kunit *test)
{
	struct wire_ctx *c = test->priv;
	struct ddp_hdr h = { .opcode = RDMAP_WRITE, .last = true };

	KUNIT_ASSERT_EQ(test, wire_connect(c, 19002, false, false, RW, 1), 0);
	h.stag = c->mr->rkey;
	h.to = c->mr->iova + REG_LEN - 8;
	KUNIT_ASSERT_EQ(test, wire_send_fpdu(c, wire_build(c, &h, 32), false,
					     false), 0);
	wire_expect_term(c, TERM_LAYER_DDP, DDP_ETYPE_TAGGED,
			 DDP_ECODE_T_BASE_BOUNDS, false);
	KUNIT_EXPECT_TRUE(test, guards_clean(c));
	/* nothing of the rejected segment was placed either */
	KUNIT_EXPECT_FALSE(test, memchr_inv(c->buf + GUARD, 0, REG_LEN));
}

static void wire_to_wrap(struct kunit *test)
{
	struct wire_ctx *c = test->priv;
	struct ddp_hdr h = { .opcode = RDMAP_WRITE, .last = true,
			     .to = U64_MAX - 3 };

	KUNIT_ASSERT_EQ(test, wire_connect(c, 19003, false, false, RW, 1), 0);
	h.stag = c->mr->rkey;
	KUNIT_ASSERT_EQ(test, wire_send_fpdu(c, wire_build(c, &h, 16), false,
					     false), 0);
	wire_expect_term(c, TERM_LAYER_DDP, DDP_ETYPE_TAGGED,
			 DDP_ECODE_T_TO_WRAP, false);
	KUNIT_EXPECT_TRUE(test, guards_clean(c));
}

static void wire_read_no_access(struct kunit *test)
{
	struct wire_ctx *c = test->priv;
	struct ddp_hdr h = { .opcode = RDMAP_READ_REQ, .last = true,
			     .msn = 1, .sink_stag = 0x1000, .read_size = 64 };

	KUNIT_ASSERT_EQ(test, wire_connect(c, 19004, false, false,
					   IB_ACCESS_LOCAL_WRITE |
					   IB_ACCESS_REMOTE_WRITE, 1), 0);
	h.src_stag = c->mr->rkey;
	h.src_to = c->mr->iova;
	KUNIT_ASSERT_EQ(test, wire_send_fpdu(c, wire_build(c, &h, 0), false,
					     false), 0);
	wire_expect_term(c, TERM_LAYER_RDMAP, RDMAP_ETYPE_REMOTE_PROTECTION,
			 RDMAP_ECODE_ACCESS_RIGHTS, false);
}

static void wire_send_no_buffer(struct kunit *test)
{
	struct wire_ctx *c = test->priv;
	struct ddp_hdr h = { .opcode = RDMAP_SEND, .last = true, .msn = 1 };

	KUNIT_ASSERT_EQ(test, wire_connect(c, 19005, false, false, 0, 0), 0);
	KUNIT_ASSERT_EQ(test, wire_send_fpdu(c, wire_build(c, &h, 8), false,
					     false), 0);
	wire_expect_term(c, TERM_LAYER_DDP, DDP_ETYPE_UNTAGGED,
			 DDP_ECODE_UT_NO_BUFFER, false);
}

static void wire_send_too_long(struct kunit *test)
{
	struct wire_ctx *c = test->priv;
	struct ddp_hdr h = { .opcode = RDMAP_SEND, .last = true, .msn = 1 };

	KUNIT_ASSERT_EQ(test, wire_connect(c, 19006, false, false, 0, 1), 0);
	KUNIT_ASSERT_EQ(test, wire_send_fpdu(c, wire_build(c, &h, RECV_LEN + 4),
					     false, false), 0);
	wire_expect_term(c, TERM_LAYER_DDP, DDP_ETYPE_UNTAGGED,
			 DDP_ECODE_UT_TOO_LONG, false);
	KUNIT_EXPECT_FALSE(test, memchr_inv(c->rbuf, 0, RECV_LEN));
}

static void wire_bad_msn(struct kunit *test)
{
	struct wire_ctx *c = test->priv;
	struct ddp_hdr h = { .opcode = RDMAP_SEND, .last = true, .msn = 7 };

	KUNIT_ASSERT_EQ(test, wire_connect(c, 19007, false, false, 0, 1), 0);
	KUNIT_ASSERT_EQ(test, wire_send_fpdu(c, wire_build(c, &h, 8), false,
					     false), 0);
	wire_expect_term(c, TERM_LAYER_DDP, DDP_ETYPE_UNTAGGED,
			 DDP_ECODE_UT_INVALID_MSN, false);
}

static void wire_bad_crc(struct kunit *test)
{
	struct wire_ctx *c = test->priv;
	struct ddp_hdr h = { .opcode = RDMAP_SEND, .last = true, .msn = 1 };

	KUNIT_ASSERT_EQ(test, wire_connect(c, 19008, true, false, 0, 1), 0);
	KUNIT_EXPECT_TRUE(test, c->qp->crc);
	KUNIT_ASSERT_EQ(test, wire_send_fpdu(c, wire_build(c, &h, 8), true,
					     true), 0);
	wire_expect_term(c, TERM_LAYER_LLP, 0, LLP_ECODE_CRC, true);
}

static void wire_bad_opcode(struct kunit *test)
{
	struct wire_ctx *c = test->priv;
	struct ddp_hdr h = { .opcode = RDMAP_SEND, .last = true, .msn = 1 };
	u16 len;

	KUNIT_ASSERT_EQ(test, wire_connect(c, 19009, false, false, 0, 1), 0);
	len = wire_build(c, &h, 4);
	c->ulpdu[1] = (c->ulpdu[1] & 0xf0) | 0x0b;	/* opcode 11 */
	KUNIT_ASSERT_EQ(test, wire_send_fpdu(c, len, false, false), 0);
	wire_expect_term(c, TERM_LAYER_RDMAP, RDMAP_ETYPE_REMOTE_OPERATION,
			 RDMAP_ECODE_OPCODE, false);
}

static void wire_unexpected_read_resp(struct kunit *test)
{
	struct wire_ctx *c = test->priv;
	struct ddp_hdr h = { .opcode = RDMAP_READ_RESP, .last = true };

	KUNIT_ASSERT_EQ(test, wire_connect(c, 19010, false, false, RW, 1), 0);
	h.stag = c->mr->rkey;
	h.to = c->mr->iova;
	KUNIT_ASSERT_EQ(test, wire_send_fpdu(c, wire_build(c, &h, 16), false,
					     false), 0);
	wire_expect_term(c, TERM_LAYER_RDMAP, RDMAP_ETYPE_REMOTE_OPERATION,
			 RDMAP_ECODE_OPCODE, false);
	KUNIT_EXPECT_FALSE(test, memchr_inv(c->buf + GUARD, 0, REG_LEN));
}

/* A Request asking for markers gets an MPA reject and no connection */
static void wire_markers_rejected(struct kunit *test)
{
	struct wire_ctx *c = test->priv;
	struct mpa_frame_info fi = { .kind = MPA_KIND_REPLY };
	u8 rep[MPA_RR_HDR_LEN];

	KUNIT_ASSERT_EQ(test, wire_connect(c, 19011, false, true, 0, 0), 0);
	KUNIT_ASSERT_EQ(test, raw_recv(c->sock, rep, sizeof(rep)), 0);
	KUNIT_ASSERT_EQ(test, mpa_frame_decode_header(rep, sizeof(rep), &fi,
						      NULL), 0);
	KUNIT_EXPECT_TRUE(test, fi.reject);
	KUNIT_EXPECT_FALSE(test, test_bit(RDMA_CM_EVENT_CONNECT_REQUEST,
					  &c->events));
}

static struct kunit_case kiwarp_wire_cases[] = {
	KUNIT_CASE(wire_bad_stag),
	KUNIT_CASE(wire_write_out_of_bounds),
	KUNIT_CASE(wire_to_wrap),
	KUNIT_CASE(wire_read_no_access),
	KUNIT_CASE(wire_send_no_buffer),
	KUNIT_CASE(wire_send_too_long),
	KUNIT_CASE(wire_bad_msn),
	KUNIT_CASE(wire_bad_crc),
	KUNIT_CASE(wire_bad_opcode),
	KUNIT_CASE(wire_unexpected_read_resp),
	KUNIT_CASE(wire_markers_rejected),
	{}
};

static struct kunit_suite kiwarp_wire_suite = {
	.name = "kiwarp_wire",
	.init = wire_init,
	.exit = wire_exit,
	.test_cases = kiwarp_wire_cases,
};

kunit_test_suite(kiwarp_wire_suite);

MODULE_DESCRIPTION("KUnit tests: kiwarp against malformed frames");
MODULE_IMPORT_NS(KIWARP_INTERNAL);
MODULE_LICENSE("GPL");
