/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kdapltest: the wire format of OFA dapltest's client/server protocol
 * (dapl 2.1.10, dapltest version 6), see Documentation/kdapltest.rst.
 *
 * dapltest sends packed (pack(2)) structures with every integer in
 * little endian; these functions encode and decode them byte by byte
 * into caller supplied buffers. Pure functions: no allocation, no I/O.
 * Built into kdapltest.ko and into the host tests.
 */
#ifndef KDT_PROTO_H
#define KDT_PROTO_H

#include "kdt_shim.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KDT_DAPLTEST_VERSION	6
/* dapl 2.1.10's default server port (0xf230); -n changes it */
#define KDT_DEFAULT_PORT	62000
#define KDT_MAX_OPS		100
#define KDT_NAME_SZ		256
/* Client_Info, the command and Server_Info travel in buffers this big */
#define KDT_CMD_MSG_SIZE	8192
/* dapltest rounds every buffer pool segment up to this */
#define KDT_SEG_ALIGN		256
/* remote memory info: MAX_OPS entries of 12 bytes */
#define KDT_RMI_ENTRY_SIZE	12
#define KDT_RMI_MSG_SIZE	(KDT_MAX_OPS * KDT_RMI_ENTRY_SIZE)
#define KDT_SYNC_MSG_SIZE	64
/* connection private data of each transaction test endpoint (no NUL) */
#define KDT_PRIVATE_DATA	"DAPL and RDMA rule! Test 4321."
#define KDT_PRIVATE_DATA_LEN	30

/* Encoded sizes */
#define KDT_CLIENT_INFO_SIZE	16
#define KDT_SERVER_INFO_SIZE	12
#define KDT_OP_SIZE		20
#define KDT_TRANSACTION_CMD_SIZE 0xa08
#define KDT_QUIT_CMD_SIZE	0x210
#define KDT_PERF_CMD_SIZE	0x234

enum kdt_test_type {
	KDT_TEST_SERVER		= 0,
	KDT_TEST_TRANSACTION	= 1,
	KDT_TEST_PERFORMANCE	= 2,
	KDT_TEST_LIMIT		= 3,
	KDT_TEST_QUIT		= 4,
	KDT_TEST_FFT		= 5,
};

enum kdt_transfer_type {
	KDT_RDMA_READ	= 0,
	KDT_RDMA_WRITE	= 1,
	KDT_SEND_RECV	= 2,
};

struct kdt_client_info {
	u32 dapltest_version;
	u32 is_little_endian;
	u32 test_type;
	u32 total_threads;
};

struct kdt_server_info {
	u32 dapltest_version;
	u32 is_little_endian;
	u32 first_port_number;
};

struct kdt_op {
	u32 server_initiated;
	u32 transfer_type;
	u32 num_segs;
	u32 seg_size;
	u32 reap_send_on_recv;
};

struct kdt_transaction_cmd {
	u32 dapltest_version;
	u32 client_is_little_endian;
	char server_name[KDT_NAME_SZ];
	u32 num_iterations;
	u32 num_threads;
	u32 eps_per_thread;
	u32 use_cno;
	u32 use_rsp;
	u32 debug;
	u32 validate;
	u32 poll;
	u64 server_port;
	char dapl_name[KDT_NAME_SZ];
	u32 qos;
	u32 num_ops;
	struct kdt_op op[KDT_MAX_OPS];
};

struct kdt_quit_cmd {
	char server_name[KDT_NAME_SZ];
	char device_name[KDT_NAME_SZ];
	u32 debug;
	u32 qos;
	u64 port;
};

struct kdt_perf_cmd {
	u32 dapltest_version;
	u32 client_is_little_endian;
	char server_name[KDT_NAME_SZ];
	char dapl_name[KDT_NAME_SZ];
	u32 qos;
	u32 debug;
	u32 mode;		/* 0 blocking, 1 polling */
	u32 num_iterations;
	u32 pipeline_len;
	u32 transfer_type;
	u32 seg_size;
	u32 num_segs;
	u32 use_rsp;
	u64 server_port;
};

/* One entry of the remote memory info exchange */
struct kdt_rmi {
	u32 rmr_context;
	u64 address;
};

/*
 * Encoders write the structure at the start of @buf and return the
 * encoded size, or -EMSGSIZE if @len is too small; bytes past it are
 * left alone. Decoders return 0, -EBADMSG if @len is shorter than the
 * structure, -EPROTO for a value no dapltest can have sent (more than
 * KDT_MAX_OPS ops); names are always NUL terminated after decoding.
 */
int kdt_client_info_encode(const struct kdt_client_info *ci, void *buf,
			   size_t len);
int kdt_client_info_decode(struct kdt_client_info *ci, const void *buf,
			   size_t len);
int kdt_server_info_encode(const struct kdt_server_info *si, void *buf,
			   size_t len);
int kdt_server_info_decode(struct kdt_server_info *si, const void *buf,
			   size_t len);
int kdt_transaction_cmd_encode(const struct kdt_transaction_cmd *cmd,
			       void *buf, size_t len);
int kdt_transaction_cmd_decode(struct kdt_transaction_cmd *cmd,
			       const void *buf, size_t len);
int kdt_quit_cmd_encode(const struct kdt_quit_cmd *cmd, void *buf,
			size_t len);
int kdt_quit_cmd_decode(struct kdt_quit_cmd *cmd, const void *buf,
			size_t len);
int kdt_perf_cmd_encode(const struct kdt_perf_cmd *cmd, void *buf,
			size_t len);
int kdt_perf_cmd_decode(struct kdt_perf_cmd *cmd, const void *buf,
			size_t len);
/* @n entries; the message is always KDT_RMI_MSG_SIZE (n <= KDT_MAX_OPS) */
int kdt_rmi_encode(const struct kdt_rmi *rmi, unsigned int n, void *buf,
		   size_t len);
int kdt_rmi_decode(struct kdt_rmi *rmi, unsigned int n, const void *buf,
		   size_t len);

/* One entry alone: the sync message of the performance test (12 bytes) */
int kdt_rmi_entry_encode(const struct kdt_rmi *rmi, void *buf, size_t len);
int kdt_rmi_entry_decode(struct kdt_rmi *rmi, const void *buf, size_t len);

/*
 * What dapltest's command line checks of a transaction command: NULL if
 * it is runnable, else why not (a constant string).
 */
const char *kdt_transaction_cmd_check(const struct kdt_transaction_cmd *cmd);

/* Segment size as dapltest lays out buffer pools (KDT_SEG_ALIGN). */
static inline u32 kdt_seg_round(u32 seg_size)
{
	return (seg_size + KDT_SEG_ALIGN - 1) & ~(u32)(KDT_SEG_ALIGN - 1);
}

const char *kdt_test_type_name(u32 test_type);
const char *kdt_transfer_type_name(u32 transfer_type);

#ifdef __cplusplus
}
#endif

#endif /* KDT_PROTO_H */
