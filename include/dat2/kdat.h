/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * DAT 2.0 kernel API (kDAT), the interface of kdapl.ko to in-kernel
 * consumers. Include this file; it includes <dat2/dat.h> (the types shared
 * with uDAT) and <dat2/dat_error.h> (the return codes).
 *
 * The names, numeric values, struct field names and field order are those
 * of the published DAT 2.0 kDAT headers (OpenFabrics dapl dat2/kdat.h and
 * dat2/dat.h) with DAT_EXTENSIONS enabled. Do not renumber, reorder or
 * reuse anything here.
 *
 * Every function returns a DAT_RETURN. Unless a function's comment says
 * otherwise, handles are checked (a stale, NULL or wrongly typed handle
 * gives DAT_INVALID_HANDLE with the matching subtype) and invalid
 * arguments give DAT_INVALID_PARAMETER with the DAT_INVALID_ARGn subtype
 * of the first bad argument, counted from 1.
 */
#ifndef _DAT2_KDAT_H_
#define _DAT2_KDAT_H_

#include <linux/types.h>

#include <dat2/dat.h>

/* ------------------------------------------------------------------ */
/* Configuration (the kdat_config.h of the published headers)          */
/* ------------------------------------------------------------------ */

#define DAT_VERSION_MAJOR	2
#define DAT_VERSION_MINOR	0

/* kDAPL is thread safe; dat_ia_open() asks for a thread-safe provider. */
#ifndef DAT_THREADSAFE
#define DAT_THREADSAFE		DAT_TRUE
#endif

/* ------------------------------------------------------------------ */
/* Handle types                                                        */
/* ------------------------------------------------------------------ */

/*
 * kDAT numbering: kDAT has no CNO, so SRQ and CSP are one lower than in
 * uDAT (udat.h has DAT_HANDLE_TYPE_CNO = 9).
 */
typedef enum dat_handle_type {
	DAT_HANDLE_TYPE_CR,
	DAT_HANDLE_TYPE_EP,
	DAT_HANDLE_TYPE_EVD,
	DAT_HANDLE_TYPE_IA,
	DAT_HANDLE_TYPE_LMR,
	DAT_HANDLE_TYPE_PSP,
	DAT_HANDLE_TYPE_PZ,
	DAT_HANDLE_TYPE_RMR,
	DAT_HANDLE_TYPE_RSP,
	DAT_HANDLE_TYPE_SRQ,
	DAT_HANDLE_TYPE_CSP,
	DAT_HANDLE_TYPE_EXTENSION_BASE,
} DAT_HANDLE_TYPE;

/* ------------------------------------------------------------------ */
/* Upcalls                                                             */
/* ------------------------------------------------------------------ */

typedef enum dat_upcall_policy {
	DAT_UPCALL_DISABLE		= 0,	/* no upcalls */
	DAT_UPCALL_SINGLE_INSTANCE	= 1,	/* at most one at a time */
	DAT_UPCALL_MANY			= 100,	/* several concurrently */
	/* no more upcalls; returns once those in progress returned */
	DAT_UPCALL_TEARDOWN		= -1,
	/* single upcall, notification only (sic, published spelling) */
	DAT_UPCALL_NORIFY		= 2,
} DAT_UPCALL_POLICY;

/* Correctly spelt alias of DAT_UPCALL_NORIFY. */
#define DAT_UPCALL_NOTIFY	DAT_UPCALL_NORIFY

/*
 * Upcall function: called with the upcall object's instance_data, the
 * event (valid only during the call) and DAT_TRUE if more events are
 * queued on the EVD. It may be called in atomic context and must not
 * sleep.
 */
typedef void (*DAT_UPCALL_FUNC)(DAT_PVOID instance_data,
				const DAT_EVENT *event,
				DAT_BOOLEAN more_events);

typedef struct dat_upcall_object {
	DAT_PVOID instance_data;
	DAT_UPCALL_FUNC upcall_func;
} DAT_UPCALL_OBJECT;

/* An upcall object with no function. */
#define DAT_UPCALL_NULL \
	((DAT_UPCALL_OBJECT) { .instance_data = NULL, .upcall_func = NULL })

/* dat_evd_modify_upcall(): keep the current upcall object. */
#define DAT_UPCALL_SAME		((DAT_UPCALL_OBJECT *)NULL)

/* When dat_evd_modify_upcall() lets the upcall run. */
typedef enum dat_upcall_flag {
	DAT_UPCALL_INVOC_NEW	= 0,	/* on the next new event */
	DAT_UPCALL_INVOC_ANY	= 1,	/* also for events already queued */
} DAT_UPCALL_FLAG;

/* ------------------------------------------------------------------ */
/* Event dispatchers                                                   */
/* ------------------------------------------------------------------ */

typedef enum dat_evd_param_mask {
	DAT_EVD_FIELD_IA_HANDLE		= 0x01,
	DAT_EVD_FIELD_EVD_QLEN		= 0x02,
	DAT_EVD_FIELD_UPCALL_POLICY	= 0x04,
	DAT_EVD_FIELD_UPCALL		= 0x08,
	DAT_EVD_FIELD_EVD_FLAGS		= 0x10,
	DAT_EVD_FIELD_ALL		= 0x1f,
} DAT_EVD_PARAM_MASK;

struct dat_evd_param {
	DAT_IA_HANDLE ia_handle;
	DAT_COUNT evd_qlen;
	DAT_UPCALL_POLICY upcall_policy;
	DAT_UPCALL_OBJECT upcall;
	DAT_EVD_FLAGS evd_flags;
};

/* ------------------------------------------------------------------ */
/* Memory registration                                                 */
/* ------------------------------------------------------------------ */

/*
 * What a DAT_REGION_DESCRIPTION describes. A consumer passes one value to
 * dat_lmr_kcreate(); the provider attributes report the union of the
 * types it supports.
 */
typedef enum dat_mem_type {
	/* shared with uDAT */
	DAT_MEM_TYPE_VIRTUAL		= 0x00,	/* for_va */
	DAT_MEM_TYPE_LMR		= 0x01,	/* for_lmr_handle */
	/* kDAT only */
	DAT_MEM_TYPE_PHYSICAL		= 0x10,	/* for_physical */
	DAT_MEM_TYPE_PLATFORM		= 0x20,	/* for_platform */
	DAT_MEM_TYPE_IA			= 0x40,	/* for_ia */
	DAT_MEM_TYPE_BYPASS		= 0x80,	/* for_platform */
	DAT_MEM_TYPE_PHYSICAL_VAR_PAGES	= 0x100, /* for_array */
} DAT_MEM_TYPE;

typedef enum dat_mem_optimize_flags {
	DAT_MEM_OPTIMIZE_DONT_CARE	= 0x00,
	DAT_MEM_OPTIMIZE_IA		= 0x01,
	DAT_MEM_OPTIMIZE_MIN_EXPOSURE	= 0x02,
	DAT_MEM_OPTIMIZE_EXACT_EXPOSURE	= 0x04,
} DAT_MEM_OPTIMIZE_FLAGS;

