// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "kiwarp_sock": the socket takeover (include/kiwarp/sock.h)
 * between the two kiwarp test hosts of the guest (scripts/guest/lib.sh):
 * kw1 on veth4 (203.0.113.1, root namespace) and kw2 on veth5
 * (203.0.113.2, namespace "b"). Each case makes a plain kernel TCP
 * connection between them (kw2's side in kw2's namespace), streams on
 * it if it wants, and hands one or both ends to kiwarp_sock_ops with
 * plain kernel verbs objects (PD, CQ, QP, fast-registration MR). Where
 * a misbehaving peer is needed, the other end stays a raw socket that
 * speaks MPA (or not) by hand.
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/net.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <rdma/ib_verbs.h>
#include <kiwarp/reject.h>
#include <kiwarp/sock.h>

#include "kiwarp.h"

#define KW1_ADDR	"203.0.113.1"
#define KW2_ADDR	"203.0.113.2"
#define KW2_ADDR6	"2001:db8:4::2"
#define BUF_LEN		16384
#define XFER_LEN	6000	/* several FPDUs */
#define READ_OFF	8192
#define SEND_LEN	3000
#define RECV_OFF	12288
#define TMO		(10 * HZ)
#define NEV		8
#define PD_KEEP		64

static u16 next_port = 18300;

struct evrec {
	int type;
	int status;
	bool returned;
	u16 pdata_len;
	u8 pdata[PD_KEEP];
	u32 ird, ord;
};

struct host {
	struct kunit *test;
	struct ib_device *dev;
	struct net *net;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	struct ib_mr *mr;
	u8 *buf;
	struct scatterlist sg;
	bool sg_mapped;
	struct socket *sock;		/* the test's, NULL once kiwarp's */
	struct kiwarp_sock_conn *conn;	/* until released */
	wait_queue_head_t wq;
	spinlock_t lock;		/* ev, nev */
	struct evrec ev[NEV];
	int nev;
	struct ib_wc wc[32];
	int nwc;
};

struct sctx {
	struct kunit *test;
	struct host h[2];		/* kw1, kw2 */
	struct socket *raw;		/* a raw peer or an extra socket */
	struct socket *extra[3];
};

static void handler(void *ctx, const struct kiwarp_sock_event *ev)
{
	struct host *h = ctx;
	struct evrec *r;

	spin_lock_bh(&h->lock);
	if (h->nev < NEV) {
		r = &h->ev[h->nev++];
		r->type = ev->type;
		r->status = ev->status;
		r->returned = ev->sock_returned;
		r->pdata_len = ev->pdata_len;
		memcpy(r->pdata, ev->pdata, min_t(u16, ev->pdata_len, PD_KEEP));
		r->ird = ev->ird;
		r->ord = ev->ord;
	}
	spin_unlock_bh(&h->lock);
	wake_up(&h->wq);
}

static struct evrec *find_ev(struct host *h, int type)
{
	struct evrec *r = NULL;
	int i;

	spin_lock_bh(&h->lock);
	for (i = 0; i < h->nev; i++) {
		if (h->ev[i].type == type) {
			r = &h->ev[i];
			break;
		}
	}
	spin_unlock_bh(&h->lock);
	return r;
}

static struct evrec *wait_ev(struct host *h, int type, long tmo)
{
	struct evrec *r = NULL;

	wait_event_timeout(h->wq, (r = find_ev(h, type)) != NULL, tmo);
	return r;
}

static void clear_ev(struct host *h)
{
	spin_lock_bh(&h->lock);
	h->nev = 0;
	spin_unlock_bh(&h->lock);
}

static int nevents(struct host *h)
{
	int n;

	spin_lock_bh(&h->lock);
	n = h->nev;
	spin_unlock_bh(&h->lock);
	return n;
}

/* @ip: IPv4 dotted or IPv6 text; returns the address length */
static int make_addr(struct sockaddr_storage *ss, const char *ip, u16 port)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (strchr(ip, ':')) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		in6_pton(ip, -1, sin6->sin6_addr.s6_addr, -1, NULL);
		return sizeof(*sin6);
	}
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	sin->sin_addr.s_addr = in_aton(ip);
	return sizeof(*sin);
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

	s->sk->sk_rcvtimeo = TMO;
	return kernel_recvmsg(s, &msg, &iov, 1, len, MSG_WAITALL) == len ?
	       0 : -EIO;
}

/* A TCP connection: *@a in @na connects to @ip:@port, *@b accepted in @nb */
static int tcp_pair(struct net *na, struct net *nb, const char *ip,
		    struct socket **a, struct socket **b)
{
	struct sockaddr_storage ss;
	struct socket *ls;
	u16 port = next_port++;
	int ret, alen;

	*a = NULL;
	*b = NULL;
	alen = make_addr(&ss, ip, port);
	ret = sock_create_kern(nb, ss.ss_family, SOCK_STREAM, IPPROTO_TCP,
			       &ls);
	if (ret)
		return ret;
	sock_set_reuseaddr(ls->sk);
	ret = kernel_bind(ls, (struct sockaddr *)&ss, alen);
	if (!ret)
		ret = kernel_listen(ls, 4);
	if (!ret)
		ret = sock_create_kern(na, ss.ss_family, SOCK_STREAM,
				       IPPROTO_TCP, a);
	if (!ret)
		ret = kernel_connect(*a, (struct sockaddr *)&ss, alen, 0);
	if (!ret)
		ret = kernel_accept(ls, b, 0);
	sock_release(ls);
	if (ret && *a) {
		sock_release(*a);
		*a = NULL;
	}
	return ret;
}

/* kw1's socket in h[0].sock, kw2's in h[1].sock */
static void pair_hosts(struct sctx *c)
{
	KUNIT_ASSERT_EQ(c->test, tcp_pair(c->h[0].net, c->h[1].net, KW2_ADDR,
					  &c->h[0].sock, &c->h[1].sock), 0);
}

static int host_init(struct sctx *c, struct host *h, const char *name)
{
	h->test = c->test;
	init_waitqueue_head(&h->wq);
	spin_lock_init(&h->lock);
	h->dev = ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);
	if (!h->dev)
		return -ENODEV;
	h->net = dev_net(to_kdev(h->dev)->netdev);
	return 0;
}

/* PD, CQ, QP, buffer and an MR over it */
static void host_qp(struct sctx *c, struct host *h)
{
	struct ib_qp_init_attr qa = {
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 2, .max_recv_sge = 2 },
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	struct kunit *test = c->test;

	h->pd = ib_alloc_pd(h->dev, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(h->pd));
	h->cq = ib_alloc_cq(h->dev, NULL, 64, 0, IB_POLL_DIRECT);
	KUNIT_ASSERT_FALSE(test, IS_ERR(h->cq));
	qa.send_cq = h->cq;
	qa.recv_cq = h->cq;
	h->qp = ib_create_qp(h->pd, &qa);
	KUNIT_ASSERT_FALSE(test, IS_ERR(h->qp));
	h->buf = kzalloc(BUF_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, h->buf);
	sg_init_one(&h->sg, h->buf, BUF_LEN);
	KUNIT_ASSERT_EQ(test, ib_dma_map_sg(h->dev, &h->sg, 1,
					    DMA_BIDIRECTIONAL), 1);
	h->sg_mapped = true;
	h->mr = ib_alloc_mr(h->pd, IB_MR_TYPE_MEM_REG,
			    BUF_LEN / PAGE_SIZE + 1);
	KUNIT_ASSERT_FALSE(test, IS_ERR(h->mr));
	KUNIT_ASSERT_EQ(test, ib_map_mr_sg(h->mr, &h->sg, 1, NULL, PAGE_SIZE),
			1);
}

