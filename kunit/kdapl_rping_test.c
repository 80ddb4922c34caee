// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite kdapl_rping: the socket extensions of kDAPL against
 * userspace rping (rdmacm-utils) on siw, speaking rping's protocol.
 *
 * Topology: our side is kw0 (veth2, 198.51.100.1, namespace b), the peer
 * siwC (veth3, 198.51.100.2, root namespace), where the guest runner
 * starts, before this module is loaded,
 *
 *   rping -s -a 198.51.100.2 -p 7174+x -C <count> -S 64 -V
 *   rping -c -a 198.51.100.1 -p 7175+x -C <count> -S 64 -V (retrying)
 *
 * and judges their exit status separately.
 *
 * interop_socket_connect_rping_siw: a plain kernel TCP connection to
 * rping -s's port (siw's listening socket), then dat_iw_socket_connect()
 * over it, then rping's exchange as the client, validating every round.
 * interop_ssp_rping_siw: kernel_accept() of rping -c's TCP connection,
 * dat_iw_ssp_create() on it, accept, then rping's exchange as the server.
 *
 * rping's exchange, per round: the client SENDs a 16 byte
 * struct rping_info (big endian address, STag, length) of its source
 * buffer; the server RDMA READs it and SENDs a 16 byte go-ahead; the
 * client SENDs the info of its sink buffer; the server RDMA WRITEs what
 * it read there and SENDs the go-ahead; with -V the client compares
 * source and sink. The source holds "rdma-ping-<n>: " and a rotating
 * alphabet, NUL terminated.
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/in.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include <dat2/kdat.h>
#include <dat2/dat_iw_extensions.h>

#include "kdapl_test.h"
#include "test_net.h"

static int count = 100;
module_param(count, int, 0444);
MODULE_PARM_DESC(count, "rping rounds per case (rping -C)");
static int size = 64;
module_param(size, int, 0444);
MODULE_PARM_DESC(size, "rping buffer size (rping -S)");
static int port_server = 7174;
module_param(port_server, int, 0444);
MODULE_PARM_DESC(port_server, "port of rping -s on siw");
static int port_listen = 7175;
module_param(port_listen, int, 0444);
MODULE_PARM_DESC(port_listen, "our port, for rping -c");

#define OUR_IA		"kw0"
#define OUR_IF		"veth2"
#define OUR_ADDR	"198.51.100.1"
#define PEER_ADDR	"198.51.100.2"
#define WAIT_MS		20000

struct rping_info {
	__be64 buf;
	__be32 rkey;
	__be32 size;
};

struct mem {
	u8 *buf;
	size_t len;
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lctx;
	DAT_RMR_CONTEXT rctx;
	DAT_VADDR addr;
};

struct rp {
	struct net *net;
	DAT_IA_HANDLE ia;
	DAT_EVD_HANDLE async;
	DAT_PZ_HANDLE pz;
	DAT_EVD_HANDLE dto, conn, cr;
	DAT_EP_HANDLE ep;
	struct mem rx, tx, start, rw;
	struct socket *sock;	/* ours until it goes to kdapl */
	struct socket *lsock;
	DAT_IW_SSP_HANDLE ssp;
	u64 seen;		/* cookies of completions not yet waited for */
};

static void mem_make(struct kunit *test, struct rp *r, size_t len,
		     struct mem *m)
{
	DAT_REGION_DESCRIPTION d;
	DAT_VLEN reglen = 0;

	m->len = len;
	m->buf = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m->buf);
	d.for_va = m->buf;
	ASSERT_OK(test, dat_lmr_kcreate(r->ia, DAT_MEM_TYPE_VIRTUAL, d, len,
					r->pz, DAT_MEM_PRIV_ALL_FLAG,
					DAT_VA_TYPE_VA,
					DAT_MEM_OPTIMIZE_DONT_CARE, &m->lmr,
					&m->lctx, &m->rctx, &reglen, &m->addr));
}

