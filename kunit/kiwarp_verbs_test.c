// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite "kiwarp_verbs": the kiwarp RNIC's device and verbs
 * (iw_provider/device.c, mem.c, cq.c, qp.c) on the guest's device kw0
 * (scripts/guest/run-tests.sh creates it on veth2 before loading the
 * suites), without a connection.
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/kthread.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/rtnetlink.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>

#include <kiwarp/cq.h>

#include "kiwarp.h"

#define KW_DEV	"kw0"

struct verbs_ctx {
	struct ib_device *dev;
	struct ib_pd *pd;
};

static int verbs_init(struct kunit *test)
{
	struct verbs_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->dev = ib_device_get_by_name(KW_DEV, RDMA_DRIVER_UNKNOWN);
	KUNIT_ASSERT_NOT_NULL_MSG(test, c->dev, "no device " KW_DEV);
	c->pd = ib_alloc_pd(c->dev, 0);
	if (IS_ERR(c->pd)) {
		ib_device_put(c->dev);
		KUNIT_FAIL(test, "ib_alloc_pd");
		return -ENOMEM;
	}
	test->priv = c;
	return 0;
}

static void verbs_exit(struct kunit *test)
{
	struct verbs_ctx *c = test->priv;

	if (!c)
		return;
	ib_dealloc_pd(c->pd);
	ib_device_put(c->dev);
}

static void verbs_test_device_attrs(struct kunit *test)
{
	struct verbs_ctx *c = test->priv;
	struct ib_device *dev = c->dev;
	struct ib_port_attr pattr;
	struct net_device *nd;
	union ib_gid gid;

	KUNIT_EXPECT_EQ(test, dev->node_type, RDMA_NODE_RNIC);
	KUNIT_EXPECT_EQ(test, rdma_node_get_transport(dev->node_type),
			RDMA_TRANSPORT_IWARP);
	KUNIT_EXPECT_TRUE(test, rdma_protocol_iwarp(dev, 1));
	KUNIT_EXPECT_EQ(test, dev->num_comp_vectors, (int)num_online_cpus());
	KUNIT_EXPECT_NOT_NULL(test, dev->ops.iw_connect);
	KUNIT_EXPECT_NOT_NULL(test, dev->ops.iw_accept);
	KUNIT_EXPECT_NOT_NULL(test, dev->ops.iw_create_listen);
	KUNIT_EXPECT_EQ(test, ib_query_port(dev, 1, &pattr), 0);
	KUNIT_EXPECT_EQ(test, pattr.state, IB_PORT_ACTIVE);
	KUNIT_EXPECT_EQ(test, pattr.gid_tbl_len, 1);
	KUNIT_EXPECT_TRUE(test, dev->attrs.device_cap_flags &
			  IB_DEVICE_MEM_MGT_EXTENSIONS);
	KUNIT_EXPECT_EQ(test, dev->attrs.max_sge_rd, KIWARP_MAX_SGE_RD);
	KUNIT_EXPECT_EQ(test, c->pd->local_dma_lkey, 0U);

	nd = to_kdev(dev)->netdev;
	KUNIT_EXPECT_EQ(test, dev->ops.query_gid(dev, 1, 0, &gid), 0);
	KUNIT_EXPECT_EQ(test, memcmp(gid.raw, nd->dev_addr, ETH_ALEN), 0);
	KUNIT_EXPECT_STREQ(test, dev->iw_ifname, netdev_name(nd));
}

/* Remote access through the DMA MR ("unsafe global rkey") is refused */
static void verbs_test_no_global_rkey(struct kunit *test)
{
	struct verbs_ctx *c = test->priv;
	struct ib_pd *pd;

	pd = ib_alloc_pd(c->dev, IB_PD_UNSAFE_GLOBAL_RKEY);
	KUNIT_EXPECT_TRUE(test, IS_ERR(pd));
	if (!IS_ERR(pd))
		ib_dealloc_pd(pd);
}

