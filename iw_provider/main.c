// SPDX-License-Identifier: GPL-2.0
/*
 * kiwarp: a software iWARP RNIC (MPA/DDP/RDMAP over kernel TCP sockets).
 *
 * Module init and exit, module parameters, the provider's workqueue and
 * debugfs root. The protocol codecs live in proto/ (kernel-independent,
 * shared with the host tests); Documentation/iw_provider.rst describes
 * the whole provider.
 *
 * debugfs layout:
 *   /sys/kernel/debug/kiwarp/
 *     version        module version and the MPA revisions it speaks
 *     <device>/      one directory per RNIC (device.c)
 */

#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/cpumask.h>
#include <rdma/rdma_netlink.h>

#include "kiwarp.h"

bool kiwarp_mpa_crc;
module_param_named(mpa_crc, kiwarp_mpa_crc, bool, 0644);
MODULE_PARM_DESC(mpa_crc, "request MPA CRC32c on new connections (default off, like siw)");
EXPORT_SYMBOL_NS_GPL(kiwarp_mpa_crc, KIWARP_INTERNAL);

/*
 * 32: a 1448-byte MSS makes 46 KB FPDUs, below the 64 KiB ULPDU bound;
 * Documentation/performance.rst has the figures it was chosen from.
 */
unsigned int kiwarp_fpdu_segs = 32;
module_param_named(fpdu_segs, kiwarp_fpdu_segs, uint, 0644);
MODULE_PARM_DESC(fpdu_segs, "largest FPDU sent, in TCP segments (MSS) of the path, 1-64, when both MPA frames agree to FPDUs longer than a segment (siw's GSO bit; offered by ours when > 1); default 32, 1: every FPDU fits one segment");
EXPORT_SYMBOL_NS_GPL(kiwarp_fpdu_segs, KIWARP_INTERNAL);

/*
 * On by default: the other way removed the IPIs of a SEND stream whose
 * two EVDs were bound to two CPUs, but slowed kdapl's busy single EVD
 * (Documentation/performance.rst, "CQ handler where the completion is
 * produced").
 */
bool kiwarp_cq_affinity = true;
module_param_named(cq_affinity, kiwarp_cq_affinity, bool, 0644);
MODULE_PARM_DESC(cq_affinity, "CQs created while set run their completion handler on the CPU of their completion vector, reached by an IPI (default on); off: on the CPU that produced the completion, as siw and rxe do; a consumer may choose per CQ (include/kiwarp/cq.h), as kdapl does");
EXPORT_SYMBOL_NS_GPL(kiwarp_cq_affinity, KIWARP_INTERNAL);

unsigned int kiwarp_close_timeout_ms = 5000;
module_param_named(close_timeout_ms, kiwarp_close_timeout_ms, uint, 0644);
MODULE_PARM_DESC(close_timeout_ms, "how long a graceful close waits for the peer's FIN before resetting (ms, default 5000)");
EXPORT_SYMBOL_NS_GPL(kiwarp_close_timeout_ms, KIWARP_INTERNAL);

unsigned int kiwarp_sock_sndtimeo_ms = 5000;
module_param_named(sock_sndtimeo_ms, kiwarp_sock_sndtimeo_ms, uint, 0644);
MODULE_PARM_DESC(sock_sndtimeo_ms, "socket takeover: how long an MPA frame or an SSP's final streaming message may take to send (ms, default 5000, at least 1: the sends happen under the takeover's lock)");
EXPORT_SYMBOL_NS_GPL(kiwarp_sock_sndtimeo_ms, KIWARP_INTERNAL);

/*
 * Test hook for the stress suite (issue 18): while set, the fault
 * injectors' task filter (failslab, fail_page_alloc with task-filter=Y)
 * takes kiwarp's works for tasks that may fail, so the allocations they
 * make - ours, TCP's, iw_cm's - fail at the injectors' rate. The
 * consumer's own calls are covered by fail-nth; this reaches what runs
 * in kiwarp's workers (kiwarp_work_run()).
 */
bool kiwarp_test_fail_work;
module_param_named(test_fail_work, kiwarp_test_fail_work, bool, 0644);
MODULE_PARM_DESC(test_fail_work, "test hook: kiwarp's works are subject to failslab/fail_page_alloc's task filter (default off)");

/*
 * Test hook of the KUnit suite kiwarp_sock: while positive, each
 * kiwarp_tcp_shutdown() takes one and makes the first allocation of its
 * shutdown fail (fail-nth, CONFIG_FAULT_INJECTION): TCP's FIN.
 */
