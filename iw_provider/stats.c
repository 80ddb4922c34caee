// SPDX-License-Identifier: GPL-2.0
/*
 * What the rdma tool shows of kiwarp: the port's hw counters
 * (`rdma statistic show link <dev>/1`, sysfs ports/1/hw_counters/) and
 * the driver details of QPs, CQs and MRs (`rdma res show qp|cq|mr -dd`).
 *
 * The counters are the QPs' own statistics (struct kiwarp_qp_stats,
 * kept by their TX and RX works without atomics) summed when asked: the
 * data path pays nothing for them. A QP is on its device's stats_qps
 * from create_qp to destroy_qp; once its works are gone its counts are
 * folded into the device's retired sums, in one stats_lock section with
 * leaving the list, so that no counter ever goes down.
 */

#include <rdma/ib_verbs.h>
#include <rdma/restrack.h>
#include <net/netlink.h>

#include "kiwarp.h"

enum kiwarp_port_counter {
	KIWARP_CNT_TX_BYTES,
	KIWARP_CNT_RX_BYTES,
	KIWARP_CNT_TX_FPDUS,
	KIWARP_CNT_RX_FPDUS,
	KIWARP_CNT_TX_ZC_BATCHES,
	KIWARP_CNT_TX_WAITS,
	KIWARP_CNT_TERMS_SENT,
	KIWARP_CNT_TERMS_RCVD,
	KIWARP_CNT_QP_ERRORS,
	KIWARP_CNT_REQUESTS_DROPPED,
	KIWARP_CNT_CRC_ERRORS,
	KIWARP_CNT_COUNT
};

static const struct rdma_stat_desc kiwarp_port_counters[] = {
	[KIWARP_CNT_TX_BYTES] = { .name = "tx_bytes" },
	[KIWARP_CNT_RX_BYTES] = { .name = "rx_bytes" },
	[KIWARP_CNT_TX_FPDUS] = { .name = "tx_fpdus" },
	[KIWARP_CNT_RX_FPDUS] = { .name = "rx_fpdus" },
	[KIWARP_CNT_TX_ZC_BATCHES] = { .name = "tx_zc_batches" },
	[KIWARP_CNT_TX_WAITS] = { .name = "tx_waits" },
	[KIWARP_CNT_TERMS_SENT] = { .name = "terms_sent" },
	[KIWARP_CNT_TERMS_RCVD] = { .name = "terms_rcvd" },
	[KIWARP_CNT_QP_ERRORS] = { .name = "qp_errors" },
	[KIWARP_CNT_REQUESTS_DROPPED] = { .name = "requests_dropped" },
	[KIWARP_CNT_CRC_ERRORS] = { .name = "crc_errors" },
};

static_assert(ARRAY_SIZE(kiwarp_port_counters) == KIWARP_CNT_COUNT);

static void kiwarp_stats_add(struct kiwarp_dev_stats *sum,
			     const struct kiwarp_qp_stats *s)
{
	sum->tx_bytes += READ_ONCE(s->tx_bytes);
	sum->rx_bytes += READ_ONCE(s->rx_bytes);
	sum->tx_fpdus += READ_ONCE(s->tx_fpdus);
	sum->rx_fpdus += READ_ONCE(s->rx_fpdus);
	sum->tx_zc_batches += READ_ONCE(s->tx_zc_batches);
	sum->tx_waits += READ_ONCE(s->tx_waits);
	sum->terms_sent += READ_ONCE(s->terms_sent);
	sum->terms_rcvd += READ_ONCE(s->terms_rcvd);
	sum->errors += READ_ONCE(s->errors);
	sum->crc_errors += READ_ONCE(s->crc_errors);
}

void kiwarp_stats_init(struct kiwarp_dev *kdev)
{
	spin_lock_init(&kdev->stats_lock);
	INIT_LIST_HEAD(&kdev->stats_qps);
	memset(&kdev->retired, 0, sizeof(kdev->retired));
}

/* A new QP's counts join the device's (create_qp, process context). */
void kiwarp_stats_qp_add(struct kiwarp_qp *qp)
{
	struct kiwarp_dev *kdev = qp->kdev;

	spin_lock(&kdev->stats_lock);
	list_add_tail(&qp->stats_node, &kdev->stats_qps);
	spin_unlock(&kdev->stats_lock);
}

