// SPDX-License-Identifier: GPL-2.0
/*
 * kdapl_bench.ko: measurements through the DAT API (kdapl.ko) over any
 * RDMA device: kiwarp's, siw's, rxe's.
 *
 * The data tests (write, read, send, lat) run the active end here and
 * connect to a responder (resp.c, "respond"), the passive end, in this
 * guest or in the other one of the two-guest topology: the request says
 * what the test does, the accept gives the responder's data region, the
 * responder's hello says its end is ready. Data then flows from DTO
 * upcalls only (softirq on the EVD's CPU): the active end keeps @depth
 * operations in flight and reposts from its upcall, the responder echoes
 * (ping-pong) or returns SEND credits from its own. The command thread
 * sleeps on a completion meanwhile.
 *
 * The setup-rate tests (conn, sconn) drive both ends from the command:
 * their passive end's IA and PSP are made by "serve" (from a task in the
 * passive device's namespace, for siw) and stay until "unserve".
 *
 * Lifetimes: the "serve" ends (struct bench_listen) live from "serve" to
 * "unserve" (both under bench_mutex). struct bench_dconn lives for one
 * command; its EVDs are freed (which waits for running upcalls) before
 * it is.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/in.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include <dat2/dat_iw_extensions.h>

#include "../kdapl/evd.h"	/* kdapl_evd_pending(): lost upcalls */

#include "bench.h"
#include "dat.h"

#define BENCH_MAX_SERVERS	4

/* The passive ends of the setup tests, made by "serve"; bench_mutex. */
static struct bench_listen bench_srvs[BENCH_MAX_SERVERS];

struct bench_drun;

/**
 * struct bench_end - one end of a benchmark connection
 * @dto: its DTO EVD (upcalls to bench_upcall_a with the connection)
 * @ep: its endpoint
 * @data: the messages: RDMA source/sink, SEND source, echo buffer
 * @ctl: BENCH_CTL_PAGES: page 0 the hello and credit messages, page 1
 *	the active end's ping-pong receive
 *
 * Two LMRs: one LMR is limited to the device's fast-registration page
 * list (256 pages on kiwarp and siw), which 1 MiB of data fills.
 */
struct bench_end {
	DAT_EVD_HANDLE dto;
	DAT_EP_HANDLE ep;
	struct bench_mem data;
	struct bench_mem ctl;
};

/**
 * struct bench_dconn - one connection of a measuring command
 * @run: the command
 * @a: the active end (on the command's IA)
 * @peer_rctx: the responder's data region (its accept's private data):
 *	rmr_context
 * @peer_va: and address
 * @lock: protects the counters below against the active end's upcalls
 *	and the command thread (taken with _bh from the thread)
 * @inflight: operations posted and not completed
 * @bytes: bytes completed in the current measured run
 * @ops: operations completed in the current measured run
 * @credits: SENDs the passive end has receives for
 * @setup_msgs: the responder's hello and ready messages received
 * @round: ping-pong rounds done
 * @t0: start of the current round
 * @sent: SENDs posted in this run (a run ends on a multiple of
 *	BENCH_CREDIT_EVERY, so that every credit comes back)
 * @stop: the deadline passed: post nothing more (but the above)
 * @fenced: the READ after the last WRITE completed: all WRITEs placed
 * @finished: counted off in @run->active for this measured run
 * @unsig: requests posted suppressed since the last signaled one
 * @batch: per signaled request in flight: how many requests its event
 *	completes (itself and the suppressed ones before it)
 * @bhead: index of the oldest in @batch (free running)
 * @btail: where the next goes in @batch (free running)
 * @lat_sends: ping-pong sends posted (which ones are signaled)
 * @post_ns: ping-pong: time inside dat_ep_post_recv() and
 *	dat_ep_post_send() this run, ns (the API's cost per round, beside
 *	the verbs test's ib_post_recv() and ib_post_send())
 */
struct bench_dconn {
	struct bench_drun *run;
	struct bench_end a;
	DAT_RMR_CONTEXT peer_rctx;
	DAT_VADDR peer_va;
	spinlock_t lock;	/* the counters below; see above */
	u32 inflight;
	u64 bytes;
	u64 ops;
	u32 credits;
	u32 setup_msgs;
	u32 round;
	ktime_t t0;
	u32 sent;
	bool stop;
	bool fenced;
	bool finished;
	u32 unsig;
	u32 batch[64];
	u32 bhead;
	u32 btail;
	u32 lat_sends;
	u64 post_ns;
};

/**
 * struct bench_drun - state of one measuring command
 * @test: the phase/test the upcalls act on
 * @size: message size
 * @depth: operations in flight per EP
 * @deadline: active ends stop posting after it
 * @active: connections still running in this measured run
 * @done: completed when @active drops to 0, on a hello or on an error
 * @err: first DTO error status seen (0 none)
 * @t_end: when the last connection finished
 * @rtt: ping-pong samples (ns)
 * @rounds: how many are wanted per run
 * @cpu_ev: DTO events seen by active-end upcalls, per CPU
 * @signal: every @signal-th request signaled (1: all)
 * @work_us: busy work per DTO event of a stream, us (struct bench_cmd)
 */
struct bench_drun {
	enum bench_test test;
	u32 size;
	u32 depth;
	u32 signal;
	u32 work_us;
	ktime_t deadline;
	atomic_t active;
	struct completion done;
	atomic_t err;
	ktime_t t_end;
	u64 *rtt;
	u32 rounds;
	atomic64_t cpu_ev[BENCH_MAX_CPUS];
};

/*
 * Event-driven waits of the setup tests (no sleep-polling): the command's
 * connection EVDs and the "serve" CR EVDs have a notify upcall
 * (DAT_UPCALL_NOTIFY: the event stays queued, the next upcall comes after
 * a dequeue) that wakes the command, which dequeues. Commands run one at
 * a time, so one wait queue serves them all.
 */
static DECLARE_WAIT_QUEUE_HEAD(bench_ev_wq);

/*
 * The one wait in progress (commands run one at a time and wait for one
 * EVD at a time): its EVD, and whether that EVD's own upcall came. Every
 * upcall wakes the wait queue, so a wait woken by another EVD's upcall
 * could take an event whose own upcall was lost; the wait therefore
 * takes an event only after its EVD's upcall, and one still queued
 * without it when the wait gives up is a lost notification, which fails
 * the wait (bench_wait_ev_ms()).
 */
static DAT_EVD_HANDLE bench_ev_waiting;
static bool bench_ev_hit;

