// SPDX-License-Identifier: GPL-2.0
/*
 * kdapltest: the dapltest server over kDAPL (Documentation/kdapltest.rst).
 *
 * KDT_IOC_RUN with KDT_RUN_SERVER lands in kdt_server_run(): it listens
 * on the server port and serves one client after another on its control
 * endpoint, in the calling task, until a client asks it to quit or a
 * signal stops it. Each transaction test gets its threads (test.c) and
 * runs while the loop serves the next client; the service points of a
 * test are created here, in the caller's context, before Server_Info
 * goes out. Unlike OFA's server, a bad request (another protocol
 * version, a truncated command, an unknown test type, values out of
 * range) only costs the client its connection: the server logs why,
 * counts it and keeps serving.
 */

#include <linux/jiffies.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kdt.h"

/* Buffers of the control endpoint: Client_Info, command, Server_Info */
enum { SRV_RECV_INFO, SRV_RECV_CMD, SRV_SEND_INFO, SRV_BUFS };

/* dapltest hands out test ports from server port + 1, wrapping here */
#define KDT_PORT_SPAN		1000

/* What this server takes from a client (memory, threads): see the doc */
#define KDT_SRV_MAX_THREADS	16
#define KDT_SRV_MAX_EPS		64	/* threads x endpoints per thread */
#define KDT_SRV_MAX_OP_BYTES	(4U << 20)

struct kdt_server {
	struct kdt_run *run;
	struct kdt_file *file;
	struct kdt_ctx lctx;		/* the loop's: its IA, its waits */
	DAT_PZ_HANDLE pz;
	struct kdt_evd recv, reqt, creq, conn;
	DAT_EP_HANDLE ep;
	DAT_PSP_HANDLE psp;
	struct kdt_pool pool;
	u32 port, next_port;
	u32 gen;			/* cookie generation of the receives */
	struct kdt_ctx *started;	/* the test started for this client */
	bool posted;			/* the two receives of @gen are posted */
	struct list_head tests;		/* running tests; the loop's only */
	unsigned int clients, done, failed, rejected;
};

static u64 srv_cookie(struct kdt_server *s, unsigned int buf)
{
	return (u64)s->gen << 8 | buf;
}

/* A client is refused: say why, count it, serve the next. */
static void __printf(2, 3) srv_reject(struct kdt_server *s, const char *fmt,
				      ...)
{
	char msg[KDT_MESSAGE_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pr_err("kdapltest: server: client %u refused: %s\n", s->clients, msg);
	kdt_file_error(s->file, msg);
	s->rejected++;
	atomic_inc(&s->file->rejected);
}

/* Free the tests whose threads have all finished. */
static void srv_reap(struct kdt_server *s, bool wait)
{
	struct kdt_ctx *ctx, *tmp;

	list_for_each_entry_safe(ctx, tmp, &s->tests, node) {
		if (wait)
			wait_for_completion(&ctx->done);
		else if (!completion_done(&ctx->done) || ctx == s->started)
			continue;
		list_del(&ctx->node);
		if (ctx->failed) {
			pr_info("kdapltest: server: %s test %u failed: %s\n",
				ctx->is_perf ? "performance" : "transaction",
				ctx->test_no, ctx->message);
			s->failed++;
			atomic_inc(&s->file->tests_failed);
		} else if (ctx->is_perf) {
			pr_info("kdapltest: server: performance test %u finished\n",
				ctx->test_no);
		} else {
			pr_info("kdapltest: server: transaction test %u finished for this client: %llu WQEs in %llu us\n",
				ctx->test_no, ctx->wqes, ctx->time_us);
		}
		s->done++;
		atomic_inc(&s->file->tests_done);
		atomic_dec(&s->file->tests_running);
		if (ctx->is_perf) {
			kfree(container_of(ctx, struct kdt_perf, ctx));
			continue;
		}
		kdt_tt_free(ctx);
		kfree(ctx);
	}
}

/*
 * The next event of @e within @ms (0: no bound), finished tests reaped
 * meanwhile. Return: 0, -ETIMEDOUT, -EINTR on a signal, -EIO.
 */
static int srv_wait(struct kdt_server *s, struct kdt_evd *e, DAT_EVENT *ev,
		    unsigned int ms)
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
		if (ms && time_after(jiffies, end))
			return -ETIMEDOUT;
		srv_reap(s, false);
		if (wait_event_interruptible_timeout(e->wq,
						     atomic_read(&e->seq) != seq,
						     HZ / 10) < 0)
			return -EINTR;
	}
}

