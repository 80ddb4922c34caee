// SPDX-License-Identifier: GPL-2.0
/*
 * Interface adapters: dat_ia_openv, dat_ia_query, dat_ia_close, and the
 * helpers the other objects use to hang off an IA.
 *
 * An IA is opened on a provider (one RDMA device, registry.c). It owns an
 * asynchronous EVD - one it creates, or the consumer's - and counts its
 * children (PZs, EVDs, ...), each of which holds a reference on it. The
 * IA's own async EVD is a child too; a graceful close is refused while
 * any other child is left. An abrupt close destroys the children the IA
 * keeps a list of (today: its PZs, with their LMRs).
 *
 * When the device goes away the IA is marked dead (kdapl_ia_kill()):
 * every later call on it or its children answers DAT_INVALID_STATE,
 * except dat_ia_close() and the dat_*_free() calls, which still work.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/export.h>
#include <linux/inetdevice.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/addrconf.h>
#include <net/if_inet6.h>
#include <net/net_namespace.h>
#include <dat2/dat_iw_extensions.h>

#include "evd.h"
#include "registry.h"
#include "ep.h"

/**
 * kdapl_ia_get() - a counted reference on the IA of a handle
 * @handle: the consumer's IA handle
 *
 * Context: any context.
 * Return: the IA, or NULL for a NULL, stale or non-IA handle.
 */
struct kdapl_ia *kdapl_ia_get(DAT_IA_HANDLE handle)
{
	struct kdapl_obj *o = kdapl_obj_get(handle, KDAPL_HT_IA);

	return o ? container_of(o, struct kdapl_ia, base) : NULL;
}

/**
 * kdapl_ia_child_get() - may a new child be created on this IA
 * @ia: the IA; the caller holds @ia->lock
 *
 * On success the child is counted in @ia->children and holds a new
 * reference on @ia; when its handle is freed the child calls
 * kdapl_ia_child_gone(), and its release drops the reference with
 * kdapl_obj_put(&ia->base).
 *
 * Context: process context, @ia->lock held.
 * Return: DAT_SUCCESS; DAT_INVALID_STATE if the device went away;
 * DAT_INVALID_HANDLE (DAT_INVALID_HANDLE_IA) while the IA is not open
 * (being opened or closed).
 */
