// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "kiwarp_rping": rping's protocol (rdmacm-utils) spoken by
 * plain kernel rdma_cm/verbs endpoints on the kiwarp RNIC.
 *
 * Topology (scripts/guest/lib.sh): kw0 on veth2 (198.51.100.1,
 * namespace b) faces siwC on veth3 (198.51.100.2, root namespace);
 * kw1 on veth4 (203.0.113.1, root) faces kw2 on veth5 (203.0.113.2, b).
 * Before this module is loaded the guest runner (kiwarp_rping_suites)
 * starts, in the root namespace on siwC,
 *
 *   rping -s -a 198.51.100.2 -p <port_server> -C <count> -S <size> -V
 *   rping -c -a 198.51.100.1 -p <port_listen> -C <count> -S <size> -V
 *           (retried until our listener is up)
 *
 * and judges their exit status and output separately.
 *
 *   interop_rping_siw_client  rping -c (siw) against our kernel server
 *                             on kw0 (first: rping -c is retrying)
 *   interop_rping_siw_server  our kernel client on kw0 against rping -s
 *   ours_ours_rping[_crc]     our client on kw1, our server on kw2 (a
 *                             kthread), MPA CRC off and on
 *   ours_ours_rping_ipv6      the same over IPv6 (2001:db8:4::/64),
 *                             kw2 connecting to kw1
 *   interop_ipv6_*_rping      kw0 (2001:db8:2::1) and siwC (::2), each
 *                             one the server once (server first in the
 *                             name), the second with CRC
 *
 * rping's exchange, per round: the client SENDs a 16 byte struct
 * rping_info (big endian address, rkey, length) of its source buffer;
 * the server RDMA READs it and SENDs a 16 byte go-ahead; the client
 * SENDs the info of its sink buffer; the server RDMA WRITEs what it
 * read there and SENDs the go-ahead; the client (-V) compares source
 * and sink. The source holds "rdma-ping-<n>: " and a rotating alphabet,
 * NUL terminated. The client then disconnects.
 *
 * The two roles are plain functions returning 0 or an error with a
 * message in the endpoint (the server runs on a kthread for the
 * ours_ours cases, where KUnit assertions cannot be used).
 */

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/rtnetlink.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "kiwarp.h"
#include "test_net.h"

static int count = 100;
module_param(count, int, 0444);
MODULE_PARM_DESC(count, "rping rounds per case (rping -C)");
static int size = 64;
module_param(size, int, 0444);
MODULE_PARM_DESC(size, "rping buffer size (rping -S), 16..2048");
static int port_server = 7176;
module_param(port_server, int, 0444);
MODULE_PARM_DESC(port_server, "port of rping -s on siwC");
static int port_listen = 7177;
module_param(port_listen, int, 0444);
MODULE_PARM_DESC(port_listen, "our port on kw0, for rping -c");

#define KW0_NETDEV	"veth2"
#define KW0_ADDR	"198.51.100.1"
#define SIWC_ADDR	"198.51.100.2"
#define OURS_PORT	7178
#define BUF_LEN		4096	/* start at 0, rw at RW_OFF */
#define RW_OFF		2048
#define EV_TMO		(15 * HZ)
#define WC_TMO_MS	15000
/* A case must end well within the hung task limit (60 s) of insmod. */
#define ACCEPT_TMO	(40 * HZ)
#define CONNECT_MS	40000

struct rping_info {
	__be64 buf;
	__be32 rkey;
	__be32 size;
};

/* Completion ids; also bits of rp_ep.seen. */
enum { WR_RECV = 1, WR_SEND, WR_READ, WR_WRITE, WR_REG };

/*
 * struct rp_ep - one rping endpoint. Owned by the thread running its
 * role; the cm handler only touches @events, @status and @child (with
 * wake_up on @wq). Everything is released by rp_close().
 */
