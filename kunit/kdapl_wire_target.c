// SPDX-License-Identifier: GPL-2.0
/*
 * kdapl_wire_target.ko: the kernel side of the userspace peer's socket
 * takeover cases (tools/wirepeer, suite kdapl_wire_user). Not a KUnit
 * suite: the peer runs while this module is loaded and reports the
 * cases itself. Everything here goes through the public DAT API of
 * kdapl on the kiwarp device kw0 (@ia), as a consumer would.
 *
 * Passive side (dat_iw_ssp_create): a kernel TCP listener on @addr:@port
 * in the namespace of @ifname. Per accepted connection (a "session"):
 * read exactly "STREAM\n" (the streaming phase: anything the peer sends
 * beyond it stays queued for kiwarp), make an EP with two posted
 * receives and a registered region, create an SSP on the socket with
 * the final message "READY\n", accept the request with the private
 * data "ACCEPTED", or, if the SSP reports SOCKET_DOWN or no request
 * comes within 10 s, free the SSP (the socket comes back) and write
 * "FALLBACK\n" on the socket: a consumer falling back to streaming.
 *
 * Active side (dat_iw_socket_connect): a write of "connect <ipv4>
 * <port> <timeout_ms>" to debugfs "ctl" makes a session that connects
 * a kernel TCP socket to the peer, writes "STREAM\n", reads exactly
 * "STREAMED\n" and calls dat_iw_socket_connect() with the private data
 * "REQUEST!"; if that ends without a connection (the socket comes back
 * to the consumer) it writes "FALLBACK\n" on the socket.
 *
 * Once established, a session advertises its region in a 16-byte Send
 * (STag, TO, length; big endian): the consumer's usual first message,
 * which also makes the region's STag valid (kdapl posts an LMR's
 * registration with the first send-side post, Documentation/kdapl.rst).
 * The peer reads it before it writes or reads the region. Established
 * sessions repost their receives as they complete, until
 * the connection ends (DISCONNECTED or BROKEN) or 30 s pass; then the
 * EP is freed and the canaries around the region and the receive
 * buffers are checked. debugfs "sessions", one line per session:
 *
 *   id=<n> role=<ssp|connect> port=<peer's port> phase=<where it is>
 *   ev=<the SSP's or connect's event> conn=<event after the accept>
 *   end=<last connection event> state=<EP state at the end>
 *   returned=<socket came back> fallback=<bytes written or -errno>
 *   stag=0x.. to=0x.. len=<region> recvs=<good receives>
 *   recv_errs=<receives completed in error> rlen=<last receive's length>
 *   rhead=<its first 16 bytes, hex> guard=<ok|bad> recv_guard=<ok|bad>
 *   region=<clean|dirty> advert=<none|posted|sent|failed|flushed>
 *   ird=<n> ord=<n> (the EP's RDMA Read depths once established, else -1)
 *   done=<0|1>
 *
 * Lifetimes: a session is made by the acceptor thread or a ctl write,
 * runs as one work on wt_wq and stays on wt_sessions (for its line)
 * until the module is unloaded, which stops the acceptor, tells the
 * works to stop (wt_stopping: their waits for events end, each socket
 * call and wait is bounded to a few seconds) and drains wt_wq before
 * freeing them and closing the IA. All fields
 * of a session are written under wt_lock, which "sessions" reads under.
 */

#include <linux/crc32.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <asm/unaligned.h>
#include <net/net_namespace.h>
#include <net/inet_sock.h>
#include <net/sock.h>

#include <dat2/kdat.h>
#include <dat2/dat_iw_extensions.h>

#include "test_net.h"
#include "wire_target.h"

static char *ia_name = "kw0";
module_param_named(ia, ia_name, charp, 0444);
MODULE_PARM_DESC(ia, "kdapl IA (a kiwarp device) to use");
static char *addr = "198.51.100.1";
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "IPv4 address of the IA's netdev to listen on");
static char *ifname = "veth2";
module_param(ifname, charp, 0444);
MODULE_PARM_DESC(ifname, "a netdev of the namespace to work in");
static int port = 7181;
module_param(port, int, 0444);
MODULE_PARM_DESC(port, "TCP port of the passive (SSP) side");

#define ADVERT_LEN	16		/* after the receive buffers */
#define ADVERT_COOKIE	100
#define WAIT_MS		10000
#define LIVE_MS		30000

