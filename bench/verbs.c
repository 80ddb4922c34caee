// SPDX-License-Identifier: GPL-2.0
/*
 * kdapl_bench.ko: the ping-pong of dat.c through raw kernel verbs
 * (rdma_cm, ib_post_send/ib_post_recv) on the same devices, for the
 * "DAT overhead" figure.
 *
 * Like dat.c, both ends live here and everything after the connection
 * runs from completion callbacks: a CQ per end polled in softirq
 * (IB_POLL_SOFTIRQ), on the vectors the command names (vec_a, vec_b;
 * default 0, both on kiwarp's CPU 0); the active end times a round
 * from its send to its receive completion and starts the next round from
 * the callback, the passive end echoes from its receive callback. Buffers are kmalloc'd
 * and DMA-mapped, used with the PD's local_dma_lkey.
 *
 * Lifetime: struct bench_vrun and its two ends live for one command; the
 * ids are destroyed (which waits for their handlers) and the CQs freed
 * (which waits for running callbacks) before it is freed.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/inet.h>
#include <linux/in.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "bench.h"

/**
 * struct bench_vend - one end: its cm_id, PD, CQ, QP and buffer
 * @run: the command
 * @id: its rdma_cm_id (for the passive end, the one of the request)
 * @pd: its protection domain
 * @cq: its CQ, for sends and receives, polled in softirq
 * @buf: @len bytes: send from the first half, receive into the second
 * @dma: @buf's DMA address
 * @len: size of @buf
 * @vec: its CQ's completion vector (modulo the device's)
 * @scqe: completion context of its sends
 * @rcqe: completion context of its receives
 * @sends: sends posted (every run->signal-th is signaled)
 */
struct bench_vend {
	struct bench_vrun *run;
	struct rdma_cm_id *id;
	struct ib_pd *pd;
	struct ib_cq *cq;
	u8 *buf;
	u64 dma;
	size_t len;
	u32 vec;
	struct ib_cqe scqe;
	struct ib_cqe rcqe;
	u32 sends;
};

/**
 * struct bench_vrun - state of one "verbs" command
 * @listen: the passive end's listening id
 * @a: the active end
 * @b: the passive end
 * @cm_event: last rdma_cm event of interest, per end (0 active, 1 listen)
 * @cm_status: its status
 * @req: the request's id, from the listener's CONNECT_REQUEST
 * @cm_done: completed on every event the command waits for
 * @size: message size
 * @rtt: ping-pong samples, ns (written by the active end's CQ
 *	callbacks only, one at a time, like @round and @t0)
 * @rounds: round trips per run
 * @round: round trips done in this run
 * @t0: start of the current round trip
 * @done: completed after the last round or on an error
 * @err: first error
 * @signal: every @signal-th send of each end signaled (1: all); both
 *	ends, so that a round trip's cost drops on both sides
 * @post_ns: time the active end spent in ib_post_recv() and
 *	ib_post_send() this run, ns (beside the DAT test's figure)
 */
struct bench_vrun {
	struct rdma_cm_id *listen;
	struct bench_vend a, b;
	int cm_event[2];
	int cm_status[2];
	struct rdma_cm_id *req;
	struct completion cm_done[2];
	u32 size;
	u64 *rtt;
	u32 rounds;
	u32 round;
	ktime_t t0;
	struct completion done;
	atomic_t err;
	u32 signal;
	u64 post_ns;
};

static void vrun_fail(struct bench_vrun *r, int err)
{
	if (atomic_cmpxchg(&r->err, 0, err) == 0)
		complete(&r->done);
}

static int v_post_recv(struct bench_vend *e)
{
	struct ib_sge sge = {
		.addr = e->dma + e->len / 2,
		.length = e->run->size,
		.lkey = e->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = { .wr_cqe = &e->rcqe, .sg_list = &sge,
				 .num_sge = 1 };

	return ib_post_recv(e->id->qp, &wr, NULL);
}

static int v_post_send(struct bench_vend *e, u32 len)
{
	struct ib_sge sge = {
		.addr = e->dma,
		.length = len,
		.lkey = e->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = { .wr_cqe = &e->scqe, .sg_list = &sge,
				 .num_sge = 1, .opcode = IB_WR_SEND };

	/* an unsignaled send's slot comes back with a later signaled one */
	if (++e->sends % e->run->signal == 0)
		wr.send_flags = IB_SEND_SIGNALED;
	return ib_post_send(e->id->qp, &wr, NULL);
}

static void v_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct bench_vend *e = container_of(wc->wr_cqe, struct bench_vend,
					    scqe);

	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR)
		vrun_fail(e->run, -EIO);
}

