// Unit tests of the `make bench` statistics, ratios and outputs.
#include <gtest/gtest.h>

#include "bench.h"

using namespace kdapl::bench;

TEST(Parse, FiguresCommentsAndErrors)
{
	Raw r = parse_raw("# cpus 2\nours.write.4096 12.500\n"
			  "ours.write.4096 13.0\r\n\n  tcp.lat.64.p99 99\n"
			  "bogus\nours.read.4096 12x\n");
	ASSERT_EQ(r.samples.size(), 2u);
	EXPECT_EQ(r.samples["ours.write.4096"],
		  (std::vector<double>{12.5, 13.0}));
	EXPECT_EQ(r.samples["tcp.lat.64.p99"], (std::vector<double>{99}));
	EXPECT_EQ(r.comments, (std::vector<std::string>{"cpus 2"}));
	EXPECT_EQ(r.errors,
		  (std::vector<std::string>{"bogus", "ours.read.4096 12x"}));
}

TEST(Stat, MedianOddEvenMinMax)
{
	auto s = stat_of({5, 1, 3});
	ASSERT_TRUE(s);
	EXPECT_DOUBLE_EQ(s->median, 3);
	EXPECT_DOUBLE_EQ(s->min, 1);
	EXPECT_DOUBLE_EQ(s->max, 5);
	EXPECT_EQ(s->n, 3u);
	s = stat_of({4, 1, 3, 2});
	EXPECT_DOUBLE_EQ(s->median, 2.5);
	EXPECT_FALSE(stat_of({}));
}

namespace {

std::map<std::string, Stat> fig(
	std::initializer_list<std::pair<const char *, double>> l)
{
	std::map<std::string, Stat> m;

	for (auto [k, v] : l)
		m[k] = Stat{v, v, v, 1};
	return m;
}

const Ratio *by_name(const std::vector<Ratio> &rs, const std::string &n)
{
	for (const auto &r : rs)
		if (r.name == n)
			return &r;
	return nullptr;
}

}  // namespace

TEST(Ratios, ThroughputTargets)
{
	auto st = fig({{"ours.write.4096", 40}, {"siw.write.4096", 20},
		       {"tcp.stream.4096", 100}, {"ours.read.65536", 90},
		       {"tcp.stream.65536", 100}, {"siw.read.65536", 95}});
	auto rs = ratios(st);
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
	r = by_name(rs, "ours/siw read 65536");
	ASSERT_TRUE(r);
	EXPECT_FALSE(r->met());
	// No figure, no ratio.
	EXPECT_FALSE(by_name(rs, "ours/siw read 4096"));
}

TEST(Ratios, LatencyAndSetupTargets)
{
	auto st = fig({{"ours.lat.64.median", 30}, {"tcp.lat.64.median", 25},
		       {"ours.lat.64.p99", 60}, {"tcp.lat.64.p99", 25},
		       {"ours.verbs.lat.64.median", 29},
		       {"siw.lat.64.median", 40}, {"ours.conn", 100},
		       {"ours.sconn", 140}});
	auto rs = ratios(st);
	const Ratio *r = by_name(rs, "ours/tcp lat 64 median");
	ASSERT_TRUE(r);
	EXPECT_DOUBLE_EQ(*r->target, 1.5);
	EXPECT_EQ(r->cmp, Cmp::at_most);
	EXPECT_TRUE(r->met());
	r = by_name(rs, "ours/tcp lat 64 p99");
	ASSERT_TRUE(r);
	EXPECT_DOUBLE_EQ(r->value, 2.4);
	EXPECT_FALSE(r->met());
	r = by_name(rs, "dat/verbs lat 64 median");
	ASSERT_TRUE(r);
	EXPECT_NEAR(r->value, 30.0 / 29, 1e-12);
	EXPECT_TRUE(r->met());
	r = by_name(rs, "ours/siw lat 64 median");
	ASSERT_TRUE(r);
	EXPECT_TRUE(r->met());
	r = by_name(rs, "sconn/conn");
	ASSERT_TRUE(r);
	EXPECT_DOUBLE_EQ(r->value, 1.4);
	EXPECT_FALSE(r->met());
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
}

