// SPDX-License-Identifier: GPL-2.0
/*
 * kiwarp: socket takeover - an existing, connected kernel TCP socket
 * becomes the LLP of a kiwarp QP (include/kiwarp/sock.h is the
 * contract, Documentation/iw_provider.rst "Socket takeover" the design).
 *
 * A struct kiwarp_sock_conn follows one socket through the MPA exchange:
 *
 *   SETUP       connect()/listen() running: callbacks switched, the
 *               Request or the final streaming message being sent
 *   CONNECTING  active: Request sent, waiting for the Reply
 *   LISTENING   passive: waiting for the Request
 *   REQUESTED   passive: REQUEST reported, the socket is kiwarp's
 *   BOUND       a QP owns the socket (ESTABLISHED, then the QP's
 *               teardown reports DISCONNECT/CLOSED through
 *               kiwarp_sock_conn_ops)
 *   DONE        the socket was given back or closed
 *
 * MPA frames are read without blocking from the conn's work, kicked by
 * the socket's data_ready and state_change: MSG_PEEK until the whole
 * frame (header and private data) is queued, then exactly the frame is
 * consumed, so FPDUs behind it stay queued for the QP's RX path and a
 * socket given back has lost nothing but complete frames of this
 * exchange.
 *
 * Events are collected as bits in @pending (each type happens at most
 * once per connection) and delivered by the work in enum order, which
 * is the order they can happen in, with @ev_lock held around the
 * handler: one at a time, and none once release() set @released.
 *
 * Locks: @ev_lock -> @lock -> qp->conn_lock -> sk_callback_lock.
 */

#include <linux/slab.h>
#include <linux/inetdevice.h>
#include <linux/module.h>
#include <linux/tcp.h>
#include <net/tcp.h>
#include <net/addrconf.h>
#include <kiwarp/reject.h>
#include <kiwarp/sock.h>

#include "kiwarp.h"
#include "kiwarp_trace.h"

#define KIWARP_SOCK_PDATA_ULP	(MPA_MAX_PRIVDATA - MPA_V2_BLOCK_LEN)

enum kiwarp_sock_state {
	KSC_SETUP,
	KSC_CONNECTING,
	KSC_LISTENING,
	KSC_REQUESTED,
	KSC_BOUND,
	KSC_DONE,
};

#define KSC_NEVENTS	(KIWARP_SOCK_EV_CLOSED + 1)

/*
 * struct kiwarp_sock_conn - one socket being moved to RDMA mode.
 *
 * @ref: the consumer's (until release), one per queued work, the QP's
 * while bound (until kiwarp_sock_qp_down). @lock protects everything
 * but the handler fields; @ev_lock serialises handler calls and
 * protects @released. @qp (active) is referenced until it is bound.
 * @kdev holds no reference: a listen outlives its device's removal until
 * the consumer frees its SSP (kdapl_iwsock/ssp_device_removal), so
 * @kdev is compared (accept) but not dereferenced once the conn exists.
 */
struct kiwarp_sock_conn {
	struct kref ref;
	struct kiwarp_dev *kdev;
	struct mutex lock;		/* state, sock, events */
	enum kiwarp_sock_state state;
	bool passive;
	struct socket *sock;		/* borrowed or ours, until BOUND */
	struct kiwarp_qp *qp;		/* active, until bound */
	struct kiwarp_sk_saved orig;	/* restored when given back */
	long rcvtimeo;
	long sndtimeo;
	int rcvlowat;
	bool nodelay;
	struct sockaddr_storage laddr;
	struct sockaddr_storage raddr;
	u8 mpa_rev;
	bool crc;
	bool large_fpdu;		/* our frame offered large FPDUs */
	bool peer_large_fpdu;		/* and the peer's did */
	struct mpa_frame_info rep;	/* passive: negotiated reply */
	u32 ird;			/* active: ours */
	u32 ord;

	struct mutex ev_lock;		/* handler calls, released */
	bool released;
	kiwarp_sock_handler_t handler;
	void *ctx;
	unsigned long pending;		/* BIT(event type) */
	unsigned long returned;		/* BIT(type): sock_returned */
	int status[KSC_NEVENTS];
	u32 ev_ird;
	u32 ev_ord;
	u16 pdata_len;
	u8 pdata[MPA_MAX_PRIVDATA];

	struct work_struct work;
	u8 buf[MPA_RR_HDR_LEN + MPA_MAX_PRIVDATA];
};

static void kiwarp_sock_conn_free(struct kref *ref)
{
	struct kiwarp_sock_conn *c = container_of(ref, struct kiwarp_sock_conn,
						  ref);

	if (c->qp)
		kiwarp_qp_put(c->qp);
	kfree(c);
}

static void kiwarp_sock_put(struct kiwarp_sock_conn *c)
{
	kref_put(&c->ref, kiwarp_sock_conn_free);
}

/* Queue the conn's work; a queued work holds a reference. Any context. */
static void kiwarp_sock_kick(struct kiwarp_sock_conn *c)
{
	kref_get(&c->ref);
	if (!queue_work(kiwarp_wq, &c->work))
		kiwarp_sock_put(c);
}