/*
 * Completion of control buffer @buf of this generation (flushed ones of
 * an earlier client are skipped). @len: its length.
 * Return: 0, -ECONNRESET (flushed: the client went away), -EPROTO, or
 * srv_wait()'s errors.
 */
static int srv_dto(struct kdt_server *s, struct kdt_evd *e, unsigned int buf,
		   u64 *len)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d;
	DAT_EVENT ev;
	int err;

	for (;;) {
		err = srv_wait(s, e, &ev, KDT_DTO_TIMEOUT_MS);
		if (err)
			return err;
		if (ev.event_number != DAT_DTO_COMPLETION_EVENT)
			return -EPROTO;
		d = &ev.event_data.dto_completion_event_data;
		if (d->user_cookie.as_64 >> 8 != s->gen)
			continue;
		if (d->user_cookie.as_64 != srv_cookie(s, buf))
			return -EPROTO;
		if (d->status != DAT_DTO_SUCCESS)
			return -ECONNRESET;
		*len = d->transfered_length;
		return 0;
	}
}

/* The connection event @want, earlier disconnects skipped. */
static int srv_conn(struct kdt_server *s, DAT_EVENT_NUMBER want,
		    unsigned int ms)
{
	DAT_EVENT ev;
	int err;

	for (;;) {
		err = srv_wait(s, &s->conn, &ev, ms);
		if (err)
			return err;
		if (ev.event_number == want)
			return 0;
		if (ev.event_number != DAT_CONNECTION_EVENT_DISCONNECTED)
			return -ECONNREFUSED;
	}
}

/*
 * End the control connection and make the EP ready for the next client:
 * disconnect (graceful, or abrupt after a bad request or if graceful
 * hangs), wait for the event, reset, which flushes what is still
 * posted: the next client's buffers get a new cookie generation.
 */
static bool srv_connected(struct kdt_server *s)
{
	DAT_EP_STATE state = DAT_EP_STATE_UNCONNECTED;

	dat_ep_get_status(s->ep, &state, NULL, NULL);
	return state != DAT_EP_STATE_UNCONNECTED &&
	       state != DAT_EP_STATE_DISCONNECTED;
}

static void srv_hangup(struct kdt_server *s, bool graceful)
{
	DAT_EP_STATE state = DAT_EP_STATE_UNCONNECTED;

	if (srv_connected(s)) {
		dat_ep_disconnect(s->ep, graceful ? DAT_CLOSE_GRACEFUL_FLAG :
				  DAT_CLOSE_ABRUPT_FLAG);
		if (srv_conn(s, DAT_CONNECTION_EVENT_DISCONNECTED,
			     KDT_DISC_TIMEOUT_MS) && srv_connected(s)) {
			dat_ep_disconnect(s->ep, DAT_CLOSE_ABRUPT_FLAG);
			srv_conn(s, DAT_CONNECTION_EVENT_DISCONNECTED,
				 KDT_DISC_TIMEOUT_MS);
		}
	}
	dat_ep_get_status(s->ep, &state, NULL, NULL);
	if (state == DAT_EP_STATE_DISCONNECTED &&
	    dat_ep_reset(s->ep) == DAT_SUCCESS) {
		s->posted = false;
		s->gen++;
	}
}