/* struct wt_session - one TCP connection taken over (or not). */
struct wt_session {
	struct list_head node;		/* on wt_sessions, under wt_lock */
	struct work_struct work;
	unsigned int id;
	bool active;			/* dat_iw_socket_connect's side */
	struct socket *sock;		/* ours while we own it, else NULL */
	struct sockaddr_in peer;	/* active: whom to connect to */
	unsigned int timeout_ms;	/* active: the connect's timeout */
	u16 peer_port;

	/* DAT objects, only touched by the work */
	DAT_EVD_HANDLE dto, conn, cr;
	DAT_EP_HANDLE ep;
	DAT_IW_SSP_HANDLE ssp;
	DAT_LMR_HANDLE lmr, rlmr;
	DAT_LMR_CONTEXT rlctx;
	DAT_VADDR raddr;
	u8 *buf;			/* GUARD | REG_LEN | GUARD */
	/* (GUARD | RECV_LEN) x RING | GUARD | ADVERT_LEN */
	u8 *rbuf;

	/* what the line shows, under wt_lock */
	const char *phase, *ev, *conn_ev, *end, *state, *advert;
	bool returned, done, guard_ok, recv_guard_ok, region_clean;
	int fallback;
	u32 stag;
	u64 to;
	unsigned int recvs, recv_errs, rlen;
	int ird, ord;			/* negotiated; -1 until established */
	u8 rhead[16];
};

static DEFINE_MUTEX(wt_lock);
static LIST_HEAD(wt_sessions);
static unsigned int wt_next_id;
static bool wt_stopping;
static struct workqueue_struct *wt_wq;
static struct task_struct *wt_acceptor;
static struct socket *wt_listener;
static struct net *wt_net;
static struct dentry *wt_dir;
static DAT_IA_HANDLE wt_ia;
static DAT_PZ_HANDLE wt_pz;

/* Set one of a session's shown strings under wt_lock. */
static void set_str(const char **field, const char *val)
{
	mutex_lock(&wt_lock);
	*field = val;
	mutex_unlock(&wt_lock);
}

static const char *event_name(DAT_EVENT_NUMBER num)
{
	unsigned int n = num;	/* SOCKET_DOWN is an extension's number */

	switch (n) {
	case DAT_CONNECTION_REQUEST_EVENT:		return "request";
	case DAT_CONNECTION_EVENT_ESTABLISHED:		return "established";
	case DAT_CONNECTION_EVENT_PEER_REJECTED:	return "peer_rejected";
	case DAT_CONNECTION_EVENT_NON_PEER_REJECTED:	return "non_peer_rejected";
	case DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR:
		return "accept_completion_error";
	case DAT_CONNECTION_EVENT_DISCONNECTED:		return "disconnected";
	case DAT_CONNECTION_EVENT_BROKEN:		return "broken";
	case DAT_CONNECTION_EVENT_TIMED_OUT:		return "timed_out";
	case DAT_CONNECTION_EVENT_UNREACHABLE:		return "unreachable";
	case DAT_CONNECTION_EVENT_SOCKET_DOWN:		return "socket_down";
	default:					return "other";
	}
}

static const char *state_name(DAT_EP_HANDLE ep)
{
	DAT_EP_STATE st;

	if (dat_ep_get_status(ep, &st, NULL, NULL) != DAT_SUCCESS)
		return "unknown";
	switch (st) {
	case DAT_EP_STATE_UNCONNECTED:			return "UNCONNECTED";
	case DAT_EP_STATE_RESERVED:			return "RESERVED";
	case DAT_EP_STATE_PASSIVE_CONNECTION_PENDING:	return "PASSIVE_PENDING";
	case DAT_EP_STATE_ACTIVE_CONNECTION_PENDING:	return "ACTIVE_PENDING";
	case DAT_EP_STATE_CONNECTED:			return "CONNECTED";
	case DAT_EP_STATE_DISCONNECT_PENDING:		return "DISCONNECT_PENDING";
	case DAT_EP_STATE_DISCONNECTED:			return "DISCONNECTED";
	case DAT_EP_STATE_COMPLETION_PENDING:		return "COMPLETION_PENDING";
	default:					return "OTHER";
	}
}

/*
 * Dequeue from @evd within @ms (50 ms steps, ending early when the
 * module goes): DAT_SUCCESS, or the EVD's QUEUE_EMPTY.
 */