#define DAT_MEM_OPT		DAT_MEM_OPTIMIZE_FLAGS

/* Physical pages of one size: page_size bytes each, pages -> DAT_PADDR[]. */
typedef struct dat_physical_var_pages {
	DAT_VLEN page_size;
	void *pages;
} DAT_PHYSICAL_VAR_PAGES;

/*
 * kdapl: for_va is a kernel virtual address (linear-mapped or vmalloc'd
 * memory); for_physical points to DIV_ROUND_UP(length, PAGE_SIZE)
 * page-aligned CPU physical addresses of RAM pages, the region starting
 * at the first, and triplets address it as for_physical[0] + offset.
 * The other members are not supported (DAT_MODEL_NOT_SUPPORTED).
 */
typedef union dat_region_description {
	DAT_PVOID for_va;
	DAT_LMR_HANDLE for_lmr_handle;
	void *for_platform;		/* platform and bypass memory */
	DAT_PHYSICAL_VAR_PAGES for_array;
	DAT_PADDR *for_physical;	/* array of same-size physical pages */
	DAT_PADDR for_ia;
} DAT_REGION_DESCRIPTION;

typedef DAT_CONTEXT DAT_LMR_COOKIE;

typedef struct dat_lmr_state {
	DAT_BOOLEAN fmr_support;
	DAT_BOOLEAN bound;
} DAT_LMR_STATE;

struct dat_lmr_param {
	DAT_IA_HANDLE ia_handle;
	DAT_MEM_TYPE mem_type;
	DAT_REGION_DESCRIPTION region_desc;
	DAT_VLEN length;
	DAT_PZ_HANDLE pz_handle;
	DAT_MEM_PRIV_FLAGS mem_priv;
	DAT_VA_TYPE va_type;
	DAT_LMR_CONTEXT lmr_context;
	DAT_RMR_CONTEXT rmr_context;
	DAT_VLEN registered_size;
	DAT_VADDR registered_address;
	DAT_LMR_STATE lmr_state;	/* kDAT only */
};

enum dat_lmr_param_mask {
	DAT_LMR_FIELD_IA_HANDLE		= 0x001,
	DAT_LMR_FIELD_MEM_TYPE		= 0x002,
	DAT_LMR_FIELD_REGION_DESC	= 0x004,
	DAT_LMR_FIELD_LENGTH		= 0x008,
	DAT_LMR_FIELD_PZ_HANDLE		= 0x010,
	DAT_LMR_FIELD_MEM_PRIV		= 0x020,
	DAT_LMR_FIELD_VA_TYPE		= 0x040,
	DAT_LMR_FIELD_LMR_CONTEXT	= 0x080,
	DAT_LMR_FIELD_RMR_CONTEXT	= 0x100,
	DAT_LMR_FIELD_REGISTERED_SIZE	= 0x200,
	DAT_LMR_FIELD_REGISTERED_ADDRESS = 0x400,
	DAT_LMR_FIELD_LMR_STATE		= 0x800,
	DAT_LMR_FIELD_ALL		= 0xfff,
};

/* Protection scope of an LMR used for fast memory registration. */
typedef enum dat_lmr_scope {
	DAT_LMR_SCOPE_EP,		/* bound to at most one EP at a time */
	DAT_LMR_SCOPE_PZ,		/* bound to a protection zone */
	DAT_LMR_SCOPE_ANY,		/* provider supports both */
} DAT_LMR_SCOPE;

/* ------------------------------------------------------------------ */
/* IA attributes                                                       */
/* ------------------------------------------------------------------ */

struct dat_ia_attr {
	char adapter_name[DAT_NAME_MAX_LENGTH];
	char vendor_name[DAT_NAME_MAX_LENGTH];
	DAT_UINT32 hardware_version_major;
	DAT_UINT32 hardware_version_minor;
	DAT_UINT32 firmware_version_major;
	DAT_UINT32 firmware_version_minor;
	DAT_IA_ADDRESS_PTR ia_address_ptr;
	DAT_COUNT max_eps;
	DAT_COUNT max_dto_per_ep;
	DAT_COUNT max_rdma_read_per_ep_in;
	DAT_COUNT max_rdma_read_per_ep_out;
	DAT_COUNT max_evds;
	DAT_COUNT max_evd_qlen;
	DAT_COUNT max_iov_segments_per_dto;
	DAT_COUNT max_lmrs;
	DAT_SEG_LENGTH max_lmr_block_size;
	DAT_VADDR max_lmr_virtual_address;
	DAT_COUNT max_pzs;
	DAT_SEG_LENGTH max_message_size;
	DAT_SEG_LENGTH max_rdma_size;
	DAT_COUNT max_rmrs;
	DAT_VADDR max_rmr_target_address;
	DAT_COUNT max_srqs;
	DAT_COUNT max_ep_per_srq;
	DAT_COUNT max_recv_per_srq;
	DAT_COUNT max_iov_segments_per_rdma_read;
	DAT_COUNT max_iov_segments_per_rdma_write;
	DAT_COUNT max_rdma_read_in;
	DAT_COUNT max_rdma_read_out;
	DAT_BOOLEAN max_rdma_read_per_ep_in_guaranteed;
	DAT_BOOLEAN max_rdma_read_per_ep_out_guaranteed;
	DAT_BOOLEAN zb_supported;
	DAT_BOOLEAN reserved_lmr_supported;	/* kDAT only */
	DAT_EXTENSION extension_supported;
	DAT_COUNT extension_version;
	DAT_COUNT num_transport_attr;
	DAT_NAMED_ATTR *transport_attr;
	DAT_COUNT num_vendor_attr;
	DAT_NAMED_ATTR *vendor_attr;
};

/* kDAT IA attribute mask bits above DAT_IA_FIELD_IA_ZB_SUPPORTED. */
#define DAT_IA_FIELD_IA_RESERVED_LMR_SUPPORTED		0x100000000ULL
#define DAT_IA_FIELD_IA_EXTENSION			0x200000000ULL
#define DAT_IA_FIELD_IA_EXTENSION_VERSION		0x400000000ULL
#define DAT_IA_FIELD_IA_NUM_TRANSPORT_ATTR		0x800000000ULL
#define DAT_IA_FIELD_IA_TRANSPORT_ATTR			0x1000000000ULL
#define DAT_IA_FIELD_IA_NUM_VENDOR_ATTR			0x2000000000ULL
#define DAT_IA_FIELD_IA_VENDOR_ATTR			0x4000000000ULL
#define DAT_IA_FIELD_ALL				0x7fffffffffULL

/* ------------------------------------------------------------------ */
/* Provider attributes                                                 */
/* ------------------------------------------------------------------ */

