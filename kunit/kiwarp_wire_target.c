// SPDX-License-Identifier: GPL-2.0
/*
 * kiwarp_wire_target.ko: the kernel side of the userspace malformed
 * frame peer (tools/wirepeer). Not a KUnit suite: the peer runs while
 * this module is loaded and reports the named cases itself.
 *
 * On load it listens with rdma_cm on kw0 (@addr:@port, default
 * 198.51.100.1:7180, namespace b). Every connection request gets its own
 * PD, CQ, QP, an FRWR MR over a REG_LEN byte region and RECV_RING
 * receives of RECV_LEN bytes, each surrounded by GUARD canary bytes
 * (0x5c); the REG_MR is posted before the accept, so it runs as soon
 * as the QP is in RTS. The peer learns the STag and address, and
 * checks the outcome, through debugfs:
 *
 *   /sys/kernel/debug/kiwarp_wire_target/conns
 *     requests=<connection requests seen>
 *     port=<peer port> stag=0x.. to=0x.. len=<region> rlen=<receive>
 *     ready=<0|1: REG_MR completed> established=<0|1>
 *     disconnected=<0|1> state=<kiwarp QP state> crc=<0|1>
 *     terms_sent=<n> terms_rcvd=<n> guard=<ok|bad> region=<clean|dirty>
 *     recv_guard=<ok|bad> recvs=<successful receive completions>
 *
 * (the second part is one line per connection). Reading the file polls
 * the CQs. Connections live until the module is unloaded.
 */

#include <linux/debugfs.h>
#include <linux/inet.h>
#include <linux/inetdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rtnetlink.h>
#include <linux/scatterlist.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "kiwarp.h"
#include "wire_target.h"

static char *addr = "198.51.100.1";
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "IPv4 address of a kiwarp device to listen on");
static int port = 7180;
module_param(port, int, 0444);
MODULE_PARM_DESC(port, "TCP port to listen on");

/*
 * struct wt_conn - one accepted connection.
 *
 * Created in the CONNECT_REQUEST handler, on wt_conns until module exit,
 * which destroys the QP and the cm_id (no handler runs after that) and
 * then frees the rest. The cm
 * handler writes @established and @disconnected (WRITE_ONCE); the rest
 * is set up before the conn is published and then read under wt_lock.
 */
struct wt_conn {
	struct list_head node;		/* on wt_conns, under wt_lock */
	struct rdma_cm_id *id;
	u16 peer_port;
	struct ib_pd *pd;
	struct ib_cq *cq;		/* polled under wt_lock only */
	struct ib_mr *mr;
	u8 *buf;			/* GUARD | REG_LEN | GUARD */
	u8 *rbuf;			/* (GUARD | RECV_LEN) x RING | GUARD */
	struct scatterlist sg;
	bool sg_mapped;
	u64 rbuf_dma;
	bool ready;			/* REG_MR completed, under wt_lock */
	unsigned int recvs;		/* under wt_lock */
	bool established;
	bool disconnected;
};

/* wt_lock protects wt_conns, wt_requests and the CQ polling. */
static DEFINE_MUTEX(wt_lock);
static LIST_HEAD(wt_conns);
static unsigned int wt_requests;
static struct rdma_cm_id *wt_lid;
static struct net *wt_net;
static struct dentry *wt_dir;

/* Everything but the QP and the cm_id (destroyed first by the caller). */
static void wt_conn_free(struct wt_conn *c, struct ib_device *dev)
{
	if (!IS_ERR_OR_NULL(c->mr))
		ib_dereg_mr(c->mr);
	if (c->rbuf_dma)
		ib_dma_unmap_single(dev, c->rbuf_dma, RBUF_LEN,
				    DMA_FROM_DEVICE);
	if (c->sg_mapped)
		ib_dma_unmap_sg(dev, &c->sg, 1, DMA_BIDIRECTIONAL);
	if (!IS_ERR_OR_NULL(c->cq))
		ib_free_cq(c->cq);
	if (!IS_ERR_OR_NULL(c->pd))
		ib_dealloc_pd(c->pd);
	kfree(c->buf);
	kfree(c->rbuf);
	kfree(c);
}

