// SPDX-License-Identifier: GPL-2.0
/*
 * kdapltest: encoding and decoding of dapltest's wire structures. The
 * offsets are those of Documentation/kdapltest.rst (dapl 2.1.10, pack(2),
 * little endian); the host tests pin each one.
 */
#include "kdt_proto.h"

/* Transaction_Cmd field offsets */
#define TC_VERSION	0x000
#define TC_LE		0x004
#define TC_SERVER_NAME	0x008
#define TC_ITERATIONS	0x108
#define TC_THREADS	0x10c
#define TC_EPS		0x110
#define TC_USE_CNO	0x114
#define TC_USE_RSP	0x118
#define TC_DEBUG	0x11c
#define TC_VALIDATE	0x120
#define TC_POLL		0x124
#define TC_PORT		0x128
#define TC_DAPL_NAME	0x130
#define TC_QOS		0x230
#define TC_NUM_OPS	0x234
#define TC_OPS		0x238

/* Quit_Cmd */
#define QC_SERVER_NAME	0x000
#define QC_DEVICE_NAME	0x100
#define QC_DEBUG	0x200
#define QC_QOS		0x204
#define QC_PORT		0x208

/* Performance_Cmd */
#define PC_VERSION	0x000
#define PC_LE		0x004
#define PC_SERVER_NAME	0x008
#define PC_DAPL_NAME	0x108
#define PC_QOS		0x208
#define PC_DEBUG	0x20c
#define PC_MODE		0x210
#define PC_ITERATIONS	0x214
#define PC_PIPELINE	0x218
#define PC_XFER		0x21c
#define PC_SEG_SIZE	0x220
#define PC_NUM_SEGS	0x224
#define PC_USE_RSP	0x228
#define PC_PORT		0x22c

static void put32(u8 *p, u32 v)
{
	p[0] = (u8)v;
	p[1] = (u8)(v >> 8);
	p[2] = (u8)(v >> 16);
	p[3] = (u8)(v >> 24);
}