/* Link creation: duplicate netdev, unsuitable netdev, create + remove */
static void verbs_test_newlink(struct kunit *test)
{
	struct verbs_ctx *c = test->priv;
	struct net_device *nd = to_kdev(c->dev)->netdev;
	struct net_device *lo, *veth0;
	struct ib_device *dev;

	KUNIT_EXPECT_EQ(test, kiwarp_newlink("kwdup", nd), -EEXIST);

	lo = dev_get_by_name(&init_net, "lo");
	KUNIT_ASSERT_NOT_NULL(test, lo);
	KUNIT_EXPECT_EQ(test, kiwarp_newlink("kwlo", lo), -EINVAL);
	dev_put(lo);

	veth0 = dev_get_by_name(&init_net, "veth0");
	KUNIT_ASSERT_NOT_NULL(test, veth0);
	KUNIT_EXPECT_EQ(test, kiwarp_newlink("kwtest", veth0), 0);
	dev_put(veth0);
	dev = ib_device_get_by_name("kwtest", RDMA_DRIVER_UNKNOWN);
	KUNIT_ASSERT_NOT_NULL(test, dev);
	KUNIT_EXPECT_EQ(test, dev->node_type, RDMA_NODE_RNIC);
	ib_unregister_device_and_put(dev);
	KUNIT_EXPECT_NULL(test, ib_device_get_by_name("kwtest",
						      RDMA_DRIVER_UNKNOWN));
}

struct newlink_race {
	const char *name;
	struct net_device *nd;
	struct completion *go;
	struct completion done;
	int ret;
};

static int newlink_thread(void *arg)
{
	struct newlink_race *r = arg;

	wait_for_completion(r->go);
	r->ret = kiwarp_newlink(r->name, r->nd);
	complete(&r->done);
	return 0;
}

/*
 * Two `rdma link add` on one netdev at once (issue 19, 10): exactly one
 * device, the other gets -EEXIST; a few rounds.
 */
static void verbs_test_newlink_race(struct kunit *test)
{
	static const char *const names[2] = { "kwraceA", "kwraceB" };
	struct net_device *veth0;
	int round, i;

	/* one thread per CPU, or they would simply take turns */
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs");
	veth0 = dev_get_by_name(&init_net, "veth0");
	KUNIT_ASSERT_NOT_NULL(test, veth0);
	for (round = 0; round < 8; round++) {
		struct newlink_race r[2];
		DECLARE_COMPLETION_ONSTACK(go);
		struct task_struct *t;
		int ok = 0, exist = 0;

		for (i = 0; i < 2; i++) {
			r[i].name = names[i];
			r[i].nd = veth0;
			r[i].go = &go;
			r[i].ret = -EINTR;
			init_completion(&r[i].done);
			t = kthread_create(newlink_thread, &r[i], "kw_nl%d", i);
			if (IS_ERR(t)) {
				complete(&r[i].done);
				continue;
			}
			kthread_bind(t, cpumask_nth(i, cpu_online_mask));
			wake_up_process(t);
		}
		complete_all(&go);
		/* both first: a device removed early would let the other in */
		for (i = 0; i < 2; i++)
			wait_for_completion(&r[i].done);
		for (i = 0; i < 2; i++) {
			struct ib_device *dev;

			ok += r[i].ret == 0;
			exist += r[i].ret == -EEXIST;
			if (r[i].ret)
				continue;
			dev = ib_device_get_by_name(names[i],
						    RDMA_DRIVER_UNKNOWN);
			KUNIT_EXPECT_NOT_NULL(test, dev);
			if (dev)
				ib_unregister_device_and_put(dev);
		}
		KUNIT_EXPECT_EQ_MSG(test, ok, 1, "round %d: %d %d", round,
				    r[0].ret, r[1].ret);
		KUNIT_EXPECT_EQ(test, exist, 1);
	}
	dev_put(veth0);
}

struct cpu_rec {
	struct completion done;
	int cpu;
	bool softirq;	/* serving a softirq, interrupts on */
};

/*
 * A softirq with interrupts on holds no lock of kiwarp's: its locks are
 * irq-safe, or taken in (or with) softirqs, which do not nest.
 */
static void rec_handler(struct ib_cq *cq, void *ctx)
{
	struct cpu_rec *r = ctx;

	r->cpu = smp_processor_id();
	r->softirq = in_serving_softirq() && !in_hardirq() && !irqs_disabled();
	complete(&r->done);
}

/*
 * A CQ on @vector whose handler records where it runs. It takes the
 * cq_affinity module parameter's value at creation; @affine then
 * replaces it through kiwarp_cq_set_affine() (before any QP uses the
 * CQ), so that a test does not change the parameter under the rest of
 * the system.
 */
static struct ib_cq *make_cq(struct kunit *test, struct ib_device *dev,
			     struct cpu_rec *rec, int vector, bool affine)
{
	struct ib_cq_init_attr ca = { .cqe = 16, .comp_vector = vector };
	bool param = READ_ONCE(kiwarp_cq_affinity);
	struct ib_cq *cq;

