// SPDX-License-Identifier: GPL-2.0
/*
 * kdapltest: dapltest's transaction test over kDAPL, both roles
 * (Documentation/kdapltest.rst): one kernel thread per dapltest thread,
 * each with its endpoints. The client (client.c) and the server
 * (server.c) set a test up, start its threads and wait for them; the
 * helpers for events, buffers and posting live here too. Everything
 * waits with a bound.
 */

#include <linux/delay.h>
#include <linux/in.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <asm/byteorder.h>

#include "kdt.h"
#include "../../kdapl/evd.h"

/*
 * The per-endpoint message buffers of the transaction test, as
 * dapltest's: the memory info, the sync before the iterations and the
 * final sync after them (dapl 2.1.10, see kdt_final_sync()).
 */
enum {
	RMI_SEND, RMI_RECV, SYNC_SEND, SYNC_RECV, FINAL_SYNC_SEND,
	FINAL_SYNC_RECV, RMI_BUFS
};

/* ------------------------------------------------------------------ */
/* Errors                                                              */
/* ------------------------------------------------------------------ */

void kdt_ctx_init(struct kdt_ctx *ctx, bool is_server, struct kdt_file *f)
{
	ctx->is_server = is_server;
	ctx->file = f;
	INIT_LIST_HEAD(&ctx->node);
	spin_lock_init(&ctx->lock);
	init_waitqueue_head(&ctx->sync_wq);
	init_completion(&ctx->done);
}

void kdt_fail(struct kdt_ctx *ctx, int err, const char *fmt, ...)
{
	char msg[KDT_MESSAGE_MAX];
	bool first = false;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);

	spin_lock(&ctx->lock);
	if (!ctx->failed) {
		ctx->failed = true;
		ctx->status = err;
		strscpy(ctx->message, msg, sizeof(ctx->message));
		first = true;
	}
	spin_unlock(&ctx->lock);
	/* the first error is the one that counts; the others follow it */
	if (first) {
		pr_err("kdapltest: %s%s\n", ctx->is_server ? "server: " : "",
		       msg);
		if (ctx->file)
			kdt_file_error(ctx->file, msg);
	} else if (ctx->debug) {
		pr_info("kdapltest: then: %s\n", msg);
	}
	wake_up_all(&ctx->sync_wq);
}

bool kdt_failed(struct kdt_ctx *ctx)
{
	return READ_ONCE(ctx->failed);
}

const char *kdt_dat_str(DAT_RETURN ret)
{
	const char *major = "?", *minor = "";

	dat_strerror(ret, &major, &minor);
	return major;
}

/* ------------------------------------------------------------------ */
/* Event dispatchers                                                   */
/* ------------------------------------------------------------------ */

static void kdt_evd_upcall(DAT_PVOID data, const DAT_EVENT *ev,
			   DAT_BOOLEAN more)
{
	struct kdt_evd *e = data;

	atomic_inc(&e->seq);
	wake_up(&e->wq);
}

/* An EVD of @ia whose upcall wakes kdt_wait() on @e. */
DAT_RETURN kdt_evd_kcreate(DAT_IA_HANDLE ia, DAT_COUNT qlen,
			   DAT_EVD_FLAGS flags, struct kdt_evd *e)
{
	DAT_UPCALL_OBJECT up = { .instance_data = e,
				 .upcall_func = kdt_evd_upcall };

	init_waitqueue_head(&e->wq);
	atomic_set(&e->seq, 0);
	return dat_evd_kcreate(ia, qlen, DAT_UPCALL_NORIFY, &up, flags, &e->h);
}

DAT_RETURN kdt_evd_create(struct kdt_ctx *ctx, DAT_COUNT qlen,
			  DAT_EVD_FLAGS flags, struct kdt_evd *e)
{
	return kdt_evd_kcreate(ctx->ia, qlen, flags, e);
}

void kdt_evd_free(struct kdt_evd *e)
{
	if (e->h)
		dat_evd_free(e->h);
	e->h = DAT_HANDLE_NULL;
}

/*
 * A sleep has lasted 100 ms with no upcall since @seq was read. An event
 * queued now, and still queued 100 ms later with no upcall in between,
 * waited for its notification all along: a lost wakeup. An event that
 * arrived just now has its upcall within that time; one that arrives
 * later was not there at the first look. Returns whether one was lost.
 */
static bool kdt_check_lost(struct kdt_ctx *ctx, struct kdt_evd *e, int seq)
{
	char state[160];

	if (kdapl_evd_pending(e->h, state, sizeof(state)) <= 0 ||
	    atomic_read(&e->seq) != seq)
		return false;
	if (wait_event_timeout(e->wq, atomic_read(&e->seq) != seq,
			       HZ / 10) ||
	    kdapl_evd_pending(e->h, state, sizeof(state)) <= 0)
		return false;
	atomic_inc(&ctx->lost_wakeups);
	pr_warn("kdapltest: an event waited 100 ms for its upcall: %s\n",
		state);
	return true;
}

/*
 * Take the next event of @e, sleeping (or spinning with @poll) for at
 * most @ms. The NORIFY upcall bumps @seq: read it before the dequeue so
 * that an event arriving in between is not slept through.
 *
 * Every sleep ends by the upcall (or the deadline, or the test's
 * failure): events are only taken after an upcall said they came. A
 * sleep that lasts over 100 ms is counted (ctx->long_sleeps: an event
 * that simply takes that long) and checks, every 100 ms, that no event
 * waits for an upcall that does not come (kdt_check_lost()); one that
 * does fails the test (kdapltest.rst).
 */
