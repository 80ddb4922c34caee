// SPDX-License-Identifier: GPL-2.0
/*
 * kiwarp: MPA connection setup frames (RFC 5044 section 7.1) with the
 * RFC 6581 enhanced connection establishment block. The wire layout and
 * the exact rules implemented are described in mpa.h.
 *
 * No kernel-only calls here: this file is also compiled into the host
 * tests (tools/proto/). All lengths are checked before any access; the
 * arithmetic is done in size_t on values bounded by u16, so it cannot
 * wrap.
 */

/* Exports are kernel only; shim.h turns them into no-ops on the host */
#ifdef __KERNEL__
#include <linux/export.h>
#include <linux/module.h>
#endif

#include "mpa.h"

static u16 mpa_min_u16(u16 a, u16 b)
{
	return a < b ? a : b;
}

static bool mpa_rev_valid(u8 rev)
{
	return rev == MPA_REVISION_1 || rev == MPA_REVISION_2;
}

/* Any RFC 6581 field set in @fi */
static bool mpa_v2_fields_set(const struct mpa_frame_info *fi)
{
	return fi->v2_enhanced || fi->ird || fi->ord || fi->p2p ||
	       fi->zero_len_rtr || fi->write_rtr || fi->read_rtr;
}

int mpa_frame_encode(const struct mpa_frame_info *fi, const void *pd,
		     u16 pd_len, u8 *buf, size_t buflen)
{
	const char *key;
	size_t total_pd, frame_len;
	u8 flags = 0;
	u8 *p;

	if (fi->kind == MPA_KIND_REQUEST)
		key = MPA_KEY_REQ;
	else if (fi->kind == MPA_KIND_REPLY)
		key = MPA_KEY_REP;
	else
		return -EINVAL;

	if (!mpa_rev_valid(fi->rev))
		return -EINVAL;
	if (fi->reject && fi->kind != MPA_KIND_REPLY)
		return -EINVAL;
	if (pd_len && !pd)
		return -EINVAL;

	if (fi->v2_enhanced) {
		if (fi->rev != MPA_REVISION_2)
			return -EINVAL;
		if (fi->ird > MPA_V2_IRD_ORD_MAX ||
		    fi->ord > MPA_V2_IRD_ORD_MAX)
			return -EINVAL;
		if (!fi->p2p &&
		    (fi->zero_len_rtr || fi->write_rtr || fi->read_rtr))
			return -EINVAL;
	} else if (mpa_v2_fields_set(fi)) {
		return -EINVAL;
	}

	total_pd = (size_t)pd_len + (fi->v2_enhanced ? MPA_V2_BLOCK_LEN : 0);
	if (total_pd > MPA_MAX_PRIVDATA)
		return -EMSGSIZE;
	frame_len = MPA_RR_HDR_LEN + total_pd;
	if (!buf || buflen < frame_len)
		return -EMSGSIZE;

	if (fi->markers)
		flags |= MPA_FLAG_MARKERS;
	if (fi->crc)
		flags |= MPA_FLAG_CRC;
	if (fi->reject)
		flags |= MPA_FLAG_REJECT;
	if (fi->v2_enhanced)
		flags |= MPA_FLAG_ENHANCED;
	if (fi->large_fpdu)
		flags |= MPA_FLAG_GSO_EXP;

	memcpy(buf, key, MPA_KEY_LEN);
	buf[MPA_RR_OFF_FLAGS] = flags;
	buf[MPA_RR_OFF_REV] = fi->rev;
	put_unaligned_be16((u16)total_pd, buf + MPA_RR_OFF_PD_LEN);

	p = buf + MPA_RR_HDR_LEN;
	if (fi->v2_enhanced) {
		u16 ird = fi->ird;
		u16 ord = fi->ord;

		if (fi->p2p)
			ird |= MPA_V2_PEER_TO_PEER;
		if (fi->zero_len_rtr)
			ird |= MPA_V2_ZERO_LENGTH_RTR;
		if (fi->write_rtr)
			ord |= MPA_V2_RDMA_WRITE_RTR;
		if (fi->read_rtr)
			ord |= MPA_V2_RDMA_READ_RTR;
		put_unaligned_be16(ird, p);
		put_unaligned_be16(ord, p + 2);
		p += MPA_V2_BLOCK_LEN;
	}
	if (pd_len)
		memcpy(p, pd, pd_len);

	return (int)frame_len;
}
EXPORT_SYMBOL_NS_GPL(mpa_frame_encode, KIWARP_INTERNAL);

int mpa_frame_decode_header(const u8 *buf, size_t len,
			    struct mpa_frame_info *fi, u16 *total_pd_len)
{
	struct mpa_frame_info out;
	u16 total;
	u8 flags;

	if (fi->kind != MPA_KIND_ANY && fi->kind != MPA_KIND_REQUEST &&
	    fi->kind != MPA_KIND_REPLY)
		return -EINVAL;
	if (!buf || len < MPA_RR_HDR_LEN)
		return -EAGAIN;

	memset(&out, 0, sizeof(out));
	if (!memcmp(buf, MPA_KEY_REQ, MPA_KEY_LEN))
		out.kind = MPA_KIND_REQUEST;
	else if (!memcmp(buf, MPA_KEY_REP, MPA_KEY_LEN))
		out.kind = MPA_KIND_REPLY;
	else
		return -EPROTO;
	if (fi->kind != MPA_KIND_ANY && fi->kind != out.kind)
		return -EPROTO;

