// SPDX-License-Identifier: GPL-2.0
/*
 * kdapl_bench.ko: many connections up at once (Documentation/testing.rst,
 * "Stress"; issue 18 item 5):
 *
 *   stress test=many|many_ssp ia_a= ia_b= addr= port= conns= hold= lossy= ms=
 *	tag=
 *	conns connections up at the same time, all through one PSP of B's
 *	(many) or each over a kernel TCP connection taken over (many_ssp:
 *	an SSP of B's on the accepted socket, dat_iw_socket_connect() on
 *	A's; the TCP connections go to port + 1 in the namespace "serve
 *	tcp" was issued from). MANY_WIN connects are in flight at a time;
 *	each carries its connection's index as private data and B accepts
 *	it with that connection's EP. Once both ends are ESTABLISHED, A
 *	sends a checked message and B echoes another, checked at A. When
 *	every connection has done so, all stay up for hold ms (the guest
 *	counts their TCP connections), then all are disconnected at once,
 *	gracefully, from A and B in turn: both ends of every one must see
 *	DISCONNECTED - or with lossy=1 BROKEN (counted), a graceful
 *	disconnect that outlasted kdapl's bound (disconnect_timeout_ms),
 *	as hundreds at once do on the debug kernel - and the IAs' graceful
 *	close must find nothing left.
 *	Any other event, a failed DTO, a wrong byte or a step not done
 *	within ms fails the command.
 *
 * Everything runs in the command's task: it polls the EVDs (their notify
 * upcalls only wake bench_wait_ev(), unused here) and sleeps a little
 * when there was nothing.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include <dat2/dat_iw_extensions.h>

#include "bench.h"
#include "dat.h"
#include "stress.h"

#define MANY_WIN	32		/* connects in flight */
#define MANY_SLOT	256		/* bytes of one message buffer */
#define MANY_MAGIC	0x6b4d414eU	/* first word of the private data */
#define MANY_CONNECT_US	10000000	/* each connect's timeout */

/* What a connection's checked exchange has done. */
enum {
	MANY_TX_A = BIT(0),	/* A's Send completed */
	MANY_RX_B = BIT(1),	/* B received it, checked */
	MANY_TX_B = BIT(2),	/* B's echo completed */
	MANY_RX_A = BIT(3),	/* A received the echo, checked */
	MANY_DONE = 0xf,
};

struct many_conn {
	DAT_EP_HANDLE ea, eb;
	DAT_IW_SSP_HANDLE ssp;	/* many_ssp: B's SSP, freed at the end */
	struct socket *sa;	/* many_ssp: A's socket until ESTABLISHED
				 * (the QP's then): a failed or abandoned
				 * connect gives it back to us
				 */
	struct socket *sb;	/* many_ssp: B's, the SSP's until a request
				 * (the CR's then), ours again at SOCKET_DOWN
				 */
	bool requested;		/* B saw its request and accepted it */
	bool up_a, up_b, end_a, end_b;
	u8 done;
};

struct many {
	const struct bench_cmd *cmd;
	bool ssp;
	struct st_side a, b;
	DAT_EVD_HANDLE cr;	/* B's CR EVD: the PSP's, or every SSP's */
	DAT_PSP_HANDLE psp;
	struct socket *ls;	/* many_ssp: B's TCP listener */
	struct sockaddr_in sin;	/* B: the PSP's address, or the listener's */
	struct bench_mem ma, mb;	/* two MANY_SLOT buffers a connection */
	struct many_conn *c;
	u32 n;
	u32 started;		/* connects issued */
	u32 up;			/* connections ESTABLISHED at both ends */
	u32 checked;		/* exchanges done */
	u32 ended;		/* EPs that saw DISCONNECTED */
	u32 broken;		/* or BROKEN */
	bool disconnecting;
	unsigned long end;	/* jiffies: the command's deadline */
	u64 bytes;
};

static DAT_DTO_COOKIE many_cookie(u32 i, enum st_kind k)
{
	DAT_DTO_COOKIE ck = { .as_64 = ((u64)i << 8) | k };

	return ck;
}

