/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-CPU completion processing (seed 004, "parallelizing completion event
 * processing").
 *
 * Each provider (RDMA device, the "interface" of the seed) has a
 * struct kdapl_cpuset: one slot per participating CPU, holding how many
 * event queues are bound to that CPU, how many completions and events
 * were processed there and how busy that processing kept the CPU. An
 * event queue (an EVD, with its CQ if it has one) is bound to a slot when
 * it is created; its CQ uses that CPU's completion vector. Producers kick
 * the queue's struct kdapl_dispatch, which schedules an irq_poll on the
 * CPU chosen for the queue (locally, or through one IPI); the poll
 * function runs there in softirq context, the DPC of the seed. Only one
 * CPU processes a queue at a time (the irq_poll's SCHED bit), so its
 * events keep their order and upcalls never run concurrently.
 *
 * Where a queue is processed is the placement policy of the set
 * (module parameter "placement"):
 *
 * KDAPL_PLACE_FOLLOW (default): the queue is bound to the CPU that
 *	creates it, unless that CPU is overloaded, and is processed on the
 *	CPU its completions arrive on (the device's completion handler, the
 *	poster of a software event): no IPI and no remote wakeup at low
 *	load. It moves only when load calls for it, with hysteresis: a
 *	queue whose CPU is busier than KDAPL_LOAD_HIGH and KDAPL_LOAD_MARGIN
 *	busier than the lightest participating CPU moves there; a queue
 *	processed away from its producer comes back when the producer's CPU
 *	is below KDAPL_LOAD_LOW or KDAPL_LOAD_MARGIN lighter than the
 *	queue's. A queue moves at most once per load window, and at most
 *	one queue moves to a CPU per window, so the load measured after a
 *	move includes it. The choice is made when a kick schedules the
 *	processing: a queue that never drains (every poll uses its whole
 *	budget, so no kick schedules it) stays where it runs until it does.
 * KDAPL_PLACE_SPREAD: the seed's strict spreading. The queue is bound to
 *	the slot with the fewest bound queues, ties broken by the fewest
 *	events processed, and every event is processed, every upcall made,
 *	on that CPU.
 *
 * Load is the share of a load window (KDAPL_LOAD_WINDOW) a CPU spent
 * processing completions and events in kdapl, measured around each run of
 * a processing function on that CPU.
 *
 * The participating CPUs are the module parameter "cpus" (a cpulist,
 * default: all possible CPUs). A queue's CPU that is offline when an event
 * arrives is replaced by the CPU the event arrives on (follow mode: by
 * the lightest participating CPU if that one does not take part).
 */
#ifndef KDAPL_CPU_H
#define KDAPL_CPU_H

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/irq_poll.h>
#include <linux/smp.h>

enum kdapl_placement {
	KDAPL_PLACE_FOLLOW,
	KDAPL_PLACE_SPREAD,
};

/* Load thresholds, in thousandths of a window spent processing. */
#define KDAPL_LOAD_HIGH		500
#define KDAPL_LOAD_LOW		250
#define KDAPL_LOAD_MARGIN	250

/**
 * struct kdapl_cpu_slot - one participating CPU of a provider
 * @cpu: the CPU
 * @queues: event queues bound to it (kdapl_cpu_bind/unbind)
 * @events: completions and events processed on it
 *	(kdapl_dispatch_account)
 * @win_start: jiffies at which the current load window began
 * @win_busy: ns spent processing in the current window
 * @busy: load of the last complete window, in thousandths
 * @moved_in: jiffies of the last queue moved to this CPU by load
 *
 * @win_start, @win_busy and @busy are written only on @cpu, by the
 * dispatch poll (softirq); others read them with READ_ONCE.
 */
struct kdapl_cpu_slot {
	unsigned int cpu;
	atomic_t queues;
	atomic64_t events;
	unsigned long win_start;
	u64 win_busy;
	unsigned int busy;
	unsigned long moved_in;
};

/**
 * struct kdapl_cpuset - the participating CPUs of one provider
 * @lock: serialises the choice in kdapl_cpu_bind() so that two queues
 *	created at once do not both pick the same least-loaded slot
 * @mode: the placement policy of the provider's queues
 * @index: for each possible CPU, its slot number, or -1
 * @nr: number of slots
 * @slot: one per participating CPU, in CPU order
 *
 * Owned by the provider: allocated when the device appears, freed after
 * the last event queue of the device is gone.
 */
struct kdapl_cpuset {
	spinlock_t lock;	/* serialises the choice of a slot */
	enum kdapl_placement mode;
	short *index;
	unsigned int nr;
	struct kdapl_cpu_slot slot[];
};

struct kdapl_dispatch;
typedef int (*kdapl_dispatch_fn)(struct kdapl_dispatch *d, int budget);

/**
 * struct kdapl_dispatch - runs one event queue's processing on its CPU
 * @iop: the softirq poll context, scheduled on @cpu
 * @csd: IPI that schedules @iop when the kick comes from another CPU
 * @flags: KDAPL_DISPATCH_IPI (an IPI is in flight; cleared at the end of
 *	the IPI function, the last access to this structure from it) and
 *	KDAPL_DISPATCH_DEAD (kdapl_dispatch_stop() ran: no more kicks) and
 *	KDAPL_DISPATCH_KICKED (work arrived since the processing function
 *	last started: a kick that lands while the poll is finishing would
 *	otherwise be lost, see dispatch_poll()) and
 *	KDAPL_DISPATCH_POLLING (dispatch_poll() runs; cleared as its last
 *	access to this structure, kdapl_dispatch_stop() waits for it)
 * @set: the provider's CPUs
 * @slot: the CPU this queue is bound to (its completion vector's)
 * @cpu: the CPU that processes it next; @slot's CPU in spread mode,
 *	changed by kicks in follow mode (READ_ONCE/WRITE_ONCE: racing kicks
 *	only disagree on a choice, never on who processes, see @iop)
 * @moved: jiffies of this queue's last move by load
 * @moves: moves by load, ever (debugfs)
 * @fn: the processing function; returns how much of @budget it used and
 *	is called again while it uses all of it
 */
struct kdapl_dispatch {
	struct irq_poll iop;
	call_single_data_t csd;
	unsigned long flags;
	struct kdapl_cpuset *set;
	struct kdapl_cpu_slot *slot;
	unsigned int cpu;
	unsigned long moved;
	unsigned long moves;
	kdapl_dispatch_fn fn;
};

#define KDAPL_DISPATCH_IPI	0
#define KDAPL_DISPATCH_DEAD	1
#define KDAPL_DISPATCH_KICKED	2
#define KDAPL_DISPATCH_POLLING	3

int kdapl_cpu_init(void);
void kdapl_cpu_exit(void);
const struct cpumask *kdapl_cpu_mask(void);
enum kdapl_placement kdapl_cpu_placement(void);
const char *kdapl_placement_name(enum kdapl_placement mode);
bool kdapl_producer_cq(void);	/* evd.c */

struct kdapl_cpuset *kdapl_cpuset_alloc(const struct cpumask *mask,
					enum kdapl_placement mode);
void kdapl_cpuset_free(struct kdapl_cpuset *set);
struct kdapl_cpu_slot *kdapl_cpu_slot_of(struct kdapl_cpuset *set,
					 unsigned int cpu);
unsigned int kdapl_cpu_load(const struct kdapl_cpu_slot *slot);
struct kdapl_cpu_slot *kdapl_cpu_bind(struct kdapl_cpuset *set);
void kdapl_cpu_unbind(struct kdapl_cpu_slot *slot);

void kdapl_dispatch_init(struct kdapl_dispatch *d, struct kdapl_cpuset *set,
			 struct kdapl_cpu_slot *slot, kdapl_dispatch_fn fn,
			 int weight);
void kdapl_dispatch_kick(struct kdapl_dispatch *d);
void kdapl_dispatch_stop(struct kdapl_dispatch *d);
void kdapl_dispatch_account(struct kdapl_dispatch *d, int n);

#endif /* KDAPL_CPU_H */
