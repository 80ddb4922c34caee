// SPDX-License-Identifier: GPL-2.0
/*
 * kdapl: kernel DAT 2.0 (kDAPL) core.
 *
 * Module init and exit, and the module's debugfs root. The DAT objects
 * live in their own files; this file only wires the module together.
 *
 * debugfs layout (see Documentation/architecture.rst):
 *   /sys/kernel/debug/kdapl/
 *     version   API version and build of this module
 *     handles   live DAT handles in the global table, by type
 *     cpus      the participating CPUs (module parameter "cpus"), then
 *               "placement follow|spread" (module parameter "placement")
 *     evds      one line per EVD: handle, flags, qlen, queued, posted,
 *               overflows, upcalls, policy, bound CPU, CPU processing it
 *               next, moves by load
 *     ep_states the endpoint state table (Documentation/ep-states.rst)
 *     providers/<device>/cpus  per participating CPU: queues bound, events,
 *               load
 *     providers/<device>/ias   open IAs: handle, async EVD, children
 *     providers/<device>/lmrs  LMRs of the open IAs (lmr.c)
 */

#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "kdapl.h"
#include "cpu.h"
#include "registry.h"
#include "evd.h"
#include "ep.h"
#include "ep_state.h"

#define KDAPL_VERSION "0.1"

struct kdapl_globals kdapl;

/* kdapl_fault_begin() */
bool kdapl_test_fail_work;
module_param_named(test_fail_work, kdapl_test_fail_work, bool, 0644);
MODULE_PARM_DESC(test_fail_work, "test hook: kdapl's works and connection event handlers are subject to failslab/fail_page_alloc's task filter (default off)");

/**
 * kdapl_obj_get() - a counted reference from a consumer's handle
 * @handle: the consumer's handle
 * @type: the type the caller expects
 *
 * Return: the object, or NULL for a NULL, stale or wrongly typed handle
 * (the caller answers DAT_INVALID_HANDLE). Drop it with kdapl_obj_put().
 * Context: any context.
 */
struct kdapl_obj *kdapl_obj_get(void *handle, enum kdapl_htype type)
{
	struct kdapl_hobj *h = kdapl_hobj_get(&kdapl.handles, handle, type);

	return h ? container_of(h, struct kdapl_obj, hobj) : NULL;
}
EXPORT_SYMBOL_NS_GPL(kdapl_obj_get, KDAPL_INTERNAL);

static int version_show(struct seq_file *m, void *v)
{
	seq_printf(m, "kdapl %s DAT %d.%d\n", KDAPL_VERSION, 2, 0);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(version);

static int handles_show(struct seq_file *m, void *v)
{
	unsigned int count[KDAPL_HT_MAX] = { 0 };
	struct kdapl_hobj *obj;
	unsigned long index;
	int t;

	xa_lock_irq(&kdapl.handles.xa);
	xa_for_each(&kdapl.handles.xa, index, obj) {
		if (obj->type > 0 && obj->type < KDAPL_HT_MAX)
			count[obj->type]++;
	}
	xa_unlock_irq(&kdapl.handles.xa);

	seq_printf(m, "total %u\n", kdapl_htable_count(&kdapl.handles));
	for (t = 1; t < KDAPL_HT_MAX; t++)
		seq_printf(m, "%-4s %u\n", kdapl_htype_name(t), count[t]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(handles);

static int cpus_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%*pbl\n", cpumask_pr_args(kdapl_cpu_mask()));
	seq_printf(m, "placement %s\n",
		   kdapl_placement_name(kdapl_cpu_placement()));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cpus);

static int ep_states_show(struct seq_file *m, void *v)
{
	kdapl_ep_state_table_print(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ep_states);

static int __init kdapl_init(void)
{
	int err;

	err = kdapl_cpu_init();
	if (err)
		return err;
	err = kdapl_ep_init();
	if (err)
		goto out_cpu;
	kdapl_htable_init(&kdapl.handles);

	kdapl.debugfs = debugfs_create_dir("kdapl", NULL);
	debugfs_create_file("version", 0444, kdapl.debugfs, NULL,
			    &version_fops);
	debugfs_create_file("handles", 0444, kdapl.debugfs, NULL,
			    &handles_fops);
	debugfs_create_file("cpus", 0444, kdapl.debugfs, NULL, &cpus_fops);
	kdapl_evd_debugfs_init(kdapl.debugfs);
	kdapl_ep_debugfs_init(kdapl.debugfs);
	kdapl_sp_debugfs_init(kdapl.debugfs);
	debugfs_create_file("ep_states", 0444, kdapl.debugfs, NULL,
			    &ep_states_fops);

	/* Last: from here on devices (and consumers) can reach us. */
	err = kdapl_registry_init();
	if (err)
		goto out_debugfs;

	pr_info("kdapl: DAT 2.0 kernel core loaded\n");
	return 0;

out_debugfs:
	debugfs_remove_recursive(kdapl.debugfs);
	kdapl_htable_destroy(&kdapl.handles);
	kdapl_ep_exit();
out_cpu:
	kdapl_cpu_exit();
	return err;
}

static void __exit kdapl_exit(void)
{
	kdapl_registry_exit();
	debugfs_remove_recursive(kdapl.debugfs);
	kdapl_htable_destroy(&kdapl.handles);
	kdapl_ep_exit();
	kdapl_cpu_exit();
	pr_info("kdapl: unloaded\n");
}

module_init(kdapl_init);
module_exit(kdapl_exit);

MODULE_DESCRIPTION("Kernel DAT 2.0 (kDAPL) core over ib_core and rdma_cm");
MODULE_LICENSE("GPL");
MODULE_VERSION(KDAPL_VERSION);