/* QP, MR, receives and the REG_MR for a new connection on @id. */
static int wt_conn_setup(struct wt_conn *c, struct rdma_cm_id *id)
{
	struct ib_qp_init_attr qa = {
		.cap = { .max_send_wr = 4, .max_recv_wr = RECV_RING,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	struct ib_reg_wr reg = {
		.wr = { .opcode = IB_WR_REG_MR, .send_flags = IB_SEND_SIGNALED },
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
			  IB_ACCESS_REMOTE_WRITE,
	};
	struct ib_sge sge = { .length = RECV_LEN };
	struct ib_recv_wr rwr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 };
	const struct ib_recv_wr *rbad;
	const struct ib_send_wr *sbad;
	int ret, i;

	c->pd = ib_alloc_pd(id->device, 0);
	if (IS_ERR(c->pd))
		return PTR_ERR(c->pd);
	c->cq = ib_alloc_cq(id->device, NULL, 16, 0, IB_POLL_DIRECT);
	if (IS_ERR(c->cq))
		return PTR_ERR(c->cq);
	qa.send_cq = c->cq;
	qa.recv_cq = c->cq;
	ret = rdma_create_qp(id, c->pd, &qa);
	if (ret)
		return ret;
	c->buf = kmalloc(REG_LEN + 2 * GUARD, GFP_KERNEL);
	c->rbuf = kmalloc(RBUF_LEN, GFP_KERNEL);
	if (!c->buf || !c->rbuf)
		return -ENOMEM;
	memset(c->buf, CANARY, REG_LEN + 2 * GUARD);
	memset(c->buf + GUARD, 0, REG_LEN);
	memset(c->rbuf, CANARY, RBUF_LEN);
	for (i = 0; i < RECV_RING; i++)
		memset(c->rbuf + GUARD + i * (RECV_LEN + GUARD), 0, RECV_LEN);
	sg_init_one(&c->sg, c->buf + GUARD, REG_LEN);
	if (ib_dma_map_sg(id->device, &c->sg, 1, DMA_BIDIRECTIONAL) != 1)
		return -EIO;
	c->sg_mapped = true;
	c->mr = ib_alloc_mr(c->pd, IB_MR_TYPE_MEM_REG, 2);
	if (IS_ERR(c->mr))
		return PTR_ERR(c->mr);
	if (ib_map_mr_sg(c->mr, &c->sg, 1, NULL, PAGE_SIZE) != 1)
		return -EIO;
	c->rbuf_dma = ib_dma_map_single(id->device, c->rbuf, RBUF_LEN,
					DMA_FROM_DEVICE);
	sge.lkey = c->pd->local_dma_lkey;
	for (i = 0; i < RECV_RING; i++) {
		sge.addr = c->rbuf_dma + GUARD + i * (RECV_LEN + GUARD);
		ret = ib_post_recv(id->qp, &rwr, &rbad);
		if (ret)
			return ret;
	}
	ib_update_fast_reg_key(c->mr, 0x42);
	reg.mr = c->mr;
	reg.key = c->mr->rkey;
	/* Runs when the QP reaches RTS, before anything the peer sends. */
	return ib_post_send(id->qp, &reg.wr, &sbad);
}

static int wt_request(struct rdma_cm_id *id)
{
	struct rdma_conn_param cp = { .initiator_depth = 4,
				      .responder_resources = 4 };
	struct sockaddr_in *peer;
	struct wt_conn *c;
	int ret;

	mutex_lock(&wt_lock);
	wt_requests++;
	mutex_unlock(&wt_lock);
	if (id->device->ops.driver_id != RDMA_DRIVER_UNKNOWN)
		return -EINVAL;	/* not kiwarp: rdma_cm rejects */
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	c->id = id;
	peer = (struct sockaddr_in *)&id->route.addr.dst_addr;
	c->peer_port = ntohs(peer->sin_port);
	id->context = c;
	ret = wt_conn_setup(c, id);
	if (!ret)
		ret = rdma_accept(id, &cp);
	if (ret) {
		/* rdma_cm destroys the id when we return an error. */
		if (id->qp)
			rdma_destroy_qp(id);
		id->context = NULL;
		wt_conn_free(c, id->device);
		return ret;
	}
	mutex_lock(&wt_lock);
	list_add_tail(&c->node, &wt_conns);
	mutex_unlock(&wt_lock);
	return 0;
}

static int wt_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct wt_conn *c = id->context;

	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		return wt_request(id);
	case RDMA_CM_EVENT_ESTABLISHED:
		if (c)
			WRITE_ONCE(c->established, true);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		if (c)
			WRITE_ONCE(c->disconnected, true);
		break;
	default:
		break;
	}
	return 0;
}

static bool wt_canary(const u8 *p, size_t len)
{
	return !memchr_inv(p, CANARY, len);
}

