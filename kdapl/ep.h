/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Endpoints, service points and connection requests: the connection
 * side of kdapl (ep.c, cm.c, sp.c, dto.c).
 *
 * Contexts. Consumer calls come from process context or, for the
 * upcall-safe ones (post_*, ep_connect, ep_disconnect, cr_accept,
 * cr_reject), from any context: they only check and change state under
 * the EP's spinlock and hand everything that sleeps (rdma_cm calls, QP
 * state changes, drains) to the EP's work item. rdma_cm's event handler
 * runs in process context with the cm_id's handler mutex held; it takes
 * only the EP's spinlock, posts events and queues work. The connect and
 * disconnect timer runs in softirq context and does the same.
 *
 * Locking, outer first (continues registry.h and kdapl.h):
 *
 *   ia->lock - ia->eps, ia->sps, ia->crs; device resources (QP, CQ)
 *	are created and destroyed under it
 *   ep->cm_mutex - ep->cm_id and ep->qp for the sleeping code: work,
 *	free, reset, modify, device removal. rdma_destroy_id() waits for
 *	the cm_id's handler, so the handler never takes this mutex.
 *   (rdma_cm's handler mutex)
 *   ep->lock - the rest of the EP, see struct kdapl_ep
 *   evd->lock
 */
#ifndef KDAPL_EP_H
#define KDAPL_EP_H

#include <linux/timer.h>
#include <linux/workqueue.h>
#include <rdma/rdma_cm.h>

#include "kdapl.h"
#include "ep_state.h"

struct kdapl_pz;
struct kdapl_evd;
struct kdapl_sp;
struct kdapl_cr;
struct kdapl_lmr;
struct kdapl_iws;

/*
 * Largest private data kdapl keeps from the peer (connection request,
 * accept or reject): the iWARP limit, which is larger than IB's.
 */
#define KDAPL_PDATA_MAX		256

/* Most segments in one DTO (local triplets); the EP attributes are capped. */
#define KDAPL_MAX_IOV		8

/*
 * wr_id values below this are kdapl's own work requests (memory
 * registration, lmr.h), not pointers: the CQ poller hands them to
 * kdapl_cq_internal_wc().
 */
#define KDAPL_WR_ID_INTERNAL_LIMIT	2

/* kdapl_wr.next of a context that is out (posted). */
#define KDAPL_WR_BUSY		(U32_MAX - 1)

/**
 * struct kdapl_wr - the context of one posted work request
 * @cqe: what the work request's wr_cqe points at; the EVD's poller calls
 *	@cqe.done (kdapl_dto_done)
 * @ep: the endpoint; alive while a context is out (free drains the QP)
 * @cookie: the consumer's DTO cookie
 * @len: bytes posted (reported for sends and RDMA, where the work
 *	completion has no length)
 * @op: the DAT_DTOS operation
 * @next: index of the next free context, on the EP's free list
 * @seq: request DTOs: the post's place in the send queue (ep->sq_seq)
 * @unsig_next: an unsignaled request: the next one on the EP's
 *	unsignaled list (U32_MAX at its tail)
 * @suppress: DAT_COMPLETION_SUPPRESS_FLAG: no event when it succeeds
 * @unsignaled: @suppress on a send or RDMA Write: posted without
 *	IB_SEND_SIGNALED, no work completion comes when it succeeds
 * @quiet: DAT_COMPLETION_UNSIGNALLED_FLAG: its event notifies nobody
 * @lmrs: the LMRs of the local triplets, held (kdapl_lmr_get()) until
 *	the completion so that none is freed under the device's DMA
 * @nlmr: entries in @lmrs
 *
 * Every EP has an array of these, sized at QP creation from the EP's
 * max_request_dtos + max_recv_dtos; posting takes one from the free
 * list and the completion puts it back, both under ep->lock. Nothing is
 * allocated per message.
 *
 * An unsignaled request has no completion of its own when it succeeds.
 * The send queue completes in posting order (reads, which may finish
 * after later requests, are always signaled), so when any later request
 * completes, every unsignaled one posted before it has succeeded: the
 * completion takes them off ep->unsig_head in order and gives their
 * contexts and LMRs back (dto.c). One that fails or is flushed has its
 * completion and event like any request. After a drain the rest go back
 * as successful (kdapl_dto_reclaim_all()).
 */
struct kdapl_wr {
	struct ib_cqe cqe;
	struct kdapl_ep *ep;
	DAT_DTO_COOKIE cookie;
	u32 len;
	u16 op;
	bool suppress;
	bool unsignaled;
	bool quiet;
	u32 next;
	u32 seq;
	u32 unsig_next;
	struct kdapl_lmr *lmrs[KDAPL_MAX_IOV];
	u32 nlmr;
};

/* Work the EP's work item has to do (ep->actions). */
enum kdapl_ep_action {
	KDAPL_EP_ACT_CONNECT,	/* create the cm_id, resolve the address */
	KDAPL_EP_ACT_ACCEPT,	/* rdma_accept() the CR's cm_id */
	KDAPL_EP_ACT_DISCONNECT, /* graceful: rdma_disconnect() */
	KDAPL_EP_ACT_ABORT,	/* QP to error, cm_id destroyed */
	KDAPL_EP_ACT_DRAIN,	/* drain the QP; then DISCONNECT_DONE */
	/* the graceful disconnect's bound expired: QP to error, drained, BROKEN */
	KDAPL_EP_ACT_DISC_TIMEOUT,
	/* resolve the address again, after the short first attempt (cm.c) */
	KDAPL_EP_ACT_RESOLVE,
	/* a socket connect's time-out: the socket back, or the outcome */
	KDAPL_EP_ACT_IWS_TIMEOUT,
};

/**
 * struct kdapl_ep - an endpoint (ep.c)
 * @base: handle, consumer context, owning IA (a child of the IA)
 * @lock: protects @state, @actions, @wrs' free list, @sq_seq, the
 *	unsignaled list (@unsig_*), the RDMA Read depths in @attr,
 *	@qp_ready, @peer_*, the counters and @disc_*; taken irqsave
 * @state: DAT_EP_STATE, changed only through the state table
 * @cm_mutex: see the locking order above; protects @cm_id, @qp (as a
 *	pointer: set and cleared under both this and @lock)
 * @qp: the QP, while the EP has a PZ and its device is present
 * @cm_id: the connection's rdma_cm id, or NULL
 * @spare_id: an rdma_cm id made ahead, in process context (dat_ep_create,
 *	dat_ep_reset), for the next active connect: dat_ep_connect, which
 *	must not sleep, then knows the allocation the provider needs was
 *	made, and answers DAT_INSUFFICIENT_RESOURCES when it was not (seed
 *	003) instead of an asynchronous NON_PEER_REJECTED. Under @lock;
 *	the CONNECT action takes it (cm.c), kdapl_ep_destroy() frees it
 * @destroyed: kdapl_ep_destroy() freed @spare_id: none is made again;
 *	under @lock
 * @pz: protection zone (a user reference), or NULL
 * @recv_evd, @request_evd, @connect_evd: the EVDs (user references)
 * @attr: the EP attributes; max_rdma_read_in/_out are @rd_in_want and
 *	@rd_out_want until a connection is established, then the depths it
 *	negotiated (seed 000: the provider may change them during setup);
 *	dat_ep_reset() puts the wanted ones back. Changed under @lock.
 * @rd_in_want, @rd_out_want: the RDMA Read depths asked for (by the
 *	consumer, 0 included, or kdapl's defaults when it gave no
 *	attributes): what connecting and accepting request
 * @wrs: work request contexts, @nr_wrs of them; @free_wr heads the
 *	free list (U32_MAX when empty)
 * @sq_seq: sequence number of the next request DTO (kdapl_wr.seq)
 * @unsig_head, @unsig_tail: the unsignaled requests not yet known to be
 *	complete, oldest first (indices into @wrs, U32_MAX when empty)
 * @unsig_count: how many there are
 * @held_head, @held_tail: DTOs held back from the QP, flushed after its
 *	own (dto.c, dto_held()): receives once a graceful disconnect asked
 *	the provider (@disc_asked), any DTO posted in DISCONNECTED before
 *	@drained; oldest first, linked through kdapl_wr.unsig_next
 * @held_flushing: kdapl_dto_flush_held() is emptying that list: a DTO
 *	posted meanwhile is appended, not flushed ahead of it
 * @drained: the QP was drained since it was made: its flushes are all on
 *	the EVDs, so a DTO posted in DISCONNECTED is flushed at once
 * @work: runs @actions in process context; queued holding a reference
 * @actions: KDAPL_EP_ACT_* bits pending for @work
 * @gen: connection generation, incremented by dat_ep_reset() (under
 *	@cm_mutex and @lock): @work drops actions of an older one
 * @timer: connect timeout and the bounded graceful disconnect wait
 * @deadline: jiffies at which @timer is due; a timer callback that finds
 *	jiffies before it belongs to an older arming and does nothing
 * @local, @remote: the connection's addresses
 * @remote_qual: the remote port (connection qualifier)
 * @pdata, @pdata_len: private data to send (connect, accept)
 * @peer_pdata, @peer_pdata_len: the peer's private data of the last
 *	connection event; the event points at it
 * @cr: the connection request this EP belongs to (passive side), or NULL
 * @rsp: the RSP that reserved this EP, or NULL
 * @provider_ep: created by a PSP with DAT_PSP_PROVIDER_FLAG
 * @disc_peer_seen: graceful disconnect: the peer's disconnect (or an
 *	error) arrived
 * @disc_broken: graceful disconnect: it was an error; the disconnect
 *	completes with BROKEN instead of DISCONNECTED
 * @disc_forcing: graceful disconnect: its bound ran out once and the
 *	work was told to end it; if the timer fires again (the drain did
 *	not return), the timer ends it
 * @resolve_retried: the connect's address resolution is past its short
 *	first attempt (cm.c, KDAPL_RESOLVE_FIRST_MS); cleared by the CONNECT
 *	action before the first, set by the RESOLVE action, read there and
 *	by rdma_cm's handler: the EP's work and the handler of its cm_id,
 *	whose events come one at a time and queue the RESOLVE action
 * @addr_resolved: the connect's address resolved (the remote host
 *	answered); under @lock, cleared by dat_ep_connect() with the timer
 *	armed: the time-out then reports TIMED_OUT, before it UNREACHABLE
 *	(seed 003)
 * @timed: @deadline is a consumer's finite connect time-out, not
 *	DAT_TIMEOUT_INFINITE; under @lock
 * @node: on ia->eps, under ia->lock
 * @all: on the list of all EPs (debugfs), under ep_list_lock (ep.c)
 * @posted, @completed, @flushed: DTO counters, for debugfs
 * @sig_out: signaled requests (sends, RDMA Reads and Writes) posted and
 *	not completed yet; under @lock. With @unsig_count at most
 *	max_request_dtos (dto.c: the QP's slots beyond are the drain's and
 *	the registrations')
 * @recv_out: receives posted to the QP and not completed; under @lock;
 *	at most max_recv_dtos (the QP's one slot beyond is the drain's)
 * @disc_wait: a graceful disconnect waits for @sig_out to reach 0 before
 *	it asks the provider (cm.c, ep_disc_ready()); under @lock
 * @disc_asked: a graceful disconnect asked the provider (our FIN may be
 *	out): a receive posted from now on is held back, never given to a
 *	QP whose closing rules make that post an error, and flushed after
 *	the QP's own (dto.c, dto_held()); under @lock
 * @iws: socket mode (iwsock.c): the socket takeover connection, or NULL;
 *	set and cleared under @cm_mutex and @lock, like @cm_id
 * @iws_event: socket mode: a connection event the ABORT action posts
 *	once the socket is back with the consumer (TIMED_OUT, or the
 *	DISCONNECTED of an abrupt disconnect while connecting); under @lock
 * @iws_bound: socket mode: the provider's ESTABLISHED came after the EP
 *	had left ACTIVE_CONNECTION_PENDING (a disconnect racing the Reply):
 *	the socket went with the connection; under @lock
 * @iw_attr: socket mode: the socket's domain, type and protocol as
 *	transport-specific EP attributes (dat_ep_query), @iw_val their values
 */
struct kdapl_ep {
	struct kdapl_obj base;
	spinlock_t lock;	/* see above */
	DAT_EP_STATE state;
	struct mutex cm_mutex;	/* see above */
	struct ib_qp *qp;
	struct rdma_cm_id *cm_id;
	struct rdma_cm_id *spare_id;
	bool destroyed;
	struct kdapl_pz *pz;
	struct kdapl_evd *recv_evd;
	struct kdapl_evd *request_evd;
	struct kdapl_evd *connect_evd;
	DAT_EP_ATTR attr;
	DAT_COUNT rd_in_want;
	DAT_COUNT rd_out_want;
	struct kdapl_wr *wrs;
	u32 nr_wrs;
	u32 free_wr;
	u32 sq_seq;
	u32 unsig_head;
	u32 unsig_tail;
	u32 unsig_count;
	u32 held_head;
	u32 held_tail;
	bool held_flushing;
	bool drained;
	struct work_struct work;
	unsigned long actions;
	u32 gen;
	struct timer_list timer;
	unsigned long deadline;
	struct sockaddr_storage local;
	struct sockaddr_storage remote;
	DAT_CONN_QUAL remote_qual;
	u8 pdata[KDAPL_PDATA_MAX];
	u16 pdata_len;
	u8 peer_pdata[KDAPL_PDATA_MAX];
	u16 peer_pdata_len;
	struct kdapl_cr *cr;
	struct kdapl_sp *rsp;
	bool provider_ep;
	bool disc_peer_seen;
	bool disc_broken;
	bool disc_forcing;
	bool resolve_retried;
	bool addr_resolved;
	bool timed;
	struct list_head node;
	struct list_head all;
	u64 posted;
	u64 completed;
	u64 flushed;
	u32 sig_out;
	u32 recv_out;
	bool disc_wait;
	bool disc_asked;
	struct kdapl_iws *iws;
	DAT_EVENT_NUMBER iws_event;
	bool iws_bound;
	DAT_NAMED_ATTR iw_attr[3];
	char iw_val[3][8];
};

/**
 * struct kdapl_sp - a public or reserved service point (sp.c)
 * @base: handle, consumer context, owning IA
 * @psp: PSP (true) or RSP
 * @flags: DAT_PSP_FLAGS of a PSP
 * @cm_id: the listening rdma_cm id; NULL once freed
 * @evd: where connection requests are posted (a user reference)
 * @ep: the RSP's endpoint (a reference), until the request arrives
 * @qual: the connection qualifier (port)
 * @used: bit 0 set once an RSP took its one request (atomic bitop, in
 *	the CM handler)
 * @dead: freed or torn down: queued arrivals are rejected (an SSP's only
 *	once kdapl_sp_destroy() has waited for them); under ia->lock
 * @arrivals: requests queued whose arrival (sp.c, cr_arrive()) has not
 *	finished yet: kdapl_sp_destroy() waits for them
 * @node: on ia->sps, under ia->lock
 * @all: on the list of all service points (debugfs), under sp_list_lock
 * @requests: requests delivered, for debugfs; under ia->lock
 * @pending: delivered CRs not yet accepted, rejected or handed off
 * @ssp: a socket service point (iwsock.c; @psp false): @iws is its
 *	socket takeover, @sock the consumer's socket, @qual its local port
 * @iws, @sock: SSP only; @iws is released by dat_iw_ssp_free()
 * @spare_cr: SSP only: the CR its one request will be, allocated with it
 *	(the provider's event handler cannot fail for memory); taken by the
 *	handler under iws->mutex, freed with the SSP if unused
 *
 * @ep changes under ia->lock.
 */
struct kdapl_sp {
	struct kdapl_obj base;
	bool psp;
	DAT_PSP_FLAGS flags;
	struct rdma_cm_id *cm_id;
	struct kdapl_evd *evd;
	struct kdapl_ep *ep;
	DAT_CONN_QUAL qual;
	unsigned long used;
	bool dead;
	atomic_t arrivals;
	struct list_head node;
	struct list_head all;
	u64 requests;
	atomic_t pending;
	bool ssp;
	struct kdapl_iws *iws;
	struct socket *sock;
	struct kdapl_cr *spare_cr;
};

/**
 * struct kdapl_cr - a connection request (sp.c)
 * @base: handle, consumer context, owning IA
 * @cm_id: the request's rdma_cm id; owned by the CR until accept hands
 *	it to the EP, or reject destroys it
 * @sp: the service point it arrived on (a reference)
 * @ep: the RSP's or the provider's EP, or NULL (a reference)
 * @work: turns the arrival into a handle and an event, in process
 *	context (the CM handler does not take ia->lock)
 * @local, @remote: addresses of the request
 * @pdata, @pdata_len: the requester's private data
 * @truncated: the private data did not fit
 * @ird, @ord: the requester's RDMA read resources
 * @iws: an SSP's request: its socket takeover connection instead of
 *	@cm_id, owned like it
 * @action: what @work does: KDAPL_CR_ARRIVE or KDAPL_CR_REJECT (sp.c)
 * @node: on ia->crs while the handle exists, under ia->lock
 */
struct kdapl_cr {
	struct kdapl_obj base;
	struct rdma_cm_id *cm_id;
	struct kdapl_iws *iws;
	struct kdapl_sp *sp;
	struct kdapl_ep *ep;
	struct work_struct work;
	struct sockaddr_storage local;
	struct sockaddr_storage remote;
	u8 pdata[KDAPL_PDATA_MAX];
	u16 pdata_len;
	bool truncated;
	u8 ird;
	u8 ord;
	int action;
	struct list_head node;
};

static inline struct kdapl_ep *kdapl_ep_get(DAT_EP_HANDLE h)
{
	struct kdapl_obj *o = kdapl_obj_get(h, KDAPL_HT_EP);

	return o ? container_of(o, struct kdapl_ep, base) : NULL;
}

/* ep.c */
extern struct workqueue_struct *kdapl_wq;
DAT_RETURN kdapl_ep_new(struct kdapl_ia *ia, struct kdapl_pz *pz,
			struct kdapl_evd *recv, struct kdapl_evd *req,
			struct kdapl_evd *conn, const DAT_EP_ATTR *attr,
			bool provider_ep, struct kdapl_ep **epp);
void kdapl_ep_queue(struct kdapl_ep *ep, enum kdapl_ep_action act);
bool kdapl_ep_move(struct kdapl_ep *ep, enum kdapl_ep_op op);
void kdapl_ep_post_conn(struct kdapl_ep *ep, DAT_EVENT_NUMBER num);
void kdapl_ep_break(struct kdapl_ep *ep);
void kdapl_ep_arm_timer(struct kdapl_ep *ep, DAT_TIMEOUT usec);
void kdapl_ep_teardown(struct kdapl_ep *ep);
void kdapl_ep_release_device(struct kdapl_ep *ep);
DAT_RETURN kdapl_ep_destroy(struct kdapl_ep *ep);
int kdapl_ep_init(void);
void kdapl_ep_exit(void);
void kdapl_ep_debugfs_init(struct dentry *dir);

/* cm.c */
void kdapl_ep_work(struct work_struct *work);
int kdapl_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev);
struct net *kdapl_ia_net(struct kdapl_ia *ia, struct sockaddr_storage *ss);
DAT_RETURN kdapl_sockaddr_check(const struct sockaddr *sa);
unsigned int kdapl_set_disconnect_timeout(unsigned int ms);
unsigned int kdapl_test_fail_spares(unsigned int n);
DAT_TIMEOUT kdapl_disconnect_timeout_us(void);
void kdapl_ep_spare_fill(struct kdapl_ep *ep);
void kdapl_ep_spare_free(struct kdapl_ep *ep);