static DAT_RETURN wt_wait(DAT_EVD_HANDLE evd, DAT_EVENT *ev, int ms)
{
	DAT_RETURN ret;

	for (;;) {
		ret = dat_evd_dequeue(evd, ev);
		if (ret == DAT_SUCCESS || ms <= 0 || READ_ONCE(wt_stopping))
			return ret;
		msleep(50);
		ms -= 50;
	}
}

/*
 * After dat_iw_ssp_free() of an SSP that had no request yet: did one
 * race the free? kdapl delivers such a request before the free returns
 * (its socket went to the CR): reject it. Return: true when the socket
 * is ours again, false when a request took it.
 */
static bool ssp_socket_back(struct wt_session *s)
{
	DAT_EVENT ev;

	while (dat_evd_dequeue(s->cr, &ev) == DAT_SUCCESS) {
		if (ev.event_number != DAT_CONNECTION_REQUEST_EVENT)
			continue;
		dat_cr_reject(ev.event_data.cr_arrival_event_data.cr_handle,
			      0, NULL);
		return false;
	}
	return true;
}

static int sk_send(struct socket *s, const void *buf, size_t len)
{
	struct kvec v = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr m = { .msg_flags = MSG_NOSIGNAL };

	return kernel_sendmsg(s, &m, &v, 1, len);
}

/* Exactly @len bytes within 5 s, or -errno / a short count. */
static int sk_recv(struct socket *s, void *buf, size_t len)
{
	struct kvec v = { .iov_base = buf, .iov_len = len };
	struct msghdr m = {};

	s->sk->sk_rcvtimeo = msecs_to_jiffies(5000);
	return kernel_recvmsg(s, &m, &v, 1, len, MSG_WAITALL);
}

static int post_recv(struct wt_session *s, int i)
{
	DAT_LMR_TRIPLET t = {
		.lmr_context = s->rlctx,
		.virtual_address = s->raddr + GUARD + i * (RECV_LEN + GUARD),
		.segment_length = RECV_LEN,
	};
	DAT_DTO_COOKIE ck = { .as_64 = i };

	return dat_ep_post_recv(s->ep, 1, &t, ck,
				DAT_COMPLETION_DEFAULT_FLAG) == DAT_SUCCESS ?
		0 : -EIO;
}

/* EVDs, the EP, the region and the receive buffers, receives posted. */
static int session_setup(struct wt_session *s)
{
	DAT_REGION_DESCRIPTION r;
	DAT_RMR_CONTEXT rctx;
	DAT_LMR_CONTEXT lctx;
	DAT_VLEN reglen;
	DAT_VADDR va;
	int i;

	s->buf = kmalloc(REG_LEN + 2 * GUARD, GFP_KERNEL);
	s->rbuf = kmalloc(RBUF_LEN + ADVERT_LEN, GFP_KERNEL);
	if (!s->buf || !s->rbuf)
		return -ENOMEM;
	memset(s->buf, CANARY, REG_LEN + 2 * GUARD);
	memset(s->buf + GUARD, 0, REG_LEN);
	memset(s->rbuf, CANARY, RBUF_LEN);
	for (i = 0; i < RECV_RING; i++)
		memset(s->rbuf + GUARD + i * (RECV_LEN + GUARD), 0, RECV_LEN);
	if (dat_evd_kcreate(wt_ia, 16, DAT_UPCALL_DISABLE, NULL,
			    DAT_EVD_DTO_FLAG, &s->dto) ||
	    dat_evd_kcreate(wt_ia, 8, DAT_UPCALL_DISABLE, NULL,
			    DAT_EVD_CONNECTION_FLAG, &s->conn) ||
	    dat_evd_kcreate(wt_ia, 4, DAT_UPCALL_DISABLE, NULL,
			    DAT_EVD_CR_FLAG, &s->cr) ||
	    dat_ep_create(wt_ia, wt_pz, s->dto, s->dto, s->conn, NULL, &s->ep))
		return -EIO;
	r.for_va = s->buf + GUARD;
	if (dat_lmr_kcreate(wt_ia, DAT_MEM_TYPE_VIRTUAL, r, REG_LEN, wt_pz,
			    DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA,
			    DAT_MEM_OPTIMIZE_DONT_CARE, &s->lmr, &lctx, &rctx,
			    &reglen, &va))
		return -EIO;
	mutex_lock(&wt_lock);
	s->stag = rctx;
	s->to = va;
	mutex_unlock(&wt_lock);
	r.for_va = s->rbuf;
	if (dat_lmr_kcreate(wt_ia, DAT_MEM_TYPE_VIRTUAL, r,
			    RBUF_LEN + ADVERT_LEN, wt_pz,
			    DAT_MEM_PRIV_LOCAL_READ_FLAG |
			    DAT_MEM_PRIV_LOCAL_WRITE_FLAG, DAT_VA_TYPE_VA,
			    DAT_MEM_OPTIMIZE_DONT_CARE, &s->rlmr, &s->rlctx,
			    &rctx, &reglen, &s->raddr))
		return -EIO;
	for (i = 0; i < RECV_RING; i++)
		if (post_recv(s, i))
			return -EIO;
	return 0;
}