DAT_RETURN kdapl_ia_child_get(struct kdapl_ia *ia)
{
	lockdep_assert_held(&ia->lock);
	if (ia->dead)
		return DAT_ERROR(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
	if (ia->state != KDAPL_IA_OPEN)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	atomic_inc(&ia->children);
	kdapl_hobj_ref(&ia->base.hobj);
	return DAT_SUCCESS;
}

/**
 * kdapl_ia_child_gone() - a child's handle was freed
 * @ia: its IA
 *
 * Context: any context.
 */
void kdapl_ia_child_gone(struct kdapl_ia *ia)
{
	WARN_ON_ONCE(atomic_dec_return(&ia->children) < 0);
}

static void kdapl_ia_release(struct kdapl_hobj *h)
{
	struct kdapl_ia *ia = container_of(h, struct kdapl_ia, base.hobj);

	/* The IA's reference on its async EVD, kept until now: see close. */
	if (ia->async_evd)
		kdapl_obj_put(&ia->async_evd->base);
	kdapl_provider_put(ia->prov);
	mutex_destroy(&ia->lock);
	kfree_rcu(ia, base.hobj.rcu);	/* handle lookups run under RCU */
}

/**
 * kdapl_ia_release_device() - give back everything an IA holds of its device
 * @ia: the IA, dead or closing
 *
 * In dependency order: connections and QPs (endpoints), listens and
 * requests (service points, CRs), completion queues (DTO EVDs), then the
 * protection domains. The objects stay, without device resources, until
 * they are freed.
 *
 * Context: process context, @ia->lock held.
 */
void kdapl_ia_release_device(struct kdapl_ia *ia)
{
	struct kdapl_sp *sp;
	struct kdapl_cr *cr;
	struct kdapl_ep *ep;
	struct kdapl_pz *pz;

	lockdep_assert_held(&ia->lock);
	list_for_each_entry(cr, &ia->crs, node)
		kdapl_cr_teardown(cr);
	list_for_each_entry(sp, &ia->sps, node)
		kdapl_sp_teardown(sp);
	list_for_each_entry(ep, &ia->eps, node)
		kdapl_ep_release_device(ep);
	kdapl_evd_release_ia(ia);
	list_for_each_entry(pz, &ia->pzs, node)
		kdapl_pz_release_device(pz);
}

/**
 * kdapl_ia_kill() - the IA's device is going away
 * @ia: an IA on its provider's list
 *
 * Marks @ia dead, gives back the device resources it holds (its PZs'
 * protection domains) and posts DAT_ASYNC_ERROR_IA_CATASTROPHIC on its
 * async EVD. The IA stays until the consumer closes it.
 *
 * Context: process context; the caller (the registry's remove) holds the
 * provider's lock.
 */
void kdapl_ia_kill(struct kdapl_ia *ia)
{
	DAT_EVENT ev = { .event_number = DAT_ASYNC_ERROR_IA_CATASTROPHIC };

	lockdep_assert_held(&ia->prov->lock);

	mutex_lock(&ia->lock);
	WRITE_ONCE(ia->dead, true);
	kdapl_ia_release_device(ia);
	mutex_unlock(&ia->lock);

	ev.event_data.asynch_error_event_data.dat_handle =
		kdapl_obj_handle(&ia->base);
	ev.event_data.asynch_error_event_data.reason =
		DAT_IA_CATASTROPHIC_ERROR;
	if (kdapl_evd_post(ia->async_evd, &ev) != DAT_SUCCESS)
		pr_warn("%s: IA %#lx: async EVD full, catastrophic error lost\n",
			ia->prov->name,
			(unsigned long)kdapl_obj_handle(&ia->base));
}

/*
 * Give up the IA's use of its async EVD: destroy it if the IA created it,
 * else let the consumer free it again. The IA's reference (and so the
 * memory) stays until the IA is released: an EVD of this IA may still
 * look at ia->async_evd to report an overflow.
 */
static void kdapl_ia_drop_async_evd(struct kdapl_ia *ia)
{
	if (ia->own_async_evd)
		kdapl_evd_destroy(ia->async_evd);
	else
		atomic_dec(&ia->async_evd->users);
}

/**
 * dat_ia_openv() - open an interface adapter, checking the DAT version
 * @name: IA name, as listed by dat_registry_list_providers(): the RDMA
 *	device name, e.g. "siwA"
 * @async_evd_qlen: queue length of the asynchronous EVD the IA creates;
 *	ignored when the consumer passes its own EVD
 * @async_evd_handle: in: DAT_HANDLE_NULL to have the IA create its
 *	asynchronous EVD, or an EVD created with DAT_EVD_ASYNC_FLAG; out:
 *	the EVD the IA created
 * @ia_handle: set to the new IA handle
 * @dapl_major: DAT major version the consumer was built for (2)
 * @dapl_minor: DAT minor version the consumer was built for (0)
 * @thread_safety: whether the consumer needs a thread-safe provider; kdapl
 *	is thread safe, so both DAT_TRUE and DAT_FALSE are served
 *
 * A consumer's EVD stays the consumer's: the IA only keeps it from being
 * freed until the IA is closed.
 *
 * Context: process context; sleeps.
 * Return: DAT_SUCCESS; DAT_INVALID_PARAMETER (NULL @name: DAT_INVALID_ARG1;
 * @async_evd_qlen not positive or too large when the IA creates the EVD:
 * DAT_INVALID_ARG2; NULL @async_evd_handle: DAT_INVALID_ARG3; NULL
 * @ia_handle: DAT_INVALID_ARG4; @thread_safety not a DAT_BOOLEAN:
 * DAT_INVALID_ARG7); DAT_PROVIDER_NOT_FOUND (DAT_NAME_NOT_REGISTERED,
 * DAT_MAJOR_NOT_FOUND, DAT_MINOR_NOT_FOUND); DAT_INVALID_HANDLE
 * (DAT_INVALID_HANDLE_EVD_ASYNC) for a consumer EVD that is not an
 * asynchronous EVD; DAT_INSUFFICIENT_RESOURCES.
 */
DAT_RETURN dat_ia_openv(const DAT_NAME_PTR name, DAT_COUNT async_evd_qlen,
			DAT_EVD_HANDLE *async_evd_handle,
			DAT_IA_HANDLE *ia_handle, DAT_UINT32 dapl_major,
			DAT_UINT32 dapl_minor, DAT_BOOLEAN thread_safety)
{
	struct kdapl_provider *prov;
	struct kdapl_evd *evd;
	struct kdapl_ia *ia;
	unsigned long flags;
	bool async;
	DAT_RETURN ret;

	if (!name)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1);
	if (!async_evd_handle)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	if (!ia_handle)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	if (thread_safety != DAT_TRUE && thread_safety != DAT_FALSE)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG7);
	if (*async_evd_handle == DAT_HANDLE_NULL && async_evd_qlen <= 0)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);

	if (strnlen(name, DAT_NAME_MAX_LENGTH) == DAT_NAME_MAX_LENGTH)
		return DAT_ERROR(DAT_PROVIDER_NOT_FOUND,
				 DAT_NAME_NOT_REGISTERED);
	prov = kdapl_provider_find(name);
	if (!prov)
		return DAT_ERROR(DAT_PROVIDER_NOT_FOUND,
				 DAT_NAME_NOT_REGISTERED);
	if (dapl_major != DAT_VERSION_MAJOR) {
		ret = DAT_ERROR(DAT_PROVIDER_NOT_FOUND, DAT_MAJOR_NOT_FOUND);
		goto put_prov;
	}
	if (dapl_minor > DAT_VERSION_MINOR) {
		ret = DAT_ERROR(DAT_PROVIDER_NOT_FOUND, DAT_MINOR_NOT_FOUND);
		goto put_prov;
	}

	ia = kzalloc(sizeof(*ia), GFP_KERNEL);
	if (!ia) {
		ret = DAT_ERROR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
		goto put_prov;
	}
	spin_lock_init(&ia->base.ctx_lock);
	mutex_init(&ia->lock);
	INIT_LIST_HEAD(&ia->node);
	INIT_LIST_HEAD(&ia->pzs);
	INIT_LIST_HEAD(&ia->eps);
	INIT_LIST_HEAD(&ia->sps);
	INIT_LIST_HEAD(&ia->crs);
	atomic_set(&ia->children, 0);
	ia->prov = prov;		/* the IA now owns this reference */
	ia->cpus = prov->cpus;
	ia->state = KDAPL_IA_OPENING;
	ia->addr.ss_family = AF_UNSPEC;

	/* The handle first: the EVD takes a reference on the IA. */
	if (kdapl_hobj_add(&kdapl.handles, &ia->base.hobj, KDAPL_HT_IA,
			   kdapl_ia_release, GFP_KERNEL)) {
		mutex_destroy(&ia->lock);
		kfree(ia);
		ret = DAT_ERROR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
		goto put_prov;
	}

	if (*async_evd_handle == DAT_HANDLE_NULL) {
		ret = kdapl_evd_create(ia, prov->cpus, async_evd_qlen,
				       DAT_UPCALL_DISABLE, NULL,
				       DAT_EVD_ASYNC_FLAG, &evd);
		if (ret != DAT_SUCCESS) {
			if (DAT_GET_TYPE(ret) == DAT_INVALID_PARAMETER)
				ret = DAT_ERROR(DAT_INVALID_PARAMETER,
						DAT_INVALID_ARG2);
			goto remove_ia;
		}
		/* The IA's reference; the creator's goes with destroy. */
		kdapl_hobj_ref(&evd->base.hobj);
		ia->own_async_evd = true;
	} else {
		evd = kdapl_evd_get(*async_evd_handle);
		if (!evd) {
			ret = DAT_ERROR(DAT_INVALID_HANDLE,
					DAT_INVALID_HANDLE_EVD_ASYNC);
			goto remove_ia;
		}
		spin_lock_irqsave(&evd->lock, flags);
		async = evd->flags & DAT_EVD_ASYNC_FLAG;
		spin_unlock_irqrestore(&evd->lock, flags);
		if (!async) {
			kdapl_obj_put(&evd->base);
			ret = DAT_ERROR(DAT_INVALID_HANDLE,
					DAT_INVALID_HANDLE_EVD_ASYNC);
			goto remove_ia;
		}
		/* freed since the lookup: as if never valid */
		if (!kdapl_evd_use(evd)) {
			kdapl_obj_put(&evd->base);
			ret = DAT_ERROR(DAT_INVALID_HANDLE,
					DAT_INVALID_HANDLE_EVD_ASYNC);
			goto remove_ia;
		}
		/* The lookup reference becomes the IA's. */
	}
	WRITE_ONCE(ia->async_evd, evd);

	mutex_lock(&prov->lock);
	if (prov->removing) {
		mutex_unlock(&prov->lock);
		ret = DAT_ERROR(DAT_PROVIDER_NOT_FOUND, DAT_NAME_NOT_REGISTERED);
		goto drop_evd;
	}
	mutex_lock(&ia->lock);
	/* Nothing but the open itself can have made children so far. */
	ia->own_children = atomic_read(&ia->children);
	ia->state = KDAPL_IA_OPEN;
	mutex_unlock(&ia->lock);
	list_add_tail(&ia->node, &prov->ias);
	mutex_unlock(&prov->lock);

	if (ia->own_async_evd)
		*async_evd_handle = kdapl_obj_handle(&evd->base);
	*ia_handle = kdapl_obj_handle(&ia->base);
	return DAT_SUCCESS;

