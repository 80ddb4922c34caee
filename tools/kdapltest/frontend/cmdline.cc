// SPDX-License-Identifier: GPL-2.0
// kdapltest front end: dapltest's command line (dapl 2.1.10 dapltest).
#include "cmdline.h"

#include <cstring>

#include "uapi/kdapltest.h"

namespace kdt {
namespace {

bool all_digits(std::string_view s)
{
	if (s.empty() || s.size() > 9)
		return false;
	for (char c : s)
		if (c < '0' || c > '9')
			return false;
	return true;
}

bool is_who(std::string_view s)
{
	return s.starts_with("client") || s.starts_with("server");
}

// Which options take an argument, per test type (dapltest's getopt).
std::string_view opts_for(char t)
{
	switch (t) {
	case 'S':
		return "dD:n:R:";
	case 'T':
		return "rQVPdw:s:D:i:t:v:R:n:";
	case 'P':
		return "dD:s:m:i:p:R:n:r";
	case 'Q':
		return "ds:D:R:n:";
	case 'L':
		return "dD:w:m:R:n:";
	case 'F':
		return "dD:f:s:i:t:v:R:n:";
	}
	return "";
}

const char *const limit_names[KDT_LIM_NUM] = {
	"limit_ia", "limit_pz", "limit_evd", "limit_ep", "limit_rsp",
	"limit_psp", "limit_lmr", "limit_rpost", "limit_size_lmr",
};

struct Feature {
	const char *name;
	uint32_t cases;
};

// dapltest's case counts; connmgt has kdapltest's own case2, queryinfo
// the 16 cases of dapltest's kDAPL build
const Feature features[KDT_FFT_NUM] = {
	{"hwconn", 4}, {"endpoint", 3}, {"pz", 3},
	{"mem", 5}, {"connmgt", 3}, {"queryinfo", 16},
};

}  // namespace

const char *limit_name(uint32_t index)
{
	return index < KDT_LIM_NUM ? limit_names[index] : "?";
}

std::optional<uint32_t> limit_index(std::string_view name)
{
	for (uint32_t i = 0; i < KDT_LIM_NUM; i++)
		if (name == limit_names[i])
			return i;
	return std::nullopt;
}

const char *fft_feature_name(uint32_t feature)
{
	return feature < KDT_FFT_NUM ? features[feature].name : "?";
}

std::optional<uint32_t> fft_feature(std::string_view name)
{
	for (uint32_t i = 0; i < KDT_FFT_NUM; i++)
		if (name == features[i].name)
			return i;
	return std::nullopt;
}

uint32_t fft_cases(uint32_t feature)
{
	return feature < KDT_FFT_NUM ? features[feature].cases : 0;
}

std::optional<uint32_t> parse_qos(std::string_view s)
{
	if (s == "BE")
		return 0x00;
	if (s == "HT")
		return 0x01;
	if (s == "LL")
		return 0x02;
	if (s == "EC")
		return 0x04;
	if (s == "PM")
		return 0x08;
	return std::nullopt;
}

std::optional<kdt_op> parse_op(const std::vector<std::string> &w,
			       std::string &error)
{
	kdt_op op{};
	size_t i = 2;

	op.seg_size = 4096;
	op.num_segs = 1;
	if (w.empty() || (w[0] != "server" && w[0] != "client")) {
		error = "OP first arg must be <server/client>";
		return std::nullopt;
	}
	op.server_initiated = w[0] == "server";
	if (w.size() < 2) {
		error = "OP second arg must be <RR/RW/SR>";
		return std::nullopt;
	}
	if (w[1] == "RR")
		op.transfer_type = KDT_RDMA_READ;
	else if (w[1] == "RW")
		op.transfer_type = KDT_RDMA_WRITE;
	else if (w[1] == "SR")
		op.transfer_type = KDT_SEND_RECV;
	else {
		error = "OP second arg must be <RR/RW/SR>";
		return std::nullopt;
	}
	if (i < w.size() && all_digits(w[i]))
		op.seg_size = std::stoul(w[i++]);
	if (i < w.size() && all_digits(w[i]))
		op.num_segs = std::stoul(w[i++]);
	if (i < w.size() && w[i] == "-f") {
		if (op.transfer_type != KDT_SEND_RECV) {
			error = "OP: -f only valid on SEND_RECV";
			return std::nullopt;
		}
		op.reap_send_on_recv = 1;
		i++;
	}
	if (i < w.size()) {
		error = "OP too many args: " + w[i];
		return std::nullopt;
	}
	if (!op.seg_size || !op.num_segs) {
		error = "OP segment size and count must be at least 1";
		return std::nullopt;
	}
	return op;
}

ParseResult parse_cmdline(const std::vector<std::string> &args)
{
	ParseResult r;
	Options &o = r.opts;
	std::vector<std::string> rest;
	size_t i = 0;

	auto fail = [&r](std::string msg) {
		r.ok = false;
		r.error = std::move(msg);
		return r;
	};

	// -T first, as dapltest wants it (-T X or -TX)
	if (args.empty())
		return fail("missing -T <test type>");
	if (args[0] == "-T" && args.size() > 1 && args[1].size() == 1) {
		o.test_type = args[1][0];
		i = 2;
	} else if (args[0].size() == 3 && args[0].starts_with("-T")) {
		o.test_type = args[0][2];
		i = 1;
	} else {
		return fail("the first option must be -T <S|T|P|L|Q|F>");
	}
	if (opts_for(o.test_type).empty())
		return fail(std::string("unknown test type '") + o.test_type +
			    "' (S, T, P, L, Q or F)");
	std::string_view spec = opts_for(o.test_type);

	for (; i < args.size(); i++) {
		const std::string &a = args[i];

		if (a == "--json") {
			o.json = true;
			continue;
		}
		if (a == "--wire-version" || a == "--wire-test-type" ||
		    a == "--cmd-bytes") {
			uint32_t *dst = a == "--wire-version" ? &o.craft_version :
					a == "--cmd-bytes" ? &o.craft_cmd_len :
					&o.craft_test_type;
			if (o.test_type != 'T' && o.test_type != 'Q' &&
			    o.test_type != 'P')
				return fail(a + " is for -T T, P and Q");
			if (i + 1 >= args.size() || !all_digits(args[i + 1]) ||
			    std::stoul(args[i + 1]) == 0)
				return fail(a + " needs a number above 0");
			*dst = std::stoul(args[++i]);
			continue;
		}
		if (a.size() < 2 || a[0] != '-' ||
		    (a == "-f" && o.test_type == 'T')) {
			rest.push_back(a);
			continue;
		}
		char c = a[1];
		size_t pos = spec.find(c);
		if (c == ':' || pos == std::string_view::npos)
			return fail(std::string("invalid option -") + c +
				    " for -T " + o.test_type);
		bool takes = pos + 1 < spec.size() && spec[pos + 1] == ':';
		std::string val;
		if (takes) {
			if (a.size() > 2)
				val = a.substr(2);
			else if (i + 1 < args.size())
				val = args[++i];
			else
				return fail(std::string("option -") + c +
					    " needs an argument");
		} else if (a.size() > 2) {
			return fail("invalid option " + a);
		}
		auto number = [&](uint32_t &dst, const char *what) {
			if (!all_digits(val))
				return false;
			dst = std::stoul(val);
			(void)what;
			return true;
		};
		switch (c) {
		case 's':
			if (val.empty() || val[0] == '-')
				return fail("must specify server name");
			o.server = val;
			break;
		case 'D':
			o.device = val;
			break;
		case 'n':
			if (!number(o.port, "port") || o.port > 65535)
				return fail("Syntax Error -n <port> option");
			break;
		case 'i':
			if (!number(o.iterations, "iterations"))
				return fail("Syntax Error -i <iterations> option");
			break;
		case 't':
			if (!number(o.threads, "threads"))
				return fail("Syntax Error -t <num threads> option");
			break;
		case 'w':
			if (o.test_type == 'L') {
				if (!number(o.width, "width") || !o.width ||
				    o.width > KDT_LIMIT_WIDTH_MAX)
					return fail("Syntax Error -w <width> option "
						    "(1 to " +
						    std::to_string(KDT_LIMIT_WIDTH_MAX) +
						    ")");
				break;
			}
			if (!number(o.eps_per_thread, "eps"))
				return fail("Syntax Error -w <EPs/thread> option");
			break;
		case 'p':
			if (!number(o.pipeline, "pipeline"))
				return fail("Syntax Error -p <pipeline> option");
			break;
		case 'm':
			if (o.test_type == 'L') {
				if (!number(o.maximum, "maximum") || !o.maximum)
					return fail("Syntax Error -m <maximum> option");
				break;
			}
			if (val != "b" && val != "p")
				return fail("-m takes b (blocking) or p (polling)");
			o.mode = val[0];
			break;
		case 'R': {
			auto q = parse_qos(val);
			if (!q)
				return fail("-R takes BE, HT, LL, EC or PM");
			o.qos = *q;
			break;
		}
		case 'V':
			o.validate = true;
			break;
		case 'P':
			o.poll = true;
			break;
		case 'r':
			o.use_rsp = true;
			break;
		case 'd':
			o.debug = true;
			break;
		case 'f': {
			auto f = fft_feature(val);
			if (!f)
				return fail("don't know this function feature: " +
					    val + " (hwconn, endpoint, pz, mem, "
					    "connmgt or queryinfo)");
			o.feature = *f;
			break;
		}
		default:
			// accepted by dapltest, without effect here (-Q, -v, -f)
			break;
		}
	}

	if (o.test_type == 'P') {
		// <RR|RW> [seg_size [num_segs]], default RW 4096 1
		kdt_op op{};
		size_t k = 0;

		op.transfer_type = KDT_RDMA_WRITE;
		op.seg_size = 4096;
		op.num_segs = 1;
		if (k < rest.size()) {
			if (rest[k] == "RR")
				op.transfer_type = KDT_RDMA_READ;
			else if (rest[k] != "RW")
				return fail("-T P: the op is RR or RW, not " +
					    rest[k]);
			k++;
		}
		if (k < rest.size() && all_digits(rest[k]))
			op.seg_size = std::stoul(rest[k++]);
		if (k < rest.size() && all_digits(rest[k]))
			op.num_segs = std::stoul(rest[k++]);
		if (k < rest.size())
			return fail("unexpected argument " + rest[k]);
		if (!op.seg_size || !op.num_segs || op.num_segs > 8)
			return fail("-T P: segment size at least 1, 1 to 8 "
				    "segments");
		if (!o.iterations)
			return fail("-T P: at least 1 iteration");
		o.ops.push_back(op);
	} else if (o.test_type == 'L') {
		// the limit tests named, or all of them
		for (const auto &name : rest) {
			if (name == "limit_cno")
				return fail("limit_cno: kDAPL has no CNOs");
			auto idx = limit_index(name);
			if (!idx)
				return fail("Cannot find this limit test: " + name);
			o.select |= 1u << *idx;
		}
	} else if (o.test_type == 'F') {
		if (o.feature == ~0u)
			return fail("must define the function feature with -f "
				    "to test");
		uint32_t size = fft_cases(o.feature);
		for (const auto &c : rest) {
			std::string_view n(c);
			if (n.size() < 5 || !n.starts_with("case"))
				return fail("test cases format is not correct: " +
					    c);
			if (!all_digits(n.substr(4)))
				return fail("must specify case number: " + c);
			uint32_t k = std::stoul(c.substr(4));
			if (k >= size)
				return fail("test case number must be within "
					    "range : 0 -- " +
					    std::to_string(size - 1));
			o.select |= 1u << k;
		}
	} else if (o.test_type != 'T' && !rest.empty()) {
		return fail("unexpected argument " + rest[0]);
	}
	if ((o.test_type == 'T' || o.test_type == 'P' || o.test_type == 'Q') &&
	    o.server.empty())
		return fail("Must specify server_name in command line");

	if (o.test_type == 'T') {
		// ops: each starts at "client"/"server"
		for (size_t k = 0; k < rest.size();) {
			std::vector<std::string> words{rest[k++]};
			while (k < rest.size() && !is_who(rest[k]))
				words.push_back(rest[k++]);
			if (o.ops.size() >= KDT_MAX_OPS)
				return fail("Too Many Ops - Max 100");
			std::string err;
			auto op = parse_op(words, err);
			if (!op)
				return fail(err);
			o.ops.push_back(*op);
		}
		if (o.validate) {
			static const char *const barrier[] = {
				"server SR", "client SR", "server SR"};
			for (const char *b : barrier) {
				std::string err;
				std::string who(b, 6);
				if (o.ops.size() >= KDT_MAX_OPS)
					return fail("Too Many Ops - Max 100");
				r.notes.push_back(std::string("NOTE: Adding OP \"") +
						  b + "\" - for validation");
				o.ops.push_back(*parse_op({who, "SR"}, err));
			}
		}
		kdt_transaction_cmd cmd = to_transaction_cmd(o);
		if (const char *why = kdt_transaction_cmd_check(&cmd))
			return fail(std::string("Error: ") + why);
	}
	r.ok = true;
	return r;
}

kdt_transaction_cmd to_transaction_cmd(const Options &o)
{
	kdt_transaction_cmd c{};

	c.dapltest_version = KDT_DAPLTEST_VERSION;
	c.client_is_little_endian = 1;
	std::strncpy(c.server_name, o.server.c_str(), KDT_NAME_SZ - 1);
	std::strncpy(c.dapl_name, o.device.c_str(), KDT_NAME_SZ - 1);
	c.num_iterations = o.iterations;
	c.num_threads = o.threads;
	c.eps_per_thread = o.eps_per_thread;
	c.use_rsp = o.use_rsp;
	c.debug = o.debug;
	c.validate = o.validate;
	c.poll = o.poll;
	c.server_port = o.port;
	c.qos = o.qos;
	c.num_ops = static_cast<uint32_t>(o.ops.size());
	for (size_t k = 0; k < o.ops.size() && k < KDT_MAX_OPS; k++)
		c.op[k] = o.ops[k];
	return c;
}

std::string usage()
{
	return "USAGE: kdapltest -T <S|T|P|L|Q|F> [-D IA_name] [-n port] "
	       "[test-specific args] [--json]\n"
	       "USAGE: kdapltest -T T -s <server> [-D <IA>] [-i <iterations>] "
	       "[-t <threads>] [-w <EPs per thread>] [-V] [-P] [-r] [-d] "
	       "[-R BE|HT|LL|EC|PM] OP [OP...]\n"
	       "USAGE:   OP: <client|server> <SR|RW|RR> [seg_size [num_segs]] "
	       "[-f]\n"
	       "USAGE: kdapltest -T Q -s <server> [-D <IA>]\n"
	       "USAGE: kdapltest -T S -D <IA> [-n <port>] [-d]\n"
	       "USAGE: kdapltest -T P -s <server> [-D <IA>] [-i <iterations>] "
	       "[-p <pipeline>] [-m b|p] [RR|RW [seg_size [num_segs]]]\n"
	       "USAGE: kdapltest -T L -D <IA> [-w <width>] [-m <maximum>] "
	       "[-d] [limit_ia] [limit_pz] [limit_evd] [limit_ep] "
	       "[limit_rsp] [limit_psp] [limit_lmr] [limit_rpost] "
	       "[limit_size_lmr]\n"
	       "USAGE: kdapltest -T F -D <IA> -f <hwconn|endpoint|pz|mem|"
	       "connmgt|queryinfo> [-s <the IA's own address>] [-n <port>] "
	       "[case0] [case1] [...]\n"
	       "USAGE: a crafted peer (tests): --wire-version N, "
	       "--wire-test-type N, --cmd-bytes N (T and Q)\n";
}

}  // namespace kdt
