// SPDX-License-Identifier: GPL-2.0
/*
 * kdapl_sockdemo: a streaming-mode TCP exchange becomes an RDMA
 * connection, for `make demo` (Documentation/socket_transfer.rst).
 *
 * On load: side A (IA ia_a, root namespace) opens a kernel TCP connection
 * to side B (IA ia_b; B's socket is created in the namespace of netdev
 * if_b) and the two talk in streaming mode: A asks "RDMA?", B answers
 * "RDMA ok"; B then creates a Socket Service Point on its socket, which
 * sends B's final streaming message "go" once it listens for the MPA
 * Request. The module stops there, so debugfs shows the SSP holding the
 * socket. Writing 1 to the parameter "go" (/sys/module/kdapl_sockdemo/
 * parameters/go) makes A read the final message, dat_iw_socket_connect()
 * over its socket, B accept and greet A with a SEND, and A check a 64 KiB
 * RDMA Write and Read over the converted connection; debugfs then shows the two
 * connected EPs in socket mode. Unloading disconnects gracefully, which
 * releases both sockets to the OS.
 *
 * Uses only the public DAT API (and the kernel socket API).
 */

#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/in.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include <dat2/kdat.h>
#include <dat2/dat_iw_extensions.h>

static char *ia_a = "kw1";
module_param(ia_a, charp, 0444);
MODULE_PARM_DESC(ia_a, "IA of the active side (root namespace)");
static char *ia_b = "kw2";
module_param(ia_b, charp, 0444);
MODULE_PARM_DESC(ia_b, "IA of the passive side");
static char *if_b = "veth5";
module_param(if_b, charp, 0444);
MODULE_PARM_DESC(if_b, "netdev of the passive side (its namespace)");
static char *addr_b = "203.0.113.2";
module_param(addr_b, charp, 0444);
MODULE_PARM_DESC(addr_b, "IPv4 address of the passive side");
static ushort port = 7960;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "TCP port of the passive side");

#define BUF_LEN		65536
#define WAIT_MS		10000

struct side {
	DAT_IA_HANDLE ia;
	DAT_EVD_HANDLE async;
	DAT_PZ_HANDLE pz;
	DAT_EVD_HANDLE dto, conn, cr;
	DAT_EP_HANDLE ep;
	u8 *buf;
	DAT_LMR_HANDLE lmr;
	DAT_LMR_CONTEXT lctx;
	DAT_RMR_CONTEXT rctx;
	DAT_VADDR addr;
	struct socket *sock;	/* until it goes to kdapl */
};

static struct side a, b;
static DAT_IW_SSP_HANDLE ssp;
static DEFINE_MUTEX(demo_lock);	/* the "go" write against unload */
static bool converted;

static DAT_LMR_TRIPLET trip(struct side *s, size_t off, size_t len)
{
	DAT_LMR_TRIPLET t = {
		.lmr_context = s->lctx,
		.virtual_address = s->addr + off,
		.segment_length = len,
	};
	return t;
}

static int expect(DAT_EVD_HANDLE evd, DAT_EVENT_NUMBER num, DAT_EVENT *ev)
{
	DAT_EVENT dummy;
	DAT_RETURN ret;
	int ms;

	if (!ev)
		ev = &dummy;
	for (ms = 0; ms < WAIT_MS; ms += 2) {
		ret = dat_evd_dequeue(evd, ev);
		if (ret != DAT_ERROR(DAT_QUEUE_EMPTY, DAT_NO_SUBTYPE))
			break;
		usleep_range(2000, 3000);
	}
	if (ret != DAT_SUCCESS || ev->event_number != num) {
		pr_err("kdapl_sockdemo: event %#x (%#x), want %#x\n",
		       ret == DAT_SUCCESS ? ev->event_number : 0, ret, num);
		return -EPROTO;
	}
	if (num == DAT_DTO_COMPLETION_EVENT &&
	    ev->event_data.dto_completion_event_data.status != DAT_DTO_SUCCESS)
		return -EIO;
	return 0;
}