/* The socket is the consumer's again: fall back to streaming. */
static void session_fallback(struct wt_session *s)
{
	int ret = sk_send(s->sock, "FALLBACK\n", 9);

	mutex_lock(&wt_lock);
	s->returned = true;
	s->fallback = ret;
	mutex_unlock(&wt_lock);
}

static void bytes_check(struct wt_session *s)
{
	bool guard = true, rguard = true, clean = true;
	int i;

	for (i = 0; i < GUARD; i++)
		guard &= s->buf[i] == CANARY &&
			 s->buf[GUARD + REG_LEN + i] == CANARY;
	for (i = 0; i < REG_LEN; i++)
		clean &= !s->buf[GUARD + i];
	for (i = 0; i <= RECV_RING; i++) {
		int j;

		for (j = 0; j < GUARD; j++)
			rguard &= s->rbuf[i * (RECV_LEN + GUARD) + j] == CANARY;
	}
	mutex_lock(&wt_lock);
	s->guard_ok = guard;
	s->recv_guard_ok = rguard;
	s->region_clean = clean;
	mutex_unlock(&wt_lock);
}

/* The region's STag, TO and length to the peer, in a Send. */
static int session_advertise(struct wt_session *s)
{
	DAT_LMR_TRIPLET t = {
		.lmr_context = s->rlctx,
		.virtual_address = s->raddr + RBUF_LEN,
		.segment_length = ADVERT_LEN,
	};
	DAT_DTO_COOKIE ck = { .as_64 = ADVERT_COOKIE };
	u8 *a = s->rbuf + RBUF_LEN;

	put_unaligned_be32(s->stag, a);
	put_unaligned_be64(s->to, a + 4);
	put_unaligned_be32(REG_LEN, a + 12);
	return dat_ep_post_send(s->ep, 1, &t, ck,
				DAT_COMPLETION_DEFAULT_FLAG) == DAT_SUCCESS ?
		0 : -EIO;
}

/* The connection is up: serve receives until it ends. */
static void session_live(struct wt_session *s)
{
	unsigned long end = jiffies + msecs_to_jiffies(LIVE_MS);
	DAT_EP_PARAM param;
	DAT_EVENT ev;

	/* the RDMA Read depths the connection negotiated (RFC 6581) */
	if (dat_ep_query(s->ep, DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IN |
			 DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_OUT,
			 &param) == DAT_SUCCESS) {
		mutex_lock(&wt_lock);
		s->ird = param.ep_attr.max_rdma_read_in;
		s->ord = param.ep_attr.max_rdma_read_out;
		mutex_unlock(&wt_lock);
	}
	set_str(&s->advert, session_advertise(s) ? "post_failed" : "posted");
	set_str(&s->phase, "established");
	while (!READ_ONCE(wt_stopping) && time_before(jiffies, end)) {
		if (dat_evd_dequeue(s->dto, &ev) == DAT_SUCCESS) {
			DAT_DTO_COMPLETION_EVENT_DATA *d =
				&ev.event_data.dto_completion_event_data;
			int i = d->user_cookie.as_64;

			if (i == ADVERT_COOKIE) {
				set_str(&s->advert, d->status == DAT_DTO_SUCCESS ?
				    "sent" : "failed");
				continue;
			}
			mutex_lock(&wt_lock);
			if (d->status == DAT_DTO_SUCCESS) {
				s->recvs++;
				s->rlen = d->transfered_length;
				memcpy(s->rhead, s->rbuf + GUARD +
				       i * (RECV_LEN + GUARD), 16);
			} else {
				s->recv_errs++;
			}
			mutex_unlock(&wt_lock);
			if (d->status == DAT_DTO_SUCCESS) {
				memset(s->rbuf + GUARD + i * (RECV_LEN + GUARD),
				       0, RECV_LEN);
				post_recv(s, i);
			}
			continue;
		}
		if (dat_evd_dequeue(s->conn, &ev) == DAT_SUCCESS) {
			set_str(&s->end, event_name(ev.event_number));
			if (ev.event_number == DAT_CONNECTION_EVENT_DISCONNECTED ||
			    ev.event_number == DAT_CONNECTION_EVENT_BROKEN)
				break;
			continue;
		}
		msleep(20);
	}
	/* the flushed receives (counted as errors) */
	while (wt_wait(s->dto, &ev, 200) == DAT_SUCCESS) {
		if (ev.event_data.dto_completion_event_data.user_cookie.as_64 ==
		    ADVERT_COOKIE) {
			set_str(&s->advert, "flushed");
			continue;
		}
		mutex_lock(&wt_lock);
		s->recv_errs++;
		mutex_unlock(&wt_lock);
	}
}