int kdt_wait(struct kdt_ctx *ctx, struct kdt_evd *e, DAT_EVENT *ev,
	     unsigned int ms, bool poll)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);
	DAT_RETURN ret;
	bool counted;
	int seq;

	for (;;) {
		seq = atomic_read(&e->seq);
		ret = dat_evd_dequeue(e->h, ev);
		if (ret == DAT_SUCCESS)
			return 0;
		if (DAT_GET_TYPE(ret) != DAT_QUEUE_EMPTY)
			return -EIO;
		if (kdt_failed(ctx))
			return -ECANCELED;
		if (time_after(jiffies, end))
			return -ETIMEDOUT;
		if (poll) {
			cond_resched();
			continue;
		}
		atomic_inc(&ctx->sleeps);
		counted = false;
		while (!wait_event_timeout(e->wq,
					   atomic_read(&e->seq) != seq ||
					   kdt_failed(ctx), HZ / 10)) {
			if (!counted)
				atomic_inc(&ctx->long_sleeps);
			counted = true;
			if (kdt_check_lost(ctx, e, seq)) {
				kdt_fail(ctx, -EPROTO,
					 "an event came without its upcall");
				return -EPROTO;
			}
			if (time_after(jiffies, end))
				return -ETIMEDOUT;
		}
	}
}

/* Wait for a DTO completion and check it as dapltest does. */
int kdt_dto_wait(struct kdt_ctx *ctx, struct kdt_evd *e, u64 cookie, u64 len,
		 bool poll, const char *what)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d;
	DAT_EVENT ev;
	int err;

	err = kdt_wait(ctx, e, &ev, KDT_DTO_TIMEOUT_MS, poll);
	if (err) {
		if (err != -ECANCELED)
			kdt_fail(ctx, err, "%s: no completion (%d)", what, err);
		return err;
	}
	if (ev.event_number != DAT_DTO_COMPLETION_EVENT) {
		kdt_fail(ctx, -EPROTO, "%s: event %#x instead of a completion",
			 what, ev.event_number);
		return -EPROTO;
	}
	d = &ev.event_data.dto_completion_event_data;
	if (d->status != DAT_DTO_SUCCESS) {
		kdt_fail(ctx, -EIO, "%s: completion status %d", what,
			 d->status);
		return -EIO;
	}
	if (d->transfered_length != len) {
		kdt_fail(ctx, -EPROTO, "%s: %llu bytes, expected %llu", what,
			 (unsigned long long)d->transfered_length,
			 (unsigned long long)len);
		return -EPROTO;
	}
	if (d->user_cookie.as_64 != cookie) {
		kdt_fail(ctx, -EPROTO, "%s: cookie %#llx, expected %#llx", what,
			 (unsigned long long)d->user_cookie.as_64,
			 (unsigned long long)cookie);
		return -EPROTO;
	}
	return 0;
}

/* Wait for the outcome of a connect or accept. */
int kdt_conn_wait(struct kdt_ctx *ctx, struct kdt_evd *e, const char *what)
{
	DAT_EVENT ev;
	int err;

	err = kdt_wait(ctx, e, &ev, KDT_CONN_TIMEOUT_MS, false);
	if (err) {
		if (err != -ECANCELED)
			kdt_fail(ctx, err, "%s: no connection event (%d)", what,
				 err);
		return err;
	}
	if (ev.event_number != DAT_CONNECTION_EVENT_ESTABLISHED) {
		kdt_fail(ctx, -ECONNREFUSED, "%s: connection failed (event %#x)",
			 what, ev.event_number);
		return -ECONNREFUSED;
	}
	return 0;
}

static bool kdt_disc_wait(DAT_EP_HANDLE ep, struct kdt_evd *conn)
{
	unsigned long end = jiffies + msecs_to_jiffies(KDT_DISC_TIMEOUT_MS);
	DAT_EP_STATE state;
	DAT_EVENT ev;

	while (time_before(jiffies, end)) {
		if (dat_evd_dequeue(conn->h, &ev) == DAT_SUCCESS) {
			if (ev.event_number == DAT_CONNECTION_EVENT_DISCONNECTED)
				return true;
			continue;
		}
		if (dat_ep_get_status(ep, &state, NULL, NULL) != DAT_SUCCESS ||
		    state == DAT_EP_STATE_DISCONNECTED)
			return true;
		usleep_range(5000, 10000);
	}
	return false;
}

/**
 * kdt_wait_peer_close() - after a good test, let the peer close first
 * @ctx: the test
 * @ep: the endpoint that sent the test's last message
 * @conn: its connection EVD
 *
 * The side that sent a test's last message (the client: the transaction
 * test's final sync, the performance test's sync) waits, for
 * KDT_DISC_TIMEOUT_MS at most, for the peer to disconnect before it
 * does: the peer closes once it has the message. Closing right after
 * the send completed was seen to cost OFA's server that message - its
 * receive flushed (0 bytes), though our send had completed: siw can
 * act on the close before it has read the data that came before it.
 */
void kdt_wait_peer_close(struct kdt_ctx *ctx, DAT_EP_HANDLE ep,
			 struct kdt_evd *conn)
{
	if (ep && !kdt_failed(ctx))
		kdt_disc_wait(ep, conn);
}

/*
 * Disconnect and wait (a while) for the event: gracefully when the test
 * went well, abruptly after a failure or if graceful takes too long.
 * dapltest asks for an abrupt disconnect, but uDAPL's (openib_cma) is
 * rdma_disconnect(), i.e. what kDAPL's graceful one does: the peer sees
 * an orderly close once everything sent has been sent. kDAPL's abrupt
 * one moves the QP to ERROR at once, flushing what is outstanding.
 */
void kdt_disconnect(struct kdt_ctx *ctx, DAT_EP_HANDLE ep,
		    struct kdt_evd *conn)
{
	DAT_EP_STATE state = DAT_EP_STATE_DISCONNECTED;

	if (!ep)
		return;
	dat_ep_get_status(ep, &state, NULL, NULL);
	if (state == DAT_EP_STATE_UNCONNECTED ||
	    state == DAT_EP_STATE_DISCONNECTED)
		return;
	if (!kdt_failed(ctx) &&
	    dat_ep_disconnect(ep, DAT_CLOSE_GRACEFUL_FLAG) == DAT_SUCCESS &&
	    kdt_disc_wait(ep, conn))
		return;
	if (dat_ep_disconnect(ep, DAT_CLOSE_ABRUPT_FLAG) == DAT_SUCCESS)
		kdt_disc_wait(ep, conn);
}

/* ------------------------------------------------------------------ */
/* Buffer pools                                                        */
/* ------------------------------------------------------------------ */

