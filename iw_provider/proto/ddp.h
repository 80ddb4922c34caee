/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kiwarp: DDP (RFC 5041) and RDMAP (RFC 5040) header codec.
 *
 * Pure functions on caller supplied buffers, shared with the host tests
 * (see shim.h). Offsets below are into the ULPDU, i.e. after the 2-byte
 * MPA length field; all fields are big endian on the wire.
 *
 *   byte 0    DDP control: T 0x80 tagged, L 0x40 last, DV (bits 1..0) = 1
 *   byte 1    RDMAP control: RV (bits 7..6) = 1, opcode (bits 3..0)
 *
 * Tagged (RDMA Write, Read Response), 14 bytes:
 *   2..5 sink STag, 6..13 sink tagged offset
 * Untagged (Send*, Read Request, Terminate), 18 bytes:
 *   2..5 invalidate STag (Send with Invalidate, else 0), 6..9 QN,
 *   10..13 MSN, 14..17 MO
 * Read Request: the untagged header then 28 bytes: 18..21 sink STag,
 *   22..29 sink TO, 30..33 RDMA Read message size, 34..37 source STag,
 *   38..45 source TO.
 * Terminate: the untagged header then 4 bytes of control:
 *   byte 18 layer (high nibble) and error type (low nibble) as RFC 5040
 *   section 4.8 draws them, byte 19 error code, byte 20 bit 7 M, bit 6
 *   D, bit 5 R (header copies follow when set), byte 21 reserved.
 *   Note: siw's struct iwarp_terminate uses C bit-fields that on little
 *   endian hosts put the layer into the low nibble; we follow the RFC.
 */
#ifndef KIWARP_PROTO_DDP_H
#define KIWARP_PROTO_DDP_H

#include "shim.h"

#define DDP_FLAG_TAGGED		0x80
#define DDP_FLAG_LAST		0x40
#define DDP_VERSION		1
#define RDMAP_VERSION		1

enum rdmap_opcode {
	RDMAP_WRITE = 0,
	RDMAP_READ_REQ = 1,
	RDMAP_READ_RESP = 2,
	RDMAP_SEND = 3,
	RDMAP_SEND_INV = 4,
	RDMAP_SEND_SE = 5,
	RDMAP_SEND_SE_INV = 6,
	RDMAP_TERMINATE = 7,
	RDMAP_OPCODE_COUNT = 8
};

/* Untagged queue numbers (RFC 5040 section 5.1) */
enum ddp_qn {
	DDP_QN_SEND = 0,
	DDP_QN_READ_REQ = 1,
	DDP_QN_TERMINATE = 2,
	DDP_QN_COUNT = 3
};

#define DDP_TAGGED_HDR_LEN	14
#define DDP_UNTAGGED_HDR_LEN	18
#define RDMAP_READ_REQ_HDR_LEN	(DDP_UNTAGGED_HDR_LEN + 28)
#define RDMAP_TERM_HDR_LEN	(DDP_UNTAGGED_HDR_LEN + 4)
#define DDP_HDR_MAX		RDMAP_READ_REQ_HDR_LEN

#define TERM_FLAG_M		0x80
#define TERM_FLAG_D		0x40
#define TERM_FLAG_R		0x20

/* TERMINATE layer, error types and codes (RFC 5040 section 7, 5041 7) */
enum term_layer {
	TERM_LAYER_RDMAP = 0,
	TERM_LAYER_DDP = 1,
	TERM_LAYER_LLP = 2,
};

enum term_rdmap_etype {
	RDMAP_ETYPE_CATASTROPHIC = 0,
	RDMAP_ETYPE_REMOTE_PROTECTION = 1,
	RDMAP_ETYPE_REMOTE_OPERATION = 2,
};