	init_completion(&rec->done);
	rec->cpu = -1;
	cq = ib_create_cq(dev, rec_handler, NULL, rec, &ca);
	if (IS_ERR(cq))
		return cq;
	KUNIT_EXPECT_EQ(test, to_kcq(cq)->affine, param);
	KUNIT_EXPECT_EQ(test, kiwarp_cq_set_affine(cq, affine), 0);
	KUNIT_EXPECT_EQ(test, to_kcq(cq)->affine, affine);
	return cq;
}

static struct ib_qp *make_qp(struct kunit *test, struct ib_pd *pd,
			     struct ib_cq *scq, struct ib_cq *rcq)
{
	struct ib_qp_init_attr ia = {
		.send_cq = scq,
		.recv_cq = rcq,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 2, .max_recv_sge = 2 },
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	struct ib_qp *qp = ib_create_qp(pd, &ia);

	KUNIT_EXPECT_FALSE(test, IS_ERR(qp));
	return IS_ERR(qp) ? NULL : qp;
}

/* A QP on @cq moved to ERROR, where a posted receive completes at once */
static struct ib_qp *make_err_qp(struct kunit *test, struct ib_pd *pd,
				 struct ib_cq *cq)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct ib_qp *qp = make_qp(test, pd, cq, cq);

	if (qp)
		KUNIT_EXPECT_EQ(test, ib_modify_qp(qp, &attr, IB_QP_STATE), 0);
	return qp;
}

/*
 * With cq_affinity, the completion handler of a CQ on vector v runs on
 * the v-th online CPU in softirq context (the CQ's tasklet: no lock of
 * ours held), whichever CPU produced the completion.
 */
static void verbs_test_cq_vector_cpu(struct kunit *test)
{
	struct verbs_ctx *c = test->priv;
	int v;

	for (v = 0; v < c->dev->num_comp_vectors; v++) {
		struct ib_recv_wr rwr = { .wr_id = 7 };
		const struct ib_recv_wr *bad;
		struct cpu_rec rec;
		struct ib_cq *cq;
		struct ib_qp *qp;
		struct ib_wc wc;

		cq = make_cq(test, c->dev, &rec, v, true);
		KUNIT_ASSERT_FALSE(test, IS_ERR(cq));
		qp = make_err_qp(test, c->pd, cq);
		if (!qp) {
			ib_destroy_cq(cq);
			return;
		}
		KUNIT_EXPECT_EQ(test, ib_req_notify_cq(cq, IB_CQ_NEXT_COMP), 0);
		/* A receive posted in ERROR completes at once, flushed */
		KUNIT_EXPECT_EQ(test, ib_post_recv(qp, &rwr, &bad), 0);
		KUNIT_EXPECT_GT(test, wait_for_completion_timeout(&rec.done,
								  5 * HZ), 0UL);
		KUNIT_EXPECT_EQ(test, rec.cpu, kiwarp_cpu_of_vector(v));
		KUNIT_EXPECT_TRUE(test, rec.softirq);
		KUNIT_EXPECT_EQ(test, ib_poll_cq(cq, 1, &wc), 1);
		KUNIT_EXPECT_EQ(test, wc.wr_id, 7ULL);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
		ib_destroy_qp(qp);
		ib_destroy_cq(cq);
	}
	/* Out of range vector */
	{
		struct ib_cq_init_attr ca = {
			.cqe = 4, .comp_vector = c->dev->num_comp_vectors
		};
		struct ib_cq *cq = ib_create_cq(c->dev, NULL, NULL, NULL, &ca);

		KUNIT_EXPECT_TRUE(test, IS_ERR(cq));
		if (!IS_ERR(cq))
			ib_destroy_cq(cq);
	}
}

/*
 * Without cq_affinity the completion handler runs in softirq context on
 * the CPU that produced the completion, not on the CQ's vector's: here
 * the flush of a receive posted in ERROR, produced by the post itself,
 * made from a CPU other than the vector's (this thread moved there).
 */
