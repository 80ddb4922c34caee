/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * DAT 2.0 types shared by the user (uDAT) and kernel (kDAT) APIs.
 *
 * Consumers include <dat2/kdat.h>, which includes this file and adds the
 * kernel-specific types (upcalls, memory types, the IA, provider, EVD and
 * LMR attribute structures) and the function prototypes. This file alone
 * only declares those structures.
 *
 * The names, the numeric values, the struct field names and the field order
 * are fixed by the DAT 2.0 specification and must stay identical to the
 * published DAT 2.0 headers (the OpenFabrics dapl dat2/ headers, as
 * configured for Linux with DAT_EXTENSIONS). Do not renumber, reorder or
 * reuse anything here. The kernel types underneath (u32, u64, struct
 * sockaddr) have the sizes the published Linux headers use.
 */
#ifndef _DAT2_DAT_H_
#define _DAT2_DAT_H_

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/socket.h>
#include <linux/types.h>

#include <dat2/dat_error.h>

/*
 * kDAPL is built with the DAT extension framework: the *_EXTENSION_BASE
 * values and the extension fields of DAT_IA_ATTR are always present, so
 * the layout of every structure is the same for all consumers.
 */
#ifndef DAT_EXTENSIONS
#define DAT_EXTENSIONS		1
#endif

#define DAT_IB_EXTENSION	1
#define DAT_IW_EXTENSION	2

/* ------------------------------------------------------------------ */
/* Scalar types                                                        */
/* ------------------------------------------------------------------ */

typedef u32 DAT_UINT32;			/* unsigned, host order, 32 bits */
typedef u64 DAT_UINT64;			/* unsigned, host order, 64 bits */
typedef unsigned long long DAT_UVERYLONG; /* longest native unsigned */
typedef void *DAT_PVOID;
typedef int DAT_COUNT;
typedef DAT_UINT64 DAT_PADDR;		/* always 64 bits, as published */

/* Performance-optimal buffer alignment, in bytes. */
#ifndef DAT_OPTIMAL_ALIGNMENT
#define DAT_OPTIMAL_ALIGNMENT	256
#endif

/*
 * IA addresses are the native socket addresses: a DAT_IA_ADDRESS_PTR
 * points to a struct sockaddr_in or struct sockaddr_in6 that the caller
 * owns, with the family set.
 */
typedef struct sockaddr DAT_SOCK_ADDR;
typedef struct sockaddr_in6 DAT_SOCK_ADDR6;

#define DAT_AF_INET		AF_INET
#define DAT_AF_INET6		AF_INET6

/* Communicator of a CSP or an endpoint: socket(2)-style triple. */
typedef struct dat_comm {
	int domain;
	int type;
	int protocol;
} DAT_COMM;

typedef char *DAT_NAME_PTR;		/* IA names and attribute names */
#define DAT_NAME_MAX_LENGTH	256

/* Provider-, vendor- or transport-specific attribute: name = value. */
typedef struct dat_named_attr {
	const char *name;
	const char *value;
} DAT_NAMED_ATTR;

typedef enum dat_boolean {
	DAT_FALSE = 0,
	DAT_TRUE = 1,
} DAT_BOOLEAN;

/* High-availability load balancing (DAT_PROVIDER_ATTR.ha_loadbalancing). */
typedef DAT_UINT32 DAT_HA_LB;
#define DAT_HA_LB_NONE		((DAT_HA_LB)0)
#define DAT_HA_LB_INTERCOMM	((DAT_HA_LB)1)
#define DAT_HA_LB_INTRACOMM	((DAT_HA_LB)2)

/* Consumer context attached to a handle, and the cookies of DTOs/binds. */
typedef union dat_context {
	DAT_PVOID as_ptr;
	DAT_UINT64 as_64;
	DAT_UVERYLONG as_index;
} DAT_CONTEXT;

typedef DAT_CONTEXT DAT_DTO_COOKIE;
typedef DAT_CONTEXT DAT_RMR_COOKIE;

/* Timeouts are in microseconds. */
typedef DAT_UINT32 DAT_TIMEOUT;
#define DAT_TIMEOUT_INFINITE	((DAT_TIMEOUT)~0)

/* ------------------------------------------------------------------ */
/* Handles                                                             */
/* ------------------------------------------------------------------ */

typedef DAT_PVOID DAT_HANDLE;
typedef DAT_HANDLE DAT_CR_HANDLE;
typedef DAT_HANDLE DAT_EP_HANDLE;
typedef DAT_HANDLE DAT_EVD_HANDLE;
typedef DAT_HANDLE DAT_IA_HANDLE;
typedef DAT_HANDLE DAT_LMR_HANDLE;
typedef DAT_HANDLE DAT_PSP_HANDLE;
typedef DAT_HANDLE DAT_PZ_HANDLE;
typedef DAT_HANDLE DAT_RMR_HANDLE;
typedef DAT_HANDLE DAT_RSP_HANDLE;
typedef DAT_HANDLE DAT_SRQ_HANDLE;
typedef DAT_HANDLE DAT_CSP_HANDLE;

/*
 * kDAT has no CNO objects; the name is the uDAT one, kept so that code
 * shared with uDAT consumers compiles. There is no DAT_HANDLE_TYPE_CNO in
 * kDAT (see DAT_HANDLE_TYPE in kdat.h).
 */
