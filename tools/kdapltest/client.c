// SPDX-License-Identifier: GPL-2.0
/*
 * kdapltest: the dapltest client over kDAPL (Documentation/kdapltest.rst).
 *
 * KDT_IOC_RUN lands in kdt_client_run(): it opens the IA, runs the
 * control exchange with the server (Client_Info, command, Server_Info)
 * and, for a transaction test, one kernel thread per dapltest thread,
 * each with its endpoints, until every thread is done. Everything waits
 * with a bound; nothing outlives the call.
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

#define KDT_CONN_TIMEOUT_MS	30000
#define KDT_DTO_TIMEOUT_MS	30000
#define KDT_SYNC_TIMEOUT_MS	10000
#define KDT_DISC_TIMEOUT_MS	5000
#define KDT_CONNECT_USEC	(30ULL * 1000 * 1000)
#define KDT_ASYNC_QLEN		16
/* segments per DTO: kdapl's KDAPL_MAX_IOV */
#define KDT_MAX_SEGS		8

/*
 * dapltest's is_little_endian fields: a big-endian peer byte-swaps the
 * RDMA contexts and addresses it sends us, so this must be right (x86
 * has no CONFIG_CPU_LITTLE_ENDIAN; asm/byteorder.h says it).
 */
#ifdef __LITTLE_ENDIAN
#define KDT_LITTLE_ENDIAN	1
#else
#define KDT_LITTLE_ENDIAN	0
#endif

/* Buffers of the control connection: server info, client info, command */
enum { CTRL_RECV, CTRL_CLIENT_INFO, CTRL_CMD, CTRL_BUFS };

/* The four per-endpoint buffers of the transaction test */
enum { RMI_SEND, RMI_RECV, SYNC_SEND, SYNC_RECV, RMI_BUFS };

/* ------------------------------------------------------------------ */
/* Errors                                                              */
/* ------------------------------------------------------------------ */

void kdt_fail(struct kdt_ctx *ctx, int err, const char *fmt, ...)
{
	struct kdt_result *res = &ctx->run->result;
	char msg[KDT_MESSAGE_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pr_err("kdapltest: %s\n", msg);

	spin_lock(&ctx->lock);
	if (!ctx->failed) {
		ctx->failed = true;
		res->status = err;
		strscpy(res->message, msg, sizeof(res->message));
	}
	spin_unlock(&ctx->lock);
	wake_up_all(&ctx->sync_wq);
}

static bool kdt_failed(struct kdt_ctx *ctx)
{
	return READ_ONCE(ctx->failed);
}

static const char *kdt_dat_str(DAT_RETURN ret)
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

static DAT_RETURN kdt_evd_create(struct kdt_ctx *ctx, DAT_COUNT qlen,
				 DAT_EVD_FLAGS flags, struct kdt_evd *e)
{
	DAT_UPCALL_OBJECT up = { .instance_data = e,
				 .upcall_func = kdt_evd_upcall };

	init_waitqueue_head(&e->wq);
	atomic_set(&e->seq, 0);
	return dat_evd_kcreate(ctx->ia, qlen, DAT_UPCALL_NORIFY, &up, flags,
			       &e->h);
}

static void kdt_evd_free(struct kdt_evd *e)
{
	if (e->h)
		dat_evd_free(e->h);
	e->h = DAT_HANDLE_NULL;
}

/*
 * Take the next event of @e, sleeping (or spinning with @poll) for at
 * most @ms. The NORIFY upcall bumps @seq: read it before the dequeue so
 * that an event arriving in between is not slept through.
 */
static int kdt_wait(struct kdt_ctx *ctx, struct kdt_evd *e, DAT_EVENT *ev,
		    unsigned int ms, bool poll)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);
	DAT_RETURN ret;
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
		if (!wait_event_timeout(e->wq, atomic_read(&e->seq) != seq ||
					kdt_failed(ctx), HZ / 10))
			atomic_inc(&ctx->sleep_timeouts);
	}
}

/* Wait for a DTO completion and check it as dapltest does. */
static int kdt_dto_wait(struct kdt_ctx *ctx, struct kdt_evd *e,
			u64 cookie, u64 len, bool poll, const char *what)
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
static int kdt_conn_wait(struct kdt_ctx *ctx, struct kdt_evd *e,
			 const char *what)
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

