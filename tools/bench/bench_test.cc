// Unit tests of the `make bench` statistics, ratios and outputs.
#include <gtest/gtest.h>

#include "bench.h"

using namespace kdapl::bench;

TEST(Parse, FiguresRoundsHistogramsCommentsAndErrors)
{
	Raw r = parse_raw("# cpus 2\nours.write.4096 12.500 @1\n"
			  "ours.write.4096 13.0 @2\r\n\n  tcp.lat.64.p99 99\n"
			  "ours.lat.64.hist.40960_42239 7 @1\n"
			  "ours.lat.64.hist.40960_42239 3 @2\n"
			  "ours.lat.64.hist.1000_999x 3\n"
			  "bogus\nours.read.4096 12x\nours.read.4096 1 @x\n"
			  "ours.read.4096 1 @1 more\n");
	ASSERT_EQ(r.samples.size(), 2u);
	EXPECT_EQ(r.samples["ours.write.4096"].v,
		  (std::vector<double>{12.5, 13.0}));
	EXPECT_EQ(r.samples["ours.write.4096"].round,
		  (std::vector<long>{1, 2}));
	EXPECT_EQ(r.samples["tcp.lat.64.p99"].v, (std::vector<double>{99}));
	EXPECT_EQ(r.samples["tcp.lat.64.p99"].round, (std::vector<long>{-1}));
	ASSERT_EQ(r.hists.size(), 1u);
	EXPECT_DOUBLE_EQ((r.hists["ours.lat.64"][{40960, 42239}]), 10);
	EXPECT_EQ(r.comments, (std::vector<std::string>{"cpus 2"}));
	EXPECT_EQ(r.errors, (std::vector<std::string>{
		"ours.lat.64.hist.1000_999x 3", "bogus",
		"ours.read.4096 12x", "ours.read.4096 1 @x",
		"ours.read.4096 1 @1 more"}));
}

TEST(Stat, MedianIntervalMinMax)
{
	auto s = stat_of({5, 1, 3});
	ASSERT_TRUE(s);
	EXPECT_DOUBLE_EQ(s->median, 3);
	EXPECT_DOUBLE_EQ(s->min, 1);
	EXPECT_DOUBLE_EQ(s->max, 5);
	EXPECT_EQ(s->n, 3u);
	EXPECT_LE(s->lo, s->median);
	EXPECT_GE(s->hi, s->median);
	s = stat_of({4, 1, 3, 2});
	EXPECT_DOUBLE_EQ(s->median, 2.5);
	EXPECT_FALSE(stat_of({}));
	s = stat_of({7});
	EXPECT_DOUBLE_EQ(s->lo, 7);
	EXPECT_DOUBLE_EQ(s->hi, 7);
}

TEST(Stat, BootstrapIntervalNarrowsWithAgreementAndIsReproducible)
{
	std::vector<double> tight, wide;
	for (int i = 0; i < 20; i++) {
		tight.push_back(100 + (i % 5) * 0.1);
		wide.push_back(i % 2 ? 50 : 150);
	}
	auto [tl, th] = median_interval(tight);
	auto [wl, wh] = median_interval(wide);
	EXPECT_GE(tl, 100);
	EXPECT_LE(th, 100.4);
	EXPECT_LT(th - tl, 0.5);
	// a bimodal set: the interval spans the gap
	EXPECT_LE(wl, 100);
	EXPECT_GE(wh, 100);
	EXPECT_GT(wh - wl, 50);
	EXPECT_EQ(median_interval(wide), median_interval(wide));
}

TEST(Paired, ByRoundElseByIndex)
{
	Series a, b;
	a.add(10, 1);
	a.add(20, 2);
	a.add(30, 3);
	b.add(5, 3);	// another order, round 2 missing
	b.add(10, 1);
	EXPECT_EQ(paired(a, b), (std::vector<double>{1, 6}));
	// two runs in one round: first with first, second with second
	Series e, f;
	e.add(10, 1);
	e.add(30, 1);
	f.add(5, 1);
	f.add(10, 1);
	EXPECT_EQ(paired(e, f), (std::vector<double>{2, 3}));
	Series c, d;
	c.add(10);
	c.add(20);
	d.add(5);
	d.add(0);	// a zero denominator is left out
	d.add(1);
	EXPECT_EQ(paired(c, d), (std::vector<double>{2}));
}