/* Active end: a round trip ended; start the next one. */
static void v_recv_done_a(struct ib_cq *cq, struct ib_wc *wc)
{
	struct bench_vend *e = container_of(wc->wr_cqe, struct bench_vend,
					    rcqe);
	struct bench_vrun *r = e->run;
	u64 p0;

	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			vrun_fail(r, -EIO);
		return;
	}
	r->rtt[r->round++] = ktime_to_ns(ktime_sub(ktime_get(), r->t0));
	if (r->round >= r->rounds) {
		complete(&r->done);
		return;
	}
	p0 = ktime_get_ns();
	if (v_post_recv(e)) {
		vrun_fail(r, -EIO);
		return;
	}
	r->post_ns += ktime_get_ns() - p0;
	r->t0 = ktime_get();
	if (v_post_send(e, r->size))
		vrun_fail(r, -EIO);
	r->post_ns += ktime_get_ns() - ktime_to_ns(r->t0);
}

/* Passive end: echo. */
static void v_recv_done_b(struct ib_cq *cq, struct ib_wc *wc)
{
	struct bench_vend *e = container_of(wc->wr_cqe, struct bench_vend,
					    rcqe);

	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			vrun_fail(e->run, -EIO);
		return;
	}
	memcpy(e->buf, e->buf + e->len / 2, wc->byte_len);
	if (v_post_send(e, wc->byte_len) || v_post_recv(e))
		vrun_fail(e->run, -EIO);
}

static int v_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct bench_vrun *r = id->context;
	int side = id == r->a.id ? 0 : 1;

	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		if (r->req)
			return 1;	/* one at a time: destroys @id */
		r->req = id;
		break;
	case RDMA_CM_EVENT_ADDR_RESOLVED:
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
	case RDMA_CM_EVENT_ESTABLISHED:
	case RDMA_CM_EVENT_DISCONNECTED:
		break;
	default:
		/* errors, rejects, device removal: fail the wait */
		break;
	}
	r->cm_event[side] = ev->event;
	r->cm_status[side] = ev->status;
	complete(&r->cm_done[side]);
	return 0;
}

static int v_wait(struct bench_vrun *r, int side, enum rdma_cm_event_type want)
{
	if (!wait_for_completion_timeout(&r->cm_done[side],
					 msecs_to_jiffies(BENCH_WAIT_MS)))
		return -ETIMEDOUT;
	if (r->cm_event[side] != want) {
		pr_warn("verbs: cm event %d (status %d), expected %d\n",
			r->cm_event[side], r->cm_status[side], want);
		return -ECONNREFUSED;
	}
	return 0;
}

/* PD, CQ, QP and buffer on @e->id; one receive posted. */
static int v_end_setup(struct bench_vend *e, struct bench_vrun *r,
		       void (*recv_done)(struct ib_cq *, struct ib_wc *))
{
	struct ib_qp_init_attr qa = {
		.cap = { .max_send_wr = 2 * BENCH_MAX_SIGNAL, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	struct ib_device *dev = e->id->device;
	int err;

	e->run = r;
	e->scqe.done = v_send_done;
	e->rcqe.done = recv_done;
	e->len = 2 * (size_t)r->size;
	e->buf = kzalloc(e->len, GFP_KERNEL);
	if (!e->buf)
		return -ENOMEM;
	e->pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(e->pd)) {
		err = PTR_ERR(e->pd);
		e->pd = NULL;
		return err;
	}
	e->cq = ib_alloc_cq(dev, e, 16, e->vec % dev->num_comp_vectors,
			    IB_POLL_SOFTIRQ);
	if (IS_ERR(e->cq)) {
		err = PTR_ERR(e->cq);
		e->cq = NULL;
		return err;
	}
	e->dma = ib_dma_map_single(dev, e->buf, e->len, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(dev, e->dma)) {
		e->dma = 0;
		return -ENOMEM;
	}
	qa.send_cq = e->cq;
	qa.recv_cq = e->cq;
	err = rdma_create_qp(e->id, e->pd, &qa);
	return err ?: v_post_recv(e);
}

static void v_end_free(struct bench_vend *e)
{
	if (e->id && e->id->qp)
		rdma_destroy_qp(e->id);	/* after draining, see caller */
	if (e->id)
		rdma_destroy_id(e->id);
	if (e->dma)
		ib_dma_unmap_single(e->cq->device, e->dma, e->len,
				    DMA_BIDIRECTIONAL);
	if (e->cq)
		ib_free_cq(e->cq);
	if (e->pd)
		ib_dealloc_pd(e->pd);
	kfree(e->buf);
	memset(e, 0, sizeof(*e));
}

static int v_connect(struct bench_vrun *r, const struct bench_cmd *cmd,
		     struct net *net)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(cmd->port),
	};
	struct rdma_conn_param cp = { .retry_count = 7,
				      .rnr_retry_count = 7 };
	int err;

	if (!in4_pton(cmd->addr_b, -1, (u8 *)&sin.sin_addr.s_addr, -1, NULL))
		return -EINVAL;
	r->listen = rdma_create_id(net, v_cm_handler, r, RDMA_PS_TCP,
				   IB_QPT_RC);
	if (IS_ERR(r->listen)) {
		err = PTR_ERR(r->listen);
		r->listen = NULL;
		return err;
	}
	err = rdma_bind_addr(r->listen, (struct sockaddr *)&sin);
	err = err ?: rdma_listen(r->listen, 4);
	if (err)
		return err;
	r->a.id = rdma_create_id(current->nsproxy->net_ns, v_cm_handler, r,
				 RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(r->a.id)) {
		err = PTR_ERR(r->a.id);
		r->a.id = NULL;
		return err;
	}
	err = rdma_resolve_addr(r->a.id, NULL, (struct sockaddr *)&sin,
				BENCH_WAIT_MS / 2);
	err = err ?: v_wait(r, 0, RDMA_CM_EVENT_ADDR_RESOLVED);
	err = err ?: rdma_resolve_route(r->a.id, BENCH_WAIT_MS / 2);
	err = err ?: v_wait(r, 0, RDMA_CM_EVENT_ROUTE_RESOLVED);
	err = err ?: v_end_setup(&r->a, r, v_recv_done_a);
	err = err ?: rdma_connect(r->a.id, &cp);
	err = err ?: v_wait(r, 1, RDMA_CM_EVENT_CONNECT_REQUEST);
	if (err)
		return err;
	r->b.id = r->req;
	err = v_end_setup(&r->b, r, v_recv_done_b);
	err = err ?: rdma_accept(r->b.id, &cp);
	err = err ?: v_wait(r, 0, RDMA_CM_EVENT_ESTABLISHED);
	return err ?: v_wait(r, 1, RDMA_CM_EVENT_ESTABLISHED);
}

