// SPDX-License-Identifier: GPL-2.0
/*
 * kdapltest: the dapltest client over kDAPL (Documentation/kdapltest.rst).
 *
 * KDT_IOC_RUN with a client test type lands in kdt_client_run(): it
 * opens the IA, runs the control exchange with the server (Client_Info,
 * command, Server_Info) and, for a transaction test, the test's threads
 * (test.c) until every one is done. Nothing outlives the call.
 */

#include <linux/slab.h>
#include <linux/string.h>

#include "kdt.h"

/* Buffers of the control connection: server info, client info, command */
enum { CTRL_RECV, CTRL_CLIENT_INFO, CTRL_CMD, CTRL_BUFS };

static void kdt_build_cmd(struct kdt_ctx *ctx, const struct kdt_run *run)
{
	struct kdt_transaction_cmd *cmd = &ctx->cmd;
	u32 i;

	memset(cmd, 0, sizeof(*cmd));
	cmd->dapltest_version = run->craft_version ?: KDT_DAPLTEST_VERSION;
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

static void kdt_build_perf_cmd(struct kdt_perf *p, const struct kdt_run *run)
{
	struct kdt_perf_cmd *cmd = &p->cmd;

	memset(cmd, 0, sizeof(*cmd));
	cmd->dapltest_version = run->craft_version ?: KDT_DAPLTEST_VERSION;
	cmd->client_is_little_endian = KDT_LITTLE_ENDIAN;
	strscpy(cmd->server_name, run->server_name, sizeof(cmd->server_name));
	strscpy(cmd->dapl_name, run->ia_name, sizeof(cmd->dapl_name));
	cmd->qos = run->qos;
	cmd->debug = !!(run->flags & KDT_RUN_DEBUG);
	cmd->mode = !!(run->flags & KDT_RUN_PERF_POLL);
	cmd->num_iterations = run->iterations;
	cmd->pipeline_len = run->pipeline;
	cmd->transfer_type = run->ops[0].transfer_type;
	cmd->seg_size = run->ops[0].seg_size;
	cmd->num_segs = run->ops[0].num_segs;
	cmd->use_rsp = !!(run->flags & KDT_RUN_USE_RSP);
	cmd->server_port = run->server_port;
}

/* Encode the command of the test type into @buf (KDT_CMD_MSG_SIZE). */
static int kdt_encode_cmd(struct kdt_ctx *ctx, const struct kdt_run *run,
			  u8 *buf)
{
	struct kdt_quit_cmd quit = { };

	memset(buf, 0, KDT_CMD_MSG_SIZE);
	if (run->test_type == KDT_RUN_TRANSACTION)
		return kdt_transaction_cmd_encode(&ctx->cmd, buf,
						  KDT_CMD_MSG_SIZE);
	if (run->test_type == KDT_RUN_PERFORMANCE)
		return kdt_perf_cmd_encode(&container_of(ctx, struct kdt_perf,
							 ctx)->cmd,
					   buf, KDT_CMD_MSG_SIZE);
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

/*
 * Server_Info. A server that refuses the request (another protocol
 * version, a truncated command, a test type it does not know) closes
 * the connection instead: the receive is flushed.
 */
static int kdt_server_info_wait(struct kdt_ctx *ctx, struct kdt_evd *recv,
				struct kdt_pool *pool)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d;
	DAT_EVENT ev;
	int err;

	err = kdt_wait(ctx, recv, &ev, KDT_DTO_TIMEOUT_MS, false);
	if (err) {
		kdt_fail(ctx, err, "no Server_Info from the server (%d)", err);
		return err;
	}
	d = &ev.event_data.dto_completion_event_data;
	if (ev.event_number != DAT_DTO_COMPLETION_EVENT ||
	    d->status != DAT_DTO_SUCCESS) {
		kdt_fail(ctx, -ECONNRESET,
			 "the server closed the connection instead of sending Server_Info: it refused the request (see its log)");
		return -ECONNRESET;
	}
	if (d->transfered_length != KDT_CMD_MSG_SIZE) {
		kdt_fail(ctx, -EPROTO, "Server_Info: %llu bytes, expected %u",
			 (unsigned long long)d->transfered_length,
			 KDT_CMD_MSG_SIZE);
		return -EPROTO;
	}
	kdt_server_info_decode(&ctx->sinfo, kdt_seg(pool, CTRL_RECV),
			       KDT_CMD_MSG_SIZE);
	if (ctx->sinfo.dapltest_version != KDT_DAPLTEST_VERSION) {
		kdt_fail(ctx, -EPROTO,
			 "DAPLTEST VERSION MISMATCH: server %u, client %u",
			 ctx->sinfo.dapltest_version, KDT_DAPLTEST_VERSION);
		return -EPROTO;
	}
	return 0;
}

static int kdt_transaction_client(struct kdt_ctx *ctx)
{
	int err;

	err = kdt_tt_alloc(ctx);
	if (!err) {
		kdt_tt_start(ctx, true);
		kdt_tt_wait(ctx);
	}
	kdt_tt_free(ctx);
	return ctx->status;
}

static int kdt_control(struct kdt_ctx *ctx, const struct kdt_run *run)
{
	struct kdt_evd recv = { }, reqt = { }, conn = { };
	struct kdt_client_info ci = {
		.dapltest_version = run->craft_version ?: KDT_DAPLTEST_VERSION,
		.is_little_endian = KDT_LITTLE_ENDIAN,
		.test_type = run->craft_test_type ?: run->test_type,
		.total_threads = run->test_type == KDT_RUN_TRANSACTION ?
				 run->threads : 1,
	};
	u32 cmd_len = KDT_CMD_MSG_SIZE;
	DAT_EP_HANDLE ep = DAT_HANDLE_NULL;
	DAT_PZ_HANDLE pz = DAT_HANDLE_NULL;
	struct kdt_pool pool = { };
	DAT_RETURN ret;
	int err;

	if (run->craft_cmd_len && run->craft_cmd_len < KDT_CMD_MSG_SIZE)
		cmd_len = run->craft_cmd_len;
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
	err = kdt_encode_cmd(ctx, run, kdt_seg(&pool, CTRL_CMD));
	if (err < 0) {
		kdt_fail(ctx, err, "cannot encode the command");
		goto out;
	}
	err = kdt_post1(ctx, ep, true, &pool, CTRL_CMD, cmd_len, CTRL_CMD);
	err = err ?: kdt_dto_wait(ctx, &reqt, CTRL_CMD, cmd_len, false,
				  "command send");
	if (err)
		goto out;
	if (run->test_type == KDT_RUN_QUIT) {
		/*
		 * OFA's server answers a quit and closes abruptly at once:
		 * the answer may be lost in the reset. The quit was
		 * delivered either way. We close after the server: closing
		 * as soon as the answer was in once cost OFA's server the
		 * completion of its send (siw: status 2, QP fatal).
		 */
		err = kdt_quit_answer(ctx, &recv);
		if (!err)
			kdt_wait_peer_close(ctx, ep, &conn);
		goto out;
	}
	err = kdt_server_info_wait(ctx, &recv, &pool);
	if (err)
		goto out;
	if (ctx->debug)
		pr_info("kdapltest: server %pI4:%u: first port %u\n",
			&ctx->server.sin_addr, run->server_port,
			ctx->sinfo.first_port_number);

	if (run->test_type == KDT_RUN_TRANSACTION) {
		err = kdt_transaction_client(ctx);
	} else if (run->test_type == KDT_RUN_PERFORMANCE) {
		struct kdt_perf *p = container_of(ctx, struct kdt_perf, ctx);

		p->port = ctx->sinfo.first_port_number;
		err = kdt_perf_client(p);
		kdt_perf_free(p);
	}
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

/**
 * kdt_client_run() - one client run of KDT_IOC_RUN
 * @run: the request, checked for its ABI; @run->result is filled
 * @f: the open file, for the progress counters
 *
 * Return: 0 when the run could be attempted (its outcome is in
 * @run->result), -ENOMEM.
 */
int kdt_client_run(struct kdt_run *run, struct kdt_file *f)
{
	struct kdt_result *res = &run->result;
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	const char *why = NULL;
	struct kdt_perf *perf;
	struct kdt_ctx *ctx;
	DAT_RETURN ret;

	/* every client run has a kdt_perf around its ctx: -T P uses it */
	perf = kzalloc(sizeof(*perf), GFP_KERNEL);
	if (!perf)
		return -ENOMEM;
	ctx = &perf->ctx;
	kdt_ctx_init(ctx, false, f);
	ctx->debug = run->flags & KDT_RUN_DEBUG;
	ctx->server.sin_family = AF_INET;
	ctx->server.sin_addr.s_addr = run->server_addr;

	if (run->test_type == KDT_RUN_TRANSACTION) {
		if (run->num_ops > KDT_MAX_OPS) {
			kdt_fail(ctx, -EINVAL, "too many ops");
			goto out;
		}
		kdt_build_cmd(ctx, run);
		why = kdt_transaction_cmd_check(&ctx->cmd);
	} else if (run->test_type == KDT_RUN_PERFORMANCE) {
		kdt_build_perf_cmd(perf, run);
		why = run->craft_version ? NULL : kdt_perf_check(&perf->cmd);
	}
	if (why) {
		kdt_fail(ctx, -EINVAL, "%s", why);
		goto out;
	}

	ret = dat_ia_open(run->ia_name, KDT_ASYNC_QLEN, &async, &ctx->ia);
	if (ret != DAT_SUCCESS) {
		kdt_fail(ctx, -ENODEV, "cannot open IA %s: %s (%#x)",
			 run->ia_name, kdt_dat_str(ret), ret);
		goto out;
	}
	kdt_control(ctx, run);
	dat_ia_close(ctx->ia, DAT_CLOSE_ABRUPT_FLAG);
	/* every sleep ended by an upcall; none waited for one in vain */
	pr_info("kdapltest: %s: %d sleeps for events, %d longer than 100 ms, %d events without their upcall\n",
		kdt_test_type_name(run->test_type), atomic_read(&ctx->sleeps),
		atomic_read(&ctx->long_sleeps),
		atomic_read(&ctx->lost_wakeups));
	if (atomic_read(&ctx->lost_wakeups))
		kdt_fail(ctx, -EPROTO, "%d events came without their upcall",
			 atomic_read(&ctx->lost_wakeups));

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
	if (!ctx->failed && run->test_type == KDT_RUN_PERFORMANCE) {
		u64 bytes = (u64)perf->cmd.seg_size * perf->cmd.num_segs *
			    perf->cmd.num_iterations;

		res->threads = 1;
		res->eps = 1;
		res->wqes = perf->cmd.num_iterations;
		res->time_us = perf->time_us;
		if (perf->cmd.transfer_type == KDT_RDMA_READ)
			res->bytes_rdma_read = bytes;
		else
			res->bytes_rdma_write = bytes;
		res->pipeline = perf->pipeline;
		res->lat_min_ns = perf->lat_min;
		res->lat_avg_ns = perf->lat_avg;
		res->lat_max_ns = perf->lat_max;
	}
out:
	if (ctx->failed) {
		res->status = ctx->status;
		strscpy(res->message, ctx->message, sizeof(res->message));
	}
	kfree(perf);
	return 0;
}
