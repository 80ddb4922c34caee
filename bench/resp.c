// SPDX-License-Identifier: GPL-2.0
/*
 * kdapl_bench.ko: the responder, the passive end of the data tests, which
 * needs nobody on its side.
 *
 * "respond ia=<dev> port=<n>" opens an IA on <dev> with a PSP whose CR
 * EVD has an upcall. A data test's connection request says in its private
 * data what the active end will do (struct bench_pd_req); the responder's
 * work item makes a passive end for it - DTO and connection EVDs with
 * upcalls, a PZ with a data and a control LMR, an EP - posts one receive
 * and accepts with the data LMR's rmr_context and address (struct
 * bench_pd_rep). The active end speaks first ("go": iWARP's responder
 * must not send before the initiator's first FPDU, RFC 5044, which siw
 * enforces); on it and the connection's ESTABLISHED, whichever comes
 * last (on IB the "go" can overtake the RTU), the responder sends its
 * hello, posts the test's receives and sends "ready". From then on the
 * DTO upcall echoes (ping-pong) or returns SEND credits by itself, and
 * RDMA WRITE and READ need nothing of it. DISCONNECTED or BROKEN hand the
 * end to the work item, which frees it. So the active end (dat.c) may
 * be in this guest or in another one (the two-guest topology of make
 * bench), and both topologies measure the same code.
 *
 * Lifetimes and locking: the responders live from "respond" to
 * "unrespond" or unload, changed only under bench_mutex. A struct
 * bench_rconn lives from its request until the work item (or the stop)
 * frees it: its EVDs' upcalls are torn down first (DAT_UPCALL_TEARDOWN
 * waits for a running upcall), so no upcall sees it freed. resp->lock
 * (taken _bh: the upcalls run in softirq) protects the lists and the
 * pending requests.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/list.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "bench.h"
#include "dat.h"

#define BENCH_MAX_RESP		4
#define BENCH_RESP_PENDING	16	/* requests waiting for the work */

/**
 * struct bench_resp - one responder ("respond")
 * @l: its IA, PZ and PSP; the PSP's CR EVD's upcall queues requests for
 *	@work; l.name "" when the slot is free
 * @work: makes ends for @pending requests, frees ends on @gone
 * @lock: protects @pending, @npending, @conns, @gone, @stopping
 * @pending: connection requests not yet taken by @work
 * @npending: entries in @pending
 * @conns: ends being made or connected
 * @gone: ends whose connection ended, to free
 * @stopping: no new request is taken
 * @served: connections accepted (reported by "unrespond")
 * @cpu: the CPU @work runs on, where the ends' EVDs are created, or
 *	WORK_CPU_UNBOUND
 */
struct bench_resp {
	struct bench_listen l;
	struct work_struct work;
	spinlock_t lock;	/* see above */
	DAT_CR_HANDLE pending[BENCH_RESP_PENDING];
	u32 npending;
	struct list_head conns;
	struct list_head gone;
	bool stopping;
	u32 served;
	int cpu;
};

/**
 * struct bench_rconn - the responder's end of one connection
 * @node: on resp->conns, then resp->gone
 * @resp: its responder
 * @test: what the active end does (from the request)
 * @size: message size (from the request)
 * @dto: DTO EVD, upcall rconn_dto_upcall
 * @conn: connection EVD, upcall rconn_conn_upcall
 * @pz: its own PZ: kdapl posts a PZ's pending LMR registrations on the
 *	next QP of the PZ that sends, so with a PZ shared with older
 *	connections the data LMR's could go on one of theirs, unordered
 *	with this connection's "ready"
 * @ep: the EP
 * @data: @size bytes: RDMA target, receive buffer, echo source
 * @ctl: page 0 the hello and credit messages
 * @recvd: receives completed (credit pacing); the DTO upcall's only
 *	(DAT_UPCALL_SINGLE_INSTANCE)
 * @started: the peer's "go" came; the DTO upcall's only
 * @gate: the start waits for the "go" and the connection's ESTABLISHED,
 *	whichever comes last starts: a DTO can arrive before the connection
 *	event (on IB the "go" can overtake the RTU, and posting a send
 *	before ESTABLISHED is DAT_INVALID_STATE)
 * @ending: on resp->gone or being freed (resp->lock)
 */