static int rp_init(struct kunit *test)
{
	struct rp *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	if (!r)
		return -ENOMEM;
	test->priv = r;
	r->net = test_find_net(OUR_IF);
	if (!r->net)
		return -ENODEV;
	r->async = DAT_HANDLE_NULL;
	ASSERT_OK(test, dat_ia_open(OUR_IA, 16, &r->async, &r->ia));
	ASSERT_OK(test, dat_pz_create(r->ia, &r->pz));
	ASSERT_OK(test, dat_evd_kcreate(r->ia, 64, DAT_UPCALL_DISABLE, NULL,
					DAT_EVD_DTO_FLAG, &r->dto));
	ASSERT_OK(test, dat_evd_kcreate(r->ia, 8, DAT_UPCALL_DISABLE, NULL,
					DAT_EVD_CONNECTION_FLAG, &r->conn));
	ASSERT_OK(test, dat_evd_kcreate(r->ia, 8, DAT_UPCALL_DISABLE, NULL,
					DAT_EVD_CR_FLAG, &r->cr));
	ASSERT_OK(test, dat_ep_create(r->ia, r->pz, r->dto, r->dto, r->conn,
				      NULL, &r->ep));
	mem_make(test, r, sizeof(struct rping_info), &r->rx);
	mem_make(test, r, sizeof(struct rping_info), &r->tx);
	mem_make(test, r, size, &r->start);
	mem_make(test, r, size, &r->rw);
	return 0;
}

static void rp_exit(struct kunit *test)
{
	struct rp *r = test->priv;

	if (r->ia)
		dat_ia_close(r->ia, DAT_CLOSE_ABRUPT_FLAG);
	if (r->sock)
		sock_release(r->sock);
	if (r->lsock)
		sock_release(r->lsock);
	if (r->net)
		put_net(r->net);
}

static DAT_RETURN wait_ev(DAT_EVD_HANDLE evd, DAT_EVENT *ev, int ms)
{
	DAT_RETURN ret;

	for (;;) {
		ret = dat_evd_dequeue(evd, ev);
		if (ret != DAT_ERROR(DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE) || ms <= 0)
			return ret;
		usleep_range(1000, 2000);
		ms -= 1;
	}
}

static void expect_ev(struct kunit *test, DAT_EVD_HANDLE evd,
		      DAT_EVENT_NUMBER num, DAT_EVENT *ev)
{
	memset(ev, 0, sizeof(*ev));
	ASSERT_OK(test, wait_ev(evd, ev, WAIT_MS));
	KUNIT_ASSERT_EQ_MSG(test, ev->event_number, num,
			    "event %#x, want %#x", ev->event_number, num);
}

/* Cookies: 1 receive, 2 send, 3 RDMA read, 4 RDMA write. */
enum { CK_RECV = 1, CK_SEND, CK_READ, CK_WRITE };

static DAT_DTO_COOKIE ck(u64 v)
{
	DAT_DTO_COOKIE c = { .as_64 = v };
	return c;
}

/* Wait until the completion with cookie @want arrived (successfully). */
static u32 wait_dto(struct kunit *test, struct rp *r, u64 want)
{
	DAT_DTO_COMPLETION_EVENT_DATA *d;
	DAT_EVENT ev;

	while (!(r->seen & BIT_ULL(want))) {
		expect_ev(test, r->dto, DAT_DTO_COMPLETION_EVENT, &ev);
		d = &ev.event_data.dto_completion_event_data;
		KUNIT_ASSERT_EQ_MSG(test, d->status, DAT_DTO_SUCCESS,
				    "cookie %llu", d->user_cookie.as_64);
		KUNIT_ASSERT_LT(test, d->user_cookie.as_64, 64ULL);
		r->seen |= BIT_ULL(d->user_cookie.as_64);
		if (d->user_cookie.as_64 == CK_RECV)
			KUNIT_ASSERT_EQ(test, d->transfered_length,
					(DAT_SEG_LENGTH)sizeof(struct rping_info));
	}
	r->seen &= ~BIT_ULL(want);
	return 0;
}

static DAT_LMR_TRIPLET trip(struct mem *m, size_t len)
{
	DAT_LMR_TRIPLET t = {
		.lmr_context = m->lctx,
		.virtual_address = m->addr,
		.segment_length = len,
	};
	return t;
}

static void post_recv(struct kunit *test, struct rp *r)
{
	DAT_LMR_TRIPLET t = trip(&r->rx, sizeof(struct rping_info));

	ASSERT_OK(test, dat_ep_post_recv(r->ep, 1, &t, ck(CK_RECV),
					 DAT_COMPLETION_DEFAULT_FLAG));
}

