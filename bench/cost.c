// SPDX-License-Identifier: GPL-2.0
/*
 * kdapl_bench.ko: what one measured run costs the whole guest.
 *
 * Snapshots, taken right before and right after a measured run (warm-up,
 * connection setup and teardown outside), of counters the guest's /proc
 * files show: busy time of every CPU (/proc/stat's user, nice, system,
 * irq and softirq, read as /proc/stat does; tick-sampled at HZ in the
 * test kernels), network softirqs (/proc/softirqs NET_RX + NET_TX),
 * IPv4 packets received summed over every network namespace
 * (/proc/net/snmp Ip InReceives: the skbs TCP's receive path handles,
 * data and acknowledgments, both ends), reschedule and function-call
 * IPIs and irq_work self-interrupts (/proc/interrupts RES, CAL, IWI;
 * x86 only) and context switches (/proc/stat ctxt, counted here from
 * the sched_switch tracepoint: the kernel does not export its own sum). Both ends of a
 * connection in one guest are both in the figures; in the two-guest
 * topology only the measuring guest's end is.
 *
 * The host's side: each measured run is bracketed by two console lines,
 * "kdapl_bench: cost begin" before its first snapshot and "kdapl_bench:
 * cost end <tag>" after its last; scripts/bench.sh reads the QEMU
 * processes' CPU time when each line arrives (host_cpus).
 *
 * Lifetime: the tracepoint probe is registered at module load and
 * unregistered (and waited for) at unload; the per-CPU counter it bumps
 * is module data. Each of the two patches the scheduler's code
 * (text_poke); make stress, which reports no costs, loads the module
 * with count_switches=0: once, under QEMU's TCG, a vCPU executed the
 * breakpoint of that patching after it had completed (an unhandled
 * int3 in __schedule, at kdapl_bench's unload).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/console.h>
#include <linux/cpumask.h>
#include <linux/interrupt.h>
#include <linux/kernel_stat.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <net/ip.h>
#include <net/net_namespace.h>
#ifdef CONFIG_X86
#include <asm/hardirq.h>
#endif

#include "bench.h"

static bool count_switches = true;
module_param(count_switches, bool, 0444);
MODULE_PARM_DESC(count_switches, "count context switches from the sched_switch tracepoint (cs_per_op; default on)");

static DEFINE_PER_CPU(u64, bench_switches);
static struct tracepoint *bench_tp_switch;

static void bench_on_switch(void *data, bool preempt, struct task_struct *prev,
			    struct task_struct *next, unsigned int prev_state)
{
	this_cpu_inc(bench_switches);
}

static void bench_find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_switch"))
		*(struct tracepoint **)priv = tp;
}

/**
 * bench_cost_init() - count context switches from now on
 *
 * Without the tracepoint (a kernel without CONFIG_TRACEPOINTS) runs
 * report no "cs_per_op".
 */
void bench_cost_init(void)
{
	struct tracepoint *tp = NULL;

	if (!count_switches)
		return;
	for_each_kernel_tracepoint(bench_find_tp, &tp);
	if (tp && !tracepoint_probe_register(tp, bench_on_switch, NULL))
		bench_tp_switch = tp;
	else
		pr_info("no sched_switch tracepoint: no context switch counts\n");
}

/**
 * bench_cost_exit() - stop counting; no probe runs after the return
 */
void bench_cost_exit(void)
{
	if (!bench_tp_switch)
		return;
	tracepoint_probe_unregister(bench_tp_switch, bench_on_switch, NULL);
	tracepoint_synchronize_unregister();
	bench_tp_switch = NULL;
}

/* IPv4 InReceives of every namespace. Context: process context. */
static u64 cost_ip_packets(void)
{
	struct net *net;
	u64 n = 0;

	down_read(&net_rwsem);
	for_each_net(net)
		n += snmp_fold_field64(net->mib.ip_statistics,
				       IPSTATS_MIB_INPKTS,
				       offsetof(struct ipstats_mib, syncp));
	up_read(&net_rwsem);
	return n;
}