/*
 * evd_stream_merging_supported[i][j] is DAT_TRUE if event streams i and j
 * can feed the same EVD. Index order is that of DAT_EVD_FLAGS: 0 software,
 * 1 connection request, 2 DTO, 3 connection, 4 RMR bind, 5 asynchronous.
 */
struct dat_provider_attr {
	char provider_name[DAT_NAME_MAX_LENGTH];
	DAT_UINT32 provider_version_major;
	DAT_UINT32 provider_version_minor;
	DAT_UINT32 dapl_version_major;
	DAT_UINT32 dapl_version_minor;
	DAT_MEM_TYPE lmr_mem_types_supported;
	DAT_IOV_OWNERSHIP iov_ownership_on_return;
	DAT_QOS dat_qos_supported;
	DAT_COMPLETION_FLAGS completion_flags_supported;
	DAT_BOOLEAN is_thread_safe;
	DAT_COUNT max_private_data_size;
	DAT_BOOLEAN supports_multipath;
	DAT_EP_CREATOR_FOR_PSP ep_creator;
	DAT_UPCALL_POLICY upcall_policy;
	DAT_UINT32 optimal_buffer_alignment;
	const DAT_BOOLEAN evd_stream_merging_supported[6][6];
	DAT_BOOLEAN srq_supported;
	DAT_COUNT srq_watermarks_supported;
	DAT_BOOLEAN srq_ep_pz_difference_supported;
	DAT_COUNT srq_info_supported;
	DAT_COUNT ep_recv_info_supported;
	DAT_BOOLEAN lmr_sync_req;
	DAT_BOOLEAN dto_async_return_guaranteed;
	DAT_BOOLEAN rdma_write_for_rdma_read_req;
	DAT_BOOLEAN rdma_read_lmr_rmr_context_exposure;
	DAT_RMR_SCOPE rmr_scope_supported;
	DAT_BOOLEAN is_interrupt_safe;
	DAT_BOOLEAN fmr_supported;
	DAT_LMR_SCOPE lmr_for_fmr_scope_supported;
	DAT_BOOLEAN ha_supported;
	DAT_HA_LB ha_loadbalancing;
	DAT_COUNT num_provider_specific_attr;
	DAT_NAMED_ATTR *provider_specific_attr;
};

#define DAT_PROVIDER_FIELD_PROVIDER_NAME			0x000000001ULL
#define DAT_PROVIDER_FIELD_PROVIDER_VERSION_MAJOR		0x000000002ULL
#define DAT_PROVIDER_FIELD_PROVIDER_VERSION_MINOR		0x000000004ULL
#define DAT_PROVIDER_FIELD_DAPL_VERSION_MAJOR			0x000000008ULL
#define DAT_PROVIDER_FIELD_DAPL_VERSION_MINOR			0x000000010ULL
#define DAT_PROVIDER_FIELD_LMR_MEM_TYPE_SUPPORTED		0x000000020ULL
#define DAT_PROVIDER_FIELD_IOV_OWNERSHIP			0x000000040ULL
#define DAT_PROVIDER_FIELD_DAT_QOS_SUPPORTED			0x000000080ULL
#define DAT_PROVIDER_FIELD_COMPLETION_FLAGS_SUPPORTED		0x000000100ULL
#define DAT_PROVIDER_FIELD_IS_THREAD_SAFE			0x000000200ULL
#define DAT_PROVIDER_FIELD_MAX_PRIVATE_DATA_SIZE		0x000000400ULL
#define DAT_PROVIDER_FIELD_SUPPORTS_MULTIPATH			0x000000800ULL
#define DAT_PROVIDER_FIELD_EP_CREATOR				0x000001000ULL
#define DAT_PROVIDER_FIELD_UPCALL_POLICY			0x000002000ULL
#define DAT_PROVIDER_FIELD_OPTIMAL_BUFFER_ALIGNMENT		0x000004000ULL
#define DAT_PROVIDER_FIELD_EVD_STREAM_MERGING_SUPPORTED		0x000008000ULL
#define DAT_PROVIDER_FIELD_SRQ_SUPPORTED			0x000010000ULL
#define DAT_PROVIDER_FIELD_SRQ_WATERMARKS_SUPPORTED		0x000020000ULL
#define DAT_PROVIDER_FIELD_SRQ_EP_PZ_DIFFERENCE_SUPPORTED	0x000040000ULL
#define DAT_PROVIDER_FIELD_SRQ_INFO_SUPPORTED			0x000080000ULL
#define DAT_PROVIDER_FIELD_EP_RECV_INFO_SUPPORTED		0x000100000ULL
#define DAT_PROVIDER_FIELD_LMR_SYNC_REQ				0x000200000ULL
#define DAT_PROVIDER_FIELD_DTO_ASYNC_RETURN_GUARANTEED		0x000400000ULL
#define DAT_PROVIDER_FIELD_RDMA_WRITE_FOR_RDMA_READ_REQ		0x000800000ULL
#define DAT_PROVIDER_FIELD_RDMA_READ_LMR_RMR_CONTEXT_EXPOSURE	0x001000000ULL
#define DAT_PROVIDER_FIELD_RMR_SCOPE_SUPPORTED			0x002000000ULL
#define DAT_PROVIDER_FIELD_IS_INTERRUPT_SAFE			0x004000000ULL
#define DAT_PROVIDER_FIELD_FMR_SUPPORTED			0x008000000ULL
#define DAT_PROVIDER_FIELD_LMR_FOR_FMR_SCOPE			0x010000000ULL
#define DAT_PROVIDER_FIELD_HA_SUPPORTED				0x020000000ULL
#define DAT_PROVIDER_FIELD_HA_LB				0x040000000ULL
#define DAT_PROVIDER_FIELD_NUM_PROVIDER_SPECIFIC_ATTR		0x080000000ULL
#define DAT_PROVIDER_FIELD_PROVIDER_SPECIFIC_ATTR		0x100000000ULL

#define DAT_PROVIDER_FIELD_ALL					0x1ffffffffULL
#define DAT_PROVIDER_FIELD_NONE					0x0ULL

/* ------------------------------------------------------------------ */
/* Registry and interface adapters                                     */
/* ------------------------------------------------------------------ */

/**
 * dat_registry_list_providers() - list the registered IAs
 * @max_to_return: number of entries @dat_provider_list can hold
 * @entries_returned: set to the number of registered IAs
 * @dat_provider_list: array of @max_to_return pointers to entries the
 *	caller owns; the first min(@max_to_return, *@entries_returned) are
 *	filled
 *
 * With @max_to_return 0, only the count is returned.
 *
 * Return: DAT_SUCCESS; DAT_INVALID_PARAMETER for a NULL @entries_returned,
 * or a NULL @dat_provider_list with @max_to_return > 0.
 */
DAT_RETURN dat_registry_list_providers(DAT_COUNT max_to_return,
				       DAT_COUNT *entries_returned,
				       DAT_PROVIDER_INFO **dat_provider_list);

