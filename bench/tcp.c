// SPDX-License-Identifier: GPL-2.0
/*
 * kdapl_bench.ko: the kernel TCP baseline over the same path.
 *
 * The active end of the TCP tests; the passive end is the TCP responder
 * ("respond tcp", tresp.c), in this guest or the other one. The stream
 * and ping-pong commands connect once from the command's task (its
 * namespace), as the RDMA tests do, send the test's header and then run
 * the warm-up and every measured run over that connection:
 *   stream: writes messages of the size (blocking sendmsg) until the
 *           deadline, the last one marked, and times first byte to the
 *           responder's count of the run's bytes (every byte arrived)
 *   lat:    ping-pong, the active end event-driven as kdapl's upcalls
 *           are: data_ready queues a work that reads (MSG_DONTWAIT) and
 *           answers (tcp_lat())
 *   conn:   connect and close, the connect timed, a socket per round
 * Nagle is off on both ends.
 *
 * "serve tcp port=<n>", from a task in the peer namespace, makes a
 * listening socket there for the DAT socket_connect setup test (dat.c),
 * which accepts on it itself, and remembers that namespace.
 *
 * Lifetimes: bench_lsock and bench_net live from "serve tcp" to
 * "unserve" (under bench_mutex); everything else for one command.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/inet.h>
#include <linux/in.h>
#include <linux/kthread.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <linux/vmalloc.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "bench.h"

/* Under bench_mutex: the listening socket and its namespace. */
static struct socket *bench_lsock;
static struct net *bench_net;

/**
 * bench_peer_net() - the namespace "serve tcp" was issued from
 *
 * Return: that namespace (a reference held until "unserve"), or NULL.
 */
struct net *bench_peer_net(void)
{
	return bench_net;
}

/**
 * bench_tcp_tune() - Nagle off, bounded blocking
 * @s: a connected socket
 */
void bench_tcp_tune(struct socket *s)
{
	tcp_sock_set_nodelay(s->sk);
	lock_sock(s->sk);
	s->sk->sk_rcvtimeo = msecs_to_jiffies(BENCH_WAIT_MS);
	s->sk->sk_sndtimeo = msecs_to_jiffies(BENCH_WAIT_MS);
	release_sock(s->sk);
}

/**
 * bench_tcp_listen() - a listening socket on @port, any address
 * @port: TCP port
 * @out: the socket
 *
 * In the caller's network namespace.
 * Return: 0 or a negative errno.
 */
int bench_tcp_listen(u16 port, struct socket **out)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_ANY),
	};
	struct socket *s;
	int err;

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
	*out = s;
	return 0;
}

/**
 * bench_tcp_serve() - listen on @port in the caller's namespace
 * @port: TCP port
 *
 * Context: process context, bench_mutex held.
 * Return: 0 or a negative errno.
 */
int bench_tcp_serve(u16 port)
{
	struct net *net = current->nsproxy->net_ns;
	struct socket *s;
	int err;

	if (bench_lsock)
		return -EEXIST;
	err = bench_tcp_listen(port, &s);
	if (err)
		return err;
	bench_lsock = s;
	bench_net = get_net(net);
	return 0;
}

/**
 * bench_tcp_unserve() - close the listening socket
 *
 * Context: process context, bench_mutex held.
 */
void bench_tcp_unserve(void)
{
	if (bench_lsock)
		sock_release(bench_lsock);
	bench_lsock = NULL;
	if (bench_net)
		put_net(bench_net);
	bench_net = NULL;
}

/**
 * bench_tcp_send_all() - write all of @buf
 * @s: the socket
 * @buf: the bytes
 * @len: how many
 *
 * Return: 0 or a negative errno (-EPIPE: nothing written).
 */
int bench_tcp_send_all(struct socket *s, void *buf, size_t len)
{
	struct kvec v;
	struct msghdr m = { .msg_flags = MSG_NOSIGNAL };
	int n;

	while (len) {
		v.iov_base = buf;
		v.iov_len = len;
		n = kernel_sendmsg(s, &m, &v, 1, len);
		if (n <= 0)
			return n ?: -EPIPE;
		buf += n;
		len -= n;
	}
	return 0;
}

