/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kiwarp's tracepoints (tracefs events/kiwarp/): what MPA negotiated
 * when a QP is bound to its connection, every QP state change, each
 * TERMINATE sent and received with its layer, type and code, the steps
 * of a socket takeover, and what ends a connection from the receive
 * path. Documentation/iw_provider.rst, "Tracing".
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM kiwarp

#if !defined(_KIWARP_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _KIWARP_TRACE_H

#include <linux/tracepoint.h>
#include <linux/socket.h>

#include "kiwarp.h"

/* a QP bound to its TCP connection, with what MPA negotiated */
TRACE_EVENT(kiwarp_bind,
	TP_PROTO(const struct kiwarp_qp *qp),
	TP_ARGS(qp),
	TP_STRUCT__entry(
		__string(dev, dev_name(&qp->ibqp.device->dev))
		__field(u32, qpn)
		__field(u8, rev)
		__field(bool, crc)
		__field(u32, ird)
		__field(u32, ord)
		__field(u32, fpdu_max)
		__field(bool, sock_mode)
		__array(u8, laddr, sizeof(struct sockaddr_in6))
		__array(u8, raddr, sizeof(struct sockaddr_in6))
	),
	TP_fast_assign(
		__assign_str(dev, dev_name(&qp->ibqp.device->dev));
		__entry->qpn = qp->ibqp.qp_num;
		__entry->rev = qp->mpa_rev;
		__entry->crc = qp->crc;
		__entry->ird = qp->ird;
		__entry->ord = qp->ord;
		__entry->fpdu_max = qp->fpdu_max;
		__entry->sock_mode = qp->sock_mode;
		memcpy(__entry->laddr, &qp->laddr, sizeof(__entry->laddr));
		memcpy(__entry->raddr, &qp->raddr, sizeof(__entry->raddr));
	),
	TP_printk("%s qp %u %pISpc -> %pISpc mpa rev %u crc %u ird %u ord %u fpdu_max %u%s",
		  __get_str(dev), __entry->qpn, __entry->laddr, __entry->raddr,
		  __entry->rev, __entry->crc, __entry->ird, __entry->ord,
		  __entry->fpdu_max,
		  __entry->sock_mode ? " (socket takeover)" : "")
);

/* the enum values __print_symbolic() uses, for perf and trace-cmd */
TRACE_DEFINE_ENUM(KIWARP_QPS_IDLE);
TRACE_DEFINE_ENUM(KIWARP_QPS_RTS);
TRACE_DEFINE_ENUM(KIWARP_QPS_CLOSING);
TRACE_DEFINE_ENUM(KIWARP_QPS_TERMINATE);
TRACE_DEFINE_ENUM(KIWARP_QPS_ERROR);

#define kiwarp_show_qp_state(s)					\
	__print_symbolic(s,						\
		{ KIWARP_QPS_IDLE, "IDLE" },				\
		{ KIWARP_QPS_RTS, "RTS" },				\
		{ KIWARP_QPS_CLOSING, "CLOSING" },			\
		{ KIWARP_QPS_TERMINATE, "TERMINATE" },			\
		{ KIWARP_QPS_ERROR, "ERROR" })

TRACE_EVENT(kiwarp_qp_state,
	TP_PROTO(const struct kiwarp_qp *qp, enum kiwarp_qp_state old,
		 enum kiwarp_qp_state new),
	TP_ARGS(qp, old, new),
	TP_STRUCT__entry(
		__string(dev, dev_name(&qp->ibqp.device->dev))
		__field(u32, qpn)
		__field(u32, old)
		__field(u32, new)
	),
	TP_fast_assign(
		__assign_str(dev, dev_name(&qp->ibqp.device->dev));
		__entry->qpn = qp->ibqp.qp_num;
		__entry->old = old;
		__entry->new = new;
	),
	TP_printk("%s qp %u %s -> %s", __get_str(dev), __entry->qpn,
		  kiwarp_show_qp_state(__entry->old),
		  kiwarp_show_qp_state(__entry->new))
);

/* RFC 5040 TERMINATE: sent (@sent) or received */
TRACE_EVENT(kiwarp_terminate,
	TP_PROTO(const struct kiwarp_qp *qp, bool sent, u8 layer, u8 etype,
		 u8 ecode),
	TP_ARGS(qp, sent, layer, etype, ecode),
	TP_STRUCT__entry(
		__string(dev, dev_name(&qp->ibqp.device->dev))
		__field(u32, qpn)
		__field(bool, sent)
		__field(u8, layer)
		__field(u8, etype)
		__field(u8, ecode)
	),
	TP_fast_assign(
		__assign_str(dev, dev_name(&qp->ibqp.device->dev));
		__entry->qpn = qp->ibqp.qp_num;
		__entry->sent = sent;
		__entry->layer = layer;
		__entry->etype = etype;
		__entry->ecode = ecode;
	),
	TP_printk("%s qp %u %s layer %u etype %u ecode %#x", __get_str(dev),
		  __entry->qpn, __entry->sent ? "sent" : "received",
		  __entry->layer, __entry->etype, __entry->ecode)
);

/* the receive path ends the connection (a reset, TCP giving up, EOF) */
TRACE_EVENT(kiwarp_rx_down,
	TP_PROTO(const struct kiwarp_qp *qp, int err, bool eof),
	TP_ARGS(qp, err, eof),
	TP_STRUCT__entry(
		__string(dev, dev_name(&qp->ibqp.device->dev))
		__field(u32, qpn)
		__field(int, err)
		__field(bool, eof)
	),
	TP_fast_assign(
		__assign_str(dev, dev_name(&qp->ibqp.device->dev));
		__entry->qpn = qp->ibqp.qp_num;
		__entry->err = err;
		__entry->eof = eof;
	),
	TP_printk("%s qp %u %s %d", __get_str(dev), __entry->qpn,
		  __entry->eof ? "peer closed" : "error", __entry->err)
);

/*
 * A socket takeover's step (include/kiwarp/sock.h): the socket handed
 * over (@step "connect" or "listen"), then each event it reports to the
 * consumer ("request", "socket_down", "established", "rejected",
 * "failed") with its status
 */
TRACE_EVENT(kiwarp_sock_step,
	TP_PROTO(const void *conn, const char *step, int status),
	TP_ARGS(conn, step, status),
	TP_STRUCT__entry(
		__field(const void *, conn)
		__string(step, step)
		__field(int, status)
	),
	TP_fast_assign(
		__entry->conn = conn;
		__assign_str(step, step);
		__entry->status = status;
	),
	TP_printk("conn %p %s status %d", __entry->conn, __get_str(step),
		  __entry->status)
);

#endif /* _KIWARP_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE kiwarp_trace
#include <trace/define_trace.h>