drop_evd:
	kdapl_ia_drop_async_evd(ia);
remove_ia:
	/* The release drops the provider and async EVD references. */
	if (kdapl_hobj_remove(&kdapl.handles, &ia->base.hobj))
		kdapl_obj_put(&ia->base);
	return ret;

put_prov:
	kdapl_provider_put(prov);
	return ret;
}
EXPORT_SYMBOL_GPL(dat_ia_openv);

/* IA address: IPv4 first, else IPv6 (global before link-local). */
static bool kdapl_netdev_addr(struct net_device *ndev,
			      struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	const struct in_ifaddr *ifa;
	struct inet6_ifaddr *ifp, *found = NULL;
	struct in_device *in_dev;
	struct inet6_dev *idev;

	in_dev = __in_dev_get_rcu(ndev);
	if (in_dev) {
		in_dev_for_each_ifa_rcu(ifa, in_dev) {
			memset(sin, 0, sizeof(*sin));
			sin->sin_family = AF_INET;
			sin->sin_addr.s_addr = ifa->ifa_local;
			return true;
		}
	}

	idev = __in6_dev_get(ndev);
	if (!idev)
		return false;
	read_lock_bh(&idev->lock);
	list_for_each_entry(ifp, &idev->addr_list, if_list) {
		if (ifp->flags & (IFA_F_TENTATIVE | IFA_F_DADFAILED))
			continue;
		if (!found || (found->scope & IFA_LINK && !(ifp->scope & IFA_LINK)))
			found = ifp;
	}
	if (found) {
		memset(sin6, 0, sizeof(*sin6));
		sin6->sin6_family = AF_INET6;
		sin6->sin6_addr = found->addr;
		if (found->scope & IFA_LINK)
			sin6->sin6_scope_id = ndev->ifindex;
	}
	read_unlock_bh(&idev->lock);
	return found;
}