typedef DAT_HANDLE DAT_CNO_HANDLE;

#define DAT_HANDLE_NULL		((DAT_HANDLE)NULL)

#define DAT_IA_HANDLE_TO_UL(a)	((unsigned long)(a))
#define DAT_UL_TO_IA_HANDLE(a)	((DAT_IA_HANDLE)(a))

/* ------------------------------------------------------------------ */
/* Addresses, qualifiers, flags                                        */
/* ------------------------------------------------------------------ */

/* A DAT_SOCK_ADDR pointer. */
typedef struct sockaddr *DAT_IA_ADDRESS_PTR;

typedef DAT_UINT64 DAT_CONN_QUAL;
typedef DAT_UINT64 DAT_PORT_QUAL;

typedef enum dat_completion_flags {
	/* complete with notification */
	DAT_COMPLETION_DEFAULT_FLAG		= 0x00,
	/* no completion if successful */
	DAT_COMPLETION_SUPPRESS_FLAG		= 0x01,
	/* receive completion notified only if the sender solicited it */
	DAT_COMPLETION_SOLICITED_WAIT_FLAG	= 0x02,
	/* completion without notification */
	DAT_COMPLETION_UNSIGNALLED_FLAG		= 0x04,
	/* start only after all earlier RDMA Reads completed */
	DAT_COMPLETION_BARRIER_FENCE_FLAG	= 0x08,
	/* uDAT only (dat_evd_wait threshold) */
	DAT_COMPLETION_EVD_THRESHOLD_FLAG	= 0x10,
	/* kDAT only: LMR invalidate waits for earlier request DTOs */
	DAT_COMPLETION_LMR_INVALIDATE_FENCE_FLAG = 0x20,
} DAT_COMPLETION_FLAGS;

/* Operation of a completed DTO (DAT_DTO_COMPLETION_EVENT_DATA.operation). */
typedef enum dat_dtos {
	DAT_DTO_SEND,
	DAT_DTO_RDMA_WRITE,
	DAT_DTO_RDMA_READ,
	DAT_DTO_RECEIVE,
	DAT_DTO_RECEIVE_WITH_INVALIDATE,
	DAT_DTO_BIND_MW,		/* RMR binds complete as DTOs */
	DAT_DTO_LMR_FMR,		/* kDAT only */
	DAT_DTO_LMR_INVALIDATE,		/* kDAT only */
	DAT_DTO_EXTENSION_BASE,		/* first extension DTO */
} DAT_DTOS;

typedef enum dat_qos {
	DAT_QOS_BEST_EFFORT		= 0x00,
	DAT_QOS_HIGH_THROUGHPUT		= 0x01,
	DAT_QOS_LOW_LATENCY		= 0x02,
	DAT_QOS_ECONOMY			= 0x04,	/* neither of the above */
	DAT_QOS_PREMIUM			= 0x08,	/* both of the above */
} DAT_QOS;

typedef enum dat_connect_flags {
	DAT_CONNECT_DEFAULT_FLAG		= 0x00,
	DAT_CONNECT_MULTIPATH_FLAG		= 0x01,
	DAT_CONNECT_MULTIPATH_REQUIRED_FLAG	= 0x02,
} DAT_CONNECT_FLAGS;

/* The published spelling of DAT_CONNECT_MULTIPATH_FLAG. */
#define DAT_CONNECT_MULTIPATH_REQUESTED_FLAG	DAT_CONNECT_MULTIPATH_FLAG

typedef enum dat_close_flags {
	DAT_CLOSE_ABRUPT_FLAG		= 0x00,
	DAT_CLOSE_GRACEFUL_FLAG		= 0x01,
} DAT_CLOSE_FLAGS;

#define DAT_CLOSE_DEFAULT	DAT_CLOSE_ABRUPT_FLAG

/* Event streams an EVD accepts. */
typedef enum dat_evd_flags {
	DAT_EVD_SOFTWARE_FLAG		= 0x001,
	DAT_EVD_CR_FLAG			= 0x010,
	DAT_EVD_DTO_FLAG		= 0x020,
	DAT_EVD_CONNECTION_FLAG		= 0x040,
	DAT_EVD_RMR_BIND_FLAG		= 0x080,
	DAT_EVD_ASYNC_FLAG		= 0x100,
	/* every DAT event stream, no software events */
	DAT_EVD_DEFAULT_FLAG		= 0x1f0,
	DAT_EVD_EXTENSION_BASE		= 0x200,
} DAT_EVD_FLAGS;

typedef enum dat_psp_flags {
	DAT_PSP_CONSUMER_FLAG		= 0x00,	/* consumer supplies the EP */
	DAT_PSP_PROVIDER_FLAG		= 0x01,	/* provider creates the EP */
} DAT_PSP_FLAGS;

/* ------------------------------------------------------------------ */
/* Memory                                                              */
/* ------------------------------------------------------------------ */

/*
 * LMR and RMR triplets carry 64-bit addresses in host byte order, even on
 * 32-bit hosts. Conversion to a wire format is the consumer's business.
 */
typedef DAT_UINT32 DAT_LMR_CONTEXT;
typedef DAT_UINT32 DAT_RMR_CONTEXT;

