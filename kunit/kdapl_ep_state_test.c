// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the endpoint state table (kdapl/ep_state.c).
 *
 * The cases walk the paths an EP takes (active connect and its failure
 * outcomes per seed 003, the passive side through an RSP and a PSP,
 * graceful and abrupt disconnect per seed 002, reset, free) and check
 * the table as a whole: every cell present and sane, every refusal
 * answered DAT_INVALID_STATE with the subtype of the EP's state, every
 * state reachable and none a trap, and Documentation/ep-states.rst still
 * showing what the code does.
 */

#include <kunit/test.h>
#include <linux/crc32.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <dat2/dat.h>

#include "../kdapl/ep_state.h"

MODULE_IMPORT_NS(KDAPL_INTERNAL);

#define UNC	DAT_EP_STATE_UNCONNECTED
#define UUN	DAT_EP_STATE_UNCONFIGURED_UNCONNECTED
#define RES	DAT_EP_STATE_RESERVED
#define URE	DAT_EP_STATE_UNCONFIGURED_RESERVED
#define PAS	DAT_EP_STATE_PASSIVE_CONNECTION_PENDING
#define UPA	DAT_EP_STATE_UNCONFIGURED_PASSIVE
#define ACT	DAT_EP_STATE_ACTIVE_CONNECTION_PENDING
#define TEN	DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING
#define UTE	DAT_EP_STATE_UNCONFIGURED_TENTATIVE
#define CON	DAT_EP_STATE_CONNECTED
#define DPN	DAT_EP_STATE_DISCONNECT_PENDING
#define DIS	DAT_EP_STATE_DISCONNECTED
#define CPN	DAT_EP_STATE_COMPLETION_PENDING
#define CSP	DAT_EP_STATE_CONNECTED_SINGLE_PATH
#define CMP	DAT_EP_STATE_CONNECTED_MULTI_PATH
#define NSTATES	KDAPL_EP_STATE_COUNT

/*
 * What Documentation/ep-states.rst shows: the counts printed under the
 * table and the CRC-32 (zlib's) and length of the whole rendering of
 * kdapl_ep_state_table_print(). A change to the table must regenerate
 * the document (see its "Regenerating" section) and update these.
 */
#define EP_DOC_ALLOWED	136
#define EP_DOC_MOVES	52
#define EP_DOC_REFUSED	359
#define EP_DOC_LEN	5116
#define EP_DOC_CRC32	0xec51f593U

/* The subtype of every state, spelled out independently of the code. */
static const enum dat_return_subtype want_subtype[NSTATES] = {
	[UNC] = DAT_INVALID_STATE_EP_UNCONNECTED,
	[UUN] = DAT_INVALID_STATE_EP_UNCONFIGURED,
	[RES] = DAT_INVALID_STATE_EP_RESERVED,
	[URE] = DAT_INVALID_STATE_EP_UNCONFRESERVED,
	[PAS] = DAT_INVALID_STATE_EP_PASSCONNPENDING,
	[UPA] = DAT_INVALID_STATE_EP_UNCONFPASSIVE,
	[ACT] = DAT_INVALID_STATE_EP_ACTCONNPENDING,
	[TEN] = DAT_INVALID_STATE_EP_TENTCONNPENDING,
	[UTE] = DAT_INVALID_STATE_EP_UNCONFTENTATIVE,
	[CON] = DAT_INVALID_STATE_EP_CONNECTED,
	[DPN] = DAT_INVALID_STATE_EP_DISCPENDING,
	[DIS] = DAT_INVALID_STATE_EP_DISCONNECTED,
	[CPN] = DAT_INVALID_STATE_EP_COMPLPENDING,
	[CSP] = DAT_INVALID_STATE_EP_CONNECTED,
	[CMP] = DAT_INVALID_STATE_EP_CONNECTED,
};

static bool allowed(DAT_EP_STATE s, enum kdapl_ep_op op)
{
	return kdapl_ep_state_check(s, op) == DAT_SUCCESS;
}