/* SEND the info of @m (or of nothing, the server's go-ahead). */
static void send_info(struct kunit *test, struct rp *r, struct mem *m)
{
	struct rping_info *i = (struct rping_info *)r->tx.buf;
	DAT_LMR_TRIPLET t = trip(&r->tx, sizeof(*i));

	memset(i, 0, sizeof(*i));
	if (m) {
		i->buf = cpu_to_be64(m->addr);
		i->rkey = cpu_to_be32(m->rctx);
		i->size = cpu_to_be32(size);
	}
	ASSERT_OK(test, dat_ep_post_send(r->ep, 1, &t, ck(CK_SEND),
					 DAT_COMPLETION_DEFAULT_FLAG));
}

/* rping's source pattern for round @n. */
static void pattern(u8 *p, int n, int *start)
{
	int i, c = *start;
	int cc = snprintf(p, size, "rdma-ping-%d: ", n);

	for (i = cc; i < size; i++) {
		p[i] = c;
		if (++c > 122)
			c = 65;
	}
	if (++*start > 122)
		*start = 65;
	p[size - 1] = 0;
}

/* The client's rounds: source info, go-ahead, sink info, go-ahead. */
static void client_rounds(struct kunit *test, struct rp *r)
{
	int n, start = 65;

	for (n = 0; n < count; n++) {
		pattern(r->start.buf, n, &start);
		memset(r->rw.buf, 0, size);
		send_info(test, r, &r->start);
		wait_dto(test, r, CK_SEND);
		wait_dto(test, r, CK_RECV);	/* the server has read it */
		post_recv(test, r);
		send_info(test, r, &r->rw);
		wait_dto(test, r, CK_SEND);
		wait_dto(test, r, CK_RECV);	/* the server has written it */
		post_recv(test, r);
		KUNIT_ASSERT_EQ_MSG(test, memcmp(r->start.buf, r->rw.buf, size),
				    0, "round %d: data mismatch", n);
	}
}

/* The server's rounds: read the source, go-ahead, write the sink, go-ahead. */
static void server_rounds(struct kunit *test, struct rp *r)
{
	struct rping_info *i = (struct rping_info *)r->rx.buf;
	char head[32];
	DAT_RMR_TRIPLET rt;
	DAT_LMR_TRIPLET t;
	u32 len;
	int n;

	for (n = 0; n < count; n++) {
		wait_dto(test, r, CK_RECV);
		len = be32_to_cpu(i->size);
		KUNIT_ASSERT_LE(test, len, (u32)size);
		rt.rmr_context = be32_to_cpu(i->rkey);
		rt.virtual_address = be64_to_cpu(i->buf);
		rt.segment_length = len;
		post_recv(test, r);
		memset(r->rw.buf, 0, size);
		t = trip(&r->rw, len);
		ASSERT_OK(test, dat_ep_post_rdma_read(r->ep, 1, &t, ck(CK_READ),
						      &rt,
						      DAT_COMPLETION_DEFAULT_FLAG));
		wait_dto(test, r, CK_READ);
		/* What rping -c sends in round n. */
		snprintf(head, sizeof(head), "rdma-ping-%d: ", n);
		KUNIT_ASSERT_EQ_MSG(test, memcmp(r->rw.buf, head, strlen(head)),
				    0, "round %d: read \"%.20s\"", n, r->rw.buf);
		send_info(test, r, NULL);
		wait_dto(test, r, CK_SEND);

		wait_dto(test, r, CK_RECV);
		len = be32_to_cpu(i->size);
		KUNIT_ASSERT_LE(test, len, (u32)size);
		rt.rmr_context = be32_to_cpu(i->rkey);
		rt.virtual_address = be64_to_cpu(i->buf);
		rt.segment_length = len;
		post_recv(test, r);
		t = trip(&r->rw, len);
		ASSERT_OK(test, dat_ep_post_rdma_write(r->ep, 1, &t,
						       ck(CK_WRITE), &rt,
						       DAT_COMPLETION_DEFAULT_FLAG));
		send_info(test, r, NULL);
		wait_dto(test, r, CK_WRITE);
		wait_dto(test, r, CK_SEND);
	}
}