static void bench_ev_notify(DAT_PVOID data, const DAT_EVENT *ev,
			    DAT_BOOLEAN more)
{
	if (ev->evd_handle == READ_ONCE(bench_ev_waiting))
		WRITE_ONCE(bench_ev_hit, true);
	wake_up_all(&bench_ev_wq);
}

DAT_UPCALL_OBJECT bench_ev_up = { NULL, bench_ev_notify };

/* No notify upcall runs on @evd once this returns. */
void bench_ev_untie(DAT_EVD_HANDLE evd)
{
	if (evd)
		dat_evd_modify_upcall(evd, DAT_UPCALL_TEARDOWN, DAT_UPCALL_SAME,
				      DAT_UPCALL_INVOC_NEW);
}

static struct bench_listen *srv_find(const char *name)
{
	int i;

	for (i = 0; i < BENCH_MAX_SERVERS; i++)
		if (!strcmp(bench_srvs[i].name, name))
			return &bench_srvs[i];
	return NULL;
}

/**
 * bench_listen_open() - IA @ia, its PZ, a PSP on @port
 * @l: where to keep them; freed with bench_listen_close()
 * @ia: device name
 * @port: connection qualifier
 * @up: an upcall for the PSP's CR EVD, or NULL (no upcall)
 * @policy: its policy (DAT_UPCALL_SINGLE_INSTANCE, DAT_UPCALL_NOTIFY)
 *
 * Call from a task in @ia's network namespace (siw listens there).
 * Return: 0, or -EIO with everything made freed.
 */
int bench_listen_open(struct bench_listen *l, const char *ia, u16 port,
		      DAT_UPCALL_OBJECT *up, DAT_UPCALL_POLICY policy)
{
	memset(l, 0, sizeof(*l));
	strscpy(l->name, ia, sizeof(l->name));
	l->port = port;
	l->async = DAT_HANDLE_NULL;
	if (dat_ia_open(l->name, 16, &l->async, &l->ia) != DAT_SUCCESS) {
		l->ia = DAT_HANDLE_NULL;
		goto fail;
	}
	if (dat_pz_create(l->ia, &l->pz) != DAT_SUCCESS) {
		l->pz = DAT_HANDLE_NULL;
		goto fail;
	}
	if (dat_evd_kcreate(l->ia, BENCH_EVD_QLEN,
			    up ? policy : DAT_UPCALL_DISABLE,
			    up, DAT_EVD_CR_FLAG, &l->cr) != DAT_SUCCESS) {
		l->cr = DAT_HANDLE_NULL;
		goto fail;
	}
	if (dat_psp_create(l->ia, port, l->cr, DAT_PSP_CONSUMER_FLAG,
			   &l->psp) != DAT_SUCCESS) {
		l->psp = DAT_HANDLE_NULL;
		goto fail;
	}
	return 0;
fail:
	pr_warn("IA %s with a PSP on %u failed\n", ia, port);
	bench_listen_close(l);
	return -EIO;
}

/**
 * bench_listen_close() - free what bench_listen_open() made
 * @l: it; an upcall of its CR EVD must be torn down already
 */
void bench_listen_close(struct bench_listen *l)
{
	if (l->psp)
		dat_psp_free(l->psp);
	if (l->cr)
		dat_evd_free(l->cr);
	if (l->pz)
		dat_pz_free(l->pz);
	if (l->ia)
		dat_ia_close(l->ia, DAT_CLOSE_ABRUPT_FLAG);
	memset(l, 0, sizeof(*l));
}

/**
 * bench_dat_serve() - open a passive end: IA @ia with a PSP on @port
 * @ia: device name
 * @port: connection qualifier
 *
 * Call from a task in @ia's network namespace (siw listens there).
 * Context: process context, bench_mutex held.
 * Return: 0 or a negative errno.
 */
int bench_dat_serve(const char *ia, u16 port)
{
	struct bench_listen *s;

	if (!*ia)
		return -EINVAL;
	if (srv_find(ia))
		return -EEXIST;
	s = srv_find("");
	if (!s)
		return -ENOSPC;
	return bench_listen_open(s, ia, port, &bench_ev_up, DAT_UPCALL_NOTIFY);
}

/**
 * bench_dat_unserve() - free every passive end
 *
 * Context: process context, bench_mutex held.
 */
void bench_dat_unserve(void)
{
	int i;

	for (i = 0; i < BENCH_MAX_SERVERS; i++) {
		if (!bench_srvs[i].name[0])
			continue;
		bench_ev_untie(bench_srvs[i].cr);
		bench_listen_close(&bench_srvs[i]);
	}
}

DAT_LMR_TRIPLET bench_trip(struct bench_mem *m, size_t off, size_t len)
{
	DAT_LMR_TRIPLET t = {
		.lmr_context = m->lctx,
		.virtual_address = m->va + off,
		.segment_length = len,
	};
	return t;
}

#define trip bench_trip

static const DAT_DTO_COOKIE no_cookie = { .as_64 = 0 };

/* One data operation of the active end; conn->lock held. */
static int post_one(struct bench_dconn *c)
{
	struct bench_drun *r = c->run;
	DAT_RMR_TRIPLET rt = {
		.rmr_context = c->peer_rctx,
		.virtual_address = c->peer_va,
		.segment_length = r->size,
	};
	DAT_LMR_TRIPLET t = trip(&c->a.data, 0, r->size);
	DAT_COMPLETION_FLAGS f;
	DAT_RETURN ret;
	bool sig;

	/*
	 * Signaled: every r->signal-th, the one that fills the window (the
	 * window would otherwise never complete) and, after the deadline,
	 * every one (the last of a run must complete).
	 */
	sig = c->unsig + 1 >= r->signal || c->inflight + 1 >= r->depth ||
	      c->stop;
	f = sig ? 0 : DAT_COMPLETION_SUPPRESS_FLAG;
	switch (r->test) {
	case BT_WRITE:
		ret = dat_ep_post_rdma_write(c->a.ep, 1, &t, no_cookie, &rt, f);
		break;
	case BT_READ:
		ret = dat_ep_post_rdma_read(c->a.ep, 1, &t, no_cookie, &rt, f);
		break;
	case BT_SEND:
		if (!c->credits)
			return -EAGAIN;
		ret = dat_ep_post_send(c->a.ep, 1, &t, no_cookie, f);
		if (ret == DAT_SUCCESS) {
			c->credits--;
			c->sent++;
		}
		break;
	default:
		return -EINVAL;
	}
	if (ret != DAT_SUCCESS) {
		pr_warn_ratelimited("post of test %d failed: %#x\n", r->test,
				    ret);
		return -EIO;
	}
	c->inflight++;
	if (!sig) {
		c->unsig++;
		return 0;
	}
	c->batch[c->btail++ % ARRAY_SIZE(c->batch)] = c->unsig + 1;
	c->unsig = 0;
	return 0;
}

