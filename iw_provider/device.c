// SPDX-License-Identifier: GPL-2.0
/*
 * kiwarp: the RNIC device. `rdma link add <name> type kiwarp netdev
 * <netdev>` creates one (rdma_link_ops), `rdma link delete`, the netdev's
 * unregistration and module unload remove it.
 *
 * Lifetime: ib_core owns the memory (ib_alloc_device); dealloc_driver
 * (kiwarp_dealloc_driver) runs inside ib_core's unregistration, after
 * every client (rdma_cm, iw_cm, ULPs) let go of the device, and takes
 * the device off kiwarp_devices.
 *
 * debugfs: /sys/kernel/debug/kiwarp/<device>/
 *   info   netdev, GID, node GUID, object counts
 *   qps    one line per QP: number, state, TCP 4-tuple, MPA revision,
 *          CRC, IRD/ORD, bytes and FPDUs each way, terminates, errors
 */

#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <rdma/rdma_netlink.h>

#include "kiwarp.h"

/*
 * Every registered kiwarp device, for the netdev notifier and module
 * exit. Protected by kiwarp_devices_lock (may be taken under RTNL by
 * the notifier; never held across ib_core registration calls).
 */
static LIST_HEAD(kiwarp_devices);
static DEFINE_MUTEX(kiwarp_devices_lock);

/*
 * Serialises kiwarp_newlink() from its check for a device on the netdev
 * to the device being on kiwarp_devices, so that two `rdma link add`
 * on one netdev cannot both register. Held across ib_core registration;
 * nothing registration or the netdev notifier calls takes it.
 */
static DEFINE_MUTEX(kiwarp_newlink_lock);

/*
 * Test hook: widen the window between a device's registration and its
 * netdev check (kiwarp_newlink_locked()) to this many ms, so that the
 * stress suite's deletion of the netdev lands in it every time.
 */
static unsigned int kiwarp_test_newlink_delay_ms;
module_param_named(test_newlink_delay_ms, kiwarp_test_newlink_delay_ms,
		   uint, 0644);
MODULE_PARM_DESC(test_newlink_delay_ms, "test hook: wait this long (ms) after registering a device before checking its netdev (default 0)");

static int kiwarp_query_device(struct ib_device *ibdev,
			       struct ib_device_attr *attr,
			       struct ib_udata *udata)
{
	struct kiwarp_dev *kdev = to_kdev(ibdev);

	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;
	memset(attr, 0, sizeof(*attr));
	attr->vendor_id = 0;
	attr->max_mr_size = ~0ULL;
	attr->page_size_cap = PAGE_SIZE;
	attr->max_qp = KIWARP_MAX_QP;
	attr->max_qp_wr = KIWARP_MAX_QP_WR;
	attr->device_cap_flags = IB_DEVICE_MEM_MGT_EXTENSIONS;
	attr->kernel_cap_flags = IBK_LOCAL_DMA_LKEY | IBK_ALLOW_USER_UNREG;
	attr->max_send_sge = KIWARP_MAX_SGE;
	attr->max_recv_sge = KIWARP_MAX_SGE;
	attr->max_sge_rd = KIWARP_MAX_SGE_RD;
	attr->max_cq = KIWARP_MAX_CQ;
	attr->max_cqe = KIWARP_MAX_CQE;
	attr->max_mr = KIWARP_MAX_MR;
	attr->max_pd = KIWARP_MAX_PD;
	attr->max_qp_rd_atom = KIWARP_MAX_IRD;
	attr->max_qp_init_rd_atom = KIWARP_MAX_ORD;
	attr->max_res_rd_atom = KIWARP_MAX_QP * KIWARP_MAX_IRD;
	attr->max_fast_reg_page_list_len = KIWARP_MAX_FRMR_PAGES;
	attr->max_pkeys = 1;
	addrconf_addr_eui48((u8 *)&attr->sys_image_guid,
			    kdev->netdev->dev_addr);
	return 0;
}

static int kiwarp_query_port(struct ib_device *ibdev, u32 port,
			     struct ib_port_attr *attr)
{
	struct net_device *nd = to_kdev(ibdev)->netdev;
	bool up = netif_running(nd) && netif_carrier_ok(nd);