static void kiwarp_sock_data_ready(struct sock *sk);

/* Our callbacks while the socket is borrowed (before a QP has it) */
static struct kiwarp_sock_conn *kiwarp_sock_of(struct sock *sk)
{
	/* a late call after the switch finds the QP or nothing there */
	if (READ_ONCE(sk->sk_data_ready) != kiwarp_sock_data_ready)
		return NULL;
	return sk->sk_user_data;
}

static void kiwarp_sock_data_ready(struct sock *sk)
{
	struct kiwarp_sock_conn *c;

	read_lock_bh(&sk->sk_callback_lock);
	c = kiwarp_sock_of(sk);
	if (c)
		kiwarp_sock_kick(c);
	read_unlock_bh(&sk->sk_callback_lock);
}

static void kiwarp_sock_state_change(struct sock *sk)
{
	void (*orig)(struct sock *sk) = NULL;
	struct kiwarp_sock_conn *c;

	read_lock_bh(&sk->sk_callback_lock);
	c = kiwarp_sock_of(sk);
	if (c) {
		orig = c->orig.state_change;
		kiwarp_sock_kick(c);
	}
	read_unlock_bh(&sk->sk_callback_lock);
	if (orig)
		orig(sk);
}

/*
 * Take @sock over: save and switch the callbacks (under
 * sk_callback_lock), timeouts and Nagle. -EBUSY if someone else's
 * sk_user_data is there (another takeover, or another kernel user).
 */
static int kiwarp_sock_grab(struct kiwarp_sock_conn *c, struct socket *sock)
{
	struct sock *sk = sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	if (sk->sk_user_data) {
		write_unlock_bh(&sk->sk_callback_lock);
		return -EBUSY;
	}
	c->orig.user_data = NULL;
	c->orig.data_ready = sk->sk_data_ready;
	c->orig.state_change = sk->sk_state_change;
	c->orig.write_space = sk->sk_write_space;
	sk->sk_user_data = c;
	sk->sk_data_ready = kiwarp_sock_data_ready;
	sk->sk_state_change = kiwarp_sock_state_change;
	write_unlock_bh(&sk->sk_callback_lock);

	c->sock = sock;
	c->rcvtimeo = sk->sk_rcvtimeo;
	c->sndtimeo = sk->sk_sndtimeo;
	c->nodelay = tcp_sk(sk)->nonagle & TCP_NAGLE_OFF;
	tcp_sock_set_nodelay(sk);
	/* TCP holds data_ready back below SO_RCVLOWAT: every byte counts */
	c->rcvlowat = READ_ONCE(sk->sk_rcvlowat);
	WRITE_ONCE(sk->sk_rcvlowat, 1);
	kernel_getsockname(sock, (struct sockaddr *)&c->laddr);
	kernel_getpeername(sock, (struct sockaddr *)&c->raddr);
	return 0;
}

/* Give the socket back as it was; the caller owns c->sock no more. */
static void kiwarp_sock_ungrab(struct kiwarp_sock_conn *c)
{
	struct sock *sk = c->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = c->orig.user_data;
	sk->sk_data_ready = c->orig.data_ready;
	sk->sk_state_change = c->orig.state_change;
	sk->sk_write_space = c->orig.write_space;
	write_unlock_bh(&sk->sk_callback_lock);
	sk->sk_rcvtimeo = c->rcvtimeo;
	sk->sk_sndtimeo = c->sndtimeo;
	WRITE_ONCE(sk->sk_rcvlowat, c->rcvlowat);
	if (!c->nodelay) {
		lock_sock(sk);
		tcp_sk(sk)->nonagle &= ~TCP_NAGLE_OFF;
		release_sock(sk);
	}
	c->sock = NULL;
}

/* The socket is ours and goes: callbacks back, then released. */
static void kiwarp_sock_close(struct kiwarp_sock_conn *c)
{
	struct socket *sock = c->sock;

	kiwarp_sock_ungrab(c);
	sock_release(sock);
}

/* The events' names, for the kiwarp_sock_step tracepoint */
static const char *const kiwarp_sock_event_name[KSC_NEVENTS] = {
	[KIWARP_SOCK_EV_REQUEST] = "request",
	[KIWARP_SOCK_EV_SOCKET_DOWN] = "socket_down",
	[KIWARP_SOCK_EV_ESTABLISHED] = "established",
	[KIWARP_SOCK_EV_REJECTED] = "rejected",
	[KIWARP_SOCK_EV_FAILED] = "failed",
	[KIWARP_SOCK_EV_DISCONNECT] = "disconnect",
	[KIWARP_SOCK_EV_CLOSED] = "closed",
};