typedef DAT_UINT64 DAT_VLEN;
typedef DAT_UINT64 DAT_VADDR;
typedef DAT_UINT32 DAT_SEG_LENGTH;	/* length of one data segment */

/* Defined in kdat.h: their layout is kDAT-specific. */
typedef struct dat_provider_attr DAT_PROVIDER_ATTR;
typedef struct dat_evd_param DAT_EVD_PARAM;
typedef struct dat_lmr_param DAT_LMR_PARAM;
typedef enum dat_lmr_param_mask DAT_LMR_PARAM_MASK;

/*
 * A segment_length of 0 is legal; the other two fields are then ignored
 * and may be invalid.
 */
typedef struct dat_lmr_triplet {
	DAT_VADDR virtual_address;
	DAT_SEG_LENGTH segment_length;
	DAT_LMR_CONTEXT lmr_context;
} DAT_LMR_TRIPLET;

typedef struct dat_rmr_triplet {
	DAT_VADDR virtual_address;
	DAT_SEG_LENGTH segment_length;
	DAT_RMR_CONTEXT rmr_context;
} DAT_RMR_TRIPLET;

typedef enum dat_mem_priv_flags {
	DAT_MEM_PRIV_NONE_FLAG		= 0x00,
	DAT_MEM_PRIV_LOCAL_READ_FLAG	= 0x01,
	DAT_MEM_PRIV_REMOTE_READ_FLAG	= 0x02,
	DAT_MEM_PRIV_LOCAL_WRITE_FLAG	= 0x10,
	DAT_MEM_PRIV_REMOTE_WRITE_FLAG	= 0x20,
	DAT_MEM_PRIV_ALL_FLAG		= 0x33,
	DAT_MEM_PRIV_EXTENSION_BASE	= 0x40,
} DAT_MEM_PRIV_FLAGS;

/* DAT 1.0 privilege names. */
#define DAT_MEM_PRIV_READ_FLAG \
	(DAT_MEM_PRIV_LOCAL_READ_FLAG | DAT_MEM_PRIV_REMOTE_READ_FLAG)
#define DAT_MEM_PRIV_WRITE_FLAG \
	(DAT_MEM_PRIV_LOCAL_WRITE_FLAG | DAT_MEM_PRIV_REMOTE_WRITE_FLAG)

/* Addressing of an LMR or RMR: virtual addresses or zero based. */
typedef enum dat_va_type {
	DAT_VA_TYPE_VA			= 0x0,
	DAT_VA_TYPE_ZB			= 0x1,
} DAT_VA_TYPE;

/* Protection scope of an RMR. */
typedef enum dat_rmr_scope {
	DAT_RMR_SCOPE_EP,		/* bound to at most one EP at a time */
	DAT_RMR_SCOPE_PZ,		/* bound to a protection zone */
	DAT_RMR_SCOPE_ANY,		/* provider supports both */
} DAT_RMR_SCOPE;

typedef struct dat_rmr_param {
	DAT_IA_HANDLE ia_handle;
	DAT_PZ_HANDLE pz_handle;
	DAT_LMR_TRIPLET lmr_triplet;
	DAT_MEM_PRIV_FLAGS mem_priv;
	DAT_RMR_CONTEXT rmr_context;
	DAT_RMR_SCOPE rmr_scope;
	DAT_VA_TYPE va_type;
} DAT_RMR_PARAM;

typedef enum dat_rmr_param_mask {
	DAT_RMR_FIELD_IA_HANDLE		= 0x01,
	DAT_RMR_FIELD_PZ_HANDLE		= 0x02,
	DAT_RMR_FIELD_LMR_TRIPLET	= 0x04,
	DAT_RMR_FIELD_MEM_PRIV		= 0x08,
	DAT_RMR_FIELD_RMR_CONTEXT	= 0x10,
	DAT_RMR_FIELD_RMR_SCOPE		= 0x20,
	DAT_RMR_FIELD_VA_TYPE		= 0x40,
	DAT_RMR_FIELD_ALL		= 0x7f,
} DAT_RMR_PARAM_MASK;

/* ------------------------------------------------------------------ */
/* IA and provider attributes (structures in kdat.h)                   */
/* ------------------------------------------------------------------ */

/* Who owns an IOV after a DTO completes. */
typedef enum dat_iov_ownership {
	DAT_IOV_CONSUMER		= 0x0,	/* provider never touches it */
	DAT_IOV_PROVIDER_NOMOD		= 0x1,	/* provider leaves it intact */
	DAT_IOV_PROVIDER_MOD		= 0x2,	/* provider may modify it */
} DAT_IOV_OWNERSHIP;

typedef enum dat_ep_creator_for_psp {
	DAT_PSP_CREATES_EP_NEVER,
	DAT_PSP_CREATES_EP_IFASKED,
	DAT_PSP_CREATES_EP_ALWAYS,
} DAT_EP_CREATOR_FOR_PSP;

/* Extension an IA supports (DAT_IA_ATTR.extension_supported). */
typedef enum dat_extension {
	DAT_EXTENSION_NONE,
	DAT_EXTENSION_IB,
	DAT_EXTENSION_IW,
} DAT_EXTENSION;