/* Disconnect abruptly and wait (briefly) for the event. */
static void kdt_disconnect(struct kdt_ctx *ctx, DAT_EP_HANDLE ep,
			   struct kdt_evd *conn)
{
	DAT_EP_STATE state = DAT_EP_STATE_DISCONNECTED;
	unsigned long end;
	DAT_EVENT ev;

	if (!ep)
		return;
	dat_ep_get_status(ep, &state, NULL, NULL);
	if (state == DAT_EP_STATE_UNCONNECTED ||
	    state == DAT_EP_STATE_DISCONNECTED)
		return;
	if (dat_ep_disconnect(ep, DAT_CLOSE_ABRUPT_FLAG) != DAT_SUCCESS)
		return;
	end = jiffies + msecs_to_jiffies(KDT_DISC_TIMEOUT_MS);
	while (time_before(jiffies, end)) {
		if (dat_evd_dequeue(conn->h, &ev) == DAT_SUCCESS) {
			if (ev.event_number == DAT_CONNECTION_EVENT_DISCONNECTED)
				return;
			continue;
		}
		dat_ep_get_status(ep, &state, NULL, NULL);
		if (state == DAT_EP_STATE_DISCONNECTED)
			return;
		usleep_range(5000, 10000);
	}
}

/* ------------------------------------------------------------------ */
/* Buffer pools                                                        */
/* ------------------------------------------------------------------ */

static int kdt_pool_alloc(struct kdt_ctx *ctx, DAT_PZ_HANDLE pz,
			  struct kdt_pool *p, u32 seg_size, u32 num)
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

static void kdt_pool_free(struct kdt_pool *p)
{
	if (p->lmr)
		dat_lmr_free(p->lmr);
	kvfree(p->buf);
	memset(p, 0, sizeof(*p));
}

static u8 *kdt_seg(struct kdt_pool *p, u32 i)
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
static int kdt_post1(struct kdt_ctx *ctx, DAT_EP_HANDLE ep, bool send,
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

struct kdt_ep {
	struct kdt_evd recv, reqt, conn;
	DAT_EP_HANDLE ep;
	struct kdt_pool rmi;
	struct kdt_pool *pool;		/* one per op */
	struct kdt_rmi *remote;		/* per op, for the ops we initiate */
};

struct kdt_thread {
	struct kdt_ctx *ctx;
	unsigned int index;
	u32 base_port;
	DAT_PZ_HANDLE pz;
	struct kdt_ep *eps;
	struct completion done;
	u64 time_us, bytes_send, bytes_recv, bytes_rr, bytes_rw;
};

/* Is op @op initiated by this side (the client)? */
static bool kdt_ours(const struct kdt_op *op)
{
	return !op->server_initiated;
}

static u64 kdt_cookie(unsigned int ep, unsigned int op)
{
	return (u64)ep << 32 | op;
}

static int kdt_ep_setup(struct kdt_thread *t, unsigned int n)
{
	struct kdt_ctx *ctx = t->ctx;
	const struct kdt_transaction_cmd *cmd = &ctx->cmd;
	struct kdt_ep *e = &t->eps[n];
	DAT_COUNT qlen = 2 * cmd->num_ops + 8;
	DAT_EP_ATTR attr = { .service_type = DAT_SERVICE_TYPE_RC };
	u32 iov = 1, i;
	DAT_RETURN ret;

	for (i = 0; i < cmd->num_ops; i++)
		iov = max(iov, cmd->op[i].num_segs);
	attr.max_recv_dtos = cmd->num_ops + 2;
	attr.max_request_dtos = cmd->num_ops + 2;
	attr.max_recv_iov = iov;
	attr.max_request_iov = iov;

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
		      kdt_cookie(n, RMI_RECV)) ||
	    kdt_post1(ctx, e->ep, false, &e->rmi, SYNC_RECV,
		      KDT_SYNC_MSG_SIZE, kdt_cookie(n, SYNC_RECV)))
		return -EIO;
	return 0;
}

