// SPDX-License-Identifier: GPL-2.0
/*
 * The DAT endpoint state machine, as one table.
 *
 * Rows are the ops and events of enum kdapl_ep_op, columns the fifteen
 * DAT_EP_STATE values in their (fixed, specification-given) order. A cell
 * is NO (refused: DAT_INVALID_STATE with the subtype of the column's
 * state), OK (allowed, the state stays) or TO(x) (allowed, the EP moves
 * to state x).
 *
 * Sources, cited in the comments as:
 *   seed 001  DAPL End Point Management Design (EP/QP states, PSP/RSP/CR)
 *   seed 002  NetworkDirect disconnect scheme (graceful disconnect)
 *   seed 003  dat_ep_connect(3DAT): events and states of every outcome
 *   man       the DAT 1.2/2.0 manual pages dat_ep_*(3DAT), dat_cr_*(3DAT),
 *             dat_rsp_create(3DAT)
 *   issue     the kDAPL core issue ("Endpoint" and "Disconnect" bullets)
 *   kdat.h    our public header, include/dat2/kdat.h
 * Where they are silent the comment says "choice" and why.
 *
 * The UNCONFIGURED_* states (DAT 2.0) are the EPs that lack what their
 * DTO queues or a connection need: a PZ (so no QP yet, seed 001) or their
 * EVDs. They mirror UNCONNECTED, RESERVED, PASSIVE_CONNECTION_PENDING and
 * TENTATIVE_CONNECTION_PENDING; KDAPL_EP_EV_CONFIGURED moves them across.
 * CONNECTED_SINGLE_PATH and CONNECTED_MULTI_PATH (DAT 2.0 path migration)
 * are never entered by kdapl: rdma_cm has no such state to report.
 */

#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/seq_file.h>

#include "ep_state.h"

/* The columns' short names, in DAT_EP_STATE order. */
enum {
	EPS_UNC = DAT_EP_STATE_UNCONNECTED,
	EPS_UUN = DAT_EP_STATE_UNCONFIGURED_UNCONNECTED,
	EPS_RES = DAT_EP_STATE_RESERVED,
	EPS_URE = DAT_EP_STATE_UNCONFIGURED_RESERVED,
	EPS_PAS = DAT_EP_STATE_PASSIVE_CONNECTION_PENDING,
	EPS_UPA = DAT_EP_STATE_UNCONFIGURED_PASSIVE,
	EPS_ACT = DAT_EP_STATE_ACTIVE_CONNECTION_PENDING,
	EPS_TEN = DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING,
	EPS_UTE = DAT_EP_STATE_UNCONFIGURED_TENTATIVE,
	EPS_CON = DAT_EP_STATE_CONNECTED,
	EPS_DPN = DAT_EP_STATE_DISCONNECT_PENDING,
	EPS_DIS = DAT_EP_STATE_DISCONNECTED,
	EPS_CPN = DAT_EP_STATE_COMPLETION_PENDING,
	EPS_CSP = DAT_EP_STATE_CONNECTED_SINGLE_PATH,
	EPS_CMP = DAT_EP_STATE_CONNECTED_MULTI_PATH,
};

#define NO	{ .kind = KDAPL_EP_CELL_REFUSED }
#define OK	{ .kind = KDAPL_EP_CELL_STAY }
#define TO(s)	{ .kind = KDAPL_EP_CELL_MOVE, .next = EPS_##s }

