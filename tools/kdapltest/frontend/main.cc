// SPDX-License-Identifier: GPL-2.0
// kdapltest: dapltest's command line for kdapltest.ko (/dev/kdapltest).
//
// Exit status: 0 the test passed (a server: it was asked to quit or
// stopped by a signal), 1 it failed (the module says why), 2 command
// line error, 3 the module is missing or speaks another ABI.
#include <arpa/inet.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cmdline.h"
#include "report.h"
#include "uapi/kdapltest.h"

namespace {

// Progress of a run, read by a second thread while KDT_IOC_RUN blocks:
// the server's readiness and the tests it served, a client's WQEs.
class Watcher {
public:
	Watcher(int fd, const kdt::Options &o) : fd_(fd), o_(o)
	{
		thread_ = std::thread([this] { loop(); });
	}
	~Watcher()
	{
		{
			std::lock_guard<std::mutex> g(m_);
			stop_ = true;
		}
		cv_.notify_all();
		thread_.join();
	}

private:
	void loop()
	{
		std::unique_lock<std::mutex> g(m_);
		auto last = std::chrono::steady_clock::now();
		kdt_status prev{};

		while (!stop_) {
			cv_.wait_for(g, std::chrono::milliseconds(200));
			if (stop_)
				break;
			kdt_status st{};
			if (ioctl(fd_, KDT_IOC_STATUS, &st) < 0)
				break;
			if (o_.test_type == 'S')
				server(prev, st);
			else if (!o_.json && st.wqes_total &&
				 std::chrono::steady_clock::now() - last >=
					 std::chrono::seconds(5)) {
				last = std::chrono::steady_clock::now();
				std::fprintf(stderr,
					     "kdapltest: progress: %llu of %llu WQEs (%.0f%%)\n",
					     (unsigned long long)st.wqes,
					     (unsigned long long)st.wqes_total,
					     100.0 * st.wqes / st.wqes_total);
			}
			prev = st;
		}
	}

	void server(const kdt_status &prev, const kdt_status &st)
	{
		if (st.state == KDT_STATE_READY &&
		    prev.state != KDT_STATE_READY) {
			// dapltest's line, which scripts wait for
			std::printf("Dapltest: Service Point Ready - %s\n",
				    o_.device.c_str());
		}
		if (st.tests_done != prev.tests_done ||
		    st.rejected != prev.rejected)
			std::printf("kdapltest: server: %u tests done, %u failed, "
				    "%u running, %u clients refused%s%s\n",
				    st.tests_done, st.tests_failed,
				    st.tests_running, st.rejected,
				    st.last_error[0] ? "; last error: " : "",
				    st.last_error);
		std::fflush(stdout);
	}