static bool unconfigured(DAT_EP_STATE s)
{
	return s == UUN || s == URE || s == UPA || s == UTE;
}

/* @op is allowed in @s and leads to @to; returns @to to chain steps. */
static DAT_EP_STATE step(struct kunit *test, DAT_EP_STATE s,
			 enum kdapl_ep_op op, DAT_EP_STATE to)
{
	DAT_EP_STATE next = NSTATES;

	KUNIT_EXPECT_EQ_MSG(test, kdapl_ep_state_check(s, op), DAT_SUCCESS,
			    "%s in %s", kdapl_ep_op_name(op),
			    kdapl_ep_state_name(s));
	KUNIT_EXPECT_TRUE_MSG(test, kdapl_ep_state_next(s, op, &next),
			      "%s in %s", kdapl_ep_op_name(op),
			      kdapl_ep_state_name(s));
	KUNIT_EXPECT_EQ_MSG(test, next, to, "%s in %s: got %s, want %s",
			    kdapl_ep_op_name(op), kdapl_ep_state_name(s),
			    kdapl_ep_state_name(next), kdapl_ep_state_name(to));
	return to;
}

/* @op is refused in @s with the subtype of @s; next() leaves *next. */
static void refused(struct kunit *test, DAT_EP_STATE s, enum kdapl_ep_op op)
{
	DAT_EP_STATE next = NSTATES;

	KUNIT_EXPECT_EQ_MSG(test, kdapl_ep_state_check(s, op),
			    DAT_ERROR(DAT_INVALID_STATE, want_subtype[s]),
			    "%s in %s", kdapl_ep_op_name(op),
			    kdapl_ep_state_name(s));
	KUNIT_EXPECT_FALSE_MSG(test, kdapl_ep_state_next(s, op, &next),
			       "%s in %s", kdapl_ep_op_name(op),
			       kdapl_ep_state_name(s));
	KUNIT_EXPECT_EQ(test, next, (DAT_EP_STATE)NSTATES);
}

/* Every state and op has a distinct name; out of range is recognisable. */
static void ep_state_test_names(struct kunit *test)
{
	int a, b;

	for (a = 0; a < NSTATES; a++) {
		const char *n = kdapl_ep_state_name(a);

		KUNIT_ASSERT_NOT_NULL(test, n);
		KUNIT_EXPECT_GT(test, strlen(n), 0UL);
		KUNIT_EXPECT_STRNEQ(test, n, "INVALID");
		for (b = 0; b < a; b++)
			KUNIT_EXPECT_STRNEQ(test, n, kdapl_ep_state_name(b));
	}
	for (a = 0; a < KDAPL_EP_OP_COUNT; a++) {
		const char *n = kdapl_ep_op_name(a);

		KUNIT_ASSERT_NOT_NULL(test, n);
		KUNIT_EXPECT_GT(test, strlen(n), 0UL);
		KUNIT_EXPECT_STRNEQ(test, n, "invalid");
		for (b = 0; b < a; b++)
			KUNIT_EXPECT_STRNEQ(test, n, kdapl_ep_op_name(b));
	}
	KUNIT_EXPECT_STREQ(test, kdapl_ep_state_name(UNC), "UNCONNECTED");
	KUNIT_EXPECT_STREQ(test, kdapl_ep_state_name(TEN),
			   "TENTATIVE_CONNECTION_PENDING");
	KUNIT_EXPECT_STREQ(test, kdapl_ep_state_name(CMP),
			   "CONNECTED_MULTI_PATH");
	KUNIT_EXPECT_STREQ(test, kdapl_ep_op_name(KDAPL_EP_OP_QUERY), "query");
	KUNIT_EXPECT_STREQ(test, kdapl_ep_op_name(KDAPL_EP_OP_POST_RECV),
			   "post_recv");
	KUNIT_EXPECT_STREQ(test,
			   kdapl_ep_op_name(KDAPL_EP_EV_DISCONNECT_DONE),
			   "disconnect_done");
	KUNIT_EXPECT_STREQ(test, kdapl_ep_state_name(NSTATES), "INVALID");
	KUNIT_EXPECT_STREQ(test, kdapl_ep_state_name(-1), "INVALID");
	KUNIT_EXPECT_STREQ(test, kdapl_ep_op_name(KDAPL_EP_OP_COUNT),
			   "invalid");
}