	memset(attr, 0, sizeof(*attr));
	ib_get_eth_speed(ibdev, port, &attr->active_speed,
			 &attr->active_width);
	attr->gid_tbl_len = 1;
	attr->max_msg_sz = 0x80000000U;
	attr->max_mtu = ib_mtu_int_to_enum(READ_ONCE(nd->mtu));
	attr->active_mtu = attr->max_mtu;
	attr->state = up ? IB_PORT_ACTIVE : IB_PORT_DOWN;
	attr->phys_state = up ? IB_PORT_PHYS_STATE_LINK_UP :
				IB_PORT_PHYS_STATE_DISABLED;
	attr->port_cap_flags = IB_PORT_CM_SUP | IB_PORT_DEVICE_MGMT_SUP;
	return 0;
}

static int kiwarp_get_port_immutable(struct ib_device *ibdev, u32 port,
				     struct ib_port_immutable *imm)
{
	imm->gid_tbl_len = 1;
	imm->core_cap_flags = RDMA_CORE_PORT_IWARP;
	return 0;
}

/* The one GID is the netdev's MAC address, as siw and iw_cm expect */
static int kiwarp_query_gid(struct ib_device *ibdev, u32 port, int idx,
			    union ib_gid *gid)
{
	struct net_device *nd = to_kdev(ibdev)->netdev;

	if (idx)
		return -EINVAL;
	memset(gid, 0, sizeof(*gid));
	memcpy(gid->raw, nd->dev_addr, min_t(unsigned int, nd->addr_len,
					     ETH_ALEN));
	return 0;
}