/* Queue event @type (lock held). @pd: its private data. */
static void kiwarp_sock_event(struct kiwarp_sock_conn *c,
			      enum kiwarp_sock_event_type type, int status,
			      bool returned, const void *pd, u16 pd_len)
{
	lockdep_assert_held(&c->lock);
	trace_kiwarp_sock_step(c, kiwarp_sock_event_name[type], status);
	c->status[type] = status;
	if (returned)
		__set_bit(type, &c->returned);
	if (pd) {
		pd_len = min_t(u16, pd_len, sizeof(c->pdata));
		memcpy(c->pdata, pd, pd_len);
		c->pdata_len = pd_len;
	}
	__set_bit(type, &c->pending);
}

static int kiwarp_sock_send(struct socket *sock, const void *buf, size_t len)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
	long saved = sock->sk->sk_sndtimeo;
	unsigned int ms;
	int ret;

	/* how long one of our MPA frames (or the final message) may take */
	ms = max(READ_ONCE(kiwarp_sock_sndtimeo_ms), 1U);
	sock->sk->sk_sndtimeo = msecs_to_jiffies(ms);
	ret = kernel_sendmsg(sock, &msg, &iov, 1, len);
	sock->sk->sk_sndtimeo = saved;
	if (ret < 0)
		return ret;
	return ret == len ? 0 : -EIO;
}

/*
 * An SSP's final streaming message (seed 000: "submitted for
 * transmission atomically"): all of it or, to the peer, none. Return:
 * 0 when all of it is with TCP; -EAGAIN when none of it could be queued
 * within kiwarp_sock_sndtimeo_ms (the peer's window stayed shut): the
 * socket is as it was; -ENOTCONN when the socket failed first; and
 * -ECONNABORTED when part of it went out and the rest could not: the
 * connection is reset, so the peer never acts on a truncated message.
 * A signal before any of it went is -EAGAIN too (the socket is intact).
 */
static int kiwarp_sock_send_final(struct socket *sock, const void *buf,
				  size_t len)
{
	int ret = kiwarp_sock_send(sock, buf, len);

	if (!ret || ret == -EAGAIN)
		return ret;
	if (ret == -EINTR || ret == -ERESTARTSYS)
		return -EAGAIN;
	if (ret != -EIO)
		return -ENOTCONN;	/* nothing went: the socket failed */
	tcp_abort(sock->sk, ECONNABORTED);
	return -ECONNABORTED;
}

static int kiwarp_sock_send_mpa(struct kiwarp_sock_conn *c,
				const struct mpa_frame_info *fi,
				const void *pd, u16 pd_len)
{
	int len = mpa_frame_encode(fi, pd, pd_len, c->buf, sizeof(c->buf));

	if (len < 0)
		return len;
	return kiwarp_sock_send(c->sock, c->buf, len);
}

/*
 * Look at the MPA frame at the head of the receive queue without taking
 * anything. Return: the frame's length once it is all there (@fi
 * decoded, RFC 6581 block included), 0 while it is incomplete, or why
 * it never will be: -EPROTO (not an MPA frame of @kind), -ECONNABORTED
 * (the peer closed), the socket's error (-ECONNRESET, -ETIMEDOUT,
 * -EHOSTUNREACH, ...), normally left pending on the socket.
 */
static int kiwarp_sock_peek(struct kiwarp_sock_conn *c,
			    enum mpa_frame_kind kind,
			    struct mpa_frame_info *fi)
{
	struct sock *sk = c->sock->sk;
	struct kvec iov = { .iov_base = c->buf, .iov_len = sizeof(c->buf) };
	struct msghdr msg = {};
	u16 total = 0;
	int n, ret, err;

	/* recvmsg on an empty queue would take the error off the socket */
	err = READ_ONCE(sk->sk_err);
	if (err && skb_queue_empty_lockless(&sk->sk_receive_queue))
		return -err;
	n = kernel_recvmsg(c->sock, &msg, &iov, 1, sizeof(c->buf),
			   MSG_PEEK | MSG_DONTWAIT);
	if (n > 0) {
		fi->kind = kind;
		ret = mpa_frame_decode_header(c->buf, n, fi, &total);
		if (ret && ret != -EAGAIN)
			return -EPROTO;
		if (!ret && n >= MPA_RR_HDR_LEN + total) {
			if (fi->v2_enhanced &&
			    mpa_frame_decode_v2(c->buf + MPA_RR_HDR_LEN, total,
						fi))
				return -EPROTO;
			return MPA_RR_HDR_LEN + total;
		}
	} else if (n < 0 && n != -EAGAIN) {
		return n;	/* an error that came meanwhile */
	}
	/* incomplete or nothing: will more come? */
	err = READ_ONCE(sk->sk_err);
	if (err)
		return -err;
	if (n == 0 || (READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN))
		return -ECONNABORTED;
	if (READ_ONCE(sk->sk_state) == TCP_CLOSE)
		return -ECONNRESET;
	return 0;
}

/* Take exactly the @len bytes of the peeked frame off the socket. */
static int kiwarp_sock_consume(struct kiwarp_sock_conn *c, int len)
{
	struct kvec iov = { .iov_base = c->buf, .iov_len = len };
	struct msghdr msg = {};
	int n;

	n = kernel_recvmsg(c->sock, &msg, &iov, 1, len, MSG_DONTWAIT);
	return n == len ? 0 : -EIO;
}