/* Connect endpoint @n and exchange the remote memory info. */
static int kdt_ep_connect(struct kdt_thread *t, unsigned int n)
{
	struct kdt_ctx *ctx = t->ctx;
	const struct kdt_transaction_cmd *cmd = &ctx->cmd;
	struct kdt_ep *e = &t->eps[n];
	struct kdt_rmi *rmi;
	u32 port = t->base_port + n;
	DAT_RETURN ret;
	u32 i;
	int err;

	ret = dat_ep_connect(e->ep, (struct sockaddr *)&ctx->server, port,
			     KDT_CONNECT_USEC, KDT_PRIVATE_DATA_LEN,
			     (DAT_PVOID)KDT_PRIVATE_DATA, cmd->qos,
			     DAT_CONNECT_DEFAULT_FLAG);
	if (ret != DAT_SUCCESS) {
		kdt_fail(ctx, -EIO, "thread %u: dat_ep_connect port %u: %s (%#x)",
			 t->index, port, kdt_dat_str(ret), ret);
		return -EIO;
	}
	err = kdt_conn_wait(ctx, &e->conn, "transaction endpoint");
	if (err)
		return err;

	/* per op buffers; the targets of the peer's RDMA are advertised */
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
		if (op->transfer_type != KDT_SEND_RECV && !kdt_ours(op)) {
			rmi[i].rmr_context = e->pool[i].rctx;
			rmi[i].address = e->pool[i].addr;
		}
	}
	kdt_rmi_encode(rmi, cmd->num_ops, kdt_seg(&e->rmi, RMI_SEND),
		       e->rmi.seg);

	/* the client sends first (MPA: the active side speaks first) */
	err = kdt_post1(ctx, e->ep, true, &e->rmi, RMI_SEND, KDT_RMI_MSG_SIZE,
			kdt_cookie(n, RMI_SEND));
	err = err ?: kdt_dto_wait(ctx, &e->reqt, kdt_cookie(n, RMI_SEND),
				  KDT_RMI_MSG_SIZE, false, "memory info send");
	err = err ?: kdt_dto_wait(ctx, &e->recv, kdt_cookie(n, RMI_RECV),
				  KDT_RMI_MSG_SIZE, false, "memory info recv");
	if (err)
		goto out;
	kdt_rmi_decode(rmi, cmd->num_ops, kdt_seg(&e->rmi, RMI_RECV),
		       KDT_RMI_MSG_SIZE);
	for (i = 0; i < cmd->num_ops; i++)
		if (cmd->op[i].transfer_type != KDT_SEND_RECV &&
		    kdt_ours(&cmd->op[i]))
			e->remote[i] = rmi[i];
out:
	kfree(rmi);
	return err;
}