/* Connection @i's buffer @k (0: what it sends, 1: what it receives). */
static u32 many_off(u32 i, u32 k)
{
	return (2 * i + k) * MANY_SLOT;
}

/* The length of A's message (@echo false) or B's echo on connection @i. */
static u32 many_len(u32 i, bool echo)
{
	return st_seed(i, echo, ST_SEND) % MANY_SLOT + 1;
}

static int many_ep_make(struct st_side *s, DAT_EP_HANDLE *ep)
{
	DAT_EP_ATTR attr = {
		.service_type = DAT_SERVICE_TYPE_RC,
		.max_recv_dtos = 2,
		.max_request_dtos = 2,
	};
	DAT_RETURN ret;

	ret = dat_ep_create(s->ia, s->pz, s->dto, s->dto, s->conn, &attr, ep);
	if (ret != DAT_SUCCESS) {
		*ep = DAT_HANDLE_NULL;
		return dat_fail("dat_ep_create", ret);
	}
	return 0;
}

/* The index of the connection whose A (@side_a) or B EP is @ep, or -1. */
static int many_find(struct many *m, DAT_EP_HANDLE ep, bool side_a)
{
	u32 i;

	for (i = 0; i < m->n; i++)
		if (ep == (side_a ? m->c[i].ea : m->c[i].eb))
			return i;
	return -1;
}

/* A connected TCP pair to B's listener: @sa here, @sb accepted there. */
static int many_tcp_pair(struct many *m, struct socket **sa,
			 struct socket **sb)
{
	int err;

	err = sock_create_kern(current->nsproxy->net_ns, AF_INET, SOCK_STREAM,
			       IPPROTO_TCP, sa);
	if (err)
		return err;
	(*sa)->sk->sk_sndtimeo = 10 * HZ;	/* the handshake's bound */
	err = kernel_connect(*sa, (struct sockaddr *)&m->sin, sizeof(m->sin),
			     0);
	err = err ?: kernel_accept(m->ls, sb, 0);
	if (err) {
		sock_release(*sa);
		*sa = NULL;
	}
	return err;
}

/* Connect connection @i: to the PSP, or over a new taken-over socket. */
static int many_start(struct many *m, u32 i)
{
	struct many_conn *c = &m->c[i];
	u32 pdata[2] = { MANY_MAGIC, i };
	struct socket *sa, *sb;
	DAT_RETURN ret;
	int err;

	if (!m->ssp)
		return dat_chk("dat_ep_connect",
			       dat_ep_connect(c->ea, (struct sockaddr *)&m->sin,
					      m->cmd->port, MANY_CONNECT_US,
					      sizeof(pdata), pdata,
					      DAT_QOS_BEST_EFFORT,
					      DAT_CONNECT_DEFAULT_FLAG));
	err = many_tcp_pair(m, &sa, &sb);
	if (err) {
		pr_warn("stress: many: TCP connection %u: %d\n", i, err);
		return err;
	}
	ret = dat_iw_ssp_create(m->b.ia, sb, c->eb, m->cr, NULL, 0, &c->ssp);
	if (ret != DAT_SUCCESS) {
		c->ssp = DAT_HANDLE_NULL;
		sock_release(sb);
		sock_release(sa);
		return dat_fail("dat_iw_ssp_create", ret);
	}
	c->sb = sb;	/* the SSP's now */
	/* the EP borrows sa; many_close() releases it unless the QP has it */
	c->sa = sa;
	ret = dat_iw_socket_connect(c->ea, sa, MANY_CONNECT_US, sizeof(pdata),
				    pdata);
	return dat_chk("dat_iw_socket_connect", ret);
}

/* An SSP's SOCKET_DOWN: its socket is ours again. */
static void many_socket_down(struct many *m, const DAT_EVENT *ev)
{
	DAT_IW_SSP_HANDLE ssp =
		ev->event_data.cr_arrival_event_data.sp_handle.psp_handle;
	u32 i;

	for (i = 0; i < m->started; i++) {
		if (m->c[i].ssp != ssp || !m->c[i].sb)
			continue;
		sock_release(m->c[i].sb);
		m->c[i].sb = NULL;
	}
}