/* Post the receives for Client_Info and the command. */
static int srv_post_recvs(struct kdt_server *s)
{
	int err;

	if (s->posted)
		return 0;
	err = kdt_post1(&s->lctx, s->ep, false, &s->pool, SRV_RECV_INFO,
			KDT_CMD_MSG_SIZE, srv_cookie(s, SRV_RECV_INFO));
	err = err ?: kdt_post1(&s->lctx, s->ep, false, &s->pool, SRV_RECV_CMD,
			       KDT_CMD_MSG_SIZE, srv_cookie(s, SRV_RECV_CMD));
	if (!err)
		s->posted = true;
	return err;
}

/* Send Server_Info with @first_port. */
static int srv_send_info(struct kdt_server *s, u32 first_port)
{
	struct kdt_server_info si = {
		.dapltest_version = KDT_DAPLTEST_VERSION,
		.is_little_endian = KDT_LITTLE_ENDIAN,
		.first_port_number = first_port,
	};
	u8 *buf = kdt_seg(&s->pool, SRV_SEND_INFO);
	u64 len;
	int err;

	memset(buf, 0, KDT_CMD_MSG_SIZE);
	kdt_server_info_encode(&si, buf, KDT_CMD_MSG_SIZE);
	err = kdt_post1(&s->lctx, s->ep, true, &s->pool, SRV_SEND_INFO,
			KDT_CMD_MSG_SIZE, srv_cookie(s, SRV_SEND_INFO));
	return err ?: srv_dto(s, &s->reqt, SRV_SEND_INFO, &len);
}

/*
 * After Server_Info for a test: wait until the client connects to the
 * test (its first connection request), which shows it has Server_Info,
 * before the control connection is closed; closing right after the
 * send completed once cost OFA's client its Server_Info (flushed by the
 * close). Bounded by the test's own connection timeout; a test that
 * ends or fails meanwhile ends the wait too.
 * Return: 0 or -EINTR.
 */
static int srv_wait_client(struct kdt_server *s, struct kdt_ctx *ctx)
{
	long left;

	left = wait_event_interruptible_timeout(ctx->sync_wq,
						atomic_read(&ctx->requests) ||
						kdt_failed(ctx) ||
						completion_done(&ctx->done),
						msecs_to_jiffies(KDT_CONN_TIMEOUT_MS));
	return left < 0 ? -EINTR : 0;
}

/* Why this server will not run @cmd, or NULL. */
static const char *srv_limits(const struct kdt_transaction_cmd *cmd)
{
	unsigned int i;

	if (cmd->num_threads > KDT_SRV_MAX_THREADS)
		return "more threads than this server runs (16)";
	if ((u64)cmd->num_threads * cmd->eps_per_thread > KDT_SRV_MAX_EPS)
		return "more endpoints than this server runs (64)";
	for (i = 0; i < cmd->num_ops; i++) {
		if (cmd->op[i].num_segs > KDT_MAX_SEGS)
			return "more segments per op than kDAPL takes (8)";
		if ((u64)kdt_seg_round(cmd->op[i].seg_size) *
		    cmd->op[i].num_segs > KDT_SRV_MAX_OP_BYTES)
			return "an op larger than this server allocates (4 MiB)";
	}
	return NULL;
}

/*
 * A transaction test for this client: decode and check its command, set
 * up every thread (service points included) here, start the threads.
 * Return: the first port, or 0 after srv_reject().
 */
