// SPDX-License-Identifier: GPL-2.0
// The dapltest wire codec (proto/kdt_proto.c, the file kdapltest.ko
// builds): every offset of Documentation/kdapltest.rst.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <vector>

#include "kdt_proto.h"

namespace {

uint32_t le32(const std::vector<uint8_t> &b, size_t off)
{
	return b[off] | b[off + 1] << 8 | b[off + 2] << 16 |
	       (uint32_t)b[off + 3] << 24;
}

uint64_t le64(const std::vector<uint8_t> &b, size_t off)
{
	return le32(b, off) | (uint64_t)le32(b, off + 4) << 32;
}

kdt_transaction_cmd sample_cmd()
{
	kdt_transaction_cmd c{};

	c.dapltest_version = KDT_DAPLTEST_VERSION;
	c.client_is_little_endian = 1;
	std::strcpy(c.server_name, "192.0.2.2");
	std::strcpy(c.dapl_name, "siwA");
	c.num_iterations = 100;
	c.num_threads = 2;
	c.eps_per_thread = 3;
	c.use_rsp = 1;
	c.debug = 1;
	c.validate = 1;
	c.poll = 1;
	c.server_port = 0x1122334455667788ULL;
	c.qos = 2;
	c.num_ops = 2;
	c.op[0] = {1, KDT_SEND_RECV, 2, 4096, 1};
	c.op[1] = {0, KDT_RDMA_READ, 1, 8192, 0};
	return c;
}

}  // namespace

TEST(KdtProto, Sizes)
{
	EXPECT_EQ(KDT_CLIENT_INFO_SIZE, 16);
	EXPECT_EQ(KDT_SERVER_INFO_SIZE, 12);
	EXPECT_EQ(KDT_TRANSACTION_CMD_SIZE, 2568);
	EXPECT_EQ(KDT_RMI_MSG_SIZE, 1200);
	// every command fits dapltest's 8192-byte command buffer
	EXPECT_LE(KDT_TRANSACTION_CMD_SIZE, KDT_CMD_MSG_SIZE);
	EXPECT_LE(KDT_PERF_CMD_SIZE, KDT_CMD_MSG_SIZE);
	EXPECT_LE(KDT_QUIT_CMD_SIZE, KDT_CMD_MSG_SIZE);
	EXPECT_EQ(std::strlen(KDT_PRIVATE_DATA), KDT_PRIVATE_DATA_LEN);
	EXPECT_EQ(kdt_seg_round(1200), 1280u);
	EXPECT_EQ(kdt_seg_round(4096), 4096u);
	EXPECT_EQ(kdt_seg_round(1), 256u);
}

TEST(KdtProto, ClientInfoLittleEndian)
{
	kdt_client_info ci{6, 1, KDT_TEST_TRANSACTION, 2};
	std::vector<uint8_t> b(KDT_CMD_MSG_SIZE, 0xee);

	ASSERT_EQ(kdt_client_info_encode(&ci, b.data(), b.size()), 16);
	const std::array<uint8_t, 16> want = {6, 0, 0, 0, 1, 0, 0, 0,
					      1, 0, 0, 0, 2, 0, 0, 0};
	EXPECT_TRUE(std::equal(want.begin(), want.end(), b.begin()));
	EXPECT_EQ(b[16], 0xee);	// nothing written past the structure

	kdt_client_info back{};
	ASSERT_EQ(kdt_client_info_decode(&back, b.data(), b.size()), 0);
	EXPECT_EQ(back.total_threads, 2u);
	EXPECT_EQ(back.test_type, (uint32_t)KDT_TEST_TRANSACTION);
}

TEST(KdtProto, ServerInfo)
{
	kdt_server_info si{6, 1, 62001};
	std::vector<uint8_t> b(12);

	ASSERT_EQ(kdt_server_info_encode(&si, b.data(), b.size()), 12);
	EXPECT_EQ(le32(b, 8), 62001u);
	kdt_server_info back{};
	ASSERT_EQ(kdt_server_info_decode(&back, b.data(), b.size()), 0);
	EXPECT_EQ(back.first_port_number, 62001u);
	EXPECT_EQ(back.dapltest_version, 6u);
}