/*
 * Every (state, op) cell is present and sane, check() and next() agree,
 * and values out of range are a kdapl bug, not a state error.
 */
static void ep_state_test_complete(struct kunit *test)
{
	DAT_EP_STATE next = NSTATES;
	int s, op;

	for (op = 0; op < KDAPL_EP_OP_COUNT; op++) {
		for (s = 0; s < NSTATES; s++) {
			const struct kdapl_ep_cell *c =
				kdapl_ep_state_cell(s, op);
			DAT_EP_STATE n = NSTATES;
			bool ok;

			KUNIT_ASSERT_NOT_NULL(test, c);
			KUNIT_EXPECT_TRUE_MSG(test,
					      c->kind == KDAPL_EP_CELL_REFUSED ||
					      c->kind == KDAPL_EP_CELL_STAY ||
					      c->kind == KDAPL_EP_CELL_MOVE,
					      "no entry for %s in %s",
					      kdapl_ep_op_name(op),
					      kdapl_ep_state_name(s));
			if (c->kind == KDAPL_EP_CELL_MOVE) {
				KUNIT_EXPECT_LT(test, c->next, NSTATES);
				/* a move to itself would be spelled OK */
				KUNIT_EXPECT_NE(test, c->next, s);
				/* nothing enters the path migration states */
				KUNIT_EXPECT_NE(test, c->next, CSP);
				KUNIT_EXPECT_NE(test, c->next, CMP);
			}
			ok = kdapl_ep_state_next(s, op, &n);
			KUNIT_EXPECT_EQ(test, ok, allowed(s, op));
			if (ok)
				KUNIT_EXPECT_LT(test, n, NSTATES);
		}
	}
	/* query and get_status: always allowed, never a change */
	for (s = 0; s < NSTATES; s++)
		step(test, s, KDAPL_EP_OP_QUERY, s);

	KUNIT_EXPECT_NULL(test, kdapl_ep_state_cell(NSTATES, 0));
	KUNIT_EXPECT_NULL(test, kdapl_ep_state_cell(0, KDAPL_EP_OP_COUNT));
	KUNIT_EXPECT_EQ(test, kdapl_ep_state_check(NSTATES, KDAPL_EP_OP_QUERY),
			DAT_ERROR(DAT_INTERNAL_ERROR, DAT_NO_SUBTYPE));
	KUNIT_EXPECT_EQ(test, kdapl_ep_state_check(UNC, KDAPL_EP_OP_COUNT),
			DAT_ERROR(DAT_INTERNAL_ERROR, DAT_NO_SUBTYPE));
	KUNIT_EXPECT_EQ(test, kdapl_ep_state_check(-1, KDAPL_EP_OP_QUERY),
			DAT_ERROR(DAT_INTERNAL_ERROR, DAT_NO_SUBTYPE));
	KUNIT_EXPECT_FALSE(test, kdapl_ep_state_next(NSTATES, 0, &next));
	KUNIT_EXPECT_FALSE(test, kdapl_ep_state_next(UNC, KDAPL_EP_OP_COUNT,
						     &next));
	KUNIT_EXPECT_EQ(test, next, (DAT_EP_STATE)NSTATES);
	KUNIT_EXPECT_EQ(test, kdapl_ep_state_subtype(NSTATES), DAT_NO_SUBTYPE);
}