static const struct kiwarp_conn_ops kiwarp_sock_conn_ops;

/*
 * Bind @qp to the conn's socket with what MPA negotiated (@crc, @rev,
 * @ird, @ord; large FPDUs when both frames offered them): the QP gets
 * the socket and a conn reference.
 */
static int kiwarp_sock_bind(struct kiwarp_sock_conn *c, struct kiwarp_qp *qp,
			    bool crc, u8 rev, u32 ird, u32 ord)
{
	struct kiwarp_bind b = {
		.ops = &kiwarp_sock_conn_ops,
		.priv = c,
		.orig = &c->orig,
		.sock_mode = true,
		.crc = crc,
		.large_fpdu = c->large_fpdu && c->peer_large_fpdu,
		.rev = rev,
		.ird = ird,
		.ord = ord,
	};
	int ret;

	kref_get(&c->ref);	/* the QP's, until kiwarp_sock_qp_down */
	ret = kiwarp_qp_bind_socket(qp, c->sock, &b);
	if (ret) {
		kref_put(&c->ref, kiwarp_sock_conn_free);
		return ret;
	}
	c->mpa_rev = rev;
	c->crc = crc;
	c->sock = NULL;		/* the QP's now */
	c->state = KSC_BOUND;
	return 0;
}

/* Active, CONNECTING: is the Reply there? */
static void kiwarp_sock_active_step(struct kiwarp_sock_conn *c)
{
	struct mpa_frame_info fi = {};
	struct kiwarp_qp *qp = c->qp;
	const u8 *pd;
	u32 ord = c->ord;
	int len, ret;

	len = kiwarp_sock_peek(c, MPA_KIND_REPLY, &fi);
	if (!len)
		return;
	if (len > 0 && !fi.reject &&
	    (fi.markers || fi.p2p || fi.rev > MPA_REVISION_2))
		len = -EPROTO;	/* nothing we can run: left unread */
	if (len < 0) {
		pr_debug("kiwarp: sock connect: %d\n", len);
		kiwarp_sock_ungrab(c);
		c->state = KSC_DONE;
		kiwarp_sock_event(c, KIWARP_SOCK_EV_FAILED, len, true, NULL, 0);
		return;
	}
	pd = c->buf + MPA_RR_HDR_LEN + (fi.v2_enhanced ? MPA_V2_BLOCK_LEN : 0);
	ret = kiwarp_sock_consume(c, len);
	if (ret)
		goto fail_closed;
	if (fi.reject) {
		kiwarp_sock_ungrab(c);
		c->state = KSC_DONE;
		kiwarp_sock_event(c, KIWARP_SOCK_EV_REJECTED, -ECONNREFUSED,
				  true, pd, fi.pd_len);
		return;
	}
	/* never more outstanding reads than the responder takes */
	if (fi.v2_enhanced)
		ord = min_t(u32, ord, fi.ird);
	c->peer_large_fpdu = fi.large_fpdu;
	ret = kiwarp_sock_bind(c, qp, c->crc || fi.crc, fi.rev, c->ird, ord);
	if (ret)
		goto fail_closed;
	c->qp = NULL;
	kiwarp_qp_put(qp);
	c->ev_ird = c->ird;
	c->ev_ord = ord;
	kiwarp_sock_event(c, KIWARP_SOCK_EV_ESTABLISHED, 0, false, pd,
			  fi.pd_len);
	return;

fail_closed:
	/*
	 * The Reply is consumed: the stream is not usable any more. The
	 * TCP connection is shut down, the socket still goes back.
	 */
	kernel_sock_shutdown(c->sock, SHUT_RDWR);
	kiwarp_sock_ungrab(c);
	c->state = KSC_DONE;
	kiwarp_sock_event(c, KIWARP_SOCK_EV_FAILED, -EIO, true, NULL, 0);
}

static void kiwarp_sock_local_pref(struct mpa_frame_info *pref)
{
	memset(pref, 0, sizeof(*pref));
	pref->rev = MPA_REVISION_2;
	pref->crc = kiwarp_mpa_crc;
	pref->large_fpdu = kiwarp_large_fpdu_offered();
	pref->ird = KIWARP_MAX_IRD;
	pref->ord = KIWARP_MAX_ORD;
}