typedef struct dat_ia_attr DAT_IA_ATTR;

typedef DAT_UINT64 DAT_IA_ATTR_MASK;
typedef DAT_UINT64 DAT_PROVIDER_ATTR_MASK;

/* IA attribute mask bits common to uDAT and kDAT; the rest in kdat.h. */
#define DAT_IA_FIELD_IA_ADAPTER_NAME			0x000000001ULL
#define DAT_IA_FIELD_IA_VENDOR_NAME			0x000000002ULL
#define DAT_IA_FIELD_IA_HARDWARE_MAJOR_VERSION		0x000000004ULL
#define DAT_IA_FIELD_IA_HARDWARE_MINOR_VERSION		0x000000008ULL
#define DAT_IA_FIELD_IA_FIRMWARE_MAJOR_VERSION		0x000000010ULL
#define DAT_IA_FIELD_IA_FIRMWARE_MINOR_VERSION		0x000000020ULL
#define DAT_IA_FIELD_IA_ADDRESS_PTR			0x000000040ULL
#define DAT_IA_FIELD_IA_MAX_EPS				0x000000080ULL
#define DAT_IA_FIELD_IA_MAX_DTO_PER_EP			0x000000100ULL
#define DAT_IA_FIELD_IA_MAX_RDMA_READ_PER_EP_IN		0x000000200ULL
#define DAT_IA_FIELD_IA_MAX_RDMA_READ_PER_EP_OUT	0x000000400ULL
#define DAT_IA_FIELD_IA_MAX_EVDS			0x000000800ULL
#define DAT_IA_FIELD_IA_MAX_EVD_QLEN			0x000001000ULL
#define DAT_IA_FIELD_IA_MAX_IOV_SEGMENTS_PER_DTO	0x000002000ULL
#define DAT_IA_FIELD_IA_MAX_LMRS			0x000004000ULL
#define DAT_IA_FIELD_IA_MAX_LMR_BLOCK_SIZE		0x000008000ULL
#define DAT_IA_FIELD_IA_MAX_LMR_VIRTUAL_ADDRESS		0x000010000ULL
#define DAT_IA_FIELD_IA_MAX_PZS				0x000020000ULL
#define DAT_IA_FIELD_IA_MAX_MESSAGE_SIZE		0x000040000ULL
#define DAT_IA_FIELD_IA_MAX_RDMA_SIZE			0x000080000ULL
#define DAT_IA_FIELD_IA_MAX_RMRS			0x000100000ULL
#define DAT_IA_FIELD_IA_MAX_RMR_TARGET_ADDRESS		0x000200000ULL
#define DAT_IA_FIELD_IA_MAX_SRQS			0x000400000ULL
#define DAT_IA_FIELD_IA_MAX_EP_PER_SRQ			0x000800000ULL
#define DAT_IA_FIELD_IA_MAX_RECV_PER_SRQ		0x001000000ULL
#define DAT_IA_FIELD_IA_MAX_IOV_SEGMENTS_PER_RDMA_READ	0x002000000ULL
#define DAT_IA_FIELD_IA_MAX_IOV_SEGMENTS_PER_RDMA_WRITE	0x004000000ULL
#define DAT_IA_FIELD_IA_MAX_RDMA_READ_IN		0x008000000ULL
#define DAT_IA_FIELD_IA_MAX_RDMA_READ_OUT		0x010000000ULL
#define DAT_IA_FIELD_IA_MAX_RDMA_READ_PER_EP_IN_GUARANTEED  0x020000000ULL
#define DAT_IA_FIELD_IA_MAX_RDMA_READ_PER_EP_OUT_GUARANTEED 0x040000000ULL
#define DAT_IA_FIELD_IA_ZB_SUPPORTED			0x080000000ULL
/*
 * The common header's bit for the uDAT extension_supported field. In kDAT
 * this bit selects reserved_lmr_supported (it equals
 * DAT_IA_FIELD_IA_RESERVED_LMR_SUPPORTED); kDAT consumers use
 * DAT_IA_FIELD_IA_EXTENSION from kdat.h for extension_supported.
 */
#define DAT_IA_FIELD_IA_EXTENSIONS_SUPPORTED		0x100000000ULL

#define DAT_IA_FIELD_NONE				0x0ULL
#define DAT_IA_ALL					DAT_IA_FIELD_ALL

/* DAT 1.x names. */
#define DAT_IA_FIELD_IA_MAX_MTU_SIZE	DAT_IA_FIELD_IA_MAX_MESSAGE_SIZE

/* ------------------------------------------------------------------ */
/* Endpoints                                                           */
/* ------------------------------------------------------------------ */

typedef enum dat_service_type {
	DAT_SERVICE_TYPE_RC,			/* reliable connection */
	DAT_SERVICE_TYPE_EXTENSION_BASE,
} DAT_SERVICE_TYPE;