/* Every refused call answers DAT_INVALID_STATE naming the EP's state. */
static void ep_state_test_refusal_subtypes(struct kunit *test)
{
	int s, op, n = 0;

	for (s = 0; s < NSTATES; s++) {
		KUNIT_EXPECT_EQ(test, kdapl_ep_state_subtype(s),
				want_subtype[s]);
		for (op = 0; op < KDAPL_EP_OP_COUNT; op++) {
			if (allowed(s, op))
				continue;
			refused(test, s, op);
			n++;
		}
	}
	KUNIT_EXPECT_EQ(test, n, EP_DOC_REFUSED);
}

/*
 * Every state but the two path migration ones is reachable from the
 * creation states (UNCONNECTED, UNCONFIGURED_UNCONNECTED), and from every
 * state a consumer can get to one where dat_ep_free is allowed: no trap.
 */
static void ep_state_test_reachability(struct kunit *test)
{
	bool reach[NSTATES] = { [UNC] = true, [UUN] = true };
	bool freeable[NSTATES] = { };
	bool more = true;
	int s, op;

	while (more) {
		more = false;
		for (s = 0; s < NSTATES; s++) {
			for (op = 0; op < KDAPL_EP_OP_COUNT; op++) {
				DAT_EP_STATE n;

				if (!kdapl_ep_state_next(s, op, &n))
					continue;
				if (reach[s] && !reach[n]) {
					reach[n] = true;
					more = true;
				}
				if (!freeable[s] &&
				    (op == KDAPL_EP_OP_FREE || freeable[n])) {
					freeable[s] = true;
					more = true;
				}
			}
		}
	}
	for (s = 0; s < NSTATES; s++) {
		KUNIT_EXPECT_EQ_MSG(test, reach[s], s != CSP && s != CMP,
				    "%s", kdapl_ep_state_name(s));
		KUNIT_EXPECT_TRUE_MSG(test, freeable[s], "%s is a trap",
				      kdapl_ep_state_name(s));
	}
}

/*
 * Active side (seed 003): connect from UNCONNECTED only, ESTABLISHED ends
 * in CONNECTED; an EP without PZ has no QP and cannot connect (seed 001);
 * the PZ can be changed (QP replaced) before the connect, not after.
 */
static void ep_state_test_active_connect(struct kunit *test)
{
	DAT_EP_STATE s = UUN;

	refused(test, s, KDAPL_EP_OP_CONNECT);
	refused(test, s, KDAPL_EP_OP_POST_RECV);
	s = step(test, s, KDAPL_EP_OP_MODIFY_PZ, UUN);
	s = step(test, s, KDAPL_EP_EV_CONFIGURED, UNC);
	s = step(test, s, KDAPL_EP_OP_MODIFY_PZ, UNC);
	s = step(test, s, KDAPL_EP_OP_POST_RECV, UNC);
	refused(test, s, KDAPL_EP_OP_POST_SEND);
	s = step(test, s, KDAPL_EP_OP_CONNECT, ACT);
	refused(test, s, KDAPL_EP_OP_CONNECT);
	refused(test, s, KDAPL_EP_OP_MODIFY_PZ);
	refused(test, s, KDAPL_EP_OP_MODIFY);
	refused(test, s, KDAPL_EP_OP_POST_SEND);
	s = step(test, s, KDAPL_EP_OP_POST_RECV, ACT);
	s = step(test, s, KDAPL_EP_EV_CM_ESTABLISHED, CON);
	refused(test, s, KDAPL_EP_OP_CONNECT);
	refused(test, s, KDAPL_EP_OP_MODIFY_PZ);
	refused(test, s, KDAPL_EP_EV_CM_ESTABLISHED);
	step(test, s, KDAPL_EP_OP_DUP_SOURCE, CON);

	step(test, UNC, KDAPL_EP_OP_DUP_CONNECT, ACT);
	refused(test, UUN, KDAPL_EP_OP_DUP_CONNECT);
	refused(test, ACT, KDAPL_EP_OP_DUP_SOURCE);
	refused(test, DIS, KDAPL_EP_OP_CONNECT);
}

