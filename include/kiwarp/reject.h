/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The private data of a connection reject that no consumer made.
 *
 * An MPA reject Reply (RFC 5044, RFC 6581) carries no reason, only private
 * data, so a requester cannot tell a remote consumer's refusal from one
 * the remote provider or DAT layer made on its own: a full RSP, a service
 * point freed while the request was on its way, a request the provider
 * cannot serve (markers, an impossible RTR) or could not hand to anyone
 * (iw_cm's backlog full). DAT tells them apart (dat_ep_connect:
 * DAT_CONNECTION_EVENT_PEER_REJECTED is the remote consumer's reject,
 * NON_PEER_REJECTED everything else), so kiwarp and kdapl send exactly
 * these bytes as the private data of such a reject, and kdapl reads a
 * reject carrying exactly them (over IB: starting with them, the REJ's
 * private data having a fixed size) as not the consumer's. A consumer
 * that rejects with these very bytes is read as a non-peer reject too.
 * Over IB, kdapl's own rejects also carry the reason
 * IB_CM_REJ_INVALID_SERVICE_ID instead of IB_CM_REJ_CONSUMER_DEFINED.
 */
#ifndef KIWARP_REJECT_H
#define KIWARP_REJECT_H

#include <linux/string.h>
#include <linux/types.h>

#define KIWARP_NONPEER_REJECT		"\0kiwarp-nonpeer"
#define KIWARP_NONPEER_REJECT_LEN	16	/* the final NUL included */
static_assert(sizeof(KIWARP_NONPEER_REJECT) == KIWARP_NONPEER_REJECT_LEN);

/**
 * kiwarp_nonpeer_reject() - is this a reject no consumer made?
 * @pdata: the reject's private data
 * @len: its length
 * @prefix: @pdata may be longer (IB: fixed-size REJ private data)
 *
 * Return: true if @pdata is the non-peer marker.
 */
static inline bool kiwarp_nonpeer_reject(const void *pdata, size_t len,
					 bool prefix)
{
	if (!pdata || len < KIWARP_NONPEER_REJECT_LEN ||
	    (!prefix && len != KIWARP_NONPEER_REJECT_LEN))
		return false;
	return !memcmp(pdata, KIWARP_NONPEER_REJECT,
		       KIWARP_NONPEER_REJECT_LEN);
}

#endif /* KIWARP_REJECT_H */
