// SPDX-License-Identifier: GPL-2.0
/*
 * kiwarp: the iw_cm glue - TCP connections and MPA connection setup.
 *
 * Sockets are kernel TCP sockets in the netdev's network namespace,
 * IPv4 or IPv6 as the cm_id's addresses are, Nagle off (TCP_NODELAY),
 * other options left as they are.
 *
 * Active side (iw_connect): a connection endpoint (struct kiwarp_cep)
 * is set up in a work: bind to the cm_id's local address, connect, send
 * the MPA Request, read the Reply, bind the socket to the QP (RTS) and
 * report IW_CM_EVENT_CONNECT_REPLY - exactly once, with an error status
 * on any failure (a reject gives -ECONNREFUSED with its private data, a
 * TCP failure -ETIMEDOUT if unreachable or not connected within 10 s,
 * else -ECONNABORTED; the TCP error is logged unless it is a refusal).
 *
 * Passive side (iw_create_listen): one listening socket per address of
 * the netdev (a wildcard listen never takes connections for other
 * devices' addresses; a netdev without address listens nowhere): an
 * IPv4 wildcard takes the IPv4 addresses, an IPv6 wildcard the IPv6
 * ones (v6-only sockets) and, unless the cm_id is afonly, the IPv4 ones.
 * Accepted sockets become ceps; a work reads the MPA Request, answers
 * markers or impossible RFC 6581 requests with an MPA reject and
 * otherwise reports IW_CM_EVENT_CONNECT_REQUEST (provider_data = cep).
 * The Request is read as it comes, never waited for: the child socket's
 * data_ready and state_change queue the cep's work, which takes what is
 * there without blocking, and a timer ends the wait after
 * KIWARP_CM_TIMEOUT, as siw's event-driven MPA setup. A work that slept
 * in recvmsg held a kiwarp_wq worker per silent peer; once the pool was
 * short of workers its rescuer, which runs works one by one, stalled
 * every other setup behind one such wait - and in one host, behind a
 * passive work waiting for a Request the stalled active work was to
 * send (stress "many": the 32nd of 32 concurrent connects timed out).
 * iw_accept sends the Reply, binds the QP and reports ESTABLISHED;
 * iw_reject sends a reject Reply.
 *
 * MPA: revision 2 with the RFC 6581 IRD/ORD block (E flag), as siw does
 * by default; revision 1 peers are served; no peer-to-peer RTR (a P
 * request is rejected, siw does not send one by default). CRC is used
 * when either side asks (module parameter mpa_crc for our side).
 *
 * After setup the QP owns the socket and the cm_id reference; its
 * teardown (kiwarp_qp_down_work) reports IW_CM_EVENT_DISCONNECT (peer
 * closed first) and IW_CM_EVENT_CLOSE, then drops the cm_id.
 */

#include <linux/slab.h>
#include <linux/inetdevice.h>
#include <linux/tcp.h>
#include <linux/wait_bit.h>
#include <net/addrconf.h>
#include <net/ipv6.h>
#include <net/tcp.h>

#include <kiwarp/reject.h>

#include "kiwarp.h"
#include "kiwarp_trace.h"

#define KIWARP_CM_TIMEOUT	(10 * HZ)

/**
 * kiwarp_cm_timeout() - how long a connect may take to establish
 * @qp: the connecting QP
 *
 * A consumer that runs its own connect time-out passes it as
 * IB_QP_TIMEOUT (as IB's local ACK timeout: 4.096 us << t, 0 for none)
 * before connecting, and ends the connect itself when it gives up (the
 * QP to ERROR, kiwarp_cm_connect_abort()): kdapl does, on every path
 * (its time-out, an EP freed or reset, its device client's removal).
 * 0 is for such a consumer only: nothing else ends that wait, and
 * iw_cm's destroy of a connecting cm_id waits for it. One that sets
 * nothing (rdma_cm ULPs) gets KIWARP_CM_TIMEOUT, siw's bound.
 *
 * Return: the TCP handshake's and the MPA Reply wait's bound, in jiffies.
 */
static long kiwarp_cm_timeout(struct kiwarp_qp *qp)
{
	u8 t = READ_ONCE(qp->cm_timeout);
	u64 ns;

	if (!READ_ONCE(qp->cm_timeout_set))
		return KIWARP_CM_TIMEOUT;
	if (!t)
		return MAX_SCHEDULE_TIMEOUT;
	ns = 4096ULL << min_t(u8, t, 31);
	/* at least a jiffy: a socket time-out of 0 would not wait at all */
	return clamp_t(u64, nsecs_to_jiffies64(ns), 1,
		       MAX_SCHEDULE_TIMEOUT - 1);
}

#define KIWARP_LISTEN_ADDRS	8
#define KIWARP_MPA_BUF		(MPA_RR_HDR_LEN + MPA_MAX_PRIVDATA)

/*
 * struct kiwarp_listen - a listening iw_cm_id.
 *
 * Owner: the cm_id (provider_data) from create_listen to destroy_listen;
 * @ref: one for the cm_id, one per cep it accepted. @lock protects
 * @closing and @pending; @socks are fixed after create_listen and
 * released by destroy_listen after the accept work is cancelled.
 * Holds an iw_cm_id reference (add_ref) until destroy_listen.
 */
struct kiwarp_listen {
	struct kref ref;
	struct kiwarp_dev *kdev;
	struct iw_cm_id *cm_id;
	struct mutex lock;		/* closing, pending */
	bool closing;
	struct list_head pending;	/* ceps not yet accepted/rejected */
	struct socket *socks[KIWARP_LISTEN_ADDRS];
	int nsocks;
	void (*orig_data_ready)(struct sock *sk);
	struct work_struct accept_work;
};

enum kiwarp_cep_state {
	KIWARP_CEP_SETUP,	/* handshake work running */
	KIWARP_CEP_OFFERED,	/* CONNECT_REQUEST reported, awaiting ULP */
	KIWARP_CEP_DONE,	/* accepted, rejected or failed */
};

/*
 * struct kiwarp_cep - one TCP connection during MPA setup.
 *
 * @ref: the setup work's (passive: one per queueing of @work, dropped
 * when that run ends), the listener's pending list's, the socket
 * callbacks' while @hooked, @timer's while pending, and the one handed
 * to iw_cm with CONNECT_REQUEST (dropped by accept/reject).
 * @lock protects @state and @sock (released or handed to the QP when
 * the state becomes DONE). Active side: @cm_id and @qp referenced
 * (add_ref, kiwarp_qp_get) until CONNECT_REPLY is reported.
 */
struct kiwarp_cep {
	struct kref ref;
	struct kiwarp_dev *kdev;
	struct mutex lock;		/* state, sock */
	enum kiwarp_cep_state state;
	struct socket *sock;
	struct iw_cm_id *cm_id;
	struct kiwarp_qp *qp;
	struct kiwarp_listen *listen;	/* passive: ref held */
	struct list_head entry;		/* listen->pending */
	struct work_struct work;
	struct work_struct abort_work;	/* active: kiwarp_cm_connect_abort() */
	bool aborted;			/* active: set under @lock; the
					 * handshake wait reads it without
					 * (kiwarp_connect_settled())
					 */
	struct timer_list timer;	/* passive: the Request's time-out */
	bool timed_out;			/* passive: set by @timer */
	bool hooked;			/* passive: our socket callbacks are
					 * in, under sk_callback_lock
					 */
	bool got_req;			/* passive: the work is past the
					 * Request (the work's only)
					 */
	u16 rcvd;			/* passive: Request bytes in @buf */
	u16 req_pd;			/* passive: its PD_Length */
	void (*saved_data_ready)(struct sock *sk);
	void (*saved_state_change)(struct sock *sk);
	struct mpa_frame_info req;	/* passive: the request */
	struct mpa_frame_info rep;	/* passive: negotiated reply */
	u32 ird;			/* active: asked by the ULP */
	u32 ord;
	u16 pd_len;			/* active: our private data */
	u8 buf[KIWARP_MPA_BUF];		/* MPA frame in or out */
};

static void kiwarp_listen_free(struct kref *ref)
{
	kfree(container_of(ref, struct kiwarp_listen, ref));
}

static void kiwarp_cep_free(struct kref *ref)
{
	struct kiwarp_cep *cep = container_of(ref, struct kiwarp_cep, ref);

	if (cep->sock)
		sock_release(cep->sock);
	if (cep->listen)
		kref_put(&cep->listen->ref, kiwarp_listen_free);
	kfree(cep);
}

static void kiwarp_cep_put(struct kiwarp_cep *cep)
{
	kref_put(&cep->ref, kiwarp_cep_free);
}

/*
 * Queue @cep's passive work, with a reference for that run. Context:
 * any; the caller holds a reference (the callbacks' or the timer's), so
 * the put of a work already queued is never the last.
 */
static void kiwarp_cep_kick(struct kiwarp_cep *cep)
{
	kref_get(&cep->ref);
	if (!queue_work(kiwarp_wq, &cep->work))
		kiwarp_cep_put(cep);
}

