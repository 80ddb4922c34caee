// SPDX-License-Identifier: GPL-2.0
/*
 * kdapltest: dapltest's performance test (-T P) over kDAPL, both roles
 * (Documentation/kdapltest.rst). One endpoint on the port of
 * Server_Info. The server advertises one buffer (its memory info, 12
 * bytes, sent first), the client RDMA-reads or -writes it: first
 * num_iterations operations with up to pipeline_len outstanding
 * (throughput), then num_iterations one at a time (latency); then it
 * sends the server a 12-byte sync and both sides disconnect.
 */

#include <linux/kthread.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include "kdt.h"

/* the two sync buffers: send and receive */
enum { PERF_SEND, PERF_RECV, PERF_BUFS };

/* outstanding operations at most (kDAPL's queues are larger) */
#define KDT_PERF_MAX_PIPELINE	32
#define KDT_PERF_MAX_RR_PIPELINE 8

static bool kdt_perf_ok(const struct kdt_perf_cmd *cmd)
{
	return cmd->transfer_type <= KDT_RDMA_WRITE && cmd->num_segs &&
	       cmd->num_segs <= KDT_MAX_SEGS && cmd->seg_size &&
	       cmd->num_iterations &&
	       (u64)kdt_seg_round(cmd->seg_size) * cmd->num_segs <= 4U << 20;
}

/**
 * kdt_perf_check() - why this side will not run a performance command
 * @cmd: the command
 *
 * Return: NULL if runnable, else the reason.
 */
const char *kdt_perf_check(const struct kdt_perf_cmd *cmd)
{
	if (cmd->dapltest_version != KDT_DAPLTEST_VERSION)
		return "performance command of another dapltest version";
	if (!kdt_perf_ok(cmd))
		return "performance command out of range (RR or RW, 1-8 segments, 4 MiB)";
	return NULL;
}

static u32 kdt_perf_pipeline(const struct kdt_perf_cmd *cmd)
{
	u32 p = cmd->pipeline_len ?: KDT_PERF_MAX_PIPELINE;

	p = min3(p, cmd->num_iterations, (u32)KDT_PERF_MAX_PIPELINE);
	if (cmd->transfer_type == KDT_RDMA_READ)
		p = min_t(u32, p, KDT_PERF_MAX_RR_PIPELINE);
	return max_t(u32, p, 1);
}

/* EVDs, the EP, the sync buffers with the receive posted, a PSP. */
static int kdt_perf_setup(struct kdt_perf *p)
{
	struct kdt_ctx *ctx = &p->ctx;
	DAT_EP_ATTR attr = { .service_type = DAT_SERVICE_TYPE_RC };
	DAT_RETURN ret;

	p->pipeline = kdt_perf_pipeline(&p->cmd);
	attr.max_recv_dtos = 2;
	attr.max_request_dtos = p->pipeline + 1;
	attr.max_recv_iov = 1;
	attr.max_request_iov = p->cmd.num_segs;
	attr.max_rdma_read_in = KDT_PERF_MAX_RR_PIPELINE;
	attr.max_rdma_read_out = KDT_PERF_MAX_RR_PIPELINE;

	ret = dat_pz_create(ctx->ia, &p->pz);
	if (ret != DAT_SUCCESS)
		p->pz = DAT_HANDLE_NULL;
	if (ret == DAT_SUCCESS)
		ret = kdt_evd_create(ctx, 8, DAT_EVD_DTO_FLAG, &p->recv);
	if (ret == DAT_SUCCESS)
		ret = kdt_evd_create(ctx, p->pipeline + 8, DAT_EVD_DTO_FLAG,
				     &p->reqt);
	if (ret == DAT_SUCCESS)
		ret = kdt_evd_create(ctx, 8, DAT_EVD_CONNECTION_FLAG, &p->conn);
	if (ret == DAT_SUCCESS && ctx->is_server)
		ret = kdt_evd_create(ctx, 8, DAT_EVD_CR_FLAG, &p->creq);
	if (ret == DAT_SUCCESS)
		ret = dat_ep_create(ctx->ia, p->pz, p->recv.h, p->reqt.h,
				    p->conn.h, &attr, &p->ep);
	if (ret != DAT_SUCCESS) {
		kdt_fail(ctx, -EIO, "performance endpoint: %s (%#x)",
			 kdt_dat_str(ret), ret);
		return -EIO;
	}
	if (kdt_pool_alloc(ctx, p->pz, &p->sync, KDT_RMI_ENTRY_SIZE,
			   PERF_BUFS) ||
	    kdt_post1(ctx, p->ep, false, &p->sync, PERF_RECV,
		      KDT_RMI_ENTRY_SIZE, PERF_RECV))
		return -EIO;
	if (!ctx->is_server)
		return 0;
	ret = dat_psp_create(ctx->ia, p->port, p->creq.h,
			     DAT_PSP_CONSUMER_FLAG, &p->psp);
	if (ret != DAT_SUCCESS) {
		p->psp = DAT_HANDLE_NULL;
		kdt_fail(ctx, -EADDRINUSE, "dat_psp_create port %u: %s (%#x)",
			 p->port, kdt_dat_str(ret), ret);
		return -EADDRINUSE;
	}
	return 0;
}

