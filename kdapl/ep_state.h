/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The DAT endpoint state machine as one table (ep_state.c).
 *
 * Every consumer call whose legality depends on the EP's state, and every
 * provider or internal event that moves an EP, is a column of the table:
 * an enum kdapl_ep_op. For each (state, op) pair the table says whether
 * the op is allowed there and, if so, which state the EP is in afterwards.
 * A refused consumer call answers DAT_INVALID_STATE with the subtype that
 * names the state the EP is in (DAT_INVALID_STATE_EP_CONNECTED, ...). A
 * refused event is a stale one: the EP has already left the state that
 * expected it (the consumer aborted the connect, say), and the caller
 * drops it without posting anything.
 *
 * The functions are pure table lookups: no locks (the caller holds the
 * EP's lock around check, action and state change), no sleeping, callable
 * from any context. Documentation/ep-states.rst embeds the output of
 * kdapl_ep_state_table_print() and explains every rule.
 */
#ifndef KDAPL_EP_STATE_H
#define KDAPL_EP_STATE_H

#include <linux/types.h>

#include <dat2/dat.h>

struct seq_file;

/* DAT_EP_STATE runs densely from 0 to DAT_EP_STATE_CONNECTED_MULTI_PATH. */
#define KDAPL_EP_STATE_COUNT	(DAT_EP_STATE_CONNECTED_MULTI_PATH + 1)

/**
 * enum kdapl_ep_op - what can happen to an endpoint
 *
 * Consumer calls (KDAPL_EP_OP_*), answered DAT_INVALID_STATE when
 * refused:
 *
 * @KDAPL_EP_OP_QUERY: dat_ep_query(), dat_ep_get_status(); always allowed
 * @KDAPL_EP_OP_MODIFY: dat_ep_modify() of anything but the PZ
 * @KDAPL_EP_OP_MODIFY_PZ: dat_ep_modify() of the PZ (replaces the QP)
 * @KDAPL_EP_OP_CONNECT: dat_ep_connect()
 * @KDAPL_EP_OP_DUP_CONNECT: dat_ep_dup_connect(), on the EP it connects
 * @KDAPL_EP_OP_DUP_SOURCE: dat_ep_dup_connect(), on @ep_dup_handle
 * @KDAPL_EP_OP_DISCONNECT_GRACEFUL: dat_ep_disconnect(GRACEFUL)
 * @KDAPL_EP_OP_DISCONNECT_ABRUPT: dat_ep_disconnect(ABRUPT)
 * @KDAPL_EP_OP_POST_SEND: dat_ep_post_send()
 * @KDAPL_EP_OP_POST_RECV: dat_ep_post_recv()
 * @KDAPL_EP_OP_POST_RDMA_READ: dat_ep_post_rdma_read()
 * @KDAPL_EP_OP_POST_RDMA_WRITE: dat_ep_post_rdma_write()
 * @KDAPL_EP_OP_RMR_BIND: dat_rmr_bind() on this EP
 * @KDAPL_EP_OP_RESET: dat_ep_reset()
 * @KDAPL_EP_OP_FREE: dat_ep_free()
 * @KDAPL_EP_OP_RSP_CREATE: dat_rsp_create() reserving this EP
 * @KDAPL_EP_OP_RSP_FREE: dat_rsp_free() of the RSP that reserved this EP
 * @KDAPL_EP_OP_CR_ACCEPT: dat_cr_accept() onto this EP
 * @KDAPL_EP_OP_CR_REJECT: dat_cr_reject() of the CR this EP belongs to
 * @KDAPL_EP_OP_CR_HANDOFF: dat_cr_handoff() of the CR this EP belongs to
 *
 * Events (KDAPL_EP_EV_*), raised by the EP, PSP, RSP and CM code:
 *
 * @KDAPL_EP_EV_CONFIGURED: a dat_ep_modify() left the EP with everything
 *	it needs (PZ, so a QP, and its EVDs)
 * @KDAPL_EP_EV_UNCONFIGURED: a dat_ep_modify() took one of those away
 * @KDAPL_EP_EV_PSP_PROVIDER_EP: a PSP with DAT_PSP_PROVIDER_FLAG created
 *	this EP for an arriving connection request
 * @KDAPL_EP_EV_CM_REQUEST: a connection request arrived on the RSP that
 *	reserved this EP
 * @KDAPL_EP_EV_CM_ESTABLISHED: the connection is established
 * @KDAPL_EP_EV_CM_PEER_REJECTED: the remote consumer rejected the connect
 * @KDAPL_EP_EV_CM_NON_PEER_REJECTED: nobody listening, backlog full,
 *	transport error: every other failure of a connect (seed 003)
 * @KDAPL_EP_EV_CM_UNREACHABLE: the remote host cannot be reached
 * @KDAPL_EP_EV_TIMEOUT: the EP's timer fired: the connect timeout, or the
 *	bounded wait of a graceful disconnect
 * @KDAPL_EP_EV_ACCEPT_ERROR: an accepted connection could not be completed
 * @KDAPL_EP_EV_CM_DISCONNECTED: the peer disconnected, or the connection
 *	closed
 * @KDAPL_EP_EV_CM_BROKEN: the connection failed (transport or QP error)
 * @KDAPL_EP_EV_DISCONNECT_DONE: a graceful disconnect finished: the peer's
 *	disconnect (or an error) was seen and all DMA on the QP is over
 * @KDAPL_EP_OP_COUNT: number of ops and events
 */
enum kdapl_ep_op {
	KDAPL_EP_OP_QUERY,
	KDAPL_EP_OP_MODIFY,
	KDAPL_EP_OP_MODIFY_PZ,
	KDAPL_EP_OP_CONNECT,
	KDAPL_EP_OP_DUP_CONNECT,
	KDAPL_EP_OP_DUP_SOURCE,
	KDAPL_EP_OP_DISCONNECT_GRACEFUL,
	KDAPL_EP_OP_DISCONNECT_ABRUPT,
	KDAPL_EP_OP_POST_SEND,
	KDAPL_EP_OP_POST_RECV,
	KDAPL_EP_OP_POST_RDMA_READ,
	KDAPL_EP_OP_POST_RDMA_WRITE,
	KDAPL_EP_OP_RMR_BIND,
	KDAPL_EP_OP_RESET,
	KDAPL_EP_OP_FREE,
	KDAPL_EP_OP_RSP_CREATE,
	KDAPL_EP_OP_RSP_FREE,
	KDAPL_EP_OP_CR_ACCEPT,
	KDAPL_EP_OP_CR_REJECT,
	KDAPL_EP_OP_CR_HANDOFF,
	KDAPL_EP_EV_CONFIGURED,
	KDAPL_EP_EV_UNCONFIGURED,
	KDAPL_EP_EV_PSP_PROVIDER_EP,
	KDAPL_EP_EV_CM_REQUEST,
	KDAPL_EP_EV_CM_ESTABLISHED,
	KDAPL_EP_EV_CM_PEER_REJECTED,
	KDAPL_EP_EV_CM_NON_PEER_REJECTED,
	KDAPL_EP_EV_CM_UNREACHABLE,
	KDAPL_EP_EV_TIMEOUT,
	KDAPL_EP_EV_ACCEPT_ERROR,
	KDAPL_EP_EV_CM_DISCONNECTED,
	KDAPL_EP_EV_CM_BROKEN,
	KDAPL_EP_EV_DISCONNECT_DONE,
	KDAPL_EP_OP_COUNT
};

/* The first event; everything before it is a consumer call. */
#define KDAPL_EP_FIRST_EVENT	KDAPL_EP_EV_CONFIGURED

/**
 * enum kdapl_ep_cell_kind - what one cell of the table says
 * @KDAPL_EP_CELL_MISSING: no entry; never present in a complete table
 *	(KUnit suite kdapl_ep_state checks), treated as refused
 * @KDAPL_EP_CELL_REFUSED: not allowed in this state
 * @KDAPL_EP_CELL_STAY: allowed, the state does not change
 * @KDAPL_EP_CELL_MOVE: allowed, the EP moves to the cell's next state
 */
enum kdapl_ep_cell_kind {
	KDAPL_EP_CELL_MISSING,
	KDAPL_EP_CELL_REFUSED,
	KDAPL_EP_CELL_STAY,
	KDAPL_EP_CELL_MOVE,
};

/**
 * struct kdapl_ep_cell - one (op, state) entry of the table
 * @kind: enum kdapl_ep_cell_kind
 * @next: the state after the op, for KDAPL_EP_CELL_MOVE
 */
struct kdapl_ep_cell {
	u8 kind;
	u8 next;
};

DAT_RETURN kdapl_ep_state_check(DAT_EP_STATE s, enum kdapl_ep_op op);
bool kdapl_ep_state_next(DAT_EP_STATE s, enum kdapl_ep_op op,
			 DAT_EP_STATE *next);
enum dat_return_subtype kdapl_ep_state_subtype(DAT_EP_STATE s);
const char *kdapl_ep_state_name(DAT_EP_STATE s);
const char *kdapl_ep_op_name(enum kdapl_ep_op op);
void kdapl_ep_state_table_print(struct seq_file *m);

/* The raw cell, exposed for the self-tests; NULL when out of range. */
const struct kdapl_ep_cell *kdapl_ep_state_cell(DAT_EP_STATE s,
						enum kdapl_ep_op op);

#endif /* KDAPL_EP_STATE_H */
