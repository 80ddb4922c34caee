// SPDX-License-Identifier: GPL-2.0
/*
 * kdapl_bench.ko: what the machine charges for the primitives a message
 * path is made of ("calib" command). Under QEMU's TCG a primitive's cost
 * need not resemble a real CPU's - re-enabling interrupts ends a
 * translated block, an atomic is a call into the emulator - so a CPU
 * figure that counts lock sections (issue 16: DAT's cost over verbs) is
 * read against these.
 *
 * Each figure is the mean over @rounds iterations on the calling CPU,
 * in nanoseconds, the loop's own cost (an empty iteration) subtracted;
 * migration and preemption are off while one is measured, interrupts
 * are on (but inside the irqsave section).
 *
 * Then the machine's own jitter: a fixed amount of work (empty loop
 * iterations worth about a 64 B round trip, CALIB_NOISE_NS, as the
 * fastest of a few probes measures them) timed
 * CALIB_NOISE_RUNS times with interrupts and preemption on, and its
 * p50, p99 and p99.9. Whatever stretches the same work - the guest's
 * interrupts and the host taking the vCPU away - stretches a round
 * trip as well, so noise_p99_ns / noise_p50_ns is the tail ratio of
 * work that waits for nothing (issue 16 asks a DAT round trip's p99
 * within 2x its p50).
 */

#include <linux/atomic.h>
#include <linux/bottom_half.h>
#include <linux/irqflags.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/preempt.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>

#include "bench.h"

enum calib_op {
	CALIB_EMPTY,
	CALIB_LOCK,
	CALIB_LOCK_BH,
	CALIB_LOCK_IRQSAVE,
	CALIB_IRQ_SAVE,
	CALIB_BH,
	CALIB_ATOMIC,
	CALIB_KTIME,
	CALIB_CALL,
	CALIB_ICALL,
	CALIB_NR,
};

static const char *const calib_names[CALIB_NR] = {
	[CALIB_EMPTY] = "empty_ns",
	[CALIB_LOCK] = "spin_lock_ns",
	[CALIB_LOCK_BH] = "spin_lock_bh_ns",
	[CALIB_LOCK_IRQSAVE] = "spin_lock_irqsave_ns",
	[CALIB_IRQ_SAVE] = "local_irq_save_ns",
	[CALIB_BH] = "local_bh_disable_ns",
	[CALIB_ATOMIC] = "atomic_inc_ns",
	[CALIB_KTIME] = "ktime_get_ns",
	[CALIB_CALL] = "call_ns",
	[CALIB_ICALL] = "indirect_call_ns",
};

/* Taken and released only to time it: protects nothing. */
static DEFINE_SPINLOCK(calib_lock);
static atomic_t calib_count;	/* only incremented, to time atomic_inc */

/*
 * A call and its return, direct and through a pointer: under TCG each
 * return (and each indirect call) ends a translated block and looks the
 * next one up, so a path's cost may follow its calls more than its
 * instructions (the DAT post path makes about twenty more than the
 * verbs one; a hypothesis this figure is there to test).
 */
static noinline u64 calib_callee(u64 x)
{
	barrier();
	return x + 1;
}

static u64 (*calib_callee_ptr)(u64 x) = calib_callee;

/* Nanoseconds for @n iterations of @op. */
static u64 calib_one(enum calib_op op, u32 n)
{
	unsigned long flags;
	u64 t0, sink = 0;
	u32 i;

	preempt_disable();
	t0 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		switch (op) {
		case CALIB_EMPTY:
			barrier();
			break;
		case CALIB_LOCK:
			spin_lock(&calib_lock);
			spin_unlock(&calib_lock);
			break;
		case CALIB_LOCK_BH:
			spin_lock_bh(&calib_lock);
			spin_unlock_bh(&calib_lock);
			break;
		case CALIB_LOCK_IRQSAVE:
			spin_lock_irqsave(&calib_lock, flags);
			spin_unlock_irqrestore(&calib_lock, flags);
			break;
		case CALIB_IRQ_SAVE:
			local_irq_save(flags);
			local_irq_restore(flags);
			break;
		case CALIB_BH:
			local_bh_disable();
			local_bh_enable();
			break;
		case CALIB_ATOMIC:
			atomic_inc(&calib_count);
			break;
		case CALIB_KTIME:
			sink += ktime_get_ns();
			break;
		case CALIB_CALL:
			sink = calib_callee(sink);
			break;
		case CALIB_ICALL:
			/* loaded each time: the compiler cannot fold it */
			sink = READ_ONCE(calib_callee_ptr)(sink);
			break;
		default:
			break;
		}
	}
	t0 = ktime_get_ns() - t0;
	preempt_enable();
	barrier_data(&sink);
	return t0;
}

#define CALIB_NOISE_NS		80000
#define CALIB_NOISE_RUNS	4000

/* @iters iterations of an empty loop, in nanoseconds. */
static u64 calib_spin(u32 iters)
{
	u64 t0 = ktime_get_ns();
	u32 j;

	for (j = 0; j < iters; j++)
		barrier();
	return ktime_get_ns() - t0;
}

/* The jitter figures. */
static int calib_noise(const struct bench_cmd *c)
{
	u64 *ns, probe = 0;
	u32 i, iters;

	/* the work's size: the fastest of a few probes of 10,000 */
	for (i = 0; i < 8; i++) {
		u64 t = calib_spin(10000);

		probe = i ? min(probe, t) : t;
	}
	iters = min_t(u64, CALIB_NOISE_NS * 10000ULL / max(probe, 1ULL),
		      U32_MAX);
	ns = kvmalloc_array(CALIB_NOISE_RUNS, sizeof(*ns), GFP_KERNEL);
	if (!ns)
		return -ENOMEM;
	for (i = 0; i < CALIB_NOISE_RUNS; i++) {
		ns[i] = calib_spin(iters);
		cond_resched();
	}
	sort(ns, CALIB_NOISE_RUNS, sizeof(*ns), bench_cmp_u64, NULL);
	bench_emit(c->tag, "noise_p50_ns", ns[CALIB_NOISE_RUNS / 2] * 1000);
	bench_emit(c->tag, "noise_p99_ns",
		   ns[CALIB_NOISE_RUNS * 99 / 100] * 1000);
	bench_emit(c->tag, "noise_p999_ns",
		   ns[CALIB_NOISE_RUNS * 999 / 1000] * 1000);
	kvfree(ns);
	return 0;
}

/**
 * bench_calib_run() - the "calib" command
 * @c: the command; @c->rounds iterations per primitive
 *
 * Return: 0, or -ENOMEM.
 * Context: process context (the ctl file's writer).
 */
int bench_calib_run(const struct bench_cmd *c)
{
	u64 ns[CALIB_NR];
	int op;

	for (op = 0; op < CALIB_NR; op++)
		ns[op] = calib_one(op, c->rounds);
	for (op = 0; op < CALIB_NR; op++) {
		u64 d = op == CALIB_EMPTY ? ns[op] :
			ns[op] - min(ns[op], ns[CALIB_EMPTY]);

		bench_emit(c->tag, calib_names[op], d * 1000 / c->rounds);
	}
	return calib_noise(c);
}
