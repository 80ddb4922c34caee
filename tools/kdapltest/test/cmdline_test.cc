// SPDX-License-Identifier: GPL-2.0
// kdapltest front end: dapltest's command line.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "cmdline.h"
#include "report.h"

namespace {

std::vector<std::string> split(const std::string &s)
{
	std::istringstream in(s);
	std::vector<std::string> out;
	std::string w;

	while (in >> w)
		out.push_back(w);
	return out;
}

kdt::ParseResult parse(const std::string &s)
{
	return kdt::parse_cmdline(split(s));
}

}  // namespace

TEST(KdtCmdline, TransactionAsInEnvironment)
{
	auto r = parse("-T T -s 192.0.2.2 -D siwA -i 100 -t 2 -w 2 -V "
		       "client SR 4096 server SR 4096 client RW 8192 "
		       "client RR 8192");
	ASSERT_TRUE(r.ok) << r.error;
	const kdt::Options &o = r.opts;
	EXPECT_EQ(o.test_type, 'T');
	EXPECT_EQ(o.server, "192.0.2.2");
	EXPECT_EQ(o.device, "siwA");
	EXPECT_EQ(o.iterations, 100u);
	EXPECT_EQ(o.threads, 2u);
	EXPECT_EQ(o.eps_per_thread, 2u);
	EXPECT_TRUE(o.validate);
	EXPECT_EQ(o.port, (uint32_t)KDT_DEFAULT_PORT);
	ASSERT_EQ(o.ops.size(), 7u);	// 4 + the 3 barrier ops
	EXPECT_EQ(o.ops[0].server_initiated, 0u);
	EXPECT_EQ(o.ops[0].transfer_type, (uint32_t)KDT_SEND_RECV);
	EXPECT_EQ(o.ops[1].server_initiated, 1u);
	EXPECT_EQ(o.ops[2].transfer_type, (uint32_t)KDT_RDMA_WRITE);
	EXPECT_EQ(o.ops[2].seg_size, 8192u);
	EXPECT_EQ(o.ops[3].transfer_type, (uint32_t)KDT_RDMA_READ);
	// barriers: server SR, client SR, server SR, 4096 x 1
	EXPECT_EQ(o.ops[4].server_initiated, 1u);
	EXPECT_EQ(o.ops[5].server_initiated, 0u);
	EXPECT_EQ(o.ops[6].server_initiated, 1u);
	EXPECT_EQ(o.ops[6].seg_size, 4096u);
	EXPECT_EQ(r.notes.size(), 3u);
}

TEST(KdtCmdline, OpDefaultsSegmentsAndReap)
{
	auto r = parse("-T T -s 10.0.0.1 client SR server SR 512 4 -f "
		       "client SR 100 2 -f server SR");
	// server -f before any client -f: unbalanced
	EXPECT_FALSE(r.ok);
	r = parse("-T T -s 10.0.0.1 client SR 100 2 -f server SR 512 4 -f");
	ASSERT_TRUE(r.ok) << r.error;
	ASSERT_EQ(r.opts.ops.size(), 2u);
	EXPECT_EQ(r.opts.ops[0].seg_size, 100u);
	EXPECT_EQ(r.opts.ops[0].num_segs, 2u);
	EXPECT_EQ(r.opts.ops[0].reap_send_on_recv, 1u);
	EXPECT_EQ(r.opts.ops[1].num_segs, 4u);
	r = parse("-T T -s 10.0.0.1 client SR server SR");
	ASSERT_TRUE(r.ok);
	EXPECT_EQ(r.opts.ops[0].seg_size, 4096u);
	EXPECT_EQ(r.opts.ops[0].num_segs, 1u);
}

TEST(KdtCmdline, AttachedOptionValues)
{
	auto r = parse("-TT -s192.0.2.2 -DsiwA -i5 -n 7000 -R LL "
		       "client SR server SR --json");
	ASSERT_TRUE(r.ok) << r.error;
	EXPECT_EQ(r.opts.server, "192.0.2.2");
	EXPECT_EQ(r.opts.device, "siwA");
	EXPECT_EQ(r.opts.iterations, 5u);
	EXPECT_EQ(r.opts.port, 7000u);
	EXPECT_EQ(r.opts.qos, 2u);
	EXPECT_TRUE(r.opts.json);
}