static void session_passive(struct wt_session *s)
{
	char buf[16];
	DAT_EVENT ev;
	DAT_CR_HANDLE cr;

	if (sk_recv(s->sock, buf, 7) != 7 || memcmp(buf, "STREAM\n", 7)) {
		set_str(&s->phase, "stream_bad");
		return;
	}
	if (session_setup(s)) {
		set_str(&s->phase, "setup_failed");
		return;
	}
	if (dat_iw_ssp_create(wt_ia, s->sock, s->ep, s->cr, (void *)"READY\n", 6,
			      &s->ssp) != DAT_SUCCESS) {
		s->ssp = DAT_HANDLE_NULL;
		set_str(&s->phase, "ssp_create_failed");
		return;
	}
	set_str(&s->phase, "ssp");
	if (wt_wait(s->cr, &ev, WAIT_MS) != DAT_SUCCESS) {
		set_str(&s->ev, "none");
		dat_iw_ssp_free(s->ssp);	/* the socket comes back */
		s->ssp = DAT_HANDLE_NULL;
		if (!ssp_socket_back(s)) {
			set_str(&s->ev, "late_request");
			s->sock = NULL;		/* the CR's: it closed it */
			return;
		}
		session_fallback(s);
		return;
	}
	set_str(&s->ev, event_name(ev.event_number));
	if (ev.event_number != DAT_CONNECTION_REQUEST_EVENT) {
		dat_iw_ssp_free(s->ssp);
		s->ssp = DAT_HANDLE_NULL;
		/* SOCKET_DOWN: the socket is the consumer's again */
		session_fallback(s);
		return;
	}
	cr = ev.event_data.cr_arrival_event_data.cr_handle;
	s->sock = NULL;		/* the CR's, then the EP's */
	if (dat_cr_accept(cr, s->ep, 8, (void *)"ACCEPTED") != DAT_SUCCESS) {
		set_str(&s->phase, "accept_failed");
		dat_cr_reject(cr, 0, NULL);	/* the peer hears, the CR goes */
		return;
	}
	if (wt_wait(s->conn, &ev, WAIT_MS) != DAT_SUCCESS) {
		set_str(&s->conn_ev, "none");
		return;
	}
	set_str(&s->conn_ev, event_name(ev.event_number));
	if (ev.event_number == DAT_CONNECTION_EVENT_ESTABLISHED)
		session_live(s);
}