namespace {

// One measured run of each figure, in round 1.
Raw fig(std::initializer_list<std::pair<const char *, double>> l)
{
	Raw r;

	for (auto [k, v] : l)
		r.samples[k].add(v, 1);
	return r;
}

const Ratio *by_name(const std::vector<Ratio> &rs, const std::string &n,
		     const std::string &topo = "a")
{
	for (const auto &r : rs)
		if (r.name == n && r.topology == topo)
			return &r;
	return nullptr;
}

}  // namespace

TEST(Ratios, PairedPerRoundNotRatioOfMedians)
{
	// A's medians/B's median would be 1.0; paired per round it is 2, 0.5,
	// 2: median 2. A drifting machine moves both runs of a round.
	Raw r;
	double a[] = {100, 50, 400}, b[] = {50, 100, 200};
	for (int i = 0; i < 3; i++) {
		r.samples["ours.write.65536"].add(a[i], i + 1);
		r.samples["tcp.stream.65536"].add(b[i], i + 1);
	}
	auto rs = ratios(r);
	const Ratio *x = by_name(rs, "ours/tcp write 65536");
	ASSERT_TRUE(x);
	EXPECT_DOUBLE_EQ(x->value, 2);
	EXPECT_EQ(x->pairs, 3u);
	EXPECT_LE(x->lo, 2);
	EXPECT_GE(x->hi, 2);
	EXPECT_TRUE(x->met());
}

TEST(Ratios, ThroughputAndCostTargets)
{
	auto raw = fig({{"ours.write.4096", 40}, {"siw.write.4096", 20},
			{"tcp.stream.4096", 100}, {"ours.read.65536", 90},
			{"tcp.stream.65536", 100}, {"siw.read.65536", 95},
			{"ours.send.65536", 70},
			{"ours.write.4096.us_per_mb", 3000},
			{"tcp.stream.4096.us_per_mb", 2000}});
	auto rs = ratios(raw);
	const Ratio *r = by_name(rs, "ours/tcp write 4096");
	ASSERT_TRUE(r);
	EXPECT_DOUBLE_EQ(r->value, 0.4);
	ASSERT_TRUE(r->target);
	EXPECT_DOUBLE_EQ(*r->target, 0.5);
	EXPECT_FALSE(r->met());
	r = by_name(rs, "ours/siw write 4096");
	ASSERT_TRUE(r);
	EXPECT_DOUBLE_EQ(r->value, 2);
	EXPECT_TRUE(r->met());
	r = by_name(rs, "ours/tcp read 65536");
	ASSERT_TRUE(r);
	EXPECT_DOUBLE_EQ(*r->target, 0.8);
	EXPECT_TRUE(r->met());
	// SEND is held to the same target (issue 17)
	r = by_name(rs, "ours/tcp send 65536");
	ASSERT_TRUE(r && r->target);
	EXPECT_FALSE(r->met());
	r = by_name(rs, "ours/siw read 65536");
	ASSERT_TRUE(r);
	EXPECT_FALSE(r->met());
	r = by_name(rs, "ours/tcp cpu per MB write 4096");
	ASSERT_TRUE(r);
	EXPECT_DOUBLE_EQ(r->value, 1.5);
	EXPECT_EQ(r->cmp, Cmp::at_most);
	EXPECT_DOUBLE_EQ(*r->target, 1.2);
	EXPECT_FALSE(r->met());
	// No figure, no ratio.
	EXPECT_FALSE(by_name(rs, "ours/siw read 4096"));
	EXPECT_FALSE(by_name(rs, "ours/tcp write 4096", "b"));
}

TEST(Ratios, ScalingTargetOnBusyEvdsOnly)
{
	auto raw = fig({{"scale.on.8.events", 20000},
			{"scale.off.8.events", 19000},
			{"scale.spread_work.8.events", 3400},
			{"scale.on_work.8.events", 2800},
			{"scale.off_work.8.events", 2000}});
	auto rs = ratios(raw);
	const Ratio *r = by_name(rs, "scale on/off 8 events");
	ASSERT_TRUE(r);
	EXPECT_FALSE(r->target) << "the transport bounds it, not the dispatch";
	r = by_name(rs, "scale spread/off 8 events_work");
	ASSERT_TRUE(r && r->target);
	EXPECT_DOUBLE_EQ(r->value, 1.7);
	EXPECT_DOUBLE_EQ(*r->target, 1.6);
	EXPECT_TRUE(r->met());
	r = by_name(rs, "scale on/off 8 events_work");
	ASSERT_TRUE(r && r->target);
	EXPECT_DOUBLE_EQ(r->value, 1.4);
	EXPECT_FALSE(r->met());
	EXPECT_EQ(unit_of("scale.spread_work.8.events"), "events/s");
	std::string t = table(stats_of(raw), rs, pooled(raw));
	EXPECT_NE(t.find("spread_work, 8 EP"), std::string::npos) << t;
}