/* Passive, LISTENING: is the Request there? */
static void kiwarp_sock_passive_step(struct kiwarp_sock_conn *c)
{
	struct mpa_frame_info req = {}, pref;
	int len;

	len = kiwarp_sock_peek(c, MPA_KIND_REQUEST, &req);
	if (!len)
		return;
	if (len > 0) {
		kiwarp_sock_local_pref(&pref);
		/* markers or an RTR we cannot serve: not for us, untouched */
		if (mpa_negotiate(&req, &pref, &c->rep))
			len = -EPROTO;
	}
	if (len > 0 && kiwarp_sock_consume(c, len))
		len = -EIO;
	if (len < 0) {
		pr_debug("kiwarp: sock listen: %d\n", len);
		kiwarp_sock_ungrab(c);
		c->state = KSC_DONE;
		kiwarp_sock_event(c, KIWARP_SOCK_EV_SOCKET_DOWN, len, true,
				  NULL, 0);
		return;
	}
	c->state = KSC_REQUESTED;
	c->mpa_rev = c->rep.rev;
	c->crc = c->rep.crc;
	c->large_fpdu = c->rep.large_fpdu;
	c->peer_large_fpdu = req.large_fpdu;
	c->ev_ird = req.v2_enhanced ? req.ird : 0;
	c->ev_ord = req.v2_enhanced ? req.ord : 0;
	kiwarp_sock_event(c, KIWARP_SOCK_EV_REQUEST, 0, false,
			  c->buf + MPA_RR_HDR_LEN +
			  (req.v2_enhanced ? MPA_V2_BLOCK_LEN : 0),
			  req.pd_len);
}

/* Hand the pending events to the consumer, in order, one at a time. */
static void kiwarp_sock_deliver(struct kiwarp_sock_conn *c)
{
	struct kiwarp_sock_event ev;
	int type;

	for (;;) {
		mutex_lock(&c->ev_lock);
		if (c->released) {
			mutex_unlock(&c->ev_lock);
			return;
		}
		mutex_lock(&c->lock);
		if (!c->pending) {
			mutex_unlock(&c->lock);
			mutex_unlock(&c->ev_lock);
			return;
		}
		type = __ffs(c->pending);
		__clear_bit(type, &c->pending);
		memset(&ev, 0, sizeof(ev));
		ev.type = type;
		ev.status = c->status[type];
		ev.sock_returned = test_bit(type, &c->returned);
		if (type == KIWARP_SOCK_EV_REQUEST ||
		    type == KIWARP_SOCK_EV_ESTABLISHED ||
		    type == KIWARP_SOCK_EV_REJECTED) {
			ev.pdata = c->pdata;
			ev.pdata_len = c->pdata_len;
			ev.ird = c->ev_ird;
			ev.ord = c->ev_ord;
		}
		mutex_unlock(&c->lock);
		c->handler(c->ctx, &ev);
		mutex_unlock(&c->ev_lock);
	}
}

static void __kiwarp_sock_work(struct work_struct *work)
{
	struct kiwarp_sock_conn *c = container_of(work, struct kiwarp_sock_conn,
						  work);

	struct kiwarp_qp *qp = NULL;

	mutex_lock(&c->lock);
	if (c->state == KSC_CONNECTING)
		kiwarp_sock_active_step(c);
	else if (c->state == KSC_LISTENING)
		kiwarp_sock_passive_step(c);
	if (c->state == KSC_DONE) {
		/* a failed connect no longer needs its QP */
		qp = c->qp;
		c->qp = NULL;
	}
	mutex_unlock(&c->lock);
	if (qp)
		kiwarp_qp_put(qp);
	kiwarp_sock_deliver(c);
	kiwarp_sock_put(c);
}

static void kiwarp_sock_work(struct work_struct *work)
{
	kiwarp_work_run(__kiwarp_sock_work, work);
}

/* The peer's FIN moved the QP to CLOSING (kiwarp_qp_peer_fin) */
static void kiwarp_sock_qp_peer_closed(struct kiwarp_qp *qp, void *priv)
{
	struct kiwarp_sock_conn *c = priv;

	mutex_lock(&c->lock);
	kiwarp_sock_event(c, KIWARP_SOCK_EV_DISCONNECT, 0, false, NULL, 0);
	mutex_unlock(&c->lock);
	kiwarp_sock_kick(c);
}

/* The QP's connection is down (kiwarp_qp_down_work): DISCONNECT, CLOSED */
static void kiwarp_sock_qp_down(struct kiwarp_qp *qp, void *priv, int status)
{
	struct kiwarp_sock_conn *c = priv;

	mutex_lock(&c->lock);
	if (READ_ONCE(qp->peer_closed) && !qp->peer_told &&
	    !READ_ONCE(qp->local_close))
		kiwarp_sock_event(c, KIWARP_SOCK_EV_DISCONNECT, 0, false,
				  NULL, 0);
	kiwarp_sock_event(c, KIWARP_SOCK_EV_CLOSED, status, false, NULL, 0);
	c->state = KSC_DONE;
	mutex_unlock(&c->lock);
	kiwarp_sock_kick(c);
	kiwarp_sock_put(c);	/* the QP's */
}

static const struct kiwarp_conn_ops kiwarp_sock_conn_ops = {
	.peer_closed = kiwarp_sock_qp_peer_closed,
	.down = kiwarp_sock_qp_down,
};

/* --- the entry points ----------------------------------------------- */

static bool kiwarp_sock_supported(struct ib_device *dev)
{
	return dev && dev->ops.alloc_pd == kiwarp_alloc_pd;
}