/*
 * The address of the provider's device: that of its netdev, found in
 * whichever network namespace it lives in. AF_UNSPEC if it has none.
 * Caller holds prov->lock with prov->removing false.
 */
static void kdapl_provider_addr(struct kdapl_provider *prov,
				struct sockaddr_storage *ss, struct net **netp)
{
	struct net_device *ndev;
	struct ib_device *dev;
	struct net *net;
	bool match;

	lockdep_assert_held(&prov->lock);
	memset(ss, 0, sizeof(*ss));
	ss->ss_family = AF_UNSPEC;

	rcu_read_lock();
	for_each_net_rcu(net) {
		for_each_netdev_rcu(net, ndev) {
			dev = ib_device_get_by_netdev(ndev, RDMA_DRIVER_UNKNOWN);
			if (!dev)
				continue;
			match = dev == prov->ibdev;
			ib_device_put(dev);
			if (match && kdapl_netdev_addr(ndev, ss)) {
				if (netp)
					*netp = get_net(net);
				goto out;
			}
		}
	}
out:
	rcu_read_unlock();
}

/**
 * kdapl_ia_net() - the network namespace and address of an IA's device
 * @ia: the IA
 * @ss: set to the IA's address (see dat_ia_query())
 *
 * Return: the namespace of the device's netdev, referenced (put_net()),
 * or NULL if the device is gone or has no address.
 * Context: process context; takes the provider's and the IA's lock.
 */
struct net *kdapl_ia_net(struct kdapl_ia *ia, struct sockaddr_storage *ss)
{
	struct kdapl_provider *prov = ia->prov;
	struct net *net = NULL;

	mutex_lock(&prov->lock);
	if (!prov->removing && !READ_ONCE(ia->dead))
		kdapl_provider_addr(prov, ss, &net);
	mutex_unlock(&prov->lock);
	return net;
}

/* Set @field from @val if @bit is in @mask. */
#define KDAPL_SET(mask, bit, field, val)		\
	do {						\
		if ((mask) & (bit))			\
			(field) = (val);		\
	} while (0)

static DAT_COUNT kdapl_count(int v)
{
	return max(v, 0);
}