/**
 * dat_ia_openv() - open an interface adapter, checking the DAT version
 * @name: IA name, as listed by dat_registry_list_providers()
 * @async_evd_qlen: minimum queue length of the asynchronous event EVD
 * @async_evd_handle: in: DAT_HANDLE_NULL to have the IA create its
 *	asynchronous EVD; out: that EVD
 * @ia_handle: set to the new IA handle
 * @dapl_major: DAT major version the consumer was built for
 * @dapl_minor: DAT minor version the consumer was built for
 * @thread_safety: whether the consumer needs a thread-safe provider
 *
 * Consumers call dat_ia_open(), which passes DAT_VERSION_MAJOR,
 * DAT_VERSION_MINOR and DAT_THREADSAFE; this is the exported symbol.
 *
 * Context: Process context; may sleep.
 * Return: DAT_SUCCESS; DAT_PROVIDER_NOT_FOUND (subtype
 * DAT_NAME_NOT_REGISTERED, DAT_MAJOR_NOT_FOUND, DAT_MINOR_NOT_FOUND or
 * DAT_THREAD_SAFETY_NOT_FOUND); DAT_INSUFFICIENT_RESOURCES;
 * DAT_INVALID_PARAMETER.
 */
DAT_RETURN dat_ia_openv(const DAT_NAME_PTR name, DAT_COUNT async_evd_qlen,
			DAT_EVD_HANDLE *async_evd_handle,
			DAT_IA_HANDLE *ia_handle, DAT_UINT32 dapl_major,
			DAT_UINT32 dapl_minor, DAT_BOOLEAN thread_safety);

/*
 * dat_ia_open(name, async_evd_qlen, &async_evd_handle, &ia_handle): the
 * DAT 2.0 consumer entry point, a macro over dat_ia_openv().
 */
#define dat_ia_open(name, qlen, async_evd, ia)				\
	dat_ia_openv((name), (qlen), (async_evd), (ia),			\
		     DAT_VERSION_MAJOR, DAT_VERSION_MINOR, DAT_THREADSAFE)

/**
 * dat_ia_query() - query an IA's parameters and attributes
 * @ia_handle: the IA
 * @async_evd_handle: if not NULL, set to the IA's asynchronous EVD
 * @ia_attr_mask: DAT_IA_FIELD_* bits wanted in @ia_attr
 * @ia_attr: filled with at least the requested IA attributes; may be NULL
 *	if @ia_attr_mask is 0
 * @provider_attr_mask: DAT_PROVIDER_FIELD_* bits wanted in @provider_attr
 * @provider_attr: filled with at least the requested provider attributes;
 *	may be NULL if @provider_attr_mask is 0
 *
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_PARAMETER.
 */
DAT_RETURN dat_ia_query(DAT_IA_HANDLE ia_handle,
			DAT_EVD_HANDLE *async_evd_handle,
			DAT_IA_ATTR_MASK ia_attr_mask, DAT_IA_ATTR *ia_attr,
			DAT_PROVIDER_ATTR_MASK provider_attr_mask,
			DAT_PROVIDER_ATTR *provider_attr);

/**
 * dat_ia_close() - close an IA
 * @ia_handle: the IA
 * @close_flags: DAT_CLOSE_ABRUPT_FLAG destroys every object still open on
 *	the IA; DAT_CLOSE_GRACEFUL_FLAG fails if any is left
 *
 * Context: Process context; may sleep.
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_PARAMETER;
 * DAT_INVALID_STATE (graceful close with objects left);
 * DAT_INSUFFICIENT_RESOURCES.
 */
DAT_RETURN dat_ia_close(DAT_IA_HANDLE ia_handle, DAT_CLOSE_FLAGS close_flags);

/* ------------------------------------------------------------------ */
/* Handle helpers                                                      */
/* ------------------------------------------------------------------ */

/**
 * dat_get_handle_type() - the type of a DAT handle
 * @dat_handle: any DAT handle
 * @handle_type: set to its DAT_HANDLE_TYPE_*
 *
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_PARAMETER.
 */
DAT_RETURN dat_get_handle_type(DAT_HANDLE dat_handle,
			       DAT_HANDLE_TYPE *handle_type);

/**
 * dat_set_consumer_context() - attach a consumer context to a handle
 * @dat_handle: any DAT handle
 * @context: the value to store; returned by dat_get_consumer_context()
 *
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE.
 */
DAT_RETURN dat_set_consumer_context(DAT_HANDLE dat_handle,
				    DAT_CONTEXT context);

/**
 * dat_get_consumer_context() - read the consumer context of a handle
 * @dat_handle: any DAT handle
 * @context: set to the stored context (all-zero if never set)
 *
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_PARAMETER.
 */
DAT_RETURN dat_get_consumer_context(DAT_HANDLE dat_handle,
				    DAT_CONTEXT *context);

/* ------------------------------------------------------------------ */
/* Protection zones                                                    */
/* ------------------------------------------------------------------ */

/**
 * dat_pz_create() - create a protection zone
 * @ia_handle: the IA
 * @pz_handle: set to the new PZ
 *
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_PARAMETER;
 * DAT_INSUFFICIENT_RESOURCES.
 */
DAT_RETURN dat_pz_create(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE *pz_handle);

/**
 * dat_pz_query() - query a protection zone
 * @pz_handle: the PZ
 * @pz_param_mask: DAT_PZ_FIELD_* bits wanted
 * @pz_param: filled with at least the requested fields
 *
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_PARAMETER.
 */
DAT_RETURN dat_pz_query(DAT_PZ_HANDLE pz_handle,
			DAT_PZ_PARAM_MASK pz_param_mask,
			DAT_PZ_PARAM *pz_param);

/**
 * dat_pz_free() - destroy a protection zone
 * @pz_handle: the PZ
 *
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_STATE (subtype
 * DAT_INVALID_STATE_PZ_IN_USE) while an EP, LMR, RMR or SRQ uses it.
 */
DAT_RETURN dat_pz_free(DAT_PZ_HANDLE pz_handle);

/* ------------------------------------------------------------------ */
/* Event dispatchers                                                   */
/* ------------------------------------------------------------------ */

/**
 * dat_evd_kcreate() - create an event dispatcher
 * @ia_handle: the IA
 * @evd_min_qlen: minimum number of events the queue holds
 * @upcall_policy: DAT_UPCALL_DISABLE, DAT_UPCALL_SINGLE_INSTANCE or
 *	DAT_UPCALL_MANY
 * @upcall: the upcall object; its function may be NULL only with
 *	DAT_UPCALL_DISABLE
 * @evd_flags: DAT_EVD_*_FLAG event streams the EVD accepts
 * @evd_handle: set to the new EVD
 *
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_PARAMETER;
 * DAT_INSUFFICIENT_RESOURCES; DAT_MODEL_NOT_SUPPORTED for an upcall policy
 * or stream combination the provider does not support.
 */