/* Is @addr one of @nd's IPv4 addresses? */
static bool kiwarp_sock_addr4_on(struct net_device *nd, __be32 addr)
{
	const struct in_ifaddr *ifa;
	struct in_device *idev;
	bool found = false;

	rcu_read_lock();
	idev = __in_dev_get_rcu(nd);
	if (idev) {
		in_dev_for_each_ifa_rcu(ifa, idev) {
			if (ifa->ifa_local == addr)
				found = true;
		}
	}
	rcu_read_unlock();
	return found;
}

/*
 * The checks of check(); @established: the TCP connection must be up
 * (connect), else having been connected is enough (listen reports
 * SOCKET_DOWN for a socket closed since).
 *
 * The route test: the socket's local address must be one of the
 * netdev's, and its cached route (if any) must leave through the
 * netdev - a connection to one of our own addresses runs over lo.
 */
static int kiwarp_sock_check_(struct ib_device *dev, struct socket *sock,
			      bool established)
{
	struct net_device *nd;
	struct dst_entry *dst;
	struct sock *sk;
	bool local;

	if (!kiwarp_sock_supported(dev))
		return -ENODEV;
	if (!sock || !sock->sk)
		return -EINVAL;
	sk = sock->sk;
	nd = to_kdev(dev)->netdev;
	if (sk->sk_type != SOCK_STREAM || sk->sk_protocol != IPPROTO_TCP ||
	    (sk->sk_family != AF_INET && sk->sk_family != AF_INET6))
		return -EPROTONOSUPPORT;
	if (READ_ONCE(sk->sk_user_data))
		return -EBUSY;
	if (established ? READ_ONCE(sk->sk_state) != TCP_ESTABLISHED :
			  sock->state != SS_CONNECTED)
		return -ENOTCONN;
	if (!net_eq(sock_net(sk), dev_net(nd)))
		return -ENODEV;
	if (sk->sk_family == AF_INET6 &&
	    !ipv6_addr_v4mapped(&sk->sk_v6_rcv_saddr))
		local = ipv6_chk_addr(sock_net(sk), &sk->sk_v6_rcv_saddr, nd,
				      0);
	else
		local = kiwarp_sock_addr4_on(nd, inet_sk(sk)->inet_saddr);
	if (!local)
		return -ENODEV;
	dst = sk_dst_get(sk);
	if (dst) {
		local = dst->dev == nd;
		dst_release(dst);
		if (!local)
			return -ENODEV;
	}
	return 0;
}

static int kiwarp_sock_check(struct ib_device *dev, struct socket *sock)
{
	return kiwarp_sock_check_(dev, sock, true);
}

static struct kiwarp_sock_conn *kiwarp_sock_conn_new(struct kiwarp_dev *kdev,
						     kiwarp_sock_handler_t h,
						     void *ctx)
{
	struct kiwarp_sock_conn *c = kzalloc(sizeof(*c), GFP_KERNEL);

	if (!c)
		return NULL;
	kref_init(&c->ref);
	mutex_init(&c->lock);
	mutex_init(&c->ev_lock);
	INIT_WORK(&c->work, kiwarp_sock_work);
	c->kdev = kdev;
	c->handler = h;
	c->ctx = ctx;
	c->state = KSC_SETUP;
	return c;
}

static int kiwarp_sock_connect(struct ib_qp *ibqp, struct socket *sock,
			       const struct kiwarp_sock_param *p,
			       kiwarp_sock_handler_t handler, void *ctx,
			       struct kiwarp_sock_conn **conn)
{
	struct mpa_frame_info fi = {};
	struct kiwarp_sock_conn *c;
	struct kiwarp_qp *qp;
	int ret;

	if (!ibqp || !p || !handler || !conn ||
	    !kiwarp_sock_supported(ibqp->device) ||
	    p->pdata_len > KIWARP_SOCK_PDATA_ULP || (p->pdata_len && !p->pdata))
		return -EINVAL;
	qp = to_kqp(ibqp);
	ret = kiwarp_sock_check(ibqp->device, sock);
	if (ret)
		return ret;
	if (kiwarp_qp_state(qp) != KIWARP_QPS_IDLE)
		return -EINVAL;
	c = kiwarp_sock_conn_new(qp->kdev, handler, ctx);
	if (!c)
		return -ENOMEM;
	c->ird = min_t(u32, p->ird, KIWARP_MAX_IRD);
	c->ord = min_t(u32, p->ord, KIWARP_MAX_ORD);
	c->crc = kiwarp_mpa_crc;
	c->large_fpdu = kiwarp_large_fpdu_offered();
	c->mpa_rev = MPA_REVISION_2;
	mutex_lock(&c->lock);
	ret = kiwarp_sock_grab(c, sock);
	if (ret)
		goto out_free;
	fi.kind = MPA_KIND_REQUEST;
	fi.rev = MPA_REVISION_2;
	fi.crc = c->crc;
	fi.large_fpdu = c->large_fpdu;
	fi.v2_enhanced = true;
	fi.ird = c->ird;
	fi.ord = c->ord;
	ret = kiwarp_sock_send_mpa(c, &fi, p->pdata, p->pdata_len);
	if (ret) {
		kiwarp_sock_ungrab(c);
		goto out_free;
	}
	kiwarp_qp_get(qp);
	c->qp = qp;
	c->state = KSC_CONNECTING;
	*conn = c;
	trace_kiwarp_sock_step(c, "connect: MPA Request sent", 0);
	mutex_unlock(&c->lock);
	kiwarp_sock_kick(c);	/* the Reply may be queued already */
	return 0;

out_free:
	c->state = KSC_DONE;
	mutex_unlock(&c->lock);
	kiwarp_sock_put(c);
	return ret;
}

