// SPDX-License-Identifier: GPL-2.0
/*
 * The DAT registry: an ib_client that makes every RDMA device a DAT
 * provider whose IA name is the device name, and
 * dat_registry_list_providers(). See registry.h for lifetimes and locking.
 *
 * debugfs, per provider:
 *   /sys/kernel/debug/kdapl/providers/<name>/
 *     cpus   one line per participating CPU: "cpu N queues Q events E
 *            load L" (L: thousandths of the last load window, cpu.h)
 *     ias    one line per open IA:
 *            "ia <handle> async_evd <handle> children N[ dead]"
 *     lmrs   one line per LMR of the open IAs (lmr.c)
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/export.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "cpu.h"
#include "evd.h"
#include "lmr.h"
#include "registry.h"

/* The providers, and provider->name for readers without provider->lock. */
static DEFINE_MUTEX(kdapl_providers_lock);
static LIST_HEAD(kdapl_providers);
/* /sys/kernel/debug/kdapl/providers, set at init, removed at exit. */
static struct dentry *kdapl_providers_dir;

static void kdapl_provider_release(struct kref *ref)
{
	struct kdapl_provider *prov =
		container_of(ref, struct kdapl_provider, ref);

	kdapl_cpuset_free(prov->cpus);
	mutex_destroy(&prov->lock);
	kfree(prov);
}

/**
 * kdapl_provider_put() - drop a reference on a provider
 * @prov: the provider
 *
 * The last reference frees it; by then it is off the global list and its
 * debugfs directory is gone, so this never sleeps.
 *
 * Context: any context.
 */
void kdapl_provider_put(struct kdapl_provider *prov)
{
	kref_put(&prov->ref, kdapl_provider_release);
}

/**
 * kdapl_provider_find() - the provider of an IA name
 * @name: NUL-terminated IA name
 *
 * Context: process context; takes kdapl_providers_lock.
 * Return: the provider with a new reference, or NULL if no device of
 * that name is registered (or it is going away).
 */
struct kdapl_provider *kdapl_provider_find(const char *name)
{
	struct kdapl_provider *prov;

	mutex_lock(&kdapl_providers_lock);
	list_for_each_entry(prov, &kdapl_providers, node) {
		if (!strcmp(prov->name, name)) {
			kref_get(&prov->ref);
			mutex_unlock(&kdapl_providers_lock);
			return prov;
		}
	}
	mutex_unlock(&kdapl_providers_lock);
	return NULL;
}

/* Caller holds kdapl_providers_lock. */
static struct kdapl_provider *kdapl_provider_of(struct ib_device *ibdev)
{
	struct kdapl_provider *prov;

	lockdep_assert_held(&kdapl_providers_lock);
	list_for_each_entry(prov, &kdapl_providers, node)
		if (prov->ibdev == ibdev)
			return prov;
	return NULL;
}

