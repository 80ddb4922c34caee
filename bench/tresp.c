// SPDX-License-Identifier: GPL-2.0
/*
 * kdapl_bench.ko: the TCP responder, resp.c's twin for the kernel TCP
 * baseline: the passive end of the TCP tests wherever their active end
 * runs (this guest, or the other one of the two-guest topology).
 *
 * "respond tcp port=<n>" listens on <n> in the caller's namespace; an
 * acceptor kthread gives each connection a kthread of its own, which
 * reads the test's header (struct bench_tcp_hdr) and then either sinks
 * the stream until the peer's FIN and answers with the byte count, or
 * echoes messages of the header's size until the peer closes. Blocking
 * reads, as sockperf's server does; the active end (tcp.c) is driven by
 * data_ready, as kdapl's upcalls are.
 *
 * Lifetimes: the responder lives from "respond tcp" to "unrespond" (under
 * bench_mutex). A connection's kthread frees its connection when it ends;
 * the stop shuts the listening socket (the acceptor's accept returns) and
 * every live connection's socket down (their reads return) and waits
 * until the acceptor and every connection thread are gone.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "bench.h"

/**
 * struct bench_tconn - one connection of the TCP responder
 * @node: on bench_tresp.conns
 * @sock: the accepted socket
 * @buf: BENCH_TCP_CHUNK bytes
 */
struct bench_tconn {
	struct list_head node;
	struct socket *sock;
	u8 *buf;
};

/**
 * struct bench_tresp - the TCP responder
 * @lsock: the listening socket; NULL when there is none
 * @lock: protects @conns and @stopping (a mutex: the stop shuts sockets
 *	down under it, which sleeps)
 * @conns: live connections
 * @stopping: no new connection is taken
 * @threads: the acceptor and the connection kthreads still running
 * @wq: woken when @threads drops
 * @served: connections taken
 */
static struct bench_tresp {
	struct socket *lsock;
	struct mutex lock;	/* see above */
	struct list_head conns;
	bool stopping;
	atomic_t threads;
	wait_queue_head_t wq;
	u32 served;
} tresp = {
	.lock = __MUTEX_INITIALIZER(tresp.lock),
	.conns = LIST_HEAD_INIT(tresp.conns),
	.wq = __WAIT_QUEUE_HEAD_INITIALIZER(tresp.wq),
};

static void tresp_thread_done(void)
{
	if (atomic_dec_and_test(&tresp.threads))
		wake_up(&tresp.wq);
}

/* Sink until FIN, then the count; or echo until the peer closes. */
static void tconn_serve(struct bench_tconn *c)
{
	struct bench_tcp_hdr h;
	struct msghdr m = {};
	struct kvec v;
	u64 total = 0;
	u32 size;
	int n;

	if (bench_tcp_recv_all(c->sock, &h, sizeof(h)) != sizeof(h))
		return;		/* a connect-rate probe: closed at once */
	size = le32_to_cpu(h.size);
	switch (le32_to_cpu(h.mode)) {
	case BENCH_TCP_STREAM:
		for (;;) {
			v.iov_base = c->buf;
			v.iov_len = BENCH_TCP_CHUNK;
			n = kernel_recvmsg(c->sock, &m, &v, 1, BENCH_TCP_CHUNK,
					   0);
			if (n <= 0)
				break;
			total += n;
		}
		if (!n) {
			__le64 t = cpu_to_le64(total);

			bench_tcp_send_all(c->sock, &t, sizeof(t));
		}
		break;
	case BENCH_TCP_ECHO:
		if (!size || size > BENCH_TCP_CHUNK)
			break;
		while (bench_tcp_recv_all(c->sock, c->buf, size) == size &&
		       !bench_tcp_send_all(c->sock, c->buf, size))
			;
		break;
	default:
		break;
	}
}

static int tconn_fn(void *data)
{
	struct bench_tconn *c = data;

	tconn_serve(c);
	mutex_lock(&tresp.lock);
	list_del(&c->node);
	mutex_unlock(&tresp.lock);
	sock_release(c->sock);
	vfree(c->buf);
	kfree(c);
	tresp_thread_done();
	return 0;
}

/* Take one accepted socket: its kthread, or close it. */
static void tresp_take(struct socket *s)
{
	struct bench_tconn *c = kzalloc(sizeof(*c), GFP_KERNEL);
	struct task_struct *t;

	if (c)
		c->buf = vmalloc(BENCH_TCP_CHUNK);
	if (!c || !c->buf)
		goto drop;
	c->sock = s;
	bench_tcp_tune(s);
	mutex_lock(&tresp.lock);
	if (tresp.stopping) {
		mutex_unlock(&tresp.lock);
		goto drop;
	}
	list_add_tail(&c->node, &tresp.conns);
	atomic_inc(&tresp.threads);
	tresp.served++;
	mutex_unlock(&tresp.lock);
	t = kthread_run(tconn_fn, c, "kdapl_bench_tresp");
	if (!IS_ERR(t))
		return;
	mutex_lock(&tresp.lock);
	list_del(&c->node);
	mutex_unlock(&tresp.lock);
	tresp_thread_done();
drop:
	if (c)
		vfree(c->buf);
	kfree(c);
	sock_release(s);
}

static int tresp_accept_fn(void *data)
{
	struct socket *s;

	while (!kernel_accept(tresp.lsock, &s, 0))
		tresp_take(s);
	tresp_thread_done();
	return 0;
}

/**
 * bench_tresp_start() - "respond tcp": listen on @port, serve by itself
 * @port: TCP port
 *
 * Context: process context, bench_mutex held; the caller's namespace.
 * Return: 0 or a negative errno.
 */
int bench_tresp_start(u16 port)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_ANY),
	};
	struct task_struct *t;
	struct socket *s;
	int err;

	if (tresp.lsock)
		return -EEXIST;
	err = sock_create_kern(current->nsproxy->net_ns, AF_INET, SOCK_STREAM,
			       IPPROTO_TCP, &s);
	if (err)
		return err;
	sock_set_reuseaddr(s->sk);
	err = kernel_bind(s, (struct sockaddr *)&sin, sizeof(sin));
	err = err ?: kernel_listen(s, 64);
	if (err) {
		sock_release(s);
		return err;
	}
	tresp.lsock = s;
	tresp.stopping = false;
	tresp.served = 0;
	atomic_set(&tresp.threads, 1);
	t = kthread_run(tresp_accept_fn, NULL, "kdapl_bench_tacc");
	if (IS_ERR(t)) {
		tresp.lsock = NULL;
		sock_release(s);
		return PTR_ERR(t);
	}
	return 0;
}

/**
 * bench_tresp_stop() - "unrespond": stop the TCP responder
 *
 * Emits "tcp.served <n>".
 * Context: process context, bench_mutex held.
 */
void bench_tresp_stop(void)
{
	struct bench_tconn *c;

	if (!tresp.lsock)
		return;
	mutex_lock(&tresp.lock);
	tresp.stopping = true;
	list_for_each_entry(c, &tresp.conns, node)
		kernel_sock_shutdown(c->sock, SHUT_RDWR);
	mutex_unlock(&tresp.lock);
	kernel_sock_shutdown(tresp.lsock, SHUT_RDWR);
	wait_event(tresp.wq, !atomic_read(&tresp.threads));
	sock_release(tresp.lsock);
	tresp.lsock = NULL;
	bench_emit("tcp", "served", tresp.served * 1000ULL);
}
