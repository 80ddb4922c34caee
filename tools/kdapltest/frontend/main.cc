// SPDX-License-Identifier: GPL-2.0
// kdapltest: dapltest's command line for kdapltest.ko (/dev/kdapltest).
//
// Exit status: 0 the test passed, 1 it failed (the module says why),
// 2 command line error, 3 the module is missing or speaks another ABI.
#include <arpa/inet.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "cmdline.h"
#include "report.h"
#include "uapi/kdapltest.h"

namespace {

int run_test(const kdt::Options &o)
{
	auto run = std::make_unique<kdt_run>();
	kdt_version ver{};
	in_addr addr{};
	int fd;

	if (o.test_type != 'T' && o.test_type != 'Q') {
		std::fprintf(stderr,
			     "kdapltest: -T %c is not implemented in the kernel yet\n",
			     o.test_type);
		return 1;
	}
	if (inet_pton(AF_INET, o.server.c_str(), &addr) != 1) {
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
	    ver.abi_major != KDT_ABI_MAJOR) {
		std::fprintf(stderr,
			     "kdapltest: module ABI %u.%u, this front end %u.%u\n",
			     ver.abi_major, ver.abi_minor, KDT_ABI_MAJOR,
			     KDT_ABI_MINOR);
		close(fd);
		return 3;
	}

	run->abi_major = KDT_ABI_MAJOR;
	run->size = sizeof(*run);
	run->test_type = o.test_type == 'T' ? KDT_RUN_TRANSACTION : KDT_RUN_QUIT;
	run->flags = (o.validate ? KDT_RUN_VALIDATE : 0) |
		     (o.poll ? KDT_RUN_POLL : 0) |
		     (o.use_rsp ? KDT_RUN_USE_RSP : 0) |
		     (o.debug ? KDT_RUN_DEBUG : 0);
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
	run->num_ops = static_cast<uint32_t>(o.ops.size());
	for (size_t i = 0; i < o.ops.size(); i++) {
		run->ops[i].server_initiated = o.ops[i].server_initiated;
		run->ops[i].transfer_type = o.ops[i].transfer_type;
		run->ops[i].num_segs = o.ops[i].num_segs;
		run->ops[i].seg_size = o.ops[i].seg_size;
		run->ops[i].reap_send_on_recv = o.ops[i].reap_send_on_recv;
	}
	if (!o.json)
		std::printf("kdapltest: %s test against %s:%u from %s ...\n",
			    o.test_type == 'T' ? "transaction" : "quit",
			    o.server.c_str(), o.port, o.device.c_str());
	std::fflush(stdout);
	if (ioctl(fd, KDT_IOC_RUN, run.get()) < 0) {
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
	if (o.json) {
		std::printf("%s\n", kdt::format_json(o, s).c_str());
	} else if (r.status) {
		std::fprintf(stderr, "kdapltest: test failed: %s (%s)\n",
			     s.message.c_str(), std::strerror(-r.status));
	} else if (o.test_type == 'T') {
		std::printf("%s", kdt::format_stats(s).c_str());
		std::printf("kdapltest: transaction test passed\n");
	} else {
		std::printf("kdapltest: server asked to quit\n");
	}
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