static int kiwarp_sock_listen(struct ib_device *dev, struct socket *sock,
			      const void *final_msg, size_t final_len,
			      kiwarp_sock_handler_t handler, void *ctx,
			      struct kiwarp_sock_conn **conn)
{
	struct kiwarp_sock_conn *c;
	int ret;

	if (!handler || !conn || (final_len && !final_msg))
		return -EINVAL;
	ret = kiwarp_sock_check_(dev, sock, false);
	if (ret)
		return ret;
	c = kiwarp_sock_conn_new(to_kdev(dev), handler, ctx);
	if (!c)
		return -ENOMEM;
	c->passive = true;
	mutex_lock(&c->lock);
	ret = kiwarp_sock_grab(c, sock);
	if (ret)
		goto out_free;
	/*
	 * The Request is watched for from here on (data_ready kicks the
	 * work, which waits for LISTENING): only now may the final
	 * streaming message tell the peer to send it.
	 */
	if (final_len) {
		ret = kiwarp_sock_send_final(sock, final_msg, final_len);
		if (ret) {
			kiwarp_sock_ungrab(c);
			goto out_free;
		}
	}
	c->state = KSC_LISTENING;
	*conn = c;
	trace_kiwarp_sock_step(c, final_len ? "listen: final message sent" :
			       "listen", 0);
	mutex_unlock(&c->lock);
	kiwarp_sock_kick(c);	/* a Request or a close may be queued */
	return 0;

out_free:
	c->state = KSC_DONE;
	mutex_unlock(&c->lock);
	kiwarp_sock_put(c);
	return ret;
}

static int kiwarp_sock_accept(struct kiwarp_sock_conn *c, struct ib_qp *ibqp,
			      const struct kiwarp_sock_param *p)
{
	struct mpa_frame_info rep;
	struct kiwarp_qp *qp;
	u32 ird, ord;
	int ret;

	if (!c || !ibqp || !p || ibqp->device != &c->kdev->ibdev ||
	    p->pdata_len > KIWARP_SOCK_PDATA_ULP || (p->pdata_len && !p->pdata))
		return -EINVAL;
	qp = to_kqp(ibqp);
	mutex_lock(&c->lock);
	ret = -EINVAL;
	if (c->state != KSC_REQUESTED ||
	    kiwarp_qp_state(qp) != KIWARP_QPS_IDLE)
		goto out;
	rep = c->rep;
	ird = min_t(u32, p->ird, KIWARP_MAX_IRD);
	ord = min_t(u32, p->ord, KIWARP_MAX_ORD);
	if (rep.v2_enhanced) {
		ird = min_t(u32, ird, rep.ird);
		ord = min_t(u32, ord, rep.ord);
		rep.ird = ird;
		rep.ord = ord;
	}
	ret = kiwarp_sock_send_mpa(c, &rep, p->pdata, p->pdata_len);
	if (!ret)
		ret = kiwarp_sock_bind(c, qp, rep.crc, rep.rev, ird, ord);
	if (ret) {
		ibdev_dbg(ibqp->device, "sock accept: %d\n", ret);
		kiwarp_sock_close(c);
		c->state = KSC_DONE;
		kiwarp_qp_error(qp);
		kiwarp_sock_event(c, KIWARP_SOCK_EV_FAILED,
				  ret == -EINVAL ? -EIO : ret, false, NULL, 0);
	} else {
		c->ev_ird = ird;
		c->ev_ord = ord;
		c->pdata_len = 0;
		kiwarp_sock_event(c, KIWARP_SOCK_EV_ESTABLISHED, 0, false,
				  NULL, 0);
	}
	ret = 0;
	mutex_unlock(&c->lock);
	kiwarp_sock_kick(c);
	return ret;
out:
	mutex_unlock(&c->lock);
	return ret;
}

/* Send an MPA reject Reply and close the socket (lock held, REQUESTED). */
static void kiwarp_sock_reject_locked(struct kiwarp_sock_conn *c,
				      const void *pdata, u16 pdata_len)
{
	struct mpa_frame_info rep = {
		.kind = MPA_KIND_REPLY,
		.rev = c->rep.rev,
		.crc = c->rep.crc,
		.reject = true,
	};

	kiwarp_sock_send_mpa(c, &rep, pdata, pdata_len);
	kiwarp_sock_close(c);
	c->state = KSC_DONE;
}