static void host_fini(struct host *h)
{
	if (h->conn)
		kiwarp_sock_ops.release(h->conn);
	if (!IS_ERR_OR_NULL(h->qp))
		ib_destroy_qp(h->qp);
	if (!IS_ERR_OR_NULL(h->mr))
		ib_dereg_mr(h->mr);
	if (h->sg_mapped)
		ib_dma_unmap_sg(h->dev, &h->sg, 1, DMA_BIDIRECTIONAL);
	if (!IS_ERR_OR_NULL(h->cq))
		ib_free_cq(h->cq);
	if (!IS_ERR_OR_NULL(h->pd))
		ib_dealloc_pd(h->pd);
	kfree(h->buf);
	if (h->sock)
		sock_release(h->sock);
	if (h->dev)
		ib_device_put(h->dev);
}

/* Wait for the completion of @wr_id (others are kept). */
static bool wait_wc(struct host *h, u64 wr_id, struct ib_wc *out)
{
	unsigned long end = jiffies + TMO;
	struct ib_wc wc;
	int i;

	for (;;) {
		for (i = 0; i < h->nwc; i++) {
			if (h->wc[i].wr_id == wr_id) {
				*out = h->wc[i];
				h->wc[i] = h->wc[--h->nwc];
				return true;
			}
		}
		if (ib_poll_cq(h->cq, 1, &wc) == 1) {
			if (h->nwc < ARRAY_SIZE(h->wc))
				h->wc[h->nwc++] = wc;
			continue;
		}
		if (time_after(jiffies, end))
			return false;
		usleep_range(200, 500);
	}
}

static void expect_wc_ok(struct host *h, u64 wr_id)
{
	struct ib_wc wc;

	KUNIT_ASSERT_TRUE_MSG(h->test, wait_wc(h, wr_id, &wc), "wr %llu",
			      wr_id);
	KUNIT_EXPECT_EQ_MSG(h->test, wc.status, IB_WC_SUCCESS, "wr %llu",
			    wr_id);
}

static int post_send(struct host *h, struct ib_send_wr *wr)
{
	const struct ib_send_wr *bad;

	wr->send_flags |= IB_SEND_SIGNALED;
	return ib_post_send(h->qp, wr, &bad);
}

static int post_recv(struct host *h, u64 wr_id, u32 off, u32 len)
{
	struct ib_sge sge = { .addr = (u64)(uintptr_t)(h->buf + off),
			      .length = len, .lkey = h->pd->local_dma_lkey };
	struct ib_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				 .num_sge = 1 };
	const struct ib_recv_wr *bad;

	return ib_post_recv(h->qp, &wr, &bad);
}

static void reg_mr(struct host *h)
{
	struct ib_reg_wr reg = {
		.wr = { .wr_id = 100, .opcode = IB_WR_REG_MR },
		.mr = h->mr,
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
			  IB_ACCESS_REMOTE_WRITE,
	};

	ib_update_fast_reg_key(h->mr, ib_inc_rkey(h->mr->rkey) & 0xff);
	reg.key = h->mr->rkey;
	KUNIT_ASSERT_EQ(h->test, post_send(h, &reg.wr), 0);
	expect_wc_ok(h, 100);
}

static void fill(u8 *p, u32 len, u8 seed)
{
	u32 i;

	for (i = 0; i < len; i++)
		p[i] = (u8)(seed + i * 7 + (i >> 8));
}

/*
 * @a SENDs to @b (a receive posted there now), RDMA WRITEs into @b's
 * MR and RDMA READs it back; every byte checked on both ends.
 */
static void exercise(struct sctx *c, struct host *a, struct host *b, u8 seed)
{
	struct kunit *test = c->test;
	u8 *want = kunit_kmalloc(test, XFER_LEN, GFP_KERNEL);
	struct ib_sge sge = { .lkey = a->mr->lkey };
	struct ib_rdma_wr rw = { .wr.sg_list = &sge, .wr.num_sge = 1 };
	struct ib_send_wr swr = { .wr_id = 1, .opcode = IB_WR_SEND,
				  .sg_list = &sge, .num_sge = 1 };
	struct ib_wc wc;

	KUNIT_ASSERT_NOT_NULL(test, want);
	fill(want, XFER_LEN, seed);
	memcpy(a->buf, want, XFER_LEN);
	memset(a->buf + READ_OFF, 0, XFER_LEN);
	memset(b->buf, 0, BUF_LEN);

	KUNIT_ASSERT_EQ(test, post_recv(b, 50, RECV_OFF, 4096), 0);
	sge.addr = a->mr->iova + 100;
	sge.length = SEND_LEN;
	KUNIT_ASSERT_EQ(test, post_send(a, &swr), 0);
	expect_wc_ok(a, 1);
	KUNIT_ASSERT_TRUE(test, wait_wc(b, 50, &wc));
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.byte_len, SEND_LEN);
	KUNIT_EXPECT_EQ(test, memcmp(b->buf + RECV_OFF, want + 100, SEND_LEN),
			0);

	sge.addr = a->mr->iova;
	sge.length = XFER_LEN;
	rw.wr.wr_id = 2;
	rw.wr.opcode = IB_WR_RDMA_WRITE;
	rw.remote_addr = b->mr->iova;
	rw.rkey = b->mr->rkey;
	KUNIT_ASSERT_EQ(test, post_send(a, &rw.wr), 0);
	expect_wc_ok(a, 2);

	sge.addr = a->mr->iova + READ_OFF;
	rw.wr.wr_id = 3;
	rw.wr.opcode = IB_WR_RDMA_READ;
	rw.wr.send_flags = 0;
	KUNIT_ASSERT_EQ(test, post_send(a, &rw.wr), 0);
	expect_wc_ok(a, 3);
	KUNIT_EXPECT_EQ(test, memcmp(a->buf + READ_OFF, want, XFER_LEN), 0);
	KUNIT_EXPECT_EQ(test, memcmp(b->buf, want, XFER_LEN), 0);
}

static const char act_pd[] = "active private data";
static const char pas_pd[] = "passive says yes";

static void do_connect(struct sctx *c, struct host *a)
{
	struct kiwarp_sock_param p = { .pdata = act_pd,
				       .pdata_len = sizeof(act_pd),
				       .ird = 4, .ord = 4 };

	KUNIT_ASSERT_EQ(c->test, kiwarp_sock_ops.connect(a->qp, a->sock, &p,
							 handler, a,
							 &a->conn), 0);
}

static void do_listen(struct sctx *c, struct host *b, const void *msg,
		      size_t len)
{
	KUNIT_ASSERT_EQ(c->test, kiwarp_sock_ops.listen(b->dev, b->sock, msg,
							len, handler, b,
							&b->conn), 0);
}

/* REQUEST at @b (with @a's private data), accept, ESTABLISHED at both */
static void accept_both(struct sctx *c, struct host *a, struct host *b)
{
	struct kiwarp_sock_param p = { .pdata = pas_pd,
				       .pdata_len = sizeof(pas_pd),
				       .ird = 4, .ord = 4 };
	struct kunit *test = c->test;
	struct evrec *r;

	r = wait_ev(b, KIWARP_SOCK_EV_REQUEST, TMO);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->pdata_len, sizeof(act_pd));
	KUNIT_EXPECT_EQ(test, memcmp(r->pdata, act_pd, sizeof(act_pd)), 0);
	KUNIT_EXPECT_EQ(test, r->ird, 4U);
	KUNIT_EXPECT_EQ(test, r->ord, 4U);
	b->sock = NULL;		/* kiwarp's from the Request on */
	KUNIT_ASSERT_EQ(test, kiwarp_sock_ops.accept(b->conn, b->qp, &p), 0);
	r = wait_ev(b, KIWARP_SOCK_EV_ESTABLISHED, TMO);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, 0);
	r = wait_ev(a, KIWARP_SOCK_EV_ESTABLISHED, TMO);
	KUNIT_ASSERT_NOT_NULL(test, r);
	a->sock = NULL;
	KUNIT_EXPECT_EQ(test, r->status, 0);
	KUNIT_EXPECT_EQ(test, r->pdata_len, sizeof(pas_pd));
	KUNIT_EXPECT_EQ(test, memcmp(r->pdata, pas_pd, sizeof(pas_pd)), 0);
	KUNIT_EXPECT_EQ(test, kiwarp_qp_state(to_kqp(a->qp)), KIWARP_QPS_RTS);
	KUNIT_EXPECT_EQ(test, kiwarp_qp_state(to_kqp(b->qp)), KIWARP_QPS_RTS);
	KUNIT_EXPECT_TRUE(test, to_kqp(a->qp)->sock_mode);
}