typedef struct dat_ep_attr {
	DAT_SERVICE_TYPE service_type;
	DAT_SEG_LENGTH max_message_size;
	DAT_SEG_LENGTH max_rdma_size;
	DAT_QOS qos;
	DAT_COMPLETION_FLAGS recv_completion_flags;
	DAT_COMPLETION_FLAGS request_completion_flags;
	DAT_COUNT max_recv_dtos;
	DAT_COUNT max_request_dtos;
	DAT_COUNT max_recv_iov;
	DAT_COUNT max_request_iov;
	DAT_COUNT max_rdma_read_in;
	DAT_COUNT max_rdma_read_out;
	DAT_COUNT srq_soft_hw;
	DAT_COUNT max_rdma_read_iov;
	DAT_COUNT max_rdma_write_iov;
	DAT_COUNT ep_transport_specific_count;
	DAT_NAMED_ATTR *ep_transport_specific;
	DAT_COUNT ep_provider_specific_count;
	DAT_NAMED_ATTR *ep_provider_specific;
} DAT_EP_ATTR;

typedef enum dat_ep_state {
	DAT_EP_STATE_UNCONNECTED,		/* quiescent */
	DAT_EP_STATE_UNCONFIGURED_UNCONNECTED,
	DAT_EP_STATE_RESERVED,
	DAT_EP_STATE_UNCONFIGURED_RESERVED,
	DAT_EP_STATE_PASSIVE_CONNECTION_PENDING,
	DAT_EP_STATE_UNCONFIGURED_PASSIVE,
	DAT_EP_STATE_ACTIVE_CONNECTION_PENDING,
	DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING,
	DAT_EP_STATE_UNCONFIGURED_TENTATIVE,
	DAT_EP_STATE_CONNECTED,
	DAT_EP_STATE_DISCONNECT_PENDING,
	DAT_EP_STATE_DISCONNECTED,
	DAT_EP_STATE_COMPLETION_PENDING,
	DAT_EP_STATE_CONNECTED_SINGLE_PATH,
	DAT_EP_STATE_CONNECTED_MULTI_PATH,
} DAT_EP_STATE;

/* DAT 1.x name. */
#define DAT_EP_STATE_ERROR	DAT_EP_STATE_DISCONNECTED

typedef struct dat_ep_param {
	DAT_IA_HANDLE ia_handle;
	DAT_EP_STATE ep_state;
	DAT_COMM comm;
	DAT_IA_ADDRESS_PTR local_ia_address_ptr;
	DAT_PORT_QUAL local_port_qual;
	DAT_IA_ADDRESS_PTR remote_ia_address_ptr;
	DAT_PORT_QUAL remote_port_qual;
	DAT_PZ_HANDLE pz_handle;
	DAT_EVD_HANDLE recv_evd_handle;
	DAT_EVD_HANDLE request_evd_handle;
	DAT_EVD_HANDLE connect_evd_handle;
	DAT_SRQ_HANDLE srq_handle;
	DAT_EP_ATTR ep_attr;
} DAT_EP_PARAM;

typedef DAT_UINT64 DAT_EP_PARAM_MASK;

#define DAT_EP_FIELD_IA_HANDLE				0x00000001ULL
#define DAT_EP_FIELD_EP_STATE				0x00000002ULL
#define DAT_EP_FIELD_COMM				0x00000004ULL
#define DAT_EP_FIELD_LOCAL_IA_ADDRESS_PTR		0x00000008ULL
#define DAT_EP_FIELD_LOCAL_PORT_QUAL			0x00000010ULL
#define DAT_EP_FIELD_REMOTE_IA_ADDRESS_PTR		0x00000020ULL
#define DAT_EP_FIELD_REMOTE_PORT_QUAL			0x00000040ULL
#define DAT_EP_FIELD_PZ_HANDLE				0x00000080ULL
#define DAT_EP_FIELD_RECV_EVD_HANDLE			0x00000100ULL
#define DAT_EP_FIELD_REQUEST_EVD_HANDLE			0x00000200ULL
#define DAT_EP_FIELD_CONNECT_EVD_HANDLE			0x00000400ULL
#define DAT_EP_FIELD_SRQ_HANDLE				0x00000800ULL
/* The fields of ep_attr, from 0x1000 up. */
#define DAT_EP_FIELD_EP_ATTR_SERVICE_TYPE		0x00001000ULL
#define DAT_EP_FIELD_EP_ATTR_MAX_MESSAGE_SIZE		0x00002000ULL
#define DAT_EP_FIELD_EP_ATTR_MAX_RDMA_SIZE		0x00004000ULL
#define DAT_EP_FIELD_EP_ATTR_QOS			0x00008000ULL
#define DAT_EP_FIELD_EP_ATTR_RECV_COMPLETION_FLAGS	0x00010000ULL
#define DAT_EP_FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS	0x00020000ULL
#define DAT_EP_FIELD_EP_ATTR_MAX_RECV_DTOS		0x00040000ULL
#define DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_DTOS		0x00080000ULL
#define DAT_EP_FIELD_EP_ATTR_MAX_RECV_IOV		0x00100000ULL
#define DAT_EP_FIELD_EP_ATTR_MAX_REQUEST_IOV		0x00200000ULL
#define DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IN		0x00400000ULL
#define DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_OUT		0x00800000ULL
#define DAT_EP_FIELD_EP_ATTR_SRQ_SOFT_HW		0x01000000ULL
#define DAT_EP_FIELD_EP_ATTR_MAX_RDMA_READ_IOV		0x02000000ULL
#define DAT_EP_FIELD_EP_ATTR_MAX_RDMA_WRITE_IOV		0x04000000ULL
#define DAT_EP_FIELD_EP_ATTR_NUM_TRANSPORT_ATTR		0x08000000ULL
#define DAT_EP_FIELD_EP_ATTR_TRANSPORT_SPECIFIC_ATTR	0x10000000ULL
#define DAT_EP_FIELD_EP_ATTR_NUM_PROVIDER_ATTR		0x20000000ULL
#define DAT_EP_FIELD_EP_ATTR_PROVIDER_SPECIFIC_ATTR	0x40000000ULL
#define DAT_EP_FIELD_EP_ATTR_ALL			0x7ffff000ULL