struct rp_ep {
	const char *name;
	struct net *net;
	wait_queue_head_t wq;
	unsigned long events;		/* bit per rdma_cm event seen */
	int status;			/* of the last event with one */
	struct rdma_cm_id *lid;		/* listener (server) */
	struct rdma_cm_id *id;		/* the connection */
	struct rdma_cm_id *child;	/* from CONNECT_REQUEST */
	struct ib_pd *pd;
	struct ib_cq *cq;
	u8 *buf;
	struct scatterlist sg;
	bool sg_mapped;
	struct ib_mr *mr;
	struct rping_info *sbuf, *rbuf;
	u64 sdma, rdma;
	u64 seen;			/* completions not yet waited for */
	char err[160];
};

static int rp_fail(struct rp_ep *e, int ret, const char *what)
{
	if (!e->err[0])
		snprintf(e->err, sizeof(e->err), "%s: %s: %d (events %lx)",
			 e->name, what, ret, e->events);
	return ret ? ret : -EIO;
}

static int rp_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct rp_ep *e = id->context;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST && !e->child)
		e->child = id;
	else if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return -EBUSY;	/* one connection only: rdma_cm drops it */
	if (ev->status)
		e->status = ev->status;
	set_bit(ev->event, &e->events);
	wake_up(&e->wq);
	return 0;
}

static bool rp_wait_ev(struct rp_ep *e, int ev, unsigned long tmo)
{
	return wait_event_timeout(e->wq, test_bit(ev, &e->events), tmo) > 0;
}

/* @ip (IPv4 or IPv6) and @port as a socket address. */
static int rp_addr(struct rp_ep *e, struct sockaddr_storage *ss,
		   const char *ip, int port)
{
	char p[8];

	snprintf(p, sizeof(p), "%d", port);
	if (inet_pton_with_scope(e->net, AF_UNSPEC, ip, p, ss))
		return rp_fail(e, -EINVAL, "address");
	return 0;
}

static int rp_post_recv(struct rp_ep *e)
{
	struct ib_sge sge = { .addr = e->rdma, .length = sizeof(*e->rbuf),
			      .lkey = e->pd->local_dma_lkey };
	struct ib_recv_wr wr = { .wr_id = WR_RECV, .sg_list = &sge,
				 .num_sge = 1 };
	const struct ib_recv_wr *bad;

	return ib_post_recv(e->id->qp, &wr, &bad);
}

static int rp_post(struct rp_ep *e, struct ib_send_wr *wr)
{
	const struct ib_send_wr *bad;

	wr->send_flags |= IB_SEND_SIGNALED;
	return ib_post_send(e->id->qp, wr, &bad);
}

/* Wait for the (successful) completion @want; others are remembered. */
static int rp_wait_wc(struct rp_ep *e, int want)
{
	unsigned long end = jiffies + msecs_to_jiffies(WC_TMO_MS);
	struct ib_wc wc;

	while (!(e->seen & BIT_ULL(want))) {
		if (ib_poll_cq(e->cq, 1, &wc) == 1) {
			if (wc.status != IB_WC_SUCCESS) {
				snprintf(e->err, sizeof(e->err),
					 "%s: wr %llu status %d waiting for %d",
					 e->name, wc.wr_id, wc.status, want);
				return -EIO;
			}
			if (wc.wr_id == WR_RECV &&
			    wc.byte_len != sizeof(struct rping_info)) {
				snprintf(e->err, sizeof(e->err),
					 "%s: received %u bytes", e->name,
					 wc.byte_len);
				return -EIO;
			}
			e->seen |= BIT_ULL(wc.wr_id & 63);
			continue;
		}
		if (time_after(jiffies, end))
			return rp_fail(e, -ETIMEDOUT, "completion");
		usleep_range(100, 300);
	}
	e->seen &= ~BIT_ULL(want);
	return 0;
}

/*
 * PD, CQ, QP on @id's device; an FRWR MR over the buffer (registered
 * by rp_register() once connected, for remote read and write: the peer
 * reads our source, writes our sink and, as the server, we read into
 * it); one receive posted.
 */
