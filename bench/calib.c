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
 */

#include <linux/atomic.h>
#include <linux/bottom_half.h>
#include <linux/irqflags.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/preempt.h>
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

/**
 * bench_calib_run() - the "calib" command
 * @c: the command; @c->rounds iterations per primitive
 *
 * Return: 0.
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
	return 0;
}
