/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * kdapltest: the interface between the front end and kdapltest.ko, the
 * misc device /dev/kdapltest. Versioned: a caller passes KDT_ABI_MAJOR
 * and the size of the structure it was built with, the module refuses
 * anything else. Minor versions only add meaning to reserved fields.
 *
 * Minor 1: test types KDT_RUN_LIMIT and KDT_RUN_FFT. Their parameters
 * and per-case results travel in a struct kdt_cases of the caller,
 * pointed to by kdt_run.cases (once reserved2[1..4]); a module of minor
 * 0 answers those test types with result.status -EOPNOTSUPP.
 */
#ifndef _UAPI_KDAPLTEST_H
#define _UAPI_KDAPLTEST_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define KDT_ABI_MAJOR		2
#define KDT_ABI_MINOR		1

#define KDT_DEVICE		"/dev/kdapltest"
#define KDT_IA_NAME_MAX		64
#define KDT_SERVER_NAME_MAX	64
#define KDT_MESSAGE_MAX		256
#define KDT_RUN_MAX_OPS		100

struct kdt_version {
	__u32 abi_major;
	__u32 abi_minor;
	__u32 dapltest_version;	/* wire protocol version spoken (6) */
	__u32 reserved;
};

/* kdt_run.test_type: dapltest's test types */
#define KDT_RUN_SERVER		0
#define KDT_RUN_TRANSACTION	1
#define KDT_RUN_PERFORMANCE	2
#define KDT_RUN_LIMIT		3	/* -T L, minor 1 */
#define KDT_RUN_QUIT		4
#define KDT_RUN_FFT		5	/* -T F, minor 1 */

/* kdt_run.flags */
#define KDT_RUN_VALIDATE	0x1	/* -V */
#define KDT_RUN_POLL		0x2	/* -P */
#define KDT_RUN_USE_RSP		0x4	/* -r */
#define KDT_RUN_DEBUG		0x8	/* -d */
#define KDT_RUN_PERF_POLL	0x10	/* -T P -m p: poll, not block */

struct kdt_run_op {
	__u32 server_initiated;
	__u32 transfer_type;	/* 0 RR, 1 RW, 2 SR */
	__u32 num_segs;
	__u32 seg_size;
	__u32 reap_send_on_recv;
};

struct kdt_result {
	__s32 status;		/* 0 or a negative errno */
	__u32 threads;
	__u32 eps;		/* endpoints in all */
	__u32 tests_done;	/* server: tests served to their end */
	__u32 tests_failed;	/* server: of those, failed */
	__u32 rejected;		/* server: clients refused (bad request) */
	__u64 wqes;		/* work requests of the test phase */
	__u64 time_us;		/* longest thread's test phase */
	__u64 bytes_send;
	__u64 bytes_recv;
	__u64 bytes_rdma_read;
	__u64 bytes_rdma_write;
	/* -T P: the pipelined phase (wqes, time_us) and the latency phase */
	__u32 pipeline;		/* outstanding operations */
	__u32 reserved;
	__u64 lat_min_ns, lat_avg_ns, lat_max_ns;
	char message[KDT_MESSAGE_MAX];
};

struct kdt_run {
	__u32 abi_major;	/* KDT_ABI_MAJOR */
	__u32 size;		/* sizeof(struct kdt_run) */
	__u32 test_type;	/* KDT_RUN_* */
	__u32 flags;
	char ia_name[KDT_IA_NAME_MAX];		/* -D: local kDAPL IA */
	char server_name[KDT_SERVER_NAME_MAX];	/* -s, as typed */
	__be32 server_addr;	/* -s, IPv4 */
	__u32 server_port;	/* -n */
	__u32 iterations;
	__u32 threads;
	__u32 eps_per_thread;
	__u32 qos;
	__u32 num_ops;		/* -T P: ops[0] is its operation */
	__u32 pipeline;		/* -T P: -p, 0 for the default */
	/*
	 * Bad input on purpose, for the tests (a crafted peer): 0 means
	 * as dapltest; else the wire version of Client_Info and the
	 * command, the test type of Client_Info, the bytes of the
	 * command message actually sent (less than 8192: truncated).
	 */
	__u32 craft_version;
	__u32 craft_test_type;
	__u32 craft_cmd_len;
	__u32 reserved2;
	/* -T L and -T F (minor 1): a struct kdt_cases, in and out */
	__u64 cases;		/* its user address */
	__u32 cases_size;	/* sizeof(struct kdt_cases) */
	__u32 reserved3;
	struct kdt_run_op ops[KDT_RUN_MAX_OPS];
	struct kdt_result result;	/* out */
};