/**
 * bench_tcp_recv_all() - read exactly @len bytes
 * @s: the socket
 * @buf: where to
 * @len: how many
 *
 * Return: @len, 0 at once on a clean end of stream, or a negative errno.
 */
int bench_tcp_recv_all(struct socket *s, void *buf, size_t len)
{
	struct kvec v;
	struct msghdr m = {};
	size_t got = 0;
	int n;

	while (got < len) {
		v.iov_base = buf + got;
		v.iov_len = len - got;
		n = kernel_recvmsg(s, &m, &v, 1, len - got, MSG_WAITALL);
		if (n < 0)
			return n;
		if (!n)
			return got ? -EPIPE : 0;
		got += n;
	}
	return len;
}

/*
 * Connect to the responder at the command's address and port and tell it
 * what to do. On success *@sa is the connected socket.
 */
static int tcp_open(const struct bench_cmd *cmd, u32 mode,
		    struct socket **sa)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(cmd->port),
	};
	struct bench_tcp_hdr h = {
		.mode = cpu_to_le32(mode),
		.size = cpu_to_le32(cmd->size),
	};
	int err;

	if (!in4_pton(cmd->addr_b, -1, (u8 *)&sin.sin_addr.s_addr, -1, NULL))
		return -EINVAL;
	err = sock_create_kern(current->nsproxy->net_ns, AF_INET, SOCK_STREAM,
			       IPPROTO_TCP, sa);
	if (err)
		return err;
	err = kernel_connect(*sa, (struct sockaddr *)&sin, sizeof(sin), 0);
	if (!err)
		bench_tcp_tune(*sa);
	err = err ?: bench_tcp_send_all(*sa, &h, sizeof(h));
	if (err) {
		sock_release(*sa);
		*sa = NULL;
	}
	return err;
}

/*
 * One connection for the command's runs, as the RDMA tests keep theirs:
 * each run writes messages of the size until the deadline, the last one
 * marked (its first byte 1), and is timed from the first byte to the
 * responder's count of the run's bytes (every byte arrived).
 */
static int tcp_stream(const struct bench_cmd *cmd, u8 *buf)
{
	struct bench_cost cost;
	struct socket *sa;
	ktime_t start, deadline;
	u64 sent, ns;
	__le64 acked;
	bool last;
	u32 rep;
	int err;

	err = tcp_open(cmd, BENCH_TCP_STREAM, &sa);
	if (err)
		return err;
	/* rep 0 is the warm-up, not reported */
	for (rep = 0; !err && rep <= cmd->reps; rep++) {
		bench_cost_start(&cost);
		start = ktime_get();
		deadline = ktime_add_ms(start, rep ? cmd->ms :
					bench_warm_ms(cmd));
		sent = 0;
		do {
			last = !ktime_before(ktime_get(), deadline);
			buf[0] = last;
			err = bench_tcp_send_all(sa, buf, cmd->size);
			sent += cmd->size;
		} while (!err && !last);
		if (!err && bench_tcp_recv_all(sa, &acked, sizeof(acked)) !=
		    sizeof(acked))
			err = -EIO;
		if (!err && le64_to_cpu(acked) != sent)
			err = -EPROTO;
		ns = ktime_to_ns(ktime_sub(ktime_get(), start));
		if (err || !rep)
			continue;
		bench_cost_emit(cmd->tag, &cost, div_u64(sent, cmd->size),
				sent);
		bench_emit(cmd->tag, "", div64_u64(sent * 1000000ULL, ns ?: 1));
	}
	if (!err)
		kernel_sock_shutdown(sa, SHUT_WR);
	sock_release(sa);
	return err;
}

