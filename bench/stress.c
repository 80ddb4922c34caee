// SPDX-License-Identifier: GPL-2.0
/*
 * kdapl_bench.ko: the workloads of `make stress` (Documentation/testing.rst,
 * "Stress"). Both ends of every connection are made here, from the one
 * command, and every byte moved is checked: a workload fails on the first
 * DTO error, wrong length, wrong byte, missing or unexpected event.
 *
 *   stress test=soak ia_a= ia_b= addr= port= conns= size= ms= lossy= wait=
 *	tag=
 *	conns connections, each in turn: a Send of a random length up to
 *	size, an RDMA Write fenced by a zero-length Send, the message read
 *	back in ST_ORD RDMA Reads at once (the peer's IRD full);
 *	every payload is a pattern of (connection, sequence, kind) checked
 *	where it lands. All connections are in flight at once. Then each
 *	disconnects gracefully: both ends DISCONNECTED, or with lossy=1
 *	(a netem'd wire) BROKEN too when the disconnect outlasted kdapl's
 *	bound (counted).
 *   stress test=churn ia_a= ia_b= addr= port= rounds= ms= tag=
 *	rounds connections, one after the other: create both EPs, connect,
 *	one checked Send, then in turn a graceful disconnect from A, one
 *	from B, an abrupt one from A, or the active EP freed while its
 *	connection is being set up (the passive end accepts whatever
 *	arrives and must see it end within ms: over IB a REP to a requester
 *	that is gone is only given up after the CM's retries, about 75 s).
 *   stress test=spfree ia_a= ia_b= addr= port= rounds= conns= tag=
 *	rounds times: a PSP and its CR EVD, conns connects to it, and the
 *	PSP and the EVD freed while the requests arrive; every connect
 *	must end (rejected, refused, timed out) and nothing be left.
 *   stress test=reset ia_a= ia_b= addr= port= conns= size= ms= tag=
 *	conns connections, each streaming Sends of 1 to size bytes from A
 *	to B, ST_RESET_WIN receives posted and as many Sends in flight (a
 *	Send only for a receive already posted) until the connection ends: the
 *	guest resets the TCP connections from outside (ss -K) within ms.
 *	Every request and receive posted must complete exactly once and in
 *	posting order, with success (a receive's message checked: the n-th
 *	carries the n-th Send) or flushed, both ends of every connection end,
 *	DISCONNECTED or BROKEN, and nothing may be left outstanding; after a
 *	flush only flushes.
 *   stress test=faults|faults_sconn ia_a= ia_b= addr= port= rounds=
 *	depth= tag=
 *	one churn round (faults) or one socket takeover round of "dat
 *	test=sconn" (faults_sconn: both ends' SSP, dat_iw_socket_connect
 *	and accept, disconnect; needs "serve ia=<ia_b>" and "serve tcp")
 *	at a time with its n-th fault site failing, n = 1, 1 + depth, ...
 *	(at most rounds rounds) until a round meets no fault, which must
 *	succeed (st_faults()).
 *   stress test=wfaults|wfaults_sconn ia_a= ia_b= addr= port=
 *	rounds= tag=
 *	rounds of churn or of socket takeover, one at a time, while the
 *	suite makes kiwarp's and kdapl's works fail allocations: each
 *	completes or fails with a DAT error or event, none loses an event or
 *	data (st_faults_work()).
 *
 *   stress test=many|many_ssp: many connections up at once (many.c).
 *
 * Each ends with the IAs closed gracefully (nothing may be left on
 * them) and prints what it did: "<tag>.ops", "<tag>.bytes" and the
 * outcome counts.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/jiffies.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "bench.h"
#include "dat.h"
#include "stress.h"

#define ST_QLEN		256
#define ST_CONNECT_US	5000000
#define ST_SPFREE_US	2000000	/* a request the PSP's free strands */
#define ST_MAX_SIZE	(128 * PAGE_SIZE)	/* 2 per LMR: 256 pages */
#define ST_ORD		4	/* RDMA Reads in flight per EP, both ways */

static inline DAT_DTO_COOKIE st_cookie(u32 i, enum st_kind k)
{
	DAT_DTO_COOKIE ck = { .as_64 = ((u64)i << 8) | k };

	return ck;
}

int st_side_open(struct st_side *s, const char *ia, int qlen)
{
	memset(s, 0, sizeof(*s));
	s->async = DAT_HANDLE_NULL;
	if (dat_ia_open((char *)ia, 16, &s->async, &s->ia) != DAT_SUCCESS) {
		s->ia = DAT_HANDLE_NULL;
		pr_warn("stress: no IA %s\n", ia);
		return -ENODEV;
	}
	if (dat_pz_create(s->ia, &s->pz) != DAT_SUCCESS) {
		s->pz = DAT_HANDLE_NULL;
		return dat_fail("dat_pz_create", 0);
	}
	if (dat_evd_kcreate(s->ia, qlen, DAT_UPCALL_NOTIFY, &bench_ev_up,
			    DAT_EVD_CONNECTION_FLAG, &s->conn) != DAT_SUCCESS) {
		s->conn = DAT_HANDLE_NULL;
		return dat_fail("dat_evd_kcreate", 0);
	}
	if (dat_evd_kcreate(s->ia, qlen, DAT_UPCALL_NOTIFY, &bench_ev_up,
			    DAT_EVD_DTO_FLAG, &s->dto) != DAT_SUCCESS) {
		s->dto = DAT_HANDLE_NULL;
		return dat_fail("dat_evd_kcreate", 0);
	}
	return 0;
}

/*
 * Free what st_side_open() made and close the IA: gracefully when
 * @check (its EPs, LMRs and SPs must all be gone: the graceful close
 * fails on anything left), else abruptly after a failure.
 */
int st_side_close(struct st_side *s, bool check)
{
	int err = 0, i;

	bench_ev_untie(s->conn);
	bench_ev_untie(s->dto);
	if (s->dto && dat_evd_free(s->dto) != DAT_SUCCESS)
		err = check ? dat_fail("dat_evd_free", 0) : 0;
	if (s->conn && dat_evd_free(s->conn) != DAT_SUCCESS)
		err = check ? dat_fail("dat_evd_free", 0) : 0;
	if (s->pz && dat_pz_free(s->pz) != DAT_SUCCESS)
		err = check ? dat_fail("dat_pz_free", 0) : 0;
	/*
	 * A rejected request stops counting on the IA only once its work
	 * ran (kdapl/sp.c): give the last ones a moment.
	 */
	for (i = 0; s->ia && check && !err && i < 100; i++) {
		if (dat_ia_close(s->ia, DAT_CLOSE_GRACEFUL_FLAG) == DAT_SUCCESS)
			s->ia = DAT_HANDLE_NULL;
		else
			usleep_range(10000, 11000);
	}
	if (s->ia) {
		if (check)
			err = dat_fail("dat_ia_close graceful: objects left", 0);
		dat_ia_close(s->ia, DAT_CLOSE_ABRUPT_FLAG);
	}
	memset(s, 0, sizeof(*s));
	return err;
}

static int st_ep_make(struct st_side *s, DAT_EP_HANDLE *ep)
{
	DAT_EP_ATTR attr = {
		.service_type = DAT_SERVICE_TYPE_RC,
		.max_recv_dtos = 8,
		.max_request_dtos = 8,
		.max_rdma_read_in = ST_ORD,
		.max_rdma_read_out = ST_ORD,
	};
	DAT_RETURN ret;

	ret = dat_ep_create(s->ia, s->pz, s->dto, s->dto, s->conn, &attr, ep);
	if (ret != DAT_SUCCESS) {
		*ep = DAT_HANDLE_NULL;
		return dat_fail("dat_ep_create", ret);
	}
	return 0;
}

