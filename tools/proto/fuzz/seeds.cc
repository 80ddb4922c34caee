// SPDX-License-Identifier: GPL-2.0
//
// Writes the seed corpus of fuzz_rx into the directory given: MPA
// Requests (rev 1, rev 2 enhanced, with CRC, offering large FPDUs)
// followed by valid FPDU streams of every RDMAP opcode (and a large
// FPDU), built with the proto/ encoders.

#include <cstdio>
#include <string>
#include <vector>

extern "C" {
#include "ddp.h"
#include "fpdu.h"
#include "mpa.h"
}

namespace {

void Add(std::vector<u8> &s, const ddp_hdr &h, u16 pay, bool crc)
{
	std::vector<u8> ulpdu(DDP_HDR_MAX + pay);
	std::vector<u8> fpdu(ulpdu.size() + 16);
	int hlen = ddp_hdr_encode(&h, ulpdu.data(), ulpdu.size());
	int n = mpa_fpdu_encode(ulpdu.data(), (u16)(hlen + pay), crc,
				fpdu.data(), fpdu.size());

	s.insert(s.end(), fpdu.begin(), fpdu.begin() + n);
}

} // namespace

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	// v & 4: the Request offers large FPDUs (MPA_FLAG_GSO_EXP) and the
	// stream has a tagged FPDU of several 1500-byte segments
	for (int v = 0; v < 8; v++) {
		bool crc = v & 1, enh = v & 2, large = v & 4;
		mpa_frame_info fi = {};
		u8 rr[MPA_RR_HDR_LEN + MPA_MAX_PRIVDATA];
		std::vector<u8> s = { (u8)crc };

		fi.kind = MPA_KIND_REQUEST;
		fi.rev = enh ? 2 : 1;
		fi.crc = crc;
		fi.large_fpdu = large;
		fi.v2_enhanced = enh;
		fi.ird = enh ? 8 : 0;
		fi.ord = enh ? 8 : 0;
		int n = mpa_frame_encode(&fi, "pd", 2, rr, sizeof(rr));
		s.insert(s.end(), rr, rr + n);
		for (u8 op = 0; op < RDMAP_OPCODE_COUNT; op++) {
			ddp_hdr h = {};

			h.opcode = op;
			h.last = true;
			h.stag = 0x100;
			h.msn = 1;
			h.read_size = 32;
			Add(s, h, op == RDMAP_READ_REQ ? 0 : 13, crc);
		}
		if (large) {
			ddp_hdr h = {};

			h.opcode = RDMAP_WRITE;
			h.last = true;
			h.stag = 0x100;
			Add(s, h, 11000, crc);
		}
		std::string path = std::string(argv[1]) + "/seed" +
				   std::to_string(v);
		FILE *f = std::fopen(path.c_str(), "wb");
		if (!f)
			return 1;
		std::fwrite(s.data(), 1, s.size(), f);
		std::fclose(f);
	}
	return 0;
}