TEST(KdtProto, TransactionCmdOffsets)
{
	kdt_transaction_cmd c = sample_cmd();
	std::vector<uint8_t> b(KDT_CMD_MSG_SIZE, 0xee);

	ASSERT_EQ(kdt_transaction_cmd_encode(&c, b.data(), b.size()),
		  KDT_TRANSACTION_CMD_SIZE);
	EXPECT_EQ(le32(b, 0x000), 6u);
	EXPECT_EQ(le32(b, 0x004), 1u);
	EXPECT_STREQ(reinterpret_cast<char *>(&b[0x008]), "192.0.2.2");
	EXPECT_EQ(b[0x008 + 9], 0);	// zero padded
	EXPECT_EQ(le32(b, 0x108), 100u);
	EXPECT_EQ(le32(b, 0x10c), 2u);
	EXPECT_EQ(le32(b, 0x110), 3u);
	EXPECT_EQ(le32(b, 0x114), 0u);	// use_cno
	EXPECT_EQ(le32(b, 0x118), 1u);
	EXPECT_EQ(le32(b, 0x11c), 1u);
	EXPECT_EQ(le32(b, 0x120), 1u);
	EXPECT_EQ(le32(b, 0x124), 1u);
	EXPECT_EQ(le64(b, 0x128), 0x1122334455667788ULL);
	EXPECT_STREQ(reinterpret_cast<char *>(&b[0x130]), "siwA");
	EXPECT_EQ(le32(b, 0x230), 2u);
	EXPECT_EQ(le32(b, 0x234), 2u);
	// op[0] at 0x238, op[1] at 0x24c
	EXPECT_EQ(le32(b, 0x238), 1u);
	EXPECT_EQ(le32(b, 0x23c), (uint32_t)KDT_SEND_RECV);
	EXPECT_EQ(le32(b, 0x240), 2u);
	EXPECT_EQ(le32(b, 0x244), 4096u);
	EXPECT_EQ(le32(b, 0x248), 1u);
	EXPECT_EQ(le32(b, 0x24c), 0u);
	EXPECT_EQ(le32(b, 0x250), (uint32_t)KDT_RDMA_READ);
	EXPECT_EQ(le32(b, 0x258), 8192u);
	// unused ops are zero, the buffer past the command untouched
	EXPECT_EQ(le32(b, 0x260), 0u);
	EXPECT_EQ(b[KDT_TRANSACTION_CMD_SIZE], 0xee);
}

TEST(KdtProto, TransactionCmdRoundTrip)
{
	kdt_transaction_cmd c = sample_cmd(), back{};
	std::vector<uint8_t> b(KDT_CMD_MSG_SIZE);

	ASSERT_GT(kdt_transaction_cmd_encode(&c, b.data(), b.size()), 0);
	ASSERT_EQ(kdt_transaction_cmd_decode(&back, b.data(), b.size()), 0);
	EXPECT_EQ(std::memcmp(&c, &back, sizeof(c)), 0);
}

TEST(KdtProto, TruncatedAndBogusCommands)
{
	kdt_transaction_cmd c = sample_cmd(), back{};
	std::vector<uint8_t> b(KDT_CMD_MSG_SIZE);

	ASSERT_GT(kdt_transaction_cmd_encode(&c, b.data(), b.size()), 0);
	EXPECT_EQ(kdt_transaction_cmd_decode(&back, b.data(),
					     KDT_TRANSACTION_CMD_SIZE - 1),
		  -EBADMSG);
	EXPECT_EQ(kdt_client_info_decode(nullptr, b.data(), 15), -EBADMSG);
	EXPECT_EQ(kdt_server_info_decode(nullptr, b.data(), 11), -EBADMSG);
	b[0x234] = 101;	// num_ops > MAX_OPS
	EXPECT_EQ(kdt_transaction_cmd_decode(&back, b.data(), b.size()),
		  -EPROTO);
	// encoders refuse short buffers
	EXPECT_EQ(kdt_transaction_cmd_encode(&c, b.data(), 100), -EMSGSIZE);
	kdt_client_info ci{};
	EXPECT_EQ(kdt_client_info_encode(&ci, b.data(), 8), -EMSGSIZE);
}

TEST(KdtProto, NamesAreTerminated)
{
	std::vector<uint8_t> b(KDT_CMD_MSG_SIZE, 'x');
	kdt_transaction_cmd back{};

	// a peer's name field without NUL
	b[0x234] = 0;
	b[0x235] = b[0x236] = b[0x237] = 0;
	ASSERT_EQ(kdt_transaction_cmd_decode(&back, b.data(), b.size()), 0);
	EXPECT_EQ(std::strlen(back.server_name), KDT_NAME_SZ - 1u);
	EXPECT_EQ(std::strlen(back.dapl_name), KDT_NAME_SZ - 1u);
}