static int rp_setup(struct rp_ep *e, struct rdma_cm_id *id)
{
	struct ib_qp_init_attr qa = {
		.cap = { .max_send_wr = 16, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	int ret;

	e->id = id;
	e->pd = ib_alloc_pd(id->device, 0);
	if (IS_ERR(e->pd))
		return rp_fail(e, PTR_ERR(e->pd), "pd");
	e->cq = ib_alloc_cq(id->device, NULL, 32, 0, IB_POLL_DIRECT);
	if (IS_ERR(e->cq))
		return rp_fail(e, PTR_ERR(e->cq), "cq");
	qa.send_cq = e->cq;
	qa.recv_cq = e->cq;
	ret = rdma_create_qp(id, e->pd, &qa);
	if (ret)
		return rp_fail(e, ret, "qp");
	e->buf = kzalloc(BUF_LEN, GFP_KERNEL);
	e->sbuf = kzalloc(sizeof(*e->sbuf), GFP_KERNEL);
	e->rbuf = kzalloc(sizeof(*e->rbuf), GFP_KERNEL);
	if (!e->buf || !e->sbuf || !e->rbuf)
		return rp_fail(e, -ENOMEM, "buffers");
	sg_init_one(&e->sg, e->buf, BUF_LEN);
	if (ib_dma_map_sg(id->device, &e->sg, 1, DMA_BIDIRECTIONAL) != 1)
		return rp_fail(e, -EIO, "map");
	e->sg_mapped = true;
	e->sdma = ib_dma_map_single(id->device, e->sbuf, sizeof(*e->sbuf),
				    DMA_TO_DEVICE);
	e->rdma = ib_dma_map_single(id->device, e->rbuf, sizeof(*e->rbuf),
				    DMA_FROM_DEVICE);
	e->mr = ib_alloc_mr(e->pd, IB_MR_TYPE_MEM_REG, 2);
	if (IS_ERR(e->mr))
		return rp_fail(e, PTR_ERR(e->mr), "mr");
	if (ib_map_mr_sg(e->mr, &e->sg, 1, NULL, PAGE_SIZE) != 1)
		return rp_fail(e, -EIO, "map mr");
	ret = rp_post_recv(e);
	return ret ? rp_fail(e, ret, "post recv") : 0;
}

/* Once connected: register the MR (IB_WR_REG_MR) with a new key. */
static int rp_register(struct rp_ep *e)
{
	struct ib_reg_wr reg = {
		.wr = { .wr_id = WR_REG, .opcode = IB_WR_REG_MR },
		.mr = e->mr,
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
			  IB_ACCESS_REMOTE_WRITE,
	};
	int ret;

	ib_update_fast_reg_key(e->mr, ib_inc_rkey(e->mr->rkey) & 0xff);
	reg.key = e->mr->rkey;
	ret = rp_post(e, &reg.wr);
	if (ret)
		return rp_fail(e, ret, "reg mr");
	return rp_wait_wc(e, WR_REG);
}

/* Everything rp_setup() and the connection made, in reverse. */
static void rp_close(struct rp_ep *e)
{
	struct ib_device *dev = e->id ? e->id->device : NULL;

	if (e->id && e->id->qp)
		rdma_destroy_qp(e->id);
	if (!IS_ERR_OR_NULL(e->mr))
		ib_dereg_mr(e->mr);
	e->mr = NULL;
	if (e->sdma) {
		ib_dma_unmap_single(dev, e->sdma, sizeof(*e->sbuf),
				    DMA_TO_DEVICE);
		ib_dma_unmap_single(dev, e->rdma, sizeof(*e->rbuf),
				    DMA_FROM_DEVICE);
		e->sdma = 0;
	}
	if (e->sg_mapped)
		ib_dma_unmap_sg(dev, &e->sg, 1, DMA_BIDIRECTIONAL);
	e->sg_mapped = false;
	if (!IS_ERR_OR_NULL(e->cq))
		ib_free_cq(e->cq);
	e->cq = NULL;
	if (!IS_ERR_OR_NULL(e->pd))
		ib_dealloc_pd(e->pd);
	e->pd = NULL;
	kfree(e->buf);
	kfree(e->sbuf);
	kfree(e->rbuf);
	e->buf = NULL;
	e->sbuf = NULL;
	e->rbuf = NULL;
	if (e->id)
		rdma_destroy_id(e->id);
	if (e->child && e->child != e->id)
		rdma_destroy_id(e->child);
	e->id = NULL;
	e->child = NULL;
	if (e->lid)
		rdma_destroy_id(e->lid);
	e->lid = NULL;
	e->seen = 0;
	e->events = 0;
	e->status = 0;
}

/* SEND the info of the buffer at @off (or zeros: the go-ahead). */
static int rp_send_info(struct rp_ep *e, int off, bool go_ahead)
{
	struct ib_sge sge = { .addr = e->sdma, .length = sizeof(*e->sbuf),
			      .lkey = e->pd->local_dma_lkey };
	struct ib_send_wr wr = { .wr_id = WR_SEND, .opcode = IB_WR_SEND,
				 .sg_list = &sge, .num_sge = 1 };
	int ret;

	memset(e->sbuf, 0, sizeof(*e->sbuf));
	if (!go_ahead) {
		e->sbuf->buf = cpu_to_be64(e->mr->iova + off);
		e->sbuf->rkey = cpu_to_be32(e->mr->rkey);
		e->sbuf->size = cpu_to_be32(size);
	}
	ret = rp_post(e, &wr);
	if (ret)
		return rp_fail(e, ret, "post send");
	return rp_wait_wc(e, WR_SEND);
}

/* rping's source pattern for round @n. */
static void rp_pattern(u8 *p, int n, int *start)
{
	int i, c = *start;
	int cc = snprintf(p, size, "rdma-ping-%d: ", n);

	for (i = cc; i < size; i++) {
		p[i] = c;
		if (++c > 122)
			c = 65;
	}
	if (++*start > 122)
		*start = 65;
	p[size - 1] = 0;
}

/* The client's rounds: source info, go-ahead, sink info, go-ahead. */
static int rp_client_rounds(struct rp_ep *e)
{
	u8 *src = e->buf, *sink = e->buf + RW_OFF;
	int n, start = 65, ret;

	for (n = 0; n < count; n++) {
		rp_pattern(src, n, &start);
		memset(sink, 0, size);
		ret = rp_send_info(e, 0, false);
		if (!ret)
			ret = rp_wait_wc(e, WR_RECV);	/* it has read */
		if (!ret)
			ret = rp_post_recv(e);
		if (!ret)
			ret = rp_send_info(e, RW_OFF, false);
		if (!ret)
			ret = rp_wait_wc(e, WR_RECV);	/* it has written */
		if (!ret)
			ret = rp_post_recv(e);
		if (ret)
			return rp_fail(e, ret, "client round");
		if (memcmp(src, sink, size)) {
			snprintf(e->err, sizeof(e->err),
				 "%s: round %d: sink \"%.24s\" want \"%.24s\"",
				 e->name, n, sink, src);
			return -EIO;
		}
	}
	return 0;
}

/* Receive an info and repost the receive; its fields in @rkey etc. */
static int rp_recv_info(struct rp_ep *e, u64 *addr, u32 *rkey, u32 *len)
{
	int ret = rp_wait_wc(e, WR_RECV);

	if (ret)
		return ret;
	*addr = be64_to_cpu(e->rbuf->buf);
	*rkey = be32_to_cpu(e->rbuf->rkey);
	*len = be32_to_cpu(e->rbuf->size);
	if (*len > (u32)size)
		return rp_fail(e, -EMSGSIZE, "peer's length");
	return rp_post_recv(e);
}

/* The server's rounds: read the source, go-ahead, write the sink, go. */
static int rp_server_rounds(struct rp_ep *e)
{
	struct ib_sge sge = { .addr = e->mr->iova + RW_OFF,
			      .lkey = e->mr->lkey };
	struct ib_rdma_wr rw = { .wr.sg_list = &sge, .wr.num_sge = 1 };
	u8 *data = e->buf + RW_OFF;
	char head[32];
	u64 addr;
	u32 rkey, len;
	int n, ret;

	for (n = 0; n < count; n++) {
		ret = rp_recv_info(e, &addr, &rkey, &len);
		if (ret)
			return rp_fail(e, ret, "source info");
		memset(data, 0, size);
		sge.length = len;
		rw.wr.wr_id = WR_READ;
		rw.wr.opcode = IB_WR_RDMA_READ;
		rw.wr.send_flags = 0;
		rw.remote_addr = addr;
		rw.rkey = rkey;
		ret = rp_post(e, &rw.wr);
		if (!ret)
			ret = rp_wait_wc(e, WR_READ);
		if (ret)
			return rp_fail(e, ret, "rdma read");
		/* What a client sends in round n. */
		snprintf(head, sizeof(head), "rdma-ping-%d: ", n);
		if (memcmp(data, head, strlen(head))) {
			snprintf(e->err, sizeof(e->err),
				 "%s: round %d: read \"%.24s\"", e->name, n,
				 data);
			return -EIO;
		}
		ret = rp_send_info(e, 0, true);
		if (!ret)
			ret = rp_recv_info(e, &addr, &rkey, &len);
		if (ret)
			return rp_fail(e, ret, "sink info");
		sge.length = len;
		rw.wr.wr_id = WR_WRITE;
		rw.wr.opcode = IB_WR_RDMA_WRITE;
		rw.wr.send_flags = 0;
		rw.remote_addr = addr;
		rw.rkey = rkey;
		ret = rp_post(e, &rw.wr);
		if (!ret)
			ret = rp_send_info(e, 0, true);
		if (!ret)
			ret = rp_wait_wc(e, WR_WRITE);
		if (ret)
			return rp_fail(e, ret, "rdma write");
	}
	return 0;
}

/* rping's connection parameters: IRD and ORD 1 */
static void rp_conn_param(struct rdma_conn_param *cp)
{
	memset(cp, 0, sizeof(*cp));
	cp->responder_resources = 1;
	cp->initiator_depth = 1;
	cp->retry_count = 7;
}

/* Listen on @ip:@port, accept one connection within @tmo, set up. */
static int rp_listen_accept(struct rp_ep *e, const char *ip, int port,
			    unsigned long tmo)
{
	struct rdma_conn_param cp;
	struct sockaddr_storage sin;
	int ret;

	ret = rp_addr(e, &sin, ip, port);
	if (ret)
		return ret;
	e->lid = rdma_create_id(e->net, rp_cm_handler, e, RDMA_PS_TCP,
				IB_QPT_RC);
	if (IS_ERR(e->lid)) {
		ret = PTR_ERR(e->lid);
		e->lid = NULL;
		return rp_fail(e, ret, "listen id");
	}
	ret = rdma_bind_addr(e->lid, (struct sockaddr *)&sin);
	if (!ret)
		ret = rdma_listen(e->lid, 1);
	if (ret)
		return rp_fail(e, ret, "bind/listen");
	if (!rp_wait_ev(e, RDMA_CM_EVENT_CONNECT_REQUEST, tmo))
		return rp_fail(e, -ETIMEDOUT, "no connect request");
	ret = rp_setup(e, e->child);
	if (ret)
		return ret;
	rp_conn_param(&cp);
	rdma_lock_handler(e->id);
	ret = rdma_accept(e->id, &cp);
	rdma_unlock_handler(e->id);
	if (ret)
		return rp_fail(e, ret, "accept");
	if (!rp_wait_ev(e, RDMA_CM_EVENT_ESTABLISHED, EV_TMO))
		return rp_fail(e, -ETIMEDOUT, "not established");
	return rp_register(e);
}

/* One attempt to connect to @ip:@port; -EAGAIN: nobody listening yet. */
static int rp_connect_once(struct rp_ep *e, const char *ip, int port)
{
	struct rdma_conn_param cp;
	struct rdma_cm_id *id;
	struct sockaddr_storage sin;
	int ret;

	ret = rp_addr(e, &sin, ip, port);
	if (ret)
		return ret;
	id = rdma_create_id(e->net, rp_cm_handler, e, RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id))
		return rp_fail(e, PTR_ERR(id), "client id");
	e->id = id;
	ret = rdma_resolve_addr(id, NULL, (struct sockaddr *)&sin, 5000);
	if (ret || !rp_wait_ev(e, RDMA_CM_EVENT_ADDR_RESOLVED, EV_TMO))
		return rp_fail(e, ret, "address resolution");
	ret = rdma_resolve_route(id, 5000);
	if (ret || !rp_wait_ev(e, RDMA_CM_EVENT_ROUTE_RESOLVED, EV_TMO))
		return rp_fail(e, ret, "route resolution");
	ret = rp_setup(e, id);
	if (ret)
		return ret;
	rp_conn_param(&cp);
	ret = rdma_connect(id, &cp);
	if (ret)
		return rp_fail(e, ret, "connect");
	wait_event_timeout(e->wq, e->events &
			   (BIT(RDMA_CM_EVENT_ESTABLISHED) |
			    BIT(RDMA_CM_EVENT_REJECTED) |
			    BIT(RDMA_CM_EVENT_CONNECT_ERROR) |
			    BIT(RDMA_CM_EVENT_UNREACHABLE)), EV_TMO);
	if (test_bit(RDMA_CM_EVENT_ESTABLISHED, &e->events))
		return rp_register(e);
	if (e->events & (BIT(RDMA_CM_EVENT_REJECTED) |
			 BIT(RDMA_CM_EVENT_CONNECT_ERROR) |
			 BIT(RDMA_CM_EVENT_UNREACHABLE)))
		return -EAGAIN;
	return rp_fail(e, -ETIMEDOUT, "no connect reply");
}

/* Connect, retrying while the peer is not listening (yet). */
static int rp_connect(struct rp_ep *e, const char *ip, int port)
{
	unsigned long end = jiffies + msecs_to_jiffies(CONNECT_MS);
	int ret;

	for (;;) {
		ret = rp_connect_once(e, ip, port);
		if (ret != -EAGAIN)
			return ret;
		rp_close(e);
		if (time_after(jiffies, end))
			return rp_fail(e, -ETIMEDOUT, "nobody listening");
		msleep(200);
	}
}

/* The client's whole run: connect, rounds, graceful disconnect. */
static int rp_client(struct rp_ep *e, const char *ip, int port)
{
	int ret = rp_connect(e, ip, port);

	if (!ret)
		ret = rp_client_rounds(e);
	if (ret)
		return ret;
	ret = rdma_disconnect(e->id);
	if (ret)
		return rp_fail(e, ret, "disconnect");
	if (!rp_wait_ev(e, RDMA_CM_EVENT_DISCONNECTED, EV_TMO))
		return rp_fail(e, -ETIMEDOUT, "no DISCONNECTED");
	return 0;
}

/* The server's whole run after the accept: rounds, the peer's close. */
static int rp_server(struct rp_ep *e)
{
	int ret = rp_server_rounds(e);

	if (ret)
		return ret;
	if (!rp_wait_ev(e, RDMA_CM_EVENT_DISCONNECTED, EV_TMO))
		return rp_fail(e, -ETIMEDOUT, "no DISCONNECTED");
	return 0;
}

/* The QP of @e is ours: CRC as asked, no TERMINATE, data moved. */
static void rp_check_ours(struct kunit *test, struct rp_ep *e, bool crc)
{
	struct kiwarp_qp *qp;

	if (!e->id || !e->id->qp ||
	    e->id->device->ops.driver_id != RDMA_DRIVER_UNKNOWN) {
		KUNIT_FAIL(test, "%s: no kiwarp QP", e->name);
		return;
	}
	qp = to_kqp(e->id->qp);
	KUNIT_EXPECT_EQ_MSG(test, qp->crc, crc, "%s", e->name);
	KUNIT_EXPECT_EQ(test, qp->stats.terms_sent, 0U);
	KUNIT_EXPECT_EQ(test, qp->stats.terms_rcvd, 0U);
	KUNIT_EXPECT_GE(test, qp->stats.rx_fpdus, (u64)count * 2);
}

static struct rp_ep *rp_new(struct kunit *test, const char *name,
			    const char *netdev)
{
	struct rp_ep *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, e);
	e->name = name;
	init_waitqueue_head(&e->wq);
	e->net = test_find_net(netdev);
	KUNIT_ASSERT_NOT_NULL_MSG(test, e->net, "no namespace has %s", netdev);
	return e;
}