static int info_show(struct seq_file *m, void *v)
{
	struct kiwarp_dev *kdev = m->private;

	seq_printf(m, "netdev %s mac %pM\n", netdev_name(kdev->netdev),
		   kdev->netdev->dev_addr);
	seq_printf(m, "pds %d cqs %d qps %d mrs %d comp_vectors %d\n",
		   atomic_read(&kdev->num_pd), atomic_read(&kdev->num_cq),
		   atomic_read(&kdev->num_qp), atomic_read(&kdev->num_mr),
		   kdev->ibdev.num_comp_vectors);
	seq_printf(m, "requests_dropped %lld\n",
		   atomic64_read(&kdev->cr_dropped));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(info);

static int qps_show(struct seq_file *m, void *v)
{
	struct kiwarp_dev *kdev = m->private;
	struct kiwarp_qp *qp;
	unsigned long idx;

	/* Under the xarray lock: an indexed QP is not yet being freed */
	xa_lock(&kdev->qp_xa);
	xa_for_each(&kdev->qp_xa, idx, qp)
		kiwarp_qp_debugfs_show(m, qp);
	xa_unlock(&kdev->qp_xa);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(qps);

static void kiwarp_dealloc_driver(struct ib_device *ibdev)
{
	struct kiwarp_dev *kdev = to_kdev(ibdev);

	mutex_lock(&kiwarp_devices_lock);
	list_del_init(&kdev->list);
	mutex_unlock(&kiwarp_devices_lock);
	debugfs_remove_recursive(kdev->debugfs);
	WARN_ON(!xa_empty(&kdev->qp_xa));
	WARN_ON(!xa_empty(&kdev->mr_xa));
	WARN_ON(!list_empty(&kdev->stats_qps));
	xa_destroy(&kdev->qp_xa);
	xa_destroy(&kdev->mr_xa);
}

static const struct ib_device_ops kiwarp_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = 0,

	.alloc_mr = kiwarp_alloc_mr,
	.alloc_pd = kiwarp_alloc_pd,
	.create_cq = kiwarp_create_cq,
	.create_qp = kiwarp_create_qp,
	.dealloc_driver = kiwarp_dealloc_driver,
	.dealloc_pd = kiwarp_dealloc_pd,
	.dereg_mr = kiwarp_dereg_mr,
	.destroy_cq = kiwarp_destroy_cq,
	.destroy_qp = kiwarp_destroy_qp,
	.get_dma_mr = kiwarp_get_dma_mr,
	.get_port_immutable = kiwarp_get_port_immutable,
	.iw_accept = kiwarp_cm_accept,
	.iw_add_ref = kiwarp_iw_add_ref,
	.iw_connect = kiwarp_cm_connect,
	.iw_create_listen = kiwarp_cm_create_listen,
	.iw_destroy_listen = kiwarp_cm_destroy_listen,
	.iw_get_qp = kiwarp_iw_get_qp,
	.iw_reject = kiwarp_cm_reject,
	.iw_rem_ref = kiwarp_iw_rem_ref,
	.map_mr_sg = kiwarp_map_mr_sg,
	.modify_qp = kiwarp_modify_qp,
	.poll_cq = kiwarp_poll_cq,
	.post_recv = kiwarp_post_recv,
	.post_send = kiwarp_post_send,
	.query_device = kiwarp_query_device,
	.query_gid = kiwarp_query_gid,
	.query_port = kiwarp_query_port,
	.query_qp = kiwarp_query_qp,
	.reg_user_mr = kiwarp_reg_user_mr,
	.req_notify_cq = kiwarp_req_notify_cq,

	INIT_RDMA_OBJ_SIZE(ib_cq, kiwarp_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_pd, kiwarp_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, kiwarp_qp, ibqp),
};

static bool kiwarp_netdev_ok(struct net_device *nd)
{
	return nd->type == ARPHRD_ETHER && nd->addr_len == ETH_ALEN;
}

static int kiwarp_newlink_locked(const char *name, struct net_device *netdev)
{
	struct kiwarp_dev *kdev, *it;
	struct ib_device *ibdev;
	bool gone;
	int ret;

	lockdep_assert_held(&kiwarp_newlink_lock);
	mutex_lock(&kiwarp_devices_lock);
	list_for_each_entry(it, &kiwarp_devices, list) {
		if (it->netdev == netdev) {
			mutex_unlock(&kiwarp_devices_lock);
			return -EEXIST;
		}
	}
	mutex_unlock(&kiwarp_devices_lock);

	kdev = ib_alloc_device(kiwarp_dev, ibdev);
	if (!kdev)
		return -ENOMEM;
	ibdev = &kdev->ibdev;
	kdev->netdev = netdev;
	INIT_LIST_HEAD(&kdev->list);
	xa_init_flags(&kdev->qp_xa, XA_FLAGS_ALLOC1);
	xa_init_flags(&kdev->mr_xa, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	atomic_set(&kdev->num_pd, 0);
	atomic_set(&kdev->num_cq, 0);
	atomic_set(&kdev->num_qp, 0);
	atomic_set(&kdev->num_mr, 0);
	kiwarp_stats_init(kdev);

	ibdev->node_type = RDMA_NODE_RNIC;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = num_online_cpus();
	ibdev->local_dma_lkey = 0;
	strscpy(ibdev->node_desc, KIWARP_NODE_DESC, sizeof(ibdev->node_desc));
	addrconf_addr_eui48((u8 *)&ibdev->node_guid, netdev->dev_addr);
	memcpy(ibdev->iw_ifname, netdev->name, sizeof(ibdev->iw_ifname));
	ibdev->iw_driver_flags = IW_F_NO_PORT_MAP;
	ib_set_device_ops(ibdev, &kiwarp_dev_ops);
	ib_set_device_ops(ibdev, &kiwarp_stats_ops);

	ret = ib_device_set_netdev(ibdev, netdev, 1);
	if (ret)
		goto out_dealloc;
	ret = ib_register_device(ibdev, name, NULL);
	if (ret)
		goto out_dealloc;

	kdev->debugfs = debugfs_create_dir(dev_name(&ibdev->dev),
					   kiwarp_debugfs_root);
	debugfs_create_file("info", 0444, kdev->debugfs, kdev, &info_fops);
	debugfs_create_file("qps", 0444, kdev->debugfs, kdev, &qps_fops);

	/*
	 * The netdev may have gone while we registered: its NETDEV_UNREGISTER
	 * notifier, which finds devices on kiwarp_devices, missed us, and
	 * the new device would be reported as added on a netdev already
	 * being removed (until the netdev core's rebroadcast of the event,
	 * while it waits for ib_core's reference, finds it a second later).
	 * Under RTNL the notifier does not run: a netdev still registered
	 * will have it find us; one that is not had it already.
	 */
	if (kiwarp_test_newlink_delay_ms)
		msleep(min(kiwarp_test_newlink_delay_ms, 10000U));
	rtnl_lock();
	mutex_lock(&kiwarp_devices_lock);
	list_add_tail(&kdev->list, &kiwarp_devices);
	mutex_unlock(&kiwarp_devices_lock);
	gone = netdev->reg_state != NETREG_REGISTERED;
	rtnl_unlock();
	if (gone) {
		dev_info(&ibdev->dev, "kiwarp: netdev gone while registering\n");
		ib_unregister_device_queued(ibdev);
		return -ENODEV;
	}
	dev_info(&ibdev->dev, "kiwarp RNIC on %s\n", netdev_name(netdev));
	return 0;

out_dealloc:
	xa_destroy(&kdev->qp_xa);
	xa_destroy(&kdev->mr_xa);
	ib_dealloc_device(ibdev);
	return ret;
}

/**
 * kiwarp_newlink() - create and register an RNIC on @netdev.
 * @name: the ib_device name (from `rdma link add <name>`)
 * @netdev: the network device it serves (IPv4 addresses only)
 *
 * Context: process; takes kiwarp_newlink_lock, kiwarp_devices_lock.
 * Return: 0, -EINVAL for an unsuitable netdev, -EEXIST if @netdev has a
 * kiwarp device already, or an ib_core error.
 */
int kiwarp_newlink(const char *name, struct net_device *netdev)
{
	int ret;

	if (!kiwarp_netdev_ok(netdev))
		return -EINVAL;
	mutex_lock(&kiwarp_newlink_lock);
	ret = kiwarp_newlink_locked(name, netdev);
	mutex_unlock(&kiwarp_newlink_lock);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(kiwarp_newlink, KIWARP_INTERNAL);

static struct rdma_link_ops kiwarp_link_ops = {
	.type = "kiwarp",
	.newlink = kiwarp_newlink,
};

/* Called under RTNL: only queues work, never waits for ib_core. */
static int kiwarp_netdev_event(struct notifier_block *nb,
			       unsigned long event, void *arg)
{
	struct net_device *nd = netdev_notifier_info_to_dev(arg);
	struct kiwarp_dev *kdev;
	struct ib_event ev;

	mutex_lock(&kiwarp_devices_lock);
	list_for_each_entry(kdev, &kiwarp_devices, list) {
		if (kdev->netdev != nd)
			continue;
		switch (event) {
		case NETDEV_UNREGISTER:
			ib_unregister_device_queued(&kdev->ibdev);
			break;
		case NETDEV_UP:
		case NETDEV_DOWN:
			ev.device = &kdev->ibdev;
			ev.element.port_num = 1;
			ev.event = event == NETDEV_UP ? IB_EVENT_PORT_ACTIVE :
							IB_EVENT_PORT_ERR;
			ib_dispatch_event(&ev);
			break;
		default:
			break;
		}
	}
	mutex_unlock(&kiwarp_devices_lock);
	return NOTIFY_OK;
}

static struct notifier_block kiwarp_netdev_nb = {
	.notifier_call = kiwarp_netdev_event,
};

int kiwarp_device_init(void)
{
	int ret = register_netdevice_notifier(&kiwarp_netdev_nb);

	if (ret)
		return ret;
	rdma_link_register(&kiwarp_link_ops);
	return 0;
}

/*
 * Module exit: no new links, then unregister every device. A device
 * whose unregistration is already under way (netdev notifier, `rdma
 * link delete`) is waited for by ib_unregister_device(), which returns
 * only once dealloc_driver has taken it off the list.
 */
void kiwarp_device_exit(void)
{
	struct kiwarp_dev *kdev;

	rdma_link_unregister(&kiwarp_link_ops);
	unregister_netdevice_notifier(&kiwarp_netdev_nb);
	for (;;) {
		mutex_lock(&kiwarp_devices_lock);
		kdev = list_first_entry_or_null(&kiwarp_devices,
						struct kiwarp_dev, list);
		if (kdev)
			get_device(&kdev->ibdev.dev);
		mutex_unlock(&kiwarp_devices_lock);
		if (!kdev)
			break;
		ib_unregister_device(&kdev->ibdev);
		put_device(&kdev->ibdev.dev);
	}
}
