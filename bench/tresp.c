// SPDX-License-Identifier: GPL-2.0
/*
 * kdapl_bench.ko: the TCP responder, resp.c's twin for the kernel TCP
 * baseline: the passive end of the TCP tests wherever their active end
 * runs (this guest, or the other one of the two-guest topology).
 *
 * "respond tcp port=<n>" listens on <n> in the caller's namespace; an
 * acceptor kthread gives each connection a kthread of its own, which
 * reads the test's header (struct bench_tcp_hdr) and then either sinks
 * messages of the header's size, answering with a run's byte count after
 * the run's last (marked) message, or echoes messages of the header's
 * size; until the peer closes. Blocking
 * reads, as sockperf's server does; the active end (tcp.c) is driven by
 * data_ready, as kdapl's upcalls are.
 *
 * Lifetimes: the responder lives from "respond tcp" to "unrespond" (under
 * bench_mutex) and holds its namespace. Every kthread, once its work is
 * done, waits for kthread_stop(), so that none runs module code after
 * the stop returned: the acceptor reaps the connections that ended when
 * it takes a new one; the stop shuts the listening socket (the
 * acceptor's accept returns) and every connection's socket down (their
 * reads return), then stops and frees them all.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <linux/vmalloc.h>
#include <linux/sched.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "bench.h"

/**
 * struct bench_tconn - one connection of the TCP responder
 * @node: on bench_tresp.conns
 * @sock: the accepted socket
 * @buf: BENCH_TCP_CHUNK bytes
 * @task: its kthread
 * @done: it has served; it waits for kthread_stop()
 */
struct bench_tconn {
	struct list_head node;
	struct socket *sock;
	u8 *buf;
	struct task_struct *task;
	bool done;
};

/**
 * struct bench_tresp - the TCP responder
 * @lsock: the listening socket; NULL when there is none
 * @net: its namespace, held
 * @acceptor: the accepting kthread
 * @lock: protects @conns and the connections' @done
 * @conns: the connections not yet reaped
 * @stopping: the stop has begun (the acceptor's failing accept is no
 *	news then)
 * @served: connections taken
 */
static struct bench_tresp {
	struct socket *lsock;
	struct net *net;
	struct task_struct *acceptor;
	struct mutex lock;	/* see above */
	struct list_head conns;
	bool stopping;
	u32 served;
} tresp = {
	.lock = __MUTEX_INITIALIZER(tresp.lock),
	.conns = LIST_HEAD_INIT(tresp.conns),
};

/* The end of a kthread's function: until kthread_stop(). */
static void tresp_park(void)
{
	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
}

/* Stop a connection's kthread (it returns once its socket is done). */
static void tconn_end(struct bench_tconn *c)
{
	kthread_stop(c->task);
	sock_release(c->sock);
	vfree(c->buf);
	kfree(c);
}

/*
 * Stream: sink messages of the size, answering each run's byte count
 * after its last message (first byte 1); or echo messages of the size.
 * Either until the peer closes.
 */
static void tconn_serve(struct bench_tconn *c)
{
	struct bench_tcp_hdr h;
	struct msghdr m = {};
	struct kvec v;
	u32 size, off = 0;
	bool last = false;
	u64 total = 0;
	__le64 t;
	int n;

	if (bench_tcp_recv_all(c->sock, &h, sizeof(h)) != sizeof(h))
		return;		/* a connect-rate probe: closed at once */
	size = le32_to_cpu(h.size);
	switch (le32_to_cpu(h.mode)) {
	case BENCH_TCP_STREAM:
		if (!size || size > BENCH_MAX_SIZE)
			break;
		for (;;) {
			/* never past the message: its end is looked for */
			v.iov_base = c->buf;
			v.iov_len = min_t(u32, size - off, BENCH_TCP_CHUNK);
			n = kernel_recvmsg(c->sock, &m, &v, 1, v.iov_len, 0);
			if (n <= 0)
				break;
			if (!off)
				last = c->buf[0];
			off += n;
			total += n;
			if (off < size)
				continue;
			off = 0;
			if (!last)
				continue;
			t = cpu_to_le64(total);
			total = 0;
			if (bench_tcp_send_all(c->sock, &t, sizeof(t)))
				break;
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
	c->done = true;
	mutex_unlock(&tresp.lock);
	tresp_park();
	return 0;
}

/* The connections that ended: stopped and freed. The acceptor's. */
static void tresp_reap(void)
{
	struct bench_tconn *c, *tmp;
	LIST_HEAD(done);

	mutex_lock(&tresp.lock);
	list_for_each_entry_safe(c, tmp, &tresp.conns, node)
		if (c->done)
			list_move_tail(&c->node, &done);
	mutex_unlock(&tresp.lock);
	list_for_each_entry_safe(c, tmp, &done, node)
		tconn_end(c);
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
	t = kthread_create(tconn_fn, c, "kdapl_bench_tresp");
	if (IS_ERR(t))
		goto drop;
	c->task = t;
	mutex_lock(&tresp.lock);
	list_add_tail(&c->node, &tresp.conns);
	tresp.served++;
	mutex_unlock(&tresp.lock);
	wake_up_process(t);
	return;
drop:
	if (c)
		vfree(c->buf);
	kfree(c);
	sock_release(s);
}

static int tresp_accept_fn(void *data)
{
	struct socket *s;
	int err;

	while (!(err = kernel_accept(tresp.lsock, &s, 0))) {
		tresp_reap();
		tresp_take(s);
	}
	if (!READ_ONCE(tresp.stopping))
		pr_warn("TCP responder: accept failed (%d), no more connections\n",
			err);
	tresp_park();
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
	struct task_struct *t;
	struct socket *s;
	int err;

	if (tresp.lsock)
		return -EEXIST;
	err = bench_tcp_listen(port, &s);
	if (err)
		return err;
	tresp.lsock = s;
	tresp.stopping = false;
	tresp.served = 0;
	t = kthread_run(tresp_accept_fn, NULL, "kdapl_bench_tacc");
	if (IS_ERR(t)) {
		tresp.lsock = NULL;
		sock_release(s);
		return PTR_ERR(t);
	}
	tresp.acceptor = t;
	/* the sockets of a kernel listener do not hold their namespace */
	tresp.net = get_net(current->nsproxy->net_ns);
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
	struct bench_tconn *c, *tmp;
	LIST_HEAD(all);

	if (!tresp.lsock)
		return;
	WRITE_ONCE(tresp.stopping, true);
	kernel_sock_shutdown(tresp.lsock, SHUT_RDWR);
	kthread_stop(tresp.acceptor);	/* no connection is added now */
	mutex_lock(&tresp.lock);
	list_splice_init(&tresp.conns, &all);
	mutex_unlock(&tresp.lock);
	list_for_each_entry(c, &all, node)
		kernel_sock_shutdown(c->sock, SHUT_RDWR);
	list_for_each_entry_safe(c, tmp, &all, node)
		tconn_end(c);
	sock_release(tresp.lsock);
	tresp.lsock = NULL;
	put_net(tresp.net);
	tresp.net = NULL;
	bench_emit("tcp", "served", tresp.served * 1000ULL);
}