static void rp_free(struct rp_ep *e)
{
	rp_close(e);
	put_net(e->net);
}

/* rping -c on siwC connects to our kernel server on kw0. */
static void interop_rping_siw_client(struct kunit *test)
{
	struct rp_ep *e = rp_new(test, "kw0 server", KW0_NETDEV);
	int ret;

	ret = rp_listen_accept(e, KW0_ADDR, port_listen, ACCEPT_TMO);
	if (!ret) {
		KUNIT_EXPECT_STREQ(test, dev_name(&e->id->device->dev), "kw0");
		ret = rp_server(e);
	}
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "%s", e->err);
	if (!ret)
		rp_check_ours(test, e, READ_ONCE(kiwarp_mpa_crc));
	rp_free(e);
}

/* Our kernel client on kw0 against rping -s on siwC. */
static void interop_rping_siw_server(struct kunit *test)
{
	struct rp_ep *e = rp_new(test, "kw0 client", KW0_NETDEV);
	int ret;

	ret = rp_connect(e, SIWC_ADDR, port_server);
	if (!ret) {
		KUNIT_EXPECT_STREQ(test, dev_name(&e->id->device->dev), "kw0");
		ret = rp_client_rounds(e);
	}
	if (!ret)
		rp_check_ours(test, e, READ_ONCE(kiwarp_mpa_crc));
	if (!ret) {
		ret = rdma_disconnect(e->id);
		if (ret || !rp_wait_ev(e, RDMA_CM_EVENT_DISCONNECTED, EV_TMO))
			ret = rp_fail(e, ret, "disconnect");
	}
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "%s", e->err);
	rp_free(e);
}