DAT_RETURN dat_evd_kcreate(DAT_IA_HANDLE ia_handle, DAT_COUNT evd_min_qlen,
			   DAT_UPCALL_POLICY upcall_policy,
			   const DAT_UPCALL_OBJECT *upcall,
			   DAT_EVD_FLAGS evd_flags,
			   DAT_EVD_HANDLE *evd_handle);

/**
 * dat_evd_modify_upcall() - change an EVD's upcall policy or object
 * @evd_handle: the EVD
 * @upcall_policy: the new policy; DAT_UPCALL_TEARDOWN disables upcalls
 *	and returns only after upcalls in progress have returned
 * @upcall: the new upcall object, or DAT_UPCALL_SAME to keep the current
 * @upcall_invocation: DAT_UPCALL_INVOC_NEW to call the upcall on the next
 *	new event only, DAT_UPCALL_INVOC_ANY to call it at once if events
 *	are already queued
 *
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_PARAMETER;
 * DAT_MODEL_NOT_SUPPORTED.
 */
DAT_RETURN dat_evd_modify_upcall(DAT_EVD_HANDLE evd_handle,
				 DAT_UPCALL_POLICY upcall_policy,
				 const DAT_UPCALL_OBJECT *upcall,
				 DAT_UPCALL_FLAG upcall_invocation);

/**
 * dat_evd_query() - query an event dispatcher
 * @evd_handle: the EVD
 * @evd_param_mask: DAT_EVD_FIELD_* bits wanted
 * @evd_param: filled with at least the requested fields
 *
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_PARAMETER.
 */
DAT_RETURN dat_evd_query(DAT_EVD_HANDLE evd_handle,
			 DAT_EVD_PARAM_MASK evd_param_mask,
			 DAT_EVD_PARAM *evd_param);

/**
 * dat_evd_resize() - change the queue length of an event dispatcher
 * @evd_handle: the EVD
 * @evd_min_qlen: new minimum number of events the queue holds
 *
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_PARAMETER;
 * DAT_INSUFFICIENT_RESOURCES; DAT_INVALID_STATE if more events are queued
 * than @evd_min_qlen.
 */
DAT_RETURN dat_evd_resize(DAT_EVD_HANDLE evd_handle, DAT_COUNT evd_min_qlen);

/**
 * dat_evd_post_se() - post a software event
 * @evd_handle: an EVD created with DAT_EVD_SOFTWARE_FLAG
 * @event: the event; event_number must be DAT_SOFTWARE_EVENT, and only
 *	event_data.software_event_data is used
 *
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_PARAMETER;
 * DAT_QUEUE_FULL.
 */
DAT_RETURN dat_evd_post_se(DAT_EVD_HANDLE evd_handle, const DAT_EVENT *event);

/**
 * dat_evd_dequeue() - remove the first event from an event dispatcher
 * @evd_handle: the EVD
 * @event: filled with the event
 *
 * Context: Any context; does not sleep.
 * Return: DAT_SUCCESS; DAT_QUEUE_EMPTY; DAT_INVALID_HANDLE;
 * DAT_INVALID_PARAMETER.
 */
DAT_RETURN dat_evd_dequeue(DAT_EVD_HANDLE evd_handle, DAT_EVENT *event);

/**
 * dat_evd_free() - destroy an event dispatcher
 * @evd_handle: the EVD
 *
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_STATE (subtype
 * DAT_INVALID_STATE_EVD_IN_USE) while an EP, PSP, RSP or IA feeds it.
 */
DAT_RETURN dat_evd_free(DAT_EVD_HANDLE evd_handle);

/* ------------------------------------------------------------------ */
/* Endpoints                                                           */
/* ------------------------------------------------------------------ */

/**
 * dat_ep_create() - create an endpoint
 * @ia_handle: the IA
 * @pz_handle: protection zone of the EP's DTOs, or DAT_HANDLE_NULL
 * @recv_evd_handle: EVD for receive completions, or DAT_HANDLE_NULL
 * @request_evd_handle: EVD for send, RDMA and bind completions, or
 *	DAT_HANDLE_NULL
 * @connect_evd_handle: EVD for connection events, or DAT_HANDLE_NULL
 * @ep_attributes: requested attributes, or NULL for the provider defaults
 * @ep_handle: set to the new EP
 *
 * The EP starts in DAT_EP_STATE_UNCONNECTED, or in
 * DAT_EP_STATE_UNCONFIGURED_UNCONNECTED if a handle it needs to connect
 * was DAT_HANDLE_NULL.
 *
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_PARAMETER;
 * DAT_INSUFFICIENT_RESOURCES; DAT_MODEL_NOT_SUPPORTED.
 */
DAT_RETURN dat_ep_create(DAT_IA_HANDLE ia_handle, DAT_PZ_HANDLE pz_handle,
			 DAT_EVD_HANDLE recv_evd_handle,
			 DAT_EVD_HANDLE request_evd_handle,
			 DAT_EVD_HANDLE connect_evd_handle,
			 const DAT_EP_ATTR *ep_attributes,
			 DAT_EP_HANDLE *ep_handle);

/**
 * dat_ep_query() - query an endpoint
 * @ep_handle: the EP
 * @ep_param_mask: DAT_EP_FIELD_* bits wanted
 * @ep_param: filled with at least the requested fields
 *
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_PARAMETER.
 */
DAT_RETURN dat_ep_query(DAT_EP_HANDLE ep_handle,
			DAT_EP_PARAM_MASK ep_param_mask,
			DAT_EP_PARAM *ep_param);

/**
 * dat_ep_modify() - change endpoint parameters
 * @ep_handle: the EP
 * @ep_param_mask: DAT_EP_FIELD_* bits to change
 * @ep_param: the new values of those fields
 *
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_PARAMETER;
 * DAT_INVALID_STATE if the EP's state does not allow the change;
 * DAT_INSUFFICIENT_RESOURCES; DAT_MODEL_NOT_SUPPORTED.
 */
DAT_RETURN dat_ep_modify(DAT_EP_HANDLE ep_handle,
			 DAT_EP_PARAM_MASK ep_param_mask,
			 const DAT_EP_PARAM *ep_param);

/**
 * dat_ep_connect() - connect an endpoint to a remote service point
 * @ep_handle: an EP in DAT_EP_STATE_UNCONNECTED
 * @remote_ia_address: address of the remote IA
 * @remote_conn_qual: connection qualifier of the remote PSP or RSP
 * @timeout: microseconds, or DAT_TIMEOUT_INFINITE
 * @private_data_size: bytes of @private_data
 * @private_data: sent to the remote side with the request
 * @quality_of_service: requested DAT_QOS
 * @connect_flags: DAT_CONNECT_*_FLAG
 *
 * Starts the connection; the outcome arrives on the EP's connect EVD as
 * DAT_CONNECTION_EVENT_ESTABLISHED or one of the failure events.
 *
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_PARAMETER;
 * DAT_INVALID_ADDRESS; DAT_INVALID_STATE; DAT_INSUFFICIENT_RESOURCES;
 * DAT_MODEL_NOT_SUPPORTED.
 */