static void verbs_test_cq_producer_cpu(struct kunit *test)
{
	struct verbs_ctx *c = test->priv;
	cpumask_var_t saved;
	int v;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs a second online CPU");
	KUNIT_ASSERT_TRUE(test, alloc_cpumask_var(&saved, GFP_KERNEL));
	cpumask_copy(saved, &current->cpus_mask);
	for (v = 0; v < c->dev->num_comp_vectors; v++) {
		struct ib_recv_wr rwr = { .wr_id = 8 };
		const struct ib_recv_wr *bad;
		struct cpu_rec rec;
		struct ib_cq *cq;
		struct ib_qp *qp;
		struct ib_wc wc;
		int here = cpumask_any_but(cpu_online_mask,
					   kiwarp_cpu_of_vector(v));

		if (here >= nr_cpu_ids) {
			KUNIT_FAIL(test, "no CPU but vector %d's online", v);
			break;
		}
		cq = make_cq(test, c->dev, &rec, v, false);
		if (IS_ERR(cq))
			break;
		qp = make_err_qp(test, c->pd, cq);
		if (!qp) {
			ib_destroy_cq(cq);
			break;
		}
		KUNIT_EXPECT_EQ(test, ib_req_notify_cq(cq, IB_CQ_NEXT_COMP), 0);
		if (set_cpus_allowed_ptr(current, cpumask_of(here))) {
			KUNIT_FAIL(test, "cannot move to CPU %d", here);
			ib_destroy_qp(qp);
			ib_destroy_cq(cq);
			break;
		}
		migrate_disable();	/* were the CPU to go away meanwhile */
		here = smp_processor_id();
		KUNIT_EXPECT_EQ(test, ib_post_recv(qp, &rwr, &bad), 0);
		migrate_enable();
		KUNIT_EXPECT_NE(test, here, kiwarp_cpu_of_vector(v));
		KUNIT_EXPECT_GT(test, wait_for_completion_timeout(&rec.done,
								  5 * HZ), 0UL);
		KUNIT_EXPECT_EQ(test, rec.cpu, here);
		KUNIT_EXPECT_TRUE(test, rec.softirq);
		KUNIT_EXPECT_EQ(test, ib_poll_cq(cq, 1, &wc), 1);
		KUNIT_EXPECT_EQ(test, wc.wr_id, 8ULL);
		ib_destroy_qp(qp);
		ib_destroy_cq(cq);
	}
	set_cpus_allowed_ptr(current, saved);
	free_cpumask_var(saved);
	KUNIT_EXPECT_EQ(test, v, c->dev->num_comp_vectors);
}

/*
 * A CQ whose CPU goes offline keeps its notifications (issue 19, 3):
 * they run on the producing CPU meanwhile and go back to the vector's
 * CPU once it is online again.
 */
static void verbs_test_cq_cpu_offline(struct kunit *test)
{
	struct verbs_ctx *c = test->priv;
	int v = c->dev->num_comp_vectors - 1;
	struct ib_recv_wr rwr = { .wr_id = 9 };
	const struct ib_recv_wr *bad;
	struct cpu_rec rec;
	struct ib_cq *cq;
	struct ib_qp *qp;
	struct ib_wc wc;
	int target, ret;

	target = kiwarp_cpu_of_vector(v);
	if (num_online_cpus() < 2 || !target)
		kunit_skip(test, "needs a second online CPU");
	cq = make_cq(test, c->dev, &rec, v, true);
	KUNIT_ASSERT_FALSE(test, IS_ERR(cq));
	qp = make_err_qp(test, c->pd, cq);
	if (!qp) {
		ib_destroy_cq(cq);
		return;
	}

	ret = remove_cpu(target);
	if (ret == -EBUSY || ret == -EPERM) {
		/* hotplug refused here (disabled, or the last CPU) */
		ib_destroy_qp(qp);
		ib_destroy_cq(cq);
		kunit_skip(test, "CPU %d cannot go offline: %d", target, ret);
	}
	KUNIT_EXPECT_EQ(test, ret, 0);
	if (!ret) {
		KUNIT_EXPECT_EQ(test, ib_req_notify_cq(cq, IB_CQ_NEXT_COMP), 0);
		KUNIT_EXPECT_EQ(test, ib_post_recv(qp, &rwr, &bad), 0);
		KUNIT_EXPECT_GT(test, wait_for_completion_timeout(&rec.done,
								  5 * HZ),
				0UL);
		KUNIT_EXPECT_NE(test, rec.cpu, target);
		KUNIT_EXPECT_TRUE(test, rec.softirq);
		KUNIT_EXPECT_GE(test,
				atomic64_read(&to_kcq(cq)->offline_raises),
				1LL);
		KUNIT_EXPECT_EQ(test, ib_poll_cq(cq, 1, &wc), 1);
		KUNIT_EXPECT_EQ(test, add_cpu(target), 0);
	}

	/* back online: back on its CPU */
	reinit_completion(&rec.done);
	rec.cpu = -1;
	KUNIT_EXPECT_EQ(test, ib_req_notify_cq(cq, IB_CQ_NEXT_COMP), 0);
	KUNIT_EXPECT_EQ(test, ib_post_recv(qp, &rwr, &bad), 0);
	KUNIT_EXPECT_GT(test, wait_for_completion_timeout(&rec.done, 5 * HZ),
			0UL);
	KUNIT_EXPECT_EQ(test, rec.cpu, target);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(cq, 1, &wc), 1);
	ib_destroy_qp(qp);
	ib_destroy_cq(cq);
}