/*
 * Seed 003: PEER_REJECTED, NON_PEER_REJECTED, UNREACHABLE and TIMED_OUT
 * all leave the EP DISCONNECTED; events arriving after that are stale.
 */
static void ep_state_test_connect_outcomes(struct kunit *test)
{
	static const enum kdapl_ep_op fail[] = {
		KDAPL_EP_EV_CM_PEER_REJECTED,
		KDAPL_EP_EV_CM_NON_PEER_REJECTED,
		KDAPL_EP_EV_CM_UNREACHABLE,
		KDAPL_EP_EV_TIMEOUT,
		KDAPL_EP_EV_CM_DISCONNECTED,
		KDAPL_EP_EV_CM_BROKEN,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fail); i++)
		step(test, ACT, fail[i], DIS);
	/* the connect outcomes mean nothing once connected */
	for (i = 0; i < 4; i++)
		refused(test, CON, fail[i]);
	/* after the failure: late outcomes are stale, the EP is reusable */
	refused(test, DIS, KDAPL_EP_EV_CM_ESTABLISHED);
	refused(test, DIS, KDAPL_EP_EV_CM_PEER_REJECTED);
	refused(test, DIS, KDAPL_EP_EV_TIMEOUT);
	refused(test, DIS, KDAPL_EP_EV_CM_DISCONNECTED);
	step(test, DIS, KDAPL_EP_OP_RESET, UNC);
	/* the consumer aborts a pending connect: DISCONNECTED (man) */
	step(test, ACT, KDAPL_EP_OP_DISCONNECT_GRACEFUL, DIS);
	step(test, ACT, KDAPL_EP_OP_DISCONNECT_ABRUPT, DIS);
	step(test, ACT, KDAPL_EP_OP_FREE, ACT);
}

/*
 * Passive side through an RSP: RESERVED, the request makes it PASSIVE,
 * accept leads through COMPLETION_PENDING to CONNECTED; reject and
 * dat_rsp_free give the EP back UNCONNECTED; the RSP is one shot.
 */
static void ep_state_test_passive_rsp(struct kunit *test)
{
	DAT_EP_STATE s;

	s = step(test, UNC, KDAPL_EP_OP_RSP_CREATE, RES);
	refused(test, s, KDAPL_EP_OP_RSP_CREATE);
	refused(test, s, KDAPL_EP_OP_CONNECT);
	refused(test, s, KDAPL_EP_OP_FREE);
	refused(test, s, KDAPL_EP_OP_MODIFY_PZ);
	refused(test, s, KDAPL_EP_OP_CR_ACCEPT);
	step(test, s, KDAPL_EP_OP_MODIFY, RES);
	step(test, s, KDAPL_EP_OP_POST_RECV, RES);
	step(test, s, KDAPL_EP_OP_RSP_FREE, UNC);
	s = step(test, s, KDAPL_EP_EV_CM_REQUEST, PAS);
	refused(test, s, KDAPL_EP_EV_CM_REQUEST);
	refused(test, s, KDAPL_EP_OP_FREE);
	refused(test, s, KDAPL_EP_OP_DISCONNECT_ABRUPT);
	step(test, s, KDAPL_EP_OP_RSP_FREE, PAS);
	step(test, s, KDAPL_EP_OP_CR_REJECT, UNC);
	step(test, s, KDAPL_EP_OP_CR_HANDOFF, UNC);
	s = step(test, s, KDAPL_EP_OP_CR_ACCEPT, CPN);
	refused(test, s, KDAPL_EP_OP_CR_ACCEPT);
	refused(test, s, KDAPL_EP_OP_POST_SEND);
	step(test, s, KDAPL_EP_OP_POST_RECV, CPN);
	step(test, s, KDAPL_EP_EV_ACCEPT_ERROR, DIS);
	s = step(test, s, KDAPL_EP_EV_CM_ESTABLISHED, CON);
	step(test, s, KDAPL_EP_OP_RSP_FREE, CON);

	/* without a PZ the reserved EP goes the UNCONFIGURED way */
	s = step(test, UUN, KDAPL_EP_OP_RSP_CREATE, URE);
	step(test, s, KDAPL_EP_OP_RSP_FREE, UUN);
	s = step(test, s, KDAPL_EP_EV_CM_REQUEST, UPA);
	refused(test, s, KDAPL_EP_OP_CR_ACCEPT);
	step(test, s, KDAPL_EP_OP_CR_REJECT, UUN);
	s = step(test, s, KDAPL_EP_OP_MODIFY_PZ, UPA);
	s = step(test, s, KDAPL_EP_EV_CONFIGURED, PAS);
	step(test, s, KDAPL_EP_OP_CR_ACCEPT, CPN);
}