/* One end of a kernel-to-kernel case: device, its netdev, address. */
struct rp_side {
	const char *dev;
	const char *netdev;
	const char *ip;
};

static const struct rp_side kw1_v4 = { "kw1", "veth4", "203.0.113.1" };
static const struct rp_side kw2_v4 = { "kw2", "veth5", "203.0.113.2" };
static const struct rp_side kw1_v6 = { "kw1", "veth4", "2001:db8:4::1" };
static const struct rp_side kw2_v6 = { "kw2", "veth5", "2001:db8:4::2" };
static const struct rp_side kw0_v6 = { "kw0", "veth2", "2001:db8:2::1" };
static const struct rp_side siwc_v6 = { "siwC", "veth3", "2001:db8:2::2" };

/* The server of a kernel-to-kernel case, on a kthread. */
struct rp_srv {
	struct rp_ep *e;
	const struct rp_side *side;
	int ret;
	char dev[IB_DEVICE_NAME_MAX];
	bool ours;		/* a kiwarp QP: then qp_crc and terms */
	bool qp_crc;
	u32 terms;
	struct completion done;
};

static int rp_srv_thread(void *arg)
{
	struct rp_srv *s = arg;
	struct rp_ep *e = s->e;
	struct kiwarp_qp *qp = NULL;

	s->ret = rp_listen_accept(e, s->side->ip, OURS_PORT, EV_TMO * 2);
	if (!s->ret) {
		strscpy(s->dev, dev_name(&e->id->device->dev),
			sizeof(s->dev));
		s->ours = e->id->device->ops.driver_id == RDMA_DRIVER_UNKNOWN;
		if (s->ours) {
			qp = to_kqp(e->id->qp);
			s->qp_crc = qp->crc;
		}
		s->ret = rp_server(e);
		if (qp)
			s->terms = qp->stats.terms_sent + qp->stats.terms_rcvd;
	}
	kthread_complete_and_exit(&s->done, 0);
}