TEST(Output, JsonHasFiguresSamplesAndRatios)
{
	Raw raw = parse_raw("# cpus 2\nours.write.4096 40\nours.write.4096 42\n"
			    "tcp.stream.4096 100\n");
	auto st = stats_of(raw);
	auto rs = ratios(st);
	std::string j = json(st, rs, raw, "perf");
	EXPECT_NE(j.find("\"flavour\": \"perf\""), std::string::npos);
	EXPECT_NE(j.find("\"ours.write.4096\": {\"unit\": \"MB/s\", "
			 "\"median\": 41.000, \"min\": 40.000, \"max\": "
			 "42.000, \"runs\": 2, \"samples\": [40.000, 42.000]}"),
		  std::string::npos);
	EXPECT_NE(j.find("\"name\": \"ours/tcp write 4096\""),
		  std::string::npos);
	EXPECT_NE(j.find("\"value\": 0.4100, \"target\": 0.50, "
			 "\"target_is\": \"at_least\", \"met\": false"),
		  std::string::npos);
	EXPECT_NE(j.find("\"notes\": [\"cpus 2\"]"), std::string::npos);
}

TEST(Output, TableAndPlot)
{
	auto st = fig({{"ours.write.4096", 40}, {"tcp.stream.4096", 100},
		       {"ours.write.65536", 80}});
	auto rs = ratios(st);
	std::string t = table(st, rs);
	EXPECT_NE(t.find("write 4 KiB"), std::string::npos);
	EXPECT_NE(t.find("MISSED"), std::string::npos);
	std::string p = plot_script(st, "out/bench");
	EXPECT_NE(p.find("set output 'out/bench.png'"), std::string::npos);
	EXPECT_NE(p.find("4096 40.000 ? ? ? ? ? 100.000\n"), std::string::npos);
	EXPECT_NE(p.find("65536 80.000 ? ? ? ? ? ?\n"), std::string::npos);
}

TEST(Output, OtherFiguresDoNotLookLikeSizes)
{
	auto st = fig({{"ours.conn.connect_us", 900}, {"ours.conn", 30},
		       {"ours.conn.disconnect_us", 100},
		       {"ours1cpu.lat.64.median", 80}, {"scale.on.2", 10},
		       {"ours.write.4096", 40}});
	auto rs = ratios(st);
	std::string t = table(st, rs);
	EXPECT_NE(t.find("connect 900 us, disconnect 100 us"),
		  std::string::npos);
	EXPECT_NE(t.find("write 4 KiB"), std::string::npos);
	EXPECT_NE(plot_script(st, "x").find("4096 40.000"), std::string::npos);
}

TEST(Topologies, PairFiguresGetTheirOwnRatiosAndSection)
{
	auto st = fig({{"ours.write.65536", 100}, {"tcp.stream.65536", 200},
		       {"pair.ours.write.65536", 150},
		       {"pair.tcp.stream.65536", 100},
		       {"pair.ours.lat.64.median", 30},
		       {"pair.tcp.lat.64.median", 20}});
	auto rs = ratios(st);
	const Ratio *one = nullptr, *two = nullptr, *lat = nullptr;
	for (const auto &r : rs) {
		if (r.name == "ours/tcp write 65536")
			one = &r;
		if (r.name == "pair: ours/tcp write 65536")
			two = &r;
		if (r.name == "pair: ours/tcp lat 64 median")
			lat = &r;
	}
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
	std::string t = table(st, rs);
	auto b = t.find("(topology b)");
	ASSERT_NE(b, std::string::npos);
	EXPECT_NE(t.find("write 64 KiB", b), std::string::npos);
	// the one-guest section does not pick the pair's figures up
	EXPECT_EQ(t.substr(0, b).find("150"), std::string::npos);
}

TEST(Ratios, RxeDatOverVerbs)
{
	auto st = fig({{"rxe.lat.64.median", 200}, {"rxe.verbs.lat.64.median", 40}});
	auto rs = ratios(st);
	bool found = false;
	for (const auto &r : rs)
		if (r.name == "rxe dat/verbs lat 64 median") {
			found = true;
			EXPECT_DOUBLE_EQ(r.value, 5.0);
		}
	EXPECT_TRUE(found);
}