/*
 * Passive side through a PSP: a consumer EP is accepted from UNCONNECTED;
 * a provider EP arrives TENTATIVE (normally UNCONFIGURED: no PZ), gets a
 * PZ, is accepted; rejected, it goes back UNCONNECTED to be freed.
 */
static void ep_state_test_passive_psp(struct kunit *test)
{
	DAT_EP_STATE s;

	step(test, UNC, KDAPL_EP_OP_CR_ACCEPT, CPN);
	refused(test, UUN, KDAPL_EP_OP_CR_ACCEPT);

	s = step(test, UUN, KDAPL_EP_EV_PSP_PROVIDER_EP, UTE);
	refused(test, s, KDAPL_EP_OP_CR_ACCEPT);
	refused(test, s, KDAPL_EP_OP_FREE);
	refused(test, s, KDAPL_EP_OP_POST_RECV);
	step(test, s, KDAPL_EP_OP_CR_REJECT, UUN);
	s = step(test, s, KDAPL_EP_OP_MODIFY_PZ, UTE);
	s = step(test, s, KDAPL_EP_EV_CONFIGURED, TEN);
	refused(test, s, KDAPL_EP_OP_FREE);
	refused(test, s, KDAPL_EP_OP_CONNECT);
	refused(test, s, KDAPL_EP_OP_DISCONNECT_GRACEFUL);
	step(test, s, KDAPL_EP_OP_POST_RECV, TEN);
	step(test, s, KDAPL_EP_OP_MODIFY_PZ, TEN);
	step(test, step(test, s, KDAPL_EP_OP_CR_REJECT, UNC),
	     KDAPL_EP_OP_FREE, UNC);
	step(test, s, KDAPL_EP_OP_CR_HANDOFF, UNC);
	step(test, s, KDAPL_EP_EV_UNCONFIGURED, UTE);
	s = step(test, s, KDAPL_EP_OP_CR_ACCEPT, CPN);
	step(test, s, KDAPL_EP_OP_DISCONNECT_ABRUPT, DIS);
	step(test, s, KDAPL_EP_EV_CM_ESTABLISHED, CON);

	step(test, UNC, KDAPL_EP_EV_PSP_PROVIDER_EP, TEN);
	refused(test, CON, KDAPL_EP_EV_PSP_PROVIDER_EP);
}

/*
 * Seed 002 and dat_ep_disconnect(3DAT): graceful waits in
 * DISCONNECT_PENDING for the peer's disconnect (or an error) and the end
 * of all DMA; no new requests meanwhile; a second graceful call changes
 * nothing, an abrupt one ends the wait, and so does the bounded wait.
 */