atomic_t kiwarp_test_lose_fin = ATOMIC_INIT(0);
EXPORT_SYMBOL_NS_GPL(kiwarp_test_lose_fin, KIWARP_INTERNAL);

/* Connection, TX and RX works; destroyed after the devices */
struct workqueue_struct *kiwarp_wq;
/* Connection teardown, which waits for the works on kiwarp_wq */
struct workqueue_struct *kiwarp_down_wq;
/* Active connects, which wait for the peer (kiwarp_init()) */
struct workqueue_struct *kiwarp_cm_wq;

/* /sys/kernel/debug/kiwarp: created at init, removed at exit. */
struct dentry *kiwarp_debugfs_root;

/**
 * kiwarp_cpu_of_vector() - the CPU serving completion vector @vector.
 * @vector: 0 .. num_comp_vectors - 1 (taken modulo the online CPUs)
 *
 * Vector n belongs to the n-th online CPU at the time of the call.
 */
int kiwarp_cpu_of_vector(int vector)
{
	unsigned int n = num_online_cpus();
	int cpu;

	if (!n || vector < 0)
		return cpumask_first(cpu_online_mask);
	vector %= n;
	for_each_online_cpu(cpu) {
		if (!vector--)
			return cpu;
	}
	return cpumask_first(cpu_online_mask);
}
EXPORT_SYMBOL_NS_GPL(kiwarp_cpu_of_vector, KIWARP_INTERNAL);

static int version_show(struct seq_file *m, void *v)
{
	seq_printf(m, "kiwarp %s MPA rev 1,2 max private data %u crc %s\n",
		   KIWARP_VERSION, MPA_MAX_PRIVDATA,
		   kiwarp_mpa_crc ? "on" : "off");
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(version);

static int __init kiwarp_init(void)
{
	int ret;

	/*
	 * The data path's works: high priority (a message waits for them),
	 * and a rescuer, since storage consumers write back through them
	 * under memory pressure.
	 */
	kiwarp_wq = alloc_workqueue("kiwarp", WQ_HIGHPRI | WQ_MEM_RECLAIM, 0);
	if (!kiwarp_wq)
		return -ENOMEM;
	kiwarp_down_wq = alloc_workqueue("kiwarp_down", 0, 0);
	if (!kiwarp_down_wq) {
		destroy_workqueue(kiwarp_wq);
		return -ENOMEM;
	}
	/*
	 * The active connect works, which wait for the TCP handshake and the
	 * MPA Reply: on their own queue, so that when the pool is short of
	 * workers and a rescuer runs works one by one, no work that waits
	 * for the peer sits ahead of the works that answer it (a listener's
	 * accept, a Request's reception, all on kiwarp_wq).
	 */
	kiwarp_cm_wq = alloc_workqueue("kiwarp_cm", WQ_MEM_RECLAIM, 0);
	if (!kiwarp_cm_wq) {
		destroy_workqueue(kiwarp_down_wq);
		destroy_workqueue(kiwarp_wq);
		return -ENOMEM;
	}
	kiwarp_debugfs_root = debugfs_create_dir("kiwarp", NULL);
	debugfs_create_file("version", 0444, kiwarp_debugfs_root, NULL,
			    &version_fops);
	ret = kiwarp_device_init();
	if (ret)
		goto out_debugfs;
	pr_info("kiwarp: software iWARP RNIC loaded\n");
	return 0;

out_debugfs:
	debugfs_remove_recursive(kiwarp_debugfs_root);
	destroy_workqueue(kiwarp_cm_wq);
	destroy_workqueue(kiwarp_down_wq);
	destroy_workqueue(kiwarp_wq);
	return ret;
}

static void __exit kiwarp_exit(void)
{
	kiwarp_device_exit();
	kiwarp_zc_exit();
	destroy_workqueue(kiwarp_cm_wq);
	destroy_workqueue(kiwarp_down_wq);
	destroy_workqueue(kiwarp_wq);
	debugfs_remove_recursive(kiwarp_debugfs_root);
	pr_info("kiwarp: unloaded\n");
}

module_init(kiwarp_init);
module_exit(kiwarp_exit);

MODULE_DESCRIPTION("Software iWARP RNIC over kernel TCP sockets");
MODULE_LICENSE("GPL");
MODULE_VERSION(KIWARP_VERSION);
MODULE_ALIAS_RDMA_LINK("kiwarp");
