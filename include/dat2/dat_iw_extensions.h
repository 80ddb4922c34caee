/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * iWARP transport extensions for DAT 2.0 (kDAT): the Socket Service Point
 * (passive side) and dat_iw_socket_connect (active side), which turn an
 * existing, connected kernel TCP socket into the RDMA connection of an
 * endpoint. Names and semantics are those of "iWARP Transport Specific
 * Extensions for DAT 2.0" (seed 000). In kDAPL the calls are functions,
 * not macros over a DAT_EXTENSION_FUNC vector.
 *
 * Only IAs whose device can take a socket over support them (kdapl
 * reports DAT_EXTENSION_IW, DAT_IW_EXTENSION_VERSION and the named
 * attribute DAT_IW_ATTR_SSP in dat_ia_query); on any other IA (siw, say)
 * every call returns DAT_MODEL_NOT_SUPPORTED.
 *
 * Documentation/socket_transfer.rst describes the states and the rules.
 */
#ifndef _DAT2_DAT_IW_EXTENSIONS_H_
#define _DAT2_DAT_IW_EXTENSIONS_H_

#include <dat2/kdat.h>

struct socket;

/* Version of the extension interface (DAT_IA_ATTR.extension_version). */
#define DAT_IW_EXTENSION_VERSION	2

/* Names in DAT_PROVIDER_ATTR.provider_specific_attr (value "TRUE"). */
#define DAT_EXTENSION_ATTR		"DAT_EXTENSION_INTERFACE"
#define DAT_EXTENSION_ATTR_VERSION	"DAT_EXTENSION_VERSION"
#define DAT_IW_ATTR_SSP			"DAT_IW_ATTR_SSP"

/*
 * Transport-specific EP attributes (DAT_EP_ATTR.ep_transport_specific):
 * what the EP inherits from the socket, decimal strings. A consumer may
 * set them at dat_ep_create(); a value that differs from the socket's
 * makes dat_iw_socket_connect() / dat_iw_ssp_create() fail with
 * DAT_INVALID_PARAMETER. dat_ep_query() reports the inherited ones.
 */
#define DAT_IW_EP_ATTR_DOMAIN		"DAT_IW_SOCKET_DOMAIN"
#define DAT_IW_EP_ATTR_TYPE		"DAT_IW_SOCKET_TYPE"
#define DAT_IW_EP_ATTR_PROTOCOL		"DAT_IW_SOCKET_PROTOCOL"

/* A Linux kernel socket: created with sock_create_kern(), connected. */
typedef struct socket *DAT_IW_SOCKET;

typedef enum dat_handle_iw_ext_type {
	DAT_IW_HANDLE_TYPE_SSP = DAT_HANDLE_TYPE_EXTENSION_BASE,
} DAT_HANDLE_IW_EXT_TYPE;

typedef DAT_HANDLE DAT_IW_SSP_HANDLE;

typedef enum dat_iw_ssp_state {
	DAT_IW_SSP_STATE_OPERATIONAL,
	DAT_IW_SSP_STATE_NON_OPERATIONAL,
} DAT_IW_SSP_STATE;

typedef struct dat_iw_ssp_param {
	DAT_IA_HANDLE ia_handle;
	DAT_IW_SOCKET socket_id;	/* NULL once non-operational */
	DAT_EVD_HANDLE evd_handle;
	DAT_EP_HANDLE ep_handle;
	DAT_IW_SSP_STATE ssp_state;
} DAT_IW_SSP_PARAM;

typedef enum dat_iw_ssp_param_mask {
	DAT_IW_SSP_FIELD_IA_HANDLE	= 0x01,
	DAT_IW_SSP_FIELD_SOCKET_ID	= 0x02,
	DAT_IW_SSP_FIELD_EVD_HANDLE	= 0x04,
	DAT_IW_SSP_FIELD_EP_HANDLE	= 0x08,
	DAT_IW_SSP_FIELD_SSP_STATE	= 0x10,
	DAT_IW_SSP_FIELD_ALL		= 0x1F,
} DAT_IW_SSP_PARAM_MASK;

/*
 * The SSP's socket is not (or no longer) connected: posted once on the
 * SSP's EVD, with event_data.cr_arrival_event_data.sp_handle.psp_handle
 * set to the SSP and cr_handle DAT_HANDLE_NULL; the SSP is then
 * non-operational and the socket back with the consumer.
 */