static int sock_init(struct kunit *test)
{
	struct sctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	if (!c)
		return -ENOMEM;
	c->test = test;
	test->priv = c;
	if (host_init(c, &c->h[0], "kw1") || host_init(c, &c->h[1], "kw2")) {
		KUNIT_FAIL(test, "kw1/kw2 missing");
		return -ENODEV;
	}
	return 0;
}

static void sock_exit(struct kunit *test)
{
	struct sctx *c = test->priv;
	int i;

	if (!c)
		return;
	atomic_set(&kiwarp_test_lose_fin, 0);	/* a case that stopped early */
	host_fini(&c->h[0]);
	host_fini(&c->h[1]);
	if (c->raw)
		sock_release(c->raw);
	for (i = 0; i < ARRAY_SIZE(c->extra); i++)
		if (c->extra[i])
			sock_release(c->extra[i]);
}

/* Both directions of the roles; data after the takeover */
static void establish_and_move(struct sctx *c, struct host *a,
			       struct host *b)
{
	host_qp(c, a);
	host_qp(c, b);
	if (a == &c->h[0]) {
		pair_hosts(c);
	} else {
		KUNIT_ASSERT_EQ(c->test, tcp_pair(b->net, a->net, KW2_ADDR,
						  &b->sock, &a->sock), 0);
	}
	do_listen(c, b, NULL, 0);
	do_connect(c, a);
	accept_both(c, a, b);
	reg_mr(a);
	reg_mr(b);
	exercise(c, a, b, 1);
	exercise(c, b, a, 2);
}

static void sock_test_kw1_connects(struct kunit *test)
{
	struct sctx *c = test->priv;

	establish_and_move(c, &c->h[0], &c->h[1]);
}

static void sock_test_kw2_connects(struct kunit *test)
{
	struct sctx *c = test->priv;

	establish_and_move(c, &c->h[1], &c->h[0]);
}

/* The same over IPv6 (2001:db8:4::1 -> ::2 on veth4/veth5) */
static void sock_test_ipv6(struct kunit *test)
{
	struct sctx *c = test->priv;
	struct host *a = &c->h[0], *b = &c->h[1];
	struct sockaddr_storage ss;
	u8 rev = 0;
	bool crc = true;

	host_qp(c, a);
	host_qp(c, b);
	KUNIT_ASSERT_EQ(test, tcp_pair(a->net, b->net, KW2_ADDR6, &a->sock,
				       &b->sock), 0);
	KUNIT_EXPECT_EQ(test, kiwarp_sock_ops.check(a->dev, a->sock), 0);
	KUNIT_EXPECT_EQ(test, kiwarp_sock_ops.check(a->dev, b->sock), -ENODEV);
	do_listen(c, b, NULL, 0);
	do_connect(c, a);
	accept_both(c, a, b);
	kiwarp_sock_ops.info(a->conn, NULL, &ss, &rev, &crc);
	KUNIT_EXPECT_EQ(test, ss.ss_family, AF_INET6);
	KUNIT_EXPECT_EQ(test, rev, MPA_REVISION_2);
	KUNIT_EXPECT_EQ(test, crc, kiwarp_mpa_crc);
	reg_mr(a);
	reg_mr(b);
	exercise(c, a, b, 6);
	exercise(c, b, a, 7);
}

/* Plain streaming first, then the takeover on the same connection */
static void sock_test_streaming_then_rdma(struct kunit *test)
{
	struct sctx *c = test->priv;
	struct host *a = &c->h[0], *b = &c->h[1];
	char got[16];

	host_qp(c, a);
	host_qp(c, b);
	pair_hosts(c);
	KUNIT_ASSERT_EQ(test, raw_send(a->sock, "hello, b", 8), 0);
	KUNIT_ASSERT_EQ(test, raw_recv(b->sock, got, 8), 0);
	KUNIT_EXPECT_EQ(test, memcmp(got, "hello, b", 8), 0);
	KUNIT_ASSERT_EQ(test, raw_send(b->sock, "hi a", 4), 0);
	KUNIT_ASSERT_EQ(test, raw_recv(a->sock, got, 4), 0);
	KUNIT_EXPECT_EQ(test, memcmp(got, "hi a", 4), 0);
	do_listen(c, b, NULL, 0);
	do_connect(c, a);
	accept_both(c, a, b);
	reg_mr(a);
	reg_mr(b);
	exercise(c, a, b, 3);
}

/*
 * The passive side's final streaming message comes before anything
 * else, and the Request the peer sends the moment it has it is seen.
 */
static void sock_test_listen_final_msg(struct kunit *test)
{
	static const char fin[] = "GO RDMA NOW";
	struct sctx *c = test->priv;
	struct host *a = &c->h[0], *b = &c->h[1];
	char got[sizeof(fin)];

	host_qp(c, a);
	host_qp(c, b);
	pair_hosts(c);
	do_listen(c, b, fin, sizeof(fin));
	KUNIT_ASSERT_EQ(test, raw_recv(a->sock, got, sizeof(fin)), 0);
	KUNIT_EXPECT_EQ(test, memcmp(got, fin, sizeof(fin)), 0);
	do_connect(c, a);	/* at once */
	accept_both(c, a, b);
	reg_mr(a);
	reg_mr(b);
	exercise(c, b, a, 4);
}

/* accept() and the first SEND, from another task (see early_data) */
struct early {
	struct work_struct work;
	struct host *b;
	struct ib_send_wr *wr;
	int accept_ret;
	int send_ret;
	bool sent;
	struct completion done;
};

static void early_fn(struct work_struct *work)
{
	struct early *e = container_of(work, struct early, work);
	struct kiwarp_sock_param p = { .ird = 1, .ord = 1 };
	struct ib_wc wc;

	e->accept_ret = kiwarp_sock_ops.accept(e->b->conn, e->b->qp, &p);
	if (!e->accept_ret)
		e->send_ret = post_send(e->b, e->wr);
	if (!e->accept_ret && !e->send_ret)
		e->sent = wait_wc(e->b, 7, &wc) && wc.status == IB_WC_SUCCESS;
	complete(&e->done);
}

/*
 * The passive side sends its first FPDU right behind its Reply while
 * the active side cannot read (the test owns its socket lock, so the
 * segments wait in the backlog): Reply and FPDU are queued together
 * when the active side looks; the SEND must arrive intact.
 */