/*
 * A ping-pong's send: every r->signal-th signaled (its completion is not
 * waited for: the answer is). conn->lock held.
 */
static DAT_COMPLETION_FLAGS lat_send_flags(struct bench_dconn *c)
{
	return ++c->lat_sends % c->run->signal ? DAT_COMPLETION_SUPPRESS_FLAG :
	       0;
}

/* Keep @depth operations in flight until the deadline; conn->lock held. */
static void refill(struct bench_dconn *c)
{
	struct bench_drun *r = c->run;

	if (!c->stop && ktime_after(ktime_get(), r->deadline))
		c->stop = true;
	while (c->inflight < r->depth) {
		/* after the deadline: a suppressed tail gets a signaled op */
		if (c->stop && !c->unsig && !(r->test == BT_SEND &&
					      c->sent % BENCH_CREDIT_EVERY))
			break;
		if (post_one(c))
			break;
	}
}

static void run_fail(struct bench_drun *r, int status);
static void conn_finished(struct bench_dconn *c);

/*
 * The run of @c ends when what it sent has arrived, not when it was
 * handed to TCP (which is when a SEND or WRITE completes): a SEND run
 * when every credit came back, a WRITE run when a READ posted after the
 * last WRITE completed (the responder answers it after placing them).
 * conn->lock held.
 */
static void conn_maybe_done(struct bench_dconn *c)
{
	struct bench_drun *r = c->run;
	DAT_RMR_TRIPLET rt = {
		.rmr_context = c->peer_rctx,
		.virtual_address = c->peer_va,
		.segment_length = BENCH_FENCE_LEN,
	};
	DAT_LMR_TRIPLET t;

	if (!c->stop || c->inflight || c->finished)
		return;
	if (r->test == BT_SEND && (c->sent % BENCH_CREDIT_EVERY ||
				   c->credits < BENCH_RQ))
		return;
	if (r->test == BT_WRITE && !c->fenced) {
		t = trip(&c->a.ctl, BENCH_FENCE_OFF, BENCH_FENCE_LEN);
		if (dat_ep_post_rdma_read(c->a.ep, 1, &t, no_cookie, &rt, 0) !=
		    DAT_SUCCESS)
			run_fail(r, -EIO);
		else
			c->inflight++;
		return;
	}
	conn_finished(c);
}

static void run_fail(struct bench_drun *r, int status)
{
	pr_warn_ratelimited("run failed in %ps: %d\n",
			    __builtin_return_address(0), status);
	if (atomic_cmpxchg(&r->err, 0, status ?: -EIO) == 0)
		complete(&r->done);
}

/* This connection's share of the measured run has ended; lock held. */
static void conn_finished(struct bench_dconn *c)
{
	struct bench_drun *r = c->run;

	if (c->finished)
		return;
	c->finished = true;
	if (atomic_dec_and_test(&r->active)) {
		r->t_end = ktime_get();
		complete(&r->done);
	}
}

/* Active end: count, refill, time round trips. Softirq, EVD's CPU. */
static void bench_upcall_a(DAT_PVOID data, const DAT_EVENT *ev,
			   DAT_BOOLEAN more)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d =
		&ev->event_data.dto_completion_event_data;
	struct bench_dconn *c = data;
	struct bench_drun *r = c->run;
	DAT_LMR_TRIPLET t;
	u64 p0;
	u32 n;

	if (ev->event_number != DAT_DTO_COMPLETION_EVENT)
		return;
	if (READ_ONCE(r->test) == BT_DOWN)
		return;
	if (d->status != DAT_DTO_SUCCESS) {
		pr_warn_ratelimited("active end: DTO %d status %d\n",
				    d->operation, d->status);
		run_fail(r, -EIO);
		return;
	}
	atomic64_inc(&r->cpu_ev[min_t(int, smp_processor_id(),
				      BENCH_MAX_CPUS - 1)]);
	/* the consumer's processing of a stream's completion, not locked */
	if (r->work_us && d->operation != DAT_DTO_RECEIVE) {
		enum bench_test t = READ_ONCE(r->test);

		if (t != BT_LAT && t != BT_SETUP)
			udelay(r->work_us);
	}
	spin_lock(&c->lock);
	switch (r->test) {
	case BT_SETUP:
		/* the responder's hello, then its "ready" */
		if (d->operation == DAT_DTO_RECEIVE && ++c->setup_msgs == 2)
			complete(&r->done);
		break;
	case BT_LAT:
		if (d->operation != DAT_DTO_RECEIVE || c->stop)
			break;
		r->rtt[c->round++] = ktime_to_ns(ktime_sub(ktime_get(), c->t0));
		if (c->round >= r->rounds) {
			c->stop = true;
			conn_finished(c);
			break;
		}
		t = trip(&c->a.ctl, BENCH_PONG_OFF, r->size);
		p0 = ktime_get_ns();
		if (dat_ep_post_recv(c->a.ep, 1, &t, no_cookie, 0) !=
		    DAT_SUCCESS) {
			run_fail(r, -EIO);
			break;
		}
		c->post_ns += ktime_get_ns() - p0;
		t = trip(&c->a.data, 0, r->size);
		c->t0 = ktime_get();
		if (dat_ep_post_send(c->a.ep, 1, &t, no_cookie,
				     lat_send_flags(c)) != DAT_SUCCESS)
			run_fail(r, -EIO);
		c->post_ns += ktime_get_ns() - ktime_to_ns(c->t0);
		break;
	case BT_SEND:
		if (d->operation == DAT_DTO_RECEIVE) {
			/* Credits; repost for the next credit message. */
			c->credits += BENCH_CREDIT_EVERY;
			t = trip(&c->a.ctl, BENCH_CREDIT_OFF,
				 BENCH_CREDIT_LEN);
			if (dat_ep_post_recv(c->a.ep, 1, &t, no_cookie, 0) !=
			    DAT_SUCCESS)
				run_fail(r, -EIO);
			refill(c);
			conn_maybe_done(c);
			break;
		}
		fallthrough;
	case BT_WRITE:
	case BT_READ:
		if (d->operation == DAT_DTO_RECEIVE)
			break;
		if (!c->inflight)
			break;
		if (r->test == BT_WRITE && d->operation == DAT_DTO_RDMA_READ) {
			c->inflight--;
			c->fenced = true;	/* not counted */
		} else {
			/* the signaled one and the suppressed before it */
			n = c->batch[c->bhead++ % ARRAY_SIZE(c->batch)];
			c->inflight -= min(n, c->inflight);
			c->ops += n;
			c->bytes += (u64)n * d->transfered_length;
			refill(c);
		}
		conn_maybe_done(c);
		break;
	default:
		break;
	}
	spin_unlock(&c->lock);
}