static int cpus_show(struct seq_file *m, void *v)
{
	struct kdapl_provider *prov = m->private;
	unsigned int i;

	for (i = 0; i < prov->cpus->nr; i++) {
		struct kdapl_cpu_slot *slot = &prov->cpus->slot[i];

		seq_printf(m, "cpu %u queues %d events %lld load %u\n",
			   slot->cpu, atomic_read(&slot->queues),
			   (long long)atomic64_read(&slot->events),
			   kdapl_cpu_load(slot));
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cpus);

static int ias_show(struct seq_file *m, void *v)
{
	struct kdapl_provider *prov = m->private;
	struct kdapl_ia *ia;

	mutex_lock(&prov->lock);
	list_for_each_entry(ia, &prov->ias, node) {
		/* An IA on the list has its async EVD until it leaves. */
		seq_printf(m, "ia %#lx async_evd %#lx children %d%s\n",
			   (unsigned long)kdapl_obj_handle(&ia->base),
			   (unsigned long)kdapl_obj_handle(&ia->async_evd->base),
			   atomic_read(&ia->children),
			   READ_ONCE(ia->dead) ? " dead" : "");
	}
	mutex_unlock(&prov->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ias);

/* The vendor name reported in DAT_IA_ATTR: driver and IEEE vendor id. */
static void kdapl_provider_vendor(struct kdapl_provider *prov)
{
	struct ib_device *ibdev = prov->ibdev;
	const char *drv = "unknown";

	if (ibdev->dev.parent && ibdev->dev.parent->driver)
		drv = ibdev->dev.parent->driver->name;
	else if (ibdev->ops.owner)
		drv = module_name(ibdev->ops.owner);
	snprintf(prov->vendor, sizeof(prov->vendor), "%s (vendor id %#x)",
		 drv, prov->attrs.vendor_id);
}

/**
 * kdapl_registry_add_device() - make an RDMA device a DAT provider
 * @ibdev: the device
 *
 * The ib_client's add callback; exported for the KUnit suite, which uses
 * it to bring back a device it took away with
 * kdapl_registry_remove_device().
 *
 * Context: process context; sleeps.
 * Return: 0; -EOPNOTSUPP for a device without a connection manager (no
 * IB CM and no iWARP CM on its first port); -EEXIST if @ibdev is already
 * a provider; -ENOMEM.
 */
int kdapl_registry_add_device(struct ib_device *ibdev)
{
	struct kdapl_provider *prov;
	struct ib_port_attr pattr;
	u32 port = rdma_start_port(ibdev);
	int err;

	if (!rdma_cap_ib_cm(ibdev, port) && !rdma_cap_iw_cm(ibdev, port))
		return -EOPNOTSUPP;

	prov = kzalloc(sizeof(*prov), GFP_KERNEL);
	if (!prov)
		return -ENOMEM;
	prov->cpus = kdapl_cpuset_alloc(kdapl_cpu_mask(),
					kdapl_cpu_placement());
	if (!prov->cpus) {
		kfree(prov);
		return -ENOMEM;
	}
	prov->ibdev = ibdev;
	strscpy(prov->name, dev_name(&ibdev->dev), sizeof(prov->name));
	kref_init(&prov->ref);
	mutex_init(&prov->lock);
	INIT_LIST_HEAD(&prov->ias);
	prov->attrs = ibdev->attrs;
	prov->port = port;
	prov->iwarp = rdma_protocol_iwarp(ibdev, port);
	prov->unsig_lends = ibdev->ops.driver_id == RDMA_DRIVER_SIW;
	prov->max_private_data = prov->iwarp ? KDAPL_IW_MAX_PRIVATE_DATA :
					       KDAPL_IB_MAX_PRIVATE_DATA;
	err = ib_query_port(ibdev, port, &pattr);
	if (err)
		pr_warn("%s: port %u query failed (%d), max message size 0\n",
			prov->name, port, err);
	else
		prov->max_msg_sz = pattr.max_msg_sz;
	kdapl_provider_vendor(prov);

	mutex_lock(&kdapl_providers_lock);
	if (kdapl_provider_of(ibdev)) {
		mutex_unlock(&kdapl_providers_lock);
		kdapl_provider_put(prov);
		return -EEXIST;
	}
	prov->debugfs = debugfs_create_dir(prov->name, kdapl_providers_dir);
	debugfs_create_file("cpus", 0444, prov->debugfs, prov, &cpus_fops);
	debugfs_create_file("ias", 0444, prov->debugfs, prov, &ias_fops);
	debugfs_create_file("lmrs", 0444, prov->debugfs, prov, &kdapl_lmrs_fops);
	list_add_tail(&prov->node, &kdapl_providers);
	mutex_unlock(&kdapl_providers_lock);

	pr_debug("provider %s: %s, %u CPUs\n", prov->name,
		 prov->iwarp ? "iWARP" : "IB/RoCE", prov->cpus->nr);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(kdapl_registry_add_device, KDAPL_INTERNAL);

/**
 * kdapl_registry_remove_device() - an RDMA device goes away
 * @ibdev: the device
 *
 * The ib_client's remove callback; exported for the KUnit suite. The
 * provider leaves the list (no new IA can open on it), every open IA is
 * marked dead, gives back its device resources and gets
 * DAT_ASYNC_ERROR_IA_CATASTROPHIC on its async EVD. The IAs stay open
 * until their consumers close them; the provider's memory stays until
 * then. Nothing uses @ibdev after this returns. Does nothing if @ibdev is
 * not a provider.
 *
 * Context: process context; sleeps.
 */
void kdapl_registry_remove_device(struct ib_device *ibdev)
{
	struct kdapl_provider *prov;
	unsigned int open = 0;
	struct kdapl_ia *ia;

	mutex_lock(&kdapl_providers_lock);
	prov = kdapl_provider_of(ibdev);
	if (prov) {
		list_del_init(&prov->node);
		/* Waits for readers of its files, which may take prov->lock. */
		debugfs_remove_recursive(prov->debugfs);
		prov->debugfs = NULL;
	}
	mutex_unlock(&kdapl_providers_lock);
	if (!prov)
		return;

	mutex_lock(&prov->lock);
	prov->removing = true;
	list_for_each_entry(ia, &prov->ias, node) {
		kdapl_ia_kill(ia);
		open++;
	}
	mutex_unlock(&prov->lock);

	if (open)
		pr_warn("provider %s: device removed under %u open IA(s)\n",
			prov->name, open);
	kdapl_provider_put(prov);
}
EXPORT_SYMBOL_NS_GPL(kdapl_registry_remove_device, KDAPL_INTERNAL);

static int kdapl_client_add(struct ib_device *ibdev)
{
	return kdapl_registry_add_device(ibdev);
}

static void kdapl_client_remove(struct ib_device *ibdev, void *client_data)
{
	kdapl_registry_remove_device(ibdev);
}

/* The IA name follows the device name; open IAs keep working. */
static void kdapl_client_rename(struct ib_device *ibdev, void *client_data)
{
	struct kdapl_provider *prov;
	struct dentry *d;

	mutex_lock(&kdapl_providers_lock);
	prov = kdapl_provider_of(ibdev);
	if (prov) {
		mutex_lock(&prov->lock);
		strscpy(prov->name, dev_name(&ibdev->dev), sizeof(prov->name));
		mutex_unlock(&prov->lock);
		d = debugfs_rename(kdapl_providers_dir, prov->debugfs,
				   kdapl_providers_dir, prov->name);
		if (IS_ERR(d))
			pr_warn("%s: debugfs rename failed (%ld)\n",
				prov->name, PTR_ERR(d));
	}
	mutex_unlock(&kdapl_providers_lock);
}

static struct ib_client kdapl_client = {
	.name = "kdapl",
	.add = kdapl_client_add,
	.remove = kdapl_client_remove,
	.rename = kdapl_client_rename,
};

/**
 * kdapl_registry_init() - start serving RDMA devices
 *
 * Creates /sys/kernel/debug/kdapl/providers (kdapl.debugfs must exist)
 * and registers the ib_client, which adds every device already present.
 *
 * Context: module init.
 * Return: 0, or the error of ib_register_client().
 */
int kdapl_registry_init(void)
{
	int err;

	kdapl_providers_dir = debugfs_create_dir("providers", kdapl.debugfs);
	err = ib_register_client(&kdapl_client);
	if (err) {
		debugfs_remove_recursive(kdapl_providers_dir);
		kdapl_providers_dir = NULL;
	}
	return err;
}

/**
 * kdapl_registry_exit() - stop serving RDMA devices
 *
 * Unregistering the client removes every provider. No consumer can hold
 * an IA by now: each one holds a reference on this module.
 *
 * Context: module exit.
 */
void kdapl_registry_exit(void)
{
	ib_unregister_client(&kdapl_client);
	WARN_ON(!list_empty(&kdapl_providers));
	debugfs_remove_recursive(kdapl_providers_dir);
	kdapl_providers_dir = NULL;
}

/**
 * dat_registry_list_providers() - list the registered IAs
 * @max_to_return: number of entries @dat_provider_list can hold
 * @entries_returned: set to the number of registered IAs
 * @dat_provider_list: array of @max_to_return pointers to entries the
 *	caller owns; the first min(@max_to_return, *@entries_returned) are
 *	filled
 *
 * One IA per RDMA device, named after the device. With @max_to_return 0
 * only the count is returned.
 *
 * Context: process context; sleeps.
 * Return: DAT_SUCCESS; DAT_INVALID_PARAMETER for a negative
 * @max_to_return (DAT_INVALID_ARG1), a NULL @entries_returned
 * (DAT_INVALID_ARG2), or a NULL @dat_provider_list or NULL entry among
 * those to be filled (DAT_INVALID_ARG3). Nothing is written on error.
 */
DAT_RETURN dat_registry_list_providers(DAT_COUNT max_to_return,
				       DAT_COUNT *entries_returned,
				       DAT_PROVIDER_INFO **dat_provider_list)
{
	struct kdapl_provider *prov;
	DAT_COUNT total = 0, n, i = 0;

	if (max_to_return < 0)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	if (!entries_returned)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	if (max_to_return > 0 && !dat_provider_list)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);

	mutex_lock(&kdapl_providers_lock);
	list_for_each_entry(prov, &kdapl_providers, node)
		total++;
	n = min(total, max_to_return);
	for (i = 0; i < n; i++) {
		if (!dat_provider_list[i]) {
			mutex_unlock(&kdapl_providers_lock);
			return DAT_ERROR(DAT_INVALID_PARAMETER,
					 DAT_INVALID_ARG3);
		}
	}
	i = 0;
	list_for_each_entry(prov, &kdapl_providers, node) {
		DAT_PROVIDER_INFO *info;

		if (i == n)
			break;
		info = dat_provider_list[i++];
		memset(info, 0, sizeof(*info));
		strscpy(info->ia_name, prov->name, sizeof(info->ia_name));
		info->dapl_version_major = DAT_VERSION_MAJOR;
		info->dapl_version_minor = DAT_VERSION_MINOR;
		info->is_thread_safe = DAT_THREADSAFE;
	}
	mutex_unlock(&kdapl_providers_lock);

	*entries_returned = total;
	return DAT_SUCCESS;
}
EXPORT_SYMBOL_GPL(dat_registry_list_providers);