static void sock_test_early_data(struct kunit *test)
{
	struct sctx *c = test->priv;
	struct host *a = &c->h[0], *b = &c->h[1];
	struct ib_sge sge;
	struct ib_send_wr swr = { .wr_id = 7, .opcode = IB_WR_SEND,
				  .sg_list = &sge, .num_sge = 1 };
	struct early e = { .b = b, .wr = &swr };
	struct socket *asock;
	struct ib_wc wc;

	host_qp(c, a);
	host_qp(c, b);
	pair_hosts(c);
	asock = a->sock;
	KUNIT_ASSERT_EQ(test, post_recv(a, 60, RECV_OFF, 4096), 0);
	do_listen(c, b, NULL, 0);
	do_connect(c, a);
	KUNIT_ASSERT_NOT_NULL(test, wait_ev(b, KIWARP_SOCK_EV_REQUEST, TMO));
	b->sock = NULL;
	fill(b->buf, 2000, 9);
	sge.addr = (u64)(uintptr_t)b->buf;
	sge.length = 2000;
	sge.lkey = b->pd->local_dma_lkey;

	/*
	 * Only a completion while owning the socket: waiting for the work
	 * with flush_work() would make lockdep see sk_lock -> conn lock.
	 */
	INIT_WORK_ONSTACK(&e.work, early_fn);
	init_completion(&e.done);
	lock_sock(asock->sk);
	queue_work(system_unbound_wq, &e.work);
	wait_for_completion_timeout(&e.done, 2 * TMO);
	msleep(100);		/* both in a's backlog */
	KUNIT_EXPECT_NULL(test, find_ev(a, KIWARP_SOCK_EV_ESTABLISHED));
	release_sock(asock->sk);
	flush_work(&e.work);
	destroy_work_on_stack(&e.work);
	KUNIT_ASSERT_EQ(test, e.accept_ret, 0);
	KUNIT_ASSERT_EQ(test, e.send_ret, 0);
	KUNIT_EXPECT_TRUE(test, e.sent);

	KUNIT_ASSERT_NOT_NULL(test, wait_ev(a, KIWARP_SOCK_EV_ESTABLISHED,
					    TMO));
	a->sock = NULL;
	KUNIT_ASSERT_TRUE(test, wait_wc(a, 60, &wc));
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.byte_len, 2000U);
	KUNIT_EXPECT_EQ(test, memcmp(a->buf + RECV_OFF, b->buf, 2000), 0);
}

/* Raw peer: read an MPA Request; *@fi decoded, its private data in @pd */
static void raw_read_request(struct sctx *c, struct socket *s,
			     struct mpa_frame_info *fi, u8 *pd)
{
	u8 hdr[MPA_RR_HDR_LEN];
	u16 total;

	KUNIT_ASSERT_EQ(c->test, raw_recv(s, hdr, sizeof(hdr)), 0);
	fi->kind = MPA_KIND_REQUEST;
	KUNIT_ASSERT_EQ(c->test, mpa_frame_decode_header(hdr, sizeof(hdr), fi,
							 &total), 0);
	KUNIT_ASSERT_EQ(c->test, raw_recv(s, pd, total), 0);
}

static void raw_send_reply(struct sctx *c, struct socket *s, bool reject,
			   const void *pd, u16 len)
{
	struct mpa_frame_info fi = {
		.kind = MPA_KIND_REPLY, .rev = MPA_REVISION_2,
		.reject = reject, .v2_enhanced = !reject,
		.ird = reject ? 0 : 4, .ord = reject ? 0 : 4,
	};
	u8 buf[MPA_RR_HDR_LEN + 64];
	int n;

	n = mpa_frame_encode(&fi, pd, len, buf, sizeof(buf));
	KUNIT_ASSERT_GT(c->test, n, 0);
	KUNIT_ASSERT_EQ(c->test, raw_send(s, buf, n), 0);
}

/* kw1 connects to a raw peer (c->raw) that reads the Request */
static void connect_raw(struct sctx *c)
{
	struct host *a = &c->h[0];
	struct mpa_frame_info fi;
	u8 pd[MPA_MAX_PRIVDATA];

	host_qp(c, a);
	KUNIT_ASSERT_EQ(c->test, tcp_pair(a->net, c->h[1].net, KW2_ADDR,
					  &a->sock, &c->raw), 0);
	do_connect(c, a);
	raw_read_request(c, c->raw, &fi, pd);
	KUNIT_EXPECT_TRUE(c->test, fi.v2_enhanced);
	KUNIT_EXPECT_EQ(c->test, fi.pd_len, sizeof(act_pd));
}

/* The socket works for plain streaming both ways */
static void expect_streaming(struct sctx *c, struct socket *s,
			     struct socket *peer)
{
	char got[8];

	KUNIT_ASSERT_EQ(c->test, raw_send(s, "ping", 4), 0);
	KUNIT_ASSERT_EQ(c->test, raw_recv(peer, got, 4), 0);
	KUNIT_EXPECT_EQ(c->test, memcmp(got, "ping", 4), 0);
	KUNIT_ASSERT_EQ(c->test, raw_send(peer, "pong", 4), 0);
	KUNIT_ASSERT_EQ(c->test, raw_recv(s, got, 4), 0);
	KUNIT_EXPECT_EQ(c->test, memcmp(got, "pong", 4), 0);
}

static void sock_test_rejected(struct kunit *test)
{
	static const char no[] = "not today";
	struct sctx *c = test->priv;
	struct host *a = &c->h[0];
	struct evrec *r;

	connect_raw(c);
	raw_send_reply(c, c->raw, true, no, sizeof(no));
	r = wait_ev(a, KIWARP_SOCK_EV_REJECTED, TMO);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_TRUE(test, r->returned);
	KUNIT_EXPECT_EQ(test, r->pdata_len, sizeof(no));
	KUNIT_EXPECT_EQ(test, memcmp(r->pdata, no, sizeof(no)), 0);
	KUNIT_EXPECT_EQ(test, kiwarp_qp_state(to_kqp(a->qp)), KIWARP_QPS_IDLE);
	KUNIT_EXPECT_FALSE(test, kiwarp_sock_ops.release(a->conn));
	a->conn = NULL;
	expect_streaming(c, a->sock, c->raw);
}

/*
 * kiwarp's reject(): the active side gets REJECTED with the private
 * data and its socket back, which then sees the passive side's close.
 * Then release() of a REQUEST not answered: a reject without data.
 */
static void sock_test_passive_reject(struct kunit *test)
{
	static const char no[] = "full";
	struct sctx *c = test->priv;
	struct host *a = &c->h[0], *b = &c->h[1];
	struct kvec iov;
	struct msghdr msg = {};
	struct evrec *r;
	char got[4];

	host_qp(c, a);
	pair_hosts(c);
	do_listen(c, b, NULL, 0);
	do_connect(c, a);
	KUNIT_ASSERT_NOT_NULL(test, wait_ev(b, KIWARP_SOCK_EV_REQUEST, TMO));
	b->sock = NULL;
	KUNIT_EXPECT_EQ(test, kiwarp_sock_ops.reject(b->conn, no, sizeof(no)),
			0);
	KUNIT_EXPECT_EQ(test, kiwarp_sock_ops.reject(b->conn, NULL, 0),
			-EINVAL);
	r = wait_ev(a, KIWARP_SOCK_EV_REJECTED, TMO);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_TRUE(test, r->returned);
	KUNIT_EXPECT_EQ(test, r->pdata_len, sizeof(no));
	KUNIT_EXPECT_EQ(test, memcmp(r->pdata, no, sizeof(no)), 0);
	/* nothing but the close behind the reject */
	iov.iov_base = got;
	iov.iov_len = sizeof(got);
	a->sock->sk->sk_rcvtimeo = TMO;
	KUNIT_EXPECT_EQ(test, kernel_recvmsg(a->sock, &msg, &iov, 1,
					     sizeof(got), 0), 0);
	msleep(50);
	KUNIT_EXPECT_EQ(test, nevents(b), 1);
	KUNIT_EXPECT_FALSE(test, kiwarp_sock_ops.release(b->conn));
	b->conn = NULL;
	KUNIT_EXPECT_FALSE(test, kiwarp_sock_ops.release(a->conn));
	a->conn = NULL;
	sock_release(a->sock);
	a->sock = NULL;

	/*
	 * release() after REQUEST: nobody decided, so the reject is not a
	 * consumer's: its private data is the non-peer marker
	 * (include/kiwarp/reject.h).
	 */
	clear_ev(a);
	clear_ev(b);
	pair_hosts(c);
	do_listen(c, b, NULL, 0);
	do_connect(c, a);
	KUNIT_ASSERT_NOT_NULL(test, wait_ev(b, KIWARP_SOCK_EV_REQUEST, TMO));
	b->sock = NULL;
	KUNIT_EXPECT_FALSE(test, kiwarp_sock_ops.release(b->conn));
	b->conn = NULL;
	r = wait_ev(a, KIWARP_SOCK_EV_REJECTED, TMO);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_TRUE(test, kiwarp_nonpeer_reject(r->pdata, r->pdata_len,
						      false));
}