#define DAT_EP_FIELD_ALL				0x7fffffffULL

#define DAT_WATERMARK_INFINITE	((DAT_COUNT)~0)
#define DAT_HW_DEFAULT		DAT_WATERMARK_INFINITE
#define DAT_SRQ_LW_DEFAULT	0x0
#define DAT_VALUE_UNKNOWN	(((DAT_COUNT)~0) - 1)

/* ------------------------------------------------------------------ */
/* Shared receive queues                                               */
/* ------------------------------------------------------------------ */

typedef enum dat_srq_state {
	DAT_SRQ_STATE_OPERATIONAL,
	DAT_SRQ_STATE_ERROR,
} DAT_SRQ_STATE;

typedef struct dat_srq_attr {
	DAT_COUNT max_recv_dtos;
	DAT_COUNT max_recv_iov;
	DAT_COUNT low_watermark;
} DAT_SRQ_ATTR;

typedef struct dat_srq_param {
	DAT_IA_HANDLE ia_handle;
	DAT_SRQ_STATE srq_state;
	DAT_PZ_HANDLE pz_handle;
	DAT_COUNT max_recv_dtos;
	DAT_COUNT max_recv_iov;
	DAT_COUNT low_watermark;
	DAT_COUNT available_dto_count;
	DAT_COUNT outstanding_dto_count;
} DAT_SRQ_PARAM;

typedef enum dat_srq_param_mask {
	DAT_SRQ_FIELD_IA_HANDLE			= 0x001,
	DAT_SRQ_FIELD_SRQ_STATE			= 0x002,
	DAT_SRQ_FIELD_PZ_HANDLE			= 0x004,
	DAT_SRQ_FIELD_MAX_RECV_DTO		= 0x008,
	DAT_SRQ_FIELD_MAX_RECV_IOV		= 0x010,
	DAT_SRQ_FIELD_LOW_WATERMARK		= 0x020,
	DAT_SRQ_FIELD_AVAILABLE_DTO_COUNT	= 0x040,
	DAT_SRQ_FIELD_OUTSTANDING_DTO_COUNT	= 0x080,
	DAT_SRQ_FIELD_ALL			= 0x0ff,
} DAT_SRQ_PARAM_MASK;

/* ------------------------------------------------------------------ */
/* Protection zones and service points                                 */
/* ------------------------------------------------------------------ */

typedef struct dat_pz_param {
	DAT_IA_HANDLE ia_handle;
} DAT_PZ_PARAM;

typedef enum dat_pz_param_mask {
	DAT_PZ_FIELD_IA_HANDLE		= 0x01,
	DAT_PZ_FIELD_ALL		= 0x01,
} DAT_PZ_PARAM_MASK;

typedef struct dat_psp_param {
	DAT_IA_HANDLE ia_handle;
	DAT_CONN_QUAL conn_qual;
	DAT_EVD_HANDLE evd_handle;
	DAT_PSP_FLAGS psp_flags;
} DAT_PSP_PARAM;

typedef enum dat_psp_param_mask {
	DAT_PSP_FIELD_IA_HANDLE		= 0x01,
	DAT_PSP_FIELD_CONN_QUAL		= 0x02,
	DAT_PSP_FIELD_EVD_HANDLE	= 0x04,
	DAT_PSP_FIELD_PSP_FLAGS		= 0x08,
	DAT_PSP_FIELD_ALL		= 0x0f,
} DAT_PSP_PARAM_MASK;

typedef struct dat_rsp_param {
	DAT_IA_HANDLE ia_handle;
	DAT_CONN_QUAL conn_qual;
	DAT_EVD_HANDLE evd_handle;
	DAT_EP_HANDLE ep_handle;
} DAT_RSP_PARAM;

typedef enum dat_rsp_param_mask {
	DAT_RSP_FIELD_IA_HANDLE		= 0x01,
	DAT_RSP_FIELD_CONN_QUAL		= 0x02,
	DAT_RSP_FIELD_EVD_HANDLE	= 0x04,
	DAT_RSP_FIELD_EP_HANDLE		= 0x08,
	DAT_RSP_FIELD_ALL		= 0x0f,
} DAT_RSP_PARAM_MASK;

typedef struct dat_csp_param {
	DAT_IA_HANDLE ia_handle;
	DAT_COMM *comm;
	DAT_IA_ADDRESS_PTR address_ptr;
	DAT_EVD_HANDLE evd_handle;
} DAT_CSP_PARAM;