TEST(KdtProto, QuitAndPerfCommands)
{
	kdt_quit_cmd q{};
	std::vector<uint8_t> b(KDT_CMD_MSG_SIZE);

	std::strcpy(q.server_name, "192.0.2.2");
	std::strcpy(q.device_name, "siwA");
	q.debug = 1;
	q.qos = 4;
	q.port = 62000;
	ASSERT_EQ(kdt_quit_cmd_encode(&q, b.data(), b.size()),
		  KDT_QUIT_CMD_SIZE);
	EXPECT_STREQ(reinterpret_cast<char *>(&b[0x100]), "siwA");
	EXPECT_EQ(le32(b, 0x200), 1u);
	EXPECT_EQ(le32(b, 0x204), 4u);
	EXPECT_EQ(le64(b, 0x208), 62000u);

	kdt_perf_cmd p{};
	p.dapltest_version = 6;
	p.mode = 1;
	p.num_iterations = 1000;
	p.pipeline_len = ~0u;
	p.transfer_type = KDT_RDMA_WRITE;
	p.seg_size = 65536;
	p.num_segs = 1;
	p.server_port = 62000;
	ASSERT_EQ(kdt_perf_cmd_encode(&p, b.data(), b.size()),
		  KDT_PERF_CMD_SIZE);
	EXPECT_EQ(le32(b, 0x210), 1u);
	EXPECT_EQ(le32(b, 0x214), 1000u);
	EXPECT_EQ(le32(b, 0x218), ~0u);
	EXPECT_EQ(le32(b, 0x21c), (uint32_t)KDT_RDMA_WRITE);
	EXPECT_EQ(le32(b, 0x220), 65536u);
	EXPECT_EQ(le32(b, 0x224), 1u);
	EXPECT_EQ(le64(b, 0x22c), 62000u);
	kdt_perf_cmd pb{};
	ASSERT_EQ(kdt_perf_cmd_decode(&pb, b.data(), b.size()), 0);
	EXPECT_EQ(pb.seg_size, 65536u);
}

TEST(KdtProto, RemoteMemoryInfo)
{
	kdt_rmi in[3] = {{0x11223344, 0x1000}, {0, 0},
			 {0xdeadbeef, 0xffff888812345678ULL}}, out[3]{};
	std::vector<uint8_t> b(KDT_RMI_MSG_SIZE, 0xee);

	ASSERT_EQ(kdt_rmi_encode(in, 3, b.data(), b.size()), 1200);
	EXPECT_EQ(le32(b, 0), 0x11223344u);
	EXPECT_EQ(le64(b, 4), 0x1000u);
	EXPECT_EQ(le32(b, 24), 0xdeadbeefu);
	EXPECT_EQ(le64(b, 28), 0xffff888812345678ULL);
	EXPECT_EQ(b[36], 0);	// entries past n are zero
	ASSERT_EQ(kdt_rmi_decode(out, 3, b.data(), b.size()), 0);
	EXPECT_EQ(out[2].address, in[2].address);
	EXPECT_EQ(kdt_rmi_decode(out, 3, b.data(), 1199), -EBADMSG);
}

TEST(KdtProto, CommandCheck)
{
	kdt_transaction_cmd c{};

	c.num_iterations = c.num_threads = c.eps_per_thread = 1;
	c.num_ops = 1;
	c.op[0] = {0, KDT_SEND_RECV, 1, 4096, 0};
	EXPECT_NE(kdt_transaction_cmd_check(&c), nullptr);	// no server SR
	c.num_ops = 2;
	c.op[1] = {1, KDT_SEND_RECV, 1, 4096, 0};
	EXPECT_EQ(kdt_transaction_cmd_check(&c), nullptr);
	c.op[1].reap_send_on_recv = 1;	// server -f before any client -f
	EXPECT_NE(kdt_transaction_cmd_check(&c), nullptr);
	c.op[0].reap_send_on_recv = 1;
	EXPECT_EQ(kdt_transaction_cmd_check(&c), nullptr);
	c.op[0].transfer_type = KDT_RDMA_WRITE;	// -f on RW
	EXPECT_NE(kdt_transaction_cmd_check(&c), nullptr);
	c.op[0] = {0, KDT_SEND_RECV, 0, 4096, 0};	// zero segments
	EXPECT_NE(kdt_transaction_cmd_check(&c), nullptr);
	c.op[0] = {0, 7, 1, 4096, 0};	// unknown type
	EXPECT_NE(kdt_transaction_cmd_check(&c), nullptr);
	c.op[0] = {0, KDT_SEND_RECV, 1, 4096, 0};
	c.op[1].reap_send_on_recv = 0;
	c.num_iterations = 0;
	EXPECT_NE(kdt_transaction_cmd_check(&c), nullptr);
}

TEST(KdtProto, PerformanceSyncIsOneEntry)
{
	kdt_rmi in{0xcafe0001, 0x123456789aULL}, out{};
	std::vector<uint8_t> b(KDT_RMI_ENTRY_SIZE, 0xee);

	ASSERT_EQ(kdt_rmi_entry_encode(&in, b.data(), b.size()), 12);
	EXPECT_EQ(le32(b, 0), 0xcafe0001u);
	EXPECT_EQ(le64(b, 4), 0x123456789aULL);
	ASSERT_EQ(kdt_rmi_entry_decode(&out, b.data(), b.size()), 0);
	EXPECT_EQ(out.rmr_context, in.rmr_context);
	EXPECT_EQ(out.address, in.address);
	EXPECT_EQ(kdt_rmi_entry_encode(&in, b.data(), 11), -EMSGSIZE);
	EXPECT_EQ(kdt_rmi_entry_decode(&out, b.data(), 11), -EBADMSG);
}