int bench_mem_open(struct bench_mem *m, DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz,
		   size_t len)
{
	DAT_REGION_DESCRIPTION rd;
	DAT_RETURN ret;
	DAT_VLEN reg;

	m->len = PAGE_ALIGN(len);
	m->buf = vzalloc(m->len);
	if (!m->buf)
		return -ENOMEM;
	rd.for_va = m->buf;
	ret = dat_lmr_kcreate(ia, DAT_MEM_TYPE_VIRTUAL, rd, m->len, pz,
			      DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA,
			      DAT_MEM_OPTIMIZE_DONT_CARE, &m->lmr, &m->lctx,
			      &m->rctx, &reg, &m->va);
	if (ret != DAT_SUCCESS) {
		m->lmr = DAT_HANDLE_NULL;
		return dat_fail("dat_lmr_kcreate", ret);
	}
	return 0;
}

void bench_mem_close(struct bench_mem *m)
{
	/* Still registered (in use, a registration pending): the device
	 * may write into it, so it is leaked, not freed.
	 */
	if (m->lmr && dat_lmr_free(m->lmr) != DAT_SUCCESS)
		pr_warn("LMR not freed: %zu bytes leaked\n", m->len);
	else
		vfree(m->buf);
	memset(m, 0, sizeof(*m));
}

/* Free what end_open made; the EP first (it holds the EVD). */
static void end_close(struct bench_end *e)
{
	if (e->ep)
		dat_ep_free(e->ep);
	bench_mem_close(&e->data);
	bench_mem_close(&e->ctl);
	if (e->dto)
		dat_evd_free(e->dto);
	memset(e, 0, sizeof(*e));
}

static int end_open(struct bench_end *e, DAT_IA_HANDLE ia, DAT_PZ_HANDLE pz,
		    DAT_EVD_HANDLE conn_evd, DAT_UPCALL_FUNC fn, void *data,
		    size_t len)
{
	DAT_UPCALL_OBJECT up = { data, fn };
	DAT_RETURN ret;
	DAT_EP_ATTR attr = {
		.service_type = DAT_SERVICE_TYPE_RC,
		.max_recv_dtos = BENCH_RQ + BENCH_CREDIT_RECVS,
		.max_request_dtos = 96,
		.max_rdma_read_in = 16,
		.max_rdma_read_out = 16,
	};
	int err;

	if (dat_evd_kcreate(ia, BENCH_EVD_QLEN, fn ? DAT_UPCALL_SINGLE_INSTANCE :
			    DAT_UPCALL_DISABLE, fn ? &up : NULL,
			    DAT_EVD_DTO_FLAG, &e->dto) != DAT_SUCCESS) {
		e->dto = DAT_HANDLE_NULL;
		return dat_fail("dat_evd_kcreate", 0);
	}
	err = bench_mem_open(&e->data, ia, pz, len);
	err = err ?: bench_mem_open(&e->ctl, ia, pz,
				    BENCH_CTL_PAGES * PAGE_SIZE);
	if (err)
		return err;
	ret = dat_ep_create(ia, pz, e->dto, e->dto, conn_evd, &attr, &e->ep);
	if (ret != DAT_SUCCESS) {
		e->ep = DAT_HANDLE_NULL;
		return dat_fail("dat_ep_create", ret);
	}
	return 0;
}

/* Try to take the next event of @evd: true once there is an answer. */
static bool ev_take(DAT_EVD_HANDLE evd, DAT_EVENT *ev, DAT_RETURN *ret)
{
	*ret = dat_evd_dequeue(evd, ev);
	return DAT_GET_TYPE(*ret) != DAT_QUEUE_EMPTY;
}

/* An upcall of the awaited EVD came, and an event could be taken. */
static bool ev_take_notified(DAT_EVD_HANDLE evd, DAT_EVENT *ev,
			     DAT_RETURN *ret)
{
	return READ_ONCE(bench_ev_hit) && ev_take(evd, ev, ret);
}

/* How long a queued event may wait for its upcall before it is lost. */
#define BENCH_UPCALL_LATE_MS	500

/**
 * bench_wait_ev_ms() - the next event of an EVD with the notify upcall
 * @evd: the EVD (DAT_UPCALL_NOTIFY, &bench_ev_up)
 * @ev: the event
 * @ms: how long to wait
 *
 * An event queued before the wait is taken at once (its upcall may have
 * come before). Once the queue was found empty, the next event must
 * bring its upcall (DAT_UPCALL_NOTIFY: one after each dequeue). When the
 * wait gives up with events queued (kdapl_evd_pending(), which leaves
 * them there), they get BENCH_UPCALL_LATE_MS more; still queued without
 * it, they were not notified (kdapltest's lost-wakeup check).
 *
 * Context: process context; one wait at a time.
 * Return: 0, -ETIMEDOUT, -EIO when the dequeue fails, -EPROTO for an
 * event without its upcall (left queued).
 */
int bench_wait_ev_ms(DAT_EVD_HANDLE evd, DAT_EVENT *ev, u32 ms)
{
	DAT_RETURN ret = DAT_QUEUE_EMPTY;
	char line[192];
	int err = 0;

	WRITE_ONCE(bench_ev_hit, false);
	WRITE_ONCE(bench_ev_waiting, evd);
	/*
	 * TASK_IDLE: a wait may be long (over rxe, an accepted end of a
	 * freed requester ends after the IB CM's retries, 74 s), and the
	 * hung-task detector reports an uninterruptible one past 60 s.
	 */
	if (ev_take(evd, ev, &ret) ||
	    wait_event_idle_timeout(bench_ev_wq,
				    ev_take_notified(evd, ev, &ret),
				    msecs_to_jiffies(ms)))
		goto out;
	err = -ETIMEDOUT;
	if (kdapl_evd_pending(evd, line, sizeof(line)) <= 0)
		goto out;
	/* queued, its upcall not (yet) come */
	if (wait_event_idle_timeout(bench_ev_wq,
				    ev_take_notified(evd, ev, &ret),
				    msecs_to_jiffies(BENCH_UPCALL_LATE_MS))) {
		err = 0;
		goto out;
	}
	if (kdapl_evd_pending(evd, line, sizeof(line)) > 0) {
		pr_warn("EVD %p: an event queued %u ms without its upcall: %s\n",
			evd, BENCH_UPCALL_LATE_MS, line);
		err = -EPROTO;
	}
out:
	WRITE_ONCE(bench_ev_waiting, NULL);
	if (err)
		return err;
	return ret == DAT_SUCCESS ? 0 : -EIO;
}