static const struct kdapl_ep_cell ep_table[KDAPL_EP_OP_COUNT][KDAPL_EP_STATE_COUNT] = {
	/* ------------------------ consumer calls ------------------------ */

	/* dat_ep_query, dat_ep_get_status: every state (man). */
	[KDAPL_EP_OP_QUERY] = {
	/*	UNC      UUN      RES      URE      PAS      UPA      ACT      TEN */
		OK,      OK,      OK,      OK,      OK,      OK,      OK,      OK,
	/*	UTE      CON      DPN      DIS      CPN      CSP      CMP */
		OK,      OK,      OK,      OK,      OK,      OK,      OK },

	/*
	 * dat_ep_modify of EVDs, attributes, service type: "prior to a
	 * request for a connection for an Active side or prior to accepting
	 * a Connection Request for a Passive side", i.e. UNCONNECTED,
	 * RESERVED, PASSIVE and TENTATIVE CONNECTION_PENDING (man), and their
	 * UNCONFIGURED twins, which exist to be configured this way.
	 * DISCONNECTED must be reset first.
	 */
	[KDAPL_EP_OP_MODIFY] = {
	/*	UNC      UUN      RES      URE      PAS      UPA      ACT      TEN */
		OK,      OK,      OK,      OK,      OK,      OK,      NO,      OK,
	/*	UTE      CON      DPN      DIS      CPN      CSP      CMP */
		OK,      NO,      NO,      NO,      NO,      NO,      NO },

	/*
	 * The PZ only in the quiescent states UNCONNECTED and TENTATIVE (man);
	 * the new PZ replaces the QP (seed 001, issue). Choice: also in
	 * UNCONFIGURED_RESERVED and UNCONFIGURED_PASSIVE, which have no QP
	 * yet: giving them a PZ is the only way to make the reserved EP
	 * usable, and there is nothing posted to lose.
	 */
	[KDAPL_EP_OP_MODIFY_PZ] = {
	/*	UNC      UUN      RES      URE      PAS      UPA      ACT      TEN */
		OK,      OK,      NO,      OK,      NO,      OK,      NO,      OK,
	/*	UTE      CON      DPN      DIS      CPN      CSP      CMP */
		OK,      NO,      NO,      NO,      NO,      NO,      NO },

	/*
	 * Only from UNCONNECTED, into ACTIVE_CONNECTION_PENDING (seed 003).
	 * An EP without PZ has no QP and cannot connect (seed 001):
	 * UNCONFIGURED_UNCONNECTED answers DAT_INVALID_STATE_EP_UNCONFIGURED.
	 */
	[KDAPL_EP_OP_CONNECT] = {
	/*	UNC      UUN      RES      URE      PAS      UPA      ACT      TEN */
		TO(ACT), NO,      NO,      NO,      NO,      NO,      NO,      NO,
	/*	UTE      CON      DPN      DIS      CPN      CSP      CMP */
		NO,      NO,      NO,      NO,      NO,      NO,      NO },

	/* As dat_ep_connect (man). */
	[KDAPL_EP_OP_DUP_CONNECT] = {
	/*	UNC      UUN      RES      URE      PAS      UPA      ACT      TEN */
		TO(ACT), NO,      NO,      NO,      NO,      NO,      NO,      NO,
	/*	UTE      CON      DPN      DIS      CPN      CSP      CMP */
		NO,      NO,      NO,      NO,      NO,      NO,      NO },

	/* The EP whose peer a dup_connect targets must be connected (man). */
	[KDAPL_EP_OP_DUP_SOURCE] = {
	/*	UNC      UUN      RES      URE      PAS      UPA      ACT      TEN */
		NO,      NO,      NO,      NO,      NO,      NO,      NO,      NO,
	/*	UTE      CON      DPN      DIS      CPN      CSP      CMP */
		NO,      OK,      NO,      NO,      NO,      NO,      NO },

	/*
	 * Graceful: CONNECTED -> DISCONNECT_PENDING until the peer's
	 * disconnect (or an error) is seen and all DMA on the QP is over
	 * (seed 002), then KDAPL_EP_EV_DISCONNECT_DONE. Again in
	 * DISCONNECT_PENDING: no effect (man). DISCONNECTED: no-op (man).
	 * ACTIVE_CONNECTION_PENDING and COMPLETION_PENDING: aborts the
	 * connection establishment, DISCONNECTED, posted receives are
	 * flushed (man). UNCONNECTED, RESERVED, PASSIVE and TENTATIVE
	 * CONNECTION_PENDING: disallowed (man); the way out of the last three
	 * is dat_rsp_free or dat_cr_reject. (Seed 001 lets an UNCONNECTED EP
	 * be disconnected to flush its receives; the man page forbids it and
	 * dat_ep_free flushes them, so we follow the man page.)
	 */
	[KDAPL_EP_OP_DISCONNECT_GRACEFUL] = {
	/*	UNC      UUN      RES      URE      PAS      UPA      ACT      TEN */
		NO,      NO,      NO,      NO,      NO,      NO,      TO(DIS), NO,
	/*	UTE      CON      DPN      DIS      CPN      CSP      CMP */
		NO,      TO(DPN), OK,      OK,      TO(DIS), NO,      NO },

	/*
	 * Abrupt: as graceful, except that CONNECTED and DISCONNECT_PENDING
	 * go straight to DISCONNECTED (man: abrupt in DISCONNECT_PENDING does
	 * not wait for outstanding DTOs). Choice: CONNECTED -> DISCONNECTED
	 * synchronously. The call moves the QP to ERROR, which flushes all
	 * outstanding work (seed 001, issue), and posts the one
	 * DAT_CONNECTION_EVENT_DISCONNECTED itself; nothing waits for a peer
	 * that may be gone, so a kernel consumer tearing down can reset or
	 * free the EP as soon as the call returns. CM events arriving later
	 * find DISCONNECTED and are dropped as stale.
	 */
	[KDAPL_EP_OP_DISCONNECT_ABRUPT] = {
	/*	UNC      UUN      RES      URE      PAS      UPA      ACT      TEN */
		NO,      NO,      NO,      NO,      NO,      NO,      TO(DIS), NO,
	/*	UTE      CON      DPN      DIS      CPN      CSP      CMP */
		NO,      TO(DIS), TO(DIS), OK,      TO(DIS), NO,      NO },

	/*
	 * Send, RDMA Read, RDMA Write and RMR Bind: CONNECTED, and
	 * DISCONNECTED where the request is flushed to the request EVD
	 * (man dat_ep_post_send), after the flushes of those posted before
	 * (dto.c, dto_held()). That is also what a kernel RDMA user
	 * expects: posting to an ERROR QP completes with a flush, which is
	 * how ib_drain_qp() and the "marker" of dat_ep_reset(3DAT) work. Not
	 * in DISCONNECT_PENDING (man dat_ep_disconnect), nor while the
	 * connection is still being set up.
	 */
	[KDAPL_EP_OP_POST_SEND] = {
	/*	UNC      UUN      RES      URE      PAS      UPA      ACT      TEN */
		NO,      NO,      NO,      NO,      NO,      NO,      NO,      NO,
	/*	UTE      CON      DPN      DIS      CPN      CSP      CMP */
		NO,      OK,      NO,      OK,      NO,      NO,      NO },

	/*
	 * Receives: "valid for all states of the Endpoint" (man), posted
	 * before connecting (seed 001, issue: allowed while UNCONNECTED) so
	 * that nothing arriving with the connection is lost; flushed in
	 * DISCONNECTED, after those posted before. Not in the UNCONFIGURED_* states: without a PZ
	 * there is no QP to post to (seed 001: "a PZ is required before RECV
	 * requests can be posted").
	 */
	[KDAPL_EP_OP_POST_RECV] = {
	/*	UNC      UUN      RES      URE      PAS      UPA      ACT      TEN */
		OK,      NO,      OK,      NO,      OK,      NO,      OK,      OK,
	/*	UTE      CON      DPN      DIS      CPN      CSP      CMP */
		NO,      OK,      OK,      OK,      OK,      NO,      NO },

	/* As dat_ep_post_send (man). */
	[KDAPL_EP_OP_POST_RDMA_READ] = {
	/*	UNC      UUN      RES      URE      PAS      UPA      ACT      TEN */
		NO,      NO,      NO,      NO,      NO,      NO,      NO,      NO,
	/*	UTE      CON      DPN      DIS      CPN      CSP      CMP */
		NO,      OK,      NO,      OK,      NO,      NO,      NO },

	/* As dat_ep_post_send (man). */
	[KDAPL_EP_OP_POST_RDMA_WRITE] = {
	/*	UNC      UUN      RES      URE      PAS      UPA      ACT      TEN */
		NO,      NO,      NO,      NO,      NO,      NO,      NO,      NO,
	/*	UTE      CON      DPN      DIS      CPN      CSP      CMP */
		NO,      OK,      NO,      OK,      NO,      NO,      NO },

	/* An RMR Bind is a request on the EP: as dat_ep_post_send (man). */
	[KDAPL_EP_OP_RMR_BIND] = {
	/*	UNC      UUN      RES      URE      PAS      UPA      ACT      TEN */
		NO,      NO,      NO,      NO,      NO,      NO,      NO,      NO,
	/*	UTE      CON      DPN      DIS      CPN      CSP      CMP */
		NO,      OK,      NO,      OK,      NO,      NO,      NO },

	/*
	 * DISCONNECTED -> UNCONNECTED; "valid for both Disconnected and
	 * Unconnected states", a no-op in the latter, posted receives kept
	 * (man dat_ep_reset). Everything else: DAT_INVALID_STATE.
	 */
	[KDAPL_EP_OP_RESET] = {
	/*	UNC      UUN      RES      URE      PAS      UPA      ACT      TEN */
		OK,      OK,      NO,      NO,      NO,      NO,      NO,      NO,
	/*	UTE      CON      DPN      DIS      CPN      CSP      CMP */
		NO,      NO,      NO,      TO(UNC), NO,      NO,      NO },

	/*
	 * Any state "except Reserved, Passive Connection Pending, and
	 * Tentative Connection Pending" (man dat_ep_free; kdat.h: refused
	 * while reserved by an RSP or owned by a PSP's CR). The consumer
	 * first frees the RSP or rejects the CR. Elsewhere the EP is
	 * destroyed: a pending connect is aborted, a connected EP is
	 * disconnected abruptly first (kdat.h), outstanding DTOs are flushed.
	 */
	[KDAPL_EP_OP_FREE] = {
	/*	UNC      UUN      RES      URE      PAS      UPA      ACT      TEN */
		OK,      OK,      NO,      NO,      NO,      NO,      OK,      NO,
	/*	UTE      CON      DPN      DIS      CPN      CSP      CMP */
		NO,      OK,      OK,      OK,      OK,      OK,      OK },

	/* dat_rsp_create reserves an idle (UNCONNECTED) EP (man, kdat.h). */
	[KDAPL_EP_OP_RSP_CREATE] = {
	/*	UNC      UUN      RES      URE      PAS      UPA      ACT      TEN */
		TO(RES), TO(URE), NO,      NO,      NO,      NO,      NO,      NO,
	/*	UTE      CON      DPN      DIS      CPN      CSP      CMP */
		NO,      NO,      NO,      NO,      NO,      NO,      NO },

	/*
	 * dat_rsp_free returns a still reserved EP to UNCONNECTED (kdat.h).
	 * Once a request arrived the EP belongs to the CR, not to the RSP
	 * (one shot, seed 001), so freeing the RSP leaves it alone: allowed
	 * everywhere else, no change (dat_rsp_free has no DAT_INVALID_STATE).
	 */
	[KDAPL_EP_OP_RSP_FREE] = {
	/*	UNC      UUN      RES      URE      PAS      UPA      ACT      TEN */
		OK,      OK,      TO(UNC), TO(UUN), OK,      OK,      OK,      OK,
	/*	UTE      CON      DPN      DIS      CPN      CSP      CMP */
		OK,      OK,      OK,      OK,      OK,      OK,      OK },

	/*
	 * Accept onto a consumer EP (PSP with DAT_PSP_CONSUMER_FLAG) that is
	 * UNCONNECTED, onto the RSP's EP in PASSIVE_CONNECTION_PENDING, or
	 * onto the provider's EP in TENTATIVE_CONNECTION_PENDING; then
	 * COMPLETION_PENDING until the connection is established (seed 001:
	 * the passive side waits for the final leg, the RTU in IB terms).
	 * The EP must have its PZ and QP (seed 001): refused in the
	 * UNCONFIGURED_* states.
	 */
	[KDAPL_EP_OP_CR_ACCEPT] = {
	/*	UNC      UUN      RES      URE      PAS      UPA      ACT      TEN */
		TO(CPN), NO,      NO,      NO,      TO(CPN), NO,      NO,      TO(CPN),
	/*	UTE      CON      DPN      DIS      CPN      CSP      CMP */
		NO,      NO,      NO,      NO,      NO,      NO,      NO },

	/*
	 * Reject: the RSP's EP "transitions into Unconnected state"
	 * (man dat_rsp_create, dat_ep_free); the provider's EP "reverts to
	 * Provider control" (man dat_cr_reject): it goes to UNCONNECTED too,
	 * where the PSP code frees it with the ordinary free path.
	 */
	[KDAPL_EP_OP_CR_REJECT] = {
	/*	UNC      UUN      RES      URE      PAS      UPA      ACT      TEN */
		NO,      NO,      NO,      NO,      TO(UNC), TO(UUN), NO,      TO(UNC),
	/*	UTE      CON      DPN      DIS      CPN      CSP      CMP */
		TO(UUN), NO,      NO,      NO,      NO,      NO,      NO },

	/*
	 * Choice: a handoff takes the request, not the EP, to the other
	 * service point (man dat_cr_handoff says nothing of the EP), so the
	 * EP is released exactly as by a reject; a provider-EP service point
	 * there makes a new provider EP.
	 */
	[KDAPL_EP_OP_CR_HANDOFF] = {
	/*	UNC      UUN      RES      URE      PAS      UPA      ACT      TEN */
		NO,      NO,      NO,      NO,      TO(UNC), TO(UUN), NO,      TO(UNC),
	/*	UTE      CON      DPN      DIS      CPN      CSP      CMP */
		TO(UUN), NO,      NO,      NO,      NO,      NO,      NO },

	/* ---------------------------- events ---------------------------- */

	/*
	 * dat_ep_modify completed the EP's configuration: each UNCONFIGURED_*
	 * state moves to its configured twin. Where modify is allowed and
	 * the EP already was configured, nothing changes.
	 */
	[KDAPL_EP_EV_CONFIGURED] = {
	/*	UNC      UUN      RES      URE      PAS      UPA      ACT      TEN */
		OK,      TO(UNC), OK,      TO(RES), OK,      TO(PAS), NO,      OK,
	/*	UTE      CON      DPN      DIS      CPN      CSP      CMP */
		TO(TEN), NO,      NO,      NO,      NO,      NO,      NO },

	/* The reverse: a modify set the PZ or a needed EVD to NULL. */
	[KDAPL_EP_EV_UNCONFIGURED] = {
	/*	UNC      UUN      RES      URE      PAS      UPA      ACT      TEN */
		TO(UUN), OK,      TO(URE), OK,      TO(UPA), OK,      NO,      TO(UTE),
	/*	UTE      CON      DPN      DIS      CPN      CSP      CMP */
		OK,      NO,      NO,      NO,      NO,      NO,      NO },

	/*
	 * A PSP with DAT_PSP_PROVIDER_FLAG creates an EP for each request
	 * (seed 001) and hands it over TENTATIVE_CONNECTION_PENDING; the
	 * provider's EP has no PZ (seed 001: "DAPL mandates a NULL PZ"), so
	 * normally UNCONFIGURED_TENTATIVE until the consumer gives it one.
	 */
	[KDAPL_EP_EV_PSP_PROVIDER_EP] = {
	/*	UNC      UUN      RES      URE      PAS      UPA      ACT      TEN */
		TO(TEN), TO(UTE), NO,      NO,      NO,      NO,      NO,      NO,
	/*	UTE      CON      DPN      DIS      CPN      CSP      CMP */
		NO,      NO,      NO,      NO,      NO,      NO,      NO },

	/*
	 * A request arriving on an RSP moves its EP from RESERVED to
	 * PASSIVE_CONNECTION_PENDING (man dat_rsp_create). An RSP is one
	 * shot: a second request finds PASSIVE and is refused (the RSP code
	 * rejects it).
	 */
	[KDAPL_EP_EV_CM_REQUEST] = {
	/*	UNC      UUN      RES      URE      PAS      UPA      ACT      TEN */
		NO,      NO,      TO(PAS), TO(UPA), NO,      NO,      NO,      NO,
	/*	UTE      CON      DPN      DIS      CPN      CSP      CMP */
		NO,      NO,      NO,      NO,      NO,      NO,      NO },

	/*
	 * ESTABLISHED: the active side from ACTIVE_CONNECTION_PENDING
	 * (seed 003), the passive side from COMPLETION_PENDING (seed 001).
	 * Anywhere else it is stale (the consumer aborted the connect).
	 */
	[KDAPL_EP_EV_CM_ESTABLISHED] = {
	/*	UNC      UUN      RES      URE      PAS      UPA      ACT      TEN */
		NO,      NO,      NO,      NO,      NO,      NO,      TO(CON), NO,
	/*	UTE      CON      DPN      DIS      CPN      CSP      CMP */
		NO,      NO,      NO,      NO,      TO(CON), NO,      NO },

	/* PEER_REJECTED: DISCONNECTED (seed 003). */
	[KDAPL_EP_EV_CM_PEER_REJECTED] = {
	/*	UNC      UUN      RES      URE      PAS      UPA      ACT      TEN */
		NO,      NO,      NO,      NO,      NO,      NO,      TO(DIS), NO,
	/*	UTE      CON      DPN      DIS      CPN      CSP      CMP */
		NO,      NO,      NO,      NO,      NO,      NO,      NO },

	/* NON_PEER_REJECTED: DISCONNECTED (seed 003). */
	[KDAPL_EP_EV_CM_NON_PEER_REJECTED] = {
	/*	UNC      UUN      RES      URE      PAS      UPA      ACT      TEN */
		NO,      NO,      NO,      NO,      NO,      NO,      TO(DIS), NO,
	/*	UTE      CON      DPN      DIS      CPN      CSP      CMP */
		NO,      NO,      NO,      NO,      NO,      NO,      NO },

	/* UNREACHABLE: DISCONNECTED (seed 003). */
	[KDAPL_EP_EV_CM_UNREACHABLE] = {
	/*	UNC      UUN      RES      URE      PAS      UPA      ACT      TEN */
		NO,      NO,      NO,      NO,      NO,      NO,      TO(DIS), NO,
	/*	UTE      CON      DPN      DIS      CPN      CSP      CMP */
		NO,      NO,      NO,      NO,      NO,      NO,      NO },

	/*
	 * The connect timeout: TIMED_OUT, DISCONNECTED (seed 003; seed 001's
	 * reference implementation used UNCONNECTED, the man page and later
	 * implementations DISCONNECTED). The bounded wait of a graceful
	 * disconnect: "a disconnect never blocks forever (bounded wait, then
	 * forced DISCONNECTED)" (issue); applied once the QP is in ERROR and
	 * drained (cm.c), with the event BROKEN: seed 002's disconnect that
	 * completes "with a failure".
	 */
	[KDAPL_EP_EV_TIMEOUT] = {
	/*	UNC      UUN      RES      URE      PAS      UPA      ACT      TEN */
		NO,      NO,      NO,      NO,      NO,      NO,      TO(DIS), NO,
	/*	UTE      CON      DPN      DIS      CPN      CSP      CMP */
		NO,      NO,      TO(DIS), NO,      NO,      NO,      NO },

	/*
	 * ACCEPT_COMPLETION_ERROR: "Endpoint transitions into Disconnected
	 * state and all posted Recv DTOs are flushed" (man dat_cr_accept).
	 */
	[KDAPL_EP_EV_ACCEPT_ERROR] = {
	/*	UNC      UUN      RES      URE      PAS      UPA      ACT      TEN */
		NO,      NO,      NO,      NO,      NO,      NO,      NO,      NO,
	/*	UTE      CON      DPN      DIS      CPN      CSP      CMP */
		NO,      NO,      NO,      NO,      TO(DIS), NO,      NO },

	/*
	 * The peer's disconnect. CONNECTED: DISCONNECTED at once, with one
	 * DISCONNECTED event; the indication gives no guarantee about work
	 * request completions (seed 002). DISCONNECT_PENDING: the first of
	 * the two conditions of a graceful disconnect (seed 002); the EP
	 * stays until all DMA is over (KDAPL_EP_EV_DISCONNECT_DONE). Choice:
	 * during setup (the peer closed before ESTABLISHED reached us) it
	 * ends the attempt, DISCONNECTED, reported as NON_PEER_REJECTED on
	 * the active side and ACCEPT_COMPLETION_ERROR on the passive side,
	 * rather than leaving the EP pending until a timeout that may be
	 * infinite.
	 */
	[KDAPL_EP_EV_CM_DISCONNECTED] = {
	/*	UNC      UUN      RES      URE      PAS      UPA      ACT      TEN */
		NO,      NO,      NO,      NO,      NO,      NO,      TO(DIS), NO,
	/*	UTE      CON      DPN      DIS      CPN      CSP      CMP */
		NO,      TO(DIS), OK,      NO,      TO(DIS), NO,      NO },

	/*
	 * A broken connection (BROKEN event): as the peer's disconnect. In
	 * DISCONNECT_PENDING an error satisfies the first condition of the
	 * graceful disconnect (seed 002); the QP is in ERROR, its flush ends
	 * the DMA and then KDAPL_EP_EV_DISCONNECT_DONE follows, reported as
	 * BROKEN: the disconnect completed with a failure (seed 002).
	 */
	[KDAPL_EP_EV_CM_BROKEN] = {
	/*	UNC      UUN      RES      URE      PAS      UPA      ACT      TEN */
		NO,      NO,      NO,      NO,      NO,      NO,      TO(DIS), NO,
	/*	UTE      CON      DPN      DIS      CPN      CSP      CMP */
		NO,      TO(DIS), OK,      NO,      TO(DIS), NO,      NO },

	/*
	 * Both conditions of seed 002 hold (peer's disconnect or an error,
	 * and all DMA on the QP finished): the graceful disconnect completes,
	 * DISCONNECTED, DAT_CONNECTION_EVENT_DISCONNECTED (man).
	 */
	[KDAPL_EP_EV_DISCONNECT_DONE] = {
	/*	UNC      UUN      RES      URE      PAS      UPA      ACT      TEN */
		NO,      NO,      NO,      NO,      NO,      NO,      NO,      NO,
	/*	UTE      CON      DPN      DIS      CPN      CSP      CMP */
		NO,      NO,      TO(DIS), NO,      NO,      NO,      NO },
};

