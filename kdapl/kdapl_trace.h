/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kdapl's tracepoints (tracefs events/kdapl/): a connection from its
 * EP's state changes and rdma_cm's events to the DAT events the consumer
 * gets, upcall deliveries, and each DTO posted and completed with its
 * cookie. Documentation/kdapl.rst, "Tracing a connection".
 *
 * Handles are printed as the consumer sees them. Strings are copied when
 * the event fires, so a record outlives the object it names.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM kdapl

#if !defined(_KDAPL_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _KDAPL_TRACE_H

#include <linux/tracepoint.h>
#include <rdma/rdma_cm.h>

#include <dat2/kdat.h>
#include "ep_state.h"

/* the enum values __print_symbolic() uses, for perf and trace-cmd */
TRACE_DEFINE_ENUM(DAT_DTO_SEND);
TRACE_DEFINE_ENUM(DAT_DTO_RDMA_WRITE);
TRACE_DEFINE_ENUM(DAT_DTO_RDMA_READ);
TRACE_DEFINE_ENUM(DAT_DTO_RECEIVE);
TRACE_DEFINE_ENUM(DAT_DTO_COMPLETION_EVENT);
TRACE_DEFINE_ENUM(DAT_CONNECTION_REQUEST_EVENT);
TRACE_DEFINE_ENUM(DAT_CONNECTION_EVENT_ESTABLISHED);
TRACE_DEFINE_ENUM(DAT_CONNECTION_EVENT_PEER_REJECTED);
TRACE_DEFINE_ENUM(DAT_CONNECTION_EVENT_NON_PEER_REJECTED);
TRACE_DEFINE_ENUM(DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
TRACE_DEFINE_ENUM(DAT_CONNECTION_EVENT_DISCONNECTED);
TRACE_DEFINE_ENUM(DAT_CONNECTION_EVENT_BROKEN);
TRACE_DEFINE_ENUM(DAT_CONNECTION_EVENT_TIMED_OUT);
TRACE_DEFINE_ENUM(DAT_CONNECTION_EVENT_UNREACHABLE);
TRACE_DEFINE_ENUM(DAT_ASYNC_ERROR_EVD_OVERFLOW);
TRACE_DEFINE_ENUM(DAT_ASYNC_ERROR_IA_CATASTROPHIC);
TRACE_DEFINE_ENUM(DAT_SOFTWARE_EVENT);

#define kdapl_show_dto_op(op)						\
	__print_symbolic(op,						\
		{ DAT_DTO_SEND, "SEND" },				\
		{ DAT_DTO_RDMA_WRITE, "RDMA_WRITE" },			\
		{ DAT_DTO_RDMA_READ, "RDMA_READ" },			\
		{ DAT_DTO_RECEIVE, "RECV" })

#define kdapl_show_event(num)						\
	__print_symbolic(num,						\
		{ DAT_DTO_COMPLETION_EVENT, "DTO_COMPLETION" },		\
		{ DAT_CONNECTION_REQUEST_EVENT, "CONNECTION_REQUEST" },	\
		{ DAT_CONNECTION_EVENT_ESTABLISHED, "ESTABLISHED" },	\
		{ DAT_CONNECTION_EVENT_PEER_REJECTED, "PEER_REJECTED" },	\
		{ DAT_CONNECTION_EVENT_NON_PEER_REJECTED,		\
		  "NON_PEER_REJECTED" },				\
		{ DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR,		\
		  "ACCEPT_COMPLETION_ERROR" },				\
		{ DAT_CONNECTION_EVENT_DISCONNECTED, "DISCONNECTED" },	\
		{ DAT_CONNECTION_EVENT_BROKEN, "BROKEN" },		\
		{ DAT_CONNECTION_EVENT_TIMED_OUT, "TIMED_OUT" },	\
		{ DAT_CONNECTION_EVENT_UNREACHABLE, "UNREACHABLE" },	\
		{ DAT_ASYNC_ERROR_EVD_OVERFLOW, "EVD_OVERFLOW" },	\
		{ DAT_ASYNC_ERROR_IA_CATASTROPHIC, "IA_CATASTROPHIC" },	\
		{ DAT_SOFTWARE_EVENT, "SOFTWARE" })

/* An EP's state changed: the DAT state table applied to @op. */
TRACE_EVENT(kdapl_ep_state,
	TP_PROTO(void *ep, DAT_EP_STATE old, DAT_EP_STATE new,
		 enum kdapl_ep_op op),
	TP_ARGS(ep, old, new, op),
	TP_STRUCT__entry(
		__field(unsigned long, ep)
		__string(old, kdapl_ep_state_name(old))
		__string(new, kdapl_ep_state_name(new))
		__string(op, kdapl_ep_op_name(op))
	),
	TP_fast_assign(
		__entry->ep = (unsigned long)ep;
		__assign_str(old, kdapl_ep_state_name(old));
		__assign_str(new, kdapl_ep_state_name(new));
		__assign_str(op, kdapl_ep_op_name(op));
	),
	TP_printk("ep %#lx %s -> %s on %s", __entry->ep, __get_str(old),
		  __get_str(new), __get_str(op))
);

/* rdma_cm's event for an EP, as it arrived (status: its errno) */
TRACE_EVENT(kdapl_cm_event,
	TP_PROTO(void *ep, enum rdma_cm_event_type event, int status),
	TP_ARGS(ep, event, status),
	TP_STRUCT__entry(
		__field(unsigned long, ep)
		__string(event, rdma_event_msg(event))
		__field(int, status)
	),
	TP_fast_assign(
		__entry->ep = (unsigned long)ep;
		__assign_str(event, rdma_event_msg(event));
		__entry->status = status;
	),
	TP_printk("ep %#lx %s status %d", __entry->ep, __get_str(event),
		  __entry->status)
);

/* A connection event posted for the consumer on the EP's connect EVD */
TRACE_EVENT(kdapl_conn_event,
	TP_PROTO(void *ep, DAT_EVENT_NUMBER num, u32 pdata_len),
	TP_ARGS(ep, num, pdata_len),
	TP_STRUCT__entry(
		__field(unsigned long, ep)
		__field(u32, num)
		__field(u32, pdata_len)
	),
	TP_fast_assign(
		__entry->ep = (unsigned long)ep;
		__entry->num = num;
		__entry->pdata_len = pdata_len;
	),
	TP_printk("ep %#lx %s private data %u bytes", __entry->ep,
		  kdapl_show_event(__entry->num), __entry->pdata_len)
);

/* dat_ep_disconnect called (the DISCONNECTED event ends it) */
TRACE_EVENT(kdapl_disconnect,
	TP_PROTO(void *ep, bool graceful, DAT_EP_STATE state),
	TP_ARGS(ep, graceful, state),
	TP_STRUCT__entry(
		__field(unsigned long, ep)
		__field(bool, graceful)
		__string(state, kdapl_ep_state_name(state))
	),
	TP_fast_assign(
		__entry->ep = (unsigned long)ep;
		__entry->graceful = graceful;
		__assign_str(state, kdapl_ep_state_name(state));
	),
	TP_printk("ep %#lx %s from %s", __entry->ep,
		  __entry->graceful ? "graceful" : "abrupt", __get_str(state))
);

/* An upcall about to run, on this CPU, in softirq context */
TRACE_EVENT(kdapl_upcall,
	TP_PROTO(void *evd, DAT_EVENT_NUMBER num, bool more),
	TP_ARGS(evd, num, more),
	TP_STRUCT__entry(
		__field(unsigned long, evd)
		__field(u32, num)
		__field(bool, more)
	),
	TP_fast_assign(
		__entry->evd = (unsigned long)evd;
		__entry->num = num;
		__entry->more = more;
	),
	TP_printk("evd %#lx %s%s", __entry->evd,
		  kdapl_show_event(__entry->num),
		  __entry->more ? " (more follow)" : "")
);

/* A DTO handed to the provider */
TRACE_EVENT(kdapl_dto_post,
	TP_PROTO(void *ep, DAT_DTOS op, u64 cookie, u64 len, u32 flags),
	TP_ARGS(ep, op, cookie, len, flags),
	TP_STRUCT__entry(
		__field(unsigned long, ep)
		__field(u32, op)
		__field(u64, cookie)
		__field(u64, len)
		__field(u32, flags)
	),
	TP_fast_assign(
		__entry->ep = (unsigned long)ep;
		__entry->op = op;
		__entry->cookie = cookie;
		__entry->len = len;
		__entry->flags = flags;
	),
	TP_printk("ep %#lx %s cookie %#llx len %llu flags %#x", __entry->ep,
		  kdapl_show_dto_op(__entry->op), __entry->cookie,
		  __entry->len, __entry->flags)
);

/* A DTO completed (also one flushed without reaching the provider) */
TRACE_EVENT(kdapl_dto_done,
	TP_PROTO(void *ep, DAT_DTOS op, u64 cookie, u32 status, u64 len),
	TP_ARGS(ep, op, cookie, status, len),
	TP_STRUCT__entry(
		__field(unsigned long, ep)
		__field(u32, op)
		__field(u64, cookie)
		__field(u32, status)
		__field(u64, len)
	),
	TP_fast_assign(
		__entry->ep = (unsigned long)ep;
		__entry->op = op;
		__entry->cookie = cookie;
		__entry->status = status;
		__entry->len = len;
	),
	TP_printk("ep %#lx %s cookie %#llx status %u len %llu", __entry->ep,
		  kdapl_show_dto_op(__entry->op), __entry->cookie,
		  __entry->status, __entry->len)
);

#endif /* _KDAPL_TRACE_H */

/* out of tree: the header is found through -I$(src) (Kbuild) */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE kdapl_trace
#include <trace/define_trace.h>
