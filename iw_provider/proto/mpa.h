/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kiwarp: MPA connection setup frames (RFC 5044 section 7.1, MPA
 * revisions 1 and 2, RFC 6581 enhanced connection establishment).
 *
 * Pure functions on caller supplied buffers: no allocation, no I/O, no
 * kernel-only calls. Built into kiwarp.ko and into the host tests.
 *
 * Wire layout of an MPA Request/Reply frame (all fields big endian),
 * as sent and expected by Linux siw:
 *
 *   bytes  0..15  key: "MPA ID Req Frame" or "MPA ID Rep Frame"
 *   byte  16      flags: M 0x80 markers, C 0x40 CRC, R 0x20 reject,
 *                 E 0x10 enhanced (see below), low bits reserved
 *   byte  17      rev: MPA revision, 1 or 2
 *   bytes 18..19  PD_Length: private data length, <= MPA_MAX_PRIVDATA
 *   bytes 20..    private data
 *
 * Enhanced connection setup (RFC 6581), exactly as implemented here:
 * a frame is "enhanced" iff rev == 2 AND the E flag (0x10) is set.
 * The E flag is the convention of the Linux iWARP drivers (siw, cxgb4);
 * siw only parses the IRD/ORD block when it is set and rejects a reply
 * to an enhanced request that lacks it, so kiwarp always sends it with
 * the block. An enhanced frame's private data starts with a 4 byte
 * block, counted in PD_Length:
 *
 *   bytes 0..1  IRD word: P 0x8000 peer-to-peer, Z 0x4000 zero length
 *               (Send) RTR, IRD in the low 14 bits
 *   bytes 2..3  ORD word: W 0x8000 RDMA Write RTR, R 0x4000 RDMA Read
 *               RTR, ORD in the low 14 bits
 *
 * followed by the ULP's private data. A rev 2 frame without E carries
 * no block (siw does the same); E with rev 1 is ignored on receive.
 *
 * Unlike siw's iwarp.h, all constants below are host byte order values
 * (the wire is read and written byte wise).
 */
#ifndef KIWARP_PROTO_MPA_H
#define KIWARP_PROTO_MPA_H

#include "shim.h"

#define MPA_KEY_REQ		"MPA ID Req Frame"
#define MPA_KEY_REP		"MPA ID Rep Frame"
#define MPA_KEY_LEN		16

/* Byte offsets and size of the fixed Request/Reply header */
#define MPA_RR_OFF_FLAGS	16
#define MPA_RR_OFF_REV		17
#define MPA_RR_OFF_PD_LEN	18
#define MPA_RR_HDR_LEN		20

/* Flags byte (byte 16) */
#define MPA_FLAG_MARKERS	0x80
#define MPA_FLAG_CRC		0x40
#define MPA_FLAG_REJECT		0x20
#define MPA_FLAG_ENHANCED	0x10
/*
 * siw's "GSO frames expected" bit (a reserved bit of RFC 5044): in a
 * Request, the initiator offers FPDUs longer than one TCP segment; in
 * the Reply, the responder accepts (siw's responder echoes it). Both
 * then send and take them (mpa_frame_info.large_fpdu).
 */
#define MPA_FLAG_GSO_EXP	0x08

#define MPA_REVISION_1		1
#define MPA_REVISION_2		2

/*
 * RFC 5044 limit on PD_Length, including the RFC 6581 block (siw uses
 * the RDMA CM limit of 256, a subset).
 */
#define MPA_MAX_PRIVDATA	512

/* RFC 6581 IRD/ORD block: two 16-bit words at the start of private data */
#define MPA_V2_BLOCK_LEN	4
#define MPA_V2_PEER_TO_PEER	0x8000	/* IRD word */
#define MPA_V2_ZERO_LENGTH_RTR	0x4000	/* IRD word */
#define MPA_V2_RDMA_WRITE_RTR	0x8000	/* ORD word */
#define MPA_V2_RDMA_READ_RTR	0x4000	/* ORD word */
#define MPA_V2_MASK_IRD_ORD	0x3fff
#define MPA_V2_IRD_ORD_MAX	MPA_V2_MASK_IRD_ORD

enum mpa_frame_kind {
	MPA_KIND_ANY = 0,	/* decode_header: accept either key */
	MPA_KIND_REQUEST = 1,
	MPA_KIND_REPLY = 2,
};

/*
 * Decoded MPA Request/Reply frame, host byte order.
 *
 * @pd_len is the ULP private data length, i.e. PD_Length minus
 * MPA_V2_BLOCK_LEN for an enhanced frame. @ird .. @read_rtr are only
 * meaningful when @v2_enhanced is set and are zero/false otherwise.
 */
struct mpa_frame_info {
	enum mpa_frame_kind kind;
	u8 rev;
	bool markers;
	bool crc;
	bool reject;
	bool large_fpdu;	/* MPA_FLAG_GSO_EXP */
	u16 pd_len;
	bool v2_enhanced;
	u16 ird;
	u16 ord;
	bool p2p;
	bool zero_len_rtr;
	bool write_rtr;
	bool read_rtr;
};