TEST(Ratios, LatencyAndSetupTargets)
{
	auto raw = fig({{"ours.lat.64.median", 30}, {"tcp.lat.64.median", 25},
			{"ours.lat.64.p99", 66}, {"tcp.lat.64.p99", 25},
			{"ours.verbs.lat.64.median", 29},
			{"ours1cpu.lat.64.median", 58},
			{"ours1cpu.verbs.lat.64.median", 29},
			{"siw.lat.64.median", 40}, {"ours.conn", 100},
			{"ours.sconn", 140}});
	auto rs = ratios(raw);
	const Ratio *r = by_name(rs, "ours/tcp lat 64 median");
	ASSERT_TRUE(r);
	EXPECT_DOUBLE_EQ(*r->target, 1.5);
	EXPECT_EQ(r->cmp, Cmp::at_most);
	EXPECT_TRUE(r->met());
	r = by_name(rs, "ours/tcp lat 64 p99");
	ASSERT_TRUE(r);
	EXPECT_DOUBLE_EQ(r->value, 2.64);
	EXPECT_FALSE(r->target);
	r = by_name(rs, "ours p99/median lat 64");
	ASSERT_TRUE(r);
	EXPECT_DOUBLE_EQ(r->value, 2.2);
	EXPECT_FALSE(r->met());
	r = by_name(rs, "dat/verbs lat 64 median");
	ASSERT_TRUE(r);
	EXPECT_NEAR(r->value, 30.0 / 29, 1e-12);
	EXPECT_DOUBLE_EQ(*r->target, 1.10);
	EXPECT_TRUE(r->met());
	r = by_name(rs, "dat(cpus=0)/verbs lat 64 median");
	ASSERT_TRUE(r);
	EXPECT_DOUBLE_EQ(r->value, 2);
	r = by_name(rs, "verbs/tcp lat 64 median");
	ASSERT_TRUE(r);
	EXPECT_NEAR(r->value, 29.0 / 25, 1e-12);
	EXPECT_DOUBLE_EQ(*r->target, 1.3);
	EXPECT_TRUE(r->met());
	r = by_name(rs, "ours/siw lat 64 median");
	ASSERT_TRUE(r);
	EXPECT_TRUE(r->met());
	r = by_name(rs, "sconn/conn");
	ASSERT_TRUE(r);
	EXPECT_DOUBLE_EQ(r->value, 1.4);
	EXPECT_FALSE(r->met());
}

TEST(Pooled, PercentilesFromEveryRunsHistogram)
{
	// 90 round trips near 40 us in run 1, 9 near 80 us in run 2, one of
	// 2 ms: p50 40, p90 40, p99 80, p99.9 2000; one stall.
	Raw r = parse_raw("ours.lat.64.hist.39000_41000 90 @1\n"
			  "ours.lat.64.hist.79000_81000 9 @2\n"
			  "ours.lat.64.hist.1999000_2001000 1 @2\n"
			  "ours.lat.64.stalls 0 @1\nours.lat.64.stalls 1 @2\n");
	auto pl = pooled(r);
	ASSERT_EQ(pl.count("ours.lat.64"), 1u);
	const Pooled &p = pl["ours.lat.64"];
	EXPECT_DOUBLE_EQ(p.samples, 100);
	EXPECT_DOUBLE_EQ(p.p50, 40);
	EXPECT_DOUBLE_EQ(p.p90, 40);
	EXPECT_DOUBLE_EQ(p.p99, 80);
	EXPECT_DOUBLE_EQ(p.p999, 2000);
	EXPECT_DOUBLE_EQ(p.stalls, 1);
	// the histogram is not a figure
	EXPECT_EQ(stats_of(r).count("ours.lat.64.hist.39000_41000"), 0u);
}