/* sp.c */
int kdapl_sp_cm_event(struct kdapl_sp *sp, struct rdma_cm_id *id,
		      struct rdma_cm_event *ev);
void kdapl_sp_teardown(struct kdapl_sp *sp);
void kdapl_cr_teardown(struct kdapl_cr *cr);
void kdapl_cr_done(struct kdapl_cr *cr);
void kdapl_sp_debugfs_init(struct dentry *dir);

/* iwsock.c: socket takeover (include/kiwarp/sock.h) */
struct kiwarp_sock_event;
struct kiwarp_sock_param;
struct kdapl_provider;
bool kdapl_iws_supported(struct kdapl_provider *prov);
void kdapl_iws_release(struct kdapl_iws *iws);
int kdapl_iws_give_back(struct kdapl_iws *iws);
void kdapl_iws_reject(struct kdapl_iws *iws, const void *pdata, u16 len);
void kdapl_iws_refuse(struct kdapl_iws *iws);
int kdapl_iws_accept(struct kdapl_iws *iws, struct kdapl_ep *ep,
		     const struct kiwarp_sock_param *p);
void kdapl_ssp_post_down(struct kdapl_sp *sp);
void kdapl_ssp_detach(struct kdapl_sp *sp, struct kdapl_iws *iws);
const char *kdapl_iws_show(struct kdapl_iws *iws);
void kdapl_ep_iws_event(struct kdapl_ep *ep,
			const struct kiwarp_sock_event *ev);
struct kdapl_cr *kdapl_cr_alloc(void);
void kdapl_cr_free(struct kdapl_cr *cr);
void kdapl_cr_make_iws(struct kdapl_cr *cr, struct kdapl_sp *sp,
		       struct kdapl_iws *iws, const void *pd, u16 pdlen,
		       u32 ird, u32 ord, const struct sockaddr_storage *local,
		       const struct sockaddr_storage *remote);
void kdapl_cr_queue(struct kdapl_cr *cr);
DAT_RETURN kdapl_sp_publish(struct kdapl_ia *ia, struct kdapl_sp *sp,
			    struct kdapl_evd *evd, struct kdapl_ep *ep);
DAT_RETURN kdapl_sp_destroy(struct kdapl_sp *sp);

/* dto.c */
void kdapl_dto_done(struct ib_cq *cq, struct ib_wc *wc);
void kdapl_cq_internal_wc(struct ib_wc *wc);
int kdapl_ep_wrs_alloc(struct kdapl_ep *ep);
void kdapl_ep_wrs_free(struct kdapl_ep *ep);
void kdapl_dto_reclaim_all(struct kdapl_ep *ep);
void kdapl_dto_flush_held(struct kdapl_ep *ep);

#endif /* KDAPL_EP_H */