/* A request on B's CR EVD: accept it with its connection's EP. */
static int many_request(struct many *m, const DAT_EVENT *ev)
{
	DAT_CR_HANDLE cr = ev->event_data.cr_arrival_event_data.cr_handle;
	DAT_CR_PARAM p = {};
	u32 pdata[2], i;

	if (ev->event_number == DAT_CONNECTION_EVENT_SOCKET_DOWN)
		many_socket_down(m, ev);
	if (ev->event_number != DAT_CONNECTION_REQUEST_EVENT) {
		pr_warn("stress: many: CR EVD event %#x\n", ev->event_number);
		return -EPROTO;
	}
	if (dat_cr_query(cr, DAT_CR_FIELD_ALL, &p) != DAT_SUCCESS ||
	    p.private_data_size < sizeof(pdata) || !p.private_data) {
		dat_cr_reject(cr, 0, NULL);
		return dat_fail("dat_cr_query: the private data", 0);
	}
	memcpy(pdata, p.private_data, sizeof(pdata));
	i = pdata[1];
	if (pdata[0] != MANY_MAGIC || i >= m->started || m->c[i].requested) {
		pr_warn("stress: many: a request for %#x %u (started %u)\n",
			pdata[0], i, m->started);
		dat_cr_reject(cr, 0, NULL);
		return -EPROTO;
	}
	m->c[i].requested = true;
	m->c[i].sb = NULL;	/* the CR's, the QP's once accepted */
	return dat_chk("dat_cr_accept", dat_cr_accept(cr, m->c[i].eb, 0, NULL));
}

/*
 * Both ends of @i up: B's receive and A's first, then A's Send (after
 * B's receive: a Send with no receive posted is a TERMINATE on iWARP).
 */
static int many_exchange(struct many *m, u32 i)
{
	struct many_conn *c = &m->c[i];
	u32 len = many_len(i, false);
	DAT_LMR_TRIPLET t;
	int err;

	t = bench_trip(&m->mb, many_off(i, 1), MANY_SLOT);
	err = dat_chk("dat_ep_post_recv",
		      dat_ep_post_recv(c->eb, 1, &t, many_cookie(i, ST_RECV),
				       DAT_COMPLETION_DEFAULT_FLAG));
	t = bench_trip(&m->ma, many_off(i, 1), MANY_SLOT);
	err = err ?: dat_chk("dat_ep_post_recv",
			     dat_ep_post_recv(c->ea, 1, &t,
					      many_cookie(i, ST_RECV),
					      DAT_COMPLETION_DEFAULT_FLAG));
	if (err)
		return err;
	st_fill(m->ma.buf + many_off(i, 0), len, st_seed(i, 0, ST_SEND));
	t = bench_trip(&m->ma, many_off(i, 0), len);
	return dat_chk("dat_ep_post_send",
		       dat_ep_post_send(c->ea, 1, &t, many_cookie(i, ST_SEND),
					DAT_COMPLETION_DEFAULT_FLAG));
}

/* A connection event of A's (@side_a) or B's EVD. */
static int many_conn_ev(struct many *m, const DAT_EVENT *ev, bool side_a)
{
	int i = many_find(m, ev->event_data.connect_event_data.ep_handle,
			  side_a);
	struct many_conn *c;
	bool *flag;

	if (i < 0) {
		pr_warn("stress: many: event %#x for no EP of ours\n",
			ev->event_number);
		return -EPROTO;
	}
	c = &m->c[i];
	switch (ev->event_number) {
	case DAT_CONNECTION_EVENT_ESTABLISHED:
		flag = side_a ? &c->up_a : &c->up_b;
		if (*flag || m->disconnecting)
			break;
		*flag = true;
		if (side_a)
			c->sa = NULL;	/* the QP's now */
		if (!c->up_a || !c->up_b)
			return 0;
		m->up++;
		return many_exchange(m, i);
	case DAT_CONNECTION_EVENT_BROKEN:
	case DAT_CONNECTION_EVENT_DISCONNECTED:
		flag = side_a ? &c->end_a : &c->end_b;
		if (*flag || !m->disconnecting)
			break;
		if (ev->event_number == DAT_CONNECTION_EVENT_BROKEN) {
			if (!m->cmd->lossy)
				break;
			m->broken++;
		}
		*flag = true;
		m->ended++;
		return 0;
	default:
		break;
	}
	pr_warn("stress: many: conn %d: %c's event %#x out of turn (requested %d, up %d/%d, done %#x)\n",
		i, side_a ? 'A' : 'B', ev->event_number, c->requested, c->up_a,
		c->up_b, c->done);
	return -EPROTO;
}