/* IB_CQ_REPORT_MISSED_EVENTS reports completions queued while unarmed */
static void verbs_test_cq_missed_events(struct kunit *test)
{
	struct verbs_ctx *c = test->priv;
	struct ib_cq_init_attr ca = { .cqe = 4 };
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct ib_recv_wr rwr = { .wr_id = 1 };
	const struct ib_recv_wr *bad;
	struct ib_cq *cq;
	struct ib_qp *qp;
	struct ib_wc wc;

	cq = ib_create_cq(c->dev, NULL, NULL, NULL, &ca);
	KUNIT_ASSERT_FALSE(test, IS_ERR(cq));
	qp = make_qp(test, c->pd, cq, cq);
	if (!qp)
		goto out;
	KUNIT_EXPECT_EQ(test, ib_req_notify_cq(cq, IB_CQ_NEXT_COMP |
					       IB_CQ_REPORT_MISSED_EVENTS), 0);
	ib_modify_qp(qp, &attr, IB_QP_STATE);
	ib_post_recv(qp, &rwr, &bad);
	KUNIT_EXPECT_EQ(test, ib_req_notify_cq(cq, IB_CQ_SOLICITED |
					       IB_CQ_REPORT_MISSED_EVENTS), 1);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(cq, 1, &wc), 1);
	KUNIT_EXPECT_EQ(test, ib_req_notify_cq(cq, IB_CQ_NEXT_COMP |
					       IB_CQ_REPORT_MISSED_EVENTS), 0);
	ib_destroy_qp(qp);
out:
	ib_destroy_cq(cq);
}

/* QP creation limits and the ib state view of an unconnected QP */
static void verbs_test_qp_modify(struct kunit *test)
{
	struct verbs_ctx *c = test->priv;
	struct ib_cq_init_attr ca = { .cqe = 16 };
	struct ib_qp_init_attr ia = {}, qia;
	struct ib_qp_attr attr;
	struct ib_cq *cq;
	struct ib_qp *qp;

	cq = ib_create_cq(c->dev, NULL, NULL, NULL, &ca);
	KUNIT_ASSERT_FALSE(test, IS_ERR(cq));

	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.qp_type = IB_QPT_UD;
	ia.cap.max_send_wr = 1;
	qp = ib_create_qp(c->pd, &ia);
	KUNIT_EXPECT_TRUE(test, IS_ERR(qp));
	ia.qp_type = IB_QPT_RC;
	ia.cap.max_send_sge = KIWARP_MAX_SGE + 1;
	qp = ib_create_qp(c->pd, &ia);
	KUNIT_EXPECT_TRUE(test, IS_ERR(qp));

	qp = make_qp(test, c->pd, cq, cq);
	if (!qp)
		goto out;
	KUNIT_EXPECT_EQ(test, ib_query_qp(qp, &attr, IB_QP_STATE, &qia), 0);
	KUNIT_EXPECT_EQ(test, attr.qp_state, IB_QPS_INIT);
	attr.qp_state = IB_QPS_INIT;
	attr.qp_access_flags = IB_ACCESS_REMOTE_WRITE;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(qp, &attr, IB_QP_STATE |
					   IB_QP_ACCESS_FLAGS), 0);
	/* RTS needs a connection: only iw_cm's accept/connect gets there */
	attr.qp_state = IB_QPS_RTS;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(qp, &attr, IB_QP_STATE), -EINVAL);
	attr.qp_state = IB_QPS_ERR;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(qp, &attr, IB_QP_STATE), 0);
	ib_query_qp(qp, &attr, IB_QP_STATE, &qia);
	KUNIT_EXPECT_EQ(test, attr.qp_state, IB_QPS_ERR);
	attr.qp_state = IB_QPS_RESET;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(qp, &attr, IB_QP_STATE), 0);
	ib_query_qp(qp, &attr, IB_QP_STATE, &qia);
	KUNIT_EXPECT_EQ(test, attr.qp_state, IB_QPS_INIT);
	KUNIT_EXPECT_PTR_EQ(test, kiwarp_iw_get_qp(c->dev, qp->qp_num), qp);
	ib_destroy_qp(qp);
out:
	ib_destroy_cq(cq);
}

