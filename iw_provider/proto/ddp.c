// SPDX-License-Identifier: GPL-2.0
/*
 * kiwarp: DDP/RDMAP header codec. Wire layout in ddp.h. No kernel-only
 * calls: also compiled into the host tests.
 */

#ifdef __KERNEL__
#include <linux/export.h>
#include <linux/module.h>
#endif

#include "ddp.h"
#include "fpdu.h"

static u64 get_be64(const u8 *p)
{
	return (u64)get_unaligned_be32(p) << 32 | get_unaligned_be32(p + 4);
}

static void put_be64(u64 v, u8 *p)
{
	put_unaligned_be32((u32)(v >> 32), p);
	put_unaligned_be32((u32)v, p + 4);
}

static bool ddp_op_tagged(u8 op)
{
	return op == RDMAP_WRITE || op == RDMAP_READ_RESP;
}

static int ddp_op_hdr_len(u8 op)
{
	switch (op) {
	case RDMAP_WRITE:
	case RDMAP_READ_RESP:
		return DDP_TAGGED_HDR_LEN;
	case RDMAP_READ_REQ:
		return RDMAP_READ_REQ_HDR_LEN;
	case RDMAP_TERMINATE:
		return RDMAP_TERM_HDR_LEN;
	case RDMAP_SEND:
	case RDMAP_SEND_INV:
	case RDMAP_SEND_SE:
	case RDMAP_SEND_SE_INV:
		return DDP_UNTAGGED_HDR_LEN;
	default:
		return -EINVAL;
	}
}

static u32 ddp_op_qn(u8 op)
{
	if (op == RDMAP_READ_REQ)
		return DDP_QN_READ_REQ;
	if (op == RDMAP_TERMINATE)
		return DDP_QN_TERMINATE;
	return DDP_QN_SEND;
}

static int ddp_fail(struct ddp_err *err, u8 layer, u8 etype, u8 ecode)
{
	err->layer = layer;
	err->etype = etype;
	err->ecode = ecode;
	return -EPROTO;
}

int ddp_hdr_len(u8 c0, u8 c1, struct ddp_err *err)
{
	bool tagged = c0 & DDP_FLAG_TAGGED;
	u8 op = c1 & 0x0f;

	if ((c0 & 0x03) != DDP_VERSION)
		return ddp_fail(err, TERM_LAYER_DDP,
				tagged ? DDP_ETYPE_TAGGED : DDP_ETYPE_UNTAGGED,
				tagged ? DDP_ECODE_T_VERSION :
					 DDP_ECODE_UT_VERSION);
	if ((c1 >> 6) != RDMAP_VERSION)
		return ddp_fail(err, TERM_LAYER_RDMAP,
				RDMAP_ETYPE_REMOTE_OPERATION,
				RDMAP_ECODE_VERSION);
	if (op >= RDMAP_OPCODE_COUNT || ddp_op_tagged(op) != tagged)
		return ddp_fail(err, TERM_LAYER_RDMAP,
				RDMAP_ETYPE_REMOTE_OPERATION,
				RDMAP_ECODE_OPCODE);
	return ddp_op_hdr_len(op);
}
EXPORT_SYMBOL_NS_GPL(ddp_hdr_len, KIWARP_INTERNAL);

int ddp_hdr_decode(const u8 *buf, size_t len, struct ddp_hdr *h,
		   struct ddp_err *err)
{
	struct ddp_hdr d;
	int hlen;

	if (len < 2)
		return -EAGAIN;
	hlen = ddp_hdr_len(buf[0], buf[1], err);
	if (hlen < 0)
		return hlen;
	if (len < (size_t)hlen)
		return -EAGAIN;