struct bench_rconn {
	struct list_head node;
	struct bench_resp *resp;
	enum bench_test test;
	u32 size;
	DAT_EVD_HANDLE dto;
	DAT_EVD_HANDLE conn;
	DAT_PZ_HANDLE pz;
	DAT_EP_HANDLE ep;
	struct bench_mem data;
	struct bench_mem ctl;
	u32 recvd;
	bool started;
	atomic_t gate;
	bool ending;
};

static struct bench_resp bench_resps[BENCH_MAX_RESP];
static const DAT_DTO_COOKIE no_cookie = { .as_64 = 0 };

/* Receives to post: the SEND test's ring, one for the ping-pong. */
static u32 rconn_recvs(const struct bench_rconn *rc)
{
	return rc->test == BT_SEND ? BENCH_RQ : rc->test == BT_LAT ? 1 : 0;
}

static void rconn_post_recv(struct bench_rconn *rc)
{
	DAT_LMR_TRIPLET t = bench_trip(&rc->data, 0, rc->size);

	if (dat_ep_post_recv(rc->ep, 1, &t, no_cookie, 0) != DAT_SUCCESS)
		pr_warn_ratelimited("responder: receive not posted\n");
}

/*
 * The peer's "go": the hello (its send posts the LMRs' registrations ahead
 * of it, on this QP: the receives larger than a page go after it, see
 * dat.c, dconn_open), the test's receives, "ready".
 */
static void rconn_start(struct bench_rconn *rc)
{
	DAT_LMR_TRIPLET t = bench_trip(&rc->ctl, 0, BENCH_HELLO_LEN);
	u32 i;

	if (dat_ep_post_send(rc->ep, 1, &t, no_cookie, 0) != DAT_SUCCESS)
		pr_warn_ratelimited("responder: hello not posted\n");
	for (i = 0; i < rconn_recvs(rc); i++)
		rconn_post_recv(rc);
	if (dat_ep_post_send(rc->ep, 1, &t, no_cookie, 0) != DAT_SUCCESS)
		pr_warn_ratelimited("responder: ready not posted\n");
}

/* The "go" and ESTABLISHED: the second of them starts. Either upcall. */
static void rconn_gate(struct bench_rconn *rc)
{
	if (atomic_dec_and_test(&rc->gate))
		rconn_start(rc);
}

/* Start; then echo, repost, return credits. Softirq, the EVD's CPU. */
static void rconn_dto_upcall(DAT_PVOID data, const DAT_EVENT *ev,
			     DAT_BOOLEAN more)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d =
		&ev->event_data.dto_completion_event_data;
	struct bench_rconn *rc = data;
	DAT_LMR_TRIPLET t;

	if (ev->event_number != DAT_DTO_COMPLETION_EVENT ||
	    d->status == DAT_DTO_ERR_FLUSHED)
		return;
	if (d->status != DAT_DTO_SUCCESS) {
		pr_warn_ratelimited("responder: DTO %d status %d\n",
				    d->operation, d->status);
		return;
	}
	if (d->operation != DAT_DTO_RECEIVE)
		return;
	if (!rc->started) {
		rc->started = true;
		rconn_gate(rc);
		return;
	}
	/*
	 * The receive goes back first: the peer's next message may come as
	 * soon as it has the echo. The echo's source is the receive's buffer,
	 * which nothing overwrites before the peer got the echo.
	 */
	rconn_post_recv(rc);
	if (rc->test == BT_LAT) {
		t = bench_trip(&rc->data, 0, d->transfered_length);
		if (dat_ep_post_send(rc->ep, 1, &t, no_cookie, 0) !=
		    DAT_SUCCESS)
			pr_warn_ratelimited("responder: echo not posted\n");
	}
	if (rc->test == BT_SEND && ++rc->recvd % BENCH_CREDIT_EVERY == 0) {
		t = bench_trip(&rc->ctl, BENCH_CREDIT_OFF, BENCH_CREDIT_LEN);
		if (dat_ep_post_send(rc->ep, 1, &t, no_cookie, 0) !=
		    DAT_SUCCESS)
			pr_warn_ratelimited("responder: credit not posted\n");
	}
}