static void kdt_fill(struct kdt_thread *t, u32 iteration)
{
	const struct kdt_transaction_cmd *cmd = &t->ctx->cmd;
	unsigned int n, i, s;

	if (iteration >= cmd->num_iterations)
		return;
	for (n = 0; n < cmd->eps_per_thread; n++) {
		for (i = 0; i + 3 < cmd->num_ops; i++) {
			const struct kdt_op *op = &cmd->op[i];
			bool ours = kdt_ours(op);
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
	const struct kdt_transaction_cmd *cmd = &t->ctx->cmd;
	u8 want = (iteration + 1) & 0xff;
	unsigned int n, i, s, b;

	for (n = 0; n < cmd->eps_per_thread; n++) {
		for (i = 0; i + 3 < cmd->num_ops; i++) {
			const struct kdt_op *op = &cmd->op[i];
			bool ours = kdt_ours(op);
			struct kdt_pool *p = &t->eps[n].pool[i];

			if (op->transfer_type == KDT_RDMA_READ ? !ours : ours)
				continue;
			for (s = 0; s < op->num_segs; s++) {
				const u8 *buf = kdt_seg(p, s);

				for (b = 0; b < op->seg_size; b++) {
					if (buf[b] == want)
						continue;
					kdt_fail(t->ctx, -EILSEQ,
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

/* Sync with the server: its syncs on all our EPs, then all threads, ours */
static int kdt_sync(struct kdt_thread *t)
{
	struct kdt_ctx *ctx = t->ctx;
	unsigned int n, eps = ctx->cmd.eps_per_thread;
	long left;
	int err;

	for (n = 0; n < eps; n++) {
		err = kdt_dto_wait(ctx, &t->eps[n].recv,
				   kdt_cookie(n, SYNC_RECV), KDT_SYNC_MSG_SIZE,
				   false, "sync recv");
		if (err)
			return err;
		if (atomic_dec_and_test(&ctx->sync_left))
			wake_up_all(&ctx->sync_wq);
	}
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
	for (n = 0; n < eps; n++) {
		err = kdt_post1(ctx, t->eps[n].ep, true, &t->eps[n].rmi,
				SYNC_SEND, KDT_SYNC_MSG_SIZE,
				kdt_cookie(n, SYNC_SEND));
		if (err)
			return err;
	}
	for (n = 0; n < eps; n++) {
		err = kdt_dto_wait(ctx, &t->eps[n].reqt,
				   kdt_cookie(n, SYNC_SEND), KDT_SYNC_MSG_SIZE,
				   false, "sync send");
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
	bool ours = kdt_ours(op);
	const char *what;
	int err;

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
	u64 start;
	u32 it;
	int err;

	/* receives for the server's sends, before the sync */
	for (i = 0; i < cmd->num_ops; i++) {
		if (cmd->op[i].transfer_type != KDT_SEND_RECV ||
		    kdt_ours(&cmd->op[i]))
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
		for (i = 0; i < cmd->num_ops; i++) {
			err = kdt_do_op(t, i, it + 1 != cmd->num_iterations);
			if (err)
				return err;
			/* the client validates after the first barrier */
			if (cmd->validate && i == cmd->num_ops - 3) {
				err = kdt_check(t, it);
				if (err)
					return err;
				kdt_fill(t, it + 1);
			}
		}
	}
	t->time_us = div_u64(ktime_get_ns() - start, NSEC_PER_USEC);
	return 0;
}

static int kdt_thread_fn(void *arg)
{
	struct kdt_thread *t = arg;
	struct kdt_ctx *ctx = t->ctx;
	unsigned int eps = ctx->cmd.eps_per_thread, n;
	DAT_RETURN ret;
	int err = 0;

	ret = dat_pz_create(ctx->ia, &t->pz);
	if (ret != DAT_SUCCESS) {
		kdt_fail(ctx, -EIO, "thread %u: dat_pz_create: %s", t->index,
			 kdt_dat_str(ret));
		err = -EIO;
	}
	for (n = 0; !err && n < eps; n++)
		err = kdt_ep_setup(t, n);
	for (n = 0; !err && n < eps; n++)
		err = kdt_ep_connect(t, n);
	if (!err)
		err = kdt_transaction_run(t);
	if (err && !kdt_failed(ctx))
		kdt_fail(ctx, err, "thread %u failed (%d)", t->index, err);

	/* tear down; dapltest disconnects abruptly at the end */
	for (n = 0; n < eps; n++) {
		struct kdt_ep *e = &t->eps[n];
		unsigned int i;

		kdt_disconnect(ctx, e->ep, &e->conn);
		if (e->ep)
			dat_ep_free(e->ep);
		if (e->pool)
			for (i = 0; i < ctx->cmd.num_ops; i++)
				kdt_pool_free(&e->pool[i]);
		kdt_pool_free(&e->rmi);
		kdt_evd_free(&e->conn);
		kdt_evd_free(&e->reqt);
		kdt_evd_free(&e->recv);
		kfree(e->pool);
		kfree(e->remote);
	}
	if (t->pz)
		dat_pz_free(t->pz);

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
	complete(&t->done);
	return 0;
}

static int kdt_transaction_client(struct kdt_ctx *ctx)
{
	const struct kdt_transaction_cmd *cmd = &ctx->cmd;
	unsigned int nt = cmd->num_threads, i, started = 0;
	struct kdt_thread *threads;
	struct task_struct *task;
	int err = 0;

	threads = kcalloc(nt, sizeof(*threads), GFP_KERNEL);
	if (!threads) {
		kdt_fail(ctx, -ENOMEM, "no memory for %u threads", nt);
		return -ENOMEM;
	}
	atomic_set(&ctx->sync_left, nt * cmd->eps_per_thread);
	for (i = 0; i < nt; i++) {
		struct kdt_thread *t = &threads[i];

		t->ctx = ctx;
		t->index = i;
		t->base_port = ctx->sinfo.first_port_number +
			       i * cmd->eps_per_thread;
		init_completion(&t->done);
		t->eps = kcalloc(cmd->eps_per_thread, sizeof(*t->eps),
				 GFP_KERNEL);
		if (!t->eps) {
			kdt_fail(ctx, -ENOMEM, "no memory for endpoints");
			err = -ENOMEM;
			break;
		}
		task = kthread_run(kdt_thread_fn, t, "kdapltest/%u", i);
		if (IS_ERR(task)) {
			kdt_fail(ctx, PTR_ERR(task), "cannot start thread %u",
				 i);
			err = PTR_ERR(task);
			break;
		}
		started++;
	}
	for (i = 0; i < started; i++) {
		/* a signal to the caller ends the run: threads see failed */
		if (wait_for_completion_interruptible(&threads[i].done)) {
			kdt_fail(ctx, -EINTR, "interrupted");
			wait_for_completion(&threads[i].done);
		}
	}
	for (i = 0; i < nt; i++)
		kfree(threads[i].eps);
	kfree(threads);
	return err;
}

/* ------------------------------------------------------------------ */
/* The control connection                                              */
/* ------------------------------------------------------------------ */

static void kdt_build_cmd(struct kdt_ctx *ctx)
{
	const struct kdt_run *run = ctx->run;
	struct kdt_transaction_cmd *cmd = &ctx->cmd;
	u32 i;

	memset(cmd, 0, sizeof(*cmd));
	cmd->dapltest_version = KDT_DAPLTEST_VERSION;
	cmd->client_is_little_endian = KDT_LITTLE_ENDIAN;
	strscpy(cmd->server_name, run->server_name, sizeof(cmd->server_name));
	strscpy(cmd->dapl_name, run->ia_name, sizeof(cmd->dapl_name));
	cmd->num_iterations = run->iterations;
	cmd->num_threads = run->threads;
	cmd->eps_per_thread = run->eps_per_thread;
	cmd->use_rsp = !!(run->flags & KDT_RUN_USE_RSP);
	cmd->debug = !!(run->flags & KDT_RUN_DEBUG);
	cmd->validate = !!(run->flags & KDT_RUN_VALIDATE);
	cmd->poll = !!(run->flags & KDT_RUN_POLL);
	cmd->server_port = run->server_port;
	cmd->qos = run->qos;
	cmd->num_ops = run->num_ops;
	for (i = 0; i < run->num_ops; i++) {
		cmd->op[i].server_initiated = run->ops[i].server_initiated;
		cmd->op[i].transfer_type = run->ops[i].transfer_type;
		cmd->op[i].num_segs = run->ops[i].num_segs;
		cmd->op[i].seg_size = run->ops[i].seg_size;
		cmd->op[i].reap_send_on_recv = run->ops[i].reap_send_on_recv;
	}
}

/* Encode the command of the test type into @buf (KDT_CMD_MSG_SIZE). */
static int kdt_encode_cmd(struct kdt_ctx *ctx, u8 *buf)
{
	const struct kdt_run *run = ctx->run;
	struct kdt_quit_cmd quit = { };

	memset(buf, 0, KDT_CMD_MSG_SIZE);
	if (run->test_type == KDT_RUN_TRANSACTION)
		return kdt_transaction_cmd_encode(&ctx->cmd, buf,
						  KDT_CMD_MSG_SIZE);
	strscpy(quit.server_name, run->server_name, sizeof(quit.server_name));
	strscpy(quit.device_name, run->ia_name, sizeof(quit.device_name));
	quit.debug = !!(run->flags & KDT_RUN_DEBUG);
	quit.qos = run->qos;
	quit.port = run->server_port;
	return kdt_quit_cmd_encode(&quit, buf, KDT_CMD_MSG_SIZE);
}

/* Server_Info after a quit: welcome, but a flushed receive is fine. */
static int kdt_quit_answer(struct kdt_ctx *ctx, struct kdt_evd *recv)
{
	DAT_EVENT ev;
	int err;

	err = kdt_wait(ctx, recv, &ev, KDT_DTO_TIMEOUT_MS, false);
	if (err) {
		kdt_fail(ctx, err, "quit: no answer from the server (%d)", err);
		return err;
	}
	if (ev.event_number == DAT_DTO_COMPLETION_EVENT &&
	    ev.event_data.dto_completion_event_data.status == DAT_DTO_SUCCESS)
		pr_info("kdapltest: the server answered the quit\n");
	else
		pr_info("kdapltest: the server closed the connection on the quit\n");
	return 0;
}

static int kdt_control(struct kdt_ctx *ctx)
{
	struct kdt_evd recv = { }, reqt = { }, conn = { };
	const struct kdt_run *run = ctx->run;
	struct kdt_client_info ci = {
		.dapltest_version = KDT_DAPLTEST_VERSION,
		.is_little_endian = KDT_LITTLE_ENDIAN,
		.test_type = run->test_type,
		.total_threads = run->test_type == KDT_RUN_TRANSACTION ?
				 run->threads : 1,
	};
	DAT_EP_HANDLE ep = DAT_HANDLE_NULL;
	DAT_PZ_HANDLE pz = DAT_HANDLE_NULL;
	struct kdt_pool pool = { };
	DAT_RETURN ret;
	int err;

	ret = dat_pz_create(ctx->ia, &pz);
	if (ret == DAT_SUCCESS)
		ret = kdt_evd_create(ctx, 8, DAT_EVD_DTO_FLAG, &recv);
	if (ret == DAT_SUCCESS)
		ret = kdt_evd_create(ctx, 8, DAT_EVD_DTO_FLAG, &reqt);
	if (ret == DAT_SUCCESS)
		ret = kdt_evd_create(ctx, 8, DAT_EVD_CONNECTION_FLAG, &conn);
	if (ret == DAT_SUCCESS)
		ret = dat_ep_create(ctx->ia, pz, recv.h, reqt.h, conn.h, NULL,
				    &ep);
	if (ret != DAT_SUCCESS) {
		kdt_fail(ctx, -EIO, "control endpoint: %s (%#x)",
			 kdt_dat_str(ret), ret);
		err = -EIO;
		goto out;
	}
	err = kdt_pool_alloc(ctx, pz, &pool, KDT_CMD_MSG_SIZE, CTRL_BUFS);
	err = err ?: kdt_post1(ctx, ep, false, &pool, CTRL_RECV,
			       KDT_CMD_MSG_SIZE, CTRL_RECV);
	if (err)
		goto out;

	ret = dat_ep_connect(ep, (struct sockaddr *)&ctx->server,
			     run->server_port, KDT_CONNECT_USEC, 0, NULL,
			     run->qos, DAT_CONNECT_DEFAULT_FLAG);
	if (ret != DAT_SUCCESS) {
		kdt_fail(ctx, -EIO, "dat_ep_connect to %pI4:%u: %s (%#x)",
			 &ctx->server.sin_addr, run->server_port,
			 kdt_dat_str(ret), ret);
		err = -EIO;
		goto out;
	}
	err = kdt_conn_wait(ctx, &conn, "control connection");
	if (err)
		goto out;

	kdt_client_info_encode(&ci, kdt_seg(&pool, CTRL_CLIENT_INFO),
			       KDT_CMD_MSG_SIZE);
	err = kdt_post1(ctx, ep, true, &pool, CTRL_CLIENT_INFO,
			KDT_CMD_MSG_SIZE, CTRL_CLIENT_INFO);
	err = err ?: kdt_dto_wait(ctx, &reqt, CTRL_CLIENT_INFO,
				  KDT_CMD_MSG_SIZE, false, "Client_Info send");
	if (err)
		goto out;
	err = kdt_encode_cmd(ctx, kdt_seg(&pool, CTRL_CMD));
	if (err < 0) {
		kdt_fail(ctx, err, "cannot encode the command");
		goto out;
	}
	err = kdt_post1(ctx, ep, true, &pool, CTRL_CMD, KDT_CMD_MSG_SIZE,
			CTRL_CMD);
	err = err ?: kdt_dto_wait(ctx, &reqt, CTRL_CMD, KDT_CMD_MSG_SIZE,
				  false, "command send");
	if (err)
		goto out;
	if (run->test_type == KDT_RUN_QUIT) {
		/*
		 * OFA's server answers a quit and closes abruptly at once:
		 * the answer may be lost in the reset. The quit was
		 * delivered either way.
		 */
		err = kdt_quit_answer(ctx, &recv);
		goto out;
	}
	err = kdt_dto_wait(ctx, &recv, CTRL_RECV, KDT_CMD_MSG_SIZE, false,
			   "Server_Info recv");
	if (err)
		goto out;
	kdt_server_info_decode(&ctx->sinfo, kdt_seg(&pool, CTRL_RECV),
			       KDT_CMD_MSG_SIZE);
	if (ctx->sinfo.dapltest_version != KDT_DAPLTEST_VERSION) {
		kdt_fail(ctx, -EPROTO,
			 "DAPLTEST VERSION MISMATCH: server %u, client %u",
			 ctx->sinfo.dapltest_version, KDT_DAPLTEST_VERSION);
		err = -EPROTO;
		goto out;
	}
	if (ctx->debug)
		pr_info("kdapltest: server %pI4:%u: first port %u\n",
			&ctx->server.sin_addr, run->server_port,
			ctx->sinfo.first_port_number);

	if (run->test_type == KDT_RUN_TRANSACTION)
		err = kdt_transaction_client(ctx);
out:
	kdt_disconnect(ctx, ep, &conn);
	if (ep)
		dat_ep_free(ep);
	kdt_pool_free(&pool);
	kdt_evd_free(&conn);
	kdt_evd_free(&reqt);
	kdt_evd_free(&recv);
	if (pz)
		dat_pz_free(pz);
	return err;
}

int kdt_client_run(struct kdt_run *run)
{
	struct kdt_result *res = &run->result;
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	const char *why;
	struct kdt_ctx *ctx;
	DAT_RETURN ret;

	memset(res, 0, sizeof(*res));
	if (run->test_type != KDT_RUN_TRANSACTION &&
	    run->test_type != KDT_RUN_QUIT) {
		res->status = -EOPNOTSUPP;
		snprintf(res->message, sizeof(res->message),
			 "test type %u (%s) is not implemented in the kernel yet",
			 run->test_type, kdt_test_type_name(run->test_type));
		return 0;
	}
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	ctx->run = run;
	ctx->debug = run->flags & KDT_RUN_DEBUG;
	spin_lock_init(&ctx->lock);
	init_waitqueue_head(&ctx->sync_wq);
	ctx->server.sin_family = AF_INET;
	ctx->server.sin_addr.s_addr = run->server_addr;
	run->ia_name[sizeof(run->ia_name) - 1] = '\0';
	run->server_name[sizeof(run->server_name) - 1] = '\0';

	if (run->test_type == KDT_RUN_TRANSACTION) {
		if (run->num_ops > KDT_MAX_OPS) {
			kdt_fail(ctx, -EINVAL, "too many ops");
			goto out;
		}
		kdt_build_cmd(ctx);
		why = kdt_transaction_cmd_check(&ctx->cmd);
		if (why) {
			kdt_fail(ctx, -EINVAL, "%s", why);
			goto out;
		}
	}

	ret = dat_ia_open(run->ia_name, KDT_ASYNC_QLEN, &async, &ctx->ia);
	if (ret != DAT_SUCCESS) {
		kdt_fail(ctx, -ENODEV, "cannot open IA %s: %s (%#x)",
			 run->ia_name, kdt_dat_str(ret), ret);
		goto out;
	}
	kdt_control(ctx);
	dat_ia_close(ctx->ia, DAT_CLOSE_ABRUPT_FLAG);
	/* an upcall that never came shows up as 100 ms fallback sleeps */
	pr_info("kdapltest: %s: %d sleeps for events, %d woken by the fallback timeout\n",
		kdt_test_type_name(run->test_type), atomic_read(&ctx->sleeps),
		atomic_read(&ctx->sleep_timeouts));

	if (!ctx->failed) {
		res->threads = run->threads;
		res->eps = run->threads * run->eps_per_thread;
		res->wqes = ctx->wqes;
		res->time_us = ctx->time_us;
		res->bytes_send = ctx->bytes_send;
		res->bytes_recv = ctx->bytes_recv;
		res->bytes_rdma_read = ctx->bytes_rr;
		res->bytes_rdma_write = ctx->bytes_rw;
		strscpy(res->message, "ok", sizeof(res->message));
	}
out:
	kfree(ctx);
	return 0;
}
