// SPDX-License-Identifier: GPL-2.0
// kdapltest front end: dapltest's command line.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "cmdline.h"
#include "report.h"
#include "uapi/kdapltest.h"

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

TEST(KdtCmdline, LimitDefaults)
{
	auto r = parse("-T L -D siwA");
	ASSERT_TRUE(r.ok) << r.error;
	EXPECT_EQ(r.opts.test_type, 'L');
	EXPECT_EQ(r.opts.width, 1u);
	EXPECT_EQ(r.opts.maximum, ~0u);	// dapltest: no maximum
	EXPECT_EQ(r.opts.select, 0u);	// all limit tests
	EXPECT_TRUE(r.opts.server.empty());
}

TEST(KdtCmdline, LimitOptionsAndNames)
{
	auto r = parse("-T L -D siwA -w 2 -m 64 -d limit_ia limit_rpost "
		       "limit_size_lmr --json");
	ASSERT_TRUE(r.ok) << r.error;
	EXPECT_EQ(r.opts.width, 2u);
	EXPECT_EQ(r.opts.maximum, 64u);
	EXPECT_TRUE(r.opts.debug);
	EXPECT_TRUE(r.opts.json);
	EXPECT_EQ(r.opts.select, (1u << KDT_LIM_IA) | (1u << KDT_LIM_RPOST) |
				 (1u << KDT_LIM_SIZE_LMR));
	// -w and -m mean width and maximum here, not EPs and a mode
	EXPECT_EQ(r.opts.eps_per_thread, 1u);
	EXPECT_EQ(r.opts.mode, 'b');
	r = parse("-T L -DsiwA -w64 -m1");
	ASSERT_TRUE(r.ok) << r.error;
	EXPECT_EQ(r.opts.width, 64u);
	EXPECT_EQ(r.opts.maximum, 1u);
	for (uint32_t i = 0; i < KDT_LIM_NUM; i++)
		EXPECT_EQ(kdt::limit_index(kdt::limit_name(i)), i);
	EXPECT_FALSE(kdt::limit_index("limit_cno"));
}

TEST(KdtCmdline, LimitErrors)
{
	auto r = parse("-T L -D siwA limit_cno");
	EXPECT_FALSE(r.ok);
	EXPECT_NE(r.error.find("no CNOs"), std::string::npos) << r.error;
	r = parse("-T L -D siwA limit_foo");
	EXPECT_FALSE(r.ok);
	EXPECT_NE(r.error.find("Cannot find this limit test: limit_foo"),
		  std::string::npos) << r.error;
	EXPECT_FALSE(parse("-T L -D siwA -w 0").ok);
	EXPECT_FALSE(parse("-T L -D siwA -w 65").ok);
	EXPECT_FALSE(parse("-T L -D siwA -w x").ok);
	EXPECT_FALSE(parse("-T L -D siwA -m 0").ok);
	EXPECT_FALSE(parse("-T L -D siwA -m p").ok);
	EXPECT_FALSE(parse("-T L -D siwA -i 10").ok);	// not a -T L option
	EXPECT_FALSE(parse("-T L -D siwA -m").ok);
}

TEST(KdtCmdline, FftFeatureAndCases)
{
	auto r = parse("-T F -D siwA -f queryinfo case0 case15 case5");
	ASSERT_TRUE(r.ok) << r.error;
	EXPECT_EQ(r.opts.test_type, 'F');
	EXPECT_EQ(r.opts.feature, (uint32_t)KDT_FFT_QUERYINFO);
	EXPECT_EQ(r.opts.select, (1u << 0) | (1u << 15) | (1u << 5));
	r = parse("-T F -D kw1 -f connmgt -s 203.0.113.1 -n 7100 --json");
	ASSERT_TRUE(r.ok) << r.error;
	EXPECT_EQ(r.opts.feature, (uint32_t)KDT_FFT_CONNMGT);
	EXPECT_EQ(r.opts.server, "203.0.113.1");
	EXPECT_EQ(r.opts.port, 7100u);
	EXPECT_EQ(r.opts.select, 0u);	// every case
	// dapltest's stress options are taken, without effect
	r = parse("-T F -D siwA -f hwconn -i 5 -t 2 -v 9 case3");
	ASSERT_TRUE(r.ok) << r.error;
	EXPECT_EQ(r.opts.select, 1u << 3);
	const char *names[] = {"hwconn", "endpoint", "pz", "mem", "connmgt",
			       "queryinfo"};
	const uint32_t sizes[] = {4, 3, 3, 5, 3, 16};
	for (uint32_t i = 0; i < KDT_FFT_NUM; i++) {
		EXPECT_EQ(kdt::fft_feature(names[i]), i);
		EXPECT_STREQ(kdt::fft_feature_name(i), names[i]);
		EXPECT_EQ(kdt::fft_cases(i), sizes[i]);
		EXPECT_LE(sizes[i], (uint32_t)KDT_CASES_MAX);
	}
}