/* Caller holds prov->lock (device alive) and ia->lock (for ia->addr). */
static void kdapl_ia_fill_attr(struct kdapl_ia *ia, DAT_IA_ATTR_MASK m,
			       DAT_IA_ATTR *a)
{
	struct kdapl_provider *prov = ia->prov;
	bool iw = false;
	const struct ib_device_attr *d = &prov->attrs;

	if (m & DAT_IA_FIELD_IA_ADAPTER_NAME)
		strscpy(a->adapter_name, prov->name, sizeof(a->adapter_name));
	if (m & DAT_IA_FIELD_IA_VENDOR_NAME)
		strscpy(a->vendor_name, prov->vendor, sizeof(a->vendor_name));
	KDAPL_SET(m, DAT_IA_FIELD_IA_HARDWARE_MAJOR_VERSION,
		  a->hardware_version_major, d->hw_ver);
	KDAPL_SET(m, DAT_IA_FIELD_IA_HARDWARE_MINOR_VERSION,
		  a->hardware_version_minor, 0);
	KDAPL_SET(m, DAT_IA_FIELD_IA_FIRMWARE_MAJOR_VERSION,
		  a->firmware_version_major, upper_32_bits(d->fw_ver));
	KDAPL_SET(m, DAT_IA_FIELD_IA_FIRMWARE_MINOR_VERSION,
		  a->firmware_version_minor, lower_32_bits(d->fw_ver));
	if (m & DAT_IA_FIELD_IA_ADDRESS_PTR) {
		kdapl_provider_addr(prov, &ia->addr, NULL);
		a->ia_address_ptr = (struct sockaddr *)&ia->addr;
	}
	KDAPL_SET(m, DAT_IA_FIELD_IA_MAX_EPS, a->max_eps,
		  kdapl_count(d->max_qp));
	KDAPL_SET(m, DAT_IA_FIELD_IA_MAX_DTO_PER_EP, a->max_dto_per_ep,
		  kdapl_count(d->max_qp_wr));
	KDAPL_SET(m, DAT_IA_FIELD_IA_MAX_RDMA_READ_PER_EP_IN,
		  a->max_rdma_read_per_ep_in, kdapl_count(d->max_qp_rd_atom));
	KDAPL_SET(m, DAT_IA_FIELD_IA_MAX_RDMA_READ_PER_EP_OUT,
		  a->max_rdma_read_per_ep_out,
		  kdapl_count(d->max_qp_init_rd_atom));
	KDAPL_SET(m, DAT_IA_FIELD_IA_MAX_EVDS, a->max_evds,
		  kdapl_count(d->max_cq));
	KDAPL_SET(m, DAT_IA_FIELD_IA_MAX_EVD_QLEN, a->max_evd_qlen,
		  kdapl_count(d->max_cqe));
	KDAPL_SET(m, DAT_IA_FIELD_IA_MAX_IOV_SEGMENTS_PER_DTO,
		  a->max_iov_segments_per_dto,
		  kdapl_count(min(d->max_send_sge, d->max_recv_sge)));
	KDAPL_SET(m, DAT_IA_FIELD_IA_MAX_LMRS, a->max_lmrs,
		  kdapl_count(d->max_mr));
	KDAPL_SET(m, DAT_IA_FIELD_IA_MAX_LMR_BLOCK_SIZE, a->max_lmr_block_size,
		  (DAT_SEG_LENGTH)min_t(u64, d->max_mr_size, U32_MAX));
	KDAPL_SET(m, DAT_IA_FIELD_IA_MAX_LMR_VIRTUAL_ADDRESS,
		  a->max_lmr_virtual_address, U64_MAX);
	KDAPL_SET(m, DAT_IA_FIELD_IA_MAX_PZS, a->max_pzs,
		  kdapl_count(d->max_pd));
	KDAPL_SET(m, DAT_IA_FIELD_IA_MAX_MESSAGE_SIZE, a->max_message_size,
		  prov->max_msg_sz);
	KDAPL_SET(m, DAT_IA_FIELD_IA_MAX_RDMA_SIZE, a->max_rdma_size,
		  prov->max_msg_sz);
	/* No memory windows for kernel consumers in ib_core (rmr.c). */
	KDAPL_SET(m, DAT_IA_FIELD_IA_MAX_RMRS, a->max_rmrs, 0);
	KDAPL_SET(m, DAT_IA_FIELD_IA_MAX_RMR_TARGET_ADDRESS,
		  a->max_rmr_target_address, U64_MAX);
	KDAPL_SET(m, DAT_IA_FIELD_IA_MAX_SRQS, a->max_srqs,
		  kdapl_count(d->max_srq));
	KDAPL_SET(m, DAT_IA_FIELD_IA_MAX_EP_PER_SRQ, a->max_ep_per_srq,
		  d->max_srq > 0 ? kdapl_count(d->max_qp) : 0);
	KDAPL_SET(m, DAT_IA_FIELD_IA_MAX_RECV_PER_SRQ, a->max_recv_per_srq,
		  kdapl_count(d->max_srq_wr));
	KDAPL_SET(m, DAT_IA_FIELD_IA_MAX_IOV_SEGMENTS_PER_RDMA_READ,
		  a->max_iov_segments_per_rdma_read, kdapl_count(d->max_sge_rd));
	KDAPL_SET(m, DAT_IA_FIELD_IA_MAX_IOV_SEGMENTS_PER_RDMA_WRITE,
		  a->max_iov_segments_per_rdma_write,
		  kdapl_count(d->max_send_sge));
	KDAPL_SET(m, DAT_IA_FIELD_IA_MAX_RDMA_READ_IN, a->max_rdma_read_in,
		  kdapl_count(d->max_res_rd_atom));
	KDAPL_SET(m, DAT_IA_FIELD_IA_MAX_RDMA_READ_OUT, a->max_rdma_read_out,
		  kdapl_count(d->max_res_rd_atom));
	/* IRD/ORD are negotiated per connection: not guaranteed. */
	KDAPL_SET(m, DAT_IA_FIELD_IA_MAX_RDMA_READ_PER_EP_IN_GUARANTEED,
		  a->max_rdma_read_per_ep_in_guaranteed, DAT_FALSE);
	KDAPL_SET(m, DAT_IA_FIELD_IA_MAX_RDMA_READ_PER_EP_OUT_GUARANTEED,
		  a->max_rdma_read_per_ep_out_guaranteed, DAT_FALSE);
	KDAPL_SET(m, DAT_IA_FIELD_IA_ZB_SUPPORTED, a->zb_supported, DAT_FALSE);
	KDAPL_SET(m, DAT_IA_FIELD_IA_RESERVED_LMR_SUPPORTED,
		  a->reserved_lmr_supported, DAT_FALSE);
	/* The iWARP extensions: only where a socket can be taken over. */
	if (m & (DAT_IA_FIELD_IA_EXTENSION | DAT_IA_FIELD_IA_EXTENSION_VERSION))
		iw = kdapl_iws_supported(prov);
	KDAPL_SET(m, DAT_IA_FIELD_IA_EXTENSION, a->extension_supported,
		  iw ? DAT_EXTENSION_IW : DAT_EXTENSION_NONE);
	KDAPL_SET(m, DAT_IA_FIELD_IA_EXTENSION_VERSION, a->extension_version,
		  iw ? DAT_IW_EXTENSION_VERSION : 0);
	KDAPL_SET(m, DAT_IA_FIELD_IA_NUM_TRANSPORT_ATTR, a->num_transport_attr,
		  0);
	KDAPL_SET(m, DAT_IA_FIELD_IA_TRANSPORT_ATTR, a->transport_attr, NULL);
	KDAPL_SET(m, DAT_IA_FIELD_IA_NUM_VENDOR_ATTR, a->num_vendor_attr, 0);
	KDAPL_SET(m, DAT_IA_FIELD_IA_VENDOR_ATTR, a->vendor_attr, NULL);
}