static bool wt_recv_guards_ok(struct wt_conn *c)
{
	int i;

	for (i = 0; i <= RECV_RING; i++)
		if (!wt_canary(c->rbuf + i * (RECV_LEN + GUARD), GUARD))
			return false;
	return true;
}

/* Called with wt_lock held: collect the completions of @c. */
static void wt_poll(struct wt_conn *c)
{
	struct ib_wc wc;

	while (ib_poll_cq(c->cq, 1, &wc) == 1) {
		if (wc.status != IB_WC_SUCCESS)
			continue;
		if (wc.opcode == IB_WC_REG_MR)
			c->ready = true;
		else if (wc.opcode & IB_WC_RECV)
			c->recvs++;
	}
}

static int wt_conns_show(struct seq_file *s, void *unused)
{
	struct kiwarp_qp *qp;
	struct wt_conn *c;

	mutex_lock(&wt_lock);
	seq_printf(s, "requests=%u\n", wt_requests);
	list_for_each_entry(c, &wt_conns, node) {
		wt_poll(c);
		qp = to_kqp(c->id->qp);
		seq_printf(s, "port=%u stag=%#x to=%#llx len=%u rlen=%u ready=%d established=%d disconnected=%d state=%s crc=%d terms_sent=%u terms_rcvd=%u guard=%s region=%s recv_guard=%s recvs=%u\n",
			   c->peer_port, c->mr->rkey, c->mr->iova, REG_LEN,
			   RECV_LEN, c->ready, READ_ONCE(c->established),
			   READ_ONCE(c->disconnected),
			   kiwarp_qp_state_name[kiwarp_qp_state(qp)], qp->crc,
			   READ_ONCE(qp->stats.terms_sent),
			   READ_ONCE(qp->stats.terms_rcvd),
			   wt_canary(c->buf, GUARD) &&
			   wt_canary(c->buf + GUARD + REG_LEN, GUARD) ?
			   "ok" : "bad",
			   memchr_inv(c->buf + GUARD, 0, REG_LEN) ?
			   "dirty" : "clean",
			   wt_recv_guards_ok(c) ? "ok" : "bad", c->recvs);
	}
	mutex_unlock(&wt_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(wt_conns);

static struct net *wt_find_net(__be32 a)
{
	struct net *net, *found = NULL;

	rtnl_lock();
	for_each_net(net) {
		if (__ip_dev_find(net, a, false)) {
			found = get_net(net);
			break;
		}
	}
	rtnl_unlock();
	return found;
}

static int __init wt_init(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int ret;

	sin.sin_addr.s_addr = in_aton(addr);
	sin.sin_port = htons(port);
	wt_net = wt_find_net(sin.sin_addr.s_addr);
	if (!wt_net)
		return -EADDRNOTAVAIL;
	wt_lid = rdma_create_id(wt_net, wt_cm_handler, NULL, RDMA_PS_TCP,
				IB_QPT_RC);
	if (IS_ERR(wt_lid)) {
		ret = PTR_ERR(wt_lid);
		goto put_net;
	}
	ret = rdma_bind_addr(wt_lid, (struct sockaddr *)&sin);
	if (!ret)
		ret = rdma_listen(wt_lid, 8);
	if (ret)
		goto destroy_id;
	wt_dir = debugfs_create_dir("kiwarp_wire_target", NULL);
	debugfs_create_file("conns", 0444, wt_dir, NULL, &wt_conns_fops);
	return 0;

destroy_id:
	rdma_destroy_id(wt_lid);
put_net:
	put_net(wt_net);
	return ret;
}

static void __exit wt_exit(void)
{
	struct wt_conn *c, *tmp;
	LIST_HEAD(conns);

	debugfs_remove_recursive(wt_dir);
	/* No new connection after this; their handlers have returned. */
	rdma_destroy_id(wt_lid);
	mutex_lock(&wt_lock);
	list_splice_init(&wt_conns, &conns);
	mutex_unlock(&wt_lock);
	list_for_each_entry_safe(c, tmp, &conns, node) {
		struct ib_device *dev = c->id->device;

		list_del(&c->node);
		/* QP, then the id (waits for its handler), then the rest. */
		rdma_destroy_qp(c->id);
		rdma_destroy_id(c->id);
		wt_conn_free(c, dev);
	}
	put_net(wt_net);
}

module_init(wt_init);
module_exit(wt_exit);

MODULE_DESCRIPTION("kiwarp test target for the userspace malformed-frame peer");
MODULE_IMPORT_NS(KIWARP_INTERNAL);
MODULE_LICENSE("GPL");
