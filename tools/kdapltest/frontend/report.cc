// SPDX-License-Identifier: GPL-2.0
#include "report.h"

#include <cstdio>

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
		      "\"rdma_read\":%llu,\"rdma_write\":%llu}}",
		      o.test_type, json_escape(o.server).c_str(),
		      json_escape(o.device).c_str(), o.port, o.iterations,
		      o.threads, o.eps_per_thread,
		      o.validate ? "true" : "false", o.ops.size(), s.status,
		      json_escape(s.message).c_str(), s.wqes, s.time_us,
		      sec > 0 ? s.wqes / sec : 0.0, s.send, s.recv,
		      s.rdma_read, s.rdma_write);
	return buf;
}

}  // namespace kdt