/* release() of a pending connect gives the socket back as it was */
static void sock_test_release_connect(struct kunit *test)
{
	struct sctx *c = test->priv;
	struct host *a = &c->h[0];
	void (*dr)(struct sock *sk);
	struct sock *sk;
	long rcvtimeo;

	host_qp(c, a);
	KUNIT_ASSERT_EQ(test, tcp_pair(a->net, c->h[1].net, KW2_ADDR,
				       &a->sock, &c->raw), 0);
	sk = a->sock->sk;
	dr = sk->sk_data_ready;
	sk->sk_rcvtimeo = 3 * HZ;
	rcvtimeo = sk->sk_rcvtimeo;
	WRITE_ONCE(sk->sk_rcvlowat, 3);
	KUNIT_EXPECT_FALSE(test, tcp_sk(sk)->nonagle & TCP_NAGLE_OFF);
	do_connect(c, a);
	KUNIT_EXPECT_EQ(test, READ_ONCE(sk->sk_rcvlowat), 1);
	KUNIT_EXPECT_EQ(test, kiwarp_sock_ops.check(a->dev, a->sock), -EBUSY);
	KUNIT_EXPECT_TRUE(test, tcp_sk(sk)->nonagle & TCP_NAGLE_OFF);
	msleep(50);
	KUNIT_EXPECT_TRUE(test, kiwarp_sock_ops.release(a->conn));
	a->conn = NULL;
	KUNIT_EXPECT_PTR_EQ(test, sk->sk_data_ready, dr);
	KUNIT_EXPECT_NULL(test, sk->sk_user_data);
	KUNIT_EXPECT_EQ(test, sk->sk_rcvtimeo, rcvtimeo);
	KUNIT_EXPECT_EQ(test, READ_ONCE(sk->sk_rcvlowat), 3);
	KUNIT_EXPECT_FALSE(test, tcp_sk(sk)->nonagle & TCP_NAGLE_OFF);
	KUNIT_EXPECT_EQ(test, kiwarp_sock_ops.check(a->dev, a->sock), 0);
	KUNIT_EXPECT_EQ(test, nevents(a), 0);
	/* the raw peer has the Request, then plain data */
	{
		struct mpa_frame_info fi;
		u8 pd[MPA_MAX_PRIVDATA];

		raw_read_request(c, c->raw, &fi, pd);
	}
	expect_streaming(c, a->sock, c->raw);
}

/* release() of a listen before a Request: unread bytes still there */
static void sock_test_release_listen(struct kunit *test)
{
	struct sctx *c = test->priv;
	struct host *a = &c->h[0], *b = &c->h[1];
	char got[10];

	pair_hosts(c);
	do_listen(c, b, NULL, 0);
	/* the first 10 bytes of a Request: incomplete, so left alone */
	KUNIT_ASSERT_EQ(test, raw_send(a->sock, MPA_KEY_REQ, 10), 0);
	msleep(200);
	KUNIT_EXPECT_EQ(test, nevents(b), 0);
	KUNIT_EXPECT_TRUE(test, kiwarp_sock_ops.release(b->conn));
	b->conn = NULL;
	KUNIT_ASSERT_EQ(test, raw_recv(b->sock, got, 10), 0);
	KUNIT_EXPECT_EQ(test, memcmp(got, MPA_KEY_REQ, 10), 0);
	expect_streaming(c, b->sock, a->sock);
}

/*
 * give_back() (an SSP freed): before a Request, exactly release(); once
 * the Request was read the socket stays kiwarp's, -EBUSY, no reject, and
 * the REQUEST has reached the handler - the connection can still be
 * accepted. (release() there rejected and closed the socket, which
 * kdapl had just told its consumer was its own again.)
 */
static void sock_test_give_back(struct kunit *test)
{
	struct sctx *c = test->priv;
	struct host *a = &c->h[0], *b = &c->h[1];
	char got[10];

	pair_hosts(c);
	do_listen(c, b, NULL, 0);
	KUNIT_ASSERT_EQ(test, raw_send(a->sock, MPA_KEY_REQ, 10), 0);
	msleep(100);
	KUNIT_EXPECT_EQ(test, kiwarp_sock_ops.give_back(b->conn), 0);
	b->conn = NULL;
	KUNIT_ASSERT_EQ(test, raw_recv(b->sock, got, 10), 0);
	KUNIT_EXPECT_EQ(test, memcmp(got, MPA_KEY_REQ, 10), 0);
	expect_streaming(c, b->sock, a->sock);
	KUNIT_EXPECT_EQ(test, nevents(b), 0);
	sock_release(a->sock);
	a->sock = NULL;
	sock_release(b->sock);
	b->sock = NULL;

	/* a Request read: kept, delivered, and accepted afterwards */
	host_qp(c, a);
	host_qp(c, b);
	pair_hosts(c);
	do_listen(c, b, NULL, 0);
	do_connect(c, a);
	KUNIT_ASSERT_NOT_NULL(test, wait_ev(b, KIWARP_SOCK_EV_REQUEST, TMO));
	KUNIT_EXPECT_EQ(test, kiwarp_sock_ops.give_back(b->conn), -EBUSY);
	KUNIT_EXPECT_NULL(test, find_ev(a, KIWARP_SOCK_EV_REJECTED));
	accept_both(c, a, b);
}

/*
 * refuse(): the consumer turns a Request down with nobody told, so the
 * socket must stay its own: the requester reads a non-peer reject and
 * the end of the stream, the listener's struct socket is intact, shut
 * down, its callbacks back.
 */
static void sock_test_refuse(struct kunit *test)
{
	struct sctx *c = test->priv;
	struct host *a = &c->h[0], *b = &c->h[1];
	char got[4];
	struct kvec iov = { .iov_base = got, .iov_len = sizeof(got) };
	struct msghdr msg = {};
	struct evrec *r;

	host_qp(c, a);
	pair_hosts(c);
	do_listen(c, b, NULL, 0);
	do_connect(c, a);
	KUNIT_ASSERT_NOT_NULL(test, wait_ev(b, KIWARP_SOCK_EV_REQUEST, TMO));
	KUNIT_EXPECT_EQ(test, kiwarp_sock_ops.refuse(b->conn,
						     KIWARP_NONPEER_REJECT,
						     KIWARP_NONPEER_REJECT_LEN),
			0);
	KUNIT_EXPECT_EQ(test, kiwarp_sock_ops.refuse(b->conn, NULL, 0),
			-EINVAL);
	r = wait_ev(a, KIWARP_SOCK_EV_REJECTED, TMO);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_TRUE(test, kiwarp_nonpeer_reject(r->pdata, r->pdata_len,
						      false));
	KUNIT_ASSERT_NOT_NULL(test, b->sock->sk);
	KUNIT_EXPECT_NULL(test, b->sock->sk->sk_user_data);
	/* shut down: end of stream at once */
	b->sock->sk->sk_rcvtimeo = HZ;
	KUNIT_EXPECT_EQ(test, kernel_recvmsg(b->sock, &msg, &iov, 1,
					     sizeof(got), 0), 0);
	KUNIT_EXPECT_FALSE(test, kiwarp_sock_ops.release(b->conn));
	b->conn = NULL;
	msleep(50);
	KUNIT_EXPECT_EQ(test, nevents(b), 1);
}