/* Every pair of event streams may share an EVD. */
static const DAT_BOOLEAN kdapl_stream_merging[6][6] = {
	{ DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE },
	{ DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE },
	{ DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE },
	{ DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE },
	{ DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE },
	{ DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE, DAT_TRUE },
};

static DAT_RMR_SCOPE kdapl_rmr_scope(const struct ib_device_attr *d)
{
	bool type1 = d->device_cap_flags & IB_DEVICE_MEM_WINDOW;
	bool type2 = d->device_cap_flags & (IB_DEVICE_MEM_WINDOW_TYPE_2A |
					    IB_DEVICE_MEM_WINDOW_TYPE_2B);

	if (type1 && type2)
		return DAT_RMR_SCOPE_ANY;
	/* Without memory windows max_rmrs is 0; the scope is moot. */
	return type1 ? DAT_RMR_SCOPE_PZ : DAT_RMR_SCOPE_EP;
}

/* seed 000: the named attributes of an IA with the iWARP extensions */
static const DAT_NAMED_ATTR kdapl_iw_attrs[] = {
	{ DAT_EXTENSION_ATTR, "TRUE" },
	{ DAT_EXTENSION_ATTR_VERSION, __stringify(DAT_IW_EXTENSION_VERSION) },
	{ DAT_IW_ATTR_SSP, "TRUE" },
};

static void kdapl_ia_fill_provider_attr(struct kdapl_ia *ia,
					DAT_PROVIDER_ATTR_MASK m,
					DAT_PROVIDER_ATTR *a)
{
	struct kdapl_provider *prov = ia->prov;
	bool iw = false;

	if (m & DAT_PROVIDER_FIELD_PROVIDER_NAME)
		strscpy(a->provider_name, "kdapl", sizeof(a->provider_name));
	KDAPL_SET(m, DAT_PROVIDER_FIELD_PROVIDER_VERSION_MAJOR,
		  a->provider_version_major, KDAPL_PROVIDER_VERSION_MAJOR);
	KDAPL_SET(m, DAT_PROVIDER_FIELD_PROVIDER_VERSION_MINOR,
		  a->provider_version_minor, KDAPL_PROVIDER_VERSION_MINOR);
	KDAPL_SET(m, DAT_PROVIDER_FIELD_DAPL_VERSION_MAJOR,
		  a->dapl_version_major, DAT_VERSION_MAJOR);
	KDAPL_SET(m, DAT_PROVIDER_FIELD_DAPL_VERSION_MINOR,
		  a->dapl_version_minor, DAT_VERSION_MINOR);
	KDAPL_SET(m, DAT_PROVIDER_FIELD_LMR_MEM_TYPE_SUPPORTED,
		  a->lmr_mem_types_supported,
		  DAT_MEM_TYPE_VIRTUAL | DAT_MEM_TYPE_PHYSICAL);
	KDAPL_SET(m, DAT_PROVIDER_FIELD_IOV_OWNERSHIP,
		  a->iov_ownership_on_return, DAT_IOV_CONSUMER);
	KDAPL_SET(m, DAT_PROVIDER_FIELD_DAT_QOS_SUPPORTED,
		  a->dat_qos_supported, DAT_QOS_BEST_EFFORT);
	KDAPL_SET(m, DAT_PROVIDER_FIELD_COMPLETION_FLAGS_SUPPORTED,
		  a->completion_flags_supported,
		  DAT_COMPLETION_DEFAULT_FLAG | DAT_COMPLETION_SUPPRESS_FLAG |
		  DAT_COMPLETION_SOLICITED_WAIT_FLAG |
		  DAT_COMPLETION_UNSIGNALLED_FLAG |
		  DAT_COMPLETION_BARRIER_FENCE_FLAG);
	KDAPL_SET(m, DAT_PROVIDER_FIELD_IS_THREAD_SAFE, a->is_thread_safe,
		  DAT_TRUE);
	KDAPL_SET(m, DAT_PROVIDER_FIELD_MAX_PRIVATE_DATA_SIZE,
		  a->max_private_data_size, prov->max_private_data);
	KDAPL_SET(m, DAT_PROVIDER_FIELD_SUPPORTS_MULTIPATH,
		  a->supports_multipath, DAT_FALSE);
	KDAPL_SET(m, DAT_PROVIDER_FIELD_EP_CREATOR, a->ep_creator,
		  DAT_PSP_CREATES_EP_IFASKED);
	KDAPL_SET(m, DAT_PROVIDER_FIELD_UPCALL_POLICY, a->upcall_policy,
		  DAT_UPCALL_MANY);
	KDAPL_SET(m, DAT_PROVIDER_FIELD_OPTIMAL_BUFFER_ALIGNMENT,
		  a->optimal_buffer_alignment, DAT_OPTIMAL_ALIGNMENT);
	/* A const member in the published layout: written through memcpy. */
	if (m & DAT_PROVIDER_FIELD_EVD_STREAM_MERGING_SUPPORTED)
		memcpy((void *)a->evd_stream_merging_supported,
		       kdapl_stream_merging, sizeof(kdapl_stream_merging));
	KDAPL_SET(m, DAT_PROVIDER_FIELD_SRQ_SUPPORTED, a->srq_supported,
		  DAT_FALSE);
	KDAPL_SET(m, DAT_PROVIDER_FIELD_SRQ_WATERMARKS_SUPPORTED,
		  a->srq_watermarks_supported, 0);
	KDAPL_SET(m, DAT_PROVIDER_FIELD_SRQ_EP_PZ_DIFFERENCE_SUPPORTED,
		  a->srq_ep_pz_difference_supported, DAT_FALSE);
	KDAPL_SET(m, DAT_PROVIDER_FIELD_SRQ_INFO_SUPPORTED,
		  a->srq_info_supported, 0);
	KDAPL_SET(m, DAT_PROVIDER_FIELD_EP_RECV_INFO_SUPPORTED,
		  a->ep_recv_info_supported, 0);
	KDAPL_SET(m, DAT_PROVIDER_FIELD_LMR_SYNC_REQ, a->lmr_sync_req,
		  DAT_FALSE);
	KDAPL_SET(m, DAT_PROVIDER_FIELD_DTO_ASYNC_RETURN_GUARANTEED,
		  a->dto_async_return_guaranteed, DAT_FALSE);
	/* iWARP: an RDMA Read sink must be remotely writable (RFC 5040). */
	KDAPL_SET(m, DAT_PROVIDER_FIELD_RDMA_WRITE_FOR_RDMA_READ_REQ,
		  a->rdma_write_for_rdma_read_req,
		  prov->iwarp ? DAT_TRUE : DAT_FALSE);
	KDAPL_SET(m, DAT_PROVIDER_FIELD_RDMA_READ_LMR_RMR_CONTEXT_EXPOSURE,
		  a->rdma_read_lmr_rmr_context_exposure,
		  prov->iwarp ? DAT_TRUE : DAT_FALSE);
	KDAPL_SET(m, DAT_PROVIDER_FIELD_RMR_SCOPE_SUPPORTED,
		  a->rmr_scope_supported, kdapl_rmr_scope(&prov->attrs));
	KDAPL_SET(m, DAT_PROVIDER_FIELD_IS_INTERRUPT_SAFE,
		  a->is_interrupt_safe, DAT_FALSE);
	KDAPL_SET(m, DAT_PROVIDER_FIELD_FMR_SUPPORTED, a->fmr_supported,
		  DAT_FALSE);
	KDAPL_SET(m, DAT_PROVIDER_FIELD_LMR_FOR_FMR_SCOPE,
		  a->lmr_for_fmr_scope_supported, DAT_LMR_SCOPE_PZ);
	KDAPL_SET(m, DAT_PROVIDER_FIELD_HA_SUPPORTED, a->ha_supported,
		  DAT_FALSE);
	KDAPL_SET(m, DAT_PROVIDER_FIELD_HA_LB, a->ha_loadbalancing,
		  DAT_HA_LB_NONE);
	if (m & (DAT_PROVIDER_FIELD_NUM_PROVIDER_SPECIFIC_ATTR |
		 DAT_PROVIDER_FIELD_PROVIDER_SPECIFIC_ATTR))
		iw = kdapl_iws_supported(prov);
	KDAPL_SET(m, DAT_PROVIDER_FIELD_NUM_PROVIDER_SPECIFIC_ATTR,
		  a->num_provider_specific_attr,
		  iw ? (DAT_COUNT)ARRAY_SIZE(kdapl_iw_attrs) : 0);
	KDAPL_SET(m, DAT_PROVIDER_FIELD_PROVIDER_SPECIFIC_ATTR,
		  a->provider_specific_attr,
		  iw ? (DAT_NAMED_ATTR *)kdapl_iw_attrs : NULL);
}

