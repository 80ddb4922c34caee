/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kdapl_bench.ko: the in-guest half of `make bench`
 * (Documentation/performance.rst).
 *
 * One debugfs file, /sys/kernel/debug/kdapl_bench/ctl, takes one command
 * per write(); the command runs to its end inside that write() (process
 * context, may sleep for seconds) and its output, lines of
 * "<figure> <value>", can then be read back from the same file. Commands
 * are serialized by bench_mutex. The passive ends are made by "respond"
 * (the data tests') and "serve" (the setup tests') commands from a task
 * in the peer's network namespace (siw opens its listening socket in the
 * caller's namespace) and stay until "unrespond" / "unserve".
 */
#ifndef _KDAPL_BENCH_H_
#define _KDAPL_BENCH_H_

#include <linux/ktime.h>
#include <linux/seq_buf.h>
#include <linux/types.h>

#include <dat2/kdat.h>

struct net;
struct socket;

/* Per-run limits. */
#define BENCH_MAX_CONNS		8	/* EPs busy at once (scaling, sweep) */
#define BENCH_MAX_STRESS_CONNS	1000	/* "stress test=many": kiwarp has 1024 QPs */
#define BENCH_MAX_CPUS		8	/* per-CPU event counters */
#define BENCH_MAX_REPS		20
#define BENCH_MAX_ROUNDS	100000	/* ping-pong round trips */
#define BENCH_MAX_SIZE		(4U << 20)
#define BENCH_MAX_SETUPS	1000	/* connections per setup-rate run */
#define BENCH_WAIT_MS		10000	/* any single wait */

/**
 * struct bench_cmd - one parsed command
 * @verb: first word ("dat", "tcp", "verbs", "serve", ...)
 * @test: what to measure: write, read, send, lat, conn, sconn
 * @ia_a: active side's IA (RDMA device)
 * @ia_b: passive side's IA
 * @addr_b: passive side's IPv4 address
 * @port: TCP port / connection qualifier
 * @size: message size in bytes
 * @depth: outstanding operations per EP (pipeline depth)
 * @conns: EPs busy at once
 * @ms: measured duration of a throughput run, milliseconds
 * @rounds: ping-pong round trips or connections per measured run
 * @reps: measured runs (after one warm-up run)
 * @warm: the warm-up run: milliseconds (throughput) or round trips
 *        (ping-pong); 0: a quarter of @ms (at least 100) or @rounds
 * @vec_a: the verbs test's active CQ's completion vector (kiwarp: CPU)
 * @vec_b: and the passive one's
 * @cpu: "dat" and "respond": the CPU the command's EVDs are created on
 *	(kdapl's follow placement binds an EVD, and its CQ's vector, to
 *	the creating CPU); BENCH_CPU_ANY: wherever the command runs
 * @signal: selective signaling: every @signal-th request of the active
 *	end is signaled, the others are posted with
 *	DAT_COMPLETION_SUPPRESS_FLAG (verbs: without IB_SEND_SIGNALED);
 *	0 or 1: every one
 * @work: "dat" streams: microseconds of busy work the active end's
 *	upcall does per DTO event before it reposts (udelay), a consumer
 *	that processes its completions; 0: none
 * @lossy: "stress test=soak": the wire drops and delays (netem), so a
 *	graceful disconnect may end BROKEN; "stress test=many": hundreds of
 *	graceful disconnects at once may outlast kdapl's bound (BROKEN)
 * @hold: "stress test=many": milliseconds every connection stays up
 *	once all are, for the guest to count them
 * @tag: label prefixed to every output figure
 */
struct bench_cmd {
	char verb[16];
	char test[16];
	char ia_a[32];
	char ia_b[32];
	char addr_b[48];
	char tag[48];
	u16 port;
	u32 size;
	u32 depth;
	u32 conns;
	u32 ms;
	u32 rounds;
	u32 reps;
	u32 warm;
	u32 vec_a;
	u32 vec_b;
	u32 cpu;
	u32 signal;
	u32 work;
	u32 lossy;
	u32 hold;
	u32 wait;	/* stress: the longest wait for one event, ms */
};

#define BENCH_CPU_ANY	U32_MAX

/* Largest @signal: a window of suppressed requests fits every queue. */
#define BENCH_MAX_SIGNAL	16

/* Largest @work, us: an upcall is a softirq */
#define BENCH_MAX_WORK_US	2000

/* Output of the running command (bench_mutex held). */
extern struct seq_buf bench_out;

void bench_emit(const char *tag, const char *what, u64 milli);
void bench_emit_lat(const char *tag, u64 *ns, u32 n);
int bench_cmp_u64(const void *a, const void *b);
u64 bench_rate_milli(u64 count, u64 ns);
u32 bench_warm_ms(const struct bench_cmd *c);
u32 bench_warm_rounds(const struct bench_cmd *c);

/*
 * A snapshot of the guest-wide counters a run is charged with (cost.c):
 * busy CPU time (ns; in all, and of each of the first BENCH_MAX_CPUS
 * CPUs), network softirqs, reschedule + function-call IPIs, irq_work
 * interrupts, context switches, and when it was taken.
 */
struct bench_cost {
	u64 busy_ns;
	u64 cpu_busy_ns[BENCH_MAX_CPUS];
	u64 softirqs;
	u64 ip_pkts;
	u64 ipis;
	u64 irq_works;
	u64 switches;
	ktime_t t;
};

void bench_cost_init(void);
void bench_cost_exit(void);
void bench_cost_start(struct bench_cost *c);
void bench_cost_emit(const char *tag, const struct bench_cost *start,
		     u64 ops, u64 bytes);

/* DAT tests (dat.c). */
int bench_dat_serve(const char *ia, u16 port);
void bench_dat_unserve(void);
int bench_dat_run(const struct bench_cmd *c);

/* Kernel TCP tests (tcp.c) and their responder (tresp.c). */
int bench_tcp_serve(u16 port);
void bench_tcp_unserve(void);
int bench_tcp_run(const struct bench_cmd *c);
struct net *bench_peer_net(void);
int bench_tcp_listen(u16 port, struct socket **out);
int bench_tcp_send_all(struct socket *s, void *buf, size_t len);
int bench_tcp_recv_all(struct socket *s, void *buf, size_t len);
void bench_tcp_tune(struct socket *s);
int bench_tresp_start(u16 port);
void bench_tresp_stop(void);

#define BENCH_TCP_CHUNK		(256 * 1024)
#define BENCH_TCP_STREAM	1	/* sink messages, count each run */
#define BENCH_TCP_ECHO		2	/* echo messages of the size */

/* What a TCP test's active end sends first: what the responder does. */
struct bench_tcp_hdr {
	__le32 mode;
	__le32 size;
};

/* Raw kernel verbs (verbs.c). */
int bench_verbs_run(const struct bench_cmd *c);
int bench_calib_run(const struct bench_cmd *c);

/* make stress's workloads (stress.c). */
int bench_stress_run(const struct bench_cmd *c);

#endif /* _KDAPL_BENCH_H_ */