/* A DTO completion of A's (@side_a) or B's: checked; B echoes. */
static int many_dto(struct many *m, const DAT_EVENT *ev, bool side_a)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d =
		&ev->event_data.dto_completion_event_data;
	u32 i = d->user_cookie.as_64 >> 8, k = d->user_cookie.as_64 & 0xff;
	struct bench_mem *mem = side_a ? &m->ma : &m->mb;
	struct many_conn *c;
	DAT_LMR_TRIPLET t;
	u8 bit;
	u32 len;

	if (ev->event_number != DAT_DTO_COMPLETION_EVENT || i >= m->n ||
	    (k != ST_SEND && k != ST_RECV) || d->status != DAT_DTO_SUCCESS) {
		pr_warn("stress: many: %c's event %#x status %d cookie %#llx\n",
			side_a ? 'A' : 'B', ev->event_number, d->status,
			d->user_cookie.as_64);
		return -EIO;
	}
	c = &m->c[i];
	if (k == ST_SEND)
		bit = side_a ? MANY_TX_A : MANY_TX_B;
	else
		bit = side_a ? MANY_RX_A : MANY_RX_B;
	if (c->done & bit) {
		pr_warn("stress: many: conn %u: a second completion %#x\n", i,
			bit);
		return -EPROTO;
	}
	c->done |= bit;
	if (k == ST_RECV) {
		/* B receives A's message, A receives B's echo */
		len = many_len(i, side_a);
		if (d->transfered_length != len) {
			pr_warn("stress: many: conn %u: %u bytes, sent %u\n", i,
				(u32)d->transfered_length, len);
			return -EBADMSG;
		}
		if (st_check(mem->buf + many_off(i, 1), len,
			     st_seed(i, side_a, ST_SEND), "message", i, side_a))
			return -EBADMSG;
		m->bytes += len;
	}
	if (bit == MANY_RX_B) {
		len = many_len(i, true);
		st_fill(m->mb.buf + many_off(i, 0), len,
			st_seed(i, 1, ST_SEND));
		t = bench_trip(&m->mb, many_off(i, 0), len);
		if (dat_ep_post_send(c->eb, 1, &t, many_cookie(i, ST_SEND),
				     DAT_COMPLETION_DEFAULT_FLAG) !=
		    DAT_SUCCESS)
			return dat_fail("dat_ep_post_send (echo)", 0);
	}
	if (c->done == MANY_DONE)
		m->checked++;
	return 0;
}

/*
 * Take every event there is, starting connects while fewer than
 * MANY_WIN are in flight. Return: 0, or the first failed check.
 */
static int many_poll(struct many *m)
{
	bool any = false;
	DAT_EVENT ev;
	int err = 0;

	while (!err && !m->disconnecting && m->started < m->n &&
	       m->started - m->up < MANY_WIN) {
		err = many_start(m, m->started);
		m->started++;
	}
	while (!err && dat_evd_dequeue(m->cr, &ev) == DAT_SUCCESS) {
		err = many_request(m, &ev);
		any = true;
	}
	while (!err && dat_evd_dequeue(m->a.conn, &ev) == DAT_SUCCESS) {
		err = many_conn_ev(m, &ev, true);
		any = true;
	}
	while (!err && dat_evd_dequeue(m->b.conn, &ev) == DAT_SUCCESS) {
		err = many_conn_ev(m, &ev, false);
		any = true;
	}
	while (!err && dat_evd_dequeue(m->a.dto, &ev) == DAT_SUCCESS) {
		err = many_dto(m, &ev, true);
		any = true;
	}
	while (!err && dat_evd_dequeue(m->b.dto, &ev) == DAT_SUCCESS) {
		err = many_dto(m, &ev, false);
		any = true;
	}
	if (!err && !any)
		usleep_range(200, 500);
	cond_resched();
	return err;
}