static void session_active(struct wt_session *s)
{
	char buf[16];
	DAT_EVENT ev;
	int ret;

	ret = sock_create_kern(wt_net, AF_INET, SOCK_STREAM, IPPROTO_TCP,
			       &s->sock);
	if (ret) {
		s->sock = NULL;
		set_str(&s->phase, "socket_failed");
		return;
	}
	/* bounded: a peer dropping our SYNs must not hold module unload */
	s->sock->sk->sk_sndtimeo = msecs_to_jiffies(5000);
	if (kernel_connect(s->sock, (struct sockaddr *)&s->peer,
			   sizeof(s->peer), 0)) {
		set_str(&s->phase, "tcp_connect_failed");
		return;
	}
	if (sk_send(s->sock, "STREAM\n", 7) != 7 ||
	    sk_recv(s->sock, buf, 9) != 9 || memcmp(buf, "STREAMED\n", 9)) {
		set_str(&s->phase, "stream_bad");
		return;
	}
	if (session_setup(s)) {
		set_str(&s->phase, "setup_failed");
		return;
	}
	if (dat_iw_socket_connect(s->ep, s->sock, s->timeout_ms * 1000, 8,
				  (void *)"REQUEST!") != DAT_SUCCESS) {
		set_str(&s->phase, "connect_failed");
		return;
	}
	set_str(&s->phase, "connecting");
	if (wt_wait(s->conn, &ev, s->timeout_ms + WAIT_MS) != DAT_SUCCESS) {
		/*
		 * Only when the module goes (the connect's own timeout ends
		 * it first): free the EP now; if the connection came up
		 * meanwhile, the socket went with it.
		 */
		set_str(&s->ev, "none");
		dat_ep_free(s->ep);
		s->ep = DAT_HANDLE_NULL;
		while (dat_evd_dequeue(s->conn, &ev) == DAT_SUCCESS)
			if (ev.event_number == DAT_CONNECTION_EVENT_ESTABLISHED)
				s->sock = NULL;
		return;
	}
	set_str(&s->ev, event_name(ev.event_number));
	if (ev.event_number == DAT_CONNECTION_EVENT_ESTABLISHED) {
		s->sock = NULL;		/* the EP's */
		session_live(s);
	} else {
		session_fallback(s);
	}
}

static void session_work(struct work_struct *w)
{
	struct wt_session *s = container_of(w, struct wt_session, work);

	if (s->active)
		session_active(s);
	else
		session_passive(s);
	if (s->ssp)
		dat_iw_ssp_free(s->ssp);
	mutex_lock(&wt_lock);
	s->state = s->ep ? state_name(s->ep) : "none";
	mutex_unlock(&wt_lock);
	/* the EP first: nothing is placed after it is gone */
	if (s->ep)
		dat_ep_free(s->ep);
	if (s->buf && s->rbuf)
		bytes_check(s);
	if (s->lmr)
		dat_lmr_free(s->lmr);
	if (s->rlmr)
		dat_lmr_free(s->rlmr);
	if (s->cr)
		dat_evd_free(s->cr);
	if (s->conn)
		dat_evd_free(s->conn);
	if (s->dto)
		dat_evd_free(s->dto);
	if (s->sock)
		sock_release(s->sock);
	s->sock = NULL;
	mutex_lock(&wt_lock);
	s->done = true;
	mutex_unlock(&wt_lock);
}

static struct wt_session *session_new(bool active)
{
	struct wt_session *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (!s)
		return NULL;
	INIT_WORK(&s->work, session_work);
	s->active = active;
	s->phase = "new";
	s->ev = "none";
	s->conn_ev = "none";
	s->end = "none";
	s->state = "none";
	s->advert = "none";
	s->ird = -1;
	s->ord = -1;
	mutex_lock(&wt_lock);
	s->id = wt_next_id++;
	list_add_tail(&s->node, &wt_sessions);
	mutex_unlock(&wt_lock);
	return s;
}

static int wt_accept_thread(void *unused)
{
	while (!kthread_should_stop()) {
		struct wt_session *s;
		struct socket *ns;

		if (kernel_accept(wt_listener, &ns, O_NONBLOCK)) {
			msleep(20);
			continue;
		}
		s = session_new(false);
		if (!s) {
			sock_release(ns);
			continue;
		}
		s->sock = ns;
		/* not getpeername: a connection reset in the queue is CLOSE */
		s->peer_port = ntohs(inet_sk(ns->sk)->inet_dport);
		queue_work(wt_wq, &s->work);
	}
	return 0;
}