int kdt_pool_alloc(struct kdt_ctx *ctx, DAT_PZ_HANDLE pz, struct kdt_pool *p,
		   u32 seg_size, u32 num)
{
	DAT_REGION_DESCRIPTION r;
	DAT_VLEN reg_len;
	DAT_RETURN ret;
	size_t size;

	p->seg = kdt_seg_round(seg_size);
	p->num = num;
	size = (size_t)p->seg * num;
	p->buf = kvzalloc(size, GFP_KERNEL);
	if (!p->buf) {
		kdt_fail(ctx, -ENOMEM, "no memory for a %zu byte buffer pool",
			 size);
		return -ENOMEM;
	}
	r.for_va = p->buf;
	ret = dat_lmr_kcreate(ctx->ia, DAT_MEM_TYPE_VIRTUAL, r, size, pz,
			      DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA,
			      DAT_MEM_OPTIMIZE_DONT_CARE, &p->lmr, &p->lctx,
			      &p->rctx, &reg_len, &p->addr);
	if (ret != DAT_SUCCESS) {
		kvfree(p->buf);
		p->buf = NULL;
		kdt_fail(ctx, -EIO, "dat_lmr_kcreate of %zu bytes: %s (%#x)",
			 size, kdt_dat_str(ret), ret);
		return -EIO;
	}
	return 0;
}

void kdt_pool_free(struct kdt_pool *p)
{
	if (p->lmr)
		dat_lmr_free(p->lmr);
	kvfree(p->buf);
	memset(p, 0, sizeof(*p));
}

u8 *kdt_seg(struct kdt_pool *p, u32 i)
{
	return p->buf + (size_t)i * p->seg;
}

static DAT_LMR_TRIPLET kdt_triplet(struct kdt_pool *p, u32 i, u32 len)
{
	DAT_LMR_TRIPLET t = {
		.lmr_context = p->lctx,
		.virtual_address = p->addr + (u64)i * p->seg,
		.segment_length = len,
	};
	return t;
}

/* Post one segment of @p (send or receive) with @cookie. */
int kdt_post1(struct kdt_ctx *ctx, DAT_EP_HANDLE ep, bool send,
	      struct kdt_pool *p, u32 i, u32 len, u64 cookie)
{
	DAT_LMR_TRIPLET t = kdt_triplet(p, i, len);
	DAT_DTO_COOKIE ck = { .as_64 = cookie };
	DAT_RETURN ret;