static u32 srv_transaction(struct kdt_server *s, const u8 *msg)
{
	struct kdt_ctx *ctx;
	const char *why;
	unsigned int i;
	u32 eps;
	int err;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx) {
		srv_reject(s, "no memory for a test");
		return 0;
	}
	kdt_ctx_init(ctx, true, s->file);
	ctx->ia = s->lctx.ia;
	ctx->debug = s->lctx.debug;
	ctx->test_no = s->clients;
	err = kdt_transaction_cmd_decode(&ctx->cmd, msg, KDT_CMD_MSG_SIZE);
	why = err ? "malformed transaction command (more than 100 ops)" :
	      ctx->cmd.dapltest_version != KDT_DAPLTEST_VERSION ?
	      "transaction command of another dapltest version" :
	      kdt_transaction_cmd_check(&ctx->cmd) ?:
	      srv_limits(&ctx->cmd);
	if (why) {
		srv_reject(s, "%s", why);
		kfree(ctx);
		return 0;
	}
	eps = ctx->cmd.num_threads * ctx->cmd.eps_per_thread;
	if (s->next_port + eps > s->port + KDT_PORT_SPAN)
		s->next_port = s->port + 1;
	ctx->sinfo.first_port_number = s->next_port;
	s->next_port += eps;

	err = kdt_tt_alloc(ctx);
	for (i = 0; !err && i < ctx->nthreads; i++)
		err = kdt_tt_setup_thread(&ctx->threads[i]);
	if (err) {
		srv_reject(s, "cannot set the test up: %s", ctx->message);
		kdt_tt_free(ctx);
		kfree(ctx);
		return 0;
	}
	atomic_inc(&s->file->tests_running);
	list_add_tail(&ctx->node, &s->tests);
	/* a failed start fails the test; the client sees it soon enough */
	kdt_tt_start(ctx, false);
	s->started = ctx;
	if (ctx->debug)
		pr_info("kdapltest: server: test %u: %u threads x %u EPs from port %u\n",
			ctx->test_no, ctx->cmd.num_threads,
			ctx->cmd.eps_per_thread, ctx->sinfo.first_port_number);
	return ctx->sinfo.first_port_number;
}

/*
 * A performance test for this client: its endpoint and service point
 * here, the rest on its thread. Return: its port, or 0 after
 * srv_reject().
 */
static u32 srv_performance(struct kdt_server *s, const u8 *msg)
{
	struct kdt_perf *p;
	const char *why;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p) {
		srv_reject(s, "no memory for a test");
		return 0;
	}
	kdt_ctx_init(&p->ctx, true, s->file);
	p->ctx.is_perf = true;
	p->ctx.ia = s->lctx.ia;
	p->ctx.debug = s->lctx.debug;
	p->ctx.test_no = s->clients;
	why = kdt_perf_cmd_decode(&p->cmd, msg, KDT_CMD_MSG_SIZE) ?
	      "malformed performance command" : kdt_perf_check(&p->cmd);
	if (why) {
		srv_reject(s, "%s", why);
		kfree(p);
		return 0;
	}
	if (s->next_port + 1 > s->port + KDT_PORT_SPAN)
		s->next_port = s->port + 1;
	p->port = s->next_port++;
	atomic_inc(&s->file->tests_running);
	list_add_tail(&p->ctx.node, &s->tests);
	if (kdt_perf_server_start(p)) {
		srv_reject(s, "cannot set the test up: %s", p->ctx.message);
		return 0;
	}
	s->started = &p->ctx;
	return p->port;
}

/*
 * Serve one client on the control endpoint.
 * Return: 0 for the next one, 1 when asked to quit, -EINTR on a signal,
 * another negative errno when the server cannot go on.
 */