/* The Request did not come in time: the work ends the connection. */
static void kiwarp_cep_timeout(struct timer_list *t)
{
	struct kiwarp_cep *cep = from_timer(cep, t, timer);

	WRITE_ONCE(cep->timed_out, true);
	kiwarp_cep_kick(cep);
	kiwarp_cep_put(cep);	/* the timer's: the work holds one */
}

static struct kiwarp_cep *kiwarp_cep_new(struct kiwarp_dev *kdev)
{
	struct kiwarp_cep *cep = kzalloc(sizeof(*cep), GFP_KERNEL);

	if (!cep)
		return NULL;
	kref_init(&cep->ref);
	mutex_init(&cep->lock);
	INIT_LIST_HEAD(&cep->entry);
	timer_setup(&cep->timer, kiwarp_cep_timeout, 0);
	cep->kdev = kdev;
	return cep;
}

static void kiwarp_listen_put(struct kiwarp_listen *l)
{
	kref_put(&l->ref, kiwarp_listen_free);
}

static void kiwarp_sock_tune(struct socket *sock)
{
	tcp_sock_set_nodelay(sock->sk);
	sock->sk->sk_rcvtimeo = KIWARP_CM_TIMEOUT;
	sock->sk->sk_sndtimeo = KIWARP_CM_TIMEOUT;
}

static int kiwarp_send_all(struct socket *sock, const void *buf, size_t len)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
	int ret = kernel_sendmsg(sock, &msg, &iov, 1, len);

	if (ret < 0)
		return ret;
	return ret == len ? 0 : -EIO;
}

static int kiwarp_recv_all(struct socket *sock, void *buf, size_t len)
{
	struct kvec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = {};
	int ret;

	if (!len)
		return 0;
	ret = kernel_recvmsg(sock, &msg, &iov, 1, len, MSG_WAITALL);
	if (ret < 0)
		return ret;
	return ret == len ? 0 : -ECONNRESET;
}

/*
 * Read one MPA Request/Reply into @buf: header and PD_Length bytes.
 * On return @fi is decoded (v2 block included) and *@ulp_pd points at
 * the ULP private data of fi->pd_len bytes.
 */
static int kiwarp_mpa_recv(struct socket *sock, u8 *buf,
			   enum mpa_frame_kind kind, struct mpa_frame_info *fi,
			   u8 **ulp_pd)
{
	u16 total;
	int ret;

	ret = kiwarp_recv_all(sock, buf, MPA_RR_HDR_LEN);
	if (ret)
		return ret;
	fi->kind = kind;
	ret = mpa_frame_decode_header(buf, MPA_RR_HDR_LEN, fi, &total);
	if (ret)
		return ret;
	ret = kiwarp_recv_all(sock, buf + MPA_RR_HDR_LEN, total);
	if (ret)
		return ret;
	*ulp_pd = buf + MPA_RR_HDR_LEN;
	if (fi->v2_enhanced) {
		ret = mpa_frame_decode_v2(*ulp_pd, total, fi);
		if (ret)
			return ret;
		*ulp_pd += MPA_V2_BLOCK_LEN;
	}
	return 0;
}

/*
 * Take bytes of the passive side's Request into cep->buf up to @upto
 * without blocking. Return: 0 once there, -EAGAIN while more is to come,
 * -ECONNRESET at the peer's FIN, else the socket's error.
 */
static int kiwarp_cep_recv_upto(struct kiwarp_cep *cep, u16 upto)
{
	struct msghdr msg = {};
	struct kvec iov;
	int ret;

	while (cep->rcvd < upto) {
		iov.iov_base = cep->buf + cep->rcvd;
		iov.iov_len = upto - cep->rcvd;
		ret = kernel_recvmsg(cep->sock, &msg, &iov, 1, iov.iov_len,
				     MSG_DONTWAIT);
		if (ret == 0)
			return -ECONNRESET;
		if (ret < 0)
			return ret;
		cep->rcvd += ret;
	}
	return 0;
}

/*
 * The passive side's MPA Request, as far as it has come: 0 once all of
 * it is read (cep->req decoded, *@ulp_pd at the ULP private data of
 * cep->req.pd_len bytes), -EAGAIN while more is to come, else the error.
 * Nothing past the Request is read: the peer's first FPDU is the QP's.
 */
static int kiwarp_cep_read_req(struct kiwarp_cep *cep, u8 **ulp_pd)
{
	int ret;

	if (cep->rcvd < MPA_RR_HDR_LEN) {
		ret = kiwarp_cep_recv_upto(cep, MPA_RR_HDR_LEN);
		if (ret)
			return ret;
		cep->req.kind = MPA_KIND_REQUEST;
		ret = mpa_frame_decode_header(cep->buf, MPA_RR_HDR_LEN,
					      &cep->req, &cep->req_pd);
		if (ret)
			return ret;
	}
	ret = kiwarp_cep_recv_upto(cep, MPA_RR_HDR_LEN + cep->req_pd);
	if (ret)
		return ret;
	*ulp_pd = cep->buf + MPA_RR_HDR_LEN;
	if (cep->req.v2_enhanced) {
		ret = mpa_frame_decode_v2(*ulp_pd, cep->req_pd, &cep->req);
		if (ret)
			return ret;
		*ulp_pd += MPA_V2_BLOCK_LEN;
	}
	return 0;
}

/* A passive cep's socket has data, or changed state: read on. */
static void kiwarp_cep_sk_event(struct sock *sk)
{
	struct kiwarp_cep *cep;

	read_lock_bh(&sk->sk_callback_lock);
	cep = sk->sk_user_data;
	if (cep)
		kiwarp_cep_kick(cep);
	read_unlock_bh(&sk->sk_callback_lock);
}

/*
 * Watch a passive cep's socket until its Request is read, within
 * KIWARP_CM_TIMEOUT. The child inherited the listener's callbacks:
 * data_ready goes back to TCP's own (@orig_data_ready) at the unhook.
 */
static void kiwarp_cep_hook(struct kiwarp_cep *cep,
			    void (*orig_data_ready)(struct sock *sk))
{
	struct sock *sk = cep->sock->sk;

	/*
	 * The timer first: once the callbacks are in, a run on another CPU
	 * may read the whole Request and unhook, and a timer armed after
	 * that would hold the cep (and its socket) for the whole bound.
	 */
	kref_get(&cep->ref);	/* the timer's */
	mod_timer(&cep->timer, jiffies + KIWARP_CM_TIMEOUT);
	kref_get(&cep->ref);	/* the callbacks' */
	write_lock_bh(&sk->sk_callback_lock);
	cep->saved_data_ready = orig_data_ready;
	cep->saved_state_change = sk->sk_state_change;
	sk->sk_user_data = cep;
	sk->sk_data_ready = kiwarp_cep_sk_event;
	sk->sk_state_change = kiwarp_cep_sk_event;
	cep->hooked = true;
	write_unlock_bh(&sk->sk_callback_lock);
}

/* Undo kiwarp_cep_hook(); the caller holds a reference of its own. */
static void kiwarp_cep_unhook(struct kiwarp_cep *cep)
{
	struct sock *sk = cep->sock->sk;
	bool hooked;

	write_lock_bh(&sk->sk_callback_lock);
	hooked = cep->hooked;
	if (hooked) {
		sk->sk_user_data = NULL;
		sk->sk_data_ready = cep->saved_data_ready;
		sk->sk_state_change = cep->saved_state_change;
		cep->hooked = false;
	}
	write_unlock_bh(&sk->sk_callback_lock);
	if (del_timer_sync(&cep->timer))
		kiwarp_cep_put(cep);	/* the timer's */
	if (hooked)
		kiwarp_cep_put(cep);	/* the callbacks' */
}

static int kiwarp_mpa_send(struct socket *sock, u8 *buf,
			   const struct mpa_frame_info *fi, const void *pd,
			   u16 pd_len)
{
	int len = mpa_frame_encode(fi, pd, pd_len, buf, KIWARP_MPA_BUF);

	if (len < 0)
		return len;
	return kiwarp_send_all(sock, buf, len);
}

/*
 * Report one event to iw_cm. @sock, when given, supplies the addresses
 * (a CONNECT_REQUEST's become the new cm_id's), else the cm_id's.
 * Return: iw_cm's answer; -ENOMEM when it had no room for the event
 * (its listener's backlog of work entries is used up).
 */
static int kiwarp_cm_event(struct iw_cm_id *id, enum iw_cm_event_type type,
			   int status, const void *pd, u16 pd_len, u32 ird,
			   u32 ord, void *provider_data, struct socket *sock)
{
	struct iw_cm_event ev = {
		.event = type,
		.status = status,
		.local_addr = id->local_addr,
		.remote_addr = id->remote_addr,
		.private_data = (void *)pd,
		/*
		 * iw_cm's event has a u8 length: a peer's MPA private data
		 * beyond 255 bytes (it may send 512) is cut there, never
		 * wrapped (300 bytes must not arrive as 44).
		 */
		.private_data_len = min_t(u16, pd_len, U8_MAX),
		.ird = min_t(u32, ird, U8_MAX),
		.ord = min_t(u32, ord, U8_MAX),
		.provider_data = provider_data,
	};

	if (sock) {
		kernel_getsockname(sock, (struct sockaddr *)&ev.local_addr);
		kernel_getpeername(sock, (struct sockaddr *)&ev.remote_addr);
	}
	return id->event_handler(id, &ev);
}

