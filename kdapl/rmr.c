// SPDX-License-Identifier: GPL-2.0
/*
 * Remote memory regions (memory windows): dat_rmr_create, dat_rmr_query,
 * dat_rmr_bind, dat_rmr_free.
 *
 * An RMR is a memory window bound to part of an LMR. Linux 6.1's ib_core
 * gives kernel consumers no memory windows at all: ib_alloc_mw() is gone
 * (only the uverbs path allocates them, through ops.alloc_mw) and struct
 * ib_send_wr has no bind request (IB_WR_BIND_MW is a uverbs opcode only).
 * So no device can give a kernel consumer an RMR, whatever its attributes
 * say (siw has neither ops.alloc_mw nor max_mw). dat_rmr_create() answers
 * DAT_MODEL_NOT_SUPPORTED after checking its arguments, dat_ia_query()
 * reports max_rmrs 0, and since no RMR handle can exist the other calls
 * answer DAT_INVALID_HANDLE. Remote access goes through the rmr_context
 * of an LMR created with remote privileges instead (lmr.c).
 */

#include <linux/export.h>

#include "registry.h"

/**
 * dat_rmr_create() - create an unbound remote memory region
 * @pz_handle: the PZ
 * @rmr_handle: would be set to the new RMR
 *
 * Context: any context; does not sleep.
 * Return: DAT_INVALID_HANDLE (DAT_INVALID_HANDLE_PZ); DAT_INVALID_PARAMETER
 * (DAT_INVALID_ARG2) for a NULL @rmr_handle; DAT_INVALID_STATE if the
 * device went away; otherwise DAT_MODEL_NOT_SUPPORTED (no kernel memory
 * windows, see above). Never DAT_SUCCESS.
 */
DAT_RETURN dat_rmr_create(DAT_PZ_HANDLE pz_handle, DAT_RMR_HANDLE *rmr_handle)
{
	struct kdapl_obj *pz = kdapl_obj_get(pz_handle, KDAPL_HT_PZ);
	DAT_RETURN ret;

	if (!pz)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ);
	if (!rmr_handle)
		ret = DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	else if (READ_ONCE(pz->ia->dead))
		ret = DAT_ERROR(DAT_INVALID_STATE, DAT_NO_SUBTYPE);
	else
		ret = DAT_ERROR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
	kdapl_obj_put(pz);
	return ret;
}
EXPORT_SYMBOL_GPL(dat_rmr_create);

/* Every other call starts by turning the RMR handle into an object. */
static DAT_RETURN kdapl_rmr_check(DAT_RMR_HANDLE rmr_handle)
{
	struct kdapl_obj *rmr = kdapl_obj_get(rmr_handle, KDAPL_HT_RMR);

	if (!rmr)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR);
	/* Unreachable today: dat_rmr_create() never makes one. */
	kdapl_obj_put(rmr);
	return DAT_ERROR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE);
}

/**
 * dat_rmr_query() - query a remote memory region
 * @rmr_handle: the RMR
 * @rmr_param_mask: DAT_RMR_FIELD_* bits wanted
 * @rmr_param: untouched
 *
 * Context: any context; does not sleep.
 * Return: DAT_INVALID_HANDLE (DAT_INVALID_HANDLE_RMR): no RMR exists.
 */
DAT_RETURN dat_rmr_query(DAT_RMR_HANDLE rmr_handle,
			 DAT_RMR_PARAM_MASK rmr_param_mask,
			 DAT_RMR_PARAM *rmr_param)
{
	return kdapl_rmr_check(rmr_handle);
}
EXPORT_SYMBOL_GPL(dat_rmr_query);

/**
 * dat_rmr_bind() - bind an RMR to part of an LMR, or unbind it
 * @rmr_handle: the RMR
 * @lmr_handle: the LMR
 * @lmr_triplet: the memory to expose
 * @mem_priv: remote access rights
 * @va_type: addressing
 * @ep_handle: the EP that would carry the bind
 * @user_cookie: for the completion
 * @completion_flags: DAT_COMPLETION_*_FLAG
 * @context: untouched
 *
 * Context: any context; does not sleep.
 * Return: DAT_INVALID_HANDLE (DAT_INVALID_HANDLE_RMR): no RMR exists.
 */
DAT_RETURN dat_rmr_bind(DAT_RMR_HANDLE rmr_handle, DAT_LMR_HANDLE lmr_handle,
			const DAT_LMR_TRIPLET *lmr_triplet,
			DAT_MEM_PRIV_FLAGS mem_priv, DAT_VA_TYPE va_type,
			DAT_EP_HANDLE ep_handle, DAT_RMR_COOKIE user_cookie,
			DAT_COMPLETION_FLAGS completion_flags,
			DAT_RMR_CONTEXT *context)
{
	return kdapl_rmr_check(rmr_handle);
}
EXPORT_SYMBOL_GPL(dat_rmr_bind);

/**
 * dat_rmr_free() - destroy a remote memory region
 * @rmr_handle: the RMR
 *
 * Context: any context; does not sleep.
 * Return: DAT_INVALID_HANDLE (DAT_INVALID_HANDLE_RMR): no RMR exists.
 */
DAT_RETURN dat_rmr_free(DAT_RMR_HANDLE rmr_handle)
{
	return kdapl_rmr_check(rmr_handle);
}
EXPORT_SYMBOL_GPL(dat_rmr_free);