/**
 * struct bench_tpp - one end of the TCP ping-pong, driven by data_ready
 * @sock: its socket (the active end's or the accepted one)
 * @work: reads what arrived and answers; queued on the CPU of data_ready
 * @data_ready: the socket's callback before ours, restored at the end
 * @active: the timing end (else it echoes)
 * @buf: @size bytes being received
 * @size: message size
 * @got: bytes of the current message received
 * @rtt: samples of the active end, @rounds of them
 * @rounds: round trips per run
 * @round: round trips done
 * @t0: start of the current round trip
 * @done: completed by the active end after the last round, or on error
 * @err: first error of either end
 *
 * During a run only @work touches the fields below @data_ready; between
 * runs (@work idle: it sends nothing after the last round) the command
 * resets @round, @rounds and @t0 before the send that starts the next
 * run, and cancels the work at the end.
 */
struct bench_tpp {
	struct socket *sock;
	struct work_struct work;
	void (*data_ready)(struct sock *sk);
	bool active;
	u8 *buf;
	u32 size;
	u32 got;
	u64 *rtt;
	u32 rounds;
	u32 round;
	ktime_t t0;
	struct completion *done;
	int *err;
};

static void tpp_fail(struct bench_tpp *e, int err)
{
	if (!*e->err) {
		*e->err = err ?: -EPIPE;
		complete(e->done);
	}
}

/* As kiwarp does: the socket's data_ready queues the reading work. */
static void tpp_data_ready(struct sock *sk)
{
	struct bench_tpp *e;

	rcu_read_lock();
	e = rcu_dereference_sk_user_data(sk);
	if (e)
		queue_work(system_highpri_wq, &e->work);
	rcu_read_unlock();
}

static void tpp_work(struct work_struct *work)
{
	struct bench_tpp *e = container_of(work, struct bench_tpp, work);
	struct msghdr m = {};
	struct kvec v;
	int n;

	while (!*e->err) {
		v.iov_base = e->buf + e->got;
		v.iov_len = e->size - e->got;
		n = kernel_recvmsg(e->sock, &m, &v, 1, v.iov_len,
				   MSG_DONTWAIT);
		if (n == -EAGAIN)
			return;
		if (n <= 0) {
			tpp_fail(e, n);
			return;
		}
		e->got += n;
		if (e->got < e->size)
			continue;
		e->got = 0;
		if (e->active) {
			ktime_t now = ktime_get();

			e->rtt[e->round++] = ktime_to_ns(ktime_sub(now, e->t0));
			if (e->round >= e->rounds) {
				complete(e->done);
				return;
			}
			e->t0 = ktime_get();
		}
		n = bench_tcp_send_all(e->sock, e->buf, e->size);
		if (n) {
			tpp_fail(e, n);
			return;
		}
	}
}

static void tpp_attach(struct bench_tpp *e)
{
	struct sock *sk = e->sock->sk;

	INIT_WORK(&e->work, tpp_work);
	write_lock_bh(&sk->sk_callback_lock);
	e->data_ready = sk->sk_data_ready;
	rcu_assign_sk_user_data(sk, e);
	sk->sk_data_ready = tpp_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
}

static void tpp_detach(struct bench_tpp *e)
{
	struct sock *sk = e->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_data_ready = e->data_ready;
	rcu_assign_sk_user_data(sk, NULL);
	write_unlock_bh(&sk->sk_callback_lock);
	synchronize_rcu();	/* no tpp_data_ready() still queuing */
	cancel_work_sync(&e->work);
}

/*
 * Ping-pong over one connection to the responder (which echoes) for all
 * the command's runs, the active end event-driven as kdapl's is: the
 * socket's data_ready queues a work (on the CPU the data arrived on, like
 * kiwarp's receive work) that reads with MSG_DONTWAIT, times the round
 * trip and sends the next. A run ends with the work idle (it sends
 * nothing after the last round), so the next run starts from here.
 */