/* The end of the connection: to the work item. Softirq. */
static void rconn_conn_upcall(DAT_PVOID data, const DAT_EVENT *ev,
			      DAT_BOOLEAN more)
{
	struct bench_rconn *rc = data;
	struct bench_resp *rs = rc->resp;

	if (ev->event_number == DAT_CONNECTION_EVENT_ESTABLISHED) {
		rconn_gate(rc);
		return;
	}
	spin_lock_bh(&rs->lock);
	if (!rs->stopping && !rc->ending) {
		rc->ending = true;
		list_move_tail(&rc->node, &rs->gone);
		queue_work_on(rs->cpu, system_wq, &rs->work);
	}
	spin_unlock_bh(&rs->lock);
}

/* Free an end: no upcall runs or starts once the teardowns returned. */
static void rconn_free(struct bench_rconn *rc)
{
	if (rc->dto)
		dat_evd_modify_upcall(rc->dto, DAT_UPCALL_TEARDOWN,
				      DAT_UPCALL_SAME, DAT_UPCALL_INVOC_NEW);
	if (rc->conn)
		dat_evd_modify_upcall(rc->conn, DAT_UPCALL_TEARDOWN,
				      DAT_UPCALL_SAME, DAT_UPCALL_INVOC_NEW);
	if (rc->ep)
		dat_ep_free(rc->ep);	/* aborts a live connection */
	bench_mem_close(&rc->data);
	bench_mem_close(&rc->ctl);
	if (rc->pz)
		dat_pz_free(rc->pz);
	if (rc->dto)
		dat_evd_free(rc->dto);
	if (rc->conn)
		dat_evd_free(rc->conn);
	kfree(rc);
}

/* What the request asks for, or -EINVAL. */
static int rconn_parse(struct bench_rconn *rc, DAT_CR_HANDLE cr)
{
	const struct bench_pd_req *pd;
	DAT_CR_PARAM p = {};

	if (dat_cr_query(cr, DAT_CR_FIELD_ALL, &p) != DAT_SUCCESS ||
	    p.private_data_size < (DAT_COUNT)sizeof(*pd) || !p.private_data)
		return -EINVAL;
	pd = p.private_data;
	if (le32_to_cpu(pd->magic) != BENCH_PD_MAGIC)
		return -EINVAL;
	rc->test = le32_to_cpu(pd->test);
	rc->size = le32_to_cpu(pd->size);
	if (rc->test < BT_WRITE || rc->test > BT_LAT || !rc->size ||
	    rc->size > BENCH_MAX_SIZE)
		return -EINVAL;
	return 0;
}