TEST(Units, ByName)
{
	EXPECT_EQ(unit_of("ours.write.4096"), "MB/s");
	EXPECT_EQ(unit_of("tcp.stream.4096"), "MB/s");
	EXPECT_EQ(unit_of("ours.lat.64.p99"), "us");
	EXPECT_EQ(unit_of("ours.verbs.lat.64.median"), "us");
	EXPECT_EQ(unit_of("ours.sconn"), "1/s");
	EXPECT_EQ(unit_of("ours.sconn.connect_us"), "us");
	EXPECT_EQ(unit_of("scale.on.2.events"), "events/s");
	EXPECT_EQ(unit_of("scale.on.2.cpu1"), "events");
	EXPECT_EQ(unit_of("scale.on.2"), "MB/s");
	EXPECT_EQ(unit_of("ours.write.4096.cpus"), "CPUs");
	EXPECT_EQ(unit_of("ours.read.65536.busy_cpu1"), "CPUs");
	EXPECT_EQ(unit_of("ours.lat.64.busy_cpu0"), "CPUs");
	EXPECT_EQ(unit_of("ours.lat.64.us_per_op"), "us/op");
	EXPECT_EQ(unit_of("pair.tcp.stream.4096.us_per_mb"), "us/MB");
	EXPECT_EQ(unit_of("ours.lat.64.ipi_per_op"), "1/op");
	EXPECT_EQ(unit_of("ours.lat.64.stalls"), "round trips");
	EXPECT_EQ(unit_of("ours.lat.64.host_cpus"), "CPUs");
	EXPECT_EQ(unit_of("ours.lat.64.host_us_per_op"), "us/op");
}

TEST(Output, JsonLayout)
{
	Raw raw = parse_raw("# cpus 2\nours.write.4096 40 @1\n"
			    "ours.write.4096 42 @2\ntcp.stream.4096 100 @1\n"
			    "tcp.stream.4096 100 @2\n"
			    "pair.tcp.stream.4096 90 @1\n"
			    "ours.lat.64.hist.39000_41000 2 @1\n");
	auto st = stats_of(raw);
	auto rs = ratios(raw);
	std::string j = json(raw, st, rs, pooled(raw), "perf");
	EXPECT_NE(j.find("\"schema\": 2"), std::string::npos);
	EXPECT_NE(j.find("\"flavour\": \"perf\""), std::string::npos);
	EXPECT_NE(j.find("{\"name\": \"ours.write.4096\", \"topology\": \"a\","
			 " \"unit\": \"MB/s\", \"runs\": 2, \"median\": 41.000,"
			 " \"interval\": [40.000, 42.000], \"min\": 40.000,"
			 " \"max\": 42.000, \"samples\": [40.000, 42.000],"
			 " \"rounds\": [1, 2]}"),
		  std::string::npos);
	EXPECT_NE(j.find("{\"name\": \"tcp.stream.4096\", \"topology\": \"b\""),
		  std::string::npos);
	EXPECT_NE(j.find("{\"name\": \"ours.lat.64\", \"topology\": \"a\", "
			 "\"unit\": \"us\", \"samples\": 2, \"p50\": 40.000"),
		  std::string::npos);
	EXPECT_NE(j.find("{\"name\": \"ours/tcp write 4096\", \"topology\": "
			 "\"a\", \"numerator\": \"ours.write.4096\", "
			 "\"denominator\": \"tcp.stream.4096\", \"pairs\": 2, "
			 "\"value\": 0.4100, \"interval\": [0.4000, 0.4200], "
			 "\"target\": 0.50, \"target_is\": \"at_least\", "
			 "\"met\": false}"),
		  std::string::npos);
	EXPECT_NE(j.find("\"notes\": [\"cpus 2\"]"), std::string::npos);
}

TEST(Output, TableAndPlot)
{
	auto raw = fig({{"ours.write.4096", 40}, {"tcp.stream.4096", 100},
			{"ours.write.65536", 80},
			{"ours.write.4096.us_per_op", 12},
			{"ours.write.4096.us_per_mb", 3000},
			{"ours.write.4096.cpus", 1.5},
			{"ours.write.4096.host_cpus", 1.8},
			{"ours.write.4096.host_us_per_op", 14.4},
			{"pair.ours.write.4096", 90},
			{"pair.tcp.stream.4096", 100}});
	auto st = stats_of(raw);
	auto rs = ratios(raw);
	std::string t = table(st, rs, pooled(raw));
	EXPECT_NE(t.find("write 4 KiB"), std::string::npos);
	EXPECT_NE(t.find("MISSED"), std::string::npos);
	// the cost line: CPUs, us/op, us/MB, MB per CPU-second
	EXPECT_NE(t.find("ours.write.4096           1.50  12.0    3000    333"),
		  std::string::npos);
	// the host's: the QEMU processes' CPUs and CPU us per op
	EXPECT_NE(t.find("1.80  14.4\n"), std::string::npos) << t;
	EXPECT_EQ(t.find("ours.write.4096.host"), std::string::npos)
		<< "a host figure is no row of its own";
	std::string p = plot_script(rs, "out/bench");
	EXPECT_NE(p.find("set output 'out/bench.png'"), std::string::npos);
	EXPECT_NE(p.find("0 0.4000 0.4000 0.4000 0.50 \"ours/tcp write 4096\"\n"),
		  std::string::npos);
	auto b = p.find("$b << EOD");
	ASSERT_NE(b, std::string::npos);
	EXPECT_NE(p.find("0 0.9000 0.9000 0.9000 0.50", b), std::string::npos);
	EXPECT_NE(p.find("with yerrorbars"), std::string::npos);
}