static int sessions_show(struct seq_file *m, void *v)
{
	struct wt_session *s;

	mutex_lock(&wt_lock);
	list_for_each_entry(s, &wt_sessions, node)
		seq_printf(m, "id=%u role=%s port=%u phase=%s ev=%s conn=%s end=%s state=%s returned=%d fallback=%d stag=0x%x to=0x%llx len=%u recvs=%u recv_errs=%u rlen=%u rhead=%16phN guard=%s recv_guard=%s region=%s advert=%s ird=%d ord=%d done=%d\n",
			   s->id, s->active ? "connect" : "ssp", s->peer_port,
			   s->phase, s->ev, s->conn_ev, s->end, s->state,
			   s->returned, s->fallback, s->stag, s->to, REG_LEN,
			   s->recvs, s->recv_errs, s->rlen, s->rhead,
			   s->done && s->guard_ok ? "ok" : s->done ? "bad" : "-",
			   s->done && s->recv_guard_ok ? "ok" :
			   s->done ? "bad" : "-",
			   !s->done ? "-" : s->region_clean ? "clean" : "dirty",
			   s->advert, s->ird, s->ord, s->done);
	mutex_unlock(&wt_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sessions);

/* "connect <ipv4> <port> <timeout_ms>": an active session. */
static ssize_t ctl_write(struct file *f, const char __user *ubuf, size_t len,
			 loff_t *ppos)
{
	char buf[64], ip[20];
	unsigned int p, ms;
	struct wt_session *s;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	if (sscanf(buf, "connect %19s %u %u", ip, &p, &ms) != 3 || !p ||
	    p > 65535 || !ms || ms > 60000)
		return -EINVAL;
	s = session_new(true);
	if (!s)
		return -ENOMEM;
	s->peer.sin_family = AF_INET;
	s->peer.sin_addr.s_addr = in_aton(ip);
	s->peer.sin_port = htons(p);
	s->peer_port = p;
	s->timeout_ms = ms;
	queue_work(wt_wq, &s->work);
	return len;
}

static const struct file_operations ctl_fops = {
	.owner = THIS_MODULE,
	.write = ctl_write,
};

static void wt_teardown(void)
{
	struct wt_session *s, *tmp;

	WRITE_ONCE(wt_stopping, true);
	if (wt_acceptor)
		kthread_stop(wt_acceptor);
	debugfs_remove_recursive(wt_dir);
	if (wt_wq)
		destroy_workqueue(wt_wq);	/* drains the sessions */
	list_for_each_entry_safe(s, tmp, &wt_sessions, node) {
		list_del(&s->node);
		kfree(s->buf);
		kfree(s->rbuf);
		kfree(s);
	}
	if (wt_listener)
		sock_release(wt_listener);
	if (wt_pz)
		dat_pz_free(wt_pz);
	if (wt_ia)
		dat_ia_close(wt_ia, DAT_CLOSE_ABRUPT_FLAG);
	if (wt_net)
		put_net(wt_net);
}

static int __init wt_init(void)
{
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = in_aton(addr),
	};
	int ret = -ENODEV;

	wt_net = test_find_net(ifname);
	if (!wt_net)
		goto fail;
	ret = -EIO;
	if (dat_ia_open(ia_name, 16, &async, &wt_ia) != DAT_SUCCESS) {
		wt_ia = DAT_HANDLE_NULL;
		goto fail;
	}
	if (dat_pz_create(wt_ia, &wt_pz) != DAT_SUCCESS) {
		wt_pz = DAT_HANDLE_NULL;
		goto fail;
	}
	ret = -ENOMEM;
	wt_wq = alloc_workqueue("kdapl_wire_target", WQ_UNBOUND, 0);
	if (!wt_wq)
		goto fail;
	ret = sock_create_kern(wt_net, AF_INET, SOCK_STREAM, IPPROTO_TCP,
			       &wt_listener);
	if (ret) {
		wt_listener = NULL;
		goto fail;
	}
	sock_set_reuseaddr(wt_listener->sk);
	ret = kernel_bind(wt_listener, (struct sockaddr *)&sin, sizeof(sin));
	if (!ret)
		ret = kernel_listen(wt_listener, 16);
	if (ret)
		goto fail;
	wt_dir = debugfs_create_dir("kdapl_wire_target", NULL);
	debugfs_create_file("sessions", 0444, wt_dir, NULL, &sessions_fops);
	debugfs_create_file("ctl", 0200, wt_dir, NULL, &ctl_fops);
	wt_acceptor = kthread_run(wt_accept_thread, NULL, "kdapl_wt_accept");
	if (IS_ERR(wt_acceptor)) {
		ret = PTR_ERR(wt_acceptor);
		wt_acceptor = NULL;
		goto fail;
	}
	return 0;
fail:
	wt_teardown();
	return ret;
}

static void __exit wt_exit(void)
{
	wt_teardown();
}

module_init(wt_init);
module_exit(wt_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kernel side of kiwarp-wirepeer's socket takeover cases");