static int side_open(struct side *s, char *name)
{
	DAT_REGION_DESCRIPTION r;
	DAT_VLEN len;

	s->buf = kzalloc(BUF_LEN, GFP_KERNEL);
	if (!s->buf)
		return -ENOMEM;
	s->async = DAT_HANDLE_NULL;
	r.for_va = s->buf;
	if (dat_ia_open(name, 16, &s->async, &s->ia) != DAT_SUCCESS ||
	    dat_pz_create(s->ia, &s->pz) != DAT_SUCCESS ||
	    dat_evd_kcreate(s->ia, 16, DAT_UPCALL_DISABLE, NULL,
			    DAT_EVD_DTO_FLAG, &s->dto) != DAT_SUCCESS ||
	    dat_evd_kcreate(s->ia, 8, DAT_UPCALL_DISABLE, NULL,
			    DAT_EVD_CONNECTION_FLAG, &s->conn) != DAT_SUCCESS ||
	    dat_evd_kcreate(s->ia, 8, DAT_UPCALL_DISABLE, NULL,
			    DAT_EVD_CR_FLAG, &s->cr) != DAT_SUCCESS ||
	    dat_ep_create(s->ia, s->pz, s->dto, s->dto, s->conn, NULL,
			  &s->ep) != DAT_SUCCESS ||
	    dat_lmr_kcreate(s->ia, DAT_MEM_TYPE_VIRTUAL, r, BUF_LEN, s->pz,
			    DAT_MEM_PRIV_ALL_FLAG, DAT_VA_TYPE_VA,
			    DAT_MEM_OPTIMIZE_DONT_CARE, &s->lmr, &s->lctx,
			    &s->rctx, &len, &s->addr) != DAT_SUCCESS) {
		pr_err("kdapl_sockdemo: setting up %s failed\n", name);
		return -EIO;
	}
	return 0;
}

static void side_close(struct side *s)
{
	if (s->ia)
		dat_ia_close(s->ia, DAT_CLOSE_ABRUPT_FLAG);
	if (s->sock)
		sock_release(s->sock);
	kfree(s->buf);
	memset(s, 0, sizeof(*s));
}

static struct net *find_net(const char *ifname)
{
	struct net *net, *found = NULL;

	rtnl_lock();
	for_each_net(net) {
		if (__dev_get_by_name(net, ifname)) {
			found = get_net(net);
			break;
		}
	}
	rtnl_unlock();
	return found;
}

static int sk_send(struct socket *s, const char *msg)
{
	struct kvec v = { .iov_base = (void *)msg, .iov_len = strlen(msg) };
	struct msghdr m = { .msg_flags = MSG_NOSIGNAL };

	return kernel_sendmsg(s, &m, &v, 1, v.iov_len) == v.iov_len ? 0 : -EIO;
}

static int sk_expect(struct socket *s, const char *msg)
{
	char buf[32] = {};
	struct kvec v = { .iov_base = buf, .iov_len = strlen(msg) };
	struct msghdr m = {};

	s->sk->sk_rcvtimeo = msecs_to_jiffies(WAIT_MS);
	if (kernel_recvmsg(s, &m, &v, 1, v.iov_len, MSG_WAITALL) !=
	    v.iov_len || memcmp(buf, msg, v.iov_len)) {
		pr_err("kdapl_sockdemo: expected \"%s\", got \"%s\"\n", msg,
		       buf);
		return -EPROTO;
	}
	pr_info("kdapl_sockdemo: streaming: received \"%s\"\n", buf);
	return 0;
}

/* The TCP connection and the streaming-mode exchange. */
static int demo_streaming(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct socket *ls = NULL;
	struct net *net;
	int err;

	net = find_net(if_b);
	if (!net)
		return -ENODEV;
	sin.sin_addr.s_addr = in_aton(addr_b);
	sin.sin_port = htons(port);
	err = sock_create_kern(net, AF_INET, SOCK_STREAM, IPPROTO_TCP, &ls);
	put_net(net);
	if (err)
		return err;
	sock_set_reuseaddr(ls->sk);
	err = kernel_bind(ls, (struct sockaddr *)&sin, sizeof(sin));
	err = err ?: kernel_listen(ls, 1);
	err = err ?: sock_create_kern(&init_net, AF_INET, SOCK_STREAM,
				      IPPROTO_TCP, &a.sock);
	err = err ?: kernel_connect(a.sock, (struct sockaddr *)&sin,
				    sizeof(sin), 0);
	err = err ?: kernel_accept(ls, &b.sock, 0);
	sock_release(ls);
	if (err)
		return err;
	pr_info("kdapl_sockdemo: TCP connection %s -> %s:%u up\n", ia_a,
		addr_b, port);
	err = sk_send(a.sock, "RDMA?");
	err = err ?: sk_expect(b.sock, "RDMA?");
	err = err ?: sk_send(b.sock, "RDMA ok");
	err = err ?: sk_expect(a.sock, "RDMA ok");
	if (err)
		return err;
	/* B's last streaming message goes out once the SSP listens. */
	if (dat_iw_ssp_create(b.ia, b.sock, b.ep, b.cr, "go", 2, &ssp) !=
	    DAT_SUCCESS)
		return -EIO;
	pr_info("kdapl_sockdemo: SSP created on B's socket; write 1 to /sys/module/kdapl_sockdemo/parameters/go\n");
	return 0;
}