DAT_RETURN dat_ep_connect(DAT_EP_HANDLE ep_handle,
			  DAT_IA_ADDRESS_PTR remote_ia_address,
			  DAT_CONN_QUAL remote_conn_qual, DAT_TIMEOUT timeout,
			  DAT_COUNT private_data_size,
			  const DAT_PVOID private_data,
			  DAT_QOS quality_of_service,
			  DAT_CONNECT_FLAGS connect_flags);

/**
 * dat_ep_dup_connect() - connect an endpoint to the peer of another
 * @ep_handle: an EP in DAT_EP_STATE_UNCONNECTED
 * @ep_dup_handle: a connected EP whose remote side is the target
 * @timeout: microseconds, or DAT_TIMEOUT_INFINITE
 * @private_data_size: bytes of @private_data
 * @private_data: sent to the remote side with the request
 * @quality_of_service: requested DAT_QOS
 *
 * Return: as dat_ep_connect().
 */
DAT_RETURN dat_ep_dup_connect(DAT_EP_HANDLE ep_handle,
			      DAT_EP_HANDLE ep_dup_handle, DAT_TIMEOUT timeout,
			      DAT_COUNT private_data_size,
			      const DAT_PVOID private_data,
			      DAT_QOS quality_of_service);

/**
 * dat_ep_disconnect() - disconnect an endpoint
 * @ep_handle: the EP
 * @close_flags: DAT_CLOSE_GRACEFUL_FLAG lets outstanding DTOs complete,
 *	DAT_CLOSE_ABRUPT_FLAG flushes them
 *
 * Also aborts a pending connection. Completion is reported with
 * DAT_CONNECTION_EVENT_DISCONNECTED on the connect EVD.
 *
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_PARAMETER;
 * DAT_INVALID_STATE.
 */
DAT_RETURN dat_ep_disconnect(DAT_EP_HANDLE ep_handle,
			     DAT_CLOSE_FLAGS close_flags);

/**
 * dat_ep_post_send() - post a send
 * @ep_handle: the EP
 * @num_segments: entries in @local_iov
 * @local_iov: the data to send, in registered memory
 * @user_cookie: returned in the completion event
 * @completion_flags: DAT_COMPLETION_*_FLAG
 *
 * Context: Any context; does not sleep.
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_PARAMETER;
 * DAT_INVALID_STATE; DAT_INSUFFICIENT_RESOURCES; DAT_LENGTH_ERROR;
 * DAT_PROTECTION_VIOLATION; DAT_PRIVILEGES_VIOLATION.
 */
DAT_RETURN dat_ep_post_send(DAT_EP_HANDLE ep_handle, DAT_COUNT num_segments,
			    DAT_LMR_TRIPLET *local_iov,
			    DAT_DTO_COOKIE user_cookie,
			    DAT_COMPLETION_FLAGS completion_flags);

/**
 * dat_ep_post_recv() - post a receive buffer
 * @ep_handle: the EP
 * @num_segments: entries in @local_iov
 * @local_iov: where to place the incoming message, in registered memory
 * @user_cookie: returned in the completion event
 * @completion_flags: DAT_COMPLETION_*_FLAG
 *
 * Context: Any context; does not sleep.
 * Return: as dat_ep_post_send().
 */
DAT_RETURN dat_ep_post_recv(DAT_EP_HANDLE ep_handle, DAT_COUNT num_segments,
			    DAT_LMR_TRIPLET *local_iov,
			    DAT_DTO_COOKIE user_cookie,
			    DAT_COMPLETION_FLAGS completion_flags);

/**
 * dat_ep_post_rdma_read() - post an RDMA Read
 * @ep_handle: the EP
 * @num_segments: entries in @local_iov
 * @local_iov: where to place the data, in registered memory
 * @user_cookie: returned in the completion event
 * @remote_iov: the remote buffer to read
 * @completion_flags: DAT_COMPLETION_*_FLAG
 *
 * Context: Any context; does not sleep.
 * Return: as dat_ep_post_send().
 */
DAT_RETURN dat_ep_post_rdma_read(DAT_EP_HANDLE ep_handle,
				 DAT_COUNT num_segments,
				 DAT_LMR_TRIPLET *local_iov,
				 DAT_DTO_COOKIE user_cookie,
				 const DAT_RMR_TRIPLET *remote_iov,
				 DAT_COMPLETION_FLAGS completion_flags);

/**
 * dat_ep_post_rdma_write() - post an RDMA Write
 * @ep_handle: the EP
 * @num_segments: entries in @local_iov
 * @local_iov: the data to write, in registered memory
 * @user_cookie: returned in the completion event
 * @remote_iov: the remote buffer to write
 * @completion_flags: DAT_COMPLETION_*_FLAG
 *
 * Context: Any context; does not sleep.
 * Return: as dat_ep_post_send().
 */
DAT_RETURN dat_ep_post_rdma_write(DAT_EP_HANDLE ep_handle,
				  DAT_COUNT num_segments,
				  DAT_LMR_TRIPLET *local_iov,
				  DAT_DTO_COOKIE user_cookie,
				  const DAT_RMR_TRIPLET *remote_iov,
				  DAT_COMPLETION_FLAGS completion_flags);

/**
 * dat_ep_get_status() - an endpoint's state and whether its queues are idle
 * @ep_handle: the EP
 * @ep_state: set to the EP's state
 * @recv_idle: if not NULL, set to DAT_TRUE if no receive is outstanding
 * @request_idle: if not NULL, set to DAT_TRUE if no request is outstanding
 *
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_PARAMETER.
 */
DAT_RETURN dat_ep_get_status(DAT_EP_HANDLE ep_handle, DAT_EP_STATE *ep_state,
			     DAT_BOOLEAN *recv_idle,
			     DAT_BOOLEAN *request_idle);

/**
 * dat_ep_reset() - return a disconnected endpoint to the unconnected state
 * @ep_handle: an EP in DAT_EP_STATE_DISCONNECTED
 *
 * Outstanding DTOs are flushed.
 *
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_STATE.
 */
DAT_RETURN dat_ep_reset(DAT_EP_HANDLE ep_handle);

/**
 * dat_ep_free() - destroy an endpoint
 * @ep_handle: the EP
 *
 * A connected EP is disconnected abruptly first; outstanding DTOs are
 * flushed.
 *
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_STATE while the EP
 * is reserved by an RSP or owned by a PSP.
 */
DAT_RETURN dat_ep_free(DAT_EP_HANDLE ep_handle);

/* ------------------------------------------------------------------ */
/* Local memory regions                                                */
/* ------------------------------------------------------------------ */