/* The peer's address from the command. */
int st_addr(const struct bench_cmd *c, struct sockaddr_in *sin)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	if (!in4_pton(c->addr_b, -1, (u8 *)&sin->sin_addr.s_addr, -1, NULL))
		return -EINVAL;
	return 0;
}

/* The command's peer address and both sides; st_side_close() each after. */
static int st_open(const struct bench_cmd *cmd, struct st_side *a,
		   struct st_side *b, struct sockaddr_in *sin)
{
	int err = st_addr(cmd, sin);

	err = err ?: st_side_open(a, cmd->ia_a, ST_QLEN);
	return err ?: st_side_open(b, cmd->ia_b, ST_QLEN);
}

/* Close both sides, checking that nothing is left unless @err already. */
static int st_close(struct st_side *a, struct st_side *b, int err)
{
	int err2 = st_side_close(a, !err);

	err = err ?: err2;
	err2 = st_side_close(b, !err);
	return err ?: err2;
}

/*
 * The next event on @evd that concerns @ep, which must be @num; events
 * of EPs freed before (churn's early frees) are counted in @stale and
 * skipped.
 */
/*
 * The longest wait for one DTO completion or connection event of the
 * running command: its wait=, else BENCH_WAIT_MS. A soak across link
 * cuts of s seconds needs more than s: TCP's retransmission back-off
 * (6.4 s then 12.8 s) delays the first segment after the link is back.
 * Commands run one at a time (bench_mutex).
 */
static u32 st_wait_ms = BENCH_WAIT_MS;

static int st_expect_ep_ev(DAT_EVD_HANDLE evd, DAT_EP_HANDLE ep,
			   DAT_EVENT_NUMBER num, DAT_EVENT *ev, u64 *stale)
{
	DAT_EVENT dummy;
	int err;

	if (!ev)
		ev = &dummy;
	for (;;) {
		err = bench_wait_ev_ms(evd, ev, st_wait_ms);
		if (err) {
			pr_warn("stress: no event %#x: %d\n", num, err);
			return err;
		}
		if (ev->event_data.connect_event_data.ep_handle == ep)
			break;
		(*stale)++;
	}
	if (ev->event_number != num) {
		pr_warn("stress: event %#x, expected %#x\n", ev->event_number,
			num);
		return -EPROTO;
	}
	return 0;
}

/* --- payloads ---------------------------------------------------------- */

/* A pattern no other (connection, sequence, kind) produces at any offset. */
u64 st_seed(u32 conn, u32 seq, enum st_kind kind)
{
	return (((u64)conn << 40) ^ ((u64)seq << 8) ^ kind) *
	       0x9e3779b97f4a7c15ULL | 1;
}