/* A kernel server on @ss, a kernel client on @cs; kiwarp asks for @crc. */
static void pair_run(struct kunit *test, const struct rp_side *ss,
		     const struct rp_side *cs, bool crc)
{
	struct rp_ep *cli = rp_new(test, cs->dev, cs->netdev);
	struct rp_srv *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	bool old_crc = READ_ONCE(kiwarp_mpa_crc);
	struct task_struct *t;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->e = rp_new(test, ss->dev, ss->netdev);
	s->side = ss;
	init_completion(&s->done);
	WRITE_ONCE(kiwarp_mpa_crc, crc);
	t = kthread_run(rp_srv_thread, s, "kiwarp_rping_srv");
	if (IS_ERR(t)) {
		WRITE_ONCE(kiwarp_mpa_crc, old_crc);
		rp_free(cli);
		rp_free(s->e);
		KUNIT_FAIL(test, "kthread %ld", PTR_ERR(t));
		return;
	}
	/* rp_connect() retries until the server listens. */
	ret = rp_client(cli, ss->ip, OURS_PORT);
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "%s", cli->err);
	if (!ret) {
		KUNIT_EXPECT_STREQ(test, dev_name(&cli->id->device->dev),
				   cs->dev);
		if (cli->id->device->ops.driver_id == RDMA_DRIVER_UNKNOWN)
			rp_check_ours(test, cli, crc);
	} else if (cli->id) {
		rdma_disconnect(cli->id);	/* the server stops waiting */
	}
	/* The server ends by itself: its waits are bounded. */
	wait_for_completion(&s->done);
	WRITE_ONCE(kiwarp_mpa_crc, old_crc);
	KUNIT_EXPECT_EQ_MSG(test, s->ret, 0, "%s", s->e->err);
	if (!s->ret) {
		KUNIT_EXPECT_STREQ(test, s->dev, ss->dev);
		if (s->ours) {
			KUNIT_EXPECT_EQ(test, s->qp_crc, crc);
			KUNIT_EXPECT_EQ(test, s->terms, 0U);
		}
	}
	rp_free(cli);
	rp_free(s->e);
}