/* --- the QP's connection: socket callbacks, bind, teardown ---------- */

void kiwarp_sk_data_ready(struct sock *sk)
{
	struct kiwarp_qp *qp;

	read_lock_bh(&sk->sk_callback_lock);
	qp = sk->sk_user_data;
	if (qp)
		kiwarp_rx_data_ready(qp, sk);
	read_unlock_bh(&sk->sk_callback_lock);
}

/*
 * TCP has room again after a send that found none (SOCK_NOSPACE): the
 * TX work goes on with its message (tx.c), if it is waiting for room
 * (qp->tx_blocked). The original callback runs first: it clears
 * SOCK_NOSPACE, which the TX work may set again, and wakes a zero-copy
 * send waiting for room.
 */
void kiwarp_sk_write_space(struct sock *sk)
{
	struct kiwarp_qp *qp;

	read_lock_bh(&sk->sk_callback_lock);
	qp = sk->sk_user_data;
	if (qp) {
		qp->saved.write_space(sk);
		if (READ_ONCE(qp->tx_blocked) && sk_stream_is_writeable(sk)) {
			WRITE_ONCE(qp->tx_blocked, false);
			kiwarp_qp_kick_tx_home(qp);
		}
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

void kiwarp_sk_state_change(struct sock *sk)
{
	void (*orig)(struct sock *sk) = NULL;
	struct kiwarp_qp *qp;

	read_lock_bh(&sk->sk_callback_lock);
	qp = sk->sk_user_data;
	if (qp) {
		orig = qp->saved.state_change;
		/* EOF or reset: the RX work finds out and tears down */
		kiwarp_qp_queue(qp, &qp->rx_work);
	}
	read_unlock_bh(&sk->sk_callback_lock);
	if (orig)
		orig(sk);
}

/**
 * kiwarp_qp_bind_socket() - connection set up: the QP takes the socket.
 * @qp: a QP in IDLE
 * @sock: the connected socket, MPA exchange done
 * @b: who to tell when the connection is down (@b->priv's reference
 *	passes to the QP), the callbacks to restore at teardown (NULL:
 *	the socket's current ones), the negotiated MPA parameters
 *
 * The callbacks are switched under sk_callback_lock; bytes already
 * queued behind the MPA frames are parsed by the RX work queued here.
 *
 * Context: process. Return: 0 (QP in RTS, works started) or -EINVAL
 * when the QP is not IDLE; then nothing was taken.
 */
int kiwarp_qp_bind_socket(struct kiwarp_qp *qp, struct socket *sock,
			  const struct kiwarp_bind *b)
{
	struct sock *sk = sock->sk;
	unsigned long flags;
	int ret, i;

	mutex_lock(&qp->conn_lock);
	spin_lock_irqsave(&qp->state_lock, flags);
	ret = -EINVAL;
	if (qp->state == KIWARP_QPS_IDLE && !qp->sock)
		ret = 0;
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (ret)
		goto out;

	/* without its records the connection just sends by copy */
	qp->zc_min = kiwarp_zc_min_for(sk);
	if (qp->zc_min && kiwarp_zc_attach(qp))
		ibdev_dbg(qp->ibqp.device, "qp %u: no zero-copy records\n",
			  qp->ibqp.qp_num);
	qp->sock = sock;
	qp->conn_ops = b->ops;
	qp->conn_priv = b->priv;
	qp->sock_mode = b->sock_mode;
	qp->crc = b->crc;
	qp->mpa_rev = b->rev;
	qp->ird = min_t(u32, b->ird, qp->irq_size);
	qp->ord = min_t(u32, b->ord, qp->orq_size);
	/*
	 * FPDUs sized to the path: one MSS (RFC 5044's EMSS rule) unless
	 * both MPA frames offered larger ones (siw's GSO bit): then up to
	 * fpdu_segs segments, paying the per-FPDU work (header, one
	 * sendmsg, the receiver's header and trailer reads) once per
	 * fpdu_segs segments; markers are never used, so the peer does
	 * not depend on the boundaries.
	 */
	qp->fpdu_max = max_t(u32, tcp_sk(sk)->mss_cache, 128) *
		       (b->large_fpdu ?
			clamp_t(u32, READ_ONCE(kiwarp_fpdu_segs), 1, 64) : 1);
	kiwarp_tx_release(qp);	/* no message of a last connection */
	qp->fin_sent = false;
	qp->fin_lost = false;
	qp->peer_closed = false;
	qp->peer_told = false;
	qp->local_close = false;
	qp->abort = false;
	WRITE_ONCE(qp->rx_src_cpu, -1);	/* a last connection's CPU */
	memset(&qp->rx, 0, sizeof(qp->rx));
	for (i = 0; i < DDP_QN_COUNT; i++) {
		qp->rx.msn[i] = 1;
		qp->send_msn[i] = 1;
	}
	kernel_getsockname(sock, (struct sockaddr *)&qp->laddr);
	kernel_getpeername(sock, (struct sockaddr *)&qp->raddr);
	sk->sk_rcvtimeo = MAX_SCHEDULE_TIMEOUT;
	sk->sk_sndtimeo = MAX_SCHEDULE_TIMEOUT;

	write_lock_bh(&sk->sk_callback_lock);
	if (b->orig) {
		qp->saved = *b->orig;
	} else {
		qp->saved.user_data = NULL;
		qp->saved.data_ready = sk->sk_data_ready;
		qp->saved.state_change = sk->sk_state_change;
		qp->saved.write_space = sk->sk_write_space;
	}
	sk->sk_user_data = qp;
	sk->sk_data_ready = kiwarp_sk_data_ready;
	sk->sk_state_change = kiwarp_sk_state_change;
	sk->sk_write_space = kiwarp_sk_write_space;
	write_unlock_bh(&sk->sk_callback_lock);
	trace_kiwarp_bind(qp);

	spin_lock_irqsave(&qp->state_lock, flags);
	kiwarp_qp_set_state_locked(qp, KIWARP_QPS_RTS);
	qp->conn_up = true;
	qp->fatal_told = false;
	qp->term_sent = false;
	qp->down_queued = false;
	qp->down_status = 0;
	qp->down_status_set = false;
	spin_unlock_irqrestore(&qp->state_lock, flags);
	/* the connection is reported before its teardown can start */
	if (b->up)
		b->up(qp, b->priv, b->up_arg);
out:
	mutex_unlock(&qp->conn_lock);
	if (!ret) {
		/* data that came with or right after the MPA frames */
		kiwarp_qp_queue(qp, &qp->rx_work);
		kiwarp_qp_kick_tx(qp);
	}
	return ret;
}

/**
 * kiwarp_tcp_shutdown() - kernel_sock_shutdown(), telling a lost FIN
 * @sock: a connected TCP socket of a QP
 * @how: SHUT_WR or SHUT_RDWR
 *
 * With nothing unsent in its write queue to carry the FIN, TCP allocates
 * one (tcp_send_fin(), GFP_ATOMIC) and, when that fails, sends none and
 * arms no timer: the socket sits in FIN_WAIT1 or LAST_ACK and the peer
 * never learns of our close. A FIN that was queued took a sequence
 * number, so write_seq tells whether one was.
 *
 * Context: process context; the caller is the socket's writer (the TX
 * work, or the teardown once it stopped). A send racing with the
 * teardown's call can only hide a lost FIN, never invent one.
 * Return: false if a FIN was due and TCP queued none.
 */
bool kiwarp_tcp_shutdown(struct socket *sock, int how)
{
	struct sock *sk = sock->sk;
	u32 seq = READ_ONCE(tcp_sk(sk)->write_seq);
	int was = READ_ONCE(sk->sk_state);
#ifdef CONFIG_FAULT_INJECTION
	bool lose = atomic_add_unless(&kiwarp_test_lose_fin, -1, 0);

	if (unlikely(lose))
		current->fail_nth = 1;
#endif
	kernel_sock_shutdown(sock, how);
#ifdef CONFIG_FAULT_INJECTION
	if (unlikely(lose))
		current->fail_nth = 0;	/* not left to a later allocation */
#endif
	if (was != TCP_ESTABLISHED && was != TCP_CLOSE_WAIT)
		return true;		/* no FIN was due */
	if (READ_ONCE(tcp_sk(sk)->write_seq) != seq)
		return true;
	/*
	 * A FIN that took no sequence number looks acknowledged to TCP as
	 * soon as everything else is: the next ACK moves FIN_WAIT1 on to
	 * FIN_WAIT2, LAST_ACK to CLOSE, maybe before we look. Only CLOSE
	 * (that, or a reset) leaves nothing to tell or do.
	 */
	return READ_ONCE(sk->sk_state) == TCP_CLOSE;
}
EXPORT_SYMBOL_NS_GPL(kiwarp_tcp_shutdown, KIWARP_INTERNAL);

/*
 * Wait, at most KIWARP_TERM_WAIT_MS, until TCP has everything up to @end
 * acknowledged, the socket failed or the time is up. Nothing wakes us on
 * an ACK: poll.
 */
static void kiwarp_sk_wait_acked(struct sock *sk, u32 end)
{
	unsigned long tmo = jiffies + msecs_to_jiffies(KIWARP_TERM_WAIT_MS);

	while (before(READ_ONCE(tcp_sk(sk)->snd_una), end) &&
	       !READ_ONCE(sk->sk_err) &&
	       READ_ONCE(sk->sk_state) != TCP_CLOSE &&
	       time_before(jiffies, tmo))
		usleep_range(500, 1000);
}

/*
 * Reset the connection now, caller holding qp->conn_lock. The reset also
 * wakes a zero-copy send waiting for a window the peer never opens
 * (sk_err), so the teardown's flush cannot hang on a peer that stopped
 * reading. What it purges was not delivered: zero-copy batches among it
 * must not complete their WQEs (they get flushed).
 */
static void kiwarp_qp_reset_sock(struct kiwarp_qp *qp, struct sock *sk)
{
	kiwarp_zc_quiesce(qp);
	sock_no_linger(sk);
	tcp_abort(sk, ECONNABORTED);
}

/* The body of kiwarp_qp_down_work(). */
static void __kiwarp_qp_down_work(struct work_struct *work)
{
	struct kiwarp_qp *qp = container_of(work, struct kiwarp_qp, down_work);
	const struct kiwarp_conn_ops *ops;
	bool term_sent = false, fin_lost = false;
	struct socket *sock;
	unsigned long flags;
	struct sock *sk;
	void *priv;
	int status;

	/*
	 * A TERMINATE queued for the TX work goes out first (siw, too, sends
	 * a pending one before it drops the connection). Bounded: a peer
	 * that stopped reading would not read it either. One still not in
	 * TCP, or a batch TCP has part of, ends in a reset: a FIN behind a
	 * cut FPDU would be a framing error for the peer.
	 */
	wait_var_event_timeout(&qp->term_sending, !kiwarp_qp_term_busy(qp),
			       msecs_to_jiffies(KIWARP_TERM_WAIT_MS));
	if (kiwarp_qp_term_busy(qp) || READ_ONCE(qp->tx_partial))
		WRITE_ONCE(qp->abort, true);
	mutex_lock(&qp->conn_lock);
	sock = qp->sock;
	if (!sock) {
		mutex_unlock(&qp->conn_lock);
		goto out;
	}
	sk = sock->sk;
	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = qp->saved.user_data;
	sk->sk_data_ready = qp->saved.data_ready;
	sk->sk_state_change = qp->saved.state_change;
	sk->sk_write_space = qp->saved.write_space;
	write_unlock_bh(&sk->sk_callback_lock);
	if (READ_ONCE(qp->abort)) {
		kiwarp_qp_reset_sock(qp, sk);
	} else {
		/*
		 * FIN; SEND_SHUTDOWN wakes a zero-copy send waiting too.
		 * Not the receive side after a TERMINATE: data the peer
		 * still streams would then draw a reset from TCP at once
		 * (FIN_WAIT1 with RCV_SHUTDOWN, RFC 1122), overtaking it.
		 */
		term_sent = qp->term_sent;
		fin_lost = !kiwarp_tcp_shutdown(sock, term_sent ? SHUT_WR :
						SHUT_RDWR);
		/* the TX work's close lost it, and its reset did not come */
		spin_lock_irqsave(&qp->state_lock, flags);
		fin_lost |= qp->fin_lost;
		spin_unlock_irqrestore(&qp->state_lock, flags);
	}
	mutex_unlock(&qp->conn_lock);
	/*
	 * A TERMINATE we sent must be the peer's before a reset: releasing
	 * a socket with unread data (the peer's stream, which we stopped
	 * parsing at the error) sends a RST, and one that overtakes the
	 * TERMINATE (veth queues each CPU's packets on that CPU's backlog,
	 * and the teardown runs elsewhere than the TX work) has the peer
	 * drop it and see a plain reset: DISCONNECTED for a connection that
	 * ended in error. Acknowledged, it is in the peer's receive queue,
	 * which a later reset leaves to be read.
	 */
	if (term_sent)
		kiwarp_sk_wait_acked(sk, qp->term_end);
	if (fin_lost) {
		/*
		 * The peer would wait for a FIN that never comes. From
		 * FIN_WAIT1 (we closed first) a reset ends it, once what
		 * we sent is acknowledged or KIWARP_TERM_WAIT_MS passed.
		 * In LAST_ACK (our answer to the peer's FIN) TCP has no
		 * reset to send (tcp_need_reset()), and the peer's close
		 * ends at its bound; the abort still ends our socket,
		 * which would otherwise stay, orphaned, in LAST_ACK with
		 * no timer to end it.
		 */
		ibdev_dbg(qp->ibqp.device, "qp %u: no FIN queued: reset\n",
			  qp->ibqp.qp_num);
		kiwarp_sk_wait_acked(sk, READ_ONCE(tcp_sk(sk)->write_seq));
		mutex_lock(&qp->conn_lock);
		kiwarp_qp_reset_sock(qp, sk);
		mutex_unlock(&qp->conn_lock);
	}

	/*
	 * RX first: no placement once the SQ (and its Reads) is flushed.
	 * Not under conn_lock: the connect work takes it on kiwarp_cm_wq.
	 */
	flush_work(&qp->rx_work);
	spin_lock_irqsave(&qp->state_lock, flags);
	qp->conn_up = false;
	status = qp->down_status;
	spin_unlock_irqrestore(&qp->state_lock, flags);
	/*
	 * A pass that ran out of budget queued itself again: that one
	 * sees !conn_up and stops. None is queued after it (the socket
	 * callbacks are ours no more), so the socket can go.
	 */
	flush_work(&qp->rx_work);
	flush_work(&qp->tx_work);
	if (cancel_delayed_work_sync(&qp->close_work))
		kiwarp_qp_put(qp);
	/* a later TX pass only flushes (!conn_up): its message goes */
	kiwarp_tx_release(qp);

	mutex_lock(&qp->conn_lock);
	ops = qp->conn_ops;
	priv = qp->conn_priv;
	kiwarp_rx_release(qp);
	WRITE_ONCE(qp->sock, NULL);
	qp->conn_ops = NULL;
	qp->conn_priv = NULL;
	mutex_unlock(&qp->conn_lock);
	/*
	 * Zero-copy batches TCP still holds are not acknowledged: reset
	 * (which drops them) and let their WQEs be flushed, not completed.
	 */
	if (kiwarp_zc_busy(qp))
		sock_no_linger(sk);
	kiwarp_zc_detach(qp);
	sock_release(sock);

	kiwarp_qp_flush_rq(qp);
	kiwarp_qp_kick_tx(qp);	/* flushes the SQ now that we are down */
	if (ops)
		ops->down(qp, priv, status);
out:
	kiwarp_qp_put(qp);
}

/**
 * kiwarp_qp_down_work() - tear the QP's connection down.
 * @work: qp->down_work, queued once per connection by kiwarp_qp_error()
 *
 * Lets a pending TERMINATE go out, stops the socket callbacks and both
 * works, releases the socket (a reset when qp->abort, else after shutting
 * both halves down), flushes the queues and tells the connection's owner
 * (conn_ops->down), which drops its reference.
 */
void kiwarp_qp_down_work(struct work_struct *work)
{
	kiwarp_work_run(__kiwarp_qp_down_work, work);
}

/*
 * The iw_cm owner: DISCONNECT when the peer closed (at its FIN while we
 * were in RTS, else here), then CLOSE. iw_cm moves the cm_id to CLOSING
 * on DISCONNECT, where a consumer's graceful disconnect leaves the close
 * to us.
 */
static void kiwarp_iwcm_peer_closed(struct kiwarp_qp *qp, void *priv)
{
	/* a connect reported failed: iw_cm has no connection to close */
	if (READ_ONCE(qp->iwcm_failed))
		return;
	kiwarp_cm_event(priv, IW_CM_EVENT_DISCONNECT, 0, NULL, 0, 0, 0, NULL,
			NULL);
}

static void kiwarp_iwcm_down(struct kiwarp_qp *qp, void *priv, int status)
{
	struct iw_cm_id *cm_id = priv;

	/* a connect reported failed (kiwarp_iwcm_up()): nothing more */
	if (qp->iwcm_failed)
		goto out;
	if (READ_ONCE(qp->peer_closed) && !qp->peer_told)
		kiwarp_cm_event(cm_id, IW_CM_EVENT_DISCONNECT, 0, NULL, 0, 0, 0,
				NULL, NULL);
	kiwarp_cm_event(cm_id, IW_CM_EVENT_CLOSE, 0, NULL, 0, 0, 0, NULL,
			NULL);
out:
	cm_id->rem_ref(cm_id);
}

static const struct kiwarp_conn_ops kiwarp_iwcm_conn_ops = {
	.peer_closed = kiwarp_iwcm_peer_closed,
	.down = kiwarp_iwcm_down,
};

/* The event that reports an iw_cm connection up (kiwarp_bind.up) */
struct kiwarp_up_event {
	enum iw_cm_event_type type;
	const void *pd;
	u16 pd_len;
	u32 ird;
	u32 ord;
	struct socket *sock;	/* addresses from here, else the cm_id's */
};

/*
 * Under qp->conn_lock: iw_cm's event handler only queues the event, and
 * the socket cannot be released (the teardown needs conn_lock first).
 */
static void kiwarp_iwcm_up(struct kiwarp_qp *qp, void *priv, void *up_arg)
{
	const struct kiwarp_up_event *e = up_arg;

	qp->iwcm_failed = false;
	if (!kiwarp_cm_event(priv, e->type, 0, e->pd, e->pd_len, e->ird,
			     e->ord, NULL, e->sock) ||
	    e->type != IW_CM_EVENT_CONNECT_REPLY)
		return;
	/*
	 * iw_cm dropped the Reply: it copies the private data with
	 * GFP_ATOMIC, which may fail. Its cm_id would stay CONN_SENT for
	 * good - a disconnect or destroy waiting for ever, our CLOSE a
	 * BUG() in cm_close_handler(). Report the connect failed instead
	 * (no private data: nothing to allocate, and the work entry came
	 * back) and reset the connection without another word to iw_cm.
	 */
	ibdev_warn_ratelimited(qp->ibqp.device,
			       "qp %u: iw_cm could not take the connect's reply: connect failed\n",
			       qp->ibqp.qp_num);
	WRITE_ONCE(qp->iwcm_failed, true);	/* the RX work reads it */
	kiwarp_cm_event(priv, IW_CM_EVENT_CONNECT_REPLY, -ECONNABORTED, NULL,
			0, 0, 0, NULL, e->sock);
	kiwarp_qp_down_status(qp, -ECONNABORTED);
	WRITE_ONCE(qp->abort, true);
	kiwarp_qp_error(qp);
}

/* @b has what MPA negotiated; the rest is iw_cm's */
static int kiwarp_iwcm_bind(struct kiwarp_qp *qp, struct socket *sock,
			    struct iw_cm_id *cm_id, struct kiwarp_bind *b,
			    struct kiwarp_up_event *up)
{
	b->ops = &kiwarp_iwcm_conn_ops;
	b->priv = cm_id;
	b->up = kiwarp_iwcm_up;
	b->up_arg = up;
	return kiwarp_qp_bind_socket(qp, sock, b);
}

/* --- active side -------------------------------------------------- */

static int kiwarp_sock_new(struct kiwarp_dev *kdev, int family,
			   struct socket **sock)
{
	return sock_create_kern(dev_net(kdev->netdev), family, SOCK_STREAM,
				IPPROTO_TCP, sock);
}

/* Length of an AF_INET or AF_INET6 address (the only ones we take). */
static int kiwarp_addr_len(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
					   sizeof(struct sockaddr_in);
}

static void kiwarp_addr_set_port(struct sockaddr_storage *ss, __be16 port)
{
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = port;
	else
		((struct sockaddr_in *)ss)->sin_port = port;
}

/*
 * The connect is over, bound or failed: the QP no longer points at it
 * and an abort has no socket to shut down any more. Returns false if an
 * abort came first.
 */
static bool kiwarp_connect_unpublish(struct kiwarp_cep *cep)
{
	struct kiwarp_qp *qp = cep->qp;
	bool aborted, mine;

	spin_lock_irq(&qp->state_lock);
	mine = qp->connecting == cep;
	if (mine)
		qp->connecting = NULL;
	spin_unlock_irq(&qp->state_lock);
	mutex_lock(&cep->lock);
	cep->sock = NULL;
	aborted = cep->aborted;
	mutex_unlock(&cep->lock);
	if (mine)
		kiwarp_cep_put(cep);	/* qp->connecting's reference */
	return !aborted;
}

/* Whether kiwarp_cm_connect_abort() came for this connect. */
static bool kiwarp_connect_aborted(struct kiwarp_cep *cep)
{
	bool aborted;

	mutex_lock(&cep->lock);
	aborted = cep->aborted;
	mutex_unlock(&cep->lock);
	return aborted;
}

static void kiwarp_connect_abort_work(struct work_struct *work)
{
	struct kiwarp_cep *cep = container_of(work, struct kiwarp_cep,
					      abort_work);

	mutex_lock(&cep->lock);
	WRITE_ONCE(cep->aborted, true);
	if (cep->sock) {
		kernel_sock_shutdown(cep->sock, SHUT_RDWR);
		/* a handshake wait (kiwarp_connect_wait()) sees the flag */
		wake_up_interruptible_all(sk_sleep(cep->sock->sk));
	}
	mutex_unlock(&cep->lock);
	kiwarp_cep_put(cep);
}

/*
 * Wait up to @timeo for the TCP handshake that a non-blocking connect
 * started: 0 once established, the socket's error, -EALREADY when the
 * time ran out, -ECONNABORTED after an abort. Never a second connect: a
 * shutdown by the abort closes the socket, and a connect call would
 * open it again for a new handshake that nothing would end before TCP's
 * SYN retries. The abort wakes the socket's wait queue after setting
 * the flag; a state change (SYN-ACK, RST, a time-out of TCP's) wakes
 * it too.
 */
static bool kiwarp_connect_settled(struct kiwarp_cep *cep, struct sock *sk)
{
	return READ_ONCE(cep->aborted) ||
	       !((1 << READ_ONCE(sk->sk_state)) &
		 (TCPF_SYN_SENT | TCPF_SYN_RECV));
}

static int kiwarp_connect_wait(struct kiwarp_cep *cep, struct socket *sock,
			       long timeo)
{
	struct sock *sk = sock->sk;
	long left;

	left = wait_event_interruptible_timeout(*sk_sleep(sk),
						kiwarp_connect_settled(cep, sk),
						timeo);
	if (READ_ONCE(cep->aborted))
		return -ECONNABORTED;
	if (READ_ONCE(sk->sk_state) == TCP_ESTABLISHED)
		return 0;
	if (left <= 0)
		return left < 0 ? -ECONNABORTED : -EALREADY;
	return sock_error(sk) ?: -ECONNABORTED;
}

/**
 * kiwarp_cm_connect_abort() - end a connect whose QP went to ERROR
 * @qp: the QP
 *
 * iw_cm waits for a connect's CONNECT_REPLY before it lets the cm_id be
 * destroyed. A consumer that gives up on a connect (its time-out, the
 * EP freed) moves the QP to ERROR first: the connect's socket is shut
 * down, so the TCP handshake or the wait for the MPA Reply ends at once
 * with CONNECT_REPLY -ECONNABORTED instead of at KIWARP_CM_TIMEOUT.
 *
 * Context: any; the shutdown runs from kiwarp_wq.
 */
void kiwarp_cm_connect_abort(struct kiwarp_qp *qp)
{
	struct kiwarp_cep *cep;
	unsigned long flags;

	spin_lock_irqsave(&qp->state_lock, flags);
	cep = qp->connecting;
	if (cep)
		kref_get(&cep->ref);
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (cep && !queue_work(kiwarp_wq, &cep->abort_work))
		kiwarp_cep_put(cep);
}

static void __kiwarp_connect_work(struct work_struct *work)
{
	struct kiwarp_cep *cep = container_of(work, struct kiwarp_cep, work);
	struct iw_cm_id *id = cep->cm_id;
	struct kiwarp_qp *qp = cep->qp;
	struct mpa_frame_info fi = {};
	struct kiwarp_up_event up;
	struct kiwarp_bind b;
	struct socket *sock = NULL;
	u32 ird = cep->ird, ord = cep->ord;
	u8 *pd = NULL;
	bool crc, large, aborted;
	int ret;

	ret = kiwarp_sock_new(cep->kdev, id->m_local_addr.ss_family, &sock);
	if (ret)
		goto fail;
	/* from here an abort shuts it down: connect and MPA return at once */
	mutex_lock(&cep->lock);
	cep->sock = sock;
	ret = cep->aborted ? -ECONNABORTED : 0;
	mutex_unlock(&cep->lock);
	if (ret)
		goto fail;
	kiwarp_sock_tune(sock);
	/* the handshake and the MPA Reply: the consumer's bound, if any */
	sock->sk->sk_sndtimeo = kiwarp_cm_timeout(qp);
	sock->sk->sk_rcvtimeo = sock->sk->sk_sndtimeo;
	sock_set_reuseaddr(sock->sk);
	ret = kernel_bind(sock, (struct sockaddr *)&id->m_local_addr,
			  kiwarp_addr_len(&id->m_local_addr));
	if (ret == -EADDRINUSE) {
		/*
		 * rdma_cm picked the port in its own port space; TCP may
		 * hold it already (a TIME_WAIT of a plain socket). Let TCP
		 * choose: the CONNECT_REPLY reports the socket's address,
		 * which iw_cm keeps as the mapped one (m_local_addr).
		 */
		struct sockaddr_storage any = id->m_local_addr;

		kiwarp_addr_set_port(&any, 0);
		ret = kernel_bind(sock, (struct sockaddr *)&any,
				  kiwarp_addr_len(&any));
	}
	if (ret)
		goto fail;
	/*
	 * Start the handshake, then wait for it: an abort that came before
	 * (its shutdown of a socket not connecting yet did nothing) or
	 * comes meanwhile ends the wait at once (kiwarp_connect_wait()).
	 */
	ret = kernel_connect(sock, (struct sockaddr *)&id->m_remote_addr,
			     kiwarp_addr_len(&id->m_remote_addr), O_NONBLOCK);
	if (ret == -EINPROGRESS)
		ret = kiwarp_connect_wait(cep, sock, sock->sk->sk_sndtimeo);
	if (ret) {
		/*
		 * TCP failed. Anything but nobody listening is worth a line
		 * (a flaky test run needs the real error). rdma_cm reads
		 * -ECONNREFUSED as the remote consumer's reject: report an
		 * unreachable host or a handshake not done within the send
		 * timeout (-EINPROGRESS) as -ETIMEDOUT (UNREACHABLE) and
		 * anything else, a refused connection included, as
		 * -ECONNABORTED (CONNECT_ERROR).
		 */
		aborted = kiwarp_connect_aborted(cep);
		if (ret != -ECONNREFUSED && !aborted)
			ibdev_info_ratelimited(&cep->kdev->ibdev,
					       "TCP connect %pISpc -> %pISpc: %d\n",
					       &id->m_local_addr,
					       &id->m_remote_addr, ret);
		/* -EALREADY: the wait for the handshake timed out */
		ret = (ret == -ETIMEDOUT || ret == -EHOSTUNREACH ||
		       ret == -ENETUNREACH || ret == -EALREADY) &&
		      !aborted ? -ETIMEDOUT : -ECONNABORTED;
		goto fail;
	}

	fi.kind = MPA_KIND_REQUEST;
	fi.rev = MPA_REVISION_2;
	fi.crc = kiwarp_mpa_crc;
	fi.large_fpdu = kiwarp_large_fpdu_offered();
	fi.v2_enhanced = true;
	fi.ird = ird;
	fi.ord = ord;
	/*
	 * An abort between the check above and the waiting connect shut
	 * down a socket that connect then reopened: no Request on it.
	 */
	if (kiwarp_connect_aborted(cep)) {
		ret = -ECONNABORTED;
		goto fail;
	}
	/* the private data was copied behind the frame header space */
	ret = kiwarp_mpa_send(sock, cep->buf, &fi,
			      cep->buf + MPA_RR_HDR_LEN + MPA_V2_BLOCK_LEN,
			      cep->pd_len);
	if (ret)
		goto fail;
	crc = fi.crc;
	large = fi.large_fpdu;
	memset(&fi, 0, sizeof(fi));
	ret = kiwarp_mpa_recv(sock, cep->buf, MPA_KIND_REPLY, &fi, &pd);
	if (ret)
		goto fail;
	if (fi.reject) {
		ret = -ECONNREFUSED;
		goto fail;
	}
	if (fi.markers || fi.p2p || fi.rev > MPA_REVISION_2) {
		/* our refusal, not the peer consumer's: CONNECT_ERROR */
		ibdev_info_ratelimited(&cep->kdev->ibdev,
				       "connect %pISpc: MPA Reply asks for markers %d p2p %d rev %u: refused\n",
				       &id->m_remote_addr, fi.markers, fi.p2p,
				       fi.rev);
		ret = -ECONNABORTED;
		pd = NULL;
		goto fail;
	}
	/* never more outstanding reads than the responder takes */
	if (fi.v2_enhanced)
		ord = min_t(u32, ord, fi.ird);
	if (!kiwarp_connect_unpublish(cep)) {
		ret = -ECONNABORTED;
		pd = NULL;
		goto fail;
	}
	up = (struct kiwarp_up_event) {
		.type = IW_CM_EVENT_CONNECT_REPLY,
		.pd = pd, .pd_len = fi.pd_len,
		.ird = ird, .ord = ord,
		.sock = sock,
	};
	b = (struct kiwarp_bind) {
		.crc = crc || fi.crc,
		.large_fpdu = large && fi.large_fpdu,
		.rev = fi.rev,
		.ird = ird,
		.ord = ord,
	};
	/* CONNECT_REPLY is reported inside, before any CLOSE can be */
	ret = kiwarp_iwcm_bind(qp, sock, id, &b, &up);
	if (ret) {
		pd = NULL;
		goto fail;
	}
	/* the QP owns socket and cm_id reference now */
	kiwarp_qp_put(qp);
	kiwarp_cep_put(cep);
	return;

fail:
	ibdev_dbg(&cep->kdev->ibdev, "connect: %d\n", ret);
	kiwarp_connect_unpublish(cep);
	if (sock)
		sock_release(sock);
	/*
	 * rdma_cm reads -ECONNREFUSED and -ECONNRESET as the peer's reject
	 * (REJECTED), -ETIMEDOUT as UNREACHABLE, anything else as
	 * CONNECT_ERROR. Only an MPA reject Reply is a reject; a connection
	 * reset or closed during the exchange, or a Reply that is no MPA
	 * frame, is a transport failure.
	 */
	if (ret == -EAGAIN)
		ret = -ETIMEDOUT;
	else if (ret != -ECONNREFUSED && ret != -ETIMEDOUT)
		ret = -ECONNABORTED;
	if (ret != -ECONNREFUSED)
		pd = NULL;
	if (kiwarp_cm_event(id, IW_CM_EVENT_CONNECT_REPLY, ret,
			    pd, pd ? fi.pd_len : 0, 0, 0, NULL, NULL) && pd)
		/*
		 * iw_cm could not copy the reject's private data (GFP_ATOMIC)
		 * and dropped the event: the reject without it, which needs
		 * no allocation, or its cm_id would wait for ever.
		 */
		kiwarp_cm_event(id, IW_CM_EVENT_CONNECT_REPLY, ret, NULL, 0, 0,
				0, NULL, NULL);
	id->rem_ref(id);
	kiwarp_qp_put(qp);
	kiwarp_cep_put(cep);
}

static void kiwarp_connect_work(struct work_struct *work)
{
	kiwarp_work_run(__kiwarp_connect_work, work);
}

int kiwarp_cm_connect(struct iw_cm_id *id, struct iw_cm_conn_param *p)
{
	struct kiwarp_dev *kdev = to_kdev(id->device);
	struct kiwarp_cep *cep;
	struct kiwarp_qp *qp;
	bool busy;

	if ((id->m_local_addr.ss_family != AF_INET &&
	     id->m_local_addr.ss_family != AF_INET6) ||
	    id->m_remote_addr.ss_family != id->m_local_addr.ss_family)
		return -EAFNOSUPPORT;
	if (p->private_data_len > MPA_MAX_PRIVDATA - MPA_V2_BLOCK_LEN)
		return -EINVAL;
	qp = kiwarp_qp_lookup(kdev, p->qpn);
	if (!qp)
		return -EINVAL;
	cep = kiwarp_cep_new(kdev);
	if (!cep) {
		kiwarp_qp_put(qp);
		return -ENOMEM;
	}
	cep->qp = qp;		/* the lookup's reference */
	cep->cm_id = id;
	id->add_ref(id);
	cep->ird = min_t(u32, p->ird, KIWARP_MAX_IRD);
	cep->ord = min_t(u32, p->ord, KIWARP_MAX_ORD);
	cep->pd_len = p->private_data_len;
	if (p->private_data_len)
		memcpy(cep->buf + MPA_RR_HDR_LEN + MPA_V2_BLOCK_LEN,
		       p->private_data, p->private_data_len);
	INIT_WORK(&cep->work, kiwarp_connect_work);
	INIT_WORK(&cep->abort_work, kiwarp_connect_abort_work);
	/*
	 * One connect per QP, and only on an idle one; published under the
	 * lock that moves the QP to ERROR, so an abort either finds it or
	 * came first and is refused here.
	 */
	spin_lock_irq(&qp->state_lock);
	busy = qp->state != KIWARP_QPS_IDLE || qp->connecting;
	if (!busy) {
		kref_get(&cep->ref);	/* qp->connecting's */
		qp->connecting = cep;
	}
	spin_unlock_irq(&qp->state_lock);
	if (busy) {
		id->rem_ref(id);
		kiwarp_cep_put(cep);
		kiwarp_qp_put(qp);
		return -EINVAL;
	}
	queue_work(kiwarp_cm_wq, &cep->work);
	return 0;
}

/* --- passive side ------------------------------------------------- */

/* Local capabilities for mpa_negotiate() */
static void kiwarp_local_pref(struct mpa_frame_info *pref)
{
	memset(pref, 0, sizeof(*pref));
	pref->rev = MPA_REVISION_2;
	pref->crc = kiwarp_mpa_crc;
	pref->large_fpdu = kiwarp_large_fpdu_offered();
	pref->ird = KIWARP_MAX_IRD;
	pref->ord = KIWARP_MAX_ORD;
}

/* Answer @cep's MPA Request with a reject Reply and close our half. */
static void kiwarp_mpa_reject(struct kiwarp_cep *cep, const void *pdata,
			      u8 len)
{
	struct mpa_frame_info rep = cep->rep;

	rep.reject = true;
	rep.v2_enhanced = false;
	rep.ird = 0;
	rep.ord = 0;
	rep.p2p = false;
	rep.zero_len_rtr = false;
	rep.write_rtr = false;
	rep.read_rtr = false;
	if (len > MPA_MAX_PRIVDATA)
		len = 0;
	kiwarp_mpa_send(cep->sock, cep->buf, &rep, pdata, len);
	kernel_sock_shutdown(cep->sock, SHUT_RDWR);
}

/* Mark @cep DONE and drop it from its listener's pending list. */
static void kiwarp_cep_finish(struct kiwarp_cep *cep)
{
	struct kiwarp_listen *l = cep->listen;

	mutex_lock(&l->lock);
	if (!list_empty(&cep->entry)) {
		list_del_init(&cep->entry);
		kiwarp_cep_put(cep);	/* the pending list's reference */
	}
	mutex_unlock(&l->lock);
}

static void __kiwarp_passive_work(struct work_struct *work)
{
	struct kiwarp_cep *cep = container_of(work, struct kiwarp_cep, work);
	struct kiwarp_listen *l = cep->listen;
	struct mpa_frame_info pref;
	u8 *pd = NULL;
	int ret;

	if (cep->got_req) {
		/* a socket event queued us again after the Request */
		kiwarp_cep_put(cep);
		return;
	}
	ret = kiwarp_cep_read_req(cep, &pd);
	if (ret == -EAGAIN) {
		if (!READ_ONCE(cep->timed_out)) {
			/* the next socket event or the timer queues us */
			kiwarp_cep_put(cep);
			return;
		}
		ret = -ETIMEDOUT;
	}
	cep->got_req = true;
	kiwarp_cep_unhook(cep);
	if (ret)
		goto drop;
	kiwarp_local_pref(&pref);
	ret = mpa_negotiate(&cep->req, &pref, &cep->rep);
	if (ret) {
		/* markers, or RTR we cannot serve: a clear MPA reject */
		kiwarp_mpa_send(cep->sock, cep->buf, &cep->rep,
				KIWARP_NONPEER_REJECT,
				KIWARP_NONPEER_REJECT_LEN);
		goto drop;
	}
	mutex_lock(&l->lock);
	mutex_lock(&cep->lock);
	if (l->closing || cep->state != KIWARP_CEP_SETUP) {
		mutex_unlock(&cep->lock);
		mutex_unlock(&l->lock);
		goto drop;
	}
	cep->state = KIWARP_CEP_OFFERED;
	kref_get(&cep->ref);	/* iw_cm's, until accept or reject */
	/*
	 * As siw reports it, and rdma_cm maps it (initiator_depth = ird,
	 * responder_resources = ord): the Reads the listener's side may
	 * issue (the initiator's IRD, within our ORD) and those it must
	 * take (the initiator's ORD, within our IRD). An MPA v1 peer
	 * negotiates none: 0 and 0, as siw. svcrdma and nvmet-rdma refuse
	 * a request that allows them no Read.
	 */
	ret = kiwarp_cm_event(l->cm_id, IW_CM_EVENT_CONNECT_REQUEST, 0, pd,
			      cep->req.pd_len, cep->rep.ord, cep->rep.ird, cep,
			      cep->sock);
	if (ret) {
		/*
		 * iw_cm dropped the request (its backlog is full): nobody
		 * will accept or reject it. Take iw_cm's reference back,
		 * reject and let go of the connection.
		 */
		cep->state = KIWARP_CEP_DONE;
		kiwarp_cep_put(cep);	/* not the last: the work's is held */
		mutex_unlock(&cep->lock);
		mutex_unlock(&l->lock);
		atomic64_inc(&l->kdev->cr_dropped);
		kiwarp_mpa_reject(cep, KIWARP_NONPEER_REJECT,
				  KIWARP_NONPEER_REJECT_LEN);
		goto drop;
	}
	mutex_unlock(&cep->lock);
	mutex_unlock(&l->lock);
	kiwarp_cep_put(cep);	/* the work's */
	return;

drop:
	mutex_lock(&cep->lock);
	cep->state = KIWARP_CEP_DONE;
	mutex_unlock(&cep->lock);
	kiwarp_cep_finish(cep);
	kiwarp_cep_put(cep);
}

static void kiwarp_passive_work(struct work_struct *work)
{
	kiwarp_work_run(__kiwarp_passive_work, work);
}

static void __kiwarp_accept_work(struct work_struct *work)
{
	struct kiwarp_listen *l = container_of(work, struct kiwarp_listen,
					       accept_work);
	struct socket *nsock;
	struct kiwarp_cep *cep;
	int i;

	for (i = 0; i < l->nsocks; i++) {
		while (kernel_accept(l->socks[i], &nsock, O_NONBLOCK) == 0) {
			cep = kiwarp_cep_new(l->kdev);
			if (!cep) {
				sock_release(nsock);
				continue;
			}
			kiwarp_sock_tune(nsock);
			cep->sock = nsock;
			cep->listen = l;
			kref_get(&l->ref);
			mutex_lock(&l->lock);
			if (l->closing) {
				mutex_unlock(&l->lock);
				kiwarp_listen_put(l);
				cep->listen = NULL;
				kiwarp_cep_put(cep);
				continue;
			}
			list_add_tail(&cep->entry, &l->pending);
			kref_get(&cep->ref);	/* the list's */
			mutex_unlock(&l->lock);
			INIT_WORK(&cep->work, kiwarp_passive_work);
			/*
			 * Until here the clone had the listener's callback,
			 * which ignores it: the first run reads what came.
			 */
			kiwarp_cep_hook(cep, l->orig_data_ready);
			if (!queue_work(kiwarp_wq, &cep->work))
				kiwarp_cep_put(cep);	/* cep_new's */
		}
	}
}

static void kiwarp_accept_work(struct work_struct *work)
{
	kiwarp_work_run(__kiwarp_accept_work, work);
}

/*
 * A connection to accept. Children waiting in the accept queue are
 * clones of the listener and call this too (their callbacks are reset
 * only once accepted), with the listener's user data: they must not
 * queue the accept work, which kiwarp_listen_close() cancels once the
 * listener's callback is gone - a child could queue it again after, and
 * it would run on a freed listener. Nobody waits on such a child yet.
 */
static void kiwarp_listen_data_ready(struct sock *sk)
{
	struct kiwarp_listen *l;

	if (READ_ONCE(sk->sk_state) != TCP_LISTEN)
		return;
	read_lock_bh(&sk->sk_callback_lock);
	l = sk->sk_user_data;
	if (l)
		queue_work(kiwarp_wq, &l->accept_work);
	read_unlock_bh(&sk->sk_callback_lock);
}

static int kiwarp_listen_on(struct kiwarp_listen *l,
			    struct sockaddr_storage *addr, int backlog,
			    bool bind_dev)
{
	struct socket *sock;
	struct sock *sk;
	int ret;

	if (l->nsocks >= KIWARP_LISTEN_ADDRS)
		return -ENOSPC;
	ret = kiwarp_sock_new(l->kdev, addr->ss_family, &sock);
	if (ret)
		return ret;
	sk = sock->sk;
	sock_set_reuseaddr(sk);
	/*
	 * A wildcard's expansion is bound to our netdev, as siw binds its
	 * wildcard listeners: rdma_cm listens on every device for one
	 * wildcard rdma_listen (svcrdma), and siw's device-bound wildcard
	 * socket on the same port made ours EADDRINUSE, or ours theirs.
	 * A listen on a given address is left unbound, as siw's.
	 */
	ret = bind_dev ? sock_bindtoindex(sk, l->kdev->netdev->ifindex, true) :
			 0;
	if (!ret && addr->ss_family == AF_INET6)
		ret = ip6_sock_set_v6only(sk);
	if (!ret)
		ret = kernel_bind(sock, (struct sockaddr *)addr,
				  kiwarp_addr_len(addr));
	if (!ret)
		ret = kernel_listen(sock, backlog);
	if (ret) {
		sock_release(sock);
		return ret;
	}
	write_lock_bh(&sk->sk_callback_lock);
	l->orig_data_ready = sk->sk_data_ready;
	sk->sk_user_data = l;
	sk->sk_data_ready = kiwarp_listen_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
	l->socks[l->nsocks++] = sock;
	return 0;
}

static void kiwarp_listen_close(struct kiwarp_listen *l)
{
	int i;

	for (i = 0; i < l->nsocks; i++) {
		struct sock *sk = l->socks[i]->sk;

		write_lock_bh(&sk->sk_callback_lock);
		sk->sk_user_data = NULL;
		sk->sk_data_ready = l->orig_data_ready;
		write_unlock_bh(&sk->sk_callback_lock);
	}
	cancel_work_sync(&l->accept_work);
	for (i = 0; i < l->nsocks; i++)
		sock_release(l->socks[i]);
	l->nsocks = 0;
}

/* Add the netdev's IPv4 addresses to @addrs (@n used so far). */
static int kiwarp_listen_addrs4(struct net_device *nd, __be16 port,
				struct sockaddr_storage *addrs, int n)
{
	const struct in_ifaddr *ifa;
	struct in_device *idev;

	rcu_read_lock();
	idev = __in_dev_get_rcu(nd);
	if (idev) {
		in_dev_for_each_ifa_rcu(ifa, idev) {
			struct sockaddr_in *sin;

			if (n >= KIWARP_LISTEN_ADDRS)
				break;
			sin = (struct sockaddr_in *)&addrs[n++];
			memset(sin, 0, sizeof(addrs[0]));
			sin->sin_family = AF_INET;
			sin->sin_addr.s_addr = ifa->ifa_local;
			sin->sin_port = port;
		}
	}
	rcu_read_unlock();
	return n;
}

/* Add the netdev's usable IPv6 addresses (link-local with its scope). */
static int kiwarp_listen_addrs6(struct net_device *nd, __be16 port,
				struct sockaddr_storage *addrs, int n)
{
	const struct inet6_ifaddr *ifp;
	struct inet6_dev *idev;

	rcu_read_lock();
	idev = __in6_dev_get(nd);
	if (idev) {
		read_lock_bh(&idev->lock);
		list_for_each_entry(ifp, &idev->addr_list, if_list) {
			struct sockaddr_in6 *sin6;

			if (n >= KIWARP_LISTEN_ADDRS)
				break;
			if (ifp->flags & (IFA_F_TENTATIVE | IFA_F_DADFAILED))
				continue;
			sin6 = (struct sockaddr_in6 *)&addrs[n++];
			memset(sin6, 0, sizeof(addrs[0]));
			sin6->sin6_family = AF_INET6;
			sin6->sin6_addr = ifp->addr;
			sin6->sin6_port = port;
			if (ipv6_addr_type(&ifp->addr) & IPV6_ADDR_LINKLOCAL)
				sin6->sin6_scope_id = nd->ifindex;
		}
		read_unlock_bh(&idev->lock);
	}
	rcu_read_unlock();
	return n;
}

int kiwarp_cm_create_listen(struct iw_cm_id *id, int backlog)
{
	struct kiwarp_dev *kdev = to_kdev(id->device);
	struct sockaddr_storage *ss = &id->m_local_addr;
	struct sockaddr_storage *addrs;
	struct kiwarp_listen *l;
	bool wildcard = false;
	int n = 0, i, ret = 0;

	if (ss->ss_family != AF_INET && ss->ss_family != AF_INET6)
		return -EAFNOSUPPORT;
	addrs = kcalloc(KIWARP_LISTEN_ADDRS, sizeof(*addrs), GFP_KERNEL);
	if (!addrs)
		return -ENOMEM;
	if (ss->ss_family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		wildcard = sin->sin_addr.s_addr == htonl(INADDR_ANY);
		if (wildcard)
			n = kiwarp_listen_addrs4(kdev->netdev, sin->sin_port,
						 addrs, 0);
		else
			addrs[n++] = *ss;
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		wildcard = ipv6_addr_any(&sin6->sin6_addr);
		if (wildcard) {
			n = kiwarp_listen_addrs6(kdev->netdev, sin6->sin6_port,
						 addrs, 0);
			/* not v6-only: the IPv4 addresses too */
			if (!id->afonly)
				n = kiwarp_listen_addrs4(kdev->netdev,
							 sin6->sin6_port,
							 addrs, n);
		} else {
			addrs[n++] = *ss;
		}
	}

	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l) {
		kfree(addrs);
		return -ENOMEM;
	}
	kref_init(&l->ref);
	mutex_init(&l->lock);
	INIT_LIST_HEAD(&l->pending);
	INIT_WORK(&l->accept_work, kiwarp_accept_work);
	l->kdev = kdev;
	l->cm_id = id;

	for (i = 0; i < n && !ret; i++)
		ret = kiwarp_listen_on(l, &addrs[i], backlog, wildcard);
	kfree(addrs);
	if (ret) {
		kiwarp_listen_close(l);
		kiwarp_listen_put(l);
		return ret;
	}
	id->add_ref(id);
	id->provider_data = l;
	return 0;
}

int kiwarp_cm_destroy_listen(struct iw_cm_id *id)
{
	struct kiwarp_listen *l = id->provider_data;
	struct kiwarp_cep *cep;

	if (!l)
		return 0;
	mutex_lock(&l->lock);
	l->closing = true;	/* the accept work adds no cep after this */
	mutex_unlock(&l->lock);
	kiwarp_listen_close(l);

	/*
	 * One cep at a time off the list, each under l->lock: a cep's
	 * own end (kiwarp_cep_finish(), from its work or an accept or
	 * reject) takes it off under that lock too, and whoever takes it
	 * off owns the list's reference. (Moving them all to a list of
	 * ours, then walking it unlocked, let a finishing cep unlink itself
	 * from it and drop that reference under us: a use after free the
	 * stress suite's psp_free_under_requests found.)
	 */
	for (;;) {
		mutex_lock(&l->lock);
		cep = list_first_entry_or_null(&l->pending, struct kiwarp_cep,
					       entry);
		if (cep)
			list_del_init(&cep->entry);
		mutex_unlock(&l->lock);
		if (!cep)
			break;
		/*
		 * Close it: a later accept/reject finds it DONE. One already
		 * DONE is its claimer's, socket and all (an accept binding
		 * it right now).
		 */
		mutex_lock(&cep->lock);
		if (cep->state != KIWARP_CEP_DONE && cep->sock)
			kernel_sock_shutdown(cep->sock, SHUT_RDWR);
		cep->state = KIWARP_CEP_DONE;
		mutex_unlock(&cep->lock);
		kiwarp_cep_put(cep);	/* the list's */
	}
	id->provider_data = NULL;
	id->rem_ref(id);
	kiwarp_listen_put(l);
	return 0;
}

/*
 * The cep of a CONNECT_REQUEST for accept/reject (the caller drops
 * iw_cm's reference), or NULL. *@live: it was still on offer, with its
 * socket; otherwise the listener went and closed it.
 */
static struct kiwarp_cep *kiwarp_cep_claim(struct iw_cm_id *id, bool *live)
{
	struct kiwarp_cep *cep = id->provider_data;

	if (!cep)
		return NULL;
	id->provider_data = NULL;
	mutex_lock(&cep->lock);
	*live = cep->state == KIWARP_CEP_OFFERED && cep->sock;
	cep->state = KIWARP_CEP_DONE;
	mutex_unlock(&cep->lock);
	kiwarp_cep_finish(cep);
	return cep;
}

int kiwarp_cm_accept(struct iw_cm_id *id, struct iw_cm_conn_param *p)
{
	struct kiwarp_up_event up;
	struct kiwarp_bind b;
	struct mpa_frame_info rep;
	struct kiwarp_cep *cep;
	struct kiwarp_qp *qp;
	struct ib_qp *ibqp;
	u32 ird, ord;
	bool live;
	int ret;

	cep = kiwarp_cep_claim(id, &live);
	if (!cep)
		return -EINVAL;
	ret = -ECONNRESET;
	if (!live)
		goto out;
	ret = -EINVAL;
	if (p->private_data_len > MPA_MAX_PRIVDATA - MPA_V2_BLOCK_LEN)
		goto out_close;
	ibqp = kiwarp_iw_get_qp(id->device, p->qpn);
	if (!ibqp)
		goto out_close;
	qp = to_kqp(ibqp);
	if (kiwarp_qp_state(qp) != KIWARP_QPS_IDLE)
		goto out_close;

	rep = cep->rep;
	ird = min_t(u32, p->ird, KIWARP_MAX_IRD);
	ord = min_t(u32, p->ord, KIWARP_MAX_ORD);
	if (rep.v2_enhanced) {
		ird = min_t(u32, ird, rep.ird);
		ord = min_t(u32, ord, rep.ord);
		rep.ird = ird;
		rep.ord = ord;
	}
	ret = kiwarp_mpa_send(cep->sock, cep->buf, &rep, p->private_data,
			      p->private_data_len);
	if (ret)
		goto out_close;
	id->add_ref(id);
	up = (struct kiwarp_up_event) {
		.type = IW_CM_EVENT_ESTABLISHED,
		.ird = ird, .ord = ord,
	};
	b = (struct kiwarp_bind) {
		.crc = rep.crc,
		.large_fpdu = rep.large_fpdu && cep->req.large_fpdu,
		.rev = rep.rev,
		.ird = ird,
		.ord = ord,
	};
	/* ESTABLISHED is reported inside, before any CLOSE can be */
	ret = kiwarp_iwcm_bind(qp, cep->sock, id, &b, &up);
	if (ret) {
		id->rem_ref(id);
		goto out_close;
	}
	mutex_lock(&cep->lock);
	cep->sock = NULL;	/* the QP's now */
	mutex_unlock(&cep->lock);
	kiwarp_cep_put(cep);
	return 0;

out_close:
	kernel_sock_shutdown(cep->sock, SHUT_RDWR);
out:
	kiwarp_cep_put(cep);
	return ret;
}

int kiwarp_cm_reject(struct iw_cm_id *id, const void *pdata, u8 len)
{
	struct kiwarp_cep *cep;
	bool live;

	cep = kiwarp_cep_claim(id, &live);
	if (!cep)
		return -EINVAL;
	if (live)
		kiwarp_mpa_reject(cep, pdata, len);
	kiwarp_cep_put(cep);
	return 0;
}
