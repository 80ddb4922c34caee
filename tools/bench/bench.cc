// See bench.h.
#include "bench.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

namespace kdapl::bench {

namespace {

std::vector<std::string> split(std::string_view s, char sep)
{
	std::vector<std::string> out;
	std::size_t start = 0;

	for (;;) {
		std::size_t p = s.find(sep, start);
		out.emplace_back(s.substr(start, p - start));
		if (p == std::string_view::npos)
			return out;
		start = p + 1;
	}
}

std::string trim(std::string_view s)
{
	std::size_t b = s.find_first_not_of(" \t\r");
	std::size_t e = s.find_last_not_of(" \t\r");

	if (b == std::string_view::npos)
		return {};
	return std::string(s.substr(b, e - b + 1));
}

std::string num(double v, int prec = 3)
{
	char buf[64];

	if (!std::isfinite(v))
		return "null";
	std::snprintf(buf, sizeof(buf), "%.*f", prec, v);
	return buf;
}

std::string json_str(std::string_view s)
{
	std::string out = "\"";

	for (char c : s) {
		if (c == '"' || c == '\\') {
			out += '\\';
			out += c;
		} else if (static_cast<unsigned char>(c) < 0x20) {
			char buf[8];
			std::snprintf(buf, sizeof(buf), "\\u%04x", c);
			out += buf;
		} else {
			out += c;
		}
	}
	return out + "\"";
}

bool is_size(const std::string &s)
{
	return !s.empty() && s.size() < 12 &&
	       s.find_first_not_of("0123456789") == std::string::npos;
}

const Stat *find(const std::map<std::string, Stat> &st, const std::string &k)
{
	auto it = st.find(k);
	return it == st.end() ? nullptr : &it->second;
}

// Message sizes that appear as <stack>.<op>.<size> (throughput figures).
std::set<long> tput_sizes(const std::map<std::string, Stat> &st)
{
	std::set<long> sizes;

	for (const auto &[k, v] : st) {
		auto p = split(k, '.');
		if (p.size() == 3 && (p[0] == "ours" || p[0] == "siw" ||
				      p[0] == "tcp") && p[1] != "lat" &&
		    is_size(p[2]))
			sizes.insert(std::stol(p[2]));
	}
	return sizes;
}

std::set<long> lat_sizes(const std::map<std::string, Stat> &st)
{
	std::set<long> sizes;

	for (const auto &[k, v] : st) {
		auto p = split(k, '.');
		if (p.size() == 4 && p[1] == "lat" && is_size(p[2]))
			sizes.insert(std::stol(p[2]));
	}
	return sizes;
}

void add_ratio(std::vector<Ratio> &rs, const std::map<std::string, Stat> &st,
	       std::string name, std::string n, std::string d,
	       std::optional<double> target = std::nullopt,
	       Cmp cmp = Cmp::at_least)
{
	const Stat *a = find(st, n), *b = find(st, d);

	if (!a || !b || b->median == 0)
		return;
	Ratio r;
	r.name = std::move(name);
	r.num = std::move(n);
	r.den = std::move(d);
	r.value = a->median / b->median;
	r.target = target;
	r.cmp = cmp;
	rs.push_back(std::move(r));
}

std::string human_size(long s)
{
	if (s >= (1 << 20) && s % (1 << 20) == 0)
		return std::to_string(s >> 20) + " MiB";
	if (s >= 1024 && s % 1024 == 0)
		return std::to_string(s >> 10) + " KiB";
	return std::to_string(s) + " B";
}

std::string cell(const Stat *s)
{
	if (!s)
		return "-";
	int prec = s->median >= 100 ? 0 : 1;
	return num(s->median, prec) + " [" + num(s->min, prec) + "-" +
	       num(s->max, prec) + "]";
}

std::string pad(std::string s, std::size_t w)
{
	if (s.size() < w)
		s.append(w - s.size(), ' ');
	return s;
}

}  // namespace

Raw parse_raw(std::string_view text)
{
	Raw raw;

	for (const auto &l : split(text, '\n')) {
		std::string line = trim(l);
		if (line.empty())
			continue;
		if (line[0] == '#') {
			raw.comments.push_back(trim(line.substr(1)));
			continue;
		}
		auto sp = line.find_first_of(" \t");
		if (sp == std::string::npos) {
			raw.errors.push_back(line);
			continue;
		}
		std::string key = line.substr(0, sp);
		std::string val = trim(line.substr(sp));
		try {
			std::size_t used = 0;
			double v = std::stod(val, &used);
			if (used != val.size() || !std::isfinite(v))
				throw std::invalid_argument(val);
			raw.samples[key].push_back(v);
		} catch (const std::exception &) {
			raw.errors.push_back(line);
		}
	}
	return raw;
}

std::optional<Stat> stat_of(std::vector<double> v)
{
	if (v.empty())
		return std::nullopt;
	std::sort(v.begin(), v.end());
	Stat s;
	s.n = v.size();
	s.min = v.front();
	s.max = v.back();
	s.median = v.size() % 2 ? v[v.size() / 2] :
		   (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
	return s;
}

std::map<std::string, Stat> stats_of(const Raw &raw)
{
	std::map<std::string, Stat> out;

	for (const auto &[k, v] : raw.samples)
		if (auto s = stat_of(v))
			out[k] = *s;
	return out;
}

bool Ratio::met() const
{
	if (!target)
		return true;
	return cmp == Cmp::at_least ? value >= *target : value <= *target;
}

namespace {

// The ratios of one topology's figures (keys without a topology prefix).
std::vector<Ratio> ratios_one(const std::map<std::string, Stat> &st)
{
	std::vector<Ratio> rs;

	for (long s : tput_sizes(st)) {
		std::string ss = std::to_string(s);
		for (std::string op : {"write", "read", "send"}) {
			add_ratio(rs, st, "ours/siw " + op + " " + ss,
				  "ours." + op + "." + ss,
				  "siw." + op + "." + ss, 1.0);
			std::optional<double> t;
			if (op != "send")
				t = s <= 4096 ? 0.5 : 0.8;
			add_ratio(rs, st, "ours/tcp " + op + " " + ss,
				  "ours." + op + "." + ss,
				  "tcp.stream." + ss, t);
			add_ratio(rs, st, "siw/tcp " + op + " " + ss,
				  "siw." + op + "." + ss, "tcp.stream." + ss);
		}
	}
	for (long s : lat_sizes(st)) {
		std::string ss = std::to_string(s);
		for (std::string q : {"median", "p99"}) {
			std::string k = ".lat." + ss + "." + q;
			add_ratio(rs, st, "ours/siw lat " + ss + " " + q,
				  "ours" + k, "siw" + k, 1.0, Cmp::at_most);
			std::optional<double> t;
			if (s == 64)
				t = q == "median" ? 1.5 : 2.0;
			add_ratio(rs, st, "ours/tcp lat " + ss + " " + q,
				  "ours" + k, "tcp" + k, t, Cmp::at_most);
			std::optional<double> tv;
			if (q == "median")
				tv = 1.05;
			add_ratio(rs, st, "dat/verbs lat " + ss + " " + q,
				  "ours" + k, "ours.verbs" + k, tv,
				  Cmp::at_most);
			add_ratio(rs, st, "dat(cpus=0)/verbs lat " + ss + " " +
				  q, "ours1cpu" + k, "ours.verbs" + k);
			// the DAT layer's cost over RoCE (rxe)
			add_ratio(rs, st, "rxe dat/verbs lat " + ss + " " + q,
				  "rxe" + k, "rxe.verbs" + k);
		}
	}
	add_ratio(rs, st, "ours/siw conn", "ours.conn", "siw.conn");
	add_ratio(rs, st, "ours/tcp conn", "ours.conn", "tcp.conn");
	add_ratio(rs, st, "sconn/conn", "ours.sconn", "ours.conn", 1.5);
	for (int n = 1; n <= 64; n *= 2) {
		std::string ns = std::to_string(n);
		add_ratio(rs, st, "scale on/off " + ns + " events",
			  "scale.on." + ns + ".events",
			  "scale.off." + ns + ".events");
	}
	return rs;
}

constexpr std::string_view pair_prefix = "pair.";

}  // namespace

// Topology (a), one guest, has plain figure names; topology (b), two
// guests, the same names behind "pair.". Each gets the same ratios; (b)'s
// are named "pair: <ratio>" and refer to its own figures.
std::vector<Ratio> ratios(const std::map<std::string, Stat> &st)
{
	std::map<std::string, Stat> one, pair;

	for (const auto &[k, v] : st) {
		if (k.starts_with(pair_prefix))
			pair[k.substr(pair_prefix.size())] = v;
		else
			one[k] = v;
	}
	auto rs = ratios_one(one);
	for (auto r : ratios_one(pair)) {
		r.name = "pair: " + r.name;
		r.num = std::string(pair_prefix) + r.num;
		r.den = std::string(pair_prefix) + r.den;
		rs.push_back(std::move(r));
	}
	return rs;
}

std::string unit_of(std::string_view figure)
{
	if (figure.starts_with(pair_prefix))
		figure.remove_prefix(pair_prefix.size());
	auto p = split(figure, '.');

	if (figure.ends_with("_us"))
		return "us";
	if (p.size() >= 2 && (p[1] == "lat" ||
			      (p.size() >= 3 && p[2] == "lat")))
		return "us";
	if (p.size() == 2 && (p[1] == "conn" || p[1] == "sconn"))
		return "1/s";
	if (p[0] == "scale" && p.size() == 4)
		return p[3] == "events" ? "events/s" : "events";
	return "MB/s";
}

std::string json(const std::map<std::string, Stat> &stats,
		 const std::vector<Ratio> &rs, const Raw &raw,
		 std::string_view flavour)
{
	std::ostringstream o;
	bool first = true;

	o << "{\n  \"flavour\": " << json_str(flavour) << ",\n";
	o << "  \"notes\": [";
	for (std::size_t i = 0; i < raw.comments.size(); i++)
		o << (i ? ", " : "") << json_str(raw.comments[i]);
	o << "],\n  \"figures\": {";
	for (const auto &[k, s] : stats) {
		o << (first ? "\n" : ",\n") << "    " << json_str(k)
		  << ": {\"unit\": " << json_str(unit_of(k))
		  << ", \"median\": " << num(s.median) << ", \"min\": "
		  << num(s.min) << ", \"max\": " << num(s.max)
		  << ", \"runs\": " << s.n << ", \"samples\": [";
		const auto &v = raw.samples.at(k);
		for (std::size_t i = 0; i < v.size(); i++)
			o << (i ? ", " : "") << num(v[i]);
		o << "]}";
		first = false;
	}
	o << "\n  },\n  \"ratios\": [";
	first = true;
	for (const auto &r : rs) {
		o << (first ? "\n" : ",\n") << "    {\"name\": "
		  << json_str(r.name) << ", \"numerator\": "
		  << json_str(r.num) << ", \"denominator\": "
		  << json_str(r.den) << ", \"value\": " << num(r.value, 4);
		if (r.target)
			o << ", \"target\": " << num(*r.target, 2)
			  << ", \"target_is\": "
			  << (r.cmp == Cmp::at_least ? "\"at_least\"" :
			      "\"at_most\"")
			  << ", \"met\": " << (r.met() ? "true" : "false");
		o << "}";
		first = false;
	}
	o << "\n  ]\n}\n";
	return o.str();
}

namespace {

// The throughput and ping-pong sections of one topology's figures.
void tput_lat(std::ostringstream &o, const std::map<std::string, Stat> &st)
{
	const std::size_t w = 26;

	o << "Throughput, MB/s: median [min-max]\n";
	o << pad("", 18) << pad("ours (kiwarp)", w) << pad("siw", w)
	  << "kernel TCP\n";
	for (std::string op : {"write", "read", "send"}) {
		for (long s : tput_sizes(st)) {
			std::string ss = std::to_string(s);
			const Stat *a = find(st, "ours." + op + "." + ss);
			const Stat *b = find(st, "siw." + op + "." + ss);
			if (!a && !b)
				continue;
			o << pad(op + " " + human_size(s), 18) << pad(cell(a), w)
			  << pad(cell(b), w)
			  << cell(find(st, "tcp.stream." + ss)) << "\n";
		}
	}
	o << "\nPing-pong round trip, us: median [min-max] of the runs\n";
	o << pad("", 18) << pad("ours (DAT)", w) << pad("ours (DAT, cpus=0)", w)
	  << pad("ours (verbs)", w) << pad("siw", w) << "kernel TCP\n";
	for (long s : lat_sizes(st)) {
		for (std::string q : {"median", "p99"}) {
			std::string k = ".lat." + std::to_string(s) + "." + q;
			o << pad(human_size(s) + " " + q, 18)
			  << pad(cell(find(st, "ours" + k)), w)
			  << pad(cell(find(st, "ours1cpu" + k)), w)
			  << pad(cell(find(st, "ours.verbs" + k)), w)
			  << pad(cell(find(st, "siw" + k)), w)
			  << cell(find(st, "tcp" + k)) << "\n";
		}
	}
}

}  // namespace

std::string table(const std::map<std::string, Stat> &st,
		  const std::vector<Ratio> &rs)
{
	std::map<std::string, Stat> pair;
	std::ostringstream o;
	const std::size_t w = 26;

	for (const auto &[k, v] : st)
		if (k.starts_with(pair_prefix))
			pair[k.substr(pair_prefix.size())] = v;
	o << "One guest, veth (topology a)\n\n";
	tput_lat(o, st);
	if (!pair.empty()) {
		o << "\nTwo guests, one vCPU each, virtio wire (topology b)\n\n";
		tput_lat(o, pair);
	}
	o << "\nConnection setup, per s\n";
	for (auto [k, label] : {std::pair{"ours.conn", "ours ep_connect"},
				{"ours.sconn", "ours socket_connect"},
				{"siw.conn", "siw ep_connect"},
				{"tcp.conn", "tcp connect"}})
		if (const Stat *s = find(st, k))
		{
			o << pad(label, 22) << pad(cell(s), w);
			const Stat *up = find(st, std::string(k) + ".connect_us");
			const Stat *dn = find(st, std::string(k) +
					      ".disconnect_us");
			if (up && dn)
				o << " connect " << num(up->median, 0)
				  << " us, disconnect " << num(dn->median, 0)
				  << " us";
			o << "\n";
		}
	o << "\nCompletion scaling (ours, RDMA WRITE): events/s, per-CPU events\n";
	for (std::string m : {"on", "off"}) {
		for (int n = 1; n <= 64; n *= 2) {
			std::string base = "scale." + m + "." + std::to_string(n);
			const Stat *ev = find(st, base + ".events");
			if (!ev)
				continue;
			o << pad("spread " + m + ", " + std::to_string(n) +
				 " EP", 18) << pad(cell(ev), w);
			for (int c = 0; c < 64; c++) {
				const Stat *cs = find(st, base + ".cpu" +
						      std::to_string(c));
				if (!cs)
					break;
				o << " cpu" << c << "=" << num(cs->median, 0);
			}
			o << "\n";
		}
	}
	o << "\nRatios (of medians)\n";
	for (const auto &r : rs) {
		o << pad(r.name, 34) << pad(num(r.value, 3), 9);
		if (r.target)
			o << (r.cmp == Cmp::at_least ? ">= " : "<= ")
			  << num(*r.target, 2) << (r.met() ? "  met" :
						   "  MISSED");
		o << "\n";
	}
	return o.str();
}

std::string plot_script(const std::map<std::string, Stat> &st,
			std::string_view prefix)
{
	static const char *const cols[][2] = {
		{"ours.write", "ours RDMA WRITE"},
		{"ours.read", "ours RDMA READ"},
		{"ours.send", "ours SEND"},
		{"siw.write", "siw RDMA WRITE"},
		{"siw.read", "siw RDMA READ"},
		{"siw.send", "siw SEND"},
		{"tcp.stream", "kernel TCP stream"},
	};
	std::ostringstream o;

	o << "$data << EOD\n";
	for (long s : tput_sizes(st)) {
		o << s;
		for (const auto &c : cols) {
			const Stat *v = find(st, std::string(c[0]) + "." +
					     std::to_string(s));
			o << " " << (v ? num(v->median) : "?");
		}
		o << "\n";
	}
	o << "EOD\n";
	o << "set terminal pngcairo size 960,600\n";
	o << "set output '" << prefix << ".png'\n";
	o << "set datafile missing '?'\n";
	o << "set title 'Throughput vs message size (median of the runs)'\n";
	o << "set xlabel 'message size (bytes)'\nset ylabel 'MB/s'\n";
	o << "set logscale x 2\nset key outside right\nset grid\n";
	o << "set xtics (";
	bool first = true;
	for (long s : tput_sizes(st)) {
		o << (first ? "" : ", ") << "'" << human_size(s) << "' " << s;
		first = false;
	}
	o << ")\n";
	o << "set yrange [0:*]\n";
	o << "plot ";
	for (std::size_t i = 0; i < std::size(cols); i++)
		o << (i ? ", \\\n     " : "") << "$data using 1:" << i + 2
		  << " with linespoints title '" << cols[i][1] << "'";
	o << "\n";
	return o.str();
}

}  // namespace kdapl::bench