static u64 st_next(u64 *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

void st_fill(u8 *p, size_t len, u64 seed)
{
	size_t i;
	u64 v = 0;

	for (i = 0; i < len; i++) {
		if (!(i & 7))
			v = st_next(&seed);
		p[i] = v >> ((i & 7) * 8);
	}
}

/* 0, or -EBADMSG with the first wrong byte reported. */
int st_check(const u8 *p, size_t len, u64 seed, const char *what, u32 conn,
	     u32 seq)
{
	size_t i;
	u64 v = 0;

	for (i = 0; i < len; i++) {
		if (!(i & 7))
			v = st_next(&seed);
		if (p[i] != (u8)(v >> ((i & 7) * 8))) {
			pr_warn("stress: %s of conn %u seq %u: byte %zu of %zu is %#x, want %#x\n",
				what, conn, seq, i, len, p[i],
				(u8)(v >> ((i & 7) * 8)));
			return -EBADMSG;
		}
	}
	return 0;
}

/* --- connections ------------------------------------------------------- */

/*
 * A PSP on side B: @cr is its CR EVD (notify upcall). Freed with
 * st_psp_close().
 */
struct st_psp {
	DAT_EVD_HANDLE cr;
	DAT_PSP_HANDLE psp;
};

static int st_psp_open(struct st_psp *p, struct st_side *b, u16 port)
{
	DAT_RETURN ret;

	memset(p, 0, sizeof(*p));
	if (dat_evd_kcreate(b->ia, ST_QLEN, DAT_UPCALL_NOTIFY, &bench_ev_up,
			    DAT_EVD_CR_FLAG, &p->cr) != DAT_SUCCESS) {
		p->cr = DAT_HANDLE_NULL;
		return dat_fail("dat_evd_kcreate", 0);
	}
	ret = dat_psp_create(b->ia, port, p->cr, DAT_PSP_CONSUMER_FLAG,
			     &p->psp);
	if (ret != DAT_SUCCESS) {
		p->psp = DAT_HANDLE_NULL;
		return dat_fail("dat_psp_create", ret);
	}
	return 0;
}

/* Reject every request waiting on @p's EVD; returns how many. */
static u32 st_psp_drain(struct st_psp *p)
{
	DAT_EVENT ev;
	u32 n = 0;

	while (dat_evd_dequeue(p->cr, &ev) == DAT_SUCCESS) {
		if (ev.event_number != DAT_CONNECTION_REQUEST_EVENT)
			continue;
		if (dat_cr_reject(ev.event_data.cr_arrival_event_data
				  .cr_handle, 0, NULL) == DAT_SUCCESS)
			n++;
	}
	return n;
}

static int st_psp_close(struct st_psp *p)
{
	int err = 0;

	if (p->psp && dat_psp_free(p->psp) != DAT_SUCCESS)
		err = dat_fail("dat_psp_free", 0);
	if (p->cr) {
		bench_ev_untie(p->cr);
		st_psp_drain(p);
		if (dat_evd_free(p->cr) != DAT_SUCCESS)
			err = dat_fail("dat_evd_free", 0);
	}
	memset(p, 0, sizeof(*p));
	return err;
}

/* Connects whose request never reached B and whose active end timed out */
static atomic_t st_connect_timeouts = ATOMIC_INIT(0);

#define ST_REQ_POLL_MS	100

/*
 * The connection request of @ea's connect, at @p, within BENCH_WAIT_MS.
 * A connect a fault ended before its request reached B (st_faults_work():
 * B's accept, its MPA exchange, the event handling under them) ends at A
 * instead, with an event at once (a reject) or at its timeout
 * (ST_CONNECT_US, counted): A's connection EVD is looked at between
 * short waits. Return: 0 with the request in @ev, -EPROTO when @ea's
 * connect ended first or another event came, -ETIMEDOUT when nothing
 * came.
 */
static int st_wait_request(struct st_side *a, DAT_EP_HANDLE ea,
			   struct st_psp *p, DAT_EVENT *ev)
{
	DAT_EVENT aev;
	u32 ms;
	int err;

	for (ms = 0; ms < BENCH_WAIT_MS; ms += ST_REQ_POLL_MS) {
		err = bench_wait_ev_ms(p->cr, ev, ST_REQ_POLL_MS);
		if (!err && ev->event_number != DAT_CONNECTION_REQUEST_EVENT) {
			pr_warn("stress: CR EVD got event %#x\n",
				ev->event_number);
			return -EPROTO;
		}
		if (err != -ETIMEDOUT)
			return err;
		if (dat_evd_dequeue(a->conn, &aev) != DAT_SUCCESS ||
		    aev.event_data.connect_event_data.ep_handle != ea)
			continue;	/* none, or an earlier EP's, late */
		if (aev.event_number == DAT_CONNECTION_EVENT_TIMED_OUT)
			atomic_inc(&st_connect_timeouts);
		pr_info("stress: no request at B; the connect ended with event %#x\n",
			aev.event_number);
		return -EPROTO;
	}
	pr_warn("stress: no request at B, no end of the connect at A\n");
	return -ETIMEDOUT;
}

#define ST_PD_LEN	16

/*
 * Connect @ea to @p, accept with @eb, both ESTABLISHED: private data
 * both ways (the iWARP CM copies it for each event), the accept's
 * checked at A (IB pads a REP's to 196 bytes: its first bytes count).
 */
static int st_connect(struct st_side *a, struct st_side *b, struct st_psp *p,
		      const struct sockaddr_in *sin, u16 port,
		      DAT_EP_HANDLE ea, DAT_EP_HANDLE eb, u64 *stale)
{
	u8 req[ST_PD_LEN], rep[ST_PD_LEN];
	const DAT_CONNECTION_EVENT_DATA *cd;
	DAT_EVENT ev;
	int err;

	memset(req, 0x5a ^ (port & 0xff), sizeof(req));
	memset(rep, 0xa5 ^ (port & 0xff), sizeof(rep));
	err = dat_chk("dat_ep_connect",
		      dat_ep_connect(ea, (struct sockaddr *)sin, port,
				     ST_CONNECT_US, sizeof(req), req,
				     DAT_QOS_BEST_EFFORT,
				     DAT_CONNECT_DEFAULT_FLAG));
	err = err ?: st_wait_request(a, ea, p, &ev);
	err = err ?: dat_chk("dat_cr_accept",
			     dat_cr_accept(ev.event_data.cr_arrival_event_data
					   .cr_handle, eb, sizeof(rep), rep));
	err = err ?: st_expect_ep_ev(a->conn, ea,
				     DAT_CONNECTION_EVENT_ESTABLISHED, &ev,
				     stale);
	if (!err) {
		cd = &ev.event_data.connect_event_data;
		if (cd->private_data_size < ST_PD_LEN || !cd->private_data ||
		    memcmp(cd->private_data, rep, ST_PD_LEN)) {
			pr_warn("stress: the accept's private data (%d bytes) arrived wrong\n",
				cd->private_data_size);
			return -EBADMSG;
		}
	}
	return err ?: st_expect_ep_ev(b->conn, eb,
				      DAT_CONNECTION_EVENT_ESTABLISHED, NULL,
				      stale);
}

/*
 * A connection's two EPs and @len bytes of memory on each side, A's EP
 * connected to @p and accepted with B's; st_pair_close() after, also on
 * a failure (what was made is set).
 */
static int st_pair_open(struct st_side *a, struct st_side *b,
			struct st_psp *p, const struct sockaddr_in *sin,
			u16 port, u32 len, DAT_EP_HANDLE *ea, DAT_EP_HANDLE *eb,
			struct bench_mem *ma, struct bench_mem *mb, u64 *stale)
{
	int err;

	err = bench_mem_open(ma, a->ia, a->pz, len);
	err = err ?: bench_mem_open(mb, b->ia, b->pz, len);
	err = err ?: st_ep_make(a, ea);
	err = err ?: st_ep_make(b, eb);
	return err ?: st_connect(a, b, p, sin, port, *ea, *eb, stale);
}

static void st_pair_close(DAT_EP_HANDLE ea, DAT_EP_HANDLE eb,
			  struct bench_mem *ma, struct bench_mem *mb)
{
	if (ea)
		dat_ep_free(ea);
	if (eb)
		dat_ep_free(eb);
	bench_mem_close(ma);
	bench_mem_close(mb);
}

/*
 * The end of @ep's connection: DISCONNECTED, or BROKEN where @broken
 * allows it (counted there): a graceful disconnect on a lossy wire may
 * outlast kdapl's bound (disconnect_timeout_ms), which ends it BROKEN.
 */
static int st_expect_end(DAT_EVD_HANDLE evd, DAT_EP_HANDLE ep, u64 *stale,
			 u64 *broken)
{
	DAT_EVENT ev;
	int err;

	err = st_expect_ep_ev(evd, ep, DAT_CONNECTION_EVENT_DISCONNECTED, &ev,
			      stale);
	if (err == -EPROTO && broken &&
	    ev.event_number == DAT_CONNECTION_EVENT_BROKEN) {
		(*broken)++;
		return 0;
	}
	return err;
}

/* Disconnect from A or B, gracefully or not; both ends must end. */
static int st_disconnect(struct st_side *a, struct st_side *b,
			 DAT_EP_HANDLE ea, DAT_EP_HANDLE eb, bool from_b,
			 bool abrupt, u64 *stale, u64 *broken)
{
	int err;

	err = dat_chk("dat_ep_disconnect",
		      dat_ep_disconnect(from_b ? eb : ea,
					abrupt ? DAT_CLOSE_ABRUPT_FLAG :
					DAT_CLOSE_GRACEFUL_FLAG));
	err = err ?: st_expect_end(a->conn, ea, stale, broken);
	return err ?: st_expect_end(b->conn, eb, stale, broken);
}

/*
 * Take @n DTO completions from @evd, each successful; @done is called
 * with each (its cookie, its length) and may fail the run.
 */
static int st_collect(DAT_EVD_HANDLE evd, u32 n,
		      int (*done)(void *ctx, u64 cookie, u32 len), void *ctx)
{
	DAT_DTO_COMPLETION_EVENT_DATA *d;
	DAT_EVENT ev;
	int err;

	while (n--) {
		err = bench_wait_ev_ms(evd, &ev, st_wait_ms);
		if (err) {
			pr_warn("stress: a DTO completion missing: %d\n", err);
			return err;
		}
		d = &ev.event_data.dto_completion_event_data;
		if (ev.event_number != DAT_DTO_COMPLETION_EVENT ||
		    d->status != DAT_DTO_SUCCESS) {
			pr_warn("stress: event %#x status %d cookie %#llx\n",
				ev.event_number, d->status,
				d->user_cookie.as_64);
			return -EIO;
		}
		err = done ? done(ctx, d->user_cookie.as_64,
				  d->transfered_length) : 0;
		if (err)
			return err;
	}
	return 0;
}

/* --- soak -------------------------------------------------------------- */

/*
 * Zero-length Sends both ways on a new connection: a Send posts the
 * registrations of its side's new LMRs ahead of it on its QP (kdapl/lmr.c),
 * so once each side has received the other's, every LMR of the
 * connection is usable, remotely too.
 */
static int st_hello(struct st_side *a, struct st_side *b, DAT_EP_HANDLE ea,
		    DAT_EP_HANDLE eb)
{
	const DAT_DTO_COOKIE ck = { .as_64 = 0 };
	int err;

	err = dat_chk("dat_ep_post_recv",
		      dat_ep_post_recv(ea, 0, NULL, ck,
				       DAT_COMPLETION_DEFAULT_FLAG));
	err = err ?: dat_chk("dat_ep_post_recv",
			     dat_ep_post_recv(eb, 0, NULL, ck,
					      DAT_COMPLETION_DEFAULT_FLAG));
	err = err ?: dat_chk("dat_ep_post_send",
			     dat_ep_post_send(ea, 0, NULL, ck,
					      DAT_COMPLETION_DEFAULT_FLAG));
	err = err ?: dat_chk("dat_ep_post_send",
			     dat_ep_post_send(eb, 0, NULL, ck,
					      DAT_COMPLETION_DEFAULT_FLAG));
	err = err ?: st_collect(a->dto, 2, NULL, NULL);
	return err ?: st_collect(b->dto, 2, NULL, NULL);
}

/*
 * One connection of the soak. A's memory: [0, size) sends and the Read's
 * sink, [size, 2 size) the Write's source. B's: [0, size) receives and
 * the Read's source, [size, 2 size) the Write's sink.
 */
struct st_conn {
	DAT_EP_HANDLE ea, eb;
	struct bench_mem ma, mb;
	u32 seq;
	u32 len;	/* of the step in flight */
	u32 reads;	/* the step's Reads not completed yet */
};

struct st_soak {
	struct st_conn *conns;
	u32 n;
	u32 size;
	u64 bytes;
};

/*
 * A soak completion: a receive or a Read has its data checked where it
 * landed (a fencing Send's receive checks the Write before it); A's
 * Sends and Writes only had to succeed.
 */
static int soak_done(void *ctx, u64 cookie, u32 len)
{
	struct st_soak *s = ctx;
	u32 i = cookie >> 8;
	struct st_conn *c;

	if (i >= s->n)
		return -EPROTO;
	c = &s->conns[i];
	switch (cookie & 0xff) {
	case ST_RECV:
		if (len != c->len) {
			pr_warn("stress: conn %u received %u bytes, sent %u\n",
				i, len, c->len);
			return -EBADMSG;
		}
		s->bytes += len;
		return st_check(c->mb.buf, len, st_seed(i, c->seq, ST_SEND),
				"Send", i, c->seq);
	case ST_FENCE_RECV:
		s->bytes += c->len;
		return st_check(c->mb.buf + s->size, c->len,
				st_seed(i, c->seq, ST_WRITE), "RDMA Write", i,
				c->seq);
	case ST_READ:
		if (!c->reads)
			return -EPROTO;		/* more Reads than posted */
		if (--c->reads)
			return 0;	/* checked once the step's last is in */
		s->bytes += c->len;
		return st_check(c->ma.buf, c->len, st_seed(i, c->seq, ST_READ),
				"RDMA Read", i, c->seq);
	case ST_SEND:
	case ST_WRITE:
	case ST_FENCE:
		return 0;
	default:
		return -EPROTO;
	}
}

/* One step on every connection: Sends, then fenced Writes, then Reads. */
static int soak_step(struct st_soak *s, struct st_side *a, struct st_side *b)
{
	DAT_LMR_TRIPLET t;
	DAT_RMR_TRIPLET r;
	struct st_conn *c;
	u32 i, n;
	int err = 0;

	for (i = 0; i < s->n && !err; i++) {
		c = &s->conns[i];
		c->seq++;
		c->len = get_random_u32() % s->size + 1;
		t = bench_trip(&c->mb, 0, s->size);
		err = dat_chk("dat_ep_post_recv",
			      dat_ep_post_recv(c->eb, 1, &t, st_cookie(i, ST_RECV),
					       DAT_COMPLETION_DEFAULT_FLAG));
		st_fill(c->ma.buf, c->len, st_seed(i, c->seq, ST_SEND));
		t = bench_trip(&c->ma, 0, c->len);
		err = err ?: dat_chk("dat_ep_post_send",
				     dat_ep_post_send(c->ea, 1, &t,
						      st_cookie(i, ST_SEND),
						      DAT_COMPLETION_DEFAULT_FLAG));
	}
	err = err ?: st_collect(a->dto, s->n, NULL, NULL);
	err = err ?: st_collect(b->dto, s->n, soak_done, s);
	for (i = 0; i < s->n && !err; i++) {
		c = &s->conns[i];
		t = bench_trip(&c->mb, 0, 8);
		err = dat_chk("dat_ep_post_recv",
			      dat_ep_post_recv(c->eb, 1, &t,
					       st_cookie(i, ST_FENCE_RECV),
					       DAT_COMPLETION_DEFAULT_FLAG));
		st_fill(c->ma.buf + s->size, c->len,
			st_seed(i, c->seq, ST_WRITE));
		t = bench_trip(&c->ma, s->size, c->len);
		r.rmr_context = c->mb.rctx;
		r.virtual_address = c->mb.va + s->size;
		r.segment_length = c->len;
		err = err ?: dat_chk("dat_ep_post_rdma_write",
				     dat_ep_post_rdma_write(c->ea, 1, &t,
							    st_cookie(i, ST_WRITE),
							    &r,
							    DAT_COMPLETION_DEFAULT_FLAG));
		err = err ?: dat_chk("dat_ep_post_send",
				     dat_ep_post_send(c->ea, 0, NULL,
						      st_cookie(i, ST_FENCE),
						      DAT_COMPLETION_DEFAULT_FLAG));
	}
	err = err ?: st_collect(a->dto, 2 * s->n, NULL, NULL);
	err = err ?: st_collect(b->dto, s->n, soak_done, s);
	/* the whole ORD at once: the responder's IRD is full */
	for (i = 0, n = 0; i < s->n && !err; i++) {
		u32 k, piece, off;

		c = &s->conns[i];
		st_fill(c->mb.buf, c->len, st_seed(i, c->seq, ST_READ));
		memset(c->ma.buf, 0, c->len);
		c->reads = min_t(u32, ST_ORD, c->len);
		piece = c->len / c->reads;
		for (k = 0, off = 0; k < c->reads && !err; k++, off += piece) {
			u32 len = k + 1 < c->reads ? piece : c->len - off;

			t = bench_trip(&c->ma, off, len);
			r.rmr_context = c->mb.rctx;
			r.virtual_address = c->mb.va + off;
			r.segment_length = len;
			err = dat_chk("dat_ep_post_rdma_read",
				      dat_ep_post_rdma_read(c->ea, 1, &t,
							    st_cookie(i, ST_READ),
							    &r,
							    DAT_COMPLETION_DEFAULT_FLAG));
			n++;
		}
	}
	return err ?: st_collect(a->dto, n, soak_done, s);
}

static int st_soak(const struct bench_cmd *cmd)
{
	struct st_side a = {}, b = {};
	struct st_psp p = {};
	struct sockaddr_in sin;
	struct st_soak s = { .n = cmd->conns, .size = cmd->size };
	unsigned long end;
	u64 steps = 0, stale = 0, broken = 0;
	u32 i, up = 0;
	int err, err2;

	s.conns = kcalloc(s.n, sizeof(*s.conns), GFP_KERNEL);
	if (!s.conns)
		return -ENOMEM;
	err = st_open(cmd, &a, &b, &sin);
	err = err ?: st_psp_open(&p, &b, cmd->port);
	for (i = 0; i < s.n && !err; i++) {
		struct st_conn *c = &s.conns[i];

		err = st_pair_open(&a, &b, &p, &sin, cmd->port, 2 * s.size,
				   &c->ea, &c->eb, &c->ma, &c->mb, &stale);
		if (!err)
			up++;
		err = err ?: st_hello(&a, &b, c->ea, c->eb);
	}
	end = jiffies + msecs_to_jiffies(cmd->ms);
	while (!err && time_before(jiffies, end)) {
		err = soak_step(&s, &a, &b);
		steps++;
		cond_resched();
	}
	for (i = 0; i < up && !err; i++)
		err = st_disconnect(&a, &b, s.conns[i].ea, s.conns[i].eb,
				    i & 1, false, &stale,
				    cmd->lossy ? &broken : NULL);
	for (i = 0; i < s.n; i++)
		st_pair_close(s.conns[i].ea, s.conns[i].eb, &s.conns[i].ma,
			      &s.conns[i].mb);
	err2 = st_psp_close(&p);
	err = st_close(&a, &b, err ?: err2);
	kfree(s.conns);
	bench_emit(cmd->tag, "conns", up * 1000ULL);
	bench_emit(cmd->tag, "steps", steps * 1000);
	bench_emit(cmd->tag, "ops", steps * s.n * 4 * 1000);
	bench_emit(cmd->tag, "bytes", s.bytes * 1000);
	bench_emit(cmd->tag, "stale_events", stale * 1000);
	bench_emit(cmd->tag, "disconnect_broken", broken * 1000);
	return err;
}

/* --- reset ------------------------------------------------------------- */

#define ST_RESET_WIN	4	/* Sends and receives in flight per connection */

struct st_rconn {
	DAT_EP_HANDLE ea, eb;
	struct bench_mem ma, mb;	/* ST_RESET_WIN slots of size each */
	u32 sent;		/* Sends posted */
	u32 recvd;		/* receives posted */
	u32 got;		/* receive completions (success or flush) */
	u32 sdone;		/* Send completions (success or flush) */
	u32 out_s, out_r;	/* posted, not completed */
	bool ended_a, ended_b;
	bool dead;		/* a flush or a refused post: post no more */
	bool s_end, r_end;	/* a Send, a receive was flushed */
};

struct st_reset {
	struct st_rconn *conns;
	u32 n;
	u32 size;
	u64 msgs, bytes, flushed, broken, disconnected, refused;
};

/* The length of Send @seq of connection @i: 1 to size, from the pattern */
static u32 reset_len(struct st_reset *s, u32 i, u32 seq)
{
	return st_seed(i, seq, ST_SEND) % s->size + 1;
}

/* Cookies: the sequence number, the connection, the kind. */
static DAT_DTO_COOKIE reset_cookie(u32 i, u32 seq, enum st_kind k)
{
	DAT_DTO_COOKIE ck = { .as_64 = ((u64)seq << 32) | (i << 8) | k };

	return ck;
}

/* Post the next Send or receive of @c (its slot: seq % ST_RESET_WIN). */
static void reset_post(struct st_reset *s, u32 i, bool send)
{
	struct st_rconn *c = &s->conns[i];
	u32 seq = send ? c->sent : c->recvd;
	u32 off = (seq % ST_RESET_WIN) * s->size;
	DAT_LMR_TRIPLET t;
	DAT_RETURN ret;

	if (c->dead)
		return;
	if (send) {
		u32 len = reset_len(s, i, seq);

		st_fill(c->ma.buf + off, len, st_seed(i, seq, ST_SEND));
		t = bench_trip(&c->ma, off, len);
		ret = dat_ep_post_send(c->ea, 1, &t,
				       reset_cookie(i, seq, ST_SEND),
				       DAT_COMPLETION_DEFAULT_FLAG);
	} else {
		t = bench_trip(&c->mb, off, s->size);
		ret = dat_ep_post_recv(c->eb, 1, &t,
				       reset_cookie(i, seq, ST_RECV),
				       DAT_COMPLETION_DEFAULT_FLAG);
	}
	if (ret != DAT_SUCCESS) {
		/* the connection ended under us: DISCONNECTED flushes */
		pr_info("stress: reset: conn %u: %s %u refused: %#x\n", i,
			send ? "Send" : "receive", seq, ret);
		c->dead = true;
		s->refused++;
		return;
	}
	if (send) {
		c->sent++;
		c->out_s++;
	} else {
		c->recvd++;
		c->out_r++;
	}
}

/*
 * Keep @i's window full: ST_RESET_WIN receives posted, and a Send only
 * for a receive already posted (the n-th Send needs the n-th receive,
 * or the peer answers with a TERMINATE: no buffer).
 */
static void reset_pump(struct st_reset *s, u32 i)
{
	struct st_rconn *c = &s->conns[i];

	while (!c->dead && c->out_r < ST_RESET_WIN)
		reset_post(s, i, false);
	while (!c->dead && c->out_s < ST_RESET_WIN && c->sent < c->recvd)
		reset_post(s, i, true);
}

/* A DTO completion of either side; 0 or the check that failed. */
static int reset_dto(struct st_reset *s, const DAT_EVENT *ev)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d =
		&ev->event_data.dto_completion_event_data;
	u64 ck = d->user_cookie.as_64;
	u32 i = (ck >> 8) & 0xffffff, seq = ck >> 32;
	enum st_kind k = ck & 0xff;
	struct st_rconn *c;
	bool *q_end;
	u32 len;

	if (ev->event_number != DAT_DTO_COMPLETION_EVENT || i >= s->n ||
	    (k != ST_SEND && k != ST_RECV)) {
		pr_warn("stress: reset: event %#x cookie %#llx\n",
			ev->event_number, ck);
		return -EPROTO;
	}
	c = &s->conns[i];
	q_end = k == ST_SEND ? &c->s_end : &c->r_end;
	if (d->status != DAT_DTO_SUCCESS &&
	    d->status != DAT_DTO_ERR_FLUSHED) {
		pr_warn("stress: reset: conn %u %s %u: status %d\n", i,
			k == ST_SEND ? "Send" : "receive", seq, d->status);
		return -EIO;
	}
	if (d->status == DAT_DTO_SUCCESS && *q_end) {
		pr_warn("stress: reset: conn %u %s %u succeeded after its queue ended\n",
			i, k == ST_SEND ? "Send" : "receive", seq);
		return -EPROTO;
	}
	if (k == ST_SEND) {
		/* in order too: an RC send queue completes in posting order */
		if (!c->out_s-- || seq != c->sdone) {
			pr_warn("stress: reset: conn %u Send %u completed out of turn (%u)\n",
				i, seq, c->sdone);
			return -EPROTO;
		}
		c->sdone++;
	} else {
		/* receives complete in order: the n-th holds Send n */
		if (!c->out_r-- || seq != c->got) {
			pr_warn("stress: reset: conn %u receive %u completed out of turn (%u)\n",
				i, seq, c->got);
			return -EPROTO;
		}
		c->got++;
	}
	if (d->status == DAT_DTO_ERR_FLUSHED) {
		s->flushed++;
		*q_end = true;
		c->dead = true;
		return 0;
	}
	if (k == ST_RECV) {
		len = reset_len(s, i, seq);
		if (d->transfered_length != len) {
			pr_warn("stress: reset: conn %u receive %u: %u bytes, sent %u\n",
				i, seq, (u32)d->transfered_length, len);
			return -EBADMSG;
		}
		if (st_check(c->mb.buf + (seq % ST_RESET_WIN) * s->size, len,
			     st_seed(i, seq, ST_SEND), "Send", i, seq))
			return -EBADMSG;
		s->msgs++;
		s->bytes += len;
	}
	reset_pump(s, i);
	return 0;
}