/* -T L: the limit tests, dapltest's names (kdapl has no CNOs) */
#define KDT_LIM_IA		0	/* limit_ia */
#define KDT_LIM_PZ		1	/* limit_pz */
#define KDT_LIM_EVD		2	/* limit_evd */
#define KDT_LIM_EP		3	/* limit_ep */
#define KDT_LIM_RSP		4	/* limit_rsp */
#define KDT_LIM_PSP		5	/* limit_psp */
#define KDT_LIM_LMR		6	/* limit_lmr */
#define KDT_LIM_RPOST		7	/* limit_rpost */
#define KDT_LIM_SIZE_LMR	8	/* limit_size_lmr */
#define KDT_LIM_NUM		9
#define KDT_LIMIT_WIDTH_MAX	64	/* kdt_cases.width at most */

/* -T F -f: the function features */
#define KDT_FFT_HWCONN		0	/* 4 cases */
#define KDT_FFT_ENDPOINT	1	/* 3 cases */
#define KDT_FFT_PZ		2	/* 3 cases */
#define KDT_FFT_MEM		3	/* 5 cases */
#define KDT_FFT_CONNMGT		4	/* 3 cases (case2: with -s) */
#define KDT_FFT_QUERYINFO	5	/* 16 cases, kDAPL's numbering */
#define KDT_FFT_NUM		6

#define KDT_CASES_MAX		32

/* kdt_case_result.verdict */
#define KDT_CASE_PASS		0
#define KDT_CASE_FAIL		1
#define KDT_CASE_SKIP		2	/* not applicable; message says why */

struct kdt_case_result {
	__u32 index;		/* KDT_LIM_* or the FFT case number */
	__u32 verdict;		/* KDT_CASE_* */
	__u32 dat_status;	/* the DAT_RETURN checked or that ended it */
	__u32 count;		/* -T L: objects created (posted) */
	__u64 value;		/* limit_size_lmr: largest LMR, bytes */
	__u64 time_us;
	char name[32];		/* limit_ia ... or case0 ... */
	char desc[128];		/* what the case does (dapltest's words) */
	char message[KDT_MESSAGE_MAX];	/* its outcome, or why it failed */
};

/*
 * The parameters and results of a -T L or -T F run. @size is
 * sizeof(struct kdt_cases) of the caller; the module refuses another.
 */
struct kdt_cases {
	__u32 size;
	__u32 width;		/* -T L -w: object sets, at least 1 */
	__u32 maximum;		/* -T L -m: objects per limit at most */
	__u32 feature;		/* -T F -f: KDT_FFT_* */
	__u32 select;		/* bit n: limit test / case n; 0: all */
	__u32 num;		/* out: entries of @result filled */
	__u32 reserved[2];
	struct kdt_case_result result[KDT_CASES_MAX];
};

/* kdt_status.state */
#define KDT_STATE_IDLE		0	/* no run on this file */
#define KDT_STATE_RUNNING	1	/* a client run */
#define KDT_STATE_READY		2	/* a server, listening */

/*
 * The progress of the KDT_IOC_RUN in progress on the same open file,
 * for another thread of the caller (KDT_IOC_STATUS).
 */
struct kdt_status {
	__u32 state;		/* KDT_STATE_* */
	__u32 port;		/* server: its port once READY */
	__u32 tests_done;	/* server: tests served to their end */
	__u32 tests_failed;
	__u32 tests_running;
	__u32 rejected;		/* server: clients refused */
	__u64 wqes;		/* work requests done so far */
	__u64 wqes_total;	/* of those planned */
	char last_error[KDT_MESSAGE_MAX];
};

#define KDT_IOC_MAGIC		'k'
#define KDT_IOC_VERSION		_IOR(KDT_IOC_MAGIC, 0x40, struct kdt_version)
#define KDT_IOC_RUN		_IOWR(KDT_IOC_MAGIC, 0x41, struct kdt_run)
#define KDT_IOC_STATUS		_IOR(KDT_IOC_MAGIC, 0x42, struct kdt_status)

#endif /* _UAPI_KDAPLTEST_H */
