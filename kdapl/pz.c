// SPDX-License-Identifier: GPL-2.0
/*
 * Protection zones: dat_pz_create, dat_pz_query, dat_pz_free.
 *
 * A PZ is a device protection domain (ib_alloc_pd). It is a child of its
 * IA and sits on the IA's list of PZs, so that an abrupt close and the
 * removal of the device can find it. Its ib_pd lives under the IA's lock:
 * allocated while the IA is open and its device present, given back when
 * the PZ is freed, when the IA is closed abruptly, or when the device
 * goes away (the PZ then lives on without one until it is freed).
 */

#include <linux/export.h>
#include <linux/slab.h>

#include "lmr.h"
#include "registry.h"

static void kdapl_pz_release(struct kdapl_hobj *h)
{
	struct kdapl_pz *pz = container_of(h, struct kdapl_pz, base.hobj);

	WARN_ON_ONCE(pz->pd);
	kdapl_obj_put(&pz->base.ia->base);
	kfree_rcu(pz, base.hobj.rcu);	/* handle lookups run under RCU */
}

static struct kdapl_pz *kdapl_pz_get(DAT_PZ_HANDLE handle)
{
	struct kdapl_obj *o = kdapl_obj_get(handle, KDAPL_HT_PZ);

	return o ? container_of(o, struct kdapl_pz, base) : NULL;
}

/**
 * kdapl_pz_release_device() - give back the PZ's device resources
 * @pz: the PZ
 *
 * Context: process context, the IA's lock held.
 */
void kdapl_pz_release_device(struct kdapl_pz *pz)
{
	lockdep_assert_held(&pz->base.ia->lock);
	/* The LMRs' MRs and DMA mappings go before the PD. */
	kdapl_lmr_pz_release_device(pz);
	if (pz->pd) {
		ib_dealloc_pd(pz->pd);
		pz->pd = NULL;
	}
}

/*
 * Free the handle of a PZ on its IA's list. Called with the IA's lock
 * held, which also kept the handle from being freed by anybody else.
 */
static void kdapl_pz_unlink(struct kdapl_pz *pz)
{
	list_del_init(&pz->node);
	kdapl_pz_release_device(pz);
	kdapl_ia_child_gone(pz->base.ia);
}

/**
 * kdapl_pz_teardown() - destroy a PZ because its IA is closed abruptly
 * @pz: a PZ on its IA's list
 *
 * Like dat_pz_free() but regardless of users: its LMRs are destroyed
 * first. The caller holds a reference on the IA, so the IA is not
 * released from here.
 *
 * Context: process context, the IA's lock held.
 */
void kdapl_pz_teardown(struct kdapl_pz *pz)
{
	lockdep_assert_held(&pz->base.ia->lock);
	/* Its LMRs first: they hold users and a reference on the PZ. */
	kdapl_lmr_pz_teardown(pz);
	/* On the list means not freed: dat_pz_free() unlinks under the lock. */
	if (WARN_ON(!kdapl_hobj_remove(&kdapl.handles, &pz->base.hobj))) {
		list_del_init(&pz->node);
		return;
	}
	kdapl_pz_unlink(pz);
	kdapl_obj_put(&pz->base);
}

/**
 * dat_pz_create() - create a protection zone
 * @ia_handle: the IA
 * @pz_handle: set to the new PZ
 *
 * Context: process context; sleeps.
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE (DAT_INVALID_HANDLE_IA, also for
 * an IA being closed); DAT_INVALID_PARAMETER (DAT_INVALID_ARG2) for a
 * NULL @pz_handle; DAT_INVALID_STATE if the device went away;
 * DAT_INSUFFICIENT_RESOURCES (DAT_RESOURCE_MEMORY, or
 * DAT_RESOURCE_PROTECTION_DOMAIN when the device has no PD left).
 */
