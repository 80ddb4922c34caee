/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kiwarp socket takeover: turning an existing, connected kernel TCP
 * socket into an iWARP (MPA/DDP/RDMAP) connection of a kiwarp QP.
 *
 * This is the interface between kiwarp.ko (which implements it) and its
 * one consumer, kdapl.ko (dat_iw_socket_connect, dat_iw_ssp_*). kdapl
 * does not link against kiwarp: it looks the table up with
 * symbol_get(kiwarp_sock_ops) and holds that module reference only while
 * it has a socket-mode object (an SSP, a pending socket connect, a
 * connection's kiwarp_sock_conn).
 *
 * Ownership of the socket (struct socket *, created by the consumer):
 *
 *   - connect()/listen() take it over: from then on kiwarp owns its
 *     callbacks (switched under sk_callback_lock) and nobody else may
 *     read, write or release it.
 *   - Until the connection is established or the passive side has read
 *     the MPA Request, the socket is only borrowed: a failure, a timeout
 *     decided by the consumer or release() gives it back exactly as it
 *     was (callbacks, timeouts, TCP options restored, no byte consumed
 *     from the receive queue that was not part of a complete MPA frame
 *     of this exchange), and the consumer may go on streaming on it.
 *     The event or call that gives it back says so (@sock_returned).
 *   - From the MPA Request on (passive) or once established (both), the
 *     socket belongs to kiwarp: the QP releases it (sock_release) when
 *     the connection is down; reject() closes it.
 *
 * Bytes the peer sends in RDMA mode right behind the MPA frames (its
 * first FPDUs, possibly already queued when the QP is bound) are parsed
 * by the QP's receive path, never lost.
 *
 * Events come through the handler given to connect()/listen(), in
 * process context (a kiwarp work, never from inside one of the calls
 * below), one at a time per connection. The
 * handler may sleep but must not call release() on the same connection
 * (release() waits for a running handler); it must copy @pdata if it
 * needs it after returning.
 */
#ifndef KIWARP_SOCK_H
#define KIWARP_SOCK_H

#include <linux/types.h>
#include <linux/net.h>
#include <rdma/ib_verbs.h>

#define KIWARP_SOCK_PDATA_MAX	512	/* MPA private data limit */

struct kiwarp_sock_conn;	/* opaque: one socket being moved to RDMA */

enum kiwarp_sock_event_type {
	/*
	 * Passive: a complete MPA Request arrived; @pdata/@pdata_len is its
	 * private data, @ird/@ord the RFC 6581 values the peer asked for
	 * (0 when absent). The socket now belongs to kiwarp. Answer with
	 * accept() or reject().
	 */
	KIWARP_SOCK_EV_REQUEST,
	/*
	 * Passive, before a request: the socket is not connected (already
	 * at listen() - reported right after listen() returns - or closed
	 * or reset since). @sock_returned is true: the socket is back with
	 * the consumer (who will usually release it). @status: the socket's
	 * error (-ECONNRESET, ...), -ECONNABORTED (the peer closed), or
	 * -EPROTO: what came is not an MPA Request kiwarp can serve (not an
	 * MPA Request at all, markers, an RTR type it cannot answer); that
	 * frame is left unread.
	 */
	KIWARP_SOCK_EV_SOCKET_DOWN,
	/*
	 * Either side: MPA exchange complete, the QP is in RTS and owns the
	 * socket. Active: @pdata is the peer's reply private data.
	 */
	KIWARP_SOCK_EV_ESTABLISHED,
	/*
	 * Active: the peer sent an MPA Reply with the Reject bit (its
	 * consumer refused): @pdata is the reject's private data,
	 * @sock_returned true. Passive: never.
	 */
	KIWARP_SOCK_EV_REJECTED,
	/*
	 * Active, before establishment: the exchange failed for another
	 * reason. @status: -ECONNRESET (TCP reset), -ETIMEDOUT (TCP gave
	 * up), -EHOSTUNREACH/-ENETUNREACH (ICMP), -ECONNABORTED (peer closed
	 * during the exchange), -EPROTO (not a valid MPA Reply: bad key,
	 * revision, markers, oversized private data), -EIO (local failure).
	 * @sock_returned is true: the socket is back with the consumer, its
	 * callbacks and options restored; if the stream is unusable (bytes
	 * of a bad Reply were consumed) kiwarp has shut the TCP connection
	 * down (kernel_sock_shutdown), but the struct socket is still the
	 * consumer's to release. An active-side socket is never released by
	 * kiwarp before ESTABLISHED (seed 000: ownership returns on failure).
	 * kiwarp validates a Reply before consuming it, so -EPROTO leaves
	 * the stream usable with the bad bytes still unread; only a local
	 * failure after the Reply was taken (-EIO: the QP left IDLE) shuts
	 * the connection down.
	 * Passive, after accept(): the Reply could not be sent; the QP is in
	 * ERROR, @sock_returned false.
	 */
	KIWARP_SOCK_EV_FAILED,
	/*
	 * Established: the peer closed its side first (TCP FIN, or an
	 * orderly RDMAP close); the QP goes CLOSING and then to
	 * KIWARP_SOCK_EV_CLOSED. Not sent when our side started the close
	 * (ib_modify_qp to SQD or ERROR).
	 */
	KIWARP_SOCK_EV_DISCONNECT,
	/*
	 * Established: the connection is down, the QP is in ERROR (its
	 * queues flushed) and the socket released. @status: 0 (orderly
	 * close, both FINs), -ECONNRESET (reset by the peer or by our
	 * abrupt close), -ETIMEDOUT (LLP timeout, or a graceful close whose
	 * FIN never came within the bound), -EPROTO (TERMINATE received or
	 * sent), -ENODEV (device removed). The last event of a connection.
	 */
	KIWARP_SOCK_EV_CLOSED,
};

struct kiwarp_sock_event {
	enum kiwarp_sock_event_type type;
	int status;
	const void *pdata;
	u16 pdata_len;
	bool sock_returned;
	/*
	 * REQUEST: what the peer asked for; ESTABLISHED: the connection's
	 * own (negotiated) IRD and ORD
	 */
	u32 ird;
	u32 ord;
};

typedef void (*kiwarp_sock_handler_t)(void *ctx,
				      const struct kiwarp_sock_event *ev);

/* Parameters of connect() and accept(). */
struct kiwarp_sock_param {
	const void *pdata;	/* sent in the MPA Request / Reply */
	/* <= KIWARP_SOCK_PDATA_MAX - 4: MPA v2's IRD/ORD block comes first */
	u16 pdata_len;
	u32 ird;		/* inbound RDMA Reads we accept */
	u32 ord;		/* outbound RDMA Reads we issue */
};

/**
 * struct kiwarp_sock_ops - the socket takeover entry points
 * @owner: kiwarp's module (symbol_get already holds a reference)
 * @version: KIWARP_SOCK_VERSION of the implementation
 * @supported: whether @dev is a kiwarp device (can take sockets over)
 * @check: can @sock be taken over by @dev: 0, -EPROTONOSUPPORT (not a
 *	TCP stream socket), -ENOTCONN (not connected), -ENODEV (its route
 *	does not go through @dev's netdev, or another network namespace:
 *	its local address must be one of the netdev's and its cached
 *	route, if any, must leave through the netdev), -EBUSY (already
 *	taken over, or sk_user_data in use). Nothing is changed.
 * @connect: active side. Takes @sock over, sends the MPA Request with
 *	@p's private data, and later reports ESTABLISHED (the QP @qp is then
 *	in RTS), REJECTED or FAILED. @qp must be an IDLE kiwarp QP (RC) of
 *	the same device; the consumer decides about timeouts (release()).
 *	A pending connect holds a reference on @qp until it fails or binds:
 *	release() it before destroying @qp.
 *	Return: 0 and *@conn, or -errno with nothing taken (the socket is
 *	untouched): -EINVAL (bad @p, QP not IDLE), what @check returns,
 *	-ENOMEM.
 * @listen: passive side (an SSP). Takes @sock over and enables reception
 *	of the MPA Request before @final_msg (may be NULL/0) is sent, in
 *	full, so that the peer cannot answer before kiwarp listens. Then
 *	reports REQUEST or SOCKET_DOWN (once). @sock only needs to have been
 *	connected (a socket closed or reset since gives SOCKET_DOWN, not
 *	-ENOTCONN). Return as @connect, and for @final_msg, all of which
 *	goes or, to the peer, none (the socket is given back in each case):
 *	-EAGAIN none of it could be queued within the module's
 *	sock_sndtimeo_ms (the socket is as it was); -ENOTCONN the socket
 *	failed first; -ECONNABORTED part of it went and the rest could not:
 *	the connection was reset, so the peer never acts on half of it.
 * @accept: after REQUEST: send the MPA Reply (with @p's private data,
 *	RFC 6581 IRD/ORD when the request had them), bind @qp (IDLE) and
 *	report ESTABLISHED, or FAILED. Return: 0, -EINVAL (wrong state, QP
 *	not IDLE), -ENOMEM. Does not sleep for the peer.
 * @reject: after REQUEST: send an MPA Reply with the Reject bit and
 *	@pdata, then close the socket. No further event. Return: 0, -EINVAL.
 * @refuse: after REQUEST, for a consumer that refuses it on its own
 *	(nobody was told of the request, so nobody knows the socket went):
 *	an MPA reject Reply with @pdata, then the TCP connection is shut
 *	down and the socket given back, callbacks restored and not released:
 *	the consumer still owns the struct socket. No further event.
 *	Return: 0, -EINVAL (wrong state, bad private data).
 * @release: the consumer is done with @conn; synchronous, any state, no
 *	handler call after it returns, @conn is freed. Before the socket
 *	became kiwarp's (connect pending, listen before REQUEST): it is given
 *	back (returns true). After REQUEST without accept/reject: rejected
 *	with the non-peer marker as private data (kiwarp/reject.h) and
 *	closed. After ESTABLISHED: the connection goes on, owned by the
 *	QP (destroy_qp or a close tears it down and releases the socket),
 *	only the events stop. Return: whether the socket went back to the
 *	consumer. Context: process, not from this connection's handler.
 * @give_back: the consumer wants its socket back while it is only
 *	borrowed (an SSP freed, a connect's time-out). A connect pending or
 *	a listen before REQUEST: as release(), the socket is given back and
 *	@conn freed: returns 0. Once the Request or the Reply was read,
 *	or once the provider ended it (SOCKET_DOWN), nothing changes: every
 *	event that came of it (REQUEST; ESTABLISHED, REJECTED or FAILED;
 *	SOCKET_DOWN) has reached the handler when this returns, and it
 *	returns -EBUSY; @conn is the consumer's to answer and release as
 *	before. A release() instead would reject a Request, or leave a
 *	bound socket to its QP, under a consumer that believes it has its
 *	socket back. Context: process, not from this connection's handler,
 *	not on kiwarp's workqueue (it waits for the conn's work).
 * @info: fill the connection's addresses (from the socket) and the MPA
 *	revision/CRC in use; for debugfs and dat_ep_query. Any state.
 */
struct kiwarp_sock_ops {
	struct module *owner;
	u32 version;
	bool (*supported)(struct ib_device *dev);
	int (*check)(struct ib_device *dev, struct socket *sock);
	int (*connect)(struct ib_qp *qp, struct socket *sock,
		       const struct kiwarp_sock_param *p,
		       kiwarp_sock_handler_t handler, void *ctx,
		       struct kiwarp_sock_conn **conn);
	int (*listen)(struct ib_device *dev, struct socket *sock,
		      const void *final_msg, size_t final_len,
		      kiwarp_sock_handler_t handler, void *ctx,
		      struct kiwarp_sock_conn **conn);
	int (*accept)(struct kiwarp_sock_conn *conn, struct ib_qp *qp,
		      const struct kiwarp_sock_param *p);
	int (*reject)(struct kiwarp_sock_conn *conn, const void *pdata,
		      u16 pdata_len);
	int (*refuse)(struct kiwarp_sock_conn *conn, const void *pdata,
		      u16 pdata_len);
	bool (*release)(struct kiwarp_sock_conn *conn);
	int (*give_back)(struct kiwarp_sock_conn *conn);
	void (*info)(struct kiwarp_sock_conn *conn,
		     struct sockaddr_storage *local,
		     struct sockaddr_storage *remote, u8 *mpa_rev, bool *crc);
};

#define KIWARP_SOCK_VERSION	2

/* Exported by kiwarp.ko; look it up with symbol_get(kiwarp_sock_ops). */
extern const struct kiwarp_sock_ops kiwarp_sock_ops;

#endif /* KIWARP_SOCK_H */