/*
 * A destroyed QP's counts, final once its works are gone, move to the
 * device's retired sums (destroy_qp, after the QP's last reference).
 */
void kiwarp_stats_qp_retire(struct kiwarp_qp *qp)
{
	struct kiwarp_dev *kdev = qp->kdev;

	spin_lock(&kdev->stats_lock);
	list_del(&qp->stats_node);
	kiwarp_stats_add(&kdev->retired, &qp->stats);
	spin_unlock(&kdev->stats_lock);
}

static struct rdma_hw_stats *kiwarp_alloc_hw_port_stats(struct ib_device *ibdev,
							u32 port)
{
	return rdma_alloc_hw_stats_struct(kiwarp_port_counters,
					  KIWARP_CNT_COUNT,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

static int kiwarp_get_hw_stats(struct ib_device *ibdev,
			       struct rdma_hw_stats *stats, u32 port, int index)
{
	struct kiwarp_dev *kdev = to_kdev(ibdev);
	struct kiwarp_dev_stats sum;
	struct kiwarp_qp *qp;

	spin_lock(&kdev->stats_lock);
	sum = kdev->retired;
	list_for_each_entry(qp, &kdev->stats_qps, stats_node)
		kiwarp_stats_add(&sum, &qp->stats);
	spin_unlock(&kdev->stats_lock);

	stats->value[KIWARP_CNT_TX_BYTES] = sum.tx_bytes;
	stats->value[KIWARP_CNT_RX_BYTES] = sum.rx_bytes;
	stats->value[KIWARP_CNT_TX_FPDUS] = sum.tx_fpdus;
	stats->value[KIWARP_CNT_RX_FPDUS] = sum.rx_fpdus;
	stats->value[KIWARP_CNT_TX_ZC_BATCHES] = sum.tx_zc_batches;
	stats->value[KIWARP_CNT_TX_WAITS] = sum.tx_waits;
	stats->value[KIWARP_CNT_TERMS_SENT] = sum.terms_sent;
	stats->value[KIWARP_CNT_TERMS_RCVD] = sum.terms_rcvd;
	stats->value[KIWARP_CNT_QP_ERRORS] = sum.errors;
	stats->value[KIWARP_CNT_REQUESTS_DROPPED] =
		atomic64_read(&kdev->cr_dropped);
	stats->value[KIWARP_CNT_CRC_ERRORS] = sum.crc_errors;
	return KIWARP_CNT_COUNT;
}

/*
 * restrack: ib_core holds a reference on the object (rdma_restrack_get)
 * while it calls these, so the object lives; the fields are read as
 * debugfs reads them, without the data path's locks.
 */
static int kiwarp_put_sockaddr(struct sk_buff *msg, const char *name,
			       const struct sockaddr_storage *ss)
{
	char buf[64];

	if (ss->ss_family != AF_INET && ss->ss_family != AF_INET6)
		return 0;	/* not bound yet */
	snprintf(buf, sizeof(buf), "%pISpc", ss);
	return rdma_nl_put_driver_string(msg, name, buf);
}

static int kiwarp_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct kiwarp_qp *qp = to_kqp(ibqp);
	struct kiwarp_qp_stats *s = &qp->stats;
	struct sockaddr_storage laddr = qp->laddr, raddr = qp->raddr;
	const char *state = kiwarp_qp_state_name[kiwarp_qp_state(qp)];
	struct nlattr *nest;

	nest = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!nest)
		return -EMSGSIZE;
	if (rdma_nl_put_driver_string(msg, "state", state) ||
	    kiwarp_put_sockaddr(msg, "laddr", &laddr) ||
	    kiwarp_put_sockaddr(msg, "raddr", &raddr) ||
	    rdma_nl_put_driver_u32(msg, "mpa_rev", READ_ONCE(qp->mpa_rev)) ||
	    rdma_nl_put_driver_u32(msg, "crc", READ_ONCE(qp->crc)) ||
	    rdma_nl_put_driver_u32(msg, "ird", READ_ONCE(qp->ird)) ||
	    rdma_nl_put_driver_u32(msg, "ord", READ_ONCE(qp->ord)) ||
	    rdma_nl_put_driver_u32(msg, "fpdu_max", READ_ONCE(qp->fpdu_max)) ||
	    rdma_nl_put_driver_u32(msg, "taken_over",
				   READ_ONCE(qp->sock_mode)) ||
	    rdma_nl_put_driver_u32(msg, "sq_size", qp->sq_size) ||
	    rdma_nl_put_driver_u32(msg, "rq_size", qp->rq_size) ||
	    rdma_nl_put_driver_u64(msg, "tx_bytes", READ_ONCE(s->tx_bytes)) ||
	    rdma_nl_put_driver_u64(msg, "rx_bytes", READ_ONCE(s->rx_bytes)) ||
	    rdma_nl_put_driver_u64(msg, "tx_fpdus", READ_ONCE(s->tx_fpdus)) ||
	    rdma_nl_put_driver_u64(msg, "rx_fpdus", READ_ONCE(s->rx_fpdus)) ||
	    rdma_nl_put_driver_u64(msg, "tx_waits", READ_ONCE(s->tx_waits)) ||
	    rdma_nl_put_driver_u32(msg, "terms_sent",
				   READ_ONCE(s->terms_sent)) ||
	    rdma_nl_put_driver_u32(msg, "terms_rcvd",
				   READ_ONCE(s->terms_rcvd)) ||
	    rdma_nl_put_driver_u32(msg, "crc_errors",
				   READ_ONCE(s->crc_errors)))
		goto err;
	nla_nest_end(msg, nest);
	return 0;
err:
	nla_nest_cancel(msg, nest);
	return -EMSGSIZE;
}