/* Next event of @evd (one with the notify upcall) within BENCH_WAIT_MS. */
int bench_wait_ev(DAT_EVD_HANDLE evd, DAT_EVENT *ev)
{
	return bench_wait_ev_ms(evd, ev, BENCH_WAIT_MS);
}

int bench_expect_ev(DAT_EVD_HANDLE evd, DAT_EVENT_NUMBER num, DAT_EVENT *ev)
{
	DAT_EVENT dummy;
	int err;

	if (!ev)
		ev = &dummy;
	err = bench_wait_ev(evd, ev);
	if (err) {
		pr_warn("no event %#x: %d\n", num, err);
		return err;
	}
	if (ev->event_number != num) {
		pr_warn("event %#x, expected %#x\n", ev->event_number, num);
		return -EPROTO;
	}
	return 0;
}

/*
 * The command's active side: its IA, PZ, connection EVD; for the setup
 * tests also the "serve" end (@srv) and its connection EVD @conn_b. The
 * peer is @sin, port @port.
 */
struct bench_side {
	DAT_IA_HANDLE ia;
	DAT_EVD_HANDLE async;
	DAT_PZ_HANDLE pz;
	DAT_EVD_HANDLE conn_a, conn_b;
	struct bench_listen *srv;
	struct sockaddr_in sin;
	u16 port;
};

/* @serve: the setup tests, whose passive end is ia_b's "serve". */
static int side_open(struct bench_side *s, const struct bench_cmd *cmd,
		     bool serve)
{
	memset(s, 0, sizeof(*s));
	if (serve) {
		s->srv = srv_find(cmd->ia_b);
		if (!s->srv)
			return -ENOENT;
	}
	if (!*cmd->ia_a)
		return -ENOENT;
	s->port = serve ? s->srv->port : cmd->port;
	s->sin.sin_family = AF_INET;
	if (!in4_pton(cmd->addr_b, -1, (u8 *)&s->sin.sin_addr.s_addr, -1,
		      NULL))
		return -EINVAL;
	s->async = DAT_HANDLE_NULL;
	if (dat_ia_open((char *)cmd->ia_a, 16, &s->async, &s->ia) != DAT_SUCCESS) {
		s->ia = DAT_HANDLE_NULL;
		return -ENODEV;
	}
	if (dat_pz_create(s->ia, &s->pz) != DAT_SUCCESS ||
	    dat_evd_kcreate(s->ia, BENCH_EVD_QLEN, DAT_UPCALL_NOTIFY,
			    &bench_ev_up, DAT_EVD_CONNECTION_FLAG,
			    &s->conn_a) != DAT_SUCCESS) {
		s->conn_a = DAT_HANDLE_NULL;
		return dat_fail("side_open", 0);
	}
	if (serve && dat_evd_kcreate(s->srv->ia, BENCH_EVD_QLEN,
				     DAT_UPCALL_NOTIFY, &bench_ev_up,
				     DAT_EVD_CONNECTION_FLAG, &s->conn_b) !=
	    DAT_SUCCESS) {
		s->conn_b = DAT_HANDLE_NULL;
		return dat_fail("side_open", 0);
	}
	return 0;
}

static void side_close(struct bench_side *s)
{
	bench_ev_untie(s->conn_a);
	bench_ev_untie(s->conn_b);
	if (s->conn_b)
		dat_evd_free(s->conn_b);
	if (s->ia)
		dat_ia_close(s->ia, DAT_CLOSE_ABRUPT_FLAG);
	memset(s, 0, sizeof(*s));
}