struct destroy_arg {
	struct ib_qp *qp;
	struct completion done;
};

static int destroy_thread(void *arg)
{
	struct destroy_arg *a = arg;

	ib_destroy_qp(a->qp);
	complete(&a->done);
	return 0;
}

/*
 * iw_get_qp() against a QP's destroy (issue 19, item 10). iw_cm looks a
 * QP up by number and takes its reference (iw_add_ref) under its cm_id
 * lock; the consumer owns the QP meanwhile, as with siw. Once a destroy
 * has started, the number finds nothing, and the destroy waits for
 * iw_cm's reference before it frees the QP.
 */
static void verbs_test_get_qp_during_destroy(struct kunit *test)
{
	struct verbs_ctx *c = test->priv;
	struct ib_cq_init_attr ca = { .cqe = 16 };
	struct task_struct *t;
	struct destroy_arg *a;
	struct ib_cq *cq;
	struct ib_qp *qp;
	u32 qpn;

	cq = ib_create_cq(c->dev, NULL, NULL, NULL, &ca);
	KUNIT_ASSERT_FALSE(test, IS_ERR(cq));
	qp = make_qp(test, c->pd, cq, cq);
	if (!qp)
		goto out_cq;
	qpn = qp->qp_num;
	KUNIT_EXPECT_PTR_EQ(test, kiwarp_iw_get_qp(c->dev, qpn), qp);
	/* not kunit-managed: a destroy that never ends keeps using it */
	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a) {
		KUNIT_FAIL(test, "no memory");
		ib_destroy_qp(qp);
		goto out_cq;
	}
	c->dev->ops.iw_add_ref(qp);
	a->qp = qp;
	init_completion(&a->done);
	t = kthread_run(destroy_thread, a, "kiwarp-destroy");
	if (IS_ERR(t)) {
		KUNIT_FAIL(test, "kthread_run: %ld", PTR_ERR(t));
		c->dev->ops.iw_rem_ref(qp);
		ib_destroy_qp(qp);
		kfree(a);
		goto out_cq;
	}
	if (wait_for_completion_timeout(&a->done, HZ / 2)) {
		/* the QP is gone: iw_cm's reference was not waited for */
		KUNIT_FAIL(test, "the destroy did not wait for iw_cm's reference");
		kfree(a);
		goto out_cq;
	}
	KUNIT_EXPECT_NULL(test, kiwarp_iw_get_qp(c->dev, qpn));
	c->dev->ops.iw_rem_ref(qp);
	if (!wait_for_completion_timeout(&a->done, 10 * HZ)) {
		KUNIT_FAIL(test, "the destroy did not end after the last reference");
		return;		/* the CQ and @a stay: the destroy may use them */
	}
	KUNIT_EXPECT_NULL(test, kiwarp_iw_get_qp(c->dev, qpn));
	kfree(a);
out_cq:
	ib_destroy_cq(cq);
}

/* The state table: every (from, to) pair */
static void verbs_test_qp_state_table(struct kunit *test)
{
	static const bool ok[KIWARP_QPS_COUNT][KIWARP_QPS_COUNT] = {
		[KIWARP_QPS_IDLE] = { [KIWARP_QPS_IDLE] = 1,
				      [KIWARP_QPS_RTS] = 1,
				      [KIWARP_QPS_ERROR] = 1 },
		[KIWARP_QPS_RTS] = { [KIWARP_QPS_RTS] = 1,
				     [KIWARP_QPS_CLOSING] = 1,
				     [KIWARP_QPS_TERMINATE] = 1,
				     [KIWARP_QPS_ERROR] = 1 },
		[KIWARP_QPS_CLOSING] = { [KIWARP_QPS_CLOSING] = 1,
					 [KIWARP_QPS_TERMINATE] = 1,
					 [KIWARP_QPS_ERROR] = 1 },
		[KIWARP_QPS_TERMINATE] = { [KIWARP_QPS_TERMINATE] = 1,
					   [KIWARP_QPS_ERROR] = 1 },
		[KIWARP_QPS_ERROR] = { [KIWARP_QPS_ERROR] = 1,
				       [KIWARP_QPS_IDLE] = 1 },
	};
	struct kiwarp_qp *qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);
	unsigned long flags;
	int from, to, ret;

	KUNIT_ASSERT_NOT_NULL(test, qp);
	spin_lock_init(&qp->state_lock);
	for (from = 0; from < KIWARP_QPS_COUNT; from++) {
		KUNIT_EXPECT_NOT_NULL(test, kiwarp_qp_state_name[from]);
		for (to = 0; to < KIWARP_QPS_COUNT; to++) {
			spin_lock_irqsave(&qp->state_lock, flags);
			qp->state = from;
			ret = kiwarp_qp_set_state_locked(qp, to);
			spin_unlock_irqrestore(&qp->state_lock, flags);
			KUNIT_EXPECT_EQ_MSG(test, ret, ok[from][to] ? 0 : -EINVAL,
					    "%s -> %s",
					    kiwarp_qp_state_name[from],
					    kiwarp_qp_state_name[to]);
			KUNIT_EXPECT_EQ(test, qp->state,
					ret ? from : to);
		}
	}
}