/* @a closes under @b's listen: SOCKET_DOWN, the socket given back. */
static struct evrec *peer_closes(struct sctx *c, struct host *a,
				 struct host *b)
{
	struct evrec *r;

	sock_release(a->sock);
	a->sock = NULL;
	r = wait_ev(b, KIWARP_SOCK_EV_SOCKET_DOWN, TMO);
	KUNIT_ASSERT_NOT_NULL(c->test, r);
	KUNIT_EXPECT_TRUE(c->test, r->returned);
	return r;
}

/*
 * give_back() after SOCKET_DOWN: the provider ended the listen and gave
 * the socket back itself; the conn stays the caller's (-EBUSY) until
 * release(), which gives nothing back twice.
 */
static void sock_test_give_back_down(struct kunit *test)
{
	struct sctx *c = test->priv;
	struct host *a = &c->h[0], *b = &c->h[1];

	pair_hosts(c);
	do_listen(c, b, NULL, 0);
	peer_closes(c, a, b);
	KUNIT_EXPECT_EQ(test, kiwarp_sock_ops.give_back(b->conn), -EBUSY);
	KUNIT_EXPECT_EQ(test, nevents(b), 1);
	KUNIT_EXPECT_FALSE(test, kiwarp_sock_ops.release(b->conn));
	b->conn = NULL;
	KUNIT_EXPECT_NULL(test, b->sock->sk->sk_user_data);
}

static void sock_test_socket_down_at_listen(struct kunit *test)
{
	struct sctx *c = test->priv;
	struct host *a = &c->h[0], *b = &c->h[1];
	struct evrec *r;

	pair_hosts(c);
	sock_release(a->sock);
	a->sock = NULL;
	msleep(100);		/* the FIN is in */
	do_listen(c, b, NULL, 0);
	r = wait_ev(b, KIWARP_SOCK_EV_SOCKET_DOWN, TMO);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_TRUE(test, r->returned);
	KUNIT_EXPECT_LT(test, r->status, 0);
	KUNIT_EXPECT_NULL(test, b->sock->sk->sk_user_data);
	msleep(50);
	KUNIT_EXPECT_EQ(test, nevents(b), 1);
}

static void sock_test_socket_down_peer_closes(struct kunit *test)
{
	struct sctx *c = test->priv;
	struct host *a = &c->h[0], *b = &c->h[1];
	struct evrec *r;

	pair_hosts(c);
	do_listen(c, b, NULL, 0);
	msleep(50);
	KUNIT_EXPECT_EQ(test, nevents(b), 0);
	r = peer_closes(c, a, b);
	KUNIT_EXPECT_EQ(test, r->status, -ECONNABORTED);
	KUNIT_EXPECT_NULL(test, b->sock->sk->sk_user_data);
}

/*
 * The listening side gets a frame that is no MPA Request: SOCKET_DOWN
 * (-EPROTO), the socket given back with nothing of the frame taken, so
 * the consumer may go on streaming or close it (seed 000; issue 15, 10).
 */
static void sock_test_socket_down_not_mpa(struct kunit *test)
{
	static const char junk[] = "GET / HTTP/1.1\r\nHost: b\r\n\r\n";
	struct sctx *c = test->priv;
	struct host *a = &c->h[0], *b = &c->h[1];
	char got[sizeof(junk)];
	struct evrec *r;

	pair_hosts(c);
	do_listen(c, b, NULL, 0);
	KUNIT_ASSERT_EQ(test, raw_send(a->sock, junk, sizeof(junk)), 0);
	r = wait_ev(b, KIWARP_SOCK_EV_SOCKET_DOWN, TMO);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_TRUE(test, r->returned);
	KUNIT_EXPECT_EQ(test, r->status, -EPROTO);
	KUNIT_EXPECT_NULL(test, b->sock->sk->sk_user_data);
	KUNIT_ASSERT_EQ(test, raw_recv(b->sock, got, sizeof(junk)), 0);
	KUNIT_EXPECT_EQ(test, memcmp(got, junk, sizeof(junk)), 0);
	msleep(50);
	KUNIT_EXPECT_EQ(test, nevents(b), 1);
}

static void sock_test_failed_bad_reply(struct kunit *test)
{
	static const char junk[] = "HTTP/1.1 400 Bad Request\r\n\r\n";
	struct sctx *c = test->priv;
	struct host *a = &c->h[0];
	char got[sizeof(junk)];
	struct evrec *r;

	connect_raw(c);
	KUNIT_ASSERT_EQ(test, raw_send(c->raw, junk, sizeof(junk)), 0);
	r = wait_ev(a, KIWARP_SOCK_EV_FAILED, TMO);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, -EPROTO);
	KUNIT_EXPECT_TRUE(test, r->returned);
	KUNIT_EXPECT_EQ(test, kiwarp_qp_state(to_kqp(a->qp)), KIWARP_QPS_IDLE);
	/* nothing of it was taken */
	KUNIT_ASSERT_EQ(test, raw_recv(a->sock, got, sizeof(junk)), 0);
	KUNIT_EXPECT_EQ(test, memcmp(got, junk, sizeof(junk)), 0);
}

static void sock_test_failed_reset(struct kunit *test)
{
	struct sctx *c = test->priv;
	struct host *a = &c->h[0];
	struct evrec *r;

	connect_raw(c);
	sock_no_linger(c->raw->sk);
	sock_release(c->raw);
	c->raw = NULL;
	r = wait_ev(a, KIWARP_SOCK_EV_FAILED, TMO);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, -ECONNRESET);
	KUNIT_EXPECT_TRUE(test, r->returned);
	KUNIT_EXPECT_NULL(test, a->sock->sk->sk_user_data);
}

static void sock_test_check_errors(struct kunit *test)
{
	struct sctx *c = test->priv;
	struct host *a = &c->h[0], *b = &c->h[1];
	struct socket *s, *t;

	/* UDP */
	KUNIT_ASSERT_EQ(test, sock_create_kern(a->net, AF_INET, SOCK_DGRAM,
					       IPPROTO_UDP, &c->extra[0]), 0);
	KUNIT_EXPECT_EQ(test, kiwarp_sock_ops.check(a->dev, c->extra[0]),
			-EPROTONOSUPPORT);
	/* TCP, never connected */
	KUNIT_ASSERT_EQ(test, sock_create_kern(a->net, AF_INET, SOCK_STREAM,
					       IPPROTO_TCP, &c->extra[1]), 0);
	KUNIT_EXPECT_EQ(test, kiwarp_sock_ops.check(a->dev, c->extra[1]),
			-ENOTCONN);
	/* over lo to kw1's own address: not through veth4 */
	KUNIT_ASSERT_EQ(test, tcp_pair(a->net, a->net, KW1_ADDR, &s, &t), 0);
	c->extra[2] = t;
	KUNIT_EXPECT_EQ(test, kiwarp_sock_ops.check(a->dev, s), -ENODEV);
	sock_release(s);
	/* over veth0 (192.0.2.1 -> 192.0.2.2, another device) */
	KUNIT_ASSERT_EQ(test, tcp_pair(a->net, b->net, "192.0.2.2", &s,
				       &c->raw), 0);
	KUNIT_EXPECT_EQ(test, kiwarp_sock_ops.check(a->dev, s), -ENODEV);
	sock_release(s);
	/* the right pair, each end on its own device only */
	pair_hosts(c);
	KUNIT_EXPECT_EQ(test, kiwarp_sock_ops.check(a->dev, a->sock), 0);
	KUNIT_EXPECT_EQ(test, kiwarp_sock_ops.check(b->dev, b->sock), 0);
	KUNIT_EXPECT_EQ(test, kiwarp_sock_ops.check(b->dev, a->sock), -ENODEV);
	KUNIT_EXPECT_EQ(test, kiwarp_sock_ops.check(a->dev, b->sock), -ENODEV);
	/* taken over */
	do_listen(c, b, NULL, 0);
	KUNIT_EXPECT_EQ(test, kiwarp_sock_ops.check(b->dev, b->sock), -EBUSY);
	KUNIT_EXPECT_EQ(test, kiwarp_sock_ops.listen(b->dev, b->sock, NULL, 0,
						     handler, b, &c->h[0].conn),
			-EBUSY);
	KUNIT_EXPECT_NULL(test, c->h[0].conn);
}