/* A connection event of either side: the end of one of its EPs. */
static int reset_conn_ev(struct st_reset *s, const DAT_EVENT *ev, bool side_a)
{
	DAT_EP_HANDLE ep = ev->event_data.connect_event_data.ep_handle;
	struct st_rconn *c;
	u32 i;

	for (i = 0; i < s->n; i++) {
		c = &s->conns[i];
		if (ep != (side_a ? c->ea : c->eb))
			continue;
		if (ev->event_number == DAT_CONNECTION_EVENT_BROKEN)
			s->broken++;
		else if (ev->event_number == DAT_CONNECTION_EVENT_DISCONNECTED)
			s->disconnected++;
		else
			break;
		if (side_a ? c->ended_a : c->ended_b) {
			pr_warn("stress: reset: conn %u ended twice\n", i);
			return -EPROTO;
		}
		if (side_a)
			c->ended_a = true;
		else
			c->ended_b = true;
		return 0;
	}
	pr_warn("stress: reset: event %#x for no connection of ours\n",
		ev->event_number);
	return -EPROTO;
}

/* Every connection ended at both ends, nothing outstanding. */
static bool reset_done(struct st_reset *s)
{
	u32 i;

	for (i = 0; i < s->n; i++) {
		struct st_rconn *c = &s->conns[i];

		if (!c->ended_a || !c->ended_b || c->out_s || c->out_r)
			return false;
	}
	return true;
}