static int srv_client(struct kdt_server *s)
{
	struct kdt_client_info ci;
	DAT_CR_HANDLE cr;
	u32 first_port = 0;
	DAT_EVENT ev;
	u64 len;
	int err;

	err = srv_post_recvs(s);
	if (err)
		return err;
	err = srv_wait(s, &s->creq, &ev, 0);
	if (err)
		return err;
	if (ev.event_number != DAT_CONNECTION_REQUEST_EVENT)
		return 0;
	s->clients++;
	cr = ev.event_data.cr_arrival_event_data.cr_handle;
	if (dat_cr_accept(cr, s->ep, 0, NULL) != DAT_SUCCESS) {
		srv_reject(s, "dat_cr_accept failed");
		srv_hangup(s, false);
		return 0;
	}
	err = srv_conn(s, DAT_CONNECTION_EVENT_ESTABLISHED,
		       KDT_CONN_TIMEOUT_MS);
	if (err) {
		if (err == -EINTR)
			return err;
		srv_reject(s, "the connection was not established (%d)", err);
		goto hangup;
	}

	err = srv_dto(s, &s->recv, SRV_RECV_INFO, &len);
	if (!err && len != KDT_CMD_MSG_SIZE) {
		srv_reject(s, "Client_Info: %llu bytes, expected %u (truncated)",
			   len, KDT_CMD_MSG_SIZE);
		goto hangup;
	}
	if (err)
		goto rx_error;
	kdt_client_info_decode(&ci, kdt_seg(&s->pool, SRV_RECV_INFO),
			       KDT_CMD_MSG_SIZE);
	err = srv_dto(s, &s->recv, SRV_RECV_CMD, &len);
	if (!err && len != KDT_CMD_MSG_SIZE) {
		srv_reject(s, "command: %llu bytes, expected %u (truncated)",
			   len, KDT_CMD_MSG_SIZE);
		goto hangup;
	}
	if (err)
		goto rx_error;
	if (ci.dapltest_version != KDT_DAPLTEST_VERSION) {
		srv_reject(s, "DAPLTEST VERSION MISMATCH: server %u, client %u",
			   KDT_DAPLTEST_VERSION, ci.dapltest_version);
		goto hangup;
	}

	s->started = NULL;
	switch (ci.test_type) {
	case KDT_TEST_TRANSACTION:
		first_port = srv_transaction(s, kdt_seg(&s->pool, SRV_RECV_CMD));
		if (!first_port)
			goto hangup;
		break;
	case KDT_TEST_PERFORMANCE:
		first_port = srv_performance(s, kdt_seg(&s->pool, SRV_RECV_CMD));
		if (!first_port)
			goto hangup;
		break;
	case KDT_TEST_QUIT:
		pr_info("kdapltest: server: client %u asks the server to quit\n",
			s->clients);
		break;
	case KDT_TEST_LIMIT:
		/* client side only, as OFA's server answers it */
		break;
	default:
		srv_reject(s, "unknown test type %u (%s)", ci.test_type,
			   kdt_test_type_name(ci.test_type));
		goto hangup;
	}
	err = srv_send_info(s, first_port);
	if (err == -EINTR)
		return err;
	if (!err && s->started)
		err = srv_wait_client(s, s->started);
	s->started = NULL;
	if (err)
		pr_warn("kdapltest: server: client %u: Server_Info not sent (%d)\n",
			s->clients, err);
	srv_hangup(s, ci.test_type != KDT_TEST_QUIT);
	return ci.test_type == KDT_TEST_QUIT ? 1 : 0;

rx_error:
	if (err == -EINTR)
		return err;
	srv_reject(s, "%s", err == -ECONNRESET ?
		   "the client went away before sending its request" :
		   err == -ETIMEDOUT ? "no request from the client in time" :
		   "bad completion on the control endpoint");
hangup:
	srv_hangup(s, false);
	return 0;
}

static int srv_open(struct kdt_server *s)
{
	struct kdt_run *run = s->run;
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_RETURN ret;

	ret = dat_ia_open(run->ia_name, KDT_ASYNC_QLEN, &async, &s->lctx.ia);
	if (ret != DAT_SUCCESS) {
		s->lctx.ia = DAT_HANDLE_NULL;
		kdt_fail(&s->lctx, -ENODEV, "cannot open IA %s: %s (%#x)",
			 run->ia_name, kdt_dat_str(ret), ret);
		return -ENODEV;
	}
	ret = dat_pz_create(s->lctx.ia, &s->pz);
	if (ret == DAT_SUCCESS)
		ret = kdt_evd_create(&s->lctx, 8, DAT_EVD_DTO_FLAG, &s->recv);
	if (ret == DAT_SUCCESS)
		ret = kdt_evd_create(&s->lctx, 8, DAT_EVD_DTO_FLAG, &s->reqt);
	if (ret == DAT_SUCCESS)
		ret = kdt_evd_create(&s->lctx, 8, DAT_EVD_CR_FLAG, &s->creq);
	if (ret == DAT_SUCCESS)
		ret = kdt_evd_create(&s->lctx, 8, DAT_EVD_CONNECTION_FLAG,
				     &s->conn);
	if (ret == DAT_SUCCESS)
		ret = dat_ep_create(s->lctx.ia, s->pz, s->recv.h, s->reqt.h,
				    s->conn.h, NULL, &s->ep);
	if (ret != DAT_SUCCESS) {
		kdt_fail(&s->lctx, -EIO, "control endpoint: %s (%#x)",
			 kdt_dat_str(ret), ret);
		return -EIO;
	}
	if (kdt_pool_alloc(&s->lctx, s->pz, &s->pool, KDT_CMD_MSG_SIZE,
			   SRV_BUFS))
		return -ENOMEM;
	ret = dat_psp_create(s->lctx.ia, s->port, s->creq.h,
			     DAT_PSP_CONSUMER_FLAG, &s->psp);
	if (ret != DAT_SUCCESS) {
		s->psp = DAT_HANDLE_NULL;
		kdt_fail(&s->lctx, -EADDRINUSE, "dat_psp_create port %u: %s (%#x)",
			 s->port, kdt_dat_str(ret), ret);
		return -EADDRINUSE;
	}
	return 0;
}