	out.rev = buf[MPA_RR_OFF_REV];
	if (!mpa_rev_valid(out.rev))
		return -EPROTO;

	total = get_unaligned_be16(buf + MPA_RR_OFF_PD_LEN);
	if (total > MPA_MAX_PRIVDATA)
		return -EPROTO;

	flags = buf[MPA_RR_OFF_FLAGS];
	out.markers = !!(flags & MPA_FLAG_MARKERS);
	out.crc = !!(flags & MPA_FLAG_CRC);
	out.reject = !!(flags & MPA_FLAG_REJECT);
	out.large_fpdu = !!(flags & MPA_FLAG_GSO_EXP);
	out.v2_enhanced = out.rev == MPA_REVISION_2 &&
			  (flags & MPA_FLAG_ENHANCED);

	out.pd_len = total;
	if (out.v2_enhanced) {
		if (total < MPA_V2_BLOCK_LEN)
			return -EPROTO;
		out.pd_len = total - MPA_V2_BLOCK_LEN;
	}

	*fi = out;
	if (total_pd_len)
		*total_pd_len = total;
	return 0;
}
EXPORT_SYMBOL_NS_GPL(mpa_frame_decode_header, KIWARP_INTERNAL);

int mpa_frame_decode_v2(const u8 *pd, size_t pd_len,
			struct mpa_frame_info *fi)
{
	u16 ird, ord;

	if (!fi->v2_enhanced)
		return -EINVAL;
	if (!pd || pd_len < MPA_V2_BLOCK_LEN)
		return -EPROTO;

	ird = get_unaligned_be16(pd);
	ord = get_unaligned_be16(pd + 2);

	fi->ird = ird & MPA_V2_MASK_IRD_ORD;
	fi->ord = ord & MPA_V2_MASK_IRD_ORD;
	fi->p2p = !!(ird & MPA_V2_PEER_TO_PEER);
	fi->zero_len_rtr = !!(ird & MPA_V2_ZERO_LENGTH_RTR);
	fi->write_rtr = !!(ord & MPA_V2_RDMA_WRITE_RTR);
	fi->read_rtr = !!(ord & MPA_V2_RDMA_READ_RTR);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(mpa_frame_decode_v2, KIWARP_INTERNAL);

/* Pick the RTR type for a peer-to-peer reply; false if none matches. */
static bool mpa_choose_rtr(const struct mpa_frame_info *req,
			   const struct mpa_frame_info *local,
			   struct mpa_frame_info *reply)
{
	bool req_write = req->write_rtr;
	bool req_read = req->read_rtr;
	bool req_send = req->zero_len_rtr;

	/* siw: a P request naming no RTR type gets RDMA Write */
	if (!req_write && !req_read && !req_send)
		req_write = true;

	if (req_write && local->write_rtr)
		reply->write_rtr = true;
	else if (req_read && local->read_rtr && reply->ird >= 1)
		reply->read_rtr = true;
	else if (req_send && local->zero_len_rtr)
		reply->zero_len_rtr = true;
	else
		return false;
	return true;
}

int mpa_negotiate(const struct mpa_frame_info *req,
		  const struct mpa_frame_info *local_pref,
		  struct mpa_frame_info *reply)
{
	memset(reply, 0, sizeof(*reply));
	reply->kind = MPA_KIND_REPLY;
	reply->rev = MPA_REVISION_1;

	if (req->kind != MPA_KIND_REQUEST || !mpa_rev_valid(req->rev) ||
	    !mpa_rev_valid(local_pref->rev)) {
		reply->reject = true;
		return -EINVAL;
	}

	reply->rev = req->rev < local_pref->rev ? req->rev : local_pref->rev;
	reply->crc = req->crc || local_pref->crc;
	reply->large_fpdu = req->large_fpdu && local_pref->large_fpdu;

	if (req->markers)
		goto reject;

	if (!req->v2_enhanced || req->rev != MPA_REVISION_2 ||
	    reply->rev != MPA_REVISION_2)
		return 0;

	reply->v2_enhanced = true;
	reply->ord = mpa_min_u16(mpa_min_u16(local_pref->ord, req->ird),
				 MPA_V2_IRD_ORD_MAX);
	reply->ird = mpa_min_u16(mpa_min_u16(local_pref->ird, req->ord),
				 MPA_V2_IRD_ORD_MAX);

	if (req->p2p) {
		if (!local_pref->p2p)
			goto reject;
		reply->p2p = true;
		if (!mpa_choose_rtr(req, local_pref, reply))
			goto reject;
	}
	return 0;

reject:
	/* A reject carries no RFC 6581 block and no private data */
	reply->v2_enhanced = false;
	reply->ird = 0;
	reply->ord = 0;
	reply->p2p = false;
	reply->zero_len_rtr = false;
	reply->write_rtr = false;
	reply->read_rtr = false;
	reply->reject = true;
	return -EPROTO;
}
EXPORT_SYMBOL_NS_GPL(mpa_negotiate, KIWARP_INTERNAL);