#undef NO
#undef OK
#undef TO

/**
 * struct kdapl_ep_state_info - per-state names
 * @name: the state's name without the DAT_EP_STATE_ prefix
 * @abbr: the three-letter column name of the printed table
 * @subtype: the DAT_INVALID_STATE subtype of a call refused in the state
 * @subtype_name: its spelling
 */
struct kdapl_ep_state_info {
	const char *name;
	const char *abbr;
	enum dat_return_subtype subtype;
	const char *subtype_name;
};

#define EP_STATE(s, a, sub) \
	[DAT_EP_STATE_##s] = { #s, #a, DAT_INVALID_STATE_EP_##sub, \
			       "DAT_INVALID_STATE_EP_" #sub }

/*
 * The subtype names the state the EP is in. The never-entered path
 * migration states have no subtype of their own and use CONNECTED's.
 */
static const struct kdapl_ep_state_info ep_states[KDAPL_EP_STATE_COUNT] = {
	EP_STATE(UNCONNECTED, UNC, UNCONNECTED),
	EP_STATE(UNCONFIGURED_UNCONNECTED, UUN, UNCONFIGURED),
	EP_STATE(RESERVED, RES, RESERVED),
	EP_STATE(UNCONFIGURED_RESERVED, URE, UNCONFRESERVED),
	EP_STATE(PASSIVE_CONNECTION_PENDING, PAS, PASSCONNPENDING),
	EP_STATE(UNCONFIGURED_PASSIVE, UPA, UNCONFPASSIVE),
	EP_STATE(ACTIVE_CONNECTION_PENDING, ACT, ACTCONNPENDING),
	EP_STATE(TENTATIVE_CONNECTION_PENDING, TEN, TENTCONNPENDING),
	EP_STATE(UNCONFIGURED_TENTATIVE, UTE, UNCONFTENTATIVE),
	EP_STATE(CONNECTED, CON, CONNECTED),
	EP_STATE(DISCONNECT_PENDING, DPN, DISCPENDING),
	EP_STATE(DISCONNECTED, DIS, DISCONNECTED),
	EP_STATE(COMPLETION_PENDING, CPN, COMPLPENDING),
	EP_STATE(CONNECTED_SINGLE_PATH, CSP, CONNECTED),
	EP_STATE(CONNECTED_MULTI_PATH, CMP, CONNECTED),
};

#undef EP_STATE

static const char * const ep_op_names[KDAPL_EP_OP_COUNT] = {
	[KDAPL_EP_OP_QUERY] = "query",
	[KDAPL_EP_OP_MODIFY] = "modify",
	[KDAPL_EP_OP_MODIFY_PZ] = "modify_pz",
	[KDAPL_EP_OP_CONNECT] = "connect",
	[KDAPL_EP_OP_DUP_CONNECT] = "dup_connect",
	[KDAPL_EP_OP_DUP_SOURCE] = "dup_source",
	[KDAPL_EP_OP_DISCONNECT_GRACEFUL] = "disconnect_graceful",
	[KDAPL_EP_OP_DISCONNECT_ABRUPT] = "disconnect_abrupt",
	[KDAPL_EP_OP_POST_SEND] = "post_send",
	[KDAPL_EP_OP_POST_RECV] = "post_recv",
	[KDAPL_EP_OP_POST_RDMA_READ] = "post_rdma_read",
	[KDAPL_EP_OP_POST_RDMA_WRITE] = "post_rdma_write",
	[KDAPL_EP_OP_RMR_BIND] = "rmr_bind",
	[KDAPL_EP_OP_RESET] = "reset",
	[KDAPL_EP_OP_FREE] = "free",
	[KDAPL_EP_OP_RSP_CREATE] = "rsp_create",
	[KDAPL_EP_OP_RSP_FREE] = "rsp_free",
	[KDAPL_EP_OP_CR_ACCEPT] = "cr_accept",
	[KDAPL_EP_OP_CR_REJECT] = "cr_reject",
	[KDAPL_EP_OP_CR_HANDOFF] = "cr_handoff",
	[KDAPL_EP_EV_CONFIGURED] = "configured",
	[KDAPL_EP_EV_UNCONFIGURED] = "unconfigured",
	[KDAPL_EP_EV_PSP_PROVIDER_EP] = "psp_provider_ep",
	[KDAPL_EP_EV_CM_REQUEST] = "cm_request",
	[KDAPL_EP_EV_CM_ESTABLISHED] = "cm_established",
	[KDAPL_EP_EV_CM_PEER_REJECTED] = "cm_peer_rejected",
	[KDAPL_EP_EV_CM_NON_PEER_REJECTED] = "cm_non_peer_rejected",
	[KDAPL_EP_EV_CM_UNREACHABLE] = "cm_unreachable",
	[KDAPL_EP_EV_TIMEOUT] = "timeout",
	[KDAPL_EP_EV_ACCEPT_ERROR] = "accept_error",
	[KDAPL_EP_EV_CM_DISCONNECTED] = "cm_disconnected",
	[KDAPL_EP_EV_CM_BROKEN] = "cm_broken",
	[KDAPL_EP_EV_DISCONNECT_DONE] = "disconnect_done",
};

static bool ep_state_valid(DAT_EP_STATE s)
{
	return (unsigned int)s < KDAPL_EP_STATE_COUNT;
}

static bool ep_op_valid(enum kdapl_ep_op op)
{
	return (unsigned int)op < KDAPL_EP_OP_COUNT;
}

/**
 * kdapl_ep_state_cell() - one cell of the table
 * @s: the EP's state
 * @op: the op or event
 *
 * Return: the cell, or NULL if @s or @op is out of range.
 * Context: any context.
 */
const struct kdapl_ep_cell *kdapl_ep_state_cell(DAT_EP_STATE s,
						enum kdapl_ep_op op)
{
	if (!ep_state_valid(s) || !ep_op_valid(op))
		return NULL;
	return &ep_table[op][s];
}
EXPORT_SYMBOL_NS_GPL(kdapl_ep_state_cell, KDAPL_INTERNAL);

static bool ep_cell_allowed(const struct kdapl_ep_cell *c)
{
	return c && (c->kind == KDAPL_EP_CELL_STAY ||
		     c->kind == KDAPL_EP_CELL_MOVE);
}

/**
 * kdapl_ep_state_subtype() - the DAT_INVALID_STATE subtype of a state
 * @s: the EP's state
 *
 * Return: e.g. DAT_INVALID_STATE_EP_CONNECTED for DAT_EP_STATE_CONNECTED;
 * DAT_NO_SUBTYPE for a value that is no state.
 * Context: any context.
 */
enum dat_return_subtype kdapl_ep_state_subtype(DAT_EP_STATE s)
{
	return ep_state_valid(s) ? ep_states[s].subtype : DAT_NO_SUBTYPE;
}
EXPORT_SYMBOL_NS_GPL(kdapl_ep_state_subtype, KDAPL_INTERNAL);

/**
 * kdapl_ep_state_check() - may @op happen to an EP in state @s?
 * @s: the EP's state
 * @op: the call or event
 *
 * The caller holds the EP's lock from this check to its state change.
 *
 * Return: DAT_SUCCESS; DAT_INVALID_STATE with the subtype of @s
 * (kdapl_ep_state_subtype()) if the table refuses; DAT_INTERNAL_ERROR
 * if @s or @op is out of range (a kdapl bug).
 * Context: any context.
 */
DAT_RETURN kdapl_ep_state_check(DAT_EP_STATE s, enum kdapl_ep_op op)
{
	const struct kdapl_ep_cell *c = kdapl_ep_state_cell(s, op);

	if (!c)
		return DAT_ERROR(DAT_INTERNAL_ERROR, DAT_NO_SUBTYPE);
	if (ep_cell_allowed(c))
		return DAT_SUCCESS;
	return DAT_ERROR(DAT_INVALID_STATE, ep_states[s].subtype);
}
EXPORT_SYMBOL_NS_GPL(kdapl_ep_state_check, KDAPL_INTERNAL);

/**
 * kdapl_ep_state_next() - the state after @op
 * @s: the EP's state
 * @op: the call or event
 * @next: set to the new state (@s itself if the op leaves it) when
 *	allowed; untouched otherwise
 *
 * Return: true if the table allows @op in @s, false if it refuses it or
 * @s or @op is out of range. For an event, false means a stale event:
 * drop it.
 * Context: any context.
 */
bool kdapl_ep_state_next(DAT_EP_STATE s, enum kdapl_ep_op op,
			 DAT_EP_STATE *next)
{
	const struct kdapl_ep_cell *c = kdapl_ep_state_cell(s, op);

	if (!ep_cell_allowed(c))
		return false;
	*next = c->kind == KDAPL_EP_CELL_MOVE ? (DAT_EP_STATE)c->next : s;
	return true;
}
EXPORT_SYMBOL_NS_GPL(kdapl_ep_state_next, KDAPL_INTERNAL);

/**
 * kdapl_ep_state_name() - a state's name
 * @s: the state
 *
 * Return: "UNCONNECTED", "CONNECTED", ... (no DAT_EP_STATE_ prefix), or
 * "INVALID" for a value that is no state.
 * Context: any context.
 */
const char *kdapl_ep_state_name(DAT_EP_STATE s)
{
	return ep_state_valid(s) ? ep_states[s].name : "INVALID";
}
EXPORT_SYMBOL_NS_GPL(kdapl_ep_state_name, KDAPL_INTERNAL);

/**
 * kdapl_ep_op_name() - an op's or event's name
 * @op: the op
 *
 * Return: "connect", "cm_established", ..., or "invalid" out of range.
 * Context: any context.
 */
const char *kdapl_ep_op_name(enum kdapl_ep_op op)
{
	return ep_op_valid(op) ? ep_op_names[op] : "invalid";
}
EXPORT_SYMBOL_NS_GPL(kdapl_ep_op_name, KDAPL_INTERNAL);

#define EP_OP_WIDTH	20	/* the longest op name: cm_non_peer_rejected */
#define EP_NAME_WIDTH	28	/* TENTATIVE_CONNECTION_PENDING */
#define EP_SUB_WIDTH	36	/* DAT_INVALID_STATE_EP_UNCONFTENTATIVE */

static void ep_rule(struct seq_file *m, int width)
{
	while (width-- > 0)
		seq_putc(m, '=');
}

static void ep_states_border(struct seq_file *m)
{
	ep_rule(m, 3);
	seq_puts(m, "  ");
	ep_rule(m, EP_NAME_WIDTH);
	seq_puts(m, "  ");
	ep_rule(m, EP_SUB_WIDTH);
	seq_putc(m, '\n');
}

static void ep_matrix_border(struct seq_file *m)
{
	int s;

	ep_rule(m, EP_OP_WIDTH);
	for (s = 0; s < KDAPL_EP_STATE_COUNT; s++) {
		seq_puts(m, "  ");
		ep_rule(m, 3);
	}
	seq_putc(m, '\n');
}

/**
 * kdapl_ep_state_table_print() - the whole table as reStructuredText
 * @m: where to print
 *
 * Two simple tables: the states (column name, name, refusal subtype),
 * then one row per op and event with a cell per state: "no" (refused),
 * "ok" (allowed, the state stays) or the column name of the state the EP
 * moves to; then the cell counts. Documentation/ep-states.rst embeds this
 * output verbatim.
 * Context: process context (seq_file).
 */
void kdapl_ep_state_table_print(struct seq_file *m)
{
	unsigned int allowed = 0, moves = 0, refused = 0;
	int s, op;

	seq_puts(m, "States\n------\n\n");
	ep_states_border(m);
	seq_printf(m, "%-3s  %-*s  %s\n", "col", EP_NAME_WIDTH, "state",
		   "refusal subtype");
	ep_states_border(m);
	for (s = 0; s < KDAPL_EP_STATE_COUNT; s++)
		seq_printf(m, "%-3s  %-*s  %s\n", ep_states[s].abbr,
			   EP_NAME_WIDTH, ep_states[s].name,
			   ep_states[s].subtype_name);
	ep_states_border(m);

	seq_puts(m, "\nTransitions\n-----------\n\n");
	seq_puts(m, "``no``: refused; ``ok``: allowed, the state stays; a column name: allowed,\n");
	seq_puts(m, "the EP moves to that state. Rows above ``configured`` are consumer calls,\n");
	seq_puts(m, "the others events.\n\n");
	ep_matrix_border(m);
	seq_printf(m, "%-*s", EP_OP_WIDTH, "op / event");
	for (s = 0; s < KDAPL_EP_STATE_COUNT; s++)
		seq_printf(m, "  %-3s", ep_states[s].abbr);
	seq_putc(m, '\n');
	ep_matrix_border(m);
	for (op = 0; op < KDAPL_EP_OP_COUNT; op++) {
		seq_printf(m, "%-*s", EP_OP_WIDTH, ep_op_names[op]);
		for (s = 0; s < KDAPL_EP_STATE_COUNT; s++) {
			const struct kdapl_ep_cell *c = &ep_table[op][s];
			const char *cell;

			switch (c->kind) {
			case KDAPL_EP_CELL_STAY:
				cell = "ok";
				allowed++;
				break;
			case KDAPL_EP_CELL_MOVE:
				cell = ep_states[c->next].abbr;
				allowed++;
				moves++;
				break;
			case KDAPL_EP_CELL_REFUSED:
				cell = "no";
				refused++;
				break;
			default:
				cell = "???";
				break;
			}
			/* no trailing blanks after the last column */
			seq_printf(m, s + 1 < KDAPL_EP_STATE_COUNT ?
				   "  %-3s" : "  %s", cell);
		}
		seq_putc(m, '\n');
	}
	ep_matrix_border(m);
	seq_printf(m, "\n%d states x %d ops and events: %u cells allowed (%u change the state), %u refused.\n",
		   KDAPL_EP_STATE_COUNT, KDAPL_EP_OP_COUNT, allowed, moves,
		   refused);
}
EXPORT_SYMBOL_NS_GPL(kdapl_ep_state_table_print, KDAPL_INTERNAL);