static int st_reset(const struct bench_cmd *cmd)
{
	struct st_side a = {}, b = {};
	struct st_reset s = { .n = cmd->conns, .size = cmd->size };
	struct st_psp p = {};
	struct sockaddr_in sin;
	unsigned long end;
	u64 stale = 0;
	DAT_EVENT ev;
	u32 i, up = 0;
	int err, err2;
	bool any;

	s.conns = kcalloc(s.n, sizeof(*s.conns), GFP_KERNEL);
	if (!s.conns)
		return -ENOMEM;
	err = st_open(cmd, &a, &b, &sin);
	err = err ?: st_psp_open(&p, &b, cmd->port);
	for (i = 0; i < s.n && !err; i++) {
		struct st_rconn *c = &s.conns[i];

		err = st_pair_open(&a, &b, &p, &sin, cmd->port,
				   ST_RESET_WIN * s.size, &c->ea, &c->eb,
				   &c->ma, &c->mb, &stale);
		if (!err)
			up++;
		/* the LMRs' registrations, for buffers across pages */
		err = err ?: st_hello(&a, &b, c->ea, c->eb);
	}
	for (i = 0; i < up && !err; i++) {
		reset_pump(&s, i);
		if (s.conns[i].dead)
			err = dat_fail("reset: the first posts", 0);
	}
	end = jiffies + msecs_to_jiffies(cmd->ms);
	while (!err && !reset_done(&s)) {
		if (time_after(jiffies, end)) {
			pr_warn("stress: reset: not every connection ended within %u ms\n",
				cmd->ms);
			err = -ETIMEDOUT;
			break;
		}
		any = false;
		while (!err && dat_evd_dequeue(a.dto, &ev) == DAT_SUCCESS) {
			err = reset_dto(&s, &ev);
			any = true;
		}
		while (!err && dat_evd_dequeue(b.dto, &ev) == DAT_SUCCESS) {
			err = reset_dto(&s, &ev);
			any = true;
		}
		while (!err && dat_evd_dequeue(a.conn, &ev) == DAT_SUCCESS) {
			err = reset_conn_ev(&s, &ev, true);
			any = true;
		}
		while (!err && dat_evd_dequeue(b.conn, &ev) == DAT_SUCCESS) {
			err = reset_conn_ev(&s, &ev, false);
			any = true;
		}
		if (!any)
			usleep_range(200, 500);
		cond_resched();
	}
	for (i = 0; i < s.n; i++)
		st_pair_close(s.conns[i].ea, s.conns[i].eb, &s.conns[i].ma,
			      &s.conns[i].mb);
	err2 = st_psp_close(&p);
	err = st_close(&a, &b, err ?: err2);
	kfree(s.conns);
	bench_emit(cmd->tag, "conns", up * 1000ULL);
	bench_emit(cmd->tag, "msgs", s.msgs * 1000);
	bench_emit(cmd->tag, "bytes", s.bytes * 1000);
	bench_emit(cmd->tag, "flushed", s.flushed * 1000);
	bench_emit(cmd->tag, "ended_broken", s.broken * 1000);
	bench_emit(cmd->tag, "ended_disconnected", s.disconnected * 1000);
	bench_emit(cmd->tag, "posts_refused", s.refused * 1000);
	return err;
}