/* Make an end for @cr and accept, or reject it. Process context. */
static void resp_take(struct bench_resp *rs, DAT_CR_HANDLE cr)
{
	DAT_EP_ATTR attr = {
		.service_type = DAT_SERVICE_TYPE_RC,
		.max_recv_dtos = BENCH_RQ + 2,	/* and "go" */
		.max_request_dtos = BENCH_RQ + 8,
		.max_rdma_read_in = 16,
		.max_rdma_read_out = 16,
	};
	struct bench_pd_rep rep;
	struct bench_rconn *rc;
	DAT_UPCALL_OBJECT up;
	DAT_LMR_TRIPLET t;
	int err = -ENOMEM;

	rc = kzalloc(sizeof(*rc), GFP_KERNEL);
	if (!rc)
		goto reject;
	rc->resp = rs;
	INIT_LIST_HEAD(&rc->node);
	atomic_set(&rc->gate, 2);
	err = rconn_parse(rc, cr);
	if (err)
		goto reject;
	up = (DAT_UPCALL_OBJECT){ rc, rconn_dto_upcall };
	err = dat_chk("dto evd", dat_evd_kcreate(rs->l.ia, BENCH_EVD_QLEN,
						 DAT_UPCALL_SINGLE_INSTANCE,
						 &up, DAT_EVD_DTO_FLAG,
						 &rc->dto));
	if (err) {
		rc->dto = DAT_HANDLE_NULL;
		goto reject;
	}
	up = (DAT_UPCALL_OBJECT){ rc, rconn_conn_upcall };
	err = dat_chk("conn evd", dat_evd_kcreate(rs->l.ia, 16,
						  DAT_UPCALL_SINGLE_INSTANCE,
						  &up, DAT_EVD_CONNECTION_FLAG,
						  &rc->conn));
	if (err) {
		rc->conn = DAT_HANDLE_NULL;
		goto reject;
	}
	err = dat_chk("dat_pz_create", dat_pz_create(rs->l.ia, &rc->pz));
	if (err) {
		rc->pz = DAT_HANDLE_NULL;
		goto reject;
	}
	err = bench_mem_open(&rc->data, rs->l.ia, rc->pz,
			     max_t(u32, rc->size, BENCH_FENCE_LEN));
	err = err ?: bench_mem_open(&rc->ctl, rs->l.ia, rc->pz, PAGE_SIZE);
	if (err)
		goto reject;
	err = dat_chk("dat_ep_create", dat_ep_create(rs->l.ia, rc->pz, rc->dto,
						     rc->dto, rc->conn, &attr,
						     &rc->ep));
	if (err) {
		rc->ep = DAT_HANDLE_NULL;
		goto reject;
	}
	/* The peer's "go": within one page, so before the connection. */
	t = bench_trip(&rc->ctl, 0, BENCH_HELLO_LEN);
	err = dat_chk("go recv", dat_ep_post_recv(rc->ep, 1, &t, no_cookie,
						  0));
	if (err)
		goto reject;
	rep.magic = cpu_to_le32(BENCH_PD_MAGIC);
	rep.rctx = cpu_to_le32(rc->data.rctx);
	rep.va = cpu_to_le64(rc->data.va);
	spin_lock_bh(&rs->lock);
	list_add_tail(&rc->node, &rs->conns);
	spin_unlock_bh(&rs->lock);
	/* The end is on the list before its first upcall can move it. */
	err = dat_chk("dat_cr_accept", dat_cr_accept(cr, rc->ep, sizeof(rep),
						     &rep));
	if (err) {
		spin_lock_bh(&rs->lock);
		list_del_init(&rc->node);
		rc->ending = true;
		spin_unlock_bh(&rs->lock);
		rconn_free(rc);
		return;
	}
	rs->served++;
	return;
reject:
	pr_warn_ratelimited("responder %s: request refused (%d)\n", rs->l.name,
			    err);
	dat_cr_reject(cr, 0, NULL);
	if (rc)
		rconn_free(rc);
}

static void resp_work(struct work_struct *w)
{
	struct bench_resp *rs = container_of(w, struct bench_resp, work);
	DAT_CR_HANDLE crs[BENCH_RESP_PENDING];
	struct bench_rconn *rc, *tmp;
	LIST_HEAD(gone);
	u32 n, i;

	spin_lock_bh(&rs->lock);
	n = rs->npending;
	memcpy(crs, rs->pending, n * sizeof(crs[0]));
	rs->npending = 0;
	list_splice_init(&rs->gone, &gone);
	spin_unlock_bh(&rs->lock);
	list_for_each_entry_safe(rc, tmp, &gone, node)
		rconn_free(rc);
	for (i = 0; i < n; i++)
		resp_take(rs, crs[i]);
}