/*
 * mpa_frame_encode() - build a Request (@fi->kind MPA_KIND_REQUEST) or
 * Reply (MPA_KIND_REPLY) frame in @buf: header, the IRD/ORD block if
 * @fi->v2_enhanced, then @pd_len bytes of @pd. @fi->pd_len is ignored;
 * @pd_len is authoritative.
 *
 * Return: bytes written (MPA_RR_HDR_LEN + PD_Length), or
 * -EINVAL: bad kind, rev not 1/2, reject flag on a request, NULL @pd
 *          with non-zero @pd_len, IRD/ORD > MPA_V2_IRD_ORD_MAX, any
 *          RFC 6581 field set without v2_enhanced or with rev 1, RTR
 *          bits without p2p;
 * -EMSGSIZE: PD_Length (incl. block) > MPA_MAX_PRIVDATA, or @buflen
 *          too small.
 */
int mpa_frame_encode(const struct mpa_frame_info *fi, const void *pd,
		     u16 pd_len, u8 *buf, size_t buflen);

/*
 * mpa_frame_decode_header() - parse the fixed 20-byte header.
 *
 * On entry @fi->kind is the expected kind; MPA_KIND_ANY accepts either
 * key. On success all of @fi is overwritten (kind set to the key seen,
 * RFC 6581 fields cleared until mpa_frame_decode_v2()) and, if
 * @total_pd_len is not NULL, it receives PD_Length: the number of
 * private data bytes following the header, block included.
 * On error @fi and @total_pd_len are left untouched.
 *
 * Return: 0, or -EAGAIN if @len < MPA_RR_HDR_LEN, -EINVAL for a bad
 * expected kind, -EPROTO for an unexpected key, rev other than 1 or 2,
 * PD_Length > MPA_MAX_PRIVDATA, or an enhanced frame whose PD_Length
 * cannot hold the IRD/ORD block.
 */
int mpa_frame_decode_header(const u8 *buf, size_t len,
			    struct mpa_frame_info *fi, u16 *total_pd_len);

/*
 * mpa_frame_decode_v2() - parse the RFC 6581 IRD/ORD block at the start
 * of the received private data @pd (@pd_len bytes available) of a frame
 * whose header decoded with @fi->v2_enhanced set. Fills @fi->ird, ord,
 * p2p, zero_len_rtr, write_rtr, read_rtr. The ULP private data follows
 * at @pd + MPA_V2_BLOCK_LEN.
 *
 * Return: 0, -EINVAL if @fi->v2_enhanced is not set, -EPROTO if
 * @pd_len < MPA_V2_BLOCK_LEN.
 */
int mpa_frame_decode_v2(const u8 *pd, size_t pd_len,
			struct mpa_frame_info *fi);

/*
 * mpa_negotiate() - responder side: compute the Reply to the decoded
 * Request @req given local capabilities @local_pref (rev = highest local
 * revision, crc = local wants CRC, large_fpdu = local takes and sends
 * FPDUs longer than a segment, ird/ord = local maxima, p2p = local
 * supports peer-to-peer RTR, *_rtr = RTR types local supports; kind,
 * markers, reject, pd_len and v2_enhanced are ignored).
 *
 * @reply is always fully written (kind MPA_KIND_REPLY, pd_len 0):
 *  - rev = min(req rev, local rev); crc = req crc || local crc
 *    (RFC 5044: CRC is used if either side asks for it).
 *  - large_fpdu = req large_fpdu && local large_fpdu: the Request
 *    offers FPDUs longer than a segment, the Reply accepts; both sides
 *    then send and take them. A Reply sets the (RFC 5044 reserved) bit
 *    only in answer to a Request that did.
 *  - Markers are not supported: a request asking for them gets a
 *    reject reply and -EPROTO.
 *  - Enhanced iff the request is enhanced and local rev is 2. Then
 *    reply ORD = min(local ord, req IRD) (never more outstanding reads
 *    than the initiator can take), reply IRD = min(local ird, req ORD)
 *    (no more inbound read resources than the initiator will use),
 *    both capped at MPA_V2_IRD_ORD_MAX. The initiator learns a lowered
 *    IRD from the reply (siw tolerates this: relaxed IRD negotiation).
 *  - Peer-to-peer (request has P): local must support p2p, else reject
 *    and -EPROTO. The reply echoes P and exactly one RTR type, chosen
 *    among those both sides support in the order RDMA Write, RDMA Read
 *    (only if reply IRD >= 1, the read needs an IRD slot), zero length
 *    Send. A P request naming no RTR type at all is taken to offer RDMA
 *    Write (what siw does). No common type: reject and -EPROTO.
 *    Without P in the request the reply carries no p2p/RTR bits.
 *
 * Return: 0, -EPROTO (reply is a reject frame to send), or -EINVAL
 * (@req is not a request, or a rev is not 1 or 2; reply then has
 * reject set too).
 */
int mpa_negotiate(const struct mpa_frame_info *req,
		  const struct mpa_frame_info *local_pref,
		  struct mpa_frame_info *reply);

#endif /* KIWARP_PROTO_MPA_H */