/* Connect @ea to the server through its PSP, accept with @eb. */
static int connect_pair(struct bench_side *s, DAT_EP_HANDLE ea,
			DAT_EP_HANDLE eb)
{
	DAT_EVENT ev;
	int err;

	err = dat_chk("dat_ep_connect",
		      dat_ep_connect(ea, (struct sockaddr *)&s->sin,
				     s->port, 5000000, 0, NULL,
				     DAT_QOS_BEST_EFFORT,
				     DAT_CONNECT_DEFAULT_FLAG));
	if (err)
		return err;
	err = bench_expect_ev(s->srv->cr, DAT_CONNECTION_REQUEST_EVENT, &ev);
	if (err)
		return err;
	err = dat_chk("dat_cr_accept",
		      dat_cr_accept(ev.event_data.cr_arrival_event_data
				    .cr_handle, eb, 0, NULL));
	if (err)
		return err;
	err = bench_expect_ev(s->conn_a, DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	return err ?: bench_expect_ev(s->conn_b, DAT_CONNECTION_EVENT_ESTABLISHED,
				NULL);
}

/*
 * Graceful disconnect from the active end; a "serve" end sees it too
 * (a responder frees its end by itself).
 */
static int disconnect_pair(struct bench_side *s, DAT_EP_HANDLE ea)
{
	int err;

	err = dat_chk("dat_ep_disconnect",
		      dat_ep_disconnect(ea, DAT_CLOSE_GRACEFUL_FLAG));
	if (err)
		return err;
	err = bench_expect_ev(s->conn_a, DAT_CONNECTION_EVENT_DISCONNECTED, NULL);
	if (err || !s->conn_b)
		return err;
	return bench_expect_ev(s->conn_b, DAT_CONNECTION_EVENT_DISCONNECTED, NULL);
}

static enum bench_test test_of(const char *name)
{
	if (!strcmp(name, "write"))
		return BT_WRITE;
	if (!strcmp(name, "read"))
		return BT_READ;
	if (!strcmp(name, "send"))
		return BT_SEND;
	if (!strcmp(name, "lat"))
		return BT_LAT;
	return BT_DOWN;
}

/*
 * One connection set up for @r: the active end, the connection to the
 * responder (the request says @test and the size, the accept gives the
 * responder's data region), the responder's hello, the credit receives.
 */
static int dconn_open(struct bench_dconn *c, struct bench_side *s,
		      struct bench_drun *r, enum bench_test test)
{
	struct bench_pd_req req = {
		.magic = cpu_to_le32(BENCH_PD_MAGIC),
		.test = cpu_to_le32(test),
		.size = cpu_to_le32(r->size),
	};
	const DAT_CONNECTION_EVENT_DATA *cd;
	const struct bench_pd_rep *rep;
	DAT_LMR_TRIPLET t;
	DAT_EVENT ev;
	int err, i;

	spin_lock_init(&c->lock);
	c->run = r;
	err = end_open(&c->a, s->ia, s->pz, s->conn_a, bench_upcall_a, c,
		       r->size);
	if (err)
		return err;
	/*
	 * Receives posted before the connection must stay within one page of
	 * the (vmalloc'd) LMR: one that crosses pages needs the LMR's
	 * registration, posted with the first send-side operation (lmr.c).
	 * The responder's two messages land in the control page: its hello
	 * (which posts its LMR's registration ahead of it), then, once its
	 * receives are posted behind the hello, "ready": data may flow. It
	 * sends them when our "go" arrived.
	 */
	t = trip(&c->a.ctl, 0, BENCH_HELLO_LEN);
	for (i = 0; !err && i < 2; i++)
		err = dat_chk("hello recv", dat_ep_post_recv(c->a.ep, 1, &t,
							     no_cookie, 0));
	if (err)
		return err;
	reinit_completion(&r->done);
	WRITE_ONCE(r->test, BT_SETUP);
	err = dat_chk("dat_ep_connect",
		      dat_ep_connect(c->a.ep, (struct sockaddr *)&s->sin,
				     s->port, 5000000, sizeof(req), &req,
				     DAT_QOS_BEST_EFFORT,
				     DAT_CONNECT_DEFAULT_FLAG));
	err = err ?: bench_expect_ev(s->conn_a, DAT_CONNECTION_EVENT_ESTABLISHED,
			       &ev);
	if (err)
		return err;
	cd = &ev.event_data.connect_event_data;
	rep = cd->private_data;
	if (!rep || cd->private_data_size < (DAT_COUNT)sizeof(*rep) ||
	    le32_to_cpu(rep->magic) != BENCH_PD_MAGIC) {
		pr_warn("the peer is no responder (%d bytes of private data)\n",
			cd->private_data_size);
		return -EPROTO;
	}
	c->peer_rctx = le32_to_cpu(rep->rctx);
	c->peer_va = le64_to_cpu(rep->va);
	/* We speak first (iWARP's startup rule): "go". */
	t = trip(&c->a.ctl, BENCH_GO_OFF, BENCH_GO_LEN);
	err = dat_chk("go send", dat_ep_post_send(c->a.ep, 1, &t, no_cookie,
						  0));
	if (err)
		return err;
	if (!wait_for_completion_timeout(&r->done,
					 msecs_to_jiffies(BENCH_WAIT_MS)))
		return -ETIMEDOUT;
	if (atomic_read(&r->err))
		return atomic_read(&r->err);
	for (i = 0; test == BT_SEND && i < BENCH_CREDIT_RECVS; i++) {
		t = trip(&c->a.ctl, BENCH_CREDIT_OFF, BENCH_CREDIT_LEN);
		err = dat_chk("credit recv", dat_ep_post_recv(c->a.ep, 1, &t,
							      no_cookie, 0));
		if (err)
			return err;
	}
	c->credits = BENCH_RQ;
	return 0;
}

static void dconn_close(struct bench_dconn *c, struct bench_side *s)
{
	DAT_EP_STATE st = DAT_EP_STATE_DISCONNECTED;

	if (c->a.ep && dat_ep_get_status(c->a.ep, &st, NULL, NULL) ==
	    DAT_SUCCESS && st == DAT_EP_STATE_CONNECTED)
		disconnect_pair(s, c->a.ep);
	end_close(&c->a);
}

/* One throughput run over all connections; returns the elapsed ns. */
static int run_stream(struct bench_drun *r, struct bench_dconn *cs, u32 n,
		      u32 ms, u64 *ns, u64 *bytes)
{
	ktime_t start;
	u32 i;

	reinit_completion(&r->done);
	atomic_set(&r->active, n);
	for (i = 0; i < BENCH_MAX_CPUS; i++)
		atomic64_set(&r->cpu_ev[i], 0);
	start = ktime_get();
	r->deadline = ktime_add_ms(start, ms);
	for (i = 0; i < n; i++) {
		spin_lock_bh(&cs[i].lock);
		cs[i].stop = false;
		cs[i].fenced = false;
		cs[i].finished = false;
		cs[i].sent = 0;
		cs[i].bytes = 0;
		cs[i].ops = 0;
		cs[i].unsig = 0;
		cs[i].bhead = 0;
		cs[i].btail = 0;
		refill(&cs[i]);
		if (!cs[i].inflight) {
			cs[i].stop = true;
			conn_maybe_done(&cs[i]);
		}
		spin_unlock_bh(&cs[i].lock);
	}
	if (!wait_for_completion_timeout(&r->done, msecs_to_jiffies(ms +
					 BENCH_WAIT_MS)))
		return -ETIMEDOUT;
	if (atomic_read(&r->err))
		return atomic_read(&r->err);
	*ns = ktime_to_ns(ktime_sub(r->t_end, start));
	*bytes = 0;
	for (i = 0; i < n; i++)
		*bytes += cs[i].bytes;
	return 0;
}

static int run_lat(struct bench_drun *r, struct bench_dconn *c)
{
	DAT_LMR_TRIPLET t;
	int err = 0;

	reinit_completion(&r->done);
	atomic_set(&r->active, 1);
	spin_lock_bh(&c->lock);
	c->stop = false;
	c->finished = false;
	c->round = 0;
	c->post_ns = 0;
	t = trip(&c->a.ctl, BENCH_PONG_OFF, r->size);
	if (dat_ep_post_recv(c->a.ep, 1, &t, no_cookie, 0) != DAT_SUCCESS)
		err = -EIO;
	t = trip(&c->a.data, 0, r->size);
	c->t0 = ktime_get();
	if (!err && dat_ep_post_send(c->a.ep, 1, &t, no_cookie,
				     lat_send_flags(c)) != DAT_SUCCESS)
		err = -EIO;
	spin_unlock_bh(&c->lock);
	if (err)
		return err;
	if (!wait_for_completion_timeout(&r->done, msecs_to_jiffies(60000)))
		return -ETIMEDOUT;
	return atomic_read(&r->err);
}

static int dat_data(const struct bench_cmd *cmd, enum bench_test test)
{
	struct bench_dconn *cs;
	struct bench_drun *r;
	struct bench_side s;
	struct bench_cost cost;
	u64 ns, bytes, ev, ops;
	char what[16];
	u32 i, rep;
	int err;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	cs = kcalloc(cmd->conns, sizeof(*cs), GFP_KERNEL);
	if (!r || !cs) {
		kfree(r);
		kfree(cs);
		return -ENOMEM;
	}
	init_completion(&r->done);
	r->size = cmd->size;
	r->depth = cmd->depth;
	r->signal = cmd->signal ?: 1;
	r->work_us = cmd->work;
	r->rounds = cmd->rounds;
	r->test = BT_DOWN;
	if (test == BT_LAT) {
		r->rtt = kvcalloc(cmd->rounds, sizeof(u64), GFP_KERNEL);
		if (!r->rtt) {
			err = -ENOMEM;
			goto out_free;
		}
	}
	err = side_open(&s, cmd, false);
	for (i = 0; !err && i < cmd->conns; i++)
		err = dconn_open(&cs[i], &s, r, test);
	if (err)
		goto out_close;

	WRITE_ONCE(r->test, test);
	/* rep 0 is the warm-up, not reported */
	for (rep = 0; rep <= cmd->reps; rep++) {
		bench_cost_start(&cost);
		if (test == BT_LAT) {
			r->rounds = rep ? cmd->rounds : bench_warm_rounds(cmd);
			err = run_lat(r, &cs[0]);
			if (err)
				break;
			if (!rep)
				continue;
			bench_cost_emit(cmd->tag, &cost, r->rounds, 0);
			bench_emit_lat(cmd->tag, r->rtt, r->rounds);
			/* the active end's posts per round trip */
			bench_emit(cmd->tag, "post_ns",
				   cs[0].post_ns * 1000 / r->rounds);
			continue;
		}
		err = run_stream(r, cs, cmd->conns, rep ? cmd->ms :
				 bench_warm_ms(cmd), &ns, &bytes);
		if (err)
			break;
		if (!rep)
			continue;
		for (ops = 0, i = 0; i < cmd->conns; i++)
			ops += cs[i].ops;
		bench_cost_emit(cmd->tag, &cost, ops, bytes);
		/* MB/s (10^6 bytes) */
		bench_emit(cmd->tag, "", div64_u64(bytes * 1000000ULL,
						   ns ?: 1));
		if (strncmp(cmd->tag, "scale", 5))
			continue;
		ev = 0;
		for (i = 0; i < BENCH_MAX_CPUS; i++)
			ev += atomic64_read(&r->cpu_ev[i]);
		bench_emit(cmd->tag, "events", bench_rate_milli(ev, ns));
		for (i = 0; i < min_t(u32, num_possible_cpus(),
				      BENCH_MAX_CPUS); i++) {
			snprintf(what, sizeof(what), "cpu%u", i);
			bench_emit(cmd->tag, what,
				   atomic64_read(&r->cpu_ev[i]) * 1000);
		}
	}
out_close:
	WRITE_ONCE(r->test, BT_DOWN);
	for (i = 0; i < cmd->conns; i++)
		dconn_close(&cs[i], &s);
	side_close(&s);
out_free:
	kvfree(r->rtt);
	kfree(cs);
	kfree(r);
	return err;
}

/* One run's setup times, summed over its rounds (ns). */
struct bench_setup_t {
	u64 connect;
	u64 disconnect;
	u64 create;
};

/*
 * "<tag>": connections per second of connect time, then the mean connect,
 * graceful disconnect and PSP/SSP creation (@what) times in us.
 */
static void setup_emit(const struct bench_cmd *cmd,
		       const struct bench_setup_t *t, const char *what)
{
	bench_emit(cmd->tag, "", bench_rate_milli(cmd->rounds, t->connect));
	bench_emit(cmd->tag, "connect_us", div_u64(t->connect, cmd->rounds));
	bench_emit(cmd->tag, "disconnect_us",
		   div_u64(t->disconnect, cmd->rounds));
	bench_emit(cmd->tag, what, div_u64(t->create, cmd->rounds));
}

/*
 * Connection setup through the PSP: per round, dat_ep_connect to both
 * ESTABLISHED (the CR's accept included) timed, then the graceful
 * disconnect timed on its own; the EPs are made outside. A PSP is
 * created and freed per round, its creation timed: on the active end's
 * IA, in the command's namespace (where siw listens; the serving IA's
 * address is in the other one).
 */
static int dat_conn_rate(const struct bench_cmd *cmd)
{
	struct bench_end ea = {}, eb = {};
	DAT_EVD_HANDLE cr = DAT_HANDLE_NULL;
	struct bench_setup_t sum;
	DAT_PSP_HANDLE psp;
	struct bench_side s;
	ktime_t t, t1;
	u32 rep, i;
	int err;

	err = side_open(&s, cmd, true);
	if (!err && dat_evd_kcreate(s.ia, BENCH_EVD_QLEN, DAT_UPCALL_DISABLE,
				    NULL, DAT_EVD_CR_FLAG, &cr) !=
	    DAT_SUCCESS) {
		cr = DAT_HANDLE_NULL;
		err = dat_fail("cr evd", 0);
	}
	for (rep = 0; !err && rep <= cmd->reps; rep++) {
		memset(&sum, 0, sizeof(sum));
		for (i = 0; !err && i < cmd->rounds; i++) {
			t = ktime_get();
			err = dat_chk("dat_psp_create",
				      dat_psp_create(s.ia, s.srv->port + 1000,
						     cr, DAT_PSP_CONSUMER_FLAG,
						     &psp));
			sum.create += ktime_to_ns(ktime_sub(ktime_get(), t));
			if (err)
				break;
			dat_psp_free(psp);
			err = end_open(&ea, s.ia, s.pz, s.conn_a, NULL, NULL,
				       PAGE_SIZE);
			err = err ?: end_open(&eb, s.srv->ia, s.srv->pz,
					      s.conn_b, NULL, NULL, PAGE_SIZE);
			if (err)
				break;
			t = ktime_get();
			err = connect_pair(&s, ea.ep, eb.ep);
			t1 = ktime_get();
			err = err ?: disconnect_pair(&s, ea.ep);
			sum.connect += ktime_to_ns(ktime_sub(t1, t));
			sum.disconnect += ktime_to_ns(ktime_sub(ktime_get(),
								t1));
			end_close(&ea);
			end_close(&eb);
		}
		if (!err && rep)
			setup_emit(cmd, &sum, "psp_create_us");
	}
	end_close(&ea);
	end_close(&eb);
	if (cr)
		dat_evd_free(cr);
	side_close(&s);
	return err;
}

/* A connected TCP pair: @sa in the caller's namespace, @sb accepted. */
static int tcp_pair(struct socket *ls, struct sockaddr_in *sin,
		    struct socket **sa, struct socket **sb)
{
	int err;

	*sa = NULL;
	*sb = NULL;
	err = sock_create_kern(current->nsproxy->net_ns, AF_INET, SOCK_STREAM,
			       IPPROTO_TCP, sa);
	if (err)
		return err;
	err = kernel_connect(*sa, (struct sockaddr *)sin, sizeof(*sin), 0);
	err = err ?: kernel_accept(ls, sb, 0);
	if (err) {
		sock_release(*sa);
		*sa = NULL;
	}
	return err;
}

/*
 * Setup of dat_iw_socket_connect on an already connected TCP connection,
 * as dat_conn_rate: the passive end's SSP on the accepted socket (its
 * creation timed on its own), then dat_iw_socket_connect to both
 * ESTABLISHED (the CR's accept included) timed, then the graceful
 * disconnect. The TCP connection and the EPs are made outside.
 */
static int dat_sconn_rate(const struct bench_cmd *cmd)
{
	struct bench_end ea = {}, eb = {};
	struct socket *ls = NULL, *sa = NULL, *sb = NULL;
	struct sockaddr_in lsin;
	DAT_IW_SSP_HANDLE ssp = DAT_HANDLE_NULL;
	struct net *net = bench_peer_net();
	struct bench_setup_t sum;
	struct bench_side s;
	DAT_EVENT ev;
	ktime_t t, t1;
	u32 rep, i;
	int err;

	err = side_open(&s, cmd, true);
	if (err || !net) {
		err = err ?: -ENOENT;
		goto out;
	}
	lsin = s.sin;
	lsin.sin_port = htons(cmd->port);
	err = sock_create_kern(net, AF_INET, SOCK_STREAM, IPPROTO_TCP, &ls);
	if (err) {
		ls = NULL;
		goto out;
	}
	sock_set_reuseaddr(ls->sk);
	err = kernel_bind(ls, (struct sockaddr *)&lsin, sizeof(lsin));
	err = err ?: kernel_listen(ls, 8);
	for (rep = 0; !err && rep <= cmd->reps; rep++) {
		memset(&sum, 0, sizeof(sum));
		for (i = 0; !err && i < cmd->rounds; i++) {
			err = end_open(&ea, s.ia, s.pz, s.conn_a, NULL, NULL,
				       PAGE_SIZE);
			err = err ?: end_open(&eb, s.srv->ia, s.srv->pz,
					      s.conn_b, NULL, NULL, PAGE_SIZE);
			err = err ?: tcp_pair(ls, &lsin, &sa, &sb);
			if (err)
				break;
			t = ktime_get();
			if (dat_iw_ssp_create(s.srv->ia, sb, eb.ep, s.srv->cr,
					      NULL, 0, &ssp) != DAT_SUCCESS) {
				ssp = DAT_HANDLE_NULL;
				err = -EIO;
				break;
			}
			sum.create += ktime_to_ns(ktime_sub(ktime_get(), t));
			sb = NULL;	/* the SSP's, or the CR's */
			t = ktime_get();
			if (dat_iw_socket_connect(ea.ep, sa, 5000000, 0,
						  NULL) != DAT_SUCCESS) {
				err = -EIO;
				break;
			}
			sa = NULL;	/* the EP's now */
			err = bench_expect_ev(s.srv->cr,
					      DAT_CONNECTION_REQUEST_EVENT, &ev);
			if (err)
				break;
			if (dat_cr_accept(ev.event_data.cr_arrival_event_data
					  .cr_handle, eb.ep, 0, NULL) !=
			    DAT_SUCCESS) {
				err = -EIO;
				break;
			}
			err = bench_expect_ev(s.conn_a,
					      DAT_CONNECTION_EVENT_ESTABLISHED,
					      NULL);
			err = err ?: bench_expect_ev(s.conn_b,
					       DAT_CONNECTION_EVENT_ESTABLISHED,
					       NULL);
			t1 = ktime_get();
			err = err ?: disconnect_pair(&s, ea.ep);
			sum.connect += ktime_to_ns(ktime_sub(t1, t));
			sum.disconnect += ktime_to_ns(ktime_sub(ktime_get(),
								t1));
			dat_iw_ssp_free(ssp);
			ssp = DAT_HANDLE_NULL;
			end_close(&ea);
			end_close(&eb);
		}
		if (!err && rep)
			setup_emit(cmd, &sum, "ssp_create_us");
	}
out:
	if (ssp) {
		/* An SSP without a request gives its socket back. */
		DAT_IW_SSP_PARAM p = {};

		dat_iw_ssp_query(ssp, DAT_IW_SSP_FIELD_SOCKET_ID, &p);
		dat_iw_ssp_free(ssp);
		if (p.socket_id)
			sock_release(p.socket_id);
	}
	end_close(&ea);
	end_close(&eb);
	if (sa)
		sock_release(sa);
	if (sb)
		sock_release(sb);
	if (ls)
		sock_release(ls);
	side_close(&s);
	return err;
}

/**
 * bench_dat_run() - the "dat" command
 * @cmd: the parsed command
 *
 * Context: process context, bench_mutex held; sleeps for the run.
 * Return: 0 or a negative errno (the output then has what was measured).
 */
int bench_dat_run(const struct bench_cmd *cmd)
{
	enum bench_test t = test_of(cmd->test);

	if (!strcmp(cmd->test, "conn"))
		return dat_conn_rate(cmd);
	if (!strcmp(cmd->test, "sconn"))
		return dat_sconn_rate(cmd);
	if (t == BT_DOWN)
		return -EINVAL;
	if (t == BT_LAT && (cmd->conns != 1 || cmd->size > PAGE_SIZE))
		return -EINVAL;	/* one EP; the pong lands in one page */
	return dat_data(cmd, t);
}