/**
 * dat_lmr_kcreate() - register memory as a local memory region
 * @ia_handle: the IA
 * @mem_type: what @region_description describes (DAT_MEM_TYPE_*)
 * @region_description: the memory
 * @length: bytes to register
 * @pz_handle: protection zone of the LMR
 * @privileges: DAT_MEM_PRIV_*_FLAG access rights
 * @va_type: DAT_VA_TYPE_VA or DAT_VA_TYPE_ZB (zero based)
 * @mem_optimization: DAT_MEM_OPTIMIZE_* hint
 * @lmr_handle: set to the new LMR
 * @lmr_context: if not NULL, set to the context for local triplets
 * @rmr_context: if not NULL, set to the context for remote access
 * @registered_length: if not NULL, set to the length actually registered
 * @registered_address: if not NULL, set to the address actually
 *	registered
 *
 * Context: Process context; may sleep.
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_PARAMETER;
 * DAT_INSUFFICIENT_RESOURCES; DAT_MODEL_NOT_SUPPORTED for a memory type
 * or privilege the provider does not support.
 */
DAT_RETURN dat_lmr_kcreate(DAT_IA_HANDLE ia_handle, DAT_MEM_TYPE mem_type,
			   DAT_REGION_DESCRIPTION region_description,
			   DAT_VLEN length, DAT_PZ_HANDLE pz_handle,
			   DAT_MEM_PRIV_FLAGS privileges, DAT_VA_TYPE va_type,
			   DAT_MEM_OPTIMIZE_FLAGS mem_optimization,
			   DAT_LMR_HANDLE *lmr_handle,
			   DAT_LMR_CONTEXT *lmr_context,
			   DAT_RMR_CONTEXT *rmr_context,
			   DAT_VLEN *registered_length,
			   DAT_VADDR *registered_address);

/**
 * dat_lmr_query() - query a local memory region
 * @lmr_handle: the LMR
 * @lmr_param_mask: DAT_LMR_FIELD_* bits wanted
 * @lmr_param: filled with at least the requested fields
 *
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_PARAMETER.
 */
DAT_RETURN dat_lmr_query(DAT_LMR_HANDLE lmr_handle,
			 DAT_LMR_PARAM_MASK lmr_param_mask,
			 DAT_LMR_PARAM *lmr_param);

/**
 * dat_lmr_free() - deregister a local memory region
 * @lmr_handle: the LMR
 *
 * Context: Process context; may sleep.
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_STATE (subtype
 * DAT_INVALID_STATE_LMR_IN_USE) while posted work requests use it.
 */
DAT_RETURN dat_lmr_free(DAT_LMR_HANDLE lmr_handle);

/**
 * dat_lmr_sync_rdma_read() - make local memory coherent for RDMA Read
 * @ia_handle: the IA
 * @local_segments: the memory that remote peers will read
 * @num_segments: entries in @local_segments
 *
 * Needed before remote RDMA Reads only if the provider reports
 * lmr_sync_req; a no-op otherwise.
 *
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_PARAMETER.
 */
DAT_RETURN dat_lmr_sync_rdma_read(DAT_IA_HANDLE ia_handle,
				  const DAT_LMR_TRIPLET *local_segments,
				  DAT_VLEN num_segments);

/**
 * dat_lmr_sync_rdma_write() - make RDMA-written memory coherent for the CPU
 * @ia_handle: the IA
 * @local_segments: the memory that remote peers wrote
 * @num_segments: entries in @local_segments
 *
 * Needed after remote RDMA Writes only if the provider reports
 * lmr_sync_req; a no-op otherwise.
 *
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_PARAMETER.
 */
DAT_RETURN dat_lmr_sync_rdma_write(DAT_IA_HANDLE ia_handle,
				   const DAT_LMR_TRIPLET *local_segments,
				   DAT_VLEN num_segments);

/* ------------------------------------------------------------------ */
/* Remote memory regions                                               */
/* ------------------------------------------------------------------ */

/**
 * dat_rmr_create() - create an unbound remote memory region
 * @pz_handle: protection zone of the RMR
 * @rmr_handle: set to the new RMR
 *
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_PARAMETER;
 * DAT_INSUFFICIENT_RESOURCES; DAT_MODEL_NOT_SUPPORTED.
 */
DAT_RETURN dat_rmr_create(DAT_PZ_HANDLE pz_handle,
			  DAT_RMR_HANDLE *rmr_handle);

/**
 * dat_rmr_query() - query a remote memory region
 * @rmr_handle: the RMR
 * @rmr_param_mask: DAT_RMR_FIELD_* bits wanted
 * @rmr_param: filled with at least the requested fields
 *
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_PARAMETER.
 */
DAT_RETURN dat_rmr_query(DAT_RMR_HANDLE rmr_handle,
			 DAT_RMR_PARAM_MASK rmr_param_mask,
			 DAT_RMR_PARAM *rmr_param);

/**
 * dat_rmr_bind() - bind an RMR to part of an LMR, or unbind it
 * @rmr_handle: the RMR
 * @lmr_handle: the LMR containing @lmr_triplet
 * @lmr_triplet: the memory to expose; a segment_length of 0 unbinds
 * @mem_priv: DAT_MEM_PRIV_*_FLAG remote access rights
 * @va_type: DAT_VA_TYPE_VA or DAT_VA_TYPE_ZB
 * @ep_handle: the EP whose request queue carries the bind
 * @user_cookie: returned in the completion event
 * @completion_flags: DAT_COMPLETION_*_FLAG
 * @context: set to the new RMR context to give to the peer
 *
 * The bind completes as a DTO completion (operation DAT_DTO_BIND_MW) on
 * the EP's request EVD.
 *
 * Context: Any context; does not sleep.
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_PARAMETER;
 * DAT_INVALID_STATE; DAT_INSUFFICIENT_RESOURCES; DAT_LENGTH_ERROR;
 * DAT_PROTECTION_VIOLATION; DAT_PRIVILEGES_VIOLATION;
 * DAT_MODEL_NOT_SUPPORTED.
 */
DAT_RETURN dat_rmr_bind(DAT_RMR_HANDLE rmr_handle, DAT_LMR_HANDLE lmr_handle,
			const DAT_LMR_TRIPLET *lmr_triplet,
			DAT_MEM_PRIV_FLAGS mem_priv, DAT_VA_TYPE va_type,
			DAT_EP_HANDLE ep_handle, DAT_RMR_COOKIE user_cookie,
			DAT_COMPLETION_FLAGS completion_flags,
			DAT_RMR_CONTEXT *context);

/**
 * dat_rmr_free() - destroy a remote memory region
 * @rmr_handle: the RMR; a bound RMR is unbound first
 *
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_STATE.
 */
DAT_RETURN dat_rmr_free(DAT_RMR_HANDLE rmr_handle);

/* ------------------------------------------------------------------ */
/* Public service points                                               */
/* ------------------------------------------------------------------ */