/* --- churn ------------------------------------------------------------- */

/* The send of a churn round, and its check on B. */
static int churn_send(struct st_side *a, struct st_side *b,
		      struct bench_mem *ma, struct bench_mem *mb,
		      DAT_EP_HANDLE ea, DAT_EP_HANDLE eb, u32 round)
{
	DAT_LMR_TRIPLET t;
	int err;

	memset(mb->buf, 0, 256);
	t = bench_trip(mb, 0, 256);
	err = dat_chk("dat_ep_post_recv",
		      dat_ep_post_recv(eb, 1, &t, st_cookie(round, ST_RECV),
				       DAT_COMPLETION_DEFAULT_FLAG));
	st_fill(ma->buf, 256, st_seed(0, round, ST_SEND));
	t = bench_trip(ma, 0, 256);
	err = err ?: dat_chk("dat_ep_post_send",
			     dat_ep_post_send(ea, 1, &t,
					      st_cookie(round, ST_SEND),
					      DAT_COMPLETION_DEFAULT_FLAG));
	err = err ?: st_collect(a->dto, 1, NULL, NULL);
	err = err ?: st_collect(b->dto, 1, NULL, NULL);
	return err ?: st_check(mb->buf, 256, st_seed(0, round, ST_SEND),
			       "Send", 0, round);
}

/*
 * The active EP freed while it connects: before the passive end has
 * seen the request (@after_accept false: anywhere in resolution, TCP
 * and MPA), or right after the passive end accepted it (the MPA Reply
 * and establishment in flight). Whatever reached B is accepted and must
 * end; outcomes[]: 0 nothing arrived, 1 refused at the accept,
 * 2 accepted and ended, 3 the sum and 4 the maximum of the ms it took
 * to end.
 */
static int churn_early_free(struct st_side *a, struct st_side *b,
			    struct st_psp *p, const struct sockaddr_in *sin,
			    u16 port, bool after_accept, u32 end_ms,
			    u64 *outcomes)
{
	DAT_EP_HANDLE ea = DAT_HANDLE_NULL, eb = DAT_HANDLE_NULL;
	u32 delay_us = get_random_u32() % (after_accept ? 3000 : 20000);
	DAT_CR_HANDLE cr;
	DAT_EVENT ev;
	bool established = false;
	ktime_t t0;
	u64 ms;
	int err;

	st_psp_drain(p);	/* a request of an earlier round, late */
	err = st_ep_make(a, &ea);
	err = err ?: st_ep_make(b, &eb);
	err = err ?: dat_chk("dat_ep_connect",
			     dat_ep_connect(ea, (struct sockaddr *)sin, port,
					    ST_CONNECT_US, 0, NULL,
					    DAT_QOS_BEST_EFFORT,
					    DAT_CONNECT_DEFAULT_FLAG));
	if (!err && !after_accept) {
		usleep_range(delay_us, delay_us + 100);
		err = dat_chk("dat_ep_free", dat_ep_free(ea));
		ea = DAT_HANDLE_NULL;
	}
	if (err)
		goto out;
	/* a live EP's connect ends at A if its request is lost */
	err = after_accept ? st_wait_request(a, ea, p, &ev) :
			     bench_wait_ev_ms(p->cr, &ev, 200);
	if (err == -ETIMEDOUT && !after_accept) {
		outcomes[0]++;		/* nothing arrived */
		err = 0;
		goto out;
	}
	if (err) {
		if (err == -ETIMEDOUT)
			pr_warn("stress: no request from a live EP\n");
		goto out;	/* a lost upcall: the request stays, drained */
	}
	if (ev.event_number != DAT_CONNECTION_REQUEST_EVENT) {
		pr_warn("stress: CR EVD got event %#x\n", ev.event_number);
		err = -EPROTO;
		goto out;
	}
	cr = ev.event_data.cr_arrival_event_data.cr_handle;
	if (dat_cr_accept(cr, eb, 0, NULL) != DAT_SUCCESS) {
		outcomes[1]++;		/* not acceptable any more */
		dat_cr_reject(cr, 0, NULL);
		goto out;
	}
	if (after_accept) {
		usleep_range(delay_us, delay_us + 100);
		err = dat_chk("dat_ep_free", dat_ep_free(ea));
		ea = DAT_HANDLE_NULL;
		if (err)
			goto out;
	}
	/* ESTABLISHED may come first; then it must end */
	t0 = ktime_get();
	do {
		ms = ktime_ms_delta(ktime_get(), t0);
		err = ms < end_ms ? bench_wait_ev_ms(b->conn, &ev, end_ms - ms) :
				    -ETIMEDOUT;
		if (err) {
			DAT_EP_STATE st = -1;

			dat_ep_get_status(eb, &st, NULL, NULL);
			pr_warn("stress: accepted end of a freed EP never ended (%s accept, EP state %d, established %d)\n",
				after_accept ? "freed after" : "freed before",
				st, established);
			goto out;
		}
		if (ev.event_data.connect_event_data.ep_handle != eb)
			continue;
		switch (ev.event_number) {
		case DAT_CONNECTION_EVENT_ESTABLISHED:
			established = true;
			break;
		case DAT_CONNECTION_EVENT_DISCONNECTED:
		case DAT_CONNECTION_EVENT_BROKEN:
		case DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR:
			outcomes[2]++;
			ms = ktime_ms_delta(ktime_get(), t0);
			outcomes[3] += ms;
			outcomes[4] = max(outcomes[4], ms);
			goto out;
		default:
			pr_warn("stress: accepted end got event %#x\n",
				ev.event_number);
			err = -EPROTO;
			goto out;
		}
	} while (1);
out:
	if (ea)
		dat_ep_free(ea);
	if (eb)
		dat_ep_free(eb);
	return err;
}