struct drain_ctx {
	struct ib_cqe cqe;
	atomic_t flushed;
};

static void drain_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct drain_ctx *d = container_of(wc->wr_cqe, struct drain_ctx, cqe);

	if (wc->status == IB_WC_WR_FLUSH_ERR)
		atomic_inc(&d->flushed);
}

/* ib_drain_qp on a QP with queued sends and receives flushes them all */
static void verbs_test_drain(struct kunit *test)
{
	struct verbs_ctx *c = test->priv;
	struct drain_ctx d = { .cqe.done = drain_done };
	const struct ib_send_wr *sbad;
	const struct ib_recv_wr *rbad;
	struct ib_send_wr swr = {
		.wr_cqe = &d.cqe, .opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	struct ib_recv_wr rwr = { .wr_cqe = &d.cqe };
	struct ib_cq *cq;
	struct ib_qp *qp;
	int i;

	atomic_set(&d.flushed, 0);
	cq = ib_alloc_cq(c->dev, NULL, 32, 0, IB_POLL_SOFTIRQ);
	KUNIT_ASSERT_FALSE(test, IS_ERR(cq));
	qp = make_qp(test, c->pd, cq, cq);
	if (!qp)
		goto out;
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ(test, ib_post_send(qp, &swr, &sbad), 0);
		KUNIT_EXPECT_EQ(test, ib_post_recv(qp, &rwr, &rbad), 0);
	}
	ib_drain_qp(qp);
	KUNIT_EXPECT_EQ(test, atomic_read(&d.flushed), 6);
	ib_destroy_qp(qp);
out:
	ib_free_cq(cq);
}