TEST(KdtCmdline, Errors)
{
	EXPECT_FALSE(parse("").ok);
	EXPECT_FALSE(parse("-s 1.2.3.4 -T T client SR server SR").ok);
	EXPECT_FALSE(parse("-T X").ok);			// unknown test type
	EXPECT_FALSE(parse("-T T client SR server SR").ok);	// no -s
	EXPECT_FALSE(parse("-T T -s h -i 1x client SR server SR").ok);
	EXPECT_FALSE(parse("-T T -s h -i").ok);		// missing value
	EXPECT_FALSE(parse("-T T -s h client XX server SR").ok);
	EXPECT_FALSE(parse("-T T -s h client SR").ok);	// no server SR
	EXPECT_FALSE(parse("-T T -s h client RW 8 -f server SR client SR").ok);
	EXPECT_FALSE(parse("-T T -s h client SR 1 2 3 server SR").ok);
	EXPECT_FALSE(parse("-T T -s h -R XX client SR server SR").ok);
	EXPECT_FALSE(parse("-T T -s h -n 70000 client SR server SR").ok);
	EXPECT_FALSE(parse("-T Q -s h -V").ok);		// -V is a T option
	EXPECT_FALSE(parse("-T Q").ok);			// no -s
	EXPECT_FALSE(parse("-T S -D siwA extra").ok);
	auto r = parse("-T X");
	EXPECT_NE(r.error.find("unknown test type"), std::string::npos);
}

TEST(KdtCmdline, TooManyOps)
{
	std::string s = "-T T -s h";
	for (int i = 0; i < 50; i++)
		s += " client SR server SR";
	EXPECT_TRUE(parse(s).ok);
	s += " client SR";
	EXPECT_FALSE(parse(s).ok);
	// 98 ops plus -V's three barriers are too many
	std::string v = "-T T -s h -V";
	for (int i = 0; i < 49; i++)
		v += " client SR server SR";
	EXPECT_FALSE(parse(v).ok);
}

TEST(KdtCmdline, OtherTestTypes)
{
	auto r = parse("-T S -D siwA -n 7000");
	ASSERT_TRUE(r.ok) << r.error;
	EXPECT_EQ(r.opts.test_type, 'S');
	r = parse("-T Q -s 192.0.2.2 -D siwA");
	ASSERT_TRUE(r.ok) << r.error;
	r = parse("-T P -s 192.0.2.2 -D siwA -m p -i 10 -p 16");
	ASSERT_TRUE(r.ok) << r.error;
	EXPECT_EQ(r.opts.mode, 'p');
	EXPECT_EQ(r.opts.pipeline, 16u);
}

TEST(KdtCmdline, WireCommand)
{
	auto r = parse("-T T -s 192.0.2.2 -D siwA -i 3 -t 2 -w 4 -P -r "
		       "client SR server SR client RR 100 3");
	ASSERT_TRUE(r.ok) << r.error;
	kdt_transaction_cmd c = kdt::to_transaction_cmd(r.opts);
	EXPECT_EQ(c.dapltest_version, 6u);
	EXPECT_STREQ(c.server_name, "192.0.2.2");
	EXPECT_STREQ(c.dapl_name, "siwA");
	EXPECT_EQ(c.num_threads, 2u);
	EXPECT_EQ(c.eps_per_thread, 4u);
	EXPECT_EQ(c.poll, 1u);
	EXPECT_EQ(c.use_rsp, 1u);
	EXPECT_EQ(c.server_port, 62000u);
	EXPECT_EQ(c.num_ops, 3u);
	EXPECT_EQ(c.op[2].num_segs, 3u);
}