typedef enum dat_csp_param_mask {
	DAT_CSP_FIELD_IA_HANDLE		= 0x01,
	DAT_CSP_FIELD_COMM		= 0x02,
	DAT_CSP_FIELD_IA_ADDRESS	= 0x04,
	DAT_CSP_FIELD_EVD_HANDLE	= 0x08,
	DAT_CSP_FIELD_ALL		= 0x0f,
} DAT_CSP_PARAM_MASK;

/* ------------------------------------------------------------------ */
/* Connection requests                                                 */
/* ------------------------------------------------------------------ */

/*
 * The remote endpoint's attributes are not part of a connection request;
 * peers that need them exchange them in the private data.
 */
typedef struct dat_cr_param {
	DAT_IA_ADDRESS_PTR remote_ia_address_ptr;	/* requesting IA */
	DAT_PORT_QUAL remote_port_qual;
	DAT_COUNT private_data_size;
	DAT_PVOID private_data;		/* as sent by the requester */
	/* EP the service point provided, or DAT_HANDLE_NULL */
	DAT_EP_HANDLE local_ep_handle;
} DAT_CR_PARAM;

typedef enum dat_cr_param_mask {
	DAT_CR_FIELD_REMOTE_IA_ADDRESS_PTR	= 0x01,
	DAT_CR_FIELD_REMOTE_PORT_QUAL		= 0x02,
	DAT_CR_FIELD_PRIVATE_DATA_SIZE		= 0x04,
	DAT_CR_FIELD_PRIVATE_DATA		= 0x08,
	DAT_CR_FIELD_LOCAL_EP_HANDLE		= 0x10,
	DAT_CR_FIELD_ALL			= 0x1f,
} DAT_CR_PARAM_MASK;

/* ------------------------------------------------------------------ */
/* Events                                                              */
/* ------------------------------------------------------------------ */

/* Status of a completed DTO or RMR bind. */
typedef enum dat_dto_completion_status {
	DAT_DTO_SUCCESS			= 0,
	DAT_DTO_ERR_FLUSHED		= 1,
	DAT_DTO_ERR_LOCAL_LENGTH	= 2,
	DAT_DTO_ERR_LOCAL_EP		= 3,
	DAT_DTO_ERR_LOCAL_PROTECTION	= 4,
	DAT_DTO_ERR_BAD_RESPONSE	= 5,
	DAT_DTO_ERR_REMOTE_ACCESS	= 6,
	DAT_DTO_ERR_REMOTE_RESPONDER	= 7,
	DAT_DTO_ERR_TRANSPORT		= 8,
	DAT_DTO_ERR_RECEIVER_NOT_READY	= 9,
	DAT_DTO_ERR_PARTIAL_PACKET	= 10,
	DAT_RMR_OPERATION_FAILED	= 11,
	DAT_DTO_ERR_LOCAL_MM_ERROR	= 12,	/* kDAT only */
} DAT_DTO_COMPLETION_STATUS;

/* DAT 1.x names. */
#define DAT_DTO_LENGTH_ERROR	DAT_DTO_ERR_LOCAL_LENGTH
#define DAT_DTO_FAILURE		DAT_DTO_ERR_FLUSHED
#define DAT_RMR_BIND_SUCCESS	DAT_DTO_SUCCESS
#define DAT_RMR_BIND_FAILURE	DAT_DTO_ERR_FLUSHED

#define DAT_RMR_BIND_COMPLETION_STATUS	DAT_DTO_COMPLETION_STATUS

/*
 * DTO completion. transfered_length (sic, the specification's spelling),
 * operation and rmr_context are defined only when status is
 * DAT_DTO_SUCCESS.
 */
typedef struct dat_dto_completion_event_data {
	DAT_EP_HANDLE ep_handle;
	DAT_DTO_COOKIE user_cookie;
	DAT_DTO_COMPLETION_STATUS status;
	DAT_SEG_LENGTH transfered_length;
	DAT_DTOS operation;
	DAT_RMR_CONTEXT rmr_context;	/* invalidated by the peer */
} DAT_DTO_COMPLETION_EVENT_DATA;

typedef struct dat_rmr_bind_completion_event_data {
	DAT_RMR_HANDLE rmr_handle;
	DAT_RMR_COOKIE user_cookie;
	DAT_RMR_BIND_COMPLETION_STATUS status;
} DAT_RMR_BIND_COMPLETION_EVENT_DATA;

typedef union dat_sp_handle {
	DAT_RSP_HANDLE rsp_handle;
	DAT_PSP_HANDLE psp_handle;
	DAT_CSP_HANDLE csp_handle;
} DAT_SP_HANDLE;

/*
 * Connection request arrival. sp_handle is the PSP, CSP or RSP that
 * received the request; DAT_HANDLE_NULL for an RSP, which is destroyed
 * when it generates this event. The consumer accepts or rejects cr_handle.
 * truncate_flag is DAT_TRUE if the private data was truncated.
 */
typedef struct dat_cr_arrival_event_data {
	DAT_SP_HANDLE sp_handle;
	DAT_IA_ADDRESS_PTR local_ia_address_ptr;
	DAT_CONN_QUAL conn_qual;
	DAT_CR_HANDLE cr_handle;
	DAT_BOOLEAN truncate_flag;
} DAT_CR_ARRIVAL_EVENT_DATA;