/* Server: the client's request on the PSP, accepted. */
static int kdt_perf_accept(struct kdt_perf *p)
{
	struct kdt_ctx *ctx = &p->ctx;
	DAT_RETURN ret;
	DAT_EVENT ev;
	int err;

	err = kdt_wait(ctx, &p->creq, &ev, KDT_CONN_TIMEOUT_MS, false);
	if (err) {
		if (err != -ECANCELED)
			kdt_fail(ctx, err, "no connection request on port %u (%d)",
				 p->port, err);
		return err;
	}
	if (ev.event_number != DAT_CONNECTION_REQUEST_EVENT) {
		kdt_fail(ctx, -EPROTO, "event %#x instead of a connection request",
			 ev.event_number);
		return -EPROTO;
	}
	atomic_inc(&ctx->requests);
	wake_up_all(&ctx->sync_wq);
	ret = dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle,
			    p->ep, 0, NULL);
	if (ret != DAT_SUCCESS) {
		kdt_fail(ctx, -EIO, "dat_cr_accept: %s (%#x)",
			 kdt_dat_str(ret), ret);
		return -EIO;
	}
	err = kdt_conn_wait(ctx, &p->conn, "performance endpoint");
	dat_psp_free(p->psp);
	p->psp = DAT_HANDLE_NULL;
	return err;
}

/* Client: connect to the server's port. */
static int kdt_perf_connect(struct kdt_perf *p)
{
	struct kdt_ctx *ctx = &p->ctx;
	DAT_RETURN ret;

	ret = dat_ep_connect(p->ep, (struct sockaddr *)&ctx->server, p->port,
			     KDT_CONNECT_USEC, 0, NULL, p->cmd.qos,
			     DAT_CONNECT_DEFAULT_FLAG);
	if (ret != DAT_SUCCESS) {
		kdt_fail(ctx, -EIO, "dat_ep_connect port %u: %s (%#x)", p->port,
			 kdt_dat_str(ret), ret);
		return -EIO;
	}
	return kdt_conn_wait(ctx, &p->conn, "performance endpoint");
}

/* Post operation @i of the client's RDMA ops. */
static int kdt_perf_post(struct kdt_perf *p, u64 i)
{
	DAT_LMR_TRIPLET iov[KDT_MAX_SEGS];
	DAT_DTO_COOKIE ck = { .as_64 = i };
	DAT_RMR_TRIPLET r = {
		.rmr_context = p->remote.rmr_context,
		.virtual_address = p->remote.address,
		.segment_length = (u64)p->cmd.seg_size * p->cmd.num_segs,
	};
	DAT_RETURN ret;
	u32 s;

	for (s = 0; s < p->cmd.num_segs; s++) {
		iov[s].lmr_context = p->op.lctx;
		iov[s].virtual_address = p->op.addr + (u64)s * p->op.seg;
		iov[s].segment_length = p->cmd.seg_size;
	}
	if (p->cmd.transfer_type == KDT_RDMA_READ)
		ret = dat_ep_post_rdma_read(p->ep, p->cmd.num_segs, iov, ck, &r,
					    DAT_COMPLETION_DEFAULT_FLAG);
	else
		ret = dat_ep_post_rdma_write(p->ep, p->cmd.num_segs, iov, ck,
					     &r, DAT_COMPLETION_DEFAULT_FLAG);
	if (ret != DAT_SUCCESS) {
		kdt_fail(&p->ctx, -EIO, "posting RDMA op %llu: %s (%#x)", i,
			 kdt_dat_str(ret), ret);
		return -EIO;
	}
	return 0;
}

static int kdt_perf_reap(struct kdt_perf *p, u64 i)
{
	return kdt_dto_wait(&p->ctx, &p->reqt, i,
			    (u64)p->cmd.seg_size * p->cmd.num_segs,
			    p->cmd.mode == 1, "RDMA op");
}

/* The client's two phases: pipelined throughput, then latency. */
static int kdt_perf_client_phases(struct kdt_perf *p)
{
	u32 n = p->cmd.num_iterations;
	u64 posted = 0, reaped = 0, t0, t, sum = 0;
	int err;

	t0 = ktime_get_ns();
	while (reaped < n) {
		while (posted < n && posted - reaped < p->pipeline) {
			err = kdt_perf_post(p, posted++);
			if (err)
				return err;
		}
		err = kdt_perf_reap(p, reaped++);
		if (err)
			return err;
		if (p->ctx.file)
			atomic64_inc(&p->ctx.file->wqes);
	}
	p->time_us = div_u64(ktime_get_ns() - t0, NSEC_PER_USEC);

	p->lat_min = U64_MAX;
	for (reaped = 0; reaped < n; reaped++) {
		t0 = ktime_get_ns();
		err = kdt_perf_post(p, reaped);
		err = err ?: kdt_perf_reap(p, reaped);
		if (err)
			return err;
		t = ktime_get_ns() - t0;
		sum += t;
		p->lat_min = min(p->lat_min, t);
		p->lat_max = max(p->lat_max, t);
		if (p->ctx.file)
			atomic64_inc(&p->ctx.file->wqes);
	}
	p->lat_avg = div_u64(sum, n);
	return 0;
}

