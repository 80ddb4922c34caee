// SPDX-License-Identifier: GPL-2.0
/*
 * Calls that work on a handle of any type: dat_get_handle_type,
 * dat_set_consumer_context, dat_get_consumer_context.
 *
 * They need nothing but the handle table and the object's context lock,
 * so they work in any context, upcalls included, and on objects whose
 * device went away.
 */

#include <linux/export.h>
#include <linux/spinlock.h>

#include "kdapl.h"

/* The kDAT handle type of a kdapl handle type; false if it has none. */
static bool kdapl_dat_handle_type(enum kdapl_htype type, DAT_HANDLE_TYPE *out)
{
	switch (type) {
	case KDAPL_HT_IA:
		*out = DAT_HANDLE_TYPE_IA;
		return true;
	case KDAPL_HT_PZ:
		*out = DAT_HANDLE_TYPE_PZ;
		return true;
	case KDAPL_HT_EVD:
		*out = DAT_HANDLE_TYPE_EVD;
		return true;
	case KDAPL_HT_EP:
		*out = DAT_HANDLE_TYPE_EP;
		return true;
	case KDAPL_HT_LMR:
		*out = DAT_HANDLE_TYPE_LMR;
		return true;
	case KDAPL_HT_RMR:
		*out = DAT_HANDLE_TYPE_RMR;
		return true;
	case KDAPL_HT_PSP:
		*out = DAT_HANDLE_TYPE_PSP;
		return true;
	case KDAPL_HT_RSP:
		*out = DAT_HANDLE_TYPE_RSP;
		return true;
	case KDAPL_HT_CR:
		*out = DAT_HANDLE_TYPE_CR;
		return true;
	case KDAPL_HT_SRQ:
		*out = DAT_HANDLE_TYPE_SRQ;
		return true;
	case KDAPL_HT_CSP:
		*out = DAT_HANDLE_TYPE_CSP;
		return true;
	case KDAPL_HT_SSP:
		/* The first extension type: DAT_IW_HANDLE_TYPE_SSP. */
		*out = DAT_HANDLE_TYPE_EXTENSION_BASE;
		return true;
	default:
		/* KDAPL_HT_CNO: kDAT has no CNO. */
		return false;
	}
}

/* A counted reference on the object of a handle of any type. */
static struct kdapl_obj *kdapl_any_get(DAT_HANDLE handle)
{
	enum kdapl_htype type = kdapl_handle_type(&kdapl.handles, handle);

	return type == KDAPL_HT_NONE ? NULL : kdapl_obj_get(handle, type);
}

/**
 * dat_get_handle_type() - the type of a DAT handle
 * @dat_handle: any DAT handle
 * @handle_type: set to its DAT_HANDLE_TYPE_*
 *
 * Context: any context; does not sleep.
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE (DAT_INVALID_HANDLE1) for a
 * NULL, stale or unknown handle; DAT_INVALID_PARAMETER (DAT_INVALID_ARG2)
 * for a NULL @handle_type.
 */
DAT_RETURN dat_get_handle_type(DAT_HANDLE dat_handle,
			       DAT_HANDLE_TYPE *handle_type)
{
	enum kdapl_htype type = kdapl_handle_type(&kdapl.handles, dat_handle);
	DAT_HANDLE_TYPE t;

	if (!kdapl_dat_handle_type(type, &t))
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE1);
	if (!handle_type)
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	*handle_type = t;
	return DAT_SUCCESS;
}
EXPORT_SYMBOL_GPL(dat_get_handle_type);

/**
 * dat_set_consumer_context() - attach a consumer context to a handle
 * @dat_handle: any DAT handle
 * @context: the value to store; returned by dat_get_consumer_context()
 *
 * Context: any context; does not sleep.
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE (DAT_INVALID_HANDLE1) for a
 * NULL, stale or unknown handle.
 */
DAT_RETURN dat_set_consumer_context(DAT_HANDLE dat_handle,
				    DAT_CONTEXT context)
{
	struct kdapl_obj *obj = kdapl_any_get(dat_handle);
	unsigned long flags;

	if (!obj)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE1);
	spin_lock_irqsave(&obj->ctx_lock, flags);
	obj->context = context;
	spin_unlock_irqrestore(&obj->ctx_lock, flags);
	kdapl_obj_put(obj);
	return DAT_SUCCESS;
}
EXPORT_SYMBOL_GPL(dat_set_consumer_context);

/**
 * dat_get_consumer_context() - read the consumer context of a handle
 * @dat_handle: any DAT handle
 * @context: set to the stored context (all zero if never set)
 *
 * Context: any context; does not sleep.
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE (DAT_INVALID_HANDLE1) for a
 * NULL, stale or unknown handle; DAT_INVALID_PARAMETER
 * (DAT_INVALID_ARG2) for a NULL @context.
 */
DAT_RETURN dat_get_consumer_context(DAT_HANDLE dat_handle,
				    DAT_CONTEXT *context)
{
	struct kdapl_obj *obj = kdapl_any_get(dat_handle);
	unsigned long flags;

	if (!obj)
		return DAT_ERROR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE1);
	if (!context) {
		kdapl_obj_put(obj);
		return DAT_ERROR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2);
	}
	spin_lock_irqsave(&obj->ctx_lock, flags);
	*context = obj->context;
	spin_unlock_irqrestore(&obj->ctx_lock, flags);
	kdapl_obj_put(obj);
	return DAT_SUCCESS;
}
EXPORT_SYMBOL_GPL(dat_get_consumer_context);