	memset(&d, 0, sizeof(d));
	d.opcode = buf[1] & 0x0f;
	d.tagged = buf[0] & DDP_FLAG_TAGGED;
	d.last = buf[0] & DDP_FLAG_LAST;
	d.stag = get_unaligned_be32(buf + 2);
	if (d.tagged) {
		d.to = get_be64(buf + 6);
		*h = d;
		return hlen;
	}
	d.qn = get_unaligned_be32(buf + 6);
	d.msn = get_unaligned_be32(buf + 10);
	d.mo = get_unaligned_be32(buf + 14);
	if (d.qn != ddp_op_qn(d.opcode))
		return ddp_fail(err, TERM_LAYER_DDP, DDP_ETYPE_UNTAGGED,
				DDP_ECODE_UT_INVALID_QN);
	if (d.opcode == RDMAP_READ_REQ) {
		if (d.mo || !d.last)
			return ddp_fail(err, TERM_LAYER_DDP,
					DDP_ETYPE_UNTAGGED,
					DDP_ECODE_UT_INVALID_MO);
		d.sink_stag = get_unaligned_be32(buf + 18);
		d.sink_to = get_be64(buf + 22);
		d.read_size = get_unaligned_be32(buf + 30);
		d.src_stag = get_unaligned_be32(buf + 34);
		d.src_to = get_be64(buf + 38);
	} else if (d.opcode == RDMAP_TERMINATE) {
		if (d.mo || !d.last)
			return ddp_fail(err, TERM_LAYER_DDP,
					DDP_ETYPE_UNTAGGED,
					DDP_ECODE_UT_INVALID_MO);
		d.term_layer = buf[18] >> 4;
		d.term_etype = buf[18] & 0x0f;
		d.term_ecode = buf[19];
		d.term_flags = buf[20] & (TERM_FLAG_M | TERM_FLAG_D |
					  TERM_FLAG_R);
	}
	*h = d;
	return hlen;
}
EXPORT_SYMBOL_NS_GPL(ddp_hdr_decode, KIWARP_INTERNAL);

int ddp_hdr_encode(const struct ddp_hdr *h, u8 *buf, size_t buflen)
{
	int hlen = ddp_op_hdr_len(h->opcode);

	if (hlen < 0)
		return hlen;
	if (!buf || buflen < (size_t)hlen)
		return -EMSGSIZE;

	memset(buf, 0, hlen);
	buf[0] = DDP_VERSION | (h->last ? DDP_FLAG_LAST : 0);
	buf[1] = RDMAP_VERSION << 6 | h->opcode;
	if (ddp_op_tagged(h->opcode)) {
		buf[0] |= DDP_FLAG_TAGGED;
		put_unaligned_be32(h->stag, buf + 2);
		put_be64(h->to, buf + 6);
		return hlen;
	}
	if (h->opcode == RDMAP_SEND_INV || h->opcode == RDMAP_SEND_SE_INV)
		put_unaligned_be32(h->stag, buf + 2);
	put_unaligned_be32(ddp_op_qn(h->opcode), buf + 6);
	put_unaligned_be32(h->msn, buf + 10);
	put_unaligned_be32(h->mo, buf + 14);
	if (h->opcode == RDMAP_READ_REQ) {
		put_unaligned_be32(h->sink_stag, buf + 18);
		put_be64(h->sink_to, buf + 22);
		put_unaligned_be32(h->read_size, buf + 30);
		put_unaligned_be32(h->src_stag, buf + 34);
		put_be64(h->src_to, buf + 38);
	} else if (h->opcode == RDMAP_TERMINATE) {
		buf[18] = (u8)((h->term_layer & 0x0f) << 4 |
			       (h->term_etype & 0x0f));
		buf[19] = h->term_ecode;
		buf[20] = h->term_flags & (TERM_FLAG_M | TERM_FLAG_D |
					   TERM_FLAG_R);
	}
	return hlen;
}
EXPORT_SYMBOL_NS_GPL(ddp_hdr_encode, KIWARP_INTERNAL);

u32 ddp_max_payload(u32 fpdu_max, u32 hdr_len)
{
	u32 over = MPA_FPDU_HDR_LEN + MPA_FPDU_CRC_LEN + hdr_len;
	u32 max;

	if (fpdu_max <= over + 4)
		return 4;
	max = (fpdu_max - over) & ~3U;
	if (max + hdr_len > 0xffff)
		max = (0xffff - hdr_len) & ~3U;
	return max;
}
EXPORT_SYMBOL_NS_GPL(ddp_max_payload, KIWARP_INTERNAL);