TEST(Output, OtherFiguresDoNotLookLikeSizes)
{
	auto raw = fig({{"ours.conn.connect_us", 900}, {"ours.conn", 30},
			{"ours.conn.disconnect_us", 100},
			{"ours1cpu.lat.64.median", 80}, {"scale.on.2", 10},
			{"ours.write.4096", 40}});
	auto st = stats_of(raw);
	std::string t = table(st, ratios(raw), pooled(raw));
	EXPECT_NE(t.find("connect 900 us, disconnect 100 us"),
		  std::string::npos);
	EXPECT_NE(t.find("write 4 KiB"), std::string::npos);
}

TEST(Topologies, PairFiguresGetTheirOwnRatiosAndSection)
{
	auto raw = fig({{"ours.write.65536", 100}, {"tcp.stream.65536", 200},
			{"pair.ours.write.65536", 150},
			{"pair.tcp.stream.65536", 100},
			{"pair.ours.lat.64.median", 30},
			{"pair.tcp.lat.64.median", 20}});
	auto rs = ratios(raw);
	const Ratio *one = by_name(rs, "ours/tcp write 65536", "a");
	const Ratio *two = by_name(rs, "ours/tcp write 65536", "b");
	const Ratio *lat = by_name(rs, "ours/tcp lat 64 median", "b");
	ASSERT_NE(one, nullptr);
	ASSERT_NE(two, nullptr);
	ASSERT_NE(lat, nullptr);
	EXPECT_DOUBLE_EQ(one->value, 0.5);
	EXPECT_DOUBLE_EQ(two->value, 1.5);
	EXPECT_EQ(two->num, "pair.ours.write.65536");
	EXPECT_EQ(two->den, "pair.tcp.stream.65536");
	EXPECT_DOUBLE_EQ(lat->value, 1.5);
	EXPECT_EQ(unit_of("pair.ours.lat.64.median"), "us");
	EXPECT_EQ(unit_of("pair.tcp.stream.65536"), "MB/s");
	std::string t = table(stats_of(raw), rs, pooled(raw));
	auto b = t.find("(topology b)");
	ASSERT_NE(b, std::string::npos);
	EXPECT_NE(t.find("write 64 KiB", b), std::string::npos);
	// the one-guest section does not pick the pair's figures up
	EXPECT_EQ(t.substr(0, b).find("150"), std::string::npos);
}

TEST(Ratios, SweepSizesHaveNoTargetPlacementRatio)
{
	auto rs = ratios(fig({{"ours.write.1024", 10}, {"tcp.stream.1024", 40},
			      {"ours.verbsx.lat.64.median", 90},
			      {"ours.verbs.lat.64.median", 60}}));
	const Ratio *r = by_name(rs, "ours/tcp write 1024");
	ASSERT_TRUE(r);
	EXPECT_DOUBLE_EQ(r->value, 0.25);
	EXPECT_FALSE(r->target);
	r = by_name(rs, "verbs two CPUs/one lat 64 median");
	ASSERT_TRUE(r);
	EXPECT_DOUBLE_EQ(r->value, 1.5);
}