static void ours_ours_rping(struct kunit *test)
{
	pair_run(test, &kw2_v4, &kw1_v4, false);
}

static void ours_ours_rping_crc(struct kunit *test)
{
	pair_run(test, &kw2_v4, &kw1_v4, true);
}

/* IPv6 through iw_cm: kiwarp both ends, then against siw both ways. */
static void ours_ours_rping_ipv6(struct kunit *test)
{
	pair_run(test, &kw1_v6, &kw2_v6, false);
}

static void interop_ipv6_ours_siw_rping(struct kunit *test)
{
	pair_run(test, &kw0_v6, &siwc_v6, false);
}

static void interop_ipv6_siw_ours_rping(struct kunit *test)
{
	pair_run(test, &siwc_v6, &kw0_v6, true);
}

static int rp_suite_init(struct kunit_suite *suite)
{
	if (size < (int)sizeof(struct rping_info) || size > RW_OFF ||
	    count < 1)
		return -EINVAL;
	return 0;
}

static struct kunit_case kiwarp_rping_cases[] = {
	/* First, while rping -c is retrying. */
	KUNIT_CASE(interop_rping_siw_client),
	KUNIT_CASE(interop_rping_siw_server),
	KUNIT_CASE(ours_ours_rping),
	KUNIT_CASE(ours_ours_rping_crc),
	KUNIT_CASE(ours_ours_rping_ipv6),
	KUNIT_CASE(interop_ipv6_ours_siw_rping),
	KUNIT_CASE(interop_ipv6_siw_ours_rping),
	{}
};

static struct kunit_suite kiwarp_rping_suite = {
	.name = "kiwarp_rping",
	.suite_init = rp_suite_init,
	.test_cases = kiwarp_rping_cases,
};

kunit_test_suite(kiwarp_rping_suite);

MODULE_DESCRIPTION("KUnit: rping's protocol over kiwarp, against rping on siw");
MODULE_IMPORT_NS(KIWARP_INTERNAL);
MODULE_LICENSE("GPL");