	if (send)
		ret = dat_ep_post_send(ep, 1, &t, ck,
				       DAT_COMPLETION_DEFAULT_FLAG);
	else
		ret = dat_ep_post_recv(ep, 1, &t, ck,
				       DAT_COMPLETION_DEFAULT_FLAG);
	if (ret != DAT_SUCCESS) {
		kdt_fail(ctx, -EIO, "dat_ep_post_%s: %s (%#x)",
			 send ? "send" : "recv", kdt_dat_str(ret), ret);
		return -EIO;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Transaction test: one thread of dapltest                            */
/* ------------------------------------------------------------------ */
/* Is op @op initiated by this side? */
static bool kdt_ours(const struct kdt_ctx *ctx, const struct kdt_op *op)
{
	return !op->server_initiated == !ctx->is_server;
}

static u64 kdt_cookie(unsigned int ep, unsigned int op)
{
	return (u64)ep << 32 | op;
}

/* The cookie of message buffer @buf of endpoint @ep: apart from ops' */
static u64 kdt_buf_cookie(unsigned int ep, unsigned int buf)
{
	return kdt_cookie(ep, KDT_MAX_OPS + buf);
}

/*
 * Endpoint @n: EVDs, the EP, the memory info buffers with their two
 * receives posted and, on the server, the single-use PSP (or the RSP)
 * on port base_port + n, so that the client may connect as soon as it
 * has Server_Info.
 */
static int kdt_ep_setup(struct kdt_thread *t, unsigned int n)
{
	struct kdt_ctx *ctx = t->ctx;
	const struct kdt_transaction_cmd *cmd = &ctx->cmd;
	struct kdt_ep *e = &t->eps[n];
	DAT_COUNT qlen = 2 * cmd->num_ops + 8;
	DAT_EP_ATTR attr = { .service_type = DAT_SERVICE_TYPE_RC };
	u32 iov = 1, i, port = t->base_port + n, reads = 0;
	DAT_RETURN ret;

	for (i = 0; i < cmd->num_ops; i++) {
		iov = max(iov, cmd->op[i].num_segs);
		if (cmd->op[i].transfer_type == KDT_RDMA_READ)
			reads++;
	}
	/* as dapltest's: the ops, the memory info, the two syncs */
	attr.max_recv_dtos = cmd->num_ops + 3;
	attr.max_request_dtos = cmd->num_ops + 3;
	attr.max_recv_iov = iov;
	attr.max_request_iov = iov;
	/* RDMA Read depths are asked for (0 means none): one per read op */
	attr.max_rdma_read_in = min(reads, KDT_MAX_RDMA_READS);
	attr.max_rdma_read_out = min(reads, KDT_MAX_RDMA_READS);

	e->pool = kcalloc(cmd->num_ops, sizeof(*e->pool), GFP_KERNEL);
	e->remote = kcalloc(cmd->num_ops, sizeof(*e->remote), GFP_KERNEL);
	if (!e->pool || !e->remote) {
		kdt_fail(ctx, -ENOMEM, "no memory for endpoint state");
		return -ENOMEM;
	}
	ret = kdt_evd_create(ctx, qlen, DAT_EVD_DTO_FLAG, &e->recv);
	if (ret == DAT_SUCCESS)
		ret = kdt_evd_create(ctx, qlen, DAT_EVD_DTO_FLAG, &e->reqt);
	if (ret == DAT_SUCCESS)
		ret = kdt_evd_create(ctx, 8, DAT_EVD_CONNECTION_FLAG, &e->conn);
	if (ret == DAT_SUCCESS && ctx->is_server)
		ret = kdt_evd_create(ctx, 8, DAT_EVD_CR_FLAG, &e->creq);
	if (ret != DAT_SUCCESS) {
		kdt_fail(ctx, -EIO, "thread %u: dat_evd_kcreate: %s (%#x)",
			 t->index, kdt_dat_str(ret), ret);
		return -EIO;
	}
	ret = dat_ep_create(ctx->ia, t->pz, e->recv.h, e->reqt.h, e->conn.h,
			    &attr, &e->ep);
	if (ret != DAT_SUCCESS) {
		kdt_fail(ctx, -EIO, "thread %u: dat_ep_create: %s (%#x)",
			 t->index, kdt_dat_str(ret), ret);
		return -EIO;
	}
	if (kdt_pool_alloc(ctx, t->pz, &e->rmi, KDT_RMI_MSG_SIZE, RMI_BUFS))
		return -ENOMEM;
	if (kdt_post1(ctx, e->ep, false, &e->rmi, RMI_RECV, KDT_RMI_MSG_SIZE,
		      kdt_buf_cookie(n, RMI_RECV)) ||
	    kdt_post1(ctx, e->ep, false, &e->rmi, SYNC_RECV,
		      KDT_SYNC_MSG_SIZE, kdt_buf_cookie(n, SYNC_RECV)))
		return -EIO;
	if (!ctx->is_server)
		return 0;
	if (cmd->use_rsp)
		ret = dat_rsp_create(ctx->ia, port, e->ep, e->creq.h, &e->rsp);
	else
		ret = dat_psp_create(ctx->ia, port, e->creq.h,
				     DAT_PSP_CONSUMER_FLAG, &e->psp);
	if (ret != DAT_SUCCESS) {
		kdt_fail(ctx, -EADDRINUSE, "thread %u: dat_%csp_create port %u: %s (%#x)",
			 t->index, cmd->use_rsp ? 'r' : 'p', port,
			 kdt_dat_str(ret), ret);
		return -EADDRINUSE;
	}
	return 0;
}

/* Client: connect endpoint @n. */
static int kdt_ep_connect(struct kdt_thread *t, unsigned int n)
{
	struct kdt_ctx *ctx = t->ctx;
	struct kdt_ep *e = &t->eps[n];
	u32 port = t->base_port + n;
	DAT_RETURN ret;

	ret = dat_ep_connect(e->ep, (struct sockaddr *)&ctx->server, port,
			     KDT_CONNECT_USEC, KDT_PRIVATE_DATA_LEN,
			     (DAT_PVOID)KDT_PRIVATE_DATA, ctx->cmd.qos,
			     DAT_CONNECT_DEFAULT_FLAG);
	if (ret != DAT_SUCCESS) {
		kdt_fail(ctx, -EIO, "thread %u: dat_ep_connect port %u: %s (%#x)",
			 t->index, port, kdt_dat_str(ret), ret);
		return -EIO;
	}
	return kdt_conn_wait(ctx, &e->conn, "transaction endpoint");
}

/*
 * Server: wait for the request on endpoint @n's service point, check
 * the private data (dapltest only complains), accept, and drop the
 * single-use service point.
 */
static int kdt_ep_accept(struct kdt_thread *t, unsigned int n)
{
	struct kdt_ctx *ctx = t->ctx;
	struct kdt_ep *e = &t->eps[n];
	DAT_CR_PARAM crp = { };
	DAT_CR_HANDLE cr;
	DAT_RETURN ret;
	DAT_EVENT ev;
	int err;

	err = kdt_wait(ctx, &e->creq, &ev, KDT_CONN_TIMEOUT_MS, false);
	if (err) {
		if (err != -ECANCELED)
			kdt_fail(ctx, err,
				 "thread %u: no connection request on port %u (%d)",
				 t->index, t->base_port + n, err);
		return err;
	}
	if (ev.event_number != DAT_CONNECTION_REQUEST_EVENT) {
		kdt_fail(ctx, -EPROTO, "thread %u: event %#x instead of a connection request",
			 t->index, ev.event_number);
		return -EPROTO;
	}
	cr = ev.event_data.cr_arrival_event_data.cr_handle;
	/* the client has Server_Info: the server may close the control */
	atomic_inc(&ctx->requests);
	wake_up_all(&ctx->sync_wq);
	ret = dat_cr_query(cr, DAT_CR_FIELD_PRIVATE_DATA_SIZE |
			   DAT_CR_FIELD_PRIVATE_DATA, &crp);
	if (ret != DAT_SUCCESS || crp.private_data_size < KDT_PRIVATE_DATA_LEN ||
	    memcmp(crp.private_data, KDT_PRIVATE_DATA, KDT_PRIVATE_DATA_LEN))
		pr_warn("kdapltest: server: thread %u: private data mismatch\n",
			t->index);
	ret = dat_cr_accept(cr, e->rsp ? DAT_HANDLE_NULL : e->ep, 0, NULL);
	if (ret != DAT_SUCCESS) {
		kdt_fail(ctx, -EIO, "thread %u: dat_cr_accept: %s (%#x)",
			 t->index, kdt_dat_str(ret), ret);
		return -EIO;
	}
	err = kdt_conn_wait(ctx, &e->conn, "transaction endpoint");
	if (e->psp)
		dat_psp_free(e->psp);
	if (e->rsp)
		dat_rsp_free(e->rsp);
	e->psp = DAT_HANDLE_NULL;
	e->rsp = DAT_HANDLE_NULL;
	return err;
}

/*
 * Endpoint @n is connected: per-op buffer pools, then the remote memory
 * info, the targets of the peer's RDMA advertised. The client sends
 * first (MPA: the active side speaks first), the server answers.
 */
static int kdt_ep_exchange(struct kdt_thread *t, unsigned int n)
{
	struct kdt_ctx *ctx = t->ctx;
	const struct kdt_transaction_cmd *cmd = &ctx->cmd;
	struct kdt_ep *e = &t->eps[n];
	struct kdt_rmi *rmi;
	u32 i;
	int err = 0;

	rmi = kcalloc(KDT_MAX_OPS, sizeof(*rmi), GFP_KERNEL);
	if (!rmi) {
		kdt_fail(ctx, -ENOMEM, "no memory for the memory info");
		return -ENOMEM;
	}
	for (i = 0; i < cmd->num_ops; i++) {
		const struct kdt_op *op = &cmd->op[i];

		err = kdt_pool_alloc(ctx, t->pz, &e->pool[i], op->seg_size,
				     op->num_segs);
		if (err)
			goto out;
		if (op->transfer_type != KDT_SEND_RECV && !kdt_ours(ctx, op)) {
			rmi[i].rmr_context = e->pool[i].rctx;
			rmi[i].address = e->pool[i].addr;
		}
	}
	kdt_rmi_encode(rmi, cmd->num_ops, kdt_seg(&e->rmi, RMI_SEND),
		       e->rmi.seg);

	if (ctx->is_server) {
		err = kdt_dto_wait(ctx, &e->recv, kdt_buf_cookie(n, RMI_RECV),
				   KDT_RMI_MSG_SIZE, false, "memory info recv");
		if (err)
			goto out;
	}
	err = kdt_post1(ctx, e->ep, true, &e->rmi, RMI_SEND, KDT_RMI_MSG_SIZE,
			kdt_buf_cookie(n, RMI_SEND));
	err = err ?: kdt_dto_wait(ctx, &e->reqt, kdt_buf_cookie(n, RMI_SEND),
				  KDT_RMI_MSG_SIZE, false, "memory info send");
	if (!err && !ctx->is_server)
		err = kdt_dto_wait(ctx, &e->recv, kdt_buf_cookie(n, RMI_RECV),
				   KDT_RMI_MSG_SIZE, false, "memory info recv");
	if (err)
		goto out;
	kdt_rmi_decode(rmi, cmd->num_ops, kdt_seg(&e->rmi, RMI_RECV),
		       KDT_RMI_MSG_SIZE);
	for (i = 0; i < cmd->num_ops; i++)
		if (cmd->op[i].transfer_type != KDT_SEND_RECV &&
		    kdt_ours(ctx, &cmd->op[i]))
			e->remote[i] = rmi[i];
out:
	kfree(rmi);
	return err;
}

static void kdt_fill(struct kdt_thread *t, u32 iteration)
{
	const struct kdt_ctx *ctx = t->ctx;
	const struct kdt_transaction_cmd *cmd = &ctx->cmd;
	unsigned int n, i, s;

	if (iteration >= cmd->num_iterations)
		return;
	for (n = 0; n < cmd->eps_per_thread; n++) {
		for (i = 0; i + 3 < cmd->num_ops; i++) {
			const struct kdt_op *op = &cmd->op[i];
			bool ours = kdt_ours(ctx, op);
			struct kdt_pool *p = &t->eps[n].pool[i];

			if (op->transfer_type == KDT_RDMA_READ ? ours : !ours)
				continue;
			for (s = 0; s < op->num_segs; s++)
				memset(kdt_seg(p, s), (iteration + 1) & 0xff,
				       op->seg_size);
		}
	}
}

static int kdt_check(struct kdt_thread *t, u32 iteration)
{
	struct kdt_ctx *ctx = t->ctx;
	const struct kdt_transaction_cmd *cmd = &ctx->cmd;
	u8 want = (iteration + 1) & 0xff;
	unsigned int n, i, s, b;

	for (n = 0; n < cmd->eps_per_thread; n++) {
		for (i = 0; i + 3 < cmd->num_ops; i++) {
			const struct kdt_op *op = &cmd->op[i];
			bool ours = kdt_ours(ctx, op);
			struct kdt_pool *p = &t->eps[n].pool[i];

			if (op->transfer_type == KDT_RDMA_READ ? !ours : ours)
				continue;
			for (s = 0; s < op->num_segs; s++) {
				const u8 *buf = kdt_seg(p, s);

				for (b = 0; b < op->seg_size; b++) {
					if (buf[b] == want)
						continue;
					kdt_fail(ctx, -EILSEQ,
						 "validation error: thread %u ep %u op %u (%s) iteration %u seg %u byte %u: expected %#x got %#x",
						 t->index, n, i,
						 kdt_transfer_type_name(op->transfer_type),
						 iteration, s, b, want, buf[b]);
					return -EILSEQ;
				}
			}
		}
	}
	return 0;
}

static int kdt_post_op(struct kdt_thread *t, unsigned int n, unsigned int i,
		       bool send)
{
	struct kdt_ctx *ctx = t->ctx;
	const struct kdt_op *op = &ctx->cmd.op[i];
	struct kdt_ep *e = &t->eps[n];
	DAT_LMR_TRIPLET iov[KDT_MAX_SEGS];
	DAT_DTO_COOKIE ck = { .as_64 = kdt_cookie(n, i) };
	DAT_RMR_TRIPLET r;
	DAT_RETURN ret;
	const char *what;
	u32 s;

	if (op->num_segs > ARRAY_SIZE(iov)) {
		kdt_fail(ctx, -EINVAL, "op %u: %u segments, kdapl takes %u", i,
			 op->num_segs, KDT_MAX_SEGS);
		return -EINVAL;
	}
	for (s = 0; s < op->num_segs; s++)
		iov[s] = kdt_triplet(&e->pool[i], s, op->seg_size);
	r.rmr_context = e->remote[i].rmr_context;
	r.virtual_address = e->remote[i].address;
	r.segment_length = (u64)op->seg_size * op->num_segs;

	switch (op->transfer_type) {
	case KDT_RDMA_READ:
		what = "dat_ep_post_rdma_read";
		ret = dat_ep_post_rdma_read(e->ep, op->num_segs, iov, ck, &r,
					    DAT_COMPLETION_DEFAULT_FLAG);
		break;
	case KDT_RDMA_WRITE:
		what = "dat_ep_post_rdma_write";
		ret = dat_ep_post_rdma_write(e->ep, op->num_segs, iov, ck, &r,
					     DAT_COMPLETION_DEFAULT_FLAG);
		break;
	default:
		what = send ? "dat_ep_post_send" : "dat_ep_post_recv";
		if (send)
			ret = dat_ep_post_send(e->ep, op->num_segs, iov, ck,
					       DAT_COMPLETION_DEFAULT_FLAG);
		else
			ret = dat_ep_post_recv(e->ep, op->num_segs, iov, ck,
					       DAT_COMPLETION_DEFAULT_FLAG);
		break;
	}
	if (ret != DAT_SUCCESS) {
		kdt_fail(ctx, -EIO, "thread %u ep %u op %u: %s: %s (%#x)",
			 t->index, n, i, what, kdt_dat_str(ret), ret);
		return -EIO;
	}
	return 0;
}

/* Send sync buffer @buf (64 bytes) on every endpoint, reap the sends. */
static int kdt_sync_send(struct kdt_thread *t, unsigned int buf,
			 const char *what)
{
	struct kdt_ctx *ctx = t->ctx;
	unsigned int n, eps = ctx->cmd.eps_per_thread;
	int err;

	for (n = 0; n < eps; n++) {
		err = kdt_post1(ctx, t->eps[n].ep, true, &t->eps[n].rmi, buf,
				KDT_SYNC_MSG_SIZE, kdt_buf_cookie(n, buf));
		if (err)
			return err;
	}
	for (n = 0; n < eps; n++) {
		err = kdt_dto_wait(ctx, &t->eps[n].reqt, kdt_buf_cookie(n, buf),
				   KDT_SYNC_MSG_SIZE, false, what);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Reap the peer's sync into buffer @buf on every endpoint; with
 * @count, each one counts down the test's @sync_left.
 */
static int kdt_sync_recv(struct kdt_thread *t, unsigned int buf, bool count,
			 const char *what)
{
	struct kdt_ctx *ctx = t->ctx;
	unsigned int n, eps = ctx->cmd.eps_per_thread;
	int err;

	for (n = 0; n < eps; n++) {
		err = kdt_dto_wait(ctx, &t->eps[n].recv, kdt_buf_cookie(n, buf),
				   KDT_SYNC_MSG_SIZE, false, what);
		if (err)
			return err;
		if (count && atomic_dec_and_test(&ctx->sync_left))
			wake_up_all(&ctx->sync_wq);
	}
	return 0;
}

/*
 * Sync before the iterations. Server: its sync on each endpoint, then
 * the client's on each. Client: the server's syncs on all its
 * endpoints, then every client thread got all of its syncs, then ours.
 */
static int kdt_sync(struct kdt_thread *t)
{
	struct kdt_ctx *ctx = t->ctx;
	long left;
	int err;

	if (ctx->is_server)
		return kdt_sync_send(t, SYNC_SEND, "sync send") ?:
		       kdt_sync_recv(t, SYNC_RECV, false, "sync recv");
	err = kdt_sync_recv(t, SYNC_RECV, true, "sync recv");
	if (err)
		return err;
	left = wait_event_timeout(ctx->sync_wq,
				  !atomic_read(&ctx->sync_left) ||
				  kdt_failed(ctx),
				  msecs_to_jiffies(KDT_SYNC_TIMEOUT_MS));
	if (kdt_failed(ctx))
		return -ECANCELED;
	if (!left) {
		kdt_fail(ctx, -ETIMEDOUT,
			 "%d server test connections did not report ready",
			 atomic_read(&ctx->sync_left));
		return -ETIMEDOUT;
	}
	return kdt_sync_send(t, SYNC_SEND, "sync send");
}

/*
 * The final sync after the iterations, as dapl 2.1.10's dapltest has
 * it: each side posted a receive for it at the start of its last
 * iteration (kdt_post_final_recv()); the server sends its final sync on
 * each endpoint and then waits for the client's, the client waits for
 * the server's and then sends its own. Neither side tears down before
 * the other is done, and the peer's last SEND always finds a receive:
 * without this, OFA's last SEND (its final sync) hit an endpoint with
 * no receive posted, or one already closed (siw: TERMINATE, the send
 * completing in error, the QP fatal), and OFA's client waited for our
 * final sync forever.
 */
static int kdt_final_sync(struct kdt_thread *t)
{
	if (t->ctx->is_server)
		return kdt_sync_send(t, FINAL_SYNC_SEND, "final sync send") ?:
		       kdt_sync_recv(t, FINAL_SYNC_RECV, false,
				     "final sync recv");
	return kdt_sync_recv(t, FINAL_SYNC_RECV, false, "final sync recv") ?:
	       kdt_sync_send(t, FINAL_SYNC_SEND, "final sync send");
}

static int kdt_post_final_recv(struct kdt_thread *t)
{
	struct kdt_ctx *ctx = t->ctx;
	unsigned int n;
	int err;

	for (n = 0; n < ctx->cmd.eps_per_thread; n++) {
		err = kdt_post1(ctx, t->eps[n].ep, false, &t->eps[n].rmi,
				FINAL_SYNC_RECV, KDT_SYNC_MSG_SIZE,
				kdt_buf_cookie(n, FINAL_SYNC_RECV));
		if (err)
			return err;
	}
	return 0;
}

/* The receive side of SR op @i on every endpoint (-f: and the send). */
static int kdt_reap_recv(struct kdt_thread *t, unsigned int i, bool repost)
{
	struct kdt_ctx *ctx = t->ctx;
	const struct kdt_transaction_cmd *cmd = &ctx->cmd;
	const struct kdt_op *op = &cmd->op[i];
	const struct kdt_op *prev = i ? &cmd->op[i - 1] : NULL;
	bool poll = cmd->poll;
	unsigned int n;
	int err;

	for (n = 0; n < cmd->eps_per_thread; n++) {
		err = kdt_dto_wait(ctx, &t->eps[n].recv, kdt_cookie(n, i),
				   (u64)op->seg_size * op->num_segs, poll,
				   "recv");
		if (err)
			return err;
		if (op->reap_send_on_recv && prev) {
			err = kdt_dto_wait(ctx, &t->eps[n].reqt,
					   kdt_cookie(n, i - 1),
					   (u64)prev->seg_size * prev->num_segs,
					   poll, "send reaped on recv");
			if (err)
				return err;
		}
		if (repost) {
			err = kdt_post_op(t, n, i, false);
			if (err)
				return err;
		}
	}
	return 0;
}

/* Op @i of one iteration on every endpoint of the thread. */
static int kdt_do_op(struct kdt_thread *t, unsigned int i, bool repost)
{
	struct kdt_ctx *ctx = t->ctx;
	const struct kdt_transaction_cmd *cmd = &ctx->cmd;
	const struct kdt_op *op = &cmd->op[i];
	unsigned int eps = cmd->eps_per_thread, n;
	u64 len = (u64)op->seg_size * op->num_segs;
	bool ours = kdt_ours(ctx, op);
	const char *what;
	int err;

	if (ctx->file)
		atomic64_add(eps, &ctx->file->wqes);
	switch (op->transfer_type) {
	case KDT_RDMA_READ:
		t->bytes_rr += len * eps;
		what = "RDMA read";
		break;
	case KDT_RDMA_WRITE:
		t->bytes_rw += len * eps;
		what = "RDMA write";
		break;
	default:
		if (ours)
			t->bytes_send += len * eps;
		else
			t->bytes_recv += len * eps;
		what = "send";
		break;
	}
	if (!ours)
		return op->transfer_type == KDT_SEND_RECV ?
		       kdt_reap_recv(t, i, repost) : 0;
	for (n = 0; n < eps; n++) {
		err = kdt_post_op(t, n, i, true);
		if (err)
			return err;
	}
	/* -f: the send is reaped with the server's next send */
	if (op->reap_send_on_recv)
		return 0;
	for (n = 0; n < eps; n++) {
		err = kdt_dto_wait(ctx, &t->eps[n].reqt, kdt_cookie(n, i), len,
				   cmd->poll, what);
		if (err)
			return err;
	}
	return 0;
}

static int kdt_transaction_run(struct kdt_thread *t)
{
	struct kdt_ctx *ctx = t->ctx;
	const struct kdt_transaction_cmd *cmd = &ctx->cmd;
	unsigned int eps = cmd->eps_per_thread, n, i;
	unsigned int check_op = cmd->num_ops - (ctx->is_server ? 2 : 3);
	u64 start;
	u32 it;
	int err;

	/* receives for the peer's sends, before the sync */
	for (i = 0; i < cmd->num_ops; i++) {
		if (cmd->op[i].transfer_type != KDT_SEND_RECV ||
		    kdt_ours(ctx, &cmd->op[i]))
			continue;
		for (n = 0; n < eps; n++) {
			err = kdt_post_op(t, n, i, false);
			if (err)
				return err;
		}
	}
	if (cmd->validate)
		kdt_fill(t, 0);
	err = kdt_sync(t);
	if (err)
		return err;

	start = ktime_get_ns();
	for (it = 0; it < cmd->num_iterations; it++) {
		/* the final sync's receive, before the peer can send it */
		if (it + 1 == cmd->num_iterations) {
			err = kdt_post_final_recv(t);
			if (err)
				return err;
		}
		for (i = 0; i < cmd->num_ops; i++) {
			err = kdt_do_op(t, i, it + 1 != cmd->num_iterations);
			if (err)
				return err;
			/*
			 * the client validates after the first barrier (the
			 * server's send), the server after the second
			 */
			if (cmd->validate && i == check_op) {
				err = kdt_check(t, it);
				if (err)
					return err;
				kdt_fill(t, it + 1);
			}
		}
	}
	err = kdt_final_sync(t);
	/* dapltest's time includes the final sync */
	t->time_us = div_u64(ktime_get_ns() - start, NSEC_PER_USEC);
	return err;
}

/* ------------------------------------------------------------------ */
/* Threads                                                             */
/* ------------------------------------------------------------------ */

/**
 * kdt_tt_alloc() - the threads of a transaction test
 * @ctx: the test, with its command decoded and checked
 *
 * Thread i owns endpoints on ports first_port_number + i * eps + n.
 * Return: 0 or -ENOMEM (the test failed); kdt_tt_free() frees.
 */
int kdt_tt_alloc(struct kdt_ctx *ctx)
{
	const struct kdt_transaction_cmd *cmd = &ctx->cmd;
	unsigned int i;

	ctx->nthreads = cmd->num_threads;
	ctx->threads = kcalloc(ctx->nthreads, sizeof(*ctx->threads),
			       GFP_KERNEL);
	if (!ctx->threads)
		goto nomem;
	for (i = 0; i < ctx->nthreads; i++) {
		struct kdt_thread *t = &ctx->threads[i];

		t->ctx = ctx;
		t->index = i;
		t->base_port = ctx->sinfo.first_port_number +
			       i * cmd->eps_per_thread;
		t->eps = kcalloc(cmd->eps_per_thread, sizeof(*t->eps),
				 GFP_KERNEL);
		if (!t->eps)
			goto nomem;
	}
	atomic_set(&ctx->sync_left, ctx->nthreads * cmd->eps_per_thread);
	return 0;
nomem:
	kdt_fail(ctx, -ENOMEM, "no memory for %u threads", cmd->num_threads);
	return -ENOMEM;
}

/**
 * kdt_tt_setup_thread() - a thread's PZ and endpoints
 * @t: the thread
 *
 * On the server this creates the service points: it runs in the
 * server's KDT_IOC_RUN, in the calling task, whose network namespace
 * siw opens its listening sockets in.
 * Return: 0 or a negative errno (the test failed).
 */
int kdt_tt_setup_thread(struct kdt_thread *t)
{
	struct kdt_ctx *ctx = t->ctx;
	unsigned int n;
	DAT_RETURN ret;
	int err;

	ret = dat_pz_create(ctx->ia, &t->pz);
	if (ret != DAT_SUCCESS) {
		t->pz = DAT_HANDLE_NULL;
		kdt_fail(ctx, -EIO, "thread %u: dat_pz_create: %s", t->index,
			 kdt_dat_str(ret));
		return -EIO;
	}
	for (n = 0; n < ctx->cmd.eps_per_thread; n++) {
		err = kdt_ep_setup(t, n);
		if (err)
			return err;
	}
	return 0;
}

static void kdt_ep_teardown(struct kdt_thread *t, struct kdt_ep *e)
{
	struct kdt_ctx *ctx = t->ctx;
	unsigned int i;

	kdt_disconnect(ctx, e->ep, &e->conn);
	if (e->psp)
		dat_psp_free(e->psp);
	if (e->rsp)
		dat_rsp_free(e->rsp);
	if (e->ep)
		dat_ep_free(e->ep);
	if (e->pool)
		for (i = 0; i < ctx->cmd.num_ops; i++)
			kdt_pool_free(&e->pool[i]);
	kdt_pool_free(&e->rmi);
	kdt_evd_free(&e->creq);
	kdt_evd_free(&e->conn);
	kdt_evd_free(&e->reqt);
	kdt_evd_free(&e->recv);
	kfree(e->pool);
	kfree(e->remote);
	memset(e, 0, sizeof(*e));
}

static void kdt_thread_teardown(struct kdt_thread *t)
{
	unsigned int n;

	if (!t->eps)
		return;
	/* the client sent the final syncs: the server closes first */
	for (n = 0; !t->ctx->is_server && n < t->ctx->cmd.eps_per_thread; n++)
		kdt_wait_peer_close(t->ctx, t->eps[n].ep, &t->eps[n].conn);
	for (n = 0; n < t->ctx->cmd.eps_per_thread; n++)
		kdt_ep_teardown(t, &t->eps[n]);
	if (t->pz)
		dat_pz_free(t->pz);
	t->pz = DAT_HANDLE_NULL;
}

struct kdt_thread_arg {
	struct kdt_thread *t;
	bool setup;		/* the client sets its thread up in it */
};

static int kdt_thread_fn(void *arg)
{
	struct kdt_thread *t = ((struct kdt_thread_arg *)arg)->t;
	bool setup = ((struct kdt_thread_arg *)arg)->setup;
	struct kdt_ctx *ctx = t->ctx;
	unsigned int eps = ctx->cmd.eps_per_thread, n;
	int err = 0;

	kfree(arg);
	if (setup)
		err = kdt_tt_setup_thread(t);
	for (n = 0; !err && n < eps; n++) {
		err = ctx->is_server ? kdt_ep_accept(t, n) :
				       kdt_ep_connect(t, n);
		err = err ?: kdt_ep_exchange(t, n);
	}
	if (!err)
		err = kdt_transaction_run(t);
	if (err && !kdt_failed(ctx))
		kdt_fail(ctx, err, "thread %u failed (%d)", t->index, err);
	kdt_thread_teardown(t);

	if (!err) {
		spin_lock(&ctx->lock);
		ctx->wqes += (u64)eps * ctx->cmd.num_ops *
			     ctx->cmd.num_iterations;
		ctx->time_us = max(ctx->time_us, t->time_us);
		ctx->bytes_send += t->bytes_send;
		ctx->bytes_recv += t->bytes_recv;
		ctx->bytes_rr += t->bytes_rr;
		ctx->bytes_rw += t->bytes_rw;
		spin_unlock(&ctx->lock);
	}
	/* the last thread out completes the test; ctx may go right after */
	if (atomic_dec_and_test(&ctx->threads_left))
		complete(&ctx->done);
	return 0;
}

/**
 * kdt_tt_start() - start the threads of a transaction test
 * @ctx: the test, from kdt_tt_alloc()
 * @setup_in_thread: each thread sets itself up first (the client);
 *	else kdt_tt_setup_thread() was called for every thread already
 *
 * @ctx->done completes once every started thread has finished, also
 * when starting fails part way (the started ones see the test failed).
 * Return: 0 or a negative errno.
 */
int kdt_tt_start(struct kdt_ctx *ctx, bool setup_in_thread)
{
	struct kdt_thread_arg *arg;
	struct task_struct *task;
	unsigned int i;
	int err = 0;

	/* one reference for the starter, dropped below */
	atomic_set(&ctx->threads_left, 1);
	if (ctx->file)
		atomic64_add((u64)ctx->nthreads * ctx->cmd.eps_per_thread *
			     ctx->cmd.num_ops * ctx->cmd.num_iterations,
			     &ctx->file->wqes_total);
	for (i = 0; i < ctx->nthreads; i++) {
		arg = kmalloc(sizeof(*arg), GFP_KERNEL);
		if (!arg) {
			err = -ENOMEM;
			kdt_fail(ctx, err, "no memory to start thread %u", i);
			break;
		}
		arg->t = &ctx->threads[i];
		arg->setup = setup_in_thread;
		atomic_inc(&ctx->threads_left);
		task = kthread_run(kdt_thread_fn, arg, "kdapltest/%c%u",
				   ctx->is_server ? 's' : 'c', i);
		if (IS_ERR(task)) {
			err = PTR_ERR(task);
			kfree(arg);
			atomic_dec(&ctx->threads_left);
			kdt_fail(ctx, err, "cannot start thread %u", i);
			break;
		}
		ctx->started++;
	}
	if (atomic_dec_and_test(&ctx->threads_left))
		complete(&ctx->done);
	return err;
}

/**
 * kdt_tt_wait() - wait for the threads of a test
 * @ctx: the test
 *
 * A signal to the caller fails the test (its threads see it and end)
 * and is then waited out.
 * Return: 0, or -EINTR if a signal ended the test.
 */
int kdt_tt_wait(struct kdt_ctx *ctx)
{
	if (!wait_for_completion_interruptible(&ctx->done))
		return 0;
	kdt_fail(ctx, -EINTR, "interrupted");
	wait_for_completion(&ctx->done);
	return -EINTR;
}

/**
 * kdt_tt_free() - free what is left of a test's threads
 * @ctx: the test; its threads have finished, or were never started
 */
void kdt_tt_free(struct kdt_ctx *ctx)
{
	unsigned int i;

	if (!ctx->threads)
		return;
	for (i = ctx->started; i < ctx->nthreads; i++)
		kdt_thread_teardown(&ctx->threads[i]);
	for (i = 0; i < ctx->nthreads; i++)
		kfree(ctx->threads[i].eps);
	kfree(ctx->threads);
	ctx->threads = NULL;
}