static int kiwarp_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq)
{
	struct kiwarp_cq *cq = to_kcq(ibcq);
	struct nlattr *nest;
	unsigned long flags;
	const char *arm;
	u32 used;
	u8 armed;

	spin_lock_irqsave(&cq->lock, flags);
	used = cq->tail - cq->head;
	armed = cq->armed;
	spin_unlock_irqrestore(&cq->lock, flags);
	arm = armed == IB_CQ_SOLICITED ? "solicited" : armed ? "next" : "no";

	nest = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!nest)
		return -EMSGSIZE;
	if (rdma_nl_put_driver_u32(msg, "size", cq->size) ||
	    rdma_nl_put_driver_u32(msg, "used", used) ||
	    rdma_nl_put_driver_string(msg, "armed", arm) ||
	    rdma_nl_put_driver_u32(msg, "cpu", cq->cpu) ||
	    rdma_nl_put_driver_u32(msg, "affine", READ_ONCE(cq->affine)) ||
	    rdma_nl_put_driver_u64(msg, "notifies",
				   atomic64_read(&cq->notifies)) ||
	    rdma_nl_put_driver_u64(msg, "offline_raises",
				   atomic64_read(&cq->offline_raises)))
		goto err;
	nla_nest_end(msg, nest);
	return 0;
err:
	nla_nest_cancel(msg, nest);
	return -EMSGSIZE;
}

static int kiwarp_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr)
{
	struct kiwarp_mr *mr = to_kmr(ibmr);
	const char *kind = mr->kind == KIWARP_MR_FRMR ? "frmr" : "dma";
	struct nlattr *nest;

	nest = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!nest)
		return -EMSGSIZE;
	if (rdma_nl_put_driver_u32_hex(msg, "stag", READ_ONCE(mr->stag)) ||
	    rdma_nl_put_driver_string(msg, "kind", kind) ||
	    rdma_nl_put_driver_u32(msg, "valid", READ_ONCE(mr->valid)) ||
	    rdma_nl_put_driver_u32(msg, "npages", READ_ONCE(mr->npages)) ||
	    rdma_nl_put_driver_u32(msg, "max_pages", mr->max_pages))
		goto err;
	nla_nest_end(msg, nest);
	return 0;
err:
	nla_nest_cancel(msg, nest);
	return -EMSGSIZE;
}

const struct ib_device_ops kiwarp_stats_ops = {
	.alloc_hw_port_stats = kiwarp_alloc_hw_port_stats,
	.get_hw_stats = kiwarp_get_hw_stats,
	.fill_res_cq_entry = kiwarp_fill_res_cq_entry,
	.fill_res_mr_entry = kiwarp_fill_res_mr_entry,
	.fill_res_qp_entry = kiwarp_fill_res_qp_entry,
};
