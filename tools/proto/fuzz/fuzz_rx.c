// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness over kiwarp's receive parsing, built from the same
 * proto/ C files as the module: the MPA Request a responder reads
 * (header, RFC 6581 block, negotiation, Reply encoding), then a stream
 * of FPDUs (framing, CRC, DDP/RDMAP header) checked the way rx.c does:
 * every length the parser reports must lie inside the input.
 *
 * Input: byte 0 bit 0 selects CRC checking; the rest is the stream.
 */

#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>

#include "ddp.h"
#include "fpdu.h"
#include "mpa.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

static void fuzz_mpa(const u8 *p, size_t n)
{
	struct mpa_frame_info req = { .kind = MPA_KIND_REQUEST };
	struct mpa_frame_info pref = { .rev = 2, .crc = false, .ird = 32,
				       .ord = 32, .large_fpdu = true };
	struct mpa_frame_info rep;
	u8 out[MPA_RR_HDR_LEN + MPA_MAX_PRIVDATA];
	u16 total;

	if (mpa_frame_decode_header(p, n, &req, &total))
		return;
	CHECK(total <= MPA_MAX_PRIVDATA);
	if (n < MPA_RR_HDR_LEN + (size_t)total)
		return;
	if (req.v2_enhanced &&
	    mpa_frame_decode_v2(p + MPA_RR_HDR_LEN, total, &req))
		return;
	if (mpa_negotiate(&req, &pref, &rep) == -EINVAL)
		return;
	/* the Reply accepts large FPDUs only when the Request offered */
	CHECK(rep.reject || rep.large_fpdu == (req.large_fpdu &&
					       pref.large_fpdu));
	/* whatever was negotiated must encode */
	CHECK(mpa_frame_encode(&rep, NULL, 0, out, sizeof(out)) > 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const u8 *p, *ulpdu;
	size_t left;
	bool crc;

	if (!size)
		return 0;
	crc = data[0] & 1;
	p = data + 1;
	left = size - 1;
	fuzz_mpa(p, left);

	for (;;) {
		struct ddp_hdr h;
		struct ddp_err err;
		u16 ulen;
		int n, hlen;

		n = mpa_fpdu_decode(p, left, crc, 0xffff, &ulpdu, &ulen);
		if (n <= 0)
			break;
		CHECK((size_t)n <= left);
		CHECK(ulpdu + ulen <= p + n);
		hlen = ddp_hdr_decode(ulpdu, ulen, &h, &err);
		if (hlen > 0) {
			CHECK(hlen <= ulen);
			CHECK(h.opcode < RDMAP_OPCODE_COUNT);
		} else {
			CHECK(hlen == -EAGAIN || hlen == -EPROTO);
			if (hlen == -EPROTO)
				CHECK(err.layer <= TERM_LAYER_LLP);
		}
		p += n;
		left -= n;
	}
	return 0;
}