static void cost_snap(struct bench_cost *c)
{
	u64 busy;
	int cpu;

	memset(c, 0, sizeof(*c));
	/* first: net_rwsem may wait, the rest is read close to c->t */
	c->ip_pkts = cost_ip_packets();
	for_each_possible_cpu(cpu) {
		struct kernel_cpustat k;
		u64 *t = k.cpustat;

		/* as /proc/stat reads it (exact with vtime accounting too) */
		kcpustat_cpu_fetch(&k, cpu);
		busy = t[CPUTIME_USER] + t[CPUTIME_NICE] + t[CPUTIME_SYSTEM] +
		       t[CPUTIME_IRQ] + t[CPUTIME_SOFTIRQ];
		c->busy_ns += busy;
		if (cpu < BENCH_MAX_CPUS)
			c->cpu_busy_ns[cpu] = busy;
		c->softirqs += kstat_softirqs_cpu(NET_RX_SOFTIRQ, cpu) +
			       kstat_softirqs_cpu(NET_TX_SOFTIRQ, cpu);
		c->switches += per_cpu(bench_switches, cpu);
#if defined(CONFIG_X86) && defined(CONFIG_SMP)
		c->ipis += per_cpu(irq_stat, cpu).irq_resched_count +
			   per_cpu(irq_stat, cpu).irq_call_count;
#endif
#if defined(CONFIG_X86) && defined(CONFIG_X86_LOCAL_APIC)
		c->irq_works += per_cpu(irq_stat, cpu).apic_irq_work_irqs;
#endif
	}
	c->t = ktime_get();
}

/*
 * The host times the run from these lines: they must be out on the
 * console before the run goes on. printk() may leave the printing to
 * another CPU that holds the console (a run with both CPUs in softirq
 * delayed the begin line by the whole run); console_lock() and
 * console_unlock() wait until everything logged so far is printed.
 * Context: process context (the command's); sleeps.
 */
static void cost_mark(const char *what, const char *tag)
{
	pr_notice("cost %s%s%s\n", what, tag ? " " : "", tag ?: "");
	console_lock();
	console_unlock();
}

/**
 * bench_cost_start() - a measured run begins: tell the host, snapshot
 * @c: where to
 *
 * Context: process context; sleeps.
 */
void bench_cost_start(struct bench_cost *c)
{
	cost_mark("begin", NULL);
	cost_snap(c);
}

/**
 * bench_cost_emit() - the run's cost since @start
 * @tag: the run's figure name
 * @start: bench_cost_start() at the start of the run
 * @ops: messages sent (streams) or round trips (ping-pong) in the run
 * @bytes: payload bytes moved, or 0
 *
 * Emits <tag>.cpus (busy CPUs: busy time over wall time), .busy_cpu<n>
 * (the same for each CPU: whether a run's work shares one CPU or
 * spreads), .us_per_op, .us_per_mb (with @bytes), .softirq_per_op,
 * .pkts_per_op, .ipi_per_op, .irqwork_per_op and .cs_per_op.
 * Context: process context; sleeps.
 */
void bench_cost_emit(const char *tag, const struct bench_cost *start,
		     u64 ops, u64 bytes)
{
	struct bench_cost end;
	u64 wall, busy;
	char what[16];
	u32 cpu;

	cost_snap(&end);
	cost_mark("end", tag);
	wall = ktime_to_ns(ktime_sub(end.t, start->t));
	busy = end.busy_ns - start->busy_ns;
	if (!ops || !wall)
		return;
	bench_emit(tag, "cpus", div64_u64(busy * 1000, wall));
	for (cpu = 0; cpu < min_t(u32, num_possible_cpus(), BENCH_MAX_CPUS);
	     cpu++) {
		snprintf(what, sizeof(what), "busy_cpu%u", cpu);
		bench_emit(tag, what,
			   div64_u64((end.cpu_busy_ns[cpu] -
				      start->cpu_busy_ns[cpu]) * 1000, wall));
	}
	/* us per op, times 1000: ns per op */
	bench_emit(tag, "us_per_op", div64_u64(busy, ops));
	if (bytes)
		bench_emit(tag, "us_per_mb",
			   div64_u64(busy * 1000000ULL, bytes));
	bench_emit(tag, "softirq_per_op",
		   div64_u64((end.softirqs - start->softirqs) * 1000, ops));
	if (end.ip_pkts >= start->ip_pkts)	/* no namespace went away */
		bench_emit(tag, "pkts_per_op",
			   div64_u64((end.ip_pkts - start->ip_pkts) * 1000,
				     ops));
#if defined(CONFIG_X86) && defined(CONFIG_SMP)
	bench_emit(tag, "ipi_per_op",
		   div64_u64((end.ipis - start->ipis) * 1000, ops));
#endif
#if defined(CONFIG_X86) && defined(CONFIG_X86_LOCAL_APIC)
	bench_emit(tag, "irqwork_per_op",
		   div64_u64((end.irq_works - start->irq_works) * 1000, ops));
#endif
	if (bench_tp_switch)
		bench_emit(tag, "cs_per_op",
			   div64_u64((end.switches - start->switches) * 1000,
				     ops));
}