/* Poll until *@count reaches @goal; -ETIMEDOUT past the deadline. */
static int many_until(struct many *m, const u32 *count, u32 goal,
		      const char *what)
{
	int err = 0;

	while (!err && *count < goal) {
		if (time_after(jiffies, m->end)) {
			pr_warn("stress: many: %u of %u connections %s in time (started %u, up %u, checked %u, ended %u)\n",
				*count, goal, what, m->started, m->up,
				m->checked, m->ended);
			return -ETIMEDOUT;
		}
		err = many_poll(m);
	}
	return err;
}

/* B's CR EVD, and its PSP or its TCP listener (port + 1). */
static int many_listen(struct many *m)
{
	int qlen = m->n + 16;
	struct net *net;
	DAT_RETURN ret;
	int err;

	if (dat_evd_kcreate(m->b.ia, qlen, DAT_UPCALL_NOTIFY, &bench_ev_up,
			    DAT_EVD_CR_FLAG, &m->cr) != DAT_SUCCESS) {
		m->cr = DAT_HANDLE_NULL;
		return dat_fail("dat_evd_kcreate", 0);
	}
	if (!m->ssp) {
		ret = dat_psp_create(m->b.ia, m->cmd->port, m->cr,
				     DAT_PSP_CONSUMER_FLAG, &m->psp);
		if (ret != DAT_SUCCESS) {
			m->psp = DAT_HANDLE_NULL;
			return dat_fail("dat_psp_create", ret);
		}
		return 0;
	}
	net = bench_peer_net();
	if (!net) {
		pr_warn("stress: many_ssp: no \"serve tcp\" namespace\n");
		return -ENOENT;
	}
	m->sin.sin_port = htons(m->cmd->port + 1);
	err = sock_create_kern(net, AF_INET, SOCK_STREAM, IPPROTO_TCP, &m->ls);
	if (err) {
		m->ls = NULL;
		return err;
	}
	sock_set_reuseaddr(m->ls->sk);
	m->ls->sk->sk_rcvtimeo = 10 * HZ;	/* kernel_accept()'s bound */
	err = kernel_bind(m->ls, (struct sockaddr *)&m->sin, sizeof(m->sin));
	return err ?: kernel_listen(m->ls, MANY_WIN);
}

/*
 * Free everything. A's EPs first (a connected one after a failure is
 * disconnected abruptly by its free; a socket one of them still
 * borrowed, its connect failed or abandoned, is ours again: released),
 * so that no more requests come; then the requests that did are
 * rejected, and the SSPs freed (one still holding its socket, no request
 * having come, gives it back: released); then B's EPs, the PSP, the CR
 * EVD, the memory and both sides, which must hold nothing more unless
 * @err already.
 */