static int kiwarp_sock_reject(struct kiwarp_sock_conn *c, const void *pdata,
			      u16 pdata_len)
{
	int ret = -EINVAL;

	if (!c || pdata_len > MPA_MAX_PRIVDATA || (pdata_len && !pdata))
		return -EINVAL;
	mutex_lock(&c->lock);
	if (c->state == KSC_REQUESTED) {
		kiwarp_sock_reject_locked(c, pdata, pdata_len);
		ret = 0;
	}
	mutex_unlock(&c->lock);
	return ret;
}

/*
 * End @c for its consumer (release(), give_back()): a socket still only
 * borrowed goes back; a Request read and not answered is rejected and
 * the socket closed. With @keep, only a borrowed socket is given back:
 * in any other state nothing changes.
 * Return: 1 the socket went back, 0 it did not, -EBUSY kept (@keep; the
 * caller then holds a reference on @c: once the conn's events reach the
 * consumer, it may release @c before give_back() is done with it).
 */
static int kiwarp_sock_end(struct kiwarp_sock_conn *c, bool keep)
{
	struct kiwarp_qp *qp = NULL;
	int returned = 0;

	might_sleep();
	mutex_lock(&c->lock);
	switch (c->state) {
	case KSC_CONNECTING:
	case KSC_LISTENING:
		kiwarp_sock_ungrab(c);
		c->state = KSC_DONE;
		returned = 1;
		if (c->qp) {
			qp = c->qp;
			c->qp = NULL;
		}
		break;
	default:
		if (keep) {
			kref_get(&c->ref);	/* for give_back()'s flush */
			mutex_unlock(&c->lock);
			return -EBUSY;
		}
		/* nobody decided: not the consumer's reject */
		if (c->state == KSC_REQUESTED)
			kiwarp_sock_reject_locked(c, KIWARP_NONPEER_REJECT,
						  KIWARP_NONPEER_REJECT_LEN);
		/* bound: the QP goes on; done: nothing left */
		break;
	}
	mutex_unlock(&c->lock);
	if (qp)
		kiwarp_qp_put(qp);

	/* waits for a running handler; none after this */
	mutex_lock(&c->ev_lock);
	c->released = true;
	mutex_unlock(&c->ev_lock);
	if (cancel_work_sync(&c->work))
		kiwarp_sock_put(c);
	kiwarp_sock_put(c);	/* the consumer's */
	return returned;
}

/*
 * The consumer refuses a Request on its own, with no event to tell its
 * user the socket went: the MPA reject goes, the TCP connection is shut
 * down and the socket given back (callbacks restored, not released).
 */
static int kiwarp_sock_refuse(struct kiwarp_sock_conn *c, const void *pdata,
			      u16 pdata_len)
{
	struct mpa_frame_info rep = { .kind = MPA_KIND_REPLY, .reject = true };
	struct socket *sock;
	int ret = -EINVAL;

	if (!c || pdata_len > MPA_MAX_PRIVDATA || (pdata_len && !pdata))
		return -EINVAL;
	mutex_lock(&c->lock);
	if (c->state == KSC_REQUESTED) {
		rep.rev = c->rep.rev;
		rep.crc = c->rep.crc;
		kiwarp_sock_send_mpa(c, &rep, pdata, pdata_len);
		sock = c->sock;
		kernel_sock_shutdown(sock, SHUT_RDWR);
		kiwarp_sock_ungrab(c);
		c->state = KSC_DONE;
		ret = 0;
	}
	mutex_unlock(&c->lock);
	return ret;
}

static bool kiwarp_sock_release(struct kiwarp_sock_conn *c)
{
	return kiwarp_sock_end(c, false) > 0;
}

static int kiwarp_sock_give_back(struct kiwarp_sock_conn *c)
{
	if (kiwarp_sock_end(c, true) != -EBUSY)
		return 0;
	/*
	 * The conn's work read the Request or the Reply (it left
	 * CONNECTING or LISTENING under c->lock) and delivers what came of
	 * it before it ends: wait for that.
	 */
	flush_work(&c->work);
	kiwarp_sock_put(c);
	return -EBUSY;
}

static void kiwarp_sock_info(struct kiwarp_sock_conn *c,
			     struct sockaddr_storage *local,
			     struct sockaddr_storage *remote, u8 *mpa_rev,
			     bool *crc)
{
	mutex_lock(&c->lock);
	if (local)
		*local = c->laddr;
	if (remote)
		*remote = c->raddr;
	if (mpa_rev)
		*mpa_rev = c->mpa_rev;
	if (crc)
		*crc = c->crc;
	mutex_unlock(&c->lock);
}

const struct kiwarp_sock_ops kiwarp_sock_ops = {
	.owner = THIS_MODULE,
	.version = KIWARP_SOCK_VERSION,
	.supported = kiwarp_sock_supported,
	.check = kiwarp_sock_check,
	.connect = kiwarp_sock_connect,
	.listen = kiwarp_sock_listen,
	.accept = kiwarp_sock_accept,
	.reject = kiwarp_sock_reject,
	.refuse = kiwarp_sock_refuse,
	.release = kiwarp_sock_release,
	.give_back = kiwarp_sock_give_back,
	.info = kiwarp_sock_info,
};
EXPORT_SYMBOL_GPL(kiwarp_sock_ops);