static void ep_state_test_graceful_disconnect(struct kunit *test)
{
	DAT_EP_STATE s = step(test, CON, KDAPL_EP_OP_DISCONNECT_GRACEFUL, DPN);

	refused(test, s, KDAPL_EP_OP_POST_SEND);
	refused(test, s, KDAPL_EP_OP_POST_RDMA_READ);
	refused(test, s, KDAPL_EP_OP_POST_RDMA_WRITE);
	refused(test, s, KDAPL_EP_OP_RMR_BIND);
	refused(test, s, KDAPL_EP_OP_RESET);
	step(test, s, KDAPL_EP_OP_POST_RECV, DPN);
	step(test, s, KDAPL_EP_OP_DISCONNECT_GRACEFUL, DPN);
	step(test, s, KDAPL_EP_EV_CM_DISCONNECTED, DPN);
	step(test, s, KDAPL_EP_EV_CM_BROKEN, DPN);
	step(test, s, KDAPL_EP_OP_DISCONNECT_ABRUPT, DIS);
	step(test, s, KDAPL_EP_EV_TIMEOUT, DIS);
	s = step(test, s, KDAPL_EP_EV_DISCONNECT_DONE, DIS);
	refused(test, s, KDAPL_EP_EV_DISCONNECT_DONE);
	refused(test, s, KDAPL_EP_EV_CM_DISCONNECTED);
	step(test, s, KDAPL_EP_OP_DISCONNECT_GRACEFUL, DIS);

	/* the peer's side: one DISCONNECTED (or BROKEN), at once */
	step(test, CON, KDAPL_EP_EV_CM_DISCONNECTED, DIS);
	step(test, CON, KDAPL_EP_EV_CM_BROKEN, DIS);
	refused(test, CON, KDAPL_EP_EV_DISCONNECT_DONE);
	refused(test, CON, KDAPL_EP_EV_TIMEOUT);
}

/*
 * Abrupt: CONNECTED straight to DISCONNECTED, flushing everything; a
 * no-op when already DISCONNECTED; aborts a connection being set up;
 * disallowed where there is no connection to end (man).
 */
static void ep_state_test_abrupt_disconnect(struct kunit *test)
{
	static const DAT_EP_STATE no_disconnect[] = {
		UNC, UUN, RES, URE, PAS, UPA, TEN, UTE, CSP, CMP,
	};
	unsigned int i;

	step(test, CON, KDAPL_EP_OP_DISCONNECT_ABRUPT, DIS);
	step(test, DPN, KDAPL_EP_OP_DISCONNECT_ABRUPT, DIS);
	step(test, DIS, KDAPL_EP_OP_DISCONNECT_ABRUPT, DIS);
	step(test, ACT, KDAPL_EP_OP_DISCONNECT_ABRUPT, DIS);
	step(test, CPN, KDAPL_EP_OP_DISCONNECT_ABRUPT, DIS);
	step(test, CPN, KDAPL_EP_OP_DISCONNECT_GRACEFUL, DIS);
	for (i = 0; i < ARRAY_SIZE(no_disconnect); i++) {
		refused(test, no_disconnect[i], KDAPL_EP_OP_DISCONNECT_ABRUPT);
		refused(test, no_disconnect[i],
			KDAPL_EP_OP_DISCONNECT_GRACEFUL);
	}
}

/*
 * Posts: send, RDMA read/write and RMR bind in CONNECTED and (flushed at
 * once) DISCONNECTED only; receives in every state that has a QP.
 */
static void ep_state_test_posts(struct kunit *test)
{
	static const enum kdapl_ep_op req[] = {
		KDAPL_EP_OP_POST_SEND, KDAPL_EP_OP_POST_RDMA_READ,
		KDAPL_EP_OP_POST_RDMA_WRITE, KDAPL_EP_OP_RMR_BIND,
	};
	unsigned int i;
	int s;

	for (s = 0; s < NSTATES; s++) {
		bool rq = s == CON || s == DIS;
		bool rv = !unconfigured(s) && s != CSP && s != CMP;

		for (i = 0; i < ARRAY_SIZE(req); i++) {
			if (rq)
				step(test, s, req[i], s);
			else
				refused(test, s, req[i]);
		}
		if (rv)
			step(test, s, KDAPL_EP_OP_POST_RECV, s);
		else
			refused(test, s, KDAPL_EP_OP_POST_RECV);
	}
}

/*
 * dat_ep_reset: DISCONNECTED -> UNCONNECTED, a no-op when UNCONNECTED,
 * DAT_INVALID_STATE elsewhere. dat_ep_free: everywhere but the reserved
 * and CR-owned states, never changing the state it destroys.
 */