/**
 * dat_ia_query() - query an IA's parameters and attributes
 * @ia_handle: the IA
 * @async_evd_handle: if not NULL, set to the IA's asynchronous EVD
 * @ia_attr_mask: DAT_IA_FIELD_* bits wanted in @ia_attr
 * @ia_attr: the requested IA attributes are filled in, the others left
 *	alone; may be NULL if @ia_attr_mask is 0
 * @provider_attr_mask: DAT_PROVIDER_FIELD_* bits wanted in @provider_attr
 * @provider_attr: the requested provider attributes are filled in; may be
 *	NULL if @provider_attr_mask is 0
 *
 * The limits are the device's (struct ib_device_attr). ia_address_ptr
 * points into the IA and stays valid until the IA is closed; it holds the
 * first IPv4 address of the device's netdev, else its first IPv6 address
 * (global scope before link-local), else AF_UNSPEC, as of this call.
 *
 * Context: process context; sleeps.
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE (DAT_INVALID_HANDLE_IA);
 * DAT_INVALID_PARAMETER (unknown bits in @ia_attr_mask: DAT_INVALID_ARG3,
 * NULL @ia_attr: DAT_INVALID_ARG4, unknown bits in @provider_attr_mask:
 * DAT_INVALID_ARG5, NULL @provider_attr: DAT_INVALID_ARG6);
 * DAT_INVALID_STATE if the device went away.
 */
