// SPDX-License-Identifier: GPL-2.0
//
// Host tests of kiwarp-wirepeer's socket-free part: the target's debugfs
// lines, the frames it sends, and its verdict on what comes back.

#include <gtest/gtest.h>

#include "wire.h"

namespace {

const char kConns[] =
	"requests=3\n"
	"port=40001 stag=0x142 to=0xffff888004a0c040 len=4096 rlen=64 "
	"ready=1 established=1 disconnected=0 state=RTS crc=0 terms_sent=0 "
	"terms_rcvd=0 guard=ok region=clean recv_guard=ok recvs=0\n"
	"port=40002 stag=0x242 to=0x1000 len=4096 rlen=64 ready=0 "
	"state=IDLE\n";

TEST(Conns, RequestsAndLines)
{
	ASSERT_EQ(wirepeer::ParseRequests(kConns), 3u);
	auto c = wirepeer::FindConn(kConns, 40001);

	ASSERT_TRUE(c);
	EXPECT_EQ(c->num("stag"), 0x142u);
	EXPECT_EQ(c->num("to"), 0xffff888004a0c040ull);
	EXPECT_EQ(c->num("len"), 4096u);
	EXPECT_EQ(c->get("state"), "RTS");
	EXPECT_EQ(c->get("guard"), "ok");
	EXPECT_EQ(wirepeer::FindConn(kConns, 40002)->get("ready"), "0");
	EXPECT_FALSE(wirepeer::FindConn(kConns, 4000));
	EXPECT_FALSE(wirepeer::ParseRequests("port=1\n"));
}

// A port used again: the newest connection (the last line) is ours.
TEST(Conns, ReusedPortFindsTheNewest)
{
	const std::string conns = std::string(kConns) +
		"port=40001 stag=0x342 to=0x2000 len=4096 rlen=64 ready=1 "
		"state=RTS\n";
	const std::string old_error =
		"port=40003 stag=0x442 to=0x3000 state=ERROR\n"
		"port=40003 stag=0x542 to=0x4000 state=RTS\n";

	EXPECT_EQ(wirepeer::FindConn(conns, 40001)->num("stag"), 0x342u);
	EXPECT_EQ(wirepeer::FindConn(old_error, 40003)->get("state"), "RTS");
	EXPECT_EQ(wirepeer::FindConn(conns, 40002)->get("ready"), "0");
}

TEST(Frames, MpaRequestDecodes)
{
	auto r = wirepeer::MpaRequest(MPA_REVISION_2, true, false, 4);
	mpa_frame_info fi{};
	u16 pd = 0;

	fi.kind = MPA_KIND_REQUEST;
	ASSERT_EQ(r.size(), MPA_RR_HDR_LEN + 4u);
	ASSERT_EQ(mpa_frame_decode_header(r.data(), r.size(), &fi, &pd), 0);
	EXPECT_TRUE(fi.crc);
	EXPECT_EQ(pd, 4);
	ASSERT_EQ(mpa_frame_decode_v2(r.data() + MPA_RR_HDR_LEN, pd, &fi), 0);
	EXPECT_EQ(fi.ird, 4);
	EXPECT_EQ(fi.ord, 4);

	auto bad = wirepeer::MpaRequest(MPA_REVISION_2, false, false, 4,
					MPA_KEY_REP);
	fi = {};
	fi.kind = MPA_KIND_REQUEST;
	EXPECT_NE(mpa_frame_decode_header(bad.data(), bad.size(), &fi, &pd),
		  0);
}

TEST(Frames, FpduRoundTrip)
{
	ddp_hdr h{};

	h.opcode = RDMAP_WRITE;
	h.last = true;
	h.stag = 0x142;
	h.to = 0x1000;
	for (bool crc : {false, true}) {
		auto f = wirepeer::Fpdu(h, 33, crc);
		const u8 *u;
		u16 ulen;
		ddp_hdr d{};
		ddp_err e{};

		ASSERT_EQ(f.size() % 4, 0u);
		ASSERT_EQ(mpa_fpdu_decode(f.data(), f.size(), crc, 0xffff, &u,
					  &ulen), static_cast<int>(f.size()));
		ASSERT_EQ(ddp_hdr_decode(u, ulen, &d, &e), DDP_TAGGED_HDR_LEN);
		EXPECT_EQ(ulen, DDP_TAGGED_HDR_LEN + 33);
		EXPECT_EQ(d.stag, 0x142u);
		EXPECT_EQ(u[DDP_TAGGED_HDR_LEN + 32], 0xab);
	}
}

TEST(Judge, Terminate)
{
	ddp_hdr t{};

	t.opcode = RDMAP_TERMINATE;
	t.last = true;
	t.term_layer = TERM_LAYER_DDP;
	t.term_etype = DDP_ETYPE_TAGGED;
	t.term_ecode = DDP_ECODE_T_BASE_BOUNDS;
	auto f = wirepeer::Fpdu(t, 0, true);
	auto o = wirepeer::Judge(f, true, false);

	EXPECT_TRUE(o.terminate);
	EXPECT_EQ(o.layer, TERM_LAYER_DDP);
	EXPECT_EQ(o.etype, DDP_ETYPE_TAGGED);
	EXPECT_EQ(o.ecode, DDP_ECODE_T_BASE_BOUNDS);

	f.back() ^= 1;	// CRC broken: not a TERMINATE we accept
	EXPECT_FALSE(wirepeer::Judge(f, true, false).terminate);
}

TEST(Judge, ClosedOrOther)
{
	auto o = wirepeer::Judge({}, false, true);

	EXPECT_FALSE(o.terminate);
	EXPECT_TRUE(o.closed);
	EXPECT_FALSE(wirepeer::Judge({}, false, false).what.empty());

	ddp_hdr s{};

	s.opcode = RDMAP_SEND;
	s.last = true;
	s.msn = 1;
	auto f = wirepeer::Fpdu(s, 4, false);
	o = wirepeer::Judge(f, false, false);
	EXPECT_FALSE(o.terminate);
	EXPECT_NE(o.what.find("instead of TERMINATE"), std::string::npos);
}

}  // namespace