#define DAT_CONNECTION_EVENT_SOCKET_DOWN \
	((DAT_EVENT_NUMBER)(DAT_IW_EXTENSION_RANGE_BASE + 1))

/*
 * dat_iw_ssp_create() - make @socket_id a service point for one request
 *
 * @ep_handle: an UNCONNECTED EP with PZ and EVDs, RESERVED by the SSP
 *	until the request arrives (then PASSIVE_CONNECTION_PENDING), or
 *	DAT_HANDLE_NULL for a provider EP made at the request
 * @evd_handle: a CR EVD, gets DAT_CONNECTION_REQUEST_EVENT or
 *	DAT_CONNECTION_EVENT_SOCKET_DOWN
 * @final_sm_msg, @final_sm_msg_len: optional last streaming-mode message,
 *	sent after MPA Request reception is enabled, all of it or, to the
 *	peer, none: if none of it can be queued in time (kiwarp's
 *	sock_sndtimeo_ms, the peer's window shut) the call fails with
 *	DAT_INSUFFICIENT_RESOURCES and the socket is as it was; if only
 *	part of it went, the connection is reset and the SSP reports
 *	DAT_CONNECTION_EVENT_SOCKET_DOWN
 *
 * Return: DAT_SUCCESS, DAT_INVALID_HANDLE, DAT_INVALID_PARAMETER,
 * DAT_INVALID_STATE (EP not UNCONNECTED or not configured, socket not
 * TCP or not through this IA's device), DAT_INSUFFICIENT_RESOURCES,
 * DAT_MODEL_NOT_SUPPORTED. Context: process context; sleeps.
 */
DAT_RETURN dat_iw_ssp_create(DAT_IA_HANDLE ia_handle, DAT_IW_SOCKET socket_id,
			     DAT_EP_HANDLE ep_handle,
			     DAT_EVD_HANDLE evd_handle,
			     DAT_PVOID final_sm_msg,
			     DAT_COUNT final_sm_msg_len,
			     DAT_IW_SSP_HANDLE *ssp_handle);

/*
 * dat_iw_ssp_free() - destroy an SSP; a socket still attached (no request
 * yet) goes back to the consumer, a reserved EP to UNCONNECTED.
 * Return: DAT_SUCCESS, DAT_INVALID_HANDLE. Context: process; sleeps.
 */
DAT_RETURN dat_iw_ssp_free(DAT_IW_SSP_HANDLE ssp_handle);

/*
 * dat_iw_ssp_query() - the SSP's parameters named in @ssp_param_mask
 * Return: DAT_SUCCESS, DAT_INVALID_HANDLE, DAT_INVALID_PARAMETER;
 * DAT_INVALID_STATE from an upcall (softirq) or interrupt context.
 * Context: process context; sleeps. Not upcall safe.
 */
DAT_RETURN dat_iw_ssp_query(DAT_IW_SSP_HANDLE ssp_handle,
			    DAT_IW_SSP_PARAM_MASK ssp_param_mask,
			    DAT_IW_SSP_PARAM *ssp_param);

/*
 * dat_iw_socket_connect() - connect an EP over an existing TCP connection
 *
 * @ep_handle: UNCONNECTED, with PZ and EVDs
 * @socket_id: a connected kernel TCP socket through the EP's IA device;
 *	the EP's on success, the consumer's again on every failure
 * @timeout: microseconds or DAT_TIMEOUT_INFINITE; 0 is refused
 * @private_data_size, @private_data: carried in the MPA Request
 *
 * The outcome arrives on the connect EVD as for dat_ep_connect():
 * ESTABLISHED, PEER_REJECTED, NON_PEER_REJECTED, UNREACHABLE, TIMED_OUT.
 *
 * Return: DAT_SUCCESS (ACTIVE_CONNECTION_PENDING), DAT_INVALID_HANDLE,
 * DAT_INVALID_PARAMETER, DAT_INVALID_STATE, DAT_INSUFFICIENT_RESOURCES,
 * DAT_MODEL_NOT_SUPPORTED. Context: process context; sleeps.
 */
DAT_RETURN dat_iw_socket_connect(DAT_EP_HANDLE ep_handle,
				 DAT_IW_SOCKET socket_id, DAT_TIMEOUT timeout,
				 DAT_COUNT private_data_size,
				 const DAT_PVOID private_data);

#endif /* _DAT2_DAT_IW_EXTENSIONS_H_ */