DAT_RETURN dat_pz_create(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE *pz_handle)
{
	struct kdapl_pz *pz;
	struct kdapl_ia *ia;
	struct ib_pd *pd;
	DAT_RETURN ret;

	ia = kdapl_ia_get(ia_handle);
	if (!ia)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA);
	if (!pz_handle) {
		ret = DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
		goto put_ia;
	}
	pz = kzalloc(sizeof(*pz), GFP_KERNEL);
	if (!pz) {
		ret = DAT_ERROR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
		goto put_ia;
	}
	spin_lock_init(&pz->base.ctx_lock);
	INIT_LIST_HEAD(&pz->node);
	atomic_set(&pz->users, 0);
	spin_lock_init(&pz->lmr_lock);
	INIT_LIST_HEAD(&pz->lmrs);
	pz->base.ia = ia;

	mutex_lock(&ia->lock);
	/* Open and not dead: the device stays until we unlock. */
	ret = kdapl_ia_child_get(ia);
	if (ret != DAT_SUCCESS)
		goto unlock;
	pd = ib_alloc_pd(ia->prov->ibdev, 0);
	if (IS_ERR(pd)) {
		ret = DAT_ERROR(DAT_INSUFFICIENT_RESOURCES,
				PTR_ERR(pd) == -ENOMEM ? DAT_RESOURCE_MEMORY :
				DAT_RESOURCE_PROTECTION_DOMAIN);
		goto child_gone;
	}
	pz->pd = pd;
	if (kdapl_hobj_add(&kdapl.handles, &pz->base.hobj, KDAPL_HT_PZ,
			   kdapl_pz_release, GFP_KERNEL)) {
		ret = DAT_ERROR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY);
		goto free_pd;
	}
	list_add_tail(&pz->node, &ia->pzs);
	mutex_unlock(&ia->lock);

	*pz_handle = kdapl_obj_handle(&pz->base);
	kdapl_obj_put(&ia->base);
	return DAT_SUCCESS;

free_pd:
	ib_dealloc_pd(pd);
child_gone:
	/* Undo kdapl_ia_child_get(); the lookup reference keeps the IA. */
	kdapl_ia_child_gone(ia);
	kdapl_obj_put(&ia->base);
unlock:
	mutex_unlock(&ia->lock);
	kfree(pz);
put_ia:
	kdapl_obj_put(&ia->base);
	return ret;
}
EXPORT_SYMBOL_GPL(dat_pz_create);

/**
 * dat_pz_query() - query a protection zone
 * @pz_handle: the PZ
 * @pz_param_mask: DAT_PZ_FIELD_* bits wanted
 * @pz_param: the requested fields are filled in, the others left alone
 *
 * Context: any context; does not sleep.
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE (DAT_INVALID_HANDLE_PZ);
 * DAT_INVALID_PARAMETER (unknown mask bits: DAT_INVALID_ARG2, NULL
 * @pz_param: DAT_INVALID_ARG3); DAT_INVALID_STATE if the device went
 * away.
 */
DAT_RETURN dat_pz_query(DAT_PZ_HANDLE pz_handle,
			DAT_PZ_PARAM_MASK pz_param_mask,
			DAT_PZ_PARAM *pz_param)
{
	DAT_RETURN ret = DAT_SUCCESS;
	struct kdapl_pz *pz;

	pz = kdapl_pz_get(pz_handle);
	if (!pz)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
	if (pz_param_mask & ~DAT_PZ_FIELD_ALL)
		ret = DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	else if (!pz_param)
		ret = DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	else if (READ_ONCE(pz->base.ia->dead))
		ret = DAT_ERROR(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
	else if (pz_param_mask & DAT_PZ_FIELD_IA_HANDLE)
		pz_param->ia_handle = kdapl_obj_handle(&pz->base.ia->base);
	kdapl_obj_put(&pz->base);
	return ret;
}
EXPORT_SYMBOL_GPL(dat_pz_query);

/**
 * dat_pz_free() - destroy a protection zone
 * @pz_handle: the PZ
 *
 * Works on a PZ whose device went away.
 *
 * Context: process context; sleeps.
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE (DAT_INVALID_HANDLE_PZ, also
 * when another free or the IA's abrupt close got there first);
 * DAT_INVALID_STATE (DAT_INVALID_STATE_PZ_IN_USE) while an EP, LMR, RMR
 * or SRQ uses it.
 */
DAT_RETURN dat_pz_free(DAT_PZ_HANDLE pz_handle)
{
	DAT_RETURN ret = DAT_SUCCESS;
	struct kdapl_pz *pz;
	struct kdapl_ia *ia;
	bool removed = false;

	pz = kdapl_pz_get(pz_handle);
	if (!pz)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
	ia = pz->base.ia;

	mutex_lock(&ia->lock);
	if (atomic_read(&pz->users)) {
		ret = DAT_ERROR(DAT_INVALID_STATE, DAT_INVALID_STATE_PZ_IN_USE);
	} else if (!kdapl_hobj_remove(&kdapl.handles, &pz->base.hobj)) {
		ret = DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
	} else {
		kdapl_pz_unlink(pz);
		removed = true;
	}
	mutex_unlock(&ia->lock);

	if (removed)
		kdapl_obj_put(&pz->base);
	kdapl_obj_put(&pz->base);
	return ret;
}
EXPORT_SYMBOL_GPL(dat_pz_free);