static void ep_state_test_reset_and_free(struct kunit *test)
{
	int s;

	for (s = 0; s < NSTATES; s++) {
		bool owned = s == RES || s == URE || s == PAS || s == UPA ||
			     s == TEN || s == UTE;

		if (s == DIS)
			step(test, s, KDAPL_EP_OP_RESET, UNC);
		else if (s == UNC || s == UUN)
			step(test, s, KDAPL_EP_OP_RESET, s);
		else
			refused(test, s, KDAPL_EP_OP_RESET);

		if (owned)
			refused(test, s, KDAPL_EP_OP_FREE);
		else
			step(test, s, KDAPL_EP_OP_FREE, s);
	}
}

/*
 * Documentation/ep-states.rst embeds the rendering of the table: same
 * counts, same bytes (length and CRC-32), or the document is stale.
 */
static void ep_state_test_doc_in_sync(struct kunit *test)
{
	const size_t size = 16384;
	unsigned int allowed_n = 0, moves = 0, refused_n = 0;
	struct seq_file *m;
	char line[96];
	int s, op;
	u32 crc;

	for (op = 0; op < KDAPL_EP_OP_COUNT; op++) {
		for (s = 0; s < NSTATES; s++) {
			const struct kdapl_ep_cell *c =
				kdapl_ep_state_cell(s, op);

			if (c->kind == KDAPL_EP_CELL_REFUSED) {
				refused_n++;
				continue;
			}
			allowed_n++;
			if (c->kind == KDAPL_EP_CELL_MOVE)
				moves++;
		}
	}
	KUNIT_EXPECT_EQ(test, allowed_n, EP_DOC_ALLOWED);
	KUNIT_EXPECT_EQ(test, moves, EP_DOC_MOVES);
	KUNIT_EXPECT_EQ(test, refused_n, EP_DOC_REFUSED);

	m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m);
	m->buf = kunit_kzalloc(test, size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m->buf);
	m->size = size;
	kdapl_ep_state_table_print(m);
	KUNIT_ASSERT_FALSE(test, seq_has_overflowed(m));

	snprintf(line, sizeof(line),
		 "%u cells allowed (%u change the state), %u refused.\n",
		 allowed_n, moves, refused_n);
	KUNIT_EXPECT_NOT_NULL(test, strnstr(m->buf, line, m->count));
	crc = ~crc32_le(~0U, m->buf, m->count);
	KUNIT_EXPECT_EQ(test, m->count, (size_t)EP_DOC_LEN);
	KUNIT_EXPECT_EQ_MSG(test, crc, EP_DOC_CRC32, "crc32 0x%08x", crc);
}

static struct kunit_case kdapl_ep_state_cases[] = {
	KUNIT_CASE(ep_state_test_names),
	KUNIT_CASE(ep_state_test_complete),
	KUNIT_CASE(ep_state_test_refusal_subtypes),
	KUNIT_CASE(ep_state_test_reachability),
	KUNIT_CASE(ep_state_test_active_connect),
	KUNIT_CASE(ep_state_test_connect_outcomes),
	KUNIT_CASE(ep_state_test_passive_rsp),
	KUNIT_CASE(ep_state_test_passive_psp),
	KUNIT_CASE(ep_state_test_graceful_disconnect),
	KUNIT_CASE(ep_state_test_abrupt_disconnect),
	KUNIT_CASE(ep_state_test_posts),
	KUNIT_CASE(ep_state_test_reset_and_free),
	KUNIT_CASE(ep_state_test_doc_in_sync),
	{}
};

static struct kunit_suite kdapl_ep_state_suite = {
	.name = "kdapl_ep_state",
	.test_cases = kdapl_ep_state_cases,
};

kunit_test_suites(&kdapl_ep_state_suite);

MODULE_DESCRIPTION("KUnit tests for the kdapl endpoint state table");
MODULE_LICENSE("GPL");