typedef struct dat_connection_event_data {
	DAT_EP_HANDLE ep_handle;
	DAT_COUNT private_data_size;
	DAT_PVOID private_data;
} DAT_CONNECTION_EVENT_DATA;

/*
 * Asynchronous error. dat_handle is the IA for unaffiliated errors,
 * otherwise the affected EP, EVD, SRQ, LMR, RMR or PZ; reason is one of
 * the object-specific reasons below.
 */
typedef struct dat_asynch_error_event_data {
	DAT_HANDLE dat_handle;
	DAT_COUNT reason;
} DAT_ASYNCH_ERROR_EVENT_DATA;

typedef enum ia_async_error_reason {
	DAT_IA_CATASTROPHIC_ERROR,
	DAT_IA_OTHER_ERROR,
} DAT_IA_ASYNC_ERROR_REASON;

typedef enum ep_async_error_reason {
	DAT_EP_TRANSFER_TO_ERROR,
	DAT_EP_OTHER_ERROR,
	DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT,
} DAT_EP_ASYNC_ERROR_REASON;

typedef enum evd_async_error_reason {
	DAT_EVD_OVERFLOW_ERROR,
	DAT_EVD_OTHER_ERROR,
} DAT_EVD_ASYNC_ERROR_REASON;

typedef enum srq_async_error_reason {
	DAT_SRQ_TRANSFER_TO_ERROR,
	DAT_SRQ_OTHER_ERROR,
	DAT_SRQ_LOW_WATERMARK_EVENT,
} DAT_SRQ_ASYNC_ERROR_REASON;

typedef enum lmr_async_error_reason {
	DAT_LMR_OTHER_ERROR,
} DAT_LMR_ASYNC_ERROR_REASON;

typedef enum rmr_async_error_reason {
	DAT_RMR_OTHER_ERROR,
} DAT_RMR_ASYNC_ERROR_REASON;

typedef enum pz_async_error_reason {
	DAT_PZ_OTHER_ERROR,
} DAT_PZ_ASYNC_ERROR_REASON;

/* Software event posted with dat_evd_post_se(). */
typedef struct dat_software_event_data {
	DAT_PVOID pointer;
} DAT_SOFTWARE_EVENT_DATA;

typedef enum dat_event_number {
	DAT_DTO_COMPLETION_EVENT			= 0x00001,
	DAT_RMR_BIND_COMPLETION_EVENT			= 0x01001,
	DAT_CONNECTION_REQUEST_EVENT			= 0x02001,
	DAT_CONNECTION_EVENT_ESTABLISHED		= 0x04001,
	DAT_CONNECTION_EVENT_PEER_REJECTED		= 0x04002,
	DAT_CONNECTION_EVENT_NON_PEER_REJECTED		= 0x04003,
	DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR	= 0x04004,
	DAT_CONNECTION_EVENT_DISCONNECTED		= 0x04005,
	DAT_CONNECTION_EVENT_BROKEN			= 0x04006,
	DAT_CONNECTION_EVENT_TIMED_OUT			= 0x04007,
	DAT_CONNECTION_EVENT_UNREACHABLE		= 0x04008,
	DAT_ASYNC_ERROR_EVD_OVERFLOW			= 0x08001,
	DAT_ASYNC_ERROR_IA_CATASTROPHIC			= 0x08002,
	DAT_ASYNC_ERROR_EP_BROKEN			= 0x08003,
	DAT_ASYNC_ERROR_TIMED_OUT			= 0x08004,
	DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR		= 0x08005,
	DAT_HA_DOWN_TO_1				= 0x08101,
	DAT_HA_UP_TO_MULTI_PATH				= 0x08102,
	DAT_SOFTWARE_EVENT				= 0x10001,
	DAT_EXTENSION_EVENT				= 0x20000,
	DAT_IB_EXTENSION_RANGE_BASE			= 0x40000,
	DAT_IW_EXTENSION_RANGE_BASE			= 0x80000,
} DAT_EVENT_NUMBER;

typedef union dat_event_data {
	DAT_DTO_COMPLETION_EVENT_DATA dto_completion_event_data;
	DAT_RMR_BIND_COMPLETION_EVENT_DATA rmr_completion_event_data;
	DAT_CR_ARRIVAL_EVENT_DATA cr_arrival_event_data;
	DAT_CONNECTION_EVENT_DATA connect_event_data;
	DAT_ASYNCH_ERROR_EVENT_DATA asynch_error_event_data;
	DAT_SOFTWARE_EVENT_DATA software_event_data;
} DAT_EVENT_DATA;

typedef struct dat_event {
	DAT_EVENT_NUMBER event_number;
	DAT_EVD_HANDLE evd_handle;
	DAT_EVENT_DATA event_data;
	DAT_UINT64 event_extension_data[8];
} DAT_EVENT;

/* ------------------------------------------------------------------ */
/* Registry                                                            */
/* ------------------------------------------------------------------ */

/* One entry of dat_registry_list_providers(). */
typedef struct dat_provider_info {
	char ia_name[DAT_NAME_MAX_LENGTH];
	DAT_UINT32 dapl_version_major;
	DAT_UINT32 dapl_version_minor;
	DAT_BOOLEAN is_thread_safe;
} DAT_PROVIDER_INFO;

#endif /* _DAT2_DAT_H_ */