static u32 get32(const u8 *p)
{
	return (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 |
	       (u32)p[3] << 24;
}

static void put64(u8 *p, u64 v)
{
	put32(p, (u32)v);
	put32(p + 4, (u32)(v >> 32));
}

static u64 get64(const u8 *p)
{
	return (u64)get32(p) | (u64)get32(p + 4) << 32;
}

/* A name field: copied up to its first NUL, zero padded. */
static void put_name(u8 *p, const char *name)
{
	size_t i;

	for (i = 0; i < KDT_NAME_SZ - 1 && name[i]; i++)
		p[i] = (u8)name[i];
	memset(p + i, 0, KDT_NAME_SZ - i);
}

static void get_name(char *name, const u8 *p)
{
	memcpy(name, p, KDT_NAME_SZ);
	name[KDT_NAME_SZ - 1] = '\0';
}

int kdt_client_info_encode(const struct kdt_client_info *ci, void *buf,
			   size_t len)
{
	u8 *p = buf;

	if (len < KDT_CLIENT_INFO_SIZE)
		return -EMSGSIZE;
	put32(p, ci->dapltest_version);
	put32(p + 4, ci->is_little_endian);
	put32(p + 8, ci->test_type);
	put32(p + 12, ci->total_threads);
	return KDT_CLIENT_INFO_SIZE;
}

int kdt_client_info_decode(struct kdt_client_info *ci, const void *buf,
			   size_t len)
{
	const u8 *p = buf;

	if (len < KDT_CLIENT_INFO_SIZE)
		return -EBADMSG;
	ci->dapltest_version = get32(p);
	ci->is_little_endian = get32(p + 4);
	ci->test_type = get32(p + 8);
	ci->total_threads = get32(p + 12);
	return 0;
}

int kdt_server_info_encode(const struct kdt_server_info *si, void *buf,
			   size_t len)
{
	u8 *p = buf;

	if (len < KDT_SERVER_INFO_SIZE)
		return -EMSGSIZE;
	put32(p, si->dapltest_version);
	put32(p + 4, si->is_little_endian);
	put32(p + 8, si->first_port_number);
	return KDT_SERVER_INFO_SIZE;
}

int kdt_server_info_decode(struct kdt_server_info *si, const void *buf,
			   size_t len)
{
	const u8 *p = buf;

	if (len < KDT_SERVER_INFO_SIZE)
		return -EBADMSG;
	si->dapltest_version = get32(p);
	si->is_little_endian = get32(p + 4);
	si->first_port_number = get32(p + 8);
	return 0;
}

int kdt_transaction_cmd_encode(const struct kdt_transaction_cmd *cmd,
			       void *buf, size_t len)
{
	u8 *p = buf;
	unsigned int i;

	if (len < KDT_TRANSACTION_CMD_SIZE || cmd->num_ops > KDT_MAX_OPS)
		return -EMSGSIZE;
	memset(p, 0, KDT_TRANSACTION_CMD_SIZE);
	put32(p + TC_VERSION, cmd->dapltest_version);
	put32(p + TC_LE, cmd->client_is_little_endian);
	put_name(p + TC_SERVER_NAME, cmd->server_name);
	put32(p + TC_ITERATIONS, cmd->num_iterations);
	put32(p + TC_THREADS, cmd->num_threads);
	put32(p + TC_EPS, cmd->eps_per_thread);
	put32(p + TC_USE_CNO, cmd->use_cno);
	put32(p + TC_USE_RSP, cmd->use_rsp);
	put32(p + TC_DEBUG, cmd->debug);
	put32(p + TC_VALIDATE, cmd->validate);
	put32(p + TC_POLL, cmd->poll);
	put64(p + TC_PORT, cmd->server_port);
	put_name(p + TC_DAPL_NAME, cmd->dapl_name);
	put32(p + TC_QOS, cmd->qos);
	put32(p + TC_NUM_OPS, cmd->num_ops);
	for (i = 0; i < cmd->num_ops; i++) {
		u8 *o = p + TC_OPS + i * KDT_OP_SIZE;

		put32(o, cmd->op[i].server_initiated);
		put32(o + 4, cmd->op[i].transfer_type);
		put32(o + 8, cmd->op[i].num_segs);
		put32(o + 12, cmd->op[i].seg_size);
		put32(o + 16, cmd->op[i].reap_send_on_recv);
	}
	return KDT_TRANSACTION_CMD_SIZE;
}

int kdt_transaction_cmd_decode(struct kdt_transaction_cmd *cmd,
			       const void *buf, size_t len)
{
	const u8 *p = buf;
	unsigned int i;

	if (len < KDT_TRANSACTION_CMD_SIZE)
		return -EBADMSG;
	memset(cmd, 0, sizeof(*cmd));
	cmd->num_ops = get32(p + TC_NUM_OPS);
	if (cmd->num_ops > KDT_MAX_OPS)
		return -EPROTO;
	cmd->dapltest_version = get32(p + TC_VERSION);
	cmd->client_is_little_endian = get32(p + TC_LE);
	get_name(cmd->server_name, p + TC_SERVER_NAME);
	cmd->num_iterations = get32(p + TC_ITERATIONS);
	cmd->num_threads = get32(p + TC_THREADS);
	cmd->eps_per_thread = get32(p + TC_EPS);
	cmd->use_cno = get32(p + TC_USE_CNO);
	cmd->use_rsp = get32(p + TC_USE_RSP);
	cmd->debug = get32(p + TC_DEBUG);
	cmd->validate = get32(p + TC_VALIDATE);
	cmd->poll = get32(p + TC_POLL);
	cmd->server_port = get64(p + TC_PORT);
	get_name(cmd->dapl_name, p + TC_DAPL_NAME);
	cmd->qos = get32(p + TC_QOS);
	for (i = 0; i < cmd->num_ops; i++) {
		const u8 *o = p + TC_OPS + i * KDT_OP_SIZE;

		cmd->op[i].server_initiated = get32(o);
		cmd->op[i].transfer_type = get32(o + 4);
		cmd->op[i].num_segs = get32(o + 8);
		cmd->op[i].seg_size = get32(o + 12);
		cmd->op[i].reap_send_on_recv = get32(o + 16);
	}
	return 0;
}

int kdt_quit_cmd_encode(const struct kdt_quit_cmd *cmd, void *buf,
			size_t len)
{
	u8 *p = buf;

	if (len < KDT_QUIT_CMD_SIZE)
		return -EMSGSIZE;
	put_name(p + QC_SERVER_NAME, cmd->server_name);
	put_name(p + QC_DEVICE_NAME, cmd->device_name);
	put32(p + QC_DEBUG, cmd->debug);
	put32(p + QC_QOS, cmd->qos);
	put64(p + QC_PORT, cmd->port);
	return KDT_QUIT_CMD_SIZE;
}

int kdt_quit_cmd_decode(struct kdt_quit_cmd *cmd, const void *buf,
			size_t len)
{
	const u8 *p = buf;

	if (len < KDT_QUIT_CMD_SIZE)
		return -EBADMSG;
	get_name(cmd->server_name, p + QC_SERVER_NAME);
	get_name(cmd->device_name, p + QC_DEVICE_NAME);
	cmd->debug = get32(p + QC_DEBUG);
	cmd->qos = get32(p + QC_QOS);
	cmd->port = get64(p + QC_PORT);
	return 0;
}

int kdt_perf_cmd_encode(const struct kdt_perf_cmd *cmd, void *buf,
			size_t len)
{
	u8 *p = buf;

	if (len < KDT_PERF_CMD_SIZE)
		return -EMSGSIZE;
	memset(p, 0, KDT_PERF_CMD_SIZE);
	put32(p + PC_VERSION, cmd->dapltest_version);
	put32(p + PC_LE, cmd->client_is_little_endian);
	put_name(p + PC_SERVER_NAME, cmd->server_name);
	put_name(p + PC_DAPL_NAME, cmd->dapl_name);
	put32(p + PC_QOS, cmd->qos);
	put32(p + PC_DEBUG, cmd->debug);
	put32(p + PC_MODE, cmd->mode);
	put32(p + PC_ITERATIONS, cmd->num_iterations);
	put32(p + PC_PIPELINE, cmd->pipeline_len);
	put32(p + PC_XFER, cmd->transfer_type);
	put32(p + PC_SEG_SIZE, cmd->seg_size);
	put32(p + PC_NUM_SEGS, cmd->num_segs);
	put32(p + PC_USE_RSP, cmd->use_rsp);
	put64(p + PC_PORT, cmd->server_port);
	return KDT_PERF_CMD_SIZE;
}

int kdt_perf_cmd_decode(struct kdt_perf_cmd *cmd, const void *buf,
			size_t len)
{
	const u8 *p = buf;

	if (len < KDT_PERF_CMD_SIZE)
		return -EBADMSG;
	cmd->dapltest_version = get32(p + PC_VERSION);
	cmd->client_is_little_endian = get32(p + PC_LE);
	get_name(cmd->server_name, p + PC_SERVER_NAME);
	get_name(cmd->dapl_name, p + PC_DAPL_NAME);
	cmd->qos = get32(p + PC_QOS);
	cmd->debug = get32(p + PC_DEBUG);
	cmd->mode = get32(p + PC_MODE);
	cmd->num_iterations = get32(p + PC_ITERATIONS);
	cmd->pipeline_len = get32(p + PC_PIPELINE);
	cmd->transfer_type = get32(p + PC_XFER);
	cmd->seg_size = get32(p + PC_SEG_SIZE);
	cmd->num_segs = get32(p + PC_NUM_SEGS);
	cmd->use_rsp = get32(p + PC_USE_RSP);
	cmd->server_port = get64(p + PC_PORT);
	return 0;
}

int kdt_rmi_encode(const struct kdt_rmi *rmi, unsigned int n, void *buf,
		   size_t len)
{
	u8 *p = buf;
	unsigned int i;

	if (len < KDT_RMI_MSG_SIZE || n > KDT_MAX_OPS)
		return -EMSGSIZE;
	memset(p, 0, KDT_RMI_MSG_SIZE);
	for (i = 0; i < n; i++) {
		put32(p + i * KDT_RMI_ENTRY_SIZE, rmi[i].rmr_context);
		put64(p + i * KDT_RMI_ENTRY_SIZE + 4, rmi[i].address);
	}
	return KDT_RMI_MSG_SIZE;
}

int kdt_rmi_decode(struct kdt_rmi *rmi, unsigned int n, const void *buf,
		   size_t len)
{
	const u8 *p = buf;
	unsigned int i;

	if (n > KDT_MAX_OPS)
		return -EPROTO;
	if (len < KDT_RMI_MSG_SIZE)
		return -EBADMSG;
	for (i = 0; i < n; i++) {
		rmi[i].rmr_context = get32(p + i * KDT_RMI_ENTRY_SIZE);
		rmi[i].address = get64(p + i * KDT_RMI_ENTRY_SIZE + 4);
	}
	return 0;
}

int kdt_rmi_entry_encode(const struct kdt_rmi *rmi, void *buf, size_t len)
{
	u8 *p = buf;

	if (len < KDT_RMI_ENTRY_SIZE)
		return -EMSGSIZE;
	put32(p, rmi->rmr_context);
	put64(p + 4, rmi->address);
	return KDT_RMI_ENTRY_SIZE;
}

int kdt_rmi_entry_decode(struct kdt_rmi *rmi, const void *buf, size_t len)
{
	const u8 *p = buf;

	if (len < KDT_RMI_ENTRY_SIZE)
		return -EBADMSG;
	rmi->rmr_context = get32(p);
	rmi->address = get64(p + 4);
	return 0;
}

const char *kdt_transaction_cmd_check(const struct kdt_transaction_cmd *cmd)
{
	bool server_send = false, client_send = false;
	unsigned int i, reap = 0;

	if (cmd->num_ops > KDT_MAX_OPS)
		return "too many ops (at most 100)";
	if (!cmd->num_iterations)
		return "iterations must be at least 1";
	if (!cmd->num_threads || !cmd->eps_per_thread)
		return "threads and endpoints per thread must be at least 1";
	for (i = 0; i < cmd->num_ops; i++) {
		const struct kdt_op *op = &cmd->op[i];

		if (op->transfer_type > KDT_SEND_RECV)
			return "unknown transfer type";
		if (!op->num_segs || !op->seg_size)
			return "segment size and count must be at least 1";
		if (op->reap_send_on_recv && op->transfer_type != KDT_SEND_RECV)
			return "-f is only valid on SR ops";
		if (op->transfer_type != KDT_SEND_RECV)
			continue;
		if (op->server_initiated)
			server_send = true;
		else
			client_send = true;
		if (!op->reap_send_on_recv)
			continue;
		if (!op->server_initiated)
			reap++;
		else if (reap)
			reap--;
		else
			return "unbalanced -f options";
	}
	if (!server_send || !client_send)
		return "at least one server SR and one client SR op are required";
	if (reap)
		return "unbalanced -f options";
	if (cmd->validate && cmd->num_ops < 3)
		return "-V needs its three barrier ops";
	return NULL;
}

const char *kdt_test_type_name(u32 test_type)
{
	switch (test_type) {
	case KDT_TEST_SERVER:
		return "server";
	case KDT_TEST_TRANSACTION:
		return "transaction";
	case KDT_TEST_PERFORMANCE:
		return "performance";
	case KDT_TEST_LIMIT:
		return "limit";
	case KDT_TEST_QUIT:
		return "quit";
	case KDT_TEST_FFT:
		return "fft";
	}
	return "unknown";
}

const char *kdt_transfer_type_name(u32 transfer_type)
{
	switch (transfer_type) {
	case KDT_RDMA_READ:
		return "RR";
	case KDT_RDMA_WRITE:
		return "RW";
	case KDT_SEND_RECV:
		return "SR";
	}
	return "??";
}