/* The transition and RDMA traffic over the converted connection. */
static int demo_convert(void)
{
	DAT_DTO_COOKIE ck = { .as_64 = 0 };
	DAT_RMR_TRIPLET r;
	DAT_LMR_TRIPLET t;
	DAT_EVENT ev;
	unsigned int j;
	int err;

	err = sk_expect(a.sock, "go");
	if (err)
		return err;
	t = trip(&a, 0, 64);
	if (dat_ep_post_recv(a.ep, 1, &t, ck, 0) != DAT_SUCCESS ||
	    dat_iw_socket_connect(a.ep, a.sock, 5000000, 4, "kdpl") !=
	    DAT_SUCCESS)
		return -EIO;
	a.sock = NULL;
	err = expect(b.cr, DAT_CONNECTION_REQUEST_EVENT, &ev);
	if (err)
		return err;
	b.sock = NULL;
	if (dat_cr_accept(ev.event_data.cr_arrival_event_data.cr_handle, b.ep,
			  0, NULL) != DAT_SUCCESS)
		return -EIO;
	err = expect(a.conn, DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	err = err ?: expect(b.conn, DAT_CONNECTION_EVENT_ESTABLISHED, NULL);
	if (err)
		return err;
	pr_info("kdapl_sockdemo: the TCP connection is an RDMA connection now\n");

	/*
	 * B greets A with a SEND, as a ULP would announce its buffer: B's
	 * LMR is registered for remote access on B's QP before that send
	 * goes out, so its rkey is valid for A's RDMA after it.
	 */
	strscpy((char *)b.buf, "hello over RDMA", 64);
	t = trip(&b, 0, 16);
	if (dat_ep_post_send(b.ep, 1, &t, ck, 0) != DAT_SUCCESS)
		return -EIO;
	err = expect(b.dto, DAT_DTO_COMPLETION_EVENT, NULL);
	err = err ?: expect(a.dto, DAT_DTO_COMPLETION_EVENT, NULL);
	if (err || strcmp((char *)a.buf, "hello over RDMA"))
		return err ?: -EPROTO;
	for (j = 0; j < BUF_LEN; j++)
		a.buf[j] = (u8)(j * 7);
	r.rmr_context = b.rctx;
	r.virtual_address = b.addr;
	r.segment_length = BUF_LEN;
	t = trip(&a, 0, BUF_LEN);
	if (dat_ep_post_rdma_write(a.ep, 1, &t, ck, &r, 0) != DAT_SUCCESS)
		return -EIO;
	err = expect(a.dto, DAT_DTO_COMPLETION_EVENT, NULL);
	memset(a.buf, 0, BUF_LEN);
	if (!err && dat_ep_post_rdma_read(a.ep, 1, &t, ck, &r, 0) !=
	    DAT_SUCCESS)
		err = -EIO;
	err = err ?: expect(a.dto, DAT_DTO_COMPLETION_EVENT, NULL);
	if (err)
		return err;
	for (j = 0; j < BUF_LEN; j++)
		if (a.buf[j] != (u8)(j * 7) || b.buf[j] != (u8)(j * 7))
			return -EPROTO;
	pr_info("kdapl_sockdemo: SEND, RDMA Write and Read of %u bytes over the converted connection: ok\n",
		BUF_LEN);
	return 0;
}

static int go_set(const char *val, const struct kernel_param *kp)
{
	int err;

	if (!sysfs_streq(val, "1"))
		return -EINVAL;
	mutex_lock(&demo_lock);
	err = converted ? -EALREADY : demo_convert();
	if (!err)
		converted = true;
	mutex_unlock(&demo_lock);
	if (err)
		pr_err("kdapl_sockdemo: transition failed: %d\n", err);
	return err;
}

static int go_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", converted);
}

static const struct kernel_param_ops go_ops = {
	.set = go_set,
	.get = go_get,
};
module_param_cb(go, &go_ops, NULL, 0644);
MODULE_PARM_DESC(go, "write 1: turn the TCP connection into RDMA");

static int __init sockdemo_init(void)
{
	int err;

	err = side_open(&a, ia_a);
	err = err ?: side_open(&b, ia_b);
	err = err ?: demo_streaming();
	if (err) {
		pr_err("kdapl_sockdemo: failed: %d\n", err);
		if (ssp)
			dat_iw_ssp_free(ssp);
		side_close(&a);
		side_close(&b);
	}
	return err;
}

static void __exit sockdemo_exit(void)
{
	mutex_lock(&demo_lock);
	if (converted &&
	    dat_ep_disconnect(a.ep, DAT_CLOSE_GRACEFUL_FLAG) == DAT_SUCCESS &&
	    !expect(a.conn, DAT_CONNECTION_EVENT_DISCONNECTED, NULL))
		pr_info("kdapl_sockdemo: disconnected gracefully\n");
	mutex_unlock(&demo_lock);
	if (ssp)
		dat_iw_ssp_free(ssp);
	side_close(&a);
	side_close(&b);
}

module_init(sockdemo_init);
module_exit(sockdemo_exit);

MODULE_DESCRIPTION("kdapl demo: a streaming TCP exchange becomes an RDMA connection");
MODULE_LICENSE("GPL");