TEST(KdtReport, StatsAndJson)
{
	kdt::Stats s;
	s.threads = 2;
	s.eps = 4;
	s.wqes = 2800;
	s.time_us = 2000000;
	s.send = 4000000;
	std::string out = kdt::format_stats(s);
	EXPECT_NE(out.find("----- Stats ---- : 2 threads, 4 EPs"),
		  std::string::npos);
	EXPECT_NE(out.find("1400.00 WQE/Sec"), std::string::npos);
	EXPECT_NE(out.find("Total Send"), std::string::npos);
	EXPECT_NE(out.find("2.00 MB/Sec"), std::string::npos);

	kdt::Options o;
	o.test_type = 'T';
	o.server = "192.0.2.2";
	s.message = "a \"quoted\" message";
	std::string j = kdt::format_json(o, s);
	EXPECT_NE(j.find("\"wqe_per_sec\":1400.00"), std::string::npos);
	EXPECT_NE(j.find("a \\\"quoted\\\" message"), std::string::npos);
	EXPECT_EQ(j.front(), '{');
	EXPECT_EQ(j.back(), '}');
}

TEST(KdtCmdline, PerformanceOp)
{
	auto r = parse("-T P -s 192.0.2.2 -D siwA -i 10 -p 8 RR 8192 2");
	ASSERT_TRUE(r.ok) << r.error;
	ASSERT_EQ(r.opts.ops.size(), 1u);
	EXPECT_EQ(r.opts.ops[0].transfer_type, (uint32_t)KDT_RDMA_READ);
	EXPECT_EQ(r.opts.ops[0].seg_size, 8192u);
	EXPECT_EQ(r.opts.ops[0].num_segs, 2u);
	r = parse("-T P -s 192.0.2.2 -D siwA");
	ASSERT_TRUE(r.ok) << r.error;
	EXPECT_EQ(r.opts.ops[0].transfer_type, (uint32_t)KDT_RDMA_WRITE);
	EXPECT_EQ(r.opts.ops[0].seg_size, 4096u);
	EXPECT_FALSE(parse("-T P -s 192.0.2.2 -D siwA SR 64").ok);
	EXPECT_FALSE(parse("-T P -s 192.0.2.2 -D siwA RW 64 9").ok);
	EXPECT_FALSE(parse("-T P -s 192.0.2.2 -D siwA RW 64 1 x").ok);
}

TEST(KdtCmdline, CraftedPeer)
{
	auto r = parse("-T T -s 192.0.2.2 -D kw2 client SR server SR "
		       "--wire-version 5 --cmd-bytes 100 --wire-test-type 9");
	ASSERT_TRUE(r.ok) << r.error;
	EXPECT_EQ(r.opts.craft_version, 5u);
	EXPECT_EQ(r.opts.craft_cmd_len, 100u);
	EXPECT_EQ(r.opts.craft_test_type, 9u);
	EXPECT_FALSE(parse("-T S -D siwA --wire-version 5").ok);
	EXPECT_FALSE(parse("-T Q -s 192.0.2.2 --cmd-bytes").ok);
	EXPECT_FALSE(parse("-T Q -s 192.0.2.2 --cmd-bytes 0").ok);
}

TEST(KdtReport, PerformanceStats)
{
	kdt::Options o;
	o.test_type = 'P';
	o.ops.push_back(kdt_op{0, KDT_RDMA_WRITE, 1, 4096, 0});
	kdt::Stats s;
	s.wqes = 1000;
	s.time_us = 500000;
	s.rdma_write = 4096000;
	s.pipeline = 8;
	s.lat_avg_ns = 1500;
	EXPECT_DOUBLE_EQ(kdt::ops_per_sec(s), 2000.0);
	std::string out = kdt::format_perf_stats(o, s);
	EXPECT_NE(out.find("Operation Throughput   : 2000.00 ops/sec"),
		  std::string::npos);
	EXPECT_NE(out.find("RDMA Write"), std::string::npos);
	EXPECT_NE(out.find("8.19 MB/sec"), std::string::npos);
	std::string j = kdt::format_json(o, s);
	EXPECT_NE(j.find("\"ops_per_sec\":2000.00"), std::string::npos);
	EXPECT_NE(j.find("\"avg\":1500"), std::string::npos);
}