/* A request: to the work item, which may sleep. Softirq. */
static void resp_cr_upcall(DAT_PVOID data, const DAT_EVENT *ev,
			   DAT_BOOLEAN more)
{
	DAT_CR_HANDLE cr = ev->event_data.cr_arrival_event_data.cr_handle;
	struct bench_resp *rs = data;
	bool taken = false;

	if (ev->event_number != DAT_CONNECTION_REQUEST_EVENT)
		return;
	spin_lock_bh(&rs->lock);
	if (!rs->stopping && rs->npending < BENCH_RESP_PENDING) {
		rs->pending[rs->npending++] = cr;
		taken = true;
		queue_work_on(rs->cpu, system_wq, &rs->work);
	}
	spin_unlock_bh(&rs->lock);
	if (!taken)
		dat_cr_reject(cr, 0, NULL);	/* upcall-safe */
}

static struct bench_resp *resp_find(const char *name)
{
	int i;

	for (i = 0; i < BENCH_MAX_RESP; i++)
		if (!strcmp(bench_resps[i].l.name, name))
			return &bench_resps[i];
	return NULL;
}

/* Stop and free @rs: no request is taken, every end goes. */
static void resp_free(struct bench_resp *rs)
{
	struct bench_rconn *rc, *tmp;
	LIST_HEAD(all);
	u32 i;

	spin_lock_bh(&rs->lock);
	rs->stopping = true;
	spin_unlock_bh(&rs->lock);
	/* No new request; one that comes meanwhile is rejected (stopping). */
	if (rs->l.psp)
		dat_psp_free(rs->l.psp);
	rs->l.psp = DAT_HANDLE_NULL;
	if (rs->l.cr)
		dat_evd_modify_upcall(rs->l.cr, DAT_UPCALL_TEARDOWN,
				      DAT_UPCALL_SAME, DAT_UPCALL_INVOC_NEW);
	cancel_work_sync(&rs->work);
	/* No upcall queues work now; what it left is ours. */
	spin_lock_bh(&rs->lock);
	list_splice_init(&rs->conns, &all);
	list_splice_init(&rs->gone, &all);
	spin_unlock_bh(&rs->lock);
	for (i = 0; i < rs->npending; i++)
		dat_cr_reject(rs->pending[i], 0, NULL);
	list_for_each_entry_safe(rc, tmp, &all, node)
		rconn_free(rc);
	bench_listen_close(&rs->l);
	memset(rs, 0, sizeof(*rs));
}

/**
 * bench_resp_start() - "respond": a responder on IA @ia, PSP @port
 * @ia: device name
 * @port: connection qualifier
 * @cpu: the CPU its ends' EVDs are created on, or BENCH_CPU_ANY
 *
 * Call from a task in @ia's network namespace (siw listens there).
 * Context: process context, bench_mutex held.
 * Return: 0 or a negative errno.
 */
int bench_resp_start(const char *ia, u16 port, u32 cpu)
{
	struct bench_resp *rs;
	DAT_UPCALL_OBJECT up;
	int err;

	if (!*ia)
		return -EINVAL;
	if (resp_find(ia))
		return -EEXIST;
	rs = resp_find("");
	if (!rs)
		return -ENOSPC;
	spin_lock_init(&rs->lock);
	INIT_LIST_HEAD(&rs->conns);
	INIT_LIST_HEAD(&rs->gone);
	INIT_WORK(&rs->work, resp_work);
	rs->stopping = false;
	rs->npending = 0;
	rs->served = 0;
	rs->cpu = cpu == BENCH_CPU_ANY ? WORK_CPU_UNBOUND : cpu;
	up = (DAT_UPCALL_OBJECT){ rs, resp_cr_upcall };
	err = bench_listen_open(&rs->l, ia, port, &up,
				DAT_UPCALL_SINGLE_INSTANCE);
	if (err)
		memset(rs, 0, sizeof(*rs));
	return err;
}

/**
 * bench_resp_stop() - "unrespond": free every responder
 *
 * Emits "<device>.served <n>" for each.
 * Context: process context, bench_mutex held.
 */
void bench_resp_stop(void)
{
	int i;

	for (i = 0; i < BENCH_MAX_RESP; i++) {
		if (!bench_resps[i].l.name[0])
			continue;
		bench_emit(bench_resps[i].l.name, "served",
			   bench_resps[i].served * 1000ULL);
		resp_free(&bench_resps[i]);
	}
}