TEST(KdtCmdline, FftErrors)
{
	auto r = parse("-T F -D siwA");
	EXPECT_FALSE(r.ok);
	EXPECT_NE(r.error.find("must define the function feature"),
		  std::string::npos) << r.error;
	r = parse("-T F -D siwA -f cqmgt");
	EXPECT_FALSE(r.ok);
	EXPECT_NE(r.error.find("don't know this function feature: cqmgt"),
		  std::string::npos) << r.error;
	r = parse("-T F -D siwA -f queryinfo case16");
	EXPECT_FALSE(r.ok);
	EXPECT_NE(r.error.find("0 -- 15"), std::string::npos) << r.error;
	EXPECT_FALSE(parse("-T F -D siwA -f connmgt case3").ok);
	EXPECT_FALSE(parse("-T F -D siwA -f pz cas1").ok);
	EXPECT_FALSE(parse("-T F -D siwA -f pz case").ok);
	EXPECT_FALSE(parse("-T F -D siwA -f pz casex").ok);
	EXPECT_FALSE(parse("-T F -D siwA -f").ok);
	EXPECT_FALSE(parse("-T F -D siwA -f pz -w 2").ok);
}

TEST(KdtReport, CasesAndJson)
{
	auto r = parse("-T F -D siwA -f pz");
	ASSERT_TRUE(r.ok) << r.error;
	std::vector<kdt::CaseResult> c(2);
	c[0].index = 0;
	c[0].name = "case0";
	c[0].desc = "Test if we can normally create pz and destroy it";
	c[1].index = 1;
	c[1].verdict = KDT_CASE_FAIL;
	c[1].name = "case1";
	c[1].desc = "try to destroy pz with vi still associated with it";
	c[1].message = "dat_pz_free with an EP: \"DAT_SUCCESS\"";
	c[1].dat_status = 0;
	std::string out = kdt::format_cases(r.opts, c);
	EXPECT_NE(out.find("Function feature: Protection Zone management"
			   "        case: 1\n"), std::string::npos) << out;
	EXPECT_NE(out.find("Result: PASS\n"), std::string::npos);
	EXPECT_NE(out.find("Result: FAIL\n"), std::string::npos);
	kdt::Stats s;
	s.status = -5;
	s.message = "2 cases run, 1 failed";
	std::string js = kdt::format_cases_json(r.opts, s, c);
	EXPECT_NE(js.find("\"feature\":\"pz\""), std::string::npos) << js;
	EXPECT_NE(js.find("\"name\":\"case1\",\"index\":1,\"result\":\"FAIL\""),
		  std::string::npos) << js;
	EXPECT_NE(js.find("EP: \\\"DAT_SUCCESS\\\""), std::string::npos) << js;
	EXPECT_EQ(js.front(), '{');
	EXPECT_EQ(js.back(), '}');

	r = parse("-T L -D siwA -m 8");
	ASSERT_TRUE(r.ok) << r.error;
	c.resize(1);
	c[0] = kdt::CaseResult{};
	c[0].name = "limit_ia";
	c[0].desc = "max num of opens for the same physical IA";
	c[0].count = 8;
	c[0].message = "IAs opened: 8";
	out = kdt::format_cases(r.opts, c);
	EXPECT_NE(out.find("Limitation Test                      limit_ia\n"
			   "Description:  Test max num of opens"),
		  std::string::npos) << out;
	EXPECT_NE(out.find("LimitTest: IAs opened: 8\n"), std::string::npos);
	js = kdt::format_cases_json(r.opts, kdt::Stats{}, c);
	EXPECT_NE(js.find("\"width\":1,\"maximum\":8,"), std::string::npos) << js;
	EXPECT_NE(js.find("\"count\":8,"), std::string::npos) << js;
	EXPECT_STREQ(kdt::verdict_name(KDT_CASE_SKIP), "SKIP");
}