static int tcp_lat(const struct bench_cmd *cmd, u64 *rtt)
{
	DECLARE_COMPLETION_ONSTACK(done);
	struct bench_cost cost;
	struct bench_tpp *a;
	int err = 0, run_err = 0;
	u32 rep;

	if (cmd->size > BENCH_TCP_CHUNK)
		return -EINVAL;
	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (a)
		a->buf = kzalloc(cmd->size, GFP_KERNEL);
	if (!a || !a->buf) {
		err = -ENOMEM;
		goto out_free;
	}
	err = tcp_open(cmd, BENCH_TCP_ECHO, &a->sock);
	if (err) {
		a->sock = NULL;
		goto out_free;
	}
	a->active = true;
	a->rtt = rtt;
	a->size = cmd->size;
	a->done = &done;
	a->err = &run_err;
	tpp_attach(a);
	/* rep 0 is the warm-up, not reported */
	for (rep = 0; !err && rep <= cmd->reps; rep++) {
		err = run_err;	/* the responder failed between runs */
		if (err)
			break;
		reinit_completion(&done);
		a->round = 0;
		a->rounds = rep ? cmd->rounds : bench_warm_rounds(cmd);
		bench_cost_start(&cost);
		a->t0 = ktime_get();
		err = bench_tcp_send_all(a->sock, a->buf, a->size);
		if (!err &&
		    !wait_for_completion_timeout(&done, msecs_to_jiffies(60000)))
			err = -ETIMEDOUT;
		err = err ?: run_err;
		if (err || !rep)
			continue;
		bench_cost_emit(cmd->tag, &cost, a->rounds, 0);
		bench_emit_lat(cmd->tag, rtt, a->rounds);
	}
	tpp_detach(a);
out_free:
	if (a && a->sock)
		sock_release(a->sock);
	if (a)
		kfree(a->buf);
	kfree(a);
	return err;
}

/* connect and close to the responder; the connect timed, the socket not. */
static int tcp_conn(const struct bench_cmd *cmd, bool report)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(cmd->port),
	};
	struct socket *sa;
	u64 ns = 0;
	ktime_t t;
	u32 i;
	int err = 0;

	if (!in4_pton(cmd->addr_b, -1, (u8 *)&sin.sin_addr.s_addr, -1, NULL))
		return -EINVAL;
	for (i = 0; !err && i < cmd->rounds; i++) {
		err = sock_create_kern(current->nsproxy->net_ns, AF_INET,
				       SOCK_STREAM, IPPROTO_TCP, &sa);
		if (err)
			break;
		t = ktime_get();
		err = kernel_connect(sa, (struct sockaddr *)&sin, sizeof(sin),
				     0);
		ns += ktime_to_ns(ktime_sub(ktime_get(), t));
		sock_release(sa);
	}
	if (!err && report)
		bench_emit(cmd->tag, "", bench_rate_milli(cmd->rounds, ns));
	return err;
}

/**
 * bench_tcp_run() - the "tcp" command
 * @cmd: the parsed command
 *
 * Context: process context, bench_mutex held; sleeps for the run.
 * Return: 0 or a negative errno.
 */
int bench_tcp_run(const struct bench_cmd *cmd)
{
	u64 *rtt = NULL;
	u8 *buf;
	u32 rep;
	int err = 0;

	buf = kvzalloc(cmd->size, GFP_KERNEL);
	if (!strcmp(cmd->test, "lat"))
		rtt = kvcalloc(cmd->rounds, sizeof(*rtt), GFP_KERNEL);
	if (!buf || (!strcmp(cmd->test, "lat") && !rtt)) {
		err = -ENOMEM;
		goto out;
	}
	if (!strcmp(cmd->test, "stream"))
		err = tcp_stream(cmd, buf);
	else if (!strcmp(cmd->test, "lat"))
		err = tcp_lat(cmd, rtt);
	else if (!strcmp(cmd->test, "conn"))
		for (rep = 0; !err && rep <= cmd->reps; rep++)
			err = tcp_conn(cmd, rep);
	else
		err = -EINVAL;
out:
	kvfree(rtt);
	kvfree(buf);
	return err;
}
