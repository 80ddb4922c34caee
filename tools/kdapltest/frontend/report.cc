// SPDX-License-Identifier: GPL-2.0
#include "report.h"

#include <cstdio>

#include "uapi/kdapltest.h"

namespace kdt {
namespace {

std::string fmt_rate(const char *label, unsigned long long bytes, double sec)
{
	char line[128];
	double mb = bytes / 1e6;

	std::snprintf(line, sizeof(line),
		      "%-17s: %10.2f MB - %10.2f MB/Sec\n", label, mb,
		      sec > 0 ? mb / sec : 0.0);
	return line;
}

std::string json_escape(const std::string &in)
{
	std::string out;

	for (char c : in) {
		if (c == '"' || c == '\\') {
			out += '\\';
			out += c;
		} else if (static_cast<unsigned char>(c) < 0x20) {
			char esc[8];
			std::snprintf(esc, sizeof(esc), "\\u%04x", c);
			out += esc;
		} else {
			out += c;
		}
	}
	return out;
}

}  // namespace

std::string format_stats(const Stats &s)
{
	double sec = s.time_us / 1e6;
	char line[128];
	std::string out;

	if (s.time_us == 0)
		return "----- Test completed successfully, but cannot "
		       "calculate stats as not\n----- enough time has "
		       "lapsed.\n";
	std::snprintf(line, sizeof(line),
		      "----- Stats ---- : %u threads, %u EPs\n", s.threads,
		      s.eps);
	out += line;
	std::snprintf(line, sizeof(line), "%-17s: %10.2f WQE/Sec\n",
		      "Total WQE", s.wqes / sec);
	out += line;
	std::snprintf(line, sizeof(line), "%-17s: %10.2f sec\n", "Total Time",
		      sec);
	out += line;
	out += fmt_rate("Total Send", s.send, sec);
	out += fmt_rate("Total Recv", s.recv, sec);
	out += fmt_rate("Total RDMA Read", s.rdma_read, sec);
	out += fmt_rate("Total RDMA Write", s.rdma_write, sec);
	return out;
}

double ops_per_sec(const Stats &s)
{
	return s.time_us ? s.wqes / (s.time_us / 1e6) : 0.0;
}

std::string format_perf_stats(const Options &o, const Stats &s)
{
	const kdt_op &op = o.ops.at(0);
	double sec = s.time_us / 1e6;
	unsigned long long bytes = s.rdma_read + s.rdma_write;
	char buf[1024];

	std::snprintf(buf, sizeof(buf),
		      "------------------------- Statistics -------------------------\n"
		      "     Mode                   : %s\n"
		      "     Operation Type         : %s\n"
		      "     Number of Operations   : %llu\n"
		      "     Segment Size           : %u\n"
		      "     Number of Segments     : %u\n"
		      "     Pipeline Length        : %u\n"
		      "\n"
		      "     Operation Throughput   : %.2f ops/sec\n"
		      "     Bandwidth              : %.2f MB/sec\n"
		      "     Latency (one at a time): min %.1f us, avg %.1f us, "
		      "max %.1f us\n"
		      "--------------------------------------------------------------\n",
		      o.mode == 'p' ? "polling" : "blocking",
		      op.transfer_type == KDT_RDMA_READ ? "RDMA Read" :
							  "RDMA Write",
		      s.wqes, op.seg_size, op.num_segs, s.pipeline,
		      ops_per_sec(s), sec > 0 ? bytes / 1e6 / sec : 0.0,
		      s.lat_min_ns / 1e3, s.lat_avg_ns / 1e3,
		      s.lat_max_ns / 1e3);
	return buf;
}

std::string format_json(const Options &o, const Stats &s)
{
	char buf[1024];
	double sec = s.time_us / 1e6;

	std::snprintf(buf, sizeof(buf),
		      "{\"test\":\"%c\",\"server\":\"%s\",\"device\":\"%s\","
		      "\"port\":%u,\"iterations\":%u,\"threads\":%u,"
		      "\"eps_per_thread\":%u,\"validate\":%s,\"ops\":%zu,"
		      "\"status\":%d,\"message\":\"%s\",\"wqes\":%llu,"
		      "\"time_us\":%llu,\"wqe_per_sec\":%.2f,"
		      "\"bytes\":{\"send\":%llu,\"recv\":%llu,"
		      "\"rdma_read\":%llu,\"rdma_write\":%llu},"
		      "\"served\":{\"tests_done\":%u,\"tests_failed\":%u,"
		      "\"rejected\":%u},\"ops_per_sec\":%.2f,"
		      "\"pipeline\":%u,\"latency_ns\":{\"min\":%llu,"
		      "\"avg\":%llu,\"max\":%llu}}",
		      o.test_type, json_escape(o.server).c_str(),
		      json_escape(o.device).c_str(), o.port, o.iterations,
		      o.threads, o.eps_per_thread,
		      o.validate ? "true" : "false", o.ops.size(), s.status,
		      json_escape(s.message).c_str(), s.wqes, s.time_us,
		      sec > 0 ? s.wqes / sec : 0.0, s.send, s.recv,
		      s.rdma_read, s.rdma_write, s.tests_done, s.tests_failed,
		      s.rejected, ops_per_sec(s), s.pipeline, s.lat_min_ns,
		      s.lat_avg_ns, s.lat_max_ns);
	return buf;
}

const char *verdict_name(unsigned verdict)
{
	switch (verdict) {
	case KDT_CASE_PASS:
		return "PASS";
	case KDT_CASE_FAIL:
		return "FAIL";
	case KDT_CASE_SKIP:
		return "SKIP";
	}
	return "?";
}

namespace {

// dapltest's names of the features in its case headers
const char *feature_title(uint32_t feature)
{
	switch (feature) {
	case KDT_FFT_HWCONN:
		return "Hardware connection";
	case KDT_FFT_ENDPOINT:
		return "EndPoint management";
	case KDT_FFT_PZ:
		return "Protection Zone management";
	case KDT_FFT_MEM:
		return "Memory register/deregister";
	case KDT_FFT_CONNMGT:
		return "Connect Management (Server side)";
	case KDT_FFT_QUERYINFO:
		return "Query Info";
	}
	return "?";
}

}  // namespace

std::string format_cases(const Options &o, const std::vector<CaseResult> &c)
{
	static const char star[] =
		"**********************************************************************\n";
	std::string out;
	char line[512];

	for (const auto &r : c) {
		out += star;
		if (o.test_type == 'L')
			std::snprintf(line, sizeof(line),
				      "Limitation Test                      %s\n"
				      "Description:  Test %s\n",
				      r.name.c_str(), r.desc.c_str());
		else
			std::snprintf(line, sizeof(line),
				      "Function feature: %s        case: %u\n"
				      "Description: %s\n",
				      feature_title(o.feature), r.index,
				      r.desc.c_str());
		out += line;
		if (!r.message.empty()) {
			std::snprintf(line, sizeof(line), "%s%s\n",
				      o.test_type == 'L' ? "LimitTest: " : "",
				      r.message.c_str());
			out += line;
		}
		std::snprintf(line, sizeof(line), "Result: %s\n",
			      verdict_name(r.verdict));
		out += line;
		out += star;
	}
	return out;
}

std::string format_cases_json(const Options &o, const Stats &s,
			      const std::vector<CaseResult> &c)
{
	std::string out;
	char buf[256];

	std::snprintf(buf, sizeof(buf),
		      "{\"test\":\"%c\",\"device\":\"%s\",", o.test_type,
		      json_escape(o.device).c_str());
	out += buf;
	if (o.test_type == 'L')
		std::snprintf(buf, sizeof(buf),
			      "\"width\":%u,\"maximum\":%u,", o.width,
			      o.maximum);
	else
		std::snprintf(buf, sizeof(buf), "\"feature\":\"%s\",",
			      fft_feature_name(o.feature));
	out += buf;
	std::snprintf(buf, sizeof(buf),
		      "\"status\":%d,\"message\":\"%s\",\"cases\":[", s.status,
		      json_escape(s.message).c_str());
	out += buf;
	for (size_t i = 0; i < c.size(); i++) {
		const CaseResult &r = c[i];

		std::snprintf(buf, sizeof(buf),
			      "%s{\"name\":\"%s\",\"index\":%u,"
			      "\"result\":\"%s\",\"dat_status\":%u,"
			      "\"count\":%u,\"value\":%llu,\"time_us\":%llu,",
			      i ? "," : "", json_escape(r.name).c_str(),
			      r.index, verdict_name(r.verdict), r.dat_status,
			      r.count, r.value, r.time_us);
		out += buf;
		out += "\"desc\":\"" + json_escape(r.desc) + "\",\"message\":\"" +
		       json_escape(r.message) + "\"}";
	}
	out += "]}";
	return out;
}

}  // namespace kdt