static void srv_close(struct kdt_server *s)
{
	if (s->ep) {
		srv_hangup(s, false);
		dat_ep_free(s->ep);
	}
	if (s->psp)
		dat_psp_free(s->psp);
	kdt_pool_free(&s->pool);
	kdt_evd_free(&s->conn);
	kdt_evd_free(&s->creq);
	kdt_evd_free(&s->reqt);
	kdt_evd_free(&s->recv);
	if (s->pz)
		dat_pz_free(s->pz);
	if (s->lctx.ia)
		dat_ia_close(s->lctx.ia, DAT_CLOSE_ABRUPT_FLAG);
}

/**
 * kdt_server_run() - the dapltest server (-T S) of KDT_IOC_RUN
 * @run: the request (IA, port, debug); @run->result is filled
 * @f: the open file: READY once listening, the counters
 *
 * Serves until a client sends QUIT (result status 0) or a signal
 * (-EINTR); the tests still running are then waited for (after a
 * signal: failed first).
 * Return: 0 when the run could be attempted, -ENOMEM.
 */
int kdt_server_run(struct kdt_run *run, struct kdt_file *f)
{
	struct kdt_result *res = &run->result;
	struct kdt_server *s;
	struct kdt_ctx *ctx;
	int err;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	s->run = run;
	s->file = f;
	kdt_ctx_init(&s->lctx, true, NULL);
	s->lctx.debug = run->flags & KDT_RUN_DEBUG;
	INIT_LIST_HEAD(&s->tests);
	s->port = run->server_port;
	s->next_port = s->port + 1;
	s->gen = 1;

	err = srv_open(s);
	if (!err) {
		f->port = s->port;
		atomic_set(&f->state, KDT_STATE_READY);
		pr_info("kdapltest: server: Service Point Ready - %s port %u\n",
			run->ia_name, s->port);
		do {
			err = srv_client(s);
		} while (!err);
	}
	if (err == -EINTR) {
		list_for_each_entry(ctx, &s->tests, node)
			kdt_fail(ctx, -EINTR, "the server was interrupted");
	}
	srv_reap(s, true);
	srv_close(s);

	if (s->lctx.failed) {
		res->status = s->lctx.status;
		strscpy(res->message, s->lctx.message, sizeof(res->message));
	} else if (err < 0) {
		res->status = err;
		snprintf(res->message, sizeof(res->message), "%s",
			 err == -EINTR ? "interrupted" : "the server failed");
	} else {
		strscpy(res->message, "quit", sizeof(res->message));
	}
	res->tests_done = s->done;
	res->tests_failed = s->failed;
	res->rejected = s->rejected;
	pr_info("kdapltest: server %s: exiting after %u clients: %u tests done, %u failed, %u refused\n",
		run->ia_name, s->clients, s->done, s->failed, s->rejected);
	kfree(s);
	return 0;
}