/**
 * dat_psp_create() - listen on a connection qualifier
 * @ia_handle: the IA
 * @conn_qual: the connection qualifier (port) to listen on
 * @evd_handle: EVD for DAT_CONNECTION_REQUEST_EVENT
 * @psp_flags: DAT_PSP_CONSUMER_FLAG or DAT_PSP_PROVIDER_FLAG
 * @psp_handle: set to the new PSP
 *
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_PARAMETER;
 * DAT_CONN_QUAL_IN_USE; DAT_INSUFFICIENT_RESOURCES;
 * DAT_MODEL_NOT_SUPPORTED.
 */
DAT_RETURN dat_psp_create(DAT_IA_HANDLE ia_handle, DAT_CONN_QUAL conn_qual,
			  DAT_EVD_HANDLE evd_handle, DAT_PSP_FLAGS psp_flags,
			  DAT_PSP_HANDLE *psp_handle);

/**
 * dat_psp_create_any() - listen on a connection qualifier the IA chooses
 * @ia_handle: the IA
 * @conn_qual: set to the chosen connection qualifier
 * @evd_handle: EVD for DAT_CONNECTION_REQUEST_EVENT
 * @psp_flags: DAT_PSP_CONSUMER_FLAG or DAT_PSP_PROVIDER_FLAG
 * @psp_handle: set to the new PSP
 *
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_PARAMETER;
 * DAT_CONN_QUAL_UNAVAILABLE; DAT_INSUFFICIENT_RESOURCES;
 * DAT_MODEL_NOT_SUPPORTED.
 */
DAT_RETURN dat_psp_create_any(DAT_IA_HANDLE ia_handle,
			      DAT_CONN_QUAL *conn_qual,
			      DAT_EVD_HANDLE evd_handle,
			      DAT_PSP_FLAGS psp_flags,
			      DAT_PSP_HANDLE *psp_handle);

/**
 * dat_psp_query() - query a public service point
 * @psp_handle: the PSP
 * @psp_param_mask: DAT_PSP_FIELD_* bits wanted
 * @psp_param: filled with at least the requested fields
 *
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_PARAMETER.
 */
DAT_RETURN dat_psp_query(DAT_PSP_HANDLE psp_handle,
			 DAT_PSP_PARAM_MASK psp_param_mask,
			 DAT_PSP_PARAM *psp_param);

/**
 * dat_psp_free() - stop listening and destroy a public service point
 * @psp_handle: the PSP
 *
 * Connection requests already delivered stay valid.
 *
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE.
 */
DAT_RETURN dat_psp_free(DAT_PSP_HANDLE psp_handle);

/* ------------------------------------------------------------------ */
/* Reserved service points                                             */
/* ------------------------------------------------------------------ */

/**
 * dat_rsp_create() - accept one connection on a qualifier for an endpoint
 * @ia_handle: the IA
 * @conn_qual: the connection qualifier (port) to listen on
 * @ep_handle: the EP reserved for the connection; it moves to
 *	DAT_EP_STATE_RESERVED
 * @evd_handle: EVD for DAT_CONNECTION_REQUEST_EVENT
 * @rsp_handle: set to the new RSP
 *
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_PARAMETER;
 * DAT_INVALID_STATE (@ep_handle not unconnected); DAT_CONN_QUAL_IN_USE;
 * DAT_INSUFFICIENT_RESOURCES; DAT_MODEL_NOT_SUPPORTED.
 */
DAT_RETURN dat_rsp_create(DAT_IA_HANDLE ia_handle, DAT_CONN_QUAL conn_qual,
			  DAT_EP_HANDLE ep_handle, DAT_EVD_HANDLE evd_handle,
			  DAT_RSP_HANDLE *rsp_handle);

/**
 * dat_rsp_query() - query a reserved service point
 * @rsp_handle: the RSP
 * @rsp_param_mask: DAT_RSP_FIELD_* bits wanted
 * @rsp_param: filled with at least the requested fields
 *
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_PARAMETER.
 */
DAT_RETURN dat_rsp_query(DAT_RSP_HANDLE rsp_handle,
			 DAT_RSP_PARAM_MASK rsp_param_mask,
			 DAT_RSP_PARAM *rsp_param);

/**
 * dat_rsp_free() - destroy a reserved service point
 * @rsp_handle: the RSP; its EP returns to DAT_EP_STATE_UNCONNECTED
 *
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE.
 */
DAT_RETURN dat_rsp_free(DAT_RSP_HANDLE rsp_handle);

/* ------------------------------------------------------------------ */
/* Connection requests                                                 */
/* ------------------------------------------------------------------ */

/**
 * dat_cr_query() - query a connection request
 * @cr_handle: the CR, from a DAT_CONNECTION_REQUEST_EVENT
 * @cr_param_mask: DAT_CR_FIELD_* bits wanted
 * @cr_param: filled with at least the requested fields; private_data
 *	points into the CR and is valid until the CR is accepted or rejected
 *
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_PARAMETER.
 */
DAT_RETURN dat_cr_query(DAT_CR_HANDLE cr_handle,
			DAT_CR_PARAM_MASK cr_param_mask,
			DAT_CR_PARAM *cr_param);

/**
 * dat_cr_accept() - accept a connection request
 * @cr_handle: the CR; destroyed by the call
 * @ep_handle: the EP for the connection, or DAT_HANDLE_NULL to use the
 *	one the service point provided
 * @private_data_size: bytes of @private_data
 * @private_data: returned to the requester
 *
 * The connection is established when DAT_CONNECTION_EVENT_ESTABLISHED
 * arrives on the EP's connect EVD.
 *
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_PARAMETER;
 * DAT_INVALID_STATE; DAT_INSUFFICIENT_RESOURCES.
 */
DAT_RETURN dat_cr_accept(DAT_CR_HANDLE cr_handle, DAT_EP_HANDLE ep_handle,
			 DAT_COUNT private_data_size,
			 const DAT_PVOID private_data);

/**
 * dat_cr_reject() - reject a connection request
 * @cr_handle: the CR; destroyed by the call
 * @private_data_size: bytes of @private_data
 * @private_data: returned to the requester
 *
 * The requester sees DAT_CONNECTION_EVENT_PEER_REJECTED.
 *
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_PARAMETER.
 */
DAT_RETURN dat_cr_reject(DAT_CR_HANDLE cr_handle, DAT_COUNT private_data_size,
			 const DAT_PVOID private_data);

/**
 * dat_cr_handoff() - pass a connection request to another qualifier
 * @cr_handle: the CR; destroyed by the call
 * @handoff: connection qualifier of the service point to receive it
 *
 * Return: DAT_SUCCESS; DAT_INVALID_HANDLE; DAT_INVALID_PARAMETER (no
 * service point on @handoff).
 */
DAT_RETURN dat_cr_handoff(DAT_CR_HANDLE cr_handle, DAT_CONN_QUAL handoff);

/* dat_strerror() is declared in <dat2/dat_error.h>. */

#endif /* _DAT2_KDAT_H_ */