/*
 * @cmd->rounds churn rounds from round @first: the round's index picks
 * its kind (a graceful disconnect from A or B, an abrupt one, an early
 * free before or after the accept).
 */
static int st_churn_from(const struct bench_cmd *cmd, u32 first)
{
	struct st_side a = {}, b = {};
	struct st_psp p = {}, p2 = {};
	struct bench_mem ma = {}, mb = {};
	struct sockaddr_in sin;
	u64 stale = 0, early[5] = {}, done = 0;
	u32 r;
	int err, err2;

	err = st_open(cmd, &a, &b, &sin);
	err = err ?: st_psp_open(&p, &b, cmd->port);
	err = err ?: st_psp_open(&p2, &b, cmd->port + 1);
	err = err ?: bench_mem_open(&ma, a.ia, a.pz, PAGE_SIZE);
	err = err ?: bench_mem_open(&mb, b.ia, b.pz, PAGE_SIZE);
	for (r = first; r - first < cmd->rounds && !err; r++) {
		DAT_EP_HANDLE ea = DAT_HANDLE_NULL, eb = DAT_HANDLE_NULL;

		if (r % 4 == 3) {
			err = churn_early_free(&a, &b, &p2, &sin,
					       cmd->port + 1, r % 8 == 7,
					       cmd->ms, early);
			done++;
			continue;
		}
		err = st_ep_make(&a, &ea);
		err = err ?: st_ep_make(&b, &eb);
		err = err ?: st_connect(&a, &b, &p, &sin, cmd->port, ea, eb,
					&stale);
		err = err ?: churn_send(&a, &b, &ma, &mb, ea, eb, r);
		err = err ?: st_disconnect(&a, &b, ea, eb, r % 4 == 1,
					   r % 4 == 2, &stale, NULL);
		if (ea)
			dat_ep_free(ea);
		if (eb)
			dat_ep_free(eb);
		if (!err)
			done++;
		cond_resched();
	}
	if (!err)
		msleep(200);	/* a last late request, rejected below */
	bench_mem_close(&ma);
	bench_mem_close(&mb);
	err2 = st_psp_close(&p2);
	err = err ?: err2;
	err2 = st_psp_close(&p);
	err = st_close(&a, &b, err ?: err2);
	bench_emit(cmd->tag, "rounds", done * 1000);
	bench_emit(cmd->tag, "early.nothing_arrived", early[0] * 1000);
	bench_emit(cmd->tag, "early.refused", early[1] * 1000);
	bench_emit(cmd->tag, "early.accepted_and_ended", early[2] * 1000);
	bench_emit(cmd->tag, "early.end_ms_mean",
		   early[2] ? early[3] * 1000 / early[2] : 0);
	bench_emit(cmd->tag, "early.end_ms_max", early[4] * 1000);
	bench_emit(cmd->tag, "stale_events", stale * 1000);
	return err;
}

static int st_churn(const struct bench_cmd *cmd)
{
	return st_churn_from(cmd, 0);
}

/*
 * One churn round a call, each of the next kind (st_faults_work()):
 * commands run one at a time (bench_mutex), so a counter serves.
 */
static int st_churn_next(const struct bench_cmd *cmd)
{
	static u32 next;

	return st_churn_from(cmd, next++);
}

/* --- spfree ------------------------------------------------------------ */

/* Outcomes of a connect to a PSP freed under it, by kind. */
enum { SPF_PEER, SPF_NONPEER, SPF_TIMEOUT, SPF_UNREACH, SPF_N };

static int spfree_round(struct st_side *a, struct st_side *b,
			const struct sockaddr_in *sin, u16 port, u32 n,
			u64 *out, u64 *rejected)
{
	DAT_EP_HANDLE eps[BENCH_MAX_CONNS] = {};
	struct st_psp p;
	DAT_EVENT ev;
	u32 i, left = 0;
	int err;

	err = st_psp_open(&p, b, port);
	for (i = 0; i < n && !err; i++) {
		err = st_ep_make(a, &eps[i]);
		err = err ?: dat_chk("dat_ep_connect",
				     dat_ep_connect(eps[i],
						    (struct sockaddr *)sin,
						    port, ST_SPFREE_US, 0,
						    NULL, DAT_QOS_BEST_EFFORT,
						    DAT_CONNECT_DEFAULT_FLAG));
		if (!err)
			left++;
	}
	usleep_range(get_random_u32() % 3000 + 1, 3001);
	*rejected += st_psp_drain(&p);
	err = st_psp_close(&p) ?: err;
	/* every connect ends, without being accepted */
	while (left && !err) {
		err = bench_wait_ev(a->conn, &ev);
		if (err) {
			pr_warn("stress: %u connects to a freed PSP never ended\n",
				left);
			break;
		}
		for (i = 0; i < n; i++)
			if (eps[i] && eps[i] ==
			    ev.event_data.connect_event_data.ep_handle)
				break;
		if (i == n)
			continue;
		switch (ev.event_number) {
		case DAT_CONNECTION_EVENT_PEER_REJECTED:
			out[SPF_PEER]++;
			break;
		case DAT_CONNECTION_EVENT_NON_PEER_REJECTED:
			out[SPF_NONPEER]++;
			break;
		case DAT_CONNECTION_EVENT_TIMED_OUT:
			out[SPF_TIMEOUT]++;
			break;
		case DAT_CONNECTION_EVENT_UNREACHABLE:
			out[SPF_UNREACH]++;
			break;
		default:
			pr_warn("stress: connect to a freed PSP: event %#x\n",
				ev.event_number);
			err = -EPROTO;
			continue;
		}
		dat_ep_free(eps[i]);
		eps[i] = DAT_HANDLE_NULL;
		left--;
	}
	for (i = 0; i < n; i++)
		if (eps[i])
			dat_ep_free(eps[i]);
	return err;
}

static int st_spfree(const struct bench_cmd *cmd)
{
	struct st_side a = {}, b = {};
	struct sockaddr_in sin;
	u64 out[SPF_N] = {}, rejected = 0;
	u32 r;
	int err, err2;

	err = st_open(cmd, &a, &b, &sin);
	for (r = 0; r < cmd->rounds && !err; r++) {
		err = spfree_round(&a, &b, &sin, cmd->port + r % 4, cmd->conns,
				   out, &rejected);
		cond_resched();
	}
	err2 = st_side_close(&a, !err);
	err = err ?: err2;
	/*
	 * B may keep a request whose event went to the EVD as it was freed
	 * (its requester timed out): not a leak, so B closes abruptly.
	 */
	st_side_close(&b, false);
	bench_emit(cmd->tag, "rounds", r * 1000ULL);
	bench_emit(cmd->tag, "rejected_by_us", rejected * 1000);
	bench_emit(cmd->tag, "peer_rejected", out[SPF_PEER] * 1000);
	bench_emit(cmd->tag, "non_peer_rejected", out[SPF_NONPEER] * 1000);
	bench_emit(cmd->tag, "timed_out", out[SPF_TIMEOUT] * 1000);
	bench_emit(cmd->tag, "unreachable", out[SPF_UNREACH] * 1000);
	return err;
}