static int many_close(struct many *m, int err)
{
	DAT_IW_SSP_PARAM sp;
	DAT_EVENT ev;
	int err2;
	u32 i;

	for (i = 0; m->c && i < m->n; i++) {
		if (m->c[i].ea)
			dat_ep_free(m->c[i].ea);
		if (m->c[i].sa)
			sock_release(m->c[i].sa);
	}
	while (m->cr && dat_evd_dequeue(m->cr, &ev) == DAT_SUCCESS) {
		if (ev.event_number == DAT_CONNECTION_REQUEST_EVENT)
			dat_cr_reject(ev.event_data.cr_arrival_event_data
				      .cr_handle, 0, NULL);
		else if (ev.event_number == DAT_CONNECTION_EVENT_SOCKET_DOWN)
			many_socket_down(m, &ev);
	}
	for (i = 0; m->c && i < m->n; i++) {
		struct many_conn *c = &m->c[i];

		if (c->ssp) {
			sp.socket_id = NULL;
			dat_iw_ssp_query(c->ssp, DAT_IW_SSP_FIELD_SOCKET_ID, &sp);
			if (dat_iw_ssp_free(c->ssp) != DAT_SUCCESS)
				err = err ?: dat_fail("dat_iw_ssp_free", 0);
			if (sp.socket_id)
				sock_release(sp.socket_id);
		}
		if (c->eb)
			dat_ep_free(c->eb);
	}
	if (m->psp && dat_psp_free(m->psp) != DAT_SUCCESS)
		err = err ?: dat_fail("dat_psp_free", 0);
	if (m->cr) {
		bench_ev_untie(m->cr);
		if (dat_evd_free(m->cr) != DAT_SUCCESS)
			err = err ?: dat_fail("dat_evd_free", 0);
	}
	if (m->ls)
		sock_release(m->ls);
	bench_mem_close(&m->ma);
	bench_mem_close(&m->mb);
	kvfree(m->c);
	err2 = st_side_close(&m->a, !err);
	err = err ?: err2;
	err2 = st_side_close(&m->b, !err);
	return err ?: err2;
}

/**
 * st_many() - the "many" and "many_ssp" stress commands (top of the file)
 * @cmd: the command: conns, hold, ms and the usual keys
 * @ssp: every connection over a taken-over TCP connection
 *
 * Context: process context, bench_mutex held.
 * Return: 0 when every check held, else a negative errno (the kernel log
 * says which check failed).
 */
int st_many(const struct bench_cmd *cmd, bool ssp)
{
	struct many m = { .cmd = cmd, .ssp = ssp, .n = cmd->conns };
	/* per EP at most two connection and two DTO events */
	int qlen = 2 * m.n + 16;
	u32 i, goal = m.n;
	ktime_t t;
	int err;

	m.end = jiffies + msecs_to_jiffies(cmd->ms);
	m.c = kvcalloc(m.n, sizeof(*m.c), GFP_KERNEL);
	if (!m.c)
		return -ENOMEM;
	err = st_addr(cmd, &m.sin);
	err = err ?: st_side_open(&m.a, cmd->ia_a, qlen);
	err = err ?: st_side_open(&m.b, cmd->ia_b, qlen);
	err = err ?: bench_mem_open(&m.ma, m.a.ia, m.a.pz,
				    many_off(m.n, 0));
	err = err ?: bench_mem_open(&m.mb, m.b.ia, m.b.pz,
				    many_off(m.n, 0));
	for (i = 0; i < m.n && !err; i++)
		err = many_ep_make(&m.a, &m.c[i].ea) ?:
		      many_ep_make(&m.b, &m.c[i].eb);
	err = err ?: many_listen(&m);
	err = err ?: many_until(&m, &m.checked, goal, "checked");
	if (!err && cmd->hold) {
		/* all up: the guest counts them; nothing may happen */
		unsigned long hold = jiffies + msecs_to_jiffies(cmd->hold);

		bench_emit(cmd->tag, "all_up", m.up * 1000ULL);
		while (!err && time_before(jiffies, hold))
			err = many_poll(&m);
	}
	if (!err) {
		m.disconnecting = true;
		for (i = 0; i < m.n && !err; i++)
			err = dat_chk("dat_ep_disconnect",
				      dat_ep_disconnect(i & 1 ? m.c[i].eb :
							m.c[i].ea,
							DAT_CLOSE_GRACEFUL_FLAG));
		goal = 2 * m.n;
		t = ktime_get();
		err = err ?: many_until(&m, &m.ended, goal, "ended");
		bench_emit(cmd->tag, "disconnect_ms",
			   ktime_ms_delta(ktime_get(), t) * 1000);
	}
	bench_emit(cmd->tag, "conns", m.up * 1000ULL);
	bench_emit(cmd->tag, "checked", m.checked * 1000ULL);
	bench_emit(cmd->tag, "bytes", m.bytes * 1000);
	bench_emit(cmd->tag, "eps_ended", m.ended * 1000ULL);
	bench_emit(cmd->tag, "eps_broken", m.broken * 1000ULL);
	return many_close(&m, err);
}