DAT_RETURN dat_ia_query(DAT_IA_HANDLE ia_handle,
			DAT_EVD_HANDLE *async_evd_handle,
			DAT_IA_ATTR_MASK ia_attr_mask, DAT_IA_ATTR *ia_attr,
			DAT_PROVIDER_ATTR_MASK provider_attr_mask,
			DAT_PROVIDER_ATTR *provider_attr)
{
	struct kdapl_provider *prov;
	struct kdapl_ia *ia;
	DAT_RETURN ret = DAT_SUCCESS;

	ia = kdapl_ia_get(ia_handle);
	if (!ia)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	if (ia_attr_mask & ~DAT_IA_FIELD_ALL)
		ret = DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	else if (ia_attr_mask && !ia_attr)
		ret = DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4);
	else if (provider_attr_mask & ~DAT_PROVIDER_FIELD_ALL)
		ret = DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5);
	else if (provider_attr_mask && !provider_attr)
		ret = DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG6);
	if (ret != DAT_SUCCESS)
		goto out;

	prov = ia->prov;
	mutex_lock(&prov->lock);
	mutex_lock(&ia->lock);
	if (ia->dead || prov->removing) {
		ret = DAT_ERROR(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
	} else if (ia->state != KDAPL_IA_OPEN) {
		ret = DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	} else {
		if (async_evd_handle)
			*async_evd_handle =
				kdapl_obj_handle(&ia->async_evd->base);
		if (ia_attr_mask)
			kdapl_ia_fill_attr(ia, ia_attr_mask, ia_attr);
		if (provider_attr_mask)
			kdapl_ia_fill_provider_attr(ia, provider_attr_mask,
						    provider_attr);
	}
	mutex_unlock(&ia->lock);
	mutex_unlock(&prov->lock);
out:
	kdapl_obj_put(&ia->base);
	return ret;
}
EXPORT_SYMBOL_GPL(dat_ia_query);

/**
 * dat_ia_close() - close an IA
 * @ia_handle: the IA
 * @close_flags: DAT_CLOSE_GRACEFUL_FLAG fails while any object created on
 *	the IA is left; DAT_CLOSE_ABRUPT_FLAG destroys the IA's PZs (and
 *	their LMRs) first
 *
 * The async EVD is destroyed if the IA created it; a consumer's async EVD
 * can be freed by the consumer again. Works on an IA whose device went
 * away.
 *
 * Objects other than PZs (EVDs the consumer created on the IA) are not
 * destroyed by an abrupt close yet: they keep the IA's memory, not its
 * handle, alive until they are freed.
 *
 * Context: process context; sleeps.
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE (DAT_INVALID_HANDLE_IA, also
 * while another close of the same IA is in progress);
 * DAT_INVALID_PARAMETER (DAT_INVALID_ARG2) for unknown @close_flags;
 * DAT_INVALID_STATE (DAT_INVALID_STATE_IA_IN_USE) for a graceful close
 * with objects left.
 */
DAT_RETURN dat_ia_close(DAT_IA_HANDLE ia_handle, DAT_CLOSE_FLAGS close_flags)
{
	struct kdapl_pz *pz, *tmp;
	struct kdapl_ia *ia;
	bool removed;

	ia = kdapl_ia_get(ia_handle);
	if (!ia)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	if (close_flags != DAT_CLOSE_ABRUPT_FLAG &&
	    close_flags != DAT_CLOSE_GRACEFUL_FLAG) {
		kdapl_obj_put(&ia->base);
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	}

	mutex_lock(&ia->lock);
	if (ia->state != KDAPL_IA_OPEN) {
		mutex_unlock(&ia->lock);
		kdapl_obj_put(&ia->base);
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	}
	if (close_flags == DAT_CLOSE_GRACEFUL_FLAG &&
	    atomic_read(&ia->children) > ia->own_children) {
		mutex_unlock(&ia->lock);
		kdapl_obj_put(&ia->base);
		return DAT_ERROR(DAT_INVALID_STATE,
				 DAT_INVALID_STATE_IA_IN_USE);
	}
	/* From here no new child, no second close, no new lookup. */
	ia->state = KDAPL_IA_CLOSING;
	removed = kdapl_hobj_remove(&kdapl.handles, &ia->base.hobj);
	/*
	 * Device resources go before the IA leaves the provider's list:
	 * until then the registry's remove waits for ia->lock.
	 */
	kdapl_ia_release_device(ia);
	list_for_each_entry_safe(pz, tmp, &ia->pzs, node)
		kdapl_pz_teardown(pz);
	mutex_unlock(&ia->lock);

	/* Abrupt close: the IA's endpoints, service points and CRs go. */
	kdapl_ia_destroy_children(ia);

	/* Abrupt close: the consumer's EVDs of this IA go too. */
	kdapl_evd_destroy_ia(ia);

	/* After this the registry neither kills it nor posts to its EVD. */
	mutex_lock(&ia->prov->lock);
	list_del_init(&ia->node);
	mutex_unlock(&ia->prov->lock);

	kdapl_ia_drop_async_evd(ia);

	if (removed)
		kdapl_obj_put(&ia->base);
	kdapl_obj_put(&ia->base);
	return DAT_SUCCESS;
}
EXPORT_SYMBOL_GPL(dat_ia_close);