/* kw1 to kw2 established; graceful close from @closer */
static void sock_test_graceful_close(struct kunit *test)
{
	struct ib_qp_attr qa = { .qp_state = IB_QPS_SQD };
	struct sctx *c = test->priv;
	struct host *a = &c->h[0], *b = &c->h[1];
	struct evrec *r;

	host_qp(c, a);
	host_qp(c, b);
	pair_hosts(c);
	do_listen(c, b, NULL, 0);
	do_connect(c, a);
	accept_both(c, a, b);
	reg_mr(a);
	reg_mr(b);
	exercise(c, a, b, 5);
	KUNIT_ASSERT_EQ(test, ib_modify_qp(a->qp, &qa, IB_QP_STATE), 0);
	r = wait_ev(b, KIWARP_SOCK_EV_CLOSED, TMO);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, 0);
	KUNIT_EXPECT_NOT_NULL(test, find_ev(b, KIWARP_SOCK_EV_DISCONNECT));
	r = wait_ev(a, KIWARP_SOCK_EV_CLOSED, TMO);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, 0);
	KUNIT_EXPECT_NULL(test, find_ev(a, KIWARP_SOCK_EV_DISCONNECT));
	KUNIT_EXPECT_EQ(test, kiwarp_qp_state(to_kqp(a->qp)), KIWARP_QPS_ERROR);
	KUNIT_EXPECT_NULL(test, to_kqp(a->qp)->sock);
	KUNIT_EXPECT_NULL(test, to_kqp(b->qp)->sock);
}

/* kw1 established with a raw peer that answered by hand */
static void establish_raw(struct sctx *c)
{
	struct host *a = &c->h[0];
	struct evrec *r;

	connect_raw(c);
	raw_send_reply(c, c->raw, false, pas_pd, sizeof(pas_pd));
	r = wait_ev(a, KIWARP_SOCK_EV_ESTABLISHED, TMO);
	KUNIT_ASSERT_NOT_NULL(c->test, r);
	a->sock = NULL;
	KUNIT_EXPECT_EQ(c->test, r->pdata_len, sizeof(pas_pd));
	KUNIT_EXPECT_EQ(c->test, kiwarp_qp_state(to_kqp(a->qp)),
			KIWARP_QPS_RTS);
}

static void sock_test_close_no_fin(struct kunit *test)
{
	struct ib_qp_attr qa = { .qp_state = IB_QPS_SQD };
	struct sctx *c = test->priv;
	struct host *a = &c->h[0];
	unsigned int saved = kiwarp_close_timeout_ms;
	unsigned long t0;
	struct evrec *r;

	establish_raw(c);
	kiwarp_close_timeout_ms = 1000;
	t0 = jiffies;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(a->qp, &qa, IB_QP_STATE), 0);
	kiwarp_close_timeout_ms = saved;
	msleep(500);
	KUNIT_EXPECT_NULL(test, find_ev(a, KIWARP_SOCK_EV_CLOSED));
	r = wait_ev(a, KIWARP_SOCK_EV_CLOSED, TMO);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, -ETIMEDOUT);
	KUNIT_EXPECT_LT(test, jiffies - t0, 4UL * HZ);
	KUNIT_EXPECT_NULL(test, find_ev(a, KIWARP_SOCK_EV_DISCONNECT));
	KUNIT_EXPECT_NULL(test, to_kqp(a->qp)->sock);
}

/* Bytes waiting in @s, 0 at its end, or its error, after up to @tmo */
static int raw_peek(struct socket *s, long tmo)
{
	struct msghdr msg = { .msg_flags = MSG_PEEK };
	struct kvec iov;
	u8 byte;

	iov.iov_base = &byte;
	iov.iov_len = 1;
	s->sk->sk_rcvtimeo = tmo;
	return kernel_recvmsg(s, &msg, &iov, 1, 1, MSG_PEEK);
}

/*
 * kiwarp_tcp_shutdown() tells a FIN TCP could not allocate: fail-nth
 * makes the shutdown's first allocation fail, as failslab does under
 * the stress suite's faults.
 */
static void sock_test_fin_lost_detected(struct kunit *test)
{
	struct sctx *c = test->priv;
	struct socket *a, *b;
	int state;

	if (!IS_ENABLED(CONFIG_FAILSLAB))
		kunit_skip(test, "needs CONFIG_FAILSLAB (fail-nth)");
	KUNIT_ASSERT_EQ(test, tcp_pair(c->h[0].net, c->h[1].net, KW2_ADDR,
				       &a, &b), 0);
	c->extra[0] = a;
	c->extra[1] = b;
	atomic_set(&kiwarp_test_lose_fin, 1);
	KUNIT_EXPECT_FALSE(test, kiwarp_tcp_shutdown(a, SHUT_WR));
	KUNIT_EXPECT_EQ(test, atomic_read(&kiwarp_test_lose_fin), 0);
	state = READ_ONCE(a->sk->sk_state);
	KUNIT_EXPECT_TRUE(test,
			  state == TCP_FIN_WAIT1 || state == TCP_FIN_WAIT2);
	/* the peer learns nothing: no end of stream */
	KUNIT_EXPECT_EQ(test, raw_peek(b, HZ / 4), -EAGAIN);
	/* a FIN that is queued is told as such */
	KUNIT_EXPECT_TRUE(test, kiwarp_tcp_shutdown(b, SHUT_WR));
	KUNIT_EXPECT_EQ(test, raw_peek(a, TMO), 0);
	/*
	 * To TCP the FIN that took no sequence number was acknowledged:
	 * the peer's FIN ended the socket (TIME_WAIT); no FIN is due now.
	 */
	state = READ_ONCE(a->sk->sk_state);
	KUNIT_EXPECT_EQ(test, state, TCP_CLOSE);
	KUNIT_EXPECT_TRUE(test, kiwarp_tcp_shutdown(a, SHUT_RDWR));
}

/*
 * Our graceful close whose FIN TCP could not allocate: the connection is
 * reset once our data is acknowledged, status 0, without waiting out
 * the close's bound (5 s) for a peer that cannot know.
 */
static void sock_test_close_fin_lost(struct kunit *test)
{
	struct ib_qp_attr qa = { .qp_state = IB_QPS_SQD };
	struct sctx *c = test->priv;
	struct host *a = &c->h[0];
	unsigned long t0;
	struct evrec *r;

	if (!IS_ENABLED(CONFIG_FAILSLAB))
		kunit_skip(test, "needs CONFIG_FAILSLAB (fail-nth)");
	establish_raw(c);
	atomic_set(&kiwarp_test_lose_fin, 1);
	t0 = jiffies;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(a->qp, &qa, IB_QP_STATE), 0);
	r = wait_ev(a, KIWARP_SOCK_EV_CLOSED, TMO);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, atomic_read(&kiwarp_test_lose_fin), 0);
	KUNIT_EXPECT_EQ(test, r->status, 0);
	KUNIT_EXPECT_LT(test, jiffies - t0, 2UL * HZ);
	KUNIT_EXPECT_NULL(test, find_ev(a, KIWARP_SOCK_EV_DISCONNECT));
	KUNIT_EXPECT_EQ(test, raw_peek(c->raw, TMO), -ECONNRESET);
}