TEST(Output, SweepsAndSetupCreation)
{
	auto raw = fig({{"sweep.depth.1", 20}, {"sweep.depth.64", 120},
			{"sweep.conns.8", 150}, {"ours.conn", 300},
			{"ours.conn.connect_us", 3000},
			{"ours.conn.disconnect_us", 2000},
			{"ours.conn.psp_create_us", 150}});
	std::string t = table(stats_of(raw), ratios(raw), pooled(raw));
	EXPECT_NE(t.find("MB/s by queue depth:  1: 20.0 [20.0-20.0]  64: 120 "
			 "[120-120]"), std::string::npos);
	EXPECT_NE(t.find("MB/s by connections:  8: 150"), std::string::npos);
	EXPECT_NE(t.find("connect 3000 us, disconnect 2000 us, PSP creation "
			 "150 us"), std::string::npos);
}

TEST(Output, SignalSweep)
{
	auto raw = fig({{"sweep.signal.write.1", 100},
			{"sweep.signal.write.16", 150},
			{"sweep.signal.write.16.us_per_op", 12},
			{"sweep.signal.verbs.4.median", 80}});
	std::string t = table(stats_of(raw), ratios(raw), pooled(raw));
	EXPECT_NE(t.find("DAT RDMA WRITE 4 KiB, MB/s    1: 100 [100-100]  "
			 "16: 150 [150-150] (12.0 us/op)"), std::string::npos)
		<< t;
	EXPECT_NE(t.find("verbs 64 B round trip, us     4: 80.0 [80.0-80.0]"),
		  std::string::npos) << t;
	EXPECT_EQ(t.find("DAT 64 B round trip"), std::string::npos);
}

TEST(Ratios, RxeDatOverVerbs)
{
	auto rs = ratios(fig({{"rxe.lat.64.median", 200},
			      {"rxe.verbs.lat.64.median", 40}}));
	const Ratio *r = by_name(rs, "rxe dat/verbs lat 64 median");
	ASSERT_TRUE(r);
	EXPECT_DOUBLE_EQ(r->value, 5.0);
}

TEST(Ratios, ConsumersAgainstTheirTcpForm)
{
	auto raw = fig({{"nvme.kiwarp.seqwrite", 40},
			{"nvme.tcp.seqwrite", 50},
			{"nvme.siw.seqwrite", 20},
			{"nvme.kiwarp.seqwrite.us_per_mb", 3000},
			{"nvme.tcp.seqwrite.us_per_mb", 2000},
			{"nfs.kiwarp.randread", 9}, {"nfs.tcp.randread", 10},
			{"pair.nfs.kiwarp.seqread", 30},
			{"pair.nfs.tcp.seqread", 60}});
	auto rs = ratios(raw);
	const Ratio *r = by_name(rs, "kiwarp/tcp nvme seqwrite");
	ASSERT_TRUE(r && r->target);
	EXPECT_DOUBLE_EQ(r->value, 0.8);
	EXPECT_DOUBLE_EQ(*r->target, 0.8);
	EXPECT_TRUE(r->met());
	r = by_name(rs, "kiwarp/tcp cpu per MB nvme seqwrite");
	ASSERT_TRUE(r && r->target);
	EXPECT_DOUBLE_EQ(r->value, 1.5);
	EXPECT_EQ(r->cmp, Cmp::at_most);
	EXPECT_FALSE(r->met());
	r = by_name(rs, "kiwarp/siw nvme seqwrite");
	ASSERT_TRUE(r);
	EXPECT_DOUBLE_EQ(r->value, 2);
	EXPECT_FALSE(r->target);
	r = by_name(rs, "kiwarp/tcp nfs randread");
	ASSERT_TRUE(r);
	EXPECT_DOUBLE_EQ(r->value, 0.9);
	EXPECT_TRUE(r->met());
	r = by_name(rs, "kiwarp/tcp nfs seqread", "b");
	ASSERT_TRUE(r);
	EXPECT_DOUBLE_EQ(r->value, 0.5);
	EXPECT_FALSE(r->met());
	EXPECT_FALSE(by_name(rs, "rxe/tcp nvme seqwrite"));
	EXPECT_FALSE(by_name(rs, "kiwarp/tcp nfs seqread"));
	EXPECT_EQ(unit_of("nvme.kiwarp.seqwrite"), "MB/s");
	EXPECT_EQ(unit_of("pair.nfs.tcp.randread.us_per_mb"), "us/MB");

	auto st = stats_of(raw);
	std::string t = table(st, rs, pooled(raw));
	EXPECT_NE(t.find("Storage consumers"), std::string::npos);
	EXPECT_NE(t.find("nvme seqwrite"), std::string::npos);
	EXPECT_NE(t.find("40.0 (3000)"), std::string::npos) << t;
	EXPECT_EQ(t.find("nvme randread"), std::string::npos);
}