static void interop_socket_connect_rping_siw(struct kunit *test)
{
	struct rp *r = test->priv;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	DAT_EVENT ev;
	int tries;

	sin.sin_port = htons(port_server);
	sin.sin_addr.s_addr = in_aton(PEER_ADDR);
	/* rping -s may still be starting (slow under TCG): up to a minute. */
	for (tries = 0; tries < 300; tries++) {
		ASSERT_OK(test, sock_create_kern(r->net, AF_INET, SOCK_STREAM,
						 IPPROTO_TCP, &r->sock));
		if (!kernel_connect(r->sock, (struct sockaddr *)&sin,
				    sizeof(sin), 0))
			break;
		sock_release(r->sock);
		r->sock = NULL;
		msleep(200);
	}
	KUNIT_ASSERT_NOT_NULL_MSG(test, r->sock, "no rping -s on %s:%d",
				  PEER_ADDR, port_server);
	post_recv(test, r);
	ASSERT_OK(test, dat_iw_socket_connect(r->ep, r->sock, 10000000, 0,
					      NULL));
	expect_ev(test, r->conn, DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
	r->sock = NULL;		/* the EP's now */
	client_rounds(test, r);
	ASSERT_OK(test, dat_ep_disconnect(r->ep, DAT_CLOSE_GRACEFUL_FLAG));
	expect_ev(test, r->conn, DAT_CONNECTION_EVENT_DISCONNECTED, &ev);
}

static void interop_ssp_rping_siw(struct kunit *test)
{
	struct rp *r = test->priv;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	DAT_CR_HANDLE cr;
	DAT_EVENT ev;

	sin.sin_port = htons(port_listen);
	sin.sin_addr.s_addr = in_aton(OUR_ADDR);
	ASSERT_OK(test, sock_create_kern(r->net, AF_INET, SOCK_STREAM,
					 IPPROTO_TCP, &r->lsock));
	sock_set_reuseaddr(r->lsock->sk);
	KUNIT_ASSERT_EQ(test, kernel_bind(r->lsock, (struct sockaddr *)&sin,
					  sizeof(sin)), 0);
	KUNIT_ASSERT_EQ(test, kernel_listen(r->lsock, 1), 0);
	/*
	 * rping -c retries until this listener is up. At most 45 s: insmod
	 * waits for the case uninterruptibly, and a wait beyond the hung
	 * task limit (60 s) is a splat.
	 */
	r->lsock->sk->sk_rcvtimeo = msecs_to_jiffies(45 * 1000);
	KUNIT_ASSERT_EQ(test, kernel_accept(r->lsock, &r->sock, 0), 0);
	ASSERT_OK(test, dat_iw_ssp_create(r->ia, r->sock, r->ep, r->cr, NULL, 0,
					  &r->ssp));
	post_recv(test, r);
	expect_ev(test, r->cr, DAT_CONNECTION_REQUEST_EVENT, &ev);
	cr = ev.event_data.cr_arrival_event_data.cr_handle;
	r->sock = NULL;		/* the CR's now */
	ASSERT_OK(test, dat_cr_accept(cr, r->ep, 0, NULL));
	expect_ev(test, r->conn, DAT_CONNECTION_EVENT_ESTABLISHED, &ev);
	server_rounds(test, r);
	/* rping -c disconnects when it is done. */
	expect_ev(test, r->conn, DAT_CONNECTION_EVENT_DISCONNECTED, &ev);
	ASSERT_OK(test, dat_iw_ssp_free(r->ssp));
}

static struct kunit_case rping_cases[] = {
	/* First, while rping -c is retrying: its attempts back off. */
	KUNIT_CASE(interop_ssp_rping_siw),
	KUNIT_CASE(interop_socket_connect_rping_siw),
	{}
};

static struct kunit_suite kdapl_rping_suite = {
	.name = "kdapl_rping",
	.init = rp_init,
	.exit = rp_exit,
	.test_cases = rping_cases,
};

kunit_test_suites(&kdapl_rping_suite);

MODULE_DESCRIPTION("KUnit: kDAPL socket extensions against rping on siw");
MODULE_LICENSE("GPL");