	int fd_;
	const kdt::Options &o_;
	std::mutex m_;
	std::condition_variable cv_;
	bool stop_ = false;
	std::thread thread_;
};

uint32_t run_type(char t)
{
	switch (t) {
	case 'S':
		return KDT_RUN_SERVER;
	case 'T':
		return KDT_RUN_TRANSACTION;
	case 'P':
		return KDT_RUN_PERFORMANCE;
	case 'L':
		return KDT_RUN_LIMIT;
	case 'F':
		return KDT_RUN_FFT;
	default:
		return KDT_RUN_QUIT;
	}
}

int run_test(const kdt::Options &o)
{
	auto run = std::make_unique<kdt_run>();
	kdt_version ver{};
	in_addr addr{};
	int fd, rc;

	const bool cases = o.test_type == 'L' || o.test_type == 'F';
	auto kc = std::make_unique<kdt_cases>();

	// -T F takes -s for connmgt's loopback case only
	if (o.test_type != 'S' && (!cases || !o.server.empty()) &&
	    inet_pton(AF_INET, o.server.c_str(), &addr) != 1) {
		std::fprintf(stderr,
			     "kdapltest: -s %s: not an IPv4 address\n",
			     o.server.c_str());
		return 2;
	}
	if (o.device.empty() || o.device.size() >= KDT_IA_NAME_MAX) {
		std::fprintf(stderr, "kdapltest: -D <IA name> is required\n");
		return 2;
	}
	fd = open(KDT_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		std::fprintf(stderr, "kdapltest: %s: %s (is kdapltest.ko loaded?)\n",
			     KDT_DEVICE, std::strerror(errno));
		return 3;
	}
	if (ioctl(fd, KDT_IOC_VERSION, &ver) < 0 ||
	    ver.abi_major != KDT_ABI_MAJOR || (cases && ver.abi_minor < 1)) {
		std::fprintf(stderr,
			     "kdapltest: module ABI %u.%u, this front end %u.%u%s\n",
			     ver.abi_major, ver.abi_minor, KDT_ABI_MAJOR,
			     KDT_ABI_MINOR,
			     cases ? " (-T L and -T F need minor 1)" : "");
		close(fd);
		return 3;
	}

	run->abi_major = KDT_ABI_MAJOR;
	run->size = sizeof(*run);
	run->test_type = run_type(o.test_type);
	run->flags = (o.validate ? KDT_RUN_VALIDATE : 0) |
		     (o.poll ? KDT_RUN_POLL : 0) |
		     (o.use_rsp ? KDT_RUN_USE_RSP : 0) |
		     (o.debug ? KDT_RUN_DEBUG : 0) |
		     (o.mode == 'p' ? KDT_RUN_PERF_POLL : 0);
	run->pipeline = o.pipeline == ~0u ? 0 : o.pipeline;
	std::snprintf(run->ia_name, sizeof(run->ia_name), "%s",
		      o.device.c_str());
	std::snprintf(run->server_name, sizeof(run->server_name), "%s",
		      o.server.c_str());
	run->server_addr = addr.s_addr;
	run->server_port = o.port;
	run->iterations = o.iterations;
	run->threads = o.threads;
	run->eps_per_thread = o.eps_per_thread;
	run->qos = o.qos;
	run->craft_version = o.craft_version;
	run->craft_test_type = o.craft_test_type;
	run->craft_cmd_len = o.craft_cmd_len;
	if (cases) {
		kc->size = sizeof(*kc);
		kc->width = o.width;
		kc->maximum = o.maximum;
		kc->feature = o.feature;
		kc->select = o.select;
		run->cases = reinterpret_cast<uintptr_t>(kc.get());
		run->cases_size = sizeof(*kc);
	}
	run->num_ops = static_cast<uint32_t>(o.ops.size());
	for (size_t i = 0; i < o.ops.size(); i++) {
		run->ops[i].server_initiated = o.ops[i].server_initiated;
		run->ops[i].transfer_type = o.ops[i].transfer_type;
		run->ops[i].num_segs = o.ops[i].num_segs;
		run->ops[i].seg_size = o.ops[i].seg_size;
		run->ops[i].reap_send_on_recv = o.ops[i].reap_send_on_recv;
	}
	if (!o.json && o.test_type == 'S')
		std::printf("kdapltest: server on %s port %u\n",
			    o.device.c_str(), o.port);
	else if (!o.json && o.test_type == 'L')
		std::printf("kdapltest: limit test on %s, width %u, maximum %u\n",
			    o.device.c_str(), o.width, o.maximum);
	else if (!o.json && o.test_type == 'F')
		std::printf("kdapltest: function feature test %s on %s\n",
			    kdt::fft_feature_name(o.feature), o.device.c_str());
	else if (!o.json)
		std::printf("kdapltest: %s test against %s:%u from %s ...\n",
			    o.test_type == 'T' ? "transaction" :
			    o.test_type == 'P' ? "performance" : "quit",
			    o.server.c_str(), o.port, o.device.c_str());
	std::fflush(stdout);
	{
		Watcher w(fd, o);

		rc = ioctl(fd, KDT_IOC_RUN, run.get());
	}
	if (rc < 0) {
		std::fprintf(stderr, "kdapltest: KDT_IOC_RUN: %s\n",
			     std::strerror(errno));
		close(fd);
		return 3;
	}
	close(fd);

	const kdt_result &r = run->result;
	kdt::Stats s;
	s.status = r.status;
	s.message.assign(r.message, strnlen(r.message, sizeof(r.message)));
	s.threads = r.threads;
	s.eps = r.eps;
	s.wqes = r.wqes;
	s.time_us = r.time_us;
	s.send = r.bytes_send;
	s.recv = r.bytes_recv;
	s.rdma_read = r.bytes_rdma_read;
	s.rdma_write = r.bytes_rdma_write;
	s.tests_done = r.tests_done;
	s.tests_failed = r.tests_failed;
	s.rejected = r.rejected;
	s.pipeline = r.pipeline;
	s.lat_min_ns = r.lat_min_ns;
	s.lat_avg_ns = r.lat_avg_ns;
	s.lat_max_ns = r.lat_max_ns;
	if (cases) {
		std::vector<kdt::CaseResult> res;
		unsigned skipped = 0;

		for (uint32_t i = 0; i < kc->num && i < KDT_CASES_MAX; i++) {
			const kdt_case_result &k = kc->result[i];
			kdt::CaseResult c;

			c.index = k.index;
			c.verdict = k.verdict;
			c.dat_status = k.dat_status;
			c.count = k.count;
			c.value = k.value;
			c.time_us = k.time_us;
			c.name.assign(k.name, strnlen(k.name, sizeof(k.name)));
			c.desc.assign(k.desc, strnlen(k.desc, sizeof(k.desc)));
			c.message.assign(k.message,
					 strnlen(k.message, sizeof(k.message)));
			skipped += k.verdict == KDT_CASE_SKIP;
			res.push_back(c);
		}
		if (o.json) {
			std::printf("%s\n",
				    kdt::format_cases_json(o, s, res).c_str());
		} else {
			std::printf("%s", kdt::format_cases(o, res).c_str());
			std::printf("kdapltest: %s test: %u cases, %u passed, "
				    "%u failed, %u skipped%s%s\n",
				    o.test_type == 'L' ? "limit" :
							 "function feature",
				    r.tests_done,
				    r.tests_done - r.tests_failed - skipped,
				    r.tests_failed, skipped,
				    r.status && !r.tests_failed ? ": " : "",
				    r.status && !r.tests_failed ?
					    s.message.c_str() : "");
		}
		return r.status ? 1 : 0;
	}
	if (o.json) {
		std::printf("%s\n", kdt::format_json(o, s).c_str());
	} else if (o.test_type == 'S') {
		std::printf("kdapltest: server exiting (%s): %u tests done, "
			    "%u failed, %u clients refused\n",
			    s.message.c_str(), r.tests_done, r.tests_failed,
			    r.rejected);
	} else if (r.status) {
		std::fprintf(stderr, "kdapltest: test failed: %s (%s)\n",
			     s.message.c_str(), std::strerror(-r.status));
	} else if (o.test_type == 'T') {
		std::printf("%s", kdt::format_stats(s).c_str());
		std::printf("kdapltest: transaction test passed\n");
	} else if (o.test_type == 'P') {
		std::printf("%s", kdt::format_perf_stats(o, s).c_str());
		std::printf("kdapltest: performance test passed\n");
	} else {
		std::printf("kdapltest: server asked to quit\n");
	}
	// a server stopped by a signal ends normally
	if (o.test_type == 'S' && r.status == -EINTR)
		return 0;
	return r.status ? 1 : 0;
}

}  // namespace

int main(int argc, char **argv)
{
	std::vector<std::string> args(argv + 1, argv + argc);

	if (args.empty() || args[0] == "-h" || args[0] == "--help") {
		std::fputs(kdt::usage().c_str(), args.empty() ? stderr : stdout);
		return args.empty() ? 2 : 0;
	}
	kdt::ParseResult p = kdt::parse_cmdline(args);
	if (!p.ok) {
		std::fprintf(stderr, "kdapltest: %s\n%s", p.error.c_str(),
			     kdt::usage().c_str());
		return 2;
	}
	if (!p.opts.json)
		for (const auto &n : p.notes)
			std::printf("%s\n", n.c_str());
	return run_test(p.opts);
}