enum term_rdmap_ecode {
	RDMAP_ECODE_INVALID_STAG = 0x00,
	RDMAP_ECODE_BASE_BOUNDS = 0x01,
	RDMAP_ECODE_ACCESS_RIGHTS = 0x02,
	RDMAP_ECODE_STAG_NOT_ASSOC = 0x03,
	RDMAP_ECODE_TO_WRAP = 0x04,
	RDMAP_ECODE_VERSION = 0x05,
	RDMAP_ECODE_OPCODE = 0x06,
	RDMAP_ECODE_CATASTROPHIC_STREAM = 0x07,
	RDMAP_ECODE_CATASTROPHIC_GLOBAL = 0x08,
	RDMAP_ECODE_CANNOT_INVALIDATE = 0x09,
	RDMAP_ECODE_UNSPECIFIED = 0xff,
};

enum term_ddp_etype {
	DDP_ETYPE_CATASTROPHIC = 0,
	DDP_ETYPE_TAGGED = 1,
	DDP_ETYPE_UNTAGGED = 2,
};

enum term_ddp_ecode {
	DDP_ECODE_T_INVALID_STAG = 0x00,
	DDP_ECODE_T_BASE_BOUNDS = 0x01,
	DDP_ECODE_T_STAG_NOT_ASSOC = 0x02,
	DDP_ECODE_T_TO_WRAP = 0x03,
	DDP_ECODE_T_VERSION = 0x04,
	DDP_ECODE_UT_INVALID_QN = 0x01,
	DDP_ECODE_UT_NO_BUFFER = 0x02,
	DDP_ECODE_UT_INVALID_MSN = 0x03,
	DDP_ECODE_UT_INVALID_MO = 0x04,
	DDP_ECODE_UT_TOO_LONG = 0x05,
	DDP_ECODE_UT_VERSION = 0x06,
};

enum term_llp_ecode {
	LLP_ECODE_CRC = 0x02,
	LLP_ECODE_FPDU_START = 0x03,
};

/*
 * Decoded header, host byte order. Which fields are meaningful depends
 * on @opcode: @stag/@to for tagged ones (@stag is the invalidate STag
 * for Send with Invalidate), @qn/@msn/@mo for untagged ones, the
 * read_* fields for a Read Request, the term_* fields for a Terminate.
 */
struct ddp_hdr {
	u8 opcode;
	bool tagged;
	bool last;
	u32 stag;
	u64 to;
	u32 qn;
	u32 msn;
	u32 mo;
	u32 sink_stag;
	u64 sink_to;
	u32 read_size;
	u32 src_stag;
	u64 src_to;
	u8 term_layer;
	u8 term_etype;
	u8 term_ecode;
	u8 term_flags;
};

/* A header check failure: the TERMINATE to send for it */
struct ddp_err {
	u8 layer;
	u8 etype;
	u8 ecode;
};

/*
 * ddp_hdr_len() - header length for the first two ULPDU bytes @c0, @c1.
 *
 * Return: DDP_TAGGED_HDR_LEN .. DDP_HDR_MAX, or -EPROTO with @err set:
 * wrong DDP or RDMAP version, unknown opcode, or a T flag that does not
 * match the opcode.
 */
int ddp_hdr_len(u8 c0, u8 c1, struct ddp_err *err);

/*
 * ddp_hdr_decode() - decode the header at @buf (@len bytes available).
 *
 * Return: the header length, -EAGAIN if @len is shorter, or -EPROTO
 * with @err set (see ddp_hdr_len(); also a Send/Read Request/Terminate
 * with the wrong QN, a non-zero MO on a Read Request or Terminate).
 * @h is written only on success.
 */
int ddp_hdr_decode(const u8 *buf, size_t len, struct ddp_hdr *h,
		   struct ddp_err *err);

/*
 * ddp_hdr_encode() - write the header for @h into @buf; the T flag
 * and QN follow from @h->opcode (qn is ignored), reserved bits are zero.
 *
 * Return: bytes written, -EINVAL for an unknown opcode, -EMSGSIZE if
 * @buflen is too small.
 */
int ddp_hdr_encode(const struct ddp_hdr *h, u8 *buf, size_t buflen);

/* Largest payload in one FPDU of at most @fpdu_max wire bytes */
u32 ddp_max_payload(u32 fpdu_max, u32 hdr_len);

#endif /* KIWARP_PROTO_DDP_H */
