/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Event dispatchers (evd.c).
 *
 * An EVD is a bounded ring of DAT_EVENTs plus an upcall. Producers (the CM
 * handler, completion processing, dat_evd_post_se, async errors) queue
 * events with kdapl_evd_post(); delivery of upcalls always happens in the
 * EVD's dispatch (cpu.h: on the CPU the placement policy chose, one CPU at
 * a time), in softirq context, never inline in the producer, so a consumer
 * upcall never runs under a producer's lock and may call any upcall-safe
 * DAT function.
 */
#ifndef KDAPL_EVD_H
#define KDAPL_EVD_H

#include <linux/wait.h>
#include <rdma/ib_verbs.h>

#include "kdapl.h"
#include "cpu.h"

struct kdapl_ia;
struct kdapl_cpuset;

/**
 * struct kdapl_evd - an event dispatcher
 * @base: handle, consumer context, owning IA
 * @lock: protects everything below up to @dispatch, taken irqsave
 * @flags: DAT_EVD_*_FLAG streams accepted
 * @ring: @qlen events; @head is the oldest, @count queued
 * @overflowed: an event was refused since the last dequeue; reported
 *	once as DAT_ASYNC_ERROR_EVD_OVERFLOW on the IA's async EVD
 * @overflows: events refused for a full queue, ever
 * @notified: DAT_UPCALL_NORIFY: the upcall was told, the consumer has not
 *	dequeued since
 * @quiet: how many of the newest queued events notify nobody
 *	(DAT_COMPLETION_UNSIGNALLED_FLAG): upcalls stop before them; they
 *	are delivered ahead of the next event that notifies, or dequeued
 * @policy: the DAT upcall policy
 * @upcall: the consumer's upcall object
 * @upcalls_running: upcalls in progress; TEARDOWN waits for 0 on @wq
 * @posted: events queued, ever
 * @upcalls: upcalls made, ever
 * @wq: woken when @upcalls_running drops to 0
 * @dispatch: runs deliveries where the placement policy says (cpu.h)
 * @slot: the CPU this EVD is bound to (kdapl_cpu_bind); its CQ uses that
 *	CPU's completion vector
 * @users: endpoints and other objects using this EVD; it cannot be freed
 *	while they exist
 * @node: on the list of all EVDs (debugfs), under evd_list_lock
 * @cq: for a DTO EVD, the completion queue its endpoints' QPs complete
 *	to; created with the EVD, destroyed under the IA's lock (device
 *	access rule, registry.h) by dat_evd_free(), an abrupt close or
 *	the device's removal. Polled only by @dispatch.
 * @cqe: the CQ's size
 * @poll_last: the completion @dispatch hands to its done function is the
 *	last of those it polled (kdapl_evd_deliver()); @dispatch's alone
 * @poll_after_arm: the CQ's driver may miss a completion that races its
 *	arming (siw, evd_cq_poll()): poll once more after arming; set with
 *	@cq
 */
struct kdapl_evd {
	struct kdapl_obj base;
	spinlock_t lock;	/* see the field list above */
	DAT_EVD_FLAGS flags;
	DAT_EVENT *ring;
	u32 qlen;
	u32 head;
	u32 count;
	bool overflowed;
	u64 overflows;
	bool notified;
	u32 quiet;
	DAT_UPCALL_POLICY policy;
	DAT_UPCALL_OBJECT upcall;
	unsigned int upcalls_running;
	u64 posted;
	u64 upcalls;
	wait_queue_head_t wq;
	struct kdapl_dispatch dispatch;
	struct kdapl_cpu_slot *slot;
	atomic_t users;
	struct list_head node;
	struct ib_cq *cq;
	int cqe;
	bool poll_last;
	bool poll_after_arm;
};

/*
 * Create an EVD owned by @ia (NULL for a free-standing EVD used by the
 * unit tests) with CPU placement from @cpus. The new EVD's handle is in
 * the global table; the caller owns the creator's reference.
 */
DAT_RETURN kdapl_evd_create(struct kdapl_ia *ia, struct kdapl_cpuset *cpus,
			    DAT_COUNT qlen, DAT_UPCALL_POLICY policy,
			    const DAT_UPCALL_OBJECT *upcall,
			    DAT_EVD_FLAGS flags, struct kdapl_evd **evd);
/* Remove the handle, stop upcalls, wait for running ones, free. Sleeps. */
void kdapl_evd_destroy(struct kdapl_evd *evd);
bool kdapl_evd_use(struct kdapl_evd *evd);
/* Destroy every EVD of @ia but its async EVD (abrupt close). Sleeps. */
void kdapl_evd_destroy_ia(struct kdapl_ia *ia);

/*
 * Queue @event (its evd_handle is filled in here). Any context. Returns
 * DAT_SUCCESS, or DAT_QUEUE_FULL when the ring is full: the event is then
 * not queued, the overflow is counted and reported.
 */
DAT_RETURN kdapl_evd_post(struct kdapl_evd *evd, const DAT_EVENT *event);
DAT_RETURN kdapl_evd_queue(struct kdapl_evd *evd, const DAT_EVENT *event,
			   bool kick);
DAT_RETURN kdapl_evd_deliver(struct kdapl_evd *evd, DAT_EVENT *event);
/*
 * Queue @event without notification (DAT_COMPLETION_UNSIGNALLED_FLAG): no
 * upcall is made for it until a later event notifies. Any context.
 */
DAT_RETURN kdapl_evd_queue_quiet(struct kdapl_evd *evd,
				 const DAT_EVENT *event);

/* Queued events and a line of delivery state, for checkers. Any context. */
int kdapl_evd_pending(DAT_EVD_HANDLE evd_handle, char *buf, size_t len);
void kdapl_evd_debugfs_init(struct dentry *dir);
void kdapl_evd_release_device(struct kdapl_evd *evd);
void kdapl_evd_release_ia(struct kdapl_ia *ia);

static inline struct kdapl_evd *kdapl_evd_get(DAT_EVD_HANDLE h)
{
	struct kdapl_obj *o = kdapl_obj_get(h, KDAPL_HT_EVD);

	return o ? container_of(o, struct kdapl_evd, base) : NULL;
}

#endif /* KDAPL_EVD_H */