/*
 * Our answer to the peer's FIN, lost the same way: TCP has no reset to
 * send from LAST_ACK, but our socket must not stay there, orphaned,
 * with no timer to end it.
 */
static void sock_test_answer_fin_lost(struct kunit *test)
{
	struct sctx *c = test->priv;
	struct host *a = &c->h[0];
	struct evrec *r;
	struct sock *sk;
	int state;

	if (!IS_ENABLED(CONFIG_FAILSLAB))
		kunit_skip(test, "needs CONFIG_FAILSLAB (fail-nth)");
	establish_raw(c);
	sk = to_kqp(a->qp)->sock->sk;
	sock_hold(sk);
	atomic_set(&kiwarp_test_lose_fin, 1);
	kernel_sock_shutdown(c->raw, SHUT_WR);
	r = wait_ev(a, KIWARP_SOCK_EV_CLOSED, TMO);
	KUNIT_EXPECT_NOT_NULL(test, r);
	if (r)
		KUNIT_EXPECT_EQ(test, r->status, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kiwarp_test_lose_fin), 0);
	state = READ_ONCE(sk->sk_state);
	KUNIT_EXPECT_EQ(test, state, TCP_CLOSE);
	sock_put(sk);
}

static void sock_test_reset_closes(struct kunit *test)
{
	struct sctx *c = test->priv;
	struct host *a = &c->h[0];
	struct evrec *r;

	establish_raw(c);
	sock_no_linger(c->raw->sk);
	sock_release(c->raw);
	c->raw = NULL;
	r = wait_ev(a, KIWARP_SOCK_EV_CLOSED, TMO);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, -ECONNRESET);
	KUNIT_EXPECT_EQ(test, kiwarp_qp_state(to_kqp(a->qp)), KIWARP_QPS_ERROR);
}

static void sock_test_terminate_closes(struct kunit *test)
{
	/* an FPDU with DDP version 0: kiwarp answers with a TERMINATE */
	static const u8 bad[] = { 0x00, 0x06, 0x40, 0x41, 0, 0, 0, 0,
				  0, 0, 0, 0 };
	struct sctx *c = test->priv;
	struct host *a = &c->h[0];
	struct evrec *r;
	u8 hdr[4];

	establish_raw(c);
	KUNIT_ASSERT_EQ(test, raw_send(c->raw, bad, sizeof(bad)), 0);
	r = wait_ev(a, KIWARP_SOCK_EV_CLOSED, TMO);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, -EPROTO);
	KUNIT_EXPECT_EQ(test, to_kqp(a->qp)->stats.terms_sent, 1U);
	/* the TERMINATE reached the peer: an FPDU with an RDMAP opcode 7 */
	KUNIT_ASSERT_EQ(test, raw_recv(c->raw, hdr, sizeof(hdr)), 0);
	KUNIT_EXPECT_EQ(test, hdr[3] & 0x0f, 7);
}

/* A TERMINATE from the peer ends the connection with -EPROTO too */
static void sock_test_terminate_received(struct kunit *test)
{
	struct ddp_hdr h = {
		.opcode = RDMAP_TERMINATE, .last = true,
		.qn = DDP_QN_TERMINATE, .msn = 1,
		.term_layer = TERM_LAYER_RDMAP,
		.term_etype = RDMAP_ETYPE_REMOTE_OPERATION,
		.term_ecode = RDMAP_ECODE_OPCODE,
	};
	struct sctx *c = test->priv;
	struct host *a = &c->h[0];
	u8 ulpdu[DDP_HDR_MAX], frame[64];
	struct evrec *r;
	int hlen, len;

	establish_raw(c);
	hlen = ddp_hdr_encode(&h, ulpdu, sizeof(ulpdu));
	KUNIT_ASSERT_GT(test, hlen, 0);
	len = mpa_fpdu_encode(ulpdu, hlen, false, frame, sizeof(frame));
	KUNIT_ASSERT_GT(test, len, 0);
	KUNIT_ASSERT_EQ(test, raw_send(c->raw, frame, len), 0);
	r = wait_ev(a, KIWARP_SOCK_EV_CLOSED, TMO);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, -EPROTO);
	KUNIT_EXPECT_EQ(test, to_kqp(a->qp)->stats.terms_rcvd, 1U);
	KUNIT_EXPECT_EQ(test, to_kqp(a->qp)->stats.terms_sent, 0U);
	KUNIT_EXPECT_NULL(test, find_ev(a, KIWARP_SOCK_EV_DISCONNECT));
}

/* destroy_qp under a live connection: the socket goes, the peer sees it */
static void sock_test_destroy_live(struct kunit *test)
{
	struct sctx *c = test->priv;
	struct host *a = &c->h[0], *b = &c->h[1];
	struct evrec *r;

	host_qp(c, a);
	host_qp(c, b);
	pair_hosts(c);
	do_listen(c, b, NULL, 0);
	do_connect(c, a);
	accept_both(c, a, b);
	/* the events stop, the connection goes on */
	KUNIT_EXPECT_FALSE(test, kiwarp_sock_ops.release(a->conn));
	a->conn = NULL;
	KUNIT_EXPECT_EQ(test, kiwarp_qp_state(to_kqp(a->qp)), KIWARP_QPS_RTS);
	ib_destroy_qp(a->qp);
	a->qp = NULL;
	r = wait_ev(b, KIWARP_SOCK_EV_CLOSED, TMO);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->status, -ECONNRESET);
	KUNIT_EXPECT_NULL(test, to_kqp(b->qp)->sock);
}

static struct kunit_case kiwarp_sock_cases[] = {
	KUNIT_CASE(sock_test_kw1_connects),
	KUNIT_CASE(sock_test_kw2_connects),
	KUNIT_CASE(sock_test_ipv6),
	KUNIT_CASE(sock_test_streaming_then_rdma),
	KUNIT_CASE(sock_test_listen_final_msg),
	KUNIT_CASE(sock_test_early_data),
	KUNIT_CASE(sock_test_rejected),
	KUNIT_CASE(sock_test_passive_reject),
	KUNIT_CASE(sock_test_release_connect),
	KUNIT_CASE(sock_test_release_listen),
	KUNIT_CASE(sock_test_give_back),
	KUNIT_CASE(sock_test_give_back_down),
	KUNIT_CASE(sock_test_refuse),
	KUNIT_CASE(sock_test_socket_down_at_listen),
	KUNIT_CASE(sock_test_socket_down_peer_closes),
	KUNIT_CASE(sock_test_socket_down_not_mpa),
	KUNIT_CASE(sock_test_failed_bad_reply),
	KUNIT_CASE(sock_test_failed_reset),
	KUNIT_CASE(sock_test_check_errors),
	KUNIT_CASE(sock_test_graceful_close),
	KUNIT_CASE(sock_test_close_no_fin),
	KUNIT_CASE(sock_test_fin_lost_detected),
	KUNIT_CASE(sock_test_close_fin_lost),
	KUNIT_CASE(sock_test_answer_fin_lost),
	KUNIT_CASE(sock_test_reset_closes),
	KUNIT_CASE(sock_test_terminate_closes),
	KUNIT_CASE(sock_test_terminate_received),
	KUNIT_CASE(sock_test_destroy_live),
	{}
};

static struct kunit_suite kiwarp_sock_suite = {
	.name = "kiwarp_sock",
	.init = sock_init,
	.exit = sock_exit,
	.test_cases = kiwarp_sock_cases,
};

kunit_test_suite(kiwarp_sock_suite);

MODULE_DESCRIPTION("KUnit tests: kiwarp socket takeover");
MODULE_IMPORT_NS(KIWARP_INTERNAL);
MODULE_LICENSE("GPL");