/* --- faults ------------------------------------------------------------ */

/*
 * One churn round (both IAs opened, PZs, EVDs, two PSPs, LMRs, both EPs,
 * connect, accept, a checked Send, a graceful disconnect, everything
 * freed and both IAs closed), or one socket takeover round (@round),
 * with the n-th fault site of this task
 * failing, for n = 1, 1 + step, 1 + 2 step, ...: current->fail_nth, as
 * a write of n to /proc/thread-self/fail-nth sets it (slab and page
 * allocations among others; the suite lets GFP_KERNEL ones fail too).
 * A round with its fault either fails with an error (the DAT call that
 * met it says which: -EIO; an event other than the one expected:
 * -EPROTO; the bench's own allocation: -ENOMEM) or absorbs it; a round
 * that waited in vain for an event (-ETIMEDOUT: the fault lost it) or
 * found wrong data (-EBADMSG) fails the command at once. The first
 * round that reaches no n-th site must succeed, and ends the command. What a failed round
 * leaves is closed abruptly (st_close()); the suite then checks that no
 * handle, EP or QP is left and kmemleak that nothing leaked.
 */
/* One socket takeover round: "dat test=sconn" once (bench/dat.c). */
static int st_sconn_once(const struct bench_cmd *cmd)
{
	struct bench_cmd d = *cmd;

	strscpy(d.verb, "dat", sizeof(d.verb));
	strscpy(d.test, "sconn", sizeof(d.test));
	d.reps = 0;
	return bench_dat_run(&d);
}

static int st_faults(const struct bench_cmd *cmd,
		     int (*round)(const struct bench_cmd *cmd))
{
#ifdef CONFIG_FAULT_INJECTION
	struct bench_cmd one = *cmd;
	u64 runs = 0, failed = 0, absorbed = 0;
	u32 step = max(cmd->depth, 1U), n;
	unsigned int pending;
	size_t mark;
	int err = -ENOENT;

	one.rounds = 1;
	for (n = 1; runs < cmd->rounds; n += step, runs++) {
		mark = bench_out.len;
		WRITE_ONCE(current->fail_nth, n);
		err = round(&one);
		pending = READ_ONCE(current->fail_nth);
		WRITE_ONCE(current->fail_nth, 0);
		bench_out.len = mark;	/* the round's own figures */
		if (pending) {
			/* no n-th site: a round with no fault */
			if (err)
				pr_warn("stress: faults: the round without a fault failed (%d)\n",
					err);
			runs++;
			break;
		}
		if (err == -ETIMEDOUT || err == -EBADMSG) {
			/* not an error a DAT call or event reported */
			pr_warn("stress: faults: fault site %u: %s\n", n,
				err == -EBADMSG ? "wrong data" :
				"an event never came");
			runs++;
			break;
		}
		if (err)
			failed++;
		else
			absorbed++;
		err = -ENOENT;	/* unless a round without a fault ends it */
		cond_resched();
	}
	if (err == -ENOENT)
		pr_warn("stress: faults: %llu rounds all met their fault\n", runs);
	bench_emit(cmd->tag, "rounds", runs * 1000);
	bench_emit(cmd->tag, "last_site", (u64)n * 1000);
	bench_emit(cmd->tag, "failed_with_error", failed * 1000);
	bench_emit(cmd->tag, "absorbed", absorbed * 1000);
	return err;
#else
	return -EOPNOTSUPP;
#endif
}

/*
 * @cmd->rounds rounds of @round, one at a time, while kiwarp's and
 * kdapl's works may fail their allocations: the suite sets their
 * test_fail_work hooks and failslab/fail_page_alloc's task filter with a
 * probability, so the works fail what this task's fail-nth never reaches
 * (the passive side's accept and MPA exchange, the TX and RX works,
 * iw_cm's and rdma_cm's event handling). A round either completes, with
 * its Send checked, or fails with an error a DAT call or event reported;
 * one that waited in vain for an event (-ETIMEDOUT: the fault lost it -
 * every connection attempt must end within its timeout) or found wrong
 * data (-EBADMSG) fails the command. The suite then turns the faults off
 * and runs rounds that must all succeed.
 */
static int st_faults_work(const struct bench_cmd *cmd,
			  int (*round)(const struct bench_cmd *cmd))
{
	struct bench_cmd one = *cmd;
	u64 completed = 0, failed = 0;
	int timeouts = atomic_read(&st_connect_timeouts);
	size_t mark;
	u32 r;
	int err = 0;

	one.rounds = 1;
	for (r = 0; r < cmd->rounds; r++) {
		mark = bench_out.len;
		err = round(&one);
		bench_out.len = mark;	/* the round's own figures */
		if (err == -ETIMEDOUT || err == -EBADMSG) {
			pr_warn("stress: wfaults: round %u: %s\n", r,
				err == -EBADMSG ? "wrong data" :
				"an event never came");
			break;
		}
		if (err)
			failed++;
		else
			completed++;
		err = 0;
		cond_resched();
	}
	bench_emit(cmd->tag, "rounds", (completed + failed) * 1000);
	bench_emit(cmd->tag, "completed", completed * 1000);
	bench_emit(cmd->tag, "failed_with_error", failed * 1000);
	/* a lost CM event would end as such a time-out: counted */
	bench_emit(cmd->tag, "connect_timed_out",
		   (u64)(atomic_read(&st_connect_timeouts) - timeouts) * 1000);
	return err;
}

/**
 * bench_stress_run() - the "stress" command
 * @c: test=soak|reset|churn|spfree|faults|faults_sconn|wfaults|
 *	wfaults_sconn|many|many_ssp and
 *	its keys (see the top of this file and of many.c)
 *
 * Context: process context, bench_mutex held; runs for as long as the
 * workload does (soak, reset: @c->ms; churn, spfree: @c->rounds).
 * Return: 0 when every check held, else a negative errno (the kernel log
 * says which check failed).
 */
int bench_stress_run(const struct bench_cmd *c)
{
	if (!*c->ia_a || !*c->ia_b)
		return -EINVAL;
	/* the commands use up to port + 3; an LMR is at most 256 pages */
	if (!c->port || c->port > U16_MAX - 3 || c->size > ST_MAX_SIZE)
		return -ERANGE;
	st_wait_ms = c->wait ?: BENCH_WAIT_MS;
	if (!strcmp(c->test, "soak"))
		return st_soak(c);
	if (!strcmp(c->test, "reset"))
		return st_reset(c);
	if (!strcmp(c->test, "churn"))
		return st_churn(c);
	if (!strcmp(c->test, "spfree"))
		return c->conns > BENCH_MAX_CONNS ? -ERANGE : st_spfree(c);
	if (!strcmp(c->test, "many"))
		return st_many(c, false);
	if (!strcmp(c->test, "many_ssp"))
		return st_many(c, true);
	if (!strcmp(c->test, "faults"))
		return st_faults(c, st_churn);
	if (!strcmp(c->test, "faults_sconn"))
		return st_faults(c, st_sconn_once);
	/* test= holds 15 characters */
	if (!strcmp(c->test, "wfaults"))
		return st_faults_work(c, st_churn_next);
	if (!strcmp(c->test, "wfaults_sconn"))
		return st_faults_work(c, st_sconn_once);
	return -EINVAL;
}