/* Fast registration: map, register, bounds, translation, invalidate */
static void verbs_test_frwr(struct kunit *test)
{
	struct verbs_ctx *c = test->priv;
	struct kiwarp_dev *kdev = to_kdev(c->dev);
	struct scatterlist sg[2];
	struct kiwarp_mr *kmr;
	struct ib_pd *pd2;
	struct ib_mr *mr;
	u32 contig, key;
	void *p0, *p1;
	u8 *kva;

	p0 = (void *)__get_free_page(GFP_KERNEL);
	p1 = (void *)__get_free_page(GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, p0 && p1);
	mr = ib_alloc_mr(c->pd, IB_MR_TYPE_MEM_REG, 4);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
	KUNIT_EXPECT_TRUE(test, IS_ERR(ib_alloc_mr(c->pd, IB_MR_TYPE_SG_GAPS,
						   4)));

	sg_init_table(sg, 2);
	sg_set_buf(&sg[0], p0 + 256, PAGE_SIZE - 256);
	sg_set_buf(&sg[1], p1, PAGE_SIZE);
	/* virtual DMA: the DMA address is the kernel address */
	KUNIT_ASSERT_EQ(test, ib_dma_map_sg(c->dev, sg, 2, DMA_BIDIRECTIONAL),
			2);
	KUNIT_EXPECT_EQ(test, ib_map_mr_sg(mr, sg, 2, NULL, PAGE_SIZE), 2);
	KUNIT_EXPECT_EQ(test, mr->length, 2 * PAGE_SIZE - 256);

	kmr = to_kmr(mr);
	/* Not yet registered: not usable */
	key = ib_inc_rkey(mr->rkey);
	KUNIT_EXPECT_NULL(test, kiwarp_mr_get(kdev, key));
	KUNIT_EXPECT_EQ(test, kiwarp_mr_reg(kmr, c->pd, key + 0x100,
					    IB_ACCESS_REMOTE_WRITE), -EINVAL);
	KUNIT_EXPECT_EQ(test, kiwarp_mr_reg(kmr, c->pd, key,
					    IB_ACCESS_LOCAL_WRITE |
					    IB_ACCESS_REMOTE_WRITE), 0);
	ib_update_fast_reg_key(mr, key & 0xff);
	KUNIT_EXPECT_PTR_EQ(test, kiwarp_mr_get(kdev, key), kmr);
	kiwarp_mr_put(kmr);
	KUNIT_EXPECT_NULL(test, kiwarp_mr_get(kdev, key ^ 1));

	/* Access rights, PD, bounds (incl. wrap-around) */
	KUNIT_EXPECT_EQ(test, kiwarp_mr_check(kmr, c->pd,
					      IB_ACCESS_REMOTE_WRITE,
					      mr->iova, mr->length), 0);
	KUNIT_EXPECT_EQ(test, kiwarp_mr_check(kmr, c->pd,
					      IB_ACCESS_REMOTE_READ,
					      mr->iova, 1),
			RDMAP_ECODE_ACCESS_RIGHTS);
	KUNIT_EXPECT_EQ(test, kiwarp_mr_check(kmr, c->pd, 0, mr->iova - 1, 1),
			RDMAP_ECODE_BASE_BOUNDS);
	KUNIT_EXPECT_EQ(test, kiwarp_mr_check(kmr, c->pd, 0, mr->iova + 1,
					      mr->length),
			RDMAP_ECODE_BASE_BOUNDS);
	KUNIT_EXPECT_EQ(test, kiwarp_mr_check(kmr, c->pd, 0, mr->iova + 8,
					      U64_MAX - 4),
			RDMAP_ECODE_BASE_BOUNDS);
	pd2 = ib_alloc_pd(c->dev, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pd2));
	KUNIT_EXPECT_EQ(test, kiwarp_mr_check(kmr, pd2, 0, mr->iova, 1),
			RDMAP_ECODE_STAG_NOT_ASSOC);
	KUNIT_EXPECT_EQ(test, kiwarp_mr_invalidate(kdev, pd2, key),
			RDMAP_ECODE_STAG_NOT_ASSOC);
	ib_dealloc_pd(pd2);

	/* Translation: offset 0 is p0 + 256, the page boundary is p1 */
	kva = kiwarp_mr_kva(kmr, mr->iova, &contig);
	KUNIT_EXPECT_PTR_EQ(test, (void *)kva, p0 + 256);
	KUNIT_EXPECT_EQ(test, contig, (u32)(PAGE_SIZE - 256));
	kva = kiwarp_mr_kva(kmr, mr->iova + PAGE_SIZE - 256 + 8, &contig);
	KUNIT_EXPECT_PTR_EQ(test, (void *)kva, p1 + 8);

	KUNIT_EXPECT_EQ(test, kiwarp_mr_invalidate(kdev, c->pd, key), 0);
	KUNIT_EXPECT_EQ(test, kiwarp_mr_check(kmr, c->pd, 0, mr->iova, 1),
			RDMAP_ECODE_INVALID_STAG);
	KUNIT_EXPECT_EQ(test, kiwarp_mr_invalidate(kdev, c->pd, 0),
			RDMAP_ECODE_INVALID_STAG);

	ib_dma_unmap_sg(c->dev, sg, 2, DMA_BIDIRECTIONAL);
	ib_dereg_mr(mr);
	free_page((unsigned long)p0);
	free_page((unsigned long)p1);
}

static struct kunit_case kiwarp_verbs_cases[] = {
	KUNIT_CASE(verbs_test_device_attrs),
	KUNIT_CASE(verbs_test_no_global_rkey),
	KUNIT_CASE(verbs_test_newlink),
	KUNIT_CASE(verbs_test_newlink_race),
	KUNIT_CASE(verbs_test_cq_vector_cpu),
	KUNIT_CASE(verbs_test_cq_producer_cpu),
	KUNIT_CASE(verbs_test_cq_missed_events),
	KUNIT_CASE(verbs_test_cq_cpu_offline),
	KUNIT_CASE(verbs_test_qp_modify),
	KUNIT_CASE(verbs_test_qp_state_table),
	KUNIT_CASE(verbs_test_get_qp_during_destroy),
	KUNIT_CASE(verbs_test_drain),
	KUNIT_CASE(verbs_test_frwr),
	{}
};

static struct kunit_suite kiwarp_verbs_suite = {
	.name = "kiwarp_verbs",
	.init = verbs_init,
	.exit = verbs_exit,
	.test_cases = kiwarp_verbs_cases,
};

kunit_test_suite(kiwarp_verbs_suite);

MODULE_DESCRIPTION("KUnit tests for the kiwarp RNIC's device and verbs");
MODULE_IMPORT_NS(KIWARP_INTERNAL);
MODULE_LICENSE("GPL");