/* After the connection: the buffer, the memory info, the phases, sync. */
static int kdt_perf_exchange(struct kdt_perf *p)
{
	struct kdt_ctx *ctx = &p->ctx;
	struct kdt_rmi rmi = { };
	int err;

	err = kdt_pool_alloc(ctx, p->pz, &p->op, p->cmd.seg_size,
			     p->cmd.num_segs);
	if (err)
		return err;
	if (ctx->is_server) {
		rmi.rmr_context = p->op.rctx;
		rmi.address = p->op.addr;
		kdt_rmi_entry_encode(&rmi, kdt_seg(&p->sync, PERF_SEND),
				     p->sync.seg);
		err = kdt_post1(ctx, p->ep, true, &p->sync, PERF_SEND,
				KDT_RMI_ENTRY_SIZE, PERF_SEND);
		err = err ?: kdt_dto_wait(ctx, &p->reqt, PERF_SEND,
					  KDT_RMI_ENTRY_SIZE, false,
					  "memory info send");
		/* the client's sync ends the test: it has all the time */
		return err ?: kdt_dto_wait(ctx, &p->recv, PERF_RECV,
					   KDT_RMI_ENTRY_SIZE, false,
					   "sync recv");
	}
	err = kdt_dto_wait(ctx, &p->recv, PERF_RECV, KDT_RMI_ENTRY_SIZE, false,
			   "memory info recv");
	if (err)
		return err;
	kdt_rmi_entry_decode(&p->remote, kdt_seg(&p->sync, PERF_RECV),
			     KDT_RMI_ENTRY_SIZE);
	err = kdt_perf_client_phases(p);
	err = err ?: kdt_post1(ctx, p->ep, true, &p->sync, PERF_SEND,
			       KDT_RMI_ENTRY_SIZE, PERF_SEND);
	return err ?: kdt_dto_wait(ctx, &p->reqt, PERF_SEND,
				   KDT_RMI_ENTRY_SIZE, false, "sync send");
}

/**
 * kdt_perf_free() - everything of a performance test
 * @p: the test; its thread (server) has finished
 */
void kdt_perf_free(struct kdt_perf *p)
{
	/* the client sent the sync: the server closes first */
	if (!p->ctx.is_server)
		kdt_wait_peer_close(&p->ctx, p->ep, &p->conn);
	kdt_disconnect(&p->ctx, p->ep, &p->conn);
	if (p->psp)
		dat_psp_free(p->psp);
	if (p->ep)
		dat_ep_free(p->ep);
	kdt_pool_free(&p->op);
	kdt_pool_free(&p->sync);
	kdt_evd_free(&p->creq);
	kdt_evd_free(&p->conn);
	kdt_evd_free(&p->reqt);
	kdt_evd_free(&p->recv);
	if (p->pz)
		dat_pz_free(p->pz);
	p->pz = DAT_HANDLE_NULL;
	p->ep = DAT_HANDLE_NULL;
	p->psp = DAT_HANDLE_NULL;
}

/**
 * kdt_perf_client() - the client side, in the caller's context
 * @p: the test: ctx with IA and server address, cmd, port of Server_Info
 *
 * Return: 0 or the test's error; kdt_perf_free() frees.
 */
int kdt_perf_client(struct kdt_perf *p)
{
	int err;

	if (p->ctx.file)
		atomic64_set(&p->ctx.file->wqes_total,
			     2ULL * p->cmd.num_iterations);
	err = kdt_perf_setup(p);
	err = err ?: kdt_perf_connect(p);
	err = err ?: kdt_perf_exchange(p);
	return err;
}

static int kdt_perf_thread(void *arg)
{
	struct kdt_perf *p = arg;
	struct kdt_ctx *ctx = &p->ctx;
	int err;

	err = kdt_perf_accept(p);
	err = err ?: kdt_perf_exchange(p);
	if (err && !kdt_failed(ctx))
		kdt_fail(ctx, err, "performance test failed (%d)", err);
	kdt_perf_free(p);
	complete(&ctx->done);
	return 0;
}

/**
 * kdt_perf_server_start() - the server side of one performance test
 * @p: the test: ctx with the server's IA, cmd, port
 *
 * The service point is created here, in the server's context; the rest
 * runs on a thread. @p->ctx.done completes when it is over, also on
 * failure here.
 * Return: 0 or a negative errno.
 */
int kdt_perf_server_start(struct kdt_perf *p)
{
	struct task_struct *task;
	int err;

	err = kdt_perf_setup(p);
	if (!err) {
		task = kthread_run(kdt_perf_thread, p, "kdapltest/p");
		if (!IS_ERR(task))
			return 0;
		err = PTR_ERR(task);
		kdt_fail(&p->ctx, err, "cannot start the performance thread");
	}
	kdt_perf_free(p);
	complete(&p->ctx.done);
	return err;
}