static int v_rounds(struct bench_vrun *r)
{
	reinit_completion(&r->done);
	r->round = 0;
	r->post_ns = 0;
	r->t0 = ktime_get();
	if (v_post_send(&r->a, r->size))
		return -EIO;
	if (!wait_for_completion_timeout(&r->done, msecs_to_jiffies(60000)))
		return -ETIMEDOUT;
	/* the next round's receive was not posted after the last one */
	return atomic_read(&r->err) ?: v_post_recv(&r->a);
}

/**
 * bench_verbs_run() - the "verbs" command: test=lat only
 * @cmd: the parsed command; ia_a/ia_b are implied by the address
 *
 * The passive end listens in the namespace of "serve tcp" (kiwarp opens
 * its sockets in the netdev's namespace, so no task in it is needed), or,
 * when both ends are one device (ia_a = ia_b: rxe, whose devices serve
 * the initial namespace only), in the caller's.
 * Context: process context, bench_mutex held; sleeps for the run.
 * Return: 0 or a negative errno.
 */
int bench_verbs_run(const struct bench_cmd *cmd)
{
	struct net *net = *cmd->ia_a && !strcmp(cmd->ia_a, cmd->ia_b) ?
			  current->nsproxy->net_ns : bench_peer_net();
	struct bench_cost cost;
	struct bench_vrun *r;
	u32 rep;
	int err;

	if (strcmp(cmd->test, "lat"))
		return -EINVAL;
	if (!net)
		return -ENOENT;
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	r->rtt = kvcalloc(cmd->rounds, sizeof(u64), GFP_KERNEL);
	if (!r->rtt) {
		kfree(r);
		return -ENOMEM;
	}
	init_completion(&r->cm_done[0]);
	init_completion(&r->cm_done[1]);
	init_completion(&r->done);
	r->size = cmd->size;
	r->signal = cmd->signal ?: 1;
	r->rounds = cmd->rounds;
	r->a.vec = cmd->vec_a;
	r->b.vec = cmd->vec_b;
	err = v_connect(r, cmd, net);
	/* rep 0 is the warm-up, not reported */
	for (rep = 0; !err && rep <= cmd->reps; rep++) {
		r->rounds = rep ? cmd->rounds : bench_warm_rounds(cmd);
		bench_cost_start(&cost);
		err = v_rounds(r);
		if (err || !rep)
			continue;
		bench_cost_emit(cmd->tag, &cost, r->rounds, 0);
		bench_emit_lat(cmd->tag, r->rtt, r->rounds);
		bench_emit(cmd->tag, "post_ns", r->post_ns * 1000 / r->rounds);
	}
	if (r->a.id && r->b.id) {
		rdma_disconnect(r->a.id);
		v_wait(r, 0, RDMA_CM_EVENT_DISCONNECTED);
		v_wait(r, 1, RDMA_CM_EVENT_DISCONNECTED);
	}
	if (r->a.id && r->a.id->qp)
		ib_drain_qp(r->a.id->qp);
	if (r->b.id && r->b.id->qp)
		ib_drain_qp(r->b.id->qp);
	v_end_free(&r->a);
	if (!r->b.id && r->req)
		r->b.id = r->req;	/* got the request, failed before accept */
	v_end_free(&r->b);
	if (r->listen)
		rdma_destroy_id(r->listen);
	kvfree(r->rtt);
	kfree(r);
	return err;
}
